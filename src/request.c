/*
 * request.c - the URI a gateway forwards, rebuilt from the parts of the
 * request it has (urisan.h, "A request as a gateway has it").
 *
 * The point of the rules below: the URI judged must be the one the
 * gateway forwards, byte for byte, and no part may move a byte from one
 * component into another. So values are copied, never decoded; a host
 * may not carry a delimiter that would end the authority early or start
 * a userinfo (RFC 3986 3.2: "/", "?", "#" end it, "@" splits userinfo
 * off; "\" is a delimiter to WHATWG parsers), nor a comma (RFC 9110 5.3:
 * a field that is a list; HAProxy takes the last element of
 * "Host: a,b" and the origin gets the whole); a path must be origin-form
 * (RFC 9112 3.2.1: absolute-path [ "?" query ]), so it cannot start an
 * authority of its own.
 *
 * libc only, no allocation, linear in the parts' lengths.
 */
#include "internal.h"

#include <string.h>

static const char *const header_names[URISAN_REQH_COUNT_] = {
#define URISAN_X_(U, name) name,
    URISAN_REQUEST_HEADER_LIST(URISAN_X_)
#undef URISAN_X_
};

static const char *const source_names[URISAN_REQSRC_COUNT_] = {
#define URISAN_X_(U, name) name,
    URISAN_REQUEST_SOURCE_LIST(URISAN_X_)
#undef URISAN_X_
};

static const char *const reason_names[URISAN_REQUEST_REASON_COUNT_] = {
#define URISAN_X_(U, name, v) [v] = name,
    URISAN_REQUEST_REASON_LIST(URISAN_X_)
#undef URISAN_X_
};

URISAN_API const char *urisan_request_header_name(urisan_request_header h)
{
    return (unsigned)h < URISAN_REQH_COUNT_ ? header_names[h] : "unknown";
}

URISAN_API const char *urisan_request_source_name(urisan_request_source s)
{
    return (unsigned)s < URISAN_REQSRC_COUNT_ ? source_names[s] : "unknown";
}

URISAN_API const char *urisan_request_reason_name(urisan_request_reason r)
{
    return (unsigned)r < URISAN_REQUEST_REASON_COUNT_ ? reason_names[r] : "unknown";
}

static unsigned char lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + ('a' - 'A')) : c;
}

static bool same_ci(const char *a, size_t alen, const char *b, size_t blen)
{
    if (alen != blen)
        return false;
    for (size_t i = 0; i < alen; i++) {
        if (lower((unsigned char)a[i]) != lower((unsigned char)b[i]))
            return false;
    }
    return true;
}

static bool same_word(const char *a, size_t alen, const char *lit)
{
    return same_ci(a, alen, lit, strlen(lit));
}

URISAN_API int urisan_request_header_id(const char *name, size_t len)
{
    if (name == NULL && len > 0)
        return -1;
    for (int i = 0; i < URISAN_REQH_COUNT_; i++) {
        if (same_word(name, len, header_names[i]))
            return i;
    }
    return -1;
}

URISAN_API void urisan_request_init(urisan_request *r)
{
    static const urisan_request empty = { 0 };
    *r = empty;   /* every field absent: p NULL, count 0 */
}

URISAN_API void urisan_request_add(urisan_request *r, const char *name, size_t nlen,
                                   const char *val, size_t vlen)
{
    int id = urisan_request_header_id(name, nlen);
    if (id < 0)
        return;
    urisan_request_field *v = &r->h[id];
    if (v->count == 0) {
        v->p = val != NULL ? val : "";
        v->len = val != NULL ? vlen : 0;
    }
    if (v->count < 2)
        v->count++;
}

URISAN_API void urisan_request_trust_init(urisan_request_trust *t)
{
    memset(t, 0, sizeof *t);
    t->order[0] = URISAN_REQSRC_TARGET;
    t->n = 1;
}

URISAN_API urisan_status urisan_request_trust_parse(const char *list, size_t len,
                                                    urisan_request_trust *t,
                                                    size_t *bad_off, size_t *bad_len)
{
    urisan_request_trust_init(t);
    t->n = 0;
    bool seen[URISAN_REQSRC_COUNT_] = { false };
    size_t i = 0;
    if (list == NULL)
        len = 0;
    for (;;) {
        size_t start = i;
        while (i < len && list[i] != ',')
            i++;
        int found = -1;
        for (int s = 0; s < URISAN_REQSRC_COUNT_; s++) {
            if (same_word(list + start, i - start, source_names[s]))
                found = s;
        }
        if (found < 0 || seen[found]) {
            *bad_off = start;
            *bad_len = i - start;
            urisan_request_trust_init(t);
            return URISAN_E_BAD_ARGUMENT;
        }
        seen[found] = true;
        t->order[t->n++] = (urisan_request_source)found;
        if (i >= len)
            return URISAN_OK;
        i++;   /* the comma */
    }
}

/* ---- the parts ---- */

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

/* A host field: uri-host [":" port] as bytes that stay in the authority
   (see the top of the file). */
static bool host_ok(const char *p, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c <= 0x20 || c == 0x7f || c == '/' || c == '?' || c == '#' ||
            c == '@' || c == '\\' || c == ',')
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

/* method = token; tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" /
   "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA (RFC 9110
   5.6.2, 9.1) */
static bool token_ok(const char *p, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        bool ok = (c >= '0' && c <= '9') || (lower(c) >= 'a' && lower(c) <= 'z') ||
                  (c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL);
        if (!ok)
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

/* The length of host[0..n) less a port that is the scheme's default
   (":80" for http and ws, ":443" for https and wss) or empty (RFC 3986
   6.2.3: "http://a:/" is "http://a/"). */
static size_t without_default_port(const char *h, size_t n, const char *s, size_t slen)
{
    size_t i = n;
    while (i > 0 && h[i - 1] >= '0' && h[i - 1] <= '9')
        i--;
    if (i == 0 || h[i - 1] != ':')
        return n;
    const char *port = h + i;
    size_t plen = n - i;
    bool tls = same_word(s, slen, "https") || same_word(s, slen, "wss");
    bool plain = same_word(s, slen, "http") || same_word(s, slen, "ws");
    if (plen == 0 || (plain && plen == 2 && memcmp(port, "80", 2) == 0) ||
        (tls && plen == 3 && memcmp(port, "443", 3) == 0))
        return i - 1;
    return n;
}

/* Is the authority of the absolute-form target p[0..n) (scheme
   p[0..slen)) the host field h? The authority runs from "//" to the first
   / ? # (RFC 3986 3.2); the Host has no "\" nor "@", so one that a
   WHATWG reader ends earlier at "\", or that holds a userinfo, is never
   the Host; no authority is never the Host either. */
static bool target_is_host(const char *p, size_t n, size_t slen, const char *h, size_t hlen)
{
    size_t i = slen + 1;
    if (n - i < 2 || p[i] != '/' || p[i + 1] != '/')
        return false;
    i += 2;
    size_t a = i;
    while (i < n && p[i] != '/' && p[i] != '?' && p[i] != '#')
        i++;
    size_t alen = without_default_port(p + a, i - a, p, slen);
    hlen = without_default_port(h, hlen, p, slen);
    return same_ci(p + a, alen, h, hlen);
}

/* The first present field of a and b (b may be -1), for a fallback. */
static const urisan_request_field *first_of(const urisan_request *r, int a, int b)
{
    if (a >= 0 && r->h[a].p != NULL)
        return &r->h[a];
    if (b >= 0 && r->h[b].p != NULL)
        return &r->h[b];
    return NULL;
}

/* scheme "://" host path: the scheme is given (the connection's), else
   the proto field's, else http. */
static urisan_request_reason compose(out_t *o, const char *scheme, size_t slen,
                                     const urisan_request_field *proto,
                                     const urisan_request_field *host,
                                     const char *path, size_t plen)
{
    if (host == NULL)
        return URISAN_REQUEST_NO_HOST;
    if (host->count > 1 || (scheme == NULL && proto != NULL && proto->count > 1))
        return URISAN_REQUEST_DUPLICATE;
    if (!host_ok(host->p, host->len))
        return URISAN_REQUEST_BAD_HOST;
    if (scheme == NULL && proto != NULL) {
        scheme = proto->p;
        slen = proto->len;
    }
    if (scheme != NULL && !scheme_ok(scheme, slen))
        return URISAN_REQUEST_BAD_PROTO;
    if (plen == 0 || path[0] != '/')
        return URISAN_REQUEST_BAD_PATH;
    if (scheme != NULL)
        put(o, scheme, slen);
    else
        put(o, "http", 4);
    put(o, "://", 3);
    put(o, host->p, host->len);
    put(o, path, plen);
    return o->over ? URISAN_REQUEST_TOO_LONG : URISAN_REQUEST_OK;
}

static urisan_request_reason from_target(const urisan_request *r,
                                         const urisan_request_trust *t, out_t *o)
{
    const char *p = r->target;
    size_t n = r->target_len;
    if (r->method != NULL) {
        if (!token_ok(r->method, r->method_len))
            return URISAN_REQUEST_BAD_METHOD;
        /* RFC 9110 9.3.6: CONNECT asks for a tunnel to host:port; what
           goes through it is no request the gateway sees. Any case: a
           method is case-sensitive, a reader may not be. */
        if (same_word(r->method, r->method_len, "CONNECT"))
            return URISAN_REQUEST_AUTHORITY_FORM;
    }
    /* RFC 9112 3.2.4: "*" is the server itself, no resource. */
    if (n == 1 && p[0] == '*')
        return URISAN_REQUEST_ASTERISK_FORM;
    const urisan_request_field *host = first_of(r, URISAN_REQH_HOST, -1);
    if (t->strip_prefix != NULL && t->strip_len > 0) {
        if (n < t->strip_len || memcmp(p, t->strip_prefix, t->strip_len) != 0)
            return URISAN_REQUEST_OUTSIDE_PREFIX;
        p += t->strip_len;
        n -= t->strip_len;
        if (n == 0)
            p = "/", n = 1;
    } else if (absolute_form(p, n)) {
        /* RFC 9112 3.2.2: the target's authority is the host; a Host
           that says another is where some reader goes instead. */
        if (host != NULL) {
            if (host->count > 1)
                return URISAN_REQUEST_DUPLICATE;
            if (!host_ok(host->p, host->len))
                return URISAN_REQUEST_BAD_HOST;
            size_t slen = (size_t)((const char *)memchr(p, ':', n) - p);
            if (!target_is_host(p, n, slen, host->p, host->len))
                return URISAN_REQUEST_HOST_MISMATCH;
        }
        put(o, p, n);
        return o->over ? URISAN_REQUEST_TOO_LONG : URISAN_REQUEST_OK;
    }
    return compose(o, r->scheme, r->scheme_len, first_of(r, URISAN_REQH_FORWARDED_PROTO, -1),
                   host, p, n);
}

/* The fields of each header source: the one whose presence selects it,
   then proto and host, each with a fallback (-1: none). The host has
   none: an authorization sub-request's own Host names the service as the
   gateway calls it, not the host the client asked for. */
static const struct {
    int uri, proto, proto_else, host;
} source_fields[URISAN_REQSRC_COUNT_] = {
    [URISAN_REQSRC_ORIGINAL_URL] = { URISAN_REQH_ORIGINAL_URL, -1, -1, -1 },
    [URISAN_REQSRC_ORIGINAL_URI] = { URISAN_REQH_ORIGINAL_URI, URISAN_REQH_ORIGINAL_PROTO,
                                     URISAN_REQH_FORWARDED_PROTO, URISAN_REQH_ORIGINAL_HOST },
    [URISAN_REQSRC_FORWARDED_URI] = { URISAN_REQH_FORWARDED_URI, URISAN_REQH_FORWARDED_PROTO,
                                      -1, URISAN_REQH_FORWARDED_HOST },
    [URISAN_REQSRC_TARGET] = { -1, -1, -1, -1 },   /* from_target() */
};

URISAN_API urisan_request_reason urisan_request_uri(const urisan_request *r,
                                                    const urisan_request_trust *t,
                                                    char *buf, size_t cap, size_t *len,
                                                    urisan_request_source *used)
{
    urisan_request_trust own;
    if (t == NULL) {
        urisan_request_trust_init(&own);
        t = &own;
    }
    out_t o = { buf, buf != NULL ? cap : 0, 0, false };
    urisan_request_reason st = URISAN_REQUEST_NO_SOURCE;
    *len = 0;
    for (size_t i = 0; i < t->n && i < URISAN_REQSRC_COUNT_; i++) {
        urisan_request_source s = t->order[i];
        if ((unsigned)s >= URISAN_REQSRC_COUNT_)
            continue;
        if (s == URISAN_REQSRC_TARGET) {
            if (r->target == NULL)
                continue;
            *used = s;
            st = from_target(r, t, &o);
            break;
        }
        const urisan_request_field *v = &r->h[source_fields[s].uri];
        if (v->p == NULL)
            continue;
        *used = s;
        if (v->count > 1)
            return URISAN_REQUEST_DUPLICATE;
        if (s == URISAN_REQSRC_ORIGINAL_URL) {   /* the whole URI, as is */
            put(&o, v->p, v->len);
            st = o.over ? URISAN_REQUEST_TOO_LONG : URISAN_REQUEST_OK;
        } else {
            st = compose(&o, NULL, 0,
                         first_of(r, source_fields[s].proto, source_fields[s].proto_else),
                         first_of(r, source_fields[s].host, -1), v->p, v->len);
        }
        break;
    }
    if (st == URISAN_REQUEST_OK)
        *len = o.len;
    return st;
}
