/*
 * scan.h - walk the bytes that matter, one 64-byte block at a time.
 *
 * Almost every byte of a real URI is "plain": unreserved / sub-delims
 * (RFC 3986 2.2, 2.3; CC_REG in chartab.c), valid in every component but
 * the scheme. The parser's fast path (parse.c) and the analysis only need
 * to look at the other, "special" bytes: delimiters, "%", and anything
 * RFC 3986 does not allow. simd.h classifies a block (its special-byte
 * mask, SIMD or the scalar twin); this header walks the set bits. Reads
 * stay inside in[0..len).
 */
#ifndef URISAN_SCAN_H
#define URISAN_SCAN_H

#include "internal.h"
#include "simd.h"

/* The walk's steps run once a special byte: always inline (the block's
   classification, once a 64 bytes, is the compiler's choice). */
#if defined(__GNUC__)
#define SCAN_INLINE inline __attribute__((always_inline))
#else
#define SCAN_INLINE inline
#endif

static inline unsigned scan_ctz64(uint64_t m) /* m != 0 */
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctzll(m);
#else
    unsigned n = 0;
    while (!(m & 1)) {
        m >>= 1;
        n++;
    }
    return n;
#endif
}

/* Walks forward through the special bytes, one 64-byte block at a time;
   each block is classified once. */
typedef struct {
    const char *in;
    size_t len;
    size_t blk;    /* start of the current block */
    uint64_t m;    /* its special bytes not yet taken */
} scan_iter;

static inline void scan_init(scan_iter *it, const char *in, size_t len)
{
    it->in = in;
    it->len = len;
    it->blk = 0;
    it->m = len ? simd_special_mask(in, len, 0) : 0;
}

/* Offset of the next special byte not yet taken, or len when none. */
static SCAN_INLINE size_t scan_peek(scan_iter *it)
{
    while (it->m == 0) {
        if (it->len - it->blk <= 64)
            return it->len;
        it->blk += 64;
        it->m = simd_special_mask(it->in, it->len, it->blk);
    }
    return it->blk + scan_ctz64(it->m);
}

/* Take the byte scan_peek returned (which must be < len). */
static SCAN_INLINE void scan_drop(scan_iter *it)
{
    it->m &= it->m - 1;
}

/* Take and return the next special byte, or len when none is left. */
static SCAN_INLINE size_t scan_pop(scan_iter *it)
{
    size_t j = scan_peek(it);
    scan_drop(it);
    return j;
}

/* Start at offset from (<= len) instead of 0. */
static inline void scan_init_at(scan_iter *it, const char *in, size_t len, size_t from)
{
    it->in = in;
    it->len = len;
    it->blk = from & ~(size_t)63;
    it->m = from < len ? simd_special_mask(in, len, it->blk) & (~(uint64_t)0 << (from & 63)) : 0;
    if (from >= len)
        it->blk = len;
}

/* An iterator at offset from (<= len) that reuses base's block when from
   lies in it; base must be fresh from scan_init (nothing taken yet). */
static inline void scan_from(scan_iter *it, const scan_iter *base, size_t from)
{
    if (from < base->len && (from & ~(size_t)63) == base->blk) {
        *it = *base;
        it->m &= ~(uint64_t)0 << (from & 63);
    } else {
        scan_init_at(it, base->in, base->len, from);
    }
}

/* Kinds of unusual byte an input holds (analyze_bytes.h's scan_bytes
   collects them from a walk over the odd bytes; both kinds are special). */
#define SCAN_PCT 1u /* a "%" */
#define SCAN_ODD 2u /* a byte <= 0x20, DEL, >= 0x80, or "\\" */

/* The full parser without the fast path (parse.c), for tests that check
   the two agree. */
urisan_status urisan_parse_full(const char *in, size_t len, const urisan_limits *lim,
                                urisan_uri *u, urisan_error *err);

/* The full analysis without the prefilter (analyze.c), for tests that
   check the two give the same report. */
urisan_status urisan_analyze_full(const char *in, size_t len, const urisan_uri *uri,
                                  const urisan_policy *pol, urisan_report *out);

/* The fast path alone (parse_fast.h): true when it parsed in (then *u is
   what urisan_parse_full gives and *sum the scan summary, SCAN_SUM_*),
   false when the full parser must run.
   _base is compiled for the build's baseline (parse.c); _ssse3 with
   -mssse3 (parse_ssse3.c, when URISAN_HAVE_SSSE3_VARIANT), to be called
   only when urisan_cpu_ssse3(). */
bool urisan_parse_fast_base(const char *in, size_t len, const urisan_limits *lim, urisan_uri *u,
                            unsigned *sum);
#ifdef URISAN_HAVE_SSSE3_VARIANT
bool urisan_parse_fast_ssse3(const char *in, size_t len, const urisan_limits *lim, urisan_uri *u,
                             unsigned *sum);

/* Does this CPU have SSSE3? (a load and a test: the compiler runtime
   fills its CPU model before main) */
static inline bool urisan_cpu_ssse3(void)
{
    return __builtin_cpu_supports("ssse3") != 0;
}
#endif

#endif
