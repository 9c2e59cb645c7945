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

/* The request headers serve reads (matched case-insensitively). */
#define SERVE_HEADER_LIST(X)                          \
    X(ORIGINAL_URL,    "X-Original-URL")              \
    X(ORIGINAL_URI,    "X-Original-URI")              \
    X(ORIGINAL_HOST,   "X-Original-Host")             \
    X(ORIGINAL_PROTO,  "X-Original-Proto")            \
    X(FORWARDED_URI,   "X-Forwarded-Uri")             \
    X(FORWARDED_HOST,  "X-Forwarded-Host")            \
    X(FORWARDED_PROTO, "X-Forwarded-Proto")           \
    X(HOST,            "Host")

typedef enum {
#define SERVE_X_(U, name) SERVE_H_##U,
    SERVE_HEADER_LIST(SERVE_X_)
#undef SERVE_X_
    SERVE_H_COUNT_
} serve_header;

/* Where the URI comes from; --trust names them in precedence order. */
#define SERVE_SOURCE_LIST(X)                 \
    X(ORIGINAL_URL,  "original-url")         \
    X(ORIGINAL_URI,  "original-uri")         \
    X(FORWARDED_URI, "forwarded-uri")        \
    X(TARGET,        "target")

typedef enum {
#define SERVE_X_(U, name) SERVE_SRC_##U,
    SERVE_SOURCE_LIST(SERVE_X_)
#undef SERVE_X_
    SERVE_SRC_COUNT_
} serve_source;

/* Why no URI could be rebuilt: the deny reason serve reports. */
#define SERVE_URI_STATUS_LIST(X)                                            \
    X(OK,              "ok")                                                \
    X(NO_SOURCE,       "no_uri")            /* no trusted source present */ \
    X(DUPLICATE,       "duplicate_header")  /* a header it uses, twice */   \
    X(BAD_HOST,        "bad_host_header")   /* empty, or / ? # @ \ space ctl */ \
    X(NO_HOST,         "no_host_header")    /* the source sent no host */ \
    X(BAD_PROTO,       "bad_proto_header")  /* not a scheme */              \
    X(BAD_PATH,        "bad_uri_header")    /* not "/..." (origin-form) */  \
    X(OUTSIDE_PREFIX,  "outside_prefix")    /* target without --strip-prefix */ \
    X(TOO_LONG,        "too_long")          /* longer than the buffer */

typedef enum {
#define SERVE_X_(U, name) SERVE_URI_##U,
    SERVE_URI_STATUS_LIST(SERVE_X_)
#undef SERVE_X_
    SERVE_URI_COUNT_
} serve_uri_status;

typedef struct {
    const char *p;     /* NULL: absent */
    size_t len;
    unsigned count;    /* how many times the header came (saturates) */
} serve_value;

typedef struct {
    serve_value h[SERVE_H_COUNT_];
    const char *target;   /* the request-target as received, not decoded */
    size_t target_len;
} serve_request;

typedef struct {
    serve_source order[SERVE_SRC_COUNT_];  /* precedence, first wins */
    size_t n;                              /* trusted sources in order[] */
    const char *strip_prefix;              /* target source; NULL: none */
    size_t strip_len;
} serve_trust;

/* "X-Original-URL" etc. */
const char *serve_header_name(serve_header h);
const char *serve_source_name(serve_source s);
const char *serve_uri_status_name(serve_uri_status s);

/* The header id of name[0..len) (ASCII case-insensitive), or -1. */
int serve_header_id(const char *name, size_t len);

/* An empty request (every header absent, no target). */
void serve_request_init(serve_request *r);
/* Record one received header; a header serve does not read is ignored.
   The first value is kept, later ones only counted. */
void serve_request_add(serve_request *r, const char *name, size_t nlen,
                       const char *val, size_t vlen);

/* The default trust: the three header sources, in the order of
   SERVE_SOURCE_LIST, not the request's own target: a gateway that sends
   none of the headers (a configuration mistake) must not have its
   sub-request's own target ("/auth" on the service's host) judged and
   allowed. Envoy's mode is `--trust target --strip-prefix PATH`. */
#define SERVE_TRUST_DEFAULT "original-url,original-uri,forwarded-uri"

void serve_trust_default(serve_trust *t);
/*
 * --trust LIST: comma-separated source names, in precedence order, each
 * at most once, at least one. On a mistake returns false and points
 * *bad and *badlen at the offending word (the whole list when it is empty).
 */
bool serve_trust_parse(const char *list, size_t len, serve_trust *t,
                       const char **bad, size_t *badlen);

/*
 * The URI to judge, into buf[0..cap). *used is the source taken (set
 * whenever one was present). Sources, first trusted one present wins:
 *   original-url   X-Original-URL, as is;
 *   original-uri   X-Original-Proto (else X-Forwarded-Proto, else http)
 *                  "://" X-Original-Host X-Original-URI;
 *   forwarded-uri  X-Forwarded-Proto (else http) "://"
 *                  X-Forwarded-Host X-Forwarded-Uri;
 *   target         an absolute-form target as is (not with a prefix to
 *                  strip), else X-Forwarded-Proto (else http) "://"
 *                  Host, then the target less strip_prefix.
 * A header source never takes the sub-request's own Host (it names the
 * service): without its host header it is no_host_header.
 * Bytes are copied, never decoded. A host may not be empty nor hold
 * / ? # @ \ or a byte <= 0x20 or 0x7f, so the rebuilt URI's authority is
 * exactly the header's; a path must start with "/". A header that is
 * used and came twice is refused (duplicate_header).
 */
serve_uri_status serve_uri_build(const serve_request *r, const serve_trust *t,
                                 char *buf, size_t cap, size_t *len,
                                 serve_source *used);

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
    serve_uri_status uri_status;      /* OK, or why there was no URI */
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
void serve_decide(const serve_request *r, const serve_trust *t,
                  const serve_policy *sp, char *buf, size_t cap,
                  serve_answer *a);

#endif
