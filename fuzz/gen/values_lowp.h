/* values_lowp.h — the value families of f16, bf16, e4m3 and e5m2, made as
 * bit patterns (every pattern is exactly the value it says, so nothing
 * rounds on the way): lp-range (any finite encoding in an exponent
 * window), lp-subnormal (one vector at the bottom of the range),
 * lp-special (lp-range with the format's landmarks: +-0, subnormals,
 * NaN, Inf where the format has it, +-max, which is where a saturating
 * conversion lands) and lp-cancel (products that cancel exactly beside a
 * few terms 2^4 to 2^30 times smaller: what a dot that aligns its terms
 * to the largest and cuts the bits below loses, as published of fp8
 * tensor-core accumulation).
 *
 * Their cases are made whole (kernels of these types take at most
 * DF_GEN_CHUNK elements); bf16's exponents, whose range is f32's, are kept
 * low enough that no product or sum in f32 overflows. */
#ifndef DOTFUZZ_VALUES_LOWP_H
#define DOTFUZZ_VALUES_LOWP_H

#include <stdint.h>

#include "fuzz/gen/values_base.h"

/* The top exponent field that holds finite values: all ones but one for
 * the IEEE-style formats, all ones for e4m3 (whose S.1111.111 alone is
 * NaN); bf16's capped so that n products of two such values stay below
 * 2^123 (f32's range, with room for any order's partial sums). */
DF_VAL uint32_t df_lp_top_field(df_type t, uint64_t n)
{
    df_lowp_shape s = df_lowp_shape_of(df_val_lowp(t));
    uint32_t top = (1u << s.exp_bits) - (s.ieee ? 2u : 1u);
    if (t == DF_BF16) { /* 2 (e + 1) + log2 n <= 123, e = field - bias */
        int64_t e = (123 - (int64_t)df_ceil_log2_u64(n ? n : 1)) / 2 - 1;
        top = (uint32_t)(e + s.bias);
    }
    return top;
}

/* An encoding with a random sign and fraction and its exponent field in
 * [lo, lo + fields->bound) (fields: df_bounded32_make of the window's
 * width, made once a window: the same draws as df_pcg32_bounded without
 * a division each); e4m3's NaN pattern becomes its largest value. */
DF_VAL_HOT uint32_t df_lp_draw(df_pcg32 *r, df_type t, uint32_t lo, const df_bounded32 *fields)
{
    df_lowp_shape s = df_lowp_shape_of(df_val_lowp(t));
    uint32_t w = df_pcg32_next(r);
    uint32_t field = lo + df_bounded32_draw(r, fields);
    uint32_t man = w & ((1u << s.man_bits) - 1u), sign = (w >> 31) << (s.bits - 1);
    uint32_t bits = sign | field << s.man_bits | man;
    if (!s.ieee && (bits & ~sign) == df_lowp_nan_bits(df_val_lowp(t)))
        bits = sign | df_lowp_max_bits(df_val_lowp(t));
    return bits;
}

/* The fields [lo, hi] for df_lp_draw. */
DF_VAL df_bounded32 df_lp_fields(uint32_t lo, uint32_t hi)
{
    return df_bounded32_make(hi - lo + 1);
}

DF_VAL_HOT void df_lp_put(df_type t, void *v, uint64_t i, uint32_t bits)
{
    if (df_val_size(t) == 2)
        ((uint16_t *)v)[i] = (uint16_t)bits;
    else
        ((uint8_t *)v)[i] = (uint8_t)bits;
}

DF_VAL_HOT uint32_t df_lp_get(df_type t, const void *v, uint64_t i)
{
    return df_val_size(t) == 2 ? ((const uint16_t *)v)[i] : ((const uint8_t *)v)[i];
}

/* An exponent window in [0, top]: two uniform ends, in order. */
DF_VAL void df_lp_window(df_pcg32 *r, uint32_t top, uint32_t *lo, uint32_t *hi)
{
    uint32_t x = df_pcg32_bounded(r, top + 1), y = df_pcg32_bounded(r, top + 1);
    *lo = x < y ? x : y;
    *hi = x < y ? y : x;
}

/* ---- lp-range ------------------------------------------------------------ */

DF_VAL_HOT void df_lp_range_pair(df_pcg32 *r, df_type t, void *a, void *b, uint64_t i,
                                 uint32_t lo, const df_bounded32 *fields)
{
    df_lp_put(t, a, i, df_lp_draw(r, t, lo, fields));
    df_lp_put(t, b, i, df_lp_draw(r, t, lo, fields));
}

DF_VAL void df_fill_lp_range(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    uint32_t lo, hi;
    df_lp_window(r, df_lp_top_field(t, n), &lo, &hi);
    const df_bounded32 fields = df_lp_fields(lo, hi);
    for (uint64_t i = 0; i < n; i++)
        df_lp_range_pair(r, t, a, b, i, lo, &fields);
}

/* ---- lp-subnormal -------------------------------------------------------- */

/* Pair i: low's element subnormal three times in four, else of the
 * smallest normal binade; any's anywhere in all's fields. */
DF_VAL_HOT void df_lp_subnormal_pair(df_pcg32 *r, df_type t, void *low, void *any, uint64_t i,
                                     const df_bounded32 *all)
{
    const df_bounded32 one = df_lp_fields(0, 0);
    uint32_t field = df_pcg32_bounded(r, 4) ? 0u : 1u;
    df_lp_put(t, low, i, df_lp_draw(r, t, field, &one));
    df_lp_put(t, any, i, df_lp_draw(r, t, 0, all));
}

/* One vector (a or b, drawn per case) subnormal three elements in four and
 * of the smallest normal binade otherwise, the other anywhere in the
 * finite range: products in and at the edge of the subnormals, where a
 * kernel that flushes them loses them. */
DF_VAL void df_fill_lp_subnormal(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    int swap = (int)df_pcg32_bounded(r, 2);
    uint32_t top = df_lp_top_field(t, n);
    void *low = swap ? b : a, *any = swap ? a : b;
    const df_bounded32 all = df_lp_fields(0, top);
    for (uint64_t i = 0; i < n; i++)
        df_lp_subnormal_pair(r, t, low, any, i, &all);
}

/* ---- lp-special ---------------------------------------------------------- */

enum { DF_LPS_ZERO, DF_LPS_SUB, DF_LPS_NAN, DF_LPS_INF, DF_LPS_MAX, DF_LPS_MIN_NORMAL, DF_LPS_N };

/* One landmark of t with a random sign: e4m3 has no Inf (its class gives
 * its largest value, what saturation gives); NaN is the canonical one or,
 * in the IEEE-style formats, another payload. */
DF_VAL uint32_t df_lp_special(df_pcg32 *r, df_type t)
{
    df_lowp f = df_val_lowp(t);
    df_lowp_shape s = df_lowp_shape_of(f);
    uint32_t w = df_pcg32_next(r), cls = df_pcg32_bounded(r, DF_LPS_N);
    uint32_t man_mask = (1u << s.man_bits) - 1u, inf = df_lowp_max_bits(f) + 1u;
    uint32_t bits = 0;
    switch (cls) {
    case DF_LPS_ZERO: bits = 0; break;
    case DF_LPS_SUB: bits = (w >> 1) & 1 ? 1u : ((w >> 2) & man_mask) | 1u; break;
    case DF_LPS_NAN:
        bits = df_lowp_nan_bits(f);
        if (s.ieee && ((w >> 1) & 1))
            bits = (inf & ~man_mask) | (((w >> 2) & man_mask) | 1u); /* another payload */
        break;
    case DF_LPS_INF: bits = s.ieee ? inf : df_lowp_max_bits(f); break;
    case DF_LPS_MAX: bits = df_lowp_max_bits(f); break;
    default: bits = 1u << s.man_bits; break; /* the smallest normal */
    }
    return bits | (w & 1u) << (s.bits - 1);
}

/* The landmarks over an lp-range case (df_fill_lp_special's last draws). */
DF_VAL void df_lp_special_tail(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    if (n == 0)
        return;
    uint32_t count = 1 + df_pcg32_bounded(r, 6);
    for (uint32_t k = 0; k < count; k++) {
        void *v = df_pcg32_next(r) & 1 ? a : b;
        /* the value, then the place, one statement each: as arguments of
         * one call their order would be the compiler's (the GPU's
         * generator must make the host's bytes) */
        uint32_t bits = df_lp_special(r, t);
        df_lp_put(t, v, df_draw_pos(r, n), bits);
    }
}

DF_VAL void df_fill_lp_special(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    df_fill_lp_range(r, t, a, b, n);
    df_lp_special_tail(r, t, a, b, n);
}

/* ---- lp-cancel ----------------------------------------------------------- */

/* Pairs (x, y), (x, -y) from an exponent window (up to 3 binades) in the
 * upper half of the range, shuffled three cases in four, beside 1 to 4
 * small terms whose exponent fields lie 2 to 15 below the window's low end
 * on each side (products 2^4 to 2^30 times smaller, down into the
 * subnormals): s is the small terms' sum, G all of it.
 *
 * An lp-cancel case's draws before its pairs: the window [lo, lo +
 * window->bound), the small terms' field slo, the pairs. */
DF_VAL uint64_t df_lp_cancel_shape(df_pcg32 *r, df_type t, uint64_t n, uint32_t *lo,
                                   df_bounded32 *window, uint32_t *slo)
{
    uint32_t top = df_lp_top_field(t, n);
    uint32_t width = df_pcg32_bounded(r, 3);
    *lo = top / 2 + df_pcg32_bounded(r, top - top / 2 - width + 1);
    *window = df_lp_fields(*lo, *lo + width);
    uint32_t gap = 2 + df_pcg32_bounded(r, 14);
    *slo = *lo > gap ? *lo - gap : 0;
    uint64_t small = df_min_u64(n, 1 + df_pcg32_bounded(r, 4));
    return (n - small) / 2;
}

/* Pair p: elements 2p and 2p + 1, (x, y) and (x, -y). */
DF_VAL_HOT void df_lp_cancel_pair(df_pcg32 *r, df_type t, void *a, void *b, uint64_t p,
                                  uint32_t lo, const df_bounded32 *window)
{
    uint32_t sign = 1u << (df_lowp_shape_of(df_val_lowp(t)).bits - 1);
    uint32_t x = df_lp_draw(r, t, lo, window);
    uint32_t y = df_lp_draw(r, t, lo, window);
    df_lp_put(t, a, 2 * p, x);
    df_lp_put(t, b, 2 * p, y);
    df_lp_put(t, a, 2 * p + 1, x);
    df_lp_put(t, b, 2 * p + 1, y ^ sign);
}

/* The small terms, elements [i0, n), then whether the pairs are shuffled. */
DF_VAL int df_lp_cancel_small(df_pcg32 *r, df_type t, void *a, void *b, uint64_t i0, uint64_t n,
                              uint32_t slo)
{
    const df_bounded32 one = df_lp_fields(slo, slo);
    for (uint64_t i = i0; i < n; i++) {
        df_lp_put(t, a, i, df_lp_draw(r, t, slo, &one));
        df_lp_put(t, b, i, df_lp_draw(r, t, slo, &one));
    }
    return df_pcg32_bounded(r, 4) != 0;
}

/* An lp-cancel case but its shuffle: returns whether its pairs are
 * shuffled (from r, next). */
DF_VAL int df_fill_lp_cancel_pairs(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    if (n == 0)
        return 0;
    uint32_t lo, slo;
    df_bounded32 window;
    uint64_t pairs = df_lp_cancel_shape(r, t, n, &lo, &window, &slo);
    for (uint64_t p = 0; p < pairs; p++)
        df_lp_cancel_pair(r, t, a, b, p, lo, &window);
    return df_lp_cancel_small(r, t, a, b, 2 * pairs, n, slo);
}

DF_VAL void df_fill_lp_cancel(df_pcg32 *r, df_type t, void *a, void *b, uint64_t n)
{
    if (df_fill_lp_cancel_pairs(r, t, a, b, n))
        df_val_shuffle_pairs(r, t, a, b, n);
}

#endif
