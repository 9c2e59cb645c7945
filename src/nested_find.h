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

#endif
