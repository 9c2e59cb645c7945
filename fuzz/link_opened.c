/*
 * fuzz/link_opened.c - urisan_link_opened and urisan_link_read_opened
 * (liburisan-host, include/urisan_host.h): a link written in Unicode as
 * the URI a browser opens.
 *
 * Invariants:
 *  1. a URI opened is plain ASCII (no byte >= 0x80), keeps the input's
 *     scheme and ':' as written, and is never returned for an all-ASCII
 *     input (NULL: read as written);
 *  2. opened again it is read as written (NULL): the conversion is done
 *     once, in one step;
 *  3. urisan_link_read_opened on the input's parse and analysis returns
 *     the same URI and leaves *uri and *rep as urisan_parse_analyze of
 *     it; without non_ascii it returns NULL and changes nothing.
 */
#include <stdbool.h>

#include "fuzz_util.h"
#include "urisan_host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = fuzz_dup(data, size);
    size_t n = 0;
    char *o = urisan_link_opened(in, size, &n);
    bool high = false;
    for (size_t i = 0; i < size; i++)
        high |= (unsigned char)in[i] >= 0x80;
    if (o != NULL) {
        FUZZ_ASSERT(high, "an all-ASCII input was converted");
        for (size_t i = 0; i < n; i++)
            FUZZ_ASSERT((unsigned char)o[i] < 0x80, "byte %zu of the URI opened is not ASCII", i);
        const char *colon = memchr(in, ':', size);
        FUZZ_ASSERT(colon != NULL && (size_t)(colon - in) + 1 <= n &&
                    memcmp(o, in, (size_t)(colon - in) + 1) == 0, "the scheme changed");
        size_t n2 = 0;
        char *o2 = urisan_link_opened(o, n, &n2);
        FUZZ_ASSERT(o2 == NULL, "the URI opened converts again");
    } else {
        FUZZ_ASSERT(n == 0, "NULL with a length");
    }
    urisan_uri u, u2;
    urisan_report rep, rep2;
    urisan_parse_analyze(in, size, NULL, &u, NULL, &rep);
    urisan_report before = rep;
    size_t rn = 0;
    char *r = urisan_link_read_opened(NULL, in, size, &u, &rep, &rn);
    if (!(before.flags & URISAN_F(NON_ASCII))) {
        FUZZ_ASSERT(r == NULL && rep.flags == before.flags, "read without non_ascii");
    } else if (o == NULL) {
        FUZZ_ASSERT(r == NULL && rep.flags == before.flags, "read where nothing converts");
    } else {
        FUZZ_ASSERT(r != NULL && rn == n && memcmp(r, o, n) == 0, "read_opened differs");
        urisan_parse_analyze(r, rn, NULL, &u2, NULL, &rep2);
        FUZZ_ASSERT(rep2.flags == rep.flags && u2.valid == u.valid, "the analysis is not the URI's");
    }
    free(r);
    free(o);
    fuzz_done(in);
    return 0;
}
