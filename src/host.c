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
bool urisan_parse_ipv6(const char *s, size_t n, uint8_t out[16], size_t *errpos)
{
    uint16_t piece[8] = {0};
    size_t np = 0;          /* pieces seen */
    size_t dcolon = 8 + 1;  /* index in piece[] where "::" stood; 9: none */
    size_t i = 0;

    if (n >= 2 && s[0] == ':' && s[1] == ':') {
        dcolon = 0;
        i = 2;
    } else if (n >= 1 && s[0] == ':') {
        *errpos = 0;
        return false;
    }
    if (n == 0) {
        *errpos = 0;
        return false;
    }

    while (i < n) {
        size_t start = i;
        unsigned v = 0;
        while (i < n && cc_is((unsigned char)s[i], CC_HEX) && i - start < 4) {
            v = (v << 4) | hexval((unsigned char)s[i]);
            i++;
        }
        if (i < n && s[i] == '.') {
            /* ls32 as IPv4address: must end the address, fill two pieces */
            uint8_t v4[4];
            if (np > 6 || !urisan_parse_ipv4_strict(s + start, n - start, v4)) {
                *errpos = start;
                return false;
            }
            piece[np++] = (uint16_t)((v4[0] << 8) | v4[1]);
            piece[np++] = (uint16_t)((v4[2] << 8) | v4[3]);
            break; /* the IPv4 part ran to the end */
        }
        if (i == start) {
            *errpos = i;
            return false;
        }
        if (i < n && cc_is((unsigned char)s[i], CC_HEX)) {
            *errpos = i; /* a fifth hex digit */
            return false;
        }
        if (np == 8) {
            *errpos = start;
            return false;
        }
        piece[np++] = (uint16_t)v;
        if (i == n)
            break;
        if (s[i] != ':') {
            *errpos = i;
            return false;
        }
        i++;
        if (i < n && s[i] == ':') {
            if (dcolon != 9) {
                *errpos = i;
                return false;
            }
            dcolon = np;
            i++;
            if (i == n)
                break;
        } else if (i == n) {
            *errpos = i - 1; /* single trailing ':' */
            return false;
        }
    }

    if (dcolon == 9) {
        if (np != 8) {
            *errpos = n;
            return false;
        }
    } else {
        if (np > 7) {
            *errpos = n;
            return false;
        }
        /* move the pieces after "::" to the end */
        size_t tail = np - dcolon;
        for (size_t k = 0; k < tail; k++)
            piece[7 - k] = piece[np - 1 - k];
        for (size_t k = dcolon; k < 8 - tail; k++)
            piece[k] = 0;
    }
    for (size_t k = 0; k < 8; k++) {
        out[2 * k] = (uint8_t)(piece[k] >> 8);
        out[2 * k + 1] = (uint8_t)(piece[k] & 0xff);
    }
    return true;
}
