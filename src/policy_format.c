/*
 * policy_format.c - a policy written back in the policy language
 * (urisan_policy_format): `urisan policy check` prints the effective
 * policy, so an administrator sees what a file and its profile add up to.
 * Parsing the text again gives the same policy (tests/test_policy.c).
 */
#include "risk.h"

#include <string.h>

typedef struct {
    char *buf;
    size_t cap, n;
} fmt_out;

static void put(fmt_out *o, const char *s, size_t len)
{
    if (o->buf != NULL && o->n <= o->cap && len <= o->cap - o->n)
        memcpy(o->buf + o->n, s, len);
    o->n += len;
}

static void puts_(fmt_out *o, const char *s)
{
    put(o, s, strlen(s));
}

static void put_num(fmt_out *o, size_t v)
{
    char t[24];
    size_t k = sizeof t;
    do {
        t[--k] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    put(o, t + k, sizeof t - k);
}

/* "WORD PREFIXname PREFIXname ...\n" for the flags of m; nothing when m
   is empty. prefix: "" or "nested:". */
static void flag_line(fmt_out *o, const char *word, const char *prefix, urisan_flags m)
{
    if (m == 0)
        return;
    puts_(o, word);
    for (unsigned b = 0; b < 64; b++) {
        const char *name = urisan_flag_name((urisan_flag)b);
        if (((m >> b) & 1u) && name != NULL) {
            put(o, " ", 1);
            puts_(o, prefix);
            puts_(o, name);
        }
    }
    put(o, "\n", 1);
}

static void str_line(fmt_out *o, const urisan_policy *p, const char *word, const pol_str *arr,
                     size_t cnt)
{
    for (size_t i = 0; i < cnt; i++) {
        puts_(o, word);
        put(o, " ", 1);
        bool v6 = memchr(p->pool + arr[i].off, ':', arr[i].len) != NULL;
        if (v6)
            put(o, "[", 1);
        put(o, p->pool + arr[i].off, arr[i].len);
        if (v6)
            put(o, "]", 1);
        put(o, "\n", 1);
    }
}

static void ip_line(fmt_out *o, const char *word, const pol_cidr *arr, size_t cnt)
{
    for (size_t i = 0; i < cnt; i++) {
        char t[64];
        puts_(o, word);
        put(o, " ", 1);
        put(o, t, urisan_pol_cidr_text(&arr[i], t));
        put(o, "\n", 1);
    }
}

/* The text of p into o (urisan_policy_format). */
static void write_policy(fmt_out *o, const urisan_policy *p)
{
    puts_(o, "# the effective policy (urisan policy check)\n");
    if (p->require_absolute)
        puts_(o, "require-absolute\n");
    if (p->require_authority)
        puts_(o, "require-authority\n");
    flag_line(o, "deny", "", p->deny);
    flag_line(o, "flag", "", p->flag & ~p->deny);
    flag_line(o, "allow", "", URISAN_ALL_FLAGS & ~(p->deny | p->flag));
    flag_line(o, "deny", "nested:", p->nested_deny);
    flag_line(o, "flag", "nested:", p->nested_flag & ~p->nested_deny);
    if (p->nested_depth != 1) {
        puts_(o, "nested-depth ");
        put_num(o, p->nested_depth);
        put(o, "\n", 1);
    }
    str_line(o, p, "allow-scheme", p->scheme, p->n_scheme);
    str_line(o, p, "dangerous-scheme", p->dangerous, p->n_dangerous);
    for (size_t i = 0; i < p->n_port; i++) {
        puts_(o, "allow-port ");
        put_num(o, p->port[i].lo);
        if (p->port[i].hi != p->port[i].lo) {
            put(o, "-", 1);
            put_num(o, p->port[i].hi);
        }
        put(o, "\n", 1);
    }
    for (size_t i = 0; i < p->n_defport; i++) {
        puts_(o, "default-port ");
        put(o, p->pool + p->defport[i].name.off, p->defport[i].name.len);
        put(o, " ", 1);
        put_num(o, p->defport[i].port);
        put(o, "\n", 1);
    }
    str_line(o, p, "deny-host", p->deny_host, p->n_deny_host);
    str_line(o, p, "allow-host", p->allow_host, p->n_allow_host);
    str_line(o, p, "protect-host", p->protect, p->n_protect);
    str_line(o, p, "user-content-host", p->user_content, p->n_user_content);
    str_line(o, p, "shortener-host", p->shortener, p->n_shortener);
    for (size_t i = 0; i < p->n_combos; i++)
        flag_line(o, "deny-combined", "", p->combo[i]);
    ip_line(o, "deny-ip", p->deny_ip, p->n_deny_ip);
    ip_line(o, "allow-ip", p->allow_ip, p->n_allow_ip);
#define POL_LIMIT_ENTRY_(n, field) {n, offsetof(urisan_limits, field)},
    static const struct {
        const char *name;
        size_t off;
    } lim[] = {POL_LIMITS(POL_LIMIT_ENTRY_)};
#undef POL_LIMIT_ENTRY_
    for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++) {
        size_t v;
        memcpy(&v, (const char *)&p->limits + lim[i].off, sizeof v);
        puts_(o, "limit ");
        puts_(o, lim[i].name);
        put(o, " ", 1);
        put_num(o, v);
        put(o, "\n", 1);
    }
}

URISAN_API urisan_status urisan_policy_format(const urisan_policy *p, char *buf, size_t cap,
                                              size_t *needed)
{
    if (needed == NULL || p == NULL || p->magic != POL_MAGIC) {
        if (needed != NULL)
            *needed = 0;
        return URISAN_E_BAD_ARGUMENT;
    }
    /* measure first: a text that does not fit writes nothing */
    fmt_out o = {NULL, 0, 0};
    write_policy(&o, p);
    if (o.n <= cap && buf != NULL) {
        fmt_out w = {buf, cap, 0};
        write_policy(&w, p);
    }
    *needed = o.n;
    if (o.n > cap || buf == NULL)
        return URISAN_E_NOSPACE;
    urisan_nul_after(buf, cap, o.n);
    return URISAN_OK;
}

URISAN_API const char *urisan_policy_protected(const urisan_policy *p, size_t i, size_t *len)
{
    if (p == NULL || p->magic != POL_MAGIC || i >= p->n_protect) {
        *len = 0;
        return NULL;
    }
    *len = p->protect[i].len;
    return p->pool + p->protect[i].off;
}

URISAN_API uint64_t urisan_policy_protected_id(const urisan_policy *p)
{
    return p != NULL && p->magic == POL_MAGIC ? p->protect_id : 0;
}
