/* stream.c - an input read piece by piece (see stream.h). */
#include "stream.h"
#include "cli.h"
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t cli_stream_chunk(void)
{
    const char *e = getenv("URISAN_STREAM_CHUNK");
    if (e != NULL && *e != '\0') {
        char *end;
        unsigned long long v = strtoull(e, &end, 10);
        if (*end == '\0' && v >= 1 && v <= ((size_t)1 << 30))
            return (size_t)v;
    }
    return CLI_STREAM_CHUNK;
}

bool cli_stream_open(cli_stream *s, const char *cmd, const char *path)
{
    memset(s, 0, sizeof *s);
    s->cmd = cmd;
    s->path = path;
    s->chunk = cli_stream_chunk();
    if (strcmp(path, "-") == 0) {
        s->fd = STDIN_FILENO;
        return true;
    }
    do {
        s->fd = open(path, O_RDONLY);
    } while (s->fd < 0 && errno == EINTR);
    if (s->fd < 0) {
        cli_fail(cmd, "%s: %s", path, strerror(errno));
        return false;
    }
    s->own_fd = true;
    return true;
}

void cli_stream_close(cli_stream *s)
{
    if (s->own_fd)
        close(s->fd);
    free(s->buf);
    s->buf = NULL;
    s->own_fd = false;
}

/* Room for want more bytes after len (the window at most max + chunk). */
static bool room_for(cli_stream *s, size_t want)
{
    if (s->len + want <= s->cap)
        return true;
    size_t ncap = s->cap ? s->cap : s->chunk;
    while (ncap < s->len + want)
        ncap *= 2;
    char *nb = realloc(s->buf, ncap);
    if (nb == NULL)
        return false;
    s->buf = nb;
    s->cap = ncap;
    return true;
}

long long cli_stream_fill(cli_stream *s, size_t keep_from, size_t max)
{
    if (keep_from > s->len)
        keep_from = s->len;
    if (keep_from > 0) {
        memmove(s->buf, s->buf + keep_from, s->len - keep_from);
        s->len -= keep_from;
        s->base += keep_from;
    }
    size_t want = s->chunk;
    if (keep_from == 0 && s->len > want)
        want = s->len; /* nothing decided in the window: twice as much */
    if (s->len + want > max + s->chunk)
        want = max + s->chunk > s->len ? max + s->chunk - s->len : s->chunk;
    if (!room_for(s, want)) {
        cli_fail(s->cmd, "%s: out of memory", s->path);
        return -1;
    }
    size_t got = 0;
    while (got < want && !s->eof) {
        ssize_t n = read(s->fd, s->buf + s->len, want - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            cli_fail(s->cmd, "%s: %s", s->path, strerror(errno));
            return -1;
        }
        if (n == 0)
            s->eof = true;
        s->len += (size_t)n;
        got += (size_t)n;
        cli_progress_bytes(s->buf + s->len - (size_t)n, (size_t)n);
    }
    return (long long)got;
}
