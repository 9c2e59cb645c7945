/*
 * analyze.h - what the analysis' flag families share (analyze.c includes
 * every family header; together they are one translation unit, so the
 * common path pays no call between families).
 *
 *   analyze_bytes.h      bytes and escapes (ctl_raw ... overlong_utf8,
 *                        double_encoding, encoded_slash)
 *   analyze_path.h       path and dots (dot_segments, encoded_dot,
 *                        dot_above_root; the rule is dotseg.h's)
 *   analyze_host.h       host and address (ip_*, idn, the name flags)
 *   analyze_authority.h  authority and ambiguity (userinfo, password,
 *                        ambiguous_authority)
 *   analyze_scheme.h     scheme and port (dangerous_scheme, *_port)
 *   analyze.c            the prefilter, nested_url and the entry point
 */
#ifndef URISAN_ANALYZE_H
#define URISAN_ANALYZE_H

#include "risk.h"
#include "scan.h"

#include <string.h>

#define F(name) URISAN_F(name)

/* The families' functions on the common path are inlined into both the
   prefilter's instance (cls 0: their odd-byte tests fold away) and the
   full one. */
#if defined(__GNUC__)
#define ANALYZE_INLINE inline __attribute__((always_inline))
#define ANALYZE_NOINLINE __attribute__((noinline))
#else
#define ANALYZE_INLINE inline
#define ANALYZE_NOINLINE
#endif

/* A span from the parse that lies inside in[0..len); anything else (absent
   or a span the caller forged) is treated as absent. */
static inline bool span_ok(urisan_span s, size_t len)
{
    return s.off != URISAN_ABSENT && s.off <= len && s.len <= len - s.off;
}

/* The byte of the escape "%" HEX HEX at in[i]. */
static inline unsigned char esc_byte(const char *in, size_t i)
{
    return (unsigned char)(hexval((unsigned char)in[i + 1]) * 16 +
                           hexval((unsigned char)in[i + 2]));
}

/* What the prefilter (analyze.c) knows of the whole input, for the
   families to skip work: */
#define PRE_NO_SLASH_DOT 1u /* no "/" is followed by "." */
#define PRE_NO_DASH_DASH 2u /* no "--" */
/* The parsed scheme as the authority rules need it (analyze_scheme.h). */
typedef struct {
    int kind;     /* SCH_* (schemes.h); SCH_NONE without a scheme */
    size_t after; /* offset after "scheme:" (at most len); 0 without one */
} scheme_info;

#define PRE_PLAIN        4u /* valid, no odd byte, the spans fit (then a
                               scheme starts the input, followed by ":") */
#define PRE_FAST_PARSED  8u /* the parse's fast path took the input (its
                               summary, SCAN_SUM_PLAIN): valid, and its odd
                               bytes are escapes in the path, query or
                               fragment - the scheme and the authority
                               hold none */

#endif
