/*
 * pslcache.c - registrable domains by host, one cache a context: libpsl
 * costs ~9,000 instructions a host; hosts repeat in logs. The answer is a
 * suffix of the host (psl_registrable_domain points into it), so an entry
 * holds the host and the offset of that suffix. 8-way set associative
 * (a set is one host's 8 candidate slots, newest first, 4 MiB in all):
 * in a direct-mapped table of the same size the 30,169 distinct hosts of
 * the shared URL lists evicted each other on every pass (133,223 libpsl
 * calls for the 1,090,610 lines of the x10 file; 61,531 with 4 ways).
 * A set's hashes sit side by side, so a probe reads one cache line of
 * them and then the one slot whose hash matches. Since memo.c keeps
 * whole views, this cache serves the hosts it does not keep.
 */
#include "host_internal.h"
#include "memo.h"

#include <stdlib.h>
#include <string.h>

#define PSL_CACHE_SETS (1u << 13)
#define PSL_CACHE_WAYS 8
#define PSL_CACHE_KEY 62
typedef struct {
    unsigned char len;         /* 0: empty slot */
    signed char reg;           /* offset of the registrable domain, -1: none */
    char host[PSL_CACHE_KEY];
} psl_slot;
struct psl_table {
    uint32_t hash[PSL_CACHE_SETS][PSL_CACHE_WAYS];   /* of each slot's host */
    psl_slot slot[PSL_CACHE_SETS][PSL_CACHE_WAYS];
    void *mem;                 /* the mapping (hostmemo_map) */
};
_Static_assert(sizeof(psl_slot) == 64, "a slot is one cache line");
_Static_assert(PSL_CACHE_KEY <= 127, "reg, an offset into the key, fits a signed char");
_Static_assert(PSL_CACHE_WAYS * sizeof(uint32_t) <= 64, "a set's hashes are one line");
_Static_assert((PSL_CACHE_SETS & (PSL_CACHE_SETS - 1)) == 0 && PSL_CACHE_SETS <= 1u << 13,
               "the set is bits 19-31 of the hash");

psl_table *host_pslcache_new(void)
{
    /* zero pages, on 2 MiB pages where the kernel gives them (memo.h) */
    void *mem;
    psl_table *t = hostmemo_map(sizeof(psl_table), &mem);
    if (t != NULL)
        t->mem = mem;
    return t;
}

void host_pslcache_free(psl_table *t)
{
    if (t != NULL)
        hostmemo_unmap(t->mem, sizeof(psl_table));
}

const char *host_registrable(psl_table *cache, const char *ascii, size_t n)
{
    const psl_ctx_t *psl = host_psl();
    if (cache == NULL || n == 0 || n > PSL_CACHE_KEY)
        return psl_registrable_domain(psl, ascii);
    uint32_t h = hostmemo_hash(ascii, n);
    /* the set: bits 19-31 of the hash (8 ways each) */
    size_t set = (h >> 19) & (PSL_CACHE_SETS - 1);
    uint32_t *tags = cache->hash[set];
    psl_slot *slots = cache->slot[set];
    for (unsigned w = 0; w < PSL_CACHE_WAYS; w++) {
        const psl_slot *s = &slots[w];
        if (tags[w] == h && s->len == n && memcmp(s->host, ascii, n) == 0)
            return s->reg < 0 ? NULL : ascii + s->reg;
    }
    const char *reg = psl_registrable_domain(psl, ascii);
    if (reg == NULL || (reg >= ascii && reg <= ascii + n)) {
        /* the oldest entry of the set goes */
        memmove(&tags[1], &tags[0], (PSL_CACHE_WAYS - 1) * sizeof *tags);
        memmove(&slots[1], &slots[0], (PSL_CACHE_WAYS - 1) * sizeof *slots);
        tags[0] = h;
        slots[0].len = (unsigned char)n;
        slots[0].reg = (signed char)(reg == NULL ? -1 : reg - ascii);
        memcpy(slots[0].host, ascii, n);
    }
    return reg;
}
