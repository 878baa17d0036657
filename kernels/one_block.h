/* one_block.h — the kernels that run a case in one block of a fixed size
 * (nvcc only): the tensor-core dots (kernels/mma_dot.cu,
 * kernels/wgmma_dot.cu) and half2-f16 (kernels/half2_dot.cu). Each file
 * writes its dot once, as the device function of a case type D:
 *
 *   struct D {
 *       typedef ... elem;                   the elements' storage type
 *       static constexpr unsigned threads;  the block (one warp, a warpgroup)
 *       static constexpr const char *name;  the dot, named in a failed launch
 *       static __device__ void dot(const elem *a, const elem *b, unsigned n,
 *                                  float *out);  the f32 result into *out
 *   };
 *
 * and gets its enqueue, its batched launcher and its df_gpu_ops
 * (DF_ONE_BLOCK_OPS) here. Its own launch (df_one_block_enqueue) is one
 * block; a batched launch (df_one_block_enqueue_batch) runs a group's
 * cases in one launch of one block per case, block b on the group's case
 * b (every first_block is 0: the ops give no batch_blocks). Both blocks
 * run D::dot with the same threads on the same a, b and n, so each case's
 * result is what its own launch gives, bit for bit. These dots report no
 * soft errors.
 *
 * Neither launch reads the case's block or grid: the descriptors allow
 * only D::threads and grid 1. n is the case's, truncated to 32 bits in
 * both; the backend has checked it against the descriptor's max_n (launch.c)
 * before either runs, so both refuse the same cases. */
#ifndef DOTFUZZ_ONE_BLOCK_H
#define DOTFUZZ_ONE_BLOCK_H

#ifdef __CUDACC__
#include <stdio.h>

#include "kernels/gpu_common.h"

template <typename D>
__global__ void __launch_bounds__(D::threads)
df_one_block_kernel(const typename D::elem *a, const typename D::elem *b, float *out, unsigned n)
{
    D::dot(a, b, n, out);
}

/* Block b: case cases[b], its result into its 16-byte slot of results. */
template <typename D>
__global__ void __launch_bounds__(D::threads)
df_one_block_batch_kernel(const df_gpu_batch_case *cases, char *results)
{
    const df_gpu_batch_case *c = cases + blockIdx.x;
    D::dot((const typename D::elem *)c->a, (const typename D::elem *)c->b, (unsigned)c->n,
           (float *)(results + (size_t)16 * c->result));
}

/* enqueue: the one block into d_result, copied to h_result. */
template <typename D>
static int df_one_block_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    df_one_block_kernel<D><<<1, D::threads, 0, (cudaStream_t)ctx->stream>>>(
        (const typename D::elem *)ctx->a, (const typename D::elem *)ctx->b,
        (float *)ctx->d_result, (unsigned)c->n);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        ctx->failed_call = "df_one_block_kernel<<<>>>";
        snprintf(ctx->detail, sizeof ctx->detail, "%s", D::name);
        return (int)e;
    }
    return df_fetch_result(ctx, ctx->d_result, sizeof(float));
}

/* enqueue_batch: one launch per group, on the group's stream. A group is
 * within a launch's 2^31 - 1 blocks (cuda_stage.cu's batch_groups: its
 * blocks, one per case, are its count). */
template <typename D>
static int df_one_block_enqueue_batch(df_gpu_batch *bt)
{
    for (size_t g = 0; g < bt->ngroups; g++) {
        const df_gpu_batch_group *gr = &bt->groups[g];
        if (gr->count == 0)
            continue;
        int rc = df_batch_launch(bt, df_batch_stream(bt, g), "df_one_block_batch_kernel<<<>>>",
                                 df_one_block_batch_kernel<D>, dim3((unsigned)gr->count),
                                 D::threads, (const df_gpu_batch_case *)(bt->d_cases + gr->first),
                                 (char *)bt->d_results);
        if (rc != 0) {
            snprintf(bt->detail, sizeof bt->detail, "%s, group %zu of %zu cases", D::name, g,
                     gr->count);
            return rc;
        }
    }
    return 0;
}

/* The df_gpu_ops of case type D: no scratch, a float result. */
#define DF_ONE_BLOCK_OPS(D)                                                    \
    {NULL, df_one_block_enqueue<D>, df_finish_float<float>, df_one_block_enqueue_batch<D>, NULL}
#endif /* __CUDACC__ */

#endif
