/*
 * cmd_policy.c - `urisan policy check [--profile NAME] FILE` (validate a
 * policy file, print the effective policy) and `urisan policy show
 * [--profile NAME]` (a built-in profile as a policy file).
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#define CMD "policy"

static int show(const char *profile)
{
    const char *name = profile != NULL ? profile : "default";
    const char *text = urisan_profile_text(name, strlen(name));
    if (text == NULL) {
        urisan_policy *p = cli_policy_load(CMD, NULL, name); /* prints the error */
        free(p);
        return CLI_EXIT_USAGE;
    }
    fputs(text, stdout);
    return cli_finish(CMD, CLI_EXIT_OK);
}

static int check(const char *path, const char *profile)
{
    urisan_policy *p = cli_policy_load(CMD, path, profile);
    if (p == NULL)
        return cli_finish(CMD, CLI_EXIT_FAIL);
    size_t n = 0;
    urisan_policy_format(p, NULL, 0, &n);
    char *text = malloc(n + 1);
    if (text == NULL || urisan_policy_format(p, text, n, &n) != URISAN_OK) {
        free(text);
        free(p);
        return cli_fail(CMD, "out of memory");
    }
    fwrite(text, 1, n, stdout);
    free(text);
    free(p);
    return cli_finish(CMD, CLI_EXIT_OK);
}

enum { OPT_PROFILE, NOPT };

int cmd_policy(int argc, char **argv)
{
    cli_opt opts[NOPT] = {
        [OPT_PROFILE] = { "--profile", true, NULL, false },
    };
    int nargs = 0;
    int rc;
    if (!cli_opts_begin(CMD, argc, argv, opts, NOPT, &nargs, &rc))
        return rc;
    if (nargs < 1)
        return cli_usage_error(CMD, "missing action: check FILE, or show");
    if (strcmp(argv[1], "show") == 0) {
        if (nargs != 1)
            return cli_usage_error(CMD, "show takes no FILE (use --profile NAME)");
        return show(opts[OPT_PROFILE].value);
    }
    if (strcmp(argv[1], "check") == 0) {
        if (nargs != 2)
            return cli_usage_error(CMD, "check takes exactly one FILE");
        return check(argv[2], opts[OPT_PROFILE].value);
    }
    return cli_usage_error(CMD, "unknown action '%.*s' (check, show)", 40, argv[1]);
}
