/*
 * judge.c - the judgement of liburisan-net: the host of a URL (or a host)
 * as a client resolves it, the lookup (resolver.c), and every address of
 * the answer under the address rule (urisan_judge_addr, the rule that
 * judges an IP literal host). Denied when any address is denied (a client
 * may connect to any of them) or when the lookup fails (fail closed).
 */
#include "net_internal.h"

#include "urisan_host.h"

#include <stdlib.h>
#include <string.h>

URISAN_API const char *urisan_dns_status_name(urisan_dns_status s)
{
    switch (s) {
    case URISAN_DNS_OK: return "ok";
    case URISAN_DNS_LITERAL: return "literal";
    case URISAN_DNS_NXDOMAIN: return "nxdomain";
    case URISAN_DNS_SERVFAIL: return "servfail";
    case URISAN_DNS_TIMEOUT: return "timeout";
    case URISAN_DNS_FAILED: return "failed";
    case URISAN_DNS_NO_HOST: return "no_host";
    }
    return NULL;
}

void urisan_net_judge_addrs(const urisan_policy *pol, urisan_net_result *res)
{
    res->rules = 0;
    res->denied_at = 0;
    switch (res->status) {
    case URISAN_DNS_OK:
    case URISAN_DNS_LITERAL: break;
    case URISAN_DNS_NXDOMAIN: res->rules |= 1u << URISAN_REASON_DNS_NXDOMAIN; break;
    case URISAN_DNS_SERVFAIL: res->rules |= 1u << URISAN_REASON_DNS_SERVFAIL; break;
    case URISAN_DNS_TIMEOUT: res->rules |= 1u << URISAN_REASON_DNS_TIMEOUT; break;
    case URISAN_DNS_FAILED:
    case URISAN_DNS_NO_HOST: res->rules |= 1u << URISAN_REASON_DNS_FAILED; break;
    }
    bool flagged = false;
    for (size_t i = 0; i < res->n_addrs; i++) {
        urisan_net_addr *a = &res->addrs[i];
        urisan_judge_addr(pol, a->family, a->addr, &a->d);
        if (a->d.verdict == URISAN_DENY) {
            if (res->denied_at == 0)
                res->denied_at = i + 1;
            res->rules |= 1u << URISAN_REASON_RESOLVED_IP_DENIED;
        } else if (a->d.verdict == URISAN_FLAGGED) {
            flagged = true;
        }
    }
    res->verdict = res->rules != 0 ? URISAN_DENY : flagged ? URISAN_FLAGGED : URISAN_ALLOW;
}

/* A host that is an address (the analysis read it: every spelling a
   client reads, 0x7f.1 too): judged without a lookup. */
static void literal(const urisan_report *rep, const urisan_policy *pol, urisan_net_result *out)
{
    out->status = URISAN_DNS_LITERAL;
    out->n_addrs = 1;
    out->addrs[0].family = rep->ip_family;
    memcpy(out->addrs[0].addr, rep->ip, 16);
    urisan_net_judge_addrs(pol, out);
}

/* The name a client looks up for h[0..n): ASCII as written, lower case;
   with a non-ASCII byte or a percent-escape its UTS #46 form (A-labels)
   from the host layer. false: no name can be made (out: ""). */
static bool lookup_name(const char *h, size_t n, char out[256])
{
    out[0] = 0;
    bool plain = true;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)h[i] >= 0x80 || h[i] == '%')
            plain = false;
    if (plain) {
        if (n == 0 || n > 254)
            return false;
        for (size_t i = 0; i < n; i++) {
            char c = h[i];
            out[i] = c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
        }
        out[n] = 0;
        return true;
    }
    urisan_hostview *hv = malloc(sizeof *hv);
    urisan_host_ctx *ctx = urisan_host_ctx_thread();
    bool ok = hv != NULL && ctx != NULL && urisan_host_view(ctx, h, n, hv) && hv->is_name;
    size_t an = ok ? strlen(hv->ascii) : 0;
    ok = ok && an > 0 && an <= 254;
    if (ok)
        memcpy(out, hv->ascii, an + 1);
    free(hv);
    return ok;
}

typedef struct {
    urisan_net_result *out;
} copy_ctx;

static void copy_result(void *ctx, const urisan_net_result *res)
{
    copy_ctx *c = ctx;
    if (c->out != res)
        memcpy(c->out, res, sizeof *res);
}

/* The facts of the URL in[0..len) and the start of its lookup: an address
   or a failure is judged at once (fn called), a name is looked up. */
static urisan_status start_url(urisan_resolver *r, const char *in, size_t len,
                               const urisan_policy *pol, unsigned max_inflight,
                               urisan_resolve_fn fn, void *ctx)
{
    urisan_net_result *res = malloc(sizeof *res);
    if (res == NULL)
        return URISAN_E_BAD_ARGUMENT;
    memset(res, 0, sizeof *res);
    urisan_uri uri;
    urisan_report rep;
    urisan_parse_analyze(in, len, pol, &uri, NULL, &rep);
    urisan_status st = URISAN_OK;
    bool has_host = uri.host.off != URISAN_ABSENT && uri.host.len > 0 &&
                    uri.host.off + uri.host.len <= len;
    if (rep.ip_family == 4 || rep.ip_family == 6) {
        literal(&rep, pol, res);
        fn(ctx, res);
    } else if (!has_host || in[uri.host.off] == '[' ||
               !lookup_name(in + uri.host.off, uri.host.len, res->name)) {
        /* no host, an IPvFuture literal, or no name a client looks up */
        res->status = has_host ? URISAN_DNS_FAILED : URISAN_DNS_NO_HOST;
        if (has_host) {
            size_t n = uri.host.len < sizeof res->name - 1 ? uri.host.len : sizeof res->name - 1;
            memcpy(res->name, in + uri.host.off, n);
            res->name[n] = 0;
        }
        urisan_net_judge_addrs(pol, res);
        fn(ctx, res);
    } else {
        st = urisan_net_lookup(r, res->name, pol, max_inflight, fn, ctx, res);
    }
    free(res);
    return st;
}

/* "//" host: the host parsed and analysed as a URL's */
static urisan_status start_host(urisan_resolver *r, const char *host, size_t len,
                                const urisan_policy *pol, unsigned max_inflight,
                                urisan_resolve_fn fn, void *ctx)
{
    char buf[2 + 1024 + 2];
    if (len > 1024)
        return URISAN_E_TOO_LONG;
    size_t n = 0;
    buf[n++] = '/';
    buf[n++] = '/';
    bool v6 = len > 0 && host[0] != '[' && memchr(host, ':', len) != NULL;
    if (v6)
        buf[n++] = '[';
    memcpy(buf + n, host, len);
    n += len;
    if (v6)
        buf[n++] = ']';
    return start_url(r, buf, n, pol, max_inflight, fn, ctx);
}

URISAN_API urisan_status urisan_resolve_start(urisan_resolver *r, const char *host, size_t len,
                                              const urisan_policy *pol, unsigned max_inflight,
                                              urisan_resolve_fn fn, void *ctx)
{
    if (r == NULL || (host == NULL && len != 0) || fn == NULL)
        return URISAN_E_BAD_ARGUMENT;
    return start_host(r, host, len, pol, max_inflight, fn, ctx);
}

URISAN_API urisan_status urisan_resolve_start_url(urisan_resolver *r, const char *url,
                                                  size_t len, const urisan_policy *pol,
                                                  unsigned max_inflight, urisan_resolve_fn fn,
                                                  void *ctx)
{
    if (r == NULL || (url == NULL && len != 0) || fn == NULL)
        return URISAN_E_BAD_ARGUMENT;
    return start_url(r, url, len, pol, max_inflight, fn, ctx);
}

static void fail_result(urisan_net_result *out, const urisan_policy *pol)
{
    memset(out, 0, sizeof *out);
    out->status = URISAN_DNS_FAILED;
    urisan_net_judge_addrs(pol, out);
}

URISAN_API urisan_status urisan_resolve_judge(urisan_resolver *r, const char *host, size_t len,
                                              const urisan_policy *pol,
                                              urisan_net_result *out)
{
    if (out == NULL)
        return URISAN_E_BAD_ARGUMENT;
    fail_result(out, pol);
    if (r == NULL || (host == NULL && len != 0))
        return URISAN_E_BAD_ARGUMENT;
    copy_ctx c = {out};
    urisan_status st = start_host(r, host, len, pol, 0, copy_result, &c);
    urisan_resolve_wait(r);
    return st;
}

URISAN_API urisan_status urisan_resolve_judge_url(urisan_resolver *r, const char *url,
                                                  size_t len, const urisan_policy *pol,
                                                  urisan_net_result *out)
{
    if (out == NULL)
        return URISAN_E_BAD_ARGUMENT;
    fail_result(out, pol);
    if (r == NULL || (url == NULL && len != 0))
        return URISAN_E_BAD_ARGUMENT;
    copy_ctx c = {out};
    urisan_status st = start_url(r, url, len, pol, 0, copy_result, &c);
    urisan_resolve_wait(r);
    return st;
}

URISAN_API urisan_status urisan_judge_sockaddr(const urisan_policy *pol,
                                               const struct sockaddr *sa, size_t salen,
                                               urisan_addr_decision *out)
{
    if (sa != NULL && sa->sa_family == AF_INET && salen >= sizeof(struct sockaddr_in))
        return urisan_judge_addr(pol, 4,
                                 (const uint8_t *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr,
                                 out);
    if (sa != NULL && sa->sa_family == AF_INET6 && salen >= sizeof(struct sockaddr_in6))
        return urisan_judge_addr(pol, 6,
                                 (const uint8_t *)&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr,
                                 out);
    return urisan_judge_addr(pol, 0, NULL, out);
}

URISAN_API urisan_status urisan_net_addr_text(const urisan_net_addr *a, char *buf, size_t cap,
                                              size_t *needed)
{
    urisan_report rep;
    memset(&rep, 0, sizeof rep);
    if (a != NULL) {
        rep.ip_family = a->family;
        memcpy(rep.ip, a->addr, 16);
    }
    return urisan_format_ip(&rep, buf, cap, needed);
}

/* Appends s[0..n) to buf within cap; the length it would need in *at. */
static void put(char *buf, size_t cap, size_t *at, const char *s, size_t n)
{
    if (*at < cap) {
        size_t k = cap - *at < n ? cap - *at : n;
        memcpy(buf + *at, s, k);
    }
    *at += n;
}

URISAN_API urisan_status urisan_net_result_format(const urisan_net_result *res, char *buf,
                                                  size_t cap, size_t *needed)
{
    size_t at = 0;
    if (res != NULL && res->verdict == URISAN_DENY) {
        if (res->denied_at > 0 && res->denied_at <= res->n_addrs) {
            const urisan_net_addr *a = &res->addrs[res->denied_at - 1];
            char ip[64];
            size_t ipn = 0;
            if (urisan_net_addr_text(a, ip, sizeof ip, &ipn) != URISAN_OK)
                ipn = 0;
            put(buf, cap, &at, "resolves to ", 12);
            put(buf, cap, &at, ip, ipn);
            put(buf, cap, &at, " (", 2);
            char why[512];
            size_t wn = 0;
            if (urisan_reasons_format(a->d.deny_flags, a->d.rules, why, sizeof why, &wn) != URISAN_OK)
                wn = 0;
            if (wn == 0)
                put(buf, cap, &at, "denied", 6);
            put(buf, cap, &at, why, wn);
            put(buf, cap, &at, ")", 1);
        } else if (res->status == URISAN_DNS_NO_HOST) {
            put(buf, cap, &at, "no host to look up", 18);
        } else {
            const char *s = urisan_dns_status_name(res->status);
            put(buf, cap, &at, "dns_", 4);
            put(buf, cap, &at, s, strlen(s));
            put(buf, cap, &at, ": ", 2);
            put(buf, cap, &at, res->name, strlen(res->name));
        }
    }
    if (needed != NULL)
        *needed = at;
    if (at >= cap) {
        if (cap > 0)
            buf[0] = 0;
        return URISAN_E_NOSPACE;
    }
    buf[at] = 0;
    return URISAN_OK;
}
