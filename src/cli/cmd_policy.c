/*
 * cmd_policy.c - `urisan policy check [--profile NAME] FILE` (validate a
 * policy file, print the effective policy) and `urisan policy show
 * [--profile NAME]` (a built-in profile as a policy file).
 */
#include "cli.h"
#include "policy_lint.h"
#include "policy_unbuilt.h"

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
    /* the handler table the flag handler_scheme reads (src/handlers.c),
       as comments: the output stays the profile's policy text */
    fputs("# handler schemes: the flag handler_scheme (doc/policy.md \"Handler schemes\"):\n"
          "# a link that starts a local program which opens, runs or loads what it names\n",
          stdout);
    const char *what, *source, *h;
    for (size_t i = 0; (h = urisan_handler_scheme(i, &what, &source)) != NULL; i++)
        printf("#   %-16s %s (%s)\n", h, what, source);
    return cli_finish(CMD, CLI_EXIT_OK);
}

/* The first LINT_SHOWN mistakes and warnings of the text, as they come
   (policy_lint.h), then "and N more": a hostile policy of 44 MB would
   otherwise write 174 MB of them. Every one is counted. */
#define LINT_SHOWN 100

typedef struct {
    const char *path, *text;
    size_t len;
    size_t errors, warnings;
    size_t shown, hidden;
} lint_out;

/* May one more problem be written? Counts it either way. */
static bool lint_show(lint_out *o)
{
    if (o->shown >= LINT_SHOWN) {
        o->hidden++;
        return false;
    }
    o->shown++;
    return true;
}

static void tell(void *ctx, const pol_diag *d)
{
    lint_out *o = ctx;
    if (d->warning)
        o->warnings++;
    else
        o->errors++;
    if (lint_show(o))
        cli_policy_diag(o->path, o->text, o->len, d);
}

/* The layers this build of the command lacks (policy_unbuilt.h). */
static unsigned layers_missing(void)
{
    unsigned m = 0;
#ifndef URISAN_HAVE_HOST
    m |= CLI_LAYER_HOST;
#endif
#ifndef URISAN_HAVE_MAIL
    m |= CLI_LAYER_MAIL;
#endif
    return m;
}

static void tell_unbuilt(void *ctx, size_t line, const char *flag, const char *layer)
{
    lint_out *o = ctx;
    if (!lint_show(o))
        return;
    cli_out_flush();
    fprintf(stderr, "%s:%zu: warning: no door of this build sets '%s' (built without %s)\n",
            o->path, line, flag, layer);
}

/* A warning for each rule of the text on a flag no door of this build
   sets: such a rule never fires. */
static void unbuilt_warnings(lint_out *o, const urisan_policy *p)
{
    o->warnings += cli_unbuilt_rules(p, layers_missing(), tell_unbuilt, o);
}

static int check(const char *path, const char *profile, bool strict)
{
    urisan_policy *p = cli_policy_load(CMD, NULL, profile);
    char *text = NULL;
    size_t len = 0;
    if (p == NULL || !cli_read_file(CMD, path, CLI_FILE_MAX, &text, &len)) {
        free(p);
        return cli_finish(CMD, CLI_EXIT_USAGE);
    }
    lint_out o = {path, text, len, 0, 0, 0, 0};
    urisan_pol_lint_refuse(p, text, len, CLI_REFUSED_FLAGS, tell, &o);
    if (o.errors == 0)
        unbuilt_warnings(&o, p);
    free(text);
    size_t n = 0;
    if (o.errors == 0)
        urisan_policy_format(p, NULL, 0, &n);
    char *out = o.errors == 0 ? malloc(n + 1) : NULL;
    if (o.errors == 0 && (out == NULL || urisan_policy_format(p, out, n, &n) != URISAN_OK)) {
        free(out);
        free(p);
        return cli_fail(CMD, "out of memory");
    }
    if (out != NULL)
        fwrite(out, 1, n, stdout);
    free(out);
    free(p);
    if (o.errors > 0 || o.warnings > 0) {
        cli_out_flush();
        if (o.hidden > 0)
            fprintf(stderr, "%s: and %zu more\n", path, o.hidden);
        fprintf(stderr, "%s: %zu error%s, %zu warning%s\n", path, o.errors,
                o.errors == 1 ? "" : "s", o.warnings, o.warnings == 1 ? "" : "s");
    }
    bool bad = o.errors > 0 || (strict && o.warnings > 0);
    return cli_finish(CMD, bad ? CLI_EXIT_FAIL : CLI_EXIT_OK);
}

enum { OPT_PROFILE, OPT_STRICT, NOPT };

int cmd_policy(int argc, char **argv)
{
    cli_opt opts[NOPT] = {
        [OPT_PROFILE] = { "--profile", true, NULL, false },
        [OPT_STRICT] = { "--strict", false, NULL, false },
    };
    int rc, nargs = cli_opts(CMD, argc, argv, opts, NOPT, &rc);
    if (nargs < 0)
        return rc;
    if (nargs < 1)
        return cli_usage_error(CMD, "missing action: check FILE, or show");
    if (strcmp(argv[1], "show") == 0) {
        if (nargs != 1)
            return cli_usage_error(CMD, "show takes no FILE (use --profile NAME), got '%.200s'",
                                   argv[2]);
        return show(opts[OPT_PROFILE].value);
    }
    if (strcmp(argv[1], "check") == 0) {
        if (nargs != 2)
            return nargs < 2 ? cli_usage_error(CMD, "check needs a FILE")
                             : cli_usage_error(CMD, "check takes one FILE, got '%.200s' too",
                                               argv[3]);
        return check(argv[2], opts[OPT_PROFILE].value, opts[OPT_STRICT].seen);
    }
    return cli_usage_error(CMD, "unknown action '%.*s' (check, show)", 40, argv[1]);
}
