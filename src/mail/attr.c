/*
 * attr.c - an HTML attribute's URL as the browser reads it before it
 * parses it (WHATWG URL, "basic URL parser"): leading and trailing C0
 * controls and spaces stripped, every ASCII tab and newline (U+0009,
 * U+000A, U+000D) removed wherever it is, then, after the authority, the
 * bytes the parser percent-encodes (C0 controls, space, '"', '<', '>',
 * '`', DEL; '{' and '}' in the path: the path percent-encode set) written
 * as %XX. `href="http://a.example/ceaseandde\n sist.html"` opens
 * http://a.example/ceaseandde%20sist.html; a mailto: subject with spaces
 * and a line break opens with %20. Non-ASCII bytes are left to the IRI
 * reading (urisan_link_opened), which percent-encodes them as UTF-8.
 *
 * A fact about the written form that matters is kept apart: a tab or
 * newline removed inside the scheme or the authority (a host split over
 * two lines, `http://ev\nil.example/`) is told to the caller, which flags
 * it (whitespace) - the browser opens http://evil.example/.
 */
#include "mail_internal.h"

#include <stdlib.h>
#include <string.h>

static bool tabnl(unsigned char c) { return c == '\t' || c == '\n' || c == '\r'; }

/* The parser's percent-encode sets after the authority (WHATWG URL 1.3):
   the C0 control set (C0 controls, DEL; non-ASCII is the IRI reading's)
   and, for the path: space " # < > ? ` { }; the query: space " # < > (and
   ' for a special scheme); the fragment: space " < > `. */
typedef enum { P_PATH, P_QUERY, P_FRAGMENT } part;
static bool encoded(unsigned char c, part p, bool special)
{
    if (c < 0x20 || c == 0x7F || c == ' ' || c == '"' || c == '<' || c == '>')
        return true;
    switch (p) {
    case P_PATH: return c == '`' || c == '{' || c == '}';
    case P_QUERY: return special && c == '\'';
    case P_FRAGMENT: return c == '`';
    }
    return false;
}

static bool alpha(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }

/* s[a..e) starts with a scheme and ':' (tabs and newlines skipped, as the
   parser skips them); *special: it is a WHATWG special scheme. */
static bool scheme_of(const char *s, size_t a, size_t e, bool *special)
{
    char name[8];
    size_t n = 0;
    *special = false;
    for (size_t i = a; i < e; i++) {
        unsigned char c = (unsigned char)s[i];
        if (tabnl(c))
            continue;
        if (c == ':') {
            if (n == 0)
                return false;
            static const char *const sp[] = {"http", "https", "ws", "wss", "ftp", "file"};
            for (size_t k = 0; k < sizeof sp / sizeof sp[0]; k++)
                if (strlen(sp[k]) == n && n <= sizeof name && memcmp(sp[k], name, n) == 0)
                    *special = true;
            return true;
        }
        if (!(alpha(c) || (n > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'))))
            return false;
        if (n < sizeof name)
            name[n] = (char)(c | 0x20);
        n++;
    }
    return false;
}

char *mail_attr_url(const char *s, size_t n, size_t *out_len, bool *split_authority)
{
    *out_len = 0;
    *split_authority = false;
    size_t a = 0, e = n;
    while (a < e && (unsigned char)s[a] <= 0x20)
        a++;
    while (e > a && (unsigned char)s[e - 1] <= 0x20)
        e--;
    bool change = a > 0 || e < n;
    for (size_t i = a; i < e && !change; i++) {
        unsigned char c = (unsigned char)s[i];
        change = c < 0x20 || c == 0x7F || c == ' ' || c == '"' || c == '<' || c == '>' ||
                 c == '`' || c == '{' || c == '}' || c == '\'';
    }
    if (!change)
        return NULL;
    char *o = malloc((e - a) * 3 + 1);
    if (o == NULL)
        return NULL;
    bool special = false;
    /* the states: before the authority (the scheme, "//"), the authority
       (to the first '/', '?', '#', or '\' for a special scheme), then the
       path, query and fragment, each with its encode set */
    enum { SCHEME, AFTER_COLON, SLASH1, AUTH, PATH, QUERY, FRAG } st =
        scheme_of(s, a, e, &special) ? SCHEME : AFTER_COLON;
    size_t k = 0;
    for (size_t i = a; i < e; i++) {
        unsigned char c = (unsigned char)s[i];
        if (tabnl(c)) {
            if (st == SCHEME || st == AFTER_COLON || st == SLASH1 || st == AUTH)
                *split_authority = true;
            continue;
        }
        bool slash = c == '/' || (special && c == '\\');
        switch (st) {
        case SCHEME:
            if (c == ':')
                st = AFTER_COLON;
            break;
        case AFTER_COLON:
            st = slash ? SLASH1 : c == '?' ? QUERY : c == '#' ? FRAG : PATH;
            break;
        case SLASH1:
            st = slash ? AUTH : c == '?' ? QUERY : c == '#' ? FRAG : PATH;
            break;
        case AUTH:
            st = slash ? PATH : c == '?' ? QUERY : c == '#' ? FRAG : AUTH;
            break;
        case PATH:
            st = c == '?' ? QUERY : c == '#' ? FRAG : PATH;
            break;
        case QUERY:
            st = c == '#' ? FRAG : QUERY;
            break;
        case FRAG:
            break;
        }
        /* the delimiter itself ('?', '#') is written as it is */
        bool delim = (c == '?' && st == QUERY) || (c == '#' && st == FRAG);
        part p = st == PATH ? P_PATH : st == QUERY ? P_QUERY : P_FRAGMENT;
        if ((st == PATH || st == QUERY || st == FRAG) && !delim && encoded(c, p, special)) {
            static const char hex[] = "0123456789ABCDEF";
            o[k++] = '%';
            o[k++] = hex[c >> 4];
            o[k++] = hex[c & 15];
        } else {
            o[k++] = (char)c;
        }
    }
    o[k] = '\0';
    if (k == n && memcmp(o, s, n) == 0) { /* nothing the parser changes */
        free(o);
        return NULL;
    }
    *out_len = k;
    return o;
}
