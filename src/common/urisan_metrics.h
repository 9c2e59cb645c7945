/*
 * urisan_metrics.h - the counters a gateway door keeps (`urisan serve`'s
 * GET /metrics, the nginx module's `urisan_metrics` location) and their
 * one writer, in the Prometheus text exposition format 0.0.4.
 *
 * The names are a contract, stable like flag names (doc/gateways.md
 * "Metrics"): extend only, never rename. Every door counts through
 * urisan_metrics_count and prints through urisan_metrics_format, so the
 * same request mix gives the same figures at every door.
 *
 * The counters are plain uint64_t changed with relaxed atomic adds (the
 * compiler's __atomic builtins): a struct that lives in memory shared by
 * processes (nginx's workers) or threads (serve's pool) alike. No
 * allocation, no lock; the writer takes (buf, cap) and sets *needed.
 */
#ifndef URISAN_METRICS_H
#define URISAN_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "urisan.h"

/* The deny reasons a door adds itself, beside the library's flags and
   rules: why a request made no URI to judge (1: a malformed request,
   also counted in urisan_malformed_requests_total), or why it could not
   be judged (0). A name not in the list counts as "other". */
#define URISAN_METRICS_OWN_LIST(X) \
    X("no_uri", 1)                 \
    X("duplicate_header", 1)       \
    X("bad_host_header", 1)        \
    X("no_host_header", 1)         \
    X("bad_proto_header", 1)       \
    X("bad_uri_header", 1)         \
    X("outside_prefix", 1)         \
    X("too_long", 1)               \
    X("host_mismatch", 1)          \
    X("authority_form", 1)         \
    X("asterisk_form", 1)          \
    X("bad_method", 1)             \
    X("bad_argument", 0)           \
    X("nospace", 0)                \
    X("bad_policy", 0)             \
    X("denied", 0)                 \
    X("other", 0)

#define URISAN_MX_(name, malformed) +1
enum { URISAN_METRICS_OWN_N = 0 URISAN_METRICS_OWN_LIST(URISAN_MX_) };
#undef URISAN_MX_

/* The decision's duration: the upper bounds of the histogram's buckets,
   in nanoseconds and as printed (seconds); +Inf follows. */
#define URISAN_METRICS_BUCKET_LIST(X) \
    X(5000, "0.000005")               \
    X(10000, "0.00001")               \
    X(25000, "0.000025")              \
    X(50000, "0.00005")               \
    X(100000, "0.0001")               \
    X(250000, "0.00025")              \
    X(500000, "0.0005")               \
    X(1000000, "0.001")               \
    X(2500000, "0.0025")              \
    X(10000000, "0.01")

#define URISAN_MX_(ns, text) +1
enum { URISAN_METRICS_BUCKETS = 1 URISAN_METRICS_BUCKET_LIST(URISAN_MX_) };   /* +Inf */
#undef URISAN_MX_

typedef struct {
    uint64_t requests[3];                    /* by verdict: allow, flag, deny */
    uint64_t deny_flag[64];                  /* by flag bit that denied */
    uint64_t deny_rule[32];                  /* by rule reason that denied */
    uint64_t deny_own[URISAN_METRICS_OWN_N]; /* by the door's own reason */
    uint64_t malformed;                      /* no URI could be made */
    uint64_t reloads, reload_failures;       /* of the policy */
    uint64_t bucket[URISAN_METRICS_BUCKETS]; /* decisions per bucket (not
                                                cumulative; +Inf last) */
    uint64_t duration_ns;                    /* sum of the decisions' time */
} urisan_metrics;

/*
 * One judged request: its verdict, what denied it (the decision's deny
 * flags and rules, and the door's own reason, NULL: none) and how long
 * the decision took. Only a deny's reasons are counted.
 */
void urisan_metrics_count(urisan_metrics *m, urisan_verdict v, urisan_flags deny_flags,
                          unsigned rules, const char *own, uint64_t ns);

/* A policy reload: ok (counted in urisan_policy_reloads_total) or not
   (urisan_policy_reload_failures_total). */
void urisan_metrics_reload(urisan_metrics *m, int ok);

/*
 * The exposition (text/plain; version=0.0.4) of *m into buf[0..cap):
 * every family with its HELP and TYPE lines; requests by each verdict
 * always, a denial series only for a reason counted at least once.
 * *needed always set (the bytes written, without a NUL); URISAN_E_NOSPACE
 * when they do not fit. URISAN_METRICS_TEXT_MAX bytes always suffice.
 */
urisan_status urisan_metrics_format(const urisan_metrics *m, char *buf, size_t cap,
                                    size_t *needed);

#define URISAN_METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define URISAN_METRICS_TEXT_MAX 32768

#endif
