/*
 * dots.c - RFC 3986 5.2.4 remove_dot_segments, linear, without a stack.
 *
 * The RFC describes the algorithm as string rewriting on an input and an
 * output buffer; done literally (or with repeated search-and-replace) it
 * is quadratic on "/../../.." and needs a scratch buffer. We compute the
 * same result by reading the segments right to left with one counter:
 * a ".." makes the next kept segment to its left disappear, so a segment
 * survives exactly when no unmatched ".." is pending when we reach it.
 * That is bracket matching, the same answer the RFC's left-to-right
 * stack gives, in O(n) time and O(1) space.
 *
 * Two passes: the first counts (length, popped-above-root count, shape),
 * the second writes backwards from the end of the already-known length,
 * so the caller's buffer is the only memory touched and *needed can be
 * reported without writing anything.
 *
 * The path is given as two pieces a ++ b, so resolution can run on the
 * 5.2.3 merge (base directory ++ reference path) without copying it.
 * What a dot segment is, and the left-to-right depth count, are
 * dotseg.h's (shared with the analysis' dot flags).
 */
#include "internal.h"
#include "dotseg.h"
#include "simd.h"

#include <stdint.h>
#include <string.h>

static inline unsigned char upper_hex(unsigned char c)
{
    return (c >= 'a' && c <= 'f') ? (unsigned char)(c - ('a' - 'A')) : c;
}

/*
 * Output form of the segment [s, e): a copy, or with normesc the 6.2.2.1
 * / 6.2.2.2 normal form (escapes of unreserved characters decoded, other
 * escapes with upper-case hex). Returns the length; writes when w != NULL.
 */
static size_t seg_out(const rope *r, size_t s, size_t e, bool normesc, char *w)
{
    size_t k = 0;

    if (!normesc) {
        if (w != NULL)
            for (size_t i = s; i < e; i++)
                w[k++] = (char)at(r, i);
        return e - s;
    }
    for (size_t i = s; i < e;) {
        if (esc_at(r, i, e)) {
            unsigned char hi = at(r, i + 1), lo = at(r, i + 2);
            unsigned char v = (unsigned char)(hexval(hi) * 16 + hexval(lo));
            if (cc_is(v, CC_UNRES)) {
                if (w != NULL)
                    w[k] = (char)v;
                k++;
            } else {
                if (w != NULL) {
                    w[k] = '%';
                    w[k + 1] = (char)upper_hex(hi);
                    w[k + 2] = (char)upper_hex(lo);
                }
                k += 3;
            }
            i += 3;
        } else {
            if (w != NULL)
                w[k] = (char)at(r, i);
            k++;
            i++;
        }
    }
    return k;
}

typedef struct {
    size_t body;        /* sum of 1 + len over kept segments ("/" seg) */
    size_t emitted;     /* kept segments */
    size_t skip;        /* ".." left unmatched at the left end */
    size_t lm_s, lm_e;  /* the leftmost kept segment */
    bool first_kept;    /* the region's first segment was kept */
    bool dots, pct;
} walk_res;

static void emit(const rope *r, size_t s, size_t e, bool normesc, char **w,
                 size_t total, bool rootless, walk_res *o)
{
    size_t k = seg_out(r, s, e, normesc, NULL);

    o->emitted++;
    o->body += 1 + k;
    o->lm_s = s;
    o->lm_e = e;
    if (*w != NULL) {
        *w -= k;
        (void)seg_out(r, s, e, normesc, *w);
        /* Every kept segment is "/" seg, except the first one of a
           rootless result ("a/b", not "/a/b"). */
        if (!(rootless && o->emitted == total)) {
            *w -= 1;
            **w = '/';
        }
    }
}

/*
 * One right-to-left pass over the segments of the region [lo, n).
 * wend == NULL counts; otherwise writes backwards ending at wend, using
 * total (kept segments, from the counting pass) to spot the leftmost.
 */
static void walk(const rope *r, size_t lo, unsigned mode, bool kept_last,
                 char *wend, size_t total, bool rootless, walk_res *o)
{
    bool pct = (mode & URISAN_DOTS_PCT2E) != 0;
    bool normesc = (mode & URISAN_DOTS_NORMESC) != 0;
    size_t pos = r->n;
    bool rightmost = true;
    char *w = wend;

    memset(o, 0, sizeof *o);
    for (;;) {
        size_t s = pos;
        while (s > lo && at(r, s - 1) != '/')
            s--;
        bool enc = false;
        int kind = seg_kind(r, s, pos, pct, &enc);
        if (kind != SEG_NORMAL) {
            o->dots = true;
            o->pct = o->pct || enc;
            /* 5.2.4 B and C: a final "/." or "/.." is replaced by "/",
               which step E then moves to the output: an empty last
               segment ("/a/b/.." -> "/a/"). A final ".." that is kept
               (keep mode) stays as it is: the seed draft's step 6 only
               removes "<segment>/.." ("/.." stays "/.."). */
            if (rightmost && !(kind == SEG_DOTDOT && kept_last))
                emit(r, pos, pos, normesc, &w, total, rootless, o);
        }
        rightmost = false;
        if (kind == SEG_DOTDOT) {
            o->skip++;
        } else if (kind == SEG_NORMAL) {
            if (o->skip > 0) {
                o->skip--; /* 5.2.4 C: popped by a ".." to its right */
            } else {
                emit(r, s, pos, normesc, &w, total, rootless, o);
                if (s == lo)
                    o->first_kept = true;
            }
        }
        if (s == lo)
            break;
        pos = s - 1; /* step over the "/" */
    }
}

/*
 * KEEP on a rootless path: the first empty segment that is pushed while
 * nothing is kept and nothing is pending ("t/..//x", ".//x") becomes a
 * root, as it does in the draft's string rewriting. Not when it is the
 * last segment ("t/../" -> "", no root). *p: its index (a "/").
 */
static bool keep_root(const rope *r, bool pct, size_t *p)
{
    size_t depth = 0, kept = 0, i = 0;

    for (;;) {
        size_t e = i;
        while (e < r->n && at(r, e) != '/')
            e++;
        if (e >= r->n)
            return false;
        bool enc = false;
        int kind = seg_kind(r, i, e, pct, &enc);
        if (kind == SEG_NORMAL) {
            if (e == i && depth == 0 && kept == 0) {
                *p = i;
                return true;
            }
            depth++;
        } else if (kind == SEG_DOTDOT) {
            if (depth > 0)
                depth--;
            else
                kept++;
        }
        i = e + 1;
    }
}

static bool has_colon(const rope *r, size_t s, size_t e)
{
    for (size_t i = s; i < e; i++)
        if (at(r, i) == ':')
            return true;
    return false;
}

/* Is any segment "." or ".." (a segment can only be one if it starts
   with "." or "%")? One forward pass. */
static bool has_dot_segment(const rope *r, bool pct)
{
    size_t i = 0;

    for (;;) {
        size_t e = i;
        while (e < r->n && at(r, e) != '/')
            e++;
        unsigned char c = i < r->n ? at(r, i) : 0;
        if (c == '.' || (pct && c == '%')) {
            bool enc = false;
            if (seg_kind(r, i, e, pct, &enc) != SEG_NORMAL)
                return true;
        }
        if (e >= r->n)
            return false;
        i = e + 1;
    }
}

/* SWAR on 8 bytes (any byte order): */
static inline uint64_t load8(const char *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}

static inline void store8(char *p, uint64_t x)
{
    memcpy(p, &x, 8);
}

#define ONES8 ((uint64_t)0x0101010101010101u)
#define HIGH8 ((uint64_t)0x8080808080808080u)

/* Some byte of x is c. */
static inline bool has_byte8(uint64_t x, unsigned char c)
{
    uint64_t v = x ^ (ONES8 * c);
    return ((v - ONES8) & ~v & HIGH8) != 0;
}

/* x with "A"-"Z" lower-cased (lower_ascii on each byte). Per byte on its
   low 7 bits: + 0x3F sets bit 7 from "A" up, + 0x25 from "[" up; no sum
   carries into the next byte. */
static inline uint64_t lower8(uint64_t x)
{
    uint64_t h = x & ~HIGH8;
    uint64_t ge_a = h + ONES8 * 0x3F;
    uint64_t gt_z = h + ONES8 * 0x25;
    uint64_t up = ge_a & ~gt_z & ~x & HIGH8;
    return x | (up >> 2);
}

/* A cheap filter before has_dot_segment: simd_dot_candidates (simd.h). */
static bool dot_candidates(const char *p, size_t n, bool start)
{
    return simd_dot_candidates(p, n, start);
}

/* Output of one piece: a copy, or its escape-normal form. */
static size_t piece_out(const char *p, size_t n, bool normesc, char *w)
{
    if (normesc)
        return urisan_norm_escapes(p, n, 0, w);
    if (w != NULL && n)
        memcpy(w, p, n);
    return n;
}

/*
 * The common case, no dot segment at all: the path is written as it is
 * (escape-normalised with NORMESC), after the same guards as below: "/."
 * before "//" without an authority, "./" before a first segment with ":"
 * in a relative-path reference. The pieces are a ("" or ending in "/")
 * and b, so no escape spans them.
 */
static inline void copy_through(const rope *r, unsigned mode, char *out, size_t cap,
                                urisan_dots_info *info)
{
    bool normesc = (mode & URISAN_DOTS_NORMESC) != 0;
    const char *pre = "";
    size_t prelen = 0;

    if (at(r, 0) == '/') {
        if ((mode & URISAN_DOTS_NOAUTH) && r->n >= 2 && at(r, 1) == '/') {
            pre = "/.";
            prelen = 2;
        }
    } else if ((mode & URISAN_DOTS_MODE) == URISAN_DOTS_RELREF) {
        size_t e = 0;
        while (e < r->n && at(r, e) != '/')
            e++;
        if (has_colon(r, 0, e)) {
            pre = "./";
            prelen = 2;
        }
    }
    if (out != NULL && prelen + r->n <= cap) {
        /* The escape-normal form is never longer than the text: write in
           one pass, out[0..len) only. */
        if (prelen)
            memcpy(out, pre, prelen);
        size_t la = piece_out(r->a, r->alen, normesc, out + prelen);
        size_t lb = piece_out(r->b, r->n - r->alen, normesc, out + prelen + la);
        info->len = prelen + la + lb;
        return;
    }
    size_t la = piece_out(r->a, r->alen, normesc, NULL);
    size_t lb = piece_out(r->b, r->n - r->alen, normesc, NULL);
    info->len = prelen + la + lb;
    if (out == NULL || info->len > cap)
        return;
    if (prelen)
        memcpy(out, pre, prelen);
    piece_out(r->a, r->alen, normesc, out + prelen);
    piece_out(r->b, r->n - r->alen, normesc, out + prelen + la);
}

#if defined(__GNUC__)
#define DOTS_NOINLINE __attribute__((noinline))
#else
#define DOTS_NOINLINE
#endif

/*
 * RFC mode on a rootless path: 5.2.4 A and D remove leading "../" and
 * "./", and a lone "." or "..". Each such ".." climbs above the start of
 * the path (counted in *stripped). Returns where what is left starts
 * (r->n: nothing is left).
 */
static size_t rfc_strip_leading(const rope *r, bool pct, urisan_dots_info *info,
                                size_t *stripped)
{
    size_t i = 0;

    for (;;) {
        size_t e = i;
        while (e < r->n && at(r, e) != '/')
            e++;
        bool enc = false;
        int kind = seg_kind(r, i, e, pct, &enc);
        if (kind == SEG_NORMAL)
            return i;
        info->dots = true;
        info->pct_dot = info->pct_dot || enc;
        if (kind == SEG_DOTDOT) {
            if (*stripped == 0)
                info->first_above = i;
            (*stripped)++;
        }
        if (e == r->n)
            return r->n;
        i = e + 1;
    }
}

/* Where the segments to walk start (*lo) and whether a root precedes
   them (*rooted). false: nothing is left (the empty path). */
static bool region_start(const rope *r, unsigned mode, urisan_dots_info *info, size_t *lo,
                         bool *rooted, size_t *stripped)
{
    unsigned m = mode & URISAN_DOTS_MODE;
    bool pct = (mode & URISAN_DOTS_PCT2E) != 0;

    *lo = 0;
    *rooted = false;
    *stripped = 0;
    if (at(r, 0) == '/') {
        *rooted = true;
        *lo = 1;
    } else if (m == URISAN_DOTS_RFC) {
        /* If what is left starts with "/" (".//g" -> "/g"), the rest is
           processed as an absolute path. */
        size_t i = rfc_strip_leading(r, pct, info, stripped);
        info->above = *stripped;
        if (i == r->n)
            return false;
        *rooted = at(r, i) == '/';
        *lo = *rooted ? i + 1 : i;
    } else if (m == URISAN_DOTS_KEEP) {
        /* The seed draft works on the string: once "t/../" is removed
           from "t/..//x", what is left, "/x", is an absolute path whose
           root no later ".." can remove ("t/..//../x" -> "/../x"). */
        size_t p;
        if (keep_root(r, pct, &p)) {
            *rooted = true;
            *lo = p + 1;
        }
    }
    return true;
}

/* Keep modes: is the last segment a ".." with nothing to pop? */
static bool last_dotdot_kept(const rope *r, size_t lo, bool pct)
{
    size_t ls = r->n;
    while (ls > lo && at(r, ls - 1) != '/')
        ls--;
    bool enc = false;
    if (seg_kind(r, ls, r->n, pct, &enc) != SEG_DOTDOT)
        return false;
    dot_walk_res d;
    dot_walk(r, lo, ls, pct, &d);
    return d.depth == 0;
}

/* Shape of the result: pre repeated prerep times ++ kept segments. */
typedef struct {
    const char *pre;
    size_t prerep;
    bool rootless;
} dots_shape;

static void result_shape(const rope *r, unsigned mode, bool rooted_in, const walk_res *w1,
                         dots_shape *sh)
{
    unsigned m = mode & URISAN_DOTS_MODE;
    bool starts_empty = w1->lm_s == w1->lm_e; /* first kept segment is "" */
    bool noauth = (mode & URISAN_DOTS_NOAUTH) != 0;

    sh->pre = "";
    sh->prerep = 0;
    if (rooted_in || (m == URISAN_DOTS_RFC && !w1->first_kept)) {
        /* Absolute result. In the RFC mode a rootless path whose first
           segment is popped becomes absolute: 5.2.4 C removes "a" of
           "a/../b" and E then moves "/b" ("foo:a/../b" -> "foo:/b"). */
        sh->rootless = false;
        if (m == URISAN_DOTS_KEEP && rooted_in && w1->skip > 0) {
            /* RFC 2396 5.2 step 6g / seed draft C.2: "/../g" stays. */
            sh->pre = "/..";
            sh->prerep = w1->skip;
        } else if (noauth && starts_empty && w1->emitted >= 2) {
            /* "//g" without an authority would re-parse with "g" as the
               host; 5.2.4 suggests the "/." prefix, which is the same
               path and idempotent under remove_dot_segments. */
            sh->pre = "/.";
            sh->prerep = 1;
        }
    } else if (m == URISAN_DOTS_RFC) {
        sh->rootless = true; /* first segment kept: "a/b" stays rootless */
    } else {
        /* KEEP and RELREF on a rootless path: a relative path's leading
           ".." are meaningful (4.2; seed draft 5.2 steps 5-7 remove
           "<segment>/../" and keep the rest) and stay in front. */
        sh->rootless = true;
        if (w1->skip > 0) {
            sh->pre = "../";
            sh->prerep = w1->skip;
        } else if (m == URISAN_DOTS_RELREF &&
                   (starts_empty || has_colon(r, w1->lm_s, w1->lm_e))) {
            /* A reference without scheme and authority: a first segment
               "" would make it "/x" (absolute, or "//x", an authority), a
               first segment with ":" would read as a scheme (4.2). "./"
               keeps the same relative path. (With a scheme, KEEP writes
               the seed draft's string as it is: "f:" + ".//g" -> "f:/g".) */
            sh->pre = "./";
            sh->prerep = 1;
        }
    }
}

/* The path has a dot segment (or the filter could not rule one out). */
static DOTS_NOINLINE void remove_dots_full(const rope *rp, unsigned mode, char *out,
                                           size_t cap, urisan_dots_info *info)
{
    rope r = *rp;
    unsigned m = mode & URISAN_DOTS_MODE;
    bool pct = (mode & URISAN_DOTS_PCT2E) != 0;
    size_t lo, stripped;
    bool rooted_in;

    if (!has_dot_segment(&r, pct)) {
        copy_through(&r, mode, out, cap, info);
        return;
    }
    if (!region_start(&r, mode, info, &lo, &rooted_in, &stripped))
        return; /* nothing left: the empty path */
    bool kept_last = (m == URISAN_DOTS_KEEP || (m == URISAN_DOTS_RELREF && !rooted_in)) &&
                     last_dotdot_kept(&r, lo, pct);

    walk_res w1;
    walk(&r, lo, mode, kept_last, NULL, 0, false, &w1);
    info->dots = info->dots || w1.dots;
    info->pct_dot = info->pct_dot || w1.pct;
    info->above = stripped + w1.skip;
    if (stripped == 0 && w1.skip > 0) {
        dot_walk_res d;
        dot_walk(&r, lo, r.n + 1, pct, &d);
        info->first_above = d.first_above;
    }

    dots_shape sh;
    result_shape(&r, mode, rooted_in, &w1, &sh);
    size_t prelen = strlen(sh.pre) * sh.prerep;
    /* A rootless result has no "/" before its first kept segment; when
       nothing but kept ".." remain, the last "../" loses its "/". */
    size_t bodyw = sh.rootless ? (w1.body ? w1.body - 1 : 0) : w1.body;
    if (sh.rootless && w1.body == 0 && prelen > 0)
        prelen--;
    info->len = prelen + bodyw;

    if (out == NULL || info->len > cap)
        return;
    walk_res w2;
    walk(&r, lo, mode, kept_last, out + info->len, w1.emitted, sh.rootless, &w2);
    size_t k = 0;
    for (size_t j = 0; j < sh.prerep && k < prelen; j++)
        for (const char *p = sh.pre; *p && k < prelen; p++)
            out[k++] = *p;
}

void urisan_remove_dots(const char *a, size_t alen, const char *b, size_t blen,
                        unsigned mode, char *out, size_t cap,
                        urisan_dots_info *info)
{
    rope r = { alen ? a : "", blen ? b : "", alen, alen + blen };

    memset(info, 0, sizeof *info);
    if (r.n == 0)
        return;
    /* Most paths have no dot segment. Without one the path is copied as
       it is (escape-normalised with NORMESC). A segment that starts in b
       starts at b[0] only when a is empty or ends with "/". */
    if (dot_candidates(r.a, alen, true) ||
        dot_candidates(r.b, blen, alen == 0 || r.a[alen - 1] == '/'))
        remove_dots_full(&r, mode, out, cap, info);
    else
        copy_through(&r, mode, out, cap, info);
}

bool urisan_dots_none(const char *a, size_t alen, const char *b, size_t blen)
{
    return !dot_candidates(a, alen, true) &&
           !dot_candidates(b, blen, alen == 0 || a[alen - 1] == '/');
}

void urisan_dots_copy(const char *a, size_t alen, const char *b, size_t blen,
                      unsigned mode, char *out, size_t cap, urisan_dots_info *info)
{
    rope r = { alen ? a : "", blen ? b : "", alen, alen + blen };

    memset(info, 0, sizeof *info);
    if (r.n == 0)
        return;
    copy_through(&r, mode, out, cap, info);
}

size_t urisan_norm_escapes(const char *in, size_t n, int lower, char *out)
{
    size_t k = 0, i = 0;

    if (lower && n >= 8) {
        /* A reg-name: 8 bytes at a time up to the first "%"; then the
           last 8 (overlapping) when no "%" is there either. Until the
           first "%" the output is the input lower-cased: k == i. */
        for (; i + 8 <= n; i += 8) {
            uint64_t x = load8(in + i);
            if (has_byte8(x, '%'))
                break;
            if (out != NULL)
                store8(out + i, lower8(x));
        }
        if (i < n && i + 8 > n) {
            uint64_t x = load8(in + n - 8);
            if (!has_byte8(x, '%')) {
                if (out != NULL)
                    store8(out + n - 8, lower8(x));
                return n;
            }
        }
        k = i;
    }
    while (i < n) {
        if (!lower) {
            /* Only escapes change: copy the run up to the next "%". */
            const char *pc = memchr(in + i, '%', n - i);
            size_t run = pc ? (size_t)(pc - (in + i)) : n - i;
            if (out != NULL && run)
                memcpy(out + k, in + i, run);
            k += run;
            i += run;
            if (i >= n)
                break;
        }
        if (is_escape_at(in, n, i)) {
            unsigned char hi = (unsigned char)in[i + 1], lo = (unsigned char)in[i + 2];
            unsigned char v = (unsigned char)(hexval(hi) * 16 + hexval(lo));
            /* 6.2.2.2: only unreserved characters are decoded; a reserved
               character, a control or a byte >= 0x80 keeps its escape,
               whose hex digits are upper-cased (6.2.2.1). */
            if (cc_is(v, CC_UNRES)) {
                if (out != NULL)
                    out[k] = (char)(lower ? lower_ascii(v) : v);
                k++;
            } else {
                if (out != NULL) {
                    out[k] = '%';
                    out[k + 1] = (char)upper_hex(hi);
                    out[k + 2] = (char)upper_hex(lo);
                }
                k += 3;
            }
            i += 3;
        } else {
            if (out != NULL)
                out[k] = (char)(lower ? lower_ascii((unsigned char)in[i])
                                      : (unsigned char)in[i]);
            k++;
            i++;
        }
    }
    return k;
}
