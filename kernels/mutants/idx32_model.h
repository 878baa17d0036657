/* idx32_model.h — the host side of `m-idx32` (kernels/mutants/index_mutants.cu;
 * C11): the tree height and the host model, every index through
 * df_idx32_element and the partials through the GPU finish's pairwise sum
 * (kernels/mutants/idx32.h).
 */
#ifndef DOTFUZZ_IDX32_MODEL_H
#define DOTFUZZ_IDX32_MODEL_H

#include <stdint.h>
#include <stdio.h>

#include "kernels/model_common.h"
#include "kernels/mutants/idx32.h"

/* h = 2 + ceil(log2 block) + ceil(log2 grid): the product (exact in double,
 * counted), the shared-memory tree, then the pairwise sum of grid block
 * partials (at most floor(log2 grid) + 1 additions on a chain). An
 * unresolved launch gets the any-order bound. */
static inline uint64_t df_idx32_height(uint64_t n, const df_launch *l)
{
    if (l->block == 0 || l->grid == 0)
        return n ? n : 1;
    return 2 + df_ceil_log2_u64(l->block) + df_ceil_log2_u64(l->grid);
}

/* The model of k (m-idx32): block by block, thread t's product in double
 * (exact: 24 + 24 bits) where df_idx32_element gives it an element, +0
 * where not; the halving tree over the block; the block partials summed
 * pairwise in block order, as the GPU half's finish sums them. */
static inline int df_idx32_model(const df_kernel *k, const df_case *c, df_scratch *s,
                                 df_result *out)
{
    df_launch l;
    if (df_model_begin(k, c, &l, out) != 0)
        return -1;
    double *cache = df_scratch_reserve(s, (size_t)l.block * sizeof(double));
    if (!cache) {
        out->status = DF_RUN_ERROR;
        snprintf(out->err, sizeof out->err, "%s model: out of memory for %u doubles", k->name,
                 l.block);
        return -1;
    }
    const float *a = c->a, *b = c->b;
    df_idx32_sum sum = {{0}, 0};
    for (uint64_t blk = 0; blk < l.grid; blk++) {
        for (uint32_t t = 0; t < l.block; t++) {
            int64_t i = df_idx32_element(blk * l.block + t, c->n);
            cache[t] = i >= 0 ? (double)a[i] * (double)b[i] : 0.0;
        }
        for (uint32_t h = l.block / 2; h != 0; h /= 2)
            for (uint32_t t = 0; t < h; t++)
                cache[t] += cache[t + h];
        df_idx32_sum_add(&sum, cache[0]);
    }
    out->f = df_idx32_sum_total(&sum);
    return 0;
}

#endif
