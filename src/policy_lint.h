/*
 * policy_lint.h - a policy text checked whole (`urisan policy check`):
 * every mistake and every warning, each with its line, column and word.
 * Internal to the library and the command; never installed.
 */
#ifndef URISAN_POLICY_LINT_H
#define URISAN_POLICY_LINT_H

#include "urisan.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct pol_diag_ {
    bool warning;             /* false: a mistake (the text is refused) */
    size_t line, column;      /* 1-based */
    size_t word_off, word_len; /* the word in the text */
    const char *msg;
    const char *other_msg;    /* NULL, or what `other` is ("deny-host holds") */
    const char *other;        /* a second word (NUL-free, other_len bytes) */
    size_t other_len;
    size_t other_line;        /* the earlier line a warning refers to; 0 none */
    const char *hint;         /* a known name close to the word, or NULL */
} pol_diag;

typedef void (*pol_diag_fn)(void *ctx, const pol_diag *d);

/*
 * Parse text into p (urisan_policy_init first) as urisan_policy_parse_ex
 * does, but go on after a mistake - with the next word of a list, else
 * the next line - and report each mistake and each warning to fn in the
 * order of the text (warnings about the whole policy last). Returns the
 * number of mistakes; the first one is the mistake urisan_policy_parse_ex
 * reports. With mistakes *p holds what parsed and is no policy to use.
 * Warnings: a duplicate entry, a rule that undoes an earlier rule of the
 * text, an allow-host entry overlapping a deny-host entry, `*.x` that
 * leaves x out, a nested: rule on a flag no nested URL carries.
 */
size_t urisan_pol_lint(urisan_policy *p, const char *text, size_t len, pol_diag_fn fn, void *ctx);
/* The same refusing the flags in refuse as urisan_policy_parse_refuse
   does (a mistake at each deny or flag word naming one). */
size_t urisan_pol_lint_refuse(urisan_policy *p, const char *text, size_t len, urisan_flags refuse,
                              pol_diag_fn fn, void *ctx);

/* A flag name (directive false) or directive name (true) within a small
   edit distance of w[0..n), for "did you mean"; NULL: none close. */
const char *urisan_pol_suggest(const char *w, size_t n, bool directive);

/* Every host rule f (as stored: "x", ".x", "*.x", lower-case) matches
   also matches rule e. */
bool urisan_pol_host_covers(const char *e, size_t en, const char *f, size_t fn);

#endif
