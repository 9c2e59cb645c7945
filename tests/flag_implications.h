/*
 * flag_implications.h - the implications between flags (doc/policy.md),
 * checked on a report's flag set (test_flags.c on data sets and hostile
 * inputs, test_spec.c on every case of tests/spec). Needs <check.h> and
 * urisan.h.
 */
#ifndef URISAN_FLAG_IMPLICATIONS_H
#define URISAN_FLAG_IMPLICATIONS_H

#include <check.h>
#include <stddef.h>

#include "urisan.h"

static inline void check_implications(const char *in, size_t len, urisan_flags f)
{
#define FI_(n) URISAN_F(n)
    static const struct {
        urisan_flags if_, then;
    } imp[] = {
        {FI_(PASSWORD), FI_(USERINFO)},        {FI_(RESERVED_PORT), FI_(NONDEFAULT_PORT)},
        {FI_(ESCAPED_CRLF), FI_(ESCAPED_CTL)}, {FI_(ESCAPED_NUL), FI_(ESCAPED_CTL)},
        {FI_(IP_OBFUSCATED), FI_(IP_LITERAL)}, {FI_(DOT_ABOVE_ROOT), FI_(DOT_SEGMENTS)},
        {FI_(ENCODED_DOT), FI_(DOT_SEGMENTS)}, {FI_(NON_ASCII), FI_(INVALID)},
        {FI_(INVALID_ESCAPE), FI_(INVALID)},   {FI_(BACKSLASH), FI_(INVALID)},
        {FI_(TOO_LONG), FI_(INVALID)},
    };
    for (size_t k = 0; k < sizeof imp / sizeof imp[0]; k++)
        if ((f & imp[k].if_) && !(f & imp[k].then))
            ck_abort_msg("implication broken on %.*s", (int)(len > 200 ? 200 : len), in);
    if (f & FI_(TOO_LONG))
        ck_assert_uint_eq(f, FI_(TOO_LONG) | FI_(INVALID));
#undef FI_
}

#endif
