/*
 * cmd_resolve.c - `urisan resolve` (SPEC sections 5 and 7): RFC 3986 5.2
 * resolution of each reference against BASE, one output line per
 * reference.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CMD "resolve"

typedef struct {
    bool json;
    const char *base;
    size_t blen;
    urisan_resolve_opts opt;
    char *rbuf;
    size_t rcap;
    cli_buf out;
    bool failed;        /* some reference failed */
} resolve_ctx;

/* Offset of the first byte that would break the one-line text output. */
static bool find_ctl(const char *s, size_t n, size_t *at)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7F) {
            *at = i;
            return true;
        }
    }
    return false;
}

static bool resolve_one(void *ctx, const char *ref, size_t len,
                        size_t full_len, bool truncated)
{
    resolve_ctx *c = ctx;
    size_t rlen = 0;
    urisan_flags flags = 0;
    urisan_error err;
    urisan_status st = cli_resolve(c->base, c->blen, ref, len, &c->opt,
                                   &c->rbuf, &c->rcap, &rlen, &flags, &err);
    if (st != URISAN_OK)
        c->failed = true;
    const char *which = (st != URISAN_OK && err.input == 0 &&
                         st != URISAN_E_NOSPACE) ? "base" : NULL;

    if (c->json) {
        json_w w;
        json_begin(&w, &c->out);
        json_obj_open(&w);
        json_kstr(&w, "base", c->base, c->blen);
        json_kstr(&w, "ref", ref, len);
        if (st == URISAN_OK)
            json_kstr(&w, "result", c->rbuf, rlen);
        else
            json_knull(&w, "result");
        cli_json_error(&w, "error", st == URISAN_OK ? NULL : &err);
        if (st != URISAN_OK)
            json_kcstr(&w, "error_input", which ? "base" : "ref");
        cli_json_flags(&w, "flags", flags);
        json_kbool(&w, "truncated", truncated);
        json_kuint(&w, "length", full_len);
        json_obj_close(&w);
        if (!json_ok(&w)) {
            c->failed = true;
            json_begin(&w, &c->out);
            json_obj_open(&w);
            json_knull(&w, "base");
            json_knull(&w, "ref");
            json_knull(&w, "result");
            urisan_error e = { URISAN_E_NOSPACE, 0, 1 };
            cli_json_error(&w, "error", &e);
            json_kcstr(&w, "error_input", "ref");
            cli_json_flags(&w, "flags", 0);
            json_kbool(&w, "truncated", true);
            json_kuint(&w, "length", full_len);
            json_obj_close(&w);
        }
        return cli_out_buf(&c->out);
    }

    size_t at;
    if (st == URISAN_OK && find_ctl(c->rbuf, rlen, &at)) {
        /* A raw control byte would split or garble the line. */
        c->failed = true;
        cli_buf_clear(&c->out);
        cli_buf_adds(&c->out, "error: unsafe_output ");
        cli_buf_addu(&c->out, at);
        cli_buf_adds(&c->out, " result holds a control byte (use --json)");
    } else if (st == URISAN_OK) {
        cli_buf_clear(&c->out);
        cli_buf_add(&c->out, c->rbuf, rlen);
    } else {
        cli_text_error(&c->out, &err, which);
    }
    return cli_out_buf(&c->out);
}

int cmd_resolve(int argc, char **argv)
{
    cli_opt opts[] = {
        { "--json", false, NULL, false },
        { "--non-strict", false, NULL, false },
        { "--above-root", true, NULL, false },
    };
    int nargs = 0;
    int rc = cli_getopts(CMD, argc, argv, opts, sizeof opts / sizeof opts[0], &nargs);
    if (rc == CLI_OPTS_HELP)
        return cli_finish(CMD, CLI_EXIT_OK);
    if (rc != 0)
        return rc;
    if (nargs < 1)
        return cli_usage_error(CMD, "missing BASE");

    resolve_ctx c;
    memset(&c, 0, sizeof c);
    c.json = opts[0].seen;
    c.opt.non_strict = opts[1].seen;
    c.opt.above_root = URISAN_ABOVE_ROOT_CLAMP;
    c.opt.limits = NULL;
    if (opts[2].seen) {
        const char *m = opts[2].value;
        if (strcmp(m, "clamp") == 0)
            c.opt.above_root = URISAN_ABOVE_ROOT_CLAMP;
        else if (strcmp(m, "keep") == 0)
            c.opt.above_root = URISAN_ABOVE_ROOT_KEEP;
        else if (strcmp(m, "reject") == 0)
            c.opt.above_root = URISAN_ABOVE_ROOT_REJECT;
        else
            return cli_usage_error(CMD, "--above-root: '%s' is not clamp, keep or reject", m);
    }
    c.base = argv[1];
    c.blen = strlen(c.base);
    {
        urisan_uri bu;
        urisan_parse(c.base, c.blen, NULL, &bu, NULL);
        if (!bu.valid)
            return cli_usage_error(CMD, "BASE: %s at offset %zu: %s",
                                   urisan_status_name(bu.error.code), bu.error.offset,
                                   urisan_status_message(bu.error.code));
        if (!urisan_span_present(bu.scheme))
            return cli_usage_error(CMD, "BASE: not an absolute URI (no scheme)");
    }
    cli_buf_init(&c.out, CLI_JSON_MAX);

    int status = cli_each_input(CMD, argv, 2, nargs, cli_line_keep(NULL), resolve_one, &c);
    if (status == CLI_EXIT_OK && c.failed)
        status = CLI_EXIT_FAIL;
    cli_buf_free(&c.out);
    free(c.rbuf);
    return cli_finish(CMD, status);
}
