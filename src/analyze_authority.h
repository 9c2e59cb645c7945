/*
 * analyze_authority.h - the flags of the authority (urisan(1), FLAGS):
 * userinfo, password, and ambiguous_authority - could RFC 3986,
 * WHATWG/browsers, curl, Python and Go disagree on the host? Judged on the
 * raw input; every rule is one bullet of doc/policy.md's list. Part of the
 * analysis' one translation unit (analyze.h).
 */
#ifndef URISAN_ANALYZE_AUTHORITY_H
#define URISAN_ANALYZE_AUTHORITY_H

#include "analyze.h"

/* userinfo: what precedes the authority's last "@" (doc/policy.md); an
   empty one counts. password: a ":" in it, even with nothing after. */
static ANALYZE_INLINE urisan_flags userinfo_flags(const char *in, urisan_span ui)
{
    if (ui.off == URISAN_ABSENT)
        return 0;
    urisan_flags f = F(USERINFO);
    if (memchr(in + ui.off, ':', ui.len) != NULL)
        f |= F(PASSWORD);
    return f;
}

/*
 * The run of "/" (and "\") right after "scheme:" (or at the start) at
 * in[r..): ambiguous already from its shape? *nslash: the leading "/".
 * Without a "\" in the input (cls has no SCAN_ODD) the run is the
 * leading "/" only.
 */
static ANALYZE_INLINE bool slashes_ambiguous(const char *in, size_t len, size_t r, int kind,
                                             unsigned cls, size_t *nslash)
{
    size_t lead = 0, run;
    if (!(cls & SCAN_ODD)) {
        if (r + 3 <= len && in[r] == '/' && in[r + 1] == '/' && in[r + 2] != '/')
            lead = 2; /* the usual "//" before an authority */
        else
            while (r + lead < len && in[r + lead] == '/')
                lead++;
        run = lead;
    } else {
        size_t k = r, nback = 0;
        while (k < len && (in[k] == '/' || in[k] == '\\')) {
            if (in[k] == '\\')
                nback++;
            k++;
        }
        run = k - r;
        while (r + lead < len && in[r + lead] == '/')
            lead++;
        /* "http:\\a", "http:/\a", "\/\/a": browsers read "\" as "/" */
        if (run >= 2 && nback > 0)
            return true;
    }
    *nslash = lead;
    switch (kind) {
    case SCH_SPECIAL:
        /* http, https, ws, wss, ftp not followed by exactly "//":
           browsers skip any number of slashes, RFC 3986 does not */
        return !(lead == 2 && run == 2);
    case SCH_FILE:
        /* "file:////host/share" is a UNC path on Windows (RFC 8089 E.3.2) */
        return lead >= 4;
    case SCH_OTHER:
        /* curl reads an authority after "x:/" and "x:///"; RFC 3986 and
           WHATWG do not ("dict:///127.0.0.1:11211/", "mailto:/a@b") */
        return lead == 1 || lead >= 3;
    default:
        /* a reference starting "///", "/\" or "\\" */
        return lead >= 3;
    }
}

/* "http://a#@b", "http://a?@b/": an "@" after the "?" or "#" that ends
   the authority at in[ae], before the next "/", is a userinfo for
   parsers that end the authority elsewhere. it: the special bytes after
   in[ae] (scan.h), or NULL to start a walk there. */
static ANALYZE_INLINE bool at_after_end(const char *in, size_t len, size_t ae, scan_iter *it)
{
    if (ae >= len || in[ae] == '/')
        return false;
    scan_iter fresh;
    if (it == NULL) {
        scan_init_at(&fresh, in, len, ae + 1);
        it = &fresh;
    }
    for (size_t j; (j = scan_pop(it)) < len && in[j] != '/';)
        if (in[j] == '@')
            return true;
    return false;
}

/*
 * The authority of RFC 3986 Appendix B: after "//" at as, up to / ? #.
 * Every byte these rules look at is special (scan.h): walk those only.
 * A valid input without odd bytes needs no walk: its authority is the
 * parse's (it ends where the path starts), with at most one "@" and no
 * "\", TAB, CR or LF.
 */
static ANALYZE_INLINE bool authority_ambiguous(const char *in, size_t len, const urisan_uri *u,
                                               size_t as, int kind, unsigned cls, unsigned pre)
{
    size_t ae = len, ats = 0;
    scan_iter it, *after = NULL;
    if (((pre & PRE_PLAIN) || (u->valid && cls == 0)) && u->host.off != URISAN_ABSENT &&
        u->host.off >= as && u->path.off >= as) {
        ae = u->path.off;
    } else {
        after = &it;
        scan_init_at(&it, in, len, as);
        for (size_t j; (j = scan_pop(&it)) < len;) {
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
    if (at_after_end(in, len, ae, after))
        return true;
    /* "file://C:/x", "file://c|/x": a drive letter, not a host */
    return kind == SCH_FILE && ae - as == 2 && cc_is((unsigned char)in[as], CC_ALPHA) &&
           (in[as + 1] == ':' || in[as + 1] == '|');
}

/* The host's part: an escape in a name ("%2f", "%23", "%00",
   "%67oogle.com" - some parsers decode it, some refuse, some split on
   it); "file://localhost/" and "file://127.0.0.1/": local file or host? */
static ANALYZE_INLINE bool host_ambiguous(const char *in, const urisan_uri *u, int kind,
                                          unsigned cls)
{
    urisan_span host = u->host;
    if ((!(cls & SCAN_PCT) && kind != SCH_FILE) || host.off == URISAN_ABSENT || host.len == 0)
        return false;
    const char *h = in + host.off;
    if ((cls & SCAN_PCT) && h[0] != '[' && u->host_type != URISAN_HOST_IPV4) {
        for (size_t j = 0; j < host.len; j++)
            if (is_escape_at(h, host.len, j))
                return true;
    }
    /* both names are 9 bytes long: most hosts need no compare */
    return kind == SCH_FILE && host.len == 9 &&
           (urisan_ieq(h, host.len, "localhost") || memcmp(h, "127.0.0.1", 9) == 0);
}

/* ambiguous_authority (doc/policy.md). si: the parsed scheme's kind and end. */
static ANALYZE_INLINE bool ambiguous(const char *in, size_t len, const urisan_uri *u,
                                     const scheme_info *si, unsigned cls, unsigned pre)
{
    int kind = si->kind;
    size_t r = si->after, nslash = 0;
    if (slashes_ambiguous(in, len, r, kind, cls, &nslash))
        return true;
    if (nslash >= 2 && authority_ambiguous(in, len, u, r + 2, kind, cls, pre))
        return true;
    return host_ambiguous(in, u, kind, cls);
}

#endif
