/*
 * jobs.h - `--jobs N`: N worker threads over one input, the output
 * written in input order, byte for byte what one thread writes.
 *
 * The reading thread copies each unit of input (a log line, a message)
 * into a batch, or plain lines by the block (cli_jobs_add_lines; the
 * lines of standard input without a copy, cli_jobs_give_lines, read by
 * the workers themselves in turn: cli_jobs_pull); a worker takes the
 * next batch, runs the command's function on each unit
 * with its own context (the command's: check's share one memo of host
 * views, urisan_host_ctx_new_sharing), and its output lines and messages
 * for standard error go into the batch (cli_out_capture). The worker
 * that finishes the batch at the head writes it and every finished one
 * after it, in order, straight from the batch's buffer (the reading
 * thread too, while it waits for room). A unit whose output fails stops
 * its batch there, as one thread stops at that line; the batches after
 * it are dropped.
 *
 * Memory: at most 2N + 2 batches in flight and N x 8 MiB of their input
 * (a larger unit, a message up to its bound, goes alone); a batch is 256
 * KiB of input (4096 units) and the output it made (kept for the next
 * batch up to 16 MiB: about 2.5 MiB for check --json). Plain lines of
 * standard input: a batch is one 64 KiB read (cli_jobs_give_lines; about
 * 600 KiB of check --json output).
 */
#ifndef URISAN_CLI_JOBS_H
#define URISAN_CLI_JOBS_H

#include <stdbool.h>
#include <stddef.h>

#include "json.h"

/* A unit of input, as handed to cli_jobs_add and back to the worker
   (a and b then point into the batch). */
typedef struct {
    const char *a;       /* the unit's bytes */
    size_t alen;
    const char *b;       /* more bytes (NULL: none) */
    size_t blen;
    size_t n[4];         /* the command's numbers */
    const void *p[2];    /* the command's pointers to what outlives the run */
} cli_job_item;

/* Run one unit on worker context wctx; false: its output failed. */
typedef bool (*cli_job_fn)(void *wctx, const cli_job_item *it);
/* Before a unit: the bytes of the next one of its batch (a hint). */
typedef void (*cli_job_ahead_fn)(void *wctx, const char *p, size_t n);

typedef struct cli_jobs cli_jobs;

/* The number of workers --jobs asks for: "0" one per online core, else
   1..256. false: not a number in range. */
bool cli_jobs_parse(const char *s, unsigned *n);

/* n workers, wctx[k] the context of worker k. NULL: out of memory or
   no thread could be started (printed as "urisan: CMD: ..."). */
cli_jobs *cli_jobs_start(const char *cmd, unsigned n, void *const *wctx, cli_job_fn fn,
                         cli_job_ahead_fn ahead);
/* Queue a unit (copied). false: a unit's output failed; stop reading. */
bool cli_jobs_add(cli_jobs *j, const cli_job_item *it);
/* Queue the whole lines p[0..n) (each ends in LF; copied as one block):
   a worker cuts them as lines.h does and hands each to fn as a unit of
   its own - a, alen: the line's first keep bytes at most (a CR before the
   LF is no part of it); n[0]: its length; n[1]: 1 when cut to keep -
   the reading thread does no work a line. false: as cli_jobs_add. */
bool cli_jobs_add_lines(cli_jobs *j, const char *p, size_t n, size_t keep);
/* The same for the whole lines (*buf)[0..whole) of a buffer of *cap
   bytes (malloc'd) without a copy: the buffer becomes the batch's, and
   *buf, *cap a buffer of at least that size (a free batch's) that starts
   with the rest, (*buf)[whole..len). false: as cli_jobs_add (*buf kept). */
bool cli_jobs_give_lines(cli_jobs *j, char **buf, size_t *cap, size_t whole, size_t len,
                         size_t keep);
/* Every line of standard input through j (jobs_lines.c): read by the
   block, whole lines queued by cli_jobs_add_lines, a line longer than
   the block cut here; each line a unit as cli_jobs_add_lines describes.
   The status as cli_each_input's. */
int cli_jobs_each_line(const char *cmd, cli_jobs *j, size_t keep);
/* The input read by the workers themselves, in turn: a worker with no
   batch to take calls pull(arg) (one worker at a time; what it tells on
   standard error goes in its place, as the reading thread's), which reads
   the next piece and queues it (cli_jobs_add, cli_jobs_give_lines, ...),
   then most often runs that batch itself: the bytes it read are in its
   core's cache, and no third thread competes for the cores. false: the
   input has ended. Returns when pull has returned false. */
typedef bool (*cli_jobs_pull_fn)(void *arg);
void cli_jobs_pull(cli_jobs *j, cli_jobs_pull_fn pull, void *arg);
/* Before the input may wait: queue what is read, wait until it is all
   written and flush the output (an interactive peer gets its answers). */
void cli_jobs_idle(cli_jobs *j, int fd);
/* Wait for every unit, write the rest, stop the workers, free. false: a
   unit's output failed. */
bool cli_jobs_end(cli_jobs *j);

/*
 * A pool of n threads for work cut by the caller (extract's text:
 * pieces of a window scanned at once). cli_pool_run runs task(arg, k,
 * wctx) for k in [0, ntasks) on the workers and returns when all are
 * done; each task's output goes into out[k] and err[k] (cli_out_capture).
 */
typedef struct cli_pool cli_pool;
typedef void (*cli_pool_fn)(void *arg, size_t k, void *wctx);
cli_pool *cli_pool_start(const char *cmd, unsigned n, void *const *wctx);
void cli_pool_run(cli_pool *p, size_t ntasks, cli_pool_fn task, void *arg, cli_buf *out,
                  cli_buf *err);
void cli_pool_end(cli_pool *p);

#endif
