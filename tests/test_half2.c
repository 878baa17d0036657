/* test_half2.c — `half2-f16` (kernels/half2_dot.cu: f16 data summed in
 * f16, __hfma2 on half2 pairs, a warp tree of __hadd) and its mutant
 * `m-half2-f32-declared` on the host backend: the model's f16 arithmetic
 * equal to MPFR's, operation by operation and over whole cases in the
 * card's order; half2-f16 never a bug on any f16 family; the mutant, the
 * same arithmetic declared as an f32 sum rounded to f16, caught as a bug
 * within the first cases of every seed. */
#include <criterion/criterion.h>
#include <math.h>
#include <mpfr.h>
#include <string.h>

#include "fuzz/gen/generator.h"
#include "fuzz/lowp.h"
#include "reference/two_sum.h"
#include "tests/host_helpers.h"
#include "tests/mpfr_lowp.h"

#define LANES 32

static const uint32_t lp_families[] = {DF_FAM_LP_RANGE, DF_FAM_LP_SUBNORMAL, DF_FAM_LP_SPECIAL,
                                       DF_FAM_LP_CANCEL};

static int same_bits(double x, double y)
{
    return (isnan(x) && isnan(y)) || (x == y && signbit(x) == signbit(y));
}

/* x y + z rounded once to f16 by MPFR (every value here exact in 256
 * bits). */
static double mpfr_fma16(double x, double y, double z)
{
    mpfr_t m, p, q, r;
    mpfr_inits2(256, m, p, q, r, (mpfr_ptr)0);
    mpfr_set_d(p, x, MPFR_RNDN);
    mpfr_set_d(q, y, MPFR_RNDN);
    mpfr_set_d(r, z, MPFR_RNDN);
    mpfr_fma(m, p, q, r, MPFR_RNDN);
    double out = df_test_mpfr_round_lowp(DF_LOWP_F16, m);
    mpfr_clears(m, p, q, r, (mpfr_ptr)0);
    return out;
}

static double f16_of(uint32_t bits) { return df_lowp_decode(DF_LOWP_F16, bits & 0xffffu); }

/* The model's FMA (df_lowp_add_rn of an exact product) against MPFR's, on
 * every kind of finite f16: subnormals, signed zeros, results past 65504. */
Test(half2, the_fma_rounds_as_mpfr)
{
    df_pcg32 r;
    df_pcg32_seed(&r, 29, 0);
    for (int i = 0; i < 200000; i++) {
        double x = f16_of(df_pcg32_next(&r) & 0xfbffu), y = f16_of(df_pcg32_next(&r) & 0xfbffu);
        double z = f16_of(df_pcg32_next(&r) & 0xfbffu);
        if (i % 4 == 0) /* a subnormal factor: products down to 2^-48 */
            y = f16_of(df_pcg32_next(&r) & 0x83ffu);
        double got = df_lowp_add_rn(DF_LOWP_F16, x * y, z), want = mpfr_fma16(x, y, z);
        cr_assert(same_bits(got, want), "%a * %a + %a: %a, MPFR %a", x, y, z, got, want);
    }
}

/* A double sum whose error TwoSum keeps, on an f16 midpoint: the neighbour
 * on the exact sum's side, the midpoint past 65504 included (65520: 65504
 * below it, Inf above it and at it, ties to even). */
Test(half2, a_sum_on_a_midpoint_rounds_by_its_error)
{
    const double mids[] = {1.0 + 0x1p-11, 65520.0, 0x1p-24 + 0x1p-25, 5 * 0x1p-25, 2047.5,
                           -65520.0};
    mpfr_t m;
    mpfr_init2(m, 256);
    for (size_t i = 0; i < sizeof mids / sizeof mids[0]; i++)
        for (int k = -1; k <= 1; k++) {
            double tiny = k * ldexp(fabs(mids[i]), -70);
            mpfr_set_d(m, mids[i], MPFR_RNDN);
            mpfr_add_d(m, m, tiny, MPFR_RNDN);
            double got = df_lowp_add_rn(DF_LOWP_F16, mids[i], tiny);
            double want = df_test_mpfr_round_lowp(DF_LOWP_F16, m);
            cr_assert(same_bits(got, want), "%a + %a: %a, MPFR %a", mids[i], tiny, got, want);
        }
    cr_assert_eq(df_lowp_add_rn(DF_LOWP_F16, 65520.0, -0x1p-60), 65504.0);
    cr_assert(isinf(df_lowp_add_rn(DF_LOWP_F16, 65520.0, 0x1p-60)));
    cr_assert(isinf(df_lowp_add_rn(DF_LOWP_F16, 65504.0, 16.0)));
    mpfr_clear(m);
}

/* The card's order with MPFR's f16 roundings: lane t's two chains over
 * the pairs t, t + 32, ... (0 past n), their sum, the warp tree. */
static double mpfr_card(const df_case *c)
{
    double part[LANES];
    for (uint64_t t = 0; t < LANES; t++) {
        double acc[2] = {0.0, 0.0};
        for (uint64_t i = 2 * t; i < c->n; i += 2 * LANES)
            for (uint64_t h = 0; h < 2; h++) {
                uint64_t j = i + h;
                double x = j < c->n ? df_elem_as_double(DF_F16, c->a, j) : 0.0;
                double y = j < c->n ? df_elem_as_double(DF_F16, c->b, j) : 0.0;
                acc[h] = mpfr_fma16(x, y, acc[h]);
            }
        part[t] = mpfr_fma16(1.0, acc[0], acc[1]);
    }
    for (uint64_t off = LANES / 2; off > 0; off /= 2)
        for (uint64_t t = 0; t < off; t++)
            part[t] = mpfr_fma16(1.0, part[t], part[t + off]);
    return part[0];
}

/* The host model over whole cases, 25 of each lp family (odd lengths and
 * every special value among them), equal to the card in MPFR bit for bit. */
Test(half2, the_model_is_the_card_in_mpfr, .timeout = 120)
{
    const df_kernel *k = df_test_find("half2-f16");
    df_backend *be = df_test_open_host();
    df_scratch buf = {0};
    unsigned odd = 0;
    for (size_t f = 0; f < 4; f++) {
        df_gen_opts go = {.max_n = 3000, .family = lp_families[f]};
        for (uint64_t i = 0; i < 25; i++) {
            df_case c;
            df_result r;
            cr_assert_eq(df_generate(41, i, k, &go, &buf, &c), 0);
            cr_assert_eq(df_backend_run(be, k, &c, &r, NULL, NULL), 0);
            cr_assert_eq(r.status, DF_RUN_OK, "%s", r.err);
            double want = mpfr_card(&c);
            cr_assert(same_bits(r.f, want), "family %u case %llu n=%llu: model %a, MPFR %a",
                      lp_families[f], (unsigned long long)i, (unsigned long long)c.n, r.f,
                      want);
            odd += c.n & 1;
        }
    }
    cr_assert_gt(odd, 10);
    df_scratch_free(&buf);
    df_backend_close(be);
}

/* Both are registered with the card's declarations, the mutant with its
 * parent's code and model and one thing changed: what it declares. */
Test(half2, both_registered_the_mutant_its_parent_declared_f32)
{
    const df_kernel *k = df_test_find("half2-f16"), *m = df_test_find("m-half2-f32-declared");
    cr_assert_eq(k->elem, DF_F16);
    cr_assert_eq(k->acc, DF_F16);
    cr_assert(k->flags & DF_K_DETERMINISTIC);
    cr_assert_not_null(k->host_model);
    cr_assert_eq(k->tree_height(65536, NULL), 1024 + 6);
    cr_assert_eq(k->tree_height(65, NULL), 2 + 6);
    cr_assert_eq(m->acc, DF_F32);
    cr_assert_eq(m->result, DF_F16);
    cr_assert_eq(m->elem, k->elem);
    cr_assert_eq(m->flags, k->flags);
    cr_assert_eq(m->gpu, k->gpu);
    cr_assert_eq(m->tree_height, k->tree_height);
    int in_kernels = 0, in_mutants = 0;
    for (size_t i = 0; i < df_kernel_count(); i++)
        in_kernels += df_kernel_at(i) == k;
    for (size_t i = 0; i < df_mutant_count(); i++)
        in_mutants += df_mutant_at(i) == m;
    cr_assert_eq(in_kernels + in_mutants, 2);
}

/* half2-f16 is never a bug: 1,000 cases of each lp family and 1,000 of
 * their mix, up to its longest case (lane chains of 1,024 FMAs). */
Test(half2, half2_f16_is_never_a_bug_on_any_family, .timeout = 240)
{
    const df_kernel *k = df_test_find("half2-f16");
    const uint32_t fams[] = {0, DF_FAM_LP_RANGE, DF_FAM_LP_SUBNORMAL, DF_FAM_LP_SPECIAL,
                             DF_FAM_LP_CANCEL};
    for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
        uint64_t first;
        unsigned bugs = df_test_bugs_in(k, 90 + f, fams[f], 1000, 65536, &first);
        cr_assert_eq(bugs, 0, "family %u: %u bug(s), the first at case %llu", fams[f], bugs,
                     (unsigned long long)first);
    }
}

/* The mutant is caught within its first cases: within 10 on the mix of
 * the lp families, seeds 1 to 8 (each at its case 4 or sooner today),
 * and within 100 on each lp family alone (lp-special, whose NaN and Inf
 * cases say nothing of the sum's precision, the slowest: up to case 32). */
Test(half2, the_f32_declared_mutant_is_caught_early, .timeout = 120)
{
    const df_kernel *m = df_test_find("m-half2-f32-declared");
    df_test_caught_early(m, 8, 100, 65536, 10);
    for (size_t f = 0; f < 4; f++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            uint64_t first;
            unsigned bugs = df_test_bugs_in(m, seed, lp_families[f], 100, 65536, &first);
            cr_assert_gt(bugs, 0, "family %u seed %llu", lp_families[f],
                         (unsigned long long)seed);
        }
}
