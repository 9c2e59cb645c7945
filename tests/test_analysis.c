/*
 * test_analysis.c - the analysis' prefilter against the full rules.
 *
 * urisan_analyze runs a prefilter (the parse's hand-over, else one pass:
 * plain_scan) and lets each flag family skip what the summary proves
 * absent. urisan_analyze_sum(..., SCAN_ALL, ...) runs every rule of every
 * family in full. The two must give the same report - flags, address
 * family and address - for every input: every file of every corpus
 * (corpus/<harness>/), each of its lines, every line of the shared URL
 * data sets and mutations of them, with the default policy and with a
 * policy that has scheme entries of its own (the overlay).
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "testdata.h"

static size_t compared, prefiltered_plain;
static urisan_policy *overlay_pol;

static void agree_under(const char *in, size_t len, const urisan_uri *u, const urisan_policy *pol)
{
    urisan_report fast, full;
    scheme_overlay ov = policy_overlay(pol);
    urisan_status sf = urisan_analyze(in, len, u, pol, &fast);
    urisan_status sa = urisan_analyze_sum(in, len, u, &ov, SCAN_ALL, &full);
    ck_assert_int_eq(sf, sa);
    ck_assert_msg(fast.flags == full.flags && fast.ip_family == full.ip_family &&
                      memcmp(fast.ip, full.ip, sizeof fast.ip) == 0,
                  "input %.*s (%zu bytes): prefilter %llx, full %llx", (int)(len > 200 ? 200 : len),
                  in, len, (unsigned long long)fast.flags, (unsigned long long)full.flags);
    compared++;
}

static void agree(const char *in, size_t len)
{
    urisan_uri u;
    urisan_parse(in, len, NULL, &u, NULL);
    if (urisan_span_present(u.scheme) && plain_scan(in, len) == 0)
        prefiltered_plain++;
    agree_under(in, len, &u, NULL);
    agree_under(in, len, &u, overlay_pol);
    /* the same parse without its hand-over: plain_scan is the prefilter */
    u.scan_in_ = NULL;
    agree_under(in, len, &u, NULL);
}

static unsigned long long rnd_state = 42;
static unsigned rnd(void)
{
    rnd_state = rnd_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(rnd_state >> 33);
}

/* Bytes every family looks at. */
static const char mut_bytes[] = "%/.\\-@:?#[]2eEfFcC5x \t\n\x80\x7f~0";

static void mutate_and_agree(const char *src, size_t len, int times)
{
    char buf[512];
    if (len > 400)
        len = 400;
    for (int t = 0; t < times; t++) {
        memcpy(buf, src, len);
        size_t n = len;
        for (int e = 1 + (int)(rnd() % 3); e > 0; e--) {
            char c = mut_bytes[rnd() % (sizeof mut_bytes - 1)];
            size_t p = rnd() % (n + 1);
            if (n < sizeof buf - 1) {
                memmove(buf + p + 1, buf + p, n - p);
                buf[p] = c;
                n++;
            }
        }
        agree(buf, n);
    }
}

/* The whole of buf, then each of its lines. */
static void agree_text(const char *buf, size_t n)
{
    agree(buf, n);
    for (size_t s = 0; s < n;) {
        const char *nl = memchr(buf + s, '\n', n - s);
        size_t e = nl ? (size_t)(nl - buf) : n;
        agree(buf + s, e - s);
        s = e + 1;
    }
}

START_TEST(prefilter_equals_full_rules_on_hand_picked_inputs)
{
    static const char *const hand[] = {
        "http://a/b", "HTTP://x--y.example/./a/../b", "http://xn--bcher-kva.example/",
        "file://localhost/etc", "file://C:/x", "javascript:alert(1)", " JavaScript:x",
        "java\tscript:x", "http://a?@b/", "http://a#@b", "http:\\\\a", "//a/b", "///a",
        "mailto:/a@b", "x-y://h:80/", "http://u:p@h:8080/%2e%2E/", "http://[::1]/",
        "http://0x7f.1/", "http://%31%32%37.0.0.1/", "http://h/%2f%5C", "dict:///x",
        "http://a@b@c/", "ws://h", "ftp://h:21/", "https://h:0443/", "",
        "ldap://h/", "data:,x", "http://h/a/./b/../../..", "./a", "../..", "a/.%2e/b",
    };
    for (size_t k = 0; k < sizeof hand / sizeof hand[0]; k++) {
        agree(hand[k], strlen(hand[k]));
        mutate_and_agree(hand[k], strlen(hand[k]), 400);
    }
}
END_TEST

START_TEST(prefilter_equals_full_rules_on_every_corpus_file)
{
    const char *root = getenv("URISAN_SRCDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/corpus", root ? root : ".");
    DIR *top = opendir(path);
    if (top == NULL) {
        printf("SKIP: %s not found\n", path);
        return;
    }
    size_t files = 0;
    char *buf = malloc(1 << 20);
    ck_assert_ptr_nonnull(buf);
    struct dirent *h;
    while ((h = readdir(top)) != NULL) {
        if (h->d_name[0] == '.')
            continue;
        char dir[4096 + 512];
        snprintf(dir, sizeof dir, "%s/%s", path, h->d_name);
        DIR *d = opendir(dir);
        if (d == NULL)
            continue;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char file[4096 + 1024];
            snprintf(file, sizeof file, "%s/%s", dir, e->d_name);
            FILE *fp = fopen(file, "rb");
            if (fp == NULL)
                continue;
            size_t n = fread(buf, 1, 1 << 20, fp);
            fclose(fp);
            agree_text(buf, n);
            files++;
        }
        closedir(d);
    }
    closedir(top);
    free(buf);
    printf("corpus: %zu files\n", files);
    ck_assert_uint_gt(files, 100);
}
END_TEST

static void agree_url_line(const char *line, size_t n, size_t k)
{
    agree(line, n);
    if (k % 10 == 0)
        mutate_and_agree(line, n, 3);
}

START_TEST(prefilter_equals_full_rules_on_the_url_data_sets)
{
    size_t files = testdata_each_url(agree_url_line);
    printf("compared %zu reports (%zu inputs with a scheme the prefilter proved plain)\n",
           compared, prefiltered_plain);
    /* the prefilter proved a good share plain, so the agreement says
       something about the skipping */
    if (files > 0)
        ck_assert_uint_gt(prefiltered_plain, compared / 20);
}
END_TEST

/* The scheme table: every row is found by its name in any case (the
   inline http/https shortcut needs rows 0 and 1 to be those), names are
   unique and lower-case, and the public default-port lookup reads it. */
START_TEST(scheme_table_rows_are_found_by_name)
{
    ck_assert_str_eq(urisan_scheme_table[0].name, "http");
    ck_assert_str_eq(urisan_scheme_table[1].name, "https");
    for (size_t i = 0; i < urisan_scheme_rows; i++) {
        const scheme_row *r = &urisan_scheme_table[i];
        char up[SCHEME_MAX_LEN + 1];
        ck_assert_uint_eq(strlen(r->name), r->len);
        ck_assert_uint_le(r->len, SCHEME_MAX_LEN);
        for (size_t k = 0; k < r->len; k++) {
            ck_assert(r->name[k] >= 'a' && r->name[k] <= 'z');
            up[k] = (char)(k % 2 ? r->name[k] - 32 : r->name[k]);
        }
        ck_assert_ptr_eq(urisan_scheme_find(r->name, r->len), r);
        ck_assert_ptr_eq(urisan_scheme_find(up, r->len), r);
        ck_assert_int_eq(urisan_default_port(up, r->len), r->port);
        for (size_t j = 0; j < i; j++)
            ck_assert_str_ne(urisan_scheme_table[j].name, r->name);
    }
    ck_assert_ptr_null(urisan_scheme_find("httpx", 5));
    ck_assert_ptr_null(urisan_scheme_find("htt", 3));
    ck_assert_ptr_null(urisan_scheme_find("h", 1));
    ck_assert_ptr_null(urisan_scheme_find("hTTp+s", 6));
    ck_assert_int_eq(urisan_scheme_kind("FILE", 4), SCHEME_FILE);
    ck_assert_int_eq(urisan_scheme_kind("wSs", 3), SCHEME_SPECIAL);
    ck_assert_int_eq(urisan_scheme_kind("x-y", 3), SCHEME_OTHER);
}
END_TEST

static void setup(void)
{
    static const char text[] = "dangerous-scheme http x-y ws\n"
                               "default-port http 8080\n"
                               "default-port x-y 80\n";
    overlay_pol = malloc(urisan_policy_size());
    ck_assert_ptr_nonnull(overlay_pol);
    urisan_policy_init(overlay_pol);
    ck_assert_int_eq(urisan_policy_parse(overlay_pol, text, sizeof text - 1, NULL, NULL),
                     URISAN_OK);
}

static void teardown(void)
{
    free(overlay_pol);
}

int main(void)
{
    Suite *s = suite_create("analysis");
    TCase *t = tcase_create("prefilter");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 600);
    tcase_add_test(t, scheme_table_rows_are_found_by_name);
    tcase_add_test(t, prefilter_equals_full_rules_on_hand_picked_inputs);
    tcase_add_test(t, prefilter_equals_full_rules_on_every_corpus_file);
    tcase_add_test(t, prefilter_equals_full_rules_on_the_url_data_sets);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
