/*
 * reasons.c - the reasons of a decision as one line of text, deny reasons
 * apart from the flags only reported (urisan_decision_format): the text
 * `urisan check` prints and the Squid helper logs, so that nobody has to
 * guess which flag denied.
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

/* ",name" (or "name" first) for every bit of f; returns how many. */
static size_t put_flags(fmt_out *o, urisan_flags f, size_t before)
{
    size_t k = before;
    for (unsigned bit = 0; bit < 64; bit++) {
        const char *name;
        if (((f >> bit) & 1u) == 0 || (name = urisan_flag_name((urisan_flag)bit)) == NULL)
            continue;
        if (k++ > 0)
            put(o, ",", 1);
        put(o, name, strlen(name));
    }
    return k;
}

/* The text of d into o (urisan_decision_format). */
static void write_decision(fmt_out *o, const urisan_decision *d)
{
    if (d->verdict != URISAN_ALLOW) {
        if (d->verdict == URISAN_DENY) {
            put(o, "denied:", 7);
            size_t k = put_flags(o, d->deny_flags, 0);
            for (unsigned r = 0; r < URISAN_REASON_COUNT_; r++) {
                if (((d->rules >> r) & 1u) == 0)
                    continue;
                const char *name = urisan_rule_reason_name((urisan_rule_reason)r);
                if (k++ > 0)
                    put(o, ",", 1);
                put(o, name, strlen(name));
            }
        }
        if (d->flag_flags != 0) {
            if (o->n > 0)
                put(o, ";", 1);
            put(o, "flagged:", 8);
            put_flags(o, d->flag_flags, 0);
        }
    }
}

URISAN_API urisan_status urisan_decision_format(const urisan_decision *d, char *buf,
                                                size_t cap, size_t *needed)
{
    if (needed == NULL || d == NULL) {
        if (needed != NULL)
            *needed = 0;
        return URISAN_E_BAD_ARGUMENT;
    }
    /* measure first: a text that does not fit writes nothing */
    fmt_out o = {NULL, 0, 0};
    write_decision(&o, d);
    if (o.n <= cap && buf != NULL) {
        fmt_out w = {buf, cap, 0};
        write_decision(&w, d);
    }
    *needed = o.n;
    if (o.n > cap || (buf == NULL && o.n > 0))
        return URISAN_E_NOSPACE;
    urisan_nul_after(buf, cap, o.n);
    return URISAN_OK;
}
