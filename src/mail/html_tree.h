/*
 * html_tree.h - tree construction of the HTML standard (13.2.6) for link
 * extraction: which start tags become elements (their href, src, action
 * and formaction are in the document), which are dropped or merged into
 * <html>/<body>, and the tokenizer state each element sets. The tokenizer
 * (html.c) feeds it tokens; no DOM is built, only the stack of open
 * elements, the list of active formatting elements, the insertion modes
 * and the form element pointer, as the standard keeps them.
 *
 * Linear: the searches tree construction repeats per token (an element
 * in scope, the topmost element of a tag, a special element above one)
 * take constant time through per-slot counts and per-tag chains; the
 * list of active formatting elements after its last marker is bounded
 * (HTML_TREE_FMT_MAX entries: past it the scan fails closed).
 */
#ifndef URISAN_MAIL_HTML_TREE_H
#define URISAN_MAIL_HTML_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "html.h"

#define HTML_TREE_FMT_MAX 256

/* Tokenizer states a start tag can set (13.2.5.2-6). */
typedef enum { TZ_DATA, TZ_RCDATA, TZ_RAWTEXT, TZ_SCRIPT, TZ_PLAINTEXT } tz_state;

typedef enum {
    TK_START, TK_END, TK_CHARS, TK_SPACE, TK_NUL, TK_COMMENT, TK_DOCTYPE
} tk_type;

/* A token as tree construction needs it. */
typedef struct {
    tk_type type;
    uint16_t tag;          /* html_tag_id() of the lower-case name */
    uint64_t name_hash;    /* of the lower-case name */
    bool self_closing;
    bool font_attr;        /* an attribute color, face or size */
    bool enc_html;         /* encoding="text/html" or "application/xhtml+xml" */
    bool hidden;           /* type="hidden" */
    uint64_t attr_hash;    /* names and decoded values (Noah's ark) */
    bool quirks;           /* DOCTYPE: sets quirks mode */
    bool lf_only;          /* TK_SPACE: the run is one line feed */
    size_t first_link;     /* the tag's links: d->links[first_link..d->n) */
} tk_token;

typedef struct html_tree html_tree;

html_tree *html_tree_new(html_doc *d);
void html_tree_free(html_tree *t);

/* Process one token. For a start tag: the links of the tag that are not
   in the document are removed from d (and *kept tells whether the
   element was created); *tz the tokenizer state to switch to; *detached:
   links of earlier tokens left the document (a <frameset> took the
   body's place) and were removed from d. */
void html_tree_token(html_tree *t, const tk_token *tok, bool *kept, tz_state *tz,
                     bool *detached);

/* The tokenizer's view of the tree: CDATA sections are allowed (the
   adjusted current node is a foreign element). */
bool html_tree_cdata_ok(const html_tree *t);

/* A <template> is open: what follows is its content, which is not
   rendered (its text is not visible). */
bool html_tree_in_template(const html_tree *t);

uint16_t html_tag_id(const char *lower, size_t len);
bool html_tag_is_formatting(uint16_t tag);
/* Elements that do not break a line of the rendered text (b, i, span,
   font, sub, sup ..., and every tag not in the table). */
bool html_tag_is_inline(uint16_t tag);

#endif
