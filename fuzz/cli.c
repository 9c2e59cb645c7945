/*
 * fuzz/cli.c - the line-reading commands on any bytes of standard input
 * (urisan(1), INPUT), driven in-process: the CLI's own cmd_check,
 * cmd_normalize and cmd_resolve (src/cli/cmd_*.c, with the line reader
 * src/cli/lines.c and the JSON writer src/cli/json.c) run with file
 * descriptors 0 and 1 pointed at memfds.
 *
 * and `urisan squid-acl` (src/cli/cmd_squid.c), the Squid helper.
 *
 * Invariants, for `check`, `normalize` and `resolve BASE` (the base of
 * RFC 3986 5.4; --above-root and --non-strict chosen by the input size):
 *  1. exactly one output line per input line (lines end at LF; a last
 *     line without LF counts; an empty input has none), in --json and in
 *     text mode;
 *  2. every --json line parses back with json-c (strict, UTF-8 checked)
 *     into an object with the keys of urisan(1) JSON OUTPUT and the right
 *     types;
 *  3. each line says what the library says about that input line (a
 *     trailing CR stripped, kept to max_uri + 1 bytes): check: valid,
 *     flags in bit order, verdict; normalize and resolve: the result or
 *     the error code; the input is echoed back when it is valid UTF-8;
 *  4. the exit status is 1 when something was denied (check) or failed
 *     (normalize, resolve), else 0;
 *  5. check --json: "nested" and "nested_capped" exactly on lines with
 *     nested_url, at most 16 entries of the right shape in the library's
 *     order, capped exactly when the library finds more.
 *  6. check --json, and --fields lists that cut, reorder and mix the
 *     host view's keys and valid/error (with --base or not): each of the
 *     first 64 lines is written as that line alone is on a fresh thread
 *     (no state of one line leaks into the next: the kept host
 *     view and runs; a kept answer equals one made afresh).
 *  7. check --jobs N (N 2..4, batches of 1..5 lines: URISAN_JOBS_BATCH)
 *     writes what check writes, byte for byte, with the same exit status,
 *     in --json, in text mode and with a --fields list of the host view.
 * For `squid-acl`: exactly one reply line per request line; each reply
 * is "[channel-ID SP] OK|ERR ..." with the request's channel-ID (1 to 20
 * digits and a space) echoed, holds no control byte, and is ERR exactly
 * when urisan_check denies the value (the request up to its first space)
 * or there is no value (empty, Squid's "-", a bare channel-ID, answered
 * under its ID); never BH under the default policy.
 */
#define _GNU_SOURCE 1
#include <json-c/json.h>
#include <pthread.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "connect_target.h"

/* src/cli/cli.h (not included: its json.h has a json_bool() that clashes
   with json-c's json_bool type). */
int cmd_check(int argc, char **argv);
int cmd_normalize(int argc, char **argv);
int cmd_resolve(int argc, char **argv);
int cmd_squid_acl(int argc, char **argv);

/* The longest line the commands keep: max_uri + 1 (urisan(1), INPUT). */
#define KEEP 8193

/* RFC 3986 5.4's base. */
static const char base_uri[] = "http://a/b/c/d;p?q";

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

/* Run a command (argv, NULL-terminated) with stdin = data; output into
   *out; its exit status. */
static int run_cmd(int (*cmd)(int, char **), char **argv, const char *data, size_t n,
                   fuzz_str *out)
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
    int argc = 0;
    while (argv[argc] != NULL)
        argc++;
    int rc = cmd(argc, argv);
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

/* `urisan check [--json]` with stdin = data. */
static int run_check(const char *data, size_t n, int json, fuzz_str *out)
{
    char a0[] = "check", a1[] = "--json";
    char *argv[] = {a0, json ? a1 : NULL, NULL};
    return run_cmd(cmd_check, argv, data, n, out);
}

/* --fields lists for the line-by-line comparison (6.): the host view's
   four keys whole, cut and out of order or not there, valid and error
   together and apart, the input before and after components. */
#ifdef URISAN_HAVE_HOST
#define HV4 "host_unicode,host_skeleton,host_imitates,registrable_domain"
#define HV3 "host_skeleton,host_imitates,registrable_domain"
#define HV_REV "registrable_domain,host_imitates,host_skeleton,host_unicode"
#else   /* a command without the host layer has no such keys */
#define HV4 "port"
#define HV3 "host_type"
#define HV_REV "query"
#endif
static const char *const field_lists[] = {
    NULL,
    "verdict,flags,reasons,uri",   /* no host view key: judged all the same */
    "valid,error,uri," HV4 ",length",
    "components,uri," HV3 ",error,valid",
    "error,valid," HV_REV ",flags,verdict",
    "uri,flags,verdict," HV4 ",valid,error,host,components",
};
#define FIELD_LISTS (sizeof field_lists / sizeof field_lists[0])
#define ALONE_MAX 64   /* lines compared with their output alone */

/* Lines of LF-terminated text (a last line without LF counts). */
static size_t count_lines(const char *p, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += p[i] == '\n';
    return k + (n > 0 && p[n - 1] != '\n');
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

/* One output line as one strict JSON object (the caller puts it). */
static json_object *parse_line(const char *ol, size_t on, size_t lineno)
{
    json_tokener *tok = json_tokener_new();
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    json_object *o = json_tokener_parse_ex(tok, ol, (int)on);
    enum json_tokener_error je = json_tokener_get_error(tok);
    FUZZ_ASSERT(o != NULL && je == json_tokener_success && (size_t)json_tokener_get_parse_end(tok) == on,
                "output line %zu is not one JSON value: %s", lineno, json_tokener_error_desc(je));
    json_tokener_free(tok);
    FUZZ_ASSERT(json_object_is_type(o, json_type_object), "line %zu is not a JSON object", lineno);
    return o;
}

/* The input echoed back under key: itself when kept whole and UTF-8. */
static void check_echo(json_object *o, const char *key, const char *il, size_t in_len, size_t lineno)
{
    json_object *v = get(o, key, json_type_string, 1, lineno);
    if (v != NULL && in_len <= KEEP && valid_utf8((const unsigned char *)il, in_len)) {
        size_t n = (size_t)json_object_get_string_len(v);
        FUZZ_ASSERT(n == in_len && memcmp(json_object_get_string(v), il, n) == 0,
                    "line %zu: \"%s\" is not the input line", lineno, key);
    }
    json_object *t = get(o, "truncated", json_type_boolean, 0, lineno);
    FUZZ_ASSERT(json_object_get_boolean(t) == (in_len > KEEP), "line %zu: truncated is wrong",
                lineno);
    json_object *len = get(o, "length", json_type_int, 0, lineno);
    FUZZ_ASSERT((size_t)json_object_get_int64(len) == in_len, "line %zu: length %lld, line has %zu",
                lineno, (long long)json_object_get_int64(len), in_len);
}

/* "error": null exactly when st is ok, else the code of st. */
static void check_error(json_object *o, urisan_status st, size_t lineno)
{
    json_object *err = get(o, "error", json_type_object, 1, lineno);
    FUZZ_ASSERT((err == NULL) == (st == URISAN_OK), "line %zu: error must be null exactly when ok",
                lineno);
    if (err == NULL)
        return;
    json_object *code = get(err, "code", json_type_string, 0, lineno);
    FUZZ_ASSERT(strcmp(json_object_get_string(code), urisan_status_name(st)) == 0,
                "line %zu: error code %s, library %s", lineno, json_object_get_string(code),
                urisan_status_name(st));
    get(err, "offset", json_type_int, 0, lineno);
    get(err, "message", json_type_string, 0, lineno);
}

/* The library's nested URLs of one input (urisan_nested, default policy). */
typedef struct {
    size_t n;
    char uri[16][256]; /* the first 16, cut to 255 bytes */
    size_t len[16];
} nested_seen;

static void see_nested(void *ctx, const urisan_nested_url *nu)
{
    nested_seen *s = ctx;
    if (s->n < 16) {
        size_t k = nu->uri_len < 255 ? nu->uri_len : 255;
        memcpy(s->uri[s->n], nu->uri, k);
        s->len[s->n] = k;
    }
    s->n++;
}

/* 5. "nested" and "nested_capped" exactly on lines whose flags have
   nested_url: at most 16 entries of the right shape, in the library's
   order (each uri echoed when it is valid UTF-8), capped exactly when
   the library finds more. */
static void check_nested_keys(json_object *o, const char *in, size_t len, const urisan_uri *u,
                              urisan_flags flags, size_t lineno)
{
    json_object *v = NULL;
    int has = json_object_object_get_ex(o, "nested", &v);
    FUZZ_ASSERT(has == json_object_object_get_ex(o, "nested_capped", NULL),
                "line %zu: nested without nested_capped or the reverse", lineno);
    FUZZ_ASSERT(has == ((flags & URISAN_F(NESTED_URL)) != 0),
                "line %zu: nested keys %s, nested_url %s", lineno, has ? "present" : "absent",
                (flags & URISAN_F(NESTED_URL)) ? "set" : "clear");
    if (!has)
        return;
    static char scratch[URISAN_NESTED_SCRATCH];
    nested_seen seen;
    seen.n = 0;
    urisan_nested_report nr;
    urisan_nested(in, len, u, NULL, scratch, sizeof scratch, see_nested, &seen, &nr);
    json_object *list = get(o, "nested", json_type_array, 0, lineno);
    size_t n = json_object_array_length(list);
    FUZZ_ASSERT(n == (seen.n < 16 ? seen.n : 16), "line %zu: %zu nested URLs listed, the library "
                "has %zu", lineno, n, seen.n);
    json_object *capped = get(o, "nested_capped", json_type_boolean, 0, lineno);
    FUZZ_ASSERT(json_object_get_boolean(capped) == (seen.n > 16), "line %zu: nested_capped wrong",
                lineno);
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(list, i);
        FUZZ_ASSERT(json_object_is_type(e, json_type_object), "line %zu: nested[%zu] not an object",
                    lineno, i);
        get(e, "name", json_type_string, 0, lineno);
        json_object *uri = get(e, "uri", json_type_string, 0, lineno);
        json_object *depth = get(e, "depth", json_type_int, 0, lineno);
        FUZZ_ASSERT(json_object_get_int(depth) == 1, "line %zu: depth %d under the default policy",
                    lineno, json_object_get_int(depth));
        get(e, "flags", json_type_array, 0, lineno);
        get(e, "host_ip", json_type_string, 1, lineno);
        const char *us = json_object_get_string(uri);
        size_t ul = (size_t)json_object_get_string_len(uri);
        if (seen.len[i] < 255 && valid_utf8((const unsigned char *)seen.uri[i], seen.len[i]))
            FUZZ_ASSERT(ul == seen.len[i] && memcmp(us, seen.uri[i], ul) == 0,
                        "line %zu: nested[%zu].uri is not the library's", lineno, i);
    }
}

/* The host layer views a mailto: address's domain where the URI has no
   host (urisan_mailto_domain): the library flags no idn there. */
static int mail_domain(const char *in, size_t len, const urisan_uri *u)
{
    size_t pos = 0;
    urisan_span d;
    return urisan_mailto_domain(in, len, u, &pos, &d);
}

static void check_json_line(const char *ol, size_t on, const char *il, size_t in_len, size_t lineno,
                            int *denied)
{
    json_object *o = parse_line(ol, on, lineno);

    /* what the library says about this input line */
    size_t keep = in_len > KEEP ? KEEP : in_len;
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    char *copy = fuzz_dup_part(il, keep);
    urisan_check(copy, keep, NULL, &u, &r, &d);

    check_echo(o, "uri", il, in_len, lineno);
    json_object *valid = get(o, "valid", json_type_boolean, 0, lineno);
    FUZZ_ASSERT(json_object_get_boolean(valid) == (u.valid != 0), "line %zu: valid differs", lineno);
    check_error(o, u.valid ? URISAN_OK : u.error.code, lineno);
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
    /* homograph, invisible_char and host_uts46 come from the command's hostview.c
       (ICU): only for an IDN host, and judged by the policy like the
       library's own flags. */
    urisan_flags extra = 0;
    for (size_t i = 0; i < nf; i++) {
        const char *fn = json_object_get_string(json_object_array_get_idx(flags, i));
        if (fn != NULL && strcmp(fn, "homograph") == 0)
            extra |= (urisan_flags)1 << URISAN_FLAG_HOMOGRAPH;
        if (fn != NULL && strcmp(fn, "invisible_char") == 0)
            extra |= (urisan_flags)1 << URISAN_FLAG_INVISIBLE_CHAR;
        if (fn != NULL && strcmp(fn, "host_uts46") == 0)
            extra |= (urisan_flags)1 << URISAN_FLAG_HOST_UTS46;
    }
    if (extra != 0) {
        FUZZ_ASSERT((r.flags & ((urisan_flags)1 << URISAN_FLAG_IDN)) || mail_domain(copy, keep, &u),
                    "line %zu: homograph/invisible_char/host_uts46 on a host that is no IDN "
                    "nor a mailto: address's domain", lineno);
        r.flags |= extra;
        urisan_decide(copy, keep, &u, &r, NULL, &d);
    }
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
    /* reasons == deny_reasons followed by flag_reasons; deny_reasons
       empty unless denied */
    json_object *rs = get(o, "reasons", json_type_array, 0, lineno);
    json_object *dr = get(o, "deny_reasons", json_type_array, 0, lineno);
    json_object *fr = get(o, "flag_reasons", json_type_array, 0, lineno);
    size_t nr = json_object_array_length(rs), nd = json_object_array_length(dr);
    size_t nfr = json_object_array_length(fr);
    FUZZ_ASSERT(nr == nd + nfr, "line %zu: reasons is not deny_reasons + flag_reasons", lineno);
    FUZZ_ASSERT(d.verdict == URISAN_DENY || nd == 0, "line %zu: deny_reasons without deny",
                lineno);
    for (size_t i = 0; i < nr; i++) {
        json_object *a = json_object_array_get_idx(rs, i);
        json_object *b = i < nd ? json_object_array_get_idx(dr, i)
                                : json_object_array_get_idx(fr, i - nd);
        FUZZ_ASSERT(strcmp(json_object_get_string(a), json_object_get_string(b)) == 0,
                    "line %zu: reasons[%zu] differs from deny_reasons + flag_reasons", lineno, i);
    }
    check_nested_keys(o, copy, keep, &u, r.flags, lineno);
    if (d.verdict == URISAN_DENY)
        *denied = 1;
    free(copy);
    json_object_put(o);
}

/* What normalize or resolve (mode) should answer for one line. */
typedef struct {
    int resolve;
    urisan_resolve_opts opt;
} transform_mode;

static void check_transform_line(const char *ol, size_t on, const char *il, size_t in_len,
                                 size_t lineno, const transform_mode *m, int *failed)
{
    json_object *o = parse_line(ol, on, lineno);
    size_t keep = in_len > KEEP ? KEEP : in_len;
    char *copy = fuzz_dup_part(il, keep);
    size_t cap = 4 * keep + 64, needed = 0;
    char *buf = (char *)malloc(cap);
    if (buf == NULL)
        abort();
    urisan_error err;
    urisan_status st;
    for (;;) {
        err = (urisan_error){URISAN_OK, 0, 0};
        st = m->resolve ? urisan_resolve(base_uri, sizeof base_uri - 1, copy, keep, &m->opt, buf, cap,
                                         &needed, NULL, &err)
                        : urisan_normalize(copy, keep, NULL, buf, cap, &needed, &err);
        if (st != URISAN_E_NOSPACE || needed <= cap)
            break;
        cap = needed;
        buf = (char *)realloc(buf, cap);
        if (buf == NULL)
            abort();
    }
    if (st != URISAN_OK && err.code != URISAN_OK)
        st = err.code;

    check_echo(o, m->resolve ? "ref" : "uri", il, in_len, lineno);
    if (m->resolve) {
        json_object *b = get(o, "base", json_type_string, 0, lineno);
        FUZZ_ASSERT(strcmp(json_object_get_string(b), base_uri) == 0, "line %zu: base changed",
                    lineno);
        get(o, "flags", json_type_array, 0, lineno);
    }
    json_object *res = get(o, "result", json_type_string, 1, lineno);
    FUZZ_ASSERT((res != NULL) == (st == URISAN_OK), "line %zu: result must be there exactly when ok",
                lineno);
    if (res != NULL && valid_utf8((const unsigned char *)buf, needed)) {
        size_t n = (size_t)json_object_get_string_len(res);
        FUZZ_ASSERT(n == needed && memcmp(json_object_get_string(res), buf, n) == 0,
                    "line %zu: result differs from the library's", lineno);
    }
    check_error(o, st, lineno);
    if (st != URISAN_OK)
        *failed = 1;
    free(buf);
    free(copy);
    json_object_put(o);
}

/* One squid-acl reply (rl bytes, no LF) to one request line (il bytes,
   a trailing CR stripped). */
static void check_squid_reply(const char *rl, size_t rn, const char *il, size_t in_len,
                              size_t lineno)
{
    for (size_t k = 0; k < rn; k++) {
        unsigned char c = (unsigned char)rl[k];
        FUZZ_ASSERT(c >= 0x20 && c != 0x7f, "squid-acl reply %zu holds byte 0x%02x", lineno, c);
    }
    size_t d = 0;
    while (d < in_len && d <= 20 && il[d] >= '0' && il[d] <= '9')
        d++;
    size_t vs = 0;
    if (d > 0 && d <= 20 && d < in_len && il[d] == ' ') {
        FUZZ_ASSERT(rn > d && memcmp(rl, il, d + 1) == 0,
                    "squid-acl reply %zu does not echo the channel-ID", lineno);
        vs = d + 1;
    } else if (d > 0 && d <= 20 && d == in_len) {
        /* a bare channel-ID: ERR under that ID (doc/squid.md) */
        FUZZ_ASSERT(rn > d + 4 && memcmp(rl, il, d) == 0 && memcmp(rl + d, " ERR ", 5) == 0,
                    "squid-acl reply %zu: a bare channel-ID gets ERR under its ID", lineno);
        return;
    }
    const char *r = rl + vs;
    size_t rlen = rn - vs;
    int ok = rlen >= 2 && memcmp(r, "OK", 2) == 0 && (rlen == 2 || r[2] == ' ');
    int err = rlen >= 3 && memcmp(r, "ERR", 3) == 0 && (rlen == 3 || r[3] == ' ');
    FUZZ_ASSERT(ok || err, "squid-acl reply %zu is neither OK nor ERR", lineno);
    if (in_len > KEEP + 21)
        return; /* kept to a prefix (channel-ID, space, KEEP bytes of value):
                   the value is judged too_long */
    const char *v = il + vs;
    const char *sp = (const char *)memchr(v, ' ', in_len - vs);
    size_t vlen = sp ? (size_t)(sp - v) : in_len - vs;
    int deny = 1; /* empty, and Squid's "-" (no value): ERR */
    if (vlen > 0 && !(vlen == 1 && v[0] == '-')) {
        /* a CONNECT's host:port (the argument "connect") is judged as
           https://host:port */
        bool tunnel = sp != NULL && cli_connect_arg(sp + 1, in_len - (size_t)(sp + 1 - il)) &&
                      cli_connect_target(v, vlen, true);
        size_t pre = tunnel ? sizeof CLI_CONNECT_SCHEME - 1 : 0;
        char *copy = (char *)malloc(pre + vlen);
        if (copy == NULL)
            abort();
        memcpy(copy, CLI_CONNECT_SCHEME, pre);
        memcpy(copy + pre, v, vlen);
        urisan_uri u;
        urisan_report rep;
        urisan_decision dec;
        urisan_check(copy, pre + vlen, NULL, &u, &rep, &dec);
        deny = dec.verdict == URISAN_DENY;
        free(copy);
    }
    FUZZ_ASSERT(err == deny, "squid-acl reply %zu is %s, the library %s the value", lineno,
                err ? "ERR" : "OK", deny ? "denies" : "allows");
}

enum walk_kind { WALK_CHECK, WALK_TRANSFORM, WALK_SQUID };

/* Walk input and output lines in step and check each pair; sets *bad
   when some line was denied or failed (check, transform). */
static void walk_lines(const char *in, size_t size, const fuzz_str *out, enum walk_kind kind,
                       const transform_mode *m, int *bad)
{
    size_t ip = 0, op = 0, lineno = 0;
    while (ip < size) {
        const char *nl = (const char *)memchr(in + ip, '\n', size - ip);
        size_t ie = nl ? (size_t)(nl - in) : size;
        size_t il = ie - ip;
        if (nl != NULL && il > 0 && in[ie - 1] == '\r')
            il--; /* urisan(1) INPUT: a CRLF ending's CR is stripped */
        const char *onl = (const char *)memchr(out->p + op, '\n', out->len - op);
        size_t oe = (size_t)(onl - out->p);
        lineno++;
        if (kind == WALK_CHECK)
            check_json_line(out->p + op, oe - op, in + ip, il, lineno, bad);
        else if (kind == WALK_TRANSFORM)
            check_transform_line(out->p + op, oe - op, in + ip, il, lineno, m, bad);
        else
            check_squid_reply(out->p + op, oe - op, in + ip, il, lineno);
        ip = nl ? ie + 1 : size;
        op = oe + 1;
    }
}

static void expect_lines(const fuzz_str *out, size_t nlines, const char *what)
{
    size_t got = count_lines(out->p, out->len);
    FUZZ_ASSERT(got == nlines && (out->len == 0 || out->p[out->len - 1] == '\n'),
                "%s: %zu input lines, %zu output lines", what, nlines, got);
}

/* run_cmd on a thread of its own: the commands' per-thread state (the
   kept host views and runs, hostmemo.c, fields.c) starts empty there. */
typedef struct {
    char **argv;
    const char *data;
    size_t n;
    fuzz_str *out;
} cold_run;

static void *cold_main(void *arg)
{
    cold_run *c = arg;
    (void)run_cmd(cmd_check, c->argv, c->data, c->n, c->out);
    return NULL;
}

static void run_check_cold(char **argv, const char *data, size_t n, fuzz_str *out)
{
    cold_run c = {argv, data, n, out};
    pthread_t t;
    if (pthread_create(&t, NULL, cold_main, &c) != 0 || pthread_join(t, NULL) != 0)
        abort();
}

/* 6. check --json (a --fields list and --base chosen by the input's
   first bytes) writes for each line what it writes for that line alone
   on a fresh thread: nothing kept from one line (the last host's view,
   the kept runs of fields.c, the host memo) leaks into the next, and a
   kept answer is the one made afresh. */
/* Each key of a --fields line has the value of the full line's key
   (doc/output.md), the keys that are components of the full line aside;
   host_skeleton, which --fields gives for every host name, is the full
   line's or the full line has null there. */
static void check_same_values(const char *pl, size_t pn, const char *fl, size_t fn,
                              const char *list, size_t lineno)
{
    json_object *part = parse_line(pl, pn, lineno), *full = parse_line(fl, fn, lineno);
    json_object_object_foreach(part, key, val)
    {
        json_object *fv = NULL;
        if (!json_object_object_get_ex(full, key, &fv))
            continue;
        if (strcmp(key, "host_skeleton") == 0 && json_object_is_type(fv, json_type_null))
            continue;
        FUZZ_ASSERT(json_object_equal(val, fv), "check --fields %s: line %zu: \"%s\" is %s, "
                    "the full line's %s", list, lineno, key, json_object_to_json_string(val),
                    json_object_to_json_string(fv));
    }
    json_object_put(part);
    json_object_put(full);
}

static void check_lines_alone(const char *in, size_t size, const fuzz_str *full)
{
    unsigned pick = size > 0 ? (unsigned char)in[0] : 0;
    pick ^= size > 1 ? (unsigned)(unsigned char)in[1] << 3 : 0;
    const char *list = field_lists[pick % FIELD_LISTS];
    char a0[] = "check", a1[] = "--json", a2[] = "--fields", a3[] = "--base";
    char fl[128], b[sizeof base_uri];
    memcpy(b, base_uri, sizeof base_uri);
    char *argv[6];
    int argc = 0;
    argv[argc++] = a0;
    if (list != NULL) {
        snprintf(fl, sizeof fl, "%s", list);
        argv[argc++] = a2;
        argv[argc++] = fl;
    } else {
        argv[argc++] = a1;
    }
    if ((pick / FIELD_LISTS) % 3 == 1) {
        argv[argc++] = a3;
        argv[argc++] = b;
    }
    argv[argc] = NULL;
    fuzz_str all = {0}, one = {0};
    int rc = run_cmd(cmd_check, argv, in, size, &all);
    FUZZ_ASSERT(rc == 0 || rc == 1, "check %s: exit status %d", list ? list : "--json", rc);
    size_t ip = 0, op = 0, fp = 0, lineno = 0;
    while (ip < size && lineno < ALONE_MAX) {
        const char *nl = (const char *)memchr(in + ip, '\n', size - ip);
        size_t ie = nl ? (size_t)(nl - in) + 1 : size;
        const char *onl = (const char *)memchr(all.p + op, '\n', all.len - op);
        FUZZ_ASSERT(onl != NULL, "check %s: no output line %zu", list ? list : "--json",
                    lineno + 1);
        size_t oe = (size_t)(onl - all.p) + 1;
        lineno++;
        run_check_cold(argv, in + ip, ie - ip, &one);
        FUZZ_ASSERT(one.len == oe - op && memcmp(one.p, all.p + op, one.len) == 0,
                    "check %s%s: line %zu differs from its output alone on a fresh thread:\n  %.*s\n  %.*s",
                    list ? list : "--json", argc > 3 ? " --base" : "", lineno,
                    (int)(oe - op), all.p + op, (int)one.len, one.p);
        if (list != NULL && argc == 3) {   /* the full line: check --json, no --base */
            const char *fnl = (const char *)memchr(full->p + fp, '\n', full->len - fp);
            size_t fe = (size_t)(fnl - full->p);
            check_same_values(all.p + op, oe - op - 1, full->p + fp, fe - fp, list, lineno);
            fp = fe + 1;
        }
        ip = ie;
        op = oe;
    }
    fs_free(&all);
    fs_free(&one);
}

/* 7.: `check ARGS --jobs N` against `check ARGS`, N and the batch size
   chosen by the input's size. */
static void check_jobs_same(const char *in, size_t size, const char *const *args)
{
    char a[8][96];
    char *argv[12];
    int argc = 0;
    memcpy(a[0], "check", 6);
    argv[argc++] = a[0];
    for (int i = 0; args[i] != NULL && i < 5; i++) {
        snprintf(a[i + 1], sizeof a[i + 1], "%s", args[i]);
        argv[argc++] = a[i + 1];
    }
    argv[argc] = NULL;
    fuzz_str one = {0}, many = {0};
    int rc1 = run_cmd(cmd_check, argv, in, size, &one);
    char batch[4];
    snprintf(batch, sizeof batch, "%zu", 1 + size % 5);
    setenv("URISAN_JOBS_BATCH", batch, 1);
    snprintf(a[6], sizeof a[6], "--jobs");
    snprintf(a[7], sizeof a[7], "%zu", 2 + size % 3);
    argv[argc++] = a[6];
    argv[argc++] = a[7];
    argv[argc] = NULL;
    int rcn = run_cmd(cmd_check, argv, in, size, &many);
    unsetenv("URISAN_JOBS_BATCH");
    FUZZ_ASSERT(rc1 == rcn, "check %s --jobs %s: exit status %d, one thread %d",
                args[0] ? args[0] : "", a[7], rcn, rc1);
    FUZZ_ASSERT(one.len == many.len && (one.len == 0 || memcmp(one.p, many.p, one.len) == 0),
                "check %s --jobs %s: output differs from one thread's", args[0] ? args[0] : "",
                a[7]);
    fs_free(&one);
    fs_free(&many);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = fuzz_dup(data, size);
    size_t nlines = count_lines(in, size);
    fuzz_str out = {0};

    /* check */
    int rc = run_check(in, size, 1, &out);
    expect_lines(&out, nlines, "check --json");
    int denied = 0;
    walk_lines(in, size, &out, WALK_CHECK, NULL, &denied);
    FUZZ_ASSERT(rc == (denied ? 1 : 0), "check --json: exit status %d, something denied: %d", rc,
                denied);
    check_lines_alone(in, size, &out);
    rc = run_check(in, size, 0, &out);
    expect_lines(&out, nlines, "check");
    FUZZ_ASSERT(rc == (denied ? 1 : 0), "check: exit status %d", rc);
    static const char *const jobs_json[] = {"--json", NULL};
    static const char *const jobs_text[] = {NULL};
    static const char *const jobs_fields[] = {"--fields", "uri," HV4 ",verdict,nested", NULL};
    check_jobs_same(in, size, jobs_json);
    check_jobs_same(in, size, jobs_text);
    check_jobs_same(in, size, jobs_fields);

    /* normalize */
    transform_mode nm = {0, {0}};
    char n0[] = "normalize", js[] = "--json";
    char *nargv[] = {n0, js, NULL, NULL};
    rc = run_cmd(cmd_normalize, nargv, in, size, &out);
    expect_lines(&out, nlines, "normalize --json");
    int failed = 0;
    walk_lines(in, size, &out, WALK_TRANSFORM, &nm, &failed);
    FUZZ_ASSERT(rc == (failed ? 1 : 0), "normalize --json: exit status %d, failed %d", rc, failed);
    nargv[1] = NULL;
    rc = run_cmd(cmd_normalize, nargv, in, size, &out);
    expect_lines(&out, nlines, "normalize");

    /* resolve BASE, the mode chosen by the input size */
    static const char *const modes[] = {"--above-root=clamp", "--above-root=keep",
                                        "--above-root=reject"};
    transform_mode rm = {1, {0}};
    rm.opt.above_root = (urisan_above_root)(size % 3 == 0   ? URISAN_ABOVE_ROOT_CLAMP
                                            : size % 3 == 1 ? URISAN_ABOVE_ROOT_KEEP
                                                            : URISAN_ABOVE_ROOT_REJECT);
    rm.opt.non_strict = (size / 3) % 2 == 1;
    char r0[] = "resolve", ns[] = "--non-strict", mode[24], b[sizeof base_uri];
    memcpy(mode, modes[size % 3], strlen(modes[size % 3]) + 1);
    memcpy(b, base_uri, sizeof base_uri);
    char *rargv[6];
    int ra = 0;
    rargv[ra++] = r0;
    rargv[ra++] = js;
    rargv[ra++] = mode;
    if (rm.opt.non_strict)
        rargv[ra++] = ns;
    rargv[ra++] = b;
    rargv[ra] = NULL;
    rc = run_cmd(cmd_resolve, rargv, in, size, &out);
    expect_lines(&out, nlines, "resolve --json");
    failed = 0;
    walk_lines(in, size, &out, WALK_TRANSFORM, &rm, &failed);
    FUZZ_ASSERT(rc == (failed ? 1 : 0), "resolve --json: exit status %d, failed %d", rc, failed);
    for (int i = 1; rargv[i] != NULL; i++) /* the same without --json */
        rargv[i] = rargv[i + 1];
    rc = run_cmd(cmd_resolve, rargv, in, size, &out);
    expect_lines(&out, nlines, "resolve");

    /* squid-acl */
    char s0[] = "squid-acl", s1[] = "--quiet";
    char *sargv[] = {s0, s1, NULL};
    rc = run_cmd(cmd_squid_acl, sargv, in, size, &out);
    expect_lines(&out, nlines, "squid-acl");
    FUZZ_ASSERT(rc == 0, "squid-acl: exit status %d", rc);
    walk_lines(in, size, &out, WALK_SQUID, NULL, &failed);

    fs_free(&out);
    fuzz_done(in);
    return 0;
}
