/*
 * fuzz_util.h - helpers shared by the fuzz harnesses (header only: every
 * harness .c file defines nothing but LLVMFuzzerTestOneInput).
 *
 * The harness contract (STYLE.md "Fuzzing"):
 *  - the input is copied into an exact-size malloc'd buffer, so a one-byte
 *    overread faults under ASan whatever the engine (libFuzzer, AFL++,
 *    the replay main);
 *  - every broken invariant prints what broke, with the input, and calls
 *    abort(): a wrong answer is a finding exactly like a crash.
 */
#ifndef URISAN_FUZZ_UTIL_H
#define URISAN_FUZZ_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "urisan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input being checked, for failure reports. */
static const char *fuzz_cur_in;
static size_t fuzz_cur_len;

/* Print s[0..n) with C escapes for anything that is not printable ASCII. */
static inline void fuzz_put_escaped(FILE *fp, const char *s, size_t n)
{
    fputc('"', fp);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(fp, "\\%c", c);
        else if (c >= 0x20 && c < 0x7f)
            fputc(c, fp);
        else
            fprintf(fp, "\\x%02x", c);
    }
    fputc('"', fp);
}

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2), noreturn))
#endif
static inline void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fputs("\n==urisan-fuzz== INVARIANT BROKEN: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n==urisan-fuzz== input (", stderr);
    fprintf(stderr, "%zu bytes): ", fuzz_cur_len);
    if (fuzz_cur_in != NULL)
        fuzz_put_escaped(stderr, fuzz_cur_in, fuzz_cur_len > 4096 ? 4096 : fuzz_cur_len);
    fputc('\n', stderr);
    fflush(stderr);
    abort();
}

#define FUZZ_ASSERT(cond, ...)                                              \
    do {                                                                    \
        if (!(cond))                                                        \
            fuzz_fail(__VA_ARGS__);                                         \
    } while (0)

/* Exact-size copy of the input (never NULL, even for size 0). */
static inline char *fuzz_dup(const uint8_t *data, size_t size)
{
    char *p = (char *)malloc(size ? size : 1);
    if (p == NULL)
        abort();
    if (size)
        memcpy(p, data, size);
    else
        p[0] = '\0'; /* never read (length 0); keeps -Wmaybe-uninitialized quiet */
    fuzz_cur_in = p;
    fuzz_cur_len = size;
    return p;
}

/* Exact-size copy of data[off..off+n). */
static inline char *fuzz_dup_part(const char *s, size_t n)
{
    char *p = (char *)malloc(n ? n : 1);
    if (p == NULL)
        abort();
    if (n)
        memcpy(p, s, n);
    else
        p[0] = '\0';
    return p;
}

static inline void fuzz_done(char *p)
{
    fuzz_cur_in = NULL;
    fuzz_cur_len = 0;
    free(p);
}

/* ---- a tiny growable string (the harness may allocate) ---- */
typedef struct {
    char *p;
    size_t len, cap;
} fuzz_str;

static inline void fs_reserve(fuzz_str *s, size_t more)
{
    if (s->len + more <= s->cap)
        return;
    size_t nc = s->cap ? s->cap : 64;
    while (nc < s->len + more)
        nc *= 2;
    char *np = (char *)realloc(s->p, nc);
    if (np == NULL)
        abort();
    s->p = np;
    s->cap = nc;
}

static inline void fs_add(fuzz_str *s, const char *p, size_t n)
{
    fs_reserve(s, n + 1);
    if (n)
        memcpy(s->p + s->len, p, n);
    s->len += n;
    s->p[s->len] = '\0';
}

static inline void fs_addc(fuzz_str *s, char c) { fs_add(s, &c, 1); }
static inline void fs_adds(fuzz_str *s, const char *z) { fs_add(s, z, strlen(z)); }
static inline void fs_clear(fuzz_str *s) { s->len = 0; if (s->p) s->p[0] = '\0'; }
static inline void fs_free(fuzz_str *s) { free(s->p); s->p = NULL; s->len = s->cap = 0; }

static inline int fs_eq(const fuzz_str *a, const char *p, size_t n)
{
    return a->len == n && (n == 0 || memcmp(a->p, p, n) == 0);
}

/* ---- spans ---- */

/* 1 when the span is absent or lies within [0, len]. */
static inline int fuzz_span_ok(urisan_span s, size_t len)
{
    if (s.off == URISAN_ABSENT)
        return 1;
    return s.off <= len && s.len <= len - s.off;
}

static inline int fuzz_span_eq(urisan_span a, urisan_span b)
{
    if (a.off == URISAN_ABSENT || b.off == URISAN_ABSENT)
        return a.off == b.off;
    return a.off == b.off && a.len == b.len;
}

/* Split data at the first LF: (a, alen) before, (b, blen) after. With no
   LF, b is empty. */
static inline void fuzz_split_nl(const char *in, size_t len, size_t *alen,
                                 const char **b, size_t *blen)
{
    const char *nl = (const char *)memchr(in, '\n', len);
    if (nl == NULL) {
        *alen = len;
        *b = in + len;
        *blen = 0;
        return;
    }
    *alen = (size_t)(nl - in);
    *b = nl + 1;
    *blen = len - *alen - 1;
}

static inline const char *fuzz_status(urisan_status s) { return urisan_status_name(s); }

#endif
