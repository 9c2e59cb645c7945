/*
 * render.c - library types as the command writes them (SPEC section 7):
 * JSON values and text, appended to a buffer (usually the output line,
 * see out.h). No printf, no per-call allocation; names go through the
 * JSON escape like any string, so a name is never trusted to be plain.
 */
#include "cli.h"

#include <string.h>

void cli_jv_cstr(cli_buf *b, const char *s)
{
    if (s == NULL)
        cli_buf_lit(b, "null");
    else
        json_quote(b, s, strlen(s));
}

void cli_jv_bool(cli_buf *b, bool v)
{
    if (v)
        cli_buf_lit(b, "true");
    else
        cli_buf_lit(b, "false");
}

void cli_jv_error(cli_buf *b, const urisan_error *e)
{
    if (e == NULL || e->code == URISAN_OK) {
        cli_buf_lit(b, "null");
        return;
    }
    cli_buf_lit(b, "{\"code\":");
    cli_jv_cstr(b, urisan_status_name(e->code));
    cli_buf_lit(b, ",\"offset\":");
    cli_buf_addu(b, e->offset);
    cli_buf_lit(b, ",\"message\":");
    cli_jv_cstr(b, urisan_status_message(e->code));
    cli_buf_addc(b, '}');
}

/* Names of the set bits of f, in bit order, separated by sep; returns how
   many were written. JSON (quoted) or text (as is). */
static size_t flag_names(cli_buf *b, urisan_flags f, bool json)
{
    size_t n = 0;
    while (f != 0) {
        unsigned bit = (unsigned)__builtin_ctzll(f);
        f &= f - 1;
        const char *name = urisan_flag_name((urisan_flag)bit);
        if (name == NULL)
            continue;
        if (n++ > 0)
            cli_buf_addc(b, ',');
        if (json)
            json_quote(b, name, strlen(name));
        else
            cli_buf_adds(b, name);
    }
    return n;
}

void cli_jv_flags(cli_buf *b, urisan_flags f)
{
    cli_buf_addc(b, '[');
    flag_names(b, f, true);
    cli_buf_addc(b, ']');
}

void cli_text_flags(cli_buf *b, urisan_flags f)
{
    if (flag_names(b, f, false) == 0)
        cli_buf_addc(b, '-');
}

void cli_jv_span(cli_buf *b, const char *in, urisan_span s)
{
    if (!urisan_span_present(s))
        cli_buf_lit(b, "null");
    else
        json_quote(b, in + s.off, s.len);
}

void cli_jv_components(cli_buf *b, const char *in, const urisan_uri *u)
{
    cli_buf_lit(b, "{\"scheme\":");
    cli_jv_span(b, in, u->scheme);
    cli_buf_lit(b, ",\"userinfo\":");
    cli_jv_span(b, in, u->userinfo);
    cli_buf_lit(b, ",\"host\":");
    cli_jv_span(b, in, u->host);
    cli_buf_lit(b, ",\"host_type\":");
    cli_jv_cstr(b, urisan_host_type_name(u->host_type));
    cli_buf_lit(b, ",\"port\":");
    cli_jv_span(b, in, u->port);
    cli_buf_lit(b, ",\"path\":");
    cli_jv_span(b, in, u->path);
    cli_buf_lit(b, ",\"query\":");
    cli_jv_span(b, in, u->query);
    cli_buf_lit(b, ",\"fragment\":");
    cli_jv_span(b, in, u->fragment);
    cli_buf_addc(b, '}');
}

void cli_text_error(cli_buf *b, const urisan_error *e, const char *which)
{
    cli_buf_lit(b, "error: ");
    cli_buf_adds(b, urisan_status_name(e->code));
    cli_buf_addc(b, ' ');
    cli_buf_addu(b, e->offset);
    cli_buf_addc(b, ' ');
    cli_buf_adds(b, urisan_status_message(e->code));
    if (which != NULL) {
        cli_buf_lit(b, " (in the ");
        cli_buf_adds(b, which);
        cli_buf_addc(b, ')');
    }
}

#define CLI_REASONS_MAX (2 * 64 + URISAN_REASON_COUNT_)

/* The one place that orders a decision's reasons (cli_jv_reasons,
   cli_text_reasons): the flags that denied (bit order), the rules that
   denied, the flags only reported. Returns how many names were stored. */
static size_t reason_names(const urisan_decision *d, const char *names[CLI_REASONS_MAX])
{
    size_t n = 0;
    if (d->verdict == URISAN_ALLOW)
        return 0;
    for (int pass = 0; pass < 3; pass++) {
        uint64_t set = pass == 0 ? (uint64_t)d->deny_flags
                     : pass == 1 ? (uint64_t)d->rules : (uint64_t)d->flag_flags;
        if (pass == 1 && URISAN_REASON_COUNT_ < 64)
            set &= ((uint64_t)1 << URISAN_REASON_COUNT_) - 1;
        while (set != 0) {
            unsigned bit = (unsigned)__builtin_ctzll(set);
            set &= set - 1;
            const char *name = pass == 1
                ? urisan_rule_reason_name((urisan_rule_reason)bit)
                : urisan_flag_name((urisan_flag)bit);
            if (name != NULL)
                names[n++] = name;
        }
    }
    return n;
}

void cli_jv_reasons(cli_buf *b, const urisan_decision *d)
{
    const char *names[CLI_REASONS_MAX];
    size_t n = reason_names(d, names);
    cli_buf_addc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            cli_buf_addc(b, ',');
        json_quote(b, names[i], strlen(names[i]));
    }
    cli_buf_addc(b, ']');
}

void cli_jv_deny_reasons(cli_buf *b, const urisan_decision *d)
{
    cli_buf_addc(b, '[');
    if (d->verdict == URISAN_DENY) {
        size_t n = flag_names(b, d->deny_flags, true);
        unsigned rules = d->rules;
        if (URISAN_REASON_COUNT_ < 32)
            rules &= (1u << URISAN_REASON_COUNT_) - 1;
        while (rules != 0) {
            unsigned r = (unsigned)__builtin_ctz(rules);
            rules &= rules - 1;
            if (n++ > 0)
                cli_buf_addc(b, ',');
            cli_jv_cstr(b, urisan_rule_reason_name((urisan_rule_reason)r));
        }
    }
    cli_buf_addc(b, ']');
}

void cli_jv_flag_reasons(cli_buf *b, const urisan_decision *d)
{
    cli_jv_flags(b, d->verdict == URISAN_ALLOW ? 0 : d->flag_flags);
}

void cli_text_reasons(cli_buf *b, const urisan_decision *d)
{
    /* "denied:...;flagged:..." (urisan_decision_format), "-" for none */
    size_t n = 0;
    urisan_decision_format(d, NULL, 0, &n);
    if (n == 0) {
        cli_buf_addc(b, '-');
        return;
    }
    if (!cli_buf_room(b, n) && !cli_buf_reserve(b, n))
        return; /* b is marked failed */
    if (urisan_decision_format(d, b->p + b->len, n, &n) == URISAN_OK)
        b->len += n;
    else
        b->failed = true;
}
