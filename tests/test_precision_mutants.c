/* test_precision_mutants.c — the precision mutants' host arithmetic and
 * models: df_fadd_rz against the FPU's own round-toward-zero, df_bf16_rn
 * against rounding to 8 significant bits by frexp and rint, df_mul24 on
 * hand-made and random factors; m-rz-acc, m-bf16-products and m-mul24 on
 * hand-made cases beside their parents. CPU only.
 *
 * The reference for rounding toward zero sets the FPU's rounding mode with
 * fesetround: Criterion runs each test in a process of its own, so the
 * mode changes this test's additions alone (the library's models never
 * set it: they run on several threads at once). */
#include <criterion/criterion.h>
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz/backend/backend.h"
#include "kernels/int_atomic_model.h"
#include "kernels/kernel.h"
#include "kernels/mutants/precision_ops.h"
#include "tests/host_helpers.h"

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* xorshift64: the random operands' stream (any fixed stream does) */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* A float from every part of the range: any pattern, subnormals and tiny
 * normals, values near 1, near FLT_MAX (sums that overflow). */
static float any_float(void)
{
    uint32_t u = rnd();
    switch (rnd() % 5) {
    case 0: return from_bits(u & 0x80ffffffu);
    case 1: return from_bits((u & 0x807fffffu) | (uint32_t)(120 + rnd() % 16) << 23);
    case 2: return from_bits((u & 0x807fffffu) | 254u << 23);
    default: return from_bits(u);
    }
}

/* x + y by the FPU rounding toward zero. volatile keeps the addition
 * between the two fesetround calls. */
__attribute__((noinline)) static float fpu_add_rz(float x, float y)
{
    volatile float vx = x, vy = y, r;
    cr_assert_eq(fesetround(FE_TOWARDZERO), 0);
    r = vx + vy;
    cr_assert_eq(fesetround(FE_TONEAREST), 0);
    return r;
}

static void expect_rz(float x, float y, float want)
{
    float got = df_fadd_rz(x, y);
    cr_assert(bits(got) == bits(want) || (isnan(got) && isnan(want)),
              "%a + %a: %a, want %a", x, y, got, want);
}

Test(precision_ops, fadd_rz_hand_cases)
{
    /* 0.75 ulp above 1 truncates to 1 (to nearest: 1 + 2^-23), both signs */
    expect_rz(1.0f, 0x1.8p-24f, 1.0f);
    expect_rz(-1.0f, -0x1.8p-24f, -1.0f);
    cr_assert_eq(1.0f + 0x1.8p-24f, 0x1.000002p0f);
    /* below 1 the ulp halves: 1 - 0.75 * 2^-24 truncates to 1 - 2^-24 */
    expect_rz(1.0f, -0x1.8p-25f, 0x1.fffffep-1f);
    expect_rz(-1.0f, 0x1.8p-25f, -0x1.fffffep-1f);
    /* exact sums stay exact, subnormals included */
    expect_rz(0x1p-149f, 0x1p-149f, 0x1p-148f);
    expect_rz(0x1p-126f, -0x1p-149f, 0x1.fffffcp-127f);
    expect_rz(3.0f, 4.0f, 7.0f);
    /* zeros: +0 but for -0 + -0 */
    expect_rz(1.0f, -1.0f, 0.0f);
    expect_rz(-0.0f, -0.0f, -0.0f);
    expect_rz(-0.0f, 0.0f, 0.0f);
    /* past FLT_MAX: FLT_MAX, never Inf */
    expect_rz(FLT_MAX, FLT_MAX, FLT_MAX);
    expect_rz(-FLT_MAX, -0x1p104f, -FLT_MAX);
    /* Inf and NaN as x + y gives them */
    expect_rz(INFINITY, -FLT_MAX, INFINITY);
    expect_rz(-INFINITY, 1.0f, -INFINITY);
    cr_assert(isnan(df_fadd_rz(INFINITY, -INFINITY)));
    cr_assert(isnan(df_fadd_rz(NAN, 1.0f)));
}

Test(precision_ops, fadd_rz_is_the_fpus_toward_zero)
{
    for (int i = 0; i < 2000000; i++) {
        float x = any_float(), y;
        switch (rnd() % 4) {
        case 0: y = -x * from_bits(0x3f800000u + (rnd() & 0xffu)); break; /* cancels */
        case 1: y = from_bits(bits(x) ^ (rnd() & 0x80ffffffu)); break;    /* same binade */
        default: y = any_float(); break;
        }
        expect_rz(x, y, fpu_add_rz(x, y));
    }
}

/* x rounded to 8 significant bits, ties to even, by frexp and rint (the
 * default rounding, to nearest even): bfloat16 keeps float's exponent
 * range, its subnormals on the grid 2^-133, and rounds past its largest
 * value, (2 - 2^-7) * 2^127, to Inf. */
static float bf16_reference(float x)
{
    int e;
    double m = frexp((double)x, &e); /* x = m * 2^e, 0.5 <= |m| < 1 */
    double r = e - 1 >= -126 ? ldexp(rint(ldexp(m, 8)), e - 8)
                             : ldexp(rint(ldexp((double)x, 133)), -133);
    return fabs(r) > FLT_MAX ? copysignf(INFINITY, (float)r) : (float)r;
}

Test(precision_ops, bf16_rn_hand_cases)
{
    /* 9 bits, at half: to even (down); above half: up */
    cr_assert_eq(df_bf16_rn(257.0f), 256.0f);
    cr_assert_eq(df_bf16_rn(259.0f), 260.0f);
    cr_assert_eq(df_bf16_rn(-259.0f), -260.0f);
    /* 1 + 3 * 2^-8: at half with the kept part odd, up to even */
    cr_assert_eq(df_bf16_rn(0x1.03p0f), 0x1.04p0f);
    /* 8 bits and fewer stay, down to bfloat16's smallest subnormal, 2^-133;
     * below half of it, a float rounds to 0 */
    cr_assert_eq(df_bf16_rn(255.0f), 255.0f);
    cr_assert_eq(df_bf16_rn(0x1.fep127f), 0x1.fep127f);
    cr_assert_eq(df_bf16_rn(0x1p-133f), 0x1p-133f);
    cr_assert_eq(bits(df_bf16_rn(-0x1p-149f)), 0x80000000u);
    /* the largest floats round to Inf; Inf and NaN stay as they are */
    cr_assert_eq(df_bf16_rn(FLT_MAX), INFINITY);
    cr_assert_eq(df_bf16_rn(-INFINITY), -INFINITY);
    cr_assert_eq(bits(df_bf16_rn(from_bits(0x7fc01234u))), 0x7fc01234u);
    /* a subnormal carries into the smallest normal */
    cr_assert_eq(df_bf16_rn(0x1.fffp-127f), 0x1p-126f);
}

Test(precision_ops, bf16_rn_rounds_to_8_bits_to_nearest_even)
{
    for (int i = 0; i < 2000000; i++) {
        float x = any_float();
        if (!isfinite(x))
            continue;
        float got = df_bf16_rn(x), want = bf16_reference(x);
        cr_assert_eq(bits(got), bits(want), "%a: %a, want %a", x, got, want);
    }
}

Test(precision_ops, mul24_multiplies_the_low_24_bits_signed)
{
    /* bits 24..31 ignored, bit 23 the sign */
    cr_assert_eq(df_mul24((1 << 24) + 3, 5), 15u);
    cr_assert_eq((int32_t)df_mul24(1 << 23, 3), -25165824);
    cr_assert_eq((int32_t)df_mul24(-(1 << 23), 3), -25165824);
    cr_assert_eq((int32_t)df_mul24(INT32_MIN, 7), 0);
    cr_assert_eq((int32_t)df_mul24(-1, -1), 1);
    /* inside [-2^23, 2^23): the int32 product's low 32 bits */
    for (int i = 0; i < 1000000; i++) {
        int32_t x = (int32_t)(rnd() & 0xffffffu) - (1 << 23);
        int32_t y = (int32_t)(rnd() & 0xffffffu) - (1 << 23);
        cr_assert_eq(df_mul24(x, y), (uint32_t)x * (uint32_t)y, "%d * %d", x, y);
    }
}

/* ---- the models on hand-made cases ---- */

Test(precision_mutants, rz_acc_truncates_the_tree_and_the_cpu_sum)
{
    const df_kernel *m = df_test_find("m-rz-acc"), *p = df_test_find("tree-hostsum");
    /* n = 2: one block; the tree adds 0.75 ulp to 1 */
    const float a[2] = {1.0f, 0x1.8p-24f}, b[2] = {1.0f, 1.0f};
    cr_assert_eq(df_test_run_host(m, DF_F32, a, b, 2, 32).f, 1.0);
    cr_assert_eq(df_test_run_host(p, DF_F32, a, b, 2, 32).f, (double)0x1.000002p0f);
    const float na[2] = {-1.0f, -0x1.8p-24f};
    cr_assert_eq(df_test_run_host(m, DF_F32, na, b, 2, 32).f, -1.0);
    cr_assert_eq(df_test_run_host(p, DF_F32, na, b, 2, 32).f, (double)-0x1.000002p0f);
    /* n = 257, block 32: 256 elements a block, so a[256] is block 1's
     * partial and the CPU's sum adds it to block 0's 1 */
    float la[257] = {0}, lb[257];
    for (int i = 0; i < 257; i++)
        lb[i] = 1.0f;
    la[0] = 1.0f;
    la[256] = 0x1.8p-24f;
    cr_assert_eq(df_test_run_host(m, DF_F32, la, lb, 257, 32).f, 1.0);
    cr_assert_eq(df_test_run_host(p, DF_F32, la, lb, 257, 32).f, (double)0x1.000002p0f);
    /* a grid-stride chain: 1 + 3 * (0.75 ulp) by thread 0 alone (n = 769,
     * block 32, grid 4: elements 0, 128, 256, ... are thread 0's) */
    float ca[769] = {0}, cb[769];
    for (int i = 0; i < 769; i++)
        cb[i] = 1.0f;
    ca[0] = 1.0f;
    ca[128] = ca[256] = ca[384] = 0x1.8p-24f;
    df_result rz = df_test_run_host(m, DF_F32, ca, cb, 769, 32);
    df_result rn = df_test_run_host(p, DF_F32, ca, cb, 769, 32);
    cr_assert_eq(rz.f, 1.0, "%a", rz.f);
    cr_assert_eq(rn.f, (double)0x1.000006p0f, "%a", rn.f);
}

Test(precision_mutants, bf16_products_round_each_product_to_8_bits)
{
    const df_kernel *m = df_test_find("m-bf16-products"), *p = df_test_find("tree-hostsum");
    /* 19 * 27 = 513 needs 10 bits: 512 */
    const float a[1] = {19.0f}, b[1] = {27.0f};
    cr_assert_eq(df_test_run_host(m, DF_F32, a, b, 1, 32).f, 512.0);
    cr_assert_eq(df_test_run_host(p, DF_F32, a, b, 1, 32).f, 513.0);
    /* each product rounded before the float sum: 257 - 259 as 256 - 260 */
    const float a2[2] = {257.0f, 259.0f}, b2[2] = {1.0f, -1.0f};
    cr_assert_eq(df_test_run_host(m, DF_F32, a2, b2, 2, 32).f, -4.0);
    cr_assert_eq(df_test_run_host(p, DF_F32, a2, b2, 2, 32).f, -2.0);
    /* (1 + 2^-23)^2 rounds to the float 1 + 2^-22 first, then to 1 */
    const float a3[1] = {0x1.000002p0f};
    cr_assert_eq(df_test_run_host(m, DF_F32, a3, a3, 1, 32).f, 1.0);
    cr_assert_eq(df_test_run_host(p, DF_F32, a3, a3, 1, 32).f, (double)0x1.000004p0f);
    /* products of 8 bits or fewer are exact: the parent's result */
    const float a4[4] = {1.5f, -3.0f, 255.0f, 0x1p-100f}, b4[4] = {1.5f, 7.0f, 1.0f, 0x1p-5f};
    cr_assert_eq(df_test_run_host(m, DF_F32, a4, b4, 4, 32).f, df_test_run_host(p, DF_F32, a4, b4, 4, 32).f);
}

Test(precision_mutants, mul24_differs_from_int_atomic_on_large_factors_alone)
{
    const df_kernel *m = df_test_find("m-mul24"), *p = df_test_find("int-atomic");
    const int32_t a[2] = {(1 << 24) + 3, 1 << 23}, b[2] = {5, 3};
    /* 5 * (2^24 + 3) + 3 * 2^23 = 109,051,919; __mul24 sees 3 and -2^23 */
    cr_assert_eq(df_test_run_host(p, DF_I32, a, b, 2, 32).i, 109051919);
    cr_assert_eq(df_test_run_host(m, DF_I32, a, b, 2, 32).i, 15 - 25165824);
    /* the i32 families' factors, |x| <= 46340: the same sum */
    const int32_t sa[4] = {-46340, 46340, 7, 0}, sb[4] = {46340, -1, -9, 123};
    cr_assert_eq(df_test_run_host(p, DF_I32, sa, sb, 4, 32).i, -2147442003);
    cr_assert_eq(df_test_run_host(m, DF_I32, sa, sb, 4, 32).i, -2147442003);
}
