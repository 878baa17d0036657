/* kahan.c — the Kahan-compensated dot with its rigorous error bound, and
 * G = sum |a_i b_i|, a span at a time: the scalar chain as written, and
 * the same state from one vectorized pass where integer data keep every
 * sum exact.
 *
 * The Kahan loop must run exactly as written: the project compiles host C
 * with -ffp-contract=off and without -ffast-math (no reassociation), which
 * is what keeps (t - s) - y from being folded to zero.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "fuzz/cpu_clones.h"
#include "reference/refs_internal.h"

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "kahan.c needs FLT_EVAL_METHOD == 0 (no extended-precision temporaries)"
#endif

/* Each product is formed in double: exact for f32 (24 + 24 bits) and for
 * i32 when |p| < 2^53, rounded once for f64 (and for larger i32). */
#define KAHAN_SPAN(NAME, T)                                                    \
    static void NAME(const T *a, const T *b, uint64_t len, df_kahan_state *st) \
    {                                                                          \
        double s = st->s, c = st->c, g = st->g, maxp = st->maxp;               \
        for (uint64_t i = 0; i < len; i++) {                                   \
            double p = (double)a[i] * (double)b[i];                            \
            double y = p - c;                                                  \
            double t = s + y;                                                  \
            c = (t - s) - y;                                                   \
            s = t;                                                             \
            double ap = fabs(p);                                               \
            g += ap;                                                           \
            maxp = ap > maxp ? ap : maxp;                                      \
        }                                                                      \
        st->s = s, st->c = c, st->g = g, st->maxp = maxp;                      \
    }

KAHAN_SPAN(kahan_span_f32, float)
KAHAN_SPAN(kahan_span_f64, double)
KAHAN_SPAN(kahan_span_i32, int32_t)

/* Four doubles, and four elements of each type, as GCC's and clang's
 * vector extensions: one source that the x86-64-v3 clone turns into AVX2
 * and the baseline into pairs of SSE2 operations, each lane doing the
 * IEEE operations its scalar code would. */
typedef double v4d __attribute__((vector_size(32)));
typedef int64_t v4l __attribute__((vector_size(32)));
typedef float v4_float __attribute__((vector_size(16)));
typedef int32_t v4_int32_t __attribute__((vector_size(16)));
typedef double v4_double __attribute__((vector_size(32)));

/* |x| and x > m ? x : m in each lane, as the scalar loops write them;
 * macros, since a function taking a 32-byte vector has another ABI in
 * the baseline build than in the AVX2 clone. */
#define V4_ABS_MASK ((v4l){INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX})
#define V4_ABS(x) ((v4d)((v4l)(x) & V4_ABS_MASK))
#define V4_MAX(x, m) ((v4d)((((x) > (m)) & (v4l)(x)) | (~((x) > (m)) & (v4l)(m))))

/* The Kahan state over integer data whose partial sums are all exact:
 * every |p_i| and every partial sum of the p_i and of the |p_i| at most
 * 2^53 (the caller checks len max|a| max|b| <= 2^53 beside the earlier
 * chunks'). Then each product and each addition of KAHAN_SPAN is exact:
 * y = p - 0 = p, t = s + p, c = (t - s) - y = +0, so its s and g are the
 * exact sums and its c stays +0, and exact sums come out the same in any
 * order. So this adds them in eight independent lanes, in vectors,
 * instead of one chain of four dependent additions an element (and the
 * integer dot is s, read off as an int64). No lane sum is ever
 * -0 (one is only from -0 + -0, and each starts at +0), as the chain's s
 * and g are not. The maximum is order-free too (no NaN in such data). */

/* One step of an exact sum: two sets of four lanes, so that the next
 * additions need not wait for these. */
#define EXACT_SUM_STEP(T, a, b, s, g, mx)                                       \
    do {                                                                       \
        v4_##T va, vb;                                                         \
        memcpy(&va, a, sizeof va);                                             \
        memcpy(&vb, b, sizeof vb);                                             \
        v4d p = __builtin_convertvector(va, v4d) * __builtin_convertvector(vb, v4d); \
        v4d ap = V4_ABS(p);                                                    \
        s += p;                                                                \
        g += ap;                                                               \
        mx = V4_MAX(ap, mx);                                                   \
    } while (0)

#define EXACT_SUM_SPAN(NAME, T)                                                \
    DF_CPU_CLONES static void NAME(const T *a, const T *b, uint64_t len,      \
                                   df_kahan_state *st)                         \
    {                                                                          \
        v4d s0 = {0}, s1 = {0}, g0 = {0}, g1 = {0}, m0 = {0}, m1 = {0};        \
        uint64_t i = 0;                                                        \
        for (; i + 8 <= len; i += 8) {                                         \
            EXACT_SUM_STEP(T, a + i, b + i, s0, g0, m0);                       \
            EXACT_SUM_STEP(T, a + i + 4, b + i + 4, s1, g1, m1);               \
        }                                                                      \
        s0 += s1, g0 += g1, m0 = V4_MAX(m1, m0);                               \
        double ss = st->s, gg = st->g, mm = st->maxp;                          \
        for (unsigned k = 0; k < 4; k++) {                                     \
            ss += s0[k];                                                       \
            gg += g0[k];                                                       \
            mm = m0[k] > mm ? m0[k] : mm;                                      \
        }                                                                      \
        for (; i < len; i++) {                                                 \
            double p = (double)a[i] * (double)b[i];                            \
            double ap = fabs(p);                                               \
            ss += p;                                                           \
            gg += ap;                                                          \
            mm = ap > mm ? ap : mm;                                            \
        }                                                                      \
        st->s = ss, st->g = gg, st->maxp = mm;                                 \
    }

EXACT_SUM_SPAN(exact_sum_f32, float)
EXACT_SUM_SPAN(exact_sum_f64, double)
EXACT_SUM_SPAN(exact_sum_i32, int32_t)

/* NAME(t, a, b, off, len, st): PREFIX##_f32, _f64 or _i32 by type, on the
 * elements [off, off + len). */
#define SPAN_BY_TYPE(NAME, PREFIX)                                             \
    void NAME(df_type t, const void *a, const void *b, uint64_t off,           \
              uint64_t len, df_kahan_state *st)                                \
    {                                                                          \
        switch (t) {                                                           \
        case DF_F32:                                                           \
            PREFIX##_f32((const float *)a + off, (const float *)b + off, len, st); \
            break;                                                             \
        case DF_F64:                                                           \
            PREFIX##_f64((const double *)a + off, (const double *)b + off, len, st); \
            break;                                                             \
        case DF_I32:                                                           \
            PREFIX##_i32((const int32_t *)a + off, (const int32_t *)b + off, len, st); \
            break;                                                             \
        default: /* low-precision data come widened to f32 (refs_lowp.c) */   \
            break;                                                             \
        }                                                                      \
    }

SPAN_BY_TYPE(df_exact_sum_span, exact_sum)
SPAN_BY_TYPE(df_kahan_span, kahan_span)

/* Rigorous bound on |kahan - exact| for finite inputs without overflow.
 * With u = 2^-53, S = sum |p^_i| over the computed products:
 *   Kahan's summation error (Higham, Accuracy and Stability, sec. 4.3):
 *     (2u + 4 n u^2) S
 *   product roundings, f64 data (and i32 data once some |p| >= 2^53):
 *     u S, because |p - fl(p)| <= u |fl(p)| under round-to-nearest,
 *   products that underflow (f64 only; f32 products are exact):
 *     at most 2^-1075 each, covered by n 2^-1074.
 * S is only known as g, its recursive sum: g >= S (1 - (n-1)u), so
 * S <= g (1 + n 2^-52) while n u <= 1/4. The formula below is evaluated
 * with at most 6 roundings, each toward zero by a factor >= (1 - u);
 * the final factor (1 + 2^-50) more than undoes them. */
double df_kahan_bound(df_type t, uint64_t n, const df_kahan_state *st)
{
    const double u = 0x1p-53;
    double dn = (double)n;
    int rounded_products = t == DF_F64 || (t == DF_I32 && st->maxp >= 0x1p53);
    double coef = 2.0 * u + 4.0 * dn * u * u;
    if (rounded_products)
        coef += u;
    double bound = coef * (st->g * (1.0 + dn * 0x1p-52));
    if (t == DF_F64)
        bound += dn * 0x1p-1074;
    return bound * (1.0 + 0x1p-50);
}

double df_kahan_dot(df_type t, const void *a, const void *b, uint64_t n,
                    double *err_bound)
{
    df_kahan_state st = {0.0, 0.0, 0.0, 0.0};
    if (df_type_is_lowp(t)) { /* its f32 values, a chunk at a time */
        for (uint64_t j = 0; j < df_widen_chunks(n); j++) {
            const float *wa, *wb;
            uint64_t len = df_widen_chunk(t, a, b, n, j, &wa, &wb);
            df_kahan_span(DF_F32, wa, wb, 0, len, &st);
        }
    } else {
        df_kahan_span(t, a, b, 0, n, &st);
    }
    if (err_bound) /* a low-precision case's is its f32 values' */
        *err_bound = df_kahan_bound(df_type_is_lowp(t) ? DF_F32 : t, n, &st);
    return st.s;
}

/* G alone, summed in the same order as df_refs_compute's G, so the two
 * agree bit for bit. */
#define ABS_SPAN(NAME, T)                                                      \
    static double NAME(const T *a, const T *b, uint64_t n)                     \
    {                                                                          \
        double g = 0.0;                                                        \
        for (uint64_t i = 0; i < n; i++)                                       \
            g += fabs((double)a[i] * (double)b[i]);                            \
        return g;                                                              \
    }

ABS_SPAN(abs_dot_f32, float)
ABS_SPAN(abs_dot_f64, double)
ABS_SPAN(abs_dot_i32, int32_t)

double df_abs_dot(df_type t, const void *a, const void *b, uint64_t n)
{
    switch (t) {
    case DF_F32: return abs_dot_f32(a, b, n);
    case DF_F64: return abs_dot_f64(a, b, n);
    case DF_I32: return abs_dot_i32(a, b, n);
    case DF_F16:
    case DF_BF16:
    case DF_E4M3:
    case DF_E5M2: break;
    }
    double g = 0.0; /* its f32 values, a chunk at a time, in order */
    for (uint64_t j = 0; j < df_widen_chunks(n); j++) {
        const float *wa, *wb;
        uint64_t len = df_widen_chunk(t, a, b, n, j, &wa, &wb);
        for (uint64_t i = 0; i < len; i++)
            g += fabs((double)wa[i] * (double)wb[i]);
    }
    return g;
}
