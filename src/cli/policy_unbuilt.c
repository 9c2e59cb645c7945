/* policy_unbuilt.c - rules no door of a build applies (policy_unbuilt.h). */
#include "policy_unbuilt.h"

#define MAIL_FLAGS (URISAN_F(LINK_TEXT_MISMATCH) | URISAN_F(MAIL_LIMIT))

size_t cli_unbuilt_rules(const urisan_policy *p, unsigned missing, cli_unbuilt_fn fn, void *ctx)
{
    urisan_flags host = (missing & CLI_LAYER_HOST) ? URISAN_HOST_FLAGS : 0;
    urisan_flags mail = (missing & CLI_LAYER_MAIL) ? MAIL_FLAGS : 0;
    size_t n = 0;
    for (unsigned b = 0; b < 64; b++) {
        urisan_flags f = (urisan_flags)1 << b;
        if (!((host | mail) & f))
            continue;
        /* the line that last set the flag's rule (deny, flag or allow) */
        size_t line = urisan_policy_origin(p, URISAN_ORIGIN_DENY_FLAG, b, NULL);
        if (line == 0)
            continue;
        fn(ctx, line, urisan_flag_name((urisan_flag)b),
           (host & f) ? "host judgement (ICU, libidn2, libpsl)" : "mail (liburisan-mail)");
        n++;
    }
    return n;
}
