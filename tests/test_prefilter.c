/*
 * test_prefilter.c - the analysis' prefilter (src/analyze.c) never changes
 * a report: urisan_analyze (prefilter, then the flag families for a plain
 * input) against urisan_analyze_full (the byte checks and the families for
 * every input, the test hook declared in src/scan.h), field by field, on
 *   - every file of corpus/NAME/ (the whole file, and each of its lines), and
 *   - every line of the shared URL sets (../shared/data/urls/NAME.txt; skipped
 *     with a message when the folder is absent),
 * under the default policy and under one with its own dangerous schemes
 * and default ports (the overlay the scheme family reads). Each input is
 * analysed twice by the prefilter: with the parse's summary (internal.h
 * urisan_parse_sum / urisan_analyze_sum, as urisan_check does) and by
 * urisan_analyze on its own (the prefilter makes its own pass).
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "urisan.h"
#include "../src/internal.h"
#include "../src/scan.h"
#include "quiet_check.h"
#include "testdata.h"

static urisan_policy *pols[2];
static size_t n_inputs, n_plain, n_flagged;

/* Called from main, outside any test: failures exit. */
static urisan_policy *policy_with_overlay(void)
{
    static const char text[] = "dangerous-scheme foo svn+ssh x-y.z\n"
                               "default-port foo 8080\n"
                               "default-port http 8080\n";
    urisan_policy *p = malloc(urisan_policy_size());
    if (p == NULL)
        exit(EXIT_FAILURE);
    urisan_policy_init(p);
    size_t line = 0;
    const char *msg = NULL;
    if (urisan_policy_parse(p, text, sizeof text - 1, &line, &msg) != URISAN_OK) {
        fprintf(stderr, "test_prefilter: policy line %zu: %s\n", line, msg ? msg : "");
        exit(EXIT_FAILURE);
    }
    return p;
}

/* Plain in the prefilter's sense: valid, and no "%", "\\", control, space,
   DEL or byte >= 0x80 - the inputs whose report it answers. */
static bool plain_input(const char *in, size_t len, const urisan_uri *u)
{
    if (!u->valid || len == 0)
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c == '%' || c == '\\' || c <= 0x20 || c >= 0x7F)
            return false;
    }
    return true;
}

static void same_report(const urisan_report *a, const urisan_report *b, const char *how,
                        const char *in, size_t len, const char *where)
{
    qc_assert_msg(a->flags == b->flags && a->ip_family == b->ip_family &&
                      memcmp(a->ip, b->ip, sizeof a->ip) == 0,
                  "%s: %s flags %#llx ip_family %d, full analysis %#llx %d, on [%.*s]", where,
                  how, (unsigned long long)a->flags, a->ip_family, (unsigned long long)b->flags,
                  b->ip_family, (int)(len > 200 ? 200 : len), in);
}

static void check_input(const char *in, size_t len, const char *where)
{
    char *copy = malloc(len + 1);
    qc_assert(copy != NULL);
    if (len)
        memcpy(copy, in, len);
    for (int k = 0; k < 2; k++) {
        urisan_uri u;
        urisan_report fast, again, full;
        unsigned sum;
        urisan_parse_sum(in, len, urisan_policy_limits(pols[k]), &u, NULL, &sum);
        memset(&fast, 0x5a, sizeof fast);
        memset(&again, 0xa5, sizeof again);
        memset(&full, 0x3c, sizeof full);
        qc_assert_int_eq(urisan_analyze_sum(in, len, &u, pols[k], &fast, sum), URISAN_OK);
        qc_assert_int_eq(urisan_analyze(copy, len, &u, pols[k], &again), URISAN_OK);
        qc_assert_int_eq(urisan_analyze_full(in, len, &u, pols[k], &full), URISAN_OK);
        same_report(&fast, &full, "with the parse's summary", in, len, where);
        same_report(&again, &full, "on its own", in, len, where);
        /* the public one-call form hands the same summary over */
        urisan_uri u1;
        urisan_report one;
        memset(&one, 0x77, sizeof one);
        urisan_parse_analyze(in, len, pols[k], &u1, NULL, &one);
        same_report(&one, &full, "urisan_parse_analyze", in, len, where);
        qc_assert_msg(u1.valid == u.valid && u1.host.off == u.host.off &&
                          u1.host.len == u.host.len && u1.path.len == u.path.len,
                      "%s: urisan_parse_analyze's parse differs from urisan_parse", where);
        if (k == 0) {
            n_inputs++;
            n_plain += plain_input(in, len, &u);
            n_flagged += full.flags != 0;
        }
    }
    free(copy);
}

/* Each line of a text (without its "\n"). */
static void check_lines(const char *buf, size_t n, const char *where)
{
    size_t s = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || buf[i] == '\n') {
            if (i > s)
                check_input(buf + s, i - s, where);
            s = i + 1;
        }
    }
}

/* A corpus file: the whole text, then each line of it when it has more
   than one. */
static void check_text(const char *buf, size_t n, const char *where)
{
    check_input(buf, n, where);
    if (memchr(buf, '\n', n) != NULL)
        check_lines(buf, n, where);
}

static char *slurp(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return NULL;
    size_t cap = 4096, len = 0;
    char *b = malloc(cap);
    qc_assert(b != NULL);
    for (size_t got; (got = fread(b + len, 1, cap - len, fp)) > 0;) {
        len += got;
        if (len == cap) {
            b = realloc(b, cap *= 2);
            qc_assert(b != NULL);
        }
    }
    fclose(fp);
    *n = len;
    return b;
}

/* Every regular file directly in dir; returns how many. */
static size_t check_dir(const char *dir, void (*each)(const char *, size_t, const char *))
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    size_t files = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t n;
        char *b = slurp(path, &n);
        if (b == NULL)
            continue; /* a folder */
        each(b, n, path);
        free(b);
        files++;
    }
    closedir(d);
    return files;
}

START_TEST(prefilter_corpus)
{
    const char *root = getenv("URISAN_SRCDIR");
    char corpus[4096];
    snprintf(corpus, sizeof corpus, "%s/corpus", root && *root ? root : ".");
    DIR *d = opendir(corpus);
    qc_assert_msg(d != NULL, "no corpus folder at %s", corpus);
    size_t files = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char sub[8192];
        snprintf(sub, sizeof sub, "%s/%s", corpus, e->d_name);
        files += check_dir(sub, check_text);
    }
    closedir(d);
    printf("prefilter_corpus: %zu files, %zu inputs (%zu plain, %zu flagged): same reports\n",
           files, n_inputs, n_plain, n_flagged);
    ck_assert_uint_gt(files, 1000);
    ck_assert_uint_gt(n_plain, 100);
    ck_assert_uint_gt(n_flagged, 100);
}
END_TEST

START_TEST(prefilter_url_sets)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/urls", testdata_dir());
    size_t before = n_inputs, plain = n_plain;
    size_t files = check_dir(dir, check_lines);
    qc_assert_msg(files > 0, "%s: absent or empty in the shared data folder", dir);
    printf("prefilter_url_sets: %zu files, %zu lines (%zu plain): same reports\n", files,
           n_inputs - before, n_plain - plain);
    ck_assert_uint_gt(n_plain - plain, 1000);
}
END_TEST

/* One input each way: a name that is plain but for its "xn--" label, and
   one whose escape sends it to the full analysis. */
START_TEST(prefilter_idn_both_ways)
{
    static const char *const ins[] = {"http://xn--e1afmkfd.example/", "http://%78n--e1a.example/"};
    for (size_t k = 0; k < 2; k++) {
        urisan_uri u;
        urisan_report a, b;
        size_t n = strlen(ins[k]);
        urisan_parse(ins[k], n, NULL, &u, NULL);
        qc_assert_int_eq(urisan_analyze(ins[k], n, &u, NULL, &a), URISAN_OK);
        qc_assert_int_eq(urisan_analyze_full(ins[k], n, &u, NULL, &b), URISAN_OK);
        qc_assert_msg(a.flags & URISAN_F(IDN), "%s: no idn", ins[k]);
        same_report(&a, &b, "urisan_analyze", ins[k], n, "prefilter_idn_both_ways");
    }
}
END_TEST

int main(void)
{
    if (testdata_skip())
        return 77;
    pols[0] = NULL;
    pols[1] = policy_with_overlay();
    Suite *s = suite_create("prefilter");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, prefilter_idn_both_ways);
    tcase_add_test(tc, prefilter_corpus);
    suite_add_tcase(s, tc);
    tc = testdata_tcase(s, "core_shared_data");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, prefilter_url_sets);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    free(pols[1]);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
