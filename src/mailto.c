/*
 * mailto.c - the domains of a mailto: URI's addresses, the one reader of
 * them in urisan (normalize.c lower-cases them, liburisan-host judges
 * them, liburisan-mail compares them with a link's text).
 *
 * RFC 6068 2: mailtoURI = "mailto:" [ to ] [ hfields ], to = addr-spec
 * *("," addr-spec). An addr-spec is local-part "@" domain (RFC 5322
 * 3.4.1); a quoted local-part may hold "@" unescaped (RFC 6068 2 leaves
 * "@" out of what must be percent-encoded), a domain never does: the
 * domain of an address is what follows its last "@".
 */
#include "internal.h"

bool urisan_mailto_next(const char *p, size_t n, size_t *pos, size_t *off, size_t *dlen)
{
    size_t i = *pos;
    while (i < n) {
        size_t at = SIZE_MAX;
        while (i < n && p[i] != ',') {
            if (p[i] == '@')
                at = i;
            i++;
        }
        size_t end = i;
        if (i < n)
            i++; /* the comma */
        if (at != SIZE_MAX) {
            *pos = i;
            *off = at + 1;
            *dlen = end - at - 1;
            return true;
        }
    }
    *pos = n;
    return false;
}

URISAN_API int urisan_mailto_domain(const char *in, size_t len, const urisan_uri *uri,
                                    size_t *pos, urisan_span *domain)
{
    if (in == NULL || uri == NULL || pos == NULL || domain == NULL)
        return 0;
    urisan_span s = uri->scheme, p = uri->path;
    if ((urisan_span_present(uri->host) && uri->host.len > 0) || !urisan_span_present(s) ||
        !urisan_span_present(p) || s.off > len || s.len != 6 || len - s.off < 6 ||
        p.off > len || p.len > len - p.off || !urisan_ieq(in + s.off, 6, "mailto"))
        return 0;
    size_t off, n;
    if (!urisan_mailto_next(in + p.off, p.len, pos, &off, &n))
        return 0;
    domain->off = p.off + off;
    domain->len = n;
    return 1;
}
