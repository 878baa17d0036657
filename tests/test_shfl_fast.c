/* test_shfl_fast.c — the shfl host model's fast path (kernels/shfl_model.h:
 * unchecked vectorizable sums, the checks run only where a block partial or
 * a tree's sum is not finite, the last block's warps of +0 left out)
 * against its checked path (every step checked, every tree run), bit for
 * bit: results, NaN payloads and soft-error notes, on random data with
 * subnormals, signed zeros, overflow to Inf, Inf and NaN. CPU only.
 */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/pcg32.h"
#include "kernels/kernel.h"

/* The model's own instances, as kernels/shfl.cu and shfl_f64.cu make them,
 * to reach _dot and its fast switch. */
#define SHFL_NAME t_f32
#define SHFL_ELEM float
#define SHFL_ACC float
#define SHFL_TYPE DF_F32
#define SHFL_V 4
#define SHFL_FMA(x, y, z) fmaf((x), (y), (z))
#include "kernels/shfl_model.h"

#define SHFL_NAME t_f64acc
#define SHFL_ELEM float
#define SHFL_ACC double
#define SHFL_TYPE DF_F32
#define SHFL_V 4
#define SHFL_FMA(x, y, z) fma((double)(x), (double)(y), (z))
#include "kernels/shfl_model.h"

#define SHFL_NAME t_f64
#define SHFL_ELEM double
#define SHFL_ACC double
#define SHFL_TYPE DF_F64
#define SHFL_V 2
#define SHFL_FMA(x, y, z) fma((x), (y), (z))
#include "kernels/shfl_model.h"

/* Values that make every special case: the kind is drawn per case, then
 * per element. big: products near the type's largest (sums overflow in a
 * thread, a tree or the last block); tiny: products that underflow to
 * subnormals or to +-0; negzero: products that round to -0 in the fma
 * (partials -0, which the +0 of idle blocks and zero lanes turn into +0). */
enum { K_PLAIN, K_SPECIALS, K_BIG, K_TINY, K_NEGZERO, K_KINDS };

static double draw_value(df_pcg32 *r, int kind, int f64)
{
    const double big = f64 ? 0x1p511 : 0x1p63, max = f64 ? DBL_MAX : FLT_MAX;
    const double sub = f64 ? 0x1p-1060 : 0x1p-140;
    double x = 2.0 * df_pcg32_double(r) - 1.0;
    switch (kind) {
    case K_SPECIALS:
        switch (df_pcg32_bounded(r, 40)) {
        case 0: return 0.0;
        case 1: return -0.0;
        case 2: return x * sub;
        case 3: return INFINITY;
        case 4: return -INFINITY;
        case 5: return NAN;
        case 6: return -NAN;
        case 7: return df_pcg32_bounded(r, 2) ? max : -max;
        case 8: return x * big;
        default: return x;
        }
    case K_BIG:
        return df_pcg32_bounded(r, 4) ? x * big : x;
    case K_TINY:
        return df_pcg32_bounded(r, 4) ? x * sub * 0x1p20 : 0.0 * x;
    case K_NEGZERO: /* a = -t, b = t: t^2 below half the least subnormal */
        return (f64 ? 0x1p-600 : 0x1p-100) * (1.0 + df_pcg32_double(r));
    default:
        return x;
    }
}

typedef struct fast_stats {
    unsigned noted, nonfinite;
} fast_stats;

/* One case through the test's instance of a model: _dot fast (vf, rf) and
 * checked (vc, rc), and its _model (rt). The values widened to double,
 * which keeps a float's bits, NaN payloads included. */
typedef struct fast_run {
    double vf, vc;
    df_result rf, rc, rt;
} fast_run;

#define RUN_BOTH(PREFIX, ELEM, c, run)                                                   \
    do {                                                                                 \
        const ELEM *pa_ = (const ELEM *)(c)->a, *pb_ = (const ELEM *)(c)->b;            \
        memset(&(run), 0, sizeof(run));                                                  \
        (run).vf = PREFIX##_dot(pa_, pb_, (c)->n, &(c)->launch, &(run).rf, 1);          \
        (run).vc = PREFIX##_dot(pa_, pb_, (c)->n, &(c)->launch, &(run).rc, 0);          \
        df_scratch s_ = {0};                                                             \
        cr_assert_eq(PREFIX##_model((c), &s_, &(run).rt), 0);                            \
    } while (0)

/* Case c of kernel kname through both paths: equal results and notes, bit
 * for bit; so is the registered kernel's host model (the same code, built
 * into the library). Returns the checked path's value. */
static double expect_fast_equals_checked(const char *kname, const df_case *c,
                                         const char *what, fast_stats *st)
{
    fast_run run;
    if (!strcmp(kname, "shfl"))
        RUN_BOTH(t_f32, float, c, run);
    else if (!strcmp(kname, "shfl-f64acc"))
        RUN_BOTH(t_f64acc, float, c, run);
    else
        RUN_BOTH(t_f64, double, c, run);
    cr_assert_eq(memcmp(&run.vf, &run.vc, sizeof run.vf), 0, "%s: fast %a, checked %a", what,
                 run.vf, run.vc);
    cr_assert_eq(run.rf.soft_mask, run.rc.soft_mask, "%s: fast noted %#x, checked %#x", what,
                 run.rf.soft_mask, run.rc.soft_mask);
    cr_assert_eq(memcmp(run.rf.soft, run.rc.soft, sizeof run.rf.soft), 0, "%s: notes differ",
                 what);
    df_result rk;
    memset(&rk, 0, sizeof rk);
    df_scratch s = {0};
    cr_assert_eq(df_kernel_find(kname)->host_model(c, &s, &rk), 0);
    cr_assert_eq(memcmp(&rk, &run.rt, sizeof rk), 0, "%s: %s's model differs", what, kname);
    cr_assert_eq(memcmp(&rk.f, &run.vc, sizeof rk.f), 0, "%s: model %a, checked %a", what,
                 rk.f, run.vc);
    cr_assert_eq(memcmp(rk.soft, run.rc.soft, sizeof rk.soft), 0, "%s: %s's notes", what,
                 kname);
    st->noted += run.rc.soft_mask != 0;
    st->nonfinite += !isfinite(run.vc);
    return run.vc;
}

static df_case make_case(const df_kernel *k, const void *a, const void *b, uint64_t n,
                         df_launch l)
{
    return (df_case){.type = k->elem, .n = n, .a = a, .b = b, .launch = l};
}

/* cases random cases for kernel kname (f32 data but for shfl-f64): n from
 * nmin to nmax, or (when nmin is 0) mostly n = 2000 and any n to nmax; any
 * warp-multiple block, grids from the derived one to 65535 (idle blocks),
 * any offsets (both paths of the map). */
static void check_fast(const char *kname, unsigned cases, uint64_t seed, uint64_t nmin,
                       uint64_t nmax)
{
    const df_kernel *k = df_kernel_find(kname);
    cr_assert_not_null(k);
    const int f64 = k->elem == DF_F64;
    void *a = malloc(nmax * 8), *b = malloc(nmax * 8);
    cr_assert(a && b);
    df_pcg32 r;
    df_pcg32_seed(&r, seed, 3);
    fast_stats st = {0, 0};
    char what[160];
    for (unsigned ci = 0; ci < cases; ci++) {
        uint64_t n = nmin ? nmin + df_pcg32_bounded(&r, (uint32_t)(nmax - nmin + 1))
                 : df_pcg32_bounded(&r, 2) ? 2000 : df_pcg32_bounded(&r, (uint32_t)nmax + 1);
        df_launch l = {32 * (1 + df_pcg32_bounded(&r, 32)), 0, df_pcg32_bounded(&r, 4),
                       df_pcg32_bounded(&r, 4)};
        uint32_t g = df_pcg32_bounded(&r, 4);
        l.grid = g == 0 ? 0 : g == 1 ? 1 + df_pcg32_bounded(&r, 8)
                          : g == 2 ? 1 + df_pcg32_bounded(&r, 4096) : 65535;
        char why[160];
        cr_assert_eq(df_launch_resolve(k, n, &l, why, sizeof why), 0, "%s", why);
        int kind = (int)df_pcg32_bounded(&r, K_KINDS);
        for (uint64_t i = 0; i < n; i++) {
            double x = draw_value(&r, kind, f64), y = draw_value(&r, kind, f64);
            if (kind == K_NEGZERO)
                x = -x;
            if (f64) {
                ((double *)a)[i] = x;
                ((double *)b)[i] = y;
            } else {
                ((float *)a)[i] = (float)x;
                ((float *)b)[i] = (float)y;
            }
        }
        snprintf(what, sizeof what, "%s case %u: n %llu block %u grid %u offsets (%u,%u) kind %d",
                 kname, ci, (unsigned long long)n, l.block, l.grid, l.offset_a, l.offset_b,
                 kind);
        const df_case c = make_case(k, a, b, n, l);
        expect_fast_equals_checked(kname, &c, what, &st);
    }
    /* the cases reach what the fast path must get right; but float
     * products summed in double cannot overflow in 5000 steps */
    if (strcmp(kname, "shfl-f64acc"))
        cr_assert_gt(st.noted, cases / 40, "%s: %u cases noted", kname, st.noted);
    cr_assert_gt(st.nonfinite, cases / 20, "%s: %u non-finite", kname, st.nonfinite);
    free(a);
    free(b);
}

Test(shfl_fast, f32_fast_path_equals_checked_path)
{
    check_fast("shfl", 3000, 91, 0, 5000);
}

Test(shfl_fast, f64acc_fast_path_equals_checked_path)
{
    check_fast("shfl-f64acc", 3000, 92, 0, 5000);
}

Test(shfl_fast, f64_fast_path_equals_checked_path)
{
    check_fast("shfl-f64", 3000, 93, 0, 5000);
}

/* Past the fast path's tile (DF_SHFL_TILE accumulators: 2048 threads of
 * floats): cases of many tiles, and many grid-stride rows in each, where
 * a tile's row pieces are runs of the vectors far apart. */
Test(shfl_fast, long_cases_fast_path_equals_checked_path)
{
    check_fast("shfl", 120, 94, 20000, 300000);
    check_fast("shfl-f64acc", 60, 95, 20000, 300000);
    check_fast("shfl-f64", 60, 96, 20000, 300000);
}

/* Products that round to -0 in every thread of 1024 full blocks of 1024:
 * thread sums, warp trees and block partials are all -0 (every operand
 * -0), but the last block's sums start from +0, and +0 + -0 is +0: the
 * result is +0 whatever the grid, idle blocks or not. */
Test(shfl_fast, negative_zero_partials_give_positive_zero)
{
    const uint64_t nf = 4u << 20, nd = 2u << 20;
    float *af = malloc(nf * sizeof *af), *bf = malloc(nf * sizeof *bf);
    double *ad = malloc(nd * sizeof *ad), *bd = malloc(nd * sizeof *bd);
    cr_assert(af && bf && ad && bd);
    for (uint64_t i = 0; i < nf; i++)
        af[i] = -0x1p-100f, bf[i] = 0x1p-100f;
    for (uint64_t i = 0; i < nd; i++)
        ad[i] = -0x1p-600, bd[i] = 0x1p-600;
    const uint32_t grids[] = {1024, 1025, 2047, 2048, 2049, 65535};
    char what[96];
    fast_stats st = {0, 0};
    for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; gi++) {
        const df_launch l = {1024, grids[gi], 0, 0};
        snprintf(what, sizeof what, "f32 grid %u", grids[gi]);
        df_case c = make_case(df_kernel_find("shfl"), af, bf, nf, l);
        double f = expect_fast_equals_checked("shfl", &c, what, &st);
        cr_assert(f == 0 && !signbit(f), "%s: %a", what, f);
        snprintf(what, sizeof what, "f64 grid %u", grids[gi]);
        c = make_case(df_kernel_find("shfl-f64"), ad, bd, nd, l);
        double d = expect_fast_equals_checked("shfl-f64", &c, what, &st);
        cr_assert(d == 0 && !signbit(d), "%s: %a", what, d);
    }
    free(af);
    free(bf);
    free(ad);
    free(bd);
}
