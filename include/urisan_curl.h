/*
 * urisan_curl.h - libcurl (7.80 or later; Debian 12: 7.88) fetching only
 * where urisan allows (doc/connect.md). Header only: include it after
 * <curl/curl.h> and link liburisan, liburisan-net and libcurl.
 *
 *   urisan_curl_guard g = { resolver, policy, 5 };   // at most 5 redirects
 *   urisan_curl_setup(h, &g);
 *   CURLcode rc = urisan_curl_perform(h, url, &g);
 *   if (g.refused) fprintf(stderr, "refused %s: %s\n", g.refused_url, g.why);
 *
 * Each hop - the URL, then every redirect - is judged as text
 * (urisan_check) and by the addresses its host resolves to
 * (urisan_resolve_judge_url: every address judged, any denied denies, a
 * failed lookup denies); curl is then pinned to a judged address
 * (CURLOPT_RESOLVE), so that it connects where urisan looked, not to a
 * second DNS answer, with TLS's server name and Host still the name. The
 * address curl actually opens a socket to is judged once more by the
 * address rule (CURLOPT_OPENSOCKETFUNCTION): no connection reaches a
 * denied address whatever resolved it. Redirects are followed here, hop by
 * hop, never by curl (CURLOPT_FOLLOWLOCATION is switched off); only
 * http and https are spoken.
 */
#ifndef URISAN_CURL_H
#define URISAN_CURL_H

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "urisan.h"
#include "urisan_net.h"

typedef struct {
    urisan_resolver *resolver;     /* the lookups (one thread's) */
    const urisan_policy *pol;      /* NULL: the default policy */
    unsigned max_hops;             /* redirects followed at most */
    /* after urisan_curl_perform */
    int refused;                   /* 1: a hop was refused */
    int stage;                     /* 1 the URL, 2 its addresses, 3 the socket, 4 too many hops */
    char refused_url[2048];        /* the hop refused */
    char why[512];                 /* its reasons / "resolves to ..." */
    unsigned hops;                 /* redirects followed */
    char pinned[64];               /* the address the last hop was pinned to */
} urisan_curl_guard;

static inline void urisan_curl_refuse_(urisan_curl_guard *g, int stage, const char *url,
                                       const char *why)
{
    g->refused = 1;
    g->stage = stage;
    snprintf(g->refused_url, sizeof g->refused_url, "%s", url != NULL ? url : "");
    snprintf(g->why, sizeof g->why, "%s", why != NULL ? why : "");
}

/* CURLOPT_OPENSOCKETFUNCTION: the address curl is about to connect to,
   judged by the address rule; denied: no socket (curl fails the hop). */
static inline curl_socket_t urisan_curl_opensocket(void *clientp, curlsocktype purpose,
                                                   struct curl_sockaddr *a)
{
    urisan_curl_guard *g = (urisan_curl_guard *)clientp;
    (void)purpose;
    urisan_addr_decision d;
    urisan_judge_sockaddr(g->pol, &a->addr, a->addrlen, &d);
    if (d.verdict == URISAN_DENY) {
        char why[256];
        size_t n = 0;
        if (urisan_reasons_format(d.deny_flags, d.rules, why, sizeof why, &n) != URISAN_OK)
            why[0] = 0;
        urisan_curl_refuse_(g, 3, "", why);
        return CURL_SOCKET_BAD;
    }
    return socket(a->family, a->socktype, a->protocol);
}

/* The guard's options on h (call once; urisan_curl_perform sets the URL
   and the pin of each hop). */
static inline void urisan_curl_setup(CURL *h, urisan_curl_guard *g)
{
    curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, urisan_curl_opensocket);
    curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, g);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_PROXY, ""); /* no proxy from the environment */
}

/* One hop: judged as text, resolved and judged, pinned. 0: refused. */
static inline int urisan_curl_hop_(CURL *h, const char *url, urisan_curl_guard *g,
                                   struct curl_slist **pin)
{
    size_t len = strlen(url);
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    urisan_check(url, len, g->pol, &u, &r, &d);
    if (d.verdict == URISAN_DENY) {
        char why[512];
        size_t n = 0;
        if (urisan_decision_format(&d, why, sizeof why, &n) != URISAN_OK)
            why[0] = 0;
        urisan_curl_refuse_(g, 1, url, why);
        return 0;
    }
    urisan_net_result res;
    urisan_resolve_judge_url(g->resolver, url, len, g->pol, &res);
    if (res.verdict == URISAN_DENY || res.n_addrs == 0) {
        char why[512];
        size_t n = 0;
        if (urisan_net_result_format(&res, why, sizeof why, &n) != URISAN_OK)
            why[0] = 0;
        urisan_curl_refuse_(g, 2, url, why);
        return 0;
    }
    /* the port curl connects to: the URL's, else the scheme's */
    unsigned long port = 80;
    if (u.port.off != URISAN_ABSENT && u.port.len > 0)
        port = strtoul(url + u.port.off, NULL, 10);
    else if (u.scheme.len == 5 && (url[u.scheme.off + 4] | 0x20) == 's')
        port = 443;
    /* an IPv4 address first (IPv6 may not be routed) */
    size_t pick = 0;
    for (size_t i = 0; i < res.n_addrs; i++)
        if (res.addrs[i].family == 4) {
            pick = i;
            break;
        }
    char ip[64];
    size_t ipn = 0;
    urisan_net_addr_text(&res.addrs[pick], ip, sizeof ip, &ipn);
    snprintf(g->pinned, sizeof g->pinned, "%s", ip);
    if (res.status == URISAN_DNS_OK) {
        char entry[512];
        snprintf(entry, sizeof entry, res.addrs[pick].family == 6 ? "%s:%lu:[%s]" : "%s:%lu:%s",
                 res.name, port, ip);
        *pin = curl_slist_append(*pin, entry);
        curl_easy_setopt(h, CURLOPT_RESOLVE, *pin);
    }
    curl_easy_setopt(h, CURLOPT_URL, url);
    return 1;
}

/* Fetch url and the redirects it leads to, each hop judged and pinned.
   A refused hop: CURLE_COULDNT_CONNECT and g->refused set. */
static inline CURLcode urisan_curl_perform(CURL *h, const char *url, urisan_curl_guard *g)
{
    char cur[2048];
    struct curl_slist *pin = NULL;
    CURLcode rc = CURLE_OK;
    g->refused = 0;
    g->stage = 0;
    g->hops = 0;
    snprintf(cur, sizeof cur, "%s", url);
    for (;;) {
        if (!urisan_curl_hop_(h, cur, g, &pin)) {
            rc = CURLE_COULDNT_CONNECT;
            break;
        }
        rc = curl_easy_perform(h);
        if (g->refused) { /* the socket's address was denied */
            snprintf(g->refused_url, sizeof g->refused_url, "%s", cur);
            break;
        }
        long code = 0;
        char *loc = NULL;
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
        curl_easy_getinfo(h, CURLINFO_REDIRECT_URL, &loc);
        if (rc != CURLE_OK || code < 300 || code > 399 || loc == NULL)
            break;
        if (g->hops == g->max_hops) {
            urisan_curl_refuse_(g, 4, loc, "too many redirects");
            rc = CURLE_TOO_MANY_REDIRECTS;
            break;
        }
        g->hops++;
        snprintf(cur, sizeof cur, "%s", loc);
    }
    curl_easy_setopt(h, CURLOPT_RESOLVE, NULL);
    curl_slist_free_all(pin);
    return rc;
}

#endif
