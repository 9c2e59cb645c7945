/*
 * policy_ip.c - address rules (doc/policy.md "Address rules"): `deny-ip`
 * and `allow-ip` with CIDR ranges of IPv4 (RFC 4632) and IPv6 (RFC 4291
 * 2.3), parsed fail-closed, written back for `urisan policy check`, and
 * matched against the host's de-obfuscated address (urisan_report.ip)
 * and every IPv4 address an IPv6 address carries (mapped, compatible,
 * NAT64, 6to4, Teredo server and client: urisan_addr_embedded, the one
 * extraction addrclass.c uses for the address classes too).
 *
 * Only urisan_decide calls the matcher, and only when the policy has
 * address rules and the host is an IP literal: a policy without them,
 * and every host name, costs nothing. Ranges are compared in turn
 * (bounded: URISAN_POLICY_MAX_IP_RANGES of each list).
 */
#include "risk.h"

#include <string.h>

/* Prefix length: decimal 0..max, no sign, no leading zero ("/08" could
   be read as octal by other tools). */
static bool prefix_len(const char *s, size_t n, unsigned max, unsigned *out)
{
    unsigned v = 0;
    if (n == 0 || n > 3 || (n > 1 && s[0] == '0'))
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!cc_is((unsigned char)s[i], CC_DIGIT))
            return false;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    if (v > max)
        return false;
    *out = v;
    return true;
}

/* The first plen bits of a and b agree. */
static bool prefix_eq(const uint8_t *a, const uint8_t *b, unsigned plen)
{
    unsigned full = plen / 8, rem = plen % 8;
    if (memcmp(a, b, full) != 0)
        return false;
    if (rem == 0)
        return true;
    unsigned mask = (0xFFu << (8 - rem)) & 0xFFu;
    return ((a[full] ^ b[full]) & mask) == 0;
}

const char *urisan_pol_cidr_parse(const char *s, size_t n, pol_cidr *r)
{
    memset(r, 0, sizeof *r);
    const char *slash = memchr(s, '/', n);
    size_t an = slash != NULL ? (size_t)(slash - s) : n;
    const char *a = s;
    bool bracket = an >= 2 && a[0] == '[' && a[an - 1] == ']';
    if (bracket) {
        a++;
        an -= 2;
    }
    if (an == 0)
        return "invalid address range (want A.B.C.D[/N] or an IPv6 address[/N])";
    if (memchr(a, '%', an) != NULL)
        return "invalid address range (a zone id is no part of an address: drop '%...')";
    unsigned max;
    if (memchr(a, ':', an) != NULL) {
        size_t errpos = 0;
        if (!urisan_parse_ipv6(a, an, r->a, &errpos))
            return "invalid address range (not an IPv6 address)";
        r->family = 6;
        max = 128;
    } else {
        if (bracket)
            return "invalid address range (brackets only around an IPv6 address)";
        if (cc_is((unsigned char)a[0], CC_ALPHA))
            return "invalid address range (a name is no address: use deny-host / allow-host)";
        if (!urisan_parse_ipv4_strict(a, an, r->a))
            return "invalid address range (IPv4 as four decimal numbers 0-255, no leading zeros)";
        r->family = 4;
        max = 32;
    }
    unsigned plen = max;
    if (slash != NULL && !prefix_len(slash + 1, n - (size_t)(slash - s) - 1, max, &plen))
        return r->family == 4 ? "invalid address range (IPv4 prefix length is 0-32)"
                              : "invalid address range (IPv6 prefix length is 0-128)";
    r->plen = (uint8_t)plen;
    /* 10.1.2.3/8: did the writer mean 10.0.0.0/8 or 10.1.2.3/32? Refuse
       to guess (a range is written by its first address). */
    size_t bytes = r->family == 4 ? 4 : 16;
    unsigned hostbits = 0;
    for (size_t i = 0; i < bytes; i++) {
        unsigned net = plen >= 8 * (i + 1) ? 8 : plen > 8 * i ? plen - 8 * (unsigned)i : 0;
        hostbits |= r->a[i] & (0xFFu >> net);
    }
    if (hostbits != 0)
        return "invalid address range (host bits set: write the range's first address)";
    return NULL;
}

/* The first entry of list[0..cnt) holding the address: index + 1; 0: none. */
static size_t in_list_at(const pol_cidr *list, size_t cnt, unsigned family, const uint8_t *addr)
{
    for (size_t i = 0; i < cnt; i++)
        if (list[i].family == family && prefix_eq(list[i].a, addr, list[i].plen))
            return i + 1;
    return 0;
}

static bool in_list(const pol_cidr *list, size_t cnt, unsigned family, const uint8_t *addr)
{
    return in_list_at(list, cnt, family, addr) != 0;
}

/* The addresses the host carries: its own, then for IPv6 the IPv4
   addresses embedded in it (a range of one family never matches an
   address of the other: ::ffff:0:0/96 is not 0.0.0.0/0). Their count. */
static size_t host_addrs(const urisan_report *rep, const uint8_t *addr[3], unsigned fam[3],
                         uint8_t v4[2][4])
{
    size_t n = 0;
    if (rep->ip_family == 4 || rep->ip_family == 6) {
        addr[n] = rep->ip;
        fam[n++] = (unsigned)rep->ip_family;
        if (rep->ip_family == 6) {
            size_t k = urisan_addr_embedded(rep->ip, v4);
            for (size_t i = 0; i < k; i++) {
                addr[n] = v4[i];
                fam[n++] = 4;
            }
        }
    }
    return n;
}

size_t urisan_pol_ip_denied_at(const urisan_policy *p, const urisan_report *rep)
{
    if (rep == NULL || p->n_deny_ip == 0)
        return 0;
    const uint8_t *addr[3];
    unsigned fam[3];
    uint8_t v4[2][4];
    size_t n = host_addrs(rep, addr, fam, v4);
    size_t first = 0;
    for (size_t i = 0; i < n; i++) {
        size_t at = in_list_at(p->deny_ip, p->n_deny_ip, fam[i], addr[i]);
        if (at != 0 && (first == 0 || at < first))
            first = at;
    }
    return first;
}

unsigned urisan_pol_ip_reasons(const urisan_policy *p, const urisan_report *rep)
{
    if (rep == NULL || (p->n_deny_ip == 0 && p->n_allow_ip == 0))
        return 0;
    unsigned rules = 0;
    if (urisan_pol_ip_denied_at(p, rep) != 0)
        rules |= 1u << URISAN_REASON_IP_DENIED;
    /* allow-ip judges hosts that are addresses (names are the host rules'
       business); every address the host carries must be allowed, and an
       IP literal whose address cannot be read (IPvFuture) is not */
    if (p->n_allow_ip > 0 && (rep->flags & URISAN_F(IP_LITERAL)) != 0) {
        const uint8_t *addr[3];
        unsigned fam[3];
        uint8_t v4[2][4];
        size_t n = host_addrs(rep, addr, fam, v4);
        bool ok = n > 0;
        for (size_t i = 0; i < n && ok; i++)
            ok = in_list(p->allow_ip, p->n_allow_ip, fam[i], addr[i]);
        if (!ok)
            rules |= 1u << URISAN_REASON_IP_NOT_ALLOWED;
    }
    return rules;
}

size_t urisan_pol_cidr_text(const pol_cidr *r, char buf[64])
{
    urisan_report rep;
    memset(&rep, 0, sizeof rep);
    rep.ip_family = r->family;
    memcpy(rep.ip, r->a, sizeof rep.ip);
    size_t n = 0;
    if (urisan_format_ip(&rep, buf, 48, &n) != URISAN_OK)
        n = 0;
    buf[n++] = '/';
    unsigned v = r->plen;
    if (v >= 100)
        buf[n++] = (char)('0' + v / 100);
    if (v >= 10)
        buf[n++] = (char)('0' + v / 10 % 10);
    buf[n++] = (char)('0' + v % 10);
    return n;
}
