/* test_probe.c — `dotfuzz probe` on the host backend against kernels whose
 * arithmetic is known: shfl (products and sums in f32, nearest-even,
 * subnormals kept), shfl-f64 (52 bits), atomic-block (subnormals flushed
 * by its float atomics, as it declares), and two mutants whose flaw the
 * card names: m-rz-acc's additions toward zero, m-bf16-products' products
 * with 7 fraction bits. */
#include <criterion/criterion.h>
#include <string.h>

#include "tests/cli_helpers.h"

static char out[16384];

static const char *row(const char *name)
{
    const char *r = strstr(out, name);
    cr_assert_not_null(r, "no row '%s' in:\n%s", name, out);
    return r + strlen(name);
}

/* The measured column of a row, then the declared one. */
static void expect_row(const char *name, const char *measured, const char *declared)
{
    char m[64], d[64];
    cr_assert_eq(sscanf(row(name), " %63s %63s", m, d), 2, "%s", out);
    cr_assert_str_eq(m, measured, "%s: %s", name, out);
    cr_assert_str_eq(d, declared, "%s: %s", name, out);
}

Test(probe, correct_kernels_agree_with_their_declarations, .timeout = 120)
{
    cr_assert_eq(df_test_sh(out, sizeof out, "./dotfuzz probe --backend host --kernel shfl"), 0,
                 "%s", out);
    expect_row("product fraction bits", "23", "23");
    expect_row("accumulation fraction bits", "23", "23");
    expect_row("accumulation rounding", "nearest-even", "nearest-even");
    expect_row("subnormal results", "kept", "kept");
    cr_assert_not_null(strstr(row("result depends on the launch"), "yes"), "%s", out);
    cr_assert_eq(df_test_sh(out, sizeof out, "./dotfuzz probe --backend host --kernel shfl-f64"),
                 0, "%s", out);
    expect_row("accumulation fraction bits", "52", "52");
    expect_row("product fraction bits", "52", "52");
    cr_assert_eq(
        df_test_sh(out, sizeof out, "./dotfuzz probe --backend host --kernel atomic-block"), 0,
        "%s", out);
    expect_row("subnormal inputs", "flushed", "may");
}

Test(probe, mutants_flaws_show_on_the_card, .timeout = 120)
{
    cr_assert_eq(df_test_sh(out, sizeof out, "./dotfuzz probe --backend host --kernel m-rz-acc"),
                 1, "%s", out);
    expect_row("accumulation rounding", "toward-zero", "nearest-even");
    cr_assert_eq(df_test_sh(out, sizeof out,
                            "./dotfuzz probe --backend host --kernel m-bf16-products --json"),
                 1, "%s", out);
    cr_assert_not_null(strstr(out, "\"measured\":{\"product_bits\":7,"), "%s", out);
    cr_assert_not_null(strstr(out, "\"contradictions\":1}"), "%s", out);
}

Test(probe, refuses_what_it_cannot_probe)
{
    cr_assert_eq(df_test_sh(out, sizeof out, "./dotfuzz probe --backend host"), 2, "%s", out);
    cr_assert_not_null(strstr(out, "--kernel"), "%s", out);
    cr_assert_eq(df_test_sh(out, sizeof out, "./dotfuzz probe --backend host --kernel int-atomic"),
                 2, "%s", out);
    cr_assert_not_null(strstr(out, "integer kernel"), "%s", out);
    cr_assert_eq(df_test_sh(out, sizeof out, "./dotfuzz probe --backend host --kernel nope"), 2,
                 "%s", out);
    cr_assert_eq(df_test_sh(out, sizeof out,
                            "./dotfuzz probe --backend host --kernel cublas-sdot"),
                 2, "%s", out);
}

Test(probe, tensor_core_dots_show_their_fused_shape, .timeout = 120)
{
    cr_assert_eq(df_test_sh(out, sizeof out, "./dotfuzz probe --backend host --kernel mma-f16"),
                 0, "%s", out);
    expect_row("accumulation fraction bits", "23", "23");
    expect_row("accumulation rounding", "toward-zero", "toward-zero");
    expect_row("bits kept below the largest", "25", "25");
    expect_row("elements fused with the first", "16", "16");
    cr_assert_eq(df_test_sh(out, sizeof out,
                            "./dotfuzz probe --backend host --kernel mma-bf16 --json"),
                 0, "%s", out);
    cr_assert_not_null(strstr(out, "\"align_bits\":25,\"align_floor\":0,\"fused_span\":16}"),
                       "%s", out);
}
