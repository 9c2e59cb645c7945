/*
 * lines.h - the command's line reader (urisan(1), INPUT).
 *
 * One line per input line, whatever the bytes: NUL and bytes >= 0x80 are
 * kept, a trailing CR of a CRLF ending is stripped (a lone CR elsewhere,
 * or at the very end of input without LF, is data), the last line counts
 * even without LF, and an empty input has no lines at all.
 *
 * A line longer than `keep` bytes is not an error and never desynchronises
 * the reader: the first `keep` bytes are kept, the rest of the line is
 * read and dropped, and full_len tells how long it really was. Memory is
 * bounded by keep plus one read chunk.
 *
 * It reads the file descriptor with read(2), never stdio, so a line is
 * handed out as soon as its LF arrives: an interactive peer (the Squid
 * external ACL protocol) that writes one line and waits is answered.
 */
#ifndef URISAN_CLI_LINES_H
#define URISAN_CLI_LINES_H

#include <stdbool.h>
#include <stddef.h>

#define CLI_LINES_CHUNK 65536

typedef struct {
    const char *p;      /* the kept bytes; valid until the next call */
    size_t len;         /* kept length, <= keep */
    size_t full_len;    /* length of the whole line (without LF / CRLF) */
    bool truncated;     /* full_len > len */
    size_t lineno;      /* 1-based */
} cli_line;

typedef struct {
    int fd;
    size_t keep;
    char *in;           /* read chunk */
    size_t in_pos, in_len;
    char *line;         /* kept prefix of the current line */
    size_t line_cap;
    size_t lineno;
    bool eof;
    int err;            /* errno of a failed read, 0 when none */
    /* read(2) of fd unless set (after cli_lines_init): e.g. a gzip
       stream (src/cli/logformat.c); same contract as read(2). */
    long (*read_fn)(void *ctx, char *buf, size_t n);
    void *read_ctx;
    /* Called with fd before each read(2) when set (NULL after init): the
       command flushes its answers when the read may wait. */
    void (*before_read)(int fd);
    /* Called with the bytes of each read when set (NULL after init):
       --progress counts them (progress.c). */
    void (*after_read)(const char *p, size_t n);
} cli_lines;

/* keep >= 1. Returns false (errno ENOMEM) when the chunk cannot be had. */
bool cli_lines_init(cli_lines *r, int fd, size_t keep);
void cli_lines_free(cli_lines *r);
/*
 * 1: the next line is in *out. 0: end of input. -1: a read error
 * (r->err holds errno) or no memory for the kept prefix (ENOMEM).
 */
int cli_lines_next(cli_lines *r, cli_line *out);

/* The bytes read but not handed out yet (the start of the next lines, the
   last perhaps cut): *p and their count, valid until the next call of
   cli_lines_next. A look ahead, nothing more. */
size_t cli_lines_ahead(const cli_lines *r, const char **p);

#endif
