/*
 * command_bench.c - the `urisan` command in urisan-bench.
 *
 * End to end (--commands): what a user who checks a log pays. The large
 * file is the shared URL data sets concatenated `repeat` times (x10 is
 * the issue's 1,090,610-line, 62 MB file), or, without them, lines of the
 * bundled generator below; it is written to $TMPDIR and removed, never
 * into the source tree. Each row runs as a subprocess with the file on
 * standard input and /dev/null as output, timed by wall clock and
 * getrusage (user, system), every row once per round, rows in turn
 * (urisan rows, the reference build, Node, Python, then again), so a
 * change of the machine's load hits all rows of a round alike. Figures
 * are medians; ratios are taken within this one run.
 *
 * The peers are the closest commands a user would write instead: a loop
 * that parses each line and prints one JSON object per line -
 *   node:   new URL(line) + JSON.stringify of its parts (WHATWG URL);
 *   python: urllib.parse.urlsplit(line) + json.dumps of its parts.
 * They parse and print; urisan check --json also validates strictly,
 * computes every flag, the verdict and the host view. Their scripts are
 * in this file (NODE_SCRIPT, PYTHON_SCRIPT).
 *
 * --smoke runs every row once on a few thousand lines and checks that
 * each wrote one line per input line (extract: at least one hit), so
 * the rows cannot rot; it reports no figures and asserts no time.
 *
 * Linearity (cmdbench_linear, with the command linked in): see
 * command_bench.h.
 */
#define _DEFAULT_SOURCE 1 /* wait4 */
#include "command_bench.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ROWS 12
#define MAX_ROUNDS 100

double cmdbench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
#define wall_s cmdbench_now

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cmdbench_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_dbl);
    return (n % 2) ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double tv_s(struct timeval t)
{
    return (double)t.tv_sec + (double)t.tv_usec * 1e-6;
}

int cmdbench_spawn(const char *const *argv, int in_fd, int close_fd, const char *out)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid != 0)
        return pid < 0 ? -1 : (int)pid;
    int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fo < 0 || dup2(in_fd, 0) < 0 || dup2(fo, 1) < 0)
        _exit(126);
    close(in_fd);
    close(fo);
    if (close_fd >= 0)
        close(close_fd);
    execvp(argv[0], (char *const *)(uintptr_t)argv);
    _exit(127);
}

int cmdbench_reap(int pid, double t0, cmdbench_times *t)
{
    int st = 0;
    struct rusage ru;
    while (wait4(pid, &st, 0, &ru) < 0) {
        if (errno != EINTR)
            return -1;
    }
    t->wall = cmdbench_now() - t0;
    t->user = tv_s(ru.ru_utime);
    t->sys = tv_s(ru.ru_stime);
    t->rss_kib = ru.ru_maxrss;
    return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

/* ------------------------------------------------------------------ */
/* The large file                                                      */
/* ------------------------------------------------------------------ */

/* xorshift64*: the generator's lines are the same on every machine. */
static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

static const char *pick(uint64_t *s, const char *const *v, size_t n)
{
    return v[rnd(s) % n];
}
#define PICK(s, v) pick((s), (v), sizeof(v) / sizeof((v)[0]))

/*
 * One generated line: the shapes of the shared lists (web URLs with
 * paths and queries, file: and node: specifiers, mailto:, phishing-style
 * userinfo, IP literals, escapes, a little non-ASCII and some risk).
 */
static void gen_line(FILE *f, uint64_t *s)
{
    static const char *const schemes[] = { "http", "https", "https", "https", "ftp", "ws" };
    static const char *const words[] = { "example", "login", "secure", "cdn", "static", "api",
                                         "mail", "account", "paypa1", "bank", "news", "shop",
                                         "img", "files", "update", "id" };
    static const char *const tlds[] = { "com", "org", "net", "io", "co.uk", "de", "ru", "xyz" };
    static const char *const segs[] = { "index.html", "a", "b", "assets", "js", "app.js",
                                        "%2e%2e", "..", "wp-admin", "login.php", "v1", "users",
                                        "caf\xc3\xa9", "x%20y", "%c0%ae", "search" };
    static const char *const keys[] = { "q", "id", "redirect", "utm_source", "next", "token" };
    unsigned kind = (unsigned)(rnd(s) % 20);
    if (kind == 0) {
        fprintf(f, "file:///home/user/%s/%s\n", PICK(s, words), PICK(s, segs));
        return;
    }
    if (kind == 1) {
        fprintf(f, "node:%s\n", PICK(s, words));
        return;
    }
    if (kind == 2) {
        fprintf(f, "mailto:%s@%s.%s\n", PICK(s, words), PICK(s, words), PICK(s, tlds));
        return;
    }
    fprintf(f, "%s://", PICK(s, schemes));
    if (kind == 3)
        fprintf(f, "%s.%s@", PICK(s, words), PICK(s, tlds));
    if (kind == 4)
        fprintf(f, "%u.%u.%u.%u", (unsigned)(rnd(s) % 256), (unsigned)(rnd(s) % 256),
                (unsigned)(rnd(s) % 256), (unsigned)(rnd(s) % 256));
    else if (kind == 5)
        fprintf(f, "[2001:db8::%x]", (unsigned)(rnd(s) % 65536));
    else
        fprintf(f, "%s%s.%s", kind == 6 ? "www." : "", PICK(s, words), PICK(s, tlds));
    if (kind == 7)
        fprintf(f, ":%u", (unsigned)(rnd(s) % 65536));
    unsigned nseg = (unsigned)(rnd(s) % 5);
    for (unsigned i = 0; i < nseg; i++)
        fprintf(f, "/%s", PICK(s, segs));
    if (nseg == 0)
        fputc('/', f);
    if (rnd(s) % 3 == 0)
        fprintf(f, "?%s=%s&%s=%u", PICK(s, keys), PICK(s, words), PICK(s, keys),
                (unsigned)(rnd(s) % 100000));
    if (rnd(s) % 10 == 0)
        fprintf(f, "#%s", PICK(s, words));
    fputc('\n', f);
}

#define GEN_LINES ((size_t)1000000)

/* Appends the file at path, up to *left lines (when limited); false on a
   read error. */
static int append_file(FILE *out, const char *path, size_t *left, int limited,
                       size_t *lines, size_t *bytes)
{
    FILE *in = fopen(path, "rb");
    if (in == NULL) {
        fprintf(stderr, "urisan-bench: %s: %s\n", path, strerror(errno));
        return 0;
    }
    char buf[65536];
    size_t n;
    int last_nl = 1;
    while ((!limited || *left > 0) && (n = fread(buf, 1, sizeof buf, in)) > 0) {
        size_t take = n;
        if (limited) {
            size_t k = 0, nl = 0;
            while (k < n && nl < *left) {
                if (buf[k++] == '\n')
                    nl++;
            }
            take = k;
            *left -= nl;
        }
        for (size_t k = 0; k < take; k++)
            *lines += buf[k] == '\n';
        fwrite(buf, 1, take, out);
        *bytes += take;
        last_nl = buf[take - 1] == '\n';
    }
    if (!last_nl) {   /* a file without a final LF: its last line counts */
        fputc('\n', out);
        (*lines)++;
        (*bytes)++;
    }
    fclose(in);
    return 1;
}

/* The large file: its path (to unlink), lines and bytes. */
static int make_large_file(const cmdbench_opts *o, char *path, size_t cap, size_t *lines,
                           size_t *bytes, const char **what)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(path, cap, "%s/urisan-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        fprintf(stderr, "urisan-bench: %s: %s\n", path, strerror(errno));
        return 0;
    }
    FILE *f = fdopen(fd, "wb");
    if (f == NULL) {
        close(fd);
        unlink(path);
        return 0;
    }
    *lines = 0;
    *bytes = 0;
    size_t left = o->max_lines;
    int limited = o->max_lines > 0;
    int ok = 1;
    if (o->nfiles > 0) {
        *what = "the data sets";
        for (unsigned r = 0; r < o->repeat && ok && (!limited || left > 0); r++)
            for (size_t i = 0; i < o->nfiles && ok; i++)
                ok = append_file(f, o->files[i], &left, limited, lines, bytes);
    } else {
        *what = "the bundled generator (no data sets given)";
        uint64_t s = UINT64_C(0x9E3779B97F4A7C15);
        size_t n = limited ? o->max_lines : GEN_LINES;
        for (size_t i = 0; i < n; i++)
            gen_line(f, &s);
        *lines = n;
        fflush(f);
        struct stat st;
        *bytes = fstat(fileno(f), &st) == 0 ? (size_t)st.st_size : 0;
    }
    if (fclose(f) != 0)
        ok = 0;
    if (!ok)
        unlink(path);
    return ok;
}

/* ------------------------------------------------------------------ */
/* The rows                                                            */
/* ------------------------------------------------------------------ */

static const char NODE_SCRIPT[] =
    "const fs = require('fs');\n"
    "const lines = fs.readFileSync(0, 'utf8').split('\\n');\n"
    "if (lines.length && lines[lines.length - 1] === '') lines.pop();\n"
    "let out = [];\n"
    "for (let l of lines) {\n"
    "  if (l.endsWith('\\r')) l = l.slice(0, -1);\n"
    "  let o;\n"
    "  try {\n"
    "    const u = new URL(l);\n"
    "    o = {uri: l, valid: true, protocol: u.protocol, username: u.username,\n"
    "         password: u.password, hostname: u.hostname, port: u.port,\n"
    "         pathname: u.pathname, search: u.search, hash: u.hash, href: u.href};\n"
    "  } catch (e) {\n"
    "    o = {uri: l, valid: false, error: e.code || 'invalid'};\n"
    "  }\n"
    "  out.push(JSON.stringify(o));\n"
    "  if (out.length >= 8192) { fs.writeSync(1, out.join('\\n') + '\\n'); out = []; }\n"
    "}\n"
    "if (out.length) fs.writeSync(1, out.join('\\n') + '\\n');\n";

static const char PYTHON_SCRIPT[] =
    "import sys, json\n"
    "from urllib.parse import urlsplit\n"
    "out = []\n"
    "w = sys.stdout.write\n"
    "for raw in sys.stdin.buffer:\n"
    "    l = raw[:-1] if raw.endswith(b'\\n') else raw\n"
    "    if l.endswith(b'\\r'): l = l[:-1]\n"
    "    s = l.decode('utf-8', 'surrogateescape')\n"
    "    try:\n"
    "        u = urlsplit(s)\n"
    "        d = {'uri': s, 'valid': True, 'scheme': u.scheme, 'netloc': u.netloc,\n"
    "             'hostname': u.hostname, 'port': u.port, 'path': u.path,\n"
    "             'query': u.query, 'fragment': u.fragment}\n"
    "    except ValueError as e:\n"
    "        d = {'uri': s, 'valid': False, 'error': str(e)}\n"
    "    out.append(json.dumps(d))\n"
    "    if len(out) >= 8192:\n"
    "        w('\\n'.join(out) + '\\n'); out = []\n"
    "if out: w('\\n'.join(out) + '\\n')\n";

typedef struct {
    char name[40];
    const char *argv[6];
    int per_line;        /* writes one line per input line */
    int urisan;          /* the row ratios are taken against */
    double wall[MAX_ROUNDS], user[MAX_ROUNDS], sys[MAX_ROUNDS];
    int failed;
} row_t;

/* Runs argv with stdin from in and stdout to out (a path); status and
   times. -1 when it could not start. */
static int run(const char *const *argv, const char *in, const char *out, double *wall,
               double *user, double *sys)
{
    double t0 = cmdbench_now();
    int fi = open(in, O_RDONLY);
    int pid = fi < 0 ? -1 : cmdbench_spawn(argv, fi, -1, out);
    if (fi >= 0)
        close(fi);
    cmdbench_times t;
    int st = pid < 0 ? -1 : cmdbench_reap(pid, t0, &t);
    if (st >= 0) {
        *wall = t.wall;
        *user = t.user;
        *sys = t.sys;
    }
    return st;
}

static size_t count_lines(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return 0;
    char buf[65536];
    size_t n, lines = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0; i < n; i++)
            lines += buf[i] == '\n';
    fclose(f);
    return lines;
}

/* Can argv[0] run at all (`--version` exits 0)? */
static int runnable(const char *prog, const char *path_in)
{
    const char *argv[] = { prog, "--version", NULL };
    double w, u, s;
    return run(argv, path_in, "/dev/null", &w, &u, &s) == 0;
}

static void add_row(row_t *rows, size_t *n, const char *name, const char *a0, const char *a1,
                    const char *a2, const char *a3, int per_line, int urisan)
{
    row_t *r = &rows[(*n)++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    r->argv[0] = a0;
    r->argv[1] = a1;
    r->argv[2] = a2;
    r->argv[3] = a3;
    if (a3 != NULL && strcmp(a3, "--jobs") == 0) { /* "--jobs" "2" */
        r->argv[4] = "2";
        r->argv[5] = NULL;
    }
    r->per_line = per_line;
    r->urisan = urisan;
}

int cmdbench_end_to_end(const cmdbench_opts *o)
{
    char path[4096];
    size_t lines = 0, bytes = 0;
    const char *what = "";
    if (o->cmd == NULL || access(o->cmd, X_OK) != 0) {
        printf("\ncommands: no urisan binary (--cmd PATH); command rows skipped\n");
        return 0;
    }
    if (!make_large_file(o, path, sizeof path, &lines, &bytes, &what)) {
        printf("\ncommands: could not write the input file; command rows skipped\n");
        return 0;
    }
    row_t *rows = calloc(MAX_ROWS, sizeof *rows);
    if (rows == NULL) {
        unlink(path);
        return 1;
    }
    size_t n = 0;
    add_row(rows, &n, "urisan check --json", o->cmd, "check", "--json", NULL, 1, 1);
    add_row(rows, &n, "urisan check --json -j2", o->cmd, "check", "--json", "--jobs", 1, 0);
    add_row(rows, &n, "urisan check", o->cmd, "check", NULL, NULL, 1, 0);
    add_row(rows, &n, "urisan extract --json", o->cmd, "extract", "--json", "-", 0, 0);
    add_row(rows, &n, "urisan squid-acl", o->cmd, "squid-acl", NULL, NULL, 1, 0);
    if (o->ref_cmd != NULL) {
        if (access(o->ref_cmd, X_OK) == 0) {
            add_row(rows, &n, "ref check --json", o->ref_cmd, "check", "--json", NULL, 1, 0);
            add_row(rows, &n, "ref check", o->ref_cmd, "check", NULL, NULL, 1, 0);
        } else {
            printf("commands: --cmd-ref %s is not executable; its rows skipped\n", o->ref_cmd);
        }
    }
    if (o->node != NULL && runnable(o->node, path))
        add_row(rows, &n, "node URL+JSON", o->node, "-e", NODE_SCRIPT, NULL, 1, 0);
    else
        printf("commands: node (%s) not found or not runnable; its row skipped\n",
               o->node ? o->node : "none given");
    if (o->python != NULL && runnable(o->python, path))
        add_row(rows, &n, "python urlsplit+json", o->python, "-c", PYTHON_SCRIPT, NULL, 1, 0);
    else
        printf("commands: python (%s) not found or not runnable; its row skipped\n",
               o->python ? o->python : "none given");

    unsigned rounds = o->rounds < 1 ? 1 : o->rounds > MAX_ROUNDS ? MAX_ROUNDS : o->rounds;
    if (o->smoke)
        rounds = 1;
    char outp[4200];
    snprintf(outp, sizeof outp, "%s.out", path);
    const char *sink = o->smoke ? outp : "/dev/null";
    printf("\ncommands end to end: %zu lines, %zu bytes (%.1f MB) from %s;\n"
           "each row a subprocess, stdin the file, stdout %s; %u round%s, rows in turn.\n",
           lines, bytes, (double)bytes / 1e6, what, o->smoke ? "a file (lines counted)" :
           "/dev/null", rounds, rounds == 1 ? "" : "s");
    int status = 0;
    for (unsigned r = 0; r < rounds; r++) {
        for (size_t i = 0; i < n; i++) {
            row_t *row = &rows[i];
            int rc = run(row->argv, path, sink, &row->wall[r], &row->user[r], &row->sys[r]);
            /* urisan: 0 nothing denied, 1 something denied; peers: 0 */
            if (rc < 0 || rc > (row->argv[0] == o->cmd || row->argv[0] == o->ref_cmd ? 1 : 0)) {
                printf("commands: %s exited %d\n", row->name, rc);
                row->failed = 1;
                status = 1;
            }
            if (o->smoke && !row->failed) {
                size_t got = count_lines(outp);
                if (row->per_line ? got != lines : got == 0) {
                    printf("commands: %s wrote %zu lines for %zu input lines\n", row->name, got,
                           lines);
                    row->failed = 1;
                    status = 1;
                } else {
                    printf("  %-22s ok: %zu output lines\n", row->name, got);
                }
            }
        }
    }
    if (!o->smoke) {
        double mw[MAX_ROWS], mu[MAX_ROWS], ms[MAX_ROWS];
        size_t ref = 0;
        for (size_t i = 0; i < n; i++) {
            mw[i] = cmdbench_median(rows[i].wall, rounds);
            mu[i] = cmdbench_median(rows[i].user, rounds);
            ms[i] = cmdbench_median(rows[i].sys, rounds);
            if (rows[i].urisan)
                ref = i;
        }
        printf("  %-22s %8s %8s %7s %11s %8s %9s %9s\n", "row", "wall s", "user s", "sys s",
               "lines/s", "MB/s", "x wall", "x user");
        for (size_t i = 0; i < n; i++)
            printf("  %-22s %8.3f %8.3f %7.3f %11.0f %8.1f %9.2f %9.2f%s\n", rows[i].name, mw[i],
                   mu[i], ms[i], (double)lines / mw[i], (double)bytes / mw[i] / 1e6,
                   mw[i] / mw[ref], mu[i] / mu[ref], rows[i].failed ? "  FAILED" : "");
        printf("  (x wall, x user: the row's median over %s's; MB/s and lines/s by wall time)\n",
               rows[ref].name);
        for (size_t i = 0; i < n; i++) {
            if (i == ref)
                continue;
            printf("ratio %s / %s: wall %.2f user %.2f\n", rows[i].name, rows[ref].name,
                   mw[i] / mw[ref], mu[i] / mu[ref]);
        }
    }
    unlink(outp);
    unlink(path);
    free(rows);
    return status;
}

/* ------------------------------------------------------------------ */
/* Linearity of the command paths (in process)                          */
/* ------------------------------------------------------------------ */

#ifdef BENCH_HAVE_CLI
#include <sys/mman.h>

int urisan_cli_main(int argc, char **argv);

/* One call of the command with stdin = fd (rewound) and stdout = null. */
static void call_cmd(char *const *args, int fd, int null_fd)
{
    /* the command moves its operands within argv: a fresh copy a call */
    char *argv[8];
    int argc = 0;
    while (argc < 7 && args[argc] != NULL) {
        argv[argc] = args[argc];
        argc++;
    }
    argv[argc] = NULL;
    lseek(fd, 0, SEEK_SET);
    fflush(stdout);
    int saved_in = dup(0), saved_out = dup(1);
    if (saved_in < 0 || saved_out < 0 || dup2(fd, 0) < 0 || dup2(null_fd, 1) < 0)
        abort();
    (void)urisan_cli_main(argc, argv);
    fflush(stdout);
    if (dup2(saved_out, 1) < 0 || dup2(saved_in, 0) < 0)
        abort();
    close(saved_in);
    close(saved_out);
}

/* Best of three batches, each repeated until it lasts min_s; s a call. */
static double time_cmd(char *const *argv, int fd, int null_fd, double min_s)
{
    double best = 0;
    for (int b = 0; b < 3; b++) {
        size_t reps = 0;
        double t0 = wall_s(), t1;
        do {
            call_cmd(argv, fd, null_fd);
            reps++;
            t1 = wall_s();
        } while (t1 - t0 < min_s);
        double per = (t1 - t0) / (double)reps;
        if (b == 0 || per < best)
            best = per;
    }
    return best;
}

/* fd of a memfd-like temporary file holding p[0..n). */
static int temp_with(const char *p, size_t n)
{
    char path[4096];
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/urisan-bench-lin-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    unlink(path);
    size_t o = 0;
    while (o < n) {
        ssize_t w = write(fd, p + o, n - o);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        o += (size_t)w;
    }
    return fd;
}

/* One long line: a URL of size bytes (a unit with bytes that need JSON
   escapes, escapes and a dot segment), then LF. */
static size_t long_line(char *buf, size_t size)
{
    static const char prefix[] = "http://h.example/";
    static const char unit[] = "ab%2e/\"\\\x01\xc3\xa9%25/../";
    size_t p = sizeof prefix - 1, u = sizeof unit - 1;
    size_t len = p + (size - 1 - p) / u * u;
    memcpy(buf, prefix, p);
    for (size_t i = p; i < len; i++)
        buf[i] = unit[(i - p) % u];
    buf[len++] = '\n';
    return len;
}

/* Many short lines: whole lines of src (cycled) up to size bytes. */
static size_t short_lines(char *buf, size_t size, const char *src, size_t srclen)
{
    size_t o = 0, i = 0;
    for (;;) {
        const char *nl = memchr(src + i, '\n', srclen - i);
        size_t l = nl ? (size_t)(nl - (src + i)) + 1 : srclen - i;
        if (o + l > size || l == 0)
            break;
        memcpy(buf + o, src + i, l);
        o += l;
        i += l;
        if (i >= srclen)
            i = 0;
    }
    return o;
}

void cmdbench_linear(int smoke, char **files, size_t nfiles)
{
    static const size_t sizes[] = { 1024, (size_t)64 * 1024, (size_t)1024 * 1024 };
    size_t nsizes = smoke ? 1 : 3;
    double min_s = smoke ? 1e-4 : 0.05;
    /* the limits raised to the ceiling, as for the library rows */
    static const char pol_text[] = "limit uri 1048576\nlimit scheme 1048576\n"
                                   "limit userinfo 1048576\nlimit host 1048576\n"
                                   "limit label 1048576\nlimit segments 1048576\n";
    char pol_path[4096];
    const char *tmp = getenv("TMPDIR");
    snprintf(pol_path, sizeof pol_path, "%s/urisan-bench-pol-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int pfd = mkstemp(pol_path);
    int null_fd = open("/dev/null", O_WRONLY);
    char *buf = malloc(sizes[2] + 1);
    /* the short lines: the data sets' first 2 MiB, or generated ones */
    size_t srccap = (size_t)2 << 20, srclen = 0;
    char *src = malloc(srccap);
    if (pfd < 0 || null_fd < 0 || buf == NULL || src == NULL ||
        write(pfd, pol_text, sizeof pol_text - 1) != (ssize_t)(sizeof pol_text - 1)) {
        printf("\ncommand linearity: no temporary file or memory; skipped\n");
        goto out;
    }
    close(pfd);
    pfd = -1;
    for (size_t k = 0; k < nfiles && srclen < srccap; k++) {
        FILE *f = fopen(files[k], "rb");
        if (f == NULL)
            continue;
        srclen += fread(src + srclen, 1, srccap - srclen, f);
        fclose(f);
    }
    if (srclen == 0) {
        FILE *f = fmemopen(src, srccap, "wb");
        uint64_t s = UINT64_C(0x9E3779B97F4A7C15);
        for (int i = 0; f != NULL && i < 20000; i++)
            gen_line(f, &s);
        if (f != NULL) {
            srclen = (size_t)ftell(f);
            fclose(f);
        }
    }
    while (srclen > 0 && src[srclen - 1] != '\n')
        srclen--;   /* whole lines only */

    printf("\ncommand linearity: ns per input byte through the command in process\n"
           "(stdin a file, stdout /dev/null, --policy with every limit at the ceiling);\n"
           "a call includes the command's fixed setup (policy, buffers), which dominates\n"
           "at 1 KiB: 1M/64K shows the trend per byte. Flat rows are linear.\n");
    printf("  %-16s %-14s %10s %10s %10s %10s %10s\n", "input", "command", "1 KiB", "64 KiB",
           "1 MiB", "1M/1K", "1M/64K");
    static char a_urisan[] = "urisan", a_check[] = "check", a_json[] = "--json",
                a_extract[] = "extract", a_dash[] = "-", a_squid[] = "squid-acl",
                a_policy[] = "--policy";
    struct {
        const char *name;
        char *argv[8];
    } cmds[] = {
        { "check --json", { a_urisan, a_check, a_json, a_policy, pol_path, NULL } },
        { "check", { a_urisan, a_check, a_policy, pol_path, NULL } },
        { "extract --json", { a_urisan, a_extract, a_json, a_policy, pol_path, a_dash, NULL } },
        { "squid-acl", { a_urisan, a_squid, a_policy, pol_path, NULL } },
    };
    for (int shape = 0; shape < 2; shape++) {
        if (shape == 1 && srclen == 0)
            continue;
        for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
            double per[3] = { 0, 0, 0 };
            for (size_t z = 0; z < nsizes; z++) {
                size_t len = shape == 0 ? long_line(buf, sizes[z])
                                        : short_lines(buf, sizes[z], src, srclen);
                int fd = temp_with(buf, len);
                if (fd < 0 || len == 0) {
                    if (fd >= 0)
                        close(fd);
                    continue;
                }
                per[z] = time_cmd(cmds[c].argv, fd, null_fd, min_s) * 1e9 / (double)len;
                close(fd);
            }
            const char *in = shape == 0 ? "one long line" : "short lines";
            if (smoke)
                printf("  %-16s %-14s %10.3f %10s %10s %10s\n", in, cmds[c].name, per[0], "-",
                       "-", "-");
            else
                printf("  %-16s %-14s %10.3f %10.3f %10.3f %10.2f %10.2f\n", in, cmds[c].name,
                       per[0], per[1], per[2], per[0] > 0 ? per[2] / per[0] : 0.0,
                       per[1] > 0 ? per[2] / per[1] : 0.0);
        }
    }
out:
    if (pfd >= 0)
        close(pfd);
    unlink(pol_path);
    if (null_fd >= 0)
        close(null_fd);
    free(buf);
    free(src);
}
#endif
