/* model_common.h — what the host halves of the seed kernels share (C11):
 * the start of a host model (result cleared, the case's type and launch
 * checked), and the parts of seed 003's two models (fold, tournament) that
 * are the same: the tree height of a sum with one addition per round, and
 * launch 0, the products, into scratch.
 */
#ifndef DOTFUZZ_MODEL_COMMON_H
#define DOTFUZZ_MODEL_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kernel.h"

/* Clears out and resolves c's launch for k into l. Returns 0, or -1 with
 * out an error when c does not hold k's element type or the launch is not
 * valid for k. */
static inline int df_model_begin(const df_kernel *k, const df_case *c,
                                 df_launch *l, df_result *out)
{
    char why[112];
    memset(out, 0, sizeof *out);
    *l = c->launch;
    if (c->type != k->elem) {
        snprintf(out->err, sizeof out->err,
                 "%s model: needs %s data, case is %s", k->name,
                 df_type_name(k->elem), df_type_name(c->type));
    } else if (df_launch_resolve(k, c->n, l, why, sizeof why) != 0) {
        snprintf(out->err, sizeof out->err, "%s model: %s", k->name, why);
    } else {
        return 0;
    }
    out->status = DF_RUN_ERROR;
    return -1;
}

/* ---- seed 003: fold and tournament ---- */

/* Both: the product, then one addition per round into cell 0, and there
 * are ceil(log2 n) rounds. */
static inline uint64_t df_model_rounds_height(uint64_t n, const df_launch *l)
{
    (void)l;
    return n <= 1 ? 1 : 1 + df_ceil_log2_u64(n);
}

/* The descriptor fields both share: any block up to 1024 (a round spreads
 * over as many threads as it has pairs), the grid of launch 0 derived from
 * n (one product per thread), the debug-mode invariant check. */
#define DF_ROUNDS_LAUNCH                                                    \
    .flags = DF_K_DETERMINISTIC | DF_K_DEBUG_INVARIANTS, .block_min = 1,    \
    .block_max = 1024, .block_default = 256, .grid_max = 0,                 \
    .per_thread = 1, .max_n = 0, .tree_height = df_model_rounds_height

/* Launch 0 of both, for n >= 1: A[i] = a[i]*b[i] in scratch. Returns A, or
 * NULL with out an error (named after k). */
static inline float *df_model_products(const df_kernel *k, const df_case *c,
                                       df_scratch *s, df_result *out)
{
    float *A = NULL;
    if (c->n > SIZE_MAX / sizeof(float)) {
        snprintf(out->err, sizeof out->err, "%s model: n = %llu too large",
                 k->name, (unsigned long long)c->n);
    } else if (!(A = df_scratch_reserve(s, c->n * sizeof(float)))) {
        snprintf(out->err, sizeof out->err,
                 "%s model: out of memory for %llu floats", k->name,
                 (unsigned long long)c->n);
    } else {
        const float *a = c->a, *b = c->b;
        for (uint64_t i = 0; i < c->n; i++)
            A[i] = a[i] * b[i];
        return A;
    }
    out->status = DF_RUN_ERROR;
    return NULL;
}

#endif
