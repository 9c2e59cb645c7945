/*
 * test_decision.c - what decisions hold: deny reasons apart
 * from flag-only reasons (urisan_decision_format), the fail-closed policy
 * grammar (line, column and word of every mistake; host rules exact,
 * ".suffix" and "*.suffix"; require-absolute / require-authority),
 * profiles (`profile NAME` lines, urisan_policy_profile) and the policy
 * written back (urisan_policy_format).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "policy_util.h"
#include "risk.h"
#include "urisan.h"

#define F(n) URISAN_F(n)

static char *format(const urisan_decision *d)
{
    static char buf[512];
    size_t n = 0;
    ck_assert_int_eq(urisan_decision_format(d, buf, sizeof buf - 1, &n), URISAN_OK);
    buf[n] = '\0';
    return buf;
}

/* ---------------------------------------------------------------------- */
/* Reasons apart                                                           */
/* ---------------------------------------------------------------------- */

START_TEST(format_names_deny_reasons_apart_from_flagged_ones)
{
    urisan_decision d = check(NULL, "http://u:p@h/");
    ck_assert_str_eq(format(&d), "denied:password;flagged:userinfo");
    d = check(NULL, "http://127.0.0.1/");
    ck_assert_str_eq(format(&d), "flagged:ip_literal,ip_loopback");
    d = check(NULL, "http://example.com/");
    ck_assert_str_eq(format(&d), "");
    urisan_policy *p = policy_of("allow-scheme https\ndeny userinfo\n");
    d = check(p, "http://u@h/");
    /* the flags that denied, then the rules that denied */
    ck_assert_str_eq(format(&d), "denied:userinfo,scheme_not_allowed");
    free(p);
}
END_TEST

START_TEST(format_reports_the_size_and_nospace)
{
    urisan_decision d = check(NULL, "http://u:p@h/");
    size_t need = 0;
    ck_assert_int_eq(urisan_decision_format(&d, NULL, 0, &need), URISAN_E_NOSPACE);
    ck_assert_uint_eq(need, strlen("denied:password;flagged:userinfo"));
    char small[8];
    memset(small, 'x', sizeof small);
    ck_assert_int_eq(urisan_decision_format(&d, small, sizeof small, &need), URISAN_E_NOSPACE);
    ck_assert_uint_eq(need, strlen("denied:password;flagged:userinfo"));
    ck_assert_int_eq(urisan_decision_format(NULL, small, sizeof small, &need),
                     URISAN_E_BAD_ARGUMENT);
    ck_assert_uint_eq(need, 0);
    /* a deny without any reason name cannot be produced by decide, but a
       forged one still formats as "denied:" */
    urisan_decision f = {URISAN_DENY, 0, 0, 0};
    ck_assert_str_eq(format(&f), "denied:");
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Mistakes: line, column, word                                            */
/* ---------------------------------------------------------------------- */

static const mistake mistakes[] = {
    {"deny invalid\n\ndeny password pasword\n", 3, 15, "pasword", "unknown flag"},
    {"  frobnicate x\n", 1, 3, "frobnicate", "unknown directive"},
    {"deny\n", 1, 1, "deny", "missing argument"},
    {"deny-host 10.0.0.0/8\n", 1, 11, "10.0.0.0/8", "deny-ip"},
    {"deny-host evil.com:8080\n", 1, 11, "evil.com:8080", "port"},
    {"deny-host evil.com/x\n", 1, 11, "evil.com/x", "path"},
    {"deny-host a.*.com\n", 1, 11, "a.*.com", "'*'"},
    {"deny-host *evil.com\n", 1, 11, "*evil.com", "'*'"},
    {"deny-host *\n", 1, 11, "*", "'*'"},
    {"allow-host u@h\n", 1, 12, "u@h", "userinfo"},
    {"allow-host a..b\n", 1, 12, "a..b", "empty label"},
    {"allow-host [::g]\n", 1, 12, "[::g]", "IPv6"},
    {"deny-host b\xc3\xbc.de\n", 1, 12, "\xc3", "non-ASCII"},
    {"allow-scheme http:\n", 1, 14, "http:", "without ':'"},
    {"allow-port 80 8o\n", 1, 15, "8o", "invalid port"},
    {"limit url 5\n", 1, 7, "url", "unknown limit"},
    {"require-authority yes\n", 1, 19, "yes", "no argument"},
    {"deny invalid\nprofile ssrf\n", 2, 1, "profile", "first"},
    {"profile\n", 1, 1, "profile", "missing argument"},
    {"profile ssrf mail\n", 1, 14, "mail", "too many"},
    {"profile sssrf\n", 1, 9, "sssrf", "unknown profile"},
    {"# x\n\nprofile proxy\nprofile ssrf\n", 4, 1, "profile", "first"},
    {"deny invalid\tpass\x01word\n", 1, 18, "\x01", "control"},
    /* every other message of the grammar (an audit) */
    {"flag idnn\n", 1, 6, "idnn", "unknown flag"},
    {"allow ip_privat\n", 1, 7, "ip_privat", "unknown flag"},
    {"allow-host\n", 1, 1, "allow-host", "missing argument"},
    {"limit uri\n", 1, 1, "limit", "missing argument"},
    {"limit uri 5 6\n", 1, 13, "6", "too many arguments"},
    {"limit uri x5\n", 1, 11, "x5", "invalid number"},
    {"limit uri 0\n", 1, 11, "0", "at least 1"},
    {"default-port foo\n", 1, 1, "default-port", "missing argument"},
    {"default-port foo 1 2\n", 1, 20, "2", "too many arguments"},
    {"default-port foo 70000\n", 1, 18, "70000", "invalid port"},
    {"default-port 1foo 7\n", 1, 14, "1foo", "invalid scheme"},
    {"allow-scheme aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", 1, 14,
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "too long"},
    {"allow-scheme h_t\n", 1, 14, "h_t", "invalid scheme"},
    {"dangerous-scheme java:\n", 1, 18, "java:", "without ':'"},
    {"allow-port 90-80\n", 1, 12, "90-80", "start above end"},
    {"allow-port 65536\n", 1, 12, "65536", "invalid port"},
    {"deny-host aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.com\n", 1, 11,
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.com", "longer than 63"},
    {"deny-host .\n", 1, 11, ".", "empty host"},
    {"deny-host ex ample.com:80\n", 1, 14, "ample.com:80", "port"},
    {"deny-host a.b?x\n", 1, 11, "a.b?x", "path, query"},
    {"allow-host [fe80::1%25eth0]\n", 1, 12, "[fe80::1%25eth0]", "IPv6"},
};

START_TEST(every_mistake_names_line_column_and_word)
{
    check_mistake(&mistakes[_i]);
}
END_TEST

/* The mistakes too long for the table: their column and word too. */
START_TEST(size_mistakes_name_column_and_word)
{
    static char text[300000];
    mistake m = {text, 1, 11, NULL, "host too long"};
    /* a 260-byte host of short labels */
    size_t o = (size_t)snprintf(text, sizeof text, "deny-host ");
    for (int i = 0; i < 52; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, "abcd.");
    snprintf(text + o, sizeof text - o, "com\n");
    check_mistake(&m);
    /* word 257 of a line */
    o = (size_t)snprintf(text, sizeof text, "deny");
    for (int i = 0; i < 300; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, " idn");
    m = (mistake){text, 1, 5 + 4 * 255 + 1, "idn", "too many words"};
    check_mistake(&m);
    /* allow-port entry 129 on line 2 */
    o = (size_t)snprintf(text, sizeof text, "# ports\nallow-port");
    for (int i = 0; i < 129; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, " %d", 1000 + i);
    m = (mistake){text, 2, 11 + 5 * 128 + 1, "1128", "too many allow-port"};
    check_mistake(&m);
    /* the name pool: 2048 host names of 42 bytes (86 KiB) do not fit its
       64 KiB, though each list holds 1024: the first name that does not
       fit is the error */
    o = 0;
    int line = 0;
    for (int i = 0; i < 2048 && o + 64 < sizeof text; i++, line++)
        o += (size_t)snprintf(text + o, sizeof text - o, "%s h%05d.aaaaaaaaaaaaaaaaaaaaaaaaaaa.example\n",
                              i < 1024 ? "deny-host" : "allow-host", i);
    urisan_policy *p = new_policy();
    urisan_policy_error e;
    ck_assert_int_eq(urisan_policy_parse_ex(p, text, o, &e), URISAN_E_BAD_POLICY);
    ck_assert_msg(strstr(e.msg, "name storage is full") != NULL, "%s", e.msg);
    ck_assert_uint_gt(e.line, 1024);
    ck_assert_uint_eq(e.word_len, 42);
    ck_assert_uint_eq(e.column, strlen("allow-host ") + 1);
    free(p);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Directives                                                              */
/* ---------------------------------------------------------------------- */

START_TEST(host_rules_exact_dot_suffix_and_star_suffix)
{
    urisan_policy *p = policy_of("deny-host exact.example *.star.example .dot.example\n");
    static const struct {
        const char *in;
        bool denied;
    } cases[] = {
        {"http://exact.example/", true},
        {"http://EXACT.example./", true},       /* case, one trailing dot */
        {"http://a.exact.example/", false},     /* exact is exact */
        {"http://star.example/", false},        /* nginx: *.x is below x only */
        {"http://www.star.example/", true},
        {"http://a.b.STAR.example./", true},
        {"http://xstar.example/", false},       /* label boundary */
        {"http://dot.example/", true},          /* .x: x and below */
        {"http://a.dot.example/", true},
        {"http://adot.example/", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        urisan_decision d = check(p, cases[i].in);
        bool denied = (d.rules >> URISAN_REASON_HOST_DENIED) & 1u;
        ck_assert_msg(denied == cases[i].denied, "%s", cases[i].in);
    }
    free(p);
    p = policy_of("allow-host *.corp.example\n");
    ck_assert_int_eq(check(p, "https://w.corp.example/").verdict, URISAN_ALLOW);
    ck_assert_int_eq(check(p, "https://corp.example/").verdict, URISAN_DENY);
    free(p);
}
END_TEST

START_TEST(require_absolute_and_require_authority)
{
    urisan_policy *a = policy_of("require-absolute\n");
    urisan_policy *h = policy_of("require-authority\n");
    static const struct {
        const char *in;
        unsigned abs_rules, auth_rules;
    } cases[] = {
#define NA (1u << URISAN_REASON_NOT_ABSOLUTE)
#define NH (1u << URISAN_REASON_NO_AUTHORITY)
        {"http://h/", 0, 0},
        {"mailto:a@b", 0, NH},
        {"file:///etc/passwd", 0, NH},   /* empty host */
        {"-", NA, NA | NH},              /* Squid's "no value" */
        {"", NA, NA | NH},
        {"TCP_MISS/200", NA, NA | NH},
        {"//h/x", NA, NA},               /* network-path: no scheme */
        {"/a/b", NA, NA | NH},
        {"api.github.com:443", 0, NH},   /* scheme "api.github.com" */
#undef NA
#undef NH
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_msg(check(a, cases[i].in).rules == cases[i].abs_rules, "abs %s", cases[i].in);
        ck_assert_msg(check(h, cases[i].in).rules == cases[i].auth_rules, "auth %s",
                      cases[i].in);
    }
    free(a);
    free(h);
}
END_TEST

/* urisan_nested_more_fn for the test: homograph for a host "evil", and
   every reading it was asked about counted. */
typedef struct {
    unsigned asked;
    char last[64];
} more_seen;

static urisan_flags fake_host_layer(void *ctx, const char *uri, size_t len)
{
    more_seen *m = ctx;
    m->asked++;
    size_t n = len < sizeof m->last - 1 ? len : sizeof m->last - 1;
    memcpy(m->last, uri, n);
    m->last[n] = '\0';
    /* a bit outside the host layer's flags is ignored */
    return (strstr(m->last, "//evil") != NULL ? F(HOMOGRAPH) : 0) | F(IP_LOOPBACK);
}

static urisan_decision decide_more(const urisan_policy *p, const char *in, more_seen *m)
{
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    urisan_parse_analyze(in, strlen(in), p, &u, NULL, &r);
    urisan_decide_more(in, strlen(in), &u, &r, p, fake_host_layer, m, &d);
    return d;
}

START_TEST(nested_rules_judge_what_the_caller_adds_to_each_nested_url)
{
    urisan_policy *deny = policy_of("deny nested:homograph\n");
    urisan_policy *flag = policy_of("flag nested:homograph\n");
    urisan_policy *other = policy_of("deny nested:ip_private\n");
    ck_assert_int_eq(urisan_policy_judges_nested(deny, URISAN_HOST_FLAGS), 1);
    ck_assert_int_eq(urisan_policy_judges_nested(flag, F(HOMOGRAPH)), 1);
    ck_assert_int_eq(urisan_policy_judges_nested(other, URISAN_HOST_FLAGS), 0);
    ck_assert_int_eq(urisan_policy_judges_nested(NULL, URISAN_HOST_FLAGS), 0);
    more_seen m = {0, ""};
    urisan_decision d = decide_more(deny, "https://a.example/?u=https://evil/x", &m);
    ck_assert_int_eq(d.verdict, URISAN_DENY);
    ck_assert_str_eq(format(&d), "denied:nested_url");
    ck_assert_uint_eq(m.asked, 1);
    ck_assert_str_eq(m.last, "https://evil/x");
    /* the reading a client follows is asked about too: "+http:\\evil" */
    m.asked = 0;
    d = decide_more(deny, "https://a.example/?u=%2Bhttps:%5C%5Cevil/x", &m);
    ck_assert_int_eq(d.verdict, URISAN_DENY);
    ck_assert_uint_eq(m.asked, 2);
    m.asked = 0;
    d = decide_more(deny, "https://a.example/?u=https://good/x", &m);
    ck_assert_str_eq(format(&d), "flagged:nested_url");   /* the default flags nested_url */
    d = decide_more(flag, "https://a.example/?u=https://evil/x", &m);
    ck_assert_int_eq(d.verdict, URISAN_FLAGGED);
    /* nested:ip_private names none of the caller's flags: it is not asked,
       and a bit outside them (ip_loopback here) never counts */
    m.asked = 0;
    d = decide_more(other, "https://a.example/?u=https://evil/x", &m);
    ck_assert_uint_eq(m.asked, 0);
    ck_assert_str_eq(format(&d), "flagged:nested_url");
    /* urisan_decide is urisan_decide_more without a caller: not denied */
    ck_assert_int_eq(check(deny, "https://a.example/?u=https://evil/x").verdict, URISAN_FLAGGED);
    free(deny);
    free(flag);
    free(other);
}
END_TEST

/* A host map as the host layer's: "%65vil.example", "\xef\xbd\x85vil.example"
   (fullwidth e) resolve to evil.example; "fail." cannot be told; the hosts
   asked about are counted. */
static size_t fake_map(void *ctx, const char *host, size_t n, char *out, size_t cap)
{
    unsigned *asked = ctx;
    (*asked)++;
    static const char *const to_evil[] = {"%65vil.example", "\xef\xbd\x85vil.example"};
    for (size_t i = 0; i < 2; i++)
        if (n == strlen(to_evil[i]) && memcmp(host, to_evil[i], n) == 0 && cap >= 12) {
            memcpy(out, "evil.example", 12);
            return 12;
        }
    if (n >= 5 && memcmp(host, "fail%", 5) == 0)
        return URISAN_HOST_MAP_FAILED;
    return 0;
}

static urisan_decision decide_with_map(const urisan_policy *p, const char *in, unsigned *asked)
{
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    urisan_parse_analyze(in, strlen(in), p, &u, NULL, &r);
    urisan_decide_hooks hk = {NULL, NULL, fake_map, asked};
    urisan_decide_with(in, strlen(in), &u, &r, p, &hk, &d);
    return d;
}

static char *decided(const urisan_policy *p, const char *in, unsigned *asked)
{
    urisan_decision d = decide_with_map(p, in, asked);
    return format(&d);
}

START_TEST(host_lists_judge_the_host_a_client_resolves)
{
    urisan_policy *deny = policy_of("allow all\ndeny-host evil.example\n");
    urisan_policy *allow = policy_of("allow all\nallow-host evil.example good.example\n");
    urisan_policy *none = policy_of("allow all\n");
    unsigned asked = 0;
    ck_assert_int_eq(urisan_policy_lists_hosts(deny), 1);
    ck_assert_int_eq(urisan_policy_lists_hosts(none), 0);
    ck_assert_int_eq(urisan_policy_lists_hosts(NULL), 0);
    /* the form the map gives meets deny-host; the written form alone does not */
    ck_assert_str_eq(decided(deny, "https://%65vil.example/", &asked),
                     "denied:host_denied");
    ck_assert_uint_eq(asked, 1);
    ck_assert_int_eq(check(deny, "https://%65vil.example/").verdict, URISAN_ALLOW);
    ck_assert_str_eq(decided(deny, "https://\xef\xbd\x85vil.example/x", &asked),
                     "denied:host_denied");
    /* a nested URL's host too, as each reading decodes it */
    const char *nested = "https://a.example/?u=https%3A%2F%2F%EF%BD%85vil.example%2F";
    ck_assert_str_eq(decided(deny, nested, &asked), "denied:nested_host_denied");
    ck_assert_int_eq(check(deny, nested).verdict, URISAN_ALLOW);
    /* an ASCII host without escapes is never asked about */
    asked = 0;
    ck_assert_str_eq(decided(deny, "https://good.example/?u=//x.example/", &asked),
                     "");
    ck_assert_uint_eq(asked, 0);
    /* nor under a policy without host lists */
    ck_assert_str_eq(decided(none, "https://%65vil.example/", &asked), "");
    ck_assert_uint_eq(asked, 0);
    /* allow-host: both forms must pass (the written form is no entry) */
    ck_assert_str_eq(decided(allow, "https://%65vil.example/", &asked),
                     "denied:host_not_allowed");
    ck_assert_str_eq(decided(allow, "https://good.example/", &asked), "");
    /* a form that cannot be told is in every deny list and no allow list */
    ck_assert_str_eq(decided(deny, "https://fail%2e.example/", &asked),
                     "denied:host_denied");
    ck_assert_str_eq(decided(allow, "https://fail%2e.example/", &asked),
                     "denied:host_not_allowed");
    /* --explain's entry: the one the mapped form matched, not the first */
    urisan_policy *two = policy_of("allow all\ndeny-host a.example\ndeny-host evil.example\n");
    urisan_decide_hooks mh = {NULL, NULL, fake_map, &asked};
    const char *prof = NULL;
    ck_assert_uint_eq(urisan_policy_origin_with(two, "https://%65vil.example/", 23,
                                                URISAN_ORIGIN_RULE, URISAN_REASON_HOST_DENIED,
                                                &mh, &prof),
                      3);
    ck_assert_uint_eq(urisan_policy_origin_with(two, nested, strlen(nested), URISAN_ORIGIN_RULE,
                                                URISAN_REASON_NESTED_HOST_DENIED, &mh, &prof),
                      3);
    free(two);
    /* no hooks: urisan_decide */
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    const char *in = "https://%65vil.example/";
    urisan_parse_analyze(in, strlen(in), deny, &u, NULL, &r);
    urisan_decide_with(in, strlen(in), &u, &r, deny, NULL, &d);
    ck_assert_int_eq(d.verdict, URISAN_ALLOW);
    free(deny);
    free(allow);
    free(none);
}
END_TEST

/* The look for a byte >= 0x80 or a '%' in the host (eight bytes a step,
   the last step overlapping) finds one at every position of every length,
   and asks nothing of an ASCII host without one. */
START_TEST(the_map_is_asked_about_an_escape_or_high_byte_at_every_position)
{
    urisan_policy *deny = policy_of("allow all\ndeny-host evil.example\n");
    for (size_t n = 1; n <= 40; n++) {
        for (size_t pos = 0; pos <= n; pos++) {
            for (int kind = 0; kind < 2; kind++) {
                char in[96] = "https://";
                size_t o = 8;
                for (size_t i = 0; i < n; i++) {
                    if (i == pos && kind == 0) {
                        memcpy(in + o, "%41", 3);
                        o += 3;
                    } else if (i == pos) {
                        memcpy(in + o, "\xc3\xa9", 2);
                        o += 2;
                    } else {
                        in[o++] = 'a';
                    }
                }
                in[o++] = '/';
                in[o] = '\0';
                unsigned asked = 0;
                decided(deny, in, &asked);
                ck_assert_msg(asked == (pos < n ? 1u : 0u), "%s: asked %u", in, asked);
            }
        }
    }
    free(deny);
}
END_TEST

START_TEST(a_nested_value_too_long_to_decode_counts_as_having_the_callers_flags)
{
    /* a value that needs decoding and does not fit the 8 KiB scratch */
    urisan_policy *deny = policy_of("limit uri 65536\ndeny nested:homograph\n");
    size_t n = 9000 * 3 + 64;
    char *in = malloc(n + 1);
    int k = snprintf(in, n + 1, "https://a.example/?u=https://good/");
    while ((size_t)k + 3 <= n - 1)
        k += snprintf(in + k, n + 1 - (size_t)k, "%%41");
    more_seen m = {0, ""};
    urisan_decision d = decide_more(deny, in, &m);
    ck_assert_int_eq(d.verdict, URISAN_DENY);
    ck_assert(d.deny_flags & F(NESTED_URL));
    ck_assert_uint_eq(m.asked, 0);
    free(in);
    free(deny);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Profiles                                                                */
/* ---------------------------------------------------------------------- */

START_TEST(origin_names_the_line_or_the_profile_of_each_rule)
{
    const char *prof = NULL;
    /* the built-in default policy */
    urisan_policy *d = new_policy();
    ck_assert_uint_eq(urisan_policy_origin(d, URISAN_ORIGIN_DENY_FLAG, URISAN_FLAG_PASSWORD, &prof), 0);
    ck_assert_str_eq(prof, "default");
    ck_assert_uint_eq(urisan_policy_origin(NULL, URISAN_ORIGIN_RULE, 0, &prof), 0);
    ck_assert_str_eq(prof, "default");
    free(d);
    /* a profile line, then lines that change its rules */
    urisan_policy *p = policy_of("# mine\nprofile ssrf\n\nallow ip_private\ndeny idn\n"
                                 "deny-host evil.example\ndeny-host other.example\n"
                                 "flag nested:ip_loopback\nrequire-absolute\n");
    ck_assert_uint_eq(urisan_policy_origin(p, URISAN_ORIGIN_DENY_FLAG, URISAN_FLAG_IDN, &prof), 5);
    ck_assert_str_eq(prof, "ssrf");
    ck_assert_uint_eq(urisan_policy_origin(p, URISAN_ORIGIN_DENY_FLAG, URISAN_FLAG_IP_PRIVATE, NULL), 4);
    ck_assert_uint_eq(urisan_policy_origin(p, URISAN_ORIGIN_DENY_FLAG, URISAN_FLAG_PASSWORD, NULL), 0);
    /* a list's first line */
    ck_assert_uint_eq(urisan_policy_origin(p, URISAN_ORIGIN_RULE, URISAN_REASON_HOST_DENIED, NULL), 6);
    ck_assert_uint_eq(urisan_policy_origin(p, URISAN_ORIGIN_RULE, URISAN_REASON_NESTED_HOST_DENIED, NULL), 6);
    ck_assert_uint_eq(urisan_policy_origin(p, URISAN_ORIGIN_RULE, URISAN_REASON_NOT_ABSOLUTE, NULL), 9);
    /* the profile's lists */
    ck_assert_uint_eq(urisan_policy_origin(p, URISAN_ORIGIN_RULE, URISAN_REASON_PORT_NOT_ALLOWED, NULL), 0);
    /* nested_url reported by a nested: rule; denied by the profile's own */
    ck_assert_uint_eq(urisan_policy_origin(p, URISAN_ORIGIN_FLAG_FLAG, URISAN_FLAG_NESTED_URL, NULL),
                      (p->flag >> URISAN_FLAG_NESTED_URL & 1) ? 0 : 8);
    /* out of range: 0 */
    ck_assert_uint_eq(urisan_policy_origin(p, URISAN_ORIGIN_RULE, 99, NULL), 0);
    ck_assert_uint_eq(urisan_policy_origin(p, URISAN_ORIGIN_DENY_FLAG, 64, NULL), 0);
    /* urisan_policy_profile names the profile */
    ck_assert_int_eq(urisan_policy_profile(p, "proxy", 5), URISAN_OK);
    ck_assert_uint_eq(urisan_policy_origin(p, URISAN_ORIGIN_DENY_FLAG, URISAN_FLAG_IDN, &prof), 0);
    ck_assert_str_eq(prof, "proxy");
    free(p);
}
END_TEST

/* urisan_policy_origin_uri: a deny-host / deny-ip reason names the line
   of the entry that matched the URI (the profile's entry: 0). */
static size_t origin_of(const urisan_policy *p, const char *u, unsigned reason, const char **prof)
{
    return urisan_policy_origin_uri(p, u, strlen(u), URISAN_ORIGIN_RULE, reason, prof);
}

START_TEST(origin_uri_names_the_entry_that_matched)
{
    const char *prof = NULL;
    urisan_policy *p = policy_of("profile ssrf\ndeny-host a.example\n"
                                 "deny-host b.example .c.example\ndeny-ip 192.0.2.0/24\n"
                                 "deny-ip 198.51.100.7\nallow-port 80\nallow-port 443\n");
    ck_assert_uint_eq(origin_of(p, "http://a.example/", URISAN_REASON_HOST_DENIED, &prof), 2);
    ck_assert_uint_eq(origin_of(p, "http://x.C.example./", URISAN_REASON_HOST_DENIED, NULL), 3);
    ck_assert_uint_eq(origin_of(p, "http://metadata/", URISAN_REASON_HOST_DENIED, &prof), 0);
    ck_assert_str_eq(prof, "ssrf");
    ck_assert_uint_eq(origin_of(p, "http://198.51.100.7/", URISAN_REASON_IP_DENIED, NULL), 5);
    ck_assert_uint_eq(origin_of(p, "http://[::ffff:192.0.2.9]/", URISAN_REASON_IP_DENIED, NULL), 4);
    ck_assert_uint_eq(origin_of(p, "http://168.63.129.16/", URISAN_REASON_IP_DENIED, NULL), 0);
    ck_assert_uint_eq(origin_of(p, "http://h/?u=http://b.example/", URISAN_REASON_NESTED_HOST_DENIED,
                                NULL), 3);
    ck_assert_uint_eq(origin_of(p, "http://h/?u=http%3A%2F%2F198.51.100.7%2F",
                                URISAN_REASON_NESTED_IP_DENIED, NULL), 5);
    /* no entry matches the URI as written: the list's first line */
    ck_assert_uint_eq(origin_of(p, "http://ok.example/", URISAN_REASON_HOST_DENIED, NULL), 2);
    /* a reason no entry gives: the list's first line, as urisan_policy_origin */
    ck_assert_uint_eq(origin_of(p, "http://a.example:81/", URISAN_REASON_PORT_NOT_ALLOWED, NULL), 6);
    /* other kinds, NULL input, NULL policy */
    ck_assert_uint_eq(urisan_policy_origin_uri(p, "http://u:p@h/", 13, URISAN_ORIGIN_DENY_FLAG,
                                               URISAN_FLAG_PASSWORD, NULL), 0);
    ck_assert_uint_eq(urisan_policy_origin_uri(p, NULL, 0, URISAN_ORIGIN_RULE,
                                               URISAN_REASON_HOST_DENIED, NULL), 2);
    ck_assert_uint_eq(urisan_policy_origin_uri(NULL, "http://a.example/", 17, URISAN_ORIGIN_RULE,
                                               URISAN_REASON_HOST_DENIED, &prof), 0);
    ck_assert_str_eq(prof, "default");
    free(p);
}
END_TEST

START_TEST(every_profile_parses_and_has_a_name)
{
    size_t n = 0;
    for (; urisan_profile_name(n) != NULL; n++) {
        const char *name = urisan_profile_name(n);
        const char *text = urisan_profile_text(name, strlen(name));
        ck_assert_ptr_nonnull(text);
        urisan_policy *p = new_policy();
        ck_assert_int_eq(urisan_policy_profile(p, name, strlen(name)), URISAN_OK);
        urisan_policy *q = policy_of(text);
        ck_assert_msg(memcmp(p, q, POL_RULES_SIZE) == 0, "%s", name);
        free(p);
        free(q);
    }
    ck_assert_uint_eq(n, 4);
    urisan_policy *p = new_policy();
    ck_assert_int_eq(urisan_policy_profile(p, "ssrff", 5), URISAN_E_BAD_POLICY);
    ck_assert_ptr_null(urisan_profile_text("ssrff", 5));
    /* left as the default policy */
    urisan_policy *d = new_policy();
    ck_assert(memcmp(p, d, POL_RULES_SIZE) == 0);
    ck_assert_int_eq(urisan_policy_profile(p, "default", 7), URISAN_OK);
    ck_assert(memcmp(p, d, POL_RULES_SIZE) == 0);
    free(p);
    free(d);
}
END_TEST

START_TEST(profile_line_first_then_later_lines_override)
{
    urisan_policy *p = policy_of("# comment\n\nprofile ssrf\nallow ip_private\n");
    ck_assert_int_eq(check(p, "http://10.0.0.1/").verdict, URISAN_FLAGGED);
    ck_assert_int_eq(check(p, "http://127.0.0.1/").verdict, URISAN_DENY);
    free(p);
    /* the profile replaces what came before (nothing but comments may) */
    p = new_policy();
    ck_assert_int_eq(urisan_policy_profile(p, "ssrf", 4), URISAN_OK);
    urisan_policy_error e;
    ck_assert_int_eq(urisan_policy_parse_ex(p, "profile default\n", 16, &e), URISAN_OK);
    ck_assert_int_eq(check(p, "http://10.0.0.1/").verdict, URISAN_FLAGGED);
    free(p);
}
END_TEST

START_TEST(proxy_profile_refuses_what_is_no_absolute_url)
{
    urisan_policy *p = new_policy();
    ck_assert_int_eq(urisan_policy_profile(p, "proxy", 5), URISAN_OK);
    const char *deny[] = {"-", "", "TCP_MISS/200", "api.github.com:443", "/x", "//h/",
                          "gopher://h/", "http://127.0.0.1/", "http://169.254.169.254/"};
    for (size_t i = 0; i < sizeof deny / sizeof deny[0]; i++)
        ck_assert_msg(check(p, deny[i]).verdict == URISAN_DENY, "%s", deny[i]);
    ck_assert_int_ne(check(p, "https://example.com/").verdict, URISAN_DENY);
    ck_assert_int_ne(check(p, "http://10.1.2.3:8080/intranet").verdict, URISAN_DENY);
    free(p);
}
END_TEST

/* The Windows protocol handlers the mail profile denies (doc/policy.md
   "Profiles"): each scheme, also as a browser reads it (case, a leading
   space, a TAB inside), is denied for dangerous_scheme. */
static const char *const windows_handlers[] = {
    "ms-msdt:/id%20PCWDiagnostic%20/skip%20force",
    "search-ms:query=invoice&crumb=location:%5C%5Cevil.example%5Cs",
    "search:query=invoice&crumb=location:%5C%5Cevil.example%5Cs",
    "ms-officecmd:%7B%22id%22:3%7D",
    "ms-word:ofe%7Cu%7Chttps://evil.example/a.docx",
    "ms-excel:ofv%7Cu%7Chttps://evil.example/a.xlsx",
    "ms-powerpoint:https://evil.example/a.pptx",
    "mhtml:https://evil.example/a.mht!x",
    "smb://evil.example/share/a.pdf",
    "ms-settings:windowsdefender",
    "ms-cxh:x",
    "ms-cxh-full:x",
    "ms-appinstaller:?source=https://evil.example/a.msix",
    "SEARCH-MS:query=x",
    " Ms-Msdt:/id%20x",
    "ms-off\tice\ncmd:x",
};

START_TEST(mail_profile_denies_windows_protocol_handlers)
{
    urisan_policy *p = new_policy();
    ck_assert_int_eq(urisan_policy_profile(p, "mail", 4), URISAN_OK);
    const char *in = windows_handlers[_i];
    urisan_decision d = check(p, in);
    ck_assert_msg(d.verdict == URISAN_DENY && (d.deny_flags & F(DANGEROUS_SCHEME)), "%s", in);
    /* the default policy has no such entries: only its built-in list */
    free(p);
    p = new_policy();
    ck_assert_msg(!(check(p, in).deny_flags & F(DANGEROUS_SCHEME)), "default: %s", in);
    free(p);
}
END_TEST

START_TEST(mail_profile_allows_handler_lookalike_schemes)
{
    urisan_policy *p = new_policy();
    ck_assert_int_eq(urisan_policy_profile(p, "mail", 4), URISAN_OK);
    const char *ok[] = {"https://example.com/", "mailto:a@example.com", "ms-wordx:x",
                        "smbx://h/", "searchms:x", "https://example.com/?u=search-ms:x"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        ck_assert_msg(!(check(p, ok[i]).deny_flags & F(DANGEROUS_SCHEME)), "%s", ok[i]);
    /* a redirector's nested URL answers to the same list */
    ck_assert_int_eq(check(p, "https://r.example/?url=ms-msdt:/id%20x").verdict, URISAN_DENY);
    free(p);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* The policy written back                                                 */
/* ---------------------------------------------------------------------- */

START_TEST(format_parses_back_to_the_same_policy)
{
    const char *texts[] = {
        "",
        "profile ssrf\n",
        "profile proxy\nallow-host .corp.example *.b.example c.example [::1] 10.0.0.1\n",
        ("deny all\nflag idn\nallow invalid\nallow-port 1-5 80\ndefault-port foo 77\n"
         "dangerous-scheme Foo\nlimit uri 100\nrequire-absolute\n"),
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        urisan_policy *p = policy_of(texts[i]);
        size_t n = 0;
        ck_assert_int_eq(urisan_policy_format(p, NULL, 0, &n), URISAN_E_NOSPACE);
        char *buf = malloc(n);
        ck_assert_int_eq(urisan_policy_format(p, buf, n, &n), URISAN_OK);
        urisan_policy *q = new_policy();
        urisan_policy_error e;
        ck_assert_msg(urisan_policy_parse_ex(q, buf, n, &e) == URISAN_OK, "%s: %zu: %s", texts[i],
                      e.line, e.msg);
        ck_assert_msg(memcmp(&p->limits, &q->limits, sizeof p->limits) == 0 &&
                          p->deny == q->deny && p->flag == q->flag &&
                          p->n_deny_host == q->n_deny_host && p->n_allow_host == q->n_allow_host &&
                          p->n_port == q->n_port && p->n_scheme == q->n_scheme &&
                          p->require_absolute == q->require_absolute &&
                          p->require_authority == q->require_authority &&
                          p->pool_used == q->pool_used &&
                          memcmp(p->pool, q->pool, p->pool_used) == 0,
                      "%s", texts[i]);
        free(buf);
        free(p);
        free(q);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("decision");
    TCase *t = tcase_create("reasons");
    tcase_add_test(t, format_names_deny_reasons_apart_from_flagged_ones);
    tcase_add_test(t, format_reports_the_size_and_nospace);
    suite_add_tcase(s, t);
    t = tcase_create("grammar");
    tcase_add_loop_test(t, every_mistake_names_line_column_and_word, 0,
                        sizeof mistakes / sizeof mistakes[0]);
    tcase_add_test(t, size_mistakes_name_column_and_word);
    tcase_add_test(t, host_rules_exact_dot_suffix_and_star_suffix);
    tcase_add_test(t, require_absolute_and_require_authority);
    tcase_add_test(t, format_parses_back_to_the_same_policy);
    tcase_add_test(t, nested_rules_judge_what_the_caller_adds_to_each_nested_url);
    tcase_add_test(t, a_nested_value_too_long_to_decode_counts_as_having_the_callers_flags);
    tcase_add_test(t, host_lists_judge_the_host_a_client_resolves);
    tcase_add_test(t, the_map_is_asked_about_an_escape_or_high_byte_at_every_position);
    suite_add_tcase(s, t);
    t = tcase_create("profiles");
    tcase_add_test(t, every_profile_parses_and_has_a_name);
    tcase_add_test(t, origin_names_the_line_or_the_profile_of_each_rule);
    tcase_add_test(t, origin_uri_names_the_entry_that_matched);
    tcase_add_test(t, profile_line_first_then_later_lines_override);
    tcase_add_test(t, proxy_profile_refuses_what_is_no_absolute_url);
    tcase_add_loop_test(t, mail_profile_denies_windows_protocol_handlers, 0,
                        (int)(sizeof windows_handlers / sizeof windows_handlers[0]));
    tcase_add_test(t, mail_profile_allows_handler_lookalike_schemes);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
