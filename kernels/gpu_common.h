/* gpu_common.h — what the GPU halves of the kernels share (nvcc only): the
 * checked CUDA call, the result word's zeroing, copy and reading, the
 * launcher of the kernels that add into one result word (atomic-block,
 * int-atomic), and the parts seed 003's two kernels (fold, tournament)
 * share: launch 0 (the products), their round kernels (also their
 * mutants'; they report an addition of finite cells that overflows), the
 * blocks of a round, the host-side check of the loop invariant after a
 * round (debug-invariant mode, with a synchronization) and the same check
 * on the GPU, reported through the soft-error slot (no synchronization).
 * Every helper returns 0 or the failure, with the failed call named in
 * ctx->failed_call, as the backend expects (kernels/cuda_backend.h).
 */
#ifndef DOTFUZZ_GPU_COMMON_H
#define DOTFUZZ_GPU_COMMON_H

#ifdef __CUDACC__
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "cuda_backend.h"

/* Runs a CUDA call; on failure names it in ctx->failed_call and returns its
 * cudaError_t from the enclosing function, which must have a df_gpu_ctx
 * *ctx in scope. */
#define DF_TRY(call, name)                                                    \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            ctx->failed_call = (name);                                        \
            return (int)e_;                                                   \
        }                                                                     \
    } while (0)

/* ---- the result word ---- */

/* Zeroes the device result word (+0 for a float, 0 for an int). */
static inline int df_zero_result(df_gpu_ctx *ctx, size_t bytes)
{
    DF_TRY(cudaMemsetAsync(ctx->d_result, 0, bytes, (cudaStream_t)ctx->stream),
           "cudaMemsetAsync(result)");
    return 0;
}

/* Copies the result, bytes at device address src, into ctx->h_result. */
static inline int df_fetch_result(df_gpu_ctx *ctx, const void *src,
                                  size_t bytes)
{
    DF_TRY(cudaMemcpyAsync(ctx->h_result, src, bytes, cudaMemcpyDeviceToHost,
                           (cudaStream_t)ctx->stream),
           "cudaMemcpyAsync(result)");
    return 0;
}

/* A case with nothing to add: the result is zero, set on the device and
 * copied like any other result. */
static inline int df_enqueue_zero_result(df_gpu_ctx *ctx, size_t bytes)
{
    int rc = df_zero_result(ctx, bytes);
    return rc != 0 ? rc : df_fetch_result(ctx, ctx->d_result, bytes);
}

/* finish of a kernel with a float or double result in h_result: widened
 * exactly to double. */
template <typename T>
static int df_finish_float(df_gpu_ctx *ctx, const df_case *c, df_result *res)
{
    (void)c;
    res->f = (double)*(const T *)ctx->h_result;
    res->i = 0;
    res->status = DF_RUN_OK;
    res->err[0] = '\0';
    return 0;
}

/* ---- kernels that add into one result word ---- */

/* What a kernel's optional last parameter gets: the soft-error slots. */
static inline df_soft_dev df_one_word_extra(df_gpu_ctx *ctx, df_soft_dev *)
{
    return ctx->soft;
}

/* enqueue of atomic-block and int-atomic: zero the result word (it must
 * start at zero every case: seed 000's first bug), launch kern(a, b,
 * result, n[, ctx->soft]) on the case's grid, copy the word to h_result.
 * launch_name names the launch if it fails ("atomic_block_kernel<<<>>>"). */
template <typename T, typename... X>
static int df_enqueue_one_word(df_gpu_ctx *ctx, const df_case *c,
                               void (*kern)(const T *, const T *, T *, unsigned long long,
                                            X...),
                               const char *launch_name)
{
    int rc = df_zero_result(ctx, sizeof(T));
    if (rc != 0)
        return rc;
    kern<<<c->launch.grid, c->launch.block, 0, (cudaStream_t)ctx->stream>>>(
        (const T *)ctx->a, (const T *)ctx->b, (T *)ctx->d_result,
        (unsigned long long)c->n, df_one_word_extra(ctx, (X *)nullptr)...);
    DF_TRY(cudaGetLastError(), launch_name);
    return df_fetch_result(ctx, ctx->d_result, sizeof(T));
}

/* ---- seed 003: fold and tournament ---- */

/* Launch 0 of both: A[i] = a[i]*b[i], one product per thread. It and its
 * launcher are templates on the element type (only float is used) so that
 * only the files that launch it compile the kernel. */
template <typename T>
__global__ void __launch_bounds__(1024)
df_products_kernel(const T *a, const T *b, T *A, unsigned long long n)
{
    unsigned long long i =
        (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        A[i] = a[i] * b[i];
}

/* Enqueues launch 0 on the case's grid (ceil(n / block) blocks). */
template <typename T>
static int df_enqueue_products(df_gpu_ctx *ctx, const df_case *c, T *A)
{
    df_products_kernel<T><<<c->launch.grid, c->launch.block, 0,
                            (cudaStream_t)ctx->stream>>>(
        (const T *)ctx->a, (const T *)ctx->b, A, (unsigned long long)c->n);
    DF_TRY(cudaGetLastError(), "df_products_kernel<<<>>>");
    return 0;
}

/* One round's addition of y into cell A[i]: DF_SOFT_NONFINITE when it
 * gives Inf/NaN from two finite values (kernel: DF_SOFT_K_*, round: 1 for
 * the first round). The cell is written before the check, so the rare
 * report's registers do not add to a cell address kept live across it. */
__device__ __forceinline__ void df_round_add(float *A, unsigned long long i, float y,
                                             df_soft_dev soft, unsigned kernel,
                                             unsigned round)
{
    const float x = A[i], r = x + y;
    A[i] = r;
    DF_SOFT_CHECK(!isfinite(r) && isfinite(x) && isfinite(y), soft, DF_SOFT_NONFINITE,
                  kernel, round, i, 0, (double)r);
}

/* fold's round (and m-fold-bounds'): reads [upper, upper + pairs) and
 * writes [0, pairs), disjoint since pairs <= upper, so no thread reads a
 * cell another one writes. A template for the reason launch 0 is. */
template <typename T>
__global__ void __launch_bounds__(1024)
df_fold_round_kernel(T *A, unsigned long long pairs, unsigned long long upper,
                     df_soft_dev soft, unsigned round)
{
    unsigned long long i =
        (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pairs)
        df_round_add(A, i, A[i + upper], soft, DF_SOFT_K_FOLD, round);
}

/* tournament's round (and m-tournament-bounds'), thread t plays winner
 * i = 2Dt against i + D. Winners are even multiples of D and partners odd
 * ones, so no cell is both read and written in a round. A template for
 * the reason launch 0 is. */
template <typename T>
__global__ void __launch_bounds__(1024)
df_tournament_round_kernel(T *A, unsigned long long n, unsigned long long D,
                           unsigned long long pairs, df_soft_dev soft, unsigned round)
{
    unsigned long long t =
        (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < pairs) {
        unsigned long long i = t * 2 * D;
        if (i + D < n)
            df_round_add(A, i, A[i + D], soft, DF_SOFT_K_TOURNAMENT, round);
    }
}

/* Device scratch of both: one float cell per element. */
static inline size_t df_cells_scratch_bytes(uint64_t n, const df_launch *l)
{
    (void)l;
    return (size_t)n * sizeof(float);
}

/* Blocks that give a round one thread per pair. */
static inline unsigned df_blocks_for(uint64_t threads, unsigned block)
{
    return (unsigned)((threads + block - 1) / block);
}

/* enqueue's return for a broken loop invariant: not a CUDA error; the
 * backend reports failed_call and detail */
enum { DF_INVARIANT_BROKEN = -1 };

/* The loop invariant after round r (r = 0: the products) of either kernel:
 * every live cell has gone through at most r + 1 roundings (its product,
 * then one addition per round) and holds at most 2^r terms, so
 *   |A[i] - s| <= gamma_{r+1} * g + 2^r * 2^-149,
 * with s and g the sum and the sum of |.| of the cell's exact products,
 * computed in double (whose rounding, ~2^-53 per step, is negligible beside
 * float's); the last term covers products that underflow (each loses at
 * most 2^-150). Cells whose terms include Inf/NaN, or whose g could overflow
 * float, are not checked: the invariant is a statement about real sums. */
typedef struct df_round_check {
    const char *kernel;  /* "fold": names the kernel in ctx->detail */
    unsigned round;      /* r */
    const float *cells;  /* the GPU's cells, copied to pinned host memory */
    double gamma;        /* gamma_{r+1} */
    double underflow;    /* 2^r * 2^-149 */
} df_round_check;

/* The bound of the invariant after round `round` (see df_round_check). */
typedef struct df_round_bound {
    unsigned round;
    double gamma;     /* gamma_{r+1}, with slack 2^-30 for double's own
                         rounding in s and g */
    double underflow; /* 2^r * 2^-149 */
} df_round_bound;

static inline df_round_bound df_round_bound_for(unsigned round)
{
    double ku = (round + 1) * 0x1p-24;
    df_round_bound bd = {round, ku / (1.0 - ku) * (1.0 + 0x1p-30),
                         ldexp(1.0, (int)round) * 0x1p-149};
    return bd;
}

/* Copies the first `live` cells of A to the host, waits for them, and sets
 * the bound for round `round`. Synchronizes: debug-invariant mode only. */
static inline int df_round_check_begin(df_round_check *chk, df_gpu_ctx *ctx,
                                       const char *kernel, const float *A,
                                       uint64_t live, unsigned round)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    float *h = (float *)ctx->h_scratch;
    DF_TRY(cudaMemcpyAsync(h, A, live * sizeof(float), cudaMemcpyDeviceToHost,
                           st),
           "cudaMemcpyAsync(invariant cells)");
    DF_TRY(cudaStreamSynchronize(st), "cudaStreamSynchronize(invariant)");
    df_round_bound bd = df_round_bound_for(round);
    chk->kernel = kernel;
    chk->round = round;
    chk->cells = h;
    chk->gamma = bd.gamma;
    chk->underflow = bd.underflow;
    return 0;
}

/* Checks cell i against s and g (see df_round_check). */
static inline int df_round_check_cell(df_gpu_ctx *ctx,
                                      const df_round_check *chk, uint64_t i,
                                      double s, double g)
{
    if (!(g <= FLT_MAX / 2))
        return 0;
    double got = (double)chk->cells[i];
    double bound = chk->gamma * g + chk->underflow;
    if (!(fabs(got - s) <= bound)) {
        snprintf(ctx->detail, sizeof ctx->detail,
                 "%s invariant broken after round %u at cell %llu: "
                 "%.9g, expected %.17g within %.3g",
                 chk->kernel, chk->round, (unsigned long long)i, got, s, bound);
        ctx->failed_call = "invariant check";
        return DF_INVARIANT_BROKEN;
    }
    return 0;
}
/* ---- the invariant checked on the GPU, reported through the slot ----
 * The same check as df_round_check_cell, made by a kernel launched after
 * the products and after each round, one thread per live cell: it sums the
 * exact products of the cell's index set from a and b in double and raises
 * DF_SOFT_INVARIANT (index: the cell, round: r, fvalue: the cell) when the
 * cell is off by more than the bound. No copy, no synchronization: the
 * launcher enqueues it when the slots are on (ctx->soft.claim), and the
 * backend reads the report after its one synchronization. Each round reads
 * every input once, so the check costs O(n) per round. */

/* A cell's terms accumulated: s, g of df_round_check. */
typedef struct df_round_terms {
    double s, g;
} df_round_terms;

__device__ __forceinline__ void df_round_term(df_round_terms *t, const float *a, const float *b,
                                              unsigned long long j)
{
    double p = (double)a[j] * (double)b[j]; /* exact: 24+24 bits */
    t->s += p;
    t->g += fabs(p);
}

__device__ __forceinline__ void df_round_verify(const float *A, unsigned long long cell,
                                                df_round_terms t, df_round_bound bd,
                                                df_soft_dev soft, unsigned kernel)
{
    if (!(t.g <= FLT_MAX / 2)) /* Inf/NaN terms, or a g float cannot hold */
        return;
    const double got = (double)A[cell];
    (void)got; /* DF_SOFT_MODE 0 checks nothing */
    DF_SOFT_CHECK(!(fabs(got - t.s) <= bd.gamma * t.g + bd.underflow), soft, DF_SOFT_INVARIANT,
                  kernel, bd.round, cell, 0, got);
}

/* The live lengths of fold: m[0] = n, m[k] = ceil(m[k-1] / 2) after round k. */
#define DF_FOLD_MAX_ROUNDS 64
typedef struct df_fold_sizes {
    unsigned rounds; /* rounds done: m[0..rounds] are valid */
    unsigned long long m[DF_FOLD_MAX_ROUNDS + 1];
} df_fold_sizes;

/* fold after round r = sz.rounds: cell i < m[r] holds S_r(i), where
 * S_k(i) = S_{k-1}(i), plus S_{k-1}(i + m[k]) when i < floor(m[k-1] / 2);
 * walked depth first with a stack of (cell, level). */
template <typename T>
__global__ void __launch_bounds__(1024)
df_fold_invariant_kernel(const T *A, const T *a, const T *b, df_fold_sizes sz,
                         df_round_bound bd, df_soft_dev soft)
{
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= sz.m[sz.rounds])
        return;
    unsigned long long cell[DF_FOLD_MAX_ROUNDS + 1];
    unsigned level[DF_FOLD_MAX_ROUNDS + 1];
    unsigned top = 0;
    df_round_terms t = {0.0, 0.0};
    cell[0] = i;
    level[0] = sz.rounds;
    for (;;) {
        unsigned long long c = cell[top];
        unsigned k = level[top];
        if (k == 0) {
            df_round_term(&t, a, b, c);
            if (top == 0)
                break;
            top--;
            continue;
        }
        level[top] = k - 1; /* S_{k-1}(c) stays on the stack */
        if (c < sz.m[k - 1] / 2) {
            top++;
            cell[top] = c + sz.m[k];
            level[top] = k - 1;
        }
    }
    df_round_verify(A, i, t, bd, soft, DF_SOFT_K_FOLD);
}

/* tournament after round r: winner i = t 2^r holds [i, min(i + 2^r, n)). */
template <typename T>
__global__ void __launch_bounds__(1024)
df_tournament_invariant_kernel(const T *A, const T *a, const T *b, unsigned long long n,
                               df_round_bound bd, df_soft_dev soft)
{
    unsigned long long w = 1ull << bd.round;
    unsigned long long i = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) * w;
    if (i >= n)
        return;
    unsigned long long end = n - i < w ? n : i + w;
    df_round_terms t = {0.0, 0.0};
    for (unsigned long long j = i; j < end; j++)
        df_round_term(&t, a, b, j);
    df_round_verify(A, i, t, bd, soft, DF_SOFT_K_TOURNAMENT);
}
#endif /* __CUDACC__ */

#endif
