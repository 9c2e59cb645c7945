/*
 * flags.c - names of the risk flags (urisan(1), FLAGS). The names come
 * from the one list, include/urisan_flags.def; they are a contract (API,
 * CLI, JSON, policy files), so nothing here spells a name by hand.
 */
#include "risk.h"

#include <string.h>

static const char *const flag_names[URISAN_FLAG_COUNT_] = {
#define URISAN_FLAG(U, l, bit) [bit] = #l,
#include "urisan_flags.def"
#undef URISAN_FLAG
};

URISAN_API const char *urisan_flag_name(urisan_flag f)
{
    if ((unsigned)f >= (unsigned)URISAN_FLAG_COUNT_)
        return NULL;
    return flag_names[f]; /* NULL for a hole in the list (none today) */
}

URISAN_API int urisan_flag_from_name(const char *name, size_t len)
{
    if (name == NULL)
        return -1;
    for (size_t b = 0; b < (size_t)URISAN_FLAG_COUNT_; b++) {
        const char *n = flag_names[b];
        /* exact, case-sensitive: the names are lower-case by contract */
        if (n != NULL && strlen(n) == len && memcmp(n, name, len) == 0)
            return (int)b;
    }
    return -1;
}
