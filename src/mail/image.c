/*
 * image.c - an attached or inline image (PNG, JPEG, GIF, WebP) decoded to
 * 8-bit gray and searched for QR codes (qr.c), readers.h.
 *
 * Each format by its reference library in Debian: libpng's simplified
 * API (png_image, gray output), libjpeg-turbo (JCS_GRAYSCALE output),
 * giflib (every frame, by its colour map), libwebp (the Y plane of
 * WebPDecodeYUV is the luma). The pixel count is checked from the header
 * before anything is decoded.
 */
#include "readers.h"

#include <stdio.h> /* before jpeglib.h, which uses FILE */

#include <gif_lib.h>
#include <jpeglib.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>

int rd_image_sniff(const unsigned char *d, size_t n)
{
    if (n >= 8 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0)
        return 'P';
    if (n >= 3 && d[0] == 0xff && d[1] == 0xd8 && d[2] == 0xff)
        return 'J';
    if (n >= 6 && (memcmp(d, "GIF87a", 6) == 0 || memcmp(d, "GIF89a", 6) == 0))
        return 'G';
    if (n >= 12 && memcmp(d, "RIFF", 4) == 0 && memcmp(d + 8, "WEBP", 4) == 0)
        return 'W';
    return 0;
}

static rd_status too_large(rd_emit *e)
{
    e->note(e, RD_LIMIT, "image: larger than the pixel bound");
    return RD_LIMIT;
}

static rd_status broken(rd_emit *e, const char *what)
{
    e->note(e, RD_BROKEN, what);
    return RD_BROKEN;
}

static rd_status read_png(const unsigned char *d, size_t n, const rd_bounds *b, rd_emit *e)
{
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&im, d, n))
        return broken(e, "image: PNG not readable");
    if ((size_t)im.width * im.height > b->max_pixels) {
        png_image_free(&im);
        return too_large(e);
    }
    im.format = PNG_FORMAT_GRAY;
    unsigned char *px = malloc(PNG_IMAGE_SIZE(im));
    if (px == NULL) {
        png_image_free(&im);
        return broken(e, "image: out of memory");
    }
    /* transparent pixels composed on white, as a mail client shows them */
    png_color white = { 255, 255, 255 };
    if (!png_image_finish_read(&im, &white, px, 0, NULL)) {
        free(px);
        return broken(e, "image: PNG not readable");
    }
    rd_status st = rd_qr_gray(px, im.width, im.height, 0, b, e);
    free(px);
    return st;
}

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jb;
} jpeg_err;

static void jpeg_fail(j_common_ptr ci)
{
    longjmp(((jpeg_err *)(void *)ci->err)->jb, 1);
}

static void jpeg_quiet(j_common_ptr ci, int level)
{
    (void)ci;
    (void)level;
}

static rd_status read_jpeg(const unsigned char *d, size_t n, const rd_bounds *b, rd_emit *e)
{
    struct jpeg_decompress_struct ci;
    jpeg_err je;
    unsigned char *volatile px = NULL;
    volatile rd_status st = RD_OK;
    ci.err = jpeg_std_error(&je.pub);
    je.pub.error_exit = jpeg_fail;
    je.pub.emit_message = jpeg_quiet;
    if (setjmp(je.jb)) {
        jpeg_destroy_decompress(&ci);
        free(px);
        return broken(e, "image: JPEG not readable");
    }
    jpeg_create_decompress(&ci);
    jpeg_mem_src(&ci, d, (unsigned long)n);
    jpeg_read_header(&ci, TRUE);
    if ((size_t)ci.image_width * ci.image_height > b->max_pixels) {
        jpeg_destroy_decompress(&ci);
        return too_large(e);
    }
    ci.out_color_space = JCS_GRAYSCALE;
    jpeg_start_decompress(&ci);
    size_t w = ci.output_width, h = ci.output_height;
    px = malloc(w * h);
    if (px == NULL) {
        jpeg_destroy_decompress(&ci);
        return broken(e, "image: out of memory");
    }
    while (ci.output_scanline < ci.output_height) {
        JSAMPROW row = px + (size_t)ci.output_scanline * w;
        jpeg_read_scanlines(&ci, &row, 1);
    }
    jpeg_finish_decompress(&ci);
    jpeg_destroy_decompress(&ci);
    st = rd_qr_gray(px, w, h, 0, b, e);
    free(px);
    return st;
}

typedef struct {
    const unsigned char *d;
    size_t n, pos;
} gif_src;

static int gif_read(GifFileType *g, GifByteType *buf, int len)
{
    gif_src *s = g->UserData;
    size_t k = len < 0 ? 0 : (size_t)len;
    if (k > s->n - s->pos)
        k = s->n - s->pos;
    memcpy(buf, s->d + s->pos, k);
    s->pos += k;
    return (int)k;
}

static rd_status read_gif(const unsigned char *d, size_t n, const rd_bounds *b, rd_emit *e)
{
    gif_src src = { d, n, 0 };
    int err = 0;
    GifFileType *g = DGifOpen(&src, gif_read, &err);
    if (g == NULL)
        return broken(e, "image: GIF not readable");
    if ((size_t)g->SWidth * (size_t)g->SHeight > b->max_pixels) {
        DGifCloseFile(g, &err);
        return too_large(e);
    }
    /* A file cut inside a frame: giflib counts that frame, its raster
     * filled only up to the cut (the rest uninitialised), so it is not
     * searched, and told. */
    bool cut = DGifSlurp(g) != GIF_OK;
    int frames = cut ? g->ImageCount - 1 : g->ImageCount;
    if (cut && frames <= 0) {
        DGifCloseFile(g, &err);
        return broken(e, "image: GIF not readable (truncated or damaged)");
    }
    rd_status st = RD_OK;
    for (int i = 0; i < frames && st == RD_OK; i++) {
        if ((size_t)i >= b->max_images) {
            st = RD_LIMIT;
            e->note(e, st, "image: more GIF frames than the bound");
            break;
        }
        SavedImage *f = &g->SavedImages[i];
        ColorMapObject *cm = f->ImageDesc.ColorMap != NULL ? f->ImageDesc.ColorMap : g->SColorMap;
        size_t w = (size_t)f->ImageDesc.Width, h = (size_t)f->ImageDesc.Height;
        if (cm == NULL || f->RasterBits == NULL || w == 0 || h == 0)
            continue;
        if (w * h > b->max_pixels) {
            st = too_large(e);
            break;
        }
        unsigned char lut[256];
        for (int k = 0; k < 256; k++) {
            GifColorType c = cm->Colors[k < cm->ColorCount ? k : 0];
            lut[k] = (unsigned char)((c.Red * 77u + c.Green * 150u + c.Blue * 29u) >> 8);
        }
        unsigned char *px = malloc(w * h);
        if (px == NULL) {
            st = broken(e, "image: out of memory");
            break;
        }
        for (size_t k = 0; k < w * h; k++)
            px[k] = lut[f->RasterBits[k]];
        st = rd_qr_gray(px, w, h, 0, b, e);
        free(px);
    }
    if (cut && st == RD_OK)
        st = broken(e, "image: GIF truncated or damaged, its last frame not searched");
    DGifCloseFile(g, &err);
    return st;
}

static rd_status read_webp(const unsigned char *d, size_t n, const rd_bounds *b, rd_emit *e)
{
    int w = 0, h = 0;
    if (!WebPGetInfo(d, n, &w, &h) || w <= 0 || h <= 0)
        return broken(e, "image: WebP not readable");
    if ((size_t)w * (size_t)h > b->max_pixels)
        return too_large(e);
    uint8_t *u = NULL, *v = NULL;
    int ww = 0, hh = 0, stride = 0, uvstride = 0;
    uint8_t *y = WebPDecodeYUV(d, n, &ww, &hh, &u, &v, &stride, &uvstride);
    if (y == NULL)
        return broken(e, "image: WebP not readable");
    rd_status st = RD_OK;
    unsigned char *px = malloc((size_t)ww * (size_t)hh);
    if (px == NULL) {
        st = broken(e, "image: out of memory");
    } else {
        for (size_t r = 0; r < (size_t)hh; r++)
            memcpy(px + r * (size_t)ww, y + r * (size_t)stride, (size_t)ww);
        st = rd_qr_gray(px, (size_t)ww, (size_t)hh, 0, b, e);
        free(px);
    }
    WebPFree(y);
    return st;
}

rd_status rd_image(const unsigned char *d, size_t n, const rd_bounds *b, rd_emit *e)
{
    switch (rd_image_sniff(d, n)) {
    case 'P': return read_png(d, n, b, e);
    case 'J': return read_jpeg(d, n, b, e);
    case 'G': return read_gif(d, n, b, e);
    case 'W': return read_webp(d, n, b, e);
    }
    return broken(e, "image: not PNG, JPEG, GIF or WebP");
}
