/*
 * fuzz/addr.c - the address rule (urisan_judge_addr) on any address and
 * any policy from a small set.
 *
 * Input: byte 0 picks the policy, byte 1's low bit the family (4 or 6),
 * then the address's 4 or 16 bytes (zero-padded when short). The rest of
 * the input is also tried as the text of an IP literal host.
 *
 * Invariants:
 *  1. no crash, no overread (the address is an exact-size copy);
 *  2. the decision is consistent: deny_flags and flag_flags disjoint
 *     subsets of class_flags; verdict deny exactly when deny_flags or
 *     rules is non-empty, else flag when flag_flags is, else allow;
 *  3. one implementation with the literal host: the URI http://A/ (A the
 *     address's text, in brackets for IPv6) decided by urisan_check has
 *     the same address classes, the same class verdicts and the same
 *     address rules (ip_denied, ip_not_allowed, host_denied);
 *  4. an IPv6 address that carries an IPv4 address (mapped, NAT64, 6to4)
 *     has ip_embedded and every class of the IPv4 address it carries.
 */
#include "fuzz_util.h"

static const char *const policies[] = {
    "",
    "profile ssrf\n",
    "profile proxy\n",
    "deny-ip 10.0.0.0/8 127.0.0.0/8 fd00::/8 169.254.169.254 64:ff9b::/96\n",
    "allow-ip 8.8.8.0/24 2606:4700::/32 127.0.0.2 ::ffff:0:0/96\n",
    "deny-host 127.0.0.1 ::1 8.8.8.8 ::ffff:a9fe:a9fe\n",
    "profile ssrf\nallow ip_loopback ip_embedded\ndeny-ip 127.0.0.66\n",
};

#define CLASS_FLAGS                                                                    \
    (URISAN_F(IP_LOOPBACK) | URISAN_F(IP_PRIVATE) | URISAN_F(IP_LINK_LOCAL) |           \
     URISAN_F(IP_RESERVED) | URISAN_F(IP_MULTICAST) | URISAN_F(IP_BROADCAST) |          \
     URISAN_F(IP_EMBEDDED))
#define ADDR_RULES                                                                     \
    ((1u << URISAN_REASON_IP_DENIED) | (1u << URISAN_REASON_IP_NOT_ALLOWED) |            \
     (1u << URISAN_REASON_HOST_DENIED))

static urisan_policy *pols[sizeof policies / sizeof policies[0]];

static const urisan_policy *policy(size_t i)
{
    if (pols[i] == NULL) {
        pols[i] = malloc(urisan_policy_size());
        if (pols[i] == NULL)
            abort();
        urisan_policy_init(pols[i]);
        if (urisan_policy_parse(pols[i], policies[i], strlen(policies[i]), NULL, NULL) != URISAN_OK)
            abort();
    }
    return pols[i];
}

static void consistent(const urisan_addr_decision *d)
{
    FUZZ_ASSERT((d->deny_flags & d->flag_flags) == 0, "deny and flag overlap");
    FUZZ_ASSERT((d->deny_flags & ~d->class_flags) == 0, "deny_flags outside the classes");
    FUZZ_ASSERT((d->flag_flags & ~d->class_flags) == 0, "flag_flags outside the classes");
    urisan_verdict want = d->deny_flags != 0 || d->rules != 0 ? URISAN_DENY
                          : d->flag_flags != 0                ? URISAN_FLAGGED
                                                              : URISAN_ALLOW;
    FUZZ_ASSERT(d->verdict == want, "verdict %d, want %d", (int)d->verdict, (int)want);
}

/* invariant 3: the literal host that is this address */
static void as_literal(const urisan_policy *p, int family, const uint8_t *a,
                       const urisan_addr_decision *d)
{
    urisan_report rep;
    memset(&rep, 0, sizeof rep);
    rep.ip_family = family;
    memcpy(rep.ip, a, family == 4 ? 4 : 16);
    char ip[64];
    size_t n = 0;
    if (urisan_format_ip(&rep, ip, sizeof ip, &n) != URISAN_OK)
        fuzz_fail("format_ip");
    char uri[96];
    int un = snprintf(uri, sizeof uri, family == 6 ? "http://[%.*s]/" : "http://%.*s/", (int)n,
                      ip);
    urisan_uri u;
    urisan_report r;
    urisan_decision dec;
    urisan_check(uri, (size_t)un, p, &u, &r, &dec);
    FUZZ_ASSERT(r.ip_family == family && memcmp(r.ip, a, family == 4 ? 4 : 16) == 0,
                "%s: not read back as the same address", uri);
    FUZZ_ASSERT((r.flags & CLASS_FLAGS) == d->class_flags, "%s: classes differ", uri);
    FUZZ_ASSERT((dec.deny_flags & CLASS_FLAGS) == d->deny_flags, "%s: deny differs", uri);
    FUZZ_ASSERT((dec.flag_flags & CLASS_FLAGS) == d->flag_flags, "%s: flag differs", uri);
    FUZZ_ASSERT((dec.rules & ADDR_RULES) == d->rules, "%s: rules %x, literal %x", uri, d->rules,
                dec.rules);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = fuzz_dup(data, size);
    size_t np = sizeof policies / sizeof policies[0];
    const urisan_policy *p = policy(size > 0 ? data[0] % np : 0);
    int family = size > 1 && (data[1] & 1) ? 6 : 4;
    size_t alen = family == 4 ? 4 : 16;
    uint8_t *a = malloc(alen);
    if (a == NULL)
        abort();
    memset(a, 0, alen);
    if (size > 2)
        memcpy(a, data + 2, size - 2 < alen ? size - 2 : alen);
    urisan_addr_decision d;
    FUZZ_ASSERT(urisan_judge_addr(p, family, a, &d) == URISAN_OK, "status");
    consistent(&d);
    as_literal(p, family, a, &d);
    if (family == 6) {
        static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        static const uint8_t nat64[12] = {0, 0x64, 0xff, 0x9b};
        const uint8_t *v4 = NULL;
        if (memcmp(a, mapped, 12) == 0 || memcmp(a, nat64, 12) == 0)
            v4 = a + 12;
        else if (a[0] == 0x20 && a[1] == 0x02)
            v4 = a + 2;
        if (v4 != NULL) {
            urisan_addr_decision d4;
            urisan_judge_addr(p, 4, v4, &d4);
            FUZZ_ASSERT((d.class_flags & URISAN_F(IP_EMBEDDED)) != 0, "no ip_embedded");
            FUZZ_ASSERT((d.class_flags & d4.class_flags) == d4.class_flags,
                        "the carried IPv4's classes are missing");
        }
    }
    /* the rest as an IP literal's text: a literal host judged both ways */
    if (size > 2) {
        urisan_uri u;
        urisan_report r;
        char uri[128];
        size_t tn = size - 2 < 64 ? size - 2 : 64;
        int un = snprintf(uri, sizeof uri, "http://%.*s/", (int)tn, in + 2);
        urisan_parse_analyze(uri, (size_t)un, p, &u, NULL, &r);
        if (r.ip_family == 4 || r.ip_family == 6) {
            urisan_addr_decision dl;
            urisan_judge_addr(p, r.ip_family, r.ip, &dl);
            consistent(&dl);
        }
    }
    urisan_judge_addr(p, 5, a, &d);
    FUZZ_ASSERT(d.verdict == URISAN_DENY, "family 5 not denied");
    free(a);
    fuzz_done(in);
    return 0;
}
