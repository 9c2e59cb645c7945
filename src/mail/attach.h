/*
 * attach.h - what a reader's system opens a MIME part as, and the readers
 * of liburisan-mail that find its links.
 *
 * A mail client hands an attachment to the system by its file name (the
 * extension picks the program), shows an inline part by its declared type,
 * and a program that opens a file often looks at its first bytes. So a
 * part is read by every one of these that names a kind urisan reads
 * (mail_sniff): invoice.html labelled application/octet-stream is read as
 * HTML, a .url shortcut labelled text/plain as a shortcut.
 *
 * The dispatch (scan.c) decodes a part and calls the reader of each kind
 * in the set mail_sniff gives: the readers of this library (text, HTML,
 * calendar, shortcut) and those of other files (PDF, Office Open XML,
 * images) plugged in through mail_readers[] below. A reader reports each
 * link it finds through mail_out (scan.c), which parses, judges and
 * delivers it with the part and the attachment's file name.
 */
#ifndef URISAN_MAIL_ATTACH_H
#define URISAN_MAIL_ATTACH_H

#include <stdbool.h>
#include <stddef.h>

#include "urisan_mail.h"

/* What a part is read as (bits 1u << kind of a mail_sniff set). */
typedef enum {
    MAIL_KIND_TEXT,      /* text: links as a client auto-links them */
    MAIL_KIND_HTML,      /* HTML, XHTML, SVG: the HTML reader */
    MAIL_KIND_CALENDAR,  /* iCalendar (RFC 5545): ics.c */
    MAIL_KIND_SHORTCUT,  /* .url (InternetShortcut), .webloc, .desktop */
    MAIL_KIND_PDF,       /* readers of other files: mail_readers[] */
    MAIL_KIND_OOXML,     /* a zip: .docx, .xlsx, .pptx and their kin */
    MAIL_KIND_IMAGE,     /* PNG, JPEG, GIF, WebP */
    MAIL_KIND_COUNT_
} mail_kind;

#define MAIL_KIND_BIT(k) (1u << (k))

/* "text", "html", "calendar", "shortcut", "pdf", "ooxml", "image". */
const char *mail_kind_name(mail_kind k);

/*
 * The kinds a part is opened as: by its file name's extension (name, NULL
 * when it has none), by its declared type (type, "application/pdf",
 * lower or upper case; NULL: none), and by its first bytes (data[0..n)).
 * named_or_attached: the part has a file name or Content-Disposition
 * attachment. An inline text/ part without a file name is read by its
 * type alone, as a client shows it (0 bits from its bytes). When another
 * kind is in the set, TEXT is not (its reader finds the links the text
 * shows: the HTML reader scans the visible text).
 * 0: nothing urisan reads.
 */
unsigned mail_sniff(const char *name, const char *type, const char *data, size_t n,
                    bool named_or_attached);

/* The kind a file name's extension names (".HTML", "x.tar.url "), or
   MAIL_KIND_COUNT_ for none. Windows drops trailing dots and spaces. */
mail_kind mail_kind_by_name(const char *name);

/* ---- where a reader reports (scan.c) ---- */

typedef struct mail_out mail_out;

/* One link a reader found in the part's decoded bytes. */
typedef struct {
    const char *uri;          /* what the reader's program opens */
    size_t uri_len;
    urisan_mail_source source;
    size_t offset, length;    /* where in the decoded part (bytes) */
    const char *display;      /* a text shown for it, or NULL */
    size_t display_len;
    const char *written;      /* the link as written when uri is the form
                                 the reader made of it (a Windows path:
                                 its file: URI); NULL: uri as written,
                                 read as a browser reads it (Unicode
                                 converted, rewritten links unwrapped) */
    size_t written_len;
} mail_found;

/* Parse, judge and deliver one link (relative ones are judged as
   written). false: stop (the sink said so). */
bool mail_out_link(mail_out *o, const mail_found *f);

/* The links of t[0..n) found as in a text part (urisan_extract), each
   with source src and offset base + its offset in t. false: stop. */
bool mail_out_text(mail_out *o, const char *t, size_t n, urisan_mail_source src,
                   size_t base);

/* The links of t[0..n) read as an HTML document (a part of its own:
   its own <base>). false: stop. */
bool mail_out_html(mail_out *o, const char *t, size_t n);

/* A bound a reader reached or a file it could not read: told as limit l
   (flag mail_limit, judged by the policy) with the attachment's name.
   false: stop. */
bool mail_out_limit(mail_out *o, urisan_mail_limit l, const char *msg, size_t value,
                    size_t max);

/* The PDF page (1-based) of what is reported next, 0: none; the
   dispatch sets 0 again after the part. */
void mail_out_page(mail_out *o, unsigned page);

/* The attachment's file name (NULL: none) and the part's number. */
const char *mail_out_attachment(const mail_out *o);
const char *mail_out_part(const mail_out *o);

/*
 * A reader: the links of data[0..n), the decoded part, told to o. false:
 * stop the scan (a mail_out_* call returned false). A file it cannot read
 * is told with mail_out_limit, never dropped in silence.
 */
typedef bool (*mail_reader_fn)(mail_out *o, const char *data, size_t n);

/* The reader of each kind but TEXT and HTML, which are the dispatch's
   own. */
extern const mail_reader_fn mail_readers[MAIL_KIND_COUNT_];

/* The readers of this library. */
bool mail_read_calendar(mail_out *o, const char *data, size_t n);  /* ics.c */
bool mail_read_shortcut(mail_out *o, const char *data, size_t n);  /* shortcut.c */
/* ... and of binary files, each in a sandboxed process (binread.c) */
bool mail_read_pdf(mail_out *o, const char *data, size_t n);
bool mail_read_ooxml(mail_out *o, const char *data, size_t n);
bool mail_read_image(mail_out *o, const char *data, size_t n);

/* ---- the readers' own parsers (for the tests and fuzz harnesses) ---- */

/* One value of a calendar or shortcut file. */
typedef struct {
    const char *name;         /* "URL", "ATTACH", "DESCRIPTION", "Exec" ... */
    size_t name_len;
    const char *params;       /* calendar: ";FMTTYPE=text/html" (as
                                 written, unfolded); else NULL */
    size_t params_len;
    const char *value;        /* unfolded and unescaped (calendar) */
    size_t value_len;
    size_t offset;            /* where its value starts in the file (a
                                 calendar: where its line starts) */
} mail_prop;

typedef bool (*mail_prop_fn)(void *ctx, const mail_prop *p);

/* Every content line of an iCalendar file (RFC 5545 3.1): lines unfolded
   (CRLF or LF followed by a space or TAB), the name up to the first ';'
   or ':', the parameters up to the first ':' outside a quoted parameter
   value, the value after it with the TEXT escapes (3.3.11: \\ \; \, \n
   \N) undone unless the property's value is a URI (URL, ATTACH, TZURL,
   SOURCE, CONFERENCE, IMAGE). Linear; scratch holds at least n bytes
   (the caller's). false: fn stopped. */
bool mail_ics_props(const char *d, size_t n, char *scratch, mail_prop_fn fn, void *ctx);

/* "URL=", "IconFile=", "Exec=" ... lines of an INI-style shortcut
   (Windows .url, freedesktop .desktop): name and value as written, keys
   of every section. Linear, no allocation. */
bool mail_ini_props(const char *d, size_t n, mail_prop_fn fn, void *ctx);

/* The <string> after each <key>URL</key> of an XML property list
   (.webloc), XML entities decoded into scratch (at least n bytes, the
   caller's). Linear. */
bool mail_plist_props(const char *d, size_t n, char *scratch, mail_prop_fn fn, void *ctx);

#endif
