/*
 * zygote.c - the reader process's side of isolate.h: the program
 * urisan-readers (readers_main.c) that liburisan-mail starts, and the
 * workers it forks, one for each file (SECURITY.md "Attachment readers").
 *
 * The zygote is a process of one thread that holds nothing of the
 * caller's memory (a program of its own, not a fork of the caller). For
 * each job on its control socket (the job's socket as SCM_RIGHTS and an
 * rd_job_head) it forks a worker, which
 *   - reads the file from the job's socket;
 *   - dies with the zygote (PR_SET_PDEATHSIG), and at its wall-clock bound
 *     (alarm);
 *   - takes resource limits: address space (RLIMIT_AS), CPU seconds
 *     (RLIMIT_CPU), no file written (RLIMIT_FSIZE 0), no descriptor
 *     opened (RLIMIT_NOFILE), no core file, no process started;
 *   - sets a seccomp filter (libseccomp, PR_SET_NO_NEW_PRIVS) that allows
 *     only memory management (brk, mmap and mprotect without PROT_EXEC,
 *     munmap, mremap, madvise), write() to its socket, futex, signal
 *     return, sysinfo (glibc's qsort asks the memory size), getrandom
 *     (the crypto library qpdf decrypts with seeds itself) and exit.
 *     open/openat and the stat family fail with EACCES, write() to another
 *     descriptor with EBADF; any other system call kills the worker;
 *   - writes records to the socket (type, kind, page, length, bytes) and
 *     an end record with its status, then exits.
 * The caller (isolate.c) reads them with a wall-clock deadline and a byte
 * bound.
 */
#define _GNU_SOURCE 1 /* close_range */
#include "isolate.h"

#include <errno.h>
#include <seccomp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define RD_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RD_ASAN 1
#endif
#endif

/* ---- the child ---- */

#define OUT_BUF 8192

typedef struct {
    rd_emit pub;
    int fd;
    size_t used;
    bool failed;
    unsigned char buf[OUT_BUF];
} child_out;

static void out_flush(child_out *o)
{
    size_t off = 0;
    while (off < o->used && !o->failed) {
        ssize_t w = write(o->fd, o->buf + off, o->used - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            o->failed = true;
        else
            off += (size_t)w;
    }
    o->used = 0;
}

static void out_bytes(child_out *o, const void *p, size_t n)
{
    const unsigned char *s = p;
    while (n > 0 && !o->failed) {
        if (o->used == OUT_BUF)
            out_flush(o);
        size_t k = OUT_BUF - o->used;
        if (k > n)
            k = n;
        memcpy(o->buf + o->used, s, k);
        o->used += k;
        s += k;
        n -= k;
    }
}

/* A record: type, kind or status, page (4 bytes, little-endian), length
   (4 bytes), the bytes. */
static void out_record(child_out *o, char type, unsigned kind, uint32_t page, const char *s,
                       size_t n)
{
    if (n > RD_RECORD_MAX)
        n = RD_RECORD_MAX;
    unsigned char h[10] = { (unsigned char)type, (unsigned char)kind,
                            (unsigned char)page, (unsigned char)(page >> 8),
                            (unsigned char)(page >> 16), (unsigned char)(page >> 24),
                            (unsigned char)n, (unsigned char)(n >> 8),
                            (unsigned char)(n >> 16), (unsigned char)(n >> 24) };
    out_bytes(o, h, sizeof h);
    out_bytes(o, s, n);
}

static bool child_found(rd_emit *e, rd_kind k, uint32_t page, const char *s, size_t n)
{
    child_out *o = (child_out *)(void *)e;
    e->count++;
    out_record(o, 'F', (unsigned)k, page, s, n);
    return !o->failed;
}

static void child_note(rd_emit *e, rd_status st, const char *msg)
{
    child_out *o = (child_out *)(void *)e;
    out_record(o, 'N', (unsigned)st, 0, msg, strlen(msg));
}

/* One argument comparison (libseccomp's SCMP_A* macros leave datum_b
   out, which -Wmissing-field-initializers refuses). MASKED_EQ: a is the
   mask, b the value. */
static struct scmp_arg_cmp arg(unsigned n, enum scmp_compare op, scmp_datum_t a, scmp_datum_t b)
{
    struct scmp_arg_cmp c = { n, op, a, b };
    return c;
}

static int sandbox(int fd)
{
    scmp_filter_ctx f = seccomp_init(SCMP_ACT_KILL_PROCESS);
    if (f == NULL)
        return -1;
    int rc = 0;
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(write), 1, arg(0, SCMP_CMP_EQ, (scmp_datum_t)fd, 0));
    rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EBADF), SCMP_SYS(write), 1, arg(0, SCMP_CMP_NE, (scmp_datum_t)fd, 0));
    /* asking about files fails: libzip's time conversion (localtime)
       looks at /etc/localtime, and goes on with the zone it has */
    static const int refuse[] = { SCMP_SYS(open), SCMP_SYS(openat), SCMP_SYS(stat),
                                  SCMP_SYS(lstat), SCMP_SYS(newfstatat), SCMP_SYS(statx),
                                  SCMP_SYS(access), SCMP_SYS(faccessat), SCMP_SYS(readlink) };
    for (size_t i = 0; i < sizeof refuse / sizeof refuse[0]; i++)
        rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EACCES), refuse[i], 0);
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1, arg(2, SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1, arg(2, SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
    static const int allow[] = { SCMP_SYS(brk), SCMP_SYS(munmap), SCMP_SYS(mremap),
                                 SCMP_SYS(madvise), SCMP_SYS(futex), SCMP_SYS(rt_sigreturn),
                                 SCMP_SYS(sysinfo), /* glibc qsort: _SC_PHYS_PAGES */
                                 SCMP_SYS(getrandom), /* qpdf's crypto provider (AES) */
                                 /* the calling thread's alternate signal stack:
                                    AddressSanitizer asks for it on every C++ throw
                                    (qpdf reports a broken file by an exception) */
                                 SCMP_SYS(sigaltstack),
                                 SCMP_SYS(exit), SCMP_SYS(exit_group) };
    for (size_t i = 0; i < sizeof allow / sizeof allow[0]; i++)
        rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, allow[i], 0);
    if (rc == 0)
        rc = seccomp_load(f);
    seccomp_release(f);
    return rc;
}

static void limit_to(int res, rlim_t v)
{
    struct rlimit r = { v, v };
    (void)setrlimit(res, &r);
}

/* The readers by their number (rd_job_head.reader). */
static const rd_reader_fn readers[RD_READ_COUNT_] = {
    [RD_READ_PDF] = rd_pdf,
    [RD_READ_OOXML] = rd_ooxml,
    [RD_READ_IMAGE] = rd_image,
};

/* The worker: one file, read from the job's socket, then the limits, the
   filter, the reader, its records back on the same socket. */
static _Noreturn void worker(int fd, const rd_job_head *h)
{
    static child_out o;
    o.pub.found = child_found;
    o.pub.note = child_note;
    o.pub.count = 0;
    o.fd = fd;
    signal(SIGPIPE, SIG_DFL);
    signal(SIGALRM, SIG_DFL);
    /* the wall-clock bound, in the worker itself (the parent also stops
       reading at it) */
    alarm(h->iso.wall_ms / 1000 + 1);
    unsigned char *d = h->n > 0 && h->n <= ((uint64_t)1 << 40) ? malloc((size_t)h->n) : NULL;
    size_t got = 0;
    while (d != NULL && got < h->n) {
        ssize_t r = read(fd, d + got, (size_t)h->n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            _exit(4); /* the parent went away */
        got += (size_t)r;
    }
    if (d == NULL && h->n > 0)
        _exit(4);
#ifndef RD_ASAN
    limit_to(RLIMIT_AS, (rlim_t)h->iso.max_mem);
#endif
    limit_to(RLIMIT_CPU, (rlim_t)h->iso.cpu_seconds);
    limit_to(RLIMIT_FSIZE, 0);
    limit_to(RLIMIT_CORE, 0);
    limit_to(RLIMIT_NPROC, 0);
    limit_to(RLIMIT_NOFILE, (rlim_t)fd + 1);
    if (!h->iso.no_seccomp && sandbox(fd) != 0) {
        child_note(&o.pub, RD_BROKEN, "reader: the seccomp filter could not be set");
        out_record(&o, 'E', RD_BROKEN, 0, "", 0);
        out_flush(&o);
        _exit(3);
    }
    rd_status st = readers[h->reader](d, (size_t)h->n, &h->b, &o.pub);
    out_record(&o, 'E', (unsigned)st, 0, "", 0);
    out_flush(&o);
    _exit(0);
}

/* The zygote: a process of one thread that forks a worker for each job
   the caller sends. It ends when the caller closes the control socket. */
int rd_zygote_main(int ctl)
{
    /* nothing of the parent's descriptors but the control socket */
    if (ctl > 3)
        (void)close_range(3, (unsigned)ctl - 1, 0);
    (void)close_range((unsigned)ctl + 1, ~0u, 0);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGCHLD, SIG_DFL);
    (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
    rd_prime(); /* what the libraries load from files, loaded once here */
    for (;;) {
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        rd_job_head h;
        char cbuf[CMSG_SPACE(sizeof(int))];
        struct iovec iov = { &h, sizeof h };
        struct msghdr m;
        memset(&m, 0, sizeof m);
        m.msg_iov = &iov;
        m.msg_iovlen = 1;
        m.msg_control = cbuf;
        m.msg_controllen = sizeof cbuf;
        ssize_t r = recvmsg(ctl, &m, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) { /* the parent closed it (rd_stop), or is gone */
            while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
                ; /* every worker reaped: its usage counts in the caller's */
            return 0;
        }
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        if (c == NULL || c->cmsg_type != SCM_RIGHTS || (size_t)r != sizeof h)
            continue;
        int fd;
        memcpy(&fd, CMSG_DATA(c), sizeof fd);
        if (h.reader >= RD_READ_COUNT_) { /* not a job this program knows */
            close(fd);
            continue;
        }
        pid_t pid = fork();
        if (pid == 0) {
            close(ctl);
            (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
            worker(fd, &h);
        }
        close(fd); /* a fork that failed: the parent reads EOF, and tells it */
    }
}

/* The same records as the child's, without the process: for the fuzz
   harnesses and the tests of the readers themselves. */
typedef struct {
    rd_emit pub;
    const rd_sink *sink;
    bool stopped;
} here_out;

static bool here_found(rd_emit *e, rd_kind k, uint32_t page, const char *s, size_t n)
{
    here_out *h = (here_out *)(void *)e;
    e->count++;
    if (!h->stopped && !h->sink->found(h->sink->ctx, k, page, s, n))
        h->stopped = true;
    return !h->stopped;
}

static void here_note(rd_emit *e, rd_status st, const char *msg)
{
    here_out *h = (here_out *)(void *)e;
    if (!h->stopped && !h->sink->note(h->sink->ctx, st, msg, strlen(msg)))
        h->stopped = true;
}

rd_status rd_run_here(rd_reader_fn fn, const unsigned char *d, size_t n, const rd_bounds *b,
                      const rd_sink *sink, bool *stopped)
{
    here_out h;
    memset(&h, 0, sizeof h);
    h.pub.found = here_found;
    h.pub.note = here_note;
    h.sink = sink;
    rd_prime();
    rd_status st = fn(d, n, b, &h.pub);
    *stopped = h.stopped;
    return st;
}
