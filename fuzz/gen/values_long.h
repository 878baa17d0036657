/* values_long.h — cases longer than DF_GEN_CHUNK made in chunks: the
 * plan of a case (its family's per-case draws and a key), each chunk from
 * a stream of its own, the finish over the whole case, and the one-thread
 * form of all three. */
#ifndef DOTFUZZ_VALUES_LONG_H
#define DOTFUZZ_VALUES_LONG_H

#include <stdint.h>
#include <string.h>

#include "fuzz/gen/values_base.h"
#include "fuzz/gen/values_cond.h"
#include "fuzz/gen/values_families.h"

/* A case longer than DF_GEN_CHUNK elements is made in three steps, so that
 * many threads (the pool's, or the GPU's) can make one case together:
 *   plan    the family's per-case draws from the case's value stream (as
 *           the short form's first draws, where it has them), then a key of
 *           two draws, high word first;
 *   chunks  chunk j, elements [j C, (j + 1) C) of the chunked span
 *           (C = DF_GEN_CHUNK; the span is the case, but for cond's bulk and
 *           cancel's pairs), from its own stream df_pcg32_seed(key, j): the
 *           elements in index order as the short form draws them, and for
 *           the shuffled families (cond; cancel three cases in four) then a
 *           Fisher-Yates over the chunk's pairs from the same stream;
 *   finish  from the value stream again, what is placed over the whole
 *           case: special's special values, sparse's pairs, cond's chain
 *           elements (from the chunks' exact sums, added in any order, and
 *           their G, added in chunk order) and cancel's small terms, each of
 *           the last two then swapped with the pair at a position drawn
 *           uniform over the case (in order; cancel only when shuffled).
 * The chunks are independent, so a case is the same bytes whichever
 * threads make them in whatever order. DF_GEN_CHUNK: generator.h. Pairs
 * move only within their chunk (65,536 elements), where the short form
 * moves them over the whole case; cond's chain and cancel's small terms
 * still land anywhere. Cases up to DF_GEN_CHUNK elements, every case of a
 * default run, are made whole by their family's df_fill_*. */
typedef struct df_vplan {
    uint32_t family;
    df_type type;
    uint64_t n, span, key;
    int64_t lo, hi, line; /* int ranges; wide-exp's window and line */
    double x, y;          /* constant's values; cond: the target, the sign */
    uint64_t pairs;       /* cancel */
    uint32_t octave;      /* cond */
    int32_t v, vs, top, shift, sign;
    int ints, shuffled;
} df_vplan;

/* One chunk's part of cond's exact bulk sum. */
typedef struct df_vchunk {
    df_cond_acc acc;
    double G;
} df_vchunk;

DF_VAL uint64_t df_vplan_chunks(const df_vplan *p)
{
    return (p->span + DF_GEN_CHUNK - 1) / DF_GEN_CHUNK;
}

/* Whether the chunks leave partial sums (df_vchunk) for the finish. */
DF_VAL int df_vplan_partials(const df_vplan *p) { return p->family == DF_FAM_COND; }

/* The plan of a case of n > DF_GEN_CHUNK elements: the family's per-case
 * draws from r, then the key. Returns 0, or -1 for an unknown family. */
DF_VAL int df_values_plan(uint32_t family, df_pcg32 *r, df_type t, uint64_t n, df_vplan *p)
{
    memset(p, 0, sizeof *p);
    p->family = family;
    p->type = t;
    p->n = n;
    p->span = n;
    switch (family) {
    case DF_FAM_INT_SMALL:
    case DF_FAM_UNIFORM:
    case DF_FAM_SPARSE:
    case DF_FAM_FEW_TERMS:
    case DF_FAM_INT_FACTOR:
        break;
    case DF_FAM_INT_WIDE:
        p->hi = (int64_t)1 << df_pcg32_range(r, 7, 24);
        p->lo = -p->hi;
        break;
    case DF_FAM_COND: {
        double c = df_cond_target(r, t, n, &p->octave);
        p->x = c < 2.5 ? 2.5 : c;
        p->span = n - df_cond_steps(t, p->octave);
        p->y = df_cond_bulk_sign(r, n, p->octave, &p->top, &p->shift);
        break;
    }
    case DF_FAM_WIDE_EXP:
        df_wide_exp_window(r, t, &p->lo, &p->hi);
        p->line = df_wide_exp_line(t, n);
        break;
    case DF_FAM_SPECIAL:
        p->ints = (int)df_pcg32_bounded(r, 2);
        break;
    case DF_FAM_CONSTANT:
        df_constant_values(r, t, n, &p->x, &p->y);
        break;
    case DF_FAM_CANCEL: {
        p->ints = t == DF_I32 || df_pcg32_bounded(r, 2);
        p->v = t == DF_I32 ? df_i32_bound(n) : 50;
        p->vs = p->v < 3 ? p->v : 3;
        uint64_t small = 1 + df_pcg32_bounded(r, 4);
        p->pairs = (n - small) / 2;
        p->span = 2 * p->pairs;
        p->shuffled = df_pcg32_bounded(r, 4) != 0;
        break;
    }
    case DF_FAM_INT_BIG:
        p->sign = df_pcg32_bounded(r, 2) ? -1 : 1;
        break;
    default:
        return -1;
    }
    p->key = df_pcg32_u64(r);
    return 0;
}

/* Chunk j of p's case into a and b (the whole case's vectors); out gets
 * cond's partial sums (df_vplan_partials), and is not touched otherwise. */
DF_VAL_HOST_HOT void df_values_chunk(const df_vplan *p, void *a, void *b, uint64_t j,
                                     df_vchunk *out)
{
    df_type t = p->type;
    uint64_t i0 = j * DF_GEN_CHUNK, i1 = df_min_u64(p->span, i0 + DF_GEN_CHUNK);
    size_t es = df_val_size(t);
    unsigned char *ca = (unsigned char *)a + i0 * es, *cb = (unsigned char *)b + i0 * es;
    df_pcg32 r;
    df_pcg32_seed(&r, p->key, j);
    switch (p->family) {
    case DF_FAM_SPECIAL:
        if (!p->ints) {
            df_fill_uniform(&r, t, ca, cb, i1 - i0);
            break;
        }
        /* fall through */
    case DF_FAM_INT_SMALL:
        df_fill_int_small(&r, t, ca, cb, i1 - i0);
        break;
    case DF_FAM_UNIFORM:
        df_fill_uniform(&r, t, ca, cb, i1 - i0);
        break;
    case DF_FAM_INT_WIDE:
        df_fill_ints(&r, t, ca, i1 - i0, p->lo, p->hi);
        df_fill_ints(&r, t, cb, i1 - i0, p->lo, p->hi);
        break;
    case DF_FAM_COND:
        memset(&out->acc, 0, sizeof out->acc);
        out->G = df_cond_bulk_range(&r, t, a, b, i0, i1, p->top, p->shift, p->y, &out->acc);
        break;
    case DF_FAM_WIDE_EXP:
        df_wide_exp_range(&r, t, a, b, i0, i1, p->lo, p->hi, p->line);
        break;
    case DF_FAM_SPARSE:
    case DF_FAM_FEW_TERMS:
        memset(ca, 0, (size_t)(i1 - i0) * es);
        memset(cb, 0, (size_t)(i1 - i0) * es);
        break;
    case DF_FAM_INT_FACTOR:
        df_int_factor_range(&r, a, b, i0, i1);
        break;
    case DF_FAM_CONSTANT:
        df_constant_range(t, a, b, i0, i1, p->x, p->y);
        break;
    case DF_FAM_CANCEL: /* DF_GEN_CHUNK is even: a chunk holds whole pairs */
        df_cancel_pairs(&r, t, a, b, i0 / 2, i1 / 2, p->ints, p->v);
        break;
    case DF_FAM_INT_BIG:
        df_int_big_range(&r, a, b, i0, i1, p->sign);
        break;
    }
    if (p->family == DF_FAM_COND || p->shuffled)
        df_val_shuffle_pairs(&r, t, ca, cb, i1 - i0);
}


/* Pair i swapped with a pair drawn uniform over the case. */
DF_VAL void df_swap_far(df_pcg32 *r, df_type t, void *a, void *b, uint64_t i, uint64_t n)
{
    uint64_t j = df_draw_uniform_u64(r, 0, n - 1);
    if (df_val_size(t) == 4) {
        uint32_t *x = (uint32_t *)a, *y = (uint32_t *)b, s;
        s = x[i], x[i] = x[j], x[j] = s;
        s = y[i], y[i] = y[j], y[j] = s;
    } else {
        uint64_t *x = (uint64_t *)a, *y = (uint64_t *)b, s;
        s = x[i], x[i] = x[j], x[j] = s;
        s = y[i], y[i] = y[j], y[j] = s;
    }
}

/* The finish of p's case, its chunks made, from r (the value stream after
 * the plan); acc and G: the chunks' partial sums merged (cond only). */
DF_VAL void df_values_finish(const df_vplan *p, df_pcg32 *r, void *a, void *b, df_cond_acc *acc,
                             double G)
{
    df_type t = p->type;
    uint64_t n = p->n;
    switch (p->family) {
    case DF_FAM_SPECIAL:
        df_special_tail(r, t, a, b, n);
        break;
    case DF_FAM_SPARSE:
        df_sparse_tail(r, t, a, b, n);
        break;
    case DF_FAM_FEW_TERMS:
        df_few_terms_tail(r, t, a, b, n);
        break;
    case DF_FAM_INT_FACTOR:
        df_int_factor_tail(r, a, b, n);
        break;
    case DF_FAM_COND:
        for (uint64_t i = p->span; i < n; i++)
            G = df_cond_step(r, t, a, b, i, n - i, p->x, acc, G);
        for (uint64_t i = p->span; i < n; i++)
            df_swap_far(r, t, a, b, i, n);
        break;
    case DF_FAM_CANCEL:
        df_cancel_small(r, t, a, b, p->span, n, p->ints, p->vs);
        for (uint64_t i = p->span; p->shuffled && i < n; i++)
            df_swap_far(r, t, a, b, i, n);
        break;
    }
}

/* The finish of p's case from its chunks' partial sums ch (one a chunk;
 * read only where df_vplan_partials): the exact sums merged in any order,
 * G in chunk order, then df_values_finish. For chunks made apart. */
DF_VAL void df_values_finish_parts(const df_vplan *p, df_pcg32 *r, void *a, void *b,
                                   const df_vchunk *ch)
{
    df_cond_acc acc;
    double G = 0;
    memset(&acc, 0, sizeof acc);
    for (uint64_t j = 0; df_vplan_partials(p) && j < df_vplan_chunks(p); j++) {
        df_cond_acc_merge(&acc, &ch[j].acc);
        G += ch[j].G;
    }
    df_values_finish(p, r, a, b, &acc, G);
}

/* A long case made by one thread: plan, chunks in order, finish. */
DF_VAL int df_fill_long(uint32_t family, df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    df_vplan p;
    if (df_values_plan(family, r, t, n, &p) != 0)
        return -1;
    df_cond_acc acc;
    df_vchunk ch;
    double G = 0;
    memset(&acc, 0, sizeof acc);
    for (uint64_t j = 0; j < df_vplan_chunks(&p); j++) {
        df_values_chunk(&p, a, b, j, &ch);
        if (df_vplan_partials(&p)) {
            df_cond_acc_merge(&acc, &ch.acc);
            G += ch.G;
        }
    }
    df_values_finish(&p, r, a, b, &acc, G);
    return 0;
}

#endif
