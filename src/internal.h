/*
 * internal.h - shared by the library's translation units, never installed.
 */
#ifndef URISAN_INTERNAL_H
#define URISAN_INTERNAL_H

#include "urisan.h"

#include <stdbool.h>

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
};

extern const uint32_t urisan_cc[256];

static inline bool cc_is(unsigned char c, uint32_t cls) { return (urisan_cc[c] & cls) != 0; }

/* Value of a hex digit (caller checked CC_HEX). */
static inline unsigned hexval(unsigned char c)
{
    return (c <= '9') ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
}

/* ASCII lower-case without <ctype.h>. */
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

/* Case-insensitive ASCII compare of a span with a literal. */
bool urisan_ieq(const char *a, size_t alen, const char *lit);

/* Effective limits: defaults when NULL, each clamped to the hard ceiling. */
void urisan_limits_effective(const urisan_limits *in, urisan_limits *out);

/* ---- hosts (host.c) ---- */
/* Strict RFC 3986 IPv6address in s[0..n); fills out[16]. On failure
   returns false and sets *errpos to the offending offset within s. */
bool urisan_parse_ipv6(const char *s, size_t n, uint8_t out[16], size_t *errpos);
/* Strict dotted-decimal IPv4address (RFC 3986 3.2.2) in s[0..n). */
bool urisan_parse_ipv4_strict(const char *s, size_t n, uint8_t out[4]);

#endif
