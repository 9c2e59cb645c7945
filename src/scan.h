/*
 * scan.h - find the bytes that matter, 16 at a time.
 *
 * Almost every byte of a real URI is "plain": unreserved / sub-delims
 * (RFC 3986 2.2, 2.3; CC_REG in chartab.c), valid in every component but
 * the scheme. The parser's fast path (parse.c) and the analysis only need
 * to look at the other, "special" bytes: delimiters, "%", and anything
 * RFC 3986 does not allow. This header finds them with SSE2 when the
 * compiler targets it (every x86-64), else with the class table; both give
 * bit-identical masks (tests/test_scan.c checks every byte value at every
 * position). Reads stay inside in[0..len).
 */
#ifndef URISAN_SCAN_H
#define URISAN_SCAN_H

#include "internal.h"

#include <string.h>

#if defined(__SSE2__) && !defined(URISAN_NO_SIMD)
#include <emmintrin.h>
#define URISAN_SCAN_SSE2 1
#if defined(__SSSE3__)
#include <tmmintrin.h>
#define URISAN_SCAN_SSSE3 1
#endif
#endif

/* Bit i set when p[i] is special, for i < n <= 64; higher bits zero. */
static inline uint64_t scan_special_scalar(const char *p, size_t n)
{
    uint64_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!cc_is((unsigned char)p[i], CC_REG))
            m |= (uint64_t)1 << i;
    return m;
}

#if defined(URISAN_SCAN_SSSE3)
/* 16-bit mask of the special bytes of x, by two 16-entry nibble tables
   (pshufb): bit h of lo[l] is set when byte 16 * h + l is plain (CC_REG),
   and hi[h] = 1 << h for h < 8, 0 for the bytes >= 0x80. */
static inline unsigned scan_special16(__m128i x)
{
    const __m128i lo_tab = _mm_setr_epi8((char)0xa8, (char)0xfc, (char)0xf8, (char)0xf8,
                                         (char)0xfc, (char)0xf8, (char)0xfc, (char)0xfc,
                                         (char)0xfc, (char)0xfc, (char)0xf4, 0x5c, 0x54, 0x5c,
                                         (char)0xd4, 0x70);
    const __m128i hi_tab = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, (char)128, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m128i nib = _mm_set1_epi8(0x0f);
    __m128i lo = _mm_shuffle_epi8(lo_tab, _mm_and_si128(x, nib));
    __m128i hi = _mm_shuffle_epi8(hi_tab, _mm_and_si128(_mm_srli_epi16(x, 4), nib));
    __m128i special = _mm_cmpeq_epi8(_mm_and_si128(lo, hi), _mm_setzero_si128());
    return (unsigned)_mm_movemask_epi8(special);
}
#elif defined(URISAN_SCAN_SSE2)
/* 16-bit mask of the special bytes of x. Plain = ALPHA / DIGIT /
   "&'()*+,-." (0x26-0x2E, one range) / "!" "$" ";" "=" "_" "~". */
static inline unsigned scan_special16(__m128i x)
{
    const __m128i zero = _mm_setzero_si128();
    /* (x - lo) <= span, unsigned: saturating subtract leaves zero. */
#define SCAN_RANGE_(v, lo, span)                                                  \
    _mm_cmpeq_epi8(_mm_subs_epu8(_mm_sub_epi8((v), _mm_set1_epi8((char)(lo))),    \
                                 _mm_set1_epi8((char)(span))),                    \
                   zero)
    __m128i alpha = SCAN_RANGE_(_mm_or_si128(x, _mm_set1_epi8(0x20)), 'a', 25);
    __m128i digit = SCAN_RANGE_(x, '0', 9);
    __m128i punct = SCAN_RANGE_(x, 0x26, 8);
#undef SCAN_RANGE_
    __m128i one = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('!')),
                               _mm_cmpeq_epi8(x, _mm_set1_epi8('$')));
    __m128i two = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(';')),
                               _mm_cmpeq_epi8(x, _mm_set1_epi8('=')));
    __m128i three = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('_')),
                                 _mm_cmpeq_epi8(x, _mm_set1_epi8('~')));
    __m128i plain = _mm_or_si128(_mm_or_si128(_mm_or_si128(alpha, digit), punct),
                                 _mm_or_si128(_mm_or_si128(one, two), three));
    return ~(unsigned)_mm_movemask_epi8(plain) & 0xffffu;
}
#endif

/* Special-byte mask of in[b .. min(b + 64, len)), b < len. */
static inline uint64_t scan_block(const char *in, size_t len, size_t b)
{
    size_t n = len - b;
    if (n > 64)
        n = 64;
#ifdef URISAN_SCAN_SSE2
    uint64_t m = 0;
    size_t k = 0;
    for (; k + 16 <= n; k += 16)
        m |= (uint64_t)scan_special16(_mm_loadu_si128((const __m128i *)(const void *)(in + b + k)))
             << k;
    if (k < n) {
        size_t r = n - k; /* 1..15 bytes left, and b + n == len */
        unsigned t;
        if (len >= 16) {
            /* The 16 bytes that end at len; keep the last r. */
            t = scan_special16(_mm_loadu_si128((const __m128i *)(const void *)(in + len - 16))) >>
                (16 - r);
        } else {
            unsigned char tmp[16] = {0};
            memcpy(tmp, in + b + k, r);
            t = scan_special16(_mm_loadu_si128((const __m128i *)(const void *)tmp)) &
                ((1u << r) - 1);
        }
        m |= (uint64_t)t << k;
    }
    return m;
#else
    return scan_special_scalar(in + b, n);
#endif
}

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
    it->m = len ? scan_block(in, len, 0) : 0;
}

/* Offset of the next special byte not yet taken, or len when none. */
static inline size_t scan_peek(scan_iter *it)
{
    while (it->m == 0) {
        if (it->len - it->blk <= 64)
            return it->len;
        it->blk += 64;
        it->m = scan_block(it->in, it->len, it->blk);
    }
    return it->blk + scan_ctz64(it->m);
}

/* Take the byte scan_peek returned (which must be < len). */
static inline void scan_drop(scan_iter *it)
{
    it->m &= it->m - 1;
}

/* Take and return the next special byte, or len when none is left. */
static inline size_t scan_pop(scan_iter *it)
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
    it->m = from < len ? scan_block(in, len, it->blk) & (~(uint64_t)0 << (from & 63)) : 0;
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

/* Kinds of unusual byte an input holds (analyze.c collects them from a
   walk over the special bytes; both kinds are special). */
#define SCAN_PCT 1u /* a "%" */
#define SCAN_ODD 2u /* a byte <= 0x20, DEL, >= 0x80, or "\\" */

/* The full parser without the fast path (parse.c), for tests that check
   the two agree. */
urisan_status urisan_parse_full(const char *in, size_t len, const urisan_limits *lim,
                                urisan_uri *u, urisan_error *err);

/* The fast path alone (parse_fast.h): true when it parsed in (then *u is
   what urisan_parse_full gives), false when the full parser must run.
   _base is compiled for the build's baseline (parse.c); _ssse3 with
   -mssse3 (parse_ssse3.c, when URISAN_HAVE_SSSE3_VARIANT), to be called
   only when urisan_cpu_ssse3(). */
bool urisan_parse_fast_base(const char *in, size_t len, const urisan_limits *lim, urisan_uri *u);
#ifdef URISAN_HAVE_SSSE3_VARIANT
bool urisan_parse_fast_ssse3(const char *in, size_t len, const urisan_limits *lim, urisan_uri *u);

/* Does this CPU have SSSE3? (a load and a test: the compiler runtime
   fills its CPU model before main) */
static inline bool urisan_cpu_ssse3(void)
{
    return __builtin_cpu_supports("ssse3") != 0;
}
#endif

#endif
