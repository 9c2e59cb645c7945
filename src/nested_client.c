/*
 * nested_client.c - the URL a client reads in a decoded parameter value
 * (nested_find.h), as the WHATWG URL parser reads it against a page with
 * a special scheme:
 *   - leading and trailing C0 controls and spaces are stripped, and "+"
 *     (a space to the form-urlencoded parser) with them, and the Unicode
 *     white space that an application's str.strip() or trim() takes
 *     away before it fetches the value (nested_find.h);
 *   - TAB, LF and CR are removed anywhere;
 *   - a special scheme (http, https, ws, wss, ftp, file) followed by any
 *     number of "/" or "\" - none included: "http:h", "http:/h",
 *     "http:\\h", "http:///h" - has an authority: written "scheme://";
 *   - two or more of "/" and "\" start a network-path reference: "//";
 *   - in both, "\" is "/" up to the query or fragment.
 * "+" inside the value is kept: the URL parser would percent-encode the
 * space it stands for, and the host stays the same. One pass, no
 * allocation: the text is written to out + 2 and rewritten in place.
 */
#include "nested_find.h"
#include "risk.h"

#include <string.h>

static inline bool blank(unsigned char c)
{
    return c <= 0x20 || c == '+';
}

static inline bool slash(unsigned char c)
{
    return c == '/' || c == '\\';
}

/* The WHATWG URL Standard's special schemes, case-insensitive. */
static bool special(const char *s, size_t n)
{
    static const char *const names[] = {"http", "https", "ws", "wss", "ftp", "file"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (urisan_ieq(s, n, names[i]))
            return true;
    return false;
}

/* Where the authority starts in r[0..n): after "scheme:" of a special
   scheme, or at the first of two slashes; n: no authority to rewrite.
   *k: the bytes kept before it ("scheme:"). */
static size_t authority_at(const char *r, size_t n, size_t *k)
{
    *k = 0;
    if (n >= 2 && slash((unsigned char)r[0]) && slash((unsigned char)r[1]))
        return 0;
    if (n == 0 || !cc_is((unsigned char)r[0], CC_ALPHA))
        return n;
    size_t c = 1;
    while (c < n && cc_is((unsigned char)r[c], CC_SCHEME))
        c++;
    if (c >= n || r[c] != ':' || !special(r, c))
        return n;
    *k = c + 1;
    return c + 1;
}

/* Rewrite r[0..n) into w (w <= r - 2 bytes before it, or the same
   buffer 2 bytes behind): the authority as "//", "\" as "/" before the
   query. Returns the bytes written. */
static size_t rewrite(char *w, const char *r, size_t n)
{
    size_t k, a = authority_at(r, n, &k);
    if (a == n) {
        memmove(w, r, n);
        return n;
    }
    size_t o = 0, i = 0;
    for (; i < k; i++)
        w[o++] = r[i];
    while (i < n && slash((unsigned char)r[i]))
        i++;
    w[o++] = '/';
    w[o++] = '/';
    bool in_query = false;
    for (; i < n; i++) {
        char c = r[i];
        in_query |= c == '?' || c == '#';
        w[o++] = c == '\\' && !in_query ? '/' : c;
    }
    return o;
}

/* Is r[0..n) (no blanks around it, no TAB LF CR) already as rewrite()
   would write it? */
static bool written_so(const char *r, size_t n)
{
    size_t k, a = authority_at(r, n, &k);
    if (a == n)
        return true;
    if (k + 2 > n || r[k] != '/' || r[k + 1] != '/' || (k + 2 < n && slash((unsigned char)r[k + 2])))
        return false;
    for (size_t i = k + 2; i < n && r[i] != '?' && r[i] != '#'; i++)
        if (r[i] == '\\')
            return false;
    return true;
}

static bool has_tabnl(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\t' || s[i] == '\n' || s[i] == '\r')
            return true;
    return false;
}

int urisan_nested_client(const char *s, size_t n, size_t lead, char *out, size_t cap, size_t *m)
{
    size_t i = lead, e = n, k;
    for (;;) {
        if (i < e && blank((unsigned char)s[i]))
            i++;
        else if ((k = urisan_uspace_len(s + i, e - i)) != 0)
            i += k;
        else
            break;
    }
    for (;;) {
        if (e > i && blank((unsigned char)s[e - 1]))
            e--;
        else if ((k = urisan_uspace_tail(s + i, e - i)) != 0)
            e -= k;
        else
            break;
    }
    if (i == lead && e == n && !has_tabnl(s + i, e - i) && written_so(s + i, e - i))
        return 0;
    if (out == NULL || e - i > cap || cap - (e - i) < 2)
        return -1;
    char *r = out + 2;
    size_t rn = 0;
    for (size_t j = i; j < e; j++)
        if (s[j] != '\t' && s[j] != '\n' && s[j] != '\r')
            r[rn++] = s[j];
    *m = rewrite(out, r, rn);
    return 1;
}
