/*
 * fuzz/analyze.c - urisan_analyze / urisan_decide / urisan_check under the
 * default policy (urisan(1), FLAGS and POLICY).
 *
 * Invariants:
 *  1. the implications of doc/policy.md hold (password => userinfo, ...);
 *  2. no flag describes an absent component (userinfo without a userinfo
 *     span, nondefault_port without a port, ip_* without an address ...);
 *  3. every flag whose definition is a plain fact about bytes is computed
 *     here independently, from the text of doc/policy.md, and must agree
 *     exactly (escapes, raw bytes, ports, dots, double encoding, idn,
 *     dangerous scheme, the address classes); for ambiguous_authority and
 *     overlong_utf8 the sufficient conditions spelled out in doc/policy.md
 *     must set the flag;
 *  4. too_long: the flags are exactly too_long and invalid;
 *  5. the verdict is the default policy's (deny set of urisan(1) POLICY,
 *     flag all else) and deterministic: analyse and check twice, same answer;
 *     urisan_check equals parse + analyze + decide;
 *  6. address classes against the registry table (tests/addr_table.h):
 *     a class flag is never set on a globally reachable address, and
 *     every address of a non-global range gets its class - for the
 *     input's address, and for an address the input places in a row of
 *     the table (check_table_address).
 */
#define _GNU_SOURCE 1 /* inet_aton, REG_STARTEND */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "fuzz_util.h"
#include "ref_split.h"
#include "../tests/addr_table.h"

#define F(x) URISAN_F(x)

static const char *flag_list(urisan_flags f, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    for (unsigned b = 0; b < 64; b++)
        if ((f >> b) & 1u) {
            const char *n = urisan_flag_name((urisan_flag)b);
            int w = snprintf(buf + o, cap - o, "%s%s", o ? "," : "", n ? n : "?");
            if (w < 0 || (size_t)w >= cap - o)
                break;
            o += (size_t)w;
        }
    return buf;
}

static void expect_flag(urisan_flags got, urisan_flags bit, int want, const char *name)
{
    int have = (got & bit) != 0;
    if (have != want) {
        char buf[1024];
        fuzz_fail("flag %s is %s but doc/policy.md says %s (flags: %s)", name, have ? "set" : "clear",
                  want ? "set" : "clear", flag_list(got, buf, sizeof buf));
    }
}

static void implies(urisan_flags got, urisan_flags a, urisan_flags b, const char *what)
{
    if ((got & a) && !(got & b)) {
        char buf[1024];
        fuzz_fail("implication %s broken (flags: %s)", what, flag_list(got, buf, sizeof buf));
    }
}

static int ishex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static unsigned hv(unsigned char c)
{
    return c <= '9' ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
}

static int esc_at(const char *s, size_t n, size_t i)
{
    return i + 2 < n && s[i] == '%' && ishex((unsigned char)s[i + 1]) && ishex((unsigned char)s[i + 2]);
}

/* Any escape %XY in s[0..n) whose value satisfies pred. */
static int has_escape(const char *s, size_t n, int (*pred)(unsigned))
{
    for (size_t i = 0; i + 2 < n; i++)
        if (esc_at(s, n, i) && pred(hv((unsigned char)s[i + 1]) * 16 + hv((unsigned char)s[i + 2])))
            return 1;
    return 0;
}

static int is_crlf(unsigned v) { return v == 0x0d || v == 0x0a; }
static int is_nul(unsigned v) { return v == 0; }
static int is_ctl(unsigned v) { return v < 0x20 || v == 0x7f; }
static int is_slash(unsigned v) { return v == 0x2f || v == 0x5c; }

static int has_byte(const char *s, size_t n, int (*pred)(unsigned char))
{
    for (size_t i = 0; i < n; i++)
        if (pred((unsigned char)s[i]))
            return 1;
    return 0;
}

static int b_ctl(unsigned char c) { return c < 0x20 || c == 0x7f; }
static int b_ws(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == 0x0b || c == 0x0c || c == '\r'; }
static int b_high(unsigned char c) { return c >= 0x80; }
static int b_bs(unsigned char c) { return c == '\\'; }
static int b_tabnl(unsigned char c) { return c == '\t' || c == '\n' || c == '\r'; }

static int bad_percent(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == '%' && !(i + 2 < n && ishex((unsigned char)s[i + 1]) && ishex((unsigned char)s[i + 2])))
            return 1;
    return 0;
}

/* Decode every valid escape once; other bytes are copied. */
static void decode_once(const char *s, size_t n, fuzz_str *o)
{
    fs_clear(o);
    fs_add(o, "", 0);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n && ishex((unsigned char)s[i + 1]) && ishex((unsigned char)s[i + 2])) {
            fs_addc(o, (char)(hv((unsigned char)s[i + 1]) * 16 + hv((unsigned char)s[i + 2])));
            i += 2;
        } else {
            fs_addc(o, s[i]);
        }
    }
}

static int has_valid_escape(const char *s, size_t n)
{
    for (size_t i = 0; i + 2 < n; i++)
        if (s[i] == '%' && ishex((unsigned char)s[i + 1]) && ishex((unsigned char)s[i + 2]))
            return 1;
    return 0;
}

/* Is seg[0..n) "." or ".." once %2e/%2E is read as a dot? *enc: spelled
   with at least one %2e. */
static int dot_seg(const char *seg, size_t n, int *dots, int *enc)
{
    int d = 0, e = 0;
    size_t i = 0;
    while (i < n) {
        if (seg[i] == '.') {
            d++;
            i++;
        } else if (i + 2 < n && seg[i] == '%' && seg[i + 1] == '2' && (seg[i + 2] == 'e' || seg[i + 2] == 'E')) {
            d++;
            e = 1;
            i += 3;
        } else {
            return 0;
        }
    }
    if (d < 1 || d > 2)
        return 0;
    *dots = d;
    *enc = e;
    return 1;
}

/* dot_segments / encoded_dot / dot_above_root on a path. */
static void path_dots(const char *p, size_t n, int *segments, int *encoded, int *above)
{
    *segments = *encoded = *above = 0;
    int rooted = n > 0 && p[0] == '/';
    size_t depth = 0, i = rooted ? 1 : 0;
    if (n == 0)
        return;
    for (;;) {
        size_t j = i;
        while (j < n && p[j] != '/')
            j++;
        int d, e;
        if (dot_seg(p + i, j - i, &d, &e)) {
            *segments = 1;
            if (e)
                *encoded = 1;
            if (d == 2) {
                if (depth == 0) {
                    if (rooted)
                        *above = 1;
                } else {
                    depth--;
                }
            }
        } else {
            depth++;
        }
        if (j >= n)
            break;
        i = j + 1;
    }
}

static int ieq(const char *a, size_t n, const char *lit)
{
    size_t i = 0;
    for (; i < n; i++) {
        unsigned char c = (unsigned char)a[i];
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c | 0x20);
        if (lit[i] == '\0' || c != (unsigned char)lit[i])
            return 0;
    }
    return lit[i] == '\0';
}

static int dangerous_name(const char *s, size_t n)
{
    static const char *list[] = {"javascript", "vbscript", "data", "file", "gopher",
                                 "dict",       "ldap",     "tftp", "jar",  "netdoc"};
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++)
        if (ieq(s, n, list[i]))
            return 1;
    return 0;
}

/* dangerous_scheme (doc/policy.md): remove TAB/LF/CR anywhere and
   leading C0 and spaces, then the Appendix B scheme. */
static int dangerous_oracle(const char *in, size_t len)
{
    size_t i = 0;
    fuzz_str c = {0};
    fs_add(&c, "", 0);
    /* leading C0 controls and spaces (TAB/LF/CR are among them) */
    while (i < len && (unsigned char)in[i] <= 0x20)
        i++;
    for (; i < len; i++)
        if (!b_tabnl((unsigned char)in[i]))
            fs_addc(&c, in[i]);
    size_t k = 0;
    while (k < c.len && c.p[k] != ':' && c.p[k] != '/' && c.p[k] != '?' && c.p[k] != '#')
        k++;
    int r = k > 0 && k < c.len && c.p[k] == ':' && dangerous_name(c.p, k);
    fs_free(&c);
    return r;
}

/* Port as a number, compared with the default: 1 when an explicit
   non-empty all-digit port differs from the default (or there is none).
   *value: the number, or 70000 when it has more than 5 significant digits. */
static int port_nondefault(const char *in, const urisan_uri *u, unsigned long *value)
{
    if (u->port.off == URISAN_ABSENT || u->port.len == 0)
        return 0;
    const char *p = in + u->port.off;
    size_t n = u->port.len;
    for (size_t i = 0; i < n; i++)
        if (p[i] < '0' || p[i] > '9')
            return 0;
    size_t i = 0;
    while (i < n && p[i] == '0')
        i++;
    unsigned long v = 0;
    if (n - i > 6) {
        v = 9999999;
    } else {
        for (; i < n; i++)
            v = v * 10 + (unsigned long)(p[i] - '0');
    }
    *value = v;
    int def = -1;
    if (u->scheme.off != URISAN_ABSENT)
        def = urisan_default_port(in + u->scheme.off, u->scheme.len);
    return def < 0 || v != (unsigned long)def;
}

static void check_flags(const char *in, size_t len, const urisan_uri *u, const urisan_report *r)
{
    urisan_flags f = r->flags;
    char buf[1024];

    /* 4. too_long */
    if (u->error.code == URISAN_E_TOO_LONG) {
        FUZZ_ASSERT(f == (F(TOO_LONG) | F(INVALID)), "too_long: flags are %s",
                    flag_list(f, buf, sizeof buf));
        FUZZ_ASSERT(r->ip_family == 0, "too_long with an address");
        return;
    }
    FUZZ_ASSERT(!(f & F(TOO_LONG)), "too_long flag without a too_long parse");

    /* 1. implications */
    implies(f, F(PASSWORD), F(USERINFO), "password => userinfo");
    implies(f, F(RESERVED_PORT), F(NONDEFAULT_PORT), "reserved_port => nondefault_port");
    implies(f, F(ESCAPED_CRLF), F(ESCAPED_CTL), "escaped_crlf => escaped_ctl");
    implies(f, F(ESCAPED_NUL), F(ESCAPED_CTL), "escaped_nul => escaped_ctl");
    implies(f, F(IP_OBFUSCATED), F(IP_LITERAL), "ip_obfuscated => ip_literal");
    implies(f, F(DOT_ABOVE_ROOT), F(DOT_SEGMENTS), "dot_above_root => dot_segments");
    implies(f, F(ENCODED_DOT), F(DOT_SEGMENTS), "encoded_dot => dot_segments");
    implies(f, F(NON_ASCII), F(INVALID), "non_ascii => invalid");
    implies(f, F(INVALID_ESCAPE), F(INVALID), "invalid_escape => invalid");
    implies(f, F(BACKSLASH), F(INVALID), "backslash => invalid");
    FUZZ_ASSERT(!(f & ~(((urisan_flags)1 << URISAN_FLAG_COUNT_) - 1)), "unknown flag bit set");
    FUZZ_ASSERT(!(f & F(LINK_TEXT_MISMATCH)), "link_text_mismatch outside extract");
    FUZZ_ASSERT(!(f & (F(HOMOGRAPH) | F(INVISIBLE_CHAR))), "hostview flag from the core");

    /* 2 + 3. facts */
    expect_flag(f, F(INVALID), !u->valid, "invalid");
    expect_flag(f, F(USERINFO), u->userinfo.off != URISAN_ABSENT, "userinfo");
    expect_flag(f, F(PASSWORD),
                u->userinfo.off != URISAN_ABSENT &&
                    memchr(in + u->userinfo.off, ':', u->userinfo.len) != NULL,
                "password");
    unsigned long pv = 0;
    int nd = port_nondefault(in, u, &pv);
    expect_flag(f, F(NONDEFAULT_PORT), nd, "nondefault_port");
    expect_flag(f, F(RESERVED_PORT), nd && pv <= 1023, "reserved_port");
    int crlf = has_escape(in, len, is_crlf), nul = has_escape(in, len, is_nul);
    expect_flag(f, F(ESCAPED_CRLF), crlf, "escaped_crlf");
    expect_flag(f, F(ESCAPED_NUL), nul, "escaped_nul");
    expect_flag(f, F(ESCAPED_CTL), has_escape(in, len, is_ctl), "escaped_ctl");
    expect_flag(f, F(CTL_RAW), has_byte(in, len, b_ctl), "ctl_raw");
    expect_flag(f, F(WHITESPACE), has_byte(in, len, b_ws), "whitespace");
    expect_flag(f, F(NON_ASCII), has_byte(in, len, b_high), "non_ascii");
    expect_flag(f, F(INVALID_ESCAPE), bad_percent(in, len), "invalid_escape");
    expect_flag(f, F(BACKSLASH), has_byte(in, len, b_bs), "backslash");
    fuzz_str dec = {0};
    decode_once(in, len, &dec);
    expect_flag(f, F(DOUBLE_ENCODING), has_valid_escape(dec.p, dec.len), "double_encoding");

    int ds, de, da;
    path_dots(in + u->path.off, u->path.len, &ds, &de, &da);
    expect_flag(f, F(DOT_SEGMENTS), ds, "dot_segments");
    expect_flag(f, F(ENCODED_DOT), de, "encoded_dot");
    expect_flag(f, F(DOT_ABOVE_ROOT), da, "dot_above_root");

    ref_split rs;
    ref_split_appendix_b(in, len, &rs);
    int eslash = has_escape(in + u->path.off, u->path.len, is_slash);
    if (rs.authority.off != URISAN_ABSENT)
        eslash |= has_escape(in + rs.authority.off, rs.authority.len, is_slash);
    expect_flag(f, F(ENCODED_SLASH), eslash, "encoded_slash");
    expect_flag(f, F(DANGEROUS_SCHEME), dangerous_oracle(in, len), "dangerous_scheme");

    /* idn: decoded host holds a byte >= 0x80, or a label starts with xn-- */
    int idn = 0;
    if (u->host.off != URISAN_ABSENT) {
        const char *h = in + u->host.off;
        size_t hn = u->host.len;
        decode_once(h, hn, &dec);
        idn = has_byte(dec.p, dec.len, b_high);
        if (!(hn > 0 && h[0] == '[')) {
            size_t ls = 0;
            for (size_t i = 0; i <= dec.len; i++)
                if (i == dec.len || dec.p[i] == '.') {
                    if (i - ls >= 4 && ieq(dec.p + ls, 4, "xn--"))
                        idn = 1;
                    ls = i + 1;
                }
        }
        expect_flag(f, F(IDN), idn, "idn");
    } else {
        expect_flag(f, F(IDN), 0, "idn (no host)");
    }
    fs_free(&dec);

    /* addresses */
    if (u->host_type == URISAN_HOST_IPV4) {
        FUZZ_ASSERT(r->ip_family == 4 && memcmp(r->ip, u->ip, 4) == 0,
                    "dotted-decimal host: report address differs from the parse");
        expect_flag(f, F(IP_OBFUSCATED), 0, "ip_obfuscated (strict dotted-decimal)");
    }
    if (u->host_type == URISAN_HOST_IPV6 || u->host_type == URISAN_HOST_IPV6_ZONE)
        FUZZ_ASSERT(r->ip_family == 6 && memcmp(r->ip, u->ip, 16) == 0,
                    "IPv6 host: report address differs from the parse");
    if (u->host.off == URISAN_ABSENT)
        FUZZ_ASSERT(r->ip_family == 0, "an address without a host");
    if (r->ip_family == 6) {
        /* ip_literal (doc/policy.md): "a bracketed host whose text before any %
           is an IPv6 address" -- analyze.c reads it even when the literal
           is unclosed or its zone id is malformed (then the URI is
           invalid anyway); the address must be what inet_pton reads. */
        FUZZ_ASSERT(u->host.len > 0 && in[u->host.off] == '[',
                    "IPv6 address reported for a host that is not bracketed");
        char hb[128];
        size_t k = 0;
        const char *h = in + u->host.off + 1;
        while (k + 1 < u->host.len && k < sizeof hb - 1 && h[k] != ']' && h[k] != '%') {
            hb[k] = h[k];
            k++;
        }
        hb[k] = '\0';
        uint8_t a6[16];
        FUZZ_ASSERT(inet_pton(AF_INET6, hb, a6) == 1 && memcmp(a6, r->ip, 16) == 0,
                    "reported IPv6 address differs from inet_pton of the literal");
    }
    FUZZ_ASSERT(r->ip_family == 0 || r->ip_family == 4 || r->ip_family == 6, "ip_family %d",
                r->ip_family);
    if (f & F(IP_OBFUSCATED))
        FUZZ_ASSERT(r->ip_family == 4, "ip_obfuscated without the de-obfuscated IPv4 address");
    /* An IPvFuture "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
       between "[" and the first "]" (analyze.c reads a bracketed host up
       to its first "]" even when more text follows: the URI is invalid
       then, and the flag still says what the brackets hold). */
    int future = 0;
    if (u->host.len > 1 && in[u->host.off] == '[') {
        const char *h = in + u->host.off + 1;
        size_t hn = u->host.len - 1, e = 0;
        while (e < hn && h[e] != ']')
            e++;
        if (e >= 4 && (h[0] == 'v' || h[0] == 'V')) {
            size_t i = 1;
            while (i < e && ishex((unsigned char)h[i]))
                i++;
            if (i > 1 && i + 1 < e && h[i] == '.') {
                future = 1;
                for (i++; i < e; i++)
                    if (!(strchr("-._~!$&'()*+,;=:", h[i]) != NULL ||
                          ((h[i] | 0x20) >= 'a' && (h[i] | 0x20) <= 'z') ||
                          (h[i] >= '0' && h[i] <= '9')) || h[i] == '\0')
                        future = 0;
            }
        }
    }
    if (u->host_type == URISAN_HOST_IPVFUTURE)
        FUZZ_ASSERT(future, "IPvFuture host type, but not IPvFuture syntax");
    int want_lit = r->ip_family != 0 || future;
    expect_flag(f, F(IP_LITERAL), want_lit, "ip_literal");
    if (r->ip_family == 4 && u->host_type != URISAN_HOST_IPV4)
        expect_flag(f, F(IP_OBFUSCATED), 1, "ip_obfuscated (IPv4 address from a non-dotted host)");
    /* inet_aton reads it (ASCII digits, hex, dots only): must be obfuscated */
    if (u->host.off != URISAN_ABSENT && u->host_type != URISAN_HOST_IPV4 && u->host.len > 0 &&
        u->host.len < 64) {
        const char *h = in + u->host.off;
        int plain = 1;
        for (size_t i = 0; i < u->host.len; i++) {
            unsigned char c = (unsigned char)h[i];
            if (!(ishex(c) || c == '.' || c == 'x' || c == 'X'))
                plain = 0;
        }
        char hb[64];
        memcpy(hb, h, u->host.len);
        hb[u->host.len] = '\0';
        struct in_addr ia;
        if (plain && inet_aton(hb, &ia)) {
            expect_flag(f, F(IP_OBFUSCATED), 1, "ip_obfuscated (inet_aton reads the host)");
            FUZZ_ASSERT(memcmp(r->ip, &ia, 4) == 0, "de-obfuscated address differs from inet_aton");
        }
    }
    /* the address classes: check_address_class, against the registry table */

    /* ambiguous_authority: sufficient conditions spelled out in doc/policy.md */
    const char *why = NULL;
    if (rs.authority.off != URISAN_ABSENT) {
        const char *a = in + rs.authority.off;
        size_t an = rs.authority.len, ats = 0;
        for (size_t i = 0; i < an; i++)
            ats += a[i] == '@';
        if (ats > 1)
            why = "more than one @ in the authority";
        if (memchr(a, '\\', an))
            why = "a backslash in the authority";
        if (has_byte(a, an, b_tabnl))
            why = "TAB, CR or LF in the authority";
        if (u->host.off != URISAN_ABSENT && u->host_type != URISAN_HOST_IPV4 && u->host.len > 0 &&
            in[u->host.off] != '[' && has_valid_escape(in + u->host.off, u->host.len))
            why = "a percent-escape in a host neither bracketed nor dotted-decimal";
    }
    if (u->scheme.off != URISAN_ABSENT) {
        const char *s = in + u->scheme.off;
        size_t sn = u->scheme.len;
        const char *rest = in + sn + 1;
        size_t rn = len - sn - 1, slashes = 0;
        while (slashes < rn && rest[slashes] == '/')
            slashes++;
        if ((ieq(s, sn, "http") || ieq(s, sn, "https") || ieq(s, sn, "ws") || ieq(s, sn, "wss") ||
             ieq(s, sn, "ftp")) &&
            slashes != 2)
            why = "a special scheme not followed by exactly //";
        if (ieq(s, sn, "file") && slashes >= 4)
            why = "file: with four or more slashes";
    } else {
        if (len >= 3 && memcmp(in, "///", 3) == 0)
            why = "a reference starting with ///";
        if (len >= 2 && (memcmp(in, "/\\", 2) == 0 || memcmp(in, "\\\\", 2) == 0))
            why = "a reference starting with /\\ or \\\\";
    }
    /* a "\\" among two or more slashes right after "scheme:" or at the
       start of a reference */
    {
        size_t st = u->scheme.off != URISAN_ABSENT ? u->scheme.len + 1 : 0, k = st;
        int bs = 0;
        while (k < len && (in[k] == '/' || in[k] == '\\')) {
            bs |= in[k] == '\\';
            k++;
        }
        if (k - st >= 2 && bs)
            why = "a backslash among the slashes after the scheme or at the start";
    }
    if (u->scheme.off != URISAN_ABSENT) {
        const char *s = in + u->scheme.off;
        size_t sn = u->scheme.len, slashes = 0;
        while (sn + 1 + slashes < len && in[sn + 1 + slashes] == '/')
            slashes++;
        int special = ieq(s, sn, "http") || ieq(s, sn, "https") || ieq(s, sn, "ws") ||
                      ieq(s, sn, "wss") || ieq(s, sn, "ftp");
        if (!special && !ieq(s, sn, "file") && (slashes == 1 || slashes >= 3))
            why = "a non-special scheme followed by one or three+ slashes";
        if (ieq(s, sn, "file") && u->host.off != URISAN_ABSENT &&
            (ieq(in + u->host.off, u->host.len, "localhost") ||
             ieq(in + u->host.off, u->host.len, "127.0.0.1")))
            why = "file: with host localhost or 127.0.0.1";
        if (ieq(s, sn, "file") && rs.authority.off != URISAN_ABSENT && rs.authority.len == 2) {
            unsigned char c0 = (unsigned char)in[rs.authority.off], c1 = (unsigned char)in[rs.authority.off + 1];
            if (((c0 | 0x20) >= 'a' && (c0 | 0x20) <= 'z') && (c1 == ':' || c1 == '|'))
                why = "file: whose authority is a drive letter";
        }
    }
    /* an "@" after the "#" or "?" that ends the authority, before the next "/" */
    if (rs.authority.off != URISAN_ABSENT) {
        size_t e = rs.authority.off + rs.authority.len;
        if (e < len && (in[e] == '#' || in[e] == '?'))
            for (size_t k = e + 1; k < len && in[k] != '/'; k++)
                if (in[k] == '@') {
                    why = "an @ after the # or ? that ends the authority";
                    break;
                }
    }
    if (why != NULL && !(f & F(AMBIGUOUS_AUTHORITY)))
        fuzz_fail("ambiguous_authority not set: %s (flags: %s)", why, flag_list(f, buf, sizeof buf));

    /* overlong_utf8: escapes C0/C1 followed by an escaped continuation byte */
    int ovl = 0;
    for (size_t i = 0; i + 5 < len; i++)
        if (esc_at(in, len, i) && esc_at(in, len, i + 3)) {
            unsigned b0 = hv((unsigned char)in[i + 1]) * 16 + hv((unsigned char)in[i + 2]);
            unsigned b1 = hv((unsigned char)in[i + 4]) * 16 + hv((unsigned char)in[i + 5]);
            if ((b0 == 0xc0 || b0 == 0xc1) && b1 >= 0x80 && b1 <= 0xbf)
                ovl = 1;
        }
    if (ovl && !(f & F(OVERLONG_UTF8)))
        fuzz_fail("overlong_utf8 not set for an escaped C0/C1 sequence");
    if (f & F(OVERLONG_UTF8)) {
        int lead = 0;
        for (size_t i = 0; i + 5 < len; i++)
            if (esc_at(in, len, i) && esc_at(in, len, i + 3)) {
                unsigned b0 = hv((unsigned char)in[i + 1]) * 16 + hv((unsigned char)in[i + 2]);
                if (b0 == 0xc0 || b0 == 0xc1 || b0 == 0xe0 || b0 == 0xf0 || b0 == 0xf8 || b0 == 0xfc)
                    lead = 1;
            }
        FUZZ_ASSERT(lead, "overlong_utf8 without an escaped overlong lead byte");
    }
}

/* ---- 6. address classes against the registry table --------------------

   The table is tests/addr_table.h (the IANA special-purpose registries,
   written apart from src/addrclass.c; test_addrclass.c uses the same one).
   The IPv4 addresses an IPv6 address carries are derived here from the
   RFCs, apart from urisan_addr_embedded:
     ::ffff:0:0/96 (RFC 4291 2.5.5.2), ::/96 but :: and ::1 (2.5.5.1),
     64:ff9b::/96 (RFC 6052) and 64:ff9b:1::/48 (RFC 8215, its /96 form):
     the last 32 bits; 6to4 2002::/16 (RFC 3056): bits 16..47; Teredo
     2001::/32 (RFC 4380 4): the server (bits 32..63) and the client
     (the last 32 bits, inverted). */
static size_t carried_v4(const uint8_t a[16], uint8_t out[2][4])
{
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static const uint8_t zero[12] = {0};
    static const uint8_t nat64[12] = {0, 0x64, 0xff, 0x9b};
    static const uint8_t nat64_local[6] = {0, 0x64, 0xff, 0x9b, 0, 1};
    int compat = memcmp(a, zero, 12) == 0 && !(a[12] == 0 && a[13] == 0 && a[14] == 0 && a[15] <= 1);
    if (memcmp(a, mapped, 12) == 0 || compat || memcmp(a, nat64, 12) == 0 ||
        memcmp(a, nat64_local, 6) == 0) {
        memcpy(out[0], a + 12, 4);
        return 1;
    }
    if (a[0] == 0x20 && a[1] == 0x02) {
        memcpy(out[0], a + 2, 4);
        return 1;
    }
    if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0 && a[3] == 0) {
        memcpy(out[0], a + 4, 4);
        for (int i = 0; i < 4; i++)
            out[1][i] = (uint8_t)(a[12 + i] ^ 0xff);
        return 2;
    }
    return 0;
}

/*
 * Two invariants on every address the analysis reports:
 *  (a) a class flag is never set on an address the table calls globally
 *      reachable: each class flag is the table's class of the address or
 *      of an IPv4 address it carries;
 *  (b) every address in a non-global row of the table gets that class.
 * Together: the class flags are exactly the table's. ip_embedded is set
 * exactly when an IPv6 address carries an IPv4 address.
 */
static void check_address_class(const urisan_report *r)
{
    char buf[1024], txt[64];
    urisan_flags got = r->flags & AT_CLASSES, want = 0;
    size_t ncarried = 0;
    if (r->ip_family == 4) {
        want = at_class_v4(r->ip);
        inet_ntop(AF_INET, r->ip, txt, sizeof txt);
    } else if (r->ip_family == 6) {
        uint8_t v4[2][4];
        want = at_class_v6(r->ip);
        ncarried = carried_v4(r->ip, v4);
        for (size_t i = 0; i < ncarried; i++)
            want |= at_class_v4(v4[i]);
        inet_ntop(AF_INET6, r->ip, txt, sizeof txt);
    } else {
        FUZZ_ASSERT(got == 0 && !(r->flags & F(IP_EMBEDDED)), "a class flag without an address");
        return;
    }
    if (got & ~want)
        fuzz_fail("(a) %s is globally reachable per the registry table but flagged %s", txt,
                  flag_list(got & ~want, buf, sizeof buf));
    if (want & ~got)
        fuzz_fail("(b) %s is in a non-global registry range but lacks %s", txt,
                  flag_list(want & ~got, buf, sizeof buf));
    FUZZ_ASSERT(((r->flags & F(IP_EMBEDDED)) != 0) == (ncarried > 0),
                "ip_embedded is %s for %s, which carries %zu IPv4 address(es)",
                (r->flags & F(IP_EMBEDDED)) ? "set" : "clear", txt, ncarried);
}

/*
 * The fuzz input as an address inside a row of the table, so that every
 * run exercises (b) across the ranges, not only the addresses a fuzzer
 * happens to spell: the first and last bytes pick the family and a row
 * (or none: any address), bit 7 of the last byte asks for a range edge
 * (host bits all 0 or all 1), the other bytes fill the host bits. The
 * address is written as a URL and analysed like any other.
 */
static void check_table_address(const uint8_t *data, size_t size)
{
    if (size < 2)
        return;
    unsigned sel = data[0] ^ data[size - 1];
    int v6 = sel & 1;
    size_t nrows = v6 ? sizeof at_v6 / sizeof at_v6[0] : sizeof at_v4 / sizeof at_v4[0];
    size_t row = (sel >> 1) % (nrows + 1), alen = v6 ? 16 : 4;
    uint8_t a[16] = {0}, p[16] = {0};
    unsigned plen = 0;
    if (row < nrows)
        at_parse(v6 ? at_v6[row].cidr : at_v4[row].cidr, v6, p, &plen);
    int edge = (data[size - 1] & 0x80) != 0, ones = (data[1] & 1) != 0;
    for (size_t i = 0; i < alen; i++) {
        uint8_t fill = edge ? (ones ? 0xff : 0) : data[(1 + i) % size];
        unsigned keep = plen >= 8 * (i + 1) ? 8 : plen > 8 * i ? plen - 8 * (unsigned)i : 0;
        uint8_t mask = (uint8_t)(0xff00u >> keep);
        a[i] = (uint8_t)((p[i] & mask) | (fill & (uint8_t)~mask));
    }
    char txt[64], url[96];
    inet_ntop(v6 ? AF_INET6 : AF_INET, a, txt, sizeof txt);
    int n = snprintf(url, sizeof url, v6 ? "http://[%s]/" : "http://%s/", txt);
    urisan_uri u;
    urisan_report r;
    urisan_parse(url, (size_t)n, NULL, &u, NULL);
    urisan_analyze(url, (size_t)n, &u, NULL, &r);
    FUZZ_ASSERT(r.ip_family == (v6 ? 6 : 4) && memcmp(r.ip, a, alen) == 0,
                "%s: the analysis reads another address", url);
    check_address_class(&r);
}

static void check_verdict(const urisan_report *r, const urisan_decision *d)
{
    static const urisan_flags deny = F(INVALID) | F(TOO_LONG) | F(ESCAPED_CRLF) | F(ESCAPED_NUL) |
                                     F(CTL_RAW) | F(DOT_ABOVE_ROOT) | F(PASSWORD) |
                                     F(DANGEROUS_SCHEME) | F(AMBIGUOUS_AUTHORITY) |
                                     F(IP_OBFUSCATED);
    /* internal_name and single_label: neither denied nor reported */
    static const urisan_flags ignored = F(INTERNAL_NAME) | F(SINGLE_LABEL);
    urisan_flags seen = r->flags & ~ignored;
    urisan_verdict want = (seen & deny) ? URISAN_DENY : seen ? URISAN_FLAGGED : URISAN_ALLOW;
    FUZZ_ASSERT(d->verdict == want, "default policy verdict %s, expected %s",
                urisan_verdict_name(d->verdict), urisan_verdict_name(want));
    FUZZ_ASSERT(d->deny_flags == (r->flags & deny), "deny_flags are not flags & default deny set");
    FUZZ_ASSERT(d->rules == 0, "default policy denied by a rule");
    FUZZ_ASSERT((d->deny_flags | d->flag_flags) == seen || d->verdict == URISAN_DENY,
                "some flag neither denied nor reported");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = fuzz_dup(data, size);
    urisan_uri u;
    urisan_parse(in, size, NULL, &u, NULL);
    urisan_report r1, r2;
    memset(&r1, 0, sizeof r1);
    memset(&r2, 0xff, sizeof r2);
    urisan_status s1 = urisan_analyze(in, size, &u, NULL, &r1);
    urisan_status s2 = urisan_analyze(in, size, &u, NULL, &r2);
    FUZZ_ASSERT(s1 == s2 && r1.flags == r2.flags && r1.ip_family == r2.ip_family &&
                    memcmp(r1.ip, r2.ip, r1.ip_family == 6 ? 16 : r1.ip_family == 4 ? 4 : 0) == 0,
                "analyze is not deterministic");
    FUZZ_ASSERT(s1 == URISAN_OK, "analyze returned %s", fuzz_status(s1));
    check_flags(in, size, &u, &r1);
    check_address_class(&r1);
    check_table_address(data, size);

    urisan_decision d1, d2;
    urisan_decide(in, size, &u, &r1, NULL, &d1);
    urisan_decide(in, size, &u, &r1, NULL, &d2);
    FUZZ_ASSERT(memcmp(&d1, &d2, sizeof d1) == 0 || (d1.verdict == d2.verdict &&
                d1.deny_flags == d2.deny_flags && d1.flag_flags == d2.flag_flags &&
                d1.rules == d2.rules), "decide is not deterministic");
    check_verdict(&r1, &d1);

    urisan_uri cu;
    urisan_report cr;
    urisan_decision cd, cd2;
    urisan_check(in, size, NULL, &cu, &cr, &cd);
    FUZZ_ASSERT(cr.flags == r1.flags && cd.verdict == d1.verdict &&
                    cd.deny_flags == d1.deny_flags && cd.flag_flags == d1.flag_flags,
                "urisan_check differs from parse + analyze + decide");
    urisan_check(in, size, NULL, &cu, &cr, &cd2);
    FUZZ_ASSERT(cd2.verdict == cd.verdict && cd2.deny_flags == cd.deny_flags,
                "urisan_check is not deterministic");
    fuzz_done(in);
    return 0;
}
