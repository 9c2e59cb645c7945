/*
 * check_base.c - urisan_check_base: a reference judged by where it leads
 * once resolved against a base (what `urisan check --base` prints).
 *
 * The flags are the union of the facts about the reference as written,
 * about the resolved URI and about the merged path (dot_segments,
 * dot_above_root, encoded_dot: doc/policy.md, judged before the dots are
 * removed); the scheme, host, port and address rules and host_ip judge the
 * resolved URI. A reference that cannot be resolved is judged as written,
 * with flag invalid: it fails closed. The facts of both are taken
 * without a decision (urisan_check_facts) and decided once, here; with dec
 * NULL not at all: the host layer's urisan_judge_base adds its host
 * judgement to these facts and decides once itself.
 */
#include "internal.h"

URISAN_API urisan_status urisan_check_base(const char *base, size_t blen,
                                           const char *ref, size_t rlen,
                                           const urisan_policy *pol,
                                           char *buf, size_t cap, size_t *needed,
                                           urisan_uri *uri, urisan_report *rep,
                                           urisan_decision *dec, urisan_error *err)
{
    /* what the caller does not ask for, kept here */
    urisan_uri u_local = {0};
    urisan_report r_local = {0};
    size_t n_local = 0;
    uri = uri != NULL ? uri : &u_local;
    rep = rep != NULL ? rep : &r_local;
    needed = needed != NULL ? needed : &n_local;
    /* RFC 3986 5.2.2 strict, ".." above the root dropped (5.2.4), both
       inputs parsed with the policy's limits */
    urisan_resolve_opts opt = { 0, URISAN_ABOVE_ROOT_CLAMP, urisan_policy_limits(pol) };
    urisan_flags merged = 0;

    urisan_check_facts(ref, rlen, pol, uri, rep);
    urisan_status st = urisan_resolve(base, blen, ref, rlen, &opt, buf, cap, needed,
                                      &merged, err);
    if (st != URISAN_OK) {
        rep->flags |= merged | URISAN_F(INVALID);
        if (dec != NULL)
            urisan_decide(ref, rlen, uri, rep, pol, dec);
        if (st == URISAN_E_NOSPACE)
            (void)urisan_fail(err, st, 0);
        return st;
    }
    urisan_uri ru;
    urisan_report rr;
    urisan_check_facts(buf, *needed, pol, &ru, &rr);
    rr.flags |= rep->flags | merged;
    *rep = rr;
    if (dec != NULL)
        urisan_decide(buf, *needed, &ru, rep, pol, dec);
    return URISAN_OK;
}
