/* policy_info.c - what a service enforces, for its log and /healthz
   (policy_info.h). */
#include "policy_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t cli_policy_rules(const urisan_policy *p)
{
    size_t n = 0;
    urisan_policy_format(p, NULL, 0, &n);
    char *text = malloc(n + 1);
    if (text == NULL)
        return 0;
    size_t rules = 0;
    if (urisan_policy_format(p, text, n, &n) == URISAN_OK) {
        /* one directive a line; "#" starts a comment line */
        for (size_t i = 0; i < n;) {
            const char *nl = memchr(text + i, '\n', n - i);
            size_t end = nl != NULL ? (size_t)(nl - text) : n;
            if (end > i && text[i] != '#')
                rules++;
            i = end + 1;
        }
    }
    free(text);
    return rules;
}

void cli_policy_info_make(cli_policy_info *i, const urisan_policy *p,
                          const char *profile, const char *file)
{
    i->version = urisan_version();
    i->profile = profile != NULL ? profile : "default";
    i->file = file;
    i->rules = cli_policy_rules(p);
}

/* s into buf[*at..cap), printable ASCII as is, any other byte \xNN;
   always leaves room for the NUL. */
static void put_text(char *buf, size_t cap, size_t *at, const char *s)
{
    for (; *s != '\0' && *at + 5 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c < 0x7f && c != '\\')
            buf[(*at)++] = (char)c;
        else
            *at += (size_t)snprintf(buf + *at, cap - *at, "\\x%02x", c);
    }
    buf[*at] = '\0';
}

void cli_policy_info_text(const cli_policy_info *i, char *buf, size_t cap)
{
    if (cap == 0)
        return;
    size_t at = 0;
    buf[0] = '\0';
    put_text(buf, cap, &at, "urisan ");
    put_text(buf, cap, &at, i->version);
    put_text(buf, cap, &at, ", profile ");
    put_text(buf, cap, &at, i->profile);
    if (i->file != NULL) {
        put_text(buf, cap, &at, ", policy file ");
        put_text(buf, cap, &at, i->file);
    } else {
        put_text(buf, cap, &at, ", no policy file");
    }
    char tail[48];
    snprintf(tail, sizeof tail, ", %zu rule%s", i->rules, i->rules == 1 ? "" : "s");
    put_text(buf, cap, &at, tail);
}

void cli_policy_info_json(json_w *w, const cli_policy_info *i)
{
    json_kcstr(w, "version", i->version);
    json_kcstr(w, "profile", i->profile);
    json_kcstr(w, "policy_file", i->file);
    json_kuint(w, "rules", i->rules);
}
