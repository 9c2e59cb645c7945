/*
 * quiet_check.h - Check assertions for loops over many inputs.
 *
 * Every passing ck_assert_* records its place (_mark_point: a write(2) to
 * Check's result file), so a case that checks millions of values spends
 * most of its time in the kernel. These fail the same way - the case
 * fails with the file, line and message - and do nothing on a pass. (A
 * crash is then reported at the case's last ck_assert_*, not the line.)
 */
#ifndef URISAN_QUIET_CHECK_H
#define URISAN_QUIET_CHECK_H

#include <check.h>
#include <stdint.h>
#include <string.h>

#define qc_assert_msg(expr, ...) \
    do { \
        if (!(expr)) \
            ck_abort_msg(__VA_ARGS__); \
    } while (0)

#define qc_assert(expr) qc_assert_msg(expr, "Assertion '%s' failed", #expr)

/* X == Y as numbers of type T, printed with the conversion F */
#define qc_assert_eq_(T, F, X, Y) \
    do { \
        T qc_x_ = (X), qc_y_ = (Y); \
        qc_assert_msg(qc_x_ == qc_y_, "Assertion '%s == %s' failed: %" F " != %" F, #X, #Y, \
                      qc_x_, qc_y_); \
    } while (0)

#define qc_assert_int_eq(X, Y) qc_assert_eq_(intmax_t, "jd", X, Y)
#define qc_assert_uint_eq(X, Y) qc_assert_eq_(uintmax_t, "ju", X, Y)

#define qc_assert_str_eq(X, Y) \
    do { \
        const char *qc_s_ = (X), *qc_t_ = (Y); \
        qc_assert_msg(strcmp(qc_s_, qc_t_) == 0, "Assertion '%s == %s' failed: \"%s\" != \"%s\"", \
                      #X, #Y, qc_s_, qc_t_); \
    } while (0)

#endif
