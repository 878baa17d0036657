/* mpfr_lowp.h — what the MPFR checks of the low-precision formats share
 * (test_lowp.c, test_f16_acc.c, test_half2.c): a value, exact in MPFR,
 * rounded into a format by MPFR itself. */
#ifndef DOTFUZZ_TEST_MPFR_LOWP_H
#define DOTFUZZ_TEST_MPFR_LOWP_H

#include <mpfr.h>

#include "fuzz/lowp.h"

/* x rounded into format f by MPFR (precision, exponent range, subnormals),
 * to nearest-even, before any overflow rule: +-Inf past the range as MPFR
 * gives it. */
static inline double df_test_mpfr_round_lowp(df_lowp f, mpfr_srcptr x)
{
    df_lowp_shape s = df_lowp_shape_of(f);
    int p = s.man_bits + 1;
    /* largest exponent: the top binade's (E4M3 keeps its all-ones
     * exponent for values; its S.1111.111 is checked apart) */
    int emax = s.ieee ? s.bias : s.bias + 1;
    int emin = 1 - s.bias; /* the smallest normal's exponent */
    mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    /* MPFR's exponents are one more (significands in [1/2, 1)); subnormals
     * by mpfr_subnormalize down to 2^(emin - man_bits) */
    mpfr_set_emin(emin - p + 2);
    mpfr_set_emax(emax + 1);
    mpfr_t m;
    mpfr_init2(m, p);
    int t = mpfr_set(m, x, MPFR_RNDN);
    t = mpfr_check_range(m, t, MPFR_RNDN);
    mpfr_subnormalize(m, t, MPFR_RNDN);
    double r = mpfr_get_d(m, MPFR_RNDN);
    mpfr_clear(m);
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    return r;
}

#endif
