/*
 * binread.c - the readers of binary attachments (PDF, Office Open XML,
 * images) as readers of attach.h: each runs the parser of readers.h in
 * its sandboxed process (isolate.c) and reports what it found through
 * mail_out, where it is judged with the one decision like any link of
 * the message (in the program urisan-readers: liburisan-mail links none
 * of the readers' libraries). A file a reader cannot read, or a bound it reaches, is
 * told as limit "reader" naming the attachment, never dropped.
 */
#include "attach.h"
#include "mail_internal.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

#ifdef URISAN_HAVE_READERS
#include "isolate.h"
#endif

/* How each reader is named in its limit messages. */
static const char *label(mail_kind k)
{
    return k == MAIL_KIND_PDF ? "PDF" : k == MAIL_KIND_OOXML ? "Office document" : "image";
}

/* Told as limit "reader": "PDF invoice.pdf: <why>". */
static bool reader_limit(mail_out *o, mail_kind k, const char *why, size_t n)
{
    const char *name = mail_out_attachment(o);
    char line[400];
    snprintf(line, sizeof line, "%s%s%s: %.*s", label(k), name != NULL ? " " : "",
             name != NULL ? name : "", (int)(n > 300 ? 300 : n), why);
    return mail_out_limit(o, URISAN_MAIL_LIMIT_READER, line, 0, 0);
}

#ifdef URISAN_HAVE_READERS

int urisan_mail_set_readers(const char *path)
{
    return rd_set_program(path) ? 0 : -1;
}

typedef struct {
    mail_out *o;
    mail_kind kind;
} bin_ctx;

/* The source of a record, and whether it is a link as written or a text
   whose links are found as in a text part. */
static urisan_mail_source source_of(rd_kind k, bool *text)
{
    *text = k == RD_PDF_JS || k == RD_OOXML_FIELD;
    switch (k) {
    case RD_PDF_URI: return URISAN_MAIL_SRC_PDF_URI;
    case RD_PDF_LAUNCH: return URISAN_MAIL_SRC_PDF_LAUNCH;
    case RD_PDF_GOTOR: return URISAN_MAIL_SRC_PDF_GOTOR;
    case RD_PDF_SUBMIT: return URISAN_MAIL_SRC_PDF_SUBMIT;
    case RD_PDF_JS: return URISAN_MAIL_SRC_PDF_JS;
    case RD_OOXML_EXTERNAL: return URISAN_MAIL_SRC_OOXML_EXTERNAL;
    case RD_OOXML_HYPERLINK: return URISAN_MAIL_SRC_OOXML_HYPERLINK;
    case RD_OOXML_TEMPLATE: return URISAN_MAIL_SRC_OOXML_TEMPLATE;
    case RD_OOXML_OLE: return URISAN_MAIL_SRC_OOXML_OLE;
    case RD_QR: return URISAN_MAIL_SRC_QR;
    case RD_OOXML_FIELD: return URISAN_MAIL_SRC_OOXML_FIELD;
    }
    return URISAN_MAIL_SRC_QR;
}

/* A file path a reader's program opens (a PDF Launch, an Office
   template): as the file: URI Windows opens for it. \\host\share\x is
   file://host/share/x, C:\x is file:///C:/x, a relative path stays
   relative (file:x). g_free the result. */
static char *path_uri(const char *s, size_t n, size_t *out)
{
    char *u = g_malloc(n + 9);
    size_t k = 5, i = 0;
    memcpy(u, "file:", 5);
    if (n >= 2 && (s[0] == '\\' || s[0] == '/') && (s[1] == '\\' || s[1] == '/')) {
        memcpy(u + k, "//", 2);
        k += 2;
        i = 2;
    } else if (n >= 2 && g_ascii_isalpha(s[0]) && s[1] == ':') {
        memcpy(u + k, "///", 3);
        k += 3;
    }
    for (; i < n; i++)
        u[k++] = s[i] == '\\' ? '/' : s[i];
    u[k] = '\0';
    *out = k;
    return u;
}

static bool on_found(void *ctx, rd_kind k, uint32_t page, const char *s, size_t n)
{
    bin_ctx *b = ctx;
    bool text = false;
    urisan_mail_source src = source_of(k, &text);
    mail_out_page(b->o, page);
    /* a QR code holds any text: a URL in it is a link, else its text is
       read as text */
    if (text || (k == RD_QR && !mail_has_scheme(s, n)))
        return mail_out_text(b->o, s, n, src, 0);
    mail_found f = { .uri = s, .uri_len = n, .source = src, .length = n };
    char *own = NULL;
    bool drive = n >= 2 && g_ascii_isalpha(s[0]) && s[1] == ':'; /* C:\x */
    if (drive || !mail_has_scheme(s, n)) { /* a path: the file: URI it opens */
        own = path_uri(s, n, &f.uri_len);
        f.uri = own;
        f.written = s;
        f.written_len = n;
    }
    bool ok = mail_out_link(b->o, &f);
    g_free(own);
    return ok;
}

static bool on_note(void *ctx, rd_status st, const char *msg, size_t n)
{
    bin_ctx *b = ctx;
    (void)st; /* a bound reached and a file not read are told alike */
    char why[360];
    snprintf(why, sizeof why, "%.*s; what was found before is reported",
             (int)(n > 300 ? 300 : n), msg);
    mail_out_page(b->o, 0);
    return reader_limit(b->o, b->kind, why, strlen(why));
}

static bool read_with(mail_out *o, mail_kind kind, rd_reader r, const char *d, size_t n)
{
    rd_bounds bounds;
    rd_bounds_default(&bounds);
    rd_isolation iso;
    rd_isolation_default(&iso);
    bin_ctx b = { o, kind };
    rd_sink sink = { on_found, on_note, &b };
    bool stopped = false;
    (void)rd_run(r, (const unsigned char *)d, n, &bounds, &iso, &sink, &stopped);
    mail_out_page(o, 0);
    return !stopped;
}

bool mail_read_pdf(mail_out *o, const char *d, size_t n)
{
    return read_with(o, MAIL_KIND_PDF, RD_READ_PDF, d, n);
}

bool mail_read_ooxml(mail_out *o, const char *d, size_t n)
{
    return read_with(o, MAIL_KIND_OOXML, RD_READ_OOXML, d, n);
}

bool mail_read_image(mail_out *o, const char *d, size_t n)
{
    return read_with(o, MAIL_KIND_IMAGE, RD_READ_IMAGE, d, n);
}

#else /* built without the readers: the file is told as not read */

int urisan_mail_set_readers(const char *path)
{
    (void)path;
    return -1;
}

static const char not_built[] =
    "not read (urisan was built without its readers of binary attachments)";

bool mail_read_pdf(mail_out *o, const char *d, size_t n)
{
    (void)d;
    (void)n;
    return reader_limit(o, MAIL_KIND_PDF, not_built, sizeof not_built - 1);
}

bool mail_read_ooxml(mail_out *o, const char *d, size_t n)
{
    (void)d;
    (void)n;
    return reader_limit(o, MAIL_KIND_OOXML, not_built, sizeof not_built - 1);
}

bool mail_read_image(mail_out *o, const char *d, size_t n)
{
    (void)d;
    (void)n;
    return reader_limit(o, MAIL_KIND_IMAGE, not_built, sizeof not_built - 1);
}

#endif
