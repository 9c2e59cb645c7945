/*
 * mailbox.c - the messages of an mbox file or a Maildir directory for
 * `urisan extract --mail` (issue 15; see mailbox.h).
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
    msg.index = index;
    msg.file = file;
    msg.data = m;
    msg.len = n;
    message_id(m, n, msg.message_id, sizeof msg.message_id);
    return fn(ctx, &msg);
}

/* Is data[i..) a line that starts with ">*From "? */
static bool quoted_from(const char *d, size_t i, size_t len)
{
    while (i < len && d[i] == '>')
        i++;
    return len - i >= 5 && memcmp(d + i, "From ", 5) == 0;
}

bool mailbox_each_mbox(const char *file, char *data, size_t len, mailbox_fn fn, void *ctx)
{
    size_t index = 0, i = 0;
    while (i < len) {
        /* i is at a "From " line: skip the envelope line */
        while (i < len && data[i] != '\n')
            i++;
        if (i < len)
            i++;
        /* the message: up to the next line starting "From "; unescaped
           in place (the text only shrinks) */
        size_t start = i, o = i;
        while (i < len) {
            bool bol = true;
            if (len - i >= 5 && memcmp(data + i, "From ", 5) == 0)
                break;
            if (data[i] == '>' && quoted_from(data, i, len))
                i++; /* one '>' fewer */
            while (i < len && bol) {
                char c = data[i++];
                data[o++] = c;
                if (c == '\n')
                    bol = false;
            }
        }
        size_t end = o;
        /* the blank line before the next envelope is the separator's */
        if (i < len || (end > start && data[end - 1] == '\n')) {
            if (end - start >= 2 && data[end - 1] == '\n' && data[end - 2] == '\n')
                end--;
            else if (end - start >= 3 && data[end - 1] == '\n' && data[end - 2] == '\r' &&
                     data[end - 3] == '\n')
                end -= 2;
        }
        index++;
        if (!deliver(fn, ctx, index, file, data + start, end - start))
            return false;
    }
    return true;
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
