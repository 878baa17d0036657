/* fused_dot.c — a fused dot-product-accumulate's arithmetic
 * (fused_dot.h). Every step is exact in double but the two roundings the
 * model names: each term's cut below the largest exponent, and the
 * result's rounding. */
#include <float.h>
#include <math.h>

#include "reference/fused_dot.h"

df_fused_model df_fused_hopper_f16(void)
{
    return (df_fused_model){16, 25, 23, -126, 127, DF_ROUND_ZERO, -14};
}

df_fused_model df_fused_hopper_bf16(void)
{
    return (df_fused_model){16, 25, 23, -126, 127, DF_ROUND_ZERO, -126};
}

df_fused_model df_fused_hopper_fp8(int in_min_exp)
{
    return (df_fused_model){32, 13, 13, -126, 127, DF_ROUND_ZERO, in_min_exp};
}

double df_round_bits(double x, int bits, int min_exp, int max_exp, df_round mode)
{
    if (!isfinite(x) || x == 0)
        return x;
    int e;
    (void)frexp(x, &e);
    e -= 1; /* |x| in [2^e, 2^(e+1)) */
    if (e < min_exp)
        e = min_exp; /* subnormal: the smallest normal's quantum */
    double q = ldexp(1.0, e - bits);
    double r = x / q; /* exact: a power of two */
    r = mode == DF_ROUND_ZERO ? trunc(r) : rint(r);
    double v = r * q;
    double largest = ldexp(2.0 - ldexp(1.0, -bits), max_exp);
    if (fabs(v) > largest)
        v = mode == DF_ROUND_ZERO ? copysign(largest, x) : copysign(INFINITY, x);
    return v;
}

/* x as significand and exponent, x = s 2^e: s in [1, 2), or below 1 at
 * min_exp for a subnormal of x's format; a zero at DF_FUSED_ZERO_EXP. */
static double split(double x, int min_exp, int *e)
{
    if (x == 0) {
        *e = DF_FUSED_ZERO_EXP;
        return 0.0;
    }
    int k;
    double s = frexp(x, &k) * 2; /* |s| in [1, 2) */
    k -= 1;
    if (k < min_exp) {
        s = ldexp(s, k - min_exp);
        k = min_exp;
    }
    *e = k;
    return s;
}

double df_fused_group(const df_fused_model *m, double c, const double *a, const double *b,
                      size_t k)
{
    /* Inf or NaN anywhere: the double sum's class (a product of two values
     * of a 16-bit or narrower format cannot overflow a double) */
    double plain = c;
    for (size_t i = 0; i < k; i++)
        plain += a[i] * b[i];
    if (!isfinite(plain))
        return plain;
    double sig[65];
    int ex[65], emax;
    size_t nt = 0;
    sig[nt] = split(c, -126, &ex[nt]); /* c: an f32 accumulator */
    emax = ex[nt++];
    for (size_t i = 0; i < k && nt < 65; i++, nt++) {
        int ea, eb;
        double sa = split(a[i], m->in_min_exp, &ea), sb = split(b[i], m->in_min_exp, &eb);
        sig[nt] = sa * sb; /* exact: two significands of at most 24 bits */
        ex[nt] = sig[nt] == 0 ? DF_FUSED_ZERO_EXP : ea + eb;
        if (ex[nt] > emax)
            emax = ex[nt];
    }
    /* each term cut toward zero at 2^(emax - align_bits): an integer count
     * of that quantum, below 2^(align_bits + 2) in magnitude, so their sum
     * (at most 65 of them) is exact in a double */
    double sum = 0;
    for (size_t t = 0; t < nt; t++)
        sum += trunc(ldexp(sig[t], m->align_bits + ex[t] - emax));
    double v = ldexp(sum, emax - m->align_bits);
    return df_round_bits(v, m->out_bits, m->out_min_exp, m->out_max_exp, m->out_round);
}

double df_fused_dot(const df_fused_model *m, const double *a, const double *b, size_t n)
{
    size_t g = m->group ? m->group : 1;
    if (g > 64)
        g = 64;
    double c = 0;
    for (size_t i = 0; i < n; i += g)
        c = df_fused_group(m, c, a + i, b + i, n - i < g ? n - i : g);
    return c;
}

double df_fused_bound(const df_fused_model *m, uint64_t n, double G)
{
    uint64_t k = m->group ? m->group : 1;
    if (k > 64)
        k = 64;
    double groups = (double)((n + k - 1) / k);
    double u = ldexp(1.0, -m->out_bits - (m->out_round == DF_ROUND_NEAREST));
    double eta = (double)(k + 1) * ldexp(1.0, -m->align_bits);
    double rho = u + eta + u * eta, grho = groups * rho;
    if (grho >= 1)
        return INFINITY;
    /* absolute terms a group: its result's last unit at the bottom of the
     * output's range, and the cut where the largest exponent is c's, a
     * subnormal of the output whose exponent (out_min_exp) overstates it */
    return grho / (1 - grho) * G +
           groups * (ldexp(1.0, m->out_min_exp - m->out_bits) +
                     (double)(k + 1) * ldexp(1.0, m->out_min_exp - m->align_bits));
}
