/*
 * guard.h - place test inputs flush against a PROT_NONE page, so that a
 * one-byte overread faults (picohttpparser/pixman fence technique).
 */
#ifndef URISAN_GUARD_H
#define URISAN_GUARD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct {
    unsigned char *map;
    size_t maplen;
} guard_buf;

/* Copy in[0..len) so that in[len] is the first byte of a PROT_NONE page.
   Returns the copy, or NULL on mmap failure. */
static inline const char *guard_place(guard_buf *g, const void *in, size_t len)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    size_t data_pages = (len + pg - 1) / pg;
    if (data_pages == 0)
        data_pages = 1;
    g->maplen = (data_pages + 1) * pg;
    void *m = mmap(NULL, g->maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    g->map = m;
    unsigned char *fence = g->map + data_pages * pg;
    if (mprotect(fence, pg, PROT_NONE) != 0) {
        munmap(m, g->maplen);
        return NULL;
    }
    unsigned char *start = fence - len;
    if (len)
        memcpy(start, in, len);
    return (const char *)start;
}

/* A region of len bytes that may not be read at all. */
static inline const char *guard_unreadable(guard_buf *g, size_t len)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    g->maplen = (len + pg - 1) / pg * pg + pg;
    void *m = mmap(NULL, g->maplen, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    g->map = m;
    return (const char *)m;
}

static inline void guard_free(guard_buf *g)
{
    if (g->map)
        munmap(g->map, g->maplen);
    g->map = NULL;
}

#endif
