/*
 * milter_scan.h - what `urisan milter` does with one message, apart from
 * libmilter (so fuzz/milter.c and tests drive it directly): scan the
 * message with liburisan-mail, each link decided once with homograph /
 * invisible_char / host_uts46 folded in (liburisan-host's
 * urisan_judge_link_decide as its hook), and turn the worst verdict into an action, the
 * X-Urisan-Verdict and X-Urisan-Links header values and a reply text.
 */
#ifndef URISAN_CLI_MILTER_SCAN_H
#define URISAN_CLI_MILTER_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "urisan.h"

/* Append only: the names are the values of --on-deny/--on-flag/--on-error. */
typedef enum {
    MILTER_ACCEPT = 0,      /* deliver (with the headers) */
    MILTER_QUARANTINE = 1,  /* deliver to Postfix's hold queue (headers too) */
    MILTER_REJECT = 2,      /* 550 5.7.1 naming the link and why */
    MILTER_TEMPFAIL = 3     /* 451 4.7.1: the sender retries later */
} milter_action;

/* "accept", "quarantine", "reject", "tempfail". */
const char *milter_action_name(milter_action a);
/* false: no such name. */
bool milter_action_parse(const char *s, milter_action *a);

typedef struct {
    const urisan_policy *pol;
    milter_action on_deny;    /* default reject */
    milter_action on_flag;    /* default accept */
    milter_action on_error;   /* default tempfail: fail closed */
    size_t max_message;       /* bytes kept of a message (headers + body) */
    size_t max_html_mem;      /* liburisan-mail's HTML bound per part */
} milter_conf;

void milter_conf_default(milter_conf *c);

/* Header values and reply texts are printable ASCII only (other bytes
   as %XX) and at most this long. */
#define MILTER_TEXT_MAX 900

typedef struct {
    milter_action action;
    const char *verdict;           /* X-Urisan-Verdict: allow, flag, deny,
                                      error (not scanned whole) */
    bool error;                    /* internal error, too large, a limit */
    size_t links, denied, flagged;
    char links_hdr[MILTER_TEXT_MAX + 1];  /* X-Urisan-Links */
    char reply[MILTER_TEXT_MAX + 1];      /* reject/tempfail/quarantine text */
} milter_outcome;

/*
 * Judge the message msg[0..len). truncated: the message was longer than
 * conf->max_message and only its first len bytes are here; a deny in
 * them still denies, otherwise it is an error (fail closed unless
 * --on-error accept).
 */
void milter_judge(const milter_conf *conf, const char *msg, size_t len,
                  bool truncated, milter_outcome *out);

#endif
