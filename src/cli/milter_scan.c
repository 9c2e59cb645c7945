/*
 * milter_scan.c - one message of `urisan milter` (see milter_scan.h).
 */
#include "milter_scan.h"

#include "urisan_host.h"
#include "urisan_mail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const action_names[] = { "accept", "quarantine", "reject", "tempfail" };

const char *milter_action_name(milter_action a)
{
    return (unsigned)a < sizeof action_names / sizeof action_names[0] ? action_names[a] : "?";
}

bool milter_action_parse(const char *s, milter_action *a)
{
    for (size_t i = 0; i < sizeof action_names / sizeof action_names[0]; i++)
        if (strcmp(s, action_names[i]) == 0) {
            *a = (milter_action)i;
            return true;
        }
    return false;
}

void milter_conf_default(milter_conf *c)
{
    memset(c, 0, sizeof *c);
    c->on_deny = MILTER_REJECT;
    c->on_flag = MILTER_ACCEPT;
    c->on_error = MILTER_TEMPFAIL;
    c->max_message = (size_t)32 << 20;
    c->max_html_mem = (size_t)64 << 20;
}

/* ------------------------------------------------------------------ */
/* bounded printable text                                              */
/* ------------------------------------------------------------------ */

typedef struct {
    char *p;
    size_t len, cap;     /* cap excludes the NUL */
    bool cut;
} tbuf;

static void t_init(tbuf *t, char *p, size_t cap)
{
    t->p = p;
    t->len = 0;
    t->cap = cap;
    t->cut = false;
    p[0] = '\0';
}

/* Printable ASCII as is, every other byte as %XX (header and SMTP reply
   texts are 7-bit, one line). Stops with "..." where the room ends. */
static void t_add(tbuf *t, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n && !t->cut; i++) {
        unsigned char c = (unsigned char)s[i];
        bool plain = c >= 0x20 && c < 0x7f;
        size_t need = plain ? 1 : 3;
        if (t->len + need + 3 > t->cap) {
            memcpy(t->p + t->len, "...", 3);
            t->len += 3;
            t->cut = true;
            break;
        }
        if (plain) {
            t->p[t->len++] = (char)c;
        } else {
            t->p[t->len++] = '%';
            t->p[t->len++] = hex[c >> 4];
            t->p[t->len++] = hex[c & 15];
        }
    }
    t->p[t->len] = '\0';
}

static void t_adds(tbuf *t, const char *s) { t_add(t, s, strlen(s)); }

static void t_addu(tbuf *t, size_t v)
{
    char n[32];
    snprintf(n, sizeof n, "%zu", v);
    t_adds(t, n);
}

/* ------------------------------------------------------------------ */
/* the scan                                                            */
/* ------------------------------------------------------------------ */

#define URI_SHOWN 200   /* bytes of a URI in a header or reply */

typedef struct {
    const milter_conf *conf;
    size_t links, denied, flagged;
    urisan_verdict worst;
    /* the first link of the worst verdict */
    char uri[URI_SHOWN + 1];
    size_t uri_len;
    bool uri_cut;
    char part[64];
    char attachment[80]; /* its part's file name, or "" */
    const char *rewriter; /* a rewritten link's service, or NULL */
    const char *source;
    char reasons[256];
    char imitates[URISAN_HOSTVIEW_MAX]; /* the protected name it imitates, or "" */
    urisan_hostview hv;
    char limit[160];     /* the first liburisan-mail limit reached, or "" */
} scan_state;

/* A liburisan-mail limit: the message was not scanned whole;
   the first one names the error. */
static bool on_diag(void *ctx, const urisan_mail_diag *d)
{
    scan_state *s = ctx;
    if (s->limit[0] == '\0') {
        const char *name = urisan_mail_limit_name(d->limit);
        if (d->limit == URISAN_MAIL_LIMIT_READER) /* its message names the file */
            snprintf(s->limit, sizeof s->limit, "mail limit reader: %s", d->message);
        else
            snprintf(s->limit, sizeof s->limit, "mail limit %s (%zu, limit %zu)%s",
                     name != NULL ? name : "?", d->value, d->max,
                     d->limit == URISAN_MAIL_LIMIT_HTML ||
                             (d->limit == URISAN_MAIL_LIMIT_DEPTH && d->part != NULL &&
                              strcmp(d->part, "raw") != 0) /* iframe srcdoc nesting */
                         ? "; the rest of the part unscanned"
                         : "; scanned raw");
    }
    return true;
}

static bool on_hit(void *ctx, const urisan_mail_hit *h)
{
    scan_state *s = ctx;
    const urisan_decision dec = h->decision; /* the one decision (scan_message) */
    s->links++;
    if (dec.verdict == URISAN_DENY)
        s->denied++;
    else if (dec.verdict == URISAN_FLAGGED)
        s->flagged++;
    bool worse = s->links == 1 || (int)dec.verdict > (int)s->worst;
    if (!worse)
        return true;
    s->worst = dec.verdict;
    s->uri_len = h->uri_len < URI_SHOWN ? h->uri_len : URI_SHOWN;
    s->uri_cut = h->uri_len > URI_SHOWN;
    memcpy(s->uri, h->uri, s->uri_len);
    s->uri[s->uri_len] = '\0';
    snprintf(s->part, sizeof s->part, "%s", h->part != NULL ? h->part : "0");
    snprintf(s->attachment, sizeof s->attachment, "%s",
             h->attachment != NULL ? h->attachment : "");
    s->source = urisan_mail_source_name(h->source);
    s->rewriter = h->rewriter; /* a static name */
    memcpy(s->imitates, s->hv.imitates, s->hv.imitates_len + 1);
    size_t need = 0;
    if (urisan_decision_format(&dec, s->reasons, sizeof s->reasons, &need) != URISAN_OK)
        snprintf(s->reasons, sizeof s->reasons, "%s", urisan_verdict_name(dec.verdict));
    return true;
}

/* "http://0x7f.1/ (part 1, html-href; denied:ip_obfuscated)";
   "https://xn--80ak6aa92e.com/ (part 0, text; denied:homograph; imitates
   apple.com)" */
static void t_link(tbuf *t, const scan_state *s)
{
    t_add(t, s->uri, s->uri_len);
    if (s->uri_cut)
        t_adds(t, "...");
    t_adds(t, " (part ");
    t_adds(t, s->part);
    if (s->attachment[0] != '\0') {
        t_adds(t, ", attachment ");
        t_adds(t, s->attachment);
    }
    t_adds(t, ", ");
    t_adds(t, s->source != NULL ? s->source : "?");
    if (s->rewriter != NULL) {
        t_adds(t, ", rewritten by ");
        t_adds(t, s->rewriter);
    }
    if (s->reasons[0] != '\0') {
        t_adds(t, "; ");
        t_adds(t, s->reasons);
    }
    if (s->imitates[0] != '\0') {
        t_adds(t, "; imitates ");
        t_adds(t, s->imitates);
    }
    t_adds(t, ")");
}

/* Scan msg with the links judged into s. */
static urisan_mail_status scan_message(const milter_conf *conf, const char *msg, size_t len,
                                       scan_state *s)
{
    urisan_mail_limits lim;
    urisan_mail_limits_default(&lim);
    lim.max_html_mem = conf->max_html_mem;
    urisan_mail_sink sink = { on_hit, on_diag, s };
    urisan_mail_result res;
    memset(&res, 0, sizeof res);
    /* each link decided once, in this thread's context of the host
       layer; its host's view goes to s->hv before on_hit gets it */
    urisan_link_judge lj = { NULL, &s->hv };
    const urisan_link_hooks hk = { urisan_judge_link_decide, &lj };
    return urisan_mail_scan_with(msg, len, conf->pol, &lim, &hk, &sink, &res);
}

/* What was not scanned (an error), or NULL when the message was whole. */
static const char *not_scanned(urisan_mail_status st, bool truncated, const scan_state *s)
{
    if (st == URISAN_MAIL_NOT_MESSAGE)
        return "not a mail message";
    if (st == URISAN_MAIL_NOMEM || st == URISAN_MAIL_STOPPED)
        return "out of memory";
    if (truncated)
        return "larger than the message bound; only its beginning was scanned";
    if (st == URISAN_MAIL_LIMIT)
        return s->limit[0] != '\0' ? s->limit : "a mail limit";
    return NULL;
}

/* X-Urisan-Links: "2 links: 1 deny, 0 flag; worst: ...; not scanned whole: ..." */
static void t_links_header(tbuf *lh, const scan_state *s, const char *why)
{
    t_addu(lh, s->links);
    t_adds(lh, s->links == 1 ? " link: " : " links: ");
    t_addu(lh, s->denied);
    t_adds(lh, " deny, ");
    t_addu(lh, s->flagged);
    t_adds(lh, " flag");
    if (s->links > 0 && s->worst != URISAN_ALLOW) {
        t_adds(lh, "; worst: ");
        t_link(lh, s);
    }
    if (why != NULL) {
        t_adds(lh, "; not scanned whole: ");
        t_adds(lh, why);
    }
}

/* The verdict, its action and the SMTP reply text into out and rp. */
static void decide(const milter_conf *conf, const scan_state *s, const char *why,
                   milter_outcome *out, tbuf *rp)
{
    if (s->denied > 0) {
        /* A deny in what was scanned stands, whole message or not. */
        out->verdict = "deny";
        out->action = conf->on_deny;
        t_adds(rp, "urisan: link denied: ");
        t_link(rp, s);
        if (s->denied > 1) {
            t_adds(rp, " and ");
            t_addu(rp, s->denied - 1);
            t_adds(rp, " more");
        }
    } else if (why != NULL) {
        out->verdict = "error";
        out->action = conf->on_error;
        t_adds(rp, "urisan: message not scanned: ");
        t_adds(rp, why);
    } else if (s->flagged > 0) {
        out->verdict = "flag";
        out->action = conf->on_flag;
        t_adds(rp, "urisan: link flagged: ");
        t_link(rp, s);
    } else {
        out->verdict = "allow";
        out->action = MILTER_ACCEPT;
    }
}

void milter_judge(const milter_conf *conf, const char *msg, size_t len,
                  bool truncated, milter_outcome *out)
{
    scan_state *s = calloc(1, sizeof *s);
    tbuf lh, rp;
    t_init(&lh, out->links_hdr, MILTER_TEXT_MAX);
    t_init(&rp, out->reply, MILTER_TEXT_MAX);
    out->links = out->denied = out->flagged = 0;
    if (s == NULL) {
        out->error = true;
        out->verdict = "error";
        out->action = conf->on_error;
        t_adds(&lh, "not scanned: out of memory");
        t_adds(&rp, "urisan: message not scanned (out of memory)");
        return;
    }
    s->conf = conf;
    s->worst = URISAN_ALLOW;
    urisan_mail_status st = scan_message(conf, msg, len, s);

    out->links = s->links;
    out->denied = s->denied;
    out->flagged = s->flagged;
    const char *why = not_scanned(st, truncated, s);
    out->error = why != NULL;
    t_links_header(&lh, s, why);
    decide(conf, s, why, out, &rp);
    free(s);
}
