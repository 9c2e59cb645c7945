/*
 * test_extract.c - urisan_extract (urisan(1), EXTRACT; seed draft Appendix E
 * and F). The mail side (--mail) is tested through the command by
 * tests/extract_mail_test.py.
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1 /* MAP_ANONYMOUS */
#endif
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "quiet_check.h"
#include "urisan.h"

#define MAXHITS 64

static char scratch[1 << 16];

typedef struct {
    urisan_hit h[MAXHITS];
    size_t n;
    urisan_status st;
    size_t next;
} run;

static void extract_all(const char *t, size_t len, run *r)
{
    r->st = urisan_extract(t, len, 0, NULL, r->h, MAXHITS, &r->n, scratch,
                           sizeof scratch, &r->next);
}

/* The hits' URIs joined with '|'. */
static const char *joined(const run *r)
{
    static char buf[1 << 14];
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < r->n && o + r->h[i].uri_len + 2 < sizeof buf; i++) {
        if (i)
            buf[o++] = '|';
        memcpy(buf + o, r->h[i].uri, r->h[i].uri_len);
        o += r->h[i].uri_len;
        buf[o] = '\0';
    }
    return buf;
}

static const char *joined_of(const char *t)
{
    static run r;
    extract_all(t, strlen(t), &r);
    qc_assert_int_eq(r.st, URISAN_OK);
    qc_assert_uint_eq(r.next, strlen(t));
    return joined(&r);
}

START_TEST(appendix_e_example_yields_exactly_its_three_uris)
{
    /* Seed draft Appendix E, verbatim (with its indentation). */
    const char *t =
        "   Yes, Jim, I found it under \"http://www.w3.org/Addressing/\",\n"
        "   but you can probably pick it up from <ftp://ds.internic.\n"
        "   net/rfc/>.  Note the warning in <http://www.ics.uci.edu/pub/\n"
        "   ietf/uri/historical.html#WARNING>.\n";
    run r;
    extract_all(t, strlen(t), &r);
    qc_assert_int_eq(r.st, URISAN_OK);
    qc_assert_uint_eq(r.n, 3);
    qc_assert_str_eq(joined(&r), "http://www.w3.org/Addressing/|"
                                 "ftp://ds.internic.net/rfc/|"
                                 "http://www.ics.uci.edu/pub/ietf/uri/historical.html#WARNING");
    qc_assert_uint_eq(r.h[0].form, URISAN_HIT_QUOTED);
    qc_assert_uint_eq(r.h[1].form, URISAN_HIT_ANGLE | URISAN_HIT_WRAPPED);
    qc_assert_uint_eq(r.h[2].form, URISAN_HIT_ANGLE | URISAN_HIT_WRAPPED);
    /* Byte ranges: the URI as written, delimiters excluded. */
    qc_assert_uint_eq(r.h[0].off, (size_t)(strstr(t, "http://www.w3") - t));
    qc_assert_uint_eq(r.h[0].len, strlen("http://www.w3.org/Addressing/"));
    ck_assert_ptr_eq(r.h[0].uri, t + r.h[0].off);
    qc_assert_uint_eq(r.h[1].off, (size_t)(strstr(t, "ftp:") - t));
    qc_assert_uint_eq(r.h[1].off + r.h[1].len, (size_t)(strstr(t, "/>.") + 1 - t));
    for (size_t i = 0; i < r.n; i++)
        qc_assert_uint_eq(r.h[i].flags & URISAN_F(INVALID), 0);
}
END_TEST

START_TEST(wrapped_uri_drops_whitespace_around_line_breaks)
{
    qc_assert_str_eq(joined_of("see <http://example.com/a/\r\n\t  b/c?q=1>"),
                     "http://example.com/a/b/c?q=1");
    /* White space before the closing bracket is no part of it. */
    qc_assert_str_eq(joined_of("<http://example.com/a\n >"), "http://example.com/a");
    qc_assert_str_eq(joined_of("<URL:http://example.\n com/>"), "http://example.com/");
    qc_assert_str_eq(joined_of("<URL: http://example.com/>"), "http://example.com/");
}
END_TEST

START_TEST(space_inside_a_line_or_blank_line_is_no_wrap)
{
    /* A space within a line is the sentence's: the bare rule applies. */
    qc_assert_str_eq(joined_of("<http://a.example/x is down>"), "http://a.example/x");
    /* A blank line ends a paragraph, and with it the bracket. */
    qc_assert_str_eq(joined_of("<http://a.example/x\n\nhttp://b.example/>"),
                     "http://a.example/x|http://b.example/");
    /* Unclosed bracket: the bare rule. */
    qc_assert_str_eq(joined_of("<http://a.example/x"), "http://a.example/x");
    /* A second '<' before '>'. */
    qc_assert_str_eq(joined_of("<http://a.example/\n<http://b.example/>"),
                     "http://a.example/|http://b.example/");
}
END_TEST

START_TEST(hyphen_at_line_end_yields_both_readings)
{
    const char *t = "<http://www.example-\n   host.com/some-\n path>";
    run r;
    extract_all(t, strlen(t), &r);
    qc_assert_int_eq(r.st, URISAN_OK);
    qc_assert_uint_eq(r.n, 2);
    qc_assert_str_eq(joined(&r), "http://www.example-host.com/some-path|"
                                 "http://www.examplehost.com/somepath");
    qc_assert_uint_eq(r.h[0].form, URISAN_HIT_ANGLE | URISAN_HIT_WRAPPED |
                                   URISAN_HIT_HYPHEN_BREAK);
    qc_assert_uint_eq(r.h[1].form, URISAN_HIT_ANGLE | URISAN_HIT_WRAPPED |
                                   URISAN_HIT_HYPHEN_BREAK | URISAN_HIT_HYPHEN_DROPPED);
    qc_assert_uint_eq(r.h[0].off, r.h[1].off);
    qc_assert_uint_eq(r.h[0].len, r.h[1].len);
    /* A hyphen that ends the URI is no break. */
    qc_assert_str_eq(joined_of("<http://example.com/a-\n>"), "http://example.com/a-");
}
END_TEST

typedef struct {
    const char *text;
    const char *want;  /* hits joined with '|' */
} case_t;

static const case_t punct_cases[] = {
    {"Go to http://example.com/.", "http://example.com/"},
    {"http://example.com/a, http://example.com/b; ok", "http://example.com/a|http://example.com/b"},
    {"Really http://example.com/?!", "http://example.com/"},
    {"'http://example.com/x'", "http://example.com/x"},
    {"(see http://example.com/x)", "http://example.com/x"},
    {"(see http://example.com/x).", "http://example.com/x"},
    {"http://en.wikipedia.org/wiki/Foo_(bar)", "http://en.wikipedia.org/wiki/Foo_(bar)"},
    {"(http://en.wikipedia.org/wiki/Foo_(bar))", "http://en.wikipedia.org/wiki/Foo_(bar)"},
    {"[http://example.com/a]", "http://example.com/a"},
    {"http://[::1]:80/x]", "http://[::1]:80/x"},
    {"{http://example.com/}", "http://example.com/"},
    {"http://example.com/\xe2\x80\x9d and", "http://example.com/"},
    {"http://example.com/x\xe3\x80\x82", "http://example.com/x"},
    {"http://example.com/a:", "http://example.com/a"},
    {"http://example.com/a...", "http://example.com/a"},
    /* A closing bracket no opening one matched ends the URI, as
       Thunderbird's linkifier ends it (mozTXTToHTMLConv FindURLEnd): the
       quote header of a reply, a word glued after ')'. */
    {"[mailto:ilug-admin@linux.ie]On Behalf Of Tony", "mailto:ilug-admin@linux.ie"},
    {"(http://example.com/a)b and http://example.com/c]d", "http://example.com/a|http://example.com/c"},
    {"http://example.com/a}b", "http://example.com/a"},
    {"http://h.example/a_(b)c_[d]e", "http://h.example/a_(b)c_[d]e"},
    /* Inside delimiters nothing is trimmed. */
    {"<http://example.com/a.>", "http://example.com/a."},
    {"\"http://example.com/a.\"", "http://example.com/a."},
};

START_TEST(trailing_punctuation_and_unbalanced_brackets_are_left_out)
{
    qc_assert_str_eq(joined_of(punct_cases[_i].text), punct_cases[_i].want);
}
END_TEST

static const case_t scheme_cases[] = {
    {"Note: this is not one. Re:hello", ""},
    {"C:\\Users\\me and D:/x", ""},
    {"ratio 3:4 at 10:30", ""},
    {"bare words http:// and file:/// are no hits", ""},
    {"mailto:user@example.com.", "mailto:user@example.com"},
    {"urn:isbn:0451450523", "urn:isbn:0451450523"},
    {"click javascript:alert(1)", "javascript:alert(1)"},
    {"foo://bar/baz", "foo://bar/baz"},
    {"odd: x-foo:bar is not; <x-foo:bar> is", "x-foo:bar"},
    {"http:evil.example and http:\\\\evil.example", "http:evil.example|http:\\\\evil.example"},
    {"URL:http://example.com/ and URL: news:comp.lang.c", "http://example.com/|news:comp.lang.c"},
    {"\"Re:hello\" and \"http://example.com/\"", "http://example.com/"},
    {"\"URL:x-foo:bar\"", "x-foo:bar"},
    {"<a href=\"http://example.com/\">x</a>", "http://example.com/"},
    {"<img src=http://example.com/i.png>", "http://example.com/i.png"},
    {"xhttp://a.example/", "xhttp://a.example/"},
    {"<message-id@example.com> <not a uri>", ""},
    /* a module path is no link a mail client makes: "File::Spec" is no
       file: URI, "Data::Dumper" no data: URI */
    {"use File::Spec; use Data::Dumper; JavaScript::Minifier", ""},
    {"file:/etc/passwd and file:///c:/x", "file:/etc/passwd|file:///c:/x"},
};

START_TEST(schemes_in_running_text)
{
    qc_assert_str_eq(joined_of(scheme_cases[_i].text), scheme_cases[_i].want);
}
END_TEST

START_TEST(www_forms_are_abbreviated_and_analysed_as_http)
{
    const char *t = "Visit www.w3.org/Addressing/, or WWW.Example.COM.";
    run r;
    extract_all(t, strlen(t), &r);
    qc_assert_int_eq(r.st, URISAN_OK);
    qc_assert_uint_eq(r.n, 2);
    qc_assert_str_eq(joined(&r), "http://www.w3.org/Addressing/|http://WWW.Example.COM");
    qc_assert_uint_eq(r.h[0].form, URISAN_HIT_ABBREVIATED | URISAN_HIT_TRIMMED);
    qc_assert_uint_eq(r.h[0].off, 6);
    qc_assert_uint_eq(r.h[0].len, strlen("www.w3.org/Addressing/"));
    /* Not after '@' (an address), '/' or '.'; needs a label after "www.". */
    qc_assert_str_eq(joined_of("me@www.example.com a/www.b.com www. x.www.c.com"), "");
    qc_assert_str_eq(joined_of("<www.example.com/x>"), "http://www.example.com/x");
    qc_assert_str_eq(joined_of("\"www.example.com\""), "http://www.example.com");
    qc_assert_str_eq(joined_of("www.example.com:8080/x"), "http://www.example.com:8080/x");
    qc_assert_str_eq(joined_of("URL:www.example.com"), "http://www.example.com");
    /* The browser's reading of the userinfo trick is what is analysed. */
    qc_assert_str_eq(joined_of("www.bank.example@10.0.0.1/"),
                     "http://www.bank.example@10.0.0.1/");
}
END_TEST

START_TEST(ftp_names_are_abbreviated_as_ftp_like_www_names)
{
    /* Thunderbird completes "ftp." names to ftp:// as "www." to http://
       (mozTXTToHTMLConv CompleteAbbreviatedURL) */
    qc_assert_str_eq(joined_of("Mirror at ftp.evil.example/x, or FTP.Example.org."),
                     "ftp://ftp.evil.example/x|ftp://FTP.Example.org");
    run r;
    const char *t = "see ftp.example.org/pub";
    extract_all(t, strlen(t), &r);
    qc_assert_uint_eq(r.n, 1);
    qc_assert_uint_eq(r.h[0].form, URISAN_HIT_ABBREVIATED);
    qc_assert_uint_eq(r.h[0].off, 4);
    qc_assert_str_eq(joined_of("me@ftp.example.org a/ftp.b.org ftp. ftpx.example"), "");
}
END_TEST

START_TEST(flags_come_from_the_analysis_of_the_uri)
{
    const char *t = "ok http://example.com/ bad http://example.com/%zz";
    run r;
    extract_all(t, strlen(t), &r);
    qc_assert_uint_eq(r.n, 2);
    qc_assert_uint_eq(r.h[0].flags & URISAN_F(INVALID), 0);
    ck_assert_uint_ne(r.h[1].flags & URISAN_F(INVALID), 0);
    qc_assert_int_eq(r.h[1].decision.verdict, URISAN_DENY);

    /* Assembled URIs are analysed as the reader's client would open them. */
    const char *u = "<http://127.0.\n  0.1/> and www.bank.example@10.0.0.1/";
    extract_all(u, strlen(u), &r);
    qc_assert_uint_eq(r.n, 2);
    qc_assert_uint_eq(r.h[0].flags & (URISAN_F(IP_LITERAL) | URISAN_F(IP_LOOPBACK)),
                      URISAN_F(IP_LITERAL) | URISAN_F(IP_LOOPBACK));
    qc_assert_uint_eq(r.h[1].flags & (URISAN_F(USERINFO) | URISAN_F(IP_PRIVATE)),
                      URISAN_F(USERINFO) | URISAN_F(IP_PRIVATE));
    ck_assert_int_ne(r.h[1].decision.verdict, URISAN_ALLOW);
}
END_TEST

START_TEST(hit_cap_returns_too_many_and_resumes_to_the_same_hits)
{
    /* 40 hits, one of them a hyphen pair, read 2 and 3 at a time. */
    char t[8192];
    size_t o = 0;
    for (int i = 0; i < 38; i++)
        o += (size_t)snprintf(t + o, sizeof t - o, "x <http://h%d.example/> y, ", i);
    o += (size_t)snprintf(t + o, sizeof t - o, "<http://a-\n b.example/>");
    run all;
    extract_all(t, o, &all);
    qc_assert_int_eq(all.st, URISAN_OK);
    qc_assert_uint_eq(all.n, 40);
    for (size_t cap = 2; cap <= 3; cap++) {
        urisan_hit h[3];
        size_t got = 0, start = 0, n, next, calls = 0;
        urisan_status st;
        do {
            st = urisan_extract(t, o, start, NULL, h, cap, &n, scratch, sizeof scratch, &next);
            qc_assert(st == URISAN_OK || st == URISAN_E_TOO_MANY);
            ck_assert_uint_ge(n, 1);
            for (size_t k = 0; k < n; k++, got++) {
                qc_assert_uint_eq(h[k].off, all.h[got].off);
                qc_assert_uint_eq(h[k].len, all.h[got].len);
                qc_assert_uint_eq(h[k].form, all.h[got].form);
                qc_assert_uint_eq(h[k].uri_len, all.h[got].uri_len);
                qc_assert(memcmp(h[k].uri, all.h[got].uri, h[k].uri_len) == 0);
            }
            ck_assert_uint_gt(next, start);
            start = next;
            calls++;
        } while (st == URISAN_E_TOO_MANY);
        qc_assert_uint_eq(got, 40);
        qc_assert_uint_eq(next, o);
        ck_assert_uint_ge(calls, 40 / cap);
    }
}
END_TEST

START_TEST(scratch_full_is_too_many_and_too_small_is_nospace)
{
    const char *t = "<http://a.example/\n x> <http://b.example/\n y>";
    urisan_hit h[4];
    size_t n, next;
    char s[64];
    /* Room for one assembled hit only: the second waits for the next call. */
    urisan_status st = urisan_extract(t, strlen(t), 0, NULL, h, 4, &n, s, 21, &next);
    qc_assert_int_eq(st, URISAN_E_TOO_MANY);
    qc_assert_uint_eq(n, 1);
    qc_assert_uint_eq(next, (size_t)(strchr(t + 1, '<') - t));
    /* Not even one. */
    st = urisan_extract(t, strlen(t), 0, NULL, h, 4, &n, s, 5, &next);
    qc_assert_int_eq(st, URISAN_E_NOSPACE);
    qc_assert_uint_eq(n, 0);
    qc_assert_uint_eq(next, 0);
    /* No scratch at all is fine for text that needs none. */
    st = urisan_extract("http://a.example/", 17, 0, NULL, h, 4, &n, NULL, 0, &next);
    qc_assert_int_eq(st, URISAN_OK);
    qc_assert_uint_eq(n, 1);
    ck_assert_uint_ge(urisan_extract_scratch_size(NULL), URISAN_EXTRACT_SCRATCH(8192));
}
END_TEST

START_TEST(bad_arguments_are_rejected)
{
    urisan_hit h[2];
    size_t n = 99, next = 99;
    qc_assert_int_eq(urisan_extract("ab", 2, 3, NULL, h, 2, &n, NULL, 0, &next),
                     URISAN_E_BAD_ARGUMENT);
    qc_assert_uint_eq(n, 0);
    qc_assert_int_eq(urisan_extract("ab", 2, 0, NULL, h, 1, &n, NULL, 0, &next),
                     URISAN_E_BAD_ARGUMENT);
    qc_assert_int_eq(urisan_extract(NULL, 2, 0, NULL, h, 2, &n, NULL, 0, &next),
                     URISAN_E_BAD_ARGUMENT);
    qc_assert_int_eq(urisan_extract(NULL, 0, 0, NULL, h, 2, &n, NULL, 0, &next), URISAN_OK);
    qc_assert_uint_eq(n, 0);
}
END_TEST

/* Each input flush against a PROT_NONE page: a 1-byte overread faults. */
static char *guarded(const char *s, size_t n, void **map, size_t *maplen)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    size_t pages = (n + pg - 1) / pg + 1;
    *maplen = pages * pg;
    char *m = mmap(NULL, *maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    qc_assert(m != MAP_FAILED);
    qc_assert_int_eq(mprotect(m + (pages - 1) * pg, pg, PROT_NONE), 0);
    char *p = m + (pages - 1) * pg - n;
    memcpy(p, s, n);
    *map = m;
    return p;
}

static const char *const edge_inputs[] = {
    "<", "\"", "<h", "<http:", "<http://a", "<http://a\n", "<http://a-\n", "<URL:",
    "URL:", "URL: ", "URL:h", "\"http://a", "\"URL:", "www.", "www.a", "http://a.",
    "http://a(", "http://a)", "x http", "http:", "http:/", "mailto:", "<www.a",
    "http://a\xe2\x80", "http://a\xe2", "<http://a\r", "<http://a\r\n b",
};

START_TEST(nothing_is_read_past_len)
{
    const char *s = edge_inputs[_i];
    size_t n = strlen(s);
    void *map;
    size_t ml;
    char *p = guarded(s, n, &map, &ml);
    run r;
    extract_all(p, n, &r);
    qc_assert_int_eq(r.st, URISAN_OK);
    for (size_t k = 0; k < r.n; k++)
        ck_assert_uint_le(r.h[k].off + r.h[k].len, n);
    munmap(map, ml);
}
END_TEST

START_TEST(adversarial_megabytes_are_scanned_with_exact_results)
{
    /* Patterns that would make a naive scanner quadratic: unclosed
       brackets, bracket content up to the bound, long bare runs. Results
       are asserted, never time. */
    size_t n = 4u << 20;
    char *t = malloc(n);
    qc_assert(t != NULL);
    static const char *const unit[] = {"<a:", "<a:b", "\"http://x", "<http://x\n ", "www.a",
                                       "(((http://a.b/)))) "};
    for (size_t u = 0; u < sizeof unit / sizeof unit[0]; u++) {
        size_t ul = strlen(unit[u]), o = 0;
        while (o + ul <= n) {
            memcpy(t + o, unit[u], ul);
            o += ul;
        }
        urisan_hit h[16];
        size_t cnt, next, total = 0, start = 0, calls = 0;
        urisan_status st;
        do {
            st = urisan_extract(t, o, start, NULL, h, 16, &cnt, scratch, sizeof scratch, &next);
            qc_assert(st == URISAN_OK || st == URISAN_E_TOO_MANY);
            total += cnt;
            start = next;
            calls++;
        } while (st == URISAN_E_TOO_MANY);
        qc_assert_uint_eq(next, o);
        (void)calls;
        /* Hits expected per pattern. */
        switch (u) {
        case 0: qc_assert_uint_eq(total, 0); break;          /* "a:" alone: no body */
        case 1: qc_assert_uint_eq(total, 0); break;          /* "a:b<": unclosed, one letter */
        case 2: qc_assert_uint_eq(total, o / ul); break;     /* each bare http://x */
        case 3: ck_assert_uint_ge(total, 1); break;
        case 4: qc_assert_uint_eq(total, 1); break;          /* one long www run */
        case 5: qc_assert_uint_eq(total, o / ul); break;
        default: break;
        }
    }
    free(t);
}
END_TEST

START_TEST(long_bare_uri_is_one_hit_flagged_too_long)
{
    size_t n = 1u << 20;
    char *t = malloc(n);
    qc_assert(t != NULL);
    memcpy(t, "http://example.com/", 19);
    memset(t + 19, 'a', n - 19);
    run r;
    extract_all(t, n, &r);
    qc_assert_int_eq(r.st, URISAN_OK);
    qc_assert_uint_eq(r.n, 1);
    qc_assert_uint_eq(r.h[0].len, n);
    ck_assert_uint_ne(r.h[0].flags & URISAN_F(TOO_LONG), 0);
    free(t);
}
END_TEST

/* Empty text may come as (NULL, 0): no hit, and no arithmetic on or libc
   call with NULL (UBSan). */
START_TEST(null_empty_text_has_no_hits)
{
    urisan_hit hits[4];
    size_t count = 9, next = 9;
    qc_assert_int_eq(urisan_extract(NULL, 0, 0, NULL, hits, 4, &count, NULL, 0, &next), URISAN_OK);
    qc_assert_uint_eq(count, 0);
    qc_assert_uint_eq(next, 0);
}
END_TEST

/* ---- urisan_extract_more: a text read piece by piece ---- */

/* One hit as text: where, what, form, flags, verdict. */
static size_t hit_line(char *o, size_t cap, size_t base, const urisan_hit *h)
{
    int n = snprintf(o, cap, "%zu+%zu %.*s f%u %llx v%d\n", base + h->off, h->len,
                     (int)h->uri_len, h->uri, h->form, (unsigned long long)h->flags,
                     (int)h->decision.verdict);
    return n < 0 || (size_t)n >= cap ? 0 : (size_t)n;
}

/* Every hit of t[0..len) as hit_line text: in one call (piece 0), or
   read piece bytes at a time, as `urisan extract` reads a stream: what a
   call leaves undecided (*next) is called again with more text, from the
   byte before it on. */
static size_t hits_text(const char *t, size_t len, size_t piece, char *o, size_t cap)
{
    urisan_hit h[4];
    size_t used = 0, keep = 0, start = 0, avail = piece ? 0 : len;
    for (;;) {
        if (piece)
            avail = avail + piece < len ? avail + piece : len;
        int more = avail < len;
        size_t n, next = 0;
        urisan_status st;
        do {
            st = urisan_extract_more(t + keep, avail - keep, start - keep, more, NULL, h, 4, &n,
                                     scratch, sizeof scratch, &next);
            qc_assert(st == URISAN_OK || st == URISAN_E_TOO_MANY);
            for (size_t k = 0; k < n; k++)
                used += hit_line(o + used, cap - used, keep, &h[k]);
            start = keep + next;
        } while (st == URISAN_E_TOO_MANY);
        if (!more) {
            qc_assert_uint_eq(start, len);
            return used;
        }
        keep = start > 0 ? start - 1 : 0;
    }
}

static const char *const stream_tokens[] = {
    "http://", "https://a.example/", "<", ">", "\"", "www.", "www.b", "URL:", "URL: ", " ",
    "\n", "\r", "\r\n", "-", "a", ".", "(", ")", ":", "mailto:x@y", "x", "\t", "\n\n", "//",
    "\xc3\xa9", "\xe2\x80\x9d", "ftp:", "<URL:", "javascript:", "-\n ", "?q=1", "#f",
};

START_TEST(streamed_pieces_give_the_hits_of_one_call)
{
    static char one[1 << 16], pieces[1 << 16];
    char t[2048];
    unsigned seed = 12345u + (unsigned)_i;
    for (int round = 0; round < 200; round++) {
        size_t len = 0;
        int ntok = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 80;
        for (int k = 0; k < ntok; k++) {
            seed = seed * 1103515245u + 12345u;
            const char *w = stream_tokens[(seed >> 16) % (sizeof stream_tokens / sizeof *stream_tokens)];
            size_t wl = strlen(w);
            if (len + wl >= sizeof t)
                break;
            memcpy(t + len, w, wl);
            len += wl;
        }
        size_t n1 = hits_text(t, len, 0, one, sizeof one);
        static const size_t sizes[] = { 1, 2, 3, 7, 64 };
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
            size_t n2 = hits_text(t, len, sizes[z], pieces, sizeof pieces);
            if (n1 != n2 || memcmp(one, pieces, n1) != 0)
                ck_abort_msg("pieces of %zu differ on \"%.*s\":\n%.*s---\n%.*s", sizes[z],
                             (int)len, t, (int)n1, one, (int)n2, pieces);
        }
    }
}
END_TEST

START_TEST(more_leaves_a_candidate_at_the_end_undecided)
{
    urisan_hit h[4];
    size_t n, next;
    const char *t = "see http://a.example/x and <http://b.example/";
    size_t len = strlen(t);
    /* the text goes on: the bare URI is decided (a space ends it), the
       bracket is not */
    qc_assert_int_eq(urisan_extract_more(t, len, 0, 1, NULL, h, 4, &n, scratch, sizeof scratch,
                                         &next), URISAN_OK);
    qc_assert_uint_eq(n, 1);
    qc_assert_uint_eq(next, (size_t)(strchr(t, '<') - t));
    /* it ends here: the bracket is never closed, the bare rule takes it */
    qc_assert_int_eq(urisan_extract_more(t, len, next, 0, NULL, h, 4, &n, scratch, sizeof scratch,
                                         &next), URISAN_OK);
    qc_assert_uint_eq(n, 1);
    qc_assert_uint_eq(next, len);
}
END_TEST

static Suite *extract_suite(void)
{
    Suite *s = suite_create("extract");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, appendix_e_example_yields_exactly_its_three_uris);
    tcase_add_test(tc, wrapped_uri_drops_whitespace_around_line_breaks);
    tcase_add_test(tc, space_inside_a_line_or_blank_line_is_no_wrap);
    tcase_add_test(tc, hyphen_at_line_end_yields_both_readings);
    tcase_add_loop_test(tc, trailing_punctuation_and_unbalanced_brackets_are_left_out, 0,
                        (int)(sizeof punct_cases / sizeof punct_cases[0]));
    tcase_add_loop_test(tc, schemes_in_running_text, 0,
                        (int)(sizeof scheme_cases / sizeof scheme_cases[0]));
    tcase_add_test(tc, www_forms_are_abbreviated_and_analysed_as_http);
    tcase_add_test(tc, ftp_names_are_abbreviated_as_ftp_like_www_names);
    tcase_add_test(tc, flags_come_from_the_analysis_of_the_uri);
    tcase_add_test(tc, hit_cap_returns_too_many_and_resumes_to_the_same_hits);
    tcase_add_test(tc, scratch_full_is_too_many_and_too_small_is_nospace);
    tcase_add_test(tc, bad_arguments_are_rejected);
    tcase_add_loop_test(tc, nothing_is_read_past_len, 0,
                        (int)(sizeof edge_inputs / sizeof edge_inputs[0]));
    tcase_add_test(tc, adversarial_megabytes_are_scanned_with_exact_results);
    tcase_add_test(tc, long_bare_uri_is_one_hit_flagged_too_long);
    tcase_add_test(tc, null_empty_text_has_no_hits);
    tcase_add_loop_test(tc, streamed_pieces_give_the_hits_of_one_call, 0, 8);
    tcase_add_test(tc, more_leaves_a_candidate_at_the_end_undecided);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(extract_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
