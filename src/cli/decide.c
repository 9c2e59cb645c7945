/* decide.c - the one decision for serve and squid-acl (see decide.h). */
#include "decide.h"

#include <string.h>

#ifdef URISAN_HAVE_HOST
#include "urisan_host.h"
#endif

urisan_status cli_decide(const char *in, size_t len, const urisan_policy *pol,
                         urisan_uri *uri, urisan_report *rep, urisan_decision *dec)
{
#ifdef URISAN_HAVE_HOST
    urisan_judgement j;
    urisan_status st = urisan_judge(NULL, in, len, pol, 0, &j);   /* this thread's context */
    *uri = j.uri;
    *rep = j.rep;
    *dec = j.dec;
    return st;
#else
    return urisan_check(in, len, pol, uri, rep, dec);
#endif
}

urisan_status cli_decide_request(const urisan_request *r, const urisan_request_trust *t,
                                 const urisan_policy *pol, char *buf, size_t cap,
                                 urisan_request_reason *reason, size_t *uri_len,
                                 urisan_decision *dec)
{
#ifdef URISAN_HAVE_HOST
    urisan_request_judgement rj;
    urisan_status st = urisan_judge_request(NULL, r, t, pol, 0, buf, cap, &rj);
    *reason = rj.reason;
    *uri_len = rj.uri_len;
    *dec = rj.j.dec;
    return st;
#else
    urisan_request_source used;
    memset(dec, 0, sizeof *dec);
    dec->verdict = URISAN_DENY;
    *reason = urisan_request_uri(r, t, buf, cap, uri_len, &used);
    if (*reason != URISAN_REQUEST_OK)
        return URISAN_OK;
    urisan_uri uri;
    urisan_report rep;
    return urisan_check(buf, *uri_len, pol, &uri, &rep, dec);
#endif
}
