/*
 * fuzz/uriparser.c - differential check against uriparser (Debian
 * liburiparser-dev), another RFC 3986 parser (fuzz/README.md).
 *
 * For every input within urisan's length bounds:
 *  1. validity agrees: urisan_parse says valid exactly when uriparser's
 *     uriParseSingleUriExA accepts the whole input as a URI-reference;
 *  2. when both accept, the components agree: scheme, userinfo, host
 *     (uriparser's hostText is the host without brackets), port, query,
 *     fragment as byte ranges of the same buffer, and the path's extent.
 * except where fuzz/DIFFERENCES.md lists a deliberate difference. Each of
 * those is a named predicate below (diff_*), has a reason in
 * DIFFERENCES.md and a regression file corpus/uriparser/diff-<name>;
 * tests/test_differential.c checks them one by one.
 */
#include <uriparser/Uri.h>

#include "fuzz_util.h"

/* ---- the deliberate differences (fuzz/DIFFERENCES.md) ---- */

/* D1 port-range: a port above 65535 makes the URI invalid (doc/policy.md,
   invalid); RFC 3986 port = *DIGIT, which uriparser follows. */
static int diff_port_range(const urisan_uri *u)
{
    return u->error.code == URISAN_E_PORT_RANGE;
}

/* D2 dns-length: invalid (doc/policy.md): a reg-name host > 255 bytes, a
   label > 63 bytes; RFC 3986 3.2.2 leaves the length to the name system. */
static int diff_dns_length(const urisan_uri *u)
{
    return u->error.code == URISAN_E_HOST_LENGTH || u->error.code == URISAN_E_LABEL_LENGTH;
}

/* D3 zone-id: urisan accepts RFC 6874 IPv6 zone ids ("[fe80::1%25eth0]");
   uriparser implements RFC 3986 only. */
static int diff_zone_id(const urisan_uri *u)
{
    return u->host_type == URISAN_HOST_IPV6_ZONE;
}

static int in_range(const char *p, const char *base, size_t len)
{
    return p >= base && p <= base + len;
}

static void range_eq(const char *what, const char *in, size_t len, UriTextRangeA r, urisan_span s)
{
    int up = r.first != NULL;
    int us = s.off != URISAN_ABSENT;
    FUZZ_ASSERT(up == us, "%s: uriparser says %s, urisan says %s", what, up ? "present" : "absent",
                us ? "present" : "absent");
    if (!up)
        return;
    if (r.first == r.afterLast && !in_range(r.first, in, len)) {
        /* uriparser points an empty component at a static "" */
        FUZZ_ASSERT(s.len == 0, "%s: uriparser empty, urisan %zu bytes", what, s.len);
        return;
    }
    FUZZ_ASSERT(in_range(r.first, in, len) && in_range(r.afterLast, in, len) && r.first <= r.afterLast,
                "%s: uriparser range outside the input", what);
    size_t off = (size_t)(r.first - in), n = (size_t)(r.afterLast - r.first);
    FUZZ_ASSERT(off == s.off && n == s.len, "%s: uriparser (%zu,%zu), urisan (%zu,%zu)", what, off, n,
                s.off, s.len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = fuzz_dup(data, size);
    /* Limits raised to the hard ceiling: the length bounds are policy
       (D0), and with the defaults a long label would be too_long before
       its validity (D2) could be compared. */
    urisan_limits lim;
    lim.max_uri = lim.max_scheme = lim.max_userinfo = URISAN_HARD_CEILING;
    lim.max_host = lim.max_label = lim.max_segments = URISAN_HARD_CEILING;
    urisan_uri u;
    urisan_status st = urisan_parse(in, size, &lim, &u, NULL);
    if (st == URISAN_E_TOO_LONG) {
        /* D0 length-bounds: urisan's limits are policy, not
           syntax; uriparser has none. Nothing to compare. */
        fuzz_done(in);
        return 0;
    }
    UriUriA uri;
    const char *errpos = NULL;
    int rc = uriParseSingleUriExA(&uri, in, in + size, &errpos);
    int up_valid = rc == URI_SUCCESS;

    if (up_valid != u.valid) {
        const char *why = NULL;
        if (!u.valid && up_valid) {
            if (diff_port_range(&u))
                why = "port-range";
            else if (diff_dns_length(&u))
                why = "dns-length";
        } else if (u.valid && !up_valid) {
            if (diff_zone_id(&u))
                why = "zone-id";
        }
        if (why == NULL)
            fuzz_fail("validity differs: urisan %s (%s at %zu), uriparser %s (code %d at %ld)",
                      u.valid ? "valid" : "invalid", fuzz_status(u.error.code), u.error.offset,
                      up_valid ? "valid" : "invalid", rc,
                      errpos ? (long)(errpos - in) : -1L);
    } else if (up_valid && u.valid) {
        range_eq("scheme", in, size, uri.scheme, u.scheme);
        range_eq("userinfo", in, size, uri.userInfo, u.userinfo);
        range_eq("query", in, size, uri.query, u.query);
        range_eq("fragment", in, size, uri.fragment, u.fragment);
        range_eq("port", in, size, uri.portText, u.port);
        /* host: uriparser's hostText excludes the brackets of an
           IP-literal. An authority with an empty host has an empty
           hostText. */
        urisan_span h = u.host;
        if (h.off != URISAN_ABSENT && h.len >= 2 && in[h.off] == '[') {
            h.off += 1;
            h.len -= 2;
        }
        range_eq("host", in, size, uri.hostText, h);
        FUZZ_ASSERT((uri.hostData.ip4 != NULL) == (u.host_type == URISAN_HOST_IPV4),
                    "IPv4 host type differs");
        if (uri.hostData.ip4 != NULL)
            FUZZ_ASSERT(memcmp(uri.hostData.ip4->data, u.ip, 4) == 0, "IPv4 address differs");
        FUZZ_ASSERT((uri.hostData.ip6 != NULL) == (u.host_type == URISAN_HOST_IPV6),
                    "IPv6 host type differs");
        if (uri.hostData.ip6 != NULL)
            FUZZ_ASSERT(memcmp(uri.hostData.ip6->data, u.ip, 16) == 0, "IPv6 address differs");
        FUZZ_ASSERT((uri.hostData.ipFuture.first != NULL) == (u.host_type == URISAN_HOST_IPVFUTURE),
                    "IPvFuture host type differs");
        /* path: uriparser keeps a list of segments (an empty one may
           point at a static ""), without the "/" that starts an absolute
           path or follows the authority: join them back. */
        fuzz_str p = {0};
        fs_add(&p, "", 0);
        int has_host = uri.hostText.first != NULL || uri.hostData.ip6 != NULL ||
                       uri.hostData.ipFuture.first != NULL;
        if (uri.absolutePath || (has_host && uri.pathHead != NULL))
            fs_addc(&p, '/');
        for (const UriPathSegmentA *sg = uri.pathHead; sg != NULL; sg = sg->next) {
            if (sg != uri.pathHead)
                fs_addc(&p, '/');
            fs_add(&p, sg->text.first, (size_t)(sg->text.afterLast - sg->text.first));
        }
        if (!fs_eq(&p, in + u.path.off, u.path.len)) {
            fuzz_str q = {0};
            fs_add(&q, in + u.path.off, u.path.len);
            fuzz_fail("path: uriparser \"%s\", urisan \"%s\"", p.p, q.p);
        }
        fs_free(&p);
    }
    if (rc == URI_SUCCESS)
        uriFreeUriMembersA(&uri);
    fuzz_done(in);
    return 0;
}
