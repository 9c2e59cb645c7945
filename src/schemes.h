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
#define SCHEME_DANGEROUS  1u /* dangerous_scheme by default */
#define SCHEME_IN_TEXT    2u /* extract takes "name:" without "//" in running
                                text (opaque schemes mail carries, and the
                                dangerous ones a scanner must see) */
#define SCHEME_SLASH_PATH 4u /* RFC 3986 6.2.3: an empty path is "/" */
#define SCHEME_HANDLER    8u /* handler_scheme: a row of handlers.c's table
                                (a listed scheme carries it in its row, an
                                unlisted one gets it from
                                urisan_scheme_unlisted) */

typedef struct {
    const char *name; /* lower-case */
    uint8_t len;
    uint8_t kind;     /* SCH_* */
    uint8_t bits;     /* SCHEME_* */
    int32_t port;     /* registered default port, -1: none */
} scheme_row;

/* The rows the inline lookups below answer without a search, in the
   table's first three places (tests/test_policy.c checks): the
   analysis' fast path reads their kind and bits as constants. */
#define SCHEME_ROW_HTTP  {"http", 4, SCH_SPECIAL, SCHEME_SLASH_PATH, 80}
#define SCHEME_ROW_HTTPS {"https", 5, SCH_SPECIAL, SCHEME_SLASH_PATH, 443}
#define SCHEME_ROW_FILE  {"file", 4, SCH_FILE, SCHEME_DANGEROUS | SCHEME_IN_TEXT, -1}

/*
 * The one scheme table (schemes.c): doc/policy.md "Default ports" (IANA
 * service names) and dangerous_scheme, the WHATWG special schemes, RFC 3986
 * 6.2.3 (empty path "/"), the opaque schemes extract finds in running
 * text. http, https, file first (SCHEME_ROW_*); then the most frequent
 * first: the search stops at the first match.
 */
extern const scheme_row urisan_scheme_table[];
extern const size_t urisan_scheme_rows;
#define URISAN_SCHEME_ROWS urisan_scheme_rows

/* The longest name in the table ("javascript"). */
#define SCHEME_MAX_LEN 10

/* urisan_scheme_find for names other than "http", "https" and "file". */
const scheme_row *urisan_scheme_find_rest(const char *s, size_t n);

/* handlers.c: the lower-case scheme lower[0..n) is a handler scheme
   (flag handler_scheme: the link starts a local program). */
bool urisan_handler_find(const char *lower, size_t n);

/* handlers.c: the row of a scheme the table does not list, s[0..n)
   (fold as below): kind SCH_OTHER, no port, len 0, bits SCHEME_HANDLER
   when handlers.c's table has it. */
scheme_row urisan_scheme_unlisted(const char *s, size_t n, unsigned fold);
/* The longest name of handlers.c's table may have this many bytes. */
#define HANDLER_NAME_MAX 31

/* 0, 1, 2 when s[0..n) is "http", "https", "file" (the table's first
   rows), else -1. fold: 0x20 when s may hold upper-case letters (ASCII
   case-insensitive), 0 when the caller folded it already (scheme
   characters "| 0x20" are their lower case): "| 0x20" maps only "H"
   and "h" to "h" (and so on). */
static inline int urisan_scheme_first_rows(const char *s, size_t n, unsigned fold)
{
    uint32_t w, http, file;
    memcpy(&http, "http", 4);
    memcpy(&file, "file", 4);
    /* "https" first: most links are https now */
    if (n == 5) {
        memcpy(&w, s, 4);
        if ((w | fold * 0x01010101u) == http && (s[4] | (char)fold) == 's')
            return 1;
    } else if (n == 4) {
        memcpy(&w, s, 4);
        w |= fold * 0x01010101u;
        if (w == http)
            return 0;
        if (w == file)
            return 2;
    }
    return -1;
}

/* The row of s[0..n), or NULL (fold as above). */
static inline const scheme_row *urisan_scheme_find_folded(const char *s, size_t n, unsigned fold)
{
    int i = urisan_scheme_first_rows(s, n, fold);
    return i >= 0 ? &urisan_scheme_table[i] : urisan_scheme_find_rest(s, n);
}

/* A copy of the row of s[0..n) (fold as above); a name the table does
   not list: urisan_scheme_unlisted's row. The analysis' form: the first
   rows are constants here, so its fast path reads no table. */
static inline scheme_row urisan_scheme_row_of(const char *s, size_t n, unsigned fold)
{
    const scheme_row *r;
    switch (urisan_scheme_first_rows(s, n, fold)) {
    case 0: return (scheme_row)SCHEME_ROW_HTTP;
    case 1: return (scheme_row)SCHEME_ROW_HTTPS;
    case 2: return (scheme_row)SCHEME_ROW_FILE;
    default:
        r = urisan_scheme_find_rest(s, n);
        return r != NULL ? *r : urisan_scheme_unlisted(s, n, fold);
    }
}

/* The row of s[0..n) (ASCII case-insensitive), or NULL. */
static inline const scheme_row *urisan_scheme_find(const char *s, size_t n)
{
    return urisan_scheme_find_folded(s, n, 0x20);
}

/* Kind of s[0..n) (case-insensitive): SCH_OTHER when not listed. */
static inline int urisan_scheme_kind(const char *s, size_t n)
{
    return urisan_scheme_row_of(s, n, 0x20).kind;
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

/*
 * dangerous_scheme: the scheme s[0..n) (any case), whose table row is
 * row (NULL: not listed), is marked SCHEME_DANGEROUS there or is one of
 * the overlay's entries (ov may be NULL). The one rule: the analysis and
 * urisan_scheme_dangerous decide by it.
 */
static inline bool urisan_scheme_row_dangerous(const scheme_row *row, const scheme_overlay *ov,
                                               const char *s, size_t n)
{
    return (row != NULL && (row->bits & SCHEME_DANGEROUS)) ||
           (ov != NULL && ov->n_dangerous > 0 && urisan_scheme_overlay_dangerous(ov, s, n));
}

/* Is s[0..n) (case-insensitive) a dangerous scheme (ov may be NULL)? */
bool urisan_scheme_dangerous(const scheme_overlay *ov, const char *s, size_t n);

/* Default port of s[0..n) (case-insensitive): the overlay's entry first,
   then the table; -1 when neither has one. ov may be NULL. */
int urisan_scheme_port(const scheme_overlay *ov, const char *s, size_t n);

#endif
