/*
 * nested_find.h - which parameter values of a URI are nested URLs
 * (nested_find.c): the parameter iterator, the percent-decoder, the test
 * of a value's start and the client's reading of a value, shared by the
 * analysis (urisan_nested_any, which sets nested_url) and the walk that
 * analyses each nested URL (nested.c). The finder calls nothing of the
 * analysis, so the analysis and the walk do not call each other in a
 * cycle.
 */
#ifndef URISAN_NESTED_FIND_H
#define URISAN_NESTED_FIND_H

#include "internal.h"

/* The parameters of a query, then of a fragment: "&"-separated, and the
   ";"-separated pieces of a parameter whose value holds a ";". */
typedef struct {
    const char *t;
    size_t pos, end;  /* what is left of the current part */
    size_t fs, fe;    /* the fragment, still to come; fs == ABSENT: none */
    size_t ss, se;    /* ";" pieces of the last parameter still to come */
} param_iter;

/* Parameters (name "=" value) of u's query, then of its fragment, over
   t[0..len): split on "&" (WHATWG application/x-www-form-urlencoded), and
   each one whose value holds a ";" once more on ";" (Rack 2, Python
   before 3.9.2, HTML 4.01 B.2.2). */
void urisan_params_init(param_iter *it, const char *t, size_t len, const urisan_uri *u);
/* The next parameter with an "=": name t[*ns..*vs - 1), value t[*vs..*ve). */
bool urisan_params_next(param_iter *it, size_t *ns, size_t *vs, size_t *ve);

/* Which readings of the value v[0..n) are nested URLs: NESTED_ONCE
   (percent-decoded once), NESTED_TWICE (decoded twice, and that differs
   from once: asked only with all, or when once is none). */
#define NESTED_ONCE 1u
#define NESTED_TWICE 2u
unsigned urisan_nested_reads(const char *v, size_t n, bool all);
/* Percent-decode s[0..n) once into out[0..n) (out may be s). Returns the
   bytes written; *esc: some escape. */
size_t urisan_nested_decode(const char *s, size_t n, char *out, bool *esc);
/* Leading C0 controls and spaces (the WHATWG URL parser strips them). */
size_t urisan_nested_blanks(const char *b, size_t n);
/* The URL a client reads in the decoded value s[0..n), into out[0..cap):
   see nested_find.c. -1: it does not fit; 0: it is s[lead..n) as it is
   (nothing written); 1: written, *m bytes. */
int urisan_nested_client(const char *s, size_t n, size_t lead, char *out, size_t cap, size_t *m);

/*
 * Unicode white space beyond ASCII that Python's str.strip() and
 * JavaScript's String.prototype.trim() remove from both ends of a value
 * (and the WHATWG URL parser does not): U+0085, U+00A0, U+1680,
 * U+2000-200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF. An
 * application that strips a parameter before it fetches it reads what
 * follows: "%C2%A0http://169.254.169.254/" is a URL to it.
 */
/* Can byte c start one (C2 E1 E2 E3 EF)? */
static inline bool urisan_uspace_lead(unsigned c)
{
    return c == 0xC2 || c == 0xE1 || c == 0xE2 || c == 0xE3 || c == 0xEF;
}
/* The length of the UTF-8 of such a character at s[0..n): 2 or 3; 0: none. */
static inline size_t urisan_uspace_len(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    if (n >= 2 && u[0] == 0xC2)
        return u[1] == 0x85 || u[1] == 0xA0 ? 2 : 0;
    if (n < 3)
        return 0;
    unsigned a = u[0], b = u[1], c = u[2];
    if (a == 0xE2 && b == 0x80)
        return c <= 0x8A ? (c >= 0x80 ? 3 : 0) : (c == 0xA8 || c == 0xA9 || c == 0xAF) ? 3 : 0;
    if ((a == 0xE1 && b == 0x9A && c == 0x80) || (a == 0xE2 && b == 0x81 && c == 0x9F) ||
        (a == 0xE3 && b == 0x80 && c == 0x80) || (a == 0xEF && b == 0xBB && c == 0xBF))
        return 3;
    return 0;
}
/* The length of such a character that ends s[0..n): 2 or 3; 0: none. */
static inline size_t urisan_uspace_tail(const char *s, size_t n)
{
    if (n >= 2 && urisan_uspace_len(s + n - 2, 2) == 2)
        return 2;
    if (n >= 3 && urisan_uspace_len(s + n - 3, 3) == 3)
        return 3;
    return 0;
}

#endif
