/*
 * analyze_authority.c - the flags of the scheme and the authority
 * (SPEC 3): dangerous_scheme, userinfo, password, nondefault_port,
 * reserved_port, and the one implementation of ambiguous_authority.
 * Scheme knowledge (kind, default port, dangerous) comes from the scheme
 * table (schemes.c) with the policy's overlay.
 */
#include "analysis.h"

#include <string.h>

/*
 * dangerous_scheme: the scheme as a browser reads it. WHATWG URL parsing
 * first strips leading C0 controls and spaces and removes every TAB, LF
 * and CR; then the scheme is ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
 * up to ":", compared without case ("java\tscript:", " JavaScript:").
 */
static bool scheme_dangerous(const char *in, size_t len, const scheme_overlay *ov)
{
    char name[POL_MAX_NAME];
    size_t n = 0, i = 0;
    while (i < len && (unsigned char)in[i] <= 0x20)
        i++;
    for (; i < len; i++) {
        unsigned char c = (unsigned char)in[i];
        if (cc_is(c, CC_TABNL))
            continue;
        if (c == ':')
            return n > 0 && urisan_scheme_dangerous(ov, name, n);
        if (n == 0 ? !cc_is(c, CC_ALPHA) : !cc_is(c, CC_SCHEME))
            return false;
        if (n == sizeof name)
            return false; /* longer than any listed scheme */
        name[n++] = (char)lower_ascii(c);
    }
    return false;
}

static urisan_flags an_scheme(const analysis *a)
{
    urisan_span sch = a->u->scheme;
    if (!(a->sum & SCAN_ODD) && sch.off == 0 && sch.len < a->len && a->in[sch.len] == ':') {
        /* Nothing for a browser to strip: the scheme is the text before
           the ":". A row or overlay entry matches only valid scheme
           characters, so no other check is needed. */
        bool d = (a->row != NULL && (a->row->bits & SCHEME_DANGEROUS)) ||
                 (a->ov != NULL && a->ov->n_dangerous > 0 &&
                  urisan_scheme_dangerous(a->ov, a->in, sch.len));
        return d ? F(DANGEROUS_SCHEME) : 0;
    }
    return scheme_dangerous(a->in, a->len, a->ov) ? F(DANGEROUS_SCHEME) : 0;
}

static urisan_flags port_flags(const char *in, const urisan_uri *uri, const scheme_overlay *ov)
{
    urisan_span p = uri->port;
    if (p.off == URISAN_ABSENT || p.len == 0)
        return 0; /* no port or "host:" - never flagged */
    uint32_t v = 0;
    for (size_t i = 0; i < p.len; i++) {
        unsigned char c = (unsigned char)in[p.off + i];
        if (!cc_is(c, CC_DIGIT))
            return 0; /* not all digits: only invalid */
        if (v <= 0xFFFFFF)
            v = v * 10 + (uint32_t)(c - '0'); /* saturates well above 65535 */
    }
    int def = -1;
    if (uri->scheme.off != URISAN_ABSENT)
        def = urisan_scheme_port(ov, in + uri->scheme.off, uri->scheme.len);
    /* numeric compare: ":080" is 80 for http */
    if (def >= 0 && v == (uint32_t)def)
        return 0;
    urisan_flags f = F(NONDEFAULT_PORT);
    if (v <= 1023) /* well-known ports: cross-protocol space (RFC 3986 7.2) */
        f |= F(RESERVED_PORT);
    return f;
}

/* userinfo: what precedes the authority's last "@" (SPEC 2); an empty
   one counts. password: a ":" in it, even with nothing after. Then the
   port. */
static urisan_flags userinfo_port_rules(const analysis *a)
{
    urisan_flags f = 0;
    urisan_span ui = a->u->userinfo;
    if (ui.off != URISAN_ABSENT) {
        f |= F(USERINFO);
        if (memchr(a->in + ui.off, ':', ui.len) != NULL)
            f |= F(PASSWORD);
    }
    return f | port_flags(a->in, a->u, a->ov);
}

/* userinfo, password: a userinfo; the port flags: a port of some digits. */
static inline urisan_flags an_userinfo_port(const analysis *a)
{
    if (a->u->userinfo.off == URISAN_ABSENT && (a->u->port.off == URISAN_ABSENT || a->u->port.len == 0))
        return 0;
    return userinfo_port_rules(a);
}

/* ------------------------------------------------------------------ */
/* ambiguous_authority (SPEC 3)                                         */
/* ------------------------------------------------------------------ */

/* Does the parse's own authority hold for the one of Appendix B that
   starts at as (after "//")? A valid parse of an input without odd bytes
   ends it where the path starts, has one "@" at most and no "\\", TAB, CR
   or LF in it. */
static bool parsed_authority(const analysis *a, size_t as)
{
    const urisan_uri *u = a->u;
    return !(a->sum & SCAN_ODD) && u->valid && u->host.off != URISAN_ABSENT &&
           u->host.off >= as && u->path.off != URISAN_ABSENT &&
           u->path.off >= u->host.off + u->host.len;
}

/* The rules on the authority of RFC 3986 Appendix B: after "//" at as,
   up to "/", "?" or "#". */
static bool authority_ambiguous(const analysis *a, size_t as)
{
    const char *in = a->in;
    size_t len = a->len, ae = len;
    if (parsed_authority(a, as)) {
        ae = a->u->path.off;
    } else {
        size_t ats = 0;
        for (size_t j = as; j < len; j++) {
            unsigned char c = (unsigned char)in[j];
            if (cc_is(c, CC_AUTHEND)) {
                ae = j;
                break;
            }
            if (c == '@')
                ats++;
            /* "\" ends the authority for browsers; TAB/CR/LF are removed */
            if (c == '\\' || cc_is(c, CC_TABNL))
                return true;
        }
        if (ats > 1)
            return true;
    }
    /* "http://a#@b", "http://a?@b/": an "@" after the "?" or "#" that
       ends the authority, before the next "/", is a userinfo for parsers
       that end the authority elsewhere */
    if (ae < len && in[ae] != '/') {
        for (size_t j = ae + 1; j < len && in[j] != '/'; j++)
            if (in[j] == '@')
                return true;
    }
    /* "file://C:/x", "file://c|/x": a drive letter, not a host */
    return a->kind == SCHEME_FILE && ae - as == 2 && cc_is((unsigned char)in[as], CC_ALPHA) &&
           (in[as + 1] == ':' || in[as + 1] == '|');
}

/* The rules on the run of "/" and "\" right after "scheme:" (or at the
   start): browsers read "\" as "/", and each kind of scheme reads its own
   number of slashes as "an authority follows". *nslash gets the run of
   "/" alone. */
static bool slashes_ambiguous(const analysis *a, size_t r, size_t *nslash)
{
    const char *in = a->in;
    size_t len = a->len, k = r, nback = 0, lead;
    while (k < len && in[k] == '/')
        k++;
    lead = k - r;
    *nslash = lead;
    /* then "\" and "/" mixed; without odd bytes there is no "\" */
    while ((a->sum & SCAN_ODD) && k < len && (in[k] == '/' || in[k] == '\\')) {
        if (in[k] == '\\')
            nback++;
        k++;
    }
    /* "http:\\a", "http:/\a", "\/\/a" */
    if (k - r >= 2 && nback > 0)
        return true;
    switch (a->kind) {
    case SCHEME_SPECIAL:
        /* http, https, ws, wss, ftp not followed by exactly "//":
           browsers skip any number of slashes, RFC 3986 does not */
        return !(lead == 2 && k - r == 2);
    case SCHEME_FILE:
        /* "file:////host/share" is a UNC path on Windows (RFC 8089 E.3.2) */
        return lead >= 4;
    case SCHEME_OTHER:
        /* curl reads an authority after "x:/" and "x:///"; RFC 3986 and
           WHATWG do not ("dict:///127.0.0.1:11211/", "mailto:/a@b") */
        return lead == 1 || lead >= 3;
    default:
        /* a reference starting "///", "/\" or "\\" */
        return lead >= 3;
    }
}

/*
 * Could RFC 3986, WHATWG/browsers, curl, Python and Go disagree on the
 * host? Judged on the raw input; every rule is one SPEC 3 bullet.
 */
static bool an_ambiguous(const analysis *a)
{
    const char *in = a->in;
    const urisan_uri *uri = a->u;
    size_t r = a->kind == SCHEME_NONE ? 0 : uri->scheme.off + uri->scheme.len + 1;
    if (r > a->len)
        r = a->len;
    size_t nslash;
    if (slashes_ambiguous(a, r, &nslash))
        return true;
    if (nslash >= 2 && authority_ambiguous(a, r + 2))
        return true;
    urisan_span host = uri->host;
    if (host.off == URISAN_ABSENT || host.len == 0)
        return false;
    const char *h = in + host.off;
    if ((a->sum & SCAN_PCT) && h[0] != '[' && uri->host_type != URISAN_HOST_IPV4) {
        /* any escape in a name: "%2f", "%23", "%00", "%67oogle.com" -
           some parsers decode it, some refuse, some split on it */
        for (size_t j = 0; j < host.len; j++)
            if (is_escape_at(h, host.len, j))
                return true;
    }
    /* "file://localhost/" and "file://127.0.0.1/": local file or host? */
    return a->kind == SCHEME_FILE && (urisan_ieq(h, host.len, "localhost") ||
                                      (host.len == 9 && memcmp(h, "127.0.0.1", 9) == 0));
}
