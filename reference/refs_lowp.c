/* refs_lowp.c — where a chunk of a low-precision case's f32 values (its
 * references' data, widen.c and reference.c) has every partial sum of its
 * products exact in double, Kahan's state from one vectorized exact sum
 * (df_exact_sum_span) instead of Kahan's chain of four dependent additions
 * an element; its s is then the chunk's exact dot, in place of the
 * superaccumulator's pass.
 *
 * When the sums are exact. A value of format f with exponent e (floor of
 * log2 of its magnitude) is a multiple of its unit 2^(max(e, emin) -
 * man_bits); so every nonzero a_i is a multiple of 2^qa, qa the unit's
 * exponent at the smallest nonzero |a_i|, and every product a_i b_i (exact
 * in double, as every f32 product is) a multiple of Q = 2^(qa + qb). Every
 * partial sum of the products or of their magnitudes, in any order, is
 * then a multiple of Q no larger than G = sum |a_i b_i|; where G < 2^53 Q,
 * each is an integer below 2^53 times Q, a double: every addition is
 * exact. Kahan's chain then computes y = p - 0 = p, t = s + p exactly and
 * c = (t - s) - y = +0, so its s and G are the exact sums (never -0: they
 * start at +0, and an exact zero sum is +0), the very numbers the vector
 * lanes of df_exact_sum_span make; s is the exact dot. The lanes' G
 * decides it: computed with rounding it is at least G (1 - n 2^-53), so G
 * <= 2^52 Q (1 + 2^-36) < 2^53 Q wherever it is at most 2^52 Q (and then
 * it is G itself). E4M3 products (multiples of 2^-18 below 2^18) pass for
 * any chunk; the other formats where their exponents span little.
 */
#include <math.h>
#include <string.h>

#include "fuzz/cpu_clones.h"
#include "fuzz/lowp.h"
#include "reference/refs_internal.h"

/* The smallest exponent field of x's nonzero values (f32 bits; 0 for an
 * f32 subnormal, which only bf16's subnormals are), 255 where all are
 * zero. A reduction in a loop the x86-64-v3 clone vectorizes. */
DF_CPU_CLONES static uint32_t min_field(const float *restrict x, uint64_t len)
{
    uint32_t lo = 255;
    for (uint64_t i = 0; i < len; i++) {
        uint32_t u;
        memcpy(&u, &x[i], sizeof u);
        u &= UINT32_C(0x7fffffff);
        uint32_t k = u ? u >> 23 : 255;
        lo = k < lo ? k : lo;
    }
    return lo;
}

/* The exponent of the unit that divides every value of x (format f), or
 * none needed (255's) where all are zero: the unit at the smallest one. */
static int unit_exp(df_lowp f, const float *x, uint64_t len)
{
    df_lowp_shape s = df_lowp_shape_of(f);
    int e = (int)min_field(x, len) - 127, emin = 1 - s.bias;
    return (e < emin ? emin : e) - s.man_bits;
}

int df_lowp_sums_exact(df_type t, const float *wa, const float *wb, uint64_t len,
                       df_kahan_state *st)
{
    df_lowp f = (df_lowp)df_lowp_of(t);
    df_kahan_state e = {0.0, 0.0, 0.0, 0.0};
    df_exact_sum_span(DF_F32, wa, wb, 0, len, &e);
    if (e.g > ldexp(1.0, unit_exp(f, wa, len) + unit_exp(f, wb, len) + 52))
        return 0;
    *st = e;
    return 1;
}
