/* exact.c — the exact dot product of f32, f64 and i32 vectors, correctly
 * rounded from a long fixed-point accumulator.
 *
 * Every finite float is an integer significand times a power of two:
 * x = mx * 2^(ex' - bias), mx < 2^24 (f32) or 2^53 (f64), with ex' the
 * biased exponent field (1 for zeros and subnormals, whose significand has
 * no implicit bit). A product is then the integer mx * my (< 2^48 or 2^106)
 * times 2^(ex' + ey' - 2 bias), computed exactly with an integer multiply.
 * Nothing is ever rounded, so nothing underflows or overflows.
 *
 * Why not the FMA route for f64 (ExBLAS's TwoProductFMA: p = a * b rounded,
 * e = fma(a, b, -p), p + e fed to a superaccumulator): e is not exact when
 * it falls below 2^-1074, which happens for every product below about
 * 2^-969 with a long significand, and p overflows for products past
 * DBL_MAX. The integer route has neither: a subnormal product is a small
 * integer times 2^-2148 like any other, and 128-bit buckets flushed in time
 * cannot overflow.
 *
 * Two levels, after Neal's "small" and "large" superaccumulators
 * (R. M. Neal, Fast exact summation using small and large
 * superaccumulators, arXiv:1505.05571, 2015):
 *  - buckets: one unsigned integer per (exponent sum, sign) of a product,
 *    like his large superaccumulator (one chunk per exponent and sign bit),
 *    so adding a product is a single integer add into a slot chosen by its
 *    key. f32: a uint64 per key (2^16 products of < 2^48 each before it
 *    could wrap). f64: a 128-bit integer per group of 8 exponents, the
 *    product shifted left by (exponent mod 8) < 2^113, 2^15 before it could
 *    wrap. Buckets are flushed into the digits before that point.
 *  - digits: the whole range as 32-bit digits held in int64, so each digit
 *    can absorb many signed additions before carries are propagated; Neal's
 *    small superaccumulator overlaps its 64-bit chunks by 32 bits the same
 *    way, and ExBLAS's superaccumulator keeps 8 carry-save bits per 64-bit
 *    word (S. Collange, D. Defour, S. Graillat, R. Iakymchuk, Numerical
 *    reproducibility for the parallel reduction on multi- and many-core
 *    architectures, ParCo 2015). The range is Kulisch's long accumulator
 *    for binary64 (U. Kulisch, Computer Arithmetic and Validity, 2008):
 *    every product of two doubles, times up to 2^64 terms, 4288 bits.
 * Carries are propagated once per flush; at the end the digits become a
 * sign and a magnitude, and every rounding (to double, to float, of s - hi,
 * of |r - s|) is done once from the exact magnitude. No code is taken from
 * those works; the ideas named are. This file holds the buckets and the
 * dot; the digits and their adds are exact_internal.h's, the roundings
 * and the error measures exact_round.c's, the accumulator as a value of
 * its own (a dot in parts) exact_acc.c's.
 *
 * Speed. f32: the keys and significand products of a block of 256 elements
 * are formed first by a branch-free loop the compiler vectorizes (an AVX2
 * build of it is chosen at run time on x86-64), then scattered into 4
 * interleaved copies of the buckets (element i into copy i mod 4), so that
 * consecutive products with the same exponent do not wait on each other's
 * store. f64: the 64 x 64 -> 128-bit multiply has no SIMD form, so its loop
 * is scalar, with a faster variant for blocks without zeros or subnormals.
 * Short dots clear and scan only the buckets and digits they touch, so the
 * fixed cost of a call is well under a microsecond.
 *
 * Nothing here allocates or keeps state; the working state (about 40 KiB)
 * lives on the stack of df_exact_dot.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reference/exact_internal.h"
#include "reference/int_exact.h"
#include "reference/refs_internal.h"

__extension__ typedef unsigned __int128 u128;

#define LSB DF_EXACT_LSB

/* ---- non-finite inputs ------------------------------------------------- */

enum { CLS_FINITE, CLS_ZERO, CLS_INF, CLS_NAN };

static int cls_f32(uint32_t u)
{
    u &= UINT32_C(0x7fffffff);
    if (u == 0)
        return CLS_ZERO;
    if (u < UINT32_C(0x7f800000))
        return CLS_FINITE;
    return u == UINT32_C(0x7f800000) ? CLS_INF : CLS_NAN;
}

static int cls_f64(uint64_t u)
{
    u &= UINT64_C(0x7fffffffffffffff);
    if (u == 0)
        return CLS_ZERO;
    if (u < UINT64_C(0x7ff0000000000000))
        return CLS_FINITE;
    return u == UINT64_C(0x7ff0000000000000) ? CLS_INF : CLS_NAN;
}

/* Folds one product into the IEEE class of the sum: *seen gets bit 0 for a
 * +Inf product, bit 1 for -Inf. Returns 1 when the sum is already NaN.
 * Finite products cannot change the class of a sum that has an Inf. */
static int class_fold(int ca, int cb, int negative, unsigned *seen)
{
    if (ca == CLS_NAN || cb == CLS_NAN)
        return 1;
    if (ca != CLS_INF && cb != CLS_INF)
        return 0;
    if (ca == CLS_ZERO || cb == CLS_ZERO)
        return 1; /* 0 * Inf */
    *seen |= negative ? 2u : 1u;
    return *seen == 3u; /* +Inf + -Inf */
}

static int class_kind(unsigned seen)
{
    if (seen == 3u)
        return DF_EXACT_NAN;
    if (seen == 1u)
        return DF_EXACT_POS_INF;
    return seen == 2u ? DF_EXACT_NEG_INF : DF_EXACT_FINITE;
}

static int nonfinite_kind_f32(const float *a, const float *b, uint64_t n)
{
    unsigned seen = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t ua, ub;
        memcpy(&ua, a + i, sizeof ua);
        memcpy(&ub, b + i, sizeof ub);
        if (class_fold(cls_f32(ua), cls_f32(ub), (ua ^ ub) >> 31, &seen))
            return DF_EXACT_NAN;
    }
    return class_kind(seen);
}

static int nonfinite_kind_f64(const double *a, const double *b, uint64_t n)
{
    unsigned seen = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t ua, ub;
        memcpy(&ua, a + i, sizeof ua);
        memcpy(&ub, b + i, sizeof ub);
        if (class_fold(cls_f64(ua), cls_f64(ub), (int)((ua ^ ub) >> 63), &seen))
            return DF_EXACT_NAN;
    }
    return class_kind(seen);
}

/* ---- f32: products into uint64 buckets ------------------------------ */

#define BLK 256                 /* elements decoded per block */
#define F32_KEYS 1024           /* key = (ea' + eb') << 1 | sign; ea' + eb' <= 510 */
#define F32_COPIES 4            /* interleaved bucket copies (element i -> i mod 4) */
#define F32_PER_COPY (UINT64_C(1) << 16) /* (2^24 - 1)^2 * 2^16 < 2^64 */
#define F32_SMALL_N 2048        /* below: the key range tracked */
#define F32_KEY_MIN 4           /* finite keys: ea' + eb' in [2, 508] */
#define F32_KEY_MAX 1017
#define F32_POS(e) ((e) - 300 - LSB) /* bit index of m * 2^(e - 300) */

/* Buckets [key][copy]. Key 0 (no product has it: ea' + eb' >= 2) takes
 * the zero products, which add 0; only keys in [lo, hi) are cleared, the
 * range growing block by block with the keys seen (a pair of keys, + and
 * -, at a time), so a short dot clears and scans a few keys, not 1024. */
typedef struct f32_work {
    uint64_t bucket[F32_KEYS * F32_COPIES];
    uint32_t lo, hi;
    uint64_t m[BLK];                       /* significand products of a block */
    uint32_t key[BLK];                     /* (32-bit keys: no packing in SIMD) */
} f32_work;

/* What decoding a block found: non-finite exponents (bit 8 of nf), and the
 * range of its keys other than 0 (kmax = 0 when there is none, or when the
 * range was not tracked). */
typedef struct f32_block {
    uint32_t nf, kmin, kmax;
} f32_block;

/* One product: its significand product and key. */
static inline uint32_t decode_f32(uint32_t ua, uint32_t ub, uint64_t *m,
                                  uint32_t *key, uint32_t *nf)
{
    uint32_t ea = (ua >> 23) & 0xff, eb = (ub >> 23) & 0xff;
    uint32_t ma = (ua & UINT32_C(0x7fffff)) | (uint32_t)(ea != 0) << 23;
    uint32_t mb = (ub & UINT32_C(0x7fffff)) | (uint32_t)(eb != 0) << 23;
    uint32_t e = ea + eb + (ea == 0) + (eb == 0);
    *m = (uint64_t)ma * mb;
    *key = e << 1 | (ua ^ ub) >> 31;
    *nf |= (ea + 1) | (eb + 1); /* bit 8: an exponent field of 255 */
    return (uint32_t)(ma != 0) & (uint32_t)(mb != 0);
}

/* With the range tracked, a zero product takes key 0, and k - 1 wraps it
 * to the top so that the minimum ignores it. */
#define DECODE_F32_LOOP(len, track)                                            \
    uint32_t nf = 0, kmin1 = UINT32_MAX, kmax = 0;                             \
    for (uint64_t i = 0; i < (len); i++) {                                     \
        uint32_t ua, ub;                                                       \
        memcpy(&ua, a + i, sizeof ua);                                         \
        memcpy(&ub, b + i, sizeof ub);                                         \
        uint32_t live = decode_f32(ua, ub, m + i, key + i, &nf);               \
        if (track) {                                                           \
            uint32_t k = key[i] & (0u - live);                                 \
            key[i] = k;                                                        \
            kmin1 = k - 1 < kmin1 ? k - 1 : kmin1;                             \
            kmax = k > kmax ? k : kmax;                                        \
        }                                                                      \
    }                                                                          \
    f32_block r = {nf, kmin1 + 1, kmax};                                       \
    return r;

/* Full blocks, fixed trip count: vectorized at -O2 (gcc 12's very-cheap
 * cost model vectorizes only loops that need no scalar epilogue). Short
 * dots track the range of keys (so that few are cleared and scanned); long
 * ones clear every finite key once and skip that work. */
static f32_block decode_ranged_f32(const float *restrict a, const float *restrict b,
                                   uint64_t *restrict m, uint32_t *restrict key)
{
    DECODE_F32_LOOP(BLK, 1)
}

static f32_block decode_plain_f32(const float *restrict a, const float *restrict b,
                                  uint64_t *restrict m, uint32_t *restrict key)
{
    DECODE_F32_LOOP(BLK, 0)
}

/* The same loops built for AVX2, chosen at run time: SSE2 (the x86-64
 * baseline the project builds for) spends most of the decode on shuffles,
 * 2-lane 32 x 32 -> 64-bit multiplies and emulated unsigned min/max; AVX2
 * has them all at twice the width. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_AVX2_DECODE 1
__attribute__((target("avx2"))) static f32_block
decode_ranged_f32_avx2(const float *restrict a, const float *restrict b,
                       uint64_t *restrict m, uint32_t *restrict key)
{
    DECODE_F32_LOOP(BLK, 1)
}

__attribute__((target("avx2"))) static f32_block
decode_plain_f32_avx2(const float *restrict a, const float *restrict b,
                      uint64_t *restrict m, uint32_t *restrict key)
{
    DECODE_F32_LOOP(BLK, 0)
}
#endif

static int cpu_has_avx2(void)
{
#ifdef HAVE_AVX2_DECODE
    return __builtin_cpu_supports("avx2");
#else
    return 0;
#endif
}

static f32_block decode_tail_f32(const float *a, const float *b, uint64_t len,
                                 uint64_t *m, uint32_t *key)
{
    DECODE_F32_LOOP(len, 1)
}

static f32_block decode_f32_block(const float *a, const float *b, uint64_t len,
                                  int track, int avx2, uint64_t *m, uint32_t *key)
{
    if (len < BLK)
        return decode_tail_f32(a, b, len, m, key);
#ifdef HAVE_AVX2_DECODE
    if (avx2)
        return track ? decode_ranged_f32_avx2(a, b, m, key)
                     : decode_plain_f32_avx2(a, b, m, key);
#endif
    (void)avx2;
    return track ? decode_ranged_f32(a, b, m, key) : decode_plain_f32(a, b, m, key);
}

static void scatter4_f32(uint64_t *restrict bucket, const uint64_t *restrict m,
                         const uint32_t *restrict key, uint64_t len)
{
    uint64_t i = 0;
    for (; i + 4 <= len; i += 4) {
        bucket[key[i] * 4u + 0] += m[i];
        bucket[key[i + 1] * 4u + 1] += m[i + 1];
        bucket[key[i + 2] * 4u + 2] += m[i + 2];
        bucket[key[i + 3] * 4u + 3] += m[i + 3];
    }
    for (; i < len; i++)
        bucket[key[i] * 4u + (i & 3)] += m[i];
}

/* Grows the cleared key range to hold [kmin, kmax], whole +/- pairs. */
static void cover_f32(f32_work *w, unsigned copies, uint32_t kmin, uint32_t kmax)
{
    uint32_t lo = kmin & ~1u, hi = (kmax | 1u) + 1;
    uint64_t *bk = w->bucket;
    size_t per_key = copies * sizeof bk[0];
    if (w->lo == w->hi) {
        memset(bk + lo * copies, 0, (hi - lo) * per_key);
        w->lo = lo, w->hi = hi;
        return;
    }
    if (lo < w->lo) {
        memset(bk + lo * copies, 0, (w->lo - lo) * per_key);
        w->lo = lo;
    }
    if (hi > w->hi) {
        memset(bk + w->hi * copies, 0, (hi - w->hi) * per_key);
        w->hi = hi;
    }
}

/* Moves the buckets into the digits and clears them. The copies of a key
 * sum below 2^66; positive minus negative is added as one signed value. */
static void flush_f32(f32_work *w, unsigned copies, df_exact_acc *A)
{
    for (uint32_t key = w->lo; key < w->hi; key += 2) {
        uint64_t *pos = w->bucket + key * copies;
        uint64_t *neg = pos + copies;
        u128 p = 0, q = 0;
        for (unsigned c = 0; c < copies; c++) {
            p += pos[c];
            q += neg[c];
            pos[c] = neg[c] = 0;
        }
        if (p != q)
            df_acc_add128(A, F32_POS((int)(key >> 1)), p > q ? p - q : q - p, p < q);
    }
    df_acc_normalize(A);
}

/* Returns DF_EXACT_FINITE with the sum in A, or the non-finite kind. Only
 * finite keys are ever cleared and flushed: a block with an Inf or NaN stops
 * the loop before its products are scattered. */
static int exact_f32(const float *a, const float *b, uint64_t n, df_exact_acc *A)
{
    f32_work w;
    /* four copies even for short dots: one would make a run of products
     * with one key (constant data) wait on each other's store, and with
     * the range tracked four cost little to clear */
    const unsigned copies = F32_COPIES;
    int track = n < F32_SMALL_N, avx2 = cpu_has_avx2();
    uint64_t limit = copies * F32_PER_COPY, since = 0;
    w.lo = w.hi = 0;
    memset(w.bucket, 0, copies * sizeof w.bucket[0]); /* key 0 */
    if (!track)
        cover_f32(&w, copies, F32_KEY_MIN, F32_KEY_MAX);
    for (uint64_t off = 0; off < n; off += BLK) {
        uint64_t len = n - off < BLK ? n - off : BLK;
        f32_block k = decode_f32_block(a + off, b + off, len, track, avx2, w.m, w.key);
        if (k.nf & 0x100)
            return nonfinite_kind_f32(a, b, n);
        /* Full blocks are multiples of 4, so copy c holds at most
         * ceil(since / copies) products: at most 2^16 below the limit. */
        if (since + len > limit) {
            flush_f32(&w, copies, A);
            since = 0;
        }
        if (k.kmax != 0 && (k.kmin < w.lo || k.kmax >= w.hi))
            cover_f32(&w, copies, k.kmin, k.kmax);
        scatter4_f32(w.bucket, w.m, w.key, len);
        since += len;
    }
    flush_f32(&w, copies, A);
    return DF_EXACT_FINITE;
}

/* ---- f64: products into 128-bit buckets ------------------------------ */

#define F64_GROUPS 512          /* group = (ea' + eb') >> 3, ea' + eb' <= 4094 */
#define F64_COPIES 2
#define F64_PER_COPY (UINT64_C(1) << 15) /* (2^53 - 1)^2 * 2^7 * 2^15 < 2^128 */
#define F64_POS(g) (8 * (g) - 2150 - LSB) /* bit index of group g's 2^0 */

/* Buckets [group][sign][copy]; only the groups in [lo, hi) are cleared:
 * the range grows as products land outside it (rarely after the first
 * few), so a short dot clears and scans a few groups, not 512. */
typedef struct f64_range {
    uint64_t lo, hi;
} f64_range;

typedef struct f64_work {
    u128 bucket[F64_GROUPS * 2 * F64_COPIES];
    f64_range r;
} f64_work;

/* The range grown to hold group g, which is outside it; r is not empty. */
static f64_range cover_f64(u128 *bucket, f64_range r, uint64_t g)
{
    if (g < r.lo) {
        memset(bucket + 4 * g, 0, 4 * (r.lo - g) * sizeof(u128));
        r.lo = g;
    } else {
        memset(bucket + 4 * r.hi, 0, 4 * (g + 1 - r.hi) * sizeof(u128));
        r.hi = g + 1;
    }
    return r;
}

static uint64_t exponent_sum_f64(uint64_t ua, uint64_t ub)
{
    uint64_t ea = (ua >> 52) & 0x7ff, eb = (ub >> 52) & 0x7ff;
    return ea + eb + (ea == 0) + (eb == 0);
}

/* What a block holds, from its exponent fields: bit 11 some 2047 (Inf or
 * NaN), bit 12 some 0 (zero or subnormal). A pass of its own: it keeps the
 * flags out of the register pressure of the scalar loops below, and full
 * blocks (constant trip count) are vectorized at -O2 like the f32 decode. */
#define F64_NONFINITE 0x800u
#define F64_SUBNORMAL 0x1000u
#define SCAN_F64_LOOP(len)                                                     \
    uint64_t top = 0, low = 0;                                                 \
    for (uint64_t i = 0; i < (len); i++) {                                     \
        uint64_t ua, ub;                                                       \
        memcpy(&ua, a + i, sizeof ua);                                         \
        memcpy(&ub, b + i, sizeof ub);                                         \
        uint64_t ea = (ua >> 52) & 0x7ff, eb = (ub >> 52) & 0x7ff;             \
        top |= (ea + 1) | (eb + 1); /* bit 11: a field of 2047 */              \
        low |= (ea - 1) | (eb - 1); /* bit 63: a field of 0 */                 \
    }                                                                          \
    return (unsigned)(top & F64_NONFINITE) | (unsigned)(low >> 63) << 12;

static unsigned scan_full_f64(const double *restrict a, const double *restrict b)
{
    SCAN_F64_LOOP(BLK)
}

static unsigned scan_tail_f64(const double *a, const double *b, uint64_t len)
{
    SCAN_F64_LOOP(len)
}

/* Adds a block's finite products. The 64 x 64 -> 128-bit multiply has no
 * SIMD form, so these loops are scalar; the two copies alternate so that
 * the 128-bit add of one product need not wait for the previous one. */
#define ADD_F64_LOOP(significand, exponent_sum, group)                         \
    const uint64_t frac = (UINT64_C(1) << 52) - 1;                             \
    u128 *bucket = w->bucket;                                                  \
    f64_range r = w->r;                                                        \
    for (uint64_t i = 0; i < len; i++) {                                       \
        uint64_t ua, ub;                                                       \
        memcpy(&ua, a + i, sizeof ua);                                         \
        memcpy(&ub, b + i, sizeof ub);                                         \
        uint64_t ma = significand(ua), mb = significand(ub);                   \
        uint64_t e = exponent_sum(ua, ub);                                     \
        uint64_t g = group;                                                    \
        if (g - r.lo >= r.hi - r.lo)                                           \
            r = cover_f64(bucket, r, g);                                       \
        uint64_t slot = g << 2 | ((ua ^ ub) >> 63) << 1 | (i & 1);             \
        bucket[slot] += (u128)(ma << (e & 7)) * mb; /* ma << 7 < 2^60 */       \
    }                                                                          \
    w->r = r;

/* Normal numbers only (the common case): the implicit bit is always there
 * and the exponent sum needs no correction. */
#define SIGNIFICAND_NORMAL(u) (((u) & frac) | (UINT64_C(1) << 52))
#define SIGNIFICAND_ANY(u) (((u) & frac) | (uint64_t)(((u) >> 52 & 0x7ff) != 0) << 52)

static uint64_t exponent_sum_normal_f64(uint64_t ua, uint64_t ub)
{
    return ((ua >> 52) & 0x7ff) + ((ub >> 52) & 0x7ff);
}

static void add_normal_f64(f64_work *w, const double *restrict a,
                           const double *restrict b, uint64_t len)
{
    ADD_F64_LOOP(SIGNIFICAND_NORMAL, exponent_sum_normal_f64, e >> 3)
}

/* Zeros and subnormals too: a zero product adds 0 to the lowest cleared
 * group rather than widen the range (sparse vectors). */
static void add_any_f64(f64_work *w, const double *restrict a,
                        const double *restrict b, uint64_t len)
{
    ADD_F64_LOOP(SIGNIFICAND_ANY, exponent_sum_f64, ((ma == 0) | (mb == 0)) ? r.lo : e >> 3)
}

static void flush_f64(f64_work *w, df_exact_acc *A)
{
    for (uint64_t g = w->r.lo; g < w->r.hi; g++) {
        u128 *slot = w->bucket + 4 * g;
        for (int k = 0; k < 4; k++) { /* (sign, copy) pairs */
            if (slot[k])
                df_acc_add128(A, F64_POS((int)g), slot[k], k >> 1);
            slot[k] = 0;
        }
    }
    df_acc_normalize(A);
}

/* The range starts at the group of the first non-zero product, so that it
 * is never empty in the loop; with none, the sum is zero (or non-finite). */
static int start_f64(f64_work *w, const double *a, const double *b, uint64_t n)
{
    const uint64_t mag = UINT64_C(0x7fffffffffffffff);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t ua, ub;
        memcpy(&ua, a + i, sizeof ua);
        memcpy(&ub, b + i, sizeof ub);
        if ((ua & mag) && (ub & mag)) {
            uint64_t g = exponent_sum_f64(ua, ub) >> 3;
            memset(w->bucket + 4 * g, 0, 4 * sizeof(u128));
            w->r.lo = g, w->r.hi = g + 1;
            return 1;
        }
    }
    return 0;
}

static int exact_f64(const double *a, const double *b, uint64_t n, df_exact_acc *A)
{
    f64_work w;
    uint64_t limit = F64_COPIES * F64_PER_COPY, since = 0;
    if (!start_f64(&w, a, b, n))
        return nonfinite_kind_f64(a, b, n);
    for (uint64_t off = 0; off < n; off += BLK) {
        uint64_t len = n - off < BLK ? n - off : BLK;
        unsigned flags = len == BLK ? scan_full_f64(a + off, b + off)
                                    : scan_tail_f64(a + off, b + off, len);
        if (flags & F64_NONFINITE)
            return nonfinite_kind_f64(a, b, n);
        /* Blocks start at even offsets, so each copy gets ceil(len / 2) at
         * most, and at most 2^15 between flushes. */
        if (since + len > limit) {
            flush_f64(&w, A);
            since = 0;
        }
        if (flags & F64_SUBNORMAL)
            add_any_f64(&w, a + off, b + off, len);
        else
            add_normal_f64(&w, a + off, b + off, len);
        since += len;
    }
    flush_f64(&w, A);
    return DF_EXACT_FINITE;
}

/* ---- i32: the exact integer dot (int_exact.c) ------------------------ */

static void exact_i32(const int32_t *a, const int32_t *b, uint64_t n, df_exact_acc *A)
{
    df_i128 v;
    (void)df_exact_dot_int(DF_I32, a, b, n, &v); /* always succeeds for i32 */
    df_acc_add_int(A, v);
}

/* ---- the dot -------------------------------------------------------------- */

/* A low-precision case's exact dot: its values widened to f32, whole (the
 * references widen a chunk at a time; this is for callers of the dot
 * alone). -1 where the memory is not there. */
static int exact_lowp(df_type t, const void *a, const void *b, uint64_t n, df_exact *out)
{
    float *w = df_type_is_lowp(t) && n < SIZE_MAX / (2 * sizeof(float))
                   ? malloc((size_t)(2 * n + 1) * sizeof(float))
                   : NULL;
    if (!w) {
        df_exact_set_nonfinite(out, DF_EXACT_NAN);
        return -1;
    }
    df_type_widen(t, a, 0, n, w);
    df_type_widen(t, b, 0, n, w + n);
    int rc = df_exact_dot(DF_F32, w, w + n, n, out);
    free(w);
    return rc;
}

int df_exact_dot(df_type t, const void *a, const void *b, uint64_t n,
                 df_exact *out)
{
    df_exact_acc A;
    df_acc_init(&A);
    if (n > 0 && (a == NULL || b == NULL)) {
        df_exact_set_nonfinite(out, DF_EXACT_NAN);
        return -1;
    }
    int kind;
    switch (t) {
    case DF_F32:
        kind = exact_f32(a, b, n, &A);
        break;
    case DF_F64:
        kind = exact_f64(a, b, n, &A);
        break;
    case DF_I32:
        exact_i32(a, b, n, &A);
        kind = DF_EXACT_FINITE;
        break;
    default:
        return exact_lowp(t, a, b, n, out);
    }
    if (kind != DF_EXACT_FINITE)
        df_exact_set_nonfinite(out, kind);
    else
        df_exact_set_finite(out, &A);
    return 0;
}

int df_exact_acc_dot(df_exact_acc *A, df_type t, const void *a, const void *b, uint64_t n)
{
    if (n > 0 && (a == NULL || b == NULL))
        return -1;
    for (uint64_t j = 0; df_type_is_lowp(t) && j < df_widen_chunks(n); j++) {
        const float *wa, *wb; /* its f32 values, a chunk at a time */
        uint64_t len = df_widen_chunk(t, a, b, n, j, &wa, &wb);
        if (exact_f32(wa, wb, len, A) != DF_EXACT_FINITE)
            return -1;
    }
    if (df_type_is_lowp(t))
        return 0;
    if (t == DF_F32)
        return exact_f32(a, b, n, A) == DF_EXACT_FINITE ? 0 : -1;
    if (t == DF_F64)
        return exact_f64(a, b, n, A) == DF_EXACT_FINITE ? 0 : -1;
    return -1;
}
