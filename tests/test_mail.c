/*
 * test_mail.c - liburisan-mail's public API (include/urisan_mail.h):
 * urisan_mail_scan per message, hits with part, source, link text and
 * verdict, limits told to on_diag and in the status, never silent.
 * The command's --mail output is tested by tests/extract_mail_test.py.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "urisan_host.h"
#include "urisan_mail.h"
#include "attach.h"
#include "unwrap.h"

#include <glib.h>

#define MAXROWS 64

typedef struct {
    char row[MAXROWS][256]; /* "part source uri|display|verdict" */
    size_t n, diags, stop_after;
    unsigned diag_limits;
    char diag_part[32];
} rows;

static bool on_hit(void *ctx, const urisan_mail_hit *h)
{
    rows *r = ctx;
    if (r->n < MAXROWS) {
        snprintf(r->row[r->n], sizeof r->row[0], "%s %s %.*s|%.*s|%s", h->part,
                 urisan_mail_source_name(h->source), (int)h->uri_len, h->uri,
                 h->display ? (int)h->display_len : 4, h->display ? h->display : "null",
                 urisan_verdict_name(h->decision.verdict));
    }
    r->n++;
    return r->stop_after == 0 || r->n < r->stop_after;
}

static bool on_diag(void *ctx, const urisan_mail_diag *d)
{
    rows *r = ctx;
    r->diags++;
    r->diag_limits |= 1u << d->limit;
    snprintf(r->diag_part, sizeof r->diag_part, "%s", d->part ? d->part : "-");
    ck_assert_ptr_nonnull(d->message);
    return true;
}

static urisan_mail_status scan(const char *msg, const urisan_mail_limits *lim, rows *r,
                               urisan_mail_result *res)
{
    urisan_mail_sink sink = { on_hit, on_diag, r };
    return urisan_mail_scan(msg, strlen(msg), NULL, lim, &sink, res);
}

static const char *const multipart =
    "From: a@example.org\r\n"
    "Subject: hello\r\n"
    "MIME-Version: 1.0\r\n"
    "Content-Type: multipart/alternative; boundary=\"XX\"\r\n"
    "\r\n"
    "--XX\r\n"
    "Content-Type: text/plain; charset=us-ascii\r\n"
    "\r\n"
    "see https://bank.example/login\r\n"
    "--XX\r\n"
    "Content-Type: text/html; charset=utf-8\r\n"
    "Content-Transfer-Encoding: quoted-printable\r\n"
    "\r\n"
    "<a href=3D\"http://0x7f.1/?a=3D1&amp;b=3D2\">https://bank.example/</a>=\r\n"
    "<img src=3D\"https://img.example/x.png\">\r\n"
    "--XX--\r\n";

START_TEST(a_message_gives_hits_with_part_source_display_and_verdict)
{
    rows r;
    memset(&r, 0, sizeof r);
    urisan_mail_result res;
    urisan_mail_status st = scan(multipart, NULL, &r, &res);
    ck_assert_int_eq(st, URISAN_MAIL_OK);
    ck_assert_uint_eq(r.n, 3);
    ck_assert_str_eq(r.row[0], "1 text https://bank.example/login|null|allow");
    /* entities and quoted-printable undone; the text names another domain
       than the href (an IP literal): link_text_mismatch, and a deny */
    ck_assert_str_eq(r.row[1], "2 html-href http://0x7f.1/?a=1&b=2|https://bank.example/|deny");
    ck_assert_str_eq(r.row[2], "2 html-src https://img.example/x.png|null|allow");
    ck_assert_uint_eq(res.parts, 2);
    ck_assert_uint_eq(res.hits, 3);
    ck_assert_uint_eq(res.limits, 0);
    ck_assert_int_eq(res.worst, URISAN_DENY);
    ck_assert_uint_eq(r.diags, 0);
}
END_TEST

/* URLs in the Subject and other text header fields, RFC 2047
   encoded-words decoded by GMime, source "header" and the field's name;
   an attached message's head as "2.HEADER"; other fields not scanned. */
static char hdr_names[MAXROWS][32];
static size_t hdr_n;

static bool on_hit_hdr(void *ctx, const urisan_mail_hit *h)
{
    if (hdr_n < MAXROWS)
        snprintf(hdr_names[hdr_n++], sizeof hdr_names[0], "%s@%zu+%zu",
                 h->header ? h->header : "-", h->offset, h->length);
    return on_hit(ctx, h);
}

START_TEST(header_fields_are_scanned_decoded_with_source_header)
{
    static const char msg[] =
        "From: \"www.bank.example\" <x@evil.example>\n"
        "To: b@example.org\n"
        "Subject: =?UTF-8?B?VmlzaXQgaHR0cHM6Ly9ldmlsLmV4YW1wbGUvbG9naW4gbm93?=\n"
        "Comments: =?iso-8859-1?q?voir_http=3A=2F=2Fq=2Eexample=2Fcaf=E9?=\n"
        "List-Unsubscribe: <https://list.example/u?x=1>\n"
        "X-Other: http://not-scanned.example/\n"
        "Received: from http://not-scanned2.example/\n"
        "MIME-Version: 1.0\n"
        "Content-Type: multipart/mixed; boundary=b\n"
        "\n"
        "--b\n"
        "Content-Type: text/plain\n"
        "\n"
        "body http://body.example/\n"
        "--b\n"
        "Content-Type: message/rfc822\n"
        "\n"
        "Subject: inner http://inner.example/\n"
        "\n"
        "inner body\n"
        "--b--\n";
    rows r;
    memset(&r, 0, sizeof r);
    hdr_n = 0;
    urisan_mail_sink sink = { on_hit_hdr, on_diag, &r };
    urisan_mail_result res;
    ck_assert_int_eq(urisan_mail_scan(msg, strlen(msg), NULL, NULL, &sink, &res), URISAN_MAIL_OK);
    ck_assert_uint_eq(r.n, 6);
    ck_assert_str_eq(r.row[0], "HEADER header http://www.bank.example|null|allow");
    ck_assert_str_eq(r.row[1], "HEADER header https://evil.example/login|null|allow");
    /* written in Unicode: judged as the URI a browser opens */
    ck_assert_str_eq(r.row[2], "HEADER header http://q.example/caf%C3%A9|null|allow");
    ck_assert_str_eq(r.row[3], "HEADER header https://list.example/u?x=1|null|allow");
    ck_assert_str_eq(r.row[4], "1 text http://body.example/|null|allow");
    ck_assert_str_eq(r.row[5], "2.HEADER header http://inner.example/|null|allow");
    /* offsets into the decoded value: "Visit https://..." */
    ck_assert_str_eq(hdr_names[0], "From@1+16");
    ck_assert_str_eq(hdr_names[1], "Subject@6+26");
    ck_assert_str_eq(hdr_names[2], "Comments@5+22");
    ck_assert_str_eq(hdr_names[3], "List-Unsubscribe@1+26");
    ck_assert_str_eq(hdr_names[4], "-@5+20");
    ck_assert_str_eq(hdr_names[5], "Subject@6+21");
    ck_assert_uint_eq(res.parts, 2); /* header fields are no parts */
    ck_assert_str_eq(urisan_mail_source_name(URISAN_MAIL_SRC_HEADER), "header");
}
END_TEST

/* A link written in Unicode (RFC 3987): the URI a browser opens (host
   by UTS #46, the rest percent-encoded) is judged; written keeps it. */
static char written_rows[4][128];
static size_t written_n;

static bool on_hit_written(void *ctx, const urisan_mail_hit *h)
{
    if (written_n < 4)
        snprintf(written_rows[written_n++], sizeof written_rows[0], "%.*s <- %.*s",
                 (int)h->uri_len, h->uri, h->written ? (int)h->written_len : 4,
                 h->written ? h->written : "NULL");
    return on_hit(ctx, h);
}

START_TEST(an_iri_is_judged_as_the_uri_a_browser_opens_and_keeps_written)
{
    static const char msg[] =
        "Subject: x\n"
        "MIME-Version: 1.0\n"
        "Content-Type: multipart/mixed; boundary=b\n"
        "\n"
        "--b\n"
        "Content-Type: text/plain; charset=utf-8\n"
        "\n"
        "Menu at https://b\xc3\xbc" "cher.de/angebote and https://ascii.example/\n"
        "--b\n"
        "Content-Type: text/html; charset=utf-8\n"
        "\n"
        "<a href=\"https://\xd0\xbf\xd1\x80\xd0\xb8\xd0\xbc\xd0\xb5\xd1\x80.\xd1\x80\xd1\x84/\xd1\x8f\">x</a>\n"
        "--b--\n";
    rows r;
    memset(&r, 0, sizeof r);
    written_n = 0;
    urisan_mail_sink sink = { on_hit_written, on_diag, &r };
    ck_assert_int_eq(urisan_mail_scan(msg, strlen(msg), NULL, NULL, &sink, NULL), URISAN_MAIL_OK);
    ck_assert_uint_eq(r.n, 3);
    ck_assert_str_eq(r.row[0], "1 text https://xn--bcher-kva.de/angebote|null|flag"); /* idn */
    ck_assert_str_eq(written_rows[0],
                     "https://xn--bcher-kva.de/angebote <- https://b\xc3\xbc" "cher.de/angebote");
    ck_assert_str_eq(written_rows[1], "https://ascii.example/ <- NULL");
    ck_assert_str_eq(written_rows[2], "https://xn--e1afmkfd.xn--p1ai/%D1%8F <- "
                     "https://\xd0\xbf\xd1\x80\xd0\xb8\xd0\xbc\xd0\xb5\xd1\x80.\xd1\x80\xd1\x84/\xd1\x8f");
}
END_TEST

/* urisan_mail_scan decides with the host layer, as every door: a link
   whose host imitates a protected name is homograph (a host flag the
   core alone never sets) and denied under the mail profile, its verdict
   and flags those of urisan_judge on the same URI. */
static urisan_flags hit_flags;
static bool on_hit_flags(void *ctx, const urisan_mail_hit *h)
{
    hit_flags = h->flags;
    return on_hit(ctx, h);
}

START_TEST(mail_scan_decides_through_the_host_layer_as_every_door)
{
    static const char msg[] =
        "Subject: x\n"
        "Content-Type: text/plain; charset=utf-8\n"
        "\n"
        "Verify at https://xn--pple-43d.com/login\n";
    urisan_policy *pol = malloc(urisan_policy_size());
    ck_assert_ptr_nonnull(pol);
    urisan_policy_init(pol);
    ck_assert_int_eq(urisan_policy_profile(pol, "mail", 4), URISAN_OK);
    rows r;
    memset(&r, 0, sizeof r);
    urisan_mail_sink sink = { on_hit_flags, on_diag, &r };
    ck_assert_int_eq(urisan_mail_scan(msg, strlen(msg), pol, NULL, &sink, NULL), URISAN_MAIL_OK);
    ck_assert_uint_eq(r.n, 1);
    ck_assert_str_eq(r.row[0], "1 text https://xn--pple-43d.com/login|null|deny");
    ck_assert(hit_flags & URISAN_F(HOMOGRAPH));
    urisan_judgement j;
    static const char uri[] = "https://xn--pple-43d.com/login";
    urisan_judge(NULL, uri, strlen(uri), pol, 0, &j);
    ck_assert_uint_eq(j.rep.flags, hit_flags);
    ck_assert_int_eq(j.dec.verdict, URISAN_DENY);
    free(pol);
}
END_TEST

START_TEST(a_false_callback_stops_the_scan)
{
    rows r;
    memset(&r, 0, sizeof r);
    r.stop_after = 1;
    urisan_mail_result res;
    ck_assert_int_eq(scan(multipart, NULL, &r, &res), URISAN_MAIL_STOPPED);
    ck_assert_uint_eq(r.n, 1);
}
END_TEST

START_TEST(deep_nesting_is_a_limit_told_to_on_diag_and_the_raw_message_is_scanned)
{
    /* 5 levels of multipart, the limit at 3: the raw message is scanned
       as text so the link is still found. */
    char msg[4096];
    size_t o = 0;
    o += (size_t)snprintf(msg + o, sizeof msg - o, "From: a@example.org\nMIME-Version: 1.0\n");
    for (int i = 0; i < 5; i++)
        o += (size_t)snprintf(msg + o, sizeof msg - o,
                              "Content-Type: multipart/mixed; boundary=\"b%d\"\n\n--b%d\n", i, i);
    o += (size_t)snprintf(msg + o, sizeof msg - o,
                          "Content-Type: text/plain\n\nhttp://deep.example/\n");
    for (int i = 4; i >= 0; i--)
        o += (size_t)snprintf(msg + o, sizeof msg - o, "--b%d--\n", i);

    urisan_mail_limits lim;
    urisan_mail_limits_default(&lim);
    ck_assert_uint_eq(lim.max_depth, 64);
    rows r;
    memset(&r, 0, sizeof r);
    urisan_mail_result res;
    ck_assert_int_eq(scan(msg, &lim, &r, &res), URISAN_MAIL_OK);
    ck_assert_uint_eq(r.n, 1);

    lim.max_depth = 3;
    memset(&r, 0, sizeof r);
    ck_assert_int_eq(scan(msg, &lim, &r, &res), URISAN_MAIL_LIMIT);
    ck_assert_uint_eq(res.limits, 1u << URISAN_MAIL_LIMIT_DEPTH);
    ck_assert_uint_eq(r.diags, 1);
    ck_assert_str_eq(r.diag_part, "raw");
    ck_assert_uint_ge(r.n, 1);
    ck_assert_str_eq(r.row[r.n - 1], "raw text http://deep.example/|null|allow");
    ck_assert_int_eq(res.worst, URISAN_DENY); /* mail_limit: denied by default */
}
END_TEST

/* GMime compares each "--" line with every enclosing boundary;
   10 nested multiparts and a part of 6,000 "--x" lines cost 20 x 10 per
   line, past the 1 MiB allowance when max_boundary_ratio is 0. */
START_TEST(dash_lines_inside_nested_multiparts_are_the_limit_boundaries)
{
    size_t cap = 64 << 10, o = 0;
    char *msg = malloc(cap);
    ck_assert_ptr_nonnull(msg);
    o += (size_t)snprintf(msg + o, cap - o, "From: a@example.org\nMIME-Version: 1.0\n");
    for (int i = 0; i < 10; i++)
        o += (size_t)snprintf(msg + o, cap - o,
                              "Content-Type: multipart/mixed; boundary=\"b%d\"\n\n--b%d\n", i, i);
    o += (size_t)snprintf(msg + o, cap - o, "Content-Type: text/plain\n\nhttp://dash.example/\n");
    for (int i = 0; i < 6000; i++)
        o += (size_t)snprintf(msg + o, cap - o, "--x\n");
    for (int i = 9; i >= 0; i--)
        o += (size_t)snprintf(msg + o, cap - o, "--b%d--\n", i);
    ck_assert_uint_lt(o, cap - 1);

    urisan_mail_limits lim;
    urisan_mail_limits_default(&lim);
    ck_assert_uint_eq(lim.max_boundary_ratio, 8);
    rows r;
    memset(&r, 0, sizeof r);
    urisan_mail_result res;
    ck_assert_int_eq(scan(msg, &lim, &r, &res), URISAN_MAIL_OK); /* 1.2 MB of work < 1.3 */
    ck_assert_uint_eq(r.n, 1);

    lim.max_boundary_ratio = 0;
    memset(&r, 0, sizeof r);
    ck_assert_int_eq(scan(msg, &lim, &r, &res), URISAN_MAIL_LIMIT);
    ck_assert_uint_eq(res.limits, 1u << URISAN_MAIL_LIMIT_BOUNDARIES);
    ck_assert_uint_eq(r.diags, 1);
    ck_assert_str_eq(r.diag_part, "raw");
    ck_assert_str_eq(r.row[r.n - 1], "raw text http://dash.example/|null|allow");
    free(msg);
}
END_TEST

/* The head of a part (after "--boundary", or the content of a
   message/rfc822 part) is bounded like the message head: GMime keeps
   every field of it (16 MB of "X-P: v" fields in one part: 682 MB RSS,
   3 MB/s before). A "--" line that is no boundary opens no head. */
static size_t part_msg(char *msg, size_t cap, const char *ctype, const char *inner_ct,
                       const char *first_line, int fields)
{
    size_t o = (size_t)snprintf(msg, cap, "From: a@example.org\nMIME-Version: 1.0\n"
                                          "Content-Type: %s\n\n--b1\nContent-Type: %s\n",
                                ctype, inner_ct);
    o += (size_t)snprintf(msg + o, cap - o, "%s", first_line);
    for (int i = 0; i < fields; i++)
        o += (size_t)snprintf(msg + o, cap - o, "X-P%d: v\n", i);
    o += (size_t)snprintf(msg + o, cap - o, "\nhttp://in.example/\n--b1--\n");
    return o;
}

START_TEST(part_heads_are_bounded_like_the_message_head)
{
    static const struct {
        const char *ctype, *inner_ct, *first_line;
        int fields;
        int limit; /* -1: none */
    } cases[] = {
        /* a part head: 30 fields */
        {"multipart/mixed; boundary=b1", "text/plain", "", 30, URISAN_MAIL_LIMIT_HEADERS},
        {"multipart/mixed; boundary=\"b1\"", "text/plain", "", 30, URISAN_MAIL_LIMIT_HEADERS},
        {"multipart/mixed; BOUNDARY=\"b1\"", "text/plain", "", 10, -1},
        /* the type folded onto the next line, or after a comment: GMime
           still reads a multipart there */
        {"\n multipart/mixed; boundary=b1", "text/plain", "", 30, URISAN_MAIL_LIMIT_HEADERS},
        {"(c) multipart/mixed; boundary=b1", "text/plain", "", 30, URISAN_MAIL_LIMIT_HEADERS},
        /* an attached message's head (the part's content) */
        {"multipart/mixed; boundary=b1", "message/rfc822", "\n", 30, URISAN_MAIL_LIMIT_HEADERS},
        /* a "-- " signature line then 30 lines: body text, no head */
        {"multipart/mixed; boundary=b1", "text/plain", "\nhi\n-- \n", 30, -1},
        /* a boundary this pass cannot read as GMime does (RFC 2231): every
           "--" line may open a head, the signature included */
        {"multipart/mixed; boundary*=us-ascii''b1", "text/plain", "\nhi\n-- \n", 30,
         URISAN_MAIL_LIMIT_HEADERS},
    };
    char msg[4096];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        part_msg(msg, sizeof msg, cases[k].ctype, cases[k].inner_ct, cases[k].first_line,
                 cases[k].fields);
        urisan_mail_limits lim;
        urisan_mail_limits_default(&lim);
        lim.max_headers = 20;
        rows r;
        memset(&r, 0, sizeof r);
        urisan_mail_result res;
        urisan_mail_status st = scan(msg, &lim, &r, &res);
        if (cases[k].limit < 0) {
            ck_assert_msg(st == URISAN_MAIL_OK, "case %zu: status %d", k, (int)st);
            ck_assert_uint_eq(res.limits, 0);
        } else {
            ck_assert_msg(st == URISAN_MAIL_LIMIT, "case %zu: status %d", k, (int)st);
            ck_assert_uint_eq(res.limits, 1u << cases[k].limit);
            ck_assert_str_eq(r.row[r.n - 1], "raw text http://in.example/|null|allow");
        }
    }
}
END_TEST

/* 998 parts of 63 parameters each cost GMime ~0.2 s (one
   GObject per parameter) for 2.5 MB: parameters in all are bounded. */
START_TEST(parameters_of_all_fields_are_bounded)
{
    size_t cap = 256 << 10, o = 0;
    char *msg = malloc(cap);
    ck_assert_ptr_nonnull(msg);
    o += (size_t)snprintf(msg + o, cap - o, "MIME-Version: 1.0\n"
                                            "Content-Type: multipart/mixed; boundary=p\n\n");
    for (int i = 0; i < 100; i++) {
        o += (size_t)snprintf(msg + o, cap - o, "--p\nContent-Type: text/plain");
        for (int k = 0; k < 30; k++)
            o += (size_t)snprintf(msg + o, cap - o, "; a%d=b", k);
        o += (size_t)snprintf(msg + o, cap - o, "\n\nhttp://p%d.example/\n", i);
    }
    o += (size_t)snprintf(msg + o, cap - o, "--p--\n");
    ck_assert_uint_lt(o, cap - 1);
    urisan_mail_limits lim;
    urisan_mail_limits_default(&lim);
    ck_assert_uint_eq(lim.max_params_total, 4096);
    rows r;
    memset(&r, 0, sizeof r);
    urisan_mail_result res;
    ck_assert_int_eq(scan(msg, &lim, &r, &res), URISAN_MAIL_OK); /* 3,001 <= 4096 + 86 */
    ck_assert_uint_eq(res.limits, 0);
    lim.max_params_total = 1000;
    memset(&r, 0, sizeof r);
    ck_assert_int_eq(scan(msg, &lim, &r, &res), URISAN_MAIL_LIMIT);
    ck_assert_uint_eq(res.limits, 1u << URISAN_MAIL_LIMIT_PARAMS_TOTAL);
    free(msg);
}
END_TEST

START_TEST(html_memory_bound_is_a_limit_and_the_links_found_are_kept)
{
    char msg[8192];
    size_t o = (size_t)snprintf(msg, sizeof msg, "Content-Type: text/html\n\n");
    for (int i = 0; i < 100; i++)
        o += (size_t)snprintf(msg + o, sizeof msg - o, "<a href=\"http://h%d.example/\">x</a>", i);
    urisan_mail_limits lim;
    urisan_mail_limits_default(&lim);
    lim.max_html_mem = 1024;
    rows r;
    memset(&r, 0, sizeof r);
    urisan_mail_result res;
    ck_assert_int_eq(scan(msg, &lim, &r, &res), URISAN_MAIL_LIMIT);
    ck_assert_uint_eq(res.limits, 1u << URISAN_MAIL_LIMIT_HTML);
    ck_assert_str_eq(r.diag_part, "1");
    ck_assert_uint_gt(r.n, 0);
    ck_assert_uint_lt(r.n, 100);
}
END_TEST

START_TEST(names_of_sources_and_limits)
{
    ck_assert_str_eq(urisan_mail_source_name(URISAN_MAIL_SRC_TEXT), "text");
    ck_assert_str_eq(urisan_mail_source_name(URISAN_MAIL_SRC_HTML_HREF), "html-href");
    ck_assert_str_eq(urisan_mail_source_name(URISAN_MAIL_SRC_HTML_SRC), "html-src");
    ck_assert_ptr_null(urisan_mail_source_name((urisan_mail_source)99));
    ck_assert_str_eq(urisan_mail_limit_name(URISAN_MAIL_LIMIT_DEPTH), "depth");
    ck_assert_str_eq(urisan_mail_limit_name(URISAN_MAIL_LIMIT_HTML), "html_mem");
    ck_assert_str_eq(urisan_mail_limit_name(URISAN_MAIL_LIMIT_PARAMS), "params");
    ck_assert_str_eq(urisan_mail_limit_name(URISAN_MAIL_LIMIT_HTML_SIZE), "html_size");
    ck_assert_str_eq(urisan_mail_limit_name(URISAN_MAIL_LIMIT_BOUNDARIES), "boundaries");
    ck_assert_str_eq(urisan_mail_limit_name(URISAN_MAIL_LIMIT_PARAMS_TOTAL), "params_total");
    ck_assert_ptr_null(urisan_mail_limit_name((urisan_mail_limit)99));
}
END_TEST

START_TEST(link_text_mismatch_on_its_own)
{
    const char *d = "www.paypal.com", *h = "https://paypal.evil.example/";
    ck_assert(urisan_mail_link_text_mismatch(d, strlen(d), h, strlen(h)));
    h = "https://www.paypal.com/signin";
    ck_assert(!urisan_mail_link_text_mismatch(d, strlen(d), h, strlen(h)));
    d = "Click here";
    ck_assert(!urisan_mail_link_text_mismatch(d, strlen(d), h, strlen(h)));
}
END_TEST

/* A mailto: link goes to every address (RFC 6068 "to"): the text names
   one domain, the link mails another as well - first or last. */
START_TEST(link_text_mismatch_judges_every_address_of_a_mailto_link)
{
    const char *d = "help@bank.com";
    static const char *const other[] = {
        "mailto:help@bank.com,evil@attacker.net",
        "mailto:evil@attacker.net,help@bank.com",
    };
    for (size_t i = 0; i < 2; i++)
        ck_assert_msg(urisan_mail_link_text_mismatch(d, strlen(d), other[i], strlen(other[i])),
                      "%s", other[i]);
    const char *same = "mailto:help@bank.com,billing@bank.com";
    ck_assert(!urisan_mail_link_text_mismatch(d, strlen(d), same, strlen(same)));
}
END_TEST

START_TEST(null_result_and_limits_are_accepted)
{
    rows r;
    memset(&r, 0, sizeof r);
    urisan_mail_sink sink = { on_hit, NULL, &r };
    ck_assert_int_eq(urisan_mail_scan(multipart, strlen(multipart), NULL, NULL, &sink, NULL),
                     URISAN_MAIL_OK);
    ck_assert_uint_eq(r.n, 3);
}
END_TEST

/* What a part is read as: file name, declared type, first bytes. */
static const struct {
    const char *name, *type, *data;
    bool attached;
    unsigned kinds;
} sniffs[] = {
#define K(k) MAIL_KIND_BIT(MAIL_KIND_##k)
    { NULL, "text/plain", "<html><a href=x>", false, K(TEXT) },  /* inline: its type */
    { NULL, "text/html", "plain words", false, K(HTML) },
    { NULL, "text/calendar", "", false, K(CALENDAR) },
    { "a.html", "application/octet-stream", "\x01\x02binary", true, K(HTML) },
    { "A.HTM", "text/plain", "hello", true, K(HTML) },
    { "a.html. ", "application/octet-stream", "", true, K(HTML) },      /* Windows trims */
    { "a.svg", "application/octet-stream", "", true, K(HTML) },
    { "a.xhtml", NULL, "", true, K(HTML) },
    { "a.shtml", NULL, "", true, K(HTML) },
    { "a.url", "text/plain", "[InternetShortcut]", true, K(SHORTCUT) },  /* not text too */
    { "a.webloc", NULL, "", true, K(SHORTCUT) },
    { "a.desktop", NULL, "", true, K(SHORTCUT) },
    { "a.ics", "application/octet-stream", "", true, K(CALENDAR) },
    { "a.txt", "application/octet-stream", "words", true, K(TEXT) },
    { "a.dat", "application/octet-stream", "  <!DOCTYPE html><p>", true, K(HTML) },
    { "a.dat", "application/octet-stream", "\xef\xbb\xbf<svg>", true, K(HTML) },
    { "a.dat", "application/octet-stream", "<?xml version='1.0'?><svg/>", true, K(HTML) },
    { "a.dat", "application/octet-stream", "BEGIN:VCALENDAR\r\n", true, K(CALENDAR) },
    { "a.dat", "application/octet-stream", "[Desktop Entry]\n", true, K(SHORTCUT) },
    { "a.dat", "application/octet-stream", "<?xml?><!DOCTYPE plist><plist>", true, K(SHORTCUT) },
    { "a.dat", "application/octet-stream", "plain words", true, K(TEXT) },
    { "a.dat", "application/octet-stream", "words\x01more", true, 0 },   /* binary byte */
    { "a.dat", "application/octet-stream", "\n%PDF-1.4", true, K(PDF) },
    { "a.dat", "application/octet-stream", "PK\x03\x04", true, K(OOXML) },
    { "a.pdf", "application/octet-stream", "", true, K(PDF) },
    { "a.docm", NULL, "", true, K(OOXML) },
    { NULL, "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "",
      true, K(OOXML) },
    { "a.jpg", "image/png", "", true, K(IMAGE) },
    { "a.png", "image/png", "<html>x", true, K(IMAGE) | K(HTML) },   /* both readings */
    { NULL, "image/svg+xml", "", false, K(HTML) },
    { "a.exe", "application/octet-stream", "MZ\x90\x03\x01", true, 0 },
#undef K
};

START_TEST(a_part_is_read_by_its_file_name_type_and_first_bytes)
{
    unsigned got = mail_sniff(sniffs[_i].name, sniffs[_i].type, sniffs[_i].data,
                              strlen(sniffs[_i].data), sniffs[_i].attached);
    ck_assert_msg(got == sniffs[_i].kinds, "%s %s %s: kinds 0x%x, want 0x%x",
                  sniffs[_i].name ? sniffs[_i].name : "(no name)",
                  sniffs[_i].type ? sniffs[_i].type : "(no type)", sniffs[_i].data, got,
                  sniffs[_i].kinds);
}
END_TEST

/* An empty body arrives as NULL data (corpus/attach/empty-label-byte). */
START_TEST(an_empty_body_without_data_is_read_as_text)
{
    ck_assert_uint_eq(mail_sniff("a.dat", "application/octet-stream", NULL, 0, true),
                      MAIL_KIND_BIT(MAIL_KIND_TEXT));
}
END_TEST

/* Empty parts reach the readers with data (GMime gives an empty body no
   buffer): an empty .url attachment and an empty body under two transfer
   encodings are read without a link or a diagnostic, and under UBSan
   without a null-pointer offset (corpus/mail/empty-shortcut-attachment,
   corpus/mail/empty-body-two-cte). */
START_TEST(an_empty_part_is_read_as_empty_bytes)
{
    static const char *const msgs[] = {
        "From: a@example.org\nMIME-Version: 1.0\n"
        "Content-Type: multipart/mixed; boundary=b\n\n--b\n"
        "Content-Type: application/octet-stream\n"
        "Content-Disposition: attachment; filename=a.url\n\n--b--\n",
        "From: a@example.org\nMIME-Version: 1.0\nContent-Type: text/plain\n"
        "Content-Transfer-Encoding: base64\nContent-Transfer-Encoding: quoted-printable\n\n",
    };
    for (size_t i = 0; i < sizeof msgs / sizeof msgs[0]; i++) {
        rows r;
        memset(&r, 0, sizeof r);
        ck_assert_int_eq(scan(msgs[i], NULL, &r, NULL), URISAN_MAIL_OK);
        ck_assert_uint_eq(r.n, 0);
        ck_assert_uint_eq(r.diags, 0);
    }
}
END_TEST

/* Rewritten links, as each service decodes them (public formats). */
static const struct {
    const char *in, *service, *dest; /* service NULL: no wrapper read */
} unwraps[] = {
    { "https://nam02.safelinks.protection.outlook.com/?url=https%3A%2F%2Fevil.example%2Fa%3Fb%3D1&data=05",
      "safelinks", "https://evil.example/a?b=1" },
    { "https://eur01.safelinks.protection.outlook.com/?data=x&url=http%3A%2F%2F127.0.0.1%2F",
      "safelinks", "http://127.0.0.1/" },
    { "https://urldefense.proofpoint.com/v1/url?u=http%3A%2F%2Fevil.example%2F&k=abc",
      "proofpoint-v1", "http://evil.example/" },
    { "https://urldefense.proofpoint.com/v2/url?u=http-3A__evil.example_a-3Fb-3D1&d=DwMF&c=x",
      "proofpoint-v2", "http://evil.example/a?b=1" },
    /* v3: '*' the next character of the base64url text ("JSM": "%#"),
       "**" + letter a run of 2 + the letter's place */
    { "https://urldefense.com/v3/__https://evil.example/o*2Fx?a=1*frag__;JSM!!AbC!xyz$",
      "proofpoint-v3", "https://evil.example/o%2Fx?a=1#frag" },
    { "https://urldefense.com/v3/__https://evil.example/**Ax__;JSM!!AbC!xyz$",
      "proofpoint-v3", "https://evil.example/%#x" },
    { "https://urldefense.com/v3/__https://evil.example/**Bx__;JSM!!AbC!xyz$", NULL, NULL },
    { "https://linkprotect.cudasvc.com/url?a=https%3a%2f%2fevil.example%2f&c=E,1,x&typo=1",
      "barracuda", "https://evil.example/" },
    { "https://www.google.com/url?q=http://127.0.0.1/x&sa=D", "google", "http://127.0.0.1/x" },
    { "https://l.facebook.com/l.php?u=https%3A%2F%2Fevil.example%2F&h=AT0", "facebook",
      "https://evil.example/" },
    { "https://www.google.com/search?q=http://127.0.0.1/", NULL, NULL },  /* not /url */
    { "https://safelinks.protection.outlook.com.evil.example/?url=http%3A%2F%2Fx%2F", NULL, NULL },
    { "https://nam02.safelinks.protection.outlook.com/?url=notaurl", NULL, NULL },
    { "https://user@urldefense.com/v3/__https://x.example/__;!!", NULL, NULL },
};

START_TEST(a_rewritten_link_is_read_as_its_service_decodes_it)
{
    char *out = NULL;
    size_t n = 0;
    const char *in = unwraps[_i].in;
    const char *svc = mail_unwrap(in, strlen(in), &out, &n);
    if (unwraps[_i].service == NULL) {
        ck_assert_msg(svc == NULL && out == NULL, "%s: read as %s", in, svc ? svc : "");
        return;
    }
    ck_assert_msg(svc != NULL && strcmp(svc, unwraps[_i].service) == 0, "%s: service %s", in,
                  svc ? svc : "(none)");
    ck_assert_msg(n == strlen(unwraps[_i].dest) && memcmp(out, unwraps[_i].dest, n) == 0,
                  "%s: destination %.*s", in, (int)n, out);
    g_free(out);
}
END_TEST

static Suite *mail_suite(void)
{
    Suite *s = suite_create("mail");
    TCase *tc = tcase_create("api");
    tcase_add_test(tc, a_message_gives_hits_with_part_source_display_and_verdict);
    tcase_add_test(tc, a_false_callback_stops_the_scan);
    tcase_add_test(tc, an_iri_is_judged_as_the_uri_a_browser_opens_and_keeps_written);
    tcase_add_test(tc, header_fields_are_scanned_decoded_with_source_header);
    tcase_add_test(tc, deep_nesting_is_a_limit_told_to_on_diag_and_the_raw_message_is_scanned);
    tcase_add_test(tc, dash_lines_inside_nested_multiparts_are_the_limit_boundaries);
    tcase_add_test(tc, part_heads_are_bounded_like_the_message_head);
    tcase_add_test(tc, parameters_of_all_fields_are_bounded);
    tcase_add_test(tc, html_memory_bound_is_a_limit_and_the_links_found_are_kept);
    tcase_add_test(tc, names_of_sources_and_limits);
    tcase_add_test(tc, link_text_mismatch_on_its_own);
    tcase_add_test(tc, link_text_mismatch_judges_every_address_of_a_mailto_link);
    tcase_add_test(tc, null_result_and_limits_are_accepted);
    tcase_add_loop_test(tc, a_rewritten_link_is_read_as_its_service_decodes_it, 0,
                        (int)(sizeof unwraps / sizeof unwraps[0]));
    tcase_add_loop_test(tc, a_part_is_read_by_its_file_name_type_and_first_bytes, 0,
                        (int)(sizeof sniffs / sizeof sniffs[0]));
    tcase_add_test(tc, an_empty_body_without_data_is_read_as_text);
    tcase_add_test(tc, an_empty_part_is_read_as_empty_bytes);
    tcase_add_test(tc, mail_scan_decides_through_the_host_layer_as_every_door);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    urisan_mail_init();
    SRunner *sr = srunner_create(mail_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    urisan_mail_shutdown();
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
