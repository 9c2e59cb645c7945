/*
 * cmd_extract.c - `urisan extract [--mail] [--json] [--policy FILE]
 * [FILE|-]` (urisan(1), EXTRACT): the URIs of free text, or of the
 * text and HTML parts of a mail message, one line per hit.
 */
#define _GNU_SOURCE 1 /* memrchr */
#include "cli.h"
#include "jobs.h"
#include "progress.h"
#include "resolve_window.h"
#include "stream.h"
#ifdef URISAN_HAVE_MAIL
#include "mailbox.h"
#include "urisan_mail.h"
#endif
#ifdef URISAN_HAVE_HOST
#include "urisan_host.h"
#endif

#include <stdlib.h>
#include <string.h>

#define CMD "extract"
#define HIT_BATCH 256

typedef struct ex_ctx {
    bool json;
    bool explain;        /* --explain: the rule behind each reason */
    const urisan_policy *pol;
    cli_fieldset fields;
    urisan_hit hits[HIT_BATCH];
    char *scratch;
    size_t scap;
    bool denied;
    bool io_error;       /* an output line could not be written */
    cli_pool *pool;      /* --jobs N, text: the windows' pieces at once */
    cli_jobs *jobs;      /* --jobs N, a mailbox: the messages at once */
    unsigned njobs;
    struct ex_ctx *workers; /* --jobs N: each worker's own state */
    struct seg_run *seg;    /* --jobs N, text: a window's pieces (kept:
                               their buffers serve every window) */
#ifdef URISAN_HAVE_MAIL
    const mailbox_msg *msg; /* mbox / Maildir: the message being scanned */
    int box_status;      /* the worst status of a mailbox's messages */
#endif
#ifdef URISAN_HAVE_HOST
    urisan_host_ctx *host; /* the host layer's context (the one decision):
                              NULL, the calling thread's own (--jobs) */
    urisan_hostview hv;  /* the host of the row being written */
    bool skeleton_always; /* --fields: host_skeleton when it is named */
    urisan_link_keeper keep; /* free text: each hit's parse and analysis
                                (HIT_BATCH), decided as its row is written */
#endif
#ifdef URISAN_HAVE_NET
    cli_resolve_window *rw; /* --resolve: the rows held for their lookups */
#endif
} ex_ctx;

/* --jobs N (below): start the workers for text or a mailbox; stop them. */
static bool workers_start(ex_ctx *c, bool mailbox);
static void workers_stop(ex_ctx *c);

/* One output line. */
typedef struct {
    const char *part;    /* NULL: free text (part 0) */
    const char *context; /* "text", "html-href", "html-src" */
    size_t offset, length;
    const char *uri;
    size_t uri_len;
    bool has_form;
    unsigned form;
    const struct ex_ctx *c; /* the command's state (hostview, message) */
    const char *display; /* NULL: none */
    size_t display_len;
    urisan_flags flags;
    urisan_decision dec;
    const char *limit;   /* a mail limit reached (context "limit"), else NULL */
    const char *message;
    const char *header;  /* context "header": the field's name, else NULL */
    const char *written; /* a link written in Unicode: as written (uri is
                            the URI a browser opens for it), else NULL */
    size_t written_len;
    const char *attachment; /* the file name of the part, else NULL */
    const char *rewriter;   /* a rewritten link: the service, else NULL */
    unsigned page;       /* a hit in a PDF: its page (1-based), else 0 */
#ifdef URISAN_HAVE_NET
    const urisan_net_result *res; /* --resolve: the answer for its host */
#endif
} ex_row;

/* URISAN_HIT_* bit names, bit order. */
static const char *const form_names[] = {
    "angle", "quoted", "url_prefix", "wrapped", "hyphen_break",
    "hyphen_dropped", "abbreviated", "trimmed",
};

#define ROW(v) const ex_row *r = (v)
static void put_uri(cli_buf *b, const void *v)
{
    ROW(v);
    if (r->limit != NULL)
        cli_buf_lit(b, "null");
    else
        json_quote(b, r->uri, r->uri_len);
}
static void put_part(cli_buf *b, const void *v)
{
    ROW(v);
    if (r->part == NULL)
        cli_buf_addc(b, '0');
    else
        cli_jv_cstr(b, r->part);
}
static void put_offset(cli_buf *b, const void *v) { ROW(v); cli_buf_addu(b, r->offset); }
static void put_length(cli_buf *b, const void *v) { ROW(v); cli_buf_addu(b, r->length); }
static void put_context(cli_buf *b, const void *v) { ROW(v); cli_jv_cstr(b, r->context); }
static void put_display(cli_buf *b, const void *v)
{
    ROW(v);
    if (r->display != NULL)
        json_quote(b, r->display, r->display_len);
    else
        cli_buf_lit(b, "null");
}
static void put_form(cli_buf *b, const void *v)
{
    ROW(v);
    cli_buf_addc(b, '[');
    bool first = true;
    for (unsigned bit = 0; r->has_form && bit < sizeof form_names / sizeof form_names[0]; bit++) {
        if ((r->form >> bit) & 1u) {
            if (!first)
                cli_buf_addc(b, ',');
            first = false;
            cli_jv_cstr(b, form_names[bit]);
        }
    }
    cli_buf_addc(b, ']');
}
static void put_flags(cli_buf *b, const void *v) { ROW(v); cli_jv_flags(b, r->flags); }
static void put_verdict(cli_buf *b, const void *v) { ROW(v); cli_jv_verdict(b, r->dec.verdict); }
static void put_reasons(cli_buf *b, const void *v) { ROW(v); cli_jv_reasons(b, &r->dec); }
static void put_deny_reasons(cli_buf *b, const void *v) { ROW(v); cli_jv_deny_reasons(b, &r->dec); }
static void put_flag_reasons(cli_buf *b, const void *v) { ROW(v); cli_jv_flag_reasons(b, &r->dec); }
#ifdef URISAN_HAVE_HOST
/* The host layer's keys (cli_jv_host_form): null when not a reg-name. */
static void put_host_unicode(cli_buf *b, const void *v)
{
    ROW(v);
    cli_jv_host_form(b, &r->c->hv, CLI_HV_UNICODE);
}
static void put_host_skeleton(cli_buf *b, const void *v)
{
    ROW(v);
    if (cli_skeleton_shown(&r->c->hv, r->flags, r->c->skeleton_always))
        cli_jv_host_form(b, &r->c->hv, CLI_HV_SKELETON);
    else
        cli_buf_lit(b, "null");
}
static void put_host_imitates(cli_buf *b, const void *v)
{
    ROW(v);
    cli_jv_host_form(b, &r->c->hv, CLI_HV_IMITATES);
}
static void put_registrable(cli_buf *b, const void *v)
{
    ROW(v);
    cli_jv_host_form(b, &r->c->hv, CLI_HV_REGISTRABLE);
}
#endif
#ifdef URISAN_HAVE_MAIL
/* A mailbox (mbox, Maildir): which message. */
static bool in_box(const void *v) { ROW(v); return r->c->msg != NULL; }
static void put_message(cli_buf *b, const void *v) { ROW(v); cli_buf_addu(b, r->c->msg->index); }
static void put_message_id(cli_buf *b, const void *v) { ROW(v); cli_jv_cstr(b, r->c->msg->message_id); }
static void put_file(cli_buf *b, const void *v) { ROW(v); cli_jv_cstr(b, r->c->msg->file); }
#endif
/* A mail limit reached (context "limit"). */
static bool is_limit(const void *v) { ROW(v); return r->limit != NULL; }
static void put_limit(cli_buf *b, const void *v) { ROW(v); cli_jv_cstr(b, r->limit); }
static void put_limit_message(cli_buf *b, const void *v) { ROW(v); cli_jv_cstr(b, r->message); }
/* context "header": the field's name. */
static bool has_header(const void *v) { ROW(v); return r->header != NULL; }
static void put_header(cli_buf *b, const void *v) { ROW(v); cli_jv_cstr(b, r->header); }
/* a link written in Unicode: the text as written */
static bool has_written(const void *v) { ROW(v); return r->written != NULL; }
static void put_written(cli_buf *b, const void *v) { ROW(v); json_quote(b, r->written, r->written_len); }
/* a rewritten link (uri its destination): the rewriting service */
static bool has_rewriter(const void *v) { ROW(v); return r->rewriter != NULL; }
static void put_rewriter(cli_buf *b, const void *v) { ROW(v); cli_jv_cstr(b, r->rewriter); }
/* a part with a file name (an attachment): the name */
static bool has_attachment(const void *v) { ROW(v); return r->attachment != NULL; }
static void put_attachment(cli_buf *b, const void *v)
{
    ROW(v);
    json_quote(b, r->attachment, strlen(r->attachment));
}
/* a hit on a page of a PDF attachment: its number */
static bool has_page(const void *v) { ROW(v); return r->page != 0; }
static void put_page(cli_buf *b, const void *v) { ROW(v); cli_buf_addu(b, r->page); }
static void put_explain(cli_buf *b, const void *v)
{
    ROW(v);
    cli_jv_explain(b, &r->dec, r->c->pol, r->uri, r->uri_len);
}
static void put_resolve(cli_buf *b, const void *v)
{
#ifdef URISAN_HAVE_NET
    ROW(v);
    if (r->res != NULL) {
        cli_jv_resolve(b, r->res);
        return;
    }
#else
    (void)v;
#endif
    cli_buf_lit(b, "null");
}
#undef ROW

#define MODE_EXPLAIN 1u /* --explain was given */
#define MODE_RESOLVE 2u /* --resolve was given */

/* urisan(1), JSON OUTPUT; append new keys at the end. The fallback line (a hit
   too large for CLI_JSON_MAX) keeps where the hit is and denies it. */
static const cli_field extract_fields[] = {
    { .name = "uri", .put = put_uri, .fb = CLI_FB_TEXT, .fb_text = "null" },
    { .name = "part", .put = put_part, .fb = CLI_FB_PUT },
    { .name = "offset", .put = put_offset, .fb = CLI_FB_PUT },
    { .name = "length", .put = put_length, .fb = CLI_FB_PUT },
    { .name = "context", .put = put_context, .fb = CLI_FB_PUT },
    { .name = "display", .put = put_display, .fb = CLI_FB_TEXT, .fb_text = "null" },
    { .name = "form", .put = put_form, .fb = CLI_FB_TEXT, .fb_text = "[]" },
    { .name = "flags", .put = put_flags, .fb = CLI_FB_TEXT,
      .fb_text = "[\"invalid\",\"too_long\"]" },
    { .name = "verdict", .put = put_verdict, .fb = CLI_FB_TEXT, .fb_text = "\"deny\"" },
    { .name = "reasons", .put = put_reasons, .fb = CLI_FB_TEXT,
      .fb_text = "[\"invalid\",\"too_long\"]" },
    { .name = "deny_reasons", .put = put_deny_reasons, .fb = CLI_FB_TEXT,
      .fb_text = "[\"invalid\",\"too_long\"]" },
    { .name = "flag_reasons", .put = put_flag_reasons, .fb = CLI_FB_TEXT, .fb_text = "[]" },
#ifdef URISAN_HAVE_HOST
    { .name = "host_unicode", .put = put_host_unicode, .fb = CLI_FB_OMIT },
    { .name = "host_skeleton", .put = put_host_skeleton, .fb = CLI_FB_OMIT },
    { .name = "host_imitates", .put = put_host_imitates, .fb = CLI_FB_OMIT },
    { .name = "registrable_domain", .put = put_registrable, .fb = CLI_FB_OMIT },
#endif
#ifdef URISAN_HAVE_MAIL
    { .name = "message", .put = put_message, .fb = CLI_FB_OMIT, .present = in_box },
    { .name = "message_id", .put = put_message_id, .fb = CLI_FB_OMIT, .present = in_box },
    { .name = "file", .put = put_file, .fb = CLI_FB_OMIT, .present = in_box },
#endif
    { .name = "limit", .put = put_limit, .fb = CLI_FB_OMIT, .present = is_limit },
    { .name = "limit_message", .put = put_limit_message, .fb = CLI_FB_OMIT,
      .present = is_limit },
    { .name = "header", .put = put_header, .fb = CLI_FB_OMIT, .present = has_header },
    { .name = "written", .put = put_written, .fb = CLI_FB_OMIT, .present = has_written },
    { .name = "attachment", .put = put_attachment, .fb = CLI_FB_OMIT, .present = has_attachment },
    { .name = "rewriter", .put = put_rewriter, .fb = CLI_FB_OMIT, .present = has_rewriter },
    { .name = "page", .put = put_page, .fb = CLI_FB_OMIT, .present = has_page },
    /* --explain: the rule behind each reason */
    { .name = "explain", .put = put_explain, .fb = CLI_FB_TEXT, .fb_text = "{}",
      .when = MODE_EXPLAIN, .needs = "--explain" },
    /* --resolve: the host looked up, every address judged (address rule) */
    { .name = "resolve", .put = put_resolve, .fb = CLI_FB_OMIT, .when = MODE_RESOLVE,
      .needs = "--resolve" },
};

/* PART OFFSET CONTEXT VERDICT REASONS "URI" ["DISPLAY"] */
static bool write_text(const ex_ctx *c, const ex_row *r)
{
    cli_buf *b = cli_out_begin();
#ifdef URISAN_HAVE_MAIL
    if (c->msg != NULL) { /* a mailbox: MESSAGE first */
        cli_buf_addu(b, c->msg->index);
        cli_buf_addc(b, ' ');
    }
#else
    (void)c; /* only a mailbox has a message number */
#endif
    if (r->part == NULL)
        cli_buf_addc(b, '0');
    else
        cli_text_escape(b, r->part, strlen(r->part), false);
    cli_buf_addc(b, ' ');
    cli_buf_addu(b, r->offset);
    cli_buf_addc(b, ' ');
    cli_buf_adds(b, r->context);
    cli_buf_addc(b, ' ');
    cli_buf_adds(b, urisan_verdict_name(r->dec.verdict));
    cli_buf_addc(b, ' ');
    cli_text_reasons(b, &r->dec);
    cli_buf_add(b, " \"", 2);
    cli_text_escape(b, r->uri, r->uri_len, true);
    cli_buf_addc(b, '"');
    if (r->limit != NULL) {
        cli_buf_add(b, " \"", 2);
        cli_text_escape(b, r->message, strlen(r->message), true);
        cli_buf_addc(b, '"');
    }
    if (r->display != NULL) {
        cli_buf_add(b, " \"", 2);
        cli_text_escape(b, r->display, r->display_len, true);
        cli_buf_addc(b, '"');
    }
    if (r->header != NULL) { /* context header: the field's name */
        cli_buf_lit(b, " \"");
        cli_text_escape(b, r->header, strlen(r->header), true);
        cli_buf_addc(b, '"');
    }
    if (r->rewriter != NULL) { /* a rewritten link: the service */
        cli_buf_lit(b, " rewriter ");
        cli_buf_adds(b, r->rewriter);
    }
    if (r->attachment != NULL) { /* a part with a file name */
        cli_buf_lit(b, " attachment \"");
        cli_text_escape(b, r->attachment, strlen(r->attachment), true);
        cli_buf_addc(b, '"');
    }
#ifdef URISAN_HAVE_NET
    if (r->res != NULL)
        cli_text_resolve(b, r->res);
#endif
    if (c->explain && r->dec.verdict != URISAN_ALLOW) {
        cli_buf_lit(b, " (explain: ");
        cli_text_explain(b, &r->dec, c->pol, r->uri, r->uri_len);
        cli_buf_addc(b, ')');
    }
    if (b->failed) {
        cli_out_rewind();
        cli_buf_lit(b, "? ? ? deny invalid,too_long (output line too large)");
    }
    return cli_out_end();
}

#ifdef URISAN_HAVE_NET
/* --resolve: a row held until its host's answer is in: the row, its
   host's view, and the text of its strings (text[]), which the row's
   pointers name. */
typedef struct {
    ex_row r;
#ifdef URISAN_HAVE_HOST
    urisan_hostview hv;
#endif
    char text[];
} held_row;

/* Copy s[0..n) to *at (NUL-terminated); the copy, NULL for NULL. */
static const char *held_str(char **at, const char *s, size_t n)
{
    if (s == NULL)
        return NULL;
    char *d = *at;
    memcpy(d, s, n);
    d[n] = 0;
    *at = d + n + 1;
    return d;
}

static size_t strlen0(const char *s) { return s != NULL ? strlen(s) : 0; }

/* A copy of r (its strings in the copy) and c's view of its host. */
static held_row *hold_row(const ex_ctx *c, const ex_row *r)
{
    size_t np = strlen0(r->part), nm = strlen0(r->message), nh = strlen0(r->header),
           na = strlen0(r->attachment);
    size_t need = np + r->uri_len + r->display_len + nm + nh + r->written_len + na + 7;
    held_row *h = malloc(sizeof *h + need);
    if (h == NULL)
        return NULL;
    h->r = *r;
#ifdef URISAN_HAVE_HOST
    h->hv = c->hv;
#else
    (void)c;
#endif
    char *at = h->text;
    h->r.part = held_str(&at, r->part, np);
    h->r.uri = held_str(&at, r->uri, r->uri_len);
    h->r.display = held_str(&at, r->display, r->display_len);
    h->r.message = held_str(&at, r->message, nm);
    h->r.header = held_str(&at, r->header, nh);
    h->r.written = held_str(&at, r->written, r->written_len);
    h->r.attachment = held_str(&at, r->attachment, na);
    return h;
}
#endif

static bool write_row(ex_ctx *c, ex_row *r);

/* One row, decided already (its host's view in c->hv): written, or with
   --resolve held until its host's answer is in. */
static bool put_row(ex_ctx *c, ex_row *r)
{
#ifdef URISAN_HAVE_NET
    if (c->rw != NULL) {
        held_row *h = hold_row(c, r);
        if (cli_resolve_hold(c->rw, h != NULL ? h->r.uri : NULL, r->uri_len, h))
            return true;
        c->io_error = true;
        return false;
    }
#endif
    return write_row(c, r);
}

#ifdef URISAN_HAVE_NET
/* --resolve: a held row with its host's answer (cli_resolve_flush). */
static bool write_resolved(void *ctx, void *row, const urisan_net_result *res)
{
    ex_ctx *c = ctx;
    held_row *h = row;
#ifdef URISAN_HAVE_HOST
    c->hv = h->hv;
#endif
    h->r.res = res;
    cli_resolve_merge(&h->r.dec, res);
    return write_row(c, &h->r);
}

/* Write the rows held (the input or a message ends). */
static bool flush_rows(ex_ctx *c)
{
    if (c->rw != NULL && !cli_resolve_flush(c->rw))
        c->io_error = true;
    return !c->io_error;
}
#else
static bool flush_rows(ex_ctx *c) { return !c->io_error; }
#endif

/* Write one row (its host's view in c->hv). */
static bool write_row(ex_ctx *c, ex_row *r)
{
    r->c = c;
    if (r->dec.verdict == URISAN_DENY)
        c->denied = true;
    bool ok = c->json ? cli_fields_line(&c->fields, r) != CLI_LINE_FAILED : write_text(c, r);
    if (!ok) {
        c->io_error = true;
        return false;
    }
    return true;
}

/* A batch of free-text hits: urisan_extract_more, or with the host layer
   urisan_extract_with keeping each hit's facts for its decision. */
static urisan_status extract_batch(ex_ctx *c, const char *t, size_t len, size_t start,
                                   bool more, size_t *n, size_t *next)
{
#ifdef URISAN_HAVE_HOST
    const urisan_link_hooks keep = { urisan_link_keep, &c->keep };
    c->keep.n = 0;
    urisan_status st = urisan_extract_with(t, len, start, more, c->pol, &keep, c->hits,
                                           HIT_BATCH, n, c->scratch, c->scap, next);
    if (c->keep.n != *n) /* urisan_extract_with decides each hit stored, once */
        abort();
    return st;
#else
    return urisan_extract_more(t, len, start, more, c->pol, c->hits, HIT_BATCH, n,
                               c->scratch, c->scap, next);
#endif
}

/* Free text t[start..len) of the input from byte base on: every hit of
   urisan_extract_more, batch after batch, each decided once (with the
   host layer: urisan_judge_link_decide) as its row is written; more: the
   text goes on past len. *next: where the undecided rest starts (len
   when none). false: an output failure, or the extraction failed. */
static bool scan_text(ex_ctx *c, const char *t, size_t len, size_t start, size_t base,
                      bool more, size_t *next)
{
    for (;;) {
        size_t n = 0;
        *next = start;
        urisan_status st = extract_batch(c, t, len, start, more, &n, next);
        for (size_t k = 0; k < n; k++) {
            const urisan_hit *h = &c->hits[k];
            ex_row r;
            memset(&r, 0, sizeof r);
            r.context = "text";
            r.offset = base + h->off;
            r.length = h->len;
            r.uri = h->uri;
            r.uri_len = h->uri_len;
            r.has_form = true;
            r.form = h->form;
            r.flags = h->flags;
            r.dec = h->decision;
#ifdef URISAN_HAVE_HOST
            /* a link written in Unicode: the URI a browser opens is
               judged, the text as written kept (as extract --mail) */
            urisan_link_judge lj = { c->host, &c->hv };
            urisan_hit jh = *h;
            char *opened = urisan_judge_text_link(&lj, c->pol, &jh, &c->keep.facts[k],
                                                  &r.written, &r.written_len);
            r.uri = jh.uri;
            r.uri_len = jh.uri_len;
            r.flags = jh.flags;
            r.dec = jh.decision;
            bool put = put_row(c, &r);
            free(opened);
            if (!put)
                return false;
#else
            if (!put_row(c, &r))
                return false;
#endif
        }
        if (st != URISAN_E_TOO_MANY || *next <= start)
            return st == URISAN_OK;
        start = *next;
    }
}

/* ---- --jobs N over text: a window's pieces scanned at once ---- */

#define SEG_MAX 256

/* The pieces of a window: piece k is t[from[k]..to[k]), scanned as if
   the text ended at to[k] (more: it goes on), from the start of a line. */
typedef struct seg_run {
    const char *t;
    size_t base, n;
    size_t from[SEG_MAX], to[SEG_MAX], stop[SEG_MAX];
    bool more[SEG_MAX], ok[SEG_MAX], denied[SEG_MAX], io_error[SEG_MAX];
    cli_buf out[SEG_MAX], err[SEG_MAX];
} seg_run;

static void seg_task(void *arg, size_t k, void *w)
{
    seg_run *r = arg;
    ex_ctx *c = w;
    c->denied = false;
    c->io_error = false;
    r->ok[k] = scan_text(c, r->t, r->to[k], r->from[k], r->base, r->more[k], &r->stop[k]);
    r->denied[k] = c->denied;
    r->io_error[k] = c->io_error;
}

/* The first line start at or after at (> from) where no candidate of the
   scan can be running: only a "<...>" wrapped over lines spans a line
   feed, so a line start after which the last '<' since from (a cut, or
   where the scan is) is closed by a '>' before it. len: none. */
static size_t safe_cut(const char *t, size_t len, size_t from, size_t at)
{
    while (at < len) {
        const char *nl = memchr(t + at - 1, '\n', len - (at - 1));
        if (nl == NULL)
            return len;
        size_t p = (size_t)(nl - t) + 1;
        const char *lt = memrchr(t + from, '<', p - from);
        const char *gt = lt != NULL ? memchr(lt, '>', (size_t)(t + p - lt)) : NULL;
        if (lt == NULL || gt != NULL)
            return p;
        at = p + 1;
    }
    return len;
}

/* The pieces' state, once: their output buffers then serve every window. */
static bool seg_alloc(ex_ctx *c)
{
    c->seg = calloc(1, sizeof *c->seg);
    if (c->seg == NULL) {
        cli_fail(CMD, "out of memory");
        return false;
    }
    for (size_t k = 0; k < SEG_MAX; k++) {
        cli_buf_init(&c->seg->out[k], SIZE_MAX);
        cli_buf_init(&c->seg->err[k], SIZE_MAX);
    }
    return true;
}

static void seg_free(ex_ctx *c)
{
    for (size_t k = 0; c->seg != NULL && k < SEG_MAX; k++) {
        cli_buf_free(&c->seg->out[k]);
        cli_buf_free(&c->seg->err[k]);
    }
    free(c->seg);
    c->seg = NULL;
}

/* Cut t[start..len) into pieces that start after a line feed. */
static void seg_cut(seg_run *r, const char *t, size_t len, size_t start, unsigned jobs)
{
    size_t want = 4 * (size_t)jobs < SEG_MAX ? 4 * (size_t)jobs : SEG_MAX;
    size_t step = (len - start) / want + 1;
    r->n = 0;
    r->from[0] = start;
    for (size_t k = 1; k < want; k++) {
        size_t at = start + k * step;
        if (at <= r->from[r->n] + 1)
            at = r->from[r->n] + 1;
        if (at >= len)
            break;
        size_t cut = safe_cut(t, len, r->from[r->n], at);
        if (cut >= len)
            break;
        r->to[r->n] = cut;
        r->more[r->n] = true;
        r->n++;
        r->from[r->n] = r->to[r->n - 1];
    }
    r->to[r->n] = len;
    r->n++;
}

/*
 * scan_text over t[start..len) on the pool: each piece is scanned from
 * its first byte at once; a piece is the one scan's when the piece
 * before stopped exactly where it starts (its last candidate did not
 * run on into it). Otherwise it is scanned again here, from where the
 * one scan is. The output is the one scan's, in order.
 */
static bool scan_window_jobs(ex_ctx *c, const char *t, size_t len, size_t start, size_t base,
                             bool more, size_t *next)
{
    if (c->seg == NULL && !seg_alloc(c))
        return false;
    seg_run *r = c->seg;
    r->t = t;
    r->base = base;
    seg_cut(r, t, len, start, c->njobs);
    r->more[r->n - 1] = more;
    for (size_t k = 0; k < r->n; k++) {
        cli_buf_clear(&r->out[k]);
        cli_buf_clear(&r->err[k]);
    }
    cli_pool_run(c->pool, r->n, seg_task, r, r->out, r->err);
    size_t pos = start;
    bool ok = true;
    for (size_t k = 0; k < r->n && ok; k++) {
        if (pos != r->from[k]) { /* out of step: this piece again, here */
            ok = scan_text(c, t, r->to[k], pos, base, r->more[k], &pos);
            continue;
        }
        if (r->out[k].len > 0 && !cli_out_lines(r->out[k].p, r->out[k].len))
            c->io_error = true;
        if (r->err[k].len > 0)
            fwrite(r->err[k].p, 1, r->err[k].len, stderr);
        c->denied |= r->denied[k];
        c->io_error |= r->io_error[k];
        ok = r->ok[k] && !c->io_error;
        pos = r->stop[k];
    }
    *next = pos;
    return ok;
}

/* A text input of any size, read a window at a time: what a window
   leaves undecided (a link running on past its end) is kept for the
   next, up to CLI_FILE_MAX bytes; past that the link is cut there,
   told on stderr, and the status is 2. */
static int scan_text_stream(ex_ctx *c, const char *path)
{
    cli_stream s;
    if (!cli_stream_open(&s, CMD, path))
        return CLI_EXIT_USAGE;
    s.chunk *= c->njobs; /* --jobs N: N reads a window */
    int status = CLI_EXIT_OK;
    size_t start = 0, keep_from = 0;
    for (;;) {
        bool force = s.len - keep_from >= CLI_FILE_MAX;
        if (!force && !s.eof) {
            if (cli_stream_fill(&s, keep_from, CLI_FILE_MAX) < 0) {
                status = CLI_EXIT_USAGE;
                break;
            }
            start -= keep_from;
        }
        size_t next = start;
        bool ok = c->pool != NULL && !force
                      ? scan_window_jobs(c, s.buf, s.len, start, s.base, !s.eof, &next)
                      : scan_text(c, s.buf, s.len, start, s.base, !s.eof && !force, &next);
        if (!ok) {
            if (!c->io_error)
                status = cli_fail(CMD, "%s: extraction failed", path);
            break;
        }
        if (force)
            status = cli_fail(CMD, "%s: offset %zu: more than %zu bytes without a break: "
                              "the text there is cut", path, s.base + start, CLI_FILE_MAX);
        if (next >= s.len && s.eof)
            break;
        start = next;
        /* the byte before start decides whether a word starts there */
        keep_from = start > 0 ? start - 1 : 0;
        if (force) {
            keep_from = s.len;
            start = s.len;
        }
    }
    cli_stream_close(&s);
    return status;
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
    r.written = h->written;
    r.written_len = h->written_len;
    r.attachment = h->attachment;
    r.rewriter = h->rewriter;
    r.page = h->page;
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
    r.attachment = dg->attachment;
    cli_note(CMD, "limit %s in part %s: %s", r.limit, r.part, dg->message);
    return put_row(c, &r);
}

/* The message data[0..len) through liburisan-mail. */
static int scan_mail(ex_ctx *c, const char *path, const char *data, size_t len)
{
    urisan_mail_limits lim;
    urisan_mail_limits_default(&lim);
    urisan_mail_sink sink = { on_mail_hit, on_mail_diag, c };
    urisan_mail_result res;
#ifdef URISAN_HAVE_HOST
    /* each link decided once, the host layer's judgement folded in; the
       view of its host goes to c->hv before on_mail_hit writes its row */
    urisan_link_judge lj = { c->host, &c->hv };
    const urisan_link_hooks hk = { urisan_judge_link_decide, &lj };
    const urisan_link_hooks *hooks = &hk;
#else
    const urisan_link_hooks *hooks = NULL;
#endif
    urisan_mail_status st = urisan_mail_scan_with(data, len, c->pol, &lim, hooks, &sink, &res);
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
    int st = CLI_EXIT_USAGE;
    if (m->too_large != 0)
        cli_fail(CMD, "%s: larger than %zu bytes", m->file, CLI_FILE_MAX);
    else
        st = scan_mail(c, m->file, m->data, m->len);
    flush_rows(c); /* --resolve: its rows, while c->msg is this message */
    c->msg = NULL;
    if (st != CLI_EXIT_OK) {
        cli_note(CMD, "%s: message %zu (%s) above", m->file, m->index,
                 m->message_id[0] ? m->message_id : "no Message-ID");
        if (st > c->box_status)
            c->box_status = st;
    }
    return !c->io_error;
}

/* --jobs N: a message queued (its bytes; Message-ID and file name after
   them, each ending NUL; index, too_large). */
static bool queue_msg(cli_jobs *j, const mailbox_msg *m)
{
    size_t il = strlen(m->message_id), fl = strlen(m->file);
    char small[1024];
    char *names = il + fl + 2 <= sizeof small ? small : malloc(il + fl + 2);
    if (names == NULL) {
        cli_fail(CMD, "out of memory");
        return false;
    }
    memcpy(names, m->message_id, il + 1);
    memcpy(names + il + 1, m->file, fl + 1);
    cli_job_item it = { .a = m->data, .alen = m->too_large ? 0 : m->len, .b = names,
                        .blen = il + fl + 2, .n = { m->index, m->too_large } };
    bool ok = cli_jobs_add(j, &it);
    if (names != small)
        free(names);
    return ok;
}

static bool job_msg(void *w, const cli_job_item *it)
{
    mailbox_msg m;
    m.index = it->n[0];
    m.too_large = it->n[1];
    m.data = it->a;
    m.len = it->alen;
    size_t il = strlen(it->b);
    memcpy(m.message_id, it->b, il + 1);
    m.file = it->b + il + 1;
    return on_box_msg(w, &m);
}

/* A message of a mailbox: scanned here, or queued for the workers. */
static bool box_msg(void *ctx, const mailbox_msg *m)
{
    ex_ctx *c = ctx;
    return c->jobs != NULL ? queue_msg(c->jobs, m) : on_box_msg(c, m);
}

static bool read_box_file(void *ctx, const char *path, char **data, size_t *len)
{
    ex_ctx *c = ctx;
    if (cli_read_file(CMD, path, CLI_FILE_MAX, data, len))
        return true;
    c->box_status = CLI_EXIT_USAGE;
    return false;
}

/* --mail on a file: an mbox (it starts "From "), read a message at a
   time, or one message of at most CLI_FILE_MAX bytes. */
static int extract_mail_file(ex_ctx *c, const char *path)
{
    cli_stream s;
    if (!cli_stream_open(&s, CMD, path))
        return CLI_EXIT_USAGE;
    int status = CLI_EXIT_OK;
    while (status == CLI_EXIT_OK && s.len < 5 && !s.eof)
        if (cli_stream_fill(&s, 0, CLI_FILE_MAX) < 0)
            status = CLI_EXIT_USAGE;
    if (status == CLI_EXIT_OK && mailbox_is_mbox(s.buf, s.len)) {
        if (c->njobs > 1 && !workers_start(c, true)) {
            cli_stream_close(&s);
            return CLI_EXIT_USAGE;
        }
        int rc = mailbox_each_mbox_stream(path, &s, CLI_FILE_MAX, box_msg, c);
        workers_stop(c);
        if (rc < 0 || (rc == 0 && !c->io_error))
            status = CLI_EXIT_USAGE;
        if (status == CLI_EXIT_OK)
            status = c->io_error ? CLI_EXIT_USAGE : c->box_status;
    } else if (status == CLI_EXIT_OK) {
        while (status == CLI_EXIT_OK && !s.eof && s.len <= CLI_FILE_MAX)
            if (cli_stream_fill(&s, 0, CLI_FILE_MAX) < 0)
                status = CLI_EXIT_USAGE;
        if (status == CLI_EXIT_OK && s.len > CLI_FILE_MAX)
            status = cli_fail(CMD, "%s: larger than %zu bytes", path, CLI_FILE_MAX);
        else if (status == CLI_EXIT_OK)
            status = scan_mail(c, path, s.buf ? s.buf : "", s.len);
    }
    cli_stream_close(&s);
    urisan_mail_shutdown();
    return status;
}
#endif

/* ---- --jobs N: the workers' contexts ---- */

/* n copies of c, each with its own scratch and host view. */
static bool workers_make(ex_ctx *c, unsigned n)
{
    c->workers = calloc(n, sizeof *c->workers);
    if (c->workers == NULL)
        return false;
    for (unsigned k = 0; k < n; k++) {
        ex_ctx *w = &c->workers[k];
        *w = *c;
        w->workers = NULL;
        w->scratch = malloc(c->scap);
#ifdef URISAN_HAVE_HOST
        w->keep.facts = malloc(HIT_BATCH * sizeof *w->keep.facts);
        if (w->keep.facts == NULL)
            return false;
#endif
        if (w->scratch == NULL)
            return false;
    }
    return true;
}

static void workers_free(ex_ctx *c)
{
    for (unsigned k = 0; c->workers != NULL && k < c->njobs; k++) {
        free(c->workers[k].scratch);
#ifdef URISAN_HAVE_HOST
        free(c->workers[k].keep.facts);
#endif
    }
    free(c->workers);
    c->workers = NULL;
}

/* Start what --jobs needs for text (pool) or a mailbox (jobs). */
static bool workers_start(ex_ctx *c, bool mailbox)
{
    void *w[256];
    for (unsigned k = 0; k < c->njobs; k++)
        w[k] = &c->workers[k];
#ifdef URISAN_HAVE_MAIL
    if (mailbox) {
        urisan_mail_init(); /* before the threads */
        c->jobs = cli_jobs_start(CMD, c->njobs, w, job_msg, NULL);
        return c->jobs != NULL;
    }
#else
    (void)mailbox;
#endif
    c->pool = cli_pool_start(CMD, c->njobs, w);
    return c->pool != NULL;
}

/* Stop them; what the workers found goes into c. */
static void workers_stop(ex_ctx *c)
{
    if (c->jobs != NULL && !cli_jobs_end(c->jobs))
        c->io_error = true;
    c->jobs = NULL;
    if (c->pool != NULL)
        cli_pool_end(c->pool);
    c->pool = NULL;
    seg_free(c);
    for (unsigned k = 0; c->workers != NULL && k < c->njobs; k++) {
        c->denied |= c->workers[k].denied;
        c->io_error |= c->workers[k].io_error;
#ifdef URISAN_HAVE_MAIL
        if (c->workers[k].box_status > c->box_status)
            c->box_status = c->workers[k].box_status;
        c->workers[k].box_status = CLI_EXIT_OK;
#endif
        c->workers[k].denied = c->workers[k].io_error = false;
    }
}

/* The hits of path ("-": standard input): a text file, or with --mail
   (mail) a message, an mbox or a Maildir. Returns the exit status so far. */
static int extract_path(ex_ctx *c, const char *path, bool mail)
{
    int status = CLI_EXIT_OK;
#ifdef URISAN_HAVE_MAIL
    if (mail && mailbox_is_maildir(path)) {
        if (c->njobs > 1 && !workers_start(c, true))
            return CLI_EXIT_USAGE;
        int rc = mailbox_each_maildir(path, read_box_file, box_msg, c);
        workers_stop(c);
        if (rc != 0 && !c->io_error)
            status = cli_fail(CMD, "%s: cannot read the Maildir", path);
        if (status == CLI_EXIT_OK)
            status = c->io_error ? CLI_EXIT_USAGE : c->box_status;
        urisan_mail_shutdown();
        return status;
    }
#endif
    if (!mail) {
        if (c->njobs > 1 && !workers_start(c, false))
            return CLI_EXIT_USAGE;
        status = scan_text_stream(c, path);
        flush_rows(c);
        workers_stop(c);
        if (c->io_error && status == CLI_EXIT_OK)
            status = CLI_EXIT_USAGE;
        return status;
    }
#ifdef URISAN_HAVE_MAIL
    status = extract_mail_file(c, path);
    flush_rows(c);
    if (c->io_error && status == CLI_EXIT_OK)
        status = CLI_EXIT_USAGE;
#endif
    return status;
}

/* What cmd_extract holds: the workers, the resolver window, the scratch
   and the kept facts, the context, the policy; returns status. */
static int ex_free(ex_ctx *c, urisan_policy *pol, int status)
{
    workers_free(c);
#ifdef URISAN_HAVE_NET
    cli_resolve_free(c->rw);
#endif
    free(c->scratch);
#ifdef URISAN_HAVE_HOST
    free(c->keep.facts);
#endif
    free(c);
    free(pol);
    return status;
}

int cmd_extract(int argc, char **argv)
{
    enum { OPT_JSON, OPT_MAIL, OPT_POLICY, OPT_PROFILE, OPT_FIELDS, OPT_EXPLAIN, OPT_JOBS,
           OPT_PROGRESS, OPT_NO_PROGRESS, OPT_RESOLVE, OPT_DNS_SERVER, NOPT };
    cli_opt opts[NOPT] = {
        [OPT_JSON] = { "--json", false, NULL, false },
        [OPT_MAIL] = { "--mail", false, NULL, false },
        [OPT_POLICY] = { "--policy", true, NULL, false },
        [OPT_PROFILE] = { "--profile", true, NULL, false },
        [OPT_FIELDS] = { "--fields", true, NULL, false },
        [OPT_EXPLAIN] = { "--explain", false, NULL, false },
        [OPT_JOBS] = { "--jobs", true, NULL, false },
        [OPT_PROGRESS] = { "--progress", false, NULL, false },
        [OPT_NO_PROGRESS] = { "--no-progress", false, NULL, false },
        [OPT_RESOLVE] = { "--resolve", false, NULL, false },
        [OPT_DNS_SERVER] = { "--dns-server", true, NULL, false },
    };
    int rc, nargs = cli_opts(CMD, argc, argv, opts, NOPT, &rc);
    if (nargs < 0)
        return rc;
    if (nargs > 1)
        return cli_usage_error(CMD, "at most one FILE, got '%.200s' too", argv[2]);
    unsigned njobs = 1;
    if (opts[OPT_JOBS].seen && !cli_jobs_parse(opts[OPT_JOBS].value, &njobs))
        return cli_usage_error(CMD, "--jobs: not a number of threads from 0 to 256: '%.200s'",
                               opts[OPT_JOBS].value);
    if (opts[OPT_DNS_SERVER].seen && !opts[OPT_RESOLVE].seen)
        return cli_usage_error(CMD, "--dns-server needs --resolve");
    if (opts[OPT_RESOLVE].seen && njobs > 1)
        return cli_usage_error(CMD, "--resolve judges the links on one thread (its lookups "
                                    "run concurrently): not with --jobs");
#ifndef URISAN_HAVE_NET
    if (opts[OPT_RESOLVE].seen)
        return cli_fail(CMD, "--resolve: this urisan was built without c-ares (liburisan-net)");
#endif
#ifndef URISAN_HAVE_MAIL
    if (opts[OPT_MAIL].seen)
        return cli_fail(CMD, "--mail is not available: urisan was built without "
                             "GMime and libpsl (meson option 'mail')");
#endif
    const char *path = nargs == 1 ? argv[1] : "-";

    ex_ctx *c = calloc(1, sizeof *c);
    if (c == NULL)
        return cli_fail(CMD, "out of memory");
    c->json = opts[OPT_JSON].seen || opts[OPT_FIELDS].seen;
#ifdef URISAN_HAVE_HOST
    c->skeleton_always = opts[OPT_FIELDS].seen;
#endif
    c->explain = opts[OPT_EXPLAIN].seen;
    rc = cli_fields_select(CMD, extract_fields, sizeof extract_fields / sizeof extract_fields[0],
                           (c->explain ? MODE_EXPLAIN : 0) |
                               (opts[OPT_RESOLVE].seen ? MODE_RESOLVE : 0),
                           opts[OPT_FIELDS].seen ? opts[OPT_FIELDS].value : NULL, &c->fields);
    if (rc != 0) {
        free(c);
        return rc;
    }
    urisan_policy *pol = cli_policy_opts(CMD, opts, NOPT);
    if (pol == NULL) {
        free(c);
        return CLI_EXIT_USAGE;
    }
    c->pol = pol;
    c->scap = urisan_extract_scratch_size(pol);
    c->scratch = malloc(c->scap);
#ifdef URISAN_HAVE_HOST
    c->keep.facts = malloc(HIT_BATCH * sizeof *c->keep.facts);
    c->keep.cap = HIT_BATCH;
    if (c->keep.facts == NULL) {
        free(c->scratch);
        c->scratch = NULL; /* out of memory, below */
    }
#endif
    c->njobs = njobs;
#ifdef URISAN_HAVE_NET
    if (opts[OPT_RESOLVE].seen && c->scratch != NULL) {
        c->rw = cli_resolve_new(CMD, opts[OPT_DNS_SERVER].seen ? opts[OPT_DNS_SERVER].value
                                                               : NULL,
                                pol, write_resolved, c);
        if (c->rw == NULL)
            return ex_free(c, pol, CLI_EXIT_USAGE);
    }
#endif
    cli_progress_start(CMD, cli_progress_mode(opts[OPT_PROGRESS].seen,
                                              opts[OPT_NO_PROGRESS].seen));
    int status = c->scratch == NULL || (njobs > 1 && !workers_make(c, njobs))
                     ? cli_fail(CMD, "out of memory")
                     : extract_path(c, path, opts[OPT_MAIL].seen);
    cli_progress_end();
    if (status == CLI_EXIT_OK && c->denied)
        status = CLI_EXIT_FAIL;
    return cli_finish(CMD, ex_free(c, pol, status));
}
