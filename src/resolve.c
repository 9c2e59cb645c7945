/*
 * resolve.c - RFC 3986 5.2 reference resolution into a caller buffer.
 *
 * 5.2.2 (transform references) and 5.3 (recomposition) as written, with
 * 5.2.4 done by dots.c in one linear pass over the 5.2.3 merge, which is
 * never materialised. Options from the seeds (doc/resolve.md):
 *  - non_strict: seed draft 5.2 / RFC 3986 5.2.2 "if ((not strict) and
 *    (R.scheme == Base.scheme))": the reference's scheme is ignored.
 *  - above_root (seed draft 5.2 step 7): clamp (RFC 3986), keep (RFC
 *    2396), reject (URISAN_E_ABOVE_ROOT).
 * Deliberate differences from the literal RFC text, all so that the
 * output re-parses into exactly the components computed here, are in
 * doc/resolve.md ("//" path without authority -> "/.//").
 */
#include "internal.h"

#include <string.h>

typedef struct {
    const char *p;
    size_t n;
    bool def;
} piece;

static piece piece_of(const char *s, urisan_span sp)
{
    piece x = { NULL, 0, false };
    if (urisan_span_present(sp)) {
        x.p = s + sp.off;
        x.n = sp.len;
        x.def = true;
    }
    return x;
}

/* authority = the text after "//" up to the path (3.2); defined iff the
   parser found a host (an empty host still means an authority). */
static piece authority_of(const char *s, const urisan_uri *u)
{
    piece x = { NULL, 0, false };
    if (u->host_type != URISAN_HOST_NONE) {
        size_t as = (urisan_span_present(u->scheme) ? u->scheme.len + 1 : 0) + 2;
        x.p = s + as;
        x.n = u->path.off - as;
        x.def = true;
    }
    return x;
}

static bool span_ieq(const char *a, urisan_span sa, const char *b, urisan_span sb)
{
    if (sa.len != sb.len)
        return false;
    for (size_t i = 0; i < sa.len; i++)
        if (lower_ascii((unsigned char)a[sa.off + i]) !=
            lower_ascii((unsigned char)b[sb.off + i]))
            return false;
    return true;
}

static size_t put(char *buf, size_t k, const char *p, size_t n)
{
    if (n)
        memcpy(buf + k, p, n);
    return k + n;
}

/* The target T of 5.2.2 as pieces of the two inputs: its path is
   pa ++ pb (the 5.2.3 merge, never materialised). */
typedef struct {
    piece scheme, auth, query, frag;
    piece pa, pb;
    bool verbatim;     /* T.path = Base.path, no remove_dot_segments */
    bool merged;       /* T.path = merge(Base.path, R.path) (5.2.3) */
    size_t pa_off;     /* offset of pa in base */
    size_t pb_off;     /* offset of pb in ref */
    unsigned pa_in;    /* 0: pa is in base; 2: synthesised, in neither */
    bool nodots;       /* pa ++ pb has no place where a dot segment starts */
    unsigned mode;     /* URISAN_DOTS_* for the path proper */
    size_t plen;       /* length of the path proper */
} target;

/* Both inputs parsed (5.2.1: the base must be an absolute URI; its
   fragment, if any, is ignored: 5.1 "stripped of any fragment"). */
static urisan_status parse_inputs(const char *base, size_t blen, const char *ref, size_t rlen,
                                  const urisan_resolve_opts *opt, urisan_uri *B, urisan_uri *R,
                                  urisan_error *err)
{
    urisan_error e;
    urisan_status st = urisan_parse(base, blen, opt->limits, B, &e);
    if (st != URISAN_OK)
        return urisan_fail_in(err, st, e.offset, 0);
    if (!urisan_span_present(B->scheme))
        return urisan_fail_in(err, URISAN_E_BASE_NOT_ABSOLUTE, 0, 0);
    st = urisan_parse(ref, rlen, opt->limits, R, &e);
    if (st != URISAN_OK)
        return urisan_fail_in(err, st, e.offset, 1);
    return URISAN_OK;
}

/* T.path = R.path (with R's query): a reference with an authority or a
   scheme of its own. */
static void path_of_ref(target *t, const char *ref, const urisan_uri *R)
{
    t->pb = piece_of(ref, R->path);
    t->pb_off = R->path.off;
    t->query = piece_of(ref, R->query);
}

/* 5.2.2 for a reference without scheme and authority: the base's
   authority, and the path and query as the reference's path says. */
static void path_from_base(target *t, const char *base, const urisan_uri *B,
                           const char *ref, const urisan_uri *R)
{
    t->auth = authority_of(base, B);
    if (R->path.len == 0) {
        /* T.path = Base.path; T.query = R.query if defined, else
           Base.query. */
        t->verbatim = true;
        t->pa = piece_of(base, B->path);
        t->pa_off = B->path.off;
        t->query = urisan_span_present(R->query) ? piece_of(ref, R->query)
                                                 : piece_of(base, B->query);
        return;
    }
    if (ref[R->path.off] != '/') {
        t->merged = true;
        /* 5.2.3 merge: "/" ++ ref when the base has an authority and an
           empty path; otherwise the base path up to and including its
           last "/" ++ ref. */
        if (t->auth.def && B->path.len == 0) {
            t->pa.p = "/";
            t->pa.n = 1;
            t->pa_in = 2; /* synthesised: in neither input */
        } else {
            size_t k = B->path.len;
            while (k > 0 && base[B->path.off + k - 1] != '/')
                k--;
            t->pa.p = base + B->path.off;
            t->pa.n = k;
            t->pa_off = B->path.off;
        }
    }
    path_of_ref(t, ref, R);
}

/* RFC 3986 5.2.2, in its order. */
static void transform(target *t, const char *base, const urisan_uri *B,
                      const char *ref, const urisan_uri *R, const urisan_resolve_opts *opt)
{
    static const piece empty = { "", 0, true };
    bool r_scheme = urisan_span_present(R->scheme);
    if (r_scheme && opt->non_strict && span_ieq(ref, R->scheme, base, B->scheme))
        r_scheme = false; /* "http:g" is relative (seed draft C.2) */

    memset(t, 0, sizeof *t);
    t->pa = t->pb = empty;
    t->frag = piece_of(ref, R->fragment);
    t->scheme = r_scheme ? piece_of(ref, R->scheme) : piece_of(base, B->scheme);
    if (r_scheme || R->host_type != URISAN_HOST_NONE) {
        t->auth = authority_of(ref, R);
        path_of_ref(t, ref, R);
    } else {
        path_from_base(t, base, B, ref, R);
    }
}

/* Flags: judged on the target path before dot removal, with "%2e" as a
   dot (encoded_dot, doc/policy.md), whatever the mode; with above_root
   reject, a ".." with nothing to pop is the error (at its offset in base
   or ref). Most
   paths have no place where a dot segment could start: one pre-check then
   stands for the three remove_dots passes (flags, length, write). */
static urisan_status judge_dots(target *t, const urisan_resolve_opts *opt,
                                urisan_flags *flags, urisan_error *err)
{
    urisan_dots_info fi;
    t->nodots = urisan_dots_none(t->pa.p, t->pa.n, t->pb.p, t->pb.n);
    if (t->nodots)
        memset(&fi, 0, sizeof fi);
    else
        urisan_remove_dots(t->pa.p, t->pa.n, t->pb.p, t->pb.n,
                           URISAN_DOTS_RFC | URISAN_DOTS_PCT2E, NULL, 0, &fi);
    if (flags) {
        if (fi.dots)
            *flags |= URISAN_F(DOT_SEGMENTS);
        if (fi.pct_dot)
            *flags |= URISAN_F(ENCODED_DOT);
        if (fi.above)
            *flags |= URISAN_F(DOT_ABOVE_ROOT) | URISAN_F(DOT_SEGMENTS);
    }
    if (fi.above && opt->above_root == URISAN_ABOVE_ROOT_REJECT) {
        if (fi.first_above < t->pa.n && t->pa_in == 0)
            return urisan_fail_in(err, URISAN_E_ABOVE_ROOT, t->pa_off + fi.first_above, 0);
        return urisan_fail_in(err, URISAN_E_ABOVE_ROOT, t->pb_off + (fi.first_above - t->pa.n),
                              1);
    }
    return URISAN_OK;
}

/* The path proper: its mode and length. keep is RFC 2396 / the seed
   draft's 5.2, whose dot steps 3-7 are part of the merge routine: a
   reference with a scheme, an authority or an absolute path gives
   T.path = R.path as written (draft C.2 "/./g = http://a/./g", "/../g =
   http://a/../g"; doc/resolve.md: every Appendix C example passes in its
   mode).
   The flags are still judged on that path. It re-parses as it did in the
   reference (or, non-strict, as an absolute path under the base's
   authority). Otherwise 5.2.4 on the raw text (RFC 3986 does not decode
   "%2e" when resolving; normalisation does). */
static void path_proper(target *t, const urisan_resolve_opts *opt)
{
    if (opt->above_root == URISAN_ABOVE_ROOT_KEEP && !t->merged && !t->verbatim) {
        t->verbatim = true;
        t->pa = t->pb;
    }
    t->mode = (opt->above_root == URISAN_ABOVE_ROOT_KEEP) ? URISAN_DOTS_KEEP : URISAN_DOTS_RFC;
    if (!t->auth.def)
        t->mode |= URISAN_DOTS_NOAUTH;
    urisan_dots_info pi;
    if (t->verbatim) {
        t->plen = t->pa.n;
    } else if (t->nodots) {
        urisan_dots_copy(t->pa.p, t->pa.n, t->pb.p, t->pb.n, t->mode, NULL, 0, &pi);
        t->plen = pi.len;
    } else {
        urisan_remove_dots(t->pa.p, t->pa.n, t->pb.p, t->pb.n, t->mode, NULL, 0, &pi);
        t->plen = pi.len;
    }
}

/* 5.3 recomposition into buf (room checked by the caller); pt gets where
   each component lies. */
static void recompose(const target *t, char *buf, urisan_parts *pt)
{
    const urisan_span none = { URISAN_ABSENT, 0 };
    urisan_dots_info pi;
    size_t k = 0;
    pt->scheme.off = k;
    pt->scheme.len = t->scheme.n;
    k = put(buf, k, t->scheme.p, t->scheme.n);
    buf[k++] = ':';
    pt->authority = none;
    if (t->auth.def) {
        buf[k++] = '/';
        buf[k++] = '/';
        pt->authority.off = k;
        pt->authority.len = t->auth.n;
        k = put(buf, k, t->auth.p, t->auth.n);
    }
    pt->path.off = k;
    pt->path.len = t->plen;
    if (t->verbatim)
        k = put(buf, k, t->pa.p, t->pa.n);
    else if (t->nodots)
        urisan_dots_copy(t->pa.p, t->pa.n, t->pb.p, t->pb.n, t->mode, buf + k, t->plen, &pi);
    else
        urisan_remove_dots(t->pa.p, t->pa.n, t->pb.p, t->pb.n, t->mode, buf + k, t->plen, &pi);
    if (!t->verbatim)
        k += t->plen;
    pt->query = none;
    if (t->query.def) {
        buf[k++] = '?';
        pt->query.off = k;
        pt->query.len = t->query.n;
        k = put(buf, k, t->query.p, t->query.n);
    }
    pt->fragment = none;
    if (t->frag.def) {
        buf[k++] = '#';
        pt->fragment.off = k;
        pt->fragment.len = t->frag.n;
        (void)put(buf, k, t->frag.p, t->frag.n);
    }
}

urisan_status urisan_resolve_ex(const char *base, size_t blen,
                                const char *ref, size_t rlen,
                                const urisan_resolve_opts *opt,
                                char *buf, size_t cap, size_t *needed,
                                urisan_flags *flags, urisan_error *err,
                                urisan_parts *parts)
{
    static const urisan_resolve_opts dflt = { 0, URISAN_ABOVE_ROOT_CLAMP, NULL };
    urisan_uri B, R;
    target t;

    if (needed)
        *needed = 0;
    if (flags)
        *flags = 0;
    (void)urisan_fail(err, URISAN_OK, 0);
    if (opt == NULL)
        opt = &dflt;
    if (needed == NULL || (base == NULL && blen) || (ref == NULL && rlen) ||
        (buf == NULL && cap) || (unsigned)opt->above_root > URISAN_ABOVE_ROOT_REJECT)
        return urisan_fail(err, URISAN_E_BAD_ARGUMENT, 0);
    urisan_status st = parse_inputs(base, blen, ref, rlen, opt, &B, &R, err);
    if (st != URISAN_OK)
        return st;
    transform(&t, base, &B, ref, &R, opt);
    st = judge_dots(&t, opt, flags, err);
    if (st != URISAN_OK)
        return st;
    path_proper(&t, opt);

    size_t total = t.scheme.n + 1 + (t.auth.def ? 2 + t.auth.n : 0) + t.plen +
                   (t.query.def ? 1 + t.query.n : 0) + (t.frag.def ? 1 + t.frag.n : 0);
    *needed = total;
    if (total > cap)
        return URISAN_E_NOSPACE;
    urisan_parts pt;
    recompose(&t, buf, &pt);
    urisan_nul_after(buf, cap, total);
    if (parts)
        *parts = pt;
    return URISAN_OK;
}

URISAN_API urisan_status urisan_resolve(const char *base, size_t blen,
                                        const char *ref, size_t rlen,
                                        const urisan_resolve_opts *opt,
                                        char *buf, size_t cap, size_t *needed,
                                        urisan_flags *flags,
                                        urisan_error *err)
{
    return urisan_resolve_ex(base, blen, ref, rlen, opt, buf, cap, needed,
                             flags, err, NULL);
}
