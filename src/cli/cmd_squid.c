/*
 * cmd_squid.c - `urisan squid-acl [--policy FILE] [--profile NAME]
 * [--quiet]`: a Squid external ACL helper (urisan(1); doc/squid.md).
 *
 * At start it says on standard error (Squid's cache.log) what it
 * enforces: "urisan: squid-acl: policy in force: urisan 0.2.0, profile
 * proxy, no policy file, 41 rules" (policy_info.h); --quiet leaves that
 * out. Squid starts new helpers on `squid -k reconfigure`, so each
 * reload logs it again.
 *
 * Squid writes one request per line:
 *
 *     [channel-ID SP] value [SP extras...] LF
 *
 * The channel-ID is there when external_acl_type has concurrency=N > 0;
 * value is the request URL (%>ru or %'>ru); Squid appends the acl line's
 * arguments (%DATA, "-" when there are none) as extras. The first one
 * "connect" says the request is a CONNECT (the documented block has an
 * acl for CONNECT with that argument); other extras are ignored.
 * We answer one line per request, in order:
 *
 *     [channel-ID SP] OK [log="flagged:reasons"]       allowed or flagged
 *     [channel-ID SP] ERR message="..." log="reasons"  denied
 *     [channel-ID SP] BH message="..."                 we could not judge
 *
 * The value is judged exactly as it arrives; we never percent-decode it.
 * A CONNECT's value (with the argument "connect") is its authority-form
 * "host:port" (RFC 9110 9.3.6), judged as the tunnel "https://host:port"
 * (connect_target.h), as `check --format squid` judges a CONNECT line of
 * access.log. Without it the value is a URL, read as `check` reads it:
 * "mailto:1" is no tunnel to host "mailto".
 * Squid hands escapes over unchanged (%0d%0a, %2e%2e and %00 arrive as
 * written, tests/e2e/squid_e2e.py checks it with a real Squid), so
 * decoding would judge a different string than the one Squid forwards:
 * a client's "%0d" would become a raw CR here and stay "%0d" on the wire.
 * With %>ru Squid itself %-escapes some characters (`\` as %5C, `~` as
 * %7E, bytes >= 0x80) and leaves `%` alone, so even a "decode only what
 * Squid escaped" step cannot tell Squid's %5C from a client's; with
 * %'>ru the URL arrives byte for byte (doc/squid.md).
 *
 * Replies are flushed whenever no further complete request is already
 * buffered, so an answer is never held behind a request that has not
 * arrived; a burst from a concurrent Squid is answered with one write.
 * A line of any length or content gives exactly one answer and never
 * desynchronises us (cli_lines keeps a bounded prefix, drops the rest).
 *
 * --resolve [--dns-server ADDR[:PORT]]: a URL the string rules allow
 * has its host looked up (liburisan-net: answers cached within their
 * TTL) and every address judged by the address rule, as check --resolve;
 * a denied address or a failed lookup is ERR. Squid's %DST is the
 * request's host name, not an address (Squid 5.7 hands a helper
 * "localhost" for http://localhost:1/, and %<a is "-" at http_access
 * time), so the helper looks the name up itself; Squid's own dst ACLs
 * judge the address it connects to (doc/squid.md).
 */
#include "cli.h"
#include "policy_info.h"
#include "decide.h"
#include "connect_target.h"
#include "resolve_window.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CMD "squid-acl"

/* Squid's channel-IDs are small decimal numbers (0 .. concurrency-1). A
   longer run of digits is not a channel-ID but the start of the value. */
#define SQUID_CHANNEL_MAX 20

/* Room for one reply: channel-ID, result, reasons (a bounded set of
   short names), message text. */
#define SQUID_REPLY_MAX 4096

/* Is the next complete line already in the reader's buffer, so that
   cli_lines_next() will not block on read(2)? */
static bool line_buffered(const cli_lines *rd)
{
    size_t avail = rd->in_len - rd->in_pos;
    return avail > 0 && memchr(rd->in + rd->in_pos, '\n', avail) != NULL;
}

/*
 * A kv-pair value in Squid's quoted form (squid.conf external_acl_type:
 * "enclosed in double quotes (") and escaped using \ on any double
 * quotes or \ characters within the value"). Squid turns "\r" and "\n"
 * inside quotes into CR and LF; we never send a control byte at all, so
 * a reply is always exactly one line.
 */
static void add_quoted(cli_buf *b, const char *prefix, const char *s, size_t n)
{
    cli_buf_addc(b, '"');
    cli_buf_adds(b, prefix);   /* a literal without '"' or '\\' */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            cli_buf_addc(b, '\\');
            cli_buf_addc(b, (char)c);
        } else if (c < 0x20 || c >= 0x7f) {
            cli_buf_addc(b, '?');
        } else {
            cli_buf_addc(b, (char)c);
        }
    }
    cli_buf_addc(b, '"');
}

static bool internal_failure(urisan_status st)
{
    /* Statuses that say the library could not judge, as opposed to the
       first validation error of a judged input. */
    return st == URISAN_E_BAD_ARGUMENT || st == URISAN_E_NOSPACE ||
           st == URISAN_E_BAD_POLICY;
}

/* [channel-ID SP]: digits then a space, copied to out; *vstart is where
   the value begins. Returns false when the line is a bare channel-ID, out
   then holding the whole reply. */
static bool add_channel(cli_buf *out, const char *p, size_t len, size_t *vstart)
{
    size_t i = 0;

    /* The value never starts that way: %>ru is a URL or, for CONNECT,
       host:port. */
    while (i < len && i <= SQUID_CHANNEL_MAX && p[i] >= '0' && p[i] <= '9')
        i++;
    *vstart = 0;
    if (i > 0 && i <= SQUID_CHANNEL_MAX && i < len && p[i] == ' ') {
        cli_buf_add(out, p, i);
        cli_buf_addc(out, ' ');
        *vstart = i + 1;
    } else if (i > 0 && i <= SQUID_CHANNEL_MAX && i == len) {
        /* A bare channel-ID: a request without its value (no %>ru is
           all digits). Answer it under its ID, never as a URL "5". */
        cli_buf_add(out, p, i);
        cli_buf_adds(out, " ERR message=\"urisan: no URL in the request\" log=\"empty\"");
        return false;
    }
    return true;
}

/* The verdict part of the reply to a judged URL: ERR with the deny
   reasons, OK with the flags reported, or OK. */
static void add_verdict(cli_buf *out, cli_buf *tmp, const urisan_decision *dec)
{
    cli_buf_clear(tmp);
    if (dec->verdict == URISAN_DENY) {
        cli_text_reason_list(tmp, dec->deny_flags, dec->rules);
        if (tmp->len == 0)
            cli_buf_adds(tmp, "denied");
        cli_buf_adds(out, "ERR message=");
        add_quoted(out, "urisan denied the URL: ", tmp->p, tmp->len);
        /* log: the deny reasons apart from the flags only reported */
        cli_buf_clear(tmp);
        cli_text_reasons(tmp, dec);
        cli_buf_adds(out, " log=");
        add_quoted(out, "", tmp->p, tmp->len);
    } else if (dec->verdict == URISAN_FLAGGED && dec->flag_flags != 0) {
        cli_text_reasons(tmp, dec);
        cli_buf_adds(out, "OK log=");
        add_quoted(out, "", tmp->p, tmp->len);
    } else {
        cli_buf_adds(out, "OK");
    }
}

#ifdef URISAN_HAVE_NET
/* --resolve: the host of the URL v (CONNECT's read as its tunnel,
   "https://host:port") looked up and its addresses judged; dec denied
   when they are. *res: the answer. */
static void judge_addresses(urisan_resolver *r, const char *v, size_t vlen,
                            const urisan_policy *pol, urisan_decision *dec,
                            urisan_net_result *res)
{
    urisan_resolve_judge_url(r, v, vlen, pol, res);
    cli_resolve_merge(dec, res);
}
#endif

/* The reply to one request line (without LF) into out; target holds a
   CONNECT's "https://host:port"; r: --resolve's resolver or NULL. */
static void answer(cli_buf *out, cli_buf *tmp, cli_buf *target, const char *p, size_t len,
                   const urisan_policy *pol, void *r)
{
    size_t vstart;
    cli_buf_clear(out);
    if (!add_channel(out, p, len, &vstart))
        return;
    size_t chan_len = out->len;

    /* The value runs to the next space: Squid escapes the spaces inside a
       value, and extras follow after one. When the line was longer than
       we keep, a value that runs to the end of the kept bytes is longer
       than max_uri, so urisan_check reports too_long. */
    const char *v = p + vstart;
    const char *sp = memchr(v, ' ', len - vstart);
    size_t vlen = sp ? (size_t)(sp - v) : len - vstart;

    if (vlen == 0) {
        cli_buf_adds(out, "ERR message=\"urisan: no URL in the request\" log=\"empty\"");
        return;
    }
    if (vlen == 1 && v[0] == '-') {
        /* Squid's "-": the format code had no value for this request */
        cli_buf_adds(out, "ERR message=\"urisan: no URL in the request (Squid sent -)\" "
                          "log=\"no_value\"");
        return;
    }

    if (sp != NULL && cli_connect_arg(sp + 1, len - (size_t)(sp + 1 - p)) &&
        cli_connect_target(v, vlen, true)) {
        cli_buf_clear(target);
        cli_buf_adds(target, CLI_CONNECT_SCHEME);
        cli_buf_add(target, v, vlen);
        if (!target->failed) {
            v = target->p;
            vlen = target->len;
        }
    }

    urisan_uri uri;
    urisan_report rep;
    urisan_decision dec;
    memset(&dec, 0, sizeof dec);
    dec.verdict = URISAN_DENY;  /* fail closed if it were left unset */
    urisan_status st = cli_decide(v, vlen, pol, &uri, &rep, &dec);   /* the one decision */
    if (internal_failure(st)) {
        cli_buf_adds(out, "BH message=\"urisan: ");
        cli_buf_adds(out, urisan_status_name(st));
        cli_buf_addc(out, '"');
        return;
    }
#ifdef URISAN_HAVE_NET
    urisan_net_result res;
    res.verdict = URISAN_ALLOW;
    if (r != NULL && dec.verdict != URISAN_DENY)
        judge_addresses(r, v, vlen, pol, &dec, &res);
    if (r != NULL && dec.verdict == URISAN_DENY && res.verdict == URISAN_DENY &&
        res.status != URISAN_DNS_NO_HOST) {
        /* the message names the address and its class, or the failure */
        char why[512];
        size_t n = 0;
        if (urisan_net_result_format(&res, why, sizeof why, &n) != URISAN_OK)
            n = 0;
        cli_buf_clear(tmp);
        cli_text_reasons(tmp, &dec);
        cli_buf_adds(out, "ERR message=");
        add_quoted(out, "urisan denied the URL: ", why, n);
        cli_buf_adds(out, " log=");
        add_quoted(out, "", tmp->p, tmp->len);
    } else {
        add_verdict(out, tmp, &dec);
    }
#else
    (void)r;
    add_verdict(out, tmp, &dec);
#endif

    if (out->failed || tmp->failed) {
        /* Cannot happen with SQUID_REPLY_MAX, but never send half a
           reply: say we could not judge. */
        cli_buf_clear(out);
        cli_buf_clear(tmp);
        cli_buf_add(out, p, chan_len);
        cli_buf_adds(out, "BH message=\"urisan: reply too long\"");
    }
}

int cmd_squid_acl(int argc, char **argv)
{
    enum { OPT_POLICY, OPT_PROFILE, OPT_QUIET, OPT_RESOLVE, OPT_DNS_SERVER, NOPT };
    cli_opt opts[NOPT] = {
        [OPT_POLICY] = { "--policy", true, NULL, false },
        [OPT_PROFILE] = { "--profile", true, NULL, false },
        [OPT_QUIET] = { "--quiet", false, NULL, false },
        [OPT_RESOLVE] = { "--resolve", false, NULL, false },
        [OPT_DNS_SERVER] = { "--dns-server", true, NULL, false },
    };
    int rc, nargs = cli_opts(CMD, argc, argv, opts, NOPT, &rc);
    if (nargs < 0)
        return rc;
    if (nargs != 0)
        return cli_usage_error(CMD, "takes no operands (requests come on standard input), "
                                    "got '%.200s'", argv[1]);

    if (opts[OPT_DNS_SERVER].seen && !opts[OPT_RESOLVE].seen)
        return cli_usage_error(CMD, "--dns-server needs --resolve");
#ifndef URISAN_HAVE_NET
    if (opts[OPT_RESOLVE].seen)
        return cli_fail(CMD, "--resolve: this urisan was built without c-ares (liburisan-net)");
#endif

    /* A policy we cannot load is a configuration error: exit, so that
       Squid's cache.log shows the message, rather than answer anything. */
    urisan_policy *pol = cli_policy_opts(CMD, opts, NOPT);
    if (pol == NULL)
        return CLI_EXIT_USAGE;
    void *resolver = NULL;
#ifdef URISAN_HAVE_NET
    if (opts[OPT_RESOLVE].seen) {
        urisan_resolver_opts ro;
        memset(&ro, 0, sizeof ro);
        ro.servers = opts[OPT_DNS_SERVER].value;
        const char *why = "out of memory";
        resolver = urisan_resolver_new(&ro, &why);
        if (resolver == NULL) {
            free(pol);
            if (ro.servers != NULL)
                return cli_usage_error(CMD, "--dns-server '%.200s': %s", ro.servers, why);
            return cli_fail(CMD, "%s", why);
        }
    }
#endif
    if (!opts[OPT_QUIET].seen) {
        cli_policy_info info;
        char text[CLI_POLICY_INFO_TEXT];
        cli_policy_info_make(&info, pol, opts[OPT_PROFILE].value, opts[OPT_POLICY].value);
        cli_policy_info_text(&info, text, sizeof text);
        fprintf(stderr, "urisan: %s: policy in force: %s\n", CMD, text);
    }

    /* Keep the channel-ID, its space and max_uri + 1 bytes of value. */
    size_t keep = cli_line_keep(urisan_policy_limits(pol)) + SQUID_CHANNEL_MAX + 1;
    cli_lines rd;
    if (!cli_lines_init(&rd, 0, keep)) {
#ifdef URISAN_HAVE_NET
        urisan_resolver_free(resolver);
#endif
        free(pol);
        return cli_fail(CMD, "out of memory");
    }
    cli_buf out, tmp, target;
    cli_buf_init(&out, SQUID_REPLY_MAX);
    cli_buf_init(&tmp, SQUID_REPLY_MAX);
    cli_buf_init(&target, keep + sizeof CLI_CONNECT_SCHEME);
    int status = CLI_EXIT_OK;
    for (;;) {
        /* About to wait for input: nothing may stay behind in stdout. */
        if (!line_buffered(&rd) && !cli_out_flush()) {
            status = cli_fail(CMD, "write error on standard output: %s",
                              strerror(cli_out_error()));
            break;
        }
        cli_line ln;
        int r = cli_lines_next(&rd, &ln);
        if (r == 0)
            break;
        if (r < 0) {
            status = cli_fail(CMD, "standard input: %s", strerror(rd.err ? rd.err : errno));
            break;
        }
        answer(&out, &tmp, &target, ln.p, ln.len, pol, resolver);
        if (!cli_out_buf(&out)) {
            int e = cli_out_error();
            status = cli_fail(CMD, "write error on standard output: %s", strerror(e ? e : errno));
            break;
        }
    }
    cli_buf_free(&out);
    cli_buf_free(&tmp);
    cli_buf_free(&target);
    cli_lines_free(&rd);
#ifdef URISAN_HAVE_NET
    urisan_resolver_free(resolver);
#endif
    free(pol);
    return cli_finish(CMD, status);
}
