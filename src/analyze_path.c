/*
 * analyze_path.c - the flags of the path (SPEC 3; RFC 3986 5.2.4):
 * dot_segments, encoded_dot, dot_above_root. A segment is judged by the
 * one dot-segment rule (urisan_dot_segment, shared with dots.c).
 */
#include "analysis.h"

/*
 * Segments are separated by "/" only. dot_above_root: a path that starts
 * with "/" has a root; RFC 3986 5.2.4 step 2C pops the last output segment
 * for each ".."; a ".." with nothing left to pop climbs above the root. A
 * depth counter judges that in one pass ("." keeps the depth, every other
 * segment - empty ones too - pushes one).
 */
static urisan_flags scan_path(const char *in, urisan_span path)
{
    urisan_flags f = 0;
    size_t s = path.off, end = path.off + path.len;
    bool rooted = path.len > 0 && in[s] == '/';
    size_t depth = 0;
    if (rooted)
        s++; /* the root itself is no segment */
    for (;;) {
        size_t e = s;
        while (e < end && in[e] != '/')
            e++;
        bool enc = false;
        int d = urisan_dot_segment(in + s, e - s, true, &enc);
        if (d > 0) {
            f |= F(DOT_SEGMENTS);
            if (enc)
                f |= F(ENCODED_DOT);
        }
        if (d == 2) {
            if (depth == 0) {
                if (rooted)
                    f |= F(DOT_ABOVE_ROOT);
            } else {
                depth--;
            }
        } else if (d == 0) {
            depth++;
        }
        if (e >= end)
            break;
        s = e + 1;
    }
    return f;
}

static urisan_flags path_rules(const analysis *a)
{
    urisan_span p = a->u->path; /* present (an_path) */
    /* Without "%", a dot segment starts with a raw "." at the start of
       the path or right after a "/": no such place, no dot flag. */
    if (!(a->sum & SCAN_PCT) && !(p.len > 0 && a->in[p.off] == '.') &&
        !pair_in(a->in, a->len, p.off, p.off + p.len, '/', '.'))
        return 0;
    return scan_path(a->in, p);
}

/* A dot segment starts at the start of the path or after a "/", with a
   "." or (%2e) a "%". */
static inline urisan_flags an_path(const analysis *a)
{
    urisan_span p = a->u->path;
    if (p.off == URISAN_ABSENT ||
        !((a->sum & (SCAN_PCT | SCAN_SLASH_DOT)) || (p.len > 0 && a->in[p.off] == '.')))
        return 0;
    return path_rules(a);
}
