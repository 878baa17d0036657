/* values_lanes.h — a whole case made by W lanes together (a GPU warp), with
 * the bytes its family's df_fill_* gives on one thread.
 *
 * A lane-made family is, on one thread: a few per-case draws (the plan),
 * then one or two passes of items (an element, or a pair a and b at one
 * index) in index order, each taking the same number of draws D but where
 * a bounded draw rejects (df_bounded32_draw: a draw in bound / 2^32 at
 * most, 2^-7 for int-wide's widest span, 2^-16 or less for the others'
 * bounds), then a short tail (special values, sparse pairs, cancel's small
 * terms) drawn last. Every family has one. The lanes make a pass in
 * rounds: from the round's state s, lane L makes item k0 + L from s jumped
 * L D steps ahead
 * (df_pcg32_jump_of); its item is the one-thread item when every lane
 * before it took exactly D draws, which it knows by comparing its end with
 * s jumped (L + 1) D. The round keeps its items up to the first lane that
 * took more (that lane's item is right: it started in the right place);
 * the next round starts after it, from its end state, and makes the items
 * after it again. The plan and the tail run as on one thread.
 *
 * cond's bulk pairs are items too, their products added into its exact
 * sum (order-free) by every lane; its G (a rounded sum in index order,
 * whose terms a GPU warp loads together: df_lanes_cond_term) and its chain
 * are its tail, on one lane. cond, cancel and lp-cancel end with
 * a Fisher-Yates over the whole case's pairs, after their tail (whose
 * last draw says, for cancel and lp-cancel, whether). A shuffle's draws
 * are lane-made (df_lanes_shuffle: one draw a step, j for step n - 1 - k as
 * item k) and its swaps then made in order (df_lanes_shuffle_apply), on a
 * copy in a GPU block's shared memory, or in rounds of reservations
 * (below). df_lanes_fill is the lanes looped on one thread, for the tests;
 * cuda_devgen.cu runs them as a warp. */
#ifndef DOTFUZZ_VALUES_LANES_H
#define DOTFUZZ_VALUES_LANES_H

#include <stdint.h>
#include <string.h>

#include "fuzz/gen/values_base.h"
#include "fuzz/gen/values_cond.h"
#include "fuzz/gen/values_families.h"
#include "fuzz/gen/values_lowp.h"

enum {
    DF_LI_ZERO,       /* a[k] = b[k] = +0 */
    DF_LI_CONSTANT,   /* a[k] = x, b[k] = y */
    DF_LI_INTS,       /* v[k] = lo + [0, bound) */
    DF_LI_UNIFORM,    /* v[k] uniform in [-50, 50) */
    DF_LI_WIDE_EXP,   /* pair k of wide-exp */
    DF_LI_INT_BIG,    /* pair k of int-big */
    DF_LI_INT_FACTOR, /* pair k of int-factor's small factors */
    DF_LI_LP_RANGE,   /* pair k of lp-range */
    DF_LI_LP_SUB,     /* pair k of lp-subnormal (a: the low vector) */
    DF_LI_SHUFFLE,    /* ((uint16_t *)a)[k]: the draw of Fisher-Yates's step m - k */
    DF_LI_COND0,      /* cond's bulk pair 0 (at the top exponent: no draw for it) */
    DF_LI_COND,       /* cond's bulk pair 1 + k */
    DF_LI_CANCEL,     /* cancel's pair k (elements 2k, 2k + 1) */
    DF_LI_LP_CANCEL   /* lp-cancel's pair k */
};

/* One pass: m items of one kind, `draws` draws each (D). */
typedef struct df_lanes_pass {
    uint32_t kind, draws;
    uint64_t m;
    void *a, *b;     /* the vectors (one-vector kinds write a) */
    df_bounded32 bd; /* INTS, WIDE_EXP, LP_*: the bounded draw */
    int64_t lo;      /* INTS, WIDE_EXP, LP_RANGE: the low end; INT_BIG: the sign */
    int64_t line;    /* WIDE_EXP */
    double x, y;     /* CONSTANT */
    int32_t top, shift, same; /* COND*: the bulk's exponents and sign; CANCEL: same is ints,
                                 top v */
    double sgn;
    df_cond_acc *acc;  /* COND*: the exact sum the products go into */
} df_lanes_pass;

/* A case's lane form: its passes, in order, then its tail. */
typedef struct df_lanes_plan {
    uint32_t family;
    df_type t;
    uint64_t n;
    void *a, *b;
    int passes;
    df_lanes_pass pass[2];
    int shuffles;      /* a shuffle of the pairs follows the tail (set by the plan or the tail) */
    uint64_t bulk, steps; /* cond: the bulk's pairs, then the chain's; cancel, lp-cancel:
                             the pairs' elements (bulk), then the small terms' */
    int32_t ints, vs;  /* cancel's small terms */
    uint32_t slo;      /* lp-cancel's small terms' field */
    double c;          /* cond: the target */
    df_cond_acc *acc;
} df_lanes_plan;

/* Whether family's cases of type t are made by lanes (df_lanes_plan). */
DF_VAL int df_lanes_take(uint32_t family, df_type t)
{
    switch (family) {
    case DF_FAM_INT_SMALL:
    case DF_FAM_UNIFORM:
    case DF_FAM_WIDE_EXP:
    case DF_FAM_SPECIAL:
    case DF_FAM_SPARSE:
    case DF_FAM_CONSTANT:
    case DF_FAM_INT_BIG:
    case DF_FAM_FEW_TERMS:
    case DF_FAM_INT_FACTOR:
    case DF_FAM_LP_RANGE:
    case DF_FAM_LP_SUBNORMAL:
    case DF_FAM_LP_SPECIAL:
    case DF_FAM_COND:
    case DF_FAM_CANCEL:
    case DF_FAM_LP_CANCEL:
        return 1;
    case DF_FAM_INT_WIDE: /* f32 and f64: spans up to 2^25 */
        return t == DF_F32 || t == DF_F64;
    default:
        return 0;
    }
}

DF_VAL df_lanes_pass df_lanes_pass_of(uint32_t kind, uint32_t draws, uint64_t m, void *a,
                                      void *b)
{
    df_lanes_pass q;
    memset(&q, 0, sizeof q);
    q.kind = kind;
    q.draws = draws;
    q.m = m;
    q.a = a;
    q.b = b;
    return q;
}

/* The two passes of df_fill_ints(a) then df_fill_ints(b) over [lo, hi]
 * (narrow: not df_ints_wide). */
DF_VAL void df_lanes_ints(df_lanes_plan *p, int64_t lo, int64_t hi)
{
    for (int v = 0; v < 2; v++) {
        df_lanes_pass *q = &p->pass[p->passes++];
        *q = df_lanes_pass_of(DF_LI_INTS, 1, p->n, v ? p->b : p->a, NULL);
        q->lo = lo;
        q->bd = df_bounded32_make((uint32_t)((uint64_t)hi - (uint64_t)lo + 1));
    }
}

DF_VAL void df_lanes_uniform(df_lanes_plan *p)
{
    uint32_t d = p->t == DF_F32 ? 1 : 2; /* df_pcg32_float, df_pcg32_double */
    p->pass[p->passes++] = df_lanes_pass_of(DF_LI_UNIFORM, d, p->n, p->a, NULL);
    p->pass[p->passes++] = df_lanes_pass_of(DF_LI_UNIFORM, d, p->n, p->b, NULL);
}

/* cond's plan: the target and the bulk's sign (df_fill_cond_pairs's first
 * draws), pair 0, the other pairs; the chain and the shuffle after them. */
DF_VAL void df_lanes_cond(df_lanes_plan *p, df_pcg32 *r, uint32_t mant)
{
    uint32_t octave;
    double c = df_cond_target(r, p->t, p->n, &octave);
    p->c = c < 2.5 ? 2.5 : c;
    if (p->n == 0)
        return;
    p->steps = p->n == 1 ? 0 : df_cond_steps(p->t, octave);
    p->bulk = p->n - p->steps; /* at least 1: the octave's cap */
    p->shuffles = p->n > 1;
    int top, shift;
    double sgn = df_cond_bulk_sign(r, p->n, octave, &top, &shift);
    for (int i = 0; i < 2; i++) {
        df_lanes_pass *q = &p->pass[p->passes++];
        *q = i == 0 ? df_lanes_pass_of(DF_LI_COND0, 2 * mant, 1, p->a, p->b)
                    : df_lanes_pass_of(DF_LI_COND, 1 + 2 * mant, p->bulk - 1, p->a, p->b);
        q->top = top;
        q->shift = shift;
        q->same = sgn != 0;
        q->sgn = sgn;
        q->acc = p->acc;
        q->bd = df_bounded32_make((uint32_t)top + 1);
    }
}

/* cancel's plan (df_fill_cancel_pairs's first draws) and lp-cancel's
 * (df_lp_cancel_shape): the pairs a pass, the small terms and the draw
 * that says whether they are shuffled the tail. */
DF_VAL void df_lanes_cancel(df_lanes_plan *p, df_pcg32 *r, uint32_t mant)
{
    if (p->n == 0)
        return;
    df_lanes_pass *q = &p->pass[p->passes++];
    uint64_t pairs;
    if (p->family == DF_FAM_LP_CANCEL) {
        uint32_t lo;
        df_bounded32 window;
        pairs = df_lp_cancel_shape(r, p->t, p->n, &lo, &window, &p->slo);
        *q = df_lanes_pass_of(DF_LI_LP_CANCEL, 4, pairs, p->a, p->b);
        q->lo = lo;
        q->bd = window;
    } else {
        int ints;
        int32_t v;
        pairs = df_cancel_shape(r, p->t, p->n, &ints, &v, &p->vs);
        p->ints = ints;
        /* x and y: a bounded draw each (ints) or an exponent and a
         * significand; then the flip */
        *q = df_lanes_pass_of(DF_LI_CANCEL, ints ? 3 : 2 * (1 + mant) + 1, pairs, p->a, p->b);
        q->same = ints;
        q->top = v;
    }
    p->bulk = 2 * pairs;
}

/* The plan of family's case of n elements of type t into a and b: its
 * per-case draws from r, as its df_fill_* makes them, and its passes;
 * acc (cond's exact sum) zeroed by the caller, who adds nothing else to it
 * meanwhile. Returns 0, or -1 for a family (or type) without a lane form. */
DF_VAL int df_lanes_plan_make(uint32_t family, df_pcg32 *r, df_type t, void *a, void *b,
                              uint64_t n, df_cond_acc *acc, df_lanes_plan *p)
{
    if (!df_lanes_take(family, t))
        return -1;
    memset(p, 0, sizeof *p);
    p->family = family;
    p->t = t;
    p->n = n;
    p->a = a;
    p->b = b;
    p->acc = acc;
    uint32_t mant = t == DF_F32 ? 1 : 2; /* df_draw_mant's draws */
    switch (family) {
    case DF_FAM_COND:
        df_lanes_cond(p, r, mant);
        break;
    case DF_FAM_CANCEL:
    case DF_FAM_LP_CANCEL:
        df_lanes_cancel(p, r, mant);
        break;
    case DF_FAM_INT_SMALL:
        df_lanes_ints(p, -50, 50);
        break;
    case DF_FAM_UNIFORM:
        df_lanes_uniform(p);
        break;
    case DF_FAM_INT_WIDE: {
        int64_t span = (int64_t)1 << df_pcg32_range(r, 7, 24);
        df_lanes_ints(p, -span, span);
        break;
    }
    case DF_FAM_WIDE_EXP: {
        int64_t lo, hi;
        df_wide_exp_window(r, t, &lo, &hi);
        df_lanes_pass *q = &p->pass[p->passes++];
        *q = df_lanes_pass_of(DF_LI_WIDE_EXP, 2 + 2 * mant, n, a, b);
        q->lo = lo;
        q->line = df_wide_exp_line(t, n);
        q->bd = df_bounded32_make((uint32_t)(hi - lo + 1));
        break;
    }
    case DF_FAM_SPECIAL:
        if (df_pcg32_bounded(r, 2))
            df_lanes_ints(p, -50, 50);
        else
            df_lanes_uniform(p);
        break;
    case DF_FAM_SPARSE:
    case DF_FAM_FEW_TERMS:
        p->pass[p->passes++] = df_lanes_pass_of(DF_LI_ZERO, 0, n, a, b);
        break;
    case DF_FAM_CONSTANT: {
        df_lanes_pass *q = &p->pass[p->passes++];
        *q = df_lanes_pass_of(DF_LI_CONSTANT, 0, n, a, b);
        df_constant_values(r, t, n, &q->x, &q->y);
        break;
    }
    case DF_FAM_INT_BIG: {
        df_lanes_pass *q = &p->pass[p->passes++];
        *q = df_lanes_pass_of(DF_LI_INT_BIG, 2, n, a, b);
        q->lo = df_pcg32_bounded(r, 2) ? -1 : 1; /* the sign */
        break;
    }
    case DF_FAM_INT_FACTOR:
        p->pass[p->passes++] = df_lanes_pass_of(DF_LI_INT_FACTOR, 2, n, a, b);
        break;
    case DF_FAM_LP_RANGE:
    case DF_FAM_LP_SPECIAL: {
        uint32_t lo, hi;
        df_lp_window(r, df_lp_top_field(t, n), &lo, &hi);
        df_lanes_pass *q = &p->pass[p->passes++];
        *q = df_lanes_pass_of(DF_LI_LP_RANGE, 4, n, a, b);
        q->lo = lo;
        q->bd = df_lp_fields(lo, hi);
        break;
    }
    case DF_FAM_LP_SUBNORMAL: {
        int swap = (int)df_pcg32_bounded(r, 2);
        df_lanes_pass *q = &p->pass[p->passes++];
        *q = df_lanes_pass_of(DF_LI_LP_SUB, 5, n, swap ? b : a, swap ? a : b);
        q->bd = df_lp_fields(0, df_lp_top_field(t, n));
        break;
    }
    }
    return 0;
}

/* v added into cond's exact sum by one of many lanes at once (atomically
 * on the device). The additions' count (pending) is left alone: a case
 * of up to DF_GEN_CHUNK elements makes far fewer than the
 * DF_COND_ACC_CARRY_EVERY that would carry, so no carry is due. */
#if defined(__CUDA_ARCH__)
#define DF_ACC_ADD(p, v) ((void)atomicAdd((unsigned long long *)(p), (unsigned long long)(v)))
#else
#define DF_ACC_ADD(p, v) ((void)(*(p) += (v)))
#endif
DF_VAL_HOT void df_lanes_acc_add(df_cond_acc *acc, double v)
{
    uint32_t idx;
    int64_t d[3];
    if (!df_cond_acc_digits(v, &idx, d))
        return;
    DF_ACC_ADD(&acc->c[idx], d[0]);
    DF_ACC_ADD(&acc->c[idx + 1], d[1]);
    DF_ACC_ADD(&acc->c[idx + 2], d[2]);
}

/* Item k of pass q from r (at the item's place in the stream). */
DF_VAL_HOT void df_lanes_item(const df_lanes_pass *q, df_type t, df_pcg32 *r, uint64_t k)
{
    switch (q->kind) {
    case DF_LI_ZERO:
        df_put_int(t, q->a, k, 0); /* +0: sparse and few-terms are f32, f64, i32 */
        df_put_int(t, q->b, k, 0);
        break;
    case DF_LI_CONSTANT:
        df_constant_range(t, q->a, q->b, k, k + 1, q->x, q->y);
        break;
    case DF_LI_INTS:
        df_put_int(t, q->a, k, df_int_draw(r, q->lo, &q->bd));
        break;
    case DF_LI_UNIFORM:
        if (t == DF_F32)
            ((float *)q->a)[k] = df_uniform_f32(r);
        else
            ((double *)q->a)[k] = df_uniform_f64(r);
        break;
    case DF_LI_WIDE_EXP:
        df_wide_exp_pair(r, t, q->a, q->b, k, q->lo, &q->bd, q->line);
        break;
    case DF_LI_INT_BIG:
        df_int_big_pair(r, (int32_t *)q->a, (int32_t *)q->b, k, (int32_t)q->lo);
        break;
    case DF_LI_INT_FACTOR:
        df_int_factor_pair(r, (int32_t *)q->a, (int32_t *)q->b, k);
        break;
    case DF_LI_LP_RANGE:
        df_lp_range_pair(r, t, q->a, q->b, k, (uint32_t)q->lo, &q->bd);
        break;
    case DF_LI_LP_SUB:
        df_lp_subnormal_pair(r, t, q->a, q->b, k, &q->bd);
        break;
    case DF_LI_SHUFFLE:
        ((uint16_t *)q->a)[k] = (uint16_t)df_val_shuffle_draw(r, q->m - k);
        break;
    case DF_LI_COND0:
    case DF_LI_COND: {
        uint64_t i = q->kind == DF_LI_COND0 ? 0 : 1 + k;
        int e = (i == 0 ? q->top : (int)df_bounded32_draw(r, &q->bd)) - q->shift;
        double x, y;
        df_cond_bulk_pair(r, t, q->a, q->b, i, e, q->same, q->sgn, &x, &y);
        double p = x * y, err = fma(x, y, -p); /* TwoProduct, as df_cond_acc_add_product */
        df_lanes_acc_add(q->acc, p);
        df_lanes_acc_add(q->acc, err);
        break;
    }
    case DF_LI_CANCEL:
        df_cancel_pairs(r, t, q->a, q->b, k, k + 1, q->same, q->top);
        break;
    case DF_LI_LP_CANCEL:
        df_lp_cancel_pair(r, t, q->a, q->b, k, (uint32_t)q->lo, &q->bd);
        break;
    }
}

/* The draws of df_val_shuffle_pairs over n pairs (n <= 65,536: each fits
 * 16 bits) as a pass into js (n - 1 of them, none for n <= 1). */
DF_VAL df_lanes_pass df_lanes_shuffle(uint16_t *js, uint64_t n)
{
    return df_lanes_pass_of(DF_LI_SHUFFLE, 1, n > 1 ? n - 1 : 0, js, NULL);
}

/* The swaps of df_val_shuffle_pairs over n pairs of es-byte elements with
 * its draws js (df_lanes_shuffle's), in its order (shuffle.h's). */
DF_VAL void df_lanes_shuffle_apply(void *a, void *b, size_t es, uint64_t n, const uint16_t *js)
{
    uint64_t m = n > 1 ? n - 1 : 0;
    if (es == 1) {
        DF_SHUFFLE_SWAPS(uint8_t, (uint8_t *)a, (uint8_t *)b, m, js, m)
    } else if (es == 2) {
        DF_SHUFFLE_SWAPS(uint16_t, (uint16_t *)a, (uint16_t *)b, m, js, m)
    } else if (es == 4) {
        DF_SHUFFLE_SWAPS(uint32_t, (uint32_t *)a, (uint32_t *)b, m, js, m)
    } else {
        DF_SHUFFLE_SWAPS(uint64_t, (uint64_t *)a, (uint64_t *)b, m, js, m)
    }
}

/* cond's bulk pair i's term of G: its product's magnitude, again from its
 * stored values (the drawn ones), as df_cond_bulk_range takes it. */
DF_VAL double df_lanes_cond_term(const df_lanes_plan *p, uint64_t i)
{
    return fabs(df_val_elem(p->t, p->a, i) * df_val_elem(p->t, p->b, i));
}

/* cond's tail from G, the bulk's terms summed in index order as
 * df_cond_bulk_range sums them (on the GPU by the warp: cuda_devgen.cu):
 * the chain's pairs. */
DF_VAL void df_lanes_cond_chain(const df_lanes_plan *p, df_pcg32 *r, double G)
{
    for (uint64_t k = 0; k < p->steps; k++)
        G = df_cond_step(r, p->t, p->a, p->b, p->bulk + k, p->steps - k, p->c, p->acc, G);
}

/* cond's tail on one thread: G, then the chain. */
DF_VAL void df_lanes_cond_tail(const df_lanes_plan *p, df_pcg32 *r)
{
    double G = 0;
    for (uint64_t i = 0; i < p->bulk; i++)
        G += df_lanes_cond_term(p, i);
    df_lanes_cond_chain(p, r, G);
}

/* The tail of p's case from r, after its passes: as its df_fill_* ends
 * but a shuffle, which p->shuffles then says follows. */
DF_VAL void df_lanes_tail(df_lanes_plan *p, df_pcg32 *r)
{
    switch (p->family) {
    case DF_FAM_COND: df_lanes_cond_tail(p, r); break;
    case DF_FAM_CANCEL:
        if (p->n) {
            df_cancel_small(r, p->t, p->a, p->b, p->bulk, p->n, p->ints, p->vs);
            p->shuffles = df_pcg32_bounded(r, 4) != 0 && p->n > 1;
        }
        break;
    case DF_FAM_LP_CANCEL:
        if (p->n)
            p->shuffles = df_lp_cancel_small(r, p->t, p->a, p->b, p->bulk, p->n, p->slo) &&
                          p->n > 1;
        break;
    case DF_FAM_SPECIAL: df_special_tail(r, p->t, p->a, p->b, p->n); break;
    case DF_FAM_SPARSE: df_sparse_tail(r, p->t, p->a, p->b, p->n); break;
    case DF_FAM_FEW_TERMS: df_few_terms_tail(r, p->t, p->a, p->b, p->n); break;
    case DF_FAM_INT_FACTOR: df_int_factor_tail(r, p->a, p->b, p->n); break;
    case DF_FAM_LP_SPECIAL: df_lp_special_tail(r, p->t, p->a, p->b, p->n); break;
    }
}

/* ---- the shuffle's swaps by many threads --------------------------------- */

/* Deterministic reservations (Shun, Gu, Blelloch, Fineman and Gibbons,
 * "Sequential random permutation, list contraction and tree contraction
 * are highly parallel", SODA 2015): in rounds, every step k of the
 * shuffle not yet made (step i = n - 1 - k swaps pairs i and js[k])
 * reserves its two places in R, the earliest step in Fisher-Yates's order
 * (the largest i) winning a place; a step that holds both makes its swap;
 * then the places are freed (R -1). A step is made only after every
 * earlier step on its places, so the pairs end as Fisher-Yates leaves
 * them; the rounds are the steps' dependence depth, O(log n) (about 36
 * at 65,536 pairs). done[k]: 0 to make, 2 made this round, 1 made. On
 * the device R's reservations are atomicMax (cuda_devgen.cu). */
#if defined(__CUDA_ARCH__)
#define DF_RESERVE(p, v) ((void)atomicMax((p), (v)))
#else
#define DF_RESERVE(p, v) ((void)(*(p) = *(p) > (v) ? *(p) : (v)))
#endif

/* A round's three phases, each over steps k0, k0 + stride, ... of the n - 1
 * (a GPU thread's share; k0 0 and stride 1 for all of them), a barrier
 * between one phase and the next. Reserve: each step to make reserves its
 * places. */
DF_VAL void df_reserve_phase(int32_t *R, const uint16_t *js, uint64_t n, const uint8_t *done,
                             uint64_t k0, uint64_t stride)
{
    for (uint64_t k = k0; k + 1 < n; k += stride)
        if (!done[k]) {
            int32_t i = (int32_t)(n - 1 - k);
            DF_RESERVE(&R[i], i);
            DF_RESERVE(&R[js[k]], i);
        }
}

/* Commit: each step to make that holds both its places swaps them; returns
 * whether a step of the share is left to make. */
DF_VAL int df_commit_phase(const int32_t *R, const uint16_t *js, uint64_t n, uint8_t *done,
                           void *a, void *b, size_t es, uint64_t k0, uint64_t stride)
{
    int left = 0;
    unsigned char *x = (unsigned char *)a, *y = (unsigned char *)b, t;
    for (uint64_t k = k0; k + 1 < n; k += stride) {
        int32_t i = (int32_t)(n - 1 - k), j = js[k];
        if (done[k])
            continue;
        if (R[i] != i || R[j] != i) {
            left = 1;
            continue;
        }
        for (size_t c = 0; c < es; c++) {
            t = x[i * es + c], x[i * es + c] = x[j * es + c], x[j * es + c] = t;
            t = y[i * es + c], y[i * es + c] = y[j * es + c], y[j * es + c] = t;
        }
        done[k] = 2;
    }
    return left;
}

/* Free: the places of every step this round had to make go back to -1. */
DF_VAL void df_free_phase(int32_t *R, const uint16_t *js, uint64_t n, uint8_t *done,
                          uint64_t k0, uint64_t stride)
{
    for (uint64_t k = k0; k + 1 < n; k += stride)
        if (done[k] != 1) {
            R[n - 1 - k] = -1;
            R[js[k]] = -1;
            done[k] = done[k] ? 1 : 0;
        }
}

/* The swaps of df_lanes_shuffle_apply in rounds of reservations on one
 * thread: R (n, all -1) and done (n - 1, all 0) the caller's. Returns the
 * rounds. */
DF_VAL unsigned df_lanes_shuffle_reserved(void *a, void *b, size_t es, uint64_t n,
                                          const uint16_t *js, int32_t *R, uint8_t *done)
{
    unsigned rounds = 0;
    for (int more = n > 1; more; rounds++) {
        df_reserve_phase(R, js, n, done, 0, 1);
        more = df_commit_phase(R, js, n, done, a, b, es, 0, 1);
        df_free_phase(R, js, n, done, 0, 1);
    }
    return rounds;
}

/* One round of pass q for lane `lane`: its item k0 + lane (when below m)
 * from s jumped `at` (lane D steps), its end state in *end; returns
 * whether it took other than D draws (next: s jumped (lane + 1) D). */
DF_VAL_HOT int df_lanes_round(const df_lanes_pass *q, df_type t, uint64_t s, uint64_t inc,
                              df_pcg32_jump at, df_pcg32_jump next, uint64_t k0,
                              unsigned lane, uint64_t *end)
{
    df_pcg32 x;
    x.state = df_pcg32_jumped(at, s);
    x.inc = inc;
    if (k0 + lane >= q->m) {
        *end = x.state;
        return 0;
    }
    df_lanes_item(q, t, &x, k0 + lane);
    *end = x.state;
    return x.state != df_pcg32_jumped(next, s);
}

/* Pass q made by W lanes (1 <= W <= 64) looped on one thread, r at the
 * end as one thread leaves it: what a warp does, for the tests. Returns
 * the rounds cut short by a lane that took more draws (a pass's D wrong
 * would cut nearly every one: the bytes stay right), and adds all its
 * rounds to *rounds. */
DF_VAL uint64_t df_lanes_pass_fill(const df_lanes_pass *q, df_type t, df_pcg32 *r, unsigned W,
                                   uint64_t *rounds)
{
    uint64_t cuts = 0;
    df_pcg32_jump at[65];
    for (unsigned L = 0; L <= W; L++)
        at[L] = df_pcg32_jump_of(r->inc, (uint64_t)L * q->draws);
    for (uint64_t k0 = 0; k0 < q->m;) {
        uint64_t s = r->state, left = q->m - k0, cut = s;
        unsigned live = left < W ? (unsigned)left : W, last = live - 1;
        int found = 0;
        for (unsigned L = 0; L < W; L++) {
            uint64_t end;
            int other = df_lanes_round(q, t, s, r->inc, at[L], at[L + 1], k0, L, &end);
            if (!found && (other || L == last)) { /* the first lane that took more */
                found = 1;
                cuts += L < last;
                last = L;
                cut = end;
            }
        }
        r->state = cut;
        k0 += last + 1;
        ++*rounds;
    }
    return cuts;
}

/* p's case made by W lanes looped on one thread (df_lanes_pass_fill a
 * pass), then its tail and, where one follows (p->shuffles), its shuffle
 * (draws by the lanes into js, room for n, swaps in order). */
DF_VAL uint64_t df_lanes_fill(df_lanes_plan *p, df_pcg32 *r, unsigned W, uint16_t *js,
                              uint64_t *rounds)
{
    uint64_t cuts = 0;
    *rounds = 0;
    for (int i = 0; i < p->passes; i++)
        cuts += df_lanes_pass_fill(&p->pass[i], p->t, r, W, rounds);
    df_lanes_tail(p, r);
    if (p->shuffles) {
        df_lanes_pass q = df_lanes_shuffle(js, p->n);
        cuts += df_lanes_pass_fill(&q, p->t, r, W, rounds);
        df_lanes_shuffle_apply(p->a, p->b, df_val_size(p->t), p->n, js);
    }
    return cuts;
}

#endif
