/* gpu_fetch.h — a case's result on its way to the host: copied now, or,
 * in a batch, its place recorded for the backend's one copy of every
 * case's (df_gpu_fetch_later). C and CUDA C, for the kernels' launchers
 * and the plugins' device form (fuzz/plugin.c); needs the CUDA runtime. */
#ifndef DOTFUZZ_GPU_FETCH_H
#define DOTFUZZ_GPU_FETCH_H

#include <cuda_runtime_api.h>

#include "kernels/gpu_ops.h"

/* Copies the result, bytes at device address src, into ctx->h_result, or
 * records where it lies: a copy a case is a copy engine's round trip on
 * the device and an API call on the host. Returns 0, or the CUDA error
 * with ctx->failed_call named. */
static inline int df_fetch_result(df_gpu_ctx *ctx, const void *src, size_t bytes)
{
    if (df_gpu_fetch_later(ctx, src, bytes))
        return 0;
    cudaError_t e = cudaMemcpyAsync(ctx->h_result, src, bytes, cudaMemcpyDeviceToHost,
                                    (cudaStream_t)ctx->stream);
    if (e != cudaSuccess) {
        ctx->failed_call = "cudaMemcpyAsync(result)";
        return (int)e;
    }
    return 0;
}

#endif
