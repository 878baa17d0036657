/* fused_dot.h — the arithmetic of a fused dot-product-accumulate, as
 * tensor cores do it: a group of k products and the accumulator c summed
 * in one step, each term aligned to the largest term's exponent and cut
 * to a fixed number of fraction bits below it, the cut terms added
 * exactly, and the sum normalised and rounded once into the output.
 *
 * The description, and the parameters below, are the published ones: Fasi,
 * Higham, Mikaitis and Pranesh, "Numerical behavior of NVIDIA tensor
 * cores" (PeerJ CS, 2021) for the shape of the arithmetic (products exact,
 * no normalisation inside the group, truncation); MMA-Sim (Microsoft,
 * arXiv 2511.10909, github microsoft/MMA-Sim) for its details on Hopper:
 *   - a term is the product of its factors' significands (each in [1, 2),
 *     or below 1 for a subnormal of its format) at the sum of their
 *     exponents, so the alignment uses ea + eb, not the product's own
 *     exponent, which may be one more;
 *   - Hopper's mma and wgmma on fp16/bf16 keep 25 fraction bits below the
 *     largest term (23 + 2 alignment bits) and round the f32 result toward
 *     zero; wgmma on E4M3/E5M2 keeps 13 and its f32 result has 13 fraction
 *     bits ("f32_e8m13"), toward zero;
 *   - an f16 result is rounded to nearest-even.
 * A model here is a declaration: which of these a kernel does is what
 * `dotfuzz probe` measures and results/ records.
 */
#ifndef DOTFUZZ_FUSED_DOT_H
#define DOTFUZZ_FUSED_DOT_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz/case.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum df_round { DF_ROUND_NEAREST = 0, DF_ROUND_ZERO = 1 } df_round;

typedef struct df_fused_model {
    uint32_t group;     /* products a fused step takes (k); the dot is its groups in
                           order, each group's result the next one's c */
    int align_bits;     /* fraction bits kept below the group's largest term; at
                           most 48, so a group's cut terms sum exactly in a double */
    int out_bits;       /* fraction bits of the result (f32: 23; e8m13: 13; f16: 10) */
    int out_min_exp;    /* the result format's smallest normal exponent (f32 -126) */
    int out_max_exp;    /* its largest exponent (f32 127) */
    df_round out_round; /* the result's rounding */
    int in_min_exp;     /* the inputs' format's smallest normal exponent (fp16 -14,
                           bf16 -126, E4M3 -6, E5M2 -14): a subnormal's significand
                           is below 1 at that exponent */
} df_fused_model;

/* The exponent a zero term (a zero product, or c = 0) takes in the
 * alignment: below every real term's, so it never sets the cut (MMA-Sim
 * gives it -999): an H100's bf16 products below 2^-126 beside c = 0 keep
 * every bit down to f32's subnormal quantum, which an exponent of -126 for
 * the zero c cuts (docs/tensor-cores.md). */
#define DF_FUSED_ZERO_EXP (-999)

/* Hopper's, as published (above): fp16 and bf16 inputs, f32 result, 16
 * products a group; E4M3/E5M2 inputs on wgmma, 32 a group. */
df_fused_model df_fused_hopper_f16(void);
df_fused_model df_fused_hopper_bf16(void);
df_fused_model df_fused_hopper_fp8(int in_min_exp);

/* x rounded to `bits` fraction bits with smallest normal exponent min_exp
 * and largest max_exp, by `mode` (toward zero never overflows: past the
 * largest value it gives the largest value; to nearest, Inf). NaN and
 * Inf come back as they are. */
double df_round_bits(double x, int bits, int min_exp, int max_exp, df_round mode);

/* One fused step: c + sum of a[i] b[i] for i < k (the values exact as
 * doubles, k <= 64), rounded into the result by m. A NaN or Inf anywhere
 * in the exact sum gives what the double sum gives. */
double df_fused_group(const df_fused_model *m, double c, const double *a, const double *b,
                      size_t k);

/* The dot of n products in groups of m->group from c = 0, each group's
 * result the next group's c. */
double df_fused_dot(const df_fused_model *m, const double *a, const double *b, size_t n);

/* A chain of steps over low-precision data (t f16, bf16, e4m3 or e5m2; a
 * and b n encodings each): the groups of m->group products at first,
 * first + stride, ... below end (elements past n are zeros), each step's
 * c the chain so far, from 0. Each step is df_fused_group's on the
 * group's decoded values, bit for bit (fused_lowp.c). */
double df_fused_chain_lowp(const df_fused_model *m, df_type t, const void *a, const void *b,
                           uint64_t n, uint64_t first, uint64_t stride, uint64_t end);

/* The worst error of df_fused_dot under model m for n products whose
 * nonzero factors are normal in the input format and G = sum |a_i b_i|
 * (docs/oracle.md, fused accumulation, derives it): with g = ceil(n / k)
 * groups, u = 2^-out_bits toward zero (2^-(out_bits+1) to nearest) and
 * eta = (k + 1) 2^-align_bits, rho = u + eta + u eta and
 *   |result - s| <= g rho / (1 - g rho) G
 *                    + g (2^(out_min_exp - out_bits) + eta 2^out_min_exp),
 * +Inf when g rho >= 1. The last term is the cut where c, a subnormal of
 * the output, has the largest exponent: out_min_exp, above its value. */
double df_fused_bound(const df_fused_model *m, uint64_t n, double G);

#ifdef __cplusplus
}
#endif
#endif
