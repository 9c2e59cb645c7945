/*
 * connect_target.h - CONNECT's request target, read as the tunnel it opens.
 *
 * A CONNECT request names no URL but an authority (RFC 9110 9.3.6; RFC
 * 9112 3.2.3 authority-form: host ":" port), and Squid hands exactly that
 * to a helper (%>ru) and writes it in access.log. urisan judges it as
 * "https://host:port": the host and port of the tunnel, a port other than
 * 443 being nondefault_port. `check --format squid` and `squid-acl` both
 * read it so, through this one test.
 */
#ifndef URISAN_CLI_CONNECT_TARGET_H
#define URISAN_CLI_CONNECT_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define CLI_CONNECT_SCHEME "https://"

/*
 * Is p[0..n) CONNECT's authority-form? method_connect: the request's
 * method is known to be CONNECT (a log line), and a target that is not a
 * path is its authority. Without the method (squid-acl's %>ru): host ":"
 * port with a decimal port of 1 to 5 digits and no '/' anywhere - an
 * absolute URL Squid hands a helper always has "//" or a non-digit after
 * its scheme's ':' - so "javascript:alert(1)" and "mailto:a@b" are not.
 */
/*
 * squid-acl: is the acl line's first argument (Squid's %DATA, after the
 * value: a[0..n), the rest of the request line) the word "connect"? The
 * documented block asks for CONNECT requests with that argument, so the
 * helper knows the value is CONNECT's host:port and not a URL.
 */
static inline bool cli_connect_arg(const char *a, size_t n)
{
    static const char word[] = "connect";
    size_t w = sizeof word - 1;
    if (n < w || (n > w && a[w] != ' '))
        return false;
    for (size_t i = 0; i < w; i++)
        if ((a[i] | 0x20) != word[i])
            return false;
    return true;
}

static inline bool cli_connect_target(const char *p, size_t n, bool method_connect)
{
    if (n == 0 || p[0] == '/')
        return false;
    if (method_connect)
        return !(n > 3 && memchr(p, '/', n) != NULL);
    if (memchr(p, '/', n) != NULL)
        return false;
    size_t digits = 0;
    while (digits < n && p[n - 1 - digits] >= '0' && p[n - 1 - digits] <= '9')
        digits++;
    return digits >= 1 && digits <= 5 && digits < n - 1 && p[n - 1 - digits] == ':';
}

#endif
