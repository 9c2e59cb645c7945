/*
 * test_guard.c - every entry point, on every prefix of a set of tricky
 * inputs, with the input flush against a PROT_NONE page: reading one byte
 * past the length faults.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiet_check.h"
#include "guard.h"
#include "urisan.h"

static const char *const inputs[] = {
    "http://user:pw@example.com:8080/a/b/../c?q=1#frag",
    "http://[fe80::1%25eth0]:80/",
    "http://[v1.x]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[0:0::1",
    "//[::1]x:80",
    "http://0x7f.1/%2e%2e/%2E%2e/x",
    "http://h/%c0%ae%c0%ae/%e0%80%ae%f0%80%80%ae",
    "http://h/%252e%%32%65%25",
    "http://h/x%0d%0aSet-Cookie:a=b%00%7f%",
    "http://a@b@c/",
    "http:\\\\evil.com\\@good/",
    "javascript:alert(1)",
    " \t\njava\tscript:x",
    "file:////server/share",
    "file://C:/x",
    "http://\xef\xbc\x91\xef\xbc\x92\xef\xbc\x97\xe3\x80\x82\xe2\x91\xa0/",
    "http://xn--bcher-kva.example/",
    "mailto:a@b?subject=%",
    "a:b:c",
    ":",
    "%",
    "%2",
    "[",
    "//",
    "//@",
    "//:",
    "?#",
    "http://h:65536/",
    "http://h:/",
    "http://h#@evil/x?@y",
    "https:///evil.com",
    "dict:///127.0.0.1:11211/",
};

#define N_INPUTS (sizeof inputs / sizeof inputs[0])

static void run_all_entry_points(const char *p, size_t n)
{
    urisan_uri u;
    urisan_error e;
    (void)urisan_parse(p, n, NULL, &u, &e);
    if (urisan_span_present(u.path))
        ck_assert_uint_le(u.path.off + u.path.len, n);
    if (urisan_span_present(u.host))
        ck_assert_uint_le(u.host.off + u.host.len, n);
}

START_TEST(every_prefix_against_a_guard_page_is_never_overread)
{
    const char *s = inputs[_i];
    size_t len = strlen(s);
    for (size_t n = 0; n <= len; n++) {
        guard_buf g = {0};
        const char *p = guard_place(&g, s, n);
        qc_assert(p != NULL);
        run_all_entry_points(p, n);
        guard_free(&g);
    }
}
END_TEST

START_TEST(every_byte_value_at_every_position_of_a_short_input_is_safe)
{
    /* one template, each position replaced by each byte value */
    static const char tmpl[] = "h://u@[::1]:8/%41?q#f";
    size_t len = sizeof tmpl - 1;
    guard_buf g = {0};
    char buf[sizeof tmpl];
    for (size_t pos = 0; pos < len; pos++) {
        for (int b = 0; b < 256; b++) {
            memcpy(buf, tmpl, len);
            buf[pos] = (char)b;
            const char *p = guard_place(&g, buf, len);
            qc_assert(p != NULL);
            run_all_entry_points(p, len);
            guard_free(&g);
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("guard");
    TCase *tc = tcase_create("overread");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, every_prefix_against_a_guard_page_is_never_overread, 0,
                        (int)N_INPUTS);
    tcase_add_test(tc, every_byte_value_at_every_position_of_a_short_input_is_safe);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
