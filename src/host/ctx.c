/*
 * ctx.c - a context of liburisan-host (urisan_host.h): the memo of views
 * (memo.c) and the view of the last host; the view of a
 * URI's host through them; the guess of the next line's host
 * (urisan_host_prefetch).
 */
#include "host_internal.h"
#include "memo.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#if defined(__SSE2__) && !defined(URISAN_NO_SIMD)
#include <emmintrin.h>
#define HOST_SSE2 1
#endif

/* A context with the memo of with (a sharing context), a new shared one
   (share, with NULL) or its own (!share). */
static urisan_host_ctx *ctx_new(bool share, urisan_host_ctx *with)
{
    urisan_host_init();
    _Static_assert(sizeof(urisan_host_ctx) % 64 == 0, "a context is whole cache lines");
    urisan_host_ctx *ctx = aligned_alloc(64, sizeof *ctx);
    if (ctx == NULL)
        return NULL;
    memset(ctx, 0, sizeof *ctx);
    if (share) {
        ctx->share = with != NULL ? hostmemo_share_ref(with->share) : hostmemo_share_new();
        if (ctx->share != NULL)
            ctx->memo = (hm_table *)(uintptr_t)hostmemo_share_table(ctx->share);
    } else {
        ctx->memo = hostmemo_new(&ctx->memo_mem);
    }
    if (ctx->memo == NULL) {
        urisan_host_ctx_free(ctx);
        return NULL;
    }
    ctx->last.klen = SIZE_MAX;
    ctx->off = host_caches_off();
    return ctx;
}

URISAN_API urisan_host_ctx *urisan_host_ctx_new(void)
{
    return ctx_new(false, NULL);
}

URISAN_API urisan_host_ctx *urisan_host_ctx_new_sharing(urisan_host_ctx *with)
{
    if (with != NULL && with->share == NULL)
        return NULL;   /* its memo is its thread's alone */
    return ctx_new(true, with);
}

URISAN_API void urisan_host_ctx_free(urisan_host_ctx *ctx)
{
    if (ctx == NULL)
        return;
    if (ctx->share != NULL)
        hostmemo_share_unref(ctx->share);
    else
        hostmemo_free(ctx->memo_mem);
    free(ctx->protect);   /* protect.c's list: one malloc'd block */
    free(ctx);
}

static pthread_key_t thread_key;
static bool thread_key_ok;
static pthread_once_t thread_once = PTHREAD_ONCE_INIT;
static _Thread_local urisan_host_ctx *thread_ctx;

static void free_thread_ctx(void *ctx)
{
    urisan_host_ctx_free(ctx);
}

static void make_thread_key(void)
{
    thread_key_ok = pthread_key_create(&thread_key, free_thread_ctx) == 0;
}

URISAN_API urisan_host_ctx *urisan_host_ctx_thread(void)
{
    if (thread_ctx != NULL)
        return thread_ctx;
    pthread_once(&thread_once, make_thread_key);
    if (!thread_key_ok)
        return NULL;
    urisan_host_ctx *ctx = urisan_host_ctx_new();
    if (ctx == NULL)
        return NULL;
    if (pthread_setspecific(thread_key, ctx) != 0) {
        urisan_host_ctx_free(ctx);
        return NULL;
    }
    thread_ctx = ctx;
    return ctx;
}

/* The shortcuts, and the view kept for the same bytes (memo.h): in the
   memo shared with other threads' contexts, or in the context's own.
   urisan_host_view's body, inlined in host_view_last (a line's host). */
static inline bool memo_view(urisan_host_ctx *ctx, const char *host, size_t len,
                             urisan_hostview *hv)
{
    if (len > HOSTMEMO_KEY_MAX || (ctx->off & HOST_OFF_MEMO))
        return host_view_compute(host, len, hv, true);
    uint32_t h = host == ctx->ahead[0].host && len == ctx->ahead[0].len ? ctx->ahead[0].hash
               : host == ctx->ahead[1].host && len == ctx->ahead[1].len ? ctx->ahead[1].hash
               : hostmemo_hash(host, len);
    hm_share *sh = ctx->share;
    if (sh != NULL ? hostmemo_get_shared(sh, host, len, h, hv)
                   : hostmemo_get(ctx->memo, host, len, h, hv)) {
        hv->imitation_of = 0;   /* a policy's, judged by protect.c */
        hv->imitation = 0;
        return hv->is_name;
    }
    bool name = host_view_compute(host, len, hv, true);
    if (sh != NULL)
        hostmemo_put_shared(sh, host, len, h, hv);
    else
        hostmemo_put(ctx->memo, host, len, h, hv);
    return name;
}

URISAN_API bool urisan_host_view(urisan_host_ctx *ctx, const char *host, size_t len,
                                 urisan_hostview *hv)
{
    return memo_view(ctx, host, len, hv);
}

bool host_of_uri(const char *uri, size_t len, const urisan_uri *u, const char **host,
                 size_t *hlen)
{
    *host = "";
    *hlen = 0;
    if (urisan_span_present(u->host) && u->host.len > 0) {
        if (uri[u->host.off] == '[')
            return false;
        *host = uri + u->host.off;
        *hlen = u->host.len;
        return true;
    }
    urisan_span d;
    size_t at = 0;
    if (urisan_mailto_domain(uri, len, u, &at, &d)) {
        *host = uri + d.off;
        *hlen = d.len;
        return true;
    }
    return false;
}

URISAN_API bool urisan_host_view_uri(urisan_host_ctx *ctx, const char *uri, size_t len,
                                     urisan_hostview *hv)
{
    urisan_uri u;
    urisan_parse(uri, len, NULL, &u, NULL);
    const char *host;
    size_t hl;
    bool some = host_of_uri(uri, len, &u, &host, &hl);
    bool name = urisan_host_view(ctx, host, hl, hv);
    return some && name;
}

bool host_view_last(urisan_host_ctx *ctx, const char *uri, size_t len, const urisan_uri *u)
{
    host_last *hl = &ctx->last;
    const char *host;
    size_t n;
    bool some = host_of_uri(uri, len, u, &host, &n);
    /* the key is whole or none: the compare reads key[0..klen) alone */
    assert(hl->klen == SIZE_MAX || hl->klen <= HOST_LAST_KEY);
    /* The same bytes give the same view: the one kept from the line
       before, unless a policy judged it since (imitation_of: protect.c
       writes the imitated name into it; the memo's view then, or computed
       again). With `last` off
       (URISAN_BENCH_CACHES_OFF) the memo is asked; with `memo` off every
       view is computed. */
    bool same = n == hl->klen && hostmemo_same(host, hl->key, n) && hl->hv.imitation_of == 0;
    if (same && !(ctx->off & (HOST_OFF_MEMO | HOST_OFF_LAST)))
        return hl->hv.is_name && some;   /* the view of these bytes already */
    bool name = memo_view(ctx, host, n, &hl->hv) && some;
    if (same)
        return name;
    hl->klen = n;
    if (n <= HOST_LAST_KEY)
        memcpy(hl->key, host, n);
    else
        hl->klen = SIZE_MAX;
    return name;
}

/* ---- the next line's host, guessed ---- */

/* The host of an authority a[0..n) (16 <= n) that ends within its first
   32 bytes: after the last '@' before its first '/', '?' or '#', before a
   ':' after that; NULL when it ends later (or past n). */
static const char *guess_host_scalar(const char *a, size_t n, size_t *hn)
{
    size_t lim = n >= 32 ? 32 : 16, start = 0, stop = lim;
    for (size_t i = 0; i < lim && stop == lim; i++) {
        if (a[i] == '/' || a[i] == '?' || a[i] == '#')
            stop = i;
        else if (a[i] == '@')
            start = i + 1;
    }
    if (stop == lim)
        return NULL;
    size_t end = stop;
    for (size_t i = start; i < stop; i++)
        if (a[i] == ':') {
            end = i;
            break;
        }
    *hn = end - start;
    return a + start;
}

#ifdef HOST_SSE2
/* Bit i set where s[i] == c, for 16 bytes. */
static inline uint64_t bytes_eq(__m128i v, char c)
{
    return (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c)));
}

/* guess_host_scalar in two 16-byte steps. */
static const char *guess_host(const char *a, size_t n, size_t *hn)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)a);
    uint64_t stop = bytes_eq(v, '/') | bytes_eq(v, '?') | bytes_eq(v, '#');
    uint64_t at = bytes_eq(v, '@'), colon = bytes_eq(v, ':');
    if (stop == 0 && n >= 32) {
        __m128i w = _mm_loadu_si128((const __m128i *)(const void *)(a + 16));
        stop = (bytes_eq(w, '/') | bytes_eq(w, '?') | bytes_eq(w, '#')) << 16;
        at |= bytes_eq(w, '@') << 16;
        colon |= bytes_eq(w, ':') << 16;
    }
    if (stop == 0)
        return NULL;
    uint64_t before = (stop & -stop) - 1;
    at &= before;
    unsigned start = at != 0 ? 64 - (unsigned)__builtin_clzll(at) : 0;
    colon &= before & ~((UINT64_C(1) << start) - 1);
    *hn = (size_t)__builtin_ctzll(colon != 0 ? colon : stop) - start;
    return a + start;
}
#else
#define guess_host guess_host_scalar
#endif

/* The first ':' of uri[0..16), or 16. */
static size_t first_colon16(const char *uri)
{
#ifdef HOST_SSE2
    uint64_t m = bytes_eq(_mm_loadu_si128((const __m128i *)(const void *)uri), ':');
    return m != 0 ? (size_t)__builtin_ctzll(m) : 16;
#else
    const char *c = memchr(uri, ':', 16);
    return c != NULL ? (size_t)(c - uri) : 16;
#endif
}

static const char *guess_uri_host(const char *uri, size_t len, size_t *n, bool simd)
{
    if (len < 16)
        return NULL;
    size_t c;
    if (simd) {
        c = first_colon16(uri);
    } else {
        const char *p = memchr(uri, ':', 16);
        c = p != NULL ? (size_t)(p - uri) : 16;
    }
    if (c == 16)
        c = len;
    if (c + 19 > len || uri[c + 1] != '/' || uri[c + 2] != '/')
        return NULL;
    const char *h = simd ? guess_host(uri + c + 3, len - c - 3, n)
                         : guess_host_scalar(uri + c + 3, len - c - 3, n);
    if (h == NULL || *n == 0 || *n > HOSTMEMO_KEY_MAX || *h == '[')
        return NULL;
    return h;
}

const char *host_guess(const char *uri, size_t len, size_t *n)
{
    return guess_uri_host(uri, len, n, true);
}

const char *host_guess_scalar(const char *uri, size_t len, size_t *n)
{
    return guess_uri_host(uri, len, n, false);
}

URISAN_API void urisan_host_prefetch(urisan_host_ctx *ctx, const char *p, size_t n)
{
    size_t hn;
    const char *h = ctx != NULL ? host_guess(p, n < 64 ? n : 64, &hn) : NULL;
    if (h == NULL)
        return;
    uint32_t hash = hostmemo_hash(h, hn);
    unsigned k = ctx->ahead_next;
    ctx->ahead[k].host = h;
    ctx->ahead[k].len = hn;
    ctx->ahead[k].hash = hash;
    ctx->ahead_next = k ^ 1;
    if (ctx->share != NULL)
        hostmemo_prefetch_shared(ctx->share, hash);
    else
        hostmemo_prefetch(ctx->memo, hash);
}
