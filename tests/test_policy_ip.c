/*
 * test_policy_ip.c - address rules (doc/policy.md "Address
 * rules"): `deny-ip` / `allow-ip` with IPv4 and IPv6 CIDR ranges, matched
 * against the de-obfuscated address and every IPv4 address an IPv6
 * address carries; every mistake with its line, column and word; the
 * capacity; the policy written back and parsed again.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "policy_util.h"
#include "risk.h"
#include "urisan.h"

#define DENIED (1u << URISAN_REASON_IP_DENIED)
#define NOT_ALLOWED (1u << URISAN_REASON_IP_NOT_ALLOWED)

/* ---------------------------------------------------------------------- */
/* Matching                                                                */
/* ---------------------------------------------------------------------- */

typedef struct {
    const char *uri;
    unsigned rules; /* the address-rule bits of the decision */
} ip_case;

/* deny-ip 10.0.0.0/8 127.0.0.0/8 fd00::/8 169.254.169.254 */
static const ip_case deny_cases[] = {
    {"http://10.1.2.3/", DENIED},
    {"http://9.255.255.255/", 0},              /* just below the range */
    {"http://11.0.0.0/", 0},                   /* just above */
    {"http://0xa.1/", DENIED},                 /* de-obfuscated: 10.0.0.1 */
    {"http://167772161/", DENIED},             /* 10.0.0.1 as one number */
    {"http://012.0.0.1/", DENIED},             /* octal 10.0.0.1 */
    {"http://127.1/", DENIED},
    {"http://0x7f000001/", DENIED},
    {"http://169.254.169.254/latest/meta-data/", DENIED},
    {"http://169.254.169.253/", 0},            /* a /32: exactly that one */
    {"http://[fd00::1]/", DENIED},
    {"http://[fd12:3456::1]/", DENIED},
    {"http://[fc00::1]/", 0},                  /* fc00::/8 is not fd00::/8 */
    {"http://[fe80::1%25eth0]/", 0},
    {"http://[::ffff:10.0.0.1]/", DENIED},     /* IPv4-mapped */
    {"http://[::ffff:a00:1]/", DENIED},        /* the same, hex */
    {"http://[::10.0.0.1]/", DENIED},          /* IPv4-compatible */
    {"http://[64:ff9b::10.0.0.1]/", DENIED},   /* NAT64 well-known prefix */
    {"http://[64:ff9b:1::a00:1]/", DENIED},    /* local-use NAT64 /48 */
    {"http://[2002:a00:1::]/", DENIED},        /* 6to4 around 10.0.0.1 */
    {"http://[2002:7f00:1::]/", DENIED},       /* 6to4 around 127.0.0.1 */
    {"http://[2001:0:a00:1::]/", DENIED},      /* Teredo server 10.0.0.1 */
    /* Teredo client 10.0.0.1 stored inverted (f5ff:fffe), RFC 4380 4 */
    {"http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/", DENIED},
    {"http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", 0}, /* client 192.0.2.45 */
    {"http://[2001:db8::a00:1]/", 0},          /* carries no IPv4 */
    {"http://[::1]/", 0},                      /* no IPv6 rule names it */
    {"http://example.com/", 0},
    {"http://10.0.0.1.nip.io/", 0},            /* a name: deny-host's business */
    {"mailto:a@b", 0},
    {"/relative", 0},
};

START_TEST(deny_ip_matches_the_address_and_every_embedded_ipv4)
{
    urisan_policy *p = policy_of("deny-ip 10.0.0.0/8 127.0.0.0/8\ndeny-ip fd00::/8 169.254.169.254\n");
    const ip_case *c = &deny_cases[_i];
    urisan_decision d = check(p, c->uri);
    ck_assert_msg((d.rules & (DENIED | NOT_ALLOWED)) == c->rules, "%s: rules %x, want %x", c->uri,
                  d.rules, c->rules);
    if (c->rules != 0)
        ck_assert_int_eq(d.verdict, URISAN_DENY);
    free(p);
}
END_TEST

/* allow-ip 192.168.1.0/24 2001:db8::/32 ::ffff:0:0/96 */
static const ip_case allow_cases[] = {
    {"http://192.168.1.7/", 0},
    {"http://192.168.1.255/", 0},
    {"http://192.168.2.0/", NOT_ALLOWED},
    {"http://0xc0.0xa8.1.7/", 0},              /* de-obfuscated: 192.168.1.7 */
    {"http://8.8.8.8/", NOT_ALLOWED},
    {"http://[2001:db8::1]/", 0},
    {"http://[2001:db9::1]/", NOT_ALLOWED},
    {"http://[::ffff:192.168.1.7]/", 0},       /* both the /96 and the IPv4 allowed */
    {"http://[::ffff:8.8.8.8]/", NOT_ALLOWED}, /* the IPv4 it carries is not */
    {"http://[64:ff9b::192.168.1.7]/", NOT_ALLOWED}, /* 64:ff9b::/96 not allowed */
    {"http://[v1.x]/", NOT_ALLOWED},           /* an address that cannot be read */
    {"http://example.com/", 0},                /* names: not judged by allow-ip */
    {"http://localhost/", 0},
    {"mailto:a@b", 0},
};

START_TEST(allow_ip_requires_every_address_the_host_carries_in_a_range)
{
    urisan_policy *p = policy_of("allow-ip 192.168.1.0/24 2001:db8::/32 ::ffff:0:0/96\n");
    const ip_case *c = &allow_cases[_i];
    urisan_decision d = check(p, c->uri);
    ck_assert_msg((d.rules & (DENIED | NOT_ALLOWED)) == c->rules, "%s: rules %x, want %x", c->uri,
                  d.rules, c->rules);
    free(p);
}
END_TEST

START_TEST(deny_ip_wins_over_allow_ip_as_deny_host_over_allow_host)
{
    urisan_policy *p = policy_of("allow-ip 10.0.0.0/8\ndeny-ip 10.0.0.0/24\n");
    ck_assert_uint_eq(check(p, "http://10.0.0.5/").rules, DENIED);
    ck_assert_uint_eq(check(p, "http://10.0.1.5/").rules, 0);
    ck_assert_uint_eq(check(p, "http://11.0.1.5/").rules, NOT_ALLOWED);
    free(p);
    /* the order of the lines does not matter */
    p = policy_of("deny-ip 10.0.0.0/24\nallow-ip 10.0.0.0/8\n");
    ck_assert_uint_eq(check(p, "http://10.0.0.5/").rules, DENIED);
    free(p);
}
END_TEST

START_TEST(families_never_cross_and_slash_zero_is_every_address_of_one)
{
    urisan_policy *p = policy_of("deny-ip 0.0.0.0/0\n");
    ck_assert_uint_eq(check(p, "http://1.2.3.4/").rules, DENIED);
    ck_assert_uint_eq(check(p, "http://[2001:db8::1]/").rules, 0);
    ck_assert_uint_eq(check(p, "http://[::ffff:1.2.3.4]/").rules, DENIED); /* carries IPv4 */
    free(p);
    p = policy_of("deny-ip ::/0\n");
    ck_assert_uint_eq(check(p, "http://1.2.3.4/").rules, 0);
    ck_assert_uint_eq(check(p, "http://[2001:db8::1]/").rules, DENIED);
    free(p);
    p = policy_of("deny-ip ::ffff:0:0/96\n"); /* only the IPv6 spelling */
    ck_assert_uint_eq(check(p, "http://[::ffff:1.2.3.4]/").rules, DENIED);
    ck_assert_uint_eq(check(p, "http://1.2.3.4/").rules, 0);
    free(p);
    /* bare addresses are /32 and /128; brackets around IPv6 are allowed */
    p = policy_of("deny-ip 1.2.3.4 [::1] [fe80::]/10 ::ffff:10.0.0.0/104\n");
    ck_assert_uint_eq(check(p, "http://1.2.3.4/").rules, DENIED);
    ck_assert_uint_eq(check(p, "http://1.2.3.5/").rules, 0);
    ck_assert_uint_eq(check(p, "http://[0:0::1]/").rules, DENIED);
    ck_assert_uint_eq(check(p, "http://[::2]/").rules, 0);
    ck_assert_uint_eq(check(p, "http://[febf:ffff::1]/").rules, DENIED);
    ck_assert_uint_eq(check(p, "http://[fec0::1]/").rules, 0);
    ck_assert_uint_eq(check(p, "http://[::ffff:10.9.9.9]/").rules, DENIED);
    free(p);
    /* odd prefix lengths cut inside a byte */
    p = policy_of("deny-ip 100.64.0.0/10 2001:db8:8000::/33\n");
    ck_assert_uint_eq(check(p, "http://100.127.255.255/").rules, DENIED);
    ck_assert_uint_eq(check(p, "http://100.128.0.0/").rules, 0);
    ck_assert_uint_eq(check(p, "http://100.63.255.255/").rules, 0);
    ck_assert_uint_eq(check(p, "http://[2001:db8:8000::1]/").rules, DENIED);
    ck_assert_uint_eq(check(p, "http://[2001:db8:7fff::1]/").rules, 0);
    free(p);
}
END_TEST

START_TEST(a_policy_without_address_rules_gives_no_address_reason)
{
    urisan_policy *p = new_policy();
    const char *uris[] = {"http://10.0.0.1/", "http://[::1]/", "http://0x7f.1/"};
    for (size_t i = 0; i < sizeof uris / sizeof uris[0]; i++)
        ck_assert_uint_eq(check(p, uris[i]).rules & (DENIED | NOT_ALLOWED), 0);
    free(p);
}
END_TEST

START_TEST(the_reasons_have_names)
{
    ck_assert_str_eq(urisan_rule_reason_name(URISAN_REASON_IP_DENIED), "ip_denied");
    ck_assert_str_eq(urisan_rule_reason_name(URISAN_REASON_IP_NOT_ALLOWED), "ip_not_allowed");
    urisan_policy *p = policy_of("deny-ip 10.0.0.0/8\nallow-ip 192.0.2.0/24\n");
    urisan_decision d = check(p, "http://u:p@10.0.0.1/");
    char buf[256];
    size_t n = 0;
    ck_assert_int_eq(urisan_decision_format(&d, buf, sizeof buf - 1, &n), URISAN_OK);
    buf[n] = '\0';
    ck_assert_str_eq(buf, "denied:password,ip_denied,ip_not_allowed;flagged:userinfo,ip_literal,"
                          "ip_private");
    free(p);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Mistakes                                                                */
/* ---------------------------------------------------------------------- */

static const mistake mistakes[] = {
    {"deny-ip 10.0.0.0/8\n\ndeny-ip 10.0.0.0/33\n", 3, 9, "10.0.0.0/33", "0-32"},
    {"allow-ip fd00::/129\n", 1, 10, "fd00::/129", "0-128"},
    {"deny-ip 10.0.0.1/8\n", 1, 9, "10.0.0.1/8", "host bits"},
    {"deny-ip fd00::1/8\n", 1, 9, "fd00::1/8", "host bits"},
    {"deny-ip 10.0.0.0/08\n", 1, 9, "10.0.0.0/08", "prefix length"},
    {"deny-ip 10.0.0.0/\n", 1, 9, "10.0.0.0/", "prefix length"},
    {"deny-ip 10.0.0.0/-1\n", 1, 9, "10.0.0.0/-1", "prefix length"},
    {"deny-ip 10.0.0.0/8/8\n", 1, 9, "10.0.0.0/8/8", "prefix length"},
    {"deny-ip /8\n", 1, 9, "/8", "invalid address range"},
    {"deny-ip 010.0.0.0/8\n", 1, 9, "010.0.0.0/8", "leading zeros"},
    {"deny-ip 0x7f.1\n", 1, 9, "0x7f.1", "four decimal numbers"},
    {"deny-ip 2130706433\n", 1, 9, "2130706433", "four decimal numbers"},
    {"deny-ip 10.0.0\n", 1, 9, "10.0.0", "four decimal numbers"},
    {"deny-ip 256.0.0.0/8\n", 1, 9, "256.0.0.0/8", "four decimal numbers"},
    {"deny-ip evil.com\n", 1, 9, "evil.com", "deny-host"},
    {"deny-ip localhost\n", 1, 9, "localhost", "deny-host"},
    {"deny-ip fe80::1%eth0\n", 1, 9, "fe80::1%eth0", "zone id"},
    {"deny-ip [fe80::%25eth0]/10\n", 1, 9, "[fe80::%25eth0]/10", "zone id"},
    {"deny-ip fd00::g/8\n", 1, 9, "fd00::g/8", "IPv6"},
    {"deny-ip [10.0.0.0]/8\n", 1, 9, "[10.0.0.0]/8", "brackets"},
    {"deny-ip [fd00::/8]\n", 1, 9, "[fd00::/8]", "IPv6"},
    {"deny-ip 10.0.0.0/8:80\n", 1, 9, "10.0.0.0/8:80", "prefix length"},
    {"deny-ip\n", 1, 1, "deny-ip", "missing argument"},
    {"allow-ip\n", 1, 1, "allow-ip", "missing argument"},
    {"deny-ips 10.0.0.0/8\n", 1, 1, "deny-ips", "unknown directive"},
    {"deny-ip 10.0.0.0/8 \xef\xbc\x91.0.0.0/8\n", 1, 20, "\xef", "non-ASCII"},
};

START_TEST(every_address_mistake_names_line_column_and_word)
{
    check_mistake(&mistakes[_i]);
}
END_TEST

/* URISAN_POLICY_MAX_IP_RANGES of each list fit; one more is an error on
   the word that does not fit, never a silent drop. */
START_TEST(too_many_ranges_is_an_error_at_the_first_that_does_not_fit)
{
    const char *dirs[] = {"deny-ip", "allow-ip"};
    for (size_t d = 0; d < 2; d++) {
        size_t cap = (URISAN_POLICY_MAX_IP_RANGES + 1) * 32;
        char *text = malloc(cap);
        size_t n = 0;
        for (unsigned i = 0; i <= URISAN_POLICY_MAX_IP_RANGES; i++)
            n += (size_t)snprintf(text + n, cap - n, "%s 10.%u.%u.0/24\n", dirs[d], i >> 8,
                                  i & 255);
        urisan_policy *p = new_policy();
        urisan_policy_error e;
        /* all but the last line: fine */
        size_t upto = n - strlen(dirs[d]) - strlen(" 10.4.0.0/24\n");
        ck_assert_int_eq(urisan_policy_parse_ex(p, text, upto, &e), URISAN_OK);
        urisan_policy_init(p);
        ck_assert_int_eq(urisan_policy_parse_ex(p, text, n, &e), URISAN_E_BAD_POLICY);
        ck_assert_uint_eq(e.line, URISAN_POLICY_MAX_IP_RANGES + 1);
        ck_assert_msg(strstr(e.msg, "too many") != NULL && strstr(e.msg, dirs[d]) != NULL, "%s",
                      e.msg);
        ck_assert_uint_eq(e.column, strlen(dirs[d]) + 2);
        free(p);
        free(text);
    }
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Written back                                                            */
/* ---------------------------------------------------------------------- */

START_TEST(ranges_are_written_back_and_parse_to_the_same_policy)
{
    const char *text = "deny-ip 10.0.0.0/8 [::1] 0:0:0:0:0:ffff:a00:0/104 FD00::/8\n"
                       "allow-ip 192.0.2.1 2001:DB8::/32 0.0.0.0/0 ::/0\n";
    urisan_policy *p = policy_of(text);
    size_t n = 0;
    ck_assert_int_eq(urisan_policy_format(p, NULL, 0, &n), URISAN_E_NOSPACE);
    char *buf = malloc(n + 1);
    ck_assert_int_eq(urisan_policy_format(p, buf, n, &n), URISAN_OK);
    buf[n] = '\0';
    ck_assert_ptr_nonnull(strstr(buf, "deny-ip 10.0.0.0/8\ndeny-ip ::1/128\n"
                                      "deny-ip ::ffff:10.0.0.0/104\ndeny-ip fd00::/8\n"
                                      "allow-ip 192.0.2.1/32\nallow-ip 2001:db8::/32\n"
                                      "allow-ip 0.0.0.0/0\nallow-ip ::/0\n"));
    urisan_policy *q = policy_of(buf);
    ck_assert_msg(memcmp(p, q, POL_RULES_SIZE) == 0, "%s", buf);
    free(buf);
    free(p);
    free(q);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("policy_ip");
    TCase *t = tcase_create("match");
    tcase_add_loop_test(t, deny_ip_matches_the_address_and_every_embedded_ipv4, 0,
                        sizeof deny_cases / sizeof deny_cases[0]);
    tcase_add_loop_test(t, allow_ip_requires_every_address_the_host_carries_in_a_range, 0,
                        sizeof allow_cases / sizeof allow_cases[0]);
    tcase_add_test(t, deny_ip_wins_over_allow_ip_as_deny_host_over_allow_host);
    tcase_add_test(t, families_never_cross_and_slash_zero_is_every_address_of_one);
    tcase_add_test(t, a_policy_without_address_rules_gives_no_address_reason);
    tcase_add_test(t, the_reasons_have_names);
    suite_add_tcase(s, t);
    t = tcase_create("grammar");
    tcase_add_loop_test(t, every_address_mistake_names_line_column_and_word, 0,
                        sizeof mistakes / sizeof mistakes[0]);
    tcase_add_test(t, too_many_ranges_is_an_error_at_the_first_that_does_not_fit);
    tcase_add_test(t, ranges_are_written_back_and_parse_to_the_same_policy);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
