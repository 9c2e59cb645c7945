/*
 * fuzz/milter.c - what `urisan milter` does with one message
 * (src/cli/milter_scan.c: liburisan-mail scan, hostview flags, action,
 * X-Urisan-* header values, SMTP reply text), without libmilter.
 *
 * Byte 0 picks the configuration (on-deny, on-flag, on-error, whether
 * the message counts as truncated); the rest is the message.
 * Invariants:
 *  1. the verdict is one of allow, flag, deny, error, and the action is
 *     the configured one for it (allow: accept);
 *  2. deny exactly when a link was denied; error only without a deny;
 *     denied + flagged <= links;
 *  3. header value and reply are printable ASCII (no CR, LF, NUL: they
 *     go into a header and an SMTP reply) and within MILTER_TEXT_MAX;
 *     a reject/tempfail reply is not empty;
 *  4. the same message judged twice gives the same outcome.
 */
#include "fuzz_util.h"

#include "milter_scan.h"
#include "urisan_mail.h"

#include <string.h>

static void printable(const char *s, const char *what)
{
    size_t n = strlen(s);
    FUZZ_ASSERT(n <= MILTER_TEXT_MAX, "%s longer than MILTER_TEXT_MAX (%zu)", what, n);
    for (size_t i = 0; i < n; i++)
        FUZZ_ASSERT(s[i] >= 0x20 && s[i] < 0x7f, "%s: byte 0x%02x at %zu", what,
                    (unsigned)(unsigned char)s[i], i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    milter_conf conf;
    milter_conf_default(&conf);
    unsigned sel = data[0];
    conf.on_deny = (milter_action)(sel & 3);
    conf.on_flag = (milter_action)((sel >> 2) & 3);
    conf.on_error = (milter_action)((sel >> 4) & 3);
    bool truncated = (sel & 0x40) != 0;
    conf.max_html_mem = (sel & 0x80) ? 4096 : (size_t)1 << 20;
    char *msg = fuzz_dup(data + 1, size - 1);

    milter_outcome a, b;
    milter_judge(&conf, msg, size - 1, truncated, &a);
    milter_judge(&conf, msg, size - 1, truncated, &b);

    const char *v = a.verdict;
    FUZZ_ASSERT(strcmp(v, "allow") == 0 || strcmp(v, "flag") == 0 || strcmp(v, "deny") == 0 ||
                    strcmp(v, "error") == 0, "verdict %s", v);
    milter_action want = strcmp(v, "deny") == 0    ? conf.on_deny
                         : strcmp(v, "flag") == 0  ? conf.on_flag
                         : strcmp(v, "error") == 0 ? conf.on_error
                                                   : MILTER_ACCEPT;
    FUZZ_ASSERT(a.action == want, "verdict %s but action %s", v, milter_action_name(a.action));
    FUZZ_ASSERT((a.denied > 0) == (strcmp(v, "deny") == 0), "denied %zu but verdict %s",
                a.denied, v);
    FUZZ_ASSERT(a.denied + a.flagged <= a.links, "%zu denied + %zu flagged > %zu links",
                a.denied, a.flagged, a.links);
    FUZZ_ASSERT(!truncated || strcmp(v, "allow") != 0, "truncated message allowed");
    printable(a.links_hdr, "X-Urisan-Links");
    printable(a.reply, "reply");
    if (a.action == MILTER_REJECT || a.action == MILTER_TEMPFAIL)
        FUZZ_ASSERT(a.reply[0] != '\0', "empty %s reply", milter_action_name(a.action));
    FUZZ_ASSERT(a.action == b.action && strcmp(a.verdict, b.verdict) == 0 &&
                    strcmp(a.links_hdr, b.links_hdr) == 0 && strcmp(a.reply, b.reply) == 0,
                "two judgements of one message differ");
    free(msg);
    return 0;
}
