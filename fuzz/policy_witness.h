/*
 * policy_witness.h - "a policy that parses never holds a rule that can
 * match nothing", as a check: for every host, address, scheme,
 * port, default-port and dangerous-scheme entry of a parsed policy, a
 * witness URI built from the entry must be judged by that entry
 * (deny-host/deny-ip deny it, allow-host/allow-ip/allow-scheme/allow-port
 * let it through, dangerous-scheme flags it, default-port makes its port
 * the default). Used by fuzz/policy.c and tests/test_policy_random.c;
 * reads the policy's internals (src/risk.h). Header only.
 *
 * Witnesses are judged under a copy of the policy with every limit at the
 * hard ceiling (a `limit host 3` line makes long hosts too_long - denied
 * anyway - which is the limit's doing, not a dead rule) and, for
 * allow-ip, with every IPv4 address allowed too (an IPv6 range's witness
 * may carry an IPv4 address that the other ranges must allow).
 */
#ifndef URISAN_POLICY_WITNESS_H
#define URISAN_POLICY_WITNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "risk.h"
#include "urisan.h"

#define WITNESS_MAX 600 /* "http://" + "a." + a 255-byte host + ":65535/" */

typedef struct {
    urisan_policy *q;
    char uri[WITNESS_MAX];
    size_t n;
    char *why;
    size_t cap;
} witness_ctx;

static inline void wit_put(witness_ctx *w, const char *s, size_t n)
{
    if (n > sizeof w->uri - w->n)
        n = sizeof w->uri - w->n;
    memcpy(w->uri + w->n, s, n);
    w->n += n;
}

static inline void wit_str(witness_ctx *w, const char *s)
{
    wit_put(w, s, strlen(s));
}

static inline void wit_num(witness_ctx *w, unsigned v)
{
    char t[16];
    int k = snprintf(t, sizeof t, "%u", v);
    wit_put(w, t, (size_t)k);
}

static inline urisan_decision wit_check(witness_ctx *w, urisan_report *r)
{
    urisan_uri u;
    urisan_decision d;
    char *copy = (char *)malloc(w->n ? w->n : 1); /* exact size: an overread faults */
    if (copy == NULL)
        abort();
    memcpy(copy, w->uri, w->n);
    urisan_check(copy, w->n, w->q, &u, r, &d);
    free(copy);
    return d;
}

/* false and *why filled when the witness of an entry is not judged by it */
static inline bool wit_fail(witness_ctx *w, const char *what, const char *text, size_t tn)
{
    snprintf(w->why, w->cap, "%s '%.*s' matches nothing (witness \"%.*s\")", what, (int)tn, text,
             (int)w->n, w->uri);
    return false;
}

/* "http://" + the host an entry of deny-host / allow-host names + "/" */
static inline void wit_host(witness_ctx *w, const urisan_policy *p, pol_str e)
{
    const char *s = p->pool + e.off;
    w->n = 0;
    wit_str(w, "http://");
    if (memchr(s, ':', e.len) != NULL) {
        wit_put(w, "[", 1);
        wit_put(w, s, e.len);
        wit_put(w, "]", 1);
    } else if (e.len >= 2 && s[0] == '*' && s[1] == '.') {
        wit_put(w, "a", 1);
        wit_put(w, s + 1, e.len - 1);
    } else if (e.len >= 1 && s[0] == '.') {
        wit_put(w, s + 1, e.len - 1);
    } else {
        wit_put(w, s, e.len);
    }
    wit_put(w, "/", 1);
}

/* "http://" + the first address of a range + "/" */
static inline void wit_ip(witness_ctx *w, const pol_cidr *c)
{
    urisan_report rep;
    memset(&rep, 0, sizeof rep);
    rep.ip_family = c->family;
    memcpy(rep.ip, c->a, sizeof rep.ip);
    char t[64];
    size_t tn = 0;
    urisan_format_ip(&rep, t, sizeof t, &tn);
    w->n = 0;
    wit_str(w, c->family == 6 ? "http://[" : "http://");
    wit_put(w, t, tn);
    wit_str(w, c->family == 6 ? "]/" : "/");
}

/*
 * NULL when every entry of p has a witness; otherwise a description of
 * the first that has none, in why[0..cap).
 */
static inline const char *policy_witness(const urisan_policy *p, char *why, size_t cap)
{
    witness_ctx w;
    memset(&w, 0, sizeof w);
    w.why = why;
    w.cap = cap;
    w.q = (urisan_policy *)malloc(urisan_policy_size());
    if (w.q == NULL)
        abort();
    memcpy(w.q, p, urisan_policy_size());
    urisan_limits *l = &w.q->limits;
    l->max_uri = l->max_scheme = l->max_userinfo = URISAN_HARD_CEILING;
    l->max_host = l->max_label = l->max_segments = URISAN_HARD_CEILING;
    if (w.q->n_allow_ip < POL_MAX_IPS) {
        pol_cidr all4;
        memset(&all4, 0, sizeof all4);
        all4.family = 4;
        w.q->allow_ip[w.q->n_allow_ip++] = all4;
    }
    bool ok = true;
    urisan_report r;
    urisan_decision d;
    for (size_t i = 0; ok && i < p->n_deny_host; i++) {
        wit_host(&w, p, p->deny_host[i]);
        d = wit_check(&w, &r);
        if (!(d.rules >> URISAN_REASON_HOST_DENIED & 1u))
            ok = wit_fail(&w, "deny-host", p->pool + p->deny_host[i].off, p->deny_host[i].len);
    }
    for (size_t i = 0; ok && i < p->n_allow_host; i++) {
        wit_host(&w, p, p->allow_host[i]);
        d = wit_check(&w, &r);
        if (d.rules >> URISAN_REASON_HOST_NOT_ALLOWED & 1u)
            ok = wit_fail(&w, "allow-host", p->pool + p->allow_host[i].off, p->allow_host[i].len);
    }
    for (size_t i = 0; ok && i < p->n_deny_ip; i++) {
        wit_ip(&w, &p->deny_ip[i]);
        d = wit_check(&w, &r);
        if (!(d.rules >> URISAN_REASON_IP_DENIED & 1u))
            ok = wit_fail(&w, "deny-ip", "", 0);
    }
    for (size_t i = 0; ok && i < p->n_allow_ip; i++) {
        wit_ip(&w, &p->allow_ip[i]);
        d = wit_check(&w, &r);
        if (d.rules >> URISAN_REASON_IP_NOT_ALLOWED & 1u)
            ok = wit_fail(&w, "allow-ip", "", 0);
    }
    for (size_t i = 0; ok && i < p->n_scheme; i++) {
        w.n = 0;
        wit_put(&w, p->pool + p->scheme[i].off, p->scheme[i].len);
        wit_str(&w, "://h/");
        d = wit_check(&w, &r);
        if (d.rules >> URISAN_REASON_SCHEME_NOT_ALLOWED & 1u)
            ok = wit_fail(&w, "allow-scheme", p->pool + p->scheme[i].off, p->scheme[i].len);
    }
    for (size_t i = 0; ok && i < p->n_port; i++) {
        for (int end = 0; ok && end < 2; end++) {
            w.n = 0;
            wit_str(&w, "http://h:");
            wit_num(&w, end ? p->port[i].hi : p->port[i].lo);
            wit_str(&w, "/");
            d = wit_check(&w, &r);
            if (d.rules >> URISAN_REASON_PORT_NOT_ALLOWED & 1u)
                ok = wit_fail(&w, "allow-port", "", 0);
        }
    }
    for (size_t i = 0; ok && i < p->n_dangerous; i++) {
        w.n = 0;
        wit_put(&w, p->pool + p->dangerous[i].off, p->dangerous[i].len);
        wit_str(&w, ":x");
        (void)wit_check(&w, &r);
        if (!(r.flags & URISAN_F(DANGEROUS_SCHEME)))
            ok = wit_fail(&w, "dangerous-scheme", p->pool + p->dangerous[i].off,
                          p->dangerous[i].len);
    }
    for (size_t i = 0; ok && i < p->n_defport; i++) {
        w.n = 0;
        wit_put(&w, p->pool + p->defport[i].name.off, p->defport[i].name.len);
        wit_str(&w, "://h:");
        wit_num(&w, p->defport[i].port);
        wit_str(&w, "/");
        (void)wit_check(&w, &r);
        if (r.flags & URISAN_F(NONDEFAULT_PORT))
            ok = wit_fail(&w, "default-port", p->pool + p->defport[i].name.off,
                          p->defport[i].name.len);
    }
    free(w.q);
    return ok ? NULL : why;
}

#endif
