/*
 * milter_daemon.h - `urisan milter` as a daemon (doc/mail.md "Running it
 * as a service"): the policy in force, swapped by SIGHUP while sessions
 * judge with the one they took; the count of open sessions, which
 * SIGTERM waits for; and the main thread's signal loop around
 * libmilter's smfi_main.
 *
 * Signals: the main thread catches SIGHUP, SIGTERM and SIGINT (a
 * handler writes the number down a pipe the main loop reads); every
 * other thread, libmilter's among them, starts with them blocked.
 * libmilter's own signal thread waits for them and would stop the filter
 * on SIGHUP; the kernel gives a signal sent to the process to the main
 * thread, which never blocks them. Should libmilter take one all the
 * same (two signals at once), smfi_main returns, and the daemon drains
 * and exits with a failure status (systemd's Restart=on-failure starts
 * it again).
 */
#ifndef URISAN_CLI_MILTER_DAEMON_H
#define URISAN_CLI_MILTER_DAEMON_H

#include <stdbool.h>
#include <stddef.h>

#include "urisan.h"

/* A policy in force, held by the sessions judging with it. */
typedef struct milter_pol milter_pol;

/* What the daemon was started with: where it listens and how the policy
   is loaded again on SIGHUP (path, profile: NULL when not given). */
typedef struct {
    const char *where;        /* --socket, for the log */
    const char *path;         /* --policy FILE */
    const char *profile;      /* --profile NAME */
    const char *settings;     /* the actions and bounds, for the log */
    size_t drain_s;           /* --drain-timeout: longest wait for sessions */
} milter_daemon_conf;

/* Take pol (malloc'd, loaded by cli_policy_load) as the policy in force. */
bool milter_daemon_init(const milter_daemon_conf *c, urisan_policy *pol);

/* The policy in force for one message; give it back with milter_pol_put.
   A reload meanwhile does not free it. */
const urisan_policy *milter_pol_get(milter_pol **ref);
void milter_pol_put(milter_pol *ref);

/* A message's judgement (xxfi_eom) began or ended: SIGTERM waits for
   the ones that began. */
void milter_judging_begin(void);
void milter_judging_end(void);

/*
 * After smfi_register, smfi_setconn and smfi_opensocket: log the start
 * line, run smfi_main in a thread of its own and handle the signals until
 * it stops - SIGHUP reloads the policy (a file with a mistake is not
 * taken: the old policy stays, the log says FILE:LINE:COLUMN), SIGTERM
 * and SIGINT stop taking connections, wait up to drain_s seconds for the
 * messages being judged and log the stop line. CLI_EXIT_OK, or a failure
 * status. *judging_left: messages still being judged at the end (their
 * threads still run: the caller must not free what they use).
 */
int milter_daemon_run(size_t *judging_left);

/* Free the policy in force (no session may be open). */
void milter_daemon_done(void);

#endif
