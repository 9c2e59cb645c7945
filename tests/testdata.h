/*
 * testdata.h - helpers for tests that read ../shared/data (vectors and URL
 * lists). The folder is found through $URISAN_DATA (set by meson).
 *
 * The Check cases that read it are in TCases made by testdata_tcase(),
 * tagged TESTDATA_TAG. meson runs such a program twice: once without them
 * (CK_EXCLUDE_TAGS=shared_data) and once with only them
 * (CK_INCLUDE_TAGS=shared_data, the test NAME_shared_data); that run exits
 * 77 - meson's SKIP - when the folder is absent (testdata_skip()), and a
 * file missing from a folder that is there is a failure, never a pass.
 *
 * TSV escaping per ../shared/data/vectors/SOURCES.md: \\ \t \n \r \xHH.
 */
#ifndef URISAN_TESTDATA_H
#define URISAN_TESTDATA_H

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TSV_MAX_COLS 16

typedef struct {
    FILE *fp;
    char *line;
    size_t cap;
    size_t lineno;
    size_t ncols;
    char *hdr[TSV_MAX_COLS];
    char *hdrbuf;
    /* current row: fields unescaped in place (may hold NUL bytes) */
    size_t nf;
    char *f[TSV_MAX_COLS];
    size_t flen[TSV_MAX_COLS];
} tsv_file;

static inline const char *testdata_dir(void)
{
    const char *d = getenv("URISAN_DATA");
    return (d && *d) ? d : "../shared/data";
}

#define TESTDATA_TAG "shared_data"

/* A TCase of s for cases that read the shared data (tagged TESTDATA_TAG). */
static inline TCase *testdata_tcase(Suite *s, const char *name)
{
    TCase *tc = tcase_create(name);
    tcase_set_tags(tc, TESTDATA_TAG);
    suite_add_tcase(s, tc);
    return tc;
}

/* main() returns 77 when this is true: the run is for the shared-data
   cases (CK_INCLUDE_TAGS names TESTDATA_TAG) and the folder is absent. */
static inline bool testdata_skip(void)
{
    const char *tags = getenv("CK_INCLUDE_TAGS");
    struct stat st;
    if (tags == NULL || strstr(tags, TESTDATA_TAG) == NULL)
        return false;
    if (stat(testdata_dir(), &st) == 0 && S_ISDIR(st.st_mode))
        return false;
    printf("SKIP: %s absent (the shared data folder; URISAN_DATA names another): "
           "the cases that read it are not run\n", testdata_dir());
    return true;
}

/* Open DIR/sub/name. The cases that call it run only when the folder is
   there (testdata_skip): a file missing from it fails the case. */
static inline FILE *testdata_open(const char *sub, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s", testdata_dir(), sub, name);
    FILE *fp = fopen(path, "rb");
    ck_assert_msg(fp != NULL, "%s: not found in the shared data folder", path);
    return fp;
}

static inline int tsv_hex(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Unescape s[0..n) in place; returns the new length. */
static inline size_t tsv_unescape(char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n) {
            char c = s[i + 1];
            if (c == '\\') { s[o++] = '\\'; i++; continue; }
            if (c == 't') { s[o++] = '\t'; i++; continue; }
            if (c == 'n') { s[o++] = '\n'; i++; continue; }
            if (c == 'r') { s[o++] = '\r'; i++; continue; }
            if (c == 'x' && i + 3 < n && tsv_hex(s[i + 2]) >= 0 && tsv_hex(s[i + 3]) >= 0) {
                s[o++] = (char)(tsv_hex(s[i + 2]) * 16 + tsv_hex(s[i + 3]));
                i += 3;
                continue;
            }
        }
        s[o++] = s[i];
    }
    return o;
}

static inline size_t tsv_split(char *line, size_t n, char **f, size_t *flen)
{
    size_t nf = 0, start = 0;
    for (size_t i = 0; i <= n && nf < TSV_MAX_COLS; i++) {
        if (i == n || line[i] == '\t') {
            f[nf] = line + start;
            flen[nf] = i - start;
            nf++;
            start = i + 1;
        }
    }
    return nf;
}

/* Open a vectors/NAME.tsv file and read its header (absent: the case fails). */
static inline int tsv_open(tsv_file *t, const char *name)
{
    memset(t, 0, sizeof *t);
    t->fp = testdata_open("vectors", name);
    if (!t->fp)
        return 0;
    ssize_t n = getline(&t->line, &t->cap, t->fp);
    ck_assert_msg(n > 0, "vectors/%s: no header line", name);
    if (t->line[n - 1] == '\n') n--;
    t->hdrbuf = malloc((size_t)n + 1);
    memcpy(t->hdrbuf, t->line, (size_t)n);
    t->hdrbuf[n] = '\0';
    size_t flen[TSV_MAX_COLS];
    t->ncols = tsv_split(t->hdrbuf, (size_t)n, t->hdr, flen);
    for (size_t i = 0; i < t->ncols; i++)
        t->hdr[i][flen[i]] = '\0';
    t->lineno = 1;
    return 1;
}

/* Column index by header name, or -1. */
static inline int tsv_col(const tsv_file *t, const char *name)
{
    for (size_t i = 0; i < t->ncols; i++)
        if (strcmp(t->hdr[i], name) == 0)
            return (int)i;
    return -1;
}

/* Next row, fields unescaped; 0 at end. Missing trailing fields are "". */
static inline int tsv_next(tsv_file *t)
{
    ssize_t n = getline(&t->line, &t->cap, t->fp);
    if (n < 0)
        return 0;
    t->lineno++;
    if (n > 0 && t->line[n - 1] == '\n') n--;
    t->nf = tsv_split(t->line, (size_t)n, t->f, t->flen);
    for (size_t i = 0; i < t->nf; i++)
        t->flen[i] = tsv_unescape(t->f[i], t->flen[i]);
    for (size_t i = t->nf; i < TSV_MAX_COLS; i++) {
        t->f[i] = t->line + n;
        t->flen[i] = 0;
    }
    return 1;
}

static inline void tsv_close(tsv_file *t)
{
    if (t->fp) fclose(t->fp);
    free(t->line);
    free(t->hdrbuf);
    memset(t, 0, sizeof *t);
}

#endif
