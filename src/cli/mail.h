/*
 * mail.h - MIME walking and link-text judgement for `urisan extract
 * --mail` (SPEC section 6). Built only with the meson option 'mail'
 * (GMime 3 and libpsl); URISAN_HAVE_MAIL is defined then.
 */
#ifndef URISAN_CLI_MAIL_H
#define URISAN_CLI_MAIL_H

#include <stdbool.h>
#include <stddef.h>

/* One text part of a message, decoded as the reader's client shows it:
   Content-Transfer-Encoding undone (quoted-printable soft line breaks
   joined, base64 decoded) and the charset converted to UTF-8 (bytes of
   an unknown charset are passed on as they are). */
typedef struct {
    const char *path;   /* "1", "2.1": IMAP-style part number */
    bool html;          /* text/html (else any other text/ type) */
    const char *text;
    size_t len;
} mail_part;

/* false: stop the walk (e.g. a write error). */
typedef bool (*mail_part_fn)(void *ctx, const mail_part *p);

/*
 * Parse the message data[0..len) and call fn for each text part, in
 * order, through nested multiparts and attached messages. Returns 0, or
 * prints "urisan: CMD: reason" and returns 2 (not a message, a callback
 * asked to stop, out of memory).
 */
int mail_walk(const char *cmd, const char *data, size_t len,
              mail_part_fn fn, void *ctx);

/*
 * link_text_mismatch (SPEC section 3, bit 28): the visible text of a link
 * looks like a URL, a domain or a mail address whose registrable domain
 * (Public Suffix List) differs from the one of the href - "paypal.com"
 * shown over a link to elsewhere. A text that names no domain ("Click
 * here") never mismatches.
 */
bool mail_link_text_mismatch(const char *display, size_t dlen,
                             const char *href, size_t hlen);

/* Release the Public Suffix List and GMime (at exit; optional). */
void mail_shutdown(void);

#endif
