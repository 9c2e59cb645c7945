/*
 * decide.h - the one decision for a door that judges a URI alone
 * (serve, squid-acl): the host layer's urisan_judge in this thread's
 * context when urisan is built with it (parse, analysis, host judgement,
 * one verdict), the core's urisan_check otherwise. check and extract
 * hold a context of their own and call the host layer directly.
 */
#ifndef URISAN_CLI_DECIDE_H
#define URISAN_CLI_DECIDE_H

#include "urisan.h"

/* As urisan_check: uri, rep and dec always filled; the parse's status.
   No memory for the thread's context: URISAN_E_NOSPACE and a deny
   (fail closed). */
urisan_status cli_decide(const char *in, size_t len, const urisan_policy *pol,
                         urisan_uri *uri, urisan_report *rep, urisan_decision *dec);

/* The one decision of a request (urisan_judge_request with this thread's
   context): *reason says whether a URI was rebuilt (in buf, *uri_len
   bytes); dec is always filled (a deny unless reason is OK). Without the
   host layer: urisan_request_uri, then urisan_check under pol, which then
   must hold require-authority (serve's policy does). */
urisan_status cli_decide_request(const urisan_request *r, const urisan_request_trust *t,
                                 const urisan_policy *pol, char *buf, size_t cap,
                                 urisan_request_reason *reason, size_t *uri_len,
                                 urisan_decision *dec);

#endif
