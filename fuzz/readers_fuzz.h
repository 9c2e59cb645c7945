/*
 * fuzz/readers_fuzz.h - the body of the harnesses of the readers of
 * binary attachments (src/mail/readers.h): fuzz/pdf_links.c,
 * fuzz/ooxml_rels.c, fuzz/image_sniff.c each define RD_FUZZ_READER and
 * include it. Each reader runs in-process (rd_run_here: the same records
 * the sandboxed worker writes, without the process). Invariants:
 *  1. every record's kind is one readers.h names, its text within the
 *     record bound;
 *  2. the reader returns a status readers.h names, and a status other
 *     than RD_OK comes with a note (never a silent stop);
 *  3. two runs on one input give the same records.
 */
#include "fuzz_util.h"

#include "isolate.h"
#include "attach.h"

typedef struct {
    fuzz_str out;
    size_t notes;
} rec;

static bool on_found(void *ctx, rd_kind k, uint32_t page, const char *s, size_t n)
{
    rec *r = ctx;
    FUZZ_ASSERT(k >= 1 && k <= RD_KIND_MAX_, "record kind %d", (int)k);
    FUZZ_ASSERT(n <= RD_RECORD_MAX, "record of %zu bytes", n);
    char head[32];
    snprintf(head, sizeof head, "%d %u %zu:", (int)k, (unsigned)page, n);
    fs_adds(&r->out, head);
    fs_add(&r->out, s, n);
    return true;
}

static bool on_note(void *ctx, rd_status st, const char *msg, size_t n)
{
    rec *r = ctx;
    FUZZ_ASSERT(st <= RD_BROKEN && n > 0, "note status %d", (int)st);
    (void)msg;
    r->notes++;
    return true;
}

static rd_status run(const char *d, size_t n, rec *r)
{
    rd_bounds b;
    rd_bounds_default(&b);
    b.max_pages = 64;           /* small bounds: more inputs a second */
    b.max_objects = 4096;
    b.max_images = 4;
    b.max_pixels = 1 << 20;
    b.max_inflated = 8 << 20;
    b.max_entries = 256;
    b.max_found = 512;
    rd_sink sink = { on_found, on_note, r };
    bool stopped = false;
    rd_status st = rd_run_here(RD_FUZZ_READER, (const unsigned char *)d, n, &b, &sink, &stopped);
    FUZZ_ASSERT(st <= RD_BROKEN, "status %d", (int)st);
    FUZZ_ASSERT(st == RD_OK || r->notes > 0, "status %d without a note", (int)st);
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *d = fuzz_dup(data, size);
    (void)mail_sniff(NULL, NULL, d, size, true);
    rec a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    rd_status sa = run(d, size, &a);
    rd_status sb = run(d, size, &b);
    FUZZ_ASSERT(sa == sb && a.out.len == b.out.len &&
                (a.out.len == 0 || memcmp(a.out.p, b.out.p, a.out.len) == 0),
                "two runs differ");
    fs_free(&a.out);
    fs_free(&b.out);
    fuzz_done(d);
    return 0;
}
