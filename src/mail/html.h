/*
 * html.h - the links of an HTML text part, for liburisan-mail (urisan_mail.h).
 *
 * Not an HTML parser: a single forward pass over the bytes that finds
 * start tags, their href and src attributes (HTML entities decoded, as
 * the reader's client decodes them before it opens the link) and the
 * visible text of each <a href> (entities decoded, white space
 * collapsed, at most HTML_DISPLAY_MAX bytes). Comments, <script> and
 * <style> bodies are skipped. Linear time, no recursion; memory is a
 * small multiple of the input, bounded by the caller's max.
 */
#ifndef URISAN_MAIL_HTML_H
#define URISAN_MAIL_HTML_H

#include <stdbool.h>
#include <stddef.h>

#define HTML_DISPLAY_MAX 512

typedef enum { HTML_HREF, HTML_SRC, HTML_ACTION, HTML_FORMACTION } html_attr;

typedef struct {
    html_attr attr;
    size_t off;          /* where the attribute value starts in the input */
    size_t url, url_len; /* decoded value (leading and trailing ASCII white
                            space removed, HTML "valid URL" rules) in text */
    bool xlink;          /* scan-internal: written xlink:href (href on a
                            foreign element, no link on an HTML one) */
    bool has_display;    /* an <a href>: display holds its visible text */
    size_t display, display_len; /* in disp */
} html_link;

typedef struct {
    char *p;
    size_t len, cap;
} html_buf;

typedef struct {
    html_link *links;    /* in the order their attributes appear */
    size_t n, cap;
    html_buf text;       /* decoded URLs */
    html_buf disp;       /* display texts */
    size_t max;          /* bound on each buffer and on the links, bytes */
    bool failed;         /* a bound was hit or malloc failed */
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
