/*
 * door_c.c - the C API as a door of the door-equality test
 * (tests/door_equality.py): one line in, "VERDICT<TAB>FLAG,FLAG" out,
 * through liburisan-host's urisan_judge, as an embedder calls it.
 *
 *   door_c [--profile NAME] [--policy FILE] < urls
 *
 * A trailing CR of a CRLF line is stripped, as the command does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "urisan_host.h"

static urisan_policy *load(int argc, char **argv)
{
    urisan_policy *p = malloc(urisan_policy_size());
    if (p == NULL)
        return NULL;
    urisan_policy_init(p);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--profile") == 0) {
            if (urisan_policy_profile(p, argv[i + 1], strlen(argv[i + 1])) != URISAN_OK)
                goto fail;
        } else if (strcmp(argv[i], "--policy") == 0) {
            FILE *f = fopen(argv[i + 1], "rb");
            char text[65536];
            size_t n = f != NULL ? fread(text, 1, sizeof text, f) : 0;
            if (f != NULL)
                fclose(f);
            if (f == NULL || urisan_policy_parse_ex(p, text, n, NULL) != URISAN_OK)
                goto fail;
        } else {
            goto fail;
        }
    }
    return p;
fail:
    free(p);
    return NULL;
}

int main(int argc, char **argv)
{
    urisan_policy *pol = load(argc, argv);
    urisan_host_ctx *ctx = urisan_host_ctx_new();
    if (pol == NULL || ctx == NULL) {
        fprintf(stderr, "door_c: bad arguments or policy\n");
        return 2;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        size_t len = (size_t)n;
        if (len > 0 && line[len - 1] == '\n')
            len--;
        if (len > 0 && line[len - 1] == '\r')
            len--;
        urisan_judgement j;
        urisan_judge(ctx, line, len, pol, 0, &j);
        fputs(urisan_verdict_name(j.dec.verdict), stdout);
        putchar('\t');
        const char *sep = "";
        for (unsigned b = 0; b < 64; b++) {
            if (j.rep.flags >> b & 1) {
                const char *name = urisan_flag_name((urisan_flag)b);
                printf("%s%s", sep, name != NULL ? name : "?");
                sep = ",";
            }
        }
        putchar('\n');
    }
    free(line);
    free(pol);
    urisan_host_ctx_free(ctx);
    urisan_host_shutdown();
    return 0;
}
