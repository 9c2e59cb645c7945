/*
 * test_flags.c - risk analysis (SPEC 3): what the one-flag cases of
 * tests/spec/flags-*.md cannot say: too_long, every implication set on its
 * own, the attack payload classes (whole flag sets), de-obfuscated
 * addresses and their text, the API, hostile megabytes.
 *
 * Every input is placed flush against a PROT_NONE page (guard.h), so a
 * one-byte overread in the analysis faults.
 */
#include <arpa/inet.h>
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flag_implications.h"
#include "guard.h"
#include "testdata.h"
#include "urisan.h"

#define F(n) URISAN_F(n)

/* Analyse in[0..len) as urisan_check does (default policy). */
static urisan_flags analyse(const char *in, size_t len, urisan_report *rep_out)
{
    guard_buf g = {0};
    const char *s = guard_place(&g, in, len);
    ck_assert_ptr_nonnull(s);
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    urisan_check(s, len, NULL, &u, &r, &d);
    guard_free(&g);
    /* invalid is exactly "the parse result is not valid" */
    ck_assert_msg(!!(r.flags & F(INVALID)) == !u.valid, "%.*s: invalid flag %d, valid %d",
                  (int)len, in, !!(r.flags & F(INVALID)), u.valid);
    if (rep_out)
        *rep_out = r;
    return r.flags;
}

static char *flag_list(urisan_flags f, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int b = 0; b < URISAN_FLAG_COUNT_; b++)
        if ((f >> b) & 1)
            o += (size_t)snprintf(buf + o, o < cap ? cap - o : 0, "%s%s", o ? " " : "",
                                  urisan_flag_name((urisan_flag)b));
    return buf;
}

/* ---------------------------------------------------------------------- */
/* One flag at a time: tests/spec/flags-*.md (bytes and escapes, path and   */
/* dots, host and address, authority and scheme), run by test_spec.c, which */
/* also requires three positive and three negative cases per flag and      */
/* checks the implications on every case.                                   */
/* ---------------------------------------------------------------------- */

/* ---------------------------------------------------------------------- */
/* too_long: exactly too_long and invalid                                  */
/* ---------------------------------------------------------------------- */

START_TEST(too_long_uri_has_exactly_too_long_and_invalid)
{
    size_t n = 8193;
    char *s = malloc(n);
    memcpy(s, "http://h/", 9);
    memset(s + 9, '%', n - 9); /* would be invalid_escape, but the bound stops first */
    s[n - 1] = '\n';
    urisan_flags f = analyse(s, n, NULL);
    ck_assert_uint_eq(f, F(TOO_LONG) | F(INVALID));
    /* 8192 bytes exactly is within the bound */
    memset(s + 9, 'a', n - 9);
    f = analyse(s, n - 1, NULL);
    ck_assert(!(f & F(TOO_LONG)));
    free(s);
}
END_TEST

START_TEST(too_long_host_label_scheme_userinfo_segments)
{
    char buf[4200];
    urisan_flags f;
    /* label of 64 bytes */
    snprintf(buf, sizeof buf, "http://%064d/", 0);
    f = analyse(buf, strlen(buf), NULL);
    ck_assert_uint_eq(f, F(TOO_LONG) | F(INVALID));
    /* 63 is fine */
    snprintf(buf, sizeof buf, "http://%063d.x/", 0);
    ck_assert(!(analyse(buf, strlen(buf), NULL) & F(TOO_LONG)));
    /* scheme of 65 bytes */
    memset(buf, 'a', 65);
    memcpy(buf + 65, "://h/", 6);
    f = analyse(buf, strlen(buf), NULL);
    ck_assert_uint_eq(f, F(TOO_LONG) | F(INVALID));
    /* 1025 path segments, each a dot-dot: still only two flags */
    size_t o = 0;
    for (int i = 0; i < 1025; i++) {
        memcpy(buf + o, "/..", 3);
        o += 3;
    }
    f = analyse(buf, o, NULL);
    ck_assert_uint_eq(f, F(TOO_LONG) | F(INVALID));
    /* userinfo of 1025 bytes with a javascript: scheme */
    o = 0;
    memcpy(buf, "javascript://", 13);
    o = 13;
    memset(buf + o, 'u', 1025);
    o += 1025;
    memcpy(buf + o, ":p@h/", 5);
    o += 5;
    f = analyse(buf, o, NULL);
    ck_assert_uint_eq(f, F(TOO_LONG) | F(INVALID));
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Implications (SPEC 3) hold on every input we have                        */
/* ---------------------------------------------------------------------- */

/* One named case per implication: the implied flag shows up even where the
   implying one is the only reason for it. */
START_TEST(each_implication_sets_the_implied_flag)
{
    ck_assert(analyse("http://:@h/", 11, NULL) & F(USERINFO));
    ck_assert(analyse("https://h:80/", 13, NULL) & F(NONDEFAULT_PORT));
    ck_assert(analyse("/%0a", 4, NULL) & F(ESCAPED_CTL));
    ck_assert(analyse("/%00", 4, NULL) & F(ESCAPED_CTL));
    ck_assert(analyse("http://127.1/", 13, NULL) & F(IP_LITERAL));
    ck_assert(analyse("/..", 3, NULL) & F(DOT_SEGMENTS));
    ck_assert(analyse("a/%2e", 5, NULL) & F(DOT_SEGMENTS));
    ck_assert(analyse("/\xc3\xa9", 3, NULL) & F(INVALID));
    ck_assert(analyse("/%", 2, NULL) & F(INVALID));
    ck_assert(analyse("/\\", 2, NULL) & F(INVALID));
}
END_TEST

/* The shared URL data sets: implications hold, nothing crashes, and every
   flag set agrees with a second run (the analysis keeps no state). */
START_TEST(implications_hold_on_the_shared_url_data)
{
    static const char *files[] = {"kasztp.txt", "userbait.txt", "node_files.txt",
                                  "isaacs_files.txt"};
    for (size_t fi = 0; fi < sizeof files / sizeof files[0]; fi++) {
        FILE *fp = testdata_open("urls", files[fi]);
        if (!fp)
            continue;
        char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        while ((n = getline(&line, &cap, fp)) > 0) {
            if (line[n - 1] == '\n')
                n--;
            urisan_uri u;
            urisan_report r, r2;
            urisan_decision d;
            urisan_check(line, (size_t)n, NULL, &u, &r, &d);
            check_implications(line, (size_t)n, r.flags);
            urisan_analyze(line, (size_t)n, &u, NULL, &r2);
            ck_assert_uint_eq(r.flags, r2.flags);
            ck_assert_int_eq(!!(r.flags & F(INVALID)), !u.valid);
        }
        free(line);
        fclose(fp);
    }
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Attack payload classes: the whole flag set                              */
/* ---------------------------------------------------------------------- */

static void expect_exact(const char *in, urisan_flags want)
{
    char a[600], b[600];
    urisan_flags f = analyse(in, strlen(in), NULL);
    /* single_label is orthogonal to these payloads (most use host "h");
       it is asserted where a case names it, and by its own fcases */
    if (!(want & F(SINGLE_LABEL)))
        f &= ~F(SINGLE_LABEL);
    ck_assert_msg(f == want, "%s: want [%s] got [%s]", in, flag_list(want, a, sizeof a),
                  flag_list(f, b, sizeof b));
}

static void expect_has(const char *in, urisan_flags want)
{
    char a[600], b[600];
    urisan_flags f = analyse(in, strlen(in), NULL);
    ck_assert_msg((f & want) == want, "%s: want at least [%s] got [%s]", in,
                  flag_list(want, a, sizeof a), flag_list(f, b, sizeof b));
}

static void expect_ip(const char *in, const char *text)
{
    urisan_report r;
    analyse(in, strlen(in), &r);
    char buf[64];
    size_t n = 0;
    ck_assert_int_eq(urisan_format_ip(&r, buf, sizeof buf, &n), URISAN_OK);
    ck_assert_msg(n == strlen(text) && memcmp(buf, text, n) == 0, "%s: ip %.*s, want %s", in,
                  (int)n, buf, text);
}

START_TEST(crlf_injection_in_a_path_is_escaped_crlf)
{
    expect_exact("pop3://h/1%0d%0aDELE%201", F(ESCAPED_CRLF) | F(ESCAPED_CTL));
    expect_exact("http://h/a%0D%0ASet-Cookie:%20x=y",
                 F(ESCAPED_CRLF) | F(ESCAPED_CTL));
}
END_TEST

START_TEST(hash_before_at_is_ambiguous_authority)
{
    expect_exact("http://example.com#@127.0.0.1/x", F(AMBIGUOUS_AUTHORITY));
    expect_exact("http://example.com?@127.0.0.1/x", F(AMBIGUOUS_AUTHORITY));
}
END_TEST

START_TEST(pct2f_in_a_host_is_encoded_slash_and_ambiguous)
{
    expect_exact("http://example.com%2F10.0.0.1/", F(ENCODED_SLASH) | F(AMBIGUOUS_AUTHORITY));
    expect_has("http://example.com%2f@10.0.0.1/", F(ENCODED_SLASH) | F(USERINFO) | F(IP_PRIVATE));
}
END_TEST

START_TEST(trailing_dot_hosts)
{
    /* browsers read "127.0.0.1." as 127.0.0.1: not dotted-decimal */
    expect_exact("http://127.0.0.1./",
                 F(IP_LITERAL) | F(IP_OBFUSCATED) | F(IP_LOOPBACK));
    expect_ip("http://127.0.0.1./", "127.0.0.1");
    expect_exact("http://0x7f.1./", F(IP_LITERAL) | F(IP_OBFUSCATED) | F(IP_LOOPBACK));
    /* a name with the DNS root dot is still a name */
    expect_exact("http://example.com./", 0);
    expect_exact("http://localhost./", F(INTERNAL_NAME) | F(SINGLE_LABEL));
    /* two trailing dots are no address */
    expect_exact("http://127.0.0.1../", 0);
}
END_TEST

START_TEST(backslash_confusion_is_ambiguous_authority)
{
    expect_exact("http://evil.com\\@good.com/",
                 F(INVALID) | F(USERINFO) | F(BACKSLASH) | F(AMBIGUOUS_AUTHORITY));
    expect_exact("http:\\\\evil.com", F(INVALID) | F(BACKSLASH) | F(AMBIGUOUS_AUTHORITY));
    expect_exact("http:/\\evil.com", F(INVALID) | F(BACKSLASH) | F(AMBIGUOUS_AUTHORITY));
    expect_exact("\\/\\/evil.com", F(INVALID) | F(BACKSLASH) | F(AMBIGUOUS_AUTHORITY));
}
END_TEST

START_TEST(multiple_at_signs_are_ambiguous_authority)
{
    expect_exact("http://a@evil.com:80@good.com/",
                 F(INVALID) | F(USERINFO) | F(PASSWORD) | F(AMBIGUOUS_AUTHORITY));
    expect_exact("http://1.1.1.1 &@2.2.2.2# @3.3.3.3/",
                 F(INVALID) | F(USERINFO) | F(WHITESPACE) | F(IP_LITERAL) |
                     F(AMBIGUOUS_AUTHORITY));
    expect_ip("http://1.1.1.1 &@2.2.2.2# @3.3.3.3/", "2.2.2.2");
}
END_TEST

START_TEST(slash_confusion_is_ambiguous_authority)
{
    expect_exact("http:/evil.com", F(AMBIGUOUS_AUTHORITY));
    expect_exact("https:///evil.com", F(AMBIGUOUS_AUTHORITY));
    expect_exact("http:evil.com", F(AMBIGUOUS_AUTHORITY));
    expect_exact("https:////evil.com", F(AMBIGUOUS_AUTHORITY));
}
END_TEST

START_TEST(numeric_ipv4_forms_are_obfuscated_loopback)
{
    static const char *const in[] = {"http://2130706433/", "http://0x7f.1/",
                                     "http://0177.0.0.1/", "http://127.1/",
                                     "http://127.000.000.001/", "http://0x7f.0.0.1/",
                                     "http://0x7f000001/", "http://127.0.1/",
                                     "http://017700000001/", "http://0x7F.000.0x0.1/"};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        expect_exact(in[i], F(IP_LITERAL) | F(IP_OBFUSCATED) | F(IP_LOOPBACK));
        expect_ip(in[i], "127.0.0.1");
    }
    expect_exact("http://0/", F(IP_LITERAL) | F(IP_OBFUSCATED) | F(IP_LOOPBACK));
    expect_ip("http://0/", "0.0.0.0");
    expect_ip("http://1.2.3/", "1.2.0.3");
    expect_ip("http://1.131844/", "1.2.3.4");
    expect_exact("http://1.16909060/", 0); /* last of two parts must fit 24 bits */
    expect_ip("http://0xffffffff/", "255.255.255.255");
}
END_TEST

START_TEST(unicode_digit_and_dot_forms_are_obfuscated)
{
    /* fullwidth, circled, ideographic full stop; raw and percent-encoded */
    static const char *const in[] = {
        "http://\xef\xbc\x91\xef\xbc\x92\xef\xbc\x97\xef\xbc\x8e\xef\xbc\x90\xef\xbc\x8e"
        "\xef\xbc\x90\xef\xbc\x8e\xef\xbc\x91/",
        "http://\xe2\x91\xa0\xe2\x91\xa1\xe2\x91\xa6.\xe2\x93\xaa.\xe2\x93\xaa.\xe2\x91\xa0/",
        "http://127\xe3\x80\x82" "0\xe3\x80\x82" "0\xe3\x80\x82" "1/",
        "http://127\xef\xbd\xa1" "1/", /* halfwidth ideographic full stop */
        "http://%EF%BC%91%EF%BC%92%EF%BC%97.0.0.1/",
        "http://%e2%91%a0%e2%91%a1%e2%91%a6.1/",
        "http://127%E3%80%82" "1/",
        "http://\xef\xbc\x90\xef\xbd\x98\xef\xbc\x97\xef\xbd\x86.1/", /* ０ｘ７ｆ.1 */
        "http://\xe2\x93\xaa\xe2\x93\xa7\xe2\x91\xa6\xe2\x93\x95.1/",  /* ⓪ⓧ⑦ⓕ.1 */
        "http://127.0.0.\xc2\xb9/",                                    /* superscript one */
        "http://1\xc2\xad" "27.0.0.1/",                                /* soft hyphen ignored */
    };
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        expect_has(in[i], F(IP_LITERAL) | F(IP_OBFUSCATED) | F(IP_LOOPBACK));
        expect_ip(in[i], "127.0.0.1");
    }
    /* digits of other scripts are not mapped to ASCII by UTS #46 */
    expect_exact("http://\xd9\xa1\xd9\xa2\xd9\xa7.0.0.1/", F(INVALID) | F(NON_ASCII) | F(IDN));
    /* invalid UTF-8 is no address */
    expect_exact("http://%ef%bc.1/", F(AMBIGUOUS_AUTHORITY) | F(IDN));
}
END_TEST

/*
 * SPEC 3 ip_obfuscated: "non-ASCII characters that UTS #46 maps to ASCII
 * digits, a-f, x or ." - all of them, not only the fullwidth and circled
 * ones: modifier letters, letter-like symbols, squared and outlined
 * letters and digits, the squares that map to two letters, and the
 * default-ignorable code points UTS #46 (Unicode 15.1 on) maps to nothing.
 * Found by comparing every code point with Python idna.uts46_remap.
 */
START_TEST(every_uts46_mapping_to_an_address_character_is_obfuscated)
{
    static const struct {
        const char *in, *ip;
    } c[] = {
        {"http://0\xcb\xa3" "7f.1/", "127.0.0.1"},              /* U+02E3 small x */
        {"http://0x7\xe1\xb6\xa0.1/", "127.0.0.1"},             /* U+1DA0 small f */
        {"http://0x7\xea\x9f\xb3.1/", "127.0.0.1"},             /* U+A7F3 capital F */
        {"http://0x7%E1%B6%A0.1/", "127.0.0.1"},                /* percent-encoded */
        {"http://0\xf0\x9f\x85\x87" "7f.1/", "127.0.0.1"},      /* U+1F147 squared X */
        {"http://\xf0\x9c\xb3\xb1\xf0\x9c\xb3\xb2\xf0\x9c\xb3\xb7.0.0.1/",
         "127.0.0.1"},                                          /* U+1CCF1.. outlined */
        {"http://0x\xc2\xaa.1/", "10.0.0.1"},                   /* U+00AA ordinal a */
        {"http://0x\xe1\xb4\xac.1/", "10.0.0.1"},               /* U+1D2C capital A */
        {"http://0x\xe2\x84\xac.1/", "11.0.0.1"},               /* U+212C script B */
        {"http://0x\xf0\x9f\x84\xb5\xf0\x9f\x84\xb5.1/", "255.0.0.1"}, /* U+1F135 */
        {"http://0x\xef\xac\x80.1/", "255.0.0.1"},              /* U+FB00 ligature ff */
        {"http://0x\xe3\x8f\x84.1/", "204.0.0.1"},              /* U+33C4 square cc */
        {"http://0x\xf0\x9f\x84\xad.1/", "205.0.0.1"},          /* U+1F12D circled CD */
        {"http://127.0.0.\xe2\x81\xa1" "1/", "127.0.0.1"},      /* U+2061 ignored */
        {"http://1\xe3\x85\xa4" "27.0.0.1/", "127.0.0.1"},      /* U+3164 ignored */
        {"http://127.0\xef\xbe\xa0.0.1/", "127.0.0.1"},         /* U+FFA0 ignored */
        {"http://127.0.0.1\xe1\xa0\x8e/", "127.0.0.1"},         /* U+180E ignored */
        {"http://127.0.0.1\xf0\x9d\x85\xb3/", "127.0.0.1"},     /* U+1D173 ignored */
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        expect_has(c[i].in, F(IP_LITERAL) | F(IP_OBFUSCATED));
        expect_ip(c[i].in, c[i].ip);
    }
}
END_TEST

/*
 * SPEC 3 ip_obfuscated ("an inet_aton- or WHATWG-style IPv4 parser reads
 * it as an address ... browsers connect there"): a WHATWG URL parser
 * removes every raw TAB, LF and CR before it looks at the host (so does
 * Python's urllib), so "http://169.254.169.254<TAB>/" is the metadata
 * address, not a name. A percent-encoded TAB is decoded inside the host
 * and is a forbidden host code point: no address.
 */
START_TEST(raw_tab_cr_lf_in_an_address_host_are_removed_as_browsers_do)
{
    expect_has("http://127.0.0.1\t/", F(IP_LITERAL) | F(IP_OBFUSCATED) | F(IP_LOOPBACK));
    expect_ip("http://127.0.0.1\t/", "127.0.0.1");
    expect_has("http://169.254.169\n.254/latest", F(IP_OBFUSCATED) | F(IP_LINK_LOCAL));
    expect_ip("http://169.254.169\n.254/latest", "169.254.169.254");
    expect_has("http://\r10.0.0.1:8080/", F(IP_OBFUSCATED) | F(IP_PRIVATE));
    expect_has("http://0x7\tf.1/", F(IP_OBFUSCATED) | F(IP_LOOPBACK));
    expect_exact("http://127.0.0.1%09/", F(AMBIGUOUS_AUTHORITY) | F(ESCAPED_CTL));
    expect_exact("http://\t/", F(INVALID) | F(CTL_RAW) | F(WHITESPACE) | F(AMBIGUOUS_AUTHORITY));
}
END_TEST

START_TEST(ipv4_mapped_ipv6_is_loopback_not_obfuscated)
{
    expect_exact("http://[::ffff:127.0.0.1]/", F(IP_LITERAL) | F(IP_LOOPBACK) | F(IP_EMBEDDED));
    expect_exact("http://[::ffff:7f00:1]/", F(IP_LITERAL) | F(IP_LOOPBACK) | F(IP_EMBEDDED));
    expect_ip("http://[::ffff:7f00:1]/", "::ffff:127.0.0.1");
    expect_exact("http://[::ffff:a9fe:a9fe]/", F(IP_LITERAL) | F(IP_LINK_LOCAL) | F(IP_EMBEDDED));
    expect_exact("http://[64:ff9b::a00:1]/", F(IP_LITERAL) | F(IP_PRIVATE) | F(IP_EMBEDDED));
    /* IPv4-compatible (deprecated, outside 2000::/3): reserved as well */
    expect_exact("http://[::10.0.0.1]/",
                 F(IP_LITERAL) | F(IP_PRIVATE) | F(IP_RESERVED) | F(IP_EMBEDDED));
}
END_TEST

START_TEST(cloud_metadata_address_is_link_local)
{
    expect_exact("http://169.254.169.254/latest/meta-data/", F(IP_LITERAL) | F(IP_LINK_LOCAL));
    expect_exact("http://0xa9fea9fe/", F(IP_LITERAL) | F(IP_OBFUSCATED) | F(IP_LINK_LOCAL));
    expect_exact("http://2852039166/", F(IP_LITERAL) | F(IP_OBFUSCATED) | F(IP_LINK_LOCAL));
    expect_ip("http://2852039166/", "169.254.169.254");
    expect_exact("http://[fd00:ec2::254]/", F(IP_LITERAL) | F(IP_PRIVATE));
}
END_TEST

START_TEST(pct2e_traversal_above_root)
{
    expect_exact("http://h/%2e%2e/etc/passwd",
                 F(DOT_SEGMENTS) | F(ENCODED_DOT) | F(DOT_ABOVE_ROOT));
    expect_exact("http://h/a/%2E%2E/%2e%2E/x",
                 F(DOT_SEGMENTS) | F(ENCODED_DOT) | F(DOT_ABOVE_ROOT));
    expect_exact("http://h/a/%2e%2e/x", F(DOT_SEGMENTS) | F(ENCODED_DOT));
    expect_exact("%2e%2e/%2e%2e/x", F(DOT_SEGMENTS) | F(ENCODED_DOT));
}
END_TEST

START_TEST(overlong_utf8_dot_dot_slash)
{
    expect_exact("http://h/%c0%ae%c0%ae/", F(OVERLONG_UTF8));
    expect_exact("http://h/%c0%ae%c0%ae%c0%afetc", F(OVERLONG_UTF8));
    expect_exact("http://h/%25c0%25ae/", F(DOUBLE_ENCODING));
}
END_TEST

START_TEST(dangerous_scheme_after_browser_cleanup)
{
    expect_exact("javascript:alert(1)", F(DANGEROUS_SCHEME));
    expect_exact("java\tscript:alert(1)",
                 F(INVALID) | F(CTL_RAW) | F(WHITESPACE) | F(DANGEROUS_SCHEME));
    expect_has(" \x0e javascript:x", F(DANGEROUS_SCHEME));
}
END_TEST

START_TEST(names_get_no_ip_flags)
{
    expect_exact("http://localhost/", F(INTERNAL_NAME) | F(SINGLE_LABEL));
    expect_exact("http://localhost:8080/", F(NONDEFAULT_PORT) | F(INTERNAL_NAME) | F(SINGLE_LABEL));
    expect_exact("http://ip6-localhost/", F(INTERNAL_NAME) | F(SINGLE_LABEL)); /* Debian /etc/hosts: ::1 */
    expect_exact("http://1.2.3.4.nip.io/", 0);
    expect_exact("http://0x7f.example/", 0);
    expect_exact("http://[localhost]/", F(INVALID));
}
END_TEST

START_TEST(clean_uris_have_no_flags)
{
    expect_exact("http://example.com/", 0);
    expect_exact("https://user@example.com/a/b?c=d#e", F(USERINFO));
    expect_exact("mailto:someone@example.com", 0);
    expect_exact("urn:isbn:0451450523", 0);
    expect_exact("", 0);
    expect_exact("../a/b", F(DOT_SEGMENTS));
}
END_TEST

/* idn through urisan_check and through urisan_parse + urisan_analyze,
   the input flush against a guard page. */
static void expect_idn_both_ways(const char *in, size_t len, bool want)
{
    ck_assert_msg(!!(analyse(in, len, NULL) & F(IDN)) == want, "check %.*s: idn %d", (int)len,
                  in, !want);
    guard_buf g = {0};
    const char *s = guard_place(&g, in, len);
    ck_assert_ptr_nonnull(s);
    urisan_uri u;
    urisan_report r;
    urisan_parse(s, len, NULL, &u, NULL);
    ck_assert_int_eq(urisan_analyze(s, len, &u, NULL, &r), URISAN_OK);
    ck_assert_msg(!!(r.flags & F(IDN)) == want, "analyze %.*s: idn %d", (int)len, in, !want);
    guard_free(&g);
}

/* The "--" of an xn-- label at every place of hosts of 4 to 40 bytes,
   with the host at the end of the input or followed by more: the host
   scans (one load, the load that ends at the input's end, 15-byte
   strides) must see each one. */
START_TEST(xn_label_anywhere_in_a_host_is_idn)
{
    static const char *const tails[] = {"", "/", ":81", "/a/b/c/d/e/f/g/h/i", "?q#f"};
    char host[48], in[128];
    for (size_t n = 4; n <= 40; n++) {
        for (size_t i = 0; i + 4 <= n; i++) {
            if (i == 1)
                continue; /* "." + "xn--": an empty first label */
            memset(host, 'a', n);
            if (i > 0)
                host[i - 1] = '.';
            memcpy(host + i, "xn--", 4);
            for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
                int len = snprintf(in, sizeof in, "http://%.*s%s", (int)n, host, tails[t]);
                expect_idn_both_ways(in, (size_t)len, true);
                in[7 + i + 1] = 'm'; /* "xm--": a "--" that is no xn label */
                expect_idn_both_ways(in, (size_t)len, false);
            }
        }
    }
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Addresses: report and RFC 5952 text                                      */
/* ---------------------------------------------------------------------- */

START_TEST(ipv6_text_is_rfc5952_canonical)
{
    expect_ip("http://[0:0::1]/", "::1");
    expect_ip("http://[::]/", "::");
    expect_ip("http://[2001:DB8:0:0:1:0:0:1]/", "2001:db8::1:0:0:1");
    expect_ip("http://[2001:db8:0:1:1:1:1:1]/", "2001:db8:0:1:1:1:1:1");
    expect_ip("http://[2001:0db8::0001]/", "2001:db8::1");
    expect_ip("http://[fe80::1%25eth0]/", "fe80::1");
    expect_ip("http://[::ffff:1.2.3.4]/", "::ffff:1.2.3.4");
    expect_ip("http://[1:0:0:2:0:0:0:3]/", "1:0:0:2::3");
    expect_ip("http://[1::]/", "1::");
}
END_TEST

/* Our RFC 5952 text equals inet_ntop(3) on addresses with every pattern of
   zero groups (the embedded-IPv4 choice included). */
START_TEST(ipv6_text_matches_inet_ntop)
{
    urisan_report r;
    memset(&r, 0, sizeof r);
    r.ip_family = 6;
    unsigned seed = 12345;
    for (unsigned mask = 0; mask < 256; mask++) {
        for (int rep = 0; rep < 8; rep++) {
            for (int w = 0; w < 8; w++) {
                seed = seed * 1103515245u + 12345u;
                unsigned v = (mask >> w & 1) ? (rep == 0 ? 0xffffu : (seed >> 8) & 0xffffu) : 0;
                if (rep == 1 && (mask >> w & 1))
                    v = 1;
                r.ip[2 * w] = (uint8_t)(v >> 8);
                r.ip[2 * w + 1] = (uint8_t)v;
            }
            char want[INET6_ADDRSTRLEN], got[64];
            ck_assert_ptr_nonnull(inet_ntop(AF_INET6, r.ip, want, sizeof want));
            size_t n;
            ck_assert_int_eq(urisan_format_ip(&r, got, sizeof got, &n), URISAN_OK);
            ck_assert_msg(n == strlen(want) && memcmp(got, want, n) == 0, "%.*s vs %s", (int)n,
                          got, want);
        }
    }
}
END_TEST

START_TEST(format_ip_reports_needed_size_and_nospace)
{
    urisan_report r;
    memset(&r, 0, sizeof r);
    char buf[64];
    size_t n = 99;
    ck_assert_int_eq(urisan_format_ip(&r, buf, sizeof buf, &n), URISAN_E_BAD_ARGUMENT);
    ck_assert_uint_eq(n, 0);
    r.ip_family = 4;
    r.ip[0] = 192, r.ip[1] = 168, r.ip[2] = 100, r.ip[3] = 200;
    ck_assert_int_eq(urisan_format_ip(&r, buf, 5, &n), URISAN_E_NOSPACE);
    ck_assert_uint_eq(n, 15);
    ck_assert_int_eq(urisan_format_ip(&r, buf, 15, &n), URISAN_OK);
    ck_assert(memcmp(buf, "192.168.100.200", 15) == 0);
}
END_TEST

START_TEST(no_address_for_names_and_ipvfuture)
{
    urisan_report r;
    analyse("http://example.com/", 19, &r);
    ck_assert_int_eq(r.ip_family, 0);
    analyse("http://[v1.x]/", 14, &r);
    ck_assert_int_eq(r.ip_family, 0);
    ck_assert(r.flags & F(IP_LITERAL));
    analyse("http://1.2.3.4/", 15, &r);
    ck_assert_int_eq(r.ip_family, 4);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Names, ports table, robustness                                           */
/* ---------------------------------------------------------------------- */

START_TEST(flag_names_round_trip_through_the_list)
{
    int named = 0;
    for (int b = 0; b < URISAN_FLAG_COUNT_; b++) {
        const char *n = urisan_flag_name((urisan_flag)b);
        if (n == NULL)
            continue; /* a bit reserved for a flag not landed yet */
        named++;
        ck_assert_int_eq(urisan_flag_from_name(n, strlen(n)), b);
    }
    /* the list's lines, counted apart from the bit numbers */
    static const char *const listed[] = {
#define URISAN_FLAG(U, l, bit) #l,
#include "urisan_flags.def"
#undef URISAN_FLAG
    };
    ck_assert_int_eq(named, (int)(sizeof listed / sizeof listed[0]));
    ck_assert_ptr_nonnull(urisan_flag_name((urisan_flag)(URISAN_FLAG_COUNT_ - 1)));
    ck_assert_ptr_null(urisan_flag_name(URISAN_FLAG_COUNT_));
    ck_assert_ptr_null(urisan_flag_name((urisan_flag)63));
    ck_assert_int_eq(urisan_flag_from_name("Invalid", 7), -1);
    ck_assert_int_eq(urisan_flag_from_name("invalidx", 7), URISAN_FLAG_INVALID);
    ck_assert_int_eq(urisan_flag_from_name("", 0), -1);
    ck_assert_int_eq(urisan_flag_from_name(NULL, 0), -1);
    ck_assert_str_eq(urisan_flag_name(URISAN_FLAG_ESCAPED_CRLF), "escaped_crlf");
    ck_assert_str_eq(urisan_flag_name(URISAN_FLAG_AMBIGUOUS_AUTHORITY), "ambiguous_authority");
}
END_TEST

START_TEST(default_port_table_has_the_spec_list)
{
    static const struct {
        const char *s;
        int p;
    } t[] = {{"http", 80},   {"https", 443},   {"ws", 80},     {"wss", 443},  {"ftp", 21},
             {"gopher", 70}, {"telnet", 23},   {"nntp", 119},  {"news", 119}, {"wais", 210},
             {"prospero", 1525}, {"ldap", 389}, {"ldaps", 636}, {"imap", 143}, {"pop", 110},
             {"smtp", 25},   {"ssh", 22},      {"sftp", 22},   {"rtsp", 554}, {"sip", 5060},
             {"sips", 5061}, {"git", 9418},    {"dict", 2628}, {"tftp", 69}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        ck_assert_int_eq(urisan_default_port(t[i].s, strlen(t[i].s)), t[i].p);
    ck_assert_int_eq(urisan_default_port("HTTPS", 5), 443);
    ck_assert_int_eq(urisan_default_port("httpx", 5), -1);
    ck_assert_int_eq(urisan_default_port("http", 3), -1);
    ck_assert_int_eq(urisan_default_port(NULL, 0), -1);
}
END_TEST

START_TEST(analyze_rejects_bad_arguments)
{
    urisan_uri u;
    urisan_report r;
    ck_assert_int_eq(urisan_parse("x", 1, NULL, &u, NULL), URISAN_OK);
    ck_assert_int_eq(urisan_analyze(NULL, 1, &u, NULL, &r), URISAN_E_BAD_ARGUMENT);
    ck_assert(r.flags & F(INVALID));
    ck_assert_int_eq(urisan_analyze("x", 1, NULL, NULL, &r), URISAN_E_BAD_ARGUMENT);
    ck_assert_int_eq(urisan_analyze("x", 1, &u, NULL, NULL), URISAN_E_BAD_ARGUMENT);
    /* empty input with a NULL pointer is fine */
    ck_assert_int_eq(urisan_parse(NULL, 0, NULL, &u, NULL), URISAN_OK);
    ck_assert_int_eq(urisan_analyze(NULL, 0, &u, NULL, &r), URISAN_OK);
    ck_assert_uint_eq(r.flags, 0);
    /* ... even with empty spans at offset 0 (they fit a 0-byte input):
       no arithmetic on, or libc call with, the NULL pointer (UBSan) */
    u.userinfo.off = u.host.off = u.port.off = u.scheme.off = 0;
    u.userinfo.len = u.host.len = u.port.len = u.scheme.len = 0;
    ck_assert_int_eq(urisan_analyze(NULL, 0, &u, NULL, &r), URISAN_OK);
    ck_assert(r.flags & F(USERINFO));
    urisan_decision d;
    urisan_policy *pol = malloc(urisan_policy_size());
    ck_assert_ptr_nonnull(pol);
    const char *pt = "allow-host example.com\nallow-scheme http\nallow-port 80\n";
    size_t line = 0;
    const char *msg = NULL;
    urisan_policy_init(pol);
    ck_assert_int_eq(urisan_policy_parse(pol, pt, strlen(pt), &line, &msg), URISAN_OK);
    urisan_decide(NULL, 0, &u, &r, pol, &d);
    urisan_decide(NULL, 0, &u, &r, NULL, &d);
    ck_assert_int_eq(urisan_check(NULL, 0, pol, &u, &r, &d), URISAN_OK);
    free(pol);
}
END_TEST

/* Spans that do not fit the input (a caller's mistake) are ignored, never
   followed out of bounds. */
START_TEST(forged_spans_are_not_followed)
{
    urisan_uri u;
    urisan_report r;
    ck_assert_int_eq(urisan_parse("http://h:1/p", 12, NULL, &u, NULL), URISAN_OK);
    u.host.off = 100;
    u.path.len = 1000;
    u.port.off = (size_t)-2;
    guard_buf g = {0};
    const char *s = guard_place(&g, "http://h:1/p", 12);
    ck_assert_int_eq(urisan_analyze(s, 12, &u, NULL, &r), URISAN_OK);
    guard_free(&g);
}
END_TEST

/* What urisan_parse saw of one buffer is never applied to another: a
   parse of a plain input, handed to urisan_analyze with a different
   buffer of the same length, gives the report of that buffer's own bytes
   (here: dot segments, a raw space, an encoded slash). */
START_TEST(parse_summary_is_tied_to_its_buffer)
{
    static const char plain[] = "http://h/abcdefgh/xyz";
    static const char risky[] = "http://h/%2e%2e/a b/z";
    size_t len = sizeof plain - 1;
    ck_assert_uint_eq(len, sizeof risky - 1);
    char *a = malloc(len), *b = malloc(len);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    memcpy(a, plain, len);
    memcpy(b, risky, len);
    urisan_uri ua, ub;
    urisan_report ra, rb;
    ck_assert_int_eq(urisan_parse(a, len, NULL, &ua, NULL), URISAN_OK);
    urisan_parse(b, len, NULL, &ub, NULL);
    ck_assert_int_eq(urisan_analyze(b, len, &ub, NULL, &rb), URISAN_OK);
    ck_assert(rb.flags & F(DOT_SEGMENTS));
    ck_assert(rb.flags & F(WHITESPACE));
    /* a's parse (same length, spans that fit) with b's bytes */
    ck_assert_int_eq(urisan_analyze(b, len, &ua, NULL, &ra), URISAN_OK);
    ck_assert(ra.flags & F(DOT_SEGMENTS));
    ck_assert(ra.flags & F(WHITESPACE));
    /* and the same parse with its own bytes stays clean */
    ck_assert_int_eq(urisan_analyze(a, len, &ua, NULL, &ra), URISAN_OK);
    ck_assert_uint_eq(ra.flags & ~F(SINGLE_LABEL), 0);
    /* the same pointer with a shorter length is another input too */
    ck_assert_int_eq(urisan_analyze(a, len - 4, &ua, NULL, &ra), URISAN_OK);
    free(a);
    free(b);
}
END_TEST

/* Linear work: a megabyte of hostile bytes, with limits raised to the
   ceiling, is analysed (each a single pass; no timing asserted). */
START_TEST(megabyte_of_hostile_input_is_analysed)
{
    static const char *const unit[] = {"%25", "/..", "%c0", "@", "\\", "%2e%2e/", "0x7f.",
                                       "./", "%e0%80"};
    size_t n = URISAN_HARD_CEILING - 64;
    char *buf = malloc(n);
    urisan_limits lim = {URISAN_HARD_CEILING, URISAN_HARD_CEILING, URISAN_HARD_CEILING,
                         URISAN_HARD_CEILING, URISAN_HARD_CEILING, URISAN_HARD_CEILING};
    for (size_t k = 0; k < sizeof unit / sizeof unit[0]; k++) {
        size_t ul = strlen(unit[k]);
        memcpy(buf, "http://", 7);
        for (size_t o = 7; o < n; o++)
            buf[o] = unit[k][(o - 7) % ul];
        guard_buf g = {0};
        const char *s = guard_place(&g, buf, n);
        urisan_uri u;
        urisan_report r;
        urisan_parse(s, n, &lim, &u, NULL);
        ck_assert_int_eq(urisan_analyze(s, n, &u, NULL, &r), URISAN_OK);
        check_implications(s, n, r.flags);
        guard_free(&g);
    }
    free(buf);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("flags");
    TCase *t = tcase_create("too_long");
    tcase_add_test(t, too_long_uri_has_exactly_too_long_and_invalid);
    tcase_add_test(t, too_long_host_label_scheme_userinfo_segments);
    suite_add_tcase(s, t);

    t = tcase_create("implications");
    tcase_add_test(t, each_implication_sets_the_implied_flag);
    tcase_add_test(t, implications_hold_on_the_shared_url_data);
    suite_add_tcase(s, t);

    t = tcase_create("attacks");
    tcase_add_test(t, crlf_injection_in_a_path_is_escaped_crlf);
    tcase_add_test(t, hash_before_at_is_ambiguous_authority);
    tcase_add_test(t, pct2f_in_a_host_is_encoded_slash_and_ambiguous);
    tcase_add_test(t, trailing_dot_hosts);
    tcase_add_test(t, backslash_confusion_is_ambiguous_authority);
    tcase_add_test(t, multiple_at_signs_are_ambiguous_authority);
    tcase_add_test(t, slash_confusion_is_ambiguous_authority);
    tcase_add_test(t, numeric_ipv4_forms_are_obfuscated_loopback);
    tcase_add_test(t, unicode_digit_and_dot_forms_are_obfuscated);
    tcase_add_test(t, every_uts46_mapping_to_an_address_character_is_obfuscated);
    tcase_add_test(t, raw_tab_cr_lf_in_an_address_host_are_removed_as_browsers_do);
    tcase_add_test(t, ipv4_mapped_ipv6_is_loopback_not_obfuscated);
    tcase_add_test(t, cloud_metadata_address_is_link_local);
    tcase_add_test(t, pct2e_traversal_above_root);
    tcase_add_test(t, overlong_utf8_dot_dot_slash);
    tcase_add_test(t, dangerous_scheme_after_browser_cleanup);
    tcase_add_test(t, names_get_no_ip_flags);
    tcase_add_test(t, clean_uris_have_no_flags);
    suite_add_tcase(s, t);

    t = tcase_create("addresses");
    tcase_add_test(t, ipv6_text_is_rfc5952_canonical);
    tcase_add_test(t, ipv6_text_matches_inet_ntop);
    tcase_add_test(t, format_ip_reports_needed_size_and_nospace);
    tcase_add_test(t, no_address_for_names_and_ipvfuture);
    suite_add_tcase(s, t);

    t = tcase_create("api");
    tcase_add_test(t, flag_names_round_trip_through_the_list);
    tcase_add_test(t, default_port_table_has_the_spec_list);
    tcase_add_test(t, analyze_rejects_bad_arguments);
    tcase_add_test(t, forged_spans_are_not_followed);
    tcase_add_test(t, parse_summary_is_tied_to_its_buffer);
    tcase_add_test(t, megabyte_of_hostile_input_is_analysed);
    tcase_add_test(t, xn_label_anywhere_in_a_host_is_idn);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
