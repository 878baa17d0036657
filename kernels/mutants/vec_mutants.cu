/* kernels/mutants/vec_mutants.cu — the mutant of `shfl` (seed 004;
 * kernels/shfl.cu): that kernel with one bug.
 *
 *   m-vec-tail  the fast kernel with its scalar tail dropped: the parent's
 *               machinery runs on n rounded down to a multiple of 4
 *               (n & ~3), as a float4 loop written without the cleanup
 *               loop after it would, so the last n % 4 elements are never
 *               read. Caught ("exact" on integer data, "bound" on real
 *               data) whenever n % 4 != 0 and the dropped products are not
 *               all zero.
 *
 * The rest is the parent's, reused, not copied: the GPU half calls shfl's
 * launcher (df_shfl_enqueue, kernels/shfl_common.h) with the shortened
 * case, the host model is shfl's model (kernels/shfl_model.h) on the same
 * shortened case, and the descriptor has shfl's traits and ranges
 * (deterministic, any alignment, warp-multiple blocks). The claimed tree
 * height is the parent's for the full n: the claim the bug breaks.
 * How it is compiled: twice (see Makefile), as the parent. */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"
#include "kernels/shfl_common.h"

/* The bug: the length the vector loop is run on. */
static inline uint64_t vec_tail_n(uint64_t n) { return n & ~(uint64_t)3; }

#ifndef __CUDACC__
/* ---- host model and descriptor (C11) ---- */
#include <math.h>

#define SHFL_NAME vec_tail_f32
#define SHFL_ELEM float
#define SHFL_ACC float
#define SHFL_TYPE DF_F32
#define SHFL_V 4
#define SHFL_FMA(x, y, z) fmaf((x), (y), (z))
#include "kernels/shfl_model.h"

static uint64_t vec_tail_height(uint64_t n, const df_launch *l)
{
    return df_shfl_tree_height(n, l, 4);
}

static int vec_tail_model(const df_case *c, df_scratch *s, df_result *out)
{
    df_case shortened = *c;
    shortened.n = vec_tail_n(c->n);
    return vec_tail_f32_model(&shortened, s, out);
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_m_vec_tail;
#endif

const df_kernel df_mutant_vec_tail = {
    .name = "m-vec-tail",
    .origin = "seed 004 (shfl)",
    .summary = "shfl without its scalar tail: runs on n & ~3, the last "
               "n % 4 elements ignored",
    .elem = DF_F32,
    .acc = DF_F32,
    DF_SHFL_LAUNCH,
    .tree_height = vec_tail_height,
    .host_model = vec_tail_model,
    .gpu = DF_GPU_REF(df_gpu_m_vec_tail),
};

#else
/* ---- GPU launcher (CUDA C) ---- */

static int vec_tail_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    df_case shortened = *c;
    shortened.n = vec_tail_n(c->n);
    return df_shfl_enqueue<float, float>(ctx, &shortened);
}

extern "C" const struct df_gpu_ops df_gpu_m_vec_tail = {
    df_shfl_scratch_bytes<float>,
    vec_tail_enqueue,
    df_finish_float<float>,
    NULL,
    NULL,
};
#endif
