/*
 * logformat.c - the URI of a web log line (`check --format`, doc/logs.md).
 *
 *   squid     Squid's native access.log: time elapsed client code/status
 *             bytes method URL ...; fields are separated by runs of
 *             spaces (Squid pads the elapsed time), the URL is field 7.
 *   combined  Apache/nginx combined (and common) format: the URI is the
 *             middle word of the quoted request line "METHOD URI PROTO".
 *   zeek      Zeek http.log (TSV with "#fields" header lines): the uri
 *             column, prefixed with "http://" + the host column when it is
 *             not already absolute; "-" means unset.
 *   field:N   the N-th white-space separated field (awk's $N).
 *
 * A line where the format finds no URI is reported (deny, "bad_log_line"),
 * never skipped; only Zeek's '#' header lines are not records.
 */
#include "cli.h"
#include "logformat.h"
#include "connect_target.h"
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define ZEEK_MAX_FIELDS 4096

bool cli_logfmt_parse(const char *spec, cli_logfmt *out)
{
    out->field = 0;
    out->host = NULL;
    out->scheme = NULL;
    if (strcmp(spec, "squid") == 0) {
        out->kind = LOG_SQUID;
        out->field = 7;
    } else if (strcmp(spec, "zeek") == 0) {
        out->kind = LOG_ZEEK;
    } else if (strcmp(spec, "combined") == 0) {
        out->kind = LOG_COMBINED;
    } else if (strncmp(spec, "field:", 6) == 0) {
        const char *p = spec + 6;
        unsigned long n = 0;
        if (*p == '\0')
            return false;
        for (; *p; p++) {
            if (*p < '0' || *p > '9' || n > 1000000)
                return false;
            n = n * 10 + (unsigned long)(*p - '0');
        }
        if (n == 0 || n > 1000000)
            return false;
        out->kind = LOG_FIELD;
        out->field = (unsigned)n;
    } else {
        return false;
    }
    return true;
}

static bool is_space(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* The n-th (1-based) field separated by runs of spaces/tabs. */
static bool nth_field(const char *s, size_t len, unsigned n, size_t *off, size_t *flen)
{
    size_t i = 0;
    for (unsigned k = 1;; k++) {
        while (i < len && is_space(s[i]))
            i++;
        if (i == len)
            return false;
        size_t start = i;
        while (i < len && !is_space(s[i]))
            i++;
        if (k == n) {
            *off = start;
            *flen = i - start;
            return true;
        }
    }
}

/* The request line's URI: after the first '"' that follows "] " (or the
   first '"' when there is no date), "METHOD URI[ PROTO]"; nginx writes a
   '"' inside as \x22, Apache as \". */
static const char *combined_uri(const char *s, size_t len, size_t *off, size_t *ulen)
{
    const char *rb = memchr(s, ']', len);
    size_t i = rb ? (size_t)(rb - s) + 1 : 0;
    while (i < len && s[i] != '"')
        i++;
    if (i == len)
        return "no quoted request line";
    size_t start = ++i, end = start;
    while (end < len && s[end] != '"') {
        if (s[end] == '\\' && end + 1 < len)
            end++;
        end++;
    }
    if (end == len)
        return "request line without its closing quote";
    /* METHOD */
    size_t j = start;
    while (j < end && s[j] != ' ')
        j++;
    if (j == start || j == end)
        return "request line without a method and a URI";
    size_t u = j + 1, v = u;
    while (v < end && s[v] != ' ')
        v++;
    if (v == u)
        return "request line without a URI";
    *off = u;
    *ulen = v - u;
    return NULL;
}

typedef struct {
    int host, uri;          /* column indexes of "#fields"; -1 unknown */
    char *buf;              /* "http://" + host + uri */
    size_t cap;
    bool header_seen;
} zeek_state;

/* The i-th tab-separated column. */
static bool tab_field(const char *s, size_t len, int idx, size_t *off, size_t *flen)
{
    size_t i = 0;
    for (int k = 0; k < idx; k++) {
        const char *t = memchr(s + i, '\t', len - i);
        if (t == NULL)
            return false;
        i = (size_t)(t - s) + 1;
    }
    const char *t = memchr(s + i, '\t', len - i);
    *off = i;
    *flen = (t ? (size_t)(t - s) : len) - i;
    return true;
}

static void zeek_header(zeek_state *z, const char *s, size_t len)
{
    if (len < 8 || memcmp(s, "#fields\t", 8) != 0)
        return;
    z->header_seen = true;
    z->host = z->uri = -1;
    size_t i = 8;
    for (int k = 0; i <= len && k < ZEEK_MAX_FIELDS; k++) {
        const char *t = memchr(s + i, '\t', len - i);
        size_t e = t ? (size_t)(t - s) : len;
        if (e - i == 4 && memcmp(s + i, "host", 4) == 0)
            z->host = k;
        else if (e - i == 3 && memcmp(s + i, "uri", 3) == 0)
            z->uri = k;
        if (t == NULL)
            break;
        i = e + 1;
    }
}

/* Zeek's "-" (unset) and "(empty)". */
static bool zeek_unset(const char *s, size_t n)
{
    return (n == 1 && s[0] == '-') || (n == 7 && memcmp(s, "(empty)", 7) == 0);
}

/* z->buf := a + b (the URI a log line spells in two pieces). */
static const char *join2(zeek_state *z, const char *a, size_t al, const char *b, size_t bl,
                         const char **uri, size_t *ulen)
{
    if (al + bl > z->cap) {
        char *nb = realloc(z->buf, al + bl);
        if (nb == NULL)
            return "out of memory";
        z->buf = nb;
        z->cap = al + bl;
    }
    memcpy(z->buf, a, al);
    memcpy(z->buf + al, b, bl);
    *uri = z->buf;
    *ulen = al + bl;
    return NULL;
}

static const char *zeek_uri(zeek_state *z, const char *s, size_t len,
                            const char **uri, size_t *ulen)
{
    if (!z->header_seen)
        return "no #fields header before the record";
    if (z->uri < 0)
        return "the #fields header has no uri column";
    size_t uo, ul, ho = 0, hl = 0;
    if (!tab_field(s, len, z->uri, &uo, &ul))
        return "fewer columns than the #fields header";
    if (zeek_unset(s + uo, ul))
        return "the uri column is unset";
    bool have_host = z->host >= 0 && tab_field(s, len, z->host, &ho, &hl) &&
                     !zeek_unset(s + ho, hl);
    /* absolute already (a proxy request) or no host: the column as is */
    bool absolute = memchr(s + uo, ':', ul) != NULL && ul > 0 && s[uo] != '/';
    if (absolute || !have_host) {
        *uri = s + uo;
        *ulen = ul;
        return NULL;
    }
    char host[1024];
    if (hl + 7 > sizeof host)
        return "host column longer than 1016 bytes";
    memcpy(host, "http://", 7);
    memcpy(host + 7, s + ho, hl);
    return join2(z, host, 7 + hl, s + uo, ul, uri, ulen);
}

static long gz_read(void *ctx, char *buf, size_t n)
{
    int got = gzread((gzFile)ctx, buf, (unsigned)n), zerr = Z_OK;
    /* a gzip stream cut short ends with Z_BUF_ERROR, not a clean EOF */
    if (got == 0)
        gzerror((gzFile)ctx, &zerr);
    if (got < 0 || zerr != Z_OK) {
        errno = EIO;
        return -1;
    }
    return got;
}

/* vhost_combined's first field, "%v:%p" (name:port, then a space and
   the client address): the name and port, or false. */
static bool vhost_field(const char *s, size_t len, size_t *nl, const char **port, size_t *pl)
{
    size_t e = 0;
    while (e < len && s[e] != ' ')
        e++;
    const char *colon = NULL;
    for (size_t i = 0; i < e; i++)
        if (s[i] == ':')
            colon = s + i;
    if (colon == NULL || colon == s || e + 1 >= len || (size_t)(s + e - colon) < 2)
        return false;
    for (const char *d = colon + 1; d < s + e; d++)
        if (*d < '0' || *d > '9')
            return false;
    *nl = (size_t)(colon - s);
    *port = colon + 1;
    *pl = (size_t)(s + e - colon - 1);
    return true;
}

/* combined: an origin-form URI u[0..ul) as SCHEME://HOST[:PORT] + u, when
   the line or --host names the host (doc/logs.md); else NULL and u as is. */
static const char *combined_absolute(const cli_logfmt *fmt, zeek_state *z, const char *s,
                                     size_t len, size_t off, size_t ul, cli_logline *L)
{
    size_t nl = 0, pl = 0;
    const char *port = NULL;
    const char *host = fmt->host;
    if (ul == 0 || s[off] != '/' || (ul > 1 && s[off + 1] == '/'))
        return NULL; /* absolute-form, "*", "//x": as written */
    if (host != NULL)
        nl = strlen(host);
    else if (vhost_field(s, len, &nl, &port, &pl))
        host = s;
    else
        return NULL;
    bool tls = pl == 3 && memcmp(port, "443", 3) == 0;
    const char *scheme = fmt->scheme != NULL ? fmt->scheme : tls ? "https" : "http";
    char pre[1100];
    size_t sl = strlen(scheme);
    if (sl + 3 + nl + 1 + pl > sizeof pre)
        return "host longer than 1024 bytes";
    size_t n = 0;
    memcpy(pre, scheme, sl);
    n += sl;
    memcpy(pre + n, "://", 3);
    n += 3;
    memcpy(pre + n, host, nl);
    n += nl;
    bool dflt = port == NULL || (tls && strcmp(scheme, "https") == 0) ||
                (pl == 2 && memcmp(port, "80", 2) == 0 && strcmp(scheme, "http") == 0);
    if (!dflt) {
        pre[n++] = ':';
        memcpy(pre + n, port, pl);
        n += pl;
    }
    return join2(z, pre, n, s + off, ul, &L->uri, &L->uri_len);
}

/* Where the URI of line ln is, by the format: into L (uri, uri_len,
   uri_cut, why). Returns false for a Zeek header line, read into z. */
static bool locate_uri(const cli_logfmt *fmt, zeek_state *z, const cli_line *ln,
                       cli_logline *L)
{
    size_t off = 0, ulen = 0;
    const char *why = NULL;
    switch (fmt->kind) {
    case LOG_ZEEK:
        if (ln->len > 0 && ln->p[0] == '#') {
            zeek_header(z, ln->p, ln->len);
            return false;
        }
        why = ln->truncated ? "line too long for its columns"
                            : zeek_uri(z, ln->p, ln->len, &L->uri, &L->uri_len);
        break;
    case LOG_COMBINED:
        why = combined_uri(ln->p, ln->len, &off, &ulen);
        if (why == NULL)
            why = combined_absolute(fmt, z, ln->p, ln->len, off, ulen, L);
        break;
    case LOG_SQUID:
    case LOG_FIELD:
        if (!nth_field(ln->p, ln->len, fmt->field, &off, &ulen)) {
            why = fmt->kind == LOG_SQUID ? "fewer than 7 fields (not a native access.log line)"
                                         : "fewer fields than asked for";
        } else if (fmt->kind == LOG_SQUID) {
            /* CONNECT host:port: the tunnel, "https://host:port"
               (connect_target.h) */
            size_t mo, ml;
            if (nth_field(ln->p, ln->len, 6, &mo, &ml) && ml == 7 &&
                memcmp(ln->p + mo, "CONNECT", 7) == 0 &&
                cli_connect_target(ln->p + off, ulen, true))
                why = join2(z, CLI_CONNECT_SCHEME, sizeof CLI_CONNECT_SCHEME - 1, ln->p + off,
                            ulen, &L->uri, &L->uri_len);
        }
        break;
    }
    if (why == NULL && L->uri == NULL) {
        L->uri = ln->p + off;
        L->uri_len = ulen;
    }
    if (why == NULL && ln->truncated && L->uri >= ln->p && L->uri + L->uri_len == ln->p + ln->len)
        L->uri_cut = true;
    if (why != NULL && ln->truncated)
        why = "line too long: its URI field is past the kept bytes";
    L->why = why;
    if (why != NULL)
        L->uri = NULL;
    return true;
}

/* One file: 0 ok, -1 read error (printed), 1 output failure. */
static int each_line(const char *cmd, const cli_logfmt *fmt, const char *name, int fd,
                     size_t keep, zeek_state *z, cli_log_fn fn, void *ctx)
{
    /* gzread reads a file that is not gzip as it is (zlib's transparent
       mode), so plain logs and rotated .gz ones take the same path. */
    gzFile gz = gzdopen(fd, "rb");
    if (gz == NULL) {
        cli_fail(cmd, "%s: out of memory", name);
        return -1;
    }
    gzbuffer(gz, CLI_LINES_CHUNK);
    cli_lines lr;
    if (!cli_lines_init(&lr, fd, keep)) {
        gzclose(gz);
        cli_fail(cmd, "out of memory");
        return -1;
    }
    lr.read_fn = gz_read;
    lr.after_read = cli_progress_bytes;
    lr.read_ctx = gz;
    int rc = 0, got;
    cli_line ln;
    while ((got = cli_lines_next(&lr, &ln)) == 1) {
        cli_logline L;
        memset(&L, 0, sizeof L);
        L.file = name;
        L.lineno = ln.lineno;
        L.line = ln.p;
        L.len = ln.len;
        L.full_len = ln.full_len;
        L.truncated = ln.truncated;
        if (!locate_uri(fmt, z, &ln, &L))
            continue;
        if (!fn(ctx, &L)) {
            rc = 1;
            break;
        }
    }
    if (rc == 0 && got < 0) {
        int zerr = 0;
        const char *msg = gzerror(gz, &zerr);
        /* zlib names the stream "<fd:N>: ": the file's name says it better */
        if (strncmp(msg, "<fd:", 4) == 0 && strstr(msg, ">: ") != NULL)
            msg = strstr(msg, ">: ") + 3;
        if (zerr == Z_BUF_ERROR)
            cli_fail(cmd, "%s: the gzip data is cut short (the file ends inside its "
                          "compressed stream: truncated or still being written)", name);
        else
            cli_fail(cmd, "%s: %s", name, zerr != Z_OK && zerr != Z_ERRNO ? msg : strerror(lr.err));
        rc = -1;
    }
    cli_lines_free(&lr);
    gzclose(gz);   /* closes fd */
    return rc;
}

int cli_log_each(const char *cmd, const cli_logfmt *fmt, char **files, int first, int last,
                 size_t keep, cli_log_fn fn, void *ctx)
{
    zeek_state z = { -1, -1, NULL, 0, false };
    int status = CLI_EXIT_OK;
    char *dash[] = { (char *)"-" };
    char **list = first <= last ? files + first : dash;
    int n = first <= last ? last - first + 1 : 1;
    for (int i = 0; i < n; i++) {
        const char *name = list[i];
        int fd = strcmp(name, "-") == 0 ? dup(STDIN_FILENO) : open(name, O_RDONLY);
        if (fd < 0) {
            status = cli_fail(cmd, "%s: %s", name, strerror(errno));
            break;
        }
        z.header_seen = false;
        int rc = each_line(cmd, fmt, name, fd, keep, &z, fn, ctx);
        if (rc != 0) {
            status = rc < 0 ? CLI_EXIT_USAGE
                            : (ferror(stdout) ? CLI_EXIT_USAGE
                                              : cli_fail(cmd, "out of memory for an output line"));
            break;
        }
    }
    free(z.buf);
    return status;
}

void cli_log_json_keys(json_w *w, const cli_logline *ln)
{
    json_kstr(w, "line", ln->line, ln->len);
    json_kuint(w, "lineno", ln->lineno);
}

void cli_log_tsv(cli_buf *b, const urisan_decision *d, const cli_logline *ln)
{
    cli_buf_clear(b);
    cli_buf_adds(b, urisan_verdict_name(d->verdict));
    cli_buf_addc(b, '\t');
    cli_text_reasons(b, d);
    cli_buf_addc(b, '\t');
    cli_buf_add(b, ln->line, ln->len);
}

void cli_log_bad_line(cli_buf *b, const cli_logline *ln, bool json, bool tsv)
{
    if (tsv) {
        cli_buf_clear(b);
        cli_buf_adds(b, "deny\tdenied:invalid\t");
        cli_buf_add(b, ln->line, ln->len);
        return;
    }
    if (!json) {
        cli_buf_clear(b);
        cli_buf_adds(b, "deny denied:invalid (");
        cli_buf_adds(b, ln->why);
        cli_buf_adds(b, ": \"");
        cli_text_escape(b, ln->line, ln->len, true);
        cli_buf_adds(b, "\")");
        return;
    }
    json_w w;
    json_begin(&w, b);
    json_obj_open(&w);
    json_knull(&w, "uri");
    json_kbool(&w, "valid", false);
    json_key(&w, "error");
    json_obj_open(&w);
    json_kcstr(&w, "code", "bad_log_line");
    json_kuint(&w, "offset", 0);
    json_kcstr(&w, "message", ln->why);
    json_obj_close(&w);
    json_knull(&w, "components");
    json_knull(&w, "host_ip");
    for (int k = 0; k < 3; k++) {
        if (k == 1)
            json_kcstr(&w, "verdict", "deny");
        json_key(&w, k == 0 ? "flags" : k == 1 ? "reasons" : "deny_reasons");
        json_arr_open(&w);
        json_cstr(&w, "invalid");
        json_arr_close(&w);
    }
    json_key(&w, "flag_reasons");
    json_arr_open(&w);
    json_arr_close(&w);
    json_kbool(&w, "truncated", ln->truncated);
    json_kuint(&w, "length", 0);
    cli_log_json_keys(&w, ln);
    json_obj_close(&w);
}
