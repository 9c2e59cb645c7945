/* limits.c - the length bounds (urisan(1), INPUT and POLICY: limit). */
#include "internal.h"
#include "risk.h"

const urisan_limits urisan_default_limits = URISAN_LIMITS_DEFAULT;

URISAN_API void urisan_limits_default(urisan_limits *lim)
{
    *lim = urisan_default_limits;
}

static size_t clamp(size_t v) { return v > URISAN_HARD_CEILING ? URISAN_HARD_CEILING : v; }

void urisan_limits_effective(const urisan_limits *in, urisan_limits *out)
{
    if (in == NULL) {
        *out = urisan_default_limits;
        return;
    }
    out->max_uri = clamp(in->max_uri);
    out->max_scheme = clamp(in->max_scheme);
    out->max_userinfo = clamp(in->max_userinfo);
    out->max_host = clamp(in->max_host);
    out->max_label = clamp(in->max_label);
    out->max_segments = clamp(in->max_segments);
}

/* A policy's limits (here, not in policy.c: the parser asks for them,
   and the parser calls nothing of the policy). */
URISAN_API const urisan_limits *urisan_policy_limits(const urisan_policy *p)
{
    /* the defaults' own address when they are the defaults: a caller can
       tell them apart by the pointer (urisan_policy_limits(NULL)) */
    if (p == NULL || p->magic != POL_MAGIC || !p->limits_custom)
        return &urisan_default_limits;
    return &p->limits;
}

/* The limits a parse under p takes: NULL for the defaults (the parse then
   skips its clamping pass), else p's own (a `limit` line changed them). */
const urisan_limits *urisan_policy_parse_limits(const urisan_policy *p)
{
    if (p == NULL || p->magic != POL_MAGIC || !p->limits_custom)
        return NULL;
    return &p->limits;
}
