/*
 * analyze.c - risk analysis (urisan(1), FLAGS): from a parsed input to the
 * flag set and the de-obfuscated host address. The entry point: a
 * prefilter, the flag families (analyze.h lists them, one header each) and
 * nested_url.
 *
 * Flags are facts about the string; the policy (policy.c) decides what to
 * do about them. Every scan is a single forward pass over one part of the
 * input (a few look at most three bytes ahead), so the whole analysis is
 * linear; nothing allocates and nothing recurses.
 */
#include "analyze.h"
#include "analyze_authority.h"
#include "analyze_bytes.h"
#include "analyze_host.h"
#include "analyze_path.h"
#include "analyze_scheme.h"

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

/* ------------------------------------------------------------------ */
/* nested_url                                                           */
/* ------------------------------------------------------------------ */

/*
 * Could a query or fragment parameter hold a nested URL (nested.c)? Its
 * value starts, after decoding once or twice, with a scheme's ":" or two
 * of "/" "\\": from the query on, some raw ":", "\\", TAB, LF, CR or
 * "//", or a "%" nest_escape_at accepts (internal.h). A walk over the special bytes only.
 */
static bool nested_maybe(const char *in, size_t len, const urisan_uri *uri)
{
    size_t from = len;
    if (span_ok(uri->query, len))
        from = uri->query.off;
    else if (span_ok(uri->fragment, len))
        from = uri->fragment.off;
    if (from >= len)
        return false;
    scan_iter it;
    scan_init_at(&it, in, len, from);
    for (size_t j; (j = scan_pop(&it)) < len;) {
        char c = in[j];
        if (c == ':' || c == '\\' || c == '\t' || c == '\n' || c == '\r' ||
            (c == '/' && j + 1 < len && in[j + 1] == '/') ||
            (c == '%' && nest_escape_at(in, len, j)))
            return true;
    }
    return false;
}

/* ------------------------------------------------------------------ */
/* The flag families                                                    */
/* ------------------------------------------------------------------ */

/*
 * Every flag but the byte flags and nested_url, by family, with the spans
 * of u inside in[0..len). cls: the kinds of odd byte the input holds
 * (SCAN_*; 0 from the prefilter); pre: what the prefilter knows (PRE_*).
 * The one implementation: the prefilter's answer only lets it skip what
 * cannot fire (inlined there with cls 0, so those tests fold away). With
 * PRE_FAST_PARSED the scheme and authority rules see no odd byte (acls 0),
 * as none lies there.
 */
static ANALYZE_INLINE urisan_flags families(const char *in, size_t len, const urisan_uri *u,
                                            const urisan_policy *pol, unsigned cls, unsigned pre,
                                            urisan_report *out)
{
    unsigned acls = (pre & PRE_FAST_PARSED) ? 0 : cls;
    urisan_flags f = path_flags(in, u->path, pre);
    f |= userinfo_flags(in, u->userinfo);
    f |= port_flags(in, u, pol);
    if (cls & SCAN_PCT)
        f |= encoded_slash(in, u);
    f |= host_flags(in, len, u, acls, pre, out);
    scheme_info si;
    f |= scheme_flags(in, len, u, acls, pre, pol, &si);
    if (ambiguous(in, len, u, &si, acls, pre))
        f |= F(AMBIGUOUS_AUTHORITY);
    return f;
}

/* ------------------------------------------------------------------ */
/* The prefilter: valid, plain inputs                                   */
/* ------------------------------------------------------------------ */

/*
 * Most inputs are valid URIs without "%" and without any byte scan_bytes
 * looks at (a control, space, DEL, non-ASCII or "\\"): no byte flag can
 * fire, and the spans of the parse fit. The prefilter proves that, or
 * hands the input to the full analysis. The parse fast path's summary of
 * this very in/len (sum: SCAN_SUM_*) proves it without a pass; else one
 * pass (simd_plain_summary) does, and finds whether "/." or "--" occur at
 * all (*pre).
 */
static inline bool prefilter(const char *in, size_t len, const urisan_uri *uri, unsigned sum,
                             unsigned *pre)
{
    if (sum & SCAN_SUM_PLAIN) {
        /* uri is the fast path's parse of this very in/len: valid, and
           its spans fit as the checks below demand (parse_fast.h); no odd
           byte but "%"; whether the path has "/." is known */
        *pre = PRE_PLAIN | ((sum & SCAN_SUM_SLASH_DOT) ? 0 : PRE_NO_SLASH_DOT);
        return len != 0 && (sum & SCAN_SUM_PCT) == 0;
    }
    if (!uri->valid || uri->error.code != URISAN_OK || len == 0)
        return false;
    urisan_span sch = uri->scheme, host = uri->host, path = uri->path;
    if (!span_ok(path, len))
        return false;
    if (sch.off != URISAN_ABSENT && (sch.off != 0 || sch.len >= len || in[sch.len] != ':'))
        return false;
    /* the host inside in[0..path.off) (path.off <= len is checked) */
    if (host.off != URISAN_ABSENT && (host.off > path.off || host.len > path.off - host.off))
        return false;
    if (uri->userinfo.off != URISAN_ABSENT && !span_ok(uri->userinfo, len))
        return false;
    if (uri->port.off != URISAN_ABSENT && uri->port.len > 0 && !span_ok(uri->port, len))
        return false;
    bool odd, pairs;
    simd_plain_summary(in, len, &odd, &pairs);
    *pre = PRE_PLAIN | (pairs ? 0 : PRE_NO_SLASH_DOT | PRE_NO_DASH_DASH);
    return !odd;
}

/* nested_maybe, or the parse's summary of this very input when it has
   one (sum: SCAN_SUM_*): the fast path marked the same bytes of the query
   and fragment (SCAN_SUM_NEST). */
static inline bool nested_gate(const char *in, size_t len, const urisan_uri *uri, unsigned sum)
{
    return (sum & SCAN_SUM_PLAIN) ? (sum & SCAN_SUM_NEST) != 0 : nested_maybe(in, len, uri);
}

/* A plain input (prefilter): the families with no odd byte. */
static ANALYZE_INLINE void analyze_plain(const char *in, size_t len, const urisan_uri *uri,
                                 const urisan_policy *pol, unsigned sum, unsigned pre,
                                 urisan_report *out)
{
    memset(out, 0, sizeof *out);
    urisan_flags f = families(in, len, uri, pol, 0, pre | PRE_PLAIN, out);
    if (nested_gate(in, len, uri, sum) && urisan_nested_any(in, len, uri))
        f |= F(NESTED_URL);
    out->flags = f ? implications(f) : 0;
}

/* ------------------------------------------------------------------ */
/* The full analysis                                                    */
/* ------------------------------------------------------------------ */

/* uri with every span that does not fit in[0..len) made absent. */
static void spans_checked(const urisan_uri *uri, size_t len, urisan_uri *u)
{
    urisan_span none = {URISAN_ABSENT, 0};
    *u = *uri;
    if (!span_ok(u->scheme, len)) u->scheme = none;
    if (!span_ok(u->userinfo, len)) u->userinfo = none;
    if (!span_ok(u->host, len)) u->host = none;
    if (!span_ok(u->port, len)) u->port = none;
    if (!span_ok(u->path, len)) u->path = none;
}

/* Every input: the byte checks, then the families. sum: the parse's
   summary of this very in/len (SCAN_SUM_*), 0: none. */
static ANALYZE_NOINLINE urisan_status analyze_full(const char *in, size_t len,
                                                   const urisan_uri *uri,
                                                   const urisan_policy *pol,
                                                   urisan_report *out, unsigned sum)
{
    memset(out, 0, sizeof *out);
    if (uri == NULL || (in == NULL && len != 0)) {
        out->flags = F(INVALID);
        return URISAN_E_BAD_ARGUMENT;
    }
    if (in == NULL)
        in = ""; /* len == 0: no byte is read, and no arithmetic on NULL */
    if (uri->error.code == URISAN_E_TOO_LONG) {
        /* too_long (doc/policy.md): analysis stops at the bound - exactly
           these two */
        out->flags = F(TOO_LONG) | F(INVALID);
        return URISAN_OK;
    }
    if (uri->error.code == URISAN_E_BAD_ARGUMENT) {
        out->flags = F(INVALID);
        return URISAN_OK;
    }
    urisan_flags f = uri->valid ? 0 : F(INVALID);
    /* The byte checks, and which kinds of odd byte the input holds (the
       families skip what needs a "%" or another odd byte). */
    unsigned cls;
    f |= scan_bytes(in, len, &cls);
    urisan_uri u;
    spans_checked(uri, len, &u);
    f |= families(in, len, &u, pol, cls, (sum & SCAN_SUM_PLAIN) ? PRE_FAST_PARSED : 0, out);
    if (nested_gate(in, len, uri, sum) && urisan_nested_any(in, len, uri))
        f |= F(NESTED_URL);
    out->flags = implications(f);
    return URISAN_OK;
}

/* ------------------------------------------------------------------ */
/* The entry point                                                      */
/* ------------------------------------------------------------------ */

urisan_status urisan_analyze_full(const char *in, size_t len, const urisan_uri *uri,
                                  const urisan_policy *pol, urisan_report *out)
{
    if (out == NULL)
        return URISAN_E_BAD_ARGUMENT;
    if (pol != NULL && pol->magic != POL_MAGIC)
        pol = NULL;
    urisan_status st = analyze_full(in, len, uri, pol, out, 0);
    if (pol != NULL && (pol->n_user_content | pol->n_shortener) != 0 && uri != NULL)
        out->flags |= urisan_pol_host_marks(pol, in != NULL ? in : "", len, uri);
    return st;
}

/* The analysis under a policy with user-content-host or shortener-host
   lines: the flags, and those the lists give the host as written (the
   analysis of every other policy does not test for them). */
static ANALYZE_NOINLINE urisan_status analyze_marked(const char *in, size_t len,
                                                     const urisan_uri *uri,
                                                     const urisan_policy *pol,
                                                     urisan_report *out, unsigned sum)
{
    urisan_status st = analyze_full(in, len, uri, pol, out, sum);
    if (st == URISAN_OK && uri != NULL && in != NULL && uri->error.code != URISAN_E_TOO_LONG)
        out->flags |= urisan_pol_host_marks(pol, in, len, uri);
    return st;
}

/* sum: the parse's summary of this very in/len (SCAN_SUM_*), 0: none. */
static ANALYZE_INLINE urisan_status analyze(const char *in, size_t len, const urisan_uri *uri,
                                            const urisan_policy *pol, urisan_report *out,
                                            unsigned sum)
{
    if (out == NULL)
        return URISAN_E_BAD_ARGUMENT;
    if (pol != NULL) {
        if (pol->magic != POL_MAGIC)
            pol = NULL;
        else if ((pol->n_user_content | pol->n_shortener) != 0)
            return analyze_marked(in, len, uri, pol, out, sum);
    }
    unsigned pre = 0;
    if (uri != NULL && in != NULL && prefilter(in, len, uri, sum, &pre)) {
        analyze_plain(in, len, uri, pol, sum, pre, out);
        return URISAN_OK;
    }
    return analyze_full(in, len, uri, pol, out, sum);
}

/* urisan_check: the parse hands its summary over (internal.h). */
urisan_status urisan_analyze_sum(const char *in, size_t len, const urisan_uri *uri,
                                 const urisan_policy *pol, urisan_report *out, unsigned sum)
{
    return analyze(in, len, uri, pol, out, sum);
}

/* On its own: no summary, the prefilter makes its own pass. */
URISAN_API urisan_status urisan_analyze(const char *in, size_t len, const urisan_uri *uri,
                                        const urisan_policy *pol, urisan_report *out)
{
    return analyze(in, len, uri, pol, out, 0);
}
