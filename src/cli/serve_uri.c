/*
 * serve_uri.c - serve's answer to an authorization sub-request
 * (serve_uri.h): the request judged by the library's one request
 * judgement (urisan_judge_request: the URI rebuilt from the request's
 * parts, then the one decision), the reasons as headers.
 */
#include "serve_uri.h"
#include "decide.h"

#include <string.h>

void serve_trust_default(urisan_request_trust *t)
{
    size_t off, len;
    urisan_request_trust_parse(SERVE_TRUST_DEFAULT, strlen(SERVE_TRUST_DEFAULT), t, &off, &len);
}

bool serve_trust_parse(const char *list, size_t len, urisan_request_trust *t,
                       const char **bad, size_t *badlen)
{
    size_t off = 0;
    if (urisan_request_trust_parse(list, len, t, &off, badlen) == URISAN_OK)
        return true;
    *bad = list + off;
    return false;
}

/* ---- the answer ---- */

typedef struct {
    char *p;
    size_t len;
} words_t;

/* Append a name to a comma-separated list of at most SERVE_REASONS_MAX
   - 1 bytes; every name fits (SERVE_REASONS_MAX is above the sum). */
static void add_word(words_t *w, const char *name)
{
    size_t n = strlen(name);
    if (w->len + n + 2 > SERVE_REASONS_MAX)
        return;
    if (w->len > 0)
        w->p[w->len++] = ',';
    memcpy(w->p + w->len, name, n);
    w->len += n;
    w->p[w->len] = '\0';
}

static void finish_words(words_t *w)
{
    if (w->len == 0) {
        w->p[0] = '-';
        w->p[1] = '\0';
    }
}

/* The names of the flags f, then of the rules, into the empty list w
   (urisan_reasons_format: the lists `urisan check` prints); every name
   fits (test_serve_uri: all of them). */
static void add_reasons(words_t *w, urisan_flags f, unsigned rules)
{
    size_t n = 0;
    if (w->len == 0 && urisan_reasons_format(f, rules, w->p, SERVE_REASONS_MAX, &n) == URISAN_OK)
        w->len = n;
}

/* The length of p's text (urisan_policy_format), measured only. */
static size_t policy_text_len(const urisan_policy *p)
{
    size_t n = 0;
    urisan_policy_format(p, NULL, 0, &n);
    return n;
}

bool serve_policy_make(serve_policy *sp, urisan_policy *loaded, urisan_policy *judge)
{
    /* A line the policy already holds leaves its text as it was: so each
       step tells whether the loaded policy said it. require-absolute
       changes no decision once require-authority is on (both give
       not_absolute); it is added only to learn whether not_absolute is
       the loaded policy's. */
    size_t line;
    const char *msg;
    size_t n0 = policy_text_len(loaded);
    memcpy(judge, loaded, urisan_policy_size());
    if (urisan_policy_parse(judge, "require-absolute\n", 17, &line, &msg) != URISAN_OK)
        return false;
    size_t n1 = policy_text_len(judge);
    if (urisan_policy_parse(judge, "require-authority\n", 18, &line, &msg) != URISAN_OK)
        return false;
    bool authority = policy_text_len(judge) != n1;
    sp->loaded = loaded;
    sp->judge = judge;
    sp->own_rules = 0;
    if (authority)
        sp->own_rules = 1u << URISAN_REASON_NO_AUTHORITY |
                        (n1 != n0 ? 1u << URISAN_REASON_NOT_ABSOLUTE : 0);
    return true;
}

void serve_decide(const urisan_request *r, const urisan_request_trust *t,
                  const serve_policy *sp, char *buf, size_t cap,
                  serve_answer *a)
{
    words_t deny = { a->deny, 0 }, flag = { a->flag, 0 };
    a->deny[0] = a->flag[0] = '\0';
    a->status = 403;
    a->verdict = URISAN_DENY;
    a->uri_len = 0;
    memset(&a->dec, 0, sizeof a->dec);
    a->own = NULL;
    a->explain = NULL;

    urisan_decision dec;
    urisan_status st = cli_decide_request(r, t, sp->judge, buf, cap, &a->uri_status,
                                          &a->uri_len, &dec);
    if (a->uri_status != URISAN_REQUEST_OK) {
        add_word(&deny, a->own = urisan_request_reason_name(a->uri_status));
    } else {
        if (st == URISAN_E_BAD_ARGUMENT || st == URISAN_E_NOSPACE ||
            st == URISAN_E_BAD_POLICY) {
            add_word(&deny, a->own = urisan_status_name(st));   /* could not judge */
        } else {
            a->verdict = dec.verdict;
            a->dec = dec;
            if (dec.verdict == URISAN_DENY)
                add_reasons(&deny, dec.deny_flags, dec.rules);
            if (dec.verdict != URISAN_ALLOW)
                add_reasons(&flag, dec.flag_flags, 0);
            if (a->verdict == URISAN_DENY && deny.len == 0)
                add_word(&deny, a->own = "denied");
        }
    }
    a->status = a->verdict == URISAN_DENY ? 403 : 200;
    finish_words(&deny);
    finish_words(&flag);
}
