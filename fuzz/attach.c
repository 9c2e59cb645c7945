/*
 * fuzz/attach.c - the attachment glue of liburisan-mail (src/mail/attach.c,
 * ics.c, shortcut.c): what a part is read as (mail_sniff), the calendar
 * content lines (mail_ics_props), the INI shortcut lines (mail_ini_props),
 * the .webloc property list (mail_plist_props), and the readers behind the
 * dispatch, on the input as an attachment of a message.
 *
 * The first byte picks the file name and declared type the attachment
 * gets; the rest is its content.
 *
 * Invariants:
 *  1. mail_sniff is a pure function, never gives TEXT with another kind,
 *     and names only kinds that exist;
 *  2. every calendar property's name lies in the scratch buffer before its
 *     value, and the value is no longer than the input (unfolding and
 *     unescaping never lengthen); its offset is inside the input;
 *  3. every INI property's name and value lie inside the input, the name
 *     before the value, no blank at either end of the value;
 *  4. every plist value is no longer than the input;
 *  5. mail_unwrap (rewritten links) on the content: a destination is
 *     never longer than the link and starts with a scheme;
 *  6. urisan_mail_scan on the message: every hit has a part, a named source
 *     and a URI inside its length, and the attachment's file name when
 *     it has one.
 */
#include "fuzz_util.h"

#include <glib.h>

#include "attach.h"
#include "unwrap.h"
#include "mail_internal.h"

static const struct {
    const char *name, *type;
} labels[] = {
    { "invite.ics", "application/octet-stream" },
    { "Invoice.url", "application/octet-stream" },
    { "x.webloc", "application/octet-stream" },
    { "run.desktop", "application/x-desktop" },
    { "scan.html", "text/plain" },
    { "fax.svg", "image/svg+xml" },
    { NULL, "text/calendar" },
    { "blob.dat", "application/octet-stream" },
};
#define NLABELS (sizeof labels / sizeof labels[0])

typedef struct {
    const char *base, *scratch;
    size_t n;
} prop_ctx;

static bool on_ics(void *ctx, const mail_prop *p)
{
    const prop_ctx *c = ctx;
    FUZZ_ASSERT(p->name >= c->scratch && p->name + p->name_len <= p->value,
                "calendar property name not before its value");
    FUZZ_ASSERT(p->value_len <= c->n && p->value + p->value_len <= c->scratch + c->n,
                "calendar value of %zu bytes past the scratch", p->value_len);
    FUZZ_ASSERT(p->offset < c->n, "calendar offset %zu past the input %zu", p->offset, c->n);
    return true;
}

static bool on_ini(void *ctx, const mail_prop *p)
{
    const prop_ctx *c = ctx;
    FUZZ_ASSERT(p->name >= c->base && p->name + p->name_len < p->value + 1 &&
                    p->value + p->value_len <= c->base + c->n,
                "INI name or value outside the input");
    FUZZ_ASSERT(p->value_len == 0 || (p->value[0] != ' ' && p->value[0] != '\t' &&
                                      p->value[p->value_len - 1] != ' ' &&
                                      p->value[p->value_len - 1] != '\t'),
                "INI value not trimmed");
    return true;
}

static bool on_plist(void *ctx, const mail_prop *p)
{
    const prop_ctx *c = ctx;
    FUZZ_ASSERT(p->value_len <= c->n, "plist value longer than the input");
    return true;
}

typedef struct {
    const char *attachment;
    size_t hits;
} scan_ctx;

static bool on_hit(void *ctx, const urisan_mail_hit *h)
{
    scan_ctx *c = ctx;
    c->hits++;
    FUZZ_ASSERT(h->part != NULL && h->part[0] != '\0', "hit without a part");
    FUZZ_ASSERT(urisan_mail_source_name(h->source) != NULL, "hit of source %d",
                (int)h->source);
    FUZZ_ASSERT(h->uri != NULL || h->uri_len == 0, "hit without a URI");
    if (h->attachment != NULL && c->attachment != NULL && strcmp(h->part, "2") == 0)
        FUZZ_ASSERT(strcmp(h->attachment, c->attachment) == 0, "hit names %s, not %s",
                    h->attachment, c->attachment);
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    urisan_mail_init();
    unsigned pick = data[0] % NLABELS;
    const char *d = (const char *)data + 1;
    size_t n = size - 1;
    char *copy = fuzz_dup_part(d, n);

    /* 1 */
    for (unsigned k = 0; k < NLABELS; k++) {
        for (int att = 0; att < 2; att++) {
            unsigned a = mail_sniff(labels[k].name, labels[k].type, copy, n, att);
            unsigned b = mail_sniff(labels[k].name, labels[k].type, copy, n, att);
            FUZZ_ASSERT(a == b, "mail_sniff not deterministic");
            FUZZ_ASSERT((a >> MAIL_KIND_COUNT_) == 0, "mail_sniff: kind bits 0x%x", a);
            FUZZ_ASSERT(!(a & MAIL_KIND_BIT(MAIL_KIND_TEXT)) || a == MAIL_KIND_BIT(MAIL_KIND_TEXT),
                        "mail_sniff: text with another kind (0x%x)", a);
        }
    }
    /* 2-4 */
    char *scratch = malloc(n + 1);
    if (scratch == NULL)
        abort();
    prop_ctx pc = { copy, scratch, n };
    mail_ics_props(copy, n, scratch, on_ics, &pc);
    mail_ini_props(copy, n, on_ini, &pc);
    mail_plist_props(copy, n, scratch, on_plist, &pc);
    free(scratch);

    /* 5 */
    char *dest = NULL;
    size_t dn = 0;
    const char *svc = mail_unwrap(copy, n, &dest, &dn);
    FUZZ_ASSERT((svc == NULL) == (dest == NULL), "mail_unwrap: a service without a destination");
    FUZZ_ASSERT(svc == NULL || (dn <= n && dn > 0 && g_ascii_isalpha(dest[0])),
                "mail_unwrap: destination of %zu bytes from %zu", dn, n);
    g_free(dest);

    /* 6: the input as the second part of a message, base64 */
    gchar *b64 = g_base64_encode((const guchar *)d, n);
    GString *m = g_string_new("From: a@example.com\r\nSubject: x\r\nMIME-Version: 1.0\r\n"
                              "Content-Type: multipart/mixed; boundary=\"BB\"\r\n\r\n"
                              "--BB\r\nContent-Type: text/plain\r\n\r\nsee attached\r\n"
                              "--BB\r\n");
    g_string_append_printf(m, "Content-Type: %s\r\n", labels[pick].type);
    if (labels[pick].name != NULL)
        g_string_append_printf(m, "Content-Disposition: attachment; filename=\"%s\"\r\n",
                               labels[pick].name);
    g_string_append_printf(m, "Content-Transfer-Encoding: base64\r\n\r\n%s\r\n--BB--\r\n", b64);
    g_free(b64);
    scan_ctx sc = { labels[pick].name, 0 };
    urisan_mail_sink sink = { on_hit, NULL, &sc };
    urisan_mail_result res;
    urisan_mail_status st = urisan_mail_scan(m->str, m->len, NULL, NULL, &sink, &res);
    FUZZ_ASSERT(st == URISAN_MAIL_OK || st == URISAN_MAIL_LIMIT, "scan status %d", (int)st);
    FUZZ_ASSERT(res.hits == sc.hits, "%zu hits counted, %zu delivered", res.hits, sc.hits);
    g_string_free(m, TRUE);
    free(copy);
    return 0;
}
