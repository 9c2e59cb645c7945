/* row_keys.c - the library's description of a link's row
   (urisan_link_row_keys) as JSON on stdout, for row_schema_test.py:
   [{"name","type","when","shown","sub":[]}, ...] in order. */
#include <stdio.h>

#include "urisan.h"

int main(void)
{
    size_t n;
    const urisan_result_key *k = urisan_link_row_keys(&n);
    putchar('[');
    for (size_t i = 0; i < n; i++)
        printf("%s{\"name\":\"%s\",\"type\":\"%s\",\"when\":%u,\"shown\":%u,\"sub\":[]}",
               i ? "," : "", k[i].name, k[i].type, k[i].when, k[i].shown);
    puts("]");
    return 0;
}
