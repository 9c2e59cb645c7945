/*
 * risk.h - internals shared by the risk analysis and the policy
 * (flags.c ipv4.c analyze*.c policy.c extract.c). Never installed.
 */
#ifndef URISAN_RISK_H
#define URISAN_RISK_H

#include "internal.h"
#include "schemes.h"

/* ---- fixed capacities of a policy (SPEC 4: caller memory, no malloc) ---- */
#define POL_MAX_NAME      64    /* a scheme name, bytes (the default max_scheme) */
#define POL_MAX_HOSTNAME  255   /* a host entry, bytes (DNS, RFC 1034 3.1) */
#define POL_MAX_SCHEMES   64    /* allow-scheme entries */
#define POL_MAX_DANGEROUS 64    /* dangerous-scheme entries added by the policy */
#define POL_MAX_PORTS     128   /* allow-port entries (a port or a range) */
#define POL_MAX_DEFPORTS  64    /* default-port entries */
#define POL_MAX_HOSTS     1024  /* deny-host entries; as many allow-host entries */
#define POL_POOL          65536 /* bytes for every name above */

typedef struct {
    uint16_t lo, hi;
} pol_range;

struct urisan_policy {
    uint32_t magic;          /* POL_MAGIC once initialised */
    urisan_flags deny;       /* flags that deny */
    urisan_flags flag;       /* flags that are reported; neither: ignored */
    urisan_limits limits;
    size_t n_scheme, n_dangerous, n_port, n_defport, n_deny_host, n_allow_host;
    pol_str scheme[POL_MAX_SCHEMES];       /* allow-scheme, lower-case */
    pol_str dangerous[POL_MAX_DANGEROUS];  /* dangerous-scheme, lower-case */
    pol_range port[POL_MAX_PORTS];         /* allow-port */
    pol_defport defport[POL_MAX_DEFPORTS]; /* default-port (before the table) */
    pol_str deny_host[POL_MAX_HOSTS];      /* lower-case; ".x" = suffix */
    pol_str allow_host[POL_MAX_HOSTS];
    size_t pool_used;
    char pool[POL_POOL];
    bool require_absolute;   /* require-absolute: a scheme (not_absolute) */
    bool require_authority;  /* require-authority: scheme + non-empty host */
};

#define POL_MAGIC 0x75727370u /* "ursp" */

/* The `limit NAME N` names and their fields (policy_parse.c parses them,
   policy_format.c writes them). */
#define POL_LIMITS(X)                                                    \
    X("uri", max_uri) X("scheme", max_scheme) X("userinfo", max_userinfo) \
    X("host", max_host) X("label", max_label) X("segments", max_segments)

/* Every flag of urisan_flags.def. */
#define URISAN_ALL_FLAGS (((urisan_flags)1 << URISAN_FLAG_COUNT_) - 1)

/* SPEC 4: the built-in default policy denies these; it flags all else. */
#define URISAN_DEFAULT_DENY                                                     \
    (URISAN_F(INVALID) | URISAN_F(TOO_LONG) | URISAN_F(ESCAPED_CRLF) |           \
     URISAN_F(ESCAPED_NUL) | URISAN_F(CTL_RAW) | URISAN_F(DOT_ABOVE_ROOT) |      \
     URISAN_F(PASSWORD) | URISAN_F(DANGEROUS_SCHEME) |                          \
     URISAN_F(AMBIGUOUS_AUTHORITY) | URISAN_F(IP_OBFUSCATED))

/* The policy's default-port and dangerous-scheme entries as an overlay on
   the scheme table (schemes.h); pol NULL or not initialised: none. */
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

/* ---- ipv4.c ---- */
/*
 * Does a browser (WHATWG host parser) or inet_aton read the raw host text
 * s[0..n) as an IPv4 address? Percent-escapes are decoded once, UTF-8 is
 * mapped by the small UTS #46 table to ASCII; then the WHATWG IPv4 parser
 * runs. On success fills out[4] (network order).
 */
bool urisan_ipv4_deobfuscate(const char *s, size_t n, uint8_t out[4]);

#endif
