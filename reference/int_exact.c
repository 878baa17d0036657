/* int_exact.c — the exact dot of integer data (int64 where a span's sum
 * cannot overflow, __int128 where it can), the classification of a span
 * that tells whether data are such integers, and the 128-bit integer's
 * roundings and comparisons.
 *
 * A span is classified (maxima, integrality, non-finite values) with
 * branch-free integer reductions, then summed while it is still in L1.
 * Nothing here allocates or keeps state.
 */
#include <math.h>
#include <string.h>

#include "fuzz/cpu_clones.h"
#include "reference/refs_internal.h"

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

#define F64_ABS_MASK UINT64_C(0x7fffffffffffffff)
#define F64_INF_BITS UINT64_C(0x7ff0000000000000)
#define F32_ABS_MASK UINT32_C(0x7fffffff)
#define F32_INF_BITS UINT32_C(0x7f800000)

static uint64_t f64_bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static double f64_from_bits(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static uint32_t f32_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float f32_from_bits(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* ---- span classification --------------------------------------------- */

/* x is an integer iff |x| >= 2^52 (no fraction bits left) or rounding |x|
 * to an integer leaves it unchanged. Adding and subtracting 2^52 rounds
 * |x| < 2^52 to an integer: the sum lies in [2^52, 2^53), whose ulp is 1.
 * Without -fassociative-math the compiler cannot fold (ax + C) - C. */
DF_CPU_CLONES static df_span_class classify_f64(const double *x, uint64_t len)
{
    uint64_t maxbits = 0;
    unsigned nonint = 0;
    for (uint64_t i = 0; i < len; i++) {
        uint64_t bits = f64_bits(x[i]) & F64_ABS_MASK;
        double ax = fabs(x[i]);
        double r = (ax + 0x1p52) - 0x1p52;
        maxbits = bits > maxbits ? bits : maxbits;
        nonint |= (unsigned)(ax < 0x1p52) & (unsigned)(r != ax);
    }
    df_span_class k;
    k.nonfinite = maxbits >= F64_INF_BITS;
    k.nan = maxbits > F64_INF_BITS;
    k.max_abs = f64_from_bits(maxbits);
    k.nonint = nonint != 0;
    return k;
}

DF_CPU_CLONES static df_span_class classify_f32(const float *x, uint64_t len)
{
    uint32_t maxbits = 0;
    unsigned nonint = 0;
    for (uint64_t i = 0; i < len; i++) {
        uint32_t bits = f32_bits(x[i]) & F32_ABS_MASK;
        float ax = fabsf(x[i]);
        float r = (ax + 0x1p23f) - 0x1p23f;
        maxbits = bits > maxbits ? bits : maxbits;
        nonint |= (unsigned)(ax < 0x1p23f) & (unsigned)(r != ax);
    }
    df_span_class k;
    k.nonfinite = maxbits >= F32_INF_BITS;
    k.nan = maxbits > F32_INF_BITS;
    k.max_abs = f32_from_bits(maxbits);
    k.nonint = nonint != 0;
    return k;
}

/* Cloned functions stay static: clang 14 names a cloned function's
 * entry point NAME.ifunc, which a caller in another file does not find. */
df_span_class df_classify_f32(const float *x, uint64_t len)
{
    return classify_f32(x, len);
}

/* |x| in uint32 (|INT32_MIN| = 2^31 fits), so the loop is a 32-bit
 * abs and unsigned max, which vectorizes. */
DF_CPU_CLONES static df_span_class classify_i32(const int32_t *x, uint64_t len)
{
    uint32_t m = 0;
    for (uint64_t i = 0; i < len; i++) {
        uint32_t v = (uint32_t)x[i];
        uint32_t av = x[i] < 0 ? 0u - v : v;
        m = av > m ? av : m;
    }
    df_span_class k = {(double)m, 0, 0, 0};
    return k;
}

df_span_class df_classify(df_type t, const void *x, uint64_t off, uint64_t len)
{
    switch (t) {
    case DF_F32: return classify_f32((const float *)x + off, len);
    case DF_F64: return classify_f64((const double *)x + off, len);
    case DF_I32: return classify_i32((const int32_t *)x + off, len);
    default: break; /* low-precision data come widened to f32 (refs_lowp.c) */
    }
    df_span_class none = {0.0, 0, 0, 0};
    return none;
}

/* ---- exact integer dot ---------------------------------------------- */

/* Where int64 switches to __int128: every partial sum of a span is bounded
 * by len * max|a| * max|b|. When that product is at most INT64_MAX, a
 * `long long` accumulator cannot overflow and the loop runs in plain
 * 64-bit adds; otherwise the span accumulates in __int128 (each product
 * still fits int64, so only the add is wide). The test is made once per
 * span from the span's maxima (maxima <= 2^31, so ma * mb <= 2^62 fits
 * uint64), never per element. Spans are of at most DF_REFS_SPAN = 2^11
 * elements, so int64 is chosen whenever max|a| max|b| <= 2^52 (the seeds'
 * [-50, 50] data always), and a single large element sends only its own
 * span down the __int128 path. Span sums are added into an __int128
 * total, which cannot overflow: n < 2^64 products of magnitude <= 2^62. */
#define EXACT_SPAN(NAME, T)                                                    \
    static i128 NAME(const T *a, const T *b, uint64_t len, uint64_t mab)      \
    {                                                                          \
        if (len == 0)                                                          \
            return 0;                                                          \
        if (mab <= (uint64_t)INT64_MAX / len) {                                \
            long long s = 0;                                                   \
            for (uint64_t i = 0; i < len; i++)                                 \
                s += (long long)a[i] * (long long)b[i];                        \
            return s;                                                          \
        }                                                                      \
        i128 s = 0;                                                            \
        for (uint64_t i = 0; i < len; i++)                                     \
            s += (i128)((long long)a[i] * (long long)b[i]);                    \
        return s;                                                              \
    }

EXACT_SPAN(exact_span_f32, float)
EXACT_SPAN(exact_span_f64, double)
EXACT_SPAN(exact_span_i32, int32_t)

df_int128 df_exact_span(df_type t, const void *a, const void *b, uint64_t off, uint64_t len,
                        double max_a, double max_b)
{
    uint64_t mab = (uint64_t)max_a * (uint64_t)max_b;
    switch (t) {
    case DF_F32:
        return exact_span_f32((const float *)a + off, (const float *)b + off, len, mab);
    case DF_F64:
        return exact_span_f64((const double *)a + off, (const double *)b + off, len, mab);
    case DF_I32:
        return exact_span_i32((const int32_t *)a + off, (const int32_t *)b + off, len, mab);
    default: break; /* low-precision data come widened to f32 (refs_lowp.c) */
    }
    return 0;
}

int df_exact_dot_int(df_type t, const void *a, const void *b, uint64_t n,
                     df_i128 *out)
{
    i128 total = 0;
    for (uint64_t off = 0; off < n; off += DF_REFS_SPAN) {
        uint64_t len = n - off < DF_REFS_SPAN ? n - off : DF_REFS_SPAN;
        df_span_class ka = df_classify(t, a, off, len);
        df_span_class kb = df_classify(t, b, off, len);
        if (!df_exact_eligible(ka, kb))
            return -1;
        total += df_exact_span(t, a, b, off, len, ka.max_abs, kb.max_abs);
    }
    *out = df_i128_pack(total);
    return 0;
}

/* ---- 128-bit integer helpers ---------------------------------------- */

static int clz_u128(u128 m) /* m != 0 */
{
    uint64_t hi = (uint64_t)(m >> 64);
    return hi ? __builtin_clzll(hi) : 64 + __builtin_clzll((uint64_t)m);
}

/* Round-to-nearest-even of an unsigned 128-bit integer, done by hand so it
 * does not depend on the runtime's int128 conversion. */
static double u128_to_double_rn(u128 m)
{
    if ((m >> 53) == 0)
        return (double)(uint64_t)m; /* fits in 53 bits: exact */
    int top = 127 - clz_u128(m);    /* index of the leading bit, >= 53 */
    int shift = top - 52;           /* keep 53 significant bits */
    u128 q = m >> shift;
    u128 rem = m & (((u128)1 << shift) - 1);
    u128 half = (u128)1 << (shift - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++; /* may carry to 2^53: still exact in double */
    return ldexp((double)(uint64_t)q, shift);
}

static double i128_to_double_rn(i128 v)
{
    if (v < 0)
        return -u128_to_double_rn((u128)0 - (u128)v);
    return u128_to_double_rn((u128)v);
}

void df_i128_to_double2(df_i128 v, double *hi, double *lo)
{
    i128 x = df_i128_unpack(v);
    double h = i128_to_double_rn(x);
    /* h is an integer (|h| >= 2^53 or exact) of magnitude <= 2^127, and
     * |x - h| <= ulp(h)/2 < 2^75. The difference is taken in wrapping
     * unsigned arithmetic because h itself may be 2^127, which does not
     * fit in a signed 128-bit integer; the true difference does. */
    u128 mh = (u128)fabs(h);
    u128 hx = h < 0 ? (u128)0 - mh : mh;
    i128 d = (i128)((u128)x - hx);
    *hi = h;
    *lo = i128_to_double_rn(d);
}

int df_i128_fits_i64(df_i128 v)
{
    return v.hi == -(int64_t)(v.lo >> 63);
}

int df_i128_cmp_i64(df_i128 v, int64_t x)
{
    int64_t xhi = x < 0 ? -1 : 0;
    if (v.hi != xhi)
        return v.hi < xhi ? -1 : 1;
    uint64_t xlo = (uint64_t)x;
    return (v.lo > xlo) - (v.lo < xlo);
}
