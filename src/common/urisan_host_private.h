/*
 * urisan_host_private.h - what liburisan-host exports for the command
 * alone (src/cli): not installed, not part of the library's API. Every
 * call here is exported (URISAN_API) so that the command, linked to the
 * shared library, can reach it; tests/exported_symbols.sh reads this
 * header beside urisan_host.h.
 */
#ifndef URISAN_HOST_PRIVATE_H
#define URISAN_HOST_PRIVATE_H

#include "urisan_host.h"

/* Bits of urisan_hostview.internal. */
#define URISAN_HV_SKELETON_TABLE 1u /* skeleton made from a table of each
                                       ASCII byte's (a plain ASCII host) */
#define URISAN_HV_JSON_PLAIN 2u     /* unicode, skeleton, imitates and
                                       registrable are printable ASCII
                                       without '"' or '\\': each is its
                                       own JSON text */

static inline bool urisan_hv_json_plain(const urisan_hostview *hv)
{
    return (hv->internal & URISAN_HV_JSON_PLAIN) != 0;
}

/* p[0..n): bytes that start a later input. A hint: the memo entry of its
   host (guessed from "scheme://host" in its first 48 bytes) is asked of
   the memory system now. No view changes; ctx NULL: nothing is done. */
URISAN_API void urisan_host_prefetch(urisan_host_ctx *ctx, const char *p, size_t n);

#endif
