/*
 * fuzz/serve.c - `urisan serve`'s URI rebuilt from any header bytes, and
 * the answer (src/cli/serve_uri.c; doc/gateways.md).
 *
 * Input: byte 0 picks the trust (which sources, in which order, and
 * whether --strip-prefix /authz is set) and the built-in profile; the rest is split at LF: the
 * first piece is the request-target, each further piece is a header
 * whose first byte picks the name (one of the eight serve reads, or one
 * it ignores) and whose remaining bytes are the value (any bytes: NUL,
 * CR, non-ASCII). Every value is an exact-size allocation.
 *
 * Invariants:
 *  1. one well-formed decision: status 200 or 403, 403 exactly when the
 *     verdict is deny; reason lists are "-" or comma-separated names of
 *     [a-z0-9_]; a 200 has no deny reason; a request with no URI is
 *     denied with exactly the rebuild status's name;
 *  2. the rebuilt URI fits the buffer (exact-size: a write past it
 *     faults) and one byte less says too_long; rebuilding is
 *     deterministic;
 *  3. a URI composed from proto, host and path keeps the host's bytes
 *     in the authority: the parsed path starts at the first "/" after
 *     "://" and there is no userinfo, so no header value moves bytes
 *     from one component into another;
 *  4. the verdict equals urisan_check's on the rebuilt URI (plus deny
 *     when it is not absolute with a host);
 *  5. a header source's authority is its own host header's bytes
 *     (X-Original-Host, X-Forwarded-Host), never the sub-request's Host,
 *     which names the service as the gateway calls it.
 */
#include "fuzz_util.h"
#include "serve_uri.h"

#define MAX_PARTS 16

static void check_words(const char *w, const char *what)
{
    size_t n = strlen(w);
    FUZZ_ASSERT(n > 0 && n < SERVE_REASONS_MAX, "%s reasons length %zu", what, n);
    if (strcmp(w, "-") == 0)
        return;
    FUZZ_ASSERT(w[0] != ',' && w[n - 1] != ',' && strstr(w, ",,") == NULL,
                "%s reasons badly separated: %s", what, w);
    for (size_t i = 0; i < n; i++) {
        char c = w[i];
        FUZZ_ASSERT((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == ',',
                    "%s reasons hold byte 0x%02x: %s", what, (unsigned char)c, w);
    }
}

static void pick_trust(unsigned char b, urisan_request_trust *t)
{
    serve_trust_default(t);
    if (b & 0x80) {
        /* a rotation of all four sources, then drop some from the end */
        size_t rot = b & 3, n = 1 + ((b >> 2) & 3);
        for (size_t i = 0; i < URISAN_REQSRC_COUNT_; i++)
            t->order[i] = (urisan_request_source)((i + rot) % URISAN_REQSRC_COUNT_);
        t->n = n;
    }
    if (b & 0x40) {
        t->strip_prefix = "/authz";
        t->strip_len = 6;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    char *in = fuzz_dup(data, size);
    urisan_request_trust trust;
    pick_trust((unsigned char)in[0], &trust);

    /* pieces: exact-size copies */
    char *part[MAX_PARTS];
    size_t plen[MAX_PARTS], nparts = 0;
    const char *p = in + 1;
    size_t left = size - 1;
    while (nparts < MAX_PARTS) {
        size_t alen, blen;
        const char *b;
        fuzz_split_nl(p, left, &alen, &b, &blen);
        part[nparts] = fuzz_dup_part(p, alen);
        plen[nparts] = alen;
        nparts++;
        if (b == p + left)
            break;
        p = b;
        left = blen;
    }

    urisan_request r;
    urisan_request_init(&r);
    r.target = part[0];
    r.target_len = plen[0];
    for (size_t i = 1; i < nparts; i++) {
        if (plen[i] == 0)
            continue;
        unsigned id = (unsigned char)part[i][0] % (URISAN_REQH_COUNT_ + 1);
        const char *name = id < URISAN_REQH_COUNT_ ? urisan_request_header_name((urisan_request_header)id)
                                               : "X-Not-Read";
        urisan_request_add(&r, name, strlen(name), part[i] + 1, plen[i] - 1);
    }

    /* bits 4-5 of byte 0: the built-in profile (default, proxy, ssrf,
       mail in urisan_profile_name order; proxy says require-authority) */
    urisan_policy *pol = (urisan_policy *)malloc(urisan_policy_size());
    if (pol == NULL)
        abort();
    urisan_policy_init(pol);
    const char *profile = urisan_profile_name(((unsigned char)in[0] >> 4) & 3);
    if (profile != NULL)
        FUZZ_ASSERT(urisan_policy_profile(pol, profile, strlen(profile)) == URISAN_OK,
                    "profile %s", profile);

    size_t cap = size + 96;
    char *buf = (char *)malloc(cap);
    serve_answer *a = (serve_answer *)malloc(sizeof *a);
    if (buf == NULL || a == NULL)
        abort();
    urisan_policy *judge = (urisan_policy *)malloc(urisan_policy_size());
    serve_policy sp;
    if (judge == NULL || !serve_policy_make(&sp, pol, judge))
        abort();
    serve_decide(&r, &trust, &sp, buf, cap, a);

    /* 1. one well-formed decision */
    FUZZ_ASSERT(a->status == 200 || a->status == 403, "status %u", a->status);
    FUZZ_ASSERT((a->status == 403) == (a->verdict == URISAN_DENY), "status %u verdict %d",
                a->status, (int)a->verdict);
    FUZZ_ASSERT(a->verdict == URISAN_ALLOW || a->verdict == URISAN_FLAGGED ||
                a->verdict == URISAN_DENY, "verdict %d", (int)a->verdict);
    check_words(a->deny, "deny");
    check_words(a->flag, "flag");
    FUZZ_ASSERT(a->status == 403 || strcmp(a->deny, "-") == 0,
                "allowed with deny reasons %s", a->deny);
    FUZZ_ASSERT(a->status == 200 || strcmp(a->deny, "-") != 0, "denied without a reason");
    if (a->uri_status != URISAN_REQUEST_OK) {
        FUZZ_ASSERT(strcmp(a->deny, urisan_request_reason_name(a->uri_status)) == 0,
                    "no URI (%s) but reasons %s", urisan_request_reason_name(a->uri_status), a->deny);
    }

    /* 2. bounded and deterministic */
    size_t len = 0;
    urisan_request_source used = URISAN_REQSRC_COUNT_;
    urisan_request_reason st = urisan_request_uri(&r, &trust, buf, cap, &len, &used);
    FUZZ_ASSERT(st == a->uri_status, "rebuild not deterministic: %s then %s",
                urisan_request_reason_name(a->uri_status), urisan_request_reason_name(st));
    if (st == URISAN_REQUEST_OK) {
        FUZZ_ASSERT(len == a->uri_len && len <= cap, "length %zu vs %zu", len, a->uri_len);
        char *exact = fuzz_dup_part(buf, len);
        if (len > 0) {
            char *small = (char *)malloc(len - 1 ? len - 1 : 1);
            size_t l2 = 0;
            urisan_request_source u2;
            urisan_request_reason s2 = urisan_request_uri(&r, &trust, small, len - 1, &l2, &u2);
            FUZZ_ASSERT(s2 == URISAN_REQUEST_TOO_LONG, "one byte short: %s",
                        urisan_request_reason_name(s2));
            free(small);
        }

        /* 3. composed: the authority is exactly the host header's */
        bool composed = used == URISAN_REQSRC_ORIGINAL_URI || used == URISAN_REQSRC_FORWARDED_URI ||
                        (used == URISAN_REQSRC_TARGET &&
                         (trust.strip_prefix != NULL || r.target_len == 0 ||
                          r.target[0] == '/'));
        if (composed) {
            size_t i = 0;
            while (i + 2 < len && !(exact[i] == ':' && exact[i + 1] == '/' && exact[i + 2] == '/'))
                i++;
            FUZZ_ASSERT(i + 2 < len, "composed URI without ://");
            size_t slash = i + 3;
            while (slash < len && exact[slash] != '/')
                slash++;
            FUZZ_ASSERT(slash < len, "composed URI without a path");
            /* 5. */
            if (used == URISAN_REQSRC_ORIGINAL_URI || used == URISAN_REQSRC_FORWARDED_URI) {
                const urisan_request_field *h = &r.h[used == URISAN_REQSRC_ORIGINAL_URI
                                                ? URISAN_REQH_ORIGINAL_HOST
                                                : URISAN_REQH_FORWARDED_HOST];
                FUZZ_ASSERT(h->p != NULL && h->len == slash - (i + 3) &&
                            memcmp(exact + i + 3, h->p, h->len) == 0,
                            "%s: the authority is not the source's host header",
                            urisan_request_source_name(used));
            }
            urisan_uri u;
            urisan_status ps = urisan_parse(exact, len, NULL, &u, NULL);
            if (ps != URISAN_E_TOO_LONG) {
                FUZZ_ASSERT(urisan_span_present(u.path) && u.path.off == slash,
                            "path starts at %zu, the header's path at %zu",
                            u.path.off, slash);
                FUZZ_ASSERT(!urisan_span_present(u.userinfo),
                            "a host header made a userinfo");
            }
        }

        /* 4. the verdict is the library's under the policy plus
           require-authority: never an allow without a scheme and a host */
        urisan_uri u;
        urisan_report rep;
        urisan_decision dec;
        urisan_status cs = urisan_check(exact, len, sp.judge, &u, &rep, &dec);
        if (cs != URISAN_E_BAD_ARGUMENT && cs != URISAN_E_NOSPACE && cs != URISAN_E_BAD_POLICY) {
            bool absolute = urisan_span_present(u.scheme) && u.host_type != URISAN_HOST_NONE &&
                            u.host_type != URISAN_HOST_EMPTY;
            FUZZ_ASSERT(a->verdict == dec.verdict, "verdict %d, library says %d",
                        (int)a->verdict, (int)dec.verdict);
            FUZZ_ASSERT(absolute || a->verdict == URISAN_DENY, "no scheme or host, verdict %d",
                        (int)a->verdict);
        }
        free(exact);
    }

    free(a);
    free(buf);
    free(judge);
    free(pol);
    for (size_t i = 0; i < nparts; i++)
        free(part[i]);
    fuzz_done(in);
    return 0;
}
