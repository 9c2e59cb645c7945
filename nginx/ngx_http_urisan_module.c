/*
 * ngx_http_urisan_module.c - urisan inside nginx (doc/gateways.md "nginx
 * module"): every request of a server or location with `urisan on` is
 * judged, before the access phase's modules, by the library's one
 * request call, urisan_judge_request (the Host field's grammar, an
 * absolute-form target and its Host, CONNECT and asterisk-form, then the
 * URI the origin receives under the policy). The module only hands it
 * the request's parts as received and prints the answer: it builds no
 * URI and decides nothing itself.
 *
 * Policies are made when nginx reads its configuration (so `nginx -t`
 * reads and checks the files, and a file with a mistake fails the
 * configuration: nginx does not start, or a reload keeps the
 * configuration in force); each worker starts with them and makes its
 * host context (the memo of hosts judged) once, in init_process.
 * `nginx -s reload` reads every policy file again and starts new
 * workers with the new policies.
 *
 * Per request: nothing is allocated but from the request's pool (the
 * URI, at most the target and Host's length plus the scheme, and the
 * reasons text), and the work is the library's: linear in the request
 * line and Host, bounded by nginx's own header buffers.
 */
#include "ngx_http_urisan.h"
#include "urisan_host.h"

#include <stdalign.h>
#include <stddef.h>
#include <time.h>

/* A policy file larger than this is refused (as the Lua module does). */
#define POLICY_FILE_MAX (16 * 1024 * 1024)
/* Every flag and rule name fits (as serve's X-Urisan-Deny-Reasons). */
#define REASONS_MAX 2048

typedef struct {
    urisan_verdict verdict;
    ngx_str_t reasons;   /* deny: what denied; flag: the flags reported */
} ngx_http_urisan_ctx_t;

/* The worker's host context (init_process). */
static urisan_host_ctx *worker_host;

static ngx_int_t ngx_http_urisan_init(ngx_conf_t *cf);
static ngx_int_t ngx_http_urisan_add_variables(ngx_conf_t *cf);
static void *ngx_http_urisan_create_main_conf(ngx_conf_t *cf);
static void *ngx_http_urisan_create_loc_conf(ngx_conf_t *cf);
static char *ngx_http_urisan_merge_loc_conf(ngx_conf_t *cf, void *parent, void *child);
static char *ngx_http_urisan_set(ngx_conf_t *cf, ngx_command_t *cmd, void *conf);
static char *ngx_http_urisan_set_status(ngx_conf_t *cf, ngx_command_t *cmd, void *conf);
static char *ngx_http_urisan_set_policy(ngx_conf_t *cf, ngx_command_t *cmd, void *conf);
static ngx_int_t ngx_http_urisan_init_process(ngx_cycle_t *cycle);
static void ngx_http_urisan_exit_process(ngx_cycle_t *cycle);

#define LOC_CONF (NGX_HTTP_MAIN_CONF | NGX_HTTP_SRV_CONF | NGX_HTTP_LOC_CONF)

static ngx_command_t ngx_http_urisan_commands[] = {
    { ngx_string("urisan"), LOC_CONF | NGX_CONF_FLAG, ngx_http_urisan_set,
      NGX_HTTP_LOC_CONF_OFFSET, offsetof(ngx_http_urisan_loc_conf_t, enable), NULL },
    { ngx_string("urisan_log_only"), LOC_CONF | NGX_CONF_FLAG, ngx_http_urisan_set,
      NGX_HTTP_LOC_CONF_OFFSET, offsetof(ngx_http_urisan_loc_conf_t, log_only), NULL },
    { ngx_string("urisan_deny_status"), LOC_CONF | NGX_CONF_TAKE1, ngx_http_urisan_set_status,
      NGX_HTTP_LOC_CONF_OFFSET, offsetof(ngx_http_urisan_loc_conf_t, deny_status), NULL },
    { ngx_string("urisan_profile"), LOC_CONF | NGX_CONF_TAKE1, ngx_http_urisan_set_policy,
      NGX_HTTP_LOC_CONF_OFFSET, offsetof(ngx_http_urisan_loc_conf_t, profile), NULL },
    { ngx_string("urisan_policy"), LOC_CONF | NGX_CONF_TAKE1, ngx_http_urisan_set_policy,
      NGX_HTTP_LOC_CONF_OFFSET, offsetof(ngx_http_urisan_loc_conf_t, policy_file), NULL },
    { ngx_string("urisan_metrics"), NGX_HTTP_LOC_CONF | NGX_CONF_NOARGS,
      ngx_http_urisan_metrics_directive, NGX_HTTP_LOC_CONF_OFFSET, 0, NULL },
    ngx_null_command
};

static ngx_http_module_t ngx_http_urisan_module_ctx = {
    ngx_http_urisan_add_variables,      /* preconfiguration */
    ngx_http_urisan_init,               /* postconfiguration */
    ngx_http_urisan_create_main_conf,   /* create main configuration */
    NULL,                               /* init main configuration */
    NULL,                               /* create server configuration */
    NULL,                               /* merge server configuration */
    ngx_http_urisan_create_loc_conf,    /* create location configuration */
    ngx_http_urisan_merge_loc_conf      /* merge location configuration */
};

ngx_module_t ngx_http_urisan_module = {
    NGX_MODULE_V1,
    &ngx_http_urisan_module_ctx,        /* module context */
    ngx_http_urisan_commands,           /* module directives */
    NGX_HTTP_MODULE,                    /* module type */
    NULL,                               /* init master */
    NULL,                               /* init module */
    ngx_http_urisan_init_process,       /* init process */
    NULL,                               /* init thread */
    NULL,                               /* exit thread */
    ngx_http_urisan_exit_process,       /* exit process */
    NULL,                               /* exit master */
    NGX_MODULE_V1_PADDING
};

/* ---- configuration ---- */

static void *ngx_http_urisan_create_main_conf(ngx_conf_t *cf)
{
    return ngx_pcalloc(cf->pool, sizeof(ngx_http_urisan_main_conf_t));
}

static void *ngx_http_urisan_create_loc_conf(ngx_conf_t *cf)
{
    ngx_http_urisan_loc_conf_t *c = ngx_pcalloc(cf->pool, sizeof *c);
    if (c == NULL)
        return NULL;
    c->enable = NGX_CONF_UNSET;
    c->log_only = NGX_CONF_UNSET;
    c->deny_status = NGX_CONF_UNSET_UINT;
    return c;   /* profile, policy_file, pol: NULL (not set) */
}

static void mark_used(ngx_conf_t *cf)
{
    ngx_http_urisan_main_conf_t *mcf = ngx_http_conf_get_module_main_conf(cf,
                                                                          ngx_http_urisan_module);
    mcf->used = 1;
}

/* urisan on|off, urisan_log_only on|off */
static char *ngx_http_urisan_set(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    mark_used(cf);
    return ngx_conf_set_flag_slot(cf, cmd, conf);
}

/* urisan_deny_status CODE: 400 to 599 */
static char *ngx_http_urisan_set_status(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_urisan_loc_conf_t *c = conf;
    ngx_str_t *v = cf->args->elts;
    (void)cmd;
    mark_used(cf);
    if (c->deny_status != NGX_CONF_UNSET_UINT)
        return "is duplicate";
    ngx_int_t n = ngx_atoi(v[1].data, v[1].len);
    if (n < 400 || n > 599) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "urisan_deny_status \"%V\": want a status from 400 to 599", &v[1]);
        return NGX_CONF_ERROR;
    }
    c->deny_status = (ngx_uint_t)n;
    return NGX_CONF_OK;
}

/* urisan_profile NAME, urisan_policy FILE: kept as written (the file's
   full name) and where; the policy is made when the block is merged,
   when both are known. */
static char *ngx_http_urisan_set_policy(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_urisan_loc_conf_t *c = conf;
    ngx_str_t *field = (ngx_str_t *)((char *)conf + cmd->offset);
    ngx_str_t *v = cf->args->elts;
    mark_used(cf);
    if (field->data != NULL)
        return "is duplicate";
    if (v[1].len == 0) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "%V: an empty value", &cmd->name);
        return NGX_CONF_ERROR;
    }
    *field = v[1];
    if (field == &c->policy_file) {
        if (ngx_conf_full_name(cf->cycle, field, 1) != NGX_OK)
            return NGX_CONF_ERROR;
        c->policy_where.data = ngx_pnalloc(cf->pool, cf->conf_file->file.name.len + NGX_INT_T_LEN + 1);
        if (c->policy_where.data == NULL)
            return NGX_CONF_ERROR;
        c->policy_where.len = (size_t)(ngx_sprintf(c->policy_where.data, "%V:%ui",
                                                   &cf->conf_file->file.name,
                                                   cf->conf_file->line) -
                                       c->policy_where.data);
    }
    return NGX_CONF_OK;
}

/* The whole policy file into a buffer of cf's temporary pool; NULL after
   a message. */
static u_char *read_policy(ngx_conf_t *cf, const ngx_str_t *path, size_t *len)
{
    ngx_fd_t fd = ngx_open_file(path->data, NGX_FILE_RDONLY, NGX_FILE_OPEN, 0);
    if (fd == NGX_INVALID_FILE) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, ngx_errno, "urisan_policy \"%V\": "
                           ngx_open_file_n " failed", path);
        return NULL;
    }
    u_char *text = NULL;
    ngx_file_info_t fi;
    if (ngx_fd_info(fd, &fi) == NGX_FILE_ERROR) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, ngx_errno, "urisan_policy \"%V\": "
                           ngx_fd_info_n " failed", path);
    } else if (ngx_file_size(&fi) > POLICY_FILE_MAX) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "urisan_policy \"%V\": larger than %d bytes",
                           path, POLICY_FILE_MAX);
    } else {
        size_t size = (size_t)ngx_file_size(&fi);
        text = ngx_pnalloc(cf->temp_pool, size + 1);
        ssize_t n = text != NULL ? ngx_read_fd(fd, text, size + 1) : -1;
        if (n < 0 || (size_t)n != size) {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, ngx_errno, "urisan_policy \"%V\": "
                               "read failed or the file changed while read", path);
            text = NULL;
        }
        *len = size;
    }
    ngx_close_file(fd);
    return text;
}

/* The policy of c: its profile (else the default policy), then its file
   on top; NGX_CONF_ERROR after a message naming the file, line, column
   and word (doc/policy.md), or the unknown profile. */
static char *make_policy(ngx_conf_t *cf, ngx_http_urisan_loc_conf_t *c)
{
    c->pol = ngx_pmemalign(cf->pool, urisan_policy_size(), alignof(max_align_t));
    if (c->pol == NULL)
        return NGX_CONF_ERROR;
    urisan_policy_init(c->pol);
    if (c->profile.data != NULL &&
        urisan_policy_profile(c->pol, (const char *)c->profile.data, c->profile.len) != URISAN_OK) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "urisan_profile \"%V\": no such profile "
                           "(urisan policy show --profile NAME lists them)", &c->profile);
        ngx_http_urisan_metrics_refused_reload();
        return NGX_CONF_ERROR;
    }
    if (c->policy_file.data == NULL)
        return NGX_CONF_OK;
    size_t len = 0;
    u_char *text = read_policy(cf, &c->policy_file, &len);
    urisan_policy_error e;
    if (text != NULL && urisan_policy_parse_ex(c->pol, (const char *)text, len, &e) == URISAN_OK)
        return NGX_CONF_OK;
    if (text != NULL) {
        /* the word as printable ASCII, at most 64 bytes */
        u_char word[64 * 4 + 1], *w = word;
        for (size_t i = 0; i < e.word_len && i < 64; i++) {
            u_char b = text[e.word_off + i];
            w = (b >= 0x20 && b < 0x7f) ? (*w = b, w + 1) : ngx_sprintf(w, "\\x%02xd", b);
        }
        ngx_log_error(NGX_LOG_EMERG, cf->log, 0,
                      "urisan_policy %V:%uz:%uz: %s%s%*s%s (the urisan_policy of %V)",
                      &c->policy_file, e.line, e.column, e.msg, e.word_len ? " '" : "",
                      (size_t)(w - word), word, e.word_len ? "'" : "", &c->policy_where);
    }
    ngx_http_urisan_metrics_refused_reload();
    return NGX_CONF_ERROR;
}

static char *ngx_http_urisan_merge_loc_conf(ngx_conf_t *cf, void *parent, void *child)
{
    ngx_http_urisan_loc_conf_t *prev = parent, *c = child;
    ngx_conf_merge_value(c->enable, prev->enable, 0);
    ngx_conf_merge_value(c->log_only, prev->log_only, 0);
    ngx_conf_merge_uint_value(c->deny_status, prev->deny_status, NGX_HTTP_FORBIDDEN);
    /* A block that names neither keeps the one above it, made once. */
    if (c->profile.data == NULL && c->policy_file.data == NULL) {
        c->profile = prev->profile;
        c->policy_file = prev->policy_file;
        c->policy_where = prev->policy_where;
        c->pol = prev->pol;
    } else {   /* one named here: the other as above */
        if (c->profile.data == NULL)
            c->profile = prev->profile;
        if (c->policy_file.data == NULL) {
            c->policy_file = prev->policy_file;
            c->policy_where = prev->policy_where;
        }
        if (make_policy(cf, c) != NGX_CONF_OK)
            return NGX_CONF_ERROR;
    }
    if (c->pol == NULL && c->enable) {   /* the default policy, made once */
        ngx_http_urisan_main_conf_t *mcf = ngx_http_conf_get_module_main_conf(
            cf, ngx_http_urisan_module);
        if (mcf->default_pol == NULL) {
            ngx_http_urisan_loc_conf_t d;
            ngx_memzero(&d, sizeof d);
            if (make_policy(cf, &d) != NGX_CONF_OK)
                return NGX_CONF_ERROR;
            mcf->default_pol = d.pol;
        }
        c->pol = mcf->default_pol;
    }
    return NGX_CONF_OK;
}

/* ---- per request ---- */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The request-target as the client sent it: the request line's second
   word (nginx refuses a space or control byte in it; HTTP/2's request
   line is "METHOD :path HTTP/2.0"). An absolute-form target is whole
   (nginx's $request_uri is only its path). */
static ngx_str_t request_target(const ngx_http_request_t *r)
{
    u_char *p = r->request_line.data, *end = p + r->request_line.len;
    p += r->method_name.len <= r->request_line.len ? r->method_name.len : r->request_line.len;
    while (p < end && *p == ' ')
        p++;
    u_char *start = p;
    while (p < end && *p != ' ')
        p++;
    ngx_str_t t = { (size_t)(p - start), start };
    return t;
}

/* The reasons of a judgement as text in r's pool: a deny's reasons (the
   part of the request rejected, else the flags and rules that denied),
   a flag's reported flags, "-" for an allow. */
static ngx_int_t reasons_text(ngx_http_request_t *r, const urisan_request_judgement *out,
                              const char **own, ngx_str_t *text)
{
    const urisan_decision *d = &out->j.dec;
    char buf[REASONS_MAX];
    size_t n = 0;
    *own = NULL;
    if (d->verdict == URISAN_DENY && out->reason != URISAN_REQUEST_OK)
        *own = urisan_request_reason_name(out->reason);
    else if (d->verdict == URISAN_DENY)
        urisan_reasons_format(d->deny_flags, d->rules, buf, sizeof buf, &n);
    else if (d->verdict == URISAN_FLAGGED)
        urisan_reasons_format(d->flag_flags, 0, buf, sizeof buf, &n);
    if (d->verdict == URISAN_DENY && *own == NULL && n == 0)
        *own = "denied";   /* as serve: a deny names a reason */
    if (*own != NULL) {
        n = ngx_strlen(*own);
        ngx_memcpy(buf, *own, n);
    }
    if (n == 0 || n >= sizeof buf) {
        ngx_str_set(text, "-");
        return NGX_OK;
    }
    text->data = ngx_pnalloc(r->pool, n);
    if (text->data == NULL)
        return NGX_ERROR;
    ngx_memcpy(text->data, buf, n);
    text->len = n;
    return NGX_OK;
}

static ngx_int_t add_header(ngx_http_request_t *r, const char *name, ngx_str_t *value)
{
    ngx_table_elt_t *h = ngx_list_push(&r->headers_out.headers);
    if (h == NULL)
        return NGX_ERROR;
    h->hash = 1;
#if nginx_version >= 1023000
    h->next = NULL;   /* a field of nginx 1.23 and later */
#endif
    h->key.data = (u_char *)(uintptr_t)name;
    h->key.len = ngx_strlen(name);
    h->value = *value;
    return NGX_OK;
}

static ngx_int_t ngx_http_urisan_handler(ngx_http_request_t *r)
{
    ngx_http_urisan_loc_conf_t *c = ngx_http_get_module_loc_conf(r, ngx_http_urisan_module);
    if (!c->enable || r != r->main)   /* a subrequest: its main request was judged */
        return NGX_DECLINED;
    if (worker_host == NULL || c->pol == NULL)
        return NGX_HTTP_INTERNAL_SERVER_ERROR;   /* cannot happen: fail closed */

    urisan_request req;
    urisan_request_init(&req);
    ngx_str_t target = request_target(r);
    req.target = (const char *)target.data;
    req.target_len = target.len;
    req.method = (const char *)r->method_name.data;
    req.method_len = r->method_name.len;
#if (NGX_HTTP_SSL)
    if (r->connection->ssl != NULL) {
        req.scheme = "https";
        req.scheme_len = 5;
    } else
#endif
    {
        req.scheme = "http";
        req.scheme_len = 4;
    }
    size_t host_len = 0;
    if (r->headers_in.host != NULL) {
        /* nginx refuses a second Host itself (400) */
        ngx_str_t *h = &r->headers_in.host->value;
        urisan_request_add(&req, "Host", 4, (const char *)h->data, h->len);
        host_len = h->len;
    }
    /* scheme "://" Host target, or the absolute-form target alone */
    size_t cap = target.len + host_len + 16;
    u_char *buf = ngx_pnalloc(r->pool, cap);
    ngx_http_urisan_ctx_t *ctx = ngx_pcalloc(r->pool, sizeof *ctx);
    if (buf == NULL || ctx == NULL)
        return NGX_HTTP_INTERNAL_SERVER_ERROR;

    urisan_request_judgement out;
    uint64_t t0 = now_ns();
    urisan_judge_request(worker_host, &req, NULL, c->pol, 0, (char *)buf, cap, &out);
    uint64_t t1 = now_ns();
    const char *own;
    if (reasons_text(r, &out, &own, &ctx->reasons) != NGX_OK)
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    ctx->verdict = out.j.dec.verdict;
    ngx_http_set_ctx(r, ctx, ngx_http_urisan_module);

    ngx_http_urisan_main_conf_t *mcf = ngx_http_get_module_main_conf(r, ngx_http_urisan_module);
    urisan_metrics *m = ngx_http_urisan_metrics_of(mcf);
    if (m != NULL && !r->internal)   /* an internal redirect: counted once */
        urisan_metrics_count(m, ctx->verdict, out.j.dec.deny_flags, out.j.dec.rules, own,
                             t1 - t0);

    if (ctx->verdict != URISAN_DENY || c->log_only)
        return NGX_DECLINED;
    static ngx_str_t deny = ngx_string("deny");
    if (add_header(r, "X-Urisan-Verdict", &deny) != NGX_OK ||
        add_header(r, "X-Urisan-Deny-Reasons", &ctx->reasons) != NGX_OK)
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    return (ngx_int_t)c->deny_status;
}

/* ---- variables ---- */

static ngx_int_t variable(ngx_http_request_t *r, ngx_http_variable_value_t *v, uintptr_t data)
{
    ngx_http_urisan_ctx_t *ctx = ngx_http_get_module_ctx(r, ngx_http_urisan_module);
    if (ctx == NULL) {   /* not judged here (urisan off, refused by nginx first) */
        v->not_found = 1;
        return NGX_OK;
    }
    const char *name = urisan_verdict_name(ctx->verdict);
    v->data = data ? ctx->reasons.data : (u_char *)(uintptr_t)name;
    v->len = data ? ctx->reasons.len : ngx_strlen(name);
    v->valid = 1;
    v->no_cacheable = 0;
    v->not_found = 0;
    return NGX_OK;
}

/* Changeable: a configuration that also names them for the auth_request
   or Lua doors (doc/gateways.md, doc/lua.md: auth_request_set
   $urisan_verdict, set $urisan_verdict) still loads. */
static ngx_http_variable_t ngx_http_urisan_vars[] = {
    { ngx_string("urisan_verdict"), NULL, variable, 0,
      NGX_HTTP_VAR_NOCACHEABLE | NGX_HTTP_VAR_CHANGEABLE, 0 },
    { ngx_string("urisan_reasons"), NULL, variable, 1,
      NGX_HTTP_VAR_NOCACHEABLE | NGX_HTTP_VAR_CHANGEABLE, 0 },
    ngx_http_null_variable
};

static ngx_int_t ngx_http_urisan_add_variables(ngx_conf_t *cf)
{
    for (ngx_http_variable_t *v = ngx_http_urisan_vars; v->name.len; v++) {
        ngx_http_variable_t *var = ngx_http_add_variable(cf, &v->name, v->flags);
        if (var == NULL)
            return NGX_ERROR;
        var->get_handler = v->get_handler;
        var->data = v->data;
    }
    return NGX_OK;
}

/* ---- the phase handler and the processes ---- */

/*
 * In the preaccess phase, before the access phase's modules: under
 * `satisfy any` an access module's allow (an `allow` address, a
 * password) ends that phase, and a deny of urisan's there would only be
 * one vote among them. A request urisan denies must never reach the
 * origin, whatever else allows it.
 */
static ngx_int_t ngx_http_urisan_init(ngx_conf_t *cf)
{
    ngx_http_urisan_main_conf_t *mcf = ngx_http_conf_get_module_main_conf(cf,
                                                                          ngx_http_urisan_module);
    if (!mcf->used)
        return NGX_OK;
    if (ngx_http_urisan_metrics_zone(cf, mcf) != NGX_OK)
        return NGX_ERROR;
    ngx_http_core_main_conf_t *cmcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_core_module);
    ngx_http_handler_pt *h = ngx_array_push(&cmcf->phases[NGX_HTTP_PREACCESS_PHASE].handlers);
    if (h == NULL)
        return NGX_ERROR;
    *h = ngx_http_urisan_handler;
    return NGX_OK;
}

static ngx_int_t ngx_http_urisan_init_process(ngx_cycle_t *cycle)
{
    ngx_http_urisan_main_conf_t *mcf = ngx_http_cycle_get_module_main_conf(cycle,
                                                                           ngx_http_urisan_module);
    if (mcf == NULL || !mcf->used)
        return NGX_OK;
    worker_host = urisan_host_ctx_new();
    if (worker_host == NULL) {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, 0, "urisan: no memory for the host context");
        return NGX_ERROR;
    }
    return NGX_OK;
}

static void ngx_http_urisan_exit_process(ngx_cycle_t *cycle)
{
    (void)cycle;
    if (worker_host != NULL)
        urisan_host_ctx_free(worker_host);
    worker_host = NULL;
}
