/*
 * logformat.h - `urisan check --format squid|zeek|combined|field:N`: the
 * URI of each line of a web log (doc/logs.md). Plain or gzip input
 * (zlib, detected by content), files or standard input.
 */
#ifndef URISAN_CLI_LOGFORMAT_H
#define URISAN_CLI_LOGFORMAT_H

#include <stdbool.h>
#include <stddef.h>

#include "json.h"
#include "urisan.h"

/* Bytes a log line may have around its URI: lines are kept up to the
   URI bound plus this; a longer line is reported truncated and its URI,
   when cut, is judged too_long (or the line bad), never shortened. */
#define CLI_LOG_EXTRA ((size_t)64 << 10)

typedef enum { LOG_SQUID, LOG_ZEEK, LOG_COMBINED, LOG_FIELD } cli_logkind;

typedef struct {
    cli_logkind kind;
    unsigned field;        /* LOG_FIELD: 1-based, white-space separated */
    /* combined: an origin-form URI ("/path") is judged as SCHEME://HOST/path
       - HOST from --host, else a vhost_combined line's first field
       ("%v:%p"); SCHEME from --scheme, else https for port 443, else http */
    const char *host;      /* --host NAME; NULL: none */
    const char *scheme;    /* --scheme NAME; NULL: by the port */
} cli_logfmt;

/* "squid", "zeek", "combined", "field:N" (N 1..1000000). false: unknown. */
bool cli_logfmt_parse(const char *spec, cli_logfmt *out);

/* One log line and the URI found in it. */
typedef struct {
    const char *file;      /* "-" for standard input */
    size_t lineno;         /* 1-based, per file */
    const char *line;      /* the kept bytes of the line */
    size_t len, full_len;
    bool truncated;        /* the line was longer than the kept prefix */
    const char *uri;       /* NULL: no URI in this line (why says why) */
    size_t uri_len;
    bool uri_cut;          /* the URI reaches the cut of a truncated line */
    const char *why;       /* static text for a line without a URI */
} cli_logline;

/* Each line of each file (none, or "-": standard input), in order; Zeek
   '#' header lines set up the columns and are not handed out. fn returns
   false on an output failure. Returns CLI_EXIT_OK or the status of a read
   failure (after printing it: "urisan: CMD: FILE: reason"). */
typedef bool (*cli_log_fn)(void *ctx, const cli_logline *ln);
int cli_log_each(const char *cmd, const cli_logfmt *fmt, char **files, int first, int last,
                 size_t keep, cli_log_fn fn, void *ctx);

/* The line of a log line without a URI: a deny, never a gap. JSON: the
   keys of `check --json` (uri and components null, error code
   "bad_log_line" with the reason) plus line and lineno; text:
   "deny denied:invalid (REASON: LINE)"; tsv: "deny\tdenied:invalid\tLINE". */
void cli_log_bad_line(cli_buf *b, const cli_logline *ln, bool json, bool tsv);
/* The log keys appended to a check --json object: "line", "lineno". */
void cli_log_json_keys(json_w *w, const cli_logline *ln);
/* --tsv: "VERDICT\tREASONS\tLINE" (reasons as the text output writes
   them, the line byte for byte). */
void cli_log_tsv(cli_buf *b, const urisan_decision *d, const cli_logline *ln);

#endif
