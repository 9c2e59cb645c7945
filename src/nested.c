/*
 * nested.c - URLs nested in query and fragment parameters (SPEC 10;
 * doc/policy.md "Nested URLs"): ?next=http://127.0.0.1/,
 * ?url=//169.254.169.254/, #u=http%3A%2F%2F10.0.0.1%2F - the open
 * redirect and SSRF chain shape.
 *
 * A parameter is name "=" value between "&" or ";" (HTML 4.01 B.2.2) in
 * the query or in the fragment. Its value, percent-decoded once (what a
 * server's query parser hands the application), or twice when only the
 * second decoding makes it one, is a nested URL when it is an absolute
 * URI (scheme ":", RFC 3986 4.3) or a network-path reference ("//h",
 * RFC 3986 4.2, and the "/\h" "\\h" "\/h" that browsers read the same
 * way). Leading C0 controls and spaces are skipped as the WHATWG URL
 * parser skips them, and TAB, LF, CR inside the scheme do not end it.
 *
 * urisan_analyze sets nested_url when a parameter of the URI itself holds
 * one (urisan_nested_any: a look at a bounded prefix of each value, no
 * buffer). urisan_nested parses and analyses every nested URL, and those
 * nested in them, to the policy's depth (1..3): an explicit stack of
 * frames, no recursion; decoded text goes into caller scratch, used as a
 * stack, so the scratch a chain needs is at most the sum of the decoded
 * lengths along it. Every level is one forward pass over disjoint parts
 * of the level above, so the work is at most depth x the input: linear.
 */
#include "nested_find.h"
#include "risk.h"

#include <string.h>

/* One URI whose parameters are being looked at. */
typedef struct {
    const char *t;
    size_t n;
    urisan_uri u;
    param_iter it;
    size_t mark;     /* scratch in use when this frame's text was placed */
    unsigned depth;  /* 0: the input */
} nframe;

/* Parse and analyse t[0..n) as a nested URL under pol; the flags of the
   stripped blanks too (they are not part of the URL a browser reads). */
static void analyse(const char *t, size_t n, size_t lead, const urisan_policy *pol,
                    urisan_uri *u, urisan_report *r)
{
    urisan_parse_analyze(t + lead, n - lead, pol, u, NULL, r);
    for (size_t i = 0; i < lead; i++) {
        unsigned char c = (unsigned char)t[i];
        r->flags |= URISAN_F(INVALID) |
                    (cc_is(c, CC_WS) ? URISAN_F(WHITESPACE) : URISAN_F(CTL_RAW));
    }
}

/* One nested URL counted into out and handed to fn (t[0..tn) and hu: the
   URL and the parse whose host the browser goes to; NULL: not decoded). */
static void tell(urisan_nested_report *out, urisan_nested_visit fn, void *ctx,
                 const urisan_nested_url *nu, const char *t, size_t tn, const urisan_uri *hu)
{
    out->flags |= nu->report.flags;
    out->count++;
    if (nu->depth > out->depth)
        out->depth = nu->depth;
    if (fn != NULL)
        fn(ctx, nu, t, tn, hu);
}

/* The value v[0..vn), decoded `times` times, as the text of the nested
   URL: in place (*b NULL) when decoding changes nothing and no "\\" needs
   rewriting, else in scratch[*used..cap) (*b: where; *used grows).
   false: it does not fit the scratch. */
static bool place_text(const char *v, size_t vn, unsigned times, char *scratch, size_t cap,
                       size_t *used, const char **t, size_t *n, char **b)
{
    *t = v;
    *n = vn;
    *b = NULL;
    if (memchr(v, '%', vn) == NULL && memchr(v, '\\', vn) == NULL)
        return true;
    if (vn > cap - *used)
        return false;
    bool esc = false;
    *b = scratch + *used;
    *n = urisan_nested_decode(v, vn, *b, vn, false, &esc);
    if (times == 2)
        *n = urisan_nested_decode(*b, *n, *b, *n, false, &esc);
    *t = *b;
    *used += *n;
    return true;
}

/* "/\h", "\\h", "\/h" at t[lead] (b: t, in scratch): browsers go to
   host h. Judge the host as "//h" too: the flags of both into *r, and the
   address of the "//h" form. true: it was such a URL, and *ru holds the
   parse whose host the browser goes to (its spans past the two rewritten
   bytes hold). */
static bool judge_backslash_host(char *b, size_t n, size_t lead, const urisan_policy *pol,
                                 urisan_uri *ru, urisan_report *r)
{
    const char *t = b;
    if (b == NULL || lead + 1 >= n || (t[lead] != '\\' && t[lead + 1] != '\\') ||
        (t[lead] != '/' && t[lead] != '\\') || (t[lead + 1] != '/' && t[lead + 1] != '\\'))
        return false;
    char keep0 = b[lead], keep1 = b[lead + 1];
    urisan_report rr;
    b[lead] = b[lead + 1] = '/';
    analyse(t, n, lead, pol, ru, &rr);
    b[lead] = keep0;
    b[lead + 1] = keep1;
    r->flags |= rr.flags;
    r->ip_family = rr.ip_family;
    memcpy(r->ip, rr.ip, sizeof rr.ip);
    return true;
}

/* The policy's nested-depth (1 without a policy or out of range). */
static unsigned walk_depth(const urisan_policy *pol)
{
    unsigned maxd = pol != NULL ? pol->nested_depth : 1;
    return maxd < 1 || maxd > URISAN_NESTED_MAX_DEPTH ? 1 : maxd;
}

/* The next parameter of frame f that holds a nested URL: its name and
   value spans, and how often it is decoded (0: f has no more). */
static unsigned next_nested(nframe *f, size_t *ns, size_t *vs, size_t *ve)
{
    unsigned times = 0;
    while (times == 0 && urisan_params_next(&f->it, ns, vs, ve))
        times = urisan_nested_decodes(f->t + *vs, *ve - *vs);
    return times;
}

urisan_status urisan_nested_walk(const char *in, size_t len, const urisan_uri *uri,
                                 const urisan_policy *pol, char *scratch, size_t cap,
                                 urisan_nested_visit fn, void *ctx, urisan_nested_report *out)
{
    if (out == NULL)
        return URISAN_E_BAD_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (uri == NULL || (in == NULL && len != 0) || (scratch == NULL && cap != 0))
        return URISAN_E_BAD_ARGUMENT;
    if (pol != NULL && pol->magic != POL_MAGIC)
        pol = NULL;
    if (in == NULL || uri->error.code == URISAN_E_TOO_LONG ||
        uri->error.code == URISAN_E_BAD_ARGUMENT)
        return URISAN_OK; /* nothing was split */
    unsigned maxd = walk_depth(pol);
    nframe st[URISAN_NESTED_MAX_DEPTH];
    size_t top = 0, used = 0;
    st[0] = (nframe){.t = in, .n = len, .u = *uri, .mark = 0, .depth = 0};
    urisan_params_init(&st[0].it, in, len, uri);
    for (;;) {
        nframe *f = &st[top];
        size_t ns, vs, ve;
        unsigned times = next_nested(f, &ns, &vs, &ve);
        if (times == 0) {
            if (top == 0)
                break;
            used = f->mark;
            top--;
            continue;
        }
        urisan_nested_url nu;
        memset(&nu, 0, sizeof nu);
        nu.depth = f->depth + 1;
        nu.decodes = times;
        nu.name = f->t + ns;
        nu.name_len = vs - 1 - ns;
        const char *t;
        char *b;
        size_t n, mark = used;
        if (!place_text(f->t + vs, ve - vs, times, scratch, cap, &used, &t, &n, &b)) {
            /* does not fit: judged as a bound that was hit (SPEC 3) */
            nu.uri = f->t + vs;
            nu.uri_len = ve - vs;
            nu.report.flags = URISAN_F(TOO_LONG) | URISAN_F(INVALID);
            nu.incomplete = 1;
            tell(out, fn, ctx, &nu, NULL, 0, NULL);
            continue;
        }
        size_t lead = urisan_nested_blanks(t, n);
        nframe *c = top + 1 < URISAN_NESTED_MAX_DEPTH ? &st[top + 1] : NULL;
        urisan_uri u_local, ru;
        urisan_uri *u = c != NULL ? &c->u : &u_local;
        analyse(t, n, lead, pol, u, &nu.report);
        bool slash = judge_backslash_host(b, n, lead, pol, &ru, &nu.report);
        nu.uri = t;
        nu.uri_len = n;
        tell(out, fn, ctx, &nu, t + lead, n - lead, slash ? &ru : u);
        if (nu.depth < maxd && c != NULL && (nu.report.flags & URISAN_F(NESTED_URL))) {
            /* look inside it: the blanks are not part of it */
            c->t = t + lead;
            c->n = n - lead;
            c->mark = mark;
            c->depth = nu.depth;
            urisan_params_init(&c->it, c->t, c->n, &c->u);
            top++;
        } else {
            used = mark;
        }
    }
    return URISAN_OK;
}

/* The public walk: the same visits without the parse. */
typedef struct {
    urisan_nested_fn fn;
    void *ctx;
} public_visit;

static void visit_public(void *ctx, const urisan_nested_url *n, const char *t, size_t tn,
                         const urisan_uri *u)
{
    const public_visit *pv = ctx;
    (void)t;
    (void)tn;
    (void)u;
    pv->fn(pv->ctx, n);
}

URISAN_API urisan_status urisan_nested(const char *in, size_t len, const urisan_uri *uri,
                                       const urisan_policy *pol, char *scratch, size_t cap,
                                       urisan_nested_fn fn, void *ctx,
                                       urisan_nested_report *out)
{
    public_visit pv = {fn, ctx};
    return urisan_nested_walk(in, len, uri, pol, scratch, cap, fn != NULL ? visit_public : NULL,
                              &pv, out);
}
