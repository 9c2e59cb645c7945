/*
 * test_json.c - the command's JSON writer (src/cli/json.c): every string
 * comes out as valid UTF-8 JSON whatever the bytes (urisan(1), JSON
 * OUTPUT), the structure is well formed, and the growable buffer honours
 * its max.
 */
#include <check.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiet_check.h"
#include "json.h"
#include "urisan.h"

/* Escape s[0..n) as a JSON string and compare with the expected text. */
static void expect_escape(const char *s, size_t n, const char *want)
{
    cli_buf b;
    cli_buf_init(&b, 1 << 20);
    qc_assert(json_escape(&b, s, n));
    qc_assert_msg(b.len == strlen(want) && (b.len == 0 || memcmp(b.p, want, b.len) == 0),
                  "escape gave '%.*s', want '%s'", (int)b.len, b.p, want);
    cli_buf_free(&b);
}
#define EXPECT(lit, want) expect_escape(lit, sizeof(lit) - 1, want)

/*
 * A strict validator of the text our writer must produce: valid UTF-8,
 * no raw byte < 0x20 or 0x7F, every backslash a valid JSON escape, no
 * unescaped quote (the text is a string body).
 */
static int valid_string_body(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c < 0x20 || c == 0x7F || c == '"')
            return 0;
        if (c == '\\') {
            if (i + 1 >= n)
                return 0;
            unsigned char e = s[i + 1];
            if (e == 'u') {
                if (i + 5 >= n)
                    return 0;
                for (size_t k = 2; k < 6; k++) {
                    unsigned char h = s[i + k];
                    if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f')))
                        return 0;
                }
                i += 6;
            } else if (e == '"' || e == '\\') {
                i += 2;
            } else {
                return 0;   /* we promise only \" \\ \uXXXX */
            }
            continue;
        }
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t need;
        uint32_t cp;
        if (c >= 0xC2 && c <= 0xDF) { need = 2; cp = c & 0x1F; }
        else if (c >= 0xE0 && c <= 0xEF) { need = 3; cp = c & 0x0F; }
        else if (c >= 0xF0 && c <= 0xF4) { need = 4; cp = c & 0x07; }
        else return 0;
        if (i + need > n)
            return 0;
        for (size_t k = 1; k < need; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return 0;
            cp = (cp << 6) | (s[i + k] & 0x3Fu);
        }
        if ((need == 3 && cp < 0x800) || (need == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += need;
    }
    return 1;
}

START_TEST(printable_ascii_passes_through)
{
    EXPECT("http://example.com/a?b=c#d", "http://example.com/a?b=c#d");
    EXPECT("", "");
}
END_TEST

/* Regression (CI stop 20, UBSan): an empty string on a buffer that has
   never held anything must not do pointer arithmetic on its null data. */
START_TEST(empty_string_on_fresh_buffer)
{
    cli_buf b;
    cli_buf_init(&b, 1 << 20);
    qc_assert(json_escape(&b, "", 0));
    qc_assert_uint_eq(b.len, 0);
    qc_assert(!b.failed);
    cli_buf_free(&b);
}
END_TEST

START_TEST(quote_and_backslash_are_escaped)
{
    EXPECT("a\"b\\c", "a\\\"b\\\\c");
}
END_TEST

START_TEST(control_bytes_use_u_escapes_only)
{
    EXPECT("\x00", "\\u0000");
    EXPECT("a\nb\rc\td", "a\\u000ab\\u000dc\\u0009d");
    EXPECT("\x1f\x7f", "\\u001f\\u007f");
}
END_TEST

START_TEST(nul_in_the_middle_is_kept_as_u0000)
{
    EXPECT("http://a\x00" "b/", "http://a\\u0000b/");
}
END_TEST

START_TEST(invalid_utf8_byte_is_u00xx_of_its_value)
{
    EXPECT("\xff\xfe%zz", "\\u00ff\\u00fe%zz");
    EXPECT("\x80", "\\u0080");
    EXPECT("\xc3", "\\u00c3");          /* truncated sequence at the end */
    EXPECT("\xc3x", "\\u00c3x");        /* lead byte without continuation */
    EXPECT("\xe2\x82", "\\u00e2\\u0082");
}
END_TEST

START_TEST(valid_multibyte_utf8_is_copied)
{
    EXPECT("caf\xc3\xa9", "caf\xc3\xa9");                 /* U+00E9 */
    EXPECT("\xe2\x82\xac", "\xe2\x82\xac");               /* U+20AC */
    EXPECT("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");       /* U+1F600 */
    EXPECT("\xef\xbc\x91\xe2\x91\xa0", "\xef\xbc\x91\xe2\x91\xa0"); /* fullwidth 1, circled 1 */
}
END_TEST

START_TEST(overlong_forms_are_escaped_byte_by_byte)
{
    EXPECT("\xc0\xae", "\\u00c0\\u00ae");
    EXPECT("\xc1\x9c", "\\u00c1\\u009c");
    EXPECT("\xe0\x80\xae", "\\u00e0\\u0080\\u00ae");
    EXPECT("\xf0\x80\x80\xae", "\\u00f0\\u0080\\u0080\\u00ae");
}
END_TEST

START_TEST(surrogates_and_above_max_are_escaped)
{
    EXPECT("\xed\xa0\x80", "\\u00ed\\u00a0\\u0080");       /* U+D800 */
    EXPECT("\xf4\x90\x80\x80", "\\u00f4\\u0090\\u0080\\u0080"); /* U+110000 */
    EXPECT("\xf8\x88\x80\x80\x80", "\\u00f8\\u0088\\u0080\\u0080\\u0080");
}
END_TEST

START_TEST(c1_controls_and_line_separators_are_escaped)
{
    EXPECT("\xc2\x85", "\\u0085");
    EXPECT("\xc2\x9b", "\\u009b");
    EXPECT("\xe2\x80\xa8\xe2\x80\xa9", "\\u2028\\u2029");
    EXPECT("\xc2\xa0", "\xc2\xa0");     /* NBSP is not a control */
}
END_TEST

/* Every one- and two-byte input escapes to a valid string body. */
START_TEST(all_two_byte_inputs_give_valid_utf8)
{
    cli_buf b;
    cli_buf_init(&b, 1 << 16);
    for (unsigned hi = 0; hi < 256; hi++)
    for (unsigned lo = 0; lo < 256; lo++) {
        char in[3] = { (char)hi, (char)lo, (char)0xA9 };
        for (size_t n = 1; n <= 3; n++) {
            cli_buf_clear(&b);
            qc_assert(json_escape(&b, in, n));
            qc_assert_msg(valid_string_body((const unsigned char *)b.p, b.len),
                          "bytes %02x %02x (n=%zu) gave '%.*s'", hi, lo, n, (int)b.len, b.p);
        }
    }
    cli_buf_free(&b);
}
END_TEST

/* Pseudo-random bytes: the escape is always a valid string body. */
START_TEST(random_bytes_give_valid_utf8)
{
    uint64_t x = 0x9E3779B97F4A7C15u;
    char in[9000];
    cli_buf b;
    cli_buf_init(&b, 1 << 20);
    for (int round = 0; round < 200; round++) {
        size_t n = (size_t)(round * 45);
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            /* bias towards the interesting bytes */
            unsigned v = (unsigned)(x & 0xFF);
            in[i] = (char)((x >> 8) & 1 ? (v | 0x80) : v);
        }
        cli_buf_clear(&b);
        qc_assert(json_escape(&b, in, n));
        qc_assert(valid_string_body((const unsigned char *)b.p, b.len));
    }
    cli_buf_free(&b);
}
END_TEST

/* A sequence that straddles the writer's internal 4096-byte pieces is
   still copied whole. */
START_TEST(multibyte_across_piece_boundary_is_kept)
{
    char in[4100];
    memset(in, 'a', sizeof in);
    memcpy(in + 4094, "\xf0\x9f\x98\x80", 4);
    cli_buf b;
    cli_buf_init(&b, 1 << 20);
    qc_assert(json_escape(&b, in, sizeof in));
    qc_assert_uint_eq(b.len, sizeof in);
    qc_assert(memcmp(b.p, in, sizeof in) == 0);
    cli_buf_free(&b);
}
END_TEST

START_TEST(object_with_nested_values_is_well_formed)
{
    cli_buf b;
    cli_buf_init(&b, 4096);
    json_w w;
    json_begin(&w, &b);
    json_obj_open(&w);
    json_kstr(&w, "uri", "a\x00", 2);
    json_kbool(&w, "valid", false);
    json_knull(&w, "error");
    json_key(&w, "components");
    json_obj_open(&w);
    json_kcstr(&w, "scheme", NULL);
    json_kcstr(&w, "host", "");
    json_obj_close(&w);
    json_key(&w, "flags");
    json_arr_open(&w);
    json_cstr(&w, "invalid");
    json_cstr(&w, "ctl_raw");
    json_arr_close(&w);
    json_key(&w, "empty");
    json_arr_open(&w);
    json_arr_close(&w);
    json_kuint(&w, "n", 0);
    json_kuint(&w, "big", UINT64_MAX);
    json_obj_close(&w);
    qc_assert(json_ok(&w));
    const char *want = "{\"uri\":\"a\\u0000\",\"valid\":false,\"error\":null,"
                       "\"components\":{\"scheme\":null,\"host\":\"\"},"
                       "\"flags\":[\"invalid\",\"ctl_raw\"],\"empty\":[],"
                       "\"n\":0,\"big\":18446744073709551615}";
    qc_assert_uint_eq(b.len, strlen(want));
    qc_assert(memcmp(b.p, want, b.len) == 0);
    cli_buf_free(&b);
}
END_TEST

/* The digits are counted and written in place when 20 bytes are free, and
   through a copy otherwise: both at every power of ten and next to it. */
START_TEST(addu_writes_decimal_at_every_digit_count)
{
    uint64_t p = 1;
    for (int k = 0; k <= 19; k++) {   /* p = 10^k */
        uint64_t vals[] = { p - 1, p, p + 1, k == 19 ? UINT64_MAX : p * 10 - 1 };
        for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
            char want[32];
            int wl = snprintf(want, sizeof want, "%" PRIu64, vals[i]);
            for (size_t max = (size_t)wl; max <= (size_t)wl + 24; max += 24) {
                cli_buf b;   /* max = the digits only: the copy path */
                cli_buf_init(&b, max);
                qc_assert(cli_buf_addu(&b, vals[i]));
                qc_assert_msg(b.len == (size_t)wl && memcmp(b.p, want, b.len) == 0,
                              "%s: '%.*s'", want, (int)b.len, b.p);
                cli_buf_free(&b);
            }
        }
        if (k < 19)
            p *= 10;
    }
}
END_TEST

START_TEST(misuse_marks_the_document_failed)
{
    cli_buf b;
    cli_buf_init(&b, 4096);
    json_w w;

    json_begin(&w, &b);            /* value without a key in an object */
    json_obj_open(&w);
    json_cstr(&w, "x");
    json_obj_close(&w);
    qc_assert(!json_ok(&w));

    json_begin(&w, &b);            /* unbalanced */
    json_obj_open(&w);
    qc_assert(!json_ok(&w));

    json_begin(&w, &b);            /* wrong closer */
    json_arr_open(&w);
    json_obj_close(&w);
    qc_assert(!json_ok(&w));

    json_begin(&w, &b);            /* key with no value */
    json_obj_open(&w);
    json_key(&w, "k");
    json_obj_close(&w);
    qc_assert(!json_ok(&w));

    json_begin(&w, &b);            /* too deep */
    for (int i = 0; i < JSON_MAX_DEPTH + 1; i++)
        json_arr_open(&w);
    qc_assert(b.failed);

    json_begin(&w, &b);            /* empty document */
    qc_assert(!json_ok(&w));

    json_begin(&w, &b);            /* begin clears a previous failure */
    json_null(&w);
    qc_assert(json_ok(&w));
    cli_buf_free(&b);
}
END_TEST

START_TEST(buffer_never_grows_past_its_max)
{
    cli_buf b;
    cli_buf_init(&b, 10);
    qc_assert(cli_buf_add(&b, "0123456789", 10));
    qc_assert_uint_eq(b.len, 10);
    qc_assert(!cli_buf_addc(&b, 'x'));
    qc_assert(b.failed);
    qc_assert_uint_eq(b.len, 10);
    qc_assert(b.cap <= 10);
    /* Once failed, it stays failed until cleared. */
    qc_assert(!cli_buf_add(&b, "", 0));
    cli_buf_clear(&b);
    qc_assert(!b.failed);
    qc_assert(cli_buf_addc(&b, 'y'));
    cli_buf_free(&b);
}
END_TEST

START_TEST(escape_that_fits_exactly_at_max_succeeds)
{
    cli_buf b;
    cli_buf_init(&b, 12);
    qc_assert(json_escape(&b, "\x01\x02", 2));   /* 12 bytes */
    qc_assert_uint_eq(b.len, 12);
    qc_assert(!json_escape(&b, "a", 1));
    qc_assert(b.failed);
    cli_buf_free(&b);
}
END_TEST

START_TEST(escape_past_max_fails_without_overflow)
{
    size_t n = 100000;
    char *in = malloc(n);
    qc_assert(in != NULL);
    memset(in, 0xff, n);
    cli_buf b;
    cli_buf_init(&b, 5 * n);   /* needs 6 n */
    qc_assert(!json_escape(&b, in, n));
    qc_assert(b.failed);
    qc_assert(b.len <= b.max);
    cli_buf_free(&b);
    free(in);
}
END_TEST

/* The fast escape (json_plain_len's 16-byte steps) against the exact
   path (byte by byte; taken when the buffer's max leaves less than the
   worst case): every length up to 40, a special byte or sequence at every
   position, after 0 to 7 bytes already in the buffer. json_plain_len and
   json_quote_plain agree with a byte loop. */
START_TEST(word_escape_equals_byte_escape_at_every_position_and_length)
{
    static const char *specials[] = { "\"", "\\", "\x01", "\x7f", "\x80", "\xff",
                                      "\xc3\xa9", "\xe2\x80\xa8", "\xc2\x85", "\xf0\x9f\x98\x80",
                                      "\xe2\x82", "" };
    char in[64], pre[8] = "PREFIX!";
    for (size_t sp = 0; sp < sizeof specials / sizeof specials[0]; sp++) {
        size_t sl = strlen(specials[sp]);
        for (size_t n = 0; n <= 40; n++) {
            for (size_t pos = 0; pos + sl <= n || (sl == 0 && pos == 0); pos++) {
                for (size_t i = 0; i < n; i++)
                    in[i] = (char)('a' + (i * 7 + n) % 26);
                memcpy(in + pos, specials[sp], sl);
                size_t plain = 0;
                while (plain < n && (unsigned char)in[plain] >= 0x20 &&
                       (unsigned char)in[plain] < 0x7f && in[plain] != '"' && in[plain] != '\\')
                    plain++;
                qc_assert_uint_eq(json_plain_len(in, n), plain);
                for (size_t k = 0; k < 8; k++) {
                    cli_buf fast, exact;
                    cli_buf_init(&fast, 1 << 20);
                    cli_buf_init(&exact, k + 6 * n + 7);   /* no room for the fast path */
                    cli_buf_add(&fast, pre, k);
                    cli_buf_add(&exact, pre, k);
                    qc_assert(json_escape(&fast, in, n));
                    qc_assert(json_escape(&exact, in, n));
                    qc_assert_msg(fast.len == exact.len &&
                                  (fast.len == 0 || memcmp(fast.p, exact.p, fast.len) == 0),
                                  "n %zu pos %zu special %zu prefix %zu: '%.*s' vs '%.*s'", n, pos,
                                  sp, k, (int)fast.len, fast.p, (int)exact.len, exact.p);
                    if (plain == n) {
                        cli_buf q, qp;
                        cli_buf_init(&q, 1 << 20);
                        cli_buf_init(&qp, 1 << 20);
                        qc_assert(json_quote(&q, in, n));
                        qc_assert(json_quote_plain(&qp, in, n));
                        qc_assert(q.len == qp.len && memcmp(q.p, qp.p, q.len) == 0);
                        cli_buf_free(&q);
                        cli_buf_free(&qp);
                    }
                    cli_buf_free(&fast);
                    cli_buf_free(&exact);
                }
                if (sl == 0)
                    break;
            }
        }
    }
}
END_TEST

START_TEST(addu_writes_decimal)
{
    cli_buf b;
    cli_buf_init(&b, 64);
    cli_buf_addu(&b, 0);
    cli_buf_addc(&b, ' ');
    cli_buf_addu(&b, 65535);
    cli_buf_addc(&b, ' ');
    cli_buf_addu(&b, (uint64_t)SIZE_MAX);
    qc_assert(!b.failed);
    char want[64];
    int wl = snprintf(want, sizeof want, "0 65535 %zu", (size_t)SIZE_MAX);
    qc_assert_uint_eq(b.len, (size_t)wl);
    qc_assert(memcmp(b.p, want, b.len) == 0);
    cli_buf_free(&b);
}
END_TEST

/* The names the command copies unescaped (cli_jv_name, src/cli/render.c):
   every one the library has is plain, so the copy is its JSON text. */
static void expect_plain_name(const char *name)
{
    if (name == NULL)
        return;
    size_t n = strlen(name);
    qc_assert_msg(n > 0 && json_plain_len(name, n) == n, "name '%s' is not plain", name);
}

START_TEST(every_library_name_is_plain)
{
    for (int v = 0; v <= URISAN_DENY + 1; v++)
        expect_plain_name(urisan_verdict_name((urisan_verdict)v));
    for (int t = 0; t < 16; t++)
        expect_plain_name(urisan_host_type_name((urisan_host_type)t));
    for (int f = 0; f < 64; f++)
        expect_plain_name(urisan_flag_name((urisan_flag)f));
    for (int r = 0; r <= URISAN_REASON_COUNT_; r++)
        expect_plain_name(urisan_rule_reason_name((urisan_rule_reason)r));
    for (int c = 0; c <= URISAN_STATUS_COUNT_; c++)
        expect_plain_name(urisan_status_name((urisan_status)c));
    qc_assert_str_eq(urisan_host_type_name(URISAN_HOST_REG_NAME), "reg-name");
}
END_TEST

static Suite *json_suite(void)
{
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("escape");
    tcase_add_test(tc, printable_ascii_passes_through);
    tcase_add_test(tc, empty_string_on_fresh_buffer);
    tcase_add_test(tc, quote_and_backslash_are_escaped);
    tcase_add_test(tc, control_bytes_use_u_escapes_only);
    tcase_add_test(tc, nul_in_the_middle_is_kept_as_u0000);
    tcase_add_test(tc, invalid_utf8_byte_is_u00xx_of_its_value);
    tcase_add_test(tc, valid_multibyte_utf8_is_copied);
    tcase_add_test(tc, overlong_forms_are_escaped_byte_by_byte);
    tcase_add_test(tc, surrogates_and_above_max_are_escaped);
    tcase_add_test(tc, c1_controls_and_line_separators_are_escaped);
    tcase_add_test(tc, all_two_byte_inputs_give_valid_utf8);
    tcase_add_test(tc, random_bytes_give_valid_utf8);
    tcase_add_test(tc, multibyte_across_piece_boundary_is_kept);
    suite_add_tcase(s, tc);

    tc = tcase_create("writer");
    tcase_add_test(tc, object_with_nested_values_is_well_formed);
    tcase_add_test(tc, misuse_marks_the_document_failed);
    tcase_add_test(tc, buffer_never_grows_past_its_max);
    tcase_add_test(tc, escape_that_fits_exactly_at_max_succeeds);
    tcase_add_test(tc, escape_past_max_fails_without_overflow);
    tcase_add_test(tc, addu_writes_decimal);
    tcase_add_test(tc, addu_writes_decimal_at_every_digit_count);
    tcase_add_test(tc, word_escape_equals_byte_escape_at_every_position_and_length);
    tcase_add_test(tc, every_library_name_is_plain);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(json_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
