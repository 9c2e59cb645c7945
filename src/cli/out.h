/*
 * out.h - the command's standard output: one large buffer that output
 * lines are written into in place and that goes out with write(2) in
 * blocks (doc/output.md, "Buffering").
 *
 * A line is begun, written straight into the buffer, and ended. While a
 * line is open the buffer's max is the line's start plus CLI_JSON_MAX, so
 * a line that would grow past it fails (cli_buf.failed) instead of
 * growing; cli_out_rewind() drops what the line wrote, and the caller
 * writes its fallback line instead. No allocation per line: the buffer
 * grows only for a line longer than any before.
 *
 * When the buffer is written:
 *  - once it holds CLI_OUT_BLOCK bytes, at the end of a line;
 *  - after every line when standard output is a terminal;
 *  - before the line reader waits for input that has not arrived yet
 *    (cli_out_idle: an interactive peer such as Squid, or a person at a
 *    terminal, gets each answer before it must type the next line);
 *  - by cli_out_flush() (cli_finish, and before any message on stderr).
 * Bytes written to stdout through stdio (usage, `equivalent`) are flushed
 * before the buffer's, so the order is kept.
 */
#ifndef URISAN_CLI_OUT_H
#define URISAN_CLI_OUT_H

#include <stdbool.h>
#include <stddef.h>

#include "json.h"

#define CLI_OUT_BLOCK ((size_t)256 << 10)

/* The line being written: returns the output buffer to append to. */
cli_buf *cli_out_begin(void);
/* Drop what the open line wrote (and a failure) so it can be written again. */
void cli_out_rewind(void);
/* End the open line with '\n'; false when the line failed (nothing of it
   is kept) or a write failed. */
bool cli_out_end(void);
/* Write everything buffered. false on a write error (kept for cli_out_error). */
bool cli_out_flush(void);
/* Flush when nothing can be read from fd without waiting. */
void cli_out_idle(int fd);
/* errno of the first failed write, 0 when none. */
int cli_out_error(void);
/* Complete lines p[0..n) (each ending '\n'), written as they are: a
   --jobs batch's output (jobs.c); at least CLI_OUT_BLOCK bytes are
   written from p itself, after what is buffered. false on a write error
   or no memory. */
bool cli_out_lines(const char *p, size_t n);
/* This thread's lines go into b (and its messages for standard error,
   cli_fail and cli_note, into err) instead of out; NULL, NULL: back to
   out. For a worker of --jobs: lines are begun, rewound and ended as
   ever, and never written from the thread. */
void cli_out_capture(cli_buf *b, cli_buf *err);
/* The standard error capture of this thread, NULL when none. */
cli_buf *cli_err_capture(void);
/* Forget the buffer's memory and state (the fuzz harness runs commands
   one after another in one process). */
void cli_out_reset(void);

#endif
