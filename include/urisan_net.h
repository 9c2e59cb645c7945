/*
 * urisan_net.h - where a client connects (liburisan-net): a URL's host
 * resolved (A and AAAA, CNAME chains followed by the resolver) and every
 * address judged by the address rule (urisan_judge_addr), so that a name
 * that resolves inside - x.attacker.example -> 169.254.169.254 - is denied
 * before a client connects, and the client connects to an address that
 * was judged (never to a second, rebound answer).
 *
 * The resolver is c-ares (doc/resolve.md says why). A urisan_resolver is
 * one c-ares channel and one answer cache; it is used by one thread at a
 * time (make one per thread). Functions may allocate and say so.
 *
 * The verdict: deny when ANY address is denied (a client may pick any of
 * them; reason resolved_ip_denied, the first denied address named in the
 * result), or when the lookup fails - NXDOMAIN (dns_nxdomain), SERVFAIL
 * (dns_servfail), no answer in time (dns_timeout), anything else
 * including an answer without an address (dns_failed): fail closed.
 */
#ifndef URISAN_NET_H
#define URISAN_NET_H

#include "urisan.h"

/* URISAN_API marks the exports while the library is built (the source
   tree's urisan.h); the installed urisan.h is flat and has none, and a
   program that uses the library needs none. */
#ifndef URISAN_API
#define URISAN_API
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sockaddr;

typedef struct urisan_resolver urisan_resolver;

typedef struct {
    /* "ADDR[:PORT],..." ("[v6]:PORT" for IPv6 with a port); NULL or "":
       the system's servers (/etc/resolv.conf) */
    const char *servers;
    unsigned timeout_ms;    /* the first try's time-out (c-ares doubles it
                               a retry); 0: 2000 */
    unsigned tries;         /* 0: 2 */
    size_t cache_entries;   /* answers kept (each at most its TTL); 0: 4096;
                               URISAN_RESOLVER_NO_CACHE: none */
} urisan_resolver_opts;
#define URISAN_RESOLVER_NO_CACHE ((size_t)-1)

/* A resolver (o NULL: the defaults). NULL on failure, *error (may be
   NULL) saying why ("bad --dns-server list" ...). */
URISAN_API urisan_resolver *urisan_resolver_new(const urisan_resolver_opts *o,
                                                const char **error);
URISAN_API void urisan_resolver_free(urisan_resolver *r);

/* At most this many addresses of one name are kept and judged; a name
   with more is judged on these and denied (dns_failed) if any is left
   out - fail closed, never a silent truncation. */
#define URISAN_NET_MAX_ADDRS 32

typedef struct {
    int family;                 /* 4 or 6 */
    uint8_t addr[16];           /* network byte order */
    urisan_addr_decision d;     /* the address rule's judgement */
} urisan_net_addr;

typedef enum {
    URISAN_DNS_OK = 0,
    URISAN_DNS_LITERAL = 1,     /* the host is an address: no lookup */
    URISAN_DNS_NXDOMAIN = 2,
    URISAN_DNS_SERVFAIL = 3,
    URISAN_DNS_TIMEOUT = 4,
    URISAN_DNS_FAILED = 5,      /* refused, no address, malformed, too many ... */
    URISAN_DNS_NO_HOST = 6      /* the URL has no host a client resolves */
} urisan_dns_status;

typedef struct {
    urisan_verdict verdict;     /* deny: an address is denied or the lookup failed */
    unsigned rules;             /* bits of urisan_rule_reason: resolved_ip_denied, dns_* */
    urisan_dns_status status;
    size_t denied_at;           /* 1 + index of the first denied address; 0: none */
    size_t n_addrs;             /* the addresses (all allowed when verdict != deny) */
    urisan_net_addr addrs[URISAN_NET_MAX_ADDRS];
    uint32_t ttl;               /* the smallest TTL of the answer (0 for a literal) */
    int cached;                 /* 1: the answer came from the cache */
    char name[256];             /* the name looked up (A-labels, lower case) */
} urisan_net_result;

/* "deny", "dns_nxdomain" ... : urisan_dns_status's name */
URISAN_API const char *urisan_dns_status_name(urisan_dns_status s);

/*
 * Resolve the host host[0..len) - a name as a client resolves it (A-labels
 * or U-labels, percent-escapes, a trailing dot: the UTS #46 form is what
 * is looked up) or an IP address (with or without brackets: judged
 * without a lookup) - and judge every address under pol (NULL: the
 * default policy). Blocks until the answer or the time-out. *out always
 * filled. URISAN_E_BAD_ARGUMENT for a NULL argument.
 */
URISAN_API urisan_status urisan_resolve_judge(urisan_resolver *r, const char *host, size_t len,
                                              const urisan_policy *pol,
                                              urisan_net_result *out);

/* The same for the host of the URL url[0..len) (parsed with pol's
   limits). A URL without a host is URISAN_DNS_NO_HOST and denied. */
URISAN_API urisan_status urisan_resolve_judge_url(urisan_resolver *r, const char *url,
                                                  size_t len, const urisan_policy *pol,
                                                  urisan_net_result *out);

/*
 * Many names at once: urisan_resolve_start begins the lookup of host (as
 * urisan_resolve_judge) and returns; fn is called with the result from
 * urisan_resolve_wait (or at once, from the cache or for an address). The
 * result is valid during the call only. At most max_inflight lookups run
 * at once: urisan_resolve_start waits for one to end before it starts
 * another.
 */
typedef void (*urisan_resolve_fn)(void *ctx, const urisan_net_result *res);
URISAN_API urisan_status urisan_resolve_start(urisan_resolver *r, const char *host, size_t len,
                                              const urisan_policy *pol, unsigned max_inflight,
                                              urisan_resolve_fn fn, void *ctx);
/* The same for the host of the URL url[0..len). */
URISAN_API urisan_status urisan_resolve_start_url(urisan_resolver *r, const char *url,
                                                  size_t len, const urisan_policy *pol,
                                                  unsigned max_inflight, urisan_resolve_fn fn,
                                                  void *ctx);
/* Runs the lookups until none is left. */
URISAN_API void urisan_resolve_wait(urisan_resolver *r);

/* The address rule for a socket address (AF_INET or AF_INET6; other
   families are denied with URISAN_E_BAD_ARGUMENT). */
URISAN_API urisan_status urisan_judge_sockaddr(const urisan_policy *pol,
                                               const struct sockaddr *sa, size_t salen,
                                               urisan_addr_decision *out);

/* The text of an address ("169.254.169.254", "::ffff:127.0.0.1");
   *needed always set. */
URISAN_API urisan_status urisan_net_addr_text(const urisan_net_addr *a, char *buf, size_t cap,
                                              size_t *needed);

/*
 * Why a result is denied, for a person: "resolves to 169.254.169.254
 * (ip_link_local)", "dns_nxdomain: example.invalid" ...; "" for an allowed
 * result. *needed always set.
 */
URISAN_API urisan_status urisan_net_result_format(const urisan_net_result *res, char *buf,
                                                  size_t cap, size_t *needed);

#ifdef __cplusplus
}
#endif

#endif
