/* two_sum.h — Knuth's TwoSum: s = x + y rounded to nearest, and its
 * rounding error e, so that x + y = s + e exactly (doubles rounded to
 * double: FLT_EVAL_METHOD 0 or 1, no overflow). The order set's correctly
 * rounded float sums (order_set.c) and the precision mutants' rounding
 * toward zero (kernels/mutants/precision_ops.h) are built on it. */
#ifndef DOTFUZZ_TWO_SUM_H
#define DOTFUZZ_TWO_SUM_H

static inline double df_two_sum(double x, double y, double *e)
{
    double s = x + y;
    double yy = s - x;
    *e = (x - (s - yy)) + (y - yy);
    return s;
}

#endif
