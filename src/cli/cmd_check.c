/*
 * cmd_check.c - `urisan check` (urisan(1), COMMANDS): validity, components,
 * flags and verdict of each URI, as text or JSON Lines.
 */
#include "components.h"
#include "cli.h"
#include "jobs.h"
#include "logformat.h"
#include "progress.h"
#include "resolve_window.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define CMD "check"

typedef struct {
    /* whole cache lines: the workers' contexts, side by side in one
       array (jobs_ctx), share no line (denied, log, tmp are written) */
    _Alignas(64) bool json;
    const urisan_policy *pol;
    const char *base;          /* NULL: no --base */
    size_t blen;
    char *rbuf;                /* resolved text */
    size_t rcap;
    cli_fieldset fields;       /* --json: the keys of a line */
    bool hostview_keys;        /* a host view key is among them */
    bool skeleton_always;      /* --fields: host_skeleton when it is named */
    bool denied;
    bool tsv;                  /* --tsv (with --format) */
    bool explain;              /* --explain: the rule behind each reason */
    const cli_logline *log;    /* --format: the log line being checked */
    cli_buf tmp;               /* --format: a bad line's or a --tsv line */
    urisan_host_ctx *host;     /* the host layer's context (the one decision) */
    unsigned judge_opts;       /* URISAN_JUDGE_VIEW with a host key */
#ifdef URISAN_HAVE_NET
    cli_resolve_window *rw;    /* --resolve: the lines held for their lookups */
#endif
} check_ctx;

/* What we found about one input. j.uri: the input as written (with
   --base too); j.rep: flags, the union over input, resolved, merge;
   j.dec; j.hv: the host as a reader sees it (NULL: not looked at: no
   IDN, no host view key). */
typedef struct {
    const char *in;
    size_t len, full_len;
    bool truncated;
    urisan_judgement j;
    bool resolved;             /* --base: resolution succeeded */
    size_t rlen;
    urisan_error rerr;
#ifdef URISAN_HAVE_NET
    const urisan_net_result *res; /* --resolve: the answer for the host */
#endif
} check_result;

/* The one decision (the host layer's urisan_judge when built: parse,
   analysis, host judgement, one verdict; the core's urisan_check without
   it). --base: the core's facts of where the reference leads
   (urisan_check_base), the host layer's judgement of that URI's host,
   one decision under the policy (urisan_judge_base). */
static void judge(check_ctx *c, check_result *r)
{
    r->rlen = 0;
    r->rerr = (urisan_error){ URISAN_OK, 0, 0 };
    r->resolved = false;
    if (c->base != NULL) {
        /* --base: the verdict is about where the reference leads */
        r->resolved = cli_check_base(c->host, c->judge_opts, c->base, c->blen, r->in, r->len,
                                     c->pol, &c->rbuf, &c->rcap, &r->rlen, &r->j,
                                     &r->rerr) == URISAN_OK;
        return;
    }
#ifdef URISAN_HAVE_HOST
    urisan_judge(c->host, r->in, r->len, c->pol, c->judge_opts, &r->j);
#else
    urisan_check(r->in, r->len, c->pol, &r->j.uri, &r->j.rep, &r->j.dec);
#endif
}

/* ---- the JSON line: the library's keys of a result ---- */

/* A field's view of one input: the result and the command's state. */
typedef struct {
    const check_ctx *c;
    const check_result *r;
    urisan_result *res;
    cli_result_row out;
} check_row;

/* A key of the library's description (urisan_result_keys). */
static void put_key(cli_buf *b, const void *v, const void *key)
{
    const check_row *row = v;
    cli_jv_result(b, &row->out, key);
}

/* A key that reads the host's forms or the nested URLs: the result's host
   part (urisan_result_host; nested_flags NULL until then) filled by the
   first on the line. On most lines put_host_run writes the forms from the
   view, and none is written. */
static void put_host_key(cli_buf *b, const void *v, const void *key)
{
#ifdef URISAN_HAVE_HOST
    const check_row *row = v;
    if (row->res->nested_flags == NULL)
        urisan_result_host(row->res, row->c->host, row->r->j.hv, row->c->skeleton_always);
#endif
    put_key(b, v, key);
}

/* The keys the command writes itself (URISAN_RV_FRONT). */
static void put_explain(cli_buf *b, const void *v)
{
    const check_row *row = v;
    const check_result *r = row->r;
    const check_ctx *c = row->c;
    if (r->resolved) /* --base: the URI judged is where the reference leads */
        cli_jv_explain(b, &r->j.dec, c->pol, c->rbuf, r->rlen);
    else
        cli_jv_explain(b, &r->j.dec, c->pol, r->in, r->len);
}
static void put_line(cli_buf *b, const void *v)
{
    const check_row *row = v;
    json_quote(b, row->c->log->line, row->c->log->len);
}
static void put_lineno(cli_buf *b, const void *v)
{
    const check_row *row = v;
    cli_buf_addu(b, row->c->log->lineno);
}
static void put_resolve(cli_buf *b, const void *v)
{
#ifdef URISAN_HAVE_NET
    const check_row *row = v;
    if (row->r->res != NULL) {
        cli_jv_resolve(b, row->r->res);
        return;
    }
#else
    (void)v;
#endif
    cli_buf_lit(b, "null");
}

static const struct {
    const char *name;
    cli_field_put put;
} front_keys[] = {
    { "line", put_line },
    { "lineno", put_lineno },
    { "explain", put_explain },
    { "resolve", put_resolve },
};

/* A key's value on the fallback line (a line too large for
   CLI_JSON_MAX): it denies, with no text of the input, error no_space,
   flags and reasons "invalid". A key not named here is left out. */
static const struct {
    const char *name;
    cli_field_fb fb;
    const char *text;
} fallback_keys[] = {
    { "uri", CLI_FB_TEXT, "null" },
    { "valid", CLI_FB_TEXT, "false" },
    { "error", CLI_FB_FN, NULL },
    { "components", CLI_FB_TEXT, "null" },
    { "host_ip", CLI_FB_TEXT, "null" },
    { "flags", CLI_FB_TEXT, "[\"invalid\"]" },
    { "verdict", CLI_FB_TEXT, "\"deny\"" },
    { "reasons", CLI_FB_TEXT, "[\"invalid\"]" },
    { "deny_reasons", CLI_FB_TEXT, "[\"invalid\"]" },
    { "flag_reasons", CLI_FB_TEXT, "[]" },
    { "truncated", CLI_FB_TEXT, "true" },
    { "length", CLI_FB_PUT, NULL },
    { "line", CLI_FB_PUT, NULL },
    { "lineno", CLI_FB_PUT, NULL },
    { "scheme", CLI_FB_TEXT, "null" },
    { "userinfo", CLI_FB_TEXT, "null" },
    { "host", CLI_FB_TEXT, "null" },
    { "host_type", CLI_FB_TEXT, "null" },
    { "port", CLI_FB_TEXT, "null" },
    { "path", CLI_FB_TEXT, "null" },
    { "query", CLI_FB_TEXT, "null" },
    { "fragment", CLI_FB_TEXT, "null" },
    { "explain", CLI_FB_TEXT, "{}" },
};

/* Keys present only on some lines (URISAN_RS_NESTED). */
static bool key_present(const void *v)
{
    const check_row *row = v;
    return (row->res->rep->flags & URISAN_F(NESTED_URL)) != 0;
}

/* What the keys that read only the flags and the decision are written
   from (URISAN_RR_FLAGS, URISAN_RR_DECISION): their run, kept (fields.c;
   saves 18.6% of check --json's instructions, doc/bench.md). */
static void decision_run_key(const void *v, uint64_t key[CLI_RUN_KEY])
{
    const check_row *row = v;
    const urisan_judgement *j = &row->r->j;
    key[0] = (uint64_t)j->rep.flags;
    key[1] = (uint64_t)j->dec.deny_flags;
    key[2] = (uint64_t)j->dec.flag_flags;
    key[3] = (uint64_t)j->dec.rules << 32 | (uint32_t)j->dec.verdict;
}

/* ---- the writer's fast paths: runs of keys written in one call ---- */

/* What each writes is what the keys' own writers (cli_jv_result) write:
   a debug build (URISAN_CHECK_CACHES, fields.c) compares the two on
   every line. Each declines (false) a row it does not write, whose keys
   are then written one by one. */

#define ROW(v) const check_row *row = (v); const check_result *r = row->r

/* The keys of "components" (cli_result_sub_keys), set with the fields. */
static const cli_sub_keys *components_keys;

/* uri, valid, error, components and host_ip (fs->f[i..i+4]) of a valid
   plain URI without an IP address: the input twice (uri, components),
   the keys, "true" and nulls, in one reservation. Saves 23.5% of
   check --json's instructions (doc/bench.md). */
static bool put_head_run(cli_buf *b, const void *v, const cli_fieldset *fs, size_t i)
{
    ROW(v);
    const urisan_uri *u = &r->j.uri;
    size_t need = 2 * r->len + CLI_COMPONENTS_ROOM + 5 * CLI_FIELD_KEY_MAX + 16;
    if (!u->valid || r->j.rep.ip_family != 0 || !fs->keys_short || components_keys == NULL ||
        !cli_buf_room(b, need))
        return false;
    char *o = cli_fields_key_at(b->p + b->len, fs, i);
    if (!json_copy_plain(o + 1, r->in, r->len))
        return false;
    *row->out.plain = 1;
    o[0] = '"';
    o[r->len + 1] = '"';
    o += r->len + 2;
    o = cli_put_bool(cli_fields_key_at(o, fs, i + 1), true);
    o = cli_put_null(cli_fields_key_at(o, fs, i + 2));
    o = cli_jv_components_at(cli_fields_key_at(o, fs, i + 3), components_keys, r->in, u);
    o = cli_put_null(cli_fields_key_at(o, fs, i + 4));
    b->len = (size_t)(o - b->p);
    return true;
}
/* truncated and length (fs->f[i..i+1]). Saves 4.2% of check --json's
   instructions (doc/bench.md). */
static bool put_tail_run(cli_buf *b, const void *v, const cli_fieldset *fs, size_t i)
{
    ROW(v);
    if (!fs->keys_short || !cli_buf_room(b, 2 * CLI_FIELD_KEY_MAX + 8 + 20))
        return false;
    char *o = cli_put_bool(cli_fields_key_at(b->p + b->len, fs, i), r->truncated);
    b->len = (size_t)(cli_put_u(cli_fields_key_at(o, fs, i + 1), r->full_len) - b->p);
    return true;
}
#ifdef URISAN_HAVE_HOST
/* host_unicode, host_skeleton, host_imitates and registrable_domain
   (fs->f[i..i+3]) of a name whose forms are their own JSON text, in one
   reservation. Saves 14.4% of check --json's instructions (doc/bench.md). */
static bool put_host_run(cli_buf *b, const void *v, const cli_fieldset *fs, size_t i)
{
    ROW(v);
    const urisan_hostview *hv = r->j.hv;
    if (hv == NULL || !hv->is_name || !urisan_hv_json_plain(hv) || !fs->keys_short ||
        !cli_buf_room(b, hv->unicode_len + hv->skeleton_len + hv->imitates_len +
                             hv->registrable_len + 4 * (CLI_FIELD_KEY_MAX + 4)))
        return false;
    bool skeleton = row->c->skeleton_always || urisan_host_skeleton_shown(hv, r->j.rep.flags);
    char *o = cli_fields_key_at(b->p + b->len, fs, i);
    o = cli_host_form_at(o, hv->unicode, hv->unicode_len, false);
    o = cli_host_form_at(cli_fields_key_at(o, fs, i + 1), hv->skeleton,
                         skeleton ? hv->skeleton_len : 0, true);
    o = cli_host_form_at(cli_fields_key_at(o, fs, i + 2), hv->imitates, hv->imitates_len, true);
    o = cli_host_form_at(cli_fields_key_at(o, fs, i + 3), hv->registrable, hv->registrable_len,
                         true);
    b->len = (size_t)(o - b->p);
    return true;
}
#endif
#undef ROW

#define CHECK_KEYS_MAX CLI_FIELDS_MAX
static cli_field check_fields[CHECK_KEYS_MAX];
static size_t check_nfields;

/* The runs above: the first key's name, how many follow it. */
static const struct {
    const char *names;   /* the keys it writes, in the library's order */
    unsigned len;
    bool (*put)(cli_buf *b, const void *row, const cli_fieldset *fs, size_t i);
} fast_runs[] = {
    { "uri,valid,error,components,host_ip", 4, put_head_run },
    { "truncated,length", 1, put_tail_run },
#ifdef URISAN_HAVE_HOST
    { "host_unicode,host_skeleton,host_imitates,registrable_domain", 3, put_host_run },
#endif
};

/* Do the keys of check_fields from i on have the names of names (a
   comma-separated list)? */
static bool run_names(size_t i, size_t m, const char *names)
{
    for (const char *p = names; *p != '\0'; i++) {
        size_t len = strcspn(p, ",");
        if (i >= m || strlen(check_fields[i].name) != len ||
            memcmp(check_fields[i].name, p, len) != 0)
            return false;
        p += len + (p[len] == ',');
    }
    return true;
}


/* check_fields from the library's keys (once): their names, order and
   presence; the command's own writers of its keys; the fallback line. */
static void check_fields_make(void)
{
    if (check_nfields != 0)
        return;
    size_t n;
    const urisan_result_key *keys = urisan_result_keys(&n);
    size_t m = 0;
    for (size_t i = 0; i < n && m < CHECK_KEYS_MAX; i++) {
        const urisan_result_key *k = &keys[i];
#ifndef URISAN_HAVE_HOST
        if (k->when & URISAN_RK_HOST)
            continue;
#endif
        cli_field *f = &check_fields[m++];
        memset(f, 0, sizeof *f);
        f->name = k->name;
        f->when = k->when & ~URISAN_RK_HOST;
        f->needs = (k->when & URISAN_RK_BASE) ? "--base"
                 : (k->when & URISAN_RK_LOG) ? "--format"
                 : (k->when & URISAN_RK_EXPLAIN) ? "--explain"
                 : (k->when & URISAN_RK_RESOLVE) ? "--resolve" : NULL;
        f->extra = k->shown == URISAN_RS_NAMED;
        f->present = k->shown == URISAN_RS_NESTED ? key_present : NULL;
        f->put_arg = k->reads & (URISAN_RR_HOST | URISAN_RR_NESTED) ? put_host_key : put_key;
        f->arg = k;
        for (size_t q = 0; q < sizeof front_keys / sizeof front_keys[0]; q++) {
            if (strcmp(front_keys[q].name, k->name) == 0) {
                f->put = front_keys[q].put;
                f->put_arg = NULL;
            }
        }
        f->fb = CLI_FB_OMIT;
        for (size_t q = 0; q < sizeof fallback_keys / sizeof fallback_keys[0]; q++) {
            if (strcmp(fallback_keys[q].name, k->name) == 0) {
                f->fb = fallback_keys[q].fb;
                f->fb_text = fallback_keys[q].text;
                f->fb_put = cli_fb_nospace;
            }
        }
    }
    cli_fields_decision_runs(check_fields, m, decision_run_key);
    /* the fast paths, where the keys they write follow one another */
    for (size_t i = 0; i < m; i++) {
        for (size_t q = 0; q < sizeof fast_runs / sizeof fast_runs[0]; q++) {
            if (check_fields[i].run_len == 0 && run_names(i, m, fast_runs[q].names)) {
                check_fields[i].run_len = fast_runs[q].len;
                check_fields[i].run_put = fast_runs[q].put;
            }
        }
    }
    check_nfields = m;
    cli_result_prepare();
    const urisan_result_key *comp = urisan_result_key_named(keys, n, "components", 10);
    components_keys = comp != NULL ? cli_result_sub_keys(comp->sub) : NULL;
}

/* VERDICT REASONS "URI" [-> "RESOLVED"] [(truncated: N bytes)] */
static bool write_text(const check_ctx *c, const check_result *r)
{
    cli_buf *b = cli_out_begin();
    cli_buf_adds(b, urisan_verdict_name(r->j.dec.verdict));
    cli_buf_addc(b, ' ');
    cli_text_reasons(b, &r->j.dec);
    cli_buf_lit(b, " \"");
    cli_text_escape(b, r->in, r->len, true);
    cli_buf_addc(b, '"');
    if (c->base != NULL) {
        if (r->resolved) {
            cli_buf_lit(b, " -> \"");
            cli_text_escape(b, c->rbuf, r->rlen, true);
            cli_buf_addc(b, '"');
        } else {
            cli_buf_lit(b, " -> error: ");
            cli_buf_adds(b, urisan_status_name(r->rerr.code));
            cli_buf_addc(b, ' ');
            cli_buf_addu(b, r->rerr.offset);
        }
    }
    if (r->truncated) {
        cli_buf_lit(b, " (truncated: ");
        cli_buf_addu(b, r->full_len);
        cli_buf_lit(b, " bytes)");
    }
#ifdef URISAN_HAVE_NET
    if (r->res != NULL)
        cli_text_resolve(b, r->res);
#endif
    if (c->explain && r->j.dec.verdict != URISAN_ALLOW) {
        cli_buf_lit(b, " (explain: ");
        if (r->resolved)
            cli_text_explain(b, &r->j.dec, c->pol, c->rbuf, r->rlen);
        else
            cli_text_explain(b, &r->j.dec, c->pol, r->in, r->len);
        cli_buf_addc(b, ')');
    }
    if (b->failed) {
        cli_out_rewind();
        cli_buf_lit(b, "deny denied:invalid (output line too large)");
    }
    return cli_out_end();
}

/* Write the line of a judged input (inline: check_one, judge and this
   one frame a line). false on a write error. */
static inline bool write_result(check_ctx *c, const check_result *r)
{
    if (r->j.dec.verdict == URISAN_DENY)
        c->denied = true;
    if (c->tsv) {
        cli_log_tsv(&c->tmp, &r->j.dec, c->log);
        return cli_out_buf(&c->tmp);
    }
    if (!c->json)
        return write_text(c, r);
    /* all but the host part, which put_host_key fills (nested_flags NULL;
       without the host layer no key reads it) */
    urisan_result res;
    res.in = r->in;
    res.len = r->len;
    res.full_len = r->full_len;
    res.truncated = r->truncated;
    res.uri = &r->j.uri;
    res.rep = &r->j.rep;
    res.dec = &r->j.dec;
    res.pol = c->pol;
    res.resolved = r->resolved ? c->rbuf : NULL;
    res.rlen = r->rlen;
    res.rerr = r->rerr;
    res.nested_flags = NULL;
    signed char plain = -1;
    check_row row = { c, r, &res, { &res, &plain } };
    return cli_fields_line(&c->fields, &row) != CLI_LINE_FAILED;
}

#ifdef URISAN_HAVE_NET
/* --resolve: an input held until its host's answer is in. */
typedef struct {
    size_t len, full_len;
    bool truncated;
    char in[];
} held_input;
#endif

/* Check one input and write its line. false on a write error. */
static bool check_one(void *ctx, const char *in, size_t len,
                      size_t full_len, bool truncated)
{
    check_ctx *c = ctx;
    check_result r;
    r.in = in;
    r.len = len;
    r.full_len = full_len;
    r.truncated = truncated;
#ifdef URISAN_HAVE_NET
    r.res = NULL;
    if (c->rw != NULL) { /* --resolve: written when its answer is in */
        held_input *h = malloc(sizeof *h + len + 1);
        if (h != NULL) {
            h->len = len;
            h->full_len = full_len;
            h->truncated = truncated;
            memcpy(h->in, in, len);
            h->in[len] = 0;
        }
        return cli_resolve_hold(c->rw, h != NULL ? h->in : NULL, len, h);
    }
#endif
    judge(c, &r);
    return write_result(c, &r);
}

#ifdef URISAN_HAVE_NET
/* --resolve: one line with its host's answer (cli_resolve_flush). */
static bool check_resolved(void *ctx, void *row, const urisan_net_result *res)
{
    check_ctx *c = ctx;
    const held_input *h = row;
    check_result r;
    r.in = h->in;
    r.len = h->len;
    r.full_len = h->full_len;
    r.truncated = h->truncated;
    r.res = res;
    judge(c, &r);
    cli_resolve_merge(&r.j.dec, res);
    return write_result(c, &r);
}
#endif

/* The next line's host memo entry, asked for while this line is judged. */
static void check_ahead(void *ctx, const char *p, size_t n)
{
#ifdef URISAN_HAVE_HOST
    urisan_host_prefetch(((check_ctx *)ctx)->host, p, n);
#else
    (void)ctx;
    (void)p;
    (void)n;
#endif
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
    cli_log_bad_line(&c->tmp, &bad, c->json, c->tsv);
    return cli_out_buf(&c->tmp);
}

/* ---- --jobs N: the lines on N worker threads (jobs.c) ---- */

/* A line of input, queued: the bytes, full_len, truncated. */
static bool queue_line(void *ctx, const char *in, size_t len, size_t full_len, bool truncated)
{
    cli_job_item it = { .a = in, .alen = len, .n = { full_len, truncated } };
    return cli_jobs_add(ctx, &it);
}

static bool job_line(void *w, const cli_job_item *it)
{
    return check_one(w, it->a, it->alen, it->n[0], it->n[1] != 0);
}

/* A log line, queued: the line, and the URI when it is not in the line
   (Zeek's host + uri); numbers lineno, full_len, bits, URI offset. */
#define LOG_TRUNCATED 1u
#define LOG_URI_CUT 2u
#define LOG_HAS_URI 4u
#define LOG_URI_APART 8u
static bool queue_log_line(void *ctx, const cli_logline *ln)
{
    cli_job_item it = { .a = ln->line, .alen = ln->len, .p = { ln->file, ln->why } };
    size_t bits = (ln->truncated ? LOG_TRUNCATED : 0) | (ln->uri_cut ? LOG_URI_CUT : 0);
    if (ln->uri != NULL) {
        bits |= LOG_HAS_URI;
        it.blen = ln->uri_len;
        if (ln->uri >= ln->line && ln->uri + ln->uri_len <= ln->line + ln->len) {
            it.n[3] = (size_t)(ln->uri - ln->line);
        } else {
            bits |= LOG_URI_APART;
            it.b = ln->uri;
        }
    }
    it.n[0] = ln->lineno;
    it.n[1] = ln->full_len;
    it.n[2] = bits;
    return cli_jobs_add(ctx, &it);
}

static bool check_log_line(void *ctx, const cli_logline *ln);

static bool job_log_line(void *w, const cli_job_item *it)
{
    cli_logline ln;
    memset(&ln, 0, sizeof ln);
    ln.file = it->p[0];
    ln.why = it->p[1];
    ln.lineno = it->n[0];
    ln.line = it->a;
    ln.len = it->alen;
    ln.full_len = it->n[1];
    ln.truncated = (it->n[2] & LOG_TRUNCATED) != 0;
    ln.uri_cut = (it->n[2] & LOG_URI_CUT) != 0;
    if (it->n[2] & LOG_HAS_URI) {
        ln.uri = (it->n[2] & LOG_URI_APART) ? it->b : it->a + it->n[3];
        ln.uri_len = it->blen;
    }
    return check_log_line(w, &ln);
}

static void job_ahead(void *w, const char *p, size_t n)
{
    check_ahead(w, p, n);
}

static void jobs_idle(void *arg, int fd)
{
    cli_jobs_idle(arg, fd);
}

/* What the workers found, into c (NULL: nothing); their contexts freed. */
static void jobs_ctx_end(check_ctx *c, check_ctx *wc, unsigned n)
{
    for (unsigned k = 0; k < n; k++) {
        if (c != NULL)
            c->denied |= wc[k].denied;
        free(wc[k].rbuf);
        cli_buf_free(&wc[k].tmp);
#ifdef URISAN_HAVE_HOST
        urisan_host_ctx_free(wc[k].host);
#endif
    }
    free(wc);
}

/* The worker contexts: copies of c, each with its own buffers and host
   view, so that no worker's state is another's. */
static check_ctx *jobs_ctx(const check_ctx *c, unsigned n, void **w)
{
    check_ctx *wc = aligned_alloc(64, n * sizeof *wc);
    if (wc != NULL)
        memset(wc, 0, n * sizeof *wc);
    for (unsigned k = 0; wc != NULL && k < n; k++) {
        wc[k] = *c;
        wc[k].rbuf = NULL;
        wc[k].rcap = 0;
        wc[k].denied = false;
        cli_buf_init(&wc[k].tmp, CLI_JSON_MAX);
        w[k] = &wc[k];
#ifdef URISAN_HAVE_HOST
        /* the worker's own, all sharing one memo of views: a host is
           viewed once, whichever worker meets it first */
        wc[k].host = urisan_host_ctx_new_sharing(k > 0 ? wc[0].host : NULL);
        if (wc[k].host == NULL) {
            jobs_ctx_end(NULL, wc, k + 1);
            return NULL;
        }
#endif
    }
    return wc;
}

enum { OPT_JSON, OPT_POLICY, OPT_BASE, OPT_FIELDS, OPT_PROFILE, OPT_FORMAT, OPT_TSV, OPT_EXPLAIN,
       OPT_JOBS, OPT_PROGRESS, OPT_NO_PROGRESS, OPT_HOST, OPT_SCHEME, OPT_RESOLVE,
       OPT_DNS_SERVER, NOPT };

/* --format FMT [--tsv]: the options' checks; the format into *fmt. */
static int check_logs_opts(check_ctx *c, const cli_opt *opts, cli_logfmt *fmt)
{
    if (!opts[OPT_FORMAT].seen)
        return cli_usage_error(CMD, "--tsv needs --format");
    if (opts[OPT_FIELDS].seen) /* a line without a URI has no row to select from */
        return cli_usage_error(CMD, "--fields and --format exclude each other");
    if (opts[OPT_TSV].seen && c->json)
        return cli_usage_error(CMD, "--tsv and --json exclude each other");
    if (!cli_logfmt_parse(opts[OPT_FORMAT].value, fmt))
        return cli_usage_error(CMD, "--format: unknown log format '%s' "
                               "(squid, zeek, combined, field:N)", opts[OPT_FORMAT].value);
    fmt->host = opts[OPT_HOST].seen ? opts[OPT_HOST].value : NULL;
    fmt->scheme = opts[OPT_SCHEME].seen ? opts[OPT_SCHEME].value : NULL;
    if (fmt->kind != LOG_COMBINED && (fmt->host != NULL || fmt->scheme != NULL))
        return cli_usage_error(CMD, "'%s' needs --format combined",
                               fmt->host != NULL ? "--host" : "--scheme");
    if (fmt->host != NULL && (fmt->host[0] == '\0' || strpbrk(fmt->host, "/?#@ ") != NULL))
        return cli_usage_error(CMD, "--host '%.200s': a host name (or name:port)", fmt->host);
    if (fmt->scheme != NULL && strcmp(fmt->scheme, "http") != 0 &&
        strcmp(fmt->scheme, "https") != 0)
        return cli_usage_error(CMD, "--scheme '%.200s': http or https", fmt->scheme);
    c->tsv = opts[OPT_TSV].seen;
    return CLI_EXIT_OK;
}

/* Every input through c (j NULL) or through the workers of j: each line
   of the operands or standard input, or with --format (fmt not NULL)
   each line of the log files. */
static int check_inputs(check_ctx *c, cli_jobs *j, const cli_logfmt *fmt, char **argv,
                        int nargs)
{
    size_t keep = cli_line_keep(urisan_policy_limits(c->pol));
    if (fmt != NULL)
        return cli_log_each(CMD, fmt, argv, 1, nargs, keep + CLI_LOG_EXTRA,
                            j ? queue_log_line : check_log_line, j ? (void *)j : c);
    if (j != NULL && nargs >= 1)
        return cli_each_input(CMD, argv, 1, nargs, keep, queue_line, j);
    if (j != NULL) /* the lines by the block: the workers cut them */
        return cli_jobs_each_line(CMD, j, keep);
    return cli_each_input_ahead(CMD, argv, 1, nargs, keep, check_one,
                                c->hostview_keys ? check_ahead : NULL, c);
}

/* check_inputs on n worker threads: the same lines, in the same order. */
static int check_jobs(check_ctx *c, unsigned n, const cli_logfmt *fmt, char **argv, int nargs)
{
    void *w[256];
    check_ctx *wc = jobs_ctx(c, n, w);
    if (wc == NULL)
        return cli_fail(CMD, "out of memory");
    cli_jobs *j = cli_jobs_start(CMD, n, w, fmt ? job_log_line : job_line,
                                 c->hostview_keys && fmt == NULL ? job_ahead : NULL);
    if (j == NULL) {
        jobs_ctx_end(c, wc, n);
        return CLI_EXIT_USAGE;
    }
    cli_input_set_idle(jobs_idle, j);
    int status = check_inputs(c, j, fmt, argv, nargs);
    cli_input_set_idle(NULL, NULL);
    bool ok = cli_jobs_end(j);
    jobs_ctx_end(c, wc, n);
    /* a line that could not be written stopped the run: told as one
       thread tells it (cli_each_input, cli_log_each) */
    if (!ok && status == CLI_EXIT_OK) {
        if (fmt != NULL)
            status = ferror(stdout) ? CLI_EXIT_USAGE
                                    : cli_fail(CMD, "out of memory for an output line");
        else if (cli_out_error() == 0 && !ferror(stdout))
            status = cli_fail(CMD, "out of memory for an output line");
    }
    return status;
}

/* --base URI: an absolute URI, else a usage error (returned). */
static int check_base_opt(check_ctx *c, const cli_opt *opts, const urisan_limits *lim)
{
    if (!opts[OPT_BASE].seen)
        return CLI_EXIT_OK;
    c->base = opts[OPT_BASE].value;
    c->blen = strlen(c->base);
    urisan_uri bu;
    urisan_error be = { URISAN_OK, 0, 0 };
    urisan_parse(c->base, c->blen, lim, &bu, &be);
    if (bu.valid && urisan_span_present(bu.scheme))
        return CLI_EXIT_OK;
    if (bu.valid)
        return cli_usage_error(CMD, "--base '%.200s': not an absolute URI (no scheme)", c->base);
    return cli_usage_error(CMD, "--base '%.200s': %s at offset %zu: %s", c->base,
                           urisan_status_name(bu.error.code), bu.error.offset,
                           urisan_status_message(bu.error.code));
}

/* Is a host view key among the --json keys? Then every line's host is
   viewed (URISAN_JUDGE_VIEW), and the next line's asked for ahead.
   fields: --fields was given (host_skeleton then for every host). */
static void host_keys(check_ctx *c, bool fields)
{
    c->skeleton_always = fields;
#ifdef URISAN_HAVE_HOST
    for (size_t i = 0; c->json && i < c->fields.n; i++) {
        const urisan_result_key *k = c->fields.f[i]->arg;
        if (k != NULL && (k->reads & URISAN_RR_HOST))
            c->hostview_keys = true;
    }
    c->judge_opts = c->hostview_keys ? URISAN_JUDGE_VIEW : 0;
#else
    (void)c;
#endif
}

/* --resolve [--dns-server ADDR[:PORT]]: the lines' hosts looked up and
   their addresses judged. It reads plain lines on one thread (the
   lookups run concurrently): not with --base, --format or --jobs > 1. */
static int check_resolve_opts(check_ctx *c, const cli_opt *opts, bool logs, unsigned jobs)
{
    if (!opts[OPT_RESOLVE].seen) {
        if (opts[OPT_DNS_SERVER].seen)
            return cli_usage_error(CMD, "--dns-server needs --resolve");
        return CLI_EXIT_OK;
    }
#ifdef URISAN_HAVE_NET
    if (c->base != NULL || logs || jobs > 1)
        return cli_usage_error(CMD, "--resolve judges plain lines on one thread (its lookups "
                                    "run concurrently): not with --base, --format, --tsv, "
                                    "--host, --scheme or --jobs");
    c->rw = cli_resolve_new(CMD, opts[OPT_DNS_SERVER].seen ? opts[OPT_DNS_SERVER].value : NULL,
                            c->pol, check_resolved, c);
    return c->rw != NULL ? CLI_EXIT_OK : CLI_EXIT_USAGE;
#else
    (void)c;
    (void)logs;
    (void)jobs;
    return cli_fail(CMD, "--resolve: this urisan was built without c-ares (liburisan-net)");
#endif
}

/* What cmd_check holds: the policy, the host context, the base buffer;
   returns status. */
static int check_free(check_ctx *c, urisan_policy *pol, int status)
{
#ifdef URISAN_HAVE_NET
    cli_resolve_free(c->rw);
#endif
    free(c->rbuf);
    free(pol);
#ifdef URISAN_HAVE_HOST
    urisan_host_ctx_free(c->host);
#endif
    return status;
}

int cmd_check(int argc, char **argv)
{
    cli_opt opts[NOPT] = {
        [OPT_JSON] = { "--json", false, NULL, false },
        [OPT_POLICY] = { "--policy", true, NULL, false },
        [OPT_BASE] = { "--base", true, NULL, false },
        [OPT_FIELDS] = { "--fields", true, NULL, false },
        [OPT_PROFILE] = { "--profile", true, NULL, false },
        [OPT_FORMAT] = { "--format", true, NULL, false },
        [OPT_TSV] = { "--tsv", false, NULL, false },
        [OPT_EXPLAIN] = { "--explain", false, NULL, false },
        [OPT_JOBS] = { "--jobs", true, NULL, false },
        [OPT_PROGRESS] = { "--progress", false, NULL, false },
        [OPT_NO_PROGRESS] = { "--no-progress", false, NULL, false },
        [OPT_HOST] = { "--host", true, NULL, false },
        [OPT_SCHEME] = { "--scheme", true, NULL, false },
        [OPT_RESOLVE] = { "--resolve", false, NULL, false },
        [OPT_DNS_SERVER] = { "--dns-server", true, NULL, false },
    };
    int rc, nargs = cli_opts(CMD, argc, argv, opts, NOPT, &rc);
    if (nargs < 0)
        return rc;

    check_ctx c;
    memset(&c, 0, sizeof c);
    c.json = opts[OPT_JSON].seen || opts[OPT_FIELDS].seen;
    c.explain = opts[OPT_EXPLAIN].seen;
    check_fields_make();
    rc = cli_fields_select(CMD, check_fields, check_nfields,
                           (opts[OPT_BASE].seen ? URISAN_RK_BASE : 0) |
                           (opts[OPT_FORMAT].seen ? URISAN_RK_LOG : 0) |
                           (opts[OPT_EXPLAIN].seen ? URISAN_RK_EXPLAIN : 0) |
                           (opts[OPT_RESOLVE].seen ? URISAN_RK_RESOLVE : 0),
                           opts[OPT_FIELDS].seen ? opts[OPT_FIELDS].value : NULL, &c.fields);
    if (rc != 0)
        return rc;
    host_keys(&c, opts[OPT_FIELDS].seen);
    urisan_policy *pol = cli_policy_opts(CMD, opts, NOPT);
    if (pol == NULL)
        return CLI_EXIT_USAGE;
    c.pol = pol;
    const urisan_limits *lim = urisan_policy_limits(pol);
#ifdef URISAN_HAVE_HOST
    c.host = urisan_host_ctx_new();
    if (c.host == NULL) {
        free(pol);
        return cli_fail(CMD, "out of memory");
    }
#endif

    unsigned jobs = 1;
    cli_logfmt fmt;
    bool logs = opts[OPT_FORMAT].seen || opts[OPT_TSV].seen || opts[OPT_HOST].seen ||
                opts[OPT_SCHEME].seen;
    int status = check_base_opt(&c, opts, lim);
    if (status == CLI_EXIT_OK && opts[OPT_JOBS].seen && !cli_jobs_parse(opts[OPT_JOBS].value, &jobs))
        status = cli_usage_error(CMD, "--jobs: not a number of threads from 0 to 256: '%.200s'",
                                 opts[OPT_JOBS].value);
    if (status == CLI_EXIT_OK && logs)
        status = check_logs_opts(&c, opts, &fmt);
    if (status == CLI_EXIT_OK)
        status = check_resolve_opts(&c, opts, logs, jobs);
    if (status != CLI_EXIT_OK)
        return check_free(&c, pol, status);
    cli_buf_init(&c.tmp, CLI_JSON_MAX);
    cli_progress_start(CMD, cli_progress_mode(opts[OPT_PROGRESS].seen,
                                              opts[OPT_NO_PROGRESS].seen));
    if (jobs > 1)
        status = check_jobs(&c, jobs, logs ? &fmt : NULL, argv, nargs);
    else
        status = check_inputs(&c, NULL, logs ? &fmt : NULL, argv, nargs);
#ifdef URISAN_HAVE_NET
    if (c.rw != NULL && !cli_resolve_flush(c.rw) && status == CLI_EXIT_OK)
        status = CLI_EXIT_USAGE; /* a write error, told as the lines' are */
#endif
    cli_progress_end();
    cli_buf_free(&c.tmp);
    if (status == CLI_EXIT_OK && c.denied)
        status = CLI_EXIT_FAIL;
    return cli_finish(CMD, check_free(&c, pol, status));
}
