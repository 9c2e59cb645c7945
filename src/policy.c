/*
 * policy.c - policies and verdicts (SPEC 4).
 *
 * A policy is plain data in caller memory (urisan_policy_size() bytes):
 * flag masks, fixed-capacity lists and one name pool. Parsing a policy file
 * never allocates, never recurses and stops at the first mistake with its
 * line number. The file format is documented in doc/policy.md.
 */
#include "risk.h"

#include <string.h>

/* SPEC 3 dangerous_scheme: the built-in list (risk.h), with the lengths
   computed by the compiler, never per call. */
#define POL_ENTRY_(s) {s, sizeof s - 1},
static const struct {
    const char *name;
    size_t len;
} builtin_dangerous[] = {POL_BUILTIN_DANGEROUS(POL_ENTRY_)};
#undef POL_ENTRY_

URISAN_API size_t urisan_policy_size(void)
{
    return sizeof(struct urisan_policy);
}

URISAN_API void urisan_policy_init(urisan_policy *p)
{
    if (p == NULL)
        return;
    memset(p, 0, sizeof *p);
    p->magic = POL_MAGIC;
    p->deny = URISAN_DEFAULT_DENY;
    p->flag = URISAN_ALL_FLAGS & ~URISAN_DEFAULT_DENY;
    urisan_limits_default(&p->limits);
}

URISAN_API const urisan_limits *urisan_policy_limits(const urisan_policy *p)
{
    static const urisan_limits defaults = {8192, 64, 1024, 255, 63, 1024}; /* SPEC 2 */
    if (p == NULL || p->magic != POL_MAGIC)
        return &defaults;
    return &p->limits;
}

static const char *pool_str(const urisan_policy *p, pol_str s)
{
    return p->pool + s.off;
}

/* Exact compare of n bytes with a pool string (both already lower-case). */
static bool str_eq(const urisan_policy *p, pol_str s, const char *t, size_t n)
{
    return s.len == n && memcmp(pool_str(p, s), t, n) == 0;
}

bool urisan_policy_dangerous(const urisan_policy *pol, const char *name, size_t n)
{
    /* Most schemes (http: 4, https: 5) match no entry's first byte or
       length: one test each before any compare. */
    if (n < 64 && (POL_BUILTIN_DANGEROUS_LENS >> n & 1))
        for (size_t i = 0; i < sizeof builtin_dangerous / sizeof builtin_dangerous[0]; i++)
            if (builtin_dangerous[i].len == n && builtin_dangerous[i].name[0] == name[0] &&
                memcmp(builtin_dangerous[i].name, name, n) == 0)
                return true;
    if (pol != NULL && pol->magic == POL_MAGIC)
        for (size_t i = 0; i < pol->n_dangerous; i++)
            if (str_eq(pol, pol->dangerous[i], name, n))
                return true;
    return false;
}

/* Case-insensitive compare of in[0..n) with a lower-case pool string. */
static bool str_ieq(const urisan_policy *p, pol_str s, const char *t, size_t n)
{
    if (s.len != n)
        return false;
    const char *a = pool_str(p, s);
    for (size_t i = 0; i < n; i++)
        if (lower_ascii((unsigned char)t[i]) != (unsigned char)a[i])
            return false;
    return true;
}

int urisan_policy_default_port(const urisan_policy *pol, const char *s, size_t n)
{
    if (pol != NULL && pol->magic == POL_MAGIC)
        for (size_t i = 0; i < pol->n_defport; i++)
            if (str_ieq(pol, pol->defport[i].name, s, n))
                return pol->defport[i].port;
    return urisan_default_port(s, n);
}

/* ------------------------------------------------------------------ */
/* Names                                                                */
/* ------------------------------------------------------------------ */

URISAN_API const char *urisan_rule_reason_name(urisan_rule_reason r)
{
    switch (r) {
#define URISAN_X_(U, l, b) case URISAN_REASON_##U: return #l;
    URISAN_REASON_LIST(URISAN_X_)
#undef URISAN_X_
    default: return NULL;
    }
}

URISAN_API const char *urisan_verdict_name(urisan_verdict v)
{
    switch (v) {
    case URISAN_ALLOW: return "allow";
    case URISAN_FLAGGED: return "flag";
    case URISAN_DENY: return "deny";
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Policy file parser                                                   */
/* ------------------------------------------------------------------ */

typedef struct {
    const char *s;
    size_t n;
} token;

#define MAX_TOKENS 256 /* per line; "too many arguments" beyond */

typedef struct {
    urisan_policy *p;
    const char *msg;
} pctx;

static bool fail(pctx *c, const char *msg)
{
    c->msg = msg;
    return false;
}

/* Copy a token into the pool, lower-cased. */
static bool pool_add(pctx *c, const char *s, size_t n, pol_str *out)
{
    urisan_policy *p = c->p;
    if (n > POL_POOL - p->pool_used)
        return fail(c, "too many names: the policy's name storage is full");
    for (size_t i = 0; i < n; i++)
        p->pool[p->pool_used + i] = (char)lower_ascii((unsigned char)s[i]);
    out->off = (uint32_t)p->pool_used;
    out->len = (uint32_t)n;
    p->pool_used += n;
    return true;
}

/* scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )  (RFC 3986 3.1) */
static bool scheme_token(pctx *c, token t)
{
    if (t.n > POL_MAX_NAME)
        return fail(c, "scheme name too long");
    if (!cc_is((unsigned char)t.s[0], CC_ALPHA))
        return fail(c, "invalid scheme name");
    for (size_t i = 1; i < t.n; i++)
        if (!cc_is((unsigned char)t.s[i], CC_SCHEME))
            return fail(c, "invalid scheme name");
    return true;
}

/* Decimal number 0..max, digits only. */
static bool number(token t, size_t max, size_t *v)
{
    size_t x = 0;
    if (t.n == 0)
        return false;
    for (size_t i = 0; i < t.n; i++) {
        if (!cc_is((unsigned char)t.s[i], CC_DIGIT))
            return false;
        x = x * 10 + (size_t)(t.s[i] - '0');
        if (x > max)
            return false;
    }
    *v = x;
    return true;
}

static bool flag_list(pctx *c, const token *t, size_t nt, int how)
{
    urisan_policy *p = c->p;
    for (size_t i = 1; i < nt; i++) {
        urisan_flags m;
        if (t[i].n == 3 && memcmp(t[i].s, "all", 3) == 0) {
            m = URISAN_ALL_FLAGS;
        } else {
            int b = urisan_flag_from_name(t[i].s, t[i].n);
            if (b < 0)
                return fail(c, "unknown flag name");
            m = (urisan_flags)1 << b;
        }
        p->deny &= ~m;
        p->flag &= ~m;
        if (how == 'd')
            p->deny |= m;
        else if (how == 'f')
            p->flag |= m;
    }
    return true;
}

static bool scheme_list(pctx *c, const token *t, size_t nt, pol_str *arr, size_t *cnt,
                        size_t cap, const char *full)
{
    for (size_t i = 1; i < nt; i++) {
        if (!scheme_token(c, t[i]))
            return false;
        bool dup = false;
        for (size_t k = 0; k < *cnt && !dup; k++)
            dup = str_ieq(c->p, arr[k], t[i].s, t[i].n);
        if (dup)
            continue;
        if (*cnt == cap)
            return fail(c, full);
        if (!pool_add(c, t[i].s, t[i].n, &arr[*cnt]))
            return false;
        (*cnt)++;
    }
    return true;
}

static bool port_list(pctx *c, const token *t, size_t nt)
{
    urisan_policy *p = c->p;
    for (size_t i = 1; i < nt; i++) {
        token a = t[i], b = t[i];
        const char *dash = memchr(t[i].s, '-', t[i].n);
        if (dash != NULL) {
            a.n = (size_t)(dash - t[i].s);
            b.s = dash + 1;
            b.n = t[i].n - a.n - 1;
        }
        size_t lo, hi;
        if (!number(a, 65535, &lo) || !number(b, 65535, &hi))
            return fail(c, "invalid port (want N or N-M, 0-65535)");
        if (lo > hi)
            return fail(c, "invalid port range: start above end");
        if (p->n_port == POL_MAX_PORTS)
            return fail(c, "too many allow-port entries");
        p->port[p->n_port].lo = (uint16_t)lo;
        p->port[p->n_port].hi = (uint16_t)hi;
        p->n_port++;
    }
    return true;
}

/*
 * A host entry: a name or address as it appears in a URI, or ".name" for
 * the name and every name below it. "[v6]" is stored without brackets and
 * one trailing "." is dropped (DNS root), so "Example.COM." == "example.com".
 */
static bool host_list(pctx *c, const token *t, size_t nt, pol_str *arr, size_t *cnt,
                      const char *full)
{
    for (size_t i = 1; i < nt; i++) {
        const char *s = t[i].s;
        size_t n = t[i].n;
        if (n >= 2 && s[0] == '[' && s[n - 1] == ']')
            s++, n -= 2;
        if (n > 1 && s[n - 1] == '.')
            n--;
        if (n == 0 || (n == 1 && s[0] == '.') || (s[0] == '.' && s[1] == '.'))
            return fail(c, "invalid host");
        if (n > POL_MAX_HOSTNAME + 1)
            return fail(c, "host too long");
        for (size_t k = 0; k < n; k++) {
            unsigned char ch = (unsigned char)s[k];
            if (!cc_is(ch, CC_REG) && ch != ':' && ch != '%')
                return fail(c, "invalid host");
        }
        if (*cnt == POL_MAX_HOSTS)
            return fail(c, full);
        if (!pool_add(c, s, n, &arr[*cnt]))
            return false;
        (*cnt)++;
    }
    return true;
}

static bool limit_line(pctx *c, const token *t, size_t nt)
{
    urisan_limits *l = &c->p->limits;
    if (nt < 3)
        return fail(c, "missing argument: limit NAME N");
    if (nt > 3)
        return fail(c, "too many arguments: limit NAME N");
    size_t v;
    /* values above the hard ceiling are capped to it (SPEC 2) */
    if (!number(t[2], (size_t)-1 / 16, &v))
        return fail(c, "invalid number");
    if (v == 0)
        return fail(c, "limit must be at least 1");
    if (v > URISAN_HARD_CEILING)
        v = URISAN_HARD_CEILING;
    static const struct {
        const char *name;
        size_t off;
    } names[] = {
        {"uri", offsetof(urisan_limits, max_uri)},
        {"scheme", offsetof(urisan_limits, max_scheme)},
        {"userinfo", offsetof(urisan_limits, max_userinfo)},
        {"host", offsetof(urisan_limits, max_host)},
        {"label", offsetof(urisan_limits, max_label)},
        {"segments", offsetof(urisan_limits, max_segments)},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strlen(names[i].name) == t[1].n && memcmp(names[i].name, t[1].s, t[1].n) == 0) {
            size_t *field = (size_t *)(void *)((char *)l + names[i].off);
            *field = v;
            return true;
        }
    }
    return fail(c, "unknown limit name (uri, scheme, userinfo, host, label, segments)");
}

static bool default_port_line(pctx *c, const token *t, size_t nt)
{
    urisan_policy *p = c->p;
    if (nt < 3)
        return fail(c, "missing argument: default-port SCHEME N");
    if (nt > 3)
        return fail(c, "too many arguments: default-port SCHEME N");
    if (!scheme_token(c, t[1]))
        return false;
    size_t v;
    if (!number(t[2], 65535, &v))
        return fail(c, "invalid port (want 0-65535)");
    for (size_t i = 0; i < p->n_defport; i++) {
        if (str_ieq(p, p->defport[i].name, t[1].s, t[1].n)) {
            p->defport[i].port = (uint16_t)v; /* a later line wins */
            return true;
        }
    }
    if (p->n_defport == POL_MAX_DEFPORTS)
        return fail(c, "too many default-port entries");
    if (!pool_add(c, t[1].s, t[1].n, &p->defport[p->n_defport].name))
        return false;
    p->defport[p->n_defport].port = (uint16_t)v;
    p->n_defport++;
    return true;
}

static bool tok_is(token t, const char *lit)
{
    return strlen(lit) == t.n && memcmp(lit, t.s, t.n) == 0;
}

static bool directive(pctx *c, const token *t, size_t nt)
{
    urisan_policy *p = c->p;
    if (tok_is(t[0], "limit"))
        return limit_line(c, t, nt);
    if (tok_is(t[0], "default-port"))
        return default_port_line(c, t, nt);
    bool known = tok_is(t[0], "deny") || tok_is(t[0], "flag") || tok_is(t[0], "allow") ||
                 tok_is(t[0], "allow-scheme") || tok_is(t[0], "allow-port") ||
                 tok_is(t[0], "deny-host") || tok_is(t[0], "allow-host") ||
                 tok_is(t[0], "dangerous-scheme");
    if (!known)
        return fail(c, "unknown directive");
    if (nt < 2)
        return fail(c, "missing argument");
    if (tok_is(t[0], "deny"))
        return flag_list(c, t, nt, 'd');
    if (tok_is(t[0], "flag"))
        return flag_list(c, t, nt, 'f');
    if (tok_is(t[0], "allow"))
        return flag_list(c, t, nt, 'a');
    if (tok_is(t[0], "allow-scheme"))
        return scheme_list(c, t, nt, p->scheme, &p->n_scheme, POL_MAX_SCHEMES,
                           "too many allow-scheme entries");
    if (tok_is(t[0], "dangerous-scheme"))
        return scheme_list(c, t, nt, p->dangerous, &p->n_dangerous, POL_MAX_DANGEROUS,
                           "too many dangerous-scheme entries");
    if (tok_is(t[0], "allow-port"))
        return port_list(c, t, nt);
    if (tok_is(t[0], "deny-host"))
        return host_list(c, t, nt, p->deny_host, &p->n_deny_host, "too many deny-host entries");
    return host_list(c, t, nt, p->allow_host, &p->n_allow_host, "too many allow-host entries");
}

URISAN_API urisan_status urisan_policy_parse(urisan_policy *p, const char *text, size_t len,
                                             size_t *line, const char **msg)
{
    size_t dummy_line;
    const char *dummy_msg;
    if (line == NULL)
        line = &dummy_line;
    if (msg == NULL)
        msg = &dummy_msg;
    *line = 0;
    *msg = NULL;
    if (p == NULL || (text == NULL && len != 0)) {
        *msg = "invalid argument";
        return URISAN_E_BAD_ARGUMENT;
    }
    if (p->magic != POL_MAGIC) {
        *msg = "policy not initialised (call urisan_policy_init first)";
        return URISAN_E_BAD_ARGUMENT;
    }

    pctx c = {p, NULL};
    token t[MAX_TOKENS];
    size_t lineno = 1, i = 0;
    while (i < len) {
        /* one line: up to LF; a CR before the LF is part of the ending */
        size_t e = i;
        while (e < len && text[e] != '\n')
            e++;
        size_t le = e;
        if (le > i && text[le - 1] == '\r')
            le--;
        size_t nt = 0;
        bool in_comment = false;
        for (size_t k = i; k < le; k++) {
            unsigned char ch = (unsigned char)text[k];
            if (ch == '#')
                in_comment = true; /* "#" to the end of the line */
            if (in_comment)
                continue;
            if (ch == ' ' || ch == '\t')
                continue;
            if (cc_is(ch, CC_CTL) || cc_is(ch, CC_HIGH)) {
                c.msg = "control character or non-ASCII byte";
                goto error;
            }
            /* a token runs to the next blank, "#" or end of line */
            size_t s = k;
            while (k < le && text[k] != ' ' && text[k] != '\t' && text[k] != '#') {
                ch = (unsigned char)text[k];
                if (cc_is(ch, CC_CTL) || cc_is(ch, CC_HIGH)) {
                    c.msg = "control character or non-ASCII byte";
                    goto error;
                }
                k++;
            }
            if (nt == MAX_TOKENS) {
                c.msg = "too many arguments on one line";
                goto error;
            }
            t[nt].s = text + s;
            t[nt].n = k - s;
            nt++;
            k--; /* the for loop advances past the token */
        }
        if (nt > 0 && !directive(&c, t, nt))
            goto error;
        if (e == len)
            break;
        i = e + 1;
        lineno++;
    }
    return URISAN_OK;

error:
    *line = lineno;
    *msg = c.msg;
    return URISAN_E_BAD_POLICY;
}

/* ------------------------------------------------------------------ */
/* Verdicts                                                             */
/* ------------------------------------------------------------------ */

/* A host entry against a host text (case-insensitive; ".x" is x and every
   name below it, as Squid's dstdomain). */
static bool host_match(const urisan_policy *p, pol_str e, const char *h, size_t n)
{
    const char *es = pool_str(p, e);
    if (e.len > 0 && es[0] == '.') {
        if (n == e.len - 1 && str_ieq(p, (pol_str){e.off + 1, e.len - 1}, h, n))
            return true;
        return n >= e.len && str_ieq(p, e, h + n - e.len, e.len);
    }
    return str_ieq(p, e, h, n);
}

static bool host_in(const urisan_policy *p, const pol_str *arr, size_t cnt, const char *h,
                    size_t n, const char *ip, size_t ipn)
{
    for (size_t i = 0; i < cnt; i++) {
        if (n > 0 && host_match(p, arr[i], h, n))
            return true;
        if (ipn > 0 && host_match(p, arr[i], ip, ipn))
            return true;
    }
    return false;
}

static bool span_in(urisan_span s, size_t len)
{
    return s.off != URISAN_ABSENT && s.off <= len && s.len <= len - s.off;
}

static unsigned rule_reasons(const char *in, size_t len, const urisan_uri *uri,
                             const urisan_report *rep, const urisan_policy *p)
{
    unsigned rules = 0;
    if (uri == NULL)
        return 0;
    bool has_scheme = span_in(uri->scheme, len);
    bool has_host = span_in(uri->host, len);

    /* allow-scheme: anything else, a reference without a scheme too */
    if (p->n_scheme > 0) {
        bool ok = false;
        for (size_t i = 0; has_scheme && i < p->n_scheme && !ok; i++)
            ok = str_ieq(p, p->scheme[i], in + uri->scheme.off, uri->scheme.len);
        if (!ok)
            rules |= 1u << URISAN_REASON_SCHEME_NOT_ALLOWED;
    }

    /* allow-port: the explicit port, else the scheme's default port; an
       authority whose port cannot be known is not allowed. A URI without
       an authority has no port and is not judged. */
    if (p->n_port > 0 && has_host) {
        long port = -1;
        urisan_span ps = uri->port;
        if (span_in(ps, len) && ps.len > 0) {
            long v = 0;
            for (size_t i = 0; i < ps.len && v >= 0; i++) {
                unsigned char ch = (unsigned char)in[ps.off + i];
                if (!cc_is(ch, CC_DIGIT))
                    v = -1;
                else if ((v = v * 10 + (ch - '0')) > 65535)
                    v = -1;
            }
            port = v;
        } else if (has_scheme) {
            port = urisan_policy_default_port(p, in + uri->scheme.off, uri->scheme.len);
        }
        bool ok = false;
        for (size_t i = 0; port >= 0 && i < p->n_port && !ok; i++)
            ok = port >= p->port[i].lo && port <= p->port[i].hi;
        if (!ok)
            rules |= 1u << URISAN_REASON_PORT_NOT_ALLOWED;
    }

    if (p->n_deny_host > 0 || p->n_allow_host > 0) {
        const char *h = has_host ? in + uri->host.off : "";
        size_t n = has_host ? uri->host.len : 0;
        if (n > 0 && h[0] == '[') { /* compare the literal without brackets */
            size_t b = 1;
            while (b < n && h[b] != ']')
                b++;
            n = b - 1;
            h++;
        }
        if (n > 1 && h[n - 1] == '.')
            n--; /* "example.com." is example.com (DNS root label) */
        char ip[48];
        size_t ipn = 0;
        if (rep != NULL && rep->ip_family != 0 && urisan_format_ip(rep, ip, sizeof ip, &ipn) != URISAN_OK)
            ipn = 0;
        if (p->n_deny_host > 0 && host_in(p, p->deny_host, p->n_deny_host, h, n, ip, ipn))
            rules |= 1u << URISAN_REASON_HOST_DENIED;
        if (p->n_allow_host > 0 && !host_in(p, p->allow_host, p->n_allow_host, h, n, ip, ipn))
            rules |= 1u << URISAN_REASON_HOST_NOT_ALLOWED;
    }
    return rules;
}

URISAN_API void urisan_decide(const char *in, size_t len, const urisan_uri *uri,
                              const urisan_report *rep, const urisan_policy *pol,
                              urisan_decision *out)
{
    if (out == NULL)
        return;
    memset(out, 0, sizeof *out);
    urisan_flags flags = rep != NULL ? rep->flags : URISAN_F(INVALID);
    if (in == NULL && len != 0)
        flags |= URISAN_F(INVALID);
    if (pol != NULL && pol->magic != POL_MAGIC)
        pol = NULL;
    urisan_flags deny = pol ? pol->deny : URISAN_DEFAULT_DENY;
    urisan_flags flag = pol ? pol->flag : (URISAN_ALL_FLAGS & ~URISAN_DEFAULT_DENY);
    out->deny_flags = flags & deny;
    out->flag_flags = flags & flag & ~deny;
    if (pol != NULL && (in != NULL || len == 0))
        out->rules = rule_reasons(in != NULL ? in : "", len, uri, rep, pol);
    if (out->deny_flags != 0 || out->rules != 0)
        out->verdict = URISAN_DENY;
    else if (out->flag_flags != 0)
        out->verdict = URISAN_FLAGGED;
    else
        out->verdict = URISAN_ALLOW;
}

URISAN_API urisan_status urisan_check(const char *in, size_t len, const urisan_policy *pol,
                                      urisan_uri *uri, urisan_report *rep,
                                      urisan_decision *dec)
{
    urisan_uri u_local;
    urisan_report r_local;
    urisan_decision d_local;
    if (uri == NULL)
        uri = &u_local;
    if (rep == NULL)
        rep = &r_local;
    if (dec == NULL)
        dec = &d_local;
    if (pol != NULL && pol->magic != POL_MAGIC)
        pol = NULL;
    /* NULL: the default limits (urisan_policy_limits' defaults), taken
       without the clamping pass */
    urisan_status st = urisan_parse(in, len, pol != NULL ? &pol->limits : NULL, uri, NULL);
    if (st == URISAN_E_BAD_ARGUMENT) {
        memset(rep, 0, sizeof *rep);
        rep->flags = URISAN_F(INVALID);
        memset(dec, 0, sizeof *dec);
        dec->verdict = URISAN_DENY;
        dec->deny_flags = URISAN_F(INVALID);
        return st;
    }
    urisan_analyze(in, len, uri, pol, rep);
    urisan_decide(in, len, uri, rep, pol, dec);
    return st;
}
