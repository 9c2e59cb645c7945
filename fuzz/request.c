/*
 * fuzz/request.c - the one request judgement of every gateway door
 * (urisan_judge_request, src/host/judge_request.c; the rebuild
 * urisan_request_uri, src/request.c), from any request parts.
 *
 * Input: byte 0 picks the scheme given (none, http, https, or the
 * fourth piece's bytes), the method (none, GET, CONNECT, OPTIONS, or the
 * third piece's bytes), whether Host came twice, and the profile; the
 * rest is split at LF: the Host (an empty first piece with bit 0x80 of
 * byte 1 set: no Host), the target, then the method's and the scheme's
 * bytes. Every part is an exact-size allocation (a read past it faults).
 *
 * Invariants:
 *  1. a request rejected before a URI (reason not OK) is a deny with no
 *     URI; a reason name is one of the list;
 *  2. no allow leaves a Host or target part unjudged: an accepted
 *     origin-form request's URI is exactly scheme "://" Host target, its
 *     parsed authority is the Host's bytes (no userinfo), and its path,
 *     query and fragment are the target's bytes; an accepted
 *     absolute-form request's URI is the target, and a Host given names
 *     its host (ASCII case aside);
 *  3. the decision is urisan_judge's on the URI rebuilt (a deny when it
 *     has no host); the same request judged twice gets the same answer;
 *  4. one byte less of buffer than the URI needs is too_long.
 */
#include "fuzz_util.h"
#include "urisan_host.h"

#include <strings.h>

#define MAX_PARTS 4

static urisan_policy *profile_policy(unsigned pick)
{
    static urisan_policy *pols[4];
    static const char *const names[4] = { "default", "ssrf", "proxy", "mail" };
    pick &= 3;
    if (pols[pick] == NULL) {
        pols[pick] = malloc(urisan_policy_size());
        if (pols[pick] == NULL ||
            urisan_policy_profile(pols[pick], names[pick], strlen(names[pick])) != URISAN_OK)
            abort();
    }
    return pols[pick];
}

static bool same_ci(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
        if (x >= 'A' && x <= 'Z')
            x = (unsigned char)(x + 32);
        if (y >= 'A' && y <= 'Z')
            y = (unsigned char)(y + 32);
        if (x != y)
            return false;
    }
    return true;
}

/* The end of the authority of a parsed URI (after the port, else the
   host). */
static size_t authority_end(const urisan_uri *u)
{
    if (urisan_span_present(u->port))
        return u->port.off + u->port.len;
    return u->host.off + u->host.len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    char *in = fuzz_dup(data, size);
    unsigned pick = (unsigned char)in[0];
    bool no_host = ((unsigned char)in[1] & 0x80) != 0;

    char *part[MAX_PARTS] = { NULL, NULL, NULL, NULL };
    size_t plen[MAX_PARTS] = { 0, 0, 0, 0 }, nparts = 0;
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
    for (size_t i = nparts; i < MAX_PARTS; i++)
        part[i] = fuzz_dup_part("", 0);

    urisan_request r;
    urisan_request_init(&r);
    /* the first piece is the Host, less byte 1 when that only said "no Host" */
    if (!(no_host && plen[0] <= 1)) {
        r.h[URISAN_REQH_HOST] = (urisan_request_field){ part[0], plen[0], (pick & 0x10) ? 2u : 1u };
    }
    r.target = part[1];
    r.target_len = plen[1];
    static const char *const methods[3] = { "GET", "CONNECT", "OPTIONS" };
    switch ((pick >> 2) & 3) {
    case 0: break;
    case 3: r.method = part[2]; r.method_len = plen[2]; break;
    default: r.method = methods[(pick >> 2) & 3]; r.method_len = strlen(r.method); break;
    }
    if ((pick & 0x20) && ((pick >> 2) & 3) == 0) {
        r.method = methods[0];
        r.method_len = 3;
    }
    switch (pick >> 6) {
    case 0: break;
    case 1: r.scheme = "http"; r.scheme_len = 4; break;
    case 2: r.scheme = "https"; r.scheme_len = 5; break;
    default: r.scheme = part[3]; r.scheme_len = plen[3]; break;
    }
    const urisan_policy *pol = profile_policy(pick);

    size_t cap = 16 + plen[0] + plen[1] + plen[3];
    char *buf = (char *)malloc(cap); /* the judgement writes the rebuilt URI here */
    if (buf == NULL)
        abort();
    urisan_request_judgement rj;
    urisan_judge_request(NULL, &r, NULL, pol, 0, buf, cap, &rj);
    const char *why = urisan_request_reason_name(rj.reason);
    FUZZ_ASSERT(strcmp(why, "unknown") != 0, "reason %d has no name", (int)rj.reason);

    /* 1. */
    if (rj.reason != URISAN_REQUEST_OK) {
        FUZZ_ASSERT(rj.j.dec.verdict == URISAN_DENY && rj.uri_len == 0,
                    "rejected (%s) but verdict %s", why, urisan_verdict_name(rj.j.dec.verdict));
        FUZZ_ASSERT(rj.reason != URISAN_REQUEST_TOO_LONG, "too_long with room for every part");
    } else {
        const char *u = buf;
        size_t n = rj.uri_len;
        FUZZ_ASSERT(n <= cap, "URI of %zu bytes in %zu", n, cap);
        urisan_uri pu;
        urisan_parse(u, n, NULL, &pu, NULL);
        bool origin = plen[1] > 0 && part[1][0] == '/';
        /* 2. */
        if (origin) {
            const char *sch = r.scheme != NULL ? r.scheme : "http";
            size_t sl = r.scheme != NULL ? r.scheme_len : 4;
            const urisan_request_field *h = &r.h[URISAN_REQH_HOST];
            FUZZ_ASSERT(h->p != NULL && h->count == 1, "origin-form accepted without one Host");
            FUZZ_ASSERT(n == sl + 3 + h->len + plen[1] && memcmp(u, sch, sl) == 0 &&
                        memcmp(u + sl, "://", 3) == 0 && memcmp(u + sl + 3, h->p, h->len) == 0 &&
                        memcmp(u + sl + 3 + h->len, part[1], plen[1]) == 0,
                        "URI is not scheme://Host target");
            if (rj.j.dec.verdict != URISAN_DENY) {
                FUZZ_ASSERT(urisan_span_present(pu.host) && !urisan_span_present(pu.userinfo),
                            "allowed with no host or with a userinfo");
                FUZZ_ASSERT(pu.host.off == sl + 3 && authority_end(&pu) == sl + 3 + h->len,
                            "the Host's bytes are not the authority");
                size_t rest = pu.path.off;
                FUZZ_ASSERT(rest == sl + 3 + h->len, "the path does not start after the Host");
            }
        } else {
            FUZZ_ASSERT(n == plen[1] && memcmp(u, part[1], n) == 0,
                        "absolute-form accepted but the URI is not the target");
            const urisan_request_field *h = &r.h[URISAN_REQH_HOST];
            if (h->p != NULL && rj.j.dec.verdict != URISAN_DENY &&
                urisan_span_present(pu.host) && !urisan_span_present(pu.userinfo)) {
                FUZZ_ASSERT(h->len >= pu.host.len && same_ci(h->p, u + pu.host.off, pu.host.len),
                            "the Host does not name the target's host");
            }
        }
        /* 3. */
        urisan_judgement j;
        urisan_judge(NULL, u, n, pol, 0, &j);
        bool hostless = !urisan_span_present(j.uri.host) || j.uri.host.len == 0 ||
                        !urisan_span_present(j.uri.scheme);
        urisan_verdict want = hostless ? URISAN_DENY : j.dec.verdict;
        FUZZ_ASSERT(rj.j.dec.verdict == want, "verdict %s, urisan_judge of the URI %s",
                    urisan_verdict_name(rj.j.dec.verdict), urisan_verdict_name(want));
        /* 4. */
        if (n > 0) {
            char *small = fuzz_dup_part(u, n - 1);
            urisan_request_judgement rs;
            urisan_judge_request(NULL, &r, NULL, pol, 0, small, n - 1, &rs);
            FUZZ_ASSERT(rs.reason == URISAN_REQUEST_TOO_LONG && rs.j.dec.verdict == URISAN_DENY,
                        "one byte short gives %s", urisan_request_reason_name(rs.reason));
            free(small);
        }
    }
    urisan_request_judgement again;
    char *buf2 = (char *)malloc(cap);
    if (buf2 == NULL)
        abort();
    urisan_judge_request(NULL, &r, NULL, pol, 0, buf2, cap, &again);
    FUZZ_ASSERT(again.reason == rj.reason && again.j.dec.verdict == rj.j.dec.verdict &&
                again.uri_len == rj.uri_len && memcmp(buf2, buf, rj.uri_len) == 0,
                "judged twice, two answers");
    free(buf2);
    free(buf);
    for (size_t i = 0; i < MAX_PARTS; i++)
        free(part[i]);
    fuzz_done(in);
    return 0;
}
