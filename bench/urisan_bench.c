/*
 * urisan_bench.c - urisan side by side with its peers (doc/bench.md).
 *
 * Reads URL files (one per line; the LF and a CR before it are stripped,
 * everything else - a BOM, spaces, bytes >= 0x80 - is kept as it is) and
 * times, in the same process and in interleaved rounds:
 *
 *   urisan-parse      urisan_parse                 (split + strict validation)
 *   urisan-analyze    urisan_parse_analyze: parse + all risk flags in one call
 *   urisan-analyze-apart  urisan_parse, then urisan_analyze (two passes)
 *   urisan-check      urisan_check, NULL (default) policy: the same parse and
 *                     flags, plus the verdict; inside the library the parse
 *                     hands what its fast path saw to the analysis
 *   urisan-normalize  urisan_normalize
 *   urisan-resolve    urisan_resolve of the line against a fixed base
 *   uriparser         uriParseSingleUriExA + uriFreeUriMembersA
 *   curl              curl_url_set(CURLUPART_URL) on one reused handle
 *   glib-split        g_uri_split, all components requested, then g_free
 *   glib-parse        g_uri_parse + g_uri_unref
 *   byte-table        every byte through a 256-entry table: the cheapest
 *                     pass over the bytes there is, a lower bound
 *
 * --commands adds the `urisan` command end to end (check --json, check,
 * extract --json, squid-acl) beside Node's URL and Python's urlsplit on
 * a large file (bench/command_bench.c); the linearity part adds the
 * command paths when the command is linked in (BENCH_HAVE_CLI).
 *
 * Every timed loop folds its results into a checksum that is written to a
 * volatile sink, so the compiler cannot drop the work. A round times each
 * entry once over the whole data set; entries take turns inside a round, so
 * a slow drift of the machine (frequency, noisy neighbour) hits all alike.
 *
 * --callgrind --only ENTRY runs the one loop once per file between
 * CALLGRIND_TOGGLE_COLLECT marks (run under
 * `valgrind --tool=callgrind --collect-atstart=no`); bench/callgrind.sh turns
 * the totals into instructions per URL.
 *
 * A second part times adversarial inputs of 1 KiB, 64 KiB and 1 MiB through
 * every entry point with all limits raised to URISAN_HARD_CEILING and prints
 * the cost per byte at each size: the three columns must stay flat.
 *
 * Peer flags (chosen to accept as much as each parser can, without asking
 * it for extra work such as re-encoding):
 *   curl: CURLU_NON_SUPPORT_SCHEME (any scheme, not only the ones curl
 *         speaks), CURLU_NO_AUTHORITY (empty authority allowed for unknown
 *         schemes), CURLU_ALLOW_SPACE (raw spaces accepted), CURLU_PATH_AS_IS
 *         (no dot-segment removal: we time parsing, not normalising).
 *         CURLU_URLENCODE would accept nothing more that the others reject
 *         in a comparable way and re-encodes the input, so it is left out.
 *   GLib: G_URI_FLAGS_ENCODED (escapes stay as written; no decoding, like
 *         urisan's spans) | G_URI_FLAGS_PARSE_RELAXED (accept more).
 */
#include "urisan.h"
#include "command_bench.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef BENCH_HAVE_PEERS
#include <curl/curl.h>
#include <glib.h>
#include <uriparser/Uri.h>
#endif

#ifdef BENCH_HAVE_CALLGRIND_H
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_ZERO_STATS
#endif

#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/* ------------------------------------------------------------------ */
/* Data                                                                */
/* ------------------------------------------------------------------ */

typedef struct {
    const char *s; /* NUL-terminated copy (peers need C strings) */
    size_t len;    /* bytes before the terminator; may hold a NUL */
} line_t;

typedef struct {
    char name[64];  /* file name without directory and ".txt" */
    char *buf;
    line_t *lines;
    size_t n;
    size_t bytes;   /* sum of line lengths */
} dataset_t;

static volatile uint64_t bench_sink;

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "urisan-bench: out of memory (%zu bytes)\n", n);
        exit(2);
    }
    return p;
}

static void set_name(dataset_t *d, const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 4 && memcmp(b + n - 4, ".txt", 4) == 0)
        n -= 4;
    if (n >= sizeof d->name)
        n = sizeof d->name - 1;
    memcpy(d->name, b, n);
    d->name[n] = '\0';
}

/* 0 on success, -1 (with a message) when the file cannot be read. */
static int load(dataset_t *d, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "urisan-bench: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 20, len = 0;
    char *buf = xmalloc(cap + 1);
    for (;;) {
        if (len == cap) {
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                fprintf(stderr, "urisan-bench: out of memory\n");
                return -1;
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        fprintf(stderr, "urisan-bench: %s: read error\n", path);
        return -1;
    }
    buf[len] = '\0';

    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += buf[i] == '\n';
    if (len > 0 && buf[len - 1] != '\n')
        n++;
    d->lines = xmalloc(n * sizeof *d->lines);
    d->n = 0;
    d->bytes = 0;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && buf[i] != '\n')
            continue;
        if (i == len && start == len)
            break; /* no text after the last LF */
        size_t end = i;
        if (end > start && buf[end - 1] == '\r')
            end--;
        buf[end] = '\0';
        d->lines[d->n].s = buf + start;
        d->lines[d->n].len = end - start;
        d->bytes += end - start;
        d->n++;
        start = i + 1;
    }
    d->buf = buf;
    set_name(d, path);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Timed loops: each returns a checksum and counts accepted inputs      */
/* ------------------------------------------------------------------ */

#ifdef BENCH_HAVE_RESOLVE
/* RFC 3986 5.4's base; the data set lines are resolved against it. */
static const char resolve_base[] = "http://a/b/c/d;p?q";
#endif
#define OUTCAP ((size_t)3 << 20) /* room for a 1 MiB input plus a base */
static char *outbuf;

typedef uint64_t (*loop_fn)(const line_t *l, size_t n, size_t *accepted);

static NOINLINE uint64_t loop_urisan_parse(const line_t *l, size_t n, size_t *accepted)
{
    uint64_t sum = 0;
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        urisan_uri u;
        urisan_status st = urisan_parse(l[i].s, l[i].len, NULL, &u, NULL);
        ok += st == URISAN_OK;
        sum += (uint64_t)st + u.host.len + u.path.len + (uint64_t)u.host_type;
    }
    *accepted = ok;
    return sum;
}

#ifdef BENCH_HAVE_ANALYZE
static NOINLINE uint64_t loop_urisan_analyze(const line_t *l, size_t n, size_t *accepted)
{
    uint64_t sum = 0;
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        urisan_uri u;
        urisan_report r;
        urisan_status st = urisan_parse_analyze(l[i].s, l[i].len, NULL, &u, NULL, &r);
        ok += st == URISAN_OK;
        sum += (uint64_t)st + r.flags + u.host.len;
    }
    *accepted = ok;
    return sum;
}

/* The same work as two calls: urisan_analyze then reads the bytes again
   (no private summary in urisan_uri since 0.2.0). */
static NOINLINE uint64_t loop_urisan_analyze_apart(const line_t *l, size_t n, size_t *accepted)
{
    uint64_t sum = 0;
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        urisan_uri u;
        urisan_report r;
        urisan_status st = urisan_parse(l[i].s, l[i].len, NULL, &u, NULL);
        urisan_analyze(l[i].s, l[i].len, &u, NULL, &r);
        ok += st == URISAN_OK;
        sum += (uint64_t)st + r.flags + u.host.len;
    }
    *accepted = ok;
    return sum;
}
#endif

#ifdef BENCH_HAVE_ANALYZE
/* parse + analyse + the default policy's verdict in one call */
static NOINLINE uint64_t loop_urisan_check(const line_t *l, size_t n, size_t *accepted)
{
    uint64_t sum = 0;
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        urisan_uri u;
        urisan_report r;
        urisan_decision d;
        urisan_status st = urisan_check(l[i].s, l[i].len, NULL, &u, &r, &d);
        ok += st == URISAN_OK;
        sum += (uint64_t)st + r.flags + u.host.len + (uint64_t)d.verdict;
    }
    *accepted = ok;
    return sum;
}
#endif

#ifdef BENCH_HAVE_NORMALIZE
static NOINLINE uint64_t loop_urisan_normalize(const line_t *l, size_t n, size_t *accepted)
{
    uint64_t sum = 0;
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        size_t need = 0;
        urisan_status st = urisan_normalize(l[i].s, l[i].len, NULL, outbuf, OUTCAP,
                                            &need, NULL);
        ok += st == URISAN_OK;
        /* outbuf is only read when this call wrote it: a stale byte would
           make the checksum depend on the previous round */
        sum += (uint64_t)st + need + (st == URISAN_OK && need ? (unsigned char)outbuf[0] : 0);
    }
    *accepted = ok;
    return sum;
}
#endif

#ifdef BENCH_HAVE_RESOLVE
static NOINLINE uint64_t loop_urisan_resolve(const line_t *l, size_t n, size_t *accepted)
{
    uint64_t sum = 0;
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        size_t need = 0;
        urisan_flags fl = 0;
        urisan_status st = urisan_resolve(resolve_base, sizeof resolve_base - 1,
                                          l[i].s, l[i].len, NULL, outbuf, OUTCAP,
                                          &need, &fl, NULL);
        ok += st == URISAN_OK;
        sum += (uint64_t)st + need + fl;
    }
    *accepted = ok;
    return sum;
}
#endif

#ifdef BENCH_HAVE_PEERS
static NOINLINE uint64_t loop_uriparser(const line_t *l, size_t n, size_t *accepted)
{
    uint64_t sum = 0;
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        UriUriA u;
        const char *err = NULL;
        int r = uriParseSingleUriExA(&u, l[i].s, l[i].s + l[i].len, &err);
        if (r == URI_SUCCESS) {
            ok++;
            sum += (uint64_t)(u.hostText.afterLast - u.hostText.first);
            uriFreeUriMembersA(&u);
        } else {
            sum += (uint64_t)r + (uint64_t)(err ? err - l[i].s : 0);
        }
    }
    *accepted = ok;
    return sum;
}

static CURLU *curl_h;
static const unsigned curl_flags =
    CURLU_NON_SUPPORT_SCHEME | CURLU_NO_AUTHORITY | CURLU_ALLOW_SPACE | CURLU_PATH_AS_IS;

static NOINLINE uint64_t loop_curl(const line_t *l, size_t n, size_t *accepted)
{
    uint64_t sum = 0;
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        CURLUcode rc = curl_url_set(curl_h, CURLUPART_URL, l[i].s, curl_flags);
        ok += rc == CURLUE_OK;
        sum += (uint64_t)rc;
        /* Clear the handle: a URL set on a handle that holds one would be
           resolved against it as a reference. */
        curl_url_set(curl_h, CURLUPART_URL, NULL, 0);
    }
    *accepted = ok;
    return sum;
}

static const GUriFlags glib_flags = G_URI_FLAGS_ENCODED | G_URI_FLAGS_PARSE_RELAXED;

static NOINLINE uint64_t loop_glib_split(const line_t *l, size_t n, size_t *accepted)
{
    uint64_t sum = 0;
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        gchar *scheme = NULL, *user = NULL, *host = NULL, *path = NULL, *query = NULL,
              *frag = NULL;
        gint port = -1;
        gboolean r = g_uri_split(l[i].s, glib_flags, &scheme, &user, &host, &port, &path,
                                 &query, &frag, NULL);
        if (r) {
            ok++;
            sum += (uint64_t)(host ? strlen(host) : 0) + (uint64_t)port;
        }
        g_free(scheme);
        g_free(user);
        g_free(host);
        g_free(path);
        g_free(query);
        g_free(frag);
    }
    *accepted = ok;
    return sum;
}

static NOINLINE uint64_t loop_glib_parse(const line_t *l, size_t n, size_t *accepted)
{
    uint64_t sum = 0;
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        GUri *u = g_uri_parse(l[i].s, glib_flags, NULL);
        if (u != NULL) {
            ok++;
            sum += (uint64_t)g_uri_get_port(u);
            g_uri_unref(u);
        }
    }
    *accepted = ok;
    return sum;
}
#endif

/* The lower bound of any per-byte work: each byte through a 256-entry
   table (filled at run time so the compiler cannot fold it), summed. */
static unsigned char byte_tab[256];

static NOINLINE uint64_t loop_byte_table(const line_t *l, size_t n, size_t *accepted)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *s = (const unsigned char *)l[i].s;
        unsigned acc = 0;
        for (size_t k = 0; k < l[i].len; k++)
            acc += byte_tab[s[k]];
        sum += acc;
    }
    *accepted = n;
    return sum;
}

typedef struct {
    const char *name;
    loop_fn fn;
    int peer;        /* 1: another library, compared with urisan */
} entry_t;

static const entry_t entries[] = {
    {"urisan-parse", loop_urisan_parse, 0},
#ifdef BENCH_HAVE_ANALYZE
    {"urisan-analyze", loop_urisan_analyze, 0},
    {"urisan-analyze-apart", loop_urisan_analyze_apart, 0},
    {"urisan-check", loop_urisan_check, 0},
#endif
#ifdef BENCH_HAVE_NORMALIZE
    {"urisan-normalize", loop_urisan_normalize, 0},
#endif
#ifdef BENCH_HAVE_RESOLVE
    {"urisan-resolve", loop_urisan_resolve, 0},
#endif
#ifdef BENCH_HAVE_PEERS
    {"uriparser", loop_uriparser, 1},
    {"curl", loop_curl, 1},
    {"glib-split", loop_glib_split, 1},
    {"glib-parse", loop_glib_parse, 1},
#endif
    {"byte-table", loop_byte_table, 0},
};
#define N_ENTRIES (sizeof entries / sizeof entries[0])

/* The urisan figure peers are compared with: parse + all flags. */
#ifdef BENCH_HAVE_ANALYZE
#define REF_ENTRY "urisan-analyze"
#define REF_SHORT "analyze"
#else
#define REF_ENTRY "urisan-parse"
#define REF_SHORT "parse"
#endif

/* ------------------------------------------------------------------ */
/* Timing                                                              */
/* ------------------------------------------------------------------ */

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return (n % 2) ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int find_entry(const char *name)
{
    for (size_t e = 0; e < N_ENTRIES; e++)
        if (strcmp(entries[e].name, name) == 0)
            return (int)e;
    return -1;
}

static int selected(const char *only, const char *name)
{
    if (only == NULL)
        return 1;
    /* comma-separated list */
    size_t n = strlen(name);
    for (const char *p = only; *p;) {
        const char *c = strchr(p, ',');
        size_t k = c ? (size_t)(c - p) : strlen(p);
        if (k == n && memcmp(p, name, n) == 0)
            return 1;
        if (c == NULL)
            break;
        p = c + 1;
    }
    return 0;
}

static void bench_dataset(const dataset_t *d, unsigned rounds, const char *only,
                          char *ratio_lines, size_t ratio_cap)
{
    double *samples = xmalloc(N_ENTRIES * rounds * sizeof *samples);
    size_t accepted[N_ENTRIES] = {0};
    uint64_t sums[N_ENTRIES] = {0};
    int mismatch[N_ENTRIES] = {0};

    printf("\n%s: %zu URLs, %zu bytes, %.1f bytes/URL, %u rounds\n", d->name, d->n,
           d->bytes, d->n ? (double)d->bytes / (double)d->n : 0.0, rounds);
    if (d->n == 0)
        return;
    /* Round 0 warms caches, branch predictors and lazy initialisation of
       every library; it is not counted. */
    for (unsigned r = 0; r <= rounds; r++) {
        for (size_t e = 0; e < N_ENTRIES; e++) {
            if (!selected(only, entries[e].name))
                continue;
            size_t acc = 0;
            double t0 = now_ns();
            uint64_t s = entries[e].fn(d->lines, d->n, &acc);
            double t1 = now_ns();
            bench_sink += s;
            if (r == 0) {
                sums[e] = s;
                accepted[e] = acc;
                continue;
            }
            if (s != sums[e] || acc != accepted[e])
                mismatch[e] = 1; /* not deterministic: a bug somewhere */
            samples[e * rounds + (r - 1)] = (t1 - t0) / (double)d->n;
        }
    }

    double med[N_ENTRIES], lo[N_ENTRIES], hi[N_ENTRIES];
    for (size_t e = 0; e < N_ENTRIES; e++) {
        if (!selected(only, entries[e].name))
            continue;
        double *v = samples + e * rounds;
        med[e] = median(v, rounds);
        lo[e] = v[0];
        hi[e] = v[rounds - 1];
    }
    int ref = find_entry(REF_ENTRY);
    int par = find_entry("urisan-parse");
    if (ref >= 0 && !selected(only, REF_ENTRY))
        ref = -1;
    if (par >= 0 && !selected(only, "urisan-parse"))
        par = -1;

    printf("  %-17s %9s %19s %8s %10s %10s %9s\n", "entry", "ns/URL", "[min - max]", "MB/s",
           "x " REF_SHORT, "x parse", "accepted");
    for (size_t e = 0; e < N_ENTRIES; e++) {
        if (!selected(only, entries[e].name))
            continue;
        char range[40];
        snprintf(range, sizeof range, "[%.1f - %.1f]", lo[e], hi[e]);
        double mbs = (double)d->bytes / (med[e] * (double)d->n) * 1e3;
        char rr[16] = "-", rp[16] = "-";
        if (ref >= 0)
            snprintf(rr, sizeof rr, "%.2f", med[e] / med[ref]);
        if (par >= 0)
            snprintf(rp, sizeof rp, "%.2f", med[e] / med[par]);
        printf("  %-17s %9.1f %19s %8.0f %10s %10s %8.1f%%%s\n", entries[e].name, med[e],
               range, mbs, rr, rp, 100.0 * (double)accepted[e] / (double)d->n,
               mismatch[e] ? "  NONDETERMINISTIC" : "");
    }
    if (ref >= 0) {
        for (size_t e = 0; e < N_ENTRIES; e++) {
            if (!entries[e].peer || !selected(only, entries[e].name))
                continue;
            size_t used = strlen(ratio_lines);
            snprintf(ratio_lines + used, ratio_cap - used, "ratio %s/urisan %s %.2f\n",
                     entries[e].name, d->name, med[e] / med[ref]);
        }
    }
    free(samples);
}

/* ------------------------------------------------------------------ */
/* Linearity: adversarial inputs at three sizes                         */
/* ------------------------------------------------------------------ */

typedef struct {
    const char *label;
    const char *prefix;
    const char *unit;   /* repeated until the input has the wanted size */
    const char *suffix; /* after the units (NULL: none) */
} adversary_t;

static const adversary_t adversaries[] = {
    {"/..", "http://h/", "/..", NULL},
    {"%25", "http://h/", "%25", NULL},
    {"@ (authority)", "http://", "@", NULL},
    {"[ (authority)", "http://", "[", NULL},
    {": (authority)", "http://h", ":", NULL},
    {"%2e%2e/", "http://h/", "%2e%2e/", NULL},
    {"@ (path)", "http://h/", "@", NULL},
    {"%c0%ae/", "http://h/", "%c0%ae/", NULL},
    {"a. (host)", "http://", "a.", NULL},
    /* URLs nested in parameters (src/nested.c), decoded once and twice */
    {"?a=http://", "http://h/", "?a=http://", NULL},
    {"?a=http%253A", "http://h/", "?a=http%253A%252F%252F", NULL},
    {"&a=//h", "http://h/?x", "&a=//h", NULL},
    /* blanks before a nested URL, skipped however many (src/nested_find.c) */
    {"?u=+ x N http:", "http://h/?u=", "+", "http://169.254.169.254/"},
    {"?u=%20xN http:", "http://h/?u=", "%20", "http://169.254.169.254/"},
    {"?u=%09xN http:", "http://h/?u=", "%09", "http://169.254.169.254/"},
};
#define N_ADV (sizeof adversaries / sizeof adversaries[0])

/* The prefix and as many whole units as fit in size bytes; returns the
   length (a cut unit would turn e.g. "%25" into a trailing bad escape). */
static size_t make_adversary(char *buf, size_t size, const adversary_t *a)
{
    size_t p = strlen(a->prefix), u = strlen(a->unit);
    size_t x = a->suffix != NULL ? strlen(a->suffix) : 0;
    size_t len = p + (size - p - x) / u * u;
    memcpy(buf, a->prefix, p);
    for (size_t i = p; i < len; i++)
        buf[i] = a->unit[(i - p) % u];
    memcpy(buf + len, a->suffix != NULL ? a->suffix : "", x);
    return len + x;
}

typedef struct {
    const char *name;
    /* One call; returns a value for the checksum. */
    uint64_t (*call)(const char *in, size_t len, const urisan_limits *lim);
} lin_entry_t;

static uint64_t lin_parse(const char *in, size_t len, const urisan_limits *lim)
{
    urisan_uri u;
    urisan_status st = urisan_parse(in, len, lim, &u, NULL);
    return (uint64_t)st + u.segments;
}

#ifdef BENCH_HAVE_ANALYZE
static uint64_t lin_analyze(const char *in, size_t len, const urisan_limits *lim)
{
    urisan_uri u;
    urisan_report r;
    urisan_status st = urisan_parse(in, len, lim, &u, NULL);
    urisan_analyze(in, len, &u, NULL, &r);
    return (uint64_t)st + r.flags;
}
#endif

#ifdef BENCH_HAVE_RESOLVE
static uint64_t lin_resolve(const char *in, size_t len, const urisan_limits *lim)
{
    urisan_resolve_opts o = {0, URISAN_ABOVE_ROOT_CLAMP, lim};
    size_t need = 0;
    urisan_flags fl = 0;
    urisan_status st = urisan_resolve(resolve_base, sizeof resolve_base - 1, in, len, &o,
                                      outbuf, OUTCAP, &need, &fl, NULL);
    return (uint64_t)st + need + fl;
}
#endif

#ifdef BENCH_HAVE_NORMALIZE
static uint64_t lin_normalize(const char *in, size_t len, const urisan_limits *lim)
{
    size_t need = 0;
    urisan_status st = urisan_normalize(in, len, lim, outbuf, OUTCAP, &need, NULL);
    return (uint64_t)st + need;
}
#endif

#ifdef BENCH_HAVE_EXTRACT
/* Extraction takes its limits from a policy: one with every limit raised
   to the ceiling, parsed once. */
static urisan_policy *lin_policy;
static urisan_policy *lin_nested_policy;
static char *lin_nested_scratch;
#define LIN_NESTED_SCRATCH (3u << 20)
static char *lin_scratch;
static size_t lin_scratch_cap;

static void lin_extract_setup(void)
{
    static const char text[] = "limit uri 1048576\nlimit scheme 1048576\n"
                               "limit userinfo 1048576\nlimit host 1048576\n"
                               "limit label 1048576\nlimit segments 1048576\n";
    size_t line = 0;
    const char *msg = NULL;
    lin_policy = xmalloc(urisan_policy_size());
    urisan_policy_init(lin_policy);
    if (urisan_policy_parse(lin_policy, text, sizeof text - 1, &line, &msg) != URISAN_OK) {
        fprintf(stderr, "urisan-bench: policy line %zu: %s; extract uses the default\n", line,
                msg ? msg : "?");
        urisan_policy_init(lin_policy);
    }
    lin_scratch_cap = urisan_extract_scratch_size(lin_policy);
    lin_scratch = xmalloc(lin_scratch_cap);
    static const char depth[] = "nested-depth 3\n";
    lin_nested_policy = xmalloc(urisan_policy_size());
    memcpy(lin_nested_policy, lin_policy, urisan_policy_size());
    if (urisan_policy_parse(lin_nested_policy, depth, sizeof depth - 1, &line, &msg) != URISAN_OK)
        fprintf(stderr, "urisan-bench: nested-depth: %s\n", msg ? msg : "?");
    lin_nested_scratch = xmalloc(LIN_NESTED_SCRATCH);
}

/* parse + analyse + every nested URL three levels deep (urisan_nested,
   as check --json lists them) under the raised-limits policy. */

static uint64_t lin_nested(const char *in, size_t len, const urisan_limits *lim)
{
    urisan_uri u;
    urisan_report r;
    urisan_nested_report nr;
    (void)lim;
    urisan_status st = urisan_parse(in, len, urisan_policy_limits(lin_nested_policy), &u, NULL);
    urisan_analyze(in, len, &u, lin_nested_policy, &r);
    urisan_nested(in, len, &u, lin_nested_policy, lin_nested_scratch, LIN_NESTED_SCRATCH, NULL,
                  NULL, &nr);
    return (uint64_t)st + r.flags + nr.flags + nr.count;
}

/* urisan_check under the raised-limits policy: parse, analyse, verdict. */
static uint64_t lin_check(const char *in, size_t len, const urisan_limits *lim)
{
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    (void)lim;
    urisan_status st = urisan_check(in, len, lin_policy, &u, &r, &d);
    return (uint64_t)st + r.flags + d.verdict;
}

/* urisan_equivalent of the input with itself (two normalisations). */
static uint64_t lin_equivalent(const char *in, size_t len, const urisan_limits *lim)
{
    size_t need = 0;
    int eq = 0;
    urisan_status st = urisan_equivalent(in, len, in, len, lim, outbuf, OUTCAP, &need, &eq, NULL);
    return (uint64_t)st + need + (uint64_t)eq;
}

/* The whole text, in as many calls as the hit array needs. */
static uint64_t lin_extract(const char *in, size_t len, const urisan_limits *lim)
{
    urisan_hit hits[64];
    uint64_t sum = 0;
    size_t start = 0;
    (void)lim;
    for (;;) {
        size_t count = 0, next = len;
        urisan_status st = urisan_extract(in, len, start, lin_policy, hits, 64, &count,
                                          lin_scratch, lin_scratch_cap, &next);
        sum += count + (uint64_t)st;
        for (size_t k = 0; k < count; k++)
            sum += hits[k].flags + hits[k].len;
        if (st != URISAN_E_TOO_MANY || next <= start)
            break;
        start = next;
    }
    return sum;
}
#endif

static const lin_entry_t lin_entries[] = {
    {"parse", lin_parse},
#ifdef BENCH_HAVE_ANALYZE
    {"analyze", lin_analyze},
#endif
#ifdef BENCH_HAVE_RESOLVE
    {"resolve", lin_resolve},
#endif
#ifdef BENCH_HAVE_NORMALIZE
    {"normalize", lin_normalize},
#endif
#ifdef BENCH_HAVE_EXTRACT
    {"check", lin_check},
    {"nested", lin_nested},
    {"equivalent", lin_equivalent},
    {"extract", lin_extract},
#endif
};
#define N_LIN (sizeof lin_entries / sizeof lin_entries[0])

/* Best of three batches, each repeated until it lasts min_ns; ns per call. */
static double time_call(const lin_entry_t *e, const char *in, size_t len,
                        const urisan_limits *lim, double min_ns)
{
    double best = 0;
    for (int b = 0; b < 3; b++) {
        size_t reps = 0;
        double t0 = now_ns(), t1;
        do {
            bench_sink += e->call(in, len, lim);
            reps++;
            t1 = now_ns();
        } while (t1 - t0 < min_ns);
        double per = (t1 - t0) / (double)reps;
        if (b == 0 || per < best)
            best = per;
    }
    return best;
}

static void bench_linearity(int smoke, const char *only)
{
    static const size_t sizes[] = {1024, 64 * 1024, 1024 * 1024};
    size_t nsizes = smoke ? 1 : 3;
    double min_ns = smoke ? 1e5 : 2e7;
    urisan_limits lim = {URISAN_HARD_CEILING, URISAN_HARD_CEILING, URISAN_HARD_CEILING,
                         URISAN_HARD_CEILING, URISAN_HARD_CEILING, URISAN_HARD_CEILING};
    char *buf = xmalloc(sizes[2]);
#ifdef BENCH_HAVE_EXTRACT
    lin_extract_setup();
#endif

    printf("\nlinearity: ns per input byte, limits raised to URISAN_HARD_CEILING (%zu);\n"
           "status is the result at 1 MiB. Flat rows are linear.\n",
           (size_t)URISAN_HARD_CEILING);
    printf("  %-16s %-10s %10s %10s %10s %10s  %s\n", "input", "entry", "1 KiB", "64 KiB",
           "1 MiB", "1M/1K", "status");
    for (size_t a = 0; a < N_ADV; a++) {
        for (size_t e = 0; e < N_LIN; e++) {
            if (only != NULL && !selected(only, lin_entries[e].name))
                continue;
            double per[3] = {0, 0, 0};
            size_t len = 0;
            for (size_t s = 0; s < nsizes; s++) {
                len = make_adversary(buf, sizes[s], &adversaries[a]);
                per[s] = time_call(&lin_entries[e], buf, len, &lim, min_ns) / (double)len;
            }
            /* Status at the largest size, for the record. */
            urisan_uri u;
            urisan_status st = urisan_parse(buf, len, &lim, &u, NULL);
            bench_sink += u.segments;
            if (smoke)
                printf("  %-16s %-10s %10.3f %10s %10s %10s  parse:%s\n", adversaries[a].label,
                       lin_entries[e].name, per[0], "-", "-", "-", urisan_status_name(st));
            else
                printf("  %-16s %-10s %10.3f %10.3f %10.3f %10.2f  parse:%s\n",
                       adversaries[a].label, lin_entries[e].name, per[0], per[1], per[2],
                       per[2] / per[0], urisan_status_name(st));
        }
    }
    free(buf);
#ifdef BENCH_HAVE_EXTRACT
    free(lin_scratch);
    free(lin_policy);
    free(lin_nested_scratch);
    free(lin_nested_policy);
#endif
}

/* ------------------------------------------------------------------ */
/* Main                                                                */
/* ------------------------------------------------------------------ */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: urisan-bench [--rounds N] [--only E1,E2] [--no-linear | --linear-only]\n"
            "                    [--smoke] [--callgrind --only ENTRY]\n"
            "                    [--commands | --commands-only] --cmd URISAN [--cmd-ref URISAN]\n"
            "                     [--node PATH]"
" [--python PATH] [--repeat N] [--cmd-lines N]\n"
            "                     [--cmd-rounds N] [--stream | --stream-only]\n"
            "                     [--stream-sizes MIB,...] FILE...\n"
            "entries:");
    for (size_t e = 0; e < N_ENTRIES; e++)
        fprintf(f, " %s", entries[e].name);
    fprintf(f, "\nlinearity entries:");
    for (size_t e = 0; e < N_LIN; e++)
        fprintf(f, " %s", lin_entries[e].name);
    fprintf(f, "\n");
}

int main(int argc, char **argv)
{
    unsigned rounds = 11;
    const char *only = NULL;
    int callgrind = 0, linear = 1, datasets = 1, smoke = 0, commands = 0;
    cmdbench_opts cmdo = { NULL, NULL, "/usr/bin/node", "python3", NULL, 0, 10, 0, 3, 0, NULL };
    int stream = 0;
    int nfiles = 0;
    char **files = xmalloc((size_t)argc * sizeof *files);

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--rounds") == 0 && i + 1 < argc) {
            long v = strtol(argv[++i], NULL, 10);
            if (v < 1 || v > 10000) {
                usage(stderr);
                return 2;
            }
            rounds = (unsigned)v;
        } else if (strcmp(a, "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(a, "--callgrind") == 0) {
            callgrind = 1;
        } else if (strcmp(a, "--no-linear") == 0) {
            linear = 0;
        } else if (strcmp(a, "--linear-only") == 0) {
            datasets = 0;
        } else if (strcmp(a, "--smoke") == 0) {
            smoke = 1;
        } else if (strcmp(a, "--commands") == 0) {
            commands = 1;
        } else if (strcmp(a, "--commands-only") == 0) {
            commands = 1;
            datasets = 0;
            linear = 0;
        } else if (strcmp(a, "--stream") == 0 || strcmp(a, "--stream-only") == 0) {
            stream = 1;
            if (strcmp(a, "--stream-only") == 0)
                datasets = linear = 0;
        } else if (strcmp(a, "--stream-sizes") == 0 && i + 1 < argc) {
            cmdo.stream_sizes = argv[++i];
        } else if (strcmp(a, "--cmd") == 0 && i + 1 < argc) {
            cmdo.cmd = argv[++i];
        } else if (strcmp(a, "--cmd-ref") == 0 && i + 1 < argc) {
            cmdo.ref_cmd = argv[++i];
        } else if (strcmp(a, "--node") == 0 && i + 1 < argc) {
            cmdo.node = argv[++i];
        } else if (strcmp(a, "--python") == 0 && i + 1 < argc) {
            cmdo.python = argv[++i];
        } else if ((strcmp(a, "--repeat") == 0 || strcmp(a, "--cmd-lines") == 0 ||
                    strcmp(a, "--cmd-rounds") == 0) && i + 1 < argc) {
            char *end = NULL;
            long v = strtol(argv[++i], &end, 10);
            if (end == argv[i] || *end != '\0' || v < 0 || v > 100000000 ||
                (v == 0 && strcmp(a, "--cmd-lines") != 0) ||
                (v > 100 && strcmp(a, "--cmd-lines") != 0)) {
                usage(stderr);
                return 2;
            }
            if (strcmp(a, "--repeat") == 0)
                cmdo.repeat = (unsigned)v;
            else if (strcmp(a, "--cmd-rounds") == 0)
                cmdo.rounds = (unsigned)v;
            else
                cmdo.max_lines = (size_t)v;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (a[0] == '-' && a[1] != '\0') {
            usage(stderr);
            return 2;
        } else {
            files[nfiles++] = argv[i];
        }
    }
    if (smoke)
        rounds = 2;
    for (unsigned k = 0; k < 256; k++)
        byte_tab[k] = (unsigned char)((k * 167u + (unsigned)argc) & 0x7f);

    outbuf = xmalloc(OUTCAP);
#ifdef BENCH_HAVE_PEERS
    curl_global_init(CURL_GLOBAL_DEFAULT);
    curl_h = curl_url();
    if (curl_h == NULL) {
        fprintf(stderr, "urisan-bench: curl_url failed\n");
        return 2;
    }
#endif

    int status = 0;
    dataset_t *ds = xmalloc(((size_t)nfiles + 1) * sizeof *ds);
    size_t nds = 0;
    for (int i = 0; i < nfiles; i++) {
        if (load(&ds[nds], files[i]) == 0)
            nds++;
    }

    if (callgrind) {
        int e = only ? find_entry(only) : -1;
        if (e < 0) {
            fprintf(stderr, "urisan-bench: --callgrind needs --only ENTRY\n");
            usage(stderr);
            return 2;
        }
        for (size_t k = 0; k < nds; k++) {
            size_t acc = 0;
            /* warm-up outside the measured region: lazy binding, first-use
               initialisation of the peer libraries */
            bench_sink += entries[e].fn(ds[k].lines, ds[k].n < 16 ? ds[k].n : 16, &acc);
            CALLGRIND_TOGGLE_COLLECT;
            bench_sink += entries[e].fn(ds[k].lines, ds[k].n, &acc);
            CALLGRIND_TOGGLE_COLLECT;
            printf("callgrind %s %s urls %zu bytes %zu\n", entries[e].name, ds[k].name,
                   ds[k].n, ds[k].bytes);
        }
        goto cleanup;
    }

    if (nfiles > 0 && nds == 0 && !linear) {
        printf("urisan-bench: no data set could be read; skipping\n");
        status = 77;
        goto cleanup;
    }
    if (nfiles == 0 && datasets)
        printf("urisan-bench: no data files given; data sets skipped\n");

    char ratios[8192] = "";
    if (datasets) {
        printf("urisan-bench: ns per URL, median [min - max] over %u rounds; peers are\n"
               "interleaved with urisan in each round. 'x " REF_SHORT "' is the median time\n"
               "as a multiple of " REF_ENTRY " (parse + validate + all flags).\n",
               rounds);
        for (size_t k = 0; k < nds; k++)
            bench_dataset(&ds[k], rounds, only, ratios, sizeof ratios);
    }
    if (linear) {
        bench_linearity(smoke, NULL);
#ifdef BENCH_HAVE_CLI
        cmdbench_linear(smoke, files, (size_t)nfiles);
#endif
    }
    if (commands) {
        cmdo.files = files;
        cmdo.nfiles = (size_t)nfiles;
        cmdo.smoke = smoke;
        if (cmdbench_end_to_end(&cmdo) != 0)
            status = 1;
    }
    if (stream) {
        cmdo.smoke = smoke;
        if (cmdbench_stream(&cmdo) != 0)
            status = 1;
    }
    if (ratios[0]) {
        printf("\n");
        fputs(ratios, stdout);
    }
    printf("checksum %llx\n", (unsigned long long)bench_sink);
cleanup:
    for (size_t k = 0; k < nds; k++) {
        free(ds[k].buf);
        free(ds[k].lines);
    }
    free(ds);
    free(files);
    free(outbuf);
#ifdef BENCH_HAVE_PEERS
    curl_url_cleanup(curl_h);
    curl_global_cleanup();
#endif
    return status;
}
