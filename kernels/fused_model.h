/* fused_model.h — the host model of a kernel whose whole arithmetic is its
 * fused declaration (df_kernel.fused, fused_chains, fused_promote; C11):
 * the tensor-core dots' models are this and nothing else.
 *
 * Chain r takes groups r, r + C, r + 2C, ... of k products (C chains, k
 * the model's group; a group past n is padded with zeros, as the kernels
 * pad their tiles), each group a fused step (reference/fused_dot.h) whose
 * c is the chain so far. One chain is the result as the chain leaves it;
 * several are added in float, in chain order, from 0. A promoting kernel
 * (one chain) starts its chain again from 0 every fused_promote products
 * and adds each block's chain into a float total, from 0, to nearest.
 * Over low-precision data a chain's steps are reference/fused_lowp.c's
 * (df_fused_chain_lowp): df_fused_group's, bit for bit, in exact integer
 * steps where they apply.
 */
#ifndef DOTFUZZ_FUSED_MODEL_H
#define DOTFUZZ_FUSED_MODEL_H

#include <stdint.h>

#include "kernels/model_common.h"
#include "reference/fused_dot.h"

/* One chain of c: groups first, first + stride, ... up to (not past) end
 * products, from 0. */
static inline double df_fused_chain(const df_fused_model *m, const df_case *c,
                                    uint64_t first, uint64_t stride, uint64_t end)
{
    if (df_type_is_lowp(c->type)) /* the same steps, in integers where exact */
        return df_fused_chain_lowp(m, c->type, c->a, c->b, c->n, first, stride, end);
    double a[64], b[64], acc = 0.0;
    uint64_t g = m->group;
    for (uint64_t base = first; base < end; base += stride) {
        for (uint64_t i = 0; i < g; i++) {
            uint64_t j = base + i;
            a[i] = j < c->n ? df_elem_as_double(c->type, c->a, j) : 0.0;
            b[i] = j < c->n ? df_elem_as_double(c->type, c->b, j) : 0.0;
        }
        acc = df_fused_group(m, acc, a, b, g);
    }
    return acc;
}

/* Kernel k's chains and promotion (see above) with the arithmetic of m,
 * over case c: m is k->fused for a kernel that does what it declares, the
 * arithmetic it really does for a mutant that declares more. Returns 0,
 * or -1 with out an error when c does not fit k. */
static inline int df_model_fused_as(const df_kernel *k, const df_fused_model *m,
                                    const df_case *c, df_result *out)
{
    df_launch l;
    if (df_model_begin(k, c, &l, out) != 0)
        return -1;
    uint64_t chains = k->fused_chains ? k->fused_chains : 1, g = m->group;
    if (g == 0 || g > 64) {
        snprintf(out->err, sizeof out->err, "%s model: group of %u products", k->name,
                 (unsigned)g);
        out->status = DF_RUN_ERROR;
        return -1;
    }
    if (k->fused_promote) { /* one chain, restarted every fused_promote products */
        float total = 0.0f;
        for (uint64_t start = 0; start < c->n; start += k->fused_promote) {
            uint64_t end = start + k->fused_promote;
            total += (float)df_fused_chain(m, c, start, g, end < c->n ? end : c->n);
        }
        out->f = total;
    } else if (chains == 1) {
        out->f = (float)df_fused_chain(m, c, 0, g, c->n);
    } else {
        float sum = 0.0f;
        for (uint64_t r = 0; r < chains; r++)
            sum += (float)df_fused_chain(m, c, r * g, chains * g, c->n);
        out->f = sum;
    }
    return 0;
}

/* k's fused declaration evaluated over case c. */
static inline int df_model_fused(const df_kernel *k, const df_case *c, df_result *out)
{
    return df_model_fused_as(k, k->fused, c, out);
}

#endif
