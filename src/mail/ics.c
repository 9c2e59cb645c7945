/*
 * ics.c - the links of a calendar invite (RFC 5545 iCalendar: text/calendar,
 * .ics), as a calendar client shows and opens them.
 *
 * Content lines are unfolded (3.1: a line break followed by one space or
 * TAB is removed) and TEXT values unescaped (3.3.11), so a link split over
 * folded lines or written "http\://" is read whole. The URI-valued
 * properties (URL, ATTACH, TZURL, SOURCE, and RFC 7986's CONFERENCE and
 * IMAGE) are links as they stand; DESCRIPTION, SUMMARY and COMMENT, and
 * LOCATION, are text whose links a client makes clickable; Outlook's
 * X-ALT-DESC;FMTTYPE=text/html is an HTML description it renders.
 */
#include "attach.h"

#include <glib.h>
#include <string.h>

static unsigned char lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c | 0x20) : c;
}

static bool ieq(const char *s, size_t n, const char *lit)
{
    size_t i = 0;
    for (; i < n; i++)
        if (lit[i] == '\0' || lower((unsigned char)s[i]) != (unsigned char)lit[i])
            return false;
    return lit[i] == '\0';
}

/* Properties whose value type is URI (RFC 5545 3.8.1.1 ATTACH, 3.8.3.5
   TZURL, 3.8.4.6 URL; RFC 7986 5.8 SOURCE, 5.10 IMAGE, 5.11 CONFERENCE):
   no TEXT escapes. */
static bool uri_valued(const char *name, size_t n)
{
    return ieq(name, n, "url") || ieq(name, n, "attach") || ieq(name, n, "tzurl") ||
           ieq(name, n, "source") || ieq(name, n, "conference") || ieq(name, n, "image");
}

/* One logical line l[0..n) (unfolded) at offset off: split and told. */
static bool one_line(char *l, size_t n, size_t off, mail_prop_fn fn, void *ctx)
{
    size_t i = 0;
    while (i < n && l[i] != ';' && l[i] != ':')
        i++;
    if (i == 0 || i == n)
        return true; /* no name, or no value: not a content line */
    mail_prop p = { l, i, NULL, 0, NULL, 0, off };
    size_t ps = i;
    bool quoted = false;
    while (i < n && (quoted || l[i] != ':')) {
        if (l[i] == '"')
            quoted = !quoted;
        i++;
    }
    if (i == n)
        return true;
    if (i > ps) {
        p.params = l + ps;
        p.params_len = i - ps;
    }
    char *v = l + i + 1;
    size_t vn = n - i - 1;
    if (!uri_valued(p.name, p.name_len)) {
        /* 3.3.11: "\\" "\;" "\," "\n" "\N"; in place, never longer */
        size_t w = 0;
        for (size_t r = 0; r < vn; r++) {
            if (v[r] == '\\' && r + 1 < vn) {
                char e = v[r + 1];
                if (e == 'n' || e == 'N') {
                    v[w++] = '\n';
                    r++;
                    continue;
                }
                if (e == '\\' || e == ';' || e == ',') {
                    v[w++] = e;
                    r++;
                    continue;
                }
            }
            v[w++] = v[r];
        }
        vn = w;
    }
    p.value = v;
    p.value_len = vn;
    return fn(ctx, &p);
}

bool mail_ics_props(const char *d, size_t n, char *scratch, mail_prop_fn fn, void *ctx)
{
    size_t i = 0;
    while (i < n) {
        size_t start = i, w = 0;
        /* one logical line: physical lines joined while the next starts
           with a space or TAB (3.1) */
        for (;;) {
            while (i < n && d[i] != '\n' && d[i] != '\r')
                scratch[w++] = d[i++];
            size_t eol = i;
            if (i < n && d[i] == '\r')
                i++;
            if (i < n && d[i] == '\n')
                i++;
            if (i == eol) /* end of input */
                break;
            if (i < n && (d[i] == ' ' || d[i] == '\t')) {
                i++; /* the folding white space is removed */
                continue;
            }
            break;
        }
        if (!one_line(scratch, w, start, fn, ctx))
            return false;
    }
    return true;
}

/* ---- the reader ---- */

typedef struct {
    mail_out *o;
    bool ok;
} ics_ctx;

/* params holds NAME=VALUE (case-insensitive, value unquoted or quoted). */
static bool has_param(const char *p, size_t n, const char *name, const char *value)
{
    size_t nl = strlen(name), vl = strlen(value);
    for (size_t i = 0; i + nl + 1 + vl <= n; i++) {
        if (p[i] != ';' || !ieq(p + i + 1, nl, name) || p[i + 1 + nl] != '=')
            continue;
        size_t v = i + 2 + nl;
        if (v < n && p[v] == '"')
            v++;
        if (v + vl <= n && ieq(p + v, vl, value))
            return true;
    }
    return false;
}

static bool trimmed_link(mail_out *o, const mail_prop *p, urisan_mail_source src)
{
    const char *v = p->value;
    size_t n = p->value_len;
    while (n > 0 && (*v == ' ' || *v == '\t')) {
        v++;
        n--;
    }
    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    if (n == 0)
        return true;
    mail_found f = { .uri = v, .uri_len = n, .source = src, .offset = p->offset, .length = n };
    return mail_out_link(o, &f);
}

static bool on_prop(void *vctx, const mail_prop *p)
{
    ics_ctx *c = vctx;
    const char *nm = p->name;
    size_t nn = p->name_len;
    if (ieq(nm, nn, "attach")) {
        /* an inline attachment (ENCODING=BASE64, VALUE=BINARY) is no link */
        if (has_param(p->params, p->params_len, "value", "binary") ||
            has_param(p->params, p->params_len, "encoding", "base64"))
            return true;
        c->ok = trimmed_link(c->o, p, URISAN_MAIL_SRC_ICS_ATTACH);
    } else if (uri_valued(nm, nn)) {
        c->ok = trimmed_link(c->o, p, URISAN_MAIL_SRC_ICS_URL);
    } else if (ieq(nm, nn, "location")) {
        c->ok = mail_out_text(c->o, p->value, p->value_len, URISAN_MAIL_SRC_ICS_LOCATION,
                              p->offset);
    } else if (ieq(nm, nn, "description") || ieq(nm, nn, "summary") ||
               ieq(nm, nn, "comment")) {
        c->ok = mail_out_text(c->o, p->value, p->value_len, URISAN_MAIL_SRC_ICS_DESCRIPTION,
                              p->offset);
    } else if (ieq(nm, nn, "x-alt-desc")) {
        /* Outlook renders an HTML description */
        c->ok = has_param(p->params, p->params_len, "fmttype", "text/html")
                    ? mail_out_html(c->o, p->value, p->value_len)
                    : mail_out_text(c->o, p->value, p->value_len,
                                    URISAN_MAIL_SRC_ICS_DESCRIPTION, p->offset);
    }
    return c->ok;
}

bool mail_read_calendar(mail_out *o, const char *data, size_t n)
{
    ics_ctx c = { o, true };
    char *scratch = g_malloc(n + 1);
    mail_ics_props(data, n, scratch, on_prop, &c);
    g_free(scratch);
    return c.ok;
}
