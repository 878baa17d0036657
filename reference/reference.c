/* reference.c — CPU references for a dot product: the Kahan-compensated
 * dot with a rigorous error bound, G = sum |a_i b_i|, and everything the
 * oracle needs about a case's inputs at once (df_refs), with the exact
 * integer dot of int_exact.c and the exact dot of exact.c.
 *
 * Data are processed in spans small enough to stay in L1: each span is
 * classified (int_exact.c), then summed while it is still in cache, so
 * every function reads memory once. Nothing here allocates or keeps state.
 *
 * The Kahan loop must run exactly as written: the project compiles host C
 * with -ffp-contract=off and without -ffast-math (no reassociation), which
 * is what keeps (t - s) - y from being folded to zero.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "fuzz/cpu_clones.h"
#include "reference/reference.h"
#include "reference/refs_internal.h"

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "reference.c needs FLT_EVAL_METHOD == 0 (no extended-precision temporaries)"
#endif

__extension__ typedef __int128 i128;

/* ---- inputs holding Inf -------------------------------------------------- */

/* Over inputs holding +-Inf and no NaN: which infinite products there are
 * (INF_POS, INF_NEG; INF_ZERO for a 0 * Inf) and the sum of |a_i b_i| over
 * the finite products, in index order, added into *fin_g. */
enum { INF_POS = 1, INF_NEG = 2, INF_ZERO = 4 };
#define INF_SPAN(NAME, T)                                                      \
    static unsigned NAME(const T *a, const T *b, uint64_t n, double *fin_g)    \
    {                                                                          \
        unsigned seen = 0;                                                     \
        double g = *fin_g;                                                     \
        for (uint64_t i = 0; i < n; i++) {                                     \
            double x = (double)a[i], y = (double)b[i];                         \
            if (isinf(x) || isinf(y))                                          \
                seen |= x == 0 || y == 0 ? INF_ZERO                            \
                        : (x < 0) != (y < 0) ? INF_NEG                         \
                                             : INF_POS;                        \
            else                                                               \
                g += fabs(x * y);                                              \
        }                                                                      \
        *fin_g = g;                                                            \
        return seen;                                                           \
    }

INF_SPAN(inf_span_f32, float)
INF_SPAN(inf_span_f64, double)

static unsigned inf_span(df_type t, const void *a, const void *b, uint64_t off, uint64_t len,
                         double *fin_g)
{
    if (t == DF_F32)
        return inf_span_f32((const float *)a + off, (const float *)b + off, len, fin_g);
    if (t == DF_F64)
        return inf_span_f64((const double *)a + off, (const double *)b + off, len, fin_g);
    return 0; /* integers are never infinite */
}

/* The class any order of the sum gives, from inf_span's products seen. */
static double inf_class(unsigned seen)
{
    if ((seen & INF_ZERO) || (seen & (INF_POS | INF_NEG)) == (INF_POS | INF_NEG))
        return NAN;
    return seen & INF_POS ? INFINITY : -INFINITY;
}

/* Products seen that give a span's class back (inf_class), for merging
 * spans: a NaN class stays NaN whatever it meets, an infinity keeps its
 * sign. */
static unsigned inf_seen_of(double want)
{
    return isnan(want) ? INF_ZERO : want > 0 ? INF_POS : INF_NEG;
}

/* ---- Kahan and G ------------------------------------------------------ */

/* Running state of the Kahan sum and of G, carried across chunks so that
 * chunking does not change the order of operations. */
typedef struct kahan_state {
    double s, c;  /* Kahan sum and compensation */
    double g;     /* recursive sum of |p_i| (G) */
    double maxp;  /* largest |p_i| (tells whether i32 products rounded) */
} kahan_state;

/* Each product is formed in double: exact for f32 (24 + 24 bits) and for
 * i32 when |p| < 2^53, rounded once for f64 (and for larger i32). */
#define KAHAN_SPAN(NAME, T)                                                    \
    static void NAME(const T *a, const T *b, uint64_t len, kahan_state *st)    \
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
                                   kahan_state *st)                            \
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
    static void NAME(df_type t, const void *a, const void *b, uint64_t off,   \
                     uint64_t len, kahan_state *st)                            \
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
        }                                                                      \
    }

SPAN_BY_TYPE(exact_sum_span, exact_sum)
SPAN_BY_TYPE(kahan_span, kahan_span)

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
static double kahan_bound(df_type t, uint64_t n, const kahan_state *st)
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
    kahan_state st = {0.0, 0.0, 0.0, 0.0};
    kahan_span(t, a, b, 0, n, &st);
    if (err_bound)
        *err_bound = kahan_bound(t, n, &st);
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
    }
    return 0.0;
}

/* ---- everything at once ------------------------------------------------ */

/* The exact dot of f32 data from the products the Kahan lanes form anyway
 * (exact in double: 24 + 24 bits), by pre-rounding them into EXACT_BINS
 * bins of fixed units (Demmel and Nguyen's error-free extraction, as in
 * ReproBLAS and ExBLAS; the ideas, not their code): with a unit u and
 * M = 1.5 2^52 u, q = (r + M) - M is r rounded to a multiple of u, exactly,
 * for |r| <= 2^51 u, and r - q is exact too. A case of n <= 2^C terms
 * with every |p| <= P takes u_0 = 2^(ceil(log2 P) - W), W = 50 - C, and
 * u_(k+1) = u_k 2^-(W-1): bin 0 gets |q| <= 2^W u_0, bin k + 1 gets
 * |r| <= u_k / 2 = 2^(W-2) u_(k+1), so each bin's sum of at most 2^C such
 * multiples of its unit stays below 2^50 units: every addition is exact.
 * What is left after the last bin is zero for every product exactly when
 * each product is a multiple of the last unit (about P 2^-(3 W)), i.e.
 * when the products' bits span no more than 3 W - 2 places: then the sum
 * of the bins is the exact dot (df_exact_of_doubles); else the lane says
 * so and the superaccumulator does it. The extraction's additions fill
 * the issue slots the Kahan chain leaves idle. */
#define EXACT_BINS 3
typedef struct bins_state {
    double s[EXACT_BINS]; /* each bin's sum: exact, a multiple of its unit */
    double m[EXACT_BINS]; /* its extractor, 1.5 2^52 times its unit */
    int64_t left;         /* nonzero once a product left bits below the last bin */
} bins_state;

/* Bins for a case of n terms of magnitude at most P (finite, >= 0). */
static bins_state bins_init(uint64_t n, double P)
{
    int C = 0, E;
    while (C < 40 && (UINT64_C(1) << C) < n)
        C++;
    int W = 50 - C;
    (void)frexp(P, &E); /* P < 2^E (P = 0: any unit will do) */
    bins_state b;
    for (int k = 0; k < EXACT_BINS; k++) {
        b.s[k] = 0.0;
        b.m[k] = ldexp(1.5, 52 + E - W - k * (W - 1));
    }
    b.left = 0;
    return b;
}

/* Data to bring into this core's L2 while the lanes run (the next window's
 * jobs, df_refs_compute_many): the Kahan chain leaves the core waiting on
 * its additions, so prefetches issued from its loop cost nothing, and the
 * next window's first pass then reads its data from L2 instead of memory. */
#define MANY_WINDOW 16 /* df_refs_compute_many's jobs at a time */
typedef struct prefetch_list {
    const char *p[2 * MANY_WINDOW]; /* a window's vectors */
    uint64_t lines[2 * MANY_WINDOW]; /* 64-byte lines from p */
    unsigned k, at;     /* entries; the one going on */
    unsigned per;       /* lines per element of the lanes' loop */
    uint64_t line;      /* the next line of it */
} prefetch_list;

#define KAHAN_BLOCK 128
/* Kahan sums side by side, one per case of element type T, in the lanes
 * of 8-double vectors, the first `live` lanes (one set of eight, or two
 * past eight), over their first len elements: each lane does the
 * operations of KAHAN_SPAN in its order, so each state ends bit for bit as
 * its own kahan_span would leave it.
 * Kahan's chain is four dependent additions an element, so one sum alone
 * leaves the core mostly waiting; sixteen in two vectors fill it (an
 * x86-64-v4 clone does a vector in one instruction, with 32 registers for
 * the state; the others in two or four). The products go first, lane by
 * lane, a block at a time, into P (element-major: P[i][lane], in L1), so
 * that the sums' loop loads a vector of lanes where it would gather them.
 * With BINS (f32) each lane also extracts its products into its bins (bs);
 * with pl, the loop brings pl's lines into L2 (per an element).
 * Lanes past the live ones add products of +0 (none is formed for them).
 * Which NaN an addition passes on depends on the operand order (see
 * df_refs_compute_many): the caller keeps data holding a NaN out. */
#define KAHAN_SET 8                    /* lanes of a vector */
#define KAHAN_LANES (2 * KAHAN_SET)    /* at most two vectors */
typedef double v8d __attribute__((vector_size(64)));
typedef int64_t v8l __attribute__((vector_size(64)));
#define V8_ABS(x) ((v8d)((v8l)(x) & (v8l){INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, \
                                             INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX}))
#define V8_MAX(x, m) ((v8d)((((x) > (m)) & (v8l)(x)) | (~((x) > (m)) & (v8l)(m))))
/* The blocks of KAHAN_LANES_SPAN with a constant number of sets, so that
 * its state stays in registers (the sets' loop unrolled). */
#define KAHAN_LANES_LOOP(T, BINS, SETS)                                          \
    for (uint64_t off = 0; off < len; off += KAHAN_BLOCK) {                      \
        uint64_t bl = len - off < KAHAN_BLOCK ? len - off : KAHAN_BLOCK;         \
        for (unsigned k = 0; k < live; k++) {                                    \
            const T *a = (const T *)va[k] + off, *b = (const T *)vb[k] + off;    \
            for (uint64_t i = 0; i < bl; i++)                                    \
                P[i * KAHAN_LANES + k] = (double)a[i] * (double)b[i];            \
        }                                                                        \
        for (uint64_t i = 0; i < bl; i++) {                                      \
            for (unsigned x = 0; x < per && pat < pk; x++) {                     \
                __builtin_prefetch(pl->p[pat] + 64 * pline, 0, 2);               \
                if (++pline == pl->lines[pat])                                   \
                    pat++, pline = 0;                                            \
            }                                                                    \
            for (unsigned j = 0; j < (SETS); j++) {                              \
                v8d p, y, t, ap;                                                 \
                memcpy(&p, &P[i * KAHAN_LANES + KAHAN_SET * j], sizeof p);       \
                y = p - c[j];                                                    \
                t = s[j] + y;                                                    \
                c[j] = (t - s[j]) - y;                                           \
                s[j] = t;                                                        \
                ap = V8_ABS(p);                                                  \
                g[j] += ap;                                                      \
                mx[j] = V8_MAX(ap, mx[j]);                                       \
                for (unsigned x = 0; BINS && x < EXACT_BINS; x++) {              \
                    v8d q = (p + bm[j][x]) - bm[j][x];                           \
                    bs[j][x] += q;                                               \
                    p -= q;                                                      \
                }                                                                \
                if (BINS)                                                        \
                    left[j] |= (v8l)(p != 0.0);                                  \
            }                                                                    \
        }                                                                        \
    }

#define KAHAN_LANES_SPAN(NAME, T, BINS)                                          \
    DF_CPU_CLONES_V4 static void NAME(const void *const *va, const void *const *vb, \
                                   uint64_t len, unsigned live, kahan_state *st,  \
                                   bins_state *bst, prefetch_list *pl)            \
    {                                                                            \
        double P[KAHAN_BLOCK * KAHAN_LANES] __attribute__((aligned(64)));        \
        const unsigned sets = live > KAHAN_SET ? 2 : 1;                          \
        for (unsigned k = live; k < KAHAN_SET * sets; k++) /* lanes not live: 0 */ \
            for (unsigned i = 0; i < KAHAN_BLOCK; i++)                           \
                P[i * KAHAN_LANES + k] = 0.0;                                    \
        v8d s[2], c[2], g[2], mx[2], bs[2][EXACT_BINS], bm[2][EXACT_BINS];       \
        v8l left[2];                                                             \
        /* the prefetch list's place, in registers */                            \
        unsigned pat = pl ? pl->at : 0, pk = pl ? pl->k : 0, per = pl ? pl->per : 0; \
        uint64_t pline = pl ? pl->line : 0;                                      \
        for (unsigned j = 0; j < 2; j++)                                         \
            for (unsigned k = 0; k < KAHAN_SET; k++) {                           \
                const kahan_state *q = &st[KAHAN_SET * j + k];                   \
                const bins_state *qb = BINS ? &bst[KAHAN_SET * j + k] : NULL;    \
                s[j][k] = q->s, c[j][k] = q->c, g[j][k] = q->g, mx[j][k] = q->maxp; \
                for (unsigned x = 0; BINS && x < EXACT_BINS; x++)                \
                    bs[j][x][k] = qb->s[x], bm[j][x][k] = qb->m[x];              \
                left[j][k] = BINS ? qb->left : 0;                                \
            }                                                                    \
        if (sets == 2)                                                           \
            KAHAN_LANES_LOOP(T, BINS, 2)                                         \
        else                                                                     \
            KAHAN_LANES_LOOP(T, BINS, 1)                                         \
        if (pl)                                                                  \
            pl->at = pat, pl->line = pline;                                      \
        for (unsigned j = 0; j < sets; j++)                                      \
            for (unsigned k = 0; k < KAHAN_SET; k++) {                           \
                st[KAHAN_SET * j + k] = (kahan_state){s[j][k], c[j][k], g[j][k], mx[j][k]}; \
                for (unsigned x = 0; BINS && x < EXACT_BINS; x++)                \
                    bst[KAHAN_SET * j + k].s[x] = bs[j][x][k];                   \
                if (BINS)                                                        \
                    bst[KAHAN_SET * j + k].left = left[j][k];                    \
            }                                                                    \
    }

KAHAN_LANES_SPAN(kahan_lanes_f32, float, 1)
KAHAN_LANES_SPAN(kahan_lanes_f32_sums, float, 0) /* the sums alone (no bins) */
KAHAN_LANES_SPAN(kahan_lanes_f64, double, 0)
KAHAN_LANES_SPAN(kahan_lanes_i32, int32_t, 0)

/* The exact dot known as out->fp (finite data: df_exact_dot's kind is
 * finite) also gives the head and tail. */
static void refs_fp_out(df_refs *out)
{
    if (out->fp.kind != DF_EXACT_FINITE)
        return;
    out->fp_known = 1;
    out->exact_known = 1;
    out->exact_hi = out->fp.hi;
    out->exact_lo = out->fp.lo;
}

/* One pass over memory: per chunk, classify both vectors, add the chunk's
 * exact integer dot while the data still qualify, and run Kahan and G over
 * it; the chunk is in L1 for the second and third reads. G is the Kahan
 * loop's sequential sum of |p_i|: for integer data below 2^53 it is then
 * exact, and it reaches 2^53 exactly when the true G does (the oracle's
 * exact regime rests on that).
 *
 * While the data are integers whose sums stay exact (the bound
 * sum len max|a| max|b| over the chunks so far at most 2^53), one
 * vectorized pass (exact_sum_span) gives the Kahan state and the integer
 * dot at once. From the first chunk where that fails, Kahan runs as
 * written: in the scan when run_kahan, else not at all, and the offset
 * where the caller must start it (with *st as it stands) is returned; n
 * when nothing is left. Integer data also give the superaccumulator's
 * digits from their integer dot (df_exact_of_int), without its pass. */
static uint64_t refs_scan(df_type t, const void *a, const void *b, uint64_t n,
                          df_refs *out, kahan_state *st, int run_kahan, int *fp_later,
                          int no_fp)
{
    memset(out, 0, sizeof *out);
    i128 total = 0;
    int eligible = 1, nonint = 0, inf_a = 0, inf_b = 0;
    int fast = 1;                 /* every chunk so far summed exactly */
    uint64_t from = 0, bound = 0; /* Kahan's start; the exact sums' bound */
    const uint64_t exact_max = UINT64_C(1) << 53;
    for (uint64_t off = 0; off < n; off += DF_REFS_SPAN) {
        uint64_t len = n - off < DF_REFS_SPAN ? n - off : DF_REFS_SPAN;
        df_span_class ka = df_classify(t, a, off, len);
        df_span_class kb = df_classify(t, b, off, len);
        inf_a |= ka.nonfinite;
        inf_b |= kb.nonfinite;
        out->has_nan |= ka.nan | kb.nan;
        nonint |= ka.nonint | kb.nonint;
        if (!ka.nonfinite && ka.max_abs > out->max_abs_a)
            out->max_abs_a = ka.max_abs;
        if (!kb.nonfinite && kb.max_abs > out->max_abs_b)
            out->max_abs_b = kb.max_abs;
        eligible = eligible && df_exact_eligible(ka, kb);
        if (fast && eligible) {
            uint64_t mab = (uint64_t)ka.max_abs * (uint64_t)kb.max_abs; /* <= 2^62 */
            fast = mab <= (exact_max - bound) / len;
            if (fast) {
                bound += len * mab;
                double s0 = st->s;
                exact_sum_span(t, a, b, off, len, st);
                total += (int64_t)(st->s - s0); /* exact: both sums are */
                from = off + len;
                continue;
            }
        }
        fast = 0;
        if (eligible)
            total += df_exact_span(t, a, b, off, len, ka.max_abs, kb.max_abs);
        if (run_kahan) {
            kahan_span(t, a, b, off, len, st);
            from = off + len;
        }
    }
    /* A vector holding NaN or Inf has no finite maximum magnitude. */
    if (inf_a)
        out->max_abs_a = INFINITY;
    if (inf_b)
        out->max_abs_b = INFINITY;
    out->has_nonfinite = inf_a | inf_b;
    out->all_integer = !nonint && !out->has_nonfinite;
    if (out->has_nonfinite && !out->has_nan) {
        out->fin_g = 0.0;
        out->inf_want = inf_class(inf_span(t, a, b, 0, n, &out->fin_g));
    }
    out->exact_known = eligible;
    out->exact_is_int = eligible;
    if (eligible) {
        out->exact = df_i128_pack(total);
        df_i128_to_double2(out->exact, &out->exact_hi, &out->exact_lo);
    }
    /* any finite float data: the superaccumulator (reference/exact.c) gives
     * s exactly, and the errors of a result are measured against its digits */
    if (t != DF_I32 && eligible) {
        df_exact_of_int(out->exact, &out->fp);
        out->fp_known = 1;
    } else if (t != DF_I32 && !out->has_nonfinite && !no_fp) {
        if (fp_later && t == DF_F32 && from == 0)
            *fp_later = 1; /* from the Kahan lanes' bins, after them */
        else if (df_exact_dot(t, a, b, n, &out->fp) == 0)
            refs_fp_out(out);
    }
    return from;
}

/* The Kahan sum's part of out, from its final state. */
static void refs_kahan_out(df_type t, uint64_t n, const kahan_state *st, df_refs *out)
{
    out->G = st->g;
    out->kahan = st->s;
    out->kahan_err = kahan_bound(t, n, st);
}

/* ---- long cases: a chunk at a time ------------------------------------- */

void df_refs_part_compute(df_type t, const void *a, const void *b, uint64_t n, uint64_t j,
                          df_refs_part *out)
{
    size_t es = df_type_size(t);
    uint64_t off = j * DF_REFS_CHUNK, len = n - off < DF_REFS_CHUNK ? n - off : DF_REFS_CHUNK;
    const void *pa = (const char *)a + off * es, *pb = (const char *)b + off * es;
    df_refs r;
    kahan_state st = {0.0, 0.0, 0.0, 0.0};
    refs_scan(t, pa, pb, len, &r, &st, 1, NULL, 1);
    out->max_abs_a = r.max_abs_a;
    out->max_abs_b = r.max_abs_b;
    out->nonfinite = (uint8_t)r.has_nonfinite;
    out->nan = (uint8_t)r.has_nan;
    out->all_integer = (uint8_t)r.all_integer;
    out->eligible = (uint8_t)r.exact_is_int;
    out->total = r.exact;
    out->s = st.s;
    out->g = st.g;
    out->maxp = st.maxp;
    /* the finite products' sum: G itself over finite data (the same
     * additions in the same order, or exact sums in the integer pass) */
    out->fin_g = st.g;
    out->inf_seen = 0;
    if (r.has_nonfinite && !r.has_nan) { /* refs_scan's inf_span */
        out->fin_g = r.fin_g;
        out->inf_seen = inf_seen_of(r.inf_want);
    }
    out->has_acc = 0;
    if (t != DF_I32 && !r.has_nonfinite && !r.exact_is_int) {
        df_exact_acc_init(&out->acc);
        out->has_acc = df_exact_acc_dot(&out->acc, t, pa, pb, len) == 0;
    }
}

void df_refs_merge_init(df_refs_merger *m)
{
    memset(&m->p, 0, sizeof m->p);
    m->p.all_integer = 1;
    m->p.eligible = 1;
    m->parts = 0;
    m->finite_s = 1;
    df_exact_acc_init(&m->fp);
    df_exact_acc_init(&m->sums);
}

void df_refs_merge_add(df_refs_merger *m, const df_refs_part *p)
{
    df_refs_part *q = &m->p;
    q->max_abs_a = p->max_abs_a > q->max_abs_a ? p->max_abs_a : q->max_abs_a;
    q->max_abs_b = p->max_abs_b > q->max_abs_b ? p->max_abs_b : q->max_abs_b;
    q->nonfinite |= p->nonfinite;
    q->nan |= p->nan;
    q->all_integer &= p->all_integer;
    q->eligible &= p->eligible;
    if (p->eligible) {
        i128 sum = df_i128_unpack(q->total) + df_i128_unpack(p->total);
        q->total = df_i128_pack(sum);
        df_exact_acc_add_int(&m->fp, p->total.hi, p->total.lo);
    } else if (p->has_acc) {
        df_exact_acc_merge(&m->fp, &p->acc);
    }
    q->s += p->s; /* the chunks' sums in order, where one is not finite */
    if (isfinite(p->s))
        df_exact_acc_add_double(&m->sums, p->s);
    else
        m->finite_s = 0;
    q->g += p->g;
    q->maxp = p->maxp > q->maxp ? p->maxp : q->maxp;
    q->fin_g += p->fin_g;
    q->inf_seen |= p->inf_seen;
    m->parts++;
}

void df_refs_merge_out(df_refs_merger *m, df_type t, uint64_t n, df_refs *out)
{
    const df_refs_part *q = &m->p;
    memset(out, 0, sizeof *out);
    /* a non-finite part's maximum is +Inf (refs_scan): the case's too */
    out->max_abs_a = q->max_abs_a;
    out->max_abs_b = q->max_abs_b;
    out->has_nonfinite = q->nonfinite;
    out->has_nan = q->nan;
    out->all_integer = q->all_integer;
    out->exact_known = q->eligible;
    out->exact_is_int = q->eligible;
    if (q->eligible) {
        out->exact = q->total;
        df_i128_to_double2(out->exact, &out->exact_hi, &out->exact_lo);
    }
    if (t != DF_I32 && q->eligible) {
        df_exact_of_int(out->exact, &out->fp);
        out->fp_known = 1;
    } else if (t != DF_I32 && !q->nonfinite) {
        df_exact_acc_out(&m->fp, &out->fp);
        refs_fp_out(out);
    }
    if (q->nonfinite && !q->nan) {
        out->fin_g = q->fin_g;
        out->inf_want = inf_class(q->inf_seen);
    }
    /* Kahan's sum: each chunk's from zero, their sum rounded once (or, where
     * one is not finite, added in chunk order); its bound is each chunk's
     * (at most the whole's: kahan_bound with G and n) plus that rounding,
     * u |kahan| (and 2^-1074 where it is subnormal), the factor 1 + 2^-51
     * undoing the three roundings of the sum of the bounds */
    kahan_state st = {q->s, 0.0, q->g, q->maxp};
    if (m->finite_s) {
        df_exact sums;
        df_exact_acc_out(&m->sums, &sums);
        st.s = sums.hi;
    }
    refs_kahan_out(t, n, &st, out);
    out->kahan_err = (out->kahan_err + 0x1p-53 * fabs(out->kahan) + 0x1p-1074) * (1.0 + 0x1p-51);
}

void df_refs_compute(df_type t, const void *a, const void *b, uint64_t n,
                     df_refs *out)
{
    kahan_state st = {0.0, 0.0, 0.0, 0.0};
    if (n > DF_REFS_CHUNK) { /* a chunk at a time, merged (df_refs_part) */
        df_refs_merger m;
        df_refs_part p;
        df_refs_merge_init(&m);
        for (uint64_t j = 0; j < df_refs_chunks(n); j++) {
            df_refs_part_compute(t, a, b, n, j, &p);
            df_refs_merge_add(&m, &p);
        }
        df_refs_merge_out(&m, t, n, out);
        return;
    }
    refs_scan(t, a, b, n, out, &st, 1, NULL, 0);
    refs_kahan_out(t, n, &st, out);
}

int df_refs_negated(df_type t, const df_refs *in, df_refs *out)
{
    if (in->has_nan || in->kahan == 0.0 || isnan(in->kahan) ||
        (t == DF_I32 && in->max_abs_a >= 2147483648.0))
        return -1;
    *out = *in;
    out->kahan = -in->kahan;
    if (in->has_nonfinite && !isnan(in->inf_want))
        out->inf_want = -in->inf_want; /* an infinity's class (NaN's stays) */
    if (in->exact_is_int) {
        out->exact = df_i128_pack(-df_i128_unpack(in->exact)); /* |exact| < 2^94 */
        df_i128_to_double2(out->exact, &out->exact_hi, &out->exact_lo);
        if (in->fp_known)
            df_exact_of_int(out->exact, &out->fp);
    } else if (in->fp_known) {
        df_exact_negate(&in->fp, &out->fp);
        out->exact_hi = out->fp.hi;
        out->exact_lo = out->fp.lo;
    }
    return 0;
}

/* df_refs_permuted_many's job alone (kahan_side_by_side runs one sum as
 * kahan_span). */
int df_refs_permuted(df_type t, const void *a, const void *b, uint64_t n, const df_refs *in,
                     df_refs *out)
{
    df_refs r = *in;
    df_refs_job job = {t, a, b, n, &r};
    unsigned char ok;
    df_refs_permuted_many(&job, 1, &ok);
    if (!ok)
        return -1;
    *out = r;
    return 0;
}

int df_refs_scaled(df_type t, const void *a, const void *b, uint64_t n, int k,
                   const df_refs *in, df_refs *out)
{
    if (t != DF_F32 || n > DF_REFS_CHUNK || in->has_nonfinite || !in->fp_known ||
        in->fp.kind != DF_EXACT_FINITE || k < -30 || k > 30)
        return -1;
    /* the classes of the data as the references see them (a has moved;
     * both are in this core's cache: a was just written, b referenced) */
    df_span_class ka = df_classify_f32(a, n), kb = df_classify_f32(b, n);
    if (ka.nonfinite || kb.nonfinite || ka.max_abs != ldexp(in->max_abs_a, k) ||
        kb.max_abs != in->max_abs_b)
        return -1; /* not in->'s data scaled */
    df_refs r = *in;
    /* every sum the references form scales exactly: the products are
     * exact in double and stay far inside its range, 2^k a sum of them is
     * a double whenever the sum is, and Kahan's bound is G times constants */
    r.kahan = ldexp(in->kahan, k);
    r.kahan_err = ldexp(in->kahan_err, k);
    r.G = ldexp(in->G, k);
    r.max_abs_a = ka.max_abs;
    r.all_integer = !ka.nonint && !kb.nonint;
    if (df_exact_eligible(ka, kb)) { /* the integer path: exact as an integer */
        if (!in->exact_is_int)
            return -1; /* became integers: their dot is not at hand as one */
        i128 v = df_i128_unpack(in->exact), unit = (i128)1 << (k < 0 ? -k : k);
        if (k < 0 && v % unit != 0)
            return -1;
        r.exact = df_i128_pack(k < 0 ? v / unit : v * unit);
        df_i128_to_double2(r.exact, &r.exact_hi, &r.exact_lo);
        df_exact_of_int(r.exact, &r.fp);
    } else {
        r.exact_is_int = 0;
        r.exact = df_i128_pack(0);
        if (df_exact_scale(&in->fp, k, &r.fp) != 0)
            return -1;
        r.exact_hi = r.fp.hi;
        r.exact_lo = r.fp.lo;
    }
    r.exact_known = 1;
    r.fp_known = 1;
    *out = r;
    return 0;
}

/* The bins' exact dot of one f32 case alone, in the lanes' own code (every
 * lane on it): 0 with *out as df_exact_dot gives it, or -1 where some
 * product has bits below the last bin (or the data are not finite). */
int df_exact_bins_f32(const float *a, const float *b, uint64_t n, df_exact *out)
{
    double ma = 0.0, mb = 0.0;
    for (uint64_t off = 0; off < n; off += DF_REFS_SPAN) {
        uint64_t len = n - off < DF_REFS_SPAN ? n - off : DF_REFS_SPAN;
        df_span_class ka = df_classify_f32(a + off, len), kb = df_classify_f32(b + off, len);
        if (ka.nonfinite || kb.nonfinite)
            return -1;
        ma = ka.max_abs > ma ? ka.max_abs : ma;
        mb = kb.max_abs > mb ? kb.max_abs : mb;
    }
    const void *va[KAHAN_LANES], *vb[KAHAN_LANES];
    kahan_state st[KAHAN_LANES];
    bins_state bs[KAHAN_LANES];
    for (unsigned j = 0; j < KAHAN_LANES; j++) {
        va[j] = a, vb[j] = b;
        st[j] = (kahan_state){0.0, 0.0, 0.0, 0.0};
        bs[j] = bins_init(n, ma * mb);
    }
    kahan_lanes_f32(va, vb, n, 1, st, bs, NULL);
    if (bs[0].left)
        return -1;
    df_exact_of_doubles(bs[0].s, EXACT_BINS, out);
    return 0;
}

/* The Kahan sums of k jobs of one element type (k <= KAHAN_LANES), each
 * from its empty state, side by side while two or more go on, the longest
 * finished alone; f32 jobs also with their bins (bst, unless NULL), which hold the
 * exact dot only where a job ran to its end in the lanes: the longest
 * one's part alone sets `left`, and the superaccumulator does it (in the
 * lanes with one live lane, a default run's windows of random lengths
 * were 8% slower on the development machine than the scalar sum with the
 * superaccumulator). */
static void kahan_side_by_side(const df_refs_job *const *q, unsigned k, kahan_state *st,
                               bins_state *bst, prefetch_list *pl)
{
    df_type t = q[0]->t;
    size_t es = df_type_size(t);
    /* the jobs by length, shortest first (insertion sort of at most 8) */
    unsigned ord[KAHAN_LANES];
    for (unsigned j = 0; j < k; j++) {
        unsigned i = j;
        for (; i > 0 && q[ord[i - 1]]->n > q[j]->n; i--)
            ord[i] = ord[i - 1];
        ord[i] = j;
        st[j] = (kahan_state){0.0, 0.0, 0.0, 0.0};
        if (t == DF_F32 && bst)
            bst[j] = bins_init(q[j]->n, q[j]->out->max_abs_a * q[j]->out->max_abs_b);
    }
    /* Stage by stage: the lanes still going run together up to the next
     * shortest length, then that one leaves (its state is final) and the
     * rest move down a lane. Each lane still does its own sum's additions
     * in order, so lengths that differ (random ones, in a default run) no
     * longer leave all but the shortest prefix to kahan_span. */
    uint64_t off = 0;
    unsigned first = 0; /* ord[first..k): still going */
    while (k - first >= 2) {
        uint64_t end = q[ord[first]]->n;
        if (end > off) {
            const void *a[KAHAN_LANES], *b[KAHAN_LANES];
            kahan_state lane[KAHAN_LANES];
            bins_state lb[KAHAN_LANES];
            unsigned live = k - first;
            for (unsigned j = 0; j < KAHAN_LANES; j++) {
                /* lanes past the live ones read no data; their states (the
                 * first's) go in and are dropped */
                unsigned x = ord[first + (j < live ? j : 0)];
                a[j] = (const char *)q[x]->a + off * es;
                b[j] = (const char *)q[x]->b + off * es;
                lane[j] = st[x];
                if (t == DF_F32 && bst)
                    lb[j] = bst[x];
            }
            switch (t) {
            case DF_F32:
                if (bst)
                    kahan_lanes_f32(a, b, end - off, live, lane, lb, pl);
                else
                    kahan_lanes_f32_sums(a, b, end - off, live, lane, NULL, pl);
                break;
            case DF_F64: kahan_lanes_f64(a, b, end - off, live, lane, NULL, pl); break;
            case DF_I32: kahan_lanes_i32(a, b, end - off, live, lane, NULL, pl); break;
            }
            for (unsigned j = 0; j < live; j++) {
                st[ord[first + j]] = lane[j];
                if (t == DF_F32 && bst)
                    bst[ord[first + j]] = lb[j];
            }
            off = end;
        }
        first++;
    }
    if (first < k && q[ord[first]]->n > off) { /* the longest, alone */
        kahan_span(t, q[ord[first]]->a, q[ord[first]]->b, off, q[ord[first]]->n - off,
                   &st[ord[first]]);
        if (t == DF_F32 && bst) /* its bins miss the rest: the superaccumulator */
            bst[ord[first]].left = 1;
    }
}

void df_refs_permuted_many(const df_refs_job *jobs, size_t m, unsigned char *ok)
{
    static const df_type types[] = {DF_F32, DF_F64, DF_I32};
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        const df_refs_job *q[KAHAN_LANES];
        unsigned k = 0;
        for (size_t i = 0; i <= m; i++) {
            if (i < m && jobs[i].t == types[ti]) {
                /* data without NaN or Inf (no NaN in the lanes), one chunk
                 * long (past it Kahan's sum restarts at each chunk). Only
                 * Kahan's sum, G and the bound depend on the order; the
                 * scan's exact integer path, where it applies, sums
                 * exactly, as Kahan does there (every partial sum a
                 * double: its corrections stay 0) */
                ok[i] = jobs[i].n <= DF_REFS_CHUNK && !jobs[i].out->has_nonfinite;
                if (ok[i])
                    q[k++] = &jobs[i];
            }
            if (k == KAHAN_LANES || (i == m && k > 0)) {
                kahan_state st[KAHAN_LANES];
                kahan_side_by_side(q, k, st, NULL, NULL); /* no bins: the exact dot is the case's */
                for (unsigned j = 0; j < k; j++)
                    refs_kahan_out(q[j]->t, q[j]->n, &st[j], q[j]->out);
                k = 0;
            }
        }
    }
}

#define PREFETCH_MAX_LINES ((1u << 20) / 64) /* 1 MiB of the next window's data */

/* MANY_WINDOW jobs are scanned at a time: their Kahan states wait on the
 * stack, and the lanes take them all in one pass (KAHAN_LANES). */

void df_refs_compute_many(const df_refs_job *jobs, size_t m)
{
    for (size_t w0 = 0; w0 < m; w0 += MANY_WINDOW) {
        size_t w = m - w0 < MANY_WINDOW ? m - w0 : MANY_WINDOW;
        const df_refs_job *job = jobs + w0;
        kahan_state st[MANY_WINDOW];
        bins_state bins[MANY_WINDOW];
        uint64_t from[MANY_WINDOW];
        int fp_later[MANY_WINDOW];
        /* the next window's data, brought in while this one's lanes run */
        prefetch_list pl = {.k = 0, .at = 0, .line = 0, .per = 0};
        uint64_t lines = 0, longest = 0;
        for (size_t i = w0 + w; i < m && i < w0 + w + MANY_WINDOW; i++)
            for (int v = 0; v < 2 && jobs[i].n; v++) {
                pl.p[pl.k] = (const char *)((uintptr_t)(v ? jobs[i].b : jobs[i].a) & ~(uintptr_t)63);
                pl.lines[pl.k] = (jobs[i].n * df_type_size(jobs[i].t) + 127) / 64;
                lines += pl.lines[pl.k++];
            }
        for (size_t i = 0; i < w; i++)
            longest = job[i].n > longest ? job[i].n : longest;
        /* only what the L2 holds beside this window's data (2 MiB a core on
         * the H200's host): 16 cases of 2000 f32 pairs are 256 KiB */
        if (longest && lines <= PREFETCH_MAX_LINES)
            pl.per = (unsigned)((lines + longest - 1) / longest);
        for (size_t i = 0; i < w; i++) {
            st[i] = (kahan_state){0.0, 0.0, 0.0, 0.0};
            fp_later[i] = 0;
            if (job[i].n > DF_REFS_CHUNK) { /* chunk by chunk: nothing left after */
                df_refs_compute(job[i].t, job[i].a, job[i].b, job[i].n, job[i].out);
                from[i] = job[i].n;
                continue;
            }
            from[i] = refs_scan(job[i].t, job[i].a, job[i].b, job[i].n, job[i].out, &st[i], 0,
                                &fp_later[i], 0);
        }
        /* The Kahan sums left: up to KAHAN_LANES of one type go side by
         * side, in vector lanes; a job whose data hold a NaN goes alone:
         * where two NaNs of different signs meet in an addition, the one
         * that comes out depends on the order of the operands in the
         * instruction, which the compiler picks for each loop (and the
         * oracle writes that NaN into case files). Without one in the data,
         * every NaN the sum makes is the machine's default NaN (or its
         * absolute value, in G), the same bits whichever wins. So do jobs
         * whose sum starts past their first chunk. */
        static const df_type types[] = {DF_F32, DF_F64, DF_I32};
        for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
            const df_refs_job *q[KAHAN_LANES];
            size_t at[KAHAN_LANES];
            unsigned k = 0;
            for (size_t i = 0; i <= w; i++) {
                if (i < w && (job[i].t != types[ti] || from[i] >= job[i].n))
                    continue;
                if (i < w && (from[i] != 0 || job[i].out->has_nan)) {
                    kahan_span(job[i].t, job[i].a, job[i].b, from[i], job[i].n - from[i], &st[i]);
                    continue;
                }
                if (i < w)
                    q[k] = &job[i], at[k++] = i;
                if (k == KAHAN_LANES || (i == w && k > 0)) {
                    kahan_state lane[KAHAN_LANES];
                    bins_state lb[KAHAN_LANES];
                    kahan_side_by_side(q, k, lane, lb, &pl);
                    for (unsigned j = 0; j < k; j++) {
                        st[at[j]] = lane[j];
                        if (types[ti] == DF_F32)
                            bins[at[j]] = lb[j];
                    }
                    k = 0;
                }
            }
        }
        for (size_t i = 0; i < w; i++) {
            if (job[i].n > DF_REFS_CHUNK)
                continue; /* df_refs_compute wrote it whole */
            refs_kahan_out(job[i].t, job[i].n, &st[i], job[i].out);
            if (!fp_later[i])
                continue;
            /* the bins hold the exact dot unless some product had bits
             * below the last one: then the superaccumulator */
            if (!bins[i].left)
                df_exact_of_doubles(bins[i].s, EXACT_BINS, &job[i].out->fp);
            else
                df_exact_dot(job[i].t, job[i].a, job[i].b, job[i].n, &job[i].out->fp);
            refs_fp_out(job[i].out);
        }
    }
}
