/* kernels/fold.cu — `fold`: its card, launcher, debug-mode invariant check,
 * host model entry and descriptor; its round kernels are in
 * kernels/gpu_common.h, shared with tournament and the mutants.
 *
 *   name        fold
 *   origin      seed 003 — a course project: folding and tournament sums (2022)
 *   GPU code    kernels/gpu_common.h: df_products_kernel (launch 0), then
 *               df_fold_round_kernel once per round, launched by fold_enqueue
 *               (below); batches: df_rounds_enqueue_batch<false>
 *   host model  kernels/model_common.h: df_model_rounds with
 *               df_model_fold_rounds (entry: fold_model, below)
 *   h(n, l)     1 + ceil(log2 n), 1 for n <= 1
 *               (kernels/model_common.h: df_model_rounds_height)
 *   differs     cell i + ceil(m/2) folds onto cell i: partners m/2 apart
 *
 * Launch 0 writes the products A[i] = a[i]*b[i] into scratch, then one
 * launch per round folds the upper half of the live cells onto the lower
 * half, until one cell holds the sum. `tournament` pairs neighbours
 * instead.
 *
 * General n (the seed only sketches n = 2^k): with m live cells, round r
 * does A[i] += A[i + ceil(m/2)] for i < floor(m/2), then m = ceil(m/2); for
 * odd m the middle cell A[floor(m/2)] carries over untouched. There are
 * ceil(log2 n) rounds. Loop invariant (checked after every round on the
 * host when the backend runs in debug-invariant mode, and on the GPU,
 * reported as a soft error, whenever its soft-error slots are on; an
 * addition of two finite cells that overflows is a soft error too): cell
 * i < m holds the sum of the
 * products over its index set S(i), where S(i) = {i} after the products and
 * a fold merges S(i + ceil(m/2)) into S(i). For n = 2^k this is the seed's
 * {j : j = i mod m}.
 * How it is compiled: twice (see Makefile): cc -x c builds the host model
 * and descriptor, nvcc -DDOTFUZZ_CUDA the kernels and their launcher. */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"

#ifndef __CUDACC__
/* ---- host model and descriptor (C11) ---- */
#include "kernels/model_common.h"

extern const df_kernel df_kernel_fold;

/* Launch 0, then the rounds folding the upper half onto the lower
 * (model_common.h: df_model_fold_rounds). */
static int fold_model(const df_case *c, df_scratch *s, df_result *out)
{
    return df_model_rounds(&df_kernel_fold, c, s, false, df_model_fold_rounds,
                           DF_SOFT_K_FOLD, out);
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_fold;
#endif

const df_kernel df_kernel_fold = {
    .name = "fold",
    .origin = "seed 003",
    .summary = "products into scratch, then one launch per round folding the "
               "upper half onto the lower (cell i + ceil(m/2) into cell i)",
    .elem = DF_F32,
    .acc = DF_F32,
    DF_ROUNDS_LAUNCH,
    .tree_height = df_model_rounds_height,
    .host_model = fold_model,
    .gpu = DF_GPU_REF(df_gpu_fold),
};

#else
/* ---- GPU kernels and launcher (CUDA C) ---- */
#include <math.h>
#include <stdlib.h>

/* one round is df_fold_round_kernel: cell i + upper added into cell i for
 * i < pairs (shared with m-fold-bounds) */
#include "kernels/gpu_common.h"

/* The fold replayed on the host in double for the debug invariant: sum[i]
 * is the sum of the exact products over S(i), mag[i] the sum of their
 * absolute values. */
typedef struct fold_shadow {
    double *sum, *mag;
} fold_shadow;

static int fold_shadow_init(fold_shadow *sh, const df_case *c)
{
    sh->sum = (double *)malloc(c->n * sizeof(double));
    sh->mag = (double *)malloc(c->n * sizeof(double));
    if (!sh->sum || !sh->mag)
        return -1;
    const float *a = (const float *)c->a, *b = (const float *)c->b;
    for (uint64_t i = 0; i < c->n; i++) {
        sh->sum[i] = (double)a[i] * (double)b[i]; /* exact: 24+24 bits */
        sh->mag[i] = fabs(sh->sum[i]);
    }
    return 0;
}

static void fold_shadow_step(fold_shadow *sh, uint64_t pairs, uint64_t upper)
{
    for (uint64_t i = 0; i < pairs; i++) {
        sh->sum[i] += sh->sum[i + upper];
        sh->mag[i] += sh->mag[i + upper];
    }
}

/* After round r, S(i) of each live cell holds at most 2^r products: the
 * bound of df_round_check, against the shadow's sum and mag. */
static int fold_check(df_gpu_ctx *ctx, const fold_shadow *sh, const float *A,
                      uint64_t live, unsigned round)
{
    df_round_check chk;
    int rc = df_round_check_begin(&chk, ctx, "fold", A, live, round);
    for (uint64_t i = 0; rc == 0 && i < live; i++)
        rc = df_round_check_cell(ctx, &chk, i, sh->sum[i], sh->mag[i]);
    return rc;
}

/* sh is NULL unless the backend runs in debug-invariant mode. The checks
 * on the GPU (gpu_common.h, df_shadow_*) are enqueued with the rounds
 * whenever the slots are on. */
static int fold_rounds(df_gpu_ctx *ctx, const df_case *c, fold_shadow *sh)
{
    float *A = (float *)ctx->d_scratch;
    int rc;
    if ((rc = df_enqueue_products(ctx, c, A)) != 0)
        return rc;
    unsigned round = 0;
    if (sh && (rc = fold_check(ctx, sh, A, c->n, round)) != 0)
        return rc;
    if ((rc = df_shadow_enqueue_init(ctx, c, A, DF_SOFT_K_FOLD)) != 0)
        return rc;
    df_round_plan p; /* m live cells: pairs = floor(m/2), upper = ceil(m/2) */
    while (df_round_plan_at(false, c->n, ++round, &p)) {
        if ((rc = df_round_enqueue(ctx, c, A, false, p, round)) != 0)
            return rc;
        if (sh) {
            fold_shadow_step(sh, p.pairs, p.arg);
            if ((rc = fold_check(ctx, sh, A, p.live, round)) != 0)
                return rc;
        }
    }
    return df_fetch_result(ctx, A, sizeof(float));
}

static int fold_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    if (c->n == 0) /* no cells: the sum is zero */
        return df_enqueue_zero_result(ctx, sizeof(float));
    if (!ctx->debug_invariants)
        return fold_rounds(ctx, c, NULL);
    fold_shadow sh = {NULL, NULL};
    int rc;
    if (fold_shadow_init(&sh, c) != 0) {
        ctx->failed_call = "malloc(fold invariant shadow)";
        rc = (int)cudaErrorMemoryAllocation;
    } else {
        rc = fold_rounds(ctx, c, &sh);
    }
    free(sh.sum);
    free(sh.mag);
    return rc;
}

extern "C" const struct df_gpu_ops df_gpu_fold = {
    df_cells_scratch_bytes, fold_enqueue, df_finish_float<float>,
    df_rounds_enqueue_batch<false>, NULL};
#endif
