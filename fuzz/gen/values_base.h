/* values_base.h — what every value family (fuzz/gen/values.h) builds on:
 * the qualifiers that compile one text for the CPU and the GPU, element
 * access, exact integer helpers, a bounded draw with its threshold made
 * once, exact significands and powers of two, biased positions, the pair
 * shuffle, and the i32 families' bound on |value|.
 *
 * Every function is DF_VAL (static inline in C, __host__ __device__ in
 * CUDA); DF_VAL_HOT ones are inlined into the families' per-element loops
 * on the host and the device, DF_VAL_HOST_HOT ones on the host only. */
#ifndef DOTFUZZ_VALUES_BASE_H
#define DOTFUZZ_VALUES_BASE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz/cpu_clones.h"
#include "fuzz/lowp.h"
#include "fuzz/gen/generator.h"
#include "fuzz/pcg32.h"
#include "fuzz/gen/shuffle.h"

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
/* df_fill_cond_pairs built for x86-64-v3 too, in the one file that defines
 * DF_VALUES_CLONED (generator.c): clang gives a cloned function's resolver
 * one global name, which a second file including this header would
 * define again */
#ifdef DF_VALUES_CLONED
#define DF_VAL_CLONES DF_CPU_CLONES
#else
#define DF_VAL_CLONES
#endif
#endif

/* The format of a low-precision type, as the enum the fuzz/lowp.h calls
 * take (f32, f64 and i32 are not asked). */
DF_VAL_HOT df_lowp df_val_lowp(df_type t) { return (df_lowp)df_lowp_of(t); }

/* df_type_size and df_elem_as_double (fuzz/case.c), for device code too. */
DF_VAL_HOT size_t df_val_size(df_type t)
{
    return t == DF_F64 ? 8 : t == DF_F16 || t == DF_BF16 ? 2 : t == DF_E4M3 || t == DF_E5M2 ? 1 : 4;
}
DF_VAL_HOT double df_val_elem(df_type t, const void *v, uint64_t i)
{
    switch (t) {
    case DF_F32: return (double)((const float *)v)[i];
    case DF_F64: return ((const double *)v)[i];
    case DF_I32: return (double)((const int32_t *)v)[i];
    case DF_F16:
    case DF_BF16: return df_lowp_decode(df_val_lowp(t), ((const uint16_t *)v)[i]);
    case DF_E4M3:
    case DF_E5M2: return df_lowp_decode(df_val_lowp(t), ((const uint8_t *)v)[i]);
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

/* ---- bounded draws ------------------------------------------------------ */

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

/* ---- elements, significands, positions ---------------------------------- */

#define DF_I32_MAX_SQRT 46340 /* floor(sqrt(INT32_MAX)): every product fits int32 */

/* Stores x as element i of v; x is exact in t (an integer for i32), except
 * where a caller says it rounds once to float. */
DF_VAL_HOT void df_put_elem(df_type t, void *v, uint64_t i, double x)
{
    switch (t) {
    case DF_F32: ((float *)v)[i] = (float)x; break;
    case DF_F64: ((double *)v)[i] = x; break;
    case DF_I32: ((int32_t *)v)[i] = (int32_t)x; break;
    case DF_F16:
    case DF_BF16: ((uint16_t *)v)[i] = (uint16_t)df_lowp_encode(df_val_lowp(t), x, 0); break;
    case DF_E4M3:
    case DF_E5M2: ((uint8_t *)v)[i] = (uint8_t)df_lowp_encode(df_val_lowp(t), x, 0); break;
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

#endif
