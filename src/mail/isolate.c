/*
 * isolate.c - the caller's side of isolate.h: a reader of a hostile file
 * (readers.h) run in a process that cannot take its caller down
 * (SECURITY.md "Attachment readers", doc/mail.md).
 *
 * The first file starts the reader process, the program urisan-readers
 * (zygote.c): a fresh program, so that it holds nothing of the caller's
 * memory and the caller never loads the readers' libraries. For each
 * file the caller hands the zygote a socket for the job (SCM_RIGHTS) and
 * writes the file to it; the zygote forks a worker that reads it under
 * resource limits and a seccomp filter and writes its records back. The
 * caller reads them with a wall-clock deadline and a byte bound. A worker
 * that dies, is killed, or ends without its end record is a reader that
 * failed (RD_BROKEN, told with the reason): never a silent drop. The
 * zygote ends when the caller closes its control socket (rd_stop) or
 * exits.
 */
#include "isolate.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void rd_isolation_default(rd_isolation *iso)
{
    memset(iso, 0, sizeof *iso);
    iso->max_mem = (size_t)1 << 30;
    iso->cpu_seconds = 10;
    iso->wall_ms = 20000;
    iso->max_out = (size_t)8 << 20;
}

static pthread_mutex_t zyg_mu = PTHREAD_MUTEX_INITIALIZER;
static int zyg_fd = -1;
static pid_t zyg_pid = -1;

/* The program to start (zyg_mu held): rd_set_program's, else where it
   is installed. */
static char program[4096];

static const char *readers_path(void)
{
    return program[0] != '\0' ? program : URISAN_READERS_PATH;
}

bool rd_set_program(const char *path)
{
    size_t n = path != NULL ? strlen(path) : 0;
    if (n >= sizeof program)
        return false;
    pthread_mutex_lock(&zyg_mu);
    memcpy(program, path != NULL ? path : "", n);
    program[n] = '\0';
    pthread_mutex_unlock(&zyg_mu);
    return true;
}

/* Start the zygote (zyg_mu held): the program, with the control socket as
   descriptor RD_ZYGOTE_FD and no signal blocked. posix_spawn, so that it
   is safe in a process with threads. */
static void zygote_start(void)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, dfl;
    sigemptyset(&none);
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGPIPE);
    sigaddset(&dfl, SIGCHLD);
    bool ok = posix_spawn_file_actions_init(&fa) == 0;
    if (ok && posix_spawnattr_init(&at) == 0) {
        char *argv[] = { (char *)"urisan-readers", (char *)"--zygote", NULL };
        /* an empty environment: nothing of the caller's (secrets, a
           preloaded library) reaches the process that parses hostile
           files */
        char *no_env[] = { NULL };
        pid_t pid = -1;
        if (posix_spawn_file_actions_adddup2(&fa, sv[1], RD_ZYGOTE_FD) == 0 &&
            posix_spawnattr_setsigmask(&at, &none) == 0 &&
            posix_spawnattr_setsigdefault(&at, &dfl) == 0 &&
            posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) == 0 &&
            posix_spawn(&pid, readers_path(), &fa, &at, argv, no_env) == 0) {
            zyg_fd = sv[0];
            zyg_pid = pid;
        }
        posix_spawnattr_destroy(&at);
    }
    if (ok)
        posix_spawn_file_actions_destroy(&fa);
    close(sv[1]);
    if (zyg_fd != sv[0])
        close(sv[0]);
}

void rd_stop(void)
{
    pthread_mutex_lock(&zyg_mu);
    if (zyg_fd >= 0) {
        close(zyg_fd);
        zyg_fd = -1;
        while (zyg_pid > 0 && waitpid(zyg_pid, NULL, 0) < 0 && errno == EINTR)
            ;
        zyg_pid = -1;
    }
    pthread_mutex_unlock(&zyg_mu);
}

/* Hand the job socket fd and its head to the zygote; false: no zygote
   (one that died is started again, once). */
static bool zygote_send(int fd, const rd_job_head *h)
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

rd_status rd_run(rd_reader r, const unsigned char *d, size_t n, const rd_bounds *b,
                 const rd_isolation *iso, const rd_sink *sink, bool *stopped)
{
    *stopped = false;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        *stopped = !tell(sink, "reader: no socket for the reader process");
        return RD_BROKEN;
    }
    rd_job_head h;
    memset(&h, 0, sizeof h);
    h.reader = (uint32_t)r;
    h.n = n;
    h.b = *b;
    h.iso = *iso;
    bool sent = zygote_send(sv[1], &h);
    close(sv[1]);
    if (!sent) {
        close(sv[0]);
        char msg[300];
        snprintf(msg, sizeof msg, "reader: the reader process could not be started (%.200s)",
                 readers_path());
        *stopped = !tell(sink, msg);
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
        ssize_t got = read(sv[0], buf + len, cap - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break; /* the end of the worker's output */
        len += (size_t)got;
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
