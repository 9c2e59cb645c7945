/*
 * analyze_scheme.h - the flags of the scheme and the port (urisan(1), FLAGS):
 * dangerous_scheme (the scheme table's mark or the policy's own entries,
 * read as a browser reads the scheme), handler_scheme (handlers.c), nondefault_port and
 * reserved_port; and the WHATWG kind of the parsed scheme, which the
 * authority rules need. Part of the analysis' one translation unit
 * (analyze.h).
 */
#ifndef URISAN_ANALYZE_SCHEME_H
#define URISAN_ANALYZE_SCHEME_H

#include "analyze.h"

/* dangerous_scheme of the scheme name[0..n) (any case) whose table row
   is row, under pol (valid or NULL): the scheme table's one rule
   (urisan_scheme_row_dangerous), the policy's dangerous-scheme entries
   as its overlay. */
static ANALYZE_INLINE bool row_dangerous(const scheme_row *row, const urisan_policy *pol,
                                         const char *name, size_t n)
{
    scheme_overlay ov = policy_overlay(pol);
    return urisan_scheme_row_dangerous(row, &ov, name, n);
}

/* dangerous_scheme (row_dangerous) and handler_scheme (the row's mark:
   handlers.c's table) of the scheme name[0..n). */
static ANALYZE_INLINE urisan_flags row_flags(const scheme_row *row, const urisan_policy *pol,
                                             const char *name, size_t n)
{
    urisan_flags f = row_dangerous(row, pol, name, n) ? F(DANGEROUS_SCHEME) : 0;
    if (row->bits & SCHEME_HANDLER)
        f |= F(HANDLER_SCHEME);
    return f;
}

/*
 * dangerous_scheme and handler_scheme: the scheme as a browser reads it. WHATWG URL parsing
 * first strips leading C0 controls and spaces and removes every TAB, LF
 * and CR; then the scheme is ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
 * up to ":", compared without case ("java\tscript:", " JavaScript:").
 */
static urisan_flags scheme_dangerous(const char *in, size_t len, const urisan_policy *pol)
{
    char name[POL_MAX_NAME];
    size_t n = 0, i = 0;
    while (i < len && (unsigned char)in[i] <= 0x20)
        i++;
    for (; i < len; i++) {
        unsigned char c = (unsigned char)in[i];
        if (cc_is(c, CC_TABNL))
            continue;
        if (c == ':') {
            if (n == 0)
                return 0;
            scheme_row row = urisan_scheme_row_of(name, n, 0);
            return row_flags(&row, pol, name, n);
        }
        if (n == 0 ? !cc_is(c, CC_ALPHA) : !cc_is(c, CC_SCHEME))
            return 0;
        if (n == sizeof name)
            return 0; /* longer than any listed scheme */
        name[n++] = (char)lower_ascii(c);
    }
    return 0;
}

/*
 * The parsed scheme in[0..n) of an input the parse did not find valid,
 * lower-cased into name: false when a byte is not a scheme character
 * (ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )).
 */
static ANALYZE_INLINE bool scheme_fold(const char *in, size_t n, char *name)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)in[i];
        if (i == 0 ? !cc_is(c, CC_ALPHA) : !cc_is(c, CC_SCHEME))
            return false;
        name[i] = (char)lower_ascii(c);
    }
    return true;
}

/*
 * dangerous_scheme, and the kind of the parsed scheme and where it ends
 * (*si). When the input holds no byte a browser strips (cls has no
 * SCAN_ODD) and the scheme starts it, the scheme is the text before the
 * ":", looked up once for both; else scheme_dangerous reads it as a
 * browser does. A plain input (pre & PRE_PLAIN) without a scheme has no
 * ":" before its first "/", "?" or "#": no scheme for a browser either.
 */
static ANALYZE_INLINE urisan_flags scheme_flags(const char *in, size_t len, const urisan_uri *u,
                                                unsigned cls, unsigned pre,
                                                const urisan_policy *pol, scheme_info *si)
{
    urisan_span sch = u->scheme;
    si->kind = SCH_NONE;
    si->after = 0;
    if (sch.off == URISAN_ABSENT && (pre & PRE_PLAIN))
        return 0;
    if (!(pre & PRE_PLAIN) &&
        ((cls & SCAN_ODD) || sch.off != 0 || sch.len >= len || in[sch.len] != ':')) {
        if (sch.off != URISAN_ABSENT) {
            si->kind = urisan_scheme_kind(in + sch.off, sch.len);
            si->after = sch.off + sch.len + 1 > len ? len : sch.off + sch.len + 1;
        }
        return scheme_dangerous(in, len, pol);
    }
    char name[POL_MAX_NAME];
    size_t n = sch.len;
    si->kind = SCH_OTHER;
    si->after = n + 1; /* the ":" is in[n] */
    /* a valid parse has one to max_scheme scheme characters there, which
       the table's lookups and the overlay compare without case ("| 0x20"
       folds them) */
    const char *s = in;
    if (!(pre & PRE_PLAIN) && !u->valid) {
        if (n == 0 || n > sizeof name || !scheme_fold(in, n, name))
            return 0;
        s = name;
    }
    scheme_row row = urisan_scheme_row_of(s, n, 0x20);
    si->kind = row.kind;
    return row_flags(&row, pol, s, n);
}

static ANALYZE_INLINE urisan_flags port_flags(const char *in, const urisan_uri *uri,
                                              const urisan_policy *pol)
{
    urisan_span p = uri->port;
    if (p.off == URISAN_ABSENT || p.len == 0)
        return 0; /* no port or "host:" - never flagged */
    uint32_t v = 0;
    for (size_t i = 0; i < p.len; i++) {
        unsigned char c = (unsigned char)in[p.off + i];
        if (!cc_is(c, CC_DIGIT))
            return 0; /* not all digits: only invalid */
        if (v <= 0xFFFFFF)
            v = v * 10 + (uint32_t)(c - '0'); /* saturates well above 65535 */
    }
    int def = -1;
    if (uri->scheme.off != URISAN_ABSENT) {
        scheme_overlay ov = policy_overlay(pol);
        def = urisan_scheme_port(&ov, in + uri->scheme.off, uri->scheme.len);
    }
    /* numeric compare: ":080" is 80 for http */
    if (def >= 0 && v == (uint32_t)def)
        return 0;
    urisan_flags f = F(NONDEFAULT_PORT);
    if (v <= 1023) /* well-known ports: cross-protocol space (RFC 3986 7.2) */
        f |= F(RESERVED_PORT);
    return f;
}

#endif
