/*
 * analyze_bytes.c - the flags of bytes and escapes (SPEC 3): one pass over
 * every byte (raw bytes, escapes, the once-decoded stream) and
 * encoded_slash. Nothing fires without a "%" or an odd byte (a control,
 * space, DEL, non-ASCII or "\\"): the summary rules both out for most
 * inputs.
 */
#include "analysis.h"

/*
 * Overlong UTF-8 in consecutive escapes (SPEC 3 overlong_utf8): lead C0-C1
 * + 1 continuation; E0 then 80-9F + 1 more; F0 then 80-8F + 2 more; the
 * obsolete 5- and 6-byte forms F8 then 80-87 + 3, FC then 80-83 + 4. Lax
 * decoders read %c0%ae as ".", %c0%af as "/", %c0%80 as NUL.
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

/*
 * One pass over every byte: raw bytes (ctl_raw, whitespace, non_ascii,
 * backslash), escapes (escaped_*, invalid_escape, overlong_utf8) and the
 * once-decoded stream (double_encoding: a "%" HEX HEX that appears only
 * after decoding, as in %252e, %2500, %%32%65).
 */
static urisan_flags scan_bytes(const char *in, size_t len)
{
    urisan_flags f = 0;
    overlong_state ol = {0, 0, false};
    /* last two bytes of the decoded stream: d2 before d1; 0x100 = none */
    unsigned d2 = 0x100, d1 = 0x100;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)in[i];
        unsigned out;
        if (c == '%' && is_escape_at(in, len, i)) {
            unsigned char b = esc_byte(in, i);
            if (b == 0x0D || b == 0x0A)
                f |= F(ESCAPED_CRLF);
            if (b == 0x00)
                f |= F(ESCAPED_NUL);
            if (cc_is(b, CC_CTL))
                f |= F(ESCAPED_CTL);
            if (overlong_feed(&ol, b))
                f |= F(OVERLONG_UTF8);
            out = b;
            i += 2;
        } else {
            ol.need = 0; /* escapes must be consecutive; raw bytes do not count */
            if (c == '%')
                f |= F(INVALID_ESCAPE);
            if (cc_is(c, CC_CTL))
                f |= F(CTL_RAW);
            if (cc_is(c, CC_WS))
                f |= F(WHITESPACE);
            if (cc_is(c, CC_HIGH))
                f |= F(NON_ASCII);
            if (c == '\\')
                f |= F(BACKSLASH);
            out = c;
        }
        /* A raw "%" HEX HEX is itself decoded, so any escape seen in the
           decoded stream was made by the decoding: double encoding. */
        if (d2 == '%' && d1 < 0x100 && cc_is((unsigned char)d1, CC_HEX) &&
            cc_is((unsigned char)out, CC_HEX))
            f |= F(DOUBLE_ENCODING);
        d2 = d1;
        d1 = out;
    }
    return f;
}

/* encoded_slash: %2f or %5c in the authority or the path, where a decoding
   server or proxy would see a separator */
static urisan_flags encoded_slash(const char *in, const urisan_uri *u)
{
    size_t as = URISAN_ABSENT, ae = 0;
    if (u->host.off != URISAN_ABSENT) {
        as = u->userinfo.off != URISAN_ABSENT ? u->userinfo.off : u->host.off;
        ae = u->host.off + u->host.len;
        if (u->port.off != URISAN_ABSENT)
            ae = u->port.off + u->port.len;
    }
    for (int part = 0; part < 2; part++) {
        size_t s = part == 0 ? as : u->path.off;
        size_t e = part == 0 ? ae : u->path.off + u->path.len;
        if (s == URISAN_ABSENT)
            continue;
        for (size_t i = s; i + 2 < e; i++) {
            if (in[i] == '%' && (((in[i + 1] == '2') && (in[i + 2] | 0x20) == 'f') ||
                                 ((in[i + 1] == '5') && (in[i + 2] | 0x20) == 'c')))
                return F(ENCODED_SLASH);
        }
    }
    return 0;
}

static urisan_flags bytes_rules(const analysis *a)
{
    urisan_flags f = scan_bytes(a->in, a->len);
    if (a->sum & SCAN_PCT)
        f |= encoded_slash(a->in, a->u);
    return f;
}

/* Every byte and escape flag needs a "%" or an odd byte. */
static inline urisan_flags an_bytes(const analysis *a)
{
    return (a->sum & (SCAN_PCT | SCAN_ODD)) ? bytes_rules(a) : 0;
}
