/* fields.c - a subcommand's JSON line from its field table (see fields.h). */
#include "fields.h"
#include "cli.h"
#include "out.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The bytes of runs already written (cli_field.run_key), per thread
   (serve and milter write from several), direct-mapped, no lock, no
   allocation; a run longer than RUN_TEXT is written each time. check's
   flags and decision: 18.6% of check --json's instructions (doc/bench.md
   "Every cache"). */
#define RUN_SLOTS 64
#define RUN_TEXT 448
typedef struct {
    const cli_field *f;            /* the run's first field */
    uint64_t key[CLI_RUN_KEY];
    uint16_t len;                  /* 0: empty */
    char text[RUN_TEXT];
} run_slot;
static _Thread_local run_slot run_memo[RUN_SLOTS];

/* Are the kept runs turned off for urisan-bench, which measures what
   they save (URISAN_BENCH_CACHES_OFF holds "runs"; doc/bench.md "Every
   cache")? The bytes written are the same either way. */
static bool runs_off(void)
{
#ifndef URISAN_BENCH_SWITCHES
    return false;
#else
    /* ",memo,runs," holds ",runs,": the list with a comma either side */
    static _Thread_local char list[128];
    if (list[0] == '\0') {
        const char *v = getenv("URISAN_BENCH_CACHES_OFF");
        snprintf(list, sizeof list, ",%s,", v != NULL ? v : "");
    }
    return strstr(list, ",runs,") != NULL;
#endif
}

static const cli_field *find(const cli_field *table, size_t n, const char *name, size_t len)
{
    for (size_t i = 0; i < n; i++) {
        if (strlen(table[i].name) == len && memcmp(table[i].name, name, len) == 0)
            return &table[i];
    }
    return NULL;
}

static bool reads_decision_only(const cli_field *f)
{
    const urisan_result_key *k = f->arg;
    return f->put_arg != NULL && k != NULL && f->present == NULL && k->reads != 0 &&
           (k->reads & ~(unsigned)(URISAN_RR_FLAGS | URISAN_RR_DECISION)) == 0;
}

void cli_fields_decision_runs(cli_field *table, size_t n,
                              void (*run_key)(const void *row, uint64_t key[CLI_RUN_KEY]))
{
    for (size_t i = 0; i < n; i++) {
        size_t len = 0;
        while (i + len < n && reads_decision_only(&table[i + len]))
            len++;
        if (len > 1) {
            table[i].run_len = (unsigned)(len - 1);
            table[i].run_key = run_key;
            i += len - 1;
        }
    }
}

void cli_fields_names(cli_buf *b, const cli_field *table, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            cli_buf_lit(b, ", ");
        cli_buf_adds(b, table[i].name);
    }
}

/* Keeps f and its key ,"name": (written with its comma, see write_line). */
static int add(cli_fieldset *out, const cli_field *f)
{
    if (out->n == CLI_FIELDS_MAX)
        return -1;
    out->f[out->n] = f;
    size_t k = strlen(f->name);
    char *key = out->key[out->n];
    /* all of it set: cli_fields_key copies CLI_FIELD_KEY_MAX bytes */
    memset(key, 0, CLI_FIELD_KEY_MAX);
    out->klen[out->n] = 0;
    if (k + 4 <= CLI_FIELD_KEY_MAX) {
        key[0] = ',';
        key[1] = '"';
        memcpy(key + 2, f->name, k);
        key[k + 2] = '"';
        key[k + 3] = ':';
        out->klen[out->n] = (unsigned char)(k + 4);
    }
    out->n++;
    return 0;
}

static int bad_name(const char *cmd, const cli_field *table, size_t n,
                    const char *what, const char *name, size_t len)
{
    cli_buf names;
    cli_buf_init(&names, 4096);
    cli_fields_names(&names, table, n);
    cli_buf_addc(&names, '\0');
    int rc = cli_usage_error(cmd, "--fields: %s '%.*s' (fields: %s)", what,
                             (int)(len > 200 ? 200 : len), name,
                             names.failed ? "?" : names.p);
    cli_buf_free(&names);
    return rc;
}

/* out->run: the runs whose fields all follow one another here, as in
   their table; out->same_present, out->keys_short. */
static void mark_runs(cli_fieldset *out)
{
    out->keys_short = true;
    for (size_t i = 0; i < out->n; i++) {
        size_t k = 0;
        while (out->f[i]->present != NULL && i + k + 1 < out->n && k < 255 &&
               out->f[i + k + 1]->present == out->f[i]->present)
            k++;
        out->same_present[i] = (unsigned char)k;
        out->keys_short = out->keys_short && out->klen[i] != 0;
    }
    for (size_t i = 0; i < out->n; i++) {
        const cli_field *f = out->f[i];
        size_t len = f->run_len;
        /* a run written by run_put alone keeps nothing: on with runs_off */
        bool whole = len != 0 && (f->run_key != NULL ? !runs_off() : f->run_put != NULL) &&
                     len < 256 && len < out->n - i;
        for (size_t k = 0; whole && k <= len; k++)
            whole = out->f[i + k] == f + k && out->f[i + k]->present == NULL;
        out->run[i] = whole ? (unsigned char)len : 0;
    }
}

static int select_fields(const char *cmd, const cli_field *table, size_t n,
                         unsigned mode, const char *list, cli_fieldset *out)
{
    out->n = 0;
    if (list == NULL) {
        for (size_t i = 0; i < n; i++) {
            if (!table[i].extra && (table[i].when & mode) == table[i].when)
                (void)add(out, &table[i]);
        }
        return 0;
    }
    const char *p = list;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0)
            return cli_usage_error(cmd, "--fields: empty field name in '%s'", list);
        const cli_field *f = find(table, n, p, len);
        if (f == NULL)
            return bad_name(cmd, table, n, "unknown field", p, len);
        for (size_t k = 0; k < out->n; k++) {
            if (out->f[k] == f)
                return cli_usage_error(cmd, "--fields: field '%s' given twice", f->name);
        }
        if ((f->when & mode) != f->when)
            return cli_usage_error(cmd, "--fields: field '%s' needs %s", f->name,
                                   f->needs ? f->needs : "another option");
        if (add(out, f) != 0)
            return cli_usage_error(cmd, "--fields: too many fields");
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    return 0;
}

int cli_fields_select(const char *cmd, const cli_field *table, size_t n,
                      unsigned mode, const char *list, cli_fieldset *out)
{
    int rc = select_fields(cmd, table, n, mode, list, out);
    if (rc == 0)
        mark_runs(out);
    return rc;
}

/* cli_fields_key when the buffer must grow or the key is long. */
void cli_fields_key_slow(cli_buf *b, const cli_fieldset *fs, size_t i)
{
    if (fs->klen[i] != 0) {
        cli_buf_add(b, fs->key[i], fs->klen[i]);
    } else {
        cli_buf_lit(b, ",\"");
        cli_buf_adds(b, fs->f[i]->name);
        cli_buf_lit(b, "\":");
    }
}

static size_t run_index(const cli_field *f, const uint64_t key[CLI_RUN_KEY])
{
    uint64_t h = (uint64_t)(uintptr_t)f;
    for (size_t i = 0; i < CLI_RUN_KEY; i++)
        h = (h ^ key[i]) * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 58) & (RUN_SLOTS - 1);
}

static inline bool same_key(const uint64_t a[CLI_RUN_KEY], const uint64_t b[CLI_RUN_KEY])
{
    uint64_t d = 0;
    for (size_t i = 0; i < CLI_RUN_KEY; i++)
        d |= a[i] ^ b[i];
    return d == 0;
}

/* The run that starts at field i: its fields one by one. */
static void put_fields(cli_buf *b, const cli_fieldset *fs, size_t i, const void *row)
{
    for (size_t k = i; k <= i + fs->run[i]; k++) {
        cli_fields_key(b, fs, k);
        cli_field_value(b, fs->f[k], row);
    }
}

#ifdef URISAN_CHECK_CACHES
/* The bytes at [at, b->len) are those the run's fields write one by one
   (a debug build checks every line: run_put's, and a kept run's, whose
   key would then miss an input the run reads). */
static void check_run(cli_buf *b, const cli_fieldset *fs, size_t i, const void *row, size_t at)
{
    size_t end = b->len, n = end - at;
    if (b->failed)
        return;
    put_fields(b, fs, i, row);
    if (!b->failed && (b->len - end != n || memcmp(b->p + at, b->p + end, n) != 0)) {
        fprintf(stderr, "urisan: fields.c: the run of '%s' is not what its fields write\n",
                fs->f[i]->name);
        abort();
    }
    cli_buf_rewind(b, end);   /* the second copy (failed only for lack of room) */
}
#endif

/* The run that starts at field i: by its run_put, or its fields one by
   one when there is none or it declines. */
static inline void put_run(cli_buf *b, const cli_fieldset *fs, size_t i, const void *row)
{
    const cli_field *f = fs->f[i];
#ifdef URISAN_CHECK_CACHES
    size_t at = b->len;
    if (f->run_put != NULL && f->run_put(b, row, fs, i)) {
        check_run(b, fs, i, row, at);
        return;
    }
#else
    if (f->run_put != NULL && f->run_put(b, row, fs, i))
        return;
#endif
    put_fields(b, fs, i, row);
}

/* The run that starts at field i (fs->run[i] != 0): its kept bytes, or
   its fields one by one, kept for the next row with the same key. */
static void write_run(cli_buf *b, const cli_fieldset *fs, size_t i, const void *row)
{
    const cli_field *f = fs->f[i];
    uint64_t key[CLI_RUN_KEY];
    f->run_key(row, key);
    run_slot *m = &run_memo[run_index(f, key)];
    if (m->len != 0 && m->f == f && same_key(m->key, key)) {
#ifdef URISAN_CHECK_CACHES
        size_t at = b->len;
        cli_buf_add(b, m->text, m->len);
        check_run(b, fs, i, row, at);
#else
        cli_buf_add(b, m->text, m->len);
#endif
        return;
    }
    size_t start = b->len;
    put_run(b, fs, i, row);
    size_t n = b->len - start;
    if (b->failed || n == 0 || n > RUN_TEXT)
        return;
    m->f = f;
    memcpy(m->key, key, sizeof key);
    memcpy(m->text, b->p + start, n);
    m->len = (uint16_t)n;
}

/* The line, or (fallback) the fallback line, into b. Every key is written
   with its comma; the first key's comma, at start, becomes the '{'. */
static void write_line(cli_buf *b, const cli_fieldset *fs, const void *row, bool fallback)
{
    size_t start = b->len;
    if (!fallback) {
        for (size_t i = 0; i < fs->n; i++) {
            const cli_field *f = fs->f[i];
            if (fs->run[i] != 0) {
                if (f->run_key != NULL)
                    write_run(b, fs, i, row);
                else
                    put_run(b, fs, i, row);
                i += fs->run[i];
                continue;
            }
            if (f->present != NULL && !f->present(row)) {
                i += fs->same_present[i];   /* absent too */
                continue;
            }
            cli_fields_key(b, fs, i);
            cli_field_value(b, f, row);
        }
    } else {
        for (size_t i = 0; i < fs->n; i++) {
            const cli_field *f = fs->f[i];
            if (f->fb == CLI_FB_OMIT)
                continue;
            cli_fields_key(b, fs, i);
            if (f->fb == CLI_FB_TEXT)
                cli_buf_adds(b, f->fb_text);
            else if (f->fb == CLI_FB_FN)
                f->fb_put(b, row);
            else
                cli_field_value(b, f, row);
        }
    }
    if (b->failed)
        return;   /* the line is dropped */
    if (b->len == start)
        cli_buf_addc(b, '{');
    else
        b->p[start] = '{';
    cli_buf_addc(b, '}');
}

void cli_fb_nospace(cli_buf *b, const void *row)
{
    (void)row;
    urisan_error e = { URISAN_E_NOSPACE, 0, 0 };
    cli_jv_error(b, &e);
}

cli_line_result cli_fields_line(const cli_fieldset *fs, const void *row)
{
    cli_buf *b = cli_out_begin();
    write_line(b, fs, row, false);
    if (!b->failed)
        return cli_out_end() ? CLI_LINE_OK : CLI_LINE_FAILED;
    /* Too large for one line (CLI_JSON_MAX) or out of memory: still one
       line for this input, never a silent gap. */
    cli_out_rewind();
    write_line(b, fs, row, true);
    return cli_out_end() ? CLI_LINE_FALLBACK : CLI_LINE_FAILED;
}
