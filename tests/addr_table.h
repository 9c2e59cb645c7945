/*
 * addr_table.h - the IANA special-purpose registries as a test table
 * (tests/test_addrclass.c, fuzz/analyze.c): CIDR text and the class the
 * analysis must give, written independently of src/addrclass.c. Longest
 * prefix wins; an address in no row is globally reachable unicast, but
 * IPv6 outside 2000::/3 is reserved.
 */
#ifndef URISAN_ADDR_TABLE_H
#define URISAN_ADDR_TABLE_H

#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "urisan.h"

#define AT_CLASSES (URISAN_F(IP_LOOPBACK) | URISAN_F(IP_PRIVATE) | URISAN_F(IP_LINK_LOCAL) | \
                    URISAN_F(IP_RESERVED) | URISAN_F(IP_MULTICAST) | URISAN_F(IP_BROADCAST))

typedef struct {
    const char *cidr;
    urisan_flags cls; /* 0: globally reachable */
} at_row;

static const at_row at_v4[] = {
    {"0.0.0.0/8", URISAN_F(IP_LOOPBACK)},
    {"10.0.0.0/8", URISAN_F(IP_PRIVATE)},
    {"100.64.0.0/10", URISAN_F(IP_PRIVATE)},
    {"127.0.0.0/8", URISAN_F(IP_LOOPBACK)},
    {"169.254.0.0/16", URISAN_F(IP_LINK_LOCAL)},
    {"172.16.0.0/12", URISAN_F(IP_PRIVATE)},
    {"192.0.0.0/24", URISAN_F(IP_RESERVED)},
    {"192.0.0.9/32", 0},
    {"192.0.0.10/32", 0},
    {"192.0.2.0/24", URISAN_F(IP_RESERVED)},
    {"192.31.196.0/24", 0},
    {"192.52.193.0/24", 0},
    {"192.88.99.0/24", 0},
    {"192.168.0.0/16", URISAN_F(IP_PRIVATE)},
    {"192.175.48.0/24", 0},
    {"198.18.0.0/15", URISAN_F(IP_RESERVED)},
    {"198.51.100.0/24", URISAN_F(IP_RESERVED)},
    {"203.0.113.0/24", URISAN_F(IP_RESERVED)},
    {"224.0.0.0/4", URISAN_F(IP_MULTICAST)},
    {"240.0.0.0/4", URISAN_F(IP_RESERVED)},
    {"255.255.255.255/32", URISAN_F(IP_BROADCAST)},
};

/* Rows judged by their embedded IPv4 (mapped) are not listed: the test
   derives those from at_v4. */
static const at_row at_v6[] = {
    {"::/128", URISAN_F(IP_LOOPBACK)},
    {"::1/128", URISAN_F(IP_LOOPBACK)},
    {"64:ff9b::/96", 0},
    {"64:ff9b:1::/48", URISAN_F(IP_RESERVED)},
    {"100::/64", URISAN_F(IP_RESERVED)},
    {"2000::/3", 0},
    {"2001::/23", URISAN_F(IP_RESERVED)},
    {"2001:1::1/128", 0},
    {"2001:1::2/128", 0},
    {"2001:1::3/128", 0},
    {"2001:2::/48", URISAN_F(IP_RESERVED)},
    {"2001:3::/32", 0},
    {"2001:4:112::/48", 0},
    {"2001:10::/28", URISAN_F(IP_RESERVED)},
    {"2001:20::/28", 0},
    {"2001:30::/28", 0},
    {"2001:db8::/32", URISAN_F(IP_RESERVED)},
    {"2002::/16", 0},
    {"2620:4f:8000::/48", 0},
    {"3fff::/20", URISAN_F(IP_RESERVED)},
    {"5f00::/16", URISAN_F(IP_RESERVED)},
    {"fc00::/7", URISAN_F(IP_PRIVATE)},
    {"fe80::/10", URISAN_F(IP_LINK_LOCAL)},
    {"fec0::/10", URISAN_F(IP_RESERVED)},
    {"ff00::/8", URISAN_F(IP_MULTICAST)},
};

/* CIDR text -> address bytes and prefix length. */
static inline int at_parse(const char *cidr, int v6, uint8_t *a, unsigned *plen)
{
    char buf[64];
    const char *slash = strchr(cidr, '/');
    size_t n = (size_t)(slash - cidr);
    memcpy(buf, cidr, n);
    buf[n] = '\0';
    *plen = (unsigned)atoi(slash + 1);
    return inet_pton(v6 ? AF_INET6 : AF_INET, buf, a) == 1;
}

static inline int at_in(const uint8_t *a, const uint8_t *p, unsigned plen)
{
    for (unsigned bit = 0; bit < plen; bit++) {
        unsigned m = 0x80u >> (bit % 8);
        if ((a[bit / 8] & m) != (p[bit / 8] & m))
            return 0;
    }
    return 1;
}

/* The class of an IPv4 address by the table. */
static inline urisan_flags at_class_v4(const uint8_t a[4])
{
    int best = -1;
    urisan_flags cls = 0;
    for (size_t i = 0; i < sizeof at_v4 / sizeof at_v4[0]; i++) {
        uint8_t p[4];
        unsigned plen;
        at_parse(at_v4[i].cidr, 0, p, &plen);
        if ((int)plen > best && at_in(a, p, plen)) {
            best = (int)plen;
            cls = at_v4[i].cls;
        }
    }
    return cls;
}

/* The class of an IPv6 address by the table, without embedded IPv4
   (IPv4-mapped: the IPv4 address's class). */
static inline urisan_flags at_class_v6(const uint8_t a[16])
{
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (memcmp(a, mapped, 12) == 0)
        return at_class_v4(a + 12);
    int best = -1;
    urisan_flags cls = URISAN_F(IP_RESERVED); /* outside every row: not 2000::/3 */
    for (size_t i = 0; i < sizeof at_v6 / sizeof at_v6[0]; i++) {
        uint8_t p[16];
        unsigned plen;
        at_parse(at_v6[i].cidr, 1, p, &plen);
        if ((int)plen > best && at_in(a, p, plen)) {
            best = (int)plen;
            cls = at_v6[i].cls;
        }
    }
    return cls;
}

#endif
