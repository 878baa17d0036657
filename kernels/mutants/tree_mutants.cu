/* kernels/mutants/tree_mutants.cu — the mutants of `tree-hostsum` (seed 004;
 * kernels/tree_hostsum.cu): each is that kernel with one bug.
 *
 *   m-pow2-tree          the kernel unchanged, but its descriptor drops
 *                        DF_K_BLOCK_POW2 and accepts any block in [32, 1024]
 *                        (seed 004's note: the halving tree needs a power of
 *                        two). With an odd level (block 48: 24, 12, 6, 3, 1)
 *                        the tree stops pairing cells it still holds, so
 *                        their sums are dropped. The claim is the bug.
 *   m-stride-off-by-one  the grid-stride loop steps stride + 1: a thread's
 *                        second element is one too far, so elements are
 *                        skipped once n exceeds grid * block.
 *
 * Both bugs are deterministic and fully expressed by their host models,
 * which repeat the GPU's operations in its order, as the parent's does.
 * How it is compiled: twice (see Makefile), as the parent. */
#include "../kernel.h"
#include "../cuda_backend.h"

#ifndef __CUDACC__
/* ---- host models and descriptors (C11) ---- */
#include <stdio.h>

#include "../model_common.h"

extern const df_kernel df_mutant_pow2_tree, df_mutant_stride_off_by_one;

/* The parent's tree height: product, the per-thread grid-stride chain,
 * ceil(log2 block) tree levels, one host addition per block. The grid is
 * resolved whenever the oracle asks (df_launch_resolve runs first). */
static uint64_t tree_height(uint64_t n, const df_launch *l)
{
    if (l->block == 0 || l->grid == 0)
        return n ? n : 1; /* unresolved launch: the any-order bound */
    uint64_t stride = (uint64_t)l->grid * l->block;
    return 1 + (n + stride - 1) / stride + df_ceil_log2_u64(l->block) +
           l->grid;
}

/* One block of the GPU kernel: thread t adds a[i]*b[i] for i = blk*block
 * + t, then steps `step` (stride, or stride + 1 for the mutant); then the
 * shared-memory tree halving from block / 2, whatever the block. */
static float block_partial(const df_case *c, const df_launch *l, uint64_t blk,
                           uint64_t step, float *cache)
{
    const float *a = c->a, *b = c->b;
    for (uint32_t t = 0; t < l->block; t++) {
        float temp = 0.0f;
        for (uint64_t i = blk * l->block + t; i < c->n; i += step)
            temp += a[i] * b[i];
        cache[t] = temp;
    }
    for (uint32_t i = l->block / 2; i != 0; i /= 2)
        for (uint32_t t = 0; t < i; t++)
            cache[t] += cache[t + i];
    return cache[0];
}

/* The CPU's sum of the grid partials in block order. A block that starts
 * at or past n has no element for any thread (each starts at blk * block
 * + t) and holds +0, which leaves ans bit for bit as it is (the parent's
 * argument), so the model stops at the first such block. */
static int hostsum(const df_kernel *k, const df_case *c, df_scratch *s,
                   uint64_t extra_step, df_result *out)
{
    df_launch l;
    if (df_model_begin(k, c, &l, out) != 0)
        return -1;
    float *cache = df_scratch_reserve(s, (size_t)l.block * sizeof(float));
    if (!cache) {
        out->status = DF_RUN_ERROR;
        snprintf(out->err, sizeof out->err,
                 "%s model: out of memory for %u floats", k->name, l.block);
        return -1;
    }
    uint64_t step = (uint64_t)l.grid * l.block + extra_step;
    float ans = 0.0f;
    for (uint64_t blk = 0; blk < l.grid && blk * l.block < c->n; blk++)
        ans += block_partial(c, &l, blk, step, cache);
    out->f = ans;
    return 0;
}

static int pow2_tree_model(const df_case *c, df_scratch *s, df_result *out)
{
    return hostsum(&df_mutant_pow2_tree, c, s, 0, out);
}

static int stride_off_by_one_model(const df_case *c, df_scratch *s,
                                   df_result *out)
{
    return hostsum(&df_mutant_stride_off_by_one, c, s, 1, out);
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_tree_hostsum, df_gpu_m_stride_off_by_one;
#endif

/* The parent's launch ranges (its flags are written out per mutant). */
#define TREE_HOSTSUM_LAUNCH                                                  \
    .elem = DF_F32, .acc = DF_F32, .block_min = 32, .block_max = 1024,      \
    .block_default = 256, .grid_max = 65535, .per_thread = 8, .max_n = 0,   \
    .tree_height = tree_height

const df_kernel df_mutant_pow2_tree = {
    .name = "m-pow2-tree",
    .origin = "seed 004 (tree-hostsum)",
    .summary = "halving tree run with any block size (DF_K_BLOCK_POW2 "
               "dropped): odd levels drop cells",
    .flags = DF_K_DETERMINISTIC | DF_K_GRID_FREE,
    TREE_HOSTSUM_LAUNCH,
    .host_model = pow2_tree_model,
    .gpu = DF_GPU_REF(df_gpu_tree_hostsum),
};

const df_kernel df_mutant_stride_off_by_one = {
    .name = "m-stride-off-by-one",
    .origin = "seed 004 (tree-hostsum)",
    .summary = "grid-stride loop steps stride + 1: skips elements once n > "
               "grid * block",
    .flags = DF_K_DETERMINISTIC | DF_K_BLOCK_POW2 | DF_K_GRID_FREE,
    TREE_HOSTSUM_LAUNCH,
    .host_model = stride_off_by_one_model,
    .gpu = DF_GPU_REF(df_gpu_m_stride_off_by_one),
};

#else
/* ---- GPU kernel and launcher (CUDA C) ---- */
#include "../gpu_common.h"

/* The parent's kernel with `tid += stride + 1`. */
__global__ void __launch_bounds__(1024)
m_stride_off_by_one_kernel(const float *a, const float *b, float *c,
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
        tid += stride + 1;
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

static size_t partials_bytes(uint64_t n, const df_launch *l)
{
    (void)n;
    return (size_t)l->grid * sizeof(float);
}

static int stride_off_by_one_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    m_stride_off_by_one_kernel<<<c->launch.grid, c->launch.block, 0, st>>>(
        (const float *)ctx->a, (const float *)ctx->b, (float *)ctx->d_scratch,
        (unsigned long long)c->n);
    DF_TRY(cudaGetLastError(), "m_stride_off_by_one_kernel<<<>>>");
    DF_TRY(cudaMemcpyAsync(ctx->h_scratch, ctx->d_scratch,
                           (size_t)c->launch.grid * sizeof(float),
                           cudaMemcpyDeviceToHost, st),
           "cudaMemcpyAsync(block partials)");
    return 0;
}

/* seed 004's CPU sum of the partials, in block order */
static int stride_off_by_one_finish(df_gpu_ctx *ctx, const df_case *c,
                                    df_result *res)
{
    const float *partial = (const float *)ctx->h_scratch;
    float ans = 0.0f;
    for (uint32_t i = 0; i < c->launch.grid; i++)
        ans += partial[i];
    res->f = ans;
    return 0;
}

extern "C" const struct df_gpu_ops df_gpu_m_stride_off_by_one = {
    partials_bytes, stride_off_by_one_enqueue, stride_off_by_one_finish};
#endif
