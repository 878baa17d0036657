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
static inline double df_lowp_add_rn(df_lowp f, double x, double y)
{
    double e, s = df_two_sum(x, y, &e);
    /* s's rounding without a libm call (df_lowp_round_near) wherever it is
     * finite in f, and s is not a midpoint reached by a rounding (e != 0):
     * there it is what the steps below give */
    double unit_half, r = df_lowp_round_near(f, s, &unit_half);
    if (fabs(r) <= df_lowp_max_value(f) && (e == 0 || fabs(fabs(s) - fabs(r)) != unit_half))
        return r;
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
