/* precision_ops.h — the arithmetic of the precision mutants
 * (precision_mutants.cu) on the CPU, in portable C: a float addition
 * rounded toward zero, and a float rounded to bfloat16. Both compile as
 * C11 (the host models) and as C++ (the nvcc half's CPU sum of the block
 * partials). Neither touches the floating-point environment (no
 * fesetround): the library runs host models on several threads at once,
 * and a rounding mode one of them set would change the others' sums.
 */
#ifndef DOTFUZZ_PRECISION_OPS_H
#define DOTFUZZ_PRECISION_OPS_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "reference/two_sum.h"

/* df_fadd_rz needs every double operation rounded to double, not held
 * wider (x87's FLT_EVAL_METHOD 2 would break TwoSum's error term). */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0 && FLT_EVAL_METHOD != 1
#error "precision_ops.h needs double operations rounded to double (FLT_EVAL_METHOD 0 or 1)"
#endif

/* x + y rounded toward zero, as IEEE 754's roundTowardZero and CUDA's
 * __fadd_rz give it, subnormals kept.
 *
 * The exact sum of two floats is hi + lo exactly: hi = (double)x +
 * (double)y rounded to nearest, lo its rounding error (Knuth's TwoSum,
 * exact because every float is a double and no double sum of floats
 * overflows). r = hi rounded to the nearest float is then either the
 * exact sum truncated to a float, or the float one step further from zero
 * (rounding is monotonic and both candidates are doubles); when |r| is
 * above |hi + lo|, r steps one float toward zero. Comparing |r| with
 * |hi + lo|: above when |r| > |hi| (the exact sum cannot then reach |r|,
 * or hi would not be below it), and when r == hi with lo pulling the
 * other way. A sum past FLT_MAX rounds to Inf, which steps to FLT_MAX:
 * rounding toward zero never overflows to Inf. An exact zero keeps the
 * sign rounding to nearest gives it (+0, and -0 for -0 + -0), as every
 * direction but toward -Inf does; a nonzero sum of floats is a multiple of
 * 2^-149, so it never truncates to zero. Inf and NaN operands give what
 * x + y gives: such sums do not depend on the rounding direction. */
static inline float df_fadd_rz(float x, float y)
{
    if (!isfinite(x) || !isfinite(y))
        return x + y;
    double lo, hi = df_two_sum(x, y, &lo);
    float r = (float)hi;
    double dr = r;
    int past = fabs(dr) > fabs(hi) ||
               (dr == hi && lo != 0.0 && (lo < 0.0) != (hi < 0.0));
    return past ? nextafterf(r, 0.0f) : r;
}

/* x rounded to bfloat16 (float's sign and exponent, 8 significant bits)
 * to nearest, ties to even, as CUDA's __float2bfloat16_rn rounds it, and
 * widened back to float: the top 16 bits of x's pattern, rounded. Adding
 * 0x7fff plus the lowest kept bit carries into the kept bits exactly when
 * the 16 dropped bits are above half, or at half with the kept part odd;
 * the carry runs from the subnormals into the normals, and from the
 * largest floats into Inf, as rounding does. Inf and NaN come back as
 * they are. */
static inline float df_bf16_rn(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    if ((u & 0x7f800000u) == 0x7f800000u)
        return x;
    u += 0x7fffu + ((u >> 16) & 1u);
    u &= 0xffff0000u;
    memcpy(&x, &u, sizeof x);
    return x;
}

#endif
