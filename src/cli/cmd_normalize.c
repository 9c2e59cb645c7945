/*
 * cmd_normalize.c - `urisan normalize` and `urisan equivalent`
 * (urisan(1), COMMANDS): RFC 3986 section 6 normal form and comparison.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    bool json;
    char *nbuf;
    size_t ncap;
    cli_fieldset fields;
    bool failed;
} normalize_ctx;

/* One input and what the library made of it. */
typedef struct {
    const normalize_ctx *c;
    const char *in;
    size_t len, full_len, nlen;
    bool truncated;
    urisan_status st;
    urisan_error err;
} normalize_row;

#define ROW(v) const normalize_row *r = (v)
static void put_uri(cli_buf *b, const void *v) { ROW(v); json_quote(b, r->in, r->len); }
static void put_result(cli_buf *b, const void *v)
{
    ROW(v);
    if (r->st == URISAN_OK)
        json_quote(b, r->c->nbuf, r->nlen);
    else
        cli_buf_lit(b, "null");
}
static void put_error(cli_buf *b, const void *v) { ROW(v); cli_jv_error(b, r->st == URISAN_OK ? NULL : &r->err); }
static void put_truncated(cli_buf *b, const void *v) { ROW(v); cli_jv_bool(b, r->truncated); }
static void put_length(cli_buf *b, const void *v) { ROW(v); cli_buf_addu(b, r->full_len); }
#undef ROW

/* urisan(1), JSON OUTPUT; append new keys at the end. */
static const cli_field normalize_fields[] = {
    { .name = "uri", .put = put_uri, .fb = CLI_FB_TEXT, .fb_text = "null" },
    { .name = "result", .put = put_result, .fb = CLI_FB_TEXT, .fb_text = "null" },
    { .name = "error", .put = put_error, .fb = CLI_FB_FN, .fb_put = cli_fb_nospace },
    { .name = "truncated", .put = put_truncated, .fb = CLI_FB_TEXT, .fb_text = "true" },
    { .name = "length", .put = put_length, .fb = CLI_FB_PUT },
};

static bool normalize_one(void *ctx, const char *in, size_t len,
                          size_t full_len, bool truncated)
{
    normalize_ctx *c = ctx;
    normalize_row r = { c, in, len, full_len, 0, truncated, URISAN_OK, { URISAN_OK, 0, 0 } };
    r.st = cli_normalize(in, len, NULL, &c->nbuf, &c->ncap, &r.nlen, &r.err);
    if (r.st != URISAN_OK)
        c->failed = true;

    if (c->json) {
        cli_line_result lr = cli_fields_line(&c->fields, &r);
        if (lr != CLI_LINE_OK)
            c->failed = true;
        return lr != CLI_LINE_FAILED;
    }

    cli_buf *b = cli_out_begin();
    if (r.st != URISAN_OK) {
        cli_text_error(b, &r.err, NULL);
        return cli_out_end();
    }
    for (size_t i = 0; i < r.nlen; i++) {
        unsigned char ch = (unsigned char)c->nbuf[i];
        if (ch < 0x20 || ch == 0x7F) {
            /* A raw control byte would split or garble the line. */
            c->failed = true;
            cli_buf_lit(b, "error: unsafe_output ");
            cli_buf_addu(b, i);
            cli_buf_lit(b, " result holds a control byte (use --json)");
            return cli_out_end();
        }
    }
    cli_text_escape(b, c->nbuf, r.nlen, false);
    return cli_out_end();
}

enum { OPT_JSON, OPT_FIELDS, NOPT };

int cmd_normalize(int argc, char **argv)
{
    static const char *const cmd = "normalize";
    cli_opt opts[NOPT] = {
        [OPT_JSON] = { "--json", false, NULL, false },
        [OPT_FIELDS] = { "--fields", true, NULL, false },
    };
    int rc, nargs = cli_opts(cmd, argc, argv, opts, NOPT, &rc);
    if (nargs < 0)
        return rc;

    normalize_ctx c;
    memset(&c, 0, sizeof c);
    c.json = opts[OPT_JSON].seen || opts[OPT_FIELDS].seen;
    rc = cli_fields_select(cmd, normalize_fields,
                           sizeof normalize_fields / sizeof normalize_fields[0], 0,
                           opts[OPT_FIELDS].seen ? opts[OPT_FIELDS].value : NULL, &c.fields);
    if (rc != 0)
        return rc;

    int status = cli_each_input(cmd, argv, 1, nargs, cli_line_keep(NULL), normalize_one, &c);
    if (status == CLI_EXIT_OK && c.failed)
        status = CLI_EXIT_FAIL;
    free(c.nbuf);
    return cli_finish(cmd, status);
}

int cmd_equivalent(int argc, char **argv)
{
    static const char *const cmd = "equivalent";
    int rc, nargs = cli_opts(cmd, argc, argv, NULL, 0, &rc);
    if (nargs < 0)
        return rc;
    if (nargs != 2)
        return cli_usage_error(cmd, "need exactly two URIs, got %d", nargs);

    const char *a = argv[1], *b = argv[2];
    size_t alen = strlen(a), blen = strlen(b);
    char *work = NULL;
    size_t cap = 0;
    int equal = 0;
    urisan_error err = { URISAN_OK, 0, 0 };
    urisan_status st = URISAN_E_NOSPACE;
    for (int round = 0; round < 3; round++) {
        size_t needed = 0;
        err = (urisan_error){ URISAN_OK, 0, 0 };
        st = urisan_equivalent(a, alen, b, blen, NULL, work, cap, &needed, &equal, &err);
        if (st != URISAN_E_NOSPACE)
            break;
        if (!cli_grow(&work, &cap, needed, CLI_RESULT_MAX))
            break;
    }
    free(work);
    if (st != URISAN_OK) {
        if (err.code == URISAN_OK)
            err.code = st;
        return cli_fail(cmd, "%s: %s %zu %s", err.input == 1 ? "B" : "A",
                        urisan_status_name(err.code), err.offset,
                        urisan_status_message(err.code));
    }
    puts(equal ? "equivalent" : "different");
    return cli_finish(cmd, equal ? CLI_EXIT_OK : CLI_EXIT_FAIL);
}
