/*
 * fuzz/policy.c - urisan_policy_parse on any bytes (SPEC 4, doc/policy.md).
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
 *     else allow) and urisan_check equals parse + analyze + decide.
 */
#include "fuzz_util.h"

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
    if (st == URISAN_E_BAD_POLICY) {
        FUZZ_ASSERT(line >= 1 && line <= lines, "error on line %zu of a %zu-line text", line, lines);
        FUZZ_ASSERT(msg != NULL && msg[0] != '\0', "error without a message");
        FUZZ_ASSERT(line2 == line && strcmp(msg, msg2) == 0, "two parses report different errors");
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
    }
    free(p);
    free(q);
    fuzz_done(in);
    return 0;
}
