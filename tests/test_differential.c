/*
 * test_differential.c - the deliberate differences of fuzz/DIFFERENCES.md,
 * one named test each. Every test asserts both sides: what urisan does
 * (the deliberate behaviour) and what the other parser does (so the
 * difference is real). When either side changes, the test fails and
 * DIFFERENCES.md (and fuzz/uriparser.c or fuzz/curl.c) must be revisited.
 * The same inputs are corpus/uriparser/diff-* and corpus/curl/diff-*,
 * replayed through the fuzz harnesses by `meson test --suite fuzz`.
 */
#include <check.h>
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include <uriparser/Uri.h>

#include "urisan.h"

static int uriparser_accepts(const char *s, size_t n)
{
    UriUriA u;
    const char *err = NULL;
    int rc = uriParseSingleUriExA(&u, s, s + n, &err);
    if (rc == URI_SUCCESS)
        uriFreeUriMembersA(&u);
    return rc == URI_SUCCESS;
}

/* Default limits: a label over 63 bytes or a host over 255 is too_long
   (urisan(1), POLICY: limit) before it is invalid; raised limits show
   the validity rule. */
static urisan_status parse_status(const char *s, size_t n, urisan_uri *u)
{
    return urisan_parse(s, n, NULL, u, NULL);
}

static urisan_status parse_status_raised(const char *s, size_t n, urisan_uri *u)
{
    urisan_limits l;
    urisan_limits_default(&l);
    l.max_host = l.max_label = 4096;
    return urisan_parse(s, n, &l, u, NULL);
}

/* curl's host for s, or NULL when curl rejects it (free with free()). */
static char *curl_host(const char *s)
{
    CURLU *h = curl_url();
    char *host = NULL, *out = NULL;
    if (curl_url_set(h, CURLUPART_URL, s, 0) == CURLUE_OK &&
        curl_url_get(h, CURLUPART_HOST, &host, 0) == CURLUE_OK) {
        out = strdup(host);
        curl_free(host);
    }
    curl_url_cleanup(h);
    return out;
}

static urisan_flags flags_of(const char *s)
{
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    urisan_check(s, strlen(s), NULL, &u, &r, &d);
    return r.flags;
}

/* ---- uriparser ---- */

START_TEST(uriparser_port_above_65535_is_invalid_only_for_urisan)
{
    const char *s = "http://h:65536/";
    urisan_uri u;
    ck_assert_int_eq(parse_status(s, strlen(s), &u), URISAN_E_PORT_RANGE);
    ck_assert(uriparser_accepts(s, strlen(s)));
}
END_TEST

START_TEST(uriparser_label_over_63_bytes_is_invalid_only_for_urisan)
{
    char s[128];
    memset(s, 'a', sizeof s);
    memcpy(s, "http://", 7);
    memcpy(s + 7 + 64, ".com/", 5);
    size_t n = 7 + 64 + 5;
    urisan_uri u;
    ck_assert_int_eq(parse_status(s, n, &u), URISAN_E_TOO_LONG);
    ck_assert_int_eq(parse_status_raised(s, n, &u), URISAN_E_LABEL_LENGTH);
    ck_assert(uriparser_accepts(s, n));
}
END_TEST

START_TEST(uriparser_host_over_255_bytes_is_invalid_only_for_urisan)
{
    char s[300];
    size_t n = 0;
    memcpy(s, "http://", 7);
    n = 7;
    for (int i = 0; i < 32; i++) {
        memcpy(s + n, "abcdefg.", 8);
        n += 8;
    }
    s[n++] = '/';
    urisan_uri u;
    ck_assert_int_eq(parse_status(s, n, &u), URISAN_E_TOO_LONG);
    ck_assert_int_eq(parse_status_raised(s, n, &u), URISAN_E_HOST_LENGTH);
    ck_assert(uriparser_accepts(s, n));
}
END_TEST

START_TEST(uriparser_rejects_rfc6874_zone_id_urisan_accepts)
{
    const char *s = "http://[fe80::1%25eth0]/";
    urisan_uri u;
    ck_assert_int_eq(parse_status(s, strlen(s), &u), URISAN_OK);
    ck_assert_int_eq(u.host_type, URISAN_HOST_IPV6_ZONE);
    ck_assert(!uriparser_accepts(s, strlen(s)));
}
END_TEST

START_TEST(uriparser_has_no_length_bounds_urisan_says_too_long)
{
    size_t n = 9 + 8200;
    char *s = malloc(n);
    memcpy(s, "http://h/", 9);
    memset(s + 9, 'a', 8200);
    urisan_uri u;
    ck_assert_int_eq(parse_status(s, n, &u), URISAN_E_TOO_LONG);
    ck_assert(uriparser_accepts(s, n));
    free(s);
}
END_TEST

/* ---- curl: hosts differ, and urisan flags it ---- */

typedef struct {
    const char *uri, *curl_host; /* curl_host NULL: curl rejects it */
    const char *urisan_host;     /* NULL: no authority for urisan */
    urisan_flags must;           /* what urisan sets because of it */
} curl_case;

#define F(x) URISAN_F(x)
static const curl_case curl_cases[] = {
    /* one slash: RFC 3986 has no authority, curl connects to evil.com */
    {"http:/evil.com/", "evil.com", NULL, F(AMBIGUOUS_AUTHORITY)},
    /* three slashes: RFC 3986 empty host, curl skips the slashes */
    {"http:///evil.com/", "evil.com", "", F(AMBIGUOUS_AUTHORITY)},
    /* curl decodes escapes in the host */
    {"http://%67oogle.com/", "google.com", "%67oogle.com", F(AMBIGUOUS_AUTHORITY)},
    {"http://%31%32%37.0.0.1/", "127.0.0.1", "%31%32%37.0.0.1",
     F(AMBIGUOUS_AUTHORITY) | F(IP_OBFUSCATED)},
    /* curl canonicalises inet_aton forms; urisan reports the same address */
    {"http://0x7f.1/", "127.0.0.1", "0x7f.1", F(IP_OBFUSCATED) | F(IP_LOOPBACK)},
};

START_TEST(curl_host_differs_only_where_urisan_flags_it)
{
    const curl_case *c = &curl_cases[_i];
    char *ch = curl_host(c->uri);
    if (c->curl_host == NULL)
        ck_assert_ptr_null(ch);
    else
        ck_assert_str_eq(ch, c->curl_host);
    free(ch);
    urisan_uri u;
    urisan_parse(c->uri, strlen(c->uri), NULL, &u, NULL);
    if (c->urisan_host == NULL) {
        ck_assert(!urisan_span_present(u.host));
    } else {
        ck_assert(urisan_span_present(u.host));
        ck_assert_uint_eq(u.host.len, strlen(c->urisan_host));
        ck_assert(memcmp(c->uri + u.host.off, c->urisan_host, u.host.len) == 0);
    }
    ck_assert_msg((flags_of(c->uri) & c->must) == c->must, "%s: flags missing", c->uri);
}
END_TEST

START_TEST(curl_drops_the_zone_id_same_address)
{
    char *ch = curl_host("http://[::1%25eth0]/");
    ck_assert_str_eq(ch, "[::1]");
    free(ch);
    urisan_uri u;
    ck_assert_int_eq(urisan_parse("http://[::1%25eth0]/", 20, NULL, &u, NULL), URISAN_OK);
    static const uint8_t one[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    ck_assert(memcmp(u.ip, one, 16) == 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("differential");
    TCase *t = tcase_create("uriparser");
    tcase_add_test(t, uriparser_port_above_65535_is_invalid_only_for_urisan);
    tcase_add_test(t, uriparser_label_over_63_bytes_is_invalid_only_for_urisan);
    tcase_add_test(t, uriparser_host_over_255_bytes_is_invalid_only_for_urisan);
    tcase_add_test(t, uriparser_rejects_rfc6874_zone_id_urisan_accepts);
    tcase_add_test(t, uriparser_has_no_length_bounds_urisan_says_too_long);
    suite_add_tcase(s, t);
    t = tcase_create("curl");
    tcase_add_loop_test(t, curl_host_differs_only_where_urisan_flags_it, 0,
                        (int)(sizeof curl_cases / sizeof curl_cases[0]));
    tcase_add_test(t, curl_drops_the_zone_id_same_address);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
