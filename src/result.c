/*
 * result.c - the keys of one URI's result, described once (urisan.h
 * "The result of one URI, described once"): the table every door walks
 * (the command's JSON writer and --fields, the Python module's dict, the
 * Lua module's table) and the one reading of each value; and the keys of
 * the row of one link found (urisan.h "The row of one link found,
 * described once": extract --json, the modules' extract and
 * extract_mail). A key is added here, at its place in the order, and
 * nowhere else; the JSON Schema in doc/ is checked against these tables
 * (tests/result_schema_test.py, tests/row_schema_test.py).
 */
#include "internal.h"

#include <string.h>

/* What urisan_result_value reads (urisan_result_key.id). */
enum {
    K_URI, K_VALID, K_ERROR, K_COMPONENTS, K_HOST_IP, K_FLAGS, K_VERDICT, K_REASONS,
    K_DENY_REASONS, K_FLAG_REASONS, K_HOST_UNICODE, K_HOST_SKELETON, K_HOST_IMITATES,
    K_REGISTRABLE, K_RESOLVED, K_RESOLVE_ERROR, K_TRUNCATED, K_LENGTH, K_FRONT,
    K_SCHEME, K_USERINFO, K_HOST, K_HOST_TYPE, K_PORT, K_PATH, K_QUERY, K_FRAGMENT,
    K_NESTED, K_NESTED_CAPPED,
    /* of a nested URL (urisan_nested_value) */
    K_N_NAME, K_N_URI, K_N_DEPTH, K_N_FLAGS, K_N_HOST_IP,
    /* of a link's row (urisan_link_row_value) */
    K_L_URI, K_L_PART, K_L_OFFSET, K_L_LENGTH, K_L_CONTEXT, K_L_DISPLAY, K_L_FORM,
    K_L_FLAGS, K_L_LIMIT, K_L_LIMIT_MESSAGE, K_L_HEADER, K_L_WRITTEN, K_L_ATTACHMENT,
    K_L_REWRITER, K_L_PAGE
};

#define IN URISAN_RR_INPUT
#define SN "string|null"

/* The components of the parse: the value of "components", and keys of
   their own when named (--fields). */
#define COMPONENT_KEYS(shown)                                              \
    { "scheme", SN, 0, shown, 0, IN, NULL, 0, K_SCHEME },                  \
    { "userinfo", SN, 0, shown, 0, IN, NULL, 0, K_USERINFO },              \
    { "host", SN, 0, shown, 0, IN, NULL, 0, K_HOST },                      \
    { "host_type", SN, 0, shown, 0, IN, NULL, 0, K_HOST_TYPE },            \
    { "port", SN, 0, shown, 0, IN, NULL, 0, K_PORT },                      \
    { "path", SN, 0, shown, 0, IN, NULL, 0, K_PATH },                      \
    { "query", SN, 0, shown, 0, IN, NULL, 0, K_QUERY },                    \
    { "fragment", SN, 0, shown, 0, IN, NULL, 0, K_FRAGMENT }

static const urisan_result_key component_keys[] = { COMPONENT_KEYS(URISAN_RS_ALWAYS) };

/* A nested URL as "nested" lists it. */
static const urisan_result_key nested_keys[] = {
    { "name", "string", 0, 0, 2, URISAN_RR_NESTED, NULL, 0, K_N_NAME },
    { "uri", "string", 0, 0, 2, URISAN_RR_NESTED, NULL, 0, K_N_URI },
    { "depth", "integer", 0, 0, 2, URISAN_RR_NESTED, NULL, 0, K_N_DEPTH },
    { "flags", "array", 0, 0, 2, URISAN_RR_NESTED, NULL, 0, K_N_FLAGS },
    { "host_ip", SN, 0, 0, 2, URISAN_RR_NESTED, NULL, 0, K_N_HOST_IP },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define DEC URISAN_RR_DECISION
#define HOST URISAN_RK_HOST

/* The keys in the order every door writes them; new keys are appended
   (key names are a contract). Columns: name, JSON type, when (mode
   bits), shown, stage, reads, sub keys, their count, id. */
static const urisan_result_key result_keys[] = {
    { "uri", "string", 0, 0, 0, IN, NULL, 0, K_URI },
    { "valid", "boolean", 0, 0, 0, IN, NULL, 0, K_VALID },
    { "error", "object|null", 0, 0, 0, IN, NULL, 0, K_ERROR },
    { "components", "object", 0, 0, 0, IN, component_keys, N(component_keys), K_COMPONENTS },
    { "host_ip", SN, 0, 0, 1, URISAN_RR_REPORT, NULL, 0, K_HOST_IP },
    { "flags", "array", 0, 0, 1, URISAN_RR_FLAGS, NULL, 0, K_FLAGS },
    { "verdict", "string", 0, 0, 2, DEC, NULL, 0, K_VERDICT },
    { "reasons", "array", 0, 0, 2, DEC, NULL, 0, K_REASONS },
    { "deny_reasons", "array", 0, 0, 2, DEC, NULL, 0, K_DENY_REASONS },
    { "flag_reasons", "array", 0, 0, 2, DEC, NULL, 0, K_FLAG_REASONS },
    { "host_unicode", SN, HOST, 0, 2, URISAN_RR_HOST, NULL, 0, K_HOST_UNICODE },
    { "host_skeleton", SN, HOST, 0, 2, URISAN_RR_HOST, NULL, 0, K_HOST_SKELETON },
    { "host_imitates", SN, HOST, 0, 2, URISAN_RR_HOST, NULL, 0, K_HOST_IMITATES },
    { "registrable_domain", SN, HOST, 0, 2, URISAN_RR_HOST, NULL, 0, K_REGISTRABLE },
    { "resolved", SN, URISAN_RK_BASE, 0, 2, URISAN_RR_BASE, NULL, 0, K_RESOLVED },
    { "resolve_error", "object|null", URISAN_RK_BASE, 0, 2, URISAN_RR_BASE, NULL, 0,
      K_RESOLVE_ERROR },
    { "truncated", "boolean", 0, 0, 2, URISAN_RR_LENGTH, NULL, 0, K_TRUNCATED },
    { "length", "integer", 0, 0, 2, URISAN_RR_LENGTH, NULL, 0, K_LENGTH },
    { "line", "string", URISAN_RK_LOG, 0, 2, 0, NULL, 0, K_FRONT },
    { "lineno", "integer", URISAN_RK_LOG, 0, 2, 0, NULL, 0, K_FRONT },
    COMPONENT_KEYS(URISAN_RS_NAMED),
    { "nested", "array", 0, URISAN_RS_NESTED, 2, URISAN_RR_NESTED, nested_keys,
      N(nested_keys), K_NESTED },
    { "nested_capped", "boolean", 0, URISAN_RS_NESTED, 2, URISAN_RR_NESTED, NULL, 0,
      K_NESTED_CAPPED },
    { "explain", "object", URISAN_RK_EXPLAIN, 0, 2, 0, NULL, 0, K_FRONT },
    { "resolve", "object", URISAN_RK_RESOLVE, 0, 2, 0, NULL, 0, K_FRONT },
};

URISAN_API const urisan_result_key *urisan_result_keys(size_t *n)
{
    *n = N(result_keys);
    return result_keys;
}

URISAN_API const urisan_result_key *urisan_result_key_named(const urisan_result_key *keys,
                                                            size_t n, const char *name,
                                                            size_t len)
{
    for (size_t i = 0; i < n; i++) {
        if (strlen(keys[i].name) == len && memcmp(keys[i].name, name, len) == 0)
            return &keys[i];
    }
    return NULL;
}

URISAN_API int urisan_result_present(const urisan_result *r, const urisan_result_key *k)
{
    return k->shown != URISAN_RS_NESTED || (r->rep->flags & URISAN_F(NESTED_URL)) != 0;
}

static void text(urisan_rvalue *v, const char *s, size_t n)
{
    v->kind = URISAN_RV_TEXT;
    v->s = s;
    v->n = n;
}

static void name(urisan_rvalue *v, const char *s)
{
    if (s == NULL) {
        v->kind = URISAN_RV_NULL;
        return;
    }
    v->kind = URISAN_RV_NAME;
    v->s = s;
    v->n = strlen(s);
}

static void span(urisan_rvalue *v, const char *in, urisan_span s)
{
    if (urisan_span_present(s))
        text(v, in + s.off, s.len);
    else
        v->kind = URISAN_RV_NULL;
}

static void error(urisan_rvalue *v, const urisan_error *e)
{
    if (e == NULL || e->code == URISAN_OK) {
        v->kind = URISAN_RV_NULL;
        return;
    }
    v->kind = URISAN_RV_ERROR;
    v->err = *e;
}

static void names(urisan_rvalue *v, urisan_flags first, unsigned rules, urisan_flags last)
{
    v->kind = URISAN_RV_NAMES;
    v->first = first;
    if (URISAN_REASON_COUNT_ < 32)
        rules &= (1u << URISAN_REASON_COUNT_) - 1;
    v->rules = rules;
    v->last = last;
}

static void host_ip(urisan_rvalue *v, const urisan_report *rep)
{
    size_t n = 0;
    if (rep->ip_family != 0 && urisan_format_ip(rep, v->text, sizeof v->text, &n) == URISAN_OK)
        text(v, v->text, n);
    else
        v->kind = URISAN_RV_NULL;
}

/* The host's form k (host_unicode ... registrable_domain). */
static void host_form(urisan_rvalue *v, const char *const form[4], const size_t len[4],
                      unsigned k)
{
    if (form[k] != NULL)
        text(v, form[k], len[k]);
    else
        v->kind = URISAN_RV_NULL;
}

/* The keys read from the decision alone: verdict, reasons, deny_reasons,
   flag_reasons (a result's and a row's). */
static void decision_value(urisan_rvalue *v, const urisan_decision *d, unsigned id)
{
    switch (id) {
    case K_VERDICT: name(v, urisan_verdict_name(d->verdict)); return;
    case K_REASONS:
        if (d->verdict == URISAN_ALLOW)
            names(v, 0, 0, 0);
        else
            names(v, d->deny_flags, d->rules, d->flag_flags);
        return;
    case K_DENY_REASONS:
        if (d->verdict == URISAN_DENY)
            names(v, d->deny_flags, d->rules, 0);
        else
            names(v, 0, 0, 0);
        return;
    default: names(v, 0, 0, d->verdict == URISAN_ALLOW ? 0 : d->flag_flags); return;
    }
}

static void boolean(urisan_rvalue *v, int b)
{
    v->kind = URISAN_RV_BOOL;
    v->b = b != 0;
}

URISAN_API void urisan_result_value(const urisan_result *r, const urisan_result_key *k,
                                    urisan_rvalue *v)
{
    const urisan_uri *u = r->uri;
    const urisan_decision *d = r->dec;
    switch (k->id) {
    case K_URI: text(v, r->in, r->len); return;
    case K_VALID: boolean(v, u->valid); return;
    case K_ERROR: error(v, u->valid ? NULL : &u->error); return;
    case K_COMPONENTS: v->kind = URISAN_RV_OBJECT; return;
    case K_HOST_IP: host_ip(v, r->rep); return;
    case K_FLAGS: names(v, r->rep->flags, 0, 0); return;
    case K_VERDICT:
    case K_REASONS:
    case K_DENY_REASONS:
    case K_FLAG_REASONS: decision_value(v, d, k->id); return;
    case K_HOST_UNICODE:
    case K_HOST_SKELETON:
    case K_HOST_IMITATES:
    case K_REGISTRABLE:
        host_form(v, r->host_form, r->host_form_len, k->id - K_HOST_UNICODE);
        return;
    case K_RESOLVED:
        if (r->resolved != NULL)
            text(v, r->resolved, r->rlen);
        else
            v->kind = URISAN_RV_NULL;
        return;
    case K_RESOLVE_ERROR: error(v, r->resolved != NULL ? NULL : &r->rerr); return;
    case K_TRUNCATED: boolean(v, r->truncated); return;
    case K_LENGTH:
        v->kind = URISAN_RV_UINT;
        v->u = r->full_len;
        return;
    case K_SCHEME: span(v, r->in, u->scheme); return;
    case K_USERINFO: span(v, r->in, u->userinfo); return;
    case K_HOST: span(v, r->in, u->host); return;
    case K_HOST_TYPE: name(v, urisan_host_type_name(u->host_type)); return;
    case K_PORT: span(v, r->in, u->port); return;
    case K_PATH: span(v, r->in, u->path); return;
    case K_QUERY: span(v, r->in, u->query); return;
    case K_FRAGMENT: span(v, r->in, u->fragment); return;
    case K_NESTED: v->kind = URISAN_RV_NESTED; return;
    case K_NESTED_CAPPED:
        boolean(v, urisan_result_nested(r, NULL, NULL) > URISAN_RESULT_NESTED_MAX);
        return;
    default: v->kind = URISAN_RV_FRONT; return;
    }
}

typedef struct {
    const urisan_result *r;
    urisan_result_nested_fn fn;
    void *arg;
    size_t n;
} nested_walk;

static void nested_one(void *ctx, const urisan_nested_url *nu)
{
    nested_walk *w = ctx;
    if (w->n++ >= URISAN_RESULT_NESTED_MAX || w->fn == NULL)
        return;
    const urisan_result *r = w->r;
    urisan_flags f = r->nested_flags != NULL ? r->nested_flags(r->nested_arg, r->pol, nu)
                                             : nu->report.flags;
    w->fn(w->arg, nu, f);
}

URISAN_API size_t urisan_result_nested(const urisan_result *r, urisan_result_nested_fn fn,
                                       void *arg)
{
    const char *in = r->resolved != NULL ? r->resolved : r->in;
    size_t len = r->resolved != NULL ? r->rlen : r->len;
    urisan_uri own;
    const urisan_uri *u = r->uri;
    if (r->resolved != NULL) {   /* its parse is not kept: parsed here */
        urisan_parse(in, len, r->pol != NULL ? urisan_policy_limits(r->pol) : NULL, &own, NULL);
        u = &own;
    }
    char scratch[URISAN_NESTED_SCRATCH];
    urisan_nested_report nr;
    nested_walk w = { r, fn, arg, 0 };
    if (urisan_nested(in, len, u, r->pol, scratch, sizeof scratch, nested_one, &w, &nr) !=
        URISAN_OK)
        return 0;
    return w.n;
}

URISAN_API void urisan_nested_value(const urisan_nested_url *nu, urisan_flags flags,
                                    const urisan_result_key *k, urisan_rvalue *v)
{
    switch (k->id) {
    case K_N_NAME: text(v, nu->name, nu->name_len); return;
    case K_N_URI: text(v, nu->uri, nu->uri_len); return;
    case K_N_DEPTH:
        v->kind = URISAN_RV_UINT;
        v->u = nu->depth;
        return;
    case K_N_FLAGS: names(v, flags, 0, 0); return;
    case K_N_HOST_IP: host_ip(v, &nu->report); return;
    default: v->kind = URISAN_RV_NULL; return;
    }
}

/* ---- the row of one link found ---- */

#define SET URISAN_RS_SET

/* The keys of a row in the order every door writes them; new keys are
   appended before the command's own (explain, resolve). Columns as
   result_keys' (stage 0; reads: the flags and the decision, for a front
   end that keeps what it wrote of them). */
static const urisan_result_key row_keys[] = {
    { "uri", SN, 0, 0, 0, 0, NULL, 0, K_L_URI },
    { "part", "integer|string", 0, 0, 0, 0, NULL, 0, K_L_PART },
    { "offset", "integer", 0, 0, 0, 0, NULL, 0, K_L_OFFSET },
    { "length", "integer", 0, 0, 0, 0, NULL, 0, K_L_LENGTH },
    { "context", "string", 0, 0, 0, 0, NULL, 0, K_L_CONTEXT },
    { "display", SN, 0, 0, 0, 0, NULL, 0, K_L_DISPLAY },
    { "form", "array", 0, 0, 0, 0, NULL, 0, K_L_FORM },
    { "flags", "array", 0, 0, 0, URISAN_RR_FLAGS, NULL, 0, K_L_FLAGS },
    { "verdict", "string", 0, 0, 0, DEC, NULL, 0, K_VERDICT },
    { "reasons", "array", 0, 0, 0, DEC, NULL, 0, K_REASONS },
    { "deny_reasons", "array", 0, 0, 0, DEC, NULL, 0, K_DENY_REASONS },
    { "flag_reasons", "array", 0, 0, 0, DEC, NULL, 0, K_FLAG_REASONS },
    { "host_unicode", SN, HOST, 0, 0, 0, NULL, 0, K_HOST_UNICODE },
    { "host_skeleton", SN, HOST, 0, 0, 0, NULL, 0, K_HOST_SKELETON },
    { "host_imitates", SN, HOST, 0, 0, 0, NULL, 0, K_HOST_IMITATES },
    { "registrable_domain", SN, HOST, 0, 0, 0, NULL, 0, K_REGISTRABLE },
    { "message", "integer", URISAN_RK_MAILBOX, 0, 0, 0, NULL, 0, K_FRONT },
    { "message_id", SN, URISAN_RK_MAILBOX, 0, 0, 0, NULL, 0, K_FRONT },
    { "file", SN, URISAN_RK_MAILBOX, 0, 0, 0, NULL, 0, K_FRONT },
    { "limit", "string", 0, SET, 0, 0, NULL, 0, K_L_LIMIT },
    { "limit_message", "string", 0, SET, 0, 0, NULL, 0, K_L_LIMIT_MESSAGE },
    { "header", "string", 0, SET, 0, 0, NULL, 0, K_L_HEADER },
    { "written", "string", 0, SET, 0, 0, NULL, 0, K_L_WRITTEN },
    { "attachment", "string", 0, SET, 0, 0, NULL, 0, K_L_ATTACHMENT },
    { "rewriter", "string", 0, SET, 0, 0, NULL, 0, K_L_REWRITER },
    { "page", "integer", 0, SET, 0, 0, NULL, 0, K_L_PAGE },
    { "explain", "object", URISAN_RK_EXPLAIN, 0, 0, 0, NULL, 0, K_FRONT },
    { "resolve", "object", URISAN_RK_RESOLVE, 0, 0, 0, NULL, 0, K_FRONT },
};

URISAN_API const urisan_result_key *urisan_link_row_keys(size_t *n)
{
    *n = N(row_keys);
    return row_keys;
}

static const char *const form_names[] = {
    "angle", "quoted", "url_prefix", "wrapped", "hyphen_break",
    "hyphen_dropped", "abbreviated", "trimmed",
};

URISAN_API const char *urisan_hit_form_name(unsigned bit)
{
    return bit < N(form_names) ? form_names[bit] : NULL;
}

URISAN_API void urisan_link_row_hit(urisan_link_row *row, const urisan_hit *h)
{
    memset(row, 0, sizeof *row);
    row->uri = h->uri;
    row->uri_len = h->uri_len;
    row->offset = h->off;
    row->length = h->len;
    row->context = "text";
    row->form = h->form;
    row->flags = h->flags;
    row->dec = h->decision;
}

static void opt_text(urisan_rvalue *v, const char *s, size_t n)
{
    if (s != NULL)
        text(v, s, n);
    else
        v->kind = URISAN_RV_NULL;
}

static void opt_cstr(urisan_rvalue *v, const char *s)
{
    opt_text(v, s, s != NULL ? strlen(s) : 0);
}

static void uint(urisan_rvalue *v, uint64_t u)
{
    v->kind = URISAN_RV_UINT;
    v->u = u;
}

URISAN_API void urisan_link_row_value(const urisan_link_row *row, const urisan_result_key *k,
                                      urisan_rvalue *v)
{
    switch (k->id) {
    case K_L_URI: opt_text(v, row->uri, row->uri_len); return;
    case K_L_PART:
        if (row->part == NULL)
            uint(v, 0);
        else
            opt_cstr(v, row->part);
        return;
    case K_L_OFFSET: uint(v, row->offset); return;
    case K_L_LENGTH: uint(v, row->length); return;
    case K_L_CONTEXT: name(v, row->context); return;
    case K_L_DISPLAY: opt_text(v, row->display, row->display_len); return;
    case K_L_FORM:
        v->kind = URISAN_RV_FORMS;
        v->u = row->form;
        return;
    case K_L_FLAGS: names(v, row->flags, 0, 0); return;
    case K_VERDICT:
    case K_REASONS:
    case K_DENY_REASONS:
    case K_FLAG_REASONS: decision_value(v, &row->dec, k->id); return;
    case K_HOST_UNICODE:
    case K_HOST_SKELETON:
    case K_HOST_IMITATES:
    case K_REGISTRABLE:
        host_form(v, row->host_form, row->host_form_len, k->id - K_HOST_UNICODE);
        return;
    case K_L_LIMIT: name(v, row->limit); return;
    case K_L_LIMIT_MESSAGE: opt_cstr(v, row->limit != NULL ? row->limit_message : NULL); return;
    case K_L_HEADER: opt_cstr(v, row->header); return;
    case K_L_WRITTEN: opt_text(v, row->written, row->written_len); return;
    case K_L_ATTACHMENT: opt_cstr(v, row->attachment); return;
    case K_L_REWRITER: name(v, row->rewriter); return;
    case K_L_PAGE:
        if (row->page != 0)
            uint(v, row->page);
        else
            v->kind = URISAN_RV_NULL;
        return;
    default: v->kind = URISAN_RV_FRONT; return;
    }
}

URISAN_API int urisan_link_row_present(const urisan_link_row *row, const urisan_result_key *k)
{
    if (k->shown != URISAN_RS_SET)
        return 1;
    urisan_rvalue v;
    urisan_link_row_value(row, k, &v);
    return v.kind != URISAN_RV_NULL;
}
