/*
 * normalize.c - RFC 3986 6.2.2 syntax-based and 6.2.3 scheme-based
 * normalisation into a caller buffer, and equivalence (6.1: equal after
 * normalisation).
 *
 * What changes (and nothing else):
 *  - scheme to lower case (3.1, 6.2.2.1);
 *  - reg-name host to lower case, IPv6 / IPvFuture literal to lower case,
 *    an RFC 6874 zone id kept except for the hex case of its escapes;
 *  - escapes: hex digits upper-case (6.2.2.1); an escaped unreserved
 *    character is decoded (6.2.2.2). A reserved character, a control or a
 *    byte >= 0x80 is never decoded: that would change the meaning or let
 *    a raw byte appear that the input did not have;
 *  - dot segments removed (6.2.2.3) after decoding "%2e", which is the
 *    unreserved "." (2.3): decoding first is what 6.2.2.2 says and keeps
 *    normalise(normalise(x)) == normalise(x);
 *  - port (3.2.3, 6.2.3): an empty port and the scheme's default port
 *    (urisan_default_port) are dropped; leading zeros go (":080" is 80);
 *  - 6.2.3: an empty path with an authority becomes "/" for http, https,
 *    ws and wss; the domain of a mailto address is lower-cased (the 6.2.3
 *    example "mailto:Joe@Example.COM").
 * Invalid input is not normalised: the parse error is returned. The
 * output never re-parses into other components than the ones written
 * here (see doc/resolve.md for the "/." and "./" guards).
 */
#include "internal.h"
#include "schemes.h"

#include <string.h>

static inline unsigned char upper_hex(unsigned char c)
{
    return (c >= 'a' && c <= 'f') ? (unsigned char)(c - ('a' - 'A')) : c;
}

/* Copy s[0..n), lower-casing ASCII letters; returns n. */
static size_t lower_copy(const char *s, size_t n, char *w)
{
    if (w != NULL)
        for (size_t i = 0; i < n; i++)
            w[i] = (char)lower_ascii((unsigned char)s[i]);
    return n;
}

/* RFC 6874 zone id: only the hex digits of escapes change case (6.2.2.1);
   the zone text itself is an interface name, compared as written. */
static size_t zone_copy(const char *s, size_t n, char *w)
{
    if (w != NULL) {
        for (size_t i = 0; i < n; i++) {
            if (is_escape_at(s, n, i)) {
                w[i] = '%';
                w[i + 1] = (char)upper_hex((unsigned char)s[i + 1]);
                w[i + 2] = (char)upper_hex((unsigned char)s[i + 2]);
                i += 2;
            } else {
                w[i] = s[i];
            }
        }
    }
    return n;
}

static size_t host_out(const char *in, const urisan_uri *u, char *w)
{
    const char *h = in + u->host.off;
    size_t n = u->host.len;

    switch (u->host_type) {
    case URISAN_HOST_REG_NAME:
        /* 3.2.2: reg-name is case-insensitive; escapes as in 6.2.2. */
        return urisan_norm_escapes(h, n, 1, w);
    case URISAN_HOST_IPV6:
    case URISAN_HOST_IPVFUTURE:
        /* "[" ... "]": hex digits and "v" are case-insensitive (3.2.2). */
        return lower_copy(h, n, w);
    case URISAN_HOST_IPV6_ZONE: {
        size_t zs = u->zone.off - u->host.off;
        size_t ze = zs + u->zone.len;
        lower_copy(h, zs, w);
        zone_copy(h + zs, u->zone.len, w ? w + zs : NULL);
        if (w != NULL)
            memcpy(w + ze, h + ze, n - ze);
        return n;
    }
    default: /* IPv4 dotted-decimal, empty host: nothing to change */
        if (w != NULL && n)
            memcpy(w, h, n);
        return n;
    }
}

/* ":" port, or nothing when it is empty or the scheme's default. */
static size_t port_out(const char *in, const urisan_uri *u, char *w)
{
    if (!urisan_span_present(u->port) || u->port.len == 0)
        return 0; /* 3.2.3: omit an empty port and its ":" */
    const char *p = in + u->port.off;
    size_t n = u->port.len, i = 0;
    while (i + 1 < n && p[i] == '0')
        i++;
    size_t dn = n - i;
    if (dn <= 5 && urisan_span_present(u->scheme)) {
        long v = 0;
        for (size_t j = i; j < n; j++)
            v = v * 10 + (p[j] - '0');
        int dp = urisan_default_port(in + u->scheme.off, u->scheme.len);
        if (dp >= 0 && v == dp)
            return 0; /* 6.2.3: the default port is omitted */
    }
    if (w != NULL) {
        w[0] = ':';
        memcpy(w + 1, p + i, dn);
    }
    return 1 + dn;
}

/* RFC 6068 2: the domain of an addr-spec is case-insensitive; the local
   part is not. Lower-case each address's domain (mailto.c reads them;
   escapes keep their upper-case hex). In place, same length. */
static void mailto_domains(char *s, size_t n)
{
    size_t pos = 0, off, dn;
    while (urisan_mailto_next(s, n, &pos, &off, &dn)) {
        for (size_t i = off; i < off + dn; i++) {
            if (s[i] == '%')
                i += 2; /* a valid escape: the input was validated */
            else
                s[i] = (char)lower_ascii((unsigned char)s[i]);
        }
    }
}

static bool empty_path_is_slash(const char *in, const urisan_uri *u)
{
    const char *s = in + u->scheme.off;
    size_t n = u->scheme.len;
    const scheme_row *row = urisan_scheme_find(s, n);
    return row != NULL && (row->bits & SCHEME_SLASH_PATH);
}

/* Write (w != NULL, wcap bytes known to be enough) or count the normal
   form; fills *pt. */
static size_t build(const char *in, const urisan_uri *u, char *w, size_t wcap,
                    urisan_parts *pt)
{
    const urisan_span none = { URISAN_ABSENT, 0 };
    bool has_scheme = urisan_span_present(u->scheme);
    bool has_auth = u->host_type != URISAN_HOST_NONE;
    size_t k = 0;

    pt->scheme = pt->authority = pt->query = pt->fragment = none;
    if (has_scheme) {
        pt->scheme.off = k;
        pt->scheme.len = u->scheme.len;
        k += lower_copy(in + u->scheme.off, u->scheme.len, w ? w + k : NULL);
        if (w)
            w[k] = ':';
        k++;
    }
    if (has_auth) {
        if (w) {
            w[k] = '/';
            w[k + 1] = '/';
        }
        k += 2;
        pt->authority.off = k;
        if (urisan_span_present(u->userinfo)) {
            k += urisan_norm_escapes(in + u->userinfo.off, u->userinfo.len, 0,
                                     w ? w + k : NULL);
            if (w)
                w[k] = '@';
            k++;
        }
        k += host_out(in, u, w ? w + k : NULL);
        k += port_out(in, u, w ? w + k : NULL);
        pt->authority.len = k - pt->authority.off;
    }

    /* Path. With a scheme, an authority or a leading "/", 5.2.4 as
       written (6.2.2.3). A relative-path reference has no base yet: its
       leading ".." are meaningful and stay (4.2), as uriparser does. */
    const char *p = in + u->path.off;
    size_t pn = u->path.len;
    unsigned mode = (has_scheme || has_auth || (pn > 0 && p[0] == '/'))
                        ? URISAN_DOTS_RFC : URISAN_DOTS_RELREF;
    mode |= URISAN_DOTS_PCT2E | URISAN_DOTS_NORMESC;
    if (!has_auth)
        mode |= URISAN_DOTS_NOAUTH;
    urisan_dots_info di;
    urisan_remove_dots(p, pn, NULL, 0, mode, w ? w + k : NULL, w ? wcap - k : 0, &di);
    pt->path.off = k;
    if (di.len == 0 && has_auth && has_scheme && empty_path_is_slash(in, u)) {
        /* 6.2.3: "http://example.com" -> "http://example.com/" */
        if (w)
            w[k] = '/';
        k++;
    } else {
        if (w && has_scheme && urisan_ieq(in + u->scheme.off, u->scheme.len, "mailto"))
            mailto_domains(w + k, di.len);
        k += di.len;
    }
    pt->path.len = k - pt->path.off;

    if (urisan_span_present(u->query)) {
        if (w)
            w[k] = '?';
        k++;
        pt->query.off = k;
        k += urisan_norm_escapes(in + u->query.off, u->query.len, 0, w ? w + k : NULL);
        pt->query.len = k - pt->query.off;
    }
    if (urisan_span_present(u->fragment)) {
        if (w)
            w[k] = '#';
        k++;
        pt->fragment.off = k;
        k += urisan_norm_escapes(in + u->fragment.off, u->fragment.len, 0,
                                 w ? w + k : NULL);
        pt->fragment.len = k - pt->fragment.off;
    }
    return k;
}

urisan_status urisan_normalize_ex(const char *in, size_t len,
                                  const urisan_limits *lim,
                                  char *buf, size_t cap, size_t *needed,
                                  urisan_error *err, urisan_parts *parts)
{
    urisan_uri u;
    urisan_error e;
    urisan_parts pt;

    if (needed)
        *needed = 0;
    (void)urisan_fail(err, URISAN_OK, 0);
    if (needed == NULL || (in == NULL && len) || (buf == NULL && cap))
        return urisan_fail(err, URISAN_E_BAD_ARGUMENT, 0);
    if (in == NULL)
        in = ""; /* len == 0: no byte is read, and no arithmetic on NULL */
    urisan_status st = urisan_parse(in, len, lim, &u, &e);
    if (st != URISAN_OK)
        return urisan_fail(err, st, e.offset);
    /* The normal form is at most 2 bytes longer than the input: only the
       path can grow, by the "/." or "./" guard or the "/" of an empty
       http path (never both); every other change shrinks or keeps the
       length. With that much room, write in one pass. */
    size_t n;
    if (cap >= len + 2) {
        n = build(in, &u, buf, cap, &pt);
    } else {
        n = build(in, &u, NULL, 0, &pt);
        if (n <= cap)
            (void)build(in, &u, buf, cap, &pt);
    }
    *needed = n;
    if (n > cap)
        return URISAN_E_NOSPACE;
    urisan_nul_after(buf, cap, n);
    if (parts)
        *parts = pt;
    return URISAN_OK;
}

URISAN_API urisan_status urisan_normalize(const char *in, size_t len,
                                          const urisan_limits *lim,
                                          char *buf, size_t cap,
                                          size_t *needed, urisan_error *err)
{
    return urisan_normalize_ex(in, len, lim, buf, cap, needed, err, NULL);
}

URISAN_API urisan_status urisan_equivalent(const char *a, size_t alen,
                                           const char *b, size_t blen,
                                           const urisan_limits *lim,
                                           char *work, size_t cap,
                                           size_t *needed, int *equal,
                                           urisan_error *err)
{
    size_t na = 0, nb = 0;
    urisan_status st;

    if (equal)
        *equal = 0;
    if (needed)
        *needed = 0;
    if (equal == NULL || needed == NULL || (work == NULL && cap))
        return urisan_fail(err, URISAN_E_BAD_ARGUMENT, 0);
    /* a into work[0..na), b right after it; both sizes are always
       learnt, so *needed is right even when the first does not fit. */
    st = urisan_normalize(a, alen, lim, work, cap, &na, err);
    if (st != URISAN_OK && st != URISAN_E_NOSPACE)
        return st;
    size_t off = na <= cap ? na : cap;
    st = urisan_normalize(b, blen, lim, work ? work + off : NULL, cap - off, &nb, err);
    if (st != URISAN_OK && st != URISAN_E_NOSPACE) {
        if (err)
            err->input = 1;
        return st;
    }
    *needed = na + nb;
    if (na + nb > cap)
        return URISAN_E_NOSPACE;
    *equal = na == nb && (na == 0 || memcmp(work, work + na, na) == 0);
    return urisan_fail(err, URISAN_OK, 0);
}
