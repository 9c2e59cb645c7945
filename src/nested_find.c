/*
 * nested_find.c - which parameter values of a URI are nested URLs
 * (nested_find.h; nested.c's header comment and doc/policy.md "Nested
 * URLs" say what counts as one). Only a bounded prefix of each value is
 * decoded, on the stack: no buffer, linear in the input.
 */
#include "nested_find.h"
#include "risk.h"
#include "simd.h"

#include <string.h>

/* How much of a value's decoded text decides whether it is a URL: up to
   a scheme of POL_MAX_NAME bytes and its ":", after leading blanks. */
#define PEEK 80u

static bool span_in(urisan_span s, size_t len)
{
    return s.off != URISAN_ABSENT && s.off <= len && s.len <= len - s.off;
}

/* Leading C0 controls and spaces, which the WHATWG URL parser strips. */
size_t urisan_nested_blanks(const char *b, size_t n)
{
    size_t i = 0;
    while (i < n && (unsigned char)b[i] <= 0x20)
        i++;
    return i;
}

/*
 * Does decoded text b[0..n) (a prefix of a value) start a URL? Two of
 * "/" and "\" (a network-path reference as browsers read it), or
 * scheme ":" with scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
 * (RFC 3986 3.1), TAB LF CR inside it removed as browsers do.
 */
static bool starts_url(const char *b, size_t n)
{
    size_t i = urisan_nested_blanks(b, n);
    if (i + 1 < n && (b[i] == '/' || b[i] == '\\') && (b[i + 1] == '/' || b[i + 1] == '\\'))
        return true;
    if (i >= n || !cc_is((unsigned char)b[i], CC_ALPHA))
        return false;
    size_t sch = 1;
    for (size_t k = i + 1; k < n && sch <= POL_MAX_NAME; k++) {
        unsigned char c = (unsigned char)b[k];
        if (c == ':')
            return true;
        if (cc_is(c, CC_TABNL))
            continue;
        if (!cc_is(c, CC_SCHEME))
            return false;
        sch++;
    }
    return false;
}

/* Can byte c be part of a URL's start (blanks, a scheme, its ":", "/",
   "\\") or of an escape that decodes to one ("%" and hex digits)? */
static bool prefix_byte(unsigned char c)
{
    return cc_is(c, CC_SCHEME) || c == '%' || c == '/' || c == '\\' || c <= 0x20;
}

/*
 * Percent-decode s[0..n) once into out[0..cap): "%" HEX HEX gives its
 * byte, anything else is copied (an invalid "%" too); stops when out is
 * full. out may be s itself (the write never passes the read). peek: stop
 * after the first ":" or the first byte no URL start holds, so only the
 * part that decides is decoded. Returns the bytes written; *esc is set
 * when some escape was decoded.
 */
size_t urisan_nested_decode(const char *s, size_t n, char *out, size_t cap, bool peek, bool *esc)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '%' && is_escape_at(s, n, i)) {
            c = (unsigned char)(hexval((unsigned char)s[i + 1]) * 16 +
                                hexval((unsigned char)s[i + 2]));
            i += 2;
            *esc = true;
        }
        out[o++] = (char)c;
        if (peek && (c == ':' || !prefix_byte(c)))
            break;
    }
    return o;
}

/*
 * How often v[0..n) must be percent-decoded to be a nested URL: 1 (once;
 * also when it holds no escape), 2 (only the second decoding makes it
 * one: "http%253A%252F%252F..."), 0 (no URL). Looks at a bounded prefix.
 */
unsigned urisan_nested_decodes(const char *v, size_t n)
{
    char b1[3 * PEEK], b2[PEEK];
    bool e1 = false, e2 = false;
    /* the first byte decides most values: a name or a number */
    unsigned char c0 = n > 0 ? (unsigned char)v[0] : 0;
    if (n < 2 || !(cc_is(c0, CC_ALPHA) || c0 == '%' || c0 == '/' || c0 == '\\' || c0 <= 0x20))
        return 0;
    size_t m = n < sizeof b1 ? n : sizeof b1;
    if (starts_url(v, m < PEEK ? m : PEEK))
        return 1; /* its start has no escape: decoding keeps it */
    if (memchr(v, '%', m) == NULL)
        return 0;
    size_t n1 = urisan_nested_decode(v, n, b1, sizeof b1, true, &e1);
    if (starts_url(b1, n1 < PEEK ? n1 : PEEK))
        return 1;
    if (!e1 || memchr(b1, '%', n1) == NULL)
        return 0;
    size_t n2 = urisan_nested_decode(b1, n1, b2, sizeof b2, true, &e2);
    return e2 && starts_url(b2, n2) ? 2 : 0;
}


void urisan_params_init(param_iter *it, const char *t, size_t len, const urisan_uri *u)
{
    it->t = t;
    it->pos = it->end = 0;
    it->fs = URISAN_ABSENT;
    it->fe = 0;
    bool q = span_in(u->query, len), f = span_in(u->fragment, len);
    if (q) {
        it->pos = u->query.off;
        it->end = u->query.off + u->query.len;
    }
    if (f) {
        if (q) {
            it->fs = u->fragment.off;
            it->fe = u->fragment.off + u->fragment.len;
        } else {
            it->pos = u->fragment.off;
            it->end = u->fragment.off + u->fragment.len;
        }
    }
}

/* The next parameter with an "=": name t[*ns..*vs - 1), value t[*vs..*ve). */
bool urisan_params_next(param_iter *it, size_t *ns, size_t *vs, size_t *ve)
{
    for (;;) {
        while (it->pos < it->end) {
            size_t s = it->pos, eq = URISAN_ABSENT, e = s;
            for (;;) {
                e = simd_param_stop(it->t, e, it->end); /* "&" ";" "=" */
                if (e < it->end && it->t[e] == '=') {
                    if (eq == URISAN_ABSENT)
                        eq = e;
                    e++;
                    continue;
                }
                break;
            }
            it->pos = e + 1;
            if (eq != URISAN_ABSENT) {
                *ns = s;
                *vs = eq + 1;
                *ve = e;
                return true;
            }
        }
        if (it->fs == URISAN_ABSENT)
            return false;
        it->pos = it->fs;
        it->end = it->fe;
        it->fs = URISAN_ABSENT;
    }
}

bool urisan_nested_any(const char *in, size_t len, const urisan_uri *u)
{
    param_iter it;
    size_t ns, vs, ve;
    urisan_params_init(&it, in, len, u);
    while (urisan_params_next(&it, &ns, &vs, &ve))
        if (urisan_nested_decodes(in + vs, ve - vs) != 0)
            return true;
    return false;
}

