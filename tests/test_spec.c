/*
 * test_spec.c - runs tests/spec/NAME.md, the case files that read as
 * urisan's specification (format: tests/spec/README.md). Usage: test_spec SPEC-DIR.
 *
 * A case line is
 *     - `INPUT` → EXPECTATION...
 * and every expectation is checked: the parse status and error offset
 * (`valid`, `bad_host@3`), the seven components and the host type, flags
 * that must be set (+name) or clear (-name) or the exact set (flags=a,b,
 * with ~name for a flag it leaves open), the address text (ip=), the
 * default policy's verdict. Each input lies flush against a PROT_NONE
 * page (guard.h). Every flag case also keeps the flag implications
 * (doc/policy.md).
 *
 * The reader fails closed: a line that is not prose and not a well-formed
 * case, an unknown flag, status or host type, a file without cases, a
 * folder without files: each stops the run with file:line and the text.
 */
#include <check.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flag_implications.h"
#include "guard.h"
#include "urisan.h"

#define ARROW "\xe2\x86\x92" /* U+2192 RIGHTWARDS ARROW */
#define NPARTS 7

static const char *const part_names[NPARTS] = {"scheme", "userinfo", "host", "port",
                                               "path",   "query",    "fragment"};

typedef struct {
    char *bytes; /* decoded, malloc'd (never NULL) */
    size_t len;
    bool present;
} spec_str;

typedef struct {
    const char *file;
    size_t line;
    char *text; /* the line as written, for messages */
    spec_str in;
    int status; /* -1: not asserted */
    size_t offset;
    bool has_parts;
    spec_str part[NPARTS];
    int host_type; /* -1: not asserted */
    urisan_flags set, clear, exact, either;
    bool has_exact;
    char ip[48]; /* "": not asserted; "none": no address */
    int verdict; /* -1: not asserted */
} spec_case;

typedef struct {
    spec_case *v;
    size_t n, cap;
} spec_list;

/* A reader's complaint: where and what. */
typedef struct {
    size_t line;
    char msg[160];
    char text[200];
} spec_err;

static spec_list cases;
static char **paths; /* the files' names, which cases point into */
static size_t npaths;

static bool bad(spec_err *e, size_t line, const char *msg, const char *text, size_t n)
{
    e->line = line;
    snprintf(e->msg, sizeof e->msg, "%s", msg);
    snprintf(e->text, sizeof e->text, "%.*s", (int)(n > 190 ? 190 : n), text);
    return false;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Length of the UTF-8 sequence at s[0..n) (1-4), or 0 when invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t k = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (k == 0 || k > n)
        return 0;
    for (size_t i = 1; i < k; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((k == 3 && s[0] == 0xe0 && s[1] < 0xa0) || (k == 4 && s[0] == 0xf0 && s[1] < 0x90) ||
        (k == 4 && s[0] == 0xf4 && s[1] > 0x8f) || (k == 3 && s[0] == 0xed && s[1] > 0x9f))
        return 0;
    return k;
}

/* Decode the quoted text q[0..n) (between backticks): \xNN is byte NN,
   every other byte stands for itself; a raw control byte or invalid UTF-8
   is a mistake (write it as \xNN). */
static bool decode(const char *q, size_t n, spec_str *out, const char **why)
{
    out->bytes = malloc(n + 1);
    out->len = 0;
    out->present = true;
    if (!out->bytes)
        abort();
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)q[i];
        if (c == '\\' && i + 3 < n && q[i + 1] == 'x' &&
            hexval(q[i + 2]) >= 0 && hexval(q[i + 3]) >= 0) {
            out->bytes[out->len++] = (char)(hexval(q[i + 2]) * 16 + hexval(q[i + 3]));
            i += 4;
        } else if (c < 0x20 || c == 0x7f) {
            *why = "raw control byte in quoted text (write it as \\xNN)";
            return false;
        } else if (c >= 0x80) {
            size_t k = utf8_len((const unsigned char *)q + i, n - i);
            if (k == 0) {
                *why = "invalid UTF-8 in quoted text (write the bytes as \\xNN)";
                return false;
            }
            memcpy(out->bytes + out->len, q + i, k);
            out->len += k, i += k;
        } else {
            out->bytes[out->len++] = (char)c;
            i++;
        }
    }
    out->bytes[out->len] = '\0';
    return true;
}

/* The backtick-quoted text starting at s[*i] (which must be '`'). */
static bool quoted(const char *s, size_t n, size_t *i, spec_str *out, const char **why)
{
    if (*i >= n || s[*i] != '`') {
        *why = "expected a `quoted` value";
        return false;
    }
    const char *end = memchr(s + *i + 1, '`', n - *i - 1);
    if (!end) {
        *why = "unterminated ` quote";
        return false;
    }
    size_t start = *i + 1, len = (size_t)(end - (s + start));
    *i = start + len + 1;
    return decode(s + start, len, out, why);
}

static int name_index(const char *w, size_t n, int count, const char *(*name)(int))
{
    for (int k = 0; k < count; k++) {
        const char *s = name(k);
        if (s && strlen(s) == n && memcmp(s, w, n) == 0)
            return k;
    }
    return -1;
}

static const char *status_name(int k) { return urisan_status_name((urisan_status)k); }
static const char *verdict_name(int k) { return urisan_verdict_name((urisan_verdict)k); }
static const char *type_name(int k)
{
    const char *s = urisan_host_type_name((urisan_host_type)k);
    return s ? s : "none";
}

/* flags=a,b,c or flags=none: the exact set. */
static bool exact_flags(const char *w, size_t n, spec_case *c, const char **why)
{
    if (c->has_exact)
        return *why = "flags= given twice", false;
    c->has_exact = true;
    c->exact = 0;
    if (n == 4 && memcmp(w, "none", 4) == 0)
        return true;
    for (size_t i = 0; i <= n;) {
        const char *comma = memchr(w + i, ',', n - i);
        size_t k = comma ? (size_t)(comma - (w + i)) : n - i;
        int b = urisan_flag_from_name(w + i, k);
        if (b < 0) {
            *why = "unknown flag name in flags=";
            return false;
        }
        c->exact |= (urisan_flags)1 << b;
        i += k + 1;
    }
    return true;
}

/* One word of the expectation: +flag, -flag, flags=..., valid, code@off,
   type=..., verdict=... (component values are read by expectation()). */
static bool word(const char *w, size_t n, spec_case *c, const char **why)
{
    const char *at = memchr(w, '@', n);
    if (n > 1 && (w[0] == '+' || w[0] == '-')) {
        int b = urisan_flag_from_name(w + 1, n - 1);
        if (b < 0)
            return *why = "unknown flag name", false;
        urisan_flags bit = (urisan_flags)1 << b;
        if ((w[0] == '+' ? c->clear : c->set) & bit)
            return *why = "flag both +set and -clear", false;
        *(w[0] == '+' ? &c->set : &c->clear) |= bit;
        return true;
    }
    if (n > 1 && w[0] == '~') {
        int b = urisan_flag_from_name(w + 1, n - 1);
        if (b < 0)
            return *why = "unknown flag name", false;
        c->either |= (urisan_flags)1 << b;
        return true;
    }
    if (n > 3 && memcmp(w, "ip=", 3) == 0) {
        if (c->ip[0] || n - 3 >= sizeof c->ip)
            return *why = "ip= given twice or too long", false;
        memcpy(c->ip, w + 3, n - 3);
        c->ip[n - 3] = '\0';
        return true;
    }
    if (n > 6 && memcmp(w, "flags=", 6) == 0)
        return exact_flags(w + 6, n - 6, c, why);
    if (n > 5 && memcmp(w, "type=", 5) == 0) {
        c->host_type = name_index(w + 5, n - 5, URISAN_HOST_INVALID + 1, type_name);
        return c->host_type >= 0 || (*why = "unknown host type", false);
    }
    if (n > 8 && memcmp(w, "verdict=", 8) == 0) {
        c->verdict = name_index(w + 8, n - 8, URISAN_DENY + 1, verdict_name);
        return c->verdict >= 0 || (*why = "unknown verdict", false);
    }
    if (c->status >= 0 && ((n == 5 && memcmp(w, "valid", 5) == 0) || at))
        return *why = "a second status word", false;
    if (n == 5 && memcmp(w, "valid", 5) == 0) {
        c->status = URISAN_OK;
        return true;
    }
    if (at && at + 1 < w + n) {
        c->status = name_index(w, (size_t)(at - w), URISAN_STATUS_COUNT_, status_name);
        char *end;
        char num[24];
        size_t k = (size_t)(w + n - at - 1);
        snprintf(num, sizeof num, "%.*s", (int)(k < 23 ? k : 23), at + 1);
        unsigned long long off = strtoull(num, &end, 10);
        if (c->status <= 0 || *end != '\0' || k > 20 || num[0] < '0' || num[0] > '9')
            return *why = "unknown status or bad offset (want name@offset)", false;
        c->offset = (size_t)off;
        return true;
    }
    return *why = "unknown expectation word", false;
}

static int part_index(const char *w, size_t n)
{
    for (int k = 0; k < NPARTS; k++)
        if (strlen(part_names[k]) == n && memcmp(part_names[k], w, n) == 0)
            return k;
    return -1;
}

/* Everything after the arrow: words separated by single spaces. */
static bool expectation(const char *s, size_t n, spec_case *c, const char **why)
{
    size_t i = 0, words = 0;
    while (i < n) {
        if (s[i] == ' ') {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && s[j] != ' ' && s[j] != '=' && s[j] != '`')
            j++;
        int p = part_index(s + i, j - i);
        if (p >= 0 && j < n && s[j] == '=') {
            if (c->part[p].present)
                return *why = "a component named twice", false;
            j++;
            if (!quoted(s, n, &j, &c->part[p], why))
                return false;
            c->has_parts = true;
        } else {
            while (j < n && s[j] != ' ')
                j++;
            if (!word(s + i, j - i, c, why))
                return false;
        }
        words++;
        i = j;
    }
    return words > 0 || (*why = "no expectation after the arrow", false);
}

static void free_str(spec_str *s)
{
    free(s->bytes);
    s->bytes = NULL;
}

static void free_case(spec_case *c)
{
    free_str(&c->in);
    for (int k = 0; k < NPARTS; k++)
        free_str(&c->part[k]);
    free(c->text);
    c->text = NULL;
}

static void free_cases(spec_list *l, size_t from)
{
    for (size_t i = from; i < l->n; i++)
        free_case(&l->v[i]);
    l->n = from;
}

static spec_case *new_case(spec_list *l)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v)
            abort();
    }
    spec_case *c = &l->v[l->n];
    memset(c, 0, sizeof *c);
    c->status = c->host_type = c->verdict = -1;
    return c;
}

/* A case line "- `INPUT` → EXPECTATION"; false (with why) if malformed. */
static bool case_line(const char *s, size_t n, spec_case *c, const char **why)
{
    size_t i = 2;
    if (!quoted(s, n, &i, &c->in, why))
        return false;
    static const char sep[] = " " ARROW " ";
    if (n - i < sizeof sep - 1 || memcmp(s + i, sep, sizeof sep - 1) != 0)
        return *why = "expected \" \xe2\x86\x92 \" after the input", false;
    i += sizeof sep - 1;
    if (!expectation(s + i, n - i, c, why))
        return false;
    if (c->either && (!c->has_exact || (c->either & c->exact)))
        return *why = "~flag is for a flag flags= leaves open (and only with flags=)", false;
    return true;
}

static bool has_arrow(const char *s, size_t n)
{
    for (size_t i = 0; i + 3 <= n; i++)
        if (memcmp(s + i, ARROW, 3) == 0)
            return true;
    return false;
}

/* Read one file's text into l. Prose is any line that neither starts with
   "- `" nor holds an arrow; a file must hold at least one case. */
static bool read_spec(const char *file, const char *text, size_t len, spec_list *l,
                      spec_err *e)
{
    size_t before = l->n, line = 0;
    for (size_t i = 0; i < len; line++) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
        const char *s = text + i;
        i += n + 1;
        if (n >= 3 && memcmp(s, "- `", 3) == 0) {
            spec_case *c = new_case(l);
            const char *why = NULL;
            c->file = file;
            c->line = line + 1;
            if (!case_line(s, n, c, &why)) {
                free_case(c);
                return bad(e, line + 1, why, s, n);
            }
            c->text = strndup(s, n);
            l->n++;
        } else if (has_arrow(s, n)) {
            return bad(e, line + 1, "a line with an arrow that is no case (a case starts "
                                    "with \"- `\")", s, n);
        }
    }
    if (l->n == before)
        return bad(e, 0, "no cases in this file", "", 0);
    return true;
}

/* ---------------------------------------------------------------------- */
/* Checking one case                                                        */
/* ---------------------------------------------------------------------- */

#define WHERE "%s:%zu: %s: "
#define AT(c) (c)->file, (c)->line, (c)->text

static void check_status(const spec_case *c, const char *s, size_t len)
{
    urisan_uri u;
    urisan_error e;
    urisan_status st = urisan_parse(s, len, NULL, &u, &e);
    ck_assert_msg((int)st == c->status, WHERE "status %s, want %s", AT(c),
                  urisan_status_name(st), urisan_status_name((urisan_status)c->status));
    ck_assert_msg(u.valid == (c->status == URISAN_OK), WHERE "valid %d", AT(c), u.valid);
    ck_assert_msg(e.code == st && u.error.code == st, WHERE "error codes differ", AT(c));
    if (c->status != URISAN_OK)
        ck_assert_msg(e.offset == c->offset, WHERE "offset %zu, want %zu", AT(c), e.offset,
                      c->offset);
}

/* Named components must be as written; unnamed ones absent. */
static void check_parts(const spec_case *c, const char *s, size_t len)
{
    urisan_uri u;
    urisan_status st = urisan_parse(s, len, NULL, &u, NULL);
    ck_assert_msg(st != URISAN_E_TOO_LONG, WHERE "too long", AT(c));
    urisan_span sp[NPARTS] = {u.scheme, u.userinfo, u.host, u.port, u.path, u.query, u.fragment};
    for (int k = 0; k < NPARTS; k++) {
        const spec_str *w = &c->part[k];
        bool here = urisan_span_present(sp[k]);
        ck_assert_msg(here == w->present, WHERE "%s should be %s", AT(c), part_names[k],
                      w->present ? "present" : "absent");
        if (here)
            ck_assert_msg(sp[k].len == w->len && memcmp(s + sp[k].off, w->bytes, w->len) == 0,
                          WHERE "%s is \"%.*s\"", AT(c), part_names[k], (int)sp[k].len,
                          s + sp[k].off);
    }
}

static void check_type(const spec_case *c, const char *s, size_t len)
{
    urisan_uri u;
    urisan_parse(s, len, NULL, &u, NULL);
    ck_assert_msg((int)u.host_type == c->host_type, WHERE "host type %s", AT(c),
                  type_name((int)u.host_type));
}

static char *flag_list(urisan_flags f, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int b = 0; b < URISAN_FLAG_COUNT_ && o < cap; b++)
        if ((f >> b) & 1)
            o += (size_t)snprintf(buf + o, cap - o, "%s%s", o ? "," : "",
                                  urisan_flag_name((urisan_flag)b));
    return buf;
}

/* The de-obfuscated address as text (RFC 5952 for IPv6), or none. */
static void check_ip(const spec_case *c, const urisan_report *r)
{
    char buf[64];
    size_t n = 0;
    urisan_status st = urisan_format_ip(r, buf, sizeof buf, &n);
    if (strcmp(c->ip, "none") == 0) {
        ck_assert_msg(r->ip_family == 0, WHERE "an address (family %d)", AT(c), r->ip_family);
        return;
    }
    ck_assert_msg(st == URISAN_OK, WHERE "no address", AT(c));
    ck_assert_msg(n == strlen(c->ip) && memcmp(buf, c->ip, n) == 0, WHERE "ip %.*s", AT(c),
                  (int)n, buf);
}

/* The default policy's verdict; an initialised policy without a line
   decides as the NULL policy does. */
static void check_verdict(const spec_case *c, const char *s, size_t len, const urisan_decision *d)
{
    ck_assert_msg((int)d->verdict == c->verdict, WHERE "verdict %s", AT(c),
                  urisan_verdict_name(d->verdict));
    urisan_policy *p = malloc(urisan_policy_size());
    ck_assert_ptr_nonnull(p);
    urisan_policy_init(p);
    urisan_uri u;
    urisan_report r;
    urisan_decision d2;
    urisan_check(s, len, p, &u, &r, &d2);
    free(p);
    ck_assert_msg(d2.verdict == d->verdict && d2.deny_flags == d->deny_flags &&
                      d2.flag_flags == d->flag_flags && d2.rules == 0,
                  WHERE "an empty policy decides otherwise", AT(c));
}

/* urisan_check under the default policy: flags, implications, verdict. */
static void check_report(const spec_case *c, const char *s, size_t len)
{
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    char got[700];
    urisan_check(s, len, NULL, &u, &r, &d);
    ck_assert_msg(!!(r.flags & URISAN_F(INVALID)) == !u.valid, WHERE "invalid flag vs valid",
                  AT(c));
    check_implications(s, len, r.flags);
    ck_assert_msg((r.flags & c->set) == c->set && (r.flags & c->clear) == 0,
                  WHERE "got flags=%s", AT(c), flag_list(r.flags, got, sizeof got));
    if (c->has_exact)
        ck_assert_msg((r.flags & ~c->either) == c->exact, WHERE "got flags=%s", AT(c),
                      flag_list(r.flags, got, sizeof got));
    if (c->ip[0])
        check_ip(c, &r);
    if (c->verdict >= 0)
        check_verdict(c, s, len, &d);
}

START_TEST(each_spec_case_holds)
{
    const spec_case *c = &cases.v[_i];
    guard_buf g = {0};
    const char *s = guard_place(&g, c->in.bytes, c->in.len);
    ck_assert_ptr_nonnull(s);
    if (c->status >= 0)
        check_status(c, s, c->in.len);
    if (c->has_parts)
        check_parts(c, s, c->in.len);
    if (c->host_type >= 0)
        check_type(c, s, c->in.len);
    check_report(c, s, c->in.len);
    guard_free(&g);
}
END_TEST

/* Each flag (urisan(1), FLAGS) has at least three cases where it must be
   set and three where it must be clear (the flags only the command or the mail
   library can raise are tested there). */
START_TEST(every_flag_has_three_positive_and_three_negative_cases)
{
    for (int b = 0; b < URISAN_FLAG_COUNT_; b++) {
        if (urisan_flag_name((urisan_flag)b) == NULL)
            continue; /* a hole: no flag */
        if (b == URISAN_FLAG_TOO_LONG || b == URISAN_FLAG_LINK_TEXT_MISMATCH ||
            b == URISAN_FLAG_HOMOGRAPH || b == URISAN_FLAG_INVISIBLE_CHAR ||
            b == URISAN_FLAG_MAIL_LIMIT || b == URISAN_FLAG_HOST_UTS46 ||
            b == URISAN_FLAG_NESTED_DEEP || b == URISAN_FLAG_LOOKALIKE ||
            b == URISAN_FLAG_MIME_CONFLICT || b == URISAN_FLAG_NO_BASE ||
            b == URISAN_FLAG_USER_CONTENT || b == URISAN_FLAG_SHORTENER ||
            b == URISAN_FLAG_BRAND_MISPLACED)
            continue; /* too_long: test_flags.c; link_text_mismatch:
                         extraction; homograph, invisible_char, host_uts46,
                         lookalike: the host layer (homograph_eval.py,
                         impersonation_eval.py, test_imitation.c,
                         cli_test.py, hostview_test.py); mail_limit:
                         liburisan-mail (test_mail.c, hostile_mail_test.py);
                         nested_deep: the policy's walk of nested URLs
                         (test_nested.c); mime_conflict: liburisan-mail
                         (mail_attachments_test.py); no_base: liburisan-mail's
                         HTML links (mail_precision_test.py,
                         extract_mail_test.py); user_content, shortener,
                         brand_misplaced: a policy's lists and protected
                         names, which these cases' default policy has
                         none of (deceptive_hosts_test.py) */
        urisan_flags bit = (urisan_flags)1 << b;
        int pos = 0, neg = 0;
        for (size_t i = 0; i < cases.n; i++) {
            pos += !!(cases.v[i].set & bit);
            neg += !!(cases.v[i].clear & bit);
        }
        ck_assert_msg(pos >= 3 && neg >= 3, "%s: %d positive, %d negative",
                      urisan_flag_name((urisan_flag)b), pos, neg);
    }
}
END_TEST

/* ---------------------------------------------------------------------- */
/* The reader refuses what it cannot read, with line and text               */
/* ---------------------------------------------------------------------- */

static const struct {
    const char *text;
    size_t line;
    const char *msg;
} refused[] = {
    {"# heading\n\n- `a` \xe2\x86\x92 +nosuchflag\n", 3, "unknown flag name"},
    {"- `a` \xe2\x86\x92 flags=invalid,nosuch\n", 1, "unknown flag name in flags="},
    {"- `a` \xe2\x86\x92 +invalid -invalid\n", 1, "both"},
    {"- `a` \xe2\x86\x92 bad_hots@3\n", 1, "unknown status"},
    {"- `a` \xe2\x86\x92 bad_host@x\n", 1, "bad offset"},
    {"- `a` \xe2\x86\x92 bad_host@\n", 1, "unknown expectation"},
    {"- `a` \xe2\x86\x92 valid bad_host@1\n", 1, "second status"},
    {"- `a` \xe2\x86\x92 type=ipv7\n", 1, "unknown host type"},
    {"- `a` \xe2\x86\x92 verdict=maybe\n", 1, "unknown verdict"},
    {"- `a` \xe2\x86\x92 valid fine\n", 1, "unknown expectation word"},
    {"- `a` \xe2\x86\x92\n", 1, "expected"},
    {"- `a` \xe2\x86\x92 \n", 1, "no expectation"},
    {"- `a` -> valid\n", 1, "expected"},
    {"- `a \xe2\x86\x92 valid\n", 1, "unterminated"},
    {"- `a\tb` \xe2\x86\x92 valid\n", 1, "raw control byte"},
    {"- `a\xc3` \xe2\x86\x92 valid\n", 1, "invalid UTF-8"},
    {"- `a` \xe2\x86\x92 host=h\n", 1, "quoted"},
    {"- `a` \xe2\x86\x92 host=`h` host=`i`\n", 1, "twice"},
    {"- `a` \xe2\x86\x92 flags=none flags=invalid\n", 1, "twice"},
    {"- `a` \xe2\x86\x92 ip=1.2.3.4 ip=1.2.3.4\n", 1, "twice"},
    {"- `a` \xe2\x86\x92 +invalid ~idn\n", 1, "~flag"},
    {"- `a` \xe2\x86\x92 flags=idn ~idn\n", 1, "~flag"},
    {"- `a` \xe2\x86\x92 flags=none ~nosuch\n", 1, "unknown flag name"},
    {"- `a` \xe2\x86\x92 valid\n-`b` \xe2\x86\x92 valid\n", 2, "no case"},
    {"* `b` \xe2\x86\x92 valid\n", 1, "no case"},
    {"# only prose\n\nno cases here\n", 0, "no cases"},
    {"", 0, "no cases"},
};

START_TEST(reader_refuses_a_malformed_line_with_line_and_text)
{
    spec_list l = {0};
    spec_err e;
    const char *t = refused[_i].text;
    ck_assert_msg(!read_spec("self", t, strlen(t), &l, &e), "accepted: %s", t);
    ck_assert_msg(e.line == refused[_i].line, "%s: line %zu", t, e.line);
    ck_assert_msg(strstr(e.msg, refused[_i].msg) != NULL, "%s: message \"%s\"", t, e.msg);
    if (e.line > 0)
        ck_assert_msg(strstr(t, e.text) != NULL && e.text[0] != '\0', "text \"%s\"", e.text);
    free_cases(&l, 0);
    free(l.v);
}
END_TEST

START_TEST(reader_decodes_escapes_and_components)
{
    static const char t[] = "## x\n\nprose \n"
                            "- `a\\x00b\\x5c\\x60 \\x4` \xe2\x86\x92 bad_path@1 +ctl_raw\n"
                            "- `\xc3\xa9\\` \xe2\x86\x92 path=`` query=`q r` type=none "
                            "flags=none verdict=allow\n"
                            "- `//1` \xe2\x86\x92 flags=ip_literal ~single_label ip=0.0.0.1\n";
    spec_list l = {0};
    spec_err e;
    ck_assert_msg(read_spec("self", t, strlen(t), &l, &e), "%zu: %s", e.line, e.msg);
    ck_assert_uint_eq(l.n, 3);
    ck_assert_uint_eq(l.v[2].either, URISAN_F(SINGLE_LABEL));
    ck_assert_str_eq(l.v[2].ip, "0.0.0.1");
    ck_assert_uint_eq(l.v[0].in.len, 9);
    ck_assert(memcmp(l.v[0].in.bytes, "a\0b\\` \\x4", 9) == 0);
    ck_assert_int_eq(l.v[0].status, URISAN_E_BAD_PATH);
    ck_assert_uint_eq(l.v[0].offset, 1);
    ck_assert_uint_eq(l.v[0].set, URISAN_F(CTL_RAW));
    ck_assert_uint_eq(l.v[0].line, 4);
    ck_assert(memcmp(l.v[1].in.bytes, "\xc3\xa9\\", 3) == 0);
    ck_assert(l.v[1].has_parts && l.v[1].part[4].present && l.v[1].part[4].len == 0);
    ck_assert(!l.v[1].part[0].present);
    ck_assert_uint_eq(l.v[1].part[5].len, 3);
    ck_assert_int_eq(l.v[1].host_type, URISAN_HOST_NONE);
    ck_assert(l.v[1].has_exact && l.v[1].exact == 0);
    ck_assert_int_eq(l.v[1].verdict, URISAN_ALLOW);
    free_cases(&l, 0);
    free(l.v);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Loading the folder                                                      */
/* ---------------------------------------------------------------------- */

static int is_spec_file(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return n > 3 && strcmp(d->d_name + n - 3, ".md") == 0 && strcmp(d->d_name, "README.md") != 0;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0, k;
    do {
        if (n == cap && !(buf = realloc(buf, cap = cap ? 2 * cap : 65536)))
            abort();
        k = fread(buf + n, 1, cap - n, fp);
        n += k;
    } while (k > 0);
    fclose(fp);
    *len = n;
    return buf;
}

/* Every *.md of dir but README.md, in name order; false after saying why. */
static bool load_folder(const char *dir)
{
    struct dirent **names;
    int nf = scandir(dir, &names, is_spec_file, alphasort);
    if (nf <= 0) {
        fprintf(stderr, "%s: no spec files (*.md) found\n", dir);
        return false;
    }
    bool ok = true;
    for (int i = 0; i < nf; i++) {
        char *path = malloc(strlen(dir) + strlen(names[i]->d_name) + 2);
        if (!path || !(paths = realloc(paths, (npaths + 1) * sizeof *paths)))
            abort();
        paths[npaths++] = path;
        sprintf(path, "%s/%s", dir, names[i]->d_name);
        size_t len, before = cases.n;
        char *text = slurp(path, &len);
        spec_err e;
        if (!text) {
            fprintf(stderr, "%s: cannot read\n", path);
            ok = false;
        } else if (!read_spec(path, text, len, &cases, &e)) {
            if (e.line)
                fprintf(stderr, "%s:%zu: %s: %s\n", path, e.line, e.msg, e.text);
            else
                fprintf(stderr, "%s: %s\n", path, e.msg);
            ok = false;
        } else {
            printf("%s: %zu cases\n", path, cases.n - before);
        }
        free(text);
        free(names[i]);
    }
    free(names);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s SPEC-DIR\n", argv[0]);
        return EXIT_FAILURE;
    }
    if (!load_folder(argv[1]))
        return EXIT_FAILURE;
    printf("%zu cases in all\n", cases.n);
    Suite *s = suite_create("spec");
    TCase *t = tcase_create("cases");
    tcase_add_loop_test(t, each_spec_case_holds, 0, (int)cases.n);
    tcase_add_test(t, every_flag_has_three_positive_and_three_negative_cases);
    suite_add_tcase(s, t);
    t = tcase_create("reader");
    tcase_add_loop_test(t, reader_refuses_a_malformed_line_with_line_and_text, 0,
                        (int)(sizeof refused / sizeof refused[0]));
    tcase_add_test(t, reader_decodes_escapes_and_components);
    suite_add_tcase(s, t);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    free_cases(&cases, 0);
    free(cases.v);
    for (size_t i = 0; i < npaths; i++)
        free(paths[i]);
    free(paths);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
