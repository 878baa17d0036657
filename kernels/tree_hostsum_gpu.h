/* tree_hostsum_gpu.h — the GPU half of `tree-hostsum` (seed 004; CUDA C),
 * shared by kernels/tree_hostsum.cu and its mutants m-stride-off-by-one
 * (kernels/mutants/tree_mutants.cu), m-rz-acc and m-bf16-products
 * (kernels/mutants/precision_mutants.cu): the kernel, templated on the
 * extra step the off-by-one mutant adds to the grid stride (0 for the
 * others) and on the arithmetic (the precision mutants'; tree_rn for the
 * others), its scratch size, launcher and the CPU's sum of the block
 * partials; and the parent's batched launcher (also m-pow2-tree's, which
 * runs the parent's GPU code), whose sum of the partials is the GPU's.
 */
#ifndef DOTFUZZ_TREE_HOSTSUM_GPU_H
#define DOTFUZZ_TREE_HOSTSUM_GPU_H

#include "kernels/gpu_common.h"

/* The arithmetic of a tree-hostsum kernel (the host model's
 * df_tree_arith, tree_hostsum_model.h): mul and add on the GPU, host_add
 * for the CPU's sum of the block partials. The parent's: float's product
 * and sum, rounded to nearest. */
struct tree_rn {
    static __device__ __forceinline__ float mul(float x, float y) { return x * y; }
    static __device__ __forceinline__ float add(float x, float y) { return x + y; }
    static float host_add(float x, float y) { return x + y; }
};

/* Seed 004's kernel with N as a parameter and 64-bit indices, as block
 * blk of a launch of grid blocks (its kernel's, tree_hostsum_kernel, or a
 * batch's, tree_hostsum_batch_kernel), writing partial c[blk]. The product
 * and the addition are separate roundings, as the C source reads (nvcc
 * --fmad=false keeps them apart). Each tree step reads [i, 2i) and writes
 * [0, i), then a barrier: no shared-memory race. EXTRA_STEP is the
 * off-by-one mutant's bug (`tid += stride + 1`); the others' is 0. ARITH
 * gives every product and addition (tree_rn: `temp += a[tid]*b[tid]`,
 * `cache[cacheIndex] += cache[cacheIndex + i]`). */
template <unsigned EXTRA_STEP, class ARITH>
__device__ __forceinline__ void tree_hostsum_block(const float *a, const float *b, float *c,
                                                   unsigned long long n,
                                                   unsigned long long blk,
                                                   unsigned long long grid)
{
    __shared__ float cache[1024];
    unsigned long long tid = threadIdx.x + blk * blockDim.x;
    unsigned long long stride = (unsigned long long)blockDim.x * grid;
    unsigned cacheIndex = threadIdx.x;
    float temp = 0.0f;
    while (tid < n) {
        temp = ARITH::add(temp, ARITH::mul(a[tid], b[tid]));
        tid += stride + EXTRA_STEP;
    }
    cache[cacheIndex] = temp;
    __syncthreads();
    unsigned i = blockDim.x / 2;
    while (i != 0) {
        if (cacheIndex < i)
            cache[cacheIndex] = ARITH::add(cache[cacheIndex], cache[cacheIndex + i]);
        __syncthreads();
        i /= 2;
    }
    if (cacheIndex == 0)
        c[blk] = cache[0];
}

template <unsigned EXTRA_STEP, class ARITH>
__global__ void __launch_bounds__(1024)
tree_hostsum_kernel(const float *a, const float *b, float *c,
                    unsigned long long n)
{
    tree_hostsum_block<EXTRA_STEP, ARITH>(a, b, c, n, blockIdx.x, gridDim.x);
}

/* one float partial per block */
static inline size_t tree_hostsum_scratch_bytes(uint64_t n, const df_launch *l)
{
    (void)n;
    return (size_t)l->grid * sizeof(float);
}

template <unsigned EXTRA_STEP, class ARITH>
static int tree_hostsum_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    tree_hostsum_kernel<EXTRA_STEP, ARITH>
        <<<c->launch.grid, c->launch.block, 0, st>>>(
            (const float *)ctx->a, (const float *)ctx->b,
            (float *)ctx->d_scratch, (unsigned long long)c->n);
    DF_TRY(cudaGetLastError(), "tree_hostsum_kernel<<<>>>");
    DF_TRY(cudaMemcpyAsync(ctx->h_scratch, ctx->d_scratch,
                           (size_t)c->launch.grid * sizeof(float),
                           cudaMemcpyDeviceToHost, st),
           "cudaMemcpyAsync(block partials)");
    return 0;
}

/* seed 004's "last reduction for cpu": float, block order, from zero,
 * each addition ARITH's; after a batched launch (no h_scratch), the same
 * sum made on the GPU (tree_hostsum_batch_kernel), in h_result */
template <class ARITH>
static int tree_hostsum_finish(df_gpu_ctx *ctx, const df_case *c, df_result *res)
{
    if (!ctx->h_scratch)
        return df_finish_float<float>(ctx, c, res);
    const float *partial = (const float *)ctx->h_scratch;
    float ans = 0.0f;
    for (uint32_t i = 0; i < c->launch.grid; i++)
        ans = ARITH::host_add(ans, partial[i]);
    res->f = ans;
    return 0;
}

/* ---- a batch at a time ----
 * The partials stay on the GPU: the backend brings back 16 bytes a case
 * (the case's result slot), not its partials. So a batched launch also
 * does the CPU's part: the last of a case's blocks to finish (a ticket,
 * as in kernels/shfl_common.h) adds the case's partials in block order,
 * from +0, with ARITH::add, the GPU twin of host_add (the same rounding:
 * tree_rn's float sum to nearest; neither side flushes subnormals), into
 * the case's slot, where finish reads it (h_scratch NULL). Only the
 * blocks holding elements run (df_batch_blocks_holding); the partial of
 * each block past them is +0, and the CPU's ans + (+0) is ans bit for
 * bit (ans starts at +0 and no rounded sum is -0 unless both addends
 * are), so the GPU adds only theirs. Every sum but a NaN has the CPU's
 * bits; a NaN stays a NaN, its payload being the GPU's (for Inf + -Inf
 * an x86 CPU gives its own default NaN): payloads are not portable, and
 * dotfuzz compares NaNs as equal (fuzz/oracle.c, fuzz/check/metamorphic.c). */

/* A group of a batch: each block, on its case (df_batch_case_here), runs
 * as block blk of the case's own launch, its partial into the case's
 * scratch; the case's last block then sums the partials into its slot. */
template <unsigned EXTRA_STEP, class ARITH>
__global__ void __launch_bounds__(1024)
tree_hostsum_batch_kernel(df_gpu_batch_case *cases, size_t count, char *scratch,
                          char *results)
{
    df_gpu_batch_case *c = df_batch_case_here(cases, count);
    float *partials = (float *)(scratch + c->scratch_off);
    tree_hostsum_block<EXTRA_STEP, ARITH>((const float *)c->a, (const float *)c->b, partials,
                                          c->n, blockIdx.x - c->first_block, c->grid);
    if (threadIdx.x != 0) /* thread 0 wrote the partial */
        return;
    __threadfence(); /* release: the partial before the ticket */
    if (atomicAdd(&c->ticket, 1u) != c->blocks - 1)
        return;
    __threadfence(); /* acquire: every partial after the last ticket */
    float ans = 0.0f;
    /* __ldcg: from L2, past this SM's (incoherent) L1 */
#pragma unroll 8
    for (uint32_t i = 0; i < c->blocks; i++)
        ans = ARITH::add(ans, __ldcg(partials + i));
    *df_batch_result<float>(results, c) = ans;
}

/* The batched launcher: one launch per group (block size). */
template <unsigned EXTRA_STEP, class ARITH>
static int tree_hostsum_enqueue_batch(df_gpu_batch *bt)
{
    return df_batch_each_group(bt, "tree_hostsum_batch_kernel<<<>>>",
                               tree_hostsum_batch_kernel<EXTRA_STEP, ARITH>,
                               (char *)bt->d_scratch, (char *)bt->d_results);
}

#endif
