/*
 * test_policy_random.c - 5,000 generated policy texts: seeded
 * and reproducible (URISAN_POLICY_SEED overrides the seed,
 * URISAN_POLICY_TEXTS the count), mixing valid directives of the whole
 * grammar, near-miss typos, random bytes, long lines and Unicode. Each
 * text is placed flush against a PROT_NONE page and parsed (the ASan
 * build runs this too). Every text either
 *  - parses, and then every host, address, scheme, port, default-port and
 *    dangerous-scheme entry has a witness URI it judges (policy_witness.h:
 *    no rule that silently matches nothing), and the policy written back
 *    (urisan_policy_format) parses again to the same policy and the same
 *    text; or
 *  - fails with a line inside the text, a column, a message and a
 *    non-empty word that lies on that line at that column; the lines
 *    before it parse (it is the first mistake).
 * Both outcomes must be common, so the generator cannot drift into
 * testing only one.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/policy_witness.h"
#include "guard.h"
#include "policy_util.h"
#include "risk.h"
#include "urisan.h"

#define TEXT_MAX 16384

typedef struct {
    uint64_t s;
} rng;

static uint64_t next(rng *r)
{
    /* xorshift64* */
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 2685821657736338717ull;
}

static unsigned pick(rng *r, unsigned n)
{
    return (unsigned)(next(r) % n);
}

typedef struct {
    char b[TEXT_MAX];
    size_t n;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (n > TEXT_MAX - t->n)
        n = TEXT_MAX - t->n;
    memcpy(t->b + t->n, s, n);
    t->n += n;
}

static void puts_(text *t, const char *s)
{
    put(t, s, strlen(s));
}

/* v in decimal (base 10) or hexadecimal (16) */
static void putn(text *t, unsigned v, unsigned base)
{
    char tmp[16];
    size_t k = sizeof tmp;
    do {
        tmp[--k] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v != 0);
    put(t, tmp + k, sizeof tmp - k);
}

static const char *const schemes[] = {"http", "https", "ftp", "ws", "wss", "gopher", "x-my+app.1",
                                      "ms-msdt", "HTTP", "a"};
static const char *const hosts[] = {
    "example.com", ".example.com", "*.example.com", "EXAMPLE.com.", "a", "_srv.x", "xn--bcher-kva.de",
    "127.0.0.1", "[::1]", "[fd00::1]", "::ffff:10.0.0.1", "localhost", "metadata.google.internal",
    ".nip.io", "*.a.b.c", "1.2.3", "0x7f.1", "a-b.c_d.e"};
static const char *const limits[] = {"uri", "scheme", "userinfo", "host", "label", "segments"};
static const char *const profiles[] = {"default", "proxy", "ssrf", "mail"};

/* A range: v4 or v6, a random prefix, host bits cleared (valid) */
static void range(rng *r, text *t, bool valid)
{
    unsigned plen;
    uint8_t a[16];
    for (int i = 0; i < 16; i++)
        a[i] = (uint8_t)next(r);
    bool v6 = pick(r, 2);
    unsigned max = v6 ? 128 : 32;
    plen = pick(r, 4) == 0 ? max : pick(r, max + 1);
    if (valid)
        for (unsigned i = 0; i < (v6 ? 16u : 4u); i++) {
            unsigned net = plen >= 8 * (i + 1) ? 8 : plen > 8 * i ? plen - 8 * i : 0;
            a[i] &= (uint8_t)(0xFFu << (8 - net));
        }
    if (!v6) {
        for (int i = 0; i < 4; i++) {
            if (i)
                puts_(t, ".");
            putn(t, a[i], 10);
        }
    } else {
        bool br = pick(r, 3) == 0;
        if (br)
            puts_(t, "[");
        for (int i = 0; i < 8; i++)
        {
            if (i)
                puts_(t, ":");
            putn(t, (unsigned)(a[2 * i] << 8 | a[2 * i + 1]), 16);
        }
        if (br)
            puts_(t, "]");
    }
    if (pick(r, 5) != 0 || plen != max)
    {
        puts_(t, "/");
        putn(t, valid ? plen : plen + pick(r, 3), 10);
    }
}

/* "DIRECTIVE w w ..." with n words picked from list[0..cnt) */
static void words(rng *r, text *t, const char *directive, const char *const *list, size_t cnt,
                  unsigned n)
{
    puts_(t, directive);
    for (unsigned i = 0; i < n; i++) {
        puts_(t, " ");
        puts_(t, list[pick(r, (unsigned)cnt)]);
    }
}

/* One directive line of the grammar, valid as written. */
static void valid_line(rng *r, text *t)
{
    unsigned k = pick(r, 14), n = 1 + pick(r, 4);
    switch (k) {
    case 0: case 1: case 2: {
        static const char *const how[] = {"deny", "flag", "allow"};
        puts_(t, how[k]);
        for (unsigned i = 0; i < n; i++) {
            const char *name = NULL;
            while (name == NULL)
                name = pick(r, 20) == 0 ? "all" : urisan_flag_name((urisan_flag)pick(r, 64));
            puts_(t, " ");
            puts_(t, name);
        }
        break;
    }
    case 3: case 10:
        words(r, t, k == 3 ? "allow-scheme" : "dangerous-scheme", schemes,
              sizeof schemes / sizeof schemes[0], n);
        break;
    case 4:
        puts_(t, "allow-port");
        for (unsigned i = 0; i < n; i++) {
            unsigned lo = pick(r, 65536), hi = lo + pick(r, 100);
            puts_(t, " ");
            putn(t, lo, 10);
            if (hi <= 65535 && pick(r, 2)) {
                puts_(t, "-");
                putn(t, hi, 10);
            }
        }
        break;
    case 5: case 6:
        words(r, t, k == 5 ? "deny-host" : "allow-host", hosts, sizeof hosts / sizeof hosts[0], n);
        break;
    case 7: case 8:
        puts_(t, k == 7 ? "deny-ip" : "allow-ip");
        for (unsigned i = 0; i < n; i++) {
            puts_(t, " ");
            range(r, t, true);
        }
        break;
    case 9:
        puts_(t, "limit ");
        puts_(t, limits[pick(r, 6)]);
        puts_(t, " ");
        putn(t, 1 + pick(r, 2000000), 10);
        break;
    case 11:
        puts_(t, "default-port ");
        puts_(t, schemes[pick(r, sizeof schemes / sizeof schemes[0])]);
        puts_(t, " ");
        putn(t, pick(r, 65536), 10);
        break;
    case 12:
        puts_(t, pick(r, 2) ? "require-absolute" : "require-authority");
        break;
    default:
        puts_(t, "# a comment: deny-ip 10.0.0.0/8 \xc3\xbc");
        break;
    }
}

/* Mistakes a person makes: each of these must be an error. */
static const char *const near_misses[] = {
    "deny pasword", "flag ip_loopbak", "alow ip_private", "deny-hosts evil.com",
    "deny-host evil.com:8080", "deny-host evil.com/path", "deny-host http://evil.com",
    "deny-host a..b", "deny-host *evil.com", "deny-host a.*.com", "deny-host u@h",
    "deny-host b\xc3\xbc.de", "deny-host \xef\xbc\x91\xef\xbc\x92\xef\xbc\x97.0.0.1",
    "deny-host 10.0.0.0/8", "deny-host [::g]", "allow-scheme http:", "allow-scheme 1http",
    "allow-port 80 8o", "allow-port 90-80", "allow-port 65536", "limit url 5", "limit uri 0",
    "limit uri -1", "require-authority yes", "profile ssrf", "profile sssrf", "deny-ip 10.0.0.0/33",
    "deny-ip 10.0.0.1/8", "deny-ip fe80::1%eth0", "deny-ip 0x7f.1", "deny-ip evil.com",
    "deny-ip [10.0.0.0]/8", "deny-ip fd00::/129", "deny-ip 10.0.0.0/08", "deny-ip",
    "allow-ip 1.2.3.4/", "default-port http", "default-port http 99999", "dangerous-scheme java script:",
    "deny\xe2\x80\x8b invalid", "deny-host ex\xe2\x80\x8b\x61mple.com", "deny-ip \xd9\xa1.0.0.0/8",
};

static void mutate(rng *r, text *t, size_t from)
{
    if (t->n <= from)
        return;
    size_t at = from + pick(r, (unsigned)(t->n - from));
    switch (pick(r, 4)) {
    case 0: /* delete a byte */
        memmove(t->b + at, t->b + at + 1, t->n - at - 1);
        t->n--;
        break;
    case 1: /* replace a byte */
        t->b[at] = (char)(pick(r, 2) ? 0x21 + pick(r, 94) : pick(r, 256));
        break;
    case 2: /* swap two */
        if (at + 1 < t->n) {
            char c = t->b[at];
            t->b[at] = t->b[at + 1];
            t->b[at + 1] = c;
        }
        break;
    default: /* insert one */
        if (t->n < TEXT_MAX) {
            memmove(t->b + at + 1, t->b + at, t->n - at);
            t->b[at] = (char)(0x21 + pick(r, 94));
            t->n++;
        }
        break;
    }
}

static const char *const unicode[] = {
    "\xc3\xbc", "\xd0\xb0", "\xe2\x80\x8b", "\xef\xbc\x91", "\xf0\x9f\x98\x80", "\xe2\x80\xae",
    "\xef\xbb\xbf", "\xc0\xae", "\xff", "\xe3\x80\x82"};

static void gen(rng *r, text *t)
{
    t->n = 0;
    unsigned lines = 1 + pick(r, 12);
    if (pick(r, 5) == 0) {
        puts_(t, "profile ");
        puts_(t, profiles[pick(r, 4)]);
        puts_(t, "\n");
    }
    for (unsigned l = 0; l < lines; l++) {
        size_t start = t->n;
        unsigned kind = pick(r, 100);
        if (kind < 78) {
            valid_line(r, t);
        } else if (kind < 84) {
            puts_(t, near_misses[pick(r, sizeof near_misses / sizeof near_misses[0])]);
        } else if (kind < 89) {
            valid_line(r, t);
            mutate(r, t, start);
        } else if (kind < 92) {
            unsigned n = 1 + pick(r, 80);
            for (unsigned i = 0; i < n; i++) {
                char c = (char)pick(r, 256);
                put(t, &c, 1);
            }
        } else if (kind < 95) {
            /* a long line: many words, or one long word */
            if (pick(r, 2)) {
                puts_(t, "deny-host");
                unsigned n = 200 + pick(r, 100);
                for (unsigned i = 0; i < n; i++) {
                    puts_(t, " h");
                    putn(t, i, 10);
                    puts_(t, ".example");
                }
            } else {
                puts_(t, pick(r, 2) ? "deny-host " : "allow-scheme a");
                unsigned n = 50 + pick(r, 400);
                for (unsigned i = 0; i < n; i++)
                    put(t, i % 64 == 63 && pick(r, 2) ? "." : "x", 1);
            }
        } else if (kind < 98) {
            valid_line(r, t);
            if (t->n > start) {
                size_t at = start + pick(r, (unsigned)(t->n - start));
                const char *u = unicode[pick(r, sizeof unicode / sizeof unicode[0])];
                size_t un = strlen(u);
                if (t->n + un <= TEXT_MAX) {
                    memmove(t->b + at + un, t->b + at, t->n - at);
                    memcpy(t->b + at, u, un);
                    t->n += un;
                }
            }
        } else {
            puts_(t, pick(r, 2) ? "deny-ip " : "allow-ip ");
            range(r, t, false);
        }
        puts_(t, pick(r, 8) == 0 ? "\r\n" : pick(r, 10) == 0 ? "  # note\n" : "\n");
    }
    if (pick(r, 6) == 0 && t->n > 0)
        t->n--; /* no final LF */
}

static bool same_strs(const urisan_policy *p, const pol_str *a, const urisan_policy *q,
                      const pol_str *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].len != b[i].len || memcmp(p->pool + a[i].off, q->pool + b[i].off, a[i].len) != 0)
            return false;
    return true;
}

/* p and q are the same policy (pool offsets may differ) */
static bool same_policy(const urisan_policy *p, const urisan_policy *q)
{
    bool same = p->deny == q->deny && p->flag == q->flag &&
                memcmp(&p->limits, &q->limits, sizeof p->limits) == 0 &&
                p->require_absolute == q->require_absolute &&
                p->require_authority == q->require_authority && p->n_scheme == q->n_scheme &&
                p->n_dangerous == q->n_dangerous && p->n_port == q->n_port &&
                p->n_defport == q->n_defport && p->n_deny_host == q->n_deny_host &&
                p->n_allow_host == q->n_allow_host && p->n_deny_ip == q->n_deny_ip &&
                p->n_allow_ip == q->n_allow_ip;
    if (!same)
        return false;
    for (size_t i = 0; i < p->n_defport; i++)
        if (p->defport[i].port != q->defport[i].port ||
            !same_strs(p, &p->defport[i].name, q, &q->defport[i].name, 1))
            return false;
    return same_strs(p, p->scheme, q, q->scheme, p->n_scheme) &&
           same_strs(p, p->dangerous, q, q->dangerous, p->n_dangerous) &&
           same_strs(p, p->deny_host, q, q->deny_host, p->n_deny_host) &&
           same_strs(p, p->allow_host, q, q->allow_host, p->n_allow_host) &&
           memcmp(p->port, q->port, p->n_port * sizeof p->port[0]) == 0 &&
           memcmp(p->deny_ip, q->deny_ip, p->n_deny_ip * sizeof p->deny_ip[0]) == 0 &&
           memcmp(p->allow_ip, q->allow_ip, p->n_allow_ip * sizeof p->allow_ip[0]) == 0;
}

static char *format_of(const urisan_policy *p, size_t *n)
{
    ck_assert_int_eq(urisan_policy_format(p, NULL, 0, n), URISAN_E_NOSPACE);
    char *buf = malloc(*n);
    ck_assert_ptr_nonnull(buf);
    ck_assert_int_eq(urisan_policy_format(p, buf, *n, n), URISAN_OK);
    return buf;
}

static void show(const text *t)
{
    fputs("policy text: \"", stderr);
    for (size_t i = 0; i < t->n; i++) {
        unsigned char c = (unsigned char)t->b[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
            fputc(c, stderr);
        else
            fprintf(stderr, "\\x%02x", c);
    }
    fputs("\"\n", stderr);
}

static size_t line_start(const char *s, size_t len, size_t line)
{
    size_t i = 0;
    for (size_t l = 1; l < line && i < len; l++) {
        const char *nl = memchr(s + i, '\n', len - i);
        if (nl == NULL)
            return len;
        i = (size_t)(nl - s) + 1;
    }
    return i;
}

START_TEST(five_thousand_random_policies_parse_or_name_the_mistake)
{
    const char *env = getenv("URISAN_POLICY_SEED");
    const char *cnt = getenv("URISAN_POLICY_TEXTS");
    rng r = {env != NULL ? strtoull(env, NULL, 0) : 0x13u};
    if (r.s == 0)
        r.s = 1;
    unsigned texts = cnt != NULL ? (unsigned)strtoul(cnt, NULL, 0) : 5000;
    static text t;
    unsigned good = 0, bad = 0, with_ip = 0;
    urisan_policy *p = new_policy(), *q = new_policy();
    for (unsigned it = 0; it < texts; it++) {
        gen(&r, &t);
        size_t lines = 1;
        for (size_t i = 0; i < t.n; i++)
            lines += t.b[i] == '\n';
        guard_buf g = {0};
        const char *s = guard_place(&g, t.b, t.n);
        ck_assert_ptr_nonnull(s);
        urisan_policy_init(p);
        urisan_policy_error e;
        urisan_status st = urisan_policy_parse_ex(p, s, t.n, &e);
        if (st != URISAN_OK && st != URISAN_E_BAD_POLICY)
            show(&t);
        ck_assert_msg(st == URISAN_OK || st == URISAN_E_BAD_POLICY, "text %u: status %d", it, st);
        if (st == URISAN_E_BAD_POLICY) {
            bad++;
            size_t ls = line_start(t.b, t.n, e.line);
            const char *nl = memchr(t.b + ls, '\n', t.n - ls);
            size_t le = nl != NULL ? (size_t)(nl - t.b) : t.n;
            bool ok = e.line >= 1 && e.line <= lines && e.msg != NULL && e.msg[0] != '\0' &&
                      e.word_len > 0 && e.word_off >= ls && e.word_off + e.word_len <= le &&
                      e.column == e.word_off - ls + 1;
            if (!ok)
                show(&t);
            ck_assert_msg(ok, "text %u: error %zu:%zu '%s' word [%zu,+%zu) not on line [%zu,%zu)",
                          it, e.line, e.column, e.msg ? e.msg : "(null)", e.word_off, e.word_len,
                          ls, le);
            /* the first mistake: the lines before it parse */
            urisan_policy_init(q);
            urisan_policy_error e2;
            urisan_status st2 = urisan_policy_parse_ex(q, t.b, ls, &e2);
            if (st2 != URISAN_OK)
                show(&t);
            ck_assert_msg(st2 == URISAN_OK,
                          "text %u: error on line %zu, yet line %zu fails first (%s)", it, e.line,
                          e2.line, e2.msg);
        } else {
            good++;
            with_ip += p->n_deny_ip + p->n_allow_ip > 0;
            char why[1024];
            const char *dead = policy_witness(p, why, sizeof why);
            if (dead != NULL)
                show(&t);
            ck_assert_msg(dead == NULL, "text %u: %s", it, dead);
            size_t n1 = 0, n2 = 0;
            char *f1 = format_of(p, &n1);
            urisan_policy_init(q);
            st = urisan_policy_parse_ex(q, f1, n1, &e);
            if (st != URISAN_OK)
                show(&t);
            ck_assert_msg(st == URISAN_OK, "text %u: written back, fails on %zu:%zu %s", it,
                          e.line, e.column, e.msg);
            ck_assert_msg(same_policy(p, q), "text %u: written back, another policy", it);
            char *f2 = format_of(q, &n2);
            ck_assert_msg(n1 == n2 && memcmp(f1, f2, n1) == 0, "text %u: format not stable", it);
            free(f1);
            free(f2);
        }
        guard_free(&g);
    }
    free(p);
    free(q);
    /* the generator covers both outcomes (and address rules) in earnest */
    ck_assert_msg(texts < 1000 || (good >= texts / 10 && bad >= texts / 10 && with_ip >= texts / 50),
                  "%u parsed (%u with address rules), %u failed", good, with_ip, bad);
    printf("%u texts: %u parsed (%u with address rules), %u failed\n", texts, good, with_ip, bad);
}
END_TEST

/* The witness check itself can fail: a forged policy entry that nothing
   matches is reported. */
START_TEST(the_witness_check_finds_a_dead_rule)
{
    urisan_policy *p = policy_of("deny-ip 10.0.0.0/8\ndeny-host evil.example\n");
    char why[512];
    ck_assert_ptr_null(policy_witness(p, why, sizeof why));
    p->deny_ip[0].family = 5; /* a range of no family: never matches */
    ck_assert_ptr_nonnull(policy_witness(p, why, sizeof why));
    ck_assert_ptr_nonnull(strstr(why, "deny-ip"));
    p->deny_ip[0].family = 4;
    p->pool[p->deny_host[0].off] = '/'; /* "/vil.example": no host is that */
    ck_assert_ptr_nonnull(policy_witness(p, why, sizeof why));
    ck_assert_ptr_nonnull(strstr(why, "deny-host"));
    free(p);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("policy_random");
    TCase *t = tcase_create("random");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, five_thousand_random_policies_parse_or_name_the_mistake);
    tcase_add_test(t, the_witness_check_finds_a_dead_rule);
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
