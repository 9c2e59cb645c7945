/* test_ipv6.c - every RFC 3986 IPv6address form, invalid ones, IPv4 dec-octets. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "urisan.h"

typedef struct {
    const char *text;   /* inside the brackets */
    int valid;
    uint8_t ip[16];
} v6case;

#define Z16 {0}
static const v6case v6[] = {
    /*                       6( h16 ":" ) ls32 */
    {"1:2:3:4:5:6:7:8", 1, {0,1,0,2,0,3,0,4,0,5,0,6,0,7,0,8}},
    {"1:2:3:4:5:6:1.2.3.4", 1, {0,1,0,2,0,3,0,4,0,5,0,6,1,2,3,4}},
    /*                  "::" 5( h16 ":" ) ls32 */
    {"::2:3:4:5:6:7:8", 1, {0,0,0,2,0,3,0,4,0,5,0,6,0,7,0,8}},
    {"::3:4:5:6:1.2.3.4", 1, {0,0,0,0,0,3,0,4,0,5,0,6,1,2,3,4}},
    /* [               h16 ] "::" 4( h16 ":" ) ls32 */
    {"1::3:4:5:6:7:8", 1, {0,1,0,0,0,3,0,4,0,5,0,6,0,7,0,8}},
    /* [ *1( h16 ":" ) h16 ] "::" 3( h16 ":" ) ls32 */
    {"1:2::4:5:6:7:8", 1, {0,1,0,2,0,0,0,4,0,5,0,6,0,7,0,8}},
    /* [ *2( h16 ":" ) h16 ] "::" 2( h16 ":" ) ls32 */
    {"1:2:3::5:6:7:8", 1, {0,1,0,2,0,3,0,0,0,5,0,6,0,7,0,8}},
    /* [ *3( h16 ":" ) h16 ] "::"    h16 ":"   ls32 */
    {"1:2:3:4::6:7:8", 1, {0,1,0,2,0,3,0,4,0,0,0,6,0,7,0,8}},
    /* [ *4( h16 ":" ) h16 ] "::"              ls32 */
    {"1:2:3:4:5::7:8", 1, {0,1,0,2,0,3,0,4,0,5,0,0,0,7,0,8}},
    {"1:2:3:4:5::1.2.3.4", 1, {0,1,0,2,0,3,0,4,0,5,0,0,1,2,3,4}},
    {"1:2:3:4:5:6::1.2.3.4", 0, Z16}, /* "::" would stand for no piece */
    {"1:2:3:4::1.2.3.4", 1, {0,1,0,2,0,3,0,4,0,0,0,0,1,2,3,4}},
    /* [ *5( h16 ":" ) h16 ] "::"              h16 */
    {"1:2:3:4:5:6::8", 1, {0,1,0,2,0,3,0,4,0,5,0,6,0,0,0,8}},
    /* [ *6( h16 ":" ) h16 ] "::" */
    {"1:2:3:4:5:6:7::", 1, {0,1,0,2,0,3,0,4,0,5,0,6,0,7,0,0}},
    {"::", 1, Z16},
    {"::1", 1, {0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1}},
    {"1::", 1, {0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0}},
    {"::ffff:127.0.0.1", 1, {0,0,0,0,0,0,0,0,0,0,0xff,0xff,127,0,0,1}},
    {"::1.1.1.100", 1, {0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,100}},
    {"FFFF:abcd::0", 1, {0xff,0xff,0xab,0xcd,0,0,0,0,0,0,0,0,0,0,0,0}},
    {"0000:0000::0001", 1, {0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1}},
    /* invalid */
    {"0:0:0:0:0:0:0::1", 0, Z16},  /* "::" must stand for at least one piece */
    {":1::1:", 0, Z16},
    {":1::1", 0, Z16},
    {"1::1:", 0, Z16},
    {"1:2:3:4:5:6:7", 0, Z16},
    {"1:2:3:4:5:6:7:8:9", 0, Z16},
    {"1::2::3", 0, Z16},
    {":::", 0, Z16},
    {"1:::2", 0, Z16},
    {"12345::", 0, Z16},
    {"g::", 0, Z16},
    {"::1.2.3", 0, Z16},
    {"::1.2.3.4.5", 0, Z16},
    {"::01.2.3.4", 0, Z16},
    {"::256.2.3.4", 0, Z16},
    {"::1.2.3.4:1", 0, Z16},
    {"1.2.3.4::", 0, Z16},
    {"::ffff:1a.2.3.4", 0, Z16},
    {"1:2:3:4:5:6:7:1.2.3.4", 0, Z16},
    {"", 0, Z16},
    {" ::1", 0, Z16},
};

START_TEST(ipv6_forms_are_accepted_decoded_or_rejected)
{
    const v6case *c = &v6[_i];
    char buf[128];
    int n = snprintf(buf, sizeof buf, "//[%s]", c->text);
    urisan_uri u;
    urisan_status st = urisan_parse(buf, (size_t)n, NULL, &u, NULL);
    if (c->valid) {
        ck_assert_msg(st == URISAN_OK, "%s: %s", buf, urisan_status_name(st));
        ck_assert_int_eq(u.host_type, URISAN_HOST_IPV6);
        ck_assert_mem_eq(u.ip, c->ip, 16);
    } else {
        ck_assert_msg(st != URISAN_OK, "%s accepted", buf);
        ck_assert_int_eq(u.host_type, URISAN_HOST_INVALID);
        ck_assert_uint_ge(u.error.offset, 3);
        ck_assert_uint_le(u.error.offset, (size_t)n);
    }
}
END_TEST

typedef struct {
    const char *host;
    int ipv4;  /* 1: typed ipv4 (strict dotted-decimal); 0: reg-name */
} v4case;

static const v4case v4[] = {
    {"0.0.0.0", 1}, {"9.9.9.9", 1}, {"10.99.100.199", 1}, {"200.249.250.255", 1},
    {"255.255.255.255", 1},
    {"256.1.1.1", 0}, {"1.1.1.260", 0}, {"01.1.1.1", 0}, {"1.1.1.00", 0},
    {"1.1.1", 0}, {"1.1.1.1.1", 0}, {"1..1.1", 0}, {"1.1.1.1.", 0}, {"0x7f.0.0.1", 0},
    {"2130706433", 0}, {"1.1.1.1a", 0}, {"300.1.1.1", 0}, {"1000.1.1.1", 0},
};

START_TEST(ipv4_dec_octet_edges_decide_the_host_type)
{
    const v4case *c = &v4[_i];
    char buf[64];
    int n = snprintf(buf, sizeof buf, "//%s", c->host);
    urisan_uri u;
    urisan_status st = urisan_parse(buf, (size_t)n, NULL, &u, NULL);
    /* every one of these is at least a valid reg-name */
    ck_assert_msg(st == URISAN_OK, "%s: %s", buf, urisan_status_name(st));
    ck_assert_msg(u.host_type == (c->ipv4 ? URISAN_HOST_IPV4 : URISAN_HOST_REG_NAME),
                  "%s: type %d", buf, u.host_type);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ipv6");
    TCase *tc = tcase_create("hosts");
    tcase_add_loop_test(tc, ipv6_forms_are_accepted_decoded_or_rejected, 0,
                        (int)(sizeof v6 / sizeof v6[0]));
    tcase_add_loop_test(tc, ipv4_dec_octet_edges_decide_the_host_type, 0,
                        (int)(sizeof v4 / sizeof v4[0]));
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
