/* test_fused_dot.c — reference/fused_dot.h: H100 behaviour as measured
 * (fp16 mma's result rounded toward zero, wgmma E4M3's 13 fraction
 * bits), the cut of each term below the largest exponent and
 * the alignment by the factors' exponents, the result's rounding against
 * MPFR, and a model wide enough to cut nothing equal to the correctly
 * rounded (or truncated) float of the exact sum, by MPFR; the chains over
 * low-precision data (df_fused_chain_lowp) those of df_fused_group. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <string.h>

#include "fuzz/lowp.h"
#include "fuzz/pcg32.h"
#include "reference/fused_dot.h"

/* mma.sync fp16 -> f32 on an H100 rounds its result toward zero: a sum
 * 0.75 ulp above 2^17 comes back 0 ulp above, 1.5 ulp comes back 1, both
 * signs. */
Test(fused_dot, fp16_result_rounds_toward_zero)
{
    df_fused_model m = df_fused_hopper_f16();
    double ulp = ldexp(1, 17 - 23);
    for (int sign = -1; sign <= 1; sign += 2) {
        double a[2] = {256.0 * sign, 3 * ldexp(1, -8) * sign}, b[2] = {512.0, 1.0};
        cr_assert_eq(df_fused_group(&m, 0, a, b, 2), sign * ldexp(1, 17));
        a[1] = 6 * ldexp(1, -8) * sign; /* 1.5 ulp */
        cr_assert_eq(df_fused_group(&m, 0, a, b, 2), sign * (ldexp(1, 17) + ulp));
    }
}

/* wgmma E4M3 -> f32 on an H100 (cuBLASLt's fp8 matmul) keeps 13 fraction
 * bits: beside a product of 256, one of 2^-5 survives and one of 2^-6
 * vanishes. */
Test(fused_dot, fp8_keeps_thirteen_fraction_bits)
{
    df_fused_model m = df_fused_hopper_fp8(-6);
    double a[2] = {16, 0.125}, b[2] = {16, 0.25}; /* 256 and 2^-5 */
    cr_assert_eq(df_fused_group(&m, 0, a, b, 2), 256 + ldexp(1, -5));
    b[1] = 0.125; /* 2^-6 */
    cr_assert_eq(df_fused_group(&m, 0, a, b, 2), 256.0);
    /* every value is E4M3's */
    for (int i = 0; i < 2; i++)
        cr_assert_eq(df_lowp_round(DF_LOWP_E4M3, a[i], 0), a[i]);
}

/* Each term is cut on its own: fifteen terms of 0.5625 quanta below 2^10
 * are each cut to nothing, where the exact sum truncated keeps 2 ulps. */
Test(fused_dot, each_term_is_cut_before_the_sum)
{
    df_fused_model m = df_fused_hopper_f16();
    double a[16], b[16];
    a[0] = 32;
    b[0] = 32; /* 2^10 */
    double small = 0.5625 * ldexp(1, 10 - 25); /* an fp16 subnormal */
    for (int i = 1; i < 16; i++) {
        a[i] = small;
        b[i] = 1;
    }
    double got = df_fused_group(&m, 0, a, b, 16);
    cr_assert_eq(got, 1024.0, "%a", got);
    double exact = 1024.0 + 15 * small;
    cr_assert_eq(df_round_bits(exact, 23, -126, 127, DF_ROUND_ZERO), 1024.0 + ldexp(1, -12));
}

/* The alignment takes the factors' exponents: 1.5 x 1.5 = 2.25 aligns at
 * 2^0, not 2^1, so eight terms of 2^-25 survive it and sum to one ulp of
 * 2.25; aligned at the product's own exponent they would be cut. */
Test(fused_dot, alignment_uses_the_factors_exponents)
{
    df_fused_model m = df_fused_hopper_f16();
    double a[9] = {1.5}, b[9] = {1.5};
    for (int i = 1; i < 9; i++) {
        a[i] = ldexp(1, -13); /* fp16 values: 2^-13 x 2^-12 = 2^-25 */
        b[i] = ldexp(1, -12);
    }
    cr_assert_eq(df_fused_group(&m, 0, a, b, 9), 2.25 + ldexp(1, -22));
}

/* The exact sum of c and the products by MPFR, rounded to float by rnd. */
static double mpfr_float_of_sum(double c, const double *a, const double *b, size_t k,
                                mpfr_rnd_t rnd)
{
    mpfr_t s, p;
    mpfr_init2(s, 2200);
    mpfr_init2(p, 120);
    mpfr_set_d(s, c, MPFR_RNDN);
    for (size_t i = 0; i < k; i++) {
        mpfr_set_d(p, a[i], MPFR_RNDN);
        mpfr_mul_d(p, p, b[i], MPFR_RNDN); /* exact: 120 bits */
        mpfr_add(s, s, p, MPFR_RNDN);      /* exact: 2200 bits */
    }
    float f = mpfr_get_flt(s, rnd);
    mpfr_clear(s);
    mpfr_clear(p);
    return f;
}

/* With room for every bit the model is the exact sum rounded once: to
 * nearest-even, or toward zero, equal to MPFR's float of it. Room: 46 bits
 * below the largest term hold every term of these groups (factors'
 * exponents in [-6, 6], c's in [-5, 12]: no term's last bit falls more
 * than 46 places below the largest exponent, and the sum stays below
 * 2^53), over random fp16 and bf16 groups. */
Test(fused_dot, wide_alignment_is_the_exact_sum_rounded_once)
{
    df_pcg32 r;
    df_pcg32_seed(&r, 34, 2);
    const df_lowp fmts[2] = {DF_LOWP_F16, DF_LOWP_BF16};
    for (int f = 0; f < 2; f++) {
        df_fused_model m = f == 0 ? df_fused_hopper_f16() : df_fused_hopper_bf16();
        m.align_bits = 46;
        for (int i = 0; i < 20000; i++) {
            double a[16], b[16];
            size_t k = 1 + df_pcg32_bounded(&r, 16);
            for (size_t j = 0; j < 2 * k; j++) {
                double u = 0.5 + (double)df_pcg32_next(&r) / 8589934592.0; /* [1/2, 1) */
                double v = df_lowp_round(fmts[f], ldexp(u, (int)df_pcg32_bounded(&r, 13) - 5), 1);
                v = df_pcg32_bounded(&r, 2) ? -v : v;
                if (j < k)
                    a[j] = v;
                else
                    b[j - k] = v;
            }
            double u = 0.5 + (double)df_pcg32_next(&r) / 8589934592.0;
            float c = (float)ldexp(df_pcg32_bounded(&r, 2) ? -u : u,
                                   (int)df_pcg32_bounded(&r, 18) - 4);
            m.out_round = DF_ROUND_NEAREST;
            double got = df_fused_group(&m, c, a, b, k);
            double want = mpfr_float_of_sum(c, a, b, k, MPFR_RNDN);
            cr_assert(got == want, "RN %d: %a, want %a", i, got, want);
            m.out_round = DF_ROUND_ZERO;
            got = df_fused_group(&m, c, a, b, k);
            want = mpfr_float_of_sum(c, a, b, k, MPFR_RNDZ);
            cr_assert(got == want, "RZ %d: %a, want %a", i, got, want);
        }
    }
}

/* The result's rounding: subnormal results, overflow (toward zero never
 * reaches Inf), Inf and NaN in the sum, the dot made of groups. */
Test(fused_dot, result_rounding_and_special_values)
{
    cr_assert_eq(df_round_bits(ldexp(1.75, -140), 23, -126, 127, DF_ROUND_ZERO), ldexp(1.75, -140));
    cr_assert_eq(df_round_bits(ldexp(1, -150) * 3, 23, -126, 127, DF_ROUND_NEAREST),
                 ldexp(1, -148)); /* 1.5 quanta to 2 */
    cr_assert_eq(df_round_bits(1e39, 23, -126, 127, DF_ROUND_ZERO), (double)FLT_MAX);
    cr_assert(isinf(df_round_bits(1e39, 23, -126, 127, DF_ROUND_NEAREST)));
    cr_assert_eq(df_round_bits(1 + ldexp(1, -13), 13, -126, 127, DF_ROUND_ZERO), 1 + ldexp(1, -13));
    cr_assert_eq(df_round_bits(1 + ldexp(1, -14), 13, -126, 127, DF_ROUND_ZERO), 1.0);
    df_fused_model m = df_fused_hopper_f16();
    double a[3] = {1, INFINITY, 2}, b[3] = {1, 1, 3};
    cr_assert(isinf(df_fused_group(&m, 0, a, b, 3)));
    a[1] = NAN;
    cr_assert(isnan(df_fused_group(&m, 0, a, b, 3)));
    /* 40 products of 1 x 1 in groups of 16: 16, then 32, then 40 */
    double ones[40];
    for (int i = 0; i < 40; i++)
        ones[i] = 1;
    cr_assert_eq(df_fused_dot(&m, ones, ones, 40), 40.0);
    cr_assert_eq(df_fused_dot(&m, ones, ones, 0), 0.0);
}

/* The bound holds: random normal fp16, bf16 and E4M3 vectors of up to
 * 2,000 elements, cancelling ones among them, under each Hopper model,
 * never err by more than df_fused_bound; and it is not idle (the worst
 * case reaches a thousandth of it). */
Test(fused_dot, error_stays_within_the_bound)
{
    df_pcg32 r;
    df_pcg32_seed(&r, 7, 34);
    const df_lowp fmts[3] = {DF_LOWP_F16, DF_LOWP_BF16, DF_LOWP_E4M3};
    static double a[2000], b[2000];
    double worst = 0;
    for (int f = 0; f < 3; f++) {
        df_fused_model m = f == 0   ? df_fused_hopper_f16()
                           : f == 1 ? df_fused_hopper_bf16()
                                    : df_fused_hopper_fp8(-6);
        double top = f == 2 ? 200 : 1000;
        for (int t = 0; t < 300; t++) {
            size_t n = 1 + df_pcg32_bounded(&r, 2000);
            int cancel = t % 3 == 0;
            for (size_t i = 0; i < n; i++) {
                double x = (0.5 + (double)df_pcg32_next(&r) / 8589934592.0) *
                           ldexp(top, -(int)df_pcg32_bounded(&r, 8));
                double y = (0.5 + (double)df_pcg32_next(&r) / 8589934592.0) *
                           ldexp(1, -(int)df_pcg32_bounded(&r, 4));
                a[i] = df_lowp_round(fmts[f], df_pcg32_bounded(&r, 2) ? -x : x, 1);
                b[i] = df_lowp_round(fmts[f], y, 1);
                if (cancel && i % 2 == 1) { /* the previous product again, negated */
                    a[i] = -a[i - 1];
                    b[i] = b[i - 1];
                }
            }
            mpfr_t s, p;
            mpfr_init2(s, 2200);
            mpfr_init2(p, 120);
            mpfr_set_zero(s, 1);
            double G = 0;
            for (size_t i = 0; i < n; i++) {
                mpfr_set_d(p, a[i], MPFR_RNDN);
                mpfr_mul_d(p, p, b[i], MPFR_RNDN);
                mpfr_add(s, s, p, MPFR_RNDN);
                G += fabs(a[i] * b[i]);
            }
            double got = df_fused_dot(&m, a, b, n);
            mpfr_sub_d(s, s, got, MPFR_RNDN);
            double err = fabs(mpfr_get_d(s, MPFR_RNDU));
            double bound = df_fused_bound(&m, n, G * (1 + 1e-15));
            mpfr_clear(s);
            mpfr_clear(p);
            cr_assert(err <= bound, "format %d n %zu: error %g > bound %g", f, n, err, bound);
            if (bound > 0 && err / bound > worst)
                worst = err / bound;
        }
    }
    cr_assert(worst > 1e-3, "the worst case reaches only %g of the bound", worst);
    /* the cut's share is needed: 1 and sixteen products of 0.9375 quanta
     * below it (normal fp16 factors) lose 15 quanta, 3.75 ulps of the
     * result, past what the result's rounding alone allows */
    df_fused_model m = df_fused_hopper_f16();
    a[0] = b[0] = 1;
    for (int i = 1; i < 17; i++) {
        a[i] = ldexp(1, -13);
        b[i] = 0.9375 * ldexp(1, -12);
    }
    double G = 1 + 16 * 0.9375 * ldexp(1, -25), s = G;
    double err = fabs(df_fused_dot(&m, a, b, 17) - s);
    cr_assert_eq(err, 15 * ldexp(1, -25));
    cr_assert(err <= df_fused_bound(&m, 17, G));
    cr_assert(err > ldexp(1, -23) * G, "the rounding's share alone would hold it");
}

/* df_fused_chain_lowp (the tensor-core dots' models over low-precision
 * data) against a chain of df_fused_group on the decoded values, bit for
 * bit: random declarations across every field's range and past the ranges
 * its integer steps cover (bits kept 0 to 48, either rounding, input
 * exponent floors far below and above the formats'), every format, data
 * in exponent windows wide and narrow with zeros, Inf and NaN, groups of
 * 1 to 64, chains that start, stride and end anywhere. */
Test(fused_dot, lowp_chains_are_fused_group_chains)
{
    static const df_type types[] = {DF_F16, DF_BF16, DF_E4M3, DF_E5M2};
    static const int in_min[] = {-1000, -200, -133, -126, -24, -14, -9, -6, 0, 20, 400, 600};
    df_pcg32 r;
    df_pcg32_seed(&r, 2028, 3);
    static uint16_t a[4096], b[4096];
    double x[64], y[64];
    for (int trial = 0; trial < 3000; trial++) {
        df_type t = types[trial % 4];
        df_lowp f = (df_lowp)df_lowp_of(t);
        df_lowp_shape sh = df_lowp_shape_of(f);
        df_fused_model m = {1 + df_pcg32_bounded(&r, 64), (int)df_pcg32_bounded(&r, 49),
                            (int)df_pcg32_bounded(&r, 30), -126 - (int)df_pcg32_bounded(&r, 20),
                            100 + (int)df_pcg32_bounded(&r, 40),
                            df_pcg32_bounded(&r, 2) ? DF_ROUND_ZERO : DF_ROUND_NEAREST,
                            in_min[df_pcg32_bounded(&r, sizeof in_min / sizeof in_min[0])]};
        uint64_t n = 1 + df_pcg32_bounded(&r, 4096);
        uint32_t top = (1u << sh.exp_bits) - 1, lo = df_pcg32_bounded(&r, top + 1),
                 hi = lo + df_pcg32_bounded(&r, top + 1 - lo), specials = df_pcg32_bounded(&r, 4);
        for (uint64_t i = 0; i < 2 * n; i++) {
            uint32_t w = df_pcg32_next(&r), field = lo + df_pcg32_bounded(&r, hi - lo + 1);
            uint32_t bits = (w >> 31) << (sh.bits - 1) | field << sh.man_bits |
                            (w & ((1u << sh.man_bits) - 1u));
            if (df_pcg32_bounded(&r, 16) == 0)
                bits &= 1u << (sh.bits - 1); /* a signed zero */
            if (specials == 0 && df_pcg32_bounded(&r, 512) == 0)
                bits |= ((1u << sh.exp_bits) - 1u) << sh.man_bits; /* Inf or NaN */
            else if (!sh.ieee && (bits & ((1u << (sh.bits - 1)) - 1u)) == df_lowp_nan_bits(f))
                bits--; /* E4M3: its largest value, NaN left to the line above */
            if (df_type_size(t) == 2)
                (i < n ? a : b)[i % n] = (uint16_t)bits;
            else
                ((unsigned char *)(i < n ? a : b))[i % n] = (unsigned char)bits;
        }
        uint64_t first = df_pcg32_bounded(&r, 64), stride = m.group * (1 + df_pcg32_bounded(&r, 4));
        uint64_t end = n + df_pcg32_bounded(&r, 64); /* n - 32 to n + 31 */
        end = end > 32 ? end - 32 : 0;
        double want = 0.0;
        for (uint64_t base = first; base < end; base += stride) {
            for (uint64_t i = 0; i < m.group; i++) {
                uint64_t j = base + i;
                uint32_t ba = df_type_size(t) == 2 ? a[j % 4096] : ((unsigned char *)a)[j % 4096];
                uint32_t bb = df_type_size(t) == 2 ? b[j % 4096] : ((unsigned char *)b)[j % 4096];
                x[i] = j < n ? df_lowp_decode(f, ba) : 0.0;
                y[i] = j < n ? df_lowp_decode(f, bb) : 0.0;
            }
            want = df_fused_group(&m, want, x, y, m.group);
        }
        double got = df_fused_chain_lowp(&m, t, a, b, n, first, stride, end);
        cr_assert(memcmp(&got, &want, sizeof got) == 0,
                  "trial %d, %s, group %u, %d bits kept, out %d bits (%s), in_min_exp %d: "
                  "%a, by df_fused_group %a",
                  trial, df_type_name(t), m.group, m.align_bits, m.out_bits,
                  m.out_round == DF_ROUND_ZERO ? "toward zero" : "nearest", m.in_min_exp, got,
                  want);
    }
}
