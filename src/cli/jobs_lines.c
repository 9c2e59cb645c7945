/*
 * jobs_lines.c - --jobs over the lines of standard input (see jobs.h):
 * read by the block by the workers in turn (cli_jobs_pull), whole lines
 * queued as one record that a worker cuts (cli_jobs_give_lines: the
 * buffer read into is the batch's), so that reading does no work a line
 * and copies nothing but the start of the last line. The lines are those
 * of lines.h: a line longer than the buffer is cut here to its first keep
 * bytes, its length counted to its LF.
 */
#define _GNU_SOURCE 1 /* memrchr */
#include "cli.h"
#include "jobs.h"
#include "progress.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK ((size_t)64 << 10)

typedef struct {
    cli_jobs *j;
    const char *cmd;
    int status;          /* CLI_EXIT_*: a read failed */
    bool io_ok;          /* false: a unit's output failed, or no memory */
    size_t keep;
    char *buf;           /* buf[0..len): read, not queued: a line's start */
    size_t cap, len;
    bool longl;          /* a line longer than cap is being read: its
                            first keep bytes are buf[0..keep) */
    size_t full;         /* its bytes so far */
    unsigned char last;  /* its last byte so far */
} lreader;

/* A line as a unit: kept bytes p[0..min(full, keep)), its length full. */
static bool put_line(lreader *r, const char *p, size_t full)
{
    size_t kept = full < r->keep ? full : r->keep;
    cli_job_item it = { .a = p, .alen = kept, .n = { full, full > kept } };
    return cli_jobs_add(r->j, &it);
}

/* The n bytes read at buf + len while a long line is read: up to its LF,
   then the line is queued and the bytes after it kept. */
static bool long_line(lreader *r, size_t n)
{
    const char *s = r->buf + r->len;
    const char *nl = memchr(s, '\n', n);
    size_t t = nl != NULL ? (size_t)(nl - s) : n;
    r->full += t;
    if (t > 0)
        r->last = (unsigned char)s[t - 1];
    if (nl == NULL)
        return true;
    if (r->full > 0 && r->last == '\r')   /* CRLF: the CR is no part of it */
        r->full--;
    bool ok = put_line(r, r->buf, r->full);
    size_t rest = n - t - 1;
    memmove(r->buf, nl + 1, rest);
    r->len = rest;
    r->longl = false;
    return ok;
}

/* The whole lines of buf[0..len) queued; the rest moved to the start. A
   full buffer with no LF starts a long line. */
static bool whole_lines(lreader *r)
{
    const char *lf = memrchr(r->buf, '\n', r->len);
    if (lf != NULL) {
        size_t w = (size_t)(lf - r->buf) + 1;
        /* the buffer goes to the workers as it is; the rest of the
           last line starts the next one */
        if (!cli_jobs_give_lines(r->j, &r->buf, &r->cap, w, r->len, r->keep))
            return false;
        r->len -= w;
    }
    if (r->len == r->cap) {
        /* cap >= keep + 2: longer than keep even without a CR */
        r->longl = true;
        r->full = r->len;
        r->last = (unsigned char)r->buf[r->len - 1];
        r->len = r->keep;
    }
    return true;
}

/* The last line, with no LF (a CR at its end is data, as in lines.h). */
static bool last_line(lreader *r)
{
    if (r->longl)
        return put_line(r, r->buf, r->full);
    return r->len == 0 || put_line(r, r->buf, r->len);
}

/* One read of standard input, queued (cli_jobs_pull: on a worker, its
   turn). false: the input has ended, or reading stops. */
static bool pull_lines(void *arg)
{
    lreader *r = arg;
    cli_jobs_idle(r->j, STDIN_FILENO);   /* answers out before a read may wait */
    ssize_t n;
    do {
        n = read(STDIN_FILENO, r->buf + r->len, r->cap - r->len);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
        if (n < 0)
            r->status = cli_fail(r->cmd, "reading standard input: %s", strerror(errno));
        else
            r->io_ok = last_line(r);
        return false;
    }
    cli_progress_bytes(r->buf + r->len, (size_t)n);
    if (r->longl)
        r->io_ok = long_line(r, (size_t)n);
    else
        r->len += (size_t)n;
    if (r->io_ok && !r->longl)
        r->io_ok = whole_lines(r);
    return r->io_ok;
}

int cli_jobs_each_line(const char *cmd, cli_jobs *j, size_t keep)
{
    lreader r = { .j = j, .cmd = cmd, .keep = keep ? keep : 1, .io_ok = true,
                  .status = CLI_EXIT_OK };
    r.cap = r.keep + 2 > BLOCK ? r.keep + 2 : BLOCK;
    r.buf = malloc(r.cap);
    if (r.buf == NULL)
        return cli_fail(cmd, "out of memory");
    cli_jobs_pull(j, pull_lines, &r);
    free(r.buf);
    if (!r.io_ok && cli_out_error() == 0 && !ferror(stdout))
        r.status = cli_fail(cmd, "out of memory for an output line");
    return r.status;
}
