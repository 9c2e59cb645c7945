/* host.c - strict RFC 3986 IPv4address and IPv6address (3.2.2), no recursion. */
#include "internal.h"

/*
 * dec-octet = DIGIT / %x31-39 DIGIT / "1" 2DIGIT / "2" %x30-34 DIGIT / "25" %x30-35
 * i.e. 0-255 without leading zeros.
 * IPv4address = dec-octet "." dec-octet "." dec-octet "." dec-octet
 */
bool urisan_parse_ipv4_strict(const char *s, size_t n, uint8_t out[4])
{
    size_t i = 0;
    for (int part = 0; part < 4; part++) {
        if (part > 0) {
            if (i >= n || s[i] != '.')
                return false;
            i++;
        }
        size_t start = i;
        unsigned v = 0;
        while (i < n && i - start < 3 && cc_is((unsigned char)s[i], CC_DIGIT)) {
            v = v * 10 + (unsigned)(s[i] - '0');
            i++;
        }
        size_t nd = i - start;
        if (nd == 0 || v > 255 || (nd > 1 && s[start] == '0'))
            return false;
        out[part] = (uint8_t)v;
    }
    return i == n;
}

/*
 * IPv6address (RFC 3986 3.2.2): eight h16 pieces, at most one "::" standing
 * for one or more zero pieces, and an optional trailing dotted IPv4 (ls32)
 * taking the place of the last two pieces.
 *   [0:0:0:0:0:0:0::1] is invalid: "::" must stand for at least one piece.
 *   [:1::1:] is invalid: a single leading or trailing ":".
 */
typedef struct {
    uint16_t piece[8];
    size_t np;      /* pieces seen */
    size_t dcolon;  /* index in piece[] where "::" stood; 9: none */
} v6_text;

/* A failure at pos: *errpos = pos, false. */
static bool v6_bad(size_t *errpos, size_t pos)
{
    *errpos = pos;
    return false;
}

/* h16 = 1*4HEXDIG, or ls32's dotted IPv4 (it must end the address and
   fills two pieces; *last is set), at s[*i..n). */
static bool v6_piece(const char *s, size_t n, size_t *i, v6_text *v, bool *last, size_t *errpos)
{
    size_t start = *i, k = *i;
    unsigned val = 0;
    while (k < n && cc_is((unsigned char)s[k], CC_HEX) && k - start < 4) {
        val = (val << 4) | hexval((unsigned char)s[k]);
        k++;
    }
    if (k < n && s[k] == '.') {
        uint8_t v4[4];
        if (v->np > 6 || !urisan_parse_ipv4_strict(s + start, n - start, v4))
            return v6_bad(errpos, start);
        v->piece[v->np++] = (uint16_t)((v4[0] << 8) | v4[1]);
        v->piece[v->np++] = (uint16_t)((v4[2] << 8) | v4[3]);
        *last = true; /* the IPv4 part ran to the end */
        return true;
    }
    if (k == start)
        return v6_bad(errpos, k);
    if (k < n && cc_is((unsigned char)s[k], CC_HEX))
        return v6_bad(errpos, k); /* a fifth hex digit */
    if (v->np == 8)
        return v6_bad(errpos, start);
    v->piece[v->np++] = (uint16_t)val;
    *i = k;
    *last = k == n;
    return true;
}

/* After a piece: ":" before the next, or "::" (at most once; *last when
   it ends the address), at s[*i..n). */
static bool v6_colons(const char *s, size_t n, size_t *i, v6_text *v, bool *last, size_t *errpos)
{
    size_t k = *i;
    if (s[k] != ':')
        return v6_bad(errpos, k);
    k++;
    if (k < n && s[k] == ':') {
        if (v->dcolon != 9)
            return v6_bad(errpos, k);
        v->dcolon = v->np;
        k++;
        *last = k == n;
    } else if (k == n) {
        return v6_bad(errpos, k - 1); /* single trailing ':' */
    }
    *i = k;
    return true;
}

/* Eight pieces, or fewer with "::" standing for at least one zero piece,
   written to out[16]. */
static bool v6_expand(v6_text *v, size_t n, uint8_t out[16], size_t *errpos)
{
    if (v->dcolon == 9 ? v->np != 8 : v->np > 7)
        return v6_bad(errpos, n);
    if (v->dcolon != 9) {
        /* move the pieces after "::" to the end */
        size_t tail = v->np - v->dcolon;
        for (size_t k = 0; k < tail; k++)
            v->piece[7 - k] = v->piece[v->np - 1 - k];
        for (size_t k = v->dcolon; k < 8 - tail; k++)
            v->piece[k] = 0;
    }
    for (size_t k = 0; k < 8; k++) {
        out[2 * k] = (uint8_t)(v->piece[k] >> 8);
        out[2 * k + 1] = (uint8_t)(v->piece[k] & 0xff);
    }
    return true;
}

bool urisan_parse_ipv6(const char *s, size_t n, uint8_t out[16], size_t *errpos)
{
    v6_text v = { {0}, 0, 9 };
    size_t i = 0;
    bool last = false;

    if (n >= 2 && s[0] == ':' && s[1] == ':') {
        v.dcolon = 0;
        i = 2;
    } else if (n >= 1 && s[0] == ':') {
        return v6_bad(errpos, 0);
    }
    if (n == 0)
        return v6_bad(errpos, 0);
    while (i < n && !last) {
        if (!v6_piece(s, n, &i, &v, &last, errpos))
            return false;
        if (!last && !v6_colons(s, n, &i, &v, &last, errpos))
            return false;
    }
    return v6_expand(&v, n, out, errpos);
}
