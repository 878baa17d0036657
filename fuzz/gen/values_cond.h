/* values_cond.h — the cond family: a case with a prescribed condition
 * number 2G/|s| (GenDot, after Ogita, Rump and Oishi), built on an exact
 * fixed-point sum of the products so far (df_cond_acc), whose chunks' sums
 * merge exactly when a long case is made in chunks (fuzz/gen/values_long.h). */
#ifndef DOTFUZZ_VALUES_COND_H
#define DOTFUZZ_VALUES_COND_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz/gen/values_base.h"

/* ---- exact sum (for cond) ----------------------------------------------- */

/* A fixed-point number with 32-bit digits in int64 chunks, value =
 * sum c[i] 2^(32 i + DF_COND_ACC_LOW): adding a double is exact and
 * carries can wait 2^29 additions. It spans every double's bits (2^-1074
 * and up) with 2^128 of headroom above DBL_MAX. */
#define DF_COND_ACC_LOW (-1152)
#define DF_COND_ACC_CHUNKS 72
#define DF_COND_ACC_CARRY_EVERY (1u << 29)

typedef struct df_cond_acc {
    int64_t c[DF_COND_ACC_CHUNKS];
    uint32_t pending; /* additions since the last carry pass */
} df_cond_acc;

/* Leaves chunks 0..DF_COND_ACC_CHUNKS-2 in [0, 2^32), the sign in the top
 * one. */
DF_VAL void df_cond_acc_carry(int64_t *c)
{
    for (int i = 0; i + 1 < DF_COND_ACC_CHUNKS; i++) {
        int64_t low = (int64_t)((uint64_t)c[i] & 0xffffffffu);
        c[i + 1] += (c[i] - low) / ((int64_t)1 << 32); /* exact: no shift of a negative */
        c[i] = low;
    }
}

/* v's three signed digits to add at chunks idx, idx + 1, idx + 2; returns
 * 0 (nothing to add) for a zero, which cond's finite values only can be. */
DF_VAL_HOT int df_cond_acc_digits(double v, uint32_t *at, int64_t d[3])
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint64_t frac = bits & (((uint64_t)1 << 52) - 1);
    uint32_t bexp = (uint32_t)(bits >> 52) & 0x7ffu;
    if ((bexp == 0 && frac == 0) || bexp == 0x7ffu)
        return 0; /* zero; cond's values are always finite */
    /* v = +-m 2^(e - 1075), subnormals included */
    uint64_t m = bexp ? frac | (uint64_t)1 << 52 : frac;
    uint32_t pos = (bexp ? bexp : 1) + (uint32_t)(-1075 - DF_COND_ACC_LOW); /* >= 78 */
    uint32_t idx = pos / 32, sh = pos % 32;
    uint64_t lo = m << sh;                     /* bits 0..63 of m 2^sh */
    uint64_t hi = sh ? m >> (64 - sh) : 0;     /* bits 64..84 */
    int64_t neg = -(int64_t)(bits >> 63); /* 0 or -1: (d ^ neg) - neg is +-d, no branch */
    d[0] = ((int64_t)(lo & 0xffffffffu) ^ neg) - neg;
    d[1] = ((int64_t)(lo >> 32) ^ neg) - neg;
    d[2] = ((int64_t)hi ^ neg) - neg;
    *at = idx;
    return 1;
}

DF_VAL_HOT void df_cond_acc_add(df_cond_acc *acc, double v)
{
    uint32_t idx;
    int64_t d[3];
    if (!df_cond_acc_digits(v, &idx, d))
        return;
    acc->c[idx] += d[0];
    acc->c[idx + 1] += d[1];
    acc->c[idx + 2] += d[2];
    if (++acc->pending == DF_COND_ACC_CARRY_EVERY) {
        df_cond_acc_carry(acc->c);
        acc->pending = 0;
    }
}

/* Adds x*y exactly as p + e (TwoProduct: e = fma(x, y, -p) is exact while
 * x*y neither underflows nor overflows, which cond's magnitudes ensure).
 * Returns |p|, for G. */
DF_VAL_HOT double df_cond_acc_add_product(df_cond_acc *acc, double x, double y)
{
    double p = x * y;
    double e = fma(x, y, -p);
    df_cond_acc_add(acc, p);
    df_cond_acc_add(acc, e);
    return fabs(p);
}

/* The sum rounded to nearest double: the top 64 bits with a sticky bit
 * for everything below, converted once. */
DF_VAL double df_cond_acc_round(const df_cond_acc *acc)
{
    int64_t d[DF_COND_ACC_CHUNKS];
    memcpy(d, acc->c, sizeof d);
    df_cond_acc_carry(d);
    int neg = d[DF_COND_ACC_CHUNKS - 1] < 0;
    if (neg) {
        for (int i = 0; i < DF_COND_ACC_CHUNKS; i++)
            d[i] = -d[i];
        df_cond_acc_carry(d);
    }
    int j = DF_COND_ACC_CHUNKS - 1;
    while (j >= 0 && d[j] == 0)
        j--;
    if (j < 0)
        return 0.0;
    uint64_t w = (uint64_t)d[j] << 32 | (j >= 1 ? (uint64_t)d[j - 1] : 0);
    uint64_t below = j >= 2 ? (uint64_t)d[j - 2] : 0;
    int lz = 0;
    while (!(w >> 63)) { /* d[j] < 2^32 is nonzero: at most 31 turns */
        w <<= 1;
        lz++;
    }
    if (lz)
        w |= below >> (32 - lz);
    int sticky = (below & ((((uint64_t)1) << (32 - lz)) - 1)) != 0;
    for (int i = j - 3; i >= 0 && !sticky; i--)
        sticky = d[i] != 0;
    double mag = ldexp((double)(w | (uint64_t)sticky), 32 * (j - 1) + DF_COND_ACC_LOW - lz);
    return neg ? -mag : mag;
}

/* Adds src's sum into dst's, exactly; dst is left carried. */
DF_VAL void df_cond_acc_merge(df_cond_acc *dst, const df_cond_acc *src)
{
    int64_t d[DF_COND_ACC_CHUNKS];
    memcpy(d, src->c, sizeof d);
    df_cond_acc_carry(d); /* digits below 2^32, so the sum below waits for no carry */
    for (int i = 0; i < DF_COND_ACC_CHUNKS; i++)
        dst->c[i] += d[i];
    df_cond_acc_carry(dst->c);
    dst->pending = 0;
}

/* ---- cond: prescribed condition number ---------------------------------- */

/* After Ogita, Rump and Oishi, "Accurate sum and dot product" (SIAM J. Sci.
 * Comput. 26(6), 2005), Algorithm 6.1 (GenDot). GenDot fills the first half
 * of x and y with random values whose exponents spread over [0, b/2],
 * b = log2(cond), so the products reach 2^b; then it picks each element of
 * the second half so that the running dot, computed accurately, shrinks
 * from 2^(b/2) to about 1: y_i = (r 2^e_i - x(1:i-1)'y(1:i-1)) / x_i with
 * e_i decreasing; finally it permutes the elements. Only the last element
 * decides the final sum; the earlier steps keep each step's rounding (u
 * times the running sum) small against the next sum.
 *
 * Here: a bulk of n - steps elements as GenDot's first half, then `steps`
 * chain elements that close the gap between the running sum and the final
 * one in equal cuts of about 2^step_bits at most, the last one aimed not at
 * a random value but at the s that makes 2G/|s| equal the target (the
 * closed form in df_cond_final_abs), so every case lands within a few percent
 * of its target (measured over 20000 cases each: 0.3% for f32, 1e-5 for
 * f64; the promise, and the tests' bound, is a factor 3). The running sum
 * is exact (df_cond_acc, products split by TwoProduct), G is summed in
 * double (relative error n u, harmless here).
 *
 * Target: log-uniform by octave over [1, 1e30] for f32 and f64 alike: the
 * values stay in [2^-33, 2^52] and G below 2^102 for any n (the bulk is
 * scaled down by 2^-ceil(log2(n)/2)), far inside float's exponent range, so
 * f32 reaches 1e30 too. Short vectors fall back: a chain of `steps`
 * elements needs n >= steps + 1 (f64: n >= 4 for the top octave, f32:
 * n >= 8), so the target's octave is capped at step_bits (n - 1) - 3 for
 * n >= 2, and n == 1 gets octave 0 (cond is 2 for any single product).
 * Targets below 2.5 aim at 2.5 (2G/|s| >= 2 always; 2.5 is within a factor
 * 3 of all of [1, 2.5)). */
#define DF_COND_OCTAVES 100

/* The last step's error is about u times the running sum before it, which
 * the chain leaves within 2^(step_bits + 3) of the final sum: 2^-5 of it
 * for f32, 2^-14 for f64. */
DF_VAL uint32_t df_cond_step_bits(df_type t) { return t == DF_F32 ? 16 : 36; }

DF_VAL uint64_t df_cond_steps(df_type t, uint32_t octave)
{
    return 1 + (octave + 2) / df_cond_step_bits(t);
}

/* The target's draws, the family's first: octave e = bounded(100), then the
 * mantissa 1 + j 2^-32 with j = next() (j = bounded(2481305747) in the top
 * octave, where (1e30 / 2^99 - 1) 2^32 = 2481305747.6). */
DF_VAL double df_cond_target(df_pcg32 *r, df_type t, uint64_t n, uint32_t *octave)
{
    uint32_t e = df_pcg32_bounded(r, DF_COND_OCTAVES);
    uint32_t j = e == DF_COND_OCTAVES - 1
                     ? df_pcg32_bounded(r, (uint32_t)((1e30 * 0x1p-99 - 1.0) * 0x1p32))
                     : df_pcg32_next(r);
    uint64_t cap = n < 2 ? 0 : df_sat_mul_u64(df_cond_step_bits(t), n - 1) - 3;
    if (e > cap)
        e = (uint32_t)cap;
    *octave = e;
    return ldexp(1.0 + (double)j * 0x1p-32, (int)e);
}

/* GenDot's first half: a_i = +-m 2^e_i, b_i = +-m' 2^e_i, e_i uniform in
 * [0, ceil(octave / 2)] (the first at the top) minus the scale shift.
 * Below octave 4 all products share one sign: a random-sign bulk would
 * often be worse conditioned than such a target already. Returns G. */
/* Pair i of the bulk at exponent e (the shift taken off): x and y into a
 * and b, and their values, whose product is the pair's. */
DF_VAL_HOT void df_cond_bulk_pair(df_pcg32 *r, df_type t, void *a, void *b, uint64_t i, int e,
                                  int same, double sgn, double *px, double *py)
{
    double x = df_scale2(df_draw_mant(r, t, !same), e);
    double y = df_scale2(df_draw_mant(r, t, !same), e);
    if (same)
        x *= sgn;
    df_put_elem(t, a, i, x);
    df_put_elem(t, b, i, y);
    *px = x;
    *py = y;
}

/* Inlined into df_fill_cond_pairs on the host, so that its x86-64-v3 copy
 * (DF_VAL_CLONES) has this loop with TwoProduct's fma as one instruction:
 * an out-of-line copy is built for baseline x86-64 only, where fma is a
 * libm call. On the device it is an ordinary DF_VAL. */
DF_VAL_HOST_HOT double df_cond_bulk_range(df_pcg32 *r, df_type t, void *a, void *b,
                                          uint64_t i0, uint64_t i1, int top, int shift,
                                          double sgn, df_cond_acc *acc)
{
    int same = sgn != 0;
    double G = 0;
    const df_bounded32 eb = df_bounded32_make((uint32_t)top + 1);
    for (uint64_t i = i0; i < i1; i++) {
        int e = (i == 0 ? top : (int)df_bounded32_draw(r, &eb)) - shift;
        double x, y;
        df_cond_bulk_pair(r, t, a, b, i, e, same, sgn, &x, &y);
        G += df_cond_acc_add_product(acc, x, y);
    }
    return G;
}

/* The bulk's exponents' top and the scale shift; sgn: the common sign of
 * the products below octave 4 (one draw, made either way), else 0. */
DF_VAL double df_cond_bulk_sign(df_pcg32 *r, uint64_t n, uint32_t octave, int *top, int *shift)
{
    *top = (int)(octave + 1) / 2;
    *shift = (int)(df_ceil_log2_u64(n) + 1) / 2;
    double sgn = df_pcg32_next(r) & 1 ? -1.0 : 1.0;
    return octave < 4 ? sgn : 0.0;
}

DF_VAL_HOST_HOT double df_cond_bulk(df_pcg32 *r, df_type t, void *a, void *b, uint64_t bulk,
                                    uint64_t n, uint32_t octave, df_cond_acc *acc)
{
    int top, shift;
    double sgn = df_cond_bulk_sign(r, n, octave, &top, &shift);
    return df_cond_bulk_range(r, t, a, b, 0, bulk, top, shift, sgn, acc);
}

/* |s| at which one more product q = s - S brings 2G/|s| to c (c > 2), S
 * being the exact running sum and G its sum of |products|: shrinking |S|
 * (when c |S| >= 2G) adds |S| - |s| to G, so |s| = 2(G + |S|)/(c + 2);
 * growing it adds |s| - |S|, so |s| = 2(G - |S|)/(c - 2). */
DF_VAL double df_cond_final_abs(double S, double G, double c)
{
    /* one operation per statement: no excess precision between them */
    double aS = fabs(S), lhs = c * aS, twice_g = 2 * G;
    int shrink = lhs >= twice_g;
    double num = shrink ? G + aS : G - aS, den = shrink ? c + 2 : c - 2;
    double twice_num = 2 * num;
    return twice_num / den;
}

DF_VAL int df_frexp_exp(double v)
{
    int e = 0;
    (void)frexp(v, &e);
    return e;
}

DF_VAL int df_floor_half(int e) { return e >= 0 ? e / 2 : -((1 - e) / 2); }

/* The product of one intermediate chain element, `left` elements to go
 * (the last one included). Above the predicted final sum sf (gap =
 * exponent of S minus exponent of sf > 0) it keeps a fraction
 * m 2^-d of S, m in [1/2, 1), d = ceil(gap / left): the gap closes evenly
 * over the steps left, and |q| >= |S| / 2 (no step shrinks to a tiny
 * pair). Cancelling steps leave G + |S|, and so sf, unchanged. At or below
 * sf (or at S = 0) it grows S by m sf instead; the last step settles
 * either way. */
DF_VAL double df_cond_chain_product(df_pcg32 *r, df_type t, double S, double sf,
                                    uint64_t left)
{
    double m = 0.5 * df_draw_mant(r, t, 0);
    int gap = df_frexp_exp(S) - df_frexp_exp(sf);
    if (S == 0 || gap <= 0)
        return S < 0 ? -(m * sf) : m * sf;
    int d = (int)(((uint64_t)gap + left - 1) / left);
    double keep = 1.0 - ldexp(m, -d); /* m 2^-d is exact: one rounding */
    double q = S * keep;
    return -q;
}

/* One chain element at index i, `left` elements to go (this one
 * included); the last one's product is sf - S, which brings 2G/|s| to c.
 * Returns the new G. */
DF_VAL double df_cond_step(df_pcg32 *r, df_type t, void *a, void *b, uint64_t i,
                           uint64_t left, double c, df_cond_acc *acc, double G)
{
    double S = df_cond_acc_round(acc), sf = df_cond_final_abs(S, G, c);
    double q = left > 1 ? df_cond_chain_product(r, t, S, sf, left)
                        : (S < 0 ? -sf : sf) - S;
    double x = ldexp(df_draw_mant(r, t, 1), df_floor_half(df_frexp_exp(q)));
    double y = q / x; /* f32: rounded once more by df_put_elem */
    df_put_elem(t, a, i, x);
    df_put_elem(t, b, i, y);
    return G + df_cond_acc_add_product(acc, x, df_val_elem(t, b, i));
}

/* A cond case but its last draws, the shuffle of its pairs (cloned for
 * x86-64-v3: TwoProduct's fma is one instruction there). */
DF_VAL_CLONES DF_VAL void df_fill_cond_pairs(df_pcg32 *r, df_type t, void *a, void *b,
                                             uint64_t n)
{
    uint32_t octave;
    double c = df_cond_target(r, t, n, &octave);
    if (n == 0)
        return;
    uint64_t steps = n == 1 ? 0 : df_cond_steps(t, octave), bulk = n - steps;
    df_cond_acc acc;
    memset(&acc, 0, sizeof acc);
    double G = df_cond_bulk(r, t, a, b, bulk, n, octave, &acc);
    for (uint64_t k = 0; k < steps; k++)
        G = df_cond_step(r, t, a, b, bulk + k, steps - k, c < 2.5 ? 2.5 : c, &acc, G);
}

DF_VAL void df_fill_cond(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    df_fill_cond_pairs(r, t, a, b, n);
    df_val_shuffle_pairs(r, t, a, b, n);
}

#endif
