/* test_parse.c - the tolerant split and strict RFC 3986 validation: the
   parts no case table can state. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "urisan.h"

/* The ABNF rule tables (status and offset) and the split table (the seven
   components and the host type) are tests/spec/parse-rfc3986.md and
   tests/spec/parse-split.md, run by test_spec.c. Here: what a table
   cannot say (decoded addresses, numbers, counts, arguments, names). */

START_TEST(embedded_nul_is_just_a_byte)
{
    static const char in[] = "http://h/a\0b?c\0#d";
    urisan_uri u;
    urisan_status st = urisan_parse(in, sizeof in - 1, NULL, &u, NULL);
    ck_assert_int_eq(st, URISAN_E_BAD_PATH);
    ck_assert_uint_eq(u.error.offset, 10);
    ck_assert_uint_eq(u.path.len, 4);
    ck_assert_uint_eq(u.query.len, 2);
    ck_assert_uint_eq(u.fragment.off, sizeof in - 2);
}
END_TEST

START_TEST(ipv4_host_is_decoded_to_bytes)
{
    const char *in = "http://192.168.0.255:8080/";
    urisan_uri u;
    ck_assert_int_eq(urisan_parse(in, strlen(in), NULL, &u, NULL), URISAN_OK);
    ck_assert_int_eq(u.host_type, URISAN_HOST_IPV4);
    ck_assert_int_eq(u.ip[0], 192);
    ck_assert_int_eq(u.ip[1], 168);
    ck_assert_int_eq(u.ip[2], 0);
    ck_assert_int_eq(u.ip[3], 255);
    ck_assert_uint_eq(u.port_value, 8080);
}
END_TEST

START_TEST(ipv6_host_with_zone_is_decoded_and_zone_spanned)
{
    const char *in = "http://[fe80::1:2%25eth0]/";
    urisan_uri u;
    ck_assert_int_eq(urisan_parse(in, strlen(in), NULL, &u, NULL), URISAN_OK);
    ck_assert_int_eq(u.host_type, URISAN_HOST_IPV6_ZONE);
    static const uint8_t want[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2};
    ck_assert_mem_eq(u.ip, want, 16);
    ck_assert_uint_eq(u.zone.len, 4);
    ck_assert_mem_eq(in + u.zone.off, "eth0", 4);
}
END_TEST

START_TEST(port_value_is_numeric_or_no_port)
{
    urisan_uri u;
    urisan_parse("//h:080", 7, NULL, &u, NULL);
    ck_assert_uint_eq(u.port_value, 80);
    urisan_parse("//h:", 4, NULL, &u, NULL);
    ck_assert_uint_eq(u.port_value, URISAN_NO_PORT);
    urisan_parse("//h", 3, NULL, &u, NULL);
    ck_assert_uint_eq(u.port_value, URISAN_NO_PORT);
    urisan_parse("//h:70000", 9, NULL, &u, NULL);
    ck_assert_uint_eq(u.port_value, URISAN_NO_PORT);
    ck_assert_uint_eq(u.port.len, 5);
}
END_TEST

START_TEST(segments_are_counted)
{
    urisan_uri u;
    urisan_parse("/a/b", 4, NULL, &u, NULL);
    ck_assert_uint_eq(u.segments, 2);
    urisan_parse("a/b/", 4, NULL, &u, NULL);
    ck_assert_uint_eq(u.segments, 3);
    urisan_parse("", 0, NULL, &u, NULL);
    ck_assert_uint_eq(u.segments, 0);
    urisan_parse("http://h", 8, NULL, &u, NULL);
    ck_assert_uint_eq(u.segments, 0);
    urisan_parse("?/a/b", 5, NULL, &u, NULL);
    ck_assert_uint_eq(u.segments, 0);
}
END_TEST

START_TEST(null_pointer_with_zero_length_is_the_empty_reference)
{
    urisan_uri u;
    ck_assert_int_eq(urisan_parse(NULL, 0, NULL, &u, NULL), URISAN_OK);
    ck_assert(urisan_span_present(u.path));
    ck_assert_uint_eq(u.path.len, 0);
}
END_TEST

START_TEST(null_pointer_with_length_is_a_bad_argument)
{
    urisan_uri u;
    urisan_error e;
    ck_assert_int_eq(urisan_parse(NULL, 3, NULL, &u, &e), URISAN_E_BAD_ARGUMENT);
    ck_assert_int_eq(e.code, URISAN_E_BAD_ARGUMENT);
    ck_assert_int_eq(urisan_parse("a", 1, NULL, NULL, &e), URISAN_E_BAD_ARGUMENT);
}
END_TEST

START_TEST(status_names_are_stable)
{
    ck_assert_str_eq(urisan_status_name(URISAN_OK), "ok");
    ck_assert_str_eq(urisan_status_name(URISAN_E_TOO_LONG), "too_long");
    ck_assert_str_eq(urisan_status_name(URISAN_E_PORT_RANGE), "port_range");
    ck_assert_str_eq(urisan_status_name((urisan_status)999), "unknown");
    ck_assert_int_eq(URISAN_E_TOO_LONG, 2);
    ck_assert_int_eq(URISAN_E_NOSPACE, 1);
    for (int s = 0; s < URISAN_STATUS_COUNT_; s++) {
        ck_assert_str_ne(urisan_status_name((urisan_status)s), "unknown");
        ck_assert_ptr_nonnull(urisan_status_message((urisan_status)s));
    }
}
END_TEST

START_TEST(host_type_names_are_stable)
{
    ck_assert_ptr_null(urisan_host_type_name(URISAN_HOST_NONE));
    ck_assert_str_eq(urisan_host_type_name(URISAN_HOST_REG_NAME), "reg-name");
    ck_assert_str_eq(urisan_host_type_name(URISAN_HOST_IPV4), "ipv4");
    ck_assert_str_eq(urisan_host_type_name(URISAN_HOST_IPV6), "ipv6");
    ck_assert_str_eq(urisan_host_type_name(URISAN_HOST_IPV6_ZONE), "ipv6-zone");
    ck_assert_str_eq(urisan_host_type_name(URISAN_HOST_IPVFUTURE), "ipvfuture");
    ck_assert_str_eq(urisan_host_type_name(URISAN_HOST_EMPTY), "empty");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("parse");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, embedded_nul_is_just_a_byte);
    tcase_add_test(tc, ipv4_host_is_decoded_to_bytes);
    tcase_add_test(tc, ipv6_host_with_zone_is_decoded_and_zone_spanned);
    tcase_add_test(tc, port_value_is_numeric_or_no_port);
    tcase_add_test(tc, segments_are_counted);
    tcase_add_test(tc, null_pointer_with_zero_length_is_the_empty_reference);
    tcase_add_test(tc, null_pointer_with_length_is_a_bad_argument);
    tcase_add_test(tc, status_names_are_stable);
    tcase_add_test(tc, host_type_names_are_stable);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
