/*
 * schemes.h - the one scheme table (schemes.c) and a policy's overlay on
 * it. What the library knows about a scheme by its name - default port,
 * WHATWG kind, dangerous by default, recognised without "//" in running
 * text, empty path written "/" - is one row there; analyse, normalise,
 * extract and the policy read it through the case-folded lookup below.
 */
#ifndef URISAN_SCHEMES_H
#define URISAN_SCHEMES_H

#include "internal.h"

#include <string.h>

/* WHATWG kind of a scheme (URL Standard, "special scheme"). */
enum {
    SCH_NONE = 0, /* no scheme at all (a relative reference) */
    SCH_SPECIAL,  /* http https ws wss ftp */
    SCH_FILE,     /* file */
    SCH_OTHER     /* every other scheme, listed or not */
};

/* Row bits. */
#define SCHEME_DANGEROUS  1u /* SPEC 3 dangerous_scheme by default */
#define SCHEME_IN_TEXT    2u /* extract takes "name:" without "//" in running
                                text (opaque schemes mail carries, and the
                                dangerous ones a scanner must see) */
#define SCHEME_SLASH_PATH 4u /* RFC 3986 6.2.3: an empty path is "/" */

typedef struct {
    const char *name; /* lower-case */
    uint8_t len;
    uint8_t kind;     /* SCH_* */
    uint8_t bits;     /* SCHEME_* */
    int32_t port;     /* registered default port, -1: none */
} scheme_row;

#define ROW(name, kind, bits, port) {name, sizeof name - 1, kind, bits, port}
#define SP SCH_SPECIAL
#define FI SCH_FILE
#define OT SCH_OTHER
#define DG SCHEME_DANGEROUS
#define TX SCHEME_IN_TEXT
#define SL SCHEME_SLASH_PATH

/* http, https, file first (urisan_scheme_find returns them without a
   search; tests/test_policy.c checks); then the most frequent first: the lookup stops at the first match. */
/*
 * The one scheme table: SPEC 3 "Default ports" (IANA service names) and
 * dangerous_scheme, the WHATWG special schemes, RFC 3986 6.2.3 (empty path
 * "/"), the opaque schemes extract finds in running text. Defined here,
 * static, so the inline lookup below folds the rows it returns for http,
 * https and file into constants (the analysis' fast path pays nothing for
 * them); schemes.c searches the rest.
 */
static const scheme_row urisan_scheme_table[] = {
    /* WHATWG special schemes; RFC 3986 6.2.3 "/" for the http-like ones */
    ROW("http", SP, SL, 80),        ROW("https", SP, SL, 443),
    ROW("file", FI, DG | TX, -1),
    ROW("ws", SP, SL, 80),          ROW("wss", SP, SL, 443),
    ROW("ftp", SP, 0, 21),
    /* SPEC 3 default ports */
    ROW("gopher", OT, DG, 70),      ROW("telnet", OT, 0, 23),
    ROW("nntp", OT, 0, 119),        ROW("news", OT, TX, 119),
    ROW("wais", OT, 0, 210),        ROW("prospero", OT, 0, 1525),
    ROW("ldap", OT, DG, 389),       ROW("ldaps", OT, 0, 636),
    ROW("imap", OT, 0, 143),        ROW("pop", OT, 0, 110),
    ROW("smtp", OT, 0, 25),         ROW("ssh", OT, 0, 22),
    ROW("sftp", OT, 0, 22),         ROW("rtsp", OT, 0, 554),
    ROW("sip", OT, TX, 5060),       ROW("sips", OT, TX, 5061),
    ROW("git", OT, 0, 9418),        ROW("dict", OT, DG, 2628),
    ROW("tftp", OT, DG, 69),
    /* beyond the SPEC minimum: defaults fixed by the scheme's own RFC */
    ROW("snews", OT, 0, 563),       /* RFC 5538 2.2 */
    ROW("rsync", OT, 0, 873),       /* RFC 5781 2 */
    ROW("rtsps", OT, 0, 322),       /* RFC 7826 19.2 */
    ROW("coap", OT, 0, 5683),       ROW("coaps", OT, 0, 5684), /* RFC 7252 6.1, 6.2 */
    /* SPEC 3 dangerous_scheme, no port */
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

#undef ROW
#undef SP
#undef FI
#undef OT
#undef DG
#undef TX
#undef SL

#define URISAN_SCHEME_ROWS (sizeof urisan_scheme_table / sizeof urisan_scheme_table[0])

/* The longest name in the table ("javascript"). */
#define SCHEME_MAX_LEN 10

/* urisan_scheme_find for names other than "http", "https" and "file". */
const scheme_row *urisan_scheme_find_rest(const char *s, size_t n);

/* The row of s[0..n), or NULL. fold: 0x20 when s may hold upper-case
   letters (ASCII case-insensitive lookup), 0 when the caller folded it
   already (scheme characters "| 0x20" are their lower case). */
static inline const scheme_row *urisan_scheme_find_folded(const char *s, size_t n, unsigned fold)
{
    /* "http", "https" and "file": "| 0x20" maps only "H" and "h" to "h"
       (and so on) */
    uint32_t w, http, file;
    memcpy(&http, "http", 4);
    memcpy(&file, "file", 4);
    if (n == 4) {
        memcpy(&w, s, 4);
        w |= fold * 0x01010101u;
        if (w == http)
            return &urisan_scheme_table[0];
        if (w == file)
            return &urisan_scheme_table[2];
    } else if (n == 5) {
        memcpy(&w, s, 4);
        if ((w | fold * 0x01010101u) == http && (s[4] | (char)fold) == 's')
            return &urisan_scheme_table[1];
    }
    return urisan_scheme_find_rest(s, n);
}

/* The row of s[0..n) (ASCII case-insensitive), or NULL. */
static inline const scheme_row *urisan_scheme_find(const char *s, size_t n)
{
    return urisan_scheme_find_folded(s, n, 0x20);
}

/* Kind of s[0..n) (case-insensitive): SCH_OTHER when not listed. */
static inline int urisan_scheme_kind(const char *s, size_t n)
{
    const scheme_row *r = urisan_scheme_find(s, n);
    return r != NULL ? r->kind : SCH_OTHER;
}

/* ---- a policy's own entries on top of the table ---- */
typedef struct {
    uint32_t off, len; /* into a name pool */
} pol_str;

typedef struct {
    pol_str name;
    uint16_t port;
} pol_defport;

/* What a policy adds to the table (risk.h builds one from a policy, so
   the analysis never calls into policy.c). Pool names are lower-case. */
typedef struct {
    const char *pool;
    const pol_str *dangerous;
    size_t n_dangerous;
    const pol_defport *defport;
    size_t n_defport;
} scheme_overlay;

/* Is s[0..n) (case-insensitive) one of the overlay's dangerous entries? */
bool urisan_scheme_overlay_dangerous(const scheme_overlay *ov, const char *s, size_t n);

/* Is s[0..n) (case-insensitive) a dangerous scheme: a row marked
   SCHEME_DANGEROUS or an overlay entry (ov may be NULL)? */
bool urisan_scheme_dangerous(const scheme_overlay *ov, const char *s, size_t n);

/* Default port of s[0..n) (case-insensitive): the overlay's entry first,
   then the table; -1 when neither has one. ov may be NULL. */
int urisan_scheme_port(const scheme_overlay *ov, const char *s, size_t n);

#endif
