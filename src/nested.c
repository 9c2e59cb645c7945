/*
 * nested.c - URLs nested in query and fragment parameters
 * (doc/policy.md "Nested URLs"): ?next=http://127.0.0.1/,
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
    unsigned pend;   /* NESTED_TWICE: the value at pvs..pve still to read twice */
    size_t pns, pvs, pve;
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

/* One nested URL counted into out and handed to fn with its readings. */
static void tell(urisan_nested_report *out, urisan_nested_visit fn, void *ctx,
                 const urisan_nested_url *nu, const urisan_nested_view *v, size_t nv)
{
    out->flags |= nu->report.flags;
    out->count++;
    if (nu->depth > out->depth)
        out->depth = nu->depth;
    if (fn != NULL)
        fn(ctx, nu, v, nv);
}

/* The value v[0..vn), decoded `times` times, as the text of the nested
   URL: in place when decoding changes nothing, else in
   scratch[*used..cap) (*used grows). false: it does not fit. */
static bool place_text(const char *v, size_t vn, unsigned times, char *scratch, size_t cap,
                       size_t *used, const char **t, size_t *n)
{
    *t = v;
    *n = vn;
    if (memchr(v, '%', vn) == NULL)
        return true;
    if (vn > cap - *used)
        return false;
    bool esc = false;
    char *b = scratch + *used;
    *n = urisan_nested_decode(v, vn, b, &esc);
    if (times == 2)
        *n = urisan_nested_decode(b, *n, b, &esc);
    *t = b;
    *used += *n;
    return true;
}

/* The policy's nested-depth (1 without a policy or out of range). */
static unsigned walk_depth(const urisan_policy *pol)
{
    unsigned maxd = pol != NULL ? pol->nested_depth : 1;
    return maxd < 1 || maxd > URISAN_NESTED_MAX_DEPTH ? 1 : maxd;
}

/* The next reading of a parameter of frame f that is a nested URL: its
   name and value spans, and how often it is decoded (0: f has no more).
   A value that is one decoded once and another decoded twice is read
   both ways, once first. */
static unsigned next_nested(nframe *f, size_t *ns, size_t *vs, size_t *ve)
{
    if (f->pend != 0) {
        f->pend = 0;
        *ns = f->pns;
        *vs = f->pvs;
        *ve = f->pve;
        return 2;
    }
    while (urisan_params_next(&f->it, ns, vs, ve)) {
        unsigned r = urisan_nested_reads(f->t + *vs, *ve - *vs, true);
        if (r == (NESTED_ONCE | NESTED_TWICE)) {
            f->pend = NESTED_TWICE;
            f->pns = *ns;
            f->pvs = *vs;
            f->pve = *ve;
        }
        if (r != 0)
            return (r & NESTED_ONCE) ? 1 : 2;
    }
    return 0;
}

/* A nested URL's two readings: as decoded (a), and as the URL parser
   reads it (b, when that differs: nested_client.c). */
typedef struct {
    urisan_uri ua, ub;
    urisan_report rb;
    urisan_nested_view v[2];
    size_t nv;
} readings;

/* Analyse the decoded text t[0..n) into nu->report and rd (b written to
   scratch[*used..cap), *used grows). false: b does not fit. */
static bool read_both(const char *t, size_t n, const urisan_policy *pol, char *scratch,
                      size_t cap, size_t *used, urisan_nested_url *nu, readings *rd)
{
    size_t lead = urisan_nested_blanks(t, n), bn = 0;
    analyse(t, n, lead, pol, &rd->ua, &nu->report);
    rd->v[0] = (urisan_nested_view){t + lead, n - lead, &rd->ua, &nu->report};
    rd->nv = 1;
    char *b = scratch != NULL ? scratch + *used : NULL;
    int cl = urisan_nested_client(t, n, lead, b, cap - *used, &bn);
    if (cl < 0)
        return false;
    if (cl > 0) {
        *used += bn;
        urisan_parse_analyze(b, bn, pol, &rd->ub, NULL, &rd->rb);
        nu->report.flags |= rd->rb.flags;
        /* the address the client goes to */
        nu->report.ip_family = rd->rb.ip_family;
        memcpy(nu->report.ip, rd->rb.ip, sizeof rd->rb.ip);
        rd->v[1] = (urisan_nested_view){b, bn, &rd->ub, &rd->rb};
        rd->nv = 2;
    }
    return true;
}

/* A value that does not fit the scratch: judged as a bound that was hit
   (too_long, doc/policy.md). */
static void tell_unfit(urisan_nested_report *out, urisan_nested_visit fn, void *ctx,
                       urisan_nested_url *nu, const char *v, size_t vn)
{
    nu->uri = v;
    nu->uri_len = vn;
    memset(&nu->report, 0, sizeof nu->report);
    nu->report.flags = URISAN_F(TOO_LONG) | URISAN_F(INVALID);
    nu->incomplete = 1;
    tell(out, fn, ctx, nu, NULL, 0);
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
    st[0] = (nframe){.t = in, .n = len, .u = *uri, .mark = 0, .depth = 0, .pend = 0};
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
        size_t n, mark = used;
        readings rd;
        if (!place_text(f->t + vs, ve - vs, times, scratch, cap, &used, &t, &n) ||
            !read_both(t, n, pol, scratch, cap, &used, &nu, &rd)) {
            used = mark;
            tell_unfit(out, fn, ctx, &nu, f->t + vs, ve - vs);
            continue;
        }
        nu.uri = t;
        nu.uri_len = n;
        tell(out, fn, ctx, &nu, rd.v, rd.nv);
        const urisan_nested_view *cv = &rd.v[rd.nv - 1]; /* the text the client follows */
        if (!(cv->r->flags & URISAN_F(NESTED_URL)) && !(rd.v[0].r->flags & URISAN_F(NESTED_URL))) {
            used = mark;
        } else if (nu.depth >= maxd || top + 1 >= URISAN_NESTED_MAX_DEPTH) {
            out->flags |= URISAN_F(NESTED_DEEP); /* a hop further is not followed */
            used = mark;
        } else {
            /* look inside it */
            nframe *c = &st[top + 1];
            *c = (nframe){.t = cv->t, .n = cv->tn, .u = *cv->u, .mark = mark,
                          .depth = nu.depth, .pend = 0};
            urisan_params_init(&c->it, c->t, c->n, &c->u);
            top++;
        }
    }
    return URISAN_OK;
}

/* The public walk: the same visits without the parse. */
typedef struct {
    urisan_nested_fn fn;
    void *ctx;
} public_visit;

static void visit_public(void *ctx, const urisan_nested_url *n, const urisan_nested_view *v,
                         size_t nv)
{
    const public_visit *pv = ctx;
    (void)v;
    (void)nv;
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
