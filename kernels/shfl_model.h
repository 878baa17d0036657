/* shfl_model.h — the host model of the shfl kernels, written once and
 * compiled per element/accumulator type (C has no templates, and the model
 * must do its arithmetic in the accumulator's own type). Include it after
 * defining:
 *   SHFL_NAME          prefix of the functions it defines (shfl_f32)
 *   SHFL_ELEM          element type (float, double)
 *   SHFL_ACC           accumulator type (float, double)
 *   SHFL_TYPE          element type tag (DF_F32, DF_F64)
 *   SHFL_V             elements per 16-byte vector (4, 2)
 *   SHFL_FMA(x, y, z)  the kernel's fused multiply-add, x * y + z
 * It defines SHFL_NAME##_dot (the model's value) and SHFL_NAME##_model (the
 * descriptor's host_model), then undefines the parameters, so it can be
 * included again. It performs the operations of df_shfl_kernel
 * (kernels/shfl_common.h, which describes the order) in the same order:
 * warp by warp, so its 32 threads' accumulators walk memory in order, and
 * without touching the threads, warps and blocks that hold only +0 (their
 * totals are +0, which the model adds where the kernel adds them).
 * Stack only: 32 x V accumulators and the last block's 1024 sums.
 * It notes the kernel's soft errors (shfl_common.h) in its own order:
 * block by block, a warp's thread sums, then its tree, then the block's
 * tree over warps; then the last block's sums of partials and its tree.
 */
#if !defined(SHFL_NAME) || !defined(SHFL_ELEM) || !defined(SHFL_ACC) || \
    !defined(SHFL_TYPE) || !defined(SHFL_V) || !defined(SHFL_FMA)
#error "define SHFL_NAME, SHFL_ELEM, SHFL_ACC, SHFL_TYPE, SHFL_V and SHFL_FMA first"
#endif

#include <stdio.h>

#include "model_common.h"
#include "shfl_common.h"

#define SHFL_CAT2(x, y) x##y
#define SHFL_CAT(x, y) SHFL_CAT2(x, y)
#define SHFL_FN(suffix) SHFL_CAT(SHFL_NAME, suffix)

#ifndef DF_SHFL_MODEL_SOFT_DEFINED
#define DF_SHFL_MODEL_SOFT_DEFINED
/* Where a model's soft-error notes go, and what their indices need. */
typedef struct df_shfl_model_soft {
    df_result *out;
    const df_shfl_map *m;
    uint64_t n;
    uint32_t V;
} df_shfl_model_soft;

/* An addition of two finite values that gave Inf/NaN, in block blk's
 * thread thr, whose sum starts with global thread rep. */
static inline void df_shfl_model_note(const df_shfl_model_soft *ms, uint32_t blk, uint32_t thr,
                                      uint64_t rep, double value)
{
    df_soft_note(ms->out, DF_SOFT_NONFINITE, DF_SOFT_K_SHFL, __LINE__, blk, thr, 0,
                 df_shfl_first_elem(ms->m, ms->n, ms->V, rep), 0, value);
}

/* Where one tree of 32 lanes sits: lane l is thread thr0 + l of block blk,
 * and its sum starts with global thread rep0 + l * stride. */
typedef struct df_shfl_model_tree {
    uint32_t blk, thr0;
    uint64_t rep0, stride;
} df_shfl_model_tree;
#endif

/* The __shfl_down_sync tree as lane 0 sees it: at offset off, lane l < off
 * adds lane l + off. Lanes at or past off never reach lane 0. */
static SHFL_ACC SHFL_FN(_warp_tree)(SHFL_ACC x[DF_SHFL_WARP], const df_shfl_model_soft *ms,
                                     df_shfl_model_tree at)
{
    /* First the same additions on a copy without the checks, which the
     * compiler can vectorize: if every input and the sum are finite, no
     * addition gave Inf/NaN (every partial flows into lane 0, and a
     * non-finite value stays non-finite through an addition), so there is
     * nothing to note and the copy's sum is the result. */
    SHFL_ACC y[DF_SHFL_WARP];
    int finite = 1;
    for (unsigned l = 0; l < DF_SHFL_WARP; l++) {
        y[l] = x[l];
        finite &= isfinite(x[l]) != 0;
    }
    for (unsigned off = DF_SHFL_WARP / 2; off > 0; off /= 2)
        for (unsigned l = 0; l < off; l++)
            y[l] = y[l] + y[l + off];
    if (finite && isfinite(y[0]))
        return y[0];
    for (unsigned off = DF_SHFL_WARP / 2; off > 0; off /= 2)
        for (unsigned l = 0; l < off; l++) {
            SHFL_ACC r = x[l] + x[l + off];
            if (!isfinite(r) && isfinite(x[l]) && isfinite(x[l + off]))
                df_shfl_model_note(ms, at.blk, at.thr0 + l, at.rep0 + l * at.stride,
                                   (double)r);
            x[l] = r;
        }
    return x[0];
}

/* Warp 0's tree over the warp totals; warps past nwarps read as +0. Lane w
 * holds warp w's total, whose sum starts with thread base + 32 w stride. */
static SHFL_ACC SHFL_FN(_warps_tree)(SHFL_ACC wv[DF_SHFL_WARP], uint32_t nwarps,
                                      const df_shfl_model_soft *ms, uint32_t blk,
                                      uint64_t base, uint64_t stride)
{
    for (uint32_t w = nwarps; w < DF_SHFL_WARP; w++)
        wv[w] = (SHFL_ACC)0;
    df_shfl_model_tree at = {blk, 0, base, DF_SHFL_WARP * stride};
    return SHFL_FN(_warp_tree)(wv, ms, at);
}

/* Accumulators of the 32 threads base .. base + 31 after all their
 * elements, each accumulator in increasing element order. Compiled twice
 * on x86-64 (DF_MODEL_CLONES, model_common.h): with FMA instructions,
 * where SHFL_FMA is one instruction instead of a libm call, and for any
 * x86-64; both give the same bits (fma is correctly rounded either way). */
DF_MODEL_CLONES
static void SHFL_FN(_warp_accs)(const SHFL_ELEM *a, const SHFL_ELEM *b,
                                uint64_t n, const df_shfl_map *m, uint64_t base,
                                SHFL_ACC acc[DF_SHFL_WARP][SHFL_V])
{
    for (unsigned l = 0; l < DF_SHFL_WARP; l++)
        for (unsigned k = 0; k < SHFL_V; k++)
            acc[l][k] = (SHFL_ACC)0;
    const uint64_t T = m->threads;
    if (!m->vector) {
        unsigned k = 0; /* lane of row i0 / T */
        for (uint64_t i0 = base; i0 < n; i0 += T, k = (k + 1) % SHFL_V) {
            uint64_t lanes = df_shfl_min(DF_SHFL_WARP, n - i0);
            for (uint64_t l = 0; l < lanes; l++)
                acc[l][k] = SHFL_FMA(a[i0 + l], b[i0 + l], acc[l][k]);
        }
        return;
    }
    if (base == 0) /* head elements go to threads 0..head-1 (head < 32) */
        for (uint64_t j = 0; j < m->head; j++)
            acc[j][0] = SHFL_FMA(a[j], b[j], acc[j][0]);
    for (uint64_t v0 = base; v0 < m->nvec; v0 += T) {
        uint64_t lanes = df_shfl_min(DF_SHFL_WARP, m->nvec - v0);
        const SHFL_ELEM *pa = a + m->head + v0 * SHFL_V;
        const SHFL_ELEM *pb = b + m->head + v0 * SHFL_V;
        for (uint64_t l = 0; l < lanes; l++)
            for (unsigned k = 0; k < SHFL_V; k++)
                acc[l][k] = SHFL_FMA(pa[l * SHFL_V + k], pb[l * SHFL_V + k],
                                     acc[l][k]);
    }
    if (base == 0) /* tail elements go to threads 0..tail-1 too */
        for (uint64_t j = 0; j < m->tail; j++) {
            uint64_t i = m->head + m->nvec * SHFL_V + j;
            acc[j][0] = SHFL_FMA(a[i], b[i], acc[j][0]);
        }
}

/* A thread's lanes, pairwise: ((l0 + l1) + (l2 + l3)); written out for
 * the two widths there are, so the compiler unrolls it. */
static SHFL_ACC SHFL_FN(_lanes)(SHFL_ACC acc[SHFL_V])
{
#if SHFL_V == 4
    return (acc[0] + acc[1]) + (acc[2] + acc[3]);
#elif SHFL_V == 2
    return acc[0] + acc[1];
#else
    for (unsigned s = 1; s < SHFL_V; s *= 2)
        for (unsigned k = 0; k < SHFL_V; k += 2 * s)
            acc[k] = acc[k] + acc[k + s];
    return acc[0];
#endif
}

/* Block blk's partial, as its thread 0 writes it. */
static SHFL_ACC SHFL_FN(_block)(const SHFL_ELEM *a, const SHFL_ELEM *b,
                                uint64_t n, const df_shfl_map *m,
                                uint32_t block, uint32_t blk,
                                const df_shfl_model_soft *ms)
{
    SHFL_ACC acc[DF_SHFL_WARP][SHFL_V];
    SHFL_ACC x[DF_SHFL_WARP], wv[DF_SHFL_WARP];
    const uint32_t nwarps = block / DF_SHFL_WARP;
    for (uint32_t w = 0; w < nwarps; w++) {
        uint64_t base = (uint64_t)blk * block + (uint64_t)w * DF_SHFL_WARP;
        if (base >= m->active) {
            wv[w] = (SHFL_ACC)0; /* a warp of +0 sums to +0 */
            continue;
        }
        SHFL_FN(_warp_accs)(a, b, n, m, base, acc);
        int finite = 1;
        for (unsigned l = 0; l < DF_SHFL_WARP; l++) {
            x[l] = SHFL_FN(_lanes)(acc[l]);
            finite &= isfinite(x[l]) != 0;
        }
        for (unsigned l = 0; !finite && l < DF_SHFL_WARP; l++)
            if (!isfinite(x[l]) &&
                df_shfl_thread_finite(a, b, sizeof(SHFL_ELEM), n, m, SHFL_V, base + l))
                df_shfl_model_note(ms, blk, w * DF_SHFL_WARP + l, base + l, (double)x[l]);
        df_shfl_model_tree at = {blk, w * DF_SHFL_WARP, base, 1};
        wv[w] = SHFL_FN(_warp_tree)(x, ms, at);
    }
    return SHFL_FN(_warps_tree)(wv, nwarps, ms, blk, (uint64_t)blk * block, 1);
}

/* The kernel's result for a resolved launch (df_shfl_launch_ok(l)). */
static SHFL_ACC SHFL_FN(_dot)(const SHFL_ELEM *a, const SHFL_ELEM *b,
                              uint64_t n, const df_launch *l, df_result *out)
{
    df_shfl_map m;
    df_shfl_map_make(n, l, SHFL_V, &m);
    const df_shfl_model_soft ms = {out, &m, n, SHFL_V};
    const uint32_t block = l->block;
    /* the last block's per-thread sums: thread j adds partials j, j + block, ... */
    SHFL_ACC last[DF_SHFL_BLOCK_MAX];
    for (uint32_t j = 0; j < block; j++)
        last[j] = (SHFL_ACC)0;
    /* the blocks that hold elements: those whose first thread is below m.active */
    const uint64_t holding = (m.active + block - 1) / block;
    const uint32_t act = holding < l->grid ? (uint32_t)holding : l->grid;
    for (uint32_t blk = 0; blk < act; blk++) {
        const SHFL_ACC partial = SHFL_FN(_block)(a, b, n, &m, block, blk, &ms);
        const uint32_t j = blk % block; /* its sum starts with partial j */
        SHFL_ACC r = last[j] + partial;
        if (!isfinite(r) && isfinite(last[j]) && isfinite(partial))
            df_shfl_model_note(&ms, DF_SHFL_LAST_BLOCK, j, (uint64_t)j * block, (double)r);
        last[j] = r;
    }
    /* The others' partials are +0: last[j] + 0 is last[j] but for -0,
     * which becomes +0, once; no note (+0 is finite, and a non-finite
     * last[j] is not noted). So one pass over the residues the idle blocks
     * reach does what the kernel's up to 65535 additions do. */
    const uint32_t idle = l->grid - act < block ? l->grid - act : block, j0 = act % block;
    const uint32_t wrap = j0 + idle > block ? j0 + idle - block : 0;
    for (uint32_t j = j0; j < j0 + idle - wrap; j++) /* residues j0 .. j0 + idle - 1, */
        last[j] = last[j] + (SHFL_ACC)0;
    for (uint32_t j = 0; j < wrap; j++)              /* mod block */
        last[j] = last[j] + (SHFL_ACC)0;
    SHFL_ACC x[DF_SHFL_WARP], wv[DF_SHFL_WARP];
    const uint32_t nwarps = block / DF_SHFL_WARP;
    for (uint32_t w = 0; w < nwarps; w++) {
        for (unsigned j = 0; j < DF_SHFL_WARP; j++)
            x[j] = last[w * DF_SHFL_WARP + j];
        df_shfl_model_tree at = {DF_SHFL_LAST_BLOCK, w * DF_SHFL_WARP,
                                 (uint64_t)w * DF_SHFL_WARP * block, block};
        wv[w] = SHFL_FN(_warp_tree)(x, &ms, at);
    }
    return SHFL_FN(_warps_tree)(wv, nwarps, &ms, DF_SHFL_LAST_BLOCK, 0, block);
}

static int SHFL_FN(_model)(const df_case *c, df_scratch *scratch, df_result *out)
{
    (void)scratch;
    out->i = 0;
    out->f = 0.0;
    out->soft_mask = 0;
    if (c->type != SHFL_TYPE || !df_shfl_launch_ok(&c->launch)) {
        out->status = DF_RUN_ERROR;
        snprintf(out->err, sizeof out->err,
                 "shfl model: type %s, block %u, grid %u: needs %s, a block "
                 "that is a multiple of 32 in [32, 1024] and a grid in [1, %u]",
                 df_type_name(c->type), c->launch.block, c->launch.grid,
                 df_type_name(SHFL_TYPE), DF_SHFL_GRID_MAX);
        return -1;
    }
    out->f = (double)SHFL_FN(_dot)((const SHFL_ELEM *)c->a,
                                   (const SHFL_ELEM *)c->b, c->n, &c->launch, out);
    out->status = DF_RUN_OK;
    out->err[0] = '\0';
    return 0;
}

#undef SHFL_FN
#undef SHFL_CAT
#undef SHFL_CAT2
#undef SHFL_NAME
#undef SHFL_ELEM
#undef SHFL_ACC
#undef SHFL_TYPE
#undef SHFL_V
#undef SHFL_FMA
