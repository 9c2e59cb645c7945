/*
 * test_addrclass.c - address classes against the registry table of
 * tests/addr_table.h (IANA IPv4/IPv6 Special-Purpose Address Registries,
 * doc/policy.md "Address classes"): every row's first and last address
 * and the addresses just outside it, random addresses, and the IPv4
 * embedded in mapped, compatible, NAT64, 6to4 and Teredo addresses.
 */
#include <arpa/inet.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr_table.h"
#include "urisan.h"

#define F(n) URISAN_F(n)

static urisan_flags flags_of(const char *uri)
{
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    urisan_check(uri, strlen(uri), NULL, &u, &r, &d);
    return r.flags;
}

static urisan_flags class_v4(const uint8_t a[4])
{
    char t[INET_ADDRSTRLEN], uri[64];
    inet_ntop(AF_INET, a, t, sizeof t);
    snprintf(uri, sizeof uri, "http://%s/", t);
    return flags_of(uri) & AT_CLASSES;
}

static urisan_flags flags_v6(const uint8_t a[16])
{
    char t[INET6_ADDRSTRLEN], uri[80];
    inet_ntop(AF_INET6, a, t, sizeof t);
    snprintf(uri, sizeof uri, "http://[%s]/", t);
    return flags_of(uri);
}

/* a := base with host bits all 0 (end 0) or all 1 (end 1); step -1/+1 */
static void edge(uint8_t *a, const uint8_t *p, unsigned plen, size_t n, int end, int step)
{
    memcpy(a, p, n);
    for (unsigned bit = plen; bit < n * 8; bit++) {
        uint8_t m = (uint8_t)(0x80u >> (bit % 8));
        a[bit / 8] = end ? (uint8_t)(a[bit / 8] | m) : (uint8_t)(a[bit / 8] & ~m);
    }
    if (step > 0) {
        for (size_t i = n; i-- > 0;)
            if (++a[i] != 0)
                break;
    } else if (step < 0) {
        for (size_t i = n; i-- > 0;)
            if (a[i]-- != 0)
                break;
    }
}

static int embedding_v6(const uint8_t a[16])
{
    static const uint8_t nat64[12] = {0, 0x64, 0xff, 0x9b};
    static const uint8_t zero[12];
    return memcmp(a, zero, 12) == 0 || memcmp(a, nat64, 4) == 0 ||
           (a[0] == 0x20 && a[1] == 0x02) || (a[0] == 0x20 && a[1] == 0x01 && !a[2] && !a[3]);
}

START_TEST(every_v4_row_edge_matches_the_table)
{
    const at_row *r = &at_v4[_i];
    uint8_t p[4], a[4];
    unsigned plen;
    ck_assert(at_parse(r->cidr, 0, p, &plen));
    for (int end = 0; end < 2; end++)
        for (int step = -1; step <= 1; step++) {
            if ((end == 0 && step > 0) || (end == 1 && step < 0))
                continue;
            edge(a, p, plen, 4, end, step);
            urisan_flags want = at_class_v4(a), got = class_v4(a);
            ck_assert_msg(got == want, "%s edge %d%+d: %u.%u.%u.%u got %#llx want %#llx", r->cidr,
                          end, step, a[0], a[1], a[2], a[3], (unsigned long long)got,
                          (unsigned long long)want);
        }
}
END_TEST

START_TEST(every_v6_row_edge_matches_the_table)
{
    const at_row *r = &at_v6[_i];
    uint8_t p[16], a[16];
    unsigned plen;
    ck_assert(at_parse(r->cidr, 1, p, &plen));
    for (int end = 0; end < 2; end++)
        for (int step = -1; step <= 1; step++) {
            if ((end == 0 && step > 0) || (end == 1 && step < 0))
                continue;
            edge(a, p, plen, 16, end, step);
            if (embedding_v6(a))
                continue; /* judged with their IPv4 below */
            urisan_flags want = at_class_v6(a), got = flags_v6(a) & AT_CLASSES;
            char t[INET6_ADDRSTRLEN];
            inet_ntop(AF_INET6, a, t, sizeof t);
            ck_assert_msg(got == want, "%s edge %d%+d: %s got %#llx want %#llx", r->cidr, end, step,
                          t, (unsigned long long)got, (unsigned long long)want);
        }
}
END_TEST

START_TEST(random_addresses_match_the_table)
{
    srand(13);
    for (int i = 0; i < 20000; i++) {
        uint8_t a[16];
        for (int k = 0; k < 16; k++)
            a[k] = (uint8_t)(rand() >> 7);
        ck_assert_uint_eq(class_v4(a), at_class_v4(a));
        /* half of the IPv6 ones inside 2000::/3, where the rows are */
        if (i & 1)
            a[0] = (uint8_t)(0x20 | (a[0] & 0x1f));
        if (i % 7 == 0) {
            a[0] = 0x20;
            a[1] = 0x01;
            a[2] &= 0x01; /* 2001::/23 */
        }
        if (embedding_v6(a))
            continue;
        ck_assert_uint_eq(flags_v6(a) & AT_CLASSES, at_class_v6(a));
        ck_assert(!(flags_v6(a) & F(IP_EMBEDDED)));
    }
}
END_TEST

typedef struct {
    const char *uri;
    urisan_flags want; /* class flags and ip_embedded */
} ecase;

static const ecase embedded[] = {
    /* mapped: the IPv4 address itself */
    {"http://[::ffff:127.0.0.1]/", F(IP_LOOPBACK) | F(IP_EMBEDDED)},
    {"http://[::ffff:8.8.8.8]/", F(IP_EMBEDDED)},
    {"http://[::ffff:a9fe:a9fe]/", F(IP_LINK_LOCAL) | F(IP_EMBEDDED)},
    /* compatible (deprecated, outside 2000::/3): reserved too */
    {"http://[::127.0.0.1]/", F(IP_LOOPBACK) | F(IP_RESERVED) | F(IP_EMBEDDED)},
    {"http://[::8.8.8.8]/", F(IP_RESERVED) | F(IP_EMBEDDED)},
    {"http://[::]/", F(IP_LOOPBACK)},
    {"http://[::1]/", F(IP_LOOPBACK)},
    /* NAT64 well-known prefix: globally reachable itself */
    {"http://[64:ff9b::10.0.0.1]/", F(IP_PRIVATE) | F(IP_EMBEDDED)},
    {"http://[64:ff9b::8.8.8.8]/", F(IP_EMBEDDED)},
    {"http://[64:ff9b:1::a9fe:a9fe]/", F(IP_RESERVED) | F(IP_LINK_LOCAL) | F(IP_EMBEDDED)},
    /* 6to4 around 127.0.0.1 and 192.168.1.1 */
    {"http://[2002:7f00:1::]/", F(IP_LOOPBACK) | F(IP_EMBEDDED)},
    {"http://[2002:c0a8:101::1]/", F(IP_PRIVATE) | F(IP_EMBEDDED)},
    {"http://[2002:808:808::1]/", F(IP_EMBEDDED)},
    /* Teredo: server 65.54.227.120, client ~7f00:0001 = 127.0.0.1 */
    {"http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", F(IP_RESERVED) | F(IP_LOOPBACK) | F(IP_EMBEDDED)},
    /* server 10.0.0.1, client ~f7f7:f7f7 = 8.8.8.8 */
    {"http://[2001:0:a00:1::f7f7:f7f7]/", F(IP_RESERVED) | F(IP_PRIVATE) | F(IP_EMBEDDED)},
    /* de-obfuscated IPv4 is judged like any */
    {"http://0xa9fea9fe/", F(IP_LINK_LOCAL)},
    {"http://0300.0250.1.1/", F(IP_PRIVATE)},
};

START_TEST(embedded_ipv4_is_judged)
{
    const ecase *c = &embedded[_i];
    urisan_flags got = flags_of(c->uri) & (AT_CLASSES | F(IP_EMBEDDED));
    ck_assert_msg(got == c->want, "%s: got %#llx want %#llx", c->uri, (unsigned long long)got,
                  (unsigned long long)c->want);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("addrclass");
    TCase *t = tcase_create("registry");
    tcase_add_loop_test(t, every_v4_row_edge_matches_the_table, 0, sizeof at_v4 / sizeof at_v4[0]);
    tcase_add_loop_test(t, every_v6_row_edge_matches_the_table, 0, sizeof at_v6 / sizeof at_v6[0]);
    tcase_add_test(t, random_addresses_match_the_table);
    tcase_add_loop_test(t, embedded_ipv4_is_judged, 0, sizeof embedded / sizeof embedded[0]);
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
