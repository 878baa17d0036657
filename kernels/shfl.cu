/* kernels/shfl.cu — `shfl` and `shfl-f64acc`: their card, host models
 * (kernels/shfl_model.h instantiated for float and for double
 * accumulators), descriptors and GPU entry points; the kernel template is
 * in kernels/shfl_common.h, shared with shfl-f64 (kernels/shfl_f64.cu).
 *
 *   names       shfl, shfl-f64acc
 *   origin      seed 004 — a blog post: the dot product in CUDA (2021), its
 *               grid-stride loop and block tree grown into the fast kernel
 *   GPU code    kernels/shfl_common.h: df_shfl_kernel<float, float> and
 *               <float, double> (each block: df_shfl_block), launched by
 *               df_shfl_enqueue; batches: df_shfl_batch_kernel
 *   host model  kernels/shfl_model.h, instantiated below as shfl_f32_model
 *               and shfl_f64acc_model
 *   h(n, l)     chain + 1 + log2 V + L(active)
 *                 + (B > 1 ? ceil(B / block) - 1 + L(min(B, block)) : 0)
 *               with V = 4, T = grid * block; chain = ceil(n / (V T)) on
 *               the scalar path, ceil(nvec / T) + [head > 0] + [tail > 0]
 *               on the vector path; active = min(T, n), resp.
 *               max(min(T, nvec), head, tail); B = ceil(active / block);
 *               L(m) = ceil(log2 min(m, 32)) + ceil(log2 min(ceil(m / 32),
 *               block / 32)) (shfl_height_f32, below, and
 *               kernels/shfl_common.h: df_shfl_tree_height)
 *   differs     16-byte loads, FMA lanes, warp shuffles, fixed-order last block
 *
 * What differs from their siblings, in full: 16-byte loads (float4, 4
 * pairs in flight per thread per iteration), one fused multiply-add per
 * element into 4 per-thread lanes, warp-shuffle trees instead of
 * shared-memory trees, any alignment, and a deterministic cross-block sum
 * on the GPU (the last block to finish adds the block partials in a fixed
 * order) in one launch, so they are bit-reproducible and match their host
 * models bit for bit.
 *   shfl         float in, float accumulators (fmaf), float result.
 *   shfl-f64acc  float in, double accumulators: fma((double)a, (double)b,
 *                acc), the product exact in double; double result.
 * The map from elements to threads (head, vector body, tail; the scalar
 * path) is described in kernels/shfl_common.h.
 */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"
#include "kernels/shfl_common.h"

#ifndef __CUDACC__
/* ---- host models and descriptors (C11) ---- */
#include <math.h>

#define SHFL_NAME shfl_f32
#define SHFL_ELEM float
#define SHFL_ACC float
#define SHFL_TYPE DF_F32
#define SHFL_V 4
#define SHFL_FMA(x, y, z) fmaf((x), (y), (z))
#include "kernels/shfl_model.h"

#define SHFL_NAME shfl_f64acc
#define SHFL_ELEM float
#define SHFL_ACC double
#define SHFL_TYPE DF_F32
#define SHFL_V 4
#define SHFL_FMA(x, y, z) fma((double)(x), (double)(y), (z))
#include "kernels/shfl_model.h"

/* shfl's and shfl-f64acc's h: the shfl formula (shfl_common.h,
 * df_shfl_tree_height) with V = 4 floats per 16-byte vector. */
static uint64_t shfl_height_f32(uint64_t n, const df_launch *l)
{
    return df_shfl_tree_height(n, l, 4);
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_shfl;
extern const struct df_gpu_ops df_gpu_shfl_f64acc;
#endif

const df_kernel df_kernel_shfl = {
    .name = "shfl",
    .origin = "seed 004",
    .summary = "float4 loads, fmaf lanes, warp shuffles, deterministic "
               "last-block sum: the fast kernel",
    .elem = DF_F32,
    .acc = DF_F32,
    DF_SHFL_LAUNCH_LEN64,
    .tree_height = shfl_height_f32,
    .host_model = shfl_f32_model,
    .gpu = DF_GPU_REF(df_gpu_shfl),
};

const df_kernel df_kernel_shfl_f64acc = {
    .name = "shfl-f64acc",
    .origin = "seed 004",
    .summary = "shfl with double accumulation of float inputs (exact "
               "products, double result)",
    .elem = DF_F32,
    .acc = DF_F64,
    DF_SHFL_LAUNCH_LEN64,
    .tree_height = shfl_height_f32,
    .host_model = shfl_f64acc_model,
    .gpu = DF_GPU_REF(df_gpu_shfl_f64acc),
};

#else
/* ---- GPU kernels and launchers (CUDA C) ---- */
extern "C" const struct df_gpu_ops df_gpu_shfl = {
    df_shfl_scratch_bytes<float>,
    df_shfl_enqueue<float, float>,
    df_finish_float<float>,
    df_shfl_enqueue_batch,
    df_batch_blocks_holding,
};

extern "C" const struct df_gpu_ops df_gpu_shfl_f64acc = {
    df_shfl_scratch_bytes<double>,
    df_shfl_enqueue<float, double>,
    df_finish_float<double>,
    df_shfl_f64acc_enqueue_batch,
    df_batch_blocks_holding,
};

extern "C" int df_shfl_blocks_per_sm(uint32_t block, int *blocks_per_sm)
{
    return df_shfl_occupancy<float, float>(block, blocks_per_sm);
}

extern "C" int df_shfl_f64acc_blocks_per_sm(uint32_t block, int *blocks_per_sm)
{
    return df_shfl_occupancy<float, double>(block, blocks_per_sm);
}

extern "C" int df_shfl_enqueue_batch(df_gpu_batch *bt)
{
    return df_shfl_enqueue_batch_t<float, float>(bt);
}

extern "C" int df_shfl_f64acc_enqueue_batch(df_gpu_batch *bt)
{
    return df_shfl_enqueue_batch_t<float, double>(bt);
}
#endif
