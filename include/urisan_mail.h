/*
 * urisan_mail.h - liburisan-mail: the links of a mail message.
 *
 * A library beside the core (liburisan stays libc-only): it walks the
 * MIME structure with GMime 3, undoes transfer encodings and charsets,
 * finds the links of text parts (urisan_extract) and of HTML parts (every
 * attribute whose value is a URL, CSS url() and @import, the visible text;
 * the text of each <a> as its display), parses and analyses each link
 * once with the core, adds link_text_mismatch (libpsl), and decides it
 * once: with the host layer's decision (urisan_judge_link_decide,
 * urisan_host.h: the host judgement folded in - homograph, lookalike,
 * host_uts46 ...), as every urisan door decides, or with the caller's
 * hook (urisan_mail_scan_with). Built when
 * GMime 3 and libpsl are found (meson option 'mail'); pkg-config name
 * "urisan-mail".
 *
 * One call per message:
 *
 *     urisan_mail_init();                      // once, before threads
 *     urisan_mail_limits lim;
 *     urisan_mail_limits_default(&lim);
 *     urisan_mail_sink sink = { on_hit, on_diag, ctx };
 *     urisan_mail_result res;
 *     urisan_mail_status st = urisan_mail_scan(msg, len, pol, &lim, &sink, &res);
 *     ...
 *     urisan_mail_shutdown();                  // at exit, optional
 *
 * Every hit is delivered to sink.on_hit while the scan runs; its strings
 * live until the callback returns (copy what you keep). Limits are never
 * silent: a limit that was reached is delivered to sink.on_diag (when
 * set), recorded in res.limits, and makes the status URISAN_MAIL_LIMIT;
 * what lies beyond it was scanned as raw text or not at all, as each
 * limit's comment says.
 *
 * Thread safety: after urisan_mail_init(), urisan_mail_scan() may run in
 * several threads at once (each call has its own state; the Public Suffix
 * List is shared read-only).
 */
#ifndef URISAN_MAIL_H
#define URISAN_MAIL_H

#include <stdbool.h>
#include <stddef.h>

#include "urisan.h"

/* URISAN_API marks the exports while the library is built (the source
   tree's urisan.h); the installed urisan.h is flat and has none, and a
   program that uses the library needs none. */
#ifndef URISAN_API
#define URISAN_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Where a hit was found. Append only (the values are stable). */
typedef enum {
    URISAN_MAIL_SRC_TEXT = 0,      /* a text part, by urisan_extract */
    URISAN_MAIL_SRC_HTML_HREF = 1, /* an HTML href attribute */
    URISAN_MAIL_SRC_HTML_SRC = 2,  /* an HTML src attribute */
    URISAN_MAIL_SRC_HTML_ACTION = 3,     /* <form action> */
    URISAN_MAIL_SRC_HTML_FORMACTION = 4, /* <button formaction>, <input formaction> */
    URISAN_MAIL_SRC_HEADER = 5,    /* a header field's value (Subject, ...),
                                      RFC 2047 decoded; hit.header names it */
    /* Other HTML attributes whose value is a URL (the HTML standard's
       index of attributes, and obsolete ones mail clients still load) */
    URISAN_MAIL_SRC_HTML_BACKGROUND = 6, /* background on body, table, tr, td, th */
    URISAN_MAIL_SRC_HTML_SRCSET = 7,     /* each image candidate of srcset */
    URISAN_MAIL_SRC_HTML_PING = 8,       /* each URL of <a ping>, <area ping> */
    URISAN_MAIL_SRC_HTML_POSTER = 9,     /* <video poster> */
    URISAN_MAIL_SRC_HTML_DATA = 10,      /* <object data> */
    URISAN_MAIL_SRC_HTML_CITE = 11,      /* <blockquote cite>, <q>, <del>, <ins> */
    URISAN_MAIL_SRC_HTML_LONGDESC = 12,  /* <img longdesc>, <frame>, <iframe> */
    URISAN_MAIL_SRC_HTML_MANIFEST = 13,  /* <html manifest> */
    URISAN_MAIL_SRC_HTML_CODEBASE = 14,  /* <object codebase>, <applet> */
    URISAN_MAIL_SRC_HTML_CLASSID = 15,   /* <object classid> */
    URISAN_MAIL_SRC_HTML_ARCHIVE = 16,   /* each URL of <object archive> */
    URISAN_MAIL_SRC_HTML_LOWSRC = 17,    /* <img lowsrc> */
    URISAN_MAIL_SRC_HTML_DYNSRC = 18,    /* <img dynsrc> */
    URISAN_MAIL_SRC_HTML_ITEMTYPE = 19,  /* each URL of itemtype */
    URISAN_MAIL_SRC_HTML_PROFILE = 20,   /* <head profile> */
    URISAN_MAIL_SRC_HTML_ICON = 21,      /* <command icon>, <menuitem icon> */
    URISAN_MAIL_SRC_CSS_URL = 22,        /* CSS url() and image-set() in a
                                            style attribute or <style> */
    URISAN_MAIL_SRC_CSS_IMPORT = 23,     /* CSS @import */
    URISAN_MAIL_SRC_HTML_TEXT = 24,      /* the visible text of an HTML part,
                                            found as in a text part (a
                                            client turns it into a link) */
    /* Attachments read as the system that opens them reads them
       (hit.attachment names the file) */
    URISAN_MAIL_SRC_SHORTCUT_URL = 25,   /* URL= of a .url or .desktop file,
                                            the URL string of a .webloc */
    URISAN_MAIL_SRC_SHORTCUT_ICON = 26,  /* IconFile= / Icon= of a shortcut
                                            (loaded when it is shown) */
    URISAN_MAIL_SRC_SHORTCUT_EXEC = 27,  /* a URL in Exec= / TryExec= of a
                                            .desktop file */
    URISAN_MAIL_SRC_ICS_URL = 28,        /* a calendar's URL, TZURL, SOURCE,
                                            CONFERENCE, IMAGE (RFC 5545,
                                            RFC 7986) */
    URISAN_MAIL_SRC_ICS_ATTACH = 29,     /* a calendar's ATTACH by URI */
    URISAN_MAIL_SRC_ICS_DESCRIPTION = 30, /* a URL in a calendar's
                                            DESCRIPTION, SUMMARY, COMMENT */
    URISAN_MAIL_SRC_ICS_LOCATION = 31,   /* a URL in a calendar's LOCATION */
    /* HTML places a browser or mail client opens without a link */
    URISAN_MAIL_SRC_META_REFRESH = 32,   /* <meta http-equiv=refresh
                                            content="0;url=..."> */
    URISAN_MAIL_SRC_SVG_ANIMATE = 33,    /* SVG <set>/<animate>/
                                            <animateMotion> setting href:
                                            to, from, by, values */
    URISAN_MAIL_SRC_OBJECT_PARAM = 34,   /* <param name=movie|src|url...
                                            value=...> of an <object> */
    /* Binary attachments, read in a sandboxed process (hit.page: the PDF
       page, 1-based, 0 when none): */
    URISAN_MAIL_SRC_PDF_URI = 35,        /* a PDF URI action (a link
                                            annotation's /A /URI) */
    URISAN_MAIL_SRC_PDF_LAUNCH = 36,     /* a PDF Launch action's file */
    URISAN_MAIL_SRC_PDF_GOTOR = 37,      /* a PDF GoToR/GoToE action's file */
    URISAN_MAIL_SRC_PDF_SUBMIT = 38,     /* a PDF form's SubmitForm or
                                            ImportData target */
    URISAN_MAIL_SRC_PDF_JS = 39,         /* a URL in a string of the PDF's
                                            JavaScript (app.launchURL,
                                            this.submitForm ...) */
    URISAN_MAIL_SRC_OOXML_EXTERNAL = 40, /* an Office document's external
                                            relationship (TargetMode
                                            External) of another type */
    URISAN_MAIL_SRC_OOXML_HYPERLINK = 41,/* an Office document's hyperlink */
    URISAN_MAIL_SRC_OOXML_TEMPLATE = 42, /* attachedTemplate: the remote
                                            template Word loads */
    URISAN_MAIL_SRC_OOXML_OLE = 43,      /* an OLE link or linked file
                                            (oleObject, frame, package,
                                            externalLinkPath) */
    URISAN_MAIL_SRC_QR = 44,             /* the text of a QR code in an
                                            image, or in an image of a PDF
                                            page */
    URISAN_MAIL_SRC_OOXML_FIELD = 45     /* a URL in a Word field code
                                            (HYPERLINK, INCLUDEPICTURE) */
} urisan_mail_source;

/* "text", "html-href", "html-src", "html-action", "html-formaction",
   "header", "html-background", "html-srcset", "html-ping", "html-poster",
   "html-data", "html-cite", "html-longdesc", "html-manifest",
   "html-codebase", "html-classid", "html-archive", "html-lowsrc",
   "html-dynsrc", "html-itemtype", "html-profile", "html-icon", "css-url",
   "css-import", "html-text", "shortcut-url", "shortcut-icon",
   "shortcut-exec", "ics-url", "ics-attach", "ics-description",
   "ics-location", "meta-refresh", "svg-animate", "object-param",
   "pdf-uri", "pdf-launch", "pdf-gotor", "pdf-submit", "pdf-js",
   "ooxml-external", "ooxml-hyperlink", "ooxml-template", "ooxml-ole",
   "qr", "ooxml-field" (the command's "context" key); NULL for a
   value that names no source. */
URISAN_API const char *urisan_mail_source_name(urisan_mail_source s);

typedef struct {
    const char *part;          /* IMAP-style part number: "1", "2.1";
                                  "raw" for the fail-closed raw scan */
    urisan_mail_source source;
    size_t offset, length;     /* text: the hit's range in the decoded part;
                                  HTML: offset of the attribute value in the
                                  decoded part, length of the decoded URL */
    const char *uri;           /* what the reader opens (entities decoded,
                                  wrapped lines joined) */
    size_t uri_len;
    const char *display;       /* an <a href>'s visible text, NULL: none */
    size_t display_len;
    bool has_form;             /* text hits: form holds URISAN_HIT_* bits */
    unsigned form;
    urisan_flags flags;        /* core flags, plus link_text_mismatch and
                                  what the caller's hook added */
    urisan_decision decision;  /* the one decision of the link */
    const char *header;        /* source header: the field's name as in the
                                  message ("Subject"); part is "HEADER"
                                  (the message) or "2.HEADER" (an attached
                                  message, RFC 3501 6.4.5); else NULL.
                                  offset/length: in the decoded value */
    const char *written;       /* a link written in Unicode (an IRI,
                                  RFC 3987): the text as written, and uri
                                  the URI a browser opens for it (host by
                                  UTS #46 to A-labels, the rest UTF-8
                                  percent-encoded), which is what was
                                  judged; a UNC path (\\host\share):
                                  the path as written, uri its file: URI;
                                  NULL when uri is as written. A uri
                                  that still holds a byte >= 0x80 could
                                  not be converted and is flagged
                                  invalid */
    size_t written_len;
    const char *attachment;    /* the file name of the part the link is
                                  in (Content-Disposition filename, else
                                  Content-Type name), NULL when it has
                                  none */
    const char *rewriter;      /* a link a rewriting service wrapped
                                  ("safelinks", "proofpoint-v1",
                                  "proofpoint-v2", "proofpoint-v3",
                                  "barracuda", "google", "facebook",
                                  "youtube", "slack"): uri is the
                                  destination the service sends the
                                  reader to, which is what was judged,
                                  written the link as written; else NULL */
    unsigned page;             /* a hit in a PDF: its page, 1-based; 0: not
                                  on a page (a document action) or not a
                                  PDF */
} urisan_mail_hit;

/* Limits. Bit numbers of urisan_mail_result.limits. Append only. */
typedef enum {
    URISAN_MAIL_LIMIT_DEPTH = 0,   /* MIME nesting (or multipart count) */
    URISAN_MAIL_LIMIT_HTML = 1,    /* an HTML part's link memory */
    URISAN_MAIL_LIMIT_HEADERS = 2,      /* header fields of the message */
    URISAN_MAIL_LIMIT_HEADER_SIZE = 3,  /* bytes of one header field */
    URISAN_MAIL_LIMIT_PARAMS = 4,       /* parameters of one Content-Type
                                           or Content-Disposition field */
    URISAN_MAIL_LIMIT_PARTS = 5,        /* MIME parts */
    URISAN_MAIL_LIMIT_DECODED = 6,      /* decoded bytes of all parts read
                                           (text, HTML, attachments) */
    URISAN_MAIL_LIMIT_HTML_SIZE = 7,    /* bytes of one HTML part */
    URISAN_MAIL_LIMIT_BOUNDARIES = 8,   /* GMime's boundary compares:
                                           "--" lines x enclosing
                                           multiparts */
    URISAN_MAIL_LIMIT_PARAMS_TOTAL = 9, /* parameters of all Content-Type
                                           and Content-Disposition fields */
    URISAN_MAIL_LIMIT_READER = 10       /* a reader of a binary attachment
                                           (PDF, Office, image) reached one
                                           of its bounds (pages, images,
                                           pixels, decompressed bytes,
                                           memory, CPU or wall time) or
                                           could not read the file; the
                                           message names the attachment */
} urisan_mail_limit;

/* "depth", "html_mem", "headers", "header_size", "params", "parts",
   "decoded", "html_size", "boundaries", "params_total", "reader"; NULL for a value
   that names no limit. */
URISAN_API const char *urisan_mail_limit_name(urisan_mail_limit l);

/*
 * Every limit is checked before the work it bounds. Reached, it is told
 * to on_diag, set in res.limits, and the status is URISAN_MAIL_LIMIT;
 * the diagnostic carries the flag mail_limit and the policy's verdict on
 * it (the default policy denies it: fail closed).
 *
 * headers, header_size, params, params_total, parts, depth, boundaries:
 * checked by one linear pass
 * over the raw lines before GMime parses anything (header fields of the
 * message head; every Content-Type and Content-Disposition field of the
 * message and its parts: parameters, size; declared parts; declared
 * multiparts, which bound the nesting). Reached there, GMime never sees
 * the message: the raw message is scanned as text, part "raw".
 * depth, parts, decoded: checked again during the walk; reached, the walk
 * stops and the raw message is scanned as text, part "raw" (the hits of
 * the parts before are reported too).
 * html_size: the HTML part is scanned as text (urisan_extract) instead.
 * html_mem: the links found until then are reported, the rest of the
 * part is not scanned.
 *
 * Memory of one scan: the message, plus GMime's tree (a small multiple of
 * the header bytes, bounded by the limits above), plus one decoded part at
 * a time (at most max_decoded), plus for an HTML part its link table
 * (at most max_html_mem).
 */
typedef struct {
    size_t max_depth;        /* default 64 */
    size_t max_html_mem;     /* default 256 MiB */
    size_t max_headers;      /* default 1000 */
    size_t max_header_bytes; /* default 64 KiB */
    size_t max_params;       /* default 64 */
    size_t max_parts;        /* default 1000 */
    size_t max_decoded;      /* default 128 MiB */
    size_t max_html;         /* default 32 MiB */
    /* default 8: GMime compares each content line that starts with "--"
       with the boundary of every multipart it is inside; counted as
       (line length + 16) x the multiparts declared before the line, at
       most max_boundary_ratio x the message + 1 MiB. */
    size_t max_boundary_ratio;
    /* default 4096: parameters of all Content-Type and Content-Disposition
       fields of the message, plus one per 256 bytes of the message */
    size_t max_params_total;
} urisan_mail_limits;

/* The defaults above. */
URISAN_API void urisan_mail_limits_default(urisan_mail_limits *lim);

/* One limit reached. */
typedef struct {
    urisan_mail_limit limit;
    const char *part;          /* the part it was reached in, or NULL */
    const char *message;       /* one line of English, no newline */
    size_t value, max;         /* what was counted, and the limit */
    urisan_flags flags;        /* URISAN_F(MAIL_LIMIT) */
    urisan_decision decision;  /* the policy's verdict on the flag (the
                                  hook's, for the empty URI, when given) */
    const char *attachment;    /* the file name of the part, or NULL */
} urisan_mail_diag;

/* The row of a hit and of a limit reached (urisan.h "The row of one link
   found, described once"): the keys of `urisan extract --mail --json`.
   A limit's row: uri null, part its part ("raw" when none), offset and
   length 0, context "limit", no form, the diagnostic's flags, decision,
   limit, message and attachment. The row points into the hit or the
   diagnostic: read it in the callback. */
URISAN_API void urisan_mail_hit_row(urisan_link_row *row, const urisan_mail_hit *h);
URISAN_API void urisan_mail_diag_row(urisan_link_row *row, const urisan_mail_diag *d);

/* Callbacks return false to stop the scan (status URISAN_MAIL_STOPPED). */
typedef struct {
    bool (*on_hit)(void *ctx, const urisan_mail_hit *hit);
    bool (*on_diag)(void *ctx, const urisan_mail_diag *diag); /* may be NULL */
    void *ctx;
} urisan_mail_sink;

typedef enum {
    URISAN_MAIL_OK = 0,
    URISAN_MAIL_LIMIT = 1,         /* scanned, but a limit was reached */
    URISAN_MAIL_NOT_MESSAGE = 2,   /* GMime found no message in the bytes */
    URISAN_MAIL_STOPPED = 3,       /* a callback returned false */
    URISAN_MAIL_NOMEM = 4          /* out of memory */
} urisan_mail_status;

typedef struct {
    size_t parts;              /* text and HTML parts scanned */
    size_t hits;               /* hits delivered */
    unsigned limits;           /* bit set of urisan_mail_limit reached */
    urisan_verdict worst;      /* the worst verdict of the hits and of
                                  the limits reached */
} urisan_mail_result;

/*
 * Scan the message msg[0..len) (RFC 5322 bytes, CRLF or LF). pol may be
 * NULL (the default policy), lim NULL (the defaults). res may be NULL.
 * Each link is decided by the host layer's urisan_judge_link_decide with
 * this thread's host context (urisan_host_ctx_thread): the same verdict
 * and flags as `urisan extract --mail` and the milter.
 */
URISAN_API urisan_mail_status urisan_mail_scan(const char *msg, size_t len,
                                               const urisan_policy *pol,
                                               const urisan_mail_limits *lim,
                                               const urisan_mail_sink *sink,
                                               urisan_mail_result *res);

/*
 * urisan_mail_scan with each link decided by hooks->decide (urisan.h;
 * hooks NULL or its decide NULL: urisan_mail_scan, the host layer's
 * decision). A link is parsed and
 * analysed once - the URI a browser opens for it: a relative href
 * resolved against <base href>, a link written in Unicode converted, a
 * UNC path as its file: URI - and hooks->decide is called once for it,
 * with its flags (link_text_mismatch among them) and its link text,
 * right before sink.on_hit gets it: what the hook's context keeps of the
 * link (urisan_link_judge's host view) is that hit's. A limit reached is
 * decided the same way (the empty URI, flag mail_limit) before
 * sink.on_diag. The host layer's urisan_judge_link_decide is the hook
 * every urisan front end passes.
 */
URISAN_API urisan_mail_status urisan_mail_scan_with(const char *msg, size_t len,
                                                    const urisan_policy *pol,
                                                    const urisan_mail_limits *lim,
                                                    const urisan_link_hooks *hooks,
                                                    const urisan_mail_sink *sink,
                                                    urisan_mail_result *res);

/*
 * link_text_mismatch (bit 28) on its own: the visible
 * text of a link names a URL, domain or mail address whose registrable
 * domain (Public Suffix List) differs from the href's.
 */
URISAN_API bool urisan_mail_link_text_mismatch(const char *display, size_t dlen,
                                               const char *href, size_t hlen);

/* Load GMime and the Public Suffix List. Call once before threads start;
   urisan_mail_scan calls it itself when it has not been called. */
URISAN_API void urisan_mail_init(void);
/* Release them (at exit; optional). */
URISAN_API void urisan_mail_shutdown(void);

/* The program that reads PDF, Office Open XML and image attachments in
   sandboxed processes (urisan-readers, installed in LIBDIR/urisan/
   SOVERSION and found there by default): path, copied, or NULL for the
   installed one. For tests and relocated installs; the library reads no
   environment variable (the command and the Python and Lua modules take
   URISAN_READERS and pass it here). Call before scanning (a reader
   process already started keeps running until urisan_mail_shutdown).
   0; -1 when path is longer than 4095 bytes or the library was built
   without its readers (nothing changed). */
URISAN_API int urisan_mail_set_readers(const char *path);

#ifdef __cplusplus
}
#endif

#endif
