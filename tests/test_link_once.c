/*
 * test_link_once.c - a link found in text or mail is decided once: the
 * caller's hook (urisan_link_hooks) is called exactly once for each hit
 * of urisan_extract_with and of urisan_mail_scan_with, with the URI the
 * hit carries (a link written in Unicode: its converted form only), and
 * the hit carries the hook's flags and decision untouched (a decision
 * taken after the hook would drop the mark the hook puts on it). The
 * hook here wraps the host layer's urisan_judge_link_decide, so the host
 * judgement (homograph) is folded into that one decision.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "urisan_host.h"
#include "urisan_mail.h"

/* A bit of flag_flags no flag has: only the hook sets it. */
#define MARK ((urisan_flags)1 << 63)

typedef struct {
    size_t calls, hits;
    char uri[512];         /* what the last call decided */
    size_t uri_len;
    urisan_flags flags;    /* its flags after the host judgement */
    urisan_decision dec;   /* its decision, marked */
    urisan_flags seen;     /* the flags of every call, or'ed */
    urisan_flags at_call;  /* the flags the finder handed over, or'ed */
    bool display;          /* a call had a link text */
    bool hits_untouched;      /* every hit was the last call's, untouched */
} counter;

static void counting_decide(void *ctx, const urisan_policy *pol, const char *in, size_t len,
                            const urisan_uri *u, urisan_report *rep, const char *display,
                            size_t dlen, urisan_decision *out)
{
    counter *c = ctx;
    c->calls++;
    c->at_call |= rep->flags;
    c->display |= display != NULL;
    urisan_link_judge lj = { NULL, NULL };
    urisan_judge_link_decide(&lj, pol, in, len, u, rep, display, dlen, out);
    out->flag_flags |= MARK;
    c->uri_len = len < sizeof c->uri ? len : sizeof c->uri;
    memcpy(c->uri, in, c->uri_len);
    c->flags = rep->flags;
    c->dec = *out;
    c->seen |= rep->flags;
}

/* The hit h (uri, flags, decision) is what the one call before it gave. */
static bool is_last_call(const counter *c, const char *uri, size_t len, urisan_flags flags,
                         const urisan_decision *d)
{
    return c->calls == c->hits && len == c->uri_len && memcmp(uri, c->uri, len) == 0 &&
           flags == c->flags && d->verdict == c->dec.verdict &&
           d->deny_flags == c->dec.deny_flags && d->flag_flags == c->dec.flag_flags &&
           d->rules == c->dec.rules;
}

static bool on_hit(void *ctx, const urisan_mail_hit *h)
{
    counter *c = ctx;
    c->hits++;
    if (!is_last_call(c, h->uri, h->uri_len, h->flags, &h->decision))
        c->hits_untouched = false;
    return true;
}

static urisan_policy *policy(const char *text)
{
    urisan_policy *p = malloc(urisan_policy_size());
    ck_assert_ptr_nonnull(p);
    urisan_policy_init(p);
    size_t line = 0;
    const char *msg = NULL;
    ck_assert_int_eq(urisan_policy_parse(p, text, strlen(text), &line, &msg), URISAN_OK);
    return p;
}

static const char *const pol_text = "deny homograph\ndeny-host evil.com\n";

static void scan_mail(const char *msg, counter *c)
{
    urisan_policy *p = policy(pol_text);
    memset(c, 0, sizeof *c);
    c->hits_untouched = true;
    urisan_link_hooks hk = { counting_decide, c };
    urisan_mail_sink sink = { on_hit, NULL, c };
    ck_assert_int_eq(urisan_mail_scan_with(msg, strlen(msg), p, NULL, &hk, &sink, NULL),
                     URISAN_MAIL_OK);
    free(p);
}

#define HEAD "From: a@example.org\r\nSubject: t\r\nMIME-Version: 1.0\r\n"

START_TEST(html_link_written_in_unicode_is_decided_once_in_its_converted_form)
{
    counter c;
    scan_mail(HEAD "Content-Type: text/html; charset=utf-8\r\n\r\n"
                   "<a href=\"https://b\xc3\xbc" "cher.de/x\">Buch</a>\r\n", &c);
    ck_assert_uint_eq(c.hits, 1);
    ck_assert_uint_eq(c.calls, 1);
    ck_assert(c.hits_untouched);
    ck_assert_str_eq(c.uri, "https://xn--bcher-kva.de/x");
    ck_assert(!(c.at_call & URISAN_F(NON_ASCII))); /* the written form is not decided */
    ck_assert(c.display);
}
END_TEST

START_TEST(html_link_text_mismatch_is_decided_once_with_the_flag)
{
    counter c;
    scan_mail(HEAD "Content-Type: text/html\r\n\r\n"
                   "<a href=\"https://evil.com/login\">https://paypal.com/</a>\r\n", &c);
    ck_assert_uint_eq(c.hits, 1);
    ck_assert_uint_eq(c.calls, 1);
    ck_assert(c.hits_untouched);
    ck_assert(c.at_call & URISAN_F(LINK_TEXT_MISMATCH)); /* handed to the one decision */
    ck_assert_int_eq(c.dec.verdict, URISAN_DENY);         /* deny-host evil.com */
}
END_TEST

START_TEST(text_link_with_a_host_flag_is_decided_once_with_it)
{
    counter c;
    scan_mail(HEAD "Content-Type: text/plain\r\n\r\n"
                   "see https://xn--80ak6aa92e.com/ now\r\n", &c);
    ck_assert_uint_eq(c.hits, 1);
    ck_assert_uint_eq(c.calls, 1);
    ck_assert(c.hits_untouched);
    ck_assert(c.flags & URISAN_F(HOMOGRAPH));
    ck_assert(c.dec.deny_flags & URISAN_F(HOMOGRAPH)); /* deny homograph, in that decision */
}
END_TEST

START_TEST(nested_url_and_unc_path_and_unicode_text_link_are_each_decided_once)
{
    counter c;
    scan_mail(HEAD "Content-Type: text/plain; charset=utf-8\r\n\r\n"
                   "a https://a.example/?u=https://b.example/ b https://b\xc3\xbc" "cher.de/ "
                   "c \\\\server\\share\\f.txt\r\n"
                   "d <https://a.example/x-\r\n  y>\r\n", &c);
    ck_assert_uint_eq(c.hits, 5); /* d is a hyphen break: both readings */
    ck_assert_uint_eq(c.calls, 5);
    ck_assert(c.hits_untouched);
    ck_assert(c.seen & URISAN_F(NESTED_URL));
}
END_TEST

START_TEST(html_part_links_and_its_visible_text_links_are_each_decided_once)
{
    counter c;
    scan_mail(HEAD "Content-Type: text/html; charset=utf-8\r\n\r\n"
                   "<base href=\"https://base.example/d/\">"
                   "<a href=\"x\">rel</a><img src=\"https://i.example/p.png\">"
                   "<a href=\"https://a.example/?next=https%3A%2F%2Fevil.com%2F\">n</a>"
                   "<p>see https://xn--80ak6aa92e.com/ too</p>\r\n", &c);
    ck_assert_uint_eq(c.hits, 5); /* base, a, img, a, the text's */
    ck_assert_uint_eq(c.calls, 5);
    ck_assert(c.hits_untouched);
}
END_TEST

/* ---- the core's urisan_extract_with ---- */

START_TEST(extract_with_decides_each_stored_hit_once_and_an_undecided_one_never)
{
    counter c;
    memset(&c, 0, sizeof c);
    urisan_policy *p = policy(pol_text);
    urisan_link_hooks hk = { counting_decide, &c };
    /* a hyphen-break twin, then a link that runs to the end of a text
       that goes on (more): undecided, left for the next call */
    const char *t = "one <https://a.example/x-\n y> two https://xn--80ak6aa92e.com/ three http://b.ex";
    urisan_hit hits[8];
    char scratch[4096];
    size_t n = 0, next = 0;
    ck_assert_int_eq(urisan_extract_with(t, strlen(t), 0, 1, p, &hk, hits, 8, &n, scratch,
                                         sizeof scratch, &next),
                     URISAN_OK);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_lt(next, strlen(t));
    ck_assert_uint_eq(c.calls, 3);
    for (size_t k = 0; k < n; k++)
        ck_assert(hits[k].decision.flag_flags & MARK);
    ck_assert(hits[2].flags & URISAN_F(HOMOGRAPH));
    ck_assert_int_eq(hits[2].decision.verdict, URISAN_DENY);
    free(p);
}
END_TEST

static Suite *once_suite(void)
{
    Suite *s = suite_create("link_once");
    TCase *tc = tcase_create("once");
    tcase_add_test(tc, html_link_written_in_unicode_is_decided_once_in_its_converted_form);
    tcase_add_test(tc, html_link_text_mismatch_is_decided_once_with_the_flag);
    tcase_add_test(tc, text_link_with_a_host_flag_is_decided_once_with_it);
    tcase_add_test(tc, nested_url_and_unc_path_and_unicode_text_link_are_each_decided_once);
    tcase_add_test(tc, html_part_links_and_its_visible_text_links_are_each_decided_once);
    tcase_add_test(tc, extract_with_decides_each_stored_hit_once_and_an_undecided_one_never);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(once_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
