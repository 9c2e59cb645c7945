/*
 * test_scan.c - the fast paths give exactly the slow paths' answers.
 *
 * 1. Every predicate of src/simd.h equals its scalar twin: the special-byte
 *    and odd-byte masks for every byte value at every position of lengths 1-80 and
 *    127-130 (the odd mask, which shares the block logic: 1-40, 60-70, 127-130); the plain summary, the pair search (every sub-range that
 *    matters), the dot/slash candidates and the parameter stop (the
 *    pair search's sub-ranges) for every byte value at every
 *    position of lengths 0-40 and 60-70 on backgrounds made of the bytes they look
 *    for (the quick size: a sample of the bytes, scan_stride()); all of
 *    them on random buffers. Buffers are exact-size heap
 *    blocks so an overread faults under ASan/valgrind. This file is built
 *    twice (tests/meson.build): as test_scan (SSE2 compares) and, on x86,
 *    as test_scan_ssse3 with -mssse3 (the pshufb classifier; skipped on a
 *    CPU without SSSE3). With -Dsimd=disabled the twins are compared with
 *    themselves and part 2 is what counts.
 * 2. urisan_parse (fast path first), and each fast path alone
 *    (urisan_parse_fast_base, urisan_parse_fast_ssse3), equal
 *    urisan_parse_full (the full parser alone), field by field, on the
 *    shared URL data sets, on hand-picked inputs, on random mutations of
 *    them, and under tight limits that make every bound bite.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiet_check.h"
#include "scan.h"
#include "testdata.h"

/* ---- 1. masks ---- */

static void check_all_blocks(const char *buf, size_t len)
{
    for (size_t b = 0; b < len; b += 64) {
        size_t n = len - b < 64 ? len - b : 64;
        uint64_t fast = simd_special_mask(buf, len, b);
        uint64_t slow = simd_special_scalar(buf + b, n);
        if (fast != slow)
            ck_abort_msg("len %zu block %zu: %016llx != %016llx", len, b,
                         (unsigned long long)fast, (unsigned long long)slow);
        /* the odd mask shares simd_mask64's block and tail logic: every
           length up to 40, then around the block edges */
        if (len > 40 && (len < 60 || len > 70) && len < 127)
            continue;
        fast = simd_odd_mask(buf, len, b);
        slow = simd_odd_scalar(buf + b, n);
        if (fast != slow)
            ck_abort_msg("odd: len %zu block %zu: %016llx != %016llx", len, b,
                         (unsigned long long)fast, (unsigned long long)slow);
    }
}

START_TEST(simd_mask_equals_table_for_every_byte_at_every_position)
{
    for (size_t len = 1; len <= 130; len = (len == 80) ? 127 : len + 1) {
        char *buf = malloc(len);
        qc_assert(buf != NULL);
        for (size_t p = 0; p < len; p++) {
            for (unsigned v = 0; v < 256; v++) {
                memset(buf, 'a', len);
                buf[p] = (char)v;
                check_all_blocks(buf, len);
                memset(buf, '%', len); /* a special background */
                buf[p] = (char)v;
                check_all_blocks(buf, len);
            }
        }
        free(buf);
    }
}
END_TEST

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint32_t rnd(void)
{
    /* xorshift64*: reproducible, no libc rand() state */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

START_TEST(simd_mask_equals_table_on_random_buffers)
{
    for (int round = 0; round < 20000; round++) {
        size_t len = 1 + rnd() % 300;
        char *buf = malloc(len);
        qc_assert(buf != NULL);
        for (size_t i = 0; i < len; i++)
            buf[i] = (char)rnd();
        check_all_blocks(buf, len);
        free(buf);
    }
}
END_TEST

/* (qc_assert_* and ck_abort_msg only on a mismatch: ck_assert_* records every passing
   check, too slow for millions of them.) */

/* The other predicates against their twins on one buffer: the summary
   of the whole, the pair search on the sub-ranges [lo, hi) that start or
   end at 0, len, the edges of a 16-byte load or around position p, and
   the dot candidates with and without a segment start. */
static void check_pair(const char *buf, size_t len, size_t lo, size_t hi)
{
    static const char pairs[][2] = {{'-', '-'}, {'/', '.'}};
    if (lo > hi || hi > len)
        return;
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        bool fast = simd_pair_in(buf, len, lo, hi, pairs[k][0], pairs[k][1]);
        bool slow = simd_pair_in_scalar(buf, lo, hi, pairs[k][0], pairs[k][1]);
        if (fast != slow)
            ck_abort_msg("pair %c%c len %zu [%zu, %zu): %d != %d", pairs[k][0], pairs[k][1],
                         len, lo, hi, fast, slow);
    }
}

/* The parameter stop on in[from..to) for the same kind of sub-ranges. */
static void check_param_stop(const char *buf, size_t len, size_t from, size_t to)
{
    if (from > to || to > len)
        return;
    size_t fast = simd_param_stop(buf, from, to);
    size_t slow = simd_param_stop_scalar(buf, from, to);
    if (fast != slow)
        ck_abort_msg("param stop len %zu [%zu, %zu): %zu != %zu", len, from, to, fast, slow);
}

static void check_predicates(const char *buf, size_t len, size_t p)
{
    bool fo, fp, so, sp;
    simd_plain_summary(buf, len, &fo, &fp);
    simd_plain_summary_scalar(buf, len, &so, &sp);
    if (fo != so || fp != sp)
        ck_abort_msg("summary len %zu p %zu: odd %d pairs %d != odd %d pairs %d", len, p, fo, fp,
                     so, sp);
    for (int start = 0; start < 2; start++) {
        bool fd = simd_dot_candidates(buf, len, start);
        bool sd = simd_dot_candidates_scalar(buf, len, start);
        if (fd != sd)
            ck_abort_msg("dot candidates len %zu p %zu start %d: %d != %d", len, p, start, fd,
                         sd);
    }
    const size_t los[] = {0, p > 0 ? p - 1 : 0, p, len > 16 ? len - 16 : 0};
    for (size_t a = 0; a < sizeof los / sizeof los[0]; a++) {
        size_t lo = los[a];
        const size_t his[] = {lo + 2, lo + 16, lo + 17, p + 2, len};
        for (size_t b = 0; b < sizeof his / sizeof his[0]; b++) {
            check_pair(buf, len, lo, his[b]);
            check_param_stop(buf, len, lo, his[b]);
            check_param_stop(buf, len, lo, his[b] - 1);
        }
    }
}

/* $URISAN_SCAN_STRIDE = K (the quick size: tests/meson.build) thins the
   case below: at a position p that is no edge (not first or last, not
   15 or 16 of a 16-byte load) only the bytes v == p (mod K) and the
   bytes the predicates look for or whose class starts or ends at them;
   every byte at the edges. Unset: every byte at every position. */
static unsigned scan_stride(void)
{
    const char *e = getenv("URISAN_SCAN_STRIDE");
    unsigned k = e && *e ? (unsigned)strtoul(e, NULL, 10) : 1;
    return k ? k : 1;
}

static bool byte_kept(unsigned stride, size_t len, size_t p, unsigned v)
{
    static const char marked[] = "-/.%=&;#?\\ !~";
    if (stride == 1 || p == 0 || p + 1 >= len || p % 16 == 15 || p % 16 == 0)
        return true;
    if (v % stride == p % stride || v <= 0x01 || v == 0x1f || (v >= 0x7e && v <= 0x81) ||
        v == 0xff)
        return true;
    return v != 0 && memchr(marked, (int)v, sizeof marked - 1) != NULL;
}

START_TEST(simd_predicates_equal_their_twins_for_every_byte_at_every_position)
{
    /* backgrounds of the bytes the predicates look for, so a byte at p
       completes or breaks a pair on either side */
    static const char *const bg[] = {"a", "-", "/", ".", "%", "/.", "-/.%", "=&;"};
    const unsigned stride = scan_stride();
    for (size_t len = 0; len <= 70; len = len == 40 ? 60 : len + 1) {
        char *buf = malloc(len ? len : 1);
        qc_assert(buf != NULL);
        for (size_t g = 0; g < sizeof bg / sizeof bg[0]; g++) {
            size_t gl = strlen(bg[g]);
            for (size_t p = 0; p < (len ? len : 1); p++) {
                for (unsigned v = 0; v < 256; v++) {
                    if (!byte_kept(stride, len, p, v))
                        continue;
                    for (size_t i = 0; i < len; i++)
                        buf[i] = bg[g][i % gl];
                    if (len)
                        buf[p] = (char)v;
                    check_predicates(buf, len, p);
                }
            }
        }
        free(buf);
    }
}
END_TEST

START_TEST(simd_predicates_equal_their_twins_on_random_buffers)
{
    static const char alphabet[] = "-/.%a\\ \x7f\x80\x1f!~&;=";
    for (int round = 0; round < 20000; round++) {
        size_t len = rnd() % 200;
        char *buf = malloc(len ? len : 1);
        qc_assert(buf != NULL);
        for (size_t i = 0; i < len; i++)
            buf[i] = (rnd() % 8) ? alphabet[rnd() % (sizeof alphabet - 1)] : (char)rnd();
        size_t p = len ? rnd() % len : 0;
        check_predicates(buf, len, p);
        size_t lo = len ? rnd() % (len + 1) : 0;
        size_t hi = lo + rnd() % (len - lo + 1);
        check_pair(buf, len, lo, hi);
        check_param_stop(buf, len, lo, hi);
        free(buf);
    }
}
END_TEST

START_TEST(iterator_visits_every_special_byte_in_order)
{
    for (int round = 0; round < 5000; round++) {
        size_t len = rnd() % 400;
        char *buf = malloc(len ? len : 1);
        qc_assert(buf != NULL);
        for (size_t i = 0; i < len; i++)
            buf[i] = (rnd() % 4) ? 'x' : (char)rnd();
        scan_iter it;
        scan_init(&it, buf, len);
        for (size_t i = 0; i <= len; i++) {
            if (i < len && cc_is((unsigned char)buf[i], CC_REG))
                continue;
            size_t j = scan_pop(&it);
            qc_assert_uint_eq(j, i);
        }
        qc_assert_uint_eq(scan_pop(&it), len);
        free(buf);
    }
}
END_TEST

START_TEST(iterator_started_anywhere_visits_the_special_bytes_from_there)
{
    for (int round = 0; round < 3000; round++) {
        size_t len = 1 + rnd() % 300;
        char *buf = malloc(len);
        qc_assert(buf != NULL);
        for (size_t i = 0; i < len; i++)
            buf[i] = (rnd() % 3) ? 'x' : (char)rnd();
        scan_iter base;
        scan_init(&base, buf, len);
        size_t from = rnd() % (len + 1);
        scan_iter a, b;
        scan_from(&a, &base, from);
        scan_init_at(&b, buf, len, from);
        for (size_t i = from; i <= len; i++) {
            if (i < len && cc_is((unsigned char)buf[i], CC_REG))
                continue;
            qc_assert_uint_eq(scan_pop(&a), i);
            qc_assert_uint_eq(scan_pop(&b), i);
        }
        free(buf);
    }
}
END_TEST

/* ---- 2. fast parse == full parse ---- */

static void span_eq(urisan_span a, urisan_span b, const char *what, const char *in, size_t len)
{
    qc_assert_msg(a.off == b.off && a.len == b.len,
                  "%s differs on [%.*s]: fast (%zu,%zu) full (%zu,%zu)", what, (int)len, in,
                  a.off, a.len, b.off, b.len);
}

static size_t compared, fast_base_took, fast_ssse3_took;

/* Every field of two parse results. */
static void same_uri(const urisan_uri *pa, const urisan_uri *pb, const char *in, size_t len)
{
    urisan_uri a = *pa, b = *pb;
    span_eq(a.scheme, b.scheme, "scheme", in, len);
    span_eq(a.userinfo, b.userinfo, "userinfo", in, len);
    span_eq(a.host, b.host, "host", in, len);
    span_eq(a.port, b.port, "port", in, len);
    span_eq(a.path, b.path, "path", in, len);
    span_eq(a.query, b.query, "query", in, len);
    span_eq(a.fragment, b.fragment, "fragment", in, len);
    span_eq(a.zone, b.zone, "zone", in, len);
    qc_assert_msg(a.host_type == b.host_type, "host_type differs on [%.*s]", (int)len, in);
    qc_assert_msg(memcmp(a.ip, b.ip, sizeof a.ip) == 0, "ip differs on [%.*s]", (int)len, in);
    qc_assert_uint_eq(a.port_value, b.port_value);
    qc_assert_uint_eq(a.segments, b.segments);
    qc_assert_int_eq(a.valid, b.valid);
    qc_assert_int_eq(a.error.code, b.error.code);
    qc_assert_uint_eq(a.error.offset, b.error.offset);
}

static void agree(const char *src, size_t len, const urisan_limits *lim)
{
    /* exact-size copy: an overread faults under ASan/valgrind */
    char *in = malloc(len ? len : 1);
    qc_assert(in != NULL);
    if (len)
        memcpy(in, src, len);
    urisan_uri a, b;
    urisan_error ea, eb;
    unsigned sum;
    memset(&a, 0x5a, sizeof a);
    memset(&b, 0xa5, sizeof b);
    urisan_status sa = urisan_parse(in, len, lim, &a, &ea);
    urisan_status sb = urisan_parse_full(in, len, lim, &b, &eb);
    qc_assert_msg(sa == sb, "status differs on [%.*s]: %d %d", (int)len, in, sa, sb);
    qc_assert_int_eq(ea.code, eb.code);
    qc_assert_uint_eq(ea.offset, eb.offset);
    qc_assert_uint_eq(ea.input, eb.input);
    same_uri(&a, &b, in, len);

    /* each fast path alone: when it takes the input, the full parser's answer */
    memset(&a, 0x5a, sizeof a);
    if (urisan_parse_fast_base(in, len, lim, &a, &sum)) {
        qc_assert_int_eq(sb, URISAN_OK);
        same_uri(&a, &b, in, len);
        fast_base_took++;
    }
#ifdef URISAN_HAVE_SSSE3_VARIANT
    if (urisan_cpu_ssse3()) {
        memset(&a, 0x5a, sizeof a);
        if (urisan_parse_fast_ssse3(in, len, lim, &a, &sum)) {
            qc_assert_int_eq(sb, URISAN_OK);
            same_uri(&a, &b, in, len);
            fast_ssse3_took++;
        }
    }
#endif
    free(in);
    compared++;
}

static const char *const hand[] = {
    "", "a", ":", "/", "//", "///", "?", "#", "http:", "http://", "http://h", "http://h:",
    "http://h:80", "http://h:080", "http://h:65535", "http://h:65536", "http://h:99999999999",
    "http://h:8a", "http://:80", "http://u@h", "http://u:p@h:1/p", "http://@h", "http://u@",
    "http://a@b@c", "http://h:1:2", "http://u:p:q@h:3", "http://1.2.3.4", "http://1.2.3.4:5/",
    "http://1.2.3", "http://1.2.3.4.5", "http://01.2.3.4", "http://256.1.1.1", "http://1.2.3.x",
    "http://9x", "http://[::1]", "http://[::1]:80", "http://[v1.x]", "http://[", "http://]",
    "http://h%41", "http://%41@h", "http://h/%41", "http://h/%4", "http://h/%", "http://h/%zz",
    "http://h/a%2", "http://h?%4", "http://h#%4", "http://h#a#b", "http://h?a?b#c?d/@:",
    "http://h/a b", "http://h/a\\b", "http://h\\a", "http://h/\x80", "http://h/\x00x",
    "1http://h", "ht_tp://h", "h~p://h", "+a:b", "a+b-c.d:x", "mailto:a@b", "node:url",
    "a:b:c", "a/b:c", "./a:b", "%41:b", "a%3a:b", "a@b:c", "a[b:c", "?a:b", "#a:b",
    "file:///etc/passwd", "file://c:/x", "//h/p", "/p?q#f", "p/q/r", "a/", "/a/", "..//a",
    "http://h/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p", "http://h?", "http://h#", "http://h/?#",
    "\xef\xbb\xbfhttps://bom/", "javascript:alert(1)", "http://h:80#f", "http://h:80?q",
    "http://xn--nxasmq6b.example/", "http://a.b-c_d~e!f$g&h'i(j)k*l+m,n;o=p/",
    "http://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/",
    "http://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/",
    "http://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/",
};
#define N_HAND (sizeof hand / sizeof hand[0])

static const urisan_limits *tight(void)
{
    static urisan_limits l = {40, 3, 2, 5, 3, 2};
    return &l;
}

static void agree_all_limits(const char *in, size_t len)
{
    agree(in, len, NULL);
    agree(in, len, tight());
}

static const char mut_bytes[] = ":/?#@[]%.:0123456789aZxX-_~!$\\ \t\r\n\x00\x7f\x80\xff";

static void mutate_and_agree(const char *src, size_t len, int times)
{
    char buf[512];
    if (len > 400)
        len = 400;
    for (int t = 0; t < times; t++) {
        memcpy(buf, src, len);
        size_t n = len;
        int edits = 1 + (int)(rnd() % 3);
        for (int e = 0; e < edits; e++) {
            char c = mut_bytes[rnd() % (sizeof mut_bytes - 1)];
            size_t p = n ? rnd() % (n + 1) : 0;
            switch (rnd() % 3) {
            case 0: /* replace */
                if (p < n)
                    buf[p] = c;
                break;
            case 1: /* insert */
                if (n < sizeof buf - 1) {
                    memmove(buf + p + 1, buf + p, n - p);
                    buf[p] = c;
                    n++;
                }
                break;
            default: /* delete */
                if (p < n) {
                    memmove(buf + p, buf + p + 1, n - p - 1);
                    n--;
                }
                break;
            }
        }
        agree_all_limits(buf, n);
    }
}

START_TEST(fast_parse_equals_full_parse_on_hand_picked_inputs)
{
    for (size_t k = 0; k < N_HAND; k++) {
        agree_all_limits(hand[k], strlen(hand[k]));
        mutate_and_agree(hand[k], strlen(hand[k]), 300);
    }
    /* the one with an embedded NUL */
    agree_all_limits("http://h/\0x", 11);
    /* long inputs: several 64-byte blocks, specials at block edges */
    char big[700];
    for (size_t n = 60; n < sizeof big; n += 7) {
        memcpy(big, "http://h/", 9);
        for (size_t i = 9; i < n; i++)
            big[i] = (i % 64 == 63 || i % 64 == 0) ? "/%?#@:"[i % 6] : 'a';
        agree_all_limits(big, n);
        mutate_and_agree(big, n, 20);
    }
    /* each fast path took a good share of them, so the agreement says
       something about it */
    ck_assert_uint_gt(fast_base_took, compared / 20);
#ifdef URISAN_HAVE_SSSE3_VARIANT
    if (urisan_cpu_ssse3())
        ck_assert_uint_eq(fast_ssse3_took, fast_base_took);
#endif
}
END_TEST

START_TEST(fast_parse_equals_full_parse_on_the_url_data_sets)
{
    static const char *const names[] = {"kasztp.txt", "userbait.txt", "node_files.txt",
                                        "isaacs_files.txt"};
    size_t files = 0;
    for (size_t f = 0; f < sizeof names / sizeof names[0]; f++) {
        FILE *fp = testdata_open("urls", names[f]);
        if (fp == NULL)
            continue;
        files++;
        char *line = NULL;
        size_t cap = 0;
        ssize_t got;
        size_t k = 0;
        while ((got = getline(&line, &cap, fp)) > 0) {
            size_t n = (size_t)got;
            if (n && line[n - 1] == '\n')
                n--;
            if (n && line[n - 1] == '\r')
                n--;
            agree_all_limits(line, n);
            if (k++ % 50 == 0)
                mutate_and_agree(line, n, 4);
        }
        free(line);
        fclose(fp);
    }
    if (files == 0)
        printf("SKIP: no URL data sets\n");
    printf("compared %zu parses; the fast path took %zu (baseline build), %zu (SSSE3 build)\n",
           compared, fast_base_took, fast_ssse3_took);
#ifdef URISAN_HAVE_SSSE3_VARIANT
    if (urisan_cpu_ssse3())
        ck_assert_uint_eq(fast_ssse3_took, fast_base_took);
#endif
}
END_TEST

int main(void)
{
    if (testdata_skip())
        return 77;
#if defined(URISAN_SIMD_SSSE3) && defined(URISAN_HAVE_SSSE3_VARIANT)
    if (!urisan_cpu_ssse3()) {
        printf("SKIP: this CPU has no SSSE3\n");
        return 77;
    }
#endif
    printf("simd.h predicates: %s\n", URISAN_SIMD_KIND);
    Suite *s = suite_create("scan");
    TCase *tc = tcase_create("scan");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, simd_mask_equals_table_for_every_byte_at_every_position);
    tcase_add_test(tc, simd_mask_equals_table_on_random_buffers);
    tcase_add_test(tc, simd_predicates_equal_their_twins_for_every_byte_at_every_position);
    tcase_add_test(tc, simd_predicates_equal_their_twins_on_random_buffers);
    tcase_add_test(tc, iterator_visits_every_special_byte_in_order);
    tcase_add_test(tc, iterator_started_anywhere_visits_the_special_bytes_from_there);
    tcase_add_test(tc, fast_parse_equals_full_parse_on_hand_picked_inputs);
    suite_add_tcase(s, tc);
    tc = testdata_tcase(s, "scan_shared_data");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, fast_parse_equals_full_parse_on_the_url_data_sets);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
