/*
 * memo.h - the views of hosts already seen (view.c), kept by a context
 * (ctx.c) by the host as written.
 *
 * A log names the same hosts again and again; each view costs a
 * decode, a skeleton, and a libpsl look-up (what the memo saves is
 * measured in doc/bench.md, "Every cache"). A view is a function of the
 * host's bytes alone (and of ICU's and libpsl's data, loaded once), so
 * the answer kept for the same bytes is the answer: the memo is keyed by
 * the exact bytes and compared in full on every hit.
 *
 * Bounded: a fixed table of HOSTMEMO_SLOTS entries of one 64-byte cache
 * line (4 MiB, mapped with its context and unmapped with it);
 * a view whose texts do not fit in one entry is not kept (it is computed
 * each time). Cuckoo hashing: a host's entry is in one of two slots,
 * named by the low and the high half of its hash, so a look-up reads at
 * most two cache lines, which the hash alone names (hostmemo_prefetch asks
 * for them early); a new entry takes a free one of its two slots, or
 * moves the one in its first slot to that one's other slot, at most
 * HOSTMEMO_KICKS times (the last one moved out is dropped: computed again
 * when its host comes back). No lock: a context is one thread's at a time
 * (a table shared by the contexts of several threads: hostmemo_share_new
 * below).
 */
#ifndef URISAN_HOST_MEMO_H
#define URISAN_HOST_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "host_internal.h"

#define HOSTMEMO_SLOTS 65536u   /* two halves of a 32-bit hash name two */
#define HOSTMEMO_KICKS 16u
#define HOSTMEMO_KEY_MAX 48    /* longer hosts are not kept */

/* a[0..n) == b[0..n), 8 bytes at a time (the last word may overlap the
   one before; nothing outside either is read): the compare of a host
   with a kept one (here and host_last). */
static inline bool hostmemo_same(const char *a, const char *b, size_t n)
{
    if (n < 8)
        return memcmp(a, b, n) == 0;
    uint64_t x, y, d = 0;
    for (size_t i = 0; i + 8 < n; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        d |= x ^ y;
    }
    memcpy(&x, a + n - 8, 8);
    memcpy(&y, b + n - 8, 8);
    return (d | (x ^ y)) == 0;
}

/* 32 bits of a host's bytes. */
uint32_t hostmemo_hash(const char *s, size_t n);

typedef struct hm_table hm_table;

/* A table (4 MiB of anonymous memory, zero pages until touched; on 2 MiB
   pages where the kernel gives them). *mem: the mapping to free. NULL:
   no memory. */
hm_table *hostmemo_new(void **mem);
void hostmemo_free(void *mem);
/* size bytes of such memory (the registrable-domain cache's too), on a
   2 MiB boundary; *mem: the mapping, for hostmemo_unmap(mem, size). */
void *hostmemo_map(size_t size, void **mem);
void hostmemo_unmap(void *mem, size_t size);

/* The view of host[0..len) kept in t: true and hv filled (every field, as
   host_view_compute would), false when it is not kept. */
bool hostmemo_get(const hm_table *t, const char *host, size_t len, uint32_t hash,
                  urisan_hostview *hv);

/* Keep hv as the view of host[0..len) (when it fits in an entry). */
void hostmemo_put(hm_table *t, const char *host, size_t len, uint32_t hash,
                  const urisan_hostview *hv);

/* Ask the memory system now for the two slots of hash (a hint: a
   hostmemo_get of it a little later finds them in the cache). */
void hostmemo_prefetch(const hm_table *t, uint32_t hash);

/*
 * A memo shared by the contexts of several threads (urisan_host.h,
 * urisan_host_ctx_new_sharing): one table, so that a host viewed by one
 * thread is not viewed again by another.
 *
 * Look-ups take no lock: an entry is read word by word (relaxed atomic
 * loads) between two reads of its stripe's sequence number (a seqlock:
 * HOSTMEMO_STRIPES numbers, the slot's low bits name its stripe); a
 * number that is odd or that changed during the copy means a writer was
 * there, and the look-up counts as a miss (the view is computed, as for a
 * host not kept: the answer is the same). Puts are rare (one a distinct
 * host) and take the share's mutex; each slot a put writes is written
 * word by word (relaxed atomic stores) between the two increments of its
 * stripe's number. A put of a host already kept (two threads missed it at
 * once) changes nothing.
 */
#define HOSTMEMO_STRIPES 4096u
typedef struct hm_share hm_share;
/* A shared table with one reference (NULL: no memory). */
hm_share *hostmemo_share_new(void);
/* hostmemo_prefetch for a shared table: its slots and their stripes'
   numbers. */
void hostmemo_prefetch_shared(const hm_share *sh, uint32_t hash);
/* One more reference (a context that shares it). */
hm_share *hostmemo_share_ref(hm_share *sh);
/* One reference less; the table goes with the last one. NULL: nothing. */
void hostmemo_share_unref(hm_share *sh);
/* The table (for hostmemo_prefetch). */
const hm_table *hostmemo_share_table(const hm_share *sh);
/* hostmemo_get and hostmemo_put on a shared table, from any thread. */
bool hostmemo_get_shared(const hm_share *sh, const char *host, size_t len, uint32_t hash,
                         urisan_hostview *hv);
void hostmemo_put_shared(hm_share *sh, const char *host, size_t len, uint32_t hash,
                         const urisan_hostview *hv);

#endif
