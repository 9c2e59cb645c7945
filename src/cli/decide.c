/* decide.c - the one decision for serve and squid-acl (see decide.h). */
#include "decide.h"

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
