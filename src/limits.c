/* limits.c - the length bounds of SPEC section 2. */
#include "internal.h"

URISAN_API void urisan_limits_default(urisan_limits *lim)
{
    lim->max_uri = 8192;
    lim->max_scheme = 64;
    lim->max_userinfo = 1024;
    lim->max_host = 255;   /* DNS, RFC 1034 3.1 */
    lim->max_label = 63;   /* DNS, RFC 1034 3.1 */
    lim->max_segments = 1024;
}

static size_t clamp(size_t v) { return v > URISAN_HARD_CEILING ? URISAN_HARD_CEILING : v; }

void urisan_limits_effective(const urisan_limits *in, urisan_limits *out)
{
    if (in == NULL) {
        urisan_limits_default(out);
        return;
    }
    out->max_uri = clamp(in->max_uri);
    out->max_scheme = clamp(in->max_scheme);
    out->max_userinfo = clamp(in->max_userinfo);
    out->max_host = clamp(in->max_host);
    out->max_label = clamp(in->max_label);
    out->max_segments = clamp(in->max_segments);
}
