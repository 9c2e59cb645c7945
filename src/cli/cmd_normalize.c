/*
 * cmd_normalize.c - `urisan normalize` and `urisan equivalent` (SPEC
 * sections 5 and 7): RFC 3986 section 6 normal form and comparison.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    bool json;
    char *nbuf;
    size_t ncap;
    cli_buf out;
    bool failed;
} normalize_ctx;

static bool normalize_one(void *ctx, const char *in, size_t len,
                          size_t full_len, bool truncated)
{
    normalize_ctx *c = ctx;
    size_t nlen = 0;
    urisan_error err;
    urisan_status st = cli_normalize(in, len, NULL, &c->nbuf, &c->ncap, &nlen, &err);
    if (st != URISAN_OK)
        c->failed = true;

    if (c->json) {
        json_w w;
        json_begin(&w, &c->out);
        json_obj_open(&w);
        json_kstr(&w, "uri", in, len);
        if (st == URISAN_OK)
            json_kstr(&w, "result", c->nbuf, nlen);
        else
            json_knull(&w, "result");
        cli_json_error(&w, "error", st == URISAN_OK ? NULL : &err);
        json_kbool(&w, "truncated", truncated);
        json_kuint(&w, "length", full_len);
        json_obj_close(&w);
        if (!json_ok(&w)) {
            c->failed = true;
            json_begin(&w, &c->out);
            json_obj_open(&w);
            json_knull(&w, "uri");
            json_knull(&w, "result");
            urisan_error e = { URISAN_E_NOSPACE, 0, 0 };
            cli_json_error(&w, "error", &e);
            json_kbool(&w, "truncated", true);
            json_kuint(&w, "length", full_len);
            json_obj_close(&w);
        }
        return cli_out_buf(&c->out);
    }

    cli_buf_clear(&c->out);
    if (st != URISAN_OK) {
        cli_text_error(&c->out, &err, NULL);
        return cli_out_buf(&c->out);
    }
    for (size_t i = 0; i < nlen; i++) {
        unsigned char ch = (unsigned char)c->nbuf[i];
        if (ch < 0x20 || ch == 0x7F) {
            /* A raw control byte would split or garble the line. */
            c->failed = true;
            cli_buf_adds(&c->out, "error: unsafe_output ");
            cli_buf_addu(&c->out, i);
            cli_buf_adds(&c->out, " result holds a control byte (use --json)");
            return cli_out_buf(&c->out);
        }
    }
    cli_buf_add(&c->out, c->nbuf, nlen);
    return cli_out_buf(&c->out);
}

int cmd_normalize(int argc, char **argv)
{
    static const char *const cmd = "normalize";
    cli_opt opts[] = {
        { "--json", false, NULL, false },
    };
    int nargs = 0;
    int rc = cli_getopts(cmd, argc, argv, opts, sizeof opts / sizeof opts[0], &nargs);
    if (rc == CLI_OPTS_HELP)
        return cli_finish(cmd, CLI_EXIT_OK);
    if (rc != 0)
        return rc;

    normalize_ctx c;
    memset(&c, 0, sizeof c);
    c.json = opts[0].seen;
    cli_buf_init(&c.out, CLI_JSON_MAX);

    int status = cli_each_input(cmd, argv, 1, nargs, cli_line_keep(NULL), normalize_one, &c);
    if (status == CLI_EXIT_OK && c.failed)
        status = CLI_EXIT_FAIL;
    cli_buf_free(&c.out);
    free(c.nbuf);
    return cli_finish(cmd, status);
}

int cmd_equivalent(int argc, char **argv)
{
    static const char *const cmd = "equivalent";
    int nargs = 0;
    int rc = cli_getopts(cmd, argc, argv, NULL, 0, &nargs);
    if (rc == CLI_OPTS_HELP)
        return cli_finish(cmd, CLI_EXIT_OK);
    if (rc != 0)
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
