/* kernels/tournament.cu — `tournament`, from seed 003 (a course project:
 * tournament-tree sums): launch 0 writes the products A[i] = a[i]*b[i] into
 * scratch, then one launch per round with D = 1, 2, 4, ...: every "winner"
 * cell i (a multiple of 2D) with i + D < n takes A[i] += A[i + D], until
 * D >= n and A[0] holds the sum.
 * What differs from its siblings: the addition tree pairs neighbours (a
 * balanced binary tree over index ranges), where `fold` pairs cells half
 * the live length apart.
 *
 * Any n works: a winner whose partner i + D is past the end sits the round
 * out. There are ceil(log2 n) rounds. Loop invariant (the seed's, checked
 * after every round when the backend runs in debug-invariant mode): after
 * the round with D, A[i] == sum of the products over [i, min(i + 2D, n))
 * for every i that is a multiple of 2D.
 * How it is compiled: twice (see Makefile): cc -x c builds the host model
 * and descriptor, nvcc -DDOTFUZZ_CUDA the kernels and their launcher. */
#include "kernel.h"
#include "cuda_backend.h"

#ifndef __CUDACC__
/* ---- host model and descriptor (C11) ---- */
#include <stdio.h>
#include <string.h>

extern const df_kernel df_kernel_tournament;

/* the product, then one addition per round into cell 0 */
static uint64_t tournament_height(uint64_t n, const df_launch *l)
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
                 "tournament model: needs f32 data, case is %s",
                 df_type_name(c->type));
    } else if (df_launch_resolve(&df_kernel_tournament, c->n, l, why,
                                 sizeof why) != 0) {
        snprintf(out->err, sizeof out->err, "tournament model: %s", why);
    } else if (c->n > SIZE_MAX / sizeof(float)) {
        snprintf(out->err, sizeof out->err,
                 "tournament model: n = %llu too large",
                 (unsigned long long)c->n);
    } else {
        return 0;
    }
    out->status = DF_RUN_ERROR;
    return -1;
}

/* The block size only decides how the GPU spreads a round over threads;
 * each round's additions are independent, so the model runs them in order. */
static int tournament_model(const df_case *c, df_scratch *s, df_result *out)
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
                 "tournament model: out of memory for %llu floats",
                 (unsigned long long)c->n);
        return -1;
    }
    const float *a = c->a, *b = c->b;
    for (uint64_t i = 0; i < c->n; i++)
        A[i] = a[i] * b[i];
    for (uint64_t D = 1; D < c->n; D *= 2)
        for (uint64_t i = 0; i + D < c->n; i += 2 * D)
            A[i] += A[i + D];
    out->f = A[0];
    return 0;
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
    .flags = DF_K_DETERMINISTIC | DF_K_DEBUG_INVARIANTS,
    .block_min = 1,
    .block_max = 1024,
    .block_default = 256,
    .grid_max = 0,
    .per_thread = 1,
    .max_n = 0,
    .tree_height = tournament_height,
    .host_model = tournament_model,
    .gpu = DF_GPU_REF(df_gpu_tournament),
};

#else
/* ---- GPU kernels and launcher (CUDA C) ---- */
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
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
enum { TOURNAMENT_INVARIANT_BROKEN = -1 };

__global__ void __launch_bounds__(1024)
tournament_products_kernel(const float *a, const float *b, float *A,
                           unsigned long long n)
{
    unsigned long long i =
        (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        A[i] = a[i] * b[i];
}

/* One round, thread t plays winner i = 2Dt against i + D. Winners are even
 * multiples of D and partners odd ones, so no cell is both read and
 * written in a round. */
__global__ void __launch_bounds__(1024)
tournament_round_kernel(float *A, unsigned long long n, unsigned long long D,
                        unsigned long long pairs)
{
    unsigned long long t =
        (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < pairs) {
        unsigned long long i = t * 2 * D;
        if (i + D < n)
            A[i] += A[i + D];
    }
}

/* After round r (r = 0: the products; round r used D = 2^(r-1)) each
 * winner i, a multiple of w = 2^r, has gone through at most r + 1
 * roundings and holds at most w terms, so |A[i] - s| <= gamma_{r+1} * G +
 * w * 2^-149, with s and G the sum and the sum of |.| of the exact products
 * over [i, min(i + w, n)), computed in double (whose rounding is negligible
 * beside float's); the last term covers products that underflow (each loses
 * at most 2^-150). Ranges holding Inf/NaN, or whose G could overflow float,
 * are not checked: the invariant is a statement about real sums. */
static int tournament_check(df_gpu_ctx *ctx, const df_case *c, const float *A,
                            unsigned round)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    float *h = (float *)ctx->h_scratch;
    TRY(cudaMemcpyAsync(h, A, c->n * sizeof(float), cudaMemcpyDeviceToHost, st),
        "cudaMemcpyAsync(tournament invariant cells)");
    TRY(cudaStreamSynchronize(st), "cudaStreamSynchronize(tournament invariant)");
    const float *a = (const float *)c->a, *b = (const float *)c->b;
    uint64_t w = (uint64_t)1 << round;
    double ku = (round + 1) * 0x1p-24;
    double gamma = ku / (1.0 - ku) * (1.0 + 0x1p-30); /* slack: double's own rounding */
    double underflow = ldexp((double)w, -149);
    for (uint64_t i = 0; i < c->n; i += w) {
        uint64_t end = c->n - i < w ? c->n : i + w;
        double s = 0.0, g = 0.0;
        for (uint64_t j = i; j < end; j++) {
            double p = (double)a[j] * (double)b[j]; /* exact: 24+24 bits */
            s += p;
            g += fabs(p);
        }
        if (!(g <= FLT_MAX / 2))
            continue;
        double bound = gamma * g + underflow;
        if (!(fabs((double)h[i] - s) <= bound)) {
            snprintf(ctx->detail, sizeof ctx->detail,
                     "tournament invariant broken after round %u at cell %llu: "
                     "%.9g, expected %.17g within %.3g",
                     round, (unsigned long long)i, (double)h[i], s, bound);
            ctx->failed_call = "tournament invariant check";
            return TOURNAMENT_INVARIANT_BROKEN;
        }
    }
    return 0;
}

static unsigned blocks_for(uint64_t threads, unsigned block)
{
    return (unsigned)((threads + block - 1) / block);
}

static size_t tournament_scratch_bytes(uint64_t n, const df_launch *l)
{
    (void)l;
    return (size_t)n * sizeof(float);
}

static int tournament_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    uint64_t n = c->n;
    if (n == 0) { /* no cells: the sum is zero */
        TRY(cudaMemsetAsync(ctx->d_result, 0, sizeof(float), st),
            "cudaMemsetAsync(result)");
        TRY(cudaMemcpyAsync(ctx->h_result, ctx->d_result, sizeof(float),
                            cudaMemcpyDeviceToHost, st),
            "cudaMemcpyAsync(result)");
        return 0;
    }
    float *A = (float *)ctx->d_scratch;
    unsigned block = c->launch.block;
    int rc;
    tournament_products_kernel<<<c->launch.grid, block, 0, st>>>(
        (const float *)ctx->a, (const float *)ctx->b, A,
        (unsigned long long)n);
    TRY(cudaGetLastError(), "tournament_products_kernel<<<>>>");
    unsigned round = 0;
    if (ctx->debug_invariants && (rc = tournament_check(ctx, c, A, round)) != 0)
        return rc;
    for (uint64_t D = 1; D < n; D *= 2) {
        /* winners i = 2Dt with i + D < n: t < (n - D) / 2D, rounded up */
        uint64_t pairs = (n - D + 2 * D - 1) / (2 * D);
        tournament_round_kernel<<<blocks_for(pairs, block), block, 0, st>>>(
            A, (unsigned long long)n, (unsigned long long)D,
            (unsigned long long)pairs);
        TRY(cudaGetLastError(), "tournament_round_kernel<<<>>>");
        round++;
        if (ctx->debug_invariants &&
            (rc = tournament_check(ctx, c, A, round)) != 0)
            return rc;
    }
    TRY(cudaMemcpyAsync(ctx->h_result, A, sizeof(float),
                        cudaMemcpyDeviceToHost, st),
        "cudaMemcpyAsync(result)");
    return 0;
}

static int tournament_finish(df_gpu_ctx *ctx, const df_case *c, df_result *res)
{
    float v;
    (void)c;
    memcpy(&v, ctx->h_result, sizeof v);
    res->f = v;
    return 0;
}

extern "C" const struct df_gpu_ops df_gpu_tournament = {
    tournament_scratch_bytes, tournament_enqueue, tournament_finish};
#endif
