/* progress.c - `--progress` (see progress.h). */
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct {
    bool on, tty, shown;
    const char *cmd;
    unsigned long long lines, bytes;
    double t0, last;
} pg;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int cli_progress_mode(bool progress_seen, bool no_progress_seen)
{
    if (no_progress_seen)
        return 0;
    return progress_seen ? 1 : -1;
}

void cli_progress_start(const char *cmd, int on)
{
    memset(&pg, 0, sizeof pg);
    pg.tty = isatty(STDERR_FILENO) == 1;
    pg.on = on > 0 || (on < 0 && pg.tty);
    pg.cmd = cmd;
    pg.t0 = pg.last = pg.on ? now() : 0;
}

static void show(double t)
{
    double dt = t - pg.t0;
    unsigned long long rate = dt > 0 ? (unsigned long long)((double)pg.lines / dt) : 0;
    fprintf(stderr, "%surisan: %s: %llu lines, %llu bytes, %llu lines/s%s", pg.tty ? "\r" : "",
            pg.cmd, pg.lines, pg.bytes, rate, pg.tty ? "\033[K" : "\n");
    pg.shown = true;
    pg.last = t;
}

void cli_progress_bytes(const char *p, size_t n)
{
    if (!pg.on || n == 0)
        return;
    pg.bytes += n;
    const char *e = p + n;
    while ((p = memchr(p, '\n', (size_t)(e - p))) != NULL) {
        pg.lines++;
        p++;
    }
    double t = now();
    if (t - pg.last >= 1.0)
        show(t);
}

void cli_progress_end(void)
{
    if (!pg.on)
        return;
    if (pg.shown)
        show(now());
    if (pg.shown && pg.tty)
        fputc('\n', stderr);
    pg.on = false;
}
