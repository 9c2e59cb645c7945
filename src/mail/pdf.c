/*
 * pdf.c - the links of a PDF file (readers.h), read with qpdf's C API
 * (libqpdf, doc/mail.md says why qpdf).
 *
 * What a PDF viewer opens (ISO 32000-1 12.6, 12.7.5): the actions of
 * link and widget annotations (/A and /AA of each page's /Annots), of the
 * document (/OpenAction, /AA, the /Names /JavaScript tree) and of form
 * fields (/AcroForm /Fields), each followed along /Next: URI (12.6.4.7),
 * Launch (12.6.4.5), GoToR and GoToE (12.6.4.3, 12.6.4.4), SubmitForm and
 * ImportData (12.7.5.2, 12.7.5.4), JavaScript (12.6.4.16: its string
 * literals, where app.launchURL("...") and this.submitForm("...") name
 * their URL). Then every object of the file is swept once for an action
 * or an annotation no tree reached (an object stream's objects too:
 * qpdf reads them). A hit on a page carries its number; the images of a
 * page are decoded by qpdf (its filters, DCT by libjpeg) and searched for
 * QR codes (qr.c).
 *
 * qpdf opens an encrypted file with the empty user password itself
 * (qpdf_read_memory, password ""); one it cannot open is RD_BROKEN.
 */
#include "readers.h"

#include <qpdf/qpdf-c.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ACTION_STACK 64  /* /Next chains and trees walked at a time */
#define ACTION_STEPS 4096 /* actions followed from one start */
#define XOBJ_DEPTH 2     /* form XObjects inside a page, for images */

typedef struct {
    qpdf_data q;
    const rd_bounds *b;
    rd_emit *e;
    rd_status st;
    unsigned char *seen; /* by object number, up to max_objects */
    size_t nseen;
    int *page_ids; /* the object number of each page walked, in order */
    size_t npages;
    size_t inflated, images;
    bool stop;
} pdf_ctx;

static void limit(pdf_ctx *p, const char *what)
{
    if (p->st < RD_LIMIT)
        p->st = RD_LIMIT;
    p->e->note(p->e, RD_LIMIT, what);
    p->stop = true;
}

static void emit(pdf_ctx *p, rd_kind k, uint32_t page, const char *s, size_t n)
{
    if (p->stop || n == 0)
        return;
    if (p->e->count >= p->b->max_found) {
        limit(p, "PDF: more links than the bound of one file");
        return;
    }
    if (!p->e->found(p->e, k, page, s, n))
        p->stop = true;
}

/* true the first time the indirect object oh is met */
static bool first_visit(pdf_ctx *p, qpdf_oh oh)
{
    if (!qpdf_oh_is_indirect(p->q, oh))
        return true;
    int id = qpdf_oh_get_object_id(p->q, oh);
    if (id <= 0 || (size_t)id >= p->nseen)
        return true;
    if (p->seen[id])
        return false;
    p->seen[id] = 1;
    return true;
}

static bool is_name(pdf_ctx *p, qpdf_oh oh, const char *name)
{
    return qpdf_oh_is_name_and_equals(p->q, oh, name);
}

/* A text string as UTF-8 (PDFDocEncoding or UTF-16BE, 7.9.2.2). */
static void emit_string(pdf_ctx *p, rd_kind k, uint32_t page, qpdf_oh s)
{
    if (!qpdf_oh_is_string(p->q, s))
        return;
    const char *v = qpdf_oh_get_utf8_value(p->q, s);
    size_t n = qpdf_get_last_string_length(p->q);
    emit(p, k, page, v, n);
}

/* A file specification (7.11): a string, or a dictionary whose /UF, /F,
   /Unix, /DOS or /Mac names the file (a URL when /FS is /URL). */
static void emit_filespec(pdf_ctx *p, rd_kind k, uint32_t page, qpdf_oh fs)
{
    if (qpdf_oh_is_string(p->q, fs)) {
        emit_string(p, k, page, fs);
        return;
    }
    if (!qpdf_oh_is_dictionary(p->q, fs))
        return;
    static const char *const keys[] = { "/UF", "/F", "/Unix", "/DOS", "/Mac" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        qpdf_oh v = qpdf_oh_get_key(p->q, fs, keys[i]);
        if (qpdf_oh_is_string(p->q, v)) {
            emit_string(p, k, page, v);
            return;
        }
    }
}

/* The string literals of JavaScript source js[0..n), adjacent ones
   joined across '+' ("ht" + "tp://x"), escapes undone (\n \t \xHH
   \uHHHH below 0x80, \ before any other byte dropped): each told as
   text whose links are found as in text. */
static void js_strings(pdf_ctx *p, uint32_t page, const char *js, size_t n)
{
    char *buf = malloc(n + 1);
    if (buf == NULL) {
        limit(p, "PDF: out of memory reading JavaScript");
        return;
    }
    size_t blen = 0, i = 0;
    bool joining = false;
    while (i < n && !p->stop) {
        char qc = js[i];
        if (qc != '"' && qc != '\'' && qc != '`') {
            if (joining && qc != ' ' && qc != '\t' && qc != '\r' && qc != '\n' && qc != '+') {
                emit(p, RD_PDF_JS, page, buf, blen);
                blen = 0;
                joining = false;
            }
            i++;
            continue;
        }
        i++;
        while (i < n && js[i] != qc && (qc == '`' || (js[i] != '\n' && js[i] != '\r'))) {
            char c = js[i++];
            if (c == '\\' && i < n) {
                char x = js[i++];
                if (x == 'n') c = '\n';
                else if (x == 't') c = '\t';
                else if ((x == 'x' && i + 2 <= n) || (x == 'u' && i + 4 <= n)) {
                    size_t digits = x == 'x' ? 2 : 4;
                    unsigned v = 0;
                    bool ok = true;
                    for (size_t d = 0; d < digits; d++) {
                        char h = js[i + d];
                        v <<= 4;
                        if (h >= '0' && h <= '9') v |= (unsigned)(h - '0');
                        else if (h >= 'a' && h <= 'f') v |= (unsigned)(h - 'a' + 10);
                        else if (h >= 'A' && h <= 'F') v |= (unsigned)(h - 'A' + 10);
                        else ok = false;
                    }
                    if (ok && v < 0x80) {
                        c = (char)v;
                        i += digits;
                    } else {
                        c = x;
                    }
                } else {
                    c = x;
                }
            }
            buf[blen++] = c;
        }
        i++; /* the closing quote */
        joining = true;
    }
    if (joining && !p->stop)
        emit(p, RD_PDF_JS, page, buf, blen);
    free(buf);
}

/* The bytes of a stream, decoded (general-purpose filters); NULL when it
   cannot be decoded or the decompressed bound is reached. */
static unsigned char *stream_bytes(pdf_ctx *p, qpdf_oh s, enum qpdf_stream_decode_level_e lvl,
                                   size_t *len)
{
    unsigned char *buf = NULL;
    QPDF_BOOL filtered = QPDF_FALSE;
    *len = 0;
    if (qpdf_oh_get_stream_data(p->q, s, lvl, &filtered, &buf, len) & QPDF_ERRORS) {
        free(buf);
        return NULL;
    }
    if (!filtered) {
        free(buf);
        return NULL;
    }
    p->inflated += *len;
    if (p->inflated > p->b->max_inflated) {
        free(buf);
        limit(p, "PDF: more decompressed stream bytes than the bound");
        return NULL;
    }
    return buf;
}

static void js_value(pdf_ctx *p, uint32_t page, qpdf_oh js)
{
    if (qpdf_oh_is_string(p->q, js)) {
        size_t n = 0;
        const char *v = qpdf_oh_get_binary_string_value(p->q, js, &n);
        js_strings(p, page, v, n);
    } else if (qpdf_oh_is_stream(p->q, js)) {
        size_t n = 0;
        unsigned char *d = stream_bytes(p, js, qpdf_dl_generalized, &n);
        if (d != NULL)
            js_strings(p, page, (const char *)d, n);
        free(d);
    }
}

/* An action and the actions after it (/Next: a dictionary or an array). */
static void action(pdf_ctx *p, qpdf_oh start, uint32_t page)
{
    qpdf_oh stack[ACTION_STACK];
    size_t top = 0, steps = 0;
    stack[top++] = start;
    while (top > 0 && !p->stop) {
        qpdf_oh a = stack[--top];
        if (++steps > ACTION_STEPS) {
            limit(p, "PDF: an action chain longer than the bound");
            return;
        }
        if (!qpdf_oh_is_dictionary(p->q, a) || !first_visit(p, a))
            continue;
        qpdf_oh s = qpdf_oh_get_key(p->q, a, "/S");
        if (is_name(p, s, "/URI")) {
            emit_string(p, RD_PDF_URI, page, qpdf_oh_get_key(p->q, a, "/URI"));
        } else if (is_name(p, s, "/Launch")) {
            emit_filespec(p, RD_PDF_LAUNCH, page, qpdf_oh_get_key(p->q, a, "/F"));
            qpdf_oh win = qpdf_oh_get_key(p->q, a, "/Win");
            if (qpdf_oh_is_dictionary(p->q, win))
                emit_filespec(p, RD_PDF_LAUNCH, page, qpdf_oh_get_key(p->q, win, "/F"));
        } else if (is_name(p, s, "/GoToR") || is_name(p, s, "/GoToE")) {
            emit_filespec(p, RD_PDF_GOTOR, page, qpdf_oh_get_key(p->q, a, "/F"));
        } else if (is_name(p, s, "/SubmitForm") || is_name(p, s, "/ImportData")) {
            emit_filespec(p, RD_PDF_SUBMIT, page, qpdf_oh_get_key(p->q, a, "/F"));
        } else if (is_name(p, s, "/JavaScript") || is_name(p, s, "/Rendition")) {
            js_value(p, page, qpdf_oh_get_key(p->q, a, "/JS"));
        }
        qpdf_oh next = qpdf_oh_get_key(p->q, a, "/Next");
        if (qpdf_oh_is_dictionary(p->q, next)) {
            if (top < ACTION_STACK)
                stack[top++] = next;
        } else if (qpdf_oh_is_array(p->q, next)) {
            int k = qpdf_oh_get_array_n_items(p->q, next);
            for (int j = k - 1; j >= 0 && top < ACTION_STACK; j--)
                stack[top++] = qpdf_oh_get_array_item(p->q, next, j);
        }
    }
}

/* The additional actions (/AA, 12.6.3) of a dictionary. */
static void additional(pdf_ctx *p, qpdf_oh d, uint32_t page)
{
    qpdf_oh aa = qpdf_oh_get_key(p->q, d, "/AA");
    if (!qpdf_oh_is_dictionary(p->q, aa))
        return;
    static const char *const ev[] = { "/E", "/X", "/D", "/U", "/Fo", "/Bl", "/PO", "/PC",
                                      "/PV", "/PI", "/O", "/C", "/K", "/F", "/V", "/WC",
                                      "/WS", "/DS", "/WP", "/DP" };
    for (size_t i = 0; i < sizeof ev / sizeof ev[0] && !p->stop; i++) {
        qpdf_oh a = qpdf_oh_get_key(p->q, aa, ev[i]);
        if (qpdf_oh_is_dictionary(p->q, a))
            action(p, a, page);
    }
}

/* An annotation or a form field: its /A, its /AA. */
static void annotation(pdf_ctx *p, qpdf_oh an, uint32_t page)
{
    if (!qpdf_oh_is_dictionary(p->q, an) || !first_visit(p, an))
        return;
    qpdf_oh a = qpdf_oh_get_key(p->q, an, "/A");
    if (qpdf_oh_is_dictionary(p->q, a))
        action(p, a, page);
    additional(p, an, page);
}

/* Samples of an image to 8-bit gray: 1 or 8 bits a component; gray, RGB,
   CMYK (and ICC-based with /N of those). NULL: another layout. */
static unsigned char *to_gray(const unsigned char *d, size_t len, size_t w, size_t h,
                              int bpc, int comps)
{
    if (comps != 1 && comps != 3 && comps != 4)
        return NULL;
    if (bpc == 1 && comps == 1) {
        size_t row = (w + 7) / 8;
        if (len < row * h)
            return NULL;
        unsigned char *g = malloc(w * h);
        if (g == NULL)
            return NULL;
        for (size_t y = 0; y < h; y++)
            for (size_t x = 0; x < w; x++)
                g[y * w + x] = (d[y * row + x / 8] >> (7 - x % 8)) & 1 ? 255 : 0;
        return g;
    }
    if (bpc != 8 || len / (size_t)comps / w < h)
        return NULL;
    unsigned char *g = malloc(w * h);
    if (g == NULL)
        return NULL;
    for (size_t i = 0; i < w * h; i++) {
        const unsigned char *s = d + i * (size_t)comps;
        if (comps == 1)
            g[i] = s[0];
        else if (comps == 3)
            g[i] = (unsigned char)((s[0] * 77u + s[1] * 150u + s[2] * 29u) >> 8);
        else { /* CMYK: the inks subtracted from white */
            unsigned ink = ((s[0] * 77u + s[1] * 150u + s[2] * 29u) >> 8) + s[3];
            g[i] = (unsigned char)(ink >= 255 ? 0 : 255 - ink);
        }
    }
    return g;
}

static int colour_components(pdf_ctx *p, qpdf_oh cs)
{
    if (is_name(p, cs, "/DeviceGray") || is_name(p, cs, "/CalGray") || is_name(p, cs, "/G"))
        return 1;
    if (is_name(p, cs, "/DeviceRGB") || is_name(p, cs, "/CalRGB") || is_name(p, cs, "/RGB"))
        return 3;
    if (is_name(p, cs, "/DeviceCMYK") || is_name(p, cs, "/CMYK"))
        return 4;
    if (qpdf_oh_is_array(p->q, cs) && qpdf_oh_get_array_n_items(p->q, cs) >= 2 &&
        is_name(p, qpdf_oh_get_array_item(p->q, cs, 0), "/ICCBased")) {
        qpdf_oh icc = qpdf_oh_get_array_item(p->q, cs, 1);
        qpdf_oh n = qpdf_oh_get_key(p->q, qpdf_oh_get_dict(p->q, icc), "/N");
        return qpdf_oh_is_integer(p->q, n) ? qpdf_oh_get_int_value_as_int(p->q, n) : 0;
    }
    return 0;
}

/* An image XObject: decoded, searched for QR codes. */
static void image(pdf_ctx *p, qpdf_oh im, uint32_t page)
{
    qpdf_oh d = qpdf_oh_get_dict(p->q, im);
    if (qpdf_oh_is_bool(p->q, qpdf_oh_get_key(p->q, d, "/ImageMask")) &&
        qpdf_oh_get_bool_value(p->q, qpdf_oh_get_key(p->q, d, "/ImageMask")))
        return; /* a stencil: drawn in a colour the page chooses */
    qpdf_oh ow = qpdf_oh_get_key(p->q, d, "/Width"), oh = qpdf_oh_get_key(p->q, d, "/Height");
    qpdf_oh ob = qpdf_oh_get_key(p->q, d, "/BitsPerComponent");
    if (!qpdf_oh_is_integer(p->q, ow) || !qpdf_oh_is_integer(p->q, oh))
        return;
    long long w = qpdf_oh_get_int_value(p->q, ow), h = qpdf_oh_get_int_value(p->q, oh);
    int bpc = qpdf_oh_is_integer(p->q, ob) ? qpdf_oh_get_int_value_as_int(p->q, ob) : 8;
    int comps = colour_components(p, qpdf_oh_get_key(p->q, d, "/ColorSpace"));
    if (w <= 0 || h <= 0 || comps == 0)
        return;
    if (++p->images > p->b->max_images) {
        limit(p, "PDF: more images than the bound of one file");
        return;
    }
    if ((unsigned long long)w * (unsigned long long)h > p->b->max_pixels) {
        limit(p, "PDF: an image larger than the pixel bound");
        return;
    }
    size_t len = 0;
    unsigned char *px = stream_bytes(p, im, qpdf_dl_all, &len);
    if (px == NULL)
        return;
    unsigned char *g = to_gray(px, len, (size_t)w, (size_t)h, bpc, comps);
    free(px);
    if (g == NULL)
        return;
    rd_status st = rd_qr_gray(g, (size_t)w, (size_t)h, page, p->b, p->e);
    free(g);
    if (st > p->st)
        p->st = st;
    if (st != RD_OK)
        p->stop = true;
}

/* The images of a resource dictionary, through form XObjects. */
static void images(pdf_ctx *p, qpdf_oh res, uint32_t page, int depth)
{
    qpdf_oh xo = qpdf_oh_get_key(p->q, res, "/XObject");
    if (!qpdf_oh_is_dictionary(p->q, xo))
        return;
    /* the keys first: the key iterator is one per qpdf_data */
    char *names[256];
    size_t nn = 0;
    qpdf_oh_begin_dict_key_iter(p->q, xo);
    while (qpdf_oh_dict_more_keys(p->q) && nn < 256)
        names[nn++] = strdup(qpdf_oh_dict_next_key(p->q));
    for (size_t i = 0; i < nn; i++) {
        qpdf_oh x = names[i] != NULL ? qpdf_oh_get_key(p->q, xo, names[i]) : 0;
        free(names[i]);
        if (p->stop || x == 0 || !qpdf_oh_is_stream(p->q, x) || !first_visit(p, x))
            continue;
        qpdf_oh sub = qpdf_oh_get_key(p->q, qpdf_oh_get_dict(p->q, x), "/Subtype");
        if (is_name(p, sub, "/Image"))
            image(p, x, page);
        else if (is_name(p, sub, "/Form") && depth < XOBJ_DEPTH)
            images(p, qpdf_oh_get_key(p->q, qpdf_oh_get_dict(p->q, x), "/Resources"), page,
                   depth + 1);
    }
}

static void pages(pdf_ctx *p)
{
    int np = qpdf_get_num_pages(p->q);
    if (np < 0) {
        /* qpdf refuses the tree (a loop, a page that is not a dictionary):
         * the actions are still swept, but no page's images are searched */
        char msg[240];
        snprintf(msg, sizeof msg, "PDF: the page tree is not readable, its images not searched (%s)",
                 qpdf_has_error(p->q) ? qpdf_get_error_full_text(p->q, qpdf_get_error(p->q)) : "");
        limit(p, msg);
        p->stop = false;
        return;
    }
    size_t n = (size_t)np;
    if (n > p->b->max_pages) {
        limit(p, "PDF: more pages than the bound");
        p->stop = false; /* the pages below the bound are still read */
        n = p->b->max_pages;
    }
    p->page_ids = calloc(n ? n : 1, sizeof *p->page_ids);
    if (p->page_ids == NULL) {
        limit(p, "PDF: out of memory for the page list");
        return;
    }
    for (size_t i = 0; i < n && !p->stop; i++) {
        qpdf_oh pg = qpdf_get_page_n(p->q, i);
        uint32_t num = (uint32_t)(i + 1);
        p->page_ids[p->npages++] = qpdf_oh_get_object_id(p->q, pg);
        qpdf_oh an = qpdf_oh_get_key(p->q, pg, "/Annots");
        int k = qpdf_oh_is_array(p->q, an) ? qpdf_oh_get_array_n_items(p->q, an) : 0;
        for (int j = 0; j < k && !p->stop; j++)
            annotation(p, qpdf_oh_get_array_item(p->q, an, j), num);
        additional(p, pg, num);
        images(p, qpdf_oh_get_key(p->q, pg, "/Resources"), num, 0);
        qpdf_oh_release_all(p->q);
    }
    if (p->st == RD_LIMIT)
        p->stop = true;
}

/* The JavaScript name tree (7.9.6): its /Names pairs and /Kids. */
static void name_tree(pdf_ctx *p, qpdf_oh root)
{
    qpdf_oh stack[ACTION_STACK];
    size_t top = 0, steps = 0;
    stack[top++] = root;
    while (top > 0 && !p->stop && ++steps < ACTION_STEPS) {
        qpdf_oh node = stack[--top];
        if (!qpdf_oh_is_dictionary(p->q, node) || !first_visit(p, node))
            continue;
        qpdf_oh names = qpdf_oh_get_key(p->q, node, "/Names");
        int k = qpdf_oh_is_array(p->q, names) ? qpdf_oh_get_array_n_items(p->q, names) : 0;
        for (int j = 1; j < k && !p->stop; j += 2)
            action(p, qpdf_oh_get_array_item(p->q, names, j), 0);
        qpdf_oh kids = qpdf_oh_get_key(p->q, node, "/Kids");
        k = qpdf_oh_is_array(p->q, kids) ? qpdf_oh_get_array_n_items(p->q, kids) : 0;
        for (int j = 0; j < k && top < ACTION_STACK; j++)
            stack[top++] = qpdf_oh_get_array_item(p->q, kids, j);
    }
}

/*
 * The page number of a form field's widget (/P), 0 when unknown: looked
 * up among the pages pages() walked, not with qpdf_find_page_by_oh, which
 * recurses without end on a page tree that holds itself (qpdf 11.3).
 */
static uint32_t field_page(pdf_ctx *p, qpdf_oh f)
{
    int id = qpdf_oh_get_object_id(p->q, qpdf_oh_get_key(p->q, f, "/P"));
    for (size_t i = 0; id > 0 && i < p->npages; i++)
        if (p->page_ids[i] == id)
            return (uint32_t)(i + 1);
    return 0;
}

/* Form fields (12.7.3): each field and its /Kids. */
static void fields(pdf_ctx *p, qpdf_oh af)
{
    qpdf_oh f = qpdf_oh_get_key(p->q, af, "/Fields");
    qpdf_oh stack[ACTION_STACK];
    size_t top = 0, steps = 0;
    int k = qpdf_oh_is_array(p->q, f) ? qpdf_oh_get_array_n_items(p->q, f) : 0;
    for (int j = k - 1; j >= 0 && top < ACTION_STACK; j--)
        stack[top++] = qpdf_oh_get_array_item(p->q, f, j);
    while (top > 0 && !p->stop && ++steps < ACTION_STEPS) {
        qpdf_oh fd = stack[--top];
        if (!qpdf_oh_is_dictionary(p->q, fd))
            continue;
        qpdf_oh kids = qpdf_oh_get_key(p->q, fd, "/Kids");
        annotation(p, fd, field_page(p, fd));
        k = qpdf_oh_is_array(p->q, kids) ? qpdf_oh_get_array_n_items(p->q, kids) : 0;
        for (int j = k - 1; j >= 0 && top < ACTION_STACK; j--)
            stack[top++] = qpdf_oh_get_array_item(p->q, kids, j);
    }
}

static void catalog(pdf_ctx *p)
{
    qpdf_oh root = qpdf_get_root(p->q);
    qpdf_oh oa = qpdf_oh_get_key(p->q, root, "/OpenAction");
    if (qpdf_oh_is_dictionary(p->q, oa))
        action(p, oa, 0);
    additional(p, root, 0);
    qpdf_oh names = qpdf_oh_get_key(p->q, root, "/Names");
    if (qpdf_oh_is_dictionary(p->q, names))
        name_tree(p, qpdf_oh_get_key(p->q, names, "/JavaScript"));
    fields(p, qpdf_oh_get_key(p->q, root, "/AcroForm"));
    qpdf_oh_release_all(p->q);
}

/* Every object no tree reached: an action (/S) or what holds one. */
static void sweep(pdf_ctx *p)
{
    qpdf_oh size = qpdf_oh_get_key(p->q, qpdf_get_trailer(p->q), "/Size");
    long long n = qpdf_oh_is_integer(p->q, size) ? qpdf_oh_get_int_value(p->q, size) : 0;
    if (n < 0)
        n = 0;
    if ((unsigned long long)n > p->nseen) {
        limit(p, "PDF: more objects than the bound");
        p->stop = false;
        n = (long long)p->nseen;
    }
    for (long long id = 1; id < n && !p->stop; id++) {
        if (p->seen[id])
            continue;
        qpdf_oh o = qpdf_get_object_by_id(p->q, (int)id, 0);
        if (qpdf_oh_is_stream(p->q, o))
            o = qpdf_oh_get_dict(p->q, o);
        if (qpdf_oh_is_dictionary(p->q, o)) {
            if (qpdf_oh_is_name(p->q, qpdf_oh_get_key(p->q, o, "/S")))
                action(p, o, 0);
            else if (qpdf_oh_has_key(p->q, o, "/A") || qpdf_oh_has_key(p->q, o, "/AA"))
                annotation(p, o, 0);
        }
        if ((id & 255) == 0)
            qpdf_oh_release_all(p->q);
    }
}

rd_status rd_pdf(const unsigned char *d, size_t n, const rd_bounds *b, rd_emit *e)
{
    pdf_ctx p;
    memset(&p, 0, sizeof p);
    p.b = b;
    p.e = e;
    p.nseen = b->max_objects + 1;
    p.seen = calloc(p.nseen, 1);
    p.q = qpdf_init();
    if (p.seen == NULL || p.q == NULL) {
        free(p.seen);
        if (p.q != NULL)
            qpdf_cleanup(&p.q);
        e->note(e, RD_BROKEN, "PDF: out of memory");
        return RD_BROKEN;
    }
    qpdf_silence_errors(p.q);
    qpdf_set_suppress_warnings(p.q, QPDF_TRUE);
    if (qpdf_read_memory(p.q, "attachment", (const char *)d, n, "") & QPDF_ERRORS) {
        char msg[240];
        const char *why = qpdf_has_error(p.q)
                              ? qpdf_get_error_full_text(p.q, qpdf_get_error(p.q)) : "";
        snprintf(msg, sizeof msg, "PDF: not readable (%s)", why);
        e->note(e, RD_BROKEN, msg);
        qpdf_cleanup(&p.q);
        free(p.seen);
        return RD_BROKEN;
    }
    pages(&p);
    if (!p.stop)
        catalog(&p);
    if (!p.stop)
        sweep(&p);
    while (qpdf_more_warnings(p.q))
        (void)qpdf_next_warning(p.q);
    qpdf_cleanup(&p.q);
    free(p.seen);
    free(p.page_ids);
    return p.st;
}
