/*
 * behaviour_dump.c - one text record per input of everything a performance
 * change must not alter: parse (status, error, spans, host type, address,
 * port), analyze (flags, host_ip) with the default and a custom policy,
 * check (verdict, deny/flag flags, rules), normalize, resolve (clamp, keep,
 * reject, non-strict) and remove_dots in every mode on the path. Inputs:
 * every line of the given files, plus deterministic mutations of each line
 * (dot segments, escapes, "@", "\\", controls, IPv4 forms, IDN ...).
 *
 * Record before a change, record after, compare (tools/behaviour_check.sh):
 *
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc \
 *      tools/behaviour_dump.c BUILD/src/liburisan.a -o /tmp/behaviour_dump
 *   /tmp/behaviour_dump ../shared/data/urls/(all).txt > before.txt
 *
 * A measurement aid, never a test. Output is deterministic.
 */
#include "urisan.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUTCAP ((size_t)1 << 16)
static char outbuf[OUTCAP];
static urisan_policy *custom;

static void put_esc(FILE *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x21 || c >= 0x7f || c == '\\' || c == '|')
            fprintf(o, "\\x%02x", c);
        else
            fputc(c, o);
    }
}

static void put_span(FILE *o, urisan_span s)
{
    if (s.off == URISAN_ABSENT)
        fputs(" -", o);
    else
        fprintf(o, " %zu+%zu", s.off, s.len);
}

static void record(FILE *o, const char *in, size_t len)
{
    urisan_uri u;
    urisan_error e;
    urisan_report r;
    urisan_decision d;
    char ipt[64];
    size_t need;

    put_esc(o, in, len);
    urisan_status st = urisan_parse(in, len, NULL, &u, &e);
    fprintf(o, "|P %d %d@%zu v%d h%d", (int)st, (int)e.code, e.offset, u.valid,
            (int)u.host_type);
    put_span(o, u.scheme);
    put_span(o, u.userinfo);
    put_span(o, u.host);
    put_span(o, u.port);
    put_span(o, u.path);
    put_span(o, u.query);
    put_span(o, u.fragment);
    put_span(o, u.zone);
    fprintf(o, " p%u s%zu ip", (unsigned)u.port_value, u.segments);
    for (int i = 0; i < 16; i++)
        fprintf(o, "%02x", u.ip[i]);

    urisan_analyze(in, len, &u, NULL, &r);
    fprintf(o, "|A %llx %d", (unsigned long long)r.flags, r.ip_family);
    if (urisan_format_ip(&r, ipt, sizeof ipt, &need) == URISAN_OK)
        fprintf(o, " %.*s", (int)need, ipt);
    urisan_analyze(in, len, &u, custom, &r);
    fprintf(o, "|C %llx %d", (unsigned long long)r.flags, r.ip_family);
    urisan_check(in, len, NULL, &u, &r, &d);
    fprintf(o, "|V %d %llx %llx %x %llx", (int)d.verdict, (unsigned long long)d.deny_flags,
            (unsigned long long)d.flag_flags, d.rules, (unsigned long long)r.flags);

    st = urisan_normalize(in, len, NULL, outbuf, OUTCAP, &need, &e);
    fprintf(o, "|N %d %d@%zu ", (int)st, (int)e.code, e.offset);
    if (st == URISAN_OK)
        put_esc(o, outbuf, need);

    static const char base[] = "http://a/b/c/d;p?q";
    static const urisan_resolve_opts opts[4] = {
        {0, URISAN_ABOVE_ROOT_CLAMP, NULL},
        {0, URISAN_ABOVE_ROOT_KEEP, NULL},
        {0, URISAN_ABOVE_ROOT_REJECT, NULL},
        {1, URISAN_ABOVE_ROOT_KEEP, NULL},
    };
    for (int k = 0; k < 4; k++) {
        urisan_flags fl = 0;
        st = urisan_resolve(base, sizeof base - 1, in, len, &opts[k], outbuf, OUTCAP, &need,
                            &fl, &e);
        fprintf(o, "|R%d %d %d@%zu %llx ", k, (int)st, (int)e.code, e.offset,
                (unsigned long long)fl);
        if (st == URISAN_OK)
            put_esc(o, outbuf, need);
    }
    /* the input as a relative reference against itself when absolute */
    if (u.scheme.off != URISAN_ABSENT) {
        st = urisan_resolve(in, len, "../x/./y", 8, NULL, outbuf, OUTCAP, &need, NULL, &e);
        fprintf(o, "|B %d ", (int)st);
        if (st == URISAN_OK)
            put_esc(o, outbuf, need);
    }

    /* remove_dots on the raw path (whole, and split after its first "/"),
       every mode and option */
    if (u.path.off != URISAN_ABSENT) {
        const char *p = in + u.path.off;
        size_t n = u.path.len, cut = 0;
        const char *sl = memchr(p, '/', n);
        if (sl != NULL)
            cut = (size_t)(sl - p) + 1;
        for (unsigned mode = 0; mode < 32; mode++) {
            if ((mode & URISAN_DOTS_MODE) == 3)
                continue;
            for (int split = 0; split < 2; split++) {
                urisan_dots_info di;
                size_t a = split ? cut : 0;
                urisan_remove_dots(p, a, p + a, n - a, mode, outbuf, OUTCAP, &di);
                fprintf(o, "|D%u.%d %zu %zu %zu %d%d ", mode, split, di.len, di.above,
                        di.above ? di.first_above : 0, di.dots, di.pct_dot);
                if (di.len <= OUTCAP)
                    put_esc(o, outbuf, di.len);
            }
        }
    }
    fputc('\n', o);
}

/* Tokens spliced into the lines. */
static const char *const toks[] = {
    ".", "..", "/./", "/../", "/.", "/..", "%2e", "%2E%2e", "/%2e%2E/", "%", "%0a", "%0D",
    "%00", "%7f", "%1f", "@", "a@", ":", "::", "\\", "\t", " ", "\r\n", "[", "]", "[::1]",
    "0x7f", "127.1", "0177.0.0.1", "2130706433", "127.0.0.1", "xn--", "Xn--a", "\xc3\xa9",
    "\xef\xbc\x91", "%ef%bc%8e", "%c0%ae", "%e0%80%ae", "%25", "%252e", "%%32%65", "//", "///",
    "?", "#", "#@", "javascript:", "JaVa\tScript:", "file:", "file:////", "http:", "HTTP://",
    "localhost", "%2f", "%5C", "%41", "%7e", "~", ":8080", ":80", ":0", ":99999", "-", "_",
    "a:b@", "ws:/", "foo:///", "\x01", "\x7f", "C:", "c|", "v1.x", "%31%32%37", "10.0.0.1",
    "169.254.169.254", "[fe80::1%25eth0]", "[v7.a]", "[::ffff:127.0.0.1]", "//a/..", "./",
    "../", "a/b/../../..", "/.//", "%3A", "\x80", "0.0.0.0.",
};
#define NTOKS (sizeof toks / sizeof toks[0])

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void mutations(FILE *o, const char *s, size_t n)
{
    char buf[8192];
    for (int m = 0; m < 4; m++) {
        const char *t = toks[next() % NTOKS];
        size_t tl = strlen(t), pos = n ? next() % (n + 1) : 0;
        size_t del = (m == 3 && pos < n) ? next() % 3 : 0;
        if (pos + del > n)
            del = n - pos;
        if (n + tl >= sizeof buf)
            return;
        memcpy(buf, s, pos);
        memcpy(buf + pos, t, tl);
        memcpy(buf + pos + tl, s + pos + del, n - pos - del);
        record(o, buf, n - del + tl);
    }
    /* upper-cased and with the path's first byte doubled */
    if (n < sizeof buf) {
        for (size_t i = 0; i < n; i++)
            buf[i] = (char)((s[i] >= 'a' && s[i] <= 'z') ? s[i] - 32 : s[i]);
        record(o, buf, n);
    }
}

int main(int argc, char **argv)
{
    static const char pol_text[] =
        "dangerous-scheme mailto ftp x-evil\n"
        "default-port http 8080\n"
        "default-port foo 7\n";
    size_t line;
    const char *msg;
    custom = malloc(urisan_policy_size());
    urisan_policy_init(custom);
    if (urisan_policy_parse(custom, pol_text, sizeof pol_text - 1, &line, &msg) != URISAN_OK) {
        fprintf(stderr, "policy: %zu: %s\n", line, msg);
        return 2;
    }
    for (int a = 1; a < argc; a++) {
        FILE *fp = fopen(argv[a], "rb");
        if (fp == NULL) {
            perror(argv[a]);
            return 2;
        }
        char *l = NULL;
        size_t cap = 0;
        ssize_t got;
        while ((got = getline(&l, &cap, fp)) >= 0) {
            size_t n = (size_t)got;
            if (n && l[n - 1] == '\n')
                n--;
            if (n && l[n - 1] == '\r')
                n--;
            record(stdout, l, n);
            mutations(stdout, l, n);
        }
        free(l);
        fclose(fp);
    }
    free(custom);
    return 0;
}
