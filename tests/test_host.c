/*
 * test_host.c - the host layer's shortcuts (src/host) give the answer of
 * its full path: an ASCII host without an A-label takes no libidn2/ICU
 * call (its skeleton from a per-byte table), and a host seen before is
 * answered from the context's memo of views (memo.c);
 * host_view_compute(..., false) does every host through libidn2 and
 * ICU. Compared field by field on
 * generated hosts (every printable byte, case, escapes, lengths around
 * the cache key and the skeleton buffer, A-label look-alikes), on every
 * host of the shared URL lists, and twice each (cache miss, then hit).
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "memo.h"
#include "quiet_check.h"
#include "testdata.h"

static urisan_hostview fast, full;
static urisan_host_ctx *ctx;   /* the fast path's memo and caches */

static void same_view(const char *host, size_t len)
{
    for (int round = 0; round < 2; round++) {
        bool a = urisan_host_view(ctx, host, len, &fast);
        bool b = host_view_compute(host, len, &full, false);
        qc_assert_msg(a == b, "return differs for '%.*s'", (int)len, host);
        qc_assert_msg(fast.is_name == full.is_name && fast.idn == full.idn &&
                      fast.invisible == full.invisible && fast.why == full.why &&
                      fast.flags == full.flags, "facts differ for '%.*s'", (int)len, host);
        qc_assert_str_eq(fast.unicode, full.unicode);
        qc_assert_str_eq(fast.ascii, full.ascii);
        qc_assert_str_eq(fast.skeleton, full.skeleton);
        qc_assert_str_eq(fast.registrable, full.registrable);
        qc_assert_str_eq(fast.imitates, full.imitates);
        /* the lengths the writers copy by (set by the view and the memo) */
        const urisan_hostview *both[] = { &fast, &full };
        for (size_t k = 0; k < 2; k++) {
            qc_assert_uint_eq(both[k]->unicode_len, strlen(both[k]->unicode));
            qc_assert_uint_eq(both[k]->skeleton_len, strlen(both[k]->skeleton));
            qc_assert_uint_eq(both[k]->imitates_len, strlen(both[k]->imitates));
            qc_assert_uint_eq(both[k]->registrable_len, strlen(both[k]->registrable));
        }
        /* json_plain promises each form is its own JSON text */
        if (urisan_hv_json_plain(&fast)) {
            const char *forms[] = { fast.unicode, fast.skeleton, fast.imitates, fast.registrable };
            for (size_t k = 0; k < 4; k++)
                qc_assert_msg(json_plain_len(forms[k], strlen(forms[k])) == strlen(forms[k]),
                              "json_plain but '%s' needs escaping (host '%.*s')", forms[k],
                              (int)len, host);
        }
    }
}

static void same_views(const char *host)
{
    same_view(host, strlen(host));
}

START_TEST(every_printable_byte_in_a_host_gives_the_full_answer)
{
    char h[64];
    for (int c = 0x21; c <= 0x7f; c++) {
        snprintf(h, sizeof h, "a%cb.example.com", c);
        same_views(h);
        snprintf(h, sizeof h, "%c.co.uk", c);
        same_views(h);
        snprintf(h, sizeof h, "www.%c", c);
        same_views(h);
        snprintf(h, sizeof h, "%%%02X.example.org", c);   /* as an escape */
        same_views(h);
    }
}
END_TEST

START_TEST(hand_picked_hosts_give_the_full_answer)
{
    static const char *hosts[] = {
        "example.com", "EXAMPLE.COM", "Www.Example.Co.Uk", "example.com.",
        "a..b.com", ".example.com", "-a.com", "a-.com", "ab--cd.com", "xn--.com",
        "xn--pple-43d.com", "XN--PPLE-43D.COM", "a.xn--p1ai", "axn--b.com",
        "%78n--pple-43d.com", "%C3%A9xample.com", "\xc3\xa9xample.com",
        "a_b.example.com", "under_score", "localhost", "com", "co.uk",
        "foo.bar.kawasaki.jp", "city.kawasaki.jp", "www.ck", "a.b.ck",
        "github.io", "user.github.io", "0x7f.1", "1.2.3.4", "a.123", "a.0x1f",
        "rn.m.l1I0O.com", "%2e%2e.com", "a%2fb.com", "a%00b.com", "mil", "gov.uk",
        "%", "%%", "%4", "a%ZZb.com", "a%22b.com", "a\\b.com", "a%5cb.com", "a%7fb.com",
        "a\"b.com", "a%60b.com", "a%27%27b.com",
    };
    for (size_t i = 0; i < sizeof hosts / sizeof hosts[0]; i++)
        same_views(hosts[i]);
}
END_TEST

START_TEST(lengths_around_the_cache_keys_and_the_buffers_give_the_full_answer)
{
    static char h[3 * URISAN_HOSTVIEW_MAX + 8];
    static const size_t lens[] = { 1, 15, 16, 17, 23, 24, 25, 58, 59, 60, 61, 62, 63, 64, 65,
                                   47, 48, 49, 200, 253, 254,
                                   600, 1000, 1022, 1023, 1024, 1025, 3071, 3072 };
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        size_t n = lens[k];
        for (size_t i = 0; i < n; i++)
            h[i] = (i % 8 == 7) ? '.' : (char)('a' + i % 26);
        if (n > 4) {
            memcpy(h + n - 4, ".com", 4);
        }
        same_view(h, n);
        for (size_t i = 0; i < n; i++)      /* "m" skeletons to "rn": 2x */
            h[i] = (i % 8 == 7) ? '.' : 'm';
        same_view(h, n);
    }
}
END_TEST

/* Every host of the shared URL lists (authority between "//" and the
   next '/', '?', '#', after any '@', before a port). */
START_TEST(every_host_of_the_shared_url_lists_gives_the_full_answer)
{
    static const char *files[] = {"kasztp.txt", "userbait.txt", "node_files.txt",
                                  "isaacs_files.txt"};
    size_t hosts = 0;
    for (size_t fi = 0; fi < sizeof files / sizeof files[0]; fi++) {
        FILE *fp = testdata_open("urls", files[fi]);
        if (!fp)
            continue;
        char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        while ((n = getline(&line, &cap, fp)) > 0) {
            char *p = strstr(line, "//");
            if (p == NULL)
                continue;
            p += 2;
            size_t e = strcspn(p, "/?#\r\n");
            char *at = memchr(p, '@', e);
            if (at != NULL) {
                e -= (size_t)(at + 1 - p);
                p = at + 1;
            }
            char *colon = memchr(p, ':', e);
            if (colon != NULL && *p != '[')
                e = (size_t)(colon - p);
            same_view(p, e);
            hosts++;
        }
        free(line);
        fclose(fp);
    }
    printf("hostview: %zu hosts of the shared lists compared\n", hosts);
}
END_TEST

/* More hosts than the memo has slots (hostmemo.h: cuckoo hashing, the
   last one moved out of a full pair is dropped): every one looked at
   after that still gets the full answer, whether kept, moved or dropped. */
START_TEST(more_hosts_than_memo_slots_give_the_full_answer)
{
    char h[64];
    const unsigned total = 2 * HOSTMEMO_SLOTS;
    for (unsigned i = 0; i < total; i++) {
        int n = snprintf(h, sizeof h, "h%u.rn%u.example.co.uk", i, i % 977);
        (void)urisan_host_view(ctx, h, (size_t)n, &fast);
    }
    for (unsigned i = 0; i < total; i += 131) {
        int n = snprintf(h, sizeof h, "h%u.rn%u.example.co.uk", i, i % 977);
        same_view(h, (size_t)n);
    }
}
END_TEST

/* Threads whose contexts share one memo (urisan_host_ctx_new_sharing):
   each views the same hosts, in its own order, while the others keep
   them, move them (three quarters of the slots fill) and read them;
   every view is the full answer. Run under ThreadSanitizer too (the
   memo's look-ups take no lock). */
#define SHARE_THREADS 3
#define SHARE_HOSTS (HOSTMEMO_SLOTS / 4 * 3)   /* cuckoo moves at this load */
typedef struct {
    urisan_host_ctx *c;
    unsigned first;      /* where this thread starts in the hosts */
    unsigned differ;     /* views that were not the full answer */
    unsigned compared;
} share_arg;

/* Every fact and form (json_plain: only the shortcut's, same_view) */
static bool views_equal(const urisan_hostview *a, const urisan_hostview *b)
{
    return a->is_name == b->is_name && a->idn == b->idn && a->invisible == b->invisible &&
           a->why == b->why && a->flags == b->flags && a->uts46 == b->uts46 &&
           strcmp(a->unicode, b->unicode) == 0 &&
           strcmp(a->ascii, b->ascii) == 0 && strcmp(a->skeleton, b->skeleton) == 0 &&
           strcmp(a->registrable, b->registrable) == 0 &&
           strcmp(a->imitates, b->imitates) == 0 && a->unicode_len == b->unicode_len &&
           a->skeleton_len == b->skeleton_len && a->imitates_len == b->imitates_len &&
           a->registrable_len == b->registrable_len;
}

static int share_host(char *h, size_t cap, unsigned i)
{
    static const char *const tld[] = { "com", "co.uk", "xn--p1ai", "de", "github.io" };
    return snprintf(h, cap, "%s%u.s%u.%s", i % 7 == 0 ? "xn--pple-43d." : "h", i, i % 613,
                    tld[i % 5]);
}

static void *share_thread(void *p)
{
    share_arg *a = p;
    static _Thread_local urisan_hostview got, want;
    char h[96];
    for (unsigned pass = 0; pass < 2; pass++) {
        for (unsigned k = 0; k < SHARE_HOSTS; k++) {
            unsigned i = (a->first + k * 7919u) % SHARE_HOSTS;   /* a stride prime to it */
            int n = share_host(h, sizeof h, i);
            bool r = urisan_host_view(a->c, h, (size_t)n, &got);
            if (k % 17 != pass)
                continue;
            bool r2 = host_view_compute(h, (size_t)n, &want, false);
            a->compared++;
            if (r != r2 || !views_equal(&got, &want))
                a->differ++;
        }
    }
    return NULL;
}

START_TEST(threads_sharing_one_memo_give_the_full_answer)
{
    urisan_host_ctx *own = urisan_host_ctx_new();
    ck_assert_ptr_nonnull(own);
    ck_assert_ptr_null(urisan_host_ctx_new_sharing(own));   /* its memo is its own */
    urisan_host_ctx_free(own);
    share_arg a[SHARE_THREADS];
    pthread_t th[SHARE_THREADS];
    for (unsigned t = 0; t < SHARE_THREADS; t++) {
        a[t] = (share_arg){ urisan_host_ctx_new_sharing(t > 0 ? a[0].c : NULL),
                            t * (SHARE_HOSTS / SHARE_THREADS), 0, 0 };
        ck_assert_ptr_nonnull(a[t].c);
    }
    for (unsigned t = 0; t < SHARE_THREADS; t++)
        ck_assert_int_eq(pthread_create(&th[t], NULL, share_thread, &a[t]), 0);
    for (unsigned t = 0; t < SHARE_THREADS; t++) {
        pthread_join(th[t], NULL);
        ck_assert_msg(a[t].differ == 0, "thread %u: %u of %u views differ", t, a[t].differ,
                      a[t].compared);
        ck_assert_uint_gt(a[t].compared, 0);
    }
    /* freed in any order: the memo goes with the last */
    urisan_host_ctx_free(a[0].c);
    for (unsigned t = 1; t < SHARE_THREADS; t++)
        urisan_host_ctx_free(a[t].c);
}
END_TEST

/* The last host's view of c on uri: its view is urisan_host_view_uri's
   (a context of its own); returns whether it looked again (a mark left in
   the kept view's internal bits, which every new view overwrites, is
   gone). */
#define KEPT_MARK 0x80u
static bool last_view(urisan_host_ctx *c, const char *uri)
{
    static urisan_host_ctx *other;
    if (other == NULL)
        other = urisan_host_ctx_new();
    c->last.hv.internal |= KEPT_MARK;
    urisan_uri u;
    urisan_parse(uri, strlen(uri), NULL, &u, NULL);
    bool a = host_view_last(c, uri, strlen(uri), &u);
    bool b = urisan_host_view_uri(other, uri, strlen(uri), &full);
    const urisan_hostview *hv = &c->last.hv;
    ck_assert_msg(a == b, "return differs for '%s'", uri);
    ck_assert_msg(hv->is_name == full.is_name && hv->why == full.why &&
                  hv->flags == full.flags, "facts differ for '%s'", uri);
    ck_assert_str_eq(hv->unicode, full.unicode);
    ck_assert_str_eq(hv->skeleton, full.skeleton);
    ck_assert_str_eq(hv->registrable, full.registrable);
    ck_assert_str_eq(hv->imitates, full.imitates);
    bool again = !(hv->internal & KEPT_MARK);
    c->last.hv.internal &= (unsigned char)~KEPT_MARK;
    return again;
}

START_TEST(the_last_host_is_looked_at_again_only_when_its_bytes_change)
{
    urisan_host_ctx *c = urisan_host_ctx_new();
    ck_assert_ptr_nonnull(c);
    ck_assert(last_view(c, "http://example.com/a"));
    ck_assert(!last_view(c, "https://example.com:8080/b?c"));
    ck_assert(!last_view(c, "ftp://user@example.com/"));
    ck_assert(last_view(c, "http://EXAMPLE.com/"));        /* other bytes */
    ck_assert(last_view(c, "http://xn--pple-43d.com/"));
    ck_assert(!last_view(c, "http://xn--pple-43d.com/x"));
    ck_assert(last_view(c, "http://[::1]/"));              /* no name: "" */
    ck_assert(!last_view(c, "http://[2001:db8::1]/"));
    ck_assert(!last_view(c, "urn:isbn:0451450523"));       /* no host: "" */
    ck_assert(last_view(c, "mailto:a@example.org"));       /* the address's */
    ck_assert(!last_view(c, "mailto:b@example.org,c@example.net"));
    ck_assert(last_view(c, "mailto:nobody"));
    /* a host longer than HOST_LAST_KEY is looked at every time */
    char uri[200];
    char host[HOST_LAST_KEY + 8];
    for (size_t i = 0; i < sizeof host - 1; i++)   /* labels of 7 */
        host[i] = i % 8 == 7 ? '.' : 'a';
    host[sizeof host - 1] = '\0';
    memcpy(host + sizeof host - 5, ".com", 4);
    snprintf(uri, sizeof uri, "http://%s/", host);
    ck_assert(last_view(c, uri));
    ck_assert(last_view(c, uri));
    /* one of exactly HOST_LAST_KEY bytes is kept */
    host[HOST_LAST_KEY] = '\0';
    memcpy(host + HOST_LAST_KEY - 4, ".com", 4);
    snprintf(uri, sizeof uri, "http://%s/", host);
    ck_assert(last_view(c, uri));
    ck_assert(!last_view(c, uri));
    urisan_host_ctx_free(c);
}
END_TEST

/* The view a line keeps for the next line with the same host bytes is
   the view of those bytes alone: once a policy that protects names has
   judged it (the imitated name written into it), the next line's view is
   made anew, as a fresh context makes it. */
START_TEST(a_view_judged_under_protected_names_is_not_kept_for_the_next_line)
{
    urisan_policy *p = malloc(urisan_policy_size());
    ck_assert_ptr_nonnull(p);
    urisan_policy_init(p);
    static const char text[] = "protect-host apple.com\n";
    size_t line = 0;
    const char *msg = NULL;
    ck_assert_int_eq(urisan_policy_parse(p, text, sizeof text - 1, &line, &msg), URISAN_OK);
    urisan_host_ctx *c = urisan_host_ctx_new();
    ck_assert_ptr_nonnull(c);
    const char *uri = "http://xn--80ak6aa92e.com/";
    urisan_judgement j;
    urisan_judge(c, uri, strlen(uri), p, URISAN_JUDGE_VIEW, &j);
    ck_assert_str_eq(c->last.hv.imitates, "apple.com");
    ck_assert(last_view(c, uri));    /* made anew: nothing imitated */
    ck_assert(!last_view(c, uri));   /* kept */
    urisan_judge(c, uri, strlen(uri), p, URISAN_JUDGE_VIEW, &j);
    ck_assert_str_eq(c->last.hv.imitates, "apple.com");
    ck_assert_uint_ne(j.rep.flags & URISAN_F(HOMOGRAPH), 0);
    urisan_judge(c, uri, strlen(uri), NULL, URISAN_JUDGE_VIEW, &j);
    ck_assert_str_eq(c->last.hv.imitates, "");
    urisan_host_ctx_free(c);
    free(p);
}
END_TEST

/* urisan_host_prefetch of a line before the view of it (as check --json
   calls them, a line apart): the guess only asks for a memo entry; the
   view is the one without it, whatever the guess was (right, wrong or
   none; short, long or cut bytes). */
static const char *const guess_uris[] = {
    "http://example.com/", "http://example.com:8080/a", "https://u:p@example.org/x",
    "http://a@b@example.net/", "http://[::1]:80/", "http://example.com?q", "http://h#f",
    "http://EXAMPLE.com/", "http://xn--pple-43d.com/", "ftp://files.example.com",
    "http://a-very-long-host-name-of-more-than-thirty-two.example.com/",
    "mailto:a@example.com", "urn:isbn:0451450523", "example.com/path",
    "http://h:/", "http://:80/", "http://@/", "http:///x", "//example.com/",
    "javascript://example.com/%0aalert(1)", "http://ex%61mple.com/",
    "http://registry.npmjs.org/pkg", "http://a.b.c.d.e.f.g.h.i.j.k.l.example.com/",
};

START_TEST(a_prefetch_guess_never_changes_the_view)
{
    urisan_host_ctx *with = urisan_host_ctx_new(), *without = urisan_host_ctx_new();
    ck_assert(with != NULL && without != NULL);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < sizeof guess_uris / sizeof guess_uris[0]; i++) {
            const char *uri = guess_uris[i];
            size_t n = strlen(uri);
            urisan_uri u;
            urisan_parse(uri, n, NULL, &u, NULL);
            for (size_t cut = 0; cut <= n; cut += n / 3 + 1)
                urisan_host_prefetch(with, uri, cut);   /* reads at most cut bytes */
            urisan_host_prefetch(with, uri, n);
            bool a = host_view_last(with, uri, n, &u);
            bool b = host_view_last(without, uri, n, &u);
            ck_assert_msg(a == b, "return differs for '%s'", uri);
            ck_assert_msg(with->last.hv.is_name == without->last.hv.is_name &&
                          with->last.hv.flags == without->last.hv.flags,
                          "facts differ for '%s'", uri);
            ck_assert_str_eq(with->last.hv.unicode, without->last.hv.unicode);
            ck_assert_str_eq(with->last.hv.skeleton, without->last.hv.skeleton);
            ck_assert_str_eq(with->last.hv.registrable, without->last.hv.registrable);
        }
    }
    urisan_host_ctx_free(with);
    urisan_host_ctx_free(without);
}
END_TEST

/* The hash a prefetch hands on is of the bytes it read: when the bytes at
   that place change before the view (a reused buffer), the view is still
   the view of the bytes there, never of the ones guessed. */
START_TEST(a_prefetch_of_bytes_changed_since_never_gives_their_view)
{
    urisan_host_ctx *c = urisan_host_ctx_new();
    ck_assert(c != NULL);
    static const char *const pairs[][2] = {
        { "http://example.com/", "http://exbmple.org/" },
        { "http://xn--pple-43d.com/a", "http://apple.com.evil.x/a" },
        { "https://bank.example/", "https://bank.exampl3/" },
    };
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
            char buf[64];
            size_t n = strlen(pairs[i][0]);
            ck_assert_uint_eq(n, strlen(pairs[i][1]));
            memcpy(buf, pairs[i][0], n);
            ck_assert(last_view(c, pairs[i][0]));   /* the first one is in the memo */
            urisan_host_prefetch(c, buf, n);
            memcpy(buf, pairs[i][1], n);            /* other bytes, the same place */
            urisan_uri u;
            urisan_parse(buf, n, NULL, &u, NULL);
            host_view_last(c, buf, n, &u);
            urisan_hostview want;
            urisan_host_ctx *fresh = urisan_host_ctx_new();
            ck_assert(fresh != NULL);
            urisan_host_view(fresh, buf + u.host.off, u.host.len, &want);
            ck_assert_str_eq(c->last.hv.unicode, want.unicode);
            ck_assert_str_eq(c->last.hv.registrable, want.registrable);
            ck_assert_uint_eq(c->last.hv.flags, want.flags);
            urisan_host_ctx_free(fresh);
        }
    }
    urisan_host_ctx_free(c);
}
END_TEST

/* The SIMD guess of a line's host and its scalar twin agree for each
   delimiter ('/', '?', '#', '@', ':') at every position of the 48 bytes
   read, at every length. */
START_TEST(the_host_guess_and_its_scalar_twin_agree_at_every_position)
{
    static const char delims[] = "/?#@:";
    char buf[80];
    size_t checked = 0;
    for (size_t d = 0; d < sizeof delims - 1; d++) {
        for (size_t pos = 0; pos < 64; pos++) {
            for (size_t len = 0; len <= 64; len++) {
                memset(buf, 'a', sizeof buf);
                memcpy(buf, "http://", 7);
                if (7 + pos < sizeof buf)
                    buf[7 + pos] = delims[d];
                buf[60] = '/';
                size_t n1 = 0, n2 = 0;
                const char *a = host_guess(buf, len, &n1);
                const char *b = host_guess_scalar(buf, len, &n2);
                ck_assert_msg(a == b && (a == NULL || n1 == n2),
                              "guesses differ: '%c' at %zu, length %zu", delims[d], pos, len);
                checked++;
            }
        }
    }
    /* the scheme's colon anywhere in the first 16 bytes */
    for (size_t c = 0; c < 20; c++) {
        memset(buf, 'x', sizeof buf);
        if (c + 3 < sizeof buf)
            memcpy(buf + c, "://", 3);
        size_t n1 = 0, n2 = 0;
        const char *a = host_guess(buf, 64, &n1);
        const char *b = host_guess_scalar(buf, 64, &n2);
        ck_assert_msg(a == b && (a == NULL || n1 == n2), "guesses differ: colon at %zu", c);
    }
    ck_assert_uint_gt(checked, 0);
}
END_TEST

int main(void)
{
    if (testdata_skip())
        return 77;
    ctx = urisan_host_ctx_new();
    if (ctx == NULL)
        return EXIT_FAILURE;
    Suite *s = suite_create("host");
    TCase *t = tcase_create("shortcuts");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, every_printable_byte_in_a_host_gives_the_full_answer);
    tcase_add_test(t, hand_picked_hosts_give_the_full_answer);
    tcase_add_test(t, lengths_around_the_cache_keys_and_the_buffers_give_the_full_answer);
    tcase_add_test(t, the_last_host_is_looked_at_again_only_when_its_bytes_change);
    tcase_add_test(t, a_view_judged_under_protected_names_is_not_kept_for_the_next_line);
    tcase_add_test(t, more_hosts_than_memo_slots_give_the_full_answer);
    tcase_add_test(t, threads_sharing_one_memo_give_the_full_answer);
    tcase_add_test(t, a_prefetch_guess_never_changes_the_view);
    tcase_add_test(t, a_prefetch_of_bytes_changed_since_never_gives_their_view);
    tcase_add_test(t, the_host_guess_and_its_scalar_twin_agree_at_every_position);
    suite_add_tcase(s, t);
    t = testdata_tcase(s, "shortcuts_shared_data");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, every_host_of_the_shared_url_lists_gives_the_full_answer);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    urisan_host_ctx_free(ctx);
    urisan_host_shutdown();
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
