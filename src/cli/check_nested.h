/*
 * check_nested.h - the URLs nested in a URI's parameters as check --json
 * shows them (keys "nested" and "nested_capped", doc/output.md).
 */
#ifndef URISAN_CLI_CHECK_NESTED_H
#define URISAN_CLI_CHECK_NESTED_H

#include <stdbool.h>
#include <stddef.h>

#include "json.h"
#include "urisan.h"

struct urisan_host_ctx;   /* urisan_host.h */

/* At most this many nested URLs are listed per line (the first ones in
   the library's order: parents before children, left to right); more are
   marked by "nested_capped": true. Bounds a line at about 16 x the URI. */
#define CHECK_NESTED_MAX 16

/*
 * in[0..len) with u its parse (u NULL: parsed here under pol's limits),
 * walked with urisan_nested() to pol's nested-depth. capped false: the
 * value of "nested", the JSON array of its nested URLs, capped (each
 * {"name","uri","depth","flags","host_ip"}: flags the library's and,
 * with the host layer, those of the host as host gives them,
 * urisan_host_flags_uri); true: the value of "nested_capped", whether
 * some were left out.
 */
void check_nested(cli_buf *b, const char *in, size_t len, const urisan_uri *u,
                  const urisan_policy *pol, struct urisan_host_ctx *host, bool capped);

#endif
