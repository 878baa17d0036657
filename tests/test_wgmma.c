/* test_wgmma.c — the wgmma E4M3 dots' host models and declarations
 * (kernels/wgmma_dot.cu, kernels/fused_model.h): the plain one is a single
 * chain of df_fused_group steps of 32 (13 bits kept, e8m13 toward zero);
 * the promoted one adds a fresh chain into a float every 128 products; each
 * is never a bug under its own declaration over every E4M3 family, and the
 * plain chain declared as fp32 accumulation (m-wgmma-fp32) is caught in
 * its first cases for every seed tried. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "tests/host_helpers.h"
#include "fuzz/lowp.h"
#include "kernels/fp8_models.h"

/* n random finite E4M3 values (all 8-bit codes but the two NaNs). */
static void random_e4m3(df_pcg32 *r, unsigned char *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned x;
        do
            x = df_pcg32_next(r) & 0xffu;
        while ((x & 0x7fu) == 0x7fu);
        v[i] = (unsigned char)x;
    }
}

/* The chain of steps of 32 from j0 to j1 (exclusive), from 0, written
 * out with df_fused_group on the decoded values. */
static double chain_by_hand(const unsigned char *a, const unsigned char *b, size_t j0, size_t j1)
{
    double acc = 0.0, x[32], y[32];
    for (size_t base = j0; base < j1; base += 32) {
        for (size_t i = 0; i < 32; i++) {
            size_t j = base + i;
            x[i] = j < j1 ? df_lowp_decode(DF_LOWP_E4M3, a[j]) : 0.0;
            y[i] = j < j1 ? df_lowp_decode(DF_LOWP_E4M3, b[j]) : 0.0;
        }
        acc = df_fused_group(&df_wgmma_e4m3_chain, acc, x, y, 32);
    }
    return acc;
}

Test(wgmma, the_plain_model_is_one_chain_of_steps_of_32)
{
    const df_kernel *k = df_test_find("wgmma-e4m3");
    df_pcg32 r;
    df_pcg32_seed(&r, 5, 0);
    static unsigned char a[5000], b[5000];
    const size_t ns[] = {0, 1, 31, 32, 33, 255, 256, 257, 1000, 4096, 5000};
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        random_e4m3(&r, a, ns[t]);
        random_e4m3(&r, b, ns[t]);
        df_result res = df_test_run_host(k, DF_E4M3, a, b, ns[t], 128);
        double want = chain_by_hand(a, b, 0, ns[t]);
        cr_assert(res.f == want && signbit(res.f) == signbit(want), "n = %zu: %a, by hand %a",
                  ns[t], res.f, want);
    }
}

Test(wgmma, the_promoted_model_adds_a_fresh_chain_every_128_in_float)
{
    const df_kernel *k = df_test_find("wgmma-e4m3-promoted");
    df_pcg32 r;
    df_pcg32_seed(&r, 6, 0);
    static unsigned char a[5000], b[5000];
    const size_t ns[] = {0, 1, 127, 128, 129, 1000, 4096, 5000};
    int differs = 0;
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        size_t n = ns[t];
        random_e4m3(&r, a, n);
        random_e4m3(&r, b, n);
        df_result res = df_test_run_host(k, DF_E4M3, a, b, n, 128);
        float want = 0.0f;
        for (size_t j = 0; j < n; j += 128)
            want += (float)chain_by_hand(a, b, j, j + 128 < n ? j + 128 : n);
        cr_assert(res.f == (double)want, "n = %zu: %a, by hand %a", n, res.f, (double)want);
        differs |= res.f != chain_by_hand(a, b, 0, n);
    }
    cr_assert(differs, "promotion never changed a result: the test cannot tell the two apart");
}

Test(wgmma, each_declared_with_what_it_does_is_never_a_bug, .timeout = 180)
{
    const char *names[] = {"wgmma-e4m3", "wgmma-e4m3-promoted"};
    df_test_never_a_bug(names, 2, 91, 1500, 8192);
}

Test(wgmma, the_chain_declared_fp32_is_caught_within_its_first_cases, .timeout = 120)
{
    df_test_caught_early(df_test_find("m-wgmma-fp32"), 8, 200, 8192, 50);
}
