/* test_exact_mpfr.c — the exact dot (reference/exact.h) against MPFR, an
 * independent exact oracle, on 100,000+ random cases per type
 * (ill-conditioned, wide exponents, subnormal products, overflow,
 * specials, sparse), short and long.
 *
 * MPFR's side: every product exact (mpfr_mul at 48 or 106 bits), summed
 * with mpfr_add at 700 (f32) or 4400 (f64) bits, where each addition must
 * report itself exact (ternary value 0); hi, f32 and the errors are rounded
 * from that sum with mpfr_get_d / mpfr_get_flt (round to nearest, gradual
 * underflow), lo from the exact difference S - hi. Links with -lmpfr -lgmp.
 */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/pcg32.h"
#include "reference/exact.h"
#include "tests/exact_helpers.h"

/* ---- MPFR cross-check ------------------------------------------------- */

#define F32_PREC 700  /* products in [2^-298, 2^256), sums of < 2^20 of them */
#define F64_PREC 4400 /* products in [2^-2148, 2^2048) */
#define WIDE_PREC 4400

typedef struct oracle {
    mpfr_t s, x, y, p, d;
} oracle;

static void oracle_init(oracle *o, df_type t)
{
    mpfr_init2(o->s, t == DF_F32 ? F32_PREC : F64_PREC);
    mpfr_init2(o->x, 53);
    mpfr_init2(o->y, 53);
    mpfr_init2(o->p, 106);
    mpfr_init2(o->d, WIDE_PREC);
}

static void oracle_clear(oracle *o)
{
    mpfr_clears(o->s, o->x, o->y, o->p, o->d, (mpfr_ptr)0);
}

/* S = sum a_i b_i exactly (finite inputs). */
static void oracle_sum(oracle *o, df_type t, const void *a, const void *b, uint64_t n)
{
    mpfr_set_zero(o->s, 1);
    for (uint64_t i = 0; i < n; i++) {
        double x = t == DF_F32 ? ((const float *)a)[i] : ((const double *)a)[i];
        double y = t == DF_F32 ? ((const float *)b)[i] : ((const double *)b)[i];
        mpfr_set_d(o->x, x, MPFR_RNDN);
        mpfr_set_d(o->y, y, MPFR_RNDN);
        cr_assert_eq(mpfr_mul(o->p, o->x, o->y, MPFR_RNDN), 0, "inexact product");
        cr_assert_eq(mpfr_add(o->s, o->s, o->p, MPFR_RNDN), 0, "inexact sum");
    }
}

/* |r - S| * 2^scale, rounded to double by MPFR. */
static double oracle_err(oracle *o, double r, long scale)
{
    mpfr_set_d(o->x, r, MPFR_RNDN);
    cr_assert_eq(mpfr_sub(o->d, o->x, o->s, MPFR_RNDN), 0, "inexact difference");
    mpfr_abs(o->d, o->d, MPFR_RNDN);
    mpfr_mul_2si(o->d, o->d, scale, MPFR_RNDN);
    return mpfr_get_d(o->d, MPFR_RNDN);
}

/* -log2 ulp_T(S), from MPFR's exponent (S = m 2^e, 1/2 <= |m| < 1). */
static long oracle_ulp_scale(oracle *o, df_type t)
{
    long prec = t == DF_F32 ? 24 : 53, emin = t == DF_F32 ? -126 : -1022;
    long emax = t == DF_F32 ? 127 : 1023;
    long e = mpfr_zero_p(o->s) ? emin : (long)mpfr_get_exp(o->s) - 1;
    e = e < emin ? emin : e > emax ? emax : e;
    return -(e - prec + 1);
}

/* IEEE class of the sum when some input is not finite: products and sum in
 * a wider format (double for f32 data, long double for f64 data), where no
 * finite product or partial sum of these lengths can overflow. */
_Static_assert(LDBL_MAX_EXP >= 4 * DBL_MAX_EXP,
               "ieee_class needs a long double whose range holds f64 products");
static int ieee_class(df_type t, const void *a, const void *b, uint64_t n)
{
    long double s = 0.0L;
    for (uint64_t i = 0; i < n; i++) {
        if (t == DF_F32)
            s += (double)((const float *)a)[i] * (double)((const float *)b)[i];
        else
            s += (long double)((const double *)a)[i] * ((const double *)b)[i];
    }
    if (isnan(s))
        return DF_EXACT_NAN;
    if (isinf(s))
        return s > 0 ? DF_EXACT_POS_INF : DF_EXACT_NEG_INF;
    return DF_EXACT_FINITE;
}

static int all_finite(df_type t, const void *a, const void *b, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        double x = t == DF_F32 ? ((const float *)a)[i] : ((const double *)a)[i];
        double y = t == DF_F32 ? ((const float *)b)[i] : ((const double *)b)[i];
        if (!isfinite(x) || !isfinite(y))
            return 0;
    }
    return 1;
}

/* Results whose error a kernel might report: the references themselves,
 * their neighbours, a naive sum, zero. */
static void check_errors(oracle *o, df_type t, const df_exact *x, double naive)
{
    double rs[] = {x->hi, nextafter(x->hi, INFINITY), nextafter(x->hi, -INFINITY),
                   (double)x->f32, naive, 0.0, -x->hi};
    long scale = oracle_ulp_scale(o, t);
    for (size_t k = 0; k < sizeof rs / sizeof rs[0]; k++) {
        double r = rs[k];
        if (!isfinite(r))
            continue;
        double want = oracle_err(o, r, 0);
        double got = df_exact_abs_err(x, r);
        cr_assert(df_test_same_double(got, want), "abs err of %a: got %a, want %a", r, got, want);
        want = oracle_err(o, r, scale);
        got = df_ulp_error(x, t, r);
        cr_assert(df_test_same_double(got, want), "ulp err of %a: got %a, want %a", r, got, want);
    }
}

static double naive_dot(df_type t, const void *a, const void *b, uint64_t n)
{
    double s = 0.0;
    for (uint64_t i = 0; i < n; i++) {
        if (t == DF_F32)
            s += (double)((const float *)a)[i] * ((const float *)b)[i];
        else
            s += ((const double *)a)[i] * ((const double *)b)[i];
    }
    return s;
}

/* One case against MPFR: kind, hi, lo, f32, sign, is_zero, the errors. */
static void check_case(oracle *o, df_type t, const void *a, const void *b, uint64_t n,
                       int with_errors)
{
    df_exact x;
    cr_assert_eq(df_exact_dot(t, a, b, n, &x), 0);
    if (!all_finite(t, a, b, n)) {
        cr_assert_eq(x.kind, ieee_class(t, a, b, n), "n=%llu: kind %d",
                     (unsigned long long)n, x.kind);
        return;
    }
    cr_assert_eq(x.kind, DF_EXACT_FINITE);
    oracle_sum(o, t, a, b, n);
    double hi = mpfr_get_d(o->s, MPFR_RNDN);
    float f32 = mpfr_get_flt(o->s, MPFR_RNDN);
    double lo = 0.0;
    if (isfinite(hi)) {
        mpfr_set_d(o->x, hi, MPFR_RNDN);
        cr_assert_eq(mpfr_sub(o->d, o->s, o->x, MPFR_RNDN), 0);
        lo = mpfr_get_d(o->d, MPFR_RNDN);
    }
    cr_assert(df_test_same_double(x.hi, hi), "n=%llu hi: got %a, want %a",
              (unsigned long long)n, x.hi, hi);
    cr_assert(df_test_same_double(x.lo, lo), "n=%llu lo: got %a, want %a (hi %a)",
              (unsigned long long)n, x.lo, lo, hi);
    cr_assert(df_test_same_float(x.f32, f32), "n=%llu f32: got %a, want %a",
              (unsigned long long)n, (double)x.f32, (double)f32);
    cr_assert_eq(x.sign, mpfr_sgn(o->s) > 0 ? 1 : mpfr_sgn(o->s) < 0 ? -1 : 0);
    cr_assert_eq(x.is_zero, mpfr_zero_p(o->s) != 0);
    if (with_errors)
        check_errors(o, t, &x, naive_dot(t, a, b, n));
}

/* ---- random cases ---------------------------------------------------- */

#define MAX_N 300

typedef void (*fill_fn)(df_pcg32 *r, df_type t, double *a, double *b, uint64_t n);

static double unit(df_pcg32 *r)
{
    return df_pcg32_double(r);
}

/* Random sign, significand and exponent field in [elo, ehi] (0 = zero or
 * subnormal), as bits of the element type. */
static double random_bits(df_pcg32 *r, df_type t, int elo, int ehi)
{
    uint64_t e = (uint64_t)df_pcg32_range(r, elo, ehi);
    uint64_t s = df_pcg32_next(r) & 1;
    if (t == DF_F32) {
        uint32_t u = (uint32_t)(s << 31 | e << 23 | (df_pcg32_next(r) & 0x7fffff));
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    uint64_t frac = ((uint64_t)df_pcg32_next(r) << 32 | df_pcg32_next(r)) & ((UINT64_C(1) << 52) - 1);
    uint64_t u = s << 63 | e << 52 | frac;
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static int emax_field(df_type t)
{
    return t == DF_F32 ? 254 : 2046;
}

static void fill_uniform(df_pcg32 *r, df_type t, double *a, double *b, uint64_t n)
{
    (void)t;
    for (uint64_t i = 0; i < n; i++) {
        a[i] = unit(r) * 100.0 - 50.0;
        b[i] = unit(r) * 100.0 - 50.0;
    }
}

static void fill_wide(df_pcg32 *r, df_type t, double *a, double *b, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        a[i] = random_bits(r, t, 0, emax_field(t));
        b[i] = random_bits(r, t, 0, emax_field(t));
    }
}

/* Products that cancel in pairs (x y and -x y, in random places) plus a few
 * terms much smaller, or none: exact zeros and sums far below G. */
static void fill_cancel(df_pcg32 *r, df_type t, double *a, double *b, uint64_t n)
{
    int emax = emax_field(t), span = t == DF_F32 ? 60 : 400;
    int centre = (int)df_pcg32_range(r, span, emax - span);
    for (uint64_t i = 0; i < n; i++) {
        a[i] = random_bits(r, t, centre - span / 4, centre + span / 4);
        b[i] = random_bits(r, t, centre - span / 4, centre + span / 4);
    }
    for (uint64_t i = 0; i + 1 < n; i += 2) {
        a[i + 1] = -a[i];
        b[i + 1] = b[i];
    }
    uint64_t small = df_pcg32_bounded(r, 4);
    for (uint64_t k = 0; k < small && k < n; k++) {
        uint64_t i = df_pcg32_bounded(r, (uint32_t)n);
        a[i] = random_bits(r, t, 0, centre - span);
    }
    for (uint64_t i = n; i > 1; i--) { /* shuffle the pairs apart */
        uint64_t j = df_pcg32_bounded(r, (uint32_t)i);
        double ta = a[i - 1], tb = b[i - 1];
        a[i - 1] = a[j], b[i - 1] = b[j];
        a[j] = ta, b[j] = tb;
    }
}

/* Subnormal significands: one factor from the lowest binades (exponent
 * field 0 to 3: subnormal or just above), the other ordinary, |x| in
 * [2^-60, 2^60]; in one case in four both tiny, so that the products lie
 * far below the smallest subnormal and s shows only in its sign, is_zero
 * and the ulp error of a result. */
static void fill_tiny(df_pcg32 *r, df_type t, double *a, double *b, uint64_t n)
{
    int bias = t == DF_F32 ? 127 : 1023;
    int both = df_pcg32_bounded(r, 4) == 0;
    for (uint64_t i = 0; i < n; i++) {
        a[i] = random_bits(r, t, 0, 3);
        b[i] = both ? random_bits(r, t, 0, 3) : random_bits(r, t, bias - 60, bias + 60);
        if (df_pcg32_bounded(r, 2)) {
            double x = a[i];
            a[i] = b[i];
            b[i] = x;
        }
    }
}

/* Mostly zeros (of either sign), the rest ordinary or wide: zero products
 * must add nothing wherever they land. */
static void fill_sparse(df_pcg32 *r, df_type t, double *a, double *b, uint64_t n)
{
    int wide = df_pcg32_bounded(r, 2);
    for (uint64_t i = 0; i < n; i++) {
        a[i] = wide ? random_bits(r, t, 0, emax_field(t)) : unit(r) * 100.0 - 50.0;
        b[i] = wide ? random_bits(r, t, 0, emax_field(t)) : unit(r) * 100.0 - 50.0;
        if (df_pcg32_bounded(r, 5) != 0)
            a[i] = df_pcg32_bounded(r, 2) ? 0.0 : -0.0;
        if (df_pcg32_bounded(r, 3) == 0)
            b[i] = 0.0;
    }
}

/* Products near the top of the format: sums beyond its largest value. */
static void fill_huge(df_pcg32 *r, df_type t, double *a, double *b, uint64_t n)
{
    int emax = emax_field(t);
    int bias = t == DF_F32 ? 127 : 1023;
    for (uint64_t i = 0; i < n; i++) {
        a[i] = random_bits(r, t, emax - 3, emax);
        b[i] = random_bits(r, t, bias - 2, bias + 1); /* |b| in [1/4, 4) */
    }
    if (df_pcg32_bounded(r, 2)) /* same sign throughout: a sure overflow */
        for (uint64_t i = 0; i < n; i++) {
            a[i] = fabs(a[i]);
            b[i] = fabs(b[i]);
        }
}

/* Mostly ordinary values, a few drawn from the format's edges and its
 * non-finite values. */
static void fill_special(df_pcg32 *r, df_type t, double *a, double *b, uint64_t n)
{
    const double f32_edges[] = {0.0, -0.0, 0x1p-149, -0x1p-149, 0x1p-126, 0x1.fffffcp-127,
                                FLT_MAX, -FLT_MAX, 1.0, -1.0, INFINITY, -INFINITY, NAN};
    const double f64_edges[] = {0.0, -0.0, 0x1p-1074, -0x1p-1074, 0x1p-1022, 0x1.ffffffffffffep-1023,
                                DBL_MAX, -DBL_MAX, 1.0, -1.0, INFINITY, -INFINITY, NAN};
    const double *edges = t == DF_F32 ? f32_edges : f64_edges;
    uint32_t nedges = df_pcg32_bounded(r, 2) ? 10 : 13; /* half the cases finite */
    fill_wide(r, t, a, b, n);
    for (uint64_t i = 0; i < n; i++) {
        if (df_pcg32_bounded(r, 8) == 0)
            a[i] = edges[df_pcg32_bounded(r, nedges)];
        if (df_pcg32_bounded(r, 8) == 0)
            b[i] = edges[df_pcg32_bounded(r, nedges)];
    }
}

/* n log-uniform in [1, MAX_N], 0 now and then. */
static uint64_t random_n(df_pcg32 *r)
{
    if (df_pcg32_bounded(r, 64) == 0)
        return 0;
    return (uint64_t)floor(exp(unit(r) * log((double)MAX_N))) ;
}

/* Checks `cases` random cases, the error functions on one in errors_every. */
static void run_random(df_type t, fill_fn fill, uint64_t stream, int cases, int errors_every)
{
    df_pcg32 r;
    df_pcg32_seed(&r, 20261121, stream);
    oracle o;
    oracle_init(&o, t);
    double a[MAX_N], b[MAX_N];
    float fa[MAX_N], fb[MAX_N];
    for (int c = 0; c < cases; c++) {
        uint64_t n = random_n(&r);
        fill(&r, t, a, b, n);
        int with_errors = c % errors_every == 0;
        if (t == DF_F32) {
            for (uint64_t i = 0; i < n; i++) {
                fa[i] = (float)a[i]; /* fill produced floats, or uniform doubles */
                fb[i] = (float)b[i];
            }
            check_case(&o, t, fa, fb, n, with_errors);
        } else {
            check_case(&o, t, a, b, n, with_errors);
        }
    }
    oracle_clear(&o);
}

#define CASES 15000 /* per family: 7 families, 105,000 cases per type */

Test(exact_mpfr, f32_uniform_50) { run_random(DF_F32, fill_uniform, 1, CASES, 4); }
Test(exact_mpfr, f32_wide_exponents) { run_random(DF_F32, fill_wide, 2, CASES, 4); }
Test(exact_mpfr, f32_cancellation) { run_random(DF_F32, fill_cancel, 3, CASES, 2); }
Test(exact_mpfr, f32_subnormal_products) { run_random(DF_F32, fill_tiny, 4, CASES, 1); }
Test(exact_mpfr, f32_sums_past_flt_max) { run_random(DF_F32, fill_huge, 5, CASES, 4); }
Test(exact_mpfr, f32_special_values) { run_random(DF_F32, fill_special, 6, CASES, 4); }
Test(exact_mpfr, f32_sparse) { run_random(DF_F32, fill_sparse, 7, CASES, 4); }
Test(exact_mpfr, f64_uniform_50) { run_random(DF_F64, fill_uniform, 11, CASES, 4); }
Test(exact_mpfr, f64_wide_exponents) { run_random(DF_F64, fill_wide, 12, CASES, 4); }
Test(exact_mpfr, f64_cancellation) { run_random(DF_F64, fill_cancel, 13, CASES, 2); }
Test(exact_mpfr, f64_subnormal_products) { run_random(DF_F64, fill_tiny, 14, CASES, 1); }
Test(exact_mpfr, f64_sums_past_dbl_max) { run_random(DF_F64, fill_huge, 15, CASES, 4); }
Test(exact_mpfr, f64_special_values) { run_random(DF_F64, fill_special, 16, CASES, 4); }
Test(exact_mpfr, f64_sparse) { run_random(DF_F64, fill_sparse, 17, CASES, 4); }

/* Long vectors: several flushes of every bucket copy, lengths around the
 * block and copy boundaries. */
static void run_long(df_type t, fill_fn fill, uint64_t stream, const uint64_t *ns, size_t count)
{
    df_pcg32 r;
    df_pcg32_seed(&r, 20261121, stream);
    oracle o;
    oracle_init(&o, t);
    uint64_t nmax = 0;
    for (size_t k = 0; k < count; k++)
        nmax = ns[k] > nmax ? ns[k] : nmax;
    double *a = malloc(nmax * sizeof *a), *b = malloc(nmax * sizeof *b);
    float *fa = malloc(nmax * sizeof *fa), *fb = malloc(nmax * sizeof *fb);
    cr_assert(a && b && fa && fb);
    for (size_t k = 0; k < count; k++) {
        uint64_t n = ns[k];
        fill(&r, t, a, b, n);
        if (t == DF_F32) {
            for (uint64_t i = 0; i < n; i++) {
                fa[i] = (float)a[i];
                fb[i] = (float)b[i];
            }
            check_case(&o, t, fa, fb, n, 1);
        } else {
            check_case(&o, t, a, b, n, 1);
        }
    }
    free(a), free(b), free(fa), free(fb);
    oracle_clear(&o);
}

static const uint64_t long_ns[] = {255, 256, 257, 2047, 2048, 2049, 65535, 65537,
                                   (1u << 18) - 1, (1u << 18) + 1, 3 * (1u << 18) + 17};

Test(exact_mpfr, f32_long_uniform)
{
    run_long(DF_F32, fill_uniform, 21, long_ns, sizeof long_ns / sizeof long_ns[0]);
}

Test(exact_mpfr, f32_long_cancellation)
{
    run_long(DF_F32, fill_cancel, 22, long_ns, sizeof long_ns / sizeof long_ns[0]);
}

/* Keys all over the table: the cleared range grows both ways, across
 * flushes. */
Test(exact_mpfr, f32_long_wide_and_sparse)
{
    run_long(DF_F32, fill_wide, 25, long_ns, sizeof long_ns / sizeof long_ns[0]);
    run_long(DF_F32, fill_sparse, 26, long_ns, sizeof long_ns / sizeof long_ns[0]);
}

Test(exact_mpfr, f64_long_wide)
{
    run_long(DF_F64, fill_wide, 23, long_ns, 9);
}

Test(exact_mpfr, f64_long_cancellation_and_sparse)
{
    run_long(DF_F64, fill_cancel, 24, long_ns, 9);
    run_long(DF_F64, fill_sparse, 27, long_ns, 9);
}
