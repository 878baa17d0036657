/* test_reference.c — known answers for the CPU references: the exact
 * integer dot (int64 and __int128 paths, chunk boundaries), its refusals,
 * the i128 -> head+tail conversion, Kahan and its bound, G, and the flags
 * df_refs_compute reports. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/generator.h"
#include "fuzz/values.h"
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

/* df_refs_compute_many gives each case the refs df_refs_compute gives it,
 * bit for bit: generated cases of every family in f32, f64 and i32, their
 * types in runs of one to six (groups of four of one type go side by
 * side, the rest alone), lengths 0 to past two chunks, in batches of every
 * size from 1 to 13. */
Test(refs, many_at_once_equal_one_at_a_time)
{
    static const char *names[] = {"shfl", "shfl-f64", "int-atomic"};
    enum { M = 13, ROUNDS = 120 };
    df_scratch buf[M];
    df_case c[M];
    df_refs one[M], many[M];
    df_refs_job jobs[M];
    memset(buf, 0, sizeof buf);
    df_pcg32 r;
    df_pcg32_seed(&r, 2026, 11);
    uint64_t index = 0, checked = 0;
    size_t run_left = 0, type_at = 0;
    for (int round = 0; round < ROUNDS; round++) {
        size_t m = 1 + round % M;
        for (size_t i = 0; i < m; i++) {
            if (run_left == 0) {
                type_at = df_pcg32_bounded(&r, 3);
                run_left = 1 + df_pcg32_bounded(&r, 6);
            }
            run_left--;
            const df_kernel *k = df_kernel_find(names[type_at]);
            cr_assert_not_null(k);
            df_gen_opts go = {.max_n = 5000};
            cr_assert_eq(df_generate(31, index++, k, &go, &buf[i], &c[i]), 0);
            df_refs_compute(c[i].type, c[i].a, c[i].b, c[i].n, &one[i]);
            memset(&many[i], 0xa5, sizeof many[i]);
            jobs[i] = (df_refs_job){c[i].type, c[i].a, c[i].b, c[i].n, &many[i]};
        }
        df_refs_compute_many(jobs, m);
        for (size_t i = 0; i < m; i++) {
            cr_assert_eq(memcmp(&one[i], &many[i], sizeof one[i]), 0,
                         "round %d, case %zu (type %d, n %llu) differs", round, i,
                         (int)c[i].type, (unsigned long long)c[i].n);
            checked++;
        }
    }
    cr_assert_eq(checked, (uint64_t)(ROUNDS / M) * (M * (M + 1) / 2) +
                              (uint64_t)((ROUNDS % M) * (ROUNDS % M + 1) / 2));
    for (size_t i = 0; i < M; i++)
        df_scratch_free(&buf[i]);
}

/* The same with NaN and Inf in the data, where the bits of a NaN result
 * depend on which of two NaNs an addition passes on: short vectors of
 * +-NaN, +-Inf, 0, 1, -2 and a value whose square overflows, four jobs a
 * time (a NaN of either sign in the data used to come out with the other
 * sign in three lanes of four). */
Test(refs, many_at_once_equal_one_at_a_time_with_nan_and_inf)
{
    const double vals[] = {NAN, -NAN, INFINITY, -INFINITY, 1.0, -2.0, 0.0, 3e38};
    float fa[8], fb[8];
    double da[8], db[8];
    for (unsigned t = 0; t < 4000; t++) {
        unsigned x = t * 2654435761u;
        for (int i = 0; i < 8; i++) {
            fa[i] = (float)vals[(x >> (i * 2)) & 7];
            fb[i] = (float)vals[(x >> (i * 3 + 5)) & 7];
            da[i] = vals[(x >> (i * 2 + 1)) & 7] * (i == 7 ? 1e270 : 1.0);
            db[i] = vals[(x >> (i * 3 + 4)) & 7];
        }
        for (int f64 = 0; f64 < 2; f64++) {
            df_type ty = f64 ? DF_F64 : DF_F32;
            const void *a = f64 ? (const void *)da : (const void *)fa;
            const void *b = f64 ? (const void *)db : (const void *)fb;
            df_refs one, many[4];
            df_refs_job jobs[4];
            df_refs_compute(ty, a, b, 8, &one);
            for (int k = 0; k < 4; k++)
                jobs[k] = (df_refs_job){ty, a, b, 8, &many[k]};
            df_refs_compute_many(jobs, 4);
            for (int k = 0; k < 4; k++)
                cr_assert_eq(memcmp(&one, &many[k], sizeof one), 0,
                             "pattern %u, %s, lane %d differs", t, f64 ? "f64" : "f32", k);
        }
    }
}

/* ---- the fast paths against the plain references ------------------------ */

/* What df_refs_compute(_many) derives from the data must equal, bit for
 * bit, what the standalone references give on the same data: Kahan and
 * its bound (df_kahan_dot: one scalar chain), G (df_abs_dot), the exact
 * integer dot and the superaccumulator's digits (df_exact_dot). The refs
 * take shortcuts the standalone functions do not: integer data whose sums
 * stay below 2^53 are summed exactly in vector lanes (and their digits
 * come from the integer dot), and the Kahan sums of several cases run side
 * by side in vector lanes. */
static void expect_refs_match_standalone(df_type t, const void *a, const void *b, uint64_t n,
                                         const df_refs *r, const char *what)
{
    double err, kahan = df_kahan_dot(t, a, b, n, &err);
    double g = df_abs_dot(t, a, b, n);
    if (r->has_nan) {
        /* which NaN comes out depends on each loop's operand order (see
         * df_refs_compute_many), so another loop may give the other sign */
        cr_assert(isnan(r->kahan) && isnan(kahan) && isnan(r->G) && isnan(g), "%s", what);
        return;
    }
    cr_assert_eq(memcmp(&r->kahan, &kahan, sizeof kahan), 0, "%s: kahan %a, want %a", what,
                 r->kahan, kahan);
    cr_assert_eq(memcmp(&r->kahan_err, &err, sizeof err), 0, "%s: kahan_err %a, want %a", what,
                 r->kahan_err, err);
    cr_assert_eq(memcmp(&r->G, &g, sizeof g), 0, "%s: G %a, want %a", what, r->G, g);
    df_i128 ex;
    int is_int = df_exact_dot_int(t, a, b, n, &ex) == 0;
    cr_assert_eq(r->exact_is_int, is_int, "%s: exact_is_int", what);
    if (is_int)
        cr_assert(r->exact.hi == ex.hi && r->exact.lo == ex.lo, "%s: exact", what);
    if (t != DF_I32 && !r->has_nonfinite) {
        df_exact fp;
        memset(&fp, 0, sizeof fp); /* the refs' padding is zero too */
        cr_assert_eq(df_exact_dot(t, a, b, n, &fp), 0);
        cr_assert_eq(r->fp_known, fp.kind == DF_EXACT_FINITE, "%s: fp_known", what);
        cr_assert_eq(memcmp(&r->fp, &fp, sizeof fp), 0, "%s: fp differs from df_exact_dot", what);
    }
}

/* Random integer data of every magnitude up to 2^31 (each vector its own
 * 2^k bound, so that len max|a| max|b| falls either side of 2^53, in the
 * first chunk or a later one), with now and then a value that ends the
 * exact sums partway: one big element, a fraction, a subnormal, -0, an
 * Inf or a NaN. */
static void fill_mixed(df_pcg32 *r, df_type t, void *v, uint64_t n)
{
    unsigned e = df_pcg32_bounded(r, 32);
    uint64_t span = (UINT64_C(1) << e) + 1;
    for (uint64_t i = 0; i < n; i++) {
        int64_t x = (int64_t)(((uint64_t)df_pcg32_next(r) << 32 | df_pcg32_next(r)) % (2 * span - 1)) -
                    (int64_t)span + 1;
        if (t == DF_I32)
            ((int32_t *)v)[i] = (int32_t)(x > INT32_MAX ? INT32_MAX : x);
        else if (t == DF_F32)
            ((float *)v)[i] = (float)x;
        else
            ((double *)v)[i] = (double)x;
    }
    if (n == 0 || df_pcg32_bounded(r, 3) == 0)
        return;
    static const double odd[] = {0x1p40, -2147483649.0, 0.5, 0x1p-140, -0.0, INFINITY,
                                 -INFINITY, NAN, -NAN, 0x1p-1070, 3e38};
    uint64_t at = df_pcg32_bounded(r, (uint32_t)n);
    double x = odd[df_pcg32_bounded(r, sizeof odd / sizeof odd[0])];
    if (t == DF_I32)
        ((int32_t *)v)[at] = isfinite(x) && fabs(x) < 2147483647.0 ? (int32_t)x : INT32_MIN;
    else if (t == DF_F32)
        ((float *)v)[at] = (float)x;
    else
        ((double *)v)[at] = x;
}

Test(refs, fast_paths_equal_standalone_references)
{
    enum { M = 20, ROUNDS = 60, NMAX = 6200 };
    static double abuf[M][NMAX], bbuf[M][NMAX];
    df_refs one[M], many[M];
    df_refs_job jobs[M];
    df_type types[M];
    uint64_t ns[M];
    df_pcg32 r;
    df_pcg32_seed(&r, 77, 5);
    char what[96];
    for (int round = 0; round < ROUNDS; round++) {
        size_t m = 1 + df_pcg32_bounded(&r, M);
        df_type t0 = (df_type)(DF_F32 + df_pcg32_bounded(&r, 3));
        uint64_t n0 = df_pcg32_bounded(&r, 3) ? 2000 : df_pcg32_bounded(&r, NMAX + 1);
        for (size_t i = 0; i < m; i++) {
            /* mostly one type and one length (side by side), some others */
            int other = df_pcg32_bounded(&r, 5) == 0;
            types[i] = other ? (df_type)(DF_F32 + df_pcg32_bounded(&r, 3)) : t0;
            ns[i] = other ? df_pcg32_bounded(&r, NMAX + 1) : n0;
            fill_mixed(&r, types[i], abuf[i], ns[i]);
            fill_mixed(&r, types[i], bbuf[i], ns[i]);
            df_refs_compute(types[i], abuf[i], bbuf[i], ns[i], &one[i]);
            memset(&many[i], 0x5a, sizeof many[i]);
            jobs[i] = (df_refs_job){types[i], abuf[i], bbuf[i], ns[i], &many[i]};
        }
        df_refs_compute_many(jobs, m);
        for (size_t i = 0; i < m; i++) {
            snprintf(what, sizeof what, "round %d, job %zu of %zu (%s, n %llu)", round, i, m,
                     df_type_name(types[i]), (unsigned long long)ns[i]);
            expect_refs_match_standalone(types[i], abuf[i], bbuf[i], ns[i], &one[i], what);
            cr_assert_eq(memcmp(&one[i], &many[i], sizeof one[i]), 0, "%s: many differs", what);
        }
    }
}

/* The vector lanes' Kahan sums on floats that make every special case of
 * IEEE addition: subnormals, signed zeros, cancellation to zero, overflow
 * to +-Inf and Inf - Inf (NaN from the sums, not the data, which the
 * lanes take), sixteen cases side by side each round. */
Test(refs, kahan_lanes_equal_scalar_on_specials)
{
    enum { M = 16, N = 301 };
    static const double vals[] = {0x1p-1074, -0x1p-1074, 0x1p-1022, -0.0, 0.0, 1.0, -1.0,
                                  0x1p-149, -0x1p-126, 0x1.fffffep127, -0x1.fffffep127,
                                  1e300, -1e300, 0x1p-60, 3.0, INFINITY, -INFINITY};
    const unsigned nv = sizeof vals / sizeof vals[0];
    static float fa[M][N], fb[M][N];
    static double da[M][N], db[M][N];
    df_refs many[M];
    df_refs_job jobs[M];
    df_pcg32 r;
    df_pcg32_seed(&r, 9, 3);
    char what[64];
    for (int round = 0; round < 300; round++) {
        int f64 = round & 1;
        df_type t = f64 ? DF_F64 : DF_F32;
        /* rounds without Inf, with some, and with many */
        unsigned pick = round % 3 == 0 ? nv - 2 : nv;
        for (int k = 0; k < M; k++) {
            for (int i = 0; i < N; i++) {
                double x = vals[df_pcg32_bounded(&r, pick)], y = vals[df_pcg32_bounded(&r, pick)];
                if (round % 3 == 1 && df_pcg32_bounded(&r, 16) != 0) /* mostly ordinary */
                    x = (double)df_pcg32_next(&r) * 0x1p-20, y = -(double)df_pcg32_next(&r);
                fa[k][i] = (float)x, fb[k][i] = (float)y;
                da[k][i] = x, db[k][i] = y;
            }
            jobs[k] = (df_refs_job){t, f64 ? (void *)da[k] : (void *)fa[k],
                                    f64 ? (void *)db[k] : (void *)fb[k], N, &many[k]};
        }
        df_refs_compute_many(jobs, M);
        for (int k = 0; k < M; k++) {
            snprintf(what, sizeof what, "round %d, lane %d", round, k);
            expect_refs_match_standalone(t, jobs[k].a, jobs[k].b, N, &many[k], what);
        }
    }
}

/* The bins' exact dot (df_exact_bins_f32, the code of the Kahan lanes) at
 * the edge of what three bins hold: for n = 2 (W = 49) and P = 1 the units
 * are 2^-48, 2^-96 and 2^-144, so 1 + 2^-121 (1 + 2^-23) fits and its half
 * does not; for n = 3 (W = 48) the last unit is 2^-141 and neither fits. */
static int bins_vs_superacc(const float *a, const float *b, uint64_t n)
{
    df_exact x, y;
    memset(&x, 0, sizeof x);
    memset(&y, 0, sizeof y);
    cr_assert_eq(df_exact_dot(DF_F32, a, b, n, &y), 0);
    int rc = df_exact_bins_f32(a, b, n, &x);
    if (rc == 0)
        cr_assert_eq(memcmp(&x, &y, sizeof x), 0, "n %llu: the bins' exact dot differs",
                     (unsigned long long)n);
    return rc;
}

Test(refs, bins_exact_at_their_limit)
{
    float a[3] = {1.0f, 0x1.000002p-72f, 0.0f}, b[3] = {1.0f, 0x1p-49f, 0.0f};
    cr_assert_eq(bins_vs_superacc(a, b, 2), 0);
    cr_assert_eq(bins_vs_superacc(a, b, 3), -1);
    b[1] = 0x1p-50f;
    cr_assert_eq(bins_vs_superacc(a, b, 2), -1);
    a[1] = 0x1p-72f; /* one significant bit: 2^-122 is a multiple of 2^-144 */
    cr_assert_eq(bins_vs_superacc(a, b, 2), 0);
    a[0] = -1.0f;
    cr_assert_eq(bins_vs_superacc(a, b, 1), 0);
    cr_assert_eq(bins_vs_superacc(a, b, 0), 0);
}

/* Random f32 data whose products span from a few to 200 binary places,
 * from subnormals to near FLT_MAX, lengths 1 to 3000, each value's sign
 * and significand random: wherever the bins say they hold the exact dot,
 * it is df_exact_dot's to the bit, and both outcomes occur. */
Test(refs, bins_exact_equal_superaccumulator)
{
    enum { N = 3000 };
    static float a[N], b[N];
    df_pcg32 r;
    df_pcg32_seed(&r, 77, 5);
    unsigned held = 0, left = 0;
    for (int round = 0; round < 400; round++) {
        uint64_t n = 1 + df_pcg32_bounded(&r, round % 4 ? 300 : N);
        int lo = -149 + (int)df_pcg32_bounded(&r, 250), span = (int)df_pcg32_bounded(&r, 100);
        if (lo + span > 127)
            span = 127 - lo;
        for (uint64_t i = 0; i < n; i++) {
            float x = ldexpf(1.0f + (float)(df_pcg32_next(&r) >> 9) * 0x1p-23f,
                             lo + (int)df_pcg32_bounded(&r, (uint32_t)span + 1));
            float y = ldexpf(1.0f + (float)(df_pcg32_next(&r) >> 9) * 0x1p-23f,
                             lo + (int)df_pcg32_bounded(&r, (uint32_t)span + 1));
            a[i] = df_pcg32_next(&r) & 1 ? -x : x;
            b[i] = df_pcg32_next(&r) & 1 ? -y : y;
        }
        if (bins_vs_superacc(a, b, n) == 0)
            held++;
        else
            left++;
    }
    cr_assert(held > 50 && left > 50, "held %u, left %u", held, left);
}

/* a -> -a into a2 (n elements of t). */
static void negate_copy(df_type t, const void *a, void *a2, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        if (t == DF_F32)
            ((float *)a2)[i] = -((const float *)a)[i];
        else if (t == DF_F64)
            ((double *)a2)[i] = -((const double *)a)[i];
        else
            ((int32_t *)a2)[i] = -((const int32_t *)a)[i];
    }
}

/* The derived references' tests: vectors for them, their counts. */
typedef struct derive_run {
    void *a, *a2, *b;
    unsigned derived, refused;
} derive_run;

/* fn over every family, each of its types (f32, f64, i32), each n of ns,
 * seeds 1..few (n <= 5003) or 1..many (longer), seed base `mul` a family. */
static void over_families(const uint64_t *ns, size_t nn, unsigned few, unsigned many,
                          uint64_t mul, derive_run *dr,
                          void (*fn)(df_type, uint32_t, uint64_t, uint64_t, derive_run *))
{
    static const df_type types[] = {DF_F32, DF_F64, DF_I32};
    for (size_t fi = 0; fi < df_family_count(); fi++) {
        const df_family *fam = df_family_at(fi);
        for (int k = 0; k < 3; k++) {
            if (!(fam->types & DF_TYPE_BIT(types[k])))
                continue;
            for (size_t m = 0; m < nn; m++)
                for (uint64_t seed = 1; seed <= (ns[m] > 5003 ? many : few); seed++)
                    fn(types[k], fam->id, mul * fi + seed, ns[m], dr);
        }
    }
}

/* df_refs_negated(refs of (a, b)) is, bit for bit, df_refs_compute of
 * (-a, b) wherever it answers, for every family and type, short and long
 * cases (the chunks' merge), with Inf classes, exact zeros and lo = +0;
 * it refuses a Kahan sum of zero (whose sign is the order's) and NaN
 * data. Returns through *derived and *refused how often it did each. */
static void negated_matches(df_type t, uint32_t fam, uint64_t seed, uint64_t n,
                            derive_run *dr)
{
    void *a = dr->a, *a2 = dr->a2, *b = dr->b;
    df_pcg32 r;
    df_pcg32_seed(&r, seed, n);
    cr_assert_eq(df_fill_values(fam, &r, t, a, b, n), 0);
    df_refs own, neg, want;
    df_refs_compute(t, a, b, n, &own);
    if (own.has_nan || (t == DF_I32 && own.max_abs_a >= TWO31)) {
        cr_assert_eq(df_refs_negated(t, &own, &neg), -1);
        return;
    }
    negate_copy(t, a, a2, n);
    df_refs_compute(t, a2, b, n, &want);
    memset(&neg, 0x5a, sizeof neg);
    if (df_refs_negated(t, &own, &neg) != 0) {
        cr_assert(own.kahan == 0 || isnan(own.kahan), "refused Kahan %a", own.kahan);
        dr->refused++;
        return;
    }
    cr_assert_eq(memcmp(&neg, &want, sizeof want), 0,
                 "family %u %s n %llu: kahan %a / %a, exact %a %a / %a %a, inf %a / %a", fam,
                 df_type_name(t), (unsigned long long)n, neg.kahan, want.kahan, neg.exact_hi,
                 neg.exact_lo, want.exact_hi, want.exact_lo, neg.inf_want, want.inf_want);
    dr->derived++;
}

static uint64_t perm_draw(df_pcg32 *r, uint64_t i)
{
    return df_pcg32_bounded(r, (uint32_t)(i + 1));
}

/* df_refs_permuted(refs of (a, b), the pairs shuffled) is, bit for bit,
 * df_refs_compute of the shuffled pairs wherever it answers, for every
 * family and type, short and multi-chunk (where integer data take the
 * scan's exact path over some chunks and not others); it refuses data
 * holding NaN or Inf and cases past DF_REFS_CHUNK. */
static void permuted_matches(df_type t, uint32_t fam, uint64_t seed, uint64_t n,
                             derive_run *dr)
{
    void *a = dr->a, *b = dr->b;
    df_pcg32 r;
    df_pcg32_seed(&r, seed, n);
    cr_assert_eq(df_fill_values(fam, &r, t, a, b, n), 0);
    df_refs own, perm, want;
    df_refs_compute(t, a, b, n, &own);
    df_shuffle_pairs(a, b, df_type_size(t), n, &r, perm_draw);
    df_refs_compute(t, a, b, n, &want);
    memset(&perm, 0x5a, sizeof perm);
    if (df_refs_permuted(t, a, b, n, &own, &perm) != 0) {
        cr_assert(own.has_nonfinite || n > DF_REFS_CHUNK, "refused family %u n %llu", fam,
                  (unsigned long long)n);
        dr->refused++;
        return;
    }
    cr_assert_eq(memcmp(&perm, &want, sizeof want), 0,
                 "family %u %s n %llu: kahan %a / %a, err %a / %a, G %a / %a", fam,
                 df_type_name(t), (unsigned long long)n, perm.kahan, want.kahan,
                 perm.kahan_err, want.kahan_err, perm.G, want.G);
    dr->derived++;
}

Test(refs, permuted_from_the_case_own_equal_computed)
{
    static const uint64_t ns[] = {1, 2, 33, 2000, 5003, DF_REFS_CHUNK, DF_REFS_CHUNK + 1};
    const uint64_t nmax = DF_REFS_CHUNK + 1;
    derive_run dr = {malloc(nmax * 8), NULL, malloc(nmax * 8), 0, 0};
    cr_assert(dr.a && dr.b);
    over_families(ns, sizeof ns / sizeof ns[0], 6, 1, 300, &dr, permuted_matches);
    cr_assert_gt(dr.derived, 500, "%u derived, %u refused", dr.derived, dr.refused);
    cr_assert_gt(dr.refused, 0, "%u derived, %u refused", dr.derived, dr.refused);
    free(dr.a), free(dr.b);
}

/* df_refs_permuted_many, the permute copies' Kahan sums side by side in
 * vector lanes, gives each job what df_refs_permuted gives it alone, and
 * refuses the same ones (data holding NaN or Inf): 70 jobs of every type
 * and family, lengths 1 to 3000 mixed (so lanes leave at different
 * lengths, and more than one group of sixteen a type). */
Test(refs, permuted_many_equal_one_at_a_time)
{
    enum { M = 70, NMAX = 3000 };
    static const df_type types[] = {DF_F32, DF_F64, DF_I32};
    unsigned char *buf = malloc((size_t)M * 2 * NMAX * 8);
    df_refs own[M], one[M], many[M];
    df_refs_job jobs[M];
    unsigned char ok[M];
    int want_ok[M];
    cr_assert(buf);
    size_t m = 0, refused = 0;
    df_pcg32 lens;
    df_pcg32_seed(&lens, 77, 1);
    for (size_t i = 0; m < M; i++) {
        const df_family *fam = df_family_at(i % df_family_count());
        df_type t = types[(i / df_family_count()) % 3];
        if (!(fam->types & DF_TYPE_BIT(t)))
            continue;
        uint64_t n = 1 + df_pcg32_bounded(&lens, NMAX);
        void *a = buf + m * 2 * NMAX * 8, *b = (unsigned char *)a + NMAX * 8;
        df_pcg32 r;
        df_pcg32_seed(&r, 900 + i, n);
        cr_assert_eq(df_fill_values(fam->id, &r, t, a, b, n), 0);
        df_refs_compute(t, a, b, n, &own[m]);
        df_shuffle_pairs(a, b, df_type_size(t), n, &r, perm_draw);
        memset(&one[m], 0x5a, sizeof one[m]);
        want_ok[m] = df_refs_permuted(t, a, b, n, &own[m], &one[m]) == 0;
        refused += !want_ok[m];
        many[m] = own[m];
        jobs[m] = (df_refs_job){t, a, b, n, &many[m]};
        m++;
    }
    df_refs_permuted_many(jobs, M, ok);
    for (size_t j = 0; j < M; j++) {
        cr_assert_eq(ok[j], want_ok[j], "job %zu", j);
        if (ok[j])
            cr_assert_eq(memcmp(&many[j], &one[j], sizeof one[j]), 0,
                         "job %zu (%s n %llu): kahan %a / %a, G %a / %a", j,
                         df_type_name(jobs[j].t), (unsigned long long)jobs[j].n, many[j].kahan,
                         one[j].kahan, many[j].G, one[j].G);
        else
            cr_assert_eq(memcmp(&many[j], &own[j], sizeof own[j]), 0, "refused: untouched");
    }
    cr_assert_gt(refused, 0);
    cr_assert_lt(refused, M / 2);
    free(buf);
}

/* df_refs_scaled(refs of (a, b), 2^k a) is, bit for bit, df_refs_compute
 * of (2^k a, b) wherever it answers, for f32 data of every family, short
 * and multi-chunk, k from -6 to 6, where 2^k a is exact (no element
 * rounded: as df_scale_is_exact requires). Returns through *derived and
 * *refused how often it did each. */
static void scaled_matches(uint32_t fam, uint64_t seed, uint64_t n, int k, float *a, float *a2,
                           float *b, unsigned *derived, unsigned *refused)
{
    df_pcg32 r;
    df_pcg32_seed(&r, seed, n);
    cr_assert_eq(df_fill_values(fam, &r, DF_F32, a, b, n), 0);
    const float f = ldexpf(1.0f, k);
    for (uint64_t i = 0; i < n; i++) {
        a2[i] = a[i] * f;
        if (!isfinite(a[i]) || (double)a2[i] != ldexp((double)a[i], k))
            return; /* the scaling is not exact: no scale copy */
    }
    df_refs own, sc, want;
    df_refs_compute(DF_F32, a, b, n, &own);
    df_refs_compute(DF_F32, a2, b, n, &want);
    memset(&sc, 0x5a, sizeof sc);
    if (df_refs_scaled(DF_F32, a2, b, n, k, &own, &sc) != 0) {
        (*refused)++;
        return;
    }
    cr_assert_eq(memcmp(&sc, &want, sizeof want), 0,
                 "family %u n %llu k %d: kahan %a / %a, err %a / %a, G %a / %a, exact %a %a / "
                 "%a %a, int %d / %d",
                 fam, (unsigned long long)n, k, sc.kahan, want.kahan, sc.kahan_err,
                 want.kahan_err, sc.G, want.G, sc.exact_hi, sc.exact_lo, want.exact_hi,
                 want.exact_lo, sc.exact_is_int, want.exact_is_int);
    (*derived)++;
}

Test(refs, scaled_from_the_case_own_equal_computed)
{
    static const uint64_t ns[] = {1, 2, 33, 2000, 5003, DF_REFS_CHUNK};
    const uint64_t nmax = DF_REFS_CHUNK + 1;
    float *a = malloc(nmax * 4), *a2 = malloc(nmax * 4), *b = malloc(nmax * 4);
    cr_assert(a && a2 && b);
    unsigned derived = 0, refused = 0;
    for (size_t fi = 0; fi < df_family_count(); fi++) {
        const df_family *fam = df_family_at(fi);
        if (!(fam->types & DF_TYPE_BIT(DF_F32)))
            continue;
        for (size_t m = 0; m < sizeof ns / sizeof ns[0]; m++)
            for (uint64_t seed = 1; seed <= (ns[m] > 5003 ? 1u : 4u); seed++)
                for (int k = -6; k <= 6; k++)
                    if (k != 0)
                        scaled_matches(fam->id, 100 * fi + seed, ns[m], k, a, a2, b, &derived,
                                       &refused);
    }
    cr_assert_gt(derived, 1000, "%u derived, %u refused", derived, refused);
    cr_assert_lt(refused, derived / 10, "%u derived, %u refused", derived, refused);
    /* past DF_REFS_CHUNK, f64 data, NaN data: refused */
    df_refs own, sc;
    for (uint64_t i = 0; i < nmax; i++)
        a[i] = 1.0f, a2[i] = 2.0f, b[i] = 3.0f;
    df_refs_compute(DF_F32, a, b, nmax, &own);
    cr_assert_eq(df_refs_scaled(DF_F32, a2, b, nmax, 1, &own, &sc), -1);
    df_refs_compute(DF_F32, a, b, 64, &own);
    cr_assert_eq(df_refs_scaled(DF_F32, a2, b, 64, 1, &own, &sc), 0);
    cr_assert_eq(df_refs_scaled(DF_F32, a2, b, 64, 2, &own, &sc), -1, "not the data scaled");
    cr_assert_eq(df_refs_scaled(DF_F64, a2, b, 32, 1, &own, &sc), -1);
    a[5] = NAN, a2[5] = NAN;
    df_refs_compute(DF_F32, a, b, 64, &own);
    cr_assert_eq(df_refs_scaled(DF_F32, a2, b, 64, 1, &own, &sc), -1);
    free(a), free(a2), free(b);
}

Test(refs, negated_from_the_case_own_equal_computed)
{
    static const uint64_t ns[] = {1, 2, 33, 2000, 5003, DF_REFS_CHUNK + 1,
                                  2 * DF_REFS_CHUNK + 999};
    const uint64_t nmax = 2 * DF_REFS_CHUNK + 999;
    derive_run dr = {malloc(nmax * 8), malloc(nmax * 8), malloc(nmax * 8), 0, 0};
    cr_assert(dr.a && dr.a2 && dr.b);
    void *a = dr.a, *a2 = dr.a2, *b = dr.b;
    over_families(ns, sizeof ns / sizeof ns[0], 12, 2, 100, &dr, negated_matches);
    cr_assert_gt(dr.derived, 1000, "%u derived", dr.derived);
    /* all zeros: Kahan's sum +0 is refused; NaN data is refused */
    memset(a, 0, 64 * 4), memset(b, 0, 64 * 4);
    df_refs own, neg;
    df_refs_compute(DF_F32, a, b, 64, &own);
    cr_assert_eq(df_refs_negated(DF_F32, &own, &neg), -1);
    ((float *)a)[3] = NAN;
    df_refs_compute(DF_F32, a, b, 64, &own);
    cr_assert_eq(df_refs_negated(DF_F32, &own, &neg), -1);
    free(a), free(a2), free(b);
}
