/*
 * nested_find.h - which parameter values of a URI are nested URLs
 * (nested_find.c): the parameter iterator, the percent-decoder and the
 * test of a value's start, shared by the analysis (urisan_nested_any,
 * which sets nested_url) and the walk that analyses each nested URL
 * (nested.c). The finder calls nothing of the analysis, so the analysis
 * and the walk do not call each other in a cycle.
 */
#ifndef URISAN_NESTED_FIND_H
#define URISAN_NESTED_FIND_H

#include "internal.h"

/* The parameters of a query, then of a fragment. */
typedef struct {
    const char *t;
    size_t pos, end;  /* what is left of the current part */
    size_t fs, fe;    /* the fragment, still to come; fs == ABSENT: none */
} param_iter;

/* Parameters ("&"/";"-separated name "=" value) of u's query, then of its
   fragment, over t[0..len). */
void urisan_params_init(param_iter *it, const char *t, size_t len, const urisan_uri *u);
/* The next parameter with an "=": name t[*ns..*vs - 1), value t[*vs..*ve). */
bool urisan_params_next(param_iter *it, size_t *ns, size_t *vs, size_t *ve);
/* 1: v[0..n) decoded once is a nested URL, 2: only decoded twice, 0: none. */
unsigned urisan_nested_decodes(const char *v, size_t n);
/* Percent-decode s[0..n) once into out[0..cap) (out may be s); peek: only
   the part that decides. Returns the bytes written; *esc: some escape. */
size_t urisan_nested_decode(const char *s, size_t n, char *out, size_t cap, bool peek, bool *esc);
/* Leading C0 controls and spaces (the WHATWG URL parser strips them). */
size_t urisan_nested_blanks(const char *b, size_t n);

#endif
