/* tree_hostsum_gpu.h — the GPU half of `tree-hostsum` (seed 004; CUDA C),
 * shared by kernels/tree_hostsum.cu and its mutants m-stride-off-by-one
 * (kernels/mutants/tree_mutants.cu), m-rz-acc and m-bf16-products
 * (kernels/mutants/precision_mutants.cu): the kernel, templated on the
 * extra step the off-by-one mutant adds to the grid stride (0 for the
 * others) and on the arithmetic (the precision mutants'; tree_rn for the
 * others), its scratch size, launcher and the CPU's sum of the block
 * partials.
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

/* Seed 004's kernel with N as a parameter and 64-bit indices. The product
 * and the addition are separate roundings, as the C source reads (nvcc
 * --fmad=false keeps them apart). Each tree step reads [i, 2i) and writes
 * [0, i), then a barrier: no shared-memory race. EXTRA_STEP is the
 * off-by-one mutant's bug (`tid += stride + 1`); the others' is 0. ARITH
 * gives every product and addition (tree_rn: `temp += a[tid]*b[tid]`,
 * `cache[cacheIndex] += cache[cacheIndex + i]`). */
template <unsigned EXTRA_STEP, class ARITH>
__global__ void __launch_bounds__(1024)
tree_hostsum_kernel(const float *a, const float *b, float *c,
                    unsigned long long n)
{
    __shared__ float cache[1024];
    unsigned long long tid =
        threadIdx.x + (unsigned long long)blockIdx.x * blockDim.x;
    unsigned long long stride = (unsigned long long)blockDim.x * gridDim.x;
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
        c[blockIdx.x] = cache[0];
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
 * each addition ARITH's */
template <class ARITH>
static int tree_hostsum_finish(df_gpu_ctx *ctx, const df_case *c, df_result *res)
{
    const float *partial = (const float *)ctx->h_scratch;
    float ans = 0.0f;
    for (uint32_t i = 0; i < c->launch.grid; i++)
        ans = ARITH::host_add(ans, partial[i]);
    res->f = ans;
    return 0;
}

#endif
