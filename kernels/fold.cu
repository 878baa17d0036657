/* kernels/fold.cu — `fold`, from seed 003 (a course project: array
 * folding): launch 0 writes the products A[i] = a[i]*b[i] into scratch, then
 * one launch per round folds the upper half of the live cells onto the lower
 * half, until one cell holds the sum.
 * What differs from its siblings: the addition tree pairs cell i with cell
 * i + ceil(m/2) (far apart), not neighbours as `tournament` does.
 *
 * General n (the seed only sketches n = 2^k): with m live cells, round r
 * does A[i] += A[i + ceil(m/2)] for i < floor(m/2), then m = ceil(m/2); for
 * odd m the middle cell A[floor(m/2)] carries over untouched. There are
 * ceil(log2 n) rounds. Loop invariant (checked after every round when the
 * backend runs in debug-invariant mode): cell i < m holds the sum of the
 * products over its index set S(i), where S(i) = {i} after the products and
 * a fold merges S(i + ceil(m/2)) into S(i). For n = 2^k this is the seed's
 * {j : j = i mod m}.
 * How it is compiled: twice (see Makefile): cc -x c builds the host model
 * and descriptor, nvcc -DDOTFUZZ_CUDA the kernels and their launcher. */
#include "kernel.h"
#include "cuda_backend.h"

#ifndef __CUDACC__
/* ---- host model and descriptor (C11) ---- */
#include <stdio.h>
#include <string.h>

extern const df_kernel df_kernel_fold;

/* the product, then one addition per round into cell 0 */
static uint64_t fold_height(uint64_t n, const df_launch *l)
{
    (void)l;
    return n <= 1 ? 1 : 1 + df_ceil_log2_u64(n);
}

static int model_begin(const df_case *c, df_launch *l, df_result *out)
{
    char why[112];
    memset(out, 0, sizeof *out);
    *l = c->launch;
    if (c->type != DF_F32) {
        snprintf(out->err, sizeof out->err,
                 "fold model: needs f32 data, case is %s",
                 df_type_name(c->type));
    } else if (df_launch_resolve(&df_kernel_fold, c->n, l, why,
                                 sizeof why) != 0) {
        snprintf(out->err, sizeof out->err, "fold model: %s", why);
    } else if (c->n > SIZE_MAX / sizeof(float)) {
        snprintf(out->err, sizeof out->err, "fold model: n = %llu too large",
                 (unsigned long long)c->n);
    } else {
        return 0;
    }
    out->status = DF_RUN_ERROR;
    return -1;
}

/* The block size only decides how the GPU spreads a round over threads;
 * each round's additions are independent, so the model runs them in order. */
static int fold_model(const df_case *c, df_scratch *s, df_result *out)
{
    df_launch l;
    if (model_begin(c, &l, out) != 0)
        return -1;
    if (c->n == 0)
        return 0;
    float *A = df_scratch_reserve(s, c->n * sizeof(float));
    if (!A) {
        out->status = DF_RUN_ERROR;
        snprintf(out->err, sizeof out->err,
                 "fold model: out of memory for %llu floats",
                 (unsigned long long)c->n);
        return -1;
    }
    const float *a = c->a, *b = c->b;
    for (uint64_t i = 0; i < c->n; i++)
        A[i] = a[i] * b[i];
    for (uint64_t m = c->n; m > 1;) {
        uint64_t upper = m - m / 2, pairs = m / 2;
        for (uint64_t i = 0; i < pairs; i++)
            A[i] += A[i + upper];
        m = upper;
    }
    out->f = A[0];
    return 0;
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
    .flags = DF_K_DETERMINISTIC | DF_K_DEBUG_INVARIANTS,
    .block_min = 1,
    .block_max = 1024,
    .block_default = 256,
    .grid_max = 0,
    .per_thread = 1,
    .max_n = 0,
    .tree_height = fold_height,
    .host_model = fold_model,
    .gpu = DF_GPU_REF(df_gpu_fold),
};

#else
/* ---- GPU kernels and launcher (CUDA C) ---- */
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRY(call, name)                                                       \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            ctx->failed_call = (name);                                        \
            return (int)e_;                                                   \
        }                                                                     \
    } while (0)

/* enqueue's return for a broken loop invariant: not a CUDA error; the
 * backend reports failed_call and detail */
enum { FOLD_INVARIANT_BROKEN = -1 };

__global__ void __launch_bounds__(1024)
fold_products_kernel(const float *a, const float *b, float *A,
                     unsigned long long n)
{
    unsigned long long i =
        (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        A[i] = a[i] * b[i];
}

/* One round: reads [upper, upper + pairs) and writes [0, pairs), disjoint
 * since pairs <= upper, so no thread reads a cell another one writes. */
__global__ void __launch_bounds__(1024)
fold_round_kernel(float *A, unsigned long long pairs, unsigned long long upper)
{
    unsigned long long i =
        (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pairs)
        A[i] += A[i + upper];
}

/* The fold replayed on the host in double for the debug invariant: sum[i]
 * is the sum of the exact products over S(i) (double's rounding, ~2^-53
 * per step, is negligible beside float's), mag[i] the sum of their
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

/* After round r every live cell has gone through at most r + 1 roundings
 * (its product, then one addition per round) and holds at most 2^r terms,
 * so |A[i] - sum| <= gamma_{r+1} * mag + 2^r * 2^-149 (the last term covers
 * products that underflow: each loses at most 2^-150). Cells whose terms
 * include Inf/NaN or whose mag could overflow float are not checked: the
 * invariant is a statement about real sums. */
static int fold_check(df_gpu_ctx *ctx, const fold_shadow *sh, const float *A,
                      uint64_t live, unsigned round)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    float *h = (float *)ctx->h_scratch;
    TRY(cudaMemcpyAsync(h, A, live * sizeof(float), cudaMemcpyDeviceToHost, st),
        "cudaMemcpyAsync(fold invariant cells)");
    TRY(cudaStreamSynchronize(st), "cudaStreamSynchronize(fold invariant)");
    double ku = (round + 1) * 0x1p-24;
    double gamma = ku / (1.0 - ku) * (1.0 + 0x1p-30); /* slack: double's own rounding */
    double underflow = ldexp(1.0, (int)round) * 0x1p-149;
    for (uint64_t i = 0; i < live; i++) {
        if (!(sh->mag[i] <= FLT_MAX / 2))
            continue;
        double bound = gamma * sh->mag[i] + underflow;
        if (!(fabs((double)h[i] - sh->sum[i]) <= bound)) {
            snprintf(ctx->detail, sizeof ctx->detail,
                     "fold invariant broken after round %u at cell %llu: "
                     "%.9g, expected %.17g within %.3g",
                     round, (unsigned long long)i, (double)h[i], sh->sum[i],
                     bound);
            ctx->failed_call = "fold invariant check";
            return FOLD_INVARIANT_BROKEN;
        }
    }
    return 0;
}

static unsigned blocks_for(uint64_t threads, unsigned block)
{
    return (unsigned)((threads + block - 1) / block);
}

/* sh is NULL unless the backend runs in debug-invariant mode. */
static int fold_rounds(df_gpu_ctx *ctx, const df_case *c, fold_shadow *sh)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    float *A = (float *)ctx->d_scratch;
    unsigned block = c->launch.block;
    int rc;
    fold_products_kernel<<<c->launch.grid, block, 0, st>>>(
        (const float *)ctx->a, (const float *)ctx->b, A,
        (unsigned long long)c->n);
    TRY(cudaGetLastError(), "fold_products_kernel<<<>>>");
    unsigned round = 0;
    if (sh && (rc = fold_check(ctx, sh, A, c->n, round)) != 0)
        return rc;
    for (uint64_t m = c->n; m > 1;) {
        uint64_t upper = m - m / 2, pairs = m / 2;
        fold_round_kernel<<<blocks_for(pairs, block), block, 0, st>>>(
            A, (unsigned long long)pairs, (unsigned long long)upper);
        TRY(cudaGetLastError(), "fold_round_kernel<<<>>>");
        m = upper;
        round++;
        if (sh) {
            fold_shadow_step(sh, pairs, upper);
            if ((rc = fold_check(ctx, sh, A, m, round)) != 0)
                return rc;
        }
    }
    TRY(cudaMemcpyAsync(ctx->h_result, A, sizeof(float),
                        cudaMemcpyDeviceToHost, st),
        "cudaMemcpyAsync(result)");
    return 0;
}

static size_t fold_scratch_bytes(uint64_t n, const df_launch *l)
{
    (void)l;
    return (size_t)n * sizeof(float);
}

static int fold_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    if (c->n == 0) { /* no cells: the sum is zero */
        cudaStream_t st = (cudaStream_t)ctx->stream;
        TRY(cudaMemsetAsync(ctx->d_result, 0, sizeof(float), st),
            "cudaMemsetAsync(result)");
        TRY(cudaMemcpyAsync(ctx->h_result, ctx->d_result, sizeof(float),
                            cudaMemcpyDeviceToHost, st),
            "cudaMemcpyAsync(result)");
        return 0;
    }
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

static int fold_finish(df_gpu_ctx *ctx, const df_case *c, df_result *res)
{
    float v;
    (void)c;
    memcpy(&v, ctx->h_result, sizeof v);
    res->f = v;
    return 0;
}

extern "C" const struct df_gpu_ops df_gpu_fold = {
    fold_scratch_bytes, fold_enqueue, fold_finish};
#endif
