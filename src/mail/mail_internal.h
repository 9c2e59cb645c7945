/*
 * mail_internal.h - the pieces of liburisan-mail (include/urisan_mail.h)
 * below its public API: the GMime walk (mime.c), the link-text judgement
 * (linktext.c) and the per-part scans (scan.c). Not installed; the fuzz
 * harness (fuzz/mail.c) and the tests use it through the static library.
 */
#ifndef URISAN_MAIL_INTERNAL_H
#define URISAN_MAIL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "urisan_mail.h"

/* One text part of a message, decoded as the reader's client shows it:
   Content-Transfer-Encoding undone (quoted-printable soft line breaks
   joined, base64 decoded) and the charset converted to UTF-8 (bytes of
   an unknown charset are passed on as they are). */
typedef struct {
    const char *path;   /* "1", "2.1": IMAP-style part number; "raw";
                           "HEADER", "2.HEADER" for a header field */
    bool html;          /* text/html (else any other text/ type) */
    const char *text;
    size_t len;
    const char *header; /* a header field's name ("Subject"): text is
                           its value, RFC 2047 decoded; NULL: a part */
    unsigned kinds;     /* a part: what it is read as (attach.h
                           MAIL_KIND_BIT set; mail_sniff) */
    const char *attachment; /* a part's file name, NULL: none */
    bool conflict;      /* its head has two Content-Type, Content-Transfer-
                           Encoding or Content-Disposition values: it is
                           handed once per reading (GMime's first) */
    const char *base;   /* the base URL its headers give (Content-Base,
                           Content-Location; the part's, else the
                           message's; it ends at a '"' or white space),
                           NULL: none */
} mail_part;

/* false: stop the walk. */
typedef bool (*mail_part_fn)(void *ctx, const mail_part *p);

typedef enum {
    MAIL_WALK_OK,
    MAIL_WALK_NOT_MESSAGE,  /* GMime constructed no message */
    MAIL_WALK_STOPPED,      /* fn returned false */
    MAIL_WALK_LIMIT         /* a limit was reached (*hit): the raw
                               message was passed to fn as part "raw" */
} mail_walk_status;

typedef struct {
    int limit;              /* urisan_mail_limit, -1: none */
    size_t value, max;
} mail_limit_hit;

/* Record limit l in *hit unless one is there already: the first limit
   reached is the one reported (prescan.c). */
void mail_set_hit(mail_limit_hit *hit, urisan_mail_limit l, size_t value, size_t max);

/* The limits checked before GMime parses anything (prescan.c): the first
   one reached is set in *hit (hit->limit must be -1 on entry). Linear. */
void mail_pre_scan(const char *d, size_t n, const urisan_mail_limits *lim, mail_limit_hit *hit);

/*
 * Parse the message data[0..len) and call fn for each text part, in
 * order, through nested multiparts and attached messages.
 */
mail_walk_status mail_walk(const char *data, size_t len, const urisan_mail_limits *lim,
                           mail_part_fn fn, void *ctx, mail_limit_hit *hit);

/* An HTML attribute's URL s[0..n) as the WHATWG URL parser reads it
   before parsing (attr.c): C0 controls and spaces stripped at both ends,
   tabs and newlines removed, the parser's percent-encode sets applied
   after the authority. NULL when that changes nothing (or no memory);
   else the text (malloc'd, *out_len bytes), *split_authority when a tab
   or newline was removed before the path (a host split over lines). */
char *mail_attr_url(const char *s, size_t n, size_t *out_len, bool *split_authority);

/* A UNC path in text (unc.c): "\\host\share\..." at t[off..off+len),
   its host at t[host..host+host_len). */
typedef struct {
    size_t off, len, host, host_len;
} mail_unc;

/* The next UNC path of t[*pos..len) (a path starts at the text's start or
   after white space or an opening delimiter; sentence punctuation at its
   end is left out); *pos moves past it. false: none. Linear over calls. */
bool mail_unc_next(const char *t, size_t len, size_t *pos, mail_unc *u);

/* The file: URI a Windows client opens for u ("file://host/share/x.txt")
   into out[0..cap), NUL-terminated; its length, 0 when cap is too small
   (cap >= u->len + 8 always fits). */
size_t mail_unc_uri(const char *t, const mail_unc *u, char *out, size_t cap);

/* s[0..n) starts with a scheme (RFC 3986 3.1) and ':' (scan.c). */
bool mail_has_scheme(const char *s, size_t n);

/* The Public Suffix List loaded by urisan_mail_init (never NULL after it
   unless libpsl has no list at all). */
struct psl_ctx_st;
const struct psl_ctx_st *mail_psl(void);

#endif
