/*
 * analyze_host.h - the flags of the host and its address (urisan(1), FLAGS):
 * ip_literal, ip_obfuscated and the address classes (with the
 * de-obfuscated address in the report), idn, and the name flags of
 * names.c. Part of the analysis' one translation unit (analyze.h).
 */
#ifndef URISAN_ANALYZE_HOST_H
#define URISAN_ANALYZE_HOST_H

#include "analyze.h"
#include "analyze_bytes.h"
#include "names.h"

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
 * ip_literal, ip_obfuscated and the address classes (doc/policy.md). Names such
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
        /* The literal runs to the first "]" (RFC 3986 3.2.2); the address is
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

/*
 * Every flag of the host. cls: the kinds of odd byte in the input
 * (SCAN_*); pre: what the prefilter knows (PRE_*). A name that starts with
 * a letter, "-" ... is no address when the input holds no odd byte: the
 * first IPv4 part starts with a digit, and an ASCII byte other than "%"
 * maps only to itself (urisan_ipv4_deobfuscate's "fast no").
 */
static ANALYZE_INLINE urisan_flags host_flags(const char *in, size_t len, const urisan_uri *u,
                                              unsigned cls, unsigned pre, urisan_report *out)
{
    urisan_span h = u->host;
    if (h.off == URISAN_ABSENT || h.len == 0)
        return 0;
    urisan_flags f = 0;
    size_t hs = h.off, he = h.off + h.len;
    unsigned char c0 = (unsigned char)in[hs];
    bool name = c0 != '[';
    if (!name || cls != 0 || cc_is(c0, CC_DIGIT) || u->host_type == URISAN_HOST_IPV4) {
        f |= host_address(in, u, h, out);
        name = name && out->ip_family == 0; /* "1password.com" */
    }
    if (name)
        f |= (cls & SCAN_PCT) ? urisan_name_flags(in + hs, h.len)
                              : urisan_name_flags_nopct(in, hs, he);
    /* idn needs an escape, a byte >= 0x80 or a "--" ("xn--") */
    if ((cls != 0 && odd_in(in, len, hs, he)) ||
        (!(pre & PRE_NO_DASH_DASH) && simd_pair_in(in, len, hs, he, '-', '-')))
        f |= host_idn(in + hs, h.len);
    return f;
}

#endif
