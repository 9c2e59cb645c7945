/*
 * test_normalize.c - RFC 3986 6.2.2 / 6.2.3 normalisation and
 * equivalence (src/normalize.c, src/dots.c).
 *
 * Vectors: rfc3986-normalize.tsv, uriparser-normalize.tsv and
 * uriparser-normalize-mask.tsv in ../shared/data/vectors; properties
 * (idempotent, valid, re-parses to the computed components) over every
 * line of the ../shared/data/urls lists. Deliberate differences are listed in
 * `differences` with the reason.
 */
#include "internal.h"
#include "reparse.h"
#include "quiet_check.h"
#include "testdata.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Normalise with an exact-size buffer (ASan catches one byte too many),
   check *needed and the re-parse; *out is NUL-terminated, caller frees. */
static urisan_status norm_lim(const char *in, size_t len, const urisan_limits *lim,
                              char **out, size_t *n, urisan_error *e)
{
    size_t need = 123, need2 = 0;
    urisan_parts pt;

    *out = NULL;
    *n = 0;
    urisan_status st = urisan_normalize_ex(in, len, lim, NULL, 0, &need, e, NULL);
    if (st != URISAN_OK && st != URISAN_E_NOSPACE) {
        qc_assert_uint_eq(need, 0);
        return st;
    }
    char *buf = malloc(need ? need : 1);
    st = urisan_normalize_ex(in, len, lim, buf, need, &need2, e, &pt);
    qc_assert_int_eq(st, URISAN_OK);
    qc_assert_uint_eq(need2, need);
    qc_assert_msg(reparses_to(buf, need, &pt), "normal form re-parses differently");
    /* with room to spare (cap >= len + 2: the one-pass path), the same
       bytes, their NUL, and nothing written past it */
    size_t big = (len > need ? len : need) + 2 + 16, need3 = 0;
    char *roomy = malloc(big);
    memset(roomy, 0x5a, big);
    qc_assert_int_eq(urisan_normalize(in, len, lim, roomy, big, &need3, e), URISAN_OK);
    qc_assert_uint_eq(need3, need);
    qc_assert_int_eq(memcmp(roomy, buf, need), 0);
    qc_assert_msg(roomy[need] == '\0', "no NUL after the %zu-byte result", need);
    size_t past = need + 1;
    while (past < big && roomy[past] == 0x5a)
        past++;
    qc_assert_msg(past == big, "byte %zu written past the %zu-byte result", past, need);
    qc_assert_msg(need <= len + 2, "normal form %zu bytes, input %zu", need, len);
    free(roomy);
    *out = malloc(need + 1);
    memcpy(*out, buf, need);
    (*out)[need] = '\0';
    *n = need;
    free(buf);
    return st;
}

static urisan_status norm(const char *in, char **out, urisan_error *e)
{
    size_t n;
    return norm_lim(in, strlen(in), NULL, out, &n, e);
}

static int field_is(const tsv_file *t, int col, const char *lit)
{
    return t->flen[col] == strlen(lit) && memcmp(t->f[col], lit, t->flen[col]) == 0;
}

/* ------------------------------------------------------------------ */
/* Deliberate differences                                              */
/* ------------------------------------------------------------------ */
#define DOT_SLASH_WHY                                                       \
    "the empty reference is the same document (RFC 3986 4.4) and resolves " \
    "to the base itself; this path resolves to the base's directory, which " \
    "\"./\" says (uriparser gives \"\")"
#define SCHEME_PORT_WHY                                                     \
    "urisan also applies 6.2.3 / 3.2.3 (default and empty port omitted); "  \
    "uriparser's normalisation is syntax-only"

typedef struct {
    const char *file, *input, *theirs, *ours, *why;
} diff_row;

static const diff_row differences[] = {
    { "uriparser-normalize.tsv", "abc/..", "", "./", DOT_SLASH_WHY },
    { "uriparser-normalize.tsv", "abc/../", "", "./", DOT_SLASH_WHY },
    { "uriparser-normalize.tsv", "a/b/c/../../..", "", "./", DOT_SLASH_WHY },
    { "uriparser-normalize.tsv", "a/b/../../c/..", "", "./", DOT_SLASH_WHY },
#define EMPTY_PATH_WHY                                                      \
    "6.2.3: an empty path with an authority is \"/\" for http and https; "  \
    "uriparser's normalisation is syntax-only"
    { "uriparser-normalize.tsv", "http://user:pass@SOMEHOST.COM:123",
      "http://user:pass@somehost.com:123", "http://user:pass@somehost.com:123/",
      EMPTY_PATH_WHY },
    { "uriparser-normalize.tsv", "https://%e4%bd%a0%e5%a5%bd%e4%bd%a0%e5%a5%bd.com",
      "https://%E4%BD%A0%E5%A5%BD%E4%BD%A0%E5%A5%BD.com",
      "https://%E4%BD%A0%E5%A5%BD%E4%BD%A0%E5%A5%BD.com/", EMPTY_PATH_WHY },
    { "uriparser-normalize.tsv", "https://[2041:0000:140F::875B:131B]",
      "https://[2041:0000:140f::875b:131b]", "https://[2041:0000:140f::875b:131b]/",
      EMPTY_PATH_WHY },
    { "uriparser-normalize-mask.tsv", "https://localhost:443/", "https://localhost:443/",
      "https://localhost/", SCHEME_PORT_WHY },
    { "uriparser-normalize-mask.tsv", "https://localhost:/", "https://localhost:/",
      "https://localhost/", SCHEME_PORT_WHY },
};
#define NDIFF (sizeof differences / sizeof differences[0])

static const diff_row *find_diff(const char *file, const char *in, size_t n)
{
    for (size_t i = 0; i < NDIFF; i++)
        if (strcmp(differences[i].file, file) == 0 && strlen(differences[i].input) == n &&
            memcmp(differences[i].input, in, n) == 0)
            return &differences[i];
    return NULL;
}

START_TEST(each_listed_difference_gives_urisans_documented_answer)
{
    const diff_row *d = &differences[_i];
    char *out;
    urisan_error e;
    qc_assert_int_eq(norm(d->input, &out, &e), URISAN_OK);
    qc_assert_msg(strcmp(out, d->ours) == 0, "%s -> %s (documented: %s, because %s)", d->input,
                  out, d->ours, d->why);
    ck_assert_str_ne(out, d->theirs);
    free(out);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Vector files                                                        */
/* ------------------------------------------------------------------ */
START_TEST(rfc3986_normalize_vectors_all_agree)
{
    tsv_file t;
    if (!tsv_open(&t, "rfc3986-normalize.tsv"))
        return;
    int ic = tsv_col(&t, "input"), ec = tsv_col(&t, "expected");
    size_t rows = 0, agree = 0;
    while (tsv_next(&t)) {
        char *out;
        size_t n;
        urisan_error e;
        rows++;
        qc_assert_int_eq(norm_lim(t.f[ic], t.flen[ic], NULL, &out, &n, &e), URISAN_OK);
        qc_assert_msg(n == t.flen[ec] && memcmp(out, t.f[ec], n) == 0, "line %zu: %.*s -> %s, want %.*s",
                      t.lineno, (int)t.flen[ic], t.f[ic], out, (int)t.flen[ec], t.f[ec]);
        agree++;
        free(out);
    }
    printf("rfc3986-normalize.tsv: %zu/%zu agree\n", agree, rows);
    qc_assert_uint_eq(rows, 18);
    tsv_close(&t);
}
END_TEST

/*
 * mask ALL rows: the full normal form must be the expected string.
 * Component-mask rows (uriparser normalised one component only): the
 * partly normalised string must be equivalent to the input.
 */
START_TEST(uriparser_normalize_vectors_agree_except_listed_differences)
{
    tsv_file t;
    if (!tsv_open(&t, "uriparser-normalize.tsv"))
        return;
    int ic = tsv_col(&t, "input"), ec = tsv_col(&t, "expected"), mc = tsv_col(&t, "mask");
    size_t rows = 0, exact = 0, equiv = 0, differ = 0;
    while (tsv_next(&t)) {
        rows++;
        if (find_diff("uriparser-normalize.tsv", t.f[ic], t.flen[ic])) {
            differ++;
            continue;
        }
        if (!field_is(&t, mc, "ALL")) {
            char work[1024];
            size_t need;
            int eq = -1;
            urisan_error e;
            qc_assert_int_eq(urisan_equivalent(t.f[ic], t.flen[ic], t.f[ec], t.flen[ec], NULL, work,
                                               sizeof work, &need, &eq, &e),
                             URISAN_OK);
            qc_assert_msg(eq == 1, "line %zu: %.*s and its partial normal form %.*s differ",
                          t.lineno, (int)t.flen[ic], t.f[ic], (int)t.flen[ec], t.f[ec]);
            equiv++;
            continue;
        }
        char *out;
        size_t n;
        urisan_error e;
        qc_assert_int_eq(norm_lim(t.f[ic], t.flen[ic], NULL, &out, &n, &e), URISAN_OK);
        qc_assert_msg(n == t.flen[ec] && memcmp(out, t.f[ec], n) == 0, "line %zu: %.*s -> %s, want %.*s",
                      t.lineno, (int)t.flen[ic], t.f[ic], out, (int)t.flen[ec], t.f[ec]);
        exact++;
        free(out);
    }
    printf("uriparser-normalize.tsv: %zu/%zu agree (%zu exact, %zu component rows equivalent), "
           "%zu listed differences\n", exact + equiv, rows, exact, equiv, differ);
    qc_assert_uint_eq(rows, 55);
    tsv_close(&t);
}
END_TEST

/* URI_NORMALIZED rows are their own normal form; the others are not. */
START_TEST(uriparser_normalize_mask_vectors_agree_except_listed_differences)
{
    tsv_file t;
    if (!tsv_open(&t, "uriparser-normalize-mask.tsv"))
        return;
    int ic = tsv_col(&t, "input"), mc = tsv_col(&t, "components_needing_normalization");
    size_t rows = 0, agree = 0, differ = 0;
    while (tsv_next(&t)) {
        char *out;
        size_t n;
        urisan_error e;
        rows++;
        qc_assert_int_eq(norm_lim(t.f[ic], t.flen[ic], NULL, &out, &n, &e), URISAN_OK);
        int unchanged = n == t.flen[ic] && memcmp(out, t.f[ic], n) == 0;
        if (find_diff("uriparser-normalize-mask.tsv", t.f[ic], t.flen[ic])) {
            differ++;
        } else {
            qc_assert_msg(unchanged == field_is(&t, mc, "URI_NORMALIZED"),
                          "line %zu: %.*s -> %s", t.lineno, (int)t.flen[ic], t.f[ic], out);
            agree++;
        }
        free(out);
    }
    printf("uriparser-normalize-mask.tsv: %zu/%zu agree, %zu listed differences\n", agree, rows,
           differ);
    qc_assert_uint_eq(rows, 13);
    tsv_close(&t);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Behaviour table                                                     */
/* ------------------------------------------------------------------ */
typedef struct {
    const char *in, *out;
} norm_row;

static const norm_row cases[] = {
    /* 6.2.2.1 case; 6.2.2.2 decode unreserved only; 6.2.2.3 dots */
    { "HTTP://Example.COM:80/%7euser/%2e%2E/x?%41#%41", "http://example.com/x?A#A" },
    { "http://h/a/%2e%2e/%2E%2e/b", "http://h/b" },
    { "http://h/a/.%2E/b", "http://h/b" },
    { "http://h/%2e%2e%2f", "http://h/..%2F" },          /* %2f is no separator */
    { "http://h/a%2Fb%2fc", "http://h/a%2Fb%2Fc" },
    { "http://h/%3a%40%3F%23%5b%5D", "http://h/%3A%40%3F%23%5B%5D" },
    { "http://h/%00%0a%0D%1f%7f%20", "http://h/%00%0A%0D%1F%7F%20" },
    { "http://h/%c0%ae%C0%af%e2%82%ac%ff", "http://h/%C0%AE%C0%AF%E2%82%AC%FF" },
    { "http://h/%25%2541%252e", "http://h/%25%2541%252e" }, /* never twice */
    { "http://h/%41%5a%61%7a%30%39%2d%2e%5f%7e", "http://h/AZaz09-._~" },
    { "http://h/?%2e%2e/./..#/../%7E", "http://h/?.././..#/../~" }, /* no dots there */
    /* hosts */
    { "http://Ex%41mple.COM/", "http://example.com/" },
    { "http://a%2Eb/", "http://a.b/" },
    { "http://%c3%a9.Example/", "http://%C3%A9.example/" },
    { "http://[2001:DB8::A]/", "http://[2001:db8::a]/" },
    { "http://[FE80::1%25En0]/", "http://[fe80::1%25En0]/" },
    { "http://[fe80::1%25en%4a%4B]/", "http://[fe80::1%25en%4A%4B]/" },
    { "http://[V1.AbC]/", "http://[v1.abc]/" },
    { "http://127.0.0.1/", "http://127.0.0.1/" },
    { "http://%41:%62%3a@H/", "http://A:b%3A@h/" },
    /* 3.2.3 / 6.2.3 ports */
    { "http://h:080/", "http://h/" },
    { "http://h:/", "http://h/" },
    { "foo://h:/", "foo://h/" },
    { "http://h:8080", "http://h:8080/" },
    { "http://h:08080/", "http://h:8080/" },
    { "https://h:443", "https://h/" },
    { "HTTPS://h:80/", "https://h:80/" },
    { "ws://h:80", "ws://h/" },
    { "wss://h:443?q", "wss://h/?q" },
    { "ftp://h:21", "ftp://h" },
    { "foo://h:00", "foo://h:0" },
    { "//h:80/", "//h:80/" },                             /* no scheme, no default */
    /* 6.2.3 empty path */
    { "http://h", "http://h/" },
    { "http://h?q", "http://h/?q" },
    { "http://h#f", "http://h/#f" },
    { "http:", "http:" },
    { "file://", "file://" },
    { "http://h/?", "http://h/?" },
    { "http://h/#", "http://h/#" },
    /* mailto (6.2.3 example): the domain only */
    { "mailto:Joe@Example.COM", "mailto:Joe@example.com" },
    { "mailto:A@B.COM,C@D.ORG?subject=Hi%2c", "mailto:A@b.com,C@d.org?subject=Hi%2C" },
    /* RFC 6068 2: a quoted local part may hold "@"; the domain follows
       the last one (urisan_mailto_domain), the local part keeps its case */
    { "mailto:%22A@B%22@EX.COM", "mailto:%22A@B%22@ex.com" },
    { "mailto:no-at,X@Y.ORG", "mailto:no-at,X@y.org" },
    /* the hazards: no authority out of a path, no scheme out of a segment */
    { "scheme:..///foo/bar", "scheme:/.//foo/bar" },       /* uriparser #334 */
    { "scheme:/.//foo/bar", "scheme:/.//foo/bar" },
    { "scheme:/a/..//foo", "scheme:/.//foo" },
    { "scheme:a/..//foo", "scheme:/.//foo" },
    { "/.//foo/bar", "/.//foo/bar" },
    { "/%2e//foo", "/.//foo" },
    { ".//foo/bar", ".//foo/bar" },
    { "a/..//foo", ".//foo" },
    { "./a:b", "./a:b" },
    { "./%61:b", "./a:b" },
    { "x/../a:b", "./a:b" },
    { "scheme://h/.//foo", "scheme://h//foo" },           /* authority: fine */
    /* relative-path references keep their leading ".." (4.2) */
    { "../a/./b/../c", "../a/c" },
    { "..", ".." },
    { "../..", "../.." },
    { "../../", "../../" },
    { "%2e%2e/x", "../x" },
    { ".", "./" },
    { "./", "./" },
    { "", "" },
    { "?q", "?q" },
    { "#f", "#f" },
    { "a/b/../../../c", "../c" },
    /* with a scheme, a rootless path follows 5.2.4 as written */
    { "foo:a/../b", "foo:/b" },
    { "foo:./a", "foo:a" },
    { "foo:../a", "foo:a" },
    { "foo:..", "foo:" },
    { "urn:ISBN:0-395", "urn:ISBN:0-395" },
    /* absolute paths are clamped (RFC 3986) */
    { "/../a", "/a" },
    { "http://h/../../a/..", "http://h/" },
};

START_TEST(normal_form_of_each_case)
{
    char *out;
    urisan_error e;
    qc_assert_int_eq(norm(cases[_i].in, &out, &e), URISAN_OK);
    qc_assert_msg(strcmp(out, cases[_i].out) == 0, "%s -> %s, want %s", cases[_i].in, out,
                  cases[_i].out);
    /* and it is its own normal form */
    char *again;
    qc_assert_int_eq(norm(out, &again, &e), URISAN_OK);
    qc_assert_str_eq(again, out);
    free(again);
    free(out);
}
END_TEST

START_TEST(invalid_input_returns_the_parse_error)
{
    static const struct {
        const char *in;
        urisan_status code;
        size_t off;
    } bad[] = {
        { "http://a b/", URISAN_E_BAD_HOST, 8 },
        { "http://h/%zz", URISAN_E_BAD_ESCAPE, 9 },
        { "http://h:99999/", URISAN_E_PORT_RANGE, 9 },
        { "a:b c", URISAN_E_BAD_PATH, 3 },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *out;
        urisan_error e;
        qc_assert_int_eq(norm(bad[i].in, &out, &e), bad[i].code);
        qc_assert_int_eq(e.code, bad[i].code);
        qc_assert_uint_eq(e.offset, bad[i].off);
        qc_assert_uint_eq(e.input, 0);
    }
}
END_TEST

START_TEST(too_small_buffer_reports_needed_size_and_writes_nothing)
{
    char buf[32];
    size_t need = 0;
    urisan_error e;
    const char *in = "HTTP://H:80";
    memset(buf, 'Z', sizeof buf);
    qc_assert_int_eq(urisan_normalize(in, strlen(in), NULL, buf, 8, &need, &e), URISAN_E_NOSPACE);
    qc_assert_uint_eq(need, 9); /* "http://h/" */
    for (size_t i = 0; i < sizeof buf; i++)
        qc_assert_int_eq(buf[i], 'Z');
    qc_assert_int_eq(urisan_normalize(in, strlen(in), NULL, buf, 9, &need, &e), URISAN_OK);
    qc_assert_int_eq(memcmp(buf, "http://h/", 9), 0);
    qc_assert_int_eq(buf[9], 'Z');
    qc_assert_int_eq(urisan_normalize(in, strlen(in), NULL, NULL, 0, &need, &e), URISAN_E_NOSPACE);
    qc_assert_uint_eq(need, 9);
    qc_assert_int_eq(urisan_normalize(in, strlen(in), NULL, buf, 9, NULL, &e), URISAN_E_BAD_ARGUMENT);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Equivalence                                                         */
/* ------------------------------------------------------------------ */
typedef struct {
    const char *a, *b;
    int equal;
} eq_row;

static const eq_row eq_cases[] = {
    { "HTTP://www.EXAMPLE.com/", "http://www.example.com/", 1 },
    { "http://example.com", "http://example.com:80/", 1 },
    { "http://example.com/%7Euser", "http://example.com/~user", 1 },
    { "http://a/b/./c/../d", "http://a/b/d", 1 },
    { "http://a/%2e%2e/b", "http://a/b", 1 },
    { "http://a/%2F", "http://a//", 0 },          /* reserved stays reserved */
    { "http://a/%41", "http://a/a", 0 },          /* paths are case-sensitive */
    { "http://a/b", "http://a/b/", 0 },           /* 6.2.4 is not syntax */
    { "http://a:8080/", "http://a:80/", 0 },
    { "https://a:443/", "https://a/", 1 },
    { "http://a/?q", "http://a/?Q", 0 },
    { "http://a/#", "http://a/", 0 },             /* "#" is significant */
    { "mailto:Joe@Example.COM", "mailto:Joe@example.com", 1 },
    { "mailto:Joe@x", "mailto:joe@x", 0 },
    { "../a", "%2E%2E/a", 1 },
    { "abc/..", "", 0 },
};

START_TEST(equivalent_is_equality_of_normal_forms)
{
    const eq_row *r = &eq_cases[_i];
    char work[256];
    size_t need;
    int eq = -1;
    urisan_error e;
    qc_assert_int_eq(urisan_equivalent(r->a, strlen(r->a), r->b, strlen(r->b), NULL, work,
                                       sizeof work, &need, &eq, &e),
                     URISAN_OK);
    qc_assert_msg(eq == r->equal, "%s vs %s: %d", r->a, r->b, eq);
    qc_assert_int_eq(urisan_equivalent(r->b, strlen(r->b), r->a, strlen(r->a), NULL, work,
                                       sizeof work, &need, &eq, &e),
                     URISAN_OK);
    qc_assert_int_eq(eq, r->equal);
}
END_TEST

START_TEST(equivalent_reports_scratch_size_and_which_input_is_invalid)
{
    char work[64];
    size_t need = 0;
    int eq = -1;
    urisan_error e;
    const char *a = "HTTP://A/", *b = "http://a:80/";
    qc_assert_int_eq(urisan_equivalent(a, strlen(a), b, strlen(b), NULL, NULL, 0, &need, &eq, &e),
                     URISAN_E_NOSPACE);
    qc_assert_uint_eq(need, 18);
    qc_assert_int_eq(eq, 0);
    qc_assert_int_eq(urisan_equivalent(a, strlen(a), b, strlen(b), NULL, work, 12, &need, &eq, &e),
                     URISAN_E_NOSPACE);
    qc_assert_uint_eq(need, 18);
    qc_assert_int_eq(urisan_equivalent(a, strlen(a), b, strlen(b), NULL, work, 18, &need, &eq, &e),
                     URISAN_OK);
    qc_assert_int_eq(eq, 1);
    qc_assert_int_eq(urisan_equivalent("a b", 3, b, strlen(b), NULL, work, sizeof work, &need, &eq, &e),
                     URISAN_E_BAD_PATH);
    qc_assert_uint_eq(e.input, 0);
    qc_assert_uint_eq(e.offset, 1);
    qc_assert_int_eq(urisan_equivalent(a, strlen(a), "http://[x]/", 11, NULL, work, sizeof work, &need,
                                       &eq, &e),
                     URISAN_E_BAD_IPV6);
    qc_assert_uint_eq(e.input, 1);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Properties over the shared URL lists                                */
/* ------------------------------------------------------------------ */
static void check_list(const char *name)
{
    FILE *fp = testdata_open("urls", name);
    if (!fp)
        return;
    char *line = NULL;
    size_t cap = 0, lines = 0, valid = 0, changed = 0;
    ssize_t got;
    while ((got = getline(&line, &cap, fp)) >= 0) {
        size_t n = (size_t)got;
        if (n > 0 && line[n - 1] == '\n')
            n--;
        lines++;
        urisan_uri u;
        urisan_error pe, e;
        urisan_status ps = urisan_parse(line, n, NULL, &u, &pe);
        char *out;
        size_t on;
        urisan_status st = norm_lim(line, n, NULL, &out, &on, &e);
        if (ps != URISAN_OK) {
            /* invalid input is not normalised: the same error */
            qc_assert_msg(st == ps && e.offset == pe.offset, "%s:%zu: %s vs parse %s", name, lines,
                          urisan_status_name(st), urisan_status_name(ps));
            continue;
        }
        /* valid, and norm_lim checked it re-parses to its components */
        qc_assert_msg(st == URISAN_OK, "%s:%zu: %s", name, lines, urisan_status_name(st));
        valid++;
        changed += on != n || memcmp(out, line, n) != 0;
        char *again;
        size_t an;
        qc_assert_int_eq(norm_lim(out, on, NULL, &again, &an, &e), URISAN_OK);
        qc_assert_msg(an == on && memcmp(again, out, on) == 0,
                      "%s:%zu: not idempotent: %s -> %s", name, lines, out, again);
        free(again);
        free(out);
    }
    printf("%s: %zu lines, %zu valid (idempotent, valid normal form, same components), "
           "%zu changed by normalisation\n", name, lines, valid, changed);
    free(line);
    fclose(fp);
}

START_TEST(normalise_is_idempotent_and_valid_on_kasztp_urls)
{
    check_list("kasztp.txt");
}
END_TEST

START_TEST(normalise_is_idempotent_and_valid_on_isaacs_files_urls)
{
    check_list("isaacs_files.txt");
}
END_TEST

START_TEST(normalise_is_idempotent_and_valid_on_node_files_urls)
{
    check_list("node_files.txt");
}
END_TEST

START_TEST(normalise_is_idempotent_and_valid_on_userbait_urls)
{
    check_list("userbait.txt");
}
END_TEST

/* The same properties on every URI of the parser vector files. */
START_TEST(normalise_is_idempotent_on_parser_vector_inputs)
{
    static const struct {
        const char *file, *col;
    } files[] = {
        { "uriparser-parse.tsv", "uri" },
        { "curl-1560.tsv", "input" },
        { "go-url-parse.tsv", "input" },
        { "uriparser-resolve.tsv", "ref" },
        { "python-urljoin.tsv", "ref" },
    };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        tsv_file t;
        if (!tsv_open(&t, files[f].file))
            continue;
        int c = tsv_col(&t, files[f].col);
        size_t rows = 0, valid = 0;
        qc_assert(c >= 0);
        while (tsv_next(&t)) {
            char *out, *again;
            size_t on, an;
            urisan_error e;
            rows++;
            if (norm_lim(t.f[c], t.flen[c], NULL, &out, &on, &e) != URISAN_OK)
                continue;
            valid++;
            qc_assert_int_eq(norm_lim(out, on, NULL, &again, &an, &e), URISAN_OK);
            qc_assert_msg(an == on && memcmp(again, out, on) == 0, "%s:%zu: %s -> %s",
                          files[f].file, t.lineno, out, again);
            free(again);
            free(out);
        }
        printf("%s: %zu inputs, %zu valid, all idempotent\n", files[f].file, rows, valid);
        tsv_close(&t);
    }
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

static void big(const char *head, const char *unit, const char *want_head, size_t want_len)
{
    urisan_limits lim;
    raised_limits(&lim);
    size_t n, on;
    char *in = repeat(head, unit, URISAN_HARD_CEILING - 64, &n);
    char *out;
    urisan_error e;
    qc_assert_int_eq(norm_lim(in, n, &lim, &out, &on, &e), URISAN_OK);
    qc_assert_int_eq(strncmp(out, want_head, strlen(want_head)), 0);
    qc_assert_uint_eq(on, want_len == 0 ? strlen(want_head) : want_len);
    free(out);
    free(in);
}

START_TEST(one_mib_of_slash_dotdot_normalises_clamped)
{
    big("http://h", "/..", "http://h/", 0);
}
END_TEST

START_TEST(one_mib_of_dot_slash_normalises_to_root)
{
    big("http://h/", "./", "http://h/", 0);
}
END_TEST

START_TEST(one_mib_of_pct2e_pct2e_slash_normalises_to_root)
{
    big("http://h/", "%2e%2e/", "http://h/", 0);
}
END_TEST

START_TEST(one_mib_of_pct25_stays_as_it_is)
{
    size_t n;
    char *in = repeat("http://h/", "%25", URISAN_HARD_CEILING - 64, &n);
    free(in);
    big("http://h/", "%25", "http://h/%25%25", n);
}
END_TEST

START_TEST(one_mib_of_relative_dotdot_slash_is_kept)
{
    size_t n;
    char *in = repeat("", "../", URISAN_HARD_CEILING - 64, &n);
    free(in);
    big("", "../", "../../", n);
}
END_TEST

/* An empty input may come as (NULL, 0): an empty result, and no
   arithmetic on or libc call with the NULL pointer (UBSan). */
START_TEST(null_empty_input_normalizes_to_empty)
{
    char buf[16];
    size_t need = 99;
    urisan_error e;
    int eq = 0;
    qc_assert_int_eq(urisan_normalize(NULL, 0, NULL, buf, sizeof buf, &need, &e), URISAN_OK);
    qc_assert_uint_eq(need, 0);
    qc_assert_int_eq(urisan_normalize(NULL, 0, NULL, NULL, 0, &need, &e), URISAN_OK);
    qc_assert_uint_eq(need, 0);
    qc_assert_int_eq(urisan_equivalent(NULL, 0, NULL, 0, NULL, buf, sizeof buf, &need, &eq, &e),
                     URISAN_OK);
    qc_assert_int_eq(eq, 1);
    qc_assert_int_eq(urisan_equivalent(NULL, 0, "", 0, NULL, NULL, 0, &need, &eq, &e), URISAN_OK);
    qc_assert_int_eq(eq, 1);
}
END_TEST

/* urisan_mailto_domain: the domain of every address of a mailto: URI
   (RFC 6068 "to", "," apart; the domain follows an address's last "@"),
   the one reader of them for normalize, the host layer and mail. */
START_TEST(mailto_domain_reads_every_address)
{
    static const struct { const char *uri; const char *domains[4]; } mcases[] = {
        { "mailto:a@x.example", { "x.example" } },
        { "mailto:a@x.example,b@Y.example?subject=a@b,c", { "x.example", "Y.example" } },
        { "mailto:%22a@b%22@q.example", { "q.example" } },
        { "mailto:no-address,c@z.example,", { "z.example" } },
        { "MAILTO:a@", { "" } },
        { "mailto:?to=a@b.example", { NULL } },   /* hfields are not read */
        { "mailto:nobody", { NULL } },
        { "http://a@b.example/", { NULL } },      /* not mailto: */
        { "mailto://u@h.example/x", { NULL } },   /* a host: not an address */
        { "news:a@b.example", { NULL } },
    };
    for (size_t i = 0; i < sizeof mcases / sizeof mcases[0]; i++) {
        const char *in = mcases[i].uri;
        size_t len = strlen(in), pos = 0, k = 0;
        urisan_uri u;
        urisan_parse(in, len, NULL, &u, NULL);
        urisan_span d;
        while (urisan_mailto_domain(in, len, &u, &pos, &d)) {
            qc_assert_msg(k < 4 && mcases[i].domains[k] != NULL, "%s: one domain too many", in);
            qc_assert_uint_eq(d.len, strlen(mcases[i].domains[k]));
            qc_assert_msg(memcmp(in + d.off, mcases[i].domains[k], d.len) == 0,
                          "%s: domain %zu is '%.*s'", in, k, (int)d.len, in + d.off);
            k++;
        }
        qc_assert_msg(k == 4 || mcases[i].domains[k] == NULL, "%s: %zu domains only", in, k);
    }
    qc_assert_int_eq(urisan_mailto_domain(NULL, 0, NULL, NULL, NULL), 0);
}
END_TEST

static Suite *normalize_suite(void)
{
    Suite *s = suite_create("normalize");
    TCase *tc = testdata_tcase(s, "vectors");
    tcase_add_test(tc, rfc3986_normalize_vectors_all_agree);
    tcase_add_test(tc, uriparser_normalize_vectors_agree_except_listed_differences);
    tcase_add_test(tc, uriparser_normalize_mask_vectors_agree_except_listed_differences);

    tc = tcase_create("listed_differences");
    tcase_add_loop_test(tc, each_listed_difference_gives_urisans_documented_answer, 0, NDIFF);
    suite_add_tcase(s, tc);

    tc = tcase_create("behaviour");
    tcase_add_loop_test(tc, normal_form_of_each_case, 0, sizeof cases / sizeof cases[0]);
    tcase_add_test(tc, invalid_input_returns_the_parse_error);
    tcase_add_test(tc, mailto_domain_reads_every_address);
    tcase_add_test(tc, too_small_buffer_reports_needed_size_and_writes_nothing);
    tcase_add_loop_test(tc, equivalent_is_equality_of_normal_forms, 0,
                        sizeof eq_cases / sizeof eq_cases[0]);
    tcase_add_test(tc, equivalent_reports_scratch_size_and_which_input_is_invalid);
    suite_add_tcase(s, tc);

    tc = testdata_tcase(s, "properties");
    tcase_add_test(tc, normalise_is_idempotent_and_valid_on_kasztp_urls);
    tcase_add_test(tc, normalise_is_idempotent_and_valid_on_isaacs_files_urls);
    tcase_add_test(tc, normalise_is_idempotent_and_valid_on_node_files_urls);
    tcase_add_test(tc, normalise_is_idempotent_and_valid_on_userbait_urls);
    tcase_add_test(tc, normalise_is_idempotent_on_parser_vector_inputs);

    tc = tcase_create("linear");
    tcase_add_test(tc, one_mib_of_slash_dotdot_normalises_clamped);
    tcase_add_test(tc, one_mib_of_dot_slash_normalises_to_root);
    tcase_add_test(tc, one_mib_of_pct2e_pct2e_slash_normalises_to_root);
    tcase_add_test(tc, one_mib_of_pct25_stays_as_it_is);
    tcase_add_test(tc, one_mib_of_relative_dotdot_slash_is_kept);
    tcase_add_test(tc, null_empty_input_normalizes_to_empty);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (testdata_skip())
        return 77;
    SRunner *sr = srunner_create(normalize_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
