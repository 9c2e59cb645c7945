/*
 * ip_text.c - the text of a report's address (urisan_format_ip): RFC 5952
 * for IPv6, dotted decimal for IPv4.
 */
#include "internal.h"

#include <string.h>

static size_t put_dec(char *t, unsigned v)
{
    size_t n = 0;
    if (v >= 100)
        t[n++] = (char)('0' + v / 100);
    if (v >= 10)
        t[n++] = (char)('0' + v / 10 % 10);
    t[n++] = (char)('0' + v % 10);
    return n;
}

static size_t put_v4(char *t, const uint8_t a[4])
{
    size_t n = 0;
    for (int i = 0; i < 4; i++) {
        if (i > 0)
            t[n++] = '.';
        n += put_dec(t + n, a[i]);
    }
    return n;
}

/*
 * RFC 5952 section 4: lower-case hex, no leading zeros, the longest run
 * (first on a tie) of two or more zero groups as "::". Section 5: an
 * IPv4-mapped (::ffff:0:0/96) or IPv4-compatible (::/96, from the second
 * group of its last 32 bits on) address ends in dotted decimal - the same
 * text inet_ntop(3) writes.
 */
static size_t put_v6(char *t, const uint8_t a[16])
{
    static const char hex[] = "0123456789abcdef";
    unsigned w[8];
    for (int i = 0; i < 8; i++)
        w[i] = (unsigned)a[2 * i] << 8 | a[2 * i + 1];
    int best = -1, bestlen = 0;
    for (int i = 0; i < 8;) {
        if (w[i] != 0) {
            i++;
            continue;
        }
        int j = i;
        while (j < 8 && w[j] == 0)
            j++;
        if (j - i > bestlen) {
            best = i;
            bestlen = j - i;
        }
        i = j;
    }
    if (bestlen < 2)
        best = -1;
    size_t n = 0;
    for (int i = 0; i < 8; i++) {
        if (best >= 0 && i >= best && i < best + bestlen) {
            if (i == best)
                t[n++] = ':';
            continue;
        }
        if (i != 0)
            t[n++] = ':';
        if (i == 6 && best == 0 && (bestlen == 6 || (bestlen == 5 && w[5] == 0xffff))) {
            n += put_v4(t + n, a + 12);
            return n;
        }
        bool started = false;
        for (int sh = 12; sh >= 0; sh -= 4) {
            unsigned d = (w[i] >> sh) & 0xF;
            if (d != 0 || started || sh == 0) {
                t[n++] = hex[d];
                started = true;
            }
        }
    }
    if (best >= 0 && best + bestlen == 8)
        t[n++] = ':';
    return n;
}

URISAN_API urisan_status urisan_format_ip(const urisan_report *r, char *buf, size_t cap,
                                          size_t *needed)
{
    char tmp[48]; /* 39 for the longest IPv6 text, 45 with dotted decimal */
    size_t n = 0;
    if (r == NULL || needed == NULL) {
        if (needed)
            *needed = 0;
        return URISAN_E_BAD_ARGUMENT;
    }
    if (r->ip_family == 4)
        n = put_v4(tmp, r->ip);
    else if (r->ip_family == 6)
        n = put_v6(tmp, r->ip);
    else {
        *needed = 0;
        return URISAN_E_BAD_ARGUMENT; /* no address */
    }
    *needed = n;
    if (n > cap || buf == NULL) /* n > 0: an address has text */
        return URISAN_E_NOSPACE;
    memcpy(buf, tmp, n);
    urisan_nul_after(buf, cap, n);
    return URISAN_OK;
}
