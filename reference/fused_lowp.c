/* fused_lowp.c — a chain of fused steps (fused_dot.h) over low-precision
 * data, each step what df_fused_group gives on the step's decoded values,
 * bit for bit, in integer arithmetic where that is provably the same.
 *
 * df_fused_group splits each term into significand and exponent (frexp,
 * ldexp) and cuts each one with trunc(ldexp(...)). Over finite low-
 * precision data the same numbers come from a few exact operations:
 *   - a product p = a b is exact in double (at most 11 + 11 significant
 *     bits; magnitudes in [2^-266, 2^256]), and a term's significand times
 *     2^(its exponent) is p itself (sa 2^ea = a, sb 2^eb = b), so its cut,
 *     trunc(sig 2^(A + ea + eb - emax)), is trunc(p 2^(A - emax)) (A the
 *     bits kept): the same real number, rounded the same way (exact, or
 *     below 2^-1022 where both truncate to zero);
 *   - ea is floor(log2 |a|) (a normal double's exponent field less its
 *     bias) raised to the declaration's in_min_exp, as split() makes it;
 *     2^ea 2^eb is exact, so the largest exponent is that of a maximum of
 *     such powers of two;
 *   - each cut term is an integer below 2^(A + 2) in magnitude (a
 *     significand below 4 at an exponent at most emax), so with A <= 44
 *     the sum of at most 65 of them stays below 2^53: df_fused_group's
 *     double sum is exact, the same integer as an int64 sum of the terms
 *     (each truncated exactly: trunc_int). A zero's sign does not survive
 *     either sum: df_fused_group's starts at +0;
 *   - 2^(A - emax) and 2^(emax - A) are normal doubles (|A - emax| <=
 *     1022), so multiplying by them rounds as ldexp does;
 *   - toward zero, a result at or above the output's smallest normal
 *     exponent and at most its largest (a normal double) is its double
 *     with the fraction bits below out_bits cleared: trunc(v / q) q for
 *     q = 2^(e - out_bits), never past the largest value.
 * Anything else (an Inf or NaN in the step, c from an earlier step past
 * 2^999, A past 44 or below 0, exponents out of those ranges, rounding to
 * nearest, a result below out_min_exp) takes df_fused_group and
 * df_round_bits themselves.
 */
#include <math.h>
#include <string.h>

#include "fuzz/cpu_clones.h"
#include "fuzz/lowp.h"
#include "reference/fused_dot.h"

/* x's exponent field less the bias: floor(log2 |x|) for a normal double,
 * -1023 for zero and subnormals, 1024 for Inf and NaN. */
static inline int exp_field(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return (int)(u >> 52 & 0x7ff) - 1023;
}

/* 2^e for e in [-1022, 1023]. */
static inline double pow2(int e)
{
    uint64_t u = (uint64_t)(e + 1023) << 52;
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* df_round_bits(v, ...) by m: toward zero, for a normal v at or above
 * out_min_exp and at most out_max_exp, v's fraction cut to out_bits bits
 * (above); otherwise df_round_bits itself. */
static double round_out(const df_fused_model *m, double v)
{
    int e = exp_field(v);
    if (m->out_round == DF_ROUND_ZERO && m->out_bits >= 0 && m->out_bits <= 52 && e > -1023 &&
        e >= m->out_min_exp && e <= m->out_max_exp) {
        uint64_t u;
        memcpy(&u, &v, sizeof u);
        u &= ~((UINT64_C(1) << (52 - m->out_bits)) - 1);
        memcpy(&v, &u, sizeof v);
        return v;
    }
    return df_round_bits(v, m->out_bits, m->out_min_exp, m->out_max_exp, m->out_round);
}

/* trunc(t) as an int64, for |t| < 2^51, in operations that vectorize
 * (no instruction converts a vector of doubles to int64 before AVX-512):
 * t + 1.5 2^52 holds RN(t), an integer, in the fraction bits above the
 * constant's own, exactly (its unit there is 1); one less where that
 * rounded a positive t up, one more where it rounded a negative t down. */
static inline int64_t trunc_int(double t)
{
    const double m = 0x1.8p52;
    double r = t + m, rn = r - m;
    int64_t ri, mi;
    memcpy(&ri, &r, sizeof ri);
    memcpy(&mi, &m, sizeof mi);
    return (ri - mi) - (int64_t)((rn > t) & (t >= 0)) + (int64_t)((rn < t) & (t < 0));
}

/* 2^floor(log2 |x|) for a normal double x (+0 for zero, Inf for Inf and
 * NaN): x's exponent field alone. */
static inline double pow2_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    u &= UINT64_C(0x7ff0000000000000);
    memcpy(&x, &u, sizeof x);
    return x;
}

/* The larger of x and y, neither a NaN (fmax is a call where NaN may be). */
static inline double max2(double x, double y) { return x > y ? x : y; }

/* One step: df_fused_group(m, c, x, y, k) for finite low-precision values
 * x and y (k <= 64) in the integers above; 0 with *out, or -1 where its
 * conditions do not hold (the caller takes df_fused_group). The exponents
 * are kept as the powers of two they stand for, so that the largest is a
 * maximum of doubles (one instruction); the sum's loop vectorizes. */
static inline int group_exact(const df_fused_model *m, double c, const double *x,
                              const double *y, size_t k, double *out)
{
    int A = m->align_bits;
    if (A < 0 || A > 44 || m->in_min_exp > 500 || !(fabs(c) < 0x1p1000))
        return -1; /* c past 2^999 (or Inf, NaN): the double sum may overflow */
    /* in_min_exp as a power of two: below -500 it raises no value's
     * exponent (every one is at least -133), and -500 raises none either */
    const double lo = pow2(m->in_min_exp < -500 ? -500 : m->in_min_exp);
    double top = c == 0 ? 0.0 : max2(pow2_of(c), 0x1p-126); /* split(c, -126) */
    double p[64], special = 0.0;
    for (size_t i = 0; i < k; i++) {
        double ea = pow2_of(x[i]), eb = pow2_of(y[i]);
        special = max2(special, max2(ea, eb)); /* Inf where an Inf or NaN is */
        p[i] = x[i] * y[i];
        double e = p[i] != 0 ? max2(ea, lo) * max2(eb, lo) : 0.0; /* 0: no term */
        top = max2(top, e);
    }
    if (special == INFINITY)
        return -1;
    if (top == 0) { /* every term zero: the sum is +0 */
        *out = round_out(m, 0.0);
        return 0;
    }
    int emax = exp_field(top);
    if (A - emax < -1022 || A - emax > 1022)
        return -1;
    double scale = pow2(A - emax);
    int64_t sum = trunc_int(c * scale);
    for (size_t i = 0; i < k; i++)
        sum += trunc_int(p[i] * scale);
    *out = round_out(m, (double)sum * pow2(emax - A));
    return 0;
}

/* Elements [base, base + k) of v (format f) as doubles, 0 past n. */
static inline void decode(df_lowp f, const void *v, uint64_t base, size_t k, uint64_t n,
                          double *out)
{
    size_t live = base >= n ? 0 : n - base < k ? (size_t)(n - base) : k;
    const uint16_t *h = (const uint16_t *)v + base;
    const uint8_t *q = (const uint8_t *)v + base;
    switch (f) { /* a loop per format, its decoding inlined */
    case DF_LOWP_F16:
        for (size_t i = 0; i < live; i++)
            out[i] = df_lowp_value(DF_LOWP_F16, h[i]);
        break;
    case DF_LOWP_BF16:
        for (size_t i = 0; i < live; i++)
            out[i] = df_lowp_value(DF_LOWP_BF16, h[i]);
        break;
    case DF_LOWP_E4M3:
        for (size_t i = 0; i < live; i++)
            out[i] = df_lowp_value(DF_LOWP_E4M3, q[i]);
        break;
    default:
        for (size_t i = 0; i < live; i++)
            out[i] = df_lowp_value(DF_LOWP_E5M2, q[i]);
        break;
    }
    for (size_t i = live; i < k; i++)
        out[i] = 0.0;
}

/* The chain, compiled for x86-64-v3 too (a static function: clang gives
 * an exported one of several copies no plain symbol). */
DF_CPU_CLONES static double chain(const df_fused_model *m, df_type t, const void *a,
                                  const void *b, uint64_t n, uint64_t first, uint64_t stride,
                                  uint64_t end)
{
    df_lowp f = (df_lowp)df_lowp_of(t);
    size_t g = m->group;
    double x[64], y[64], acc = 0.0;
    for (uint64_t base = first; base < end; base += stride) {
        decode(f, a, base, g, n, x);
        decode(f, b, base, g, n, y);
        if (group_exact(m, acc, x, y, g, &acc) != 0)
            acc = df_fused_group(m, acc, x, y, g);
    }
    return acc;
}

double df_fused_chain_lowp(const df_fused_model *m, df_type t, const void *a, const void *b,
                           uint64_t n, uint64_t first, uint64_t stride, uint64_t end)
{
    return chain(m, t, a, b, n, first, stride, end);
}
