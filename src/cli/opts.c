/* opts.c - option parsing shared by the subcommands (see cli.h). */
#include "cli.h"

#include <string.h>

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

int cli_opts(const char *cmd, int argc, char **argv, cli_opt *opts, size_t nopts, int *status)
{
    int nargs = 0;
    int rc = cli_getopts(cmd, argc, argv, opts, nopts, &nargs);
    *status = rc == CLI_OPTS_HELP ? cli_finish(cmd, CLI_EXIT_OK) : rc;
    return rc == 0 ? nargs : -1;
}

const cli_opt *cli_opt_find(const cli_opt *opts, size_t nopts, const char *name)
{
    for (size_t k = 0; k < nopts; k++) {
        if (strcmp(opts[k].name, name) == 0)
            return &opts[k];
    }
    return NULL;
}

const char *cli_opt_value(const cli_opt *opts, size_t nopts, const char *name)
{
    const cli_opt *o = cli_opt_find(opts, nopts, name);
    return o != NULL && o->seen ? o->value : NULL;
}
