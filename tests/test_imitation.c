/*
 * test_imitation.c - src/host/imitation.c on its own: the key of a brand
 * label's UTS #39 skeleton and the judgement homograph / lookalike /
 * nothing against a list of protected names. The skeletons are written
 * here as ICU gives them (uspoof_getSkeleton: "m" is "rn", Cyrillic
 * palochka is "i", "0" is "O").
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "imitation.h"

static imit_list list;

/* name, its brand label's length, the skeleton of that label */
static void protect(const char *name, size_t brand_len, const char *skel)
{
    ck_assert(imit_list_add(&list, name, strlen(name), 0, brand_len, skel, strlen(skel)));
}

static void setup(void)
{
    imit_list_init(&list);
    protect("apple.com", 5, "apple");
    protect("paypal.com", 6, "paypal");
    protect("microsoft.com", 9, "rnicrosoft");
    protect("wellsfargo.com", 10, "wellsfargo");
    protect("facebook.com", 8, "facebook");
}

static imit_kind judge(const char *registrable, size_t brand_len, const char *skel, bool idn,
                       const char **imitates)
{
    imit_host h = { registrable, strlen(registrable), brand_len, skel, strlen(skel), idn };
    return imit_judge(&list, &h, imitates);
}

static const struct {
    const char *registrable;  /* A-labels */
    size_t brand_len;
    const char *skel;         /* of the brand label's Unicode form */
    bool idn;
    imit_kind kind;
    const char *imitates;
} cases[] = {
    /* Cyrillic аррӏе.com: palochka is "i" to UTS #39, l to a reader */
    {"xn--80ak6aa92e.com", 14, "appie", true, IMIT_HOMOGRAPH, "apple.com"},
    /* раураӏ.com */
    {"xn--80aa0cbo65f.com", 15, "paypai", true, IMIT_HOMOGRAPH, "paypal.com"},
    /* Greek kappa, Cyrillic ka: UTS #39 maps them to kra, not k; the
       fold reads k */
    {"xn--faceboo-5nf.com", 18, "faceboo\xc4\xb8", true, IMIT_HOMOGRAPH, "facebook.com"},
    {"xn--faceboo-xyz.net", 18, "faceboo\xd0\xba", true, IMIT_HOMOGRAPH, "facebook.com"},
    /* аpple under another suffix imitates all the same */
    {"xn--pple-43d.net", 12, "apple", true, IMIT_HOMOGRAPH, "apple.com"},
    /* all-ASCII look-alikes */
    {"rnicrosoft.com", 10, "rnicrosoft", false, IMIT_LOOKALIKE, "microsoft.com"},
    {"paypa1.com", 6, "paypal", false, IMIT_LOOKALIKE, "paypal.com"},
    {"micros0ft.com", 9, "rnicrosOft", false, IMIT_LOOKALIKE, "microsoft.com"},
    {"wellsfarg0.co.uk", 10, "wellsfargO", false, IMIT_LOOKALIKE, "wellsfargo.com"},
    {"vvellsfargo.com", 11, "vvellsfargo", false, IMIT_LOOKALIKE, "wellsfargo.com"},
    {"app1e.com", 5, "appie", false, IMIT_LOOKALIKE, "apple.com"},
    /* the names themselves, names under them, the same letters elsewhere */
    {"apple.com", 5, "apple", false, IMIT_NONE, NULL},
    {"APPLE.COM", 5, "apple", false, IMIT_NONE, NULL},
    {"apple.net", 5, "apple", false, IMIT_NONE, NULL},
    {"microsoft.com", 9, "rnicrosoft", false, IMIT_NONE, NULL},
    /* other names, and ordinary IDNs */
    {"example.com", 7, "exarnple", false, IMIT_NONE, NULL},
    {"applesauce.com", 10, "applesauce", false, IMIT_NONE, NULL},
    {"xn--bcher-kva.de", 12, "bucher", true, IMIT_NONE, NULL},
    {"paypal-login.com", 12, "paypal-login", false, IMIT_NONE, NULL},
    /* no registrable domain: nothing to compare */
    {"", 0, "apple", false, IMIT_NONE, NULL},
};

START_TEST(judges_each_host_as_the_table_says)
{
    const char *im = "x";
    imit_kind k = judge(cases[_i].registrable, cases[_i].brand_len, cases[_i].skel,
                        cases[_i].idn, &im);
    ck_assert_msg(k == cases[_i].kind, "%s: %d", cases[_i].registrable, (int)k);
    if (cases[_i].imitates == NULL)
        ck_assert_ptr_null(im);
    else
        ck_assert_str_eq(im, cases[_i].imitates);
}
END_TEST

START_TEST(key_folds_the_ascii_letters_a_reader_confuses)
{
    char k[16];
    size_t n;
    ck_assert(imit_key("PaYpa1|!0vvO", 12, k, sizeof k, &n));
    ck_assert_uint_eq(n, 11);
    ck_assert(memcmp(k, "paypalllowo", 11) == 0);
    ck_assert(!imit_key("abcdef", 6, k, 5, &n)); /* does not fit: false */
}
END_TEST

/* The first-pair filter lets every listed key's start through (the
   table's look-alikes above pass it: judged) and stops others. */
START_TEST(pair_filter_passes_listed_starts_and_stops_others)
{
    ck_assert(imit_list_may(&list, "ap", 2));     /* apple */
    ck_assert(imit_list_may(&list, "rn", 2));     /* rnicrosoft */
    ck_assert(imit_list_may(&list, "pa", 2));     /* paypal */
    ck_assert(!imit_list_may(&list, "zq", 2));
    ck_assert(!imit_list_may(&list, "xy", 2));
    imit_list empty;
    imit_list_init(&empty);
    ck_assert(!imit_list_may(&empty, "ap", 2) && !imit_list_may(&empty, "a", 1));
}
END_TEST

START_TEST(a_full_list_refuses_and_a_second_key_is_not_listed_twice)
{
    imit_list_init(&list);
    ck_assert(imit_list_add(&list, "paypal.com", 10, 0, 6, "paypal", 6));
    ck_assert(imit_list_add(&list, "paypal.de", 9, 0, 6, "paypal", 6));
    ck_assert_uint_eq(list.n, 1);
    char name[32], skel[32];
    for (size_t i = 1; i < IMIT_MAX; i++) {
        int n = snprintf(name, sizeof name, "b%zu.com", i);
        snprintf(skel, sizeof skel, "b%zu", i);
        ck_assert(imit_list_add(&list, name, (size_t)n, 0, strlen(skel), skel, strlen(skel)));
    }
    ck_assert_uint_eq(list.n, IMIT_MAX);
    ck_assert(!imit_list_add(&list, "one-more.com", 12, 0, 8, "one-rnore", 9));
    /* every name is still found */
    const char *im;
    imit_host h = { "b2OO.net", 8, 4, "b2OO", 4, false };
    ck_assert_int_eq(imit_judge(&list, &h, &im), IMIT_LOOKALIKE);
    ck_assert_str_eq(im, "b200.com");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("imitation");
    TCase *t = tcase_create("judge");
    tcase_add_checked_fixture(t, setup, NULL);
    tcase_add_loop_test(t, judges_each_host_as_the_table_says, 0,
                        (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(t, key_folds_the_ascii_letters_a_reader_confuses);
    tcase_add_test(t, a_full_list_refuses_and_a_second_key_is_not_listed_twice);
    tcase_add_test(t, pair_filter_passes_listed_starts_and_stops_others);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed == 0 ? 0 : 1;
}
