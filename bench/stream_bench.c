/*
 * stream_bench.c - urisan-bench rows for inputs of any size (--stream):
 * `urisan extract --json -` on generated free text and `urisan extract
 * --mail --json -` on a generated mbox, at each size of --stream-sizes
 * (MiB; default 64,1024,4096), with --jobs 1 and --jobs 2.
 *
 * The input is made on the fly: a child process writes one generated
 * block again and again into a pipe that is the command's standard input
 * (nothing on disk, whatever the size). Each row is a subprocess with
 * /dev/null as output, timed by wall clock and wait4's rusage (user,
 * system, max RSS); rows of one size run in turn, rounds times, and the
 * figures are medians. MB/s is given by wall time and by CPU time (user +
 * system: what the command itself costs, steadier on a shared machine).
 * Flat MB/s and max RSS across sizes is what "linear time, bounded
 * memory" looks like from outside.
 */
#define _DEFAULT_SOURCE 1 /* wait4 */
#include "command_bench.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SB_MAX_SIZES 8
#define SB_ROWS 4
#define SB_MAX_ROUNDS 20

/* Append s to the block (grown as needed). */
static void put(char **b, size_t *n, size_t *cap, const char *s, size_t len)
{
    if (*n + len > *cap) {
        *cap = (*n + len) * 2;
        *b = realloc(*b, *cap);
        if (*b == NULL)
            abort();
    }
    memcpy(*b + *n, s, len);
    *n += len;
}

/* One block of generated input: 400 lines of text with three links each
   (bare, <...> wrapped over a line break, www.), or those lines as 50
   messages of an mbox (a ">From " body line in each). */
static char *make_block(int mbox, size_t *len)
{
    char *b = NULL, line[256];
    size_t n = 0, cap = 0;
    for (int m = 0; m < (mbox ? 50 : 1); m++) {
        if (mbox) {
            int k = snprintf(line, sizeof line,
                             "From s@example.org Mon Jan  1 00:00:00 2024\nFrom: a@example.org\n"
                             "Message-ID: <g%d@example.org>\nSubject: report %d\n\n", m, m);
            put(&b, &n, &cap, line, (size_t)k);
        }
        for (int i = mbox ? m * 8 : 0; i < (mbox ? (m + 1) * 8 : 400); i++) {
            int k = snprintf(line, sizeof line,
                             "see http://host%d.example/p/%d?q=%d and <http://w.example/\n %d> "
                             "or www.abbr%d.example. done\n", i % 50, i, i * 7, i, i);
            put(&b, &n, &cap, line, (size_t)k);
        }
        if (mbox)
            put(&b, &n, &cap, ">From the archive\n\n", 19);
    }
    *len = n;
    return b;
}

/* A child that writes size bytes (whole blocks) to fd, then exits. */
static pid_t generator(int fd, const char *block, size_t blen, size_t size)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    signal(SIGPIPE, SIG_DFL);
    for (size_t done = 0; done < size;) {
        size_t off = 0;
        while (off < blen) {
            ssize_t w = write(fd, block + off, blen - off);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                _exit(1);
            off += (size_t)w;
        }
        done += blen;
    }
    _exit(0);
}

typedef struct {
    const char *name;
    int mbox;
    const char *argv[8];
    double wall[SB_MAX_ROUNDS], cpu[SB_MAX_ROUNDS];
    long rss_kib;
    int failed;
} sb_row;

/* One run of row r on size bytes; its figures into round k. */
static void run_row(sb_row *r, unsigned k, const char *block, size_t blen, size_t size)
{
    int p[2];
    if (pipe(p) != 0) {
        r->failed = 1;
        return;
    }
    double t0 = cmdbench_now();
    pid_t gen = generator(p[1], block, blen, size);
    int cmd = cmdbench_spawn(r->argv, p[0], p[1], "/dev/null");
    close(p[0]);
    close(p[1]);
    int gst = 0;
    cmdbench_times t = { 0, 0, 0, 0 };
    int st = cmd < 0 ? -1 : cmdbench_reap(cmd, t0, &t);
    r->wall[k] = t.wall;
    r->cpu[k] = t.user + t.sys;
    if (t.rss_kib > r->rss_kib)
        r->rss_kib = t.rss_kib;
    while (waitpid(gen, &gst, 0) < 0 && errno == EINTR)
        ;
    if (st < 0 || st > 1 || !WIFEXITED(gst) || WEXITSTATUS(gst) != 0) {
        printf("stream: %s exited %d (generator %d)\n", r->name, st,
               WIFEXITED(gst) ? WEXITSTATUS(gst) : -1);
        r->failed = 1;
    }
}

static void sb_rows(sb_row *rows, const char *cmd)
{
    static const char *const names[SB_ROWS] = { "extract --json text", "extract --json --jobs 2",
                                                "extract --mail --json mbox",
                                                "extract --mail --jobs 2" };
    for (int i = 0; i < SB_ROWS; i++) {
        sb_row *r = &rows[i];
        memset(r, 0, sizeof *r);
        r->name = names[i];
        r->mbox = i >= 2;
        int a = 0;
        r->argv[a++] = cmd;
        r->argv[a++] = "extract";
        if (r->mbox)
            r->argv[a++] = "--mail";
        r->argv[a++] = "--json";
        if (i % 2) {
            r->argv[a++] = "--jobs";
            r->argv[a++] = "2";
        }
        r->argv[a++] = "-";
        r->argv[a] = NULL;
    }
}

/* The rows at one size: rounds in turn, then a line each. */
static int one_size(const char *cmd, size_t mib, unsigned rounds, char *const blocks[2],
                    const size_t blens[2])
{
    sb_row rows[SB_ROWS];
    sb_rows(rows, cmd);
    size_t size = mib << 20;
    for (unsigned k = 0; k < rounds; k++)
        for (int i = 0; i < SB_ROWS; i++)
            run_row(&rows[i], k, blocks[rows[i].mbox], blens[rows[i].mbox], size);
    int status = 0;
    for (int i = 0; i < SB_ROWS; i++) {
        sb_row *r = &rows[i];
        /* whole blocks: the bytes actually written */
        size_t blen = blens[r->mbox];
        double bytes = (double)((size + blen - 1) / blen * blen);
        double w = cmdbench_median(r->wall, rounds), c = cmdbench_median(r->cpu, rounds);
        printf("  %-28s %6zu %9.2f %9.2f %9.1f %9.1f %9.1f%s\n", r->name, mib, w, c,
               bytes / w / 1e6, bytes / c / 1e6, (double)r->rss_kib / 1024.0,
               r->failed ? "  FAILED" : "");
        status |= r->failed;
    }
    return status;
}

int cmdbench_stream(const cmdbench_opts *o)
{
    if (o->cmd == NULL || access(o->cmd, X_OK) != 0) {
        printf("\nstream: no urisan binary (--cmd PATH); stream rows skipped\n");
        return 0;
    }
    size_t sizes[SB_MAX_SIZES], nsizes = 0;
    const char *s = o->stream_sizes ? o->stream_sizes : "64,1024,4096";
    while (*s != '\0' && nsizes < SB_MAX_SIZES) {
        char *end;
        unsigned long v = strtoul(s, &end, 10);
        if (end == s || v == 0 || v > (1ul << 20)) {
            printf("stream: bad --stream-sizes '%s'\n", o->stream_sizes);
            return 1;
        }
        sizes[nsizes++] = v;
        s = *end == ',' ? end + 1 : end;
    }
    unsigned rounds = o->smoke ? 1 : o->rounds < 1 ? 1 : o->rounds > SB_MAX_ROUNDS
                                                             ? SB_MAX_ROUNDS : o->rounds;
    size_t blens[2];
    char *blocks[2] = { make_block(0, &blens[0]), make_block(1, &blens[1]) };
    printf("\nstream: generated input piped in (text block %zu bytes, mbox block %zu bytes, "
           "50 messages), stdout /dev/null, %u round%s, rows in turn; medians\n",
           blens[0], blens[1], rounds, rounds == 1 ? "" : "s");
    printf("  %-28s %6s %9s %9s %9s %9s %9s\n", "row", "MiB", "wall s", "cpu s", "MB/s wall",
           "MB/s cpu", "RSS MiB");
    int status = 0;
    for (size_t i = 0; i < nsizes; i++)
        status |= one_size(o->cmd, o->smoke ? 1 : sizes[i], rounds, blocks, blens);
    free(blocks[0]);
    free(blocks[1]);
    return status;
}
