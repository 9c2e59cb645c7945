/*
 * fold.c - a brand label as a spoof checker reads it beyond the UTS #39
 * skeleton: the second key protect.c compares with the protected names.
 *
 * The UTS #39 skeleton (ICU uspoof_getSkeleton) maps the confusables of
 * confusables.txt, but a label made of a protected name with one letter
 * changed passes it when that letter is
 *  - a Latin letter with a diacritic (paypạl, goögle): Chromium's IDN
 *    spoof checker removes diacritics before it compares skeletons; here
 *    the label is decomposed (NFD) and its non-spacing marks (general
 *    category Mn) dropped;
 *  - a look-alike letter TR39 leaves alone: the Latin small capitals
 *    (ɢoogle, ᴀpple), dotless i and j, Latin alpha, script g, iota, tone
 *    six ƅ, and the Cyrillic and Greek lower-case letters drawn as Latin
 *    small capitals or Latin letters (neтflix, мicrosoft, ноt) - the table
 *    below, from the Unicode code charts (each letter's name) and the
 *    extra confusable mappings of Chromium's IDN spoof checker
 *    (components/url_formatter/spoof_checks/idn_spoof_checker.cc), which
 *    supplements confusables.txt with the same letters.
 * The folded label's skeleton is then keyed as every skeleton is
 * (imitation.c). Only a protected name is compared with: an ordinary word
 * with diacritics (bücher, żółw) reads as bucher, zolw, which imitates no
 * brand (tests/impersonation_eval.py counts both sides).
 */
#include "host_internal.h"

#include <string.h>

#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/uspoof.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>

typedef struct {
    uint16_t from;
    char to;
} fold_row;

/* Sorted by code point (fold_of is a binary search). */
static const fold_row folds[] = {
    {0x0131, 'i'}, /* LATIN SMALL LETTER DOTLESS I */
    {0x0185, 'b'}, /* LATIN SMALL LETTER TONE SIX */
    {0x0237, 'j'}, /* LATIN SMALL LETTER DOTLESS J */
    {0x0251, 'a'}, /* LATIN SMALL LETTER ALPHA */
    {0x0261, 'g'}, /* LATIN SMALL LETTER SCRIPT G */
    {0x0262, 'g'}, /* LATIN LETTER SMALL CAPITAL G */
    {0x0269, 'i'}, /* LATIN SMALL LETTER IOTA */
    {0x026A, 'i'}, /* LATIN LETTER SMALL CAPITAL I */
    {0x0274, 'n'}, /* LATIN LETTER SMALL CAPITAL N */
    {0x0280, 'r'}, /* LATIN LETTER SMALL CAPITAL R */
    {0x028F, 'y'}, /* LATIN LETTER SMALL CAPITAL Y */
    {0x0299, 'b'}, /* LATIN LETTER SMALL CAPITAL B */
    {0x029C, 'h'}, /* LATIN LETTER SMALL CAPITAL H */
    {0x029F, 'l'}, /* LATIN LETTER SMALL CAPITAL L */
    {0x03B7, 'n'}, /* GREEK SMALL LETTER ETA */
    {0x03B9, 'i'}, /* GREEK SMALL LETTER IOTA */
    {0x03BA, 'k'}, /* GREEK SMALL LETTER KAPPA */
    {0x03BD, 'v'}, /* GREEK SMALL LETTER NU */
    {0x03C1, 'p'}, /* GREEK SMALL LETTER RHO */
    {0x03C4, 't'}, /* GREEK SMALL LETTER TAU */
    {0x03C9, 'w'}, /* GREEK SMALL LETTER OMEGA */
    {0x0432, 'b'}, /* CYRILLIC SMALL LETTER VE (a small capital B) */
    {0x0433, 'r'}, /* CYRILLIC SMALL LETTER GHE */
    {0x043A, 'k'}, /* CYRILLIC SMALL LETTER KA */
    {0x043C, 'm'}, /* CYRILLIC SMALL LETTER EM (a small capital M) */
    {0x043D, 'h'}, /* CYRILLIC SMALL LETTER EN (a small capital H) */
    {0x043F, 'n'}, /* CYRILLIC SMALL LETTER PE */
    {0x0442, 't'}, /* CYRILLIC SMALL LETTER TE (a small capital T) */
    {0x0448, 'w'}, /* CYRILLIC SMALL LETTER SHA */
    {0x044C, 'b'}, /* CYRILLIC SMALL LETTER SOFT SIGN */
    {0x0454, 'e'}, /* CYRILLIC SMALL LETTER UKRAINIAN IE */
    {0x1D00, 'a'}, /* LATIN LETTER SMALL CAPITAL A */
    {0x1D04, 'c'}, /* LATIN LETTER SMALL CAPITAL C */
    {0x1D05, 'd'}, /* LATIN LETTER SMALL CAPITAL D */
    {0x1D07, 'e'}, /* LATIN LETTER SMALL CAPITAL E */
    {0x1D0A, 'j'}, /* LATIN LETTER SMALL CAPITAL J */
    {0x1D0B, 'k'}, /* LATIN LETTER SMALL CAPITAL K */
    {0x1D0D, 'm'}, /* LATIN LETTER SMALL CAPITAL M */
    {0x1D0F, 'o'}, /* LATIN LETTER SMALL CAPITAL O */
    {0x1D18, 'p'}, /* LATIN LETTER SMALL CAPITAL P */
    {0x1D1B, 't'}, /* LATIN LETTER SMALL CAPITAL T */
    {0x1D1C, 'u'}, /* LATIN LETTER SMALL CAPITAL U */
    {0x1D20, 'v'}, /* LATIN LETTER SMALL CAPITAL V */
    {0x1D21, 'w'}, /* LATIN LETTER SMALL CAPITAL W */
    {0x1D22, 'z'}, /* LATIN LETTER SMALL CAPITAL Z */
    {0xA730, 'f'}, /* LATIN LETTER SMALL CAPITAL F */
    {0xA731, 's'}, /* LATIN LETTER SMALL CAPITAL S */
    {0xA7AF, 'q'}, /* LATIN LETTER SMALL CAPITAL Q */
};

static UChar32 fold_of(UChar32 c)
{
    size_t lo = 0, hi = sizeof folds / sizeof folds[0];
    if (c < 0x0131 || c > 0xA7AF)
        return c;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (folds[mid].from == c)
            return (UChar32)(unsigned char)folds[mid].to;
        if (folds[mid].from < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return c;
}

#define FOLD_MAX 256 /* UTF-16 units: a DNS label is at most 63 ACE bytes */

bool host_fold_skeleton(const char *label, size_t n, char *skel, size_t cap, size_t *sn)
{
    const USpoofChecker *spoof = host_spoof();
    UErrorCode e = U_ZERO_ERROR;
    UChar a[FOLD_MAX], b[FOLD_MAX];
    int32_t la = 0;
    *sn = 0;
    if (spoof == NULL || n > FOLD_MAX / 4)
        return false;
    u_strFromUTF8(a, FOLD_MAX, &la, label, (int32_t)n, &e);
    const UNormalizer2 *nfd = unorm2_getNFDInstance(&e);
    if (U_FAILURE(e))
        return false;
    int32_t lb = unorm2_normalize(nfd, a, la, b, FOLD_MAX, &e);
    if (U_FAILURE(e))
        return false;
    int32_t k = 0;
    for (int32_t i = 0; i < lb;) {
        UChar32 c;
        U16_NEXT(b, i, lb, c);
        if (u_charType(c) == U_NON_SPACING_MARK)
            continue;
        c = fold_of(c);
        if (k + U16_LENGTH(c) > FOLD_MAX)
            return false;
        U16_APPEND_UNSAFE(a, k, c);
    }
    int32_t ls = uspoof_getSkeleton(spoof, 0, a, k, b, FOLD_MAX, &e);
    if (U_FAILURE(e) || ls <= 0)
        return false;
    int32_t l8 = 0;
    u_strToUTF8(skel, (int32_t)cap, &l8, b, ls, &e);
    if (U_FAILURE(e) || l8 <= 0 || (size_t)l8 >= cap)
        return false;
    *sn = (size_t)l8;
    return true;
}
