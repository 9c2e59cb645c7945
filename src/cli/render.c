/*
 * render.c - library types as the command writes them (urisan(1)):
 * JSON values and text, appended to a buffer (usually the output line,
 * see out.h). No printf, no per-call allocation. Any string goes through
 * the JSON escape, except the library's own names (verdicts, host types,
 * flags, rule reasons, status codes: cli_jv_name), which are plain ASCII
 * identifiers; tests/test_json.c checks every one of them.
 */
#include "cli.h"
#include "components.h"

#include <stdint.h>
#include <string.h>


void cli_jv_cstr(cli_buf *b, const char *s)
{
    if (s == NULL)
        cli_buf_lit(b, "null");
    else
        json_quote(b, s, strlen(s));
}

void cli_jv_name(cli_buf *b, const char *name)
{
    size_t need = (name != NULL ? strlen(name) : 2) + 2;   /* "null" is 4 too */
    if (!cli_buf_room(b, need) && !cli_buf_reserve(b, need))
        return; /* b is marked failed */
    b->len = (size_t)(cli_plain_name(b->p + b->len, name) - b->p);
}

void cli_jv_verdict(cli_buf *b, urisan_verdict v)
{
    cli_jv_name(b, urisan_verdict_name(v));
}

void cli_jv_bool(cli_buf *b, bool v)
{
    if (cli_buf_room(b, 8) || cli_buf_reserve(b, 8))
        b->len = (size_t)(cli_put_bool(b->p + b->len, v) - b->p);
}

void cli_jv_error(cli_buf *b, const urisan_error *e)
{
    if (e == NULL || e->code == URISAN_OK) {
        cli_buf_lit(b, "null");
        return;
    }
    cli_buf_lit(b, "{\"code\":");
    cli_jv_name(b, urisan_status_name(e->code));
    cli_buf_lit(b, ",\"offset\":");
    cli_buf_addu(b, e->offset);
    cli_buf_lit(b, ",\"message\":");
    cli_jv_cstr(b, urisan_status_message(e->code));
    cli_buf_addc(b, '}');
}

/* Names of the set bits of f, in bit order, separated by sep; returns how
   many were written. JSON (quoted) or text (as is). */
static size_t flag_names(cli_buf *b, urisan_flags f, bool json)
{
    size_t n = 0;
    while (f != 0) {
        unsigned bit = (unsigned)__builtin_ctzll(f);
        f &= f - 1;
        const char *name = urisan_flag_name((urisan_flag)bit);
        if (name == NULL)
            continue;
        if (n++ > 0)
            cli_buf_addc(b, ',');
        if (json)
            cli_jv_name(b, name);
        else
            cli_buf_adds(b, name);
    }
    return n;
}

static void render_flags(cli_buf *b, const void *arg)
{
    cli_buf_addc(b, '[');
    flag_names(b, *(const urisan_flags *)arg, true);
    cli_buf_addc(b, ']');
}

void cli_jv_flags(cli_buf *b, urisan_flags f)
{
    render_flags(b, &f);
}

void cli_text_error(cli_buf *b, const urisan_error *e, const char *which)
{
    cli_buf_lit(b, "error: ");
    cli_buf_adds(b, urisan_status_name(e->code));
    cli_buf_addc(b, ' ');
    cli_buf_addu(b, e->offset);
    cli_buf_addc(b, ' ');
    cli_buf_adds(b, urisan_status_message(e->code));
    if (which != NULL) {
        cli_buf_lit(b, " (in the ");
        cli_buf_adds(b, which);
        cli_buf_addc(b, ')');
    }
}

#define CLI_REASONS_MAX (2 * 64 + URISAN_REASON_COUNT_)

/* The one place that orders a decision's reasons (cli_jv_reasons,
   cli_text_reasons): the flags that denied (bit order), the rules that
   denied, the flags only reported. Returns how many names were stored. */
static size_t reason_names(const urisan_decision *d, const char *names[CLI_REASONS_MAX])
{
    size_t n = 0;
    if (d->verdict == URISAN_ALLOW)
        return 0;
    for (int pass = 0; pass < 3; pass++) {
        uint64_t set = pass == 0 ? (uint64_t)d->deny_flags
                     : pass == 1 ? (uint64_t)d->rules : (uint64_t)d->flag_flags;
        if (pass == 1 && URISAN_REASON_COUNT_ < 64)
            set &= ((uint64_t)1 << URISAN_REASON_COUNT_) - 1;
        while (set != 0) {
            unsigned bit = (unsigned)__builtin_ctzll(set);
            set &= set - 1;
            const char *name = pass == 1
                ? urisan_rule_reason_name((urisan_rule_reason)bit)
                : urisan_flag_name((urisan_flag)bit);
            if (name != NULL)
                names[n++] = name;
        }
    }
    return n;
}

static void render_reasons(cli_buf *b, const void *arg)
{
    const urisan_decision *d = arg;
    const char *names[CLI_REASONS_MAX];
    size_t n = reason_names(d, names);
    cli_buf_addc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            cli_buf_addc(b, ',');
        cli_jv_name(b, names[i]);
    }
    cli_buf_addc(b, ']');
}

void cli_jv_reasons(cli_buf *b, const urisan_decision *d)
{
    render_reasons(b, d);
}

/* What a library writer (urisan.h "Functions that write text") gives,
   at b's end: measured, then written into the room reserved. */
typedef struct {
    const urisan_decision *d;   /* urisan_decision_format */
    urisan_flags f;             /* else urisan_reasons_format */
    unsigned rules;
} text_of;

static urisan_status write_text_of(const text_of *t, char *buf, size_t cap, size_t *n)
{
    return t->d != NULL ? urisan_decision_format(t->d, buf, cap, n)
                        : urisan_reasons_format(t->f, t->rules, buf, cap, n);
}

/* Returns the length written (0: none, or b failed). */
static size_t put_text_of(cli_buf *b, const text_of *t)
{
    size_t n = 0;
    write_text_of(t, NULL, 0, &n);
    if (n == 0 || (!cli_buf_room(b, n) && !cli_buf_reserve(b, n)))
        return 0; /* none, or b is marked failed */
    if (write_text_of(t, b->p + b->len, n, &n) != URISAN_OK) {
        cli_buf_fail(b);
        return 0;
    }
    b->len += n;
    return n;
}

void cli_text_reasons(cli_buf *b, const urisan_decision *d)
{
    /* "denied:...;flagged:...", "-" for none */
    text_of t = { d, 0, 0 };
    if (put_text_of(b, &t) == 0 && !b->failed)
        cli_buf_addc(b, '-');
}

void cli_text_reason_list(cli_buf *b, urisan_flags f, unsigned rules)
{
    text_of t = { NULL, f, rules };
    put_text_of(b, &t);
}

/* ------------------------------------------------------------------ */
/* Text for a terminal (doc/output.md "Text output and terminals")     */
/* ------------------------------------------------------------------ */

/* Code points a terminal would act on or not show: C1 controls, bidi
   controls and marks, zero-width and other default-ignorable characters
   (Unicode DerivedCoreProperties Default_Ignorable_Code_Point), the line
   and paragraph separators, interlinear annotation controls. */
static bool cp_hidden(uint32_t cp)
{
    if (cp < 0xA0)
        return true; /* C1 (C0 and DEL are ASCII, see below) */
    if (cp < 0x2000)
        return cp == 0x00AD || cp == 0x034F || cp == 0x061C || cp == 0x115F || cp == 0x1160 ||
               cp == 0x17B4 || cp == 0x17B5 || (cp >= 0x180B && cp <= 0x180F);
    if (cp <= 0x206F)
        return (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
               cp >= 0x2060;
    return cp == 0x3164 || (cp >= 0xFE00 && cp <= 0xFE0F) || cp == 0xFEFF || cp == 0xFFA0 ||
           (cp >= 0xFFF0 && cp <= 0xFFFB) || (cp >= 0x1BCA0 && cp <= 0x1BCA3) ||
           (cp >= 0x1D173 && cp <= 0x1D17A) || (cp >= 0xE0000 && cp <= 0xE0FFF);
}

/* The length of the well-formed UTF-8 sequence at s[0..n) (RFC 3629:
   shortest form, no surrogates, at most U+10FFFF) and its code point;
   0 when s does not start one. */
static size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
    if (len == 0 || c > 0xF4 || n < len)
        return 0;
    uint32_t v = c & (0x3Fu >> (len - 1));
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (s[k] & 0x3Fu);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < least[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

static void put_hex(cli_buf *b, const char *open, uint32_t v, int digits)
{
    static const char hex[] = "0123456789ABCDEF";
    char t[16];
    size_t n = 0;
    while (v >= 16 || digits > 1) {
        t[n++] = hex[v & 15];
        v >>= 4;
        digits--;
    }
    t[n++] = hex[v & 15];
    cli_buf_adds(b, open);
    while (n > 0)
        cli_buf_addc(b, t[--n]);
    cli_buf_addc(b, '}');
}

void cli_text_escape(cli_buf *b, const char *str, size_t n, bool quoted)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < n) {
        size_t p = json_plain_len(str + i, n - i); /* printable ASCII, no " or \ */
        cli_buf_add(b, str + i, p);
        i += p;
        if (i >= n)
            break;
        unsigned char c = s[i];
        if (c == '"' || c == '\\') {
            if (quoted)
                cli_buf_addc(b, '\\');
            cli_buf_addc(b, (char)c);
            i++;
        } else if (c == '\t' || c == '\n' || c == '\r') {
            cli_buf_addc(b, '\\');
            cli_buf_addc(b, c == '\t' ? 't' : c == '\n' ? 'n' : 'r');
            i++;
        } else if (c < 0x80) { /* C0, DEL */
            put_hex(b, "\\u{", c, 4);
            i++;
        } else {
            uint32_t cp = 0;
            size_t len = utf8_next(s + i, n - i, &cp);
            if (len == 0) {
                put_hex(b, "\\x{", c, 2); /* a byte that is not UTF-8 */
                i++;
            } else if (cp_hidden(cp)) {
                put_hex(b, "\\u{", cp, 4);
                i += len;
            } else {
                cli_buf_add(b, str + i, len);
                i += len;
            }
        }
    }
}

/* ------------------------------------------------------------------ */
/* A result's keys (urisan.h "The result of one URI, described once")  */
/* ------------------------------------------------------------------ */

static void put_names(cli_buf *b, const urisan_rvalue *v)
{
    cli_buf_addc(b, '[');
    size_t n = flag_names(b, v->first, true);
    unsigned rules = v->rules;
    while (rules != 0) {
        unsigned r = (unsigned)__builtin_ctz(rules);
        rules &= rules - 1;
        if (n++ > 0)
            cli_buf_addc(b, ',');
        cli_jv_name(b, urisan_rule_reason_name((urisan_rule_reason)r));
    }
    if (n > 0 && v->last != 0)
        cli_buf_addc(b, ',');
    flag_names(b, v->last, true);
    cli_buf_addc(b, ']');
}

/* The keys of an object's value, "name": with their commas, made once
   (cli_result_prepare) for each table of sub keys of the library's. */
#define SUB_TABLES 4
static cli_sub_keys sub_keys[SUB_TABLES];

static void prepare_sub(const urisan_result_key *sub, size_t n)
{
    for (size_t t = 0; t < SUB_TABLES; t++) {
        if (sub_keys[t].sub == sub)
            return;
        if (sub_keys[t].sub != NULL)
            continue;
        for (size_t i = 0; i < n && i < CLI_SUB_KEYS; i++) {
            size_t k = strlen(sub[i].name);
            if (k + 4 > CLI_SUB_KEY_TEXT)
                return;   /* written piece by piece (put_object) */
            char *o = sub_keys[t].text[i];
            o[0] = i == 0 ? '{' : ',';
            o[1] = '"';
            memcpy(o + 2, sub[i].name, k);
            o[k + 2] = '"';
            o[k + 3] = ':';
            sub_keys[t].len[i] = (unsigned char)(k + 4);
        }
        if (n <= CLI_SUB_KEYS)
            sub_keys[t].sub = sub;
        return;
    }
}

const cli_sub_keys *cli_result_sub_keys(const urisan_result_key *sub)
{
    for (size_t t = 0; t < SUB_TABLES; t++) {
        if (sub_keys[t].sub == sub)
            return &sub_keys[t];
    }
    return NULL;
}

void cli_result_prepare(void)
{
    size_t n;
    const urisan_result_key *keys = urisan_result_keys(&n);
    for (size_t i = 0; i < n; i++) {
        if (keys[i].sub != NULL)
            prepare_sub(keys[i].sub, keys[i].nsub);
    }
}

/* A text of the value: copied between quotes when the input is plain
   (json_plain_len, found once for the row) and the text is part of it,
   or when it is the library's text of an address; else escaped. */
static void put_text(cli_buf *b, const urisan_rvalue *v, const cli_result_row *row)
{
    const urisan_result *r = row->r;
    bool in_input = v->s >= r->in && v->s + v->n <= r->in + r->len;
    if (in_input && *row->plain < 0)
        *row->plain = json_plain_len(r->in, r->len) == r->len;
    if ((in_input && *row->plain) || v->s == v->text)
        json_quote_plain(b, v->s, v->n);
    else
        json_quote(b, v->s, v->n);
}

/* ["name", ...]: the forms of a link found (URISAN_RV_FORMS). */
static void put_forms(cli_buf *b, uint64_t set)
{
    cli_buf_addc(b, '[');
    for (size_t n = 0; set != 0; set &= set - 1) {
        const char *name = urisan_hit_form_name((unsigned)__builtin_ctzll(set));
        if (name == NULL)
            break;
        if (n++ > 0)
            cli_buf_addc(b, ',');
        cli_jv_name(b, name);
    }
    cli_buf_addc(b, ']');
}

void cli_jv_rvalue(cli_buf *b, const urisan_rvalue *v)
{
    switch (v->kind) {
    case URISAN_RV_BOOL: cli_jv_bool(b, v->b != 0); return;
    case URISAN_RV_UINT: cli_buf_addu(b, v->u); return;
    case URISAN_RV_TEXT: json_quote(b, v->s, v->n); return;
    case URISAN_RV_NAME: json_quote_plain(b, v->s, v->n); return;
    case URISAN_RV_NAMES: put_names(b, v); return;
    case URISAN_RV_ERROR: cli_jv_error(b, &v->err); return;
    case URISAN_RV_FORMS: put_forms(b, v->u); return;
    default: cli_buf_lit(b, "null"); return;
    }
}

/* A value of a row's result: its texts copied unescaped when plain. */
static void put_value(cli_buf *b, const urisan_rvalue *v, const cli_result_row *row)
{
    if (v->kind == URISAN_RV_TEXT)
        put_text(b, v, row);
    else
        cli_jv_rvalue(b, v);
}

/* The key i of sub, with its comma ('{' for the first). */
static void put_sub_key(cli_buf *b, const urisan_result_key *sub, size_t i)
{
    const cli_sub_keys *k = cli_result_sub_keys(sub);
    if (k != NULL && cli_buf_room(b, CLI_SUB_KEY_TEXT)) {
        b->len = (size_t)(cli_put_sub_key(b->p + b->len, k, i) - b->p);
    } else if (k != NULL) {
        cli_buf_add(b, k->text[i], k->len[i]);
    } else {
        cli_buf_addc(b, i == 0 ? '{' : ',');
        cli_buf_addc(b, '"');
        cli_buf_adds(b, sub[i].name);
        cli_buf_lit(b, "\":");
    }
}

/* One object of the keys sub[0..n): of the row's result, or of the
   nested URL nu. */
static void put_object(cli_buf *b, const cli_result_row *row, const urisan_nested_url *nu,
                       urisan_flags flags, const urisan_result_key *sub, size_t n)
{
    urisan_rvalue v;
    for (size_t i = 0; i < n; i++) {
        put_sub_key(b, sub, i);
        if (nu != NULL)
            urisan_nested_value(nu, flags, &sub[i], &v);
        else
            urisan_result_value(row->r, &sub[i], &v);
        put_value(b, &v, row);
    }
    if (n == 0)
        cli_buf_addc(b, '{');
    cli_buf_addc(b, '}');
}

typedef struct {
    cli_buf *b;
    const cli_result_row *row;
    const urisan_result_key *k;
    size_t n;
} nested_out;

static void put_nested_one(void *arg, const urisan_nested_url *nu, urisan_flags flags)
{
    nested_out *o = arg;
    if (o->n++ > 0)
        cli_buf_addc(o->b, ',');
    put_object(o->b, o->row, nu, flags, o->k->sub, o->k->nsub);
}

void cli_jv_result(cli_buf *b, const cli_result_row *row, const urisan_result_key *k)
{
    urisan_rvalue v;
    urisan_result_value(row->r, k, &v);
    if (v.kind == URISAN_RV_OBJECT) {
        put_object(b, row, NULL, 0, k->sub, k->nsub);
    } else if (v.kind == URISAN_RV_NESTED) {
        nested_out o = { b, row, k, 0 };
        cli_buf_addc(b, '[');
        urisan_result_nested(row->r, put_nested_one, &o);
        cli_buf_addc(b, ']');
    } else {
        put_value(b, &v, row);
    }
}
