/*
 * qr.c - the QR codes of a grayscale image (readers.h), decoded by zbar
 * (libzbar0: its image scanner with only the QR symbology on).
 *
 * zbar converts a code's bytes to UTF-8 with iconv (ISO-8859-1, Shift
 * JIS, UTF-8); glibc loads those converters from files on first use, so
 * rd_prime opens them once before the seccomp filter forbids opening
 * files, and keeps them open (glibc keeps a converter loaded while one
 * descriptor uses it).
 */
#include "readers.h"

#include <iconv.h>
#include <libxml/parser.h>
#include <stdlib.h>
#include <time.h>
#include <zbar.h>

/* The converters rd_prime opens, open for good (and reachable: not a
   leak to LeakSanitizer). */
#define KEPT 5
static iconv_t kept[KEPT];

void rd_prime(void)
{
    static bool primed;
    if (primed)
        return;
    primed = true;
    xmlInitParser(); /* libxml2's tables (ooxml.c), once */
    tzset();         /* the local time zone libzip's dates use, read now */
    static const char *const from[] = { "ISO8859-1", "SJIS", "UTF-8", "BIG5", "ISO8859-2" };
    for (size_t i = 0; i < sizeof from / sizeof from[0] && i < KEPT; i++)
        kept[i] = iconv_open("UTF-8", from[i]);
}

rd_status rd_qr_gray(const unsigned char *px, size_t w, size_t h, uint32_t page,
                     const rd_bounds *b, rd_emit *e)
{
    if (w == 0 || h == 0 || w > 0xffffffu || h > 0xffffffu || w * h > b->max_pixels) {
        e->note(e, RD_LIMIT, "image: larger than the pixel bound");
        return RD_LIMIT;
    }
    zbar_image_scanner_t *sc = zbar_image_scanner_create();
    zbar_image_t *im = zbar_image_create();
    if (sc == NULL || im == NULL) {
        if (sc != NULL)
            zbar_image_scanner_destroy(sc);
        if (im != NULL)
            zbar_image_destroy(im);
        e->note(e, RD_BROKEN, "image: out of memory for the QR decoder");
        return RD_BROKEN;
    }
    zbar_image_scanner_set_config(sc, ZBAR_NONE, ZBAR_CFG_ENABLE, 0);
    zbar_image_scanner_set_config(sc, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1);
    zbar_image_set_format(im, zbar_fourcc('Y', '8', '0', '0'));
    zbar_image_set_size(im, (unsigned)w, (unsigned)h);
    zbar_image_set_data(im, px, w * h, NULL); /* the caller's pixels */
    rd_status st = RD_OK;
    if (zbar_scan_image(sc, im) > 0) {
        for (const zbar_symbol_t *s = zbar_image_first_symbol(im); s != NULL;
             s = zbar_symbol_next(s)) {
            if (e->count >= b->max_found) {
                e->note(e, RD_LIMIT, "image: more QR codes than the bound of one file");
                st = RD_LIMIT;
                break;
            }
            if (!e->found(e, RD_QR, page, zbar_symbol_get_data(s),
                          zbar_symbol_get_data_length(s)))
                break;
        }
    }
    zbar_image_destroy(im);
    zbar_image_scanner_destroy(sc);
    return st;
}
