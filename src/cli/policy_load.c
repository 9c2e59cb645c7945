/* policy_load.c - the one way the subcommands get their policy (see cli.h). */
#include "cli.h"

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
    urisan_status st = urisan_policy_parse_ex(p, text, len, &e);
    if (st != URISAN_OK) {
        /* "FILE:LINE:COLUMN: message 'word'" (doc/policy.md) */
        cli_out_flush();
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

urisan_policy *cli_policy_opts(const char *cmd, const cli_opt *opts, size_t nopts)
{
    return cli_policy_load(cmd, cli_opt_value(opts, nopts, "--policy"),
                           cli_opt_value(opts, nopts, "--profile"));
}
