/*
 * schemes.c - the lookups of the one scheme table (schemes.h). A
 * policy's default-port and dangerous-scheme lines are an overlay
 * (schemes.h) consulted with it.
 */
#include "schemes.h"

/* n bytes of lower (lower-case) and s (any case) equal without case? */
static bool name_ieq(const char *lower, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (lower_ascii((unsigned char)s[i]) != (unsigned char)lower[i])
            return false;
    return true;
}

const scheme_row *urisan_scheme_find_rest(const char *s, size_t n)
{
    if (n < 2 || n > SCHEME_MAX_LEN)
        return NULL;
    unsigned char c0 = lower_ascii((unsigned char)s[0]);
    for (size_t i = 0; i < URISAN_SCHEME_ROWS; i++) {
        const scheme_row *r = &urisan_scheme_table[i];
        if (r->len == n && (unsigned char)r->name[0] == c0 && name_ieq(r->name, s, n))
            return r;
    }
    return NULL;
}

/* A lower-case pool string e against s[0..n) without case. */
static bool pool_ieq(const char *pool, pol_str e, const char *s, size_t n)
{
    return e.len == n && name_ieq(pool + e.off, s, n);
}

bool urisan_scheme_overlay_dangerous(const scheme_overlay *ov, const char *s, size_t n)
{
    if (ov != NULL)
        for (size_t i = 0; i < ov->n_dangerous; i++)
            if (pool_ieq(ov->pool, ov->dangerous[i], s, n))
                return true;
    return false;
}

bool urisan_scheme_dangerous(const scheme_overlay *ov, const char *s, size_t n)
{
    const scheme_row *r = urisan_scheme_find(s, n);
    return (r != NULL && (r->bits & SCHEME_DANGEROUS)) || urisan_scheme_overlay_dangerous(ov, s, n);
}

int urisan_scheme_port(const scheme_overlay *ov, const char *s, size_t n)
{
    if (ov != NULL)
        for (size_t i = 0; i < ov->n_defport; i++)
            if (pool_ieq(ov->pool, ov->defport[i].name, s, n))
                return ov->defport[i].port;
    const scheme_row *r = urisan_scheme_find(s, n);
    return r != NULL ? r->port : -1;
}

URISAN_API int urisan_default_port(const char *scheme, size_t len)
{
    if (scheme == NULL || len == 0)
        return -1;
    return urisan_scheme_port(NULL, scheme, len);
}
