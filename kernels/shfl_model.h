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
 * (kernels/shfl_common.h, which describes the order) in the same order,
 * a tile of blocks at a time, skipping threads, warps and blocks of only +0
 * (their totals are +0, added where the kernel adds them). Stack only.
 * It notes the kernel's soft errors (shfl_common.h) in its own order:
 * block by block, a warp's thread sums, then its tree, then the block's
 * tree over warps; then the last block's sums of partials and its tree;
 * it checks only where a sum came out Inf/NaN (see _block_fast).
 */
#if !defined(SHFL_NAME) || !defined(SHFL_ELEM) || !defined(SHFL_ACC) || \
    !defined(SHFL_TYPE) || !defined(SHFL_V) || !defined(SHFL_FMA)
#error "define SHFL_NAME, SHFL_ELEM, SHFL_ACC, SHFL_TYPE, SHFL_V and SHFL_FMA first"
#endif

#include <stdio.h>

#include "kernels/model_common.h"
#include "kernels/shfl_common.h"

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
    int fast; /* 1: skip the checks where a sum is finite; 0: check all (tests) */
} df_shfl_model_soft;

/* An addition of two finite values that gave Inf/NaN, in block blk's
 * thread thr, whose sum starts with global thread rep. */
static inline void df_shfl_model_note(const df_shfl_model_soft *ms, uint32_t blk, uint32_t thr,
                                      uint64_t rep, double value)
{
    df_soft_note(ms->out, DF_SOFT_NONFINITE, DF_SOFT_K_SHFL, __LINE__, blk, thr, 0,
                 df_shfl_first_elem(ms->m, ms->n, ms->V, rep), 0, value);
}

/* (A report carries the line of df_soft_note's call above, and corpora keep
 * it: moving that line changes the notes of saved findings.) */

/* Where one tree of 32 lanes sits: lane l is thread thr0 + l of block blk,
 * and its sum starts with global thread rep0 + l * stride. */
typedef struct df_shfl_model_tree {
    uint32_t blk, thr0;
    uint64_t rep0, stride;
} df_shfl_model_tree;

/* Inlined even where the compiler would rather call: the fast helpers run
 * in _dot, which is compiled twice (DF_MODEL_CLONES), and a call from its
 * x86-64-v3 clone to an out-of-line helper would run generic x86-64 code
 * (fmaf a libm call, 4 floats a vector). */
#if defined(__GNUC__)
#define DF_SHFL_INLINE static inline __attribute__((always_inline))
#else
#define DF_SHFL_INLINE static inline
#endif
#endif

/* ---- The fast path: the kernel's operations without the soft-error checks.
 * Every value the model computes flows into the result through additions
 * and fmas (a thread's lanes into its sum, each sum into lane 0 of its
 * warp's tree, each warp total into its block's partial, each partial into
 * the last block's sums and tree), and Inf/NaN stays Inf/NaN through both.
 * So a finite block partial means that no step of that block gave Inf/NaN
 * and there is nothing to note: _dot computes each block with _block_fast
 * (from its tile's accumulators, _tile_accs) and only a non-finite partial
 * (Inf/NaN data, overflow: rare) again with the checked _block, which
 * notes the block's soft errors in their order and gives the same value.
 * The fast helpers are written for the vectorizer: loops of constant
 * length. */

/* One level of the shuffle tree: lane l < off adds lane l + off. */
DF_SHFL_INLINE void SHFL_FN(_level_fast)(SHFL_ACC *y, unsigned off)
{
    for (unsigned l = 0; l < off; l++)
        y[l] = y[l] + y[l + off];
}

/* _warp_tree's sum, unchecked; each level a loop of constant length (off
 * is a constant once inlined), so a few vector additions. */
DF_SHFL_INLINE SHFL_ACC SHFL_FN(_tree_fast)(const SHFL_ACC x[DF_SHFL_WARP])
{
    SHFL_ACC y[DF_SHFL_WARP / 2];
    for (unsigned l = 0; l < DF_SHFL_WARP / 2; l++)
        y[l] = x[l] + x[l + DF_SHFL_WARP / 2];
    SHFL_FN(_level_fast)(y, 8);
    SHFL_FN(_level_fast)(y, 4);
    SHFL_FN(_level_fast)(y, 2);
    SHFL_FN(_level_fast)(y, 1);
    return y[0];
}

/* Tiles: the fast path takes the active threads a run of whole blocks
 * at a time, DF_SHFL_TILE accumulators' worth (block * V <= 4096 of them
 * per block), and streams each grid-stride row's piece for those threads
 * as one contiguous run (32 KB of floats from each vector, rows apart),
 * which the prefetchers can follow; the accumulators stay in a stack
 * array. A warp at a time, a row's piece would be 512 bytes of each
 * vector, a page apart once the grid holds 256 threads: many long cases
 * modelled at once then thrash the host's memory (tools/host_mem.c
 * measures it). A tile whose threads take one vector each is summed a
 * warp at a time from the data (_warp_one), which is faster for it than
 * the tile. */
#ifndef DF_SHFL_TILE
#define DF_SHFL_TILE 8192u
#endif
/* Elements of a run the vectorizer takes whole: a constant trip count. */
#define DF_SHFL_RUN 64u

/* acc[i] = fma(pa[i], pb[i], acc[i]) for i < len, in whole runs; from
 * acc[i] = +0 instead where first (the accumulators' first element: the
 * same fma, without clearing them before). */
DF_SHFL_INLINE void SHFL_FN(_fma_run)(SHFL_ACC *restrict acc, const SHFL_ELEM *restrict pa,
                                      const SHFL_ELEM *restrict pb, uint64_t len, int first)
{
    uint64_t i = 0;
    if (first) {
        for (; i + DF_SHFL_RUN <= len; i += DF_SHFL_RUN)
            for (unsigned u = 0; u < DF_SHFL_RUN; u++)
                acc[i + u] = SHFL_FMA(pa[i + u], pb[i + u], (SHFL_ACC)0);
        for (; i < len; i++)
            acc[i] = SHFL_FMA(pa[i], pb[i], (SHFL_ACC)0);
        return;
    }
    for (; i + DF_SHFL_RUN <= len; i += DF_SHFL_RUN)
        for (unsigned u = 0; u < DF_SHFL_RUN; u++)
            acc[i + u] = SHFL_FMA(pa[i + u], pb[i + u], acc[i + u]);
    for (; i < len; i++)
        acc[i] = SHFL_FMA(pa[i], pb[i], acc[i]);
}

/* The accumulators of threads t0 .. t1 - 1 (t1 <= m->active) after all
 * their elements, unchecked, each in increasing index order (head, the
 * body's rows, tail: the vector path; rows: the scalar path), as
 * _warp_accs. Vector path: thread t's V lanes side by side at (t - t0) V;
 * scalar path: lane k of the tile's threads side by side at k S + (t - t0),
 * S = DF_SHFL_TILE / V. The lanes of the threads from t1 to the next
 * multiple of 32 past t0 are +0 (they take no element). An accumulator's
 * first element starts it from +0 (_fma_run); only what no first row
 * reaches is cleared. */
DF_SHFL_INLINE void SHFL_FN(_tile_accs)(const SHFL_ELEM *a, const SHFL_ELEM *b, uint64_t n,
                                        const df_shfl_map *m, uint64_t t0, uint64_t t1,
                                        SHFL_ACC acc[DF_SHFL_TILE])
{
    const uint64_t T = m->threads, w = t1 - t0;
    const uint64_t w32 = df_shfl_ceil_div(w, DF_SHFL_WARP) * DF_SHFL_WARP;
    if (!m->vector) {
        /* row i0 / T goes to lane (i0 / T) % V: rows 0 .. V - 1 start the lanes */
        const uint64_t S = DF_SHFL_TILE / SHFL_V;
        unsigned k = 0;
        uint64_t i0 = t0;
        for (; k < SHFL_V; i0 += T, k++) {
            const uint64_t len = i0 < n ? df_shfl_min(w, n - i0) : 0;
            SHFL_FN(_fma_run)(acc + k * S, a + (i0 < n ? i0 : 0), b + (i0 < n ? i0 : 0),
                              len, 1);
            for (uint64_t j = len; j < w32; j++)
                acc[k * S + j] = (SHFL_ACC)0;
        }
        for (k = 0; i0 < n; i0 += T, k = (k + 1) % SHFL_V)
            SHFL_FN(_fma_run)(acc + k * S, a + i0, b + i0, df_shfl_min(w, n - i0), 0);
        return;
    }
    uint64_t v0 = t0, from = 0; /* acc[from ..] not yet started */
    if (t0 >= m->head && v0 < m->nvec) { /* body row 0 starts its threads' lanes */
        from = df_shfl_min(w, m->nvec - v0) * SHFL_V;
        SHFL_FN(_fma_run)(acc, a + m->head + v0 * SHFL_V, b + m->head + v0 * SHFL_V, from, 1);
        v0 += T;
    }
    for (uint64_t i = from; i < w32 * SHFL_V; i++)
        acc[i] = (SHFL_ACC)0;
    for (uint64_t j = t0; j < m->head && j < t1; j++) /* head: thread j, lane 0 */
        acc[(j - t0) * SHFL_V] = SHFL_FMA(a[j], b[j], acc[(j - t0) * SHFL_V]);
    for (; v0 < m->nvec; v0 += T)
        SHFL_FN(_fma_run)(acc, a + m->head + v0 * SHFL_V, b + m->head + v0 * SHFL_V,
                          df_shfl_min(w, m->nvec - v0) * SHFL_V, 0);
    for (uint64_t j = t0; j < m->tail && j < t1; j++) { /* tail: thread j, lane 0 */
        const uint64_t i = m->head + m->nvec * SHFL_V + j;
        acc[(j - t0) * SHFL_V] = SHFL_FMA(a[i], b[i], acc[(j - t0) * SHFL_V]);
    }
}

/* The sums (lanes pairwise, as _lanes) of the 32 threads from t0 + off,
 * out of _tile_accs's layout. */
DF_SHFL_INLINE void SHFL_FN(_tile_warp)(const SHFL_ACC *acc, int vector,
                                        uint64_t off, SHFL_ACC x[DF_SHFL_WARP])
{
    if (vector) {
        const SHFL_ACC *t = acc + off * SHFL_V;
        for (unsigned l = 0; l < DF_SHFL_WARP; l++) {
#if SHFL_V == 4
            x[l] = (t[4 * l] + t[4 * l + 1]) + (t[4 * l + 2] + t[4 * l + 3]);
#elif SHFL_V == 2
            x[l] = t[2 * l] + t[2 * l + 1];
#else
#error "the fast path knows V = 2 and V = 4 (see _lanes)"
#endif
        }
        return;
    }
    const uint64_t S = DF_SHFL_TILE / SHFL_V;
    const SHFL_ACC *t = acc + off;
    for (unsigned l = 0; l < DF_SHFL_WARP; l++) {
#if SHFL_V == 4
        x[l] = (t[l] + t[S + l]) + (t[2 * S + l] + t[3 * S + l]);
#else
        x[l] = t[l] + t[S + l];
#endif
    }
}

/* The sums of `live` (<= 32) threads that take one body vector each and
 * nothing else, their vectors from pa and pb (vector path), into x; the
 * warp's other lanes +0. Their lanes never leave this function: no tile. */
DF_SHFL_INLINE void SHFL_FN(_warp_one)(const SHFL_ELEM *pa, const SHFL_ELEM *pb, uint64_t live,
                                       SHFL_ACC x[DF_SHFL_WARP])
{
    SHFL_ACC v[DF_SHFL_WARP * SHFL_V];
    if (live == DF_SHFL_WARP) {
        for (unsigned i = 0; i < DF_SHFL_WARP * SHFL_V; i++)
            v[i] = SHFL_FMA(pa[i], pb[i], (SHFL_ACC)0);
    } else {
        for (unsigned i = 0; i < DF_SHFL_WARP * SHFL_V; i++)
            v[i] = i < live * SHFL_V ? SHFL_FMA(pa[i], pb[i], (SHFL_ACC)0) : (SHFL_ACC)0;
    }
    SHFL_FN(_tile_warp)(v, 1, 0, x);
}

/* The sums of the 32 threads from `base` (below m->active) out of the
 * tile that starts with thread t0: its accumulators, or where every thread
 * of the tile takes one body vector and nothing else (one: _warp_one), the
 * vectors of thread t0 on, pa and pb. */
DF_SHFL_INLINE void SHFL_FN(_tile_sums)(const SHFL_ACC *acc, uint64_t t0,
                                        const df_shfl_map *m, uint64_t base, int one,
                                        const SHFL_ELEM *pa, const SHFL_ELEM *pb,
                                        SHFL_ACC x[DF_SHFL_WARP])
{
    const uint64_t off = base - t0;
    if (one)
        SHFL_FN(_warp_one)(pa + off * SHFL_V, pb + off * SHFL_V,
                           df_shfl_min(DF_SHFL_WARP, m->active - base), x);
    else
        SHFL_FN(_tile_warp)(acc, m->vector, off, x);
}

/* Block blk's partial, unchecked, from the accumulators of the tile that
 * starts with thread t0, or where every thread of the tile takes one body
 * vector and nothing else (one: _warp_one), from the vectors of thread t0
 * on, pa and pb; warps from m->active on hold +0. */
DF_SHFL_INLINE SHFL_ACC SHFL_FN(_block_fast)(const SHFL_ACC *acc, uint64_t t0,
                                             const df_shfl_map *m, uint32_t block,
                                             uint32_t blk, int one, const SHFL_ELEM *pa,
                                             const SHFL_ELEM *pb)
{
    SHFL_ACC x[DF_SHFL_WARP], wv[DF_SHFL_WARP];
    const uint64_t first = (uint64_t)blk * block; /* below m->active */
    const uint64_t busy = df_shfl_min(block / DF_SHFL_WARP,
                                      df_shfl_ceil_div(m->active - first, DF_SHFL_WARP));
    for (uint32_t w = 0; w < DF_SHFL_WARP; w++)
        wv[w] = (SHFL_ACC)0;
    for (uint32_t w = 0; w < busy; w++) {
        SHFL_FN(_tile_sums)(acc, t0, m, first + (uint64_t)w * DF_SHFL_WARP, one, pa, pb, x);
        wv[w] = SHFL_FN(_tree_fast)(x);
    }
    return SHFL_FN(_tree_fast)(wv);
}

/* ---- The checked path: the same operations, each checked and noted. */

/* The __shfl_down_sync tree as lane 0 sees it: at offset off, lane l < off
 * adds lane l + off. Lanes at or past off never reach lane 0. Out of line:
 * _warp_tree calls it only for a non-finite sum. */
static SHFL_ACC SHFL_FN(_warp_tree_checked)(SHFL_ACC x[DF_SHFL_WARP],
                                             const df_shfl_model_soft *ms,
                                             df_shfl_model_tree at)
{
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

/* The tree with its checks, which only a non-finite sum needs: every lane
 * flows into lane 0, so a finite sum means no addition gave Inf/NaN. */
DF_SHFL_INLINE SHFL_ACC SHFL_FN(_warp_tree)(SHFL_ACC x[DF_SHFL_WARP],
                                            const df_shfl_model_soft *ms,
                                            df_shfl_model_tree at)
{
    if (ms->fast) {
        const SHFL_ACC y = SHFL_FN(_tree_fast)(x);
        if (isfinite(y))
            return y;
    }
    return SHFL_FN(_warp_tree_checked)(x, ms, at);
}

/* Warp 0's tree over the warp totals; warps past nwarps read as +0. Lane w
 * holds warp w's total, whose sum starts with thread base + 32 w stride. */
DF_SHFL_INLINE SHFL_ACC SHFL_FN(_warps_tree)(SHFL_ACC wv[DF_SHFL_WARP], uint32_t nwarps,
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

/* Where _block takes its threads' sums: from the data (_warp_accs, the
 * checked path), or from the fast path's tile that starts with thread t0
 * (its accumulators, or where every thread takes one body vector, one, the
 * vectors pa and pb from thread t0 on), the same operations in the same
 * order, for each warp whose sums are all finite: a block whose fast
 * partial is not finite is then summed from its data again only in the
 * warps that hold an Inf or NaN (a grid of one block of Inf/NaN data at
 * n = 2^26 had taken ten times the fast model). A NaN's sign and payload
 * depend on which operand the instruction takes first, which the
 * vectorized tile need not share with the checked path's loop. */
typedef struct SHFL_FN(_sums) {
    int tile; /* 0: from the data */
    const SHFL_ACC *acc;
    uint64_t t0;
    int one;
    const SHFL_ELEM *pa, *pb;
} SHFL_FN(_sums);

/* Block blk's partial, as its thread 0 writes it, with its checks. */
static SHFL_ACC SHFL_FN(_block)(const SHFL_ELEM *a, const SHFL_ELEM *b,
                                uint64_t n, const df_shfl_map *m,
                                uint32_t block, uint32_t blk,
                                const df_shfl_model_soft *ms, const SHFL_FN(_sums) *from)
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
        int finite = from->tile;
        if (from->tile)
            SHFL_FN(_tile_sums)(from->acc, from->t0, m, base, from->one, from->pa, from->pb, x);
        for (unsigned l = 0; from->tile && l < DF_SHFL_WARP; l++)
            finite &= isfinite(x[l]) != 0;
        if (!finite) { /* from the data: a NaN's sign and payload as the checked path's */
            SHFL_FN(_warp_accs)(a, b, n, m, base, acc);
            finite = 1;
            for (unsigned l = 0; l < DF_SHFL_WARP; l++) {
                x[l] = SHFL_FN(_lanes)(acc[l]);
                finite &= isfinite(x[l]) != 0;
            }
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

/* The kernel's result for a resolved launch (df_shfl_launch_ok(l)), its
 * soft errors noted in out; fast = 0 checks every step (for the tests,
 * which compare the two). Compiled twice (DF_MODEL_CLONES): the x86-64-v3
 * clone's fast path has fma as one instruction and 8 floats a vector. */
DF_MODEL_CLONES
static SHFL_ACC SHFL_FN(_dot)(const SHFL_ELEM *a, const SHFL_ELEM *b,
                              uint64_t n, const df_launch *l, df_result *out, int fast)
{
    df_shfl_map m;
    df_shfl_map_make(n, l, SHFL_V, &m);
    const df_shfl_model_soft ms = {out, &m, n, SHFL_V, fast != 0};
    const uint32_t block = l->block;
    /* the blocks that hold elements: those whose first thread is below m.active */
    const uint64_t holding = (m.active + block - 1) / block;
    const uint32_t act = holding < l->grid ? (uint32_t)holding : l->grid;
    /* The last block's per-thread sums: thread j adds partials j, j +
     * block, ... Partials from act on are +0, so the sums from j = act on
     * stay +0 (+0 + +0 is +0): only the first `live` can be anything else,
     * and the warps past them total +0 without their trees (no note: +0 is
     * finite). The fast path leaves the rest out; fast = 0 does it all. */
    const uint32_t live = fast && act < block ? act : block;
    const uint32_t lwarps = (live + DF_SHFL_WARP - 1) / DF_SHFL_WARP;
    SHFL_ACC last[DF_SHFL_BLOCK_MAX];
    for (uint32_t j = 0; j < lwarps * DF_SHFL_WARP; j++)
        last[j] = (SHFL_ACC)0;
    SHFL_ACC tile[DF_SHFL_TILE];
    const uint32_t per_tile = DF_SHFL_TILE / (block * SHFL_V); /* >= 1 */
    for (uint32_t b0 = 0; b0 < act; b0 += per_tile) {
        const uint32_t b1 = act - b0 < per_tile ? act : b0 + per_tile;
        const uint64_t t0 = (uint64_t)b0 * block;
        const uint64_t t1 = df_shfl_min((uint64_t)b1 * block, m.active);
        /* every thread of the tile one body vector, no head or tail element */
        const int one = m.vector && t0 >= m.head && t0 >= m.tail && t0 + m.threads >= m.nvec &&
                        t1 <= m.nvec;
        const SHFL_ELEM *pa = one ? a + m.head + t0 * SHFL_V : a;
        const SHFL_ELEM *pb = one ? b + m.head + t0 * SHFL_V : b;
        if (fast && !one)
            SHFL_FN(_tile_accs)(a, b, n, &m, t0, t1, tile);
        for (uint32_t blk = b0; blk < b1; blk++) {
            SHFL_ACC partial =
                fast ? SHFL_FN(_block_fast)(tile, t0, &m, block, blk, one, pa, pb) : NAN;
            if (!isfinite(partial)) { /* there may be soft errors to note */
                const SHFL_FN(_sums) from = {fast, tile, t0, one, pa, pb};
                partial = SHFL_FN(_block)(a, b, n, &m, block, blk, &ms, &from);
            }
            const uint32_t j = blk % block; /* its sum starts with partial j */
            SHFL_ACC r = last[j] + partial;
            if (!isfinite(r) && isfinite(last[j]) && isfinite(partial))
                df_shfl_model_note(&ms, DF_SHFL_LAST_BLOCK, j, (uint64_t)j * block,
                                   (double)r);
            last[j] = r;
        }
    }
    /* The others' partials are +0: last[j] + 0 is last[j] but for -0,
     * which becomes +0, once; no note (+0 is finite, and a non-finite
     * last[j] is not noted). So one pass over the residues the idle blocks
     * reach does what the kernel's up to 65535 additions do. */
    const uint32_t idle = l->grid - act < block ? l->grid - act : block, j0 = act % block;
    const uint32_t wrap = j0 + idle > block ? j0 + idle - block : 0;
    for (uint32_t j = j0; j < j0 + idle - wrap && j < live; j++) /* residues j0 .. */
        last[j] = last[j] + (SHFL_ACC)0;
    for (uint32_t j = 0; j < wrap && j < live; j++) /* .. j0 + idle - 1, mod block */
        last[j] = last[j] + (SHFL_ACC)0;
    SHFL_ACC x[DF_SHFL_WARP], wv[DF_SHFL_WARP];
    const uint32_t nwarps = block / DF_SHFL_WARP;
    for (uint32_t w = 0; w < nwarps; w++) {
        if (w >= lwarps) {
            wv[w] = (SHFL_ACC)0;
            continue;
        }
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
                                   (const SHFL_ELEM *)c->b, c->n, &c->launch, out, 1);
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
