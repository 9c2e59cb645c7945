/*
 * replay.c - a main() that runs a fuzz harness without libFuzzer.
 *
 *   <harness> [-v] FILE|DIR...    run each file (a directory: each regular
 *                                 file in it, sorted, not recursive)
 *   <harness>                     no arguments: run standard input once
 *
 * Linked with every harness when the build has no fuzzer_ldflags, so that
 * `meson test --suite fuzz` replays corpus/<harness>/ in every build (gcc
 * included) and a crash file can be reproduced under gdb or valgrind.
 * Exit status: 0 all inputs ran; 2 an input could not be read. A broken
 * invariant aborts inside the harness; the name of the file is printed
 * first by the signal handler.
 */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *current = "(none)";

static void on_signal(int sig)
{
    /* async-signal-safe: write(2) only */
    static const char pre[] = "\n==replay== crashed on input: ";
    ssize_t r = write(2, pre, sizeof pre - 1);
    r = write(2, current, strlen(current));
    r = write(2, "\n", 1);
    (void)r;
    signal(sig, SIG_DFL);
    raise(sig);
}

static int read_all(FILE *fp, uint8_t **out, size_t *outlen)
{
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    if (buf == NULL)
        return -1;
    for (;;) {
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (nb == NULL) {
                free(buf);
                return -1;
            }
            buf = nb;
            cap *= 2;
        }
        size_t n = fread(buf + len, 1, cap - len, fp);
        len += n;
        if (n == 0)
            break;
    }
    if (ferror(fp)) {
        free(buf);
        return -1;
    }
    *out = buf;
    *outlen = len;
    return 0;
}

static int run_file(const char *path, int verbose)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL) {
        perror(path);
        return 2;
    }
    uint8_t *buf;
    size_t len;
    int rc = read_all(fp, &buf, &len);
    fclose(fp);
    if (rc != 0) {
        fprintf(stderr, "%s: read error\n", path);
        return 2;
    }
    /* Exact-size copy: an overread of the harness's own copy is the
       harness's business, but give it no slack either. */
    uint8_t *exact = malloc(len ? len : 1);
    if (exact == NULL)
        abort();
    if (len)
        memcpy(exact, buf, len);
    free(buf);
    current = path;
    if (verbose)
        fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
    LLVMFuzzerTestOneInput(exact, len);
    current = "(none)";
    free(exact);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, int verbose, size_t *count)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        perror(dir);
        return 2;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *names);
            if (nn == NULL)
                abort();
            names = nn;
        }
        size_t l = strlen(dir) + strlen(de->d_name) + 2;
        names[n] = malloc(l);
        if (names[n] == NULL)
            abort();
        snprintf(names[n], l, "%s/%s", dir, de->d_name);
        n++;
    }
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof *names, cmp_str);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            if (run_file(names[i], verbose) != 0)
                rc = 2;
            else
                (*count)++;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    signal(SIGABRT, on_signal);
    signal(SIGSEGV, on_signal);
    signal(SIGBUS, on_signal);
    signal(SIGFPE, on_signal);
    signal(SIGILL, on_signal);

    int verbose = 0, rc = 0, any = 0;
    size_t count = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0) {
            verbose = 1;
            continue;
        }
        if (argv[i][0] == '-')
            continue; /* libFuzzer-style flags (-runs=0 ...) are ignored */
        any = 1;
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            rc = 2;
        } else if (S_ISDIR(st.st_mode)) {
            if (run_dir(argv[i], verbose, &count) != 0)
                rc = 2;
        } else if (run_file(argv[i], verbose) != 0) {
            rc = 2;
        } else {
            count++;
        }
    }
    if (!any) {
        uint8_t *buf;
        size_t len;
        if (read_all(stdin, &buf, &len) != 0) {
            fprintf(stderr, "stdin: read error\n");
            return 2;
        }
        current = "(stdin)";
        LLVMFuzzerTestOneInput(buf, len);
        free(buf);
        count++;
    }
    printf("replay: %zu input(s) ran without a broken invariant\n", count);
    return rc;
}
