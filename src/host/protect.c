/*
 * protect.c - the protected names of a policy (protect-host) and what a
 * host is to them (imitation.c: homograph, lookalike, the name imitated).
 *
 * A policy that protects names has its own meaning of homograph: the
 * host's brand label (the label left of its public suffix) has an IDN
 * form whose UTS #39 skeleton is a protected name's, and the host is not
 * that name; lookalike is the same for an all-ASCII brand label. The
 * TR39 judgement of the view (mixed script, a label confusable with any
 * ASCII one, mixed numbers) is the homograph of a policy that protects no
 * name: with no name to compare with, every ASCII name is taken as one.
 */
#include "host_internal.h"
#include "imitation.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* a byte of a dotted word: letter, digit, '-', '.' */
static inline bool cc_word(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.';
}

/* The list of a context: made from a policy's names, kept under its id. */
struct host_protect {
    uint64_t id;
    imit_list list;
    /* the key of each ASCII byte's skeleton alone (imit_key of
       host_skeleton_ascii), at most 2 bytes: fk_len 0 when it has none
       or is longer; fk_ok false when a byte other than 'v' holds a 'v'
       (then vv could straddle two bytes and surely_none asks nothing) */
    char fk[128][2];
    unsigned char fk_len[128];
    bool fk_ok;
    /* the brand labels of the list, hashed (brand_hash): 1 + index into
       list.names; 0 empty (at most half the slots used) */
    uint16_t bslot[IMIT_SLOTS];
    /* the names themselves, hashed from their last byte to their first
       (name_step): 1 + index; 0 empty */
    uint16_t nslot[IMIT_SLOTS];
};

static inline uint32_t name_step(uint32_t h, unsigned char c)
{
    return (h ^ c) * 16777619u;
}

static uint32_t brand_hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* host_protect's bslot (once a list). */
static void brand_slots(struct host_protect *p)
{
    memset(p->bslot, 0, sizeof p->bslot);
    memset(p->nslot, 0, sizeof p->nslot);
    for (size_t i = 0; i < p->list.n; i++) {
        const imit_name *nm = &p->list.names[i];
        uint32_t s = brand_hash(nm->name + nm->brand_off, nm->brand_len) & (IMIT_SLOTS - 1);
        while (p->bslot[s] != 0)
            s = (s + 1) & (IMIT_SLOTS - 1);
        p->bslot[s] = (uint16_t)(i + 1);
        uint32_t h = 2166136261u;
        for (size_t k = strlen(nm->name); k-- > 0;)
            h = name_step(h, (unsigned char)nm->name[k]);
        for (s = h & (IMIT_SLOTS - 1); p->nslot[s] != 0; s = (s + 1) & (IMIT_SLOTS - 1))
            ;
        p->nslot[s] = (uint16_t)(i + 1);
    }
}

static void first_keys(struct host_protect *p);

static bool high_bytes(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80)
            return true;
    return false;
}

/*
 * The forms imit_judge reads from a name's view: the registrable domain,
 * its brand label (first label), and the UTS #39 skeleton of that label's
 * Unicode form (the label as many places from the right in hv->unicode)
 * into skel. false when the host has no registrable domain (an address,
 * a public suffix) or no skeleton can be had.
 */
static bool brand_forms(const urisan_hostview *hv, imit_host *ih, char *skel, size_t cap,
                        const char **label, size_t *label_len)
{
    const char *reg = hv->registrable, *u = hv->unicode;
    size_t rl = hv->registrable_len, nlab = 1;
    if (!hv->is_name || rl == 0 || host_spoof() == NULL)
        return false;
    for (size_t i = 0; i < rl; i++)
        nlab += reg[i] == '.';
    size_t e = hv->unicode_len, s;
    for (size_t k = 1;; k++) {
        s = e;
        while (s > 0 && u[s - 1] != '.')
            s--;
        if (k == nlab)
            break;
        if (s == 0)
            return false;
        e = s - 1;
    }
    size_t sn = 0;
    bool jplain = true;
    if (!high_bytes(u + s, e - s)) {
        if (!host_skeleton_ascii(u + s, e - s, skel, cap, &jplain))
            return false;
        sn = strlen(skel);
    } else {
        UErrorCode st = U_ZERO_ERROR;
        int32_t k = uspoof_getSkeletonUTF8(host_spoof(), 0, u + s, (int32_t)(e - s), skel,
                                           (int32_t)cap, &st);
        if (U_FAILURE(st) || k <= 0 || (size_t)k >= cap)
            return false;
        sn = (size_t)k;
    }
    const char *dot = memchr(reg, '.', rl);
    if (label != NULL) {
        *label = u + s;
        *label_len = e - s;
    }
    ih->registrable = reg;
    ih->registrable_len = rl;
    ih->brand_len = dot != NULL ? (size_t)(dot - reg) : rl;
    ih->brand_skel = skel;
    ih->brand_skel_len = sn;
    ih->brand_idn = high_bytes(u + s, e - s) || strncmp(reg, "xn--", 4) == 0;
    return sn > 0;
}

/* The list of pol's names (id: its urisan_policy_protected_id), made in
   ctx once; NULL: no memory. A name with no registrable domain (a public
   suffix) protects nothing; a name under one protects its registrable
   domain. */
static const imit_list *protect_list(urisan_host_ctx *ctx, const urisan_policy *pol, uint64_t id)
{
    if (ctx->protect != NULL && ctx->protect->id == id)
        return &ctx->protect->list;
    if (ctx->protect == NULL && (ctx->protect = malloc(sizeof *ctx->protect)) == NULL)
        return NULL;
    urisan_hostview *hv = malloc(sizeof *hv);
    if (hv == NULL)
        return NULL;
    imit_list *l = &ctx->protect->list;
    imit_list_init(l);
    ctx->protect->id = 0;
    const char *name;
    size_t n;
    for (size_t i = 0; (name = urisan_policy_protected(pol, i, &n)) != NULL; i++) {
        imit_host ih;
        char skel[4 * 64 + 1];
        if (urisan_host_view(ctx, name, n, hv) &&
            brand_forms(hv, &ih, skel, sizeof skel, NULL, NULL))
            (void)imit_list_add(l, ih.registrable, ih.registrable_len, 0, ih.brand_len,
                                ih.brand_skel, ih.brand_skel_len);
    }
    free(hv);
    first_keys(ctx->protect);
    brand_slots(ctx->protect);
    ctx->protect->id = id;
    return l;
}

/* host_protect's fk, fk_len, fk_ok (once a list). */
static void first_keys(struct host_protect *p)
{
    p->fk_ok = true;
    for (unsigned c = 0; c < 128; c++) {
        char in[1] = { (char)c }, sk[64], key[8];
        size_t kn = 0;
        bool jplain;
        p->fk_len[c] = 0;
        /* upper case: never in a registrable domain (lower-cased) */
        if (c < 0x21 || c == 0x7f || (c >= 'A' && c <= 'Z') || !host_skeleton_ascii(in, 1, sk, sizeof sk, &jplain) ||
            !imit_key(sk, strlen(sk), key, sizeof key, &kn) || kn == 0 || kn > 2)
            continue;
        memcpy(p->fk[c], key, kn);
        p->fk_len[c] = (unsigned char)kn;
        if (c != 'v' && memchr(key, 'v', kn) != NULL)
            p->fk_ok = false;
    }
}

/* A plain ASCII host whose brand label cannot imitate a protected name,
   told from the first two bytes of its key (imit_list_may) before the
   whole key is made: most hosts of a message stop here. */
static bool surely_none(const struct host_protect *p, const urisan_hostview *hv)
{
    if (hv->idn || hv->registrable_len == 0)
        return !hv->idn;
    if (!p->fk_ok)
        return false;
    const unsigned char *b = (const unsigned char *)hv->registrable;
    size_t n = hv->registrable_len, kn = 0;
    char key[4];
    for (size_t i = 0; i < n && b[i] != '.' && kn < 2; i++) {
        if (b[i] == 'v' && i + 1 < n && b[i + 1] == 'v') {
            key[kn++] = 'w';   /* imit_key's vv */
            i++;
            continue;
        }
        unsigned c = b[i] & 0x7f, l = p->fk_len[c];
        if (l == 0)
            return false;      /* let the whole judgement decide */
        memcpy(key + kn, p->fk[c], l);
        kn += l;
    }
    return !imit_list_may(&p->list, key, kn < 2 ? kn : 2);
}

/*
 * brand_misplaced, of a host: a protected name's brand label is a token
 * of the host ('.' and '-' separate them: paypal.com.secure-login.example,
 * microsoft-365.example, login-paypal.example), and the host's own brand
 * label is not that brand (www.paypal.com, paypal.de: the brand's own
 * names). Each token is looked up in the brand labels' hash.
 */
static bool brand_in_host(const struct host_protect *p, const urisan_hostview *hv)
{
    const char *reg = hv->registrable, *h = hv->ascii;
    size_t rl = hv->registrable_len;
    if (!hv->is_name || rl == 0)
        return false;
    const char *dot = memchr(reg, '.', rl);
    size_t own = dot != NULL ? (size_t)(dot - reg) : rl;
    for (size_t i = 0, e; h[i] != '\0'; i = e + (h[e] != '\0')) {
        uint32_t hash = 2166136261u;
        for (e = i; h[e] != '\0' && h[e] != '.' && h[e] != '-'; e++)
            hash = (hash ^ (unsigned char)h[e]) * 16777619u;
        for (uint32_t s = hash & (IMIT_SLOTS - 1); p->bslot[s] != 0; s = (s + 1) & (IMIT_SLOTS - 1)) {
            const imit_name *nm = &p->list.names[p->bslot[s] - 1];
            if (nm->brand_len == e - i && memcmp(nm->name + nm->brand_off, h + i, e - i) == 0 &&
                !(own == e - i && memcmp(reg, h + i, own) == 0))
                return true;
        }
    }
    return false;
}

/* Does s[0..n) (any case) name a protected name, or a name under one, as
   a dotted word (letters, digits, '-', '.') other than the host's own
   registrable domain reg[0..rl)? Each suffix of a word that starts a
   label is looked up in the names' hash, hashed from the word's end. */
static bool names_brand(const struct host_protect *p, const char *s, size_t n, const char *reg,
                        size_t rl)
{
    for (size_t i = 0; i < n;) {
        if (s[i] != '.') {
            i++;
            continue;
        }
        size_t a = i, e = i;
        while (a > 0 && cc_word((unsigned char)s[a - 1]))
            a--;
        while (e < n && cc_word((unsigned char)s[e]))
            e++;
        uint32_t h = 2166136261u;
        for (size_t pos = e; pos-- > a;) {
            unsigned char c = (unsigned char)s[pos];
            h = name_step(h, c >= 'A' && c <= 'Z' ? (unsigned char)(c | 0x20) : c);
            if (pos > a && s[pos - 1] != '.')
                continue;
            for (uint32_t k = h & (IMIT_SLOTS - 1); p->nslot[k] != 0; k = (k + 1) & (IMIT_SLOTS - 1)) {
                const char *nm = p->list.names[p->nslot[k] - 1].name;
                size_t nn = strlen(nm);
                if (nn == e - pos && strncasecmp(s + pos, nm, nn) == 0 &&
                    !(rl == nn && memcmp(reg, nm, nn) == 0))
                    return true;
            }
        }
        i = e + 1;
    }
    return false;
}

urisan_flags host_brand_elsewhere(urisan_host_ctx *ctx, const urisan_policy *pol, const char *in,
                                  size_t len, const urisan_uri *u, const urisan_hostview *hv)
{
    uint64_t id = urisan_policy_protected_id(pol);
    if (id == 0 || u == NULL)
        return 0;
    const char *reg = hv != NULL && hv->is_name ? hv->registrable : "";
    size_t rl = hv != NULL && hv->is_name ? hv->registrable_len : 0;
    const urisan_span sp[2] = { u->userinfo, u->path };
    const imit_list *l = NULL;
    for (size_t i = 0; i < 2; i++) {
        /* a name needs a dot: most paths have none, and then no list is asked */
        if (sp[i].off == URISAN_ABSENT || sp[i].off > len || sp[i].len > len - sp[i].off ||
            memchr(in + sp[i].off, '.', sp[i].len) == NULL)
            continue;
        if (l == NULL && (l = protect_list(ctx, pol, id)) == NULL)
            return 0;
        if (names_brand(ctx->protect, in + sp[i].off, sp[i].len, reg, rl))
            return URISAN_F(BRAND_MISPLACED);
    }
    return 0;
}

urisan_flags host_name_flags(urisan_host_ctx *ctx, const urisan_policy *pol, urisan_hostview *hv)
{
    uint64_t id = urisan_policy_protected_id(pol);
    if (id == 0)
        return hv->flags;
    if (hv->imitation_of != id) {
        const imit_list *l = protect_list(ctx, pol, id);
        if (l == NULL)
            return hv->flags | URISAN_F(HOMOGRAPH);   /* no memory: fail closed */
        imit_host ih;
        char skel[4 * 64 + 1];
        const char *name = NULL, *label = NULL;
        size_t label_len = 0;
        bool forms = !surely_none(ctx->protect, hv) &&
                     brand_forms(hv, &ih, skel, sizeof skel, &label, &label_len);
        imit_kind k = forms ? imit_judge(l, &ih, &name) : IMIT_NONE;
        /* an IDN brand label that imitates none under its skeleton: its
           diacritics dropped and the look-alikes TR39 leaves alone folded
           (fold.c), as a spoof checker reads it */
        size_t fn = 0;
        if (forms && k == IMIT_NONE && ih.brand_idn &&
            host_fold_skeleton(label, label_len, skel, sizeof skel, &fn)) {
            ih.brand_skel = skel;
            ih.brand_skel_len = fn;
            k = imit_judge(l, &ih, &name);
        }
        /* TR39 5.2: a label mixing scripts (Latin with Cyrillic ...) is a
           homograph under protected names too, imitating no listed one */
        hv->imitation = k == IMIT_HOMOGRAPH   ? URISAN_F(HOMOGRAPH)
                        : k == IMIT_LOOKALIKE ? URISAN_F(LOOKALIKE)
                        : (hv->why & URISAN_HOSTVIEW_MIXED_SCRIPT) ? URISAN_F(HOMOGRAPH)
                                              : 0;
        if (brand_in_host(ctx->protect, hv))
            hv->imitation |= URISAN_F(BRAND_MISPLACED);
        size_t nl = name != NULL ? strlen(name) : 0;
        memcpy(hv->imitates, name != NULL ? name : "", nl + 1);
        hv->imitates_len = nl;
        hv->imitation_of = id;
    }
    return (hv->flags & ~URISAN_F(HOMOGRAPH)) | hv->imitation;
}

URISAN_API bool urisan_host_skeleton_shown(const urisan_hostview *hv, urisan_flags flags)
{
    return hv != NULL && hv->is_name &&
           (hv->idn || (flags & (URISAN_F(HOMOGRAPH) | URISAN_F(LOOKALIKE))) != 0);
}
