/*
 * components.h - writers at a pointer into room the caller reserved,
 * inline: a library name between quotes, a host view's form, and check's
 * components object of a plain input (put_head_run writes it in the
 * line's one reservation). cli_jv_name and cli_jv_result write through
 * them or with the same keys.
 */
#ifndef URISAN_CLI_COMPONENTS_H
#define URISAN_CLI_COMPONENTS_H

#include <stdbool.h>
#include <string.h>

#include "json.h"
#include "urisan.h"

/* null at o: returns its end. */
static inline char *cli_put_null(char *o)
{
    memcpy(o, "null", 4);
    return o + 4;
}

/* true or false at o, in room reserved for 8 bytes: returns its end. */
static inline char *cli_put_bool(char *o, bool v)
{
    memcpy(o, v ? "true\0\0\0" : "false\0\0", 8);
    return o + (v ? 4 : 5);
}

/* s[0..n), its own JSON text, between quotes at o: returns its end. */
static inline char *cli_put_quoted(char *o, const char *s, size_t n)
{
    o[0] = '"';
    memcpy(o + 1, s, n);
    o[n + 1] = '"';
    return o + n + 2;
}

/* A name of the library's (cli_jv_name) at o, in room reserved: the name
   between quotes, or null. */
static inline char *cli_plain_name(char *o, const char *name)
{
    return name == NULL ? cli_put_null(o) : cli_put_quoted(o, name, strlen(name));
}

/* A form of a host view's plain name (cli_jv_host_form) at o, in room
   reserved: between quotes, or null when it is empty and null_empty (all
   but host_unicode). */
static inline char *cli_host_form_at(char *o, const char *s, size_t n, bool null_empty)
{
    return n == 0 && null_empty ? cli_put_null(o) : cli_put_quoted(o, s, n);
}

/* The keys of an object of the library's result ("components"), made
   from its names by cli_result_prepare: ,"name": (the first {"name":),
   each padded to CLI_SUB_KEY_TEXT bytes, one fixed-size copy. */
#define CLI_SUB_KEYS 16
#define CLI_SUB_KEY_TEXT 32
typedef struct {
    const urisan_result_key *sub;
    char text[CLI_SUB_KEYS][CLI_SUB_KEY_TEXT];
    unsigned char len[CLI_SUB_KEYS];
} cli_sub_keys;
/* The keys made for sub (a key's sub table), or NULL. */
const cli_sub_keys *cli_result_sub_keys(const urisan_result_key *sub);

static inline char *cli_put_sub_key(char *o, const cli_sub_keys *k, size_t i)
{
    memcpy(o, k->text[i], CLI_SUB_KEY_TEXT);
    return o + k->len[i];
}

/* One component "KEY":value at o. */
static inline char *cli_plain_span(char *o, const cli_sub_keys *k, size_t i, const char *in,
                                   urisan_span sp)
{
    o = cli_put_sub_key(o, k, i);
    return urisan_span_present(sp) ? cli_put_quoted(o, in + sp.off, sp.len) : cli_put_null(o);
}

/* The components (their keys k, in the library's order: scheme,
   userinfo, host, host_type, port, path, query, fragment) of a plain
   input (json_plain_len: each span is its own JSON text) at o, in room
   reserved for the input's length plus CLI_COMPONENTS_ROOM (the spans do
   not overlap; it covers the keys with the pad of the last one written,
   quotes, "null"s and the host type): returns its end. */
#define CLI_COMPONENTS_ROOM 224
static inline char *cli_jv_components_at(char *o, const cli_sub_keys *k, const char *in,
                                         const urisan_uri *u)
{
    o = cli_plain_span(o, k, 0, in, u->scheme);
    o = cli_plain_span(o, k, 1, in, u->userinfo);
    o = cli_plain_span(o, k, 2, in, u->host);
    o = cli_plain_name(cli_put_sub_key(o, k, 3), urisan_host_type_name(u->host_type));
    o = cli_plain_span(o, k, 4, in, u->port);
    o = cli_plain_span(o, k, 5, in, u->path);
    o = cli_plain_span(o, k, 6, in, u->query);
    o = cli_plain_span(o, k, 7, in, u->fragment);
    *o++ = '}';
    return o;
}

#endif
