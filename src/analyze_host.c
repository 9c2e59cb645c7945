/*
 * analyze_host.c - the flags of the host (SPEC 3): ip_literal,
 * ip_obfuscated, the address classes (ip_loopback, ip_private,
 * ip_link_local) with the de-obfuscated address in the report, and idn.
 */
#include "analysis.h"

#include <string.h>

static void classify_v4(const uint8_t a[4], urisan_flags *f)
{
    /* loopback or unspecified: 127/8 (RFC 1122 3.2.1.3), 0/8 */
    if (a[0] == 127 || a[0] == 0)
        *f |= F(IP_LOOPBACK);
    /* RFC 1918 and RFC 6598 shared address space (CGNAT) */
    if (a[0] == 10 || (a[0] == 172 && (a[1] & 0xF0) == 16) ||
        (a[0] == 192 && a[1] == 168) || (a[0] == 100 && (a[1] & 0xC0) == 64))
        *f |= F(IP_PRIVATE);
    /* RFC 3927 link-local; cloud metadata is 169.254.169.254 */
    if (a[0] == 169 && a[1] == 254)
        *f |= F(IP_LINK_LOCAL);
}

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0)
            return false;
    return true;
}

static void classify_v6(const uint8_t a[16], urisan_flags *f)
{
    static const uint8_t nat64[12] = {0x00, 0x64, 0xff, 0x9b}; /* RFC 6052 2.1 */
    /* IPv4-mapped ::ffff:0:0/96, IPv4-compatible ::/96 (RFC 4291 2.5.5)
       and NAT64 64:ff9b::/96 carry an IPv4 address: judge that one. :: and
       ::1 fall in ::/96 as 0.0.0.0 and 0.0.0.1, both in 0/8. */
    bool mapped = all_zero(a, 10) && a[10] == 0xff && a[11] == 0xff;
    if (mapped || all_zero(a, 12) || memcmp(a, nat64, 12) == 0) {
        classify_v4(a + 12, f);
        return;
    }
    if ((a[0] & 0xFE) == 0xFC) /* fc00::/7 unique local, RFC 4193 */
        *f |= F(IP_PRIVATE);
    if (a[0] == 0xFE && (a[1] & 0xC0) == 0x80) /* fe80::/10, RFC 4291 2.5.6 */
        *f |= F(IP_LINK_LOCAL);
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

static urisan_flags host_rules(const analysis *a, urisan_report *out)
{
    urisan_span h = a->u->host; /* present, not empty (an_host) */
    const char *in = a->in;
    urisan_flags f = 0;
    bool plain = !(a->sum & (SCAN_PCT | SCAN_ODD));
    unsigned char c0 = (unsigned char)in[h.off];
    /* the two rules of an_host (analysis.h) */
    if (!plain || c0 == '[' || cc_is(c0, CC_DIGIT) || a->u->host_type == URISAN_HOST_IPV4)
        f |= host_address(in, a->u, h, out);
    if (!plain || ((a->sum & SCAN_DASH_DASH) && pair_in(in, a->len, h.off, h.off + h.len, '-', '-')))
        f |= host_idn(in + h.off, h.len);
    return f;
}

/* A plain name that starts with a letter, "-" ... is no address (the
   first IPv4 part starts with a digit, and an ASCII byte other than "%"
   maps only to itself: urisan_ipv4_deobfuscate's "fast no"), and is idn
   only with an "xn--" label, so only with "--". */
static inline urisan_flags an_host(const analysis *a, urisan_report *out)
{
    urisan_span h = a->u->host;
    if (h.off == URISAN_ABSENT || h.len == 0)
        return 0;
    unsigned char c0 = (unsigned char)a->in[h.off];
    if ((a->sum & (SCAN_PCT | SCAN_ODD | SCAN_DASH_DASH)) || c0 == '[' || cc_is(c0, CC_DIGIT) ||
        a->u->host_type == URISAN_HOST_IPV4)
        return host_rules(a, out);
    return 0;
}
