/*
 * resolve_window.c - `check --resolve`, `extract --resolve`: a window of
 * rows whose hosts are looked up together. Each row (a copy the command
 * made) is held and its lookup started (urisan_resolve_start_url; at most
 * CLI_RESOLVE_INFLIGHT in flight, c-ares is asynchronous); when the
 * window is full, or the command asks (the input or a message ends),
 * every answer is waited for and the rows are written in the order held.
 * Memory is bounded by the window (rows of at most the policy's max_uri
 * and their context each), however long the input.
 */
#include "resolve_window.h"

#ifdef URISAN_HAVE_NET
#include "json.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    void *row;
    urisan_net_result res;
} held_line;

struct cli_resolve_window {
    const char *cmd;
    urisan_resolver *r;
    const urisan_policy *pol;
    cli_resolve_emit emit;
    void *ctx;
    size_t n;
    held_line *lines;   /* CLI_RESOLVE_WINDOW */
};

cli_resolve_window *cli_resolve_new(const char *cmd, const char *servers,
                                    const urisan_policy *pol, cli_resolve_emit emit, void *ctx)
{
    cli_resolve_window *w = calloc(1, sizeof *w);
    const char *why = "out of memory";
    if (w != NULL)
        w->lines = calloc(CLI_RESOLVE_WINDOW, sizeof *w->lines);
    urisan_resolver_opts o;
    memset(&o, 0, sizeof o);
    o.servers = servers;
    if (w != NULL && w->lines != NULL)
        w->r = urisan_resolver_new(&o, &why);
    if (w == NULL || w->lines == NULL || w->r == NULL) {
        if (servers != NULL && w != NULL && w->lines != NULL)
            cli_usage_error(cmd, "--dns-server '%.200s': %s", servers, why);
        else
            cli_fail(cmd, "%s", why);
        if (w != NULL)
            free(w->lines);
        free(w);
        return NULL;
    }
    w->cmd = cmd;
    w->pol = pol;
    w->emit = emit;
    w->ctx = ctx;
    return w;
}

static void answered(void *ctx, const urisan_net_result *res)
{
    held_line *h = ctx;
    memcpy(&h->res, res, sizeof *res);
}

bool cli_resolve_flush(cli_resolve_window *w)
{
    urisan_resolve_wait(w->r);
    bool ok = true;
    for (size_t i = 0; i < w->n; i++) {
        held_line *h = &w->lines[i];
        if (ok)
            ok = w->emit(w->ctx, h->row, &h->res);
        free(h->row);
        h->row = NULL;
    }
    w->n = 0;
    return ok;
}

bool cli_resolve_hold(cli_resolve_window *w, const char *uri, size_t len, void *row)
{
    if (row == NULL) {
        cli_fail(w->cmd, "out of memory");
        return false;
    }
    if (w->n == CLI_RESOLVE_WINDOW && !cli_resolve_flush(w)) {
        free(row);
        return false;
    }
    held_line *h = &w->lines[w->n];
    h->row = row;
    memset(&h->res, 0, sizeof h->res);
    h->res.status = URISAN_DNS_FAILED;
    h->res.verdict = URISAN_DENY;
    h->res.rules = 1u << URISAN_REASON_DNS_FAILED;
    w->n++;
    urisan_resolve_start_url(w->r, uri, len, w->pol, CLI_RESOLVE_INFLIGHT, answered, h);
    return true;
}

void cli_resolve_free(cli_resolve_window *w)
{
    if (w == NULL)
        return;
    for (size_t i = 0; i < w->n; i++)
        free(w->lines[i].row);
    urisan_resolver_free(w->r);
    free(w->lines);
    free(w);
}

/* A URL without a host (mailto:, urn:) has no address a client connects
   to: its string judgement stands. */
static bool judged(const urisan_net_result *res)
{
    return res->status != URISAN_DNS_NO_HOST;
}

void cli_resolve_merge(urisan_decision *d, const urisan_net_result *res)
{
    if (!judged(res))
        return;
    if (res->verdict == URISAN_DENY) {
        d->rules |= res->rules;
        d->verdict = URISAN_DENY;
    } else if (res->verdict == URISAN_FLAGGED && d->verdict == URISAN_ALLOW) {
        d->verdict = URISAN_FLAGGED;
    }
}

static void addr_text(cli_buf *b, const urisan_net_addr *a)
{
    char ip[64];
    size_t n = 0;
    if (urisan_net_addr_text(a, ip, sizeof ip, &n) != URISAN_OK)
        n = 0;
    cli_buf_add(b, ip, n);
}

void cli_jv_resolve(cli_buf *b, const urisan_net_result *res)
{
    cli_buf_lit(b, "{\"name\":");
    json_quote(b, res->name, strlen(res->name));
    cli_buf_lit(b, ",\"status\":\"");
    cli_buf_adds(b, urisan_dns_status_name(res->status));
    cli_buf_lit(b, "\",\"ttl\":");
    cli_buf_addu(b, res->ttl);
    cli_buf_lit(b, ",\"cached\":");
    cli_jv_bool(b, res->cached != 0);
    cli_buf_lit(b, ",\"addresses\":[");
    for (size_t i = 0; i < res->n_addrs; i++) {
        const urisan_net_addr *a = &res->addrs[i];
        if (i > 0)
            cli_buf_addc(b, ',');
        cli_buf_lit(b, "{\"address\":\"");
        addr_text(b, a);
        cli_buf_lit(b, "\",\"classes\":");
        cli_jv_flags(b, a->d.class_flags);
        cli_buf_lit(b, ",\"verdict\":");
        cli_jv_verdict(b, a->d.verdict);
        cli_buf_lit(b, ",\"reasons\":");
        urisan_decision d = {a->d.verdict, a->d.deny_flags, a->d.flag_flags, a->d.rules};
        cli_jv_reasons(b, &d);
        cli_buf_addc(b, '}');
    }
    cli_buf_lit(b, "],\"denied\":");
    char why[512];
    size_t n = 0;
    if (judged(res) && res->verdict == URISAN_DENY &&
        urisan_net_result_format(res, why, sizeof why, &n) == URISAN_OK)
        json_quote(b, why, n);
    else
        cli_buf_lit(b, "null");
    cli_buf_addc(b, '}');
}

void cli_text_resolve(cli_buf *b, const urisan_net_result *res)
{
    cli_buf_lit(b, " (dns ");
    cli_buf_adds(b, urisan_dns_status_name(res->status));
    if (!judged(res)) {
        cli_buf_addc(b, ')');
        return;
    }
    cli_buf_addc(b, ':');
    for (size_t i = 0; i < res->n_addrs; i++) {
        cli_buf_addc(b, ' ');
        addr_text(b, &res->addrs[i]);
    }
    char why[512];
    size_t n = 0;
    if (res->verdict == URISAN_DENY &&
        urisan_net_result_format(res, why, sizeof why, &n) == URISAN_OK) {
        cli_buf_lit(b, "; ");
        cli_buf_add(b, why, n);
    }
    cli_buf_addc(b, ')');
}
#endif
