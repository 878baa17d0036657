/* kernels/mutants/race_mutants.cu — three latent GPU races, each in a dot
 * kernel of atomic-block's shape (seed 000: a product per thread, thread 0
 * sums its block serially from shared memory) that is correct but for the
 * race. The GPU's default scheduling rarely or never exposes them, so
 * random inputs alone catch them seldom: they are what schedule
 * perturbation and compute-sanitizer are for. Their host models give the
 * sum the GPU gives under its own schedule; under a perturbed one
 * (case.h's df_schedule) each plays one outcome its race allows, drawn
 * from the schedule's seed, so the host backend tests the schedule rule
 * (it cannot tell whether the GPU shows the race: results/ says which
 * perturbation does).
 *
 *   m-zero-inside      the result word zeroed by block 0's thread 0 inside
 *                      the kernel, while the other blocks atomicAdd into
 *                      it: a block that adds before block 0 starts is lost
 *                      (the word is not cleared before the launch). A
 *                      classic of reductions that "initialise in the
 *                      kernel". Model, perturbed: block 0 runs after
 *                      1 + seed mod (grid - 1) others, whose sums are lost.
 *   m-no-fence         the last-block reduction (each block writes its
 *                      partial, counts itself with atomicInc, the last one
 *                      sums the partials in block order) without the
 *                      __threadfence() between the partial's store and the
 *                      count: the last block may read a partial not yet
 *                      visible, the previous case's (the CUDA programming
 *                      guide's threadFenceReduction sample has the fence).
 *                      Model, perturbed: block seed mod (grid - 1)'s
 *                      partial is read stale: NaN when poisoned, else 0.
 *   m-shfl-divergent   a warp reduction with __shfl_down_sync(__activemask(),
 *                      ...) inside `if (i < n)`: in the warp that holds n,
 *                      lanes past n are not in the mask, and a shuffle from
 *                      them reads an undefined value (blocks are warp
 *                      multiples, so only that warp diverges). Model: such
 *                      a read gives 0 (what the H100 gives unperturbed),
 *                      NaN under a poisoned schedule.
 *
 * Tree heights, as the oracle's bound needs them: m-zero-inside and
 * m-no-fence add like atomic-block, 1 + block + grid; m-shfl-divergent is
 * the product, 5 shuffle levels, then one atomicAdd per warp:
 * 6 + ceil(n / 32). */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"

#ifndef __CUDACC__
/* ---- host models and descriptors (C11) ---- */
#include "kernels/atomic_block_model.h"

static uint64_t shfl_divergent_height(uint64_t n, const df_launch *l)
{
    (void)l;
    return 6 + (n + 31) / 32;
}

extern const df_kernel df_mutant_zero_inside, df_mutant_no_fence, df_mutant_shfl_divergent;

static int zero_inside_model(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    df_launch l;
    if (df_model_begin(&df_mutant_zero_inside, c, &l, out) != 0)
        return -1;
    /* perturbed: blocks 1..late add before block 0 zeroes the word */
    uint64_t late = c->sched.seed && l.grid > 1 ? 1 + c->sched.seed % (l.grid - 1) : 0;
    float result = 0.0f;
    for (uint64_t k = 0; k < l.grid; k++) {
        uint64_t blk = k < late ? k + 1 : k == late ? 0 : k;
        if (blk == 0)
            result = 0.0f; /* what came before is lost */
        float sum = df_flush_subnormal(df_atomic_block_partial(c, blk, l.block, c->n));
        result = df_flush_subnormal(df_flush_subnormal(result) + sum);
    }
    out->f = result;
    return 0;
}

static int no_fence_model(const df_case *c, df_scratch *s, df_result *out)
{
    df_launch l;
    if (df_model_begin(&df_mutant_no_fence, c, &l, out) != 0)
        return -1;
    float *partial = df_scratch_reserve(s, (size_t)l.grid * sizeof(float));
    if (!partial) {
        df_result_error(out, df_mutant_no_fence.name, c, "out of host memory");
        return -1;
    }
    for (uint64_t blk = 0; blk < l.grid; blk++)
        partial[blk] = df_atomic_block_partial(c, blk, l.block, c->n);
    if (c->sched.seed && l.grid > 1) /* the last block, grid - 1, reads one stale */
        partial[c->sched.seed % (l.grid - 1)] =
            (c->sched.flags & DF_SCHED_POISON) ? NAN : 0.0f;
    float sum = 0.0f;
    for (uint64_t blk = 0; blk < l.grid; blk++)
        sum += partial[blk];
    out->f = sum;
    return 0;
}

static int shfl_divergent_model(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    df_launch l;
    if (df_model_begin(&df_mutant_shfl_divergent, c, &l, out) != 0)
        return -1;
    const float *a = c->a, *b = c->b;
    float undefined = (c->sched.seed && (c->sched.flags & DF_SCHED_POISON)) ? NAN : 0.0f;
    float result = 0.0f;
    for (uint64_t w = 0; w * 32 < c->n; w++) {
        uint64_t active = c->n - w * 32 < 32 ? c->n - w * 32 : 32;
        float v[32];
        for (uint64_t t = 0; t < active; t++)
            v[t] = a[w * 32 + t] * b[w * 32 + t];
        for (int off = 16; off > 0; off /= 2) {
            float got[32];
            for (uint64_t t = 0; t < active; t++) /* lanes past 31 give their own */
                got[t] = t + off >= 32 ? v[t] : t + off < active ? v[t + off] : undefined;
            for (uint64_t t = 0; t < active; t++)
                v[t] += got[t];
        }
        result = df_flush_subnormal(df_flush_subnormal(result) + df_flush_subnormal(v[0]));
    }
    out->f = result;
    return 0;
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_m_zero_inside, df_gpu_m_no_fence,
    df_gpu_m_shfl_divergent;
#endif

const df_kernel df_mutant_zero_inside = {
    .name = "m-zero-inside",
    .origin = "seed 000 (atomic-block)",
    .summary = "result zeroed by block 0 inside the kernel while other blocks atomicAdd "
               "into it (race)",
    .flags = DF_K_FLUSHES_SUBNORMALS,
    DF_ATOMIC_BLOCK_LAUNCH,
    .host_model = zero_inside_model,
    .gpu = DF_GPU_REF(df_gpu_m_zero_inside),
};

const df_kernel df_mutant_no_fence = {
    .name = "m-no-fence",
    .origin = "seed 000 (atomic-block)",
    .summary = "last-block reduction without __threadfence() before the count: the last "
               "block may read a stale partial (race)",
    .flags = 0,
    DF_ATOMIC_BLOCK_LAUNCH,
    .host_model = no_fence_model,
    .gpu = DF_GPU_REF(df_gpu_m_no_fence),
};

const df_kernel df_mutant_shfl_divergent = {
    .name = "m-shfl-divergent",
    .origin = "seed 004 (warp shuffles)",
    .summary = "warp sum with __shfl_down_sync(__activemask()) inside if (i < n): lanes past "
               "n read undefined values",
    .elem = DF_F32,
    .acc = DF_F32,
    .flags = DF_K_FLUSHES_SUBNORMALS | DF_K_BLOCK_WARP,
    .block_min = 32,
    .block_max = 1024,
    .block_default = 256,
    .grid_max = 0,
    .per_thread = 1,
    .max_n = 0,
    .tree_height = shfl_divergent_height,
    .host_model = shfl_divergent_model,
    .gpu = DF_GPU_REF(df_gpu_m_shfl_divergent),
};
#else
/* ---- GPU kernels and launchers (CUDA C) ---- */
#include "kernels/gpu_common.h"

/* Thread 0's serial sum of the block's products (atomic-block's). */
__device__ __forceinline__ float block_sum(const float *a, const float *b,
                                           unsigned long long n, float *tmp)
{
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    tmp[threadIdx.x] = i < n ? a[i] * b[i] : 0.0f;
    __syncthreads();
    float sum = 0.0f;
    if (threadIdx.x == 0)
        for (unsigned k = 0; k < blockDim.x; k++)
            sum += tmp[k];
    return sum;
}

__global__ void __launch_bounds__(1024)
zero_inside_kernel(const float *a, const float *b, float *c, unsigned long long n)
{
    __shared__ float tmp[1024];
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *c = 0.0f; /* the bug: other blocks may have added already */
    float sum = block_sum(a, b, n, tmp);
    if (threadIdx.x == 0)
        atomicAdd(c, sum);
}

static int zero_inside_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    zero_inside_kernel<<<c->launch.grid, c->launch.block, 0, (cudaStream_t)ctx->stream>>>(
        (const float *)ctx->a, (const float *)ctx->b, (float *)ctx->d_result,
        (unsigned long long)c->n);
    DF_TRY(cudaGetLastError(), "zero_inside_kernel<<<>>>");
    return df_fetch_result(ctx, ctx->d_result, sizeof(float));
}

/* scratch: the count (16 bytes), then one partial per block */
static size_t no_fence_scratch(uint64_t n, const df_launch *l)
{
    (void)n;
    return 16 + (size_t)l->grid * sizeof(float);
}

__global__ void __launch_bounds__(1024)
no_fence_kernel(const float *a, const float *b, float *c, unsigned long long n,
                unsigned *count, float *partial)
{
    __shared__ float tmp[1024];
    __shared__ bool last;
    float sum = block_sum(a, b, n, tmp);
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = sum;
        /* the bug: no __threadfence() here */
        last = atomicInc(count, gridDim.x) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        float s = 0.0f;
        for (unsigned k = 0; k < gridDim.x; k++)
            s += ((volatile float *)partial)[k];
        *c = s;
    }
}

static int no_fence_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    unsigned *count = (unsigned *)ctx->d_scratch;
    DF_TRY(cudaMemsetAsync(count, 0, sizeof *count, (cudaStream_t)ctx->stream),
           "cudaMemsetAsync(count)");
    no_fence_kernel<<<c->launch.grid, c->launch.block, 0, (cudaStream_t)ctx->stream>>>(
        (const float *)ctx->a, (const float *)ctx->b, (float *)ctx->d_result,
        (unsigned long long)c->n, count, (float *)((char *)ctx->d_scratch + 16));
    DF_TRY(cudaGetLastError(), "no_fence_kernel<<<>>>");
    return df_fetch_result(ctx, ctx->d_result, sizeof(float));
}

__global__ void __launch_bounds__(1024)
shfl_divergent_kernel(const float *a, const float *b, float *c, unsigned long long n)
{
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = a[i] * b[i];
        /* the bug: the mask of the lanes that happen to be here */
        for (int off = 16; off > 0; off /= 2)
            v += __shfl_down_sync(__activemask(), v, off);
        if ((threadIdx.x & 31) == 0)
            atomicAdd(c, v);
    }
}

static int shfl_divergent_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    return df_enqueue_one_word<float>(ctx, c, shfl_divergent_kernel, "shfl_divergent_kernel<<<>>>");
}

extern "C" const struct df_gpu_ops df_gpu_m_zero_inside = {
    NULL, zero_inside_enqueue, df_finish_float<float>, NULL, NULL};
extern "C" const struct df_gpu_ops df_gpu_m_no_fence = {
    no_fence_scratch, no_fence_enqueue, df_finish_float<float>, NULL, NULL};
extern "C" const struct df_gpu_ops df_gpu_m_shfl_divergent = {
    NULL, shfl_divergent_enqueue, df_finish_float<float>, NULL, NULL};
#endif
