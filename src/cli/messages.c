/*
 * messages.c - what the command says on standard error (cli_fail,
 * cli_usage_error, cli_note), or into a --jobs worker's capture (out.h),
 * and its last word: cli_finish flushes standard output and tells a
 * write error. Apart from main.c (the command table) and out.c (the
 * output buffer), which both use it.
 */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void vfail(const char *cmd, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* "urisan: CMD: MESSAGE" into a --jobs worker's capture (out.h). */
static void vcapture(cli_buf *e, const char *cmd, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

static void vcapture(cli_buf *e, const char *cmd, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    cli_buf_lit(e, "urisan: ");
    if (cmd != NULL) {
        cli_buf_adds(e, cmd);
        cli_buf_lit(e, ": ");
    }
    if (n > 0 && cli_buf_reserve(e, (size_t)n + 1)) {
        vsnprintf(e->p + e->len, (size_t)n + 1, fmt, ap);
        e->len += (size_t)n;
        cli_buf_set_lim(e);
    }
    cli_buf_addc(e, '\n');
}

static void vfail(const char *cmd, const char *fmt, va_list ap)
{
    cli_buf *e = cli_err_capture();
    if (e != NULL) {
        vcapture(e, cmd, fmt, ap);
        return;
    }
    cli_out_flush();   /* keep our lines in order when both go to a tty */
    if (cmd != NULL)
        fprintf(stderr, "urisan: %s: ", cmd);
    else
        fputs("urisan: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(cmd, fmt, ap);
    va_end(ap);
    /* one line naming the bad word (above), then where the usage is
       (cmd is a command's name) */
    if (cmd != NULL)
        fprintf(stderr, "see 'urisan %s --help'\n", cmd);
    else
        fputs("see 'urisan --help'\n", stderr);
    return CLI_EXIT_USAGE;
}

int cli_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(cmd, fmt, ap);
    va_end(ap);
    return CLI_EXIT_USAGE;
}

void cli_note(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_buf *e = cli_err_capture();
    if (e != NULL) {
        vcapture(e, cmd, fmt, ap);
    } else {
        fprintf(stderr, "urisan: %s: ", cmd);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
    }
    va_end(ap);
}

int cli_finish(const char *cmd, int status)
{
    bool ok = cli_out_flush();
    int err = cli_out_error();
    cli_out_reset();
    if (!ok || fflush(stdout) != 0 || ferror(stdout))
        return cli_fail(cmd, "write error on standard output: %s",
                        strerror(err ? err : errno));
    return status;
}
