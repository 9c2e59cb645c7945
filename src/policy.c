/*
 * policy.c - policies and verdicts (urisan(1), POLICY; doc/policy.md).
 *
 * A policy is plain data in caller memory (urisan_policy_size() bytes):
 * flag masks, fixed-capacity lists and one name pool. Parsing a policy file
 * never allocates, never recurses and stops at the first mistake with its
 * line number. The file format is documented in doc/policy.md.
 */
#include "risk.h"

#include <string.h>

URISAN_API size_t urisan_policy_size(void)
{
    return sizeof(struct urisan_policy);
}

URISAN_API void urisan_policy_init(urisan_policy *p)
{
    if (p == NULL)
        return;
    memset(p, 0, sizeof *p);
    p->magic = POL_MAGIC;
    p->deny = URISAN_DEFAULT_DENY;
    p->flag = URISAN_DEFAULT_FLAG;
    p->nested_depth = 1;
    p->limits = urisan_default_limits;
}

static const char *pool_str(const urisan_policy *p, pol_str s)
{
    return p->pool + s.off;
}

/* Case-insensitive compare of in[0..n) with a lower-case pool string. */
static bool str_ieq(const urisan_policy *p, pol_str s, const char *t, size_t n)
{
    if (s.len != n)
        return false;
    const char *a = pool_str(p, s);
    for (size_t i = 0; i < n; i++)
        if (lower_ascii((unsigned char)t[i]) != (unsigned char)a[i])
            return false;
    return true;
}

/* ------------------------------------------------------------------ */
/* Names                                                                */
/* ------------------------------------------------------------------ */

URISAN_API const char *urisan_rule_reason_name(urisan_rule_reason r)
{
    switch (r) {
#define URISAN_X_(U, l, b) case URISAN_REASON_##U: return #l;
    URISAN_REASON_LIST(URISAN_X_)
#undef URISAN_X_
    default: return NULL;
    }
}

URISAN_API int urisan_policy_judges_nested(const urisan_policy *p, urisan_flags f)
{
    return p != NULL && p->magic == POL_MAGIC && ((p->nested_deny | p->nested_flag) & f) != 0;
}

URISAN_API int urisan_policy_lists_hosts(const urisan_policy *p)
{
    return p != NULL && p->magic == POL_MAGIC && (p->n_deny_host | p->n_allow_host) > 0;
}

URISAN_API size_t urisan_policy_origin(const urisan_policy *p, urisan_origin_kind kind,
                                       unsigned bit, const char **profile)
{
    const char *name = "default";
    size_t line = 0;
    if (p != NULL && p->magic == POL_MAGIC) {
        const pol_origin *o = &p->origin;
        if (o->profile > 0 && urisan_profile_name(o->profile - 1) != NULL)
            name = urisan_profile_name(o->profile - 1);
        if (kind == URISAN_ORIGIN_RULE && bit < URISAN_REASON_COUNT_) {
            line = o->rule[bit];
        } else if (kind != URISAN_ORIGIN_RULE && bit < 64) {
            urisan_flags own = kind == URISAN_ORIGIN_DENY_FLAG ? p->deny : p->flag;
            if (bit == URISAN_FLAG_NESTED_URL && !(own >> bit & 1))
                line = kind == URISAN_ORIGIN_DENY_FLAG ? o->nested_deny : o->nested_flag;
            else
                line = o->flag[bit];
            /* denied, but not by a deny line: by a deny-combined line */
            for (size_t i = 0; kind == URISAN_ORIGIN_DENY_FLAG && !(own >> bit & 1) &&
                               bit != URISAN_FLAG_NESTED_URL && i < p->n_combos; i++)
                if (p->combo[i] >> bit & 1) {
                    line = o->combo[i];
                    break;
                }
        }
    }
    if (profile != NULL)
        *profile = name;
    return line;
}

URISAN_API const char *urisan_verdict_name(urisan_verdict v)
{
    switch (v) {
    case URISAN_ALLOW: return "allow";
    case URISAN_FLAGGED: return "flag";
    case URISAN_DENY: return "deny";
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Verdicts                                                             */
/* ------------------------------------------------------------------ */

/* A host entry against a host text (case-insensitive; ".x" is x and every
   name below it, as Squid's dstdomain). */
static bool host_match(const urisan_policy *p, pol_str e, const char *h, size_t n)
{
    const char *es = pool_str(p, e);
    if (e.len > 1 && es[0] == '*') /* "*.x": the names below x only */
        return n >= e.len && str_ieq(p, (pol_str){e.off + 1, e.len - 1}, h + n - (e.len - 1),
                                     e.len - 1);
    if (e.len > 0 && es[0] == '.') {
        if (n == e.len - 1 && str_ieq(p, (pol_str){e.off + 1, e.len - 1}, h, n))
            return true;
        return n >= e.len && str_ieq(p, e, h + n - e.len, e.len);
    }
    return str_ieq(p, e, h, n);
}

/* The first entry (the lowest index) of the list arr whose hash slots
   are slots that holds h[0..n): index + 1; 0: none. An entry holds h only
   if its name (less "." or "*.") is a suffix of h that starts a label, so
   each such suffix is looked up in the hash (taken from h's end: one
   pass), and host_match judges each candidate. */
static size_t hashed_in(const urisan_policy *p, const uint16_t *slots, const pol_str *arr,
                        const char *h, size_t n)
{
    size_t best = 0;
    uint32_t hash = 2166136261u;
    for (size_t pos = n; pos-- > 0;) {
        hash = pol_mark_step(hash, lower_ascii((unsigned char)h[pos]));
        if (pos > 0 && h[pos - 1] != '.')
            continue;
        for (uint32_t s = hash & (POL_HOST_SLOTS - 1); slots[s] != 0;
             s = (s + 1) & (POL_HOST_SLOTS - 1)) {
            size_t i = slots[s];
            if ((best == 0 || i < best) && host_match(p, arr[i - 1], h, n))
                best = i;
        }
    }
    return best;
}

/* The first entry of the policy's list arr (deny_host or allow_host)
   matching the host or its address: index + 1; 0: none. */
static size_t host_in(const urisan_policy *p, const pol_str *arr, const char *h, size_t n,
                      const char *ip, size_t ipn)
{
    const uint16_t *slots = arr == p->deny_host ? p->deny_slot : p->allow_slot;
    size_t a = n > 0 ? hashed_in(p, slots, arr, h, n) : 0;
    size_t b = ipn > 0 ? hashed_in(p, slots, arr, ip, ipn) : 0;
    return a == 0 ? b : b == 0 || a < b ? a : b;
}

static bool span_in(urisan_span s, size_t len)
{
    return s.off != URISAN_ABSENT && s.off <= len && s.len <= len - s.off;
}

/* The text of the report's address ("127.0.0.1", "::1"), what a host
   list entry that is an address is compared with; 0: no address. */
static size_t report_ip_text(const urisan_report *rep, char ip[48])
{
    size_t ipn = 0;
    if (rep == NULL || rep->ip_family == 0 || urisan_format_ip(rep, ip, 48, &ipn) != URISAN_OK)
        return 0;
    return ipn;
}

/* An IPv4-mapped IPv6 address (::ffff:0:0/96, RFC 4291 2.5.5.2)? */
static bool is_v4_mapped(const uint8_t a[16])
{
    static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return memcmp(a, prefix, sizeof prefix) == 0;
}

/* Is the host of uri (over in[0..len)) or its de-obfuscated address in
   the host list arr[0..cnt)? An IPv4-mapped IPv6 address is also the
   IPv4 address it maps (the one a client connects to). The first entry
   that matches: index + 1; 0: none. No host: only an entry matching ""
   could. */
static size_t host_listed(const urisan_policy *p, const pol_str *arr, const char *in, size_t len,
                          const urisan_uri *uri, const urisan_report *rep)
{
    bool has_host = span_in(uri->host, len);
    const char *h = has_host ? in + uri->host.off : "";
    size_t n = has_host ? uri->host.len : 0;
    if (n > 0 && h[0] == '[') { /* compare the literal without brackets */
        size_t b = 1;
        while (b < n && h[b] != ']')
            b++;
        n = b - 1;
        h++;
    }
    if (n > 1 && h[n - 1] == '.')
        n--; /* "example.com." is example.com (DNS root label) */
    char ip[48];
    size_t at = host_in(p, arr, h, n, ip, report_ip_text(rep, ip));
    if (at == 0 && rep != NULL && rep->ip_family == 6 && is_v4_mapped(rep->ip)) {
        /* ::ffff:a.b.c.d: a client connects to a.b.c.d itself */
        urisan_report r4;
        memset(&r4, 0, sizeof r4);
        r4.ip_family = 4;
        memcpy(r4.ip, rep->ip + 12, 4);
        at = host_in(p, arr, "", 0, ip, report_ip_text(&r4, ip));
    }
    return at;
}

/* The first deny-host entry that is an IPv4 address an IPv6 address
   (rep's) carries - mapped, compatible, NAT64, 6to4, Teredo
   (urisan_addr_embedded, as deny-ip reads them): index + 1; 0: none.
   Only deny lists read all of these: an allow-host entry allows its
   address and the IPv4-mapped form of it (host_listed), not an address
   that reaches it through a translator or a relay. */
static size_t carried_denied_at(const urisan_policy *p, const urisan_report *rep)
{
    if (rep == NULL || rep->ip_family != 6 || p->n_deny_host == 0)
        return 0;
    uint8_t v4[2][4];
    size_t k = urisan_addr_embedded(rep->ip, v4);
    for (size_t i = 0; i < k; i++) {
        urisan_report r4;
        memset(&r4, 0, sizeof r4);
        r4.ip_family = 4;
        memcpy(r4.ip, v4[i], 4);
        char ip[48];
        size_t at = host_in(p, p->deny_host, "", 0, ip, report_ip_text(&r4, ip));
        if (at != 0)
            return at;
    }
    return 0;
}

/* The first deny-host entry holding the host of uri or its address
   (host_listed), or an IPv4 address that address carries
   (carried_denied_at): index + 1; 0: none. */
static size_t host_denied_at(const urisan_policy *p, const char *in, size_t len,
                             const urisan_uri *uri, const urisan_report *rep)
{
    size_t at = host_listed(p, p->deny_host, in, len, uri, rep);
    return at != 0 ? at : carried_denied_at(p, rep);
}

/* Has h[0..n) a byte >= 0x80 or a '%'? Eight bytes a step: a '%' is a
   zero byte of w ^ 0x25.., found (exactly, as any) by the zero-byte test
   (x - 0x01..) & ~x & 0x80..; a byte >= 0x80 has its high bit. */
static bool high_or_pct(const char *h, size_t n)
{
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    if (n < 8) {
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)h[i] >= 0x80 || h[i] == '%')
                return true;
        return false;
    }
    /* the last step overlaps the one before: no byte loop */
    for (size_t i = 0;; i += 8) {
        if (i + 8 > n)
            i = n - 8;
        uint64_t w;
        memcpy(&w, h + i, 8);
        uint64_t x = w ^ (ones * '%');
        if ((w | ((x - ones) & ~x)) & highs)
            return true;
        if (i + 8 == n)
            return false;
    }
}

/* The host a client resolves for h[0..n), when the caller's map (the
   host layer's UTS #46 form) says it is not h as written: its length in
   out without one trailing dot (as host_listed compares), 0 for none,
   URISAN_HOST_MAP_FAILED when it could not be told. Only a host with a
   non-ASCII byte or a percent-escape can be another name (an ASCII host
   differs from its form only in case, which the lists ignore; an IP
   literal is the analysis' own). */
static size_t mapped_host(const urisan_decide_hooks *hk, const char *h, size_t n,
                          char out[URISAN_MAPPED_HOST_MAX])
{
    if (hk == NULL || hk->map == NULL || n == 0 || h[0] == '[' || !high_or_pct(h, n))
        return 0;
    size_t m = hk->map(hk->map_ctx, h, n, out, URISAN_MAPPED_HOST_MAX);
    if (m > URISAN_MAPPED_HOST_MAX)
        return URISAN_HOST_MAP_FAILED;
    return m > 1 && out[m - 1] == '.' ? m - 1 : m;
}

/* The deny-host and allow-host reasons of the form m[0..mn) a client
   resolves (mapped_host): a URI passes these lists only when the host as
   written and this form both pass. Not known (URISAN_HOST_MAP_FAILED):
   it is in every deny list and no allow list (fail closed). */
static unsigned mapped_reasons(const urisan_policy *p, const char *m, size_t mn)
{
    unsigned rules = 0;
    bool failed = mn == URISAN_HOST_MAP_FAILED;
    if (p->n_deny_host > 0 && (failed || host_in(p, p->deny_host, m, mn, "", 0)))
        rules |= 1u << URISAN_REASON_HOST_DENIED;
    if (p->n_allow_host > 0 &&
        (failed || !host_in(p, p->allow_host, m, mn, "", 0)))
        rules |= 1u << URISAN_REASON_HOST_NOT_ALLOWED;
    return rules;
}

static unsigned rule_reasons(const char *in, size_t len, const urisan_uri *uri,
                             const urisan_report *rep, const urisan_policy *p,
                             const urisan_decide_hooks *hk)
{
    unsigned rules = 0;
    /* the default policy and most profiles have none of these rules */
    if (uri == NULL || ((p->n_scheme | p->n_port | p->n_deny_host | p->n_allow_host |
                         p->n_deny_ip | p->n_allow_ip) == 0 &&
                        !p->require_absolute && !p->require_authority))
        return 0;
    bool has_scheme = span_in(uri->scheme, len);
    bool has_host = span_in(uri->host, len);

    /* require-absolute / require-authority: what a proxy or a fetcher
       cannot act on (Squid's "-", "host:port", a relative reference) */
    if ((p->require_absolute || p->require_authority) && !has_scheme)
        rules |= 1u << URISAN_REASON_NOT_ABSOLUTE;
    if (p->require_authority && (!has_host || uri->host.len == 0))
        rules |= 1u << URISAN_REASON_NO_AUTHORITY;

    /* allow-scheme: anything else, a reference without a scheme too */
    if (p->n_scheme > 0) {
        bool ok = false;
        for (size_t i = 0; has_scheme && i < p->n_scheme && !ok; i++)
            ok = str_ieq(p, p->scheme[i], in + uri->scheme.off, uri->scheme.len);
        if (!ok)
            rules |= 1u << URISAN_REASON_SCHEME_NOT_ALLOWED;
    }

    /* allow-port: the explicit port, else the scheme's default port; an
       authority whose port cannot be known is not allowed. A URI without
       an authority has no port and is not judged. */
    if (p->n_port > 0 && has_host) {
        long port = -1;
        urisan_span ps = uri->port;
        if (span_in(ps, len) && ps.len > 0) {
            uint32_t v = urisan_port_number(in + ps.off, ps.len);
            if (v <= 65535)
                port = (long)v;
        } else if (has_scheme) {
            scheme_overlay ov = policy_overlay(p);
            port = urisan_scheme_port(&ov, in + uri->scheme.off, uri->scheme.len);
        }
        bool ok = false;
        for (size_t i = 0; port >= 0 && i < p->n_port && !ok; i++)
            ok = port >= p->port[i].lo && port <= p->port[i].hi;
        if (!ok)
            rules |= 1u << URISAN_REASON_PORT_NOT_ALLOWED;
    }

    if (p->n_deny_host > 0 && host_denied_at(p, in, len, uri, rep))
        rules |= 1u << URISAN_REASON_HOST_DENIED;
    if (p->n_allow_host > 0 && !host_listed(p, p->allow_host, in, len, uri, rep))
        rules |= 1u << URISAN_REASON_HOST_NOT_ALLOWED;
    if ((p->n_deny_host | p->n_allow_host) > 0 && has_host) {
        char m[URISAN_MAPPED_HOST_MAX];
        size_t mn = mapped_host(hk, in + uri->host.off, uri->host.len, m);
        if (mn > 0)
            rules |= mapped_reasons(p, m, mn);
    }
    /* deny-ip / allow-ip: only a host that is an IP literal has an
       address (ip_family is set only with ip_literal) */
    if ((p->n_deny_ip > 0 || p->n_allow_ip > 0) && rep != NULL &&
        (rep->flags & URISAN_F(IP_LITERAL)) != 0)
        rules |= urisan_pol_ip_reasons(p, rep);
    return rules;
}

/* The address classes a policy judges (what urisan_judge_addr reports). */
#define ADDR_CLASS_FLAGS                                                              \
    (URISAN_F(IP_LOOPBACK) | URISAN_F(IP_PRIVATE) | URISAN_F(IP_LINK_LOCAL) |         \
     URISAN_F(IP_RESERVED) | URISAN_F(IP_MULTICAST) | URISAN_F(IP_BROADCAST) |        \
     URISAN_F(IP_EMBEDDED))

/* The address rule: the address is judged as the host that is that
   address written as an IP literal - the report the analysis makes of
   one (ip_literal, the classes of addrclass.c, the address) and the rules
   rule_reasons applies to it (deny-host entries compared with the
   address's text as host_listed compares them and with the IPv4
   addresses it carries, then urisan_pol_ip_reasons).
   Only the name rules are left out: an address has no name. */
URISAN_API urisan_status urisan_judge_addr(const urisan_policy *pol, int family,
                                           const uint8_t *addr, urisan_addr_decision *out)
{
    if (out == NULL)
        return URISAN_E_BAD_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (pol != NULL && pol->magic != POL_MAGIC)
        pol = NULL;
    if ((family != 4 && family != 6) || addr == NULL) {
        out->verdict = URISAN_DENY;
        out->deny_flags = URISAN_F(INVALID);
        return URISAN_E_BAD_ARGUMENT;
    }
    urisan_report rep;
    memset(&rep, 0, sizeof rep);
    rep.ip_family = family;
    memcpy(rep.ip, addr, family == 4 ? 4 : 16);
    out->class_flags = (family == 4 ? urisan_addr_class_v4(addr) : urisan_addr_class_v6(addr)) &
                       ADDR_CLASS_FLAGS;
    rep.flags = URISAN_F(IP_LITERAL) | out->class_flags;
    urisan_flags deny = pol ? pol->deny : URISAN_DEFAULT_DENY;
    urisan_flags flag = pol ? pol->flag : URISAN_DEFAULT_FLAG;
    out->deny_flags = out->class_flags & deny;
    out->flag_flags = out->class_flags & flag & ~deny;
    if (pol != NULL) {
        char ip[48];
        if (pol->n_deny_host > 0 &&
            (host_in(pol, pol->deny_host, "", 0, ip, report_ip_text(&rep, ip)) ||
             carried_denied_at(pol, &rep))) /* mapped is among the carried */
            out->rules |= 1u << URISAN_REASON_HOST_DENIED;
        if (pol->n_deny_ip > 0 || pol->n_allow_ip > 0)
            out->rules |= urisan_pol_ip_reasons(pol, &rep);
    }
    out->verdict = out->deny_flags != 0 || out->rules != 0 ? URISAN_DENY
                   : out->flag_flags != 0                  ? URISAN_FLAGGED
                                                           : URISAN_ALLOW;
    return URISAN_OK;
}

#if defined(__GNUC__)
#define POL_NOINLINE __attribute__((noinline))
#else
#define POL_NOINLINE
#endif

/* What the deny lists say about one nested URL (doc/policy.md "Nested
   URLs"): deny-host and deny-ip judge every nested URL as they judge the
   URI itself - a link that leads to a denied host or address is denied.
   The allow lists do not: a nested link to another site is normal. */
typedef struct {
    const urisan_policy *p;
    unsigned rules;
    urisan_nested_more_fn more;   /* NULL: no nested rule on its flags */
    void *mctx;
    const urisan_decide_hooks *hk; /* its map: the host a client resolves */
    urisan_flags more_flags;      /* what more gave, every reading */
} nested_judge;

static void judge_nested(void *ctx, const urisan_nested_url *n, const urisan_nested_view *v,
                         size_t nv)
{
    nested_judge *j = ctx;
    const urisan_policy *p = j->p;
    (void)n;
    if (nv == 0) {
        /* not decoded (it did not fit the scratch): nothing shows it is
           not a denied host or address, or a host the caller's flags
           judge, so it counts as one (fail closed) */
        if (p->n_deny_host > 0)
            j->rules |= 1u << URISAN_REASON_NESTED_HOST_DENIED;
        if (p->n_deny_ip > 0)
            j->rules |= 1u << URISAN_REASON_NESTED_IP_DENIED;
        if (j->more != NULL)
            j->more_flags |= URISAN_HOST_FLAGS;
        return;
    }
    /* every reading: the host a client reaches may be either */
    for (size_t i = 0; i < nv; i++) {
        const urisan_uri *u = v[i].u;
        if (j->more != NULL)
            j->more_flags |= j->more(j->mctx, v[i].t, v[i].tn) & URISAN_HOST_FLAGS;
        if (p->n_deny_host > 0 && span_in(u->host, v[i].tn)) {
            char m[URISAN_MAPPED_HOST_MAX];
            size_t mn = mapped_host(j->hk, v[i].t + u->host.off, u->host.len, m);
            if (host_denied_at(p, v[i].t, v[i].tn, u, v[i].r) ||
                (mn > 0 && (mapped_reasons(p, m, mn) & (1u << URISAN_REASON_HOST_DENIED))))
                j->rules |= 1u << URISAN_REASON_NESTED_HOST_DENIED;
        }
        if (p->n_deny_ip > 0 && (v[i].r->flags & URISAN_F(IP_LITERAL)) != 0 &&
            (urisan_pol_ip_reasons(p, v[i].r) & (1u << URISAN_REASON_IP_DENIED)) != 0)
            j->rules |= 1u << URISAN_REASON_NESTED_IP_DENIED;
    }
}

/* URLs nested in parameters (nested.c), on a scratch of their own (never
   on the common path): `deny nested:F` / `flag nested:F` judge the union
   of their flags - a nested rule that fires is told as nested_url among
   the deny or flag flags - and deny-host / deny-ip each nested URL
   (reasons nested_host_denied, nested_ip_denied). check --json lists
   which nested URL carries what. */
static POL_NOINLINE void nested_rules(const char *in, size_t len, const urisan_uri *uri,
                                      const urisan_policy *p, const urisan_decide_hooks *hk,
                                      urisan_decision *out)
{
    char scratch[URISAN_NESTED_SCRATCH];
    urisan_nested_report nr;
    nested_judge j = {p, 0, NULL, NULL, hk, 0};
    if (hk != NULL && hk->more != NULL &&
        ((p->nested_deny | p->nested_flag) & URISAN_HOST_FLAGS) != 0) {
        j.more = hk->more;
        j.mctx = hk->more_ctx;
    }
    bool visit = p->n_deny_host > 0 || p->n_deny_ip > 0 || j.more != NULL;
    if (urisan_nested_walk(in, len, uri, p, scratch, sizeof scratch, visit ? judge_nested : NULL,
                           &j, &nr) != URISAN_OK)
        return;
    out->rules |= j.rules;
    nr.flags |= j.more_flags;
    /* nested_deep: a chain goes on past the depth followed; a flag of the
       URI itself, judged by `deny nested_deep` / `flag nested_deep` */
    if (nr.flags & URISAN_F(NESTED_DEEP)) {
        out->deny_flags |= URISAN_F(NESTED_DEEP) & p->deny;
        out->flag_flags |= URISAN_F(NESTED_DEEP) & p->flag & ~p->deny;
    }
    if (nr.flags & p->nested_deny) {
        out->deny_flags |= URISAN_F(NESTED_URL);
        out->flag_flags &= ~URISAN_F(NESTED_URL);
    } else if (nr.flags & p->nested_flag) {
        out->flag_flags |= URISAN_F(NESTED_URL);
    }
}

/* The deny-host entry (index + 1; 0: none) that host h[0..n) of the URI
   t[0..tn) (u, rep: its parse and analysis) matches: as written, else in
   the form the caller's map gives (mapped_host). */
static size_t deny_host_at(const urisan_policy *p, const urisan_decide_hooks *hk, const char *t,
                           size_t tn, const urisan_uri *u, const urisan_report *rep)
{
    size_t at = host_denied_at(p, t, tn, u, rep);
    if (at != 0 || !span_in(u->host, tn))
        return at;
    char m[URISAN_MAPPED_HOST_MAX];
    size_t mn = mapped_host(hk, t + u->host.off, u->host.len, m);
    if (mn == 0 || mn == URISAN_HOST_MAP_FAILED)
        return 0;
    return host_in(p, p->deny_host, m, mn, "", 0);
}

/* The deny list entry behind a nested_host_denied or nested_ip_denied
   reason (urisan_policy_origin_uri): the first that matches a reading of
   a nested URL, in the order urisan_nested_walk visits them. */
typedef struct {
    const urisan_policy *p;
    const urisan_decide_hooks *hk;
    bool ip;
    size_t at; /* index + 1; 0: none yet */
} nested_entry;

static void find_nested_entry(void *ctx, const urisan_nested_url *n,
                              const urisan_nested_view *v, size_t nv)
{
    nested_entry *f = ctx;
    const urisan_policy *p = f->p;
    (void)n;
    for (size_t i = 0; i < nv && f->at == 0; i++) {
        const urisan_uri *u = v[i].u;
        if (!f->ip && span_in(u->host, v[i].tn))
            f->at = deny_host_at(p, f->hk, v[i].t, v[i].tn, u, v[i].r);
        else if (f->ip && (v[i].r->flags & URISAN_F(IP_LITERAL)) != 0)
            f->at = urisan_pol_ip_denied_at(p, v[i].r);
    }
}

/* The deny-host / deny-ip entry (index + 1; 0: none) that gives rule
   reason r to in[0..len) under p, the hosts as hk's map gives them too. */
static POL_NOINLINE size_t matched_entry(const urisan_policy *p, const char *in, size_t len,
                                         unsigned r, const urisan_decide_hooks *hk)
{
    urisan_uri u;
    urisan_report rep;
    urisan_parse_analyze(in, len, p, &u, NULL, &rep);
    if (r == URISAN_REASON_HOST_DENIED)
        return deny_host_at(p, hk, in, len, &u, &rep);
    if (r == URISAN_REASON_IP_DENIED)
        return (rep.flags & URISAN_F(IP_LITERAL)) != 0 ? urisan_pol_ip_denied_at(p, &rep) : 0;
    char scratch[URISAN_NESTED_SCRATCH];
    urisan_nested_report nr;
    nested_entry f = {p, hk, r == URISAN_REASON_NESTED_IP_DENIED, 0};
    if (urisan_nested_walk(in, len, &u, p, scratch, sizeof scratch, find_nested_entry, &f,
                           &nr) != URISAN_OK)
        return 0;
    return f.at;
}

URISAN_API size_t urisan_policy_origin_with(const urisan_policy *p, const char *in, size_t len,
                                            urisan_origin_kind kind, unsigned bit,
                                            const urisan_decide_hooks *hooks,
                                            const char **profile)
{
    size_t line = urisan_policy_origin(p, kind, bit, profile);
    if (p == NULL || p->magic != POL_MAGIC || in == NULL || kind != URISAN_ORIGIN_RULE)
        return line;
    bool host = bit == URISAN_REASON_HOST_DENIED || bit == URISAN_REASON_NESTED_HOST_DENIED;
    bool ip = bit == URISAN_REASON_IP_DENIED || bit == URISAN_REASON_NESTED_IP_DENIED;
    if (!host && !ip)
        return line;
    size_t at = matched_entry(p, in, len, bit, hooks);
    if (at == 0)
        return line;
    return host ? p->origin.deny_host[at - 1] : p->origin.deny_ip[at - 1];
}

URISAN_API size_t urisan_policy_origin_uri(const urisan_policy *p, const char *in, size_t len,
                                           urisan_origin_kind kind, unsigned bit,
                                           const char **profile)
{
    return urisan_policy_origin_with(p, in, len, kind, bit, NULL, profile);
}

/* deny-combined: flags that are together deny, for those flags, even
   where the policy only flags (or ignores) each of them alone. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static void combined(const urisan_policy *p, urisan_flags flags, urisan_decision *out)
{
    for (size_t i = 0; i < p->n_combos; i++)
        if ((flags & p->combo[i]) == p->combo[i])
            out->deny_flags |= p->combo[i];
    out->flag_flags &= ~out->deny_flags;
}

/*
 * user-content-host and shortener-host (analyze.c asks, with the policy
 * the analysis runs under): the flags of uri's host as written (one
 * trailing dot dropped), each list looked up as deny-host is (hashed_in).
 */
urisan_flags urisan_pol_host_marks(const urisan_policy *p, const char *in, size_t len,
                                   const urisan_uri *uri)
{
    if (!span_in(uri->host, len) || uri->host.len == 0)
        return 0;
    const char *h = in + uri->host.off;
    size_t n = uri->host.len;
    if (n > 1 && h[n - 1] == '.')
        n--;
    urisan_flags f = 0;
    if (p->n_user_content > 0 && hashed_in(p, p->user_content_slot, p->user_content, h, n))
        f |= URISAN_F(USER_CONTENT);
    if (p->n_shortener > 0 && hashed_in(p, p->shortener_slot, p->shortener, h, n))
        f |= URISAN_F(SHORTENER);
    return f;
}

/* The decision (urisan_decide, urisan_decide_more): one body, inlined
   into both, so that urisan_decide - every urisan_check - pays no call
   for the nested callback it does not have. */
static inline void decide(const char *in, size_t len, const urisan_uri *uri,
                          const urisan_report *rep, const urisan_policy *pol,
                          const urisan_decide_hooks *hk, urisan_decision *out)
{
    if (out == NULL)
        return;
    memset(out, 0, sizeof *out);
    urisan_flags flags = rep != NULL ? rep->flags : URISAN_F(INVALID);
    if (in == NULL && len != 0)
        flags |= URISAN_F(INVALID);
    if (pol != NULL && pol->magic != POL_MAGIC)
        pol = NULL;
    urisan_flags deny = pol ? pol->deny : URISAN_DEFAULT_DENY;
    urisan_flags flag = pol ? pol->flag : URISAN_DEFAULT_FLAG;
    out->deny_flags = flags & deny;
    out->flag_flags = flags & flag & ~deny;
    if (pol != NULL && (in != NULL || len == 0))
        out->rules = rule_reasons(in != NULL ? in : "", len, uri, rep, pol, hk);
    if ((flags & URISAN_F(NESTED_URL)) && pol != NULL && in != NULL && uri != NULL &&
        ((pol->nested_deny | pol->nested_flag) != 0 || pol->n_deny_host > 0 ||
         pol->n_deny_ip > 0))
        nested_rules(in, len, uri, pol, hk, out);
    if (pol != NULL && pol->n_combos > 0)
        combined(pol, flags, out);
    if (out->deny_flags != 0 || out->rules != 0)
        out->verdict = URISAN_DENY;
    else if (out->flag_flags != 0)
        out->verdict = URISAN_FLAGGED;
    else
        out->verdict = URISAN_ALLOW;
}

URISAN_API void urisan_decide(const char *in, size_t len, const urisan_uri *uri,
                              const urisan_report *rep, const urisan_policy *pol,
                              urisan_decision *out)
{
    decide(in, len, uri, rep, pol, NULL, out);
}

URISAN_API void urisan_decide_more(const char *in, size_t len, const urisan_uri *uri,
                                   const urisan_report *rep, const urisan_policy *pol,
                                   urisan_nested_more_fn more, void *mctx,
                                   urisan_decision *out)
{
    urisan_decide_hooks hk = {more, mctx, NULL, NULL};
    decide(in, len, uri, rep, pol, &hk, out);
}

URISAN_API void urisan_decide_with(const char *in, size_t len, const urisan_uri *uri,
                                   const urisan_report *rep, const urisan_policy *pol,
                                   const urisan_decide_hooks *hooks, urisan_decision *out)
{
    decide(in, len, uri, rep, pol, hooks, out);
}

/* urisan_check's facts: the parse and analysis of in[0..len) (pol
   valid or NULL); the bad argument's report is flag invalid alone. */
static inline urisan_status check_facts(const char *in, size_t len, const urisan_policy *pol,
                                        urisan_uri *uri, urisan_report *rep)
{
    /* NULL: the default limits, taken without the clamping pass (a
       policy's own are the defaults unless a `limit` line changed them).
       The parse hands its summary of in[0..len) to the analysis. */
    unsigned sum;
    urisan_status st = urisan_parse_sum(in, len, pol != NULL && pol->limits_custom ? &pol->limits
                                                                                 : NULL,
                                        uri, NULL, &sum);
    if (st == URISAN_E_BAD_ARGUMENT) {
        memset(rep, 0, sizeof *rep);
        rep->flags = URISAN_F(INVALID);
        return st;
    }
    urisan_analyze_sum(in, len, uri, pol, rep, sum);
    return st;
}

urisan_status urisan_check_facts(const char *in, size_t len, const urisan_policy *pol,
                                 urisan_uri *uri, urisan_report *rep)
{
    if (pol != NULL && pol->magic != POL_MAGIC)
        pol = NULL;
    return check_facts(in, len, pol, uri, rep);
}

URISAN_API urisan_status urisan_check(const char *in, size_t len, const urisan_policy *pol,
                                      urisan_uri *uri, urisan_report *rep,
                                      urisan_decision *dec)
{
    urisan_uri u_local;
    urisan_report r_local;
    urisan_decision d_local;
    if (uri == NULL)
        uri = &u_local;
    if (rep == NULL)
        rep = &r_local;
    if (dec == NULL)
        dec = &d_local;
    if (pol != NULL && pol->magic != POL_MAGIC)
        pol = NULL;
    urisan_status st = check_facts(in, len, pol, uri, rep);
    if (st == URISAN_E_BAD_ARGUMENT) {
        memset(dec, 0, sizeof *dec);
        dec->verdict = URISAN_DENY;
        dec->deny_flags = URISAN_F(INVALID);
        return st;
    }
    urisan_decide(in, len, uri, rep, pol, dec);
    return st;
}
