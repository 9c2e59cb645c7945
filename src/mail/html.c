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
    const char *name;   /* case-sensitive, with its ';' when it has one */
    const char *utf8;   /* one or two code points */
    uint8_t len;
} entity;

/* All 2,231 named references of the HTML standard, sorted by name
   (generated: tools/gen_entities.py). */
static const entity entities[] = {
#include "entities.inc"
};

#define NENTITIES (sizeof entities / sizeof entities[0])
#define ENTITY_NAME_MAX 32

static int name_cmp(const char *s, size_t n, const char *name)
{
    size_t m = strlen(name);
    int c = memcmp(s, name, n < m ? n : m);
    if (c != 0)
        return c;
    return n < m ? -1 : n > m ? 1 : 0;
}

static const entity *entity_find(const char *s, size_t n)
{
    size_t lo = 0, hi = NENTITIES;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = name_cmp(s, n, entities[mid].name);
        if (c == 0)
            return &entities[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
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
    /* 13.2.5.73: the longest name of the table the input starts with.
       Names are letters and digits, and end in ';' unless legacy: the
       run followed by ';' is one candidate, a legacy prefix (at most 6
       letters) the others. */
    size_t q = p;
    while (q < n && q - p < ENTITY_NAME_MAX && is_alnum((unsigned char)s[q]))
        q++;
    if (q == p)
        return false;
    const entity *e = NULL;
    size_t used = 0;
    if (q < n && s[q] == ';' && (e = entity_find(s + p, q + 1 - p)) != NULL)
        used = q + 1 - p;
    for (size_t l = q - p < 6 ? q - p : 6; e == NULL && l >= 2; l--) {
        if ((e = entity_find(s + p, l)) != NULL)
            used = l;
    }
    if (e == NULL)
        return false;
    size_t after = p + used;
    /* in an attribute, "&amp=" or "&ampx" (no ';') stays as written */
    if (in_attr && s[after - 1] != ';' && after < n &&
        (s[after] == '=' || is_alnum((unsigned char)s[after])))
        return false;
    *adv = after - i;
    buf_add(d, b, e->utf8, e->len);
    return true;
}

/* Plain bytes of the input as the tokenizer sees them (13.2.3.5): CR LF
   and CR are LF; NUL in an attribute value is U+FFFD (13.2.5.36-38). */
static void add_plain(html_doc *d, html_buf *b, const char *s, size_t n, bool in_attr)
{
    size_t i = 0;
    while (i < n && !d->failed) {
        size_t j = i;
        while (j < n && s[j] != '\r' && s[j] != '\0')
            j++;
        buf_add(d, b, s + i, j - i);
        if (j >= n)
            break;
        if (s[j] == '\r') {
            buf_add(d, b, "\n", 1);
            j += (j + 1 < n && s[j + 1] == '\n') ? 2 : 1;
        } else {
            if (in_attr)
                buf_add(d, b, "\xEF\xBF\xBD", 3);
            else
                buf_add(d, b, "\0", 1);
            j++;
        }
        i = j;
    }
}

static bool decode_into(html_doc *d, html_buf *b, const char *s, size_t n, bool in_attr)
{
    size_t i = 0;
    while (i < n && !d->failed) {
        const char *amp = memchr(s + i, '&', n - i);
        size_t j = amp ? (size_t)(amp - s) : n;
        add_plain(d, b, s + i, j - i, in_attr);
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

/*
 * The tokenizer (13.2.5) in full for what decides where a tag, a comment
 * or raw text begins and ends: comments (incl. "<!-->", "<!--->" and the
 * "--!>" end), bogus comments, DOCTYPE, CDATA (in foreign content only),
 * RCDATA, RAWTEXT, script data with its escaped and double-escaped states,
 * PLAINTEXT, attributes of start and end tags. Of tree construction
 * (13.2.6) what decides the tokenizer's state or whether a tag's
 * attributes reach the document: the namespace of the current node (SVG
 * and MathML foreign content, breakout tags, integration points), the
 * form element pointer (a nested <form> is dropped), <select> (which drops
 * most start tags), table parts outside a table, attributes of a second
 * <html> or <body> merged only when new. Scripting is off, as in a mail
 * client: <noscript> content is markup.
 */

enum { NS_HTML, NS_SVG, NS_MATH };

#define FSTACK_MAX 256

typedef struct {
    uint8_t ns;
    bool html_ip;   /* HTML integration point */
    bool text_ip;   /* MathML text integration point */
    bool axml;      /* MathML annotation-xml */
    char name[16];  /* lower case, cut */
} felem;

typedef struct {
    html_doc *d;
    const char *h;
    size_t n;
    bool pending;        /* an <a href> whose text is being collected */
    size_t pending_link;
    size_t disp_start;   /* where its text starts in d->disp */
    /* the elements open since the first foreign one (empty: HTML) */
    felem st[FSTACK_MAX];
    size_t depth;        /* may exceed FSTACK_MAX: the rest is not named */
    bool form_open;      /* the form element pointer is set */
    size_t templates, tables, selects;
    unsigned html_attrs, body_attrs; /* link attributes <html>/<body> have */
    bool body_seen;
    bool head_implied;   /* past the "before head" insertion mode */
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

/* One tag as the tokenizer gives it. */
#define TAG_ATTRS_TRACKED 4
typedef struct {
    char name[16];
    size_t name_len;     /* full length (name is cut at 15 bytes) */
    bool self_closing;
    bool has_encoding_html; /* annotation-xml encoding=text/html|application/xhtml+xml */
    bool has_font_attr;  /* color, face or size (a <font> breakout) */
    unsigned link_attrs; /* bit per html_attr seen */
} tag_info;

static bool name_is(const tag_info *t, const char *lit)
{
    return t->name_len == strlen(lit) && memcmp(t->name, lit, t->name_len) == 0;
}

static bool name_in(const tag_info *t, const char *const *list)
{
    for (; *list; list++)
        if (name_is(t, *list))
            return true;
    return false;
}

static const char *const breakout_tags[] = {
    "b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt",
    "em", "embed", "h1", "h2", "h3", "h4", "h5", "h6", "head", "hr", "i", "img", "li",
    "listing", "menu", "meta", "nobr", "ol", "p", "pre", "ruby", "s", "small", "span",
    "strong", "strike", "sub", "sup", "table", "tt", "u", "ul", "var", NULL};

static const char *const void_tags[] = {
    "area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "image",
    "img", "input", "keygen", "link", "meta", "param", "source", "track", "wbr", NULL};

/* Start tags "in body" ignores outside a table (13.2.6.4.7). */
static const char *const table_part_tags[] = {
    "caption", "col", "colgroup", "frame", "head", "tbody", "td", "tfoot", "th", "thead",
    "tr", NULL};

static const char *const rawtext_tags[] = {
    "style", "xmp", "iframe", "noembed", "noframes", NULL};

static bool is_html_ctx(const scan *s)
{
    if (s->depth == 0)
        return true;
    if (s->depth > FSTACK_MAX)
        return s->st[FSTACK_MAX - 1].ns == NS_HTML;
    return s->st[s->depth - 1].ns == NS_HTML;
}

static const felem *cur(const scan *s)
{
    if (s->depth == 0)
        return NULL;
    return &s->st[(s->depth > FSTACK_MAX ? FSTACK_MAX : s->depth) - 1];
}

/* Tree construction dispatcher (13.2.6): HTML rules for this start tag? */
static bool start_tag_is_html(const scan *s, const tag_info *t)
{
    const felem *c = cur(s);
    if (c == NULL || c->ns == NS_HTML)
        return true;
    if (c->text_ip && !name_is(t, "mglyph") && !name_is(t, "malignmark"))
        return true;
    if (c->axml && name_is(t, "svg"))
        return true;
    return c->html_ip;
}

static void push(scan *s, uint8_t ns, const tag_info *t)
{
    if (s->depth < FSTACK_MAX) {
        felem *e = &s->st[s->depth];
        memset(e, 0, sizeof *e);
        e->ns = ns;
        memcpy(e->name, t->name, sizeof e->name);
        if (ns == NS_SVG)
            e->html_ip = name_is(t, "foreignobject") || name_is(t, "desc") || name_is(t, "title");
        if (ns == NS_MATH) {
            static const char *const tip[] = {"mi", "mo", "mn", "ms", "mtext", NULL};
            e->text_ip = name_in(t, tip);
            e->axml = name_is(t, "annotation-xml");
            e->html_ip = e->axml && t->has_encoding_html;
        }
    }
    s->depth++;
}

/* Pop until the current node is HTML or an integration point. */
static void pop_to_html(scan *s)
{
    while (s->depth > 0) {
        const felem *c = cur(s);
        if (c->ns == NS_HTML || c->html_ip || c->text_ip)
            break;
        s->depth--;
    }
}

/* An end tag under foreign rules or inside a foreign subtree. */
static void end_tag_in_stack(scan *s, const tag_info *t)
{
    if (s->depth == 0 || s->depth > FSTACK_MAX) {
        if (s->depth > FSTACK_MAX)
            s->depth--; /* unnamed: the best guess */
        return;
    }
    const felem *c = cur(s);
    bool foreign_rules = c->ns != NS_HTML;
    if (foreign_rules && (name_is(t, "br") || name_is(t, "p"))) {
        pop_to_html(s);
        return;
    }
    for (size_t k = s->depth; k-- > 0;) {
        const felem *e = &s->st[k];
        if (foreign_rules && e->ns != NS_HTML) {
            if (strncmp(e->name, t->name, sizeof e->name) == 0 && t->name_len < sizeof e->name) {
                s->depth = k;
                return;
            }
            continue;
        }
        /* an HTML element: "in body" rules, bounded by the integration
           point below it (a scope boundary) */
        if (e->ns == NS_HTML && strncmp(e->name, t->name, sizeof e->name) == 0 &&
            t->name_len < sizeof e->name) {
            s->depth = k;
            return;
        }
        if (e->ns != NS_HTML)
            return;
        foreign_rules = false;
    }
}

/* Read a tag (name and attributes) at h[i] == '<'; links of href, src,
   action and formaction are added to the doc when want_links. Returns
   the position after the tag, or n when the input ends inside it (a tag
   cut off is no tag). */
typedef struct {
    size_t first_link;   /* d->n before the tag */
    size_t href_link;
    bool has_href;
} tag_links;

static const char *const link_attr_names[] = {"href", "src", "action", "formaction"};

static size_t read_tag(scan *s, size_t i, bool end_tag, tag_info *t, tag_links *tl,
                       bool *complete)
{
    const char *h = s->h;
    size_t n = s->n;
    html_doc *d = s->d;
    size_t p = i + (end_tag ? 2 : 1), name = p;
    while (p < n && !is_space((unsigned char)h[p]) && h[p] != '/' && h[p] != '>')
        p++;
    memset(t, 0, sizeof *t);
    t->name_len = p - name;
    for (size_t k = 0; k < t->name_len && k < sizeof t->name - 1; k++)
        t->name[k] = (char)lower((unsigned char)h[name + k]);
    /* a foreign element (no breakout): its attributes are adjusted */
    bool foreign = !end_tag && ((!start_tag_is_html(s, t) && !name_in(t, breakout_tags)) ||
                                name_is(t, "svg") || name_is(t, "math"));
    tl->first_link = d->n;
    tl->has_href = false;
    *complete = false;
    while (p < n) {
        while (p < n && is_space((unsigned char)h[p]))
            p++;
        if (p >= n)
            break;
        if (h[p] == '>') {
            p++;
            *complete = true;
            break;
        }
        if (h[p] == '/') {
            p++;
            if (p < n && h[p] == '>') {
                t->self_closing = true;
                p++;
                *complete = true;
                break;
            }
            continue; /* reconsumed in the before attribute name state */
        }
        size_t an = p;
        p++; /* the first byte is part of the name even when it is '=' */
        while (p < n && !is_space((unsigned char)h[p]) && h[p] != '/' && h[p] != '>' && h[p] != '=')
            p++;
        size_t an_len = p - an;
        while (p < n && is_space((unsigned char)h[p]))
            p++;
        size_t vs = p, ve = p;
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
        }
        if (end_tag)
            continue;
        /* xlink:href on a foreign element is the attribute href in the
           XLink namespace (13.2.6.1 "adjust foreign attributes") */
        const char *nm = h + an;
        size_t nl = an_len;
        unsigned seen_bit = 0; /* xlink:href and href are two attributes */
        if (foreign && ieq(nm, nl, "xlink:href")) {
            nm += 6;
            nl -= 6;
            seen_bit = 1u << TAG_ATTRS_TRACKED;
        }
        if (ieq(h + an, an_len, "encoding"))
            t->has_encoding_html = ieq(h + vs, ve - vs, "text/html") ||
                                   ieq(h + vs, ve - vs, "application/xhtml+xml");
        if (ieq(h + an, an_len, "color") || ieq(h + an, an_len, "face") ||
            ieq(h + an, an_len, "size"))
            t->has_font_attr = true;
        for (unsigned k = 0; k < TAG_ATTRS_TRACKED; k++) {
            if (!ieq(nm, nl, link_attr_names[k]))
                continue;
            /* A repeated attribute is dropped (13.2.5.33): the first one
               is what a browser opens. */
            unsigned bit = seen_bit ? seen_bit : 1u << k;
            if (!(t->link_attrs & bit)) {
                t->link_attrs |= bit;
                if (k == HTML_HREF) {
                    tl->has_href = true;
                    tl->href_link = d->n;
                }
                add_link(s, (html_attr)k, vs, h + vs, ve - vs);
            }
            break;
        }
    }
    return p;
}

/* Drop the links of a tag tree construction ignores (or of attributes it
   does not keep: mask holds the html_attr bits to keep). */
static void keep_links(scan *s, const tag_links *tl, unsigned mask)
{
    html_doc *d = s->d;
    size_t w = tl->first_link;
    for (size_t r = tl->first_link; r < d->n; r++)
        if (mask & (1u << d->links[r].attr))
            d->links[w++] = d->links[r];
    d->n = w;
}

/* Where the raw text of <name> ends: at "</name" (any case) followed by
   white space, '/' or '>'; n when none. */
static size_t raw_text_end(const char *h, size_t n, size_t i, const char *name, size_t len)
{
    while (i < n) {
        const char *lt = memchr(h + i, '<', n - i);
        if (lt == NULL)
            return n;
        size_t p = (size_t)(lt - h);
        if (p + 2 + len < n && h[p + 1] == '/') {
            size_t k = 0;
            while (k < len && lower((unsigned char)h[p + 2 + k]) == (unsigned char)name[k])
                k++;
            if (k == len && (is_space((unsigned char)h[p + 2 + len]) ||
                             h[p + 2 + len] == '>' || h[p + 2 + len] == '/'))
                return p;
        }
        i = p + 1;
    }
    return n;
}

/* "script" at h[p] (any case) followed by white space, '/' or '>'. */
static bool script_word(const char *h, size_t n, size_t p)
{
    return p + 6 < n && ieq(h + p, 6, "script") &&
           (is_space((unsigned char)h[p + 6]) || h[p + 6] == '/' || h[p + 6] == '>');
}

/* Script data (13.2.5.4, 15-31): where "</script" ends it, through the
   escaped ("<!--") and double-escaped ("<!-- <script>") states. */
static size_t script_end(const char *h, size_t n, size_t i)
{
    enum { DATA, ESC, ESC_DASH, ESC_DASH2, DBL, DBL_DASH, DBL_DASH2 } st = DATA;
    size_t p = i;
    while (p < n) {
        unsigned char c = (unsigned char)h[p];
        switch (st) {
        case DATA:
            if (c == '<') {
                if (p + 1 < n && h[p + 1] == '/' && script_word(h, n, p + 2))
                    return p;
                if (p + 3 < n && h[p + 1] == '!' && h[p + 2] == '-' && h[p + 3] == '-') {
                    st = ESC_DASH2;
                    p += 4;
                    continue;
                }
            }
            break;
        case ESC:
        case ESC_DASH:
        case ESC_DASH2:
            if (c == '-') {
                st = st == ESC ? ESC_DASH : ESC_DASH2;
            } else if (c == '<') {
                if (p + 1 < n && h[p + 1] == '/' && script_word(h, n, p + 2))
                    return p;
                if (script_word(h, n, p + 1)) {
                    st = DBL;
                    p += 7;
                    continue;
                }
                st = ESC;
            } else if (c == '>' && st == ESC_DASH2) {
                st = DATA;
            } else {
                st = ESC;
            }
            break;
        case DBL:
        case DBL_DASH:
        case DBL_DASH2:
            if (c == '-') {
                st = st == DBL ? DBL_DASH : DBL_DASH2;
            } else if (c == '<') {
                st = DBL;
                if (p + 1 < n && h[p + 1] == '/' && script_word(h, n, p + 2)) {
                    st = ESC;
                    p += 8;
                    continue;
                }
            } else if (c == '>' && st == DBL_DASH2) {
                st = DATA;
            } else {
                st = DBL;
            }
            break;
        }
        p++;
    }
    return n;
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

/* A start tag under HTML rules: what tree construction keeps, and the
   tokenizer state it leaves. Returns where the scan goes on. */
static size_t html_start_tag(scan *s, size_t p, const tag_info *t, const tag_links *tl)
{
    /* tokens tree construction ignores */
    bool drop = false;
    if (s->selects > 0 && s->depth == 0) {
        /* 13.2.6.4.16 "in select": a nested <select> closes the first
           and is dropped; input, keygen and textarea close it and count */
        static const char *const in_select[] = {"option", "optgroup", "hr", "input", "keygen",
                                                "textarea", "script", "template", "html",
                                                NULL};
        drop = !name_in(t, in_select);
        if (name_is(t, "select") || name_is(t, "input") || name_is(t, "keygen") ||
            name_is(t, "textarea")) {
            s->selects = 0;
            if (name_is(t, "select")) {
                keep_links(s, tl, 0);
                return p;
            }
        }
    }
    if (!drop && name_is(t, "form") && s->templates == 0 && s->depth == 0) {
        drop = s->form_open;
        s->form_open = true;
    }
    if (!drop && s->tables == 0 && s->templates == 0 && name_in(t, table_part_tags))
        drop = !(name_is(t, "head") && !s->head_implied);
    if (!drop && s->templates > 0 && (name_is(t, "html") || name_is(t, "body")))
        drop = true; /* "in body": ignored with a template on the stack */
    if (!name_is(t, "html"))
        s->head_implied = true;
    if (drop) {
        keep_links(s, tl, 0);
        return p;
    }
    if (name_is(t, "html")) {
        keep_links(s, tl, ~s->html_attrs);
        s->html_attrs |= t->link_attrs;
        return p;
    }
    if (name_is(t, "body")) {
        unsigned keep = s->body_seen ? ~s->body_attrs : ~0u;
        keep_links(s, tl, keep);
        s->body_attrs |= t->link_attrs;
        s->body_seen = true;
        return p;
    }
    if (name_is(t, "a")) {
        finish_display(s); /* an <a> inside an <a> closes the first */
        if (tl->has_href && tl->href_link < s->d->n) {
            s->pending = true;
            s->pending_link = tl->href_link;
            s->disp_start = s->d->disp.len;
        }
    }
    if (name_is(t, "svg") || name_is(t, "math")) {
        if (!t->self_closing)
            push(s, name_is(t, "svg") ? NS_SVG : NS_MATH, t);
        return p;
    }
    if (name_is(t, "select") && s->depth == 0)
        s->selects = 1;
    if (name_is(t, "template"))
        s->templates++;
    if (name_is(t, "table") && s->depth == 0)
        s->tables++;
    /* the tokenizer state the element sets (in the HTML namespace) */
    if (name_in(t, rawtext_tags) || name_is(t, "title") || name_is(t, "textarea"))
        return raw_text_end(s->h, s->n, p, t->name, t->name_len);
    if (name_is(t, "script"))
        return script_end(s->h, s->n, p);
    if (name_is(t, "plaintext"))
        return s->n;
    if (s->depth > 0 && !name_in(t, void_tags))
        push(s, NS_HTML, t);
    return p;
}

/* A start tag at h[i] ('<' then a letter). */
static size_t start_tag(scan *s, size_t i)
{
    tag_info t;
    tag_links tl;
    bool complete;
    size_t p = read_tag(s, i, false, &t, &tl, &complete);
    if (!complete) {
        keep_links(s, &tl, 0);
        return s->n;
    }
    if (start_tag_is_html(s, &t))
        return html_start_tag(s, p, &t, &tl);
    /* foreign content (13.2.6.5) */
    if (name_in(&t, breakout_tags) || (name_is(&t, "font") && t.has_font_attr)) {
        pop_to_html(s);
        if (s->depth == 0 || start_tag_is_html(s, &t))
            return html_start_tag(s, p, &t, &tl);
    }
    if (!t.self_closing)
        push(s, cur(s) ? cur(s)->ns : NS_SVG, &t);
    return p;
}

/* An end tag at h[i] ("</" then a letter). */
static size_t end_tag(scan *s, size_t i)
{
    tag_info t;
    tag_links tl;
    bool complete;
    size_t p = read_tag(s, i, true, &t, &tl, &complete);
    if (!complete)
        return s->n;
    if (name_is(&t, "head") || name_is(&t, "body") || name_is(&t, "html") || name_is(&t, "br"))
        s->head_implied = true; /* "before head": these imply the head */
    if (s->depth > 0) {
        end_tag_in_stack(s, &t);
    } else if (name_is(&t, "form")) {
        if (s->templates == 0)
            s->form_open = false;
    } else if (name_is(&t, "select")) {
        s->selects = 0;
    } else if (name_is(&t, "template")) {
        if (s->templates > 0)
            s->templates--;
    } else if (name_is(&t, "table")) {
        if (s->tables > 0)
            s->tables--;
    }
    if (name_is(&t, "a"))
        finish_display(s);
    return p;
}

/* "<!" at h[i]: comment, DOCTYPE, CDATA or bogus comment. */
static size_t markup_decl(scan *s, size_t i)
{
    const char *h = s->h;
    size_t n = s->n;
    if (i + 3 < n && h[i + 2] == '-' && h[i + 3] == '-') {
        /* 13.2.5.43-52: "<!-->" and "<!--->" end at once; else the first
           "-->" or "--!>" after "<!--" */
        for (size_t k = i + 2; k + 2 < n;) {
            const char *m = memchr(h + k, '-', n - k);
            if (m == NULL)
                break;
            k = (size_t)(m - h);
            if (k + 2 < n && h[k + 1] == '-' && h[k + 2] == '>')
                return k + 3;
            if (k >= i + 4 && k + 3 < n && h[k + 1] == '-' && h[k + 2] == '!' && h[k + 3] == '>')
                return k + 4;
            k++;
        }
        return n;
    }
    if (i + 8 < n && memcmp(h + i + 2, "[CDATA[", 7) == 0 && !is_html_ctx(s)) {
        for (size_t k = i + 9; k + 2 < n;) {
            const char *m = memchr(h + k, ']', n - k);
            if (m == NULL)
                break;
            k = (size_t)(m - h);
            if (k + 2 < n && h[k + 1] == ']' && h[k + 2] == '>')
                return k + 3;
            k++;
        }
        return n;
    }
    return past_gt(h, n, i + 2); /* DOCTYPE or bogus comment */
}

bool html_scan(html_doc *d, const char *h, size_t n)
{
    scan *s = calloc(1, sizeof *s);
    if (s == NULL) {
        d->failed = true;
        return false;
    }
    s->d = d;
    s->h = h;
    s->n = n;
    size_t i = 0;
    while (i < n && !d->failed) {
        const char *lt = memchr(h + i, '<', n - i);
        size_t j = lt ? (size_t)(lt - h) : n;
        for (size_t k = i; !s->head_implied && k < j; k++)
            s->head_implied = !is_space((unsigned char)h[k]);
        text_run(s, i, j);
        i = j;
        if (i >= n)
            break;
        unsigned char c1 = i + 1 < n ? (unsigned char)h[i + 1] : 0;
        if (i + 1 >= n) {
            text_run(s, i, i + 1);
            i++;
        } else if (c1 == '!') {
            i = markup_decl(s, i);
        } else if (c1 == '?') {
            i = past_gt(h, n, i + 1); /* bogus comment */
        } else if (c1 == '/') {
            if (i + 2 >= n) {
                text_run(s, i, n); /* "</" at the end is text */
                i = n;
            } else if (is_alpha((unsigned char)h[i + 2])) {
                i = end_tag(s, i);
            } else if (h[i + 2] == '>') {
                i += 3; /* "</>": nothing */
            } else {
                i = past_gt(h, n, i + 2); /* bogus comment */
            }
        } else if (is_alpha(c1)) {
            i = start_tag(s, i);
        } else {
            text_run(s, i, i + 1); /* a lone '<' is text */
            i++;
        }
    }
    finish_display(s);
    free(s);
    return !d->failed;
}
