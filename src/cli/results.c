/* results.c - library results of unknown size into growable buffers
   (see cli.h). */
#include "cli.h"

#include <stdlib.h>

bool cli_grow(char **buf, size_t *cap, size_t need, size_t max)
{
    if (need <= *cap)
        return true;
    if (need > max)
        return false;
    char *np = realloc(*buf, need ? need : 1);
    if (np == NULL)
        return false;
    *buf = np;
    *cap = need;
    return true;
}

/* A library writer into (buf, cap) that sets *needed (the call of one of
   the functions below with its arguments bound in ctx). */
typedef urisan_status (*writer_fn)(void *ctx, char *buf, size_t cap, size_t *needed);

/* Call w, growing *buf to the size it reports (at most CLI_RESULT_MAX):
   two rounds suffice (the second has the reported size); a third guards
   against a size that changes between calls. *err is always set; a result
   too large for the bound is URISAN_E_NOSPACE. */
static urisan_status grow_write(writer_fn w, void *ctx, char **buf, size_t *cap,
                                size_t *outlen, urisan_error *err)
{
    urisan_status st = URISAN_E_NOSPACE;
    *outlen = 0;
    for (int round = 0; round < 3; round++) {
        size_t needed = 0;
        *err = (urisan_error){ URISAN_OK, 0, 0 };
        st = w(ctx, *buf, *cap, &needed);
        if (st != URISAN_E_NOSPACE) {
            if (st == URISAN_OK)
                *outlen = needed;
            break;
        }
        if (!cli_grow(buf, cap, needed, CLI_RESULT_MAX))
            break;
    }
    /* an error the library left unset */
    if (st != URISAN_OK && err->code == URISAN_OK)
        *err = (urisan_error){ st, 0, 0 };
    if (st == URISAN_OK)
        err->code = URISAN_OK;
    return st;
}

typedef struct {
    const char *base, *ref;
    size_t blen, rlen;
    const urisan_resolve_opts *opt;
    const urisan_policy *pol;
    urisan_flags *flags;
    urisan_host_ctx *host;     /* check --base: */
    unsigned opts;
    urisan_judgement *j;
    urisan_error *err;
} resolve_call;

static urisan_status resolve_writer(void *ctx, char *buf, size_t cap, size_t *needed)
{
    resolve_call *a = ctx;
    if (a->flags != NULL)
        *a->flags = 0;
    return urisan_resolve(a->base, a->blen, a->ref, a->rlen, a->opt, buf, cap, needed,
                          a->flags, a->err);
}

urisan_status cli_resolve(const char *base, size_t blen,
                          const char *ref, size_t rlen,
                          const urisan_resolve_opts *opt,
                          char **buf, size_t *cap, size_t *outlen,
                          urisan_flags *flags, urisan_error *err)
{
    resolve_call a = { .base = base, .ref = ref, .blen = blen, .rlen = rlen, .opt = opt,
                       .flags = flags, .err = err };
    return grow_write(resolve_writer, &a, buf, cap, outlen, err);
}

static urisan_status check_base_writer(void *ctx, char *buf, size_t cap, size_t *needed)
{
    resolve_call *a = ctx;
#ifdef URISAN_HAVE_HOST
    return urisan_judge_base(a->host, a->base, a->blen, a->ref, a->rlen, a->pol, a->opts, buf,
                             cap, needed, a->j, a->err);
#else
    return urisan_check_base(a->base, a->blen, a->ref, a->rlen, a->pol, buf, cap, needed,
                             &a->j->uri, &a->j->rep, &a->j->dec, a->err);
#endif
}

urisan_status cli_check_base(urisan_host_ctx *host, unsigned opts,
                             const char *base, size_t blen,
                             const char *ref, size_t rlen,
                             const urisan_policy *pol,
                             char **buf, size_t *cap, size_t *outlen,
                             urisan_judgement *j, urisan_error *err)
{
    resolve_call a = { .base = base, .ref = ref, .blen = blen, .rlen = rlen, .pol = pol,
                       .host = host, .opts = opts, .j = j, .err = err };
    return grow_write(check_base_writer, &a, buf, cap, outlen, err);
}

typedef struct {
    const char *in;
    size_t len;
    const urisan_limits *lim;
    urisan_error *err;
} normalize_call;

static urisan_status normalize_writer(void *ctx, char *buf, size_t cap, size_t *needed)
{
    normalize_call *a = ctx;
    return urisan_normalize(a->in, a->len, a->lim, buf, cap, needed, a->err);
}

urisan_status cli_normalize(const char *in, size_t len,
                            const urisan_limits *lim,
                            char **buf, size_t *cap, size_t *outlen,
                            urisan_error *err)
{
    normalize_call a = { in, len, lim, err };
    return grow_write(normalize_writer, &a, buf, cap, outlen, err);
}
