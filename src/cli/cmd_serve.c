/*
 * cmd_serve.c - `urisan serve`: an HTTP authorization service for
 * gateways (nginx auth_request, HAProxy Lua, Envoy ext_authz, Traefik
 * forwardAuth, Caddy forward_auth; doc/gateways.md).
 *
 * HTTP is libmicrohttpd's (Debian 12: 0.9.75): its parser, its bounds
 * (memory per connection, connection count, per-IP connections, idle
 * timeout), its epoll loop and thread pool. Why libmicrohttpd and not
 * libevent's evhttp: MHD answers malformed requests (400, 431, 414) and
 * bounds every connection by itself, has a per-IP connection limit and
 * a quiesce call for draining, and hands us the request-target before
 * it decodes anything (the URI log callback), which is the byte string
 * the gateway forwards. evhttp decodes the URI, has no per-client limit,
 * and would make us write the draining and bounding ourselves.
 *
 * What we add: the URI rebuilt from the gateway's headers and judged
 * (serve_uri.c, a pure function the fuzz harness drives), the policy
 * behind a read-write lock so SIGHUP swaps it atomically, and signal
 * handling in the main thread (sigwait): SIGHUP reloads, SIGTERM/SIGINT
 * drain. Every request gets exactly one answer: the access handler
 * queues one response on its first call, whatever the request holds.
 */
#include "cli.h"
#include "policy_info.h"
#include "serve_uri.h"
#include "urisan_metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define CMD "serve"

#define SERVE_DEFAULT_LISTEN "127.0.0.1:8181"

typedef struct {
    /* configuration */
    const char *policy_path;     /* NULL: built-in default */
    const char *profile;         /* --profile NAME, or NULL */
    urisan_request_trust trust;
    const char *trust_text;
    size_t uri_cap;              /* bytes for the rebuilt URI */

    /* the policy in force and what it is (/healthz, the log); readers
       hold the lock while judging */
    pthread_rwlock_t lock;
    serve_policy pol;            /* loaded, and the copy that judges */
    cli_policy_info info;

    atomic_int draining;         /* SIGTERM seen: close after answering */
    atomic_long inflight;        /* requests started, not yet completed */
    atomic_ulong answered;
    urisan_metrics metrics;      /* GET /metrics (doc/gateways.md "Metrics") */
} serve_state;

/* One request: the request-target as received, before MHD decodes it. */
typedef struct {
    char *target;
    size_t target_len;
    bool seen_headers;   /* the handler's first call is over */
    bool answered;
} serve_req;

/* The policy of --profile and --policy (cli_policy_load), and the copy
   of it serve judges by (serve_policy_make); false after a message. */
static bool policy_load(const serve_state *s, serve_policy *sp)
{
    urisan_policy *loaded = cli_policy_load(CMD, s->policy_path, s->profile);
    urisan_policy *judge = loaded != NULL ? malloc(urisan_policy_size()) : NULL;
    if (judge != NULL && serve_policy_make(sp, loaded, judge))
        return true;
    if (loaded != NULL)
        cli_fail(CMD, "out of memory");
    free(loaded);
    free(judge);
    return false;
}

static void policy_free(serve_policy *sp)
{
    free(sp->loaded);
    free(sp->judge);
}

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void logf_(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    flockfile(stderr);
    fputs("urisan: serve: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    funlockfile(stderr);
    va_end(ap);
}

static void mhd_logger(void *cls, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

static void mhd_logger(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
    logf_("libmicrohttpd: %s", line);
}

/* ---- per request ---- */

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
    (void)c;
    serve_state *s = cls;
    atomic_fetch_add(&s->inflight, 1);
    serve_req *rq = calloc(1, sizeof *rq);
    if (rq == NULL)
        return NULL;   /* answered 503 by the handler */
    size_t n = strlen(uri);
    rq->target = malloc(n + 1);
    if (rq->target != NULL) {
        memcpy(rq->target, uri, n + 1);
        rq->target_len = n;
    }
    return rq;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)c;
    (void)toe;
    serve_state *s = cls;
    serve_req *rq = *req_cls;
    if (rq != NULL) {
        free(rq->target);
        free(rq);
        *req_cls = NULL;
    }
    atomic_fetch_sub(&s->inflight, 1);
}

static enum MHD_Result collect_header(void *cls, enum MHD_ValueKind kind,
                                      const char *key, size_t key_size,
                                      const char *value, size_t value_size)
{
    (void)kind;
    urisan_request_add(cls, key, key_size, value, value_size);
    return MHD_YES;
}

/* Is the request the service's own GET path (/healthz, /metrics) rather
   than one to judge? */
static bool is_own_path(const serve_state *s, const urisan_request *r, const char *path)
{
    size_t plen = strlen(path);
    if (r->target_len != plen || memcmp(r->target, path, plen) != 0)
        return false;
    if (r->h[URISAN_REQH_ORIGINAL_URL].p != NULL || r->h[URISAN_REQH_ORIGINAL_URI].p != NULL ||
        r->h[URISAN_REQH_FORWARDED_URI].p != NULL)
        return false;
    /* When the request's own target is a source (Envoy), "/healthz" is a
       URI to judge like any other, unless a --strip-prefix sets apart
       the gateway's requests. */
    if (s->trust.strip_prefix != NULL)
        return true;
    for (size_t i = 0; i < s->trust.n; i++) {
        if (s->trust.order[i] == URISAN_REQSRC_TARGET)
            return false;
    }
    return true;
}

/* An answer: body[0..blen) of type ctype (NULL: no body), and a's
   headers when a is not NULL. */
static enum MHD_Result reply_body(serve_state *s, struct MHD_Connection *c, unsigned status,
                                  char *body, size_t blen, const char *ctype,
                                  const serve_answer *a)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(body ? blen : 0, body ? body : (char *)"",
                                        MHD_RESPMEM_MUST_COPY);
    if (resp == NULL)
        return MHD_NO;
    bool ok = true;
    if (a != NULL) {
        ok = MHD_add_response_header(resp, "X-Urisan-Verdict",
                                     urisan_verdict_name(a->verdict)) == MHD_YES &&
             MHD_add_response_header(resp, "X-Urisan-Deny-Reasons", a->deny) == MHD_YES &&
             MHD_add_response_header(resp, "X-Urisan-Flag-Reasons", a->flag) == MHD_YES;
        if (a->explain != NULL)
            ok = ok && MHD_add_response_header(resp, "X-Urisan-Explain", a->explain) == MHD_YES;
    }
    if (body != NULL)
        ok = ok && MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                                           ctype) == MHD_YES;
    if (atomic_load(&s->draining))
        ok = ok && MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close") == MHD_YES;
    enum MHD_Result r = ok ? MHD_queue_response(c, status, resp) : MHD_NO;
    MHD_destroy_response(resp);
    if (r == MHD_YES)
        atomic_fetch_add(&s->answered, 1);
    return r;
}

/* A short text/plain answer (literal), or a's headers (body NULL). */
static enum MHD_Result reply(serve_state *s, struct MHD_Connection *c, unsigned status,
                             const char *body, const serve_answer *a)
{
    /* MHD_RESPMEM_MUST_COPY: MHD's prototype takes a non-const buffer. */
    char text[32] = "";
    size_t blen = body ? strlen(body) : 0;
    if (blen >= sizeof text)
        blen = sizeof text - 1;
    memcpy(text, body ? body : "", blen);
    return reply_body(s, c, status, body ? text : NULL, blen, "text/plain", a);
}

/* GET /healthz: {"status":"ok" or "draining", then what is enforced
   (policy_info.h)}, 200 or 503. */
static enum MHD_Result health(serve_state *s, struct MHD_Connection *c)
{
    bool draining = atomic_load(&s->draining) != 0;
    cli_buf b;
    cli_buf_init(&b, 64 << 10);
    json_w w;
    json_begin(&w, &b);
    json_obj_open(&w);
    json_kcstr(&w, "status", draining ? "draining" : "ok");
    pthread_rwlock_rdlock(&s->lock);
    cli_policy_info_json(&w, &s->info);
    pthread_rwlock_unlock(&s->lock);
    json_obj_close(&w);
    enum MHD_Result r;
    if (!json_ok(&w) || !cli_buf_addc(&b, '\n'))
        r = reply(s, c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory\n", NULL);
    else
        r = reply_body(s, c, draining ? MHD_HTTP_SERVICE_UNAVAILABLE : MHD_HTTP_OK, b.p, b.len,
                       "application/json", NULL);
    cli_buf_free(&b);
    return r;
}

/* GET /metrics: the counters in the Prometheus text format. */
static enum MHD_Result metrics(serve_state *s, struct MHD_Connection *c)
{
    char *text = malloc(URISAN_METRICS_TEXT_MAX);
    size_t n = 0;
    if (text == NULL ||
        urisan_metrics_format(&s->metrics, text, URISAN_METRICS_TEXT_MAX, &n) != URISAN_OK) {
        free(text);
        return reply(s, c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory\n", NULL);
    }
    enum MHD_Result r = reply_body(s, c, MHD_HTTP_OK, text, n, URISAN_METRICS_CONTENT_TYPE,
                                   NULL);
    free(text);
    return r;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Does the request announce a body? (RFC 9112 6.1, 6.2) */
static bool has_body(struct MHD_Connection *c)
{
    const char *te = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_TRANSFER_ENCODING);
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_CONTENT_LENGTH);
    return te != NULL || (cl != NULL && strspn(cl, "0") != strlen(cl));
}

/* The X-Urisan-Explain answer in b: each reason with the rule of the
   loaded policy that made it (explain.c); the ones serve adds itself
   (its require-authority, no URI ...) as REASON=serve; "-" when there
   are none. NULL when it does not fit. */
static const char *serve_explain(cli_buf *b, const serve_answer *a, const serve_policy *sp,
                                 const char *uri)
{
    urisan_decision policy_own = a->dec;
    policy_own.rules &= ~sp->own_rules;
    cli_text_explain(b, &policy_own, sp->loaded, uri, a->uri_len);
    for (unsigned r = 0; r < URISAN_REASON_COUNT_; r++) {
        if (!(a->dec.rules & sp->own_rules & 1u << r))
            continue;
        if (b->len > 0)
            cli_buf_addc(b, ' ');
        cli_buf_adds(b, urisan_rule_reason_name((urisan_rule_reason)r));
        cli_buf_lit(b, "=serve");
    }
    if (a->own != NULL) {
        if (b->len > 0)
            cli_buf_addc(b, ' ');
        cli_buf_adds(b, a->own);
        cli_buf_lit(b, "=serve");
    }
    if (b->len == 0)
        cli_buf_addc(b, '-');
    cli_buf_addc(b, '\0');
    return b->failed ? NULL : b->p;
}

/*
 * libmicrohttpd calls this once the headers are in, then once per piece
 * of body, then once more when the request is complete. A response
 * queued before that last call makes MHD close the connection after
 * it, so a request without a body is answered on its second call and
 * the connection stays open for the gateway's next request. A request
 * that announces a body (gateways send none: the snippets turn bodies
 * off) is answered at once and its connection closed, so no body is
 * ever read.
 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **req_cls)
{
    (void)url;
    (void)version;
    (void)upload_data;
    serve_state *s = cls;
    serve_req *rq = *req_cls;
    if (rq == NULL || rq->target == NULL)
        return reply(s, c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory\n", NULL);
    if (rq->answered) {
        *upload_data_size = 0;   /* cannot happen (no body is read); discard */
        return MHD_YES;
    }
    if (!rq->seen_headers && !has_body(c)) {
        rq->seen_headers = true;
        return MHD_YES;          /* answer on the call that completes it */
    }
    if (*upload_data_size != 0) {
        *upload_data_size = 0;
        return MHD_YES;
    }
    rq->answered = true;

    urisan_request r;
    urisan_request_init(&r);
    r.target = rq->target;
    r.target_len = rq->target_len;
    /* the method matters to the target source alone (CONNECT, a
       method that is no token): the request judged is this one */
    r.method = method;
    r.method_len = method != NULL ? strlen(method) : 0;
    MHD_get_connection_values_n(c, MHD_HEADER_KIND, collect_header, &r);

    if (is_own_path(s, &r, "/healthz"))
        return health(s, c);
    if (is_own_path(s, &r, "/metrics"))
        return metrics(s, c);

    char *buf = malloc(s->uri_cap);
    serve_answer *a = malloc(sizeof *a);
    if (buf == NULL || a == NULL) {
        free(buf);
        free(a);
        return reply(s, c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory\n", NULL);
    }
    /* "X-Urisan-Explain:" in the request: the rule behind each reason */
    bool explain = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Urisan-Explain") != NULL;
    cli_buf ex;
    cli_buf_init(&ex, SERVE_REASONS_MAX * 4);
    pthread_rwlock_rdlock(&s->lock);
    uint64_t t0 = now_ns();
    serve_decide(&r, &s->trust, &s->pol, buf, s->uri_cap, a);
    uint64_t t1 = now_ns();
    if (explain)
        a->explain = serve_explain(&ex, a, &s->pol, buf);
    pthread_rwlock_unlock(&s->lock);
    urisan_metrics_count(&s->metrics, a->verdict, a->dec.deny_flags, a->dec.rules, a->own,
                         t1 - t0);
    enum MHD_Result res = reply(s, c, a->status, NULL, a);
    cli_buf_free(&ex);
    free(buf);
    free(a);
    return res;
}

/* ---- options ---- */

static bool parse_count(const char *v, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || n < lo || n > hi)
        return false;
    *out = n;
    return true;
}

/* ADDR:PORT with a numeric IPv4 or [IPv6] address. */
static bool parse_listen(const char *v, struct sockaddr_storage *ss, socklen_t *sl)
{
    const char *colon = strrchr(v, ':');
    long port;
    if (colon == NULL || !parse_count(colon + 1, 0, 65535, &port))
        return false;
    char host[INET6_ADDRSTRLEN + 2];
    size_t hl = (size_t)(colon - v);
    if (hl == 0 || hl >= sizeof host)
        return false;
    memcpy(host, v, hl);
    host[hl] = '\0';
    memset(ss, 0, sizeof *ss);
    if (host[0] == '[' && host[hl - 1] == ']') {
        host[hl - 1] = '\0';
        struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)port);
        *sl = sizeof *a6;
        return inet_pton(AF_INET6, host + 1, &a6->sin6_addr) == 1;
    }
    struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
    a4->sin_family = AF_INET;
    a4->sin_port = htons((uint16_t)port);
    *sl = sizeof *a4;
    return inet_pton(AF_INET, host, &a4->sin_addr) == 1;
}

static int open_listener(const char *spec, char *shown, size_t shown_cap)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    if (!parse_listen(spec, &ss, &sl)) {
        cli_usage_error(CMD, "--listen '%s': want ADDR:PORT with a numeric address "
                        "(127.0.0.1:8181, [::1]:8181)", spec);
        return -1;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, (struct sockaddr *)&ss, sl) != 0 || listen(fd, 1024) != 0) {
        cli_fail(CMD, "--listen %s: %s", spec, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    /* The port actually bound (port 0 asks the kernel for one). */
    sl = sizeof ss;
    getsockname(fd, (struct sockaddr *)&ss, &sl);
    char addr[INET6_ADDRSTRLEN];
    if (ss.ss_family == AF_INET6) {
        struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
        inet_ntop(AF_INET6, &a6->sin6_addr, addr, sizeof addr);
        snprintf(shown, shown_cap, "[%s]:%u", addr, (unsigned)ntohs(a6->sin6_port));
    } else {
        struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &a4->sin_addr, addr, sizeof addr);
        snprintf(shown, shown_cap, "%s:%u", addr, (unsigned)ntohs(a4->sin_port));
    }
    return fd;
}

/* ---- systemd (Type=notify), without libsystemd ---- */

/*
 * sd_notify(3)'s protocol: one datagram with "KEY=VALUE" lines to the
 * unix socket named by $NOTIFY_SOCKET ("@name": the abstract namespace).
 * Not under systemd (no variable), this does nothing. Failure is only
 * logged: the service works the same without it.
 */
static void notify(const char *state)
{
    const char *path = getenv("NOTIFY_SOCKET");
    if (path == NULL || path[0] == '\0')
        return;
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    size_t n = strlen(path);
    if ((path[0] != '/' && path[0] != '@') || n >= sizeof sa.sun_path) {
        logf_("NOTIFY_SOCKET '%s' is not a unix socket path; not notifying", path);
        return;
    }
    memcpy(sa.sun_path, path, n);
    if (path[0] == '@')
        sa.sun_path[0] = '\0';
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    socklen_t sl = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
    if (fd < 0 || sendto(fd, state, strlen(state), MSG_NOSIGNAL,
                         (struct sockaddr *)&sa, sl) < 0)
        logf_("NOTIFY_SOCKET %s: %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
}

/* ---- signals ---- */

static void reload(serve_state *s)
{
    notify("RELOADING=1");
    serve_policy np;
    if (!policy_load(s, &np)) {
        urisan_metrics_reload(&s->metrics, 0);
        logf_("reload failed (the message above); keeping the policy in force");
        notify("READY=1\nSTATUS=reload failed; the previous policy stays in force");
        return;
    }
    cli_policy_info info;
    cli_policy_info_make(&info, np.loaded, s->profile, s->policy_path);
    pthread_rwlock_wrlock(&s->lock);
    serve_policy old = s->pol;
    s->pol = np;
    s->info = info;
    pthread_rwlock_unlock(&s->lock);
    policy_free(&old);
    urisan_metrics_reload(&s->metrics, 1);
    char text[CLI_POLICY_INFO_TEXT];
    cli_policy_info_text(&info, text, sizeof text);
    logf_("policy reloaded; in force: %s", text);
    notify("READY=1\nSTATUS=policy reloaded");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* SIGTERM: stop accepting, answer what is in flight (every answer now
   says Connection: close), then stop. A second SIGTERM stops at once. */
static void drain(serve_state *s, struct MHD_Daemon *d, const sigset_t *set, long drain_s)
{
    notify("STOPPING=1");
    atomic_store(&s->draining, 1);
    MHD_socket lfd = MHD_quiesce_daemon(d);
    if (lfd != MHD_INVALID_SOCKET)
        close(lfd);
    double end = now_s() + (double)drain_s;
    while (atomic_load(&s->inflight) > 0 && now_s() < end) {
        struct timespec tick = { 0, 10 * 1000 * 1000 };
        int sig = sigtimedwait(set, NULL, &tick);
        if (sig == SIGTERM || sig == SIGINT)
            break;
        if (sig == SIGHUP)
            reload(s);
    }
    long left = atomic_load(&s->inflight);
    if (left > 0)
        logf_("stopping with %ld request(s) unanswered", left);
    MHD_stop_daemon(d);
    logf_("stopped after %lu answers", (unsigned long)atomic_load(&s->answered));
}

enum { O_LISTEN, O_POLICY, O_THREADS, O_TRUST, O_STRIP, O_MAXCONN, O_PERCLIENT,
       O_MAXHDR, O_IDLE, O_DRAIN, O_PROFILE, NOPT };

/* The numeric options, with their defaults. */
typedef struct {
    long threads, maxconn, perclient, maxhdr, idle, drain_s;
} serve_limits;

/* --trust and --strip-prefix into s; 0, or the usage error's status. */
static int read_trust(const cli_opt *opts, serve_state *s)
{
    serve_trust_default(&s->trust);
    s->trust_text = SERVE_TRUST_DEFAULT;
    if (opts[O_TRUST].seen) {
        const char *bad;
        size_t badlen;
        const char *v = opts[O_TRUST].value;
        if (!serve_trust_parse(v, strlen(v), &s->trust, &bad, &badlen))
            return cli_usage_error(CMD, "--trust: '%.*s' is not a source, or named twice "
                                   "(sources: original-url, original-uri, forwarded-uri, "
                                   "target)", (int)badlen, bad);
        s->trust_text = v;
    }
    if (opts[O_STRIP].seen) {
        const char *v = opts[O_STRIP].value;
        if (v[0] != '/' || strlen(v) < 2)
            return cli_usage_error(CMD, "--strip-prefix '%s': want a path such as /authz", v);
        s->trust.strip_prefix = v;
        s->trust.strip_len = strlen(v);
    }
    return 0;
}

/* The numeric options into l, each within its range; 0, or the usage
   error's status. */
static int read_limits(const cli_opt *opts, serve_limits *l)
{
    *l = (serve_limits){ .threads = 2, .maxconn = 1024, .perclient = -1, .maxhdr = 16384,
                         .idle = 30, .drain_s = 10 };
    struct { int opt; long lo, hi; long *out; } nums[] = {
        { O_THREADS, 1, 64, &l->threads },
        { O_MAXCONN, 1, 65536, &l->maxconn },
        { O_PERCLIENT, 0, 65536, &l->perclient },
        { O_MAXHDR, 1024, 1 << 20, &l->maxhdr },
        { O_IDLE, 1, 86400, &l->idle },
        { O_DRAIN, 0, 3600, &l->drain_s },
    };
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        const cli_opt *o = &opts[nums[i].opt];
        if (o->seen && !parse_count(o->value, nums[i].lo, nums[i].hi, nums[i].out))
            return cli_usage_error(CMD, "%s '%s': want a number from %ld to %ld", o->name,
                                   o->value, nums[i].lo, nums[i].hi);
    }
    if (l->perclient < 0)
        l->perclient = l->maxconn / 2 > 0 ? l->maxconn / 2 : 1;
    return 0;
}

/* libmicrohttpd on the listening socket lfd, with the limits l; NULL when
   it could not start (it logged why). */
static struct MHD_Daemon *start_daemon(serve_state *s, int lfd, const serve_limits *l)
{
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC |
                     MHD_USE_ERROR_LOG;
    struct MHD_OptionItem mopts[] = {
        { MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)mhd_logger, NULL },   /* first */
        { MHD_OPTION_LISTEN_SOCKET, lfd, NULL },
        { MHD_OPTION_CONNECTION_LIMIT, l->maxconn, NULL },
        { MHD_OPTION_PER_IP_CONNECTION_LIMIT, l->perclient, NULL },
        { MHD_OPTION_CONNECTION_TIMEOUT, l->idle, NULL },
        /* the request line and headers live in this per-connection pool,
           with the response's headers */
        { MHD_OPTION_CONNECTION_MEMORY_LIMIT, l->maxhdr + 4096, NULL },
        { MHD_OPTION_STRICT_FOR_CLIENT, 1, NULL },
        { MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)on_uri, s },
        { MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, s },
        { l->threads > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END, l->threads, NULL },
        { MHD_OPTION_END, 0, NULL },
    };
    return MHD_start_daemon(flags, 0, NULL, NULL, on_request, s,
                            MHD_OPTION_ARRAY, mopts, MHD_OPTION_END);
}

/* The start-up log line and the READY notification. */
static void announce(const serve_state *s, const serve_limits *l, const char *shown)
{
    char text[CLI_POLICY_INFO_TEXT];
    cli_policy_info_text(&s->info, text, sizeof text);
    logf_("policy in force: %s", text);
    logf_("listening on %s (trust %s%s%s; threads %ld, connections %ld, "
          "per client %ld, header bytes %ld, idle timeout %ld s)",
          shown, s->trust_text,
          s->trust.strip_prefix ? "; strip-prefix " : "",
          s->trust.strip_prefix ? s->trust.strip_prefix : "", l->threads, l->maxconn,
          l->perclient, l->maxhdr, l->idle);
    char status[INET6_ADDRSTRLEN + 64];
    snprintf(status, sizeof status, "READY=1\nSTATUS=listening on %s", shown);
    notify(status);
}

/* Signals go to the main thread only: block them before MHD starts its
   threads (they inherit the mask), then sigwait for them. */
static void block_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, set, NULL);
}

/* Until SIGTERM or SIGINT (then drain): SIGHUP reloads the policy. */
static void run_until_stopped(serve_state *s, struct MHD_Daemon *d, const sigset_t *set,
                              long drain_s)
{
    for (;;) {
        int sig = 0;
        if (sigwait(set, &sig) != 0)
            continue;
        if (sig == SIGHUP) {
            reload(s);
        } else if (sig == SIGTERM || sig == SIGINT) {
            logf_("%s: draining", sig == SIGTERM ? "SIGTERM" : "SIGINT");
            drain(s, d, set, drain_s);
            break;
        }
    }
}

int cmd_serve(int argc, char **argv)
{
    cli_opt opts[NOPT] = {
        [O_LISTEN] = { "--listen", true, NULL, false },
        [O_POLICY] = { "--policy", true, NULL, false },
        [O_THREADS] = { "--threads", true, NULL, false },
        [O_TRUST] = { "--trust", true, NULL, false },
        [O_STRIP] = { "--strip-prefix", true, NULL, false },
        [O_MAXCONN] = { "--max-connections", true, NULL, false },
        [O_PERCLIENT] = { "--max-per-client", true, NULL, false },
        [O_MAXHDR] = { "--max-header-bytes", true, NULL, false },
        [O_IDLE] = { "--idle-timeout", true, NULL, false },
        [O_DRAIN] = { "--drain-timeout", true, NULL, false },
        [O_PROFILE] = { "--profile", true, NULL, false },
    };
    int rc, nargs = cli_opts(CMD, argc, argv, opts, NOPT, &rc);
    if (nargs < 0)
        return rc;
    if (nargs != 0)
        return cli_usage_error(CMD, "takes no operands, got '%.200s'", argv[1]);

    static serve_state s;
    memset(&s, 0, sizeof s);
    s.policy_path = opts[O_POLICY].value;
    s.profile = opts[O_PROFILE].value;
    serve_limits l;
    if ((rc = read_trust(opts, &s)) != 0 || (rc = read_limits(opts, &l)) != 0)
        return rc;
    /* The rebuilt URI is at most two header values and a scheme. */
    s.uri_cap = (size_t)l.maxhdr * 2 + 64;

    if (!policy_load(&s, &s.pol))
        return CLI_EXIT_USAGE;
    cli_policy_info_make(&s.info, s.pol.loaded, s.profile, s.policy_path);
    pthread_rwlock_init(&s.lock, NULL);
    sigset_t set;
    block_signals(&set);

    char shown[INET6_ADDRSTRLEN + 16];
    int lfd = open_listener(opts[O_LISTEN].seen ? opts[O_LISTEN].value : SERVE_DEFAULT_LISTEN,
                            shown, sizeof shown);
    if (lfd < 0) {
        policy_free(&s.pol);
        return CLI_EXIT_USAGE;
    }
    struct MHD_Daemon *d = start_daemon(&s, lfd, &l);
    if (d == NULL) {
        close(lfd);
        policy_free(&s.pol);
        return cli_fail(CMD, "libmicrohttpd could not start (see above)");
    }
    announce(&s, &l, shown);
    run_until_stopped(&s, d, &set, l.drain_s);
    pthread_rwlock_destroy(&s.lock);
    policy_free(&s.pol);
    return CLI_EXIT_OK;
}
