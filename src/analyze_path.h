/*
 * analyze_path.h - the flags of the path and its dot segments
 * (urisan(1), FLAGS; RFC 3986 5.2.4): dot_segments, encoded_dot,
 * dot_above_root. What a dot segment is, and how ".." pops, is dotseg.h's
 * rule, the one remove_dot_segments (dots.c) uses. Part of the analysis' one
 * translation unit (analyze.h).
 */
#ifndef URISAN_ANALYZE_PATH_H
#define URISAN_ANALYZE_PATH_H

#include "analyze.h"
#include "dotseg.h"

/*
 * Segments are separated by "/" only; "%2e" counts as a dot (a server
 * that decodes first sees one). dot_above_root: a path that starts with
 * "/" has a root; a ".." with nothing left to pop climbs above it.
 */
static urisan_flags scan_path(const char *in, urisan_span path)
{
    rope r = {in + path.off, "", path.len, path.len};
    bool rooted = path.len > 0 && in[path.off] == '/';
    dot_walk_res w;
    /* the root itself is no segment; the last one may follow a final "/" */
    dot_walk(&r, rooted ? 1 : 0, r.n + 1, true, &w);
    urisan_flags f = 0;
    if (w.dots)
        f |= F(DOT_SEGMENTS);
    if (w.pct)
        f |= F(ENCODED_DOT);
    if (rooted && w.first_above != SIZE_MAX)
        f |= F(DOT_ABOVE_ROOT);
    return f;
}

/*
 * double_slash_path: the path starts with two of "/" and "\". Valid RFC
 * 3986 after an authority ("http://h//169.254.169.254/"), but an origin
 * server that reads its request-target as a reference against its own
 * URL - WHATWG `new URL(req.url, base)`, Python's urljoin, a redirect to
 * the target - reads a network-path reference: another host (CPython's
 * http.server, CVE-2021-28861). "\" is "/" to the WHATWG parser.
 *
 * The path's flags. A dot segment starts with "." or "%2e" at the start
 * of the path or right after a "/": no such place, no dot flag. pre
 * (PRE_*): the prefilter saw no "/" followed by "." in the whole input
 * (then only the path's first byte can start one: the input is plain).
 */
static ANALYZE_INLINE urisan_flags path_flags(const char *in, urisan_span path, unsigned pre)
{
    if (!(pre & PRE_PLAIN) && path.off == URISAN_ABSENT)
        return 0;
    urisan_flags f = 0;
    if (path.len >= 2) {
        /* a plain input is valid: no "\\" in it; "//" is one 16-bit load */
        const char *p = in + path.off;
        uint16_t two;
        memcpy(&two, p, 2);
        if ((pre & PRE_PLAIN) ? two == (uint16_t)('/' * 0x101)
                              : (p[0] == '/' || p[0] == '\\') && (p[1] == '/' || p[1] == '\\'))
            f = F(DOUBLE_SLASH_PATH);
    }
    bool maybe = (pre & PRE_NO_SLASH_DOT) ? path.len > 0 && in[path.off] == '.'
                                          : simd_dot_candidates(in + path.off, path.len, true);
    return maybe ? f | scan_path(in, path) : f;
}

#endif
