/*
 * policy_parse.c - the policy language (doc/policy.md): fail closed. Every
 * word of every line is validated; a mistake stops the parse with its
 * line, its column and the word (urisan_policy_error), and a rule that
 * could never match is a mistake, not a silent no-op. Parsing never
 * allocates and never recurses: a `profile` line is applied by the outer
 * loop, and profile texts (profiles.c) cannot name a profile themselves.
 */
#include "risk.h"

#include <string.h>

typedef struct {
    const char *s;
    size_t n;
} token;

#define MAX_TOKENS 256 /* per line; "too many arguments" beyond */

typedef struct {
    urisan_policy *p;
    const char *msg;
    token word;        /* the offending word; n == 0: none */
} pctx;

static bool fail_at(pctx *c, token w, const char *msg)
{
    c->msg = msg;
    c->word = w;
    return false;
}

static bool tok_is(token t, const char *lit)
{
    return strlen(lit) == t.n && memcmp(lit, t.s, t.n) == 0;
}

/* Copy a token into the pool, lower-cased. */
static bool pool_add(pctx *c, token w, const char *s, size_t n, pol_str *out)
{
    urisan_policy *p = c->p;
    if (n > POL_POOL - p->pool_used)
        return fail_at(c, w, "too many names: the policy's name storage is full at");
    for (size_t i = 0; i < n; i++)
        p->pool[p->pool_used + i] = (char)lower_ascii((unsigned char)s[i]);
    out->off = (uint32_t)p->pool_used;
    out->len = (uint32_t)n;
    p->pool_used += n;
    return true;
}

/* Case-insensitive compare of s[0..n) with a lower-case pool string. */
static bool pool_ieq(const urisan_policy *p, pol_str e, const char *s, size_t n)
{
    if (e.len != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (lower_ascii((unsigned char)s[i]) != (unsigned char)p->pool[e.off + i])
            return false;
    return true;
}

/* scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )  (RFC 3986 3.1) */
static bool scheme_token(pctx *c, token t)
{
    if (t.n > POL_MAX_NAME)
        return fail_at(c, t, "scheme name too long");
    if (!cc_is((unsigned char)t.s[0], CC_ALPHA))
        return fail_at(c, t, "invalid scheme name");
    for (size_t i = 1; i < t.n; i++) {
        if (t.s[i] == ':')
            return fail_at(c, t, "a scheme is written without ':'");
        if (!cc_is((unsigned char)t.s[i], CC_SCHEME))
            return fail_at(c, t, "invalid scheme name");
    }
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
        /* "nested:FLAG": the flags of the URLs nested in parameters */
        static const char nested[] = "nested:";
        bool nest = t[i].n >= sizeof nested - 1 && memcmp(t[i].s, nested, sizeof nested - 1) == 0;
        token w = t[i];
        if (nest) {
            w.s += sizeof nested - 1;
            w.n -= sizeof nested - 1;
        }
        if (tok_is(w, "all")) {
            m = URISAN_ALL_FLAGS;
        } else {
            int b = urisan_flag_from_name(w.s, w.n);
            if (b < 0)
                return fail_at(c, t[i], nest ? "unknown flag after 'nested:'" : "unknown flag");
            m = (urisan_flags)1 << b;
        }
        urisan_flags *deny = nest ? &p->nested_deny : &p->deny;
        urisan_flags *flag = nest ? &p->nested_flag : &p->flag;
        *deny &= ~m;
        *flag &= ~m;
        if (how == 'd')
            *deny |= m;
        else if (how == 'f')
            *flag |= m;
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
            dup = pool_ieq(c->p, arr[k], t[i].s, t[i].n);
        if (dup)
            continue;
        if (*cnt == cap)
            return fail_at(c, t[i], full);
        if (!pool_add(c, t[i], t[i].s, t[i].n, &arr[*cnt]))
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
            return fail_at(c, t[i], "invalid port (want N or N-M, 0-65535)");
        if (lo > hi)
            return fail_at(c, t[i], "invalid port range: start above end");
        if (p->n_port == POL_MAX_PORTS)
            return fail_at(c, t[i], "too many allow-port entries");
        p->port[p->n_port].lo = (uint16_t)lo;
        p->port[p->n_port].hi = (uint16_t)hi;
        p->n_port++;
    }
    return true;
}

/*
 * A DNS name as a host rule compares it: labels of letters, digits, "-"
 * and "_", 1..63 bytes each, separated by single dots (RFC 1034 3.5 plus
 * the "_" of service names). Anything else could never equal a host.
 */
static const char *name_error(const char *s, size_t n)
{
    size_t label = 0;
    if (n == 0)
        return "empty host";
    for (size_t k = 0; k < n; k++) {
        unsigned char ch = (unsigned char)s[k];
        if (ch == '.') {
            if (label == 0)
                return "empty label in host";
            label = 0;
            continue;
        }
        if (ch == '/' || ch == '?' || ch == '#')
            return "a host rule holds no path, query or fragment";
        if (ch == ':')
            return "a host rule holds no port (use allow-port)";
        if (ch == '@')
            return "a host rule holds no userinfo";
        if (ch == '*')
            return "'*' only as '*.' at the start of a host rule";
        if (!cc_is(ch, CC_ALPHA) && !cc_is(ch, CC_DIGIT) && ch != '-' && ch != '_')
            return "invalid character in host";
        if (++label > URISAN_DNS_LABEL)
            return "host label longer than 63 bytes";
    }
    if (label == 0)
        return "empty label in host";
    return NULL;
}

/*
 * A host entry: a name or address as it appears in a URI; ".name" for the
 * name and every name below it (Squid dstdomain); "*.name" for the names
 * below it only (nginx server_name, HAProxy, Envoy). "[v6]" is stored
 * without brackets and one trailing "." is dropped (DNS root), so
 * "Example.COM." == "example.com". Stored lower-case: ".x", "*.x", "x".
 */
static bool host_list(pctx *c, const token *t, size_t nt, pol_str *arr, size_t *cnt,
                      const char *full)
{
    for (size_t i = 1; i < nt; i++) {
        const char *s = t[i].s;
        size_t n = t[i].n;
        uint8_t ip[16];
        size_t errpos = 0;
        bool bracket = n >= 2 && s[0] == '[' && s[n - 1] == ']';
        if (bracket || memchr(s, ':', n) != NULL) {
            const char *a = bracket ? s + 1 : s;
            size_t an = bracket ? n - 2 : n;
            if (!urisan_parse_ipv6(a, an, ip, &errpos))
                return fail_at(c, t[i], memchr(s, '.', n) != NULL && !bracket
                                            ? "a host rule holds no port (use allow-port)"
                                            : "invalid IPv6 address in host rule");
            if (*cnt == POL_MAX_HOSTS)
                return fail_at(c, t[i], full);
            if (!pool_add(c, t[i], a, an, &arr[*cnt]))
                return false;
            (*cnt)++;
            continue;
        }
        if (memchr(s, '/', n) != NULL && cc_is((unsigned char)s[0], CC_DIGIT))
            return fail_at(c, t[i], "an address range is no host (use deny-ip / allow-ip)");
        if (n > 1 && s[n - 1] == '.')
            n--;
        size_t skip = 0;
        if (n >= 2 && s[0] == '*' && s[1] == '.')
            skip = 2;
        else if (n >= 1 && s[0] == '.')
            skip = 1;
        const char *why = name_error(s + skip, n - skip);
        if (why != NULL)
            return fail_at(c, t[i], why);
        if (n - skip > POL_MAX_HOSTNAME)
            return fail_at(c, t[i], "host too long");
        if (*cnt == POL_MAX_HOSTS)
            return fail_at(c, t[i], full);
        if (!pool_add(c, t[i], s, n, &arr[*cnt]))
            return false;
        (*cnt)++;
    }
    return true;
}

/* deny-ip / allow-ip: address ranges (policy_ip.c parses each word) */
static bool ip_list(pctx *c, const token *t, size_t nt, pol_cidr *arr, size_t *cnt,
                    const char *full)
{
    for (size_t i = 1; i < nt; i++) {
        if (*cnt == POL_MAX_IPS)
            return fail_at(c, t[i], full);
        const char *why = urisan_pol_cidr_parse(t[i].s, t[i].n, &arr[*cnt]);
        if (why != NULL)
            return fail_at(c, t[i], why);
        (*cnt)++;
    }
    return true;
}

static bool limit_line(pctx *c, const token *t, size_t nt)
{
    urisan_limits *l = &c->p->limits;
    if (nt < 3)
        return fail_at(c, t[0], "missing argument: limit NAME N, for");
    if (nt > 3)
        return fail_at(c, t[3], "too many arguments: limit NAME N, at");
    size_t v;
    /* values above the hard ceiling are capped to it (SPEC 2) */
    if (!number(t[2], (size_t)-1 / 16, &v))
        return fail_at(c, t[2], "invalid number");
    if (v == 0)
        return fail_at(c, t[2], "limit must be at least 1, not");
    if (v > URISAN_HARD_CEILING)
        v = URISAN_HARD_CEILING;
#define POL_LIMIT_ENTRY_(n, field) {n, offsetof(urisan_limits, field)},
    static const struct {
        const char *name;
        size_t off;
    } names[] = {POL_LIMITS(POL_LIMIT_ENTRY_)};
#undef POL_LIMIT_ENTRY_
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (tok_is(t[1], names[i].name)) {
            size_t *field = (size_t *)(void *)((char *)l + names[i].off);
            *field = v;
            c->p->limits_custom = memcmp(l, &urisan_default_limits, sizeof *l) != 0;
            return true;
        }
    }
    return fail_at(c, t[1], "unknown limit name (uri, scheme, userinfo, host, label, segments)");
}

static bool default_port_line(pctx *c, const token *t, size_t nt)
{
    urisan_policy *p = c->p;
    if (nt < 3)
        return fail_at(c, t[0], "missing argument: default-port SCHEME N, for");
    if (nt > 3)
        return fail_at(c, t[3], "too many arguments: default-port SCHEME N, at");
    if (!scheme_token(c, t[1]))
        return false;
    size_t v;
    if (!number(t[2], 65535, &v))
        return fail_at(c, t[2], "invalid port (want 0-65535)");
    for (size_t i = 0; i < p->n_defport; i++) {
        if (pool_ieq(p, p->defport[i].name, t[1].s, t[1].n)) {
            p->defport[i].port = (uint16_t)v; /* a later line wins */
            return true;
        }
    }
    if (p->n_defport == POL_MAX_DEFPORTS)
        return fail_at(c, t[1], "too many default-port entries");
    if (!pool_add(c, t[1], t[1].s, t[1].n, &p->defport[p->n_defport].name))
        return false;
    p->defport[p->n_defport].port = (uint16_t)v;
    p->n_defport++;
    return true;
}

/* nested-depth N: how deep URLs nested in parameters are analysed */
static bool nested_depth_line(pctx *c, const token *t, size_t nt)
{
    if (nt < 2)
        return fail_at(c, t[0], "missing argument: nested-depth N (1-3), for");
    if (nt > 2)
        return fail_at(c, t[2], "too many arguments: nested-depth N, at");
    size_t v;
    if (!number(t[1], URISAN_NESTED_MAX_DEPTH, &v) || v == 0)
        return fail_at(c, t[1], "invalid nested depth (want 1-3)");
    c->p->nested_depth = (unsigned)v;
    return true;
}

/* A directive without arguments ("require-authority"). */
static bool switch_line(pctx *c, const token *t, size_t nt, bool *field)
{
    if (nt > 1)
        return fail_at(c, t[1], "this directive takes no argument, got");
    *field = true;
    return true;
}

static bool directive(pctx *c, const token *t, size_t nt)
{
    urisan_policy *p = c->p;
    if (tok_is(t[0], "limit"))
        return limit_line(c, t, nt);
    if (tok_is(t[0], "default-port"))
        return default_port_line(c, t, nt);
    if (tok_is(t[0], "require-absolute"))
        return switch_line(c, t, nt, &p->require_absolute);
    if (tok_is(t[0], "require-authority"))
        return switch_line(c, t, nt, &p->require_authority);
    if (tok_is(t[0], "nested-depth"))
        return nested_depth_line(c, t, nt);
    if (tok_is(t[0], "profile"))
        return fail_at(c, t[0], "a profile line must be the first directive, not");
    bool known = tok_is(t[0], "deny") || tok_is(t[0], "flag") || tok_is(t[0], "allow") ||
                 tok_is(t[0], "allow-scheme") || tok_is(t[0], "allow-port") ||
                 tok_is(t[0], "deny-host") || tok_is(t[0], "allow-host") ||
                 tok_is(t[0], "dangerous-scheme") || tok_is(t[0], "deny-ip") ||
                 tok_is(t[0], "allow-ip");
    if (!known)
        return fail_at(c, t[0], "unknown directive");
    if (nt < 2)
        return fail_at(c, t[0], "missing argument for");
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
    if (tok_is(t[0], "deny-ip"))
        return ip_list(c, t, nt, p->deny_ip, &p->n_deny_ip, "too many deny-ip entries");
    if (tok_is(t[0], "allow-ip"))
        return ip_list(c, t, nt, p->allow_ip, &p->n_allow_ip, "too many allow-ip entries");
    if (tok_is(t[0], "deny-host"))
        return host_list(c, t, nt, p->deny_host, &p->n_deny_host, "too many deny-host entries");
    return host_list(c, t, nt, p->allow_host, &p->n_allow_host, "too many allow-host entries");
}

/* Where a parse of one text stands. */
typedef struct {
    const char *text;
    size_t len;
    size_t pos;      /* start of the next line */
    size_t lineno;   /* of the next line */
    size_t line_start;
} cursor;

/*
 * The words of the next line into t[0..*nt). false with c->msg set on a
 * control byte, non-ASCII byte or too many words. At the end of the text
 * returns true with *nt == 0 and cur->pos > len.
 */
static bool next_line(pctx *c, cursor *cur, token *t, size_t *nt)
{
    const char *text = cur->text;
    size_t len = cur->len, i = cur->pos;
    size_t e = i;
    while (e < len && text[e] != '\n')
        e++;
    size_t le = e;
    if (le > i && text[le - 1] == '\r')
        le--;
    cur->line_start = i;
    *nt = 0;
    for (size_t k = i; k < le; k++) {
        unsigned char ch = (unsigned char)text[k];
        if (ch == '#')
            break; /* "#" to the end of the line */
        if (ch == ' ' || ch == '\t')
            continue;
        /* a word runs to the next blank, "#" or end of line */
        size_t s = k;
        while (k < le && text[k] != ' ' && text[k] != '\t' && text[k] != '#') {
            ch = (unsigned char)text[k];
            if (cc_is(ch, CC_CTL) || cc_is(ch, CC_HIGH))
                return fail_at(c, (token){text + k, 1},
                               cc_is(ch, CC_HIGH)
                                   ? "non-ASCII byte (write a host as its xn-- form)"
                                   : "control character");
            k++;
        }
        if (*nt == MAX_TOKENS)
            return fail_at(c, (token){text + s, k - s}, "too many words on one line, at");
        t[*nt].s = text + s;
        t[*nt].n = k - s;
        (*nt)++;
        k--; /* the for loop advances past the word */
    }
    cur->pos = e + 1; /* past the LF; > len at the end */
    return true;
}

/* Parse lines from cur on; a `profile` line is an error here. */
static bool parse_lines(pctx *c, cursor *cur)
{
    token t[MAX_TOKENS];
    while (cur->pos <= cur->len) {
        if (cur->pos == cur->len && cur->pos > 0)
            break; /* the text ended with a LF */
        size_t nt;
        if (!next_line(c, cur, t, &nt))
            return false;
        if (nt > 0 && !directive(c, t, nt))
            return false;
        cur->lineno++;
    }
    return true;
}

static void set_error(urisan_policy_error *err, const pctx *c, const cursor *cur)
{
    err->line = cur->lineno;
    err->msg = c->msg;
    if (c->word.n > 0 && c->word.s >= cur->text && c->word.s < cur->text + cur->len) {
        err->word_off = (size_t)(c->word.s - cur->text);
        err->word_len = c->word.n;
        err->column = err->word_off - cur->line_start + 1;
    }
}

/* Apply a built-in profile's text on a freshly initialised policy. */
static bool apply_profile(pctx *c, token name)
{
    const char *text = urisan_profile_text(name.s, name.n);
    if (text == NULL)
        return fail_at(c, name, "unknown profile (default, proxy, ssrf, mail)");
    urisan_policy_init(c->p);
    cursor pc = {text, strlen(text), 0, 1, 0};
    token keep = c->word;
    if (!parse_lines(c, &pc)) {
        /* a built-in profile that does not parse is our bug; fail closed */
        c->word = keep;
        return fail_at(c, name, "internal error: built-in profile does not parse:");
    }
    return true;
}

URISAN_API urisan_status urisan_policy_parse_ex(urisan_policy *p, const char *text, size_t len,
                                                urisan_policy_error *err)
{
    urisan_policy_error dummy;
    if (err == NULL)
        err = &dummy;
    memset(err, 0, sizeof *err);
    if (p == NULL || (text == NULL && len != 0)) {
        err->msg = "invalid argument";
        return URISAN_E_BAD_ARGUMENT;
    }
    if (p->magic != POL_MAGIC) {
        err->msg = "policy not initialised (call urisan_policy_init first)";
        return URISAN_E_BAD_ARGUMENT;
    }
    if (text == NULL)
        text = "";

    pctx c = {p, NULL, {NULL, 0}};
    cursor cur = {text, len, 0, 1, 0};
    /* "profile NAME" may only be the first directive: find it, apply it,
       then parse the rest on top (later lines override it). */
    token t[MAX_TOKENS];
    while (cur.pos < len) {
        cursor at = cur;
        size_t nt;
        if (!next_line(&c, &cur, t, &nt))
            goto error;
        if (nt == 0) {
            cur.lineno++;
            continue;
        }
        if (tok_is(t[0], "profile")) {
            if (nt != 2) {
                fail_at(&c, nt < 2 ? t[0] : t[2],
                        nt < 2 ? "missing argument: profile NAME, for"
                               : "too many arguments: profile NAME, at");
                goto error;
            }
            if (!apply_profile(&c, t[1]))
                goto error;
            cur.lineno++;
        } else {
            cur = at; /* parse this line as any other */
        }
        break;
    }
    if (!parse_lines(&c, &cur))
        goto error;
    return URISAN_OK;

error:
    set_error(err, &c, &cur);
    return URISAN_E_BAD_POLICY;
}

URISAN_API urisan_status urisan_policy_parse(urisan_policy *p, const char *text, size_t len,
                                             size_t *line, const char **msg)
{
    urisan_policy_error e;
    urisan_status st = urisan_policy_parse_ex(p, text, len, &e);
    if (line != NULL)
        *line = e.line;
    if (msg != NULL)
        *msg = e.msg;
    return st;
}

URISAN_API urisan_status urisan_policy_profile(urisan_policy *p, const char *name, size_t len)
{
    if (p == NULL || (name == NULL && len != 0))
        return URISAN_E_BAD_ARGUMENT;
    urisan_policy_init(p);
    pctx c = {p, NULL, {NULL, 0}};
    if (!apply_profile(&c, (token){name != NULL ? name : "", len})) {
        urisan_policy_init(p);
        return URISAN_E_BAD_POLICY;
    }
    return URISAN_OK;
}
