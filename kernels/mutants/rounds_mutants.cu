/* kernels/mutants/rounds_mutants.cu — the mutants of seed 003's two
 * round-per-launch kernels (kernels/fold.cu, kernels/tournament.cu): each
 * is its parent with the loop bounds the seed wrote for n = 2^k only.
 *
 *   m-fold-bounds        a round folds m / 2 cells onto the m / 2 below
 *                        them (the seed's "fold in half"): for odd m the
 *                        last live cell is never added.
 *   m-tournament-bounds  a round with distance D plays n / 2D matches
 *                        (floor): a winner whose partner is the last cell of
 *                        an unmatched stretch sits out, and its cells are
 *                        lost once the next round has no match for it.
 *
 * For n a power of two both equal their parents; otherwise elements are
 * dropped. Deterministic: the host models express the bugs. The parents'
 * DF_K_DEBUG_INVARIANTS trait is not carried over: these launchers do not
 * check the loop invariant (it would stop the run on the GPU before the
 * oracle sees the result, and the point is that the oracle catches it),
 * neither on the host nor in debug-invariant mode on the GPU. Their rounds
 * are enqueued as the parents' (gpu_common.h), checks included: an
 * addition of finite cells that overflows is reported as in the parents
 * (and noted by the shared models); the GPU's invariant follows each
 * launcher's own pairs, so it holds for these too, dropped cells and all.
 * How it is compiled: twice (see Makefile), as the parents. */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"

#ifndef __CUDACC__
/* ---- host models and descriptors (C11) ---- */
#include "kernels/model_common.h"

extern const df_kernel df_mutant_fold_bounds, df_mutant_tournament_bounds;

/* The parents' models with the power-of-two-only bounds. */
static int fold_bounds_model(const df_case *c, df_scratch *s, df_result *out)
{
    return df_model_rounds(&df_mutant_fold_bounds, c, s, true,
                           df_model_fold_rounds, DF_SOFT_K_FOLD, out);
}

static int tournament_bounds_model(const df_case *c, df_scratch *s,
                                   df_result *out)
{
    return df_model_rounds(&df_mutant_tournament_bounds, c, s, true,
                           df_model_tournament_rounds, DF_SOFT_K_TOURNAMENT, out);
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_m_fold_bounds,
    df_gpu_m_tournament_bounds;
#endif

/* The parents' launch (DF_ROUNDS_LAUNCH) less DF_K_DEBUG_INVARIANTS. */
#define ROUNDS_LAUNCH_NO_INVARIANTS                                          \
    .elem = DF_F32, .acc = DF_F32, .flags = DF_K_DETERMINISTIC,             \
    .block_min = 1, .block_max = 1024, .block_default = 256, .grid_max = 0, \
    .per_thread = 1, .max_n = 0, .tree_height = df_model_rounds_height

const df_kernel df_mutant_fold_bounds = {
    .name = "m-fold-bounds",
    .origin = "seed 003 (fold)",
    .summary = "folds m/2 cells onto m/2 (power-of-two bounds): for odd m "
               "the last live cell is dropped",
    ROUNDS_LAUNCH_NO_INVARIANTS,
    .host_model = fold_bounds_model,
    .gpu = DF_GPU_REF(df_gpu_m_fold_bounds),
};

const df_kernel df_mutant_tournament_bounds = {
    .name = "m-tournament-bounds",
    .origin = "seed 003 (tournament)",
    .summary = "plays n/2D matches per round (power-of-two bounds): cells "
               "past the last full match are dropped",
    ROUNDS_LAUNCH_NO_INVARIANTS,
    .host_model = tournament_bounds_model,
    .gpu = DF_GPU_REF(df_gpu_m_tournament_bounds),
};

#else
/* ---- GPU kernels and launchers (CUDA C) ---- */
/* the parents' round kernels (df_fold_round_kernel,
 * df_tournament_round_kernel): the bugs are in the launchers' bounds */
#include "kernels/gpu_common.h"

static int fold_bounds_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    if (c->n == 0)
        return df_enqueue_zero_result(ctx, sizeof(float));
    float *A = (float *)ctx->d_scratch;
    int rc = df_enqueue_products(ctx, c, A);
    if (rc == 0)
        rc = df_shadow_enqueue_init(ctx, c, A, DF_SOFT_K_FOLD);
    unsigned round = 0;
    for (uint64_t m = c->n; rc == 0 && m > 1; m /= 2)
        rc = df_fold_round_enqueue(ctx, c, A, m / 2, m / 2, m / 2, ++round);
    return rc != 0 ? rc : df_fetch_result(ctx, A, sizeof(float));
}

static int tournament_bounds_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    if (c->n == 0)
        return df_enqueue_zero_result(ctx, sizeof(float));
    float *A = (float *)ctx->d_scratch;
    int rc = df_enqueue_products(ctx, c, A);
    if (rc == 0)
        rc = df_shadow_enqueue_init(ctx, c, A, DF_SOFT_K_TOURNAMENT);
    unsigned round = 0;
    for (uint64_t D = 1; rc == 0 && D < c->n; D *= 2) {
        uint64_t pairs = c->n / (2 * D);
        round++;
        if (pairs == 0)
            break; /* a launch of zero blocks is an error; nothing to play */
        /* pairs <= n / 2D keeps every partner 2Dt + D below n: the
         * parent kernel's i + D < n test always holds */
        rc = df_tournament_round_enqueue(ctx, c, A, D, pairs, round);
    }
    return rc != 0 ? rc : df_fetch_result(ctx, A, sizeof(float));
}

extern "C" const struct df_gpu_ops df_gpu_m_fold_bounds = {
    df_cells_scratch_bytes, fold_bounds_enqueue, df_finish_float<float>, NULL, NULL};
extern "C" const struct df_gpu_ops df_gpu_m_tournament_bounds = {
    df_cells_scratch_bytes, tournament_bounds_enqueue, df_finish_float<float>, NULL, NULL};
#endif
