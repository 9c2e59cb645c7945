/*
 * css.h - the URLs a style sheet loads, for liburisan-mail: url()
 * tokens (any property, @font-face src, cursor ...), the strings of
 * image-set() and -webkit-image-set(), and @import (a string or url()).
 * The tokenizer of CSS Syntax Level 3 (section 4) for what decides where
 * a comment, a string, an identifier and a url token begin and end, with
 * its escapes (`u\72l(`, `\40import` are url( and @import); everything
 * else is skipped. One forward pass, no recursion, linear time.
 */
#ifndef URISAN_MAIL_CSS_H
#define URISAN_MAIL_CSS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The UTF-8 bytes of the code point cp (at most U+10FFFF) in u; how many. */
size_t mail_utf8(uint32_t cp, char u[4]);

/* One URL: import (from @import), off where its token starts in the
   style sheet, url[0..len) the value with CSS escapes decoded (UTF-8).
   false: stop. */
typedef bool (*css_url_fn)(void *ctx, bool import, size_t off, const char *url, size_t len);

/* Call fn for each URL of the style sheet s[0..n), in order. false when
   memory ran out or fn returned false. */
bool css_scan(const char *s, size_t n, css_url_fn fn, void *ctx);

#endif
