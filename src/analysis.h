/*
 * analysis.h - the risk analysis (SPEC 3) split by flag family, shared by
 * analyze.c (entry point, prefilter, implications) and the family files:
 *
 *   analyze_bytes.c      bytes and escapes: ctl_raw, whitespace, non_ascii,
 *                        backslash, escaped_*, invalid_escape,
 *                        double_encoding, overlong_utf8, encoded_slash
 *   analyze_path.c       path and dots: dot_segments, encoded_dot,
 *                        dot_above_root
 *   analyze_host.c       host and address: ip_*, idn
 *   analyze_authority.c  scheme and authority: dangerous_scheme, userinfo,
 *                        password, nondefault_port, reserved_port,
 *                        ambiguous_authority
 *
 * Each family is the one implementation of its flags. The summary (sum)
 * is what a prefilter proved absent from the input; a family skips work
 * only on that proof, so every summary gives the same report as SCAN_ALL
 * (nothing ruled out) - tests/test_analysis.c checks it on the corpora
 * and the URL data sets.
 */
#ifndef URISAN_ANALYSIS_H
#define URISAN_ANALYSIS_H

#include "risk.h"
#include "scan.h"

#define F(name) URISAN_F(name)

/* Every SCAN_* bit: nothing is ruled out. */
#define SCAN_ALL (SCAN_PCT | SCAN_ODD | SCAN_SLASH_DOT | SCAN_DASH_DASH)

typedef struct {
    const char *in;
    size_t len;
    const urisan_uri *u;       /* its spans lie inside in[0..len) or are absent */
    const scheme_overlay *ov;  /* the policy's entries; NULL: the table alone */
    unsigned sum;              /* SCAN_*: what may be in in[0..len) */
    const scheme_row *row;     /* the scheme's row; NULL: none or not listed */
    scheme_kind kind;          /* SCHEME_NONE without a scheme */
} analysis;

/* The value of the escape "%" HEX HEX at in[i] (checked by the caller). */
static inline unsigned char esc_byte(const char *in, size_t i)
{
    return (unsigned char)(hexval((unsigned char)in[i + 1]) * 16 +
                           hexval((unsigned char)in[i + 2]));
}

/* The analysis under a given summary: SCAN_ALL runs every rule in full
   (the reference the prefilter is tested against); URISAN_SUM_PREFILTER
   lets the prefilter (the parse's hand-over, else plain_scan) find it. */
#define URISAN_SUM_PREFILTER 0x100u
urisan_status urisan_analyze_sum(const char *in, size_t len, const urisan_uri *uri,
                                 const scheme_overlay *ov, unsigned sum,
                                 urisan_report *out);

#endif
