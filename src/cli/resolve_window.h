/*
 * resolve_window.h - `check --resolve`, `extract --resolve`: the hosts of
 * the rows resolved concurrently (liburisan-net, c-ares) with a bounded
 * number of lookups in flight, each row written in input order once its
 * answer is in.
 */
#ifndef URISAN_RESOLVE_WINDOW_H
#define URISAN_RESOLVE_WINDOW_H

#include "cli.h"

#ifdef URISAN_HAVE_NET
#include "urisan_net.h"

/* Rows held at once (their lookups run together; at most
   CLI_RESOLVE_INFLIGHT in flight). */
#define CLI_RESOLVE_WINDOW 512
#define CLI_RESOLVE_INFLIGHT 64

/* Write one row with its answer; false: a write error (stops the run).
   row: what cli_resolve_hold was given (freed by the window after). */
typedef bool (*cli_resolve_emit)(void *ctx, void *row, const urisan_net_result *res);

typedef struct cli_resolve_window cli_resolve_window;

/* NULL after telling why (servers: --dns-server's value or NULL). */
cli_resolve_window *cli_resolve_new(const char *cmd, const char *servers,
                                    const urisan_policy *pol, cli_resolve_emit emit, void *ctx);
/* Hold row (malloc'd; the window frees it once written) and start the
   lookup of the host of uri[0..len), which lives in row; a full window is
   written first. false: a write error, or row is NULL (out of memory,
   told here). */
bool cli_resolve_hold(cli_resolve_window *w, const char *uri, size_t len, void *row);
/* Write what is held, in the order held; false: a write error. */
bool cli_resolve_flush(cli_resolve_window *w);
void cli_resolve_free(cli_resolve_window *w);

/* "resolve": {"name", "status", "ttl", "cached", "addresses": [{"address",
   "classes", "verdict", "reasons"}], "denied"} */
void cli_jv_resolve(cli_buf *b, const urisan_net_result *res);
/* the text form: " (dns STATUS: ADDR ADDR ...)" or " (dns: resolves to ...)" */
void cli_text_resolve(cli_buf *b, const urisan_net_result *res);
/* The line's decision d with its answer: denied when the answer is, a
   denied string decision stays denied; flagged when an address is only
   reported. A URL without a host (mailto:, urn:; status no_host) keeps
   its string decision: no address to judge. */
void cli_resolve_merge(urisan_decision *d, const urisan_net_result *res);
#endif

#endif
