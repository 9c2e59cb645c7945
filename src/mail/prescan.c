/*
 * prescan.c - the limits of liburisan-mail checked before GMime parses
 * anything: one linear pass over the raw lines of a message.
 *
 * GMime's parser (gmime-parser.c, GMime 3.2) does, per message:
 *  - a head (header block) at the start, after every line that is exactly
 *    "--" + the boundary of an enclosing multipart, and at the start of
 *    the content of a message/rfc822 part; a head runs to the first empty
 *    line, every line in it is a header field (a line without a colon
 *    becomes X-Invalid-Header) or folds onto the one before; each field is
 *    an allocation and a list entry, each parameter of a Content-Type or
 *    Content-Disposition field a GObject (hundreds of megabytes for a few
 *    of "; a=b");
 *  - for every content line that starts with "--", a strncmp with the
 *    boundary of each enclosing multipart (deep-max of bench/mail_bench.c:
 *    63 nested multiparts and a part of "--x" lines, a compare with each
 *    per line).
 * This pass bounds each of those before GMime runs: fields per head,
 * bytes per field, parameters per field, parts (heads), multiparts (they
 * bound the nesting), parameters in all (GMime's cost per parameter times
 * 64 per field and 1000 parts is a fraction of a second for a few MB) and
 * the boundary work, each an upper bound of what GMime will do.
 *
 * Heads are found as GMime finds them: the boundaries are read from the
 * boundary= parameter of every multipart Content-Type field (quoted or
 * token; in a body too, which only adds boundaries). A boundary value this
 * pass cannot read exactly as GMime would (RFC 2231 "boundary*", a
 * backslash, a character outside RFC 2046 bchars, an unclosed quote)
 * turns every later "--" line into a head: an upper bound, never fewer.
 */
#include "mail_internal.h"

#include <stdint.h>
#include <string.h>

#include <glib.h>

#define MAX_BOUNDS 64

typedef struct {
    size_t off, len;
} span;

typedef struct {
    span bounds[MAX_BOUNDS];
    size_t nbounds;
    bool any_dash; /* a boundary not read exactly: every "--" line opens a head */
} pre;

void mail_set_hit(mail_limit_hit *hit, urisan_mail_limit l, size_t value, size_t max)
{
    if (hit->limit < 0) {
        hit->limit = (int)l;
        hit->value = value;
        hit->max = max;
    }
}

static bool iprefix(const char *s, size_t n, const char *lit)
{
    size_t l = strlen(lit);
    return n >= l && g_ascii_strncasecmp(s, lit, l) == 0;
}

/* RFC 2046 5.1.1: bchars := bcharsnospace / " " */
static bool is_bchar(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           strchr("'()+_,-./:=? ", c) != NULL;
}

/* The boundary= parameters on one line of a multipart Content-Type field
   (d[i..e), no line end). */
static void read_boundaries(pre *p, const char *d, size_t i, size_t e)
{
    size_t k = i;
    while (k + 8 <= e) {
        const char *q = memchr(d + k, 'b', e - k);
        const char *Q = memchr(d + k, 'B', e - k);
        if (q == NULL || (Q != NULL && Q < q))
            q = Q;
        if (q == NULL || (size_t)(q - d) + 8 > e)
            return;
        size_t at = (size_t)(q - d);
        k = at + 1;
        if (g_ascii_strncasecmp(d + at, "boundary", 8) != 0)
            continue;
        /* a parameter name: after ';', ':' or white space */
        unsigned char before = at > i ? (unsigned char)d[at - 1] : (unsigned char)';';
        if (before != ';' && before != ':' && before != ' ' && before != '\t')
            continue;
        size_t v = at + 8;
        while (v < e && (d[v] == ' ' || d[v] == '\t'))
            v++;
        if (v < e && d[v] == '*') { /* RFC 2231: decoded by GMime */
            p->any_dash = true;
            return;
        }
        if (v >= e || d[v] != '=')
            continue;
        v++;
        while (v < e && (d[v] == ' ' || d[v] == '\t'))
            v++;
        size_t start, end;
        if (v < e && d[v] == '"') {
            start = ++v;
            while (v < e && d[v] != '"' && d[v] != '\\')
                v++;
            if (v >= e || d[v] != '"') { /* escaped or folded: not exact */
                p->any_dash = true;
                return;
            }
            end = v;
        } else {
            start = v;
            while (v < e && d[v] != ';' && d[v] != ' ' && d[v] != '\t' && d[v] != '\r')
                v++;
            end = v;
        }
        /* GMime decodes RFC 2047 words in parameters ("=?"): not exact */
        bool exact = end > start && p->nbounds < MAX_BOUNDS && d[end - 1] != ' ' &&
                     g_strstr_len(d + start, (gssize)(end - start), "=?") == NULL;
        for (size_t c = start; exact && c < end; c++)
            exact = is_bchar((unsigned char)d[c]);
        if (!exact) {
            p->any_dash = true;
            return;
        }
        p->bounds[p->nbounds].off = start;
        p->bounds[p->nbounds].len = end - start;
        p->nbounds++;
        k = end;
    }
}

/* d[i..i+n) (no line end) is "--" + a boundary read so far: GMime's
   FOUND_BOUNDARY test (exact length; the closing "--b--" opens no head). */
static bool opens_head(const pre *p, const char *d, size_t i, size_t n)
{
    if (p->any_dash)
        return true;
    for (size_t b = 0; b < p->nbounds; b++)
        if (n == 2 + p->bounds[b].len && memcmp(d + i + 2, d + p->bounds[b].off, n - 2) == 0)
            return true;
    return false;
}

/* The pass over one message: where it is and what it has counted. */
typedef struct {
    pre p;
    const char *d;
    const urisan_mail_limits *lim;
    mail_limit_hit *hit;
    size_t fields, heads, multiparts, bwork, bbudget;
    bool in_head, in_ct, ct_multipart, head_message;
    size_t field_start, params, all_params, params_budget;
} prescan;

/* One raw line d[i..e) (no '\n'): len its bytes, lenr without a final CR
   (GMime drops the CR), cont when it folds onto the field before. */
typedef struct {
    size_t i, e, len, lenr;
    bool cont;
} raw_line;

static void prescan_init(prescan *s, const char *d, size_t n, const urisan_mail_limits *lim,
                         mail_limit_hit *hit)
{
    s->p.nbounds = 0;
    s->p.any_dash = false;
    s->d = d;
    s->lim = lim;
    s->hit = hit;
    s->fields = 0;
    s->heads = 1;
    s->multiparts = 0;
    s->bwork = 0;
    s->bbudget = lim->max_boundary_ratio > SIZE_MAX / 2 / (n + 1)
                     ? SIZE_MAX / 2
                     : lim->max_boundary_ratio * n + ((size_t)1 << 20);
    s->in_head = true;
    s->in_ct = false;
    s->ct_multipart = false;
    s->head_message = false;
    s->field_start = 0;
    s->params = 0;
    s->all_params = 0;
    s->params_budget = lim->max_params_total + n / 256;
}

/* A line in a head: true when it is the empty line that ends it. */
static bool head_line(prescan *s, const raw_line *l)
{
    if (l->lenr == 0) {
        /* the head ends; a message/rfc822 part's content is a head */
        s->in_head = s->head_message;
        s->head_message = false;
        s->fields = 0;
        return true;
    }
    if (!l->cont && ++s->fields > s->lim->max_headers)
        mail_set_hit(s->hit, URISAN_MAIL_LIMIT_HEADERS, s->fields, s->lim->max_headers);
    if (l->e - s->field_start > s->lim->max_header_bytes)
        mail_set_hit(s->hit, URISAN_MAIL_LIMIT_HEADER_SIZE, l->e - s->field_start,
                     s->lim->max_header_bytes);
    return false;
}

/* A "--" line in a body: the boundary work it costs GMime; true when it
   opens a head. */
static bool dash_line(prescan *s, const raw_line *l)
{
    if (s->multiparts > 0) {
        /* GMime compares it with every enclosing boundary;
           multiparts < max_depth here (the limit ends the loop) */
        s->bwork += (l->lenr + 16) * s->multiparts;
        if (s->bwork > s->bbudget)
            mail_set_hit(s->hit, URISAN_MAIL_LIMIT_BOUNDARIES, s->bwork, s->bbudget);
    }
    if (!opens_head(&s->p, s->d, l->i, l->lenr))
        return false;
    s->in_head = true;
    s->fields = 0;
    if (++s->heads > s->lim->max_parts)
        mail_set_hit(s->hit, URISAN_MAIL_LIMIT_PARTS, s->heads, s->lim->max_parts);
    return true;
}

/* The first line of a Content-Type or Content-Disposition field, in a
   head or not (one in a body only makes the counts larger). */
static void content_field(prescan *s, const raw_line *l)
{
    const char *d = s->d;
    size_t i = l->i, e = l->e;
    s->in_ct = true;
    s->ct_multipart = false;
    s->params = 0;
    if (!iprefix(d + i, l->len, "content-type:"))
        return;
    size_t v = i + 13, ve = i + l->lenr;
    while (v < ve && (d[v] == ' ' || d[v] == '\t'))
        v++;
    /* GMime skips white space and comments, also across folded
       lines, before the type: a value that is empty on this
       line or starts with '(' or '"' may be multipart too */
    if (v >= ve || d[v] == '(' || d[v] == '"' || iprefix(d + v, ve - v, "multipart")) {
        s->ct_multipart = true;
        if (++s->multiparts >= s->lim->max_depth)
            mail_set_hit(s->hit, URISAN_MAIL_LIMIT_DEPTH, s->multiparts, s->lim->max_depth);
    } else if (s->in_head && iprefix(d + v, e - v, "message/")) {
        s->head_message = true;
    }
    if (!s->in_head && ++s->heads > s->lim->max_parts) /* declared in a body */
        mail_set_hit(s->hit, URISAN_MAIL_LIMIT_PARTS, s->heads, s->lim->max_parts);
}

/* A line of a Content-Type or Content-Disposition field: its parameters,
   its size, a multipart's boundaries. */
static void content_field_line(prescan *s, const raw_line *l)
{
    const char *d = s->d;
    size_t e = l->e;
    size_t before = s->params;
    for (const char *q = d + l->i; (q = memchr(q, ';', (size_t)(d + e - q))) != NULL; q++)
        s->params++;
    s->all_params += s->params - before;
    if (s->params > s->lim->max_params)
        mail_set_hit(s->hit, URISAN_MAIL_LIMIT_PARAMS, s->params, s->lim->max_params);
    if (s->all_params > s->params_budget)
        mail_set_hit(s->hit, URISAN_MAIL_LIMIT_PARAMS_TOTAL, s->all_params, s->params_budget);
    if (e - s->field_start > s->lim->max_header_bytes)
        mail_set_hit(s->hit, URISAN_MAIL_LIMIT_HEADER_SIZE, e - s->field_start,
                     s->lim->max_header_bytes);
    if (s->ct_multipart)
        read_boundaries(&s->p, d, l->i, l->i + l->lenr);
}

void mail_pre_scan(const char *d, size_t n, const urisan_mail_limits *lim, mail_limit_hit *hit)
{
    prescan s;
    prescan_init(&s, d, n, lim, hit);
    size_t i = 0;
    while (i < n && hit->limit < 0) {
        const char *nl = memchr(d + i, '\n', n - i);
        raw_line l;
        l.i = i;
        l.e = nl ? (size_t)(nl - d) : n;
        l.len = l.e - i;
        l.lenr = l.len > 0 && d[l.e - 1] == '\r' ? l.len - 1 : l.len;
        l.cont = l.len > 0 && (d[i] == ' ' || d[i] == '\t');
        if (!l.cont) {
            s.in_ct = false;
            s.field_start = i;
        }
        bool boundary = s.in_head ? head_line(&s, &l)
                                  : l.lenr >= 2 && d[i] == '-' && d[i + 1] == '-' &&
                                        dash_line(&s, &l);
        if (!boundary) {
            if (!l.cont && (iprefix(d + i, l.len, "content-type:") ||
                            iprefix(d + i, l.len, "content-disposition:")))
                content_field(&s, &l);
            if (s.in_ct)
                content_field_line(&s, &l);
        }
        i = l.e + 1;
    }
}
