/*
 * test_writers.c - every function that writes text keeps one convention
 * (include/urisan.h): *needed is the text's length without a NUL; the
 * text is NUL-terminated when cap leaves room for the NUL; exactly *needed
 * bytes fit without one; one byte less is URISAN_E_NOSPACE and nothing is
 * written. One test per writer.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "urisan.h"

/* A writer under test: fills buf[0..cap), sets *needed. */
typedef urisan_status (*writer_fn)(const void *arg, char *buf, size_t cap, size_t *needed);

/* The convention, held to a writer whose text is want[0..n). */
static void holds(writer_fn w, const void *arg, const char *want)
{
    size_t n = strlen(want), need = 99;
    char buf[4096];
    ck_assert_uint_lt(n + 2, sizeof buf);
    /* room for the NUL: a C string */
    memset(buf, 'Z', sizeof buf);
    ck_assert_int_eq(w(arg, buf, n + 1, &need), URISAN_OK);
    ck_assert_uint_eq(need, n);
    ck_assert_str_eq(buf, want);
    ck_assert_int_eq(buf[n + 1], 'Z');
    /* a larger buffer: the same */
    memset(buf, 'Z', sizeof buf);
    ck_assert_int_eq(w(arg, buf, sizeof buf, &need), URISAN_OK);
    ck_assert_uint_eq(need, n);
    ck_assert_str_eq(buf, want);
    /* exactly the text: fits, no NUL */
    memset(buf, 'Z', sizeof buf);
    ck_assert_int_eq(w(arg, buf, n, &need), URISAN_OK);
    ck_assert_uint_eq(need, n);
    ck_assert_int_eq(memcmp(buf, want, n), 0);
    ck_assert_int_eq(buf[n], 'Z');
    /* one byte short: nothing written */
    if (n > 0) {
        memset(buf, 'Z', sizeof buf);
        ck_assert_int_eq(w(arg, buf, n - 1, &need), URISAN_E_NOSPACE);
        ck_assert_uint_eq(need, n);
        for (size_t i = 0; i < n + 1; i++)
            ck_assert_int_eq(buf[i], 'Z');
    }
}

static urisan_status w_decision(const void *arg, char *buf, size_t cap, size_t *needed)
{
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    const char *in = arg;
    urisan_check(in, strlen(in), NULL, &u, &r, &d);
    return urisan_decision_format(&d, buf, cap, needed);
}

START_TEST(decision_format_nul_terminates_when_there_is_room)
{
    /* the README's program printed "denied:host_deniedal;..." before */
    holds(w_decision, "http://user:pw@127.0.0.1/", "denied:password;flagged:userinfo,ip_literal,"
                                                   "ip_loopback");
}
END_TEST

typedef struct {
    urisan_flags f;
    unsigned rules;
} reason_set;

static urisan_status w_reasons(const void *arg, char *buf, size_t cap, size_t *needed)
{
    const reason_set *r = arg;
    return urisan_reasons_format(r->f, r->rules, buf, cap, needed);
}

START_TEST(reasons_format_nul_terminates_when_there_is_room)
{
    reason_set none = { 0, 0 };
    holds(w_reasons, &none, "");
    /* flags in bit order, then rules in reason order; bits without a
       name (above the last flag, above the last rule) are left out */
    reason_set some = { URISAN_F(IP_LOOPBACK) | URISAN_F(USERINFO) | (urisan_flags)1 << 63,
                        1u << URISAN_REASON_NO_AUTHORITY | 1u << URISAN_REASON_HOST_DENIED |
                            1u << 31 };
    holds(w_reasons, &some, "userinfo,ip_loopback,host_denied,no_authority");
    reason_set rules = { 0, 1u << URISAN_REASON_NOT_ABSOLUTE };
    holds(w_reasons, &rules, "not_absolute");
    /* the lists inside urisan_decision_format's text */
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    static const char in[] = "http://user:pw@127.0.0.1/";
    urisan_check(in, strlen(in), NULL, &u, &r, &d);
    char deny[256], flag[256], text[600], both[600];
    size_t n;
    ck_assert_int_eq(urisan_reasons_format(d.deny_flags, d.rules, deny, sizeof deny, &n), URISAN_OK);
    ck_assert_int_eq(urisan_reasons_format(d.flag_flags, 0, flag, sizeof flag, &n), URISAN_OK);
    ck_assert_int_eq(urisan_decision_format(&d, text, sizeof text, &n), URISAN_OK);
    snprintf(both, sizeof both, "denied:%s;flagged:%s", deny, flag);
    ck_assert_str_eq(text, both);
    ck_assert_int_eq(urisan_reasons_format(0, 0, NULL, 0, NULL), URISAN_E_BAD_ARGUMENT);
}
END_TEST

static urisan_status w_ip(const void *arg, char *buf, size_t cap, size_t *needed)
{
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    const char *in = arg;
    urisan_check(in, strlen(in), NULL, &u, &r, &d);
    return urisan_format_ip(&r, buf, cap, needed);
}

START_TEST(format_ip_nul_terminates_when_there_is_room)
{
    holds(w_ip, "http://0x7f.1/", "127.0.0.1");
    holds(w_ip, "http://[::ffff:1.2.3.4]/", "::ffff:1.2.3.4");
}
END_TEST

static urisan_status w_policy(const void *arg, char *buf, size_t cap, size_t *needed)
{
    urisan_policy *p = malloc(urisan_policy_size());
    ck_assert_ptr_nonnull(p);
    urisan_policy_init(p);
    const char *text = arg;
    ck_assert_int_eq(urisan_policy_parse(p, text, strlen(text), NULL, NULL), URISAN_OK);
    urisan_status st = urisan_policy_format(p, buf, cap, needed);
    free(p);
    return st;
}

START_TEST(policy_format_nul_terminates_when_there_is_room)
{
    char want[4096];
    size_t n = 0;
    ck_assert_int_eq(w_policy("deny-host evil.example\n", want, sizeof want, &n), URISAN_OK);
    ck_assert_uint_lt(n, sizeof want);
    ck_assert_uint_eq(strlen(want), n); /* NUL-terminated */
    ck_assert_ptr_nonnull(strstr(want, "deny-host evil.example\n"));
    holds(w_policy, "deny-host evil.example\n", want);
}
END_TEST

static urisan_status w_resolve(const void *arg, char *buf, size_t cap, size_t *needed)
{
    static const char base[] = "http://a/b/c/d;p?q";
    const char *ref = arg;
    return urisan_resolve(base, strlen(base), ref, strlen(ref), NULL, buf, cap, needed, NULL,
                          NULL);
}

START_TEST(resolve_nul_terminates_when_there_is_room)
{
    holds(w_resolve, "../g?y#s", "http://a/b/g?y#s");
}
END_TEST

static urisan_status w_normalize(const void *arg, char *buf, size_t cap, size_t *needed)
{
    const char *in = arg;
    return urisan_normalize(in, strlen(in), NULL, buf, cap, needed, NULL);
}

START_TEST(normalize_nul_terminates_when_there_is_room)
{
    holds(w_normalize, "HTTP://Ex.COM:80/%7e/a/../b", "http://ex.com/~/b");
}
END_TEST

static urisan_status w_check_base(const void *arg, char *buf, size_t cap, size_t *needed)
{
    static const char base[] = "http://a/b/c/";
    const char *ref = arg;
    return urisan_check_base(base, strlen(base), ref, strlen(ref), NULL, buf, cap, needed, NULL,
                             NULL, NULL, NULL);
}

START_TEST(check_base_nul_terminates_when_there_is_room)
{
    holds(w_check_base, "../x/./y", "http://a/b/x/y");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("writers");
    TCase *t = tcase_create("nul");
    tcase_add_test(t, decision_format_nul_terminates_when_there_is_room);
    tcase_add_test(t, format_ip_nul_terminates_when_there_is_room);
    tcase_add_test(t, reasons_format_nul_terminates_when_there_is_room);
    tcase_add_test(t, policy_format_nul_terminates_when_there_is_room);
    tcase_add_test(t, resolve_nul_terminates_when_there_is_room);
    tcase_add_test(t, normalize_nul_terminates_when_there_is_room);
    tcase_add_test(t, check_base_nul_terminates_when_there_is_room);
    suite_add_tcase(s, t);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
