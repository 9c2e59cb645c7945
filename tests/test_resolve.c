/*
 * test_resolve.c - RFC 3986 5.2 resolution (src/resolve.c) and the
 * linear remove_dot_segments (src/dots.c).
 *
 * Vectors: RFC 3986 5.4, the seed draft's Appendix C (typed here from
 * ../shared/seeds/draft-fielding-uri-rfc2396bis-00.txt), and the
 * uriparser, Go and Python tables in ../shared/data/vectors. Where urisan
 * answers differently on purpose, the row is in `differences` below with
 * the reason, and the test checks urisan's answer.
 */
#include "internal.h"
#include "reparse.h"
#include "quiet_check.h"
#include "testdata.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BASE "http://a/b/c/d;p?q"

/* memmem is not POSIX: does s[0..n) contain lit? */
static int has(const char *s, size_t n, const char *lit)
{
    size_t l = strlen(lit);
    for (size_t i = 0; i + l <= n; i++)
        if (memcmp(s + i, lit, l) == 0)
            return 1;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Helper: resolve with an exact-size buffer (ASan catches one byte    */
/* too many), check *needed, and check the output re-parses into the   */
/* components resolve computed. *out is NUL-terminated, caller frees.  */
/* ------------------------------------------------------------------ */
static urisan_status res_opt(const char *base, size_t bl, const char *ref, size_t rl,
                             const urisan_resolve_opts *o, char **out, size_t *n,
                             urisan_flags *fl, urisan_error *e)
{
    size_t need = 123, need2 = 0;
    urisan_flags f1 = 0;
    urisan_parts pt;

    *out = NULL;
    *n = 0;
    urisan_status st = urisan_resolve_ex(base, bl, ref, rl, o, NULL, 0, &need, &f1, e, NULL);
    if (st != URISAN_E_NOSPACE) {
        qc_assert_uint_eq(need, 0);
        if (fl)
            *fl = f1;
        return st;
    }
    char *buf = malloc(need);
    qc_assert(buf != NULL);
    st = urisan_resolve_ex(base, bl, ref, rl, o, buf, need, &need2, fl, e, &pt);
    qc_assert_int_eq(st, URISAN_OK);
    qc_assert_uint_eq(need2, need);
    qc_assert_msg(reparses_to(buf, need, &pt), "resolve output re-parses differently");
    if (fl)
        qc_assert_uint_eq(*fl, f1);
    *out = malloc(need + 1);
    memcpy(*out, buf, need);
    (*out)[need] = '\0';
    *n = need;
    free(buf);
    return st;
}

static urisan_status res(const char *base, const char *ref, int non_strict,
                         urisan_above_root ar, char **out, urisan_flags *fl,
                         urisan_error *e)
{
    urisan_resolve_opts o = { non_strict, ar, NULL };
    size_t n;
    return res_opt(base, strlen(base), ref, strlen(ref), &o, out, &n, fl, e);
}

/* ------------------------------------------------------------------ */
/* RFC 3986 5.4                                                        */
/* ------------------------------------------------------------------ */
START_TEST(rfc3986_section_5_4_examples_resolve_as_written)
{
    tsv_file t;
    if (!tsv_open(&t, "rfc3986-resolve.tsv"))
        return;
    int rc = tsv_col(&t, "ref"), ec = tsv_col(&t, "expected"), sc = tsv_col(&t, "section");
    size_t rows = 0, agree = 0;
    while (tsv_next(&t)) {
        /* "http:g" is listed twice: strict, and backward-compatible
           (5.4.2: "for backward compatibility"), our non_strict. */
        int ns = has(t.f[sc], t.flen[sc], "backward");
        urisan_resolve_opts o = { ns, URISAN_ABOVE_ROOT_CLAMP, NULL };
        char *out;
        size_t n;
        urisan_error e;
        rows++;
        qc_assert_int_eq(res_opt(BASE, strlen(BASE), t.f[rc], t.flen[rc], &o, &out, &n, NULL, &e),
                         URISAN_OK);
        qc_assert_msg(n == t.flen[ec] && memcmp(out, t.f[ec], n) == 0,
                      "line %zu: %.*s -> %s, RFC says %.*s", t.lineno, (int)t.flen[rc],
                      t.f[rc], out, (int)t.flen[ec], t.f[ec]);
        agree++;
        free(out);
    }
    printf("rfc3986-resolve.tsv: %zu/%zu agree\n", agree, rows);
    qc_assert_uint_eq(rows, 43);
    tsv_close(&t);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Seed draft Appendix C, in the mode each example is written for      */
/* ------------------------------------------------------------------ */
typedef struct {
    const char *ref, *expected;
    int non_strict;
    urisan_above_root ar;
    int all_modes;   /* no ".." above the root: every mode agrees */
} c_row;

static const c_row appendix_c[] = {
    /* C.1 Normal Examples: the same in clamp, keep and reject. */
    { "g:h", "g:h", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    { "g", "http://a/b/c/g", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    { "./g", "http://a/b/c/g", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    { "g/", "http://a/b/c/g/", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    { "/g", "http://a/g", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    { "//g", "http://g", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    { "?y", "http://a/b/c/d;p?y", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    { "g?y", "http://a/b/c/g?y", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    /* "(current document)#s": RFC 3986 5.4.1 spells the document out */
    { "#s", "http://a/b/c/d;p?q#s", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    { "g#s", "http://a/b/c/g#s", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    { "g?y#s", "http://a/b/c/g?y#s", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    { ";x", "http://a/b/c/;x", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    { "g;x", "http://a/b/c/g;x", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    { "g;x?y#s", "http://a/b/c/g;x?y#s", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    { ".", "http://a/b/c/", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    { "./", "http://a/b/c/", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    { "..", "http://a/b/", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    { "../", "http://a/b/", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    { "../g", "http://a/b/g", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    { "../..", "http://a/", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    { "../../", "http://a/", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    { "../../g", "http://a/g", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    /* C.2 Abnormal Examples. "<>" is the current document. */
    { "", "http://a/b/c/d;p?q", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    /* More ".." than levels: the draft keeps them (our keep) ... */
    { "../../../g", "http://a/../g", 0, URISAN_ABOVE_ROOT_KEEP, 0 },
    { "../../../../g", "http://a/../../g", 0, URISAN_ABOVE_ROOT_KEEP, 0 },
    /* ... "interpreted as http://a/g by some implementations" (clamp) */
    { "../../../g", "http://a/g", 0, URISAN_ABOVE_ROOT_CLAMP, 0 },
    { "../../../../g", "http://a/g", 0, URISAN_ABOVE_ROOT_CLAMP, 0 },
    /* The draft (RFC 2396 5.2 step 5) copies an absolute-path reference
       without removing dots: keep writes it as the draft does
       (doc/resolve.md: every Appendix C example passes in the mode it is written for). */
    { "/./g", "http://a/./g", 0, URISAN_ABOVE_ROOT_KEEP, 0 },
    { "/./g", "http://a/g", 0, URISAN_ABOVE_ROOT_CLAMP, 0 },
    { "/../g", "http://a/../g", 0, URISAN_ABOVE_ROOT_KEEP, 0 },
    { "g.", "http://a/b/c/g.", 0, URISAN_ABOVE_ROOT_KEEP, 1 },
    { ".g", "http://a/b/c/.g", 0, URISAN_ABOVE_ROOT_KEEP, 1 },
    { "g..", "http://a/b/c/g..", 0, URISAN_ABOVE_ROOT_KEEP, 1 },
    { "..g", "http://a/b/c/..g", 0, URISAN_ABOVE_ROOT_KEEP, 1 },
    { "./../g", "http://a/b/g", 0, URISAN_ABOVE_ROOT_KEEP, 1 },
    { "./g/.", "http://a/b/c/g/", 0, URISAN_ABOVE_ROOT_KEEP, 1 },
    { "g/./h", "http://a/b/c/g/h", 0, URISAN_ABOVE_ROOT_KEEP, 1 },
    { "g/../h", "http://a/b/c/h", 0, URISAN_ABOVE_ROOT_KEEP, 1 },
    { "g;x=1/./y", "http://a/b/c/g;x=1/y", 0, URISAN_ABOVE_ROOT_KEEP, 1 },
    { "g;x=1/../y", "http://a/b/c/y", 0, URISAN_ABOVE_ROOT_KEEP, 1 },
    { "g?y/./x", "http://a/b/c/g?y/./x", 0, URISAN_ABOVE_ROOT_KEEP, 1 },
    { "g?y/../x", "http://a/b/c/g?y/../x", 0, URISAN_ABOVE_ROOT_KEEP, 1 },
    { "g#s/./x", "http://a/b/c/g#s/./x", 0, URISAN_ABOVE_ROOT_KEEP, 1 },
    { "g#s/../x", "http://a/b/c/g#s/../x", 0, URISAN_ABOVE_ROOT_KEEP, 1 },
    /* "http:g = http:g ; for validating parsers / http://a/b/c/g ; for
       backwards compatibility" */
    { "http:g", "http:g", 0, URISAN_ABOVE_ROOT_CLAMP, 1 },
    { "http:g", "http://a/b/c/g", 1, URISAN_ABOVE_ROOT_CLAMP, 1 },
};

START_TEST(seed_draft_appendix_c_examples_resolve_in_their_mode)
{
    const c_row *r = &appendix_c[_i];
    urisan_above_root modes[3] = { r->ar, URISAN_ABOVE_ROOT_KEEP, URISAN_ABOVE_ROOT_REJECT };
    for (int m = 0; m < (r->all_modes ? 3 : 1); m++) {
        char *out;
        urisan_error e;
        qc_assert_int_eq(res(BASE, r->ref, r->non_strict, modes[m], &out, NULL, &e), URISAN_OK);
        qc_assert_msg(strcmp(out, r->expected) == 0, "C: \"%s\" mode %d -> %s, draft says %s",
                      r->ref, (int)modes[m], out, r->expected);
        free(out);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* Deliberate differences, each with its reason                        */
/* ------------------------------------------------------------------ */
typedef struct {
    const char *file, *base, *ref;
    int non_strict;
    urisan_above_root ar;
    const char *theirs;      /* what the vector file expects */
    const char *ours;        /* urisan's answer, NULL: an error */
    urisan_status code;      /* the error when ours == NULL */
    const char *why;
} diff_row;

#define ROOTLESS_WHY                                                        \
    "RFC 3986 5.2.4 as written: C pops the rootless first segment, E then " \
    "moves \"/x\" (the 5.4-style literal result); uriparser keeps it rootless"

static const diff_row differences[] = {
    { "uriparser-resolve.tsv", "foo:a/b", "../c", 0, URISAN_ABOVE_ROOT_CLAMP,
      "foo:c", "foo:/c", URISAN_OK, ROOTLESS_WHY },
    { "uriparser-resolve.tsv", "zz:abc", "foo/../../../bar", 0, URISAN_ABOVE_ROOT_CLAMP,
      "zz:bar", "zz:/bar", URISAN_OK, ROOTLESS_WHY },
    { "uriparser-resolve.tsv", "zz:abc", "foo/../bar", 0, URISAN_ABOVE_ROOT_CLAMP,
      "zz:bar", "zz:/bar", URISAN_OK, ROOTLESS_WHY },
    { "python-urljoin.tsv", "http://a/b/c/d;p?q#f", "", 0, URISAN_ABOVE_ROOT_CLAMP,
      "http://a/b/c/d;p?q#f", "http://a/b/c/d;p?q", URISAN_OK,
      "RFC 1808 kept the base fragment; RFC 3986 5.2.2 takes T.fragment from "
      "the reference and 5.1 strips the base's" },
    { "python-urljoin.tsv", "", "http://a/b/c/g?y/./x", 0, URISAN_ABOVE_ROOT_CLAMP,
      "http://a/b/c/g?y/./x", NULL, URISAN_E_BASE_NOT_ABSOLUTE,
      "5.2.1: the base must be an absolute URI; an empty base is a caller error" },
    { "python-urljoin.tsv", "", "http://a/./g", 0, URISAN_ABOVE_ROOT_CLAMP,
      "http://a/./g", NULL, URISAN_E_BASE_NOT_ABSOLUTE,
      "5.2.1: the base must be an absolute URI (Python also skips dot removal)" },
    { "python-urljoin.tsv", "a", "b", 0, URISAN_ABOVE_ROOT_CLAMP,
      "b", NULL, URISAN_E_BASE_NOT_ABSOLUTE,
      "5.2.1: \"a\" has no scheme, so it is no base" },
};
#define NDIFF (sizeof differences / sizeof differences[0])

static const diff_row *find_diff(const char *file, const char *b, size_t bl,
                                 const char *r, size_t rl)
{
    for (size_t i = 0; i < NDIFF; i++) {
        const diff_row *d = &differences[i];
        if (strcmp(d->file, file) == 0 && strlen(d->base) == bl &&
            memcmp(d->base, b, bl) == 0 && strlen(d->ref) == rl && memcmp(d->ref, r, rl) == 0)
            return d;
    }
    return NULL;
}

START_TEST(each_listed_difference_gives_urisans_documented_answer)
{
    const diff_row *d = &differences[_i];
    char *out;
    urisan_error e;
    urisan_status st = res(d->base, d->ref, d->non_strict, d->ar, &out, NULL, &e);
    if (d->ours == NULL) {
        qc_assert_msg(st == d->code, "%s + %s: %s", d->base, d->ref, urisan_status_name(st));
        return;
    }
    qc_assert_int_eq(st, URISAN_OK);
    qc_assert_msg(strcmp(out, d->ours) == 0, "%s + %s -> %s (documented: %s, because %s)",
                  d->base, d->ref, out, d->ours, d->why);
    ck_assert_str_ne(out, d->theirs);
    free(out);
}
END_TEST

/*
 * Run a resolve vector file: every row agrees, or is a listed difference.
 * mode_col: rows whose value contains "backward" or "non-strict" run in
 * non-strict mode (uriparser's backward-compat, Python's 5.2.2 loophole).
 */
static void run_vectors(const char *file, const char *mode_col, size_t expect_rows)
{
    tsv_file t;
    if (!tsv_open(&t, file))
        return;
    int bc = tsv_col(&t, "base"), rc = tsv_col(&t, "ref"), ec = tsv_col(&t, "expected");
    int mc = mode_col ? tsv_col(&t, mode_col) : -1;
    size_t rows = 0, agree = 0, differ = 0;
    qc_assert(bc >= 0 && rc >= 0 && ec >= 0);
    while (tsv_next(&t)) {
        int ns = mc >= 0 && (has(t.f[mc], t.flen[mc], "backward") ||
                             has(t.f[mc], t.flen[mc], "non-strict"));
        urisan_resolve_opts o = { ns, URISAN_ABOVE_ROOT_CLAMP, NULL };
        char *out;
        size_t n;
        urisan_error e;
        rows++;
        urisan_status st = res_opt(t.f[bc], t.flen[bc], t.f[rc], t.flen[rc], &o, &out, &n, NULL, &e);
        const diff_row *d = find_diff(file, t.f[bc], t.flen[bc], t.f[rc], t.flen[rc]);
        if (d != NULL) {
            /* checked against urisan's answer by the test above */
            differ++;
            free(out);
            continue;
        }
        qc_assert_msg(st == URISAN_OK, "%s:%zu: %s", file, t.lineno, urisan_status_name(st));
        qc_assert_msg(n == t.flen[ec] && memcmp(out, t.f[ec], n) == 0,
                      "%s:%zu: %.*s + %.*s -> %s, expected %.*s", file, t.lineno,
                      (int)t.flen[bc], t.f[bc], (int)t.flen[rc], t.f[rc], out,
                      (int)t.flen[ec], t.f[ec]);
        agree++;
        free(out);
    }
    printf("%s: %zu/%zu agree, %zu listed differences\n", file, agree, rows, differ);
    qc_assert_uint_eq(rows, expect_rows);
    tsv_close(&t);
}

START_TEST(uriparser_resolve_vectors_agree_except_listed_differences)
{
    run_vectors("uriparser-resolve.tsv", "mode", 197);
}
END_TEST

START_TEST(go_url_resolve_vectors_all_agree)
{
    run_vectors("go-url-resolve.tsv", NULL, 87);
}
END_TEST

START_TEST(python_urljoin_vectors_agree_except_listed_differences)
{
    run_vectors("python-urljoin.tsv", "rfc3986_check", 114);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The re-parse hazards                                                */
/* ------------------------------------------------------------------ */
typedef struct {
    const char *base, *ref;
    urisan_above_root ar;
    const char *expected;
    const char *rfc_literal;  /* what 5.2 as written would give */
} hazard_row;

static const hazard_row hazards[] = {
    /* RFC 3986 gives "f://g": "g" would re-parse as the host. 5.2.4's
       own advice: keep the path's meaning with a "/." prefix. */
    { "f:/a", ".//g", URISAN_ABOVE_ROOT_CLAMP, "f:/.//g", "f://g" },
    { "f:/a", "/.//g", URISAN_ABOVE_ROOT_CLAMP, "f:/.//g", "f://g" },
    { "f:/a/b", "..//g", URISAN_ABOVE_ROOT_CLAMP, "f:/.//g", "f://g" },
    { "f:/a", "../..//g", URISAN_ABOVE_ROOT_CLAMP, "f:/.//g", "f://g" },
    { "f:a/b", "../..//g", URISAN_ABOVE_ROOT_CLAMP, "f:/.//g", "f://g" },
    { "f:/a", ".//g", URISAN_ABOVE_ROOT_REJECT, "f:/.//g", "f://g" },
    { "f:/a", "g:/.//x", URISAN_ABOVE_ROOT_CLAMP, "g:/.//x", "g://x" },
    /* keep: the kept ".." already separates the slashes */
    { "f:/a", "..//g", URISAN_ABOVE_ROOT_KEEP, "f:/..//g", "f://g" },
    /* keep on a rootless merge writes the draft's string: step 3
       removes "./" and leaves "/g", one slash, no hazard */
    { "f:", ".//g", URISAN_ABOVE_ROOT_KEEP, "f:/g", "f:/g" },
    { "f:", ".///g", URISAN_ABOVE_ROOT_KEEP, "f:/.//g", "f://g" },
    /* keep: "t/..//../x" -> "/../x" (the draft's string: the "/" left
       after removing "t/../" is a root) */
    { "f:", "t/..//../x", URISAN_ABOVE_ROOT_KEEP, "f:/../x", "f:/x" },
    /* With an authority a path may start with "//": nothing to guard. */
    { "f://h/a", ".//g", URISAN_ABOVE_ROOT_CLAMP, "f://h//g", "f://h//g" },
    { "http://h", "/.//g", URISAN_ABOVE_ROOT_CLAMP, "http://h//g", "http://h//g" },
    /* Not hazards: one slash, or a ":" after a scheme (scheme ends at
       the first ":", 3.1). */
    { "f:", ".//g", URISAN_ABOVE_ROOT_CLAMP, "f:/g", "f:/g" },
    { "f:/a", "./g:h", URISAN_ABOVE_ROOT_CLAMP, "f:/g:h", "f:/g:h" },
    { "f:", "./g:h", URISAN_ABOVE_ROOT_CLAMP, "f:g:h", "f:g:h" },
};

START_TEST(path_starting_with_two_slashes_without_authority_gets_dot_prefix)
{
    const hazard_row *h = &hazards[_i];
    char *out;
    urisan_error e;
    qc_assert_int_eq(res(h->base, h->ref, 0, h->ar, &out, NULL, &e), URISAN_OK);
    qc_assert_msg(strcmp(out, h->expected) == 0, "%s + %s -> %s, want %s (RFC literal %s)",
                  h->base, h->ref, out, h->expected, h->rfc_literal);
    free(out);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Modes and flags                                                     */
/* ------------------------------------------------------------------ */
START_TEST(dot_above_root_is_reported_in_clamp_and_keep)
{
    char *out;
    urisan_flags fl;
    urisan_error e;
    qc_assert_int_eq(res(BASE, "../../../g", 0, URISAN_ABOVE_ROOT_CLAMP, &out, &fl, &e), URISAN_OK);
    qc_assert_str_eq(out, "http://a/g");
    qc_assert_uint_eq(fl, URISAN_F(DOT_SEGMENTS) | URISAN_F(DOT_ABOVE_ROOT));
    free(out);
    qc_assert_int_eq(res(BASE, "../../../g", 0, URISAN_ABOVE_ROOT_KEEP, &out, &fl, &e), URISAN_OK);
    qc_assert_str_eq(out, "http://a/../g");
    qc_assert_uint_eq(fl, URISAN_F(DOT_SEGMENTS) | URISAN_F(DOT_ABOVE_ROOT));
    free(out);
    qc_assert_int_eq(res(BASE, "../../g", 0, URISAN_ABOVE_ROOT_CLAMP, &out, &fl, &e), URISAN_OK);
    qc_assert_uint_eq(fl, URISAN_F(DOT_SEGMENTS));
    free(out);
    qc_assert_int_eq(res(BASE, "g/h", 0, URISAN_ABOVE_ROOT_CLAMP, &out, &fl, &e), URISAN_OK);
    qc_assert_uint_eq(fl, 0);
    free(out);
}
END_TEST

START_TEST(above_root_reject_reports_offset_of_first_climbing_dotdot)
{
    char *out;
    urisan_flags fl;
    urisan_error e;
    qc_assert_int_eq(res(BASE, "../../../g", 0, URISAN_ABOVE_ROOT_REJECT, &out, &fl, &e),
                     URISAN_E_ABOVE_ROOT);
    qc_assert_int_eq(e.code, URISAN_E_ABOVE_ROOT);
    qc_assert_uint_eq(e.input, 1);
    qc_assert_uint_eq(e.offset, 6); /* the third ".." */
    qc_assert_uint_eq(fl, URISAN_F(DOT_SEGMENTS) | URISAN_F(DOT_ABOVE_ROOT));
    qc_assert_int_eq(res(BASE, "/x/../../g", 0, URISAN_ABOVE_ROOT_REJECT, &out, &fl, &e),
                     URISAN_E_ABOVE_ROOT);
    qc_assert_uint_eq(e.offset, 6);
    /* a ".." in the base's own path, climbing when the reference adds its own */
    qc_assert_int_eq(res("http://a/../b/", "?y", 0, URISAN_ABOVE_ROOT_REJECT, &out, &fl, &e),
                     URISAN_E_ABOVE_ROOT);
    qc_assert_uint_eq(e.input, 0);
    qc_assert_uint_eq(e.offset, 9);
}
END_TEST

START_TEST(pct2e_dotdot_is_judged_as_dot_segment_but_resolved_verbatim)
{
    char *out;
    urisan_flags fl;
    urisan_error e;
    /* RFC 3986 5.2.4 works on the raw text: "%2e%2e" is not removed when
       resolving (normalise does that). A server that decodes first would
       climb, so the flags say so (encoded_dot, doc/policy.md). */
    qc_assert_int_eq(res("http://a/b/c", "%2e%2e/%2E%2E/x", 0, URISAN_ABOVE_ROOT_CLAMP, &out, &fl, &e),
                     URISAN_OK);
    qc_assert_str_eq(out, "http://a/b/%2e%2e/%2E%2E/x");
    qc_assert_uint_eq(fl, URISAN_F(DOT_SEGMENTS) | URISAN_F(ENCODED_DOT) | URISAN_F(DOT_ABOVE_ROOT));
    free(out);
    qc_assert_int_eq(res("http://a/b/c", "%2e%2e/%2E%2E/x", 0, URISAN_ABOVE_ROOT_REJECT, &out, &fl, &e),
                     URISAN_E_ABOVE_ROOT);
    qc_assert_uint_eq(e.input, 1);
    qc_assert_uint_eq(e.offset, 7);
    qc_assert_int_eq(res("http://a/b/c", ".%2e/x", 0, URISAN_ABOVE_ROOT_CLAMP, &out, &fl, &e), URISAN_OK);
    qc_assert_str_eq(out, "http://a/b/.%2e/x");
    qc_assert_uint_eq(fl, URISAN_F(DOT_SEGMENTS) | URISAN_F(ENCODED_DOT));
    free(out);
}
END_TEST

START_TEST(dots_in_a_verbatim_base_path_are_reported)
{
    char *out;
    urisan_flags fl;
    urisan_error e;
    /* 5.2.2: an empty reference path takes Base.path as it is. */
    qc_assert_int_eq(res("http://a/../b", "?y", 0, URISAN_ABOVE_ROOT_CLAMP, &out, &fl, &e), URISAN_OK);
    qc_assert_str_eq(out, "http://a/../b?y");
    qc_assert_uint_eq(fl, URISAN_F(DOT_SEGMENTS) | URISAN_F(DOT_ABOVE_ROOT));
    free(out);
}
END_TEST

START_TEST(base_without_scheme_is_base_not_absolute)
{
    const char *bases[] = { "//a/b", "/a/b", "a/b", "", "?q", "#f" };
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
        char *out;
        urisan_error e;
        qc_assert_int_eq(res(bases[i], "g", 0, URISAN_ABOVE_ROOT_CLAMP, &out, NULL, &e),
                         URISAN_E_BASE_NOT_ABSOLUTE);
        qc_assert_uint_eq(e.input, 0);
        qc_assert_uint_eq(e.offset, 0);
    }
}
END_TEST

START_TEST(invalid_base_or_reference_reports_parse_error_and_which_input)
{
    char *out;
    urisan_error e;
    qc_assert_int_eq(res("http://a b/", "g", 0, URISAN_ABOVE_ROOT_CLAMP, &out, NULL, &e),
                     URISAN_E_BAD_HOST);
    qc_assert_uint_eq(e.input, 0);
    qc_assert_uint_eq(e.offset, 8);
    qc_assert_int_eq(res(BASE, "g h", 0, URISAN_ABOVE_ROOT_CLAMP, &out, NULL, &e), URISAN_E_BAD_PATH);
    qc_assert_uint_eq(e.input, 1);
    qc_assert_uint_eq(e.offset, 1);
    qc_assert_int_eq(res(BASE, "a:b%zz", 0, URISAN_ABOVE_ROOT_CLAMP, &out, NULL, &e), URISAN_E_BAD_ESCAPE);
    qc_assert_uint_eq(e.input, 1);
    qc_assert_uint_eq(e.offset, 3);
    /* a bound: the default max_uri is 8192 */
    char *big = malloc(9000);
    memset(big, 'a', 9000);
    urisan_resolve_opts o = { 0, URISAN_ABOVE_ROOT_CLAMP, NULL };
    size_t n;
    qc_assert_int_eq(res_opt(BASE, strlen(BASE), big, 9000, &o, &out, &n, NULL, &e), URISAN_E_TOO_LONG);
    qc_assert_uint_eq(e.input, 1);
    qc_assert_uint_eq(e.offset, 8192);
    free(big);
}
END_TEST

START_TEST(base_fragment_is_ignored)
{
    char *out;
    urisan_error e;
    qc_assert_int_eq(res("http://a/b#frag", "c", 0, URISAN_ABOVE_ROOT_CLAMP, &out, NULL, &e), URISAN_OK);
    qc_assert_str_eq(out, "http://a/c");
    free(out);
    qc_assert_int_eq(res("http://a/b?q#frag", "", 0, URISAN_ABOVE_ROOT_CLAMP, &out, NULL, &e), URISAN_OK);
    qc_assert_str_eq(out, "http://a/b?q");
    free(out);
}
END_TEST

START_TEST(non_strict_ignores_same_scheme_in_any_case_only)
{
    char *out;
    urisan_error e;
    qc_assert_int_eq(res(BASE, "HTTP:g", 1, URISAN_ABOVE_ROOT_CLAMP, &out, NULL, &e), URISAN_OK);
    qc_assert_str_eq(out, "http://a/b/c/g");
    free(out);
    qc_assert_int_eq(res(BASE, "HTTP:g", 0, URISAN_ABOVE_ROOT_CLAMP, &out, NULL, &e), URISAN_OK);
    qc_assert_str_eq(out, "HTTP:g");
    free(out);
    qc_assert_int_eq(res(BASE, "https:g", 1, URISAN_ABOVE_ROOT_CLAMP, &out, NULL, &e), URISAN_OK);
    qc_assert_str_eq(out, "https:g");
    free(out);
    qc_assert_int_eq(res(BASE, "http://x/./y", 1, URISAN_ABOVE_ROOT_CLAMP, &out, NULL, &e), URISAN_OK);
    qc_assert_str_eq(out, "http://x/y");
    free(out);
}
END_TEST

START_TEST(too_small_buffer_reports_needed_size_and_writes_nothing)
{
    char buf[64];
    size_t need = 0;
    urisan_error e;
    memset(buf, 'Z', sizeof buf);
    qc_assert_int_eq(urisan_resolve(BASE, strlen(BASE), "g", 1, NULL, buf, 13, &need, NULL, &e),
                     URISAN_E_NOSPACE);
    qc_assert_uint_eq(need, 14); /* "http://a/b/c/g" */
    for (size_t i = 0; i < sizeof buf; i++)
        qc_assert_int_eq(buf[i], 'Z');
    qc_assert_int_eq(urisan_resolve(BASE, strlen(BASE), "g", 1, NULL, buf, 14, &need, NULL, &e),
                     URISAN_OK);
    qc_assert_uint_eq(need, 14);
    qc_assert_int_eq(memcmp(buf, "http://a/b/c/g", 14), 0);
    qc_assert_int_eq(buf[14], 'Z'); /* no terminator written */
}
END_TEST

START_TEST(bad_arguments_are_rejected)
{
    char buf[64];
    size_t need;
    urisan_error e;
    urisan_resolve_opts o = { 0, (urisan_above_root)7, NULL };
    qc_assert_int_eq(urisan_resolve(BASE, strlen(BASE), "g", 1, &o, buf, sizeof buf, &need, NULL, &e),
                     URISAN_E_BAD_ARGUMENT);
    qc_assert_int_eq(urisan_resolve(NULL, 3, "g", 1, NULL, buf, sizeof buf, &need, NULL, &e),
                     URISAN_E_BAD_ARGUMENT);
    qc_assert_int_eq(urisan_resolve(BASE, strlen(BASE), "g", 1, NULL, buf, sizeof buf, NULL, NULL, &e),
                     URISAN_E_BAD_ARGUMENT);
    /* NULL err and flags are fine */
    qc_assert_int_eq(urisan_resolve(BASE, strlen(BASE), "g", 1, NULL, buf, sizeof buf, &need, NULL, NULL),
                     URISAN_OK);
}
END_TEST

/* ------------------------------------------------------------------ */
/* 1 MiB inputs: linear work (asserted by results only; never timed)    */
/* ------------------------------------------------------------------ */
static char *repeat(const char *head, const char *unit, size_t total, size_t *n)
{
    size_t hl = strlen(head), ul = strlen(unit);
    char *s = malloc(total);
    memcpy(s, head, hl);
    size_t k = hl;
    while (k + ul <= total) {
        memcpy(s + k, unit, ul);
        k += ul;
    }
    *n = k;
    return s;
}

START_TEST(one_mib_of_slash_dotdot_resolves_clamped_and_flagged)
{
    urisan_limits lim;
    raised_limits(&lim);
    urisan_resolve_opts o = { 0, URISAN_ABOVE_ROOT_CLAMP, &lim };
    size_t rn, n;
    char *ref = repeat("a", "/..", URISAN_HARD_CEILING - 64, &rn);
    char *out;
    urisan_flags fl;
    urisan_error e;
    qc_assert_int_eq(res_opt("http://h/x/y", 12, ref, rn, &o, &out, &n, &fl, &e), URISAN_OK);
    qc_assert_str_eq(out, "http://h/");
    qc_assert_uint_eq(fl, URISAN_F(DOT_SEGMENTS) | URISAN_F(DOT_ABOVE_ROOT));
    free(out);
    o.above_root = URISAN_ABOVE_ROOT_KEEP;
    qc_assert_int_eq(res_opt("http://h/x/y", 12, ref, rn, &o, &out, &n, &fl, &e), URISAN_OK);
    /* (rn - 1) / 3 ".." pop "a" and "x", the rest are kept; the final
       kept ".." stays without a "/" (seed draft step 6) */
    qc_assert_uint_eq(n, strlen("http://h") + 3 * ((rn - 1) / 3 - 2));
    qc_assert_int_eq(memcmp(out + n - 6, "/../..", 6), 0);
    free(out);
    o.above_root = URISAN_ABOVE_ROOT_REJECT;
    qc_assert_int_eq(res_opt("http://h/x/y", 12, ref, rn, &o, &out, &n, &fl, &e), URISAN_E_ABOVE_ROOT);
    qc_assert_uint_eq(e.offset, 8); /* the third "..": "a/../../.." */
    free(ref);
}
END_TEST

START_TEST(one_mib_of_dot_slash_resolves_to_the_base_directory)
{
    urisan_limits lim;
    raised_limits(&lim);
    urisan_resolve_opts o = { 0, URISAN_ABOVE_ROOT_CLAMP, &lim };
    size_t rn, n;
    char *ref = repeat("", "./", URISAN_HARD_CEILING - 64, &rn);
    char *out;
    urisan_flags fl;
    urisan_error e;
    qc_assert_int_eq(res_opt("http://h/x/y", 12, ref, rn, &o, &out, &n, &fl, &e), URISAN_OK);
    qc_assert_str_eq(out, "http://h/x/");
    qc_assert_uint_eq(fl, URISAN_F(DOT_SEGMENTS));
    free(out);
    free(ref);
}
END_TEST

START_TEST(one_mib_of_pct2e_pct2e_slash_is_kept_raw_and_flagged)
{
    urisan_limits lim;
    raised_limits(&lim);
    urisan_resolve_opts o = { 0, URISAN_ABOVE_ROOT_CLAMP, &lim };
    size_t rn, n;
    char *ref = repeat("", "%2e%2e/", URISAN_HARD_CEILING - 64, &rn);
    char *out;
    urisan_flags fl;
    urisan_error e;
    qc_assert_int_eq(res_opt("http://h/x/y", 12, ref, rn, &o, &out, &n, &fl, &e), URISAN_OK);
    qc_assert_uint_eq(n, strlen("http://h/x/") + rn);
    qc_assert_uint_eq(fl, URISAN_F(DOT_SEGMENTS) | URISAN_F(ENCODED_DOT) | URISAN_F(DOT_ABOVE_ROOT));
    free(out);
    free(ref);
}
END_TEST

/* ------------------------------------------------------------------ */
/* dots.c against independent oracles, on every short path              */
/* ------------------------------------------------------------------ */

/* RFC 3986 5.2.4, transcribed literally (quadratic; test only). *above
   counts ".." that found nothing to remove. */
static size_t literal_rds(const char *in, size_t n, char *out, size_t *above)
{
    char *b = malloc(n + 1);
    memcpy(b, in, n);
    size_t s = 0, ol = 0;
    *above = 0;
#define POP()                                              \
    do {                                                   \
        if (ol == 0)                                       \
            (*above)++;                                    \
        else {                                             \
            while (ol > 0 && out[ol - 1] != '/')           \
                ol--;                                      \
            if (ol > 0)                                    \
                ol--;                                      \
        }                                                  \
    } while (0)
    while (s < n) {
        const char *p = b + s;
        size_t r = n - s;
        if (r >= 3 && memcmp(p, "../", 3) == 0) {         /* A */
            s += 3;
            (*above)++;
        } else if (r >= 2 && memcmp(p, "./", 2) == 0) {   /* A */
            s += 2;
        } else if (r >= 3 && memcmp(p, "/./", 3) == 0) {  /* B */
            s += 2;
        } else if (r == 2 && memcmp(p, "/.", 2) == 0) {   /* B */
            s += 1;
            b[s] = '/';
        } else if (r >= 4 && memcmp(p, "/../", 4) == 0) { /* C */
            s += 3;
            POP();
        } else if (r == 3 && memcmp(p, "/..", 3) == 0) {  /* C */
            s += 2;
            b[s] = '/';
            POP();
        } else if (r == 1 && p[0] == '.') {               /* D */
            s = n;
        } else if (r == 2 && memcmp(p, "..", 2) == 0) {   /* D */
            s = n;
            (*above)++;
        } else {                                          /* E */
            size_t k = (p[0] == '/') ? 1 : 0;
            while (k < r && p[k] != '/')
                k++;
            memcpy(out + ol, p, k);
            ol += k;
            s += k;
        }
    }
#undef POP
    free(b);
    return ol;
}

/* The segment model of KEEP (seed draft 5.2 steps 3-7) and RELREF, with
   a left-to-right stack. */
static size_t stack_rds(const char *in, size_t n, unsigned mode, char *out, size_t *above)
{
    const char *seg[64];
    size_t len[64], sp = 0, kept = 0, k = 0;
    bool rooted = n > 0 && in[0] == '/';
    *above = 0;
    if (n == 0)
        return 0;
    size_t i = rooted ? 1 : 0;
    for (;;) {
        size_t e = i;
        while (e < n && in[e] != '/')
            e++;
        bool last = e == n, kept_now = false;
        size_t l = e - i;
        bool dot = l == 1 && in[i] == '.', dotdot = l == 2 && in[i] == '.' && in[i + 1] == '.';
        if (dotdot) {
            if (sp > 0) {
                sp--;
            } else {
                (*above)++;
                kept++;
                kept_now = true;
            }
        } else if (!dot && l == 0 && !rooted && mode == URISAN_DOTS_KEEP && sp == 0 &&
                   kept == 0 && !last) {
            /* the draft's string: "t/..//x" -> "/x", a root from here on */
            rooted = true;
        } else if (!dot) {
            seg[sp] = in + i;
            len[sp++] = l;
        }
        /* "a/." -> "a/", "a/b/.." -> "a/", but a kept final ".." stays */
        if ((dot || (dotdot && !kept_now)) && last) {
            seg[sp] = in + e;
            len[sp++] = 0;
        }
        if (last)
            break;
        i = e + 1;
    }
    if (rooted) {
        for (size_t j = 0; j < kept; j++)
            k += (size_t)sprintf(out + k, "/..");
        for (size_t j = 0; j < sp; j++) {
            out[k++] = '/';
            memcpy(out + k, seg[j], len[j]);
            k += len[j];
        }
        return k;
    }
    if (mode == URISAN_DOTS_RELREF && kept == 0 && sp > 0 &&
        (len[0] == 0 || memchr(seg[0], ':', len[0])))
        k += (size_t)sprintf(out + k, "./");
    size_t parts = 0;
    for (size_t j = 0; j < kept; j++, parts++)
        k += (size_t)sprintf(out + k, parts ? "/.." : "..");
    for (size_t j = 0; j < sp; j++, parts++) {
        if (parts)
            out[k++] = '/';
        memcpy(out + k, seg[j], len[j]);
        k += len[j];
    }
    return k;
}

/* Every string of length 0..8 over "a./:" ("/" and "." matter, "a" and
   ":" are ordinary characters). */
#define ALPHA_N 4
static const char alpha[ALPHA_N] = { 'a', '.', '/', ':' };

static size_t nth_path(size_t idx, char *s)
{
    size_t len = 0, count = 1;
    while (idx >= count) {
        idx -= count;
        count *= ALPHA_N;
        len++;
    }
    for (size_t j = 0; j < len; j++) {
        s[j] = alpha[idx % ALPHA_N];
        idx /= ALPHA_N;
    }
    return len;
}
#define NPATHS (1 + 4 + 16 + 64 + 256 + 1024 + 4096 + 16384 + 65536)

START_TEST(remove_dot_segments_equals_literal_rfc_transcription_on_all_short_paths)
{
    char in[16], want[64], got[64];
    for (size_t idx = 0; idx < NPATHS; idx++) {
        size_t n = nth_path(idx, in), above;
        size_t wl = literal_rds(in, n, want, &above);
        urisan_dots_info di;
        urisan_remove_dots(in, n, NULL, 0, URISAN_DOTS_RFC, got, sizeof got, &di);
        qc_assert_msg(di.len == wl && memcmp(got, want, wl) == 0,
                      "\"%.*s\": got \"%.*s\", RFC 5.2.4 gives \"%.*s\"", (int)n, in,
                      (int)di.len, got, (int)wl, want);
        qc_assert_msg(di.above == above, "\"%.*s\": above %zu, literal %zu", (int)n, in,
                      di.above, above);
        /* split into a ++ b: the same */
        size_t cuts[3] = { 0, n / 2, n };
        for (int c = 0; c < 3; c++) {
            size_t cut = cuts[c];
            urisan_dots_info d2;
            urisan_remove_dots(in, cut, in + cut, n - cut, URISAN_DOTS_RFC, got, sizeof got, &d2);
            qc_assert(d2.len == wl && memcmp(got, want, wl) == 0 && d2.above == above);
        }
        /* NOAUTH: never "//" at the start; dropping the "/." gives 5.2.4 */
        urisan_remove_dots(in, n, NULL, 0, URISAN_DOTS_RFC | URISAN_DOTS_NOAUTH, got, sizeof got, &di);
        qc_assert(!(di.len >= 2 && got[0] == '/' && got[1] == '/'));
        if (wl >= 2 && want[0] == '/' && want[1] == '/')
            qc_assert(di.len == wl + 2 && memcmp(got, "/.", 2) == 0 && memcmp(got + 2, want, wl) == 0);
        else
            qc_assert(di.len == wl && memcmp(got, want, wl) == 0);
    }
}
END_TEST

START_TEST(keep_and_relref_modes_equal_a_segment_stack_on_all_short_paths)
{
    static const unsigned modes[2] = { URISAN_DOTS_KEEP, URISAN_DOTS_RELREF };
    char in[16], want[96], got[96];
    for (size_t idx = 0; idx < NPATHS; idx++) {
        size_t n = nth_path(idx, in);
        for (int m = 0; m < 2; m++) {
            size_t above;
            size_t wl = stack_rds(in, n, modes[m], want, &above);
            if (modes[m] == URISAN_DOTS_RELREF && n > 0 && in[0] == '/') {
                /* RELREF on an absolute path is 5.2.4 (clamp) */
                wl = literal_rds(in, n, want, &above);
            }
            urisan_dots_info di;
            urisan_remove_dots(in, n, NULL, 0, modes[m], got, sizeof got, &di);
            qc_assert_msg(di.len == wl && memcmp(got, want, wl) == 0,
                          "mode %u \"%.*s\": got \"%.*s\", stack gives \"%.*s\"", modes[m],
                          (int)n, in, (int)di.len, got, (int)wl, want);
            qc_assert_uint_eq(di.above, above);
            /* idempotent: the result has no dot segment left to remove */
            urisan_dots_info d2;
            char again[96];
            urisan_remove_dots(got, di.len, NULL, 0, modes[m], again, sizeof again, &d2);
            qc_assert_msg(d2.len == di.len && memcmp(again, got, di.len) == 0,
                          "mode %u not idempotent on \"%.*s\"", modes[m], (int)di.len, got);
        }
    }
}
END_TEST

/* doc/resolve.md / seed draft 5.2 and C.2 ("/./g = http://a/./g"): in
   keep (RFC 2396) mode the dot steps belong to the merge; a reference with a
   scheme, an authority or an absolute path keeps its path as written.
   The flags are still judged on that path, in every mode. */
START_TEST(keep_copies_unmerged_reference_paths_as_the_seed_draft_does)
{
    static const struct { const char *ref, *keep, *clamp; } rows[] = {
        { "/./g", "http://a/./g", "http://a/g" },
        { "/a/b/../c", "http://a/a/b/../c", "http://a/a/c" },
        { "/../g", "http://a/../g", "http://a/g" },
        { "//g/./x/../y", "http://g/./x/../y", "http://g/y" },
        { "g:/a/./b/../c", "g:/a/./b/../c", "g:/a/c" },
        /* merged paths still go through the draft's steps 3-7 */
        { "./g/../h", "http://a/b/c/h", "http://a/b/c/h" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char *out;
        urisan_flags fk, fc;
        urisan_error e;
        qc_assert_int_eq(res(BASE, rows[i].ref, 0, URISAN_ABOVE_ROOT_KEEP, &out, &fk, &e),
                         URISAN_OK);
        qc_assert_msg(strcmp(out, rows[i].keep) == 0, "keep %s -> %s, want %s", rows[i].ref,
                      out, rows[i].keep);
        free(out);
        qc_assert_int_eq(res(BASE, rows[i].ref, 0, URISAN_ABOVE_ROOT_CLAMP, &out, &fc, &e),
                         URISAN_OK);
        qc_assert_msg(strcmp(out, rows[i].clamp) == 0, "clamp %s -> %s, want %s", rows[i].ref,
                      out, rows[i].clamp);
        free(out);
        qc_assert_uint_eq(fk, fc);
        qc_assert(fk & URISAN_F(DOT_SEGMENTS));
    }
    /* non-strict: "http:/./g" is the absolute path "/./g" */
    char *out;
    urisan_error e;
    qc_assert_int_eq(res(BASE, "http:/./g", 1, URISAN_ABOVE_ROOT_KEEP, &out, NULL, &e), URISAN_OK);
    qc_assert_str_eq(out, "http://a/./g");
    free(out);
    /* reject is unchanged: "/../g" climbs above the root */
    qc_assert_int_eq(res(BASE, "/../g", 0, URISAN_ABOVE_ROOT_REJECT, &out, NULL, &e),
                     URISAN_E_ABOVE_ROOT);
}
END_TEST

START_TEST(remove_dot_segments_writes_nothing_when_it_does_not_fit)
{
    char out[8];
    urisan_dots_info di;
    memset(out, 'Z', sizeof out);
    urisan_remove_dots("/a/b/c/d", 8, NULL, 0, URISAN_DOTS_RFC, out, 7, &di);
    qc_assert_uint_eq(di.len, 8);
    for (size_t i = 0; i < sizeof out; i++)
        qc_assert_int_eq(out[i], 'Z');
}
END_TEST

/* An empty reference may come as (NULL, 0): the base without its
   fragment, and no arithmetic on or libc call with NULL (UBSan). */
START_TEST(null_empty_reference_resolves_to_the_base)
{
    char buf[32];
    size_t need = 0;
    urisan_error e;
    qc_assert_int_eq(urisan_resolve("http://a/b?q#f", 14, NULL, 0, NULL, buf, sizeof buf, &need,
                                    NULL, &e),
                     URISAN_OK);
    qc_assert_uint_eq(need, 12);
    qc_assert(memcmp(buf, "http://a/b?q", 12) == 0);
    qc_assert_int_eq(urisan_resolve("http://a/b", 10, NULL, 0, NULL, NULL, 0, &need, NULL, &e),
                     URISAN_E_NOSPACE);
    qc_assert_int_eq(urisan_resolve(NULL, 0, NULL, 0, NULL, buf, sizeof buf, &need, NULL, &e),
                     URISAN_E_BASE_NOT_ABSOLUTE);
}
END_TEST

static Suite *resolve_suite(void)
{
    Suite *s = suite_create("resolve");
    TCase *tc = testdata_tcase(s, "vectors_shared_data");
    tcase_add_test(tc, rfc3986_section_5_4_examples_resolve_as_written);
    tcase_add_test(tc, uriparser_resolve_vectors_agree_except_listed_differences);
    tcase_add_test(tc, go_url_resolve_vectors_all_agree);
    tcase_add_test(tc, python_urljoin_vectors_agree_except_listed_differences);

    tc = tcase_create("vectors");
    tcase_add_loop_test(tc, seed_draft_appendix_c_examples_resolve_in_their_mode, 0,
                        sizeof appendix_c / sizeof appendix_c[0]);
    tcase_add_loop_test(tc, each_listed_difference_gives_urisans_documented_answer, 0, NDIFF);
    suite_add_tcase(s, tc);

    tc = tcase_create("behaviour");
    tcase_add_loop_test(tc, path_starting_with_two_slashes_without_authority_gets_dot_prefix, 0,
                        sizeof hazards / sizeof hazards[0]);
    tcase_add_test(tc, dot_above_root_is_reported_in_clamp_and_keep);
    tcase_add_test(tc, above_root_reject_reports_offset_of_first_climbing_dotdot);
    tcase_add_test(tc, pct2e_dotdot_is_judged_as_dot_segment_but_resolved_verbatim);
    tcase_add_test(tc, dots_in_a_verbatim_base_path_are_reported);
    tcase_add_test(tc, base_without_scheme_is_base_not_absolute);
    tcase_add_test(tc, invalid_base_or_reference_reports_parse_error_and_which_input);
    tcase_add_test(tc, base_fragment_is_ignored);
    tcase_add_test(tc, non_strict_ignores_same_scheme_in_any_case_only);
    tcase_add_test(tc, too_small_buffer_reports_needed_size_and_writes_nothing);
    tcase_add_test(tc, bad_arguments_are_rejected);
    suite_add_tcase(s, tc);

    tc = tcase_create("linear");
    tcase_add_test(tc, one_mib_of_slash_dotdot_resolves_clamped_and_flagged);
    tcase_add_test(tc, one_mib_of_dot_slash_resolves_to_the_base_directory);
    tcase_add_test(tc, one_mib_of_pct2e_pct2e_slash_is_kept_raw_and_flagged);
    suite_add_tcase(s, tc);

    tc = tcase_create("dots");
    tcase_add_test(tc, remove_dot_segments_equals_literal_rfc_transcription_on_all_short_paths);
    tcase_add_test(tc, keep_and_relref_modes_equal_a_segment_stack_on_all_short_paths);
    tcase_add_test(tc, remove_dot_segments_writes_nothing_when_it_does_not_fit);
    tcase_add_test(tc, keep_copies_unmerged_reference_paths_as_the_seed_draft_does);
    tcase_add_test(tc, null_empty_reference_resolves_to_the_base);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (testdata_skip())
        return 77;
    SRunner *sr = srunner_create(resolve_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
