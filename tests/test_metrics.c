/*
 * test_metrics.c - the gateway doors' counters and their Prometheus text
 * (src/common/metrics.c): what each count adds, the histogram, the
 * (buf, cap) writer, and that every reason `urisan serve` adds itself
 * has a series of its own (none falls into "other").
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve_uri.h"
#include "urisan_metrics.h"

static char *text_of(const urisan_metrics *m)
{
    static char buf[URISAN_METRICS_TEXT_MAX];
    size_t n = 0;
    ck_assert_int_eq(urisan_metrics_format(m, buf, sizeof buf - 1, &n), URISAN_OK);
    buf[n] = '\0';
    return buf;
}

START_TEST(a_deny_counts_each_reason_and_its_verdict)
{
    static urisan_metrics m;
    memset(&m, 0, sizeof m);
    urisan_metrics_count(&m, URISAN_DENY,
                         URISAN_F(ESCAPED_CRLF) | URISAN_F(ESCAPED_CTL),
                         1u << URISAN_REASON_HOST_DENIED, NULL, 3000);
    urisan_metrics_count(&m, URISAN_ALLOW, 0, 0, NULL, 20000);
    urisan_metrics_count(&m, URISAN_FLAGGED, URISAN_F(ESCAPED_CRLF), 0, NULL, 1);
    const char *t = text_of(&m);
    ck_assert_ptr_nonnull(strstr(t, "urisan_requests_total{verdict=\"allow\"} 1\n"));
    ck_assert_ptr_nonnull(strstr(t, "urisan_requests_total{verdict=\"flag\"} 1\n"));
    ck_assert_ptr_nonnull(strstr(t, "urisan_requests_total{verdict=\"deny\"} 1\n"));
    /* a flag's reasons are not denials */
    ck_assert_ptr_nonnull(strstr(t, "urisan_denials_total{reason=\"escaped_crlf\"} 1\n"));
    ck_assert_ptr_nonnull(strstr(t, "urisan_denials_total{reason=\"escaped_ctl\"} 1\n"));
    ck_assert_ptr_nonnull(strstr(t, "urisan_denials_total{reason=\"host_denied\"} 1\n"));
    ck_assert_ptr_nonnull(strstr(t, "urisan_malformed_requests_total 0\n"));
    ck_assert_ptr_nonnull(strstr(t, "urisan_decision_duration_seconds_bucket{le=\"0.000005\"} 2\n"));
    ck_assert_ptr_nonnull(strstr(t, "urisan_decision_duration_seconds_bucket{le=\"0.000025\"} 3\n"));
    ck_assert_ptr_nonnull(strstr(t, "urisan_decision_duration_seconds_bucket{le=\"+Inf\"} 3\n"));
    ck_assert_ptr_nonnull(strstr(t, "urisan_decision_duration_seconds_sum 0.000023001\n"));
    ck_assert_ptr_nonnull(strstr(t, "urisan_decision_duration_seconds_count 3\n"));
}
END_TEST

/* The reasons a request has no URI: the library's request rule's
   (urisan.h URISAN_REQUEST_REASON_LIST). */
#define NO_URI_FIRST (URISAN_REQUEST_OK + 1)
#define NO_URI_END URISAN_REQUEST_REASON_COUNT_
#define NO_URI_NAME(r) urisan_request_reason_name((urisan_request_reason)(r))

START_TEST(every_reason_serve_adds_has_its_own_series)
{
    for (int st = NO_URI_FIRST; st < NO_URI_END; st++) {
        static urisan_metrics m;
        memset(&m, 0, sizeof m);
        const char *name = NO_URI_NAME(st);
        urisan_metrics_count(&m, URISAN_DENY, 0, 0, name, 1);
        char want[128];
        snprintf(want, sizeof want, "urisan_denials_total{reason=\"%s\"} 1\n", name);
        const char *t = text_of(&m);
        ck_assert_msg(strstr(t, want) != NULL, "%s has no series of its own", name);
        ck_assert_ptr_nonnull(strstr(t, "urisan_malformed_requests_total 1\n"));
    }
    static urisan_metrics m;
    memset(&m, 0, sizeof m);
    urisan_metrics_count(&m, URISAN_DENY, 0, 0, "no_such_reason", 1);
    ck_assert_ptr_nonnull(strstr(text_of(&m), "urisan_denials_total{reason=\"other\"} 1\n"));
}
END_TEST

START_TEST(the_writer_sets_needed_and_refuses_a_short_buffer)
{
    static urisan_metrics m;
    memset(&m, 0, sizeof m);
    urisan_metrics_reload(&m, 1);
    urisan_metrics_reload(&m, 0);
    urisan_metrics_reload(&m, 0);
    size_t need = 0, again = 0;
    ck_assert_int_eq(urisan_metrics_format(&m, NULL, 0, &need), URISAN_E_NOSPACE);
    ck_assert_uint_gt(need, 0);
    char *buf = malloc(need);
    ck_assert_int_eq(urisan_metrics_format(&m, buf, need - 1, &again), URISAN_E_NOSPACE);
    ck_assert_uint_eq(again, need);
    ck_assert_int_eq(urisan_metrics_format(&m, buf, need, &again), URISAN_OK);
    ck_assert_uint_eq(again, need);
    ck_assert_int_eq(buf[need - 1], '\n');
    free(buf);
    const char *t = text_of(&m);
    ck_assert_ptr_nonnull(strstr(t, "urisan_policy_reloads_total 1\n"));
    ck_assert_ptr_nonnull(strstr(t, "urisan_policy_reload_failures_total 2\n"));
}
END_TEST

START_TEST(the_largest_text_fits_the_documented_bound)
{
    static urisan_metrics m;
    memset(&m, 0xff, sizeof m);   /* every series present, every number 20 digits */
    size_t need = 0;
    urisan_metrics_format(&m, NULL, 0, &need);
    ck_assert_uint_le(need, URISAN_METRICS_TEXT_MAX);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("metrics");
    TCase *tc = tcase_create("metrics");
    tcase_add_test(tc, a_deny_counts_each_reason_and_its_verdict);
    tcase_add_test(tc, every_reason_serve_adds_has_its_own_series);
    tcase_add_test(tc, the_writer_sets_needed_and_refuses_a_short_buffer);
    tcase_add_test(tc, the_largest_text_fits_the_documented_bound);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
