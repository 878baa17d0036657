/* cublas_common.h — what the cuBLAS and cuBLASLt peers share (nvcc only):
 * a failed library call named in the context with its status. */
#ifndef DOTFUZZ_CUBLAS_COMMON_H
#define DOTFUZZ_CUBLAS_COMMON_H

#ifdef __CUDACC__
#include <cublas_v2.h>
#include <stdio.h>

#include "kernels/gpu_ops.h"

/* A failed cuBLAS or cuBLASLt call: its name, the status's name, and the
 * status, as the backend expects (kernels/gpu_ops.h). */
static inline int df_cublas_failed(df_gpu_ctx *ctx, const char *call, cublasStatus_t st)
{
    ctx->failed_call = call;
    snprintf(ctx->detail, sizeof ctx->detail, "%s: %s", cublasGetStatusName(st),
             cublasGetStatusString(st));
    return (int)st;
}
#endif
#endif
