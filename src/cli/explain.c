/*
 * explain.c - where the reasons of a decision come from (--explain): for
 * each deny and flag reason, the rule of the policy that made it one -
 * "FILE:LINE" of the policy file, or "profile NAME" for a rule of a
 * built-in profile (the default policy is the profile "default"); for a
 * deny-host or deny-ip reason the line of the entry that matched. The
 * library remembers each rule's line (urisan_judge_origin, which finds
 * a deny-host entry in the form a browser resolves too); the
 * command remembers which file it read (cli_policy_load).
 */
#include "cli.h"

#ifdef URISAN_HAVE_HOST
#include "urisan_host.h"
#endif

#include <stdio.h>
#include <string.h>

/* The URI a decision judged. */
typedef struct {
    const char *in;
    size_t len;
} cli_judged;

/* The origin of one reason of the URI u as text: "FILE:LINE" or
   "profile NAME". */
static void origin_text(cli_buf *b, const urisan_policy *p, const cli_judged *u,
                        urisan_origin_kind kind, unsigned bit, bool json)
{
    const char *prof;
#ifdef URISAN_HAVE_HOST
    size_t line = urisan_judge_origin(NULL, p, u->in, u->len, kind, bit, &prof);
#else
    size_t line = urisan_policy_origin_uri(p, u->in, u->len, kind, bit, &prof);
#endif
    const char *path = cli_policy_path();
    char num[24];
    if (json)
        cli_buf_addc(b, '"');
    if (line > 0 && path != NULL) {
        snprintf(num, sizeof num, ":%zu", line);
        if (json)
            json_escape(b, path, strlen(path));
        else
            cli_text_escape(b, path, strlen(path), false);
        cli_buf_adds(b, num);
    } else {
        cli_buf_lit(b, "profile ");
        cli_buf_adds(b, prof);
    }
    if (json)
        cli_buf_addc(b, '"');
}

/* Each reason of d (in the order of cli_jv_reasons) with its origin:
   JSON {"reason":"origin",...}, or text reason=origin,... */
static void explain(cli_buf *b, const urisan_decision *d, const urisan_policy *p,
                    const cli_judged *u, bool json)
{
    size_t n = 0;
    if (json)
        cli_buf_addc(b, '{');
    for (int pass = 0; pass < 3 && d->verdict != URISAN_ALLOW; pass++) {
        uint64_t set = pass == 0 ? (uint64_t)d->deny_flags
                     : pass == 1 ? (uint64_t)d->rules : (uint64_t)d->flag_flags;
        if (pass == 1)
            set &= ((uint64_t)1 << URISAN_REASON_COUNT_) - 1;
        urisan_origin_kind kind = pass == 0 ? URISAN_ORIGIN_DENY_FLAG
                                : pass == 1 ? URISAN_ORIGIN_RULE : URISAN_ORIGIN_FLAG_FLAG;
        while (set != 0) {
            unsigned bit = (unsigned)__builtin_ctzll(set);
            set &= set - 1;
            const char *name = pass == 1 ? urisan_rule_reason_name((urisan_rule_reason)bit)
                                         : urisan_flag_name((urisan_flag)bit);
            if (name == NULL)
                continue;
            if (n++ > 0)
                cli_buf_addc(b, json ? ',' : ' ');
            if (json) {
                cli_jv_cstr(b, name);
                cli_buf_addc(b, ':');
            } else {
                cli_buf_adds(b, name);
                cli_buf_addc(b, '=');
            }
            origin_text(b, p, u, kind, bit, json);
        }
    }
    if (json)
        cli_buf_addc(b, '}');
}

void cli_jv_explain(cli_buf *b, const urisan_decision *d, const urisan_policy *p,
                    const char *in, size_t len)
{
    cli_judged u = {in, len};
    explain(b, d, p, &u, true);
}

void cli_text_explain(cli_buf *b, const urisan_decision *d, const urisan_policy *p,
                      const char *in, size_t len)
{
    cli_judged u = {in, len};
    explain(b, d, p, &u, false);
}
