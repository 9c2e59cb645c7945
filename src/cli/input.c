/* input.c - where the subcommands' inputs come from: operands, lines of
   standard input, whole files (see cli.h). */
#include "cli.h"
#include "lines.h"
#include "out.h"
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Before a read of standard input (cli_input_set_idle). */
static void (*idle_fn)(void *arg, int fd);
static void *idle_arg;

void cli_input_set_idle(void (*fn)(void *arg, int fd), void *arg)
{
    idle_fn = fn;
    idle_arg = arg;
}

static void before_read(int fd)
{
    if (idle_fn != NULL)
        idle_fn(idle_arg, fd);
    else
        cli_out_idle(fd);
}

size_t cli_line_keep(const urisan_limits *lim)
{
    urisan_limits d;
    if (lim == NULL) {
        urisan_limits_default(&d);
        lim = &d;
    }
    size_t m = lim->max_uri;
    if (m > URISAN_HARD_CEILING)
        m = URISAN_HARD_CEILING;
    return m + 1;
}

int cli_each_input(const char *cmd, char **argv, int first, int last, size_t keep,
                   cli_input_fn one, void *ctx)
{
    return cli_each_input_ahead(cmd, argv, first, last, keep, one, NULL, ctx);
}

int cli_each_input_ahead(const char *cmd, char **argv, int first, int last, size_t keep,
                         cli_input_fn one, cli_ahead_fn ahead, void *ctx)
{
    int status = CLI_EXIT_OK;
    bool io_ok = true;
    if (first <= last) {
        for (int i = first; i <= last && io_ok; i++) {
            size_t n = strlen(argv[i]);
            io_ok = one(ctx, argv[i], n, n, false);
        }
    } else {
        cli_lines lr;
        if (!cli_lines_init(&lr, STDIN_FILENO, keep)) {
            status = cli_fail(cmd, "out of memory");
        } else {
            /* Answers already written go out before we wait for more. */
            lr.before_read = before_read;
            lr.after_read = cli_progress_bytes;
            cli_line ln;
            int got = 0;
            while (io_ok && (got = cli_lines_next(&lr, &ln)) == 1) {
                if (ahead != NULL) {
                    const char *p;
                    size_t n = cli_lines_ahead(&lr, &p);
                    ahead(ctx, p, n);
                }
                io_ok = one(ctx, ln.p, ln.len, ln.full_len, ln.truncated);
            }
            if (io_ok && got < 0)
                status = cli_fail(cmd, "reading standard input: %s", strerror(lr.err));
            cli_lines_free(&lr);
        }
    }
    if (!io_ok && cli_out_error() == 0 && !ferror(stdout))
        status = cli_fail(cmd, "out of memory for an output line");
    return status;
}

bool cli_read_file(const char *cmd, const char *path, size_t max,
                   char **data, size_t *len)
{
    int fd = 0;
    bool is_stdin = strcmp(path, "-") == 0;
    if (!is_stdin) {
        do {
            fd = open(path, O_RDONLY);
        } while (fd < 0 && errno == EINTR);
        if (fd < 0) {
            cli_fail(cmd, "%s: %s", path, strerror(errno));
            return false;
        }
    }
    cli_buf b;
    cli_buf_init(&b, max);
    bool ok = true;
    for (;;) {
        size_t want = b.max - b.len;
        if (want > 65536)
            want = 65536;
        char probe;
        char *dst = &probe;
        if (want == 0) {
            want = 1;   /* at max: one more byte means too large */
        } else if (cli_buf_reserve(&b, want)) {
            dst = b.p + b.len;
        } else {
            cli_fail(cmd, "%s: out of memory", path);
            ok = false;
            break;
        }
        ssize_t n;
        do {
            n = read(fd, dst, want);
        } while (n < 0 && errno == EINTR);
        if (n < 0) {
            cli_fail(cmd, "%s: %s", path, strerror(errno));
            ok = false;
            break;
        }
        if (n == 0)
            break;
        if (dst == &probe) {
            cli_fail(cmd, "%s: larger than %zu bytes", path, max);
            ok = false;
            break;
        }
        b.len += (size_t)n;
    }
    if (!is_stdin)
        close(fd);
    if (!ok) {
        cli_buf_free(&b);
        return false;
    }
    *data = b.p ? b.p : malloc(1);
    *len = b.len;
    if (*data == NULL) {
        cli_fail(cmd, "%s: out of memory", path);
        return false;
    }
    return true;
}
