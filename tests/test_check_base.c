/*
 * test_check_base.c - urisan_check_base (src/check_base.c): a reference
 * judged by where it leads once resolved against a base, the judgement
 * `urisan check --base` prints.
 */
#include "policy_util.h"

#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    urisan_status st;
    char out[512];
    size_t needed;
    urisan_uri uri;
    urisan_report rep;
    urisan_decision dec;
    urisan_error err;
} judged;

static judged judge(const urisan_policy *pol, const char *base, const char *ref)
{
    judged j;
    memset(&j, 0, sizeof j);
    j.st = urisan_check_base(base, strlen(base), ref, strlen(ref), pol, j.out, sizeof j.out - 1,
                             &j.needed, &j.uri, &j.rep, &j.dec, &j.err);
    if (j.st == URISAN_OK)
        j.out[j.needed] = '\0';
    return j;
}

static bool has_flag(const judged *j, urisan_flag f)
{
    return (j->rep.flags >> f) & 1u;
}

START_TEST(a_relative_reference_is_judged_by_the_resolved_uri)
{
    judged j = judge(NULL, "http://example.com/a/b", "c?x=1");
    ck_assert_int_eq(j.st, URISAN_OK);
    ck_assert_str_eq(j.out, "http://example.com/a/c?x=1");
    ck_assert_int_eq(j.dec.verdict, URISAN_ALLOW);
    /* uri is the reference as written */
    ck_assert_int_eq(j.uri.valid, 1);
    ck_assert_uint_eq(j.uri.path.len, 1);
}
END_TEST

START_TEST(the_host_rule_judges_where_the_reference_leads)
{
    urisan_policy *p = policy_of("deny-host evil.example\n");
    /* on its own "x" has no host and is allowed */
    ck_assert_int_eq(check(p, "x").verdict, URISAN_ALLOW);
    judged j = judge(p, "http://evil.example/", "x");
    ck_assert_int_eq(j.st, URISAN_OK);
    ck_assert_int_eq(j.dec.verdict, URISAN_DENY);
    ck_assert_uint_eq(j.dec.rules, 1u << URISAN_REASON_HOST_DENIED);
    free(p);
}
END_TEST

START_TEST(host_ip_is_the_resolved_uris_address)
{
    judged j = judge(NULL, "http://0x7f.1/", "/admin");
    ck_assert_int_eq(j.st, URISAN_OK);
    ck_assert_int_eq(j.rep.ip_family, 4);
    ck_assert_int_eq(j.rep.ip[0], 127);
    ck_assert_int_eq(j.rep.ip[3], 1);
}
END_TEST

START_TEST(dots_above_the_root_are_flagged_from_the_merged_path)
{
    judged j = judge(NULL, "http://h/a/b", "../../../etc/passwd");
    ck_assert_int_eq(j.st, URISAN_OK);
    ck_assert_str_eq(j.out, "http://h/etc/passwd");
    /* the resolved URI has no dot left: the flag comes from the merge */
    ck_assert(has_flag(&j, URISAN_FLAG_DOT_ABOVE_ROOT));
    ck_assert(has_flag(&j, URISAN_FLAG_DOT_SEGMENTS));
}
END_TEST

START_TEST(the_flags_of_the_reference_as_written_stay)
{
    /* a scheme-relative reference with a password: both facts are kept */
    judged j = judge(NULL, "https://h/", "//user:pw@other.example/");
    ck_assert_int_eq(j.st, URISAN_OK);
    ck_assert_str_eq(j.out, "https://user:pw@other.example/");
    ck_assert(has_flag(&j, URISAN_FLAG_PASSWORD));
    ck_assert_int_eq(j.dec.verdict, URISAN_DENY);
}
END_TEST

START_TEST(a_dangerous_reference_is_denied_whatever_the_base)
{
    judged j = judge(NULL, "https://h/", "javascript:alert(1)");
    ck_assert_int_eq(j.st, URISAN_OK);
    ck_assert_str_eq(j.out, "javascript:alert(1)");
    ck_assert_int_eq(j.dec.verdict, URISAN_DENY);
    ck_assert(has_flag(&j, URISAN_FLAG_DANGEROUS_SCHEME));
}
END_TEST

START_TEST(a_base_that_is_not_absolute_fails_closed)
{
    judged j = judge(NULL, "/only/a/path", "x");
    ck_assert_int_eq(j.st, URISAN_E_BASE_NOT_ABSOLUTE);
    ck_assert_int_eq(j.err.code, URISAN_E_BASE_NOT_ABSOLUTE);
    ck_assert_uint_eq(j.err.input, 0);
    ck_assert(has_flag(&j, URISAN_FLAG_INVALID));
    ck_assert_int_eq(j.dec.verdict, URISAN_DENY);
}
END_TEST

START_TEST(an_invalid_reference_fails_closed_at_its_offset)
{
    judged j = judge(NULL, "http://h/", "a%zz");
    ck_assert_int_eq(j.st, URISAN_E_BAD_ESCAPE);
    ck_assert_int_eq(j.err.code, URISAN_E_BAD_ESCAPE);
    ck_assert_uint_eq(j.err.offset, 1);
    ck_assert_uint_eq(j.err.input, 1);
    ck_assert(has_flag(&j, URISAN_FLAG_INVALID));
    ck_assert_int_eq(j.dec.verdict, URISAN_DENY);
}
END_TEST

START_TEST(no_room_reports_the_size_and_denies_until_called_again)
{
    const char *base = "http://example.com/a/b", *ref = "c";
    size_t needed = 0;
    urisan_report rep;
    urisan_decision dec;
    urisan_error err;
    urisan_status st = urisan_check_base(base, strlen(base), ref, 1, NULL, NULL, 0, &needed,
                                         NULL, &rep, &dec, &err);
    ck_assert_int_eq(st, URISAN_E_NOSPACE);
    ck_assert_int_eq(err.code, URISAN_E_NOSPACE);
    ck_assert_uint_eq(needed, strlen("http://example.com/a/c"));
    ck_assert_int_eq(dec.verdict, URISAN_DENY);
    /* exactly needed bytes, flush against a PROT_NONE page */
    static const char zeros[64];
    guard_buf g;
    char *buf = (char *)(uintptr_t)guard_place(&g, zeros, needed); /* writable mapping */
    ck_assert_ptr_nonnull(buf);
    st = urisan_check_base(base, strlen(base), ref, 1, NULL, buf, needed, &needed, NULL, &rep,
                           &dec, &err);
    ck_assert_int_eq(st, URISAN_OK);
    ck_assert_int_eq(memcmp(buf, "http://example.com/a/c", needed), 0);
    ck_assert_int_eq(dec.verdict, URISAN_ALLOW);
    guard_free(&g);
}
END_TEST

START_TEST(every_output_may_be_null)
{
    char buf[64];
    ck_assert_int_eq(urisan_check_base("http://h/", 9, "x", 1, NULL, buf, sizeof buf, NULL, NULL,
                                       NULL, NULL, NULL),
                     URISAN_OK);
    ck_assert_int_eq(urisan_check_base(NULL, 3, "x", 1, NULL, buf, sizeof buf, NULL, NULL, NULL,
                                       NULL, NULL),
                     URISAN_E_BAD_ARGUMENT);
}
END_TEST

/* The union rule, over several references: the verdict is urisan_decide
   of the resolved URI with the flags of all three (reference, resolved,
   merged path). */
START_TEST(the_verdict_is_the_decision_on_the_resolved_uri_with_the_union_of_flags)
{
    static const char *const refs[] = {
        "g", "./g", "../g", "/./g", "g?y/./x", "//10.0.0.1/", "http:g", "#s", "",
        "..%2f..%2fetc", "//u:p@h/", "%2e%2e/x", "data:text/html,x",
    };
    urisan_policy *p = policy_of("deny-ip 10.0.0.0/8\nflag dot_segments\n");
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
        judged j = judge(p, "http://a/b/c/d;p?q", refs[i]);
        ck_assert_int_eq(j.st, URISAN_OK);
        urisan_uri ru;
        urisan_report rr, own;
        urisan_decision d;
        urisan_check(j.out, j.needed, p, &ru, &rr, &d);
        urisan_check(refs[i], strlen(refs[i]), p, NULL, &own, &d);
        ck_assert_msg((j.rep.flags & (rr.flags | own.flags)) == (rr.flags | own.flags),
                      "%s: a flag of the reference or the target is lost", refs[i]);
        urisan_decide(j.out, j.needed, &ru, &j.rep, p, &d);
        ck_assert_int_eq(d.verdict, j.dec.verdict);
        ck_assert_uint_eq(d.rules, j.dec.rules);
    }
    free(p);
}
END_TEST

static Suite *check_base_suite(void)
{
    Suite *s = suite_create("check_base");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, a_relative_reference_is_judged_by_the_resolved_uri);
    tcase_add_test(tc, the_host_rule_judges_where_the_reference_leads);
    tcase_add_test(tc, host_ip_is_the_resolved_uris_address);
    tcase_add_test(tc, dots_above_the_root_are_flagged_from_the_merged_path);
    tcase_add_test(tc, the_flags_of_the_reference_as_written_stay);
    tcase_add_test(tc, a_dangerous_reference_is_denied_whatever_the_base);
    tcase_add_test(tc, a_base_that_is_not_absolute_fails_closed);
    tcase_add_test(tc, an_invalid_reference_fails_closed_at_its_offset);
    tcase_add_test(tc, no_room_reports_the_size_and_denies_until_called_again);
    tcase_add_test(tc, every_output_may_be_null);
    tcase_add_test(tc, the_verdict_is_the_decision_on_the_resolved_uri_with_the_union_of_flags);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(check_base_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
