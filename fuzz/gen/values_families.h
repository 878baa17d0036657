/* values_families.h — the value families but cond (fuzz/gen/values_cond.h):
 * int-small, uniform, int-wide, wide-exp, special, sparse, constant,
 * cancel, int-big, few-terms and int-factor, each a df_fill_* over a whole case, and the parts
 * the long-case chunk plan (fuzz/gen/values_long.h) makes in chunks: the per-
 * case draws, the element ranges and the values placed over the whole
 * case at the end. */
#ifndef DOTFUZZ_VALUES_FAMILIES_H
#define DOTFUZZ_VALUES_FAMILIES_H

#include <stdint.h>
#include <string.h>

#include "fuzz/gen/values_base.h"

/* ---- int-small, uniform, int-wide --------------------------------------- */

/* Integer x as element i of v (f32, f64 or i32). */
DF_VAL_HOT void df_put_int(df_type t, void *v, uint64_t i, int64_t x)
{
    if (t == DF_F32)
        ((float *)v)[i] = (float)x;
    else if (t == DF_F64)
        ((double *)v)[i] = (double)x;
    else
        ((int32_t *)v)[i] = (int32_t)x;
}

/* One of df_fill_ints's values below its wide path: lo + [0, b->bound). */
DF_VAL_HOT int64_t df_int_draw(df_pcg32 *r, int64_t lo, const df_bounded32 *b)
{
    return lo + (int64_t)df_bounded32_draw(r, b);
}

/* Whether df_fill_ints's range [lo, hi] takes its wide path (64-bit draws). */
DF_VAL int df_ints_wide(int64_t lo, int64_t hi)
{
    return (uint64_t)hi - (uint64_t)lo >= 0xffffffffULL;
}

/* Uniform integers in [lo, hi] (|lo|, |hi| <= 2^24, so exact in every
 * element type). */
DF_VAL void df_fill_ints(df_pcg32 *r, df_type t, void *v, uint64_t n,
                         int64_t lo, int64_t hi)
{
    if (df_ints_wide(lo, hi)) { /* df_pcg32_range's wide path */
        for (uint64_t i = 0; i < n; i++)
            df_put_int(t, v, i, df_pcg32_range(r, lo, hi));
        return;
    }
    /* a loop a type: the element type is one value for the whole case */
    df_bounded32 b = df_bounded32_make((uint32_t)((uint64_t)hi - (uint64_t)lo + 1));
    switch (t) {
    case DF_F32:
        for (uint64_t i = 0; i < n; i++)
            ((float *)v)[i] = (float)df_int_draw(r, lo, &b);
        break;
    case DF_F64:
        for (uint64_t i = 0; i < n; i++)
            ((double *)v)[i] = (double)df_int_draw(r, lo, &b);
        break;
    case DF_I32:
        for (uint64_t i = 0; i < n; i++)
            ((int32_t *)v)[i] = (int32_t)df_int_draw(r, lo, &b);
        break;
    default: /* the low-precision types have families of their own (values_lowp.h) */
        break;
    }
}

DF_VAL void df_fill_int_small(df_pcg32 *r, df_type t, void *a, void *b,
                              uint64_t n)
{
    df_fill_ints(r, t, a, n, -50, 50);
    df_fill_ints(r, t, b, n, -50, 50);
}

/* -50 + 100 x, computed as 100 (x - 0.5): x is on the 2^-24 (2^-53) grid
 * of [0, 1), so x - 0.5 is exact and the product is the only rounding.
 * Nothing is left for a compiler to fuse into an FMA (the sum-of-product
 * form changes under -ffp-contract=fast) and x87 excess precision rounds
 * the exact 31-bit (60-bit) product just once. */
DF_VAL_HOT float df_uniform_f32(df_pcg32 *r) { return 100.0f * (df_pcg32_float(r) - 0.5f); }
DF_VAL_HOT double df_uniform_f64(df_pcg32 *r) { return 100.0 * (df_pcg32_double(r) - 0.5); }

DF_VAL void df_fill_uniform_vec(df_pcg32 *r, df_type t, void *v, uint64_t n)
{
    if (t == DF_F32) {
        for (uint64_t i = 0; i < n; i++)
            ((float *)v)[i] = df_uniform_f32(r);
    } else if (t == DF_F64) {
        for (uint64_t i = 0; i < n; i++)
            ((double *)v)[i] = df_uniform_f64(r);
    }
}

DF_VAL void df_fill_uniform(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    df_fill_uniform_vec(r, t, a, n);
    df_fill_uniform_vec(r, t, b, n);
}

/* One magnitude per case, so a case is either all-moderate or all-large:
 * products up to 2^48 leave the exact regime quickly, exercising rounding
 * on data whose exact dot is still easy to compute. */
DF_VAL void df_fill_int_wide(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    int64_t span = (int64_t)1 << df_pcg32_range(r, 7, 24);
    df_fill_ints(r, t, a, n, -span, span);
    df_fill_ints(r, t, b, n, -span, span);
}

/* ---- wide-exp ----------------------------------------------------------- */

/* Random signs and full-precision significands with exponents uniform in
 * a window [lo, hi] drawn per case inside the type's normal range (two
 * uniform ends: windows of every width, the whole range included). Rule
 * for finiteness: every pair keeps e_a + e_b <= emax - 3 - ceil(log2 n)
 * (a pair above it is lowered onto that line, half the excess from each),
 * so each |a_i b_i| < 2^(emax - 1) / n and G, and with it every partial sum
 * in any order, stays below 2^(emax - 1): nothing overflows. Products may
 * underflow; that is part of what the family hunts, with absorption of the
 * small terms by the large. */
DF_VAL int64_t df_wide_exp_line(df_type t, uint64_t n)
{
    return (t == DF_F32 ? 127 : 1023) - 3 - (int64_t)df_ceil_log2_u64(n);
}

/* The window's ends, two draws, in order. */
DF_VAL void df_wide_exp_window(df_pcg32 *r, df_type t, int64_t *lo, int64_t *hi)
{
    int64_t emin = t == DF_F32 ? -126 : -1022, emax = t == DF_F32 ? 127 : 1023;
    int64_t x = df_pcg32_range(r, emin, emax), y = df_pcg32_range(r, emin, emax);
    *lo = x < y ? x : y;
    *hi = x < y ? y : x;
}

/* Pair i of a wide-exp case with window [lo, lo + span->bound). */
DF_VAL_HOT void df_wide_exp_pair(df_pcg32 *r, df_type t, void *a, void *b, uint64_t i,
                                 int64_t lo, const df_bounded32 *span, int64_t line)
{
    int64_t ea = lo + (int64_t)df_bounded32_draw(r, span);
    int64_t eb = lo + (int64_t)df_bounded32_draw(r, span);
    int64_t over = ea + eb - line, excess = over > 0 ? over : 0; /* no branch */
    ea -= (excess + 1) / 2;
    eb -= excess / 2;
    df_put_elem(t, a, i, df_scale2(df_draw_mant(r, t, 1), (int)ea));
    df_put_elem(t, b, i, df_scale2(df_draw_mant(r, t, 1), (int)eb));
}

/* Elements [i0, i1) of a wide-exp case with window [lo, hi]. */
DF_VAL void df_wide_exp_range(df_pcg32 *r, df_type t, void *a, void *b, uint64_t i0,
                              uint64_t i1, int64_t lo, int64_t hi, int64_t line)
{
    const df_bounded32 span = df_bounded32_make((uint32_t)(hi - lo + 1)); /* at most 2046 */
    for (uint64_t i = i0; i < i1; i++)
        df_wide_exp_pair(r, t, a, b, i, lo, &span, line);
}

DF_VAL void df_fill_wide_exp(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    int64_t lo, hi;
    df_wide_exp_window(r, t, &lo, &hi);
    df_wide_exp_range(r, t, a, b, 0, n, lo, hi, df_wide_exp_line(t, n));
}

/* ---- special ------------------------------------------------------------ */

enum {
    DF_SP_ZERO, DF_SP_SUBNORMAL, DF_SP_INF, DF_SP_NAN, DF_SP_MAX, DF_SP_MIN_NORMAL,
    DF_SP_CLASSES
};

/* One special value, random sign, written as a bit pattern so nothing can
 * round, flush or quiet it on the way. Subnormals: the smallest, the
 * largest or a random one. NaN is the default quiet NaN. */
DF_VAL void df_put_special(df_pcg32 *r, df_type t, void *v, uint64_t i)
{
    uint32_t cls = df_pcg32_bounded(r, DF_SP_CLASSES), w = df_pcg32_next(r);
    uint32_t pick = (w >> 1) & 3; /* subnormal: 0 smallest, 1 largest, else random */
    if (t == DF_F32) {
        const uint32_t fixed[DF_SP_CLASSES] = {0, 0, 0x7f800000u, 0x7fc00000u,
                                                   0x7f7fffffu, 0x00800000u};
        uint32_t bits = fixed[cls];
        if (cls == DF_SP_SUBNORMAL)
            bits = pick == 0 ? 1 : pick == 1 ? 0x7fffffu : (w >> 9) | 1;
        bits |= (w & 1) << 31;
        memcpy((float *)v + i, &bits, sizeof bits);
    } else {
        const uint64_t fixed[DF_SP_CLASSES] = {
            0, 0, 0x7ff0000000000000u, 0x7ff8000000000000u, 0x7fefffffffffffffu,
            0x0010000000000000u};
        uint64_t bits = fixed[cls];
        if (cls == DF_SP_SUBNORMAL)
            bits = pick == 0 ? 1
                   : pick == 1 ? ((uint64_t)1 << 52) - 1
                               : ((uint64_t)(w >> 3) << 23) | 1;
        bits |= (uint64_t)(w & 1) << 63;
        memcpy((double *)v + i, &bits, sizeof bits);
    }
}

/* The special values over a filled case (df_fill_special's last draws). */
DF_VAL void df_special_tail(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    if (n == 0)
        return;
    uint32_t count = 1 + df_pcg32_bounded(r, 6);
    for (uint32_t k = 0; k < count; k++) {
        void *v = df_pcg32_next(r) & 1 ? a : b;
        df_put_special(r, t, v, df_draw_pos(r, n));
    }
}

/* int-small or uniform values (half the cases each), then 1 to 6 special
 * values at biased positions of a or b (a position drawn twice holds the
 * later one). */
DF_VAL void df_fill_special(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    if (df_pcg32_bounded(r, 2))
        df_fill_int_small(r, t, a, b, n);
    else
        df_fill_uniform(r, t, a, b, n);
    df_special_tail(r, t, a, b, n);
}

/* ---- sparse ------------------------------------------------------------- */

/* Nonzero floats of either kind, so sparse and cancel cases are half in the
 * exact regime (small integers) and half not. */
DF_VAL double df_draw_nonzero_float(df_pcg32 *r, df_type t)
{
    return df_draw_scaled(r, t, -4, 5);
}

/* The nonzero pairs over an all-zero case (df_fill_sparse's draws). */
DF_VAL void df_sparse_tail(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    if (n == 0)
        return;
    uint64_t pairs = 1 + df_pcg32_bounded(r, (uint32_t)df_min_u64(n, 16));
    int ints = t == DF_I32 || df_pcg32_bounded(r, 2);
    int32_t v = t == DF_I32 ? df_i32_bound(pairs) : 50;
    for (uint64_t k = 0; k < pairs; k++) {
        uint64_t i = df_draw_pos(r, n);
        df_put_elem(t, a, i, ints ? df_draw_nonzero_int(r, v) : df_draw_nonzero_float(r, t));
        df_put_elem(t, b, i, ints ? df_draw_nonzero_int(r, v) : df_draw_nonzero_float(r, t));
    }
}

/* All zeros (+0) but 1 to 16 pairs with a_i and b_i both nonzero, at
 * positions biased to the ends (a position drawn twice counts once).
 * Floats: integers in [-50, 50] or floats of magnitude [2^-4, 2^6), half
 * the cases each; i32: integers within df_i32_bound(pairs). */
DF_VAL void df_fill_sparse(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    size_t esz = df_val_size(t);
    memset(a, 0, (size_t)n * esz); /* all-zero bits: +0 in every type */
    memset(b, 0, (size_t)n * esz);
    df_sparse_tail(r, t, a, b, n);
}

/* ---- constant ----------------------------------------------------------- */

/* One a and one b for all elements, so a kernel that drops or doubles an
 * element is off by a multiple of a*b. Floats: half the cases nonzero
 * integers of magnitude up to 1, 2, 4, 8, 16, 32 or 50 (exact regime while
 * n |ab| <= 2^24: up to n = 2^24 for 1 * 1), half full-precision values
 * of magnitude [2^-8, 2^9) (rounding from the second element on). i32:
 * nonzero within df_i32_bound(n). */
DF_VAL void df_constant_values(df_pcg32 *r, df_type t, uint64_t n, double *px, double *py)
{
    const int32_t spans[] = {1, 2, 4, 8, 16, 32, 50};
    double x, y;
    if (t == DF_I32) {
        int32_t v = df_i32_bound(n);
        x = df_draw_nonzero_int(r, v);
        y = df_draw_nonzero_int(r, v);
    } else if (df_pcg32_bounded(r, 2)) {
        x = df_draw_nonzero_int(r, spans[df_pcg32_bounded(r, 7)]);
        y = df_draw_nonzero_int(r, spans[df_pcg32_bounded(r, 7)]);
    } else {
        x = df_draw_scaled(r, t, -8, 8);
        y = df_draw_scaled(r, t, -8, 8);
    }
    *px = x;
    *py = y;
}

DF_VAL void df_constant_range(df_type t, void *a, void *b, uint64_t i0, uint64_t i1, double x,
                              double y)
{
    for (uint64_t i = i0; i < i1; i++) {
        df_put_elem(t, a, i, x);
        df_put_elem(t, b, i, y);
    }
}

DF_VAL void df_fill_constant(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    double x, y;
    df_constant_values(r, t, n, &x, &y);
    df_constant_range(t, a, b, 0, n, x, y);
}

/* ---- cancel ------------------------------------------------------------- */

/* Pairs (x, y) and (x, -y) or (-x, y), whose products cancel exactly, plus
 * 1 to 4 small terms (one more when the rest is odd), so s is the small
 * terms' sum while G is all of it. Floats: the pairs are nonzero integers
 * in [-50, 50] with small terms in [-3, 3] (exact regime while G <= 2^24),
 * or full-precision values of magnitude [1, 2^21) with small terms in
 * [2^-10, 2), half the cases each; i32: pairs within df_i32_bound(n), small
 * terms within 3. Shuffled three cases in four (pairs far apart), left
 * adjacent in the fourth. */
/* Pairs [p0, p1) (elements 2p and 2p + 1) of a cancel case. */
DF_VAL void df_cancel_pairs(df_pcg32 *r, df_type t, void *a, void *b, uint64_t p0, uint64_t p1,
                            int ints, int32_t v)
{
    for (uint64_t p = p0; p < p1; p++) {
        double x = ints ? df_draw_nonzero_int(r, v) : df_draw_scaled(r, t, 0, 20);
        double y = ints ? df_draw_nonzero_int(r, v) : df_draw_scaled(r, t, 0, 20);
        uint32_t flip_a = df_pcg32_next(r) & 1;
        df_put_elem(t, a, 2 * p, x);
        df_put_elem(t, b, 2 * p, y);
        df_put_elem(t, a, 2 * p + 1, df_neg_if(x, flip_a));
        df_put_elem(t, b, 2 * p + 1, df_neg_if(y, flip_a ^ 1));
    }
}

/* The small terms, elements [i0, n). */
DF_VAL void df_cancel_small(df_pcg32 *r, df_type t, void *a, void *b, uint64_t i0, uint64_t n,
                            int ints, int32_t vs)
{
    for (uint64_t i = i0; i < n; i++) {
        df_put_elem(t, a, i, ints ? df_draw_nonzero_int(r, vs) : df_draw_scaled(r, t, -10, 0));
        df_put_elem(t, b, i, ints ? df_draw_nonzero_int(r, vs) : df_draw_mant(r, t, 1));
    }
}

/* A cancel case's draws before its pairs (n >= 1): integers or not, the
 * pairs' bound v and the small terms' vs; returns the pairs. */
DF_VAL uint64_t df_cancel_shape(df_pcg32 *r, df_type t, uint64_t n, int *ints, int32_t *v,
                                int32_t *vs)
{
    *ints = t == DF_I32 || df_pcg32_bounded(r, 2);
    *v = t == DF_I32 ? df_i32_bound(n) : 50;
    *vs = *v < 3 ? *v : 3;
    uint64_t small = df_min_u64(n, 1 + df_pcg32_bounded(r, 4));
    return (n - small) / 2;
}

/* A cancel case but its shuffle: returns whether its pairs are shuffled
 * (from r, next). */
DF_VAL int df_fill_cancel_pairs(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    if (n == 0)
        return 0;
    int ints;
    int32_t v, vs;
    uint64_t pairs = df_cancel_shape(r, t, n, &ints, &v, &vs);
    df_cancel_pairs(r, t, a, b, 0, pairs, ints, v);
    df_cancel_small(r, t, a, b, 2 * pairs, n, ints, vs);
    return df_pcg32_bounded(r, 4) != 0;
}

DF_VAL void df_fill_cancel(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    if (df_fill_cancel_pairs(r, t, a, b, n))
        df_val_shuffle_pairs(r, t, a, b, n);
}

/* int-big (i32 only, DF_K_ACC_WIDE kernels): a in [0, 46340] with one sign
 * drawn per case, b in [0, 46340]: every product fits int32 (46340^2 <
 * 2^31) but a few of them already carry the sum past int32, which a kernel
 * that promises a 64-bit result must still get right. */
DF_VAL_HOT void df_int_big_pair(df_pcg32 *r, int32_t *a, int32_t *b, uint64_t i, int32_t sign)
{
    a[i] = sign * (int32_t)df_pcg32_bounded(r, 46341);
    b[i] = (int32_t)df_pcg32_bounded(r, 46341);
}

DF_VAL void df_int_big_range(df_pcg32 *r, void *va, void *vb, uint64_t i0, uint64_t i1,
                             int32_t sign)
{
    for (uint64_t i = i0; i < i1; i++)
        df_int_big_pair(r, (int32_t *)va, (int32_t *)vb, i, sign);
}

DF_VAL void df_fill_int_big(df_pcg32 *r, df_type t, void *va, void *vb, uint64_t n)
{
    int32_t sign = df_pcg32_bounded(r, 2) ? -1 : 1;
    (void)t;
    df_int_big_range(r, va, vb, 0, n, sign);
}

/* ---- few-terms ---------------------------------------------------------- */

/* A position for one of few-terms' products: the first or the last element,
 * either side of a warp's, a block's (256) or a large block's (1024)
 * boundary where the case reaches one, else uniform. */
DF_VAL uint64_t df_few_pos(df_pcg32 *r, uint64_t n)
{
    uint32_t c = df_pcg32_bounded(r, 8);
    if (c == 0)
        return 0;
    if (c == 1)
        return n - 1;
    if (c <= 4) {
        uint64_t unit = c == 2 ? 32 : c == 3 ? 256 : 1024;
        if (n > unit) {
            uint64_t j = unit * df_draw_uniform_u64(r, 1, (n - 1) / unit);
            return j - df_pcg32_bounded(r, 2);
        }
    }
    return df_draw_uniform_u64(r, 0, n - 1);
}

/* A significand of t's precision as an integer in [2^(p-1), 2^p). */
DF_VAL double df_few_mant(df_pcg32 *r, df_type t)
{
    return df_scale2(df_draw_mant(r, t, 0), t == DF_F32 ? 23 : 52);
}

/* The pair (a_i, b_i) = (m 2^(e - e/2), 2^(e/2)) at i, with the sign s
 * (0 or 1): its product m 2^e exact, both factors normal. */
DF_VAL void df_few_put(df_type t, void *a, void *b, uint64_t i, double m, int e, uint32_t s)
{
    int h = e / 2;
    df_put_elem(t, a, i, df_neg_if(df_scale2(m, e - h), s));
    df_put_elem(t, b, i, df_scale2(1.0, h));
}

/* Up to four products over an all-zero case: a leading one of full
 * precision (sometimes all ones: a binade edge), a quarter, half or three
 * quarters of its last place (a rounding midpoint and either side of it),
 * a far smaller sticky term and a full-precision term some places below;
 * scaled anywhere from ordinary magnitudes to the subnormals. */
DF_VAL void df_few_terms_tail(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    if (n == 0)
        return;
    int p = t == DF_F32 ? 24 : 53, emin = t == DF_F32 ? -149 : -1074;
    uint32_t k = 1 + df_pcg32_bounded(r, 4);
    double m1 = df_pcg32_bounded(r, 4) ? df_few_mant(r, t) : df_scale2(2.0, p - 1) - 1.0;
    /* e1: the exponent of m1's last place */
    int e1 = df_pcg32_bounded(r, 8) ? (int)df_pcg32_range(r, -20, 20) - p
                                     : emin + (int)df_pcg32_range(r, 0, p + 4);
    /* each term's draws one statement each, in a fixed order (sign, exponent,
     * place): as arguments of one call their order would be the compiler's,
     * and the GPU's generator would make other bytes than the host's */
    uint32_t s = df_pcg32_next(r);
    df_few_put(t, a, b, df_few_pos(r, n), m1, e1, s);
    if (k >= 2) {
        uint32_t quarters = 1 + df_pcg32_bounded(r, 3);
        int up = df_pcg32_bounded(r, 4) ? 0 : (int)df_pcg32_range(r, 1, 3);
        s = df_pcg32_next(r);
        df_few_put(t, a, b, df_few_pos(r, n), (double)quarters, e1 - 2 + up, s);
    }
    if (k >= 3) {
        s = df_pcg32_next(r);
        int e = e1 - (int)df_pcg32_range(r, 3, 30);
        df_few_put(t, a, b, df_few_pos(r, n), 1.0, e, s);
    }
    if (k >= 4) {
        double m4 = df_few_mant(r, t);
        s = df_pcg32_next(r);
        int e = e1 - (int)df_pcg32_range(r, -2, p + 4);
        df_few_put(t, a, b, df_few_pos(r, n), m4, e, s);
    }
}

/* All zeros (+0) but 1 to 4 products (df_few_terms_tail): the cases the
 * order-set rule judges exactly. */
DF_VAL void df_fill_few_terms(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    size_t esz = df_val_size(t);
    memset(a, 0, (size_t)n * esz);
    memset(b, 0, (size_t)n * esz);
    df_few_terms_tail(r, t, a, b, n);
}

/* ---- int-factor ----------------------------------------------------------- */

/* int-factor (i32): small factors in [-2, 2] and one pair whose factor is
 * drawn across the int32 range against a small one, |product| up to
 * INT32_MAX - 4n so every sum stays inside int32: a product a 24-bit or
 * 16-bit multiplier gets wrong, in a case no correct kernel overflows. */
DF_VAL_HOT void df_int_factor_pair(df_pcg32 *r, int32_t *a, int32_t *b, uint64_t i)
{
    a[i] = (int32_t)df_pcg32_range(r, -2, 2);
    b[i] = (int32_t)df_pcg32_range(r, -2, 2);
}

DF_VAL void df_int_factor_range(df_pcg32 *r, void *va, void *vb, uint64_t i0, uint64_t i1)
{
    for (uint64_t i = i0; i < i1; i++)
        df_int_factor_pair(r, (int32_t *)va, (int32_t *)vb, i);
}

/* The large pair, over the small ones. */
DF_VAL void df_int_factor_tail(df_pcg32 *r, void *va, void *vb, uint64_t n)
{
    if (n == 0)
        return;
    int32_t *a = (int32_t *)va, *b = (int32_t *)vb;
    int64_t room = (int64_t)INT32_MAX - 4 * (int64_t)n;
    int32_t small = (int32_t)df_pcg32_range(r, 1, 3);
    int64_t hi = room / small;
    int64_t big = hi > 2 ? df_pcg32_range(r, hi / 2 > 0x800000 ? 0x800000 : 2, hi) : 1;
    uint64_t i = df_draw_pos(r, n);
    uint32_t s = df_pcg32_next(r);
    int32_t x = (int32_t)((s & 1) ? -big : big), y = (s & 2) ? -small : small;
    if (s & 4)
        a[i] = x, b[i] = y;
    else
        a[i] = y, b[i] = x;
}

DF_VAL void df_fill_int_factor(df_pcg32 *r, df_type t, void *va, void *vb, uint64_t n)
{
    (void)t;
    df_int_factor_range(r, va, vb, 0, n);
    df_int_factor_tail(r, va, vb, n);
}

#endif
