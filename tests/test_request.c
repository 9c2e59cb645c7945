/*
 * test_request.c - a request judged as the origin receives it: the URI
 * rebuilt from a gateway's parts (urisan_request_uri, src/request.c) and
 * its one judgement (urisan_judge_request, src/host/judge_request.c).
 * A table of hostile and ordinary requests, each with the part rejected
 * or the URI judged; an allowed request's URI holds the Host and the
 * target unchanged, in their components.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "urisan.h"
#include "urisan_host.h"

typedef struct {
    const char *method;     /* NULL: none given */
    const char *scheme;     /* NULL: none given */
    const char *host;       /* NULL: no Host */
    unsigned host_count;    /* 2: Host came twice */
    const char *target;
    size_t target_len;      /* 0: strlen(target) */
    urisan_request_reason want;
    const char *uri;        /* the URI judged when OK */
} req_case;

#define RC(m, s, h, n, t, want, uri) { m, s, h, n, t, 0, URISAN_REQUEST_##want, uri }

static const req_case cases[] = {
    /* ordinary */
    RC("GET", "http", "www.example.com", 1, "/", OK, "http://www.example.com/"),
    RC("GET", "https", "www.example.com:8443", 1, "/a/b?c=d", OK,
       "https://www.example.com:8443/a/b?c=d"),
    RC(NULL, NULL, "h.example", 1, "/x", OK, "http://h.example/x"),
    RC("POST", "http", "[::1]:8080", 1, "/p", OK, "http://[::1]:8080/p"),
    RC("get", "http", "h.example", 1, "/p", OK, "http://h.example/p"),
    RC("GET", "http", "b\xc3\xbc" "cher.example", 1, "/", OK, "http://b\xc3\xbc" "cher.example/"),
    RC("GET", "http", "h.example", 1, "/%2e%2e/%0d%0a", OK, "http://h.example/%2e%2e/%0d%0a"),
    /* the Host's grammar: uri-host [":" port] (RFC 9110 7.2) */
    RC("GET", "http", "www.example.com?a=", 1, "/hq2?u=http://169.254.169.254/latest/meta-data/",
       BAD_HOST, NULL),
    RC("GET", "http", "www.example.com#", 1, "/hq6/%2e%2e/%2e%2e/etc/passwd", BAD_HOST, NULL),
    RC("GET", "http", "www.example.com:80?a=", 1, "/", BAD_HOST, NULL),
    RC("GET", "http", "www.example.com/?a=", 1, "/", BAD_HOST, NULL),
    RC("GET", "http", "169.254.169.254,www.example.com", 1, "/", BAD_HOST, NULL),
    RC("GET", "http", "evil.example@www.example.com", 1, "/", BAD_HOST, NULL),
    RC("GET", "http", "www.example.com\\evil.example", 1, "/", BAD_HOST, NULL),
    RC("GET", "http", "www.example.com evil", 1, "/", BAD_HOST, NULL),
    RC("GET", "http", "www.example.com\tevil", 1, "/", BAD_HOST, NULL),
    RC("GET", "http", "www.example.com\r\nX: y", 1, "/", BAD_HOST, NULL),
    RC("GET", "http", "www.example.com\x7f", 1, "/", BAD_HOST, NULL),
    RC("GET", "http", "", 1, "/", BAD_HOST, NULL),
    RC("GET", "http", "www.example.com", 2, "/", DUPLICATE, NULL),
    RC("GET", "http", NULL, 0, "/", NO_HOST, NULL),
    /* the target: origin-form, or absolute-form whose authority is Host */
    RC("GET", "http", "h.example", 1, "", BAD_PATH, NULL),
    RC("GET", "http", "h.example", 1, "x/y", BAD_PATH, NULL),
    RC("GET", "http", "www.example.com", 1, "http://169.254.169.254/", HOST_MISMATCH, NULL),
    RC("GET", "http", "www.example.com", 1, "http://www.example.com@169.254.169.254/",
       HOST_MISMATCH, NULL),
    RC("GET", "http", "www.example.com", 1, "http://www.example.com\\@169.254.169.254/",
       HOST_MISMATCH, NULL),
    RC("GET", "http", "www.example.com", 1, "www.example.com:443", HOST_MISMATCH, NULL),
    RC("GET", "http", "www.example.com", 1, "http://www.example.com/a", OK,
       "http://www.example.com/a"),
    RC("GET", "http", "WWW.Example.com:80", 1, "http://www.example.com/a", OK,
       "http://www.example.com/a"),
    RC("GET", "http", "www.example.com", 1, "https://www.example.com:443/a", OK,
       "https://www.example.com:443/a"),
    RC("GET", "http", "www.example.com:8080", 1, "http://www.example.com/a", HOST_MISMATCH, NULL),
    RC("GET", "http", NULL, 0, "http://www.example.com/a", OK, "http://www.example.com/a"),
    RC("GET", "http", "a", 2, "http://a/", DUPLICATE, NULL),
    RC("GET", "http", "a,b", 1, "http://a,b/", BAD_HOST, NULL),
    /* methods and the two forms that name no resource */
    RC("CONNECT", "http", "www.example.com:443", 1, "www.example.com:443", AUTHORITY_FORM, NULL),
    RC("connect", "http", "h", 1, "/", AUTHORITY_FORM, NULL),
    RC("OPTIONS", "http", "www.example.com", 1, "*", ASTERISK_FORM, NULL),
    RC("GE T", "http", "h", 1, "/", BAD_METHOD, NULL),
    RC("", "http", "h", 1, "/", BAD_METHOD, NULL),
    RC("GET\r\n", "http", "h", 1, "/", BAD_METHOD, NULL),
    /* the scheme given */
    RC("GET", "1http", "h", 1, "/", BAD_PROTO, NULL),
    RC("GET", "", "h", 1, "/", BAD_PROTO, NULL),
    RC("GET", "http://evil/", "h", 1, "/", BAD_PROTO, NULL),
};

static void fill(urisan_request *r, const req_case *c)
{
    urisan_request_init(r);
    r->method = c->method;
    r->method_len = c->method ? strlen(c->method) : 0;
    r->scheme = c->scheme;
    r->scheme_len = c->scheme ? strlen(c->scheme) : 0;
    r->target = c->target;
    r->target_len = c->target_len ? c->target_len : strlen(c->target);
    if (c->host != NULL) {
        r->h[URISAN_REQH_HOST] = (urisan_request_field){ c->host, strlen(c->host), c->host_count };
    }
}

START_TEST(each_request_is_rebuilt_or_rejected_by_the_part_named)
{
    const req_case *c = &cases[_i];
    urisan_request r;
    fill(&r, c);
    char buf[512];
    size_t len = 99;
    urisan_request_source used = URISAN_REQSRC_ORIGINAL_URL;
    urisan_request_reason got = urisan_request_uri(&r, NULL, buf, sizeof buf, &len, &used);
    ck_assert_msg(got == c->want, "case %d (%s %s, Host %s): %s, want %s", _i,
                  c->method ? c->method : "-", c->target, c->host ? c->host : "-",
                  urisan_request_reason_name(got), urisan_request_reason_name(c->want));
    if (got == URISAN_REQUEST_OK) {
        ck_assert_uint_eq(len, strlen(c->uri));
        ck_assert_msg(memcmp(buf, c->uri, len) == 0, "case %d: %.*s", _i, (int)len, buf);
    } else {
        ck_assert_uint_eq(len, 0);
    }
    ck_assert_int_eq(used, URISAN_REQSRC_TARGET);
}
END_TEST

/* The one judgement: a rejected request is a deny named by its part; an
   accepted one gets urisan_judge's decision of the URI rebuilt. */
START_TEST(each_request_is_judged_as_its_uri)
{
    const req_case *c = &cases[_i];
    urisan_request r;
    fill(&r, c);
    urisan_policy *pol = malloc(urisan_policy_size());
    ck_assert_ptr_nonnull(pol);
    const char *name = (_i % 2) ? "ssrf" : "default";
    ck_assert_int_eq(urisan_policy_profile(pol, name, strlen(name)), URISAN_OK);
    char buf[512];
    urisan_request_judgement rj;
    urisan_judge_request(NULL, &r, NULL, pol, 0, buf, sizeof buf, &rj);
    ck_assert_int_eq(rj.reason, c->want);
    if (c->want != URISAN_REQUEST_OK) {
        ck_assert_int_eq(rj.j.dec.verdict, URISAN_DENY);
        ck_assert_int_eq(rj.j.uri.valid, 0);
        ck_assert_uint_eq(rj.uri_len, 0);
    } else {
        urisan_judgement j;
        urisan_judge(NULL, c->uri, strlen(c->uri), pol, 0, &j);
        ck_assert_int_eq(rj.j.dec.verdict, j.dec.verdict);
        ck_assert(rj.j.dec.deny_flags == j.dec.deny_flags);
        ck_assert(rj.j.rep.flags == j.rep.flags);
        ck_assert_uint_eq(rj.j.dec.rules, j.dec.rules);
    }
    free(pol);
}
END_TEST

/* An allowed request's Host and target are the URI's authority and the
   rest of it, byte for byte: nothing of either left unjudged. */
START_TEST(an_accepted_origin_form_request_keeps_host_and_target_in_place)
{
    const req_case *c = &cases[_i];
    if (c->want != URISAN_REQUEST_OK || c->target[0] != '/')
        return;
    urisan_uri u;
    urisan_parse(c->uri, strlen(c->uri), NULL, &u, NULL);
    ck_assert(urisan_span_present(u.host));
    size_t auth_off = u.scheme.len + 3;
    size_t auth_end = urisan_span_present(u.port) ? u.port.off + u.port.len : u.host.off + u.host.len;
    ck_assert_uint_eq(auth_end - auth_off, strlen(c->host));
    ck_assert(memcmp(c->uri + auth_off, c->host, strlen(c->host)) == 0);
    ck_assert_str_eq(c->uri + auth_end, c->target);
}
END_TEST

/* A trusted X-Original-URL without a host names nothing a gateway can
   reach: denied by require-authority's rule, whatever the policy. */
START_TEST(a_forwarded_uri_without_a_host_is_denied_no_authority)
{
    urisan_request r;
    urisan_request_init(&r);
    urisan_request_add(&r, "x-original-url", 14, "mailto:a@b.example", 18);
    urisan_request_trust t;
    size_t off, blen;
    ck_assert_int_eq(urisan_request_trust_parse("original-url", 12, &t, &off, &blen), URISAN_OK);
    char buf[128];
    urisan_request_judgement rj;
    urisan_judge_request(NULL, &r, &t, NULL, 0, buf, sizeof buf, &rj);
    ck_assert_int_eq(rj.reason, URISAN_REQUEST_OK);
    ck_assert_int_eq(rj.source, URISAN_REQSRC_ORIGINAL_URL);
    ck_assert_int_eq(rj.j.dec.verdict, URISAN_DENY);
    ck_assert(rj.j.dec.rules & (1u << URISAN_REASON_NO_AUTHORITY));
}
END_TEST

START_TEST(trust_lists_name_each_source_once)
{
    urisan_request_trust t;
    size_t off = 0, blen = 0;
    ck_assert_int_eq(urisan_request_trust_parse("target,original-uri", 19, &t, &off, &blen),
                     URISAN_OK);
    ck_assert_uint_eq(t.n, 2);
    ck_assert_int_eq(urisan_request_trust_parse("target,bogus", 12, &t, &off, &blen),
                     URISAN_E_BAD_ARGUMENT);
    ck_assert_uint_eq(off, 7);
    ck_assert_uint_eq(blen, 5);
    ck_assert_int_eq(urisan_request_trust_parse("target,target", 13, &t, &off, &blen),
                     URISAN_E_BAD_ARGUMENT);
    ck_assert_int_eq(urisan_request_trust_parse("", 0, &t, &off, &blen), URISAN_E_BAD_ARGUMENT);
    ck_assert_str_eq(urisan_request_reason_name(URISAN_REQUEST_BAD_HOST), "bad_host_header");
    ck_assert_str_eq(urisan_request_reason_name(URISAN_REQUEST_REASON_COUNT_), "unknown");
}
END_TEST

START_TEST(a_uri_longer_than_the_buffer_is_too_long_and_denied)
{
    urisan_request r;
    req_case c = RC("GET", "http", "h.example", 1, "/0123456789", OK, NULL);
    fill(&r, &c);
    char buf[16];
    urisan_request_judgement rj;
    urisan_judge_request(NULL, &r, NULL, NULL, 0, buf, sizeof buf, &rj);
    ck_assert_int_eq(rj.reason, URISAN_REQUEST_TOO_LONG);
    ck_assert_int_eq(rj.j.dec.verdict, URISAN_DENY);
    ck_assert_int_eq(urisan_judge_request(NULL, NULL, NULL, NULL, 0, buf, sizeof buf, &rj),
                     URISAN_E_BAD_ARGUMENT);
    ck_assert_int_eq(rj.j.dec.verdict, URISAN_DENY);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("request");
    TCase *tc = tcase_create("request");
    int n = (int)(sizeof cases / sizeof cases[0]);
    tcase_add_loop_test(tc, each_request_is_rebuilt_or_rejected_by_the_part_named, 0, n);
    tcase_add_loop_test(tc, each_request_is_judged_as_its_uri, 0, n);
    tcase_add_loop_test(tc, an_accepted_origin_form_request_keeps_host_and_target_in_place, 0, n);
    tcase_add_test(tc, a_forwarded_uri_without_a_host_is_denied_no_authority);
    tcase_add_test(tc, trust_lists_name_each_source_once);
    tcase_add_test(tc, a_uri_longer_than_the_buffer_is_too_long_and_denied);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
