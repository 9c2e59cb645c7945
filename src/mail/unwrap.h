/*
 * unwrap.h - the destination of a rewritten link (unwrap.c): Safe Links,
 * Proofpoint URL Defense v1/v2/v3, Barracuda Link Protection, Google's,
 * Facebook's, YouTube's and Slack's redirectors.
 */
#ifndef URISAN_MAIL_UNWRAP_H
#define URISAN_MAIL_UNWRAP_H

#include <stdbool.h>
#include <stddef.h>

/* When s[0..n) is a link of a rewriting service whose destination is an
   absolute URL: the service's name ("safelinks", "proofpoint-v1",
   "proofpoint-v2", "proofpoint-v3", "barracuda", "google", "facebook",
   "youtube", "slack") and the destination in *out (g_free it), *out_len
   bytes. Else NULL (*out NULL). Linear in n. */
const char *mail_unwrap(const char *s, size_t n, char **out, size_t *out_len);

/* host[0..n) (no trailing dot) is under the registrable domain of one
   of those services: the cheap test before mail_unwrap. */
bool mail_unwrap_host(const char *host, size_t n);

#endif
