/* jobs.c - --jobs N: worker threads, output in input order (see jobs.h). */
#include "jobs.h"
#include "cli.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BATCH_BYTES ((size_t)256 << 10)
#define BATCH_UNITS 4096
/* Input bytes in flight at most, per worker (one batch may be larger:
   a message; it then goes alone) */
#define FLIGHT_BYTES ((size_t)8 << 20)
/* A batch keeps the memory of its output up to this for the next one
   (an ordinary batch writes 2-3 MiB of JSON; growing it again from
   nothing for every batch cost a page fault every 4 KiB) */
#define KEEP_OUT ((size_t)16 << 20)

enum { REC_UNIT, REC_NOTE, REC_LINES };
typedef struct {
    cli_job_item it;     /* a and b unset: aoff, boff say where */
    size_t aoff, boff;
    unsigned char kind;  /* REC_UNIT; REC_NOTE: the reading thread's
                            messages for standard error, a[0..alen), in
                            their place; REC_LINES: whole lines a[0..alen),
                            n[0] the bytes kept of each (cli_jobs_add_lines) */
} job_rec;

typedef struct batch {
    char *data;
    size_t dlen, dcap;
    job_rec *rec;
    size_t n, rcap;
    cli_buf out, err;    /* what the worker wrote */
    bool done, failed;
    struct batch *next;  /* the free list */
} batch;

struct cli_jobs {
    const char *cmd;
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    pthread_t *th;
    unsigned n, started, next_worker;
    void **wctx;
    cli_job_fn fn;
    cli_job_ahead_fn ahead;
    batch **ring;        /* ring[seq % rcap]: in flight, in input order */
    size_t rcap, head, taken, tail;
    size_t flight;       /* input bytes of the batches in the ring */
    batch *cur, *free;
    size_t units;        /* units a batch holds at most */
    bool quit;
    bool writing;        /* a thread is writing the batches at the head */
    cli_jobs_pull_fn pull;   /* the input read by the workers (cli_jobs_pull) */
    void *pull_arg;
    bool pulling;        /* a worker is in pull */
    pthread_cond_t pulled;   /* pull is done (the thread in cli_jobs_pull) */
    atomic_bool stopped; /* a unit's output failed: the rest is dropped
                            (read by the reading thread without j->mu) */
    cli_buf rerr;        /* the reading thread's messages, not queued yet */
};

bool cli_jobs_parse(const char *s, unsigned *n)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || v > 256)
        return false;
    if (v == 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        v = c < 1 ? 1 : c > 256 ? 256 : (unsigned long)c;
    }
    *n = (unsigned)v;
    return true;
}

static void batch_free(batch *b)
{
    free(b->data);
    free(b->rec);
    cli_buf_free(&b->out);
    cli_buf_free(&b->err);
    free(b);
}

static batch *batch_get(cli_jobs *j)
{
    batch *b = j->free;
    if (b != NULL) {
        j->free = b->next;
    } else {
        b = calloc(1, sizeof *b);
        if (b == NULL)
            return NULL;
        cli_buf_init(&b->out, SIZE_MAX);
        cli_buf_init(&b->err, SIZE_MAX);
    }
    b->dlen = b->n = 0;
    b->done = b->failed = false;
    cli_buf_clear(&b->out);
    cli_buf_clear(&b->err);
    return b;
}

/* The lines of p[0..n) (each ends in LF), one unit each, as lines.h cuts
   them: a CR before the LF is no part of the line, the first keep bytes
   are kept. false: a unit's output failed. */
static bool run_lines(cli_jobs *j, void *w, const char *p, size_t n, size_t keep)
{
    const char *end = p + n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = (size_t)(nl - p);
        if (len > 0 && p[len - 1] == '\r')
            len--;
        cli_job_item it = { .a = p, .alen = len < keep ? len : keep, .n = { len, len > keep } };
        p = nl + 1;
        if (j->ahead != NULL && p < end)
            j->ahead(w, p, (size_t)(end - p));
        if (!j->fn(w, &it))
            return false;
    }
    return true;
}

/* One batch on worker w. */
static void run_batch(cli_jobs *j, void *w, batch *b)
{
    cli_out_capture(&b->out, &b->err);
    for (size_t k = 0; k < b->n; k++) {
        cli_job_item it = b->rec[k].it;
        it.a = b->data + b->rec[k].aoff;
        if (b->rec[k].kind == REC_NOTE) {
            cli_buf_add(&b->err, it.a, it.alen);
            continue;
        }
        if (b->rec[k].kind == REC_LINES) {
            if (!run_lines(j, w, it.a, it.alen, it.n[0])) {
                b->failed = true;
                break;
            }
            continue;
        }
        it.b = it.b != NULL ? b->data + b->rec[k].boff : NULL;
        if (j->ahead != NULL && k + 1 < b->n && b->rec[k + 1].kind != REC_NOTE)
            j->ahead(w, b->data + b->rec[k + 1].aoff, b->rec[k + 1].it.alen);
        if (!j->fn(w, &it)) {
            b->failed = true;
            break;
        }
    }
    cli_out_capture(NULL, NULL);
}

/* Back to the free list, without the memory of a large unit (a message):
   the list keeps batches of ordinary size only. */
static void recycle(cli_jobs *j, batch *b)
{
    if (b->dcap > 4 * BATCH_BYTES) {
        free(b->data);
        b->data = NULL;
        b->dcap = 0;
    }
    if (b->out.cap > KEEP_OUT)
        cli_buf_free(&b->out);
    b->next = j->free;
    j->free = b;
}

/* Write the batches done at the head, in order (j->mu held; released
   while writing). One thread writes at a time: the worker that finished
   the head batch, or the reading thread while it waits for room. */
static void write_done(cli_jobs *j)
{
    if (j->writing)
        return;
    j->writing = true;
    while (j->head < j->tail && j->ring[j->head % j->rcap]->done) {
        batch *b = j->ring[j->head % j->rcap];
        bool stopped = atomic_load_explicit(&j->stopped, memory_order_relaxed);
        pthread_mutex_unlock(&j->mu);
        bool ok = true;
        if (!stopped) {
            if (b->out.len > 0)
                ok = cli_out_lines(b->out.p, b->out.len);
            if (b->err.len > 0) {
                cli_out_flush();
                fwrite(b->err.p, 1, b->err.len, stderr);
            }
        }
        pthread_mutex_lock(&j->mu);
        if (!stopped && (b->failed || !ok))
            atomic_store_explicit(&j->stopped, true, memory_order_release);
        j->head++;
        j->flight -= b->dlen;
        recycle(j, b);
    }
    j->writing = false;
}

/* Take the next batch and run it (j->mu held; released while it runs). */
static void run_next(cli_jobs *j, void *w)
{
    batch *b = j->ring[j->taken++ % j->rcap];
    bool skip = atomic_load_explicit(&j->stopped, memory_order_relaxed);
    pthread_mutex_unlock(&j->mu);
    if (!skip)
        run_batch(j, w, b);
    pthread_mutex_lock(&j->mu);
    b->done = true;
    write_done(j);
    pthread_cond_broadcast(&j->done);
}

/* Read the next piece of input (j->mu held; released while reading):
   this worker's turn; the reading thread's messages in their place. */
static void pull_next(cli_jobs *j)
{
    j->pulling = true;
    pthread_mutex_unlock(&j->mu);
    cli_out_capture(NULL, &j->rerr);
    bool more = j->pull(j->pull_arg);
    cli_out_capture(NULL, NULL);
    pthread_mutex_lock(&j->mu);
    j->pulling = false;
    if (!more) {
        j->pull = NULL;
        pthread_cond_signal(&j->pulled);
    }
    pthread_cond_broadcast(&j->work);   /* a worker waiting for the turn */
}

static void *worker(void *arg)
{
    cli_jobs *j = arg;
    pthread_mutex_lock(&j->mu);
    void *w = j->wctx[j->next_worker++];
    for (;;) {
        if (j->taken < j->tail)
            run_next(j, w);
        else if (j->pull != NULL && !j->pulling)
            pull_next(j);
        else if (j->quit && j->pull == NULL)
            break;
        else
            pthread_cond_wait(&j->work, &j->mu);
    }
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

void cli_jobs_pull(cli_jobs *j, cli_jobs_pull_fn pull, void *arg)
{
    pthread_mutex_lock(&j->mu);
    j->pull = pull;
    j->pull_arg = arg;
    pthread_cond_broadcast(&j->work);
    while (j->pull != NULL)
        pthread_cond_wait(&j->pulled, &j->mu);
    pthread_mutex_unlock(&j->mu);
}

cli_jobs *cli_jobs_start(const char *cmd, unsigned n, void *const *wctx, cli_job_fn fn,
                         cli_job_ahead_fn ahead)
{
    cli_jobs *j = calloc(1, sizeof *j);
    if (j == NULL) {
        cli_fail(cmd, "out of memory");
        return NULL;
    }
    j->cmd = cmd;
    j->n = n;
    j->fn = fn;
    j->ahead = ahead;
    j->rcap = 2 * (size_t)n + 2;
    /* URISAN_JOBS_BATCH: units per batch, for tests (many small batches
       on a small input); else BATCH_UNITS */
    const char *env = getenv("URISAN_JOBS_BATCH");
    unsigned long u = env != NULL ? strtoul(env, NULL, 10) : 0;
    j->units = u >= 1 && u <= BATCH_UNITS ? u : BATCH_UNITS;
    j->ring = calloc(j->rcap, sizeof *j->ring);
    j->th = calloc(n, sizeof *j->th);
    j->wctx = calloc(n, sizeof *j->wctx);
    if (j->ring == NULL || j->th == NULL || j->wctx == NULL) {
        free(j->ring);
        free(j->th);
        free(j->wctx);
        free(j);
        cli_fail(cmd, "out of memory");
        return NULL;
    }
    memcpy(j->wctx, wctx, n * sizeof *j->wctx);
    cli_buf_init(&j->rerr, SIZE_MAX);
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->work, NULL);
    pthread_cond_init(&j->done, NULL);
    pthread_cond_init(&j->pulled, NULL);
    for (unsigned k = 0; k < n; k++) {
        int e = pthread_create(&j->th[k], NULL, worker, j);
        if (e != 0) {
            cli_fail(cmd, "cannot start a worker thread: %s", strerror(e));
            atomic_store(&j->stopped, true);
            (void)cli_jobs_end(j);
            return NULL;
        }
        j->started++;
    }
    /* what this thread tells on standard error now goes out in order */
    cli_out_capture(NULL, &j->rerr);
    return j;
}

/* Queue j->cur (j->mu not held). */
static void submit(cli_jobs *j)
{
    batch *b = j->cur;
    j->cur = NULL;
    if (b == NULL)
        return;
    if (b->n == 0) {
        pthread_mutex_lock(&j->mu);
        b->next = j->free;
        j->free = b;
        pthread_mutex_unlock(&j->mu);
        return;
    }
    pthread_mutex_lock(&j->mu);
    for (;;) {
        write_done(j);
        bool room = j->tail - j->head < j->rcap &&
                    (j->tail == j->head || j->flight + b->dlen <= FLIGHT_BYTES * j->n);
        if (room)
            break;
        pthread_cond_wait(&j->done, &j->mu);
    }
    j->flight += b->dlen;
    j->ring[j->tail++ % j->rcap] = b;
    pthread_cond_signal(&j->work);
    pthread_mutex_unlock(&j->mu);
}

/* Room for one more unit's record. */
static bool grow_recs(batch *b)
{
    size_t nc = b->rcap ? 2 * b->rcap : 256;
    job_rec *nr = realloc(b->rec, nc * sizeof *nr);
    if (nr == NULL)
        return false;
    b->rec = nr;
    b->rcap = nc;
    return true;
}

/* Append p[0..n) to the batch's bytes; false: no memory. */
static bool put_bytes(batch *b, const char *p, size_t n, size_t *off)
{
    if (b->dlen + n > b->dcap || b->data == NULL) { /* an empty unit too */
        size_t nc = b->dcap ? b->dcap : BATCH_BYTES;
        while (nc < b->dlen + n)
            nc *= 2;
        char *nd = realloc(b->data, nc);
        if (nd == NULL)
            return false;
        b->data = nd;
        b->dcap = nc;
    }
    if (n > 0)
        memcpy(b->data + b->dlen, p, n);
    *off = b->dlen;
    b->dlen += n;
    return true;
}

/* Queue a record (kind REC_*). The lock only for a new batch. */
static bool add_rec(cli_jobs *j, const cli_job_item *it, unsigned char kind)
{
    /* acquire: what the writer did before it stopped (cli_out_error) is
       seen here */
    if (atomic_load_explicit(&j->stopped, memory_order_acquire))
        return false;
    if (j->cur == NULL) {
        pthread_mutex_lock(&j->mu);
        j->cur = batch_get(j);
        pthread_mutex_unlock(&j->mu);
    }
    batch *b = j->cur;
    if (b == NULL || (b->n == b->rcap && !grow_recs(b))) {
        cli_fail(j->cmd, "out of memory");
        return false;
    }
    job_rec *r = &b->rec[b->n];
    r->it = *it;
    r->kind = kind;
    if (!put_bytes(b, it->a, it->alen, &r->aoff) ||
        (it->b != NULL && !put_bytes(b, it->b, it->blen, &r->boff))) {
        cli_fail(j->cmd, "out of memory");
        return false;
    }
    b->n++;
    if (b->dlen >= BATCH_BYTES || b->n >= j->units)
        submit(j);
    return true;
}

/* The reading thread's messages so far, queued in their place. */
static bool add_notes(cli_jobs *j)
{
    if (j->rerr.len == 0)
        return true;
    cli_job_item it = { .a = j->rerr.p, .alen = j->rerr.len };
    if (!add_rec(j, &it, REC_NOTE))
        return false; /* kept: cli_jobs_end tells them */
    cli_buf_clear(&j->rerr);
    return true;
}

bool cli_jobs_add(cli_jobs *j, const cli_job_item *it)
{
    return add_notes(j) && add_rec(j, it, REC_UNIT);
}

/* The end of the first max lines of p[0..n) (each ends in LF). */
static size_t lines_end(const char *p, size_t n, size_t max)
{
    size_t o = 0;
    for (size_t k = 0; k < max && o < n; k++)
        o += (size_t)((const char *)memchr(p + o, '\n', n - o) - (p + o)) + 1;
    return o;
}

bool cli_jobs_add_lines(cli_jobs *j, const char *p, size_t n, size_t keep)
{
    if (!add_notes(j))
        return false;
    while (n > 0) {
        /* URISAN_JOBS_BATCH (tests): a batch of that many lines */
        size_t take = j->units < BATCH_UNITS ? lines_end(p, n, j->units) : n;
        cli_job_item it = { .a = p, .alen = take, .n = { keep } };
        if (!add_rec(j, &it, REC_LINES))
            return false;
        if (j->units < BATCH_UNITS && j->cur != NULL)
            submit(j);
        p += take;
        n -= take;
    }
    return true;
}

bool cli_jobs_give_lines(cli_jobs *j, char **buf, size_t *cap, size_t whole, size_t len,
                         size_t keep)
{
    if (j->units < BATCH_UNITS) { /* URISAN_JOBS_BATCH (tests): cut by lines */
        if (!cli_jobs_add_lines(j, *buf, whole, keep))
            return false;
        memmove(*buf, *buf + whole, len - whole);
        return true;
    }
    if (!add_notes(j))
        return false;
    submit(j);   /* what came before goes first */
    pthread_mutex_lock(&j->mu);
    batch *b = batch_get(j);
    pthread_mutex_unlock(&j->mu);
    if (b == NULL || (b->rcap == 0 && !grow_recs(b))) {
        if (b != NULL)
            batch_free(b);
        cli_fail(j->cmd, "out of memory");
        return false;
    }
    /* the batch's memory becomes the next buffer, of the same size */
    char *next = b->data;
    size_t ncap = *cap;
    if (b->dcap != ncap)
        next = realloc(next, ncap);
    if (next == NULL) {   /* b->data is still its own */
        batch_free(b);
        cli_fail(j->cmd, "out of memory");
        return false;
    }
    memcpy(next, *buf + whole, len - whole);
    b->data = *buf;
    b->dcap = *cap;
    b->dlen = whole;
    b->rec[0] = (job_rec){ .it = { .alen = whole, .n = { keep } }, .aoff = 0, .kind = REC_LINES };
    b->n = 1;
    *buf = next;
    *cap = ncap;
    j->cur = b;
    submit(j);
    return true;
}

/* Wait until every queued batch is written. */
static void drain(cli_jobs *j)
{
    submit(j);
    pthread_mutex_lock(&j->mu);
    for (;;) {
        write_done(j);
        if (j->head == j->tail)
            break;
        pthread_cond_wait(&j->done, &j->mu);
    }
    pthread_mutex_unlock(&j->mu);
}

void cli_jobs_idle(cli_jobs *j, int fd)
{
    struct pollfd p = { .fd = fd, .events = POLLIN, .revents = 0 };
    if (poll(&p, 1, 0) == 1)
        return; /* more input is there: no wait */
    (void)add_notes(j);
    drain(j);
    cli_out_idle(fd);
}

bool cli_jobs_end(cli_jobs *j)
{
    (void)add_notes(j);
    drain(j);
    cli_out_capture(NULL, NULL);
    if (j->rerr.len > 0) /* told after a stop: still told */
        fwrite(j->rerr.p, 1, j->rerr.len, stderr);
    cli_buf_free(&j->rerr);
    pthread_mutex_lock(&j->mu);
    j->quit = true;
    bool ok = !atomic_load(&j->stopped);
    pthread_cond_broadcast(&j->work);
    pthread_mutex_unlock(&j->mu);
    for (unsigned k = 0; k < j->started; k++)
        pthread_join(j->th[k], NULL);
    while (j->free != NULL) {
        batch *b = j->free;
        j->free = b->next;
        batch_free(b);
    }
    if (j->cur != NULL)
        batch_free(j->cur);
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->work);
    pthread_cond_destroy(&j->done);
    pthread_cond_destroy(&j->pulled);
    free(j->ring);
    free(j->th);
    free(j->wctx);
    free(j);
    return ok;
}

/* ---- the pool (extract's text) ---- */

struct cli_pool {
    pthread_mutex_t mu;
    pthread_cond_t go, idle;
    pthread_t *th;
    unsigned n, started, next_worker, busy;
    void **wctx;
    size_t ntasks, next;     /* tasks of the run, the next to take */
    cli_pool_fn task;
    void *arg;
    cli_buf *out, *err;
    bool quit;
};

static void *pool_worker(void *a)
{
    cli_pool *p = a;
    pthread_mutex_lock(&p->mu);
    void *w = p->wctx[p->next_worker++];
    for (;;) {
        while (!p->quit && p->next >= p->ntasks)
            pthread_cond_wait(&p->go, &p->mu);
        if (p->quit)
            break;
        size_t k = p->next++;
        p->busy++;
        pthread_mutex_unlock(&p->mu);
        cli_out_capture(&p->out[k], &p->err[k]);
        p->task(p->arg, k, w);
        cli_out_capture(NULL, NULL);
        pthread_mutex_lock(&p->mu);
        p->busy--;
        pthread_cond_broadcast(&p->idle);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

cli_pool *cli_pool_start(const char *cmd, unsigned n, void *const *wctx)
{
    cli_pool *p = calloc(1, sizeof *p);
    if (p != NULL) {
        p->th = calloc(n, sizeof *p->th);
        p->wctx = calloc(n, sizeof *p->wctx);
    }
    if (p == NULL || p->th == NULL || p->wctx == NULL) {
        if (p != NULL) {
            free(p->th);
            free(p->wctx);
            free(p);
        }
        cli_fail(cmd, "out of memory");
        return NULL;
    }
    memcpy(p->wctx, wctx, n * sizeof *p->wctx);
    p->n = n;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->idle, NULL);
    for (unsigned k = 0; k < n; k++) {
        int e = pthread_create(&p->th[k], NULL, pool_worker, p);
        if (e != 0) {
            cli_fail(cmd, "cannot start a worker thread: %s", strerror(e));
            cli_pool_end(p);
            return NULL;
        }
        p->started++;
    }
    return p;
}

void cli_pool_run(cli_pool *p, size_t ntasks, cli_pool_fn task, void *arg, cli_buf *out,
                  cli_buf *err)
{
    pthread_mutex_lock(&p->mu);
    p->task = task;
    p->arg = arg;
    p->out = out;
    p->err = err;
    p->next = 0;
    p->ntasks = ntasks;
    pthread_cond_broadcast(&p->go);
    while (p->next < p->ntasks || p->busy > 0)
        pthread_cond_wait(&p->idle, &p->mu);
    p->ntasks = 0;
    p->next = 0;
    pthread_mutex_unlock(&p->mu);
}

void cli_pool_end(cli_pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->quit = true;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (unsigned k = 0; k < p->started; k++)
        pthread_join(p->th[k], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->idle);
    free(p->th);
    free(p->wctx);
    free(p);
}
