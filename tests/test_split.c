/*
 * test_split.c - the tolerant split equals the RFC 3986 Appendix B regex
 * (fuzz/README.md) on every line of the four ../shared/data/urls lists and
 * on every URI or reference held in a vector TSV of ../shared/data/vectors.
 *
 *   ^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?
 *    12             3  4          5       6  7        8 9
 *
 * scheme = $2 (present iff $1 matched), authority = $4 (iff $3), path = $5,
 * query = $7 (iff $6), fragment = $9 (iff $8). The authority is then split
 * by urisan's rules, written out again here independently of the
 * parser: userinfo precedes the LAST "@"; a host starting with "[" runs to
 * the first "]" and a port follows a ":" right after it; otherwise the port
 * follows the last ":". Recomposing the parts must give back the input
 * byte for byte.
 *
 * The oracle is POSIX regcomp(REG_EXTENDED) run with REG_STARTEND in the C
 * locale, so any byte - NUL, CR, 0xFF - is one character. One deviation
 * from the verbatim regex: glibc compiles POSIX EREs with RE_DOT_NOT_NULL,
 * so "." never matches NUL; the fragment's (.*) is written (.|[^.])*,
 * which is "any byte" there too. The groups keep their numbers.
 */
#include <check.h>
#include <dirent.h>
#include <locale.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiet_check.h"
#include "testdata.h"
#include "urisan.h"

#define APPENDIX_B "^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\\?([^#]*))?(#((.|[^.])*))?"

#define DEFAULT_MAX_URI 8192

typedef struct {
    const char *name;
    unsigned inputs, agree, too_long, bounded, disagree;
    unsigned bracket_fallback; /* "[" host with text after "]" that is no port */
} counts;

static regex_t appendix_b;

static void compile_oracle(void)
{
    setlocale(LC_ALL, "C");
    int rc = regcomp(&appendix_b, APPENDIX_B, REG_EXTENDED);
    qc_assert_msg(rc == 0, "regcomp failed: %d", rc);
}

static void put_escaped(const char *s, size_t n)
{
    for (size_t i = 0; i < n && i < 300; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\\')
            fputs("\\\\", stdout);
        else if (c < 0x20 || c >= 0x7f)
            printf("\\x%02X", c);
        else
            putchar(c);
    }
    if (n > 300)
        printf("...(%zu bytes)", n);
}

/* A span from a regex group; absent when the group did not take part. */
static urisan_span group(const regmatch_t *m, int g)
{
    urisan_span s = {URISAN_ABSENT, 0};
    if (m[g].rm_so >= 0) {
        s.off = (size_t)m[g].rm_so;
        s.len = (size_t)(m[g].rm_eo - m[g].rm_so);
    }
    return s;
}

static urisan_span mkspan(size_t off, size_t len)
{
    urisan_span s = {off, len};
    return s;
}

static bool same_span(urisan_span a, urisan_span b)
{
    if (!urisan_span_present(a) || !urisan_span_present(b))
        return urisan_span_present(a) == urisan_span_present(b);
    return a.off == b.off && a.len == b.len;
}

/*
 * urisan's split of an authority in[as..ae): userinfo, host, port.
 * Returns true when the host starts with "[" and the text after the "]"
 * is neither empty nor a ":" port: urisan's rule does not say how to split that
 * (the URI is invalid either way); the parser falls back to the last-colon
 * rule, and so does this oracle - counted, so the choice stays visible.
 */
static bool spec_authority(const char *in, size_t as, size_t ae, urisan_span *ui,
                           urisan_span *host, urisan_span *port)
{
    size_t hs = as;
    *ui = mkspan(URISAN_ABSENT, 0);
    *port = mkspan(URISAN_ABSENT, 0);
    for (size_t i = ae; i > as; i--) {
        if (in[i - 1] == '@') { /* the LAST "@" */
            *ui = mkspan(as, i - 1 - as);
            hs = i;
            break;
        }
    }
    if (hs < ae && in[hs] == '[') {
        const char *rb = memchr(in + hs, ']', ae - hs); /* the FIRST "]" */
        if (rb == NULL) {
            *host = mkspan(hs, ae - hs);
            return false;
        }
        size_t r = (size_t)(rb - in);
        if (r + 1 == ae) {
            *host = mkspan(hs, ae - hs);
            return false;
        }
        if (in[r + 1] == ':') {
            *host = mkspan(hs, r + 1 - hs);
            *port = mkspan(r + 2, ae - (r + 2));
            return false;
        }
        /* fall through to the last-colon rule */
    }
    for (size_t i = ae; i > hs; i--) {
        if (in[i - 1] == ':') { /* the LAST ":" */
            *host = mkspan(hs, i - 1 - hs);
            *port = mkspan(i, ae - i);
            return hs < ae && in[hs] == '[';
        }
    }
    *host = mkspan(hs, ae - hs);
    return hs < ae && in[hs] == '[';
}

static void recompose_put(char *buf, size_t *n, const char *in, urisan_span s)
{
    memcpy(buf + *n, in + s.off, s.len);
    *n += s.len;
}

/* The components, put back together (RFC 3986 5.3). */
static bool recomposes(const char *in, size_t len, const urisan_uri *u)
{
    const urisan_span sp[7] = {u->scheme, u->userinfo, u->host, u->port,
                               u->path,   u->query,    u->fragment};
    size_t cap = 8;
    for (int k = 0; k < 7; k++) {
        if (!urisan_span_present(sp[k]))
            continue;
        if (sp[k].off > len || sp[k].len > len - sp[k].off)
            return false; /* a span outside the input */
        cap += sp[k].len + 1;
    }
    char *buf = malloc(cap);
    size_t n = 0;
    qc_assert(buf != NULL);
    bool ok = true;
    if (urisan_span_present(u->scheme)) {
        recompose_put(buf, &n, in, u->scheme);
        buf[n++] = ':';
    }
    if (urisan_span_present(u->host)) {
        buf[n++] = '/';
        buf[n++] = '/';
        if (urisan_span_present(u->userinfo)) {
            recompose_put(buf, &n, in, u->userinfo);
            buf[n++] = '@';
        }
        recompose_put(buf, &n, in, u->host);
        if (urisan_span_present(u->port)) {
            buf[n++] = ':';
            recompose_put(buf, &n, in, u->port);
        }
    } else if (urisan_span_present(u->userinfo) || urisan_span_present(u->port)) {
        ok = false; /* userinfo or port without a host */
    }
    if (!urisan_span_present(u->path))
        ok = false; /* the path is always present, maybe empty (3.3) */
    else
        recompose_put(buf, &n, in, u->path);
    if (urisan_span_present(u->query)) {
        buf[n++] = '?';
        recompose_put(buf, &n, in, u->query);
    }
    if (urisan_span_present(u->fragment)) {
        buf[n++] = '#';
        recompose_put(buf, &n, in, u->fragment);
    }
    ok = ok && n == len && memcmp(buf, in, len) == 0;
    free(buf);
    return ok;
}

static bool all_absent(const urisan_uri *u)
{
    const urisan_span sp[8] = {u->scheme, u->userinfo, u->host,     u->port,
                               u->path,   u->query,    u->fragment, u->zone};
    for (int k = 0; k < 8; k++)
        if (urisan_span_present(sp[k]))
            return false;
    return u->host_type == URISAN_HOST_NONE;
}

static void disagree(counts *c, const char *where, size_t line, const char *in, size_t len,
                     const char *what)
{
    c->disagree++;
    if (c->disagree <= 50) {
        printf("DISAGREE %s:%zu: \"", where, line);
        put_escaped(in, len);
        printf("\": %s\n", what);
    }
}

/* Check one input; `where`/`line` only label the message. */
static void check_split(counts *c, const char *where, size_t line, const char *in, size_t len)
{
    c->inputs++;
    urisan_uri u;
    urisan_status st = urisan_parse(in, len, NULL, &u, NULL);
    if (len > DEFAULT_MAX_URI) {
        /* too_long: stop at once, every component absent */
        c->too_long++;
        if (st != URISAN_E_TOO_LONG || !all_absent(&u) || u.error.offset != DEFAULT_MAX_URI)
            disagree(c, where, line, in, len, "longer than max_uri but not too_long at 8192 "
                                               "with all components absent");
        return;
    }
    if (st == URISAN_E_TOO_LONG) {
        /* another bound (host, label, userinfo, scheme, segments) was hit
           with the default limits: check the too_long contract, then split
           again with only max_uri bounded */
        c->bounded++;
        if (!all_absent(&u) || u.valid) {
            disagree(c, where, line, in, len, "too_long with components present");
            return;
        }
        urisan_limits lim;
        urisan_limits_default(&lim);
        lim.max_scheme = lim.max_userinfo = lim.max_host = lim.max_label = lim.max_segments =
            URISAN_HARD_CEILING;
        st = urisan_parse(in, len, &lim, &u, NULL);
        if (st == URISAN_E_TOO_LONG) {
            disagree(c, where, line, in, len, "too_long with only max_uri bounded");
            return;
        }
    }

    /* REG_STARTEND bounds the match, but sanitizer runtimes intercept
       regexec and read the string up to a NUL: hand it a terminated copy
       (urisan_parse above got the exact bytes). */
    char *z = malloc(len + 1);
    qc_assert(z != NULL);
    memcpy(z, in, len);
    z[len] = '\0';
    regmatch_t m[11];
    m[0].rm_so = 0;
    m[0].rm_eo = (regoff_t)len;
    int rc = regexec(&appendix_b, z, 11, m, REG_STARTEND);
    free(z);
    if (rc != 0 || m[0].rm_so != 0 || (size_t)m[0].rm_eo != len) {
        disagree(c, where, line, in, len, "the Appendix B regex does not match it all");
        return;
    }

    char what[256] = "";
    if (!same_span(u.scheme, group(m, 2)) || urisan_span_present(group(m, 1)) !=
                                                   urisan_span_present(u.scheme))
        strcat(what, "scheme ");
    if (urisan_span_present(group(m, 3)) != urisan_span_present(u.host))
        strcat(what, "authority-presence ");
    if (!same_span(u.path, group(m, 5)))
        strcat(what, "path ");
    if (!same_span(u.query, group(m, 7)) ||
        urisan_span_present(group(m, 6)) != urisan_span_present(u.query))
        strcat(what, "query ");
    if (!same_span(u.fragment, group(m, 9)) ||
        urisan_span_present(group(m, 8)) != urisan_span_present(u.fragment))
        strcat(what, "fragment ");

    urisan_span a = group(m, 4);
    if (urisan_span_present(a)) {
        urisan_span ui, host, port;
        if (spec_authority(in, a.off, a.off + a.len, &ui, &host, &port))
            c->bracket_fallback++;
        if (!same_span(u.userinfo, ui))
            strcat(what, "userinfo ");
        if (!same_span(u.host, host))
            strcat(what, "host ");
        if (!same_span(u.port, port))
            strcat(what, "port ");
    } else if (urisan_span_present(u.userinfo) || urisan_span_present(u.port)) {
        strcat(what, "userinfo/port-without-authority ");
    }
    if (!recomposes(in, len, &u))
        strcat(what, "recomposition ");
    if (what[0]) {
        strcat(what, "differ");
        disagree(c, where, line, in, len, what);
        return;
    }
    c->agree++;
}

static void report(const counts *c)
{
    printf("split: %s: inputs %u, agree %u, disagree %u, too_long skipped %u, "
           "hit another default bound (split with raised limits) %u, "
           "\"[\" host with no port after \"]\" %u\n",
           c->name, c->inputs, c->agree, c->disagree, c->too_long, c->bounded,
           c->bracket_fallback);
    fflush(stdout);
}

/* ------------------------------------------------------------------ */
/* The URL lists                                                       */
/* ------------------------------------------------------------------ */

static const char *const url_files[] = {"kasztp.txt", "userbait.txt", "node_files.txt",
                                        "isaacs_files.txt"};

START_TEST(every_url_list_line_splits_like_the_appendix_b_regex)
{
    const char *name = url_files[_i];
    FILE *fp = testdata_open("urls", name);
    if (!fp)
        return;
    compile_oracle();
    counts c = {name, 0, 0, 0, 0, 0, 0};
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, fp)) >= 0) {
        size_t len = (size_t)n;
        lineno++;
        /* strip the LF and one CR before it; keep everything else (BOM) */
        if (len > 0 && line[len - 1] == '\n')
            len--;
        if (len > 0 && line[len - 1] == '\r')
            len--;
        check_split(&c, name, lineno, line, len);
    }
    free(line);
    fclose(fp);
    regfree(&appendix_b);
    report(&c);
    qc_assert_msg(c.inputs > 0, "%s: no lines", name);
    qc_assert_msg(c.disagree == 0, "%s: %u inputs split differently", name, c.disagree);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The vector TSVs: which columns hold URIs or references              */
/* ------------------------------------------------------------------ */

typedef struct {
    const char *file;
    const char *cols[5]; /* a leading "?" marks a column where "" means
                            "no value" rather than the empty reference */
} tsv_uris;

static const tsv_uris vector_files[] = {
    {"curl-1560.tsv", {"input", "?expected_output"}}, /* output: get_url rows only */
    {"curl-1560-redirect.tsv", {"base", "set_url", "?expected"}},
    {"curl-1560-setparts.tsv", {"url", "?expected"}},
    {"go-url-parse.tsv", {"input", "?roundtrip_if_different"}},
    {"go-url-resolve.tsv", {"base", "ref", "expected"}},
    {"go-url-resolvepath.tsv", {"base_path", "ref_path", "expected"}},
    {"python-urljoin.tsv", {"base", "ref", "expected"}},
    {"rfc3986-normalize.tsv", {"input", "expected"}},
    {"rfc3986-resolve.tsv", {"ref", "expected"}},
    {"uriparser-ip.tsv", {"text"}},
    {"uriparser-normalize-mask.tsv", {"input"}},
    {"uriparser-normalize.tsv", {"input", "expected"}},
    {"uriparser-parse.tsv", {"uri"}},
    {"uriparser-relativize.tsv", {"target", "base", "expected_ref"}},
    {"uriparser-resolve.tsv", {"base", "ref", "expected", "?rfc3986_literal_if_different"}},
    {"uriparser-unescape.tsv", {"input", "output"}},
    {"uriparser-wellformed.tsv", {"text"}},
};

#define NVEC (sizeof vector_files / sizeof vector_files[0])

START_TEST(every_vector_uri_splits_like_the_appendix_b_regex)
{
    const tsv_uris *v = &vector_files[_i];
    tsv_file t;
    if (!tsv_open(&t, v->file))
        return;
    compile_oracle();
    counts c = {v->file, 0, 0, 0, 0, 0, 0};
    int cols[5];
    bool optional[5];
    size_t ncols = 0;
    for (; ncols < 5 && v->cols[ncols]; ncols++) {
        const char *name = v->cols[ncols];
        optional[ncols] = name[0] == '?';
        cols[ncols] = tsv_col(&t, name + optional[ncols]);
        qc_assert_msg(cols[ncols] >= 0, "%s: no column %s", v->file, name);
    }
    int c_table = tsv_col(&t, "table");
    while (tsv_next(&t)) {
        for (size_t k = 0; k < ncols; k++) {
            int col = cols[k];
            if (optional[k] && t.flen[col] == 0)
                continue;
            /* curl's get_parts output is a " | " list, not a URI */
            if (strcmp(v->file, "curl-1560.tsv") == 0 && k == 1 &&
                !(c_table >= 0 && t.flen[c_table] == 7 && memcmp(t.f[c_table], "get_url", 7) == 0))
                continue;
            check_split(&c, v->file, t.lineno, t.f[col], t.flen[col]);
        }
    }
    tsv_close(&t);
    regfree(&appendix_b);
    report(&c);
    qc_assert_msg(c.disagree == 0, "%s: %u inputs split differently", v->file, c.disagree);
}
END_TEST

/* Every *.tsv in the vectors folder is in the table above. */
START_TEST(every_vector_tsv_file_is_covered)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/vectors", testdata_dir());
    DIR *dir = opendir(path);
    qc_assert_msg(dir != NULL, "%s: not found in the shared data folder", path);
    struct dirent *e;
    unsigned missing = 0;
    while ((e = readdir(dir)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 4, ".tsv") != 0)
            continue;
        bool found = false;
        for (size_t i = 0; i < NVEC; i++)
            found |= strcmp(vector_files[i].file, e->d_name) == 0;
        if (!found) {
            printf("vectors/%s: not in test_split.c's table of URI columns\n", e->d_name);
            missing++;
        }
    }
    closedir(dir);
    qc_assert_uint_eq(missing, 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The oracle itself, on bytes the data sets lack                      */
/* ------------------------------------------------------------------ */

typedef struct {
    const char *in;
    size_t len;
} raw;

#define R(s) {s, sizeof(s) - 1}

static const raw odd_inputs[] = {
    R("a:b\0c#d\0e"),
    R("//a\0b@h\0:1\0/p\0?q\0#\0"),
    R("\0:\0"),
    R("\xff\xfe://\xff@[\xff]:\xff/\xff?\xff#\xff"),
    R("h\r\n:\t//x"),
    R("\xef\xbb\xbfhttp://h/"),
    R("//[::1]x:80"),
    R("//[::1]x"),
    R("//[::1]]:1"),
    R("//[[::1]:1"),
    R("//u@[::1]@h:1"),
    R("//a@b@c:1:2"),
    R("//[v1.x]:"),
    R("//[::1"),
    R("//:"),
    R("//@"),
    R("///"),
    R("?#?#"),
    R("#//a@b:1"),
    R(""),
};

START_TEST(oracle_and_split_agree_on_nul_control_and_high_bytes)
{
    compile_oracle();
    counts c = {"built-in", 0, 0, 0, 0, 0, 0};
    const raw *r = &odd_inputs[_i];
    /* an exact-size copy, so an overread shows under ASan */
    char *p = malloc(r->len ? r->len : 1);
    qc_assert(p != NULL);
    memcpy(p, r->in, r->len);
    check_split(&c, "built-in", (size_t)_i, p, r->len);
    free(p);
    regfree(&appendix_b);
    qc_assert_msg(c.disagree == 0, "built-in input %d splits differently", _i);
}
END_TEST

START_TEST(input_longer_than_max_uri_is_too_long_with_nothing_split)
{
    compile_oracle();
    counts c = {"built-in", 0, 0, 0, 0, 0, 0};
    size_t len = DEFAULT_MAX_URI + 1;
    char *p = malloc(len);
    qc_assert(p != NULL);
    memcpy(p, "http://h/", 9);
    memset(p + 9, 'a', len - 9);
    check_split(&c, "built-in", 0, p, len);
    qc_assert_uint_eq(c.too_long, 1);
    qc_assert_uint_eq(c.disagree, 0);
    /* exactly max_uri bytes is still split */
    check_split(&c, "built-in", 1, p, DEFAULT_MAX_URI);
    qc_assert_uint_eq(c.agree, 1);
    free(p);
    regfree(&appendix_b);
}
END_TEST

int main(void)
{
    if (testdata_skip())
        return 77;
    Suite *s = suite_create("split");
    TCase *tc = testdata_tcase(s, "appendix_b_shared_data");
    tcase_add_loop_test(tc, every_url_list_line_splits_like_the_appendix_b_regex, 0,
                        (int)(sizeof url_files / sizeof url_files[0]));
    tcase_add_loop_test(tc, every_vector_uri_splits_like_the_appendix_b_regex, 0, (int)NVEC);
    tcase_add_test(tc, every_vector_tsv_file_is_covered);
    tc = tcase_create("appendix_b");
    tcase_add_loop_test(tc, oracle_and_split_agree_on_nul_control_and_high_bytes, 0,
                        (int)(sizeof odd_inputs / sizeof odd_inputs[0]));
    tcase_add_test(tc, input_longer_than_max_uri_is_too_long_with_nothing_split);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
