/*
 * cmd_extract.c - `urisan extract [--mail] [--json] [--policy FILE]
 * [FILE|-]` (SPEC sections 6 and 7): the URIs of free text, or of the
 * text and HTML parts of a mail message, one line per hit.
 */
#include "cli.h"
#ifdef URISAN_HAVE_MAIL
#include "mailbox.h"
#include "urisan_mail.h"
#endif
#ifdef URISAN_HAVE_HOSTVIEW
#include "hostview.h"
#endif

#include <stdlib.h>
#include <string.h>

#define CMD "extract"
#define HIT_BATCH 256

typedef struct {
    bool json;
    const urisan_policy *pol;
    cli_buf out;
    urisan_hit hits[HIT_BATCH];
    char *scratch;
    size_t scap;
    bool denied;
    bool io_error;       /* an output line could not be written */
#ifdef URISAN_HAVE_MAIL
    const mailbox_msg *msg; /* mbox / Maildir: the message being scanned */
    int box_status;      /* the worst status of a mailbox's messages */
#endif
#ifdef URISAN_HAVE_HOSTVIEW
    hostview hv;         /* the host of the row being written */
#endif
} ex_ctx;

/* One output line. */
typedef struct {
    const char *part;    /* NULL: free text (part 0) */
    const char *context; /* "text", "html-href", "html-src" */
    size_t offset, length;
    const char *uri;
    size_t uri_len;
    bool has_form;
    unsigned form;
    const char *display; /* NULL: none */
    size_t display_len;
    urisan_flags flags;
    urisan_decision dec;
    const char *limit;   /* a mail limit reached (context "limit"), else NULL */
    const char *message;
    const char *header;  /* context "header": the field's name, else NULL */
} ex_row;

/* URISAN_HIT_* bit names, bit order. */
static const char *const form_names[] = {
    "angle", "quoted", "url_prefix", "wrapped", "hyphen_break",
    "hyphen_dropped", "abbreviated", "trimmed",
};

static void write_json(ex_ctx *c, const ex_row *r)
{
    json_w w;
    json_begin(&w, &c->out);
    json_obj_open(&w);
    if (r->limit != NULL)
        json_knull(&w, "uri");
    else
        json_kstr(&w, "uri", r->uri, r->uri_len);
    json_key(&w, "part");
    if (r->part == NULL)
        json_uint(&w, 0);
    else
        json_cstr(&w, r->part);
    json_kuint(&w, "offset", r->offset);
    json_kuint(&w, "length", r->length);
    json_kcstr(&w, "context", r->context);
    if (r->display != NULL)
        json_kstr(&w, "display", r->display, r->display_len);
    else
        json_knull(&w, "display");
    json_key(&w, "form");
    json_arr_open(&w);
    for (unsigned bit = 0; r->has_form && bit < sizeof form_names / sizeof form_names[0]; bit++)
        if ((r->form >> bit) & 1u)
            json_cstr(&w, form_names[bit]);
    json_arr_close(&w);
    cli_json_flags(&w, "flags", r->flags);
    json_kcstr(&w, "verdict", urisan_verdict_name(r->dec.verdict));
    cli_json_reasons(&w, "reasons", &r->dec);
    cli_json_reasons_apart(&w, &r->dec);
#ifdef URISAN_HAVE_HOSTVIEW
    hostview_json(&w, c->hv.is_name ? &c->hv : NULL);
#endif
#ifdef URISAN_HAVE_MAIL
    if (c->msg != NULL) { /* a mailbox: which message */
        json_kuint(&w, "message", c->msg->index);
        json_kcstr(&w, "message_id", c->msg->message_id);
        json_kcstr(&w, "file", c->msg->file);
    }
#endif
    if (r->limit != NULL) {
        json_kcstr(&w, "limit", r->limit);
        json_kcstr(&w, "limit_message", r->message);
    }
    if (r->header != NULL)
        json_kcstr(&w, "header", r->header);
    json_obj_close(&w);
    if (json_ok(&w))
        return;

    /* Too large for one line (CLI_JSON_MAX): still a line, and a deny. */
    json_begin(&w, &c->out);
    json_obj_open(&w);
    json_knull(&w, "uri");
    json_key(&w, "part");
    if (r->part == NULL)
        json_uint(&w, 0);
    else
        json_cstr(&w, r->part);
    json_kuint(&w, "offset", r->offset);
    json_kuint(&w, "length", r->length);
    json_kcstr(&w, "context", r->context);
    json_knull(&w, "display");
    json_key(&w, "form");
    json_arr_open(&w);
    json_arr_close(&w);
    cli_json_flags(&w, "flags", URISAN_F(INVALID) | URISAN_F(TOO_LONG));
    json_kcstr(&w, "verdict", "deny");
    json_key(&w, "reasons");
    json_arr_open(&w);
    json_cstr(&w, "invalid");
    json_cstr(&w, "too_long");
    json_arr_close(&w);
    json_key(&w, "deny_reasons");
    json_arr_open(&w);
    json_cstr(&w, "invalid");
    json_cstr(&w, "too_long");
    json_arr_close(&w);
    json_key(&w, "flag_reasons");
    json_arr_open(&w);
    json_arr_close(&w);
    json_obj_close(&w);
}

/* PART OFFSET CONTEXT VERDICT REASONS "URI" ["DISPLAY"] */
static void write_text(ex_ctx *c, const ex_row *r)
{
    cli_buf *b = &c->out;
    cli_buf_clear(b);
#ifdef URISAN_HAVE_MAIL
    if (c->msg != NULL) { /* a mailbox: MESSAGE first */
        cli_buf_addu(b, c->msg->index);
        cli_buf_addc(b, ' ');
    }
#endif
    if (r->part == NULL)
        cli_buf_addc(b, '0');
    else
        cli_buf_adds(b, r->part);
    cli_buf_addc(b, ' ');
    cli_buf_addu(b, r->offset);
    cli_buf_addc(b, ' ');
    cli_buf_adds(b, r->context);
    cli_buf_addc(b, ' ');
    cli_buf_adds(b, urisan_verdict_name(r->dec.verdict));
    cli_buf_addc(b, ' ');
    cli_text_reasons(b, &r->dec);
    cli_buf_add(b, " \"", 2);
    json_escape(b, r->uri, r->uri_len);
    cli_buf_addc(b, '"');
    if (r->limit != NULL) {
        cli_buf_add(b, " \"", 2);
        json_escape(b, r->message, strlen(r->message));
        cli_buf_addc(b, '"');
    }
    if (r->display != NULL) {
        cli_buf_add(b, " \"", 2);
        json_escape(b, r->display, r->display_len);
        cli_buf_addc(b, '"');
    }
    if (r->header != NULL) { /* context header: the field's name */
        cli_buf_add(b, " \"", 2);
        json_escape(b, r->header, strlen(r->header));
        cli_buf_addc(b, '"');
    }
    if (b->failed) {
        cli_buf_clear(b);
        cli_buf_adds(b, "? ? ? deny invalid,too_long (output line too large)");
    }
}

static bool put_row(ex_ctx *c, ex_row *r)
{
#ifdef URISAN_HAVE_HOSTVIEW
    /* homograph, invisible_char: facts about the host and the link text,
       judged by the policy like any flag. */
    hostview_judge_link(c->pol, r->uri, r->uri_len, r->display, r->display_len,
                        &r->flags, &r->dec, &c->hv);
#endif
    if (r->dec.verdict == URISAN_DENY)
        c->denied = true;
    if (c->json)
        write_json(c, r);
    else
        write_text(c, r);
    if (!cli_out_buf(&c->out)) {
        c->io_error = true;
        return false;
    }
    return true;
}

/* Free text: every hit of urisan_extract, batch after batch. */
static bool scan_text(ex_ctx *c, const char *part, const char *t, size_t len)
{
    size_t start = 0;
    for (;;) {
        size_t n = 0, next = start;
        urisan_status st = urisan_extract(t, len, start, c->pol, c->hits, HIT_BATCH, &n,
                                          c->scratch, c->scap, &next);
        for (size_t k = 0; k < n; k++) {
            const urisan_hit *h = &c->hits[k];
            ex_row r;
            memset(&r, 0, sizeof r);
            r.part = part;
            r.context = "text";
            r.offset = h->off;
            r.length = h->len;
            r.uri = h->uri;
            r.uri_len = h->uri_len;
            r.has_form = true;
            r.form = h->form;
            r.flags = h->flags;
            r.dec = h->decision;
            if (!put_row(c, &r))
                return false;
        }
        if (st != URISAN_E_TOO_MANY || next <= start)
            return st == URISAN_OK;
        start = next;
    }
}

#ifdef URISAN_HAVE_MAIL
/* A hit of liburisan-mail: one output line. */
static bool on_mail_hit(void *ctx, const urisan_mail_hit *h)
{
    ex_ctx *c = ctx;
    ex_row r;
    memset(&r, 0, sizeof r);
    r.part = h->part;
    r.context = urisan_mail_source_name(h->source);
    r.offset = h->offset;
    r.length = h->length;
    r.uri = h->uri;
    r.uri_len = h->uri_len;
    r.has_form = h->has_form;
    r.form = h->form;
    r.display = h->display;
    r.display_len = h->display_len;
    r.flags = h->flags;
    r.dec = h->decision;
    r.header = h->header;
    return put_row(c, &r);
}

/* A limit reached: a line of its own (context "limit", flag mail_limit,
   the policy's verdict), and a warning. */
static bool on_mail_diag(void *ctx, const urisan_mail_diag *dg)
{
    ex_ctx *c = ctx;
    ex_row r;
    memset(&r, 0, sizeof r);
    r.part = dg->part ? dg->part : "raw";
    r.context = "limit";
    r.uri = "";
    r.flags = dg->flags;
    r.dec = dg->decision;
    r.limit = urisan_mail_limit_name(dg->limit);
    r.message = dg->message;
    fprintf(stderr, "urisan: %s: limit %s in part %s: %s\n", CMD, r.limit, r.part, dg->message);
    return put_row(c, &r);
}

/* The message data[0..len) through liburisan-mail. */
static int scan_mail(ex_ctx *c, const char *path, const char *data, size_t len)
{
    urisan_mail_limits lim;
    urisan_mail_limits_default(&lim);
    urisan_mail_sink sink = { on_mail_hit, on_mail_diag, c };
    urisan_mail_result res;
    urisan_mail_status st = urisan_mail_scan(data, len, c->pol, &lim, &sink, &res);
    (void)path;
    switch (st) {
    case URISAN_MAIL_OK:
    case URISAN_MAIL_LIMIT: /* reported as lines; the policy judged them */
        return CLI_EXIT_OK;
    case URISAN_MAIL_NOT_MESSAGE:
        return cli_fail(CMD, "the input is not a mail message");
    case URISAN_MAIL_NOMEM:
        return cli_fail(CMD, "out of memory");
    case URISAN_MAIL_STOPPED:
        break;
    }
    return CLI_EXIT_USAGE; /* an output error, told already */
}

/* One message of an mbox or a Maildir. */
static bool on_box_msg(void *ctx, const mailbox_msg *m)
{
    ex_ctx *c = ctx;
    c->msg = m;
    int st = scan_mail(c, m->file, m->data, m->len);
    c->msg = NULL;
    if (st != CLI_EXIT_OK) {
        fprintf(stderr, "urisan: " CMD ": %s: message %zu (%s) above\n", m->file, m->index,
                m->message_id[0] ? m->message_id : "no Message-ID");
        if (st > c->box_status)
            c->box_status = st;
    }
    return !c->io_error;
}

static bool read_box_file(void *ctx, const char *path, char **data, size_t *len)
{
    ex_ctx *c = ctx;
    if (cli_read_file(CMD, path, CLI_FILE_MAX, data, len))
        return true;
    c->box_status = CLI_EXIT_USAGE;
    return false;
}
#endif

int cmd_extract(int argc, char **argv)
{
    cli_opt opts[] = {
        { "--json", false, NULL, false },
        { "--mail", false, NULL, false },
        { "--policy", true, NULL, false },
        { "--profile", true, NULL, false },
    };
    int nargs = 0;
    int rc = cli_getopts(CMD, argc, argv, opts, sizeof opts / sizeof opts[0], &nargs);
    if (rc == CLI_OPTS_HELP)
        return cli_finish(CMD, CLI_EXIT_OK);
    if (rc != 0)
        return rc;
    if (nargs > 1)
        return cli_usage_error(CMD, "at most one FILE");
#ifndef URISAN_HAVE_MAIL
    if (opts[1].seen)
        return cli_fail(CMD, "--mail is not available: urisan was built without "
                             "GMime and libpsl (meson option 'mail')");
#endif
    const char *path = nargs == 1 ? argv[1] : "-";

    ex_ctx *c = calloc(1, sizeof *c);
    if (c == NULL)
        return cli_fail(CMD, "out of memory");
    c->json = opts[0].seen;
    urisan_policy *pol = cli_policy_load(CMD, opts[2].value, opts[3].value);
    if (pol == NULL) {
        free(c);
        return CLI_EXIT_USAGE;
    }
    c->pol = pol;
    c->scap = urisan_extract_scratch_size(pol);
    c->scratch = malloc(c->scap);
    char *data = NULL;
    size_t len = 0;
    int status = CLI_EXIT_OK;
    if (c->scratch == NULL) {
        status = cli_fail(CMD, "out of memory");
#ifdef URISAN_HAVE_MAIL
    } else if (opts[1].seen && mailbox_is_maildir(path)) {
        cli_buf_init(&c->out, CLI_JSON_MAX);
        if (mailbox_each_maildir(path, read_box_file, on_box_msg, c) != 0 && !c->io_error)
            status = cli_fail(CMD, "%s: cannot read the Maildir", path);
        if (status == CLI_EXIT_OK)
            status = c->io_error ? CLI_EXIT_USAGE : c->box_status;
        urisan_mail_shutdown();
        cli_buf_free(&c->out);
#endif
    } else if (!cli_read_file(CMD, path, CLI_FILE_MAX, &data, &len)) {
        status = CLI_EXIT_USAGE;
    } else {
        cli_buf_init(&c->out, CLI_JSON_MAX);
        if (!opts[1].seen) {
            if (!scan_text(c, NULL, data, len) && !c->io_error)
                status = cli_fail(CMD, "%s: extraction failed", path);
        }
#ifdef URISAN_HAVE_MAIL
        else {
            if (mailbox_is_mbox(data, len)) { /* every message of an mbox */
                if (!mailbox_each_mbox(path, data, len, on_box_msg, c) && !c->io_error)
                    status = CLI_EXIT_USAGE;
                if (status == CLI_EXIT_OK)
                    status = c->io_error ? CLI_EXIT_USAGE : c->box_status;
            } else {
                status = scan_mail(c, path, data, len);
            }
            urisan_mail_shutdown();
        }
#endif
        if (c->io_error && status == CLI_EXIT_OK)
            status = CLI_EXIT_USAGE;
        cli_buf_free(&c->out);
        free(data);
    }
    if (status == CLI_EXIT_OK && c->denied)
        status = CLI_EXIT_FAIL;
    free(c->scratch);
    free(c);
    free(pol);
    return cli_finish(CMD, status);
}
