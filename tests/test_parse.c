/* test_parse.c - the tolerant split and strict RFC 3986 validation. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "urisan.h"

#define NUL_ ((const char *)0)

/* ---- validity by ABNF rule: {input, status, offset} ---- */
typedef struct {
    const char *in;
    urisan_status code;
    size_t offset;
} vcase;

static const vcase rules[] = {
    /* scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) */
    {"http:", URISAN_OK, 0},
    {"a+b-c.d:x", URISAN_OK, 0},
    {"A9:x", URISAN_OK, 0},
    {"1a:x", URISAN_E_BAD_SCHEME, 0},
    {"+a:x", URISAN_E_BAD_SCHEME, 0},
    {"a_b:x", URISAN_E_BAD_SCHEME, 1},
    {"a b:x", URISAN_E_BAD_SCHEME, 1},
    {"h\xc3\xa9:x", URISAN_E_BAD_SCHEME, 1},
    /* relative-ref: path-noscheme's first segment has no ":" */
    {":x", URISAN_E_MISSING_SCHEME, 0},
    {"::", URISAN_E_MISSING_SCHEME, 0},
    {"./a:b", URISAN_OK, 0},
    {"a/b:c", URISAN_OK, 0},
    /* userinfo = *( unreserved / pct-encoded / sub-delims / ":" ) */
    {"//u@h", URISAN_OK, 0},
    {"//u:p@h", URISAN_OK, 0},
    {"//@h", URISAN_OK, 0},
    {"//a!$&'()*+,;=-._~%41:@h", URISAN_OK, 0},
    {"//u[@h", URISAN_E_BAD_USERINFO, 3},
    {"//a@b@h", URISAN_E_BAD_USERINFO, 3},
    {"//u%4@h", URISAN_E_BAD_ESCAPE, 3},
    {"//u p@h", URISAN_E_BAD_USERINFO, 3},
    /* reg-name = *( unreserved / pct-encoded / sub-delims ) */
    {"//example.com", URISAN_OK, 0},
    {"//ex-am_ple~.c!o$m&'()*+,;=", URISAN_OK, 0},
    {"//%65xample", URISAN_OK, 0},
    {"//", URISAN_OK, 0},
    {"//exa mple", URISAN_E_BAD_HOST, 5},
    {"//exa\"mple", URISAN_E_BAD_HOST, 5},
    {"//h%zz", URISAN_E_BAD_ESCAPE, 3},
    {"//h%a", URISAN_E_BAD_ESCAPE, 3},
    {"//b\xc3\xbc""cher.de", URISAN_E_BAD_HOST, 3},
    {"//a\\b", URISAN_E_BAD_HOST, 3},
    /* port = *DIGIT */
    {"//h:", URISAN_OK, 0},
    {"//h:0", URISAN_OK, 0},
    {"//h:65535", URISAN_OK, 0},
    {"//h:0000000080", URISAN_OK, 0},
    {"//h:65536", URISAN_E_PORT_RANGE, 4},
    {"//h:99999999999999999999", URISAN_E_PORT_RANGE, 4},
    {"//h:8a", URISAN_E_BAD_PORT, 5},
    {"//h:-1", URISAN_E_BAD_PORT, 4},
    {"//h:80:81", URISAN_E_BAD_HOST, 3},
    /* IP-literal */
    {"//[::1]", URISAN_OK, 0},
    {"//[::1]:80", URISAN_OK, 0},
    {"//[::1]:", URISAN_OK, 0},
    {"//[VF.addr]", URISAN_OK, 0},
    {"//[v1.a:b!$]", URISAN_OK, 0},
    {"//[v.a]", URISAN_E_BAD_IPVFUTURE, 4},
    {"//[v1a]", URISAN_E_BAD_IPVFUTURE, 6},
    {"//[v1.]", URISAN_E_BAD_IPVFUTURE, 6},
    {"//[v1.a/b]", URISAN_E_BAD_IP_LITERAL, 7},
    {"//[v1.a%41]", URISAN_E_BAD_IPVFUTURE, 7},
    {"//[::1", URISAN_E_BAD_IP_LITERAL, 6},
    {"//[::1]x", URISAN_E_BAD_IP_LITERAL, 7},
    {"//[]", URISAN_E_BAD_IPV6, 3},
    {"//[fe80::1%25eth0]", URISAN_OK, 0},
    {"//[fe80::1%25%65th0]", URISAN_OK, 0},
    {"//[fe80::1%25]", URISAN_E_BAD_ZONE_ID, 13},
    {"//[fe80::1%eth0]", URISAN_E_BAD_ZONE_ID, 10},
    {"//[fe80::1%25eth:0]", URISAN_E_BAD_ZONE_ID, 16},
    {"//[fe80::1%25e%zz]", URISAN_E_BAD_ESCAPE, 14},
    /* path-abempty / path-absolute / path-rootless / path-noscheme */
    {"http://h/a/b;c=d/e:f@g", URISAN_OK, 0},
    {"http://h//a", URISAN_OK, 0},
    {"/a/b", URISAN_OK, 0},
    {"a:b/c", URISAN_OK, 0},
    {"mailto:a@b", URISAN_OK, 0},
    {"a", URISAN_OK, 0},
    {"", URISAN_OK, 0},
    {"/a b", URISAN_E_BAD_PATH, 2},
    {"/a[b", URISAN_E_BAD_PATH, 2},
    {"/a\\b", URISAN_E_BAD_PATH, 2},
    {"/a%", URISAN_E_BAD_ESCAPE, 2},
    {"/a%2", URISAN_E_BAD_ESCAPE, 2},
    {"/a%2g", URISAN_E_BAD_ESCAPE, 2},
    {"/%2F%2e", URISAN_OK, 0},
    {"/a\x7f", URISAN_E_BAD_PATH, 2},
    {"/\x80", URISAN_E_BAD_PATH, 1},
    /* query and fragment = *( pchar / "/" / "?" ) */
    {"?a=b&c=/d?e:@", URISAN_OK, 0},
    {"#a/b?c", URISAN_OK, 0},
    {"?a b", URISAN_E_BAD_QUERY, 2},
    {"?a[b]", URISAN_E_BAD_QUERY, 2},
    {"#a#b", URISAN_E_BAD_FRAGMENT, 2},
    {"#a%zz", URISAN_E_BAD_ESCAPE, 2},
    {"?%", URISAN_E_BAD_ESCAPE, 1},
    /* the first error wins */
    {"1a://h:x/ ?#", URISAN_E_BAD_SCHEME, 0},
    {"http://h:x/ ", URISAN_E_BAD_PORT, 9},
};

START_TEST(each_abnf_rule_accepts_and_rejects_with_code_and_offset)
{
    const vcase *c = &rules[_i];
    urisan_uri u;
    urisan_error e;
    urisan_status st = urisan_parse(c->in, strlen(c->in), NULL, &u, &e);
    ck_assert_msg(st == c->code, "%s: got %s, want %s", c->in, urisan_status_name(st),
                  urisan_status_name(c->code));
    ck_assert_int_eq(u.valid, c->code == URISAN_OK);
    ck_assert_int_eq(e.code, st);
    ck_assert_int_eq(u.error.code, st);
    if (c->code != URISAN_OK)
        ck_assert_msg(e.offset == c->offset, "%s: offset %zu, want %zu", c->in, e.offset,
                      c->offset);
}
END_TEST

/* ---- the split: {input, scheme, userinfo, host, port, path, query, fragment} ---- */
typedef struct {
    const char *in;
    const char *part[7];
    urisan_host_type type;
} scase;

static const scase splits[] = {
    {"http://u:p@h:80/p?q#f", {"http", "u:p", "h", "80", "/p", "q", "f"}, URISAN_HOST_REG_NAME},
    {"http://a@b@h/", {"http", "a@b", "h", NUL_, "/", NUL_, NUL_}, URISAN_HOST_REG_NAME},
    {"h:80:81", {"h", NUL_, NUL_, NUL_, "80:81", NUL_, NUL_}, URISAN_HOST_NONE},
    {"//h:80:81", {NUL_, NUL_, "h:80", "81", "", NUL_, NUL_}, URISAN_HOST_REG_NAME},
    {"//[::1]:80", {NUL_, NUL_, "[::1]", "80", "", NUL_, NUL_}, URISAN_HOST_IPV6},
    {"//[::1]:80:90", {NUL_, NUL_, "[::1]", "80:90", "", NUL_, NUL_}, URISAN_HOST_IPV6},
    {"//[::1]x:80", {NUL_, NUL_, "[::1]x", "80", "", NUL_, NUL_}, URISAN_HOST_INVALID},
    {"//[::1", {NUL_, NUL_, "[::1", NUL_, "", NUL_, NUL_}, URISAN_HOST_INVALID},
    {"file:///etc", {"file", NUL_, "", NUL_, "/etc", NUL_, NUL_}, URISAN_HOST_EMPTY},
    {"//h:", {NUL_, NUL_, "h", "", "", NUL_, NUL_}, URISAN_HOST_REG_NAME},
    {"//@", {NUL_, "", "", NUL_, "", NUL_, NUL_}, URISAN_HOST_EMPTY},
    {"", {NUL_, NUL_, NUL_, NUL_, "", NUL_, NUL_}, URISAN_HOST_NONE},
    {"?#", {NUL_, NUL_, NUL_, NUL_, "", "", ""}, URISAN_HOST_NONE},
    {"#?", {NUL_, NUL_, NUL_, NUL_, "", NUL_, "?"}, URISAN_HOST_NONE},
    {"a?b#c?d#e", {NUL_, NUL_, NUL_, NUL_, "a", "b", "c?d#e"}, URISAN_HOST_NONE},
    {"http://h?q", {"http", NUL_, "h", NUL_, "", "q", NUL_}, URISAN_HOST_REG_NAME},
    {"http://h#@evil", {"http", NUL_, "h", NUL_, "", NUL_, "@evil"}, URISAN_HOST_REG_NAME},
    {"http://1.2.3.4:8/", {"http", NUL_, "1.2.3.4", "8", "/", NUL_, NUL_}, URISAN_HOST_IPV4},
    {"http://1.2.3.256/", {"http", NUL_, "1.2.3.256", NUL_, "/", NUL_, NUL_}, URISAN_HOST_REG_NAME},
    {"http://01.2.3.4/", {"http", NUL_, "01.2.3.4", NUL_, "/", NUL_, NUL_}, URISAN_HOST_REG_NAME},
    {"http:\\\\evil.com", {"http", NUL_, NUL_, NUL_, "\\\\evil.com", NUL_, NUL_}, URISAN_HOST_NONE},
    {"mailto:a@b", {"mailto", NUL_, NUL_, NUL_, "a@b", NUL_, NUL_}, URISAN_HOST_NONE},
    {"//[v7.x]", {NUL_, NUL_, "[v7.x]", NUL_, "", NUL_, NUL_}, URISAN_HOST_IPVFUTURE},
    {"//[fe80::a%25en1]:1", {NUL_, NUL_, "[fe80::a%25en1]", "1", "", NUL_, NUL_},
     URISAN_HOST_IPV6_ZONE},
    /* the host type does not depend on an earlier, unrelated error */
    {"1a://[fe80::a%25en1]", {"1a", NUL_, "[fe80::a%25en1]", NUL_, "", NUL_, NUL_},
     URISAN_HOST_IPV6_ZONE},
    {"1a://[fe80::a%25e n1]", {"1a", NUL_, "[fe80::a%25e n1]", NUL_, "", NUL_, NUL_},
     URISAN_HOST_INVALID},
};

static void expect_span(const char *in, urisan_span s, const char *want, const char *what)
{
    if (want == NULL) {
        ck_assert_msg(!urisan_span_present(s), "%s: %s should be absent", in, what);
        return;
    }
    ck_assert_msg(urisan_span_present(s), "%s: %s should be \"%s\"", in, what, want);
    ck_assert_msg(s.len == strlen(want) && memcmp(in + s.off, want, s.len) == 0,
                  "%s: %s is \"%.*s\", want \"%s\"", in, what, (int)s.len, in + s.off, want);
}

START_TEST(split_gives_each_component_absent_or_empty_as_written)
{
    const scase *c = &splits[_i];
    urisan_uri u;
    urisan_status st = urisan_parse(c->in, strlen(c->in), NULL, &u, NULL);
    ck_assert_int_ne(st, URISAN_E_TOO_LONG);
    static const char *names[7] = {"scheme", "userinfo", "host", "port", "path", "query",
                                   "fragment"};
    urisan_span sp[7] = {u.scheme, u.userinfo, u.host, u.port, u.path, u.query, u.fragment};
    for (int k = 0; k < 7; k++)
        expect_span(c->in, sp[k], c->part[k], names[k]);
    ck_assert_msg(u.host_type == c->type, "%s: host type %d want %d", c->in, u.host_type,
                  c->type);
}
END_TEST

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
    tcase_add_loop_test(tc, each_abnf_rule_accepts_and_rejects_with_code_and_offset, 0,
                        (int)(sizeof rules / sizeof rules[0]));
    tcase_add_loop_test(tc, split_gives_each_component_absent_or_empty_as_written, 0,
                        (int)(sizeof splits / sizeof splits[0]));
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
