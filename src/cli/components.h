/*
 * components.h - the writers of render.c that write at a pointer into
 * room the caller reserved, inline: a library name between quotes, and
 * check's components object of a plain input (put_head_run writes it in
 * the line's one reservation).
 */
#ifndef URISAN_CLI_COMPONENTS_H
#define URISAN_CLI_COMPONENTS_H

#include <string.h>

#include "json.h"
#include "urisan.h"

/* A name of the library's (cli_jv_name) at o, in room reserved: the name
   between quotes, or null. */
static inline char *cli_plain_name(char *o, const char *name)
{
    if (name == NULL) {
        memcpy(o, "null", 4);
        return o + 4;
    }
    size_t n = strlen(name);
    *o++ = '"';
    cli_copy(o, name, n);
    o += n;
    *o++ = '"';
    return o;
}

/* A component's key, padded to 16 bytes so that it is one fixed-size
   copy (the room reserved covers the pad). */
typedef struct {
    char text[16];
    unsigned char len;
} comp_key;
#define COMP_KEY(name, lit) static const comp_key name = { "" lit, sizeof(lit) - 1 }
COMP_KEY(k_scheme, "{\"scheme\":");
COMP_KEY(k_userinfo, ",\"userinfo\":");
COMP_KEY(k_host, ",\"host\":");
COMP_KEY(k_host_type, ",\"host_type\":");
COMP_KEY(k_port, ",\"port\":");
COMP_KEY(k_path, ",\"path\":");
COMP_KEY(k_query, ",\"query\":");
COMP_KEY(k_fragment, ",\"fragment\":");
#undef COMP_KEY

/* One component "KEY":value at o, for cli_jv_components' plain path. */
static inline __attribute__((always_inline)) char *cli_plain_span(char *o, const comp_key *k,
                                                                  const char *in, urisan_span sp)
{
    memcpy(o, k->text, sizeof k->text);
    o += k->len;
    if (!urisan_span_present(sp)) {
        memcpy(o, "null", 4);
        return o + 4;
    }
    *o++ = '"';
    cli_copy(o, in + sp.off, sp.len);
    o += sp.len;
    *o++ = '"';
    return o;
}

/* cli_jv_components of a plain input (json_plain_len: each span is its
   own JSON text) at o, in room reserved for the input's length plus
   CLI_COMPONENTS_ROOM (the spans do not overlap; it covers the keys, 80
   bytes, and the pad of the last one written, quotes, "null"s and the
   host type): returns its end. */
#define CLI_COMPONENTS_ROOM 192
static inline char *cli_jv_components_at(char *o, const char *in, const urisan_uri *u)
{
    o = cli_plain_span(o, &k_scheme, in, u->scheme);
    o = cli_plain_span(o, &k_userinfo, in, u->userinfo);
    o = cli_plain_span(o, &k_host, in, u->host);
    memcpy(o, k_host_type.text, sizeof k_host_type.text);
    o = cli_plain_name(o + k_host_type.len, urisan_host_type_name(u->host_type));
    o = cli_plain_span(o, &k_port, in, u->port);
    o = cli_plain_span(o, &k_path, in, u->path);
    o = cli_plain_span(o, &k_query, in, u->query);
    o = cli_plain_span(o, &k_fragment, in, u->fragment);
    *o++ = '}';
    return o;
}

#endif
