/*
 * net_internal.h - what the two files of liburisan-net share: the lookup
 * (resolver.c) and the judgement of its answer (judge.c).
 */
#ifndef URISAN_NET_INTERNAL_H
#define URISAN_NET_INTERNAL_H

#include "urisan_net.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <sys/socket.h>

/* Judge every address of res under pol (the address rule) and set its
   verdict, rules and denied_at from them and from its status. */
void urisan_net_judge_addrs(const urisan_policy *pol, urisan_net_result *res);

/* Look name (A-labels, NUL-terminated, < 256 bytes) up and call fn with
   the judged result: at once from the cache, else from urisan_resolve_wait
   or a later start. scratch: a result to fill for an answer given at once
   (its name set by the caller). */
urisan_status urisan_net_lookup(urisan_resolver *r, const char *name, const urisan_policy *pol,
                                unsigned max_inflight, urisan_resolve_fn fn, void *ctx,
                                urisan_net_result *scratch);

#endif
