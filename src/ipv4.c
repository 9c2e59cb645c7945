/*
 * ipv4.c - IPv4 de-obfuscation (ip_obfuscated, doc/policy.md).
 *
 * A browser turns the host "0x7f.1", "2130706433", "0177.0.0.1", "127.1",
 * "%31%32%37.0.0.1" or "１２７．０．０．１" into 127.0.0.1 and connects
 * there; inet_aton(3) reads the ASCII forms the same way. A filter that
 * only knows RFC 3986 dotted-decimal sees a name. This file reads the host
 * the way those parsers do:
 *
 *   1. percent-decode once (WHATWG URL "host parser" step 4);
 *   2. decode UTF-8 and map the few code points that UTS #46 maps to ASCII
 *      digits, "a"-"f", "x" or "." (a small table, no full IDNA), and
 *      upper-case ASCII to lower-case (UTS #46 mapping step);
 *   3. the WHATWG "IPv4 parser": 1-4 parts split on ".", one trailing empty
 *      part dropped, each part decimal, "0x" hex or "0" octal, the last part
 *      filling the remaining bytes; a part too big is no address. inet_aton
 *      accepts the same ASCII set except the trailing dot.
 *
 * One left-to-right pass, each stage feeding the next one byte or code
 * point at a time: no buffer, no allocation, linear time.
 */
#include "risk.h"

/* ---- stage 3: the WHATWG IPv4 parser, fed one ASCII byte at a time ---- */

typedef struct {
    uint64_t part[4];
    size_t nparts;
    uint64_t val;   /* current part, saturated just above 2^32 */
    unsigned radix; /* 8, 10 or 16 once the part has started */
    size_t n;       /* bytes consumed by the current part */
    bool failed;
} v4_parser;

#define V4_OVER ((uint64_t)1 << 33) /* any value >= 2^32 is too big anyway */

static void v4_push(v4_parser *p)
{
    if (p->nparts == 4) { /* a fifth part: WHATWG step 6 fails */
        p->failed = true;
        return;
    }
    p->part[p->nparts++] = p->val;
    p->n = 0;
    p->val = 0;
}

static void v4_feed(v4_parser *p, unsigned char c)
{
    if (p->failed)
        return;
    if (c == '.') {
        /* An empty part followed by "." is an empty part that is not the
           last one: "1..2", ".1" fail (IPv4 number parser, empty input). */
        if (p->n == 0) {
            p->failed = true;
            return;
        }
        v4_push(p);
        return;
    }
    if (p->n == 0) {
        /* IPv4 number parser: "0x"/"0X" prefix = hex, a leading "0" with
           more after it = octal, else decimal. A lone "0" is zero. */
        if (c == '0') {
            p->radix = 8;
        } else if (c >= '1' && c <= '9') {
            p->radix = 10;
            p->val = (uint64_t)(c - '0');
        } else {
            p->failed = true;
            return;
        }
        p->n = 1;
        return;
    }
    if (p->n == 1 && p->radix == 8 && p->val == 0 && c == 'x') {
        p->radix = 16; /* "0x" with nothing after it is 0, as in WHATWG */
        p->n = 2;
        return;
    }
    unsigned d;
    if (c >= '0' && c <= '9')
        d = (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f')
        d = (unsigned)(c - 'a') + 10u;
    else
        d = 99; /* not a digit of any radix */
    if (d >= p->radix) {
        p->failed = true;
        return;
    }
    if (p->val < V4_OVER)
        p->val = p->val * p->radix + d; /* < 2^33 * 16 + 16: no overflow */
    if (p->val > V4_OVER)
        p->val = V4_OVER;
    p->n++;
}

static bool v4_finish(v4_parser *p, uint8_t out[4])
{
    if (p->failed)
        return false;
    if (p->n > 0)
        v4_push(p);
    else if (p->nparts == 0)
        return false; /* empty host */
    /* else: one trailing "." - WHATWG drops a last empty part (step 5) */
    if (p->failed)
        return false;
    size_t np = p->nparts;
    /* every part but the last must fit in one byte (step 10-11) */
    for (size_t i = 0; i + 1 < np; i++)
        if (p->part[i] > 255)
            return false;
    /* the last part fills the remaining 5 - np bytes (step 12) */
    uint64_t last = p->part[np - 1];
    if (last >= ((uint64_t)1 << (8 * (5 - np))))
        return false;
    uint64_t a = last;
    for (size_t i = 0; i + 1 < np; i++)
        a += p->part[i] << (8 * (3 - i));
    out[0] = (uint8_t)(a >> 24);
    out[1] = (uint8_t)(a >> 16);
    out[2] = (uint8_t)(a >> 8);
    out[3] = (uint8_t)a;
    return true;
}

/* ---- stage 2: the UTS #46 mappings that matter for an address ---- */

/*
 * Ranges of code points that UTS #46 (IdnaMappingTable, NFKC_Casefold) maps
 * to consecutive single ASCII characters: lo..hi -> first, first+1, ...
 * Only targets an IPv4 parser accepts are listed: digits, a-f, x, ".".
 */
static const struct {
    uint32_t lo, hi;
    char first;
} map_ranges[] = {
    {0x00B2, 0x00B3, '2'},   /* superscript two, three */
    {0x00B9, 0x00B9, '1'},   /* superscript one */
    {0x2070, 0x2070, '0'},   /* superscript zero */
    {0x2074, 0x2079, '4'},   /* superscript four..nine */
    {0x2080, 0x2089, '0'},   /* subscript zero..nine */
    {0x2090, 0x2090, 'a'},   /* subscript small a */
    {0x2091, 0x2091, 'e'},   /* subscript small e */
    {0x2093, 0x2093, 'x'},   /* subscript small x */
    {0x2024, 0x2024, '.'},   /* one dot leader */
    {0x2102, 0x2102, 'c'},   /* double-struck capital C */
    {0x212D, 0x212D, 'c'},   /* black-letter capital C */
    {0x212F, 0x212F, 'e'},   /* script small e */
    {0x2130, 0x2130, 'e'},   /* script capital E */
    {0x2131, 0x2131, 'f'},   /* script capital F */
    {0x2145, 0x2145, 'd'},   /* double-struck italic capital D */
    {0x2146, 0x2146, 'd'},   /* double-struck italic small d */
    {0x2147, 0x2147, 'e'},   /* double-struck italic small e */
    {0x2169, 0x2169, 'x'},   /* roman numeral ten */
    {0x216D, 0x216E, 'c'},   /* roman numeral one hundred (c), five hundred (d) */
    {0x2179, 0x2179, 'x'},   /* small roman numeral ten */
    {0x217D, 0x217E, 'c'},   /* small roman numeral one hundred, five hundred */
    {0x2460, 0x2468, '1'},   /* circled digit one..nine */
    {0x24B6, 0x24BB, 'a'},   /* circled capital A..F */
    {0x24CD, 0x24CD, 'x'},   /* circled capital X */
    {0x24D0, 0x24D5, 'a'},   /* circled small a..f */
    {0x24E7, 0x24E7, 'x'},   /* circled small x */
    {0x24EA, 0x24EA, '0'},   /* circled digit zero */
    {0x3002, 0x3002, '.'},   /* ideographic full stop (UTS #46 2.3 label separator) */
    {0xFE52, 0xFE52, '.'},   /* small full stop */
    {0xFF0E, 0xFF0E, '.'},   /* fullwidth full stop */
    {0xFF10, 0xFF19, '0'},   /* fullwidth digits */
    {0xFF21, 0xFF26, 'a'},   /* fullwidth capital A..F */
    {0xFF38, 0xFF38, 'x'},   /* fullwidth capital X */
    {0xFF41, 0xFF46, 'a'},   /* fullwidth small a..f */
    {0xFF58, 0xFF58, 'x'},   /* fullwidth small x */
    {0xFF61, 0xFF61, '.'},   /* halfwidth ideographic full stop */
    {0x1D7CE, 0x1D7D7, '0'}, /* mathematical bold digits */
    {0x1D7D8, 0x1D7E1, '0'}, /* double-struck digits */
    {0x1D7E2, 0x1D7EB, '0'}, /* sans-serif digits */
    {0x1D7EC, 0x1D7F5, '0'}, /* sans-serif bold digits */
    {0x1D7F6, 0x1D7FF, '0'}, /* monospace digits */
    {0x1FBF0, 0x1FBF9, '0'}, /* segmented digits */
    /* More of IdnaMappingTable (Unicode 17), found by comparing every code
       point with an independent UTS #46 implementation (doc/policy.md says
       every character UTS #46 maps to an address character counts): */
    {0x00AA, 0x00AA, 'a'},   /* feminine ordinal indicator */
    {0x02E3, 0x02E3, 'x'},   /* modifier letter small x */
    {0x1D2C, 0x1D2C, 'a'},   /* modifier letter capital A */
    {0x1D2E, 0x1D2E, 'b'},   /* modifier letter capital B */
    {0x1D30, 0x1D31, 'd'},   /* modifier letter capital D, E */
    {0x1D43, 0x1D43, 'a'},   /* modifier letter small a */
    {0x1D47, 0x1D47, 'b'},   /* modifier letter small b */
    {0x1D48, 0x1D49, 'd'},   /* modifier letter small d, e */
    {0x1D9C, 0x1D9C, 'c'},   /* modifier letter small c */
    {0x1DA0, 0x1DA0, 'f'},   /* modifier letter small f */
    {0x212C, 0x212C, 'b'},   /* script capital B */
    {0xA7F2, 0xA7F2, 'c'},   /* modifier letter capital C */
    {0xA7F3, 0xA7F3, 'f'},   /* modifier letter capital F */
    {0x1CCD6, 0x1CCDB, 'a'}, /* outlined capital A..F */
    {0x1CCED, 0x1CCED, 'x'}, /* outlined capital X */
    {0x1CCF0, 0x1CCF9, '0'}, /* outlined digits */
    {0x1F12B, 0x1F12B, 'c'}, /* circled italic capital C */
    {0x1F130, 0x1F135, 'a'}, /* squared capital A..F */
    {0x1F147, 0x1F147, 'x'}, /* squared capital X */
};

/* Code points UTS #46 maps to two address characters. */
static const struct {
    uint32_t cp;
    char to[3];
} map_pairs[] = {
    {0x3372, "da"}, /* square da */
    {0x33C4, "cc"}, /* square cc */
    {0x33C5, "cd"}, /* square cd */
    {0x33C8, "db"}, /* square db */
    {0xFB00, "ff"}, /* latin small ligature ff */
    {0x1F12D, "cd"}, /* circled CD */
};

/* Code points UTS #46 ignores (maps to nothing): soft hyphen, combining
   grapheme joiner, Mongolian variation selectors, zero width space, word
   joiner, variation selectors, zero width no-break space; and since
   Unicode 15.1 the other default ignorables: Hangul fillers, Khmer inherent
   vowels, Mongolian vowel separator and FVS4, invisible operators,
   deprecated format characters, shorthand format controls, musical
   symbol format characters. */
static const struct {
    uint32_t lo, hi;
} ignored[] = {
    {0x00AD, 0x00AD}, {0x034F, 0x034F}, {0x180B, 0x180D}, {0x200B, 0x200B},
    {0x2060, 0x2060}, {0xFE00, 0xFE0F}, {0xFEFF, 0xFEFF}, {0xE0100, 0xE01EF},
    {0x115F, 0x1160}, {0x17B4, 0x17B5}, {0x180E, 0x180F}, {0x2061, 0x2064},
    {0x206A, 0x206F}, {0x3164, 0x3164}, {0xFFA0, 0xFFA0}, {0x1BCA0, 0x1BCA3},
    {0x1D173, 0x1D17A},
};

/* Reserved (unassigned) code points inside Mathematical Alphanumeric
   Symbols; the letter-like symbols above stand in for them. */
static const uint32_t math_holes[] = {
    0x1D455, 0x1D49D, 0x1D4A0, 0x1D4A1, 0x1D4A3, 0x1D4A4, 0x1D4A7, 0x1D4A8,
    0x1D4AD, 0x1D4BA, 0x1D4BC, 0x1D4C4, 0x1D506, 0x1D50B, 0x1D50C, 0x1D515,
    0x1D51D, 0x1D53A, 0x1D53F, 0x1D545, 0x1D547, 0x1D548, 0x1D549, 0x1D551,
};

/*
 * Map one code point to ASCII for the IPv4 parser: writes up to 3 bytes to
 * out and returns the count (0 for an ignored code point), or -1 when the
 * code point maps to nothing an IPv4 parser could accept.
 */
static int map_cp(uint32_t cp, char out[3])
{
    if (cp < 0x80) {
        out[0] = (char)lower_ascii((unsigned char)cp);
        return 1;
    }
    for (size_t i = 0; i < sizeof map_ranges / sizeof map_ranges[0]; i++) {
        if (cp >= map_ranges[i].lo && cp <= map_ranges[i].hi) {
            out[0] = (char)(map_ranges[i].first + (int)(cp - map_ranges[i].lo));
            return 1;
        }
    }
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
        if (cp >= ignored[i].lo && cp <= ignored[i].hi)
            return 0;
    for (size_t i = 0; i < sizeof map_pairs / sizeof map_pairs[0]; i++) {
        if (cp == map_pairs[i].cp) {
            out[0] = map_pairs[i].to[0];
            out[1] = map_pairs[i].to[1];
            return 2;
        }
    }
    /* Numbers that NFKC maps to several characters: circled 10-20,
       "1." .. "20." (digit full stop), circled 21-35 and 36-50, "0.". */
    unsigned num = 0;
    bool dot = false;
    if (cp >= 0x2469 && cp <= 0x2473)
        num = 10 + (unsigned)(cp - 0x2469);
    else if (cp >= 0x2488 && cp <= 0x249B)
        num = 1 + (unsigned)(cp - 0x2488), dot = true;
    else if (cp >= 0x3251 && cp <= 0x325F)
        num = 21 + (unsigned)(cp - 0x3251);
    else if (cp >= 0x32B1 && cp <= 0x32BF)
        num = 36 + (unsigned)(cp - 0x32B1);
    else if (cp == 0x1F100)
        num = 0, dot = true;
    else if (cp >= 0x1D400 && cp <= 0x1D6A3) {
        /* Mathematical letters: 13 alphabets of A-Z a-z (52 each). */
        for (size_t i = 0; i < sizeof math_holes / sizeof math_holes[0]; i++)
            if (cp == math_holes[i])
                return -1;
        unsigned k = (unsigned)((cp - 0x1D400) % 52);
        out[0] = (char)('a' + (k < 26 ? k : k - 26));
        return 1;
    } else
        return -1;
    int o = 0;
    if (num >= 10)
        out[o++] = (char)('0' + num / 10);
    out[o++] = (char)('0' + num % 10);
    if (dot)
        out[o++] = '.';
    return o;
}

/* ---- stage 1 + UTF-8 decoding ---- */

typedef struct {
    uint32_t cp, min; /* code point so far; smallest legal value */
    unsigned need;    /* continuation bytes still expected */
    bool failed;
    v4_parser v4;
} host_reader;

static void reader_cp(host_reader *r, uint32_t cp)
{
    char buf[3];
    int n = map_cp(cp, buf);
    if (n < 0) {
        r->failed = true;
        return;
    }
    for (int i = 0; i < n; i++)
        v4_feed(&r->v4, (unsigned char)buf[i]);
    if (r->v4.failed)
        r->failed = true;
}

/* UTF-8 (RFC 3629): shortest form only, no surrogates, <= U+10FFFF. The
   WHATWG decoder turns anything else into U+FFFD, which no host allows. */
static void reader_byte(host_reader *r, unsigned char b)
{
    if (r->need > 0) {
        if ((b & 0xC0) != 0x80) {
            r->failed = true;
            return;
        }
        r->cp = (r->cp << 6) | (uint32_t)(b & 0x3F);
        if (--r->need == 0) {
            if (r->cp < r->min || r->cp > 0x10FFFF || (r->cp >= 0xD800 && r->cp <= 0xDFFF))
                r->failed = true;
            else
                reader_cp(r, r->cp);
        }
        return;
    }
    if (b < 0x80) {
        reader_cp(r, b);
    } else if (b >= 0xC2 && b <= 0xDF) {
        r->cp = b & 0x1F, r->need = 1, r->min = 0x80;
    } else if (b >= 0xE0 && b <= 0xEF) {
        r->cp = b & 0x0F, r->need = 2, r->min = 0x800;
    } else if (b >= 0xF0 && b <= 0xF4) {
        r->cp = b & 0x07, r->need = 3, r->min = 0x10000;
    } else {
        r->failed = true;
    }
}

bool urisan_ipv4_deobfuscate(const char *s, size_t n, uint8_t out[4])
{
    /* Fast no: the first part must start with a digit, and an ASCII byte
       other than "%" maps only to itself (lower-cased), so a host that
       starts with any other ASCII byte is no address ("www.example"). */
    if (n == 0 || ((unsigned char)s[0] < 0x80 && s[0] != '%' &&
                   !cc_is((unsigned char)s[0], CC_DIGIT) && !cc_is((unsigned char)s[0], CC_TABNL)))
        return false;
    host_reader r = {0};
    for (size_t i = 0; i < n && !r.failed; i++) {
        unsigned char c = (unsigned char)s[i];
        /* A WHATWG URL parser removes every raw TAB, LF and CR from the
           input before it parses (so does Python's urllib): the host it
           sees has none (ip_obfuscated, doc/policy.md). */
        if (cc_is(c, CC_TABNL))
            continue;
        if (c == '%') {
            /* WHATWG host parser: percent-decode, once. A "%" that does
               not start an escape stays and is no address character. */
            if (!is_escape_at(s, n, i)) {
                r.failed = true;
                break;
            }
            c = (unsigned char)(hexval((unsigned char)s[i + 1]) * 16 +
                                hexval((unsigned char)s[i + 2]));
            i += 2;
        }
        reader_byte(&r, c);
    }
    if (r.failed || r.need > 0)
        return false;
    return v4_finish(&r.v4, out);
}
