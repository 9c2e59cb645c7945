/*
 * judge_request.c - a request judged as the origin receives it
 * (urisan_host.h, urisan_judge_request): the core's rebuild of the URI
 * from the request's parts (urisan_request_uri), then the one decision
 * (urisan_judge) on it. Every gateway door calls this.
 */
#include "host_internal.h"

#include <string.h>

/* A request with no URI to judge: an empty split, invalid, denied with
   no flag (the reason is out->reason). */
static void rejected(urisan_request_judgement *out)
{
    urisan_judgement *j = &out->j;
    memset(j, 0, sizeof *j);
    urisan_parse("", 0, NULL, &j->uri, NULL);
    j->uri.valid = 0;
    j->uri.error = (urisan_error){ URISAN_E_BAD_ARGUMENT, 0, 0 };
    j->dec.verdict = URISAN_DENY;
}

URISAN_API urisan_status urisan_judge_request(urisan_host_ctx *ctx, const urisan_request *r,
                                              const urisan_request_trust *t,
                                              const urisan_policy *pol, unsigned opts,
                                              char *buf, size_t cap,
                                              urisan_request_judgement *out)
{
    if (out == NULL)
        return URISAN_E_BAD_ARGUMENT;
    out->uri_len = 0;
    out->source = URISAN_REQSRC_TARGET;
    if (r == NULL || (buf == NULL && cap > 0)) {
        out->reason = URISAN_REQUEST_NO_SOURCE;
        rejected(out);
        return URISAN_E_BAD_ARGUMENT;
    }
    out->reason = urisan_request_uri(r, t, buf, cap, &out->uri_len, &out->source);
    if (out->reason != URISAN_REQUEST_OK) {
        rejected(out);
        return URISAN_OK;
    }
    urisan_status st = urisan_judge(ctx, buf, out->uri_len, pol, opts, &out->j);
    /* A gateway forwards to a host: a URI without one (an X-Original-URL
       or absolute-form target such as "mailto:x") names nothing it can
       reach. The rule of require-authority, whatever pol says. */
    urisan_judgement *j = &out->j;
    unsigned rules = 0;
    if (!urisan_span_present(j->uri.scheme))
        rules |= 1u << URISAN_REASON_NOT_ABSOLUTE;
    if (!urisan_span_present(j->uri.host) || j->uri.host.len == 0)
        rules |= 1u << URISAN_REASON_NO_AUTHORITY;
    if (rules != 0) {
        if (j->dec.verdict != URISAN_DENY)
            j->dec.deny_flags = 0;
        j->dec.rules |= rules;
        j->dec.verdict = URISAN_DENY;
    }
    return st;
}
