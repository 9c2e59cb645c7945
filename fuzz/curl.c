/*
 * fuzz/curl.c - differential host check against curl's URL API (Debian
 * libcurl4-openssl-dev; fuzz/README.md): no two parsers we can run may
 * extract different hosts from a URI unless urisan flags it.
 *
 * When urisan splits the input as an absolute http/https URI (with or
 * without an authority), and curl_url_set(CURLUPART_URL, flags 0) accepts it with scheme http or
 * https, the hosts must be the same -- compared as addresses when curl
 * gives an address (after its IPv4 canonicalisation: "0x7f.1" ->
 * "127.0.0.1"), else as names without case -- or urisan must have set
 * ambiguous_authority, ip_obfuscated or invalid (all three denied by the
 * default policy). Otherwise abort: a filter would judge one host while
 * curl connects to another. Inputs holding a NUL are skipped (curl takes
 * a C string). The deliberate exceptions are in fuzz/DIFFERENCES.md.
 */
#define _GNU_SOURCE 1
#include <arpa/inet.h>
#include <curl/curl.h>
#include <strings.h>

#include "fuzz_util.h"

static int scheme_is_web(const char *s, size_t n)
{
    return (n == 4 && strncasecmp(s, "http", 4) == 0) || (n == 5 && strncasecmp(s, "https", 5) == 0);
}

/* The address a host text names, or 0: IPv4 dotted (as curl prints it) or
   a bracketed IPv6 (zone and brackets dropped). */
static int host_addr(const char *h, size_t n, uint8_t out[16])
{
    char buf[300];
    if (n == 0 || n >= sizeof buf)
        return 0;
    if (h[0] == '[') {
        size_t k = 1;
        while (k < n && h[k] != ']' && h[k] != '%')
            k++;
        memcpy(buf, h + 1, k - 1);
        buf[k - 1] = '\0';
        return inet_pton(AF_INET6, buf, out) == 1 ? 6 : 0;
    }
    memcpy(buf, h, n);
    buf[n] = '\0';
    memset(out, 0, 16);
    return inet_pton(AF_INET, buf, out) == 1 ? 4 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memchr(data, '\0', size) != NULL)
        return 0;
    char *in = fuzz_dup(data, size);
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    urisan_check(in, size, NULL, &u, &r, &d);
    if (u.error.code == URISAN_E_TOO_LONG || u.scheme.off == URISAN_ABSENT ||
        !scheme_is_web(in + u.scheme.off, u.scheme.len)) {
        fuzz_done(in);
        return 0;
    }
    char *cstr = (char *)malloc(size + 1);
    memcpy(cstr, in, size);
    cstr[size] = '\0';
    CURLU *h = curl_url();
    if (h == NULL)
        abort();
    CURLUcode rc = curl_url_set(h, CURLUPART_URL, cstr, 0);
    char *cscheme = NULL, *chost = NULL;
    if (rc == CURLUE_OK && curl_url_get(h, CURLUPART_SCHEME, &cscheme, 0) == CURLUE_OK &&
        curl_url_get(h, CURLUPART_HOST, &chost, 0) == CURLUE_OK &&
        scheme_is_web(cscheme, strlen(cscheme))) {
        /* No authority for urisan ("http:/evil.com/") while curl
           connects to a host is a difference too. */
        const char *uh = u.host.off == URISAN_ABSENT ? "" : in + u.host.off;
        size_t un = u.host.len, cn = strlen(chost);
        uint8_t ua[16], ca[16];
        int cf = host_addr(chost, cn, ca);
        int same;
        if (cf != 0) {
            /* curl names an address: urisan's host must be that address,
               from the parse (dotted, IPv6) or the de-obfuscation */
            int uf = r.ip_family;
            memcpy(ua, r.ip, 16);
            if (uf == 0)
                uf = host_addr(uh, un, ua);
            same = uf == cf && memcmp(ua, ca, cf == 4 ? 4 : 16) == 0;
        } else {
            same = u.host.off != URISAN_ABSENT && un == cn && strncasecmp(uh, chost, cn) == 0;
        }
        urisan_flags excuse = URISAN_F(AMBIGUOUS_AUTHORITY) | URISAN_F(IP_OBFUSCATED) |
                              URISAN_F(INVALID);
        if (!same && !(r.flags & excuse)) {
            fuzz_str a = {0};
            fs_add(&a, uh, un);
            fuzz_fail("host differs: urisan \"%s\", curl \"%s\", and urisan flags none of "
                      "ambiguous_authority, ip_obfuscated, invalid",
                      a.p, chost);
        }
    }
    curl_free(cscheme);
    curl_free(chost);
    curl_url_cleanup(h);
    free(cstr);
    fuzz_done(in);
    return 0;
}
