/* two_sum.h — Knuth's TwoSum: s = x + y rounded to nearest, and its
 * rounding error e, so that x + y = s + e exactly (doubles rounded to
 * double: FLT_EVAL_METHOD 0 or 1, no overflow). The order set's correctly
 * rounded float sums (order_set.c) and the precision mutants' rounding
 * toward zero (kernels/mutants/precision_ops.h) are built on it, and so is
 * a sum rounded once to a low-precision format (df_lowp_add_rn: the host
 * model of half2-f16, kernels/half2_dot.cu). */
#ifndef DOTFUZZ_TWO_SUM_H
#define DOTFUZZ_TWO_SUM_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz/lowp.h"

static inline double df_two_sum(double x, double y, double *e)
{
    double s = x + y;
    double yy = s - x;
    *e = (x - (s - yy)) + (y - yy);
    return s;
}

/* RN_f(x + y), ties to even, exactly, for doubles x and y whose sum stays
 * finite in double: the double sum s and its error e, then s rounded to f.
 * Where s and x + y differ (e != 0) and s sits on a midpoint of f (the one
 * past the largest finite value included), the neighbour on the exact
 * sum's side; elsewhere s and x + y round alike. An FMA of f16 (or bf16)
 * values is one: their product is exact in double. */
/* df_lowp_add_rn's common case without a libm call or a branch (a loop
 * of them vectorizes): s's rounding by df_lowp_round_near, which is what
 * df_lowp_add_rn gives wherever s is not a midpoint reached by a rounding
 * (e != 0) and the rounding is finite in f; past f's largest value (s Inf
 * included) an IEEE-style format's rounding is Inf of s's sign, as
 * df_lowp_round's. *slow is set elsewhere (those midpoints, a NaN, E4M3's
 * overflow to NaN): there the result is df_lowp_add_rn's to make.
 * Always inlined: a loop that calls it vectorizes only with its body. */
static inline __attribute__((always_inline)) double df_lowp_add_rn_fast(df_lowp f, double x,
                                                                       double y, int *slow)
{
    double e, s = df_two_sum(x, y, &e), half, r = df_lowp_round_near(f, s, &half);
    int over = (fabs(r) <= df_lowp_max_value(f)) == 0, nan = s != s;
    int midpoint = fabs(fabs(s) - fabs(r)) == half, ieee = df_lowp_shape_of(f).ieee;
    double inf = copysign((double)INFINITY, s);
    uint64_t ri, ii, pick = 0 - (uint64_t)over; /* a mask: a choice would be a branch */
    memcpy(&ri, &r, sizeof ri);
    memcpy(&ii, &inf, sizeof ii);
    ri = (ii & pick) | (ri & ~pick);
    memcpy(&r, &ri, sizeof r);
    *slow = nan | (over & !ieee) | ((e != 0) & midpoint);
    return r;
}

static inline double df_lowp_add_rn(df_lowp f, double x, double y)
{
    int slow;
    double r = df_lowp_add_rn_fast(f, x, y, &slow);
    if (!slow)
        return r;
    double e, s = df_two_sum(x, y, &e);
    r = df_lowp_round(f, s, 0);
    if (e == 0 || !isfinite(s))
        return r; /* e != 0: s != 0 below */
    df_lowp_shape sh = df_lowp_shape_of(f);
    int ex = ilogb(s), emin = 1 - sh.bias;
    double half = ldexp(1.0, (ex < emin ? emin : ex) - sh.man_bits - 1);
    double q = s / half; /* an odd integer on a midpoint */
    if (q != nearbyint(q) || fmod(q, 2.0) == 0)
        return r;
    return df_lowp_round(f, e > 0 ? s + half : s - half, 0);
}

#endif
