/*
 * test_serve_uri.c - `urisan serve`'s URI rebuilt from a gateway's
 * headers (src/cli/serve_uri.c): the sources and their precedence, the
 * values refused and why, --trust and --strip-prefix, the buffer bound,
 * and the answer (status, verdict, reasons). The HTTP side is in
 * tests/serve_test.py and tests/e2e/gateway_e2e.py.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "serve_uri.h"

typedef struct {
    const char *trust;      /* NULL: the default */
    const char *strip;      /* --strip-prefix or NULL */
    const char *target;
    const char *headers;    /* "Name: value\n" lines */
    urisan_request_reason want;
    const char *uri;        /* the rebuilt URI when OK */
} build_case;

static const build_case build_cases[] = {
    /* original-url: as is */
    { NULL, NULL, "/authz", "X-Original-URL: http://a.example/x?y#z\n",
      URISAN_REQUEST_OK, "http://a.example/x?y#z" },
    /* original-uri: proto, host, uri; fallback X-Forwarded-Proto */
    { NULL, NULL, "/authz",
      "X-Original-URI: /p?q\nX-Original-Host: h.example\nX-Original-Proto: https\n",
      URISAN_REQUEST_OK, "https://h.example/p?q" },
    { NULL, NULL, "/authz", "X-Original-URI: /p\nX-Original-Host: h.example\n"
      "X-Forwarded-Proto: wss\n", URISAN_REQUEST_OK, "wss://h.example/p" },
    { NULL, NULL, "/authz", "X-Original-URI: /p\nX-Original-Host: h\n", URISAN_REQUEST_OK,
      "http://h/p" },
    /* The sub-request's own Host is the service's name as the gateway
       calls it ("urisan" of nginx's upstream), never the original host:
       a header source without its host header is no_host_header. */
    { NULL, NULL, "/authz", "X-Original-URI: /p\nHost: urisan\n", URISAN_REQUEST_NO_HOST, NULL },
    { NULL, NULL, "/authz", "X-Original-URI: /p\nHost: h\nX-Forwarded-Host: f\n",
      URISAN_REQUEST_NO_HOST, NULL },
    /* forwarded-uri (Traefik, Caddy) */
    { NULL, NULL, "/authz", "X-Forwarded-Uri: /t\nX-Forwarded-Host: f.example\n"
      "X-Forwarded-Proto: https\n", URISAN_REQUEST_OK, "https://f.example/t" },
    { NULL, NULL, "/authz", "X-Forwarded-Uri: /t\nHost: 127.0.0.1:8181\n", URISAN_REQUEST_NO_HOST,
      NULL },
    { NULL, NULL, "/authz", "X-Forwarded-Uri: /t\nHost: h\nX-Original-Host: o\n",
      URISAN_REQUEST_NO_HOST, NULL },
    /* precedence: the first trusted source present wins */
    { NULL, NULL, "/authz", "X-Forwarded-Uri: /t\nX-Original-URI: /o\nHost: h\n"
      "X-Original-URL: http://u/\n", URISAN_REQUEST_OK, "http://u/" },
    { "forwarded-uri,original-uri", NULL, "/authz",
      "X-Original-URI: /o\nX-Forwarded-Uri: /t\nX-Forwarded-Host: h\nX-Original-Host: o\n",
      URISAN_REQUEST_OK, "http://h/t" },
    /* an untrusted source is ignored */
    { "original-uri", NULL, "/authz", "X-Original-URL: http://u/\n", URISAN_REQUEST_NO_SOURCE, NULL },
    /* the default does not trust the request's own target */
    { NULL, NULL, "/authz/x", "Host: h\n", URISAN_REQUEST_NO_SOURCE, NULL },
    /* target (Envoy): prefix stripped, "/" when nothing is left */
    { "target", "/authz", "/authz/a/b?c", "Host: e.example\n", URISAN_REQUEST_OK,
      "http://e.example/a/b?c" },
    { "target", "/authz", "/authz", "Host: e.example\n", URISAN_REQUEST_OK, "http://e.example/" },
    { "target", "/authz", "/authzed", "Host: e\n", URISAN_REQUEST_BAD_PATH, NULL },
    { "target", "/authz", "/other", "Host: e\n", URISAN_REQUEST_OUTSIDE_PREFIX, NULL },
    { "target", "/authz", "http://abs.example/authz", "Host: e\n",
      URISAN_REQUEST_OUTSIDE_PREFIX, NULL },
    /* absolute-form: the target's authority, which Host must name */
    { "target", NULL, "http://abs.example/x", "Host: other\n", URISAN_REQUEST_HOST_MISMATCH,
      NULL },
    { "target", NULL, "http://abs.example/x", "Host: ABS.example:80\n", URISAN_REQUEST_OK,
      "http://abs.example/x" },
    { "target", NULL, "http://abs.example/x", "", URISAN_REQUEST_OK, "http://abs.example/x" },
    { "target", NULL, "/x", "", URISAN_REQUEST_NO_HOST, NULL },
    /* refused values */
    { NULL, NULL, "/", "X-Original-URI: /x\nX-Original-Host: a@b\n", URISAN_REQUEST_BAD_HOST, NULL },
    { NULL, NULL, "/", "X-Original-URI: /x\nX-Original-Host: a/b\n", URISAN_REQUEST_BAD_HOST, NULL },
    { NULL, NULL, "/", "X-Original-URI: /x\nX-Original-Host: a?b\n", URISAN_REQUEST_BAD_HOST, NULL },
    { NULL, NULL, "/", "X-Original-URI: /x\nX-Original-Host: a#b\n", URISAN_REQUEST_BAD_HOST, NULL },
    { NULL, NULL, "/", "X-Original-URI: /x\nX-Original-Host: a\\b\n", URISAN_REQUEST_BAD_HOST, NULL },
    { NULL, NULL, "/", "X-Original-URI: /x\nX-Original-Host: a b\n", URISAN_REQUEST_BAD_HOST, NULL },
    { NULL, NULL, "/", "X-Original-URI: /x\nX-Original-Host: \n", URISAN_REQUEST_BAD_HOST, NULL },
    { NULL, NULL, "/", "X-Original-URI: /x\nX-Original-Host: a\nX-Original-Proto: 1http\n",
      URISAN_REQUEST_BAD_PROTO, NULL },
    { NULL, NULL, "/", "X-Original-URI: /x\nX-Original-Host: a\nX-Original-Proto: \n",
      URISAN_REQUEST_BAD_PROTO, NULL },
    { NULL, NULL, "/", "X-Original-URI: x\nX-Original-Host: a\n", URISAN_REQUEST_BAD_PATH, NULL },
    { NULL, NULL, "/", "X-Original-URI: \nX-Original-Host: a\n", URISAN_REQUEST_BAD_PATH, NULL },
    { NULL, NULL, "/", "X-Original-URI: /x\n", URISAN_REQUEST_NO_HOST, NULL },
    { NULL, NULL, "/", "X-Original-URL: http://a/\nx-original-url: http://b/\n",
      URISAN_REQUEST_DUPLICATE, NULL },
    { NULL, NULL, "/", "X-Original-URI: /x\nHost: a\nX-Original-Host: b\nX-Original-Host: c\n",
      URISAN_REQUEST_DUPLICATE, NULL },
    /* a duplicate of a header that is not used does not matter */
    { NULL, NULL, "/", "X-Original-URL: http://a/\nX-Forwarded-Uri: /1\nX-Forwarded-Uri: /2\n",
      URISAN_REQUEST_OK, "http://a/" },
    /* bytes are never decoded */
    { NULL, NULL, "/", "X-Original-URI: /%2e%2e/%0d%0a\nX-Original-Host: h%41\n",
      URISAN_REQUEST_OK, "http://h%41/%2e%2e/%0d%0a" },
};

static void fill(urisan_request *r, const char *target, const char *headers)
{
    urisan_request_init(r);
    r->target = target;
    r->target_len = strlen(target);
    const char *p = headers;
    while (*p != '\0') {
        const char *nl = strchr(p, '\n');
        const char *colon = memchr(p, ':', (size_t)(nl - p));
        ck_assert_ptr_nonnull(colon);
        const char *v = colon + 1;
        if (v < nl && *v == ' ')
            v++;
        urisan_request_add(r, p, (size_t)(colon - p), v, (size_t)(nl - v));
        p = nl + 1;
    }
}

static void trust_of(const build_case *c, urisan_request_trust *t)
{
    if (c->trust != NULL) {
        const char *bad;
        size_t badlen;
        ck_assert(serve_trust_parse(c->trust, strlen(c->trust), t, &bad, &badlen));
    } else {
        serve_trust_default(t);
    }
    if (c->strip != NULL) {
        t->strip_prefix = c->strip;
        t->strip_len = strlen(c->strip);
    }
}

START_TEST(rebuilds_the_uri_from_the_trusted_source)
{
    const build_case *c = &build_cases[_i];
    urisan_request r;
    urisan_request_trust t;
    fill(&r, c->target, c->headers);
    trust_of(c, &t);
    char buf[256];
    size_t len = 99;
    urisan_request_source used;
    urisan_request_reason st = urisan_request_uri(&r, &t, buf, sizeof buf, &len, &used);
    ck_assert_msg(st == c->want, "case %d: %s, want %s", _i, urisan_request_reason_name(st),
                  urisan_request_reason_name(c->want));
    if (st == URISAN_REQUEST_OK) {
        ck_assert_uint_eq(len, strlen(c->uri));
        ck_assert_msg(memcmp(buf, c->uri, len) == 0, "case %d: %.*s", _i, (int)len, buf);
        /* one byte less does not fit, and nothing is written past it */
        char small[256];
        memset(small, 'Z', sizeof small);
        size_t l2;
        ck_assert_int_eq(urisan_request_uri(&r, &t, small, len - 1, &l2, &used),
                         URISAN_REQUEST_TOO_LONG);
        ck_assert_int_eq(small[len - 1], 'Z');
    } else {
        ck_assert_uint_eq(len, 0);
    }
}
END_TEST

START_TEST(trust_lists_are_validated)
{
    static const struct { const char *list; bool ok; const char *bad; } cases[] = {
        { "original-url", true, NULL },
        { "target,original-uri", true, NULL },
        { "Original-URI", true, NULL },
        { "", false, "" },
        { "original-uri,", false, "" },
        { "original-uri,nope", false, "nope" },
        { "target,target", false, "target" },
        { "original-uri forwarded-uri", false, "original-uri forwarded-uri" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        urisan_request_trust t;
        const char *bad = NULL;
        size_t badlen = 0;
        bool ok = serve_trust_parse(cases[i].list, strlen(cases[i].list), &t, &bad, &badlen);
        ck_assert_msg(ok == cases[i].ok, "%s", cases[i].list);
        if (!ok) {
            ck_assert_uint_eq(badlen, strlen(cases[i].bad));
            ck_assert(memcmp(bad, cases[i].bad, badlen) == 0);
        }
    }
    urisan_request_trust t;
    const char *bad;
    size_t badlen;
    ck_assert(serve_trust_parse("forwarded-uri,target", 20, &t, &bad, &badlen));
    ck_assert_uint_eq(t.n, 2);
    ck_assert_int_eq(t.order[0], URISAN_REQSRC_FORWARDED_URI);
    ck_assert_int_eq(t.order[1], URISAN_REQSRC_TARGET);
}
END_TEST

START_TEST(answers_carry_verdict_and_reasons_apart)
{
    urisan_policy *pol = malloc(urisan_policy_size());
    urisan_policy *judge = malloc(urisan_policy_size());
    ck_assert(pol != NULL && judge != NULL);
    urisan_policy_init(pol);
    serve_policy sp;
    ck_assert(serve_policy_make(&sp, pol, judge));
    /* the default policy says neither: both reasons are serve's own */
    ck_assert_uint_eq(sp.own_rules, 1u << URISAN_REASON_NOT_ABSOLUTE |
                                    1u << URISAN_REASON_NO_AUTHORITY);
    static const struct {
        const char *headers;
        unsigned status;
        urisan_verdict verdict;
        const char *deny, *flag;
    } cases[] = {
        { "X-Original-URL: https://example.com/\n", 200, URISAN_ALLOW, "-", "-" },
        { "X-Original-URL: http://127.0.0.1/\n", 200, URISAN_FLAGGED, "-",
          "ip_literal,ip_loopback" },
        { "X-Original-URL: http://a/%0d%0a\n", 403, URISAN_DENY, "escaped_crlf",
          "escaped_ctl" },
        /* require-authority, the library's: both of its reasons */
        { "X-Original-URL: /relative\n", 403, URISAN_DENY, "not_absolute,no_authority", "-" },
        { "X-Original-URL: mailto:a@b.example\n", 403, URISAN_DENY, "no_authority", "-" },
        { "X-Original-URL: file:///etc/passwd\n", 403, URISAN_DENY, "dangerous_scheme,no_authority",
          NULL },
        { "", 403, URISAN_DENY, "no_uri", "-" },
        { "X-Original-URI: /\nX-Original-Host: a@b\n", 403, URISAN_DENY, "bad_host_header", "-" },
        /* nginx's HTTP/1.0 request without Host: no X-Original-Host */
        { "X-Original-URI: /\nHost: urisan\n", 403, URISAN_DENY, "no_host_header", "-" },
    };
    urisan_request_trust t;
    serve_trust_default(&t);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        urisan_request r;
        fill(&r, "/authz", cases[i].headers);
        char buf[256];
        serve_answer a;
        serve_decide(&r, &t, &sp, buf, sizeof buf, &a);
        ck_assert_msg(a.status == cases[i].status && a.verdict == cases[i].verdict,
                      "%s: %u %d", cases[i].headers, a.status, (int)a.verdict);
        if (cases[i].deny != NULL)
            ck_assert_str_eq(a.deny, cases[i].deny);
        if (cases[i].flag != NULL)
            ck_assert_str_eq(a.flag, cases[i].flag);
    }
    /* A policy that requires an authority says so once, not twice, and
       its reasons are its own, not serve's; one that requires a scheme
       keeps not_absolute. */
    static const char *const said[] = {"require-authority\n", "require-absolute\n"};
    for (size_t k = 0; k < 2; k++) {
        size_t line;
        const char *msg;
        urisan_policy_init(pol);
        ck_assert_int_eq(urisan_policy_parse(pol, said[k], strlen(said[k]), &line, &msg),
                         URISAN_OK);
        ck_assert(serve_policy_make(&sp, pol, judge));
        ck_assert_uint_eq(sp.own_rules, k == 0 ? 0 : 1u << URISAN_REASON_NO_AUTHORITY);
        for (size_t i = 0; i < 2; i++) {
            urisan_request r;
            fill(&r, "/authz", i == 0 ? "X-Original-URL: /relative\n"
                                      : "X-Original-URL: mailto:a@b.example\n");
            char buf[256];
            serve_answer a;
            serve_decide(&r, &t, &sp, buf, sizeof buf, &a);
            ck_assert_uint_eq(a.status, 403);
            /* the library gives both for a relative reference */
            ck_assert_str_eq(a.deny, i == 0 ? "not_absolute,no_authority" : "no_authority");
        }
    }
    free(judge);
    free(pol);
}
END_TEST

/* The reason headers' buffers hold every flag and rule name at once
   (serve_uri.c writes them with urisan_reasons_format and no check of
   its own). */
START_TEST(every_reason_fits_the_header_buffers)
{
    size_t n = 0;
    urisan_reasons_format(~(urisan_flags)0, ~0u, NULL, 0, &n);
    ck_assert_uint_gt(n, 0);
    ck_assert_uint_lt(n, SERVE_REASONS_MAX);
}
END_TEST

static Suite *serve_suite(void)
{
    Suite *s = suite_create("serve_uri");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, rebuilds_the_uri_from_the_trusted_source, 0,
                        (int)(sizeof build_cases / sizeof build_cases[0]));
    tcase_add_test(tc, trust_lists_are_validated);
    tcase_add_test(tc, answers_carry_verdict_and_reasons_apart);
    tcase_add_test(tc, every_reason_fits_the_header_buffers);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(serve_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
