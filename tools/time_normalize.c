/*
 * time_normalize.c - ns per URL for urisan_normalize (and, for scale,
 * urisan_parse alone) over a file of URLs, one per line. A measurement
 * tool, never a test (doc/bench.md).
 *
 *   meson setup build-rel --buildtype=release && ninja -C build-rel
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude \
 *      tools/time_normalize.c build-rel/src/liburisan.a -o /tmp/time_normalize
 *   /tmp/time_normalize ../shared/data/urls/kasztp.txt [rounds]
 */
#include "urisan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE [rounds]\n", argv[0]);
        return 2;
    }
    int rounds = argc > 2 ? atoi(argv[2]) : 20;
    FILE *fp = fopen(argv[1], "rb");
    if (!fp) {
        perror(argv[1]);
        return 2;
    }
    size_t cap = 0, nl = 0, lcap = 1024, bytes = 0;
    char *line = NULL;
    char **lines = malloc(lcap * sizeof *lines);
    size_t *lens = malloc(lcap * sizeof *lens);
    ssize_t got;
    while ((got = getline(&line, &cap, fp)) >= 0) {
        size_t n = (size_t)got;
        if (n && line[n - 1] == '\n')
            n--;
        if (nl == lcap) {
            lcap *= 2;
            lines = realloc(lines, lcap * sizeof *lines);
            lens = realloc(lens, lcap * sizeof *lens);
        }
        lines[nl] = malloc(n ? n : 1);
        memcpy(lines[nl], line, n);
        lens[nl++] = n;
        bytes += n;
    }
    fclose(fp);
    free(line);

    static char out[1 << 16];
    size_t ok = 0, sink = 0;
    double t0 = now();
    for (int r = 0; r < rounds; r++) {
        for (size_t i = 0; i < nl; i++) {
            size_t need;
            if (urisan_normalize(lines[i], lens[i], NULL, out, sizeof out, &need, NULL) == URISAN_OK) {
                ok += (r == 0);
                sink += need;
            }
        }
    }
    double tn = (now() - t0) / ((double)rounds * (double)nl);

    t0 = now();
    for (int r = 0; r < rounds; r++) {
        for (size_t i = 0; i < nl; i++) {
            urisan_uri u;
            sink += urisan_parse(lines[i], lens[i], NULL, &u, NULL) == URISAN_OK;
        }
    }
    double tp = (now() - t0) / ((double)rounds * (double)nl);

    printf("%s: %zu URLs (%zu valid, avg %.1f bytes), %d rounds\n", argv[1], nl, ok,
           (double)bytes / (double)nl, rounds);
    printf("normalize: %.1f ns/URL (%.0f MB/s)   parse alone: %.1f ns/URL   [%zu]\n", tn,
           (double)bytes / (double)nl / tn * 1e3, tp, sink % 10);
    for (size_t i = 0; i < nl; i++)
        free(lines[i]);
    free(lines);
    free(lens);
    return 0;
}
