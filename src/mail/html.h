/*
 * html.h - the links of an HTML text part, for liburisan-mail (urisan_mail.h).
 *
 * The HTML standard's tokenizer and tree construction (html_tree.h) in
 * one forward pass, no DOM: the URL-valued attributes of the start tags
 * that become elements (HTML entities decoded, as the reader's client
 * decodes them before it opens the link; lists such as srcset split), the
 * URLs of style attributes and <style> sheets (css.h), the visible text
 * of each <a href> (entities decoded, white space collapsed, at most
 * HTML_DISPLAY_MAX bytes) and the visible text of the document (for the
 * text scan). Comments, <script> and raw-text bodies are skipped. Linear
 * time, no recursion; memory is a small multiple of the input, bounded by
 * the caller's max.
 */
#ifndef URISAN_MAIL_HTML_H
#define URISAN_MAIL_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HTML_DISPLAY_MAX 512

/* Where a URL is: an attribute on the HTML standard's list of attributes
   whose value is a URL (plus the legacy ones mail clients still load),
   CSS, or the visible text. The first four keep their values (the
   sources of urisan_mail.h follow this order: html_source in scan.c). */
typedef enum {
    HTML_HREF, HTML_SRC, HTML_ACTION, HTML_FORMACTION,
    HTML_BACKGROUND, HTML_SRCSET, HTML_PING, HTML_POSTER, HTML_DATA, HTML_CITE,
    HTML_LONGDESC, HTML_MANIFEST, HTML_CODEBASE, HTML_CLASSID, HTML_ARCHIVE,
    HTML_LOWSRC, HTML_DYNSRC, HTML_ITEMTYPE, HTML_PROFILE, HTML_ICON,
    HTML_STYLE,          /* the style attribute: never a link's attr (its
                            URLs are HTML_CSS_URL / HTML_CSS_IMPORT) */
    HTML_CSS_URL, HTML_CSS_IMPORT,
    /* URLs a tag holds in a pair of attributes (read at the tag's end) */
    HTML_REFRESH,        /* <meta http-equiv=refresh content="0;url=..."> */
    HTML_ANIMATE,        /* SVG <set>/<animate>/<animateMotion> with
                            attributeName href or xlink:href: to, from,
                            by, each of values */
    HTML_PARAM,          /* <param name=movie|src|url|... value=...> */
    HTML_SRCDOC,         /* <iframe srcdoc>: url is a document of its own */
    HTML_ATTR_COUNT_
} html_attr;

typedef struct {
    html_attr attr;
    uint8_t from;        /* the attribute it was found in (an html_attr up
                            to HTML_STYLE): tree construction merges a
                            repeated <html>/<body> by attribute */
    bool base;           /* the href of a <base> */
    size_t off;          /* where the attribute value starts in the input
                            (for <style> text: where the URL starts) */
    size_t url, url_len; /* decoded value (leading and trailing ASCII white
                            space removed, HTML "valid URL" rules) in text */
    bool xlink;          /* scan-internal: written xlink:href (href on a
                            foreign element, no link on an HTML one) */
    bool has_display;    /* an <a href>: display holds its visible text */
    size_t display, display_len; /* in disp */
} html_link;

/* A run of visible text: vis[vis_off..) came from the input at raw_off
   (exact: byte for byte, no character reference in it). 8 bytes: a part
   whose offsets pass 2^31 fails the scan (the HTML memory limit). */
typedef struct {
    uint32_t vis_off;
    uint32_t raw_off : 31;
    uint32_t exact : 1;
} html_run;

typedef struct {
    char *p;
    size_t len, cap;
} html_buf;

typedef struct {
    html_link *links;    /* in the order their attributes appear */
    size_t n, cap;
    html_buf text;       /* decoded URLs */
    html_buf disp;       /* display texts */
    html_buf vis;        /* the visible text (character references
                            decoded; a line break where a block starts or
                            ends), outside <a href>, templates, comments,
                            scripts and raw text */
    html_run *runs;      /* where each run of vis comes from */
    size_t nruns, runs_cap;
    size_t max;          /* bound on each buffer and on the links, bytes */
    bool failed;         /* a bound was hit or malloc failed */
    size_t *conds;       /* conditional comments ("<!--[if mso]>...
                            <![endif]-->", which Outlook renders): the
                            start and end of each one's content in the
                            input, after "[if ...]>" and before
                            "<![endif]" (pairs) */
    size_t nconds, conds_cap;
} html_doc;

/* The decoded URL and display text of a link (never NULL, even when a
   buffer was never allocated because everything was empty). */
static inline const char *html_url(const html_doc *d, const html_link *l)
{
    return d->text.p ? d->text.p + l->url : "";
}
static inline const char *html_display(const html_doc *d, const html_link *l)
{
    return d->disp.p ? d->disp.p + l->display : "";
}

void html_doc_init(html_doc *d, size_t max);
void html_doc_free(html_doc *d);

/* The offset in the input of vis[v]: exact in a run without references,
   else where its run starts. */
size_t html_vis_offset(const html_doc *d, size_t v);

/* Find the links of h[0..n). false when the bounds were hit (the links
   found until then are kept). */
bool html_scan(html_doc *d, const char *h, size_t n);

/*
 * Decode HTML character references in s[0..n) and append the result to
 * the doc's text buffer (the rules of the HTML standard 13.2.5.72-80 for an
 * attribute value when in_attr: a legacy named reference without ';'
 * followed by '=' or an alphanumeric stays as written). Exposed for tests
 * and the fuzz harness.
 */
bool html_decode(html_doc *d, const char *s, size_t n, bool in_attr);

#endif
