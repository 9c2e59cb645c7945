/*
 * simd.h - every SIMD instruction of the library, behind named predicates.
 *
 * Each predicate is an inline function whose meaning is its scalar twin
 * (simd_NAME_scalar, plain C over the class table or byte compares); the
 * body is chosen at compile time: SSE2 whenever the compiler targets it
 * (every x86-64), the SSSE3 classifier when the file is compiled with
 * -mssse3 (parse_ssse3.c), else the twin. URISAN_NO_SIMD (meson
 * -Dsimd=disabled) builds the twins only. tests/test_scan.c proves every
 * predicate equal to its twin for every byte value at every position.
 * Every read stays inside the range the caller gives.
 *
 *   special-byte mask     simd_special_mask     (scan.h walks it)
 *   odd-byte mask         simd_odd_mask         (analyze_bytes.h: the byte checks)
 *   plain summary         simd_plain_summary    (analyze.c: the prefilter)
 *   pair search           simd_pair_in          ("--" in a host)
 *   dot/slash candidates  simd_dot_candidates   (dots.c's pre-check)
 *   parameter stop        simd_param_stop       (nested_find.c: "&" ";" "=")
 *
 * To add a predicate: write the scalar twin first (it is the
 * definition), then the SIMD body, then a case in tests/test_scan.c that
 * compares the two for every byte at every position.
 */
#ifndef URISAN_SIMD_H
#define URISAN_SIMD_H

#include "internal.h"

#include <string.h>

#if defined(__SSE2__) && !defined(URISAN_NO_SIMD)
#include <emmintrin.h>
#define URISAN_SIMD_SSE2 1
#if defined(__SSSE3__)
#include <tmmintrin.h>
#define URISAN_SIMD_SSSE3 1
#endif
#endif

/* A name for the build's choice, for tests and messages. */
#if defined(URISAN_SIMD_SSSE3)
#define URISAN_SIMD_KIND "ssse3"
#elif defined(URISAN_SIMD_SSE2)
#define URISAN_SIMD_KIND "sse2"
#else
#define URISAN_SIMD_KIND "scalar"
#endif

#ifdef URISAN_SIMD_SSE2
static inline __m128i simd_load16(const char *p)
{
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}
#endif

/* ------------------------------------------------------------------ */
/* Special-byte mask                                                    */
/* ------------------------------------------------------------------ */
/* A byte is "plain" when it is unreserved / sub-delims (RFC 3986 2.2,
   2.3; CC_REG), valid in every component but the scheme; every other
   byte (delimiters, "%", anything RFC 3986 does not allow) is special. */

/* Bit i set when p[i] is special, for i < n <= 64; higher bits zero. */
static inline uint64_t simd_special_scalar(const char *p, size_t n)
{
    uint64_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!cc_is((unsigned char)p[i], CC_REG))
            m |= (uint64_t)1 << i;
    return m;
}

#if defined(URISAN_SIMD_SSSE3)
/* 16-bit mask of the special bytes of x, by two 16-entry nibble tables
   (pshufb): bit h of lo[l] is set when byte 16 * h + l is plain (CC_REG),
   and hi[h] = 1 << h for h < 8, 0 for the bytes >= 0x80. */
static inline unsigned simd_special16(__m128i x)
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
#elif defined(URISAN_SIMD_SSE2)
/* 16-bit mask of the special bytes of x. Plain = ALPHA / DIGIT /
   "&'()*+,-." (0x26-0x2E, one range) / "!" "$" ";" "=" "_" "~". */
static inline unsigned simd_special16(__m128i x)
{
    const __m128i zero = _mm_setzero_si128();
    /* (x - lo) <= span, unsigned: saturating subtract leaves zero. */
#define SIMD_RANGE_(v, lo, span)                                                  \
    _mm_cmpeq_epi8(_mm_subs_epu8(_mm_sub_epi8((v), _mm_set1_epi8((char)(lo))),    \
                                 _mm_set1_epi8((char)(span))),                    \
                   zero)
    __m128i alpha = SIMD_RANGE_(_mm_or_si128(x, _mm_set1_epi8(0x20)), 'a', 25);
    __m128i digit = SIMD_RANGE_(x, '0', 9);
    __m128i punct = SIMD_RANGE_(x, 0x26, 8);
#undef SIMD_RANGE_
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

#ifdef URISAN_SIMD_SSE2
/* The 64-bit mask of in[b .. min(b + 64, len)), b < len, from a 16-byte
   classifier: whole loads, then the tail from the load that ends at len
   (or a zero-padded copy of a short input). Shared by every mask below;
   cls is a constant at each call, so the compiler inlines it. */
static inline uint64_t simd_mask64(const char *in, size_t len, size_t b, unsigned (*cls)(__m128i),
                                   bool unroll)
{
    size_t n = len - b;
    /* unroll (a constant at each call): a whole block in four loads, no
       loop - for a classifier with few constants; with more (the SSE2
       special16) the loop is cheaper, gcc keeps them in registers there */
    if (unroll && n >= 64)
        return (uint64_t)cls(simd_load16(in + b)) |
               (uint64_t)cls(simd_load16(in + b + 16)) << 16 |
               (uint64_t)cls(simd_load16(in + b + 32)) << 32 |
               (uint64_t)cls(simd_load16(in + b + 48)) << 48;
    if (n > 64)
        n = 64;
    uint64_t m = 0;
    size_t k = 0;
    for (; k + 16 <= n; k += 16)
        m |= (uint64_t)cls(simd_load16(in + b + k)) << k;
    if (k < n) {
        size_t r = n - k; /* 1..15 bytes left, and b + n == len */
        unsigned t;
        if (len >= 16) {
            /* The 16 bytes that end at len; keep the last r. */
            t = cls(simd_load16(in + len - 16)) >> (16 - r);
        } else {
            unsigned char tmp[16] = {0};
            memcpy(tmp, in + b + k, r);
            t = cls(simd_load16((const char *)tmp)) & ((1u << r) - 1);
        }
        m |= (uint64_t)t << k;
    }
    return m;
}
#endif

/* Special-byte mask of in[b .. min(b + 64, len)), b < len: bit i for
   in[b + i]. The twin is simd_special_scalar(in + b, that length). */
static inline uint64_t simd_special_mask(const char *in, size_t len, size_t b)
{
#ifdef URISAN_SIMD_SSE2
#ifdef URISAN_SIMD_SSSE3
    return simd_mask64(in, len, b, simd_special16, true);
#else
    return simd_mask64(in, len, b, simd_special16, false);
#endif
#else
    size_t n = len - b;
    return simd_special_scalar(in + b, n > 64 ? 64 : n);
#endif
}

/* ------------------------------------------------------------------ */
/* Odd-byte mask                                                        */
/* ------------------------------------------------------------------ */
/* The bytes the full analysis' byte checks act on (analyze_bytes.h scan_bytes:
   controls, whitespace, non-ASCII, backslash, escapes): "%", "\\",
   <= 0x20, DEL and >= 0x80. Every other byte only ends an escape run. */

/* Bit i set when p[i] is odd, for i < n <= 64; higher bits zero. */
static inline uint64_t simd_odd_scalar(const char *p, size_t n)
{
    uint64_t m = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '%' || c == '\\' || c <= 0x20 || c >= 0x7F)
            m |= (uint64_t)1 << i;
    }
    return m;
}

#ifdef URISAN_SIMD_SSE2
static inline unsigned simd_odd16(__m128i x)
{
    __m128i low = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x20)), x);        /* <= 0x20 */
    __m128i high = _mm_cmpeq_epi8(_mm_max_epu8(x, _mm_set1_epi8(0x7F)), x);       /* >= 0x7F */
    __m128i pct = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('%')),
                               _mm_cmpeq_epi8(x, _mm_set1_epi8('\\')));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(low, high), pct));
}
#endif

/* Odd-byte mask of in[b .. min(b + 64, len)), b < len: bit i for
   in[b + i]. The twin is simd_odd_scalar(in + b, that length). */
static inline uint64_t simd_odd_mask(const char *in, size_t len, size_t b)
{
#ifdef URISAN_SIMD_SSE2
    return simd_mask64(in, len, b, simd_odd16, true);
#else
    size_t n = len - b;
    return simd_odd_scalar(in + b, n > 64 ? 64 : n);
#endif
}

/* ------------------------------------------------------------------ */
/* Plain summary                                                        */
/* ------------------------------------------------------------------ */
/* What the analysis' fast path needs to know of a whole input in[0..len):
   *odd when some byte is "%", "\\", <= 0x20 (a control or space), DEL or
   >= 0x80; *pairs when "/." or "--" occurs somewhere. */
static inline void simd_plain_summary_scalar(const char *in, size_t len, bool *odd, bool *pairs)
{
    bool od = false, pr = false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c == '%' || c <= 0x20 || c >= 0x7F || c == '\\')
            od = true;
        if (i + 1 < len && ((c == '/' && in[i + 1] == '.') || (c == '-' && in[i + 1] == '-')))
            pr = true;
    }
    *odd = od;
    *pairs = pr;
}

#ifdef URISAN_SIMD_SSE2
typedef struct {
    __m128i lo, hi;  /* smallest and largest byte seen (unsigned) */
    __m128i pct;     /* "%" or "\\" seen */
    __m128i pairs;   /* "/." or "--" seen (at lane i: bytes i, i + 1) */
} simd_plain_acc;

static inline void simd_plain16(__m128i x, simd_plain_acc *a)
{
    __m128i x1 = _mm_srli_si128(x, 1); /* lane i: byte i + 1; lane 15: 0 */
    a->lo = _mm_min_epu8(a->lo, x);
    a->hi = _mm_max_epu8(a->hi, x);
    a->pct = _mm_or_si128(a->pct, _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('%')),
                                               _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))));
    __m128i sd = _mm_and_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('/')),
                               _mm_cmpeq_epi8(x1, _mm_set1_epi8('.')));
    __m128i dd = _mm_and_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('-')),
                               _mm_cmpeq_epi8(x1, _mm_set1_epi8('-')));
    a->pairs = _mm_or_si128(a->pairs, _mm_or_si128(sd, dd));
}
#endif

/* SSE2: 16-byte loads 15 bytes apart, so every adjacent pair lies inside
   one load; the last load ends at len (a short input is padded with a
   byte that is in no class). */
static inline void simd_plain_summary(const char *in, size_t len, bool *odd, bool *pairs)
{
#ifdef URISAN_SIMD_SSE2
    simd_plain_acc a;
    a.lo = _mm_set1_epi8(0x21);
    a.hi = _mm_set1_epi8(0x7E);
    a.pct = a.pairs = _mm_setzero_si128();
    if (len >= 16) {
        for (size_t k = 0; k + 16 <= len; k += 15)
            simd_plain16(simd_load16(in + k), &a);
        simd_plain16(simd_load16(in + len - 16), &a);
    } else {
        char tmp[16];
        memset(tmp, 'a', sizeof tmp); /* plain filler, in no class */
        memcpy(tmp, in, len);
        simd_plain16(simd_load16(tmp), &a);
    }
    /* odd: a byte outside 0x21..0x7E, or "%" or "\\" */
    bool range_ok = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(a.lo, _mm_set1_epi8(0x21)),
                                                     a.lo)) == 0xffff && /* all >= 0x21 */
                    _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(a.hi, _mm_set1_epi8(0x7E)),
                                                     a.hi)) == 0xffff; /* all <= 0x7E */
    *odd = !range_ok || _mm_movemask_epi8(a.pct) != 0;
    *pairs = _mm_movemask_epi8(a.pairs) != 0;
#else
    simd_plain_summary_scalar(in, len, odd, pairs);
#endif
}

/* ------------------------------------------------------------------ */
/* Pair search                                                          */
/* ------------------------------------------------------------------ */

/* Is there c1 c2 at some j with lo <= j, j + 1 < hi? */
static inline bool simd_pair_in_scalar(const char *in, size_t lo, size_t hi, char c1, char c2)
{
    for (size_t j = lo; j + 1 < hi; j++)
        if (in[j] == c1 && in[j + 1] == c2)
            return true;
    return false;
}

#ifdef URISAN_SIMD_SSE2
/* Lanes i (0..14) where x holds c1 c2 at bytes i, i + 1. */
static inline unsigned simd_pairs16(__m128i x, char c1, char c2)
{
    return (unsigned)_mm_movemask_epi8(_mm_and_si128(
               _mm_cmpeq_epi8(x, _mm_set1_epi8(c1)),
               _mm_cmpeq_epi8(_mm_srli_si128(x, 1), _mm_set1_epi8(c2)))) &
           0x7fffu;
}
#endif

/* simd_pair_in_scalar for a part in[lo..hi) of the input in[0..len)
   (loads may reach outside the part, never outside the input). */
static inline bool simd_pair_in(const char *in, size_t len, size_t lo, size_t hi, char c1,
                                char c2)
{
    size_t n = hi - lo;
    if (n < 2)
        return false;
#ifdef URISAN_SIMD_SSE2
    if (n <= 16 && len >= 16) {
        /* One load that holds the part: from lo when 16 bytes remain,
           else the 16 bytes that end at len; the part's pairs are lanes
           s .. s + n - 2. */
        size_t at = lo + 16 <= len ? lo : len - 16;
        unsigned s = (unsigned)(lo - at);
        unsigned m = simd_pairs16(simd_load16(in + at), c1, c2);
        return ((m >> s) & ((1u << (n - 1)) - 1u)) != 0;
    }
    if (n > 16) {
        /* loads 15 bytes apart, the last one ending at hi: every pair of
           the part lies in lanes 0..14 of one load */
        for (size_t k = lo; k + 16 <= hi; k += 15)
            if (simd_pairs16(simd_load16(in + k), c1, c2))
                return true;
        return simd_pairs16(simd_load16(in + hi - 16), c1, c2) != 0;
    }
#else
    (void)len;
#endif
    return simd_pair_in_scalar(in, lo, hi, c1, c2);
}

/* ------------------------------------------------------------------ */
/* Dot/slash candidates                                                 */
/* ------------------------------------------------------------------ */
/*
 * dots.c's cheap filter: false when no segment that starts in p[0..n)
 * can be a dot segment. A segment starts at p[0] when start, and after
 * every "/"; a dot segment starts with "." or (%2e) "%". "%" is a
 * candidate whatever the mode: the filter may say true for nothing.
 */
static inline bool simd_dot_candidates_scalar(const char *p, size_t n, bool start)
{
    if (n == 0)
        return false;
    if (start && (p[0] == '.' || p[0] == '%'))
        return true;
    for (size_t j = 0; j + 1 < n; j++)
        if (p[j] == '/' && (p[j + 1] == '.' || p[j + 1] == '%'))
            return true;
    return false;
}

#ifdef URISAN_SIMD_SSE2
/* Lanes i of x with x[i] == "/" and x[i + 1] "." or "%" (lane 15: none). */
static inline unsigned simd_slash_dot16(__m128i x)
{
    __m128i x1 = _mm_srli_si128(x, 1); /* lane i: byte i + 1; lane 15: 0 */
    __m128i nx = _mm_or_si128(_mm_cmpeq_epi8(x1, _mm_set1_epi8('.')),
                              _mm_cmpeq_epi8(x1, _mm_set1_epi8('%')));
    return (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('/')), nx));
}
#endif

static inline bool simd_dot_candidates(const char *p, size_t n, bool start)
{
#ifdef URISAN_SIMD_SSE2
    if (n == 0)
        return false;
    if (start && (p[0] == '.' || p[0] == '%'))
        return true;
    if (n >= 16) {
        /* 16-byte loads 15 apart: every adjacent pair lies in one load */
        for (size_t k = 0;; k += 15) {
            if (k + 16 > n)
                k = n - 16;
            if (simd_slash_dot16(simd_load16(p + k)))
                return true;
            if (k + 16 == n)
                return false;
        }
    }
    if (n >= 8) {
        /* lanes 0-7: p[0..8), lanes 8-15: p[n-8..n). A pair (j, j + 1)
           with j + 1 < 8 lies in the low half, any other in the high
           half; lane 7 pairs p[7] with p[n-8]: not a pair, ignored. */
        __m128i x = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(const void *)p),
                                       _mm_loadl_epi64((const __m128i *)(const void *)(p + n - 8)));
        return (simd_slash_dot16(x) & ~0x80u) != 0;
    }
    return simd_dot_candidates_scalar(p, n, false);
#else
    return simd_dot_candidates_scalar(p, n, start);
#endif
}

/* ------------------------------------------------------------------ */
/* Parameter stop                                                       */
/* ------------------------------------------------------------------ */

/* The first "&", ";" or "=" in in[from..to) (from <= to), or to: where
   a query parameter, or its name, ends (nested_find.c). */
static inline size_t simd_param_stop_scalar(const char *in, size_t from, size_t to)
{
    while (from < to && in[from] != '&' && in[from] != ';' && in[from] != '=')
        from++;
    return from;
}

#ifdef URISAN_SIMD_SSE2
static inline unsigned simd_param_stop16(__m128i x)
{
    __m128i amp = _mm_cmpeq_epi8(x, _mm_set1_epi8('&'));
    __m128i semi = _mm_cmpeq_epi8(x, _mm_set1_epi8(';'));
    __m128i eq = _mm_cmpeq_epi8(x, _mm_set1_epi8('='));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(amp, semi), eq));
}

/* Lowest set bit of m != 0. */
static inline unsigned simd_ctz16(unsigned m)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctz(m);
#else
    unsigned n = 0;
    while (!(m & 1u)) {
        m >>= 1;
        n++;
    }
    return n;
#endif
}
#endif

/* simd_param_stop_scalar on in[from..to): whole loads from "from", then
   the 16 bytes that end at to (loads stay inside in[0..to)). */
static inline size_t simd_param_stop(const char *in, size_t from, size_t to)
{
#ifdef URISAN_SIMD_SSE2
    for (; from + 16 <= to; from += 16) {
        unsigned m = simd_param_stop16(simd_load16(in + from));
        if (m != 0)
            return from + simd_ctz16(m);
    }
    if (from < to && to >= 16) {
        /* lanes 16 - (to - from) .. 15 of the load are in[from..to) */
        unsigned m = simd_param_stop16(simd_load16(in + to - 16)) >> (16 - (to - from));
        return m != 0 ? from + simd_ctz16(m) : to;
    }
#endif
    return simd_param_stop_scalar(in, from, to);
}

#endif
