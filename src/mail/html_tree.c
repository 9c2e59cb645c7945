/*
 * html_tree.c - tree construction (HTML standard 13.2.6) for link
 * extraction: see html_tree.h. The insertion modes, their rules and the
 * adoption agency follow the standard step by step, and parse5 (the
 * reference of tests/html5_diff.mjs) where the two differ in a way that
 * only makes urisan report more; doc/extract.md lists those places.
 */
#include "html_tree.h"

#include <stdlib.h>
#include <string.h>

typedef enum {
    T_UNKNOWN,
    T_A,
    T_ADDRESS,
    T_ANNOTATION_XML,
    T_APPLET,
    T_AREA,
    T_ARTICLE,
    T_ASIDE,
    T_B,
    T_BASE,
    T_BASEFONT,
    T_BGSOUND,
    T_BIG,
    T_BLOCKQUOTE,
    T_BODY,
    T_BR,
    T_BUTTON,
    T_CAPTION,
    T_CENTER,
    T_CODE,
    T_COL,
    T_COLGROUP,
    T_DD,
    T_DESC,
    T_DETAILS,
    T_DIALOG,
    T_DIR,
    T_DIV,
    T_DL,
    T_DT,
    T_EM,
    T_EMBED,
    T_FIELDSET,
    T_FIGCAPTION,
    T_FIGURE,
    T_FONT,
    T_FOOTER,
    T_FOREIGNOBJECT,
    T_FORM,
    T_FRAME,
    T_FRAMESET,
    T_H1,
    T_H2,
    T_H3,
    T_H4,
    T_H5,
    T_H6,
    T_HEAD,
    T_HEADER,
    T_HGROUP,
    T_HR,
    T_HTML,
    T_I,
    T_IFRAME,
    T_IMAGE,
    T_IMG,
    T_INPUT,
    T_KEYGEN,
    T_LI,
    T_LINK,
    T_LISTING,
    T_MAIN,
    T_MALIGNMARK,
    T_MARQUEE,
    T_MATH,
    T_MENU,
    T_META,
    T_MGLYPH,
    T_MI,
    T_MN,
    T_MO,
    T_MS,
    T_MTEXT,
    T_NAV,
    T_NOBR,
    T_NOEMBED,
    T_NOFRAMES,
    T_NOSCRIPT,
    T_OBJECT,
    T_OL,
    T_OPTGROUP,
    T_OPTION,
    T_P,
    T_PARAM,
    T_PLAINTEXT,
    T_PRE,
    T_RB,
    T_RP,
    T_RT,
    T_RTC,
    T_RUBY,
    T_S,
    T_SCRIPT,
    T_SEARCH,
    T_SECTION,
    T_SELECT,
    T_SMALL,
    T_SOURCE,
    T_SPAN,
    T_STRIKE,
    T_STRONG,
    T_STYLE,
    T_SUB,
    T_SUMMARY,
    T_SUP,
    T_SVG,
    T_TABLE,
    T_TBODY,
    T_TD,
    T_TEMPLATE,
    T_TEXTAREA,
    T_TFOOT,
    T_TH,
    T_THEAD,
    T_TITLE,
    T_TR,
    T_TRACK,
    T_TT,
    T_U,
    T_UL,
    T_VAR,
    T_WBR,
    T_XMP,
    T_COUNT
} tag_id;

static const char *const tag_names[] = {
    "",
    "a",
    "address",
    "annotation-xml",
    "applet",
    "area",
    "article",
    "aside",
    "b",
    "base",
    "basefont",
    "bgsound",
    "big",
    "blockquote",
    "body",
    "br",
    "button",
    "caption",
    "center",
    "code",
    "col",
    "colgroup",
    "dd",
    "desc",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "em",
    "embed",
    "fieldset",
    "figcaption",
    "figure",
    "font",
    "footer",
    "foreignobject",
    "form",
    "frame",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hgroup",
    "hr",
    "html",
    "i",
    "iframe",
    "image",
    "img",
    "input",
    "keygen",
    "li",
    "link",
    "listing",
    "main",
    "malignmark",
    "marquee",
    "math",
    "menu",
    "meta",
    "mglyph",
    "mi",
    "mn",
    "mo",
    "ms",
    "mtext",
    "nav",
    "nobr",
    "noembed",
    "noframes",
    "noscript",
    "object",
    "ol",
    "optgroup",
    "option",
    "p",
    "param",
    "plaintext",
    "pre",
    "rb",
    "rp",
    "rt",
    "rtc",
    "ruby",
    "s",
    "script",
    "search",
    "section",
    "select",
    "small",
    "source",
    "span",
    "strike",
    "strong",
    "style",
    "sub",
    "summary",
    "sup",
    "svg",
    "table",
    "tbody",
    "td",
    "template",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "title",
    "tr",
    "track",
    "tt",
    "u",
    "ul",
    "var",
    "wbr",
    "xmp",
};

#define NTAGS (sizeof tag_names / sizeof tag_names[0])

uint16_t html_tag_id(const char *lower, size_t len)
{
    if (len == 0 || len > 14 || lower[0] < 'a' || lower[0] > 'x')
        return T_UNKNOWN;
    size_t lo = 1, hi = NTAGS;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *m = tag_names[mid];
        int c = (unsigned char)lower[0] - (unsigned char)m[0];
        size_t i = 1;
        while (c == 0 && i < len && m[i] != '\0') {
            c = (unsigned char)lower[i] - (unsigned char)m[i];
            i++;
        }
        if (c == 0)
            c = i < len ? 1 : m[i] != '\0' ? -1 : 0;
        if (c == 0)
            return (uint16_t)mid;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return T_UNKNOWN;
}

bool html_tag_is_formatting(uint16_t tag)
{
    switch (tag) {
    case T_A: case T_B: case T_BIG: case T_CODE: case T_EM: case T_FONT: case T_I: case T_NOBR:
    case T_S: case T_SMALL: case T_STRIKE: case T_STRONG: case T_TT: case T_U:
        return true;
    default:
        return false;
    }
}

bool html_tag_is_inline(uint16_t tag)
{
    /* an element of no tag of the table (abbr, mark, time, a custom
       element ...) is inline by default too (CSS display: inline) */
    return tag == 0 || (tag != T_A && html_tag_is_formatting(tag)) || tag == T_SPAN ||
           tag == T_SUB || tag == T_SUP;
}

enum { NS_HTML, NS_SVG, NS_MATH };
#define NONE UINT32_MAX

typedef enum {
    M_INITIAL, M_BEFORE_HTML, M_BEFORE_HEAD, M_IN_HEAD, M_IN_HEAD_NOSCRIPT, M_AFTER_HEAD,
    M_IN_BODY, M_TEXT, M_IN_TABLE, M_IN_TABLE_TEXT, M_IN_CAPTION, M_IN_COLUMN_GROUP,
    M_IN_TABLE_BODY, M_IN_ROW, M_IN_CELL, M_IN_SELECT, M_IN_SELECT_IN_TABLE, M_IN_TEMPLATE,
    M_AFTER_BODY, M_IN_FRAMESET, M_AFTER_FRAMESET, M_AFTER_AFTER_BODY, M_AFTER_AFTER_FRAMESET
} imode;

/* One open element. The counts say how many elements of a class are open
   at or below this slot, so "is one above slot i" is a subtraction. */
typedef struct {
    uint16_t tag;
    uint8_t ns;
    bool hip;            /* MathML annotation-xml with an HTML encoding */
    uint32_t key;        /* tag and namespace, or an interned name */
    uint32_t prev;       /* the next lower open element with this key */
    uint32_t entry;      /* its entry in the active formatting list */
    uint32_t serial;     /* identity (the form and head element pointers) */
    uint32_t n_special, n_scope, n_listb;
    uint32_t html_top;   /* topmost HTML element at or below */
} oslot;

/* An entry of the list of active formatting elements (a pool, linked). */
typedef struct {
    uint32_t older, newer;
    uint32_t slot;       /* NONE: its element is not open */
    uint32_t serial;     /* this entry's identity */
    uint16_t tag;
    bool marker;
    bool live;
    uint64_t ahash;
} fentry;

struct html_tree {
    html_doc *d;
    oslot *st;
    size_t depth, cap;
    uint32_t *tops;
    size_t ntops;
    uint64_t *nk_hash;   /* interned names: (namespace, name) -> key */
    uint32_t *nk_key;
    size_t nk_cap, nk_n;
    fentry *fe;
    size_t fe_n, fe_cap;
    uint32_t fe_free, newest, bookmark;
    uint32_t serial;
    imode mode, orig_mode;
    uint8_t *tmpl;       /* the stack of template insertion modes */
    size_t ntmpl, tmpl_cap;
    bool quirks, frameset_ok, skip_nl;
    bool table_text_chars;   /* pending non-space characters (in table text) */
    bool form_set;
    uint32_t form_serial;
    bool head_set;
    uint32_t head_serial;
    /* the token being processed */
    const tk_token *tok;
    bool kept;
    tz_state tz;
    int nest;            /* reprocessing depth (bounded by the rules) */
    /* <html> and <body>: link attributes they have (bit per html_attr),
       where the body's links start, which links are the html element's */
    unsigned html_attrs, body_attrs;
    size_t body_first_link;
    size_t html_links[64];
    size_t n_html_links;
    size_t first;        /* the token's first link (moves when the body leaves) */
    bool detached;       /* links were removed before the token's */
    uint8_t kept_ns;
};

/* ---- element classes (HTML 13.2.4.2, parse5's lists) ---- */

enum { C_SPECIAL = 1, C_LISTB = 2, C_SCOPE = 4 };

static unsigned classes(uint8_t ns, uint16_t tag)
{
    if (ns == NS_SVG)
        return (tag == T_DESC || tag == T_FOREIGNOBJECT || tag == T_TITLE)
                   ? C_SPECIAL | C_LISTB | C_SCOPE : 0;
    if (ns == NS_MATH)
        return (tag == T_MI || tag == T_MO || tag == T_MN || tag == T_MS || tag == T_MTEXT ||
                tag == T_ANNOTATION_XML) ? C_SPECIAL | C_LISTB | C_SCOPE : 0;
    unsigned c = 0;
    switch (tag) {
    case T_APPLET: case T_CAPTION: case T_HTML: case T_MARQUEE: case T_OBJECT: case T_TABLE:
    case T_TD: case T_TEMPLATE: case T_TH:
        c = C_SCOPE;
        /* fall through */
    case T_ADDRESS: case T_AREA: case T_ARTICLE: case T_ASIDE: case T_BASE: case T_BASEFONT:
    case T_BGSOUND: case T_BLOCKQUOTE: case T_BODY: case T_BR: case T_BUTTON: case T_CENTER:
    case T_COL: case T_COLGROUP: case T_DD: case T_DETAILS: case T_DIR: case T_DIV: case T_DL:
    case T_DT: case T_EMBED: case T_FIELDSET: case T_FIGCAPTION: case T_FIGURE: case T_FOOTER:
    case T_FORM: case T_FRAME: case T_FRAMESET: case T_H1: case T_H2: case T_H3: case T_H4:
    case T_H5: case T_H6: case T_HEAD: case T_HEADER: case T_HGROUP: case T_HR: case T_IFRAME:
    case T_IMG: case T_INPUT: case T_LI: case T_LINK: case T_LISTING: case T_MAIN: case T_MENU:
    case T_META: case T_NAV: case T_NOEMBED: case T_NOFRAMES: case T_NOSCRIPT: case T_OL:
    case T_P: case T_PARAM: case T_PLAINTEXT: case T_PRE: case T_SCRIPT: case T_SECTION:
    case T_SELECT: case T_SOURCE: case T_STYLE: case T_SUMMARY: case T_TBODY: case T_TEXTAREA:
    case T_TFOOT: case T_THEAD: case T_TITLE: case T_TR: case T_TRACK: case T_UL: case T_WBR:
    case T_XMP:
        c |= C_SPECIAL;
        if (tag != T_ADDRESS && tag != T_DIV && tag != T_P)
            c |= C_LISTB;
        return c;
    default:
        return 0;
    }
}

/* ---- growable arrays, bounded by the doc's max ---- */

static bool grow(html_tree *t, void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    if (c > t->d->max / size) {
        t->d->failed = true;
        return false;
    }
    void *q = realloc(*p, c * size);
    if (q == NULL) {
        t->d->failed = true;
        return false;
    }
    *p = q;
    *cap = c;
    return true;
}

/* ---- keys: tag and namespace, or (namespace, name) interned ---- */

#define KNOWN_KEYS (3u * (uint32_t)NTAGS)

static uint32_t key_of(html_tree *t, uint8_t ns, uint16_t tag, uint64_t name_hash)
{
    if (tag != T_UNKNOWN)
        return ns * (uint32_t)NTAGS + tag;
    uint64_t h = name_hash * 3 + ns + 1; /* never 0: 0 marks a free cell */
    if (h == 0)
        h = 1;
    if (t->nk_n * 2 >= t->nk_cap) {
        size_t nc = t->nk_cap ? t->nk_cap * 2 : 64;
        if (nc > t->d->max / 16) {
            t->d->failed = true;
            return KNOWN_KEYS;
        }
        uint64_t *nh = calloc(nc, sizeof *nh);
        uint32_t *nk = calloc(nc, sizeof *nk);
        if (nh == NULL || nk == NULL) {
            free(nh);
            free(nk);
            t->d->failed = true;
            return KNOWN_KEYS;
        }
        for (size_t i = 0; i < t->nk_cap; i++) {
            if (t->nk_hash[i] == 0)
                continue;
            size_t j = (size_t)(t->nk_hash[i] & (nc - 1));
            while (nh[j] != 0)
                j = (j + 1) & (nc - 1);
            nh[j] = t->nk_hash[i];
            nk[j] = t->nk_key[i];
        }
        free(t->nk_hash);
        free(t->nk_key);
        t->nk_hash = nh;
        t->nk_key = nk;
        t->nk_cap = nc;
    }
    size_t j = (size_t)(h & (t->nk_cap - 1));
    while (t->nk_hash[j] != 0 && t->nk_hash[j] != h)
        j = (j + 1) & (t->nk_cap - 1);
    if (t->nk_hash[j] == 0) {
        t->nk_hash[j] = h;
        t->nk_key[j] = KNOWN_KEYS + (uint32_t)t->nk_n++;
    }
    uint32_t key = t->nk_key[j];
    if (key >= t->ntops) {
        size_t old = t->ntops;
        if (!grow(t, (void **)&t->tops, &t->ntops, (size_t)key + 1, sizeof *t->tops))
            return KNOWN_KEYS;
        for (size_t i = old; i < t->ntops; i++)
            t->tops[i] = NONE;
    }
    return key;
}

static uint32_t top_key(const html_tree *t, uint32_t key)
{
    return key < t->ntops ? t->tops[key] : NONE;
}

/* The slot of the topmost open HTML element with this tag, or NONE. */
static uint32_t top_of(const html_tree *t, uint16_t tag)
{
    return t->tops[NS_HTML * NTAGS + tag];
}

static uint32_t max2(uint32_t a, uint32_t b)
{
    if (a == NONE)
        return b;
    if (b == NONE)
        return a;
    return a > b ? a : b;
}

/* ---- the stack of open elements ---- */

static void recount(html_tree *t, size_t from)
{
    for (size_t j = from; j < t->depth; j++) {
        oslot *s = &t->st[j];
        unsigned c = classes(s->ns, s->tag);
        const oslot *b = j ? &t->st[j - 1] : NULL;
        s->n_special = (b ? b->n_special : 0) + ((c & C_SPECIAL) ? 1 : 0);
        s->n_scope = (b ? b->n_scope : 0) + ((c & C_SCOPE) ? 1 : 0);
        s->n_listb = (b ? b->n_listb : 0) + ((c & C_LISTB) ? 1 : 0);
        s->html_top = s->ns == NS_HTML ? (uint32_t)j : (b ? b->html_top : NONE);
    }
}

static uint32_t push(html_tree *t, uint16_t tag, uint8_t ns, uint32_t key, bool hip)
{
    if (t->d->failed || !grow(t, (void **)&t->st, &t->cap, t->depth + 1, sizeof *t->st))
        return NONE;
    uint32_t i = (uint32_t)t->depth++;
    oslot *s = &t->st[i];
    s->tag = tag;
    s->ns = ns;
    s->hip = hip;
    s->key = key;
    s->prev = top_key(t, key);
    t->tops[key] = i;
    s->entry = NONE;
    s->serial = ++t->serial;
    recount(t, i);
    return i;
}

static void pop(html_tree *t)
{
    if (t->depth == 0)
        return;
    oslot *s = &t->st[--t->depth];
    if (s->entry != NONE)
        t->fe[s->entry].slot = NONE;
    t->tops[s->key] = s->prev;
}

static void shorten_to(html_tree *t, size_t len)
{
    while (t->depth > len)
        pop(t);
}

static void remove_at(html_tree *t, uint32_t idx)
{
    if (idx == NONE || idx >= t->depth)
        return;
    if (idx + 1 == t->depth) {
        pop(t);
        return;
    }
    oslot gone = t->st[idx];
    if (gone.entry != NONE)
        t->fe[gone.entry].slot = NONE;
    if (t->tops[gone.key] == idx)
        t->tops[gone.key] = gone.prev;
    for (size_t j = idx + 1; j < t->depth; j++) {
        oslot *s = &t->st[j];
        if (s->prev == idx)
            s->prev = gone.prev;
        else if (s->prev != NONE && s->prev > idx)
            s->prev--;
        if (t->tops[s->key] == j)
            t->tops[s->key] = (uint32_t)j - 1;
        if (s->entry != NONE)
            t->fe[s->entry].slot = (uint32_t)j - 1;
        t->st[j - 1] = *s;
    }
    t->depth--;
    recount(t, idx);
}

/* Open an element at slot pos (below the elements there). */
static void insert_at(html_tree *t, uint32_t pos, uint16_t tag, uint32_t key, uint32_t entry)
{
    if (t->d->failed || !grow(t, (void **)&t->st, &t->cap, t->depth + 1, sizeof *t->st))
        return;
    for (size_t j = t->depth; j-- > pos;) {
        oslot *s = &t->st[j];
        if (s->prev != NONE && s->prev >= pos)
            s->prev++;
        if (t->tops[s->key] == j)
            t->tops[s->key] = (uint32_t)j + 1;
        if (s->entry != NONE)
            t->fe[s->entry].slot = (uint32_t)j + 1;
        t->st[j + 1] = *s;
    }
    t->depth++;
    oslot *n = &t->st[pos];
    memset(n, 0, sizeof *n);
    n->tag = tag;
    n->ns = NS_HTML;
    n->key = key;
    n->entry = entry;
    n->serial = ++t->serial;
    if (entry != NONE)
        t->fe[entry].slot = pos;
    /* its place in the chain of its key */
    uint32_t above = NONE, k = t->tops[key];
    while (k != NONE && k > pos) {
        above = k;
        k = t->st[k].prev;
    }
    n->prev = k;
    if (above == NONE)
        t->tops[key] = pos;
    else
        t->st[above].prev = pos;
    recount(t, pos);
}

static const oslot *cur(const html_tree *t)
{
    return t->depth ? &t->st[t->depth - 1] : NULL;
}

static uint16_t cur_tag(const html_tree *t)
{
    return t->depth ? t->st[t->depth - 1].tag : T_UNKNOWN;
}

static bool cur_is(const html_tree *t, uint16_t tag)
{
    const oslot *c = cur(t);
    return c && c->tag == tag && c->ns == NS_HTML;
}

static uint32_t top_slot(const html_tree *t)
{
    return (uint32_t)t->depth - 1;
}

/* "has an element in scope" and its variants (13.2.4.2); target: a slot. */
enum { SC_DEFAULT, SC_LIST, SC_BUTTON, SC_TABLE };

static bool slot_in_scope(const html_tree *t, uint32_t target, int kind)
{
    if (target == NONE || t->depth == 0)
        return false;
    uint32_t b = NONE;
    switch (kind) {
    case SC_LIST:
        b = max2(top_of(t, T_OL), top_of(t, T_UL));
        break;
    case SC_BUTTON:
        b = top_of(t, T_BUTTON);
        break;
    case SC_TABLE:
        b = max2(top_of(t, T_TABLE), top_of(t, T_HTML));
        return b == NONE || target >= b;
    default:
        break;
    }
    if (b != NONE && target < b)
        return false;
    return t->st[top_slot(t)].n_scope == t->st[target].n_scope;
}

static bool in_scope(const html_tree *t, uint16_t tag, int kind)
{
    return slot_in_scope(t, top_of(t, tag), kind);
}

static bool in_select_scope(const html_tree *t, uint16_t tag)
{
    for (size_t i = t->depth; i-- > 0;) {
        const oslot *s = &t->st[i];
        if (s->ns != NS_HTML)
            continue;
        if (s->tag == tag)
            return true;
        if (s->tag != T_OPTION && s->tag != T_OPTGROUP)
            return false;
    }
    return true;
}

static uint32_t top_header(const html_tree *t)
{
    uint32_t m = NONE;
    for (uint16_t h = T_H1; h <= T_H6; h++)
        m = max2(m, top_of(t, h));
    return m;
}

static uint32_t top_table_body(const html_tree *t)
{
    return max2(top_of(t, T_TBODY), max2(top_of(t, T_TFOOT), top_of(t, T_THEAD)));
}

static void pop_until_tag(html_tree *t, uint16_t tag)
{
    uint32_t i = top_of(t, tag);
    shorten_to(t, i == NONE ? 0 : i);
}

static bool implied_end(uint16_t tag, bool thorough)
{
    switch (tag) {
    case T_DD: case T_DT: case T_LI: case T_OPTGROUP: case T_OPTION: case T_P: case T_RB:
    case T_RP: case T_RT: case T_RTC:
        return true;
    case T_CAPTION: case T_COLGROUP: case T_TBODY: case T_TD: case T_TFOOT: case T_TH:
    case T_THEAD: case T_TR:
        return thorough;
    default:
        return false;
    }
}

static void gen_implied(html_tree *t, bool thorough, uint16_t except)
{
    const oslot *c;
    while ((c = cur(t)) != NULL && c->ns == NS_HTML && c->tag != except &&
           implied_end(c->tag, thorough))
        pop(t);
}

/* parse5's "with exclusion" is the thorough list (html5_diff reference). */
static void gen_implied_except(html_tree *t, uint16_t tag)
{
    gen_implied(t, true, tag == T_UNKNOWN ? (uint16_t)0xFFFF : tag);
}

static void clear_back_to(html_tree *t, uint16_t a, uint16_t b, uint16_t c)
{
    uint32_t i = max2(top_of(t, a), max2(b ? top_of(t, b) : NONE, c ? top_of(t, c) : NONE));
    i = max2(i, max2(top_of(t, T_TEMPLATE), top_of(t, T_HTML)));
    shorten_to(t, i == NONE ? 0 : (size_t)i + 1);
}

static uint32_t find_serial(const html_tree *t, uint16_t tag, uint32_t serial)
{
    for (uint32_t k = top_of(t, tag); k != NONE; k = t->st[k].prev)
        if (t->st[k].serial == serial)
            return k;
    return NONE;
}

static bool in_template(const html_tree *t)
{
    return top_of(t, T_TEMPLATE) != NONE;
}

/* ---- the list of active formatting elements (13.2.4.3) ---- */

static uint32_t fe_alloc(html_tree *t)
{
    uint32_t e;
    if (t->fe_free != NONE) {
        e = t->fe_free;
        t->fe_free = t->fe[e].older;
    } else {
        if (!grow(t, (void **)&t->fe, &t->fe_cap, t->fe_n + 1, sizeof *t->fe))
            return NONE;
        e = (uint32_t)t->fe_n++;
    }
    memset(&t->fe[e], 0, sizeof t->fe[e]);
    t->fe[e].live = true;
    t->fe[e].slot = NONE;
    t->fe[e].serial = ++t->serial;
    return e;
}

/* Link entry e directly after (newer than) `older` (NONE: the oldest). */
static void fe_link(html_tree *t, uint32_t e, uint32_t older)
{
    fentry *f = &t->fe[e];
    f->older = older;
    f->newer = older == NONE ? NONE : t->fe[older].newer;
    if (older == NONE) {
        /* the oldest: find the current oldest */
        uint32_t o = t->newest;
        while (o != NONE && t->fe[o].older != NONE)
            o = t->fe[o].older;
        f->newer = o;
    }
    if (f->newer == NONE)
        t->newest = e;
    else
        t->fe[f->newer].older = e;
    if (older != NONE)
        t->fe[older].newer = e;
}

static void fe_remove(html_tree *t, uint32_t e)
{
    if (e == NONE || !t->fe[e].live)
        return;
    fentry *f = &t->fe[e];
    if (f->newer == NONE)
        t->newest = f->older;
    else
        t->fe[f->newer].older = f->older;
    if (f->older != NONE)
        t->fe[f->older].newer = f->newer;
    if (f->slot != NONE)
        t->st[f->slot].entry = NONE;
    if (t->bookmark == e)
        t->bookmark = NONE;
    f->live = false;
    f->older = t->fe_free;
    t->fe_free = e;
}

static void fe_marker(html_tree *t)
{
    uint32_t e = fe_alloc(t);
    if (e == NONE)
        return;
    t->fe[e].marker = true;
    fe_link(t, e, t->newest);
}

static void fe_clear_to_marker(html_tree *t)
{
    while (t->newest != NONE) {
        uint32_t e = t->newest;
        bool m = t->fe[e].marker;
        fe_remove(t, e);
        if (m)
            break;
    }
}

/* Push the element at slot (Noah's ark: at most three equal entries
   after the last marker). */
static void fe_push(html_tree *t, uint32_t slot, uint16_t tag, uint64_t ahash)
{
    uint32_t earliest = NONE;
    size_t same = 0, all = 0;
    for (uint32_t e = t->newest; e != NONE && !t->fe[e].marker; e = t->fe[e].older) {
        all++;
        if (t->fe[e].tag == tag && t->fe[e].ahash == ahash) {
            same++;
            earliest = e;
        }
    }
    if (all >= HTML_TREE_FMT_MAX) {
        t->d->failed = true; /* bounded work: fail closed (html.h) */
        return;
    }
    if (same >= 3)
        fe_remove(t, earliest);
    uint32_t e = fe_alloc(t);
    if (e == NONE || slot == NONE)
        return;
    t->fe[e].tag = tag;
    t->fe[e].ahash = ahash;
    t->fe[e].slot = slot;
    t->st[slot].entry = e;
    fe_link(t, e, t->newest);
}

/* The last element entry with this tag after the last marker. */
static uint32_t fe_find(const html_tree *t, uint16_t tag)
{
    for (uint32_t e = t->newest; e != NONE && !t->fe[e].marker; e = t->fe[e].older)
        if (t->fe[e].tag == tag)
            return e;
    return NONE;
}

static void reconstruct(html_tree *t)
{
    uint32_t e = t->newest;
    if (e == NONE || t->fe[e].marker || t->fe[e].slot != NONE)
        return;
    while (t->fe[e].older != NONE && !t->fe[t->fe[e].older].marker &&
           t->fe[t->fe[e].older].slot == NONE)
        e = t->fe[e].older;
    for (; e != NONE && !t->d->failed; e = t->fe[e].newer) {
        fentry *f = &t->fe[e];
        uint32_t s = push(t, f->tag, NS_HTML, NS_HTML * (uint32_t)NTAGS + f->tag, false);
        if (s == NONE)
            return;
        t->fe[e].slot = s;
        t->st[s].entry = e;
    }
}

/* ---- elements from tokens ---- */

static uint32_t insert_element(html_tree *t, const tk_token *k, uint8_t ns)
{
    t->kept = true;
    t->kept_ns = ns;
    uint32_t key = key_of(t, ns, k->tag, k->name_hash);
    bool hip = ns == NS_MATH && k->tag == T_ANNOTATION_XML && k->enc_html;
    uint32_t s = push(t, k->tag, ns, key, hip);
    if (s != NONE && ns != NS_HTML)
        t->st[s].hip = hip;
    return s;
}

/* A void element: in the tree, never on the stack. */
static void append_element(html_tree *t, uint8_t ns)
{
    t->kept = true;
    t->kept_ns = ns;
}

static void insert_fake(html_tree *t, uint16_t tag)
{
    push(t, tag, NS_HTML, NS_HTML * (uint32_t)NTAGS + tag, false);
}

static bool is_html_ip(const oslot *s)
{
    if (s->ns == NS_SVG)
        return s->tag == T_FOREIGNOBJECT || s->tag == T_DESC || s->tag == T_TITLE;
    return s->ns == NS_MATH && s->tag == T_ANNOTATION_XML && s->hip;
}

static bool is_text_ip(const oslot *s)
{
    return s->ns == NS_MATH && (s->tag == T_MI || s->tag == T_MO || s->tag == T_MN ||
                                s->tag == T_MS || s->tag == T_MTEXT);
}

/* parse5's tokenizer.inForeignNode: the current node is foreign and not
   an integration point. */
static bool in_foreign_node(const html_tree *t)
{
    const oslot *c = cur(t);
    return c && c->ns != NS_HTML && !is_html_ip(c) && !is_text_ip(c);
}

static bool cur_not_html(const html_tree *t)
{
    const oslot *c = cur(t);
    return c && c->ns != NS_HTML;
}

bool html_tree_in_template(const html_tree *t)
{
    return in_template(t);
}

bool html_tree_cdata_ok(const html_tree *t)
{
    /* The standard: the adjusted current node is not an HTML element
       (13.2.5.42), integration points included. */
    return cur_not_html(t);
}

static void switch_to_text(html_tree *t, const tk_token *k, tz_state tz)
{
    insert_element(t, k, NS_HTML);
    t->tz = tz;
    t->orig_mode = t->mode;
    t->mode = M_TEXT;
}

/* <html>/<body> attributes merged into the element (only those it does
   not have). */
static void adopt(html_tree *t, const tk_token *k, unsigned *have, bool html)
{
    html_doc *d = t->d;
    (void)k;
    size_t w = t->first;
    unsigned added = 0; /* attributes this tag gives (all their links) */
    for (size_t r = t->first; r < d->n; r++) {
        const html_link *l = &d->links[r];
        if (l->xlink)
            continue;
        unsigned bit = 1u << l->from;
        if ((*have & bit) && !(added & bit))
            continue;
        *have |= bit;
        added |= bit;
        if (html) {
            if (t->n_html_links == sizeof t->html_links / sizeof t->html_links[0]) {
                d->failed = true; /* fail closed: the HTML memory limit */
                break;
            }
            t->html_links[t->n_html_links++] = w;
        }
        d->links[w++] = *l;
    }
    d->n = w;
    t->kept = true; /* what is left is in the document */
}

static void process(html_tree *t, const tk_token *k);
static void start_in_body(html_tree *t, const tk_token *k);
static void end_in_body(html_tree *t, const tk_token *k);
static void start_in_head(html_tree *t, const tk_token *k);
static void start_in_table(html_tree *t, const tk_token *k);
static void end_in_table(html_tree *t, const tk_token *k);
static void start_in_table_body(html_tree *t, const tk_token *k);
static void end_in_table_body(html_tree *t, const tk_token *k);
static void start_in_row(html_tree *t, const tk_token *k);
static void end_in_row(html_tree *t, const tk_token *k);
static void start_in_select(html_tree *t, const tk_token *k);
static void end_in_select(html_tree *t, const tk_token *k);
static void start_in_col_group(html_tree *t, const tk_token *k);
static void process_start(html_tree *t, const tk_token *k);
static void on_end(html_tree *t, const tk_token *k);

static void reset_mode(html_tree *t)
{
    static const uint16_t mode_tags[] = {T_TR, T_TBODY, T_THEAD, T_TFOOT, T_CAPTION, T_COLGROUP,
                                         T_TABLE, T_FRAMESET, T_SELECT, T_TEMPLATE, T_TD, T_TH,
                                         T_HEAD, T_BODY, T_HTML};
    uint32_t i = NONE;
    for (size_t k = 0; k < sizeof mode_tags / sizeof mode_tags[0]; k++)
        i = max2(i, top_of(t, mode_tags[k]));
    if (i != NONE) {
        switch (t->st[i].tag) {
        case T_TR: t->mode = M_IN_ROW; return;
        case T_TBODY: case T_THEAD: case T_TFOOT: t->mode = M_IN_TABLE_BODY; return;
        case T_CAPTION: t->mode = M_IN_CAPTION; return;
        case T_COLGROUP: t->mode = M_IN_COLUMN_GROUP; return;
        case T_TABLE: t->mode = M_IN_TABLE; return;
        case T_BODY: t->mode = M_IN_BODY; return;
        case T_FRAMESET: t->mode = M_IN_FRAMESET; return;
        case T_SELECT: {
            uint32_t tb = top_of(t, T_TABLE);
            t->mode = (i > 0 && tb != NONE && tb > 0 && (top_of(t, T_TEMPLATE) == NONE ||
                                                        tb > top_of(t, T_TEMPLATE)))
                          ? M_IN_SELECT_IN_TABLE : M_IN_SELECT;
            return;
        }
        case T_TEMPLATE:
            t->mode = t->ntmpl ? (imode)t->tmpl[t->ntmpl - 1] : M_IN_BODY;
            return;
        case T_HTML:
            t->mode = t->head_set ? M_AFTER_HEAD : M_BEFORE_HEAD;
            return;
        case T_TD: case T_TH:
            if (i > 0) {
                t->mode = M_IN_CELL;
                return;
            }
            break;
        case T_HEAD:
            if (i > 0) {
                t->mode = M_IN_HEAD;
                return;
            }
            break;
        default:
            break;
        }
    }
    t->mode = M_IN_BODY;
}

static void tmpl_push(html_tree *t, imode m)
{
    if (!grow(t, (void **)&t->tmpl, &t->tmpl_cap, t->ntmpl + 1, 1))
        return;
    t->tmpl[t->ntmpl++] = (uint8_t)m;
}

static void tmpl_set(html_tree *t, imode m)
{
    if (t->ntmpl)
        t->tmpl[t->ntmpl - 1] = (uint8_t)m;
    t->mode = m;
}

static void close_p(html_tree *t)
{
    gen_implied_except(t, T_P);
    pop_until_tag(t, T_P);
}

static void close_p_in_button_scope(html_tree *t)
{
    if (in_scope(t, T_P, SC_BUTTON))
        close_p(t);
}

/* ---- the adoption agency algorithm (13.2.6.4.7) ---- */

static void generic_end_in_body(html_tree *t, const tk_token *k)
{
    uint32_t i = k->tag == T_UNKNOWN ? top_key(t, key_of(t, NS_HTML, k->tag, k->name_hash))
                                     : top_of(t, k->tag);
    if (i == NONE || i == 0)
        return;
    if (t->st[top_slot(t)].n_special != t->st[i].n_special)
        return; /* a special element above it */
    gen_implied_except(t, k->tag);
    if (t->depth > i)
        shorten_to(t, i);
}

static void adoption_agency(html_tree *t, const tk_token *k)
{
    const oslot *c = cur(t);
    if (c && c->tag == k->tag && c->ns == NS_HTML && c->entry == NONE) {
        pop(t);
        return;
    }
    for (int outer = 0; outer < 8 && !t->d->failed; outer++) {
        uint32_t fe = fe_find(t, k->tag);
        if (fe == NONE) {
            generic_end_in_body(t, k);
            return;
        }
        uint32_t fs = t->fe[fe].slot;
        if (fs == NONE) {
            fe_remove(t, fe);
            return;
        }
        if (!slot_in_scope(t, fs, SC_DEFAULT))
            return;
        /* the furthest block: the lowest special element above it */
        if (t->st[top_slot(t)].n_special == t->st[fs].n_special) {
            shorten_to(t, fs);
            fe_remove(t, fe);
            return;
        }
        uint32_t fb = fs + 1;
        while (t->st[fb].n_special == t->st[fs].n_special)
            fb++;
        t->bookmark = fe;
        uint32_t last_is_fb = 1;
        uint32_t node = fb - 1;
        for (int inner = 0; node != fs; inner++) {
            uint32_t next = node - 1;
            uint32_t e = t->st[node].entry;
            bool overflow = e != NONE && inner >= 3;
            if (e == NONE || overflow) {
                if (overflow)
                    fe_remove(t, e);
                remove_at(t, node);
                fb--;
            } else {
                /* a new element for the entry takes the node's place */
                t->st[node].serial = ++t->serial;
                if (last_is_fb)
                    t->bookmark = e;
                last_is_fb = 0;
            }
            node = next;
        }
        /* a new element for the formatting element, directly below the
           furthest block's children: in the list after the bookmark, on
           the stack directly above the furthest block */
        uint16_t tag = t->fe[fe].tag;
        uint64_t ah = t->fe[fe].ahash;
        uint32_t ne = fe_alloc(t);
        if (ne == NONE)
            return;
        t->fe[ne].tag = tag;
        t->fe[ne].ahash = ah;
        fe_link(t, ne, t->bookmark != NONE ? t->bookmark : fe);
        t->bookmark = NONE;
        fe_remove(t, fe);
        remove_at(t, fs);
        fb--;
        insert_at(t, fb + 1, tag, NS_HTML * (uint32_t)NTAGS + tag, ne);
    }
}

/* ---- in head and around it (13.2.6.4.1-6) ---- */

static void template_end(html_tree *t)
{
    if (!in_template(t))
        return;
    gen_implied(t, true, 0xFFFF);
    pop_until_tag(t, T_TEMPLATE);
    fe_clear_to_marker(t);
    if (t->ntmpl)
        t->ntmpl--;
    reset_mode(t);
}

static void token_in_head(html_tree *t, const tk_token *k)
{
    pop(t);
    t->mode = M_AFTER_HEAD;
    process(t, k);
}

static void start_in_head(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_HTML:
        start_in_body(t, k);
        break;
    case T_BASE: case T_BASEFONT: case T_BGSOUND: case T_LINK: case T_META:
        append_element(t, NS_HTML);
        break;
    case T_TITLE:
        switch_to_text(t, k, TZ_RCDATA);
        break;
    case T_NOSCRIPT: /* scripting is off */
        insert_element(t, k, NS_HTML);
        t->mode = M_IN_HEAD_NOSCRIPT;
        break;
    case T_NOFRAMES: case T_STYLE:
        switch_to_text(t, k, TZ_RAWTEXT);
        break;
    case T_SCRIPT:
        switch_to_text(t, k, TZ_SCRIPT);
        break;
    case T_TEMPLATE:
        insert_element(t, k, NS_HTML);
        fe_marker(t);
        t->frameset_ok = false;
        t->mode = M_IN_TEMPLATE;
        tmpl_push(t, M_IN_TEMPLATE);
        break;
    case T_HEAD:
        break;
    default:
        token_in_head(t, k);
    }
}

static void end_in_head(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_HEAD:
        pop(t);
        t->mode = M_AFTER_HEAD;
        break;
    case T_BODY: case T_BR: case T_HTML:
        token_in_head(t, k);
        break;
    case T_TEMPLATE:
        template_end(t);
        break;
    default:
        break;
    }
}

static void token_in_head_noscript(html_tree *t, const tk_token *k)
{
    pop(t);
    t->mode = M_IN_HEAD;
    process(t, k);
}

static void start_in_head_noscript(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_HTML:
        start_in_body(t, k);
        break;
    case T_BASEFONT: case T_BGSOUND: case T_HEAD: case T_LINK: case T_META: case T_NOFRAMES:
    case T_STYLE:
        start_in_head(t, k);
        break;
    case T_NOSCRIPT:
        break;
    default:
        token_in_head_noscript(t, k);
    }
}

static void token_after_head(html_tree *t, const tk_token *k)
{
    insert_fake(t, T_BODY);
    t->body_first_link = t->first;
    t->mode = M_IN_BODY;
    process(t, k);
}

static void start_after_head(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_HTML:
        start_in_body(t, k);
        break;
    case T_BODY:
        t->body_first_link = t->first;
        insert_element(t, k, NS_HTML);
        for (size_t r = t->first; r < t->d->n; r++)
            if (!t->d->links[r].xlink)
                t->body_attrs |= 1u << t->d->links[r].from;
        t->frameset_ok = false;
        t->mode = M_IN_BODY;
        break;
    case T_FRAMESET:
        insert_element(t, k, NS_HTML);
        t->mode = M_IN_FRAMESET;
        break;
    case T_BASE: case T_BASEFONT: case T_BGSOUND: case T_LINK: case T_META: case T_NOFRAMES:
    case T_SCRIPT: case T_STYLE: case T_TEMPLATE: case T_TITLE: {
        insert_fake(t, T_HEAD);
        t->st[top_slot(t)].serial = t->head_serial;
        start_in_head(t, k);
        remove_at(t, find_serial(t, T_HEAD, t->head_serial));
        break;
    }
    case T_HEAD:
        break;
    default:
        token_after_head(t, k);
    }
}

/* ---- in body (13.2.6.4.7) ----
   start_in_body hands a start tag to the group of the standard's list
   that names it, in the standard's order: the document and head elements,
   the blocks, the formatting elements, the void and raw-text elements, and
   the rest (select options, ruby, foreign roots, ignored tags, any other
   tag). Every tag is named in one group only, so the order of the tries
   never changes the answer. */

/* A frameset start tag while frameset is still allowed: the body leaves
   the document, and every link in it. */
static void frameset_replaces_body(html_tree *t, const tk_token *k)
{
    html_doc *d = t->d;
    size_t w = t->body_first_link, h = 0;
    for (size_t r = t->body_first_link; r < t->first; r++) {
        while (h < t->n_html_links && t->html_links[h] < r)
            h++;
        if (h < t->n_html_links && t->html_links[h] == r)
            d->links[w++] = d->links[r];
    }
    size_t nf = w;
    for (size_t r = t->first; r < d->n; r++)
        d->links[w++] = d->links[r];
    d->n = w;
    t->first = nf;
    t->n_html_links = 0;
    t->detached = true;
    shorten_to(t, 1);
    insert_element(t, k, NS_HTML);
    t->mode = M_IN_FRAMESET;
}

/* html, the head elements, body, frameset. */
static bool start_body_document(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_HTML:
        if (!in_template(t))
            adopt(t, k, &t->html_attrs, true);
        return true;
    case T_BASE: case T_LINK: case T_META: case T_STYLE: case T_TITLE: case T_SCRIPT:
    case T_BGSOUND: case T_BASEFONT: case T_TEMPLATE:
        start_in_head(t, k);
        return true;
    case T_BODY:
        if (t->depth >= 2 && t->st[1].tag == T_BODY && !in_template(t)) {
            t->frameset_ok = false;
            adopt(t, k, &t->body_attrs, false);
        }
        return true;
    case T_FRAMESET:
        if (t->frameset_ok && t->depth >= 2 && t->st[1].tag == T_BODY)
            frameset_replaces_body(t, k);
        return true;
    default:
        return false;
    }
}

/* li, dd, dt: close the open item of the same list level first. */
static void start_body_list_item(html_tree *t, const tk_token *k)
{
    t->frameset_ok = false;
    uint32_t i = k->tag == T_LI ? top_of(t, T_LI) : max2(top_of(t, T_DD), top_of(t, T_DT));
    if (i != NONE && t->st[top_slot(t)].n_listb == t->st[i].n_listb) {
        uint16_t tag = t->st[i].tag;
        gen_implied_except(t, tag);
        pop_until_tag(t, tag);
    }
    close_p_in_button_scope(t);
    insert_element(t, k, NS_HTML);
}

/* form: one open form outside templates. */
static void start_body_form(html_tree *t, const tk_token *k)
{
    bool tmpl = in_template(t);
    if (!t->form_set || tmpl) {
        close_p_in_button_scope(t);
        uint32_t s = insert_element(t, k, NS_HTML);
        if (!tmpl && s != NONE) {
            t->form_set = true;
            t->form_serial = t->st[s].serial;
        }
    }
}

/* The blocks: address ... ul, headings, pre and listing, form, li, dd and
   dt, plaintext, button. */
static bool start_body_block(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_P: case T_DL: case T_OL: case T_UL: case T_DIV: case T_DIR: case T_NAV: case T_MAIN:
    case T_MENU: case T_ASIDE: case T_CENTER: case T_FIGURE: case T_FOOTER: case T_HEADER:
    case T_HGROUP: case T_DIALOG: case T_DETAILS: case T_ADDRESS: case T_ARTICLE: case T_SEARCH:
    case T_SECTION: case T_SUMMARY: case T_FIELDSET: case T_BLOCKQUOTE: case T_FIGCAPTION:
        close_p_in_button_scope(t);
        insert_element(t, k, NS_HTML);
        return true;
    case T_H1: case T_H2: case T_H3: case T_H4: case T_H5: case T_H6: {
        close_p_in_button_scope(t);
        uint16_t c = cur_tag(t);
        if (c >= T_H1 && c <= T_H6 && cur(t)->ns == NS_HTML)
            pop(t);
        insert_element(t, k, NS_HTML);
        return true;
    }
    case T_PRE: case T_LISTING:
        close_p_in_button_scope(t);
        insert_element(t, k, NS_HTML);
        t->skip_nl = true;
        t->frameset_ok = false;
        return true;
    case T_FORM:
        start_body_form(t, k);
        return true;
    case T_LI: case T_DD: case T_DT:
        start_body_list_item(t, k);
        return true;
    case T_PLAINTEXT:
        close_p_in_button_scope(t);
        insert_element(t, k, NS_HTML);
        t->tz = TZ_PLAINTEXT;
        return true;
    case T_BUTTON:
        if (in_scope(t, T_BUTTON, SC_DEFAULT)) {
            gen_implied(t, false, 0xFFFF);
            pop_until_tag(t, T_BUTTON);
        }
        reconstruct(t);
        insert_element(t, k, NS_HTML);
        t->frameset_ok = false;
        return true;
    default:
        return false;
    }
}

/* a: an open a in the active formatting list is closed first. */
static void start_body_a(html_tree *t, const tk_token *k)
{
    uint32_t e = fe_find(t, T_A);
    if (e != NONE) {
        uint32_t serial = t->fe[e].serial;
        adoption_agency(t, k);
        if (t->fe[e].live && t->fe[e].serial == serial) {
            uint32_t s = t->fe[e].slot;
            fe_remove(t, e);
            remove_at(t, s);
        }
    }
}

/* Insert a formatting element and push it on the active formatting list. */
static bool insert_formatting(html_tree *t, const tk_token *k)
{
    uint32_t s = insert_element(t, k, NS_HTML);
    fe_push(t, s, k->tag, k->attr_hash);
    return true;
}

/* The formatting elements (a, b ... u, nobr) and the marker elements
   (applet, marquee, object). */
static bool start_body_formatting(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_A:
        start_body_a(t, k);
        break;
    case T_I: case T_S: case T_B: case T_U: case T_EM: case T_TT: case T_BIG: case T_CODE:
    case T_FONT: case T_SMALL: case T_STRIKE: case T_STRONG:
        break;
    case T_NOBR:
        reconstruct(t);
        if (!in_scope(t, T_NOBR, SC_DEFAULT))
            return insert_formatting(t, k);
        adoption_agency(t, k);
        break;
    case T_APPLET: case T_OBJECT: case T_MARQUEE:
        reconstruct(t);
        insert_element(t, k, NS_HTML);
        fe_marker(t);
        t->frameset_ok = false;
        return true;
    default:
        return false;
    }
    reconstruct(t);
    return insert_formatting(t, k);
}

/* select: the mode remembers whether it opened in a table. */
static void start_body_select(html_tree *t, const tk_token *k)
{
    reconstruct(t);
    insert_element(t, k, NS_HTML);
    t->frameset_ok = false;
    t->mode = (t->mode == M_IN_TABLE || t->mode == M_IN_CAPTION ||
               t->mode == M_IN_TABLE_BODY || t->mode == M_IN_ROW || t->mode == M_IN_CELL)
                  ? M_IN_SELECT_IN_TABLE : M_IN_SELECT;
}

/* table, the void elements (area ... wbr, input, param ... track, hr,
   image) and the text elements (textarea, xmp, iframe, noembed, select). */
static bool start_body_void_or_text(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_TABLE:
        if (!t->quirks)
            close_p_in_button_scope(t);
        insert_element(t, k, NS_HTML);
        t->frameset_ok = false;
        t->mode = M_IN_TABLE;
        return true;
    case T_BR: case T_IMG: case T_WBR: case T_AREA: case T_EMBED: case T_KEYGEN: case T_IMAGE:
        reconstruct(t);
        append_element(t, NS_HTML);
        t->frameset_ok = false;
        return true;
    case T_INPUT:
        reconstruct(t);
        append_element(t, NS_HTML);
        if (!k->hidden)
            t->frameset_ok = false;
        return true;
    case T_PARAM: case T_TRACK: case T_SOURCE:
        append_element(t, NS_HTML);
        return true;
    case T_HR:
        close_p_in_button_scope(t);
        append_element(t, NS_HTML);
        t->frameset_ok = false;
        return true;
    case T_TEXTAREA:
        insert_element(t, k, NS_HTML);
        t->skip_nl = true;
        t->tz = TZ_RCDATA;
        t->orig_mode = t->mode;
        t->frameset_ok = false;
        t->mode = M_TEXT;
        return true;
    case T_XMP:
        close_p_in_button_scope(t);
        reconstruct(t);
        t->frameset_ok = false;
        switch_to_text(t, k, TZ_RAWTEXT);
        return true;
    case T_IFRAME:
        t->frameset_ok = false;
        switch_to_text(t, k, TZ_RAWTEXT);
        return true;
    case T_NOEMBED: case T_NOFRAMES:
        switch_to_text(t, k, TZ_RAWTEXT);
        return true;
    case T_SELECT:
        start_body_select(t, k);
        return true;
    default:
        return false;
    }
}

/* optgroup and option, the ruby elements, math and svg, the table parts
   that are ignored here, and any other tag. */
static void start_body_other(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_OPTION: case T_OPTGROUP:
        if (cur_is(t, T_OPTION))
            pop(t);
        reconstruct(t);
        insert_element(t, k, NS_HTML);
        break;
    case T_RB: case T_RTC:
        if (in_scope(t, T_RUBY, SC_DEFAULT))
            gen_implied(t, false, 0xFFFF);
        insert_element(t, k, NS_HTML);
        break;
    case T_RT: case T_RP:
        if (in_scope(t, T_RUBY, SC_DEFAULT))
            gen_implied_except(t, T_RTC);
        insert_element(t, k, NS_HTML);
        break;
    case T_SVG: case T_MATH:
        reconstruct(t);
        if (k->self_closing)
            append_element(t, k->tag == T_SVG ? NS_SVG : NS_MATH);
        else
            insert_element(t, k, k->tag == T_SVG ? NS_SVG : NS_MATH);
        break;
    case T_COL: case T_TH: case T_TD: case T_TR: case T_HEAD: case T_FRAME: case T_TBODY:
    case T_TFOOT: case T_THEAD: case T_CAPTION: case T_COLGROUP:
        break;
    default: /* incl. noscript: scripting is off */
        reconstruct(t);
        insert_element(t, k, NS_HTML);
    }
}

static void start_in_body(html_tree *t, const tk_token *k)
{
    if (start_body_document(t, k) || start_body_block(t, k) || start_body_formatting(t, k) ||
        start_body_void_or_text(t, k))
        return;
    start_body_other(t, k);
}

/* li (in list item scope), dd, dt: close the item and what it holds. */
static void end_body_list_item(html_tree *t, uint16_t tag)
{
    if (in_scope(t, tag, tag == T_LI ? SC_LIST : SC_DEFAULT)) {
        gen_implied_except(t, tag);
        pop_until_tag(t, tag);
    }
}

/* h1 ... h6: any open heading closes, whatever its level. */
static void end_body_heading(html_tree *t)
{
    if (slot_in_scope(t, top_header(t), SC_DEFAULT)) {
        gen_implied(t, false, 0xFFFF);
        uint32_t i = top_header(t);
        shorten_to(t, i == NONE ? 0 : i);
    }
}

/* form: outside templates the form element pointer is cleared and that
   element (not the current node) removed; inside, popped to a form. */
static void end_body_form(html_tree *t)
{
    bool tmpl = in_template(t);
    bool had = t->form_set;
    uint32_t serial = t->form_serial;
    if (!tmpl)
        t->form_set = false;
    if ((had || tmpl) && in_scope(t, T_FORM, SC_DEFAULT)) {
        gen_implied(t, false, 0xFFFF);
        if (tmpl)
            pop_until_tag(t, T_FORM);
        else
            remove_at(t, find_serial(t, T_FORM, serial));
    }
}

static void end_in_body(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_A: case T_B: case T_I: case T_S: case T_U: case T_EM: case T_TT: case T_BIG:
    case T_CODE: case T_FONT: case T_NOBR: case T_SMALL: case T_STRIKE: case T_STRONG:
        adoption_agency(t, k);
        break;
    case T_P:
        if (!in_scope(t, T_P, SC_BUTTON))
            insert_fake(t, T_P);
        close_p(t);
        break;
    case T_DL: case T_UL: case T_OL: case T_DIR: case T_DIV: case T_NAV: case T_PRE:
    case T_MAIN: case T_MENU: case T_ASIDE: case T_BUTTON: case T_CENTER: case T_FIGURE:
    case T_FOOTER: case T_HEADER: case T_HGROUP: case T_DIALOG: case T_ADDRESS: case T_ARTICLE:
    case T_DETAILS: case T_SEARCH: case T_SECTION: case T_SUMMARY: case T_LISTING:
    case T_FIELDSET: case T_BLOCKQUOTE: case T_FIGCAPTION:
        if (in_scope(t, k->tag, SC_DEFAULT)) {
            gen_implied(t, false, 0xFFFF);
            pop_until_tag(t, k->tag);
        }
        break;
    case T_LI: case T_DD: case T_DT:
        end_body_list_item(t, k->tag);
        break;
    case T_H1: case T_H2: case T_H3: case T_H4: case T_H5: case T_H6:
        end_body_heading(t);
        break;
    case T_BR:
        reconstruct(t);
        insert_fake(t, T_BR);
        pop(t);
        t->frameset_ok = false;
        break;
    case T_BODY:
        if (in_scope(t, T_BODY, SC_DEFAULT))
            t->mode = M_AFTER_BODY;
        break;
    case T_HTML:
        if (in_scope(t, T_BODY, SC_DEFAULT)) {
            t->mode = M_AFTER_BODY;
            on_end(t, k);
        }
        break;
    case T_FORM:
        end_body_form(t);
        break;
    case T_APPLET: case T_OBJECT: case T_MARQUEE:
        if (in_scope(t, k->tag, SC_DEFAULT)) {
            gen_implied(t, false, 0xFFFF);
            pop_until_tag(t, k->tag);
            fe_clear_to_marker(t);
        }
        break;
    case T_TEMPLATE:
        template_end(t);
        break;
    default:
        generic_end_in_body(t, k);
    }
}

/* ---- tables (13.2.6.4.9-15) ---- */

static void token_in_table(html_tree *t, const tk_token *k)
{
    /* "in body" with foster parenting: where a node goes does not change
       whether it is in the document */
    if (k->type == TK_START)
        start_in_body(t, k);
    else if (k->type == TK_END)
        end_in_body(t, k);
    else if (k->type == TK_CHARS) {
        reconstruct(t);
        t->frameset_ok = false;
    } else if (k->type == TK_SPACE) {
        reconstruct(t);
    }
}

static void start_in_table(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_TD: case T_TH: case T_TR:
        clear_back_to(t, T_TABLE, 0, 0);
        insert_fake(t, T_TBODY);
        t->mode = M_IN_TABLE_BODY;
        start_in_table_body(t, k);
        break;
    case T_STYLE: case T_SCRIPT: case T_TEMPLATE:
        start_in_head(t, k);
        break;
    case T_COL:
        clear_back_to(t, T_TABLE, 0, 0);
        insert_fake(t, T_COLGROUP);
        t->mode = M_IN_COLUMN_GROUP;
        start_in_col_group(t, k);
        break;
    case T_FORM:
        if (!t->form_set && !in_template(t)) {
            uint32_t s = insert_element(t, k, NS_HTML);
            if (s != NONE) {
                t->form_set = true;
                t->form_serial = t->st[s].serial;
            }
            pop(t);
        }
        break;
    case T_TABLE:
        if (in_scope(t, T_TABLE, SC_TABLE)) {
            pop_until_tag(t, T_TABLE);
            reset_mode(t);
            process_start(t, k);
        }
        break;
    case T_TBODY: case T_TFOOT: case T_THEAD:
        clear_back_to(t, T_TABLE, 0, 0);
        insert_element(t, k, NS_HTML);
        t->mode = M_IN_TABLE_BODY;
        break;
    case T_INPUT:
        if (k->hidden)
            append_element(t, NS_HTML);
        else
            token_in_table(t, k);
        break;
    case T_CAPTION:
        clear_back_to(t, T_TABLE, 0, 0);
        fe_marker(t);
        insert_element(t, k, NS_HTML);
        t->mode = M_IN_CAPTION;
        break;
    case T_COLGROUP:
        clear_back_to(t, T_TABLE, 0, 0);
        insert_element(t, k, NS_HTML);
        t->mode = M_IN_COLUMN_GROUP;
        break;
    default:
        token_in_table(t, k);
    }
}

static void end_in_table(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_TABLE:
        if (in_scope(t, T_TABLE, SC_TABLE)) {
            pop_until_tag(t, T_TABLE);
            reset_mode(t);
        }
        break;
    case T_TEMPLATE:
        template_end(t);
        break;
    case T_BODY: case T_CAPTION: case T_COL: case T_COLGROUP: case T_HTML: case T_TBODY:
    case T_TD: case T_TFOOT: case T_TH: case T_THEAD: case T_TR:
        break;
    default:
        token_in_table(t, k);
    }
}

static bool table_void(uint16_t tag)
{
    switch (tag) {
    case T_CAPTION: case T_COL: case T_COLGROUP: case T_TBODY: case T_TD: case T_TFOOT:
    case T_TH: case T_THEAD: case T_TR:
        return true;
    default:
        return false;
    }
}

static void close_caption(html_tree *t)
{
    gen_implied(t, false, 0xFFFF);
    pop_until_tag(t, T_CAPTION);
    fe_clear_to_marker(t);
    t->mode = M_IN_TABLE;
}

static void start_in_caption(html_tree *t, const tk_token *k)
{
    if (table_void(k->tag)) {
        if (in_scope(t, T_CAPTION, SC_TABLE)) {
            close_caption(t);
            start_in_table(t, k);
        }
    } else {
        start_in_body(t, k);
    }
}

static void end_in_caption(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_CAPTION: case T_TABLE:
        if (in_scope(t, T_CAPTION, SC_TABLE)) {
            close_caption(t);
            if (k->tag == T_TABLE)
                end_in_table(t, k);
        }
        break;
    case T_BODY: case T_COL: case T_COLGROUP: case T_HTML: case T_TBODY: case T_TD:
    case T_TFOOT: case T_TH: case T_THEAD: case T_TR:
        break;
    default:
        end_in_body(t, k);
    }
}

static void token_in_col_group(html_tree *t, const tk_token *k)
{
    if (cur_tag(t) == T_COLGROUP) {
        pop(t);
        t->mode = M_IN_TABLE;
        process(t, k);
    }
}

static void start_in_col_group(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_HTML:
        start_in_body(t, k);
        break;
    case T_COL:
        append_element(t, NS_HTML);
        break;
    case T_TEMPLATE:
        start_in_head(t, k);
        break;
    default:
        token_in_col_group(t, k);
    }
}

static void end_in_col_group(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_COLGROUP:
        if (cur_tag(t) == T_COLGROUP) {
            pop(t);
            t->mode = M_IN_TABLE;
        }
        break;
    case T_TEMPLATE:
        template_end(t);
        break;
    case T_COL:
        break;
    default:
        token_in_col_group(t, k);
    }
}

static void start_in_table_body(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_TR:
        clear_back_to(t, T_TBODY, T_TFOOT, T_THEAD);
        insert_element(t, k, NS_HTML);
        t->mode = M_IN_ROW;
        break;
    case T_TH: case T_TD:
        clear_back_to(t, T_TBODY, T_TFOOT, T_THEAD);
        insert_fake(t, T_TR);
        t->mode = M_IN_ROW;
        start_in_row(t, k);
        break;
    case T_CAPTION: case T_COL: case T_COLGROUP: case T_TBODY: case T_TFOOT: case T_THEAD:
        if (slot_in_scope(t, top_table_body(t), SC_TABLE)) {
            clear_back_to(t, T_TBODY, T_TFOOT, T_THEAD);
            pop(t);
            t->mode = M_IN_TABLE;
            start_in_table(t, k);
        }
        break;
    default:
        start_in_table(t, k);
    }
}

static void end_in_table_body(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_TBODY: case T_TFOOT: case T_THEAD:
        if (in_scope(t, k->tag, SC_TABLE)) {
            clear_back_to(t, T_TBODY, T_TFOOT, T_THEAD);
            pop(t);
            t->mode = M_IN_TABLE;
        }
        break;
    case T_TABLE:
        if (slot_in_scope(t, top_table_body(t), SC_TABLE)) {
            clear_back_to(t, T_TBODY, T_TFOOT, T_THEAD);
            pop(t);
            t->mode = M_IN_TABLE;
            end_in_table(t, k);
        }
        break;
    case T_BODY: case T_CAPTION: case T_COL: case T_COLGROUP: case T_HTML: case T_TD: case T_TH:
    case T_TR:
        break;
    default:
        end_in_table(t, k);
    }
}

static void start_in_row(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_TH: case T_TD:
        clear_back_to(t, T_TR, 0, 0);
        insert_element(t, k, NS_HTML);
        t->mode = M_IN_CELL;
        fe_marker(t);
        break;
    case T_CAPTION: case T_COL: case T_COLGROUP: case T_TBODY: case T_TFOOT: case T_THEAD:
    case T_TR:
        if (in_scope(t, T_TR, SC_TABLE)) {
            clear_back_to(t, T_TR, 0, 0);
            pop(t);
            t->mode = M_IN_TABLE_BODY;
            start_in_table_body(t, k);
        }
        break;
    default:
        start_in_table(t, k);
    }
}

static void end_in_row(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_TR:
        if (in_scope(t, T_TR, SC_TABLE)) {
            clear_back_to(t, T_TR, 0, 0);
            pop(t);
            t->mode = M_IN_TABLE_BODY;
        }
        break;
    case T_TABLE:
        if (in_scope(t, T_TR, SC_TABLE)) {
            clear_back_to(t, T_TR, 0, 0);
            pop(t);
            t->mode = M_IN_TABLE_BODY;
            end_in_table_body(t, k);
        }
        break;
    case T_TBODY: case T_TFOOT: case T_THEAD:
        if (in_scope(t, k->tag, SC_TABLE) || in_scope(t, T_TR, SC_TABLE)) {
            clear_back_to(t, T_TR, 0, 0);
            pop(t);
            t->mode = M_IN_TABLE_BODY;
            end_in_table_body(t, k);
        }
        break;
    case T_BODY: case T_CAPTION: case T_COL: case T_COLGROUP: case T_HTML: case T_TD: case T_TH:
        break;
    default:
        end_in_table(t, k);
    }
}

static void close_cell(html_tree *t)
{
    gen_implied(t, false, 0xFFFF);
    shorten_to(t, max2(top_of(t, T_TD), top_of(t, T_TH)) == NONE
                      ? 0 : max2(top_of(t, T_TD), top_of(t, T_TH)));
    fe_clear_to_marker(t);
    t->mode = M_IN_ROW;
}

static void start_in_cell(html_tree *t, const tk_token *k)
{
    if (table_void(k->tag)) {
        if (in_scope(t, T_TD, SC_TABLE) || in_scope(t, T_TH, SC_TABLE)) {
            close_cell(t);
            start_in_row(t, k);
        }
    } else {
        start_in_body(t, k);
    }
}

static void end_in_cell(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_TD: case T_TH:
        if (in_scope(t, k->tag, SC_TABLE)) {
            gen_implied(t, false, 0xFFFF);
            pop_until_tag(t, k->tag);
            fe_clear_to_marker(t);
            t->mode = M_IN_ROW;
        }
        break;
    case T_TABLE: case T_TBODY: case T_TFOOT: case T_THEAD: case T_TR:
        if (in_scope(t, k->tag, SC_TABLE)) {
            close_cell(t);
            end_in_row(t, k);
        }
        break;
    case T_BODY: case T_CAPTION: case T_COL: case T_COLGROUP: case T_HTML:
        break;
    default:
        end_in_body(t, k);
    }
}

/* ---- select, template, after body, frameset (13.2.6.4.16-23) ---- */

static void start_in_select(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_HTML:
        start_in_body(t, k);
        break;
    case T_OPTION:
        if (cur_is(t, T_OPTION))
            pop(t);
        insert_element(t, k, NS_HTML);
        break;
    case T_OPTGROUP:
        if (cur_is(t, T_OPTION))
            pop(t);
        if (cur_is(t, T_OPTGROUP))
            pop(t);
        insert_element(t, k, NS_HTML);
        break;
    case T_HR:
        if (cur_is(t, T_OPTION))
            pop(t);
        if (cur_is(t, T_OPTGROUP))
            pop(t);
        append_element(t, NS_HTML);
        break;
    case T_INPUT: case T_KEYGEN: case T_TEXTAREA: case T_SELECT:
        if (in_select_scope(t, T_SELECT)) {
            pop_until_tag(t, T_SELECT);
            reset_mode(t);
            if (k->tag != T_SELECT)
                process_start(t, k);
        }
        break;
    case T_SCRIPT: case T_TEMPLATE:
        start_in_head(t, k);
        break;
    default:
        break;
    }
}

static void end_in_select(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_OPTGROUP:
        if (t->depth > 1 && cur_is(t, T_OPTION) && t->st[t->depth - 2].tag == T_OPTGROUP)
            pop(t);
        if (cur_is(t, T_OPTGROUP))
            pop(t);
        break;
    case T_OPTION:
        if (cur_is(t, T_OPTION))
            pop(t);
        break;
    case T_SELECT:
        if (in_select_scope(t, T_SELECT)) {
            pop_until_tag(t, T_SELECT);
            reset_mode(t);
        }
        break;
    case T_TEMPLATE:
        template_end(t);
        break;
    default:
        break;
    }
}

static bool table_tag(uint16_t tag)
{
    switch (tag) {
    case T_CAPTION: case T_TABLE: case T_TBODY: case T_TFOOT: case T_THEAD: case T_TR: case T_TD:
    case T_TH:
        return true;
    default:
        return false;
    }
}

static void start_in_select_in_table(html_tree *t, const tk_token *k)
{
    if (table_tag(k->tag)) {
        pop_until_tag(t, T_SELECT);
        reset_mode(t);
        process_start(t, k);
    } else {
        start_in_select(t, k);
    }
}

static void end_in_select_in_table(html_tree *t, const tk_token *k)
{
    if (table_tag(k->tag)) {
        if (in_scope(t, k->tag, SC_TABLE)) {
            pop_until_tag(t, T_SELECT);
            reset_mode(t);
            on_end(t, k);
        }
    } else {
        end_in_select(t, k);
    }
}

static void start_in_template(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_BASE: case T_BASEFONT: case T_BGSOUND: case T_LINK: case T_META: case T_NOFRAMES:
    case T_SCRIPT: case T_STYLE: case T_TEMPLATE: case T_TITLE:
        start_in_head(t, k);
        break;
    case T_CAPTION: case T_COLGROUP: case T_TBODY: case T_TFOOT: case T_THEAD:
        tmpl_set(t, M_IN_TABLE);
        start_in_table(t, k);
        break;
    case T_COL:
        tmpl_set(t, M_IN_COLUMN_GROUP);
        start_in_col_group(t, k);
        break;
    case T_TR:
        tmpl_set(t, M_IN_TABLE_BODY);
        start_in_table_body(t, k);
        break;
    case T_TD: case T_TH:
        tmpl_set(t, M_IN_ROW);
        start_in_row(t, k);
        break;
    default:
        tmpl_set(t, M_IN_BODY);
        start_in_body(t, k);
    }
}

static void start_in_frameset(html_tree *t, const tk_token *k)
{
    switch (k->tag) {
    case T_HTML:
        start_in_body(t, k);
        break;
    case T_FRAMESET:
        insert_element(t, k, NS_HTML);
        break;
    case T_FRAME:
        append_element(t, NS_HTML);
        break;
    case T_NOFRAMES:
        start_in_head(t, k);
        break;
    default:
        break;
    }
}

static void end_in_frameset(html_tree *t, const tk_token *k)
{
    if (k->tag == T_FRAMESET && !(t->depth == 1 && t->st[0].tag == T_HTML)) {
        pop(t);
        if (cur_tag(t) != T_FRAMESET)
            t->mode = M_AFTER_FRAMESET;
    }
}

static void start_after_frameset(html_tree *t, const tk_token *k)
{
    if (k->tag == T_HTML)
        start_in_body(t, k);
    else if (k->tag == T_NOFRAMES)
        start_in_head(t, k);
}

/* ---- before the body (13.2.6.4.1-3) ---- */

static void token_in_initial(html_tree *t, const tk_token *k)
{
    t->quirks = true; /* no DOCTYPE */
    t->mode = M_BEFORE_HTML;
    process(t, k);
}

static void token_before_html(html_tree *t, const tk_token *k)
{
    insert_fake(t, T_HTML);
    t->mode = M_BEFORE_HEAD;
    process(t, k);
}

static void set_head(html_tree *t)
{
    t->head_set = true;
    t->head_serial = t->depth ? t->st[top_slot(t)].serial : 0;
}

static void token_before_head(html_tree *t, const tk_token *k)
{
    insert_fake(t, T_HEAD);
    set_head(t);
    t->mode = M_IN_HEAD;
    process(t, k);
}

static void token_after_body(html_tree *t, const tk_token *k)
{
    t->mode = M_IN_BODY;
    process(t, k);
}

static void flush_table_text(html_tree *t, const tk_token *k)
{
    if (t->table_text_chars) {
        reconstruct(t);
        t->frameset_ok = false;
    }
    t->table_text_chars = false;
    t->mode = t->orig_mode;
    process(t, k);
}

/* ---- characters ---- */

static void char_in_table(html_tree *t, const tk_token *k)
{
    uint16_t c = cur_tag(t);
    if (c == T_TABLE || c == T_TBODY || c == T_TFOOT || c == T_THEAD || c == T_TR) {
        t->table_text_chars = k->type == TK_CHARS;
        t->orig_mode = t->mode;
        t->mode = M_IN_TABLE_TEXT;
    } else {
        token_in_table(t, k);
    }
}

static void on_chars(html_tree *t, const tk_token *k)
{
    if (in_foreign_node(t)) {
        if (k->type == TK_CHARS)
            t->frameset_ok = false;
        return;
    }
    switch (t->mode) {
    case M_INITIAL:
        if (k->type != TK_SPACE)
            token_in_initial(t, k);
        break;
    case M_BEFORE_HTML:
        if (k->type != TK_SPACE)
            token_before_html(t, k);
        break;
    case M_BEFORE_HEAD:
        if (k->type != TK_SPACE)
            token_before_head(t, k);
        break;
    case M_IN_HEAD:
        if (k->type != TK_SPACE)
            token_in_head(t, k);
        break;
    case M_IN_HEAD_NOSCRIPT:
        if (k->type != TK_SPACE)
            token_in_head_noscript(t, k);
        break;
    case M_AFTER_HEAD:
        if (k->type != TK_SPACE)
            token_after_head(t, k);
        break;
    case M_IN_BODY: case M_IN_CAPTION: case M_IN_CELL: case M_IN_TEMPLATE:
        if (k->type != TK_NUL)
            reconstruct(t);
        if (k->type == TK_CHARS)
            t->frameset_ok = false;
        break;
    case M_IN_TABLE: case M_IN_TABLE_BODY: case M_IN_ROW:
        char_in_table(t, k);
        break;
    case M_IN_TABLE_TEXT:
        if (k->type == TK_CHARS)
            t->table_text_chars = true;
        break;
    case M_IN_COLUMN_GROUP:
        if (k->type != TK_SPACE)
            token_in_col_group(t, k);
        break;
    case M_AFTER_BODY: case M_AFTER_AFTER_BODY:
        if (k->type == TK_SPACE)
            reconstruct(t);
        else
            token_after_body(t, k);
        break;
    case M_AFTER_AFTER_FRAMESET:
        if (k->type == TK_SPACE)
            reconstruct(t);
        break;
    default:
        break;
    }
}

/* ---- foreign content (13.2.6.5) ---- */

static bool causes_exit(const tk_token *k)
{
    switch (k->tag) {
    case T_B: case T_BIG: case T_BLOCKQUOTE: case T_BODY: case T_BR: case T_CENTER: case T_CODE:
    case T_DD: case T_DIV: case T_DL: case T_DT: case T_EM: case T_EMBED: case T_H1: case T_H2:
    case T_H3: case T_H4: case T_H5: case T_H6: case T_HEAD: case T_HR: case T_I: case T_IMG:
    case T_LI: case T_LISTING: case T_MENU: case T_META: case T_NOBR: case T_OL: case T_P:
    case T_PRE: case T_RUBY: case T_S: case T_SMALL: case T_SPAN: case T_STRONG: case T_STRIKE:
    case T_SUB: case T_SUP: case T_TABLE: case T_TT: case T_U: case T_UL: case T_VAR:
        return true;
    case T_FONT:
        return k->font_attr;
    default:
        return false;
    }
}

static void pop_to_html_or_ip(html_tree *t)
{
    const oslot *c;
    while ((c = cur(t)) != NULL && c->ns != NS_HTML && !is_html_ip(c) && !is_text_ip(c))
        pop(t);
}

static bool start_is_foreign(const html_tree *t, const tk_token *k)
{
    const oslot *c = cur(t);
    if (c == NULL || c->ns == NS_HTML)
        return false;
    if (k->tag == T_SVG && c->ns == NS_MATH && c->tag == T_ANNOTATION_XML)
        return false;
    return in_foreign_node(t) ||
           ((k->tag == T_MGLYPH || k->tag == T_MALIGNMARK) && !is_html_ip(c));
}

static void start_outside(html_tree *t, const tk_token *k);
static void end_outside(html_tree *t, const tk_token *k);

static void process_start(html_tree *t, const tk_token *k)
{
    if (!start_is_foreign(t, k)) {
        start_outside(t, k);
        return;
    }
    if (causes_exit(k)) {
        pop_to_html_or_ip(t);
        start_outside(t, k);
        return;
    }
    uint8_t ns = cur(t)->ns;
    if (k->self_closing)
        append_element(t, ns);
    else
        insert_element(t, k, ns);
}

static void on_end(html_tree *t, const tk_token *k)
{
    if (!cur_not_html(t)) {
        end_outside(t, k);
        return;
    }
    if (k->tag == T_P || k->tag == T_BR) {
        pop_to_html_or_ip(t);
        end_outside(t, k);
        return;
    }
    if (t->depth <= 1)
        return;
    uint32_t i = max2(top_key(t, key_of(t, NS_SVG, k->tag, k->name_hash)),
                      top_key(t, key_of(t, NS_MATH, k->tag, k->name_hash)));
    uint32_t h = t->st[top_slot(t)].html_top;
    if (i != NONE && (h == NONE || i > h))
        shorten_to(t, i);
    else
        end_outside(t, k);
}

static void start_outside(html_tree *t, const tk_token *k)
{
    switch (t->mode) {
    case M_INITIAL:
        token_in_initial(t, k);
        break;
    case M_BEFORE_HTML:
        if (k->tag == T_HTML) {
            insert_element(t, k, NS_HTML);
            for (size_t r = t->first; r < t->d->n; r++)
                if (!t->d->links[r].xlink)
                    t->html_attrs |= 1u << t->d->links[r].from;
            t->mode = M_BEFORE_HEAD;
        } else {
            token_before_html(t, k);
        }
        break;
    case M_BEFORE_HEAD:
        if (k->tag == T_HTML) {
            start_in_body(t, k);
        } else if (k->tag == T_HEAD) {
            insert_element(t, k, NS_HTML);
            set_head(t);
            t->mode = M_IN_HEAD;
        } else {
            token_before_head(t, k);
        }
        break;
    case M_IN_HEAD: start_in_head(t, k); break;
    case M_IN_HEAD_NOSCRIPT: start_in_head_noscript(t, k); break;
    case M_AFTER_HEAD: start_after_head(t, k); break;
    case M_IN_BODY: start_in_body(t, k); break;
    case M_IN_TABLE: start_in_table(t, k); break;
    case M_IN_TABLE_TEXT: flush_table_text(t, k); break;
    case M_IN_CAPTION: start_in_caption(t, k); break;
    case M_IN_COLUMN_GROUP: start_in_col_group(t, k); break;
    case M_IN_TABLE_BODY: start_in_table_body(t, k); break;
    case M_IN_ROW: start_in_row(t, k); break;
    case M_IN_CELL: start_in_cell(t, k); break;
    case M_IN_SELECT: start_in_select(t, k); break;
    case M_IN_SELECT_IN_TABLE: start_in_select_in_table(t, k); break;
    case M_IN_TEMPLATE: start_in_template(t, k); break;
    case M_AFTER_BODY: case M_AFTER_AFTER_BODY:
        if (k->tag == T_HTML)
            start_in_body(t, k);
        else
            token_after_body(t, k);
        break;
    case M_IN_FRAMESET: start_in_frameset(t, k); break;
    case M_AFTER_FRAMESET: case M_AFTER_AFTER_FRAMESET: start_after_frameset(t, k); break;
    case M_TEXT: break;
    }
}

static void end_outside(html_tree *t, const tk_token *k)
{
    uint16_t g = k->tag;
    switch (t->mode) {
    case M_INITIAL:
        token_in_initial(t, k);
        break;
    case M_BEFORE_HTML:
        if (g == T_HTML || g == T_HEAD || g == T_BODY || g == T_BR)
            token_before_html(t, k);
        break;
    case M_BEFORE_HEAD:
        if (g == T_HEAD || g == T_BODY || g == T_HTML || g == T_BR)
            token_before_head(t, k);
        break;
    case M_IN_HEAD: end_in_head(t, k); break;
    case M_IN_HEAD_NOSCRIPT:
        if (g == T_NOSCRIPT) {
            pop(t);
            t->mode = M_IN_HEAD;
        } else if (g == T_BR) {
            token_in_head_noscript(t, k);
        }
        break;
    case M_AFTER_HEAD:
        if (g == T_BODY || g == T_HTML || g == T_BR)
            token_after_head(t, k);
        else if (g == T_TEMPLATE)
            template_end(t);
        break;
    case M_IN_BODY: end_in_body(t, k); break;
    case M_TEXT:
        pop(t);
        t->mode = t->orig_mode;
        break;
    case M_IN_TABLE: end_in_table(t, k); break;
    case M_IN_TABLE_TEXT: flush_table_text(t, k); break;
    case M_IN_CAPTION: end_in_caption(t, k); break;
    case M_IN_COLUMN_GROUP: end_in_col_group(t, k); break;
    case M_IN_TABLE_BODY: end_in_table_body(t, k); break;
    case M_IN_ROW: end_in_row(t, k); break;
    case M_IN_CELL: end_in_cell(t, k); break;
    case M_IN_SELECT: end_in_select(t, k); break;
    case M_IN_SELECT_IN_TABLE: end_in_select_in_table(t, k); break;
    case M_IN_TEMPLATE:
        if (g == T_TEMPLATE)
            template_end(t);
        break;
    case M_AFTER_BODY:
        if (g == T_HTML)
            t->mode = M_AFTER_AFTER_BODY;
        else
            token_after_body(t, k);
        break;
    case M_IN_FRAMESET: end_in_frameset(t, k); break;
    case M_AFTER_FRAMESET:
        if (g == T_HTML)
            t->mode = M_AFTER_AFTER_FRAMESET;
        break;
    case M_AFTER_AFTER_BODY:
        token_after_body(t, k);
        break;
    case M_AFTER_AFTER_FRAMESET:
        break;
    }
}

static void process(html_tree *t, const tk_token *k)
{
    if (++t->nest > 64) { /* the rules reprocess a token a few times at most */
        t->d->failed = true;
        t->nest--;
        return;
    }
    switch (k->type) {
    case TK_START:
        t->skip_nl = false;
        process_start(t, k);
        break;
    case TK_END:
        t->skip_nl = false;
        on_end(t, k);
        break;
    case TK_SPACE:
        if (t->skip_nl) {
            t->skip_nl = false;
            if (k->lf_only)
                break;
        }
        on_chars(t, k);
        break;
    case TK_CHARS: case TK_NUL:
        t->skip_nl = false;
        on_chars(t, k);
        break;
    case TK_COMMENT:
        t->skip_nl = false;
        if (t->mode == M_IN_TABLE_TEXT && !cur_not_html(t))
            flush_table_text(t, k);
        break;
    case TK_DOCTYPE:
        t->skip_nl = false;
        if (t->mode == M_INITIAL) {
            t->quirks = k->quirks;
            t->mode = M_BEFORE_HTML;
        } else if (t->mode == M_IN_TABLE_TEXT) {
            flush_table_text(t, k);
        }
        break;
    }
    t->nest--;
}

/* ---- entry points ---- */

html_tree *html_tree_new(html_doc *d)
{
    html_tree *t = calloc(1, sizeof *t);
    if (t == NULL) {
        d->failed = true;
        return NULL;
    }
    t->d = d;
    t->tops = malloc(KNOWN_KEYS * sizeof *t->tops);
    if (t->tops == NULL) {
        free(t);
        d->failed = true;
        return NULL;
    }
    t->ntops = KNOWN_KEYS;
    for (size_t i = 0; i < KNOWN_KEYS; i++)
        t->tops[i] = NONE;
    t->fe_free = t->newest = t->bookmark = NONE;
    t->mode = M_INITIAL;
    t->frameset_ok = true;
    return t;
}

void html_tree_free(html_tree *t)
{
    if (t == NULL)
        return;
    free(t->st);
    free(t->tops);
    free(t->nk_hash);
    free(t->nk_key);
    free(t->fe);
    free(t->tmpl);
    free(t);
}

void html_tree_token(html_tree *t, const tk_token *k, bool *kept, tz_state *tz, bool *detached)
{
    t->kept = false;
    t->kept_ns = NS_HTML;
    t->tz = TZ_DATA;
    t->first = k->first_link;
    t->detached = false;
    t->nest = 0;
    process(t, k);
    html_doc *d = t->d;
    if (k->type == TK_START) {
        if (!t->kept) {
            d->n = t->first;
        } else if (t->kept_ns == NS_HTML) {
            size_t w = t->first;
            for (size_t r = t->first; r < d->n; r++)
                if (!d->links[r].xlink)
                    d->links[w++] = d->links[r];
            d->n = w;
        }
    }
    *kept = t->kept;
    *tz = t->tz;
    *detached = t->detached;
}
