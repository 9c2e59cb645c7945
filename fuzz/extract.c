/*
 * fuzz/extract.c - urisan_extract (urisan(1), EXTRACT).
 *
 * Invariants:
 *  1. every hit lies inside the input, after the previous one (a
 *     HYPHEN_DROPPED twin shares the range of the hit before it);
 *  2. the URI is the text itself, or - WRAPPED / ABBREVIATED - exactly the
 *     text with its white space (and, for the twin, its line-end hyphens)
 *     dropped, after "http://" for an abbreviated one ("ftp://" for one
 *     that starts with "ftp."); assembled URIs lie
 *     in scratch;
 *  3. flags and verdict equal urisan_check of the hit's URI;
 *  4. resuming: batches of 2 hits and a small scratch give exactly the
 *     hits of one big call, and every call makes progress;
 *  5. the whole input is scanned (*next == len);
 *  6. urisan_extract_with (the resumed run) calls its decision hook once
 *     for each hit it stores, and a hook deciding as the core does gives
 *     the hits of urisan_extract.
 */
#include <stdbool.h>

#include "fuzz_util.h"

#define BIG 4096

static urisan_hit big_hits[BIG];

/* A decision hook that decides as the core does, and counts its calls. */
static void count_decide(void *ctx, const urisan_policy *pol, const char *in, size_t len,
                         const urisan_uri *u, urisan_report *rep, const char *display,
                         size_t dlen, urisan_decision *out)
{
    (void)display;
    (void)dlen;
    ++*(size_t *)ctx;
    urisan_decide(in, len, u, rep, pol, out);
}

static bool is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static void check_text(const char *in, const urisan_hit *h, const char *scr, size_t scap)
{
    bool assembled = (h->form & URISAN_HIT_WRAPPED) ||
                     ((h->form & URISAN_HIT_ABBREVIATED) && h->uri != in + h->off);
    if (!assembled) {
        FUZZ_ASSERT(h->uri == in + h->off && h->uri_len == h->len,
                    "hit at %zu: uri is not the text itself", h->off);
        return;
    }
    FUZZ_ASSERT(h->uri >= scr && h->uri_len <= scap && (size_t)(h->uri - scr) <= scap - h->uri_len,
                "hit at %zu: assembled uri outside scratch", h->off);
    fuzz_str want = {0};
    if (h->form & URISAN_HIT_ABBREVIATED)
        fs_adds(&want, (in[h->off] | 0x20) == 'f' ? "ftp://" : "http://");
    for (size_t i = h->off; i < h->off + h->len; i++) {
        unsigned char c = (unsigned char)in[i];
        if (is_ws(c))
            continue;
        if ((h->form & URISAN_HIT_HYPHEN_DROPPED) && c == '-' && i + 1 < h->off + h->len &&
            is_ws((unsigned char)in[i + 1]))
            continue;
        fs_addc(&want, (char)c);
    }
    FUZZ_ASSERT(fs_eq(&want, h->uri, h->uri_len), "hit at %zu: assembled uri differs", h->off);
    fs_free(&want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = fuzz_dup(data, size);
    size_t scap = urisan_extract_scratch_size(NULL);
    char *scr = malloc(scap);
    if (scr == NULL)
        abort();

    /* One big call (all hits of a fuzz input fit). */
    size_t n = 0, next = 0;
    urisan_status st = urisan_extract(in, size, 0, NULL, big_hits, BIG, &n, scr, scap, &next);
    FUZZ_ASSERT(st == URISAN_OK || st == URISAN_E_TOO_MANY, "status %s", fuzz_status(st));
    if (st == URISAN_OK)
        FUZZ_ASSERT(next == size, "OK but next %zu != len %zu", next, size);
    size_t prev_end = 0;
    for (size_t k = 0; k < n; k++) {
        const urisan_hit *h = &big_hits[k];
        FUZZ_ASSERT(h->off <= size && h->len <= size - h->off, "hit %zu outside the input", k);
        FUZZ_ASSERT(h->len > 0 && h->uri_len > 0, "empty hit %zu", k);
        if (h->form & URISAN_HIT_HYPHEN_DROPPED) {
            FUZZ_ASSERT(k > 0 && big_hits[k - 1].off == h->off && big_hits[k - 1].len == h->len &&
                            (big_hits[k - 1].form | URISAN_HIT_HYPHEN_DROPPED) == h->form,
                        "hyphen twin %zu without its first reading", k);
        } else {
            FUZZ_ASSERT(h->off >= prev_end, "hit %zu at %zu overlaps the previous (end %zu)", k,
                        h->off, prev_end);
        }
        prev_end = h->off + h->len;
        check_text(in, h, scr, scap);

        urisan_uri u;
        urisan_report rep;
        urisan_decision dec;
        urisan_check(h->uri, h->uri_len, NULL, &u, &rep, &dec);
        FUZZ_ASSERT(rep.flags == h->flags, "hit %zu: flags differ from urisan_check", k);
        FUZZ_ASSERT(dec.verdict == h->decision.verdict && dec.deny_flags == h->decision.deny_flags &&
                        dec.flag_flags == h->decision.flag_flags && dec.rules == h->decision.rules,
                    "hit %zu: decision differs from urisan_check", k);
    }

    /* Resumed in batches of two with just the minimal scratch. */
    if (st == URISAN_OK) {
        urisan_hit h2[2];
        size_t got = 0, start = 0, calls = 0;
        const urisan_link_hooks hk = { count_decide, &calls };
        char *small = malloc(scap);
        if (small == NULL)
            abort();
        for (;;) {
            size_t m = 0, nx = 0, calls0 = calls;
            urisan_status s2 = urisan_extract_with(in, size, start, 0, NULL, &hk, h2, 2, &m, small,
                                                   scap, &nx);
            FUZZ_ASSERT(s2 == URISAN_OK || s2 == URISAN_E_TOO_MANY, "resume status %s",
                        fuzz_status(s2));
            FUZZ_ASSERT(calls - calls0 == m, "%zu decisions for %zu hits", calls - calls0, m);
            for (size_t k = 0; k < m; k++, got++) {
                FUZZ_ASSERT(got < n, "resumed run finds more hits (%zu) than one call", got + 1);
                const urisan_hit *a = &big_hits[got], *b = &h2[k];
                FUZZ_ASSERT(a->off == b->off && a->len == b->len && a->form == b->form &&
                                a->uri_len == b->uri_len &&
                                memcmp(a->uri, b->uri, a->uri_len) == 0 && a->flags == b->flags &&
                                a->decision.verdict == b->decision.verdict &&
                                a->decision.deny_flags == b->decision.deny_flags &&
                                a->decision.flag_flags == b->decision.flag_flags &&
                                a->decision.rules == b->decision.rules,
                            "resumed hit %zu differs", got);
            }
            if (s2 == URISAN_OK) {
                FUZZ_ASSERT(nx == size, "resumed run ends at %zu, not %zu", nx, size);
                break;
            }
            FUZZ_ASSERT(m > 0 && nx > start, "no progress at %zu", start);
            start = nx;
        }
        FUZZ_ASSERT(got == n, "resumed run finds %zu hits, one call %zu", got, n);
        free(small);
    }
    free(scr);
    fuzz_done(in);
    return 0;
}
