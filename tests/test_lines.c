/*
 * test_lines.c - the command's line reader (src/cli/lines.c): one line per
 * input line whatever the bytes, CRLF handled, long lines truncated but
 * never desynchronised (urisan(1), INPUT). Each case runs twice: from a file
 * (large reads) and from a pipe fed in small uneven pieces (short reads).
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lines.h"

typedef struct {
    int fd;
    pid_t child;
} feed_t;

/* An fd that yields data[0..n): _i == 0 a temp file, 1 a pipe written by a
   child in pieces of 1..7 bytes. */
static feed_t feed(const char *data, size_t n, int mode)
{
    feed_t f = { -1, -1 };
    if (mode == 0) {
        FILE *tf = tmpfile();
        ck_assert_ptr_nonnull(tf);
        ck_assert_uint_eq(fwrite(data, 1, n, tf), n);
        fflush(tf);
        f.fd = dup(fileno(tf));
        fclose(tf);
        ck_assert_int_ge(f.fd, 0);
        ck_assert_int_eq((int)lseek(f.fd, 0, SEEK_SET), 0);
        return f;
    }
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    f.child = fork();
    ck_assert_int_ge(f.child, 0);
    if (f.child == 0) {
        close(p[0]);
        size_t i = 0, step = 1;
        while (i < n) {
            size_t k = n - i < step ? n - i : step;
            /* Big inputs: bigger pieces, still uneven. */
            if (n > 100000)
                k = n - i < 65537 ? n - i : 65537;
            ssize_t w = write(p[1], data + i, k);
            if (w <= 0)
                _exit(1);
            i += (size_t)w;
            step = step % 7 + 1;
        }
        _exit(0);
    }
    close(p[1]);
    f.fd = p[0];
    return f;
}

static void unfeed(feed_t f)
{
    close(f.fd);
    if (f.child > 0) {
        int st;
        waitpid(f.child, &st, 0);
    }
}

typedef struct {
    const char *p;
    size_t len;
    size_t full_len;
} want_line;

/* Read everything and compare with the expected lines. */
static void expect_lines(const char *data, size_t n, size_t keep, int mode,
                         const want_line *want, size_t nwant)
{
    feed_t f = feed(data, n, mode);
    cli_lines r;
    ck_assert(cli_lines_init(&r, f.fd, keep));
    cli_line ln;
    size_t i = 0;
    int got;
    while ((got = cli_lines_next(&r, &ln)) == 1) {
        ck_assert_msg(i < nwant, "more lines than the %zu expected", nwant);
        ck_assert_uint_eq(ln.lineno, i + 1);
        ck_assert_uint_eq(ln.len, want[i].len);
        ck_assert_uint_eq(ln.full_len, want[i].full_len);
        ck_assert(ln.truncated == (want[i].full_len > want[i].len));
        ck_assert_msg(ln.len == 0 || memcmp(ln.p, want[i].p, ln.len) == 0,
                      "line %zu differs", i + 1);
        i++;
    }
    ck_assert_int_eq(got, 0);
    ck_assert_uint_eq(i, nwant);
    /* End of input is sticky. */
    ck_assert_int_eq(cli_lines_next(&r, &ln), 0);
    cli_lines_free(&r);
    unfeed(f);
}

#define L(s) { s, sizeof(s) - 1, sizeof(s) - 1 }
#define RUN(data, keep, ...) do {                                         \
        const want_line w_[] = { __VA_ARGS__ };                           \
        expect_lines(data, sizeof(data) - 1, keep, _i, w_, sizeof w_ / sizeof w_[0]); \
    } while (0)

START_TEST(empty_input_has_no_lines)
{
    expect_lines("", 0, 100, _i, NULL, 0);
}
END_TEST

START_TEST(lone_lf_is_one_empty_line)
{
    RUN("\n", 100, L(""));
    RUN("\n\n\n", 100, L(""), L(""), L(""));
}
END_TEST

START_TEST(last_line_without_lf_counts)
{
    RUN("a\nb", 100, L("a"), L("b"));
    RUN("only", 100, L("only"));
}
END_TEST

START_TEST(crlf_ending_is_stripped_lone_cr_kept)
{
    RUN("a\r\nb\r\n", 100, L("a"), L("b"));
    RUN("a\rb\n", 100, L("a\rb"));
    RUN("\r\n", 100, L(""));
    RUN("a\r\r\n", 100, L("a\r"));
    /* A CR at the very end without LF is no CRLF ending: it is data. */
    RUN("a\r", 100, L("a\r"));
}
END_TEST

START_TEST(nul_and_high_bytes_are_kept)
{
    RUN("http://a\0b/\n\xff\xfe%zz\n", 100, L("http://a\0b/"), L("\xff\xfe%zz"));
    RUN("\0\n\0", 100, L("\0"), L("\0"));
}
END_TEST

START_TEST(long_line_keeps_prefix_and_full_length)
{
    const want_line w[] = {
        { "abcd", 4, 10 },
        { "x", 1, 1 },
        { "abcd", 4, 4 },
        { "abcd", 4, 5 },
    };
    expect_lines("abcdefghij\nx\nabcd\nabcde", 23, 4, _i, w, 4);
}
END_TEST

START_TEST(crlf_of_a_truncated_line_is_still_stripped)
{
    /* CR beyond the kept prefix, and CR as the last kept byte. */
    const want_line w[] = {
        { "abc", 3, 6 },
        { "abc", 3, 3 },
        { "abc", 3, 4 },
    };
    expect_lines("abcdef\r\nabc\r\nabcd\r\n", 19, 3, _i, w, 3);
}
END_TEST

/* Lines that lie whole in the chunk are handed out where they are (no
   copy): at exactly keep bytes, keep bytes with its CR, one byte over. */
START_TEST(line_of_exactly_keep_bytes_is_handed_out_whole)
{
    const want_line w[] = {
        { "abcd", 4, 4 },
        { "abcd", 4, 4 },
        { "abc", 3, 3 },
        { "abcd", 4, 5 },
        { "", 0, 0 },
    };
    expect_lines("abcd\nabcd\r\nabc\r\nabcde\n\n", 23, 4, _i, w, 5);
}
END_TEST

/* A 5 MB line between short ones: bounded memory, the neighbours intact. */
START_TEST(five_megabyte_line_does_not_desync)
{
    size_t big = 5u << 20;
    size_t n = 2 + big + 2 + 2;
    char *data = malloc(n);
    ck_assert_ptr_nonnull(data);
    memcpy(data, "a\n", 2);
    memset(data + 2, 'x', big);
    memcpy(data + 2 + big, "\r\nb\n", 4);
    const want_line w[] = {
        { "a", 1, 1 },
        { "xxxxxxxx", 8, big },
        { "b", 1, 1 },
    };
    expect_lines(data, n, 8, _i, w, 3);
    free(data);
}
END_TEST

/* Line lengths around the read chunk size, CRLF split across reads. */
START_TEST(lines_across_chunk_boundaries)
{
    size_t lens[] = { CLI_LINES_CHUNK - 2, CLI_LINES_CHUNK - 1, CLI_LINES_CHUNK,
                      CLI_LINES_CHUNK + 1, 3 };
    size_t n = 0;
    for (size_t k = 0; k < 5; k++)
        n += lens[k] + 2;
    char *data = malloc(n);
    ck_assert_ptr_nonnull(data);
    want_line w[5];
    size_t at = 0;
    for (size_t k = 0; k < 5; k++) {
        memset(data + at, (int)('a' + k), lens[k]);
        w[k].p = data + at;
        w[k].len = lens[k];
        w[k].full_len = lens[k];
        at += lens[k];
        data[at++] = '\r';
        data[at++] = '\n';
    }
    expect_lines(data, n, CLI_LINES_CHUNK * 2, _i, w, 5);
    free(data);
}
END_TEST

START_TEST(read_error_is_reported)
{
    cli_lines r;
    ck_assert(cli_lines_init(&r, -1, 10));
    cli_line ln;
    ck_assert_int_eq(cli_lines_next(&r, &ln), -1);
    ck_assert_int_eq(r.err, EBADF);
    cli_lines_free(&r);
}
END_TEST

static Suite *lines_suite(void)
{
    Suite *s = suite_create("lines");
    TCase *tc = tcase_create("reader");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, empty_input_has_no_lines, 0, 2);
    tcase_add_loop_test(tc, lone_lf_is_one_empty_line, 0, 2);
    tcase_add_loop_test(tc, last_line_without_lf_counts, 0, 2);
    tcase_add_loop_test(tc, crlf_ending_is_stripped_lone_cr_kept, 0, 2);
    tcase_add_loop_test(tc, nul_and_high_bytes_are_kept, 0, 2);
    tcase_add_loop_test(tc, long_line_keeps_prefix_and_full_length, 0, 2);
    tcase_add_loop_test(tc, crlf_of_a_truncated_line_is_still_stripped, 0, 2);
    tcase_add_loop_test(tc, line_of_exactly_keep_bytes_is_handed_out_whole, 0, 2);
    tcase_add_loop_test(tc, five_megabyte_line_does_not_desync, 0, 2);
    tcase_add_loop_test(tc, lines_across_chunk_boundaries, 0, 2);
    tcase_add_test(tc, read_error_is_reported);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    SRunner *sr = srunner_create(lines_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
