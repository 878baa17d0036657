/* batch_common.h — what the batched launchers (df_gpu_ops.enqueue_batch,
 * the batch itself in kernels/gpu_ops.h) share (nvcc only): a group's
 * stream, a checked launch, one launch per group, the case a block of a
 * group's launch works for, the blocks a case's launch needs, and the
 * batched launcher of the kernels that add into one result word
 * (atomic-block, int-atomic). Their users: the shfl family
 * (kernels/shfl_common.h), fold and tournament (kernels/gpu_common.h),
 * atomic-block (kernels/atomic_block.cu) and int-atomic
 * (kernels/int_atomic_gpu.h).
 *
 * A group's launch numbers its cases' blocks one case after the other
 * (df_gpu_batch_case.first_block, from df_gpu_ops.batch_blocks): a block
 * finds its case by binary search (df_batch_case_here) and runs as block
 * blockIdx.x - first_block of the case's own launch. fold and tournament
 * number each case from 0 instead (blockIdx.y picks the case).
 */
#ifndef DOTFUZZ_BATCH_COMMON_H
#define DOTFUZZ_BATCH_COMMON_H

#ifdef __CUDACC__
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/gpu_ops.h"

/* Blocks a batched launch runs for a case (df_gpu_ops.batch_blocks) of a
 * kernel whose block b starts at element b * block: those whose first
 * thread is below n, and at least one (which writes the result of a case
 * with no elements). A block past them holds no element, so its part of
 * the sum is +0, which the launcher accounts for without running it (the
 * shfl family); atomic-block's and int-atomic's grid, ceil(n / block) or
 * 1, is all of them. */
static inline uint32_t df_batch_blocks_holding(uint64_t n, const df_launch *l)
{
    const uint64_t holding = (n + l->block - 1) / l->block;
    return holding < 1 ? 1u : holding < l->grid ? (uint32_t)holding : l->grid;
}

/* The stream of a batch's group g (df_gpu_batch.side). */
static inline cudaStream_t df_batch_stream(const df_gpu_batch *bt, size_t g)
{
    return (cudaStream_t)(bt->nside ? bt->side[g % bt->nside] : bt->stream);
}

/* Launches kern<<<(x, y), block>>>(args...) on stream st; 0, or the error
 * with the launch named in bt->failed_call. */
template <typename... P, typename... X>
static int df_batch_launch(df_gpu_batch *bt, cudaStream_t st, const char *name,
                           void (*kern)(P...), dim3 grid, unsigned block, X... args)
{
    kern<<<grid, block, 0, st>>>(args...);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        bt->failed_call = name;
        return (int)e;
    }
    return 0;
}

/* One launch of kern per group, on the group's stream: the group's blocks
 * (df_gpu_batch_group.blocks) of its block size, each finding its case
 * among the group's (df_batch_case_here), kern(cases, count, args...).
 * Returns 0 or the first launch's error, named `name`. */
template <typename... P, typename... X>
static int df_batch_each_group(df_gpu_batch *bt, const char *name,
                               void (*kern)(df_gpu_batch_case *, size_t, P...), X... args)
{
    int rc = 0;
    for (size_t g = 0; rc == 0 && g < bt->ngroups; g++) {
        const df_gpu_batch_group *gr = &bt->groups[g];
        rc = df_batch_launch(bt, df_batch_stream(bt, g), name, kern, dim3(gr->blocks),
                             gr->block, bt->d_cases + gr->first, gr->count, args...);
    }
    return rc;
}

/* The case this block of a group's launch works for: the last of
 * cases[0 .. count) whose first_block <= blockIdx.x (they are in order of
 * first_block). Thread 0 searches and tells the block through shared
 * memory, so every thread of the block calls it. */
__device__ __forceinline__ df_gpu_batch_case *df_batch_case_here(df_gpu_batch_case *cases,
                                                                 size_t count)
{
    __shared__ size_t s_case;
    if (threadIdx.x == 0) {
        size_t lo = 0, hi = count;
        while (hi - lo > 1) {
            const size_t mid = lo + (hi - lo) / 2;
            if (cases[mid].first_block <= blockIdx.x)
                lo = mid;
            else
                hi = mid;
        }
        s_case = lo;
    }
    __syncthreads();
    return cases + s_case;
}

/* The result slot of case c in a batch's results (16 bytes a case). */
template <typename T>
__device__ __forceinline__ T *df_batch_result(char *results, const df_gpu_batch_case *c)
{
    return (T *)(results + (size_t)16 * c->result);
}

/* ---- kernels that add into one result word, a batch at a time ---- */

/* One block of such a kernel (atomic-block, int-atomic): block blk of its
 * case's own launch, which adds its part into the case's result word c
 * and reports soft errors into soft. Its kernel runs it with blockIdx.x,
 * df_word_batch_kernel with the block's number in its case. */
template <typename T>
using df_word_block = void (*)(const T *a, const T *b, T *c, unsigned long long n,
                               unsigned long long blk, df_soft_dev soft);

/* A group of a batch: each block runs as its block of its case's launch,
 * adding into the case's slot and reporting into the case's own set of
 * soft-error slots (set `result`); a report names the launch's block,
 * which the backend renumbers from the case's first_block. */
template <typename T, df_word_block<T> BLOCK>
__global__ void __launch_bounds__(1024)
df_word_batch_kernel(df_gpu_batch_case *cases, size_t count, char *results, df_soft_dev soft)
{
    const df_gpu_batch_case *c = df_batch_case_here(cases, count);
    BLOCK((const T *)c->a, (const T *)c->b, df_batch_result<T>(results, c), c->n,
          blockIdx.x - c->first_block, df_soft_dev_at(soft, c->result));
}

/* The batched launcher of a kernel that adds into one result word: one
 * launch per group. Each case's slot is zero on arrival (df_gpu_batch),
 * as df_enqueue_one_word zeroes the word of a case alone, and its blocks
 * are its whole grid (df_batch_blocks_holding), so each case's slot gets
 * the same block sums, added by the same atomics, as its own launch. */
template <typename T, df_word_block<T> BLOCK>
static int df_word_enqueue_batch(df_gpu_batch *bt, const char *name)
{
    return df_batch_each_group(bt, name, df_word_batch_kernel<T, BLOCK>, (char *)bt->d_results,
                               bt->soft);
}
#endif /* __CUDACC__ */

#endif
