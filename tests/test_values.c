/* test_values.c — the value families (fuzz/gen/values.h) as df_generate and
 * df_fill_values make them: the ranges int-small, uniform and int-wide
 * promise, and the shapes of the families that hunt for error (special's
 * classes, sparse's zeros, constant's one pair, cancel's cancellation, the
 * i32 families' int32 headroom). Their MPFR checks are test_families.c's,
 * cases past DF_GEN_CHUNK test_long_cases.c's. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/gen/generator.h"
#include "fuzz/gen/values.h"
#include "tests/gen_fakes.h"

static double elem(const df_case *c, const void *v, uint64_t i)
{
    return df_elem_as_double(c->type, v, i);
}

static int is_integral(double x)
{
    return x >= -0x1p62 && x <= 0x1p62 && (double)(int64_t)x == x;
}

static void check_int_small(const df_kernel *k)
{
    df_scratch s = {0};
    df_gen_opts o = {.max_n = 4000, .family = DF_FAM_INT_SMALL};
    int saw_min = 0, saw_max = 0;
    for (uint64_t i = 0; i < 200; i++) {
        df_case c;
        cr_assert_eq(df_generate(5, i, k, &o, &s, &c), 0);
        cr_assert_eq(c.family, (uint32_t)DF_FAM_INT_SMALL);
        for (uint64_t j = 0; j < c.n; j++) {
            double x = elem(&c, c.a, j), y = elem(&c, c.b, j);
            cr_assert(x >= -50 && x <= 50 && is_integral(x), "%s a[%llu] = %g",
                      k->name, (unsigned long long)j, x);
            cr_assert(y >= -50 && y <= 50 && is_integral(y), "%s b[%llu] = %g",
                      k->name, (unsigned long long)j, y);
            saw_min |= x == -50 || y == -50;
            saw_max |= x == 50 || y == 50;
        }
    }
    cr_assert(saw_min && saw_max, "%s: both ends of [-50, 50] occur", k->name);
    df_scratch_free(&s);
}

Test(values, int_small_is_integral_in_minus50_50_for_f32_f64_i32)
{
    check_int_small(&df_fake_free_f32);
    check_int_small(&df_fake_pow2_f64);
    check_int_small(&df_fake_i32);
}

static void check_uniform(const df_kernel *k)
{
    df_scratch s = {0};
    df_gen_opts o = {.max_n = 4000, .family = DF_FAM_UNIFORM};
    uint64_t fractional = 0, total = 0;
    for (uint64_t i = 0; i < 200; i++) {
        df_case c;
        cr_assert_eq(df_generate(6, i, k, &o, &s, &c), 0);
        for (uint64_t j = 0; j < c.n; j++) {
            double x = elem(&c, c.a, j), y = elem(&c, c.b, j);
            cr_assert(x >= -50 && x <= 50, "%s a[%llu] = %a", k->name,
                      (unsigned long long)j, x);
            cr_assert(y >= -50 && y <= 50, "%s b[%llu] = %a", k->name,
                      (unsigned long long)j, y);
            fractional += !is_integral(x) + !is_integral(y);
            total += 2;
        }
    }
    cr_assert_gt(total, 1000u);
    cr_assert_gt(fractional, total * 99 / 100, "%s: uniform values are not integers",
                 k->name);
    df_scratch_free(&s);
}

Test(values, uniform_stays_within_minus50_50)
{
    check_uniform(&df_fake_free_f32);
    check_uniform(&df_fake_pow2_f64);
}

Test(values, uniform_f32_is_100_times_x_minus_half_rounded_once)
{
    /* -50 + 100 u with u on the 2^-24 grid, one rounding: replay the
     * stream by hand and compare with the exact value rounded in double
     * arithmetic (the 31-bit product is exact in double) */
    df_scratch s = {0};
    df_gen_opts o = {.max_n = 4000, .family = DF_FAM_UNIFORM};
    df_case c;
    uint64_t i = 0;
    do
        cr_assert_eq(df_generate(1, i++, &df_fake_free_f32, &o, &s, &c), 0);
    while (c.n == 0);
    df_pcg32 rng;
    df_pcg32_seed(&rng, 1, i - 1);
    (void)df_pcg32_bounded(&rng, 10); /* family: float weights 2 + 8 * 1 */
    uint64_t n;
    df_launch l;
    df_draw_shape(&rng, &df_fake_free_f32, o.max_n, &n, &l);
    cr_assert_eq(n, c.n);
    for (uint64_t j = 0; j < n; j++) {
        uint32_t u24 = df_pcg32_next(&rng) >> 8;
        double exact = 100.0 * ((double)u24 * 0x1p-24 - 0.5);
        cr_assert_eq(((const float *)c.a)[j], (float)exact, "a[%llu]",
                     (unsigned long long)j);
    }
    df_scratch_free(&s);
}

Test(values, int_wide_is_integral_within_2_pow_24)
{
    df_scratch s = {0};
    df_gen_opts o = {.max_n = 4000, .family = DF_FAM_INT_WIDE};
    const df_kernel *ks[] = {&df_fake_free_f32, &df_fake_pow2_f64};
    double biggest = 0, smallest_case_max = 0x1p30;
    for (size_t k = 0; k < 2; k++)
        for (uint64_t i = 0; i < 300; i++) {
            df_case c;
            cr_assert_eq(df_generate(9, i, ks[k], &o, &s, &c), 0);
            double case_max = 0;
            for (uint64_t j = 0; j < c.n; j++) {
                double x = elem(&c, c.a, j), y = elem(&c, c.b, j);
                cr_assert(is_integral(x) && x >= -0x1p24 && x <= 0x1p24, "a = %a", x);
                cr_assert(is_integral(y) && y >= -0x1p24 && y <= 0x1p24, "b = %a", y);
                case_max = x > case_max ? x : case_max;
                case_max = -x > case_max ? -x : case_max;
            }
            biggest = case_max > biggest ? case_max : biggest;
            if (c.n > 100 && case_max < smallest_case_max)
                smallest_case_max = case_max;
        }
    /* magnitudes vary per case: some reach 2^23, some stay below 2^8 */
    cr_assert_gt(biggest, 0x1p23);
    cr_assert_lt(smallest_case_max, 0x1p8);
    df_scratch_free(&s);
}
/* ---- the families that hunt for error (MPFR checks: test_families.c) ---- */

static const uint32_t new_families[] = {DF_FAM_COND, DF_FAM_WIDE_EXP, DF_FAM_SPECIAL,
                                        DF_FAM_SPARSE, DF_FAM_CONSTANT, DF_FAM_CANCEL};

Test(values, every_new_family_is_reproducible_and_varies_with_index)
{
    df_scratch s1 = {0}, s2 = {0};
    const df_kernel *ks[] = {&df_fake_free_f32, &df_fake_pow2_f64, &df_fake_i32};
    for (size_t f = 0; f < 6; f++)
        for (size_t k = 0; k < 3; k++) {
            const df_family *fam = df_family_by_id(new_families[f]);
            if (!(fam->types & DF_TYPE_BIT(ks[k]->elem)))
                continue;
            df_gen_opts o = {.max_n = 3000, .family = new_families[f]};
            int differ = 0;
            uint64_t prev = 0;
            for (uint64_t i = 0; i < 40; i++) {
                df_case c1, c2;
                cr_assert_eq(df_generate(77, i, ks[k], &o, &s1, &c1), 0);
                cr_assert_eq(df_generate(77, i, ks[k], &o, &s2, &c2), 0);
                cr_assert_eq(c1.family, new_families[f]);
                cr_assert_eq(df_test_case_hash(&c1), df_test_case_hash(&c2),
                             "%s on %s, index %llu", fam->name, ks[k]->name,
                             (unsigned long long)i);
                differ += i > 0 && df_test_case_hash(&c1) != prev;
                prev = df_test_case_hash(&c1);
            }
            cr_assert_gt(differ, 35, "%s on %s: cases repeat", fam->name, ks[k]->name);
        }
    df_scratch_free(&s1);
    df_scratch_free(&s2);
}

/* Calls a family's fill on a stream of the test's choosing, n chosen. */
static void fill_family(uint32_t id, df_type t, uint64_t seed, uint64_t index, void *a,
                        void *b, uint64_t n)
{
    df_pcg32 r;
    df_pcg32_seed(&r, seed, index);
    cr_assert_eq(df_fill_values(id, &r, t, a, b, n), 0);
}

enum { CL_POS_ZERO, CL_NEG_ZERO, CL_SUBNORMAL, CL_POS_INF, CL_NEG_INF, CL_NAN, CL_POS_MAX,
       CL_NEG_MAX, CL_MIN_NORMAL, CL_ORDINARY, CL_COUNT };

static int classify(df_type t, const void *v, uint64_t i)
{
    double x = df_elem_as_double(t, v, i);
    double max = t == DF_F32 ? FLT_MAX : DBL_MAX, min = t == DF_F32 ? FLT_MIN : DBL_MIN;
    if (isnan(x))
        return CL_NAN;
    if (x == 0)
        return signbit(x) ? CL_NEG_ZERO : CL_POS_ZERO;
    if (isinf(x))
        return x > 0 ? CL_POS_INF : CL_NEG_INF;
    if (x == max || x == -max)
        return x > 0 ? CL_POS_MAX : CL_NEG_MAX;
    if (fabs(x) < min)
        return CL_SUBNORMAL;
    if (fabs(x) == min)
        return CL_MIN_NORMAL;
    return CL_ORDINARY;
}

static void check_special(df_type t)
{
    size_t esz = df_type_size(t);
    unsigned char *a = malloc(600 * esz), *b = malloc(600 * esz);
    cr_assert(a && b);
    int seen[CL_COUNT] = {0}, at_ends = 0, all_specials = 0;
    uint64_t total = 0;
    for (uint64_t i = 0; i < 1000; i++) {
        uint64_t n = 1 + i % 600;
        fill_family(DF_FAM_SPECIAL, t, 13, i, a, b, n);
        total += 2 * n;
        int specials = 0;
        for (uint64_t j = 0; j < n; j++)
            for (int v = 0; v < 2; v++) {
                const void *p = v ? b : a;
                int cl = classify(t, p, j);
                double x = df_elem_as_double(t, p, j);
                seen[cl]++;
                /* int-small's and uniform's values, +0 among them (so a
                 * special +0 cannot be told from them) */
                if (cl == CL_ORDINARY || cl == CL_POS_ZERO) {
                    cr_assert(x >= -50 && x <= 50, "ordinary %a", x);
                    continue;
                }
                specials++;
                at_ends += j == 0 || j == n - 1;
            }
        cr_assert_leq(specials, 6, "case %llu: %d special values", (unsigned long long)i,
                      specials);
        all_specials += specials;
    }
    /* 1 to 6 drawn per case, some of them +0 or landing twice on a place */
    cr_assert_gt(all_specials, 2500, "%d specials in 1000 cases", all_specials);
    cr_assert_gt((uint64_t)(seen[CL_ORDINARY] + seen[CL_POS_ZERO]), total * 99 / 100,
                 "mostly ordinary values");
    static const char *names[] = {"+0", "-0", "subnormal", "+inf", "-inf", "nan",
                                  "+max", "-max", "min normal"};
    for (int cl = 0; cl < CL_ORDINARY; cl++)
        cr_assert_gt(seen[cl], 0, "%s: no %s in 1000 cases", df_type_name(t), names[cl]);
    cr_assert_gt(at_ends, 100, "specials at position 0 or n - 1: %d", at_ends);
    free(a);
    free(b);
}

Test(values, special_holds_every_special_class_and_few_per_case)
{
    check_special(DF_F32);
    check_special(DF_F64);
}

/* sum |a_i b_i| of i32 data, exactly */
static uint64_t i32_abs_dot(const int32_t *a, const int32_t *b, uint64_t n)
{
    uint64_t g = 0;
    for (uint64_t i = 0; i < n; i++)
        g += (uint64_t)llabs((long long)a[i] * b[i]);
    return g;
}

static int64_t i32_dot(const int32_t *a, const int32_t *b, uint64_t n)
{
    int64_t s = 0;
    for (uint64_t i = 0; i < n; i++)
        s += (int64_t)a[i] * b[i];
    return s;
}

Test(values, sparse_is_mostly_zeros_with_few_nonzero_pairs)
{
    df_type types[] = {DF_F32, DF_F64, DF_I32};
    for (int k = 0; k < 3; k++) {
        df_type t = types[k];
        size_t esz = df_type_size(t);
        unsigned char *a = malloc(2000 * esz), *b = malloc(2000 * esz);
        cr_assert(a && b);
        int first = 0, last = 0, ints = 0, fracs = 0;
        uint64_t zeros = 0, total = 0;
        for (uint64_t i = 0; i < 500; i++) {
            uint64_t n = 1 + (i * 37) % 2000;
            fill_family(DF_FAM_SPARSE, t, 14, i, a, b, n);
            int nonzero = 0;
            for (uint64_t j = 0; j < n; j++) {
                double x = df_elem_as_double(t, a, j), y = df_elem_as_double(t, b, j);
                cr_assert_eq(x != 0, y != 0, "a and b are nonzero together (%llu)",
                             (unsigned long long)j);
                cr_assert(!signbit(x) || x != 0, "zeros are +0");
                if (x == 0) {
                    zeros++;
                } else {
                    nonzero++;
                    first += j == 0;
                    last += j == n - 1 && n > 1;
                    int integral = x == (double)(int64_t)x && y == (double)(int64_t)y;
                    ints += integral;
                    fracs += !integral;
                    if (t != DF_I32)
                        cr_assert(integral ? fabs(x) <= 50 && fabs(y) <= 50
                                           : fabs(x) >= 0x1p-4 && fabs(x) < 0x1p6,
                                  "%a %a", x, y);
                }
                total++;
            }
            cr_assert(nonzero >= 1 && nonzero <= 16, "n %llu: %d nonzero pairs",
                      (unsigned long long)n, nonzero);
            if (t == DF_I32)
                cr_assert_leq(i32_abs_dot((const int32_t *)a, (const int32_t *)b, n),
                              (uint64_t)INT32_MAX);
        }
        cr_assert_gt(zeros, total * 98 / 100, "%s: %llu zeros of %llu", df_type_name(t),
                     (unsigned long long)zeros, (unsigned long long)total);
        cr_assert(first > 20 && last > 20, "ends: first %d, last %d", first, last);
        if (t != DF_I32)
            cr_assert(ints > 100 && fracs > 100, "ints %d, fracs %d", ints, fracs);
        free(a);
        free(b);
    }
}

Test(values, constant_repeats_one_a_and_one_b)
{
    df_type types[] = {DF_F32, DF_F64, DF_I32};
    for (int k = 0; k < 3; k++) {
        df_type t = types[k];
        size_t esz = df_type_size(t);
        unsigned char *a = malloc(3000 * esz), *b = malloc(3000 * esz);
        cr_assert(a && b);
        int ints = 0, fracs = 0;
        for (uint64_t i = 0; i < 300; i++) {
            uint64_t n = 1 + (i * 101) % 3000;
            fill_family(DF_FAM_CONSTANT, t, 15, i, a, b, n);
            double x = df_elem_as_double(t, a, 0), y = df_elem_as_double(t, b, 0);
            cr_assert(x != 0 && y != 0 && isfinite(x) && isfinite(y));
            for (uint64_t j = 1; j < n; j++) {
                cr_assert_eq(memcmp((unsigned char *)a + j * esz, a, esz), 0);
                cr_assert_eq(memcmp((unsigned char *)b + j * esz, b, esz), 0);
            }
            int integral = x == (double)(int64_t)x && y == (double)(int64_t)y;
            ints += integral;
            fracs += !integral;
            if (t == DF_I32)
                cr_assert_leq((uint64_t)n * (uint64_t)llabs((long long)(x * y)),
                              (uint64_t)INT32_MAX);
            else if (integral)
                cr_assert(fabs(x) <= 50 && fabs(y) <= 50);
        }
        if (t != DF_I32)
            cr_assert(ints > 100 && fracs > 100, "ints %d, fracs %d", ints, fracs);
        free(a);
        free(b);
    }
}

Test(values, cancel_pairs_leave_only_the_small_terms)
{
    /* integer cases: the exact dot is the small terms' (1 to 5 of at most
     * 3 * 3), while G grows with n */
    df_type types[] = {DF_F32, DF_F64, DF_I32};
    for (int k = 0; k < 3; k++) {
        df_type t = types[k];
        size_t esz = df_type_size(t);
        unsigned char *a = malloc(1000 * esz), *b = malloc(1000 * esz);
        int32_t *ia = malloc(1000 * sizeof *ia), *ib = malloc(1000 * sizeof *ib);
        cr_assert(a && b && ia && ib);
        int int_cases = 0;
        for (uint64_t i = 0; i < 300; i++) {
            uint64_t n = 1 + (i * 13) % 1000;
            fill_family(DF_FAM_CANCEL, t, 16, i, a, b, n);
            int integral = 1;
            for (uint64_t j = 0; j < n; j++) {
                double x = df_elem_as_double(t, a, j), y = df_elem_as_double(t, b, j);
                cr_assert(x != 0 && y != 0 && isfinite(x) && isfinite(y));
                integral &= x == (double)(int32_t)x && y == (double)(int32_t)y;
                if (integral) {
                    ia[j] = (int32_t)x;
                    ib[j] = (int32_t)y;
                }
            }
            if (!integral)
                continue;
            int_cases++;
            int64_t sdot = i32_dot(ia, ib, n);
            cr_assert(sdot >= -45 && sdot <= 45, "%s n %llu: s = %lld", df_type_name(t),
                      (unsigned long long)n, (long long)sdot);
            uint64_t g = i32_abs_dot(ia, ib, n);
            if (t == DF_I32)
                cr_assert_leq(g, (uint64_t)INT32_MAX);
            else
                for (uint64_t j = 0; j < n; j++)
                    cr_assert(abs(ia[j]) <= 50 && abs(ib[j]) <= 50);
        }
        cr_assert_gt(int_cases, t == DF_I32 ? 299 : 100, "%s: %d integer cases",
                     df_type_name(t), int_cases);
        free(a);
        free(b);
        free(ia);
        free(ib);
    }
}

Test(values, i32_families_keep_every_partial_sum_within_int32)
{
    /* |values| <= 46340 (each product fits) and sum |a_i b_i| <= INT32_MAX
     * (no accumulation order overflows): large values in tiny cases, small
     * ones in long cases, at most 50 from n = 858993 on */
    static const uint32_t fams[] = {DF_FAM_SPARSE, DF_FAM_CONSTANT, DF_FAM_CANCEL};
    static const uint64_t ns[] = {1, 2, 3, 10, 1000, 858993, 1000000};
    int32_t *a = malloc(1000000 * sizeof *a), *b = malloc(1000000 * sizeof *b);
    cr_assert(a && b);
    int32_t biggest_tiny = 0;
    for (size_t f = 0; f < 3; f++)
        for (size_t m = 0; m < sizeof ns / sizeof ns[0]; m++)
            for (uint64_t i = 0; i < (ns[m] > 1000 ? 2u : 60u); i++) {
                uint64_t n = ns[m];
                fill_family(fams[f], DF_I32, 17, i, a, b, n);
                int32_t top = 0;
                for (uint64_t j = 0; j < n; j++) {
                    top = abs(a[j]) > top ? abs(a[j]) : top;
                    top = abs(b[j]) > top ? abs(b[j]) : top;
                }
                cr_assert_leq(top, 46340);
                if (fams[f] != DF_FAM_SPARSE && n >= 858993)
                    cr_assert_leq(top, 50, "n %llu: |value| %d", (unsigned long long)n, top);
                if (n <= 3)
                    biggest_tiny = top > biggest_tiny ? top : biggest_tiny;
                cr_assert_leq(i32_abs_dot(a, b, n), (uint64_t)INT32_MAX, "%s n %llu",
                              df_family_by_id(fams[f])->name, (unsigned long long)n);
            }
    cr_assert_gt(biggest_tiny, 10000, "tiny cases use the wide range");
    free(a);
    free(b);
}
