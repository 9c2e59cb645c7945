/*
 * linktext.c - link_text_mismatch (bit 28, urisan(1) FLAGS) for
 * liburisan-mail: the visible text of a link names a host whose
 * registrable domain (Public Suffix List, libpsl) differs from the href's.
 */
#include "mail_internal.h"

#include <string.h>

#include <glib.h>
#include <libpsl.h>
#ifdef URISAN_HAVE_IDN2
#include <idn2.h>
#endif

/* ------------------------------------------------------------------ */
/* link_text_mismatch                                                  */
/* ------------------------------------------------------------------ */

#define HOST_MAX 256

static int hexv(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (unsigned char)(c | 0x20);
    return (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
}

static bool all_digits_dots_ipv4(const char *h)
{
    int dots = 0, digits = 0;
    for (; *h; h++) {
        if (*h == '.') {
            if (digits == 0)
                return false;
            dots++;
            digits = 0;
        } else if (*h >= '0' && *h <= '9') {
            digits++;
        } else {
            return false;
        }
    }
    return dots == 3 && digits > 0;
}

/*
 * A host as a browser compares it: %XX decoded, ASCII lower-cased, the
 * trailing root dot dropped, non-ASCII converted to its A-label (IDNA,
 * with libidn2) so "bücher.example" and "xn--bcher-kva.example" are the
 * same. *ip: an IPv4 or bracketed IPv6 literal. false: no host name.
 */
static bool norm_host(const char *s, size_t n, char *out, size_t cap, bool *ip)
{
    size_t o = 0;
    bool high = false;
    *ip = false;
    if (n >= 2 && s[0] == '[') {
        *ip = true;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '%' && i + 2 < n && hexv((unsigned char)s[i + 1]) >= 0 &&
            hexv((unsigned char)s[i + 2]) >= 0) {
            c = (unsigned char)(hexv((unsigned char)s[i + 1]) * 16 + hexv((unsigned char)s[i + 2]));
            i += 2;
        }
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c | 0x20);
        bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                  c == '.' || c == '_' || c >= 0x80 ||
                  (*ip && (c == ':' || c == '[' || c == ']'));
        if (!ok || o + 1 >= cap)
            return false;
        if (c >= 0x80)
            high = true;
        out[o++] = (char)c;
    }
    while (o > 0 && out[o - 1] == '.')
        o--;
    out[o] = '\0';
    if (o == 0)
        return false;
    if (all_digits_dots_ipv4(out))
        *ip = true;
#ifdef URISAN_HAVE_IDN2
    if (high && !*ip) {
        char *ace = NULL;
        if (idn2_to_ascii_8z(out, &ace, IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT) == IDN2_OK &&
            ace != NULL && strlen(ace) < cap) {
            strcpy(out, ace);
        }
        idn2_free(ace);
    }
#else
    (void)high;
#endif
    return true;
}

static bool is_ws_byte(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

/* c is one of the bytes of set (never the terminator: NUL is data). */
static bool in_set(char c, const char *set) { return c != '\0' && strchr(set, c) != NULL; }

/* Does s[0..n) begin with the lower-case literal, ignoring case? */
static bool iprefix(const char *s, size_t n, const char *lit)
{
    size_t l = strlen(lit);
    return n >= l && g_ascii_strncasecmp(s, lit, l) == 0;
}

/*
 * The host a link's visible text names: "https://www.bank.example/x",
 * "www.bank.example", "bank.example/login", "help@bank.example",
 * "mailto:help@bank.example". The text must be one token (a sentence
 * names no single host).
 */
static bool display_host(const char *d, size_t n, char *out, size_t cap, bool *ip)
{
    size_t a = 0, e = n;
    /* white space, no-break spaces (C2 A0) and wrapping punctuation */
    for (;;) {
        if (a < e && (is_ws_byte((unsigned char)d[a]) || in_set(d[a], "<([{\"'"))) {
            a++;
        } else if (e - a >= 2 && (unsigned char)d[a] == 0xC2 && (unsigned char)d[a + 1] == 0xA0) {
            a += 2;
        } else {
            break;
        }
    }
    for (;;) {
        if (e > a && (is_ws_byte((unsigned char)d[e - 1]) || in_set(d[e - 1], ">)]}\"'.,;:!?"))) {
            e--;
        } else if (e - a >= 2 && (unsigned char)d[e - 2] == 0xC2 && (unsigned char)d[e - 1] == 0xA0) {
            e -= 2;
        } else {
            break;
        }
    }
    if (e <= a)
        return false;
    for (size_t i = a; i < e; i++)
        if (is_ws_byte((unsigned char)d[i]))
            return false;
    const char *s = d + a;
    size_t len = e - a, hs = 0, he;
    const char *css = NULL;
    for (size_t i = 0; i + 2 < len; i++) {
        if (s[i] == ':' && s[i + 1] == '/' && s[i + 2] == '/') {
            css = s + i;
            break;
        }
    }
    if (css != NULL) {
        hs = (size_t)(css - s) + 3;
        he = hs;
        while (he < len && !in_set(s[he], "/?#\\"))
            he++;
        for (size_t i = he; i > hs; i--) /* after the last '@' */
            if (s[i - 1] == '@') {
                hs = i;
                break;
            }
    } else {
        if (iprefix(s, len, "mailto:"))
            hs = 7;
        he = hs;
        while (he < len && !in_set(s[he], "/?#\\"))
            he++;
        for (size_t i = he; i > hs; i--) /* a mail address: its domain */
            if (s[i - 1] == '@') {
                hs = i;
                break;
            }
    }
    /* the port */
    if (hs < he && s[hs] == '[') {
        const char *rb = memchr(s + hs, ']', he - hs);
        if (rb == NULL)
            return false;
        he = (size_t)(rb - s) + 1;
    } else {
        const char *colon = memchr(s + hs, ':', he - hs);
        if (colon != NULL)
            he = (size_t)(colon - s);
    }
    if (!norm_host(s + hs, he - hs, out, cap, ip))
        return false;
    /* A bare word is no domain: "Click", "Invoice.pdf" (pdf is no TLD). */
    return *ip || strchr(out, '.') != NULL;
}

/* The hosts an href opens: the authority's host (TAB/LF/CR removed as
   browsers do), or for mailto: the domain of each address (RFC 6068:
   urisan_mailto_domain, the project's one reader of them; a message goes
   to every address). Call with *pos = 0; each call gives the next host;
   false: none is left (a relative or host-less link: nothing to compare). */
typedef struct {
    char buf[8192];
    size_t m;
    urisan_uri u;
    bool parsed, authority_done;
} href_state;

static bool href_next_host(href_state *st, const char *h, size_t n, size_t *pos, char *out,
                           size_t cap, bool *ip)
{
    if (!st->parsed) {
        st->m = 0;
        for (size_t i = 0; i < n; i++) {
            if (h[i] == '\t' || h[i] == '\n' || h[i] == '\r')
                continue;
            if (st->m == sizeof st->buf)
                return false;
            st->buf[st->m++] = h[i];
        }
        urisan_parse(st->buf, st->m, NULL, &st->u, NULL);
        st->parsed = true;
        st->authority_done = false;
    }
    if (urisan_span_present(st->u.host) && st->u.host.len > 0) {
        if (st->authority_done)
            return false;
        st->authority_done = true;
        return norm_host(st->buf + st->u.host.off, st->u.host.len, out, cap, ip);
    }
    urisan_span d;
    while (urisan_mailto_domain(st->buf, st->m, &st->u, pos, &d))
        if (norm_host(st->buf + d.off, d.len, out, cap, ip))
            return true;
    return false;
}

bool urisan_mail_link_text_mismatch(const char *display, size_t dlen,
                             const char *href, size_t hlen)
{
    char dh[HOST_MAX], hh[HOST_MAX];
    bool dip = false, hip = false;
    if (!display_host(display, dlen, dh, sizeof dh, &dip))
        return false;
    const psl_ctx_t *psl = mail_psl();
    if (psl == NULL)
        return false;
    const char *dreg = NULL;
    if (!dip) {
        /* The text names a domain only when its last label is a listed
           suffix: "readme.txt" is no domain, "bank.example.com" is. */
        const char *tld = strrchr(dh, '.');
        tld = tld ? tld + 1 : dh;
        if (!psl_is_public_suffix2(psl, tld, PSL_TYPE_ANY | PSL_TYPE_NO_STAR_RULE))
            return false;
        dreg = psl_registrable_domain(psl, dh);
        if (dreg == NULL)
            return false; /* the text is a public suffix itself */
    }
    /* every host the href opens must be the one the text names */
    href_state *st = g_new0(href_state, 1);
    size_t pos = 0, hosts = 0;
    bool mismatch = false;
    while (!mismatch && href_next_host(st, href, hlen, &pos, hh, sizeof hh, &hip)) {
        hosts++;
        if (dip)
            mismatch = strcmp(dh, hh) != 0;
        else if (hip)
            mismatch = true; /* a domain shown over an address */
        else {
            const char *hreg = psl_registrable_domain(psl, hh);
            mismatch = hreg == NULL || strcmp(hreg, dreg) != 0;
        }
    }
    g_free(st);
    return hosts > 0 && mismatch;
}
