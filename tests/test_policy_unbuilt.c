/*
 * test_policy_unbuilt.c - `urisan policy check`'s warning "no door of
 * this build sets 'F'" (src/cli/policy_unbuilt.c), decided for builds
 * without the host layer, without mail, without both, and a full build:
 * each rule of the text on a flag only a missing layer sets, with its
 * line; a profile's rules and other flags never.
 */
#include "policy_unbuilt.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char out[1024];
    size_t len;
} said;

static void note(void *ctx, size_t line, const char *flag, const char *layer)
{
    said *s = ctx;
    int n = snprintf(s->out + s->len, sizeof s->out - s->len, "%zu %s (%s)\n", line, flag, layer);
    ck_assert_int_gt(n, 0);
    s->len += (size_t)n;
}

static urisan_policy *policy_of(const char *text)
{
    urisan_policy *p = malloc(urisan_policy_size());
    ck_assert_ptr_nonnull(p);
    urisan_policy_init(p);
    urisan_policy_error e;
    ck_assert_int_eq(urisan_policy_parse_ex(p, text, strlen(text), &e), URISAN_OK);
    return p;
}

#define HOST "host judgement (ICU, libidn2, libpsl)"
#define MAIL "mail (liburisan-mail)"

static const char *text = "profile mail\n"
                          "deny homograph\n"
                          "deny userinfo\n"
                          "flag mail_limit\n"
                          "allow invisible_char\n"
                          "deny idn\n";

START_TEST(a_build_without_either_layer_warns_of_each_rule)
{
    urisan_policy *p = policy_of(text);
    said s = {"", 0};
    ck_assert_uint_eq(cli_unbuilt_rules(p, CLI_LAYER_HOST | CLI_LAYER_MAIL, note, &s), 3);
    /* flag order: invisible_char, homograph ... mail_limit; the profile's
       own link_text_mismatch rule is not the text's */
    const char *lines[] = {"2 homograph (" HOST ")\n", "5 invisible_char (" HOST ")\n",
                           "4 mail_limit (" MAIL ")\n"};
    for (size_t i = 0; i < 3; i++)
        ck_assert_msg(strstr(s.out, lines[i]) != NULL, "missing %s in:\n%s", lines[i], s.out);
    free(p);
}
END_TEST

START_TEST(a_build_without_the_host_layer_warns_of_host_flags_only)
{
    urisan_policy *p = policy_of(text);
    said s = {"", 0};
    ck_assert_uint_eq(cli_unbuilt_rules(p, CLI_LAYER_HOST, note, &s), 2);
    ck_assert_ptr_nonnull(strstr(s.out, "2 homograph (" HOST ")\n"));
    ck_assert_ptr_nonnull(strstr(s.out, "5 invisible_char (" HOST ")\n"));
    ck_assert_ptr_null(strstr(s.out, "mail_limit"));
    free(p);
}
END_TEST

START_TEST(a_build_without_mail_warns_of_mail_flags_only)
{
    urisan_policy *p = policy_of(text);
    said s = {"", 0};
    ck_assert_uint_eq(cli_unbuilt_rules(p, CLI_LAYER_MAIL, note, &s), 1);
    ck_assert_str_eq(s.out, "4 mail_limit (" MAIL ")\n");
    /* the same rule named last by another line: that line */
    urisan_policy *q = policy_of("deny link_text_mismatch\n\nflag link_text_mismatch\n");
    said t = {"", 0};
    ck_assert_uint_eq(cli_unbuilt_rules(q, CLI_LAYER_MAIL, note, &t), 1);
    ck_assert_str_eq(t.out, "3 link_text_mismatch (" MAIL ")\n");
    free(q);
    free(p);
}
END_TEST

START_TEST(a_full_build_and_a_profile_alone_warn_of_nothing)
{
    urisan_policy *p = policy_of(text);
    said s = {"", 0};
    ck_assert_uint_eq(cli_unbuilt_rules(p, 0, note, &s), 0);
    ck_assert_str_eq(s.out, "");
    free(p);
    /* the mail profile denies link_text_mismatch and mail_limit itself */
    urisan_policy *m = policy_of("profile mail\n");
    ck_assert_uint_eq(cli_unbuilt_rules(m, CLI_LAYER_HOST | CLI_LAYER_MAIL, note, &s), 0);
    free(m);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("policy_unbuilt");
    TCase *t = tcase_create("unbuilt");
    tcase_add_test(t, a_build_without_either_layer_warns_of_each_rule);
    tcase_add_test(t, a_build_without_the_host_layer_warns_of_host_flags_only);
    tcase_add_test(t, a_build_without_mail_warns_of_mail_flags_only);
    tcase_add_test(t, a_full_build_and_a_profile_alone_warn_of_nothing);
    suite_add_tcase(su, t);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
