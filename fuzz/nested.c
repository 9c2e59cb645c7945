/*
 * fuzz/nested.c - URLs nested in parameters (src/nested*.c) against a
 * small reference reader written here from the readings doc/policy.md
 * "Nested URLs" names, independently of the library:
 *   - parameters of the query and the fragment split on "&", and each
 *     value once more on ";";
 *   - the value decoded once ("+" a space) and twice;
 *   - read as the WHATWG URL parser reads it: C0 controls and spaces
 *     stripped at both ends, TAB LF CR removed, a special scheme followed
 *     by any number of "/" or "\" (or two or more of them alone) giving an
 *     authority, whose host is what follows the last "@" up to "/", "\",
 *     "?", "#" or a port.
 * Invariant: when `--profile ssrf` allows the input, no reading of any of
 * its parameters reaches an internal host (127/8, 10/8, 169.254/16,
 * 192.168/16, [::1], localhost, *.localhost, *.internal, *.local,
 * *.nip.io).
 */
#include "fuzz_util.h"

#include <ctype.h>

static urisan_policy *ssrf;

static int hexv(int c)
{
    return isdigit(c) ? c - '0' : isxdigit(c) ? (tolower(c) - 'a' + 10) : -1;
}

/* Percent-decode s[0..n) into out ("+" a space when plus); the length. */
static size_t decode(const char *s, size_t n, char *out, int plus)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int h = i + 2 < n ? hexv((unsigned char)s[i + 1]) : -1;
        int l = i + 2 < n ? hexv((unsigned char)s[i + 2]) : -1;
        if (s[i] == '%' && h >= 0 && l >= 0) {
            out[o++] = (char)(h * 16 + l);
            i += 2;
        } else {
            out[o++] = plus && s[i] == '+' ? ' ' : s[i];
        }
    }
    return o;
}

static int starts_ci(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    if (n < k)
        return 0;
    for (size_t i = 0; i < k; i++)
        if (tolower((unsigned char)s[i]) != lit[i])
            return 0;
    return 1;
}

static int ends_ci(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    return n >= k && starts_ci(s + n - k, k, lit);
}

static int internal_host(const char *h, size_t n)
{
    return starts_ci(h, n, "127.") || starts_ci(h, n, "10.") || starts_ci(h, n, "169.254.") ||
           starts_ci(h, n, "192.168.") || (n == 5 && starts_ci(h, n, "[::1]")) ||
           (n == 9 && starts_ci(h, n, "localhost")) || ends_ci(h, n, ".localhost") ||
           ends_ci(h, n, ".internal") || ends_ci(h, n, ".local") || ends_ci(h, n, ".nip.io");
}

static int slash(char c)
{
    return c == '/' || c == '\\';
}

/* Does the decoded value t[0..n) (a buffer of n bytes, changed) reach an
   internal host as the URL parser reads it? */
static int reaches_internal(char *t, size_t n)
{
    size_t i = 0, e = n, m = 0;
    while (i < e && (unsigned char)t[i] <= 0x20)
        i++;
    while (e > i && (unsigned char)t[e - 1] <= 0x20)
        e--;
    for (size_t j = i; j < e; j++)
        if (t[j] != '\t' && t[j] != '\n' && t[j] != '\r')
            t[m++] = t[j];
    size_t a = m;
    static const char *const special[] = {"http:", "https:", "ws:", "wss:", "ftp:"};
    for (size_t k = 0; k < 5 && a == m; k++)
        if (starts_ci(t, m, special[k]))
            a = strlen(special[k]);
    if (a == m && m >= 2 && slash(t[0]) && slash(t[1]))
        a = 0;
    if (a == m)
        return 0;
    while (a < m && slash(t[a]))
        a++;
    size_t end = a;
    while (end < m && !slash(t[end]) && t[end] != '?' && t[end] != '#')
        end++;
    size_t h = a;
    for (size_t j = a; j < end; j++)
        if (t[j] == '@')
            h = j + 1;
    size_t he = end;
    if (h < end && t[h] != '[')
        for (size_t j = h; j < end; j++)
            if (t[j] == ':') {
                he = j;
                break;
            }
    while (he > h && t[he - 1] == '.')
        he--;
    return internal_host(t + h, he - h);
}

/* Every reading of the value v[0..n). */
static int value_reaches(const char *v, size_t n, char *b1, char *b2)
{
    size_t n1 = decode(v, n, b1, 1);
    size_t n2 = decode(b1, n1, b2, 1);
    int r = reaches_internal(b2, n2);
    n1 = decode(v, n, b1, 1);
    return r || reaches_internal(b1, n1);
}

/* Parameters of t[s..e), split on "&"; each also split on ";". */
static int part_reaches(const char *t, size_t s, size_t e, char *b1, char *b2)
{
    for (size_t p = s; p <= e;) {
        size_t q = p;
        while (q < e && t[q] != '&')
            q++;
        for (size_t r = p; r <= q;) { /* the ";" pieces, and the whole */
            size_t x = r;
            while (x < q && t[x] != ';')
                x++;
            const char *eq = memchr(t + r, '=', x - r);
            if (eq != NULL && value_reaches(eq + 1, (size_t)(t + x - eq - 1), b1, b2))
                return 1;
            r = x + 1;
        }
        const char *eq = memchr(t + p, '=', q - p);
        if (eq != NULL && value_reaches(eq + 1, (size_t)(t + q - eq - 1), b1, b2))
            return 1;
        p = q + 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    if (ssrf == NULL) {
        ssrf = malloc(urisan_policy_size());
        if (ssrf == NULL || urisan_policy_profile(ssrf, "ssrf", 4) != URISAN_OK)
            abort();
    }
    char *in = fuzz_dup(data, size);
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    urisan_check(in, size, ssrf, &u, &r, &d);
    if (d.verdict == URISAN_ALLOW) {
        char *b1 = malloc(size + 1), *b2 = malloc(size + 1);
        if (b1 == NULL || b2 == NULL)
            abort();
        int bad = 0;
        if (u.query.off != URISAN_ABSENT)
            bad |= part_reaches(in, u.query.off, u.query.off + u.query.len, b1, b2);
        if (u.fragment.off != URISAN_ABSENT)
            bad |= part_reaches(in, u.fragment.off, u.fragment.off + u.fragment.len, b1, b2);
        FUZZ_ASSERT(!bad, "ssrf allows a URI whose parameter reaches an internal host");
        free(b1);
        free(b2);
    }
    fuzz_done(in);
    return 0;
}
