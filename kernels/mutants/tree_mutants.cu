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
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"

#ifndef __CUDACC__
/* ---- host models and descriptors (C11) ---- */
/* the parent's model (the grid-stride step's extra and the arithmetic its
 * parameters), its tree height and launch ranges */
#include "kernels/tree_hostsum_model.h"

extern const df_kernel df_mutant_pow2_tree, df_mutant_stride_off_by_one;

static int pow2_tree_model(const df_case *c, df_scratch *s, df_result *out)
{
    return df_tree_hostsum_model(&df_mutant_pow2_tree, c, s, 0, DF_TREE_RN, out);
}

static int stride_off_by_one_model(const df_case *c, df_scratch *s,
                                   df_result *out)
{
    return df_tree_hostsum_model(&df_mutant_stride_off_by_one, c, s, 1, DF_TREE_RN,
                                 out);
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_tree_hostsum, df_gpu_m_stride_off_by_one;
#endif

const df_kernel df_mutant_pow2_tree = {
    .name = "m-pow2-tree",
    .origin = "seed 004 (tree-hostsum)",
    .summary = "halving tree run with any block size (DF_K_BLOCK_POW2 "
               "dropped): odd levels drop cells",
    .flags = DF_K_DETERMINISTIC | DF_K_GRID_FREE,
    DF_TREE_HOSTSUM_LAUNCH,
    .tree_height = df_tree_mutant_height,
    .host_model = pow2_tree_model,
    .gpu = DF_GPU_REF(df_gpu_tree_hostsum),
};

const df_kernel df_mutant_stride_off_by_one = {
    .name = "m-stride-off-by-one",
    .origin = "seed 004 (tree-hostsum)",
    .summary = "grid-stride loop steps stride + 1: skips elements once n > "
               "grid * block",
    .flags = DF_K_DETERMINISTIC | DF_K_BLOCK_POW2 | DF_K_GRID_FREE,
    DF_TREE_HOSTSUM_LAUNCH,
    .tree_height = df_tree_mutant_height,
    .host_model = stride_off_by_one_model,
    .gpu = DF_GPU_REF(df_gpu_m_stride_off_by_one),
};

#else
/* ---- GPU kernel and launcher (CUDA C) ---- */
/* The parent's kernel, launcher and finish; the mutant instantiates the
 * kernel with `tid += stride + 1` and the parent's arithmetic. */
#include "kernels/tree_hostsum_gpu.h"

extern "C" const struct df_gpu_ops df_gpu_m_stride_off_by_one = {
    tree_hostsum_scratch_bytes, tree_hostsum_enqueue<1, tree_rn>, tree_hostsum_finish<tree_rn>,
    NULL, NULL};
#endif
