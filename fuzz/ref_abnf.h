/*
 * ref_abnf.h - an independent oracle for the strict verdict: RFC 3986
 * Appendix A's URI-reference (with RFC 6874's IPv6addrz), transcribed rule
 * by rule into one POSIX extended regular expression, plus the numeric
 * bounds of the flag "invalid" (doc/policy.md) that a grammar cannot say
 * (port <= 65535, reg-name <= 255 bytes, label <= 63 bytes).
 *
 * Slow and obviously correct is the point: each rule below is the ABNF
 * line it cites, nothing more.
 */
#ifndef URISAN_FUZZ_REF_ABNF_H
#define URISAN_FUZZ_REF_ABNF_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <regex.h>

#include "fuzz_util.h"

/* Every string built while composing the regex, freed at the end of
   abnf_build (LeakSanitizer watches the harnesses). */
static char *abnf_pool[1024];
static size_t abnf_npool;

static inline char *abnf_keep(char *p)
{
    if (p == NULL || abnf_npool == sizeof abnf_pool / sizeof abnf_pool[0])
        abort();
    abnf_pool[abnf_npool++] = p;
    return p;
}

static inline char *abnf_cat(const char *a, const char *b, const char *c)
{
    size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
    char *p = abnf_keep((char *)malloc(n));
    snprintf(p, n, "%s%s%s", a, b, c);
    return p;
}

static inline char *abnf_rep(const char *x, int n) /* x repeated n times */
{
    char *r = abnf_cat("", "", "");
    for (int i = 0; i < n; i++)
        r = abnf_cat(r, x, "");
    return r;
}

/* [ *k( h16 ":" ) h16 ]  (k >= 0) */
static inline char *abnf_opt_prefix(int k)
{
    char buf[64];
    if (k == 0)
        snprintf(buf, sizeof buf, "(H16)?");
    else
        snprintf(buf, sizeof buf, "((H16:){0,%d}H16)?", k);
    return abnf_cat(buf, "", "");
}

/* Replace every "H16", "LS32", ... placeholder. */
static inline char *abnf_subst(const char *s, const char *name, const char *val)
{
    size_t nl = strlen(name), vl = strlen(val), count = 0;
    for (const char *p = strstr(s, name); p; p = strstr(p + nl, name))
        count++;
    char *out = abnf_keep((char *)malloc(strlen(s) + count * vl + 1));
    char *o = out;
    while (*s) {
        if (strncmp(s, name, nl) == 0) {
            memcpy(o, val, vl);
            o += vl;
            s += nl;
        } else {
            *o++ = *s++;
        }
    }
    *o = '\0';
    return out;
}

static inline char *abnf_build(void)
{
    /* 2.1  pct-encoded = "%" HEXDIG HEXDIG
       2.3  unreserved  = ALPHA / DIGIT / "-" / "." / "_" / "~"
       2.2  sub-delims  = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="
       3.3  pchar       = unreserved / pct-encoded / sub-delims / ":" / "@" */
#define PCT "%[0-9A-Fa-f][0-9A-Fa-f]"
#define UNRES "-A-Za-z0-9._~" /* "-" first: literal */
#define SUB "!$&'()*+,;="
    const char *pchar = "([" UNRES SUB ":@]|" PCT ")";
    /* segment-nz-nc = 1*( unreserved / pct-encoded / sub-delims / "@" ) */
    const char *pchar_nc = "([" UNRES SUB "@]|" PCT ")";
    /* 3.1 scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) */
    const char *scheme = "[A-Za-z][A-Za-z0-9+.-]*";
    /* 3.2.1 userinfo = *( unreserved / pct-encoded / sub-delims / ":" ) */
    const char *userinfo = "([" UNRES SUB ":]|" PCT ")*";
    /* 3.2.2 dec-octet, IPv4address = dec-octet "." dec-octet "." dec-octet "." dec-octet */
    const char *dec = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])";
    char *ipv4 = abnf_cat("(", abnf_subst("D\\.D\\.D\\.D", "D", dec), ")");
    /* h16 = 1*4HEXDIG ; ls32 = ( h16 ":" h16 ) / IPv4address */
    const char *h16 = "[0-9A-Fa-f]{1,4}";
    char *ls32 = abnf_cat("((H16:H16)|", ipv4, ")");
    /* IPv6address, the nine forms of 3.2.2 */
    char *forms[9];
    forms[0] = abnf_cat(abnf_rep("H16:", 6), "LS32", "");
    forms[1] = abnf_cat("::", abnf_rep("H16:", 5), "LS32");
    for (int k = 2; k <= 8; k++) {
        /* [ *(k-2)( h16 ":" ) h16 ] "::" ... */
        char *pre = abnf_opt_prefix(k - 2);
        const char *tail;
        char *t = NULL;
        switch (k) {
        case 2: tail = t = abnf_cat(abnf_rep("H16:", 4), "LS32", ""); break;
        case 3: tail = t = abnf_cat(abnf_rep("H16:", 3), "LS32", ""); break;
        case 4: tail = t = abnf_cat(abnf_rep("H16:", 2), "LS32", ""); break;
        case 5: tail = "H16:LS32"; break;
        case 6: tail = "LS32"; break;
        case 7: tail = "H16"; break;
        default: tail = ""; break;
        }
        forms[k] = abnf_cat(pre, "::", tail);
        (void)t;
    }
    char *v6 = abnf_cat("", "", "");
    for (int k = 0; k < 9; k++)
        v6 = abnf_cat(abnf_cat(v6, k ? "|(" : "(", forms[k]), ")", "");
    char *v6b = abnf_subst(v6, "LS32", ls32);
    char *v6c = abnf_subst(v6b, "H16", h16);
    char *ipv6 = abnf_cat("(", v6c, ")");
    /* RFC 6874: IPv6addrz = IPv6address "%25" ZoneID ; ZoneID = 1*( unreserved / pct-encoded ) */
    char *ipv6z = abnf_cat(ipv6, "%25([" UNRES "]|" PCT ")+", "");
    /* IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ) */
    const char *ipvf = "[vV][0-9A-Fa-f]+\\.[" UNRES SUB ":]+";
    /* IP-literal = "[" ( IPv6address / IPv6addrz / IPvFuture ) "]" */
    char *t1 = abnf_cat("\\[(", ipv6, "|");
    char *t2 = abnf_cat(t1, ipv6z, "|");
    char *ipl = abnf_cat(t2, ipvf, ")\\]");
    /* reg-name = *( unreserved / pct-encoded / sub-delims ) */
    const char *regname = "([" UNRES SUB "]|" PCT ")*";
    /* host = IP-literal / IPv4address / reg-name  (IPv4address is a
       reg-name too, so the alternation needs only two arms) */
    char *host = abnf_cat("(", ipl, abnf_cat("|", regname, ")"));
    /* authority = [ userinfo "@" ] host [ ":" port ] ; port = *DIGIT */
    char *auth = abnf_cat("((", userinfo, abnf_cat("@)?", host, "(:[0-9]*)?)"));
    /* segment = *pchar ; segment-nz = 1*pchar */
    char *seg = abnf_cat("(", pchar, ")*");
    char *segnz = abnf_cat("(", pchar, ")+");
    char *segnznc = abnf_cat("(", pchar_nc, ")+");
    /* path-abempty = *( "/" segment ) */
    char *abempty = abnf_cat("(/", seg, ")*");
    /* path-absolute = "/" [ segment-nz *( "/" segment ) ] */
    char *absolute = abnf_cat("/(", segnz, abnf_cat(abempty, ")?", ""));
    /* path-rootless = segment-nz *( "/" segment ) */
    char *rootless = abnf_cat(segnz, abempty, "");
    /* path-noscheme = segment-nz-nc *( "/" segment ) */
    char *noscheme = abnf_cat(segnznc, abempty, "");
    /* hier-part = "//" authority path-abempty / path-absolute / path-rootless / path-empty */
    char *hier = abnf_cat("(//", auth, abnf_cat(abempty, abnf_cat("|", absolute, abnf_cat("|", rootless, "|)"))
                                                    , ""));
    /* relative-part = "//" authority path-abempty / path-absolute / path-noscheme / path-empty */
    char *relp = abnf_cat("(//", auth, abnf_cat(abempty, abnf_cat("|", absolute, abnf_cat("|", noscheme, "|)"))
                                                    , ""));
    /* query = *( pchar / "/" / "?" ) ; fragment = *( pchar / "/" / "?" ) */
    char *qf = abnf_cat("([" UNRES SUB ":@/?]|", PCT, ")*");
    char *tail = abnf_cat("(\\?", qf, abnf_cat(")?(#", qf, ")?"));
    /* URI = scheme ":" hier-part [ "?" query ] [ "#" fragment ]
       relative-ref = relative-part [ "?" query ] [ "#" fragment ]
       URI-reference = URI / relative-ref */
    char *uri = abnf_cat(scheme, ":", abnf_cat(hier, tail, ""));
    char *rel = abnf_cat(relp, tail, "");
    char *all = abnf_cat("^((", uri, abnf_cat(")|(", rel, "))$"));
    size_t n = strlen(all) + 1;
    char *res = (char *)malloc(n);
    if (res == NULL)
        abort();
    memcpy(res, all, n);
    while (abnf_npool > 0)
        free(abnf_pool[--abnf_npool]);
    return res;
#undef PCT
#undef UNRES
#undef SUB
}

/* 1 when in[0..len) matches URI-reference (grammar only). */
static inline int ref_abnf_match(const char *in, size_t len)
{
    static regex_t re;
    static int compiled;
    if (!compiled) {
        char *pat = abnf_build();
        int rc = regcomp(&re, pat, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char msg[256];
            regerror(rc, &re, msg, sizeof msg);
            fuzz_fail("regcomp of the ABNF regex failed: %s", msg);
        }
        free(pat);
        compiled = 1;
    }
    if (memchr(in, '\0', len) != NULL)
        return 0; /* NUL is in no rule */
    char *copy = (char *)malloc(len + 1);
    if (copy == NULL)
        abort();
    memcpy(copy, in, len);
    copy[len] = '\0';
    regmatch_t m[1];
    m[0].rm_so = 0;
    m[0].rm_eo = (regoff_t)len;
    int rc = regexec(&re, copy, 1, m, REG_STARTEND);
    free(copy);
    return rc == 0;
}

/*
 * The full strict verdict ("invalid", doc/policy.md) minus too_long:
 * the grammar, plus port <= 65535 and, for a reg-name host, at most 255
 * bytes and labels of at most 63 bytes (raw string). The host/port split
 * of a grammatical authority is unambiguous: userinfo has no "@", a
 * reg-name has no ":", an IP-literal ends at "]".
 */
static inline int ref_abnf_valid(const char *in, size_t len, const urisan_span *authority)
{
    if (!ref_abnf_match(in, len))
        return 0;
    if (authority->off == URISAN_ABSENT)
        return 1;
    const char *a = in + authority->off;
    size_t n = authority->len, hs = 0;
    for (size_t i = n; i > 0; i--)
        if (a[i - 1] == '@') {
            hs = i;
            break;
        }
    size_t he = n, ps = n;
    if (hs < n && a[hs] == '[') {
        const char *rb = (const char *)memchr(a + hs, ']', n - hs);
        he = (size_t)(rb - a) + 1;
        ps = he < n ? he + 1 : n;
    } else {
        for (size_t i = n; i > hs; i--)
            if (a[i - 1] == ':') {
                he = i - 1;
                ps = i;
                break;
            }
        if (he - hs > 255)
            return 0;
        size_t ls = hs;
        for (size_t i = hs; i <= he; i++)
            if (i == he || a[i] == '.') {
                if (i - ls > 63)
                    return 0;
                ls = i + 1;
            }
    }
    unsigned long v = 0;
    for (size_t i = ps; i < n; i++) {
        v = v * 10 + (unsigned long)(a[i] - '0');
        if (v > 65535)
            return 0;
    }
    return 1;
}

#endif
