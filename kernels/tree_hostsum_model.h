/* tree_hostsum_model.h — the host model of `tree-hostsum` (seed 004; C11),
 * shared by kernels/tree_hostsum.cu and its mutants m-pow2-tree and
 * m-stride-off-by-one (kernels/mutants/tree_mutants.cu): the GPU's
 * operations in its order, with the grid-stride step's extra (the
 * off-by-one mutant's bug; 0 for the others) as a parameter.
 */
#ifndef DOTFUZZ_TREE_HOSTSUM_MODEL_H
#define DOTFUZZ_TREE_HOSTSUM_MODEL_H

#include <stdint.h>
#include <stdio.h>

#include "kernels/model_common.h"

/* One block: thread t's grid-stride sum lands in cache[t] (walked chunk by
 * chunk so memory is read in order; each thread's additions keep their
 * order: thread t's j-th element is chunk j's t-th, chunk j starting at
 * blk * block + j * step), then the shared-memory tree, halving from
 * block / 2 whatever the block. */
static inline float df_tree_block_partial(const df_case *c, const df_launch *l,
                                          uint64_t blk, uint64_t step,
                                          float *cache)
{
    const float *a = c->a, *b = c->b;
    for (uint32_t t = 0; t < l->block; t++)
        cache[t] = 0.0f;
    for (uint64_t k = blk * l->block; k < c->n; k += step)
        for (uint32_t t = 0; t < l->block && k + t < c->n; t++)
            cache[t] += a[k + t] * b[k + t];
    for (uint32_t i = l->block / 2; i != 0; i /= 2)
        for (uint32_t t = 0; t < i; t++)
            cache[t] += cache[t + i];
    return cache[0];
}

/* The model of k (tree-hostsum or one of its mutants): grid-stride step
 * grid * block + extra_step, then the CPU's sum of the block partials. */
static inline int df_tree_hostsum_model(const df_kernel *k, const df_case *c,
                                        df_scratch *s, uint64_t extra_step,
                                        df_result *out)
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
     * and round-to-nearest never turns a sum into -0 unless both addends
     * are -0. So the model stops at the first such block instead of adding
     * grid - used zeros. */
    uint64_t step = (uint64_t)l.grid * l.block + extra_step;
    float ans = 0.0f;
    for (uint64_t blk = 0; blk < l.grid && blk * l.block < c->n; blk++)
        ans += df_tree_block_partial(c, &l, blk, step, cache);
    out->f = ans;
    return 0;
}

#endif
