/* kernels/cublas_dot.cu — `cublas-sdot` and `cublas-ddot`: their card,
 * descriptors and launchers around the vendor's dot (cublasSdot_64 /
 * cublasDdot_64, CUDA 12+'s 64-bit-length API), run as peers of the
 * hand-written kernels.
 *
 *   names       cublas-sdot, cublas-ddot
 *   origin      dotfuzz — new in dotfuzz, from no seed
 *   GPU code    kernels/cublas_dot.cu: cublas_enqueue<float> / <double>,
 *               calling cuBLAS
 *   host model  none: the bound alone judges them
 *   h(n, l)     max(n, 1), the bound for any order (cublas_height, below)
 *   differs     the library picks launch and order: no model, not deterministic
 *
 * The result goes to ctx->d_result in device pointer mode, then to
 * ctx->h_result, all on ctx->stream; the handle is created on first use
 * into ctx->cublas (the backend destroys it).
 */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"

#ifndef __CUDACC__
/* ---- descriptors (C11) ---- */

/* h = max(n, 1): any order of n products and n - 1 adds has at most n
 * roundings on a chain. */
static uint64_t cublas_height(uint64_t n, const df_launch *l)
{
    (void)l;
    return n > 1 ? n : 1;
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_cublas_sdot;
extern const struct df_gpu_ops df_gpu_cublas_ddot;
#endif

/* block and grid mean nothing to cuBLAS: both are pinned to 1. */
#define CUBLAS_DOT_LAUNCH                                                  \
    .flags = DF_K_ANY_ALIGNMENT | DF_K_GRID_FREE | DF_K_ONE_STREAM |       \
             DF_K_LEN64,                                                   \
    .block_min = 1,                                                        \
    .block_max = 1, .block_default = 1, .grid_max = 1, .per_thread = 1,    \
    .max_n = 0, .host_model = NULL

const df_kernel df_kernel_cublas_sdot = {
    .name = "cublas-sdot",
    .origin = "dotfuzz",
    .summary = "cuBLAS cublasSdot_64: the vendor's float dot, its own launch "
               "and order",
    .elem = DF_F32,
    .acc = DF_F32,
    CUBLAS_DOT_LAUNCH,
    .tree_height = cublas_height,
    .gpu = DF_GPU_REF(df_gpu_cublas_sdot),
};

const df_kernel df_kernel_cublas_ddot = {
    .name = "cublas-ddot",
    .origin = "dotfuzz",
    .summary = "cuBLAS cublasDdot_64: the vendor's double dot, its own launch "
               "and order",
    .elem = DF_F64,
    .acc = DF_F64,
    CUBLAS_DOT_LAUNCH,
    .tree_height = cublas_height,
    .gpu = DF_GPU_REF(df_gpu_cublas_ddot),
};

#else
/* ---- GPU launchers (CUDA C) ---- */
#include <cublas_v2.h>
#include <stdio.h>

#include "kernels/cublas_common.h"
#include "kernels/gpu_common.h"

template <typename E> struct cublas_dot;
template <> struct cublas_dot<float> {
    static const df_type elem = DF_F32;
    static const char *name() { return "cublasSdot_64"; }
    static cublasStatus_t run(cublasHandle_t h, int64_t n, const float *x,
                              const float *y, float *r)
    {
        return cublasSdot_64(h, n, x, 1, y, 1, r);
    }
};
template <> struct cublas_dot<double> {
    static const df_type elem = DF_F64;
    static const char *name() { return "cublasDdot_64"; }
    static cublasStatus_t run(cublasHandle_t h, int64_t n, const double *x,
                              const double *y, double *r)
    {
        return cublasDdot_64(h, n, x, 1, y, 1, r);
    }
};

template <typename E> static int cublas_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    if (c->type != cublas_dot<E>::elem || c->n > (uint64_t)INT64_MAX) {
        ctx->failed_call = "cublas dot case check";
        snprintf(ctx->detail, sizeof ctx->detail, "type %s, n = %llu",
                 df_type_name(c->type), (unsigned long long)c->n);
        return (int)CUBLAS_STATUS_INVALID_VALUE;
    }
    if (!ctx->cublas) {
        cublasHandle_t created;
        cublasStatus_t st = cublasCreate(&created);
        if (st != CUBLAS_STATUS_SUCCESS)
            return df_cublas_failed(ctx, "cublasCreate", st);
        ctx->cublas = created;
    }
    cublasHandle_t h = (cublasHandle_t)ctx->cublas;
    cublasStatus_t st = cublasSetStream(h, stream);
    if (st != CUBLAS_STATUS_SUCCESS)
        return df_cublas_failed(ctx, "cublasSetStream", st);
    st = cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE);
    if (st != CUBLAS_STATUS_SUCCESS)
        return df_cublas_failed(ctx, "cublasSetPointerMode", st);
    /* cuBLAS returns early for n <= 0; the result must still be 0 */
    if (c->n == 0)
        return df_enqueue_zero_result(ctx, sizeof(E));
    st = cublas_dot<E>::run(h, (int64_t)c->n, (const E *)ctx->a,
                            (const E *)ctx->b, (E *)ctx->d_result);
    if (st != CUBLAS_STATUS_SUCCESS)
        return df_cublas_failed(ctx, cublas_dot<E>::name(), st);
    return df_fetch_result(ctx, ctx->d_result, sizeof(E));
}

extern "C" const struct df_gpu_ops df_gpu_cublas_sdot = {
    NULL, /* no device scratch */
    cublas_enqueue<float>,
    df_finish_float<float>,
    NULL,
    NULL,
};

extern "C" const struct df_gpu_ops df_gpu_cublas_ddot = {
    NULL, /* no device scratch */
    cublas_enqueue<double>,
    df_finish_float<double>,
    NULL,
    NULL,
};
#endif
