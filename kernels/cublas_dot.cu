/* kernels/cublas_dot.cu — `cublas-sdot`, `cublas-ddot`, `cublas-hdot` and
 * `cublas-bfdot`: their card, descriptors and launchers around the
 * vendor's dot (cublasSdot_64 / cublasDdot_64, CUDA 12+'s 64-bit-length
 * API; cublasDotEx for f16 and bf16 data, summed in f32, the result in the
 * data's type), run as peers of the hand-written kernels.
 *
 *   names       cublas-sdot, cublas-ddot, cublas-hdot, cublas-bfdot
 *   origin      dotfuzz — new in dotfuzz, from no seed
 *   GPU code    kernels/cublas_dot.cu: cublas_enqueue<float> / <double>,
 *               calling cuBLAS
 *   host model  none: the bound alone judges them
 *   h(n, l)     max(n, 1), the bound for any order (cublas_height, below)
 *   differs     the library picks launch and order: no model, not deterministic;
 *               BLAS arguments (DF_K_BLAS): the case's increments passed as
 *               they are, a[0] and b[0] the buffers' first elements; for
 *               n_arg <= 0 the peer writes the 0 that cuBLAS leaves unwritten
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
extern const struct df_gpu_ops df_gpu_cublas_hdot, df_gpu_cublas_bfdot;
#endif

/* block and grid mean nothing to cuBLAS: both are pinned to 1. */
#define CUBLAS_DOT_LAUNCH                                                  \
    .flags = DF_K_ANY_ALIGNMENT | DF_K_GRID_FREE | DF_K_ONE_STREAM |       \
             DF_K_LEN64 | DF_K_BLAS | DF_K_ENQUEUE_THREADS,                \
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

/* cublasDotEx: f16 (bf16) data, an f32 sum, the result rounded to f16
 * (bf16) once: the pairs cuBLAS supports. 32-bit lengths; the low-precision
 * families make cases up to 65,536 elements. */
#define CUBLAS_DOTEX_LAUNCH                                                \
    .acc = DF_F32,                                                         \
    .flags = DF_K_ANY_ALIGNMENT | DF_K_GRID_FREE | DF_K_ONE_STREAM | DF_K_BLAS | DF_K_ENQUEUE_THREADS, \
    .block_min = 1, .block_max = 1, .block_default = 1, .grid_max = 1, .per_thread = 1, \
    .max_n = 65536, .host_model = NULL, .tree_height = cublas_height

const df_kernel df_kernel_cublas_hdot = {
    .name = "cublas-hdot",
    .origin = "dotfuzz",
    .summary = "cuBLAS cublasDotEx: f16 data, an f32 sum, an f16 result",
    .elem = DF_F16,
    CUBLAS_DOTEX_LAUNCH,
    .result = DF_F16,
    .gpu = DF_GPU_REF(df_gpu_cublas_hdot),
};

const df_kernel df_kernel_cublas_bfdot = {
    .name = "cublas-bfdot",
    .origin = "dotfuzz",
    .summary = "cuBLAS cublasDotEx: bf16 data, an f32 sum, a bf16 result",
    .elem = DF_BF16,
    CUBLAS_DOTEX_LAUNCH,
    .result = DF_BF16,
    .gpu = DF_GPU_REF(df_gpu_cublas_bfdot),
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

#include "fuzz/lowp.h"
#include "kernels/cublas_common.h"
#include "kernels/gpu_common.h"

template <typename E> struct cublas_dot;
template <> struct cublas_dot<float> {
    static const df_type elem = DF_F32;
    static const char *name() { return "cublasSdot_64"; }
    static cublasStatus_t run(cublasHandle_t h, int64_t n, const float *x, int64_t incx,
                              const float *y, int64_t incy, float *r)
    {
        return cublasSdot_64(h, n, x, incx, y, incy, r);
    }
};
template <> struct cublas_dot<double> {
    static const df_type elem = DF_F64;
    static const char *name() { return "cublasDdot_64"; }
    static cublasStatus_t run(cublasHandle_t h, int64_t n, const double *x, int64_t incx,
                              const double *y, int64_t incy, double *r)
    {
        return cublasDdot_64(h, n, x, incx, y, incy, r);
    }
};

/* The context's handle, made at its first use, set on its stream in
 * device pointer mode: 0, or the failed call's status. */
static int cublas_ready(df_gpu_ctx *ctx, cublasHandle_t *out)
{
    if (!ctx->cublas) {
        cublasHandle_t created;
        cublasStatus_t st = cublasCreate(&created);
        if (st != CUBLAS_STATUS_SUCCESS)
            return df_cublas_failed(ctx, "cublasCreate", st);
        ctx->cublas = created;
    }
    cublasHandle_t h = (cublasHandle_t)ctx->cublas;
    cublasStatus_t st = cublasSetStream(h, (cudaStream_t)ctx->stream);
    if (st != CUBLAS_STATUS_SUCCESS)
        return df_cublas_failed(ctx, "cublasSetStream", st);
    st = cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE);
    if (st != CUBLAS_STATUS_SUCCESS)
        return df_cublas_failed(ctx, "cublasSetPointerMode", st);
    *out = h;
    return 0;
}

template <typename E> static int cublas_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    if (c->type != cublas_dot<E>::elem || c->n > (uint64_t)INT64_MAX) {
        ctx->failed_call = "cublas dot case check";
        snprintf(ctx->detail, sizeof ctx->detail, "type %s, n = %llu",
                 df_type_name(c->type), (unsigned long long)c->n);
        return (int)CUBLAS_STATUS_INVALID_VALUE;
    }
    cublasHandle_t h;
    int rc = cublas_ready(ctx, &h);
    if (rc != 0)
        return rc;
    /* cuBLAS returns early for n <= 0 without writing the result, which
     * reference BLAS's dot defines as 0: the peer writes it */
    if (c->n == 0)
        return df_enqueue_zero_result(ctx, sizeof(E));
    cublasStatus_t st = cublas_dot<E>::run(h, (int64_t)c->n, (const E *)ctx->a, c->blas.inc_a,
                                           (const E *)ctx->b, c->blas.inc_b, (E *)ctx->d_result);
    if (st != CUBLAS_STATUS_SUCCESS)
        return df_cublas_failed(ctx, cublas_dot<E>::name(), st);
    return df_fetch_result(ctx, ctx->d_result, sizeof(E));
}

/* cublasDotEx on f16 or bf16 data (t) summed in f32, its result in the
 * data's type (the pairs cuBLAS supports), read back as that format. */
static int dotex_enqueue(df_gpu_ctx *ctx, const df_case *c, cudaDataType t)
{
    cublasHandle_t h;
    int rc = cublas_ready(ctx, &h);
    if (rc != 0)
        return rc;
    if (c->n == 0)
        return df_enqueue_zero_result(ctx, sizeof(uint16_t));
    cublasStatus_t st = cublasDotEx(h, (int)c->n, ctx->a, t, c->blas.inc_a, ctx->b, t,
                                    c->blas.inc_b, ctx->d_result, t, CUDA_R_32F);
    if (st != CUBLAS_STATUS_SUCCESS)
        return df_cublas_failed(ctx, "cublasDotEx", st);
    return df_fetch_result(ctx, ctx->d_result, sizeof(uint16_t));
}
static int hdot_enqueue(df_gpu_ctx *ctx, const df_case *c) { return dotex_enqueue(ctx, c, CUDA_R_16F); }
static int bfdot_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    return dotex_enqueue(ctx, c, CUDA_R_16BF);
}

template <df_lowp F> static int dotex_finish(df_gpu_ctx *ctx, const df_case *c, df_result *res)
{
    (void)c;
    res->f = df_lowp_decode(F, *(const uint16_t *)ctx->h_result);
    res->i = 0;
    res->status = DF_RUN_OK;
    res->err[0] = '\0';
    return 0;
}

extern "C" const struct df_gpu_ops df_gpu_cublas_hdot = {NULL, hdot_enqueue,
                                                         dotex_finish<DF_LOWP_F16>, NULL, NULL};
extern "C" const struct df_gpu_ops df_gpu_cublas_bfdot = {NULL, bfdot_enqueue,
                                                          dotex_finish<DF_LOWP_BF16>, NULL, NULL};

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
