/*
 * policy_info.h - what a long-running service enforces, said the same
 * way by each of them (serve, squid-acl, milter): in the log line at
 * start and after a reload, and as JSON members (serve's /healthz).
 *
 * An operator reads it to know the policy in force without guessing
 * from the command line: the program's version, the built-in profile,
 * the policy file on top of it, and how many rules the result holds.
 */
#ifndef URISAN_CLI_POLICY_INFO_H
#define URISAN_CLI_POLICY_INFO_H

#include <stddef.h>

#include "json.h"
#include "urisan.h"

typedef struct {
    const char *version;   /* urisan_version() */
    const char *profile;   /* --profile NAME; "default" without one */
    const char *file;      /* --policy FILE; NULL without one */
    size_t rules;          /* directives of the effective policy */
} cli_policy_info;

/*
 * The number of rules of p: the directives `urisan policy check` prints
 * for it (urisan_policy_format's lines, comments left out). Every
 * profile and file line that changes the policy counts; a line that
 * only restates the default does not. 0 when it cannot be counted (out
 * of memory).
 */
size_t cli_policy_rules(const urisan_policy *p);

/* i for the policy p loaded with --profile profile, --policy file (each
   NULL when not given). The strings are borrowed, not copied. */
void cli_policy_info_make(cli_policy_info *i, const urisan_policy *p,
                          const char *profile, const char *file);

/*
 * The log text, NUL-terminated in buf[0..cap) (cut short if cap is too
 * small; 512 bytes hold any path up to 400 bytes):
 *
 *   urisan 0.2.0, profile ssrf, policy file /etc/urisan/gateway.policy, 44 rules
 *   urisan 0.2.0, profile default, no policy file, 9 rules
 *
 * A byte of the file name that is not printable ASCII is written \xNN,
 * so a log line stays one line.
 */
#define CLI_POLICY_INFO_TEXT 512
void cli_policy_info_text(const cli_policy_info *i, char *buf, size_t cap);

/* The same as members of the JSON object w is writing:
   "version":"0.2.0","profile":"ssrf","policy_file":null,"rules":44 */
void cli_policy_info_json(json_w *w, const cli_policy_info *i);

#endif
