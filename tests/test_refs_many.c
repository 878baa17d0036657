/* test_refs_many.c — df_refs_compute_many (reference/refs_many.c) against
 * df_refs_compute and the plain references, bit for bit: generated cases
 * in batches of every size, NaN and Inf data, the fast paths (the exact
 * pass on small integers, Kahan in vector lanes, on mixed data and on
 * every special case of IEEE addition), and the f32 bins' exact dot
 * against the superaccumulator, at the bins' limit and on random data. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/gen/generator.h"
#include "reference/reference.h"

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
 * time (a lane whose loop orders the operands otherwise would pass on a
 * NaN of the other sign). */
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
