/*
 * door_milter.c - the milter as a door of the door-equality test
 * (tests/door_equality.py): each input line becomes a message whose body
 * is that link ("<URL>"), judged by the milter's per-message path
 * (src/cli/milter_scan.c, what `urisan milter` runs for each message,
 * without libmilter); one "VERDICT<TAB>LINKS" line out per message. The
 * same messages are written as an mbox to the file named by --mbox, for
 * `urisan extract --mail` to read.
 *
 *   door_milter --mbox FILE [--profile NAME] [--policy FILE] < urls
 *   door_milter --messages --mbox FILE ... < paths
 *
 * With --messages, each input line names a file holding a whole message
 * (the attachments, calendar invites and HTML places the test builds).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "milter_scan.h"
#include "urisan_host.h"
#include "urisan_mail.h"

int main(int argc, char **argv)
{
    if (getenv("URISAN_READERS") != NULL) /* the build tree's readers (meson test) */
        (void)urisan_mail_set_readers(getenv("URISAN_READERS"));
    urisan_policy *pol = malloc(urisan_policy_size());
    FILE *mbox = NULL;
    bool files = false;
    if (pol == NULL)
        return 2;
    urisan_policy_init(pol);
    int first = 1;
    if (argc > 1 && strcmp(argv[1], "--messages") == 0) {
        files = true;
        first = 2;
    }
    for (int i = first; i + 1 < argc; i += 2) {
        const char *v = argv[i + 1];
        if (strcmp(argv[i], "--mbox") == 0) {
            mbox = fopen(v, "wb");
        } else if (strcmp(argv[i], "--profile") == 0) {
            if (urisan_policy_profile(pol, v, strlen(v)) != URISAN_OK)
                return 2;
        } else if (strcmp(argv[i], "--policy") == 0) {
            FILE *f = fopen(v, "rb");
            char text[65536];
            size_t n = f != NULL ? fread(text, 1, sizeof text, f) : 0;
            if (f != NULL)
                fclose(f);
            if (f == NULL || urisan_policy_parse_ex(pol, text, n, NULL) != URISAN_OK)
                return 2;
        } else {
            return 2;
        }
    }
    if (mbox == NULL) {
        fprintf(stderr, "door_milter: --mbox FILE needed\n");
        return 2;
    }
    urisan_mail_init();
    milter_conf conf;
    milter_conf_default(&conf);
    conf.pol = pol;
    char *line = NULL, *msg = NULL;
    size_t cap = 0;
    ssize_t n;
    unsigned k = 0;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        size_t len = (size_t)n;
        if (len > 0 && line[len - 1] == '\n')
            len--;
        if (len > 0 && line[len - 1] == '\r')
            len--;
        free(msg);
        msg = NULL;
        if (files) {
            line[len] = '\0';
            FILE *f = fopen(line, "rb");
            if (f == NULL)
                return 2;
            msg = malloc(1 << 20);
            size_t mlen = msg != NULL ? fread(msg, 1, 1 << 20, f) : 0;
            fclose(f);
            if (msg == NULL || mlen == 1 << 20)
                return 2;
            fprintf(mbox, "From door@example.org Thu Jan  1 00:00:00 2026\n");
            fwrite(msg, 1, mlen, mbox);
            fputc('\n', mbox);
            milter_outcome out;
            milter_judge(&conf, msg, mlen, false, &out);
            printf("%s\t%zu\n", out.verdict, out.links);
            k++;
            continue;
        }
        msg = malloc(len + 512);
        if (msg == NULL)
            return 2;
        int h = snprintf(msg, 512, "From: a@example.org\nTo: b@example.org\nSubject: door %u\n"
                         "Message-ID: <door-%u@example.org>\nMIME-Version: 1.0\n"
                         "Content-Type: text/plain; charset=utf-8\n\n<", k, k);
        memcpy(msg + h, line, len);
        memcpy(msg + h + len, ">\n", 2);
        size_t mlen = (size_t)h + len + 2;
        fprintf(mbox, "From door@example.org Thu Jan  1 00:00:00 2026\n");
        fwrite(msg, 1, mlen, mbox);
        fputc('\n', mbox);
        milter_outcome out;
        milter_judge(&conf, msg, mlen, false, &out);
        printf("%s\t%zu\n", out.verdict, out.links);
        k++;
    }
    free(msg);
    free(line);
    fclose(mbox);
    free(pol);
    urisan_mail_shutdown();
    urisan_host_shutdown();
    return 0;
}
