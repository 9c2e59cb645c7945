/*
 * reasons.c - the reasons of a decision as one line of text, deny reasons
 * apart from the flags only reported (urisan_decision_format): the text
 * `urisan check` prints and the Squid helper logs, so that nobody has to
 * guess which flag denied; and a list of reasons alone, "a,b,c"
 * (urisan_reasons_format): serve's headers, the Squid helper's message,
 * the Lua module's verdict.
 */
#include "risk.h"

#include <string.h>

typedef struct {
    char *buf;
    size_t cap, n;
} fmt_out;

static void put(fmt_out *o, const char *s, size_t len)
{
    if (o->n <= o->cap && len <= o->cap - o->n && o->buf != NULL)
        memcpy(o->buf + o->n, s, len);
    o->n += len;
}

/* ",name" (or "name" first) for every bit of f (bit order), then of
   rules (reason order); k: how many are written before; returns how many
   then. The one writer of a comma-joined list of reasons. */
/* The lowest set bit of m != 0. */
static unsigned low_bit(uint64_t m)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctzll(m);
#else
    unsigned n = 0;
    for (; (m & 1u) == 0; m >>= 1)
        n++;
    return n;
#endif
}

static size_t put_names(fmt_out *o, urisan_flags f, unsigned rules, size_t k)
{
    /* the set bits alone, lowest first: a line has a few of 64 */
    for (uint64_t m = (uint64_t)f; m != 0; m &= m - 1) {
        const char *name = urisan_flag_name((urisan_flag)low_bit(m));
        if (name == NULL)
            continue;
        if (k++ > 0)
            put(o, ",", 1);
        put(o, name, strlen(name));
    }
    uint64_t known = ((uint64_t)1 << URISAN_REASON_COUNT_) - 1;
    for (uint64_t m = (uint64_t)rules & known; m != 0; m &= m - 1) {
        const char *name = urisan_rule_reason_name((urisan_rule_reason)low_bit(m));
        if (k++ > 0)
            put(o, ",", 1);
        put(o, name, strlen(name));
    }
    return k;
}

typedef struct {
    const urisan_decision *d;   /* urisan_decision_format */
    urisan_flags f;             /* urisan_reasons_format */
    unsigned rules;
} fmt_what;

/* The text of w into o: the decision's, or the list of f and rules. */
static void write_text(fmt_out *o, const fmt_what *w)
{
    const urisan_decision *d = w->d;
    if (d == NULL) {
        put_names(o, w->f, w->rules, 0);
        return;
    }
    if (d->verdict == URISAN_ALLOW)
        return;
    if (d->verdict == URISAN_DENY) {
        put(o, "denied:", 7);
        put_names(o, d->deny_flags, d->rules, 0);
    }
    if (d->flag_flags != 0) {
        if (o->n > 0)
            put(o, ";", 1);
        put(o, "flagged:", 8);
        put_names(o, d->flag_flags, 0, 0);
    }
}

/* Measure first: a text that does not fit writes nothing. */
static urisan_status format(const fmt_what *w, char *buf, size_t cap, size_t *needed)
{
    fmt_out o = {NULL, 0, 0};
    write_text(&o, w);
    if (o.n <= cap && buf != NULL) {
        fmt_out out = {buf, cap, 0};
        write_text(&out, w);
    }
    *needed = o.n;
    if (o.n > cap || (buf == NULL && o.n > 0))
        return URISAN_E_NOSPACE;
    urisan_nul_after(buf, cap, o.n);
    return URISAN_OK;
}

URISAN_API urisan_status urisan_decision_format(const urisan_decision *d, char *buf,
                                                size_t cap, size_t *needed)
{
    if (needed == NULL || d == NULL) {
        if (needed != NULL)
            *needed = 0;
        return URISAN_E_BAD_ARGUMENT;
    }
    fmt_what w = {d, 0, 0};
    return format(&w, buf, cap, needed);
}

URISAN_API urisan_status urisan_reasons_format(urisan_flags f, unsigned rules, char *buf,
                                               size_t cap, size_t *needed)
{
    if (needed == NULL)
        return URISAN_E_BAD_ARGUMENT;
    fmt_what w = {NULL, f, rules};
    return format(&w, buf, cap, needed);
}
