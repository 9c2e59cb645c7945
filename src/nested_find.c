/*
 * nested_find.c - which parameter values of a URI are nested URLs
 * (nested_find.h; nested.c's header comment and doc/policy.md "Nested
 * URLs" say what counts as one). A value is read the way the
 * applications that follow it read it: the WHATWG
 * application/x-www-form-urlencoded parser ("+" is a space, decoded once)
 * hands it to the WHATWG URL parser (leading and trailing C0 controls and
 * spaces stripped, TAB LF CR removed anywhere), or an application strips
 * it first (Python's str.strip(), JavaScript's trim(): Unicode white
 * space too, nested_find.h). Whether a value starts a
 * URL is decided by a lazy decoder over the encoded text - blanks skipped
 * one by one however many there are, no buffer, each byte read a bounded
 * number of times: linear in the input.
 */
#include "nested_find.h"
#include "risk.h"
#include "simd.h"

#include <string.h>

/* Leading C0 controls and spaces, which the WHATWG URL parser strips. */
size_t urisan_nested_blanks(const char *b, size_t n)
{
    size_t i = 0;
    while (i < n && (unsigned char)b[i] <= 0x20)
        i++;
    return i;
}

/* What a client strips around a URL: C0 controls and space (WHATWG URL
   parser), and "+", a space to the form-urlencoded parser. */
static inline bool blank(int c)
{
    return c <= 0x20 || c == '+';
}

/* TAB, LF, CR: the WHATWG URL parser removes them anywhere. */
static inline bool tabnl(int c)
{
    return c == '\t' || c == '\n' || c == '\r';
}

static inline bool slash(int c)
{
    return c == '/' || c == '\\';
}

/* A value read a byte at a time, percent-decoded once or twice. */
typedef struct {
    const char *s;
    size_t n, i;
    unsigned times; /* 1 or 2 */
    bool esc2;      /* the second decoding decoded an escape */
} vread;

/* The next byte of s[*i..n) decoded once; -1 at the end. */
static ALWAYS_INLINE int get1(const char *s, size_t n, size_t *i)
{
    if (*i >= n)
        return -1;
    unsigned char c = (unsigned char)s[*i];
    if (c == '%' && is_escape_at(s, n, *i)) {
        c = (unsigned char)(hexval((unsigned char)s[*i + 1]) * 16 +
                            hexval((unsigned char)s[*i + 2]));
        *i += 3;
        return c;
    }
    (*i)++;
    return c;
}

/* The next byte of the value decoded r->times times; -1 at the end. The
   second decoding looks two decoded bytes ahead (each encoded byte is
   read at most three times). */
static ALWAYS_INLINE int vget(vread *r)
{
    int c = get1(r->s, r->n, &r->i);
    if (r->times == 2 && c == '%') {
        size_t j = r->i;
        int h = get1(r->s, r->n, &j), l = get1(r->s, r->n, &j);
        if (h >= 0 && l >= 0 && cc_is((unsigned char)h, CC_HEX) &&
            cc_is((unsigned char)l, CC_HEX)) {
            r->i = j;
            r->esc2 = true;
            return (int)(hexval((unsigned char)h) * 16 + hexval((unsigned char)l));
        }
    }
    return c;
}

/*
 * Does the value, read by r, start a URL? After any number of blanks:
 * two of "/" and "\" (a network-path reference as the WHATWG URL parser
 * reads it against a special page), or scheme ":" with scheme = ALPHA
 * *( ALPHA / DIGIT / "+" / "-" / "." ) (RFC 3986 3.1); TAB LF CR removed
 * in both. "+" counts as a blank before and as itself inside a scheme,
 * so both "+" readings (a space, or kept by a percent-only decoder) are
 * taken.
 */
/* The rest of a scheme: true at its ":". */
/* A scheme of any length: WHATWG and Python set no bound on it (its
   parse may then fail as too_long, which a profile judges). */
static bool reads_scheme(vread *r)
{
    for (;;) {
        int c = vget(r);
        if (c == ':')
            return true;
        if (c < 0)
            return false;
        if (!tabnl(c) && !cc_is((unsigned char)c, CC_SCHEME))
            return false;
    }
}

/* After the byte c read by r: the rest of a Unicode white space
   character (nested_find.h), consumed; false (r as it was) when c starts
   none. */
static bool uspace_rest(vread *r, int c)
{
    if (c < 0 || !urisan_uspace_lead((unsigned)c))
        return false;
    vread t = *r;
    char seq[3] = {(char)c, 0, 0};
    size_t k = 1;
    for (; k < 3; k++) {
        int d = vget(&t);
        if (d < 0)
            break;
        seq[k] = (char)d;
    }
    size_t n = urisan_uspace_len(seq, k);
    if (n == 0)
        return false;
    for (size_t i = 1; i < n; i++)
        vget(r);
    return true;
}

static bool reads_url(vread *r)
{
    int c;
    do
        c = vget(r);
    while (c >= 0 && (blank(c) || uspace_rest(r, c)));
    if (slash(c)) {
        do
            c = vget(r);
        while (c >= 0 && tabnl(c));
        return slash(c);
    }
    if (c < 0 || !cc_is((unsigned char)c, CC_ALPHA))
        return false;
    return reads_scheme(r);
}

/* Does the second decoding of v[0..n) decode an escape (read to the end)? */
static bool twice_differs(const char *v, size_t n)
{
    vread r = {v, n, 0, 2, false};
    while (!r.esc2 && vget(&r) >= 0) {
    }
    return r.esc2;
}

/* The common values settled on their raw bytes: a name or number (no
   URL), or a scheme or "//" written plainly (a URL). 2: undecided, the
   lazy reader goes on from *at (a scheme's first *at bytes read). */
static unsigned raw_start(const char *v, size_t n, size_t *at)
{
    unsigned char c = (unsigned char)v[0];
    *at = 0;
    if (cc_is(c, CC_ALPHA)) {
        for (size_t k = 1; k < n; k++) {
            unsigned char d = (unsigned char)v[k];
            if (d == ':')
                return 1;
            if (d == '%' || tabnl(d)) {
                *at = k;
                return 2;
            }
            if (!cc_is(d, CC_SCHEME))
                return 0;
        }
        return 0;
    }
    if (c == '/' || c == '\\') {
        unsigned char d = (unsigned char)v[1];
        return slash(d) ? 1 : d == '%' || tabnl(d) ? 2 : 0;
    }
    return c == '%' || blank(c) || (c >= 0xC2 && urisan_uspace_lead(c)) ? 2 : 0;
}

unsigned urisan_nested_reads(const char *v, size_t n, bool all)
{
    if (n < 2)
        return 0;
    size_t at;
    unsigned raw = raw_start(v, n, &at);
    if (raw == 0)
        return 0;
    vread r1 = {v, n, at, 1, false};
    if (raw == 1 || (at > 0 ? reads_scheme(&r1) : reads_url(&r1))) {
        if (!all || memchr(v, '%', n) == NULL || !twice_differs(v, n))
            return NESTED_ONCE;
        vread r2 = {v, n, 0, 2, false};
        return reads_url(&r2) ? NESTED_ONCE | NESTED_TWICE : NESTED_ONCE;
    }
    if (memchr(v, '%', n) == NULL)
        return 0;
    vread r2 = {v, n, 0, 2, false};
    return reads_url(&r2) ? NESTED_TWICE : 0;
}

/*
 * Percent-decode s[0..n) once into out: "%" HEX HEX gives its byte,
 * anything else is copied (an invalid "%" too). out may be s itself (the
 * write never passes the read). Returns the bytes written; *esc is set
 * when some escape was decoded.
 */
size_t urisan_nested_decode(const char *s, size_t n, char *out, bool *esc)
{
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t at = i;
        int c = get1(s, n, &i);
        *esc |= i - at == 3;
        out[o++] = (char)c;
    }
    return o;
}
