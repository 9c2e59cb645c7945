/*
 * policy_parse.c - the policy language (doc/policy.md): fail closed. Every
 * word of every line is validated; a mistake stops the parse with its
 * line, its column and the word (urisan_policy_error), and a rule that
 * could never match is a mistake, not a silent no-op. Parsing never
 * allocates and never recurses: a `profile` line is applied by the outer
 * loop, and profile texts (profiles.c) cannot name a profile themselves.
 */
#include "policy_lint.h"
#include "risk.h"

#include <string.h>

typedef struct {
    const char *s;
    size_t n;
} token;

#define MAX_TOKENS 256 /* per line; "too many arguments" beyond */

/* Where a parse of one text stands. */
typedef struct {
    const char *text;
    size_t len;
    size_t pos;      /* start of the next line */
    size_t lineno;   /* of the next line */
    size_t line_start;
} cursor;

typedef struct {
    urisan_policy *p;
    const char *msg;
    token word;        /* the offending word; n == 0: none */
    const char *hint;  /* a known name close to the word (lint) */
    const cursor *cur; /* the text being parsed */
    bool profile;      /* parsing a built-in profile's text */
    uint32_t line;     /* the line recorded as a rule's origin; 0: a profile */
    /* a lint (urisan_pol_lint): every mistake and warning to fn */
    pol_diag_fn fn;
    void *fctx;
    size_t errors;
    urisan_flags named, nested_named; /* flags the text named (not `all`) */
    size_t base_scheme, base_dangerous, base_port, base_deny_host, base_allow_host;
    urisan_flags refuse; /* flags a deny or flag line may not name
                            (urisan_policy_parse_refuse); 0: none */
} pctx;

static bool fail_at(pctx *c, token w, const char *msg)
{
    c->msg = msg;
    c->word = w;
    return false;
}

/* A diagnostic at word w of the current line, to the lint's fn. */
static void emit(const pctx *c, pol_diag *d, token w)
{
    const cursor *cur = c->cur;
    d->line = cur->lineno;
    if (w.n > 0 && w.s >= cur->text && w.s < cur->text + cur->len) {
        d->word_off = (size_t)(w.s - cur->text);
        d->word_len = w.n;
        d->column = d->word_off - cur->line_start + 1;
    }
    c->fn(c->fctx, d);
}

/* After a mistake: a lint reports it and goes on (true); a parse stops. */
static bool lint_goes_on(pctx *c)
{
    if (c->fn == NULL)
        return false;
    pol_diag d = {0};
    d.msg = c->msg;
    d.hint = c->hint;
    c->errors++;
    emit(c, &d, c->word);
    c->hint = NULL;
    return true;
}

/* A warning of a lint about word w of the text (a profile's text is
   parsed without fn). other/other_msg/other_line: see pol_diag. */
static void warn(pctx *c, token w, const char *msg, const char *other_msg, pol_str other,
                 size_t other_line)
{
    if (c->fn == NULL)
        return;
    pol_diag d = {0};
    d.warning = true;
    d.msg = msg;
    d.other_msg = other_msg;
    d.other = other_msg != NULL ? c->p->pool + other.off : NULL;
    d.other_len = other_msg != NULL ? other.len : 0;
    d.other_line = other_line;
    emit(c, &d, w);
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

/* Flags no URL nested in a parameter carries: a link's text and a
   message's limits are the mail layer's, of a link found in a message
   (the host layer's flags it does carry: urisan_decide_more). A nested:
   rule on one of them never fires. */
#define POL_FLAGS_NEVER_NESTED                                                  \
    (URISAN_F(LINK_TEXT_MISMATCH) | URISAN_F(MAIL_LIMIT) | URISAN_F(MIME_CONFLICT))

static const pol_str no_other = {0, 0};

/* A lint's look at `deny|flag|allow F` before it applies: the same rule
   twice, or a rule that undoes an earlier one of the text. */
static void flag_warnings(pctx *c, token w, urisan_flags m, bool nest, int how)
{
    urisan_policy *p = c->p;
    urisan_flags *named = nest ? &c->nested_named : &c->named;
    if (c->fn == NULL)
        return;
    if (nest && (m & POL_FLAGS_NEVER_NESTED) != 0)
        warn(c, w, "no nested URL carries this flag (it is a mail link's):", NULL, no_other, 0);
    if ((*named & m) != 0) {
        urisan_flags deny = nest ? p->nested_deny : p->deny;
        urisan_flags flag = nest ? p->nested_flag : p->flag;
        int was = (deny & m) ? 'd' : (flag & m) ? 'f' : 'a';
        size_t at = nest ? 0 : p->origin.flag[__builtin_ctzll(m)];
        warn(c, w, was == how ? "duplicate rule for" : "undoes an earlier rule for", NULL,
             no_other, at);
    }
    *named |= m;
}

/* Record where the rules for the flags m were set. */
static void flag_origin(pctx *c, urisan_flags m, bool nest, int how)
{
    pol_origin *o = &c->p->origin;
    if (nest) {
        if (how == 'd')
            o->nested_deny = c->line;
        else if (how == 'f')
            o->nested_flag = c->line;
        return;
    }
    for (unsigned b = 0; b < 64; b++)
        if (m >> b & 1)
            o->flag[b] = c->line;
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
            if (b < 0) {
                c->hint = c->fn != NULL ? urisan_pol_suggest(w.s, w.n, false) : NULL;
                fail_at(c, t[i], nest ? "unknown flag after 'nested:'" : "unknown flag");
                if (!lint_goes_on(c))
                    return false;
                continue;
            }
            m = (urisan_flags)1 << b;
            /* a rule this build can never apply is refused, not loaded
               as a silent no-op (built-in profiles are ours: exempt) */
            if ((m & c->refuse) && how != 'a' && !c->profile) {
                fail_at(c, t[i], "flag never set by this build (it has no host layer: "
                                 "ICU, libidn2, libpsl), so a rule on it cannot hold:");
                if (!lint_goes_on(c))
                    return false;
                continue;
            }
            flag_warnings(c, t[i], m, nest, how);
        }
        flag_origin(c, m, nest, how);
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
                        size_t cap, size_t base, const char *full)
{
    for (size_t i = 1; i < nt; i++) {
        if (!scheme_token(c, t[i])) {
            if (!lint_goes_on(c))
                return false;
            continue;
        }
        size_t k = 0;
        while (k < *cnt && !pool_ieq(c->p, arr[k], t[i].s, t[i].n))
            k++;
        if (k < *cnt) {
            if (k >= base)
                warn(c, t[i], "duplicate entry", NULL, no_other, 0);
            continue;
        }
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
            fail_at(c, t[i], "invalid port (want N or N-M, 0-65535)");
        else if (lo > hi)
            fail_at(c, t[i], "invalid port range: start above end");
        else
            c->msg = NULL;
        if (c->msg != NULL) {
            if (!lint_goes_on(c))
                return false;
            c->msg = NULL;
            continue;
        }
        for (size_t k = c->base_port; k < p->n_port && c->fn != NULL; k++)
            if (p->port[k].lo <= lo && hi <= p->port[k].hi) {
                warn(c, t[i], "port already allowed by an earlier entry", NULL, no_other, 0);
                break;
            }
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

/* A lint's look at host entry e, just added to one list: the same or a
   wider entry earlier in that list, an entry of the other list that
   matches some of the same hosts. */
static void host_warnings(pctx *c, token w, bool deny, size_t idx)
{
    const urisan_policy *p = c->p;
    if (c->fn == NULL)
        return;
    const pol_str *arr = deny ? p->deny_host : p->allow_host;
    const pol_str *oth = deny ? p->allow_host : p->deny_host;
    size_t base = deny ? c->base_deny_host : c->base_allow_host;
    size_t n_oth = deny ? p->n_allow_host : p->n_deny_host;
    const char *e = p->pool + arr[idx].off;
    size_t en = arr[idx].len;
    for (size_t k = base; k < idx; k++) {
        if (urisan_pol_host_covers(p->pool + arr[k].off, arr[k].len, e, en)) {
            bool same = arr[k].len == en && memcmp(p->pool + arr[k].off, e, en) == 0;
            warn(c, w, same ? "duplicate entry" : "entry already covered by an earlier one",
                 same ? NULL : "by", arr[k], 0);
            break;
        }
    }
    for (size_t k = 0; k < n_oth; k++) {
        const char *o = p->pool + oth[k].off;
        if (urisan_pol_host_covers(o, oth[k].len, e, en) ||
            urisan_pol_host_covers(e, en, o, oth[k].len)) {
            warn(c, w,
                 deny ? "deny-host entry overlaps allow-host (the hosts in both are denied)"
                      : "allow-host entry overlaps deny-host (the hosts in both are denied)",
                 deny ? "allow-host holds" : "deny-host holds", oth[k], 0);
            break;
        }
    }
}

/*
 * One host entry: a name or address as it appears in a URI; ".name" for
 * the name and every name below it (Squid dstdomain); "*.name" for the
 * names below it only (nginx server_name, HAProxy, Envoy). "[v6]" is
 * stored without brackets and one trailing "." is dropped (DNS root), so
 * "Example.COM." == "example.com". Stored lower-case: ".x", "*.x", "x".
 */
static bool host_entry(pctx *c, token w, pol_str *arr, size_t *cnt, const char *full)
{
    const char *s = w.s;
    size_t n = w.n;
    uint8_t ip[16];
    size_t errpos = 0;
    bool bracket = n >= 2 && s[0] == '[' && s[n - 1] == ']';
    if (bracket || memchr(s, ':', n) != NULL) {
        const char *a = bracket ? s + 1 : s;
        size_t an = bracket ? n - 2 : n;
        if (!urisan_parse_ipv6(a, an, ip, &errpos))
            return fail_at(c, w, memchr(s, '.', n) != NULL && !bracket
                                     ? "a host rule holds no port (use allow-port)"
                                     : "invalid IPv6 address in host rule");
        if (*cnt == POL_MAX_HOSTS)
            return fail_at(c, w, full);
        return pool_add(c, w, a, an, &arr[*cnt]);
    }
    if (memchr(s, '/', n) != NULL && cc_is((unsigned char)s[0], CC_DIGIT))
        return fail_at(c, w, "an address range is no host (use deny-ip / allow-ip)");
    if (n > 1 && s[n - 1] == '.')
        n--;
    size_t skip = 0;
    if (n >= 2 && s[0] == '*' && s[1] == '.')
        skip = 2;
    else if (n >= 1 && s[0] == '.')
        skip = 1;
    const char *why = name_error(s + skip, n - skip);
    if (why != NULL)
        return fail_at(c, w, why);
    if (n - skip > POL_MAX_HOSTNAME)
        return fail_at(c, w, "host too long");
    if (*cnt == POL_MAX_HOSTS)
        return fail_at(c, w, full);
    return pool_add(c, w, s, n, &arr[*cnt]);
}

/* Entry index of a host list into its hash slots (the entry's name less
   "." or "*.", pol_mark_hash; policy.c's hashed_in looks it up). */
static void slot_add(uint16_t *slots, const char *e, size_t en, size_t index)
{
    size_t skip = e[0] == '.' ? 1 : e[0] == '*' ? 2 : 0;
    uint32_t h = pol_mark_hash(e + skip, en - skip) & (POL_HOST_SLOTS - 1);
    while (slots[h] != 0)   /* at most half of the slots are used */
        h = (h + 1) & (POL_HOST_SLOTS - 1);
    slots[h] = (uint16_t)(index + 1);
}

static bool host_list(pctx *c, const token *t, size_t nt, bool deny)
{
    urisan_policy *p = c->p;
    pol_str *arr = deny ? p->deny_host : p->allow_host;
    size_t *cnt = deny ? &p->n_deny_host : &p->n_allow_host;
    const char *full = deny ? "too many deny-host entries" : "too many allow-host entries";
    for (size_t i = 1; i < nt; i++) {
        if (!host_entry(c, t[i], arr, cnt, full)) {
            if (*cnt == POL_MAX_HOSTS || c->msg == full || !lint_goes_on(c))
                return false; /* a full list ends the line */
            continue;
        }
        if (deny)
            p->origin.deny_host[*cnt] = c->line;
        slot_add(deny ? p->deny_slot : p->allow_slot, p->pool + arr[*cnt].off, arr[*cnt].len,
                 *cnt);
        host_warnings(c, t[i], deny, (*cnt)++);
    }
    return true;
}

/* user-content-host / shortener-host: the hosts that get the flag
   user_content / shortener (host_entry's forms; a duplicate warned). */
static bool mark_list(pctx *c, const token *t, size_t nt, pol_str *arr, size_t *cnt,
                      const char *full, unsigned list)
{
    urisan_policy *p = c->p;
    for (size_t i = 1; i < nt; i++) {
        uint8_t a4[4];
        if (memchr(t[i].s, ':', t[i].n) != NULL || urisan_ipv4_deobfuscate(t[i].s, t[i].n, a4)) {
            fail_at(c, t[i], "a mark list takes host names, not an address:");
            if (!lint_goes_on(c))
                return false;
            continue;
        }
        if (!host_entry(c, t[i], arr, cnt, full)) {
            if (*cnt == POL_MAX_HOSTS || c->msg == full || !lint_goes_on(c))
                return false;
            continue;
        }
        const char *e = p->pool + arr[*cnt].off;
        size_t en = arr[*cnt].len;
        for (size_t k = 0; c->fn != NULL && k < *cnt; k++)
            if (urisan_pol_host_covers(p->pool + arr[k].off, arr[k].len, e, en)) {
                warn(c, t[i], "entry already covered by an earlier one", "by", arr[k], 0);
                break;
            }
        slot_add(list == 0 ? p->user_content_slot : p->shortener_slot, e, en, *cnt);
        (*cnt)++;
    }
    return true;
}

/* deny-combined FLAG FLAG...: a URI that has every one of the flags is
   denied for them. Two flags at least, no nested: form, no "all". */
static bool combo_line(pctx *c, const token *t, size_t nt)
{
    urisan_policy *p = c->p;
    if (nt < 3)
        return fail_at(c, t[0], "deny-combined takes two flags or more:");
    urisan_flags m = 0;
    for (size_t i = 1; i < nt; i++) {
        int b = urisan_flag_from_name(t[i].s, t[i].n);
        if (b < 0) {
            c->hint = c->fn != NULL ? urisan_pol_suggest(t[i].s, t[i].n, false) : NULL;
            return fail_at(c, t[i], "unknown flag");
        }
        urisan_flags f = (urisan_flags)1 << b;
        if ((f & c->refuse) && !c->profile)
            return fail_at(c, t[i], "flag never set by this build (it has no host layer: "
                                    "ICU, libidn2, libpsl), so a rule on it cannot hold:");
        if (m & f)
            return fail_at(c, t[i], "flag named twice in one deny-combined line:");
        m |= f;
    }
    for (size_t k = 0; k < p->n_combos; k++)
        if (p->combo[k] == m) {
            warn(c, t[0], "duplicate deny-combined line", NULL, no_other, 0);
            return true;
        }
    if (p->n_combos == POL_MAX_COMBOS)
        return fail_at(c, t[0], "too many deny-combined lines");
    p->origin.combo[p->n_combos] = c->line;
    p->combo[p->n_combos++] = m;
    return true;
}

/* deny-ip / allow-ip: address ranges (policy_ip.c parses each word);
   lines: where each entry's line is kept (deny-ip), or NULL */
static bool ip_list(pctx *c, const token *t, size_t nt, pol_cidr *arr, size_t *cnt,
                    uint32_t *lines, const char *full)
{
    for (size_t i = 1; i < nt; i++) {
        if (*cnt == POL_MAX_IPS)
            return fail_at(c, t[i], full);
        const char *why = urisan_pol_cidr_parse(t[i].s, t[i].n, &arr[*cnt]);
        if (why != NULL) {
            fail_at(c, t[i], why);
            if (!lint_goes_on(c))
                return false;
            continue;
        }
        if (lines != NULL)
            lines[*cnt] = c->line;
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
    /* values above the hard ceiling are capped to it (doc/policy.md, limit) */
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

/* The rule reasons a list directive's entries give (pol_origin.rule):
   the first line of the text that writes the list is their origin. */
static void rule_origin(pctx *c, int r1, int r2)
{
    uint32_t *rule = c->p->origin.rule;
    if (c->line == 0)
        return;
    if (rule[r1] == 0)
        rule[r1] = c->line;
    if (r2 >= 0 && rule[r2] == 0)
        rule[r2] = c->line;
}

/* FNV-1a over a protected name and a separator: the policy's protect_id
   (0 only when no name is listed). */
static uint64_t protect_hash(uint64_t h, const char *s, size_t n)
{
    if (h == 0)
        h = 14695981039346656037u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    h = (h ^ '\n') * 1099511628211u;
    return h != 0 ? h : 1;
}

/*
 * One protect-host name: a DNS name of two labels or more (a registrable
 * domain such as example.com, or a name under one), A-labels for an IDN,
 * one trailing "." dropped; not an address, not ".x" or "*.x" (every name
 * under a protected name is that organisation's already).
 */
static const char *protect_error(const char *s, size_t n)
{
    if (n == 0)
        return "empty host";
    if (s[0] == '[' || memchr(s, ':', n) != NULL || (n >= 2 && s[0] == '*' && s[1] == '.') ||
        s[0] == '.')
        return s[0] == '[' || memchr(s, ':', n) != NULL
                   ? "protect-host takes a name such as example.com, not an address:"
                   : "protect-host takes a name such as example.com (the names under it "
                     "are its own), not a pattern:";
    const char *why = name_error(s, n);
    if (why != NULL)
        return why;
    size_t last = n;
    while (last > 0 && s[last - 1] != '.')
        last--;
    if (last == 0)
        return "protect-host takes a name with a public suffix such as example.com, not";
    bool digits = true;
    for (size_t q = last; q < n; q++)
        digits = digits && cc_is((unsigned char)s[q], CC_DIGIT);
    if (digits)
        return "protect-host takes a name such as example.com, not an address:";
    if (n > POL_MAX_HOSTNAME)
        return "host too long";
    return NULL;
}

/* protect-host NAME...: the organisation's own names, which the host
   layer compares every host with (homograph, lookalike). */
static bool protect_list(pctx *c, const token *t, size_t nt)
{
    urisan_policy *p = c->p;
    if (c->refuse != 0 && !c->profile)
        return fail_at(c, t[0], "this build has no host layer (ICU, libidn2, libpsl), so it "
                                "compares no host with a protected name:");
    for (size_t i = 1; i < nt; i++) {
        size_t n = t[i].n > 1 && t[i].s[t[i].n - 1] == '.' ? t[i].n - 1 : t[i].n;
        const char *why = protect_error(t[i].s, n);
        if (why == NULL && p->n_protect == POL_MAX_PROTECT)
            why = "too many protect-host entries";
        if (why != NULL) {
            fail_at(c, t[i], why);
            if (p->n_protect == POL_MAX_PROTECT || !lint_goes_on(c))
                return false;
            continue;
        }
        if (!pool_add(c, t[i], t[i].s, n, &p->protect[p->n_protect]))
            return false;
        pol_str e = p->protect[p->n_protect];
        for (size_t k = 0; c->fn != NULL && k < p->n_protect; k++)
            if (pool_ieq(p, p->protect[k], p->pool + e.off, e.len)) {
                warn(c, t[i], "duplicate entry", NULL, no_other, 0);
                break;
            }
        p->protect_id = protect_hash(p->protect_id, p->pool + e.off, e.len);
        p->n_protect++;
    }
    return true;
}

static bool list_directive(pctx *c, const token *t, size_t nt)
{
    urisan_policy *p = c->p;
    if (tok_is(t[0], "allow-scheme")) {
        rule_origin(c, URISAN_REASON_SCHEME_NOT_ALLOWED, -1);
        return scheme_list(c, t, nt, p->scheme, &p->n_scheme, POL_MAX_SCHEMES, c->base_scheme,
                           "too many allow-scheme entries");
    }
    if (tok_is(t[0], "dangerous-scheme"))
        return scheme_list(c, t, nt, p->dangerous, &p->n_dangerous, POL_MAX_DANGEROUS,
                           c->base_dangerous, "too many dangerous-scheme entries");
    if (tok_is(t[0], "allow-port")) {
        rule_origin(c, URISAN_REASON_PORT_NOT_ALLOWED, -1);
        return port_list(c, t, nt);
    }
    if (tok_is(t[0], "deny-ip")) {
        rule_origin(c, URISAN_REASON_IP_DENIED, URISAN_REASON_NESTED_IP_DENIED);
        return ip_list(c, t, nt, p->deny_ip, &p->n_deny_ip, p->origin.deny_ip,
                       "too many deny-ip entries");
    }
    if (tok_is(t[0], "allow-ip")) {
        rule_origin(c, URISAN_REASON_IP_NOT_ALLOWED, -1);
        return ip_list(c, t, nt, p->allow_ip, &p->n_allow_ip, NULL, "too many allow-ip entries");
    }
    if (tok_is(t[0], "protect-host"))
        return protect_list(c, t, nt);
    if (tok_is(t[0], "user-content-host"))
        return mark_list(c, t, nt, p->user_content, &p->n_user_content,
                         "too many user-content-host entries", 0);
    if (tok_is(t[0], "shortener-host"))
        return mark_list(c, t, nt, p->shortener, &p->n_shortener,
                         "too many shortener-host entries", 1);
    if (tok_is(t[0], "deny-combined"))
        return combo_line(c, t, nt);
    bool deny = tok_is(t[0], "deny-host");
    if (deny)
        rule_origin(c, URISAN_REASON_HOST_DENIED, URISAN_REASON_NESTED_HOST_DENIED);
    else
        rule_origin(c, URISAN_REASON_HOST_NOT_ALLOWED, -1);
    return host_list(c, t, nt, deny);
}

static bool directive(pctx *c, const token *t, size_t nt)
{
    urisan_policy *p = c->p;
    if (tok_is(t[0], "limit"))
        return limit_line(c, t, nt);
    if (tok_is(t[0], "default-port"))
        return default_port_line(c, t, nt);
    if (tok_is(t[0], "require-absolute")) {
        rule_origin(c, URISAN_REASON_NOT_ABSOLUTE, -1);
        return switch_line(c, t, nt, &p->require_absolute);
    }
    if (tok_is(t[0], "require-authority")) {
        rule_origin(c, URISAN_REASON_NO_AUTHORITY, -1);
        return switch_line(c, t, nt, &p->require_authority);
    }
    if (tok_is(t[0], "nested-depth"))
        return nested_depth_line(c, t, nt);
    if (tok_is(t[0], "profile"))
        return fail_at(c, t[0], "a profile line must be the first directive, not");
    bool flags = tok_is(t[0], "deny") || tok_is(t[0], "flag") || tok_is(t[0], "allow");
    bool known = flags || tok_is(t[0], "allow-scheme") || tok_is(t[0], "allow-port") ||
                 tok_is(t[0], "deny-host") || tok_is(t[0], "allow-host") ||
                 tok_is(t[0], "dangerous-scheme") || tok_is(t[0], "deny-ip") ||
                 tok_is(t[0], "allow-ip") || tok_is(t[0], "protect-host") ||
                 tok_is(t[0], "user-content-host") || tok_is(t[0], "shortener-host") ||
                 tok_is(t[0], "deny-combined");
    if (!known) {
        c->hint = c->fn != NULL ? urisan_pol_suggest(t[0].s, t[0].n, true) : NULL;
        return fail_at(c, t[0], "unknown directive");
    }
    if (nt < 2)
        return fail_at(c, t[0], "missing argument for");
    if (flags)
        return flag_list(c, t, nt, tok_is(t[0], "deny") ? 'd' : tok_is(t[0], "flag") ? 'f' : 'a');
    return list_directive(c, t, nt);
}

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
    cur->pos = e + 1; /* past the LF; > len at the end (also after a mistake) */
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
    return true;
}

/* Parse lines from cur on; a `profile` line is an error here. A lint
   reports a line's mistake and goes on with the next line. */
static bool parse_lines(pctx *c, cursor *cur)
{
    token t[MAX_TOKENS];
    while (cur->pos <= cur->len) {
        if (cur->pos == cur->len && cur->pos > 0)
            break; /* the text ended with a LF */
        size_t nt;
        c->line = c->profile ? 0 : cur->lineno > UINT32_MAX ? UINT32_MAX : (uint32_t)cur->lineno;
        bool ok = next_line(c, cur, t, &nt) && (nt == 0 || directive(c, t, nt));
        if (!ok && !lint_goes_on(c))
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

/* Apply a built-in profile's text on a freshly initialised policy; its
   rules' origin is the profile (line 0), and a lint says nothing of it. */
static bool apply_profile(pctx *c, token name)
{
    const char *text = urisan_profile_text(name.s, name.n);
    if (text == NULL)
        return fail_at(c, name, "unknown profile (default, proxy, ssrf, mail)");
    urisan_policy_init(c->p);
    for (size_t i = 0; urisan_profile_name(i) != NULL; i++)
        if (tok_is(name, urisan_profile_name(i)))
            c->p->origin.profile = (unsigned)i + 1;
    cursor pc = {text, strlen(text), 0, 1, 0};
    pctx pc_ctx = {.p = c->p, .cur = &pc, .profile = true};
    if (!parse_lines(&pc_ctx, &pc)) {
        /* a built-in profile that does not parse is our bug; fail closed */
        return fail_at(c, name, "internal error: built-in profile does not parse:");
    }
    return true;
}

/* A `profile NAME` line (the first directive of a text). */
static bool profile_line(pctx *c, const token *t, size_t nt)
{
    if (nt != 2)
        return fail_at(c, nt < 2 ? t[0] : t[2],
                       nt < 2 ? "missing argument: profile NAME, for"
                              : "too many arguments: profile NAME, at");
    return apply_profile(c, t[1]);
}

/* Parse a whole text: "profile NAME" may only be the first directive:
   find it, apply it, then parse the rest on top (later lines override). */
static bool parse_text(pctx *c, cursor *cur)
{
    token t[MAX_TOKENS];
    c->cur = cur;
    while (cur->pos < cur->len) {
        cursor at = *cur;
        size_t nt;
        c->line = cur->lineno > UINT32_MAX ? UINT32_MAX : (uint32_t)cur->lineno;
        if (!next_line(c, cur, t, &nt)) {
            if (!lint_goes_on(c))
                return false;
            cur->lineno++;
            break;
        }
        if (nt == 0) {
            cur->lineno++;
            continue;
        }
        if (tok_is(t[0], "profile")) {
            if (!profile_line(c, t, nt) && !lint_goes_on(c))
                return false;
            cur->lineno++;
        } else {
            *cur = at; /* parse this line as any other */
        }
        break;
    }
    const urisan_policy *p = c->p;
    c->base_scheme = p->n_scheme;
    c->base_dangerous = p->n_dangerous;
    c->base_port = p->n_port;
    c->base_deny_host = p->n_deny_host;
    c->base_allow_host = p->n_allow_host;
    return parse_lines(c, cur) && c->errors == 0;
}

URISAN_API urisan_status urisan_policy_parse_ex(urisan_policy *p, const char *text, size_t len,
                                                urisan_policy_error *err)
{
    return urisan_policy_parse_refuse(p, text, len, 0, err);
}

URISAN_API urisan_status urisan_policy_parse_refuse(urisan_policy *p, const char *text,
                                                    size_t len, urisan_flags refuse,
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
    cursor cur = {text, len, 0, 1, 0};
    pctx c = {.p = p, .cur = &cur, .refuse = refuse};
    if (parse_text(&c, &cur))
        return URISAN_OK;
    set_error(err, &c, &cur);
    return URISAN_E_BAD_POLICY;
}

/* A lint's warnings about the whole policy: a `*.x` host entry whose
   list holds nothing that matches x itself. */
static void apex_warnings(pctx *c, cursor *cur)
{
    token t[MAX_TOKENS];
    const urisan_policy *p = c->p;
    c->cur = cur;
    while (cur->pos < cur->len) {
        size_t nt;
        bool ok = next_line(c, cur, t, &nt);
        bool deny = ok && nt > 1 && tok_is(t[0], "deny-host");
        if (ok && nt > 1 && (deny || tok_is(t[0], "allow-host"))) {
            const pol_str *arr = deny ? p->deny_host : p->allow_host;
            size_t n = deny ? p->n_deny_host : p->n_allow_host;
            for (size_t i = 1; i < nt; i++) {
                const char *x = t[i].s + 2;
                size_t xn = t[i].n - 2;
                if (t[i].n < 3 || t[i].s[0] != '*' || t[i].s[1] != '.')
                    continue;
                if (x[xn - 1] == '.')
                    xn--;
                bool covered = xn == 0 || name_error(x, xn) != NULL;
                char low[POL_MAX_HOSTNAME];
                for (size_t k = 0; k < xn && k < sizeof low; k++)
                    low[k] = (char)lower_ascii((unsigned char)x[k]);
                for (size_t k = 0; k < n && !covered && xn <= sizeof low; k++)
                    covered = urisan_pol_host_covers(p->pool + arr[k].off, arr[k].len, low, xn);
                if (!covered)
                    warn(c, t[i], "'*.NAME' leaves NAME itself out (write '.NAME' for both):",
                         NULL, no_other, 0);
            }
        }
        cur->lineno++;
    }
}

size_t urisan_pol_lint(urisan_policy *p, const char *text, size_t len, pol_diag_fn fn, void *ctx)
{
    return urisan_pol_lint_refuse(p, text, len, 0, fn, ctx);
}

size_t urisan_pol_lint_refuse(urisan_policy *p, const char *text, size_t len, urisan_flags refuse,
                              pol_diag_fn fn, void *ctx)
{
    if (text == NULL)
        len = 0;
    cursor cur = {text != NULL ? text : "", len, 0, 1, 0};
    pctx c = {.p = p, .cur = &cur, .fn = fn, .fctx = ctx, .refuse = refuse};
    if (p == NULL || p->magic != POL_MAGIC || fn == NULL) {
        c.msg = "policy not initialised (call urisan_policy_init first)";
        if (fn != NULL)
            lint_goes_on(&c);
        return 1;
    }
    parse_text(&c, &cur);
    cursor again = {cur.text, len, 0, 1, 0};
    apex_warnings(&c, &again);
    return c.errors;
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
    pctx c = {.p = p};
    if (!apply_profile(&c, (token){name != NULL ? name : "", len})) {
        urisan_policy_init(p);
        return URISAN_E_BAD_POLICY;
    }
    return URISAN_OK;
}
