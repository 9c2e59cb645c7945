/*
 * schemes.h - the one scheme table (schemes.c) and a policy's overlay on
 * it. Everything the library knows about a scheme by its name - default
 * port, WHATWG kind, dangerous by default, recognised without "//" in
 * running text, empty path written "/" - is one row there; analyse,
 * normalise, extract and the policy read it through the lookups below.
 */
#ifndef URISAN_SCHEMES_H
#define URISAN_SCHEMES_H

#include "internal.h"

#include <string.h>

/* WHATWG kind of a scheme (URL Standard, "special scheme"). */
typedef enum {
    SCHEME_NONE = 0, /* no scheme at all (a relative reference) */
    SCHEME_SPECIAL,  /* http https ws wss ftp: "//" may be any run of / and \ */
    SCHEME_FILE,     /* file */
    SCHEME_OTHER     /* every other scheme, listed or not */
} scheme_kind;

/* Row bits. */
#define SCHEME_DANGEROUS  1u /* SPEC 3 dangerous_scheme by default */
#define SCHEME_IN_TEXT    2u /* extraction takes "name:" without "//" in
                                running text (opaque schemes mail carries,
                                and the dangerous ones a scanner must see) */
#define SCHEME_SLASH_PATH 4u /* RFC 3986 6.2.3: an empty path is "/" */

typedef struct {
    const char *name;  /* lower-case */
    uint8_t len;
    uint8_t kind;      /* scheme_kind */
    uint8_t bits;      /* SCHEME_* */
    int32_t port;      /* registered default port, -1: none */
} scheme_row;

/* The longest name in the table. */
#define SCHEME_MAX_LEN 10

/* The table; its first two rows are http and https (tests/test_analysis). */
extern const scheme_row urisan_scheme_table[];
extern const size_t urisan_scheme_rows;

/* urisan_scheme_find for names other than "http" and "https". */
const scheme_row *urisan_scheme_find_rest(const char *s, size_t n);

/* The row of s[0..n) (ASCII case-insensitive), or NULL. */
static inline const scheme_row *urisan_scheme_find(const char *s, size_t n)
{
    /* "http" and "https" in any case: "| 0x20" maps only "H" and "h" to
       "h" (and so on) */
    if (n == 4 || n == 5) {
        uint32_t w, http;
        memcpy(&w, s, 4);
        memcpy(&http, "http", 4);
        if ((w | 0x20202020u) == http && (n == 4 || (s[4] | 0x20) == 's'))
            return &urisan_scheme_table[n - 4];
    }
    return urisan_scheme_find_rest(s, n);
}

/* Kind of s[0..n) (case-insensitive); SCHEME_OTHER when not listed. */
static inline scheme_kind urisan_scheme_kind(const char *s, size_t n)
{
    const scheme_row *r = urisan_scheme_find(s, n);
    return r != NULL ? (scheme_kind)r->kind : SCHEME_OTHER;
}

/* ---- a policy's own entries on top of the table ---- */
typedef struct {
    uint32_t off, len; /* into a name pool */
} pol_str;

typedef struct {
    pol_str name;
    uint16_t port;
} pol_defport;

/* What a policy adds to the table (risk.h builds one from a policy; the
   analysis is handed it, so it never calls into policy.c). Names in the
   pool are lower-case. */
typedef struct {
    const char *pool;
    const pol_str *dangerous;
    size_t n_dangerous;
    const pol_defport *defport;
    size_t n_defport;
} scheme_overlay;

/* Is s[0..n) (case-insensitive) a dangerous scheme: a row marked
   SCHEME_DANGEROUS or one of the overlay's entries (ov may be NULL)? */
bool urisan_scheme_dangerous(const scheme_overlay *ov, const char *s, size_t n);

/* Default port of s[0..n) (case-insensitive): the overlay's entry first,
   then the table; -1 when neither has one. ov may be NULL. */
int urisan_scheme_port(const scheme_overlay *ov, const char *s, size_t n);

/* Case-insensitive compare of s[0..n) with the lower-case pool string e. */
static inline bool pool_ieq(const char *pool, pol_str e, const char *s, size_t n)
{
    if (e.len != n)
        return false;
    const char *a = pool + e.off;
    for (size_t i = 0; i < n; i++)
        if (lower_ascii((unsigned char)s[i]) != (unsigned char)a[i])
            return false;
    return true;
}

#endif
