/*
 * isolate.h - running a reader of readers.h in a child process with
 * resource limits and a seccomp filter (isolate.c), and its records
 * handed back to the caller.
 */
#ifndef URISAN_MAIL_ISOLATE_H
#define URISAN_MAIL_ISOLATE_H

#include "readers.h"

/* The longest record (a link or a note): longer ones are cut here. */
#define RD_RECORD_MAX ((size_t)1 << 20)

typedef struct {
    size_t max_mem;        /* RLIMIT_AS of the child, default 1 GiB (not
                              set under AddressSanitizer, whose shadow
                              memory needs more) */
    unsigned cpu_seconds;  /* RLIMIT_CPU, default 10 */
    unsigned wall_ms;      /* the parent kills the child after, default
                              20000 */
    size_t max_out;        /* bytes of records read back, default 8 MiB */
    bool no_seccomp;       /* tests only: the limits without the filter */
} rd_isolation;

void rd_isolation_default(rd_isolation *iso);

typedef rd_status (*rd_reader_fn)(const unsigned char *d, size_t n, const rd_bounds *b,
                                  rd_emit *e);

/* Where the parent hands the records: false stops the delivery. */
typedef struct {
    bool (*found)(void *ctx, rd_kind k, uint32_t page, const char *s, size_t n);
    bool (*note)(void *ctx, rd_status st, const char *msg, size_t n);
    void *ctx;
} rd_sink;

/* Start the zygote that forks the readers' processes (isolate.c), once;
   call before threads start (urisan_mail_init does). rd_run starts it
   when it is not running. */
void rd_start(void);

/* fn on d[0..n) in a child process; its records to sink, in order, then
   (when the child failed) a note saying how. The worst status.
   *stopped: a sink callback returned false. */
rd_status rd_run(rd_reader_fn fn, const unsigned char *d, size_t n, const rd_bounds *b,
                 const rd_isolation *iso, const rd_sink *sink, bool *stopped);

/* fn in this process (fuzzing, the readers' own tests). */
rd_status rd_run_here(rd_reader_fn fn, const unsigned char *d, size_t n, const rd_bounds *b,
                      const rd_sink *sink, bool *stopped);

#endif
