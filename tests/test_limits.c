/* test_limits.c - each length bound at and one past its limit
   (urisan(1), POLICY: limit). */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "urisan.h"

static char *repeat(const char *prefix, char c, size_t n, const char *suffix, size_t *outlen)
{
    size_t pl = strlen(prefix), sl = strlen(suffix);
    char *s = malloc(pl + n + sl + 1);
    memcpy(s, prefix, pl);
    memset(s + pl, c, n);
    memcpy(s + pl + n, suffix, sl + 1);
    *outlen = pl + n + sl;
    return s;
}

static urisan_status parse_lim(const char *s, size_t n, const urisan_limits *lim, urisan_uri *u)
{
    return urisan_parse(s, n, lim, u, NULL);
}

START_TEST(defaults_are_the_spec_values)
{
    urisan_limits l;
    urisan_limits_default(&l);
    ck_assert_uint_eq(l.max_uri, 8192);
    ck_assert_uint_eq(l.max_host, 255);
    ck_assert_uint_eq(l.max_label, 63);
    ck_assert_uint_eq(l.max_userinfo, 1024);
    ck_assert_uint_eq(l.max_segments, 1024);
    ck_assert_uint_eq(l.max_scheme, 64);
}
END_TEST

START_TEST(uri_of_8192_bytes_is_parsed_and_8193_is_too_long_at_8192)
{
    size_t n;
    char *s = repeat("/", 'a', 8191, "", &n);
    urisan_uri u;
    ck_assert_int_eq(parse_lim(s, n, NULL, &u), URISAN_OK);
    free(s);
    s = repeat("/", 'a', 8192, "", &n);
    ck_assert_int_eq(parse_lim(s, n, NULL, &u), URISAN_E_TOO_LONG);
    ck_assert_uint_eq(u.error.offset, 8192);
    ck_assert(!urisan_span_present(u.path));
    ck_assert_int_eq(u.valid, 0);
    free(s);
}
END_TEST

START_TEST(too_long_uri_is_rejected_without_reading_a_byte)
{
    guard_buf g = {0};
    const char *p = guard_unreadable(&g, 3 * 8192);
    ck_assert_ptr_nonnull(p);
    urisan_uri u;
    ck_assert_int_eq(parse_lim(p, 3 * 8192, NULL, &u), URISAN_E_TOO_LONG);
    ck_assert_uint_eq(u.error.offset, 8192);
    guard_free(&g);
}
END_TEST

START_TEST(scheme_of_64_is_parsed_and_65_is_too_long)
{
    size_t n;
    char *s = repeat("", 'a', 64, ":x", &n);
    urisan_uri u;
    ck_assert_int_eq(parse_lim(s, n, NULL, &u), URISAN_OK);
    ck_assert_uint_eq(u.scheme.len, 64);
    free(s);
    s = repeat("", 'a', 65, ":x", &n);
    ck_assert_int_eq(parse_lim(s, n, NULL, &u), URISAN_E_TOO_LONG);
    ck_assert_uint_eq(u.error.offset, 64);
    free(s);
    /* a long first segment without a colon is no scheme at all */
    s = repeat("", 'a', 500, "/b", &n);
    ck_assert_int_eq(parse_lim(s, n, NULL, &u), URISAN_OK);
    free(s);
}
END_TEST

START_TEST(userinfo_of_1024_is_parsed_and_1025_is_too_long)
{
    size_t n;
    char *s = repeat("http://", 'u', 1024, "@h/", &n);
    urisan_uri u;
    ck_assert_int_eq(parse_lim(s, n, NULL, &u), URISAN_OK);
    ck_assert_uint_eq(u.userinfo.len, 1024);
    free(s);
    s = repeat("http://", 'u', 1025, "@h/", &n);
    ck_assert_int_eq(parse_lim(s, n, NULL, &u), URISAN_E_TOO_LONG);
    ck_assert_uint_eq(u.error.offset, 7 + 1024);
    free(s);
}
END_TEST

static char *host_of(size_t hostlen, size_t *n)
{
    /* labels of 50 bytes separated by dots */
    char *s = malloc(hostlen + 16);
    memcpy(s, "http://", 7);
    for (size_t i = 0; i < hostlen; i++)
        s[7 + i] = (i % 51 == 50) ? '.' : 'h';
    memcpy(s + 7 + hostlen, "/", 2);
    *n = 7 + hostlen + 1;
    return s;
}

START_TEST(host_of_255_is_parsed_and_256_is_too_long)
{
    size_t n;
    char *s = host_of(255, &n);
    urisan_uri u;
    ck_assert_int_eq(parse_lim(s, n, NULL, &u), URISAN_OK);
    ck_assert_uint_eq(u.host.len, 255);
    free(s);
    s = host_of(256, &n);
    ck_assert_int_eq(parse_lim(s, n, NULL, &u), URISAN_E_TOO_LONG);
    ck_assert_uint_eq(u.error.offset, 7 + 255);
    free(s);
}
END_TEST

START_TEST(label_of_63_is_parsed_and_64_is_too_long)
{
    size_t n;
    char *s = repeat("http://a.", 'l', 63, ".com/", &n);
    urisan_uri u;
    ck_assert_int_eq(parse_lim(s, n, NULL, &u), URISAN_OK);
    free(s);
    s = repeat("http://a.", 'l', 64, ".com/", &n);
    ck_assert_int_eq(parse_lim(s, n, NULL, &u), URISAN_E_TOO_LONG);
    ck_assert_uint_eq(u.error.offset, 9 + 63);
    free(s);
}
END_TEST

START_TEST(raised_label_limit_still_makes_a_long_label_invalid)
{
    urisan_limits l;
    urisan_limits_default(&l);
    l.max_label = 200;
    l.max_host = 1000;
    size_t n;
    char *s = repeat("http://a.", 'l', 64, ".com/", &n);
    urisan_uri u;
    ck_assert_int_eq(parse_lim(s, n, &l, &u), URISAN_E_LABEL_LENGTH);
    ck_assert_uint_eq(u.error.offset, 9 + 63);
    ck_assert(urisan_span_present(u.host));
    free(s);
    s = host_of(300, &n);
    ck_assert_int_eq(parse_lim(s, n, &l, &u), URISAN_E_HOST_LENGTH);
    ck_assert_uint_eq(u.error.offset, 7 + 255);
    free(s);
}
END_TEST

static char *segments(size_t count, size_t *n)
{
    char *s = malloc(2 * count + 1);
    for (size_t i = 0; i < count; i++) {
        s[2 * i] = '/';
        s[2 * i + 1] = 's';
    }
    s[2 * count] = '\0';
    *n = 2 * count;
    return s;
}

START_TEST(path_of_1024_segments_is_parsed_and_1025_is_too_long)
{
    size_t n;
    char *s = segments(1024, &n);
    urisan_uri u;
    ck_assert_int_eq(parse_lim(s, n, NULL, &u), URISAN_OK);
    ck_assert_uint_eq(u.segments, 1024);
    free(s);
    s = segments(1025, &n);
    ck_assert_int_eq(parse_lim(s, n, NULL, &u), URISAN_E_TOO_LONG);
    ck_assert_uint_eq(u.error.offset, 2 * 1024);
    free(s);
}
END_TEST

START_TEST(segment_bound_stops_before_reading_further)
{
    urisan_limits l;
    urisan_limits_default(&l);
    l.max_segments = 2;
    /* "/a/b/" then bytes that must never be read */
    guard_buf g = {0};
    const char *p = guard_place(&g, "/a/b/", 5);
    ck_assert_ptr_nonnull(p);
    urisan_uri u;
    /* claim 4000 bytes: only 5 are readable, the rest faults */
    ck_assert_int_eq(urisan_parse(p, 4000, &l, &u, NULL), URISAN_E_TOO_LONG);
    ck_assert_uint_eq(u.error.offset, 4);
    guard_free(&g);
}
END_TEST

START_TEST(limits_above_the_hard_ceiling_are_clamped)
{
    urisan_limits l;
    urisan_limits_default(&l);
    l.max_uri = (size_t)-1;
    size_t n = URISAN_HARD_CEILING + 1;
    char *s = malloc(n);
    memset(s, 'a', n);
    s[0] = '/';
    urisan_uri u;
    ck_assert_int_eq(urisan_parse(s, n, &l, &u, NULL), URISAN_E_TOO_LONG);
    ck_assert_uint_eq(u.error.offset, URISAN_HARD_CEILING);
    ck_assert_int_eq(urisan_parse(s, n - 1, &l, &u, NULL), URISAN_OK);
    free(s);
}
END_TEST

START_TEST(lowered_limits_apply)
{
    urisan_limits l;
    urisan_limits_default(&l);
    l.max_uri = 10;
    urisan_uri u;
    ck_assert_int_eq(urisan_parse("http://h/1", 10, &l, &u, NULL), URISAN_OK);
    ck_assert_int_eq(urisan_parse("http://h/12", 11, &l, &u, NULL), URISAN_E_TOO_LONG);
    ck_assert_uint_eq(u.error.offset, 10);
}
END_TEST

/* urisan_check parses with a policy's limits: lowered by a `limit` line,
   restated at the defaults, raised back to them (the policy keeps whether
   they differ from the defaults; the parse takes the defaults without a
   clamping pass when they do not). */
static bool checks_too_long(const char *policy_text, const char *uri)
{
    urisan_policy *p = malloc(urisan_policy_size());
    urisan_policy_init(p);
    size_t line = 0;
    const char *msg = NULL;
    ck_assert_int_eq(urisan_policy_parse(p, policy_text, strlen(policy_text), &line, &msg),
                     URISAN_OK);
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    urisan_check(uri, strlen(uri), p, &u, &r, &d);
    free(p);
    return (r.flags & URISAN_F(TOO_LONG)) != 0;
}

START_TEST(policy_limit_lines_apply_through_check)
{
    const char *uri = "http://example.com/abcdefghijklmnopqrstuvwxyz"; /* 45 bytes */
    ck_assert(!checks_too_long("", uri));
    ck_assert(checks_too_long("limit uri 44\n", uri));
    ck_assert(!checks_too_long("limit uri 45\n", uri));
    ck_assert(!checks_too_long("limit uri 8192\n", uri));
    ck_assert(!checks_too_long("limit uri 44\nlimit uri 8192\n", uri));
    ck_assert(checks_too_long("limit uri 8192\nlimit uri 44\n", uri));
    ck_assert(checks_too_long("limit host 10\n", uri));
    ck_assert(checks_too_long("limit segments 1\nlimit uri 8192\n",
                              "http://example.com/a/b"));
    ck_assert(!checks_too_long("limit segments 1\nlimit segments 1024\n",
                               "http://example.com/a/b"));
}
END_TEST

START_TEST(too_long_wins_over_an_earlier_syntax_error)
{
    size_t n;
    char *s = repeat("h ttp://", 'u', 1025, "@h/", &n); /* scheme? no: space */
    urisan_uri u;
    /* "h ttp" is split as a scheme with a bad byte, then the userinfo
       bound is hit: the bound stops the work. */
    ck_assert_int_eq(parse_lim(s, n, NULL, &u), URISAN_E_TOO_LONG);
    free(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("limits");
    TCase *tc = tcase_create("bounds");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, defaults_are_the_spec_values);
    tcase_add_test(tc, uri_of_8192_bytes_is_parsed_and_8193_is_too_long_at_8192);
    tcase_add_test(tc, too_long_uri_is_rejected_without_reading_a_byte);
    tcase_add_test(tc, scheme_of_64_is_parsed_and_65_is_too_long);
    tcase_add_test(tc, userinfo_of_1024_is_parsed_and_1025_is_too_long);
    tcase_add_test(tc, host_of_255_is_parsed_and_256_is_too_long);
    tcase_add_test(tc, label_of_63_is_parsed_and_64_is_too_long);
    tcase_add_test(tc, raised_label_limit_still_makes_a_long_label_invalid);
    tcase_add_test(tc, path_of_1024_segments_is_parsed_and_1025_is_too_long);
    tcase_add_test(tc, segment_bound_stops_before_reading_further);
    tcase_add_test(tc, limits_above_the_hard_ceiling_are_clamped);
    tcase_add_test(tc, lowered_limits_apply);
    tcase_add_test(tc, policy_limit_lines_apply_through_check);
    tcase_add_test(tc, too_long_wins_over_an_earlier_syntax_error);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
