/*
 * html.c - href/src attributes and link texts of an HTML mail part
 * (SPEC section 6: "a scanner sees what the reader's client will open").
 *
 * The references are the HTML standard's tokenizer (13.2.5) for what a
 * tag, an attribute and a comment are, and its character reference
 * states (13.2.5.72-80) for entities. Only what decides which URL a
 * client opens is kept; everything else is skipped in one pass.
 */
#include "html.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- bytes ---- */

static bool is_space(unsigned char c)
{
    /* HTML "ASCII whitespace": TAB LF FF CR SP */
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

static bool is_alpha(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static bool is_alnum(unsigned char c) { return is_alpha(c) || is_digit(c); }
static unsigned char lower(unsigned char c) { return (c >= 'A' && c <= 'Z') ? (unsigned char)(c | 0x20) : c; }

/* s[0..n) equals the lower-case literal, ignoring ASCII case. */
static bool ieq(const char *s, size_t n, const char *lit)
{
    size_t i = 0;
    for (; i < n; i++)
        if (lit[i] == '\0' || lower((unsigned char)s[i]) != (unsigned char)lit[i])
            return false;
    return lit[i] == '\0';
}

/* ---- bounded buffers ---- */

void html_doc_init(html_doc *d, size_t max)
{
    memset(d, 0, sizeof *d);
    d->max = max;
}

void html_doc_free(html_doc *d)
{
    free(d->links);
    free(d->text.p);
    free(d->disp.p);
    memset(d, 0, sizeof *d);
}

static bool buf_add(html_doc *d, html_buf *b, const char *s, size_t n)
{
    if (d->failed)
        return false;
    if (n > d->max - b->len) {
        d->failed = true;
        return false;
    }
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap = cap > d->max / 2 ? d->max : cap * 2;
        char *p = realloc(b->p, cap);
        if (p == NULL) {
            d->failed = true;
            return false;
        }
        b->p = p;
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    return true;
}

static bool put_cp(html_doc *d, html_buf *b, uint32_t cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        u[0] = (char)(0xF0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return buf_add(d, b, u, n);
}

/* ---- character references (HTML 13.2.5.72-80) ---- */

/* Numeric references to 0x80-0x9F mean windows-1252 (13.2.5.80). */
static const uint16_t c1_map[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
    0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
    0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
};

typedef struct {
    const char *name;   /* case-sensitive, without '&' and ';' */
    uint32_t cp;
    bool legacy;        /* also recognised without ';' */
} entity;

/* The named references that spell URL punctuation (an obfuscator's
   favourites: "javascript&colon;", "&sol;&sol;"), the legacy ones, and
   common text ones. Unknown names stay as written, which is what a
   browser does with them. */
static const entity entities[] = {
    {"amp", '&', true}, {"AMP", '&', true}, {"lt", '<', true}, {"LT", '<', true},
    {"gt", '>', true}, {"GT", '>', true}, {"quot", '"', true}, {"QUOT", '"', true},
    {"nbsp", 0xA0, true}, {"copy", 0xA9, true}, {"COPY", 0xA9, true},
    {"reg", 0xAE, true}, {"REG", 0xAE, true}, {"shy", 0xAD, true},
    {"laquo", 0xAB, true}, {"raquo", 0xBB, true}, {"middot", 0xB7, true},
    {"apos", '\'', false}, {"sol", '/', false}, {"bsol", '\\', false},
    {"colon", ':', false}, {"semi", ';', false}, {"comma", ',', false},
    {"period", '.', false}, {"excl", '!', false}, {"quest", '?', false},
    {"num", '#', false}, {"dollar", '$', false}, {"percnt", '%', false},
    {"lpar", '(', false}, {"rpar", ')', false}, {"lsqb", '[', false},
    {"rsqb", ']', false}, {"lbrack", '[', false}, {"rbrack", ']', false},
    {"lcub", '{', false}, {"rcub", '}', false}, {"lbrace", '{', false},
    {"rbrace", '}', false}, {"equals", '=', false}, {"plus", '+', false},
    {"commat", '@', false}, {"Tab", '\t', false}, {"NewLine", '\n', false},
    {"ast", '*', false}, {"midast", '*', false}, {"grave", '`', false},
    {"Hat", '^', false}, {"verbar", '|', false}, {"vert", '|', false},
    {"VerticalLine", '|', false}, {"lowbar", '_', false}, {"UnderBar", '_', false},
    {"hyphen", 0x2010, false}, {"dash", 0x2010, false}, {"ndash", 0x2013, false},
    {"mdash", 0x2014, false}, {"lsquo", 0x2018, false}, {"rsquo", 0x2019, false},
    {"ldquo", 0x201C, false}, {"rdquo", 0x201D, false}, {"hellip", 0x2026, false},
    {"bull", 0x2022, false}, {"trade", 0x2122, false}, {"euro", 0x20AC, false},
    {"ensp", 0x2002, false}, {"emsp", 0x2003, false}, {"thinsp", 0x2009, false},
    {"zwnj", 0x200C, false}, {"zwj", 0x200D, false}, {"lrm", 0x200E, false},
    {"rlm", 0x200F, false}, {"tilde", 0x02DC, false},
};

#define NENTITIES (sizeof entities / sizeof entities[0])
#define ENTITY_NAME_MAX 32

static const entity *entity_exact(const char *s, size_t n)
{
    for (size_t k = 0; k < NENTITIES; k++)
        if (strlen(entities[k].name) == n && memcmp(entities[k].name, s, n) == 0)
            return &entities[k];
    return NULL;
}

/* Longest legacy name that is a prefix of s[0..n). */
static const entity *entity_legacy_prefix(const char *s, size_t n, size_t *used)
{
    const entity *best = NULL;
    for (size_t k = 0; k < NENTITIES; k++) {
        size_t l = strlen(entities[k].name);
        if (entities[k].legacy && l <= n && memcmp(entities[k].name, s, l) == 0 &&
            (best == NULL || l > *used)) {
            best = &entities[k];
            *used = l;
        }
    }
    return best;
}

/* Decode the reference at s[i] == '&'; *adv: bytes consumed. Returns false
   when the bytes stay as written (the caller copies the '&'). */
static bool char_ref(html_doc *d, html_buf *b, const char *s, size_t n, size_t i,
                     bool in_attr, size_t *adv)
{
    size_t p = i + 1;
    if (p < n && s[p] == '#') {
        p++;
        bool hex = p < n && (s[p] == 'x' || s[p] == 'X');
        if (hex)
            p++;
        size_t start = p;
        uint32_t v = 0;
        while (p < n && (hex ? (is_digit((unsigned char)s[p]) ||
                                ((unsigned char)(s[p] | 0x20) >= 'a' && (unsigned char)(s[p] | 0x20) <= 'f'))
                             : is_digit((unsigned char)s[p]))) {
            unsigned dv = is_digit((unsigned char)s[p]) ? (unsigned)(s[p] - '0')
                                                        : (unsigned)((s[p] | 0x20) - 'a' + 10);
            v = v * (hex ? 16u : 10u) + dv;
            if (v > 0x10FFFF)
                v = 0x110000; /* saturate: any longer number is out of range */
            p++;
        }
        if (p == start)
            return false; /* "&#" or "&#x" without digits: as written */
        if (p < n && s[p] == ';')
            p++;
        if (v == 0 || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
            v = 0xFFFD;
        else if (v >= 0x80 && v <= 0x9F)
            v = c1_map[v - 0x80];
        *adv = p - i;
        put_cp(d, b, v);
        return true;
    }
    size_t q = p;
    while (q < n && q - p <= ENTITY_NAME_MAX && is_alnum((unsigned char)s[q]))
        q++;
    if (q == p)
        return false;
    if (q < n && s[q] == ';') {
        const entity *e = entity_exact(s + p, q - p);
        if (e) {
            *adv = q + 1 - i;
            put_cp(d, b, e->cp);
            return true;
        }
    }
    size_t used = 0;
    const entity *e = entity_legacy_prefix(s + p, q - p, &used);
    if (e == NULL)
        return false;
    size_t after = p + used;
    /* 13.2.5.73: in an attribute, "&amp=" or "&ampx" stays as written. */
    if (in_attr && after < n && (s[after] == '=' || is_alnum((unsigned char)s[after])))
        return false;
    *adv = after - i;
    put_cp(d, b, e->cp);
    return true;
}

static bool decode_into(html_doc *d, html_buf *b, const char *s, size_t n, bool in_attr)
{
    size_t i = 0;
    while (i < n && !d->failed) {
        const char *amp = memchr(s + i, '&', n - i);
        size_t j = amp ? (size_t)(amp - s) : n;
        buf_add(d, b, s + i, j - i);
        i = j;
        if (i >= n)
            break;
        size_t adv = 0;
        if (char_ref(d, b, s, n, i, in_attr, &adv)) {
            i += adv;
        } else {
            buf_add(d, b, "&", 1);
            i++;
        }
    }
    return !d->failed;
}

bool html_decode(html_doc *d, const char *s, size_t n, bool in_attr)
{
    return decode_into(d, &d->text, s, n, in_attr);
}

/* ---- the scan ---- */

typedef struct {
    html_doc *d;
    const char *h;
    size_t n;
    bool pending;        /* an <a href> whose text is being collected */
    size_t pending_link;
    size_t disp_start;   /* where its text starts in d->disp */
} scan;

static bool add_link(scan *s, html_attr attr, size_t voff, const char *v, size_t vlen)
{
    html_doc *d = s->d;
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 16;
        if (cap > d->max / sizeof(html_link)) {
            d->failed = true;
            return false;
        }
        html_link *l = realloc(d->links, cap * sizeof *l);
        if (l == NULL) {
            d->failed = true;
            return false;
        }
        d->links = l;
        d->cap = cap;
    }
    size_t start = d->text.len;
    if (!decode_into(d, &d->text, v, vlen, true))
        return false;
    /* URL parsing strips leading and trailing C0 controls and space
       (WHATWG URL, basic parser step 1); HTML trims ASCII white space. */
    size_t a = start, e = d->text.len;
    while (a < e && (unsigned char)d->text.p[a] <= 0x20)
        a++;
    while (e > a && (unsigned char)d->text.p[e - 1] <= 0x20)
        e--;
    html_link *l = &d->links[d->n++];
    l->attr = attr;
    l->off = voff;
    l->url = a;
    l->url_len = e - a;
    l->has_display = false;
    l->display = 0;
    l->display_len = 0;
    return true;
}

/* Close the pending <a>: collapse white space, trim, bound the length. */
static void finish_display(scan *s)
{
    if (!s->pending)
        return;
    html_doc *d = s->d;
    s->pending = false;
    if (d->failed)
        return;
    char *p = d->disp.p;
    size_t w = s->disp_start;
    bool space = true; /* drops leading white space */
    for (size_t r = s->disp_start; r < d->disp.len; r++) {
        unsigned char c = (unsigned char)p[r];
        if (is_space(c)) {
            if (!space)
                p[w++] = ' ';
            space = true;
            continue;
        }
        p[w++] = (char)c;
        space = false;
    }
    if (w > s->disp_start && p[w - 1] == ' ')
        w--;
    if (w - s->disp_start > HTML_DISPLAY_MAX) {
        w = s->disp_start + HTML_DISPLAY_MAX;
        while (w > s->disp_start && ((unsigned char)p[w] & 0xC0) == 0x80)
            w--; /* cut at a UTF-8 boundary */
        if (w > s->disp_start && p[w - 1] == ' ')
            w--;
    }
    d->disp.len = w;
    html_link *l = &d->links[s->pending_link];
    l->has_display = true;
    l->display = s->disp_start;
    l->display_len = w - s->disp_start;
}

/* Text of the document: part of the pending link's display. */
static void text_run(scan *s, size_t from, size_t to)
{
    if (!s->pending || to <= from)
        return;
    /* Collected up to twice the shown bound: entities and white space
       shrink it, the rest is cut in finish_display. */
    size_t have = s->d->disp.len - s->disp_start;
    if (have >= 2 * HTML_DISPLAY_MAX)
        return;
    size_t take = to - from;
    if (take > 2 * HTML_DISPLAY_MAX)
        take = 2 * HTML_DISPLAY_MAX;
    decode_into(s->d, &s->d->disp, s->h + from, take, false);
}

/* Position after the next '>' at or after i (n when none). */
static size_t past_gt(const char *h, size_t n, size_t i)
{
    const char *g = i < n ? memchr(h + i, '>', n - i) : NULL;
    return g ? (size_t)(g - h) + 1 : n;
}

/* Raw text elements: their content holds no tags (13.2.5.2-5). */
static bool raw_text_tag(const char *name, size_t len)
{
    static const char *const raw[] = {"script", "style", "textarea", "title", "xmp",
                                      "iframe", "noembed", "noframes", "plaintext"};
    for (size_t k = 0; k < sizeof raw / sizeof raw[0]; k++)
        if (ieq(name, len, raw[k]))
            return true;
    return false;
}

/* Where the raw text of <name> ends: at "</name" (any case), or n. */
static size_t raw_text_end(const char *h, size_t n, size_t i, const char *name, size_t len)
{
    if (ieq(name, len, "plaintext"))
        return n; /* nothing ends it */
    while (i < n) {
        const char *lt = memchr(h + i, '<', n - i);
        if (lt == NULL)
            return n;
        size_t p = (size_t)(lt - h);
        if (p + 2 + len <= n && h[p + 1] == '/') {
            size_t k = 0;
            while (k < len && lower((unsigned char)h[p + 2 + k]) == lower((unsigned char)name[k]))
                k++;
            if (k == len && (p + 2 + len == n || is_space((unsigned char)h[p + 2 + len]) ||
                             h[p + 2 + len] == '>' || h[p + 2 + len] == '/'))
                return p;
        }
        i = p + 1;
    }
    return n;
}

/* A start tag at i ('<' then a letter). Returns where the scan goes on. */
static size_t start_tag(scan *s, size_t i)
{
    const char *h = s->h;
    size_t n = s->n;
    html_doc *d = s->d;
    size_t p = i + 1, name = p;
    while (p < n && !is_space((unsigned char)h[p]) && h[p] != '/' && h[p] != '>')
        p++;
    size_t name_len = p - name;
    bool is_a = ieq(h + name, name_len, "a");

    /* Links of this tag are kept only when the tag is complete: a tag cut
       off by the end of the text is no tag for a browser. */
    size_t keep_n = d->n, keep_text = d->text.len;
    bool seen_href = false, seen_src = false, complete = false;
    size_t href_link = 0;
    while (p < n) {
        while (p < n && (is_space((unsigned char)h[p]) || h[p] == '/'))
            p++;
        if (p >= n)
            break;
        if (h[p] == '>') {
            p++;
            complete = true;
            break;
        }
        size_t an = p;
        p++; /* the first byte is part of the name even when it is '=' */
        while (p < n && !is_space((unsigned char)h[p]) && h[p] != '/' && h[p] != '>' && h[p] != '=')
            p++;
        size_t an_len = p - an;
        while (p < n && is_space((unsigned char)h[p]))
            p++;
        size_t vs = p, ve = p;
        bool has_value = false;
        if (p < n && h[p] == '=') {
            p++;
            while (p < n && is_space((unsigned char)h[p]))
                p++;
            if (p < n && (h[p] == '"' || h[p] == '\'')) {
                const char *c = memchr(h + p + 1, h[p], n - p - 1);
                if (c == NULL) {
                    p = n;
                    break; /* unterminated: the tag never completes */
                }
                vs = p + 1;
                ve = (size_t)(c - h);
                p = ve + 1;
            } else {
                vs = p;
                while (p < n && !is_space((unsigned char)h[p]) && h[p] != '>')
                    p++;
                ve = p;
            }
            has_value = true;
        }
        /* A repeated attribute is ignored by browsers (13.2.5.33): the
           first one is what they open. */
        if (has_value && ieq(h + an, an_len, "href") && !seen_href) {
            seen_href = true;
            href_link = d->n;
            add_link(s, HTML_HREF, vs, h + vs, ve - vs);
        } else if (has_value && ieq(h + an, an_len, "src") && !seen_src) {
            seen_src = true;
            add_link(s, HTML_SRC, vs, h + vs, ve - vs);
        } else if (ieq(h + an, an_len, "href")) {
            seen_href = true;
        } else if (ieq(h + an, an_len, "src")) {
            seen_src = true;
        }
    }
    if (!complete) {
        d->n = keep_n;
        d->text.len = keep_text;
        return n;
    }
    if (is_a) {
        finish_display(s); /* an <a> inside an <a> closes the first */
        if (seen_href && href_link < d->n) {
            s->pending = true;
            s->pending_link = href_link;
            s->disp_start = d->disp.len;
        }
    }
    if (raw_text_tag(h + name, name_len))
        return raw_text_end(h, n, p, h + name, name_len);
    return p;
}

bool html_scan(html_doc *d, const char *h, size_t n)
{
    scan s;
    memset(&s, 0, sizeof s);
    s.d = d;
    s.h = h;
    s.n = n;
    size_t i = 0;
    while (i < n && !d->failed) {
        const char *lt = memchr(h + i, '<', n - i);
        size_t j = lt ? (size_t)(lt - h) : n;
        text_run(&s, i, j);
        i = j;
        if (i >= n)
            break;
        unsigned char c1 = i + 1 < n ? (unsigned char)h[i + 1] : 0;
        if (c1 == '!' && i + 3 < n && h[i + 2] == '-' && h[i + 3] == '-') {
            /* Comment; "<!-->" and "<!--->" close at once (13.2.5.43). */
            size_t k = i + 2;
            for (;;) {
                const char *m = k < n ? memchr(h + k, '-', n - k) : NULL;
                if (m == NULL) {
                    k = n;
                    break;
                }
                k = (size_t)(m - h);
                if (k + 2 < n && h[k + 1] == '-' && h[k + 2] == '>') {
                    k += 3;
                    break;
                }
                k++;
            }
            i = k;
        } else if (c1 == '!' || c1 == '?') {
            i = past_gt(h, n, i + 2); /* doctype, CDATA, bogus comment */
        } else if (c1 == '/' && i + 2 < n && is_alpha((unsigned char)h[i + 2])) {
            size_t p = i + 2, name = p;
            while (p < n && !is_space((unsigned char)h[p]) && h[p] != '/' && h[p] != '>')
                p++;
            if (ieq(h + name, p - name, "a"))
                finish_display(&s);
            i = past_gt(h, n, p);
        } else if (is_alpha(c1)) {
            i = start_tag(&s, i);
        } else {
            text_run(&s, i, i + 1); /* a lone '<' is text */
            i++;
        }
    }
    finish_display(&s);
    return !d->failed;
}
