/*
 * test_vectors.c - the core parser against the conformance vectors in
 * ../shared/data/vectors (see SOURCES.md there for origin and escaping).
 *
 * Each file is an oracle for part of RFC 3986 only. Every row is judged:
 *   agree       urisan and the vector say the same thing;
 *   difference  they do not, and the row is listed below with the reason
 *               (the vector follows uriparser's API, curl's or Go's rules,
 *               not RFC 3986 - or the two agree on the verdict but report
 *               the error at a different offset);
 *   skipped     the row is not about RFC 3986 parsing (a rule table says
 *               why);
 *   bug         urisan contradicts RFC 3986: listed with "BUG:" until the
 *               parser is fixed.
 * A disagreement that is in no table fails the test; so does a table
 * entry that no longer matches a disagreement (stale entries hide bugs).
 * Each test prints its counts.
 */
#include <arpa/inet.h>
#include <check.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testdata.h"
#include "urisan.h"

/* ------------------------------------------------------------------ */
/* Tables of known differences                                         */
/* ------------------------------------------------------------------ */

typedef struct {
    const char *key;    /* the row's key (see each file); bytes, may hold NUL */
    size_t keylen;
    const char *reason;
    unsigned hits;
} known;

#define K(s, why) {s, sizeof(s) - 1, why, 0}
#define NKNOWN(t) (sizeof(t) / sizeof((t)[0]))

/* --- uriparser-parse.tsv: key = the uri column ---------------------- */
static known parse_diffs[] = {
    /* Both reject these; only the reported offset differs. */
    K("http://w3c.org:80path1/path2",
      "error offset: uriparser reports 22, the first byte after which no URI can follow "
      "(\"w3c.org:80path1\" could still be userinfo before an \"@\"); urisan splits the "
      "authority first (no \"@\": port \"80path1\") and reports the bad port byte, 17"),
    K("%", "error offset: uriparser points after the \"%\" (1), urisan at the \"%\" that "
           "starts the broken pct-encoded (0)"),
    K("A%Z", "error offset: uriparser 2 (after the \"%\"), urisan 1 (the \"%\")"),
    K("%ZZ", "error offset: uriparser 1 (after the \"%\"), urisan 0 (the \"%\")"),
    K("%AZ", "error offset: uriparser 2 (the first non-hex byte), urisan 0 (the \"%\")"),
};

/* --- uriparser-wellformed.tsv: key = component "|" has_host "|" text */
static known wf_diffs[] = {
    K("Path|true|",
      "RFC 3986 3.3: with an authority the path is path-abempty, which may be empty "
      "(\"//h\" is valid); uriparser's setter API rejects an empty path when a host is "
      "set (SOURCES.md)"),
    K("Path|any|//",
      "RFC 3986 3.3: without an authority a path cannot begin with \"//\" (\"s://\" reads "
      "an empty authority); uriparser checks the path text alone and accepts it"),
    K("Port||0123456789",
      "urisan's rule (doc/policy.md): a port above 65535 makes the URI invalid (port_range); "
      "RFC 3986 3.2.3 port = *DIGIT has no bound, uriparser checks the characters only"),
    K("Scheme||ABCDEFabcdefgGhHiIjJkKlLmMnNoOpPqQrRsStTuUvVwWxXyYzZ0123456789+-.",
      "urisan's default limits: the scheme bound is 64 bytes (too_long); this scheme has 65"),
};

/* --- uriparser-ip.tsv: key = kind "|" text --------------------------- */
static known ip_diffs[] = {
    K("", ""), /* none: every row agrees (empty entries are ignored) */
};

/* --- go-url-parse.tsv: key = the input column ------------------------ */
static known go_diffs[] = {
    K("///threeslashes",
      "Go reads no authority after \"///\" (path \"///threeslashes\"); RFC 3986 App. B "
      "reads an empty authority and the path \"/threeslashes\""),
    K("http://j@ne:password@google.com",
      "Go accepts \"@\" in userinfo (split at the last \"@\", as urisan does); RFC 3986 "
      "3.2.1 userinfo has no \"@\""),
    K("http://jane:p@ssword@google.com", "Go accepts \"@\" in userinfo; RFC 3986 3.2.1 does not"),
    K("http://j@ne:password@google.com/p@th?q=@go",
      "Go accepts \"@\" in userinfo; RFC 3986 3.2.1 does not"),
    K("http://host/!$&'()*+,;=:@[hello]",
      "Go accepts \"[\" \"]\" in the path; RFC 3986 3.3 pchar excludes gen-delims \"[\" \"]\""),
    K("http://example.com/oid/[order_id]",
      "Go accepts \"[\" \"]\" in the path; RFC 3986 3.3 pchar excludes them"),
    K("http://2b01:e34:ef40:7730:8e70:5aff:fefe:edac:8080/foo",
      "Go accepts an unbracketed IPv6 address (last colon = port); RFC 3986 3.2.2 "
      "requires brackets, \":\" is not a reg-name character"),
    K("http://2b01:e34:ef40:7730:8e70:5aff:fefe:edac:/foo",
      "Go accepts an unbracketed IPv6 address; RFC 3986 3.2.2 requires brackets"),
    K("http://hello.\xE4\xB8\x96\xE7\x95\x8C.com/foo",
      "Go accepts raw UTF-8 in the host (an IRI); RFC 3986 2 allows only ASCII"),
    K("myscheme://authority<\"hi\">/foo",
      "Go accepts \"<\" and '\"' in the host of a non-http scheme; RFC 3986 3.2.2 does not"),
    K("http://%41:8080/",
      "RFC 3986 3.2.2 reg-name allows pct-encoded; Go rejects \"%\" in a host except in "
      "an IPv6 zone (urisan flags any escape in a host ambiguous_authority)"),
    K("http://foo.com/ctl\x80",
      "Go accepts a raw byte >= 0x80 in the path; RFC 3986 2 allows only ASCII"),
};

/* --- curl-1560.tsv: key = the input column, followed by
       " [urlflags/getflags]" when either is not 0 ---------------------- */
#define CURL_HOSTCHARS "RFC 3986 3.2.2 reg-name allows sub-delims; curl rejects them in host names"
#define CURL_HOSTPCT "RFC 3986 3.2.2 reg-name allows any pct-encoded octet; curl decodes the " \
                     "host and rejects what is not a DNS name (urisan flags ambiguous_authority)"
#define CURL_DOTS "RFC 3986 3.2.2: a reg-name may be dots only or hold empty labels; curl " \
                  "rejects them"
#define CURL_IPV4 "curl rewrites inet_aton/WHATWG IPv4 forms to dotted-decimal; RFC 3986 " \
                  "reads them as a reg-name, kept raw (urisan flags ip_obfuscated)"
#define CURL_IPV6 "curl prints IPv6 in RFC 5952 canonical form; urisan keeps the text raw"
#define CURL_DOTSEG "curl removes dot segments (5.2.4) when parsing; urisan's split keeps " \
                    "the path raw (normalize does that)"
#define CURL_FILE "curl's file: rules; RFC 3986 (and RFC 8089) accept this syntax"
#define CURL_NOHOST "RFC 3986 3.2.2 allows an empty host (\"http:///\"); curl requires one"
#define CURL_ONESLASH "curl reads an authority after \"http:/\"; RFC 3986 reads path-absolute " \
                      "(urisan flags ambiguous_authority)"
static known curl_diffs[] = {
    K("https://exam$ple.net", CURL_HOSTCHARS),
    K("https://exam'ple.net", CURL_HOSTCHARS),
    K("https://exam*ple.net", CURL_HOSTCHARS),
    K("https://exam=ple.net", CURL_HOSTCHARS),
    K("https://exam;ple.net", CURL_HOSTCHARS),
    K("https://example,net", CURL_HOSTCHARS),
    K("https://example&net", CURL_HOSTCHARS),
    K("https://example+net", CURL_HOSTCHARS),
    K("https://example(net", CURL_HOSTCHARS),
    K("https://example)net", CURL_HOSTCHARS),
    K("http://example.com%40127.0.0.1/", CURL_HOSTPCT),
    K("http://example.com%21127.0.0.1/", CURL_HOSTPCT),
    K("http://example.com%3f127.0.0.1/", CURL_HOSTPCT),
    K("http://example.com%23127.0.0.1/", CURL_HOSTPCT),
    K("http://example.com%3a127.0.0.1/", CURL_HOSTPCT),
    K("http://example.com%09127.0.0.1/", CURL_HOSTPCT),
    K("http://example.com%2F127.0.0.1/", CURL_HOSTPCT),
    K("https://%20", CURL_HOSTPCT),
    K("https://%41%0D", CURL_HOSTPCT),
    K("https://%25", CURL_HOSTPCT),
    K("https://%41%0D%0A%42/", CURL_HOSTPCT),
    K("http://HO0_-st%41/", "curl prints the host percent-decoded (\"HO0_-stA\"); urisan keeps "
                            "it raw"),
    K("https://%41", "curl prints the host percent-decoded (\"A\")"),
    K("https://_%c0_", "curl prints the host percent-decoded (a raw 0xC0 byte)"),
    K("https://%e2%84%82%e1%b5%a4%e2%93%87%e2%84%92%e3%80%82%f0%9d%90%92%f0%9f%84%b4",
      "urisan's default limits: a host label is bounded to 63 bytes (too_long); this one has "
      "72 raw bytes. curl prints it decoded"),
    K("https://127.1..", CURL_DOTS),
    K("https://127.1..:443", CURL_DOTS),
    K("https://127.1..?moo", CURL_DOTS),
    K("https://127.1..#moo", CURL_DOTS),
    K("https://127.0.0.1..", CURL_DOTS),
    K("https://127.0.0.256..", CURL_DOTS),
    K("http://hej../", CURL_DOTS),
    K("http://hej.../", CURL_DOTS),
    K("http://hej..../index.html", CURL_DOTS),
    K("http://./", CURL_DOTS),
    K("http://example.com../", CURL_DOTS),
    K("http://.", CURL_DOTS),
    K("http://..", CURL_DOTS),
    K("http://...", CURL_DOTS),
    K("https://127.0.0.%31.", CURL_IPV4),
    K("https://127.0.0.0%78f%46.", CURL_IPV4),
    K("https://%30%31%37%37%2e%31", CURL_IPV4),
    K("https://127.1.", CURL_IPV4),
    K("https://127.1.:443", CURL_IPV4),
    K("https://127.1.?moo", CURL_IPV4),
    K("https://127.1.#moo", CURL_IPV4),
    K("https://127.1.1.", CURL_IPV4),
    K("https://127.1.1./foo", CURL_IPV4),
    K("https://127.1.1.1.", CURL_IPV4),
    K("https://127.1", CURL_IPV4),
    K("https://127.0.0.1.", CURL_IPV4),
    K("https://127.0.0.0xff.", CURL_IPV4),
    K("https://0/", CURL_IPV4),
    K("https://0.0x0/", CURL_IPV4),
    K("https://0.000/", CURL_IPV4),
    K("https://192.0x0000A80001", CURL_IPV4),
    K("https://0xffffffff", CURL_IPV4),
    K("https://0x7f.1", CURL_IPV4),
    K("https://0X7F.1", CURL_IPV4),
    K("https://16843009", CURL_IPV4),
    K("https://0177.1", CURL_IPV4),
    K("https://0111.02.0x3", CURL_IPV4),
    K("https://0111.02.0X3", CURL_IPV4),
    K("https://0111.02.0x3.", CURL_IPV4),
    K("https://0111.02.030", CURL_IPV4),
    K("https://0111.02.030.", CURL_IPV4),
    K("https://0xff.0xff.0377.255", CURL_IPV4),
    K("https://0XFF.0XFF.0377.255", CURL_IPV4),
    K("https://1.0xffffff", CURL_IPV4),
    K("https://[fe80::0000:20c:29ff:fe9c:409b]:80/moo", CURL_IPV6),
    K("https://[fe80::020c:29ff:fe9c:409b]:80/moo", CURL_IPV6),
    K("https://[fe80:0000:0000:0000:020c:29ff:fe9c:409b]:80/moo", CURL_IPV6),
    K("https://[fe80:0:0:0:409b::]:80/moo", CURL_IPV6),
    K("https://[FE80:0:A:0:409B:0:0:0]:80/moo", CURL_IPV6),
    K("https://[fe80%3A%3A20c%3A29ff%3Afe9c%3A409b]/",
      "curl decodes escapes inside brackets; RFC 3986 3.2.2 IPv6address has no pct-encoded"),
    K("https://[fe80::20c:29ff:fe9c:409b%eth0]:1234",
      "curl accepts a raw \"%\" before the zone id; RFC 6874 requires \"%25\""),
    K("http://[v1.fe80::abcd]/",
      "RFC 3986 3.2.2 IPvFuture \"v1.fe80::abcd\" is valid; curl knows no IPvFuture"),
    K("https://example.net/}", "curl accepts \"}\" in the path; RFC 3986 3.3 does not"),
    K("http://host/#a#b", "curl accepts \"#\" in the fragment; RFC 3986 3.5 does not"),
    K("http://%3a:%3a@ex4mple/%3f?%3f%35#%35%3f%g7",
      "curl accepts \"%g7\"; RFC 3986 2.1 pct-encoded needs two hex digits"),
    K("file://hello.html", CURL_FILE " (authority \"hello.html\")"),
    K("file:/", CURL_FILE),
    K("file:./", CURL_FILE " (a rootless path)"),
    K("file:foo", CURL_FILE " (a rootless path)"),
    K("file:foo/bar", CURL_FILE " (a rootless path)"),
    K("file:?q", CURL_FILE " (an empty path)"),
    K("file:#f", CURL_FILE " (an empty path)"),
    K("file://127.0.0.1/hello.html", "curl drops a loopback host from file: URLs; urisan "
                                     "keeps it (and flags ambiguous_authority)"),
    K("file:///.", CURL_DOTSEG),
    K("file:///./", CURL_DOTSEG),
    K("http://example.com/hello/../here", CURL_DOTSEG),
    K("http:///", CURL_NOHOST),
    K("https://?q=1", CURL_NOHOST),
    K("custom-scheme://?expected=test-bad [CURLU_NON_SUPPORT_SCHEME/0]", CURL_NOHOST),
    K("http:/@example.com:123", CURL_ONESLASH),
    K("http:/:password@example.com", CURL_ONESLASH),
    K("http:/@example.com:123a/", CURL_ONESLASH " (so curl sees a bad port)"),
    K("", "RFC 3986 4.1: the empty string is a valid relative reference (the current "
          "document); curl needs a URL"),
    K("example.com/path/html",
      "RFC 3986 4.2: a relative reference is valid; curl needs a scheme"),
    K("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA://hostname/path [CURLU_NON_SUPPORT_SCHEME/0]",
      "curl limits a scheme to 40 bytes; RFC 3986 3.1 has no bound, urisan's default is 64"),
};

/*
 * Rows where urisan contradicts RFC 3986: key = file "|" key. Each entry is
 * a temporary known failure with a "BUG:" comment (input, what RFC 3986
 * says, what urisan does) until src/parse.c is fixed; then it goes stale
 * and must be removed. None at present: every disagreement above is a
 * deliberate one.
 */
static known bugs[] = {
    K("", ""), /* empty entries are ignored */
};

/* ------------------------------------------------------------------ */
/* Tally and judging                                                   */
/* ------------------------------------------------------------------ */

typedef struct {
    const char *file;
    unsigned agree, differ, skipped, bug, fail;
} tally;

static known *find_known(known *t, size_t n, const char *key, size_t klen)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].reason[0] && t[i].keylen == klen && memcmp(t[i].key, key, klen) == 0)
            return &t[i];
    return NULL;
}

/* Print bytes with C escapes, so control and non-ASCII bytes show. */
static void put_escaped(FILE *fp, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\\')
            fputs("\\\\", fp);
        else if (c == '"')
            fputs("\\\"", fp);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(fp, "\\x%02X", c);
        else
            fputc(c, fp);
    }
}

static known *find_bug(const char *file, const char *key, size_t klen)
{
    char buf[4096];
    size_t fl = strlen(file);
    if (fl + 1 + klen > sizeof buf)
        return NULL;
    memcpy(buf, file, fl);
    buf[fl] = '|';
    memcpy(buf + fl + 1, key, klen);
    return find_known(bugs, NKNOWN(bugs), buf, fl + 1 + klen);
}

/*
 * Judge one row. `agrees` is the comparison; `detail` says what urisan
 * did, for the log.
 */
static void judge(tally *t, known *diffs, size_t ndiffs, size_t line, const char *key,
                  size_t klen, bool agrees, const char *detail)
{
    known *d = find_known(diffs, ndiffs, key, klen);
    known *b = find_bug(t->file, key, klen);
    if (d)
        d->hits++;
    if (b)
        b->hits++;
    if (agrees) {
        if (d || b) {
            t->fail++;
            printf("STALE %s:%zu: \"", t->file, line);
            put_escaped(stdout, key, klen);
            printf("\" is listed as a %s but now agrees\n", d ? "difference" : "bug");
        } else {
            t->agree++;
        }
        return;
    }
    if (b) {
        t->bug++;
        printf("BUG %s:%zu: \"", t->file, line);
        put_escaped(stdout, key, klen);
        printf("\": %s\n", detail);
    } else if (d) {
        t->differ++;
    } else {
        t->fail++;
        printf("DISAGREE %s:%zu: \"", t->file, line);
        put_escaped(stdout, key, klen);
        printf("\": %s\n", detail);
    }
}

/* Every entry of a table must have matched a disagreeing row. */
static void check_all_hit(tally *t, const known *tab, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        if (tab[i].reason[0] && tab[i].hits == 0) {
            t->fail++;
            printf("UNUSED %s entry for %s: \"", what, t->file);
            put_escaped(stdout, tab[i].key, tab[i].keylen);
            printf("\" matches no row\n");
        }
    }
}

static void check_bugs_hit(tally *t)
{
    size_t fl = strlen(t->file);
    for (size_t i = 0; i < NKNOWN(bugs); i++) {
        if (!bugs[i].reason[0] || bugs[i].keylen <= fl ||
            memcmp(bugs[i].key, t->file, fl) != 0 || bugs[i].key[fl] != '|')
            continue;
        if (bugs[i].hits == 0) {
            t->fail++;
            printf("UNUSED bug entry \"%s\" matches no row\n", bugs[i].key);
        }
    }
}

static void report(const tally *t)
{
    printf("%s: agree %u, deliberate difference %u, skipped %u, known bug %u, "
           "unexplained %u\n",
           t->file, t->agree, t->differ, t->skipped, t->bug, t->fail);
    fflush(stdout);
}

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

typedef struct {
    char b[8192];
    size_t n;
} sbuf;

static void sb_reset(sbuf *s) { s->n = 0; }

static void sb_put(sbuf *s, const char *p, size_t n)
{
    if (n > sizeof s->b - s->n)
        n = sizeof s->b - s->n;
    memcpy(s->b + s->n, p, n);
    s->n += n;
}

static void sb_str(sbuf *s, const char *p) { sb_put(s, p, strlen(p)); }

static void sb_fmt(sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_fmt(sbuf *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->b + s->n, sizeof s->b - s->n, fmt, ap);
    va_end(ap);
    if (n > 0)
        s->n += ((size_t)n < sizeof s->b - s->n) ? (size_t)n : sizeof s->b - s->n - 1;
}

static bool field_is(const tsv_file *t, int col, const char *lit)
{
    return col >= 0 && t->flen[col] == strlen(lit) && memcmp(t->f[col], lit, t->flen[col]) == 0;
}

static bool span_is(const char *in, urisan_span s, const char *p, size_t n)
{
    return urisan_span_present(s) && s.len == n && memcmp(in + s.off, p, n) == 0;
}

/* A one-line account of what urisan made of in[0..len). */
static void describe(sbuf *d, const char *in, const urisan_uri *u)
{
    static const char *names[7] = {"scheme", "userinfo", "host", "port", "path", "query",
                                   "fragment"};
    const urisan_span sp[7] = {u->scheme, u->userinfo, u->host, u->port,
                               u->path,   u->query,    u->fragment};
    if (u->valid)
        sb_str(d, "urisan: valid");
    else
        sb_fmt(d, "urisan: %s at %zu", urisan_status_name(u->error.code), u->error.offset);
    if (u->host_type != URISAN_HOST_NONE)
        sb_fmt(d, ", host type %s", urisan_host_type_name(u->host_type));
    for (int k = 0; k < 7; k++) {
        if (!urisan_span_present(sp[k]))
            continue;
        sb_fmt(d, ", %s \"", names[k]);
        for (size_t i = 0; i < sp[k].len && d->n + 8 < sizeof d->b; i++) {
            unsigned char c = (unsigned char)in[sp[k].off + i];
            if (c < 0x20 || c >= 0x7f)
                sb_fmt(d, "\\x%02X", c);
            else
                sb_put(d, (const char *)&c, 1);
        }
        sb_str(d, "\"");
    }
}

static void parse_buf(const sbuf *s, urisan_uri *u)
{
    urisan_status st = urisan_parse(s->b, s->n, NULL, u, NULL);
    ck_assert_int_ne(st, URISAN_E_BAD_ARGUMENT);
}

/* Percent-decode the valid escapes of p[0..n) into out (Go and curl
   report decoded text). */
static void pct_decode(sbuf *out, const char *p, size_t n)
{
    sb_reset(out);
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '%' && i + 2 < n && tsv_hex(p[i + 1]) >= 0 && tsv_hex(p[i + 2]) >= 0) {
            char c = (char)(tsv_hex(p[i + 1]) * 16 + tsv_hex(p[i + 2]));
            sb_put(out, &c, 1);
            i += 2;
        } else {
            sb_put(out, p + i, 1);
        }
    }
}

static bool ieq(const char *a, size_t an, const char *b, size_t bn)
{
    if (an != bn)
        return false;
    for (size_t i = 0; i < an; i++) {
        unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
        if (x >= 'A' && x <= 'Z') x = (unsigned char)(x | 0x20);
        if (y >= 'A' && y <= 'Z') y = (unsigned char)(y | 0x20);
        if (x != y)
            return false;
    }
    return true;
}

/* ------------------------------------------------------------------ */
/* uriparser-parse.tsv                                                 */
/* ------------------------------------------------------------------ */

/* facts: "host_set=true;absolute_path=false;empty_tail_segment=true" */
static bool fact(const char *facts, size_t n, const char *name, bool *val)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i + nl < n; i++) {
        if ((i == 0 || facts[i - 1] == ';') && memcmp(facts + i, name, nl) == 0 &&
            facts[i + nl] == '=') {
            *val = (n - (i + nl + 1) >= 4 && memcmp(facts + i + nl + 1, "true", 4) == 0);
            return true;
        }
    }
    return false;
}

START_TEST(uriparser_parse_vectors_agree_on_validity_error_offset_and_facts)
{
    tsv_file t;
    if (!tsv_open(&t, "uriparser-parse.tsv"))
        return;
    tally ty = {"uriparser-parse.tsv", 0, 0, 0, 0, 0};
    int c_uri = tsv_col(&t, "uri"), c_exp = tsv_col(&t, "expect"),
        c_off = tsv_col(&t, "error_offset"), c_facts = tsv_col(&t, "facts");
    ck_assert(c_uri >= 0 && c_exp >= 0 && c_off >= 0 && c_facts >= 0);
    while (tsv_next(&t)) {
        const char *in = t.f[c_uri];
        size_t len = t.flen[c_uri];
        urisan_uri u;
        urisan_parse(in, len, NULL, &u, NULL);
        bool want_valid = field_is(&t, c_exp, "valid");
        bool ok = (u.valid != 0) == want_valid;
        sbuf d;
        sb_reset(&d);
        if (!ok)
            sb_fmt(&d, "uriparser: %s; ", want_valid ? "valid" : "invalid");
        if (ok && !want_valid && t.flen[c_off] > 0) {
            size_t want = strtoul(t.f[c_off], NULL, 10);
            if (u.error.offset != want) {
                ok = false;
                sb_fmt(&d, "uriparser: error at %zu; ", want);
            }
        }
        /* uriparser's hostText/absolutePath/pathTail facts, in RFC terms */
        bool v;
        const char *facts = t.f[c_facts];
        size_t fn = t.flen[c_facts];
        if (fact(facts, fn, "host_set", &v) && v != urisan_span_present(u.host)) {
            ok = false;
            sb_fmt(&d, "uriparser: host_set=%d; ", v);
        }
        bool slash = u.path.len > 0 && in[u.path.off] == '/';
        bool abs_path = !urisan_span_present(u.host) && slash;
        if (fact(facts, fn, "absolute_path", &v) && v != abs_path) {
            ok = false;
            sb_fmt(&d, "uriparser: absolute_path=%d; ", v);
        }
        /* a path ending in "/" has an empty last segment, except the
           lone "/" of an absolute path without host (no segment at all) */
        bool tail = u.path.len > 0 && in[u.path.off + u.path.len - 1] == '/' &&
                    !(abs_path && u.path.len == 1);
        if (fact(facts, fn, "empty_tail_segment", &v) && v != tail) {
            ok = false;
            sb_fmt(&d, "uriparser: empty_tail_segment=%d; ", v);
        }
        describe(&d, in, &u);
        sb_put(&d, "", 1);
        judge(&ty, parse_diffs, NKNOWN(parse_diffs), t.lineno, in, len, ok, d.b);
    }
    tsv_close(&t);
    check_all_hit(&ty, parse_diffs, NKNOWN(parse_diffs), "difference");
    check_bugs_hit(&ty);
    report(&ty);
    ck_assert_msg(ty.fail == 0, "%u unexplained disagreements in %s", ty.fail, ty.file);
}
END_TEST

/* ------------------------------------------------------------------ */
/* uriparser-wellformed.tsv                                            */
/* ------------------------------------------------------------------ */

/*
 * Build a URI around the component text and tell whether urisan reads a
 * valid URI whose component is exactly that text (and of the right kind).
 */
static bool wellformed(const char *comp, const char *text, size_t n, bool has_host, sbuf *d)
{
    sbuf s;
    sb_reset(&s);
    urisan_uri u;
    bool ok;
    if (strcmp(comp, "Scheme") == 0) {
        sb_put(&s, text, n);
        sb_str(&s, ":");
        parse_buf(&s, &u);
        ok = u.valid && span_is(s.b, u.scheme, text, n);
    } else if (strcmp(comp, "UserInfo") == 0) {
        sb_str(&s, "//");
        sb_put(&s, text, n);
        sb_str(&s, "@h");
        parse_buf(&s, &u);
        ok = u.valid && span_is(s.b, u.userinfo, text, n);
    } else if (strcmp(comp, "HostIp4") == 0) {
        sb_str(&s, "//");
        sb_put(&s, text, n);
        parse_buf(&s, &u);
        ok = u.valid && u.host_type == URISAN_HOST_IPV4 && span_is(s.b, u.host, text, n);
    } else if (strcmp(comp, "HostIp6") == 0 || strcmp(comp, "HostIpFuture") == 0) {
        sb_str(&s, "//[");
        sb_put(&s, text, n);
        sb_str(&s, "]");
        parse_buf(&s, &u);
        urisan_host_type want =
            comp[6] == '6' ? URISAN_HOST_IPV6 : URISAN_HOST_IPVFUTURE;
        ok = u.valid && u.host_type == want && span_is(s.b, u.host, s.b + 2, n + 2);
    } else if (strcmp(comp, "HostRegName") == 0) {
        sb_str(&s, "//");
        sb_put(&s, text, n);
        parse_buf(&s, &u);
        /* an IPv4address is also a reg-name by syntax (RFC 3986 3.2.2) */
        ok = u.valid && span_is(s.b, u.host, text, n) &&
             (u.host_type == URISAN_HOST_REG_NAME || u.host_type == URISAN_HOST_EMPTY ||
              u.host_type == URISAN_HOST_IPV4);
    } else if (strcmp(comp, "Port") == 0) {
        sb_str(&s, "//h:");
        sb_put(&s, text, n);
        parse_buf(&s, &u);
        ok = u.valid && span_is(s.b, u.port, text, n);
    } else if (strcmp(comp, "Path") == 0) {
        sb_str(&s, has_host ? "s://h" : "s:");
        sb_put(&s, text, n);
        parse_buf(&s, &u);
        ok = u.valid && span_is(s.b, u.path, text, n) &&
             urisan_span_present(u.host) == has_host;
    } else if (strcmp(comp, "Query") == 0) {
        sb_str(&s, "?");
        sb_put(&s, text, n);
        parse_buf(&s, &u);
        ok = u.valid && span_is(s.b, u.query, text, n);
    } else if (strcmp(comp, "Fragment") == 0) {
        sb_str(&s, "#");
        sb_put(&s, text, n);
        parse_buf(&s, &u);
        ok = u.valid && span_is(s.b, u.fragment, text, n);
    } else {
        sb_fmt(d, "unknown component %s", comp);
        return false;
    }
    sb_str(d, "as \"");
    sb_put(d, s.b, s.n);
    sb_str(d, "\": ");
    describe(d, s.b, &u);
    sb_str(d, "; ");
    return ok;
}

START_TEST(uriparser_wellformed_components_agree_when_built_into_a_uri)
{
    tsv_file t;
    if (!tsv_open(&t, "uriparser-wellformed.tsv"))
        return;
    tally ty = {"uriparser-wellformed.tsv", 0, 0, 0, 0, 0};
    int c_comp = tsv_col(&t, "component"), c_text = tsv_col(&t, "text"),
        c_host = tsv_col(&t, "has_host"), c_exp = tsv_col(&t, "expect");
    ck_assert(c_comp >= 0 && c_text >= 0 && c_host >= 0 && c_exp >= 0);
    while (tsv_next(&t)) {
        char comp[32];
        snprintf(comp, sizeof comp, "%.*s", (int)t.flen[c_comp], t.f[c_comp]);
        bool want = field_is(&t, c_exp, "valid");
        sbuf d;
        sb_reset(&d);
        sb_fmt(&d, "uriparser: %s; ", want ? "valid" : "invalid");
        bool ok;
        if (field_is(&t, c_host, "any"))
            ok = wellformed(comp, t.f[c_text], t.flen[c_text], true, &d) == want &&
                 wellformed(comp, t.f[c_text], t.flen[c_text], false, &d) == want;
        else
            ok = wellformed(comp, t.f[c_text], t.flen[c_text], field_is(&t, c_host, "true"),
                            &d) == want;
        sb_put(&d, "", 1);
        sbuf key;
        sb_reset(&key);
        sb_put(&key, t.f[c_comp], t.flen[c_comp]);
        sb_str(&key, "|");
        sb_put(&key, t.f[c_host], t.flen[c_host]);
        sb_str(&key, "|");
        sb_put(&key, t.f[c_text], t.flen[c_text]);
        judge(&ty, wf_diffs, NKNOWN(wf_diffs), t.lineno, key.b, key.n, ok, d.b);
    }
    tsv_close(&t);
    check_all_hit(&ty, wf_diffs, NKNOWN(wf_diffs), "difference");
    check_bugs_hit(&ty);
    report(&ty);
    ck_assert_msg(ty.fail == 0, "%u unexplained disagreements in %s", ty.fail, ty.file);
}
END_TEST

/* ------------------------------------------------------------------ */
/* uriparser-ip.tsv                                                    */
/* ------------------------------------------------------------------ */

START_TEST(uriparser_ip_literals_are_typed_and_decoded_like_inet_pton)
{
    tsv_file t;
    if (!tsv_open(&t, "uriparser-ip.tsv"))
        return;
    tally ty = {"uriparser-ip.tsv", 0, 0, 0, 0, 0};
    int c_kind = tsv_col(&t, "kind"), c_text = tsv_col(&t, "text"),
        c_exp = tsv_col(&t, "expect");
    ck_assert(c_kind >= 0 && c_text >= 0 && c_exp >= 0);
    while (tsv_next(&t)) {
        bool v4 = field_is(&t, c_kind, "ipv4");
        bool want = field_is(&t, c_exp, "valid");
        const char *text = t.f[c_text];
        size_t n = t.flen[c_text];
        sbuf s, d;
        sb_reset(&s);
        sb_reset(&d);
        sb_str(&s, v4 ? "//" : "//[");
        sb_put(&s, text, n);
        if (!v4)
            sb_str(&s, "]");
        urisan_uri u;
        parse_buf(&s, &u);
        bool got;
        if (v4) /* strict dotted-decimal: host type ipv4, else a reg-name */
            got = u.host_type == URISAN_HOST_IPV4;
        else
            got = u.valid && u.host_type == URISAN_HOST_IPV6;
        bool ok = got == want;
        sb_fmt(&d, "uriparser: %s; as \"%.*s\": ", want ? "valid" : "invalid", (int)s.n, s.b);
        describe(&d, s.b, &u);
        if (ok && got) {
            /* the decoded address equals the libc reading of the text */
            char z[64];
            unsigned char a[16];
            snprintf(z, sizeof z, "%.*s", (int)n, text);
            if (inet_pton(v4 ? AF_INET : AF_INET6, z, a) != 1 ||
                memcmp(a, u.ip, v4 ? 4 : 16) != 0) {
                ok = false;
                sb_str(&d, "; decoded address differs from inet_pton");
            }
        }
        sb_put(&d, "", 1);
        sbuf key;
        sb_reset(&key);
        sb_put(&key, t.f[c_kind], t.flen[c_kind]);
        sb_str(&key, "|");
        sb_put(&key, text, n);
        judge(&ty, ip_diffs, NKNOWN(ip_diffs), t.lineno, key.b, key.n, ok, d.b);
    }
    tsv_close(&t);
    check_all_hit(&ty, ip_diffs, NKNOWN(ip_diffs), "difference");
    check_bugs_hit(&ty);
    report(&ty);
    ck_assert_msg(ty.fail == 0, "%u unexplained disagreements in %s", ty.fail, ty.file);
}
END_TEST

/* ------------------------------------------------------------------ */
/* go-url-parse.tsv                                                    */
/* ------------------------------------------------------------------ */

/* Compare one Go field with our (decoded or raw) text. */
static bool go_field(sbuf *d, const char *what, const char *want, size_t wn, const char *got,
                     size_t gn)
{
    if (wn == gn && memcmp(want, got, gn) == 0)
        return true;
    sb_fmt(d, "Go %s \"%.*s\" vs ours \"%.*s\"; ", what, (int)wn, want, (int)gn, got);
    return false;
}

START_TEST(go_url_parse_agrees_on_validity_and_raw_components)
{
    tsv_file t;
    if (!tsv_open(&t, "go-url-parse.tsv"))
        return;
    tally ty = {"go-url-parse.tsv", 0, 0, 0, 0, 0};
    int c_in = tsv_col(&t, "input"), c_exp = tsv_col(&t, "expect"),
        c_scheme = tsv_col(&t, "scheme"), c_opaque = tsv_col(&t, "opaque"),
        c_user = tsv_col(&t, "user"), c_pass = tsv_col(&t, "password"),
        c_host = tsv_col(&t, "host"), c_path = tsv_col(&t, "path"),
        c_rawpath = tsv_col(&t, "rawpath"), c_force = tsv_col(&t, "forcequery"),
        c_rawq = tsv_col(&t, "rawquery"), c_frag = tsv_col(&t, "fragment"),
        c_rawfrag = tsv_col(&t, "rawfragment"), c_test = tsv_col(&t, "test");
    ck_assert(c_in >= 0 && c_exp >= 0 && c_rawfrag >= 0 && c_test >= 0);
    while (tsv_next(&t)) {
        const char *in = t.f[c_in];
        size_t len = t.flen[c_in];
        urisan_uri u;
        urisan_parse(in, len, NULL, &u, NULL);
        bool want_ok = field_is(&t, c_exp, "ok");
        sbuf d, x;
        sb_reset(&d);
        bool ok = (u.valid != 0) == want_ok;
        if (!ok)
            sb_fmt(&d, "Go: %s; ", want_ok ? "ok" : "error");
        /* Only urltests rows give components. */
        if (want_ok && field_is(&t, c_test, "urltests")) {
            /* scheme: Go lower-cases it */
            const char *sp = urisan_span_present(u.scheme) ? in + u.scheme.off : "";
            size_t sn = urisan_span_present(u.scheme) ? u.scheme.len : 0;
            if (!ieq(t.f[c_scheme], t.flen[c_scheme], sp, sn)) {
                ok = false;
                sb_fmt(&d, "Go scheme \"%.*s\"; ", (int)t.flen[c_scheme], t.f[c_scheme]);
            }
            /* user and password: decoded, split at the first ":" */
            const char *ui = urisan_span_present(u.userinfo) ? in + u.userinfo.off : "";
            size_t un = urisan_span_present(u.userinfo) ? u.userinfo.len : 0;
            const char *colon = memchr(ui, ':', un);
            size_t userlen = colon ? (size_t)(colon - ui) : un;
            pct_decode(&x, ui, userlen);
            ok &= go_field(&d, "user", t.f[c_user], t.flen[c_user], x.b, x.n);
            if (colon)
                pct_decode(&x, colon + 1, un - userlen - 1);
            else
                sb_reset(&x), sb_str(&x, t.flen[c_user] ? "<nil>" : "");
            ok &= go_field(&d, "password", t.f[c_pass], t.flen[c_pass], x.b, x.n);
            /* host: Go's Host is host[:port], decoded */
            sbuf hp;
            sb_reset(&hp);
            if (urisan_span_present(u.host))
                sb_put(&hp, in + u.host.off, u.host.len);
            if (urisan_span_present(u.port)) {
                sb_str(&hp, ":");
                sb_put(&hp, in + u.port.off, u.port.len);
            }
            pct_decode(&x, hp.b, hp.n);
            ok &= go_field(&d, "host", t.f[c_host], t.flen[c_host], x.b, x.n);
            /* path: Go's Opaque is a rootless path, raw; Path is decoded;
               RawPath is given where the encoding is not the default */
            if (t.flen[c_opaque]) {
                ok &= go_field(&d, "opaque", t.f[c_opaque], t.flen[c_opaque], in + u.path.off,
                               u.path.len);
            } else {
                pct_decode(&x, in + u.path.off, u.path.len);
                ok &= go_field(&d, "path", t.f[c_path], t.flen[c_path], x.b, x.n);
                if (t.flen[c_rawpath])
                    ok &= go_field(&d, "rawpath", t.f[c_rawpath], t.flen[c_rawpath],
                                   in + u.path.off, u.path.len);
            }
            /* query: raw; present when non-empty or ForceQuery */
            bool qwant = t.flen[c_rawq] > 0 || field_is(&t, c_force, "true");
            if (qwant != urisan_span_present(u.query)) {
                ok = false;
                sb_fmt(&d, "Go query %s; ", qwant ? "present" : "absent");
            } else if (qwant) {
                ok &= go_field(&d, "rawquery", t.f[c_rawq], t.flen[c_rawq], in + u.query.off,
                               u.query.len);
            }
            /* fragment: decoded; RawFragment where the encoding differs */
            const char *fp = urisan_span_present(u.fragment) ? in + u.fragment.off : "";
            size_t fn = urisan_span_present(u.fragment) ? u.fragment.len : 0;
            pct_decode(&x, fp, fn);
            ok &= go_field(&d, "fragment", t.f[c_frag], t.flen[c_frag], x.b, x.n);
            if (t.flen[c_rawfrag])
                ok &= go_field(&d, "rawfragment", t.f[c_rawfrag], t.flen[c_rawfrag], fp, fn);
        }
        describe(&d, in, &u);
        sb_put(&d, "", 1);
        judge(&ty, go_diffs, NKNOWN(go_diffs), t.lineno, in, len, ok, d.b);
    }
    tsv_close(&t);
    check_all_hit(&ty, go_diffs, NKNOWN(go_diffs), "difference");
    check_bugs_hit(&ty);
    report(&ty);
    ck_assert_msg(ty.fail == 0, "%u unexplained disagreements in %s", ty.fail, ty.file);
}
END_TEST

/* ------------------------------------------------------------------ */
/* curl-1560.tsv                                                       */
/* ------------------------------------------------------------------ */

/*
 * Rows skipped by rule: they test curl behaviour that is not RFC 3986
 * parsing. Checked in order; the first rule that matches counts the row.
 */
typedef struct {
    const char *column; /* "urlflags", "getflags" or "expected_code" */
    const char *value;  /* exact value */
    const char *reason;
    unsigned hits;
} skip_rule;

static skip_rule curl_skips[] = {
    {"urlflags", "CURLU_GUESS_SCHEME", "curl guesses a scheme for scheme-less input "
     "(\"example.com\" -> http://): not an RFC 3986 reading", 0},
    {"urlflags", "CURLU_DEFAULT_SCHEME", "curl adds https:// to scheme-less input", 0},
    {"urlflags", "CURLU_DEFAULT_SCHEME|CURLU_GUESS_SCHEME", "as the two above", 0},
    {"urlflags", "CURLU_URLENCODE", "curl percent-encodes the input before parsing", 0},
    {"urlflags", "CURLU_URLENCODE|CURLU_ALLOW_SPACE", "curl accepts and re-encodes spaces", 0},
    {"urlflags", "CURLU_ALLOW_SPACE|CURLU_URLENCODE", "curl accepts and re-encodes spaces", 0},
    {"urlflags", "CURLU_ALLOW_SPACE", "curl accepts raw spaces, RFC 3986 does not (2.1)", 0},
    {"urlflags", "CURLU_NON_SUPPORT_SCHEME|CURLU_ALLOW_SPACE", "curl accepts raw spaces", 0},
    {"urlflags", "CURLU_NON_SUPPORT_SCHEME|CURLU_NO_AUTHORITY",
     "curl's NO_AUTHORITY reading of \"scheme://\" (no host required)", 0},
    {"urlflags", "CURLU_DISALLOW_USER", "curl policy flag: rejects any userinfo", 0},
    {"getflags", "CURLU_PUNYCODE", "curl prints the host converted to punycode (IDNA)", 0},
    {"getflags", "CURLU_PUNY2IDN", "curl prints the host converted from punycode (IDNA)", 0},
    {"getflags", "CURLU_URLDECODE", "curl prints percent-decoded parts", 0},
    {"getflags", "CURLU_URLENCODE", "curl prints re-encoded parts", 0},
    {"expected_code", "CURLUE_UNSUPPORTED_SCHEME",
     "curl rejects schemes it does not implement; RFC 3986 has no scheme list", 0},
};

/* urlflags that leave the parsing as it is. */
static bool curl_flags_compared(const tsv_file *t, int c_flags)
{
    return field_is(t, c_flags, "0") || field_is(t, c_flags, "CURLU_NON_SUPPORT_SCHEME") ||
           field_is(t, c_flags, "CURLU_PATH_AS_IS");
}

/* getflags that only change how parts are printed (handled below). */
static bool curl_getflags_compared(const tsv_file *t, int c_get)
{
    return field_is(t, c_get, "0") || field_is(t, c_get, "CURLU_GET_EMPTY") ||
           field_is(t, c_get, "CURLU_DEFAULT_PORT") ||
           field_is(t, c_get, "CURLU_NO_DEFAULT_PORT");
}

/* Split "a | b | c" (curl's get_parts output) into at most 9 fields. */
static size_t curl_parts(const char *s, size_t n, const char **f, size_t *fl)
{
    size_t nf = 0, start = 0;
    for (size_t i = 0; i <= n && nf < 9; i++) {
        if (i == n || (i + 3 <= n && memcmp(s + i, " | ", 3) == 0)) {
            f[nf] = s + start;
            fl[nf] = i - start;
            nf++;
            start = i + 3;
            i += 2;
        }
    }
    return nf;
}

/* Text of a span, or "" (length 0) when it is absent. */
static const char *span_text(const char *in, urisan_span s, size_t *n)
{
    *n = urisan_span_present(s) ? s.len : 0;
    return urisan_span_present(s) ? in + s.off : "";
}

static int scheme_default_port(const char *in, const urisan_uri *u)
{
    size_t n;
    const char *s = span_text(in, u->scheme, &n);
    return n ? urisan_default_port(s, n) : -1;
}

static bool curl_urloptions_scheme(const char *s, size_t n)
{
    static const char *const sch[] = {"imap", "imaps", "pop3", "pop3s", "smtp", "smtps"};
    for (size_t i = 0; i < sizeof sch / sizeof sch[0]; i++)
        if (ieq(s, n, sch[i], strlen(sch[i])))
            return true;
    return false;
}

/*
 * What curl's get_parts would print for our split, where curl does not
 * normalise: the nine fields scheme, user, password, options, host, port,
 * path, query, fragment, with curl's "[NN]" for an absent part.
 */
static void curl_expected_parts(const char *in, const urisan_uri *u, bool get_empty,
                                bool no_default_port, sbuf *f)
{
    size_t sn;
    const char *sp = span_text(in, u->scheme, &sn);
    sb_reset(f);
    sb_put(f, sp, sn);
    for (size_t i = 0; i < f->n; i++)
        if (f->b[i] >= 'A' && f->b[i] <= 'Z')
            f->b[i] = (char)(f->b[i] | 0x20);
    sb_str(f, " | ");
    if (urisan_span_present(u->userinfo)) {
        const char *ui = in + u->userinfo.off;
        size_t un = u->userinfo.len, on = 0;
        const char *opt = NULL;
        if (curl_urloptions_scheme(sp, sn)) {
            opt = memchr(ui, ';', un);
            if (opt) {
                on = un - (size_t)(opt - ui) - 1;
                un = (size_t)(opt - ui);
                opt++;
            }
        }
        const char *colon = memchr(ui, ':', un);
        size_t usern = colon ? (size_t)(colon - ui) : un;
        sb_put(f, ui, usern);
        sb_str(f, " | ");
        if (colon)
            sb_put(f, colon + 1, un - usern - 1);
        else
            sb_str(f, "[12]");
        sb_str(f, " | ");
        if (opt)
            sb_put(f, opt, on);
        else
            sb_str(f, "[13]");
    } else {
        sb_str(f, "[11] | [12] | [13]");
    }
    sb_str(f, " | ");
    bool file = ieq(sp, sn, "file", 4);
    if (!urisan_span_present(u->host) || (file && u->host.len == 0)) {
        sb_str(f, "[14]");
    } else if (u->host_type == URISAN_HOST_IPV6_ZONE) {
        /* curl prints the zone id apart: "[fe80::1] eth0" */
        size_t addr = u->zone.off - 3 - u->host.off; /* up to "%25" */
        sb_put(f, in + u->host.off, addr);
        sb_str(f, "] ");
        sb_put(f, in + u->zone.off, u->zone.len);
    } else {
        sb_put(f, in + u->host.off, u->host.len);
    }
    sb_str(f, " | ");
    if (u->port_value != URISAN_NO_PORT &&
        !(no_default_port && (int)u->port_value == scheme_default_port(in, u)))
        sb_fmt(f, "%u", (unsigned)u->port_value);
    else
        sb_str(f, "[15]");
    sb_str(f, " | ");
    if (u->path.len == 0 && urisan_span_present(u->host))
        sb_str(f, "/");
    else if (urisan_span_present(u->path)) /* absent after too_long */
        sb_put(f, in + u->path.off, u->path.len);
    sb_str(f, " | ");
    if (urisan_span_present(u->query) && (u->query.len > 0 || get_empty))
        sb_put(f, in + u->query.off, u->query.len);
    else
        sb_str(f, "[16]");
    sb_str(f, " | ");
    if (urisan_span_present(u->fragment) && (u->fragment.len > 0 || get_empty))
        sb_put(f, in + u->fragment.off, u->fragment.len);
    else
        sb_str(f, "[17]");
}

/* What curl's get_url would print for our split, where curl does not
   normalise. */
static void curl_expected_url(const char *in, const urisan_uri *u, bool get_empty,
                              bool no_default_port, sbuf *f)
{
    sb_reset(f);
    if (urisan_span_present(u->scheme)) {
        size_t s = f->n;
        sb_put(f, in + u->scheme.off, u->scheme.len);
        for (size_t i = s; i < f->n; i++)
            if (f->b[i] >= 'A' && f->b[i] <= 'Z')
                f->b[i] = (char)(f->b[i] | 0x20);
        sb_str(f, ":");
    }
    if (urisan_span_present(u->host)) {
        sb_str(f, "//");
        if (urisan_span_present(u->userinfo)) {
            sb_put(f, in + u->userinfo.off, u->userinfo.len);
            sb_str(f, "@");
        }
        sb_put(f, in + u->host.off, u->host.len);
        if (u->port_value != URISAN_NO_PORT &&
            !(no_default_port && (int)u->port_value == scheme_default_port(in, u)))
            sb_fmt(f, ":%u", (unsigned)u->port_value);
    }
    if (u->path.len == 0 && urisan_span_present(u->host))
        sb_str(f, "/");
    else if (urisan_span_present(u->path)) /* absent after too_long */
        sb_put(f, in + u->path.off, u->path.len);
    if (urisan_span_present(u->query) && (u->query.len > 0 || get_empty)) {
        sb_str(f, "?");
        sb_put(f, in + u->query.off, u->query.len);
    }
    if (urisan_span_present(u->fragment) && (u->fragment.len > 0 || get_empty)) {
        sb_str(f, "#");
        sb_put(f, in + u->fragment.off, u->fragment.len);
    }
}

START_TEST(curl_1560_agrees_where_curl_follows_rfc3986)
{
    tsv_file t;
    if (!tsv_open(&t, "curl-1560.tsv"))
        return;
    tally ty = {"curl-1560.tsv", 0, 0, 0, 0, 0};
    int c_table = tsv_col(&t, "table"), c_in = tsv_col(&t, "input"),
        c_flags = tsv_col(&t, "urlflags"), c_get = tsv_col(&t, "getflags"),
        c_code = tsv_col(&t, "expected_code"), c_out = tsv_col(&t, "expected_output");
    ck_assert(c_table >= 0 && c_in >= 0 && c_flags >= 0 && c_get >= 0 && c_code >= 0 &&
              c_out >= 0);
    while (tsv_next(&t)) {
        const char *in = t.f[c_in];
        size_t len = t.flen[c_in];
        skip_rule *sk = NULL;
        for (size_t i = 0; i < sizeof curl_skips / sizeof curl_skips[0] && !sk; i++) {
            int col = tsv_col(&t, curl_skips[i].column);
            if (field_is(&t, col, curl_skips[i].value))
                sk = &curl_skips[i];
        }
        if (!sk && !(curl_flags_compared(&t, c_flags) && curl_getflags_compared(&t, c_get))) {
            printf("curl-1560.tsv:%zu: flags %.*s/%.*s have no rule\n", t.lineno,
                   (int)t.flen[c_flags], t.f[c_flags], (int)t.flen[c_get], t.f[c_get]);
            ty.fail++;
            continue;
        }
        if (sk) {
            sk->hits++;
            ty.skipped++;
            continue;
        }
        urisan_uri u;
        urisan_parse(in, len, NULL, &u, NULL);
        bool want_ok = field_is(&t, c_code, "CURLUE_OK");
        bool get_empty = field_is(&t, c_get, "CURLU_GET_EMPTY");
        bool no_default_port = field_is(&t, c_get, "CURLU_NO_DEFAULT_PORT");
        sbuf d, f;
        sb_reset(&d);
        bool ok = (u.valid != 0) == want_ok;
        if (!ok)
            sb_fmt(&d, "curl: %.*s; ", (int)t.flen[c_code], t.f[c_code]);
        if (want_ok) {
            if (field_is(&t, c_table, "get_parts"))
                curl_expected_parts(in, &u, get_empty, no_default_port, &f);
            else
                curl_expected_url(in, &u, get_empty, no_default_port, &f);
            const char *want = t.f[c_out];
            size_t wn = t.flen[c_out];
            if (field_is(&t, c_get, "CURLU_DEFAULT_PORT")) {
                /* curl fills in the default port: compare the rest */
                const char *wf[9], *gf[9];
                size_t wl[9], gl[9];
                size_t nw = curl_parts(want, wn, wf, wl), ng = curl_parts(f.b, f.n, gf, gl);
                bool same = nw == 9 && ng == 9;
                for (size_t k = 0; same && k < 9; k++)
                    if (k != 5 && (wl[k] != gl[k] || memcmp(wf[k], gf[k], wl[k]) != 0))
                        same = false;
                if (!same) {
                    ok = false;
                    sb_fmt(&d, "curl parts \"%.*s\" vs ours \"%.*s\"; ", (int)wn, want,
                           (int)f.n, f.b);
                }
            } else if (f.n != wn || memcmp(f.b, want, wn) != 0) {
                ok = false;
                sb_fmt(&d, "curl \"%.*s\" vs ours \"%.*s\"; ", (int)wn, want, (int)f.n, f.b);
            }
        }
        describe(&d, in, &u);
        sb_put(&d, "", 1);
        sbuf key;
        sb_reset(&key);
        sb_put(&key, in, len);
        if (!field_is(&t, c_flags, "0") || !field_is(&t, c_get, "0"))
            sb_fmt(&key, " [%.*s/%.*s]", (int)t.flen[c_flags], t.f[c_flags],
                   (int)t.flen[c_get], t.f[c_get]);
        judge(&ty, curl_diffs, NKNOWN(curl_diffs), t.lineno, key.b, key.n, ok, d.b);
    }
    tsv_close(&t);
    for (size_t i = 0; i < sizeof curl_skips / sizeof curl_skips[0]; i++)
        printf("curl-1560.tsv: skipped %u rows: %s=%s: %s\n", curl_skips[i].hits,
               curl_skips[i].column, curl_skips[i].value, curl_skips[i].reason);
    check_all_hit(&ty, curl_diffs, NKNOWN(curl_diffs), "difference");
    check_bugs_hit(&ty);
    report(&ty);
    ck_assert_msg(ty.fail == 0, "%u unexplained disagreements in %s", ty.fail, ty.file);
}
END_TEST

int main(void)
{
    if (testdata_skip())
        return 77;
    Suite *s = suite_create("vectors");
    TCase *tc = testdata_tcase(s, "conformance");
    tcase_add_test(tc, uriparser_parse_vectors_agree_on_validity_error_offset_and_facts);
    tcase_add_test(tc, uriparser_wellformed_components_agree_when_built_into_a_uri);
    tcase_add_test(tc, uriparser_ip_literals_are_typed_and_decoded_like_inet_pton);
    tcase_add_test(tc, go_url_parse_agrees_on_validity_and_raw_components);
    tcase_add_test(tc, curl_1560_agrees_where_curl_follows_rfc3986);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
