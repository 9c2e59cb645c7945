/*
 * parse_ssse3.c - the parser's fast path (parse_fast.h) compiled with
 * -mssse3, so simd.h classifies 16 bytes with two pshufb table lookups
 * instead of a dozen SSE2 compares. Built only for x86 when the compiler
 * takes -mssse3 (src/meson.build); urisan_parse calls it only on a CPU
 * that has SSSE3 (urisan_cpu_ssse3).
 */
#include "internal.h"
#include "parse_fast.h"
#include "scan.h"

#ifndef URISAN_SIMD_SSSE3
#error "parse_ssse3.c must be compiled with -mssse3"
#endif

bool urisan_parse_fast_ssse3(const char *in, size_t len, const urisan_limits *lim, urisan_uri *u,
                             unsigned *sum)
{
    return parse_plain(in, len, lim, u, sum);
}
