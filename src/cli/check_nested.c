/* check_nested.c - check --json's list of nested URLs (check_nested.h). */
#include "check_nested.h"
#include "cli.h"

typedef struct {
    cli_buf *b;      /* NULL: count only */
    size_t n;        /* nested URLs seen */
    struct urisan_host_ctx *host;
    const urisan_policy *pol;   /* its protected names judge the hosts */
} nested_out;

static void put_one(void *ctx, const urisan_nested_url *nu)
{
    nested_out *o = ctx;
    if (o->n++ >= CHECK_NESTED_MAX || o->b == NULL)
        return;
    cli_buf *b = o->b;
    if (o->n > 1)
        cli_buf_addc(b, ',');
    cli_buf_lit(b, "{\"name\":");
    json_quote(b, nu->name, nu->name_len);
    cli_buf_lit(b, ",\"uri\":");
    json_quote(b, nu->uri, nu->uri_len);
    cli_buf_lit(b, ",\"depth\":");
    cli_buf_addu(b, nu->depth);
    cli_buf_lit(b, ",\"flags\":");
#ifdef URISAN_HAVE_HOST
    cli_jv_flags(b, urisan_nested_flags_policy(o->host, o->pol, nu));
#else
    cli_jv_flags(b, nu->report.flags);
#endif
    cli_buf_lit(b, ",\"host_ip\":");
    cli_jv_host_ip(b, &nu->report);
    cli_buf_addc(b, '}');
}

/* How many nested URLs in[0..len) has; each written to o->b when set. */
static size_t walk(nested_out *o, const char *in, size_t len, const urisan_uri *u,
                   const urisan_policy *pol)
{
    urisan_uri own;
    if (u == NULL) {
        urisan_parse(in, len, urisan_policy_limits(pol), &own, NULL);
        u = &own;
    }
    char scratch[URISAN_NESTED_SCRATCH];
    urisan_nested_report nr;
    if (urisan_nested(in, len, u, pol, scratch, sizeof scratch, put_one, o, &nr) != URISAN_OK)
        return 0;
    return o->n;
}

void check_nested(cli_buf *b, const char *in, size_t len, const urisan_uri *u,
                  const urisan_policy *pol, struct urisan_host_ctx *host, bool capped)
{
    nested_out o = {capped ? NULL : b, 0, host, pol};
    if (capped) {
        cli_jv_bool(b, walk(&o, in, len, u, pol) > CHECK_NESTED_MAX);
        return;
    }
    cli_buf_addc(b, '[');
    walk(&o, in, len, u, pol);
    cli_buf_addc(b, ']');
}
