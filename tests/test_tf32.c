/* test_tf32.c — the trait DF_K_TF32_INPUTS, through host kernels made
 * here: f32 data cut to tf32 (10 fraction bits, toward zero, as MMA-Sim's
 * truncate_to_tf32 does), products and a sequential sum in f32. Declared
 * with the trait, no bug over 3,000 cases of every f32 family; declared
 * without it, the cut inputs are caught within the first cases. */
#include <criterion/criterion.h>
#include <string.h>

#include "tests/host_helpers.h"

/* x cut to tf32: its 13 lowest fraction bits cleared. */
static float tf32(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    u &= ~0x1fffu;
    memcpy(&x, &u, sizeof x);
    return x;
}

static int tf32_model(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    memset(out, 0, sizeof *out);
    const float *a = c->a, *b = c->b;
    float acc = 0.0f;
    for (uint64_t i = 0; i < c->n; i++) {
        float p = tf32(a[i]) * tf32(b[i]);
        acc += p;
    }
    out->f = acc;
    return 0;
}

/* h = n + 1: the product's rounding and n - 1 sums on the longest chain */
static uint64_t chain(uint64_t n, const df_launch *l)
{
    (void)l;
    return n + 1;
}

#define TF32_SEQ                                                               \
    .origin = "tests", .elem = DF_F32, .acc = DF_F32, .block_min = 1, .block_max = 1, \
    .block_default = 1, .grid_max = 1, .per_thread = 1, .max_n = 4096,         \
    .tree_height = chain, .host_model = tf32_model

static const df_kernel declared = {.name = "t-tf32", .summary = "tf32 inputs, declared",
                                   .flags = DF_K_DETERMINISTIC | DF_K_TF32_INPUTS, TF32_SEQ};
static const df_kernel undeclared = {.name = "t-tf32-undeclared",
                                     .summary = "tf32 inputs, declared as f32",
                                     .flags = DF_K_DETERMINISTIC, TF32_SEQ};


Test(tf32, declared_tf32_inputs_are_never_a_bug, .timeout = 120)
{
    uint64_t first;
    unsigned bugs = df_test_bugs_of(&declared, 31, 3000, 4096, &first);
    cr_assert_eq(bugs, 0, "%u bug(s), the first at case %llu", bugs, (unsigned long long)first);
}

Test(tf32, undeclared_tf32_inputs_are_caught, .timeout = 120)
{
    uint64_t first;
    unsigned bugs = df_test_bugs_of(&undeclared, 31, 300, 4096, &first);
    cr_assert_gt(bugs, 0);
    cr_assert_leq(first, 20, "first caught at case %llu", (unsigned long long)first);
}
