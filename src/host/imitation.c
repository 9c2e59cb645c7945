/*
 * imitation.c - does a host imitate a protected name? (imitation.h)
 */
#include "imitation.h"

#include <string.h>

static unsigned char lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? (unsigned char)(c | 0x20) : c; }

bool imit_key(const char *s, size_t n, char *key, size_t cap, size_t *klen)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = lower((unsigned char)s[i]);
        /* kra (C4 B8: the skeleton of Greek kappa and Cyrillic ka), and
           kappa (CE BA) and ka (D0 BA) themselves: UTS #39 keeps them
           apart from k, a reader takes them for k */
        if (((c == 0xCE || c == 0xD0) && i + 1 < n && (unsigned char)s[i + 1] == 0xBA) ||
            (c == 0xC4 && i + 1 < n && (unsigned char)s[i + 1] == 0xB8)) {
            c = 'k';
            i++;
        }
        if (c == 'i' || c == '1' || c == '|' || c == '!')
            c = 'l';
        else if (c == '0')
            c = 'o';
        else if (c == 'v' && i + 1 < n && lower((unsigned char)s[i + 1]) == 'v') {
            c = 'w';
            i++;
        }
        if (o == cap)
            return false;
        key[o++] = (char)c;
    }
    *klen = o;
    return true;
}

/* FNV-1a of k[0..n). */
static uint32_t key_hash(const char *k, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)k[i]) * 16777619u;
    return h;
}

void imit_list_init(imit_list *l)
{
    l->n = 0;
    memset(l->slot, 0, sizeof l->slot);
    memset(l->pairs, 0, sizeof l->pairs);
}

static unsigned pair_bit(const char *k)
{
    return ((unsigned)(unsigned char)k[0] * 67u + (unsigned char)k[1]) % IMIT_PAIR_BITS;
}

bool imit_list_may(const imit_list *l, const char *k, size_t n)
{
    if (n < 2)
        return l->n > 0;
    unsigned b = pair_bit(k);
    return (l->pairs[b / 64] >> (b % 64)) & 1u;
}

/* The listed name with key k[0..n), or NULL. */
static const imit_name *find(const imit_list *l, const char *k, size_t n)
{
    for (uint32_t h = key_hash(k, n), i = 0; i < IMIT_SLOTS; i++) {
        unsigned s = l->slot[(h + i) & (IMIT_SLOTS - 1)];
        if (s == 0)
            return NULL;
        const imit_name *e = &l->names[s - 1];
        if (e->key_len == n && memcmp(e->key, k, n) == 0)
            return e;
    }
    return NULL;
}

bool imit_list_add(imit_list *l, const char *name, size_t n, size_t brand_off,
                   size_t brand_len, const char *brand_skel, size_t sn)
{
    if (l->n == IMIT_MAX || n >= IMIT_NAME_MAX || brand_off > n || brand_len > n - brand_off)
        return false;
    imit_name *e = &l->names[l->n];
    if (!imit_key(brand_skel, sn, e->key, sizeof e->key, &e->key_len))
        return false;
    if (find(l, e->key, e->key_len) != NULL)
        return true;
    for (size_t i = 0; i < n; i++)
        e->name[i] = (char)lower((unsigned char)name[i]);
    e->name[n] = '\0';
    e->brand_off = brand_off;
    e->brand_len = brand_len;
    if (e->key_len < 2) {
        memset(l->pairs, 0xff, sizeof l->pairs);
    } else {
        unsigned b = pair_bit(e->key);
        l->pairs[b / 64] |= (uint64_t)1 << (b % 64);
    }
    uint32_t h = key_hash(e->key, e->key_len);
    for (uint32_t i = 0;; i++) {
        uint16_t *s = &l->slot[(h + i) & (IMIT_SLOTS - 1)];
        if (*s == 0) {
            *s = (uint16_t)(++l->n);
            return true;
        }
    }
}

/* a[0..n) and b[0..n) equal without ASCII case? */
static bool ieq(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (lower((unsigned char)a[i]) != lower((unsigned char)b[i]))
            return false;
    return true;
}

imit_kind imit_judge(const imit_list *l, const imit_host *h, const char **imitates)
{
    *imitates = NULL;
    char key[IMIT_KEY_MAX];
    size_t kn;
    if (l->n == 0 || h->registrable_len == 0 || h->brand_len == 0 ||
        !imit_key(h->brand_skel, h->brand_skel_len, key, sizeof key, &kn))
        return IMIT_NONE;
    const imit_name *e = find(l, key, kn);
    if (e == NULL)
        return IMIT_NONE;
    size_t en = strlen(e->name);
    /* the protected name itself, or a name under it */
    if (h->registrable_len == en && ieq(h->registrable, e->name, en))
        return IMIT_NONE;
    imit_kind k = IMIT_HOMOGRAPH;
    if (!h->brand_idn) {
        /* the same letters under another suffix is no look-alike */
        if (h->brand_len == e->brand_len &&
            ieq(h->registrable, e->name + e->brand_off, e->brand_len))
            return IMIT_NONE;
        k = IMIT_LOOKALIKE;
    }
    *imitates = e->name;
    return k;
}
