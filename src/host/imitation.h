/*
 * imitation.h - does a host imitate a protected name? Pure functions: no
 * ICU, no libpsl, no allocation; the host layer hands in the forms of
 * the host it computed (A-labels, registrable domain, the UTS #39
 * skeleton of its brand label) and gets back homograph, lookalike or
 * nothing, and the protected name imitated.
 *
 * The brand label of a name is the label just left of its public suffix
 * (paypal in www.paypal.co.uk). Two brand labels look alike when their
 * keys are equal: the UTS #39 skeleton (confusable letters of every
 * script mapped to one prototype; "m" is "rn" there), lower-cased, with
 * the ASCII letters a reader takes for one another folded together - i,
 * l, 1, | and ! to l, 0 and o to o, vv to w, and Greek kappa and
 * Cyrillic ka (kra in the skeleton) to k. The fold is needed because UTS #39 keeps l apart from
 * i (Cyrillic palochka is "i" to it, though it is drawn as l), O apart
 * from 0 and kappa apart from k.
 *
 *   homograph: the host's brand label has a non-ASCII (IDN) form and its
 *              key is a protected name's key, and the host is not that
 *              name or under it: аррӏе.com imitates apple.com.
 *   lookalike: the same for an all-ASCII brand label that is not the
 *              protected brand label itself: rnicrosoft.com, paypa1.com,
 *              micros0ft.com. apple.net (the same letters under another
 *              suffix) is neither.
 */
#ifndef URISAN_HOST_IMITATION_H
#define URISAN_HOST_IMITATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IMIT_NAME_MAX 254    /* a protected name: a DNS name */
#define IMIT_KEY_MAX 128     /* a brand label's key, bytes */
#define IMIT_SLOTS 512       /* hash slots: at most half of them used */
#define IMIT_MAX (IMIT_SLOTS / 2)
#define IMIT_PAIR_BITS 4096   /* imit_list.pairs */

typedef struct {
    char name[IMIT_NAME_MAX];   /* the protected name, lower case */
    size_t brand_off, brand_len; /* its brand label within name */
    char key[IMIT_KEY_MAX];
    size_t key_len;
} imit_name;

typedef struct {
    size_t n;
    imit_name names[IMIT_MAX];
    uint16_t slot[IMIT_SLOTS];  /* 1 + index into names; 0: empty */
    /* The first two bytes of each listed key, hashed to a bit (a key of
       one byte sets every bit): a brand label whose key starts with a
       pair not set here imitates no listed name (imit_list_may). */
    uint64_t pairs[IMIT_PAIR_BITS / 64];
} imit_list;

/*
 * The key of a skeleton (as ICU writes it, UTF-8) s[0..n) into key (cap
 * bytes): false when it does not fit. ASCII, kappa and ka are folded;
 * other bytes are copied.
 */
bool imit_key(const char *s, size_t n, char *key, size_t cap, size_t *klen);

void imit_list_init(imit_list *l);

/* May a key that starts with k[0..n) (n >= 2 bytes of it, or the whole
   key when shorter) be a listed one's? false: certainly not. The key of
   a brand label's first four bytes starts as the label's whole key does
   (imit_key looks one byte ahead; each byte's skeleton is a byte or
   more), so a caller can ask before making the whole key. */
bool imit_list_may(const imit_list *l, const char *k, size_t n);

/*
 * Protect name[0..n) (a registrable domain, A-labels, any case), whose
 * brand label starts at brand_off and is brand_len bytes long, with
 * brand_skel[0..sn) the UTS #39 skeleton of that label. false when the
 * list is full, the name too long or its key does not fit. A second name
 * with the key of one already listed is accepted and not looked up: the
 * first is the one named.
 */
bool imit_list_add(imit_list *l, const char *name, size_t n, size_t brand_off,
                   size_t brand_len, const char *brand_skel, size_t sn);

/* The forms of a host the judgement needs. */
typedef struct {
    const char *registrable;   /* registrable domain, A-labels, lower case */
    size_t registrable_len;    /* 0: none (an IP address, a bare suffix) */
    size_t brand_len;          /* the brand label: registrable[0..brand_len) */
    const char *brand_skel;    /* UTS #39 skeleton of the brand label's
                                  Unicode form (UTF-8) */
    size_t brand_skel_len;
    bool brand_idn;            /* the brand label is an IDN (non-ASCII or
                                  an A-label) */
} imit_host;

typedef enum { IMIT_NONE = 0, IMIT_HOMOGRAPH = 1, IMIT_LOOKALIKE = 2 } imit_kind;

/* What h is to the names of l; *imitates: the protected name (NUL-
   terminated, in l), NULL for IMIT_NONE. */
imit_kind imit_judge(const imit_list *l, const imit_host *h, const char **imitates);

#endif
