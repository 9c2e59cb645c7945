/*
 * policy_util.h - what the policy tests share (test_decision.c,
 * test_policy_ip.c, test_policy_random.c): a policy from text, a guarded
 * urisan_check, and a mistake's line, column, message and word held to
 * what the test expects. Check tests only (ck_assert).
 */
#ifndef URISAN_POLICY_UTIL_H
#define URISAN_POLICY_UTIL_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "urisan.h"

static inline urisan_policy *new_policy(void)
{
    urisan_policy *p = malloc(urisan_policy_size());
    ck_assert_ptr_nonnull(p);
    urisan_policy_init(p);
    return p;
}

static inline urisan_policy *policy_of(const char *text)
{
    urisan_policy *p = new_policy();
    urisan_policy_error e;
    urisan_status st = urisan_policy_parse_ex(p, text, strlen(text), &e);
    ck_assert_msg(st == URISAN_OK, "policy %s: %zu:%zu: %s", text, e.line, e.column,
                  e.msg ? e.msg : "");
    return p;
}

/* urisan_check of in, flush against a PROT_NONE page */
static inline urisan_decision check(const urisan_policy *p, const char *in)
{
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    guard_buf g = {0};
    size_t len = strlen(in);
    const char *s = guard_place(&g, in, len);
    urisan_check(s, len, p, &u, &r, &d);
    guard_free(&g);
    return d;
}

typedef struct {
    const char *text;
    size_t line, column;
    const char *word;     /* NULL: no word */
    const char *msg_part;
} mistake;

/* The text fails at m's line and column, its message holds msg_part and
   the error names m's word. */
static inline void check_mistake(const mistake *m)
{
    urisan_policy *p = new_policy();
    size_t len = strlen(m->text);
    guard_buf g = {0};
    const char *s = guard_place(&g, m->text, len);
    urisan_policy_error e;
    ck_assert_msg(urisan_policy_parse_ex(p, s, len, &e) == URISAN_E_BAD_POLICY, "%s: accepted",
                  m->text);
    ck_assert_msg(e.line == m->line && e.column == m->column, "%s: %zu:%zu, want %zu:%zu",
                  m->text, e.line, e.column, m->line, m->column);
    ck_assert_ptr_nonnull(e.msg);
    ck_assert_msg(strstr(e.msg, m->msg_part) != NULL, "%s: '%s' lacks '%s'", m->text, e.msg,
                  m->msg_part);
    if (m->word != NULL) {
        ck_assert_uint_eq(e.word_len, strlen(m->word));
        ck_assert_msg(memcmp(m->text + e.word_off, m->word, e.word_len) == 0, "%s: word", m->text);
    }
    guard_free(&g);
    free(p);
}

#endif
