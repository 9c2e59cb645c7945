/*
 * cmd_milter.c - `urisan milter`: a Postfix/Sendmail mail filter
 * (libmilter) that scans the links of each message (doc/mail.md).
 *
 * Per message: the headers and body are collected (at most
 * --max-message bytes), then at end of message milter_judge() (no
 * libmilter in it; fuzz/milter.c drives it) scans them with
 * liburisan-mail under the policy and gives the action: accept with
 * X-Urisan-Verdict / X-Urisan-Links added (any such headers the message
 * brought are removed first: a sender cannot forge them), quarantine,
 * reject with 550 5.7.1 naming the link and why, or tempfail 451 4.7.1.
 * libmilter runs one thread per SMTP session; the sessions share only
 * read-only state (the policy a message is judged by, ICU, Public Suffix
 * List). SIGHUP, SIGTERM and the policy in force: milter_daemon.c.
 */
#include "cli.h"
#include "milter_daemon.h"
#include "milter_scan.h"
#include "urisan_host.h"
#include "urisan_mail.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <libmilter/mfapi.h>

#define CMD "milter"

static milter_conf conf;
static bool quiet;

/* One SMTP session; its message buffer is reused message after message. */
typedef struct {
    char *buf;
    size_t len, cap;
    bool truncated;      /* more than conf.max_message bytes came */
    bool nomem;
    unsigned old_verdict, old_links;  /* X-Urisan-* the message brought */
} session;

static void msg_reset(session *s)
{
    s->len = 0;
    s->truncated = false;
    s->nomem = false;
    s->old_verdict = s->old_links = 0;
}

/* Keep n more bytes of the message, up to the bound. */
static void msg_add(session *s, const void *p, size_t n)
{
    if (s->truncated || s->nomem)
        return;
    if (n > conf.max_message - s->len) {
        n = conf.max_message - s->len;
        s->truncated = true;
    }
    if (s->len + n > s->cap) {
        size_t nc = s->cap ? s->cap : 65536;
        while (nc < s->len + n)
            nc *= 2;
        if (nc > conf.max_message)
            nc = conf.max_message;
        char *nb = realloc(s->buf, nc);
        if (nb == NULL) {
            s->nomem = true;
            return;
        }
        s->buf = nb;
        s->cap = nc;
    }
    memcpy(s->buf + s->len, p, n);
    s->len += n;
}

static session *sess(SMFICTX *ctx) { return smfi_getpriv(ctx); }

static sfsistat on_connect(SMFICTX *ctx, char *host, _SOCK_ADDR *addr)
{
    (void)host;
    (void)addr;
    session *s = calloc(1, sizeof *s);
    if (s == NULL)
        return conf.on_error == MILTER_ACCEPT ? SMFIS_ACCEPT : SMFIS_TEMPFAIL;
    smfi_setpriv(ctx, s);
    return SMFIS_CONTINUE;
}

static sfsistat on_envfrom(SMFICTX *ctx, char **argv)
{
    (void)argv;
    session *s = sess(ctx);
    if (s == NULL)
        return SMFIS_TEMPFAIL;
    msg_reset(s);
    return SMFIS_CONTINUE;
}

static sfsistat on_header(SMFICTX *ctx, char *name, char *value)
{
    session *s = sess(ctx);
    if (s == NULL)
        return SMFIS_TEMPFAIL;
    if (strcasecmp(name, "X-Urisan-Verdict") == 0)
        s->old_verdict++;
    else if (strcasecmp(name, "X-Urisan-Links") == 0)
        s->old_links++;
    msg_add(s, name, strlen(name));
    msg_add(s, ": ", 2);
    msg_add(s, value, strlen(value));
    msg_add(s, "\r\n", 2);
    return SMFIS_CONTINUE;
}

static sfsistat on_eoh(SMFICTX *ctx)
{
    session *s = sess(ctx);
    if (s == NULL)
        return SMFIS_TEMPFAIL;
    msg_add(s, "\r\n", 2);
    return SMFIS_CONTINUE;
}

static sfsistat on_body(SMFICTX *ctx, unsigned char *p, size_t n)
{
    session *s = sess(ctx);
    if (s == NULL)
        return SMFIS_TEMPFAIL;
    msg_add(s, p, n);
    return SMFIS_CONTINUE;
}

/* smfi_setreply's text is a format: '%' doubled. */
static void set_reply(SMFICTX *ctx, bool perm, const char *text)
{
    char code[4], xcode[6];
    memcpy(code, perm ? "550" : "451", 4);
    memcpy(xcode, perm ? "5.7.1" : "4.7.1", 6);
    char t[2 * MILTER_TEXT_MAX + 1];
    size_t o = 0;
    for (const char *p = text; *p && o + 2 < sizeof t; p++) {
        if (*p == '%')
            t[o++] = '%';
        t[o++] = *p;
    }
    t[o] = '\0';
    smfi_setreply(ctx, code, xcode, t);
}

/* Drop what the sender wrote under our names, then add ours. */
static sfsistat add_headers(SMFICTX *ctx, const session *s, milter_outcome *out)
{
    char hv[] = "X-Urisan-Verdict", hl[] = "X-Urisan-Links";
    char verdict[16];
    snprintf(verdict, sizeof verdict, "%s", out->verdict);
    for (unsigned i = s->old_verdict; i > 0; i--)
        smfi_chgheader(ctx, hv, (int)i, NULL);
    for (unsigned i = s->old_links; i > 0; i--)
        smfi_chgheader(ctx, hl, (int)i, NULL);
    if (smfi_addheader(ctx, hv, verdict) != MI_SUCCESS ||
        smfi_addheader(ctx, hl, out->links_hdr) != MI_SUCCESS)
        return conf.on_error == MILTER_ACCEPT ? SMFIS_ACCEPT : SMFIS_TEMPFAIL;
    return SMFIS_ACCEPT;
}

static sfsistat on_eom(SMFICTX *ctx)
{
    session *s = sess(ctx);
    if (s == NULL)
        return SMFIS_TEMPFAIL;
    milter_outcome out;
    milter_judging_begin();
    if (s->nomem) {
        out.action = conf.on_error;
        out.verdict = "error";
        out.error = true;
        out.links = out.denied = out.flagged = 0;
        snprintf(out.links_hdr, sizeof out.links_hdr, "not scanned: out of memory");
        snprintf(out.reply, sizeof out.reply, "urisan: message not scanned (out of memory)");
    } else {
        /* the policy in force now; a reload meanwhile does not free it */
        milter_conf c = conf;
        milter_pol *ref;
        c.pol = milter_pol_get(&ref);
        milter_judge(&c, s->buf, s->len, s->truncated, &out);
        milter_pol_put(ref);
    }
    const char *qid = smfi_getsymval(ctx, "i");
    if (!quiet)
        fprintf(stderr, "urisan: milter: %s: verdict=%s action=%s: %s\n",
                qid ? qid : "-", out.verdict, milter_action_name(out.action), out.links_hdr);

    sfsistat rc = SMFIS_ACCEPT;
    switch (out.action) {
    case MILTER_REJECT:
        set_reply(ctx, true, out.reply);
        rc = SMFIS_REJECT;
        break;
    case MILTER_TEMPFAIL:
        set_reply(ctx, false, out.reply);
        rc = SMFIS_TEMPFAIL;
        break;
    case MILTER_QUARANTINE:
        if (out.reply[0] == '\0')
            snprintf(out.reply, sizeof out.reply, "urisan");
        smfi_quarantine(ctx, out.reply);
        rc = add_headers(ctx, s, &out);   /* the held message carries them */
        break;
    case MILTER_ACCEPT:
        rc = add_headers(ctx, s, &out);
        break;
    }
    msg_reset(s);
    milter_judging_end();
    return rc;
}

static sfsistat on_abort(SMFICTX *ctx)
{
    session *s = sess(ctx);
    if (s != NULL)
        msg_reset(s);
    return SMFIS_CONTINUE;
}

static sfsistat on_close(SMFICTX *ctx)
{
    session *s = sess(ctx);
    if (s != NULL) {
        free(s->buf);
        free(s);
        smfi_setpriv(ctx, NULL);
    }
    return SMFIS_CONTINUE;
}

static bool parse_size(const char *v, size_t min, size_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno != 0 || end == v || v[0] == '-' || n > ((size_t)1 << 30))
        return false;
    if (*end == 'k' || *end == 'K')
        n <<= 10, end++;
    else if (*end == 'M' || *end == 'm')
        n <<= 20, end++;
    /* the minimum applies to the size, after its suffix ("256k") */
    if (*end != '\0' || n < min || n > ((size_t)1 << 30))
        return false;
    *out = (size_t)n;
    return true;
}

enum { O_SOCKET, O_POLICY, O_PROFILE, O_ON_DENY, O_ON_FLAG, O_ON_ERROR, O_MAX, O_TIMEOUT, O_QUIET,
       O_DRAIN };

/* --on-deny, --on-flag, --on-error, --max-message into conf, --timeout
   into *timeout and --drain-timeout into *drain; 0, or the usage error's
   status. */
static int read_conf(const cli_opt *opts, size_t *timeout, size_t *drain)
{
    struct {
        int opt;
        milter_action *dst;
        bool reject_ok;
    } acts[] = {
        { O_ON_DENY, &conf.on_deny, true },
        { O_ON_FLAG, &conf.on_flag, true },
        { O_ON_ERROR, &conf.on_error, true },
    };
    for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++) {
        const cli_opt *o = &opts[acts[i].opt];
        if (o->seen && !milter_action_parse(o->value, acts[i].dst))
            return cli_usage_error(CMD, "%s: '%s' is not accept, quarantine, reject or tempfail",
                                   o->name, o->value);
    }
    if (opts[O_MAX].seen && !parse_size(opts[O_MAX].value, 1024, &conf.max_message))
        return cli_usage_error(CMD, "--max-message: '%s' is not a size from 1024 to 1G "
                                    "(bytes, or with k or M)", opts[O_MAX].value);
    if (opts[O_TIMEOUT].seen &&
        (!parse_size(opts[O_TIMEOUT].value, 1, timeout) || *timeout > 86400))
        return cli_usage_error(CMD, "--timeout: '%s' is not a number of seconds from 1 to 86400",
                               opts[O_TIMEOUT].value);
    if (opts[O_DRAIN].seen && (!parse_size(opts[O_DRAIN].value, 0, drain) || *drain > 3600))
        return cli_usage_error(CMD, "--drain-timeout: '%s' is not a number of seconds from 0 "
                               "to 3600", opts[O_DRAIN].value);
    return 0;
}

/* Register the filter, listen on where (spec: its copy, libmilter may keep it)
   and serve until stopped (milter_daemon_run); CLI_EXIT_OK or the
   failure's status. *left: messages still being judged at the end. */
static int run_milter(const char *where, char *spec, size_t timeout, size_t *left)
{
    static char name[] = "urisan";
    struct smfiDesc desc = {
        .xxfi_name = name,
        .xxfi_version = SMFI_VERSION,
        .xxfi_flags = SMFIF_ADDHDRS | SMFIF_CHGHDRS | SMFIF_QUARANTINE,
        .xxfi_connect = on_connect,
        .xxfi_envfrom = on_envfrom,
        .xxfi_header = on_header,
        .xxfi_eoh = on_eoh,
        .xxfi_body = on_body,
        .xxfi_eom = on_eom,
        .xxfi_abort = on_abort,
        .xxfi_close = on_close,
    };
    if (smfi_register(desc) != MI_SUCCESS)
        return cli_fail(CMD, "libmilter refused to register the filter");
    if (smfi_setconn(spec) != MI_SUCCESS)
        return cli_fail(CMD, "--socket: '%s' is not a milter socket", where);
    if (timeout > 0 && smfi_settimeout((int)timeout) != MI_SUCCESS)
        return cli_fail(CMD, "--timeout: libmilter refused it");
    if (smfi_opensocket(1) != MI_SUCCESS)
        return cli_fail(CMD, "%s: cannot listen there", where);
    return milter_daemon_run(left);
}

int cmd_milter(int argc, char **argv)
{
    cli_opt opts[] = {
        [O_SOCKET] = { "--socket", true, NULL, false },
        [O_POLICY] = { "--policy", true, NULL, false },
        [O_PROFILE] = { "--profile", true, NULL, false },
        [O_ON_DENY] = { "--on-deny", true, NULL, false },
        [O_ON_FLAG] = { "--on-flag", true, NULL, false },
        [O_ON_ERROR] = { "--on-error", true, NULL, false },
        [O_MAX] = { "--max-message", true, NULL, false },
        [O_TIMEOUT] = { "--timeout", true, NULL, false },
        [O_QUIET] = { "--quiet", false, NULL, false },
        [O_DRAIN] = { "--drain-timeout", true, NULL, false },
    };
    int rc, nargs = cli_opts(CMD, argc, argv, opts, sizeof opts / sizeof opts[0], &rc);
    if (nargs < 0)
        return rc;
    if (nargs != 0)
        return cli_usage_error(CMD, "unexpected operand '%s'", argv[1]);
    if (!opts[O_SOCKET].seen || opts[O_SOCKET].value[0] == '\0')
        return cli_usage_error(CMD, "--socket is required (inet:PORT@127.0.0.1, unix:PATH)");

    milter_conf_default(&conf);
    quiet = opts[O_QUIET].seen;
    size_t timeout = 0, drain = 10;
    if ((rc = read_conf(opts, &timeout, &drain)) != 0)
        return rc;

    urisan_policy *pol = cli_policy_load(CMD, opts[O_POLICY].value, opts[O_PROFILE].value);
    if (pol == NULL)
        return CLI_EXIT_USAGE;
    char settings[160];
    snprintf(settings, sizeof settings, "on-deny %s, on-flag %s, on-error %s, max-message %zu",
             milter_action_name(conf.on_deny), milter_action_name(conf.on_flag),
             milter_action_name(conf.on_error), conf.max_message);
    milter_daemon_conf dc = { opts[O_SOCKET].value, opts[O_POLICY].value,
                              opts[O_PROFILE].value, settings, drain };
    if (!milter_daemon_init(&dc, pol)) {
        free(pol);
        return cli_fail(CMD, "out of memory");
    }

    /* Shared read-only state, loaded before the session threads start. */
    urisan_mail_init();
    urisan_host_init();

    char *spec = strdup(opts[O_SOCKET].value);
    if (spec == NULL) {
        milter_daemon_done();
        return cli_fail(CMD, "out of memory");
    }
    size_t left = 0;
    int status = run_milter(opts[O_SOCKET].value, spec, timeout, &left);
    if (left > 0) {
        /* judgements cut short still run on the shared state: leave it */
        fflush(stderr);
        _exit(status);
    }
    urisan_mail_shutdown();
    urisan_host_shutdown();
    free(spec);
    milter_daemon_done();
    return cli_finish(CMD, status);
}
