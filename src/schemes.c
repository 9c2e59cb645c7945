/*
 * schemes.c - the lookups of the one scheme table (schemes.h). A
 * policy's default-port and dangerous-scheme lines are an overlay
 * (schemes.h) consulted with it.
 */
#include "schemes.h"

#define ROW(name, kind, bits, port) {name, sizeof name - 1, kind, bits, port}
#define SP SCH_SPECIAL
#define OT SCH_OTHER
#define DG SCHEME_DANGEROUS
#define TX SCHEME_IN_TEXT
#define SL SCHEME_SLASH_PATH
#define HD SCHEME_HANDLER /* also a row of handlers.c (tests/test_policy.c checks) */

/* The one scheme table (schemes.h): its only definition. */
const scheme_row urisan_scheme_table[] = {
    /* WHATWG special schemes; RFC 3986 6.2.3 "/" for the http-like ones.
       The first three are the inline lookups' constants. */
    SCHEME_ROW_HTTP,                SCHEME_ROW_HTTPS,
    SCHEME_ROW_FILE,
    ROW("ws", SP, SL, 80),          ROW("wss", SP, SL, 443),
    ROW("ftp", SP, 0, 21),
    /* the other default ports of doc/policy.md */
    ROW("gopher", OT, DG, 70),      ROW("telnet", OT, HD, 23),
    ROW("nntp", OT, 0, 119),        ROW("news", OT, TX, 119),
    ROW("wais", OT, 0, 210),        ROW("prospero", OT, 0, 1525),
    ROW("ldap", OT, DG, 389),       ROW("ldaps", OT, 0, 636),
    ROW("imap", OT, 0, 143),        ROW("pop", OT, 0, 110),
    ROW("smtp", OT, 0, 25),         ROW("ssh", OT, 0, 22),
    ROW("sftp", OT, 0, 22),         ROW("rtsp", OT, 0, 554),
    ROW("sip", OT, TX, 5060),       ROW("sips", OT, TX, 5061),
    ROW("git", OT, 0, 9418),        ROW("dict", OT, DG, 2628),
    ROW("tftp", OT, DG, 69),
    /* doc/policy.md's "also": defaults fixed by the scheme's own RFC */
    ROW("snews", OT, 0, 563),       /* RFC 5538 2.2 */
    ROW("rsync", OT, 0, 873),       /* RFC 5781 2 */
    ROW("rtsps", OT, 0, 322),       /* RFC 7826 19.2 */
    ROW("coap", OT, 0, 5683),       ROW("coaps", OT, 0, 5684), /* RFC 7252 6.1, 6.2 */
    /* dangerous_scheme, no port */
    ROW("javascript", OT, DG | TX, -1), ROW("vbscript", OT, DG | TX, -1),
    ROW("data", OT, DG | TX, -1),   ROW("jar", OT, DG, -1),
    ROW("netdoc", OT, DG, -1),
    /* opaque schemes mail carries: found in running text without "//" */
    ROW("mailto", OT, TX, -1),      ROW("urn", OT, TX, -1),
    ROW("tel", OT, TX, -1),         ROW("xmpp", OT, TX, -1),
    ROW("magnet", OT, TX, -1),      ROW("sms", OT, TX, -1),
    ROW("callto", OT, TX, -1),      ROW("cid", OT, TX, -1),
    ROW("mid", OT, TX, -1),
};

const size_t urisan_scheme_rows = sizeof urisan_scheme_table / sizeof urisan_scheme_table[0];

/* n bytes of lower (lower-case) and s (any case) equal without case? */
static bool name_ieq(const char *lower, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (lower_ascii((unsigned char)s[i]) != (unsigned char)lower[i])
            return false;
    return true;
}

const scheme_row *urisan_scheme_find_rest(const char *s, size_t n)
{
    if (n < 2 || n > SCHEME_MAX_LEN)
        return NULL;
    unsigned char c0 = lower_ascii((unsigned char)s[0]);
    for (size_t i = 0; i < URISAN_SCHEME_ROWS; i++) {
        const scheme_row *r = &urisan_scheme_table[i];
        if (r->len == n && (unsigned char)r->name[0] == c0 && name_ieq(r->name, s, n))
            return r;
    }
    return NULL;
}

/* A lower-case pool string e against s[0..n) without case. */
static bool pool_ieq(const char *pool, pol_str e, const char *s, size_t n)
{
    return e.len == n && name_ieq(pool + e.off, s, n);
}

bool urisan_scheme_overlay_dangerous(const scheme_overlay *ov, const char *s, size_t n)
{
    if (ov != NULL)
        for (size_t i = 0; i < ov->n_dangerous; i++)
            if (pool_ieq(ov->pool, ov->dangerous[i], s, n))
                return true;
    return false;
}

bool urisan_scheme_dangerous(const scheme_overlay *ov, const char *s, size_t n)
{
    return urisan_scheme_row_dangerous(urisan_scheme_find(s, n), ov, s, n);
}

int urisan_scheme_port(const scheme_overlay *ov, const char *s, size_t n)
{
    if (ov != NULL)
        for (size_t i = 0; i < ov->n_defport; i++)
            if (pool_ieq(ov->pool, ov->defport[i].name, s, n))
                return ov->defport[i].port;
    const scheme_row *r = urisan_scheme_find(s, n);
    return r != NULL ? r->port : -1;
}

URISAN_API int urisan_default_port(const char *scheme, size_t len)
{
    if (scheme == NULL || len == 0)
        return -1;
    return urisan_scheme_port(NULL, scheme, len);
}
