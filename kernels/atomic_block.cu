/* kernels/atomic_block.cu — `atomic-block`: its card, GPU kernel and
 * launcher, host model entry and descriptor.
 *
 *   name        atomic-block
 *   origin      seed 000 — a CUDA dot product fuzzed on a Jetson (2022)
 *   GPU code    kernels/atomic_block.cu: atomic_block_kernel, launched by
 *               atomic_block_enqueue; batches: df_word_batch_kernel
 *               (kernels/batch_common.h), launched by
 *               atomic_block_enqueue_batch
 *   host model  kernels/atomic_block_model.h: df_atomic_block_sum (entry:
 *               atomic_block_model, below)
 *   h(n, l)     1 + block + max(1, ceil(n / block))
 *               (kernels/atomic_block_model.h: df_atomic_block_height)
 *   differs     float atomicAdd across blocks: order varies, subnormals flush
 *
 * Each thread writes one product a[i]*b[i] into shared memory (zero past
 * n), thread 0 sums its block's products serially, and adds the block sum
 * into the result with one float atomicAdd on global memory. Blocks land
 * in a different order each run, so the kernel is not deterministic, and
 * that atomic flushes subnormals to zero.
 * Soft error: a block sum that is Inf/NaN although every product of the
 * block is finite (DF_SOFT_NONFINITE, thread 0, index: the block's first
 * element).
 * A batch runs in one launch per block size: each block finds its case
 * and runs as that block of the case's own launch, adding its sum with
 * the same atomicAdd into the case's result slot, which the backend
 * zeroes for the whole batch first. The blocks of a case still land in
 * any order, so a batched case gives what one launch of its own could.
 * How it is compiled: twice (see Makefile): cc -x c builds the host model
 * and descriptor, nvcc -DDOTFUZZ_CUDA the kernel and its launcher. */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"

#ifndef __CUDACC__
/* ---- host model and descriptor (C11) ---- */
#include "kernels/atomic_block_model.h"

extern const df_kernel df_kernel_atomic_block;

static int atomic_block_model(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    return df_atomic_block_sum(&df_kernel_atomic_block, c, c->n, true, out);
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_atomic_block;
#endif

const df_kernel df_kernel_atomic_block = {
    .name = "atomic-block",
    .origin = "seed 000",
    .summary = "one product per thread, thread 0 sums its block serially, "
               "float atomicAdd across blocks (order varies, flushes subnormals)",
    .flags = DF_K_FLUSHES_SUBNORMALS | DF_K_LEN64,
    DF_ATOMIC_BLOCK_RANGES,
    .tree_height = df_atomic_block_height,
    .host_model = atomic_block_model,
    .gpu = DF_GPU_REF(df_gpu_atomic_block),
};

#else
/* ---- GPU kernel and launcher (CUDA C) ---- */
#include "kernels/gpu_common.h"

/* Rare path: the sum of block blk is not finite; reported when every
 * product of the block is finite. Out of line: the hot path keeps only
 * the test. */
static __device__ __noinline__ void atomic_block_soft(const float *tmp, df_soft_dev soft,
                                                      float sum, unsigned long long blk)
{
    for (unsigned i = 0; i < blockDim.x; i++)
        if (!isfinite(tmp[i]))
            return;
    df_soft_raise(soft, DF_SOFT_NONFINITE, DF_SOFT_K_ATOMIC_BLOCK, __LINE__, 0,
                  blk * blockDim.x, 0, (double)sum);
}

/* Seed 000's kernel with N as a parameter and a 64-bit index, so any n and
 * any block in [1, 1024] work (the block sum reads blockDim.x entries, all
 * written before the barrier): block blk of the case's launch, its kernel
 * (atomic_block_kernel) or a batch's (df_word_batch_kernel). */
static __device__ __forceinline__ void atomic_block_block(const float *a, const float *b,
                                                          float *c, unsigned long long n,
                                                          unsigned long long blk,
                                                          df_soft_dev soft)
{
    __shared__ float tmp[1024];
    unsigned long long index = blk * blockDim.x + threadIdx.x;
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
            atomic_block_soft(tmp, soft, sum, blk);
#else
        (void)soft;
#endif
        atomicAdd(c, sum);
    }
}

__global__ void __launch_bounds__(1024)
atomic_block_kernel(const float *a, const float *b, float *c,
                    unsigned long long n, df_soft_dev soft)
{
    atomic_block_block(a, b, c, n, blockIdx.x, soft);
}

/* The result word starts at zero every case (seed 000's first bug: it did
 * not), then each block adds its sum into it. */
static int atomic_block_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    return df_enqueue_one_word<float>(ctx, c, atomic_block_kernel,
                                      "atomic_block_kernel<<<>>>");
}

/* A batch: one launch per block size, each case's blocks adding into its
 * own slot, zeroed by the backend (df_word_enqueue_batch). */
static int atomic_block_enqueue_batch(df_gpu_batch *bt)
{
    return df_word_enqueue_batch<float, atomic_block_block>(
        bt, "df_word_batch_kernel<atomic_block_block><<<>>>");
}

extern "C" const struct df_gpu_ops df_gpu_atomic_block = {
    NULL, atomic_block_enqueue, df_finish_float<float>, atomic_block_enqueue_batch,
    df_batch_blocks_holding};
#endif
