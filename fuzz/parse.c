/*
 * fuzz/parse.c - urisan_parse: the tolerant split, the strict verdict and
 * the length bounds (RFC 3986; urisan(1), POLICY: limit; fuzz/README.md).
 *
 * Invariants, each checked on every input:
 *  1. every span lies inside the input, and the components follow each
 *     other in order;
 *  2. the tolerant split equals the RFC 3986 Appendix B regex split
 *     (authority = userinfo "@" host ":" port, recomposed);
 *  3. recomposing the components gives back the input byte for byte;
 *  4. the host/port subdivision follows urisan's rule (last "@", "[" ...
 *     "]" then ":" port, else the last ":");
 *  5. the verdict equals an independent transcription of the RFC 3986
 *     ABNF (fuzz/ref_abnf.h) plus the numeric bounds;
 *  6. typed hosts decode to what inet_pton(3) reads, port_value is the
 *     port's number;
 *  7. too_long is returned exactly when one of the length bounds is
 *     exceeded, with every component absent, and the offset inside the
 *     component that broke it; probed with limits at and one below each
 *     measured size; when the whole input is over the bound, not one
 *     byte is read (checked with ASan poisoning);
 *  8. each fast path alone (the baseline build's and, on a CPU with SSSE3,
 *     the pshufb one), when it takes the input, gives exactly what the
 *     full parser gives, field by field.
 */
#include <arpa/inet.h>

#include "fuzz_util.h"
#include "ref_abnf.h"
#include "ref_split.h"
#include "scan.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_ASAN 1
#endif
#ifdef FUZZ_ASAN
#include <sanitizer/asan_interface.h>
#endif

/* Sizes the length bounds (urisan(1), POLICY: limit) are measured on,
   from the regex split. */
typedef struct {
    size_t scheme;            /* scheme bytes, 0 when absent */
    size_t userinfo;          /* 0 when absent */
    size_t host;              /* host bytes, 0 without authority */
    size_t label;             /* longest raw label of a host not starting with "[" */
    size_t segments;          /* path segments */
    int has_userinfo, has_host, label_applies;
} measured;

typedef struct {
    urisan_span userinfo, host, port;
} auth_split;

/* RFC 3986 3.2 as urisan splits it: userinfo precedes the last "@";
   "[" ... "]" [":" port], otherwise the port follows the last ":". */
static void split_authority(const char *in, urisan_span a, auth_split *o)
{
    o->userinfo.off = o->host.off = o->port.off = URISAN_ABSENT;
    o->userinfo.len = o->host.len = o->port.len = 0;
    if (a.off == URISAN_ABSENT)
        return;
    size_t s = a.off, e = a.off + a.len, hs = s;
    for (size_t i = e; i > s; i--)
        if (in[i - 1] == '@') {
            o->userinfo.off = s;
            o->userinfo.len = i - 1 - s;
            hs = i;
            break;
        }
    size_t he = e;
    int done = 0;
    if (hs < e && in[hs] == '[') {
        const char *rb = (const char *)memchr(in + hs, ']', e - hs);
        if (rb == NULL) {
            done = 1; /* unclosed: all host */
        } else {
            size_t r = (size_t)(rb - in);
            if (r + 1 == e) {
                done = 1;
            } else if (in[r + 1] == ':') {
                he = r + 1;
                o->port.off = r + 2;
                o->port.len = e - (r + 2);
                done = 1;
            }
        }
    }
    if (!done) {
        for (size_t i = e; i > hs; i--)
            if (in[i - 1] == ':') {
                he = i - 1;
                o->port.off = i;
                o->port.len = e - i;
                break;
            }
    }
    o->host.off = hs;
    o->host.len = he - hs;
}

static void measure(const char *in, size_t len, const ref_split *rs, const auth_split *as,
                    measured *m)
{
    (void)len;
    memset(m, 0, sizeof *m);
    if (rs->scheme.off != URISAN_ABSENT)
        m->scheme = rs->scheme.len;
    if (as->userinfo.off != URISAN_ABSENT) {
        m->has_userinfo = 1;
        m->userinfo = as->userinfo.len;
    }
    if (as->host.off != URISAN_ABSENT) {
        m->has_host = 1;
        m->host = as->host.len;
        const char *h = in + as->host.off;
        if (!(as->host.len > 0 && h[0] == '[')) {
            m->label_applies = 1;
            size_t ls = 0;
            for (size_t i = 0; i <= as->host.len; i++)
                if (i == as->host.len || h[i] == '.') {
                    if (i - ls > m->label)
                        m->label = i - ls;
                    ls = i + 1;
                }
        }
    }
    /* A segment starts at the path's first byte unless that is "/", and
       after every "/": "/a/b" and "a/b" have 2, "/" has 1, "" has 0. */
    const char *p = in + rs->path.off;
    size_t n = rs->path.len, segs = (n > 0 && p[0] != '/') ? 1 : 0;
    for (size_t i = 0; i < n; i++)
        if (p[i] == '/')
            segs++;
    m->segments = segs;
}

/* Does parsing with *lim have to hit a bound? */
static int must_be_too_long(size_t len, const measured *m, const urisan_limits *lim)
{
    return len > lim->max_uri || m->scheme > lim->max_scheme ||
           (m->has_userinfo && m->userinfo > lim->max_userinfo) ||
           (m->has_host && m->host > lim->max_host) ||
           (m->label_applies && m->label > lim->max_label) || m->segments > lim->max_segments;
}

static void check_all_absent(const urisan_uri *u, const char *what)
{
    const urisan_span *s[] = {&u->scheme, &u->userinfo, &u->host, &u->port,
                              &u->path,   &u->query,    &u->fragment, &u->zone};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        FUZZ_ASSERT(s[i]->off == URISAN_ABSENT, "%s: too_long but component %zu present", what,
                    i);
    FUZZ_ASSERT(u->host_type == URISAN_HOST_NONE && !u->valid, "%s: too_long state", what);
}

static void append_span(fuzz_str *s, const char *in, urisan_span sp)
{
    fs_add(s, in + sp.off, sp.len);
}

/* The checks for a parse that was not stopped by a bound. */
static void check_split(const char *in, size_t len, const urisan_uri *u, urisan_status st)
{
    const urisan_span *all[] = {&u->scheme, &u->userinfo, &u->host, &u->port,
                                &u->path,   &u->query,    &u->fragment, &u->zone};
    static const char *names[] = {"scheme", "userinfo", "host",     "port",
                                  "path",   "query",    "fragment", "zone"};
    for (size_t i = 0; i < 8; i++)
        FUZZ_ASSERT(fuzz_span_ok(*all[i], len), "%s span (%zu,%zu) outside the input of %zu",
                    names[i], all[i]->off, all[i]->len, len);
    FUZZ_ASSERT(u->path.off != URISAN_ABSENT, "path is never absent");

    /* 2. Appendix B. */
    ref_split rs;
    ref_split_appendix_b(in, len, &rs);
    FUZZ_ASSERT(fuzz_span_eq(rs.scheme, u->scheme), "scheme differs from Appendix B");
    FUZZ_ASSERT(fuzz_span_eq(rs.path, u->path), "path (%zu,%zu) differs from Appendix B (%zu,%zu)",
                u->path.off, u->path.len, rs.path.off, rs.path.len);
    FUZZ_ASSERT(fuzz_span_eq(rs.query, u->query), "query differs from Appendix B");
    FUZZ_ASSERT(fuzz_span_eq(rs.fragment, u->fragment), "fragment differs from Appendix B");
    if (rs.authority.off == URISAN_ABSENT) {
        FUZZ_ASSERT(u->host.off == URISAN_ABSENT && u->userinfo.off == URISAN_ABSENT &&
                        u->port.off == URISAN_ABSENT && u->host_type == URISAN_HOST_NONE,
                    "authority parts present but Appendix B has no authority");
    } else {
        FUZZ_ASSERT(u->host.off != URISAN_ABSENT, "Appendix B authority but no host span");
        /* recompose the authority from our parts */
        fuzz_str a = {0};
        if (u->userinfo.off != URISAN_ABSENT) {
            FUZZ_ASSERT(u->userinfo.off == rs.authority.off, "userinfo does not open the authority");
            append_span(&a, in, u->userinfo);
            fs_addc(&a, '@');
        } else {
            FUZZ_ASSERT(u->host.off == rs.authority.off, "host does not open the authority");
        }
        append_span(&a, in, u->host);
        if (u->port.off != URISAN_ABSENT) {
            fs_addc(&a, ':');
            append_span(&a, in, u->port);
        }
        FUZZ_ASSERT(fs_eq(&a, in + rs.authority.off, rs.authority.len),
                    "userinfo@host:port does not recompose the Appendix B authority");
        fs_free(&a);
        /* 4. the subdivision rule */
        auth_split as;
        split_authority(in, rs.authority, &as);
        FUZZ_ASSERT(fuzz_span_eq(as.userinfo, u->userinfo), "userinfo is not what precedes the last @");
        FUZZ_ASSERT(fuzz_span_eq(as.host, u->host), "host (%zu,%zu) differs from urisan's split rule (%zu,%zu)",
                    u->host.off, u->host.len, as.host.off, as.host.len);
        FUZZ_ASSERT(fuzz_span_eq(as.port, u->port), "port differs from urisan's split rule");
        FUZZ_ASSERT((u->host.len == 0) == (u->host_type == URISAN_HOST_EMPTY),
                    "host_type empty iff the host is empty");
    }

    /* 3. recompose the whole input */
    fuzz_str r = {0};
    fs_add(&r, "", 0);
    if (u->scheme.off != URISAN_ABSENT) {
        append_span(&r, in, u->scheme);
        fs_addc(&r, ':');
    }
    if (u->host.off != URISAN_ABSENT) {
        fs_add(&r, "//", 2);
        if (u->userinfo.off != URISAN_ABSENT) {
            append_span(&r, in, u->userinfo);
            fs_addc(&r, '@');
        }
        append_span(&r, in, u->host);
        if (u->port.off != URISAN_ABSENT) {
            fs_addc(&r, ':');
            append_span(&r, in, u->port);
        }
    }
    append_span(&r, in, u->path);
    if (u->query.off != URISAN_ABSENT) {
        fs_addc(&r, '?');
        append_span(&r, in, u->query);
    }
    if (u->fragment.off != URISAN_ABSENT) {
        fs_addc(&r, '#');
        append_span(&r, in, u->fragment);
    }
    FUZZ_ASSERT(fs_eq(&r, in, len), "recomposed components differ from the input");
    fs_free(&r);

    /* 5. strict verdict against the ABNF transcription */
    int want = ref_abnf_valid(in, len, &rs.authority);
    FUZZ_ASSERT(u->valid == (st == URISAN_OK), "valid=%d but status %s", u->valid, fuzz_status(st));
    FUZZ_ASSERT(u->error.code == st, "out->error.code differs from the return value");
    FUZZ_ASSERT(want == u->valid, "urisan says %s (%s at %zu), the RFC 3986 ABNF says %s",
                u->valid ? "valid" : "invalid", fuzz_status(u->error.code), u->error.offset,
                want ? "valid" : "invalid");
    if (!u->valid)
        FUZZ_ASSERT(u->error.offset <= len, "error offset %zu past the input", u->error.offset);

    /* 6. typed hosts and port value */
    if (u->host_type == URISAN_HOST_IPV4) {
        char buf[64];
        uint8_t a4[4];
        FUZZ_ASSERT(u->host.len < sizeof buf, "ipv4 host too long");
        memcpy(buf, in + u->host.off, u->host.len);
        buf[u->host.len] = '\0';
        FUZZ_ASSERT(inet_pton(AF_INET, buf, a4) == 1 && memcmp(a4, u->ip, 4) == 0,
                    "ipv4 host decodes differently from inet_pton");
    }
    if (u->host_type == URISAN_HOST_IPV6 || u->host_type == URISAN_HOST_IPV6_ZONE) {
        char buf[128];
        uint8_t a6[16];
        size_t n = 0;
        const char *h = in + u->host.off + 1;
        while (n < u->host.len - 2 && h[n] != '%')
            n++;
        FUZZ_ASSERT(n < sizeof buf, "ipv6 text too long");
        memcpy(buf, h, n);
        buf[n] = '\0';
        FUZZ_ASSERT(inet_pton(AF_INET6, buf, a6) == 1 && memcmp(a6, u->ip, 16) == 0,
                    "ipv6 host decodes differently from inet_pton");
        if (u->host_type == URISAN_HOST_IPV6_ZONE)
            FUZZ_ASSERT(u->zone.off == u->host.off + 1 + n + 3 &&
                            u->zone.off + u->zone.len == u->host.off + u->host.len - 1,
                        "zone span is not the text between %%25 and ]");
    }
    if (u->valid && u->host.off != URISAN_ABSENT)
        FUZZ_ASSERT(u->host_type != URISAN_HOST_INVALID && u->host_type != URISAN_HOST_NONE,
                    "valid URI with an invalid host type");
    if (u->port.off != URISAN_ABSENT && u->port.len > 0) {
        unsigned long v = 0;
        int digits = 1;
        for (size_t i = 0; i < u->port.len; i++) {
            unsigned char c = (unsigned char)in[u->port.off + i];
            if (c < '0' || c > '9') {
                digits = 0;
                break;
            }
            if (v <= 65535)
                v = v * 10 + (c - '0');
        }
        uint32_t want_pv = (digits && v <= 65535) ? (uint32_t)v : URISAN_NO_PORT;
        FUZZ_ASSERT(u->port_value == want_pv, "port_value %u, expected %u", u->port_value, want_pv);
    } else {
        FUZZ_ASSERT(u->port_value == URISAN_NO_PORT, "port_value without a port");
    }
}

static void span_same(urisan_span a, urisan_span b, const char *name, const char *what)
{
    FUZZ_ASSERT(a.off == b.off && a.len == b.len, "%s: fast path %s (%zu,%zu), full (%zu,%zu)",
                what, name, a.off, a.len, b.off, b.len);
}

/* Invariant 8: the fast paths against urisan_parse_full. */
static void fast_equals_full(const char *in, size_t len, const urisan_limits *lim)
{
    urisan_uri f, a;
    unsigned sum;
    urisan_parse_full(in, len, lim, &f, NULL);
    for (int v = 0; v < 2; v++) {
        const char *what = v == 0 ? "baseline" : "ssse3";
        bool took = false;
        memset(&a, 0x5a, sizeof a);
        if (v == 0) {
            took = urisan_parse_fast_base(in, len, lim, &a, &sum);
        } else {
#ifdef URISAN_HAVE_SSSE3_VARIANT
            if (urisan_cpu_ssse3())
                took = urisan_parse_fast_ssse3(in, len, lim, &a, &sum);
#endif
        }
        if (!took)
            continue;
        FUZZ_ASSERT(f.valid && f.error.code == URISAN_OK, "%s fast path took an input the full "
                    "parser rejects (%s)", what, fuzz_status(f.error.code));
        span_same(a.scheme, f.scheme, "scheme", what);
        span_same(a.userinfo, f.userinfo, "userinfo", what);
        span_same(a.host, f.host, "host", what);
        span_same(a.port, f.port, "port", what);
        span_same(a.path, f.path, "path", what);
        span_same(a.query, f.query, "query", what);
        span_same(a.fragment, f.fragment, "fragment", what);
        span_same(a.zone, f.zone, "zone", what);
        FUZZ_ASSERT(a.host_type == f.host_type && memcmp(a.ip, f.ip, sizeof a.ip) == 0 &&
                        a.port_value == f.port_value && a.segments == f.segments &&
                        a.valid == f.valid && a.error.code == f.error.code &&
                        a.error.offset == f.error.offset && a.error.input == f.error.input,
                    "%s fast path: host type, address, port, segments or verdict differ", what);
    }
}

/* One parse with given limits; checks the bound verdict. */
static void parse_with(const char *in, size_t len, const measured *m, const urisan_limits *lim,
                       const char *what)
{
    urisan_uri u;
    urisan_error e;
    memset(&u, 0xA5, sizeof u);
    urisan_status st = urisan_parse(in, len, lim, &u, &e);
    urisan_limits eff;
    if (lim == NULL)
        urisan_limits_default(&eff);
    else
        eff = *lim;
    int want = must_be_too_long(len, m, &eff);
    FUZZ_ASSERT((st == URISAN_E_TOO_LONG) == want,
                "%s: status %s, but a bound %s exceeded (uri %zu/%zu scheme %zu/%zu userinfo "
                "%zu/%zu host %zu/%zu label %zu/%zu segments %zu/%zu)",
                what, fuzz_status(st), want ? "is" : "is not", len, eff.max_uri, m->scheme,
                eff.max_scheme, m->userinfo, eff.max_userinfo, m->host, eff.max_host, m->label,
                eff.max_label, m->segments, eff.max_segments);
    FUZZ_ASSERT(e.code == st && u.error.code == st, "%s: err/out->error differ from return", what);
    if (st == URISAN_E_TOO_LONG) {
        check_all_absent(&u, what);
        FUZZ_ASSERT(e.offset <= len, "%s: too_long offset %zu past the input", what, e.offset);
        if (len > eff.max_uri)
            FUZZ_ASSERT(e.offset == eff.max_uri, "%s: whole-URI bound at %zu, offset %zu", what,
                        eff.max_uri, e.offset);
    } else {
        check_split(in, len, &u, st);
    }
    fast_equals_full(in, len, lim);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = fuzz_dup(data, size);

    /* Measure the sizes every bound is about, on the oracle's split. */
    ref_split rs;
    ref_split_appendix_b(in, size, &rs);
    auth_split as;
    split_authority(in, rs.authority, &as);
    measured m;
    measure(in, size, &rs, &as, &m);

    parse_with(in, size, &m, NULL, "default limits");

    /* Limits exactly at the measured sizes: nothing is exceeded. */
    urisan_limits lim;
    lim.max_uri = size;
    lim.max_scheme = m.scheme;
    lim.max_userinfo = m.userinfo;
    lim.max_host = m.host;
    lim.max_label = m.label;
    lim.max_segments = m.segments;
    parse_with(in, size, &m, &lim, "limits at the sizes");

    /* One below, one bound at a time. */
    static const size_t fields[] = {
        offsetof(urisan_limits, max_uri),   offsetof(urisan_limits, max_scheme),
        offsetof(urisan_limits, max_userinfo), offsetof(urisan_limits, max_host),
        offsetof(urisan_limits, max_label), offsetof(urisan_limits, max_segments)};
    static const char *what[] = {"max_uri-1", "max_scheme-1", "max_userinfo-1",
                                 "max_host-1", "max_label-1", "max_segments-1"};
    for (size_t i = 0; i < 6; i++) {
        urisan_limits l2 = lim;
        size_t *f = (size_t *)(void *)((char *)&l2 + fields[i]);
        if (*f == 0)
            continue;
        (*f)--;
        parse_with(in, size, &m, &l2, what[i]);
    }

    /* Over the whole-URI bound nothing may be read: poison the input. */
#ifdef FUZZ_ASAN
    if (size > 0) {
        urisan_limits l3;
        urisan_limits_default(&l3);
        l3.max_uri = size - 1;
        urisan_uri u;
        urisan_error e;
        ASAN_POISON_MEMORY_REGION(in, size);
        urisan_status st = urisan_parse(in, size, &l3, &u, &e);
        ASAN_UNPOISON_MEMORY_REGION(in, size);
        FUZZ_ASSERT(st == URISAN_E_TOO_LONG, "poisoned over-long input not too_long");
    }
#endif

    /* The hard ceiling: a limit above it is clamped. */
    urisan_limits huge;
    huge.max_uri = huge.max_scheme = huge.max_userinfo = SIZE_MAX;
    huge.max_host = huge.max_label = huge.max_segments = SIZE_MAX;
    urisan_uri u;
    urisan_status st = urisan_parse(in, size, &huge, &u, NULL);
    urisan_limits ceil;
    ceil.max_uri = ceil.max_scheme = ceil.max_userinfo = URISAN_HARD_CEILING;
    ceil.max_host = ceil.max_label = ceil.max_segments = URISAN_HARD_CEILING;
    FUZZ_ASSERT((st == URISAN_E_TOO_LONG) == must_be_too_long(size, &m, &ceil),
                "limits above the hard ceiling");

    fuzz_done(in);
    return 0;
}
