/*
 * dotseg.h - the dot-segment rule (RFC 3986 5.2.4; urisan(1), FLAGS),
 * written once for remove_dot_segments (dots.c) and the dot flags of the
 * analysis (analyze_path.h).
 *
 * A path is read as two pieces a ++ b (a rope), so resolution can work on
 * the 5.2.3 merge (base directory ++ reference path) without copying it;
 * the analysis reads one piece (b empty).
 */
#ifndef URISAN_DOTSEG_H
#define URISAN_DOTSEG_H

#include "internal.h"

#include <stdint.h>

typedef struct {
    const char *a, *b;
    size_t alen, n;
} rope;

static inline unsigned char at(const rope *r, size_t i)
{
    return (unsigned char)(i < r->alen ? r->a[i] : r->b[i - r->alen]);
}

/* A valid "%" HEXDIG HEXDIG starting at i and ending by e (2.1). */
static inline bool esc_at(const rope *r, size_t i, size_t e)
{
    return i + 2 < e && at(r, i) == '%' && cc_is(at(r, i + 1), CC_HEX) &&
           cc_is(at(r, i + 2), CC_HEX);
}

enum { SEG_NORMAL, SEG_DOT, SEG_DOTDOT };

/*
 * Classify the segment [s, e). "." and ".." are complete segments only
 * (5.2.4; "..g" and "g." are ordinary). With pct, "%2e" counts as a dot:
 * it is the unreserved "." (2.3) and 6.2.2.2 decodes it, so a server that
 * decodes first sees a dot segment (encoded_dot, doc/policy.md). At most three
 * iterations: the loop gives up at the third unit. *enc: a "%2e" was used
 * (set only for a dot segment).
 */
static inline int seg_kind(const rope *r, size_t s, size_t e, bool pct, bool *enc)
{
    size_t dots = 0, i = s;
    bool pc = false;

    while (i < e) {
        if (dots == 2)
            return SEG_NORMAL;
        if (at(r, i) == '.') {
            dots++;
            i++;
        } else if (pct && esc_at(r, i, e) && at(r, i + 1) == '2' &&
                   (at(r, i + 2) | 0x20) == 'e') {
            dots++;
            i += 3;
            pc = true;
        } else {
            return SEG_NORMAL;
        }
    }
    if (dots == 0)
        return SEG_NORMAL;
    *enc = pc;
    return dots == 1 ? SEG_DOT : SEG_DOTDOT;
}

/* What a left-to-right walk over segments saw (dot_walk). */
typedef struct {
    size_t depth;       /* the RFC's stack depth at the end */
    size_t first_above; /* index of the first ".." with nothing to pop, or SIZE_MAX */
    bool dots;          /* some "." or ".." segment */
    bool pct;           /* one of them used "%2e" */
} dot_walk_res;

/*
 * The RFC's own direction, counting only: the segments that start in
 * [lo, stop), separated by "/" ("." keeps the depth, ".." pops one when
 * there is one, every other segment - empty ones too - pushes one).
 * stop = n + 1 takes the final segment after a trailing "/" too.
 */
static inline void dot_walk(const rope *r, size_t lo, size_t stop, bool pct, dot_walk_res *o)
{
    size_t i = lo;

    o->depth = 0;
    o->first_above = SIZE_MAX;
    o->dots = o->pct = false;
    while (i < stop) {
        size_t e = i;
        while (e < r->n && at(r, e) != '/')
            e++;
        bool enc = false;
        int kind = seg_kind(r, i, e, pct, &enc);
        if (kind == SEG_NORMAL) {
            o->depth++;
        } else {
            o->dots = true;
            o->pct = o->pct || enc;
            if (kind == SEG_DOTDOT) {
                if (o->depth > 0)
                    o->depth--;
                else if (o->first_above == SIZE_MAX)
                    o->first_above = i;
            }
        }
        if (e >= r->n)
            break;
        i = e + 1;
    }
}

#endif
