/*
 * fields.h - the JSON Lines output of a subcommand as one table of
 * fields (urisan(1), JSON OUTPUT).
 *
 * Each subcommand that writes JSON describes its line once: a table of
 * {key, value writer, value in the fallback line}. The same table gives
 *  - the ordinary line (every field that is not `extra`, in table order,
 *    those that need an option only when it was given);
 *  - `--fields LIST`: the named fields only, in the order given (extra
 *    fields too, e.g. check's "host" outside "components");
 *  - the fallback line written when a line cannot be (longer than
 *    CLI_JSON_MAX, or out of memory): still exactly one line for the
 *    input, each field's `fallback` value instead of its own.
 * New keys are appended to a table (key names are a contract).
 */
#ifndef URISAN_CLI_FIELDS_H
#define URISAN_CLI_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json.h"
#include "urisan.h"

/* Write the JSON value of the field for row (a command's own struct). */
typedef void (*cli_field_put)(cli_buf *b, const void *row);

#define CLI_RUN_KEY 4   /* 64-bit words of a run's key */

struct cli_fieldset;

typedef enum {
    CLI_FB_PUT = 0,   /* the fallback line has the field's own value (put) */
    CLI_FB_TEXT,      /* ... the JSON text fb_text */
    CLI_FB_FN,        /* ... what fb_put writes */
    CLI_FB_OMIT       /* ... not this field */
} cli_field_fb;

/* Tables are written with designated initialisers:
   { .name = "uri", .put = put_uri, .fb = CLI_FB_TEXT, .fb_text = "null" } */
typedef struct {
    const char *name;       /* the key, and the name --fields knows it by */
    cli_field_put put;
    cli_field_fb fb;
    const char *fb_text;    /* CLI_FB_TEXT: e.g. "null", "[\"invalid\"]" */
    cli_field_put fb_put;   /* CLI_FB_FN */
    unsigned when;          /* mode bits that must all be set (0: always) */
    const char *needs;      /* the option that sets them, for the error */
    bool extra;             /* only when --fields names it */
    /* NULL, or whether the key is in this row's line at all (e.g. resolve's
       "error_input" only when something failed); not asked for the
       fallback line, which fb decides alone. */
    bool (*present)(const void *row);
    /* 0, or: this field and the run_len that follow it in the table are
       written from run_key(row) alone (the same key, the same bytes), or
       by run_put alone (no run_key, below).
       When a line has all of them in table order, write_line keeps the
       bytes of the run (keys included) per thread and copies them on the
       next row with the same key (e.g. check's flags and decision: a log
       holds a few dozen distinct ones). No field of a run has present. */
    unsigned run_len;
    void (*run_key)(const void *row, uint64_t key[CLI_RUN_KEY]);
    /* NULL, or the run's fields written in one call, their keys too
       (cli_fields_key_at): the bytes of their keys and puts one after
       another, with less work; false (nothing written) when it does not
       take this row, whose fields are then written one by one. With no
       run_key the run is written by run_put on every line, nothing kept
       (check's uri to host_ip); a debug build (URISAN_CHECK_CACHES)
       checks its bytes against the fields' own puts on every line. */
    bool (*run_put)(cli_buf *b, const void *row, const struct cli_fieldset *fs, size_t i);
    /* NULL, or the writer of the value instead of put, given arg (a
       table made at run time: check's keys of the library's
       description, urisan_result_keys) */
    void (*put_arg)(cli_buf *b, const void *row, const void *arg);
    const void *arg;
} cli_field;

#define CLI_FIELDS_MAX 64
#define CLI_FIELD_KEY_MAX 32   /* ,"name": of a field, written in one copy */

typedef struct cli_fieldset {
    const cli_field *f[CLI_FIELDS_MAX];
    /* ,"name": (the first key's comma becomes the line's '{'); keys of
       names too long for it are written piece by piece (klen 0) */
    char key[CLI_FIELDS_MAX][CLI_FIELD_KEY_MAX];
    unsigned char klen[CLI_FIELDS_MAX];
    unsigned char run[CLI_FIELDS_MAX];   /* f[i]->run_len when the run is whole here, else 0 */
    /* how many fields right after f[i] have its present (all absent with
       it: skipped together) */
    unsigned char same_present[CLI_FIELDS_MAX];
    bool keys_short;   /* every klen != 0: cli_fields_key_at for any key */
    size_t n;
} cli_fieldset;

/*
 * The fields of a line: the default set of table[0..n) under mode when
 * list is NULL, else the comma-separated names of list. A name that is not
 * in the table, is empty, repeats, or needs an option that is not given is
 * a usage error naming it: prints it and returns CLI_EXIT_USAGE (2);
 * returns 0 on success.
 */
int cli_fields_select(const char *cmd, const cli_field *table, size_t n,
                      unsigned mode, const char *list, cli_fieldset *out);

/* The key of field i with its comma, ,"name": (the first key's comma
   becomes the line's '{'): one fixed-size copy when it fits. */
void cli_fields_key_slow(cli_buf *b, const cli_fieldset *fs, size_t i);
static inline void cli_fields_key(cli_buf *b, const cli_fieldset *fs, size_t i)
{
    if (fs->klen[i] != 0 && cli_buf_room(b, CLI_FIELD_KEY_MAX)) {
        memcpy(b->p + b->len, fs->key[i], CLI_FIELD_KEY_MAX);
        b->len += fs->klen[i];
    } else {
        cli_fields_key_slow(b, fs, i);
    }
}

/* The key of field i at o, in room reserved for CLI_FIELD_KEY_MAX bytes
   (fs->keys_short): returns its end. */
static inline char *cli_fields_key_at(char *o, const cli_fieldset *fs, size_t i)
{
    memcpy(o, fs->key[i], CLI_FIELD_KEY_MAX);
    return o + fs->klen[i];
}

/* The runs of the flags and the decision in table[0..n): keys of the
   library's (arg a urisan_result_key, written by put_arg) with no
   presence rule of their own that read nothing but the flags and the
   decision, one after another; each run of two or more is kept by
   run_key. */
void cli_fields_decision_runs(cli_field *table, size_t n,
                              void (*run_key)(const void *row, uint64_t key[CLI_RUN_KEY]));

/* Comma-separated names of table[0..n) (for usage and errors) into b. */
void cli_fields_names(cli_buf *b, const cli_field *table, size_t n);

typedef enum {
    CLI_LINE_OK = 0,        /* the line was written */
    CLI_LINE_FALLBACK,      /* the fallback line was written instead */
    CLI_LINE_FAILED         /* not even that, or a write error */
} cli_line_result;

/* The error value of every fallback line: no_space at offset 0. */
void cli_fb_nospace(cli_buf *b, const void *row);

/* The value of field f of row (put, or put_arg). */
static inline void cli_field_value(cli_buf *b, const cli_field *f, const void *row)
{
    if (f->put_arg != NULL)
        f->put_arg(b, row, f->arg);
    else
        f->put(b, row);
}

/* One output line (out.h) of the selected fields of row. */
cli_line_result cli_fields_line(const cli_fieldset *fs, const void *row);

#endif
