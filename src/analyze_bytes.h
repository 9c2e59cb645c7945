/*
 * analyze_bytes.h - the flags of bytes and escapes (urisan(1), FLAGS): raw
 * bytes (ctl_raw, whitespace, non_ascii, backslash, invalid_escape), escapes
 * (escaped_crlf, escaped_nul, escaped_ctl, overlong_utf8), the
 * once-decoded stream (double_encoding) and encoded_slash. Part of the
 * analysis' one translation unit (analyze.h).
 */
#ifndef URISAN_ANALYZE_BYTES_H
#define URISAN_ANALYZE_BYTES_H

#include "analyze.h"

/*
 * Overlong UTF-8 in consecutive escapes (overlong_utf8, doc/policy.md):
 * lead C0-C1 + 1 continuation; E0 then 80-9F + 1 more; F0 then 80-8F + 2
 * more; the obsolete 5- and 6-byte forms F8 then 80-87 + 3, FC then 80-83
 * + 4. Lax decoders read %c0%ae as ".", %c0%af as "/", %c0%80 as NUL.
 */
typedef struct {
    unsigned need;     /* continuation bytes still expected; 0: no lead */
    unsigned first_hi; /* upper bound of the first continuation byte */
    bool first;        /* the next byte is the first continuation */
} overlong_state;

static bool overlong_lead(overlong_state *o, unsigned char b)
{
    o->first = true;
    switch (b) {
    case 0xC0: case 0xC1: o->need = 1; o->first_hi = 0xBF; return true;
    case 0xE0: o->need = 2; o->first_hi = 0x9F; return true;
    case 0xF0: o->need = 3; o->first_hi = 0x8F; return true;
    case 0xF8: o->need = 4; o->first_hi = 0x87; return true;
    case 0xFC: o->need = 5; o->first_hi = 0x83; return true;
    default: o->need = 0; return false;
    }
}

/* Feed one escaped byte; true when an overlong sequence just completed. */
static bool overlong_feed(overlong_state *o, unsigned char b)
{
    if (o->need > 0) {
        unsigned hi = o->first ? o->first_hi : 0xBF;
        if (b >= 0x80 && b <= hi) {
            o->first = false;
            if (--o->need == 0)
                return true;
            return false;
        }
        /* broken sequence: this byte may start a new one */
    }
    overlong_lead(o, b);
    return false;
}

/* Does in[lo..hi) hold an odd byte (simd.h)? */
static bool odd_in(const char *in, size_t len, size_t lo, size_t hi)
{
    for (size_t b = lo & ~(size_t)63; b < hi; b += 64) {
        uint64_t m = simd_odd_mask(in, len, b) & (~(uint64_t)0 << (lo > b ? lo - b : 0));
        if (hi - b < 64)
            m &= ((uint64_t)1 << (hi - b)) - 1;
        if (m != 0)
            return true;
    }
    return false;
}

/* What scan_bytes carries from byte to byte. */
typedef struct {
    urisan_flags f;
    unsigned cls;      /* SCAN_PCT, SCAN_ODD: the kinds of odd byte seen */
    overlong_state ol;
    /* last two bytes of the decoded stream: d2 before d1; 0x100 = none */
    unsigned d2, d1;
} byte_state;

/* The next byte of the once-decoded stream. A raw "%" HEX HEX is itself
   decoded, so any escape seen in the decoded stream was made by the
   decoding: double encoding (%252e, %2500, %%32%65). */
static inline void decoded(byte_state *s, unsigned out)
{
    if (s->d2 == '%' && s->d1 < 0x100 && cc_is((unsigned char)s->d1, CC_HEX) &&
        cc_is((unsigned char)out, CC_HEX))
        s->f |= F(DOUBLE_ENCODING);
    s->d2 = s->d1;
    s->d1 = out;
}

/* in[from..to): bytes that are not odd (simd.h): none is flagged; each
   breaks an escape run and is a decoded byte. Past the first two, a
   plain byte cannot follow a decoded "%" - only the last two matter. */
static inline void feed_plain(byte_state *s, const char *in, size_t from, size_t to)
{
    if (from == to)
        return;
    s->ol.need = 0; /* escapes must be consecutive; raw bytes do not count */
    decoded(s, (unsigned char)in[from]);
    if (to - from >= 2)
        decoded(s, (unsigned char)in[from + 1]);
    if (to - from > 2) {
        s->d2 = (unsigned char)in[to - 2];
        s->d1 = (unsigned char)in[to - 1];
    }
}

/* The odd byte at in[i]: an escape (3 bytes) or a raw byte. Returns the
   offset after it. */
static inline size_t feed_odd(byte_state *s, const char *in, size_t len, size_t i)
{
    unsigned char c = (unsigned char)in[i];
    s->cls |= c == '%' ? SCAN_PCT : SCAN_ODD;
    if (c == '%' && is_escape_at(in, len, i)) {
        unsigned char b = esc_byte(in, i);
        if (b == 0x0D || b == 0x0A)
            s->f |= F(ESCAPED_CRLF);
        if (b == 0x00)
            s->f |= F(ESCAPED_NUL);
        if (cc_is(b, CC_CTL))
            s->f |= F(ESCAPED_CTL);
        if (overlong_feed(&s->ol, b))
            s->f |= F(OVERLONG_UTF8);
        decoded(s, b);
        return i + 3;
    }
    s->ol.need = 0;
    if (c == '%')
        s->f |= F(INVALID_ESCAPE);
    if (cc_is(c, CC_CTL))
        s->f |= F(CTL_RAW);
    if (cc_is(c, CC_WS))
        s->f |= F(WHITESPACE);
    if (cc_is(c, CC_HIGH))
        s->f |= F(NON_ASCII);
    if (c == '\\')
        s->f |= F(BACKSLASH);
    decoded(s, c);
    return i + 1;
}

/*
 * Every byte check of the flags in one pass: raw bytes (ctl_raw, whitespace,
 * non_ascii, backslash), escapes (escaped_*, invalid_escape,
 * overlong_utf8) and the once-decoded stream (double_encoding). Only the
 * odd bytes (simd_odd_mask: 64 at a time) are looked at one by one; the
 * runs between them cost two steps each.
 */
static urisan_flags scan_bytes(const char *in, size_t len, unsigned *cls)
{
    byte_state s = {0, 0, {0, 0, false}, 0x100, 0x100};
    size_t next = 0; /* in[0..next) is fed */
    for (size_t b = 0; b < len; b += 64) {
        for (uint64_t m = simd_odd_mask(in, len, b); m != 0; m &= m - 1) {
            size_t i = b + scan_ctz64(m);
            if (i < next)
                continue; /* inside an escape already fed */
            feed_plain(&s, in, next, i);
            next = feed_odd(&s, in, len, i);
        }
    }
    if (next < len)
        feed_plain(&s, in, next, len);
    *cls = s.cls;
    return s.f;
}

/*
 * encoded_slash: %2f or %5c in the authority or the path, where a
 * decoding server or proxy would see a separator. Only with some "%" in
 * the input (cls & SCAN_PCT).
 */
static bool encoded_slash_in(const char *in, size_t s, size_t e)
{
    for (const char *p = in + s; e - (size_t)(p - in) > 2 &&
                                 (p = memchr(p, '%', e - 2 - (size_t)(p - in))) != NULL;
         p++) {
        if ((p[1] == '2' && (p[2] | 0x20) == 'f') || (p[1] == '5' && (p[2] | 0x20) == 'c'))
            return true;
    }
    return false;
}

static urisan_flags encoded_slash(const char *in, const urisan_uri *u)
{
    if (u->host.off != URISAN_ABSENT) {
        size_t as = u->userinfo.off != URISAN_ABSENT ? u->userinfo.off : u->host.off;
        size_t ae = u->host.off + u->host.len;
        if (u->port.off != URISAN_ABSENT)
            ae = u->port.off + u->port.len;
        if (encoded_slash_in(in, as, ae))
            return F(ENCODED_SLASH);
    }
    urisan_span p = u->path;
    if (p.off != URISAN_ABSENT && encoded_slash_in(in, p.off, p.off + p.len))
        return F(ENCODED_SLASH);
    return 0;
}

#endif
