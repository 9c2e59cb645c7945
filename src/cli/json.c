/* json.c - bounded growable buffer and JSON Lines writer (see json.h). */
#include "json.h"

#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__) && !defined(URISAN_NO_SIMD)
#include <emmintrin.h>
#define JSON_SSE2 1
#endif

/* lim for the other fields (json.h) */
#define set_lim cli_buf_set_lim

void cli_buf_init(cli_buf *b, size_t max)
{
    b->p = NULL;
    b->len = 0;
    b->cap = 0;
    b->max = max;
    b->failed = false;
    set_lim(b);
}

void cli_buf_free(cli_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = 0;
    b->cap = 0;
    b->failed = false;
    set_lim(b);
}

void cli_buf_clear(cli_buf *b)
{
    cli_buf_rewind(b, 0);
}

void cli_buf_fail(cli_buf *b)
{
    b->failed = true;
    set_lim(b);
}

void cli_buf_drop(cli_buf *b, size_t n)
{
    memmove(b->p, b->p + n, b->len - n);
    b->len -= n;
    set_lim(b);
}

bool cli_buf_reserve(cli_buf *b, size_t n)
{
    if (b->failed)
        return false;
    /* len <= max always, so max - len cannot wrap. */
    if (n > b->max - b->len) {
        cli_buf_fail(b);
        return false;
    }
    size_t want = b->len + n;
    if (want <= b->cap)
        return true;
    size_t ncap = b->cap ? b->cap : 256;
    while (ncap < want)
        ncap = (ncap > b->max / 2) ? b->max : ncap * 2;
    if (ncap > b->max)
        ncap = b->max;
    char *np = realloc(b->p, ncap ? ncap : 1);
    if (np == NULL) {
        cli_buf_fail(b);
        return false;
    }
    b->p = np;
    b->cap = ncap;
    set_lim(b);
    return true;
}

/* "00" "01" ... "99": two digits a step */
static const char digit_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* The decimal digits of v, ending just before end; returns where they start. */
static char *digits_before(char *end, uint64_t v)
{
    while (v >= 100) {
        end -= 2;
        memcpy(end, digit_pairs + 2 * (v % 100), 2);
        v /= 100;
    }
    if (v >= 10) {
        end -= 2;
        memcpy(end, digit_pairs + 2 * v, 2);
    } else {
        *--end = (char)('0' + v);
    }
    return end;
}

char *cli_put_u(char *o, uint64_t v)
{
    /* in place: count the digits, then write them from the last */
    size_t n = 1;
    for (uint64_t p = 10; n < 20 && v >= p; p *= 10)
        n++;
    (void)digits_before(o + n, v);
    return o + n;
}

bool cli_buf_addu(cli_buf *b, uint64_t v)
{
    if (cli_buf_room(b, 20)) {
        b->len = (size_t)(cli_put_u(b->p + b->len, v) - b->p);
        return true;
    }
    char tmp[20]; /* UINT64_MAX has 20 digits */
    char *o = digits_before(tmp + sizeof tmp, v);
    return cli_buf_add(b, o, (size_t)(tmp + sizeof tmp - o));
}

/* ------------------------------------------------------------------ */
/* String escaping                                                     */
/* ------------------------------------------------------------------ */

static const char hexdig[] = "0123456789abcdef";

/* Length of the well-formed UTF-8 sequence at s[0..n) (RFC 3629 Table 3-7
   of Unicode: shortest form, no surrogates, <= U+10FFFF), 0 if none. The
   code point goes to *cp. s[0] >= 0x80. */
static size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t need;
    unsigned char lo = 0x80, hi = 0xBF; /* range of the second byte */
    uint32_t v;

    if (c >= 0xC2 && c <= 0xDF) {
        need = 2; v = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 3; v = c & 0x0Fu;
        if (c == 0xE0) lo = 0xA0;        /* overlong */
        else if (c == 0xED) hi = 0x9F;   /* surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 4; v = c & 0x07u;
        if (c == 0xF0) lo = 0x90;        /* overlong */
        else if (c == 0xF4) hi = 0x8F;   /* above U+10FFFF */
    } else {
        return 0;                        /* 80-C1, F5-FF never start one */
    }
    if (n < need)
        return 0;
    if (s[1] < lo || s[1] > hi)
        return 0;
    v = (v << 6) | (s[1] & 0x3Fu);
    for (size_t i = 2; i < need; i++) {
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
        v = (v << 6) | (s[i] & 0x3Fu);
    }
    *cp = v;
    return need;
}

/* Bytes the escaped form of s[i..end) takes; the walk is the same as in
   json_escape, so a sequence that straddles end is counted whole. */
static size_t escaped_size(const unsigned char *s, size_t n, size_t i, size_t end)
{
    size_t out = 0;
    while (i < end) {
        unsigned char c = s[i];
        uint32_t cp;
        size_t k;
        if (c >= 0x20 && c < 0x7F) {
            out += (c == '"' || c == '\\') ? 2 : 1;
            i++;
        } else if (c >= 0x80 && (k = utf8_seq(s + i, n - i, &cp)) != 0) {
            out += (cp < 0xA0 || cp == 0x2028 || cp == 0x2029) ? 6 : k;
            i += k;
        } else {
            out += 6;
            i++;
        }
    }
    return out;
}

/* The escaped form of the sequence at s[*i] (of s[0..n)) at o, *i past
   it: returns its end. Printable ASCII as is ('"' and '\\' after a
   backslash); a control byte or one outside well-formed UTF-8 as
   \u00XX; C1 controls and the JavaScript line separators as \uXXXX;
   other UTF-8 sequences as they are. */
static char *escape_one(char *o, const unsigned char *s, size_t n, size_t *i)
{
    unsigned char c = s[*i];
    if (c >= 0x20 && c < 0x7F) {
        if (c == '"' || c == '\\')
            *o++ = '\\';
        *o++ = (char)c;
        (*i)++;
        return o;
    }
    uint32_t cp = c;
    size_t k = c >= 0x80 ? utf8_seq(s + *i, n - *i, &cp) : 0;
    if (k == 0) {
        *o++ = '\\'; *o++ = 'u'; *o++ = '0'; *o++ = '0';
        *o++ = hexdig[c >> 4];
        *o++ = hexdig[c & 15];
        (*i)++;
    } else if (cp < 0xA0 || cp == 0x2028 || cp == 0x2029) {
        *o++ = '\\'; *o++ = 'u';
        *o++ = hexdig[(cp >> 12) & 15];
        *o++ = hexdig[(cp >> 8) & 15];
        *o++ = hexdig[(cp >> 4) & 15];
        *o++ = hexdig[cp & 15];
        *i += k;
    } else {
        memcpy(o, s + *i, k);
        o += k;
        *i += k;
    }
    return o;
}

/* The escape in pieces of at most 4096 input bytes, each reserving exactly
   what it needs: a string whose escaped form fits under max never fails
   and memory stays bounded. For strings whose worst case does not fit. */
static bool escape_exact(cli_buf *b, const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        /* Work in pieces: reserve exactly what each needs, so a string
           that fits under max never fails and memory stays bounded. */
        size_t end = (n - i > 4096) ? i + 4096 : n;
        if (!cli_buf_reserve(b, escaped_size(s, n, i, end)))
            return false;
        char *o = b->p + b->len;
        while (i < end)
            o = escape_one(o, s, n, &i);
        b->len = (size_t)(o - b->p);
    }
    return !b->failed;
}

/* Is c its own escaped form (printable ASCII other than '"' and '\\')? */
static inline bool plain_byte(unsigned char c)
{
    return c >= 0x20 && c < 0x7F && c != '"' && c != '\\';
}

/* Are the 16 bytes at p all plain (class 0)? With SSE2, one add and one
   signed compare find the bytes below 0x20, DEL and those >= 0x80
   together (v + 1 above 0x20 as a signed byte), two more '"' and '\\'.
   Without SSE2 json_plain_len is the byte loop alone, which costs
   check --json 16.8% more instructions (doc/bench.md). */
#ifdef JSON_SSE2
static inline bool plain16(const unsigned char *p)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i in = _mm_cmpgt_epi8(_mm_add_epi8(v, _mm_set1_epi8(1)), _mm_set1_epi8(0x20));
    __m128i esc = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                               _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
    return _mm_movemask_epi8(_mm_andnot_si128(esc, in)) == 0xffff;
}
#endif

size_t json_plain_len(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
#ifdef JSON_SSE2
    while (n - i >= 16 && plain16(s + i))
        i += 16;
    /* fewer than 16 left: the 16 bytes that end at n (those before i
       are plain already) */
    if (i == n || (n >= 16 && n - i < 16 && plain16(s + n - 16)))
        return n;
#endif
    while (i < n && plain_byte(s[i]))
        i++;
    return i;
}

bool json_quote_plain(cli_buf *b, const char *s, size_t n)
{
    if (!cli_buf_room(b, n + 2) && !cli_buf_reserve(b, n + 2))
        return false;
    char *o = b->p + b->len;
    o[0] = '"';
    memcpy(o + 1, s, n);
    o[n + 1] = '"';
    b->len += n + 2;
    return true;
}

bool json_copy_plain(char *o, const char *str, size_t n)
{
    if (json_plain_len(str, n) != n)
        return false;
    memcpy(o, str, n);
    return true;
}

bool json_escape(cli_buf *b, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    /* Fast path: room for the worst case (6 output bytes per input byte)
       reserved once, then no bound checks per byte. */
    if (b->failed || n == 0 || b->max - b->len < 8 || n > (b->max - b->len - 8) / 6)
        return escape_exact(b, s, n);
    size_t need = 6 * n;
    if (!cli_buf_room(b, need) && !cli_buf_reserve(b, need))
        return false;
    char *o = b->p + b->len;
    size_t i = 0;
    while (i < n) {
        size_t p = json_plain_len(str + i, n - i);
        memcpy(o, s + i, p);
        o += p;
        i += p;
        if (i < n)
            o = escape_one(o, s, n, &i);
    }
    b->len = (size_t)(o - b->p);
    return true;
}

bool json_quote(cli_buf *b, const char *s, size_t n)
{
    cli_buf_addc(b, '"');
    json_escape(b, s, n);
    return cli_buf_addc(b, '"');
}

/* ------------------------------------------------------------------ */
/* Structural writer                                                   */
/* ------------------------------------------------------------------ */

void json_begin(json_w *w, cli_buf *b)
{
    cli_buf_clear(b);
    w->b = b;
    w->depth = 0;
    w->in_obj[0] = false;
    w->first[0] = true;
    w->after_key = false;
}

bool json_ok(const json_w *w)
{
    return !w->b->failed && w->depth == 0 && !w->after_key && !w->first[0];
}

/* Before a value: a comma if needed; a value inside an object needs a key. */
static bool pre_value(json_w *w)
{
    if (w->after_key) {
        w->after_key = false;
        return true;
    }
    if (w->in_obj[w->depth]) {
        cli_buf_fail(w->b);   /* value without a key */
        return false;
    }
    if (w->depth == 0 && !w->first[0]) {
        cli_buf_fail(w->b);   /* two top-level values on one line */
        return false;
    }
    if (!w->first[w->depth])
        cli_buf_addc(w->b, ',');
    w->first[w->depth] = false;
    return true;
}

static void open_level(json_w *w, bool obj)
{
    if (!pre_value(w))
        return;
    if (w->depth >= JSON_MAX_DEPTH) {
        cli_buf_fail(w->b);
        return;
    }
    cli_buf_addc(w->b, obj ? '{' : '[');
    w->depth++;
    w->in_obj[w->depth] = obj;
    w->first[w->depth] = true;
}

static void close_level(json_w *w, bool obj)
{
    if (w->depth == 0 || w->in_obj[w->depth] != obj || w->after_key) {
        cli_buf_fail(w->b);
        return;
    }
    w->depth--;
    cli_buf_addc(w->b, obj ? '}' : ']');
}

void json_obj_open(json_w *w) { open_level(w, true); }
void json_obj_close(json_w *w) { close_level(w, true); }
void json_arr_open(json_w *w) { open_level(w, false); }
void json_arr_close(json_w *w) { close_level(w, false); }

void json_key(json_w *w, const char *key)
{
    if (!w->in_obj[w->depth] || w->after_key || w->depth == 0) {
        cli_buf_fail(w->b);
        return;
    }
    if (!w->first[w->depth])
        cli_buf_addc(w->b, ',');
    w->first[w->depth] = false;
    cli_buf_addc(w->b, '"');
    json_escape(w->b, key, strlen(key));
    cli_buf_add(w->b, "\":", 2);
    w->after_key = true;
}

void json_str(json_w *w, const char *s, size_t n)
{
    if (!pre_value(w))
        return;
    cli_buf_addc(w->b, '"');
    json_escape(w->b, s, n);
    cli_buf_addc(w->b, '"');
}

void json_cstr(json_w *w, const char *s)
{
    if (s == NULL)
        json_null(w);
    else
        json_str(w, s, strlen(s));
}

void json_null(json_w *w)
{
    if (pre_value(w))
        cli_buf_add(w->b, "null", 4);
}

void json_bool(json_w *w, bool v)
{
    if (pre_value(w)) {
        if (v)
            cli_buf_add(w->b, "true", 4);
        else
            cli_buf_add(w->b, "false", 5);
    }
}

void json_uint(json_w *w, uint64_t v)
{
    if (pre_value(w))
        cli_buf_addu(w->b, v);
}

void json_kstr(json_w *w, const char *key, const char *s, size_t n) { json_key(w, key); json_str(w, s, n); }
void json_kcstr(json_w *w, const char *key, const char *s) { json_key(w, key); json_cstr(w, s); }
void json_knull(json_w *w, const char *key) { json_key(w, key); json_null(w); }
void json_kbool(json_w *w, const char *key, bool v) { json_key(w, key); json_bool(w, v); }
void json_kuint(json_w *w, const char *key, uint64_t v) { json_key(w, key); json_uint(w, v); }
