/*
 * serve_uri.h - the URI a gateway is about to forward, rebuilt from an
 * authorization sub-request's headers, and the answer to give
 * (`urisan serve`, doc/gateways.md).
 *
 * Pure functions over bytes: no HTTP library, no allocation, no global
 * state, linear time. cmd_serve.c fills a serve_request from
 * libmicrohttpd; fuzz/serve.c fills one from any bytes.
 */
#ifndef URISAN_SERVE_URI_H
#define URISAN_SERVE_URI_H

#include <stdbool.h>
#include <stddef.h>

#include "urisan.h"

/* The request, the trust order and the URI rebuilt from them are the
   library's (urisan.h, "A request as a gateway has it"): urisan_request,
   urisan_request_trust, urisan_request_uri; the judgement is
   urisan_judge_request (urisan_host.h). serve adds its own default trust. */

/* The default trust: the three header sources, in the order of
   URISAN_REQUEST_SOURCE_LIST, not the request's own target: a gateway
   that sends none of the headers (a configuration mistake) must not have
   its sub-request's own target ("/auth" on the service's host) judged and
   allowed. Envoy's mode is `--trust target --strip-prefix PATH`. */
#define SERVE_TRUST_DEFAULT "original-url,original-uri,forwarded-uri"

void serve_trust_default(urisan_request_trust *t);
/*
 * --trust LIST (urisan_request_trust_parse): comma-separated source
 * names, in precedence order, each at most once, at least one. On a
 * mistake returns false and points *bad and *badlen at the offending word
 * (the whole list when it is empty).
 */
bool serve_trust_parse(const char *list, size_t len, urisan_request_trust *t,
                       const char **bad, size_t *badlen);

/* ---- the answer to one authorization request ---- */

#define SERVE_REASONS_MAX 2048   /* every flag and rule name fits */

/*
 * What serve judges by. A gateway forwards only to a host, so serve
 * decides under the policy loaded plus `require-authority` (the
 * library's rule: reasons not_absolute, no_authority); the policy as
 * loaded tells where each of its rules came from (explain, /healthz).
 */
typedef struct {
    urisan_policy *loaded;        /* as loaded (--profile, --policy) */
    urisan_policy *judge;         /* loaded + require-authority: decides */
    unsigned own_rules;           /* rule reasons (bits of urisan_rule_reason)
                                     judge gives and loaded would not:
                                     serve's own (explain: REASON=serve) */
} serve_policy;

/*
 * judge (urisan_policy_size() bytes of caller memory) becomes a copy of
 * loaded with require-authority; sp says both (and holds them: the
 * caller frees both when done). No allocation. False
 * when the library refuses the line (it cannot).
 */
bool serve_policy_make(serve_policy *sp, urisan_policy *loaded, urisan_policy *judge);

typedef struct {
    unsigned status;                  /* 200 or 403 */
    urisan_verdict verdict;
    urisan_request_reason uri_status; /* OK, or why there was no URI */
    char deny[SERVE_REASONS_MAX];     /* X-Urisan-Deny-Reasons ("-": none) */
    char flag[SERVE_REASONS_MAX];     /* X-Urisan-Flag-Reasons ("-": none) */
    size_t uri_len;                   /* of the URI judged (in buf) */
    urisan_decision dec;              /* the policy's decision (zero: none) */
    const char *own;                  /* the deny reason serve adds itself
                                         (no URI, could not judge), or NULL */
    const char *explain;              /* X-Urisan-Explain (cmd_serve.c; NULL:
                                         not asked for) */
} serve_answer;

/*
 * Rebuild the URI (into buf, cap bytes) and judge it under sp->judge:
 * 200 for allow and flag, 403 for deny; the reasons are the decision's
 * (deny: its flags, then its rules; flag: the flags only reported).
 * Fails closed: no URI (its status's name is the reason), or a URI the
 * library could not judge, is denied.
 */
void serve_decide(const urisan_request *r, const urisan_request_trust *t,
                  const serve_policy *sp, char *buf, size_t cap,
                  serve_answer *a);

#endif
