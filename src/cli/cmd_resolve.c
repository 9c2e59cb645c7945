/*
 * cmd_resolve.c - `urisan resolve` (urisan(1), COMMANDS): RFC 3986 5.2
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
    cli_fieldset fields;
    bool failed;        /* some reference failed */
} resolve_ctx;

/* One reference and what the library made of it. */
typedef struct {
    const resolve_ctx *c;
    const char *ref;
    size_t len, full_len, rlen;
    bool truncated;
    urisan_status st;
    urisan_error err;
    urisan_flags flags;
    const char *which;  /* "base" when the base failed, else NULL */
} resolve_row;

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

#define ROW(v) const resolve_row *r = (v)
static void put_base(cli_buf *b, const void *v) { ROW(v); json_quote(b, r->c->base, r->c->blen); }
static void put_ref(cli_buf *b, const void *v) { ROW(v); json_quote(b, r->ref, r->len); }
static void put_result(cli_buf *b, const void *v)
{
    ROW(v);
    if (r->st == URISAN_OK)
        json_quote(b, r->c->rbuf, r->rlen);
    else
        cli_buf_lit(b, "null");
}
static void put_error(cli_buf *b, const void *v) { ROW(v); cli_jv_error(b, r->st == URISAN_OK ? NULL : &r->err); }
static void put_error_input(cli_buf *b, const void *v) { ROW(v); cli_jv_cstr(b, r->which ? "base" : "ref"); }
static bool failed(const void *v) { ROW(v); return r->st != URISAN_OK; }
static void put_flags(cli_buf *b, const void *v) { ROW(v); cli_jv_flags(b, r->flags); }
static void put_truncated(cli_buf *b, const void *v) { ROW(v); cli_jv_bool(b, r->truncated); }
static void put_length(cli_buf *b, const void *v) { ROW(v); cli_buf_addu(b, r->full_len); }
static void fb_nospace_ref(cli_buf *b, const void *v)
{
    (void)v;
    urisan_error e = { URISAN_E_NOSPACE, 0, 1 };
    cli_jv_error(b, &e);
}
#undef ROW

/* urisan(1), JSON OUTPUT; append new keys at the end. "error_input" is there
   only when the reference failed. */
static const cli_field resolve_fields[] = {
    { .name = "base", .put = put_base, .fb = CLI_FB_TEXT, .fb_text = "null" },
    { .name = "ref", .put = put_ref, .fb = CLI_FB_TEXT, .fb_text = "null" },
    { .name = "result", .put = put_result, .fb = CLI_FB_TEXT, .fb_text = "null" },
    { .name = "error", .put = put_error, .fb = CLI_FB_FN, .fb_put = fb_nospace_ref },
    { .name = "error_input", .put = put_error_input, .fb = CLI_FB_TEXT, .fb_text = "\"ref\"",
      .present = failed },
    { .name = "flags", .put = put_flags, .fb = CLI_FB_TEXT, .fb_text = "[]" },
    { .name = "truncated", .put = put_truncated, .fb = CLI_FB_TEXT, .fb_text = "true" },
    { .name = "length", .put = put_length, .fb = CLI_FB_PUT },
};
#define N_RESOLVE_FIELDS (sizeof resolve_fields / sizeof resolve_fields[0])

static bool resolve_one(void *ctx, const char *ref, size_t len,
                        size_t full_len, bool truncated)
{
    resolve_ctx *c = ctx;
    resolve_row r = { c, ref, len, full_len, 0, truncated, URISAN_OK,
                      { URISAN_OK, 0, 0 }, 0, NULL };
    r.st = cli_resolve(c->base, c->blen, ref, len, &c->opt,
                       &c->rbuf, &c->rcap, &r.rlen, &r.flags, &r.err);
    if (r.st != URISAN_OK)
        c->failed = true;
    r.which = (r.st != URISAN_OK && r.err.input == 0 &&
               r.st != URISAN_E_NOSPACE) ? "base" : NULL;

    if (c->json) {
        cli_line_result lr = cli_fields_line(&c->fields, &r);
        if (lr != CLI_LINE_OK)
            c->failed = true;
        return lr != CLI_LINE_FAILED;
    }

    cli_buf *b = cli_out_begin();
    size_t at;
    if (r.st == URISAN_OK && find_ctl(c->rbuf, r.rlen, &at)) {
        /* A raw control byte would split or garble the line. */
        c->failed = true;
        cli_buf_lit(b, "error: unsafe_output ");
        cli_buf_addu(b, at);
        cli_buf_lit(b, " result holds a control byte (use --json)");
    } else if (r.st == URISAN_OK) {
        cli_text_escape(b, c->rbuf, r.rlen, false);
    } else {
        cli_text_error(b, &r.err, r.which);
    }
    return cli_out_end();
}

int cmd_resolve(int argc, char **argv)
{
    enum { OPT_JSON, OPT_NON_STRICT, OPT_ABOVE_ROOT, OPT_FIELDS, NOPT };
    cli_opt opts[NOPT] = {
        [OPT_JSON] = { "--json", false, NULL, false },
        [OPT_NON_STRICT] = { "--non-strict", false, NULL, false },
        [OPT_ABOVE_ROOT] = { "--above-root", true, NULL, false },
        [OPT_FIELDS] = { "--fields", true, NULL, false },
    };
    int rc, nargs = cli_opts(CMD, argc, argv, opts, NOPT, &rc);
    if (nargs < 0)
        return rc;
    if (nargs < 1)
        return cli_usage_error(CMD, "missing BASE");

    resolve_ctx c;
    memset(&c, 0, sizeof c);
    c.json = opts[OPT_JSON].seen || opts[OPT_FIELDS].seen;
    rc = cli_fields_select(CMD, resolve_fields, N_RESOLVE_FIELDS, 0,
                           opts[OPT_FIELDS].seen ? opts[OPT_FIELDS].value : NULL, &c.fields);
    if (rc != 0)
        return rc;
    c.opt.non_strict = opts[OPT_NON_STRICT].seen;
    c.opt.above_root = URISAN_ABOVE_ROOT_CLAMP;
    c.opt.limits = NULL;
    if (opts[OPT_ABOVE_ROOT].seen) {
        const char *m = opts[OPT_ABOVE_ROOT].value;
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
            return cli_usage_error(CMD, "BASE '%.200s': %s at offset %zu: %s", c.base,
                                   urisan_status_name(bu.error.code), bu.error.offset,
                                   urisan_status_message(bu.error.code));
        if (!urisan_span_present(bu.scheme))
            return cli_usage_error(CMD, "BASE '%.200s': not an absolute URI (no scheme)", c.base);
    }
    int status = cli_each_input(CMD, argv, 2, nargs, cli_line_keep(NULL), resolve_one, &c);
    if (status == CLI_EXIT_OK && c.failed)
        status = CLI_EXIT_FAIL;
    free(c.rbuf);
    return cli_finish(CMD, status);
}
