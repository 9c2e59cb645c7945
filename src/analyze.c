/*
 * analyze.c - risk analysis (SPEC 3): from a parsed input to the flag set
 * and the de-obfuscated host address.
 *
 * Flags are facts about the string; the policy (policy.c) decides what to
 * do about them. Every scan below is a single forward pass over one part of
 * the input (a few look at most three bytes ahead), so the whole analysis
 * is linear; nothing allocates and nothing recurses.
 */
#include "risk.h"
#include "scan.h"
#include "names.h"

#include <string.h>

#define F(name) URISAN_F(name)

/* A span from the parse that lies inside in[0..len); anything else (absent
   or a span the caller forged) is treated as absent. */
static bool span_ok(urisan_span s, size_t len)
{
    return s.off != URISAN_ABSENT && s.off <= len && s.len <= len - s.off;
}

static unsigned char esc_byte(const char *in, size_t i)
{
    return (unsigned char)(hexval((unsigned char)in[i + 1]) * 16 +
                           hexval((unsigned char)in[i + 2]));
}

/* ------------------------------------------------------------------ */
/* Whole-input byte scan                                                */
/* ------------------------------------------------------------------ */

/*
 * Overlong UTF-8 in consecutive escapes (SPEC 3 overlong_utf8): lead C0-C1
 * + 1 continuation; E0 then 80-9F + 1 more; F0 then 80-8F + 2 more; the
 * obsolete 5- and 6-byte forms F8 then 80-87 + 3, FC then 80-83 + 4. Lax
 * decoders read %c0%ae as ".", %c0%af as "/", %c0%80 as NUL.
 */
typedef struct {
    unsigned need;     /* continuation bytes still expected; 0: no lead */
    unsigned first_hi; /* upper bound of the first continuation byte */
    bool first;        /* the next byte is the first continuation */
} overlong_state;

static bool overlong_lead(overlong_state *o, unsigned char b)
{
    o->first = true;
    switch (b) {
    case 0xC0: case 0xC1: o->need = 1; o->first_hi = 0xBF; return true;
    case 0xE0: o->need = 2; o->first_hi = 0x9F; return true;
    case 0xF0: o->need = 3; o->first_hi = 0x8F; return true;
    case 0xF8: o->need = 4; o->first_hi = 0x87; return true;
    case 0xFC: o->need = 5; o->first_hi = 0x83; return true;
    default: o->need = 0; return false;
    }
}

/* Feed one escaped byte; true when an overlong sequence just completed. */
static bool overlong_feed(overlong_state *o, unsigned char b)
{
    if (o->need > 0) {
        unsigned hi = o->first ? o->first_hi : 0xBF;
        if (b >= 0x80 && b <= hi) {
            o->first = false;
            if (--o->need == 0)
                return true;
            return false;
        }
        /* broken sequence: this byte may start a new one */
    }
    overlong_lead(o, b);
    return false;
}

/* Does in[lo..hi) hold an odd byte (simd.h)? */
static bool odd_in(const char *in, size_t len, size_t lo, size_t hi)
{
    for (size_t b = lo & ~(size_t)63; b < hi; b += 64) {
        uint64_t m = simd_odd_mask(in, len, b) & (~(uint64_t)0 << (lo > b ? lo - b : 0));
        if (hi - b < 64)
            m &= ((uint64_t)1 << (hi - b)) - 1;
        if (m != 0)
            return true;
    }
    return false;
}

/* What scan_bytes carries from byte to byte. */
typedef struct {
    urisan_flags f;
    unsigned cls;      /* SCAN_PCT, SCAN_ODD: the kinds of odd byte seen */
    overlong_state ol;
    /* last two bytes of the decoded stream: d2 before d1; 0x100 = none */
    unsigned d2, d1;
} byte_state;

/* The next byte of the once-decoded stream. A raw "%" HEX HEX is itself
   decoded, so any escape seen in the decoded stream was made by the
   decoding: double encoding (%252e, %2500, %%32%65). */
static inline void decoded(byte_state *s, unsigned out)
{
    if (s->d2 == '%' && s->d1 < 0x100 && cc_is((unsigned char)s->d1, CC_HEX) &&
        cc_is((unsigned char)out, CC_HEX))
        s->f |= F(DOUBLE_ENCODING);
    s->d2 = s->d1;
    s->d1 = out;
}

/* in[from..to): bytes that are not odd (simd.h): none is flagged; each
   breaks an escape run and is a decoded byte. Past the first two, a
   plain byte cannot follow a decoded "%" - only the last two matter. */
static inline void feed_plain(byte_state *s, const char *in, size_t from, size_t to)
{
    if (from == to)
        return;
    s->ol.need = 0; /* escapes must be consecutive; raw bytes do not count */
    decoded(s, (unsigned char)in[from]);
    if (to - from >= 2)
        decoded(s, (unsigned char)in[from + 1]);
    if (to - from > 2) {
        s->d2 = (unsigned char)in[to - 2];
        s->d1 = (unsigned char)in[to - 1];
    }
}

/* The odd byte at in[i]: an escape (3 bytes) or a raw byte. Returns the
   offset after it. */
static inline size_t feed_odd(byte_state *s, const char *in, size_t len, size_t i)
{
    unsigned char c = (unsigned char)in[i];
    s->cls |= c == '%' ? SCAN_PCT : SCAN_ODD;
    if (c == '%' && is_escape_at(in, len, i)) {
        unsigned char b = esc_byte(in, i);
        if (b == 0x0D || b == 0x0A)
            s->f |= F(ESCAPED_CRLF);
        if (b == 0x00)
            s->f |= F(ESCAPED_NUL);
        if (cc_is(b, CC_CTL))
            s->f |= F(ESCAPED_CTL);
        if (overlong_feed(&s->ol, b))
            s->f |= F(OVERLONG_UTF8);
        decoded(s, b);
        return i + 3;
    }
    s->ol.need = 0;
    if (c == '%')
        s->f |= F(INVALID_ESCAPE);
    if (cc_is(c, CC_CTL))
        s->f |= F(CTL_RAW);
    if (cc_is(c, CC_WS))
        s->f |= F(WHITESPACE);
    if (cc_is(c, CC_HIGH))
        s->f |= F(NON_ASCII);
    if (c == '\\')
        s->f |= F(BACKSLASH);
    decoded(s, c);
    return i + 1;
}

/*
 * Every byte check of SPEC 3 in one pass: raw bytes (ctl_raw, whitespace,
 * non_ascii, backslash), escapes (escaped_*, invalid_escape,
 * overlong_utf8) and the once-decoded stream (double_encoding). Only the
 * odd bytes (simd_odd_mask: 64 at a time) are looked at one by one; the
 * runs between them cost two steps each.
 */
static urisan_flags scan_bytes(const char *in, size_t len, unsigned *cls)
{
    byte_state s = {0, 0, {0, 0, false}, 0x100, 0x100};
    size_t next = 0; /* in[0..next) is fed */
    for (size_t b = 0; b < len; b += 64) {
        for (uint64_t m = simd_odd_mask(in, len, b); m != 0; m &= m - 1) {
            size_t i = b + scan_ctz64(m);
            if (i < next)
                continue; /* inside an escape already fed */
            feed_plain(&s, in, next, i);
            next = feed_odd(&s, in, len, i);
        }
    }
    if (next < len)
        feed_plain(&s, in, next, len);
    *cls = s.cls;
    return s.f;
}

/* ------------------------------------------------------------------ */
/* Path: dot segments (SPEC 3; RFC 3986 5.2.4)                          */
/* ------------------------------------------------------------------ */

/* 0: not a dot segment; 1: "."; 2: "..". *enc set when a %2e was used.
   Only %2e/%2E is decoded (SPEC 3: a server that decodes first sees it). */
static int dot_segment(const char *in, size_t s, size_t e, bool *enc)
{
    int dots = 0;
    bool used = false;
    size_t j = s;
    while (j < e && dots < 3) {
        if (in[j] == '.') {
            j++;
        } else if (is_escape_at(in, e, j) && in[j + 1] == '2' && (in[j + 2] | 0x20) == 'e') {
            used = true;
            j += 3;
        } else {
            return 0;
        }
        dots++;
    }
    if (j != e || dots == 0 || dots > 2)
        return 0;
    *enc = used;
    return dots;
}

/*
 * Segments are separated by "/" only. dot_above_root: a path that starts
 * with "/" has a root; RFC 3986 5.2.4 step 2C pops the last output segment
 * for each ".."; a ".." with nothing left to pop climbs above the root. A
 * depth counter judges that in one pass ("." keeps the depth, every other
 * segment - empty ones too - pushes one).
 */
static urisan_flags scan_path(const char *in, urisan_span path)
{
    urisan_flags f = 0;
    size_t s = path.off, end = path.off + path.len;
    bool rooted = path.len > 0 && in[s] == '/';
    size_t depth = 0;
    if (rooted)
        s++; /* the root itself is no segment */
    for (;;) {
        size_t e = s;
        while (e < end && in[e] != '/')
            e++;
        bool enc = false;
        int d = dot_segment(in, s, e, &enc);
        if (d > 0) {
            f |= F(DOT_SEGMENTS);
            if (enc)
                f |= F(ENCODED_DOT);
        }
        if (d == 2) {
            if (depth == 0) {
                if (rooted)
                    f |= F(DOT_ABOVE_ROOT);
            } else {
                depth--;
            }
        } else if (d == 0) {
            depth++;
        }
        if (e >= end)
            break;
        s = e + 1;
    }
    return f;
}

/* ------------------------------------------------------------------ */
/* Host: addresses and IDN                                              */
/* ------------------------------------------------------------------ */

/* The address classes (addrclass.c: the IANA special-purpose registries;
   for IPv6 also the IPv4 address it carries). */
static void classify_v4(const uint8_t a[4], urisan_flags *f)
{
    *f |= urisan_addr_class_v4(a);
}

static void classify_v6(const uint8_t a[16], urisan_flags *f)
{
    *f |= urisan_addr_class_v6(a);
}

/* IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ) (3.2.2) */
static bool is_ipvfuture(const char *s, size_t n)
{
    size_t i = 1;
    if (n < 4 || (s[0] | 0x20) != 'v')
        return false;
    while (i < n && cc_is((unsigned char)s[i], CC_HEX))
        i++;
    if (i == 1 || i >= n || s[i] != '.' || i + 1 == n)
        return false;
    for (i++; i < n; i++)
        if (!cc_is((unsigned char)s[i], CC_USER))
            return false;
    return true;
}

/*
 * ip_literal, ip_obfuscated and the address classes (SPEC 3). Names such
 * as "localhost" get no IP flag; only hosts that are addresses do.
 */
static urisan_flags host_address(const char *in, const urisan_uri *uri, urisan_span h,
                                 urisan_report *out)
{
    urisan_flags f = 0;
    const char *s = in + h.off;
    size_t n = h.len;
    if (n == 0)
        return 0;
    if (s[0] == '[') {
        /* The literal runs to the first "]" (SPEC 2); the address is the
           text before any "%" (the RFC 6874 zone delimiter): a zone the
           strict grammar rejects ("%eth0") still names that address. */
        size_t a = 1, b = 1;
        while (b < n && s[b] != ']')
            b++;
        size_t pct = a;
        while (pct < b && s[pct] != '%')
            pct++;
        size_t errpos = 0;
        if (urisan_parse_ipv6(s + a, pct - a, out->ip, &errpos)) {
            out->ip_family = 6;
            f |= F(IP_LITERAL);
            classify_v6(out->ip, &f);
        } else {
            memset(out->ip, 0, sizeof out->ip);
            if (is_ipvfuture(s + a, b - a))
                f |= F(IP_LITERAL);
        }
        return f;
    }
    /* strict dotted-decimal starts with a digit (and writes nothing
       before failing on anything else) */
    if (uri->host_type == URISAN_HOST_IPV4 ||
        (cc_is((unsigned char)s[0], CC_DIGIT) && urisan_parse_ipv4_strict(s, n, out->ip))) {
        if (uri->host_type == URISAN_HOST_IPV4)
            memcpy(out->ip, uri->ip, 4);
        out->ip_family = 4;
        f |= F(IP_LITERAL);
    } else if (urisan_ipv4_deobfuscate(s, n, out->ip)) {
        /* not dotted-decimal, yet browsers and inet_aton connect there */
        out->ip_family = 4;
        f |= F(IP_LITERAL) | F(IP_OBFUSCATED);
    } else {
        memset(out->ip, 0, sizeof out->ip);
        return 0;
    }
    classify_v4(out->ip, &f);
    return f;
}

/*
 * idn: a label of the percent-decoded host starts with "xn--" (any case),
 * or the host holds a byte >= 0x80, raw or percent-encoded.
 */
static urisan_flags host_idn(const char *s, size_t n)
{
    static const char ace[4] = {'x', 'n', '-', '-'}; /* RFC 5890 2.3.2.1 */
    size_t pos = 0;     /* decoded bytes into the current label */
    bool match = true;  /* the label so far is a prefix of "xn--" */
    bool bracketed = n > 0 && s[0] == '[';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '%' && is_escape_at(s, n, i)) {
            c = esc_byte(s, i);
            i += 2;
        }
        if (c >= 0x80)
            return F(IDN);
        if (bracketed)
            continue;
        if (c == '.') {
            pos = 0;
            match = true;
            continue;
        }
        if (match && pos < 4) {
            if (lower_ascii(c) != (unsigned char)ace[pos])
                match = false;
            else if (pos == 3)
                return F(IDN);
        }
        pos++;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Scheme                                                               */
/* ------------------------------------------------------------------ */

/* One of the policy's own dangerous-scheme entries (lower-case name). */
static bool scheme_dangerous_overlay(const urisan_policy *pol, const char *name, size_t n)
{
    scheme_overlay ov = policy_overlay(pol);
    return urisan_scheme_overlay_dangerous(&ov, name, n);
}

/* A lower-case scheme name: marked dangerous in the scheme table, or one of
   the policy's own entries (pol valid or NULL). */
static bool name_dangerous(const urisan_policy *pol, const char *name, size_t n)
{
    const scheme_row *row = urisan_scheme_find_folded(name, n, 0);
    return (row != NULL && (row->bits & SCHEME_DANGEROUS)) ||
           (pol != NULL && pol->n_dangerous > 0 && scheme_dangerous_overlay(pol, name, n));
}

/*
 * dangerous_scheme: the scheme as a browser reads it. WHATWG URL parsing
 * first strips leading C0 controls and spaces and removes every TAB, LF
 * and CR; then the scheme is ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
 * up to ":", compared without case ("java\tscript:", " JavaScript:").
 */
static bool scheme_dangerous(const char *in, size_t len, const urisan_policy *pol)
{
    char name[POL_MAX_NAME];
    size_t n = 0, i = 0;
    while (i < len && (unsigned char)in[i] <= 0x20)
        i++;
    for (; i < len; i++) {
        unsigned char c = (unsigned char)in[i];
        if (cc_is(c, CC_TABNL))
            continue;
        if (c == ':')
            return n > 0 && name_dangerous(pol, name, n);
        if (n == 0 ? !cc_is(c, CC_ALPHA) : !cc_is(c, CC_SCHEME))
            return false;
        if (n == sizeof name)
            return false; /* longer than any listed scheme */
        name[n++] = (char)lower_ascii(c);
    }
    return false;
}

/* scheme_dangerous for in[0..n) ":" with no byte a browser strips. */
static bool scheme_dangerous_plain(const char *in, size_t n, const urisan_policy *pol)
{
    char name[POL_MAX_NAME];
    if (n == 0 || n > sizeof name)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)in[i];
        if (i == 0 ? !cc_is(c, CC_ALPHA) : !cc_is(c, CC_SCHEME))
            return false;
        name[i] = (char)lower_ascii(c);
    }
    return name_dangerous(pol, name, n);
}


/* ------------------------------------------------------------------ */
/* ambiguous_authority (SPEC 3)                                         */
/* ------------------------------------------------------------------ */

/* The WHATWG kind of the parsed scheme (schemes.h). */
static int scheme_kind(const char *in, urisan_span sch)
{
    if (sch.off == URISAN_ABSENT)
        return SCH_NONE;
    return urisan_scheme_kind(in + sch.off, sch.len);
}

/*
 * Could RFC 3986, WHATWG/browsers, curl, Python and Go disagree on the
 * host? Judged on the raw input; every rule is one SPEC 3 bullet.
 */
static bool ambiguous(const char *in, size_t len, const urisan_uri *uri, urisan_span host,
                      unsigned cls, const scan_iter *base)
{
    int kind = scheme_kind(in, uri->scheme);
    size_t r = kind == SCH_NONE ? 0 : uri->scheme.off + uri->scheme.len + 1;
    if (r > len)
        r = len;

    /* the run of "/" and "\" right after "scheme:" (or at the start) */
    size_t k = r, nslash = 0, nback = 0;
    while (k < len && (in[k] == '/' || in[k] == '\\')) {
        if (in[k] == '\\')
            nback++;
        k++;
    }
    size_t run = k - r;
    size_t lead = 0; /* leading "/" only */
    while (r + lead < len && in[r + lead] == '/')
        lead++;
    nslash = lead;

    /* "http:\\a", "http:/\a", "\/\/a": browsers read "\" as "/" */
    if (run >= 2 && nback > 0)
        return true;
    switch (kind) {
    case SCH_SPECIAL:
        /* http, https, ws, wss, ftp not followed by exactly "//":
           browsers skip any number of slashes, RFC 3986 does not */
        if (!(nslash == 2 && run == 2))
            return true;
        break;
    case SCH_FILE:
        /* "file:////host/share" is a UNC path on Windows (RFC 8089 E.3.2) */
        if (nslash >= 4)
            return true;
        break;
    case SCH_OTHER:
        /* curl reads an authority after "x:/" and "x:///"; RFC 3986 and
           WHATWG do not ("dict:///127.0.0.1:11211/", "mailto:/a@b") */
        if (nslash == 1 || nslash >= 3)
            return true;
        break;
    default:
        /* a reference starting "///", "/\" or "\\" */
        if (nslash >= 3)
            return true;
        break;
    }

    /* The authority of RFC 3986 Appendix B: after "//", up to / ? # */
    if (nslash >= 2) {
        /* Every byte these rules look at is special (scan.h): walk those
           only. */
        size_t as = r + 2, ae = len, ats = 0;
        scan_iter it;
        scan_from(&it, base, as);
        for (size_t j; (j = scan_pop(&it)) < len;) {
            unsigned char c = (unsigned char)in[j];
            if (cc_is(c, CC_AUTHEND)) {
                ae = j;
                break;
            }
            if (c == '@')
                ats++;
            /* "\" ends the authority for browsers; TAB/CR/LF are removed */
            if (c == '\\' || cc_is(c, CC_TABNL))
                return true;
        }
        if (ats > 1)
            return true;
        /* "http://a#@b", "http://a?@b/": an "@" after the "?" or "#" that
           ends the authority, before the next "/", is a userinfo for
           parsers that end the authority elsewhere */
        if (ae < len && in[ae] != '/') {
            for (size_t j; (j = scan_pop(&it)) < len && in[j] != '/';)
                if (in[j] == '@')
                    return true;
        }
        if (kind == SCH_FILE) {
            /* "file://C:/x", "file://c|/x": a drive letter, not a host */
            if (ae - as == 2 && cc_is((unsigned char)in[as], CC_ALPHA) &&
                (in[as + 1] == ':' || in[as + 1] == '|'))
                return true;
        }
    }

    if (host.off != URISAN_ABSENT && host.len > 0) {
        const char *h = in + host.off;
        if ((cls & SCAN_PCT) && h[0] != '[' && uri->host_type != URISAN_HOST_IPV4) {
            /* any escape in a name: "%2f", "%23", "%00", "%67oogle.com" -
               some parsers decode it, some refuse, some split on it */
            for (size_t j = 0; j < host.len; j++)
                if (is_escape_at(h, host.len, j))
                    return true;
        }
        /* "file://localhost/" and "file://127.0.0.1/": local file or host? */
        if (kind == SCH_FILE && (urisan_ieq(h, host.len, "localhost") ||
                                 (host.len == 9 && memcmp(h, "127.0.0.1", 9) == 0)))
            return true;
    }
    return false;
}

/* ------------------------------------------------------------------ */
/* Ports                                                                */
/* ------------------------------------------------------------------ */

static urisan_flags port_flags(const char *in, const urisan_uri *uri, const urisan_policy *pol)
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

/* ------------------------------------------------------------------ */
/* The entry point                                                      */
/* ------------------------------------------------------------------ */

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
/* Fast path: valid, plain inputs                                       */
/* ------------------------------------------------------------------ */

/*
 * Most inputs are valid URIs without "%" and without any byte scan_bytes
 * looks at (a control, space, DEL, non-ASCII or "\\"). For them most flags
 * cannot fire: no byte or escape flag, no encoded_slash, no escape in the
 * host, at most one "@" in the authority (userinfo has none), idn only as
 * an "xn--" label (so only with "--" in the host), dangerous_scheme only
 * on the parsed scheme. One pass over the input (16 bytes at a time)
 * proves the input plain and finds the only places where the rest can
 * fire: a "/" followed by "." (a dot segment must start there or at the
 * start of the path) and "--". Everything else comes from the parse.
 *
 * simd_plain_summary (simd.h) proves the input plain and finds the pairs.
 */

/*
 * Could a query or fragment parameter hold a nested URL (nested.c)? Its
 * value starts, after decoding once or twice, with a scheme's ":" or two
 * of "/" "\\": from the query on, some raw ":", "\\" or "//", or an
 * escape that decodes to ":", "/", "\\" or "%" (%3a %2f %5c %25), or a
 * "%" that is no escape (the second decoding may make one: "%%32%66").
 * A walk over the special bytes only.
 */
static bool nested_escape(const char *in, size_t len, size_t j)
{
    if (!is_escape_at(in, len, j))
        return true;
    char h = in[j + 1], l = (char)(in[j + 2] | 0x20);
    return (h == '3' && l == 'a') || (h == '2' && (l == 'f' || l == '5')) ||
           (h == '5' && l == 'c');
}

static bool nested_maybe(const char *in, size_t len, const urisan_uri *uri,
                         const scan_iter *base /* NULL: none at hand */)
{
    size_t from = len;
    if (span_ok(uri->query, len))
        from = uri->query.off;
    else if (span_ok(uri->fragment, len))
        from = uri->fragment.off;
    if (from >= len)
        return false;
    scan_iter it;
    if (base != NULL)
        scan_from(&it, base, from);
    else
        scan_init_at(&it, in, len, from);
    for (size_t j; (j = scan_pop(&it)) < len;) {
        char c = in[j];
        if (c == ':' || c == '\\' || (c == '/' && j + 1 < len && in[j + 1] == '/') ||
            (c == '%' && nested_escape(in, len, j)))
            return true;
    }
    return false;
}

/* What the parse fast path saw of this very in/len is taken from uri
   (SCAN_SUM_*); else one pass finds it. */
static inline bool analyze_plain(const char *in, size_t len, const urisan_uri *uri,
                                 const urisan_policy *pol, urisan_report *out)
{
    if (!uri->valid || uri->error.code != URISAN_OK || len == 0)
        return false;
    urisan_span sch = uri->scheme, host = uri->host, path = uri->path;
    if (!span_ok(path, len))
        return false;
    if (sch.off != URISAN_ABSENT && (sch.off != 0 || sch.len >= len || in[sch.len] != ':'))
        return false;
    bool auth = host.off != URISAN_ABSENT;
    /* the host inside in[0..path.off) (path.off <= len is checked) */
    if (auth && (host.off > path.off || host.len > path.off - host.off))
        return false;

    /* One pass: the input is plain; where a dot segment or "xn--" could
       start is looked at only when some "/." or "--" exists at all. */
    bool odd, pairs, slash_dot;
    bool known = uri->scan_in_ == in && uri->scan_len_ == len &&
                 (uri->scan_bits_ & SCAN_SUM_PLAIN) != 0;
    if (known) {
        /* no odd byte but "%"; "/." in the path known; "--" looked for
           in the host below */
        odd = (uri->scan_bits_ & SCAN_SUM_PCT) != 0;
        pairs = true;
        slash_dot = (uri->scan_bits_ & SCAN_SUM_SLASH_DOT) != 0;
    } else {
        simd_plain_summary(in, len, &odd, &pairs);
        slash_dot = pairs;
    }
    if (odd)
        return false;

    if (pol != NULL && pol->magic != POL_MAGIC)
        pol = NULL;
    memset(out, 0, sizeof *out);
    urisan_flags f = 0;
    size_t ps = path.off, pe = ps + path.len;
    if ((path.len > 0 && in[ps] == '.') ||
        (slash_dot && (known || simd_pair_in_scalar(in, ps, pe, '/', '.'))))
        f |= scan_path(in, path);
    if (uri->userinfo.off != URISAN_ABSENT) {
        urisan_span ui = uri->userinfo;
        if (!span_ok(ui, len))
            return false;
        f |= F(USERINFO);
        if (memchr(in + ui.off, ':', ui.len) != NULL)
            f |= F(PASSWORD);
    }
    if (uri->port.off != URISAN_ABSENT && uri->port.len > 0) {
        if (!span_ok(uri->port, len))
            return false;
        f |= port_flags(in, uri, pol);
    }
    size_t hs = host.off;
    if (auth && host.len > 0) {
        unsigned char c0 = (unsigned char)in[hs];
        /* a name that starts with a letter, "-" ... is no address: the
           first IPv4 part starts with a digit, and an ASCII byte other
           than "%" maps only to itself (urisan_ipv4_deobfuscate's
           "fast no") */
        bool name = c0 != '[';
        if (!name || cc_is(c0, CC_DIGIT) || uri->host_type == URISAN_HOST_IPV4) {
            f |= host_address(in, uri, host, out);
            name = name && out->ip_family == 0; /* "1password.com" */
        }
        if (name)
            f |= urisan_name_flags_nopct(in, hs, hs + host.len);
        if (pairs && simd_pair_in(in, len, hs, hs + host.len, '-', '-'))
            f |= host_idn(in + hs, host.len);
    }

    /* The scheme, lower-cased (valid scheme characters: "| 0x20" does it).
       dangerous_scheme: nothing for a browser to strip, so the scheme is
       the parsed one; without a scheme a valid reference has no ":"
       before its first "/", "?" or "#", which is no scheme either. */
    int kind = SCH_NONE;
    size_t r = 0;
    if (sch.off != URISAN_ABSENT) {
        char name[POL_MAX_NAME];
        size_t n = sch.len;
        kind = SCH_OTHER;
        if (n > 0 && n <= sizeof name) {
            if (n <= 8 && len >= 8) {
                uint64_t w;
                memcpy(&w, in, 8);
                w |= (uint64_t)0x2020202020202020u;
                memcpy(name, &w, 8);
            } else {
                for (size_t i = 0; i < n; i++)
                    name[i] = (char)(in[i] | 0x20);
            }
            /* the table's mark, or one of the policy's own entries */
            const scheme_row *row = urisan_scheme_find_folded(name, n, 0);
            if (row != NULL) {
                kind = row->kind;
                if (row->bits & SCHEME_DANGEROUS)
                    f |= F(DANGEROUS_SCHEME);
            }
            if (pol != NULL && pol->n_dangerous > 0 && scheme_dangerous_overlay(pol, name, n))
                f |= F(DANGEROUS_SCHEME);
        }
        r = n + 1;
    }

    /* ambiguous_authority: the rules a valid plain input can break */
    size_t nslash = 0;
    if (r + 3 <= len && in[r] == '/' && in[r + 1] == '/' && in[r + 2] != '/')
        nslash = 2; /* the usual "//" before an authority */
    else
        while (r + nslash < len && in[r + nslash] == '/')
            nslash++;
    bool amb;
    switch (kind) {
    case SCH_SPECIAL: amb = nslash != 2; break;
    case SCH_FILE: amb = nslash >= 4; break;
    case SCH_OTHER: amb = nslash == 1 || nslash >= 3; break;
    default: amb = nslash >= 3; break;
    }
    if (!amb && nslash >= 2) {
        /* the authority (App. B) is the parse's: it ends where the path
           starts */
        size_t as = r + 2, ae = ps;
        if (!auth || hs < as || ae < as)
            return false;
        if (ae < len && in[ae] != '/') {
            /* "http://a?@b": an "@" before the next "/" */
            for (size_t j = ae + 1; j < len && in[j] != '/'; j++)
                if (in[j] == '@') {
                    amb = true;
                    break;
                }
        }
        if (kind == SCH_FILE) {
            if (ae - as == 2 && cc_is((unsigned char)in[as], CC_ALPHA) &&
                (in[as + 1] == ':' || in[as + 1] == '|'))
                amb = true;
            const char *h = in + hs;
            if (host.len > 0 && (urisan_ieq(h, host.len, "localhost") ||
                                 (host.len == 9 && memcmp(h, "127.0.0.1", 9) == 0)))
                amb = true;
        }
    }
    if (amb)
        f |= F(AMBIGUOUS_AUTHORITY);
    /* nested_url: a parameter value that is a URL (nested.c). Plain: only
       a raw ":" or "//" can start one, and the parse saw whether the query
       or fragment has one. */
    if ((known ? (uri->scan_bits_ & SCAN_SUM_NEST) != 0
               : uri->query.off != URISAN_ABSENT || uri->fragment.off != URISAN_ABSENT) &&
        (known || nested_maybe(in, len, uri, NULL)) && urisan_nested_any(in, len, uri))
        f |= F(NESTED_URL);
    out->flags = f ? implications(f) : 0;
    return true;
}

#if defined(__GNUC__)
#define ANALYZE_NOINLINE __attribute__((noinline))
#else
#define ANALYZE_NOINLINE
#endif

/* Every input: the general analysis. */
static ANALYZE_NOINLINE urisan_status analyze_full(const char *in, size_t len,
                                                   const urisan_uri *uri,
                                                   const urisan_policy *pol,
                                                   urisan_report *out)
{
    memset(out, 0, sizeof *out);
    if (uri == NULL || (in == NULL && len != 0)) {
        out->flags = F(INVALID);
        return URISAN_E_BAD_ARGUMENT;
    }
    if (in == NULL)
        in = ""; /* len == 0: no byte is read, and no arithmetic on NULL */
    if (pol != NULL && pol->magic != POL_MAGIC)
        pol = NULL;
    if (uri->error.code == URISAN_E_TOO_LONG) {
        /* SPEC 3: analysis stops at the bound - exactly these two */
        out->flags = F(TOO_LONG) | F(INVALID);
        return URISAN_OK;
    }
    if (uri->error.code == URISAN_E_BAD_ARGUMENT) {
        out->flags = F(INVALID);
        return URISAN_OK;
    }

    urisan_flags f = 0;
    if (!uri->valid)
        f |= F(INVALID);
    /* The byte checks, and which kinds of odd byte the input holds (the
       checks below skip what needs a "%" or another odd byte). */
    unsigned cls;
    f |= scan_bytes(in, len, &cls);
    scan_iter base;
    scan_init(&base, in, len);

    urisan_uri u = *uri; /* spans checked against len */
    urisan_span none = {URISAN_ABSENT, 0};
    if (!span_ok(u.scheme, len)) u.scheme = none;
    if (!span_ok(u.userinfo, len)) u.userinfo = none;
    if (!span_ok(u.host, len)) u.host = none;
    if (!span_ok(u.port, len)) u.port = none;
    if (!span_ok(u.path, len)) u.path = none;

    if (u.path.off != URISAN_ABSENT) {
        /* A dot segment starts with "." or "%2e" at the start of the
           path or right after a "/": no such place, no dot flag. */
        if (simd_dot_candidates(in + u.path.off, u.path.len, true))
            f |= scan_path(in, u.path);
    }

    /* userinfo: what precedes the authority's last "@" (SPEC 2); an empty
       one counts. password: a ":" in it, even with nothing after. */
    if (u.userinfo.off != URISAN_ABSENT) {
        f |= F(USERINFO);
        if (memchr(in + u.userinfo.off, ':', u.userinfo.len) != NULL)
            f |= F(PASSWORD);
    }

    f |= port_flags(in, &u, pol);

    /* encoded_slash: %2f or %5c in the authority or the path, where a
       decoding server or proxy would see a separator */
    {
        size_t as = URISAN_ABSENT, ae = 0;
        if (u.host.off != URISAN_ABSENT) {
            as = u.userinfo.off != URISAN_ABSENT ? u.userinfo.off : u.host.off;
            ae = u.host.off + u.host.len;
            if (u.port.off != URISAN_ABSENT)
                ae = u.port.off + u.port.len;
        }
        for (int part = 0; part < 2 && (cls & SCAN_PCT); part++) {
            size_t s = part == 0 ? as : u.path.off;
            size_t e = part == 0 ? ae : u.path.off + u.path.len;
            if (s == URISAN_ABSENT)
                continue;
            for (const char *p = in + s; e - (size_t)(p - in) > 2 &&
                                         (p = memchr(p, '%', e - 2 - (size_t)(p - in))) != NULL;
                 p++) {
                if ((p[1] == '2' && (p[2] | 0x20) == 'f') || (p[1] == '5' && (p[2] | 0x20) == 'c'))
                    f |= F(ENCODED_SLASH);
            }
        }
    }

    if (u.host.off != URISAN_ABSENT && u.host.len > 0) {
        f |= host_address(in, &u, u.host, out);
        if (out->ip_family == 0 && in[u.host.off] != '[')
            f |= (cls & SCAN_PCT) ? urisan_name_flags(in + u.host.off, u.host.len)
                                  : urisan_name_flags_nopct(in, u.host.off,
                                                            u.host.off + u.host.len);
        /* idn needs an escape, a byte >= 0x80 or a "--" ("xn--") */
        size_t he = u.host.off + u.host.len;
        if (odd_in(in, len, u.host.off, he) || simd_pair_in(in, len, u.host.off, he, '-', '-'))
            f |= host_idn(in + u.host.off, u.host.len);
    }

    if (!(cls & SCAN_ODD) && u.scheme.off == 0 && u.scheme.len < len &&
        in[u.scheme.len] == ':') {
        /* Nothing for a browser to strip: the scheme is the text before
           the ":", as scheme_dangerous would read it. */
        if (scheme_dangerous_plain(in, u.scheme.len, pol))
            f |= F(DANGEROUS_SCHEME);
    } else if (scheme_dangerous(in, len, pol)) {
        f |= F(DANGEROUS_SCHEME);
    }
    if (ambiguous(in, len, &u, u.host, cls, &base))
        f |= F(AMBIGUOUS_AUTHORITY);
    if (nested_maybe(in, len, uri, &base) && urisan_nested_any(in, len, uri))
        f |= F(NESTED_URL);

    out->flags = implications(f);
    return URISAN_OK;
}

URISAN_API urisan_status urisan_analyze(const char *in, size_t len, const urisan_uri *uri,
                                        const urisan_policy *pol, urisan_report *out)
{
    if (out == NULL)
        return URISAN_E_BAD_ARGUMENT;
    if (uri != NULL && in != NULL && analyze_plain(in, len, uri, pol, out))
        return URISAN_OK;
    return analyze_full(in, len, uri, pol, out);
}

/* ------------------------------------------------------------------ */
/* Address text                                                         */
/* ------------------------------------------------------------------ */

static size_t put_dec(char *t, unsigned v)
{
    size_t n = 0;
    if (v >= 100)
        t[n++] = (char)('0' + v / 100);
    if (v >= 10)
        t[n++] = (char)('0' + v / 10 % 10);
    t[n++] = (char)('0' + v % 10);
    return n;
}

static size_t put_v4(char *t, const uint8_t a[4])
{
    size_t n = 0;
    for (int i = 0; i < 4; i++) {
        if (i > 0)
            t[n++] = '.';
        n += put_dec(t + n, a[i]);
    }
    return n;
}

/*
 * RFC 5952 section 4: lower-case hex, no leading zeros, the longest run
 * (first on a tie) of two or more zero groups as "::". Section 5: an
 * IPv4-mapped (::ffff:0:0/96) or IPv4-compatible (::/96, from the second
 * group of its last 32 bits on) address ends in dotted decimal - the same
 * text inet_ntop(3) writes.
 */
static size_t put_v6(char *t, const uint8_t a[16])
{
    static const char hex[] = "0123456789abcdef";
    unsigned w[8];
    for (int i = 0; i < 8; i++)
        w[i] = (unsigned)a[2 * i] << 8 | a[2 * i + 1];
    int best = -1, bestlen = 0;
    for (int i = 0; i < 8;) {
        if (w[i] != 0) {
            i++;
            continue;
        }
        int j = i;
        while (j < 8 && w[j] == 0)
            j++;
        if (j - i > bestlen) {
            best = i;
            bestlen = j - i;
        }
        i = j;
    }
    if (bestlen < 2)
        best = -1;
    size_t n = 0;
    for (int i = 0; i < 8; i++) {
        if (best >= 0 && i >= best && i < best + bestlen) {
            if (i == best)
                t[n++] = ':';
            continue;
        }
        if (i != 0)
            t[n++] = ':';
        if (i == 6 && best == 0 && (bestlen == 6 || (bestlen == 5 && w[5] == 0xffff))) {
            n += put_v4(t + n, a + 12);
            return n;
        }
        bool started = false;
        for (int sh = 12; sh >= 0; sh -= 4) {
            unsigned d = (w[i] >> sh) & 0xF;
            if (d != 0 || started || sh == 0) {
                t[n++] = hex[d];
                started = true;
            }
        }
    }
    if (best >= 0 && best + bestlen == 8)
        t[n++] = ':';
    return n;
}

URISAN_API urisan_status urisan_format_ip(const urisan_report *r, char *buf, size_t cap,
                                          size_t *needed)
{
    char tmp[48]; /* 39 for the longest IPv6 text, 45 with dotted decimal */
    size_t n = 0;
    if (r == NULL || needed == NULL) {
        if (needed)
            *needed = 0;
        return URISAN_E_BAD_ARGUMENT;
    }
    if (r->ip_family == 4)
        n = put_v4(tmp, r->ip);
    else if (r->ip_family == 6)
        n = put_v6(tmp, r->ip);
    else {
        *needed = 0;
        return URISAN_E_BAD_ARGUMENT; /* no address */
    }
    *needed = n;
    if (n > cap || buf == NULL) /* n > 0: an address has text */
        return URISAN_E_NOSPACE;
    memcpy(buf, tmp, n);
    return URISAN_OK;
}
