/*
 * mail_bench.c - urisan-mail-bench: liburisan-mail on generated hostile
 * mail, on a large generated mbox and on mailboxes heavy with PDF and
 * image attachments: seconds, MB/s, messages a second and max RSS per
 * shape and size.
 *
 *   urisan-mail-bench [--sizes 1,16,64] [--shapes a,b,...] [--smoke]
 *                     [--cmd PATH/urisan]
 *
 * Each (shape, size) runs in a child process of its own: the child
 * generates the message (so its max RSS is the message plus the scan,
 * nothing of the other rows) and times urisan_mail_scan on it; the parent
 * reads the child's max RSS from wait4(). The readers of binary
 * attachments run in processes of their own (src/mail/isolate.c); the
 * child stops them (urisan_mail_shutdown) before its clock stops, so
 * their CPU time is in cpu_s and the largest of them in maxRSS. With --cmd, each row also runs
 * `urisan extract --mail --json` on the same bytes (a file, output to
 * /dev/null) and reports its time and max RSS: the command end to end.
 *
 * The bound printed beside each row is the one doc/extract.md documents
 * and tests/hostile_mail_test.py asserts: 64 MiB + 4 x the message.
 * MB/s is over CPU time (user + system: the machines this runs on are
 * shared; wall seconds are printed too). The tool reports; it judges nothing (no timed test). --smoke runs every
 * shape once at 256 KiB and checks only that each scan finished with the
 * expected limit (CI keeps it building and running).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "urisan.h"
#include "urisan_mail.h"

/* ------------------------------------------------------------------ */
/* a growable buffer (the tool only)                                   */
/* ------------------------------------------------------------------ */

typedef struct {
    char *p;
    size_t n, cap;
} buf_t;

static void put(buf_t *b, const char *s, size_t n)
{
    if (b->n + n > b->cap) {
        size_t c = b->cap ? b->cap : 4096;
        while (c < b->n + n)
            c *= 2;
        char *q = realloc(b->p, c);
        if (q == NULL) {
            fprintf(stderr, "urisan-mail-bench: out of memory\n");
            exit(2);
        }
        b->p = q;
        b->cap = c;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

static void puts_(buf_t *b, const char *s)
{
    put(b, s, strlen(s));
}

static void putf(buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(buf_t *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (w > 0)
        put(b, tmp, (size_t)w < sizeof tmp ? (size_t)w : sizeof tmp - 1);
}

/* ------------------------------------------------------------------ */
/* the shapes                                                          */
/* ------------------------------------------------------------------ */

static const char head[] = "From: a@example.com\nTo: b@example.com\nSubject: bench\n"
                           "MIME-Version: 1.0\n";

/* An ordinary message: text and HTML alternatives with links (the
   baseline every hostile shape is compared with). */
static void gen_ordinary(buf_t *b, size_t size)
{
    puts_(b, head);
    puts_(b, "Content-Type: multipart/alternative; boundary=\"alt\"\n\n--alt\n"
             "Content-Type: text/plain; charset=utf-8\n\n");
    size_t half = size / 2;
    for (unsigned i = 0; b->n < half; i++)
        putf(b, "Dear customer, see https://www%u.example.com/account?id=%u for your "
                "statement, or write to help@example.com.\n", i % 97, i);
    puts_(b, "\n--alt\nContent-Type: text/html; charset=utf-8\n\n<html><body>\n");
    for (unsigned i = 0; b->n < size; i++)
        putf(b, "<p>Dear customer, <a href=\"https://www%u.example.com/account?id=%u\">your "
                "statement</a> &amp; <img src=\"https://img.example.com/%u.png\"></p>\n",
             i % 97, i, i);
    puts_(b, "</body></html>\n--alt--\n");
}

/* Reproducer 3: one Content-Type field with many parameters. */
static void gen_params(buf_t *b, size_t size)
{
    puts_(b, head);
    puts_(b, "Content-Type: text/plain");
    while (b->n < size)
        puts_(b, "; a=b");
    puts_(b, "\n\nhttp://x.example/\n");
}

/* The same folded over lines of a normal size. */
static void gen_params_folded(buf_t *b, size_t size)
{
    puts_(b, head);
    puts_(b, "Content-Type: text/plain");
    while (b->n < size)
        puts_(b, ";\n a=b");
    puts_(b, "\n\nhttp://x.example/\n");
}

/* Huge headers: many fields. */
static void gen_headers(buf_t *b, size_t size)
{
    puts_(b, head);
    for (unsigned i = 0; b->n < size; i++)
        putf(b, "X-H%u: value http://h%u.example/\n", i, i % 1000);
    puts_(b, "\nhttp://x.example/\n");
}

/* Huge headers: one field folded over many lines. */
static void gen_big_header(buf_t *b, size_t size)
{
    puts_(b, head);
    puts_(b, "X-Big: start");
    while (b->n < size)
        puts_(b, "\n continued text of one very large header field");
    puts_(b, "\n\nhttp://x.example/\n");
}

/* Reproducer 4: deep nesting, each level a new boundary. */
static void gen_deep(buf_t *b, size_t size)
{
    puts_(b, head);
    unsigned levels = 0;
    /* the closing delimiters take about a third of each level */
    while (b->n < size * 2 / 3) {
        putf(b, "Content-Type: multipart/mixed; boundary=\"b%u\"\n\n--b%u\n", levels, levels);
        levels++;
    }
    puts_(b, "Content-Type: text/plain\n\nhttp://x.example/\n");
    while (levels-- > 0)
        putf(b, "--b%u--\n", levels);
}

/* Nesting just under the limits (63 multiparts, each a new boundary),
   then a large text part in the innermost whose lines all start with
   "--" and a prefix of the boundaries: GMime compares each such line with
   every boundary it is inside. No limit is reached: the whole walk. */
static void gen_deep_max(buf_t *b, size_t size)
{
    puts_(b, head);
    unsigned levels;
    for (levels = 0; levels < 63; levels++)
        putf(b, "Content-Type: multipart/mixed; boundary=\"boundary-%u\"\n\n--boundary-%u\n",
             levels, levels);
    puts_(b, "Content-Type: text/plain\n\nhttp://x.example/\n");
    size_t end = size > (size_t)63 * 20 ? size - (size_t)63 * 20 : 0;
    for (unsigned i = 0; b->n < end; i++)
        putf(b, "--boundary-%u-not\n", i % 63);
    while (levels-- > 0)
        putf(b, "--boundary-%u--\n", levels);
}

/* Parts just under the limit (999), each a large text part. */
static void gen_parts_max(buf_t *b, size_t size)
{
    puts_(b, head);
    puts_(b, "Content-Type: multipart/mixed; boundary=\"p\"\n\n");
    size_t each = size / 998;
    for (unsigned i = 0; i < 998; i++) {
        putf(b, "--p\nContent-Type: text/plain\n\nhttp://p%u.example/\n", i);
        size_t stop = b->n + each;
        while (b->n < stop)
            puts_(b, "Some ordinary text of a part, with no link in it at all.\n");
    }
    puts_(b, "--p--\n");
}

/* Headers just under the limits: 990 fields of up to 64 KiB each,
   folded over lines of 78 bytes, then a body with a link. */
static void gen_headers_max(buf_t *b, size_t size)
{
    puts_(b, head);
    size_t each = size / 990;
    if (each > 60000)
        each = 60000;
    for (unsigned i = 0; i < 990; i++) {
        size_t stop = b->n + each;
        putf(b, "X-Field-%u: start", i);
        while (b->n < stop)
            puts_(b, "\n folded text of a large field http://f.example/ continued here");
        puts_(b, "\n");
    }
    puts_(b, "\nhttp://x.example/\n");
}

/* Parameters just under the limits: 998 parts, each Content-Type with
   63 parameters, each part a line of text with a link. */
static void gen_params_max(buf_t *b, size_t size)
{
    puts_(b, head);
    puts_(b, "Content-Type: multipart/mixed; boundary=\"p\"\n\n");
    size_t each = size / 998;
    for (unsigned i = 0; i < 998; i++) {
        puts_(b, "--p\nContent-Type: text/plain; charset=utf-8");
        for (unsigned k = 0; k < 62; k++)
            putf(b, ";\n x-param-%u=\"value %u\"", k, k);
        putf(b, "\n\nhttp://p%u.example/\n", i);
        size_t stop = b->n + each;
        while (b->n < stop)
            puts_(b, "Some ordinary text of a part, with no link in it at all.\n");
    }
    puts_(b, "--p--\n");
}

/* Many header fields in a part's head (the message head's are counted
   by the limit headers). */
static void gen_part_headers(buf_t *b, size_t size)
{
    puts_(b, head);
    puts_(b, "Content-Type: multipart/mixed; boundary=\"p\"\n\n--p\n");
    for (unsigned i = 0; b->n < size; i++)
        putf(b, "X-P%u: v\n", i);
    puts_(b, "Content-Type: text/plain\n\nhttp://x.example/\n--p--\n");
}

/* Many parts: one multipart, many small text parts, a link each. */
static void gen_parts(buf_t *b, size_t size)
{
    puts_(b, head);
    puts_(b, "Content-Type: multipart/mixed; boundary=\"p\"\n\n");
    for (unsigned i = 0; b->n < size; i++)
        putf(b, "--p\nContent-Type: text/plain\n\nhttp://p%u.example/\n", i);
    puts_(b, "--p--\n");
}

/* HTML rows in text/html parts of at most 16 MiB each (below the 32 MiB
   html_size limit: the HTML scan is what is measured at 64 MB too). */
static void gen_html_parts(buf_t *b, size_t size, void (*row)(buf_t *, unsigned))
{
    puts_(b, head);
    puts_(b, "Content-Type: multipart/mixed; boundary=\"h\"\n\n");
    unsigned i = 0;
    while (b->n < size) {
        puts_(b, "--h\nContent-Type: text/html; charset=utf-8\n\n<html><body>\n");
        size_t stop = b->n + ((size_t)16 << 20) - 4096;
        while (b->n < size && b->n < stop)
            row(b, i++);
        puts_(b, "</body></html>\n");
    }
    puts_(b, "--h--\n");
}

/* Huge HTML with many attributes. */
static void row_attrs(buf_t *b, unsigned i)
{
    putf(b, "<a href=\"https://h%u.example/p\"", i % 1000);
    for (unsigned k = 0; k < 24; k++)
        putf(b, " data-a%u=\"v%u\"", k, k);
    puts_(b, ">link</a>\n");
}

static void gen_html_attrs(buf_t *b, size_t size)
{
    gen_html_parts(b, size, row_attrs);
}

/* Many entities, in attribute values and text. */
static void row_entities(buf_t *b, unsigned i)
{
    putf(b, "<a href=\"https://ex&period;ample&#46;com/&ZeroWidthSpace;%u?a=1&amp;b=2&not"
            "=3&NotEqualTilde;&#x41;\">&lt;&gt;&amp;&eopf;&fjlig;&nbsp;&#128512;&copy</a>\n",
         i);
}

static void gen_entities(buf_t *b, size_t size)
{
    gen_html_parts(b, size, row_entities);
}

/* A large mbox: ordinary messages of about 6 KiB, each with a
   text and an HTML part; the bench splits it at "From " lines and scans
   every message, as `extract --mail` does. */
static void gen_mbox(buf_t *b, size_t size)
{
    for (unsigned m = 0; b->n < size; m++) {
        putf(b, "From sender%u@example.com Mon Jan  1 00:00:00 2024\n", m);
        putf(b, "From: sender%u@example.com\nTo: b@example.com\nMessage-ID: <%u@bench>\n"
                "Subject: invoice %u\nMIME-Version: 1.0\n"
                "Content-Type: multipart/alternative; boundary=\"alt%u\"\n\n--alt%u\n"
                "Content-Type: text/plain; charset=utf-8\n"
                "Content-Transfer-Encoding: quoted-printable\n\n",
             m, m, m, m, m);
        for (unsigned i = 0; i < 20; i++)
            putf(b, "Line %u: see https://www%u.example.com/inv?id=3D%u&x=3D1 or write to "
                    "billing@example.com =\nsoon.\n", i, (m + i) % 97, m);
        putf(b, ">From the desk of the sender\n\n--alt%u\n"
                "Content-Type: text/html; charset=utf-8\n\n<html><body>\n", m);
        for (unsigned i = 0; i < 20; i++)
            putf(b, "<p><a href=\"https://www%u.example.com/inv?id=%u&amp;x=1\">invoice "
                    "%u</a> <img src=\"https://img.example.com/%u.png\"></p>\n",
                 (m + i) % 97, m, i, i);
        putf(b, "</body></html>\n--alt%u--\n\n", m);
    }
}

/* base64 (RFC 2045 6.8), 76 characters a line */
static void put_base64(buf_t *b, const unsigned char *d, size_t n)
{
    static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t col = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)d[i] << 16 | (i + 1 < n ? (unsigned)d[i + 1] << 8 : 0) |
                     (i + 2 < n ? d[i + 2] : 0);
        char q[4] = { al[v >> 18 & 63], al[v >> 12 & 63], i + 1 < n ? al[v >> 6 & 63] : '=',
                      i + 2 < n ? al[v & 63] : '=' };
        put(b, q, 4);
        if ((col += 4) == 76) {
            put(b, "\n", 1);
            col = 0;
        }
    }
    put(b, "\n", 1);
}

/* A PDF of two pages, five link annotations on each (ISO 32000-1
   12.5.6.5), uncompressed, with its cross-reference table. */
static void gen_pdf(buf_t *b, unsigned m)
{
    size_t off[16], n = 0;
    puts_(b, "%PDF-1.7\n");
    off[n++] = b->n;
    puts_(b, "1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n");
    off[n++] = b->n;
    puts_(b, "2 0 obj << /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >> endobj\n");
    for (unsigned p = 0; p < 2; p++) {
        off[n++] = b->n;
        putf(b, "%u 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [", 3 + p);
        for (unsigned k = 0; k < 5; k++)
            putf(b, "%u 0 R ", 5 + p * 5 + k);
        puts_(b, "] >> endobj\n");
    }
    for (unsigned k = 0; k < 10; k++) {
        off[n++] = b->n;
        putf(b, "%u 0 obj << /Type /Annot /Subtype /Link /Rect [72 %u 300 %u] /A << /S /URI "
                "/URI (https://pay%u.example.com/invoice?id=%u) >> >> endobj\n",
             5 + k, 700 - k * 20, 715 - k * 20, (m + k) % 97, m);
    }
    size_t x = b->n;
    putf(b, "xref\n0 %zu\n0000000000 65535 f \n", n + 1);
    for (size_t i = 0; i < n; i++)
        putf(b, "%010zu 00000 n \n", off[i]);
    putf(b, "trailer << /Size %zu /Root 1 0 R >>\nstartxref\n%zu\n%%%%EOF\n", n + 1, x);
}

/* A PDF-heavy mailbox: each message a short text and a PDF attachment
   (2 pages, 10 links) labelled application/octet-stream, base64. */
static void gen_pdf_mbox(buf_t *b, size_t size)
{
    for (unsigned m = 0; b->n < size; m++) {
        buf_t pdf = {0};
        gen_pdf(&pdf, m);
        putf(b, "From sender%u@example.com Mon Jan  1 00:00:00 2024\n"
                "From: sender%u@example.com\nTo: b@example.com\nMessage-ID: <%u@bench>\n"
                "Subject: invoice %u\nMIME-Version: 1.0\n"
                "Content-Type: multipart/mixed; boundary=\"mix%u\"\n\n--mix%u\n"
                "Content-Type: text/plain\n\nYour invoice is attached.\n--mix%u\n"
                "Content-Type: application/octet-stream; name=\"invoice%u.pdf\"\n"
                "Content-Transfer-Encoding: base64\n\n", m, m, m, m, m, m, m, m);
        put_base64(b, (const unsigned char *)pdf.p, pdf.n);
        putf(b, "--mix%u--\n\n", m);
        free(pdf.p);
    }
}

/* A 200 x 200 grey gradient as a PNG without compression (RFC 2083:
   zlib stored blocks), so the bench needs no image library. */
static void gen_png(buf_t *b, unsigned seed)
{
    enum { W = 200, H = 200 };
    buf_t raw = {0}, z = {0};
    for (unsigned y = 0; y < H; y++) {
        unsigned char row[W + 1];
        row[0] = 0; /* filter: none */
        for (unsigned x = 0; x < W; x++)
            row[x + 1] = (unsigned char)((x * 3 + y * 5 + seed) & 255);
        put(&raw, (const char *)row, sizeof row);
    }
    put(&z, "\x78\x01", 2);
    unsigned a = 1, s2 = 0;
    for (size_t i = 0; i < raw.n; i++) {
        a = (a + (unsigned char)raw.p[i]) % 65521;
        s2 = (s2 + a) % 65521;
    }
    for (size_t i = 0; i < raw.n; i += 65535) {
        size_t k = raw.n - i < 65535 ? raw.n - i : 65535;
        unsigned char h[5] = { i + k == raw.n, (unsigned char)k, (unsigned char)(k >> 8),
                               (unsigned char)~k, (unsigned char)(~k >> 8) };
        put(&z, (const char *)h, 5);
        put(&z, raw.p + i, k);
    }
    unsigned adler = s2 << 16 | a;
    unsigned char ad[4] = { adler >> 24, adler >> 16 & 255, adler >> 8 & 255, adler & 255 };
    put(&z, (const char *)ad, 4);
    /* chunks: length, type, data, CRC-32 of type and data */
    static unsigned crc_t[256];
    if (crc_t[1] == 0)
        for (unsigned n = 0; n < 256; n++) {
            unsigned c = n;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
            crc_t[n] = c;
        }
    put(b, "\x89PNG\r\n\x1a\n", 8);
    unsigned char ihdr[13] = { 0, 0, 0, W, 0, 0, 0, H, 8, 0, 0, 0, 0 };
    const struct { const char *type; const unsigned char *d; size_t n; } ch[] = {
        { "IHDR", ihdr, 13 }, { "IDAT", (const unsigned char *)z.p, z.n }, { "IEND", NULL, 0 } };
    for (size_t c = 0; c < 3; c++) {
        unsigned char len[4] = { ch[c].n >> 24, ch[c].n >> 16 & 255, ch[c].n >> 8 & 255,
                                 ch[c].n & 255 };
        put(b, (const char *)len, 4);
        unsigned crc = 0xffffffffu;
        for (int k = 0; k < 4; k++)
            crc = crc_t[(crc ^ (unsigned char)ch[c].type[k]) & 255] ^ (crc >> 8);
        for (size_t k = 0; k < ch[c].n; k++)
            crc = crc_t[(crc ^ ch[c].d[k]) & 255] ^ (crc >> 8);
        crc ^= 0xffffffffu;
        put(b, ch[c].type, 4);
        if (ch[c].n > 0)
            put(b, (const char *)ch[c].d, ch[c].n);
        unsigned char cr[4] = { crc >> 24, crc >> 16 & 255, crc >> 8 & 255, crc & 255 };
        put(b, (const char *)cr, 4);
    }
    free(raw.p);
    free(z.p);
}

/* An image-heavy mailbox: each message an HTML part and two inline PNG
   images (200 x 200, no QR code: the cost of decoding and searching). */
static void gen_image_mbox(buf_t *b, size_t size)
{
    for (unsigned m = 0; b->n < size; m++) {
        putf(b, "From sender%u@example.com Mon Jan  1 00:00:00 2024\n"
                "From: sender%u@example.com\nTo: b@example.com\nMessage-ID: <%u@bench>\n"
                "Subject: news %u\nMIME-Version: 1.0\n"
                "Content-Type: multipart/related; boundary=\"rel%u\"\n\n--rel%u\n"
                "Content-Type: text/html\n\n<p><a href=\"https://www%u.example.com/\">"
                "news</a><img src=\"cid:a%u\"><img src=\"cid:b%u\"></p>\n",
             m, m, m, m, m, m, m % 97, m, m);
        for (unsigned k = 0; k < 2; k++) {
            buf_t png = {0};
            gen_png(&png, m * 2 + k);
            putf(b, "--rel%u\nContent-Type: image/png\nContent-ID: <%c%u>\n"
                    "Content-Transfer-Encoding: base64\n\n", m, k ? 'b' : 'a', m);
            put_base64(b, (const unsigned char *)png.p, png.n);
            free(png.p);
        }
        putf(b, "--rel%u--\n\n", m);
    }
}

typedef struct {
    const char *name;
    void (*gen)(buf_t *, size_t);
    const char *limit; /* the limit --smoke expects (NULL: none) */
    bool mbox;
} shape_t;

static const shape_t shapes[] = {
    {"ordinary", gen_ordinary, NULL, false},
    {"params", gen_params, "header_size", false},
    {"params-folded", gen_params_folded, "params", false},
    {"headers", gen_headers, "headers", false},
    {"big-header", gen_big_header, "header_size", false},
    {"deep", gen_deep, "depth", false},
    {"parts", gen_parts, "parts", false},
    {"deep-max", gen_deep_max, "boundaries", false},
    {"parts-max", gen_parts_max, NULL, false},
    {"headers-max", gen_headers_max, NULL, false},
    {"part-headers", gen_part_headers, "headers", false},
    {"params-max", gen_params_max, "params_total", false},
    {"html-attrs", gen_html_attrs, NULL, false},
    {"entities", gen_entities, NULL, false},
    {"mbox", gen_mbox, NULL, true},
    {"pdf-mbox", gen_pdf_mbox, NULL, true},
    {"image-mbox", gen_image_mbox, NULL, true},
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

/* ------------------------------------------------------------------ */
/* one row                                                             */
/* ------------------------------------------------------------------ */

typedef struct {
    double seconds, cpu; /* wall and CPU (user + system) seconds of the scan */
    size_t bytes, hits, messages;
    unsigned limits;
    int status; /* worst urisan_mail_status seen */
} row_t;

static bool on_hit(void *ctx, const urisan_mail_hit *h)
{
    (void)h;
    ((row_t *)ctx)->hits++;
    return true;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cpu_s(const struct rusage *ru)
{
    return (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6 +
           (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec / 1e6;
}

/* This process's CPU and that of its reaped children: the readers of
   binary attachments run in processes of their own (src/mail/isolate.c). */
static double cpu_self(void)
{
    struct rusage ru, ch;
    getrusage(RUSAGE_SELF, &ru);
    getrusage(RUSAGE_CHILDREN, &ch);
    return cpu_s(&ru) + cpu_s(&ch);
}

static void scan_one(const char *m, size_t n, const urisan_mail_limits *lim, row_t *r)
{
    urisan_mail_sink sink = {on_hit, NULL, r};
    urisan_mail_result res;
    urisan_mail_status st = urisan_mail_scan(m, n, NULL, lim, &sink, &res);
    r->limits |= res.limits;
    if ((int)st > r->status)
        r->status = (int)st;
    r->messages++;
}

/* An mbox split at "From " line starts, as mboxrd/mboxo writers put them;
   the ">From " unescaping of the command is left out (it does not change
   the cost of the scan). */
static void scan_mbox(const char *d, size_t n, const urisan_mail_limits *lim, row_t *r)
{
    size_t start = 0;
    while (start < n) {
        const char *nl = memchr(d + start, '\n', n - start);
        size_t body = nl ? (size_t)(nl - d) + 1 : n;
        const char *f = memmem(d + body, n - body, "\nFrom ", 6);
        size_t end = f ? (size_t)(f - d) + 1 : n;
        scan_one(d + body, end - body, lim, r);
        start = end;
    }
}

static void child(const shape_t *s, size_t size, int fd)
{
    buf_t b = {0};
    s->gen(&b, size);
    if (getenv("URISAN_READERS") != NULL) /* the build tree's (meson test, devenv) */
        (void)urisan_mail_set_readers(getenv("URISAN_READERS"));
    urisan_mail_init();
    urisan_mail_limits lim;
    urisan_mail_limits_default(&lim);
    row_t r;
    memset(&r, 0, sizeof r);
    r.bytes = b.n;
    double c0 = cpu_self(), t0 = now_s();
    if (s->mbox)
        scan_mbox(b.p, b.n, &lim, &r);
    else
        scan_one(b.p, b.n, &lim, &r);
    urisan_mail_shutdown(); /* the readers' processes reaped: counted below */
    r.seconds = now_s() - t0;
    r.cpu = cpu_self() - c0;
    if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
        _exit(2);
    _exit(0);
}

/* One row in a child of its own; the child's max RSS in KiB, or -1. */
static long run_child(const shape_t *s, size_t size, row_t *r)
{
    int p[2];
    if (pipe(p) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(p[0]);
        child(s, size, p[1]);
    }
    close(p[1]);
    ssize_t got = read(p[0], r, sizeof *r);
    close(p[0]);
    int wst;
    struct rusage ru;
    if (wait4(pid, &wst, 0, &ru) != pid || got != (ssize_t)sizeof *r || !WIFEXITED(wst) ||
        WEXITSTATUS(wst) != 0)
        return -1;
    return ru.ru_maxrss;
}

/* The command on the same bytes: time and max RSS of `urisan extract
   --mail --json FILE > /dev/null`. */
static long run_cmd(const char *cmd, const shape_t *s, size_t size, double *secs, double *cpu,
                    int *code)
{
    char path[] = "/tmp/urisan-mail-bench-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    buf_t b = {0};
    s->gen(&b, size);
    bool ok = write(fd, b.p, b.n) == (ssize_t)b.n;
    close(fd);
    free(b.p);
    if (!ok) {
        unlink(path);
        return -1;
    }
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0) {
        unlink(path);
        return -1;
    }
    if (pid == 0) {
        int dn = open("/dev/null", O_WRONLY);
        if (dn >= 0) {
            dup2(dn, 1);
            dup2(dn, 2);
        }
        execl(cmd, cmd, "extract", "--mail", "--json", path, (char *)NULL);
        _exit(127);
    }
    int wst;
    struct rusage ru;
    pid_t w = wait4(pid, &wst, 0, &ru);
    *secs = now_s() - t0;
    unlink(path);
    if (w != pid || !WIFEXITED(wst))
        return -1;
    *code = WEXITSTATUS(wst);
    *cpu = cpu_s(&ru);
    return ru.ru_maxrss;
}

static void limit_names(unsigned l, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = '\0';
    for (unsigned k = 0; k < 32; k++) {
        const char *n = ((l >> k) & 1u) ? urisan_mail_limit_name((urisan_mail_limit)k) : NULL;
        if (n == NULL)
            continue;
        int w = snprintf(out + o, cap - o, "%s%s", o ? "," : "", n);
        if (w < 0 || (size_t)w >= cap - o)
            break;
        o += (size_t)w;
    }
    if (o == 0)
        snprintf(out, cap, "-");
}

static bool in_list(const char *list, const char *name)
{
    if (list == NULL)
        return true;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && memcmp(p, name, n) == 0)
            return true;
        p += l + (e != NULL);
    }
    return false;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: urisan-mail-bench [--sizes MB,MB,...] [--shapes NAME,...] [--smoke] "
               "[--cmd PATH/urisan]\nshapes:");
    for (size_t i = 0; i < NSHAPES; i++)
        fprintf(f, " %s", shapes[i].name);
    fprintf(f, "\n");
}

int main(int argc, char **argv)
{
    const char *sizes = "1,16,64", *only = NULL, *cmd = NULL;
    bool smoke = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc)
            sizes = argv[++i];
        else if (strcmp(argv[i], "--shapes") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--cmd") == 0 && i + 1 < argc)
            cmd = argv[++i];
        else if (strcmp(argv[i], "--smoke") == 0)
            smoke = true;
        else if (strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (only != NULL)
        for (const char *p = only; *p;) {
            const char *e = strchr(p, ',');
            size_t l = e ? (size_t)(e - p) : strlen(p);
            bool known = false;
            for (size_t k = 0; k < NSHAPES; k++)
                known |= strlen(shapes[k].name) == l && memcmp(shapes[k].name, p, l) == 0;
            if (!known) {
                fprintf(stderr, "urisan-mail-bench: unknown shape '%.*s'\n", (int)l, p);
                usage(stderr);
                return 2;
            }
            p += l + (e != NULL);
        }
    size_t mb[16], nmb = 0;
    if (smoke) {
        mb[nmb++] = 0; /* 256 KiB */
    } else {
        for (const char *p = sizes; *p && nmb < 16;) {
            char *e;
            unsigned long v = strtoul(p, &e, 10);
            if (e == p || v == 0 || v > 1024 || (*e != ',' && *e != '\0')) {
                fprintf(stderr, "urisan-mail-bench: bad --sizes '%s'\n", sizes);
                return 2;
            }
            mb[nmb++] = v;
            p = *e ? e + 1 : e;
        }
    }
    printf("%-14s %6s %10s %8s %8s %9s %9s %10s %8s %9s %8s  %s\n", "shape", "MB", "bytes",
           "wall_s", "cpu_s", "MB/s_cpu", "maxRSS_MB", "bound_MB", "hits", "messages", "msg/s",
           "limits");
    fflush(stdout); /* not written again by a forked child (the readers' zygote) */
    int bad = 0;
    for (size_t si = 0; si < NSHAPES; si++) {
        const shape_t *s = &shapes[si];
        if (!in_list(only, s->name))
            continue;
        for (size_t k = 0; k < nmb; k++) {
            size_t size = mb[k] ? mb[k] << 20 : (size_t)256 << 10;
            row_t r;
            memset(&r, 0, sizeof r);
            long rss = run_child(s, size, &r);
            if (rss < 0) {
                printf("%-14s %6zu  child failed\n", s->name, mb[k]);
                bad = 1;
                continue;
            }
            char lims[160];
            limit_names(r.limits, lims, sizeof lims);
            double mbytes = (double)r.bytes / (1 << 20);
            printf("%-14s %6.2f %10zu %8.3f %8.3f %9.1f %9.1f %10.1f %8zu %9zu %8.1f  %s\n",
                   s->name, mbytes, r.bytes, r.seconds, r.cpu, r.cpu > 0 ? mbytes / r.cpu : 0.0,
                   (double)rss / 1024, 64.0 + 4 * mbytes, r.hits, r.messages,
                   r.seconds > 0 ? (double)r.messages / r.seconds : 0.0, lims);
            if (smoke) {
                /* the shape must reach its limit and still report a link */
                bool want = s->limit == NULL ? r.limits == 0 : strstr(lims, s->limit) != NULL;
                if (!want || r.hits == 0) {
                    printf("  smoke: %s expected limit %s, got %s, %zu hits\n", s->name,
                           s->limit ? s->limit : "-", lims, r.hits);
                    bad = 1;
                }
            }
            if (cmd != NULL) {
                double secs = 0, cpu = 0;
                int code = -1;
                long crss = run_cmd(cmd, s, size, &secs, &cpu, &code);
                if (crss < 0) {
                    printf("%-14s %6.2f  command failed to run\n", "  (command)", mbytes);
                    bad = 1;
                } else {
                    printf("%-14s %6.2f %10zu %8.3f %8.3f %9.1f %9.1f %10.1f %8s %9s %8s  exit %d\n",
                           "  (command)", mbytes, r.bytes, secs, cpu, cpu > 0 ? mbytes / cpu : 0.0,
                           (double)crss / 1024, 64.0 + 4 * mbytes, "", "", "", code);
                }
            }
            fflush(stdout);
        }
    }
    return bad;
}
