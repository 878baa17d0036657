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
 *   - each cut term is an integer below 2^(A + 2) in magnitude (a
 *     significand below 4 at an exponent at most emax), so with A <= 44
 *     the sum of at most 65 of them stays below 2^53: df_fused_group's
 *     double sum is exact, the same integer as an int64 sum of the terms
 *     (each converted by truncation, exact below 2^63). A zero's sign does
 *     not survive either sum: df_fused_group's starts at +0;
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
#include <string.h>

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

/* One step: df_fused_group(m, c, x, y, k) for finite low-precision values
 * x and y (k <= 64) in the integers above; 0 with *out, or -1 where its
 * conditions do not hold (the caller takes df_fused_group). */
static int group_exact(const df_fused_model *m, double c, const double *x, const double *y,
                       size_t k, double *out)
{
    int A = m->align_bits, ec = exp_field(c), lo = m->in_min_exp;
    if (A < 0 || A > 44 || ec > 999 || lo > 500)
        return -1; /* c past 2^999 (or Inf, NaN): the double sum may overflow */
    int emax = c == 0 ? DF_FUSED_ZERO_EXP : ec < -126 ? -126 : ec; /* split(c, -126) */
    double p[64];
    for (size_t i = 0; i < k; i++) {
        int ea = exp_field(x[i]), eb = exp_field(y[i]);
        if (ea == 1024 || eb == 1024)
            return -1; /* Inf or NaN */
        p[i] = x[i] * y[i];
        int e = (ea < lo ? lo : ea) + (eb < lo ? lo : eb);
        if (p[i] != 0 && e > emax)
            emax = e;
    }
    if (emax == DF_FUSED_ZERO_EXP) { /* every term zero: the sum is +0 */
        *out = round_out(m, 0.0);
        return 0;
    }
    if (A - emax < -1022 || A - emax > 1022)
        return -1;
    double scale = pow2(A - emax);
    int64_t sum = (int64_t)(c * scale);
    for (size_t i = 0; i < k; i++)
        sum += (int64_t)(p[i] * scale);
    *out = round_out(m, (double)sum * pow2(emax - A));
    return 0;
}

/* Elements [base, base + k) of v (format f) as doubles, 0 past n. */
static void decode(df_lowp f, const void *v, uint64_t base, size_t k, uint64_t n, double *out)
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

double df_fused_chain_lowp(const df_fused_model *m, df_type t, const void *a, const void *b,
                           uint64_t n, uint64_t first, uint64_t stride, uint64_t end)
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
