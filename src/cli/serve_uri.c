/*
 * serve_uri.c - rebuild the URI a gateway forwards from the headers of
 * its authorization sub-request, and judge it (serve_uri.h).
 *
 * The point of the rules below: the URI judged must be the one the
 * gateway forwards, byte for byte, and no header value may move a byte
 * from one component into another. So values are copied, never
 * decoded; a host may not carry a delimiter that would end the
 * authority early or start a userinfo (RFC 3986 3.2: "/", "?", "#" end
 * it, "@" splits userinfo off; "\" is a delimiter to WHATWG parsers);
 * a path must be origin-form (RFC 9112 3.2.1: absolute-path [ "?"
 * query ]), so it cannot start an authority of its own.
 */
#include "serve_uri.h"
#include "decide.h"

#include <string.h>

static const char *const header_names[SERVE_H_COUNT_] = {
#define SERVE_X_(U, name) name,
    SERVE_HEADER_LIST(SERVE_X_)
#undef SERVE_X_
};

static const char *const source_names[SERVE_SRC_COUNT_] = {
#define SERVE_X_(U, name) name,
    SERVE_SOURCE_LIST(SERVE_X_)
#undef SERVE_X_
};

static const char *const status_names[SERVE_URI_COUNT_] = {
#define SERVE_X_(U, name) name,
    SERVE_URI_STATUS_LIST(SERVE_X_)
#undef SERVE_X_
};

const char *serve_header_name(serve_header h)
{
    return (unsigned)h < SERVE_H_COUNT_ ? header_names[h] : "unknown";
}

const char *serve_source_name(serve_source s)
{
    return (unsigned)s < SERVE_SRC_COUNT_ ? source_names[s] : "unknown";
}

const char *serve_uri_status_name(serve_uri_status s)
{
    return (unsigned)s < SERVE_URI_COUNT_ ? status_names[s] : "unknown";
}

static unsigned char lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + ('a' - 'A')) : c;
}

static bool same_word(const char *a, size_t alen, const char *lit)
{
    size_t n = strlen(lit);
    if (alen != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (lower((unsigned char)a[i]) != lower((unsigned char)lit[i]))
            return false;
    }
    return true;
}

int serve_header_id(const char *name, size_t len)
{
    for (int i = 0; i < SERVE_H_COUNT_; i++) {
        if (same_word(name, len, header_names[i]))
            return i;
    }
    return -1;
}

void serve_request_init(serve_request *r)
{
    static const serve_request empty = { 0 };
    *r = empty;   /* every header absent: p NULL, count 0 */
}

void serve_request_add(serve_request *r, const char *name, size_t nlen,
                       const char *val, size_t vlen)
{
    int id = serve_header_id(name, nlen);
    if (id < 0)
        return;
    serve_value *v = &r->h[id];
    if (v->count == 0) {
        v->p = val != NULL ? val : "";
        v->len = val != NULL ? vlen : 0;
    }
    if (v->count < 2)
        v->count++;
}

void serve_trust_default(serve_trust *t)
{
    memset(t, 0, sizeof *t);
    t->order[0] = SERVE_SRC_ORIGINAL_URL;
    t->order[1] = SERVE_SRC_ORIGINAL_URI;
    t->order[2] = SERVE_SRC_FORWARDED_URI;
    t->order[3] = SERVE_SRC_TARGET;   /* unused: n is 3 */
    t->n = 3;
    t->strip_prefix = NULL;
}

bool serve_trust_parse(const char *list, size_t len, serve_trust *t,
                       const char **bad, size_t *badlen)
{
    serve_trust_default(t);
    t->n = 0;
    bool seen[SERVE_SRC_COUNT_] = { false };
    size_t i = 0;
    for (;;) {
        size_t start = i;
        while (i < len && list[i] != ',')
            i++;
        int found = -1;
        for (int s = 0; s < SERVE_SRC_COUNT_; s++) {
            if (same_word(list + start, i - start, source_names[s]))
                found = s;
        }
        if (found < 0 || seen[found]) {
            *bad = list + start;
            *badlen = i - start;
            return false;
        }
        seen[found] = true;
        t->order[t->n++] = (serve_source)found;
        if (i >= len)
            return true;
        i++;   /* the comma */
    }
}

/* ---- building ---- */

typedef struct {
    char *buf;
    size_t cap, len;
    bool over;
} out_t;

static void put(out_t *o, const char *p, size_t n)
{
    if (o->over || n > o->cap - o->len) {
        o->over = true;
        return;
    }
    if (n > 0)
        memcpy(o->buf + o->len, p, n);
    o->len += n;
}

/* A host value: authority bytes only, see the top of the file. */
static bool host_ok(const serve_value *v)
{
    if (v->len == 0)
        return false;
    for (size_t i = 0; i < v->len; i++) {
        unsigned char c = (unsigned char)v->p[i];
        if (c <= 0x20 || c == 0x7f || c == '/' || c == '?' || c == '#' ||
            c == '@' || c == '\\')
            return false;
    }
    return true;
}

/* scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )   (RFC 3986 3.1) */
static bool scheme_ok(const char *p, size_t n)
{
    if (n == 0 || n > 64)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = lower((unsigned char)p[i]);
        bool alpha = c >= 'a' && c <= 'z';
        if (!alpha && (i == 0 || !((c >= '0' && c <= '9') || c == '+' ||
                                   c == '-' || c == '.')))
            return false;
    }
    return true;
}

/* An absolute-form request-target starts with a scheme and ":". */
static bool absolute_form(const char *p, size_t n)
{
    const char *colon = n ? memchr(p, ':', n) : NULL;
    return colon != NULL && scheme_ok(p, (size_t)(colon - p));
}

/* The first present header of a and b (b may be -1), for a fallback. */
static const serve_value *first_of(const serve_request *r, int a, int b)
{
    if (r->h[a].p != NULL)
        return &r->h[a];
    if (b >= 0 && r->h[b].p != NULL)
        return &r->h[b];
    return NULL;
}

static serve_uri_status compose(out_t *o, const serve_value *proto,
                                const serve_value *host,
                                const char *path, size_t plen)
{
    if (host == NULL)
        return SERVE_URI_NO_HOST;
    if (host->count > 1 || (proto != NULL && proto->count > 1))
        return SERVE_URI_DUPLICATE;
    if (!host_ok(host))
        return SERVE_URI_BAD_HOST;
    if (proto != NULL && !scheme_ok(proto->p, proto->len))
        return SERVE_URI_BAD_PROTO;
    if (plen == 0 || path[0] != '/')
        return SERVE_URI_BAD_PATH;
    if (proto != NULL)
        put(o, proto->p, proto->len);
    else
        put(o, "http", 4);
    put(o, "://", 3);
    put(o, host->p, host->len);
    put(o, path, plen);
    return o->over ? SERVE_URI_TOO_LONG : SERVE_URI_OK;
}

static serve_uri_status from_target(const serve_request *r, const serve_trust *t,
                                    out_t *o)
{
    const char *p = r->target;
    size_t n = r->target_len;
    if (t->strip_prefix != NULL && t->strip_len > 0) {
        if (n < t->strip_len || memcmp(p, t->strip_prefix, t->strip_len) != 0)
            return SERVE_URI_OUTSIDE_PREFIX;
        p += t->strip_len;
        n -= t->strip_len;
        if (n == 0)
            p = "/", n = 1;
    } else if (absolute_form(p, n)) {
        put(o, p, n);
        return o->over ? SERVE_URI_TOO_LONG : SERVE_URI_OK;
    }
    return compose(o, first_of(r, SERVE_H_FORWARDED_PROTO, -1),
                   first_of(r, SERVE_H_HOST, -1), p, n);
}

/* The headers of each header source: the one whose presence selects
   it, then proto and host, each with a fallback (-1: none). The host
   has none: the sub-request's own Host names the service as the gateway
   calls it (nginx's upstream "urisan", HAProxy's 127.0.0.1:8181), not
   the host the client asked for. A gateway that knows no host (nginx's
   $host of an HTTP/1.0 request without Host) sends no host header, and
   the answer is no_host_header: never a judgement of the wrong host. */
static const struct {
    int uri, proto, proto_else, host, host_else;
} source_headers[SERVE_SRC_COUNT_] = {
    [SERVE_SRC_ORIGINAL_URL] = { SERVE_H_ORIGINAL_URL, -1, -1, -1, -1 },
    [SERVE_SRC_ORIGINAL_URI] = { SERVE_H_ORIGINAL_URI, SERVE_H_ORIGINAL_PROTO,
                                 SERVE_H_FORWARDED_PROTO, SERVE_H_ORIGINAL_HOST, -1 },
    [SERVE_SRC_FORWARDED_URI] = { SERVE_H_FORWARDED_URI, SERVE_H_FORWARDED_PROTO, -1,
                                  SERVE_H_FORWARDED_HOST, -1 },
    [SERVE_SRC_TARGET] = { -1, -1, -1, -1, -1 },   /* from_target() */
};

serve_uri_status serve_uri_build(const serve_request *r, const serve_trust *t,
                                 char *buf, size_t cap, size_t *len,
                                 serve_source *used)
{
    out_t o = { buf, cap, 0, false };
    serve_uri_status st = SERVE_URI_NO_SOURCE;
    *len = 0;
    for (size_t i = 0; i < t->n && i < SERVE_SRC_COUNT_; i++) {
        serve_source s = t->order[i];
        if ((unsigned)s >= SERVE_SRC_COUNT_)
            continue;
        if (s == SERVE_SRC_TARGET) {
            if (r->target == NULL)
                continue;
            *used = s;
            st = from_target(r, t, &o);
            break;
        }
        const serve_value *v = &r->h[source_headers[s].uri];
        if (v->p == NULL)
            continue;
        *used = s;
        if (v->count > 1)
            return SERVE_URI_DUPLICATE;
        if (s == SERVE_SRC_ORIGINAL_URL) {   /* the whole URI, as is */
            put(&o, v->p, v->len);
            st = o.over ? SERVE_URI_TOO_LONG : SERVE_URI_OK;
        } else {
            st = compose(&o, first_of(r, source_headers[s].proto, source_headers[s].proto_else),
                         first_of(r, source_headers[s].host, source_headers[s].host_else),
                         v->p, v->len);
        }
        break;
    }
    if (st == SERVE_URI_OK)
        *len = o.len;
    return st;
}

/* ---- the answer ---- */

typedef struct {
    char *p;
    size_t len;
} words_t;

/* Append a name to a comma-separated list of at most SERVE_REASONS_MAX
   - 1 bytes; every name fits (SERVE_REASONS_MAX is above the sum). */
static void add_word(words_t *w, const char *name)
{
    size_t n = strlen(name);
    if (w->len + n + 2 > SERVE_REASONS_MAX)
        return;
    if (w->len > 0)
        w->p[w->len++] = ',';
    memcpy(w->p + w->len, name, n);
    w->len += n;
    w->p[w->len] = '\0';
}

static void finish_words(words_t *w)
{
    if (w->len == 0) {
        w->p[0] = '-';
        w->p[1] = '\0';
    }
}

/* The names of the flags f, then of the rules, into the empty list w
   (urisan_reasons_format: the lists `urisan check` prints); every name
   fits (test_serve_uri: all of them). */
static void add_reasons(words_t *w, urisan_flags f, unsigned rules)
{
    size_t n = 0;
    if (w->len == 0 && urisan_reasons_format(f, rules, w->p, SERVE_REASONS_MAX, &n) == URISAN_OK)
        w->len = n;
}

/* The length of p's text (urisan_policy_format), measured only. */
static size_t policy_text_len(const urisan_policy *p)
{
    size_t n = 0;
    urisan_policy_format(p, NULL, 0, &n);
    return n;
}

bool serve_policy_make(serve_policy *sp, urisan_policy *loaded, urisan_policy *judge)
{
    /* A line the policy already holds leaves its text as it was: so each
       step tells whether the loaded policy said it. require-absolute
       changes no decision once require-authority is on (both give
       not_absolute); it is added only to learn whether not_absolute is
       the loaded policy's. */
    size_t line;
    const char *msg;
    size_t n0 = policy_text_len(loaded);
    memcpy(judge, loaded, urisan_policy_size());
    if (urisan_policy_parse(judge, "require-absolute\n", 17, &line, &msg) != URISAN_OK)
        return false;
    size_t n1 = policy_text_len(judge);
    if (urisan_policy_parse(judge, "require-authority\n", 18, &line, &msg) != URISAN_OK)
        return false;
    bool authority = policy_text_len(judge) != n1;
    sp->loaded = loaded;
    sp->judge = judge;
    sp->own_rules = 0;
    if (authority)
        sp->own_rules = 1u << URISAN_REASON_NO_AUTHORITY |
                        (n1 != n0 ? 1u << URISAN_REASON_NOT_ABSOLUTE : 0);
    return true;
}

void serve_decide(const serve_request *r, const serve_trust *t,
                  const serve_policy *sp, char *buf, size_t cap,
                  serve_answer *a)
{
    words_t deny = { a->deny, 0 }, flag = { a->flag, 0 };
    a->deny[0] = a->flag[0] = '\0';
    a->status = 403;
    a->verdict = URISAN_DENY;
    a->uri_len = 0;
    memset(&a->dec, 0, sizeof a->dec);
    a->own = NULL;
    a->explain = NULL;

    serve_source used = SERVE_SRC_TARGET;
    a->uri_status = serve_uri_build(r, t, buf, cap, &a->uri_len, &used);
    if (a->uri_status != SERVE_URI_OK) {
        add_word(&deny, a->own = serve_uri_status_name(a->uri_status));
    } else {
        urisan_uri uri;
        urisan_report rep;
        urisan_decision dec;
        memset(&dec, 0, sizeof dec);
        dec.verdict = URISAN_DENY;   /* fail closed if it were left unset */
        urisan_status st = cli_decide(buf, a->uri_len, sp->judge, &uri, &rep, &dec);
        if (st == URISAN_E_BAD_ARGUMENT || st == URISAN_E_NOSPACE ||
            st == URISAN_E_BAD_POLICY) {
            add_word(&deny, a->own = urisan_status_name(st));   /* could not judge */
        } else {
            a->verdict = dec.verdict;
            a->dec = dec;
            if (dec.verdict == URISAN_DENY)
                add_reasons(&deny, dec.deny_flags, dec.rules);
            if (dec.verdict != URISAN_ALLOW)
                add_reasons(&flag, dec.flag_flags, 0);
            if (a->verdict == URISAN_DENY && deny.len == 0)
                add_word(&deny, a->own = "denied");
        }
    }
    a->status = a->verdict == URISAN_DENY ? 403 : 200;
    finish_words(&deny);
    finish_words(&flag);
}
