/*
 * html.c - href/src attributes and link texts of an HTML mail part
 * (doc/mail.md: a scanner sees what the reader's client will open).
 *
 * The references are the HTML standard's tokenizer (13.2.5) for what a
 * tag, an attribute and a comment are, and its character reference
 * states (13.2.5.72-80) for entities. Only what decides which URL a
 * client opens is kept; everything else is skipped in one pass.
 */
#include "html.h"
#include "html_tree.h"
#include "css.h"

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
    free(d->vis.p);
    free(d->runs);
    free(d->conds);
    memset(d, 0, sizeof *d);
}

static bool buf_grow_add(html_doc *d, html_buf *b, const char *s, size_t n);

/* Append s[0..n): a copy when it fits (most calls), else grown. */
static inline bool buf_add(html_doc *d, html_buf *b, const char *s, size_t n)
{
    if (!d->failed && n <= b->cap - b->len) {
        if (n)
            memcpy(b->p + b->len, s, n);
        b->len += n;
        return true;
    }
    return buf_grow_add(d, b, s, n);
}

static bool buf_grow_add(html_doc *d, html_buf *b, const char *s, size_t n)
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
    return buf_add(d, b, u, mail_utf8(cp, u));
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

/* Does one of the 8 bytes of x equal 0? (exact: a borrow reaches a
   byte's high bit only through a zero byte below it) */
static inline bool zero_byte(uint64_t x)
{
    return ((x - UINT64_C(0x0101010101010101)) & ~x & UINT64_C(0x8080808080808080)) != 0;
}

/* Plain bytes of the input as the tokenizer sees them (13.2.3.5): CR LF
   and CR are LF; NUL in an attribute value is U+FFFD (13.2.5.36-38). */
static void add_plain(html_doc *d, html_buf *b, const char *s, size_t n, bool in_attr)
{
    size_t i = 0;
    while (i < n && !d->failed) {
        size_t j = i;
        if (n - i < 64) { /* short: 8 bytes at a time; long: memchr twice */
            while (n - j >= 8) {
                uint64_t x;
                memcpy(&x, s + j, 8);
                if (zero_byte(x) || zero_byte(x ^ UINT64_C(0x0D0D0D0D0D0D0D0D)))
                    break;
                j += 8;
            }
            while (j < n && s[j] != '\r' && s[j] != '\0')
                j++;
        } else {
            const char *cr = memchr(s + i, '\r', n - i);
            j = cr ? (size_t)(cr - s) : n;
            const char *nul = memchr(s + i, '\0', j - i);
            if (nul != NULL)
                j = (size_t)(nul - s);
        }
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
 * PLAINTEXT, attributes of start and end tags. Tree construction (13.2.6,
 * html_tree.c) decides which start tags become elements (their links are
 * in the document), the namespace of each and the tokenizer state it
 * sets. Scripting is off, as in a mail client: <noscript> content is
 * markup.
 */

typedef struct {
    html_doc *d;
    const char *h;
    size_t n;
    html_tree *tree;
    bool pending;        /* an <a href> whose text is being collected */
    size_t pending_link;
    size_t disp_start;   /* where its text starts in d->disp */
    html_buf scratch;    /* character references of text, decoded */
    html_buf css;        /* a style attribute's value, decoded */
    bool vis_sep;        /* a block boundary since the last visible text */
} scan;

/* A link to the URL d->text[a..e), trimmed as URL parsing trims it:
   leading and trailing C0 controls and space (WHATWG URL, basic parser
   step 1; HTML trims ASCII white space). */
static inline bool push_link(html_doc *d, html_attr attr, unsigned from, size_t voff, size_t a,
                             size_t e)
{
    if (d->failed)
        return false;
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
    while (a < e && (unsigned char)d->text.p[a] <= 0x20)
        a++;
    while (e > a && (unsigned char)d->text.p[e - 1] <= 0x20)
        e--;
    html_link *l = &d->links[d->n++];
    memset(l, 0, sizeof *l);
    l->attr = attr;
    l->from = (uint8_t)from;
    l->off = voff;
    l->url = a;
    l->url_len = e - a;
    return true;
}

static bool add_link(scan *s, html_attr attr, size_t voff, const char *v, size_t vlen)
{
    html_doc *d = s->d;
    size_t start = d->text.len;
    if (!decode_into(d, &d->text, v, vlen, true))
        return false;
    return push_link(d, attr, attr, voff, start, d->text.len);
}

/* A list of URLs in one attribute: ping and itemtype (URLs separated by
   ASCII white space), archive (white space or commas). */
static void add_url_list(scan *s, html_attr attr, size_t voff, const char *v, size_t vlen)
{
    html_doc *d = s->d;
    size_t start = d->text.len;
    if (!decode_into(d, &d->text, v, vlen, true))
        return;
    size_t i = start, end = d->text.len;
    while (i < end && !d->failed) {
        while (i < end && (is_space((unsigned char)d->text.p[i]) ||
                           (attr == HTML_ARCHIVE && d->text.p[i] == ',')))
            i++;
        size_t j = i;
        while (j < end && !is_space((unsigned char)d->text.p[j]) &&
               !(attr == HTML_ARCHIVE && d->text.p[j] == ','))
            j++;
        if (j > i)
            push_link(d, attr, attr, voff, i, j);
        i = j;
    }
}

/* srcset: each image candidate's URL (HTML 4.8.4.3.11, "parse a srcset
   attribute": white space and commas, the URL up to white space (commas
   at its end dropped), then descriptors up to a comma outside
   parentheses). */
static void add_srcset(scan *s, size_t voff, const char *v, size_t vlen)
{
    html_doc *d = s->d;
    size_t start = d->text.len;
    if (!decode_into(d, &d->text, v, vlen, true))
        return;
    const char *t = d->text.p;
    size_t i = start, end = d->text.len;
    while (i < end && !d->failed) {
        while (i < end && (is_space((unsigned char)t[i]) || t[i] == ','))
            i++;
        if (i >= end)
            break;
        size_t j = i;
        while (j < end && !is_space((unsigned char)t[j]))
            j++;
        size_t e = j;
        bool commas = false;
        while (e > i && t[e - 1] == ',') {
            e--;
            commas = true;
        }
        if (e > i)
            push_link(d, HTML_SRCSET, HTML_SRCSET, voff, i, e);
        if (!commas) { /* the descriptors */
            size_t paren = 0;
            while (j < end && (paren > 0 || t[j] != ',')) {
                paren += t[j] == '(';
                paren -= paren > 0 && t[j] == ')';
                j++;
            }
        }
        i = j;
    }
}

/* CSS: each URL becomes a link (css_scan's callback). */
typedef struct {
    html_doc *d;
    unsigned from;       /* HTML_STYLE, or HTML_CSS_URL for <style> text */
    size_t base_off;     /* the attribute value's offset, or where the
                            style sheet starts in the input */
    bool in_attr;        /* offsets are the attribute's */
} css_sink;

static bool on_css_url(void *ctx, bool import, size_t off, const char *url, size_t len)
{
    css_sink *k = ctx;
    html_doc *d = k->d;
    size_t start = d->text.len;
    if (!buf_add(d, &d->text, url, len))
        return false;
    return push_link(d, import ? HTML_CSS_IMPORT : HTML_CSS_URL, k->from,
                     k->in_attr ? k->base_off : k->base_off + off, start, d->text.len);
}

/* The URLs of a style attribute: its value decoded, then read as CSS. */
static void add_style(scan *s, size_t voff, const char *v, size_t vlen)
{
    html_doc *d = s->d;
    /* url( and image-set( need '(', @import '@'; an escape or a character
       reference may write either */
    bool maybe = false;
    for (size_t i = 0; i < vlen && !maybe; i++)
        maybe = v[i] == '(' || v[i] == '@' || v[i] == '\\' || v[i] == '&';
    if (!maybe)
        return;
    s->css.len = 0;
    if (!decode_into(d, &s->css, v, vlen, true) || s->css.len == 0)
        return;
    css_sink k = { d, HTML_STYLE, voff, true };
    if (!css_scan(s->css.p, s->css.len, on_css_url, &k))
        d->failed = true;
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
typedef struct {
    char name[16];       /* lower case, cut */
    size_t name_len;     /* full length (name is cut at 15 bytes) */
} tag_info;

static bool name_is(const tag_info *t, const char *lit)
{
    return t->name_len == strlen(lit) && memcmp(t->name, lit, t->name_len) == 0;
}

/* The attributes of html_attr, in its order, up to HTML_STYLE: the HTML
   standard's index of attributes whose value is a URL (or a list of
   them: ping, srcset, itemtype), the obsolete ones mail clients still
   load (background, lowsrc, dynsrc, longdesc, codebase, classid, archive,
   profile, icon) and style (its CSS). */
static const char *const link_attr_names[] = {
    "href", "src", "action", "formaction", "background", "srcset", "ping", "poster", "data",
    "cite", "longdesc", "manifest", "codebase", "classid", "archive", "lowsrc", "dynsrc",
    "itemtype", "profile", "icon", "style"};
_Static_assert(sizeof link_attr_names / sizeof link_attr_names[0] == HTML_STYLE + 1,
               "one name per attribute of html_attr");

/* Attributes that are URLs only on some elements: data on <object>,
   background on the body and table elements (HTML 4.01, still honoured
   by mail clients). */
static bool attr_applies(const tag_info *t, unsigned q)
{
    if (q == HTML_DATA)
        return name_is(t, "object");
    if (q == HTML_BACKGROUND)
        return name_is(t, "body") || name_is(t, "table") || name_is(t, "td") ||
               name_is(t, "th") || name_is(t, "tr") || name_is(t, "thead") ||
               name_is(t, "tbody") || name_is(t, "tfoot");
    return true;
}

/* The links of attribute q (its value h[vs..ve)). */
static void add_attr_links(scan *s, unsigned q, size_t vs, const char *v, size_t vlen)
{
    switch (q) {
    case HTML_SRCSET:
        add_srcset(s, vs, v, vlen);
        break;
    case HTML_PING:
    case HTML_ARCHIVE:
    case HTML_ITEMTYPE:
        add_url_list(s, (html_attr)q, vs, v, vlen);
        break;
    case HTML_STYLE:
        add_style(s, vs, v, vlen);
        break;
    default:
        add_link(s, (html_attr)q, vs, v, vlen);
        break;
    }
}

/* FNV-1a, 64 bits. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}
#define FNV_INIT 0xcbf29ce484222325ULL

/* The hash of a name as the tokenizer leaves it: ASCII lower case, NUL
   as U+FFFD (13.2.5.8, 13.2.5.33). */
static uint64_t name_hash(const char *s, size_t n)
{
    uint64_t h = FNV_INIT;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = lower((unsigned char)s[i]);
        if (c == 0)
            h = fnv(h, "\xEF\xBF\xBD", 3);
        else
            h = fnv(h, &c, 1);
    }
    return h;
}

/* The attribute value v decoded (character references, CR LF, NUL), in
   the scratch end of the doc's text buffer; *len its length. The caller
   drops it again with d->text.len = mark. */
static const char *decoded_value(html_doc *d, const char *v, size_t vlen, size_t *len)
{
    size_t mark = d->text.len;
    if (!decode_into(d, &d->text, v, vlen, true) || d->text.p == NULL) {
        *len = 0;
        return "";
    }
    *len = d->text.len - mark;
    return d->text.p + mark;
}

/* The links of the attribute nm[0..an_len) whose value is h[vs..ve),
   the first of its name (*seen: the link attributes read so far). */
static void attr_links(scan *s, const tag_info *t, const char *nm, size_t an_len, size_t vs,
                       size_t ve, uint32_t *seen)
{
    html_doc *d = s->d;
    /* xlink:href is href in the XLink namespace on a foreign element
       (13.2.6.1 "adjust foreign attributes"), no link on an HTML one:
       tree construction decides */
    bool xlink = ieq(nm, an_len, "xlink:href");
    if (xlink) {
        nm += 6;
        an_len -= 6;
    }
    /* most attributes (class, width, data-x ...) are none of them: their
       first letter and length say so without a compare */
#define B(q) (UINT32_C(1) << (q))
    static const uint32_t by_len[11] = {
        [3] = B(HTML_SRC),
        [4] = B(HTML_HREF) | B(HTML_PING) | B(HTML_DATA) | B(HTML_CITE) | B(HTML_ICON),
        [5] = B(HTML_STYLE),
        [6] = B(HTML_ACTION) | B(HTML_SRCSET) | B(HTML_POSTER) | B(HTML_LOWSRC) | B(HTML_DYNSRC),
        [7] = B(HTML_CLASSID) | B(HTML_ARCHIVE) | B(HTML_PROFILE),
        [8] = B(HTML_LONGDESC) | B(HTML_MANIFEST) | B(HTML_CODEBASE) | B(HTML_ITEMTYPE),
        [10] = B(HTML_FORMACTION) | B(HTML_BACKGROUND)};
    static const uint32_t by_first[26] = {
        ['a' - 'a'] = B(HTML_ACTION) | B(HTML_ARCHIVE),
        ['b' - 'a'] = B(HTML_BACKGROUND),
        ['c' - 'a'] = B(HTML_CITE) | B(HTML_CODEBASE) | B(HTML_CLASSID),
        ['d' - 'a'] = B(HTML_DATA) | B(HTML_DYNSRC),
        ['f' - 'a'] = B(HTML_FORMACTION),
        ['h' - 'a'] = B(HTML_HREF),
        ['i' - 'a'] = B(HTML_ITEMTYPE) | B(HTML_ICON),
        ['l' - 'a'] = B(HTML_LONGDESC) | B(HTML_LOWSRC),
        ['m' - 'a'] = B(HTML_MANIFEST),
        ['p' - 'a'] = B(HTML_PING) | B(HTML_POSTER) | B(HTML_PROFILE),
        ['s' - 'a'] = B(HTML_SRC) | B(HTML_SRCSET) | B(HTML_STYLE)};
#undef B
    unsigned char f = lower((unsigned char)nm[0]);
    if (an_len < 3 || an_len > 10 || f < 'a' || f > 'z')
        return;
    for (uint32_t cand = by_len[an_len] & by_first[f - 'a']; cand != 0; cand &= cand - 1) {
        unsigned q = (unsigned)__builtin_ctz(cand);
        if (!ieq(nm, an_len, link_attr_names[q]))
            continue;
        /* A repeated attribute is dropped (13.2.5.33): the first one is
           what a browser opens. */
        uint32_t bit = xlink ? UINT32_C(1) << 31 : UINT32_C(1) << q;
        if (!(*seen & bit) && attr_applies(t, q)) {
            *seen |= bit;
            size_t first = d->n;
            add_attr_links(s, q, vs, s->h + vs, ve - vs);
            for (size_t r = first; r < d->n && !d->failed; r++) {
                d->links[r].xlink = xlink;
                d->links[r].base = q == HTML_HREF && !xlink && name_is(t, "base");
            }
        }
        return;
    }
}

#define TAG_HASHED_NAMES 32

/* Tags whose URL is in a pair of attributes: read at the tag's end. */
typedef enum { SP_NONE, SP_META, SP_PARAM, SP_ANIMATE, SP_IFRAME } special_tag;

/* The attributes they are read from (the first of each name). */
enum { SPA_HTTP_EQUIV, SPA_CONTENT, SPA_NAME, SPA_VALUE, SPA_ATTRNAME, SPA_TO, SPA_FROM,
       SPA_BY, SPA_VALUES, SPA_SRCDOC, SPA_COUNT_ };

typedef struct {
    size_t vs[SPA_COUNT_], ve[SPA_COUNT_];
    unsigned have;
} special_vals;

static special_tag special_of(const tag_info *t)
{
    if (name_is(t, "meta"))
        return SP_META;
    if (name_is(t, "param"))
        return SP_PARAM;
    if (name_is(t, "iframe"))
        return SP_IFRAME;
    if (name_is(t, "set") || name_is(t, "animate") || name_is(t, "animatemotion"))
        return SP_ANIMATE;
    return SP_NONE;
}

static void special_attr(special_tag sp, special_vals *sv, const char *nm, size_t an_len,
                         size_t vs, size_t ve)
{
    static const struct {
        special_tag tag;
        const char *name;
    } names[SPA_COUNT_] = {
        [SPA_HTTP_EQUIV] = { SP_META, "http-equiv" }, [SPA_CONTENT] = { SP_META, "content" },
        [SPA_NAME] = { SP_PARAM, "name" },            [SPA_VALUE] = { SP_PARAM, "value" },
        [SPA_ATTRNAME] = { SP_ANIMATE, "attributename" }, [SPA_TO] = { SP_ANIMATE, "to" },
        [SPA_FROM] = { SP_ANIMATE, "from" },          [SPA_BY] = { SP_ANIMATE, "by" },
        [SPA_VALUES] = { SP_ANIMATE, "values" },      [SPA_SRCDOC] = { SP_IFRAME, "srcdoc" },
    };
    for (unsigned q = 0; q < SPA_COUNT_; q++) {
        if (names[q].tag != sp || (sv->have & (1u << q)) || !ieq(nm, an_len, names[q].name))
            continue;
        sv->have |= 1u << q;
        sv->vs[q] = vs;
        sv->ve[q] = ve;
        return;
    }
}

/* The attribute value q decoded equals lit (ASCII case-insensitive). */
static bool special_is(scan *s, const special_vals *sv, unsigned q, const char *lit)
{
    if (!(sv->have & (1u << q)))
        return false;
    html_doc *d = s->d;
    size_t mark = d->text.len, vl;
    const char *v = decoded_value(d, s->h + sv->vs[q], sv->ve[q] - sv->vs[q], &vl);
    while (vl > 0 && is_space((unsigned char)*v)) {
        v++;
        vl--;
    }
    while (vl > 0 && is_space((unsigned char)v[vl - 1]))
        vl--;
    bool eq = ieq(v, vl, lit);
    d->text.len = mark;
    return eq;
}

/* HTML "shared declarative refresh steps" (4.2.5.3): the URL of a
   refresh content value t[a..e), or false when it names none. */
static bool refresh_url(const char *t, size_t *a, size_t *e)
{
    size_t i = *a, n = *e;
    while (i < n && is_space((unsigned char)t[i]))
        i++;
    size_t digits = i;
    while (i < n && is_digit((unsigned char)t[i]))
        i++;
    if (i == digits && !(i < n && t[i] == '.'))
        return false;
    while (i < n && (is_digit((unsigned char)t[i]) || t[i] == '.'))
        i++;
    if (i < n && t[i] != ';' && t[i] != ',' && !is_space((unsigned char)t[i]))
        return false;
    while (i < n && is_space((unsigned char)t[i]))
        i++;
    if (i < n && (t[i] == ';' || t[i] == ','))
        i++;
    while (i < n && is_space((unsigned char)t[i]))
        i++;
    if (i >= n)
        return false; /* the document itself */
    size_t u = i;
    if (n - i >= 3 && ieq(t + i, 3, "url")) {
        size_t j = i + 3;
        while (j < n && is_space((unsigned char)t[j]))
            j++;
        if (j < n && t[j] == '=') {
            j++;
            while (j < n && is_space((unsigned char)t[j]))
                j++;
            u = j;
        }
    }
    if (u < n && (t[u] == '"' || t[u] == '\'')) {
        char q = t[u++];
        const char *c = memchr(t + u, q, n - u);
        if (c != NULL)
            n = (size_t)(c - t);
    }
    *a = u;
    *e = n;
    return u < n;
}

/* The URLs of a special tag, from the attributes it captured. */
static void special_links(scan *s, special_tag sp, const special_vals *sv)
{
    html_doc *d = s->d;
    const char *h = s->h;
#define SV(q) sv->vs[q], h + sv->vs[q], sv->ve[q] - sv->vs[q]
    switch (sp) {
    case SP_META:
        if ((sv->have & (1u << SPA_CONTENT)) && special_is(s, sv, SPA_HTTP_EQUIV, "refresh")) {
            size_t start = d->text.len;
            if (!decode_into(d, &d->text, h + sv->vs[SPA_CONTENT],
                             sv->ve[SPA_CONTENT] - sv->vs[SPA_CONTENT], true))
                return;
            size_t a = start, e = d->text.len;
            if (refresh_url(d->text.p, &a, &e))
                push_link(d, HTML_REFRESH, HTML_REFRESH, sv->vs[SPA_CONTENT], a, e);
        }
        break;
    case SP_PARAM:
        /* the names Flash, Java and media plug-ins load a URL from */
        if ((sv->have & (1u << SPA_VALUE)) &&
            (special_is(s, sv, SPA_NAME, "movie") || special_is(s, sv, SPA_NAME, "src") ||
             special_is(s, sv, SPA_NAME, "url") || special_is(s, sv, SPA_NAME, "href") ||
             special_is(s, sv, SPA_NAME, "filename") || special_is(s, sv, SPA_NAME, "code") ||
             special_is(s, sv, SPA_NAME, "codebase") || special_is(s, sv, SPA_NAME, "data") ||
             special_is(s, sv, SPA_NAME, "source")))
            add_link(s, HTML_PARAM, SV(SPA_VALUE));
        break;
    case SP_ANIMATE:
        if (!special_is(s, sv, SPA_ATTRNAME, "href") &&
            !special_is(s, sv, SPA_ATTRNAME, "xlink:href"))
            break;
        for (unsigned q = SPA_TO; q <= SPA_BY; q++)
            if (sv->have & (1u << q))
                add_link(s, HTML_ANIMATE, SV(q));
        if (sv->have & (1u << SPA_VALUES)) {
            /* SVG values: a ';' separated list */
            size_t start = d->text.len;
            if (!decode_into(d, &d->text, h + sv->vs[SPA_VALUES],
                             sv->ve[SPA_VALUES] - sv->vs[SPA_VALUES], true))
                return;
            size_t i = start, end = d->text.len;
            while (i < end && !d->failed) {
                size_t j = i;
                while (j < end && d->text.p[j] != ';')
                    j++;
                size_t a = i, b = j;
                while (a < b && (unsigned char)d->text.p[a] <= 0x20)
                    a++;
                if (b > a)
                    push_link(d, HTML_ANIMATE, HTML_ANIMATE, sv->vs[SPA_VALUES], a, b);
                i = j + 1;
            }
        }
        break;
    case SP_IFRAME:
        if (sv->have & (1u << SPA_SRCDOC))
            add_link(s, HTML_SRCDOC, SV(SPA_SRCDOC));
        break;
    case SP_NONE:
        break;
    }
#undef SV
}

/* Read a tag (name and attributes) at h[i] == '<'; the links of href,
   src, action and formaction (and xlink:href) are added to the doc, the
   facts tree construction needs set in *k. Returns the position after
   the tag, or n when the input ends inside it (a tag cut off is no tag:
   *complete false). */
static size_t read_tag(scan *s, size_t i, bool end_tag, tag_info *t, tk_token *k,
                       bool *complete)
{
    const char *h = s->h;
    size_t n = s->n;
    html_doc *d = s->d;
    size_t p = i + (end_tag ? 2 : 1), name = p;
    while (p < n && !is_space((unsigned char)h[p]) && h[p] != '/' && h[p] != '>')
        p++;
    memset(t, 0, sizeof *t);
    memset(k, 0, sizeof *k);
    t->name_len = p - name;
    for (size_t q = 0; q < t->name_len && q < sizeof t->name - 1; q++)
        t->name[q] = (char)lower((unsigned char)h[name + q]);
    k->type = end_tag ? TK_END : TK_START;
    k->tag = t->name_len < sizeof t->name ? html_tag_id(t->name, t->name_len) : 0;
    k->name_hash = name_hash(h + name, t->name_len);
    k->first_link = d->n;
    bool formatting = !end_tag && html_tag_is_formatting(k->tag);
    uint64_t seen_names[TAG_HASHED_NAMES];
    size_t nseen = 0;
    uint32_t seen = 0; /* link attributes (bit per html_attr), xlink:href (31) */
    bool seen_encoding = false, seen_type = false;
    special_tag sp = end_tag ? SP_NONE : special_of(t);
    special_vals sv;
    sv.have = 0;
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
                k->self_closing = true;
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
        const char *nm = h + an;
        if (ieq(nm, an_len, "color") || ieq(nm, an_len, "face") || ieq(nm, an_len, "size"))
            k->font_attr = true;
        if (ieq(nm, an_len, "encoding") && !seen_encoding) {
            seen_encoding = true;
            size_t mark = d->text.len, vl;
            const char *v = decoded_value(d, h + vs, ve - vs, &vl);
            k->enc_html = ieq(v, vl, "text/html") || ieq(v, vl, "application/xhtml+xml");
            d->text.len = mark;
        }
        if (ieq(nm, an_len, "type") && !seen_type) {
            seen_type = true;
            size_t mark = d->text.len, vl;
            const char *v = decoded_value(d, h + vs, ve - vs, &vl);
            k->hidden = ieq(v, vl, "hidden");
            d->text.len = mark;
        }
        if (formatting) {
            /* Noah's ark compares names and values: an order-free hash
               of the first attribute of each name */
            uint64_t nh = name_hash(nm, an_len);
            bool dup = false;
            for (size_t q = 0; q < nseen && !dup; q++)
                dup = seen_names[q] == nh;
            if (!dup) {
                if (nseen < TAG_HASHED_NAMES)
                    seen_names[nseen++] = nh;
                size_t mark = d->text.len, vl;
                const char *v = decoded_value(d, h + vs, ve - vs, &vl);
                k->attr_hash += fnv(nh, v, vl) * 0x9E3779B97F4A7C15ULL;
                d->text.len = mark;
            }
        }
        attr_links(s, t, nm, an_len, vs, ve, &seen);
        if (sp != SP_NONE)
            special_attr(sp, &sv, nm, an_len, vs, ve);
    }
    if (sp != SP_NONE && sv.have != 0)
        special_links(s, sp, &sv);
    return p;
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

/* Character tokens of h[from..to) for tree construction: runs of ASCII
   white space, NUL and other characters, character references decoded
   (13.2.5.1, 13.2.5.72). */
static void char_tokens(scan *s, size_t from, size_t to, bool vis)
{
    const char *h = s->h;
    tk_token k;
    memset(&k, 0, sizeof k);
    k.first_link = s->d->n;
    bool kept, det;
    tz_state tz;
    size_t i = from, plain = from; /* h[plain..i): visible, not copied yet */
    while (i < to && !s->d->failed) {
        unsigned char c = (unsigned char)h[i];
        tk_type ty;
        size_t adv = 1;
        if (is_space(c)) {
            ty = TK_SPACE;
        } else if (c == 0) {
            ty = TK_NUL;
        } else if (c == '&') {
            s->scratch.len = 0;
            ty = TK_CHARS;
            if (char_ref(s->d, &s->scratch, h, to, i, false, &adv) && s->scratch.len > 0) {
                unsigned char f = (unsigned char)s->scratch.p[0];
                if (f == ' ' || f == '\t' || f == '\n' || f == '\f')
                    ty = TK_SPACE;
            } else {
                adv = 1;
            }
        } else {
            ty = TK_CHARS;
        }
        size_t j = i + adv;
        if (ty != TK_CHARS || c != '&') {
            /* the rest of the run of this class (references start anew) */
            while (j < to && h[j] != '&') {
                unsigned char b = (unsigned char)h[j];
                tk_type tb = is_space(b) ? TK_SPACE : b == 0 ? TK_NUL : TK_CHARS;
                if (tb != ty)
                    break;
                j++;
            }
        }
        if (vis && c == '&' && adv > 1) { /* the visible text: the bytes
                                               before, then the reference decoded */
            html_doc *d = s->d;
            buf_add(d, &d->vis, h + plain, i - plain);
            buf_add(d, &d->vis, s->scratch.p, s->scratch.len);
            plain = i + adv;
            d->runs[d->nruns - 1].exact = 0;
        }
        k.type = ty;
        k.lf_only = ty == TK_SPACE && ((j - i == 1 && (h[i] == '\n' || h[i] == '\r')) ||
                                       (j - i == 2 && h[i] == '\r' && h[i + 1] == '\n'));
        html_tree_token(s->tree, &k, &kept, &tz, &det);
        i = j;
    }
    if (vis)
        buf_add(s->d, &s->d->vis, h + plain, to - plain);
}

/* Visible text starts at h[from] (not inside an <a href>, whose text is
   its display, nor a template's content): a run of d->vis begins, filled
   by char_tokens. false: the text is not visible. */
static bool vis_begin(scan *s, size_t from)
{
    html_doc *d = s->d;
    if (s->pending || d->failed || html_tree_in_template(s->tree))
        return false;
    if (s->vis_sep && d->vis.len > 0 && !buf_add(d, &d->vis, "\n", 1))
        return false;
    s->vis_sep = false;
    if (d->nruns == d->runs_cap) {
        size_t cap = d->runs_cap ? d->runs_cap * 2 : 64;
        html_run *r = cap <= d->max / sizeof *r ? realloc(d->runs, cap * sizeof *r) : NULL;
        if (r == NULL) {
            d->failed = true;
            return false;
        }
        d->runs = r;
        d->runs_cap = cap;
    }
    if (d->vis.len > INT32_MAX || from > INT32_MAX) {
        d->failed = true; /* past what a run holds: fail closed */
        return false;
    }
    html_run *r = &d->runs[d->nruns++];
    r->vis_off = (uint32_t)d->vis.len;
    r->raw_off = (uint32_t)from & 0x7FFFFFFFu;
    r->exact = 1;
    return true;
}

size_t html_vis_offset(const html_doc *d, size_t v)
{
    size_t lo = 0, hi = d->nruns;
    while (hi - lo > 1) { /* the last run that starts at or before v */
        size_t mid = lo + (hi - lo) / 2;
        if (d->runs[mid].vis_off <= v)
            lo = mid;
        else
            hi = mid;
    }
    if (d->nruns == 0)
        return 0;
    const html_run *r = &d->runs[lo];
    return r->exact && v >= r->vis_off ? r->raw_off + (v - r->vis_off) : r->raw_off;
}

/* Text of the document. */
static void text(scan *s, size_t from, size_t to)
{
    if (to <= from)
        return;
    text_run(s, from, to);
    size_t k = from;
    while (k < to && is_space((unsigned char)s->h[k]))
        k++;
    if (k == to) { /* white space only: a word break, no run of its own */
        char_tokens(s, from, to, false);
        s->vis_sep = s->vis_sep || !s->pending;
        return;
    }
    bool vis = vis_begin(s, from);
    if (vis && memchr(s->h + from, '&', to - from) == NULL) {
        /* no reference: the visible text is the run as written */
        buf_add(s->d, &s->d->vis, s->h + from, to - from);
        vis = false;
    }
    char_tokens(s, from, to, vis);
}

static void simple_token(scan *s, tk_type ty, bool quirks)
{
    tk_token k;
    memset(&k, 0, sizeof k);
    k.type = ty;
    k.quirks = quirks;
    k.first_link = s->d->n;
    bool kept, det;
    tz_state tz;
    html_tree_token(s->tree, &k, &kept, &tz, &det);
}

/* A start tag at h[i] ('<' then a letter). */
static size_t start_tag(scan *s, size_t i)
{
    tag_info t;
    tk_token k;
    bool complete;
    size_t p = read_tag(s, i, false, &t, &k, &complete);
    if (!complete) {
        s->d->n = k.first_link;
        return s->n;
    }
    bool kept, det;
    tz_state tz;
    html_tree_token(s->tree, &k, &kept, &tz, &det);
    if (det)
        s->pending = false; /* its link left the document */
    if (kept && name_is(&t, "a")) {
        finish_display(s); /* an <a> inside an <a> closes the first */
        for (size_t r = k.first_link; r < s->d->n; r++) {
            if (s->d->links[r].attr == HTML_HREF && r >= s->d->n - (s->d->n - r)) {
                s->pending = true;
                s->pending_link = r;
                s->disp_start = s->d->disp.len;
                break;
            }
        }
    }
    if (!html_tag_is_inline(k.tag)) /* a linkifier reading the rendered text sees
                                       "www.<b>bank</b>.example" as one word */
        s->vis_sep = true;
    switch (tz) {
    case TZ_RCDATA:
    case TZ_RAWTEXT: {
        size_t end = raw_text_end(s->h, s->n, p, t.name, t.name_len);
        if (kept && tz == TZ_RAWTEXT && name_is(&t, "style") && !html_tree_in_template(s->tree)) {
            /* a style sheet: its URLs (no character references in it) */
            css_sink sheet = { s->d, HTML_CSS_URL, p, false };
            if (!css_scan(s->h + p, end - p, on_css_url, &sheet))
                s->d->failed = true;
        }
        return end;
    }
    case TZ_SCRIPT:
        return script_end(s->h, s->n, p);
    case TZ_PLAINTEXT:
        return s->n;
    default:
        return p;
    }
}

/* An end tag at h[i] ("</" then a letter). */
static size_t end_tag(scan *s, size_t i)
{
    tag_info t;
    tk_token k;
    bool complete;
    size_t p = read_tag(s, i, true, &t, &k, &complete);
    if (!complete)
        return s->n;
    bool kept, det;
    tz_state tz;
    html_tree_token(s->tree, &k, &kept, &tz, &det);
    if (name_is(&t, "a"))
        finish_display(s);
    if (!html_tag_is_inline(k.tag))
        s->vis_sep = true;
    return p;
}

/* The public and system identifiers of a DOCTYPE that set quirks mode
   (HTML 13.2.6.4.1), lower case. */
static const char *const quirks_public_prefixes[] = {
    "+//silmaril//dtd html pro v0r11 19970101//", "-//as//dtd html 3.0 aswedit + extensions//",
    "-//advasoft ltd//dtd html 3.0 aswedit + extensions//", "-//ietf//dtd html 2.0 level 1//",
    "-//ietf//dtd html 2.0 level 2//", "-//ietf//dtd html 2.0 strict level 1//",
    "-//ietf//dtd html 2.0 strict level 2//", "-//ietf//dtd html 2.0 strict//",
    "-//ietf//dtd html 2.0//", "-//ietf//dtd html 2.1e//", "-//ietf//dtd html 3.0//",
    "-//ietf//dtd html 3.2 final//", "-//ietf//dtd html 3.2//", "-//ietf//dtd html 3//",
    "-//ietf//dtd html level 0//", "-//ietf//dtd html level 1//", "-//ietf//dtd html level 2//",
    "-//ietf//dtd html level 3//", "-//ietf//dtd html strict level 0//",
    "-//ietf//dtd html strict level 1//", "-//ietf//dtd html strict level 2//",
    "-//ietf//dtd html strict level 3//", "-//ietf//dtd html strict//", "-//ietf//dtd html//",
    "-//metrius//dtd metrius presentational//",
    "-//microsoft//dtd internet explorer 2.0 html strict//",
    "-//microsoft//dtd internet explorer 2.0 html//",
    "-//microsoft//dtd internet explorer 2.0 tables//",
    "-//microsoft//dtd internet explorer 3.0 html strict//",
    "-//microsoft//dtd internet explorer 3.0 html//",
    "-//microsoft//dtd internet explorer 3.0 tables//", "-//netscape comm. corp.//dtd html//",
    "-//netscape comm. corp.//dtd strict html//", "-//o'reilly and associates//dtd html 2.0//",
    "-//o'reilly and associates//dtd html extended 1.0//",
    "-//o'reilly and associates//dtd html extended relaxed 1.0//",
    "-//sq//dtd html 2.0 hotmetal + extensions//",
    "-//softquad software//dtd hotmetal pro 6.0::19990601::extensions to html 4.0//",
    "-//softquad//dtd hotmetal pro 4.0::19971010::extensions to html 4.0//",
    "-//spyglass//dtd html 2.0 extended//", "-//sun microsystems corp.//dtd hotjava html//",
    "-//sun microsystems corp.//dtd hotjava strict html//", "-//w3c//dtd html 3 1995-03-24//",
    "-//w3c//dtd html 3.2 draft//", "-//w3c//dtd html 3.2 final//", "-//w3c//dtd html 3.2//",
    "-//w3c//dtd html 3.2s draft//", "-//w3c//dtd html 4.0 frameset//",
    "-//w3c//dtd html 4.0 transitional//", "-//w3c//dtd html experimental 19960712//",
    "-//w3c//dtd html experimental 970421//", "-//w3c//dtd w3 html//",
    "-//w3o//dtd w3 html 3.0//", "-//webtechs//dtd mozilla html 2.0//",
    "-//webtechs//dtd mozilla html//", NULL};

static bool iprefix(const char *s, size_t n, const char *lit)
{
    size_t l = strlen(lit);
    return n >= l && ieq(s, l, lit);
}

/* A quoted DOCTYPE identifier at h[*p]; false when missing or cut. */
static bool doctype_id(const char *h, size_t end, size_t *p, size_t *s, size_t *len)
{
    if (*p >= end || (h[*p] != '"' && h[*p] != '\''))
        return false;
    const char *c = memchr(h + *p + 1, h[*p], end - *p - 1);
    if (c == NULL)
        return false; /* '>' inside: abrupt, force-quirks */
    *s = *p + 1;
    *len = (size_t)(c - h) - *s;
    *p = (size_t)(c - h) + 1;
    return true;
}

/* Quirks mode from the DOCTYPE in h[from..end) ("<!DOCTYPE" skipped,
   end at its '>'); cut: the input ended inside it (13.2.5.53-68). */
static bool doctype_quirks(const char *h, size_t from, size_t end, bool cut)
{
    size_t p = from;
    while (p < end && is_space((unsigned char)h[p]))
        p++;
    size_t nm = p;
    while (p < end && !is_space((unsigned char)h[p]))
        p++;
    if (cut || p == nm || !ieq(h + nm, p - nm, "html"))
        return true;
    while (p < end && is_space((unsigned char)h[p]))
        p++;
    if (p == end)
        return false;
    size_t ps = 0, pl = 0, ss = 0, sl = 0;
    bool pub = false, sys = false;
    if (end - p >= 6 && ieq(h + p, 6, "public")) {
        p += 6;
        while (p < end && is_space((unsigned char)h[p]))
            p++;
        if (!doctype_id(h, end, &p, &ps, &pl))
            return true;
        pub = true;
        while (p < end && is_space((unsigned char)h[p]))
            p++;
        if (p < end) {
            if (!doctype_id(h, end, &p, &ss, &sl))
                return true;
            sys = true;
        }
    } else if (end - p >= 6 && ieq(h + p, 6, "system")) {
        p += 6;
        while (p < end && is_space((unsigned char)h[p]))
            p++;
        if (!doctype_id(h, end, &p, &ss, &sl))
            return true;
        sys = true;
    } else {
        return true;
    }
    if (sys && ieq(h + ss, sl, "http://www.ibm.com/data/dtd/v11/ibmxhtml1-transitional.dtd"))
        return true;
    if (!pub)
        return false;
    const char *v = h + ps;
    if (ieq(v, pl, "-//w3o//dtd w3 html strict 3.0//en//") ||
        ieq(v, pl, "-/w3c/dtd html 4.0 transitional/en") || ieq(v, pl, "html"))
        return true;
    for (const char *const *q = quirks_public_prefixes; *q; q++)
        if (iprefix(v, pl, *q))
            return true;
    return !sys && (iprefix(v, pl, "-//w3c//dtd html 4.01 frameset//") ||
                    iprefix(v, pl, "-//w3c//dtd html 4.01 transitional//"));
}

/* The comment whose content is h[cs..ce): when it is a conditional
   comment ("[if" first: Outlook for Windows renders what follows "]>"
   up to "<![endif]" as HTML; the "bulletproof button" of mail templates),
   that content is kept in d->conds. */
static void cond_comment(scan *s, size_t cs, size_t ce)
{
    const char *h = s->h;
    html_doc *d = s->d;
    if (ce - cs < 5 || !ieq(h + cs, 3, "[if") || d->failed)
        return;
    size_t a = cs + 3;
    while (a + 1 < ce && !(h[a] == ']' && h[a + 1] == '>'))
        a++;
    if (a + 1 >= ce)
        return;
    a += 2;
    size_t b = ce;
    if (b - a >= 9 && ieq(h + b - 9, 9, "<![endif]"))
        b -= 9;
    if (b <= a)
        return;
    if (d->nconds == d->conds_cap) {
        size_t cap = d->conds_cap ? d->conds_cap * 2 : 8;
        if (cap * 2 * sizeof *d->conds > d->max) {
            d->failed = true;
            return;
        }
        size_t *p = realloc(d->conds, cap * 2 * sizeof *d->conds);
        if (p == NULL) {
            d->failed = true;
            return;
        }
        d->conds = p;
        d->conds_cap = cap;
    }
    d->conds[2 * d->nconds] = a;
    d->conds[2 * d->nconds + 1] = b;
    d->nconds++;
}

/* "<!" at h[i]: comment, DOCTYPE, CDATA or bogus comment. */
static size_t markup_decl(scan *s, size_t i)
{
    const char *h = s->h;
    size_t n = s->n;
    if (i + 3 < n && h[i + 2] == '-' && h[i + 3] == '-') {
        /* 13.2.5.43-52: "<!-->" and "<!--->" end at once; else the first
           "-->" or "--!>" after "<!--" */
        simple_token(s, TK_COMMENT, false);
        for (size_t k = i + 2; k + 2 < n;) {
            const char *m = memchr(h + k, '-', n - k);
            if (m == NULL)
                break;
            k = (size_t)(m - h);
            if (k + 2 < n && h[k + 1] == '-' && h[k + 2] == '>') {
                if (k >= i + 4)
                    cond_comment(s, i + 4, k);
                return k + 3;
            }
            if (k >= i + 4 && k + 3 < n && h[k + 1] == '-' && h[k + 2] == '!' && h[k + 3] == '>') {
                cond_comment(s, i + 4, k);
                return k + 4;
            }
            k++;
        }
        if (n > i + 4)
            cond_comment(s, i + 4, n); /* to the end of the input */
        return n;
    }
    if (i + 8 < n && memcmp(h + i + 2, "[CDATA[", 7) == 0 && html_tree_cdata_ok(s->tree)) {
        size_t end = n, next = n;
        for (size_t k = i + 9; k + 2 < n;) {
            const char *m = memchr(h + k, ']', n - k);
            if (m == NULL)
                break;
            k = (size_t)(m - h);
            if (k + 2 < n && h[k + 1] == ']' && h[k + 2] == '>') {
                end = k;
                next = k + 3;
                break;
            }
            k++;
        }
        /* its text is characters in foreign content */
        if (end > i + 9)
            char_tokens(s, i + 9, end, false);
        return next;
    }
    if (i + 9 <= n && ieq(h + i + 2, 7, "doctype")) {
        size_t end = past_gt(h, n, i + 9);
        bool cut = end == n && (n == 0 || h[n - 1] != '>');
        simple_token(s, TK_DOCTYPE, doctype_quirks(h, i + 9, cut ? n : end - 1, cut));
        return end;
    }
    simple_token(s, TK_COMMENT, false);
    return past_gt(h, n, i + 2); /* bogus comment */
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
    s->tree = html_tree_new(d);
    size_t i = 0;
    while (i < n && !d->failed) {
        const char *lt = memchr(h + i, '<', n - i);
        size_t j = lt ? (size_t)(lt - h) : n;
        text(s, i, j);
        i = j;
        if (i >= n)
            break;
        unsigned char c1 = i + 1 < n ? (unsigned char)h[i + 1] : 0;
        if (i + 1 >= n) {
            text(s, i, i + 1);
            i++;
        } else if (c1 == '!') {
            i = markup_decl(s, i);
        } else if (c1 == '?') {
            simple_token(s, TK_COMMENT, false);
            i = past_gt(h, n, i + 1); /* bogus comment */
        } else if (c1 == '/') {
            if (i + 2 >= n) {
                text(s, i, n); /* "</" at the end is text */
                i = n;
            } else if (is_alpha((unsigned char)h[i + 2])) {
                i = end_tag(s, i);
            } else if (h[i + 2] == '>') {
                i += 3; /* "</>": nothing */
            } else {
                simple_token(s, TK_COMMENT, false);
                i = past_gt(h, n, i + 2); /* bogus comment */
            }
        } else if (is_alpha(c1)) {
            i = start_tag(s, i);
        } else {
            text(s, i, i + 1); /* a lone '<' is text */
            i++;
        }
    }
    finish_display(s);
    html_tree_free(s->tree);
    free(s->scratch.p);
    free(s->css.p);
    free(s);
    return !d->failed;
}
