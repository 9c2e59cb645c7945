/*
 * fuzz/cli.c - `urisan check` on any bytes of standard input (SPEC 7),
 * driven in-process: the CLI's own cmd_check (src/cli/cmd_check.c, with
 * its line reader src/cli/lines.c and JSON writer src/cli/json.c) runs
 * with file descriptors 0 and 1 pointed at memfds.
 *
 * Invariants:
 *  1. exactly one output line per input line (lines end at LF; a last
 *     line without LF counts; an empty input has none), in --json and in
 *     text mode;
 *  2. every --json line parses back with json-c (strict, UTF-8 checked)
 *     into an object with the keys of SPEC 7 and the right types;
 *  3. each line says what the library says about that input line (a
 *     trailing CR stripped, kept to max_uri + 1 bytes): valid, flags in
 *     bit order, verdict; "uri" is the line itself when it is valid UTF-8;
 *  4. the exit status is 1 when something was denied, else 0.
 */
#define _GNU_SOURCE 1
#include <json-c/json.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_util.h"

/* src/cli/cli.h (not included: its json.h has a json_bool() that clashes
   with json-c's json_bool type). */
int cmd_check(int argc, char **argv);

static int memfd_with(const char *data, size_t n)
{
    int fd = memfd_create("urisan-fuzz", 0);
    if (fd < 0)
        abort();
    size_t o = 0;
    while (o < n) {
        ssize_t w = write(fd, data + o, n - o);
        if (w <= 0)
            abort();
        o += (size_t)w;
    }
    if (lseek(fd, 0, SEEK_SET) != 0)
        abort();
    return fd;
}

static void slurp(int fd, fuzz_str *out)
{
    char buf[65536];
    fs_clear(out);
    fs_add(out, "", 0);
    if (lseek(fd, 0, SEEK_SET) != 0)
        abort();
    for (;;) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r < 0)
            abort();
        if (r == 0)
            break;
        fs_add(out, buf, (size_t)r);
    }
}

/* Run `urisan check [--json]` with stdin = data; output into *out. */
static int run_check(const char *data, size_t n, int json, fuzz_str *out)
{
    int in_fd = memfd_with(data, n);
    int out_fd = memfd_create("urisan-fuzz-out", 0);
    if (out_fd < 0)
        abort();
    fflush(stdout);
    clearerr(stdout);
    int saved_in = dup(0), saved_out = dup(1);
    if (saved_in < 0 || saved_out < 0 || dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0)
        abort();
    char a0[] = "check", a1[] = "--json";
    char *argv[] = {a0, json ? a1 : NULL, NULL};
    int rc = cmd_check(json ? 2 : 1, argv);
    fflush(stdout);
    if (dup2(saved_out, 1) < 0 || dup2(saved_in, 0) < 0)
        abort();
    close(saved_in);
    close(saved_out);
    close(in_fd);
    slurp(out_fd, out);
    close(out_fd);
    return rc;
}

/* RFC 3629 well-formed UTF-8. */
static int valid_utf8(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t k;
        unsigned min;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            k = 1;
            min = 0x80;
        } else if (c >= 0xe0 && c <= 0xef) {
            k = 2;
            min = 0x800;
        } else if (c >= 0xf0 && c <= 0xf4) {
            k = 3;
            min = 0x10000;
        } else {
            return 0;
        }
        if (i + k >= n)
            return 0;
        unsigned v = c & (0x3f >> k);
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xc0) != 0x80)
                return 0;
            v = (v << 6) | (s[i + j] & 0x3f);
        }
        if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
            return 0;
        i += k + 1;
    }
    return 1;
}

static json_object *get(json_object *o, const char *key, json_type t, int nullable, size_t line)
{
    json_object *v = NULL;
    FUZZ_ASSERT(json_object_object_get_ex(o, key, &v), "line %zu: key \"%s\" missing", line, key);
    if (v == NULL) {
        FUZZ_ASSERT(nullable, "line %zu: \"%s\" is null", line, key);
        return NULL;
    }
    FUZZ_ASSERT(json_object_is_type(v, t), "line %zu: \"%s\" has type %s", line, key,
                json_type_to_name(json_object_get_type(v)));
    return v;
}

static void check_json_line(const char *ol, size_t on, const char *il, size_t in_len, size_t lineno,
                            int *denied)
{
    json_tokener *tok = json_tokener_new();
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    json_object *o = json_tokener_parse_ex(tok, ol, (int)on);
    enum json_tokener_error je = json_tokener_get_error(tok);
    FUZZ_ASSERT(o != NULL && je == json_tokener_success && (size_t)json_tokener_get_parse_end(tok) == on,
                "output line %zu is not one JSON value: %s", lineno, json_tokener_error_desc(je));
    json_tokener_free(tok);
    FUZZ_ASSERT(json_object_is_type(o, json_type_object), "line %zu is not a JSON object", lineno);

    /* what the library says about this input line */
    size_t keep = in_len > 8193 ? 8193 : in_len;
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    char *copy = fuzz_dup_part(il, keep);
    urisan_check(copy, keep, NULL, &u, &r, &d);

    json_object *uri = get(o, "uri", json_type_string, 1, lineno);
    if (uri != NULL && keep == in_len && valid_utf8((const unsigned char *)il, in_len)) {
        size_t n = (size_t)json_object_get_string_len(uri);
        FUZZ_ASSERT(n == in_len && memcmp(json_object_get_string(uri), il, n) == 0,
                    "line %zu: \"uri\" is not the input line", lineno);
    }
    json_object *valid = get(o, "valid", json_type_boolean, 0, lineno);
    FUZZ_ASSERT(json_object_get_boolean(valid) == (u.valid != 0), "line %zu: valid differs", lineno);
    json_object *err = get(o, "error", json_type_object, 1, lineno);
    FUZZ_ASSERT((err == NULL) == (u.valid != 0), "line %zu: error must be null exactly when valid",
                lineno);
    if (err != NULL) {
        json_object *code = get(err, "code", json_type_string, 0, lineno);
        FUZZ_ASSERT(strcmp(json_object_get_string(code), urisan_status_name(u.error.code)) == 0,
                    "line %zu: error code %s, library %s", lineno, json_object_get_string(code),
                    urisan_status_name(u.error.code));
        get(err, "offset", json_type_int, 0, lineno);
        get(err, "message", json_type_string, 0, lineno);
    }
    json_object *comp = get(o, "components", json_type_object, 1, lineno);
    if (comp != NULL) {
        static const char *keys[] = {"scheme", "userinfo", "host", "host_type",
                                     "port",   "path",     "query", "fragment"};
        for (size_t i = 0; i < 8; i++)
            get(comp, keys[i], json_type_string, 1, lineno);
    }
    get(o, "host_ip", json_type_string, 1, lineno);
    json_object *flags = get(o, "flags", json_type_array, 0, lineno);
    size_t k = 0, nf = json_object_array_length(flags);
    for (unsigned b = 0; b < 64; b++) {
        if (!((r.flags >> b) & 1u))
            continue;
        FUZZ_ASSERT(k < nf, "line %zu: flag %s missing", lineno, urisan_flag_name((urisan_flag)b));
        json_object *f = json_object_array_get_idx(flags, k++);
        FUZZ_ASSERT(json_object_is_type(f, json_type_string) &&
                        strcmp(json_object_get_string(f), urisan_flag_name((urisan_flag)b)) == 0,
                    "line %zu: flag %zu is not %s", lineno, k - 1, urisan_flag_name((urisan_flag)b));
    }
    FUZZ_ASSERT(k == nf, "line %zu: %zu flags, the library has %zu", lineno, nf, k);
    json_object *verdict = get(o, "verdict", json_type_string, 0, lineno);
    FUZZ_ASSERT(strcmp(json_object_get_string(verdict), urisan_verdict_name(d.verdict)) == 0,
                "line %zu: verdict %s, the library says %s", lineno, json_object_get_string(verdict),
                urisan_verdict_name(d.verdict));
    get(o, "reasons", json_type_array, 0, lineno);
    if (d.verdict == URISAN_DENY)
        *denied = 1;
    free(copy);
    json_object_put(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = fuzz_dup(data, size);
    /* the input lines */
    size_t nlines = 0;
    for (size_t i = 0; i < size; i++)
        nlines += in[i] == '\n';
    if (size > 0 && in[size - 1] != '\n')
        nlines++;

    fuzz_str out = {0};
    int rc = run_check(in, size, 1, &out);
    size_t got = 0;
    for (size_t i = 0; i < out.len; i++)
        got += out.p[i] == '\n';
    FUZZ_ASSERT(got == nlines && (out.len == 0 || out.p[out.len - 1] == '\n'),
                "--json: %zu input lines, %zu output lines", nlines, got);

    size_t ip = 0, op = 0, lineno = 0;
    int denied = 0;
    while (ip < size) {
        const char *nl = (const char *)memchr(in + ip, '\n', size - ip);
        size_t ie = nl ? (size_t)(nl - in) : size;
        size_t il = ie - ip;
        if (nl != NULL && il > 0 && in[ie - 1] == '\r')
            il--; /* SPEC 7: a trailing CR of a CRLF ending is stripped */
        const char *onl = (const char *)memchr(out.p + op, '\n', out.len - op);
        size_t oe = (size_t)(onl - out.p);
        lineno++;
        check_json_line(out.p + op, oe - op, in + ip, il, lineno, &denied);
        ip = nl ? ie + 1 : size;
        op = oe + 1;
    }
    FUZZ_ASSERT(rc == (denied ? 1 : 0), "--json: exit status %d, something denied: %d", rc, denied);

    rc = run_check(in, size, 0, &out);
    got = 0;
    for (size_t i = 0; i < out.len; i++)
        got += out.p[i] == '\n';
    FUZZ_ASSERT(got == nlines, "text mode: %zu input lines, %zu output lines", nlines, got);
    FUZZ_ASSERT(rc == (denied ? 1 : 0), "text mode: exit status %d", rc);
    fs_free(&out);
    fuzz_done(in);
    return 0;
}
