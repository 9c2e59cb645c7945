/*
 * parse.c - the tolerant split (RFC 3986 Appendix B) and strict RFC 3986
 * validation in one left-to-right pass over the input.
 *
 *   ^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?
 *
 * Every input within the bounds is split; validation records the first
 * error (code + offset) and carries on splitting. A length bound that is
 * hit stops the work at once with URISAN_E_TOO_LONG.
 */
#include "internal.h"
#include "parse_fast.h"
#include "scan.h"

#include <string.h>

typedef struct {
    const char *in;
    size_t len;
    urisan_limits lim;
    urisan_uri *out;
} parser;


/* Record a validation error unless an earlier one is already recorded. */
static void invalid(parser *p, urisan_status code, size_t off)
{
    if (p->out->error.code == URISAN_OK)
        (void)urisan_fail(&p->out->error, code, off);
}

/*
 * Check in[from..to) against a character class, allowing pct-encoded.
 * Reports the first offending byte as `code`, or a bad escape; returns
 * whether the range was clean (whatever error was recorded before).
 */
static bool check_chars(parser *p, size_t from, size_t to, uint32_t cls,
                        urisan_status code)
{
    const char *in = p->in;
    for (size_t i = from; i < to; i++) {
        unsigned char c = (unsigned char)in[i];
        if (cc_is(c, cls))
            continue;
        if (c == '%') {
            /* pct-encoded = "%" HEXDIG HEXDIG  (2.1) */
            if (is_escape_at(in, to, i)) {
                i += 2;
                continue;
            }
            invalid(p, URISAN_E_BAD_ESCAPE, i);
            return false;
        }
        invalid(p, code, i);
        return false;
    }
    return true;
}

/* scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )   (3.1) */
static void check_scheme(parser *p, size_t n)
{
    if (!cc_is((unsigned char)p->in[0], CC_ALPHA)) {
        invalid(p, URISAN_E_BAD_SCHEME, 0);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        if (!cc_is((unsigned char)p->in[i], CC_SCHEME)) {
            invalid(p, URISAN_E_BAD_SCHEME, i);
            return;
        }
    }
}

/*
 * reg-name = *( unreserved / pct-encoded / sub-delims )   (3.2.2)
 * One pass checks the characters and the label bound (raw bytes between
 * dots), then types a strict dotted-decimal IPv4address. Returns false
 * when a bound was hit; a bound wins over any character error.
 */
static bool host_regname(parser *p, size_t hs, size_t he, urisan_status *bound_code,
                         size_t *bound_off)
{
    urisan_uri *u = p->out;
    const char *in = p->in;
    size_t label_start = hs;
    size_t bad = URISAN_ABSENT;
    urisan_status bad_code = URISAN_OK;
    for (size_t i = hs;; i++) {
        if (i == he || in[i] == '.') {
            size_t llen = i - label_start;
            if (llen > p->lim.max_label) {
                *bound_code = URISAN_E_TOO_LONG;
                *bound_off = label_start + p->lim.max_label;
                return false;
            }
            if (llen > URISAN_DNS_LABEL && bad == URISAN_ABSENT) {
                bad = label_start + URISAN_DNS_LABEL;
                bad_code = URISAN_E_LABEL_LENGTH;
            }
            if (i == he)
                break;
            label_start = i + 1;
            continue;
        }
        unsigned char c = (unsigned char)in[i];
        if (cc_is(c, CC_REG) || bad != URISAN_ABSENT)
            continue;
        if (c == '%' && is_escape_at(in, he, i)) {
            i += 2;
            continue;
        }
        bad = i;
        bad_code = (c == '%') ? URISAN_E_BAD_ESCAPE : URISAN_E_BAD_HOST;
    }
    if (bad != URISAN_ABSENT)
        invalid(p, bad_code, bad);
    else if (he - hs > URISAN_DNS_NAME)
        invalid(p, URISAN_E_HOST_LENGTH, hs + URISAN_DNS_NAME);

    if (cc_is((unsigned char)in[hs], CC_DIGIT) &&
        urisan_parse_ipv4_strict(in + hs, he - hs, u->ip))
        u->host_type = URISAN_HOST_IPV4;
    else
        u->host_type = URISAN_HOST_REG_NAME;
    return true;
}

/*
 * IP-literal = "[" ( IPv6address / IPv6addrz / IPvFuture ) "]"   (3.2.2)
 * IPv6addrz  = IPv6address "%25" ZoneID                          (RFC 6874)
 * ZoneID     = 1*( unreserved / pct-encoded )
 * IPvFuture  = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
 * hs..he covers the brackets; `closed` tells whether in[he-1] is "]".
 */
static void host_literal(parser *p, size_t hs, size_t he, bool closed)
{
    urisan_uri *u = p->out;
    const char *in = p->in;
    u->host_type = URISAN_HOST_INVALID;
    if (!closed) {
        invalid(p, URISAN_E_BAD_IP_LITERAL, he);
        return;
    }
    size_t a = hs + 1, b = he - 1; /* inside the brackets */
    if (a < b && (in[a] == 'v' || in[a] == 'V')) {
        size_t i = a + 1;
        while (i < b && cc_is((unsigned char)in[i], CC_HEX))
            i++;
        if (i == a + 1 || i >= b || in[i] != '.') {
            invalid(p, URISAN_E_BAD_IPVFUTURE, i);
            return;
        }
        i++;
        if (i == b) {
            invalid(p, URISAN_E_BAD_IPVFUTURE, i);
            return;
        }
        for (; i < b; i++) {
            if (!cc_is((unsigned char)in[i], CC_USER)) {
                invalid(p, URISAN_E_BAD_IPVFUTURE, i);
                return;
            }
        }
        u->host_type = URISAN_HOST_IPVFUTURE;
        return;
    }
    /* The address runs to the first "%" (the zone delimiter, RFC 6874). */
    size_t pct = a;
    while (pct < b && in[pct] != '%')
        pct++;
    size_t errpos = 0;
    if (!urisan_parse_ipv6(in + a, pct - a, u->ip, &errpos)) {
        memset(u->ip, 0, sizeof u->ip);
        invalid(p, URISAN_E_BAD_IPV6, a + errpos);
        return;
    }
    if (pct == b) {
        u->host_type = URISAN_HOST_IPV6;
        return;
    }
    /* "%25" then 1*( unreserved / pct-encoded ) */
    if (!(pct + 2 < b && in[pct + 1] == '2' && in[pct + 2] == '5')) {
        invalid(p, URISAN_E_BAD_ZONE_ID, pct);
        return;
    }
    size_t zs = pct + 3;
    if (zs == b) {
        invalid(p, URISAN_E_BAD_ZONE_ID, zs);
        return;
    }
    if (!check_chars(p, zs, b, CC_UNRES, URISAN_E_BAD_ZONE_ID))
        return;
    u->zone = span(zs, b - zs);
    u->host_type = URISAN_HOST_IPV6_ZONE;
}

/*
 * authority = [ userinfo "@" ] host [ ":" port ]   (3.2)
 * as = first byte after "//", ae = end of the authority; last_at and
 * last_colon (URISAN_ABSENT: none) were found by the caller's scan.
 * Returns false when a bound was hit (error in *bc and *bo).
 */
static bool authority(parser *p, size_t as, size_t ae, size_t last_at, size_t last_colon,
                      urisan_status *bc, size_t *bo)
{
    urisan_uri *u = p->out;
    const char *in = p->in;

    /* Userinfo is what precedes the authority's last "@" (SPEC 2). */
    size_t hs = as;
    if (last_at != URISAN_ABSENT) {
        size_t ulen = last_at - as;
        if (ulen > p->lim.max_userinfo) {
            *bc = URISAN_E_TOO_LONG;
            *bo = as + p->lim.max_userinfo;
            return false;
        }
        u->userinfo = span(as, ulen);
        /* userinfo = *( unreserved / pct-encoded / sub-delims / ":" ) */
        check_chars(p, as, as + ulen, CC_USER, URISAN_E_BAD_USERINFO);
        hs = as + ulen + 1;
    }

    /* Host and port. */
    size_t he = ae, ps = URISAN_ABSENT;
    bool bracketed = false, closed = false;
    if (hs < ae && in[hs] == '[') {
        size_t r = hs + 1;
        while (r < ae && in[r] != ']')
            r++;
        if (r < ae) {
            closed = true;
            if (r + 1 == ae) {
                he = ae;
                bracketed = true;
            } else if (in[r + 1] == ':') {
                he = r + 1;
                ps = r + 2;
                bracketed = true;
            }
            /* else: text after "]" that is not a port: fall back to the
               last-colon rule below; the host is invalid either way. */
        } else {
            he = ae; /* unclosed "[": the whole rest is the host */
            bracketed = true;
        }
    }
    if (!bracketed && last_colon != URISAN_ABSENT && last_colon >= hs) {
        he = last_colon; /* the port follows the last ":" */
        ps = last_colon + 1;
    }
    if (he - hs > p->lim.max_host) {
        *bc = URISAN_E_TOO_LONG;
        *bo = hs + p->lim.max_host;
        return false;
    }
    u->host = span(hs, he - hs);

    if (he == hs) {
        u->host_type = URISAN_HOST_EMPTY;
    } else if (in[hs] == '[') {
        if (bracketed) {
            host_literal(p, hs, he, closed);
        } else {
            u->host_type = URISAN_HOST_INVALID;
            /* the first byte after the "]" is what breaks the literal */
            size_t r = hs;
            while (in[r] != ']')
                r++;
            invalid(p, URISAN_E_BAD_IP_LITERAL, r + 1);
        }
    } else {
        if (!host_regname(p, hs, he, bc, bo))
            return false;
    }

    /* port = *DIGIT   (3.2.3); its value must fit in 16 bits (SPEC 2). */
    if (ps != URISAN_ABSENT) {
        u->port = span(ps, ae - ps);
        uint32_t v = urisan_port_number(in + ps, ae - ps);
        if (v == URISAN_PORT_NOT_DIGITS) {
            size_t k = ps;
            while (cc_is((unsigned char)in[k], CC_DIGIT))
                k++;
            invalid(p, URISAN_E_BAD_PORT, k);
        } else if (v > 65535)
            invalid(p, URISAN_E_PORT_RANGE, ps);
        else if (ae > ps)
            u->port_value = v;
    }
    return true;
}

/* The full parser: every input, every error (urisan_parse tries the fast
   path below first). */
urisan_status urisan_parse_full(const char *in, size_t len,
                                const urisan_limits *lim_in,
                                urisan_uri *u, urisan_error *err)
{
    parser p;
    urisan_status bc = URISAN_OK;
    size_t bo = 0;

    if (u == NULL || (in == NULL && len != 0))
        return urisan_fail(err, URISAN_E_BAD_ARGUMENT, 0);
    p.in = in;
    p.len = len;
    p.out = u;
    urisan_limits_effective(lim_in, &p.lim);

    urisan_uri_reset(u);
    u->scan_in_ = NULL; /* no summary: the analysis reads every byte */
    u->scan_len_ = 0;
    u->scan_bits_ = 0;

    /* Check the bound before reading anything. */
    if (len > p.lim.max_uri) {
        bc = URISAN_E_TOO_LONG;
        bo = p.lim.max_uri;
        goto bound;
    }

    /* scheme: ^([^:/?#]+):  (App. B). A colon with nothing before it is
       not a scheme; then the first path segment holds a ":", which
       path-noscheme forbids (4.2). */
    size_t i = 0;
    while (i < len && !cc_is((unsigned char)in[i], CC_SCHEND))
        i++;
    if (i < len && in[i] == ':') {
        if (i == 0) {
            invalid(&p, URISAN_E_MISSING_SCHEME, 0);
            i = 0;
        } else {
            if (i > p.lim.max_scheme) {
                bc = URISAN_E_TOO_LONG;
                bo = p.lim.max_scheme;
                goto bound;
            }
            u->scheme = span(0, i);
            check_scheme(&p, i);
            i++;
        }
    } else {
        i = 0;
    }

    /* authority: (//([^/?#]*))? */
    if (i + 1 < len && in[i] == '/' && in[i + 1] == '/') {
        size_t as = i + 2, ae = as;
        size_t last_at = URISAN_ABSENT, last_colon = URISAN_ABSENT;
        for (; ae < len; ae++) {
            unsigned char c = (unsigned char)in[ae];
            if (!cc_is(c, CC_AUTHSTOP))
                continue;
            if (c == '@')
                last_at = ae;
            else if (c == ':')
                last_colon = ae;
            else
                break; /* "/" "?" "#" end the authority */
        }
        if (!authority(&p, as, ae, last_at, last_colon, &bc, &bo))
            goto bound;
        i = ae;
    }

    /* path: ([^?#]*)  -- path-abempty / path-absolute / path-noscheme /
       path-rootless / path-empty all reduce to pchar and "/" here: the
       split already keeps "//" out of a path without authority. */
    size_t ps = i;
    size_t segs = (i < len && in[i] != '/' && !cc_is((unsigned char)in[i], CC_PATHEND)) ? 1 : 0;
    while (i < len) {
        unsigned char c = (unsigned char)in[i];
        if (cc_is(c, CC_PCHAR)) {
            i++;
            continue;
        }
        if (c == '/') {
            if (++segs > p.lim.max_segments) {
                bc = URISAN_E_TOO_LONG;
                bo = i;
                goto bound;
            }
            i++;
            continue;
        }
        if (cc_is(c, CC_PATHEND))
            break;
        if (c == '%') {
            if (is_escape_at(in, len, i)) {
                i += 3;
                continue;
            }
            invalid(&p, URISAN_E_BAD_ESCAPE, i);
        } else {
            invalid(&p, URISAN_E_BAD_PATH, i);
        }
        i++;
    }
    if (segs > p.lim.max_segments) { /* the rootless first segment alone */
        bc = URISAN_E_TOO_LONG;
        bo = ps;
        goto bound;
    }
    u->path = span(ps, i - ps);
    u->segments = segs;

    /* query: (\?([^#]*))?   query = *( pchar / "/" / "?" )  (3.4) */
    if (i < len && in[i] == '?') {
        size_t qs = ++i;
        while (i < len && in[i] != '#')
            i++;
        u->query = span(qs, i - qs);
        check_chars(&p, qs, i, CC_QUERY, URISAN_E_BAD_QUERY);
    }
    /* fragment: (#(.*))?   fragment = *( pchar / "/" / "?" )  (3.5) */
    if (i < len && in[i] == '#') {
        size_t fs = i + 1;
        u->fragment = span(fs, len - fs);
        check_chars(&p, fs, len, CC_QUERY, URISAN_E_BAD_FRAGMENT);
    }

    u->valid = (u->error.code == URISAN_OK);
    if (err)
        *err = u->error;
    return u->error.code;

bound:
    /* A bound was hit: stop at once, every component absent. */
    urisan_uri_reset(u);
    u->segments = 0;
    u->valid = 0;
    (void)urisan_fail(&u->error, bc, bo);
    if (err)
        *err = u->error;
    return bc;
}

#if defined(__GNUC__)
__attribute__((noinline))
#endif
bool urisan_parse_fast_base(const char *in, size_t len, const urisan_limits *lim, urisan_uri *u)
{
    return parse_plain(in, len, lim, u);
}

URISAN_API urisan_status urisan_parse(const char *in, size_t len,
                                      const urisan_limits *lim,
                                      urisan_uri *u, urisan_error *err)
{
    if (u != NULL && (in != NULL || len == 0)) {
        bool fast;
#ifdef URISAN_HAVE_SSSE3_VARIANT
        /* both fast paths out of line: this stays a small dispatcher */
        if (urisan_cpu_ssse3())
            fast = urisan_parse_fast_ssse3(in, len, lim, u);
        else
            fast = urisan_parse_fast_base(in, len, lim, u);
#else
        fast = parse_plain(in, len, lim, u);
#endif
        if (fast) {
            if (err)
                *err = u->error;
            return URISAN_OK;
        }
    }
    return urisan_parse_full(in, len, lim, u, err);
}
