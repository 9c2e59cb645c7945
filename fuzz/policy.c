/*
 * fuzz/policy.c - urisan_policy_parse on any bytes (doc/policy.md).
 *
 * Invariants:
 *  1. no crash, no overread (the text and the policy are exact-size
 *     allocations), the status is ok or bad_policy;
 *  2. an error carries a 1-based line number within the text and a
 *     non-empty message; it is the FIRST mistake: the text cut before
 *     that line parses without error, and the text cut after it fails on
 *     the same line with the same message;
 *  3. deterministic: a second parse into a fresh policy gives the same
 *     answer and, for a good policy, the same decisions;
 *  4. a good policy is usable: limits within [1, hard ceiling]; for a
 *     set of probe URIs the decision is consistent (deny_flags and
 *     flag_flags disjoint subsets of the flags; the verdict is deny when
 *     deny_flags or rules is non-empty, else flag when flag_flags is,
 *     else allow) and urisan_check equals parse + analyze + decide;
 *  5. an error names its word (urisan_policy_parse_ex): non-empty, on the
 *     error's line, at the error's column;
 *  6. a good policy holds no rule that matches nothing: every host,
 *     address range, scheme, port, default-port and dangerous-scheme
 *     entry judges a witness URI built from it (policy_witness.h);
 *  7. written back (urisan_policy_format) it parses again, to a policy
 *     that writes the same text and decides every probe the same;
 *  8. the lint (urisan_pol_lint, `urisan policy check`) agrees with the
 *     parse: no mistake exactly when the parse succeeds, and then the
 *     same rules; else its first mistake is the parse's (line, column,
 *     message, word). Every diagnostic names a word of its own line, in
 *     order of lines (the whole-policy warnings after the mistakes).
 *  9. --explain's entry (urisan_policy_origin_uri): for a probe denied
 *     host_denied / ip_denied (and the nested_ twins) the line named is 0
 *     (the profile's entry) or a line of the text whose directive is
 *     deny-host / deny-ip, never past the text's end.
 */
#include "fuzz_util.h"
#include "policy_lint.h"
#include "policy_witness.h"
#include "risk.h"

static const char *const probes[] = {
    "http://example.com/",
    "https://user:pw@www.Example.COM:8443/a/../b?q#f",
    "http://0x7f.1/",
    "http://[::1]:80/",
    "javascript:alert(1)",
    "ms-msdt:/id",
    "foo://h/",
    "/a/%2e%2e/../../x",
    "http://a@b@c/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "ftp://x.internal.example.com:21/",
    "//h:65536/",
    "http://xn--nxasmq6b.example/%c0%ae",
    "mailto:a@b",
    "",
    "-",
    "api.github.com:443",
    "http://www.evil.com/",
    "http://10.0.0.1/",
    "http://167772161/",
    "http://[fd00::1]/",
    "http://[::ffff:192.168.1.1]/",
    "http://[2002:a00:1::]/",
    "http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/",
    "http://[fe80::1%25eth0]/",
    "http://[v1.x]/",
    "http://127.0.0.1.nip.io/",
};

static urisan_policy *new_policy(void)
{
    urisan_policy *p = (urisan_policy *)malloc(urisan_policy_size());
    if (p == NULL)
        abort();
    urisan_policy_init(p);
    return p;
}

static urisan_status parse_policy(const char *text, size_t len, urisan_policy **out, size_t *line,
                                  const char **msg)
{
    char *copy = fuzz_dup_part(text, len);
    urisan_policy *p = new_policy();
    *line = 0;
    *msg = NULL;
    urisan_status st = urisan_policy_parse(p, copy, len, line, msg);
    free(copy);
    *out = p;
    return st;
}

static void check_decisions(const urisan_policy *p, const urisan_policy *q)
{
    const urisan_limits *l = urisan_policy_limits(p);
    const size_t *v[] = {&l->max_uri,   &l->max_scheme, &l->max_userinfo,
                         &l->max_host,  &l->max_label,  &l->max_segments};
    for (int i = 0; i < 6; i++)
        FUZZ_ASSERT(*v[i] >= 1 && *v[i] <= URISAN_HARD_CEILING, "limit %d is %zu", i, *v[i]);
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        size_t n = strlen(probes[i]);
        char *in = fuzz_dup_part(probes[i], n);
        urisan_uri u, u2;
        urisan_report r, r2;
        urisan_decision d, d2, d3;
        urisan_check(in, n, p, &u, &r, &d);
        FUZZ_ASSERT((d.deny_flags & ~r.flags) == 0 && (d.flag_flags & ~r.flags) == 0 &&
                        (d.deny_flags & d.flag_flags) == 0,
                    "probe %s: deny/flag sets are not disjoint subsets of the flags", probes[i]);
        urisan_verdict want = (d.deny_flags || d.rules) ? URISAN_DENY
                              : d.flag_flags            ? URISAN_FLAGGED
                                                        : URISAN_ALLOW;
        FUZZ_ASSERT(d.verdict == want, "probe %s: verdict %s, the rule of doc/policy.md says %s",
                    probes[i], urisan_verdict_name(d.verdict), urisan_verdict_name(want));
        FUZZ_ASSERT(d.rules < (1u << URISAN_REASON_COUNT_), "probe %s: unknown rule bit", probes[i]);
        /* check == parse + analyze + decide */
        urisan_parse(in, n, urisan_policy_limits(p), &u2, NULL);
        urisan_analyze(in, n, &u2, p, &r2);
        urisan_decide(in, n, &u2, &r2, p, &d2);
        FUZZ_ASSERT(r2.flags == r.flags && d2.verdict == d.verdict && d2.rules == d.rules &&
                        d2.deny_flags == d.deny_flags,
                    "probe %s: urisan_check differs from parse + analyze + decide", probes[i]);
        /* the same text parsed twice decides the same */
        urisan_check(in, n, q, &u2, &r2, &d3);
        FUZZ_ASSERT(d3.verdict == d.verdict && d3.rules == d.rules && d3.deny_flags == d.deny_flags &&
                        d3.flag_flags == d.flag_flags && r2.flags == r.flags,
                    "probe %s: two parses of the same policy decide differently", probes[i]);
        free(in);
    }
}

static char *format_of(const urisan_policy *p, size_t *n)
{
    FUZZ_ASSERT(urisan_policy_format(p, NULL, 0, n) == URISAN_E_NOSPACE && *n > 0,
                "urisan_policy_format sizing");
    char *buf = (char *)malloc(*n);
    if (buf == NULL)
        abort();
    FUZZ_ASSERT(urisan_policy_format(p, buf, *n, n) == URISAN_OK, "urisan_policy_format");
    return buf;
}

/* Invariant 7: the policy written back parses to one that writes the same
   text and decides every probe the same. */
static void check_written_back(const urisan_policy *p)
{
    size_t n1 = 0, n2 = 0;
    char *f1 = format_of(p, &n1);
    urisan_policy *r = new_policy();
    urisan_policy_error e;
    FUZZ_ASSERT(urisan_policy_parse_ex(r, f1, n1, &e) == URISAN_OK,
                "the policy written back fails on line %zu: %s", e.line, e.msg);
    char *f2 = format_of(r, &n2);
    FUZZ_ASSERT(n1 == n2 && memcmp(f1, f2, n1) == 0, "written back twice, two texts");
    check_decisions(p, r);
    free(f1);
    free(f2);
    free(r);
}

/* Offset where line `line` (1-based) starts, or len. */
static size_t line_start(const char *s, size_t len, size_t line)
{
    size_t i = 0, l = 1;
    while (l < line && i < len) {
        const char *nl = (const char *)memchr(s + i, '\n', len - i);
        if (nl == NULL)
            return len;
        i = (size_t)(nl - s) + 1;
        l++;
    }
    return i;
}

/* Invariant 5: the error of urisan_policy_parse_ex names a word on its
   line, at its column. */
static void check_error_word(const char *in, size_t size, size_t line)
{
    urisan_policy *p = new_policy();
    urisan_policy_error e;
    FUZZ_ASSERT(urisan_policy_parse_ex(p, in, size, &e) == URISAN_E_BAD_POLICY && e.line == line,
                "urisan_policy_parse_ex and urisan_policy_parse disagree");
    size_t ls = line_start(in, size, line);
    const char *nl = (const char *)memchr(in + ls, '\n', size - ls);
    size_t le = nl ? (size_t)(nl - in) : size;
    FUZZ_ASSERT(e.word_len > 0 && e.word_off >= ls && e.word_off + e.word_len <= le &&
                    e.column == e.word_off - ls + 1,
                "error %zu:%zu (%s) names word [%zu,+%zu), not on the line [%zu,%zu)", e.line,
                e.column, e.msg, e.word_off, e.word_len, ls, le);
    free(p);
}

typedef struct {
    const char *in;
    size_t size;
    size_t errors;
    pol_diag first;
} lint_seen;

static void lint_diag(void *ctx, const pol_diag *d)
{
    lint_seen *l = ctx;
    FUZZ_ASSERT(d->msg != NULL && d->msg[0] != '\0' && d->line >= 1, "lint diagnostic without a "
                "message or line");
    if (d->word_len > 0) {
        size_t ls = line_start(l->in, l->size, d->line);
        FUZZ_ASSERT(d->word_off >= ls && d->word_off + d->word_len <= l->size &&
                        memchr(l->in + ls, '\n', d->word_off + d->word_len - ls) == NULL &&
                        d->column == d->word_off - ls + 1,
                    "lint %zu:%zu (%s): the word is not on its line", d->line, d->column, d->msg);
    }
    if (!d->warning && l->errors++ == 0)
        l->first = *d;
}

/* Invariant 8 */
static void check_lint(const char *in, size_t size, const urisan_policy *parsed, urisan_status st)
{
    urisan_policy *p = new_policy();
    lint_seen l = {in, size, 0, {0}};
    size_t errors = urisan_pol_lint(p, in, size, lint_diag, &l);
    FUZZ_ASSERT(errors == l.errors, "lint returned %zu mistakes, told %zu", errors, l.errors);
    FUZZ_ASSERT((errors == 0) == (st == URISAN_OK), "lint: %zu mistakes, parse: %s", errors,
                fuzz_status(st));
    if (st == URISAN_OK) {
        FUZZ_ASSERT(memcmp(p, parsed, POL_RULES_SIZE) == 0, "lint and parse give other rules");
    } else {
        urisan_policy *q = new_policy();
        urisan_policy_error e;
        urisan_policy_parse_ex(q, in, size, &e);
        FUZZ_ASSERT(l.first.line == e.line && l.first.column == e.column &&
                        strcmp(l.first.msg, e.msg) == 0 && l.first.word_off == e.word_off &&
                        l.first.word_len == e.word_len,
                    "lint's first mistake %zu:%zu %s, parse's %zu:%zu %s", l.first.line,
                    l.first.column, l.first.msg, e.line, e.column, e.msg);
        free(q);
    }
    free(p);
}

/* Invariant 9 */
static void check_entry_origin(const urisan_policy *p, const char *in, size_t size, size_t lines)
{
    static const unsigned reasons[] = {URISAN_REASON_HOST_DENIED, URISAN_REASON_IP_DENIED,
                                       URISAN_REASON_NESTED_HOST_DENIED,
                                       URISAN_REASON_NESTED_IP_DENIED};
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        size_t n = strlen(probes[i]);
        urisan_uri u;
        urisan_report r;
        urisan_decision d;
        urisan_check(probes[i], n, p, &u, &r, &d);
        for (size_t k = 0; k < sizeof reasons / sizeof reasons[0]; k++) {
            if (!(d.rules >> reasons[k] & 1))
                continue;
            bool host = k % 2 == 0;
            size_t line = urisan_policy_origin_uri(p, probes[i], n, URISAN_ORIGIN_RULE,
                                                   reasons[k], NULL);
            if (line == 0)
                continue;
            FUZZ_ASSERT(line <= lines, "probe %s: entry line %zu of a %zu-line text", probes[i],
                        line, lines);
            size_t ls = line_start(in, size, line);
            while (ls < size && (in[ls] == ' ' || in[ls] == '\t'))
                ls++;
            const char *want = host ? "deny-host" : "deny-ip";
            size_t wl = strlen(want);
            FUZZ_ASSERT(size - ls > wl && memcmp(in + ls, want, wl) == 0 &&
                            (in[ls + wl] == ' ' || in[ls + wl] == '\t'),
                        "probe %s: %s names line %zu, no %s line", probes[i],
                        urisan_rule_reason_name((urisan_rule_reason)reasons[k]), line, want);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = fuzz_dup(data, size);
    size_t lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += in[i] == '\n';

    urisan_policy *p, *q;
    size_t line, line2;
    const char *msg, *msg2;
    urisan_status st = parse_policy(in, size, &p, &line, &msg);
    urisan_status st2 = parse_policy(in, size, &q, &line2, &msg2);
    FUZZ_ASSERT(st == URISAN_OK || st == URISAN_E_BAD_POLICY, "policy parse returned %s",
                fuzz_status(st));
    FUZZ_ASSERT(st == st2, "policy parse is not deterministic");
    check_lint(in, size, p, st);
    if (st == URISAN_E_BAD_POLICY) {
        FUZZ_ASSERT(line >= 1 && line <= lines, "error on line %zu of a %zu-line text", line, lines);
        FUZZ_ASSERT(msg != NULL && msg[0] != '\0', "error without a message");
        FUZZ_ASSERT(line2 == line && strcmp(msg, msg2) == 0, "two parses report different errors");
        check_error_word(in, size, line);
        /* the first mistake: what precedes the line is good ... */
        size_t ls = line_start(in, size, line);
        urisan_policy *pp;
        size_t l3;
        const char *m3;
        urisan_status s3 = parse_policy(in, ls, &pp, &l3, &m3);
        FUZZ_ASSERT(s3 == URISAN_OK, "the %zu lines before the error on line %zu fail on line %zu (%s)",
                    line - 1, line, l3, m3 ? m3 : "?");
        free(pp);
        /* ... and the text up to the end of that line fails there */
        const char *nl = (const char *)memchr(in + ls, '\n', size - ls);
        size_t le = nl ? (size_t)(nl - in) + 1 : size;
        s3 = parse_policy(in, le, &pp, &l3, &m3);
        FUZZ_ASSERT(s3 == URISAN_E_BAD_POLICY && l3 == line && strcmp(m3, msg) == 0,
                    "cut after line %zu: %s on line %zu (%s), whole text: line %zu (%s)", line,
                    fuzz_status(s3), l3, m3 ? m3 : "-", line, msg);
        free(pp);
    } else {
        check_decisions(p, q);
        check_entry_origin(p, in, size, lines);
        char why[1024];
        const char *dead = policy_witness(p, why, sizeof why);
        FUZZ_ASSERT(dead == NULL, "%s", dead);
        check_written_back(p);
    }
    free(p);
    free(q);
    fuzz_done(in);
    return 0;
}
