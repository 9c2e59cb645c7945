/*
 * stream.h - an input read piece by piece with what is still undecided
 * kept (`urisan extract` of inputs of any size).
 *
 * The window buf[0..len) holds the input from byte base on. A reader
 * scans it, says from where it still needs the bytes (keep_from), and
 * asks for more; the bytes before keep_from are dropped, so memory is the
 * read size plus what the reader keeps. When the reader could decide
 * nothing in a whole window, the next read is as large as the window
 * (doubling), so rescanning it costs linear time in all.
 */
#ifndef URISAN_CLI_STREAM_H
#define URISAN_CLI_STREAM_H

#include <stdbool.h>
#include <stddef.h>

/* Bytes read at a time: URISAN_STREAM_CHUNK from the environment (tests
   set it small to put a boundary everywhere), else 1 MiB. */
#define CLI_STREAM_CHUNK ((size_t)1 << 20)
size_t cli_stream_chunk(void);

typedef struct {
    const char *cmd, *path;
    int fd;
    bool own_fd;         /* opened here, closed by cli_stream_close */
    char *buf;
    size_t cap, len;
    size_t base;         /* input offset of buf[0] */
    size_t chunk;
    bool eof;
} cli_stream;

/* Open path ("-": standard input). false after printing why. */
bool cli_stream_open(cli_stream *s, const char *cmd, const char *path);
void cli_stream_close(cli_stream *s);

/*
 * Drop buf[0..keep_from), then read until the window has grown by at
 * least one read size - or by as much as it holds when keep_from kept all
 * of it - or the input ends (s->eof). The window never holds more than
 * max + the read size. Returns the bytes read (0 at end of input), or -1
 * after printing a read error or "out of memory".
 */
long long cli_stream_fill(cli_stream *s, size_t keep_from, size_t max);

#endif
