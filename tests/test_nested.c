/*
 * test_nested.c - URLs nested in query and fragment parameters
 * (src/nested.c): which parameters are looked at ("&" and ";"
 * apart, query and fragment), percent-decoding once and twice, every
 * network-path form, the depth bound (policy nested-depth 1..3), the
 * scratch bound, the union of flags, and the policy's `deny nested:FLAG`,
 * `flag nested:FLAG`, `nested-depth N` with their mistakes.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "risk.h"
#include "urisan.h"

#define F(n) URISAN_F(n)

static urisan_policy *policy_of(const char *text)
{
    urisan_policy *p = malloc(urisan_policy_size());
    ck_assert_ptr_nonnull(p);
    urisan_policy_init(p);
    urisan_policy_error e;
    urisan_status st = urisan_policy_parse_ex(p, text, strlen(text), &e);
    ck_assert_msg(st == URISAN_OK, "policy %s: %zu:%zu: %s", text, e.line, e.column,
                  e.msg ? e.msg : "");
    return p;
}

/* What the callback saw, in order. */
typedef struct {
    size_t n;
    struct {
        char name[64];
        char uri[256];
        unsigned depth, decodes;
        int incomplete;
        urisan_flags flags;
        int ip_family;
    } e[16];
} seen;

static void collect(void *ctx, const urisan_nested_url *n)
{
    seen *s = ctx;
    if (s->n == 16)
        return;
    ck_assert(n->name_len < sizeof s->e[0].name && n->uri_len < sizeof s->e[0].uri);
    memcpy(s->e[s->n].name, n->name, n->name_len);
    s->e[s->n].name[n->name_len] = '\0';
    memcpy(s->e[s->n].uri, n->uri, n->uri_len);
    s->e[s->n].uri[n->uri_len] = '\0';
    s->e[s->n].depth = n->depth;
    s->e[s->n].decodes = n->decodes;
    s->e[s->n].incomplete = n->incomplete;
    s->e[s->n].flags = n->report.flags;
    s->e[s->n].ip_family = n->report.ip_family;
    s->n++;
}

/* urisan_nested of in under pol (NULL: default), the input flush against
   a guard page; also checks that nested_url is set exactly when some
   nested URL was found. */
static urisan_nested_report nested(const char *in, const urisan_policy *pol, seen *s,
                                   size_t cap)
{
    static char scratch[4096];
    urisan_uri u;
    urisan_report r;
    urisan_nested_report nr;
    guard_buf g = {0};
    size_t len = strlen(in);
    const char *t = guard_place(&g, in, len);
    urisan_parse(t, len, urisan_policy_limits(pol), &u, NULL);
    urisan_analyze(t, len, &u, pol, &r);
    memset(s, 0, sizeof *s);
    ck_assert_int_eq(urisan_nested(t, len, &u, pol, scratch, cap, collect, s, &nr), URISAN_OK);
    ck_assert_msg(((r.flags & F(NESTED_URL)) != 0) == (nr.count > 0),
                  "%s: nested_url %d but %zu nested URLs", in,
                  (r.flags & F(NESTED_URL)) != 0, nr.count);
    guard_free(&g);
    return nr;
}

/* ---------------------------------------------------------------------- */
/* Which values are nested URLs                                           */
/* ---------------------------------------------------------------------- */

typedef struct {
    const char *in;
    const char *name; /* the first nested URL's parameter; NULL: none */
    const char *uri;  /* as analysed */
    unsigned decodes;
} vcase;

static const vcase vcases[] = {
    /* parameters: "&" and ";" apart, in the query and the fragment */
    {"http://a/?next=http://127.0.0.1/", "next", "http://127.0.0.1/", 1},
    {"http://a/?x=1&url=https://b/", "url", "https://b/", 1},
    {"http://a/?x=1;url=https://b/", "url", "https://b/", 1},
    {"http://a/?x=1&url=https://b/&y=2", "url", "https://b/", 1},
    {"http://a/#u=http://b/", "u", "http://b/", 1},
    {"http://a/?q=1#/route?next=http://b/", "/route?next", "http://b/", 1},
    {"http://a/?a=x&=http://c/", "", "http://c/", 1},
    /* schemes as RFC 3986 3.1 writes them; not numbers, not "=:" */
    {"http://a/?r=javascript:alert(1)", "r", "javascript:alert(1)", 1},
    {"http://a/?r=mailto:a@b", "r", "mailto:a@b", 1},
    {"http://a/?t=10:30", NULL, NULL, 0},
    {"http://a/?t=:x", NULL, NULL, 0},
    {"http://a/?t=-a:x", NULL, NULL, 0},
    {"http://a/?t=http", NULL, NULL, 0},
    {"http://a/?http://b/", NULL, NULL, 0},
    {"http://a/http://b/?x=1", NULL, NULL, 0},
    /* network-path references, and what browsers read as one */
    {"http://a/?url=//169.254.169.254/", "url", "//169.254.169.254/", 1},
    {"http://a/?url=/\\169.254.169.254/", "url", "/\\169.254.169.254/", 1},
    {"http://a/?url=\\\\169.254.169.254/", "url", "\\\\169.254.169.254/", 1},
    {"http://a/?url=\\/169.254.169.254/", "url", "\\/169.254.169.254/", 1},
    {"http://a/?url=/path/x", NULL, NULL, 0},
    /* percent-decoded once ... */
    {"http://a/?u=http%3A%2F%2F10.0.0.1%2F", "u", "http://10.0.0.1/", 1},
    {"http://a/?u=%2F%2F10.0.0.1", "u", "//10.0.0.1", 1},
    {"http://a/?u=%5C%5C10.0.0.1", "u", "\\\\10.0.0.1", 1},
    {"http://a/?u=%68ttp://b/", "u", "http://b/", 1},
    /* ... and twice when only the second decoding makes a URL */
    {"http://a/?u=http%253A%252F%252F127.0.0.1%252F", "u", "http://127.0.0.1/", 2},
    {"http://a/?u=%252F%252F127.0.0.1", "u", "//127.0.0.1", 2},
    {"http://a/?u=%2568ttp%253A//b", "u", "http://b", 2},
    /* a URL once decoded is not decoded again (its own flags say more) */
    {"http://a/?u=http%3A//b/%2541", "u", "http://b/%41", 1},
    {"http://a/?u=%25%32%35", NULL, NULL, 0},
    /* leading blanks (WHATWG strips them); TAB inside a scheme */
    {"http://a/?u=%20http://b/", "u", " http://b/", 1},
    {"http://a/?u=java%09script:x", "u", "java\tscript:x", 1},
};

START_TEST(value_is_a_nested_url_or_not)
{
    const vcase *c = &vcases[_i];
    seen s;
    urisan_nested_report nr = nested(c->in, NULL, &s, 4096);
    if (c->name == NULL) {
        ck_assert_msg(nr.count == 0, "%s: %zu nested URLs", c->in, nr.count);
        return;
    }
    ck_assert_msg(nr.count >= 1, "%s: no nested URL", c->in);
    if (c->decodes == 0) { /* a different parameter than it looks */
        ck_assert_msg(strcmp(s.e[0].name, c->name) != 0 || strcmp(s.e[0].uri, c->uri) != 0,
                      "%s", c->in);
        return;
    }
    ck_assert_msg(strcmp(s.e[0].name, c->name) == 0, "%s: name '%s'", c->in, s.e[0].name);
    ck_assert_msg(strcmp(s.e[0].uri, c->uri) == 0, "%s: uri '%s'", c->in, s.e[0].uri);
    ck_assert_msg(s.e[0].decodes == c->decodes, "%s: decodes %u", c->in, s.e[0].decodes);
    ck_assert_uint_eq(s.e[0].depth, 1);
}
END_TEST

/* "a=b=http://c/": the value of a is "b=http://c/" - no URL. */
START_TEST(equals_in_a_value_is_part_of_it)
{
    seen s;
    ck_assert_uint_eq(nested("http://a/?a=b=http://c/", NULL, &s, 4096).count, 0);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Flags of the nested URLs                                               */
/* ---------------------------------------------------------------------- */

START_TEST(network_path_forms_judge_the_host_browsers_go_to)
{
    static const char *const forms[] = {
        "http://a/?u=//169.254.169.254/", "http://a/?u=/\\169.254.169.254/",
        "http://a/?u=\\\\169.254.169.254/", "http://a/?u=\\/169.254.169.254/",
        "http://a/?u=%2F%5C169.254.169.254/", "http://a/?u=%5C%5C169.254.169.254",
        "http://a/#u=%252F%252F169.254.169.254",
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        seen s;
        urisan_nested_report nr = nested(forms[i], NULL, &s, 4096);
        ck_assert_msg(nr.count == 1 && (nr.flags & F(IP_LINK_LOCAL)) && s.e[0].ip_family == 4,
                      "%s: flags %llx", forms[i], (unsigned long long)nr.flags);
        bool back = strchr(s.e[0].uri, '\\') != NULL;
        ck_assert_msg(!back || (nr.flags & F(BACKSLASH) && nr.flags & F(AMBIGUOUS_AUTHORITY)),
                      "%s: the backslash form is not reported", forms[i]);
    }
}
END_TEST

/* The analysis' cheap look (analyze.c nested_maybe) never hides a nested
   URL that urisan_nested finds: every escaped start, either case, once
   and twice encoded, and a "%" that is no escape until the first decoding.
   Nor does the parse's summary that stands in for it (SCAN_SUM_NEST,
   urisan_parse_analyze). */
START_TEST(nested_url_flag_for_every_encoded_start)
{
    static const char *const yes[] = {
        "http://a/?u=http%3a//h/",        "http://a/?u=http%3A%2F%2Fh/",
        "http://a/?u=%2f%2fh",            "http://a/?u=%5c%5ch",
        "http://a/?u=/%5Ch",              "http://a/?u=%252f%252fh",
        "http://a/?u=http%253A%252F%252Fh", "http://a/?u=%%32%66%%32%66h",
        "http://a/?x=%41&u=%2F%2Fh",      "http://a/#u=%5C%2Fh",
        "http://a/?u=javascript%3Aalert(1)", "http://a/?u=/%09/h",
        "http://a/?u=/%0a%0D/h",          "http://a/?u=+%20http%3A%2F%2Fh",
    };
    static const char *const no[] = {
        "http://a/?u=%41%42", "http://a/?u=a%20b", "http://a/?u=%2Fa", "http://a/?u=%2541",
        "http://a/?u=/a/b",   "http://a/?u=a//b",  "http://a/#u=/a",   "http://a/?u=1:b",
        "http://a/?u=/%41/h", "http://a/?u=/%09a",
    };
    for (size_t i = 0; i < sizeof yes / sizeof yes[0] + sizeof no / sizeof no[0]; i++) {
        bool want = i < sizeof yes / sizeof yes[0];
        const char *in = want ? yes[i] : no[i - sizeof yes / sizeof yes[0]];
        urisan_uri u;
        urisan_report r;
        urisan_parse(in, strlen(in), NULL, &u, NULL);
        ck_assert_int_eq(urisan_analyze(in, strlen(in), &u, NULL, &r), URISAN_OK);
        ck_assert_msg(((r.flags & F(NESTED_URL)) != 0) == want, "%s: nested_url %s", in,
                      want ? "missing" : "set");
        (void)urisan_parse_analyze(in, strlen(in), NULL, &u, NULL, &r); /* the parse's status */
        ck_assert_msg(((r.flags & F(NESTED_URL)) != 0) == want,
                      "%s: nested_url %s with the parse's summary", in, want ? "missing" : "set");
        seen s;
        ck_assert_uint_eq(nested(in, NULL, &s, 4096).count, want ? 1 : 0);
    }
}
END_TEST

START_TEST(union_holds_every_nested_urls_flags)
{
    seen s;
    urisan_nested_report nr =
        nested("http://a/?a=http://127.0.0.1/&b=http://u:p@h/&c=javascript:x", NULL, &s, 4096);
    ck_assert_uint_eq(nr.count, 3);
    ck_assert(nr.flags & F(IP_LOOPBACK));
    ck_assert(nr.flags & F(PASSWORD));
    ck_assert(nr.flags & F(DANGEROUS_SCHEME));
    ck_assert_uint_eq(nr.flags, s.e[0].flags | s.e[1].flags | s.e[2].flags);
    ck_assert_uint_eq(nr.depth, 1);
}
END_TEST

START_TEST(leading_blanks_are_judged_as_browsers_strip_them)
{
    seen s;
    urisan_nested_report nr = nested("http://a/?u=%20%09http://127.0.0.1/", NULL, &s, 4096);
    ck_assert_uint_eq(nr.count, 1);
    ck_assert(nr.flags & F(IP_LOOPBACK));
    ck_assert(nr.flags & F(WHITESPACE));
    ck_assert(nr.flags & F(INVALID));
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Depth                                                                  */
/* ---------------------------------------------------------------------- */

#define CHAIN "http://a/?u=http://b/%3Fv%3Dhttp://c/%253Fw%253Dhttp://127.0.0.1/"

START_TEST(depth_is_bounded_by_the_policy)
{
    seen s;
    /* default depth 1: u only, read once and (it holds escapes that
       decode again) twice; it holds a nested URL itself */
    urisan_nested_report nr = nested(CHAIN, NULL, &s, 4096);
    ck_assert_uint_eq(nr.count, 2);
    ck_assert_uint_eq(nr.depth, 1);
    ck_assert(nr.flags & F(NESTED_URL));
    ck_assert(nr.flags & F(NESTED_DEEP));
    ck_assert(!(nr.flags & F(IP_LOOPBACK)));
    ck_assert_str_eq(s.e[0].uri, "http://b/?v=http://c/%3Fw%3Dhttp://127.0.0.1/");
    ck_assert_str_eq(s.e[1].uri, "http://b/?v=http://c/?w=http://127.0.0.1/");
    ck_assert_uint_eq(s.e[1].decodes, 2);

    urisan_policy *p2 = policy_of("nested-depth 2\n");
    nr = nested(CHAIN, p2, &s, 4096);
    ck_assert_uint_eq(nr.count, 4);
    ck_assert_uint_eq(nr.depth, 2);
    ck_assert_str_eq(s.e[1].name, "v");
    ck_assert_str_eq(s.e[1].uri, "http://c/?w=http://127.0.0.1/");
    ck_assert(!(nr.flags & F(IP_LOOPBACK)));
    ck_assert(nr.flags & F(NESTED_DEEP));
    free(p2);

    urisan_policy *p3 = policy_of("nested-depth 3\n");
    nr = nested(CHAIN, p3, &s, 4096);
    ck_assert_uint_eq(nr.count, 6);
    ck_assert_uint_eq(nr.depth, 3);
    ck_assert_uint_eq(s.e[2].depth, 3);
    ck_assert_str_eq(s.e[2].uri, "http://127.0.0.1/");
    ck_assert(nr.flags & F(IP_LOOPBACK));
    ck_assert(!(nr.flags & F(NESTED_DEEP)));
    free(p3);
}
END_TEST

/* Parents come before children, and siblings after a child's subtree. */
START_TEST(depth_first_order_with_siblings)
{
    urisan_policy *p = policy_of("nested-depth 3\n");
    seen s;
    urisan_nested_report nr =
        nested("http://a/?x=http://b/%3Fy%3Dhttp://c/&z=//d/", p, &s, 4096);
    ck_assert_uint_eq(nr.count, 3);
    ck_assert_str_eq(s.e[0].name, "x");
    ck_assert_str_eq(s.e[1].name, "y");
    ck_assert_uint_eq(s.e[1].depth, 2);
    ck_assert_str_eq(s.e[2].name, "z");
    ck_assert_uint_eq(s.e[2].depth, 1);
    free(p);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Scratch                                                                */
/* ---------------------------------------------------------------------- */

START_TEST(value_that_does_not_fit_the_scratch_is_too_long)
{
    seen s;
    /* 16 bytes of scratch; the decoded value needs more */
    urisan_nested_report nr = nested("http://a/?u=http%3A%2F%2F127.0.0.1%2Fxxxxxxxxxx", NULL, &s, 16);
    ck_assert_uint_eq(nr.count, 1);
    ck_assert_int_eq(s.e[0].incomplete, 1);
    ck_assert_uint_eq(s.e[0].flags, F(TOO_LONG) | F(INVALID));
    /* a value without escapes needs none */
    nr = nested("http://a/?u=http://127.0.0.1/xxxxxxxxxxxxxxxxxxxxxx", NULL, &s, 0);
    ck_assert_uint_eq(nr.count, 1);
    ck_assert_int_eq(s.e[0].incomplete, 0);
    ck_assert(nr.flags & F(IP_LOOPBACK));
}
END_TEST

START_TEST(bad_arguments)
{
    urisan_uri u;
    urisan_nested_report nr;
    char b[8];
    urisan_parse("http://a/?u=//b", 15, NULL, &u, NULL);
    ck_assert_int_eq(urisan_nested("x", 1, &u, NULL, b, 8, NULL, NULL, NULL),
                     URISAN_E_BAD_ARGUMENT);
    ck_assert_int_eq(urisan_nested("x", 1, NULL, NULL, b, 8, NULL, NULL, &nr),
                     URISAN_E_BAD_ARGUMENT);
    ck_assert_int_eq(urisan_nested(NULL, 1, &u, NULL, b, 8, NULL, NULL, &nr),
                     URISAN_E_BAD_ARGUMENT);
    ck_assert_int_eq(urisan_nested("x", 1, &u, NULL, NULL, 8, NULL, NULL, &nr),
                     URISAN_E_BAD_ARGUMENT);
    ck_assert_int_eq(urisan_nested(NULL, 0, &u, NULL, NULL, 0, NULL, NULL, &nr), URISAN_OK);
    ck_assert_uint_eq(nr.count, 0);
    /* spans that do not fit len are no parameters */
    ck_assert_int_eq(urisan_nested("http://a/", 9, &u, NULL, b, 8, NULL, NULL, &nr), URISAN_OK);
    ck_assert_uint_eq(nr.count, 0);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Policy                                                                 */
/* ---------------------------------------------------------------------- */

static urisan_decision decide(const urisan_policy *p, const char *in)
{
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    urisan_check(in, strlen(in), p, &u, &r, &d);
    return d;
}

START_TEST(default_policy_reports_nested_url_only)
{
    urisan_decision d = decide(NULL, "http://a.example/?next=http://127.0.0.1/");
    ck_assert_int_eq(d.verdict, URISAN_FLAGGED);
    ck_assert_uint_eq(d.flag_flags, F(NESTED_URL));
    /* a dangerous nested scheme does not deny under the default either */
    d = decide(NULL, "http://a.example/?next=javascript:alert(1)");
    ck_assert_int_eq(d.verdict, URISAN_FLAGGED);
}
END_TEST

START_TEST(deny_nested_flag_denies_on_the_union)
{
    urisan_policy *p = policy_of("deny nested:ip_link_local\n");
    urisan_decision d = decide(p, "http://a.example/?url=//169.254.169.254/latest/");
    ck_assert_int_eq(d.verdict, URISAN_DENY);
    ck_assert(d.deny_flags & F(NESTED_URL));
    ck_assert(!(d.flag_flags & F(NESTED_URL)));
    d = decide(p, "http://a.example/?url=//example.com/");
    ck_assert_int_eq(d.verdict, URISAN_FLAGGED);
    d = decide(p, "http://a.example/?url=/local/path");
    ck_assert_int_eq(d.verdict, URISAN_ALLOW);
    free(p);
}
END_TEST

START_TEST(flag_nested_flag_reports)
{
    urisan_policy *p = policy_of("allow nested_url\nflag nested:ip_loopback\n");
    urisan_decision d = decide(p, "http://a.example/?u=http://localhost./&v=http://127.1/");
    ck_assert_int_eq(d.verdict, URISAN_FLAGGED);
    ck_assert_uint_eq(d.flag_flags, F(NESTED_URL));
    d = decide(p, "http://a.example/?u=http://example.com/");
    ck_assert_int_eq(d.verdict, URISAN_ALLOW);
    free(p);
}
END_TEST

START_TEST(allow_nested_all_clears_nested_rules)
{
    urisan_policy *p = policy_of("deny nested:all\nallow nested:all\n");
    ck_assert_int_eq(decide(p, "http://a.example/?u=http://127.0.0.1/").verdict, URISAN_FLAGGED);
    free(p);
    p = policy_of("deny nested:all\n");
    ck_assert_int_eq(decide(p, "http://a.example/?u=http://127.0.0.1/").verdict, URISAN_DENY);
    free(p);
}
END_TEST

START_TEST(ssrf_profile_denies_nested_internal_targets)
{
    urisan_policy *p = malloc(urisan_policy_size());
    ck_assert_int_eq(urisan_policy_profile(p, "ssrf", 4), URISAN_OK);
    static const char *const deny[] = {
        "https://a.example/?next=http://127.0.0.1/",
        "https://a.example/?url=//169.254.169.254/latest/meta-data/",
        "https://a.example/#u=http%3A%2F%2F10.0.0.1%2F",
        "https://a.example/?u=http%253A%252F%252Fmetadata.google.internal%252F",
        "https://a.example/?a=https://b.example/%3Fnext%3Dhttp://[::1]/",
    };
    for (size_t i = 0; i < sizeof deny / sizeof deny[0]; i++)
        ck_assert_msg(decide(p, deny[i]).verdict == URISAN_DENY, "%s not denied", deny[i]);
    ck_assert_int_eq(decide(p, "https://a.example/?next=https://b.example/x").verdict,
                     URISAN_FLAGGED);
    free(p);
}
END_TEST

/* deny-host and deny-ip judge every nested URL (reasons nested_host_denied,
   nested_ip_denied); the allow lists judge none. */
static unsigned rules_of(const urisan_policy *p, const char *in)
{
    urisan_decision d = decide(p, in);
    ck_assert_msg((d.rules != 0) == (d.verdict == URISAN_DENY) || d.deny_flags != 0,
                  "%s: rules without a deny", in);
    return d.rules;
}

#define R(n) (1u << URISAN_REASON_##n)

/* Every URI of list[0..n) breaks exactly the rules want. */
static void expect_rules(const urisan_policy *p, const char *const *list, size_t n, unsigned want)
{
    for (size_t i = 0; i < n; i++) {
        unsigned got = rules_of(p, list[i]);
        ck_assert_msg(got == want, "%s: rules %x, want %x", list[i], got, want);
    }
}

START_TEST(deny_host_judges_nested_urls)
{
    urisan_policy *p = policy_of("deny-host .evil.example *.nip.io\n");
    static const char *const deny[] = {
        "http://a.example/?next=http://evil.example/",
        "http://a.example/?next=http://WWW.Evil.Example./x",
        "http://a.example/?u=//127.0.0.1.nip.io/",
        "http://a.example/?u=/%5C127.0.0.1.nip.io/",       /* browsers: //127.0.0.1.nip.io */
        "http://a.example/?u=%5C%5Cevil.example/",          /* \\evil.example */
        "http://a.example/?u=http%253A%252F%252Fevil.example%252F", /* decoded twice */
        "http://a.example/#u=https://user@evil.example:8443/",
        "http://a.example/?a=1;b=2&c=http://x.example/&d=http://evil.example/",
    };
    expect_rules(p, deny, sizeof deny / sizeof deny[0], R(NESTED_HOST_DENIED));
    /* the URI's own host is host_denied, not the nested rule */
    ck_assert_uint_eq(rules_of(p, "http://evil.example/?u=http://b.example/"), R(HOST_DENIED));
    /* not a match: another name, the bare wildcard domain, a path */
    ck_assert_uint_eq(rules_of(p, "http://a.example/?u=http://evil.example.org/"), 0);
    ck_assert_uint_eq(rules_of(p, "http://a.example/?u=http://nip.io/"), 0);
    ck_assert_uint_eq(rules_of(p, "http://a.example/?u=/evil.example/"), 0);
    ck_assert_int_eq(decide(p, "http://a.example/?u=http://b.example/").verdict, URISAN_FLAGGED);
    /* the second level only when nested-depth reaches it */
    const char *two = "http://a.example/?u=http://b.example/?v=http://evil.example/";
    ck_assert_uint_eq(rules_of(p, two), 0);
    free(p);
    p = policy_of("deny-host .evil.example\nnested-depth 2\n");
    ck_assert_uint_eq(rules_of(p, two), R(NESTED_HOST_DENIED));
    free(p);
}
END_TEST

START_TEST(deny_ip_judges_nested_urls)
{
    urisan_policy *p = policy_of("deny-ip 10.0.0.0/8 2001:db8::/32\n");
    static const char *const deny[] = {
        "http://a.example/?u=http://10.1.2.3/",
        "http://a.example/?u=http://0x0a000001/",            /* 10.0.0.1 in hex */
        "http://a.example/?u=http://[::ffff:10.0.0.1]/",     /* mapped */
        "http://a.example/?u=http://[2002:a00:1::]/",        /* 6to4 around 10.0.0.1 */
        "http://a.example/?u=http://[2001:db8::1]/",
        "http://a.example/?u=/%5C10.0.0.1/",                 /* browsers: //10.0.0.1 */
        "http://a.example/#u=http%3A%2F%2F167772161%2F",     /* 10.0.0.1 as a number */
    };
    expect_rules(p, deny, sizeof deny / sizeof deny[0], R(NESTED_IP_DENIED));
    ck_assert_uint_eq(rules_of(p, "http://10.0.0.1/?u=http://8.8.8.8/"), R(IP_DENIED));
    ck_assert_uint_eq(rules_of(p, "http://a.example/?u=http://11.0.0.1/"), 0);
    ck_assert_uint_eq(rules_of(p, "http://a.example/?u=http://10.example/"), 0);
    free(p);
}
END_TEST

START_TEST(allow_lists_do_not_judge_nested_urls)
{
    urisan_policy *p = policy_of("allow-host a.example\nallow-ip 10.0.0.0/8\n"
                                 "allow-scheme https\nallow-port 443\n");
    /* a link on to another site, address, scheme or port is not denied */
    ck_assert_uint_eq(rules_of(p, "https://a.example/?u=http://b.example:8080/&v=ftp://8.8.8.8/"), 0);
    ck_assert_int_eq(decide(p, "https://a.example/?u=http://b.example/").verdict, URISAN_FLAGGED);
    /* the URI itself still answers to them */
    ck_assert_uint_eq(rules_of(p, "https://b.example/"), R(HOST_NOT_ALLOWED));
    free(p);
}
END_TEST

START_TEST(nested_value_too_long_for_the_scratch_fails_closed)
{
    /* a value whose decoded text does not fit URISAN_NESTED_SCRATCH: its
       host is unknown, so the deny lists count it as denied */
    size_t n = URISAN_NESTED_SCRATCH + 200;
    char *in = malloc(n + 64);
    ck_assert_ptr_nonnull(in);
    int k = snprintf(in, 64, "http://a.example/?u=http%%3A%%2F%%2F");
    memset(in + k, 'x', n);
    in[k + n] = '\0';
    urisan_policy *p = policy_of("limit uri 65536\ndeny-host evil.example\ndeny-ip 10.0.0.0/8\n");
    urisan_decision d = decide(p, in);
    ck_assert_int_eq(d.verdict, URISAN_DENY);
    ck_assert_uint_eq(d.rules, R(NESTED_HOST_DENIED) | R(NESTED_IP_DENIED));
    free(p);
    /* without deny lists nothing but the flags judges it */
    p = policy_of("limit uri 65536\n");
    d = decide(p, in);
    ck_assert_uint_eq(d.rules, 0);
    free(p);
    free(in);
}
END_TEST

START_TEST(nested_reason_names_are_appended)
{
    ck_assert_str_eq(urisan_rule_reason_name(URISAN_REASON_NESTED_HOST_DENIED),
                     "nested_host_denied");
    ck_assert_str_eq(urisan_rule_reason_name(URISAN_REASON_NESTED_IP_DENIED), "nested_ip_denied");
    ck_assert_int_eq(URISAN_REASON_NESTED_HOST_DENIED, 8);
    ck_assert_int_eq(URISAN_REASON_NESTED_IP_DENIED, 9);
    urisan_policy *p = policy_of("deny-host evil.example\n");
    urisan_decision d = decide(p, "http://a.example/?u=//evil.example/");
    char buf[128];
    size_t need;
    ck_assert_int_eq(urisan_decision_format(&d, buf, sizeof buf, &need), URISAN_OK);
    buf[need] = '\0';
    ck_assert_str_eq(buf, "denied:nested_host_denied;flagged:nested_url");
    free(p);
}
END_TEST
#undef R

typedef struct {
    const char *text;
    size_t line, column;
    const char *word;
} mistake;

static const mistake mistakes[] = {
    {"deny nested:pasword\n", 1, 6, "nested:pasword"},
    {"deny nested:\n", 1, 6, "nested:"},
    {"flag ip_private nested:bogus\n", 1, 17, "nested:bogus"},
    {"nested-depth 0\n", 1, 14, "0"},
    {"nested-depth 4\n", 1, 14, "4"},
    {"nested-depth x\n", 1, 14, "x"},
    {"# c\nnested-depth\n", 2, 1, "nested-depth"},
    {"nested-depth 1 2\n", 1, 16, "2"},
};

START_TEST(policy_mistakes_name_line_column_and_word)
{
    const mistake *m = &mistakes[_i];
    urisan_policy *p = malloc(urisan_policy_size());
    urisan_policy_init(p);
    urisan_policy_error e;
    ck_assert_int_eq(urisan_policy_parse_ex(p, m->text, strlen(m->text), &e),
                     URISAN_E_BAD_POLICY);
    ck_assert_uint_eq(e.line, m->line);
    ck_assert_uint_eq(e.column, m->column);
    ck_assert_uint_eq(e.word_len, strlen(m->word));
    ck_assert(memcmp(m->text + e.word_off, m->word, e.word_len) == 0);
    free(p);
}
END_TEST

START_TEST(policy_format_writes_nested_rules_back)
{
    urisan_policy *p = policy_of("deny nested:ip_loopback nested:password\n"
                                 "flag nested:idn\nnested-depth 2\n");
    char buf[8192];
    size_t n = 0;
    ck_assert_int_eq(urisan_policy_format(p, buf, sizeof buf - 1, &n), URISAN_OK);
    buf[n] = '\0';
    ck_assert_ptr_nonnull(strstr(buf, "deny nested:password nested:ip_loopback\n"));
    ck_assert_ptr_nonnull(strstr(buf, "flag nested:idn\n"));
    ck_assert_ptr_nonnull(strstr(buf, "nested-depth 2\n"));
    urisan_policy *q = policy_of(buf);
    ck_assert_uint_eq(q->nested_deny, p->nested_deny);
    ck_assert_uint_eq(q->nested_flag, p->nested_flag);
    ck_assert_uint_eq(q->nested_depth, 2);
    free(q);
    free(p);
}
END_TEST


/* ---------------------------------------------------------------------- */
/* Readings as clients read a parameter: WHATWG form-urlencoded ("&"      */
/* only, "+" a space, decoded once) then the WHATWG URL parser (blanks    */
/* stripped, TAB LF CR removed, "\" a "/", any slashes after a special    */
/* scheme); and the readings some servers use (";" a separator too,      */
/* decoded twice). One row of bypasses each, found end to end.            */
/* ---------------------------------------------------------------------- */

static urisan_policy *profile(const char *name)
{
    urisan_policy *p = malloc(urisan_policy_size());
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(urisan_policy_profile(p, name, strlen(name)), URISAN_OK);
    return p;
}

typedef struct {
    const char *profile;
    const char *in;
} rcase;

/* Each of these reaches an address or name the profile denies when a
   client reads the parameter; each must be denied. */
static const rcase reach_cases[] = {
    /* ";" is no separator for URLSearchParams: host 169.254.169.254 */
    {"ssrf", "https://a.example/?url=http://example.org;@169.254.169.254/latest/"},
    {"mail", "https://a.example/?url=http://example.org;@127.0.0.1/"},
    /* "+" is a space, and the URL parser strips leading spaces */
    {"ssrf", "https://a.example/?url=+http://169.254.169.254/"},
    {"ssrf", "https://a.example/?url=+++%20%09+http%3A%2F%2F169.254.169.254%2F"},
    {"mail", "https://a.example/#u=+http://127.0.0.1/"},
    /* trailing blanks are stripped too: host 127.0.0.1 */
    {"mail", "https://a.example/?u=http://127.0.0.1+"},
    {"mail", "https://a.example/?u=http://127.0.0.1%20%0B"},
    /* the Unicode white space str.strip() and trim() remove, around the
       value, raw or percent-encoded, once or twice: what an application
       that strips its input fetches */
    {"ssrf", "https://a.example/c8?u=%C2%A0http://169.254.169.254/latest/meta-data/"},
    {"ssrf", "https://a.example/c8?u=\xc2\xa0http://169.254.169.254/latest/meta-data/"},
    {"ssrf", "https://a.example/?u=%25C2%25A0http%3A%2F%2F169.254.169.254%2F"},
    {"ssrf", "https://a.example/?u=%E3%80%80%EF%BB%BF+%C2%85//169.254.169.254/"},
    {"ssrf", "https://a.example/?u=%E1%9A%80%E2%80%80%E2%80%8A%E2%80%A8%E2%80%A9%E2%80%AF"
             "%E2%81%9Fhttp://10.0.0.1/"},
    {"ssrf", "https://a.example/?u=http://127.0.0.1%E3%80%80"},
    {"mail", "https://a.example/m?u=%E2%80%83javascript:alert(1)"},
    {"mail", "https://a.example/m?u=%C2%A0http://127.0.0.1/"},
    /* a path that starts with "//" is a network-path reference to a
       server that joins its target to its base */
    {"ssrf", "https://www.example.com//169.254.169.254/latest/meta-data/"},
    {"ssrf", "https://www.example.com/\\169.254.169.254/latest/meta-data/"},
    /* TAB LF CR inside are removed */
    {"mail", "https://a.example/?url=/%09/127.0.0.1/"},
    {"mail", "https://a.example/?url=/%0A%0D/127.0.0.1/"},
    {"mail", "https://a.example/?u=http://127.0.%09.0.1/"},
    {"ssrf", "https://a.example/?u=ht%09tp://169.254.%0A169.254/"},
    /* a special scheme followed by any number of "/" or "\" */
    {"proxy", "http://a.example/?u=http:%5C%5C127.0.0.1.nip.io/"},
    {"proxy", "http://a.example/?u=http:/127.0.0.1.nip.io/"},
    {"proxy", "http://a.example/?u=http:///127.0.0.1.nip.io/"},
    {"proxy", "http://a.example/?u=http:127.0.0.1.nip.io/"},
    {"proxy", "http://a.example/?u=https:%5C/%5Cmetadata/"},
    {"proxy", "http://a.example/?u=http:/100.100.100.200/"},
    {"proxy", "http://a.example/?u=HTTP:%5C100.100.100.200/"},
    {"ssrf", "https://a.example/?u=http:169.254.169.254/"},
    {"ssrf", "https://a.example/?u=http:%5C169.254.169.254/"},
    {"mail", "https://a.example/?u=http:///127.0.0.1/"},
    {"mail", "https://a.example/?u=http:%5C%5C%5C127.0.0.1/"},
    /* scheme-relative references of any mix of "/" and "\" */
    {"mail", "https://a.example/?u=///127.0.0.1/"},
    {"mail", "https://a.example/?u=%5C/%5C127.0.0.1/"},
    {"proxy", "http://a.example/?u=/%5C/127.0.0.1.nip.io/"},
    /* "\" in the authority of a special URL is a "/" */
    {"proxy", "http://a.example/?u=http://127.0.0.1.nip.io%5C@example.org/"},
    /* ";" as a separator too (Rack 2, old Python): http://127.0.0.1.nip.io */
    {"proxy", "http://a.example/?u=http://127.0.0.1.nip.io;@example.org/"},
    {"proxy", "http://a.example/?x=1;u=http://127.0.0.1.nip.io/"},
    /* decoded twice, when once already gives a URL of another host */
    {"proxy", "http://a.example/?u=http://127.0.0.1.nip.io%2523@example.org/"},
    {"mail", "https://a.example/?u=http://127.0.0.1%2523@example.org/"},
    /* chains: every profile follows 3 hops */
    {"mail", "https://a.example/?u=http://b.example/%3Fv%3Dhttp://127.0.0.1/"},
    {"proxy", "http://a.example/?u=http://b.example/%3Fv%3Dhttp://c.example/"
              "%253Fw%253Dhttp://127.0.0.1.nip.io/"},
};

START_TEST(client_readings_reach_what_the_profile_denies)
{
    const rcase *c = &reach_cases[_i];
    urisan_policy *p = profile(c->profile);
    urisan_decision d = decide(p, c->in);
    ck_assert_msg(d.verdict == URISAN_DENY, "%s under %s: verdict %d, deny %llx, rules %x", c->in,
                  c->profile, (int)d.verdict, (unsigned long long)d.deny_flags, d.rules);
    free(p);
}
END_TEST

/* 80, 81, 300 and 4,000 blanks before the URL: no fixed look-ahead. */
START_TEST(leading_blanks_of_any_length_are_stripped)
{
    static const char *const blanks[] = {"%20", "+", "%09", "%0A", "%01", "%1F", "%2B"};
    static const size_t counts[] = {0, 1, 80, 81, 300, 4000};
    urisan_policy *p = profile("ssrf");
    size_t cap = 3 * 4000 + 256;
    char *in = malloc(cap);
    for (size_t b = 0; b < sizeof blanks / sizeof blanks[0]; b++) {
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
            size_t o = (size_t)snprintf(in, cap, "https://a.example/?url=");
            for (size_t i = 0; i < counts[k]; i++)
                o += (size_t)snprintf(in + o, cap - o, "%s", blanks[b]);
            snprintf(in + o, cap - o, "http://169.254.169.254/");
            urisan_decision d = decide(p, in);
            /* "%2B" is a "+" once decoded: a space only when decoded twice */
            ck_assert_msg(d.verdict == URISAN_DENY, "%zu x %s: verdict %d", counts[k], blanks[b],
                          (int)d.verdict);
        }
    }
    free(in);
    free(p);
}
END_TEST

/* A scheme of any length starts a URL: WHATWG and Python set no bound on
   it, and both read the host after "://" (a 65-byte scheme passed as no
   URL at all, without even nested_url). The parse of such a URL fails
   (too_long), which ssrf denies. */
START_TEST(a_scheme_longer_than_the_limit_is_still_a_nested_url)
{
    static const size_t lens[] = {64, 65, 200, 5000};
    urisan_policy *p = profile("ssrf");
    size_t cap = 5000 + 256;
    char *in = malloc(cap);
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        for (size_t form = 0; form < 3; form++) {
            size_t o = (size_t)snprintf(in, cap, "http://example.org/%s",
                                        form == 1 ? "#u=" : "?u=");
            for (size_t i = 0; i < lens[k]; i++)
                in[o++] = i + 1 == lens[k] && form == 2 ? '%' : 'a';
            snprintf(in + o, cap - o, "%s", form == 2 ? "2B://127.0.0.1/" : "://127.0.0.1/");
            urisan_decision d = decide(p, in);
            ck_assert_msg(d.verdict == URISAN_DENY, "scheme of %zu bytes, form %zu: verdict %d",
                          lens[k], form, (int)d.verdict);
        }
    }
    free(in);
    free(p);
}
END_TEST

/* A chain one hop deeper than the policy follows is nested_deep: ssrf
   and mail deny it, proxy flags it. */
#define HOPS4                                                                                  \
    "https://a.example/?u=https://b.example/%3Fv%3Dhttps://c.example/"                         \
    "%253Fw%253Dhttps://d.example/%25253Fx%25253Dhttps://e.example/"

START_TEST(a_chain_deeper_than_the_depth_is_nested_deep)
{
    static const struct {
        const char *profile;
        urisan_verdict v;
    } want[] = {{"ssrf", URISAN_DENY}, {"mail", URISAN_DENY}, {"proxy", URISAN_FLAGGED}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        urisan_policy *p = profile(want[i].profile);
        ck_assert_uint_eq(p->nested_depth, 3);
        urisan_decision d = decide(p, HOPS4);
        ck_assert_msg(d.verdict == want[i].v, "%s: verdict %d", want[i].profile, (int)d.verdict);
        ck_assert_msg(((d.deny_flags | d.flag_flags) & F(NESTED_DEEP)) != 0,
                      "%s: no nested_deep", want[i].profile);
        /* three hops are followed, and no more is said */
        d = decide(p, "https://a.example/?u=https://b.example/%3Fv%3Dhttps://c.example/"
                      "%253Fw%253Dhttps://d.example/");
        ck_assert_msg(((d.deny_flags | d.flag_flags) & F(NESTED_DEEP)) == 0,
                      "%s: nested_deep at 3 hops", want[i].profile);
        free(p);
    }
    seen s;
    urisan_policy *p1 = policy_of("nested-depth 1\n");
    urisan_nested_report nr = nested(HOPS4, p1, &s, 4096);
    ck_assert(nr.flags & F(NESTED_DEEP));
    nr = nested("http://a/?u=http://b/", p1, &s, 4096);
    ck_assert(!(nr.flags & F(NESTED_DEEP)));
    free(p1);
}
END_TEST

/* What must stay allowed or only flagged: public redirect parameters,
   "+" inside a value, a ";" that ends nothing a client reads. */
static const rcase keep_cases[] = {
    {"ssrf", "https://a.example/?next=https%3A%2F%2Fexample.org%2Fa"},
    {"ssrf", "https://a.example/?next=https://example.org/search?q=a+b"},
    {"ssrf", "https://a.example/?next=https://example.org/a;b=c&x=1"},
    {"ssrf", "https://a.example/?q=a+b&next=//example.org/x"},
    {"mail", "https://a.example/?url=https%3A%2F%2Fexample.org%2Fa%3Fb%3Dc%2520d"},
    {"proxy", "http://a.example/?u=http:example.org/"},
};

START_TEST(public_redirects_are_not_denied)
{
    const rcase *c = &keep_cases[_i];
    urisan_policy *p = profile(c->profile);
    urisan_decision d = decide(p, c->in);
    ck_assert_msg(d.verdict != URISAN_DENY, "%s under %s: denied, flags %llx, rules %x", c->in,
                  c->profile, (unsigned long long)d.deny_flags, d.rules);
    free(p);
}
END_TEST

/* The host judged is the one the client reaches: "http:\\h", "http:h". */
START_TEST(special_scheme_slashes_judge_the_host_the_client_reaches)
{
    static const char *const forms[] = {
        "http://a/?u=http:%5C%5C169.254.169.254/", "http://a/?u=http:169.254.169.254/",
        "http://a/?u=http:///169.254.169.254/",    "http://a/?u=+http:/169.254.169.254+",
        "http://a/?u=/%09/169.254.169.254/",       "http://a/?u=%5C%09%5C169.254.169.254",
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        seen s;
        urisan_nested_report nr = nested(forms[i], NULL, &s, 4096);
        ck_assert_msg(nr.count >= 1 && (nr.flags & F(IP_LINK_LOCAL)), "%s: flags %llx",
                      forms[i], (unsigned long long)nr.flags);
    }
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Size: 1 MiB of nested shapes (results only; the bench times them)      */
/* ---------------------------------------------------------------------- */

START_TEST(one_mib_of_nested_urls_is_bounded)
{
    static const char *const units[] = {"?a=http://", "?a=http%253A%252F%252F", "&a=//h"};
    size_t len = 1u << 20;
    char *in = malloc(len);
    char *scratch = malloc(3 * len);
    urisan_policy *p = policy_of("nested-depth 3\nlimit uri 1048576\nlimit segments 1048576\n");
    urisan_policy *lists = policy_of("nested-depth 3\nlimit uri 1048576\nlimit segments 1048576\n"
                                     "deny-host .x.example\ndeny-ip 10.0.0.0/8\n");
    urisan_policy *lists_h = policy_of("nested-depth 3\nlimit uri 1048576\n"
                                       "limit segments 1048576\ndeny-host h\n");
    for (size_t k = 0; k < sizeof units / sizeof units[0]; k++) {
        size_t u = strlen(units[k]);
        memcpy(in, "http://h/?x", 11);
        size_t n = 11 + (len - 11) / u * u;
        for (size_t i = 11; i < n; i++)
            in[i] = units[k][(i - 11) % u];
        urisan_uri uri;
        urisan_report r;
        urisan_nested_report nr;
        urisan_parse(in, n, urisan_policy_limits(p), &uri, NULL);
        urisan_analyze(in, n, &uri, p, &r);
        ck_assert(r.flags & F(NESTED_URL));
        ck_assert_int_eq(urisan_nested(in, n, &uri, p, scratch, 3 * len, NULL, NULL, &nr),
                         URISAN_OK);
        ck_assert(nr.count >= 1 && nr.depth <= 3);
        if (k == 2)
            ck_assert_uint_eq(nr.count, (n - 11) / u); /* every "a=//h" */
        /* the decision with deny lists judges every nested URL it walks:
           "a=//h" x 174,761 is no match; the escaped chain does not fit
           urisan_decide's 8 KiB scratch and fails closed */
        urisan_decision d;
        urisan_decide(in, n, &uri, &r, lists, &d);
        unsigned want = k == 1 ? (1u << URISAN_REASON_NESTED_HOST_DENIED) |
                                     (1u << URISAN_REASON_NESTED_IP_DENIED)
                               : 0;
        ck_assert_uint_eq(d.rules, want);
        if (k == 2) {
            urisan_decide(in, n, &uri, &r, lists_h, &d); /* the URI's own host is h too */
            ck_assert_uint_eq(d.rules, (1u << URISAN_REASON_HOST_DENIED) |
                                           (1u << URISAN_REASON_NESTED_HOST_DENIED));
        }
    }
    free(lists);
    free(lists_h);
    free(p);
    free(scratch);
    free(in);
}
END_TEST

static Suite *nested_suite(void)
{
    Suite *s = suite_create("nested");
    TCase *tc = tcase_create("values");
    tcase_add_loop_test(tc, value_is_a_nested_url_or_not, 0, sizeof vcases / sizeof vcases[0]);
    tcase_add_test(tc, equals_in_a_value_is_part_of_it);
    suite_add_tcase(s, tc);
    tc = tcase_create("flags");
    tcase_add_test(tc, network_path_forms_judge_the_host_browsers_go_to);
    tcase_add_test(tc, nested_url_flag_for_every_encoded_start);
    tcase_add_test(tc, union_holds_every_nested_urls_flags);
    tcase_add_test(tc, leading_blanks_are_judged_as_browsers_strip_them);
    suite_add_tcase(s, tc);
    tc = tcase_create("depth");
    tcase_add_test(tc, depth_is_bounded_by_the_policy);
    tcase_add_test(tc, depth_first_order_with_siblings);
    suite_add_tcase(s, tc);
    tc = tcase_create("scratch");
    tcase_add_test(tc, value_that_does_not_fit_the_scratch_is_too_long);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);
    tc = tcase_create("policy");
    tcase_add_test(tc, default_policy_reports_nested_url_only);
    tcase_add_test(tc, deny_nested_flag_denies_on_the_union);
    tcase_add_test(tc, flag_nested_flag_reports);
    tcase_add_test(tc, allow_nested_all_clears_nested_rules);
    tcase_add_test(tc, ssrf_profile_denies_nested_internal_targets);
    tcase_add_test(tc, deny_host_judges_nested_urls);
    tcase_add_test(tc, deny_ip_judges_nested_urls);
    tcase_add_test(tc, allow_lists_do_not_judge_nested_urls);
    tcase_add_test(tc, nested_value_too_long_for_the_scratch_fails_closed);
    tcase_add_test(tc, nested_reason_names_are_appended);
    tcase_add_loop_test(tc, policy_mistakes_name_line_column_and_word, 0,
                        sizeof mistakes / sizeof mistakes[0]);
    tcase_add_test(tc, policy_format_writes_nested_rules_back);
    suite_add_tcase(s, tc);
    tc = tcase_create("readings");
    tcase_add_loop_test(tc, client_readings_reach_what_the_profile_denies, 0,
                        sizeof reach_cases / sizeof reach_cases[0]);
    tcase_add_test(tc, leading_blanks_of_any_length_are_stripped);
    tcase_add_test(tc, a_chain_deeper_than_the_depth_is_nested_deep);
    tcase_add_test(tc, a_scheme_longer_than_the_limit_is_still_a_nested_url);
    tcase_add_loop_test(tc, public_redirects_are_not_denied, 0,
                        sizeof keep_cases / sizeof keep_cases[0]);
    tcase_add_test(tc, special_scheme_slashes_judge_the_host_the_client_reaches);
    suite_add_tcase(s, tc);
    tc = tcase_create("linear");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, one_mib_of_nested_urls_is_bounded);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(nested_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
