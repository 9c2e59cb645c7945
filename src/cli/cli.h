/*
 * cli.h - internal API of the `urisan` command (src/cli/).
 *
 * A subcommand is `int cmd_NAME(int argc, char **argv)`: argv[0] is the
 * subcommand's name, the return value is the exit status. main.c holds the
 * dispatch table and every usage text. The helpers below keep all
 * subcommands alike: same option syntax, same error lines, same JSON.
 */
#ifndef URISAN_CLI_H
#define URISAN_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "urisan.h"
#ifdef URISAN_HAVE_HOST
#include "urisan_host.h"
#include "urisan_host_private.h" /* the command's own calls (not installed) */
#else
/* urisan_host.h's, without the host layer: what urisan_check gives. */
typedef struct {
    urisan_uri uri;
    urisan_report rep;
    urisan_decision dec;
} urisan_judgement;
typedef struct urisan_host_ctx urisan_host_ctx;
#endif
#include "fields.h"
#include "json.h"
#include "lines.h"
#include "out.h"

/* Exit statuses (urisan(1), EXIT STATUS). */
#define CLI_EXIT_OK    0   /* nothing denied / all inputs handled */
#define CLI_EXIT_FAIL  1   /* something denied, not equivalent, an input failed */
#define CLI_EXIT_USAGE 2   /* usage or I/O error */

/* Bounds of the command's growable buffers (STYLE.md: they carry a max). */
#define CLI_JSON_MAX    ((size_t)64 << 20)   /* one JSON line */
#define CLI_RESULT_MAX  ((size_t)16 << 20)   /* one resolve/normalize result */
#define CLI_FILE_MAX    ((size_t)64 << 20)   /* a policy file, an extract input */

/* Subcommands. cmd_extract and cmd_squid_acl live in cmd_extract.c and
   cmd_squid.c; the build leaves them out (and main says "not built") when
   the files are absent. */
int cmd_check(int argc, char **argv);
int cmd_resolve(int argc, char **argv);
int cmd_normalize(int argc, char **argv);
int cmd_equivalent(int argc, char **argv);
int cmd_extract(int argc, char **argv);
int cmd_squid_acl(int argc, char **argv);
int cmd_serve(int argc, char **argv);   /* cmd_serve.c, with libmicrohttpd */
int cmd_milter(int argc, char **argv);  /* cmd_milter.c, with libmilter */
int cmd_policy(int argc, char **argv);

/* ---- usage (main.c) and messages (messages.c) ---- */

/* Usage of cmd (NULL: the whole command) on fp. */
void cli_usage(FILE *fp, const char *cmd);
/* "urisan: CMD: MESSAGE" then the usage of cmd on stderr; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "urisan: CMD: MESSAGE" on stderr (no usage); returns 2. */
int cli_fail(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Flags a policy may not deny or flag in this build: without the host
   layer nothing sets homograph, invisible_char, host_uts46, so a rule on
   them is refused when loaded (urisan_policy_parse_refuse), never a
   silent no-op. */
#ifdef URISAN_HAVE_HOST
#define CLI_REFUSED_FLAGS ((urisan_flags)0)
#else
#define CLI_REFUSED_FLAGS URISAN_HOST_FLAGS
#endif

/* "urisan: CMD: MESSAGE" on stderr, as it goes (no flush of the output
   first): a warning beside the output lines (extract's mail limits). */
void cli_note(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- options (opts.c) ---- */

typedef struct {
    const char *name;     /* long name with dashes: "--policy" */
    bool has_value;       /* "--policy FILE" or "--policy=FILE" */
    const char *value;    /* out: the value (last one wins); "" for a flag */
    bool seen;            /* out */
} cli_opt;

#define CLI_OPTS_HELP (-1)   /* --help / -h was printed to stdout: exit 0 */

/*
 * A subcommand lists its options as an array indexed by its own enum
 * (designated initialisers), and reads them by that enum, never by a bare
 * position:
 *
 *     enum { OPT_JSON, OPT_POLICY, NOPT };
 *     cli_opt opts[NOPT] = { [OPT_JSON] = { "--json", false, NULL, false },
 *                            [OPT_POLICY] = { "--policy", true, NULL, false } };
 *     ... opts[OPT_JSON].seen ...
 *
 * Helpers shared by several subcommands (the policy loader) look options
 * up by name instead, so each subcommand's enum stays its own.
 */

/*
 * Parse the options of argv[1..argc). Options may appear anywhere; "--"
 * ends them; "-" alone is an operand. The operands are moved, in order, to
 * argv[1..1+*nargs). Returns 0, CLI_OPTS_HELP, or CLI_EXIT_USAGE after
 * printing the usage error.
 */
int cli_getopts(const char *cmd, int argc, char **argv,
                cli_opt *opts, size_t nopts, int *nargs);

/* cli_getopts as a subcommand starts: the number of operands (>= 0) to
   go on (*status 0); -1 when the subcommand is done, *status its exit
   status (0 after --help was printed, or CLI_EXIT_USAGE after the usage
   error). */
int cli_opts(const char *cmd, int argc, char **argv, cli_opt *opts, size_t nopts, int *status);

/* The option called name ("--policy") in opts[0..nopts), NULL when the
   subcommand has none. */
const cli_opt *cli_opt_find(const cli_opt *opts, size_t nopts, const char *name);
/* Its value when it was given, else NULL. */
const char *cli_opt_value(const cli_opt *opts, size_t nopts, const char *name);

/* ---- input (input.c) ---- */

/* Bytes of a stdin line to keep for a URI bounded by lim (NULL: defaults):
   max_uri + 1, so the library still sees the line is too long. */
size_t cli_line_keep(const urisan_limits *lim);

/*
 * One answer per input (urisan(1), INPUT): the operands argv[first..last] when
 * first <= last, otherwise each line of standard input (a line keeps at
 * most `keep` bytes; see cli_lines). `one(ctx, bytes, len, full_len,
 * truncated)` writes the answer and returns false when it could not.
 * Returns CLI_EXIT_OK, or the status of a read or output failure (after
 * printing it).
 */
typedef bool (*cli_input_fn)(void *ctx, const char *in, size_t len, size_t full_len,
                             bool truncated);
int cli_each_input(const char *cmd, char **argv, int first, int last, size_t keep,
                   cli_input_fn one, void *ctx);
/* The same; before each line of standard input, ahead(ctx, p, n) is told
   the bytes after it already read (cli_lines_ahead): a hint, to ask for
   what the next line will need (check: its host's memo entry). */
typedef void (*cli_ahead_fn)(void *ctx, const char *p, size_t n);
int cli_each_input_ahead(const char *cmd, char **argv, int first, int last, size_t keep,
                         cli_input_fn one, cli_ahead_fn ahead, void *ctx);

/* Instead of flushing the output before a read of standard input may
   wait (cli_out_idle), call fn(arg, fd) (--jobs: cli_jobs_idle); NULL:
   back to cli_out_idle. */
void cli_input_set_idle(void (*fn)(void *arg, int fd), void *arg);

/* Read a whole file ("-": stdin) of at most max bytes into a malloc'd
   buffer. Prints "urisan: CMD: PATH: reason" and returns false on error. */
bool cli_read_file(const char *cmd, const char *path, size_t max,
                   char **data, size_t *len);

/* ---- policy (policy_load.c) ---- */

/* The one policy loader of every command with --policy (and --profile):
   the built-in profile named profile (NULL: the default policy), then the
   file at path on top when not NULL. On a mistake prints
   "PATH:LINE:COLUMN: message 'word'" (or "urisan: CMD: ...") to stderr
   and returns NULL. Free with free(). */
urisan_policy *cli_policy_load(const char *cmd, const char *path, const char *profile);
/* The policy file the last cli_policy_load read (NULL: none). */
const char *cli_policy_path(void);
/* One mistake or warning of a policy text on stderr:
   "FILE:LINE:COLUMN: [warning: ]MESSAGE 'WORD'..." (doc/policy.md). */
struct pol_diag_;
void cli_policy_diag(const char *path, const char *text, size_t len, const struct pol_diag_ *d);
/* The policy the options ask for ("--policy FILE", "--profile NAME", looked
   up by name), as cli_policy_load; every subcommand that takes a policy
   gets it here. */
urisan_policy *cli_policy_opts(const char *cmd, const cli_opt *opts, size_t nopts);

/* ---- library results of unknown size (results.c) ---- */

/* Grow a malloc'd result buffer to need bytes, never past max. */
bool cli_grow(char **buf, size_t *cap, size_t need, size_t max);

/* urisan_resolve / urisan_normalize into a malloc'd *buf grown to the
   size they report (at most CLI_RESULT_MAX). *err is always set; a result
   too large for the bound is URISAN_E_NOSPACE. */
urisan_status cli_resolve(const char *base, size_t blen,
                          const char *ref, size_t rlen,
                          const urisan_resolve_opts *opt,
                          char **buf, size_t *cap, size_t *outlen,
                          urisan_flags *flags, urisan_error *err);
urisan_status cli_normalize(const char *in, size_t len,
                            const urisan_limits *lim,
                            char **buf, size_t *cap, size_t *outlen,
                            urisan_error *err);
/* `check --base` the same way: the host layer's urisan_judge_base in
   host's context (opts: URISAN_JUDGE_*), urisan_check_base without the
   host layer; *j is always filled; *outlen is the resolved URI's length
   when it returns URISAN_OK. */
urisan_status cli_check_base(urisan_host_ctx *host, unsigned opts,
                             const char *base, size_t blen,
                             const char *ref, size_t rlen,
                             const urisan_policy *pol,
                             char **buf, size_t *cap, size_t *outlen,
                             urisan_judgement *j, urisan_error *err);

/* ---- output (out.c, out.h) ---- */

/* p[0..n) and a '\n' as one output line; false on a write error. */
bool cli_out_line(const char *p, size_t n);
/* The buffer's bytes as one line; a failed buffer writes nothing and
   returns false (the caller writes a fallback line instead). */
bool cli_out_buf(const cli_buf *b);
/* Flush the output; on error print it and return CLI_EXIT_USAGE, else
   status (messages.c). */
int cli_finish(const char *cmd, int status);

/* ---- library types as JSON values and text (render.c) ---- */

/* null, or {"code","offset","message"} when e is set and not OK. */
void cli_jv_error(cli_buf *b, const urisan_error *e);
/* ["name", ...] in bit order. */
void cli_jv_flags(cli_buf *b, urisan_flags f);
/* Reasons of a decision, as every command lists them: the flags that
   denied (bit order), then the rules that denied, then the flags only
   reported; none for an allowed URI. */
void cli_jv_reasons(cli_buf *b, const urisan_decision *d);
/* A value of the library's (urisan_result_value, urisan_link_row_value)
   as JSON: texts escaped, names, reasons and forms as lists of names. */
void cli_jv_rvalue(cli_buf *b, const urisan_rvalue *v);
/* "denied:A,B;flagged:C" (urisan_decision_format); "-" when none. */
void cli_text_reasons(cli_buf *b, const urisan_decision *d);
/* "A,B,C": the names of f's flags, then of the rules
   (urisan_reasons_format); nothing when none. */
void cli_text_reason_list(cli_buf *b, urisan_flags f, unsigned rules);
/* --explain (explain.c): each reason of d (in the order of
   cli_jv_reasons) with the rule of p that made it, "FILE:LINE" or
   "profile NAME": {"reason":"origin",...}; {} when allowed. The text
   form: reason=origin separated by spaces; nothing when allowed.
   in[0..len): the URI d judged (a deny-host or deny-ip reason names
   the line of the entry that matched it). */
void cli_jv_explain(cli_buf *b, const urisan_decision *d, const urisan_policy *p,
                    const char *in, size_t len);
void cli_text_explain(cli_buf *b, const urisan_decision *d, const urisan_policy *p,
                      const char *in, size_t len);
/* A string (NULL: null) and a boolean. */
void cli_jv_cstr(cli_buf *b, const char *s);
/* A name of the library's (a verdict, host type, flag, rule reason or
   status code; NULL: null): plain, so copied between quotes unescaped. */
void cli_jv_name(cli_buf *b, const char *name);
void cli_jv_bool(cli_buf *b, bool v);
/* The name of a verdict (null for an unknown value). */
void cli_jv_verdict(cli_buf *b, urisan_verdict v);
/* The value of key k of r (urisan_result_value) as JSON: every door's
   reading of a result, written as the command writes it. A key the
   front end writes itself (URISAN_RV_FRONT) is null here. */
typedef struct {
    const urisan_result *r;
    /* is r's input its own JSON text (json_plain_len)? -1: not known
       yet; found by the first value that is a part of it */
    signed char *plain;
} cli_result_row;
void cli_jv_result(cli_buf *b, const cli_result_row *row, const urisan_result_key *k);
/* The keys of the objects of a result, made once before any thread
   writes (cli_jv_result writes them piece by piece without). */
void cli_result_prepare(void);
/* "error: CODE OFFSET MESSAGE" (urisan(1), COMMANDS) appended to b, plus
   " (in the WHICH)" when which is not NULL. */
void cli_text_error(cli_buf *b, const urisan_error *e, const char *which);
/* s[0..n) for a terminal (every text-mode writer; JSON has its own
   escape): printable ASCII and visible UTF-8 as they are; \t \n \r;
   other C0 controls, DEL, C1 controls, bidi controls and marks, zero-width
   and other default-ignorable characters as \u{XXXX} (the code point, at
   least 4 hex digits); a byte that is not UTF-8 as \x{HH}. quoted: '"'
   and '\\' as \" and \\ (a value between quotes). */
void cli_text_escape(cli_buf *b, const char *s, size_t n, bool quoted);

#endif
