/*
 * reparse.h - shared by test_resolve.c and test_normalize.c: the output
 * of resolve/normalize must re-parse into exactly the components that
 * were computed (doc/resolve.md, "never a surprise on re-parse").
 */
#ifndef URISAN_TEST_REPARSE_H
#define URISAN_TEST_REPARSE_H

#include "internal.h"

#include <check.h>
#include <stdio.h>

static inline void raised_limits(urisan_limits *l)
{
    l->max_uri = l->max_scheme = l->max_userinfo = URISAN_HARD_CEILING;
    l->max_host = l->max_label = l->max_segments = URISAN_HARD_CEILING;
}

static inline int span_eq(urisan_span a, urisan_span b)
{
    if (!urisan_span_present(a) || !urisan_span_present(b))
        return urisan_span_present(a) == urisan_span_present(b);
    return a.off == b.off && a.len == b.len;
}

/* 1 when s[0..n) is valid and splits into exactly *pt; else prints why. */
static inline int reparses_to(const char *s, size_t n, const urisan_parts *pt)
{
    urisan_limits lim;
    urisan_uri u;
    urisan_error e;
    raised_limits(&lim);
    if (urisan_parse(s, n, &lim, &u, &e) != URISAN_OK) {
        printf("re-parse of \"%.*s\": %s at %zu\n", (int)(n > 200 ? 200 : n), s,
               urisan_status_name(e.code), e.offset);
        return 0;
    }
    urisan_span auth = { URISAN_ABSENT, 0 };
    if (u.host_type != URISAN_HOST_NONE) {
        auth.off = (urisan_span_present(u.scheme) ? u.scheme.len + 1 : 0) + 2;
        auth.len = u.path.off - auth.off;
    }
    if (span_eq(u.scheme, pt->scheme) && span_eq(auth, pt->authority) &&
        span_eq(u.path, pt->path) && span_eq(u.query, pt->query) &&
        span_eq(u.fragment, pt->fragment))
        return 1;
    printf("re-parse of \"%.*s\" differs: path %zu+%zu vs computed %zu+%zu, "
           "authority %s vs %s\n", (int)(n > 200 ? 200 : n), s, u.path.off, u.path.len,
           pt->path.off, pt->path.len, urisan_span_present(auth) ? "yes" : "no",
           urisan_span_present(pt->authority) ? "yes" : "no");
    return 0;
}

#endif
