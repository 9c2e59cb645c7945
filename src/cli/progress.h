/*
 * progress.h - `--progress` of check and extract: lines read, bytes read
 * and lines per second on standard error, once a second (doc/output.md).
 * On by default only when standard error is a terminal. Counted where
 * the input is read (one thread), so it costs nothing when off.
 */
#ifndef URISAN_CLI_PROGRESS_H
#define URISAN_CLI_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

/* on: 1 (--progress), 0 (--no-progress), -1 (neither: when standard
   error is a terminal). */
void cli_progress_start(const char *cmd, int on);
/* n bytes p[0..n) were read: count them and their line feeds. */
void cli_progress_bytes(const char *p, size_t n);
/* The last figures and, on a terminal, the end of the line. */
void cli_progress_end(void);

/* The option pair of a command's table: -1, 0 or 1 as above. */
int cli_progress_mode(bool progress_seen, bool no_progress_seen);

#endif
