/* test_reference.c — known answers for the CPU references: the exact
 * integer dot (int64 and __int128 paths, chunk boundaries), its refusals,
 * the i128 -> head+tail conversion, Kahan and its bound, G, and the flags
 * df_refs_compute reports. Many cases at once: test_refs_many.c; a
 * copy's references derived from its case's: test_refs_copies.c. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reference/reference.h"

#define TWO31 2147483648.0

static df_i128 i128_of(int64_t hi, uint64_t lo)
{
    df_i128 v = {hi, lo};
    return v;
}

Test(exact_dot, i32_small_signed)
{
    int32_t a[] = {1, 2, 3, -4};
    int32_t b[] = {5, -6, 7, 8};
    df_i128 r;
    cr_assert_eq(df_exact_dot_int(DF_I32, a, b, 4, &r), 0);
    cr_assert_eq(r.hi, -1);
    cr_assert_eq(r.lo, (uint64_t)-18);
}

Test(exact_dot, empty_is_zero)
{
    df_i128 r = {7, 7};
    cr_assert_eq(df_exact_dot_int(DF_F64, NULL, NULL, 0, &r), 0);
    cr_assert(r.hi == 0 && r.lo == 0);
}

/* (-2^31)^2 twice plus (2^31-1)^2 = 2^63 + 2^62 - 2^32 + 1: above INT64_MAX. */
Test(exact_dot, i32_extremes_sum_beyond_int64)
{
    int32_t a[] = {INT32_MIN, INT32_MIN, INT32_MAX};
    int32_t b[] = {INT32_MIN, INT32_MIN, INT32_MAX};
    df_i128 r;
    cr_assert_eq(df_exact_dot_int(DF_I32, a, b, 3, &r), 0);
    cr_assert_eq(r.hi, 0);
    cr_assert_eq(r.lo, (UINT64_C(1) << 63) + (UINT64_C(1) << 62) - (UINT64_C(1) << 32) + 1);
}

/* f64 data at the 2^31 limit: 4 * 2^62 - 21 = 2^64 - 21 needs 65 bits. */
Test(exact_dot, f64_near_2p31_takes_int128_path)
{
    double a[] = {TWO31, TWO31, -TWO31, TWO31, -3.0};
    double b[] = {TWO31, TWO31, -TWO31, TWO31, 7.0};
    df_i128 r;
    cr_assert_eq(df_exact_dot_int(DF_F64, a, b, 5, &r), 0);
    cr_assert_eq(r.hi, 0);
    cr_assert_eq(r.lo, UINT64_MAX - 20);
}

/* 5000 products of -2^62 span three chunks: -1250 * 2^64 exactly. */
Test(exact_dot, f32_large_negative_across_chunks)
{
    enum { N = 5000 };
    static float a[N], b[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)TWO31;
        b[i] = -(float)TWO31;
    }
    df_i128 r;
    cr_assert_eq(df_exact_dot_int(DF_F32, a, b, N, &r), 0);
    cr_assert_eq(r.hi, -1250);
    cr_assert_eq(r.lo, 0);
}

/* Small chunks (int64 path) and one chunk with a 2^31 element (int128
 * path) in one vector: 4100 * 50 * -50 + 2^31 * 2^31 - 50 * -50. */
Test(exact_dot, mixed_chunks_small_and_huge)
{
    enum { N = 4100 };
    static double a[N], b[N];
    for (int i = 0; i < N; i++) {
        a[i] = 50.0;
        b[i] = -50.0;
    }
    a[3000] = TWO31;
    b[3000] = TWO31;
    df_i128 r;
    cr_assert_eq(df_exact_dot_int(DF_F64, a, b, N, &r), 0);
    cr_assert_eq(r.hi, 0);
    cr_assert_eq(r.lo, (UINT64_C(1) << 62) - (uint64_t)4099 * 2500);
}

Test(exact_dot, refuses_fraction_large_and_nonfinite)
{
    df_i128 r;
    double frac[] = {1.0, 2.5};
    double big[] = {1.0, 2.0 * TWO31};
    double inf[] = {1.0, INFINITY};
    double nan[] = {NAN, 1.0};
    double ones[] = {1.0, 1.0};
    float tiny[] = {0x1p-149f, 1.0f};
    float onesf[] = {1.0f, 1.0f};
    cr_assert_eq(df_exact_dot_int(DF_F64, frac, ones, 2, &r), -1);
    cr_assert_eq(df_exact_dot_int(DF_F64, ones, big, 2, &r), -1);
    cr_assert_eq(df_exact_dot_int(DF_F64, inf, ones, 2, &r), -1);
    cr_assert_eq(df_exact_dot_int(DF_F64, nan, ones, 2, &r), -1);
    cr_assert_eq(df_exact_dot_int(DF_F32, tiny, onesf, 2, &r), -1);
}

/* -2^31 and 2^31 are the inclusive limits; -0.0 is the integer 0. */
Test(exact_dot, accepts_limits_and_negative_zero)
{
    double a[] = {-TWO31, TWO31, -0.0};
    double b[] = {3.0, 1.0, 5.0};
    df_i128 r;
    cr_assert_eq(df_exact_dot_int(DF_F64, a, b, 3, &r), 0);
    cr_assert_eq(r.hi, -1);
    cr_assert_eq(r.lo, (uint64_t)(-2 * (int64_t)2147483648));
}

Test(i128, to_double2_ties_to_even_above_2p53)
{
    double hi, lo;
    df_i128_to_double2(i128_of(0, (UINT64_C(1) << 53) + 1), &hi, &lo);
    cr_assert(hi == 0x1p53 && lo == 1.0, "hi %a lo %a", hi, lo);
    df_i128_to_double2(i128_of(0, (UINT64_C(1) << 53) + 3), &hi, &lo);
    cr_assert(hi == 0x1p53 + 4 && lo == -1.0, "hi %a lo %a", hi, lo);
}

Test(i128, to_double2_beyond_64_bits)
{
    double hi, lo;
    df_i128_to_double2(i128_of(1, 1), &hi, &lo); /* 2^64 + 1 */
    cr_assert(hi == 0x1p64 && lo == 1.0, "hi %a lo %a", hi, lo);
    df_i128_to_double2(i128_of(-2, UINT64_MAX), &hi, &lo); /* -(2^64 + 1) */
    cr_assert(hi == -0x1p64 && lo == -1.0, "hi %a lo %a", hi, lo);
    /* 2^64 * (2^53 - 1) + 2^63 + 5: head rounds up past the tie, tail is
     * what remains: -(2^63 - 5), itself rounded to -2^63. */
    df_i128_to_double2(i128_of((INT64_C(1) << 53) - 1, (UINT64_C(1) << 63) + 5), &hi, &lo);
    cr_assert(hi == 0x1p117 && lo == -0x1p63, "hi %a lo %a", hi, lo);
}

Test(i128, to_double2_extremes)
{
    double hi, lo;
    df_i128_to_double2(i128_of(INT64_MAX, UINT64_MAX), &hi, &lo); /* 2^127 - 1 */
    cr_assert(hi == 0x1p127 && lo == -1.0, "hi %a lo %a", hi, lo);
    df_i128_to_double2(i128_of(INT64_MIN, 0), &hi, &lo); /* -2^127 */
    cr_assert(hi == -0x1p127 && lo == 0.0, "hi %a lo %a", hi, lo);
    df_i128_to_double2(i128_of(0, 0), &hi, &lo);
    cr_assert(hi == 0.0 && lo == 0.0);
}

Test(i128, fits_i64)
{
    cr_assert(df_i128_fits_i64(i128_of(0, (uint64_t)INT64_MAX)));
    cr_assert(df_i128_fits_i64(i128_of(-1, (uint64_t)INT64_MIN)));
    cr_assert(!df_i128_fits_i64(i128_of(0, (uint64_t)INT64_MAX + 1)));
    cr_assert(!df_i128_fits_i64(i128_of(-1, (uint64_t)INT64_MAX)));
    cr_assert(!df_i128_fits_i64(i128_of(1, 0)));
}

Test(i128, cmp_i64)
{
    cr_assert_eq(df_i128_cmp_i64(i128_of(0, 5), 5), 0);
    cr_assert_lt(df_i128_cmp_i64(i128_of(0, 5), 6), 0);
    cr_assert_gt(df_i128_cmp_i64(i128_of(-1, UINT64_MAX), -2), 0); /* -1 > -2 */
    cr_assert_lt(df_i128_cmp_i64(i128_of(-1, UINT64_MAX), 0), 0);
    cr_assert_gt(df_i128_cmp_i64(i128_of(1, 0), INT64_MAX), 0);
    cr_assert_lt(df_i128_cmp_i64(i128_of(-2, 0), INT64_MIN), 0);
    cr_assert_gt(df_i128_cmp_i64(i128_of(0, (uint64_t)INT32_MAX + 1), INT32_MAX), 0);
}

/* 2^62 followed by 1000 ones: each naive add of 1 is lost (ulp(2^62) is
 * 1024); Kahan returns the double nearest to the exact 2^62 + 1000. */
Test(kahan, recovers_ones_lost_by_naive_sum)
{
    enum { N = 1001 };
    static double a[N], b[N];
    a[0] = b[0] = TWO31;
    for (int i = 1; i < N; i++)
        a[i] = b[i] = 1.0;
    double naive = 0.0;
    for (int i = 0; i < N; i++)
        naive += a[i] * b[i];
    cr_assert(naive == 0x1p62, "naive %a", naive);

    double err;
    double k = df_kahan_dot(DF_F64, a, b, N, &err);
    cr_assert(k == 0x1p62 + 1024, "kahan %a", k);

    df_i128 ex;
    double hi, lo;
    cr_assert_eq(df_exact_dot_int(DF_F64, a, b, N, &ex), 0);
    df_i128_to_double2(ex, &hi, &lo);
    cr_assert(hi == 0x1p62 + 1024 && lo == -24.0, "hi %a lo %a", hi, lo);
    double actual = fabs((k - hi) - lo);
    cr_assert(actual == 24.0);
    /* f64 data: (3u + 4nu^2) G; G = 2^62 + 1000 */
    cr_assert(err >= actual && err < 3.01 * 0x1p-53 * 0x1p62, "err %a", err);
}

/* Dyadic data scaled to integers give an exact answer for non-integer
 * inputs: a = k 2^-20, b = m 2^-20, exact = (k . m) 2^-40. Large,
 * alternating products make the double products round and cancel. */
Test(kahan, bound_holds_on_cancelling_dyadic_data)
{
    enum { N = 3000 };
    static double a[N], b[N], ka[N], kb[N];
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < N; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        int64_t k = (int64_t)(x >> 33) - (INT64_C(1) << 30); /* |k| < 2^31 */
        x = x * 6364136223846793005u + 1442695040888963407u;
        int64_t m = (int64_t)(x >> 33) | 1;
        ka[i] = (double)k;
        kb[i] = (double)(i & 1 ? -m : m);
        a[i] = ldexp(ka[i], -20);
        b[i] = ldexp(kb[i], -20);
    }
    df_i128 ex;
    double hi, lo, err;
    cr_assert_eq(df_exact_dot_int(DF_F64, ka, kb, N, &ex), 0);
    df_i128_to_double2(ex, &hi, &lo);
    hi = ldexp(hi, -40);
    lo = ldexp(lo, -40);
    double k = df_kahan_dot(DF_F64, a, b, N, &err);
    double G = df_abs_dot(DF_F64, a, b, N);
    double actual = fabs((k - hi) - lo);
    cr_assert(actual <= err, "actual %a > bound %a", actual, err);
    cr_assert(err <= 3.01 * 0x1p-53 * G, "bound %a vs G %a", err, G);
}

/* f32 products are exact in double: the bound is (2u + 4nu^2) G, scaled. */
Test(kahan, f32_bound_is_2u_G)
{
    float a[] = {1.0f, 2.0f};
    float b[] = {3.0f, -4.0f};
    double err;
    double k = df_kahan_dot(DF_F32, a, b, 2, &err);
    cr_assert(k == -5.0);
    cr_assert(err >= 2 * 0x1p-53 * 11.0 && err <= 2.001 * 0x1p-53 * 11.0, "err %a", err);
}

/* i32 products above 2^53 round in double: the bound adds u G. */
Test(kahan, i32_large_products_widen_bound)
{
    int32_t a[] = {INT32_MAX, 1};
    int32_t b[] = {INT32_MAX - 2, 1};
    double err;
    double k = df_kahan_dot(DF_I32, a, b, 2, &err);
    double G = (double)INT32_MAX * (double)(INT32_MAX - 2) + 1.0;
    int64_t exact = (int64_t)INT32_MAX * (INT32_MAX - 2) + 1;
    cr_assert(fabs(k - (double)exact) <= err);
    cr_assert(err >= 3 * 0x1p-53 * G, "err %a", err);
}

Test(abs_dot, signed_data)
{
    int32_t a[] = {1, -2, 3};
    int32_t b[] = {-4, 5, 6};
    cr_assert(df_abs_dot(DF_I32, a, b, 3) == 32.0);
    double da[] = {-0.5, 0.25, -3.0};
    double db[] = {-8.0, -4.0, 2.0};
    cr_assert(df_abs_dot(DF_F64, da, db, 3) == 11.0);
    float fa[] = {-0x1p100f, 1.0f};
    float fb[] = {0x1p100f, -1.0f};
    cr_assert(df_abs_dot(DF_F32, fa, fb, 2) == 0x1p200 + 1.0); /* no f32 overflow */
}

Test(refs, integer_data_exact_and_flags)
{
    double a[] = {3.0, -2.0, 0.0, 1e3};
    double b[] = {4.0, 5.0, -7.0, -1.0};
    df_refs r;
    df_refs_compute(DF_F64, a, b, 4, &r);
    cr_assert(r.all_integer && r.exact_known && !r.has_nonfinite && !r.has_nan);
    cr_assert(r.exact.hi == -1 && r.exact.lo == (uint64_t)-998);
    cr_assert(r.exact_hi == -998.0 && r.exact_lo == 0.0);
    cr_assert(r.kahan == -998.0);
    cr_assert(r.G == 1022.0);
    cr_assert(r.max_abs_a == 1e3 && r.max_abs_b == 7.0);
    cr_assert(r.G == df_abs_dot(DF_F64, a, b, 4));
}

Test(refs, nan_input)
{
    float a[] = {1.0f, NAN};
    float b[] = {2.0f, 3.0f};
    df_refs r;
    df_refs_compute(DF_F32, a, b, 2, &r);
    cr_assert(r.has_nan && r.has_nonfinite);
    cr_assert(!r.all_integer && !r.exact_known);
    cr_assert(isinf(r.max_abs_a) && r.max_abs_b == 3.0f);
    cr_assert(isnan(r.kahan));
}

Test(refs, inf_input)
{
    double a[] = {1.0, 2.0};
    double b[] = {-INFINITY, 3.0};
    df_refs r;
    df_refs_compute(DF_F64, a, b, 2, &r);
    cr_assert(r.has_nonfinite && !r.has_nan);
    cr_assert(!r.all_integer && !r.exact_known);
    cr_assert(r.max_abs_a == 2.0 && isinf(r.max_abs_b));
    /* the class any order gives, and the finite products' sum */
    cr_assert(r.inf_want == -INFINITY && r.fin_g == 6.0);
}

/* Inputs holding Inf: the sum's class is NaN for a 0 * Inf or for infinite
 * products of both signs, else the infinity of their sign; fin_g adds the
 * finite products' magnitudes alone, as f32 data give them in double. */
Test(refs, inf_classes_and_the_finite_products)
{
    static const struct {
        float a[3], b[3];
        double want, fin_g;
    } t[] = {
        {{INFINITY, 2.0f, -3.0f}, {1.0f, 4.0f, 5.0f}, INFINITY, 23.0},
        {{INFINITY, 2.0f, -3.0f}, {-1.0f, 4.0f, 5.0f}, -INFINITY, 23.0},
        {{INFINITY, -INFINITY, 1.0f}, {1.0f, 1.0f, 0.5f}, NAN, 0.5},
        {{INFINITY, 2.0f, 0.0f}, {0.0f, 4.0f, 1.0f}, NAN, 8.0},
        {{3e38f, 3e38f, INFINITY}, {3e38f, -3e38f, 2.0f}, INFINITY, 2 * (double)3e38f * 3e38f},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        df_refs r;
        df_refs_compute(DF_F32, t[i].a, t[i].b, 3, &r);
        cr_assert(r.has_nonfinite && !r.has_nan, "row %zu", i);
        if (isnan(t[i].want))
            cr_assert(isnan(r.inf_want), "row %zu: %a", i, r.inf_want);
        else
            cr_assert_eq(r.inf_want, t[i].want, "row %zu: %a", i, r.inf_want);
        cr_assert_eq(r.fin_g, t[i].fin_g, "row %zu: %a", i, r.fin_g);
    }
}

/* 1e300 is an integer, but too large for the exact path; 0.5 is not one. */
Test(refs, all_integer_without_exact)
{
    double a[] = {1e300, 3.0};
    double b[] = {1e-300, 2.0};
    df_refs r;
    df_refs_compute(DF_F64, a, b, 2, &r);
    cr_assert(!r.all_integer); /* 1e-300 */
    double c[] = {1e300, -0x1p52 - 1.0};
    double d[] = {1.0, 1.0};
    df_refs_compute(DF_F64, c, d, 2, &r);
    /* integers too large for the i128 path: exact through the superaccumulator */
    cr_assert(r.all_integer && !r.exact_is_int && r.exact_known && r.fp_known);
    cr_assert(r.exact_hi == 1e300 && r.exact_lo == -0x1p52 - 1.0);
    float e[] = {0.5f, 1.0f};
    float f[] = {2.0f, 0x1p23f + 1.0f};
    df_refs_compute(DF_F32, e, f, 2, &r);
    cr_assert(!r.all_integer && !r.exact_is_int && r.exact_known);
    cr_assert(r.exact_hi == 0x1p23 + 2.0 && r.exact_lo == 0.0);
    cr_assert(r.kahan == 0x1p23 + 2.0);
    cr_assert(r.max_abs_a == 1.0 && r.max_abs_b == 0x1p23 + 1.0);
}

/* Same data through df_refs_compute and the standalone exact dot, across
 * chunk boundaries with one huge element; head+tail carry the low bits. */
Test(refs, exact_agrees_with_standalone_dot_across_chunks)
{
    enum { N = 4500 };
    static int32_t a[N], b[N];
    for (int i = 0; i < N; i++) {
        a[i] = (i % 101) - 50;
        b[i] = (i % 37) - 18;
    }
    a[2047] = INT32_MIN;
    b[2047] = INT32_MIN;
    a[2048] = INT32_MAX;
    b[2048] = 7;
    df_refs r;
    df_i128 ex;
    df_refs_compute(DF_I32, a, b, N, &r);
    cr_assert_eq(df_exact_dot_int(DF_I32, a, b, N, &ex), 0);
    cr_assert(r.exact_known && r.all_integer);
    cr_assert(r.exact.hi == ex.hi && r.exact.lo == ex.lo);
    int64_t small = 0;
    for (int i = 0; i < N; i++)
        if (i != 2047 && i != 2048)
            small += (int64_t)a[i] * b[i];
    uint64_t want = (UINT64_C(1) << 62) + (uint64_t)INT32_MAX * 7 + (uint64_t)small;
    cr_assert(ex.hi == 0 && ex.lo == want, "lo %llu want %llu",
              (unsigned long long)ex.lo, (unsigned long long)want);
    cr_assert(r.exact_hi + r.exact_lo == r.exact_hi); /* tail below head's ulp */
    cr_assert((uint64_t)r.exact_hi + (uint64_t)(int64_t)r.exact_lo == want);
}
