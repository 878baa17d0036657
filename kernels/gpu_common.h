/* gpu_common.h — what the GPU halves of the kernels share (nvcc only): the
 * checked CUDA call, the result word's zeroing, copy and reading, the
 * launcher of the kernels that add into one result word (atomic-block,
 * int-atomic; their batched one: kernels/batch_common.h), and the parts
 * seed 003's two kernels (fold, tournament) share: launch 0 (the
 * products), their round kernels (also their mutants'; they report an
 * addition of finite cells that overflows), the blocks of a round, the
 * host-side check of the loop invariant after a round (debug-invariant
 * mode, with a synchronization), the same check on the GPU, reported
 * through the soft-error slot (no synchronization), and their batched
 * launcher (what every batched launcher shares: kernels/batch_common.h).
 * Every helper returns 0 or the failure, with the failed call named in
 * ctx->failed_call, as the backend expects (kernels/gpu_ops.h).
 */
#ifndef DOTFUZZ_GPU_COMMON_H
#define DOTFUZZ_GPU_COMMON_H

#ifdef __CUDACC__
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "kernels/batch_common.h"
#include "kernels/gpu_fetch.h"
#include "kernels/gpu_ops.h"

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

/* Each kernel's body is a device function, which its own launch and the
 * batched launch (df_rounds_enqueue_batch, below) both run, with t the
 * thread's number in the case's own launch (block * blockDim + thread
 * there: df_launch_thread in its own launch). */
__device__ __forceinline__ unsigned long long df_launch_thread()
{
    return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
}

/* Launch 0 of both: A[i] = a[i]*b[i], one product per thread. It and its
 * launcher are templates on the element type (only float is used) so that
 * only the files that launch it compile the kernel. */
template <typename T>
__device__ __forceinline__ void df_products(const T *a, const T *b, T *A, unsigned long long n,
                                            unsigned long long t)
{
    if (t < n)
        A[t] = a[t] * b[t];
}

template <typename T>
__global__ void __launch_bounds__(1024)
df_products_kernel(const T *a, const T *b, T *A, unsigned long long n)
{
    df_products<T>(a, b, A, n, df_launch_thread());
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

/* fold's round (and m-fold-bounds'): reads [upper, upper + pairs) and
 * writes [0, pairs), disjoint since pairs <= upper, so no thread reads a
 * cell another one writes. A template for the reason launch 0 is. */
template <typename T>
__device__ __forceinline__ void df_fold_round(T *A, unsigned long long pairs,
                                              unsigned long long upper, unsigned long long i)
{
    if (i < pairs)
        A[i] += A[i + upper];
}

template <typename T>
__global__ void __launch_bounds__(1024)
df_fold_round_kernel(T *A, unsigned long long pairs, unsigned long long upper)
{
    df_fold_round<T>(A, pairs, upper, df_launch_thread());
}

/* tournament's round (and m-tournament-bounds'), thread t plays winner
 * i = 2Dt against i + D. Winners are even multiples of D and partners odd
 * ones, so no cell is both read and written in a round. A template for
 * the reason launch 0 is. */
template <typename T>
__device__ __forceinline__ void df_tournament_round(T *A, unsigned long long n,
                                                    unsigned long long D,
                                                    unsigned long long pairs,
                                                    unsigned long long t)
{
    if (t < pairs) {
        unsigned long long i = t * 2 * D;
        if (i + D < n)
            A[i] += A[i + D];
    }
}

template <typename T>
__global__ void __launch_bounds__(1024)
df_tournament_round_kernel(T *A, unsigned long long n, unsigned long long D,
                           unsigned long long pairs)
{
    df_tournament_round<T>(A, n, D, pairs, df_launch_thread());
}

/* Round `round` (from 1) of fold (tournament = false) or tournament on n
 * cells: the round's pairs and its parameter (fold: upper = ceil(m/2) of
 * the m live cells, m = ceil(n / 2^(round-1)); tournament: the distance
 * D = 2^(round-1)), and its checks' (df_round_shadow_kernel: step, dist,
 * live, threads). Returns false past the last round: fold's m = 1,
 * tournament's D >= n. Each is monotone in n: a longer case has at least
 * as many rounds, pairs and threads in each. */
typedef struct df_round_plan {
    unsigned long long pairs, arg;
    unsigned long long step, dist, live, threads;
} df_round_plan;

/* fold's round of (pairs, upper) with `live` cells left after it: its
 * checks take cell i + upper into cell i for i < pairs, on every live
 * cell. */
static __host__ __device__ inline df_round_plan df_fold_plan(unsigned long long pairs,
                                                             unsigned long long upper,
                                                             unsigned long long live)
{
    return df_round_plan{pairs, upper, 1, upper, live, live};
}

/* tournament's round of distance D on n cells, `pairs` matches at most:
 * its checks look at every winner 2Dt < n. */
static __host__ __device__ inline df_round_plan df_tournament_plan(unsigned long long n,
                                                                   unsigned long long D,
                                                                   unsigned long long pairs)
{
    return df_round_plan{pairs, D, 2 * D, D, n, (n + 2 * D - 1) / (2 * D)};
}

static __host__ __device__ inline bool df_round_plan_at(bool tournament, unsigned long long n,
                                                        unsigned round, df_round_plan *p)
{
    const unsigned s = round - 1;
    if (round == 0 || s >= (tournament ? 62u : 64u))
        return false;
    if (!tournament) {
        const unsigned long long m = (n >> s) + ((n & ((1ull << s) - 1)) != 0);
        if (m <= 1)
            return false;
        const unsigned long long upper = m - m / 2;
        *p = df_fold_plan(m / 2, upper, upper);
        return true;
    }
    const unsigned long long D = 1ull << s;
    if (D >= n)
        return false;
    /* winners i = 2Dt with i + D < n: t < (n - D) / 2D, rounded up */
    *p = df_tournament_plan(n, D, (n - D + 2 * D - 1) / (2 * D));
    return true;
}

/* Device scratch of all four (fold, tournament and their mutants): one
 * float cell per element, then the cells' shadow (df_round_shadow, below):
 * two doubles and a byte per cell, 21 bytes per element in all. */
static __host__ __device__ inline size_t df_shadow_offset(uint64_t n)
{
    return ((size_t)n * sizeof(float) + 255) & ~(size_t)255;
}

static inline size_t df_cells_scratch_bytes(uint64_t n, const df_launch *l)
{
    (void)l;
    return df_shadow_offset(n) + (size_t)n * (2 * sizeof(double) + 1);
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
/* ---- the checks on the GPU, reported through the slots ----
 * With the soft-error slots on, the launchers keep beside the cells their
 * shadow: per cell, s and g of df_round_check (the sum, and the sum of
 * |.|, of the exact products of the cell's index set, in double) and `bad`
 * (the cell was Inf/NaN at the last check). After launch 0 one kernel sets
 * the shadow up from a and b; after each round one kernel folds it with
 * the round's own pairs (O(live cells), as the round itself) and checks
 * every live cell, on the thread that wrote it in the round (the same
 * block and thread):
 *   - DF_SOFT_NONFINITE: the round added two finite cells (neither was bad)
 *     into one that is Inf/NaN, as df_model_round_add notes it;
 *   - DF_SOFT_INVARIANT: |cell - s| > gamma_{r+1} g + 2^r 2^-149 (value:
 *     the cell), skipped when g is Inf/NaN or beyond FLT_MAX / 2.
 * The round kernels carry no check: one addition each, their registers are
 * the same in every DF_SOFT_MODE, and all the reporting's cost is in these
 * kernels (scripts/soft-cost.sh times a whole case). No copy, no
 * synchronization: the backend reads the reports after its one sync. */
typedef struct df_round_shadow {
    double2 *sg;        /* per cell: s and g side by side, one 16-byte access
                           (tournament's cells are 2D apart) */
    unsigned char *bad; /* per cell: Inf/NaN at the last check */
} df_round_shadow;

/* The shadow of n cells, in the scratch after them (df_cells_scratch_bytes). */
static __host__ __device__ inline df_round_shadow df_round_shadow_in(void *scratch, uint64_t n)
{
    char *p = (char *)scratch + df_shadow_offset(n);
    df_round_shadow sh = {(double2 *)p, (unsigned char *)(p + n * sizeof(double2))};
    return sh;
}

/* Cell i after round bd.round: notes whether it is bad, then the two
 * checks. written: the round added into it; fine: both operands were
 * finite. */
__device__ __forceinline__ void df_shadow_check(const float *A, df_round_shadow sh,
                                                unsigned long long i, bool written, bool fine,
                                                df_round_bound bd, df_soft_dev soft,
                                                unsigned kernel)
{
    const float cell = A[i];
    const bool finite = isfinite(cell);
    sh.bad[i] = !finite;
    DF_SOFT_CHECK(written && fine && !finite, soft, DF_SOFT_NONFINITE, kernel, bd.round, i, 0,
                  (double)cell);
    const double2 sg = sh.sg[i];
    if (!(sg.y <= FLT_MAX / 2)) /* Inf/NaN terms, or a g float cannot hold */
        return;
    DF_SOFT_CHECK(!(fabs((double)cell - sg.x) <= bd.gamma * sg.y + bd.underflow), soft,
                  DF_SOFT_INVARIANT, kernel, bd.round, i, 0, (double)cell);
}

/* The round added cell j into cell i: so do their shadows. Returns
 * whether both operands were finite. */
__device__ __forceinline__ bool df_shadow_take(df_round_shadow sh, unsigned long long i,
                                               unsigned long long j)
{
    const double2 x = sh.sg[i], y = sh.sg[j];
    sh.sg[i] = make_double2(x.x + y.x, x.y + y.y);
    return !sh.bad[i] && !sh.bad[j];
}

/* After launch 0 (round 0): cell i < n is the product of a[i] and b[i]. */
template <typename T>
__device__ __forceinline__ void df_shadow_init(const T *A, const T *a, const T *b,
                                               unsigned long long n, df_round_shadow sh,
                                               df_round_bound bd, df_soft_dev soft,
                                               unsigned kernel, unsigned long long i)
{
    if (i >= n)
        return;
    const double p = (double)a[i] * (double)b[i]; /* exact: 24+24 bits */
    sh.sg[i] = make_double2(p, fabs(p));
    df_shadow_check(A, sh, i, false, false, bd, soft, kernel);
}

template <typename T>
__global__ void __launch_bounds__(1024)
df_shadow_init_kernel(const T *A, const T *a, const T *b, unsigned long long n,
                      df_round_shadow sh, df_round_bound bd, df_soft_dev soft, unsigned kernel)
{
    df_shadow_init<T>(A, a, b, n, sh, bd, soft, kernel, df_launch_thread());
}

/* After a round of either kernel, thread t checks cell i = t * step
 * while i < live, which took cell i + dist in the round when t < pairs
 * and i + dist < n (the round kernels' tests):
 *   fold (and m-fold-bounds): step 1, dist = upper, live = the cells
 *     left; thread i reads [upper, upper + pairs) and writes [0, live),
 *     disjoint since live <= upper;
 *   tournament (and m-tournament-bounds): step 2D, dist D, live = n;
 *     winners are even multiples of D and partners odd ones.
 * So no cell is both read and written, and thread t is the round's. */
template <typename T>
__device__ __forceinline__ void df_round_check_cells(const T *A, df_round_shadow sh,
                                                unsigned long long step,
                                                unsigned long long dist,
                                                unsigned long long pairs,
                                                unsigned long long live, unsigned long long n,
                                                df_round_bound bd, df_soft_dev soft,
                                                unsigned kernel, unsigned long long t)
{
    const unsigned long long i = t * step;
    if (i >= live)
        return;
    const bool written = t < pairs && i + dist < n;
    const bool fine = written && df_shadow_take(sh, i, i + dist);
    df_shadow_check(A, sh, i, written, fine, bd, soft, kernel);
}

template <typename T>
__global__ void __launch_bounds__(1024)
df_round_shadow_kernel(const T *A, df_round_shadow sh, unsigned long long step,
                       unsigned long long dist, unsigned long long pairs,
                       unsigned long long live, unsigned long long n, df_round_bound bd,
                       df_soft_dev soft, unsigned kernel)
{
    df_round_check_cells<T>(A, sh, step, dist, pairs, live, n, bd, soft, kernel,
                            df_launch_thread());
}

/* Whether the launchers enqueue the checks: the slots are on and the build
 * reports (DF_SOFT_MODE 0 compiles the checks to nothing). */
static inline bool df_shadow_on(df_soft_dev soft)
{
    return soft.claim != NULL && DF_SOFT_MODE != 0;
}

/* The checks after launch 0, when they are on. */
static inline int df_shadow_enqueue_init(df_gpu_ctx *ctx, const df_case *c, const float *A,
                                         unsigned kernel)
{
    if (!df_shadow_on(ctx->soft))
        return 0;
    unsigned block = c->launch.block;
    df_shadow_init_kernel<float>
        <<<df_blocks_for(c->n, block), block, 0, (cudaStream_t)ctx->stream>>>(
            A, (const float *)ctx->a, (const float *)ctx->b, (unsigned long long)c->n,
            df_round_shadow_in(ctx->d_scratch, c->n), df_round_bound_for(0), ctx->soft, kernel);
    DF_TRY(cudaGetLastError(), "df_shadow_init_kernel<<<>>>");
    return 0;
}

/* The checks after round `round` (df_round_shadow_kernel), on `threads`
 * threads. */
static inline int df_round_shadow_enqueue(df_gpu_ctx *ctx, const df_case *c, const float *A,
                                          uint64_t step, uint64_t dist, uint64_t pairs,
                                          uint64_t live, uint64_t threads, unsigned round,
                                          unsigned kernel)
{
    unsigned block = c->launch.block;
    df_round_shadow_kernel<float>
        <<<df_blocks_for(threads, block), block, 0, (cudaStream_t)ctx->stream>>>(
            A, df_round_shadow_in(ctx->d_scratch, c->n), (unsigned long long)step,
            (unsigned long long)dist, (unsigned long long)pairs, (unsigned long long)live,
            (unsigned long long)c->n, df_round_bound_for(round), ctx->soft, kernel);
    DF_TRY(cudaGetLastError(), "df_round_shadow_kernel<<<>>>");
    return 0;
}

/* Round `round` of fold or tournament on the case's own grid, as plan p
 * says, and, when they are on, its checks. */
static inline int df_round_enqueue(df_gpu_ctx *ctx, const df_case *c, float *A, bool tournament,
                                   const df_round_plan &p, unsigned round)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    unsigned block = c->launch.block;
    if (tournament) {
        df_tournament_round_kernel<float><<<df_blocks_for(p.pairs, block), block, 0, st>>>(
            A, (unsigned long long)c->n, p.arg, p.pairs);
        DF_TRY(cudaGetLastError(), "df_tournament_round_kernel<<<>>>");
    } else {
        df_fold_round_kernel<float><<<df_blocks_for(p.pairs, block), block, 0, st>>>(
            A, p.pairs, p.arg);
        DF_TRY(cudaGetLastError(), "df_fold_round_kernel<<<>>>");
    }
    if (!df_shadow_on(ctx->soft))
        return 0;
    return df_round_shadow_enqueue(ctx, c, A, p.step, p.dist, p.pairs, p.live, p.threads, round,
                                   tournament ? DF_SOFT_K_TOURNAMENT : DF_SOFT_K_FOLD);
}

/* fold's round `round` of (pairs, upper); `live` cells remain (the
 * mutant's bounds may be any). */
static inline int df_fold_round_enqueue(df_gpu_ctx *ctx, const df_case *c, float *A,
                                        uint64_t pairs, uint64_t upper, uint64_t live,
                                        unsigned round)
{
    return df_round_enqueue(ctx, c, A, false, df_fold_plan(pairs, upper, live), round);
}

/* tournament's round `round` (distance D, `pairs` matches at most). */
static inline int df_tournament_round_enqueue(df_gpu_ctx *ctx, const df_case *c, float *A,
                                              uint64_t D, uint64_t pairs, unsigned round)
{
    return df_round_enqueue(ctx, c, A, true, df_tournament_plan(c->n, D, pairs), round);
}

/* ---- fold and tournament, a batch at a time ----
 * df_rounds_enqueue_batch runs a group of cases (one block size) stage by
 * stage, one launch per stage for all of them: the products, the checks'
 * setup, then each round and its checks, then the results. Its grid is
 * 2D: blockIdx.y is the case (cases[blockIdx.y]), blockIdx.x its CTA of
 * that stage, a thread past the grid of the case's own launch of the stage
 * returning at once. A group takes cases of several block sizes
 * (DF_K_BATCH_ANY_BLOCK): each of its CTAs holds blockDim.x / lanes of a
 * case's blocks, lanes (the power of two at or above the case's block)
 * threads each, whose threads past the case's own block return at once
 * (a case of 1-thread blocks takes 256 of them a CTA, not a CTA each). So
 * every thread that runs does so as the same thread of its case's own
 * launch, with the same bounds and cells, and reports (its own set of
 * soft-error slots) as it would; the backend renumbers a report's CTA and
 * thread into the case's block and thread (cuda_batch.cu). */

/* The case of this CTA, its cells and its own soft-error slots, and the
 * block and thread of the case's own launch this thread is. */
struct df_rounds_case {
    const df_gpu_batch_case *c;
    float *A;
    df_soft_dev soft;
    unsigned long long blk;
    unsigned thr;
};

__device__ __forceinline__ df_rounds_case df_rounds_case_here(const df_gpu_batch_case *cases,
                                                            char *scratch, df_soft_dev soft,
                                                            unsigned lanes)
{
    df_rounds_case r;
    r.c = cases + blockIdx.y;
    r.A = (float *)(scratch + r.c->scratch_off);
    r.soft = df_soft_dev_at(soft, r.c->result);
    df_batch_case_place(blockIdx.x, threadIdx.x, blockDim.x, lanes, &r.blk, &r.thr);
    return r;
}

/* Whether this thread is one of its case's own launch of `threads`
 * threads (the launch's grid: threads over the case's block, rounded up;
 * its threads past the case's block are not). */
__device__ __forceinline__ bool df_thread_within(const df_rounds_case &r,
                                                 unsigned long long threads)
{
    return r.thr < r.c->block && r.blk < (threads + r.c->block - 1) / r.c->block;
}

/* Its number in the case's own launch (df_launch_thread there). */
__device__ __forceinline__ unsigned long long df_case_thread(const df_rounds_case &r)
{
    return r.blk * r.c->block + r.thr;
}

/* The batched kernels are templates (on the round kernels' kind, or a
 * dummy) for the reason launch 0 is. */
template <typename T>
__global__ void __launch_bounds__(1024)
df_products_batch_kernel(const df_gpu_batch_case *cases, char *scratch, unsigned lanes)
{
    const df_rounds_case r = df_rounds_case_here(cases, scratch, df_soft_dev{NULL, NULL}, lanes);
    if (r.thr < r.c->block && r.blk < r.c->grid)
        df_products<T>((const T *)r.c->a, (const T *)r.c->b, (T *)r.A, r.c->n,
                       df_case_thread(r));
}

template <typename T>
__global__ void __launch_bounds__(1024)
df_shadow_init_batch_kernel(const df_gpu_batch_case *cases, char *scratch, unsigned lanes,
                            df_round_bound bd, df_soft_dev soft, unsigned kernel)
{
    const df_rounds_case r = df_rounds_case_here(cases, scratch, soft, lanes);
    if (df_thread_within(r, r.c->n))
        df_shadow_init<T>((const T *)r.A, (const T *)r.c->a, (const T *)r.c->b, r.c->n,
                          df_round_shadow_in(r.A, r.c->n), bd, r.soft, kernel,
                          df_case_thread(r));
}

template <bool TOURNAMENT>
__global__ void __launch_bounds__(1024)
df_round_batch_kernel(const df_gpu_batch_case *cases, char *scratch, unsigned lanes,
                      unsigned round)
{
    const df_rounds_case r = df_rounds_case_here(cases, scratch, df_soft_dev{NULL, NULL}, lanes);
    df_round_plan p;
    if (!df_round_plan_at(TOURNAMENT, r.c->n, round, &p) || !df_thread_within(r, p.pairs))
        return;
    if (TOURNAMENT)
        df_tournament_round<float>(r.A, r.c->n, p.arg, p.pairs, df_case_thread(r));
    else
        df_fold_round<float>(r.A, p.pairs, p.arg, df_case_thread(r));
}

template <bool TOURNAMENT>
__global__ void __launch_bounds__(1024)
df_round_shadow_batch_kernel(const df_gpu_batch_case *cases, char *scratch, unsigned lanes,
                             unsigned round, df_round_bound bd, df_soft_dev soft,
                             unsigned kernel)
{
    const df_rounds_case r = df_rounds_case_here(cases, scratch, soft, lanes);
    df_round_plan p;
    if (!df_round_plan_at(TOURNAMENT, r.c->n, round, &p) || !df_thread_within(r, p.threads))
        return;
    df_round_check_cells<float>(r.A, df_round_shadow_in(r.A, r.c->n), p.step, p.dist, p.pairs,
                                p.live, r.c->n, bd, r.soft, kernel, df_case_thread(r));
}

/* Case j's result: its cell 0 (zero for a case with no cells, as
 * df_enqueue_zero_result gives it), into its slot. */
template <typename T>
__global__ void df_rounds_result_batch_kernel(const df_gpu_batch_case *cases, size_t count,
                                              const char *scratch, char *results)
{
    const size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count)
        return;
    const df_gpu_batch_case *c = cases + j;
    *(T *)(results + (size_t)16 * c->result) = c->n ? *(const T *)(scratch + c->scratch_off) : T(0);
}

/* The batched launcher of fold (TOURNAMENT false) and tournament. A
 * group's stages take the CTAs its longest case needs at its smallest
 * block (the plan is monotone in n), blockDim.x / lanes case blocks a CTA,
 * in slices of at most 65535 cases (grid.y's limit), on the group's
 * stream, its cases' results last. */
template <bool TOURNAMENT>
static int df_rounds_enqueue_batch(df_gpu_batch *bt)
{
    const bool shadow = df_shadow_on(bt->soft);
    const unsigned kernel = TOURNAMENT ? DF_SOFT_K_TOURNAMENT : DF_SOFT_K_FOLD;
    char *scratch = (char *)bt->d_scratch;
    int rc = 0;
    for (size_t g = 0; rc == 0 && g < bt->ngroups; g++) {
        const df_gpu_batch_group *gr = &bt->groups[g];
        const unsigned block = gr->block, lanes = gr->lanes, least = gr->min_block;
        const unsigned per = block / lanes; /* case blocks a CTA */
        /* the CTAs a stage of `threads` threads a case needs */
        auto ctas = [=](uint64_t threads) {
            return (unsigned)(((uint64_t)df_blocks_for(threads, least) + per - 1) / per);
        };
        const cudaStream_t st = df_batch_stream(bt, g);
        for (size_t at = 0; rc == 0 && at < gr->count; at += 65535) {
            const unsigned y = (unsigned)(gr->count - at < 65535 ? gr->count - at : 65535);
            const df_gpu_batch_case *cs = bt->d_cases + gr->first + at;
            if (gr->max_grid)
                rc = df_batch_launch(bt, st, "df_products_batch_kernel<<<>>>",
                                     df_products_batch_kernel<float>,
                                     dim3((gr->max_grid + per - 1) / per, y), block, cs, scratch,
                                     lanes);
            if (rc == 0 && shadow && gr->max_n)
                rc = df_batch_launch(bt, st, "df_shadow_init_batch_kernel<<<>>>",
                                     df_shadow_init_batch_kernel<float>, dim3(ctas(gr->max_n), y),
                                     block, cs, scratch, lanes, df_round_bound_for(0), bt->soft,
                                     kernel);
            df_round_plan p;
            for (unsigned round = 1;
                 rc == 0 && df_round_plan_at(TOURNAMENT, gr->max_n, round, &p); round++) {
                rc = df_batch_launch(bt, st, TOURNAMENT ? "df_tournament_round_kernel<<<>>>"
                                                    : "df_fold_round_kernel<<<>>>",
                                     df_round_batch_kernel<TOURNAMENT>, dim3(ctas(p.pairs), y),
                                     block, cs, scratch, lanes, round);
                if (rc == 0 && shadow)
                    rc = df_batch_launch(bt, st, "df_round_shadow_kernel<<<>>>",
                                         df_round_shadow_batch_kernel<TOURNAMENT>,
                                         dim3(ctas(p.threads), y), block, cs, scratch, lanes,
                                         round, df_round_bound_for(round), bt->soft, kernel);
            }
        }
        if (rc == 0 && gr->count)
            rc = df_batch_launch(bt, st, "df_rounds_result_batch_kernel<<<>>>",
                                 df_rounds_result_batch_kernel<float>,
                                 dim3(df_blocks_for(gr->count, 256)), 256,
                                 (const df_gpu_batch_case *)bt->d_cases + gr->first, gr->count,
                                 (const char *)scratch, (char *)bt->d_results);
    }
    return rc;
}
#endif /* __CUDACC__ */

#endif
