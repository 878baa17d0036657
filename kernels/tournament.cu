/* kernels/tournament.cu — `tournament`: its card, launcher, debug-mode
 * invariant check, host model entry and descriptor; its round kernels are
 * in kernels/gpu_common.h, shared with fold and the mutants.
 *
 *   name        tournament
 *   origin      seed 003 — a course project: folding and tournament sums (2022)
 *   GPU code    kernels/gpu_common.h: df_products_kernel (launch 0), then
 *               df_tournament_round_kernel once per round, launched by
 *               tournament_enqueue (below); batches:
 *               df_rounds_enqueue_batch<true>
 *   host model  kernels/model_common.h: df_model_rounds with
 *               df_model_tournament_rounds (entry: tournament_model, below)
 *   h(n, l)     1 + ceil(log2 n), 1 for n <= 1
 *               (kernels/model_common.h: df_model_rounds_height)
 *   differs     winner i takes neighbour i + D, D = 1, 2, 4...: a balanced tree
 *
 * Launch 0 writes the products A[i] = a[i]*b[i] into scratch, then one
 * launch per round with D = 1, 2, 4, ...: every "winner" cell i (a multiple
 * of 2D) with i + D < n takes A[i] += A[i + D], until D >= n and A[0]
 * holds the sum. `fold` pairs cells half the live length apart instead.
 *
 * Any n works: a winner whose partner i + D is past the end sits the round
 * out. There are ceil(log2 n) rounds. Loop invariant (the seed's, checked
 * after every round on the host when the backend runs in debug-invariant
 * mode, and on the GPU, reported as a soft error, whenever its soft-error
 * slots are on; an addition of two finite cells that overflows is a soft
 * error too): after
 * the round with D, A[i] == sum of the products over [i, min(i + 2D, n))
 * for every i that is a multiple of 2D.
 * How it is compiled: twice (see Makefile): cc -x c builds the host model
 * and descriptor, nvcc -DDOTFUZZ_CUDA the kernels and their launcher. */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"

#ifndef __CUDACC__
/* ---- host model and descriptor (C11) ---- */
#include "kernels/model_common.h"

extern const df_kernel df_kernel_tournament;

/* Launch 0, then the rounds adding neighbour winners (model_common.h:
 * df_model_tournament_rounds). */
static int tournament_model(const df_case *c, df_scratch *s, df_result *out)
{
    return df_model_rounds(&df_kernel_tournament, c, s, false,
                           df_model_tournament_rounds, DF_SOFT_K_TOURNAMENT, out);
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_tournament;
#endif

const df_kernel df_kernel_tournament = {
    .name = "tournament",
    .origin = "seed 003",
    .summary = "products into scratch, then one launch per round adding "
               "neighbour winners (A[i] += A[i+D], D = 1, 2, 4, ...)",
    .elem = DF_F32,
    .acc = DF_F32,
    DF_ROUNDS_LAUNCH,
    .tree_height = df_model_rounds_height,
    .host_model = tournament_model,
    .gpu = DF_GPU_REF(df_gpu_tournament),
};

#else
/* ---- GPU kernels and launcher (CUDA C) ---- */
#include <math.h>

/* one round is df_tournament_round_kernel: thread t plays winner i = 2Dt
 * against i + D when i + D < n (shared with m-tournament-bounds) */
#include "kernels/gpu_common.h"

/* After round r (round r used D = 2^(r-1)) each winner i, a multiple of
 * w = 2^r, holds the products over [i, min(i + w, n)): the bound of
 * df_round_check, with s and g summed afresh from the inputs. */
static int tournament_check(df_gpu_ctx *ctx, const df_case *c, const float *A,
                            unsigned round)
{
    df_round_check chk;
    int rc = df_round_check_begin(&chk, ctx, "tournament", A, c->n, round);
    const float *a = (const float *)c->a, *b = (const float *)c->b;
    uint64_t w = (uint64_t)1 << round;
    for (uint64_t i = 0; rc == 0 && i < c->n; i += w) {
        uint64_t end = c->n - i < w ? c->n : i + w;
        double s = 0.0, g = 0.0;
        for (uint64_t j = i; j < end; j++) {
            double p = (double)a[j] * (double)b[j]; /* exact: 24+24 bits */
            s += p;
            g += fabs(p);
        }
        rc = df_round_check_cell(ctx, &chk, i, s, g);
    }
    return rc;
}

static int tournament_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    uint64_t n = c->n;
    if (n == 0) /* no cells: the sum is zero */
        return df_enqueue_zero_result(ctx, sizeof(float));
    float *A = (float *)ctx->d_scratch;
    int rc;
    if ((rc = df_enqueue_products(ctx, c, A)) != 0)
        return rc;
    unsigned round = 0;
    if (ctx->debug_invariants && (rc = tournament_check(ctx, c, A, round)) != 0)
        return rc;
    /* the checks on the GPU (gpu_common.h, df_shadow_*) are enqueued with
     * the rounds whenever the slots are on */
    if ((rc = df_shadow_enqueue_init(ctx, c, A, DF_SOFT_K_TOURNAMENT)) != 0)
        return rc;
    df_round_plan p; /* distance D = 2^(round-1) while D < n */
    while (df_round_plan_at(true, n, ++round, &p)) {
        if ((rc = df_round_enqueue(ctx, c, A, true, p, round)) != 0)
            return rc;
        if (ctx->debug_invariants &&
            (rc = tournament_check(ctx, c, A, round)) != 0)
            return rc;
    }
    return df_fetch_result(ctx, A, sizeof(float));
}

extern "C" const struct df_gpu_ops df_gpu_tournament = {
    df_cells_scratch_bytes, tournament_enqueue, df_finish_float<float>,
    df_rounds_enqueue_batch<true>, NULL};
#endif
