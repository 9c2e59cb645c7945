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

/* Fill in an error the library left unset. */
static void settle_error(urisan_status st, urisan_error *err)
{
    if (st != URISAN_OK && err->code == URISAN_OK) {
        err->code = st;
        err->offset = 0;
    }
    if (st == URISAN_OK)
        err->code = URISAN_OK;
}

urisan_status cli_resolve(const char *base, size_t blen,
                          const char *ref, size_t rlen,
                          const urisan_resolve_opts *opt,
                          char **buf, size_t *cap, size_t *outlen,
                          urisan_flags *flags, urisan_error *err)
{
    urisan_status st = URISAN_E_NOSPACE;
    *outlen = 0;
    /* Two rounds suffice (the second has the reported size); a third
       guards against a size that changes between calls. */
    for (int round = 0; round < 3; round++) {
        size_t needed = 0;
        *err = (urisan_error){ URISAN_OK, 0, 0 };
        if (flags != NULL)
            *flags = 0;
        st = urisan_resolve(base, blen, ref, rlen, opt,
                            *buf, *cap, &needed, flags, err);
        if (st != URISAN_E_NOSPACE) {
            if (st == URISAN_OK)
                *outlen = needed;
            break;
        }
        if (!cli_grow(buf, cap, needed, CLI_RESULT_MAX))
            break;
    }
    settle_error(st, err);
    return st;
}

urisan_status cli_normalize(const char *in, size_t len,
                            const urisan_limits *lim,
                            char **buf, size_t *cap, size_t *outlen,
                            urisan_error *err)
{
    urisan_status st = URISAN_E_NOSPACE;
    *outlen = 0;
    for (int round = 0; round < 3; round++) {
        size_t needed = 0;
        *err = (urisan_error){ URISAN_OK, 0, 0 };
        st = urisan_normalize(in, len, lim, *buf, *cap, &needed, err);
        if (st != URISAN_E_NOSPACE) {
            if (st == URISAN_OK)
                *outlen = needed;
            break;
        }
        if (!cli_grow(buf, cap, needed, CLI_RESULT_MAX))
            break;
    }
    settle_error(st, err);
    return st;
}
