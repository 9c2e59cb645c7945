/*
 * json.h - a small JSON Lines writer for the urisan command.
 *
 * urisan(1), JSON OUTPUT: every JSON string we write is valid UTF-8,
 * whatever the bytes we are given. The rules, applied byte by byte to the
 * input:
 *
 *  - a well-formed UTF-8 sequence (RFC 3629: shortest form, no surrogates,
 *    at most U+10FFFF) is copied as is, except the C1 controls U+0080 to
 *    U+009F and U+2028/U+2029, which are written as \uXXXX;
 *  - a control byte (0x00-0x1F, 0x7F) is written as \u00XX (lower-case hex;
 *    no short forms such as \n, so a reader needs only one rule);
 *  - `"` and `\` are written as \" and \\;
 *  - a byte that is not part of a well-formed UTF-8 sequence is written as
 *    \u00XX of its value (0xFF -> \u00ff), and decoding resumes at the next
 *    byte.
 *
 * The last rule is lossy by design: a JSON reader sees U+00FF for both the
 * raw byte 0xFF and the valid sequence C3 BF. The output is for reading
 * and matching, not for recovering the exact input bytes.
 *
 * Growable buffers carry a max (STYLE.md: "Growable buffers (CLI only)
 * carry a max"). When an append would pass it, the buffer is marked failed
 * and stays failed until cli_buf_clear(); the caller checks once at the end.
 */
#ifndef URISAN_CLI_JSON_H
#define URISAN_CLI_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    char *p;        /* NOT NUL-terminated */
    size_t len;
    size_t cap;
    size_t max;     /* len never exceeds max */
    bool failed;    /* an append hit max or malloc failed */
    /* where an append without a call must end: the lesser of cap and
       max, and len while failed (so len <= lim always). Kept by the
       functions below; the fields above are read, never set, elsewhere. */
    size_t lim;
} cli_buf;

void cli_buf_init(cli_buf *b, size_t max);
void cli_buf_free(cli_buf *b);
/* Empty the buffer and forget a failure; keeps the memory. */
void cli_buf_clear(cli_buf *b);
/* Room for n more bytes; false (and failed set) when len + n > max. */
bool cli_buf_reserve(cli_buf *b, size_t n);
/* Mark b failed (a line too large, a misuse): appends fail until cleared. */
void cli_buf_fail(cli_buf *b);
/* b->lim from the fields above (json.c and the two below). */
static inline void cli_buf_set_lim(cli_buf *b)
{
    b->lim = b->failed ? b->len : b->cap < b->max ? b->cap : b->max;
}
/* Keep only b->p[0..len) (len <= b->len) and forget a failure. */
static inline void cli_buf_rewind(cli_buf *b, size_t len)
{
    b->len = len;
    b->failed = false;
    cli_buf_set_lim(b);
}
/* A new max (>= len). */
static inline void cli_buf_set_max(cli_buf *b, size_t max)
{
    b->max = max;
    cli_buf_set_lim(b);
}
/* Remove the first n (<= len) bytes. */
void cli_buf_drop(cli_buf *b, size_t n);

/* true when n > 0 more bytes fit in the memory we hold and under max, so
   an append needs no call (the output path appends a few bytes at a
   time): one compare against lim. */
static inline bool cli_buf_room(const cli_buf *b, size_t n)
{
    return n <= b->lim - b->len;
}

static inline bool cli_buf_add(cli_buf *b, const void *s, size_t n)
{
    if (n == 0)
        return !b->failed;
    if (!cli_buf_room(b, n) && !cli_buf_reserve(b, n))
        return false;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    return true;
}

static inline bool cli_buf_addc(cli_buf *b, char c)
{
    if (!cli_buf_room(b, 1) && !cli_buf_reserve(b, 1))
        return false;
    b->p[b->len++] = c;
    return true;
}

/* A NUL-terminated string (trusted, e.g. a literal). */
static inline bool cli_buf_adds(cli_buf *b, const char *s)
{
    return cli_buf_add(b, s, strlen(s));
}

/* A string literal, its length known at compile time. */
#define cli_buf_lit(b, lit) cli_buf_add((b), "" lit, sizeof(lit) - 1)

/* Decimal text of v. */
bool cli_buf_addu(cli_buf *b, uint64_t v);
/* The decimal text of v at o, in room reserved for 20 bytes: returns its
   end. */
char *cli_put_u(char *o, uint64_t v);

/* Append s[0..n) escaped by the rules above, without the quotes. */
bool json_escape(cli_buf *b, const char *s, size_t n);
/* The same between double quotes: a JSON string value. */
bool json_quote(cli_buf *b, const char *s, size_t n);
/* How many bytes at the start of s[0..n) the escape copies as they are
   (printable ASCII other than '"' and '\\'). When that is all n, every
   part of s is its own escaped form: json_quote_plain() writes it. */
size_t json_plain_len(const char *s, size_t n);
/* json_quote of s[0..n) that json_plain_len() found plain: a copy. */
bool json_quote_plain(cli_buf *b, const char *s, size_t n);
/* s[0..n) copied to o, in room reserved for n bytes, when it is plain
   (json_plain_len(s, n) == n): true; else false, and o[0..n) undefined. */
bool json_copy_plain(char *o, const char *s, size_t n);
#define JSON_MAX_DEPTH 16

/*
 * Structural writer: places commas and colons, so callers only say what
 * comes next. Misuse (a value where a key is due, too deep, unbalanced
 * close) marks the buffer failed rather than writing bad JSON.
 */
typedef struct {
    cli_buf *b;
    unsigned depth;
    bool in_obj[JSON_MAX_DEPTH + 1];   /* level is an object (else array) */
    bool first[JSON_MAX_DEPTH + 1];    /* nothing written at this level yet */
    bool after_key;                    /* a key was written, value due */
} json_w;

/* Start a new document in b (b is cleared). */
void json_begin(json_w *w, cli_buf *b);
/* true when the document is complete and nothing failed. */
bool json_ok(const json_w *w);

void json_obj_open(json_w *w);
void json_obj_close(json_w *w);
void json_arr_open(json_w *w);
void json_arr_close(json_w *w);
void json_key(json_w *w, const char *key);

void json_str(json_w *w, const char *s, size_t n);   /* any bytes */
void json_cstr(json_w *w, const char *s);            /* NULL -> null */
void json_null(json_w *w);
void json_bool(json_w *w, bool v);
void json_uint(json_w *w, uint64_t v);

/* key + value in one call. */
void json_kstr(json_w *w, const char *key, const char *s, size_t n);
void json_kcstr(json_w *w, const char *key, const char *s);
void json_knull(json_w *w, const char *key);
void json_kbool(json_w *w, const char *key, bool v);
void json_kuint(json_w *w, const char *key, uint64_t v);

#endif
