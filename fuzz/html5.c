/*
 * fuzz/html5.c - the HTML link scanner of liburisan-mail (src/mail/html.c,
 * the WHATWG tokenizer, and html_tree.c, its tree construction) on hostile
 * documents: the input is one HTML document.
 *
 * Invariants:
 *  1. two scans of one document give the same links (no state leaks);
 *  2. every link lies in the document: a non-empty value starts right
 *     after '=', a quote or white space, and its decoded URL is in the
 *     text buffer, trimmed of bytes <= 0x20;
 *  3. the URL is the attribute value as written, decoded again on its
 *     own (html_decode, attribute rules) and trimmed: the tokenizer's
 *     value boundaries and the decoder agree;
 *     For a list (srcset, ping, archive, itemtype) the URL is a piece
 *     of that decoded value; a style attribute's CSS URLs start at the
 *     value (escapes make them no piece of it); a <style> sheet's start
 *     inside the document;
 *  4. appending a plain character to the document never changes the
 *     links before it (character tokens at the end of the input create no
 *     element and remove none), but for those of a style sheet (an
 *     unclosed <style> grows with the document);
 *  5. the visible text maps back into the document, in order.
 * The comparison with parse5 runs over this harness's corpus
 * (corpus/html5/, meson test html5_corpus_diff: tests/html5_diff.mjs with
 * every file as a document, 0 missed and 0 extra links): an input a
 * campaign adds to the corpus is held to parse5 in CI (fuzz/README.md).
 */
#define _GNU_SOURCE /* memmem */
#include "fuzz_util.h"

#include "html.h"

static bool is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

static void scan(html_doc *d, const char *h, size_t n)
{
    html_doc_init(d, (size_t)64 << 20);
    (void)html_scan(d, h, n);
}

/* The value of the attribute whose value starts at h[off]: to the quote
   that opened it, or to white space or '>' when unquoted. */
static size_t value_end(const char *h, size_t n, size_t off)
{
    char q = off > 0 ? h[off - 1] : 0;
    size_t e = off;
    if (q == '"' || q == '\'') {
        while (e < n && h[e] != q)
            e++;
        return e;
    }
    while (e < n && !is_ws((unsigned char)h[e]) && h[e] != '>')
        e++;
    return e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20))
        return 0;
    /* the document and the document with one more character */
    char *h = malloc(size + 1);
    if (h == NULL)
        abort();
    if (size)
        memcpy(h, data, size);
    h[size] = 'x';
    html_doc a, b, c;
    scan(&a, h, size);
    scan(&b, h, size);
    FUZZ_ASSERT(a.failed == b.failed && a.n == b.n, "two scans differ: %zu and %zu links", a.n,
                b.n);
    for (size_t k = 0; k < a.n; k++) {
        const html_link *l = &a.links[k], *m = &b.links[k];
        const char *url = html_url(&a, l);
        FUZZ_ASSERT(l->attr == m->attr && l->off == m->off && l->url_len == m->url_len &&
                        memcmp(url, html_url(&b, m), l->url_len) == 0,
                    "link %zu differs between two scans", k);
        FUZZ_ASSERT(l->off <= size, "link %zu: value offset %zu past the document (%zu)", k,
                    l->off, size);
        FUZZ_ASSERT(l->url <= a.text.len && l->url_len <= a.text.len - l->url,
                    "link %zu: url outside the text buffer", k);
        if (l->url_len == 0)
            continue;
        FUZZ_ASSERT((unsigned char)url[0] > 0x20 && (unsigned char)url[l->url_len - 1] > 0x20,
                    "link %zu: url not trimmed", k);
        if (l->from == HTML_CSS_URL) /* a <style> sheet's URL: no attribute */
            continue;
        unsigned char before = l->off > 0 ? (unsigned char)h[l->off - 1] : 0;
        FUZZ_ASSERT(before == '=' || before == '"' || before == '\'' || is_ws(before),
                    "link %zu: value at %zu follows byte 0x%02x", k, l->off, before);
        /* 3: decoded again on its own */
        html_doc r;
        html_doc_init(&r, (size_t)64 << 20);
        size_t e = value_end(h, size, l->off);
        FUZZ_ASSERT(html_decode(&r, h + l->off, e - l->off, true), "link %zu: decode failed", k);
        size_t s0 = 0, s1 = r.text.len;
        while (s0 < s1 && (unsigned char)r.text.p[s0] <= 0x20)
            s0++;
        while (s1 > s0 && (unsigned char)r.text.p[s1 - 1] <= 0x20)
            s1--;
        if (l->attr == HTML_SRCSET || l->attr == HTML_PING || l->attr == HTML_ARCHIVE ||
            l->attr == HTML_ITEMTYPE) {
            FUZZ_ASSERT(memmem(r.text.p + s0, s1 - s0, url, l->url_len) != NULL,
                        "link %zu: url %.*s is no piece of its value", k, (int)l->url_len, url);
        } else if (l->from != HTML_STYLE) {
            FUZZ_ASSERT(s1 - s0 == l->url_len && memcmp(r.text.p + s0, url, l->url_len) == 0,
                        "link %zu: url %.*s is not its value %.*s decoded", k,
                        (int)l->url_len, url, (int)(e - l->off), h + l->off);
        }
        html_doc_free(&r);
    }
    /* 5: the visible text's runs */
    for (size_t k = 0; k < a.nruns; k++) {
        FUZZ_ASSERT(a.runs[k].raw_off <= size && a.runs[k].vis_off <= a.vis.len,
                    "run %zu outside the document or the text", k);
        FUZZ_ASSERT(k == 0 || (a.runs[k].raw_off > a.runs[k - 1].raw_off &&
                               a.runs[k].vis_off >= a.runs[k - 1].vis_off),
                    "run %zu out of order", k);
    }
    for (size_t v = 0; v < a.vis.len; v += 1 + a.vis.len / 64)
        FUZZ_ASSERT(html_vis_offset(&a, v) <= size, "visible byte %zu maps past the end", v);
    /* 4: one more plain character */
    scan(&c, h, size + 1);
    if (!a.failed && !c.failed) {
        size_t i = 0, j = 0;
        for (;;) {
            while (i < a.n && a.links[i].from == HTML_CSS_URL)
                i++;
            while (j < c.n && c.links[j].from == HTML_CSS_URL)
                j++;
            if (i >= a.n || j >= c.n)
                break;
            FUZZ_ASSERT(a.links[i].attr == c.links[j].attr && a.links[i].off == c.links[j].off &&
                            a.links[i].url_len == c.links[j].url_len &&
                            memcmp(html_url(&a, &a.links[i]), html_url(&c, &c.links[j]),
                                   a.links[i].url_len) == 0,
                        "appending a character changed link %zu", i);
            i++;
            j++;
        }
        FUZZ_ASSERT(i >= a.n && j >= c.n, "appending a character changed the number of links");
    }
    html_doc_free(&a);
    html_doc_free(&b);
    html_doc_free(&c);
    free(h);
    return 0;
}
