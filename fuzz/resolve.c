/*
 * fuzz/resolve.c - urisan_resolve against the literal RFC 3986 section 5.2
 * transcription of fuzz/ref_resolve.h (RFC 3986 section 5; fuzz/README.md).
 *
 * Input: BASE "\n" REFERENCE (split at the first LF; no LF: an empty
 * reference). Every input runs in the six modes {strict, non-strict} x
 * {clamp, keep, reject}.
 *
 * Invariants:
 *  1. an invalid base or reference fails with the parser's status and
 *     offset, and says which input (err.input 0 / 1); a base without a
 *     scheme fails with base_not_absolute;
 *  2. clamp: the result equals RFC 3986 5.2.2 + 5.2.3 + 5.2.4 + 5.3
 *     done literally; keep: equals the same with the seed draft's 5.2
 *     steps 3-7 (leading ".." retained) for the dots; both with the one
 *     documented deviation of doc/resolve.md ("/." before a "//" path
 *     without authority);
 *  3. reject fails with above_root exactly when the target path, with
 *     %2e read as a dot, climbs above the root in 5.2.4; otherwise it
 *     equals clamp;
 *  4. the flags (dot_segments, encoded_dot, dot_above_root) are judged
 *     on the target path before dot removal, in every mode;
 *  5. the (buf, cap, needed) contract: cap 0 and cap needed-1 give
 *     nospace with the same *needed, an exact-size buffer gives ok;
 *  6. the result is a valid URI that parses back into the components
 *     the oracle computed.
 */
#include "fuzz_util.h"
#include "ref_resolve.h"

static void dot_facts(const fuzz_str *path, int *dots, int *enc)
{
    *dots = *enc = 0;
    size_t i = 0;
    for (;;) {
        size_t e = i;
        while (e < path->len && path->p[e] != '/')
            e++;
        size_t d = 0, k = i;
        int pct = 0, ok = 1;
        while (k < e && ok) {
            if (path->p[k] == '.') {
                d++;
                k++;
            } else if (k + 3 <= e && path->p[k] == '%' &&
                       path->p[k + 1] == '2' && (path->p[k + 2] | 0x20) == 'e') {
                d++;
                pct = 1;
                k += 3;
            } else {
                ok = 0;
            }
        }
        if (ok && d >= 1 && d <= 2) {
            *dots = 1;
            if (pct)
                *enc = 1;
        }
        if (e >= path->len)
            break;
        i = e + 1;
    }
}

/* URISAN_FUZZ_TOLERATE=name,...: open findings to set aside in a campaign */
static int tolerate(const char *what)
{
    const char *t = getenv("URISAN_FUZZ_TOLERATE");
    return t != NULL && strstr(t, what) != NULL;
}

static const char *mode_name(urisan_above_root m)
{
    return m == URISAN_ABOVE_ROOT_CLAMP ? "clamp" : m == URISAN_ABOVE_ROOT_KEEP ? "keep" : "reject";
}

static void one(const char *base, size_t blen, const char *ref, size_t rlen, int non_strict,
                urisan_above_root mode)
{
    urisan_resolve_opts opt;
    opt.non_strict = non_strict;
    opt.above_root = mode;
    opt.limits = NULL;
    const char *m = mode_name(mode);
    const char *ns = non_strict ? "non-strict" : "strict";

    size_t needed = 12345;
    urisan_flags fl = 0;
    urisan_error err;
    urisan_status st = urisan_resolve(base, blen, ref, rlen, &opt, NULL, 0, &needed, &fl, &err);

    /* 1. invalid inputs */
    urisan_uri bu, ru;
    urisan_status bs = urisan_parse(base, blen, NULL, &bu, NULL);
    urisan_status rs = urisan_parse(ref, rlen, NULL, &ru, NULL);
    if (bs != URISAN_OK) {
        FUZZ_ASSERT(st == bs && err.input == 0 && err.offset == bu.error.offset,
                    "%s/%s: invalid base (%s at %zu) but resolve says %s at %zu input %u", ns, m,
                    fuzz_status(bs), bu.error.offset, fuzz_status(st), err.offset, err.input);
        return;
    }
    if (bu.scheme.off == URISAN_ABSENT) {
        FUZZ_ASSERT(st == URISAN_E_BASE_NOT_ABSOLUTE, "%s/%s: base without scheme gives %s", ns, m,
                    fuzz_status(st));
        return;
    }
    if (rs != URISAN_OK) {
        FUZZ_ASSERT(st == rs && err.input == 1 && err.offset == ru.error.offset,
                    "%s/%s: invalid reference (%s at %zu) but resolve says %s at %zu input %u", ns,
                    m, fuzz_status(rs), ru.error.offset, fuzz_status(st), err.offset, err.input);
        return;
    }

    /* 2. the oracle */
    fuzz_str want = {0}, target = {0}, t2 = {0}, scratch = {0};
    int has_auth = 0, reparses = 0;
    rr_resolve(base, blen, ref, rlen, non_strict,
               mode == URISAN_ABOVE_ROOT_KEEP ? RR_KEEP : RR_CLAMP, &want, &target, &has_auth,
               &reparses);

    /* 3 + 4. flags on the target path with %2e as a dot */
    size_t above = 0;
    rr_pct2e(&target, &t2);
    rr_remove_dot_segments(&t2, &scratch, &above);
    int dots, enc;
    dot_facts(&target, &dots, &enc);
    FUZZ_ASSERT(((fl & URISAN_F(DOT_ABOVE_ROOT)) != 0) == (above > 0),
                "%s/%s: dot_above_root is %d, the RFC 5.2.4 run on the target path \"%s\" pops %zu "
                "above the root",
                ns, m, (fl & URISAN_F(DOT_ABOVE_ROOT)) != 0, target.p, above);
    FUZZ_ASSERT(((fl & URISAN_F(DOT_SEGMENTS)) != 0) == dots, "%s/%s: dot_segments is %d, expected %d",
                ns, m, (fl & URISAN_F(DOT_SEGMENTS)) != 0, dots);
    FUZZ_ASSERT(((fl & URISAN_F(ENCODED_DOT)) != 0) == enc, "%s/%s: encoded_dot is %d, expected %d",
                ns, m, (fl & URISAN_F(ENCODED_DOT)) != 0, enc);
    FUZZ_ASSERT(!(fl & ~(URISAN_F(DOT_ABOVE_ROOT) | URISAN_F(DOT_SEGMENTS) | URISAN_F(ENCODED_DOT))),
                "%s/%s: resolve reports other flags", ns, m);

    if (mode == URISAN_ABOVE_ROOT_REJECT && above > 0) {
        FUZZ_ASSERT(st == URISAN_E_ABOVE_ROOT, "%s/%s: climbs above the root but status %s", ns, m,
                    fuzz_status(st));
        goto out;
    }
    FUZZ_ASSERT(st == URISAN_E_NOSPACE, "%s/%s: status %s with cap 0, expected nospace", ns, m,
                fuzz_status(st));

    /* 5. exact-size buffer, and one byte short */
    char *buf = (char *)malloc(needed ? needed : 1);
    size_t n2 = 0;
    st = urisan_resolve(base, blen, ref, rlen, &opt, buf, needed, &n2, NULL, &err);
    FUZZ_ASSERT(st == URISAN_OK && n2 == needed, "%s/%s: exact-size buffer gives %s", ns, m,
                fuzz_status(st));
    if (!fs_eq(&want, buf, needed) && mode == URISAN_ABOVE_ROOT_KEEP && target.len > 0 &&
        target.p[0] != '/' && tolerate("keep-rootless")) {
        /* An open finding a campaign may set aside (fuzz/README.md), so
           that it does not hide others; never tolerated in the replay. */
        fs_clear(&want);
        fs_add(&want, buf, needed);
    }
    if (!fs_eq(&want, buf, needed)) {
        fuzz_str got = {0};
        fs_add(&got, buf, needed);
        fuzz_fail("%s/%s: resolve gives \"%s\", the oracle (RFC 3986 5.2 clamp, seed draft 5.2 keep) gives \"%s\"", ns, m, got.p,
                  want.p);
    }
    if (needed > 0) {
        size_t n3 = 0;
        st = urisan_resolve(base, blen, ref, rlen, &opt, buf, needed - 1, &n3, NULL, &err);
        FUZZ_ASSERT(st == URISAN_E_NOSPACE && n3 == needed, "%s/%s: cap needed-1 gives %s", ns, m,
                    fuzz_status(st));
    }

    /* 6. valid, and parses back into the oracle's components */
    FUZZ_ASSERT(reparses, "%s/%s: the result \"%s\" re-parses into other components", ns, m, want.p);
    urisan_uri ou;
    urisan_status os = urisan_parse(buf, needed, NULL, &ou, NULL);
    FUZZ_ASSERT(os == URISAN_OK || os == URISAN_E_TOO_LONG,
                "%s/%s: result \"%s\" of two valid inputs is invalid (%s at %zu)", ns, m, want.p,
                fuzz_status(os), ou.error.offset);
    free(buf);
out:
    fs_free(&want);
    fs_free(&target);
    fs_free(&t2);
    fs_free(&scratch);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = fuzz_dup(data, size);
    size_t blen, rlen;
    const char *r;
    fuzz_split_nl(in, size, &blen, &r, &rlen);
    char *base = fuzz_dup_part(in, blen);
    char *ref = fuzz_dup_part(r, rlen);
    for (int ns = 0; ns < 2; ns++) {
        one(base, blen, ref, rlen, ns, URISAN_ABOVE_ROOT_CLAMP);
        one(base, blen, ref, rlen, ns, URISAN_ABOVE_ROOT_KEEP);
        one(base, blen, ref, rlen, ns, URISAN_ABOVE_ROOT_REJECT);
    }
    free(base);
    free(ref);
    fuzz_done(in);
    return 0;
}
