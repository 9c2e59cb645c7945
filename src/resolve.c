/*
 * resolve.c - RFC 3986 5.2 reference resolution into a caller buffer.
 *
 * 5.2.2 (transform references) and 5.3 (recomposition) as written, with
 * 5.2.4 done by dots.c in one linear pass over the 5.2.3 merge, which is
 * never materialised. Options from the seeds (SPEC section 5):
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

urisan_status urisan_resolve_ex(const char *base, size_t blen,
                                const char *ref, size_t rlen,
                                const urisan_resolve_opts *opt,
                                char *buf, size_t cap, size_t *needed,
                                urisan_flags *flags, urisan_error *err,
                                urisan_parts *parts)
{
    static const urisan_resolve_opts dflt = { 0, URISAN_ABOVE_ROOT_CLAMP, NULL };
    urisan_uri B, R;
    urisan_error e;
    urisan_status st;

    if (needed)
        *needed = 0;
    if (flags)
        *flags = 0;
    urisan_fail_in(err, URISAN_OK, 0, 0);
    if (opt == NULL)
        opt = &dflt;
    if (needed == NULL || (base == NULL && blen) || (ref == NULL && rlen) ||
        (buf == NULL && cap) || (unsigned)opt->above_root > URISAN_ABOVE_ROOT_REJECT) {
        urisan_fail_in(err, URISAN_E_BAD_ARGUMENT, 0, 0);
        return URISAN_E_BAD_ARGUMENT;
    }

    /* 5.2.1: the base must be an absolute URI. Its fragment, if any, is
       ignored (5.1: "stripped of any fragment component"). */
    st = urisan_parse(base, blen, opt->limits, &B, &e);
    if (st != URISAN_OK) {
        urisan_fail_in(err, st, e.offset, 0);
        return st;
    }
    if (!urisan_span_present(B.scheme)) {
        urisan_fail_in(err, URISAN_E_BASE_NOT_ABSOLUTE, 0, 0);
        return URISAN_E_BASE_NOT_ABSOLUTE;
    }
    st = urisan_parse(ref, rlen, opt->limits, &R, &e);
    if (st != URISAN_OK) {
        urisan_fail_in(err, st, e.offset, 1);
        return st;
    }

    /* 5.2.2, in its order. */
    bool r_scheme = urisan_span_present(R.scheme);
    if (r_scheme && opt->non_strict && span_ieq(ref, R.scheme, base, B.scheme))
        r_scheme = false; /* "http:g" is relative (seed draft C.2) */

    piece scheme, auth, query;
    piece frag = piece_of(ref, R.fragment);
    piece pa = { "", 0, true }, pb = { "", 0, true };  /* path = pa ++ pb */
    bool verbatim = false;  /* T.path = Base.path, no remove_dot_segments */
    bool merged = false;    /* T.path = merge(Base.path, R.path) (5.2.3) */
    size_t pa_off = 0, pb_off = 0;  /* offsets of pa in base, pb in ref */
    unsigned pa_in = 0;

    if (r_scheme) {
        scheme = piece_of(ref, R.scheme);
        auth = authority_of(ref, &R);
        pb = piece_of(ref, R.path);
        pb_off = R.path.off;
        query = piece_of(ref, R.query);
    } else {
        scheme = piece_of(base, B.scheme);
        if (R.host_type != URISAN_HOST_NONE) {
            auth = authority_of(ref, &R);
            pb = piece_of(ref, R.path);
            pb_off = R.path.off;
            query = piece_of(ref, R.query);
        } else {
            auth = authority_of(base, &B);
            if (R.path.len == 0) {
                /* T.path = Base.path; T.query = R.query if defined, else
                   Base.query. */
                verbatim = true;
                pa = piece_of(base, B.path);
                pa_off = B.path.off;
                query = urisan_span_present(R.query) ? piece_of(ref, R.query)
                                                     : piece_of(base, B.query);
            } else {
                if (ref[R.path.off] != '/') {
                    merged = true;
                    /* 5.2.3 merge: "/" ++ ref when the base has an
                       authority and an empty path; otherwise the base path
                       up to and including its last "/" ++ ref. */
                    if (auth.def && B.path.len == 0) {
                        pa.p = "/";
                        pa.n = 1;
                        pa_in = 2; /* synthesised: in neither input */
                    } else {
                        size_t k = B.path.len;
                        while (k > 0 && base[B.path.off + k - 1] != '/')
                            k--;
                        pa.p = base + B.path.off;
                        pa.n = k;
                        pa_off = B.path.off;
                    }
                }
                pb = piece_of(ref, R.path);
                pb_off = R.path.off;
                query = piece_of(ref, R.query);
            }
        }
    }

    /* Flags: judged on the target path before dot removal, with "%2e"
       as a dot (SPEC section 3), whatever the mode. */
    urisan_dots_info fi;
    /* Most paths have no place where a dot segment could start: one
       pre-check then stands for the three remove_dots passes (flags,
       length, write), and the path is a plain copy. */
    bool nodots = urisan_dots_none(pa.p, pa.n, pb.p, pb.n);
    if (nodots)
        memset(&fi, 0, sizeof fi);
    else
        urisan_remove_dots(pa.p, pa.n, pb.p, pb.n, URISAN_DOTS_RFC | URISAN_DOTS_PCT2E,
                           NULL, 0, &fi);
    if (flags) {
        if (fi.dots)
            *flags |= URISAN_F(DOT_SEGMENTS);
        if (fi.pct_dot)
            *flags |= URISAN_F(ENCODED_DOT);
        if (fi.above)
            *flags |= URISAN_F(DOT_ABOVE_ROOT) | URISAN_F(DOT_SEGMENTS);
    }
    if (fi.above && opt->above_root == URISAN_ABOVE_ROOT_REJECT) {
        if (fi.first_above < pa.n && pa_in == 0)
            urisan_fail_in(err, URISAN_E_ABOVE_ROOT, pa_off + fi.first_above, 0);
        else
            urisan_fail_in(err, URISAN_E_ABOVE_ROOT, pb_off + (fi.first_above - pa.n), 1);
        return URISAN_E_ABOVE_ROOT;
    }

    /* keep is RFC 2396 / the seed draft's 5.2, whose dot steps 3-7 are
       part of the merge routine: a reference with a scheme, an authority
       or an absolute path gives T.path = R.path as written (draft C.2
       "/./g = http://a/./g", "/../g = http://a/../g"; SPEC 5: every
       Appendix C example passes in its mode). The flags above are still
       judged on that path. It re-parses as it did in the reference (or,
       non-strict, as an absolute path under the base's authority). */
    if (opt->above_root == URISAN_ABOVE_ROOT_KEEP && !merged && !verbatim) {
        verbatim = true;
        pa = pb;
    }

    /* The path proper: 5.2.4 on the raw text (RFC 3986 does not decode
       "%2e" when resolving; normalisation does). */
    unsigned mode = (opt->above_root == URISAN_ABOVE_ROOT_KEEP) ? URISAN_DOTS_KEEP
                                                                : URISAN_DOTS_RFC;
    if (!auth.def)
        mode |= URISAN_DOTS_NOAUTH;
    urisan_dots_info pi;
    size_t plen;
    if (verbatim) {
        plen = pa.n;
    } else if (nodots) {
        urisan_dots_copy(pa.p, pa.n, pb.p, pb.n, mode, NULL, 0, &pi);
        plen = pi.len;
    } else {
        urisan_remove_dots(pa.p, pa.n, pb.p, pb.n, mode, NULL, 0, &pi);
        plen = pi.len;
    }

    /* 5.3 recomposition. */
    size_t total = scheme.n + 1 + (auth.def ? 2 + auth.n : 0) + plen +
                   (query.def ? 1 + query.n : 0) + (frag.def ? 1 + frag.n : 0);
    *needed = total;
    if (total > cap)
        return URISAN_E_NOSPACE;

    urisan_parts pt;
    const urisan_span none = { URISAN_ABSENT, 0 };
    size_t k = 0;
    pt.scheme.off = k;
    pt.scheme.len = scheme.n;
    k = put(buf, k, scheme.p, scheme.n);
    buf[k++] = ':';
    pt.authority = none;
    if (auth.def) {
        buf[k++] = '/';
        buf[k++] = '/';
        pt.authority.off = k;
        pt.authority.len = auth.n;
        k = put(buf, k, auth.p, auth.n);
    }
    pt.path.off = k;
    pt.path.len = plen;
    if (verbatim) {
        k = put(buf, k, pa.p, pa.n);
    } else if (nodots) {
        urisan_dots_copy(pa.p, pa.n, pb.p, pb.n, mode, buf + k, plen, &pi);
        k += plen;
    } else {
        urisan_remove_dots(pa.p, pa.n, pb.p, pb.n, mode, buf + k, plen, &pi);
        k += plen;
    }
    pt.query = none;
    if (query.def) {
        buf[k++] = '?';
        pt.query.off = k;
        pt.query.len = query.n;
        k = put(buf, k, query.p, query.n);
    }
    pt.fragment = none;
    if (frag.def) {
        buf[k++] = '#';
        pt.fragment.off = k;
        pt.fragment.len = frag.n;
        k = put(buf, k, frag.p, frag.n);
    }
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
