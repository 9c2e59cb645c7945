/*
 * flagcount.c - how often each risk flag (urisan(1), FLAGS) and each
 * default-policy verdict (urisan(1), POLICY) occurs in URL list files, one
 * URI per line.
 *
 *   cc -O2 -Iinclude tools/flagcount.c build/src/liburisan.a -o flagcount
 *   ./flagcount ../shared/data/urls/kasztp.txt ../shared/data/urls/userbait.txt ...
 *
 * A trailing LF, and a CR before it, end a line; every other byte is data.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "urisan.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE...\n", argv[0]);
        return 2;
    }
    printf("%-20s", "flag");
    for (int a = 1; a < argc; a++) {
        const char *b = strrchr(argv[a], '/');
        printf(" %16.16s", b ? b + 1 : argv[a]);
    }
    printf("\n");
    unsigned long (*cnt)[URISAN_FLAG_COUNT_ + 4] = calloc((size_t)argc, sizeof *cnt);
    if (!cnt)
        return 2;
    for (int a = 1; a < argc; a++) {
        FILE *fp = fopen(argv[a], "rb");
        if (!fp) {
            perror(argv[a]);
            return 2;
        }
        char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        while ((n = getline(&line, &cap, fp)) >= 0) {
            if (n > 0 && line[n - 1] == '\n')
                n--;
            if (n > 0 && line[n - 1] == '\r')
                n--;
            urisan_uri u;
            urisan_report r;
            urisan_decision d;
            urisan_check(line, (size_t)n, NULL, &u, &r, &d);
            for (int b = 0; b < URISAN_FLAG_COUNT_; b++)
                if (r.flags >> b & 1)
                    cnt[a][b]++;
            cnt[a][URISAN_FLAG_COUNT_ + d.verdict]++;
            cnt[a][URISAN_FLAG_COUNT_ + 3]++;
        }
        free(line);
        fclose(fp);
    }
    for (int b = 0; b < URISAN_FLAG_COUNT_ + 4; b++) {
        const char *name = b < URISAN_FLAG_COUNT_ ? urisan_flag_name((urisan_flag)b)
                           : b == URISAN_FLAG_COUNT_ + 3
                               ? "(lines)"
                               : urisan_verdict_name((urisan_verdict)(b - URISAN_FLAG_COUNT_));
        if (b == URISAN_FLAG_COUNT_)
            printf("%-20s\n", "-- default verdict");
        if (name == NULL)
            continue; /* a bit reserved for a flag not landed yet */
        printf("%-20s", name);
        for (int a = 1; a < argc; a++)
            printf(" %16lu", cnt[a][b]);
        printf("\n");
    }
    free(cnt);
    return 0;
}
