/* policy_load.c - the one way the subcommands get their policy (see cli.h). */
#include "cli.h"
#include "policy_lint.h"

#include <stdlib.h>
#include <string.h>

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

void cli_policy_diag(const char *path, const char *text, size_t len, const pol_diag *d)
{
    cli_out_flush();
    fprintf(stderr, "%s:%zu:", path, d->line);
    if (d->column > 0)
        fprintf(stderr, "%zu:", d->column);
    fprintf(stderr, " %s%s", d->warning ? "warning: " : "",
            d->msg ? d->msg : urisan_status_message(URISAN_E_BAD_POLICY));
    if (d->word_len > 0 && d->word_off < len) {
        fprintf(stderr, " '");
        print_word(stderr, text + d->word_off,
                   d->word_len < len - d->word_off ? d->word_len : len - d->word_off);
        fputc('\'', stderr);
    }
    if (d->other_msg != NULL) {
        fprintf(stderr, ", %s '", d->other_msg);
        print_word(stderr, d->other, d->other_len);
        fputc('\'', stderr);
    }
    if (d->other_line > 0)
        fprintf(stderr, " (line %zu)", d->other_line);
    if (d->hint != NULL)
        fprintf(stderr, " (did you mean '%s'?)", d->hint);
    fputc('\n', stderr);
}

/* The first mistake of a policy text, as `urisan policy check` tells it. */
typedef struct {
    const char *path, *text;
    size_t len;
    bool told;
} first_mistake;

static void tell_first(void *ctx, const pol_diag *d)
{
    first_mistake *f = ctx;
    if (d->warning || f->told)
        return;
    f->told = true;
    cli_policy_diag(f->path, f->text, f->len, d);
}

static const char *loaded_path;

const char *cli_policy_path(void)
{
    return loaded_path;
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
        cli_out_flush();
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
    urisan_status st = urisan_policy_parse_refuse(p, text, len, CLI_REFUSED_FLAGS, &e);
    if (st != URISAN_OK) {
        /* "FILE:LINE:COLUMN: message 'word'" (doc/policy.md): the lint of
           the same text on top of the same profile tells the same first
           mistake, with a "did you mean" */
        first_mistake f = {path, text, len, false};
        urisan_policy_init(p);
        if (profile != NULL)
            urisan_policy_profile(p, profile, strlen(profile));
        urisan_pol_lint_refuse(p, text, len, CLI_REFUSED_FLAGS, tell_first, &f);
        if (!f.told) {
            pol_diag d = {.line = e.line, .column = e.column, .word_off = e.word_off,
                          .word_len = e.word_len, .msg = e.msg};
            cli_policy_diag(path, text, len, &d);
        }
        free(text);
        free(p);
        return NULL;
    }
    free(text);
    loaded_path = path;
    return p;
}

urisan_policy *cli_policy_opts(const char *cmd, const cli_opt *opts, size_t nopts)
{
    return cli_policy_load(cmd, cli_opt_value(opts, nopts, "--policy"),
                           cli_opt_value(opts, nopts, "--profile"));
}
