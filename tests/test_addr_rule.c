/*
 * test_addr_rule.c - the address rule (urisan_judge_addr): one resolved
 * address judged as the IP literal host that is that address is judged -
 * the same classes, deny/flag rules, deny-ip/allow-ip ranges and deny-host
 * address entries - and the IPv4 address an IPv4-mapped, NAT64 or 6to4
 * address carries read as that address.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy_util.h"
#include "urisan.h"

#define CLASS_FLAGS                                                                    \
    (URISAN_F_BIT(IP_LOOPBACK) | URISAN_F_BIT(IP_PRIVATE) | URISAN_F_BIT(IP_LINK_LOCAL) | \
     URISAN_F_BIT(IP_RESERVED) | URISAN_F_BIT(IP_MULTICAST) | URISAN_F_BIT(IP_BROADCAST) | \
     URISAN_F_BIT(IP_EMBEDDED))
#define URISAN_F_BIT(n) ((urisan_flags)1 << URISAN_FLAG_##n)
#define ADDR_RULES                                                                     \
    ((1u << URISAN_REASON_IP_DENIED) | (1u << URISAN_REASON_IP_NOT_ALLOWED) |            \
     (1u << URISAN_REASON_HOST_DENIED))

/* IP literal URIs, every kind of address and spelling */
static const char *const literals[] = {
    "http://127.0.0.1/", "http://127.1/", "http://0x7f000001/", "http://10.0.0.1/",
    "http://10.1.2.3/", "http://172.16.0.1/", "http://192.168.1.1/", "http://100.100.100.200/",
    "http://169.254.169.254/", "http://0xa9fea9fe/", "http://192.0.0.192/", "http://192.0.0.9/",
    "http://192.0.2.1/", "http://198.18.0.1/", "http://224.0.0.1/", "http://240.0.0.1/",
    "http://255.255.255.255/", "http://0.0.0.0/", "http://0/", "http://8.8.8.8/",
    "http://93.184.216.34/", "http://168.63.129.16/", "http://[::1]/", "http://[::]/",
    "http://[::ffff:127.0.0.1]/", "http://[::ffff:a9fe:a9fe]/", "http://[::ffff:8.8.8.8]/",
    "http://[::127.0.0.1]/", "http://[64:ff9b::7f00:1]/", "http://[64:ff9b::a9fe:a9fe]/",
    "http://[64:ff9b::808:808]/", "http://[64:ff9b:1::a00:1]/", "http://[2002:7f00:1::]/",
    "http://[2002:a9fe:a9fe::1]/", "http://[2002:808:808::1]/",
    "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "http://[fe80::1]/", "http://[fc00::1]/",
    "http://[fd00:ec2::254]/", "http://[fec0::1]/", "http://[ff02::1]/", "http://[2001:db8::1]/",
    "http://[2606:4700::1111]/", "http://[100::1]/", "http://[4000::1]/",
};

static const char *const policies[] = {
    "",
    "profile ssrf\n",
    "profile proxy\n",
    "profile mail\n",
    "deny-ip 10.0.0.0/8 127.0.0.0/8 fd00::/8 169.254.169.254\n",
    "allow-ip 8.8.8.0/24 2606:4700::/32 127.0.0.2\n",
    "deny-host 127.0.0.1 ::1 8.8.8.8 example.com\n",
    "deny-host 169.254.169.254 10.0.0.1\nallow-host 8.8.8.8 ::1\n",
    "profile ssrf\nallow ip_loopback\ndeny-ip 127.0.0.66\n",
    "flag ip_private\ndeny ip_link_local\n",
};

/* the address of a literal URI as the analysis reads it */
static urisan_report report_of(const char *uri)
{
    urisan_uri u;
    urisan_report r;
    urisan_parse_analyze(uri, strlen(uri), NULL, &u, NULL, &r);
    ck_assert_msg(r.ip_family == 4 || r.ip_family == 6, "%s: no address", uri);
    return r;
}

/* For every policy and literal: the rule's classes are the analysis's,
   its verdict on them the decision's, its address rules the decision's. */
START_TEST(address_is_judged_as_the_literal_host_that_is_it)
{
    const char *ptext = policies[_i];
    urisan_policy *p = policy_of(ptext);
    for (size_t k = 0; k < sizeof literals / sizeof literals[0]; k++) {
        const char *uri = literals[k];
        urisan_report rep = report_of(uri);
        urisan_decision dec = check(p, uri);
        urisan_addr_decision ad;
        ck_assert_int_eq(urisan_judge_addr(p, rep.ip_family, rep.ip, &ad), URISAN_OK);
        ck_assert_msg(ad.class_flags == (rep.flags & CLASS_FLAGS), "%s [%s]: classes", uri, ptext);
        ck_assert_msg(ad.deny_flags == (dec.deny_flags & CLASS_FLAGS), "%s [%s]: deny %llx %llx",
                      uri, ptext, (unsigned long long)ad.deny_flags,
                      (unsigned long long)dec.deny_flags);
        ck_assert_msg(ad.flag_flags == (dec.flag_flags & CLASS_FLAGS), "%s [%s]: flag", uri, ptext);
        ck_assert_msg(ad.rules == (dec.rules & ADDR_RULES), "%s [%s]: rules %x %x", uri, ptext,
                      ad.rules, dec.rules);
    }
    free(p);
}
END_TEST

typedef struct {
    int family;
    uint8_t a[16];
    urisan_flags deny;   /* under profile ssrf */
} ssrf_case;

#define V4(a, b, c, d) 4, {a, b, c, d}
#define M6(a, b, c, d) 6, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d}
#define N64(a, b, c, d) 6, {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0, a, b, c, d}
#define S6TO4(a, b, c, d) 6, {0x20, 0x02, a, b, c, d, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}

static const ssrf_case ssrf_cases[] = {
    {V4(169, 254, 169, 254), URISAN_F_BIT(IP_LINK_LOCAL)},
    {V4(127, 0, 0, 1), URISAN_F_BIT(IP_LOOPBACK)},
    {V4(10, 0, 0, 1), URISAN_F_BIT(IP_PRIVATE)},
    {V4(93, 184, 216, 34), 0},
    /* the IPv4 address carried is read: its class, with ip_embedded */
    {M6(169, 254, 169, 254), URISAN_F_BIT(IP_LINK_LOCAL) | URISAN_F_BIT(IP_EMBEDDED)},
    {M6(127, 0, 0, 1), URISAN_F_BIT(IP_LOOPBACK) | URISAN_F_BIT(IP_EMBEDDED)},
    {N64(169, 254, 169, 254), URISAN_F_BIT(IP_LINK_LOCAL) | URISAN_F_BIT(IP_EMBEDDED)},
    {N64(10, 0, 0, 1), URISAN_F_BIT(IP_PRIVATE) | URISAN_F_BIT(IP_EMBEDDED)},
    {S6TO4(127, 0, 0, 1), URISAN_F_BIT(IP_LOOPBACK) | URISAN_F_BIT(IP_EMBEDDED)},
    {S6TO4(192, 168, 0, 1), URISAN_F_BIT(IP_PRIVATE) | URISAN_F_BIT(IP_EMBEDDED)},
};

START_TEST(carried_ipv4_is_judged_under_ssrf)
{
    const ssrf_case *c = &ssrf_cases[_i];
    urisan_policy *p = policy_of("profile ssrf\n");
    urisan_addr_decision d;
    ck_assert_int_eq(urisan_judge_addr(p, c->family, c->a, &d), URISAN_OK);
    ck_assert_msg(d.deny_flags == c->deny, "case %d: %llx", _i, (unsigned long long)d.deny_flags);
    ck_assert_int_eq(d.verdict, c->deny != 0 ? URISAN_DENY : URISAN_ALLOW);
    free(p);
}
END_TEST

START_TEST(a_family_other_than_4_or_6_is_denied_as_invalid)
{
    uint8_t a[16] = {0};
    urisan_addr_decision d;
    ck_assert_int_eq(urisan_judge_addr(NULL, 5, a, &d), URISAN_E_BAD_ARGUMENT);
    ck_assert_int_eq(d.verdict, URISAN_DENY);
    ck_assert(d.deny_flags == URISAN_F_BIT(INVALID));
    ck_assert_int_eq(urisan_judge_addr(NULL, 4, NULL, &d), URISAN_E_BAD_ARGUMENT);
    ck_assert_int_eq(d.verdict, URISAN_DENY);
    ck_assert_int_eq(urisan_judge_addr(NULL, 4, a, NULL), URISAN_E_BAD_ARGUMENT);
}
END_TEST

START_TEST(default_policy_reports_internal_addresses_without_denying)
{
    uint8_t a[4] = {169, 254, 169, 254};
    urisan_addr_decision d;
    ck_assert_int_eq(urisan_judge_addr(NULL, 4, a, &d), URISAN_OK);
    ck_assert_int_eq(d.verdict, URISAN_FLAGGED);
    ck_assert(d.flag_flags == URISAN_F_BIT(IP_LINK_LOCAL));
}
END_TEST

/* A deny-host entry that is an IPv4 address also holds every IPv6
   literal carrying it (mapped, compatible, NAT64, 6to4: as deny-ip reads
   them), as a host and nested; an allow-host entry allows the address
   and its IPv4-mapped form only. */
START_TEST(deny_host_address_holds_the_ipv6_literals_that_carry_it)
{
    urisan_policy *p = policy_of("deny-host 127.0.0.1 169.254.169.254\n");
    urisan_policy *a = policy_of("allow-host 127.0.0.1\n");
    static const char *const carried[] = {
        "http://127.0.0.1/", "http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]/",
        "http://[::127.0.0.1]/", "http://[64:ff9b::7f00:1]/", "http://[2002:7f00:1::1]/",
        "http://[::ffff:a9fe:a9fe]/", "http://[64:ff9b::a9fe:a9fe]/", "http://0x7f.1/",
        "https://ok.example/?u=http%3A%2F%2F%5B%3A%3Affff%3Aa9fe%3Aa9fe%5D%2F",
    };
    for (size_t i = 0; i < sizeof carried / sizeof carried[0]; i++) {
        urisan_decision d = check(p, carried[i]);
        ck_assert_msg(d.verdict == URISAN_DENY &&
                          (d.rules & ((1u << URISAN_REASON_HOST_DENIED) |
                                      (1u << URISAN_REASON_NESTED_HOST_DENIED))),
                      "%s: %x", carried[i], d.rules);
    }
    ck_assert(!(check(p, "http://[::ffff:8.8.8.8]/").rules & (1u << URISAN_REASON_HOST_DENIED)));
    /* allow-host: the address and its IPv4-mapped form (a client connects
       to 127.0.0.1), not a form that reaches it through NAT64 or 6to4 */
    ck_assert(!(check(a, "http://127.0.0.1/").rules & (1u << URISAN_REASON_HOST_NOT_ALLOWED)));
    ck_assert(!(check(a, "http://[::ffff:127.0.0.1]/").rules & (1u << URISAN_REASON_HOST_NOT_ALLOWED)));
    ck_assert(!(check(a, "http://[::ffff:7f00:1]/").rules & (1u << URISAN_REASON_HOST_NOT_ALLOWED)));
    ck_assert(check(a, "http://[64:ff9b::7f00:1]/").rules & (1u << URISAN_REASON_HOST_NOT_ALLOWED));
    ck_assert(check(a, "http://[2002:7f00:1::1]/").rules & (1u << URISAN_REASON_HOST_NOT_ALLOWED));
    /* the address rule the same */
    uint8_t m6[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1};
    urisan_addr_decision ad;
    ck_assert_int_eq(urisan_judge_addr(p, 6, m6, &ad), URISAN_OK);
    ck_assert(ad.verdict == URISAN_DENY && (ad.rules & (1u << URISAN_REASON_HOST_DENIED)));
    free(p);
    free(a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("addr_rule");
    TCase *tc = tcase_create("addr_rule");
    tcase_add_loop_test(tc, address_is_judged_as_the_literal_host_that_is_it, 0,
                        (int)(sizeof policies / sizeof policies[0]));
    tcase_add_loop_test(tc, carried_ipv4_is_judged_under_ssrf, 0,
                        (int)(sizeof ssrf_cases / sizeof ssrf_cases[0]));
    tcase_add_test(tc, a_family_other_than_4_or_6_is_denied_as_invalid);
    tcase_add_test(tc, default_policy_reports_internal_addresses_without_denying);
    tcase_add_test(tc, deny_host_address_holds_the_ipv6_literals_that_carry_it);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
