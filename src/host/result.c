/* result.c - the host's part of a result (urisan_result_host,
   urisan_host.h): the keys the view gives, and the flags a nested URL
   is listed with; the same keys of a link's row (urisan_link_row_host). */
#include "host_internal.h"

static urisan_flags nested_flags(void *ctx, const urisan_policy *pol,
                                 const urisan_nested_url *nu)
{
    return urisan_nested_flags_policy(ctx, pol, nu);
}

/* The forms of the keys host_unicode ... registrable_domain of hv for a
   line with flags (a result's, a row's). */
static void host_forms(const char *form[4], size_t len[4], const urisan_hostview *hv,
                       urisan_flags flags, int skeleton_always)
{
    for (unsigned k = 0; k < 4; k++) {
        form[k] = NULL;
        len[k] = 0;
    }
    if (hv == NULL || !hv->is_name)
        return;
    const char *s[4] = { hv->unicode, hv->skeleton, hv->imitates, hv->registrable };
    size_t n[4] = { hv->unicode_len, hv->skeleton_len, hv->imitates_len, hv->registrable_len };
    if (!skeleton_always && !urisan_host_skeleton_shown(hv, flags))
        n[1] = 0;
    for (unsigned k = 0; k < 4; k++) {
        if (k == 0 || n[k] != 0) {   /* host_unicode "" stays "" */
            form[k] = s[k];
            len[k] = n[k];
        }
    }
}

URISAN_API void urisan_result_host(urisan_result *r, urisan_host_ctx *ctx,
                                   const urisan_hostview *hv, int skeleton_always)
{
    r->nested_flags = nested_flags;
    r->nested_arg = ctx;
    host_forms(r->host_form, r->host_form_len, hv, r->rep->flags, skeleton_always);
}

URISAN_API void urisan_link_row_host(urisan_link_row *row, const urisan_hostview *hv,
                                     int skeleton_always)
{
    host_forms(row->host_form, row->host_form_len, hv, row->flags, skeleton_always);
}
