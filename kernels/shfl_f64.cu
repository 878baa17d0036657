/* kernels/shfl_f64.cu — `shfl-f64`: its card, host model (kernels/
 * shfl_model.h instantiated for doubles), descriptor and GPU entry points;
 * the kernel template is in kernels/shfl_common.h, shared with shfl and
 * shfl-f64acc (kernels/shfl.cu).
 *
 *   name        shfl-f64
 *   origin      seed 004 — a blog post: the dot product in CUDA (2021), its
 *               grid-stride loop and block tree grown into the fast kernel
 *   GPU code    kernels/shfl_common.h: df_shfl_kernel<double, double> (each
 *               block: df_shfl_block), launched by df_shfl_enqueue; batches:
 *               df_shfl_batch_kernel
 *   host model  kernels/shfl_model.h, instantiated below as shfl_f64_model
 *   h(n, l)     shfl's formula (kernels/shfl.cu) with V = 2: chain + 2 +
 *               L(active) + (B > 1 ? ceil(B / block) - 1 + L(min(B, block))
 *               : 0) (shfl_height_f64, below, and kernels/shfl_common.h:
 *               df_shfl_tree_height)
 *   differs     shfl on doubles: double2 loads, 2 lanes, fma in double
 *
 * What differs from shfl in full: double2 loads, so 2 elements per 16-byte
 * vector and 2 accumulator lanes, fma in double, double result. Everything
 * else (alignment paths, warp shuffles, deterministic last-block sum, the
 * host model and tree height) is the same code: kernels/shfl_common.h and
 * kernels/shfl_model.h.
 */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"
#include "kernels/shfl_common.h"

#ifndef __CUDACC__
/* ---- host model and descriptor (C11) ---- */
#include <math.h>

#define SHFL_NAME shfl_f64
#define SHFL_ELEM double
#define SHFL_ACC double
#define SHFL_TYPE DF_F64
#define SHFL_V 2
#define SHFL_FMA(x, y, z) fma((x), (y), (z))
#include "kernels/shfl_model.h"

/* shfl-f64's h: the shfl formula (shfl_common.h, df_shfl_tree_height)
 * with V = 2 doubles per 16-byte vector. */
static uint64_t shfl_height_f64(uint64_t n, const df_launch *l)
{
    return df_shfl_tree_height(n, l, 2);
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_shfl_f64;
#endif

const df_kernel df_kernel_shfl_f64 = {
    .name = "shfl-f64",
    .origin = "seed 004",
    .summary = "shfl on doubles: double2 loads, fma, warp shuffles, "
               "deterministic last-block sum",
    .elem = DF_F64,
    .acc = DF_F64,
    DF_SHFL_LAUNCH_LEN64,
    .tree_height = shfl_height_f64,
    .host_model = shfl_f64_model,
    .gpu = DF_GPU_REF(df_gpu_shfl_f64),
};

#else
/* ---- GPU kernel and launcher (CUDA C) ---- */
extern "C" const struct df_gpu_ops df_gpu_shfl_f64 = {
    df_shfl_scratch_bytes<double>,
    df_shfl_enqueue<double, double>,
    df_finish_float<double>,
    df_shfl_f64_enqueue_batch,
    df_batch_blocks_holding,
};

extern "C" int df_shfl_f64_blocks_per_sm(uint32_t block, int *blocks_per_sm)
{
    return df_shfl_occupancy<double, double>(block, blocks_per_sm);
}

extern "C" int df_shfl_f64_enqueue_batch(df_gpu_batch *bt)
{
    return df_shfl_enqueue_batch_t<double, double>(bt);
}
#endif
