/*
 * cmd_check.c - `urisan check` (SPEC section 7): validity, components,
 * flags and verdict of each URI, as text or JSON Lines.
 */
#include "cli.h"
#ifdef URISAN_HAVE_HOSTVIEW
#include "hostview.h"
#endif
#include "logformat.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CMD "check"

typedef struct {
    bool json;
    const urisan_policy *pol;
    const char *base;          /* NULL: no --base */
    size_t blen;
    urisan_resolve_opts ropt;
    char *rbuf;                /* resolved text */
    size_t rcap;
    cli_buf out;               /* one output line */
    bool denied;
    bool tsv;                  /* --tsv (with --format) */
    const cli_logline *log;    /* --format: the log line being checked */
} check_ctx;

/* What we found about one input. */
typedef struct {
    const char *in;
    size_t len, full_len;
    bool truncated;
    urisan_uri uri;            /* the input as written */
    urisan_report rep;         /* flags: the union over input, resolved, merge */
    urisan_decision dec;
    bool resolved;             /* --base: resolution succeeded */
    size_t rlen;
    urisan_error rerr;
#ifdef URISAN_HAVE_HOSTVIEW
    hostview hv;               /* the host as a reader sees it */
#endif
} check_result;

/* homograph, invisible_char (hostview.c), after judge(). */
static void judge_host(check_ctx *c, check_result *r)
{
#ifdef URISAN_HAVE_HOSTVIEW
    /* homograph, invisible_char (hostview.c): only an IDN host can have
       them; --json shows every host's Unicode form and registrable domain. */
    r->hv.is_name = false;
    if ((r->rep.flags & URISAN_F(IDN)) || c->json) {
        const char *u = r->resolved ? c->rbuf : r->in;
        size_t ul = r->resolved ? r->rlen : r->len;
        if (hostview_uri(u, ul, &r->hv))
            hostview_redecide(u, ul, r->hv.flags, c->pol, &r->rep, &r->dec);
    }
#else
    (void)c;
    (void)r;
#endif
}

static void judge(check_ctx *c, check_result *r)
{
    urisan_check(r->in, r->len, c->pol, &r->uri, &r->rep, &r->dec);
    r->resolved = false;
    r->rlen = 0;
    r->rerr = (urisan_error){ URISAN_OK, 0, 0 };
    if (c->base == NULL)
        return;

    /* --base: the verdict is about where the reference leads. The flags
       are the union of the facts about the input, about the resolved URI
       and about the merged path (dot_above_root, SPEC section 3); the
       scheme/host/port rules and host_ip use the resolved URI. */
    urisan_flags mflags = 0;
    urisan_status st = cli_resolve(c->base, c->blen, r->in, r->len, &c->ropt,
                                   &c->rbuf, &c->rcap, &r->rlen, &mflags, &r->rerr);
    if (st == URISAN_OK) {
        urisan_uri ru;
        urisan_report rr;
        urisan_decision rd;
        urisan_check(c->rbuf, r->rlen, c->pol, &ru, &rr, &rd);
        rr.flags |= r->rep.flags | mflags;
        urisan_decide(c->rbuf, r->rlen, &ru, &rr, c->pol, &r->dec);
        r->rep = rr;
        r->resolved = true;
    } else {
        /* A reference that cannot be resolved is judged invalid. */
        r->rep.flags |= mflags | URISAN_F(INVALID);
        urisan_decide(r->in, r->len, &r->uri, &r->rep, c->pol, &r->dec);
    }
}

static void write_json(check_ctx *c, const check_result *r)
{
    json_w w;
    json_begin(&w, &c->out);
    json_obj_open(&w);
    json_kstr(&w, "uri", r->in, r->len);
    json_kbool(&w, "valid", r->uri.valid != 0);
    cli_json_error(&w, "error", r->uri.valid ? NULL : &r->uri.error);
    cli_json_components(&w, r->in, &r->uri);

    char ip[64];
    size_t iplen = 0;
    if (r->rep.ip_family != 0 &&
        urisan_format_ip(&r->rep, ip, sizeof ip, &iplen) == URISAN_OK)
        json_kstr(&w, "host_ip", ip, iplen);
    else
        json_knull(&w, "host_ip");

    cli_json_flags(&w, "flags", r->rep.flags);
    json_kcstr(&w, "verdict", urisan_verdict_name(r->dec.verdict));
    cli_json_reasons(&w, "reasons", &r->dec);
    cli_json_reasons_apart(&w, &r->dec);
#ifdef URISAN_HAVE_HOSTVIEW
    hostview_json(&w, r->hv.is_name ? &r->hv : NULL);
#endif
    if (c->base != NULL) {
        if (r->resolved)
            json_kstr(&w, "resolved", c->rbuf, r->rlen);
        else
            json_knull(&w, "resolved");
        cli_json_error(&w, "resolve_error", r->resolved ? NULL : &r->rerr);
    }
    json_kbool(&w, "truncated", r->truncated);
    json_kuint(&w, "length", r->full_len);
    if (c->log != NULL)
        cli_log_json_keys(&w, c->log);
    json_obj_close(&w);
    if (json_ok(&w))
        return;

    /* Too large for one line (CLI_JSON_MAX) or out of memory: still one
       line for this input, and a deny, never a silent gap. */
    json_begin(&w, &c->out);
    json_obj_open(&w);
    json_knull(&w, "uri");
    json_kbool(&w, "valid", false);
    urisan_error e = { URISAN_E_NOSPACE, 0, 0 };
    cli_json_error(&w, "error", &e);
    json_knull(&w, "components");
    json_knull(&w, "host_ip");
    cli_json_flags(&w, "flags", URISAN_F(INVALID));
    json_kcstr(&w, "verdict", "deny");
    json_key(&w, "reasons");
    json_arr_open(&w);
    json_cstr(&w, "invalid");
    json_arr_close(&w);
    json_key(&w, "deny_reasons");
    json_arr_open(&w);
    json_cstr(&w, "invalid");
    json_arr_close(&w);
    json_key(&w, "flag_reasons");
    json_arr_open(&w);
    json_arr_close(&w);
    json_kbool(&w, "truncated", true);
    json_kuint(&w, "length", r->full_len);
    if (c->log != NULL)
        cli_log_json_keys(&w, c->log);
    json_obj_close(&w);
}

static void write_text(check_ctx *c, const check_result *r)
{
    cli_buf *b = &c->out;
    cli_buf_clear(b);
    cli_buf_adds(b, urisan_verdict_name(r->dec.verdict));
    cli_buf_addc(b, ' ');
    cli_text_reasons(b, &r->dec);
    cli_buf_add(b, " \"", 2);
    json_escape(b, r->in, r->len);
    cli_buf_addc(b, '"');
    if (c->base != NULL) {
        if (r->resolved) {
            cli_buf_add(b, " -> \"", 5);
            json_escape(b, c->rbuf, r->rlen);
            cli_buf_addc(b, '"');
        } else {
            cli_buf_add(b, " -> error: ", 11);
            cli_buf_adds(b, urisan_status_name(r->rerr.code));
            cli_buf_addc(b, ' ');
            cli_buf_addu(b, r->rerr.offset);
        }
    }
    if (r->truncated) {
        cli_buf_adds(b, " (truncated: ");
        cli_buf_addu(b, r->full_len);
        cli_buf_adds(b, " bytes)");
    }
    if (b->failed) {
        cli_buf_clear(b);
        cli_buf_adds(b, "deny denied:invalid (output line too large)");
    }
}

/* Check one input and print its line. false on a write error. */
static bool check_one(void *ctx, const char *in, size_t len,
                      size_t full_len, bool truncated)
{
    check_ctx *c = ctx;
    check_result r;
    r.in = in;
    r.len = len;
    r.full_len = full_len;
    r.truncated = truncated;
    judge(c, &r);
    judge_host(c, &r);
    if (r.dec.verdict == URISAN_DENY)
        c->denied = true;
    if (c->tsv)
        cli_log_tsv(&c->out, &r.dec, c->log);
    else if (c->json)
        write_json(c, &r);
    else
        write_text(c, &r);
    return cli_out_buf(&c->out);
}

/* --format: one log line (src/cli/logformat.c found its URI, or why not). */
static bool check_log_line(void *ctx, const cli_logline *ln)
{
    check_ctx *c = ctx;
    c->log = ln;
    /* a URI cut with its line is judged on more than max_uri bytes
       (too_long); one cut shorter than that makes the line bad */
    if (ln->uri != NULL && (!ln->uri_cut || ln->uri_len > urisan_policy_limits(c->pol)->max_uri))
        return check_one(ctx, ln->uri, ln->uri_len,
                         ln->uri_cut ? ln->full_len - (size_t)(ln->uri - ln->line) : ln->uri_len,
                         ln->uri_cut);
    cli_logline bad = *ln;
    if (bad.why == NULL)
        bad.why = "line too long: its URI is cut";
    c->denied = true;
    cli_log_bad_line(&c->out, &bad, c->json, c->tsv);
    return cli_out_buf(&c->out);
}

int cmd_check(int argc, char **argv)
{
    cli_opt opts[] = {
        { "--json", false, NULL, false },
        { "--policy", true, NULL, false },
        { "--base", true, NULL, false },
        { "--profile", true, NULL, false },
        { "--format", true, NULL, false },
        { "--tsv", false, NULL, false },
    };
    int nargs = 0;
    int rc = cli_getopts(CMD, argc, argv, opts, sizeof opts / sizeof opts[0], &nargs);
    if (rc == CLI_OPTS_HELP)
        return cli_finish(CMD, CLI_EXIT_OK);
    if (rc != 0)
        return rc;

    check_ctx c;
    memset(&c, 0, sizeof c);
    c.json = opts[0].seen;
    urisan_policy *pol = cli_policy_load(CMD, opts[1].value, opts[3].value);
    if (pol == NULL)
        return CLI_EXIT_USAGE;
    c.pol = pol;
    const urisan_limits *lim = urisan_policy_limits(pol);

    if (opts[2].seen) {
        c.base = opts[2].value;
        c.blen = strlen(c.base);
        urisan_uri bu;
        urisan_error be = { URISAN_OK, 0, 0 };
        urisan_parse(c.base, c.blen, lim, &bu, &be);
        if (!bu.valid || !urisan_span_present(bu.scheme)) {
            free(pol);
            if (bu.valid)
                return cli_usage_error(CMD, "--base: not an absolute URI (no scheme)");
            return cli_usage_error(CMD, "--base: %s at offset %zu: %s",
                                   urisan_status_name(bu.error.code), bu.error.offset,
                                   urisan_status_message(bu.error.code));
        }
        c.ropt.non_strict = 0;
        c.ropt.above_root = URISAN_ABOVE_ROOT_CLAMP;
        c.ropt.limits = lim;
    }
    cli_buf_init(&c.out, CLI_JSON_MAX);

    int status;
    if (opts[4].seen || opts[5].seen) {
        /* operands are log files (none, "-": standard input) */
        cli_logfmt fmt;
        if (!opts[4].seen || !cli_logfmt_parse(opts[4].value, &fmt) || (opts[5].seen && c.json)) {
            cli_buf_free(&c.out);
            free(pol);
            if (!opts[4].seen)
                return cli_usage_error(CMD, "--tsv needs --format");
            if (opts[5].seen && c.json)
                return cli_usage_error(CMD, "--tsv and --json exclude each other");
            return cli_usage_error(CMD, "--format: unknown log format '%s' "
                                   "(squid, zeek, combined, field:N)", opts[4].value);
        }
        c.tsv = opts[5].seen;
        status = cli_log_each(CMD, &fmt, argv, 1, nargs, cli_line_keep(lim) + CLI_LOG_EXTRA,
                              check_log_line, &c);
    } else {
        status = cli_each_input(CMD, argv, 1, nargs, cli_line_keep(lim), check_one, &c);
    }
    if (status == CLI_EXIT_OK && c.denied)
        status = CLI_EXIT_FAIL;
    cli_buf_free(&c.out);
    free(c.rbuf);
    free(pol);
    return cli_finish(CMD, status);
}
