/*
 * parse_fast.h - the parser's fast path (parse_plain), included by
 * parse.c (compiled for the baseline: SSE2 on x86-64) and by
 * parse_ssse3.c (compiled with -mssse3: the pshufb classifier of scan.h).
 * urisan_parse picks one at run time (parse.c); tests/test_scan.c checks
 * that each gives what the full parser gives.
 */
#ifndef URISAN_PARSE_FAST_H
#define URISAN_PARSE_FAST_H

#include "internal.h"
#include "scan.h"

#include <string.h>

static inline urisan_span span(size_t off, size_t len)
{
    urisan_span s = {off, len};
    return s;
}

/* p[0..4) as a 32-bit word in memory order. */
static inline uint32_t load4(const char *p)
{
    uint32_t w;
    memcpy(&w, p, 4);
    return w;
}

/*
 * The fast path: a URI whose bytes outside unreserved / sub-delims are
 * only the delimiters of a plain, valid URI. It looks at those "special"
 * bytes only (scan.h finds them 16 at a time) and at the few short places
 * where plain bytes still matter (scheme, port, a digit-led host). Anything
 * else - every error, every bound, "%" in the authority, IP literals, hosts
 * longer than a label - returns false and the full parser runs from
 * scratch, so the result is the full parser's by construction
 * (tests/test_scan.c checks the two agree).
 */
#if defined(__GNUC__)
#define PARSE_INLINE inline __attribute__((always_inline))
#else
#define PARSE_INLINE inline
#endif

/* What urisan_limits_effective(NULL) gives (urisan_limits_default). */
static const urisan_limits parse_defaults = URISAN_LIMITS_DEFAULT;

/*
 * Fast path: the special bytes of a query or fragment, from the scan.
 * query = fragment = *( pchar / "/" / "?" )  (3.4, 3.5); a query ends at
 * "#" (stop_at_hash). *end gets where it ended; false: not plain (the
 * full parser decides).
 */
static PARSE_INLINE bool fast_query_or_fragment(scan_iter *it, const char *in, size_t len,
                                          bool stop_at_hash, unsigned *sum, size_t *end)
{
    for (;;) {
        size_t j = scan_pop(it);
        *end = j;
        if (j >= len)
            return true;
        char c = in[j];
        if (c == '#' && stop_at_hash)
            return true;
        /* SCAN_SUM_NEST: where a nested URL may start (nested.c), as
           analyze.c nested_maybe finds it (no "\\" gets here) */
        if (c == '%') {
            if (!is_escape_at(in, len, j))
                return false;
            *sum |= SCAN_SUM_PCT | (nest_escape_at(in, len, j) ? SCAN_SUM_NEST : 0u);
        } else if (c == ':' || (c == '/' && j + 1 < len && in[j + 1] == '/')) {
            *sum |= SCAN_SUM_NEST;
        } else if (c != '@' && c != '?' && c != '/') {
            return false;
        }
    }
}

/* Fast path: the scheme (App. B: the first special byte is its ":").
   Returns where the rest starts, or URISAN_ABSENT: the full parser
   decides. */
static PARSE_INLINE size_t fast_scheme(scan_iter *it, const char *in, size_t len,
                                       const urisan_limits *lim, urisan_uri *u)
{
    size_t j = scan_peek(it);
    if (j < len && in[j] == ':') {
        if (j == 0 || j > lim->max_scheme || !cc_is((unsigned char)in[0], CC_ALPHA))
            return URISAN_ABSENT;
        /* "http" and "https" in any case are valid; else check each byte.
           "| 0x20" maps only "H" and "h" to "h" (and so on). */
        if (!((j == 4 || (j == 5 && (in[4] | 0x20) == 's')) &&
              (load4(in) | 0x20202020u) == load4("http")))
            for (size_t k = 1; k < j; k++)
                if (!cc_is((unsigned char)in[k], CC_SCHEME))
                    return URISAN_ABSENT;
        u->scheme = span(0, j);
        scan_drop(it);
        return j + 1;
    }
    return (j >= len || cc_is((unsigned char)in[j], CC_SCHEND)) ? 0 : URISAN_ABSENT;
}

/* Fast path: host hs..he and port colon..ae of the authority (colon
   URISAN_ABSENT: none), plain bytes only. */
static PARSE_INLINE bool fast_host_port(const char *in, const urisan_limits *lim, urisan_uri *u,
                                        size_t hs, size_t he, size_t colon, size_t ae)
{
    size_t hlen = he - hs;
    /* No label can be longer than a DNS label (or the label bound) then. */
    if (hlen > URISAN_DNS_LABEL || hlen > lim->max_host || hlen > lim->max_label)
        return false;
    u->host = span(hs, hlen);
    if (hlen == 0)
        u->host_type = URISAN_HOST_EMPTY;
    else if (cc_is((unsigned char)in[hs], CC_DIGIT) &&
             urisan_parse_ipv4_strict(in + hs, hlen, u->ip))
        u->host_type = URISAN_HOST_IPV4;
    else
        u->host_type = URISAN_HOST_REG_NAME; /* ip[] as host_regname leaves it */
    if (colon != URISAN_ABSENT) {
        /* port = *DIGIT   (3.2.3), at most 65535: urisan_port_number
           with an early exit (the helper here costs kasztp 1 Ir/URL) */
        uint32_t v = 0;
        for (size_t k = colon + 1; k < ae; k++) {
            unsigned char c = (unsigned char)in[k];
            if (!cc_is(c, CC_DIGIT))
                return false;
            v = v * 10 + (uint32_t)(c - '0');
            if (v > 65535)
                return false;
        }
        u->port = span(colon + 1, ae - colon - 1);
        if (ae > colon + 1)
            u->port_value = v;
    }
    return true;
}

/* Fast path: the authority after the "//" at in[i] - userinfo "@" and
   host ":" port with plain bytes only. Returns where it ends, or
   URISAN_ABSENT: the full parser decides. */
static PARSE_INLINE size_t fast_authority(scan_iter *it, const char *in, size_t len,
                                          const urisan_limits *lim, urisan_uri *u, size_t i)
{
    size_t as = i + 2, at = URISAN_ABSENT, colon = URISAN_ABSENT, j;
    unsigned colons = 0;
    scan_drop(it); /* the two slashes are the next special bytes */
    scan_drop(it);
    for (;; scan_drop(it)) {
        j = scan_peek(it);
        if (j >= len)
            break;
        char c = in[j];
        if (c == ':') {
            colon = j;
            colons++;
        } else if (c == '@' && at == URISAN_ABSENT) {
            at = j;
            colon = URISAN_ABSENT;
            colons = 0;
        } else if (c == '/' || c == '?' || c == '#') {
            break; /* not taken: it starts the path, query or fragment */
        } else {
            return URISAN_ABSENT;
        }
    }
    size_t ae = j, hs = as;
    if (colons > 1)
        return URISAN_ABSENT; /* a ":" in the host */
    if (at != URISAN_ABSENT) {
        if (at - as > lim->max_userinfo)
            return URISAN_ABSENT;
        u->userinfo = span(as, at - as);
        hs = at + 1;
    }
    if (!fast_host_port(in, lim, u, hs, colon != URISAN_ABSENT ? colon : ae, colon, ae))
        return URISAN_ABSENT;
    return ae;
}

/* On success also leaves the scan summary (SCAN_SUM_*, internal.h) in
   *sum_out, for an analysis of this very input (urisan_check). */
static PARSE_INLINE bool parse_plain(const char *in, size_t len,
                                     const urisan_limits *lim_in, urisan_uri *u,
                                     unsigned *sum_out)
{
    urisan_limits eff;
    const urisan_limits *lim = &parse_defaults; /* no call, no clamping to do */
    if (lim_in != NULL) {
        urisan_limits_effective(lim_in, &eff);
        lim = &eff;
    }
    /* The scan reads up to 63 bytes ahead. With no more bytes than the
       segment bound allows segments (there are at most len), no bound can
       stop the work part-way through the path, so reading ahead never reads
       past a bound; longer inputs take the full parser, which stops there.
       So the path below counts segments without checking the bound: a
       rootless first segment and every "/" after it are distinct bytes of
       the path, so segs <= path length <= len <= max_segments. */
    if (len > lim->max_uri || len > lim->max_segments)
        return false;

    urisan_uri_reset(u);

    scan_iter it;
    scan_init(&it, in, len);
    size_t i = 0, j;

    i = fast_scheme(&it, in, len, lim, u);
    if (i == URISAN_ABSENT)
        return false;
    if (i + 1 < len && in[i] == '/' && in[i + 1] == '/') {
        i = fast_authority(&it, in, len, lim, u, i);
        if (i == URISAN_ABSENT)
            return false;
    }

    /* path: pchar and "/" */
    unsigned sum = SCAN_SUM_PLAIN; /* the summary */
    bool slash_dot = false;
    size_t ps = i;
    size_t segs = (i < len && in[i] != '/' && !cc_is((unsigned char)in[i], CC_PATHEND)) ? 1 : 0;
    for (;;) {
        j = scan_pop(&it);
        if (j >= len)
            break;
        char c = in[j];
        if (c == '/') {
            segs++; /* within the bound: see the length check above */
            /* in[j + 1], or this "/" itself when it is the last byte */
            slash_dot |= in[j + (j + 1 < len)] == '.';
        } else if (c == '?' || c == '#') {
            break;
        } else if (c == '%') {
            if (!is_escape_at(in, len, j))
                return false;
            sum |= SCAN_SUM_PCT;
        } else if (c != ':' && c != '@') {
            return false;
        }
    }
    u->path = span(ps, j - ps);
    u->segments = segs;
    i = j;

    /* query and fragment: pchar / "/" / "?" */
    if (i < len && in[i] == '?') {
        size_t qs = i + 1;
        if (!fast_query_or_fragment(&it, in, len, true, &sum, &j))
            return false;
        u->query = span(qs, j - qs);
        i = j;
    }
    if (i < len) { /* in[i] == '#' */
        size_t fs = i + 1;
        if (!fast_query_or_fragment(&it, in, len, false, &sum, &j))
            return false;
        u->fragment = span(fs, len - fs);
    }
    u->valid = 1;
    /* A "%" anywhere else (scheme, authority) took the full parser. */
    *sum_out = sum | (slash_dot ? SCAN_SUM_SLASH_DOT : 0u);
    return true;
}

#endif
