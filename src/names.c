/*
 * names.c - host names that resolve inside (doc/policy.md): internal_name for
 * the names that always or usually stay in the local network, and
 * single_label for a name without a dot (an intranet host, "metadata",
 * "instance-data"), which a search domain or LLMNR resolves locally.
 * Case and trailing dots do not hide a name ("LOCALHOST.", "a.Local.."),
 * nor do percent-escapes of its letters or dots.
 */
#include "risk.h"

#include <string.h>

/* t[0..l) equals the lower-case word w without regard to ASCII case
   ("| 0x20" maps only "A".."Z" onto "a".."z") */
static bool label_is(const char *t, size_t l, const char *w, size_t wl)
{
    if (l != wl)
        return false;
    for (size_t i = 0; i < l; i++)
        if ((unsigned char)(t[i] | 0x20) != (unsigned char)w[i])
            return false;
    return true;
}

/*
 * The last label s[last..n) of a name and the special-use or private-use
 * names it is compared with: localhost (RFC 6761 6.3: always loopback),
 * local (RFC 6762 mDNS), internal (ICANN, reserved for private use,
 * 2024), home.arpa (RFC 8375), localdomain (the common /etc/hosts alias),
 * the private names RFC 6762 Appendix G finds in use: lan, intranet,
 * corp, home, private, and the loopback aliases distributions put in
 * /etc/hosts: localhost4, localhost6, localdomain4, localdomain6 (Red Hat:
 * "localhost4.localdomain4"), ip6-localhost, ip6-loopback (Debian).
 */
static bool internal_tld(const char *s, size_t n, size_t last)
{
    const char *t = s + last;
    size_t l = n - last;
    switch (l) {
    case 3: return label_is(t, l, "lan", 3);
    case 4:
        if (label_is(t, l, "arpa", 4))
            return last >= 5 && label_is(s + last - 5, 4, "home", 4) && s[last - 1] == '.' &&
                   (last == 5 || s[last - 6] == '.');
        return label_is(t, l, "corp", 4) || label_is(t, l, "home", 4);
    case 5: return label_is(t, l, "local", 5);
    case 7: return label_is(t, l, "private", 7);
    case 8: return label_is(t, l, "internal", 8) || label_is(t, l, "intranet", 8);
    case 9: return label_is(t, l, "localhost", 9);
    case 10: return label_is(t, l, "localhost4", 10) || label_is(t, l, "localhost6", 10);
    case 11: return label_is(t, l, "localdomain", 11);
    case 12:
        return label_is(t, l, "localdomain4", 12) || label_is(t, l, "localdomain6", 12) ||
               label_is(t, l, "ip6-loopback", 12);
    case 13: return label_is(t, l, "ip6-localhost", 13);
    default: return false;
    }
}

/* s[0..n): a name without "%" (any case, trailing dots allowed) */
static urisan_flags judge(const char *s, size_t n)
{
    while (n > 0 && s[n - 1] == '.')
        n--; /* the DNS root: "localhost." is localhost */
    if (n == 0)
        return 0;
    size_t last = n;
    while (last > 0 && s[last - 1] != '.')
        last--;
    urisan_flags f = last == 0 ? URISAN_F(SINGLE_LABEL) : 0;
    if (internal_tld(s, n, last))
        f |= URISAN_F(INTERNAL_NAME);
    return f;
}

urisan_flags urisan_name_flags_raw(const char *h, size_t n)
{
    return judge(h, n);
}

urisan_flags urisan_name_flags(const char *h, size_t n)
{
    if (memchr(h, '%', n) == NULL)
        return judge(h, n);
    /* decode escapes once ("%2e" is a dot, "%4c" an "L"); a name too long
       for a host (255 bytes) resolves nowhere */
    char buf[POL_MAX_HOSTNAME + 1];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)h[i];
        if (c == '%' && is_escape_at(h, n, i)) {
            c = (unsigned char)(hexval((unsigned char)h[i + 1]) * 16 +
                                hexval((unsigned char)h[i + 2]));
            i += 2;
        }
        if (k == sizeof buf)
            return 0;
        buf[k++] = (char)c;
    }
    /* a decoded "%" is a byte of the name now, not an escape */
    return judge(buf, k);
}
