/*
 * readers_tool.c - runs one reader of liburisan-mail's binary attachments
 * (src/mail/readers.h) on a file and prints its records, one a line:
 * "found <kind> <page> <text>" and "note <status> <text>", then
 * "status <n>". For tests/readers_test.py.
 *
 *   readers_tool pdf|ooxml|image FILE [here|nosec|isolated]
 *     [max_pixels=N] [mem=BYTES] [cpu=S] [wall=MS]
 */
#include "isolate.h"
#include "urisan_mail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool found(void *ctx, rd_kind k, uint32_t page, const char *s, size_t n)
{
    (void)ctx;
    printf("found %d %u ", (int)k, (unsigned)page);
    for (size_t i = 0; i < n; i++)
        putchar(s[i] == '\n' || s[i] == '\r' ? ' ' : s[i]);
    putchar('\n');
    return true;
}

static bool note(void *ctx, rd_status st, const char *msg, size_t n)
{
    (void)ctx;
    printf("note %d %.*s\n", (int)st, (int)n, msg);
    return true;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: readers_tool pdf|ooxml|image FILE [here|nosec|isolated] ...\n");
        return 2;
    }
    rd_reader_fn fn = strcmp(argv[1], "pdf") == 0     ? rd_pdf
                      : strcmp(argv[1], "ooxml") == 0 ? rd_ooxml
                      : strcmp(argv[1], "image") == 0 ? rd_image : NULL;
    rd_reader which = fn == rd_pdf ? RD_READ_PDF : fn == rd_ooxml ? RD_READ_OOXML : RD_READ_IMAGE;
    if (fn == NULL) {
        fprintf(stderr, "readers_tool: unknown reader '%s'\n", argv[1]);
        return 2;
    }
    FILE *f = fopen(argv[2], "rb");
    if (f == NULL) {
        perror(argv[2]);
        return 2;
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *d = malloc(cap);
    size_t r;
    while (d != NULL && (r = fread(d + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            unsigned char *nd = realloc(d, cap *= 2);
            if (nd == NULL)
                free(d);
            d = nd;
        }
    }
    fclose(f);
    if (d == NULL)
        return 2;
    const char *mode = argc > 3 ? argv[3] : "isolated";
    rd_bounds b;
    rd_bounds_default(&b);
    rd_isolation iso;
    rd_isolation_default(&iso);
    for (int i = 4; i < argc; i++) {
        unsigned long long v = 0;
        if (sscanf(argv[i], "max_pixels=%llu", &v) == 1) b.max_pixels = (size_t)v;
        else if (sscanf(argv[i], "max_pages=%llu", &v) == 1) b.max_pages = (size_t)v;
        else if (sscanf(argv[i], "mem=%llu", &v) == 1) iso.max_mem = (size_t)v;
        else if (sscanf(argv[i], "cpu=%llu", &v) == 1) iso.cpu_seconds = (unsigned)v;
        else if (sscanf(argv[i], "wall=%llu", &v) == 1) iso.wall_ms = (unsigned)v;
    }
    iso.no_seccomp = strcmp(mode, "nosec") == 0;
    if (getenv("URISAN_READERS") != NULL) /* the build tree's (meson test, devenv) */
        (void)urisan_mail_set_readers(getenv("URISAN_READERS"));
    rd_sink sink = { found, note, NULL };
    bool stopped = false;
    rd_status st = strcmp(mode, "here") == 0 ? rd_run_here(fn, d, n, &b, &sink, &stopped)
                                             : rd_run(which, d, n, &b, &iso, &sink, &stopped);
    printf("status %d\n", (int)st);
    free(d);
    return 0;
}
