/*
 * milter_daemon.c - `urisan milter` as a daemon (see milter_daemon.h).
 *
 * Why the stop needs help: libmilter's listener waits in select() for up
 * to 5 seconds holding its lock, and smfi_stop() waits for that lock
 * before it closes the socket, so a plain smfi_stop() takes up to 5 s.
 * Here smfi_stop() runs in a thread of its own and the main thread
 * interrupts the listener's select() with a signal (SIGURG, sent to that
 * thread alone, whose handler does nothing): select() fails with EINTR,
 * the listener sees the stop and smfi_main returns. (Waking it with a
 * connection instead made it accept one more session after the stop,
 * which libmilter refuses and answers by sleeping a second.)
 *
 * What a drain can wait for: libmilter (built with its worker pool, as
 * Debian's is) stops reading every session once stopped, so a message
 * still being received is never finished here - the MTA applies its
 * milter_default_action to it when the connection closes at exit
 * (tempfail: the sender retries). A message being judged (end of
 * message) is finished and answered: the drain waits for those.
 */
#include "milter_daemon.h"
#include "cli.h"
#include "policy_info.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <libmilter/mfapi.h>

#define CMD "milter"

struct milter_pol {
    urisan_policy *pol;
    unsigned refs;          /* sessions judging with it, +1 while in force */
};

static struct {
    milter_daemon_conf c;
    pthread_mutex_t mu;     /* cur and each refs, judging */
    milter_pol *cur;
    size_t judging;         /* messages being judged (in xxfi_eom) */
    atomic_ulong messages;
    int pipe_r, pipe_w;     /* one byte a signal; 0: smfi_main returned */
    atomic_int smfi_done;   /* smfi_main returned */
    int smfi_rc;
    pthread_t runner;       /* the thread in smfi_main: the listener's */
} d = { .mu = PTHREAD_MUTEX_INITIALIZER, .pipe_r = -1, .pipe_w = -1 };

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void logf_(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    flockfile(stderr);
    fputs("urisan: milter: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    fflush(stderr);
    funlockfile(stderr);
    va_end(ap);
}

/* ---- the policy in force ---- */

static milter_pol *pol_new(urisan_policy *p)
{
    milter_pol *r = malloc(sizeof *r);
    if (r != NULL) {
        r->pol = p;
        r->refs = 1;
    }
    return r;
}

/* Drop one hold of r (d.mu held); true when it was the last. */
static bool pol_unref(milter_pol *r) { return --r->refs == 0; }

static void pol_free(milter_pol *r)
{
    free(r->pol);
    free(r);
}

const urisan_policy *milter_pol_get(milter_pol **ref)
{
    pthread_mutex_lock(&d.mu);
    milter_pol *r = d.cur;
    r->refs++;
    pthread_mutex_unlock(&d.mu);
    *ref = r;
    return r->pol;
}

void milter_pol_put(milter_pol *ref)
{
    pthread_mutex_lock(&d.mu);
    bool last = pol_unref(ref);
    pthread_mutex_unlock(&d.mu);
    if (last)
        pol_free(ref);
}

/* "policy in force: urisan 0.2.0, profile mail, policy file F, N rules"
   (policy_info.h: the words serve and squid-acl use), after what. */
static void log_policy(const char *what, const urisan_policy *p)
{
    cli_policy_info i;
    cli_policy_info_make(&i, p, d.c.profile, d.c.path);
    char text[CLI_POLICY_INFO_TEXT];
    cli_policy_info_text(&i, text, sizeof text);
    logf_("%s%s", what, text);
}

bool milter_daemon_init(const milter_daemon_conf *c, urisan_policy *pol)
{
    d.c = *c;
    d.cur = pol_new(pol);
    return d.cur != NULL;
}

void milter_daemon_done(void)
{
    if (d.cur != NULL && pol_unref(d.cur))
        pol_free(d.cur);
    d.cur = NULL;
}

/* SIGHUP: the policy loaded again; a mistake keeps the one in force
   (cli_policy_load printed FILE:LINE:COLUMN and the word). */
static void reload(void)
{
    urisan_policy *np = cli_policy_load(CMD, d.c.path, d.c.profile);
    milter_pol *r = np != NULL ? pol_new(np) : NULL;
    if (r == NULL) {
        free(np);
        logf_("reload failed (%s); keeping the policy in force",
              np == NULL ? "the message above" : "out of memory");
        return;
    }
    pthread_mutex_lock(&d.mu);
    milter_pol *old = d.cur;
    d.cur = r;
    bool last = pol_unref(old);
    pthread_mutex_unlock(&d.mu);
    log_policy("policy reloaded; in force: ", np);
    if (last)
        pol_free(old);
}

/* ---- messages being judged ---- */

void milter_judging_begin(void)
{
    pthread_mutex_lock(&d.mu);
    d.judging++;
    pthread_mutex_unlock(&d.mu);
}

void milter_judging_end(void)
{
    pthread_mutex_lock(&d.mu);
    if (d.judging > 0)
        d.judging--;
    pthread_mutex_unlock(&d.mu);
    atomic_fetch_add(&d.messages, 1);
}

static size_t judging_now(void)
{
    pthread_mutex_lock(&d.mu);
    size_t n = d.judging;
    pthread_mutex_unlock(&d.mu);
    return n;
}

/* ---- stopping the listener ---- */

/* Interrupt the listener's select() (see the top of the file). */
static void on_wake(int sig)
{
    (void)sig;
}

static void wake_listener(void)
{
    (void)pthread_kill(d.runner, SIGURG);
}

static void *stopper(void *arg)
{
    (void)arg;
    smfi_stop();
    return NULL;
}

/* ---- signals: handlers in the main thread, a byte each down a pipe ---- */

static void on_signal(int sig)
{
    int e = errno;
    unsigned char b = (unsigned char)sig;
    if (write(d.pipe_w, &b, 1) < 0) {
        /* the pipe is full of signals not read yet: this one is one more */
    }
    errno = e;
}

static void *smfi_runner(void *arg)
{
    (void)arg;
    d.smfi_rc = smfi_main();
    atomic_store(&d.smfi_done, 1);
    on_signal(0);
    return NULL;
}

/* The next signal (0: smfi_main returned), waiting at most ms
   milliseconds (-1: no bound); false when none came. */
static bool next_signal(int ms, int *sig)
{
    struct pollfd p = { d.pipe_r, POLLIN, 0 };
    if (poll(&p, 1, ms) <= 0)
        return false;
    unsigned char b;
    if (read(d.pipe_r, &b, 1) != 1)
        return false;
    *sig = b;
    return true;
}

static bool wait_tick(const sigset_t *set, int *sig)
{
    (void)set;
    return next_signal(20, sig);
}

/* The handlers, in the main thread only: every thread started from here
   on (libmilter's among them) starts with the signals blocked, so a
   signal sent to the process is the main thread's. */
static bool catch_signals(sigset_t *set)
{
    int fds[2];
    if (pipe(fds) != 0)
        return false;
    for (int i = 0; i < 2; i++)
        if (fcntl(fds[i], F_SETFD, FD_CLOEXEC) != 0 ||
            fcntl(fds[i], F_SETFL, O_NONBLOCK) != 0)
            return false;
    d.pipe_r = fds[0];
    d.pipe_w = fds[1];
    sigemptyset(set);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    struct sigaction wake;
    memset(&wake, 0, sizeof wake);
    wake.sa_handler = on_wake; /* no SA_RESTART: select() returns EINTR */
    sigemptyset(&wake.sa_mask);
    return sigaction(SIGHUP, &sa, NULL) == 0 && sigaction(SIGTERM, &sa, NULL) == 0 &&
           sigaction(SIGINT, &sa, NULL) == 0 && sigaction(SIGURG, &wake, NULL) == 0 &&
           pthread_sigmask(SIG_UNBLOCK, set, NULL) == 0;
}

/*
 * Until libmilter's signal thread sleeps in sigwait (at most a second).
 * A process signal is queued for the whole process and the thread woken
 * for it is the main thread; but a thread that enters sigwait while the
 * main thread has not yet run takes it off the queue first. So the start
 * line (what a supervisor waits for before it sends SIGHUP) waits for
 * that thread to be asleep: a thread other than the main one whose
 * /proc/self/task/TID/syscall is rt_sigtimedwait.
 */
static bool some_thread_in_sigwait(void)
{
    DIR *dir = opendir("/proc/self/task");
    if (dir == NULL)
        return true; /* cannot tell: do not wait */
    bool found = false;
    long self = (long)getpid(); /* the main thread's id */
    struct dirent *e;
    while (!found && (e = readdir(dir)) != NULL) {
        long tid = strtol(e->d_name, NULL, 10);
        if (tid <= 0 || tid == self)
            continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/self/task/%ld/syscall", tid);
        FILE *f = fopen(path, "r");
        long nr = -1;
        if (f != NULL) {
            if (fscanf(f, "%ld", &nr) != 1)
                nr = -1;
            fclose(f);
        }
        found = nr == SYS_rt_sigtimedwait;
    }
    closedir(dir);
    return found;
}

static void wait_libmilter_signal_thread(void)
{
    for (int i = 0; i < 200 && !some_thread_in_sigwait(); i++) {
        struct timespec t = { 0, 5 * 1000 * 1000 };
        nanosleep(&t, NULL);
    }
}

/* pthread_create with the signals blocked in the new thread. */
static int start_thread(pthread_t *t, void *(*fn)(void *), const sigset_t *set)
{
    sigset_t old;
    pthread_sigmask(SIG_BLOCK, set, &old);
    int rc = pthread_create(t, NULL, fn, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

/* Stop taking connections: smfi_stop, and wake the listener until
   smfi_main returned (at most about a second). */
static void stop_listener(const sigset_t *set)
{
    pthread_t t;
    if (start_thread(&t, stopper, set) == 0)
        pthread_detach(t);
    else
        smfi_stop();
    for (int i = 0; i < 50 && !atomic_load(&d.smfi_done); i++) {
        wake_listener();
        int sig;
        if (wait_tick(set, &sig) && sig == SIGHUP)
            reload();
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wait for the messages being judged, at most drain_s seconds (a
   second SIGTERM or SIGINT stops the wait), then 100 ms for libmilter to
   write their answers. The messages still being judged. */
static size_t drain(const sigset_t *set)
{
    double end = now_s() + (double)d.c.drain_s;
    size_t n;
    int idle = 0;
    while (((n = judging_now()) > 0 || idle < 5) && now_s() < end) {
        idle = n > 0 ? 0 : idle + 1;
        int sig;
        if (!wait_tick(set, &sig))
            continue;
        if (sig == SIGHUP)
            reload();
        else if (sig == SIGTERM || sig == SIGINT)
            break;
    }
    return n;
}

/* The signals, until a stop: true when SIGTERM or SIGINT asked for it,
   false when smfi_main returned by itself. */
static bool until_stop(const sigset_t *set)
{
    for (;;) {
        int sig = 0;
        if (!next_signal(-1, &sig))
            continue;
        if (sig == 0 || atomic_load(&d.smfi_done))
            return false;
        if (sig == SIGHUP) {
            reload();
        } else if (sig == SIGTERM || sig == SIGINT) {
            size_t n = judging_now();
            logf_("%s: draining (%zu message%s being judged)",
                  sig == SIGTERM ? "SIGTERM" : "SIGINT", n, n == 1 ? "" : "s");
            stop_listener(set);
            return true;
        }
    }
}

int milter_daemon_run(size_t *judging_left)
{
    sigset_t set;
    if (!catch_signals(&set))
        return cli_fail(CMD, "cannot catch signals: %s", strerror(errno));
    if (start_thread(&d.runner, smfi_runner, &set) != 0)
        return cli_fail(CMD, "cannot start libmilter's thread");
    wait_libmilter_signal_thread();
    log_policy("policy in force: ", d.cur->pol);
    logf_("listening on %s (%s)", d.c.where, d.c.settings);
    bool asked = until_stop(&set);
    bool joined = atomic_load(&d.smfi_done) && pthread_join(d.runner, NULL) == 0;
    if (!joined)
        pthread_detach(d.runner);
    *judging_left = drain(&set);
    unsigned long m = atomic_load(&d.messages);
    if (*judging_left > 0)
        logf_("stopped after %lu message%s; %zu cut short while being judged", m,
              m == 1 ? "" : "s", *judging_left);
    else
        logf_("stopped after %lu message%s", m, m == 1 ? "" : "s");
    if (!asked)
        return cli_fail(CMD, "libmilter stopped by itself (%s)",
                        d.smfi_rc == MI_SUCCESS ? "a signal reached it" : "an error");
    return joined && d.smfi_rc == MI_SUCCESS ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
