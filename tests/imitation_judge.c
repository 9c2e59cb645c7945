/*
 * imitation_judge.c - src/cli/imitation.c over lines, for
 * tests/impersonation_eval.py (which computes the host forms with
 * `urisan check --json`):
 *
 *   protect NAME BRAND_LEN BRAND_SKELETON
 *   host REGISTRABLE BRAND_LEN BRAND_SKELETON IDN(0|1)
 *
 * answers each host line with "none", "homograph NAME" or
 * "lookalike NAME". Fields are tab-separated; REGISTRABLE "-" is none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imitation.h"

static imit_list list;

int main(void)
{
    char line[4096];
    imit_list_init(&list);
    while (fgets(line, sizeof line, stdin) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        char *f[5] = {0};
        size_t nf = 0;
        for (char *p = strtok(line, "\t"); p != NULL && nf < 5; p = strtok(NULL, "\t"))
            f[nf++] = p;
        if (nf == 4 && strcmp(f[0], "protect") == 0) {
            if (!imit_list_add(&list, f[1], strlen(f[1]), 0, strtoul(f[2], NULL, 10), f[3],
                               strlen(f[3])))
                fprintf(stderr, "cannot protect %s\n", f[1]);
        } else if (nf == 5 && strcmp(f[0], "host") == 0) {
            /* "-": no registrable domain */
            size_t rn = strcmp(f[1], "-") == 0 ? 0 : strlen(f[1]);
            imit_host h = { f[1], rn, strtoul(f[2], NULL, 10), f[3], strlen(f[3]),
                            f[4][0] == '1' };
            const char *im;
            imit_kind k = imit_judge(&list, &h, &im);
            if (k == IMIT_NONE)
                puts("none");
            else
                printf("%s %s\n", k == IMIT_HOMOGRAPH ? "homograph" : "lookalike", im);
        } else {
            puts("none");
        }
    }
    return 0;
}
