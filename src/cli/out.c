/* out.c - the command's buffered standard output (see out.h). */
#include "out.h"
#include "cli.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static struct {
    cli_buf b;
    size_t start;   /* where the open line begins (== b.len between lines) */
    bool ready;
    bool tty;       /* stdout is a terminal: write after every line */
    int err;        /* errno of the first failed write */
} out;

/* A worker of --jobs (jobs.c): its lines go into cap.b, its messages for
   standard error into cap.err; nothing is written from the thread. */
static _Thread_local struct {
    cli_buf *b, *err;
    size_t start;
} cap;

void cli_out_capture(cli_buf *b, cli_buf *err)
{
    cap.b = b;
    cap.err = err;
    cap.start = b != NULL ? b->len : 0;
}

cli_buf *cli_err_capture(void)
{
    return cap.err;
}

/* The open line of a worker's capture. */
static cli_buf *cap_begin(void)
{
    cap.start = cap.b->len;
    cli_buf_set_max(cap.b, cap.start + CLI_JSON_MAX);
    return cap.b;
}

static bool cap_end(void)
{
    if (cap.b->failed) {
        cli_buf_rewind(cap.b, cap.start);
        return false;
    }
    cli_buf_set_max(cap.b, SIZE_MAX);
    if (!cli_buf_addc(cap.b, '\n')) {
        cli_buf_rewind(cap.b, cap.start);
        return false;
    }
    cap.start = cap.b->len;
    return true;
}

static void out_ready(void)
{
    if (out.ready)
        return;
    cli_buf_init(&out.b, SIZE_MAX);
    /* One block plus a typical line, so that a run of ordinary lines
       never reallocates; a failure here only means it grows later. */
    (void)cli_buf_reserve(&out.b, CLI_OUT_BLOCK + 65536);
    cli_buf_rewind(&out.b, 0);
    out.start = 0;
    out.tty = isatty(STDOUT_FILENO) == 1;
    out.err = 0;
    out.ready = true;
}

cli_buf *cli_out_begin(void)
{
    if (cap.b != NULL)
        return cap_begin();
    out_ready();
    out.start = out.b.len;
    cli_buf_rewind(&out.b, out.start);
    cli_buf_set_max(&out.b, out.start + CLI_JSON_MAX);
    return &out.b;
}

void cli_out_rewind(void)
{
    if (cap.b != NULL) {
        cli_buf_rewind(cap.b, cap.start);
        return;
    }
    cli_buf_rewind(&out.b, out.start);
}

/* write(2) all of p[0..n); false (out.err set) on an error. */
static bool write_all(const char *p, size_t n)
{
    while (n > 0 && out.err == 0) {
        ssize_t w = write(STDOUT_FILENO, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            out.err = w < 0 ? errno : EIO;
            break;
        }
        p += w;
        n -= (size_t)w;
    }
    return out.err == 0;
}

/* Write the complete lines: everything before the open line's start. */
static bool flush_lines(void)
{
    if (!out.ready)
        return fflush(stdout) == 0;
    /* Whatever went to stdout through stdio came first. */
    if (fflush(stdout) != 0 && out.err == 0)
        out.err = errno ? errno : EIO;
    size_t done = out.start;
    bool ok = write_all(out.b.p, done);
    if (done > 0) {
        cli_buf_drop(&out.b, done);
        out.start = 0;
    }
    return ok;
}

bool cli_out_end(void)
{
    if (cap.b != NULL)
        return cap_end();
    out_ready();
    if (out.b.failed) {
        cli_out_rewind();
        return false;
    }
    cli_buf_set_max(&out.b, SIZE_MAX);
    if (!cli_buf_addc(&out.b, '\n')) {
        cli_out_rewind();
        return false;
    }
    out.start = out.b.len;
    if (out.tty || out.b.len >= CLI_OUT_BLOCK)
        return flush_lines();
    return out.err == 0;
}

bool cli_out_flush(void)
{
    if (cap.b != NULL)
        return true;
    return flush_lines();
}

bool cli_out_lines(const char *p, size_t n)
{
    out_ready();
    if (n >= CLI_OUT_BLOCK) {
        /* a block of its own: what is buffered, then p itself, without
           a copy (a --jobs batch's output is megabytes) */
        return flush_lines() && write_all(p, n);
    }
    if (!cli_buf_add(&out.b, p, n)) {
        cli_buf_rewind(&out.b, out.start);
        return false;
    }
    out.start = out.b.len;
    if (out.tty || out.b.len >= CLI_OUT_BLOCK)
        return flush_lines();
    return out.err == 0;
}

void cli_out_idle(int fd)
{
    if (cap.b != NULL || !out.ready || out.start == 0)
        return;
    struct pollfd p = { .fd = fd, .events = POLLIN, .revents = 0 };
    if (poll(&p, 1, 0) != 1)
        flush_lines();
}

int cli_out_error(void)
{
    return out.err;
}

void cli_out_reset(void)
{
    if (!out.ready)
        return;
    cli_buf_free(&out.b);
    out.ready = false;
    out.start = 0;
    out.err = 0;
}

bool cli_out_line(const char *p, size_t n)
{
    cli_buf *b = cli_out_begin();
    cli_buf_add(b, p, n);
    return cli_out_end();
}

bool cli_out_buf(const cli_buf *b)
{
    if (b->failed)
        return false;
    return cli_out_line(b->p, b->len);
}
