/*
 * readers.h - the readers of binary attachments (PDF, Office Open XML,
 * images with QR codes) and the process they run in.
 *
 * These are the parsers of hostile file formats: they run in a child
 * process (isolate.c) with resource limits and a seccomp filter, and
 * tell what they find to the parent through a pipe as records. The
 * parent (binread.c, through attach.h's mail_out) judges each link with the one decision of the
 * library, as any other link of the message. A reader never decides.
 *
 * Each reader takes the decoded file, the bounds, and an emitter; it is
 * plain code (no fork) so that the fuzz harnesses and the tests run it
 * in-process.
 */
#ifndef URISAN_MAIL_READERS_H
#define URISAN_MAIL_READERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a record found (the parent maps it to a urisan_mail_source). */
typedef enum {
    RD_PDF_URI = 1,        /* a URI action (/S /URI /URI) */
    RD_PDF_LAUNCH = 2,     /* a Launch action's file or /Win /F */
    RD_PDF_GOTOR = 3,      /* a GoToR / GoToE action's file */
    RD_PDF_SUBMIT = 4,     /* a SubmitForm / ImportData action's /F */
    RD_PDF_JS = 5,         /* a string literal of document JavaScript:
                              text whose links are found as in text */
    RD_OOXML_EXTERNAL = 6, /* a relationship with TargetMode="External" */
    RD_OOXML_HYPERLINK = 7,/* an external relationship of type hyperlink */
    RD_OOXML_TEMPLATE = 8, /* attachedTemplate / a remote template */
    RD_OOXML_OLE = 9,      /* an OLE link (oleObject, oleLink, frame) */
    RD_QR = 10,            /* the text of a QR code */
    RD_OOXML_FIELD = 11,   /* a Word field code (HYPERLINK "...",
                              INCLUDEPICTURE "..."): text */
    RD_KIND_MAX_ = 11
} rd_kind;

/* The bounds of one reader run (the caller's; rd_bounds_default). */
typedef struct {
    size_t max_pages;      /* PDF pages walked, default 2000 */
    size_t max_objects;    /* PDF objects swept, default 200000 */
    size_t max_images;     /* images decoded per file, default 64 */
    size_t max_pixels;     /* pixels of one image, default 40 M */
    size_t max_inflated;   /* decompressed bytes of one file (zip
                              members, PDF streams read), default 256 MiB */
    size_t max_entries;    /* zip members read, default 2000 */
    size_t max_found;      /* records of one file, default 10000 */
} rd_bounds;

void rd_bounds_default(rd_bounds *b);

/* Why a reader stopped short. Append only (the byte on the pipe). */
typedef enum {
    RD_OK = 0,
    RD_LIMIT = 1,          /* a bound above was reached: what was found
                              before it is told */
    RD_BROKEN = 2          /* the file could not be read (the library
                              refused it): told, never dropped */
} rd_status;

/* The emitter: one record. page: 1-based PDF page, 0 none. false: stop
   (the output bound). */
typedef struct rd_emit {
    bool (*found)(struct rd_emit *e, rd_kind kind, uint32_t page, const char *s, size_t n);
    /* what reached a bound or failed, one line of English */
    void (*note)(struct rd_emit *e, rd_status st, const char *msg);
    size_t count;          /* records so far (the reader checks max_found) */
} rd_emit;

/* The readers. Each returns the worst status it met and has told it
   through e->note. */
rd_status rd_pdf(const unsigned char *d, size_t n, const rd_bounds *b, rd_emit *e);
rd_status rd_ooxml(const unsigned char *d, size_t n, const rd_bounds *b, rd_emit *e);
rd_status rd_image(const unsigned char *d, size_t n, const rd_bounds *b, rd_emit *e);

/* The QR codes of a grayscale image (8 bits a pixel, w x h, rows of w
   bytes). page is passed on to the records. (qr.c) */
rd_status rd_qr_gray(const unsigned char *px, size_t w, size_t h, uint32_t page,
                     const rd_bounds *b, rd_emit *e);

/* The image format of d's first bytes: 'P' PNG, 'J' JPEG, 'G' GIF,
   'W' WebP, 0 none. (image.c) */
int rd_image_sniff(const unsigned char *d, size_t n);

/* Done once in a process before the seccomp filter is set: what the
   libraries would otherwise load from files on first use (iconv
   converters of the QR decoder). */
void rd_prime(void);

#endif
