/* result.c - the host's part of a result (urisan_result_host,
   urisan_host.h): the keys the view gives, and the flags a nested URL
   is listed with. */
#include "host_internal.h"

static urisan_flags nested_flags(void *ctx, const urisan_policy *pol,
                                 const urisan_nested_url *nu)
{
    return urisan_nested_flags_policy(ctx, pol, nu);
}

URISAN_API void urisan_result_host(urisan_result *r, urisan_host_ctx *ctx,
                                   const urisan_hostview *hv, int skeleton_always)
{
    r->nested_flags = nested_flags;
    r->nested_arg = ctx;
    for (unsigned k = 0; k < 4; k++) {
        r->host_form[k] = NULL;
        r->host_form_len[k] = 0;
    }
    if (hv == NULL || !hv->is_name)
        return;
    const char *s[4] = { hv->unicode, hv->skeleton, hv->imitates, hv->registrable };
    size_t n[4] = { hv->unicode_len, hv->skeleton_len, hv->imitates_len, hv->registrable_len };
    if (!skeleton_always && !urisan_host_skeleton_shown(hv, r->rep->flags))
        n[1] = 0;
    for (unsigned k = 0; k < 4; k++) {
        if (k == 0 || n[k] != 0) {   /* host_unicode "" stays "" */
            r->host_form[k] = s[k];
            r->host_form_len[k] = n[k];
        }
    }
}
