/*
 * test_policy.c - policies and verdicts (urisan(1), POLICY): the built-in
 * default policy, every directive of the policy file, parse errors with
 * their line numbers, fixed capacities, and the documentation staying in
 * step with the flag list.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiet_check.h"
#include "guard.h"
#include "risk.h"
#include "urisan.h"

#define F(n) URISAN_F(n)

static urisan_policy *new_policy(void)
{
    urisan_policy *p = malloc(urisan_policy_size());
    qc_assert(p != NULL);
    urisan_policy_init(p);
    return p;
}

/* Parse text into a fresh policy; abort on error. */
static urisan_policy *policy_of(const char *text)
{
    urisan_policy *p = new_policy();
    size_t line = 0;
    const char *msg = NULL;
    urisan_status st = urisan_policy_parse(p, text, strlen(text), &line, &msg);
    qc_assert_msg(st == URISAN_OK, "policy %s: line %zu: %s", text, line, msg ? msg : "");
    return p;
}

static urisan_decision check(const urisan_policy *p, const char *in)
{
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    guard_buf g = {0};
    size_t len = strlen(in);
    const char *s = guard_place(&g, in, len);
    urisan_check(s, len, p, &u, &r, &d);
    guard_free(&g);
    return d;
}

/* ---------------------------------------------------------------------- */
/* The default policy (urisan(1), POLICY)                                  */
/* ---------------------------------------------------------------------- */

typedef struct {
    const char *in;
    urisan_verdict v;
} vcase;

static const vcase defaults[] = {
    {"http://example.com/", URISAN_ALLOW},
    {"https://example.com/a/b?c=d#e", URISAN_ALLOW},
    {"mailto:a@example.com", URISAN_ALLOW},
    {"http://h:8080/", URISAN_FLAGGED},
    {"http://u@h/", URISAN_FLAGGED},
    {"http://127.0.0.1/", URISAN_FLAGGED},
    {"http://169.254.169.254/", URISAN_FLAGGED},
    {"http://[::1]/", URISAN_FLAGGED},
    {"http://h/%01", URISAN_FLAGGED},
    {"http://h/a/../b", URISAN_FLAGGED},
    {"http://h/%252e", URISAN_FLAGGED},
    {"http://h/%c0%ae", URISAN_FLAGGED},
    {"http://xn--80ak6aa92e.com/", URISAN_FLAGGED},
    {"http://h/a%2fb", URISAN_FLAGGED},
    {"http://h/a b", URISAN_DENY},
    {"http://u:p@h/", URISAN_DENY},
    {"javascript:alert(1)", URISAN_DENY},
    {"http://0x7f.1/", URISAN_DENY},
    {"http://h/%0d%0a", URISAN_DENY},
    {"http://h/%00", URISAN_DENY},
    {"/../etc/passwd", URISAN_DENY},
    {"http:/evil.com", URISAN_DENY},
    {"http://example.com#@127.0.0.1/x", URISAN_DENY},
    {"pop3://h/1%0d%0aDELE%201", URISAN_DENY},
    {"http://h/\x7f", URISAN_DENY},
    {"file:///etc/passwd", URISAN_DENY},
};

START_TEST(default_policy_verdicts)
{
    const vcase *c = &defaults[_i];
    urisan_decision d = check(NULL, c->in);
    qc_assert_msg(d.verdict == c->v, "%s: %s, want %s", c->in, urisan_verdict_name(d.verdict),
                  urisan_verdict_name(c->v));
    /* an initialised policy with no file behaves as the NULL policy */
    urisan_policy *p = new_policy();
    urisan_decision d2 = check(p, c->in);
    qc_assert_int_eq(d2.verdict, d.verdict);
    qc_assert_uint_eq(d2.deny_flags, d.deny_flags);
    qc_assert_uint_eq(d2.flag_flags, d.flag_flags);
    qc_assert_uint_eq(d2.rules, 0);
    free(p);
}
END_TEST

/* urisan(1), POLICY: denies exactly invalid, too_long, escaped_crlf,
   escaped_nul, ctl_raw, dot_above_root, password, dangerous_scheme,
   ambiguous_authority, ip_obfuscated - and mail_limit (a mail
   limit fails closed); flags everything else. */
START_TEST(default_policy_denies_exactly_the_spec_list)
{
    static const char *const deny[] = {"invalid", "too_long", "escaped_crlf", "escaped_nul",
                                       "ctl_raw", "dot_above_root", "password",
                                       "dangerous_scheme", "ambiguous_authority",
                                       "ip_obfuscated", "mail_limit"};
    for (int b = 0; b < URISAN_FLAG_COUNT_; b++) {
        const char *name = urisan_flag_name((urisan_flag)b);
        if (name == NULL)
            continue; /* a bit reserved for a flag not landed yet */
        int want_deny = 0;
        for (size_t k = 0; k < sizeof deny / sizeof deny[0]; k++)
            want_deny |= strcmp(deny[k], name) == 0;
        urisan_report r;
        memset(&r, 0, sizeof r);
        r.flags = (urisan_flags)1 << b;
        urisan_decision d;
        urisan_decide("", 0, NULL, &r, NULL, &d);
        if (b == URISAN_FLAG_INTERNAL_NAME || b == URISAN_FLAG_SINGLE_LABEL) {
            /* ignored by default (intranet names), denied by
               the profiles */
            qc_assert_msg(d.verdict == URISAN_ALLOW && d.flag_flags == 0, "%s", name);
            continue;
        }
        qc_assert_msg(d.verdict == (want_deny ? URISAN_DENY : URISAN_FLAGGED), "%s -> %s", name,
                      urisan_verdict_name(d.verdict));
        qc_assert_uint_eq(want_deny ? d.deny_flags : d.flag_flags, r.flags);
        qc_assert_uint_eq(want_deny ? d.flag_flags : d.deny_flags, 0);
    }
}
END_TEST

START_TEST(decision_splits_deny_and_flag_reasons)
{
    urisan_decision d = check(NULL, "http://u:p@127.0.0.1:8080/");
    qc_assert_int_eq(d.verdict, URISAN_DENY);
    qc_assert_uint_eq(d.deny_flags, F(PASSWORD));
    qc_assert_uint_eq(d.flag_flags,
                      F(USERINFO) | F(NONDEFAULT_PORT) | F(IP_LITERAL) | F(IP_LOOPBACK));
    qc_assert_uint_eq(d.rules, 0);
}
END_TEST

START_TEST(too_long_is_denied_with_exactly_two_reasons)
{
    size_t n = 9000;
    char *s = malloc(n + 1);
    memset(s, 'a', n);
    s[n] = '\0';
    memcpy(s, "http://h/", 9);
    urisan_decision d = check(NULL, s);
    qc_assert_int_eq(d.verdict, URISAN_DENY);
    qc_assert_uint_eq(d.deny_flags, F(TOO_LONG) | F(INVALID));
    qc_assert_uint_eq(d.flag_flags, 0);
    free(s);
}
END_TEST

START_TEST(names_of_verdicts_and_rule_reasons)
{
    qc_assert_str_eq(urisan_verdict_name(URISAN_ALLOW), "allow");
    qc_assert_str_eq(urisan_verdict_name(URISAN_FLAGGED), "flag");
    qc_assert_str_eq(urisan_verdict_name(URISAN_DENY), "deny");
    ck_assert_ptr_null(urisan_verdict_name((urisan_verdict)7));
    qc_assert_str_eq(urisan_rule_reason_name(URISAN_REASON_SCHEME_NOT_ALLOWED),
                     "scheme_not_allowed");
    qc_assert_str_eq(urisan_rule_reason_name(URISAN_REASON_PORT_NOT_ALLOWED), "port_not_allowed");
    qc_assert_str_eq(urisan_rule_reason_name(URISAN_REASON_HOST_DENIED), "host_denied");
    qc_assert_str_eq(urisan_rule_reason_name(URISAN_REASON_HOST_NOT_ALLOWED), "host_not_allowed");
    ck_assert_ptr_null(urisan_rule_reason_name(URISAN_REASON_COUNT_));
    /* rule reasons never collide with flag names */
    for (int r = 0; r < URISAN_REASON_COUNT_; r++) {
        const char *n = urisan_rule_reason_name((urisan_rule_reason)r);
        qc_assert_int_eq(urisan_flag_from_name(n, strlen(n)), -1);
    }
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Directives                                                              */
/* ---------------------------------------------------------------------- */

START_TEST(deny_flag_allow_move_flags_between_sets)
{
    urisan_policy *p = policy_of("deny userinfo nondefault_port\n"
                                 "allow password\n"
                                 "flag ip_obfuscated\n");
    qc_assert_int_eq(check(p, "http://u@h/").verdict, URISAN_DENY);
    qc_assert_int_eq(check(p, "http://h:8080/").verdict, URISAN_DENY);
    /* password allowed, but its implied userinfo is denied */
    urisan_decision d = check(p, "http://u:p@h/");
    qc_assert_uint_eq(d.deny_flags, F(USERINFO));
    qc_assert_uint_eq(d.flag_flags, 0);
    d = check(p, "http://0x7f.1/");
    qc_assert_int_eq(d.verdict, URISAN_FLAGGED);
    qc_assert(d.flag_flags & F(IP_OBFUSCATED));
    free(p);
}
END_TEST

START_TEST(allow_all_then_deny_one)
{
    urisan_policy *p = policy_of("allow all\ndeny dangerous_scheme\n");
    qc_assert_int_eq(check(p, "http://u:p@0x7f.1:25/%0d%0a").verdict, URISAN_ALLOW);
    qc_assert_int_eq(check(p, "javascript:x").verdict, URISAN_DENY);
    free(p);
    p = policy_of("flag all\n");
    qc_assert_int_eq(check(p, "javascript:x").verdict, URISAN_FLAGGED);
    qc_assert_int_eq(check(p, "http://h.example/").verdict, URISAN_ALLOW);
    qc_assert_int_eq(check(p, "http://h/").verdict, URISAN_FLAGGED); /* single_label */
    free(p);
    p = policy_of("deny all\n");
    qc_assert_int_eq(check(p, "http://h:8080/").verdict, URISAN_DENY);
    qc_assert_int_eq(check(p, "http://h.example/").verdict, URISAN_ALLOW);
    qc_assert_int_eq(check(p, "http://h/").verdict, URISAN_DENY); /* single_label */
    free(p);
}
END_TEST

START_TEST(allow_scheme_denies_other_schemes)
{
    urisan_policy *p = policy_of("allow-scheme http https\n");
    qc_assert_int_eq(check(p, "http://h/").verdict, URISAN_ALLOW);
    qc_assert_int_eq(check(p, "HTTPS://h/").verdict, URISAN_ALLOW);
    urisan_decision d = check(p, "ftp://h/");
    qc_assert_int_eq(d.verdict, URISAN_DENY);
    qc_assert_uint_eq(d.rules, 1u << URISAN_REASON_SCHEME_NOT_ALLOWED);
    qc_assert_uint_eq(d.deny_flags, 0);
    /* a reference without a scheme is not an allowed scheme */
    qc_assert_uint_eq(check(p, "//h/").rules, 1u << URISAN_REASON_SCHEME_NOT_ALLOWED);
    free(p);
}
END_TEST

START_TEST(allow_port_judges_explicit_or_default_port)
{
    urisan_policy *p = policy_of("allow-port 80 443 8000-8080\n");
    qc_assert_int_eq(check(p, "http://h/").verdict, URISAN_ALLOW);
    qc_assert_int_eq(check(p, "https://h/").verdict, URISAN_ALLOW);
    qc_assert_int_eq(check(p, "http://h:8042/").verdict, URISAN_FLAGGED);
    qc_assert_int_eq(check(p, "http://h:/").verdict, URISAN_ALLOW);
    urisan_decision d = check(p, "http://h:25/");
    qc_assert_uint_eq(d.rules, 1u << URISAN_REASON_PORT_NOT_ALLOWED);
    qc_assert_uint_eq(check(p, "ftp://h/").rules, 1u << URISAN_REASON_PORT_NOT_ALLOWED);
    /* an authority whose port is unknown is not allowed */
    qc_assert_uint_eq(check(p, "foo://h/").rules, 1u << URISAN_REASON_PORT_NOT_ALLOWED);
    /* no authority: no port to judge */
    qc_assert_uint_eq(check(p, "mailto:a@b").rules, 0);
    free(p);
}
END_TEST

START_TEST(deny_host_exact_and_suffix)
{
    urisan_policy *p = policy_of("deny-host evil.com .bad.example 127.0.0.1 [::1]\n");
    qc_assert_uint_eq(check(p, "http://evil.com/").rules, 1u << URISAN_REASON_HOST_DENIED);
    qc_assert_uint_eq(check(p, "http://EVIL.com./").rules, 1u << URISAN_REASON_HOST_DENIED);
    qc_assert_uint_eq(check(p, "http://www.evil.com/").rules, 0);
    qc_assert_uint_eq(check(p, "http://notevil.com/").rules, 0);
    qc_assert_uint_eq(check(p, "http://bad.example/").rules, 1u << URISAN_REASON_HOST_DENIED);
    qc_assert_uint_eq(check(p, "http://a.b.bad.example/").rules,
                      1u << URISAN_REASON_HOST_DENIED);
    qc_assert_uint_eq(check(p, "http://notbad.example/").rules, 0);
    /* addresses match after de-obfuscation and in canonical text */
    qc_assert_uint_eq(check(p, "http://127.0.0.1/").rules, 1u << URISAN_REASON_HOST_DENIED);
    qc_assert(check(p, "http://0x7f.1/").rules & (1u << URISAN_REASON_HOST_DENIED));
    qc_assert_uint_eq(check(p, "http://[0:0::1]/").rules, 1u << URISAN_REASON_HOST_DENIED);
    free(p);
}
END_TEST

START_TEST(allow_host_denies_every_other_host)
{
    urisan_policy *p = policy_of("allow-host example.com .example.org\n");
    qc_assert_int_eq(check(p, "http://example.com/").verdict, URISAN_ALLOW);
    qc_assert_int_eq(check(p, "http://www.example.org/").verdict, URISAN_ALLOW);
    qc_assert_int_eq(check(p, "http://example.org/").verdict, URISAN_ALLOW);
    qc_assert_uint_eq(check(p, "http://www.example.com/").rules,
                      1u << URISAN_REASON_HOST_NOT_ALLOWED);
    qc_assert_uint_eq(check(p, "http://example.com.evil/").rules,
                      1u << URISAN_REASON_HOST_NOT_ALLOWED);
    qc_assert_uint_eq(check(p, "mailto:a@b").rules, 1u << URISAN_REASON_HOST_NOT_ALLOWED);
    free(p);
}
END_TEST

START_TEST(limit_lines_change_the_bounds_of_check)
{
    urisan_policy *p = policy_of("limit uri 20\nlimit host 5\nlimit segments 2\n"
                                 "limit scheme 4\nlimit userinfo 3\nlimit label 2\n");
    const urisan_limits *l = urisan_policy_limits(p);
    qc_assert_uint_eq(l->max_uri, 20);
    qc_assert_uint_eq(l->max_host, 5);
    qc_assert_uint_eq(l->max_segments, 2);
    qc_assert_uint_eq(l->max_scheme, 4);
    qc_assert_uint_eq(l->max_userinfo, 3);
    qc_assert_uint_eq(l->max_label, 2);
    urisan_decision d = check(p, "http://h/aaaaaaaaaaaaaaaaaaaaaaaa");
    qc_assert_uint_eq(d.deny_flags, F(TOO_LONG) | F(INVALID));
    qc_assert_uint_eq(check(p, "http://abc/").deny_flags, F(TOO_LONG) | F(INVALID));
    qc_assert_int_eq(check(p, "http://ab/").verdict, URISAN_ALLOW);
    free(p);
    /* a limit above the hard ceiling is capped to it */
    p = policy_of("limit uri 99999999999\n");
    qc_assert_uint_eq(urisan_policy_limits(p)->max_uri, URISAN_HARD_CEILING);
    free(p);
    /* the default limits are the documented ones (include/urisan.h) */
    urisan_limits def;
    urisan_limits_default(&def);
    ck_assert_mem_eq(urisan_policy_limits(NULL), &def, sizeof def);
}
END_TEST

START_TEST(dangerous_scheme_line_adds_to_the_list)
{
    urisan_policy *p = policy_of("dangerous-scheme ms-msdt Search-MS\n");
    qc_assert(check(p, "ms-msdt:/id x").deny_flags & F(DANGEROUS_SCHEME));
    qc_assert(check(p, "search-ms:query=x").deny_flags & F(DANGEROUS_SCHEME));
    qc_assert(check(p, "javascript:x").deny_flags & F(DANGEROUS_SCHEME));
    qc_assert(!(check(NULL, "ms-msdt:x").deny_flags & F(DANGEROUS_SCHEME)));
    free(p);
}
END_TEST

/* The one scheme table (src/schemes.h) holds what doc/policy.md and the
   former lists said, row for row; the inline lookup's shortcut rows come first;
   lookups fold case. */
/* handler_scheme is the scheme row's mark: a listed scheme that is in
   handlers.c's table carries SCHEME_HANDLER in its row (telnet), an
   unlisted one gets it from urisan_scheme_unlisted, in any case; no other
   row has it, and no handler name is longer than HANDLER_NAME_MAX. */
START_TEST(handler_schemes_are_marked_in_the_scheme_rows)
{
    for (size_t i = 0; i < URISAN_SCHEME_ROWS; i++) {
        const scheme_row *r = &urisan_scheme_table[i];
        qc_assert_msg(((r->bits & SCHEME_HANDLER) != 0) == urisan_handler_find(r->name, r->len),
                      "%s", r->name);
    }
    const char *h;
    size_t n = 0;
    for (size_t i = 0; (h = urisan_handler_scheme(i, NULL, NULL)) != NULL; i++, n++) {
        size_t len = strlen(h);
        ck_assert_uint_le(len, HANDLER_NAME_MAX);
        char up[HANDLER_NAME_MAX + 1];
        for (size_t k = 0; k < len; k++)
            up[k] = (char)(h[k] >= 'a' && h[k] <= 'z' ? h[k] - 32 : h[k]);
        qc_assert_msg(urisan_scheme_row_of(h, len, 0).bits & SCHEME_HANDLER, "%s", h);
        qc_assert_msg(urisan_scheme_row_of(up, len, 0x20).bits & SCHEME_HANDLER, "%s", h);
        qc_assert_int_eq(urisan_scheme_row_of(h, len, 0).kind, SCH_OTHER);
    }
    qc_assert_uint_eq(n, 32);
    /* look-alikes are no handler */
    qc_assert(!(urisan_scheme_row_of("ms-wordx", 8, 0x20).bits & SCHEME_HANDLER));
    qc_assert(!(urisan_scheme_row_of("searchms", 8, 0x20).bits & SCHEME_HANDLER));
}
END_TEST

START_TEST(scheme_table_rows_match_the_spec_lists)
{
    static const char *const dangerous[] = {"javascript", "vbscript", "data", "file", "gopher",
                                            "dict", "ldap", "tftp", "jar", "netdoc"};
    static const char *const special[] = {"http", "https", "ws", "wss", "ftp"};
    static const char *const in_text[] = {"mailto", "news", "urn", "tel", "sip", "sips",
                                          "data", "javascript", "vbscript", "file", "xmpp",
                                          "magnet", "sms", "callto", "cid", "mid"};
    static const char *const slash[] = {"http", "https", "ws", "wss"};
    qc_assert_str_eq(urisan_scheme_table[0].name, "http");
    qc_assert_str_eq(urisan_scheme_table[1].name, "https");
    qc_assert_str_eq(urisan_scheme_table[2].name, "file");
    size_t nd = 0, ns = 0, nt = 0, nl = 0;
    for (size_t i = 0; i < URISAN_SCHEME_ROWS; i++) {
        const scheme_row *r = &urisan_scheme_table[i];
        qc_assert_uint_eq(r->len, strlen(r->name));
        ck_assert_uint_le(r->len, SCHEME_MAX_LEN);
        /* one table: every lookup answers with its row, whatever the case;
           the analysis' copy (urisan_scheme_row_of) holds the same values */
        ck_assert_ptr_eq(urisan_scheme_find(r->name, r->len), r);
        char up[16];
        for (size_t k = 0; k < r->len; k++)
            up[k] = (char)(r->name[k] & ~0x20);
        ck_assert_ptr_eq(urisan_scheme_find(up, r->len), r);
        scheme_row v = urisan_scheme_row_of(up, r->len, 0x20);
        qc_assert(strcmp(v.name, r->name) == 0 && v.len == r->len && v.kind == r->kind &&
                  v.bits == r->bits && v.port == r->port);
        v = urisan_scheme_row_of(r->name, r->len, 0);
        qc_assert(v.kind == r->kind && v.bits == r->bits && v.port == r->port);
        nd += (r->bits & SCHEME_DANGEROUS) != 0;
        ns += r->kind == SCH_SPECIAL;
        nt += (r->bits & SCHEME_IN_TEXT) != 0;
        nl += (r->bits & SCHEME_SLASH_PATH) != 0;
    }
    qc_assert_uint_eq(nd, sizeof dangerous / sizeof dangerous[0]);
    qc_assert_uint_eq(ns, sizeof special / sizeof special[0]);
    qc_assert_uint_eq(nt, sizeof in_text / sizeof in_text[0]);
    qc_assert_uint_eq(nl, sizeof slash / sizeof slash[0]);
    for (size_t i = 0; i < sizeof dangerous / sizeof dangerous[0]; i++)
        qc_assert(urisan_scheme_dangerous(NULL, dangerous[i], strlen(dangerous[i])));
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        qc_assert_int_eq(urisan_scheme_kind(special[i], strlen(special[i])), SCH_SPECIAL);
    for (size_t i = 0; i < sizeof in_text / sizeof in_text[0]; i++)
        qc_assert(urisan_scheme_find(in_text[i], strlen(in_text[i]))->bits & SCHEME_IN_TEXT);
    for (size_t i = 0; i < sizeof slash / sizeof slash[0]; i++)
        qc_assert(urisan_scheme_find(slash[i], strlen(slash[i]))->bits & SCHEME_SLASH_PATH);
    qc_assert_int_eq(urisan_scheme_kind("FiLe", 4), SCH_FILE);
    qc_assert_int_eq(urisan_scheme_kind("httpx", 5), SCH_OTHER);
    ck_assert_ptr_null(urisan_scheme_find("htt", 3));
    scheme_row none = urisan_scheme_row_of("httpx", 5, 0x20);
    qc_assert(none.len == 0 && none.kind == SCH_OTHER && none.bits == 0 && none.port == -1);
    qc_assert_int_eq(urisan_default_port("HTTPS", 5), 443);
    qc_assert_int_eq(urisan_default_port("coaps", 5), 5684);
    qc_assert_int_eq(urisan_default_port("file", 4), -1);
}
END_TEST

/* The analysis skips the list for http, https, ws, wss and ftp unless a
   policy has entries of its own: none of them is on the built-in list,
   and a policy that names them is obeyed. */
START_TEST(special_schemes_are_dangerous_only_by_policy)
{
    static const char *const special[] = {"http", "https", "ws", "wss", "ftp"};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        qc_assert(!urisan_scheme_dangerous(NULL, special[i], strlen(special[i])));
    urisan_policy *p = policy_of("dangerous-scheme http https ws wss ftp\n");
    static const char *const uris[] = {"HTTP://h/", "https://h/a", "ws://h/", "WsS://h/",
                                       "ftp://h/f"};
    for (size_t i = 0; i < sizeof uris / sizeof uris[0]; i++) {
        qc_assert_msg(check(p, uris[i]).deny_flags & F(DANGEROUS_SCHEME), "%s", uris[i]);
        qc_assert_msg(!(check(NULL, uris[i]).deny_flags & F(DANGEROUS_SCHEME)), "%s", uris[i]);
    }
    free(p);
}
END_TEST

START_TEST(default_port_line_extends_the_table)
{
    urisan_policy *p = policy_of("default-port redis 6379\ndefault-port http 8080\n");
    qc_assert_int_eq(check(p, "redis://h:6379/").verdict, URISAN_ALLOW);
    qc_assert(check(p, "redis://h:6380/").flag_flags & F(NONDEFAULT_PORT));
    qc_assert_int_eq(check(p, "http://h:8080/").verdict, URISAN_ALLOW);
    qc_assert(check(p, "http://h:80/").flag_flags & F(RESERVED_PORT));
    qc_assert(check(NULL, "redis://h:6379/").flag_flags & F(NONDEFAULT_PORT));
    free(p);
}
END_TEST

START_TEST(comments_blank_lines_crlf_and_spacing)
{
    urisan_policy *p = policy_of("# a comment\r\n\r\n   \t\n"
                                 "  deny   userinfo\t# trailing comment\r\n"
                                 "allow-scheme http#https\n"
                                 "flag password");
    qc_assert_int_eq(check(p, "http://u@h/").verdict, URISAN_DENY);
    qc_assert_uint_eq(check(p, "https://h/").rules, 1u << URISAN_REASON_SCHEME_NOT_ALLOWED);
    qc_assert(check(p, "http://:@h/").flag_flags & F(PASSWORD));
    free(p);
    p = policy_of("");
    free(p);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Errors: line number and message, never a crash                           */
/* ---------------------------------------------------------------------- */

typedef struct {
    const char *text;
    size_t line;
    const char *msg_part;
} ecase;

static const ecase errors[] = {
    {"frobnicate x\n", 1, "unknown directive"},
    {"# ok\ndeny\n", 2, "missing argument"},
    {"deny invalid\n\ndeny no_such_flag\n", 3, "unknown flag"},
    {"deny Invalid\n", 1, "unknown flag"},
    {"flag invalid\nallow x\n", 2, "unknown flag"},
    {"allow-scheme 1http\n", 1, "invalid scheme"},
    {"allow-scheme ht_tp\n", 1, "invalid scheme"},
    {"allow-scheme aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", 1,
     "too long"},
    {"allow-port 80\nallow-port 65536\n", 2, "invalid port"},
    {"allow-port 8x\n", 1, "invalid port"},
    {"allow-port 90-80\n", 1, "range"},
    {"allow-port -80\n", 1, "invalid port"},
    {"deny-host .\n", 1, "empty"},
    {"deny-host a/b\n", 1, "no path"},
    {"allow-host ..a\n", 1, "empty label"},
    {"allow-host\n", 1, "missing argument"},
    {"limit uri\n", 1, "missing argument"},
    {"limit uri 10 20\n", 1, "too many arguments"},
    {"limit path 10\n", 1, "unknown limit"},
    {"limit uri ten\n", 1, "invalid number"},
    {"limit uri 0\n", 1, "at least 1"},
    {"limit uri -5\n", 1, "invalid number"},
    {"dangerous-scheme\n", 1, "missing argument"},
    {"dangerous-scheme java script:\n", 1, "without ':'"},
    {"default-port foo\n", 1, "missing argument"},
    {"default-port foo 70000\n", 1, "invalid port"},
    {"default-port foo 1 2\n", 1, "too many arguments"},
    {"default-port 9p 1\n", 1, "invalid scheme"},
    {"deny invalid\r\ndeny \x01\r\n", 2, "control character"},
    {"allow-host \xc3\xa9xample.com\n", 1, "non-ASCII"},
    {"\n\n\n\n\nDENY invalid\n", 6, "unknown directive"},
    {"protect-host\n", 1, "missing argument"},
    {"protect-host example.com 192.0.2.1\n", 1, "not an address"},
    {"deny idn\nprotect-host [::1]\n", 2, "not an address"},
    {"protect-host 1.2.3.4.\n", 1, "not an address"},
    {"protect-host *.example.com\n", 1, "not a pattern"},
    {"protect-host .example.com\n", 1, "not a pattern"},
    {"protect-host localhost\n", 1, "public suffix"},
    {"protect-host a..b\n", 1, "empty label"},
    {"protect-host exa/mple.com\n", 1, "no path"},
};

START_TEST(policy_errors_report_line_and_message)
{
    const ecase *c = &errors[_i];
    urisan_policy *p = new_policy();
    size_t line = 0;
    const char *msg = NULL;
    size_t len = strlen(c->text);
    guard_buf g = {0};
    const char *s = guard_place(&g, c->text, len);
    urisan_status st = urisan_policy_parse(p, s, len, &line, &msg);
    guard_free(&g);
    qc_assert_msg(st == URISAN_E_BAD_POLICY, "%s: accepted", c->text);
    qc_assert_msg(line == c->line, "%s: line %zu, want %zu", c->text, line, c->line);
    qc_assert(msg != NULL);
    qc_assert_msg(strstr(msg, c->msg_part) != NULL, "%s: message '%s' lacks '%s'", c->text, msg,
                  c->msg_part);
    /* the policy is still safe to use */
    check(p, "http://u:p@h:25/%0d");
    free(p);
}
END_TEST

/* A build without the host layer refuses a rule on its flags, at the
   word, rather than loading a rule nothing can make hold. */
START_TEST(a_refused_flag_is_an_error_at_its_line_column_and_word)
{
    static const struct { const char *text; size_t line, column; const char *word; } cases[] = {
        { "deny homograph\n", 1, 6, "homograph" },
        { "# c\nflag ip_literal invisible_char\n", 2, 17, "invisible_char" },
        { "deny invalid\ndeny nested:host_uts46\n", 2, 6, "nested:host_uts46" },
    };
    urisan_policy *p = malloc(urisan_policy_size());
    qc_assert(p != NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *t = cases[i].text;
        urisan_policy_error e;
        urisan_policy_init(p);
        qc_assert_int_eq(urisan_policy_parse_refuse(p, t, strlen(t), URISAN_HOST_FLAGS, &e),
                         URISAN_E_BAD_POLICY);
        qc_assert_uint_eq(e.line, cases[i].line);
        qc_assert_uint_eq(e.column, cases[i].column);
        qc_assert_uint_eq(e.word_len, strlen(cases[i].word));
        qc_assert(memcmp(t + e.word_off, cases[i].word, e.word_len) == 0);
        ck_assert_ptr_nonnull(strstr(e.msg, "host layer"));
        /* the same text loads where nothing is refused */
        urisan_policy_init(p);
        qc_assert_int_eq(urisan_policy_parse_ex(p, t, strlen(t), &e), URISAN_OK);
    }
    /* allowing such a flag, "all", a built-in profile, another flag: they load */
    static const char *const fine[] = { "allow homograph\n", "deny all\n",
                                        "profile mail\n", "flag idn\n" };
    for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++) {
        urisan_policy_init(p);
        qc_assert_int_eq(urisan_policy_parse_refuse(p, fine[i], strlen(fine[i]),
                                                    URISAN_HOST_FLAGS, NULL), URISAN_OK);
    }
    free(p);
}
END_TEST

/* protect-host: the names are kept (lower case, one root dot dropped),
   written back by urisan_policy_format, named by an id that changes with
   the list; a build without the host layer refuses the line at its word;
   the mail profile protects the brands of data/impersonated-brands.txt. */
START_TEST(protect_host_lists_names_and_names_the_list)
{
    urisan_policy *p = new_policy();
    size_t n = 0;
    qc_assert_uint_eq(urisan_policy_protected_id(p), 0);
    qc_assert_uint_eq(urisan_policy_protected_id(NULL), 0);
    ck_assert_ptr_null(urisan_policy_protected(p, 0, &n));
    const char *t = "protect-host Example.COM. www.bank.example\n";
    qc_assert_int_eq(urisan_policy_parse(p, t, strlen(t), NULL, NULL), URISAN_OK);
    const char *a = urisan_policy_protected(p, 0, &n);
    qc_assert(a != NULL && n == 11 && memcmp(a, "example.com", 11) == 0);
    a = urisan_policy_protected(p, 1, &n);
    qc_assert(a != NULL && n == 16 && memcmp(a, "www.bank.example", 16) == 0);
    ck_assert_ptr_null(urisan_policy_protected(p, 2, &n));
    uint64_t id = urisan_policy_protected_id(p);
    ck_assert_uint_ne(id, 0);
    char buf[4096];
    size_t need = 0;
    qc_assert_int_eq(urisan_policy_format(p, buf, sizeof buf, &need), URISAN_OK);
    ck_assert_ptr_nonnull(strstr(buf, "protect-host example.com\nprotect-host www.bank.example\n"));
    /* the same names from another text: the same id; one more: another */
    urisan_policy *q = new_policy();
    const char *t2 = "protect-host example.com\nprotect-host www.bank.example\n";
    qc_assert_int_eq(urisan_policy_parse(q, t2, strlen(t2), NULL, NULL), URISAN_OK);
    qc_assert_uint_eq(urisan_policy_protected_id(q), id);
    qc_assert_int_eq(urisan_policy_parse(q, "protect-host x.org\n", 19, NULL, NULL), URISAN_OK);
    ck_assert_uint_ne(urisan_policy_protected_id(q), id);
    /* no host layer: refused at the directive */
    urisan_policy_error e;
    urisan_policy_init(q);
    qc_assert_int_eq(urisan_policy_parse_refuse(q, t, strlen(t), URISAN_HOST_FLAGS, &e),
                     URISAN_E_BAD_POLICY);
    qc_assert(e.line == 1 && e.column == 1 && strstr(e.msg, "host layer") != NULL);
    /* the mail profile: the brand list */
    qc_assert_int_eq(urisan_policy_profile(q, "mail", 4), URISAN_OK);
    size_t k = 0;
    bool apple = false;
    for (; (a = urisan_policy_protected(q, k, &n)) != NULL; k++)
        apple = apple || (n == 9 && memcmp(a, "apple.com", 9) == 0);
    qc_assert(k >= 30 && apple);
    /* 257 names: an error at the 257th, not an overflow */
    char *big = malloc(257 * 32);
    size_t o = 0;
    for (int i = 0; i < 257; i++)
        o += (size_t)sprintf(big + o, "protect-host n%d.example\n", i);
    urisan_policy_init(q);
    qc_assert_int_eq(urisan_policy_parse_ex(q, big, o, &e), URISAN_E_BAD_POLICY);
    qc_assert(e.line == 257 && strstr(e.msg, "too many protect-host") != NULL);
    free(big);
    free(p);
    free(q);
}
END_TEST

START_TEST(nul_byte_in_a_policy_is_an_error)
{
    urisan_policy *p = new_policy();
    size_t line = 0;
    const char *msg = NULL;
    qc_assert_int_eq(urisan_policy_parse(p, "deny invalid\nde\0ny x\n", 21, &line, &msg),
                     URISAN_E_BAD_POLICY);
    qc_assert_uint_eq(line, 2);
    free(p);
}
END_TEST

START_TEST(too_many_entries_is_an_error_not_an_overflow)
{
    urisan_policy *p = new_policy();
    size_t cap = 200000, o = 0;
    char *text = malloc(cap);
    /* 2000 allow-port entries, 10 per line */
    for (int i = 0; i < 200; i++) {
        o += (size_t)snprintf(text + o, cap - o, "allow-port");
        for (int k = 0; k < 10; k++)
            o += (size_t)snprintf(text + o, cap - o, " %d", i * 10 + k);
        text[o++] = '\n';
    }
    size_t line = 0;
    const char *msg = NULL;
    qc_assert_int_eq(urisan_policy_parse(p, text, o, &line, &msg), URISAN_E_BAD_POLICY);
    ck_assert_ptr_nonnull(strstr(msg, "too many allow-port"));
    ck_assert_uint_gt(line, 1);
    free(p);

    /* hosts until something is full */
    p = new_policy();
    o = 0;
    for (int i = 0; i < 3000 && o + 100 < cap; i++)
        o += (size_t)snprintf(text + o, cap - o, "deny-host host%d.example.com\n", i);
    qc_assert_int_eq(urisan_policy_parse(p, text, o, &line, &msg), URISAN_E_BAD_POLICY);
    ck_assert_ptr_nonnull(strstr(msg, "too many"));
    free(p);

    /* a line with very many tokens */
    p = new_policy();
    o = (size_t)snprintf(text, cap, "deny");
    for (int i = 0; i < 1000; i++)
        o += (size_t)snprintf(text + o, cap - o, " invalid");
    qc_assert_int_eq(urisan_policy_parse(p, text, o, &line, &msg), URISAN_E_BAD_POLICY);
    ck_assert_ptr_nonnull(strstr(msg, "too many"));
    free(p);
    free(text);
}
END_TEST

START_TEST(uninitialised_policy_and_null_arguments)
{
    urisan_policy *p = malloc(urisan_policy_size());
    memset(p, 0xA5, urisan_policy_size());
    size_t line = 7;
    const char *msg = NULL;
    qc_assert_int_eq(urisan_policy_parse(p, "deny invalid", 12, &line, &msg),
                     URISAN_E_BAD_ARGUMENT);
    qc_assert(msg != NULL);
    /* an uninitialised policy is treated as the default by check */
    qc_assert_int_eq(check(p, "javascript:x").verdict, URISAN_DENY);
    qc_assert_int_eq(urisan_policy_parse(NULL, "", 0, NULL, NULL), URISAN_E_BAD_ARGUMENT);
    urisan_policy_init(p);
    qc_assert_int_eq(urisan_policy_parse(p, NULL, 1, NULL, NULL), URISAN_E_BAD_ARGUMENT);
    qc_assert_int_eq(urisan_policy_parse(p, NULL, 0, NULL, NULL), URISAN_OK);
    free(p);
}
END_TEST

/* Random policy text never crashes the parser (guarded buffer). */
START_TEST(random_policy_text_never_crashes)
{
    static const char *const words[] = {
        "deny", "flag", "allow", "allow-scheme", "allow-port", "deny-host", "allow-host",
        "limit", "dangerous-scheme", "default-port", "uri", "host", "label", "all", "invalid",
        "http", "80", "1-2", "65535", "99999999999999999999", ".x", "[::1]", "#", "\n", "\r\n",
        " ", "\t", "\x01", "\xff", "-", "..", "0"};
    unsigned seed = 7;
    char buf[512];
    urisan_policy *p = new_policy();
    for (int it = 0; it < 5000; it++) {
        size_t o = 0;
        while (o < 400) {
            seed = seed * 1103515245u + 12345u;
            const char *w = words[(seed >> 16) % (sizeof words / sizeof words[0])];
            size_t n = strlen(w);
            memcpy(buf + o, w, n);
            o += n;
            if ((seed >> 8) % 3 == 0)
                buf[o++] = ' ';
        }
        urisan_policy_init(p);
        guard_buf g = {0};
        const char *s = guard_place(&g, buf, o);
        size_t line;
        const char *msg;
        urisan_status st = urisan_policy_parse(p, s, o, &line, &msg);
        qc_assert(st == URISAN_OK || (st == URISAN_E_BAD_POLICY && line >= 1 && msg != NULL));
        guard_free(&g);
        check(p, "http://u:p@0x7f.1:25/%0d");
    }
    free(p);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* The example policy and the documentation                                 */
/* ---------------------------------------------------------------------- */

static char *slurp(const char *rel, size_t *len)
{
    const char *root = getenv("URISAN_SRCDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root ? root : "..", rel);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    *len = fread(b, 1, (size_t)n, fp);
    b[*len] = '\0';
    fclose(fp);
    return b;
}

START_TEST(example_policy_file_parses)
{
    size_t len = 0;
    char *text = slurp("examples/policy.txt", &len);
    qc_assert_msg(text != NULL, "examples/policy.txt missing");
    urisan_policy *p = new_policy();
    size_t line = 0;
    const char *msg = NULL;
    qc_assert_msg(urisan_policy_parse(p, text, len, &line, &msg) == URISAN_OK,
                  "examples/policy.txt:%zu: %s", line, msg);
    qc_assert_int_eq(check(p, "https://www.example.com/").verdict, URISAN_ALLOW);
    qc_assert_int_eq(check(p, "javascript:alert(1)").verdict, URISAN_DENY);
    free(p);
    free(text);
}
END_TEST

/* doc/policy.md documents every flag of urisan_flags.def and every rule
   reason, each in backquotes. */
START_TEST(policy_doc_lists_every_flag_and_reason)
{
    size_t len = 0;
    char *doc = slurp("doc/policy.md", &len);
    qc_assert_msg(doc != NULL, "doc/policy.md missing");
    char want[80];
    for (int b = 0; b < URISAN_FLAG_COUNT_; b++) {
        if (urisan_flag_name((urisan_flag)b) == NULL)
            continue; /* a hole names no flag */
        snprintf(want, sizeof want, "`%s`", urisan_flag_name((urisan_flag)b));
        qc_assert_msg(strstr(doc, want) != NULL, "doc/policy.md lacks %s", want);
    }
    for (int r = 0; r < URISAN_REASON_COUNT_; r++) {
        snprintf(want, sizeof want, "`%s`", urisan_rule_reason_name((urisan_rule_reason)r));
        qc_assert_msg(strstr(doc, want) != NULL, "doc/policy.md lacks %s", want);
    }
    free(doc);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("policy");
    TCase *t = tcase_create("default");
    tcase_add_loop_test(t, default_policy_verdicts, 0, (int)(sizeof defaults / sizeof defaults[0]));
    tcase_add_test(t, default_policy_denies_exactly_the_spec_list);
    tcase_add_test(t, decision_splits_deny_and_flag_reasons);
    tcase_add_test(t, too_long_is_denied_with_exactly_two_reasons);
    tcase_add_test(t, names_of_verdicts_and_rule_reasons);
    suite_add_tcase(s, t);

    t = tcase_create("directives");
    tcase_add_test(t, deny_flag_allow_move_flags_between_sets);
    tcase_add_test(t, allow_all_then_deny_one);
    tcase_add_test(t, allow_scheme_denies_other_schemes);
    tcase_add_test(t, allow_port_judges_explicit_or_default_port);
    tcase_add_test(t, deny_host_exact_and_suffix);
    tcase_add_test(t, allow_host_denies_every_other_host);
    tcase_add_test(t, limit_lines_change_the_bounds_of_check);
    tcase_add_test(t, dangerous_scheme_line_adds_to_the_list);
    tcase_add_test(t, special_schemes_are_dangerous_only_by_policy);
    tcase_add_test(t, scheme_table_rows_match_the_spec_lists);
    tcase_add_test(t, handler_schemes_are_marked_in_the_scheme_rows);
    tcase_add_test(t, default_port_line_extends_the_table);
    tcase_add_test(t, comments_blank_lines_crlf_and_spacing);
    suite_add_tcase(s, t);

    t = tcase_create("errors");
    tcase_add_loop_test(t, policy_errors_report_line_and_message, 0,
                        (int)(sizeof errors / sizeof errors[0]));
    tcase_add_test(t, nul_byte_in_a_policy_is_an_error);
    tcase_add_test(t, protect_host_lists_names_and_names_the_list);
    tcase_add_test(t, a_refused_flag_is_an_error_at_its_line_column_and_word);
    tcase_add_test(t, too_many_entries_is_an_error_not_an_overflow);
    tcase_add_test(t, uninitialised_policy_and_null_arguments);
    tcase_add_test(t, random_policy_text_never_crashes);
    suite_add_tcase(s, t);

    t = tcase_create("docs");
    tcase_add_test(t, example_policy_file_parses);
    tcase_add_test(t, policy_doc_lists_every_flag_and_reason);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
