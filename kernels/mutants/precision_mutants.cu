/* kernels/mutants/precision_mutants.cu — the precision mutants of
 * `tree-hostsum` (seed 004; kernels/tree_hostsum.cu): that kernel with one
 * flaw each in its arithmetic, the rounding of low-precision hardware.
 * tree-hostsum is the parent rather than shfl: its product and its every
 * addition are plain operations, which its shared code takes as a
 * parameter (tree_rn, df_tree_arith), while shfl's fused multiply-adds and
 * vector lanes would need the flaw threaded through each.
 *
 *   m-rz-acc         every addition rounds toward zero instead of to
 *                    nearest: the per-thread chain and the block tree by
 *                    __fadd_rz, the CPU's sum of the block partials by
 *                    df_fadd_rz (precision_ops.h). Products stay float,
 *                    rounded to nearest. An addition then errs by less
 *                    than one ulp instead of half of one, always toward
 *                    zero. The oracle's bound charges u * G (G = sum
 *                    |a_i b_i|) to every one of the h roundings on a
 *                    path, while all but the last few partial sums are
 *                    far below G: the truncated result stays inside it,
 *                    and on integer data in the exact regime every sum is
 *                    exact either way. The host model repeats it, so no
 *                    rule of today's oracle catches it; what shows it is
 *                    its bias: every error points toward zero.
 *   m-bf16-products  every product is rounded to bfloat16 (8 significant
 *                    bits, to nearest even) before it is added: on the
 *                    GPU __float2bfloat16_rn, then __bfloat162float; on
 *                    the host df_bf16_rn (precision_ops.h) on the float
 *                    product, the same bits. Sums stay float, rounded to
 *                    nearest. A product errs by up to 2^-9 of itself,
 *                    2^15 times float's unit roundoff: inside the bound
 *                    only where the products that round are small beside
 *                    G, so the bound rule sees it on most real data, and
 *                    the exact rule on integer data whose products need
 *                    more than 8 bits.
 *
 *   origin      seed 004 (tree-hostsum); the bug classes are the
 *               behaviours Fasi, Higham, Mikaitis and Pranesh measured in
 *               NVIDIA's tensor cores ("Numerical behavior of NVIDIA
 *               tensor cores", PeerJ Computer Science, 2021): sums
 *               truncated rather than rounded to nearest, and values
 *               cut to low-precision formats (fp16, bfloat16; here each
 *               product)
 *   GPU code    kernels/tree_hostsum_gpu.h: tree_hostsum_kernel<0, A>,
 *               launched by tree_hostsum_enqueue<0, A>; the CPU's sum:
 *               tree_hostsum_finish<A>; A = tree_rz or tree_bf16 (below)
 *   host model  kernels/tree_hostsum_model.h: df_tree_hostsum_model with
 *               RZ_ARITH or BF16_ARITH (entries: rz_acc_model,
 *               bf16_products_model, below)
 *   h(n, l)     the parent's, 1 + ceil(n / (grid * block)) + log2(block)
 *               + grid (kernels/tree_hostsum_model.h:
 *               df_tree_mutant_height)
 *   differs     the parent's traits and launch ranges (deterministic,
 *               power-of-two blocks, free grid), one arithmetic changed
 *
 * Both flaws are deterministic and fully expressed by the host models,
 * which repeat the GPU's operations in its order with the same roundings.
 * How it is compiled: twice (see Makefile), as the parent. */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"
#include "kernels/mutants/precision_ops.h"

#ifndef __CUDACC__
/* ---- host models and descriptors (C11) ---- */
/* the parent's model (the arithmetic one of its parameters), its tree
 * height and launch ranges */
#include "kernels/tree_hostsum_model.h"

extern const df_kernel df_mutant_rz_acc, df_mutant_bf16_products;

/* The float product rounded to bfloat16, as the GPU's
 * __float2bfloat16_rn(a * b). */
static float bf16_mul(float x, float y) { return df_bf16_rn(x * y); }

/* m-rz-acc: products to nearest, every addition toward zero. */
#define RZ_ARITH ((df_tree_arith){df_tree_mul_rn, df_fadd_rz})
/* m-bf16-products: products to bfloat16, additions to nearest. */
#define BF16_ARITH ((df_tree_arith){bf16_mul, df_tree_add_rn})

static int rz_acc_model(const df_case *c, df_scratch *s, df_result *out)
{
    return df_tree_hostsum_model(&df_mutant_rz_acc, c, s, 0, RZ_ARITH, out);
}

static int bf16_products_model(const df_case *c, df_scratch *s, df_result *out)
{
    return df_tree_hostsum_model(&df_mutant_bf16_products, c, s, 0, BF16_ARITH, out);
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_m_rz_acc, df_gpu_m_bf16_products;
#endif

const df_kernel df_mutant_rz_acc = {
    .name = "m-rz-acc",
    .origin = "seed 004 (tree-hostsum)",
    .summary = "every addition rounded toward zero (__fadd_rz, and on the "
               "CPU): errs toward zero, mostly inside the bound",
    .flags = DF_K_DETERMINISTIC | DF_K_BLOCK_POW2 | DF_K_GRID_FREE,
    DF_TREE_HOSTSUM_LAUNCH,
    .tree_height = df_tree_mutant_height,
    .host_model = rz_acc_model,
    .gpu = DF_GPU_REF(df_gpu_m_rz_acc),
};

const df_kernel df_mutant_bf16_products = {
    .name = "m-bf16-products",
    .origin = "seed 004 (tree-hostsum)",
    .summary = "every product rounded to bfloat16 (8 bits, to nearest "
               "even) before the float sum",
    .flags = DF_K_DETERMINISTIC | DF_K_BLOCK_POW2 | DF_K_GRID_FREE,
    DF_TREE_HOSTSUM_LAUNCH,
    .tree_height = df_tree_mutant_height,
    .host_model = bf16_products_model,
    .gpu = DF_GPU_REF(df_gpu_m_bf16_products),
};

#else
/* ---- GPU kernel and launcher (CUDA C) ---- */
/* The parent's kernel, launcher and finish, instantiated with each
 * mutant's arithmetic. */
#include <cuda_bf16.h>

#include "kernels/tree_hostsum_gpu.h"

/* m-rz-acc: products to nearest (nvcc --fmad=false keeps them apart from
 * the sums), every addition toward zero, the CPU's as well. */
struct tree_rz {
    static __device__ __forceinline__ float mul(float x, float y) { return x * y; }
    static __device__ __forceinline__ float add(float x, float y) { return __fadd_rz(x, y); }
    static float host_add(float x, float y) { return df_fadd_rz(x, y); }
};

/* m-bf16-products: each product rounded to bfloat16 and widened back,
 * additions to nearest. */
struct tree_bf16 {
    static __device__ __forceinline__ float mul(float x, float y)
    {
        return __bfloat162float(__float2bfloat16_rn(x * y));
    }
    static __device__ __forceinline__ float add(float x, float y) { return x + y; }
    static float host_add(float x, float y) { return x + y; }
};

extern "C" const struct df_gpu_ops df_gpu_m_rz_acc = {
    tree_hostsum_scratch_bytes, tree_hostsum_enqueue<0, tree_rz>, tree_hostsum_finish<tree_rz>,
    NULL, NULL};

extern "C" const struct df_gpu_ops df_gpu_m_bf16_products = {
    tree_hostsum_scratch_bytes, tree_hostsum_enqueue<0, tree_bf16>,
    tree_hostsum_finish<tree_bf16>, NULL, NULL};
#endif
