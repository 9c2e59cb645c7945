/*
 * judge.c - the one decision (urisan_host.h): parse and analysis by the
 * core library, the host judgement of this one, and urisan_decide once.
 * Every front end (check, extract, milter, serve, squid-acl, the Python
 * module) calls urisan_judge, or hands urisan_judge_link_decide to the
 * code that finds links (urisan_extract_with, liburisan-mail), which calls
 * it once a link: a URI gets the same verdict and flags whichever door it
 * comes through.
 */
#include "host_internal.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Is in[0..n) a mailto: URI (its scheme is the bytes before the first
   ':')? The cheap look before urisan_mailto_domain, which needs a parse. */
static inline bool mailto_scheme(const char *in, size_t n)
{
    return n >= 7 && (in[0] | 0x20) == 'm' && strncasecmp(in, "mailto:", 7) == 0;
}

/* The flags of every address of a mailto: URI after the first one's
   (whose view is ctx->last): a later address's domain counts too, judged
   against pol's protected names. */
static urisan_flags other_addresses(urisan_host_ctx *ctx, const urisan_policy *pol,
                                    const char *in, size_t len, const urisan_uri *u)
{
    size_t pos = 0;
    urisan_span d;
    urisan_flags f = 0;
    if (!urisan_mailto_domain(in, len, u, &pos, &d))
        return 0;
    urisan_hostview *hv = NULL;
    while (urisan_mailto_domain(in, len, u, &pos, &d)) {
        if (hv == NULL && (hv = malloc(sizeof *hv)) == NULL)
            return URISAN_HOST_FLAGS;   /* fail closed */
        if (urisan_host_view(ctx, in + d.off, d.len, hv))
            f |= host_name_flags(ctx, pol, hv);
    }
    free(hv);
    return f;
}

/* The flags of the host of uri[0..len) (du: its parse with the default
   limits; the view goes to hv) and of a mailto: URI's later addresses,
   under pol's protected names (NULL: none): what a link's host adds
   (urisan_judge_link_decide) and a nested URL's. */
static urisan_flags uri_host_flags(urisan_host_ctx *ctx, const urisan_policy *pol,
                                   const char *uri, size_t len, const urisan_uri *du,
                                   urisan_hostview *hv)
{
    const char *host;
    size_t hl;
    bool some = host_of_uri(uri, len, du, &host, &hl);
    bool name = urisan_host_view(ctx, host, hl, hv) && some;
    urisan_flags f = name ? host_name_flags(ctx, pol, hv) : 0;
    f |= host_brand_elsewhere(ctx, pol, uri, len, du, name ? hv : NULL);
    return f | other_addresses(ctx, pol, uri, len, du);
}

/* The host flags of uri under pol (urisan_host_flags_uri, and a nested
   URL's for the decision). */
static urisan_flags host_flags_pol(urisan_host_ctx *ctx, const urisan_policy *pol,
                                   const char *uri, size_t len)
{
    urisan_hostview *hv = malloc(sizeof *hv);
    if (hv == NULL || (ctx == NULL && (ctx = urisan_host_ctx_thread()) == NULL)) {
        free(hv);
        return URISAN_HOST_FLAGS;   /* fail closed */
    }
    urisan_uri du;
    urisan_parse(uri, len, NULL, &du, NULL);
    urisan_flags f = uri_host_flags(ctx, pol, uri, len, &du, hv);
    free(hv);
    return f;
}

URISAN_API urisan_flags urisan_nested_flags(urisan_host_ctx *ctx, const urisan_nested_url *nu)
{
    return nu->report.flags | host_flags_pol(ctx, NULL, nu->uri, nu->uri_len);
}

URISAN_API urisan_flags urisan_nested_flags_policy(urisan_host_ctx *ctx,
                                                   const urisan_policy *pol,
                                                   const urisan_nested_url *nu)
{
    return nu->report.flags | host_flags_pol(ctx, pol, nu->uri, nu->uri_len);
}

URISAN_API urisan_flags urisan_host_flags_uri(urisan_host_ctx *ctx, const char *uri, size_t len)
{
    return host_flags_pol(ctx, NULL, uri, len);
}

URISAN_API urisan_flags urisan_host_flags_uri_policy(urisan_host_ctx *ctx,
                                                     const urisan_policy *pol,
                                                     const char *uri, size_t len)
{
    return host_flags_pol(ctx, pol, uri, len);
}

/* What nested_host reads: the context and the policy deciding. */
typedef struct {
    urisan_host_ctx *ctx;
    const urisan_policy *pol;
    const char *in;                /* the URI deciding */
    size_t len;
    const urisan_uri *du;          /* its parse with the default limits */
    const urisan_hostview *own_hv; /* the view of its host; NULL: none */
} nested_arg;

/* Is host[0..n) the URI's own host, whose view a has already? */
static bool own_host(const nested_arg *a, const char *host, size_t n)
{
    const char *h;
    size_t hl;
    return a->own_hv != NULL && host_of_uri(a->in, a->len, a->du, &h, &hl) && hl == n &&
           memcmp(h, host, n) == 0;
}

/* urisan_nested_more_fn: the host judgement of a nested URL, which the
   core's decision asks for when a `deny nested:` / `flag nested:` rule
   names one of this library's flags; a policy's protected names count
   there too. */
static urisan_flags nested_host(void *arg, const char *uri, size_t len)
{
    const nested_arg *a = arg;
    return host_flags_pol(a->ctx, a->pol, uri, len);
}

/* urisan_host_map_fn: the host a client resolves for host[0..n), the
   view's A-labels (UTS #46: percent-decoded, mapped, ignored code points
   gone) when that is a name other than the bytes as written. */
static size_t host_map(void *arg, const char *host, size_t n, char *out, size_t cap)
{
    const nested_arg *a = arg;
    const urisan_hostview *view = a->own_hv;
    urisan_hostview *hv = NULL;
    if (!own_host(a, host, n)) {
        if ((hv = malloc(sizeof *hv)) == NULL)
            return URISAN_HOST_MAP_FAILED;   /* fail closed */
        view = urisan_host_view(a->ctx, host, n, hv) ? hv : NULL;
    }
    size_t m = 0;
    if (view != NULL && view->is_name && view->ascii[0] != '\0') {
        m = strlen(view->ascii);
        if (m > cap)
            m = URISAN_HOST_MAP_FAILED;
        else if (m == n && strncasecmp(view->ascii, host, n) == 0)
            m = 0;   /* the same name */
        else
            memcpy(out, view->ascii, m);
    }
    free(hv);
    return m;
}

/* The one decision under pol: nested hosts judged (nested_host) and the
   host a client resolves (host_map) meeting the host lists. hv: the view
   of in's host when there is one already (du: the parse it was made
   from), else NULL. */
static void decide_once(urisan_host_ctx *ctx, const urisan_policy *pol, const char *in,
                        size_t len, const urisan_uri *u, const urisan_report *rep,
                        const urisan_uri *du, const urisan_hostview *hv, urisan_decision *dec)
{
    /* the decision asks its hooks about a URI with a nested URL and under
       a policy listing hosts only (urisan.h): else none to make */
    if ((rep->flags & URISAN_F(NESTED_URL)) == 0 && urisan_policy_lists_hosts(pol) == 0) {
        urisan_decide_with(in, len, u, rep, pol, NULL, dec);
        return;
    }
    nested_arg na = { ctx, pol, in, len, du, hv };
    urisan_decide_hooks hk = { nested_host, &na, host_map, &na };
    urisan_decide_with(in, len, u, rep, pol, &hk, dec);
}

URISAN_API size_t urisan_judge_origin(urisan_host_ctx *ctx, const urisan_policy *pol,
                                      const char *in, size_t len, urisan_origin_kind kind,
                                      unsigned bit, const char **profile)
{
    if (ctx == NULL)
        ctx = urisan_host_ctx_thread();   /* NULL: the hosts as written */
    nested_arg na = { ctx, pol, in, len, NULL, NULL };
    urisan_decide_hooks hk = { NULL, NULL, host_map, &na };
    return urisan_policy_origin_with(pol, in, len, kind, bit, ctx != NULL ? &hk : NULL, profile);
}

/* No context and none to be had (no memory), or no input: deny with
   invalid, fail closed. */
static void no_context(urisan_judgement *j)
{
    j->rep.flags |= URISAN_F(INVALID);
    memset(&j->dec, 0, sizeof j->dec);
    j->dec.verdict = URISAN_DENY;
    j->dec.deny_flags = URISAN_F(INVALID);
}

static bool default_limits(const urisan_policy *pol)
{
    return urisan_policy_limits(pol) == urisan_policy_limits(NULL);
}

/* The view of in's host (ctx->last) and the flags it gives: judged (an
   IDN host, every host name under a policy that protects names) and the
   domains of a mailto: URI's addresses; with URISAN_JUDGE_VIEW every other
   host is viewed too, for what it shows. up: the parse of in with the
   default limits. */
static urisan_flags view_host(urisan_host_ctx *ctx, const char *in, size_t len,
                              const urisan_uri *up, bool judged, bool mailto,
                              const urisan_policy *pol, unsigned opts, urisan_judgement *j)
{
    size_t pos = 0;
    urisan_span d;
    bool mail = mailto && urisan_mailto_domain(in, len, up, &pos, &d);
    judged = judged || mail;
    if (!judged && !(opts & URISAN_JUDGE_VIEW))
        return 0;
    j->host_name = host_view_last(ctx, in, len, up);
    j->hv = &ctx->last.hv;
    urisan_flags f = 0;
    if (j->host_name && judged)
        f = host_name_flags(ctx, pol, &ctx->last.hv);
    if (judged && urisan_policy_protected_id(pol) != 0)
        f |= host_brand_elsewhere(ctx, pol, in, len, up, j->host_name ? &ctx->last.hv : NULL);
    if (mail)
        f |= other_addresses(ctx, pol, in, len, up);
    return f;
}

/* urisan_judge_report's body, inlined in urisan_judge (every line). */
static inline void judge_report(urisan_host_ctx *ctx, const char *in, size_t len,
                                const urisan_policy *pol, unsigned opts, urisan_judgement *j)
{
    j->hv = NULL;
    j->host_name = false;
    if (ctx == NULL && (ctx = urisan_host_ctx_thread()) == NULL) {
        no_context(j);
        return;
    }
    /* an IDN host and every host name under a policy that protects names
       are judged (only those can have this library's flags) */
    bool judged = (j->rep.flags & URISAN_F(IDN)) != 0 || urisan_policy_protected_id(pol) != 0;
    bool mailto = mailto_scheme(in, len);
    urisan_flags f = 0;
    urisan_uri own;
    const urisan_uri *up = &j->uri;
    if (judged || mailto || (opts & URISAN_JUDGE_VIEW)) {
        /* a view reads the parse with the default limits */
        if (!default_limits(pol)) {
            urisan_parse(in, len, NULL, &own, NULL);
            up = &own;
        }
        f = view_host(ctx, in, len, up, judged, mailto, pol, opts, j);
    }
    j->rep.flags |= f;
    decide_once(ctx, pol, in, len, &j->uri, &j->rep, up, j->hv, &j->dec);
}

URISAN_API void urisan_judge_report(urisan_host_ctx *ctx, const char *in, size_t len,
                                    const urisan_policy *pol, unsigned opts,
                                    urisan_judgement *j)
{
    judge_report(ctx, in, len, pol, opts, j);
}

URISAN_API urisan_status urisan_judge(urisan_host_ctx *ctx, const char *in, size_t len,
                                      const urisan_policy *pol, unsigned opts,
                                      urisan_judgement *j)
{
    urisan_status st = urisan_parse_analyze(in, len, pol, &j->uri, NULL, &j->rep);
    j->hv = NULL;
    j->host_name = false;
    if (st == URISAN_E_BAD_ARGUMENT) { /* as urisan_check */
        memset(&j->rep, 0, sizeof j->rep);
        no_context(j);
        return st;
    }
    if (ctx == NULL && (ctx = urisan_host_ctx_thread()) == NULL) {
        no_context(j);
        return URISAN_E_NOSPACE;
    }
    judge_report(ctx, in, len, pol, opts, j);
    return st;
}

URISAN_API urisan_status urisan_judge_base(urisan_host_ctx *ctx, const char *base, size_t blen,
                                           const char *ref, size_t rlen,
                                           const urisan_policy *pol, unsigned opts,
                                           char *buf, size_t cap, size_t *needed,
                                           urisan_judgement *j, urisan_error *err)
{
    size_t n = 0;
    /* the core's facts of the reference and of where it leads, not its
       decision (dec NULL): the one decision is judge_report's, after the
       host judgement */
    urisan_status st = urisan_check_base(base, blen, ref, rlen, pol, buf, cap, &n, &j->uri,
                                         &j->rep, NULL, err);
    if (needed != NULL)
        *needed = n;
    if (st != URISAN_OK) { /* judged as written */
        urisan_judge_report(ctx, ref, rlen, pol, opts, j);
        return st;
    }
    /* the components are the reference's; the host judged and the
       decision are those of where it leads */
    urisan_uri as_written = j->uri;
    urisan_parse(buf, n, urisan_policy_limits(pol), &j->uri, NULL);
    urisan_judge_report(ctx, buf, n, pol, opts, j);
    j->uri = as_written;
    return st;
}

URISAN_API void urisan_judge_link_decide(void *judge, const urisan_policy *pol,
                                         const char *in, size_t len, const urisan_uri *u,
                                         urisan_report *rep, const char *display, size_t dlen,
                                         urisan_decision *dec)
{
    const urisan_link_judge *lj = judge;
    urisan_host_ctx *ctx = lj != NULL ? lj->ctx : NULL;
    urisan_hostview *hv = lj != NULL ? lj->hv : NULL, *own = NULL;
    if ((ctx == NULL && (ctx = urisan_host_ctx_thread()) == NULL) ||
        (hv == NULL && (hv = own = malloc(sizeof *own)) == NULL)) {
        rep->flags |= URISAN_F(INVALID);   /* fail closed */
        urisan_decide(in, len, u, rep, pol, dec);
        dec->verdict = URISAN_DENY;
        dec->deny_flags |= URISAN_F(INVALID);
        return;
    }
    urisan_uri dl;   /* the parse a view reads: the default limits */
    const urisan_uri *du = u;
    if (!default_limits(pol)) {
        urisan_parse(in, len, NULL, &dl, NULL);
        du = &dl;
    }
    urisan_flags f = uri_host_flags(ctx, pol, in, len, du, hv);
    if (display != NULL && urisan_host_has_invisible(display, dlen))
        f |= URISAN_F(INVISIBLE_CHAR);
    /* the link's flags and the host's, decided once: the decision asks
       this library about a nested URL's host and about the form a
       browser resolves of a host with a non-ASCII byte or a
       percent-escape (urisan_decide_with's own test) */
    rep->flags |= f;
    decide_once(ctx, pol, in, len, u, rep, du, hv, dec);
    free(own);
}
