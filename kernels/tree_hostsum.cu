/* kernels/tree_hostsum.cu — `tree-hostsum`, from seed 004 (a blog post:
 * CUDA dot product): each thread accumulates a grid-stride loop `temp +=
 * a[tid]*b[tid]`, the block reduces its threads' sums in shared memory with
 * a binary tree, block partials c[blockIdx.x] are copied to the host, and
 * the CPU adds them in block order (`*ans += c[i]`).
 * What differs from its siblings: the grid is a free parameter (grid-stride
 * loop) and the last level of the sum runs on the CPU.
 * The tree halves the active threads each step, so it needs a power-of-two
 * block, as seed 004 says.
 * How it is compiled: twice (see Makefile): cc -x c builds the host model
 * and descriptor, nvcc -DDOTFUZZ_CUDA the kernel and its launcher. */
#include "kernel.h"
#include "cuda_backend.h"

#ifndef __CUDACC__
/* ---- host model and descriptor (C11) ---- */
#include <stdio.h>

#include "model_common.h"

extern const df_kernel df_kernel_tree_hostsum;

static uint64_t derived_grid(uint64_t n, const df_launch *l)
{
    if (l->grid)
        return l->grid;
    uint64_t per_block = (uint64_t)l->block * df_kernel_tree_hostsum.per_thread;
    uint64_t g = (n + per_block - 1) / per_block;
    if (g == 0)
        g = 1;
    return g > df_kernel_tree_hostsum.grid_max ? df_kernel_tree_hostsum.grid_max
                                               : g;
}

/* product, per-thread grid-stride chain, log2(block) tree levels, one host
 * addition per block */
static uint64_t tree_hostsum_height(uint64_t n, const df_launch *l)
{
    if (l->block == 0)
        return n ? n : 1; /* unresolved launch: the any-order bound */
    uint64_t grid = derived_grid(n, l);
    uint64_t stride = grid * l->block;
    return 1 + (n + stride - 1) / stride + df_ceil_log2_u64(l->block) + grid;
}

/* One block: thread t's grid-stride sum lands in cache[t] (walked chunk by
 * chunk so memory is read in order; each thread's additions keep their
 * order), then the shared-memory tree. */
static float block_partial(const df_case *c, const df_launch *l, uint64_t blk,
                           float *cache)
{
    const float *a = c->a, *b = c->b;
    uint64_t stride = (uint64_t)l->grid * l->block;
    for (uint32_t t = 0; t < l->block; t++)
        cache[t] = 0.0f;
    for (uint64_t k = blk * l->block; k < c->n; k += stride)
        for (uint32_t t = 0; t < l->block && k + t < c->n; t++)
            cache[t] += a[k + t] * b[k + t];
    for (uint32_t i = l->block / 2; i != 0; i /= 2)
        for (uint32_t t = 0; t < i; t++)
            cache[t] += cache[t + i];
    return cache[0];
}

static int tree_hostsum_model(const df_case *c, df_scratch *s, df_result *out)
{
    df_launch l;
    if (df_model_begin(&df_kernel_tree_hostsum, c, &l, out) != 0)
        return -1;
    float *cache = df_scratch_reserve(s, (size_t)l.block * sizeof(float));
    if (!cache) {
        out->status = DF_RUN_ERROR;
        snprintf(out->err, sizeof out->err,
                 "tree-hostsum model: out of memory for %u floats", l.block);
        return -1;
    }
    /* Blocks that start at or past n hold +0, and ans + (+0) == ans bit for
     * bit: ans starts at +0 and round-to-nearest never turns a sum into -0
     * unless both addends are -0. So the model stops at the first such
     * block instead of adding grid - used zeros. */
    float ans = 0.0f;
    for (uint64_t blk = 0; blk < l.grid && blk * l.block < c->n; blk++)
        ans += block_partial(c, &l, blk, cache);
    out->f = ans;
    return 0;
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_tree_hostsum;
#endif

const df_kernel df_kernel_tree_hostsum = {
    .name = "tree-hostsum",
    .origin = "seed 004",
    .summary = "grid-stride per-thread sums, shared-memory binary tree per "
               "block, block partials added on the CPU in block order",
    .elem = DF_F32,
    .acc = DF_F32,
    .flags = DF_K_DETERMINISTIC | DF_K_BLOCK_POW2 | DF_K_GRID_FREE,
    .block_min = 32,
    .block_max = 1024,
    .block_default = 256,
    .grid_max = 65535,
    .per_thread = 8, /* derived grid: about 8 elements per thread */
    .max_n = 0,
    .tree_height = tree_hostsum_height,
    .host_model = tree_hostsum_model,
    .gpu = DF_GPU_REF(df_gpu_tree_hostsum),
};

#else
/* ---- GPU kernel and launcher (CUDA C) ---- */
#include "gpu_common.h"

/* Seed 004's kernel with N as a parameter and 64-bit indices. The product
 * and the addition are separate roundings, as the C source reads (nvcc
 * --fmad=false keeps them apart). Each tree step reads [i, 2i) and writes
 * [0, i), then a barrier: no shared-memory race. */
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
        temp += a[tid] * b[tid];
        tid += stride;
    }
    cache[cacheIndex] = temp;
    __syncthreads();
    unsigned i = blockDim.x / 2;
    while (i != 0) {
        if (cacheIndex < i)
            cache[cacheIndex] += cache[cacheIndex + i];
        __syncthreads();
        i /= 2;
    }
    if (cacheIndex == 0)
        c[blockIdx.x] = cache[0];
}

static size_t tree_hostsum_scratch_bytes(uint64_t n, const df_launch *l)
{
    (void)n;
    return (size_t)l->grid * sizeof(float);
}

static int tree_hostsum_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    tree_hostsum_kernel<<<c->launch.grid, c->launch.block, 0, st>>>(
        (const float *)ctx->a, (const float *)ctx->b, (float *)ctx->d_scratch,
        (unsigned long long)c->n);
    DF_TRY(cudaGetLastError(), "tree_hostsum_kernel<<<>>>");
    DF_TRY(cudaMemcpyAsync(ctx->h_scratch, ctx->d_scratch,
                           (size_t)c->launch.grid * sizeof(float),
                           cudaMemcpyDeviceToHost, st),
           "cudaMemcpyAsync(block partials)");
    return 0;
}

/* seed 004's "last reduction for cpu": float, block order, from zero */
static int tree_hostsum_finish(df_gpu_ctx *ctx, const df_case *c,
                               df_result *res)
{
    const float *partial = (const float *)ctx->h_scratch;
    float ans = 0.0f;
    for (uint32_t i = 0; i < c->launch.grid; i++)
        ans += partial[i];
    res->f = ans;
    return 0;
}

extern "C" const struct df_gpu_ops df_gpu_tree_hostsum = {
    tree_hostsum_scratch_bytes, tree_hostsum_enqueue, tree_hostsum_finish};
#endif
