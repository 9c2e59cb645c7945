/* lines.c - bounded, byte-exact line reader (see lines.h). */
#include "lines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool cli_lines_init(cli_lines *r, int fd, size_t keep)
{
    r->fd = fd;
    r->keep = keep ? keep : 1;
    r->in = malloc(CLI_LINES_CHUNK);
    r->in_pos = 0;
    r->in_len = 0;
    r->line = NULL;
    r->line_cap = 0;
    r->lineno = 0;
    r->eof = false;
    r->err = 0;
    r->read_fn = NULL;
    r->read_ctx = NULL;
    r->before_read = NULL;
    r->after_read = NULL;
    if (r->in == NULL) {
        errno = ENOMEM;
        return false;
    }
    return true;
}

void cli_lines_free(cli_lines *r)
{
    free(r->in);
    free(r->line);
    r->in = NULL;
    r->line = NULL;
    r->line_cap = 0;
}

/* Room for want kept bytes (want <= keep): grow by doubling, never past keep. */
static bool grow_line(cli_lines *r, size_t want)
{
    if (want <= r->line_cap)
        return true;
    size_t ncap = r->line_cap ? r->line_cap : 4096;
    while (ncap < want)
        ncap = (ncap > r->keep / 2) ? r->keep : ncap * 2;
    if (ncap > r->keep)
        ncap = r->keep;
    char *np = realloc(r->line, ncap);
    if (np == NULL)
        return false;
    r->line = np;
    r->line_cap = ncap;
    return true;
}

/* The next line when it lies whole in the chunk read and is kept whole:
   handed out where it is, with no copy (valid until the next call, as the
   copy is). false: the general path of cli_lines_next must take it. */
static bool line_in_chunk(cli_lines *r, cli_line *out)
{
    if (r->in_pos >= r->in_len)
        return false;
    const char *s = r->in + r->in_pos;
    const char *nl = memchr(s, '\n', r->in_len - r->in_pos);
    if (nl == NULL || (size_t)(nl - s) > r->keep)
        return false;
    size_t n = (size_t)(nl - s);
    r->in_pos += n + 1;
    if (n > 0 && s[n - 1] == '\r')   /* CRLF: the CR is not part of the line */
        n--;
    r->lineno++;
    out->p = s;
    out->len = n;
    out->full_len = n;
    out->truncated = false;
    out->lineno = r->lineno;
    return true;
}

size_t cli_lines_ahead(const cli_lines *r, const char **p)
{
    *p = r->in + r->in_pos;
    return r->in_pos < r->in_len ? r->in_len - r->in_pos : 0;
}

int cli_lines_next(cli_lines *r, cli_line *out)
{
    if (r->err != 0) {
        errno = r->err;
        return -1;
    }
    if (line_in_chunk(r, out))
        return 1;
    size_t kept = 0, full = 0;
    bool started = false;
    unsigned char last = 0;   /* last byte of the line so far */

    for (;;) {
        if (r->in_pos == r->in_len) {
            if (r->eof)
                break;
            if (r->before_read != NULL)
                r->before_read(r->fd);
            ssize_t n;
            do {
                n = r->read_fn ? (ssize_t)r->read_fn(r->read_ctx, r->in, CLI_LINES_CHUNK)
                               : read(r->fd, r->in, CLI_LINES_CHUNK);
            } while (n < 0 && errno == EINTR);
            if (n < 0) {
                r->err = errno;
                return -1;
            }
            if (n == 0) {
                r->eof = true;
                break;
            }
            r->in_pos = 0;
            r->in_len = (size_t)n;
            if (r->after_read != NULL)
                r->after_read(r->in, r->in_len);
        }
        started = true;
        const char *s = r->in + r->in_pos;
        size_t avail = r->in_len - r->in_pos;
        const char *nl = memchr(s, '\n', avail);
        size_t take = nl ? (size_t)(nl - s) : avail;
        if (take > 0) {
            size_t room = r->keep - kept;
            size_t copy = take < room ? take : room;
            if (copy > 0) {
                if (!grow_line(r, kept + copy)) {
                    r->err = ENOMEM;
                    errno = ENOMEM;
                    return -1;
                }
                memcpy(r->line + kept, s, copy);
                kept += copy;
            }
            full += take;
            last = (unsigned char)s[take - 1];
            r->in_pos += take;
        }
        if (nl != NULL) {
            r->in_pos++;   /* the LF */
            /* CRLF ending: the CR is not part of the line. */
            if (full > 0 && last == '\r') {
                full--;
                if (kept > full)
                    kept = full;
            }
            goto done;
        }
    }
    /* End of input: a last line without LF still counts. */
    if (!started)
        return 0;
done:
    r->lineno++;
    out->p = r->line ? r->line : "";
    out->len = kept;
    out->full_len = full;
    out->truncated = full > kept;
    out->lineno = r->lineno;
    return 1;
}
