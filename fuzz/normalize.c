/*
 * fuzz/normalize.c - urisan_normalize and urisan_equivalent (RFC 3986 6).
 *
 * Input: A, or A "\n" B (B is used for the equivalence checks).
 *
 * Invariants:
 *  1. an invalid input fails with the parser's status and offset;
 *  2. a valid input gives a valid output (nospace/exact-size contract as
 *     in resolve) that parses back into components present exactly where
 *     the input's were (a port may only disappear);
 *  3. idempotent: normalize(normalize(x)) == normalize(x);
 *  4. equivalent(x, normalize(x)); equivalent(a, b) is symmetric and is
 *     normalize(a) == normalize(b);
 *  5. each component is what RFC 3986 6.2.2/6.2.3 says, computed here
 *     independently: scheme lower-case; userinfo, query, fragment with
 *     escapes in normal form (hex upper-case, unreserved decoded, nothing
 *     else decoded); reg-name host the same and lower-case; port without
 *     leading zeros, dropped when empty or the default; a path with a
 *     scheme, an authority or a leading "/" is RFC 3986 5.2.4 of its
 *     escape-normal form ("%2e" is "."), "/" for an empty http(s)/ws(s)
 *     path with authority, "/." before a "//" path without authority.
 */
#include <strings.h>

#include "fuzz_util.h"
#include "ref_resolve.h"

static int ishex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static unsigned hv(unsigned char c)
{
    return c <= '9' ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
}

static int unreserved(unsigned v)
{
    return (v >= 'A' && v <= 'Z') || (v >= 'a' && v <= 'z') || (v >= '0' && v <= '9') ||
           v == '-' || v == '.' || v == '_' || v == '~';
}

static char up(char c) { return (c >= 'a' && c <= 'f') ? (char)(c - 32) : c; }
static char low(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c; }

/* RFC 3986 6.2.2.1 + 6.2.2.2 on s[0..n); lower: also lower-case letters. */
static void norm_esc(const char *s, size_t n, int lower, fuzz_str *o)
{
    fs_clear(o);
    fs_add(o, "", 0);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n && ishex((unsigned char)s[i + 1]) && ishex((unsigned char)s[i + 2])) {
            unsigned v = hv((unsigned char)s[i + 1]) * 16 + hv((unsigned char)s[i + 2]);
            if (unreserved(v)) {
                fs_addc(o, lower ? low((char)v) : (char)v);
            } else {
                fs_addc(o, '%');
                fs_addc(o, up(s[i + 1]));
                fs_addc(o, up(s[i + 2]));
            }
            i += 2;
        } else {
            fs_addc(o, lower ? low(s[i]) : s[i]);
        }
    }
}

static void expect_part(const char *what, const char *out, urisan_span got, const fuzz_str *want)
{
    if (got.off == URISAN_ABSENT || !fs_eq(want, out + got.off, got.len)) {
        fuzz_str g = {0};
        fs_add(&g, "", 0);
        if (got.off != URISAN_ABSENT)
            fs_add(&g, out + got.off, got.len);
        fuzz_fail("normalized %s is \"%s\", RFC 3986 6.2.2 gives \"%s\"", what, g.p, want->p);
    }
}

static void check_components(const char *in, const urisan_uri *u, const char *out, size_t olen)
{
    urisan_uri o;
    urisan_status st = urisan_parse(out, olen, NULL, &o, NULL);
    FUZZ_ASSERT(st == URISAN_OK, "normalized output is invalid: %s at %zu", fuzz_status(st),
                o.error.offset);
    FUZZ_ASSERT((u->scheme.off == URISAN_ABSENT) == (o.scheme.off == URISAN_ABSENT) &&
                    (u->host.off == URISAN_ABSENT) == (o.host.off == URISAN_ABSENT) &&
                    (u->userinfo.off == URISAN_ABSENT) == (o.userinfo.off == URISAN_ABSENT) &&
                    (u->query.off == URISAN_ABSENT) == (o.query.off == URISAN_ABSENT) &&
                    (u->fragment.off == URISAN_ABSENT) == (o.fragment.off == URISAN_ABSENT),
                "normalized output has other components than the input");
    FUZZ_ASSERT(u->port.off != URISAN_ABSENT || o.port.off == URISAN_ABSENT,
                "normalized output grew a port");
    /* 6.2.2.2 may decode a reg-name into dotted-decimal ("%31%32%37.0.0.1"
       -> "127.0.0.1"); no other host type changes. */
    FUZZ_ASSERT(o.host_type == u->host_type ||
                    (u->host_type == URISAN_HOST_REG_NAME && o.host_type == URISAN_HOST_IPV4),
                "host type changed from %d to %d", u->host_type, o.host_type);

    fuzz_str w = {0};
    if (u->scheme.off != URISAN_ABSENT) {
        norm_esc(in + u->scheme.off, u->scheme.len, 1, &w);
        expect_part("scheme", out, o.scheme, &w);
    }
    if (u->userinfo.off != URISAN_ABSENT) {
        norm_esc(in + u->userinfo.off, u->userinfo.len, 0, &w);
        expect_part("userinfo", out, o.userinfo, &w);
    }
    if (u->query.off != URISAN_ABSENT) {
        norm_esc(in + u->query.off, u->query.len, 0, &w);
        expect_part("query", out, o.query, &w);
    }
    if (u->fragment.off != URISAN_ABSENT) {
        norm_esc(in + u->fragment.off, u->fragment.len, 0, &w);
        expect_part("fragment", out, o.fragment, &w);
    }
    if (u->host_type == URISAN_HOST_REG_NAME) {
        norm_esc(in + u->host.off, u->host.len, 1, &w);
        expect_part("host", out, o.host, &w);
    }
    if (u->port.off != URISAN_ABSENT) {
        const char *p = in + u->port.off;
        size_t n = u->port.len, i = 0;
        while (i + 1 < n && p[i] == '0')
            i++;
        int drop = n == 0;
        if (!drop && n - i <= 5 && u->scheme.off != URISAN_ABSENT) {
            long v = 0;
            for (size_t j = i; j < n; j++)
                v = v * 10 + (p[j] - '0');
            drop = v == urisan_default_port(in + u->scheme.off, u->scheme.len);
        }
        if (drop) {
            FUZZ_ASSERT(o.port.off == URISAN_ABSENT, "empty or default port kept");
        } else {
            fs_clear(&w);
            fs_add(&w, p + i, n - i);
            expect_part("port", out, o.port, &w);
        }
    }
    /* path, except for a relative-path reference and mailto (6.2.3) */
    const char *p = in + u->path.off;
    int has_auth = u->host.off != URISAN_ABSENT;
    int rooted_form = u->scheme.off != URISAN_ABSENT || has_auth || (u->path.len > 0 && p[0] == '/');
    int mailto = u->scheme.off != URISAN_ABSENT && u->scheme.len == 6 &&
                 strncasecmp(in + u->scheme.off, "mailto", 6) == 0;
    if (rooted_form && !mailto) {
        fuzz_str e = {0}, d = {0};
        size_t above;
        norm_esc(p, u->path.len, 0, &e);
        rr_remove_dot_segments(&e, &d, &above);
        if (d.len == 0 && has_auth && u->scheme.off != URISAN_ABSENT) {
            static const char *slash[] = {"http", "https", "ws", "wss"};
            for (int k = 0; k < 4; k++)
                if (u->scheme.len == strlen(slash[k]) &&
                    strncasecmp(in + u->scheme.off, slash[k], u->scheme.len) == 0)
                    fs_add(&d, "/", 1);
        }
        if (!has_auth && d.len >= 2 && d.p[0] == '/' && d.p[1] == '/') {
            fs_clear(&e);
            fs_add(&e, "/.", 2);
            fs_add(&e, d.p, d.len);
            fs_clear(&d);
            fs_add(&d, e.p, e.len);
        }
        expect_part("path", out, o.path, &d);
        fs_free(&e);
        fs_free(&d);
    }
    fs_free(&w);
}

/* normalize into a fresh exact-size buffer; checks the cap contract. */
static urisan_status norm(const char *in, size_t len, char **out, size_t *olen, urisan_error *err)
{
    size_t needed = 777;
    *out = NULL;
    *olen = 0;
    urisan_status st = urisan_normalize(in, len, NULL, NULL, 0, &needed, err);
    if (st != URISAN_E_NOSPACE && st != URISAN_OK)
        return st;
    FUZZ_ASSERT(st == URISAN_E_NOSPACE || needed == 0, "cap 0 gives %s for %zu bytes", fuzz_status(st),
                needed);
    char *b = (char *)malloc(needed ? needed : 1);
    size_t n2 = 0;
    st = urisan_normalize(in, len, NULL, b, needed, &n2, err);
    FUZZ_ASSERT(st == URISAN_OK && n2 == needed, "exact-size buffer gives %s", fuzz_status(st));
    if (needed > 0) {
        size_t n3 = 0;
        urisan_status s3 = urisan_normalize(in, len, NULL, b, needed - 1, &n3, NULL);
        FUZZ_ASSERT(s3 == URISAN_E_NOSPACE && n3 == needed, "cap needed-1 gives %s", fuzz_status(s3));
    }
    *out = b;
    *olen = needed;
    return URISAN_OK;
}

static int equiv(const char *a, size_t an, const char *b, size_t bn, urisan_status *st)
{
    size_t needed = 0;
    int eq = -1;
    urisan_error err;
    *st = urisan_equivalent(a, an, b, bn, NULL, NULL, 0, &needed, &eq, &err);
    if (*st != URISAN_E_NOSPACE && *st != URISAN_OK)
        return -1;
    char *w = (char *)malloc(needed ? needed : 1);
    size_t n2 = 0;
    *st = urisan_equivalent(a, an, b, bn, NULL, w, needed, &n2, &eq, &err);
    FUZZ_ASSERT(*st == URISAN_OK && n2 == needed, "equivalent with an exact work area gives %s",
                fuzz_status(*st));
    free(w);
    return eq;
}

static void one(const char *in, size_t len, char **nout, size_t *nlen)
{
    urisan_uri u;
    urisan_status ps = urisan_parse(in, len, NULL, &u, NULL);
    urisan_error err;
    char *out;
    size_t olen;
    urisan_status st = norm(in, len, &out, &olen, &err);
    *nout = NULL;
    *nlen = 0;
    if (ps != URISAN_OK) {
        FUZZ_ASSERT(st == ps && err.offset == u.error.offset,
                    "invalid input (%s at %zu) normalizes with %s at %zu", fuzz_status(ps),
                    u.error.offset, fuzz_status(st), err.offset);
        return;
    }
    FUZZ_ASSERT(st == URISAN_OK, "valid input fails to normalize: %s", fuzz_status(st));
    check_components(in, &u, out, olen);

    char *out2;
    size_t olen2;
    urisan_error e2;
    st = norm(out, olen, &out2, &olen2, &e2);
    FUZZ_ASSERT(st == URISAN_OK, "normalize(normalize(x)) fails: %s", fuzz_status(st));
    if (olen2 != olen || memcmp(out, out2, olen) != 0) {
        fuzz_str a = {0}, b = {0};
        fs_add(&a, out, olen);
        fs_add(&b, out2, olen2);
        fuzz_fail("not idempotent: \"%s\" then \"%s\"", a.p, b.p);
    }
    free(out2);
    urisan_status es;
    FUZZ_ASSERT(equiv(in, len, out, olen, &es) == 1, "x is not equivalent to normalize(x) (%s)",
                fuzz_status(es));
    *nout = out;
    *nlen = olen;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = fuzz_dup(data, size);
    size_t alen, blen;
    const char *bp;
    fuzz_split_nl(in, size, &alen, &bp, &blen);

    char *na = NULL, *nb = NULL;
    size_t nal = 0, nbl = 0;
    one(in, size, &na, &nal); /* the whole input, newline and all */
    free(na);
    na = NULL;
    if (alen < size) {
        char *a = fuzz_dup_part(in, alen);
        char *b = fuzz_dup_part(bp, blen);
        one(a, alen, &na, &nal);
        one(b, blen, &nb, &nbl);
        urisan_status s1, s2;
        int e1 = equiv(a, alen, b, blen, &s1);
        int e2 = equiv(b, blen, a, alen, &s2);
        FUZZ_ASSERT(e1 == e2, "equivalent is not symmetric (%d, %d)", e1, e2);
        if (na != NULL && nb != NULL)
            FUZZ_ASSERT(e1 == (nal == nbl && memcmp(na, nb, nal) == 0),
                        "equivalent(a,b)=%d but the normal forms are %s", e1,
                        e1 ? "different" : "equal");
        else
            FUZZ_ASSERT(e1 == -1 || e1 == 0, "equivalent with an invalid side says %d", e1);
        free(a);
        free(b);
    }
    free(na);
    free(nb);
    fuzz_done(in);
    return 0;
}
