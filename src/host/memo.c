/* memo.c - the views of hosts already seen, a table a context (see memo.h). */
#define _DEFAULT_SOURCE 1   /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include "memo.h"

#include <pthread.h>
#include <sys/mman.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The texts of a view in one entry: the key (the host as written), then
   the Unicode, ASCII and skeleton forms unless equal to one before them
   (an ASCII host is its own Unicode and ASCII form, and usually its own
   skeleton) or, for the skeleton, made from the ASCII form by
   host_skeleton_ascii's table (a few instructions a byte: made
   again on a hit), then the imitated name. The registrable domain is a
   suffix of the ASCII form (libpsl answers with a pointer into it): its
   length is enough. */
#define HM_TEXT HOSTMEMO_KEY_MAX
#define HM_COPY 64   /* forms shorter than this are one fixed-size copy */
enum {
    HM_NAME = 1,        /* is_name */
    HM_IDN = 2,
    HM_INVISIBLE = 4,
    HM_UTS46 = 8,
    HM_JPLAIN = 16,     /* URISAN_HV_JSON_PLAIN */
    HM_U_IS_KEY = 32,   /* unicode is the key's bytes */
    HM_A_IS_U = 64,     /* ascii is unicode */
    HM_S_IS_U = 128,    /* skeleton is unicode */
};
/* hm_entry.why: urisan_hostview.why (URISAN_HOSTVIEW_*, below HM_S_TABLE) and */
#define HM_S_TABLE 0x80u   /* the skeleton is host_skeleton_ascii(ascii) */
_Static_assert((URISAN_HOSTVIEW_MIXED_SCRIPT | URISAN_HOSTVIEW_CONFUSABLE |
                URISAN_HOSTVIEW_MIXED_NUMBERS) < HM_S_TABLE, "why fits below HM_S_TABLE");
typedef struct {
    urisan_flags flags;
    unsigned char klen;   /* 0: an empty entry */
    unsigned char ulen, alen, slen, ilen, rlen;
    unsigned char bits, why;
    char text[HM_TEXT];
} hm_entry;
_Static_assert(sizeof(hm_entry) == 64, "a memo entry is one cache line");

/* A context's memo. */
struct hm_table {
    hm_entry e[HOSTMEMO_SLOTS];
    char slack[HM_COPY];   /* the fixed-size copies of fill() may read past
                              the last entry's text */
};
_Static_assert(HOSTMEMO_SLOTS == 1u << 16, "a slot is half of a 32-bit hash");
_Static_assert(HM_TEXT < HM_COPY && HM_COPY <= URISAN_HOSTVIEW_MAX,
               "a fixed-size copy of a form fits every form's array");
_Static_assert(HM_TEXT <= 255 && HOSTMEMO_KEY_MAX <= HM_TEXT,
               "a length in an entry is one byte; a kept key fits its text");

/* A mapping of size bytes, its start on a 2 MiB boundary. */
#define HM_HUGE ((size_t)2 << 20)

void hostmemo_unmap(void *mem, size_t size)
{
    if (mem != NULL)
        munmap(mem, size + HM_HUGE);
}

void *hostmemo_map(size_t size, void **mem_out)
{
    /* Anonymous memory: zero pages, touched only as slots fill. On 2 MiB
       pages where the kernel gives them (MADV_HUGEPAGE; transparent huge
       pages in "madvise" mode, Debian's default): a look-up goes to a
       random slot, and with 4 KiB pages most of them also missed the
       TLB. A table is read before it is written: with 4 KiB pages each
       first write to a page that was read replaced the zero page, and in
       a process of several threads each such fault sent the other cores
       a TLB flush; with 2 MiB pages that is one fault every 2 MiB. */
    void *mem = mmap(NULL, size + HM_HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
    if (mem == MAP_FAILED)
        return NULL;
    void *t = (void *)(((uintptr_t)mem + HM_HUGE - 1) & ~(uintptr_t)(HM_HUGE - 1));
    (void)madvise(t, size, MADV_HUGEPAGE);   /* a hint; an error changes nothing */
    *mem_out = mem;
    return t;
}

void hostmemo_free(void *mem)
{
    hostmemo_unmap(mem, sizeof(hm_table));
}

hm_table *hostmemo_new(void **mem_out)
{
    return hostmemo_map(sizeof(hm_table), mem_out);
}

/* A word of the last n - i (1..7) bytes of s[0..n), without a call:
   from loads that stay inside s[0..n). On a little-endian machine it is
   those bytes, zero above (what memcpy(&w, s + i, n - i) into w = 0
   gives); elsewhere another function of them, as good for a hash. */
static inline uint64_t tail_word(const char *s, size_t n, size_t i)
{
    size_t t = n - i;
    const unsigned char *u = (const unsigned char *)s;
    if (n >= 8) {
        uint64_t w;
        memcpy(&w, s + n - 8, 8);
        return w >> (8 * (8 - t));
    }
    if (n >= 4) {   /* i == 0: two words of 4 that overlap */
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        return (uint64_t)a | (uint64_t)b << (8 * (n - 4));
    }
    return (uint64_t)u[0] | (uint64_t)u[n / 2] << (8 * (n / 2)) | (uint64_t)u[n - 1] << (8 * (n - 1));
}

uint32_t hostmemo_hash(const char *s, size_t n)
{
    /* 8 bytes a step (a multiply-xor mix), the tail zero-padded */
    uint64_t x = n;
    size_t i = 0;
    for (; n - i >= 8; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        x = (x ^ w) * UINT64_C(0x9E3779B97F4A7C15);
        x ^= x >> 29;
    }
    if (i < n) {
        x = (x ^ tail_word(s, n, i)) * UINT64_C(0x9E3779B97F4A7C15);
        x ^= x >> 29;
    }
    return (uint32_t)(x >> 32);
}

/* The two slots of a hash (they may be the same one). */
static size_t slot_a(uint32_t hash)
{
    return hash & (HOSTMEMO_SLOTS - 1);
}

static size_t slot_b(uint32_t hash)
{
    return hash >> 16;
}

/* dst[0..n) := src, NUL-terminated. Every form's array in a hostview
   holds more than HM_COPY bytes, and HM_COPY bytes from src are inside
   the table (its slack), so a short form is one fixed-size copy. */
static inline void put_text(char *dst, const char *src, size_t n)
{
    if (n < HM_COPY / 2)
        memcpy(dst, src, HM_COPY / 2);   /* most names: half the stores */
    else if (n < HM_COPY)
        memcpy(dst, src, HM_COPY);
    else
        memcpy(dst, src, n);
    dst[n] = '\0';
}

static void fill(urisan_hostview *hv, const hm_entry *e)
{
    const char *t = e->text + e->klen;
    const char *u = e->text, *a, *s;
    if (!(e->bits & HM_U_IS_KEY)) {
        u = t;
        t += e->ulen;
    }
    a = u;
    if (!(e->bits & HM_A_IS_U)) {
        a = t;
        t += e->alen;
    }
    s = u;
    bool table = (e->why & HM_S_TABLE) != 0;
    if (!(e->bits & HM_S_IS_U) && !table) {
        s = t;
        t += e->slen;
    }
    put_text(hv->unicode, u, e->ulen);
    put_text(hv->ascii, a, e->alen);
    if (table) {
        bool jplain;
        (void)host_skeleton_ascii(hv->ascii, e->alen, hv->skeleton, sizeof hv->skeleton,
                                  &jplain);
    } else {
        put_text(hv->skeleton, s, e->slen);
    }
    hv->imitates[0] = '\0';   /* most hosts imitate no name */
    if (e->ilen != 0)
        put_text(hv->imitates, t, e->ilen);
    put_text(hv->registrable, a + e->alen - e->rlen, e->rlen);
    hv->unicode_len = e->ulen;
    hv->skeleton_len = e->slen;
    hv->imitates_len = e->ilen;
    hv->registrable_len = e->rlen;
    hv->is_name = (e->bits & HM_NAME) != 0;
    hv->idn = (e->bits & HM_IDN) != 0;
    hv->invisible = (e->bits & HM_INVISIBLE) != 0;
    hv->uts46 = (e->bits & HM_UTS46) != 0;
    hv->why = e->why & ~HM_S_TABLE;
    hv->internal = (unsigned char)((e->bits & HM_JPLAIN ? URISAN_HV_JSON_PLAIN : 0) |
                                   (table ? URISAN_HV_SKELETON_TABLE : 0));
    hv->flags = e->flags;
}

void hostmemo_prefetch(const hm_table *t, uint32_t hash)
{
    if (t == NULL)
        return;
    __builtin_prefetch(&t->e[slot_a(hash)]);
    __builtin_prefetch(&t->e[slot_b(hash)]);
}

static bool holds(const hm_entry *e, const char *host, size_t len)
{
    return e->klen == len && hostmemo_same(e->text, host, len);
}

bool hostmemo_get(const hm_table *t, const char *host, size_t len, uint32_t hash,
                  urisan_hostview *hv)
{
    if (t == NULL || len == 0 || len > HM_TEXT)
        return false;
    const hm_entry *e = &t->e[slot_a(hash)];
    if (!holds(e, host, len)) {
        e = &t->e[slot_b(hash)];
        if (!holds(e, host, len))
            return false;
    }
    fill(hv, e);
    return true;
}

/* A shared table (memo.h): the table, its writers' mutex, the sequence
   number of each stripe of slots, its references. */
struct hm_share {
    hm_table *t;                      /* read on every look-up ... */
    void *mem;
    _Alignas(64) pthread_mutex_t mu;  /* ... not on the line a put writes */
    unsigned refs;                    /* under mu */
    _Alignas(64) uint32_t seq[HOSTMEMO_STRIPES];   /* __atomic_* only */
};
_Static_assert(sizeof(hm_entry) % sizeof(uint64_t) == 0, "an entry is read in words");
_Static_assert((HOSTMEMO_STRIPES & (HOSTMEMO_STRIPES - 1)) == 0 &&
               HOSTMEMO_STRIPES <= HOSTMEMO_SLOTS, "a stripe is the low bits of a slot");
#define HM_WORDS (sizeof(hm_entry) / sizeof(uint64_t))

/* t->e[s] := *e; in a shared table (sh not NULL; its mutex held) word by
   word between the two increments of the stripe's number. */
static void put_slot(hm_table *t, hm_share *sh, size_t s, const hm_entry *e)
{
    if (sh == NULL) {
        t->e[s] = *e;
        return;
    }
    uint32_t *seq = &sh->seq[s & (HOSTMEMO_STRIPES - 1)];
    uint32_t v = __atomic_load_n(seq, __ATOMIC_RELAXED);
    __atomic_store_n(seq, v + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    uint64_t w[HM_WORDS];
    memcpy(w, e, sizeof w);
    uint64_t *d = (uint64_t *)(void *)&t->e[s];
    for (size_t i = 0; i < HM_WORDS; i++)
        __atomic_store_n(&d[i], w[i], __ATOMIC_RELAXED);
    __atomic_store_n(seq, v + 2, __ATOMIC_RELEASE);
}

/* e into one of its two slots (hash its key's): a free one, else the first,
   whose entry moves to its own other slot, and so on (HOSTMEMO_KICKS).
   sh: the share t is (its mutex held), or NULL. */
static void insert(hm_table *t, hm_share *sh, hm_entry e, uint32_t hash)
{
    size_t s = slot_a(hash);
    if (t->e[s].klen != 0 && t->e[slot_b(hash)].klen == 0)
        s = slot_b(hash);
    for (unsigned kick = 0; kick < HOSTMEMO_KICKS; kick++) {
        hm_entry out = t->e[s];
        put_slot(t, sh, s, &e);
        if (out.klen == 0)
            return;
        uint32_t h = hostmemo_hash(out.text, out.klen);
        s = slot_a(h) == s ? slot_b(h) : slot_a(h);
        e = out;
    }
    /* the last one moved out is dropped */
}

static bool same(const char *a, size_t an, const char *b, size_t bn)
{
    return an == bn && memcmp(a, b, an) == 0;
}

/* text[*o..) := s[0..n) unless skip; false when it does not fit. */
static bool add_text(hm_entry *e, size_t *o, bool skip, const char *s, size_t n)
{
    if (skip)
        return true;
    if (n > HM_TEXT - *o)
        return false;
    memcpy(e->text + *o, s, n);
    *o += n;
    return true;
}

/* The entry of hv, the view of host[0..len): false when it does not fit. */
static bool make_entry(const char *host, size_t len, const urisan_hostview *hv, hm_entry *ep)
{
    size_t ul = hv->unicode_len, sl = hv->skeleton_len, il = hv->imitates_len;
    size_t rl = hv->registrable_len, al = strlen(hv->ascii);
    if (len == 0 || len > HM_TEXT || ul > HM_TEXT || al > HM_TEXT || sl > HM_TEXT ||
        il > HM_TEXT || rl > al || hv->why >= HM_S_TABLE ||
        memcmp(hv->ascii + al - rl, hv->registrable, rl) != 0)
        return false;
    hm_entry e;
    memset(&e, 0, sizeof e);
    e.bits = (unsigned char)((hv->is_name ? HM_NAME : 0) | (hv->idn ? HM_IDN : 0) |
                             (hv->invisible ? HM_INVISIBLE : 0) | (hv->uts46 ? HM_UTS46 : 0) |
                             (hv->internal & URISAN_HV_JSON_PLAIN ? HM_JPLAIN : 0));
    if (same(hv->unicode, ul, host, len))
        e.bits |= HM_U_IS_KEY;
    if (same(hv->ascii, al, hv->unicode, ul))
        e.bits |= HM_A_IS_U;
    if (same(hv->skeleton, sl, hv->unicode, ul))
        e.bits |= HM_S_IS_U;
    /* the table's skeleton is made again on a hit only when its text
       does not fit */
    size_t need = len + (e.bits & HM_U_IS_KEY ? 0 : ul) + (e.bits & HM_A_IS_U ? 0 : al) +
                  (e.bits & HM_S_IS_U ? 0 : sl) + il;
    bool table = !(e.bits & HM_S_IS_U) && (hv->internal & URISAN_HV_SKELETON_TABLE) &&
                 need > HM_TEXT;
    size_t o = 0;
    if (!add_text(&e, &o, false, host, len) ||
        !add_text(&e, &o, e.bits & HM_U_IS_KEY, hv->unicode, ul) ||
        !add_text(&e, &o, e.bits & HM_A_IS_U, hv->ascii, al) ||
        !add_text(&e, &o, (e.bits & HM_S_IS_U) || table, hv->skeleton, sl) ||
        !add_text(&e, &o, false, hv->imitates, il))
        return false;
    e.flags = hv->flags;
    e.klen = (unsigned char)len;
    e.ulen = (unsigned char)ul;
    e.alen = (unsigned char)al;
    e.slen = (unsigned char)sl;
    e.ilen = (unsigned char)il;
    e.rlen = (unsigned char)rl;
    e.why = (unsigned char)(hv->why | (table ? HM_S_TABLE : 0));
    *ep = e;
    return true;
}

void hostmemo_put(hm_table *t, const char *host, size_t len, uint32_t hash,
                  const urisan_hostview *hv)
{
    hm_entry e;
    if (t != NULL && make_entry(host, len, hv, &e))
        insert(t, NULL, e, hash);
}

/* ---- a table shared by threads (memo.h) ---- */

hm_share *hostmemo_share_new(void)
{
    hm_share *sh = aligned_alloc(64, sizeof *sh);   /* its lines apart */
    if (sh == NULL)
        return NULL;
    memset(sh, 0, sizeof *sh);
    sh->t = hostmemo_new(&sh->mem);
    if (sh->t == NULL || pthread_mutex_init(&sh->mu, NULL) != 0) {
        hostmemo_free(sh->t != NULL ? sh->mem : NULL);
        free(sh);
        return NULL;
    }
    sh->refs = 1;
    return sh;
}

hm_share *hostmemo_share_ref(hm_share *sh)
{
    pthread_mutex_lock(&sh->mu);
    sh->refs++;
    pthread_mutex_unlock(&sh->mu);
    return sh;
}

void hostmemo_share_unref(hm_share *sh)
{
    if (sh == NULL)
        return;
    pthread_mutex_lock(&sh->mu);
    unsigned left = --sh->refs;
    pthread_mutex_unlock(&sh->mu);
    if (left > 0)
        return;
    pthread_mutex_destroy(&sh->mu);
    hostmemo_free(sh->mem);
    free(sh);
}

const hm_table *hostmemo_share_table(const hm_share *sh)
{
    return sh->t;
}

void hostmemo_prefetch_shared(const hm_share *sh, uint32_t hash)
{
    /* the stripes' numbers too: read before the slots */
    __builtin_prefetch(&sh->seq[slot_a(hash) & (HOSTMEMO_STRIPES - 1)]);
    __builtin_prefetch(&sh->seq[slot_b(hash) & (HOSTMEMO_STRIPES - 1)]);
    hostmemo_prefetch(sh->t, hash);
}

/* A copy of slot s of a shared table, and room for fill()'s fixed-size
   copies past its text. false: a writer was at its stripe (a miss). */
typedef struct {
    union {
        hm_entry e;
        uint64_t w[HM_WORDS];   /* the words read (no second copy) */
    } u;
    char slack[HM_COPY];
} hm_copy;
static bool read_slot(const hm_share *sh, size_t s, hm_copy *c)
{
    const uint32_t *seq = &sh->seq[s & (HOSTMEMO_STRIPES - 1)];
    uint32_t v = __atomic_load_n(seq, __ATOMIC_ACQUIRE);
    if (v & 1)
        return false;
    const uint64_t *src = (const uint64_t *)(const void *)&sh->t->e[s];
    for (size_t i = 0; i < HM_WORDS; i++)
        c->u.w[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return __atomic_load_n(seq, __ATOMIC_RELAXED) == v;
}

bool hostmemo_get_shared(const hm_share *sh, const char *host, size_t len, uint32_t hash,
                         urisan_hostview *hv)
{
    if (len == 0 || len > HM_TEXT)
        return false;
    hm_copy c;
    memset(c.slack, 0, sizeof c.slack);
    if (!read_slot(sh, slot_a(hash), &c) || !holds(&c.u.e, host, len)) {
        if (!read_slot(sh, slot_b(hash), &c) || !holds(&c.u.e, host, len))
            return false;
    }
    fill(hv, &c.u.e);
    return true;
}

void hostmemo_put_shared(hm_share *sh, const char *host, size_t len, uint32_t hash,
                         const urisan_hostview *hv)
{
    hm_entry e;
    if (!make_entry(host, len, hv, &e))
        return;
    pthread_mutex_lock(&sh->mu);
    /* the writers' own reads: no writer runs beside this one */
    const hm_table *t = sh->t;
    if (!holds(&t->e[slot_a(hash)], host, len) && !holds(&t->e[slot_b(hash)], host, len))
        insert(sh->t, sh, e, hash);
    pthread_mutex_unlock(&sh->mu);
}
