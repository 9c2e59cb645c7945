/*
 * jobs_lines.c - --jobs over the lines of standard input (see jobs.h):
 * read by the block, whole lines queued as one record that a worker
 * cuts (cli_jobs_give_lines: the buffer read into is the batch's), so
 * that the reading thread does no work a line and copies nothing. The lines are those of lines.h: a line longer than the buffer
 * is cut here to its first keep bytes, its length counted to its LF.
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

int cli_jobs_each_line(const char *cmd, cli_jobs *j, size_t keep)
{
    lreader r = { .j = j, .keep = keep ? keep : 1 };
    r.cap = r.keep + 2 > BLOCK ? r.keep + 2 : BLOCK;
    r.buf = malloc(r.cap);
    if (r.buf == NULL)
        return cli_fail(cmd, "out of memory");
    bool io_ok = true;
    int status = CLI_EXIT_OK;
    while (io_ok) {
        cli_jobs_idle(j, STDIN_FILENO);   /* answers out before a read may wait */
        ssize_t n;
        do {
            n = read(STDIN_FILENO, r.buf + r.len, r.cap - r.len);
        } while (n < 0 && errno == EINTR);
        if (n <= 0) {
            if (n < 0)
                status = cli_fail(cmd, "reading standard input: %s", strerror(errno));
            else
                io_ok = last_line(&r);
            break;
        }
        cli_progress_bytes(r.buf + r.len, (size_t)n);
        if (r.longl)
            io_ok = long_line(&r, (size_t)n);
        else
            r.len += (size_t)n;
        if (io_ok && !r.longl)
            io_ok = whole_lines(&r);
    }
    free(r.buf);
    if (!io_ok && cli_out_error() == 0 && !ferror(stdout))
        status = cli_fail(cmd, "out of memory for an output line");
    return status;
}
