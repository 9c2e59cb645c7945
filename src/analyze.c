/*
 * analyze.c - risk analysis (SPEC 3): from a parsed input to the flag set
 * and the de-obfuscated host address.
 *
 * Flags are facts about the string; the policy (policy.c) decides what to
 * do about them. The flags come from four families (analysis.h), each the
 * one implementation of its rules; this file checks the spans, runs the
 * prefilter and the families and adds the implied flags. Every scan is a
 * single forward pass over one part of the input (a few look at most
 * three bytes ahead), so the whole analysis is linear; nothing allocates
 * and nothing recurses.
 *
 * The prefilter: most inputs are valid URIs without "%" and without any
 * odd byte (a control, space, DEL, non-ASCII or "\\"). For them most
 * flags cannot fire, and the families skip what the summary rules out.
 * The summary is what the parse's fast path saw of this very in/len
 * (urisan_uri's scan_*_), else one pass over the input (plain_scan).
 */
#include "analysis.h"

#include <string.h>

/* The families are compiled with this file (one translation unit), so the
   compiler can inline them into urisan_analyze_sum: src/meson.build lists
   analyze.c only. */
#include "analyze_bytes.c"
#include "analyze_path.c"
#include "analyze_host.c"
#include "analyze_authority.c"

/* A span from the parse that lies inside in[0..len); anything else (absent
   or a span the caller forged) is treated as absent. */
static bool span_ok(urisan_span s, size_t len)
{
    return s.off != URISAN_ABSENT && s.off <= len && s.len <= len - s.off;
}

static bool span_bad(urisan_span s, size_t len)
{
    return s.off != URISAN_ABSENT && !span_ok(s, len);
}

/* uri, or a copy in *fixed with every span outside in[0..len) absent. */
static const urisan_uri *spans_checked(const urisan_uri *uri, size_t len, urisan_uri *fixed)
{
    if (!span_bad(uri->scheme, len) && !span_bad(uri->userinfo, len) &&
        !span_bad(uri->host, len) && !span_bad(uri->port, len) && !span_bad(uri->path, len))
        return uri;
    urisan_span none = {URISAN_ABSENT, 0};
    *fixed = *uri;
    if (!span_ok(fixed->scheme, len)) fixed->scheme = none;
    if (!span_ok(fixed->userinfo, len)) fixed->userinfo = none;
    if (!span_ok(fixed->host, len)) fixed->host = none;
    if (!span_ok(fixed->port, len)) fixed->port = none;
    if (!span_ok(fixed->path, len)) fixed->path = none;
    return fixed;
}

/* The summary of in[0..len): the parse's hand-over when it is about these
   very bytes (it knows "%" and "/." in the path, and that no byte is
   odd). Else a valid URI has no odd byte (RFC 3986 allows none), so a
   search for "%" is all; the families look for "/." in the path and "--"
   in the host themselves. Else one pass over every byte. */
static unsigned prefilter(const char *in, size_t len, const urisan_uri *uri)
{
    if (uri->scan_in_ == in && uri->scan_len_ == len && (uri->scan_bits_ & SCAN_SUM_PLAIN))
        return ((uri->scan_bits_ & SCAN_SUM_PCT) ? SCAN_PCT : 0u) |
               ((uri->scan_bits_ & SCAN_SUM_SLASH_DOT) ? SCAN_SLASH_DOT : 0u) | SCAN_DASH_DASH;
    if (uri->valid && uri->error.code == URISAN_OK)
        return (memchr(in, '%', len) != NULL ? SCAN_PCT : 0u) | SCAN_SLASH_DOT | SCAN_DASH_DASH;
    return plain_scan(in, len);
}

static urisan_flags implications(urisan_flags f)
{
    if (f & F(PASSWORD))
        f |= F(USERINFO);
    if (f & F(RESERVED_PORT))
        f |= F(NONDEFAULT_PORT);
    if (f & (F(ESCAPED_CRLF) | F(ESCAPED_NUL)))
        f |= F(ESCAPED_CTL);
    if (f & F(IP_OBFUSCATED))
        f |= F(IP_LITERAL);
    if (f & (F(DOT_ABOVE_ROOT) | F(ENCODED_DOT)))
        f |= F(DOT_SEGMENTS);
    if (f & (F(NON_ASCII) | F(INVALID_ESCAPE) | F(BACKSLASH) | F(TOO_LONG)))
        f |= F(INVALID);
    return f;
}

urisan_status urisan_analyze_sum(const char *in, size_t len, const urisan_uri *uri,
                                 const scheme_overlay *ov, unsigned sum, urisan_report *out)
{
    memset(out, 0, sizeof *out);
    if (uri == NULL || (in == NULL && len != 0)) {
        out->flags = F(INVALID);
        return URISAN_E_BAD_ARGUMENT;
    }
    if (in == NULL)
        in = ""; /* len == 0: no byte is read, and no arithmetic on NULL */
    if (uri->error.code == URISAN_E_TOO_LONG) {
        /* SPEC 3: analysis stops at the bound - exactly these two */
        out->flags = F(TOO_LONG) | F(INVALID);
        return URISAN_OK;
    }
    if (uri->error.code == URISAN_E_BAD_ARGUMENT) {
        out->flags = F(INVALID);
        return URISAN_OK;
    }
    if (sum & URISAN_SUM_PREFILTER)
        sum = prefilter(in, len, uri);

    urisan_uri fixed;
    analysis a = {in, len, spans_checked(uri, len, &fixed), ov, sum, NULL, SCHEME_NONE};
    if (a.u->scheme.off != URISAN_ABSENT) {
        a.row = urisan_scheme_find(in + a.u->scheme.off, a.u->scheme.len);
        a.kind = a.row != NULL ? (scheme_kind)a.row->kind : SCHEME_OTHER;
    }
    urisan_flags f = a.u->valid ? 0 : F(INVALID);
    f |= an_bytes(&a);
    f |= an_path(&a);
    f |= an_userinfo_port(&a);
    f |= an_host(&a, out);
    f |= an_scheme(&a);
    if (an_ambiguous(&a))
        f |= F(AMBIGUOUS_AUTHORITY);
    out->flags = f ? implications(f) : 0;
    return URISAN_OK;
}

URISAN_API urisan_status urisan_analyze(const char *in, size_t len, const urisan_uri *uri,
                                        const urisan_policy *pol, urisan_report *out)
{
    if (out == NULL)
        return URISAN_E_BAD_ARGUMENT;
    scheme_overlay ov = policy_overlay(pol);
    return urisan_analyze_sum(in, len, uri, ov.n_dangerous + ov.n_defport > 0 ? &ov : NULL,
                              URISAN_SUM_PREFILTER, out);
}
