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

/* One output line: the library's row (urisan_link_row_keys) and what
   the command adds (its state, the answer for the host). */
typedef struct {
    urisan_link_row row;
    const struct ex_ctx *c; /* the command's state (message, policy) */
#ifdef URISAN_HAVE_NET
    const urisan_net_result *res; /* --resolve: the answer for its host */
#endif
} ex_row;

/* ---- the JSON line: the library's keys of a row ---- */

#define MODE_EXPLAIN URISAN_RK_EXPLAIN /* --explain was given */
#define MODE_RESOLVE URISAN_RK_RESOLVE /* --resolve was given */

/* A key of the library's description of a row. */
static void put_key(cli_buf *b, const void *v, const void *key)
{
    const ex_row *r = v;
    urisan_rvalue val;
    urisan_link_row_value(&r->row, key, &val);
    cli_jv_rvalue(b, &val);
}

/* The keys the command writes itself (URISAN_RV_FRONT). */
#define ROW(v) const ex_row *r = (v)
#ifdef URISAN_HAVE_MAIL
/* A mailbox (mbox, Maildir): which message. */
static bool in_box(const void *v) { ROW(v); return r->c->msg != NULL; }
static void put_message(cli_buf *b, const void *v) { ROW(v); cli_buf_addu(b, r->c->msg->index); }
static void put_message_id(cli_buf *b, const void *v) { ROW(v); cli_jv_cstr(b, r->c->msg->message_id); }
static void put_file(cli_buf *b, const void *v) { ROW(v); cli_jv_cstr(b, r->c->msg->file); }
#endif
static void put_explain(cli_buf *b, const void *v)
{
    ROW(v);
    cli_jv_explain(b, &r->row.dec, r->c->pol, r->row.uri != NULL ? r->row.uri : "",
                   r->row.uri_len);
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

/* What the command gives a key itself: the writer of a key of its own
   (URISAN_RV_FRONT), and the key's value on the fallback line (a hit too
   large for CLI_JSON_MAX: it keeps where the hit is and denies it; a key
   not named here is left out of it). */
static const struct {
    const char *name;
    cli_field_put put;  /* NULL: the library's value (put_key) */
    cli_field_fb fb;
    const char *fb_text;
} own_keys[] = {
    { "uri", NULL, CLI_FB_TEXT, "null" },
    { "part", NULL, CLI_FB_PUT, NULL },
    { "offset", NULL, CLI_FB_PUT, NULL },
    { "length", NULL, CLI_FB_PUT, NULL },
    { "context", NULL, CLI_FB_PUT, NULL },
    { "display", NULL, CLI_FB_TEXT, "null" },
    { "form", NULL, CLI_FB_TEXT, "[]" },
    { "flags", NULL, CLI_FB_TEXT, "[\"invalid\",\"too_long\"]" },
    { "verdict", NULL, CLI_FB_TEXT, "\"deny\"" },
    { "reasons", NULL, CLI_FB_TEXT, "[\"invalid\",\"too_long\"]" },
    { "deny_reasons", NULL, CLI_FB_TEXT, "[\"invalid\",\"too_long\"]" },
    { "flag_reasons", NULL, CLI_FB_TEXT, "[]" },
#ifdef URISAN_HAVE_MAIL
    { "message", put_message, CLI_FB_OMIT, NULL },
    { "message_id", put_message_id, CLI_FB_OMIT, NULL },
    { "file", put_file, CLI_FB_OMIT, NULL },
#endif
    { "explain", put_explain, CLI_FB_TEXT, "{}" },
    { "resolve", put_resolve, CLI_FB_OMIT, NULL },
};

/* Keys present only with a value (URISAN_RS_SET): field i's presence
   (cli_field.present has no argument: one function a field). */
#define EXTRACT_KEYS_MAX 48
static cli_field extract_fields[EXTRACT_KEYS_MAX];
static size_t extract_nfields;

static bool set_present(const void *v, size_t i)
{
    const ex_row *r = v;
    return urisan_link_row_present(&r->row, extract_fields[i].arg) != 0;
}
#define SET_PRESENT(g, d) \
    static bool set_present_##g##_##d(const void *v) { return set_present(v, 8 * g + d); }
#define SET_PRESENT8(g) \
    SET_PRESENT(g, 0) SET_PRESENT(g, 1) SET_PRESENT(g, 2) SET_PRESENT(g, 3) \
    SET_PRESENT(g, 4) SET_PRESENT(g, 5) SET_PRESENT(g, 6) SET_PRESENT(g, 7)
SET_PRESENT8(0) SET_PRESENT8(1) SET_PRESENT8(2) SET_PRESENT8(3) SET_PRESENT8(4) SET_PRESENT8(5)
#define SET_FN8(g) set_present_##g##_0, set_present_##g##_1, set_present_##g##_2, \
    set_present_##g##_3, set_present_##g##_4, set_present_##g##_5, set_present_##g##_6, \
    set_present_##g##_7
static bool (*const set_presents[EXTRACT_KEYS_MAX])(const void *) = {
    SET_FN8(0), SET_FN8(1), SET_FN8(2), SET_FN8(3), SET_FN8(4), SET_FN8(5),
};

/* What the keys that read only the flags and the decision are written
   from (URISAN_RR_FLAGS, URISAN_RR_DECISION): their run's key. */
static void decision_run_key(const void *v, uint64_t key[CLI_RUN_KEY])
{
    const urisan_link_row *r = &((const ex_row *)v)->row;
    key[0] = (uint64_t)r->flags;
    key[1] = (uint64_t)r->dec.deny_flags;
    key[2] = (uint64_t)r->dec.flag_flags;
    key[3] = (uint64_t)r->dec.rules << 32 | (uint32_t)r->dec.verdict;
}

/* extract_fields from the library's keys of a row (once): their names,
   order and presence; the command's own writers of its keys; the
   fallback line (urisan(1), JSON OUTPUT). */
static void extract_fields_make(void)
{
    if (extract_nfields != 0)
        return;
    size_t n;
    const urisan_result_key *keys = urisan_link_row_keys(&n);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const urisan_result_key *k = &keys[i];
#ifndef URISAN_HAVE_HOST
        if (k->when & URISAN_RK_HOST)
            continue;
#endif
#ifndef URISAN_HAVE_MAIL
        if (k->when & URISAN_RK_MAILBOX)
            continue;
#endif
        if (m >= EXTRACT_KEYS_MAX)
            abort(); /* a key more than the table holds: EXTRACT_KEYS_MAX */
        cli_field *f = &extract_fields[m];
        memset(f, 0, sizeof *f);
        f->name = k->name;
        f->when = k->when & (MODE_EXPLAIN | MODE_RESOLVE);
        f->needs = (k->when & URISAN_RK_EXPLAIN) ? "--explain"
                 : (k->when & URISAN_RK_RESOLVE) ? "--resolve" : NULL;
        f->put_arg = put_key;
        f->arg = k;
        if (k->shown == URISAN_RS_SET)
            f->present = set_presents[m];
#ifdef URISAN_HAVE_MAIL
        if (k->when & URISAN_RK_MAILBOX)
            f->present = in_box;
#endif
        f->fb = CLI_FB_OMIT;
        for (size_t q = 0; q < sizeof own_keys / sizeof own_keys[0]; q++) {
            if (strcmp(own_keys[q].name, k->name) != 0)
                continue;
            if (own_keys[q].put != NULL) {
                f->put = own_keys[q].put;
                f->put_arg = NULL;
            }
            f->fb = own_keys[q].fb;
            f->fb_text = own_keys[q].fb_text;
        }
        m++;
    }
    /* the run of the flags and the decision: written once for each of
       their values */
    cli_fields_decision_runs(extract_fields, m, decision_run_key);
    extract_nfields = m;
}

/* PART OFFSET CONTEXT VERDICT REASONS "URI" ["DISPLAY"] */
static bool write_text(const ex_ctx *c, const ex_row *er)
{
    const urisan_link_row *r = &er->row;
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
    cli_text_escape(b, r->uri != NULL ? r->uri : "", r->uri_len, true);
    cli_buf_addc(b, '"');
    if (r->limit != NULL) {
        cli_buf_add(b, " \"", 2);
        cli_text_escape(b, r->limit_message, strlen(r->limit_message), true);
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
    if (er->res != NULL)
        cli_text_resolve(b, er->res);
#endif
    if (c->explain && r->dec.verdict != URISAN_ALLOW) {
        cli_buf_lit(b, " (explain: ");
        cli_text_explain(b, &r->dec, c->pol, r->uri != NULL ? r->uri : "", r->uri_len);
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
static held_row *hold_row(const ex_ctx *c, const ex_row *er)
{
    const urisan_link_row *r = &er->row;
    size_t np = strlen0(r->part), nm = strlen0(r->limit_message), nh = strlen0(r->header),
           na = strlen0(r->attachment);
    size_t need = np + r->uri_len + r->display_len + nm + nh + r->written_len + na + 7;
    held_row *h = malloc(sizeof *h + need);
    if (h == NULL)
        return NULL;
    h->r = *er;
#ifdef URISAN_HAVE_HOST
    h->hv = c->hv;
#else
    (void)c;
#endif
    char *at = h->text;
    urisan_link_row *d = &h->r.row;
    d->part = held_str(&at, r->part, np);
    d->uri = held_str(&at, r->uri, r->uri_len);
    d->display = held_str(&at, r->display, r->display_len);
    d->limit_message = held_str(&at, r->limit_message, nm);
    d->header = held_str(&at, r->header, nh);
    d->written = held_str(&at, r->written, r->written_len);
    d->attachment = held_str(&at, r->attachment, na);
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
        /* a row that is no link (a mail limit): held under the URI "" */
        const char *uri = h == NULL ? NULL : h->r.row.uri != NULL ? h->r.row.uri : "";
        if (cli_resolve_hold(c->rw, uri, r->row.uri_len, h))
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
    cli_resolve_merge(&h->r.row.dec, res);
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
#ifdef URISAN_HAVE_HOST
    urisan_link_row_host(&r->row, &c->hv, c->skeleton_always);
#endif
    if (r->row.dec.verdict == URISAN_DENY)
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
#ifdef URISAN_HAVE_HOST
            /* a link written in Unicode: the URI a browser opens is
               judged, the text as written kept (as extract --mail) */
            urisan_link_judge lj = { c->host, &c->hv };
            urisan_hit jh = *h;
            const char *written = NULL;
            size_t written_len = 0;
            char *opened = urisan_judge_text_link(&lj, c->pol, &jh, &c->keep.facts[k],
                                                  &written, &written_len);
            urisan_link_row_hit(&r.row, h);
            r.row.uri = jh.uri;
            r.row.uri_len = jh.uri_len;
            r.row.flags = jh.flags;
            r.row.dec = jh.decision;
            r.row.written = written;
            r.row.written_len = written_len;
            r.row.offset = base + h->off;
            bool put = put_row(c, &r);
            free(opened);
            if (!put)
                return false;
#else
            urisan_link_row_hit(&r.row, h);
            r.row.offset = base + h->off;
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
    urisan_mail_hit_row(&r.row, h);
    return put_row(c, &r);
}

/* A limit reached: a line of its own (context "limit", flag mail_limit,
   the policy's verdict), and a warning. */
static bool on_mail_diag(void *ctx, const urisan_mail_diag *dg)
{
    ex_ctx *c = ctx;
    ex_row r;
    memset(&r, 0, sizeof r);
    urisan_mail_diag_row(&r.row, dg);
    cli_note(CMD, "limit %s in part %s: %s", r.row.limit, r.row.part, dg->message);
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
    extract_fields_make();
    rc = cli_fields_select(CMD, extract_fields, extract_nfields,
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
