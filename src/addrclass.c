/*
 * addrclass.c - where an address goes (doc/policy.md "Address classes"):
 * the IANA IPv4 and IPv6 Special-Purpose Address Registries, read by their
 * "Globally Reachable" column, plus multicast, limited broadcast, the
 * deprecated site-local fec0::/10 and IPv6 space outside 2000::/3; and the
 * IPv4 address that an IPv6 address carries (mapped, compatible, NAT64,
 * 6to4, Teredo).
 *
 * The tables follow the registries as last updated 2024-10-22 (IPv6) and
 * 2022-05-25 (IPv4); doc/policy.md "Address classes" lists every row.
 * Longest prefix wins, so an exception row (192.0.0.9/32, globally
 * reachable inside the non-global 192.0.0.0/24) overrides its block.
 */
#include "risk.h"

#include <string.h>

enum {
    AC_GLOBAL = 0,
    AC_LOOPBACK,    /* ip_loopback (with the unspecified address, 0/8) */
    AC_PRIVATE,     /* ip_private */
    AC_LINK_LOCAL,  /* ip_link_local */
    AC_RESERVED,    /* ip_reserved: special purpose, not globally reachable */
    AC_MULTICAST,   /* ip_multicast */
    AC_BROADCAST    /* ip_broadcast */
};

static const urisan_flags class_flag[] = {
    0,
    URISAN_F(IP_LOOPBACK),
    URISAN_F(IP_PRIVATE),
    URISAN_F(IP_LINK_LOCAL),
    URISAN_F(IP_RESERVED),
    URISAN_F(IP_MULTICAST),
    URISAN_F(IP_BROADCAST),
};

typedef struct {
    uint8_t a[4];
    uint8_t plen;
    uint8_t cls;
} v4_row;

/* IANA IPv4 Special-Purpose Address Registry; 224/4 from the multicast
   address space registry. Rows that are globally reachable are listed
   only where they carve an exception out of a non-global block. */
static const v4_row v4_table[] = {
    {{0, 0, 0, 0}, 8, AC_LOOPBACK},         /* "this network" (RFC 791) */
    {{10, 0, 0, 0}, 8, AC_PRIVATE},         /* RFC 1918 */
    {{100, 64, 0, 0}, 10, AC_PRIVATE},      /* shared address space, RFC 6598 */
    {{127, 0, 0, 0}, 8, AC_LOOPBACK},       /* RFC 1122 */
    {{169, 254, 0, 0}, 16, AC_LINK_LOCAL},  /* RFC 3927 */
    {{172, 16, 0, 0}, 12, AC_PRIVATE},      /* RFC 1918 */
    {{192, 0, 0, 0}, 24, AC_RESERVED},      /* IETF protocol assignments, RFC 6890 */
    {{192, 0, 0, 9}, 32, AC_GLOBAL},        /* PCP anycast, RFC 7723 */
    {{192, 0, 0, 10}, 32, AC_GLOBAL},       /* TURN anycast, RFC 8155 */
    {{192, 0, 2, 0}, 24, AC_RESERVED},      /* TEST-NET-1, RFC 5737 */
    {{192, 168, 0, 0}, 16, AC_PRIVATE},     /* RFC 1918 */
    {{198, 18, 0, 0}, 15, AC_RESERVED},     /* benchmarking, RFC 2544 */
    {{198, 51, 100, 0}, 24, AC_RESERVED},   /* TEST-NET-2, RFC 5737 */
    {{203, 0, 113, 0}, 24, AC_RESERVED},    /* TEST-NET-3, RFC 5737 */
    {{224, 0, 0, 0}, 4, AC_MULTICAST},      /* RFC 5771 */
    {{240, 0, 0, 0}, 4, AC_RESERVED},       /* RFC 1112 */
    {{255, 255, 255, 255}, 32, AC_BROADCAST}, /* limited broadcast, RFC 919 */
};

typedef struct {
    uint8_t a[16];
    uint8_t plen;
    uint8_t cls;
} v6_row;

#define V6(b0, b1, b2, b3, b4, b5, b6, b7) \
    {(b0) >> 8, (b0) & 0xff, (b1) >> 8, (b1) & 0xff, (b2) >> 8, (b2) & 0xff, (b3) >> 8, \
     (b3) & 0xff, (b4) >> 8, (b4) & 0xff, (b5) >> 8, (b5) & 0xff, (b6) >> 8, (b6) & 0xff, \
     (b7) >> 8, (b7) & 0xff}

/* IANA IPv6 Special-Purpose Address Registry (non-global rows and the
   global exceptions inside them), fec0::/10 (deprecated site-local, RFC
   3879) and ff00::/8 (multicast). Outside 2000::/3 every address that no
   row names is reserved (IANA IPv6 Address Space: "Reserved by IETF").
   ::/96, ::ffff:0:0/96 and the translation prefixes are judged by the
   IPv4 address they carry (urisan_addr_embedded), as well. */
static const v6_row v6_table[] = {
    {V6(0, 0, 0, 0, 0, 0, 0, 0), 128, AC_LOOPBACK},        /* unspecified */
    {V6(0, 0, 0, 0, 0, 0, 0, 1), 128, AC_LOOPBACK},        /* RFC 4291 */
    {V6(0x64, 0xff9b, 0, 0, 0, 0, 0, 0), 96, AC_GLOBAL},   /* NAT64, RFC 6052 */
    {V6(0x64, 0xff9b, 1, 0, 0, 0, 0, 0), 48, AC_RESERVED}, /* local NAT64, RFC 8215 */
    {V6(0x100, 0, 0, 0, 0, 0, 0, 0), 64, AC_RESERVED},     /* discard-only, RFC 6666 */
    {V6(0x2001, 0, 0, 0, 0, 0, 0, 0), 23, AC_RESERVED},    /* IETF protocol assignments */
    {V6(0x2001, 1, 0, 0, 0, 0, 0, 1), 128, AC_GLOBAL},     /* PCP anycast */
    {V6(0x2001, 1, 0, 0, 0, 0, 0, 2), 128, AC_GLOBAL},     /* TURN anycast */
    {V6(0x2001, 1, 0, 0, 0, 0, 0, 3), 128, AC_GLOBAL},     /* DNS-SD SRP anycast */
    {V6(0x2001, 3, 0, 0, 0, 0, 0, 0), 32, AC_GLOBAL},      /* AMT, RFC 7450 */
    {V6(0x2001, 4, 0x112, 0, 0, 0, 0, 0), 48, AC_GLOBAL},  /* AS112-v6, RFC 7535 */
    {V6(0x2001, 0x20, 0, 0, 0, 0, 0, 0), 28, AC_GLOBAL},   /* ORCHIDv2, RFC 7343 */
    {V6(0x2001, 0x30, 0, 0, 0, 0, 0, 0), 28, AC_GLOBAL},   /* DETs, RFC 9374 */
    {V6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), 32, AC_RESERVED}, /* documentation, RFC 3849 */
    {V6(0x3fff, 0, 0, 0, 0, 0, 0, 0), 20, AC_RESERVED},    /* documentation, RFC 9637 */
    {V6(0x5f00, 0, 0, 0, 0, 0, 0, 0), 16, AC_RESERVED},    /* SRv6 SIDs, RFC 9602 */
    {V6(0xfc00, 0, 0, 0, 0, 0, 0, 0), 7, AC_PRIVATE},      /* unique local, RFC 4193 */
    {V6(0xfe80, 0, 0, 0, 0, 0, 0, 0), 10, AC_LINK_LOCAL},  /* RFC 4291 */
    {V6(0xfec0, 0, 0, 0, 0, 0, 0, 0), 10, AC_RESERVED},    /* site-local, RFC 3879 */
    {V6(0xff00, 0, 0, 0, 0, 0, 0, 0), 8, AC_MULTICAST},    /* RFC 4291 */
};

static uint64_t be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

/* the first plen bits of x and p agree (x, p: 64-bit big-endian halves) */
static bool prefix64(uint64_t x, uint64_t p, unsigned plen)
{
    return plen == 0 || ((x ^ p) >> (64 - plen)) == 0;
}

urisan_flags urisan_addr_class_v4(const uint8_t a[4])
{
    int best = -1, cls = AC_GLOBAL;
    uint64_t x = (uint64_t)a[0] << 56 | (uint64_t)a[1] << 48 | (uint64_t)a[2] << 40 |
                 (uint64_t)a[3] << 32;
    for (size_t i = 0; i < sizeof v4_table / sizeof v4_table[0]; i++) {
        const v4_row *r = &v4_table[i];
        uint64_t p = (uint64_t)r->a[0] << 56 | (uint64_t)r->a[1] << 48 |
                     (uint64_t)r->a[2] << 40 | (uint64_t)r->a[3] << 32;
        if ((int)r->plen > best && prefix64(x, p, r->plen)) {
            best = r->plen;
            cls = r->cls;
        }
    }
    return class_flag[cls];
}

size_t urisan_addr_embedded(const uint8_t a[16], uint8_t out[2][4])
{
    static const uint8_t zero[12];
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static const uint8_t nat64[12] = {0x00, 0x64, 0xff, 0x9b};
    static const uint8_t nat64_local[6] = {0x00, 0x64, 0xff, 0x9b, 0x00, 0x01};
    /* ::ffff:0:0/96 (RFC 4291 2.5.5.2), ::/96 but :: and ::1 (2.5.5.1,
       deprecated), 64:ff9b::/96 (RFC 6052 2.1) and 64:ff9b:1::/48 (RFC
       8215; the /96 form of its sub-prefixes): the last 32 bits */
    if (memcmp(a, mapped, 12) == 0 || memcmp(a, nat64, 12) == 0 ||
        memcmp(a, nat64_local, 6) == 0 ||
        (memcmp(a, zero, 12) == 0 && (a[12] | a[13] | a[14] | (a[15] & 0xFE)) != 0)) {
        memcpy(out[0], a + 12, 4);
        return 1;
    }
    /* 6to4 2002:V4ADDR::/48 (RFC 3056 2) */
    if (a[0] == 0x20 && a[1] == 0x02) {
        memcpy(out[0], a + 2, 4);
        return 1;
    }
    /* Teredo 2001:0000:SERVER:FLAGS:PORT:CLIENT, the client address and
       port stored inverted (RFC 4380 4) */
    if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0 && a[3] == 0) {
        memcpy(out[0], a + 4, 4);
        for (int i = 0; i < 4; i++)
            out[1][i] = (uint8_t)~a[12 + i];
        return 2;
    }
    return 0;
}

urisan_flags urisan_addr_class_v6(const uint8_t a[16])
{
    int best = -1, cls = AC_GLOBAL;
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    uint8_t v4[2][4];
    size_t nv4 = urisan_addr_embedded(a, v4);
    urisan_flags f = nv4 > 0 ? URISAN_F(IP_EMBEDDED) : 0;
    for (size_t i = 0; i < nv4; i++)
        f |= urisan_addr_class_v4(v4[i]);
    /* an IPv4-mapped address is the IPv4 address (dual-stack sockets
       connect there): its own class is that one's */
    if (memcmp(a, mapped, 12) == 0)
        return f;
    uint64_t hi = be64(a), lo = be64(a + 8);
    for (size_t i = 0; i < sizeof v6_table / sizeof v6_table[0]; i++) {
        const v6_row *r = &v6_table[i];
        unsigned plen = r->plen;
        if ((int)plen <= best)
            continue;
        bool match = plen <= 64 ? prefix64(hi, be64(r->a), plen)
                                : hi == be64(r->a) && prefix64(lo, be64(r->a + 8), plen - 64);
        if (match) {
            best = (int)plen;
            cls = r->cls;
        }
    }
    if (best < 0 && (a[0] & 0xE0) != 0x20)
        cls = AC_RESERVED; /* outside 2000::/3 and in no row */
    return f | class_flag[cls];
}
