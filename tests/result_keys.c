/* result_keys.c - the library's description of a result's keys
   (urisan_result_keys) as JSON on stdout, for result_schema_test.py:
   [{"name","type","when","shown","sub":[...]}, ...] in order. */
#include <stdio.h>

#include "urisan.h"

static void keys(const urisan_result_key *k, size_t n)
{
    putchar('[');
    for (size_t i = 0; i < n; i++) {
        printf("%s{\"name\":\"%s\",\"type\":\"%s\",\"when\":%u,\"shown\":%u,\"sub\":",
               i ? "," : "", k[i].name, k[i].type, k[i].when, k[i].shown);
        keys(k[i].sub, k[i].sub != NULL ? k[i].nsub : 0);
        putchar('}');
    }
    putchar(']');
}

int main(void)
{
    size_t n;
    const urisan_result_key *k = urisan_result_keys(&n);
    keys(k, n);
    putchar('\n');
    return 0;
}
