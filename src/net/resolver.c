/*
 * resolver.c - the lookups of liburisan-net: one c-ares channel (A and
 * AAAA through ares_getaddrinfo, CNAME chains followed by c-ares, the
 * hosts file first as getaddrinfo reads it) and the answer cache.
 *
 * The cache keeps the addresses of a name (never a verdict: each lookup
 * is judged under the caller's policy) for at most the answer's smallest
 * TTL, in a fixed table of cache_entries slots, one slot a name by its
 * hash (a new name takes its slot's place): bounded whatever the input.
 * An answer with TTL 0 is not kept (DNS rebinding sets TTL 0 so that the
 * next lookup asks again; the caller connects to the judged address).
 * Failures are not kept.
 */
#include "net_internal.h"

#include <sys/select.h>
#include <sys/time.h>

#include <ares.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    char name[256];
    uint8_t n;
    uint8_t family[URISAN_NET_MAX_ADDRS];
    uint8_t addr[URISAN_NET_MAX_ADDRS][16];
    uint32_t ttl;
    uint64_t expires_ms;      /* 0: empty slot */
} cache_slot;

struct urisan_resolver {
    ares_channel ch;
    size_t n_slots;           /* 0: no cache */
    cache_slot *slots;
    size_t inflight;
    struct pending *flying;   /* the lookups in flight (at most max_inflight) */
};

/* One who waits for a lookup's answer, under its own policy. */
typedef struct waiter {
    const urisan_policy *pol;
    urisan_resolve_fn fn;
    void *ctx;
    struct waiter *next;
} waiter;

/* A lookup in flight: a name asked for again while its lookup runs
   waits for the same answer (one query for many lines). */
typedef struct pending {
    urisan_resolver *r;
    waiter *waiters;
    struct pending *next;
    char name[256];
} pending;

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static size_t slot_of(const urisan_resolver *r, const char *name)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)name; *p != 0; p++)
        h = (h ^ *p) * 1099511628211u;
    return (size_t)(h % r->n_slots);
}

static int lib_ready;

URISAN_API urisan_resolver *urisan_resolver_new(const urisan_resolver_opts *o,
                                                const char **error)
{
    static const urisan_resolver_opts defaults;
    const char *why = NULL;
    if (o == NULL)
        o = &defaults;
    if (!lib_ready) {
        if (ares_library_init(ARES_LIB_INIT_ALL) != ARES_SUCCESS) {
            why = "c-ares could not be initialised";
            goto fail;
        }
        lib_ready = 1;
    }
    urisan_resolver *r = calloc(1, sizeof *r);
    if (r == NULL) {
        why = "out of memory";
        goto fail;
    }
    struct ares_options opt;
    memset(&opt, 0, sizeof opt);
    opt.timeout = o->timeout_ms != 0 ? (int)o->timeout_ms : 2000;
    opt.tries = o->tries != 0 ? (int)o->tries : 2;
    /* the hosts file, then DNS: what getaddrinfo (curl, requests, httpx)
       reads on Debian (nsswitch "files dns") */
    opt.lookups = (char *)"fb";
    /* a SERVFAIL or REFUSED answer is given to the caller as such (without
       ARES_FLAG_NOCHECKRESP c-ares 1.18 tries the next server and then
       reports only that no server answered) */
    opt.flags = ARES_FLAG_NOCHECKRESP;
    int mask = ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES | ARES_OPT_LOOKUPS | ARES_OPT_FLAGS;
    if (ares_init_options(&r->ch, &opt, mask) != ARES_SUCCESS) {
        free(r);
        why = "c-ares could not make a channel (resolv.conf?)";
        goto fail;
    }
    if (o->servers != NULL && o->servers[0] != 0 &&
        ares_set_servers_ports_csv(r->ch, o->servers) != ARES_SUCCESS) {
        ares_destroy(r->ch);
        free(r);
        why = "bad DNS server list (want ADDR[:PORT] or [IPv6]:PORT, comma-separated)";
        goto fail;
    }
    if (o->cache_entries != URISAN_RESOLVER_NO_CACHE) {
        r->n_slots = o->cache_entries != 0 ? o->cache_entries : 4096;
        r->slots = calloc(r->n_slots, sizeof *r->slots);
        if (r->slots == NULL) {
            ares_destroy(r->ch);
            free(r);
            why = "out of memory";
            goto fail;
        }
    }
    return r;
fail:
    if (error != NULL)
        *error = why;
    return NULL;
}

URISAN_API void urisan_resolver_free(urisan_resolver *r)
{
    if (r == NULL)
        return;
    ares_destroy(r->ch); /* pending callbacks run with ARES_EDESTRUCTION */
    free(r->slots);
    free(r);
}

/* One turn of the event loop: wait for a socket or the next time-out,
   then let c-ares read and retry. */
static void step(urisan_resolver *r)
{
    ares_socket_t socks[ARES_GETSOCK_MAXNUM];
    /* bit i: socket i readable, bit i + ARES_GETSOCK_MAXNUM: writable
       (c-ares' ARES_GETSOCK_* macros shift a signed 1 into bit 31) */
    unsigned bits = (unsigned)ares_getsock(r->ch, socks, ARES_GETSOCK_MAXNUM);
    struct pollfd pfd[ARES_GETSOCK_MAXNUM];
    nfds_t n = 0;
    for (unsigned i = 0; i < ARES_GETSOCK_MAXNUM; i++) {
        short ev = 0;
        if (bits & (1u << i))
            ev |= POLLIN;
        if (bits & (1u << (i + ARES_GETSOCK_MAXNUM)))
            ev |= POLLOUT;
        if (ev == 0)
            continue;
        pfd[n].fd = socks[i];
        pfd[n].events = ev;
        pfd[n].revents = 0;
        n++;
    }
    struct timeval tv, *tvp = ares_timeout(r->ch, NULL, &tv);
    int ms = tvp != NULL ? (int)(tvp->tv_sec * 1000 + tvp->tv_usec / 1000) : 100;
    int ready = poll(pfd, n, ms > 0 ? ms : 1);
    if (ready <= 0) {
        ares_process_fd(r->ch, ARES_SOCKET_BAD, ARES_SOCKET_BAD); /* time-outs */
        return;
    }
    for (nfds_t i = 0; i < n; i++) {
        if (pfd[i].revents == 0)
            continue;
        ares_socket_t rd = (pfd[i].revents & (POLLIN | POLLERR | POLLHUP)) ? pfd[i].fd
                                                                           : ARES_SOCKET_BAD;
        ares_socket_t wr = (pfd[i].revents & POLLOUT) ? pfd[i].fd : ARES_SOCKET_BAD;
        ares_process_fd(r->ch, rd, wr);
    }
}

static urisan_dns_status status_of(int st)
{
    switch (st) {
    case ARES_SUCCESS: return URISAN_DNS_OK;
    case ARES_ENOTFOUND: return URISAN_DNS_NXDOMAIN;
    case ARES_ESERVFAIL: return URISAN_DNS_SERVFAIL;
    case ARES_ETIMEOUT: return URISAN_DNS_TIMEOUT;
    default: return URISAN_DNS_FAILED;
    }
}

static void addrinfo_done(void *arg, int st, int timeouts, struct ares_addrinfo *ai)
{
    (void)timeouts;
    pending *q = arg;
    urisan_resolver *r = q->r;
    urisan_net_result *res = malloc(sizeof *res);
    if (res != NULL) {
        memset(res, 0, sizeof *res);
        memcpy(res->name, q->name, sizeof res->name);
        res->status = status_of(st);
        bool over = false;
        uint32_t ttl = UINT32_MAX;
        if (st == ARES_SUCCESS && ai != NULL) {
            for (struct ares_addrinfo_node *n = ai->nodes; n != NULL; n = n->ai_next) {
                int fam = n->ai_family == AF_INET ? 4 : n->ai_family == AF_INET6 ? 6 : 0;
                if (fam == 0 || n->ai_addr == NULL)
                    continue;
                if (res->n_addrs == URISAN_NET_MAX_ADDRS) {
                    over = true;
                    break;
                }
                urisan_net_addr *a = &res->addrs[res->n_addrs++];
                a->family = fam;
                if (fam == 4)
                    memcpy(a->addr, &((const struct sockaddr_in *)(const void *)n->ai_addr)->sin_addr, 4);
                else
                    memcpy(a->addr, &((const struct sockaddr_in6 *)(const void *)n->ai_addr)->sin6_addr, 16);
                if (n->ai_ttl >= 0 && (uint32_t)n->ai_ttl < ttl)
                    ttl = (uint32_t)n->ai_ttl;
            }
            for (struct ares_addrinfo_cname *c = ai->cnames; c != NULL; c = c->next)
                if (c->ttl >= 0 && (uint32_t)c->ttl < ttl)
                    ttl = (uint32_t)c->ttl;
        }
        res->ttl = ttl == UINT32_MAX ? 0 : ttl;
        if (res->status == URISAN_DNS_OK && (res->n_addrs == 0 || over))
            res->status = URISAN_DNS_FAILED; /* no address, or more than are judged */
        if (res->status == URISAN_DNS_OK && r->n_slots > 0 && res->ttl > 0 && !over) {
            cache_slot *s = &r->slots[slot_of(r, q->name)];
            memcpy(s->name, q->name, sizeof s->name);
            s->n = (uint8_t)res->n_addrs;
            for (size_t i = 0; i < res->n_addrs; i++) {
                s->family[i] = (uint8_t)res->addrs[i].family;
                memcpy(s->addr[i], res->addrs[i].addr, 16);
            }
            s->ttl = res->ttl;
            s->expires_ms = now_ms() + (uint64_t)res->ttl * 1000u;
        }
    }
    urisan_net_result fail; /* no memory: denied, fail closed */
    if (res == NULL) {
        memset(&fail, 0, sizeof fail);
        memcpy(fail.name, q->name, sizeof fail.name);
        fail.status = URISAN_DNS_FAILED;
    }
    /* off the list of lookups in flight before a waiter starts another */
    for (pending **pp = &r->flying; *pp != NULL; pp = &(*pp)->next)
        if (*pp == q) {
            *pp = q->next;
            break;
        }
    r->inflight--;
    for (waiter *w = q->waiters, *next; w != NULL; w = next) {
        next = w->next;
        urisan_net_result *out = res != NULL ? res : &fail;
        urisan_net_judge_addrs(w->pol, out);
        if (st != ARES_EDESTRUCTION)
            w->fn(w->ctx, out);
        free(w);
    }
    free(res);
    if (ai != NULL)
        ares_freeaddrinfo(ai);
    free(q);
}

/* The cached answer of name, copied into res; false: none in its TTL. */
static bool cache_get(urisan_resolver *r, const char *name, urisan_net_result *res)
{
    if (r->n_slots == 0)
        return false;
    const cache_slot *s = &r->slots[slot_of(r, name)];
    if (s->expires_ms == 0 || strcmp(s->name, name) != 0)
        return false;
    uint64_t now = now_ms();
    if (now >= s->expires_ms)
        return false;
    res->status = URISAN_DNS_OK;
    res->n_addrs = s->n;
    for (size_t i = 0; i < s->n; i++) {
        res->addrs[i].family = s->family[i];
        memcpy(res->addrs[i].addr, s->addr[i], 16);
    }
    res->ttl = (uint32_t)((s->expires_ms - now + 999) / 1000);
    res->cached = 1;
    return true;
}

urisan_status urisan_net_lookup(urisan_resolver *r, const char *name, const urisan_policy *pol,
                                unsigned max_inflight, urisan_resolve_fn fn, void *ctx,
                                urisan_net_result *scratch)
{
    if (cache_get(r, name, scratch)) {
        urisan_net_judge_addrs(pol, scratch);
        fn(ctx, scratch);
        return URISAN_OK;
    }
    if (max_inflight == 0)
        max_inflight = 64;
    waiter *w = calloc(1, sizeof *w);
    if (w == NULL) {
        scratch->status = URISAN_DNS_FAILED;
        urisan_net_judge_addrs(pol, scratch);
        fn(ctx, scratch);
        return URISAN_OK;
    }
    w->pol = pol;
    w->fn = fn;
    w->ctx = ctx;
    for (pending *p = r->flying; p != NULL; p = p->next)
        if (strcmp(p->name, name) == 0) {
            w->next = p->waiters;
            p->waiters = w;
            return URISAN_OK;
        }
    while (r->inflight >= max_inflight)
        step(r);
    pending *q = calloc(1, sizeof *q);
    if (q == NULL) {
        free(w);
        scratch->status = URISAN_DNS_FAILED;
        urisan_net_judge_addrs(pol, scratch);
        fn(ctx, scratch);
        return URISAN_OK;
    }
    q->r = r;
    q->waiters = w;
    memcpy(q->name, name, sizeof q->name);
    q->next = r->flying;
    r->flying = q;
    struct ares_addrinfo_hints hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_flags = ARES_AI_NOSORT;
    r->inflight++;
    ares_getaddrinfo(r->ch, q->name, NULL, &hints, addrinfo_done, q);
    return URISAN_OK;
}

URISAN_API void urisan_resolve_wait(urisan_resolver *r)
{
    if (r == NULL)
        return;
    while (r->inflight > 0)
        step(r);
}
