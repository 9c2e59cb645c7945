/*
 * policy_lint.c - what `urisan policy check` adds to the parse of a
 * policy text (policy_parse.c calls these): the names a mistyped word
 * was probably meant to be, and whether one host rule covers another.
 * No allocation, no recursion; bounded work per word.
 */
#include "policy_lint.h"
#include "risk.h"

#include <string.h>

/* Every directive of the policy language (doc/policy.md), for "did you
   mean". policy_parse.c knows each by name. */
static const char *const directive_names[] = {
    "profile",      "deny",         "flag",         "allow",        "allow-scheme",
    "allow-port",   "deny-host",    "allow-host",   "dangerous-scheme", "deny-ip",
    "allow-ip",     "limit",        "default-port", "require-absolute", "require-authority",
    "nested-depth", "protect-host", "user-content-host", "shortener-host", "deny-combined",
};

#define SUGGEST_MAX 40 /* longer words get no suggestion */

/* Optimal string alignment distance of a[0..an) and b[0..bn) (edits:
   insert, delete, substitute, swap two neighbours), both <= SUGGEST_MAX,
   ASCII case-insensitive. Three rows on the stack. */
static size_t distance(const char *a, size_t an, const char *b, size_t bn)
{
    size_t rows[3][SUGGEST_MAX + 1];
    size_t *pp = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= bn; j++)
        prev[j] = j;
    for (size_t i = 1; i <= an; i++) {
        cur[0] = i;
        unsigned char ca = lower_ascii((unsigned char)a[i - 1]);
        for (size_t j = 1; j <= bn; j++) {
            unsigned char cb = lower_ascii((unsigned char)b[j - 1]);
            size_t best = prev[j - 1] + (ca != cb);
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            if (i > 1 && j > 1 && ca == lower_ascii((unsigned char)b[j - 2]) &&
                lower_ascii((unsigned char)a[i - 2]) == cb && pp[j - 2] + 1 < best)
                best = pp[j - 2] + 1;
            cur[j] = best;
        }
        size_t *t = pp;
        pp = prev;
        prev = cur;
        cur = t;
    }
    return prev[bn];
}

/* Close enough to be a typo: at most 2 edits, and fewer than a third of
   the name (so "ip" is no suggestion for "id"). */
static bool close_to(const char *w, size_t n, const char *name, size_t *best)
{
    size_t m = strlen(name);
    if (m > SUGGEST_MAX)
        return false;
    size_t d = distance(w, n, name, m);
    if (d == 0 || d > 2 || d * 3 > m || d >= *best)
        return false;
    *best = d;
    return true;
}

const char *urisan_pol_suggest(const char *w, size_t n, bool directive)
{
    if (w == NULL || n == 0 || n > SUGGEST_MAX)
        return NULL;
    const char *found = NULL;
    size_t best = (size_t)-1;
    if (directive) {
        for (size_t i = 0; i < sizeof directive_names / sizeof directive_names[0]; i++)
            if (close_to(w, n, directive_names[i], &best))
                found = directive_names[i];
        return found;
    }
    for (unsigned b = 0; b < 64; b++) {
        const char *name = urisan_flag_name((urisan_flag)b);
        if (name != NULL && (URISAN_ALL_FLAGS >> b & 1) && close_to(w, n, name, &best))
            found = name;
    }
    return found;
}

/* s[0..n) ends with "." t[0..tn) */
static bool below(const char *s, size_t n, const char *t, size_t tn)
{
    return n > tn && s[n - tn - 1] == '.' && memcmp(s + n - tn, t, tn) == 0;
}

/*
 * Does every host rule f matches also match rule e? Rules as stored
 * (policy_parse.c host_list): lower-case "x" (x only), ".x" (x and the
 * names below it), "*.x" (the names below x only).
 */
bool urisan_pol_host_covers(const char *e, size_t en, const char *f, size_t fn)
{
    if (en == fn && memcmp(e, f, en) == 0)
        return true;
    bool e_dot = en > 1 && e[0] == '.', e_star = en > 2 && e[0] == '*' && e[1] == '.';
    if (!e_dot && !e_star)
        return false; /* x covers only itself */
    const char *x = e + (e_dot ? 1 : 2);
    size_t xn = en - (e_dot ? 1 : 2);
    /* the name f stands for (its apex), and whether f matches that apex */
    size_t skip = (fn > 1 && f[0] == '.') ? 1 : (fn > 2 && f[0] == '*' && f[1] == '.') ? 2 : 0;
    const char *y = f + skip;
    size_t yn = fn - skip;
    bool f_has_apex = skip != 2;
    if (yn == xn && memcmp(x, y, xn) == 0)
        return e_dot || !f_has_apex; /* ".x" covers x, ".x", "*.x"; "*.x" covers "*.x" */
    return below(y, yn, x, xn);
}
