/* tree_hostsum_model.h — the host model of `tree-hostsum` (seed 004; C11),
 * shared by kernels/tree_hostsum.cu and its mutants m-pow2-tree,
 * m-stride-off-by-one (kernels/mutants/tree_mutants.cu), m-rz-acc and
 * m-bf16-products (kernels/mutants/precision_mutants.cu): the GPU's
 * operations in its order, with the grid-stride step's extra (the
 * off-by-one mutant's bug; 0 for the others) and the arithmetic (the
 * precision mutants' bugs; float's, rounded to nearest, for the others)
 * as parameters.
 */
#ifndef DOTFUZZ_TREE_HOSTSUM_MODEL_H
#define DOTFUZZ_TREE_HOSTSUM_MODEL_H

#include <stdint.h>
#include <stdio.h>

#include "kernels/model_common.h"

/* The arithmetic of a tree-hostsum kernel: its product, and its addition
 * (every one: the per-thread chain, the block tree, the CPU's sum of the
 * partials). Called through pointers that the compiler resolves and
 * inlines where a model passes a constant. */
typedef struct df_tree_arith {
    float (*mul)(float x, float y);
    float (*add)(float x, float y);
} df_tree_arith;

static inline float df_tree_mul_rn(float x, float y) { return x * y; }
static inline float df_tree_add_rn(float x, float y) { return x + y; }

/* The parent's: float's product and sum, rounded to nearest. */
#define DF_TREE_RN ((df_tree_arith){df_tree_mul_rn, df_tree_add_rn})

/* The parent's tree height on a resolved launch, which its mutants'
 * descriptors name (df_launch_resolve runs before the oracle asks):
 * h = 1 + ceil(n / (grid * block)) + ceil(log2 block) + grid, the
 * product, the per-thread grid-stride chain, the tree levels, one host
 * addition per block. An unresolved launch gets the any-order bound. */
static inline uint64_t df_tree_mutant_height(uint64_t n, const df_launch *l)
{
    if (l->block == 0 || l->grid == 0)
        return n ? n : 1; /* unresolved launch: the any-order bound */
    uint64_t stride = (uint64_t)l->grid * l->block;
    return 1 + (n + stride - 1) / stride + df_ceil_log2_u64(l->block) + l->grid;
}

/* The parent's types and launch ranges, which its mutants keep (each
 * writes out its flags and names its tree height). */
#define DF_TREE_HOSTSUM_LAUNCH                                              \
    .elem = DF_F32, .acc = DF_F32, .block_min = 32, .block_max = 1024,      \
    .block_default = 256, .grid_max = 65535, .per_thread = 8, .max_n = 0

/* One block: thread t's grid-stride sum lands in cache[t] (walked chunk by
 * chunk so memory is read in order; each thread's additions keep their
 * order: thread t's j-th element is chunk j's t-th, chunk j starting at
 * blk * block + j * step), then the shared-memory tree, halving from
 * block / 2 whatever the block. */
static inline float df_tree_block_partial(const df_case *c, const df_launch *l,
                                          uint64_t blk, uint64_t step,
                                          df_tree_arith ar, float *cache)
{
    const float *a = c->a, *b = c->b;
    for (uint32_t t = 0; t < l->block; t++)
        cache[t] = 0.0f;
    for (uint64_t k = blk * l->block; k < c->n; k += step)
        for (uint32_t t = 0; t < l->block && k + t < c->n; t++)
            cache[t] = ar.add(cache[t], ar.mul(a[k + t], b[k + t]));
    for (uint32_t i = l->block / 2; i != 0; i /= 2)
        for (uint32_t t = 0; t < i; t++)
            cache[t] = ar.add(cache[t], cache[t + i]);
    return cache[0];
}

/* The model of k (tree-hostsum or one of its mutants): grid-stride step
 * grid * block + extra_step, then the CPU's sum of the block partials,
 * every product and sum in arithmetic ar. */
static inline int df_tree_hostsum_model(const df_kernel *k, const df_case *c,
                                        df_scratch *s, uint64_t extra_step,
                                        df_tree_arith ar, df_result *out)
{
    df_launch l;
    if (df_model_begin(k, c, &l, out) != 0)
        return -1;
    float *cache = df_scratch_reserve(s, (size_t)l.block * sizeof(float));
    if (!cache) {
        out->status = DF_RUN_ERROR;
        snprintf(out->err, sizeof out->err,
                 "%s model: out of memory for %u floats", k->name, l.block);
        return -1;
    }
    /* Blocks that start at or past n hold +0 (each thread starts at
     * blk * block + t), and ans + (+0) == ans bit for bit: ans starts at +0
     * and neither rounding to nearest nor toward zero (m-rz-acc) turns a
     * sum into -0 unless both addends are -0. So the model stops at the
     * first such block instead of adding grid - used zeros. */
    uint64_t step = (uint64_t)l.grid * l.block + extra_step;
    float ans = 0.0f;
    for (uint64_t blk = 0; blk < l.grid && blk * l.block < c->n; blk++)
        ans = ar.add(ans, df_tree_block_partial(c, &l, blk, step, ar, cache));
    out->f = ans;
    return 0;
}

#endif
