/*
 * opened.c - a link written in Unicode (an IRI, RFC 3987) as the URI a
 * browser opens: the host of a WHATWG special scheme (http, https, ftp,
 * ws, wss, file) by UTS #46 to A-labels (libidn2, non-transitional), every
 * other non-ASCII byte as UTF-8 percent-encoding (RFC 3987 3.1, WHATWG URL
 * percent-encode sets). Judged as that URI, an ordinary IDN link is `idn`,
 * not `invalid`. Every mail door reads a link through this one function:
 * liburisan-mail (the milter, `extract --mail`), free-text `extract`, the
 * Python and Lua modules and the rspamd plugin (urisan_host.h).
 *
 * Fail closed: a link is left as written (and judged as written: raw
 * non-ASCII is `invalid`) when it is not valid UTF-8, holds a control,
 * format (bidi, zero-width), separator (no-break space, U+2028),
 * unassigned, private-use or other Default_Ignorable character, or a host that UTS #46 would change beyond
 * lower-casing and NFC (fullwidth letters, mathematical alphanumerics,
 * ignored code points) or that IDNA refuses: those are the tricks the
 * host flags (`host_uts46`, `invisible_char`) report on the written form.
 */
#include "host_internal.h"

#include <stdlib.h>
#include <string.h>

#include <idn2.h>
#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>
#include <unicode/utf8.h>

/* A growable output (the caller frees p); failed: out of memory. */
typedef struct {
    char *p;
    size_t len, cap;
    bool failed;
} obuf;

static void put(obuf *o, const char *s, size_t n)
{
    if (o->failed)
        return;
    if (n > o->cap - o->len) {
        size_t cap = o->cap * 2 + n;
        char *p = realloc(o->p, cap);
        if (p == NULL) {
            o->failed = true;
            return;
        }
        o->p = p;
        o->cap = cap;
    }
    memcpy(o->p + o->len, s, n);
    o->len += n;
}

/* Append s[0..n) with every byte >= 0x80 as %XX. */
static void put_pct(obuf *o, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && (unsigned char)s[j] < 0x80)
            j++;
        put(o, s + i, j - i);
        if (j == n)
            break;
        unsigned char c = (unsigned char)s[j];
        char e[3] = { '%', hex[c >> 4], hex[c & 15] };
        put(o, e, 3);
        i = j + 1;
    }
}

static bool has_high(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80)
            return true;
    return false;
}

/* Every character of s[0..n) is valid UTF-8 and shown: none is a
   control, format, unassigned, surrogate or private-use character, a
   space or line or paragraph separator (U+00A0, U+3000, U+2028: a
   linkifier ends a link there, Thunderbird's at U+00A0 and U+3000), nor
   Default_Ignorable (Unicode DerivedCoreProperties). */
static bool shown_utf8(const char *s, size_t n)
{
    if (n > INT32_MAX)
        return false;
    int32_t i = 0, len = (int32_t)n;
    while (i < len) {
        UChar32 c;
        U8_NEXT(s, i, len, c);
        if (c < 0)
            return false;
        if (c < 0x80)
            continue;
        int8_t t = u_charType(c);
        if (t == U_CONTROL_CHAR || t == U_FORMAT_CHAR || t == U_UNASSIGNED ||
            t == U_SURROGATE || t == U_PRIVATE_USE_CHAR || t == U_SPACE_SEPARATOR ||
            t == U_LINE_SEPARATOR || t == U_PARAGRAPH_SEPARATOR ||
            u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT))
            return false;
    }
    return true;
}

/* s[0..n) lower-cased (full case mapping, root locale) and NFC, as
   UTF-8 (malloc'd, NUL-terminated); NULL on failure. */
static char *lower_nfc(const char *s, size_t n)
{
    UErrorCode e = U_ZERO_ERROR;
    int32_t cap = (int32_t)n * 3 + 8, l16 = 0;
    UChar *a = malloc((size_t)cap * sizeof *a), *b = malloc((size_t)cap * sizeof *b);
    char *out = NULL;
    if (a == NULL || b == NULL)
        goto done;
    u_strFromUTF8(a, cap, &l16, s, (int32_t)n, &e);
    if (U_FAILURE(e))
        goto done;
    int32_t l2 = u_strToLower(b, cap, a, l16, "", &e);
    if (U_FAILURE(e))
        goto done;
    const UNormalizer2 *nfc = unorm2_getNFCInstance(&e);
    if (U_FAILURE(e))
        goto done;
    int32_t l3 = unorm2_normalize(nfc, b, l2, a, cap, &e);
    if (U_FAILURE(e))
        goto done;
    int32_t l8 = 0;
    out = malloc((size_t)cap * 3 + 1);
    if (out != NULL) {
        u_strToUTF8(out, cap * 3 + 1, &l8, a, l3, &e);
        if (U_FAILURE(e)) {
            free(out);
            out = NULL;
        }
    }
done:
    free(a);
    free(b);
    return out;
}

/* The host h[0..n) as A-labels, appended to o; false when IDNA refuses
   it or would change it beyond lower-casing and NFC (UTS #46 maps
   fullwidth, compatibility and ignored code points: left for the flags
   to see). */
static bool put_host(obuf *o, const char *h, size_t n)
{
    char *host = malloc(n + 1);
    if (host == NULL)
        return false;
    memcpy(host, h, n);
    host[n] = '\0';
    char *nfc = lower_nfc(h, n);
    char *ace = NULL, *uni = NULL;
    bool ok = nfc != NULL && memchr(h, '\0', n) == NULL &&
              idn2_to_ascii_8z(host, &ace, IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT) == IDN2_OK &&
              ace != NULL && idn2_to_unicode_8z8z(ace, &uni, 0) == IDN2_OK && uni != NULL &&
              strcmp(uni, nfc) == 0;
    if (ok)
        put(o, ace, strlen(ace));
    idn2_free(ace);
    idn2_free(uni);
    free(nfc);
    free(host);
    return ok;
}

static bool alpha(char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
static bool digit(char c) { return c >= '0' && c <= '9'; }

/* The scheme's length (RFC 3986 3.1: ALPHA *( ALPHA / DIGIT / "+" / "-"
   / "." ) then ':'), 0 when none. */
static size_t scheme_len(const char *s, size_t n)
{
    if (n == 0 || !alpha(s[0]))
        return 0;
    for (size_t i = 1; i < n; i++) {
        if (s[i] == ':')
            return i;
        if (!alpha(s[i]) && !digit(s[i]) && s[i] != '+' && s[i] != '-' && s[i] != '.')
            return 0;
    }
    return 0;
}

/* WHATWG URL "special scheme" */
static bool is_special(const char *s, size_t n)
{
    static const char *const names[] = {"http", "https", "ftp", "ws", "wss", "file"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t k = strlen(names[i]);
        if (k != n)
            continue;
        size_t j = 0;
        while (j < n && (s[j] | 0x20) == names[i][j])
            j++;
        if (j == n)
            return true;
    }
    return false;
}

/* The end of the authority that starts at a: '/', '?', '#' (and '\' for
   a special scheme, WHATWG URL "special authority ... state"). */
static size_t authority_end(const char *s, size_t n, size_t a, bool special)
{
    size_t e = a;
    while (e < n && s[e] != '/' && s[e] != '?' && s[e] != '#' && !(special && s[e] == '\\'))
        e++;
    return e;
}

/* The authority s[a..e) into o: userinfo and port percent-encoded, the
   host of a special scheme by UTS #46. */
static bool put_authority(obuf *o, const char *s, size_t a, size_t e, bool special)
{
    size_t hs = a;
    for (size_t i = e; i > a; i--)
        if (s[i - 1] == '@') {
            hs = i;
            break;
        }
    put_pct(o, s + a, hs - a);
    size_t he = e;
    if (hs < e && s[hs] != '[') {
        const char *colon = memchr(s + hs, ':', e - hs);
        if (colon != NULL)
            he = (size_t)(colon - s);
    }
    if (special && has_high(s + hs, he - hs)) {
        if (!put_host(o, s + hs, he - hs))
            return false;
    } else {
        put_pct(o, s + hs, he - hs);
    }
    put_pct(o, s + he, e - he);
    return true;
}

char *urisan_link_opened(const char *in, size_t len, size_t *out_len)
{
    *out_len = 0;
    if (len == 0 || !has_high(in, len) || !shown_utf8(in, len))
        return NULL;
    size_t sl = scheme_len(in, len);
    if (sl == 0)
        return NULL; /* a relative reference: its base decides */
    bool special = is_special(in, sl);
    obuf o = { NULL, 0, 0, false };
    put(&o, in, sl + 1);
    size_t p = sl + 1;
    if (p + 1 < len && (in[p] == '/' || (special && in[p] == '\\')) &&
        (in[p + 1] == '/' || (special && in[p + 1] == '\\'))) {
        put(&o, in + p, 2);
        size_t e = authority_end(in, len, p + 2, special);
        if (!put_authority(&o, in, p + 2, e, special)) {
            free(o.p);
            return NULL;
        }
        p = e;
    }
    put_pct(&o, in + p, len - p);
    if (o.failed) {
        free(o.p);
        return NULL;
    }
    *out_len = o.len;
    return o.p;
}

char *urisan_link_read_opened(const urisan_policy *pol, const char *in, size_t len,
                              urisan_uri *uri, urisan_report *rep, size_t *out_len)
{
    *out_len = 0;
    if (!(rep->flags & URISAN_F(NON_ASCII)))
        return NULL;
    char *conv = urisan_link_opened(in, len, out_len);
    if (conv != NULL)
        urisan_parse_analyze(conv, *out_len, pol, uri, NULL, rep);
    return conv;
}

char *urisan_judge_text_link(urisan_link_judge *lj, const urisan_policy *pol, urisan_hit *h,
                             const urisan_link_facts *f, const char **written,
                             size_t *written_len)
{
    urisan_report rep = f->rep;
    urisan_uri ou;
    size_t olen = 0;
    char *opened = urisan_link_read_opened(pol, h->uri, h->uri_len, &ou, &rep, &olen);
    *written = NULL;
    *written_len = 0;
    if (opened != NULL) {
        *written = h->uri;
        *written_len = h->uri_len;
        h->uri = opened;
        h->uri_len = olen;
    }
    urisan_judge_link_decide(lj, pol, h->uri, h->uri_len, opened != NULL ? &ou : &f->uri, &rep,
                             NULL, 0, &h->decision);
    h->flags = rep.flags;
    return opened;
}
