/* model_common.h — what the host halves of the seed kernels share (C11):
 * the start of a host model (result cleared, the case's type and launch
 * checked), and the parts of seed 003's two models (fold, tournament) that
 * are the same: the tree height of a sum with one addition per round,
 * launch 0, the products, into scratch, and both models' rounds, with the
 * power-of-two-only loop bounds of their mutants (kernels/mutants/
 * rounds_mutants.cu) as a parameter.
 */
#ifndef DOTFUZZ_MODEL_COMMON_H
#define DOTFUZZ_MODEL_COMMON_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz/cpu_clones.h"
#include "kernels/kernel.h"

/* A host model's hot function compiled for x86-64-v3 and for any x86-64
 * (fuzz/cpu_clones.h): fma()/fmaf() become one instruction. */
#define DF_MODEL_CLONES DF_CPU_CLONES

/* Clears out and resolves c's launch for k into l. Returns 0, or -1 with
 * out an error when c does not hold k's element type or the launch is not
 * valid for k. */
static inline int df_model_begin(const df_kernel *k, const df_case *c,
                                 df_launch *l, df_result *out)
{
    char why[112];
    memset(out, 0, sizeof *out);
    *l = c->launch;
    if (c->type != k->elem) {
        snprintf(out->err, sizeof out->err,
                 "%s model: needs %s data, case is %s", k->name,
                 df_type_name(k->elem), df_type_name(c->type));
    } else if (df_launch_resolve(k, c->n, l, why, sizeof why) != 0) {
        snprintf(out->err, sizeof out->err, "%s model: %s", k->name, why);
    } else {
        return 0;
    }
    out->status = DF_RUN_ERROR;
    return -1;
}

/* df_model_begin for a DF_K_BLAS kernel, whose backend gives every case
 * as a BLAS call (blas on: a plain case has increments 1). */
static inline int df_blas_model_begin(const df_kernel *k, const df_case *c, df_launch *l,
                                      df_result *out)
{
    if (df_model_begin(k, c, l, out) != 0)
        return -1;
    if (c->blas.on)
        return 0;
    df_result_error(out, k->name, c, "a plain case: the backend gives BLAS arguments");
    return -1;
}

/* ---- seed 003: fold and tournament ---- */

/* The tree height of both (and of their mutants), h = 1 + ceil(log2 n):
 * the product, then at most one addition per round into any cell, and
 * there are ceil(log2 n) rounds (none for n <= 1). The launch does not
 * enter: the block only spreads a round over threads. */
static inline uint64_t df_model_rounds_height(uint64_t n, const df_launch *l)
{
    (void)l;
    return n <= 1 ? 1 : 1 + df_ceil_log2_u64(n);
}

/* The descriptor fields both share but the tree height, which each
 * descriptor names: any block up to 1024 (a round spreads over as many
 * threads as it has pairs), the grid of launch 0 derived from n (one
 * product per thread), the debug-mode invariant check. */
#define DF_ROUNDS_LAUNCH                                                    \
    .flags = DF_K_DETERMINISTIC | DF_K_DEBUG_INVARIANTS |                   \
             DF_K_MODEL_IN_BOUNDS | DF_K_BATCH_ANY_BLOCK,                   \
    .block_min = 1, .block_max = 1024, .block_default = 256, .grid_max = 0, \
    .per_thread = 1, .max_n = 0

/* Launch 0 of both, for n >= 1: A[i] = a[i]*b[i] in scratch. Returns A, or
 * NULL with out an error (named after k). */
static inline float *df_model_products(const df_kernel *k, const df_case *c,
                                       df_scratch *s, df_result *out)
{
    float *A = NULL;
    if (c->n > SIZE_MAX / sizeof(float)) {
        snprintf(out->err, sizeof out->err, "%s model: n = %llu too large",
                 k->name, (unsigned long long)c->n);
    } else if (!(A = df_scratch_reserve(s, c->n * sizeof(float)))) {
        snprintf(out->err, sizeof out->err,
                 "%s model: out of memory for %llu floats", k->name,
                 (unsigned long long)c->n);
    } else {
        const float *a = c->a, *b = c->b;
        for (uint64_t i = 0; i < c->n; i++)
            A[i] = a[i] * b[i];
        return A;
    }
    out->status = DF_RUN_ERROR;
    return NULL;
}

/* Where a round's soft-error notes go: the GPU spreads a round over
 * blocks of `block` threads, one thread per addition. */
typedef struct df_model_rounds_soft {
    df_result *out;
    uint32_t block;
    uint32_t kernel; /* DF_SOFT_K_FOLD, DF_SOFT_K_TOURNAMENT */
} df_model_rounds_soft;

/* One round's addition x + y, by GPU thread t of the round (global
 * number), into cell: noted when it gives Inf/NaN from two finite values,
 * as the GPU check after the round reports it (gpu_common.h, df_shadow_check). */
static inline float df_model_round_add(float x, float y, const df_model_rounds_soft *ms,
                                       uint32_t round, uint64_t t, uint64_t cell)
{
    float r = x + y;
    if (!isfinite(r) && isfinite(x) && isfinite(y))
        df_soft_note(ms->out, DF_SOFT_NONFINITE, ms->kernel, __LINE__,
                     (uint32_t)(t / ms->block), (uint32_t)(t % ms->block), round, cell, 0,
                     (double)r);
    return r;
}

/* Both models: the launch checked, launch 0, then rounds(A, n, pow2_bounds)
 * and the sum in cell 0. The block size only decides how the GPU spreads a
 * round over threads (and so the block and thread of a soft-error note);
 * each round's additions are independent, so the models run them in order.
 * The loop invariant the GPU also checks (DF_SOFT_INVARIANT) holds for
 * every model run, which computes exactly these sums: it is not noted. */
static inline int df_model_rounds(const df_kernel *k, const df_case *c,
                                  df_scratch *s, bool pow2_bounds,
                                  void (*rounds)(float *, uint64_t, bool,
                                                 const df_model_rounds_soft *),
                                  uint32_t soft_kernel, df_result *out)
{
    df_launch l;
    if (df_model_begin(k, c, &l, out) != 0)
        return -1;
    if (c->n == 0)
        return 0;
    float *A = df_model_products(k, c, s, out);
    if (!A)
        return -1;
    const df_model_rounds_soft ms = {out, l.block, soft_kernel};
    rounds(A, c->n, pow2_bounds, &ms);
    out->f = A[0];
    return 0;
}

/* fold's rounds: cell i + ceil(m/2) folds onto cell i. With pow2_bounds
 * (m-fold-bounds) a round folds m/2 cells onto the m/2 below them, and for
 * odd m the last live cell is never added. Thread i adds into cell i. */
static inline void df_model_fold_rounds(float *A, uint64_t n, bool pow2_bounds,
                                        const df_model_rounds_soft *ms)
{
    uint32_t round = 0;
    for (uint64_t m = n; m > 1;) {
        uint64_t upper = pow2_bounds ? m / 2 : m - m / 2, pairs = m / 2;
        round++;
        for (uint64_t i = 0; i < pairs; i++)
            A[i] = df_model_round_add(A[i], A[i + upper], ms, round, i, i);
        m = upper;
    }
}

/* tournament's rounds: winner i = 2Dt plays i + D while i + D < n. With
 * pow2_bounds (m-tournament-bounds) a round plays floor(n / 2D) matches,
 * i + 2D <= n, and a winner whose partner ends an unmatched stretch sits
 * out. Thread t plays winner 2Dt. */
static inline void df_model_tournament_rounds(float *A, uint64_t n,
                                              bool pow2_bounds,
                                              const df_model_rounds_soft *ms)
{
    uint32_t round = 0;
    for (uint64_t D = 1; D < n; D *= 2) {
        round++;
        for (uint64_t i = 0; pow2_bounds ? i + 2 * D <= n : i + D < n;
             i += 2 * D)
            A[i] = df_model_round_add(A[i], A[i + D], ms, round, i / (2 * D), i);
    }
}

#endif
