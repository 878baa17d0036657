/* test_probe_fused.c — the low-precision probe (fuzz/run/probe_fused.c)
 * against a kernel made here whose arithmetic is known and unlike the
 * built-in ones: e4m3 data in one chain of fused groups of 32 that keep
 * 13 bits below their largest term and round their result to 13 fraction
 * bits toward zero (the shape published for fp8 wgmma on Hopper). The
 * card must read those numbers back. */
#include <criterion/criterion.h>

#include "fuzz/run/probe.h"
#include "fuzz/run/sandbox.h"
#include "kernels/kernel.h"

static const df_fused_model fp8_13 = {32, 13, 13, -126, 127, DF_ROUND_ZERO, -6};

static int fp8_13_model(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    double a[64], b[64], acc = 0.0;
    memset(out, 0, sizeof *out);
    for (uint64_t base = 0; base < c->n; base += 32) {
        for (uint64_t i = 0; i < 32; i++) {
            a[i] = base + i < c->n ? df_elem_as_double(c->type, c->a, base + i) : 0.0;
            b[i] = base + i < c->n ? df_elem_as_double(c->type, c->b, base + i) : 0.0;
        }
        acc = df_fused_group(&fp8_13, acc, a, b, 32);
    }
    out->f = acc;
    return 0;
}

static const df_kernel fp8_13_kernel = {
    .name = "t-fp8-13",
    .origin = "tests",
    .summary = "e4m3, one chain of fused groups of 32, 13 bits kept",
    .elem = DF_E4M3,
    .acc = DF_F32,
    .flags = DF_K_DETERMINISTIC,
    .block_min = 32,
    .block_max = 32,
    .block_default = 32,
    .per_thread = 1024,
    .host_model = fp8_13_model,
    .fused = &fp8_13,
    .fused_chains = 1,
};

Test(probe_fused, reads_back_a_known_fused_shape, .timeout = 60)
{
    cr_assert_eq(df_registry_add(&fp8_13_kernel), 0);
    df_sandbox *sb = NULL;
    cr_assert_eq(df_sandbox_open("probe", "host", 0, 10, &sb), DF_OUTCOME_CLEAN);
    df_probe_card card;
    cr_assert_eq(df_probe(sb, &fp8_13_kernel, &card), 0);
    df_sandbox_close(sb);
    cr_assert_eq(card.align_bits, 13);
    cr_assert_eq(card.align_floor, 0);
    cr_assert_eq(card.fused_span, 32);
    cr_assert_eq(card.acc_bits, 13);
    cr_assert_eq(card.acc_round, DF_PROBE_ZERO);
    cr_assert_eq(card.product_bits, 3);
    cr_assert_eq(card.subnormal_inputs, 1);
    cr_assert_eq(card.nan_out, 1);
    cr_assert_eq(card.inf_out, -1, "e4m3 has no infinity");
}
