/*
 * test_flags.c - risk analysis (urisan(1), FLAGS): what the one-flag cases of
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
#include "quiet_check.h"
#include "testdata.h"
#include "urisan.h"

#define F(n) URISAN_F(n)

/* Analyse in[0..len) as urisan_check does (default policy). */
static urisan_flags analyse(const char *in, size_t len, urisan_report *rep_out)
{
    guard_buf g = {0};
    const char *s = guard_place(&g, in, len);
    qc_assert(s != NULL);
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    urisan_check(s, len, NULL, &u, &r, &d);
    guard_free(&g);
    /* invalid is exactly "the parse result is not valid" */
    qc_assert_msg(!!(r.flags & F(INVALID)) == !u.valid, "%.*s: invalid flag %d, valid %d",
                  (int)len, in, !!(r.flags & F(INVALID)), u.valid);
    if (rep_out)
        *rep_out = r;
    return r.flags;
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
    qc_assert_uint_eq(f, F(TOO_LONG) | F(INVALID));
    /* 8192 bytes exactly is within the bound */
    memset(s + 9, 'a', n - 9);
    f = analyse(s, n - 1, NULL);
    qc_assert(!(f & F(TOO_LONG)));
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
    qc_assert_uint_eq(f, F(TOO_LONG) | F(INVALID));
    /* 63 is fine */
    snprintf(buf, sizeof buf, "http://%063d.x/", 0);
    qc_assert(!(analyse(buf, strlen(buf), NULL) & F(TOO_LONG)));
    /* scheme of 65 bytes */
    memset(buf, 'a', 65);
    memcpy(buf + 65, "://h/", 6);
    f = analyse(buf, strlen(buf), NULL);
    qc_assert_uint_eq(f, F(TOO_LONG) | F(INVALID));
    /* 1025 path segments, each a dot-dot: still only two flags */
    size_t o = 0;
    for (int i = 0; i < 1025; i++) {
        memcpy(buf + o, "/..", 3);
        o += 3;
    }
    f = analyse(buf, o, NULL);
    qc_assert_uint_eq(f, F(TOO_LONG) | F(INVALID));
    /* userinfo of 1025 bytes with a javascript: scheme */
    o = 0;
    memcpy(buf, "javascript://", 13);
    o = 13;
    memset(buf + o, 'u', 1025);
    o += 1025;
    memcpy(buf + o, ":p@h/", 5);
    o += 5;
    f = analyse(buf, o, NULL);
    qc_assert_uint_eq(f, F(TOO_LONG) | F(INVALID));
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Implications (doc/policy.md) hold on every input we have                 */
/* ---------------------------------------------------------------------- */

/* One named case per implication: the implied flag shows up even where the
   implying one is the only reason for it. */
START_TEST(each_implication_sets_the_implied_flag)
{
    qc_assert(analyse("http://:@h/", 11, NULL) & F(USERINFO));
    qc_assert(analyse("https://h:80/", 13, NULL) & F(NONDEFAULT_PORT));
    qc_assert(analyse("/%0a", 4, NULL) & F(ESCAPED_CTL));
    qc_assert(analyse("/%00", 4, NULL) & F(ESCAPED_CTL));
    qc_assert(analyse("http://127.1/", 13, NULL) & F(IP_LITERAL));
    qc_assert(analyse("/..", 3, NULL) & F(DOT_SEGMENTS));
    qc_assert(analyse("a/%2e", 5, NULL) & F(DOT_SEGMENTS));
    qc_assert(analyse("/\xc3\xa9", 3, NULL) & F(INVALID));
    qc_assert(analyse("/%", 2, NULL) & F(INVALID));
    qc_assert(analyse("/\\", 2, NULL) & F(INVALID));
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
            qc_assert_uint_eq(r.flags, r2.flags);
            qc_assert_int_eq(!!(r.flags & F(INVALID)), !u.valid);
        }
        free(line);
        fclose(fp);
    }
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Attack payload classes (whole flag sets, addresses, RFC 5952 text):      */
/* tests/spec/flags-attacks.md, run by test_spec.c.                         */
/* ---------------------------------------------------------------------- */

/* idn through urisan_check and through urisan_parse + urisan_analyze,
   the input flush against a guard page. */
static void expect_idn_both_ways(const char *in, size_t len, bool want)
{
    qc_assert_msg(!!(analyse(in, len, NULL) & F(IDN)) == want, "check %.*s: idn %d", (int)len,
                  in, !want);
    guard_buf g = {0};
    const char *s = guard_place(&g, in, len);
    qc_assert(s != NULL);
    urisan_uri u;
    urisan_report r;
    urisan_parse(s, len, NULL, &u, NULL);
    qc_assert_int_eq(urisan_analyze(s, len, &u, NULL, &r), URISAN_OK);
    qc_assert_msg(!!(r.flags & F(IDN)) == want, "analyze %.*s: idn %d", (int)len, in, !want);
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
            qc_assert_int_eq(urisan_format_ip(&r, got, sizeof got, &n), URISAN_OK);
            qc_assert_msg(n == strlen(want) && memcmp(got, want, n) == 0, "%.*s vs %s", (int)n,
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
    qc_assert_int_eq(urisan_format_ip(&r, buf, sizeof buf, &n), URISAN_E_BAD_ARGUMENT);
    qc_assert_uint_eq(n, 0);
    r.ip_family = 4;
    r.ip[0] = 192, r.ip[1] = 168, r.ip[2] = 100, r.ip[3] = 200;
    qc_assert_int_eq(urisan_format_ip(&r, buf, 5, &n), URISAN_E_NOSPACE);
    qc_assert_uint_eq(n, 15);
    qc_assert_int_eq(urisan_format_ip(&r, buf, 15, &n), URISAN_OK);
    qc_assert(memcmp(buf, "192.168.100.200", 15) == 0);
}
END_TEST

START_TEST(no_address_for_names_and_ipvfuture)
{
    urisan_report r;
    analyse("http://example.com/", 19, &r);
    qc_assert_int_eq(r.ip_family, 0);
    analyse("http://[v1.x]/", 14, &r);
    qc_assert_int_eq(r.ip_family, 0);
    qc_assert(r.flags & F(IP_LITERAL));
    analyse("http://1.2.3.4/", 15, &r);
    qc_assert_int_eq(r.ip_family, 4);
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
        qc_assert_int_eq(urisan_flag_from_name(n, strlen(n)), b);
    }
    /* the list's lines, counted apart from the bit numbers */
    static const char *const listed[] = {
#define URISAN_FLAG(U, l, bit) #l,
#include "urisan_flags.def"
#undef URISAN_FLAG
    };
    qc_assert_int_eq(named, (int)(sizeof listed / sizeof listed[0]));
    ck_assert_ptr_nonnull(urisan_flag_name((urisan_flag)(URISAN_FLAG_COUNT_ - 1)));
    ck_assert_ptr_null(urisan_flag_name(URISAN_FLAG_COUNT_));
    ck_assert_ptr_null(urisan_flag_name((urisan_flag)63));
    qc_assert_int_eq(urisan_flag_from_name("Invalid", 7), -1);
    qc_assert_int_eq(urisan_flag_from_name("invalidx", 7), URISAN_FLAG_INVALID);
    qc_assert_int_eq(urisan_flag_from_name("", 0), -1);
    qc_assert_int_eq(urisan_flag_from_name(NULL, 0), -1);
    qc_assert_str_eq(urisan_flag_name(URISAN_FLAG_ESCAPED_CRLF), "escaped_crlf");
    qc_assert_str_eq(urisan_flag_name(URISAN_FLAG_AMBIGUOUS_AUTHORITY), "ambiguous_authority");
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
        qc_assert_int_eq(urisan_default_port(t[i].s, strlen(t[i].s)), t[i].p);
    qc_assert_int_eq(urisan_default_port("HTTPS", 5), 443);
    qc_assert_int_eq(urisan_default_port("httpx", 5), -1);
    qc_assert_int_eq(urisan_default_port("http", 3), -1);
    qc_assert_int_eq(urisan_default_port(NULL, 0), -1);
}
END_TEST

START_TEST(analyze_rejects_bad_arguments)
{
    urisan_uri u;
    urisan_report r;
    qc_assert_int_eq(urisan_parse("x", 1, NULL, &u, NULL), URISAN_OK);
    qc_assert_int_eq(urisan_analyze(NULL, 1, &u, NULL, &r), URISAN_E_BAD_ARGUMENT);
    qc_assert(r.flags & F(INVALID));
    qc_assert_int_eq(urisan_analyze("x", 1, NULL, NULL, &r), URISAN_E_BAD_ARGUMENT);
    qc_assert_int_eq(urisan_analyze("x", 1, &u, NULL, NULL), URISAN_E_BAD_ARGUMENT);
    /* empty input with a NULL pointer is fine */
    qc_assert_int_eq(urisan_parse(NULL, 0, NULL, &u, NULL), URISAN_OK);
    qc_assert_int_eq(urisan_analyze(NULL, 0, &u, NULL, &r), URISAN_OK);
    qc_assert_uint_eq(r.flags, 0);
    /* ... even with empty spans at offset 0 (they fit a 0-byte input):
       no arithmetic on, or libc call with, the NULL pointer (UBSan) */
    u.userinfo.off = u.host.off = u.port.off = u.scheme.off = 0;
    u.userinfo.len = u.host.len = u.port.len = u.scheme.len = 0;
    qc_assert_int_eq(urisan_analyze(NULL, 0, &u, NULL, &r), URISAN_OK);
    qc_assert(r.flags & F(USERINFO));
    urisan_decision d;
    urisan_policy *pol = malloc(urisan_policy_size());
    qc_assert(pol != NULL);
    const char *pt = "allow-host example.com\nallow-scheme http\nallow-port 80\n";
    size_t line = 0;
    const char *msg = NULL;
    urisan_policy_init(pol);
    qc_assert_int_eq(urisan_policy_parse(pol, pt, strlen(pt), &line, &msg), URISAN_OK);
    urisan_decide(NULL, 0, &u, &r, pol, &d);
    urisan_decide(NULL, 0, &u, &r, NULL, &d);
    qc_assert_int_eq(urisan_check(NULL, 0, pol, &u, &r, &d), URISAN_OK);
    free(pol);
}
END_TEST

/* Spans that do not fit the input (a caller's mistake) are ignored, never
   followed out of bounds. */
START_TEST(forged_spans_are_not_followed)
{
    urisan_uri u;
    urisan_report r;
    qc_assert_int_eq(urisan_parse("http://h:1/p", 12, NULL, &u, NULL), URISAN_OK);
    u.host.off = 100;
    u.path.len = 1000;
    u.port.off = (size_t)-2;
    guard_buf g = {0};
    const char *s = guard_place(&g, "http://h:1/p", 12);
    qc_assert_int_eq(urisan_analyze(s, 12, &u, NULL, &r), URISAN_OK);
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
    qc_assert_uint_eq(len, sizeof risky - 1);
    char *a = malloc(len), *b = malloc(len);
    qc_assert(a != NULL);
    qc_assert(b != NULL);
    memcpy(a, plain, len);
    memcpy(b, risky, len);
    urisan_uri ua, ub;
    urisan_report ra, rb;
    qc_assert_int_eq(urisan_parse(a, len, NULL, &ua, NULL), URISAN_OK);
    urisan_parse(b, len, NULL, &ub, NULL);
    qc_assert_int_eq(urisan_analyze(b, len, &ub, NULL, &rb), URISAN_OK);
    qc_assert(rb.flags & F(DOT_SEGMENTS));
    qc_assert(rb.flags & F(WHITESPACE));
    /* a's parse (same length, spans that fit) with b's bytes */
    qc_assert_int_eq(urisan_analyze(b, len, &ua, NULL, &ra), URISAN_OK);
    qc_assert(ra.flags & F(DOT_SEGMENTS));
    qc_assert(ra.flags & F(WHITESPACE));
    /* and the same parse with its own bytes stays clean */
    qc_assert_int_eq(urisan_analyze(a, len, &ua, NULL, &ra), URISAN_OK);
    qc_assert_uint_eq(ra.flags & ~F(SINGLE_LABEL), 0);
    /* the same pointer with a shorter length is another input too */
    qc_assert_int_eq(urisan_analyze(a, len - 4, &ua, NULL, &ra), URISAN_OK);
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
        qc_assert_int_eq(urisan_analyze(s, n, &u, NULL, &r), URISAN_OK);
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
    suite_add_tcase(s, t);
    t = testdata_tcase(s, "implications_shared_data");
    tcase_add_test(t, implications_hold_on_the_shared_url_data);

    t = tcase_create("addresses");
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
    if (testdata_skip())
        return 77;
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
