/* kernels/tree_hostsum.cu — `tree-hostsum`: its card, tree height, host
 * model entry and descriptor; its GPU half is kernels/tree_hostsum_gpu.h,
 * shared with its mutants.
 *
 *   name        tree-hostsum
 *   origin      seed 004 — a blog post: the dot product in CUDA (2021)
 *   GPU code    kernels/tree_hostsum_gpu.h: tree_hostsum_kernel<0, tree_rn>,
 *               launched by tree_hostsum_enqueue<0, tree_rn>; the CPU's sum:
 *               tree_hostsum_finish<tree_rn>; batches:
 *               tree_hostsum_batch_kernel<0, tree_rn>, launched by
 *               tree_hostsum_enqueue_batch<0, tree_rn>
 *   host model  kernels/tree_hostsum_model.h: df_tree_hostsum_model (entry:
 *               tree_hostsum_model, below)
 *   h(n, l)     1 + ceil(n / (grid * block)) + log2(block) + grid
 *               (tree_hostsum_height, below)
 *   differs     free grid (grid-stride), pow2 block tree, partials summed on CPU
 *
 * Each thread accumulates a grid-stride loop `temp += a[tid]*b[tid]`, the
 * block reduces its threads' sums in shared memory with a binary tree,
 * block partials c[blockIdx.x] are copied to the host, and the CPU adds
 * them in block order (`*ans += c[i]`).
 * The tree halves the active threads each step, so it needs a power-of-two
 * block, as seed 004 says.
 * A batch runs in one launch per block size, and its partials never reach
 * the host (the backend brings back 16 bytes a case): the last block of
 * each case to finish adds the case's partials on the GPU, in block order
 * from +0 in float rounded to nearest, the CPU's loop to the bit (a NaN's
 * payload aside), into the case's result slot, where finish reads it
 * (tree_hostsum_gpu.h says why the bits are the same). A case alone keeps
 * the CPU's sum.
 * How it is compiled: twice (see Makefile): cc -x c builds the host model
 * and descriptor, nvcc -DDOTFUZZ_CUDA the kernel and its launcher. */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"

#ifndef __CUDACC__
/* ---- host model and descriptor (C11) ---- */
#include "kernels/tree_hostsum_model.h"

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

/* h = 1 + ceil(n / (grid * block)) + log2(block) + grid: the product, the
 * per-thread grid-stride chain, log2(block) tree levels, one host addition
 * per block (grid: the launch's, else derived from n as
 * df_launch_resolve derives it). An unresolved launch (block 0) gets the
 * any-order bound, max(n, 1). */
static uint64_t tree_hostsum_height(uint64_t n, const df_launch *l)
{
    if (l->block == 0)
        return n ? n : 1; /* unresolved launch: the any-order bound */
    uint64_t grid = derived_grid(n, l);
    uint64_t stride = grid * l->block;
    return 1 + (n + stride - 1) / stride + df_ceil_log2_u64(l->block) + grid;
}

/* The GPU's operations in its order (tree_hostsum_model.h): per-thread
 * grid-stride sums, each block's tree, the CPU's sum in block order. */
static int tree_hostsum_model(const df_case *c, df_scratch *s, df_result *out)
{
    return df_tree_hostsum_model(&df_kernel_tree_hostsum, c, s, 0, DF_TREE_RN, out);
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
    .flags = DF_K_DETERMINISTIC | DF_K_BLOCK_POW2 | DF_K_GRID_FREE | DF_K_MODEL_IN_BOUNDS |
             DF_K_LEN64,
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
/* the kernel, its launcher and the CPU's sum of the partials, shared with
 * the mutants m-stride-off-by-one, m-rz-acc and m-bf16-products */
#include "kernels/tree_hostsum_gpu.h"

extern "C" const struct df_gpu_ops df_gpu_tree_hostsum = {
    tree_hostsum_scratch_bytes,
    tree_hostsum_enqueue<0, tree_rn>,
    tree_hostsum_finish<tree_rn>,
    tree_hostsum_enqueue_batch<0, tree_rn>,
    df_batch_blocks_holding,
};
#endif
