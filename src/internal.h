/*
 * internal.h - shared by the library's translation units, never installed.
 */
#ifndef URISAN_INTERNAL_H
#define URISAN_INTERNAL_H

#include "urisan.h"

#include <stdbool.h>
#include <string.h>

/* ---- character classes: the one 256-entry table (chartab.c) ---- */
enum {
    CC_ALPHA   = 1u << 0,  /* A-Z a-z */
    CC_DIGIT   = 1u << 1,  /* 0-9 */
    CC_HEX     = 1u << 2,  /* 0-9 A-F a-f */
    CC_UNRES   = 1u << 3,  /* unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~" */
    CC_SUB     = 1u << 4,  /* sub-delims = "!" "$" "&" "'" "(" ")" "*" "+" "," ";" "=" */
    CC_SCHEME  = 1u << 5,  /* ALPHA / DIGIT / "+" / "-" / "." (after the first) */
    CC_USER    = 1u << 6,  /* userinfo chars: unreserved / sub-delims / ":" */
    CC_REG     = 1u << 7,  /* reg-name chars: unreserved / sub-delims */
    CC_PCHAR   = 1u << 8,  /* unreserved / sub-delims / ":" / "@" */
    CC_PATH    = 1u << 9,  /* pchar / "/" */
    CC_QUERY   = 1u << 10, /* pchar / "/" / "?"  (query and fragment) */
    CC_CTL     = 1u << 11, /* 0x00-0x1F, 0x7F */
    CC_WS      = 1u << 12, /* SP TAB LF VT FF CR */
    CC_HIGH    = 1u << 13, /* >= 0x80 */
    CC_SCHEND  = 1u << 14, /* ":" "/" "?" "#": ends a scheme candidate (App. B) */
    CC_AUTHEND = 1u << 15, /* "/" "?" "#": ends the authority (App. B) */
    CC_PATHEND = 1u << 16, /* "?" "#": ends the path (App. B) */
    CC_TABNL   = 1u << 17, /* TAB LF CR: removed by browsers anywhere */
    CC_AUTHSTOP = 1u << 18, /* "@" ":" "/" "?" "#": the authority scan stops */
};

extern const uint32_t urisan_cc[256];

static inline bool cc_is(unsigned char c, uint32_t cls) { return (urisan_cc[c] & cls) != 0; }

/* Value of a hex digit (caller checked CC_HEX). */
static inline unsigned hexval(unsigned char c)
{
    return (c <= '9') ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
}

/* ASCII lower-case without <ctype.h>. */
/* Every writer's last step (urisan.h "Functions that write text"): a NUL
   after the n bytes written when buf has room for it; *needed stays n. */
static inline void urisan_nul_after(char *buf, size_t cap, size_t n)
{
    if (buf != NULL && n < cap)
        buf[n] = '\0';
}

static inline unsigned char lower_ascii(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c | 0x20) : c;
}

/* 1 when in[i..i+2] is a valid escape "%" HEXDIG HEXDIG (i < len checked). */
static inline bool is_escape_at(const char *in, size_t len, size_t i)
{
    return i + 2 < len && in[i] == '%' && cc_is((unsigned char)in[i + 1], CC_HEX) &&
           cc_is((unsigned char)in[i + 2], CC_HEX);
}

/* Could the "%" at in[i] (i < len) start a nested URL once decoded once
   or twice (nested.c)? An escape that decodes to ":", "/", "\\" or "%"
   (%3a %2f %5c %25), or to a C0 control (%00-%0f: the URL parser strips
   them before a URL and removes TAB LF CR inside: "/%09/h" is "//h"), or
   a "%" that is no escape (the second decoding may make one: "%%32%66"). The one rule of the analysis' cheap look
   (analyze.c nested_maybe) and of the parse's summary (SCAN_SUM_NEST). */
static inline bool nest_escape_at(const char *in, size_t len, size_t i)
{
    if (!is_escape_at(in, len, i))
        return true;
    char h = in[i + 1], l = (char)(in[i + 2] | 0x20);
    return (h == '3' && l == 'a') || (h == '2' && (l == 'f' || l == '5')) ||
           (h == '5' && l == 'c') || h == '0';
}

/* limits.c: the limits a parse under policy p takes (NULL: the
   defaults, without the clamping pass); p may be NULL. */
const urisan_limits *urisan_policy_parse_limits(const urisan_policy *p);

/* Case-insensitive ASCII compare of a span with a literal. */
bool urisan_ieq(const char *a, size_t alen, const char *lit);

/* mailto.c: the domain of the next address with an "@" of a mailto:
   URI's path p[0..n) (RFC 6068 "to": addresses "," apart; a domain
   follows its address's last "@"), from *pos (0: the first); false when
   none is left. p[*off..+*dlen) is the domain; *pos moves past it. */
bool urisan_mailto_next(const char *p, size_t n, size_t *pos, size_t *off, size_t *dlen);

/* Inlined whatever the compiler's size estimate (hot paths whose code
   layout matters: callgrind counts). */
#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* ---- limits (limits.c): urisan(1), INPUT and POLICY: limit ---- */
#define URISAN_DNS_LABEL 63  /* a DNS label, bytes (RFC 1034 3.1) */
#define URISAN_DNS_NAME 255  /* a DNS name, bytes (RFC 1034 3.1) */
/* The default bounds, the one place they are written: urisan_limits_default,
   urisan_policy_limits and the parser's fast path all read this object. */
extern const urisan_limits urisan_default_limits;
#define URISAN_LIMITS_DEFAULT { .max_uri = 8192, .max_scheme = 64, \
    .max_userinfo = 1024, .max_host = URISAN_DNS_NAME,             \
    .max_label = URISAN_DNS_LABEL, .max_segments = 1024 }

/* Effective limits: defaults when NULL, each clamped to the hard ceiling. */
void urisan_limits_effective(const urisan_limits *in, urisan_limits *out);

/* ---- errors: the one way an urisan_error is filled ---- */
/* *err = { code, off, input } when err != NULL; returns code, so a failing
   path reads `return urisan_fail(err, URISAN_E_..., off);`. input: which input the
   offset is in (0: the first URI, 1: the second; urisan_error.input). */
static inline urisan_status urisan_fail_in(urisan_error *err, urisan_status code, size_t off,
                                    unsigned input)
{
    if (err) {
        err->code = code;
        err->offset = off;
        err->input = input;
    }
    return code;
}

static inline urisan_status urisan_fail(urisan_error *err, urisan_status code, size_t off)
{
    return urisan_fail_in(err, code, off, 0);
}

/* ---- components ---- */
/* The state of a urisan_uri before parsing: every component absent, no
   host, no port, no error. segments and valid are the parse's result and
   are set where it ends. */
static ALWAYS_INLINE void urisan_uri_reset(urisan_uri *u)
{
    const urisan_span none = {URISAN_ABSENT, 0};
    u->scheme = u->userinfo = u->host = u->port = none;
    u->path = u->query = u->fragment = u->zone = none;
    u->host_type = URISAN_HOST_NONE;
    memset(u->ip, 0, sizeof u->ip);
    u->port_value = URISAN_NO_PORT;
    (void)urisan_fail(&u->error, URISAN_OK, 0);
}

/* port = *DIGIT (RFC 3986 3.2.3): the value of s[0..n), or
   URISAN_PORT_NOT_DIGITS when a byte is not a digit. Above 65535 the value
   stops growing (a long run cannot wrap): any result > 65535 is no port.
*/
#define URISAN_PORT_NOT_DIGITS 0xFFFFFFFFu
static ALWAYS_INLINE uint32_t urisan_port_number(const char *s, size_t n)
{
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t d = (uint32_t)(unsigned char)s[i] - '0';
        if (d > 9)
            return URISAN_PORT_NOT_DIGITS;
        if (v <= 65535)
            v = v * 10 + d;
    }
    return v;
}

/* ---- parse -> analyse hand-over (urisan_check) ---- */
/* What the parse fast path (parse_fast.h) saw of in[0..len), handed from
   urisan_parse_sum to urisan_analyze_sum of the same in/len inside the
   library (urisan_check), so the analysis need not read every byte again.
   0: no summary. With SCAN_SUM_PLAIN every byte is unreserved, a
   sub-delim, ":" "@" "/" "?" "#" or "%" (no control, space, DEL, non-ASCII
   or "\\"). urisan_parse and urisan_analyze called on their own pass no
   summary: the analysis' prefilter makes its own pass (analyze.c). */
#define SCAN_SUM_PLAIN     1u /* the fast path parsed the input */
#define SCAN_SUM_PCT       2u /* some "%" */
#define SCAN_SUM_SLASH_DOT 4u /* some "/" of the path is followed by "." */
#define SCAN_SUM_NEST      8u /* the query or fragment holds a ":", a "//" or
                                 an escape nest_escape_at accepts: where a
                                 nested URL may start (nested.c) */

/* urisan_parse that also gives the summary (*sum; 0 when the full parser
   ran), and urisan_analyze that takes it (sum 0: none). Only for one
   in/len parsed and analysed in the same call (urisan_check): with
   SCAN_SUM_PLAIN the analysis takes the parse's spans as they are,
   without checking them against in/len again. */
urisan_status urisan_parse_sum(const char *in, size_t len, const urisan_limits *lim,
                               urisan_uri *u, urisan_error *err, unsigned *sum);
urisan_status urisan_analyze_sum(const char *in, size_t len, const urisan_uri *uri,
                                 const urisan_policy *pol, urisan_report *out, unsigned sum);

/* urisan_check without its decision (policy.c): uri and rep as it fills
   them (pol NULL or not initialised: the defaults); urisan_check_base
   takes the facts of the reference and of where it leads this way and
   decides once. */
urisan_status urisan_check_facts(const char *in, size_t len, const urisan_policy *pol,
                                 urisan_uri *uri, urisan_report *rep);

/* ---- hosts (host.c) ---- */
/* Strict RFC 3986 IPv6address in s[0..n); fills out[16]. On failure
   returns false and sets *errpos to the offending offset within s. */
bool urisan_parse_ipv6(const char *s, size_t n, uint8_t out[16], size_t *errpos);
/* Strict dotted-decimal IPv4address (RFC 3986 3.2.2) in s[0..n). */
bool urisan_parse_ipv4_strict(const char *s, size_t n, uint8_t out[4]);

/* ---- dot segments (dots.c): one linear RFC 3986 5.2.4 pass ---- */
/* Mode: what happens to ".." that has nothing left to pop. */
#define URISAN_DOTS_RFC     0u   /* 5.2.4 as written: dropped ("clamp") */
#define URISAN_DOTS_KEEP    1u   /* RFC 2396 5.2 step 6g: kept in front */
#define URISAN_DOTS_RELREF  2u   /* relative-path reference (4.2): kept,
                                    "./" guards a first segment with ':' */
#define URISAN_DOTS_MODE    3u
/* Options, or'ed into the mode. */
#define URISAN_DOTS_PCT2E   4u   /* "%2e"/"%2E" spells a dot (6.2.2.2) */
#define URISAN_DOTS_NORMESC 8u   /* write escapes in normal form (6.2.2.1-2) */
#define URISAN_DOTS_NOAUTH 16u   /* no authority: "//x" is written "/.//x" */

typedef struct {
    size_t len;         /* bytes of the result */
    size_t above;       /* ".." segments that had nothing to pop */
    size_t first_above; /* index (in a ++ b) of the first of them */
    bool dots;          /* a complete "." or ".." segment was seen */
    bool pct_dot;       /* one of them spelled with %2e (PCT2E only) */
} urisan_dots_info;

/* remove_dot_segments over the path a[0..alen) ++ b[0..blen) (the 5.2.3
   merge without copying). Writes out[0..len) only when out != NULL and
   len <= cap; info->len is always set. Linear time, no recursion. */
void urisan_remove_dots(const char *a, size_t alen, const char *b, size_t blen,
                        unsigned mode, char *out, size_t cap,
                        urisan_dots_info *info);
/* The pre-check urisan_remove_dots starts with: true when a ++ b has no
   place where a dot segment could start. Then urisan_remove_dots gives
   exactly what urisan_dots_copy does (the path copied, with the mode's
   guard prefix; info->len set, the other fields zero), and with
   URISAN_DOTS_PCT2E it reports no dot either. */
bool urisan_dots_none(const char *a, size_t alen, const char *b, size_t blen);
void urisan_dots_copy(const char *a, size_t alen, const char *b, size_t blen,
                      unsigned mode, char *out, size_t cap, urisan_dots_info *info);
/* Escape-normal form of in[0..n) (6.2.2.1, 6.2.2.2): upper-case hex,
   escaped unreserved decoded; with lower != 0 ASCII letters are
   lower-cased (reg-name). Returns the length; writes when out != NULL. */
size_t urisan_norm_escapes(const char *in, size_t n, int lower, char *out);

/* ---- resolve.c / normalize.c: the components they computed ---- */
typedef struct {
    urisan_span scheme, authority, path, query, fragment; /* into buf */
} urisan_parts;

/* urisan_resolve / urisan_normalize that also report, when parts !=
   NULL and the result was written, where each component lies in buf (so
   tests can check that the output re-parses to exactly these). */
urisan_status urisan_resolve_ex(const char *base, size_t blen,
                                const char *ref, size_t rlen,
                                const urisan_resolve_opts *opt,
                                char *buf, size_t cap, size_t *needed,
                                urisan_flags *flags, urisan_error *err,
                                urisan_parts *parts);
urisan_status urisan_normalize_ex(const char *in, size_t len,
                                  const urisan_limits *lim,
                                  char *buf, size_t cap, size_t *needed,
                                  urisan_error *err, urisan_parts *parts);

#endif
