/*
 * ref_split.h - the oracle for the tolerant split: the regular expression
 * of RFC 3986 Appendix B (identical in the seed draft's Appendix B), run by
 * the C library's POSIX regex engine, which implements exactly the
 * leftmost-longest "greedy algorithm" the appendix relies on.
 *
 *   ^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?
 *    12            3  4          5       6  7        8 9
 *
 * Engine notes:
 *  - REG_STARTEND passes the length, so embedded NULs do not end the
 *    subject string.
 *  - glibc compiles REG_EXTENDED with RE_DOT_NOT_NULL: "." never matches
 *    NUL, so "(#(.*))?" would stop a fragment at a NUL. The regex is
 *    therefore run on a copy in which NUL is replaced by 0x01. The two
 *    bytes belong to the same class of every bracket expression of the
 *    regex (neither is ":", "/", "?" or "#"), so the match positions are
 *    those of the original bytes.
 *  - The C locale (the default of a program that never calls setlocale)
 *    makes every byte a single character.
 */
#ifndef URISAN_FUZZ_REF_SPLIT_H
#define URISAN_FUZZ_REF_SPLIT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* REG_STARTEND */
#endif
#include <regex.h>

#include "fuzz_util.h"

#define REF_APPENDIX_B "^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\\?([^#]*))?(#(.*))?"

typedef struct {
    urisan_span scheme, authority, path, query, fragment;
} ref_split;

static inline urisan_span ref_group(const regmatch_t *m)
{
    urisan_span s;
    if (m->rm_so < 0) {
        s.off = URISAN_ABSENT;
        s.len = 0;
    } else {
        s.off = (size_t)m->rm_so;
        s.len = (size_t)(m->rm_eo - m->rm_so);
    }
    return s;
}

/* Split in[0..len) with the Appendix B regex. Aborts if the engine fails. */
static inline void ref_split_appendix_b(const char *in, size_t len, ref_split *out)
{
    static regex_t re;
    static int compiled;
    if (!compiled) {
        int rc = regcomp(&re, REF_APPENDIX_B, REG_EXTENDED);
        if (rc != 0)
            fuzz_fail("regcomp of the Appendix B regex failed (%d)", rc);
        compiled = 1;
    }
    char *copy = (char *)malloc(len + 1);
    if (copy == NULL)
        abort();
    for (size_t i = 0; i < len; i++)
        copy[i] = in[i] == '\0' ? '\001' : in[i];
    copy[len] = '\0';
    regmatch_t m[10];
    m[0].rm_so = 0;
    m[0].rm_eo = (regoff_t)len;
    int rc = regexec(&re, copy, 10, m, REG_STARTEND);
    free(copy);
    if (rc != 0)
        fuzz_fail("the Appendix B regex did not match (%d)", rc);
    /* The regex matches every string completely. */
    if (m[0].rm_so != 0 || (size_t)m[0].rm_eo != len)
        fuzz_fail("the Appendix B regex matched [%d,%d) of %zu bytes", (int)m[0].rm_so,
                  (int)m[0].rm_eo, len);
    out->scheme = ref_group(&m[2]);
    out->authority = ref_group(&m[4]);
    out->path = ref_group(&m[5]);
    out->query = ref_group(&m[7]);
    out->fragment = ref_group(&m[9]);
}

#endif
