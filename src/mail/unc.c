/*
 * unc.c - UNC paths in text (\\host\share\file.txt): mail clients on
 * Windows turn them into links that open the file over SMB, sending the
 * reader's NTLM credentials to the host. Each is reported as the file:
 * URI a Windows client opens for it (file://host/share/file.txt, the form
 * of RFC 8089 appendix E.3.1), so its host is judged like any link's.
 */
#include "mail_internal.h"

#include <string.h>

static bool host_byte(unsigned char c)
{
    /* a NetBIOS or DNS name, an IPv4 address, a U-label (UTF-8) */
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '-' || c == '_' || c >= 0x80;
}

/* Ends a path as white space, quotes and angle brackets end a URL. */
static bool path_byte(unsigned char c)
{
    return c > 0x20 && c != 0x7F && c != '"' && c != '<' && c != '>' && c != '|' && c != '*' &&
           c != '?';
}

/* A UNC path may start here: at the start, or after white space or an
   opening delimiter (not inside a word or another path). */
static bool may_start(const char *t, size_t i)
{
    if (i == 0)
        return true;
    unsigned char p = (unsigned char)t[i - 1];
    return p <= 0x20 || p == '(' || p == '[' || p == '<' || p == '"' || p == '\'' || p == '>' ||
           p == ':';
}

bool mail_unc_next(const char *t, size_t len, size_t *pos, mail_unc *u)
{
    for (size_t i = *pos; i + 4 < len; i++) {
        const char *bs = memchr(t + i, '\\', len - i);
        if (bs == NULL)
            break;
        i = (size_t)(bs - t);
        if (i + 4 >= len || t[i + 1] != '\\' || !may_start(t, i))
            continue;
        size_t h = i + 2, he = h;
        while (he < len && host_byte((unsigned char)t[he]))
            he++;
        if (he == h || he >= len || t[he] != '\\' || he + 1 >= len ||
            !path_byte((unsigned char)t[he + 1]) || t[he + 1] == '\\') {
            i = he > i + 1 ? he - 1 : i + 1;
            continue;
        }
        size_t e = he + 1;
        while (e < len && path_byte((unsigned char)t[e]))
            e++;
        /* trailing punctuation of the sentence is not the path's */
        while (e > he + 2 && strchr(".,;:!)]'", t[e - 1]) != NULL)
            e--;
        u->off = i;
        u->len = e - i;
        u->host = h;
        u->host_len = he - h;
        *pos = e;
        return true;
    }
    *pos = len;
    return false;
}

size_t mail_unc_uri(const char *t, const mail_unc *u, char *out, size_t cap)
{
    /* "file://" host, then the rest with '\' as '/' */
    size_t need = 7 + u->len - 2;
    if (need >= cap)
        return 0;
    memcpy(out, "file://", 7);
    size_t o = 7;
    for (size_t k = u->off + 2; k < u->off + u->len; k++)
        out[o++] = t[k] == '\\' ? '/' : t[k];
    out[o] = '\0';
    return o;
}
