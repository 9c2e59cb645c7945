/*
 * metrics.c - the gateway doors' counters and their Prometheus text
 * (urisan_metrics.h). Compiled into each door that exposes them.
 */
#include "urisan_metrics.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const own_names[URISAN_METRICS_OWN_N] = {
#define URISAN_MX_(name, malformed) name,
    URISAN_METRICS_OWN_LIST(URISAN_MX_)
#undef URISAN_MX_
};

static const unsigned char own_malformed[URISAN_METRICS_OWN_N] = {
#define URISAN_MX_(name, malformed) malformed,
    URISAN_METRICS_OWN_LIST(URISAN_MX_)
#undef URISAN_MX_
};

static const uint64_t bucket_ns[URISAN_METRICS_BUCKETS - 1] = {
#define URISAN_MX_(ns, text) ns,
    URISAN_METRICS_BUCKET_LIST(URISAN_MX_)
#undef URISAN_MX_
};

static const char *const bucket_text[URISAN_METRICS_BUCKETS] = {
#define URISAN_MX_(ns, text) text,
    URISAN_METRICS_BUCKET_LIST(URISAN_MX_)
#undef URISAN_MX_
    "+Inf"
};

static void add(uint64_t *c, uint64_t n)
{
    __atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

static uint64_t get(const uint64_t *c)
{
    return __atomic_load_n(c, __ATOMIC_RELAXED);
}

void urisan_metrics_count(urisan_metrics *m, urisan_verdict v, urisan_flags deny_flags,
                          unsigned rules, const char *own, uint64_t ns)
{
    unsigned vi = (unsigned)v < 3 ? (unsigned)v : 2u;
    add(&m->requests[vi], 1);
    if (v == URISAN_DENY) {
        for (unsigned b = 0; deny_flags != 0 && b < 64; b++) {
            if (deny_flags & (urisan_flags)1 << b)
                add(&m->deny_flag[b], 1);
        }
        for (unsigned r = 0; rules != 0 && r < 32; r++) {
            if (rules & 1u << r)
                add(&m->deny_rule[r], 1);
        }
    }
    if (own != NULL) {
        size_t i = 0;
        while (i < URISAN_METRICS_OWN_N - 1 && strcmp(own_names[i], own) != 0)
            i++;   /* the last entry, "other", catches a name not listed */
        add(&m->deny_own[i], 1);
        if (own_malformed[i])
            add(&m->malformed, 1);
    }
    size_t k = 0;
    while (k < URISAN_METRICS_BUCKETS - 1 && ns > bucket_ns[k])
        k++;
    add(&m->bucket[k], 1);
    add(&m->duration_ns, ns);
}

void urisan_metrics_reload(urisan_metrics *m, int ok)
{
    add(ok ? &m->reloads : &m->reload_failures, 1);
}

/* ---- the text ---- */

typedef struct {
    char *buf;
    size_t cap, len;   /* len: the bytes the text needs so far */
} text_t;

static void put(text_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(text_t *t, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t k = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;   /* lines are short */
    if (t->len <= t->cap && k <= t->cap - t->len)
        memcpy(t->buf + t->len, line, k);
    t->len += k;
}

static void family(text_t *t, const char *name, const char *type, const char *help)
{
    put(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void one(text_t *t, const char *name, uint64_t v)
{
    put(t, "%s %llu\n", name, (unsigned long long)v);
}

static void denial(text_t *t, const char *reason, uint64_t v)
{
    if (v != 0)
        put(t, "urisan_denials_total{reason=\"%s\"} %llu\n", reason, (unsigned long long)v);
}

urisan_status urisan_metrics_format(const urisan_metrics *m, char *buf, size_t cap,
                                    size_t *needed)
{
    text_t t = { buf, buf != NULL ? cap : 0, 0 };
    family(&t, "urisan_requests_total", "counter", "Requests judged, by verdict.");
    for (unsigned v = 0; v < 3; v++)
        put(&t, "urisan_requests_total{verdict=\"%s\"} %llu\n",
            urisan_verdict_name((urisan_verdict)v), (unsigned long long)get(&m->requests[v]));
    family(&t, "urisan_denials_total", "counter",
           "Denied requests by reason; a request denied for several reasons counts under each.");
    for (unsigned b = 0; b < 64; b++)
        denial(&t, urisan_flag_name((urisan_flag)b), get(&m->deny_flag[b]));
    for (unsigned r = 0; r < URISAN_REASON_COUNT_; r++)
        denial(&t, urisan_rule_reason_name((urisan_rule_reason)r), get(&m->deny_rule[r]));
    for (size_t i = 0; i < URISAN_METRICS_OWN_N; i++)
        denial(&t, own_names[i], get(&m->deny_own[i]));
    family(&t, "urisan_malformed_requests_total", "counter",
           "Requests whose parts make no URI to judge (denied).");
    one(&t, "urisan_malformed_requests_total", get(&m->malformed));
    family(&t, "urisan_policy_reloads_total", "counter", "Policy reloads that took effect.");
    one(&t, "urisan_policy_reloads_total", get(&m->reloads));
    family(&t, "urisan_policy_reload_failures_total", "counter",
           "Policy reloads refused; the policy in force stayed.");
    one(&t, "urisan_policy_reload_failures_total", get(&m->reload_failures));
    family(&t, "urisan_decision_duration_seconds", "histogram",
           "Time to judge one request: make its URI and decide.");
    uint64_t cum = 0;
    for (size_t k = 0; k < URISAN_METRICS_BUCKETS; k++) {
        cum += get(&m->bucket[k]);
        put(&t, "urisan_decision_duration_seconds_bucket{le=\"%s\"} %llu\n", bucket_text[k],
            (unsigned long long)cum);
    }
    uint64_t ns = get(&m->duration_ns);
    put(&t, "urisan_decision_duration_seconds_sum %llu.%09llu\n",
        (unsigned long long)(ns / 1000000000u), (unsigned long long)(ns % 1000000000u));
    one(&t, "urisan_decision_duration_seconds_count", cum);
    *needed = t.len;
    return t.len <= t.cap ? URISAN_OK : URISAN_E_NOSPACE;
}
