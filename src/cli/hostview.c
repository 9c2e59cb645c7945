/*
 * hostview.c - a host as a reader sees it (issue 15; see hostview.h).
 *
 * Unicode TR39 through ICU's spoof checker, not tables of our own:
 * - mixed script: a label fails TR39 5.2 "moderately restrictive" (Latin
 *   with Cyrillic or Greek, any two scripts that are not Latin + one
 *   other recommended script, CJK combinations allowed);
 * - confusable: a non-ASCII label whose non-ASCII characters all have an
 *   ASCII TR39 4 skeleton looks like the ASCII label they spell: the
 *   label's skeleton is that label's skeleton (skeletons are fixed
 *   points), and the ASCII name is what host_imitates shows.
 *   This is the whole-script confusable of TR39 4 for a label written
 *   entirely in Cyrillic or Greek lookalikes ("аррӏе"), and the
 *   same-script one for Latin lookalikes ("ɑpple"). A label in the
 *   script of a non-ASCII top-level label (".рф") is not judged against
 *   ASCII: there it is read in its own script;
 * - mixed numbers: digits of more than one numbering system.
 * A-labels are decoded with libidn2 (IDNA2008 + UTS #46 mapping) so the
 * reader's form and the skeleton are those of the U-labels.
 */
#include "hostview.h"
#include "hostmemo.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#if defined(__SSE2__) && !defined(URISAN_NO_SIMD)
#include <emmintrin.h>
#define HOSTVIEW_SSE2 1
#endif

#include <idn2.h>
#include <libpsl.h>
#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/uscript.h>
#include <unicode/uspoof.h>
#include <unicode/ustring.h>
#include <unicode/utf8.h>

static USpoofChecker *spoof;
static psl_ctx_t *psl_loaded;      /* psl_latest(): ours to free */
static const psl_ctx_t *psl_list;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static bool has_high(const char *s, size_t n);

/* The TR39 skeleton of each printable ASCII byte, when it is ASCII (NULL
   otherwise): the skeleton of an ASCII string is then the concatenation
   of its bytes' skeletons (NFD leaves ASCII alone), with no ICU call. */
static char ascii_skel[128][8];
static unsigned char ascii_skel_len[128];   /* 0: none */
static bool ascii_skel_jbad[128];   /* the skeleton holds '"', '\\' or DEL */

/* Registrable domains by host, one cache per thread: libpsl costs
   ~9,000 instructions a host; hosts repeat in logs. The answer is a
   suffix of the host (psl_registrable_domain points into it), so an entry
   holds the host and the offset of that suffix. 8-way set associative
   (a set is one host's 8 candidate slots, newest first, 4 MiB in all):
   in a direct-mapped table of the same size the 30,169 distinct hosts of
   the shared URL lists evicted each other on every pass (133,223 libpsl
   calls for the 1,090,610 lines of the x10 file; 61,531 with 4 ways).
   A set's hashes sit side by side, so a probe reads one cache line of
   them and then the one slot whose hash matches. Since hostmemo.c keeps
   whole views, this cache serves the hosts it does not keep. */
#define PSL_CACHE_SETS (1u << 13)
#define PSL_CACHE_WAYS 8
#define PSL_CACHE_KEY 62
typedef struct {
    unsigned char len;         /* 0: empty slot */
    signed char reg;           /* offset of the registrable domain, -1: none */
    char host[PSL_CACHE_KEY];
} psl_slot;
typedef struct {
    uint32_t hash[PSL_CACHE_SETS][PSL_CACHE_WAYS];   /* of each slot's host */
    psl_slot slot[PSL_CACHE_SETS][PSL_CACHE_WAYS];
} psl_table;
static pthread_key_t psl_key;
static bool psl_key_ok;
static _Thread_local psl_table *psl_cache;   /* this thread's, also under psl_key */

/* What decode_host does with a byte beyond copying it (0: only that). */
enum {
    HB_REFUSE = 1,   /* no host name has it: < 0x21, '/', '@', ':', '[' */
    HB_UPPER = 2,    /* 'A'-'Z': lower-cased */
    HB_JBAD = 4,     /* '"', '\\', DEL: JSON escapes it */
    HB_HIGH = 8,     /* >= 0x80 */
    HB_PCT = 16,     /* '%': an escape may start */
    HB_DASH = 32,    /* '-': may end "xn--" */
};
static unsigned char host_cls[256];

static void init_host_cls(void)
{
    for (unsigned c = 0; c < 256; c++) {
        unsigned k = 0;
        if (c < 0x21 || c == '/' || c == '@' || c == ':' || c == '[')
            k |= HB_REFUSE;
        if (c >= 'A' && c <= 'Z')
            k |= HB_UPPER;
        if (c == '"' || c == '\\' || c == 0x7f)
            k |= HB_JBAD;
        if (c >= 0x80)
            k |= HB_HIGH;
        if (c == '%')
            k |= HB_PCT;
        if (c == '-')
            k |= HB_DASH;
        host_cls[c] = (unsigned char)k;
    }
}

static void init_ascii_skel(void)
{
    for (unsigned c = 0x21; c < 0x7f; c++) {
        char in[1] = { (char)c };
        char out[8];
        UErrorCode st = U_ZERO_ERROR;
        int32_t n = uspoof_getSkeletonUTF8(spoof, 0, in, 1, out, (int32_t)sizeof out, &st);
        if (U_FAILURE(st) || n <= 0 || (size_t)n >= sizeof out || has_high(out, (size_t)n))
            continue;
        memcpy(ascii_skel[c], out, (size_t)n);
        ascii_skel_len[c] = (unsigned char)n;
        for (int32_t k = 0; k < n; k++)
            if (out[k] == '"' || out[k] == '\\' || out[k] == 0x7f || (unsigned char)out[k] < 0x20)
                ascii_skel_jbad[c] = true;
    }
}

static void init_once(void)
{
    UErrorCode st = U_ZERO_ERROR;
    USpoofChecker *sc = uspoof_open(&st);
    if (U_SUCCESS(st)) {
        uspoof_setRestrictionLevel(sc, USPOOF_MODERATELY_RESTRICTIVE);
        uspoof_setChecks(sc, USPOOF_RESTRICTION_LEVEL | USPOOF_MIXED_NUMBERS, &st);
    }
    if (U_SUCCESS(st)) {
        spoof = sc;
    } else if (sc != NULL) {
        uspoof_close(sc);
    }
    /* The newer of the system's list and the one built into libpsl. */
    psl_loaded = psl_latest(NULL);
    psl_list = psl_loaded ? psl_loaded : psl_builtin();
    if (spoof != NULL)
        init_ascii_skel();
    init_host_cls();
    psl_key_ok = pthread_key_create(&psl_key, free) == 0;
}

bool hostview_init(void)
{
    pthread_once(&once, init_once);
    return spoof != NULL;
}

void hostview_shutdown(void)
{
    /* Only at exit, after every thread is done. */
    if (spoof != NULL)
        uspoof_close(spoof);
    if (psl_loaded != NULL)
        psl_free(psl_loaded);
    hostmemo_free();
    if (psl_key_ok) {
        free(pthread_getspecific(psl_key));
        pthread_setspecific(psl_key, NULL);
        psl_cache = NULL;
    }
    spoof = NULL;
    psl_loaded = NULL;
    psl_list = NULL;
}

/* ------------------------------------------------------------------ */
/* UTS #46 (issue 18): the host a browser resolves                     */
/* ------------------------------------------------------------------ */

/*
 * Does the host as written hold a code point that UTS #46 processing
 * removes or replaces by more than its case folding? Those are the
 * ignored code points (zero-width joiners and spaces, soft hyphen,
 * variation selectors: NFKC_Casefold maps them to nothing), the
 * compatibility mappings (mathematical alphanumerics, fullwidth forms,
 * ligatures, circled letters: a compatibility decomposition; code points
 * NFKC_Casefold maps otherwise than the case folding), and format controls (bidi embeddings and marks, U+2060-2064,
 * U+FEFF: general category Cf), which UTS #46 ignores or refuses. The UTS
 * #46 mapping is NFKC_Casefold with a few deviations (ß, ς, ZWJ, ZWNJ
 * kept non-transitionally); a letter that only changes case is not
 * counted.
 */
static bool uts46_maps(const char *raw, size_t n)
{
    UErrorCode st = U_ZERO_ERROR;
    const UNormalizer2 *nkcf = unorm2_getNFKCCasefoldInstance(&st);
    if (U_FAILURE(st) || nkcf == NULL)
        return false;
    for (int32_t i = 0; (size_t)i < n;) {
        UChar32 c;
        U8_NEXT(raw, i, (int32_t)n, c);
        if (c < 0x80)
            continue;
        if (u_charType(c) == U_FORMAT_CHAR)
            return true;
        int32_t dt = u_getIntPropertyValue(c, UCHAR_DECOMPOSITION_TYPE);
        if (dt != U_DT_NONE && dt != U_DT_CANONICAL)
            return true; /* a compatibility mapping: <font>, <wide>, <compat> ... */
        UChar in[2], mapped[32], folded[32];
        int32_t il = 0;
        U16_APPEND_UNSAFE(in, il, c);
        st = U_ZERO_ERROR;
        int32_t ml = unorm2_normalize(nkcf, in, il, mapped, 32, &st);
        if (U_FAILURE(st))
            continue;
        st = U_ZERO_ERROR;
        int32_t fl = u_strFoldCase(folded, 32, in, il, U_FOLD_CASE_DEFAULT, &st);
        if (U_FAILURE(st))
            continue;
        if (ml != fl || u_memcmp(mapped, folded, ml) != 0)
            return true;
    }
    return false;
}

/* ------------------------------------------------------------------ */
/* invisible characters                                                */
/* ------------------------------------------------------------------ */

static bool is_invisible(UChar32 c)
{
    return (c >= 0x200B && c <= 0x200F) ||   /* ZWSP ZWNJ ZWJ LRM RLM */
           (c >= 0x202A && c <= 0x202E) ||   /* LRE RLE PDF LRO RLO */
           (c >= 0x2060 && c <= 0x2064) ||   /* WJ, invisible operators */
           (c >= 0x2066 && c <= 0x2069) ||   /* LRI RLI FSI PDI */
           c == 0xFEFF || c == 0x061C ||     /* ZWNBSP, ALM */
           c == 0x180E || c == 0x00AD ||     /* MVS, soft hyphen */
           c == 0x034F;                      /* CGJ */
}

bool hostview_has_invisible(const char *text, size_t len)
{
    const uint8_t *s = (const uint8_t *)text;
    size_t i = 0;
    while (i < len) {
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        /* U8_NEXT takes an int32_t length: walk in bounded windows. */
        size_t win = len - i < 8 ? len - i : 8;
        int32_t j = 0;
        UChar32 c;
        U8_NEXT(s + i, j, (int32_t)win, c);
        if (c >= 0 && is_invisible(c))
            return true;
        i += j > 0 ? (size_t)j : 1;
    }
    return false;
}

/* ------------------------------------------------------------------ */
/* the host                                                            */
/* ------------------------------------------------------------------ */

static int hexv(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (unsigned char)(c | 0x20);
    return (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
}

/* %XX decoded, ASCII lower-cased, the root dot dropped: the length
   written to out (NUL-terminated), 0 when it does not fit or holds a byte
   no host name has. What it saw: *high, a byte >= 0x80; *xn, "xn--";
   *jplain, no byte JSON escapes. One class-table look-up a byte. */
static size_t decode_host(const char *s, size_t n, char *out, size_t cap, bool *high,
                          bool *xn, bool *jplain)
{
    size_t o = 0;
    unsigned seen = 0;
    bool xn_seen = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        unsigned k = host_cls[c];
        if (k != 0) {
            if ((k & HB_PCT) && i + 2 < n && hexv((unsigned char)s[i + 1]) >= 0 &&
                hexv((unsigned char)s[i + 2]) >= 0) {
                c = (unsigned char)(hexv((unsigned char)s[i + 1]) * 16 +
                                    hexv((unsigned char)s[i + 2]));
                i += 2;
                k = host_cls[c];
            }
            if (k & HB_REFUSE)
                return 0;
            if (k & HB_UPPER)
                c = (unsigned char)(c | 0x20);
            if ((k & HB_DASH) && o >= 3 && out[o - 1] == '-' && out[o - 2] == 'n' &&
                out[o - 3] == 'x')
                xn_seen = true;
            seen |= k;
        }
        if (o + 1 >= cap)
            return 0;
        out[o++] = (char)c;
    }
    while (o > 0 && out[o - 1] == '.')
        o--;
    out[o] = '\0';
    *high = (seen & HB_HIGH) != 0;
    *xn = xn_seen;
    *jplain = (seen & (HB_HIGH | HB_JBAD)) == 0;
    return o;
}

/* WHATWG reads a host whose last label is a number as IPv4 (0x7f.1,
   2130706433): an address, not a name. h[0..n) has no NUL. */
static bool ends_in_number(const char *h, size_t n)
{
    size_t i = n;
    while (i > 0 && h[i - 1] != '.')
        i--;
    const char *last = h + i, *end = h + n;
    if (last[0] == '0' && (last[1] == 'x' || last[1] == 'X')) {
        for (const char *p = last + 2; p < end; p++)
            if (hexv((unsigned char)*p) < 0)
                return false;
        return true;
    }
    if (last == end)
        return false;
    for (const char *p = last; p < end; p++)
        if (*p < '0' || *p > '9')
            return false;
    return true;
}

static bool is_ascii_label(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '-'))
            return false;
    }
    return n > 0;
}

static bool has_high(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80)
            return true;
    return false;
}

/* The script of the first letter of s[0..n) (USCRIPT_COMMON if none). */
static UScriptCode first_script(const char *s, size_t n)
{
    int32_t i = 0, len = (int32_t)n;
    while (i < len) {
        UChar32 c;
        U8_NEXT((const uint8_t *)s, i, len, c);
        if (c < 0)
            continue;
        UErrorCode st = U_ZERO_ERROR;
        UScriptCode sc = uscript_getScript(c, &st);
        if (U_SUCCESS(st) && sc != USCRIPT_COMMON && sc != USCRIPT_INHERITED)
            return sc;
    }
    return USCRIPT_COMMON;
}

/* dst := src when it fits (else dst is ""); false when it did not. */
static bool copy_str(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    dst[0] = '\0';
    if (n >= cap)
        return false;
    memcpy(dst, src, n + 1);
    return true;
}

static bool append(char *out, size_t cap, size_t *o, const char *s, size_t n)
{
    if (*o + n + 1 > cap)
        return false;
    memcpy(out + *o, s, n);
    *o += n;
    out[*o] = '\0';
    return true;
}

/* The label with each non-ASCII character replaced by its own TR39
   skeleton (ASCII kept as written: "m" stays "m", not "rn"); false when
   the result is not an ASCII label. */
static bool ascii_lookalike(const char *lab, size_t n, char *out, size_t cap, size_t *outn)
{
    size_t o = 0;
    int32_t i = 0, len = (int32_t)n;
    while (i < len) {
        int32_t start = i;
        UChar32 c;
        U8_NEXT((const uint8_t *)lab, i, len, c);
        if (c < 0)
            return false;
        if (c < 0x80) {
            if (o + 1 >= cap)
                return false;
            out[o++] = (char)c;
            continue;
        }
        UErrorCode st = U_ZERO_ERROR;
        int32_t k = uspoof_getSkeletonUTF8(spoof, 0, lab + start, i - start, out + o,
                                           (int32_t)(cap - o), &st);
        if (U_FAILURE(st) || k <= 0 || (size_t)k >= cap - o)
            return false;
        o += (size_t)k;
    }
    for (size_t k = 0; k < o; k++) /* "O" of "0": DNS folds case */
        if (out[k] >= 'A' && out[k] <= 'Z')
            out[k] = (char)(out[k] | 0x20);
    *outn = o;
    return is_ascii_label(out, o);
}

/* Judge one U-label; appends what it looks like to hv->imitates. */
static void judge_label(hostview *hv, const char *lab, size_t n, UScriptCode tld_script,
                        size_t *io)
{
    char sk[HOSTVIEW_HOST_MAX];
    const char *look = lab;
    size_t lookn = n, skn = 0;
    if (spoof != NULL && has_high(lab, n) && n < HOSTVIEW_HOST_MAX / 4) {
        UErrorCode st = U_ZERO_ERROR;
        int32_t r = uspoof_checkUTF8(spoof, lab, (int32_t)n, NULL, &st);
        if (U_SUCCESS(st) && (r & USPOOF_RESTRICTION_LEVEL))
            hv->why |= HOSTVIEW_MIXED_SCRIPT;
        if (U_SUCCESS(st) && (r & USPOOF_MIXED_NUMBERS))
            hv->why |= HOSTVIEW_MIXED_NUMBERS;
        if (ascii_lookalike(lab, n, sk, sizeof sk, &skn) &&
            (tld_script == USCRIPT_COMMON || first_script(lab, n) != tld_script)) {
            hv->why |= HOSTVIEW_CONFUSABLE;
            look = sk;
            lookn = skn;
        }
    }
    if (!append(hv->imitates, sizeof hv->imitates, io, look, lookn))
        hv->imitates[0] = '\0';
}

static void judge_labels(hostview *hv)
{
    const char *u = hv->unicode;
    const char *lastdot = strrchr(u, '.');
    const char *tld = lastdot ? lastdot + 1 : u;
    UScriptCode tld_script = has_high(tld, strlen(tld)) ? first_script(tld, strlen(tld))
                                                         : USCRIPT_COMMON;
    size_t io = 0;
    hv->imitates[0] = '\0';
    const char *p = u;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        judge_label(hv, p, n, tld_script, &io);
        if (dot == NULL)
            break;
        if (!append(hv->imitates, sizeof hv->imitates, &io, ".", 1))
            hv->imitates[0] = '\0';
        p = dot + 1;
    }
    if (!(hv->why & HOSTVIEW_CONFUSABLE))
        hv->imitates[0] = '\0';
}

/* The skeleton of an ASCII host from ascii_skel (as ICU writes it, ""
   when it does not fit); false when a byte has no entry there. */
bool hostview_skeleton_ascii(const char *h, size_t n, char *out, size_t cap, bool *jplain)
{
    size_t o = 0;
    bool jbad = false;
    if (n < cap / 8) {
        /* at most 7 bytes a byte: no bound to check, one fixed-size copy
           a byte (its pad overwritten by what follows or the NUL) */
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)h[i] & 0x7f;
            size_t kl = ascii_skel_len[c];
            if (kl == 0)
                return false;
            jbad |= ascii_skel_jbad[c];
            memcpy(out + o, ascii_skel[c], 8);
            o += kl;
        }
        out[o] = '\0';
        *jplain = !jbad;
        return true;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)h[i] & 0x7f;
        size_t kl = ascii_skel_len[c];
        if (kl == 0)
            return false;
        if (o + kl >= cap) {
            out[0] = '\0';
            return true;
        }
        jbad |= ascii_skel_jbad[c];
        memcpy(out + o, ascii_skel[c], kl);
        o += kl;
    }
    out[o] = '\0';
    *jplain = !jbad;
    return true;
}

/* psl_registrable_domain(psl_list, ascii) through this thread's cache. */
static const char *registrable(const char *ascii, size_t n)
{
    psl_table *cache = NULL;
    if (psl_key_ok && n > 0 && n <= PSL_CACHE_KEY) {
        cache = psl_cache;
        if (cache == NULL) {
            cache = calloc(1, sizeof *cache);
            if (cache != NULL && pthread_setspecific(psl_key, cache) != 0) {
                free(cache);
                cache = NULL;
            }
            psl_cache = cache;
        }
    }
    if (cache == NULL)
        return psl_registrable_domain(psl_list, ascii);
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
    const char *reg = psl_registrable_domain(psl_list, ascii);
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

/* The forms of a host whose bytes are all ASCII, with no A-label. */
static void view_ascii(hostview *hv, const char *raw, size_t n, bool jplain)
{
    /* raw is shorter than either (HOSTVIEW_HOST_MAX) */
    memcpy(hv->ascii, raw, n + 1);
    memcpy(hv->unicode, raw, n + 1);
    bool skel_plain = true;   /* "" when ICU is not there */
    hv->skeleton_table = spoof != NULL &&
                         hostview_skeleton_ascii(raw, n, hv->skeleton, sizeof hv->skeleton, &skel_plain);
    if (spoof != NULL && !hv->skeleton_table) {
        skel_plain = false;
        UErrorCode st = U_ZERO_ERROR;
        int32_t k = uspoof_getSkeletonUTF8(spoof, 0, raw, -1, hv->skeleton,
                                           (int32_t)sizeof hv->skeleton, &st);
        if (U_FAILURE(st) || k < 0 || (size_t)k >= sizeof hv->skeleton)
            hv->skeleton[0] = '\0';
    }
    /* the registrable domain is a suffix of raw; imitates stays "" */
    hv->json_plain = jplain && skel_plain;
}

/* Any host: its A-labels and U-labels through libidn2, its skeleton
   and the judgement of its labels through ICU. */
static void view_idn(hostview *hv, const char *raw)
{
    hv->invisible = hostview_has_invisible(raw, strlen(raw));

    /* A-labels: UTS #46 mapping (non-transitional) of what is written;
       U-labels back from them. Where IDNA refuses the host, the bytes
       as written are what the reader sees. */
    char *ace = NULL, *uni = NULL;
    int rc = idn2_to_ascii_8z(raw, &ace, IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT);
    if (rc != IDN2_OK || ace == NULL || !copy_str(hv->ascii, sizeof hv->ascii, ace))
        copy_str(hv->ascii, sizeof hv->ascii, raw);
    rc = idn2_to_unicode_8z8z(hv->ascii, &uni, 0);
    if (rc != IDN2_OK || uni == NULL || !copy_str(hv->unicode, sizeof hv->unicode, uni))
        copy_str(hv->unicode, sizeof hv->unicode, raw);
    idn2_free(ace);
    idn2_free(uni);
    hv->idn = has_high(raw, strlen(raw)) || strstr(hv->ascii, "xn--") != NULL;
    hv->uts46 = hv->idn && uts46_maps(raw, strlen(raw));
    if (hostview_has_invisible(hv->unicode, strlen(hv->unicode)))
        hv->invisible = true;

    if (spoof != NULL) {
        UErrorCode st = U_ZERO_ERROR;
        int32_t n = uspoof_getSkeletonUTF8(spoof, 0, hv->unicode, -1, hv->skeleton,
                                           (int32_t)sizeof hv->skeleton, &st);
        if (U_FAILURE(st) || n < 0 || (size_t)n >= sizeof hv->skeleton)
            hv->skeleton[0] = '\0';
    }
    if (hv->idn)
        judge_labels(hv);
}

static bool view_host(const char *host, size_t len, hostview *hv, bool shortcut)
{
    hostview_init();
    hv->is_name = hv->idn = hv->invisible = hv->uts46 = hv->json_plain = false;
    hv->skeleton_table = false;
    hv->why = 0;
    hv->flags = 0;
    hv->unicode[0] = hv->skeleton[0] = hv->ascii[0] = '\0';
    hv->registrable[0] = hv->imitates[0] = '\0';
    char raw[HOSTVIEW_HOST_MAX];
    bool high = false, xn = false, jplain = false;
    size_t rn = 0;
    if (len == 0 || len >= 3 * HOSTVIEW_HOST_MAX ||
        (rn = decode_host(host, len, raw, sizeof raw, &high, &xn, &jplain)) == 0)
        return false;
    if (ends_in_number(raw, rn))
        return false;
    hv->is_name = true;
    /* Every byte ASCII and no A-label: UTS #46 maps the host to itself
       (the bytes are lower-cased already) and it has no U-label, so its
       ASCII and Unicode forms are the host as decoded. */
    bool plain = shortcut && !high && !xn;
    if (plain)
        view_ascii(hv, raw, rn, jplain);
    else
        view_idn(hv, raw);

    if (psl_list != NULL) {
        const char *reg = !shortcut ? psl_registrable_domain(psl_list, hv->ascii)
                          : plain   ? registrable(hv->ascii, rn)
                                    : registrable(hv->ascii, strlen(hv->ascii));
        if (reg != NULL)
            copy_str(hv->registrable, sizeof hv->registrable, reg);
    }
    if (hv->why & (HOSTVIEW_MIXED_SCRIPT | HOSTVIEW_CONFUSABLE | HOSTVIEW_MIXED_NUMBERS))
        hv->flags |= URISAN_F(HOMOGRAPH);
    if (hv->invisible)
        hv->flags |= URISAN_F(INVISIBLE_CHAR);
    if (hv->uts46)
        hv->flags |= URISAN_F(HOST_UTS46);
    return true;
}

/* view_host, and the lengths of the forms it wrote. */
static bool host_view(const char *host, size_t len, hostview *hv, bool shortcut)
{
    bool name = view_host(host, len, hv, shortcut);
    hv->unicode_len = strlen(hv->unicode);
    hv->skeleton_len = strlen(hv->skeleton);
    hv->imitates_len = strlen(hv->imitates);
    hv->registrable_len = strlen(hv->registrable);
    return name;
}

/* The shortcuts, and the view kept for the same bytes (hostmemo.h). */
bool hostview_host(const char *host, size_t len, hostview *hv)
{
    if (len > HOSTMEMO_KEY_MAX)
        return host_view(host, len, hv, true);
    uint32_t h = hostmemo_hash(host, len);
    if (hostmemo_get(host, len, h, hv))
        return hv->is_name;
    bool name = host_view(host, len, hv, true);
    hostmemo_put(host, len, h, hv);
    return name;
}

bool hostview_host_full(const char *host, size_t len, hostview *hv)
{
    return host_view(host, len, hv, false);
}

bool hostview_uri(const char *uri, size_t len, hostview *hv)
{
    urisan_uri u;
    urisan_parse(uri, len, NULL, &u, NULL);
    return hostview_uri_parsed(uri, len, &u, hv);
}

bool hostview_mail_domain(const char *uri, const urisan_uri *u)
{
    return !(urisan_span_present(u->host) && u->host.len > 0) && urisan_span_present(u->scheme) &&
           u->scheme.len == 6 && strncasecmp(uri + u->scheme.off, "mailto", 6) == 0 &&
           urisan_span_present(u->path);
}

/* The host of uri that hostview_uri_parsed views: false (and "") when
   it has none to show; an IP literal is "" (its view is no name). */
static bool uri_host(const char *uri, const urisan_uri *u, const char **host, size_t *len)
{
    *host = "";
    *len = 0;
    if (urisan_span_present(u->host) && u->host.len > 0) {
        if (uri[u->host.off] == '[')
            return false;
        *host = uri + u->host.off;
        *len = u->host.len;
        return true;
    }
    /* mailto:user@domain - the domain of the (first) address */
    if (hostview_mail_domain(uri, u)) {
        const char *p = uri + u->path.off;
        size_t pl = u->path.len, end = pl;
        const char *comma = memchr(p, ',', pl);
        if (comma != NULL)
            end = (size_t)(comma - p);
        size_t at = end;
        for (size_t i = 0; i < end; i++)
            if (p[i] == '@')
                at = i;
        if (at < end) {
            *host = p + at + 1;
            *len = end - at - 1;
            return true;
        }
    }
    return false;
}

bool hostview_uri_parsed(const char *uri, size_t len, const urisan_uri *u, hostview *hv)
{
    (void)len;
    const char *host;
    size_t hl;
    bool some = uri_host(uri, u, &host, &hl);
    bool name = hostview_host(host, hl, hv);
    return some && name;
}

void hostview_last_init(hostview_last *hl)
{
    hl->name = false;
    hl->klen = SIZE_MAX;
    hl->serial = 0;
}

#ifdef HOSTVIEW_SSE2
/* Bit i set where s[i] == c, for 16 bytes. */
static inline uint64_t bytes_eq(__m128i v, char c)
{
    return (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c)));
}

/* The host of an authority a[0..n) (16 <= n) that ends within its first
   32 bytes: after the last '@' before its first '/', '?' or '#', before a
   ':' after that; NULL when it ends later (or past n). Two 16-byte steps. */
static const char *guess_host(const char *a, size_t n, size_t *hn)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)a);
    uint64_t stop = bytes_eq(v, '/') | bytes_eq(v, '?') | bytes_eq(v, '#');
    uint64_t at = bytes_eq(v, '@'), colon = bytes_eq(v, ':');
    if (stop == 0 && n >= 32) {
        __m128i w = _mm_loadu_si128((const __m128i *)(const void *)(a + 16));
        stop = (bytes_eq(w, '/') | bytes_eq(w, '?') | bytes_eq(w, '#')) << 16;
        at |= bytes_eq(w, '@') << 16;
        colon |= bytes_eq(w, ':') << 16;
    }
    if (stop == 0)
        return NULL;
    uint64_t before = (stop & -stop) - 1;
    at &= before;
    unsigned start = at != 0 ? 64 - (unsigned)__builtin_clzll(at) : 0;
    colon &= before & ~((UINT64_C(1) << start) - 1);
    *hn = (size_t)__builtin_ctzll(colon != 0 ? colon : stop) - start;
    return a + start;
}
#endif

/* The host "scheme://host" guessed from the first bytes of uri[0..len)
   (at most 48 of them are read), or NULL. */
static const char *guess_uri_host(const char *uri, size_t len, size_t *n)
{
#ifdef HOSTVIEW_SSE2
    if (len < 16)
        return NULL;
    uint64_t m = bytes_eq(_mm_loadu_si128((const __m128i *)(const void *)uri), ':');
    size_t c = m != 0 ? (size_t)__builtin_ctzll(m) : len;
    if (c + 19 > len || uri[c + 1] != '/' || uri[c + 2] != '/')
        return NULL;
    const char *h = guess_host(uri + c + 3, len - c - 3, n);
    if (h == NULL || *n == 0 || *n > HOSTMEMO_KEY_MAX || *h == '[')
        return NULL;
    return h;
#else
    (void)uri;
    (void)len;
    (void)n;
    return NULL;
#endif
}

void hostview_prefetch_ahead(const char *p, size_t n)
{
    size_t hn;
    const char *h = guess_uri_host(p, n < 64 ? n : 64, &hn);
    if (h != NULL)
        hostmemo_prefetch(hostmemo_hash(h, hn));
}


bool hostview_uri_last(const char *uri, const urisan_uri *u, hostview_last *hl)
{
    static _Thread_local uint64_t serials;   /* this thread's, never reused */
    const char *host;
    size_t n;
    bool some = uri_host(uri, u, &host, &n);
    if (n == hl->klen && hostmemo_same(host, hl->key, n))
        return hl->name;
    hl->name = hostview_host(host, n, &hl->hv) && some;
    hl->serial = ++serials;
    hl->klen = n;
    if (n <= HOSTVIEW_LAST_KEY)
        memcpy(hl->key, host, n);
    else
        hl->klen = SIZE_MAX;
    return hl->name;
}

urisan_flags hostview_link_flags(const char *uri, size_t len,
                                 const char *display, size_t dlen, hostview *hv)
{
    hostview *own = NULL;
    if (hv == NULL) {
        own = malloc(sizeof *own);
        if (own == NULL)
            return 0;
        hv = own;
    }
    urisan_flags f = 0;
    if (hostview_uri(uri, len, hv))
        f = hv->flags;
    if (display != NULL && hostview_has_invisible(display, dlen))
        f |= URISAN_F(INVISIBLE_CHAR);
    free(own);
    return f;
}

void hostview_json(json_w *w, const hostview *hv)
{
    bool name = hv != NULL && hv->is_name;
    if (name)
        json_kcstr(w, "host_unicode", hv->unicode);
    else
        json_knull(w, "host_unicode");
    if (name && hv->skeleton[0] != '\0')
        json_kcstr(w, "host_skeleton", hv->skeleton);
    else
        json_knull(w, "host_skeleton");
    if (name && hv->imitates[0] != '\0')
        json_kcstr(w, "host_imitates", hv->imitates);
    else
        json_knull(w, "host_imitates");
    if (name && hv->registrable[0] != '\0')
        json_kcstr(w, "registrable_domain", hv->registrable);
    else
        json_knull(w, "registrable_domain");
}

/* Host and address rules of the policy on the host a browser resolves:
   the URI with its host replaced by the UTS #46 form (A-labels: ignored
   code points gone, compatibility mappings applied). A host or address
   rule that denies that form denies the link too (the raw form's
   decision stands otherwise: both must pass). */
static void decide_mapped_host(const char *uri, size_t len, const urisan_policy *pol,
                               urisan_decision *dec)
{
    urisan_uri u;
    urisan_parse(uri, len, NULL, &u, NULL);
    if (!urisan_span_present(u.host) || u.host.len == 0 || uri[u.host.off] == '[')
        return;
    hostview *hv = malloc(sizeof *hv);
    if (hv == NULL)
        return;
    size_t alen;
    if (hostview_host(uri + u.host.off, u.host.len, hv) && hv->uts46 &&
        (alen = strlen(hv->ascii)) > 0 && len - u.host.len < SIZE_MAX - alen) {
        size_t end = u.host.off + u.host.len, ml = len - u.host.len + alen;
        char *m = malloc(ml);
        if (m != NULL) {
            memcpy(m, uri, u.host.off);
            memcpy(m + u.host.off, hv->ascii, alen);
            memcpy(m + u.host.off + alen, uri + end, len - end);
            urisan_uri mu;
            urisan_report mrep;
            urisan_decision md;
            urisan_check(m, ml, pol, &mu, &mrep, &md);
            unsigned host_rules = (1u << URISAN_REASON_HOST_DENIED) |
                                  (1u << URISAN_REASON_HOST_NOT_ALLOWED) |
                                  (1u << URISAN_REASON_IP_DENIED) |
                                  (1u << URISAN_REASON_IP_NOT_ALLOWED);
            if (md.rules & host_rules) {
                dec->rules |= md.rules & host_rules;
                dec->verdict = URISAN_DENY;
            }
            free(m);
        }
    }
    free(hv);
}

void hostview_redecide(const char *uri, size_t len, urisan_flags f,
                       const urisan_policy *pol, urisan_report *rep,
                       urisan_decision *dec)
{
    if ((rep->flags | f) == rep->flags)
        return;
    urisan_uri u;
    urisan_report tmp;
    urisan_decision tdec;
    urisan_check(uri, len, pol, &u, &tmp, &tdec);
    rep->flags |= f;
    urisan_decide(uri, len, &u, rep, pol, dec);
    if (f & URISAN_F(HOST_UTS46))
        decide_mapped_host(uri, len, pol, dec);
}

void hostview_judge_link(const urisan_policy *pol, const char *uri, size_t len,
                         const char *display, size_t dlen, urisan_flags *flags,
                         urisan_decision *dec, hostview *hv)
{
    urisan_flags f = hostview_link_flags(uri, len, display, dlen, hv);
    if ((*flags | f) == *flags)
        return;
    urisan_report rep;
    memset(&rep, 0, sizeof rep);
    urisan_uri u;
    urisan_decision d;
    urisan_check(uri, len, pol, &u, &rep, &d);
    rep.flags |= *flags;
    hostview_redecide(uri, len, f, pol, &rep, dec);
    *flags = rep.flags;
}
