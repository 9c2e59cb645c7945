/*
 * ref_resolve.h - the resolution oracle: RFC 3986 section 5.2 transcribed
 * literally (5.2.2 pseudocode, 5.2.3 merge, the 5.2.4 input/output-buffer
 * algorithm, 5.3 recomposition), and for the `keep` above-root mode the
 * seed draft's section 5.2 (draft-fielding-uri-rfc2396bis-00): its
 * pseudocode copies an unmerged reference path as written, and steps 3-7
 * process a merged one.
 * Quadratic string rewriting and malloc are fine here: it is the obviously
 * correct version the fast resolver is compared with.
 */
#ifndef URISAN_FUZZ_REF_RESOLVE_H
#define URISAN_FUZZ_REF_RESOLVE_H

#include <strings.h>

#include "fuzz_util.h"
#include "ref_split.h"

typedef struct {
    int def;
    fuzz_str s;
} rr_part;

typedef struct {
    rr_part scheme, authority, path, query, fragment;
} rr_uri;

static inline void rr_set(rr_part *p, const char *s, urisan_span sp)
{
    fs_clear(&p->s);
    fs_add(&p->s, "", 0);
    p->def = sp.off != URISAN_ABSENT;
    if (p->def)
        fs_add(&p->s, s + sp.off, sp.len);
}

static inline void rr_copy(rr_part *d, const rr_part *s)
{
    fs_clear(&d->s);
    fs_add(&d->s, s->s.p ? s->s.p : "", s->s.len);
    d->def = s->def;
}

static inline void rr_undef(rr_part *p)
{
    fs_clear(&p->s);
    fs_add(&p->s, "", 0);
    p->def = 0;
}

static inline void rr_free(rr_uri *u)
{
    fs_free(&u->scheme.s);
    fs_free(&u->authority.s);
    fs_free(&u->path.s);
    fs_free(&u->query.s);
    fs_free(&u->fragment.s);
}

/* RFC 3986 Appendix B (the path is always defined). */
static inline void rr_parse(const char *s, size_t n, rr_uri *u)
{
    ref_split rs;
    ref_split_appendix_b(s, n, &rs);
    memset(u, 0, sizeof *u);
    rr_set(&u->scheme, s, rs.scheme);
    rr_set(&u->authority, s, rs.authority);
    rr_set(&u->path, s, rs.path);
    rr_set(&u->query, s, rs.query);
    rr_set(&u->fragment, s, rs.fragment);
}

static inline int rr_starts(const fuzz_str *s, const char *lit)
{
    size_t n = strlen(lit);
    return s->len >= n && memcmp(s->p, lit, n) == 0;
}

static inline int rr_is(const fuzz_str *s, const char *lit)
{
    return s->len == strlen(lit) && memcmp(s->p, lit, s->len) == 0;
}

static inline void rr_drop_front(fuzz_str *s, size_t n)
{
    memmove(s->p, s->p + n, s->len - n);
    s->len -= n;
    s->p[s->len] = '\0';
}

/*
 * RFC 3986 5.2.4, the input-buffer / output-buffer algorithm as written.
 * *above counts the ".." that had nothing to remove: rule A's "../"
 * prefix, rule C with an empty output buffer, rule D's lone "..".
 */
static inline void rr_remove_dot_segments(const fuzz_str *path, fuzz_str *out, size_t *above)
{
    fuzz_str in = {0};
    fs_add(&in, path->p ? path->p : "", path->len);
    fs_clear(out);
    fs_add(out, "", 0);
    *above = 0;
    /* 2. While the input buffer is not empty, loop as follows: */
    while (in.len > 0) {
        if (rr_starts(&in, "../")) {
            /* A. remove the prefix "../" */
            rr_drop_front(&in, 3);
            (*above)++;
        } else if (rr_starts(&in, "./")) {
            /* A. remove the prefix "./" */
            rr_drop_front(&in, 2);
        } else if (rr_starts(&in, "/./")) {
            /* B. replace the prefix "/./" with "/" */
            rr_drop_front(&in, 2);
        } else if (rr_is(&in, "/.")) {
            /* B. "/." where "." is a complete path segment -> "/" */
            rr_drop_front(&in, 1);
            in.p[0] = '/';
        } else if (rr_starts(&in, "/../") || rr_is(&in, "/..")) {
            /* C. replace the prefix with "/" and remove the last segment
               and its preceding "/" (if any) from the output buffer */
            if (rr_starts(&in, "/../"))
                rr_drop_front(&in, 3);
            else {
                rr_drop_front(&in, 2);
                in.p[0] = '/';
            }
            if (out->len == 0) {
                (*above)++;
            } else {
                size_t k = out->len;
                while (k > 0 && out->p[k - 1] != '/')
                    k--;
                out->len = k > 0 ? k - 1 : 0;
                out->p[out->len] = '\0';
            }
        } else if (rr_is(&in, ".") || rr_is(&in, "..")) {
            /* D. remove it */
            if (rr_is(&in, ".."))
                (*above)++;
            in.len = 0;
        } else {
            /* E. move the first path segment (with its initial "/", if
               any, up to but not including the next "/") to the output */
            size_t k = (in.p[0] == '/') ? 1 : 0;
            while (k < in.len && in.p[k] != '/')
                k++;
            fs_add(out, in.p, k);
            rr_drop_front(&in, k);
        }
    }
    fs_free(&in);
}

/* 1 when b[i..) starts a complete path segment (the root "/" of an
   absolute path is not preceded by one). */
static inline int rr_seg_start(const fuzz_str *b, size_t i)
{
    return i == 0 ? (b->len > 0 && b->p[0] != '/') : b->p[i - 1] == '/';
}

/* The complete segment starting at i ends at the returned index. */
static inline size_t rr_seg_end(const fuzz_str *b, size_t i)
{
    while (i < b->len && b->p[i] != '/')
        i++;
    return i;
}

/*
 * Seed draft (draft-fielding-uri-rfc2396bis-00) 5.2, steps 3 to 7 on the
 * buffer string, retaining leading ".." (step 7, first option: the `keep`
 * mode). Steps 1-2 (the merge) are done by the caller.
 */
static inline void rr_draft_dots(fuzz_str *b)
{
    /* 3. All occurrences of "./", where "." is a complete path segment,
       are removed. */
    for (size_t i = 0; i < b->len;) {
        if (b->p[i] == '.' && i + 1 < b->len && b->p[i + 1] == '/' &&
            (i == 0 || b->p[i - 1] == '/')) {
            memmove(b->p + i, b->p + i + 2, b->len - i - 2);
            b->len -= 2;
            b->p[b->len] = '\0';
        } else {
            i++;
        }
    }
    /* 4. If the buffer string ends with "." as a complete path segment,
       that "." is removed. */
    if (b->len >= 1 && b->p[b->len - 1] == '.' && (b->len == 1 || b->p[b->len - 2] == '/')) {
        b->len--;
        b->p[b->len] = '\0';
    }
    /* 5. All occurrences of "<segment>/../", where <segment> is a
       complete path segment not equal to "..", are removed, leftmost
       first, until no matching pattern remains. */
    for (;;) {
        int done = 1;
        for (size_t i = 0; i <= b->len; i++) {
            if (!rr_seg_start(b, i))
                continue;
            size_t e = rr_seg_end(b, i);
            if (e - i == 2 && b->p[i] == '.' && b->p[i + 1] == '.')
                continue;
            if (e + 4 <= b->len && memcmp(b->p + e, "/../", 4) == 0) {
                memmove(b->p + i, b->p + e + 4, b->len - e - 4);
                b->len -= e + 4 - i;
                b->p[b->len] = '\0';
                done = 0;
                break;
            }
        }
        if (done)
            break;
    }
    /* 6. If the buffer string ends with "<segment>/..", where <segment>
       is a complete path segment not equal to "..", that "<segment>/.."
       is removed. */
    if (b->len >= 3 && memcmp(b->p + b->len - 3, "/..", 3) == 0) {
        size_t e = b->len - 3, i = e;
        while (i > 0 && b->p[i - 1] != '/')
            i--;
        int is_seg = (i > 0) || (b->p[0] != '/');
        if (is_seg && !(e - i == 2 && b->p[i] == '.' && b->p[i + 1] == '.')) {
            b->len = i;
            b->p[b->len] = '\0';
        }
    }
    /* 7. leading ".." segments are retained (keep). 8. done. */
}

enum { RR_CLAMP, RR_KEEP };

/*
 * RFC 3986 5.2.2 (strict unless non_strict), 5.2.3 merge, path dots by
 * 5.2.4 (clamp) or the draft's steps (keep), 5.3 recomposition into *out.
 * *target_path receives T.path before dot removal (for the flags).
 */
static inline void rr_resolve(const char *base, size_t blen, const char *ref, size_t rlen,
                              int non_strict, int mode, fuzz_str *out, fuzz_str *target_path,
                              int *has_authority, int *reparses)
{
    rr_uri B, R, T;
    rr_parse(base, blen, &B);
    rr_parse(ref, rlen, &R);
    memset(&T, 0, sizeof T);
    int dot_removal = 1, was_merged = 0;
    fuzz_str merged = {0};
    fs_add(&merged, "", 0);

    /* -- A non-strict parser may ignore a scheme in the reference if it
       is identical to the base URI's scheme. (Scheme names compare
       without case, 3.1.) */
    if (non_strict && R.scheme.def && R.scheme.s.len == B.scheme.s.len &&
        strncasecmp(R.scheme.s.p, B.scheme.s.p, R.scheme.s.len) == 0)
        rr_undef(&R.scheme);

    if (R.scheme.def) {
        rr_copy(&T.scheme, &R.scheme);
        rr_copy(&T.authority, &R.authority);
        rr_copy(&T.path, &R.path); /* remove_dot_segments(R.path) below */
        rr_copy(&T.query, &R.query);
    } else {
        if (R.authority.def) {
            rr_copy(&T.authority, &R.authority);
            rr_copy(&T.path, &R.path);
            rr_copy(&T.query, &R.query);
        } else {
            if (R.path.s.len == 0) {
                rr_copy(&T.path, &B.path);
                dot_removal = 0;
                if (R.query.def)
                    rr_copy(&T.query, &R.query);
                else
                    rr_copy(&T.query, &B.query);
            } else {
                if (R.path.s.p[0] == '/') {
                    rr_copy(&T.path, &R.path);
                } else {
                    /* 5.2.3 merge */
                    if (B.authority.def && B.path.s.len == 0) {
                        fs_add(&merged, "/", 1);
                        fs_add(&merged, R.path.s.p, R.path.s.len);
                    } else {
                        size_t k = B.path.s.len;
                        while (k > 0 && B.path.s.p[k - 1] != '/')
                            k--;
                        fs_add(&merged, B.path.s.p, k);
                        fs_add(&merged, R.path.s.p, R.path.s.len);
                    }
                    T.path.def = 1;
                    fs_clear(&T.path.s);
                    fs_add(&T.path.s, merged.p, merged.len);
                    was_merged = 1;
                }
                rr_copy(&T.query, &R.query);
            }
            rr_copy(&T.authority, &B.authority);
        }
        rr_copy(&T.scheme, &B.scheme);
    }
    rr_copy(&T.fragment, &R.fragment);

    fs_clear(target_path);
    fs_add(target_path, T.path.s.p ? T.path.s.p : "", T.path.s.len);
    if (dot_removal) {
        fuzz_str o = {0};
        size_t above;
        if (mode == RR_CLAMP) {
            rr_remove_dot_segments(&T.path.s, &o, &above);
        } else {
            /* The seed draft's pseudocode: T.path = R.path for a
               reference with a scheme, an authority or an absolute path
               ("/./g" = "http://a/./g", C.2); only the merge of a
               relative path runs steps 3-7. */
            fs_add(&o, T.path.s.p ? T.path.s.p : "", T.path.s.len);
            if (was_merged)
                rr_draft_dots(&o);
        }
        fs_clear(&T.path.s);
        fs_add(&T.path.s, o.p, o.len);
        fs_free(&o);
    }

    /* urisan's documented deviation (doc/resolve.md): a path that starts
       with "//" in a URI without authority would re-parse with its first
       segment as the authority ("f:/a" + ".//g" -> "f://g"); it is
       written "/." + path, the same path after remove_dot_segments. */
    if (!T.authority.def && T.path.s.len >= 2 && T.path.s.p[0] == '/' && T.path.s.p[1] == '/') {
        fuzz_str o = {0};
        fs_add(&o, "/.", 2);
        fs_add(&o, T.path.s.p, T.path.s.len);
        fs_clear(&T.path.s);
        fs_add(&T.path.s, o.p, o.len);
        fs_free(&o);
    }

    /* 5.3 Component Recomposition */
    fs_clear(out);
    fs_add(out, "", 0);
    if (T.scheme.def) {
        fs_add(out, T.scheme.s.p, T.scheme.s.len);
        fs_addc(out, ':');
    }
    if (T.authority.def) {
        fs_add(out, "//", 2);
        fs_add(out, T.authority.s.p ? T.authority.s.p : "", T.authority.s.len);
    }
    fs_add(out, T.path.s.p ? T.path.s.p : "", T.path.s.len);
    if (T.query.def) {
        fs_addc(out, '?');
        fs_add(out, T.query.s.p ? T.query.s.p : "", T.query.s.len);
    }
    if (T.fragment.def) {
        fs_addc(out, '#');
        fs_add(out, T.fragment.s.p ? T.fragment.s.p : "", T.fragment.s.len);
    }
    *has_authority = T.authority.def;
    /* Does the recomposed string parse back into T's components? */
    rr_uri P;
    rr_parse(out->p, out->len, &P);
    *reparses = 1;
    rr_part *tp[] = {&T.scheme, &T.authority, &T.path, &T.query, &T.fragment};
    rr_part *pp[] = {&P.scheme, &P.authority, &P.path, &P.query, &P.fragment};
    for (int i = 0; i < 5; i++)
        if (tp[i]->def != pp[i]->def || tp[i]->s.len != pp[i]->s.len ||
            (tp[i]->s.len && memcmp(tp[i]->s.p, pp[i]->s.p, tp[i]->s.len) != 0))
            *reparses = 0;
    rr_free(&P);
    fs_free(&merged);
    rr_free(&B);
    rr_free(&R);
    rr_free(&T);
}

/* "%2e" / "%2E" read as "." (encoded_dot, doc/policy.md: a server that decodes first). */
static inline void rr_pct2e(const fuzz_str *in, fuzz_str *out)
{
    fs_clear(out);
    fs_add(out, "", 0);
    for (size_t i = 0; i < in->len; i++) {
        if (i + 2 < in->len && in->p[i] == '%' && in->p[i + 1] == '2' &&
            (in->p[i + 2] == 'e' || in->p[i + 2] == 'E')) {
            fs_addc(out, '.');
            i += 2;
        } else {
            fs_addc(out, in->p[i]);
        }
    }
}

#endif
