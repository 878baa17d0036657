/* atomic_block_model.h — the host model of `atomic-block` (seed 000; C11),
 * shared by kernels/atomic_block.cu and its mutants
 * (kernels/mutants/atomic_block_mutants.cu): the tree height, the launch
 * ranges, and the sum in one valid block order, with how far past n a
 * thread reads as a parameter.
 */
#ifndef DOTFUZZ_ATOMIC_BLOCK_MODEL_H
#define DOTFUZZ_ATOMIC_BLOCK_MODEL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernels/model_common.h"

/* h = 1 + block + max(1, ceil(n / block)): the product, then block
 * additions in thread 0's serial loop, then one atomic add per block into
 * the result (grid = ceil(n / block) blocks, at least one). An unresolved
 * launch (block 0) gets the any-order bound, max(n, 1). */
static inline uint64_t df_atomic_block_height(uint64_t n, const df_launch *l)
{
    if (l->block == 0)
        return n ? n : 1; /* unresolved launch: the any-order bound */
    uint64_t grid = (n + l->block - 1) / l->block;
    if (grid == 0)
        grid = 1;
    return 1 + (uint64_t)l->block + grid;
}

/* The parent's traits and launch ranges (its flags are written out); its
 * descriptor names the tree height itself. */
#define DF_ATOMIC_BLOCK_RANGES                                               \
    .elem = DF_F32, .acc = DF_F32, .block_min = 1, .block_max = 1024,       \
    .block_default = 1024 /* the seed's MAX_THREADS_PER_BLOCK */,           \
    .grid_max = 0, .per_thread = 1, .max_n = 0

/* The mutants' (kernels/mutants/atomic_block_mutants.cu): the parent's
 * ranges and its tree height. */
#define DF_ATOMIC_BLOCK_LAUNCH                                               \
    DF_ATOMIC_BLOCK_RANGES, .tree_height = df_atomic_block_height

/* Float atomicAdd on global memory always runs in flush-to-zero mode: PTX
 * atom.add.f32 flushes subnormal inputs and results to sign-preserving zero,
 * whatever -ftz says. The block's serial sum (plain fadd, no -ftz) keeps
 * subnormals. */
static inline float df_flush_subnormal(float x)
{
    return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x;
}

/* Whether the products of the block starting at element first are all
 * finite (a non-finite block sum from them is a soft error). */
static inline bool df_atomic_block_products_finite(const df_case *c, uint64_t first,
                                                   uint32_t block)
{
    const float *a = c->a, *b = c->b;
    for (uint64_t i = first; i < c->n && i < first + block; i++)
        if (!isfinite(a[i] * b[i]))
            return false;
    return true;
}

/* Thread 0's serial sum of block blk's products (thread t takes element
 * blk block + t when it is below reads, else 0). */
static inline float df_atomic_block_partial(const df_case *c, uint64_t blk, uint32_t block,
                                            uint64_t reads)
{
    const float *a = c->a, *b = c->b;
    float sum = 0.0f;
    for (uint32_t t = 0; t < block; t++) {
        uint64_t i = blk * block + t;
        sum += i < reads ? a[i] * b[i] : 0.0f;
    }
    return sum;
}

/* The GPU adds block sums in whatever order blocks finish; the model takes
 * blocks 0..grid-1, one valid order among them. Thread i takes its product
 * for i < reads (n for the parent; a mutant may read past n, into the
 * guard), 0 past it. soft: note a block sum that is Inf/NaN from finite
 * products, as the parent's kernel reports it (the report is per block, so
 * its order does not matter). */
static inline int df_atomic_block_sum(const df_kernel *k, const df_case *c, uint64_t reads,
                                      bool soft, df_result *out)
{
    df_launch l;
    if (df_model_begin(k, c, &l, out) != 0)
        return -1;
    float result = 0.0f; /* the launcher's cudaMemsetAsync */
    for (uint64_t blk = 0; blk < l.grid; blk++) {
        float sum = df_atomic_block_partial(c, blk, l.block, reads);
        if (soft && !isfinite(sum) && df_atomic_block_products_finite(c, blk * l.block, l.block))
            df_soft_note(out, DF_SOFT_NONFINITE, DF_SOFT_K_ATOMIC_BLOCK, __LINE__,
                         (uint32_t)blk, 0, 0, blk * l.block, 0, (double)sum);
        result = df_flush_subnormal(df_flush_subnormal(result) + df_flush_subnormal(sum));
    }
    out->f = result;
    return 0;
}

#endif
