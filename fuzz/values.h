/* values.h — the generator's value families (generator.h's DF_FAM_*): what
 * fills a case's vectors from its PCG32 stream once its family and shape are
 * drawn. Host C (fuzz/generator.c) and CUDA device code (kernels/devgen.cu)
 * compile the same text, so the GPU fills a case from the same stream with
 * the same bytes: every value is made by integer operations and IEEE
 * operations whose rounding is fixed (+ - * /, fma, conversions, ldexp,
 * frexp), nothing fused that the text does not fuse (-ffp-contract=off,
 * nvcc --fmad=false), nothing flushed (nvcc's default -ftz=false).
 *
 * Every function is DF_VAL (static inline in C, __host__ __device__ in
 * CUDA); df_fill_values dispatches on the family id. */
#ifndef DOTFUZZ_VALUES_H
#define DOTFUZZ_VALUES_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz/cpu_clones.h"
#include "fuzz/generator.h"
#include "fuzz/pcg32.h"
#include "fuzz/shuffle.h"

#if defined(__CUDACC__)
#define DF_VAL static __host__ __device__ inline
#define DF_VAL_HOT static __host__ __device__ __forceinline__
#define DF_VAL_HOST_HOT DF_VAL
#define DF_VAL_CLONES
#else
#define DF_VAL static inline
/* the per-element helpers are inlined into each family's loop, where the
 * element type is one value for the whole case (only the speed depends on
 * it) */
#if defined(__GNUC__)
#define DF_VAL_HOT static inline __attribute__((always_inline))
#else
#define DF_VAL_HOT static inline
#endif
#define DF_VAL_HOST_HOT DF_VAL_HOT /* inlined on the host only */
/* df_fill_cond built for x86-64-v3 too, in the one file that defines
 * DF_VALUES_CLONED (generator.c): clang gives a cloned function's resolver
 * one global name, which a second file including this header would
 * define again */
#ifdef DF_VALUES_CLONED
#define DF_VAL_CLONES DF_CPU_CLONES
#else
#define DF_VAL_CLONES
#endif
#endif

/* df_type_size and df_elem_as_double (fuzz/case.c), for device code too. */
DF_VAL_HOT size_t df_val_size(df_type t) { return t == DF_F64 ? 8 : 4; }
DF_VAL_HOT double df_val_elem(df_type t, const void *v, uint64_t i)
{
    switch (t) {
    case DF_F32: return (double)((const float *)v)[i];
    case DF_F64: return ((const double *)v)[i];
    case DF_I32: return (double)((const int32_t *)v)[i];
    }
    return 0.0;
}

/* ---- small exact helpers ------------------------------------------------ */

DF_VAL uint64_t df_min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
DF_VAL uint64_t df_max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

DF_VAL uint64_t df_sat_mul_u64(uint64_t a, uint64_t b)
{
    if (a != 0 && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

/* Uniform in [lo, hi], lo <= hi <= INT64_MAX (lengths are kept below
 * INT64_MAX so they pass through df_pcg32_range's int64 unchanged). */
DF_VAL uint64_t df_draw_uniform_u64(df_pcg32 *r, uint64_t lo, uint64_t hi)
{
    return (uint64_t)df_pcg32_range(r, (int64_t)lo, (int64_t)hi);
}

/* ---- value families ----------------------------------------------------- */

/* Uniform integers in [lo, hi] (|lo|, |hi| <= 2^24, so exact in every
 * element type). */
/* df_pcg32_bounded for one bound drawn many times: the same values, with
 * the threshold computed once and x % bound by multiplication (Lemire,
 * "Faster remainder by direct computation", 2019: exact for every 32-bit x
 * and bound) instead of two divisions per draw. */
typedef struct df_bounded32 {
    uint32_t bound, threshold;
    uint64_t m;
} df_bounded32;

DF_VAL df_bounded32 df_bounded32_make(uint32_t bound)
{
    df_bounded32 b;
    b.bound = bound;
    b.threshold = (0u - bound) % bound;
    b.m = UINT64_MAX / bound + 1;
    return b;
}

DF_VAL_HOT uint32_t df_bounded32_draw(df_pcg32 *r, const df_bounded32 *b)
{
    for (;;) {
        uint32_t x = df_pcg32_next(r);
        if (x >= b->threshold)
            return (uint32_t)(((unsigned __int128)(b->m * x) * b->bound) >> 64);
    }
}

DF_VAL void df_fill_ints(df_pcg32 *r, df_type t, void *v, uint64_t n,
                         int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    if (span >= 0xffffffffULL) { /* df_pcg32_range's wide path */
        for (uint64_t i = 0; i < n; i++) {
            int64_t x = df_pcg32_range(r, lo, hi);
            if (t == DF_F32)
                ((float *)v)[i] = (float)x;
            else if (t == DF_F64)
                ((double *)v)[i] = (double)x;
            else
                ((int32_t *)v)[i] = (int32_t)x;
        }
        return;
    }
    df_bounded32 b = df_bounded32_make((uint32_t)(span + 1));
    switch (t) {
    case DF_F32:
        for (uint64_t i = 0; i < n; i++)
            ((float *)v)[i] = (float)(lo + (int64_t)df_bounded32_draw(r, &b));
        break;
    case DF_F64:
        for (uint64_t i = 0; i < n; i++)
            ((double *)v)[i] = (double)(lo + (int64_t)df_bounded32_draw(r, &b));
        break;
    case DF_I32:
        for (uint64_t i = 0; i < n; i++)
            ((int32_t *)v)[i] = (int32_t)(lo + (int64_t)df_bounded32_draw(r, &b));
        break;
    }
}

DF_VAL void df_fill_int_small(df_pcg32 *r, df_type t, void *a, void *b,
                              uint64_t n)
{
    df_fill_ints(r, t, a, n, -50, 50);
    df_fill_ints(r, t, b, n, -50, 50);
}

/* -50 + 100 x, computed as 100 (x - 0.5): x is on the 2^-24 (2^-53) grid
 * of [0, 1), so x - 0.5 is exact and the product is the only rounding.
 * Nothing is left for a compiler to fuse into an FMA (the sum-of-product
 * form changes under -ffp-contract=fast) and x87 excess precision rounds
 * the exact 31-bit (60-bit) product just once. */
DF_VAL void df_fill_uniform_vec(df_pcg32 *r, df_type t, void *v, uint64_t n)
{
    if (t == DF_F32) {
        for (uint64_t i = 0; i < n; i++)
            ((float *)v)[i] = 100.0f * (df_pcg32_float(r) - 0.5f);
    } else if (t == DF_F64) {
        for (uint64_t i = 0; i < n; i++)
            ((double *)v)[i] = 100.0 * (df_pcg32_double(r) - 0.5);
    }
}

DF_VAL void df_fill_uniform(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    df_fill_uniform_vec(r, t, a, n);
    df_fill_uniform_vec(r, t, b, n);
}

/* One magnitude per case, so a case is either all-moderate or all-large:
 * products up to 2^48 leave the exact regime quickly, exercising rounding
 * on data whose exact dot is still easy to compute. */
DF_VAL void df_fill_int_wide(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    int64_t span = (int64_t)1 << df_pcg32_range(r, 7, 24);
    df_fill_ints(r, t, a, n, -span, span);
    df_fill_ints(r, t, b, n, -span, span);
}

/* ---- helpers of the families below -------------------------------------- */

#define DF_I32_MAX_SQRT 46340 /* floor(sqrt(INT32_MAX)): every product fits int32 */

/* Stores x as element i of v; x is exact in t (an integer for i32), except
 * where a caller says it rounds once to float. */
DF_VAL_HOT void df_put_elem(df_type t, void *v, uint64_t i, double x)
{
    switch (t) {
    case DF_F32: ((float *)v)[i] = (float)x; break;
    case DF_F64: ((double *)v)[i] = x; break;
    case DF_I32: ((int32_t *)v)[i] = (int32_t)x; break;
    }
}

/* -x when bit 0 of `neg` is set, else x: the sign bit flipped, which is
 * what negation does, without a branch on a random bit. */
DF_VAL_HOT double df_neg_if(double x, uint32_t neg)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    bits ^= (uint64_t)(neg & 1u) << 63;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* A significand uniform in [1, 2) at t's precision (23 or 52 random
 * fraction bits), built from an integer so it is exact; negative when
 * `sign`, from a bit the significand does not use. */
DF_VAL_HOT double df_draw_mant(df_pcg32 *r, df_type t, int sign)
{
    uint32_t w = df_pcg32_next(r);
    double m;
    if (t == DF_F32) {
        m = (double)((w >> 9) | 0x800000u) * 0x1p-23;
    } else {
        uint64_t frac = (uint64_t)(w >> 12) << 32 | df_pcg32_next(r);
        m = (double)(frac | (uint64_t)1 << 52) * 0x1p-52;
    }
    return df_neg_if(m, (uint32_t)sign & w);
}

/* A nonzero integer uniform in [-v, -1] u [1, v], v >= 1, in one draw. */
DF_VAL double df_draw_nonzero_int(df_pcg32 *r, int32_t v)
{
    int64_t x = df_pcg32_range(r, -(int64_t)v, (int64_t)v - 1);
    return (double)(x >= 0 ? x + 1 : x);
}

/* A position in [0, n), n >= 1: the first or the last element a quarter of
 * the time (where tail and off-by-one bugs live), else uniform. */
DF_VAL uint64_t df_draw_pos(df_pcg32 *r, uint64_t n)
{
    uint32_t c = df_pcg32_bounded(r, 8);
    if (c == 0)
        return 0;
    if (c == 1)
        return n - 1;
    return df_draw_uniform_u64(r, 0, n - 1);
}

/* j in [0, i] for the shuffle of the pairs. */
DF_VAL uint64_t df_val_shuffle_draw(df_pcg32 *r, uint64_t i)
{
    return df_draw_uniform_u64(r, 0, i);
}

/* Fisher-Yates over the pairs (a[i], b[i]): a pair keeps its partners
 * (shuffle.h). */
DF_VAL void df_val_shuffle_pairs(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    df_shuffle_pairs(a, b, df_val_size(t), n, r, df_val_shuffle_draw);
}

/* m 2^e for e in [-1022, 1023] and a result in the normal range, where it
 * is exact: ldexp's value without the library call in the per-element
 * loops (2^e is built from its bits). */
DF_VAL_HOT double df_scale2(double m, int e)
{
    uint64_t bits = (uint64_t)(e + 1023) << 52;
    double p;
    memcpy(&p, &bits, sizeof p);
    return m * p;
}

/* +-m 2^e, e uniform in [elo, ehi], m from df_draw_mant: the exponent is drawn
 * first, in its own statement (two draws in one argument list would run in
 * an order the compiler picks). */
DF_VAL_HOT double df_draw_scaled(df_pcg32 *r, df_type t, int elo, int ehi)
{
    int e = (int)df_pcg32_range(r, elo, ehi);
    return df_scale2(df_draw_mant(r, t, 1), e);
}

DF_VAL uint64_t df_isqrt_u64(uint64_t x)
{
    uint64_t lo = 0, hi = 0xffffffffu; /* floor(sqrt(x)) lies in [lo, hi] */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (mid * mid <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Largest |value| for i32 data with at most m nonzero products such that
 * sum |a_i b_i| <= INT32_MAX, so no int32 accumulation in any order can
 * overflow and correct int kernels stay clean: 46340 for one product, 50
 * at m = 858993 (the seed-002 kernel's max_n), never below 1. */
DF_VAL int32_t df_i32_bound(uint64_t m)
{
    uint64_t v = df_isqrt_u64((uint64_t)INT32_MAX / (m ? m : 1));
    return (int32_t)(v < 1 ? 1 : v > DF_I32_MAX_SQRT ? DF_I32_MAX_SQRT : v);
}

/* ---- exact sum (for cond) ----------------------------------------------- */

/* A fixed-point number with 32-bit digits in int64 chunks, value =
 * sum c[i] 2^(32 i + DF_COND_ACC_LOW): adding a double is exact and carries can
 * wait 2^29 additions. It spans every double's bits (2^-1074 and up) with
 * 2^128 of headroom above DBL_MAX. */
#define DF_COND_ACC_LOW (-1152)
#define DF_COND_ACC_CHUNKS 72
#define DF_COND_ACC_CARRY_EVERY (1u << 29)

typedef struct df_cond_acc {
    int64_t c[DF_COND_ACC_CHUNKS];
    uint32_t pending; /* additions since the last carry pass */
} df_cond_acc;

/* Leaves chunks 0..DF_COND_ACC_CHUNKS-2 in [0, 2^32), the sign in the top one. */
DF_VAL void df_cond_acc_carry(int64_t *c)
{
    for (int i = 0; i + 1 < DF_COND_ACC_CHUNKS; i++) {
        int64_t low = (int64_t)((uint64_t)c[i] & 0xffffffffu);
        c[i + 1] += (c[i] - low) / ((int64_t)1 << 32); /* exact: no shift of a negative */
        c[i] = low;
    }
}

DF_VAL_HOT void df_cond_acc_add(df_cond_acc *acc, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint64_t frac = bits & (((uint64_t)1 << 52) - 1);
    uint32_t bexp = (uint32_t)(bits >> 52) & 0x7ffu;
    if ((bexp == 0 && frac == 0) || bexp == 0x7ffu)
        return; /* zero; cond's values are always finite */
    /* v = +-m 2^(e - 1075), subnormals included */
    uint64_t m = bexp ? frac | (uint64_t)1 << 52 : frac;
    uint32_t pos = (bexp ? bexp : 1) + (uint32_t)(-1075 - DF_COND_ACC_LOW); /* >= 78 */
    uint32_t idx = pos / 32, sh = pos % 32;
    uint64_t lo = m << sh;                     /* bits 0..63 of m 2^sh */
    uint64_t hi = sh ? m >> (64 - sh) : 0;     /* bits 64..84 */
    int64_t d[3] = {(int64_t)(lo & 0xffffffffu), (int64_t)(lo >> 32), (int64_t)hi};
    int64_t neg = -(int64_t)(bits >> 63); /* 0 or -1: (d ^ neg) - neg is +-d, no branch */
    acc->c[idx] += (d[0] ^ neg) - neg;
    acc->c[idx + 1] += (d[1] ^ neg) - neg;
    acc->c[idx + 2] += (d[2] ^ neg) - neg;
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
/* Inlined into df_fill_cond on the host, so that its x86-64-v3 copy
 * (DF_VAL_CLONES) has this loop, TwoProduct's fma included, as one
 * instruction: left to the compiler it stayed one out-of-line baseline
 * copy, fma a libm call (4% of a default host run). Device code as before. */
DF_VAL_HOST_HOT double df_cond_bulk_range(df_pcg32 *r, df_type t, void *a, void *b,
                                          uint64_t i0, uint64_t i1, int top, int shift,
                                       double sgn, df_cond_acc *acc)
{
    int same = sgn != 0;
    double G = 0;
    const df_bounded32 eb = df_bounded32_make((uint32_t)top + 1);
    for (uint64_t i = i0; i < i1; i++) {
        int e = (i == 0 ? top : (int)df_bounded32_draw(r, &eb)) - shift;
        double x = df_scale2(df_draw_mant(r, t, !same), e);
        double y = df_scale2(df_draw_mant(r, t, !same), e);
        if (same)
            x *= sgn;
        df_put_elem(t, a, i, x);
        df_put_elem(t, b, i, y);
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

/* Cloned for x86-64-v3: TwoProduct's fma is one instruction there. */
DF_VAL_CLONES DF_VAL void df_fill_cond(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
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
    df_val_shuffle_pairs(r, t, a, b, n);
}

/* ---- wide-exp ----------------------------------------------------------- */

/* Random signs and full-precision significands with exponents uniform in
 * a window [lo, hi] drawn per case inside the type's normal range (two
 * uniform ends: windows of every width, the whole range included). Rule
 * for finiteness: every pair keeps e_a + e_b <= emax - 3 - ceil(log2 n)
 * (a pair above it is lowered onto that line, half the excess from each),
 * so each |a_i b_i| < 2^(emax - 1) / n and G, and with it every partial sum
 * in any order, stays below 2^(emax - 1): nothing overflows. Products may
 * underflow; that is part of what the family hunts, with absorption of the
 * small terms by the large. */
DF_VAL int64_t df_wide_exp_line(df_type t, uint64_t n)
{
    return (t == DF_F32 ? 127 : 1023) - 3 - (int64_t)df_ceil_log2_u64(n);
}

/* The window's ends, two draws, in order. */
DF_VAL void df_wide_exp_window(df_pcg32 *r, df_type t, int64_t *lo, int64_t *hi)
{
    int64_t emin = t == DF_F32 ? -126 : -1022, emax = t == DF_F32 ? 127 : 1023;
    int64_t x = df_pcg32_range(r, emin, emax), y = df_pcg32_range(r, emin, emax);
    *lo = x < y ? x : y;
    *hi = x < y ? y : x;
}

/* Elements [i0, i1) of a wide-exp case with window [lo, hi]. */
DF_VAL void df_wide_exp_range(df_pcg32 *r, df_type t, void *a, void *b, uint64_t i0,
                              uint64_t i1, int64_t lo, int64_t hi, int64_t line)
{
    const df_bounded32 span = df_bounded32_make((uint32_t)(hi - lo + 1)); /* at most 2046 */
    for (uint64_t i = i0; i < i1; i++) {
        int64_t ea = lo + (int64_t)df_bounded32_draw(r, &span);
        int64_t eb = lo + (int64_t)df_bounded32_draw(r, &span);
        int64_t over = ea + eb - line, excess = over > 0 ? over : 0; /* no branch */
        ea -= (excess + 1) / 2;
        eb -= excess / 2;
        df_put_elem(t, a, i, df_scale2(df_draw_mant(r, t, 1), (int)ea));
        df_put_elem(t, b, i, df_scale2(df_draw_mant(r, t, 1), (int)eb));
    }
}

DF_VAL void df_fill_wide_exp(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    int64_t lo, hi;
    df_wide_exp_window(r, t, &lo, &hi);
    df_wide_exp_range(r, t, a, b, 0, n, lo, hi, df_wide_exp_line(t, n));
}

/* ---- special ------------------------------------------------------------ */

enum {
    DF_SP_ZERO, DF_SP_SUBNORMAL, DF_SP_INF, DF_SP_NAN, DF_SP_MAX, DF_SP_MIN_NORMAL,
    DF_SP_CLASSES
};

/* One special value, random sign, written as a bit pattern so nothing can
 * round, flush or quiet it on the way. Subnormals: the smallest, the
 * largest or a random one. NaN is the default quiet NaN. */
DF_VAL void df_put_special(df_pcg32 *r, df_type t, void *v, uint64_t i)
{
    uint32_t cls = df_pcg32_bounded(r, DF_SP_CLASSES), w = df_pcg32_next(r);
    uint32_t pick = (w >> 1) & 3; /* subnormal: 0 smallest, 1 largest, else random */
    if (t == DF_F32) {
        const uint32_t fixed[DF_SP_CLASSES] = {0, 0, 0x7f800000u, 0x7fc00000u,
                                                   0x7f7fffffu, 0x00800000u};
        uint32_t bits = fixed[cls];
        if (cls == DF_SP_SUBNORMAL)
            bits = pick == 0 ? 1 : pick == 1 ? 0x7fffffu : (w >> 9) | 1;
        bits |= (w & 1) << 31;
        memcpy((float *)v + i, &bits, sizeof bits);
    } else {
        const uint64_t fixed[DF_SP_CLASSES] = {
            0, 0, 0x7ff0000000000000u, 0x7ff8000000000000u, 0x7fefffffffffffffu,
            0x0010000000000000u};
        uint64_t bits = fixed[cls];
        if (cls == DF_SP_SUBNORMAL)
            bits = pick == 0 ? 1
                   : pick == 1 ? ((uint64_t)1 << 52) - 1
                               : ((uint64_t)(w >> 3) << 23) | 1;
        bits |= (uint64_t)(w & 1) << 63;
        memcpy((double *)v + i, &bits, sizeof bits);
    }
}

/* The special values over a filled case (df_fill_special's last draws). */
DF_VAL void df_special_tail(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    if (n == 0)
        return;
    uint32_t count = 1 + df_pcg32_bounded(r, 6);
    for (uint32_t k = 0; k < count; k++) {
        void *v = df_pcg32_next(r) & 1 ? a : b;
        df_put_special(r, t, v, df_draw_pos(r, n));
    }
}

/* int-small or uniform values (half the cases each), then 1 to 6 special
 * values at biased positions of a or b (a position drawn twice holds the
 * later one). */
DF_VAL void df_fill_special(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    if (df_pcg32_bounded(r, 2))
        df_fill_int_small(r, t, a, b, n);
    else
        df_fill_uniform(r, t, a, b, n);
    df_special_tail(r, t, a, b, n);
}

/* ---- sparse ------------------------------------------------------------- */

/* Nonzero floats of either kind, so sparse and cancel cases are half in the
 * exact regime (small integers) and half not. */
DF_VAL double df_draw_nonzero_float(df_pcg32 *r, df_type t)
{
    return df_draw_scaled(r, t, -4, 5);
}

/* The nonzero pairs over an all-zero case (df_fill_sparse's draws). */
DF_VAL void df_sparse_tail(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    if (n == 0)
        return;
    uint64_t pairs = 1 + df_pcg32_bounded(r, (uint32_t)df_min_u64(n, 16));
    int ints = t == DF_I32 || df_pcg32_bounded(r, 2);
    int32_t v = t == DF_I32 ? df_i32_bound(pairs) : 50;
    for (uint64_t k = 0; k < pairs; k++) {
        uint64_t i = df_draw_pos(r, n);
        df_put_elem(t, a, i, ints ? df_draw_nonzero_int(r, v) : df_draw_nonzero_float(r, t));
        df_put_elem(t, b, i, ints ? df_draw_nonzero_int(r, v) : df_draw_nonzero_float(r, t));
    }
}

/* All zeros (+0) but 1 to 16 pairs with a_i and b_i both nonzero, at
 * positions biased to the ends (a position drawn twice counts once).
 * Floats: integers in [-50, 50] or floats of magnitude [2^-4, 2^6), half
 * the cases each; i32: integers within df_i32_bound(pairs). */
DF_VAL void df_fill_sparse(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    size_t esz = df_val_size(t);
    memset(a, 0, (size_t)n * esz); /* all-zero bits: +0 in every type */
    memset(b, 0, (size_t)n * esz);
    df_sparse_tail(r, t, a, b, n);
}

/* ---- constant ----------------------------------------------------------- */

/* One a and one b for all elements, so a kernel that drops or doubles an
 * element is off by a multiple of a*b. Floats: half the cases nonzero
 * integers of magnitude up to 1, 2, 4, 8, 16, 32 or 50 (exact regime while
 * n |ab| <= 2^24: up to n = 2^24 for 1 * 1), half full-precision values
 * of magnitude [2^-8, 2^9) (rounding from the second element on). i32:
 * nonzero within df_i32_bound(n). */
DF_VAL void df_constant_values(df_pcg32 *r, df_type t, uint64_t n, double *px, double *py)
{
    const int32_t spans[] = {1, 2, 4, 8, 16, 32, 50};
    double x, y;
    if (t == DF_I32) {
        int32_t v = df_i32_bound(n);
        x = df_draw_nonzero_int(r, v);
        y = df_draw_nonzero_int(r, v);
    } else if (df_pcg32_bounded(r, 2)) {
        x = df_draw_nonzero_int(r, spans[df_pcg32_bounded(r, 7)]);
        y = df_draw_nonzero_int(r, spans[df_pcg32_bounded(r, 7)]);
    } else {
        x = df_draw_scaled(r, t, -8, 8);
        y = df_draw_scaled(r, t, -8, 8);
    }
    *px = x;
    *py = y;
}

DF_VAL void df_constant_range(df_type t, void *a, void *b, uint64_t i0, uint64_t i1, double x,
                              double y)
{
    for (uint64_t i = i0; i < i1; i++) {
        df_put_elem(t, a, i, x);
        df_put_elem(t, b, i, y);
    }
}

DF_VAL void df_fill_constant(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    double x, y;
    df_constant_values(r, t, n, &x, &y);
    df_constant_range(t, a, b, 0, n, x, y);
}

/* ---- cancel ------------------------------------------------------------- */

/* Pairs (x, y) and (x, -y) or (-x, y), whose products cancel exactly, plus
 * 1 to 4 small terms (one more when the rest is odd), so s is the small
 * terms' sum while G is all of it. Floats: the pairs are nonzero integers
 * in [-50, 50] with small terms in [-3, 3] (exact regime while G <= 2^24),
 * or full-precision values of magnitude [1, 2^21) with small terms in
 * [2^-10, 2), half the cases each; i32: pairs within df_i32_bound(n), small
 * terms within 3. Shuffled three cases in four (pairs far apart), left
 * adjacent in the fourth. */
/* Pairs [p0, p1) (elements 2p and 2p + 1) of a cancel case. */
DF_VAL void df_cancel_pairs(df_pcg32 *r, df_type t, void *a, void *b, uint64_t p0, uint64_t p1,
                            int ints, int32_t v)
{
    for (uint64_t p = p0; p < p1; p++) {
        double x = ints ? df_draw_nonzero_int(r, v) : df_draw_scaled(r, t, 0, 20);
        double y = ints ? df_draw_nonzero_int(r, v) : df_draw_scaled(r, t, 0, 20);
        uint32_t flip_a = df_pcg32_next(r) & 1;
        df_put_elem(t, a, 2 * p, x);
        df_put_elem(t, b, 2 * p, y);
        df_put_elem(t, a, 2 * p + 1, df_neg_if(x, flip_a));
        df_put_elem(t, b, 2 * p + 1, df_neg_if(y, flip_a ^ 1));
    }
}

/* The small terms, elements [i0, n). */
DF_VAL void df_cancel_small(df_pcg32 *r, df_type t, void *a, void *b, uint64_t i0, uint64_t n,
                            int ints, int32_t vs)
{
    for (uint64_t i = i0; i < n; i++) {
        df_put_elem(t, a, i, ints ? df_draw_nonzero_int(r, vs) : df_draw_scaled(r, t, -10, 0));
        df_put_elem(t, b, i, ints ? df_draw_nonzero_int(r, vs) : df_draw_mant(r, t, 1));
    }
}

DF_VAL void df_fill_cancel(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    if (n == 0)
        return;
    int ints = t == DF_I32 || df_pcg32_bounded(r, 2);
    int32_t v = t == DF_I32 ? df_i32_bound(n) : 50, vs = v < 3 ? v : 3;
    uint64_t small = df_min_u64(n, 1 + df_pcg32_bounded(r, 4));
    uint64_t pairs = (n - small) / 2;
    df_cancel_pairs(r, t, a, b, 0, pairs, ints, v);
    df_cancel_small(r, t, a, b, 2 * pairs, n, ints, vs);
    if (df_pcg32_bounded(r, 4))
        df_val_shuffle_pairs(r, t, a, b, n);
}

/* int-big (i32 only, DF_K_ACC_WIDE kernels): a in [0, 46340] with one sign
 * drawn per case, b in [0, 46340]: every product fits int32 (46340^2 <
 * 2^31) but a few of them already carry the sum past int32, which a kernel
 * that promises a 64-bit result must still get right. */
DF_VAL void df_int_big_range(df_pcg32 *r, void *va, void *vb, uint64_t i0, uint64_t i1,
                             int32_t sign)
{
    int32_t *a = (int32_t *)va, *b = (int32_t *)vb;
    for (uint64_t i = i0; i < i1; i++) {
        a[i] = sign * (int32_t)df_pcg32_bounded(r, 46341);
        b[i] = (int32_t)df_pcg32_bounded(r, 46341);
    }
}

DF_VAL void df_fill_int_big(df_pcg32 *r, df_type t, void *va, void *vb, uint64_t n)
{
    int32_t sign = df_pcg32_bounded(r, 2) ? -1 : 1;
    (void)t;
    df_int_big_range(r, va, vb, 0, n, sign);
}


/* ---- long cases: made in chunks ---------------------------------------- */

/* A case longer than DF_GEN_CHUNK elements is made in three steps, so that
 * many threads (the pool's, or the GPU's) can make one case together:
 *   plan    the family's per-case draws from the case's value stream (as
 *           the short form's first draws, where it has them), then a key of
 *           two draws, high word first;
 *   chunks  chunk j, elements [j C, (j + 1) C) of the chunked span
 *           (C = DF_GEN_CHUNK; the span is the case, but for cond's bulk and
 *           cancel's pairs), from its own stream df_pcg32_seed(key, j): the
 *           elements in index order as the short form draws them, and for
 *           the shuffled families (cond; cancel three cases in four) then a
 *           Fisher-Yates over the chunk's pairs from the same stream;
 *   finish  from the value stream again, what is placed over the whole
 *           case: special's special values, sparse's pairs, cond's chain
 *           elements (from the chunks' exact sums, added in any order, and
 *           their G, added in chunk order) and cancel's small terms, each of
 *           the last two then swapped with the pair at a position drawn
 *           uniform over the case (in order; cancel only when shuffled).
 * The chunks are independent, so a case is the same bytes whichever
 * threads make them in whatever order. DF_GEN_CHUNK: generator.h. Pairs
 * move only within their chunk
 * (65,536 elements), where the short form moves them over the whole case;
 * cond's chain and cancel's small terms still land anywhere. Cases up to
 * DF_GEN_CHUNK elements, a default run's every case, are made as before. */
typedef struct df_vplan {
    uint32_t family;
    df_type type;
    uint64_t n, span, key;
    int64_t lo, hi, line; /* int ranges; wide-exp's window and line */
    double x, y;          /* constant's values; cond: the target, the sign */
    uint64_t pairs;       /* cancel */
    uint32_t octave;      /* cond */
    int32_t v, vs, top, shift, sign;
    int ints, shuffled;
} df_vplan;

/* One chunk's part of cond's exact bulk sum. */
typedef struct df_vchunk {
    df_cond_acc acc;
    double G;
} df_vchunk;

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

DF_VAL uint64_t df_vplan_chunks(const df_vplan *p)
{
    return (p->span + DF_GEN_CHUNK - 1) / DF_GEN_CHUNK;
}

/* Whether the chunks leave partial sums (df_vchunk) for the finish. */
DF_VAL int df_vplan_partials(const df_vplan *p) { return p->family == DF_FAM_COND; }

/* The plan of a case of n > DF_GEN_CHUNK elements: the family's per-case
 * draws from r, then the key. Returns 0, or -1 for an unknown family. */
DF_VAL int df_values_plan(uint32_t family, df_pcg32 *r, df_type t, uint64_t n, df_vplan *p)
{
    memset(p, 0, sizeof *p);
    p->family = family;
    p->type = t;
    p->n = n;
    p->span = n;
    switch (family) {
    case DF_FAM_INT_SMALL:
    case DF_FAM_UNIFORM:
    case DF_FAM_SPARSE:
        break;
    case DF_FAM_INT_WIDE:
        p->hi = (int64_t)1 << df_pcg32_range(r, 7, 24);
        p->lo = -p->hi;
        break;
    case DF_FAM_COND: {
        double c = df_cond_target(r, t, n, &p->octave);
        p->x = c < 2.5 ? 2.5 : c;
        p->span = n - df_cond_steps(t, p->octave);
        p->y = df_cond_bulk_sign(r, n, p->octave, &p->top, &p->shift);
        break;
    }
    case DF_FAM_WIDE_EXP:
        df_wide_exp_window(r, t, &p->lo, &p->hi);
        p->line = df_wide_exp_line(t, n);
        break;
    case DF_FAM_SPECIAL:
        p->ints = (int)df_pcg32_bounded(r, 2);
        break;
    case DF_FAM_CONSTANT:
        df_constant_values(r, t, n, &p->x, &p->y);
        break;
    case DF_FAM_CANCEL: {
        p->ints = t == DF_I32 || df_pcg32_bounded(r, 2);
        p->v = t == DF_I32 ? df_i32_bound(n) : 50;
        p->vs = p->v < 3 ? p->v : 3;
        uint64_t small = 1 + df_pcg32_bounded(r, 4);
        p->pairs = (n - small) / 2;
        p->span = 2 * p->pairs;
        p->shuffled = df_pcg32_bounded(r, 4) != 0;
        break;
    }
    case DF_FAM_INT_BIG:
        p->sign = df_pcg32_bounded(r, 2) ? -1 : 1;
        break;
    default:
        return -1;
    }
    p->key = df_pcg32_u64(r);
    return 0;
}

/* Chunk j of p's case into a and b (the whole case's vectors); out gets
 * cond's partial sums (df_vplan_partials), and is not touched otherwise. */
DF_VAL_HOST_HOT void df_values_chunk(const df_vplan *p, void *a, void *b, uint64_t j, df_vchunk *out)
{
    df_type t = p->type;
    uint64_t i0 = j * DF_GEN_CHUNK, i1 = df_min_u64(p->span, i0 + DF_GEN_CHUNK);
    size_t es = df_val_size(t);
    unsigned char *ca = (unsigned char *)a + i0 * es, *cb = (unsigned char *)b + i0 * es;
    df_pcg32 r;
    df_pcg32_seed(&r, p->key, j);
    switch (p->family) {
    case DF_FAM_SPECIAL:
        if (!p->ints) {
            df_fill_uniform(&r, t, ca, cb, i1 - i0);
            break;
        }
        /* fall through */
    case DF_FAM_INT_SMALL:
        df_fill_int_small(&r, t, ca, cb, i1 - i0);
        break;
    case DF_FAM_UNIFORM:
        df_fill_uniform(&r, t, ca, cb, i1 - i0);
        break;
    case DF_FAM_INT_WIDE:
        df_fill_ints(&r, t, ca, i1 - i0, p->lo, p->hi);
        df_fill_ints(&r, t, cb, i1 - i0, p->lo, p->hi);
        break;
    case DF_FAM_COND:
        memset(&out->acc, 0, sizeof out->acc);
        out->G = df_cond_bulk_range(&r, t, a, b, i0, i1, p->top, p->shift, p->y, &out->acc);
        break;
    case DF_FAM_WIDE_EXP:
        df_wide_exp_range(&r, t, a, b, i0, i1, p->lo, p->hi, p->line);
        break;
    case DF_FAM_SPARSE:
        memset(ca, 0, (size_t)(i1 - i0) * es);
        memset(cb, 0, (size_t)(i1 - i0) * es);
        break;
    case DF_FAM_CONSTANT:
        df_constant_range(t, a, b, i0, i1, p->x, p->y);
        break;
    case DF_FAM_CANCEL: /* DF_GEN_CHUNK is even: a chunk holds whole pairs */
        df_cancel_pairs(&r, t, a, b, i0 / 2, i1 / 2, p->ints, p->v);
        break;
    case DF_FAM_INT_BIG:
        df_int_big_range(&r, a, b, i0, i1, p->sign);
        break;
    }
    if (p->family == DF_FAM_COND || p->shuffled)
        df_val_shuffle_pairs(&r, t, ca, cb, i1 - i0);
}


/* Pair i swapped with a pair drawn uniform over the case. */
DF_VAL void df_swap_far(df_pcg32 *r, df_type t, void *a, void *b, uint64_t i, uint64_t n)
{
    uint64_t j = df_draw_uniform_u64(r, 0, n - 1);
    if (df_val_size(t) == 4) {
        uint32_t *x = (uint32_t *)a, *y = (uint32_t *)b, s;
        s = x[i], x[i] = x[j], x[j] = s;
        s = y[i], y[i] = y[j], y[j] = s;
    } else {
        uint64_t *x = (uint64_t *)a, *y = (uint64_t *)b, s;
        s = x[i], x[i] = x[j], x[j] = s;
        s = y[i], y[i] = y[j], y[j] = s;
    }
}

/* The finish of p's case, its chunks made, from r (the value stream after
 * the plan); acc and G: the chunks' partial sums merged (cond only). */
DF_VAL void df_values_finish(const df_vplan *p, df_pcg32 *r, void *a, void *b, df_cond_acc *acc,
                             double G)
{
    df_type t = p->type;
    uint64_t n = p->n;
    switch (p->family) {
    case DF_FAM_SPECIAL:
        df_special_tail(r, t, a, b, n);
        break;
    case DF_FAM_SPARSE:
        df_sparse_tail(r, t, a, b, n);
        break;
    case DF_FAM_COND:
        for (uint64_t i = p->span; i < n; i++)
            G = df_cond_step(r, t, a, b, i, n - i, p->x, acc, G);
        for (uint64_t i = p->span; i < n; i++)
            df_swap_far(r, t, a, b, i, n);
        break;
    case DF_FAM_CANCEL:
        df_cancel_small(r, t, a, b, p->span, n, p->ints, p->vs);
        for (uint64_t i = p->span; p->shuffled && i < n; i++)
            df_swap_far(r, t, a, b, i, n);
        break;
    }
}

/* The finish of p's case from its chunks' partial sums ch (one a chunk;
 * read only where df_vplan_partials): the exact sums merged in any order,
 * G in chunk order, then df_values_finish. For chunks made apart. */
DF_VAL void df_values_finish_parts(const df_vplan *p, df_pcg32 *r, void *a, void *b,
                                   const df_vchunk *ch)
{
    df_cond_acc acc;
    double G = 0;
    memset(&acc, 0, sizeof acc);
    for (uint64_t j = 0; df_vplan_partials(p) && j < df_vplan_chunks(p); j++) {
        df_cond_acc_merge(&acc, &ch[j].acc);
        G += ch[j].G;
    }
    df_values_finish(p, r, a, b, &acc, G);
}

/* A long case made by one thread: plan, chunks in order, finish. */
DF_VAL int df_fill_long(uint32_t family, df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    df_vplan p;
    if (df_values_plan(family, r, t, n, &p) != 0)
        return -1;
    df_cond_acc acc;
    df_vchunk ch;
    double G = 0;
    memset(&acc, 0, sizeof acc);
    for (uint64_t j = 0; j < df_vplan_chunks(&p); j++) {
        df_values_chunk(&p, a, b, j, &ch);
        if (df_vplan_partials(&p)) {
            df_cond_acc_merge(&acc, &ch.acc);
            G += ch.G;
        }
    }
    df_values_finish(&p, r, a, b, &acc, G);
    return 0;
}

/* Fills a[0..n) and b[0..n) of type t with family `family`'s values from
 * r, as df_generate does after the family and shape draws. Returns 0, or
 * -1 for an unknown family. */
DF_VAL int df_fill_values(uint32_t family, df_pcg32 *r, df_type t, void *a, void *b,
                          uint64_t n)
{
    if (n > DF_GEN_CHUNK)
        return df_fill_long(family, r, t, a, b, n);
    switch (family) {
    case DF_FAM_INT_SMALL: df_fill_int_small(r, t, a, b, n); return 0;
    case DF_FAM_UNIFORM: df_fill_uniform(r, t, a, b, n); return 0;
    case DF_FAM_INT_WIDE: df_fill_int_wide(r, t, a, b, n); return 0;
    case DF_FAM_COND: df_fill_cond(r, t, a, b, n); return 0;
    case DF_FAM_WIDE_EXP: df_fill_wide_exp(r, t, a, b, n); return 0;
    case DF_FAM_SPECIAL: df_fill_special(r, t, a, b, n); return 0;
    case DF_FAM_SPARSE: df_fill_sparse(r, t, a, b, n); return 0;
    case DF_FAM_CONSTANT: df_fill_constant(r, t, a, b, n); return 0;
    case DF_FAM_CANCEL: df_fill_cancel(r, t, a, b, n); return 0;
    case DF_FAM_INT_BIG: df_fill_int_big(r, t, a, b, n); return 0;
    }
    return -1;
}

#endif
