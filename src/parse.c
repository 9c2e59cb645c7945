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
    size_t bound_off;  /* where a length bound was hit (URISAN_E_TOO_LONG) */
} parser;

/* A length bound was hit at off: the parse stops at once (returns false
   for the caller to pass on). */
static bool bound(parser *p, size_t off)
{
    p->bound_off = off;
    return false;
}


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
static bool host_regname(parser *p, size_t hs, size_t he)
{
    urisan_uri *u = p->out;
    const char *in = p->in;
    size_t label_start = hs;
    size_t bad = URISAN_ABSENT;
    urisan_status bad_code = URISAN_OK;
    for (size_t i = hs;; i++) {
        if (i == he || in[i] == '.') {
            size_t llen = i - label_start;
            if (llen > p->lim.max_label)
                return bound(p, label_start + p->lim.max_label);
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

/* Where the host ends and the port starts in in[hs..ae) (ps URISAN_ABSENT:
   no port), and whether the host is an IP literal in brackets (closed:
   its "]" was found). */
typedef struct {
    size_t he, ps;
    bool bracketed, closed;
} host_split;

static host_split split_host_port(const char *in, size_t hs, size_t ae, size_t last_colon)
{
    host_split h = { ae, URISAN_ABSENT, false, false };
    if (hs < ae && in[hs] == '[') {
        size_t r = hs + 1;
        while (r < ae && in[r] != ']')
            r++;
        if (r < ae) {
            h.closed = true;
            if (r + 1 == ae) {
                h.bracketed = true;
            } else if (in[r + 1] == ':') {
                h.he = r + 1;
                h.ps = r + 2;
                h.bracketed = true;
            }
            /* else: text after "]" that is not a port: fall back to the
               last-colon rule below; the host is invalid either way. */
        } else {
            h.bracketed = true; /* unclosed "[": the whole rest is the host */
        }
    }
    if (!h.bracketed && last_colon != URISAN_ABSENT && last_colon >= hs) {
        h.he = last_colon; /* the port follows the last ":" */
        h.ps = last_colon + 1;
    }
    return h;
}

/* host = IP-literal / IPv4address / reg-name   (3.2.2), in[hs..h->he).
   Returns false when a bound was hit. */
static bool host(parser *p, size_t hs, const host_split *h)
{
    urisan_uri *u = p->out;
    const char *in = p->in;
    if (h->he - hs > p->lim.max_host)
        return bound(p, hs + p->lim.max_host);
    u->host = span(hs, h->he - hs);
    if (h->he == hs) {
        u->host_type = URISAN_HOST_EMPTY;
    } else if (in[hs] != '[') {
        return host_regname(p, hs, h->he);
    } else if (h->bracketed) {
        host_literal(p, hs, h->he, h->closed);
    } else {
        u->host_type = URISAN_HOST_INVALID;
        /* the first byte after the "]" is what breaks the literal */
        size_t r = hs;
        while (in[r] != ']')
            r++;
        invalid(p, URISAN_E_BAD_IP_LITERAL, r + 1);
    }
    return true;
}

/* port = *DIGIT   (3.2.3) in in[ps..ae); its value must fit in 16 bits
   (doc/policy.md, invalid). */
static void port(parser *p, size_t ps, size_t ae)
{
    urisan_uri *u = p->out;
    u->port = span(ps, ae - ps);
    uint32_t v = urisan_port_number(p->in + ps, ae - ps);
    if (v == URISAN_PORT_NOT_DIGITS) {
        size_t k = ps;
        while (cc_is((unsigned char)p->in[k], CC_DIGIT))
            k++;
        invalid(p, URISAN_E_BAD_PORT, k);
    } else if (v > 65535) {
        invalid(p, URISAN_E_PORT_RANGE, ps);
    } else if (ae > ps) {
        u->port_value = v;
    }
}

/*
 * authority = [ userinfo "@" ] host [ ":" port ]   (3.2)
 * as = first byte after "//", ae = end of the authority; last_at and
 * last_colon (URISAN_ABSENT: none) were found by the caller's scan.
 * Returns false when a bound was hit.
 */
static bool authority(parser *p, size_t as, size_t ae, size_t last_at, size_t last_colon)
{
    /* Userinfo is what precedes the authority's last "@" (doc/policy.md). */
    size_t hs = as;
    if (last_at != URISAN_ABSENT) {
        size_t ulen = last_at - as;
        if (ulen > p->lim.max_userinfo)
            return bound(p, as + p->lim.max_userinfo);
        p->out->userinfo = span(as, ulen);
        /* userinfo = *( unreserved / pct-encoded / sub-delims / ":" ) */
        check_chars(p, as, as + ulen, CC_USER, URISAN_E_BAD_USERINFO);
        hs = as + ulen + 1;
    }
    host_split h = split_host_port(p->in, hs, ae, last_colon);
    if (!host(p, hs, &h))
        return false;
    if (h.ps != URISAN_ABSENT)
        port(p, h.ps, ae);
    return true;
}

/* scheme: ^([^:/?#]+):  (App. B). A colon with nothing before it is not a
   scheme; then the first path segment holds a ":", which path-noscheme
   forbids (4.2). *i: where the rest starts. */
static bool scheme_part(parser *p, size_t *i)
{
    const char *in = p->in;
    size_t k = 0;
    *i = 0;
    while (k < p->len && !cc_is((unsigned char)in[k], CC_SCHEND))
        k++;
    if (k == p->len || in[k] != ':')
        return true;
    if (k == 0) {
        invalid(p, URISAN_E_MISSING_SCHEME, 0);
        return true;
    }
    if (k > p->lim.max_scheme)
        return bound(p, p->lim.max_scheme);
    p->out->scheme = span(0, k);
    check_scheme(p, k);
    *i = k + 1;
    return true;
}

/* authority: (//([^/?#]*))? from in[*i]; *i: where it ends. */
static bool authority_part(parser *p, size_t *i)
{
    const char *in = p->in;
    size_t len = p->len;
    if (!(*i + 1 < len && in[*i] == '/' && in[*i + 1] == '/'))
        return true;
    size_t as = *i + 2, ae = as;
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
    *i = ae;
    return authority(p, as, ae, last_at, last_colon);
}

/* path: ([^?#]*)  -- path-abempty / path-absolute / path-noscheme /
   path-rootless / path-empty all reduce to pchar and "/" here: the split
   already keeps "//" out of a path without authority. *i: where it ends. */
static bool path_part(parser *p, size_t *i)
{
    const char *in = p->in;
    size_t len = p->len, k = *i;
    size_t segs = (k < len && in[k] != '/' && !cc_is((unsigned char)in[k], CC_PATHEND)) ? 1 : 0;
    while (k < len) {
        unsigned char c = (unsigned char)in[k];
        if (cc_is(c, CC_PCHAR)) {
            k++;
            continue;
        }
        if (c == '/') {
            if (++segs > p->lim.max_segments)
                return bound(p, k);
            k++;
            continue;
        }
        if (cc_is(c, CC_PATHEND))
            break;
        if (c == '%' && is_escape_at(in, len, k)) {
            k += 3;
            continue;
        }
        invalid(p, c == '%' ? URISAN_E_BAD_ESCAPE : URISAN_E_BAD_PATH, k);
        k++;
    }
    if (segs > p->lim.max_segments) /* the rootless first segment alone */
        return bound(p, *i);
    p->out->path = span(*i, k - *i);
    p->out->segments = segs;
    *i = k;
    return true;
}

/* query: (\?([^#]*))?   query = *( pchar / "/" / "?" )  (3.4)
   fragment: (#(.*))?   fragment = *( pchar / "/" / "?" )  (3.5) */
static void query_fragment_part(parser *p, size_t i)
{
    const char *in = p->in;
    size_t len = p->len;
    if (i < len && in[i] == '?') {
        size_t qs = ++i;
        const char *hash = memchr(in + i, '#', len - i);
        i = hash != NULL ? (size_t)(hash - in) : len;
        p->out->query = span(qs, i - qs);
        check_chars(p, qs, i, CC_QUERY, URISAN_E_BAD_QUERY);
    }
    if (i < len && in[i] == '#') {
        size_t fs = i + 1;
        p->out->fragment = span(fs, len - fs);
        check_chars(p, fs, len, CC_QUERY, URISAN_E_BAD_FRAGMENT);
    }
}

/* The full parser: every input, every error (urisan_parse tries the fast
   path below first). */
urisan_status urisan_parse_full(const char *in, size_t len,
                                const urisan_limits *lim_in,
                                urisan_uri *u, urisan_error *err)
{
    parser p;
    if (u == NULL || (in == NULL && len != 0))
        return urisan_fail(err, URISAN_E_BAD_ARGUMENT, 0);
    p.in = in;
    p.len = len;
    p.out = u;
    p.bound_off = 0;
    urisan_limits_effective(lim_in, &p.lim);

    urisan_uri_reset(u);

    /* Check the bound before reading anything; then each part in turn,
       stopping at a bound. */
    size_t i = 0;
    bool within = len <= p.lim.max_uri || bound(&p, p.lim.max_uri);
    within = within && scheme_part(&p, &i) && authority_part(&p, &i) && path_part(&p, &i);
    if (!within) {
        /* A bound was hit: stop at once, every component absent. */
        urisan_uri_reset(u);
        u->segments = 0;
        u->valid = 0;
        (void)urisan_fail(&u->error, URISAN_E_TOO_LONG, p.bound_off);
        if (err)
            *err = u->error;
        return URISAN_E_TOO_LONG;
    }
    query_fragment_part(&p, i);
    u->valid = (u->error.code == URISAN_OK);
    if (err)
        *err = u->error;
    return u->error.code;
}

#if defined(__GNUC__)
__attribute__((noinline))
#endif
bool urisan_parse_fast_base(const char *in, size_t len, const urisan_limits *lim, urisan_uri *u,
                            unsigned *sum)
{
    return parse_plain(in, len, lim, u, sum);
}

urisan_status urisan_parse_sum(const char *in, size_t len, const urisan_limits *lim,
                               urisan_uri *u, urisan_error *err, unsigned *sum)
{
    *sum = 0; /* no summary: the analysis reads every byte */
    if (u != NULL && (in != NULL || len == 0)) {
        bool fast;
#ifdef URISAN_HAVE_SSSE3_VARIANT
        /* both fast paths out of line: this stays a small dispatcher */
        if (urisan_cpu_ssse3())
            fast = urisan_parse_fast_ssse3(in, len, lim, u, sum);
        else
            fast = urisan_parse_fast_base(in, len, lim, u, sum);
#else
        fast = parse_plain(in, len, lim, u, sum);
#endif
        if (fast) {
            if (err)
                *err = u->error;
            return URISAN_OK;
        }
    }
    return urisan_parse_full(in, len, lim, u, err);
}

URISAN_API urisan_status urisan_parse(const char *in, size_t len,
                                      const urisan_limits *lim,
                                      urisan_uri *u, urisan_error *err)
{
    unsigned sum;
    return urisan_parse_sum(in, len, lim, u, err, &sum);
}

/* Parse and analyse in one call: the summary is handed over, as
   urisan_check does. */
URISAN_API urisan_status urisan_parse_analyze(const char *in, size_t len,
                                              const urisan_policy *pol, urisan_uri *uri,
                                              urisan_error *err, urisan_report *out)
{
    unsigned sum;
    /* NULL: the defaults, without the clamping pass (as urisan_check) */
    urisan_status st = urisan_parse_sum(in, len, pol != NULL ? urisan_policy_parse_limits(pol) : NULL,
                                        uri, err, &sum);
    urisan_analyze_sum(in, len, uri, pol, out, sum);
    return st;
}
