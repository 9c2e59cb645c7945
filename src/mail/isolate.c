/*
 * isolate.c - a reader of a hostile file (readers.h) run in a process
 * that cannot take its caller down (SECURITY.md "Attachment readers",
 * doc/mail.md).
 *
 * A zygote - a process of one thread forked once from the caller
 * (rd_start, at urisan_mail_init) - forks a worker for each file, so that
 * no worker inherits a lock another thread of the caller held (iconv's,
 * the time zone's). The caller hands the zygote a socket for the job
 * (SCM_RIGHTS) and writes the file to it. The worker reads the file, then
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
 *     descriptor with EBADF; any other system call kills the worker.
 * It writes records to the socket (type, kind, page, length, bytes) and
 * an end record with its status, then exits. The caller reads them with a
 * wall-clock deadline and a byte bound. A worker that dies, is killed, or
 * ends without its end record is a reader that failed (RD_BROKEN, told
 * with the reason): never a silent drop. The zygote ends when the caller
 * closes its control socket (or exits).
 */
#define _GNU_SOURCE 1 /* close_range */
#include "isolate.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define RD_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RD_ASAN 1
#endif
#endif

void rd_isolation_default(rd_isolation *iso)
{
    memset(iso, 0, sizeof *iso);
    iso->max_mem = (size_t)1 << 30;
    iso->cpu_seconds = 10;
    iso->wall_ms = 20000;
    iso->max_out = (size_t)8 << 20;
}

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

/* What the parent asks of the zygote for one file (with the socket of
   the job as SCM_RIGHTS). The zygote is a fork of the parent: the
   function's address is the same there. */
typedef struct {
    rd_reader_fn fn;
    uint64_t n;            /* bytes of the file that follow on the socket */
    rd_bounds b;
    rd_isolation iso;
} job_head;

/* The worker: one file, read from the job's socket, then the limits, the
   filter, the reader, its records back on the same socket. */
static _Noreturn void worker(int fd, const job_head *h)
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
    rd_status st = h->fn(d, (size_t)h->n, &h->b, &o.pub);
    out_record(&o, 'E', (unsigned)st, 0, "", 0);
    out_flush(&o);
    _exit(0);
}

/* The zygote: a process of one thread, forked once, that forks a worker
   for each job the parent sends, so that a worker never inherits a lock
   another thread of the parent held (iconv's, the time zone's) when it
   was forked. It ends when the parent closes the control socket. */
static _Noreturn void zygote(int ctl)
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
        job_head h;
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
        if (r <= 0)
            _exit(0); /* the parent closed it, or is gone */
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        if (c == NULL || c->cmsg_type != SCM_RIGHTS || (size_t)r != sizeof h)
            continue;
        int fd;
        memcpy(&fd, CMSG_DATA(c), sizeof fd);
        pid_t pid = fork();
        if (pid == 0) {
            close(ctl);
            (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
            worker(fd, &h);
        }
        close(fd); /* a fork that failed: the parent reads EOF, and tells it */
    }
}

static pthread_mutex_t zyg_mu = PTHREAD_MUTEX_INITIALIZER;
static int zyg_fd = -1;
static pid_t zyg_pid = -1;

/* Start the zygote (zyg_mu held). */
static void zygote_start(void)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return;
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        return;
    }
    if (pid == 0) {
        close(sv[0]);
        zygote(sv[1]);
    }
    close(sv[1]);
    zyg_fd = sv[0];
    zyg_pid = pid;
}

void rd_start(void)
{
    pthread_mutex_lock(&zyg_mu);
    if (zyg_fd < 0)
        zygote_start();
    pthread_mutex_unlock(&zyg_mu);
}

/* Hand the job socket fd and its head to the zygote; false: no zygote
   (one that died is started again, once). */
static bool zygote_send(int fd, const job_head *h)
{
    bool ok = false;
    pthread_mutex_lock(&zyg_mu);
    for (int attempt = 0; attempt < 2 && !ok; attempt++) {
        if (zyg_fd < 0)
            zygote_start();
        if (zyg_fd < 0)
            break;
        char cbuf[CMSG_SPACE(sizeof(int))];
        memset(cbuf, 0, sizeof cbuf);
        struct iovec iov = { (void *)(uintptr_t)h, sizeof *h };
        struct msghdr m;
        memset(&m, 0, sizeof m);
        m.msg_iov = &iov;
        m.msg_iovlen = 1;
        m.msg_control = cbuf;
        m.msg_controllen = sizeof cbuf;
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof fd);
        ssize_t w;
        do
            w = sendmsg(zyg_fd, &m, MSG_NOSIGNAL);
        while (w < 0 && errno == EINTR);
        if (w == (ssize_t)sizeof *h) {
            ok = true;
        } else { /* the zygote is gone: reap it, start another */
            close(zyg_fd);
            zyg_fd = -1;
            if (zyg_pid > 0)
                (void)waitpid(zyg_pid, NULL, WNOHANG);
            zyg_pid = -1;
        }
    }
    pthread_mutex_unlock(&zyg_mu);
    return ok;
}

/* ---- the parent ---- */

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The records of buf[0..len) to the sink. The end record's status, or -1
   when there is none. */
static int replay(const unsigned char *buf, size_t len, const rd_sink *sink, rd_status *worst,
                  bool *stopped)
{
    size_t i = 0;
    int end = -1;
    while (i + 10 <= len) {
        char type = (char)buf[i];
        unsigned kind = buf[i + 1];
        uint32_t page = (uint32_t)buf[i + 2] | (uint32_t)buf[i + 3] << 8 |
                        (uint32_t)buf[i + 4] << 16 | (uint32_t)buf[i + 5] << 24;
        size_t n = (size_t)buf[i + 6] | (size_t)buf[i + 7] << 8 | (size_t)buf[i + 8] << 16 |
                   (size_t)buf[i + 9] << 24;
        if (n > len - i - 10)
            break; /* cut short: the worker died writing */
        const char *s = (const char *)buf + i + 10;
        i += 10 + n;
        if (type == 'F' && kind >= 1 && kind <= RD_KIND_MAX_) {
            if (!*stopped && !sink->found(sink->ctx, (rd_kind)kind, page, s, n))
                *stopped = true;
        } else if (type == 'N' && kind <= RD_BROKEN) {
            if ((rd_status)kind > *worst)
                *worst = (rd_status)kind;
            if (!*stopped && !sink->note(sink->ctx, (rd_status)kind, s, n))
                *stopped = true;
        } else if (type == 'E' && kind <= RD_BROKEN) {
            end = (int)kind;
        } else {
            break; /* not a record a worker writes */
        }
    }
    return end;
}

static bool tell(const rd_sink *sink, const char *msg)
{
    return sink->note(sink->ctx, RD_BROKEN, msg, strlen(msg));
}

rd_status rd_run(rd_reader_fn fn, const unsigned char *d, size_t n, const rd_bounds *b,
                 const rd_isolation *iso, const rd_sink *sink, bool *stopped)
{
    *stopped = false;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        *stopped = !tell(sink, "reader: no socket for the reader process");
        return RD_BROKEN;
    }
    job_head h;
    memset(&h, 0, sizeof h);
    h.fn = fn;
    h.n = n;
    h.b = *b;
    h.iso = *iso;
    bool sent = zygote_send(sv[1], &h);
    close(sv[1]);
    if (!sent) {
        close(sv[0]);
        *stopped = !tell(sink, "reader: the reader process could not be started");
        return RD_BROKEN;
    }
    long long deadline = now_ms() + (long long)iso->wall_ms;
    const char *why = NULL;
    /* the file, then the records: the worker reads all of it first */
    size_t off = 0;
    while (off < n && why == NULL) {
        long long left = deadline - now_ms();
        struct pollfd p = { sv[0], POLLOUT, 0 };
        if (left <= 0) {
            why = "reader: the wall-clock bound was reached; the reader was stopped";
            break;
        }
        int pr = poll(&p, 1, (int)(left > 1000 ? 1000 : left));
        if (pr <= 0)
            continue;
        ssize_t w = send(sv[0], d + off, n - off, MSG_NOSIGNAL);
        if (w < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (w <= 0)
            break; /* the worker died: no end record, told below */
        off += (size_t)w;
    }
    (void)shutdown(sv[0], SHUT_WR);
    size_t cap = 65536, len = 0;
    unsigned char *buf = malloc(cap);
    while (buf != NULL && why == NULL) {
        long long left = deadline - now_ms();
        if (left <= 0) {
            why = "reader: the wall-clock bound was reached; the reader was stopped";
            break;
        }
        struct pollfd p = { sv[0], POLLIN, 0 };
        int pr = poll(&p, 1, (int)(left > 1000 ? 1000 : left));
        if (pr <= 0)
            continue;
        if (len == cap) {
            if (cap >= iso->max_out) {
                why = "reader: more output than the bound; the reader was stopped";
                break;
            }
            size_t nc = cap * 2 > iso->max_out ? iso->max_out : cap * 2;
            unsigned char *nb = realloc(buf, nc);
            if (nb == NULL) {
                why = "reader: out of memory reading the reader's output";
                break;
            }
            buf = nb;
            cap = nc;
        }
        ssize_t r = read(sv[0], buf + len, cap - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break; /* the end of the worker's output */
        len += (size_t)r;
    }
    if (buf == NULL)
        why = "reader: out of memory reading the reader's output";
    close(sv[0]); /* a worker still writing gets EPIPE and dies */
    rd_status worst = RD_OK;
    int end = buf != NULL ? replay(buf, len, sink, &worst, stopped) : -1;
    free(buf);
    if (why == NULL && end < 0)
        why = "reader: the reader process ended without its result (a fault, its memory or "
              "CPU bound, or a system call the seccomp filter forbids)";
    if (why != NULL) {
        if (!*stopped && !tell(sink, why))
            *stopped = true;
        return RD_BROKEN;
    }
    if ((rd_status)end > worst)
        worst = (rd_status)end;
    return worst;
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

void rd_bounds_default(rd_bounds *b)
{
    memset(b, 0, sizeof *b);
    b->max_pages = 2000;
    b->max_objects = 200000;
    b->max_images = 64;
    b->max_pixels = (size_t)40 << 20;
    b->max_inflated = (size_t)256 << 20;
    b->max_entries = 2000;
    b->max_found = 10000;
}
