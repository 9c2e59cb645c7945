/*
 * risk.h - internals shared by the risk analysis and the policy
 * (flags.c schemes.c ipv4.c analyze.c policy.c). Never installed.
 */
#ifndef URISAN_RISK_H
#define URISAN_RISK_H

#include "internal.h"
#include "schemes.h"

/* ---- fixed capacities of a policy (caller memory, no malloc) ---- */
#define POL_MAX_NAME      64    /* a scheme name, bytes (the default max_scheme) */
#define POL_MAX_HOSTNAME  URISAN_DNS_NAME /* a host entry, bytes */
#define POL_MAX_SCHEMES   64    /* allow-scheme entries */
#define POL_MAX_DANGEROUS 64    /* dangerous-scheme entries added by the policy */
#define POL_MAX_PORTS     128   /* allow-port entries (a port or a range) */
#define POL_MAX_DEFPORTS  64    /* default-port entries */
#define POL_MAX_HOSTS     1024  /* deny-host entries; as many allow-host entries */
#define POL_MAX_PROTECT   256   /* protect-host entries */
#define POL_MAX_COMBOS    16    /* deny-combined lines */
#define POL_HOST_SLOTS    2048  /* hash slots of deny-host, of allow-host (2 x POL_MAX_HOSTS) */
#define POL_POOL          65536 /* bytes for every name above */
#define POL_MAX_IPS       URISAN_POLICY_MAX_IP_RANGES /* deny-ip; as many allow-ip */

typedef struct {
    uint16_t lo, hi;
} pol_range;

/* deny-ip / allow-ip: an address range (policy_ip.c) */
typedef struct {
    uint8_t a[16];  /* IPv4: a[0..3]; host bits are zero */
    uint8_t plen;   /* 0..32 or 0..128 */
    uint8_t family; /* 4 or 6 */
} pol_cidr;

/*
 * Where the rules of a policy came from (policy_parse.c records it,
 * urisan_policy_origin reads it): the line of the policy text that last
 * set each flag's rule, or first wrote each list a rule reason reads;
 * 0: the profile (profile: 1 + its index in profiles.c; 0: the built-in
 * default policy). Lines of a text above 2^32 - 1 are recorded as that.
 */
typedef struct {
    uint32_t flag[64];        /* deny / flag / allow F */
    uint32_t nested_deny;     /* the last `deny nested:F` line */
    uint32_t nested_flag;     /* the last `flag nested:F` line */
    uint32_t rule[16];        /* per urisan_rule_reason */
    unsigned profile;
    /* the line of each deny-host and deny-ip entry (0: the profile's),
       for the entry that matched a URI (urisan_policy_origin_uri) */
    uint32_t deny_host[POL_MAX_HOSTS];
    uint32_t deny_ip[POL_MAX_IPS];
    uint32_t combo[POL_MAX_COMBOS]; /* the line of each deny-combined */
} pol_origin;

struct urisan_policy {
    uint32_t magic;          /* POL_MAGIC once initialised */
    urisan_flags deny;       /* flags that deny */
    urisan_flags flag;       /* flags that are reported; neither: ignored */
    urisan_limits limits;    /* each within URISAN_HARD_CEILING (limit_line) */
    bool limits_custom;      /* limits differ from urisan_default_limits */
    size_t n_scheme, n_dangerous, n_port, n_defport, n_deny_host, n_allow_host;
    pol_str scheme[POL_MAX_SCHEMES];       /* allow-scheme, lower-case */
    pol_str dangerous[POL_MAX_DANGEROUS];  /* dangerous-scheme, lower-case */
    pol_range port[POL_MAX_PORTS];         /* allow-port */
    pol_defport defport[POL_MAX_DEFPORTS]; /* default-port (before the table) */
    pol_str deny_host[POL_MAX_HOSTS];      /* lower-case; ".x" = suffix */
    pol_str allow_host[POL_MAX_HOSTS];
    /* each list hashed by the entry less its "." or "*." (pol_mark_hash):
       1 + index; 0 empty */
    uint16_t deny_slot[POL_HOST_SLOTS], allow_slot[POL_HOST_SLOTS];
    size_t pool_used;
    char pool[POL_POOL];
    bool require_absolute;   /* require-absolute: a scheme (not_absolute) */
    bool require_authority;  /* require-authority: scheme + non-empty host */
    size_t n_deny_ip, n_allow_ip;
    pol_cidr deny_ip[POL_MAX_IPS];   /* deny-ip */
    pol_cidr allow_ip[POL_MAX_IPS];  /* allow-ip */
    /* nested URLs (nested.c): `deny nested:F` / `flag nested:F` judge the
       union of their flags; `nested-depth N` (1..3) */
    urisan_flags nested_deny, nested_flag;
    unsigned nested_depth;
    /* protect-host: the organisation's own names (lower case, A-labels),
       which the host layer compares hosts with (homograph, lookalike);
       protect_id: a hash of the list (0: none), changed by every name */
    size_t n_protect;
    pol_str protect[POL_MAX_PROTECT];
    uint64_t protect_id;
    /* user-content-host, shortener-host: hosts that get the flags
       user_content and shortener (the forms of deny-host's entries) */
    size_t n_user_content, n_shortener;
    pol_str user_content[POL_MAX_HOSTS];
    pol_str shortener[POL_MAX_HOSTS];
    /* each hashed as deny-host is (deny_slot) */
    uint16_t user_content_slot[POL_HOST_SLOTS], shortener_slot[POL_HOST_SLOTS];
    /* deny-combined FLAG FLAG...: a URI with every flag of one of these
       sets is denied, for those flags (each may be only flagged alone) */
    size_t n_combos;
    urisan_flags combo[POL_MAX_COMBOS];
    /* Where each rule came from (urisan_policy_origin); the last member:
       the rules above end where it starts (POL_RULES_SIZE). */
    pol_origin origin;
};

/* The bytes of a policy that decide: two policies with the same rules
   from different texts differ only in their origin. */
#define POL_RULES_SIZE offsetof(struct urisan_policy, origin)
_Static_assert(URISAN_REASON_COUNT_ <= 16, "pol_origin.rule holds every rule reason");

#define POL_MAGIC 0x75727370u /* "ursp" */

/* The `limit NAME N` names and their fields (policy_parse.c parses them,
   policy_format.c writes them). */
#define POL_LIMITS(X)                                                    \
    X("uri", max_uri) X("scheme", max_scheme) X("userinfo", max_userinfo) \
    X("host", max_host) X("label", max_label) X("segments", max_segments)

/* Every flag of urisan_flags.def: the OR of its bits, so a bit reserved
   for a flag not yet in the list (a hole) is no flag - not in `all`, not
   in the default policy's flag set. A constant the compiler folds. */
static const urisan_flags urisan_all_flags_ =
#define URISAN_FLAG(U, l, bit) URISAN_F(U) |
#include "urisan_flags.def"
#undef URISAN_FLAG
    0;
#define URISAN_ALL_FLAGS urisan_all_flags_

/* urisan(1), POLICY: the built-in default policy denies these; it flags
   all else. */
#define URISAN_DEFAULT_DENY                                                     \
    (URISAN_F(INVALID) | URISAN_F(TOO_LONG) | URISAN_F(ESCAPED_CRLF) |           \
     URISAN_F(ESCAPED_NUL) | URISAN_F(CTL_RAW) | URISAN_F(DOT_ABOVE_ROOT) |      \
     URISAN_F(PASSWORD) | URISAN_F(DANGEROUS_SCHEME) |                          \
     URISAN_F(AMBIGUOUS_AUTHORITY) | URISAN_F(IP_OBFUSCATED) | URISAN_F(MAIL_LIMIT))

/* The default policy neither denies nor reports these: names that are
   legitimate on an intranet (the default verdicts stay); profiles
   deny them. */
#define URISAN_DEFAULT_IGNORE (URISAN_F(INTERNAL_NAME) | URISAN_F(SINGLE_LABEL))
#define URISAN_DEFAULT_FLAG (URISAN_ALL_FLAGS & ~URISAN_DEFAULT_DENY & ~URISAN_DEFAULT_IGNORE)

/* The policy's default-port and dangerous-scheme entries as an overlay on
   the scheme table (schemes.h); pol NULL or not initialised: none. The
   analysis reads a policy through this, never through policy.c. */
static inline scheme_overlay policy_overlay(const urisan_policy *pol)
{
    scheme_overlay ov = {NULL, NULL, 0, NULL, 0};
    if (pol != NULL && pol->magic == POL_MAGIC) {
        ov.pool = pol->pool;
        ov.dangerous = pol->dangerous;
        ov.n_dangerous = pol->n_dangerous;
        ov.defport = pol->defport;
        ov.n_defport = pol->n_defport;
    }
    return ov;
}

/* ---- addrclass.c ---- */
/* The class flags of an address (ip_loopback, ip_private, ip_link_local,
   ip_reserved, ip_multicast, ip_broadcast; 0: globally reachable
   unicast). For IPv6 also ip_embedded and the classes of the IPv4
   address it carries. */
urisan_flags urisan_addr_class_v4(const uint8_t a[4]);
urisan_flags urisan_addr_class_v6(const uint8_t a[16]);
/* The IPv4 addresses an IPv6 address carries: mapped, compatible, NAT64
   (both prefixes), 6to4 (one), Teredo (server, then client: two). */
size_t urisan_addr_embedded(const uint8_t a[16], uint8_t out[2][4]);

/* ---- policy_ip.c ---- */
/* One deny-ip / allow-ip word s[0..n) ("A.B.C.D", "A.B.C.D/N", "V6",
   "V6/N", "[V6]", "[V6]/N") into *r; NULL, or the error message. */
const char *urisan_pol_cidr_parse(const char *s, size_t n, pol_cidr *r);
/* The rules deny-ip / allow-ip break (URISAN_REASON_IP_* bits) for the
   report's host address and the IPv4 addresses it carries. */
unsigned urisan_pol_ip_reasons(const urisan_policy *p, const urisan_report *rep);
/* The first deny-ip entry holding an address the report's host carries:
   its index + 1; 0: none (what ip_denied reads). */
size_t urisan_pol_ip_denied_at(const urisan_policy *p, const urisan_report *rep);
/* "A.B.C.D/N" or "V6/N" into buf[0..64); the length. */
size_t urisan_pol_cidr_text(const pol_cidr *r, char buf[64]);

/* ---- names.c ---- */
/* internal_name / single_label of a reg-name host h[0..n) as written
   (case, trailing dots and escapes of letters do not count). */
urisan_flags urisan_name_flags(const char *h, size_t n);
/* The hash of a mark entry's name s[0..n) (lower case), taken from its
   last byte to its first, so that a host's suffixes are hashed in one
   pass from its end (policy.c). */
static inline uint32_t pol_mark_step(uint32_t h, unsigned char c)
{
    return (h ^ c) * 16777619u;
}
static inline uint32_t pol_mark_hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    while (n > 0)
        h = pol_mark_step(h, (unsigned char)s[--n]);
    return h;
}

/* policy.c: user_content and shortener of uri's host, from the policy's
   user-content-host and shortener-host lists. */
urisan_flags urisan_pol_host_marks(const urisan_policy *p, const char *in, size_t len,
                                   const urisan_uri *uri);
/* The same for a host without "%" (names.h's first look calls it). */
urisan_flags urisan_name_flags_raw(const char *h, size_t n);

/* ---- nested.c ---- */
/* nested_url: does a query or fragment parameter of in (u's spans, checked
   against len) hold a nested URL? A linear look at each value, no buffer. */
bool urisan_nested_any(const char *in, size_t len, const urisan_uri *u);
/* One reading of a nested URL as a client reaches it: the text t[0..tn)
   (without the blanks a client strips), its parse u and its analysis r. */
typedef struct {
    const char *t;
    size_t tn;
    const urisan_uri *u;
    const urisan_report *r;
} urisan_nested_view;
/* urisan_nested with a visitor that also gets the readings of the nested
   URL (nested.c): v[0] the value as decoded, v[1] (nv 2) the URL the
   WHATWG URL parser reads in it when that differs ("+http:\\h" read as
   "http://h"). nv 0 for a value that did not fit the scratch
   (n->incomplete). */
typedef void (*urisan_nested_visit)(void *ctx, const urisan_nested_url *n,
                                    const urisan_nested_view *v, size_t nv);
urisan_status urisan_nested_walk(const char *in, size_t len, const urisan_uri *uri,
                                 const urisan_policy *pol, char *scratch, size_t cap,
                                 urisan_nested_visit fn, void *ctx, urisan_nested_report *out);

/* ---- ipv4.c ---- */
/*
 * Does a browser (WHATWG host parser) or inet_aton read the raw host text
 * s[0..n) as an IPv4 address? Percent-escapes are decoded once, UTF-8 is
 * mapped by the small UTS #46 table to ASCII; then the WHATWG IPv4 parser
 * runs. On success fills out[4] (network order).
 */
bool urisan_ipv4_deobfuscate(const char *s, size_t n, uint8_t out[4]);

#endif
