/*
 * shortcut.c - the links of a shortcut file, as the system that opens it
 * reads them:
 *
 * - a Windows Internet shortcut (.url, .website): an INI file whose
 *   [InternetShortcut] URL= the shell opens when it is double-clicked
 *   (file://host/share/x runs a remote file), BASEURL=, and IconFile=,
 *   which Explorer loads as soon as it shows the file (a UNC path or
 *   URL there leaks the user's credentials to a remote host);
 * - a freedesktop Desktop Entry (.desktop, Desktop Entry Specification):
 *   Type=Link's URL=, the command line of Exec= and TryExec= (its URLs),
 *   Icon=;
 * - a macOS .webloc: an XML property list whose <key>URL</key> string
 *   Finder opens (a binary property list, "bplist00", is scanned as text).
 *
 * Keys are matched as the readers match them: case-insensitively (Windows
 * GetPrivateProfileString) for .url, and the exact names for .desktop,
 * which are both looked at here in every section (a file can carry both).
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

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

bool mail_ini_props(const char *d, size_t n, mail_prop_fn fn, void *ctx)
{
    size_t i = 0;
    while (i < n) {
        size_t s = i;
        while (i < n && d[i] != '\n' && d[i] != '\r')
            i++;
        size_t e = i;
        while (i < n && (d[i] == '\n' || d[i] == '\r'))
            i++;
        while (s < e && is_blank(d[s]))
            s++;
        if (s == e || d[s] == '[' || d[s] == ';' || d[s] == '#')
            continue; /* blank, a section header or a comment */
        const char *eq = memchr(d + s, '=', e - s);
        if (eq == NULL)
            continue;
        size_t ne = (size_t)(eq - d);
        while (ne > s && is_blank(d[ne - 1]))
            ne--;
        size_t vs = (size_t)(eq - d) + 1;
        while (vs < e && is_blank(d[vs]))
            vs++;
        size_t ve = e;
        while (ve > vs && is_blank(d[ve - 1]))
            ve--;
        mail_prop p = { d + s, ne - s, NULL, 0, d + vs, ve - vs, vs };
        if (!fn(ctx, &p))
            return false;
    }
    return true;
}

/* XML's five entities and character references (XML 1.0 4.1, 4.6) of
   s[0..n) into out; its length. */
static size_t xml_unescape(const char *s, size_t n, char *out)
{
    static const struct { const char *name; char c; } ents[] = {
        { "amp;", '&' }, { "lt;", '<' }, { "gt;", '>' }, { "quot;", '"' }, { "apos;", '\'' },
    };
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '&') {
            out[w++] = s[i];
            continue;
        }
        bool done = false;
        for (size_t k = 0; k < sizeof ents / sizeof ents[0] && !done; k++) {
            size_t l = strlen(ents[k].name);
            if (i + 1 + l <= n && memcmp(s + i + 1, ents[k].name, l) == 0) {
                out[w++] = ents[k].c;
                i += l;
                done = true;
            }
        }
        if (!done && i + 2 < n && s[i + 1] == '#') {
            size_t j = i + 2;
            bool hex = j < n && (s[j] == 'x' || s[j] == 'X');
            j += hex;
            unsigned long cp = 0;
            size_t digits = 0;
            while (j < n && digits < 8 && g_ascii_isxdigit(s[j]) && (hex || g_ascii_isdigit(s[j]))) {
                cp = cp * (hex ? 16 : 10) + (unsigned long)g_ascii_xdigit_value(s[j]);
                j++;
                digits++;
            }
            if (digits > 0 && j < n && s[j] == ';' && cp > 0 && cp <= 0x10ffff &&
                !(cp >= 0xd800 && cp <= 0xdfff)) {
                char u[6];
                int l = g_unichar_to_utf8((gunichar)cp, u);
                if ((size_t)l <= j + 1 - i) { /* never longer than written */
                    memcpy(out + w, u, (size_t)l);
                    w += (size_t)l;
                    i = j;
                    done = true;
                }
            }
        }
        if (!done)
            out[w++] = '&';
    }
    return w;
}

/* The next "<tag>" (exact) at or after *i in d[0..n): its end. */
static bool find_tag(const char *d, size_t n, size_t *i, const char *tag)
{
    size_t l = strlen(tag);
    for (; *i + l <= n; (*i)++) {
        if (d[*i] == '<' && memcmp(d + *i, tag, l) == 0) {
            *i += l;
            return true;
        }
    }
    return false;
}

bool mail_plist_props(const char *d, size_t n, char *scratch, mail_prop_fn fn, void *ctx)
{
    size_t i = 0;
    while (find_tag(d, n, &i, "<key>")) {
        size_t ks = i;
        if (!find_tag(d, n, &i, "</key>"))
            return true;
        size_t ke = i - 6;
        size_t j = i;
        while (j < n && (d[j] == ' ' || d[j] == '\t' || d[j] == '\r' || d[j] == '\n'))
            j++;
        if (n - j < 8 || memcmp(d + j, "<string>", 8) != 0)
            continue;
        size_t vs = j + 8;
        i = vs;
        if (!find_tag(d, n, &i, "</string>"))
            return true;
        size_t ve = i - 9;
        size_t vn = xml_unescape(d + vs, ve - vs, scratch);
        mail_prop p = { d + ks, ke - ks, NULL, 0, scratch, vn, vs };
        if (!fn(ctx, &p))
            return false;
    }
    return true;
}

/* ---- the reader ---- */

typedef struct {
    mail_out *o;
    bool ok;
} sc_ctx;

static bool link_of(mail_out *o, const mail_prop *p)
{
    if (p->value_len == 0)
        return true;
    mail_found f = { .uri = p->value, .uri_len = p->value_len,
                     .source = URISAN_MAIL_SRC_SHORTCUT_URL, .offset = p->offset,
                     .length = p->value_len };
    return mail_out_link(o, &f);
}

static bool on_ini(void *vctx, const mail_prop *p)
{
    sc_ctx *c = vctx;
    const char *k = p->name;
    size_t kn = p->name_len;
    if (ieq(k, kn, "url") || ieq(k, kn, "baseurl"))
        c->ok = link_of(c->o, p);
    else if (ieq(k, kn, "iconfile") || ieq(k, kn, "icon"))
        c->ok = mail_out_text(c->o, p->value, p->value_len, URISAN_MAIL_SRC_SHORTCUT_ICON,
                              p->offset);
    else if (ieq(k, kn, "exec") || ieq(k, kn, "tryexec"))
        c->ok = mail_out_text(c->o, p->value, p->value_len, URISAN_MAIL_SRC_SHORTCUT_EXEC,
                              p->offset);
    return c->ok;
}

static bool on_plist(void *vctx, const mail_prop *p)
{
    sc_ctx *c = vctx;
    if (p->name_len == 3 && memcmp(p->name, "URL", 3) == 0)
        c->ok = link_of(c->o, p);
    return c->ok;
}

bool mail_read_shortcut(mail_out *o, const char *data, size_t n)
{
    sc_ctx c = { o, true };
    size_t i = 0;
    if (n >= 3 && (unsigned char)data[0] == 0xef && (unsigned char)data[1] == 0xbb &&
        (unsigned char)data[2] == 0xbf)
        i = 3; /* UTF-8 byte order mark */
    if (n - i >= 8 && memcmp(data + i, "bplist00", 8) == 0)
        return mail_out_text(o, data, n, URISAN_MAIL_SRC_SHORTCUT_URL, 0);
    const char *lt = memchr(data + i, '<', n - i);
    size_t first = i;
    while (first < n && (data[first] == ' ' || data[first] == '\t' || data[first] == '\r' ||
                         data[first] == '\n'))
        first++;
    if (lt != NULL && (size_t)(lt - data) == first) {
        char *scratch = g_malloc(n + 1);
        mail_plist_props(data, n, scratch, on_plist, &c);
        g_free(scratch);
        return c.ok;
    }
    mail_ini_props(data, n, on_ini, &c);
    return c.ok;
}
