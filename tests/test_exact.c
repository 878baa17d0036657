/* test_exact.c — the exact dot (reference/exact.h): known answers worked by
 * hand (double rounding, exact zeros from huge cancelling terms, float
 * overflow, products below the subnormal range, bucket capacity, i32
 * delegation, non-finite classes, ulp errors). The cross-check against
 * MPFR on random cases: test_exact_mpfr.c.
 */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reference/exact.h"
#include "reference/reference.h"
#include "tests/exact_helpers.h"

__extension__ typedef unsigned __int128 u128;

#define assert_double(got, want, what)                                        \
    cr_assert(df_test_same_double((got), (want)), "%s: got %a, want %a", (what), \
              (double)(got), (double)(want))

#define assert_float(got, want, what)                                         \
    cr_assert(df_test_same_float((got), (want)), "%s: got %a, want %a", (what), \
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
