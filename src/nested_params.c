/*
 * nested_params.c - the parameters of a query and a fragment, as the
 * servers that hand them to applications split them (nested_find.h):
 * on "&" (WHATWG application/x-www-form-urlencoded, URLSearchParams,
 * Python's parse_qsl since 3.9.2), and also on ";" (Rack 2, Python before
 * 3.9.2, HTML 4.01 B.2.2) where a value holds one. Every byte of a part
 * is looked at once for "&" and at most once more for ";".
 */
#include "nested_find.h"
#include "risk.h"
#include "simd.h"

static bool span_in(urisan_span s, size_t len)
{
    return s.off != URISAN_ABSENT && s.off <= len && s.len <= len - s.off;
}

void urisan_params_init(param_iter *it, const char *t, size_t len, const urisan_uri *u)
{
    it->t = t;
    it->pos = it->end = 0;
    it->fs = URISAN_ABSENT;
    it->fe = 0;
    it->ss = it->se = 0;
    bool q = span_in(u->query, len), f = span_in(u->fragment, len);
    if (q) {
        it->pos = u->query.off;
        it->end = u->query.off + u->query.len;
    }
    if (f) {
        if (q) {
            it->fs = u->fragment.off;
            it->fe = u->fragment.off + u->fragment.len;
        } else {
            it->pos = u->fragment.off;
            it->end = u->fragment.off + u->fragment.len;
        }
    }
}

/* The piece t[s..) up to the first of stop (or end) - ";" pieces stop
   at ";", "&" parameters at "&" - with its first "=" (*eq, ABSENT: none)
   and whether a ";" follows that "=" (*semi). Returns where it ends. */
static ALWAYS_INLINE size_t piece(const char *t, size_t s, size_t end, char stop, size_t *eq,
                                   bool *semi)
{
    size_t e = s;
    *eq = URISAN_ABSENT;
    *semi = false;
    for (;;) {
        e = simd_param_stop(t, e, end); /* "&" ";" "=" */
        if (e >= end || t[e] == stop)
            return e;
        if (t[e] == '=' && *eq == URISAN_ABSENT)
            *eq = e;
        else if (t[e] == ';' && *eq != URISAN_ABSENT)
            *semi = true;
        e++;
    }
}

bool urisan_params_next(param_iter *it, size_t *ns, size_t *vs, size_t *ve)
{
    size_t eq;
    bool semi;
    for (;;) {
        while (it->ss < it->se) { /* the ";" reading of the last parameter */
            size_t s = it->ss, e = piece(it->t, s, it->se, ';', &eq, &semi);
            it->ss = e + 1;
            if (eq != URISAN_ABSENT) {
                *ns = s;
                *vs = eq + 1;
                *ve = e;
                return true;
            }
        }
        while (it->pos < it->end) {
            size_t s = it->pos, e = piece(it->t, s, it->end, '&', &eq, &semi);
            it->pos = e + 1;
            if (eq != URISAN_ABSENT) {
                if (semi) {
                    it->ss = s;
                    it->se = e;
                }
                *ns = s;
                *vs = eq + 1;
                *ve = e;
                return true;
            }
        }
        if (it->fs == URISAN_ABSENT)
            return false;
        it->pos = it->fs;
        it->end = it->fe;
        it->fs = URISAN_ABSENT;
    }
}

/* nested_url (risk.h): here, beside the iterator it walks with. */
bool urisan_nested_any(const char *in, size_t len, const urisan_uri *u)
{
    param_iter it;
    size_t ns, vs, ve;
    urisan_params_init(&it, in, len, u);
    while (urisan_params_next(&it, &ns, &vs, &ve))
        if (urisan_nested_reads(in + vs, ve - vs, false) != 0)
            return true;
    return false;
}
