/*
 * skeleton.c - the TR39 skeleton of an ASCII host without an ICU call:
 * NFD leaves ASCII alone, so the skeleton of an ASCII string is the
 * concatenation of its bytes' skeletons, each taken from ICU once (when
 * the data is loaded) into a table.
 */
#include "host_internal.h"

#include <string.h>

/* The skeleton of each printable ASCII byte when it is ASCII: 7 bytes at
   most and a NUL (8: one fixed-size copy a byte). */
#define SKEL_W 8
static char ascii_skel[128][SKEL_W];
static unsigned char ascii_skel_len[128];   /* 0: none */
static bool ascii_skel_jbad[128];   /* the skeleton holds '"', '\\' or a control */

static bool is_ascii_text(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80)
            return false;
    return true;
}

void host_skeleton_init(const USpoofChecker *spoof)
{
    for (unsigned c = 0x21; c < 0x7f; c++) {
        char in[1] = { (char)c };
        char out[SKEL_W];
        UErrorCode st = U_ZERO_ERROR;
        int32_t n = uspoof_getSkeletonUTF8(spoof, 0, in, 1, out, (int32_t)sizeof out, &st);
        if (U_FAILURE(st) || n <= 0 || (size_t)n >= sizeof out || !is_ascii_text(out, (size_t)n))
            continue;
        memcpy(ascii_skel[c], out, (size_t)n);
        ascii_skel_len[c] = (unsigned char)n;
        for (int32_t k = 0; k < n; k++)
            if (out[k] == '"' || out[k] == '\\' || out[k] == 0x7f || (unsigned char)out[k] < 0x20)
                ascii_skel_jbad[c] = true;
    }
}

/* The skeleton of an ASCII host from ascii_skel (as ICU writes it, ""
   when it does not fit); false when a byte has no entry there. */
bool host_skeleton_ascii(const char *h, size_t n, char *out, size_t cap, bool *jplain)
{
    /* short hosts (at most 7 bytes a byte fit): no bound to check, one
       fixed-size copy a byte (its pad overwritten by what follows or the
       NUL); longer ones are checked byte by byte */
    _Static_assert(SKEL_W == sizeof ascii_skel[0], "one copy is a table row");
    bool bounded = n >= cap / SKEL_W;
    size_t o = 0;
    bool jbad = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)h[i] & 0x7f;
        size_t kl = ascii_skel_len[c];
        if (kl == 0)
            return false;
        if (bounded && o + kl >= cap) {
            out[0] = '\0';
            return true;
        }
        jbad |= ascii_skel_jbad[c];
        memcpy(out + o, ascii_skel[c], bounded ? kl : SKEL_W);
        o += kl;
    }
    out[o] = '\0';
    *jplain = !jbad;
    return true;
}
