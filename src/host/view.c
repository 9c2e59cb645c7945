/*
 * view.c - a host as a reader sees it (urisan_host.h).
 *
 * Unicode TR39 through ICU's spoof checker, not tables of our own:
 * - mixed script: a label fails TR39 5.2 "moderately restrictive" (Latin
 *   with Cyrillic or Greek, any two scripts that are not Latin + one
 *   other recommended script, CJK combinations allowed);
 * - confusable: a non-ASCII label whose non-ASCII characters all have an
 *   ASCII TR39 4 skeleton looks like the ASCII label they spell: the
 *   label's skeleton is that label's skeleton (skeletons are fixed
 *   points). These three are the homograph of a policy that protects no
 *   name; one that does (protect-host) asks protect.c instead.
 *   This is the whole-script confusable of TR39 4 for a label written
 *   entirely in Cyrillic or Greek lookalikes ("аррӏе"), and the
 *   same-script one for Latin lookalikes ("ɑpple"). A label in the
 *   script of a non-ASCII top-level label (".рф") is not judged against
 *   ASCII: there it is read in its own script;
 * - mixed numbers: digits of more than one numbering system.
 * A-labels are decoded with libidn2 (IDNA2008 + UTS #46 mapping) so the
 * reader's form and the skeleton are those of the U-labels.
 */
#include "host_internal.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <idn2.h>
#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/uscript.h>
#include <unicode/uspoof.h>
#include <unicode/ustring.h>
#include <unicode/utf8.h>

static bool has_high(const char *s, size_t n);

/* data.c's spoof checker (NULL: no homograph judgement), set with
   host_cls, once. */
static const USpoofChecker *spoof;

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

static pthread_once_t cls_once = PTHREAD_ONCE_INIT;

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
    spoof = host_spoof();
}

/* ------------------------------------------------------------------ */
/* UTS #46: the host a browser resolves                     */
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

URISAN_API bool urisan_host_has_invisible(const char *text, size_t len)
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

/* Judge one U-label (TR39): mixed script, mixed numbers, a non-ASCII
   label that looks like an ASCII one. */
static void judge_label(urisan_hostview *hv, const char *lab, size_t n, UScriptCode tld_script)
{
    char sk[URISAN_HOSTVIEW_MAX];
    size_t skn = 0;
    if (spoof == NULL || !has_high(lab, n) || n >= URISAN_HOSTVIEW_MAX / 4)
        return;
    UErrorCode st = U_ZERO_ERROR;
    int32_t r = uspoof_checkUTF8(spoof, lab, (int32_t)n, NULL, &st);
    if (U_SUCCESS(st) && (r & USPOOF_RESTRICTION_LEVEL))
        hv->why |= URISAN_HOSTVIEW_MIXED_SCRIPT;
    if (U_SUCCESS(st) && (r & USPOOF_MIXED_NUMBERS))
        hv->why |= URISAN_HOSTVIEW_MIXED_NUMBERS;
    if (ascii_lookalike(lab, n, sk, sizeof sk, &skn) &&
        (tld_script == USCRIPT_COMMON || first_script(lab, n) != tld_script))
        hv->why |= URISAN_HOSTVIEW_CONFUSABLE;
}

static void judge_labels(urisan_hostview *hv)
{
    const char *u = hv->unicode;
    const char *lastdot = strrchr(u, '.');
    const char *tld = lastdot ? lastdot + 1 : u;
    UScriptCode tld_script = has_high(tld, strlen(tld)) ? first_script(tld, strlen(tld))
                                                         : USCRIPT_COMMON;
    const char *p = u;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        judge_label(hv, p, n, tld_script);
        if (dot == NULL)
            break;
        p = dot + 1;
    }
}

/* The forms of a host whose bytes are all ASCII, with no A-label. */
static void view_ascii(urisan_hostview *hv, const char *raw, size_t n, bool jplain)
{
    /* raw is shorter than either (URISAN_HOSTVIEW_MAX) */
    memcpy(hv->ascii, raw, n + 1);
    memcpy(hv->unicode, raw, n + 1);
    bool skel_plain = true;   /* "" when ICU is not there */
    bool table = spoof != NULL && !(host_caches_off() & HOST_OFF_SKELETON) &&
                 host_skeleton_ascii(raw, n, hv->skeleton, sizeof hv->skeleton, &skel_plain);
    if (spoof != NULL && !table) {
        skel_plain = false;
        UErrorCode st = U_ZERO_ERROR;
        int32_t k = uspoof_getSkeletonUTF8(spoof, 0, raw, -1, hv->skeleton,
                                           (int32_t)sizeof hv->skeleton, &st);
        if (U_FAILURE(st) || k < 0 || (size_t)k >= sizeof hv->skeleton)
            hv->skeleton[0] = '\0';
    }
    /* the registrable domain is a suffix of raw; imitates stays "" */
    hv->internal = (unsigned char)((table ? URISAN_HV_SKELETON_TABLE : 0) |
                                   (jplain && skel_plain ? URISAN_HV_JSON_PLAIN : 0));
}

/* Any host: its A-labels and U-labels through libidn2, its skeleton
   and the judgement of its labels through ICU. */
static void view_idn(urisan_hostview *hv, const char *raw)
{
    hv->invisible = urisan_host_has_invisible(raw, strlen(raw));

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
    if (urisan_host_has_invisible(hv->unicode, strlen(hv->unicode)))
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

/* hv->registrable: the Public Suffix List's registrable domain of
   hv->ascii. A name that ends in the root's dot (a label separator such
   as U+3002 written last; the ASCII dots are gone already) is looked up
   without it, and the dot kept: "bkent.net." is "bkent.net.", and "0.bg."
   has none, as "0.bg" has none. */
static void registrable(urisan_hostview *hv)
{
    const psl_ctx_t *psl = host_psl();
    size_t n = strlen(hv->ascii), dots = 0;
    while (dots < n && hv->ascii[n - 1 - dots] == '.')
        dots++;
    if (psl == NULL || dots == n)
        return;
    char name[sizeof hv->ascii];
    memcpy(name, hv->ascii, n - dots);
    name[n - dots] = '\0';
    const char *reg = psl_registrable_domain(psl, name);
    size_t rn = reg != NULL ? strlen(reg) : 0;
    if (reg == NULL || rn + dots >= sizeof hv->registrable)
        return;
    memcpy(hv->registrable, reg, rn);
    memcpy(hv->registrable + rn, hv->ascii + n - dots, dots + 1);   /* the dots, the NUL */
}

static bool view_host(const char *host, size_t len, urisan_hostview *hv, bool shortcut)
{
    pthread_once(&cls_once, init_host_cls);
    hv->is_name = hv->idn = hv->invisible = hv->uts46 = false;
    hv->internal = 0;
    hv->why = 0;
    hv->flags = 0;
    hv->unicode[0] = hv->skeleton[0] = hv->ascii[0] = '\0';
    hv->registrable[0] = hv->imitates[0] = '\0';
    hv->imitation_of = 0;
    hv->imitation = 0;
    char raw[URISAN_HOSTVIEW_MAX];
    bool high = false, xn = false, jplain = false;
    size_t rn = 0;
    if (len == 0 || len >= 3 * URISAN_HOSTVIEW_MAX ||
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

    registrable(hv);
    if (hv->why & (URISAN_HOSTVIEW_MIXED_SCRIPT | URISAN_HOSTVIEW_CONFUSABLE | URISAN_HOSTVIEW_MIXED_NUMBERS))
        hv->flags |= URISAN_F(HOMOGRAPH);
    if (hv->invisible)
        hv->flags |= URISAN_F(INVISIBLE_CHAR);
    if (hv->uts46)
        hv->flags |= URISAN_F(HOST_UTS46);
    return true;
}

/* view_host, and the lengths of the forms it wrote. */
bool host_view_compute(const char *host, size_t len, urisan_hostview *hv, bool shortcut)
{
    bool name = view_host(host, len, hv, shortcut);
    hv->unicode_len = strlen(hv->unicode);
    hv->skeleton_len = strlen(hv->skeleton);
    hv->imitates_len = strlen(hv->imitates);
    hv->registrable_len = strlen(hv->registrable);
    return name;
}

