/*
 * host_internal.h - what the files of liburisan-host (src/host) share;
 * nothing here is exported (urisan_host.h is the interface).
 *
 *   data.c      ICU's spoof checker and the Public Suffix List, loaded once
 *   skeleton.c  the TR39 skeleton of an ASCII host from a table of bytes
 *   view.c      a host as a reader sees it (UTS #46, TR39, invisible)
 *   memo.c      the views of hosts already seen, a memo a context
 *   ctx.c       the context, the views through its memo, the last host's
 *   imitation.c does a brand label imitate a protected name (pure)
 *   protect.c   a policy's protected names and a view's imitation of them
 *   judge.c     the decision (urisan_judge, urisan_judge_link_decide)
 *   opened.c    a link written in Unicode as the URI a browser opens
 *   fold.c      a brand label with its diacritics and look-alikes folded
 *
 * The calls go one way: judge -> protect -> imitation, ctx -> view -> memo,
 * skeleton -> data (tools/src_graph.py src/host: no cycle).
 */
#ifndef URISAN_HOST_INTERNAL_H
#define URISAN_HOST_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "urisan_host.h"
#include "urisan_host_private.h"
#include <libpsl.h>
#include <unicode/uspoof.h>

/* data.c: loaded once a process (pthread_once); NULL when absent. */
const USpoofChecker *host_spoof(void);
const psl_ctx_t *host_psl(void);

/* data.c: the caches urisan-bench turns off to measure what each saves
   (doc/bench.md "Every cache"): the environment variable
   URISAN_BENCH_CACHES_OFF, comma-separated names, read once a process in
   a build with -Dbench_switches=true (none otherwise: 0).
   Every cache keeps answers that are a function of its key alone, so the
   results are the same either way; only the time differs. */
#define HOST_OFF_MEMO     1u   /* memo.c: every view computed */
#define HOST_OFF_LAST     2u   /* ctx.c: the line before's view not kept */
#define HOST_OFF_SKELETON 8u   /* skeleton.c: ICU's skeleton of ASCII hosts */
unsigned host_caches_off(void);

/* skeleton.c */
void host_skeleton_init(const USpoofChecker *spoof);
/* The TR39 skeleton of an ASCII host h[0..n) from a table of each byte's
   (as ICU writes it; "" when it does not fit in cap): false when a byte
   has none there. *jplain: the skeleton is its own JSON text. */
bool host_skeleton_ascii(const char *h, size_t n, char *out, size_t cap, bool *jplain);

/* fold.c: the UTS #39 skeleton of the brand label label[0..n) (UTF-8)
   with its non-spacing marks dropped (NFD) and the look-alike letters
   TR39 leaves alone folded to their Latin letter, into skel (cap bytes,
   UTF-8, *sn bytes). false when it cannot be had. */
bool host_fold_skeleton(const char *label, size_t n, char *skel, size_t cap, size_t *sn);

/* view.c: the view of host[0..len) computed (no memo). shortcut: a plain
   ASCII host without ICU and libidn2; false: everything through ICU and
   libidn2 (tests compare). */
bool host_view_compute(const char *host, size_t len, urisan_hostview *hv, bool shortcut);

/* ctx.c: the view of the last host a context asked about: a host whose
   bytes are the last one's keeps it (in a log, half the lines name the
   host of the line before). */
#define HOST_LAST_KEY 64   /* longer hosts are not kept */
typedef struct {
    urisan_hostview hv;
    size_t klen;               /* key[0..klen): the host; SIZE_MAX: none */
    char key[HOST_LAST_KEY];
} host_last;
_Static_assert(HOST_LAST_KEY >= 8, "hostmemo_same reads 8-byte words of a key of 8 bytes or more");

struct hm_table;
struct hm_share;
struct host_protect;
struct urisan_host_ctx {
    /* whole cache lines (ctx.c allocates it so): the contexts of two
       threads, allocated one after the other, share no line (the last
       host is written on most lines) */
    _Alignas(64) struct hm_table *memo; /* memo.c: its own (share NULL), or
                                  the shared one's table (read by prefetch) */
    void *memo_mem;            /* its own memo's mapping */
    struct hm_share *share;    /* the memo shared with other threads'
                                  contexts (urisan_host_ctx_new_sharing) */
    struct host_protect *protect; /* protect.c: the last policy's names
                                     (one malloc'd block: free() frees it) */
    host_last last;
    /* urisan_host_prefetch's guesses of the hosts of the lines to come
       (where each is in its line: the pointer and length) and the hash
       it asked the memo with, handed on to that line's view; the last
       two (a reader asks for the line after the one it is judging): a
       host at another place (or of another length) is hashed anew. If
       the bytes there changed since, the view still compares the key's
       bytes: a hash of other bytes can only miss. */
    struct {
        const char *host;
        size_t len;
        uint32_t hash;
    } ahead[2];
    unsigned ahead_next;       /* the slot the next guess goes to */
    unsigned off;              /* HOST_OFF_*: caches a bench turned off */
};

/* The host of uri that a view is of: false (and "") when it has none to
   show; an IP literal is "" (its view is no name). u: the parse of uri
   with the default limits. */
bool host_of_uri(const char *uri, size_t len, const urisan_uri *u, const char **host,
                 size_t *hlen);
/* The view of uri's host into ctx->last (unless it is the last one's). */
bool host_view_last(urisan_host_ctx *ctx, const char *uri, size_t len, const urisan_uri *u);
/* The host guessed from the first bytes of uri[0..len) ("scheme://host",
   at most 48 bytes read), or NULL. host_guess_scalar: the same without
   SIMD (tests compare the two at every length). */
const char *host_guess(const char *uri, size_t len, size_t *n);
const char *host_guess_scalar(const char *uri, size_t len, size_t *n);

/* protect.c: the host layer's flags of a name's view hv under pol:
   hv->flags for a policy that protects no name; else hv->flags without
   TR39's homograph, with the imitation of pol's protected names
   (hv->imitation, hv->imitates: judged once a policy, kept in hv). */
/* protect.c: brand_misplaced of the userinfo and path of u (over
   in[0..len)): a protected name written there, under a host that is not
   that name's (hv: the host's view, NULL: none). */
urisan_flags host_brand_elsewhere(urisan_host_ctx *ctx, const urisan_policy *pol, const char *in,
                                  size_t len, const urisan_uri *u, const urisan_hostview *hv);
urisan_flags host_name_flags(urisan_host_ctx *ctx, const urisan_policy *pol,
                             urisan_hostview *hv);

#endif
