/*
 * isolate.h - running a reader of readers.h in a process of its own with
 * resource limits and a seccomp filter, and its records handed back to
 * the caller: the caller's side (isolate.c, in liburisan-mail, which
 * links none of the readers' libraries) and the reader process's side
 * (zygote.c, in the urisan-readers program the caller starts).
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

/* The readers, by the number the caller asks the reader process for. */
typedef enum { RD_READ_PDF, RD_READ_OOXML, RD_READ_IMAGE, RD_READ_COUNT_ } rd_reader;

/* What the caller asks of the zygote for one file, with the socket of the
   job as SCM_RIGHTS; the file's bytes follow on that socket. */
typedef struct {
    uint32_t reader;       /* rd_reader */
    uint64_t n;            /* bytes of the file */
    rd_bounds b;
    rd_isolation iso;
} rd_job_head;

/* The reader process's control socket (urisan-readers --zygote). */
#define RD_ZYGOTE_FD 3

/* The reader process: fork a worker for each job on the control socket
   ctl until it is closed, then reap them and return 0 (zygote.c). */
int rd_zygote_main(int ctl);

/* Where the parent hands the records: false stops the delivery. */
typedef struct {
    bool (*found)(void *ctx, rd_kind k, uint32_t page, const char *s, size_t n);
    bool (*note)(void *ctx, rd_status st, const char *msg, size_t n);
    void *ctx;
} rd_sink;

/* The reader process (the zygote) is started by the first rd_run: the
   program urisan-readers, where rd_set_program put it, else where it is
   installed (URISAN_READERS_PATH). A fresh program, not a fork: it
   holds nothing of the caller's memory (other messages) and links the
   readers' libraries, which the caller never loads.
   rd_stop stops it: it reaps its workers and ends, and is reaped (so the
   readers' CPU time and memory count in the caller's RUSAGE_CHILDREN).
   urisan_mail_shutdown calls it; a later rd_run starts it again. */
void rd_stop(void);

/* The program to start: path (copied; NULL: URISAN_READERS_PATH, where it
   is installed). false: too long (nothing changed). */
bool rd_set_program(const char *path);

/* Reader r on d[0..n) in a worker of the reader process; its records to
   sink, in order, then
   (when the worker failed) a note saying how. The worst status.
   *stopped: a sink callback returned false. */
rd_status rd_run(rd_reader r, const unsigned char *d, size_t n, const rd_bounds *b,
                 const rd_isolation *iso, const rd_sink *sink, bool *stopped);

/* fn in this process (fuzzing, the readers' own tests; zygote.c). */
rd_status rd_run_here(rd_reader_fn fn, const unsigned char *d, size_t n, const rd_bounds *b,
                      const rd_sink *sink, bool *stopped);

#endif
