/*
 * iri.c - a link written in Unicode (an IRI, RFC 3987) as the URI a
 * browser opens: the host of a WHATWG special scheme (http, https, ftp,
 * ws, wss, file) by UTS #46 to A-labels (libidn2, non-transitional), every
 * other non-ASCII byte as UTF-8 percent-encoding (RFC 3987 3.1, WHATWG URL
 * percent-encode sets). Judged as that URI, an ordinary IDN link is `idn`,
 * not `invalid`.
 *
 * Fail closed: a link is left as written (and judged as written: raw
 * non-ASCII is `invalid`) when it is not valid UTF-8, holds a control,
 * format (bidi, zero-width) or other default-ignorable character, or a
 * host that UTS #46 would change beyond lower-casing (fullwidth letters,
 * mathematical alphanumerics, ignored code points) or that IDNA refuses:
 * those are the tricks the host flags (`host_uts46`, `invisible_char`)
 * report on the written form.
 */
#include "mail_internal.h"

#include <stdlib.h>
#include <string.h>

#include <glib.h>
#ifdef URISAN_HAVE_IDN2
#include <idn2.h>
#endif

/* Default_Ignorable_Code_Point (Unicode DerivedCoreProperties) that are
   not of general category Cf, and the Cc/Cf categories themselves. */
static bool hidden_cp(gunichar c)
{
    GUnicodeType t = g_unichar_type(c);
    if (t == G_UNICODE_CONTROL || t == G_UNICODE_FORMAT || t == G_UNICODE_UNASSIGNED ||
        t == G_UNICODE_SURROGATE || t == G_UNICODE_PRIVATE_USE)
        return true;
    return c == 0x034F || c == 0x115F || c == 0x1160 || c == 0x17B4 || c == 0x17B5 ||
           (c >= 0x180B && c <= 0x180F) || c == 0x3164 || (c >= 0xFE00 && c <= 0xFE0F) ||
           c == 0xFFA0 || (c >= 0xFFF0 && c <= 0xFFF8) || (c >= 0xE0000 && c <= 0xE0FFF);
}

/* Every character of s[0..n) is valid UTF-8 and shown (none hidden). */
static bool shown_utf8(const char *s, size_t n)
{
    const char *end = s + n;
    if (!g_utf8_validate(s, (gssize)n, NULL))
        return false;
    for (const char *p = s; p < end; p += g_utf8_skip[*(const guchar *)p]) {
        if ((unsigned char)*p < 0x80)
            continue;
        if (hidden_cp(g_utf8_get_char(p)))
            return false;
    }
    return true;
}

static bool is_special(const char *s, size_t n)
{
    static const char *const names[] = {"http", "https", "ftp", "ws", "wss", "file"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == n && g_ascii_strncasecmp(s, names[i], n) == 0)
            return true;
    return false;
}

/* Append s[0..n) with every byte >= 0x80 as %XX. */
static void pct_append(GString *o, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            g_string_append_c(o, (char)c);
        } else {
            g_string_append_c(o, '%');
            g_string_append_c(o, hex[c >> 4]);
            g_string_append_c(o, hex[c & 15]);
        }
    }
}

static bool has_high(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80)
            return true;
    return false;
}

#ifdef URISAN_HAVE_IDN2
/* The host h[0..n) as A-labels, appended to o; false when IDNA refuses
   it or would change it beyond lower-casing (UTS #46 maps fullwidth,
   compatibility and ignored code points: left for the flags to see). */
static bool host_append(GString *o, const char *h, size_t n)
{
    char *host = g_strndup(h, n);
    char *lowered = g_utf8_strdown(host, -1);
    char *nfc = g_utf8_normalize(lowered, -1, G_NORMALIZE_NFC);
    char *ace = NULL, *uni = NULL;
    bool ok = nfc != NULL &&
              idn2_to_ascii_8z(host, &ace, IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT) == IDN2_OK &&
              ace != NULL && idn2_to_unicode_8z8z(ace, &uni, 0) == IDN2_OK && uni != NULL &&
              strcmp(uni, nfc) == 0;
    if (ok)
        g_string_append(o, ace);
    idn2_free(ace);
    idn2_free(uni);
    g_free(nfc);
    g_free(lowered);
    g_free(host);
    return ok;
}
#endif

/* The end of the authority that starts at a: '/', '?', '#' (and '\' for
   a special scheme, WHATWG URL "special authority ... state"). */
static size_t authority_end(const char *s, size_t n, size_t a, bool special)
{
    size_t e = a;
    while (e < n && s[e] != '/' && s[e] != '?' && s[e] != '#' && !(special && s[e] == '\\'))
        e++;
    return e;
}

/* The scheme's length (RFC 3986 3.1: ALPHA *( ALPHA / DIGIT / "+" / "-"
   / "." ) then ':'), 0 when none. */
static size_t scheme_len(const char *s, size_t n)
{
    if (n == 0 || !g_ascii_isalpha(s[0]))
        return 0;
    for (size_t i = 1; i < n; i++) {
        if (s[i] == ':')
            return i;
        if (!g_ascii_isalnum(s[i]) && s[i] != '+' && s[i] != '-' && s[i] != '.')
            return 0;
    }
    return 0;
}

/* The authority s[a..e) into o: userinfo and port percent-encoded, the
   host of a special scheme by UTS #46. */
static bool authority_append(GString *o, const char *s, size_t a, size_t e, bool special)
{
    size_t hs = a;
    for (size_t i = e; i > a; i--)
        if (s[i - 1] == '@') {
            hs = i;
            break;
        }
    pct_append(o, s + a, hs - a);
    size_t he = e;
    if (hs < e && s[hs] != '[') {
        const char *colon = memchr(s + hs, ':', e - hs);
        if (colon != NULL)
            he = (size_t)(colon - s);
    }
    if (special && has_high(s + hs, he - hs)) {
#ifdef URISAN_HAVE_IDN2
        if (!host_append(o, s + hs, he - hs))
            return false;
#else
        return false;
#endif
    } else {
        pct_append(o, s + hs, he - hs);
    }
    pct_append(o, s + he, e - he);
    return true;
}

char *mail_iri_to_uri(const char *s, size_t n, size_t *out_len)
{
    if (!has_high(s, n) || !shown_utf8(s, n))
        return NULL;
    size_t sl = scheme_len(s, n);
    if (sl == 0)
        return NULL; /* a relative reference: its base decides */
    bool special = is_special(s, sl);
    GString *o = g_string_sized_new(n + n / 2 + 16);
    g_string_append_len(o, s, (gssize)sl + 1);
    size_t p = sl + 1;
    if (p + 1 < n && (s[p] == '/' || (special && s[p] == '\\')) &&
        (s[p + 1] == '/' || (special && s[p + 1] == '\\'))) {
        g_string_append_len(o, s + p, 2);
        size_t e = authority_end(s, n, p + 2, special);
        if (!authority_append(o, s, p + 2, e, special)) {
            g_string_free(o, TRUE);
            return NULL;
        }
        p = e;
    }
    pct_append(o, s + p, n - p);
    *out_len = o->len;
    return g_string_free(o, FALSE);
}
