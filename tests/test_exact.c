/* test_exact.c — the exact dot (reference/exact.h): known answers worked by
 * hand (double rounding, exact zeros from huge cancelling terms, float
 * overflow, products below the subnormal range, bucket capacity, i32
 * delegation, non-finite classes, ulp errors), then a cross-check against
 * MPFR, an independent exact oracle, on 100,000+ random cases per type.
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
#include "reference/reference.h"

__extension__ typedef unsigned __int128 u128;

/* ---- bitwise comparisons ------------------------------------------------ */

static uint64_t dbits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static uint32_t fbits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* Same value and same sign of zero; any NaN equals any NaN. */
static int same_double(double x, double y)
{
    return (isnan(x) && isnan(y)) || dbits(x) == dbits(y);
}

static int same_float(float x, float y)
{
    return (isnan(x) && isnan(y)) || fbits(x) == fbits(y);
}

#define assert_double(got, want, what)                                        \
    cr_assert(same_double((got), (want)), "%s: got %a, want %a", (what),      \
              (double)(got), (double)(want))

#define assert_float(got, want, what)                                         \
    cr_assert(same_float((got), (want)), "%s: got %a, want %a", (what),       \
              (double)(got), (double)(want))

static df_exact dot(df_type t, const void *a, const void *b, uint64_t n)
{
    df_exact x;
    cr_assert_eq(df_exact_dot(t, a, b, n, &x), 0);
    return x;
}

/* ---- known answers ----------------------------------------------------- */

/* s = 1 + 2^-24 + 2^-60. RN_double(s) = 1 + 2^-24, a float tie that rounds
 * to even (1); RN_float(s) = 1 + 2^-23 because of the 2^-60 the double lost. */
Test(exact_known, f32_rounding_avoids_double_rounding)
{
    float a[] = {1.0f, 0x1p-24f, 0x1p-60f};
    float b[] = {1.0f, 1.0f, 1.0f};
    df_exact x = dot(DF_F32, a, b, 3);
    assert_double(x.hi, 1.0 + 0x1p-24, "hi");
    assert_double(x.lo, 0x1p-60, "lo");
    assert_float(x.f32, 1.0f + 0x1p-23f, "f32");
    cr_assert_eq((float)x.hi, 1.0f, "the double-rounded value differs");
    cr_assert_eq(x.sign, 1);
}

/* The same from integers: 2^60 + 2^36 + 1 rounds to 2^60 + 2^36 in double,
 * a float tie (ulp 2^37) that goes to 2^60; directly it goes up. */
Test(exact_known, i32_rounding_avoids_double_rounding)
{
    int32_t a[] = {1 << 30, 1 << 18, 1};
    df_exact x = dot(DF_I32, a, a, 3);
    assert_double(x.hi, 0x1p60 + 0x1p36, "hi");
    assert_double(x.lo, 1.0, "lo");
    assert_float(x.f32, 0x1p60f + 0x1p37f, "f32");
}

/* 2^2046 - 2^2046 + 2^-2148 - 2^-2148: exactly zero. */
Test(exact_known, f64_huge_cancelling_terms_and_tiny_pair_sum_to_zero)
{
    double a[] = {0x1p1023, 0x1p-1074, -0x1p1023, -0x1p-1074};
    double b[] = {0x1p1023, 0x1p-1074, 0x1p1023, 0x1p-1074};
    df_exact x = dot(DF_F64, a, b, 4);
    cr_assert_eq(x.kind, DF_EXACT_FINITE);
    cr_assert(x.is_zero);
    cr_assert_eq(x.sign, 0);
    assert_double(x.hi, 0.0, "hi");
    assert_double(x.lo, 0.0, "lo");
    assert_float(x.f32, 0.0f, "f32");
    assert_double(df_exact_abs_err(&x, 0.0), 0.0, "abs err of 0");
    assert_double(df_exact_abs_err(&x, -0x1p-1074), 0x1p-1074, "abs err");
    assert_double(df_ulp_error(&x, DF_F64, 0x1p-1073), 2.0, "ulp err at 0");
}

/* 2^2046 - 2^2046 + 2^-2148: s is not zero, but rounds to 0 in double;
 * |0 - s| rounds to 0 as well, while in ulps (2^-1074 at s) it is 2^-1074. */
Test(exact_known, f64_huge_cancelling_terms_leave_tiny_term)
{
    double a[] = {0x1p1023, -0x1p1023, 0x1p-1074};
    double b[] = {0x1p1023, 0x1p1023, 0x1p-1074};
    df_exact x = dot(DF_F64, a, b, 3);
    cr_assert(!x.is_zero);
    cr_assert_eq(x.sign, 1);
    assert_double(x.hi, 0.0, "hi");
    assert_double(x.lo, 0.0, "lo");
    assert_double(df_exact_abs_err(&x, 0.0), 0.0, "abs err rounds to 0");
    assert_double(df_ulp_error(&x, DF_F64, 0.0), 0x1p-1074, "ulp err");
    assert_double(df_exact_abs_err(&x, 0x1p-1074), 0x1p-1074, "abs err");
    assert_double(df_exact_ulp(&x, DF_F64), 0x1p-1074, "ulp");
}

/* The f32 analogue: 2^254 - 2^254 + 2^-298; 2^-298 is a double but rounds
 * to 0 as a float. */
Test(exact_known, f32_huge_cancelling_terms_leave_tiny_term)
{
    float a[] = {0x1p127f, -0x1p127f, 0x1p-149f};
    float b[] = {0x1p127f, 0x1p127f, 0x1p-149f};
    df_exact x = dot(DF_F32, a, b, 3);
    assert_double(x.hi, 0x1p-298, "hi");
    assert_double(x.lo, 0.0, "lo");
    assert_float(x.f32, 0.0f, "f32");
    cr_assert_eq(x.sign, 1);
}

Test(exact_known, f32_smallest_subnormal_squared)
{
    float a[] = {0x1p-149f};
    df_exact x = dot(DF_F32, a, a, 1);
    assert_double(x.hi, 0x1p-298, "hi");
    assert_double(x.lo, 0.0, "lo");
    assert_float(x.f32, 0.0f, "f32");
    cr_assert(!x.is_zero);
    assert_double(df_ulp_error(&x, DF_F32, 0.0), 0x1p-149, "ulp err of 0");
}

/* Ties at the bottom of the float range: 2^-150 goes to 0 (even),
 * 2^-150 + 2^-298 up to 2^-149, 1.5 * 2^-149 up to 2^-148 (even). */
Test(exact_known, f32_subnormal_ties_round_to_even)
{
    float a[] = {0x1p-149f, 0x1p-149f};
    float b[] = {0.5f, 0x1p-149f};
    assert_float(dot(DF_F32, a, b, 1).f32, 0.0f, "2^-150");
    assert_float(dot(DF_F32, a, b, 2).f32, 0x1p-149f, "2^-150 + 2^-298");
    float c[] = {0x1p-149f};
    float d[] = {1.5f};
    assert_float(dot(DF_F32, c, d, 1).f32, 0x1p-148f, "1.5 * 2^-149");
    float e[] = {-0x1p-149f};
    assert_float(dot(DF_F32, e, b, 1).f32, -0.0f, "-2^-150");
}

Test(exact_known, f64_subnormal_ties_round_to_even)
{
    double a[] = {0x1p-1074, 0x1p-1074};
    double b[] = {0.5, 0x1p-1074};
    assert_double(dot(DF_F64, a, b, 1).hi, 0.0, "2^-1075");
    assert_double(dot(DF_F64, a, b, 2).hi, 0x1p-1074, "2^-1075 + 2^-2148");
    double c[] = {0x1p-1074};
    double d[] = {1.5};
    assert_double(dot(DF_F64, c, d, 1).hi, 0x1p-1073, "1.5 * 2^-1074");
}

Test(exact_known, f32_flt_max_times_two_overflows_float_not_double)
{
    float a[] = {FLT_MAX};
    float b[] = {2.0f};
    df_exact x = dot(DF_F32, a, b, 1);
    cr_assert_eq(x.kind, DF_EXACT_FINITE);
    assert_double(x.hi, 2.0 * FLT_MAX, "hi");
    assert_double(x.lo, 0.0, "lo");
    assert_float(x.f32, INFINITY, "f32");
    b[0] = -2.0f;
    assert_float(dot(DF_F32, a, b, 1).f32, -INFINITY, "f32 negative");
}

/* FLT_MAX + 2^103 is the float overflow tie: it rounds to even, 2^128, Inf;
 * 2^-298 less rounds to FLT_MAX. */
Test(exact_known, f32_overflow_threshold)
{
    float a[] = {FLT_MAX, 0x1p103f, -0x1p-149f};
    float b[] = {1.0f, 1.0f, 0x1p-149f};
    assert_float(dot(DF_F32, a, b, 2).f32, INFINITY, "tie");
    df_exact x = dot(DF_F32, a, b, 3);
    assert_float(x.f32, FLT_MAX, "below the tie");
    assert_double(x.hi, (double)FLT_MAX + 0x1p103, "hi");
    assert_double(x.lo, -0x1p-298, "lo");
}

Test(exact_known, f64_overflow_threshold_and_beyond)
{
    double a[] = {DBL_MAX, 0x1p970, -0x1p-1074};
    double b[] = {1.0, 1.0, 0x1p-1074};
    df_exact tie = dot(DF_F64, a, b, 2);
    assert_double(tie.hi, INFINITY, "tie");
    assert_double(tie.lo, 0.0, "lo of Inf");
    cr_assert_eq(tie.kind, DF_EXACT_FINITE);
    df_exact below = dot(DF_F64, a, b, 3);
    assert_double(below.hi, DBL_MAX, "below the tie");
    assert_double(below.lo, 0x1p970, "lo: 2^970 - 2^-2148 rounds to 2^970");
    double c[] = {DBL_MAX};
    double d[] = {-2.0};
    df_exact x = dot(DF_F64, c, d, 1);
    assert_double(x.hi, -INFINITY, "2 DBL_MAX");
    assert_float(x.f32, -INFINITY, "f32");
    cr_assert_eq(x.sign, -1);
    assert_double(df_exact_abs_err(&x, -DBL_MAX), DBL_MAX, "abs err");
    assert_double(df_ulp_error(&x, DF_F64, -DBL_MAX), 0x1p53 - 1.0, "ulp err");
    assert_double(df_exact_abs_err(&x, -INFINITY), INFINITY, "Inf result");
}

/* n (2^24 - 1)^2 with every product in the same bucket and copy: each copy
 * holds 2^16 products before the flush (2^64 - 2^41 + 2^16, just below
 * 2^64), then three more. */
Test(exact_known, f32_bucket_at_capacity)
{
    const uint64_t n = (UINT64_C(1) << 18) + 3;
    float *a = malloc(n * sizeof *a);
    cr_assert(a);
    for (uint64_t i = 0; i < n; i++)
        a[i] = 16777215.0f;
    df_exact x = dot(DF_F32, a, a, n);
    df_i128 v;
    cr_assert_eq(df_exact_dot_int(DF_F32, a, a, n, &v), 0);
    double hi, lo;
    df_i128_to_double2(v, &hi, &lo);
    assert_double(x.hi, hi, "hi");
    assert_double(x.lo, lo, "lo");
    free(a);
}

/* The f64 worst case: (2^53 - 1)^2 shifted by 7 (exponent sum = 7 mod 8)
 * into one 128-bit bucket, 2^15 times per copy, then a flush. */
Test(exact_known, f64_bucket_at_capacity)
{
    const uint64_t n = (UINT64_C(1) << 16) + 3;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    cr_assert(a && b);
    const double m = 0x1p53 - 1.0;
    for (uint64_t i = 0; i < n; i++) {
        a[i] = m;        /* exponent field 1075 */
        b[i] = 2.0 * m;  /* 1076: sum 2151 = 7 mod 8 */
    }
    df_exact x = dot(DF_F64, a, b, n);
    u128 mm = (u128)(uint64_t)m * (uint64_t)m;
    u128 s = mm * 2 * n; /* < 2^124 */
    df_i128 v = {(int64_t)(uint64_t)(s >> 64), (uint64_t)s};
    double hi, lo;
    df_i128_to_double2(v, &hi, &lo);
    assert_double(x.hi, hi, "hi");
    assert_double(x.lo, lo, "lo");
    free(a);
    free(b);
}

/* i32 goes through df_exact_dot_int: (-2^31)^2 * 3 = 3 * 2^62. */
Test(exact_known, i32_extremes)
{
    int32_t a[] = {INT32_MIN, INT32_MIN, INT32_MIN, INT32_MAX};
    int32_t b[] = {INT32_MIN, INT32_MIN, INT32_MIN, -1};
    df_exact x = dot(DF_I32, a, b, 4);
    /* 3 * 2^62 - 2^31 + 1: the 1 is below half an ulp (2^11) */
    assert_double(x.hi, 0x1.8p63 - 0x1p31, "hi");
    assert_double(x.lo, 1.0, "lo");
    assert_float(x.f32, 0x1.8p63f, "f32");
    cr_assert_eq(x.sign, 1);
    int32_t c[] = {-7};
    int32_t d[] = {3};
    x = dot(DF_I32, c, d, 1);
    assert_double(x.hi, -21.0, "hi");
    cr_assert_eq(x.sign, -1);
}

Test(exact_known, empty_is_exact_zero)
{
    for (int t = DF_F32; t <= DF_I32; t++) {
        df_exact x = dot((df_type)t, NULL, NULL, 0);
        cr_assert_eq(x.kind, DF_EXACT_FINITE);
        cr_assert(x.is_zero);
        cr_assert_eq(x.top, -1);
        assert_double(x.hi, 0.0, "hi");
        assert_double(df_exact_ulp(&x, DF_F32), 0x1p-149, "ulp_f32(0)");
        assert_double(df_exact_ulp(&x, DF_F64), 0x1p-1074, "ulp_f64(0)");
    }
}

Test(exact_known, bad_arguments_are_refused)
{
    df_exact x;
    float a[] = {1.0f};
    cr_assert_eq(df_exact_dot((df_type)9, a, a, 1, &x), -1);
    cr_assert_eq(x.kind, DF_EXACT_NAN);
    cr_assert_eq(df_exact_dot(DF_F32, NULL, a, 1, &x), -1);
}

/* One product each; the class follows IEEE addition of the products. */
Test(exact_known, nonfinite_classes)
{
    const float inf = INFINITY, nan = NAN;
    struct {
        float a[3], b[3];
        int kind;
    } cases[] = {
        {{nan, 1, 2}, {0, 1, 2}, DF_EXACT_NAN},        /* NaN * 0 */
        {{1, 2, 3}, {1, nan, 3}, DF_EXACT_NAN},        /* NaN in b */
        {{inf, 1, 2}, {0, 1, 2}, DF_EXACT_NAN},        /* Inf * 0 */
        {{inf, 1, 2}, {-0.0f, 1, 2}, DF_EXACT_NAN},    /* Inf * -0 */
        {{inf, -inf, 1}, {1, 1, 1}, DF_EXACT_NAN},     /* +Inf + -Inf */
        {{inf, inf, 1}, {2, -3, 1}, DF_EXACT_NAN},     /* via signs of b */
        {{inf, 1, FLT_MAX}, {1e-30f, 1, -FLT_MAX}, DF_EXACT_POS_INF},
        {{inf, inf, 1}, {inf, 2, -5}, DF_EXACT_POS_INF}, /* Inf * Inf */
        {{-inf, 1, 2}, {0x1p-149f, 1, 2}, DF_EXACT_NEG_INF},
        {{inf, -inf, 1}, {-1, 1, 1}, DF_EXACT_NEG_INF},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        df_exact x = dot(DF_F32, cases[i].a, cases[i].b, 3);
        cr_assert_eq(x.kind, cases[i].kind, "f32 case %zu: kind %d", i, x.kind);
        double a64[3], b64[3];
        for (int k = 0; k < 3; k++) {
            a64[k] = cases[i].a[k];
            b64[k] = cases[i].b[k];
        }
        df_exact y = dot(DF_F64, a64, b64, 3);
        cr_assert_eq(y.kind, cases[i].kind, "f64 case %zu: kind %d", i, y.kind);
        if (y.kind == DF_EXACT_POS_INF) {
            assert_double(y.hi, INFINITY, "hi");
            assert_float(y.f32, INFINITY, "f32");
            cr_assert_eq(y.sign, 1);
            assert_double(df_exact_abs_err(&y, INFINITY), 0.0, "same Inf");
            assert_double(df_exact_abs_err(&y, 1.0), INFINITY, "finite result");
        }
        if (y.kind == DF_EXACT_NAN) {
            cr_assert(isnan(y.hi) && isnan(y.f32));
            assert_double(df_exact_abs_err(&y, NAN), 0.0, "NaN result");
            assert_double(df_ulp_error(&y, DF_F64, INFINITY), INFINITY, "Inf result");
        }
    }
}

/* A non-finite value after 10^5 finite ones, past several flushes, and a
 * NaN result against a finite s. */
Test(exact_known, nonfinite_late_in_a_long_vector)
{
    const uint64_t n = 300001;
    float *a = malloc(n * sizeof *a);
    cr_assert(a);
    for (uint64_t i = 0; i < n; i++)
        a[i] = 1.0f;
    a[n - 1] = -INFINITY; /* squared: +Inf */
    cr_assert_eq(dot(DF_F32, a, a, n).kind, DF_EXACT_POS_INF);
    float *b = malloc(n * sizeof *b);
    cr_assert(b);
    memcpy(b, a, n * sizeof *b);
    b[n - 1] = 2.0f;
    cr_assert_eq(dot(DF_F32, a, b, n).kind, DF_EXACT_NEG_INF);
    b[n - 1] = 0.0f;
    cr_assert_eq(dot(DF_F32, a, b, n).kind, DF_EXACT_NAN);
    free(b);
    a[n - 1] = 1.0f;
    df_exact x = dot(DF_F32, a, a, n);
    assert_double(x.hi, (double)n, "sum of ones");
    assert_double(df_exact_abs_err(&x, NAN), INFINITY, "NaN result");
    free(a);
}

Test(exact_known, ulp_error_in_both_formats)
{
    float a[] = {1.0f};
    df_exact x = dot(DF_F32, a, a, 1);
    assert_double(df_ulp_error(&x, DF_F32, 1.0 + 0x1p-23), 1.0, "f32 one ulp above");
    assert_double(df_ulp_error(&x, DF_F32, 1.0 - 0x1p-24), 0.5, "ulp is taken at s");
    assert_double(df_ulp_error(&x, DF_F64, 1.0 + 0x1p-52), 1.0, "f64 one ulp above");
    assert_double(df_ulp_error(&x, DF_F64, 1.0 + 0x1p-23), 0x1p29, "f64 of an f32 ulp");
    assert_double(df_ulp_error(&x, DF_I32, 3.0), 2.0, "integers: ulp 1");
    assert_double(df_exact_ulp(&x, DF_F32), 0x1p-23, "ulp_f32(1)");
    float b[] = {FLT_MAX};
    float c[] = {4.0f};
    df_exact y = dot(DF_F32, b, c, 1); /* 4 FLT_MAX: ulp capped at 2^104 */
    assert_double(df_exact_ulp(&y, DF_F32), 0x1p104, "ulp past FLT_MAX");
    assert_double(df_ulp_error(&y, DF_F32, 3.0 * FLT_MAX), 0x1p24 - 1.0, "ulps");
}

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
        cr_assert(same_double(got, want), "abs err of %a: got %a, want %a", r, got, want);
        want = oracle_err(o, r, scale);
        got = df_ulp_error(x, t, r);
        cr_assert(same_double(got, want), "ulp err of %a: got %a, want %a", r, got, want);
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
    df_exact x = dot(t, a, b, n);
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
    cr_assert(same_double(x.hi, hi), "n=%llu hi: got %a, want %a",
              (unsigned long long)n, x.hi, hi);
    cr_assert(same_double(x.lo, lo), "n=%llu lo: got %a, want %a (hi %a)",
              (unsigned long long)n, x.lo, lo, hi);
    cr_assert(same_float(x.f32, f32), "n=%llu f32: got %a, want %a",
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
