/*
 * analyze_path.h - the flags of the path and its dot segments (SPEC 3;
 * RFC 3986 5.2.4): dot_segments, encoded_dot, dot_above_root. What a dot
 * segment is, and how ".." pops, is dotseg.h's rule, the one
 * remove_dot_segments (dots.c) uses. Part of the analysis' one
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
 * The path's flags. A dot segment starts with "." or "%2e" at the start
 * of the path or right after a "/": no such place, no dot flag. pre
 * (PRE_*): the prefilter saw no "/" followed by "." in the whole input
 * (then only the path's first byte can start one: the input is plain).
 */
static ANALYZE_INLINE urisan_flags path_flags(const char *in, urisan_span path, unsigned pre)
{
    if (!(pre & PRE_PLAIN) && path.off == URISAN_ABSENT)
        return 0;
    bool maybe = (pre & PRE_NO_SLASH_DOT) ? path.len > 0 && in[path.off] == '.'
                                          : simd_dot_candidates(in + path.off, path.len, true);
    return maybe ? scan_path(in, path) : 0;
}

#endif
