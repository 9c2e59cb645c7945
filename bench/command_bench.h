/*
 * command_bench.h - urisan-bench rows for the `urisan` command itself:
 * the command end to end against the closest commands a user
 * would pick instead, and the command paths' linearity. See
 * bench/command_bench.c and doc/bench.md.
 */
#ifndef URISAN_BENCH_COMMAND_H
#define URISAN_BENCH_COMMAND_H

#include <stddef.h>

typedef struct {
    const char *cmd;       /* the urisan binary timed end to end */
    const char *ref_cmd;   /* another urisan binary (an older build) timed
                              beside it, or NULL */
    const char *node;      /* Node.js binary ("/usr/bin/node"); NULL: none */
    const char *python;    /* Python 3 binary ("python3", looked up in PATH) */
    char **files;          /* the data sets the large file is made of */
    size_t nfiles;
    unsigned repeat;       /* copies of the data sets in it (10) */
    size_t max_lines;      /* 0: all; else the large file's first lines */
    unsigned rounds;       /* interleaved rounds; the median is reported */
    int smoke;             /* check each row's output, report no figures */
    const char *stream_sizes; /* --stream-sizes: MiB, comma-separated; NULL:
                                 64,1024,4096 */
} cmdbench_opts;

/*
 * End to end: builds the large file (the data sets `repeat` times, or the
 * bundled generator's lines when there are none) in $TMPDIR, runs every
 * row as a subprocess with it on standard input, rounds times in turn,
 * and prints wall/user seconds, lines/s, MB/s and ratios from this run.
 * Returns 0, or 1 when a row failed (a bad exit status, or in smoke mode
 * the wrong number of output lines).
 */
int cmdbench_end_to_end(const cmdbench_opts *o);

/*
 * Inputs of any size (bench/stream_bench.c): extract --json on generated
 * text and extract --mail --json on a generated mbox, piped in, at each
 * size of stream_sizes, with --jobs 1 and 2: wall and CPU seconds, MB/s,
 * max RSS. Returns 0, or 1 when a row failed.
 */
int cmdbench_stream(const cmdbench_opts *o);

/* The clock and the children (command_bench.c; the command and stream
   rows time their subprocesses the same way). */
double cmdbench_now(void);                     /* CLOCK_MONOTONIC, seconds */
double cmdbench_median(double *v, size_t n);   /* sorts v */
typedef struct {
    double wall, user, sys;   /* seconds */
    long rss_kib;             /* max RSS */
} cmdbench_times;
/* A child running argv (looked up in PATH) with standard input in_fd and
   standard output the file out (created); close_fd (-1: none) closed in
   it too. -1 when it could not be started. */
int cmdbench_spawn(const char *const *argv, int in_fd, int close_fd, const char *out);
/* Wait for child pid started at t0 (cmdbench_now): its times (wait4) into
   *t; its exit status, 128 + signal when killed, -1 when lost. */
int cmdbench_reap(int pid, double t0, cmdbench_times *t);

#ifdef BENCH_HAVE_CLI
/*
 * Linearity of the command paths, in process (the command's code linked
 * in, main renamed urisan_cli_main): ns per input byte at 1 KiB, 64 KiB
 * and 1 MiB for one long line and for many short lines (from the data
 * sets, or generated) through check --json, check, extract --json and
 * squid-acl. The same columns as the library's linearity rows.
 */
void cmdbench_linear(int smoke, char **files, size_t nfiles);
#endif

#endif
