/*
 * prescan.c - the limits of liburisan-mail checked before GMime parses
 * anything (issue 18): one linear pass over the raw lines of a message.
 *
 * GMime's parser (gmime-parser.c, GMime 3.2) does, per message:
 *  - a head (header block) at the start, after every line that is exactly
 *    "--" + the boundary of an enclosing multipart, and at the start of
 *    the content of a message/rfc822 part; a head runs to the first empty
 *    line, every line in it is a header field (a line without a colon
 *    becomes X-Invalid-Header) or folds onto the one before; each field is
 *    an allocation and a list entry, each parameter of a Content-Type or
 *    Content-Disposition field a GObject (issue 18 reproducer 3: 296 MB
 *    for 3.5 MB of "; a=b");
 *  - for every content line that starts with "--", a strncmp with the
 *    boundary of each enclosing multipart (reproducer 4 and deep-max of
 *    bench/mail_bench.c: 63 nested multiparts and a part of "--x" lines,
 *    ~60 compares per line, 17 MB/s).
 * This pass bounds each of those before GMime runs: fields per head,
 * bytes per field, parameters per field, parts (heads), multiparts (they
 * bound the nesting), parameters in all (GMime's cost per parameter,
 * ~3 us, times 64 per field and 1000 parts would be 0.2 s for 2.5 MB) and
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

void mail_pre_scan(const char *d, size_t n, const urisan_mail_limits *lim, mail_limit_hit *hit)
{
    pre p;
    p.nbounds = 0;
    p.any_dash = false;
    size_t i = 0, fields = 0, heads = 1, multiparts = 0, bwork = 0;
    size_t bbudget = lim->max_boundary_ratio > SIZE_MAX / 2 / (n + 1)
                         ? SIZE_MAX / 2
                         : lim->max_boundary_ratio * n + ((size_t)1 << 20);
    bool in_head = true, in_ct = false, ct_multipart = false, head_message = false;
    size_t field_start = 0, params = 0, all_params = 0;
    size_t params_budget = lim->max_params_total + n / 256;
    while (i < n && hit->limit < 0) {
        const char *nl = memchr(d + i, '\n', n - i);
        size_t e = nl ? (size_t)(nl - d) : n;
        size_t len = e - i;
        size_t lenr = len > 0 && d[e - 1] == '\r' ? len - 1 : len; /* GMime drops the CR */
        bool cont = len > 0 && (d[i] == ' ' || d[i] == '\t');
        if (!cont) {
            in_ct = false;
            field_start = i;
        }
        if (in_head) {
            if (lenr == 0) {
                /* the head ends; a message/rfc822 part's content is a head */
                in_head = head_message;
                head_message = false;
                fields = 0;
                i = e + 1;
                continue;
            }
            if (!cont && ++fields > lim->max_headers)
                mail_set_hit(hit, URISAN_MAIL_LIMIT_HEADERS, fields, lim->max_headers);
            if (e - field_start > lim->max_header_bytes)
                mail_set_hit(hit, URISAN_MAIL_LIMIT_HEADER_SIZE, e - field_start, lim->max_header_bytes);
        } else if (lenr >= 2 && d[i] == '-' && d[i + 1] == '-') {
            if (multiparts > 0) {
                /* GMime compares it with every enclosing boundary;
                   multiparts < max_depth here (the limit ends the loop) */
                bwork += (lenr + 16) * multiparts;
                if (bwork > bbudget)
                    mail_set_hit(hit, URISAN_MAIL_LIMIT_BOUNDARIES, bwork, bbudget);
            }
            if (opens_head(&p, d, i, lenr)) {
                in_head = true;
                fields = 0;
                if (++heads > lim->max_parts)
                    mail_set_hit(hit, URISAN_MAIL_LIMIT_PARTS, heads, lim->max_parts);
                i = e + 1;
                continue;
            }
        }
        /* Content-Type and Content-Disposition fields, in a head or not
           (one in a body only makes the counts larger) */
        if (!cont && (iprefix(d + i, len, "content-type:") ||
                      iprefix(d + i, len, "content-disposition:"))) {
            in_ct = true;
            ct_multipart = false;
            params = 0;
            if (iprefix(d + i, len, "content-type:")) {
                size_t v = i + 13, ve = i + lenr;
                while (v < ve && (d[v] == ' ' || d[v] == '\t'))
                    v++;
                /* GMime skips white space and comments, also across folded
                   lines, before the type: a value that is empty on this
                   line or starts with '(' or '"' may be multipart too */
                if (v >= ve || d[v] == '(' || d[v] == '"' || iprefix(d + v, ve - v, "multipart")) {
                    ct_multipart = true;
                    if (++multiparts >= lim->max_depth)
                        mail_set_hit(hit, URISAN_MAIL_LIMIT_DEPTH, multiparts, lim->max_depth);
                } else if (in_head && iprefix(d + v, e - v, "message/")) {
                    head_message = true;
                }
                if (!in_head && ++heads > lim->max_parts) /* declared in a body */
                    mail_set_hit(hit, URISAN_MAIL_LIMIT_PARTS, heads, lim->max_parts);
            }
        }
        if (in_ct) {
            size_t before = params;
            for (const char *q = d + i; (q = memchr(q, ';', (size_t)(d + e - q))) != NULL; q++)
                params++;
            all_params += params - before;
            if (params > lim->max_params)
                mail_set_hit(hit, URISAN_MAIL_LIMIT_PARAMS, params, lim->max_params);
            if (all_params > params_budget)
                mail_set_hit(hit, URISAN_MAIL_LIMIT_PARAMS_TOTAL, all_params, params_budget);
            if (e - field_start > lim->max_header_bytes)
                mail_set_hit(hit, URISAN_MAIL_LIMIT_HEADER_SIZE, e - field_start, lim->max_header_bytes);
            if (ct_multipart)
                read_boundaries(&p, d, i, i + lenr);
        }
        i = e + 1;
    }
}
