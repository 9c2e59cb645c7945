/*
 * mailbox.c - the messages of an mbox file or a Maildir directory for
 * `urisan extract --mail` (see mailbox.h).
 *
 * mbox (RFC 4155): a message starts at a line beginning "From " (at the
 * start of the file, or after a newline); that line is the envelope, not
 * part of the message. Body lines that began with "From " were escaped
 * by the writer: mboxrd quotes every ">*From " line with one more '>',
 * so one '>' is removed from each such line; mboxo quoted only "From "
 * (so ">From " reads back as "From ", the same as mboxrd; a ">>From "
 * line of an mboxo file, rare, keeps one '>' too many: urisan reads
 * mboxrd). The blank line that ends each message in the file is the
 * separator's, not the message's.
 * Maildir: the files of new/ then cur/, each in name order (tmp/ holds
 * messages still being written).
 */
#include "mailbox.h"
#include "cli.h"

#include <dirent.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

bool mailbox_is_mbox(const char *data, size_t len)
{
    return len >= 5 && memcmp(data, "From ", 5) == 0;
}

bool mailbox_is_maildir(const char *path)
{
    struct stat st;
    char sub[4096];
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return false;
    snprintf(sub, sizeof sub, "%s/cur", path);
    if (stat(sub, &st) != 0 || !S_ISDIR(st.st_mode))
        return false;
    snprintf(sub, sizeof sub, "%s/new", path);
    return stat(sub, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The Message-ID header's value (angle brackets included) into out. */
static void message_id(const char *m, size_t n, char *out, size_t cap)
{
    out[0] = '\0';
    size_t i = 0;
    while (i < n) {
        size_t e = i;
        while (e < n && m[e] != '\n')
            e++;
        size_t l = e - i;
        if (l == 0 || (l == 1 && m[i] == '\r'))
            return; /* end of the header section */
        if (l > 11 && strncasecmp(m + i, "Message-ID:", 11) == 0) {
            size_t a = i + 11;
            while (a < e && (m[a] == ' ' || m[a] == '\t'))
                a++;
            size_t b = e;
            while (b > a && (m[b - 1] == '\r' || m[b - 1] == ' ' || m[b - 1] == '\t'))
                b--;
            size_t k = b - a < cap - 1 ? b - a : cap - 1;
            memcpy(out, m + a, k);
            out[k] = '\0';
            return;
        }
        i = e + 1;
    }
}

static bool deliver(mailbox_fn fn, void *ctx, size_t index, const char *file,
                    const char *m, size_t n)
{
    mailbox_msg msg;
    msg.too_large = 0;
    msg.index = index;
    msg.file = file;
    msg.data = m;
    msg.len = n;
    message_id(m, n, msg.message_id, sizeof msg.message_id);
    return fn(ctx, &msg);
}

/* ---- an mbox read from a stream, a message at a time ---- */

/* The reader's state between windows. A line start is decided on its
   first bytes: ">*From " (one '>' is dropped), "From " (an envelope: the
   message ends), or anything else (the line is the message's as it is). */
typedef struct {
    char *m;            /* the message's kept bytes */
    size_t alloc;       /* bytes of m */
    size_t kept, cap;   /* cap: max + 8, room for a "From " being matched */
    size_t total;       /* its bytes, kept or not */
    size_t max;
    size_t index;
    bool envelope;      /* skipping an envelope line */
    bool bol;           /* deciding a line start */
    size_t gt, k;       /* '>' of the line start, bytes of "From " matched */
    size_t line_kept, line_total; /* kept and total at the line start */
} mbox_rd;

static void rd_add(mbox_rd *r, const char *p, size_t n)
{
    size_t room = r->cap - r->kept;
    size_t c = n < room ? n : room;
    memcpy(r->m + r->kept, p, c);
    r->kept += c;
    r->total += n;
}

/* The message read so far, then a new one. */
static bool rd_deliver(mbox_rd *r, const char *file, mailbox_fn fn, void *ctx)
{
    size_t end = r->kept;
    /* the blank line before the next envelope (or at the end) is the
       separator's */
    if (r->kept == r->total) {
        if (end >= 2 && r->m[end - 1] == '\n' && r->m[end - 2] == '\n')
            end--;
        else if (end >= 3 && r->m[end - 1] == '\n' && r->m[end - 2] == '\r' &&
                 r->m[end - 3] == '\n')
            end -= 2;
    }
    mailbox_msg msg;
    msg.index = ++r->index;
    msg.file = file;
    msg.data = r->m;
    msg.len = end;
    msg.too_large = r->total > r->max ? r->total : 0;
    message_id(r->m, r->kept, msg.message_id, sizeof msg.message_id);
    r->kept = r->total = 0;
    return fn(ctx, &msg);
}

/* A line start p[*i..n) (the state goes on across windows). false: fn stopped. */
static bool rd_line_start(mbox_rd *r, const char *p, size_t n, size_t *i, const char *file,
                          mailbox_fn fn, void *ctx)
{
    static const char from[] = "From ";
    while (*i < n && r->bol) {
        char c = p[*i];
        if (r->k == 0 && c == '>') {
            rd_add(r, p + (*i)++, 1);
            r->gt++;
        } else if (c == from[r->k]) {
            rd_add(r, p + (*i)++, 1);
            if (++r->k < 5)
                continue;
            r->bol = false;
            if (r->gt == 0) { /* an envelope: the message ends before it */
                r->total = r->line_total;
                r->kept = r->line_kept < r->kept ? r->line_kept : r->kept;
                r->envelope = true;
                return rd_deliver(r, file, fn, ctx);
            }
            if (r->kept == r->total) /* ">From ": one '>' fewer */
                memmove(r->m + r->kept - 6, r->m + r->kept - 5, 5);
            r->kept -= r->kept == r->total ? 1 : 0;
            r->total--;
        } else {
            r->bol = false;
        }
    }
    return true;
}

/* The bytes p[0..n) of the file. false: fn stopped. */
static bool rd_window(mbox_rd *r, const char *p, size_t n, const char *file, mailbox_fn fn,
                      void *ctx)
{
    size_t i = 0;
    while (i < n) {
        if (r->bol) {
            if (!rd_line_start(r, p, n, &i, file, fn, ctx))
                return false;
            continue;
        }
        const char *nl = memchr(p + i, '\n', n - i);
        size_t e = nl ? (size_t)(nl - p) + 1 : n;
        if (!r->envelope)
            rd_add(r, p + i, e - i);
        i = e;
        if (nl != NULL) {
            r->envelope = false;
            r->bol = true;
            r->gt = r->k = 0;
            r->line_kept = r->kept;
            r->line_total = r->total;
        }
    }
    return true;
}

/* Memory for the kept bytes of a window of n more: up to r->cap. */
static bool rd_room(mbox_rd *r, size_t n)
{
    size_t need = r->kept + n < r->cap ? r->kept + n : r->cap;
    if (need <= r->alloc)
        return true;
    size_t ncap = r->alloc ? r->alloc : 65536;
    while (ncap < need)
        ncap *= 2;
    if (ncap > r->cap)
        ncap = r->cap;
    char *nm = realloc(r->m, ncap);
    if (nm == NULL)
        return false;
    r->m = nm;
    r->alloc = ncap;
    return true;
}

int mailbox_each_mbox_stream(const char *file, cli_stream *s, size_t max, mailbox_fn fn,
                             void *ctx)
{
    mbox_rd r;
    memset(&r, 0, sizeof r);
    r.max = max;
    r.cap = max + 8;
    r.envelope = true; /* the file starts with one */
    int rc = 1;
    for (;;) {
        if (!rd_room(&r, s->len)) {
            cli_fail("extract", "%s: out of memory", file);
            rc = -1;
            break;
        }
        if (!rd_window(&r, s->buf, s->len, file, fn, ctx)) {
            rc = 0;
            break;
        }
        if (s->eof) {
            rc = rd_deliver(&r, file, fn, ctx) ? 1 : 0;
            break;
        }
        if (cli_stream_fill(s, s->len, 0) < 0) {
            rc = -1;
            break;
        }
    }
    free(r.m);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files of dir, sorted; NULL-terminated, malloc'd. */
static char **list_dir(const char *dir, size_t *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (d == NULL)
        return NULL;
    size_t cap = 64;
    char **v = malloc(cap * sizeof *v);
    struct dirent *e;
    while (v != NULL && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (*n + 1 >= cap) {
            char **nv = realloc(v, 2 * cap * sizeof *v);
            if (nv == NULL)
                break;
            v = nv;
            cap *= 2;
        }
        v[*n] = strdup(e->d_name);
        if (v[*n] != NULL)
            (*n)++;
    }
    closedir(d);
    if (v != NULL)
        qsort(v, *n, sizeof *v, by_name);
    return v;
}

int mailbox_each_maildir(const char *dir, mailbox_read_fn rd, mailbox_fn fn, void *ctx)
{
    static const char *const subs[] = { "new", "cur" };
    size_t index = 0;
    int rc = 0;
    for (size_t s = 0; s < 2 && rc == 0; s++) {
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", dir, subs[s]);
        size_t n = 0;
        char **names = list_dir(sub, &n);
        if (names == NULL)
            return -1;
        for (size_t k = 0; k < n; k++) {
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", sub, names[k]);
            struct stat st;
            if (rc == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                char *data = NULL;
                size_t len = 0;
                index++;
                if (rd(ctx, path, &data, &len)) { /* else told by rd; go on */
                    if (!deliver(fn, ctx, index, path, data, len))
                        rc = -1;
                    free(data);
                }
            }
            free(names[k]);
        }
        free(names);
    }
    return rc;
}
