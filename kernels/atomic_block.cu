/* kernels/atomic_block.cu — `atomic-block`, from seed 000 (a Jetson dot
 * kernel): each thread writes one product a[i]*b[i] into shared memory (zero
 * past n), thread 0 sums its block's products serially, and adds the block
 * sum into the result with one float atomicAdd on global memory.
 * What differs from its siblings: the cross-block sum is a float atomicAdd,
 * so blocks land in a different order each run (not deterministic), and that
 * atomic flushes subnormals to zero.
 * Soft error: a block sum that is Inf/NaN although every product of the
 * block is finite (DF_SOFT_NONFINITE, thread 0, index: the block's first
 * element).
 * How it is compiled: twice (see Makefile): cc -x c builds the host model
 * and descriptor, nvcc -DDOTFUZZ_CUDA the kernel and its launcher. */
#include "kernel.h"
#include "cuda_backend.h"

#ifndef __CUDACC__
/* ---- host model and descriptor (C11) ---- */
#include <math.h>
#include <stdbool.h>

#include "model_common.h"

extern const df_kernel df_kernel_atomic_block;

/* product, then block additions in thread 0's serial loop, then one atomic
 * add per block into the result */
static uint64_t atomic_block_height(uint64_t n, const df_launch *l)
{
    if (l->block == 0)
        return n ? n : 1; /* unresolved launch: the any-order bound */
    uint64_t grid = (n + l->block - 1) / l->block;
    if (grid == 0)
        grid = 1;
    return 1 + (uint64_t)l->block + grid;
}

/* Float atomicAdd on global memory always runs in flush-to-zero mode: PTX
 * atom.add.f32 flushes subnormal inputs and results to sign-preserving zero,
 * whatever -ftz says. The block's serial sum (plain fadd, no -ftz) keeps
 * subnormals. */
static float flush_subnormal(float x)
{
    return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x;
}

/* Whether the products of the block starting at element first are all
 * finite (a non-finite block sum from them is a soft error). */
static bool atomic_block_products_finite(const df_case *c, uint64_t first, uint32_t block)
{
    const float *a = c->a, *b = c->b;
    for (uint64_t i = first; i < c->n && i < first + block; i++)
        if (!isfinite(a[i] * b[i]))
            return false;
    return true;
}

/* The GPU adds block sums in whatever order blocks finish; the model takes
 * blocks 0..grid-1, one valid order among them. A block sum that is
 * Inf/NaN from finite products is noted as the GPU reports it (the report
 * is per block, so its order does not matter). */
static int atomic_block_model(const df_case *c, df_scratch *s, df_result *out)
{
    df_launch l;
    (void)s;
    if (df_model_begin(&df_kernel_atomic_block, c, &l, out) != 0)
        return -1;
    const float *a = c->a, *b = c->b;
    float result = 0.0f; /* the launcher's cudaMemsetAsync */
    for (uint64_t blk = 0; blk < l.grid; blk++) {
        float sum = 0.0f;
        for (uint32_t t = 0; t < l.block; t++) {
            uint64_t i = blk * l.block + t;
            float p = i < c->n ? a[i] * b[i] : 0.0f;
            sum += p;
        }
        if (!isfinite(sum) && atomic_block_products_finite(c, blk * l.block, l.block))
            df_soft_note(out, DF_SOFT_NONFINITE, DF_SOFT_K_ATOMIC_BLOCK, __LINE__,
                         (uint32_t)blk, 0, 0, blk * l.block, 0, (double)sum);
        result = flush_subnormal(flush_subnormal(result) + flush_subnormal(sum));
    }
    out->f = result;
    return 0;
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_atomic_block;
#endif

const df_kernel df_kernel_atomic_block = {
    .name = "atomic-block",
    .origin = "seed 000",
    .summary = "one product per thread, thread 0 sums its block serially, "
               "float atomicAdd across blocks (order varies, flushes subnormals)",
    .elem = DF_F32,
    .acc = DF_F32,
    .flags = DF_K_FLUSHES_SUBNORMALS,
    .block_min = 1,
    .block_max = 1024,
    .block_default = 1024, /* the seed's MAX_THREADS_PER_BLOCK */
    .grid_max = 0,
    .per_thread = 1,
    .max_n = 0,
    .tree_height = atomic_block_height,
    .host_model = atomic_block_model,
    .gpu = DF_GPU_REF(df_gpu_atomic_block),
};

#else
/* ---- GPU kernel and launcher (CUDA C) ---- */
#include "gpu_common.h"

/* Seed 000's kernel with N as a parameter and a 64-bit index, so any n and
 * any block in [1, 1024] work (the block sum reads blockDim.x entries, all
 * written before the barrier). */
/* Rare path: the block sum is not finite; reported when every product of
 * the block is finite. Out of line: the hot path keeps only the test. */
static __device__ __noinline__ void atomic_block_soft(const float *tmp, df_soft_dev soft,
                                                      float sum)
{
    for (unsigned i = 0; i < blockDim.x; i++)
        if (!isfinite(tmp[i]))
            return;
    df_soft_raise(soft, DF_SOFT_NONFINITE, DF_SOFT_K_ATOMIC_BLOCK, __LINE__, 0,
                  (unsigned long long)blockIdx.x * blockDim.x, 0, (double)sum);
}

__global__ void __launch_bounds__(1024)
atomic_block_kernel(const float *a, const float *b, float *c,
                    unsigned long long n, df_soft_dev soft)
{
    __shared__ float tmp[1024];
    unsigned long long index =
        (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (index < n)
        tmp[threadIdx.x] = a[index] * b[index];
    else
        tmp[threadIdx.x] = 0.0f; /* tail threads of the last block */
    __syncthreads();
    if (threadIdx.x == 0) {
        float sum = 0.0f;
        for (unsigned i = 0; i < blockDim.x; i++)
            sum += tmp[i];
#if DF_SOFT_MODE != 0
        if (__builtin_expect(!isfinite(sum), 0))
            atomic_block_soft(tmp, soft, sum);
#else
        (void)soft;
#endif
        atomicAdd(c, sum);
    }
}

/* The result word starts at zero every case (seed 000's first bug: it did
 * not), then each block adds its sum into it. */
static int atomic_block_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    return df_enqueue_one_word<float>(ctx, c, atomic_block_kernel,
                                      "atomic_block_kernel<<<>>>");
}

extern "C" const struct df_gpu_ops df_gpu_atomic_block = {
    NULL, atomic_block_enqueue, df_finish_float<float>, NULL, NULL};
#endif
