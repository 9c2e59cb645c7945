/*
 * css.c - the URLs of a style sheet (css.h), by the tokenizer of CSS
 * Syntax Level 3, section 4: comments (4.3.2), strings (4.3.5), escapes
 * (4.3.7), ident-like tokens and url tokens (4.3.4, 4.3.6).
 */
#include "css.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *s;
    size_t n;
    char *buf;           /* the decoded value of the token being read */
    size_t len, cap;
    css_url_fn fn;
    void *ctx;
    bool import;         /* after @import: the next string or url() */
    size_t depth;        /* open parentheses */
    size_t set_depth;    /* depth inside image-set(), 0: not in one */
    bool stop;
} css;

static bool is_hex(unsigned char c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}
static unsigned hexv(unsigned char c)
{
    return c <= '9' ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
}
static bool is_nl(unsigned char c) { return c == '\n' || c == '\r' || c == '\f'; }
static bool is_ws(unsigned char c) { return c == ' ' || c == '\t' || is_nl(c); }
static bool name_start(unsigned char c)
{
    return ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '_' || c >= 0x80 || c == 0;
}
static bool name_char(unsigned char c)
{
    return name_start(c) || (c >= '0' && c <= '9') || c == '-';
}
/* 4.3.8: a backslash that is not followed by a newline (or the end). */
static bool valid_escape(const css *c, size_t i)
{
    return i + 1 < c->n && c->s[i] == '\\' && !is_nl((unsigned char)c->s[i + 1]);
}

/* The decoded bytes always fit: the buffer is twice the style sheet's
   length + 8, and an escape decodes to at most 3/2 of its bytes ("\\0"
   is U+FFFD), a trailing backslash to 3. */
static void put(css *c, const char *p, size_t k)
{
    if (c->len + k <= c->cap) {
        memcpy(c->buf + c->len, p, k);
        c->len += k;
    }
}

size_t mail_utf8(uint32_t cp, char u[4])
{
    if (cp < 0x80) {
        u[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        u[0] = (char)(0xC0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        u[0] = (char)(0xE0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    u[0] = (char)(0xF0 | (cp >> 18));
    u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* 4.3.7: NUL, a surrogate or a number past U+10FFFF is U+FFFD. */
static void put_cp(css *c, uint32_t cp)
{
    char u[4];
    if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        cp = 0xFFFD;
    put(c, u, mail_utf8(cp, u));
}

/* 4.3.7: the escape at s[i] == '\\' (valid); returns the index after it. */
static size_t escape(css *c, size_t i)
{
    i++;
    if (i >= c->n) {
        put_cp(c, 0xFFFD);
        return i;
    }
    if (!is_hex((unsigned char)c->s[i])) {
        put(c, c->s + i, 1);
        return i + 1;
    }
    uint32_t v = 0;
    size_t k = 0;
    while (i < c->n && k < 6 && is_hex((unsigned char)c->s[i])) {
        v = v * 16 + hexv((unsigned char)c->s[i]);
        i++;
        k++;
    }
    if (i < c->n && is_ws((unsigned char)c->s[i])) {
        if (c->s[i] == '\r' && i + 1 < c->n && c->s[i + 1] == '\n')
            i++;
        i++;
    }
    put_cp(c, v);
    return i;
}

/* 4.3.11: a name (identifier characters and escapes) from i, decoded
   into buf; returns the index after it. */
static size_t name(css *c, size_t i)
{
    c->len = 0;
    while (i < c->n) {
        unsigned char b = (unsigned char)c->s[i];
        if (name_char(b)) {
            put(c, c->s + i, 1);
            i++;
        } else if (valid_escape(c, i)) {
            i = escape(c, i);
        } else {
            break;
        }
    }
    return i;
}

/* 4.3.5: the string whose quote is at s[i], decoded into buf; *ok false
   for a bad string (a newline inside). Returns the index after it. */
static size_t string(css *c, size_t i, bool *ok)
{
    char q = c->s[i++];
    c->len = 0;
    *ok = true;
    while (i < c->n) {
        unsigned char b = (unsigned char)c->s[i];
        if (b == (unsigned char)q)
            return i + 1;
        if (is_nl(b)) {
            *ok = false;
            return i;
        }
        if (b == '\\') {
            if (i + 1 < c->n && is_nl((unsigned char)c->s[i + 1])) {
                i += (c->s[i + 1] == '\r' && i + 2 < c->n && c->s[i + 2] == '\n') ? 3 : 2;
                continue;
            }
            i = escape(c, i);
            continue;
        }
        put(c, c->s + i, 1);
        i++;
    }
    return i; /* EOF ends a string (a parse error, not a bad string) */
}

static void emit(css *c, bool import, size_t off)
{
    if (!c->stop && !c->fn(c->ctx, import, off, c->buf, c->len))
        c->stop = true;
}

/* 4.3.6: the url token after "url(" at s[i] (white space skipped by the
   caller's check); returns the index after it. A bad url is no URL. */
static size_t url_token(css *c, size_t i, size_t off)
{
    c->len = 0;
    while (i < c->n) {
        unsigned char b = (unsigned char)c->s[i];
        if (b == ')') {
            emit(c, c->import, off);
            c->import = false;
            return i + 1;
        }
        if (is_ws(b)) {
            while (i < c->n && is_ws((unsigned char)c->s[i]))
                i++;
            if (i >= c->n || c->s[i] == ')') {
                emit(c, c->import, off);
                c->import = false;
                return i < c->n ? i + 1 : i;
            }
            break; /* bad url */
        }
        if (b == '"' || b == '\'' || b == '(' || b < 0x09 || b == 0x0B || (b >= 0x0E && b < 0x20) ||
            b == 0x7F)
            break;
        if (b == '\\') {
            if (!valid_escape(c, i))
                break;
            i = escape(c, i);
            continue;
        }
        put(c, c->s + i, 1);
        i++;
    }
    if (i >= c->n) { /* EOF ends a url token */
        emit(c, c->import, off);
        c->import = false;
        return i;
    }
    /* 4.3.14: the remnants of a bad url */
    while (i < c->n && c->s[i] != ')')
        i += valid_escape(c, i) ? 2 : 1;
    c->import = false;
    return i < c->n ? i + 1 : i;
}

static bool ieq(const char *s, size_t n, const char *lit)
{
    size_t i = 0;
    for (; i < n; i++) {
        unsigned char b = (unsigned char)s[i];
        if (b >= 'A' && b <= 'Z')
            b = (unsigned char)(b | 0x20);
        if (lit[i] == '\0' || b != (unsigned char)lit[i])
            return false;
    }
    return lit[i] == '\0';
}

/* An ident-like token at s[i] (4.3.4); returns the index after it. */
static size_t ident_like(css *c, size_t i)
{
    size_t start = i;
    i = name(c, i);
    if (i < c->n && c->s[i] == '(') {
        if (ieq(c->buf, c->len, "url")) {
            size_t j = i + 1;
            while (j < c->n && is_ws((unsigned char)c->s[j]))
                j++;
            if (j < c->n && (c->s[j] == '"' || c->s[j] == '\''))
                goto function; /* url("x"): a function; its string is the URL */
            return url_token(c, j, start);
        }
        if (ieq(c->buf, c->len, "image-set") || ieq(c->buf, c->len, "-webkit-image-set")) {
            c->depth++;
            c->set_depth = c->depth;
            c->import = false;
            return i + 1;
        }
        c->depth++;
        c->import = c->import && ieq(c->buf, c->len, "url");
        return i + 1;
    function:
        c->depth++;
        c->set_depth = c->set_depth ? c->set_depth : c->depth; /* its string is a URL */
        return i + 1;
    }
    c->import = false;
    return i;
}

/* The token at s[i]; returns the index after it. */
static size_t token(css *c, size_t i)
{
    const char *s = c->s;
    unsigned char b = (unsigned char)s[i];
    if (b == '/' && i + 1 < c->n && s[i + 1] == '*') {
        const char *e = NULL;
        for (size_t k = i + 2; k + 1 < c->n; k++)
            if (s[k] == '*' && s[k + 1] == '/') {
                e = s + k;
                break;
            }
        return e ? (size_t)(e - s) + 2 : c->n;
    }
    if (b == '"' || b == '\'') {
        bool ok;
        size_t j = string(c, i, &ok);
        if (ok && (c->import || (c->set_depth != 0 && c->depth == c->set_depth)))
            emit(c, c->import, i);
        c->import = false;
        return j;
    }
    if (name_start(b) || (b == '-' && i + 1 < c->n &&
                          (name_start((unsigned char)s[i + 1]) || s[i + 1] == '-' ||
                           valid_escape(c, i + 1))) ||
        valid_escape(c, i))
        return ident_like(c, i);
    if (b == '@' && i + 1 < c->n && (name_char((unsigned char)s[i + 1]) || valid_escape(c, i + 1))) {
        size_t j = name(c, i + 1);
        c->import = ieq(c->buf, c->len, "import");
        return j;
    }
    if (b == '(') {
        c->depth++;
    } else if (b == ')') {
        if (c->depth > 0)
            c->depth--;
        if (c->depth < c->set_depth)
            c->set_depth = 0;
    } else if (b == ';' || b == '{' || b == '}') {
        c->import = false;
    } else if (b == '-' && i + 1 < c->n && (s[i + 1] >= '0' && s[i + 1] <= '9')) {
        c->import = false;
    }
    return i + 1;
}

bool css_scan(const char *s, size_t n, css_url_fn fn, void *ctx)
{
    css c;
    memset(&c, 0, sizeof c);
    c.s = s;
    c.n = n;
    c.fn = fn;
    c.ctx = ctx;
    c.cap = 2 * n + 8;
    c.buf = malloc(c.cap);
    if (c.buf == NULL)
        return false;
    size_t i = 0;
    while (i < n && !c.stop) {
        unsigned char b = (unsigned char)s[i];
        if (is_ws(b)) {
            i++;
            continue;
        }
        i = token(&c, i);
    }
    free(c.buf);
    return !c.stop;
}
