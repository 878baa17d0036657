/* test_f16_acc.c — the oracle with an f16 accumulator, through two host
 * kernels made here: a sequential fused multiply-add in f16 (each step
 * a b + acc rounded once to f16, nearest-even), declared as such (acc
 * f16, h = n): no bug on any family of f16 data; and the same arithmetic
 * declared as an f32 accumulation, the "accumulates in the storage type"
 * flaw: caught as a bug within the first cases. The model's rounding
 * (reference/two_sum.h: df_lowp_add_rn) is checked against MPFR on its
 * own. */
#include <criterion/criterion.h>
#include <math.h>
#include <mpfr.h>
#include <string.h>

#include "tests/host_helpers.h"
#include "fuzz/lowp.h"
#include "reference/two_sum.h"
#include "tests/mpfr_lowp.h"

/* RN_f16(x + y), exactly (reference/two_sum.h). */
static double f16_add_rn(double x, double y) { return df_lowp_add_rn(DF_LOWP_F16, x, y); }

static int f16_fma_model(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    memset(out, 0, sizeof *out);
    double acc = 0.0;
    for (uint64_t i = 0; i < c->n; i++) /* the product is exact in double */
        acc = f16_add_rn(df_elem_as_double(c->type, c->a, i) * df_elem_as_double(c->type, c->b, i),
                         acc);
    out->f = acc;
    return 0;
}

static uint64_t sequential(uint64_t n, const df_launch *l)
{
    (void)l;
    return n ? n : 1;
}

#define F16_SEQ                                                                \
    .elem = DF_F16, .flags = DF_K_DETERMINISTIC, .block_min = 1, .block_max = 1, \
    .block_default = 1, .grid_max = 1, .per_thread = 1, .max_n = 4096,         \
    .tree_height = sequential, .host_model = f16_fma_model

static const df_kernel f16_acc = {
    .name = "t-f16-fma", .origin = "tests", .summary = "f16 FMA chain, declared f16",
    .acc = DF_F16, F16_SEQ};
static const df_kernel f16_as_f32 = {
    .name = "t-f16-fma-as-f32", .origin = "tests",
    .summary = "f16 FMA chain, declared f32 (accumulates in the storage type)",
    .acc = DF_F32, F16_SEQ};

Test(f16_acc, the_model_rounds_as_mpfr)
{
    mpfr_t m;
    mpfr_init2(m, 200);
    df_pcg32 r;
    df_pcg32_seed(&r, 11, 0);
    for (int i = 0; i < 100000; i++) {
        double x = df_lowp_decode(DF_LOWP_F16, df_pcg32_next(&r) & 0x7bffu) *
                   df_lowp_decode(DF_LOWP_F16, df_pcg32_next(&r) & 0xfbffu);
        double y = df_lowp_decode(DF_LOWP_F16, df_pcg32_next(&r) & 0xfbffu);
        mpfr_set_d(m, x, MPFR_RNDN);
        mpfr_add_d(m, m, y, MPFR_RNDN); /* exact at 200 bits */
        double want = df_test_mpfr_round_lowp(DF_LOWP_F16, m); /* to f16 by MPFR */
        if (fabs(want) > 65504)
            continue; /* past f16: the overflow rule, apart */
        cr_assert_eq(f16_add_rn(x, y), want, "%a + %a: %a, MPFR %a", x, y, f16_add_rn(x, y), want);
    }
    mpfr_clear(m);
}

/* Bugs among `cases` cases of k over every f16 family. */

Test(f16_acc, an_f16_chain_declared_f16_is_never_a_bug, .timeout = 120)
{
    uint64_t first;
    unsigned bugs = df_test_bugs_of(&f16_acc, 77, 3000, 4096, &first);
    cr_assert_eq(bugs, 0, "%u bug(s), the first at case %llu", bugs, (unsigned long long)first);
}

Test(f16_acc, an_f16_chain_declared_f32_is_caught, .timeout = 120)
{
    uint64_t first;
    unsigned bugs = df_test_bugs_of(&f16_as_f32, 77, 300, 4096, &first);
    cr_assert_gt(bugs, 0);
    cr_assert_leq(first, 20, "first caught at case %llu", (unsigned long long)first);
}
