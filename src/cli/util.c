/* util.c - helpers shared by the subcommands (see cli.h). */
#include "cli.h"
#include "lines.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

int cli_getopts(const char *cmd, int argc, char **argv,
                cli_opt *opts, size_t nopts, int *nargs)
{
    int w = 1;
    bool only_operands = false;

    for (size_t k = 0; k < nopts; k++) {
        opts[k].value = NULL;
        opts[k].seen = false;
    }
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (only_operands || a[0] != '-' || a[1] == '\0') {
            argv[w++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_operands = true;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cli_usage(stdout, cmd);
            return CLI_OPTS_HELP;
        }
        const char *eq = strchr(a, '=');
        size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
        cli_opt *o = NULL;
        for (size_t k = 0; k < nopts; k++) {
            if (strlen(opts[k].name) == nlen && memcmp(opts[k].name, a, nlen) == 0) {
                o = &opts[k];
                break;
            }
        }
        if (o == NULL)
            return cli_usage_error(cmd, "unknown option '%.*s'", (int)(nlen > 200 ? 200 : nlen), a);
        if (o->has_value) {
            if (eq != NULL) {
                o->value = eq + 1;
            } else if (i + 1 < argc) {
                o->value = argv[++i];
            } else {
                return cli_usage_error(cmd, "option '%s' needs a value", o->name);
            }
        } else {
            if (eq != NULL)
                return cli_usage_error(cmd, "option '%s' takes no value", o->name);
            o->value = "";
        }
        o->seen = true;
    }
    *nargs = w - 1;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Input                                                               */
/* ------------------------------------------------------------------ */

size_t cli_line_keep(const urisan_limits *lim)
{
    urisan_limits d;
    if (lim == NULL) {
        urisan_limits_default(&d);
        lim = &d;
    }
    size_t m = lim->max_uri;
    if (m > URISAN_HARD_CEILING)
        m = URISAN_HARD_CEILING;
    return m + 1;
}

bool cli_read_file(const char *cmd, const char *path, size_t max,
                   char **data, size_t *len)
{
    int fd = 0;
    bool is_stdin = strcmp(path, "-") == 0;
    if (!is_stdin) {
        do {
            fd = open(path, O_RDONLY);
        } while (fd < 0 && errno == EINTR);
        if (fd < 0) {
            cli_fail(cmd, "%s: %s", path, strerror(errno));
            return false;
        }
    }
    cli_buf b;
    cli_buf_init(&b, max);
    bool ok = true;
    for (;;) {
        size_t want = b.max - b.len;
        if (want > 65536)
            want = 65536;
        char probe;
        char *dst = &probe;
        if (want == 0) {
            want = 1;   /* at max: one more byte means too large */
        } else if (cli_buf_reserve(&b, want)) {
            dst = b.p + b.len;
        } else {
            cli_fail(cmd, "%s: out of memory", path);
            ok = false;
            break;
        }
        ssize_t n;
        do {
            n = read(fd, dst, want);
        } while (n < 0 && errno == EINTR);
        if (n < 0) {
            cli_fail(cmd, "%s: %s", path, strerror(errno));
            ok = false;
            break;
        }
        if (n == 0)
            break;
        if (dst == &probe) {
            cli_fail(cmd, "%s: larger than %zu bytes", path, max);
            ok = false;
            break;
        }
        b.len += (size_t)n;
    }
    if (!is_stdin)
        close(fd);
    if (!ok) {
        cli_buf_free(&b);
        return false;
    }
    *data = b.p ? b.p : malloc(1);
    *len = b.len;
    if (*data == NULL) {
        cli_fail(cmd, "%s: out of memory", path);
        return false;
    }
    return true;
}

/* A policy word for a message: printable ASCII as is, else \xNN. */
static void print_word(FILE *fp, const char *w, size_t n)
{
    if (n > 80)
        n = 80;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)w[i];
        if (ch >= 0x20 && ch < 0x7f && ch != '\'')
            fputc(ch, fp);
        else
            fprintf(fp, "\\x%02x", ch);
    }
}

urisan_policy *cli_policy_load(const char *cmd, const char *path, const char *profile)
{
    urisan_policy *p = malloc(urisan_policy_size());
    if (p == NULL) {
        cli_fail(cmd, "out of memory");
        return NULL;
    }
    urisan_policy_init(p);
    if (profile != NULL &&
        urisan_policy_profile(p, profile, strlen(profile)) != URISAN_OK) {
        fflush(stdout);
        fprintf(stderr, "urisan: %s: --profile: unknown profile '", cmd);
        print_word(stderr, profile, strlen(profile));
        fprintf(stderr, "' (");
        for (size_t i = 0; urisan_profile_name(i) != NULL; i++)
            fprintf(stderr, "%s%s", i ? ", " : "", urisan_profile_name(i));
        fprintf(stderr, ")\n");
        free(p);
        return NULL;
    }
    if (path == NULL)
        return p;
    char *text;
    size_t len;
    if (!cli_read_file(cmd, path, CLI_FILE_MAX, &text, &len)) {
        free(p);
        return NULL;
    }
    urisan_policy_error e;
    urisan_status st = urisan_policy_parse_ex(p, text, len, &e);
    if (st != URISAN_OK) {
        /* "FILE:LINE:COLUMN: message 'word'" (doc/policy.md) */
        fflush(stdout);
        fprintf(stderr, "%s:%zu:", path, e.line);
        if (e.column > 0)
            fprintf(stderr, "%zu:", e.column);
        fprintf(stderr, " %s", e.msg ? e.msg : urisan_status_message(st));
        if (e.word_len > 0 && e.word_off < len) {
            fprintf(stderr, " '");
            print_word(stderr, text + e.word_off,
                       e.word_len < len - e.word_off ? e.word_len : len - e.word_off);
            fputc('\'', stderr);
        }
        fputc('\n', stderr);
        free(text);
        free(p);
        return NULL;
    }
    free(text);
    return p;
}

bool cli_grow(char **buf, size_t *cap, size_t need, size_t max)
{
    if (need <= *cap)
        return true;
    if (need > max)
        return false;
    char *np = realloc(*buf, need ? need : 1);
    if (np == NULL)
        return false;
    *buf = np;
    *cap = need;
    return true;
}

/* Fill in an error the library left unset. */
static void settle_error(urisan_status st, urisan_error *err)
{
    if (st != URISAN_OK && err->code == URISAN_OK) {
        err->code = st;
        err->offset = 0;
    }
    if (st == URISAN_OK)
        err->code = URISAN_OK;
}

urisan_status cli_resolve(const char *base, size_t blen,
                          const char *ref, size_t rlen,
                          const urisan_resolve_opts *opt,
                          char **buf, size_t *cap, size_t *outlen,
                          urisan_flags *flags, urisan_error *err)
{
    urisan_status st = URISAN_E_NOSPACE;
    *outlen = 0;
    /* Two rounds suffice (the second has the reported size); a third
       guards against a size that changes between calls. */
    for (int round = 0; round < 3; round++) {
        size_t needed = 0;
        *err = (urisan_error){ URISAN_OK, 0, 0 };
        if (flags != NULL)
            *flags = 0;
        st = urisan_resolve(base, blen, ref, rlen, opt,
                            *buf, *cap, &needed, flags, err);
        if (st != URISAN_E_NOSPACE) {
            if (st == URISAN_OK)
                *outlen = needed;
            break;
        }
        if (!cli_grow(buf, cap, needed, CLI_RESULT_MAX))
            break;
    }
    settle_error(st, err);
    return st;
}

urisan_status cli_normalize(const char *in, size_t len,
                            const urisan_limits *lim,
                            char **buf, size_t *cap, size_t *outlen,
                            urisan_error *err)
{
    urisan_status st = URISAN_E_NOSPACE;
    *outlen = 0;
    for (int round = 0; round < 3; round++) {
        size_t needed = 0;
        *err = (urisan_error){ URISAN_OK, 0, 0 };
        st = urisan_normalize(in, len, lim, *buf, *cap, &needed, err);
        if (st != URISAN_E_NOSPACE) {
            if (st == URISAN_OK)
                *outlen = needed;
            break;
        }
        if (!cli_grow(buf, cap, needed, CLI_RESULT_MAX))
            break;
    }
    settle_error(st, err);
    return st;
}

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */

bool cli_out_line(const char *p, size_t n)
{
    if (n > 0 && fwrite(p, 1, n, stdout) != n)
        return false;
    return putchar('\n') != EOF;
}

bool cli_out_buf(const cli_buf *b)
{
    if (b->failed)
        return false;
    return cli_out_line(b->p, b->len);
}

int cli_finish(const char *cmd, int status)
{
    if (fflush(stdout) != 0 || ferror(stdout))
        return cli_fail(cmd, "write error on standard output: %s", strerror(errno));
    return status;
}

/* ------------------------------------------------------------------ */
/* JSON of library types                                               */
/* ------------------------------------------------------------------ */

void cli_json_error(json_w *w, const char *key, const urisan_error *e)
{
    json_key(w, key);
    if (e == NULL || e->code == URISAN_OK) {
        json_null(w);
        return;
    }
    json_obj_open(w);
    json_kcstr(w, "code", urisan_status_name(e->code));
    json_kuint(w, "offset", e->offset);
    json_kcstr(w, "message", urisan_status_message(e->code));
    json_obj_close(w);
}

void cli_json_flags(json_w *w, const char *key, urisan_flags f)
{
    json_key(w, key);
    json_arr_open(w);
    for (unsigned bit = 0; bit < 64; bit++) {
        if ((f >> bit) & 1u) {
            const char *name = urisan_flag_name((urisan_flag)bit);
            if (name != NULL)
                json_cstr(w, name);
        }
    }
    json_arr_close(w);
}

void cli_json_span(json_w *w, const char *key, const char *in, urisan_span s)
{
    if (!urisan_span_present(s))
        json_knull(w, key);
    else
        json_kstr(w, key, in + s.off, s.len);
}

void cli_json_components(json_w *w, const char *in, const urisan_uri *u)
{
    json_key(w, "components");
    json_obj_open(w);
    cli_json_span(w, "scheme", in, u->scheme);
    cli_json_span(w, "userinfo", in, u->userinfo);
    cli_json_span(w, "host", in, u->host);
    json_kcstr(w, "host_type", urisan_host_type_name(u->host_type));
    cli_json_span(w, "port", in, u->port);
    cli_json_span(w, "path", in, u->path);
    cli_json_span(w, "query", in, u->query);
    cli_json_span(w, "fragment", in, u->fragment);
    json_obj_close(w);
}

void cli_text_flags(cli_buf *b, urisan_flags f)
{
    bool any = false;
    for (unsigned bit = 0; bit < 64; bit++) {
        if ((f >> bit) & 1u) {
            const char *name = urisan_flag_name((urisan_flag)bit);
            if (name == NULL)
                continue;
            if (any)
                cli_buf_addc(b, ',');
            cli_buf_adds(b, name);
            any = true;
        }
    }
    if (!any)
        cli_buf_addc(b, '-');
}

void cli_text_error(cli_buf *b, const urisan_error *e, const char *which)
{
    cli_buf_clear(b);
    cli_buf_adds(b, "error: ");
    cli_buf_adds(b, urisan_status_name(e->code));
    cli_buf_addc(b, ' ');
    cli_buf_addu(b, e->offset);
    cli_buf_addc(b, ' ');
    cli_buf_adds(b, urisan_status_message(e->code));
    if (which != NULL) {
        cli_buf_adds(b, " (in the ");
        cli_buf_adds(b, which);
        cli_buf_addc(b, ')');
    }
}


int cli_each_input(const char *cmd, char **argv, int first, int last, size_t keep,
                   cli_input_fn one, void *ctx)
{
    int status = CLI_EXIT_OK;
    bool io_ok = true;
    if (first <= last) {
        for (int i = first; i <= last && io_ok; i++) {
            size_t n = strlen(argv[i]);
            io_ok = one(ctx, argv[i], n, n, false);
        }
    } else {
        cli_lines lr;
        if (!cli_lines_init(&lr, STDIN_FILENO, keep)) {
            status = cli_fail(cmd, "out of memory");
        } else {
            cli_line ln;
            int got = 0;
            while (io_ok && (got = cli_lines_next(&lr, &ln)) == 1)
                io_ok = one(ctx, ln.p, ln.len, ln.full_len, ln.truncated);
            if (io_ok && got < 0)
                status = cli_fail(cmd, "reading standard input: %s", strerror(lr.err));
            cli_lines_free(&lr);
        }
    }
    if (!io_ok && !ferror(stdout))
        status = cli_fail(cmd, "out of memory for an output line");
    return status;
}

#define CLI_REASONS_MAX (2 * 64 + URISAN_REASON_COUNT_)

/* The one place that orders a decision's reasons (cli_json_reasons,
   cli_text_reasons). Returns how many names were stored. */
static size_t reason_names(const urisan_decision *d, const char *names[CLI_REASONS_MAX])
{
    size_t n = 0;
    if (d->verdict == URISAN_ALLOW)
        return 0;
    for (int pass = 0; pass < 3; pass++) {
        unsigned limit = pass == 1 ? URISAN_REASON_COUNT_ : 64;
        for (unsigned bit = 0; bit < limit; bit++) {
            const char *name = NULL;
            if (pass == 0 && ((d->deny_flags >> bit) & 1u))
                name = urisan_flag_name((urisan_flag)bit);
            else if (pass == 1 && ((d->rules >> bit) & 1u))
                name = urisan_rule_reason_name((urisan_rule_reason)bit);
            else if (pass == 2 && ((d->flag_flags >> bit) & 1u))
                name = urisan_flag_name((urisan_flag)bit);
            if (name != NULL)
                names[n++] = name;
        }
    }
    return n;
}

void cli_json_reasons(json_w *w, const char *key, const urisan_decision *d)
{
    const char *names[CLI_REASONS_MAX];
    size_t n = reason_names(d, names);
    json_key(w, key);
    json_arr_open(w);
    for (size_t i = 0; i < n; i++)
        json_cstr(w, names[i]);
    json_arr_close(w);
}

void cli_json_reasons_apart(json_w *w, const urisan_decision *d)
{
    json_key(w, "deny_reasons");
    json_arr_open(w);
    if (d->verdict == URISAN_DENY) {
        for (unsigned bit = 0; bit < 64; bit++) {
            const char *name = urisan_flag_name((urisan_flag)bit);
            if (((d->deny_flags >> bit) & 1u) && name != NULL)
                json_cstr(w, name);
        }
        for (unsigned r = 0; r < URISAN_REASON_COUNT_; r++)
            if ((d->rules >> r) & 1u)
                json_cstr(w, urisan_rule_reason_name((urisan_rule_reason)r));
    }
    json_arr_close(w);
    cli_json_flags(w, "flag_reasons", d->verdict == URISAN_ALLOW ? 0 : d->flag_flags);
}

void cli_text_reasons(cli_buf *b, const urisan_decision *d)
{
    /* "denied:...;flagged:..." (urisan_decision_format), "-" for none */
    size_t n = 0;
    urisan_decision_format(d, NULL, 0, &n);
    if (n == 0) {
        cli_buf_addc(b, '-');
        return;
    }
    if (!cli_buf_reserve(b, n))
        return; /* b is marked failed */
    if (urisan_decision_format(d, b->p + b->len, n, &n) == URISAN_OK)
        b->len += n;
    else
        b->failed = true;
}
