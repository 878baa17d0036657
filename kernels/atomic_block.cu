/* kernels/atomic_block.cu — `atomic-block`, from seed 000 (a Jetson dot
 * kernel): each thread writes one product a[i]*b[i] into shared memory (zero
 * past n), thread 0 sums its block's products serially, and adds the block
 * sum into the result with one float atomicAdd on global memory.
 * What differs from its siblings: the cross-block sum is a float atomicAdd,
 * so blocks land in a different order each run (not deterministic), and that
 * atomic flushes subnormals to zero.
 * How it is compiled: twice (see Makefile): cc -x c builds the host model
 * and descriptor, nvcc -DDOTFUZZ_CUDA the kernel and its launcher. */
#include "kernel.h"
#include "cuda_backend.h"

#ifndef __CUDACC__
/* ---- host model and descriptor (C11) ---- */
#include <math.h>
#include <stdio.h>
#include <string.h>

extern const df_kernel df_kernel_atomic_block;

/* product, then block additions in thread 0's serial loop, then one atomic
 * add per block into the result */
static uint64_t atomic_block_height(uint64_t n, const df_launch *l)
{
    if (l->block == 0)
        return n ? n : 1; /* unresolved launch: the any-order bound */
    uint64_t grid = (n + l->block - 1) / l->block;
    if (grid == 0)
        grid = 1;
    return 1 + (uint64_t)l->block + grid;
}

/* Float atomicAdd on global memory always runs in flush-to-zero mode: PTX
 * atom.add.f32 flushes subnormal inputs and results to sign-preserving zero,
 * whatever -ftz says. The block's serial sum (plain fadd, no -ftz) keeps
 * subnormals. */
static float flush_subnormal(float x)
{
    return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x;
}

static int model_begin(const df_case *c, df_launch *l, df_result *out)
{
    char why[112];
    memset(out, 0, sizeof *out);
    *l = c->launch;
    if (c->type != DF_F32) {
        snprintf(out->err, sizeof out->err,
                 "atomic-block model: needs f32 data, case is %s",
                 df_type_name(c->type));
    } else if (df_launch_resolve(&df_kernel_atomic_block, c->n, l, why,
                                 sizeof why) != 0) {
        snprintf(out->err, sizeof out->err, "atomic-block model: %s", why);
    } else {
        return 0;
    }
    out->status = DF_RUN_ERROR;
    return -1;
}

/* The GPU adds block sums in whatever order blocks finish; the model takes
 * blocks 0..grid-1, one valid order among them. */
static int atomic_block_model(const df_case *c, df_scratch *s, df_result *out)
{
    df_launch l;
    (void)s;
    if (model_begin(c, &l, out) != 0)
        return -1;
    const float *a = c->a, *b = c->b;
    float result = 0.0f; /* the launcher's cudaMemsetAsync */
    for (uint64_t blk = 0; blk < l.grid; blk++) {
        float sum = 0.0f;
        for (uint32_t t = 0; t < l.block; t++) {
            uint64_t i = blk * l.block + t;
            float p = i < c->n ? a[i] * b[i] : 0.0f;
            sum += p;
        }
        result = flush_subnormal(flush_subnormal(result) + flush_subnormal(sum));
    }
    out->f = result;
    return 0;
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_atomic_block;
#endif

const df_kernel df_kernel_atomic_block = {
    .name = "atomic-block",
    .origin = "seed 000",
    .summary = "one product per thread, thread 0 sums its block serially, "
               "float atomicAdd across blocks (order varies, flushes subnormals)",
    .elem = DF_F32,
    .acc = DF_F32,
    .flags = DF_K_FLUSHES_SUBNORMALS,
    .block_min = 1,
    .block_max = 1024,
    .block_default = 1024, /* the seed's MAX_THREADS_PER_BLOCK */
    .grid_max = 0,
    .per_thread = 1,
    .max_n = 0,
    .tree_height = atomic_block_height,
    .host_model = atomic_block_model,
    .gpu = DF_GPU_REF(df_gpu_atomic_block),
};

#else
/* ---- GPU kernel and launcher (CUDA C) ---- */
#include <cuda_runtime.h>
#include <string.h>

#define TRY(call, name)                                                       \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            ctx->failed_call = (name);                                        \
            return (int)e_;                                                   \
        }                                                                     \
    } while (0)

/* Seed 000's kernel with N as a parameter and a 64-bit index, so any n and
 * any block in [1, 1024] work (the block sum reads blockDim.x entries, all
 * written before the barrier). */
__global__ void __launch_bounds__(1024)
atomic_block_kernel(const float *a, const float *b, float *c,
                    unsigned long long n)
{
    __shared__ float tmp[1024];
    unsigned long long index =
        (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (index < n)
        tmp[threadIdx.x] = a[index] * b[index];
    else
        tmp[threadIdx.x] = 0.0f; /* tail threads of the last block */
    __syncthreads();
    if (threadIdx.x == 0) {
        float sum = 0.0f;
        for (unsigned i = 0; i < blockDim.x; i++)
            sum += tmp[i];
        atomicAdd(c, sum);
    }
}

static int atomic_block_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    /* seed 000's first bug: the result must start at zero every case */
    TRY(cudaMemsetAsync(ctx->d_result, 0, sizeof(float), st),
        "cudaMemsetAsync(result)");
    atomic_block_kernel<<<c->launch.grid, c->launch.block, 0, st>>>(
        (const float *)ctx->a, (const float *)ctx->b, (float *)ctx->d_result,
        (unsigned long long)c->n);
    TRY(cudaGetLastError(), "atomic_block_kernel<<<>>>");
    TRY(cudaMemcpyAsync(ctx->h_result, ctx->d_result, sizeof(float),
                        cudaMemcpyDeviceToHost, st),
        "cudaMemcpyAsync(result)");
    return 0;
}

static int atomic_block_finish(df_gpu_ctx *ctx, const df_case *c, df_result *res)
{
    float v;
    (void)c;
    memcpy(&v, ctx->h_result, sizeof v);
    res->f = v;
    return 0;
}

extern "C" const struct df_gpu_ops df_gpu_atomic_block = {
    NULL, atomic_block_enqueue, atomic_block_finish};
#endif
