/*
 * unwrap.c - the destination of a link a mail gateway or a site rewrote,
 * decoded the way the rewriting service decodes it when the reader clicks
 * (unwrap.h). The formats are the services' public ones:
 *
 * - Microsoft Defender for Office 365 Safe Links:
 *   https://<region>.safelinks.protection.outlook.com/?url=<percent-encoded>&data=...
 * - Proofpoint URL Defense, as Proofpoint's published decoder reads it:
 *   v1 https://urldefense.proofpoint.com/v1/url?u=<percent-encoded>&k=...
 *   v2 https://urldefense.proofpoint.com/v2/url?u=<u>&d=... where '-' stands
 *      for '%' and '_' for '/' (then percent-decoded)
 *   v3 https://urldefense.com/v3/__<url>__;<base64url>!!... where the URL is
 *      percent-decoded, then each '*' is the next character of the decoded
 *      base64url text and each "**" plus one character of
 *      "A-Za-z0-9-_" a run of the next 2, 3, ... 65 characters
 * - Barracuda Link Protection: https://linkprotect.cudasvc.com/url?a=<percent-encoded>&c=...
 * - Google's redirector: https://www.google.com/url?q=<percent-encoded> (or url=)
 * - Facebook's link shim https://l.facebook.com/l.php?u=..., YouTube's
 *   https://www.youtube.com/redirect?q=... and Slack's
 *   https://slack-redir.net/link?url=... (percent-encoded).
 */
#include "unwrap.h"

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

/* host[0..n) is name or a subdomain of it ("x.name") when sub. */
static bool host_is(const char *host, size_t n, const char *name, bool sub)
{
    size_t l = strlen(name);
    if (n == l)
        return ieq(host, n, name);
    return sub && n > l && host[n - l - 1] == '.' && ieq(host + n - l, l, name);
}

/* The value of query parameter name of q[0..n) (the query, without '?'):
   first "name=" at the start or after '&', to the next '&'. */
static bool param(const char *q, size_t n, const char *name, const char **v, size_t *vn)
{
    size_t l = strlen(name);
    for (size_t i = 0; i + l < n;) {
        if (ieq(q + i, l, name) && q[i + l] == '=') {
            size_t s = i + l + 1, e = s;
            while (e < n && q[e] != '&')
                e++;
            *v = q + s;
            *vn = e - s;
            return true;
        }
        const char *amp = memchr(q + i, '&', n - i);
        if (amp == NULL)
            break;
        i = (size_t)(amp - q) + 1;
    }
    return false;
}

static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = lower(c);
    return (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
}

/* Percent-decode s[0..n) into out (never longer); its length. */
static size_t pct_decode(const char *s, size_t n, char *out)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        int h, l;
        if (s[i] == '%' && i + 2 < n && (h = hexval((unsigned char)s[i + 1])) >= 0 &&
            (l = hexval((unsigned char)s[i + 2])) >= 0) {
            out[w++] = (char)(h * 16 + l);
            i += 2;
        } else {
            out[w++] = s[i];
        }
    }
    return w;
}

/* s[0..n) begins with a scheme and "://" or ':' - an absolute URL. */
static bool absolute(const char *s, size_t n)
{
    if (n == 0 || !g_ascii_isalpha(s[0]))
        return false;
    for (size_t i = 1; i < n; i++) {
        if (s[i] == ':')
            return i + 1 < n;
        if (!g_ascii_isalnum(s[i]) && s[i] != '+' && s[i] != '-' && s[i] != '.')
            return false;
    }
    return false;
}

/* A value percent-decoded once (v2 first maps '-' to '%' and '_' to '/'). */
static char *decoded(const char *v, size_t vn, bool v2, size_t *out_len)
{
    char *t = g_malloc(vn + 1);
    for (size_t i = 0; i < vn; i++)
        t[i] = v2 ? (v[i] == '-' ? '%' : v[i] == '_' ? '/' : v[i]) : v[i];
    char *o = g_malloc(vn + 1);
    *out_len = pct_decode(t, vn, o);
    o[*out_len] = '\0';
    g_free(t);
    return o;
}

/* Proofpoint v3: p[0..n) is what follows "/v3/__". */
static char *proofpoint_v3(const char *p, size_t n, size_t *out_len)
{
    /* the URL runs to the first "__;", the base64url text to the next '!' */
    size_t e = 0;
    while (e + 2 < n && !(p[e] == '_' && p[e + 1] == '_' && p[e + 2] == ';'))
        e++;
    if (e + 2 >= n)
        return NULL;
    size_t bs = e + 3, be = bs;
    while (be < n && p[be] != '!')
        be++;
    /* base64url without padding: decoded with GLib's decoder after
       mapping to the standard alphabet and padding */
    size_t bl = be - bs;
    char *b = g_malloc(bl + 4);
    for (size_t i = 0; i < bl; i++)
        b[i] = p[bs + i] == '-' ? '+' : p[bs + i] == '_' ? '/' : p[bs + i];
    size_t pad = (4 - bl % 4) % 4;
    for (size_t i = 0; i < pad; i++)
        b[bl + i] = '=';
    b[bl + pad] = '\0';
    gsize dn = 0;
    guchar *dec = bl > 0 ? g_base64_decode(b, &dn) : (guchar *)g_strdup("");
    g_free(b);
    /* the replacement characters are UTF-8 text, taken character by
       character */
    if (!g_utf8_validate((const char *)dec, (gssize)dn, NULL)) {
        g_free(dec);
        return NULL;
    }
    size_t un = 0;
    char *u = g_malloc(e + 1);
    un = pct_decode(p, e, u);
    static const char runs[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    GString *out = g_string_sized_new(un + dn);
    const char *d = (const char *)dec, *dend = d + dn;
    bool ok = true;
    for (size_t i = 0; i < un && ok; i++) {
        if (u[i] != '*') {
            g_string_append_c(out, u[i]);
            continue;
        }
        size_t take = 1;
        if (i + 2 < un && u[i + 1] == '*') {
            const char *r = u[i + 2] != '\0' ? strchr(runs, u[i + 2]) : NULL;
            if (r == NULL) {
                ok = false;
                break;
            }
            take = (size_t)(r - runs) + 2;
            i += 2;
        }
        for (size_t k = 0; k < take; k++) {
            if (d >= dend) {
                ok = false;
                break;
            }
            const char *nx = d + g_utf8_skip[*(const guchar *)d];
            g_string_append_len(out, d, nx - d);
            d = nx;
        }
    }
    g_free(u);
    g_free(dec);
    if (!ok) {
        g_string_free(out, TRUE);
        return NULL;
    }
    *out_len = out->len;
    return g_string_free(out, FALSE);
}

/* The host ends with the registrable domain of one of the services: one
   look at a byte and a compare or two for nearly every host, before the
   path and the query are looked at (a link of no service costs little). */
bool mail_unwrap_host(const char *host, size_t hn)
{
    static const struct {
        const char *d;
        size_t n;
    } doms[] = {
#define D(s) { s, sizeof s - 1 }
        D("outlook.com"), D("office365.us"), D("proofpoint.com"), D("urldefense.com"),
        D("cudasvc.com"), D("google.com"), D("facebook.com"), D("youtube.com"),
        D("slack-redir.net"),
#undef D
    };
    for (size_t k = 0; k < sizeof doms / sizeof doms[0]; k++) {
        size_t l = doms[k].n;
        if (hn >= l && lower((unsigned char)host[hn - l]) == (unsigned char)doms[k].d[0] &&
            (hn == l || host[hn - l - 1] == '.') && ieq(host + hn - l, l, doms[k].d))
            return true;
    }
    return false;
}

const char *mail_unwrap(const char *s, size_t n, char **out, size_t *out_len)
{
    *out = NULL;
    /* http(s)://host/path?query */
    size_t i = 0;
    if (n > 8 && ieq(s, 8, "https://"))
        i = 8;
    else if (n > 7 && ieq(s, 7, "http://"))
        i = 7;
    else
        return NULL;
    size_t hs = i;
    while (i < n && s[i] != '/' && s[i] != '?' && s[i] != '#' && s[i] != ':' && s[i] != '@')
        i++;
    if (i < n && s[i] == '@')
        return NULL; /* userinfo: not the services' form */
    const char *host = s + hs;
    size_t hn = i - hs;
    while (hn > 0 && host[hn - 1] == '.')
        hn--;
    if (!mail_unwrap_host(host, hn))
        return NULL; /* nearly every link: no service's host */
    while (i < n && s[i] != '/' && s[i] != '?' && s[i] != '#')
        i++; /* a port */
    size_t ps = i;
    while (i < n && s[i] != '?' && s[i] != '#')
        i++;
    const char *path = s + ps;
    size_t pn = i - ps;
    const char *q = "";
    size_t qn = 0;
    if (i < n && s[i] == '?') {
        size_t qe = i + 1;
        while (qe < n && s[qe] != '#')
            qe++;
        q = s + i + 1;
        qn = qe - i - 1;
    }
    const char *v = NULL, *name = NULL;
    size_t vn = 0;
    bool v2 = false;
    if (host_is(host, hn, "safelinks.protection.outlook.com", true) ||
        host_is(host, hn, "safelinks.protection.office365.us", true)) {
        if (param(q, qn, "url", &v, &vn))
            name = "safelinks";
    } else if (host_is(host, hn, "urldefense.proofpoint.com", false) ||
               host_is(host, hn, "urldefense.com", false)) {
        if (pn >= 6 && memcmp(path, "/v3/__", 6) == 0) {
            char *d = proofpoint_v3(path + 6, (size_t)(s + n - (path + 6)), out_len);
            if (d != NULL && absolute(d, *out_len)) {
                *out = d;
                return "proofpoint-v3";
            }
            g_free(d);
            return NULL;
        }
        if (pn >= 4 && memcmp(path, "/v1/", 4) == 0 && param(q, qn, "u", &v, &vn))
            name = "proofpoint-v1";
        else if (pn >= 4 && memcmp(path, "/v2/", 4) == 0 && param(q, qn, "u", &v, &vn)) {
            name = "proofpoint-v2";
            v2 = true;
        }
    } else if (host_is(host, hn, "linkprotect.cudasvc.com", false)) {
        if (pn >= 4 && ieq(path, 4, "/url") && param(q, qn, "a", &v, &vn))
            name = "barracuda";
    } else if (host_is(host, hn, "google.com", false) ||
               host_is(host, hn, "www.google.com", false)) {
        if (pn == 4 && ieq(path, 4, "/url") &&
            (param(q, qn, "q", &v, &vn) || param(q, qn, "url", &v, &vn)))
            name = "google";
    } else if (host_is(host, hn, "l.facebook.com", false) ||
               host_is(host, hn, "lm.facebook.com", false)) {
        if (pn == 6 && ieq(path, 6, "/l.php") && param(q, qn, "u", &v, &vn))
            name = "facebook";
    } else if (host_is(host, hn, "www.youtube.com", false) ||
               host_is(host, hn, "youtube.com", false)) {
        if (pn == 9 && ieq(path, 9, "/redirect") && param(q, qn, "q", &v, &vn))
            name = "youtube";
    } else if (host_is(host, hn, "slack-redir.net", false)) {
        if (pn == 5 && ieq(path, 5, "/link") && param(q, qn, "url", &v, &vn))
            name = "slack";
    }
    if (name == NULL)
        return NULL;
    char *d = decoded(v, vn, v2, out_len);
    if (!absolute(d, *out_len)) {
        g_free(d);
        return NULL;
    }
    *out = d;
    return name;
}
