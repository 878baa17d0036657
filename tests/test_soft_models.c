/* test_soft_models.c — the soft-error notes of the float kernels' host
 * models (kernels/soft_error.h): shfl (thread sums and tree additions),
 * fold and tournament (round additions) and atomic-block (block sums),
 * each with the block, thread and index its GPU half reports. CPU only.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "kernels/kernel.h"
#include "kernels/shfl_common.h"

/* Runs k's host model on float data under a launch (grid 0 = derived). */
static df_result run(const char *name, const float *a, const float *b, uint64_t n,
                     uint32_t block, uint32_t grid)
{
    const df_kernel *k = df_kernel_find(name);
    cr_assert_not_null(k, "kernel %s is not registered", name);
    cr_assert_not_null(k->host_model);
    df_case c;
    memset(&c, 0, sizeof c);
    c.type = DF_F32;
    c.n = n;
    c.a = a;
    c.b = b;
    c.launch.block = block;
    c.launch.grid = grid;
    char why[160] = "";
    cr_assert_eq(df_launch_resolve(k, n, &c.launch, why, sizeof why), 0, "%s", why);
    df_scratch s = {0};
    df_result r;
    memset(&r, 0, sizeof r);
    cr_assert_eq(k->host_model(&c, &s, &r), 0, "%s: %s", name, r.err);
    df_scratch_free(&s);
    return r;
}

static void fill(float *v, uint64_t n, float x)
{
    for (uint64_t i = 0; i < n; i++)
        v[i] = x;
}

/* The one report of kind NONFINITE, with its place. */
static void expect_nonfinite(const df_result *r, uint32_t kernel, uint32_t block,
                             uint32_t thread, uint32_t round, uint64_t index)
{
    cr_assert_eq(r->soft_mask, 1u << (DF_SOFT_NONFINITE - 1), "mask %#x", r->soft_mask);
    const df_soft_report *p = &r->soft[DF_SOFT_NONFINITE - 1];
    cr_assert_eq(p->code, DF_SOFT_NONFINITE);
    cr_assert_eq(p->kernel, kernel);
    cr_assert_eq(p->block, block, "block %u", p->block);
    cr_assert_eq(p->thread, thread, "thread %u", p->thread);
    cr_assert_eq(p->round, round, "round %u", p->round);
    cr_assert_eq(p->index, index, "index %llu", (unsigned long long)p->index);
    cr_assert(isinf(p->fvalue) && p->fvalue > 0, "fvalue %g", p->fvalue);
    cr_assert(p->line > 0);
}

/* Element 517 of 1000, aligned (vector path), T = 3 x 64: vector 129 goes
 * to thread 129 = block 2 thread 1, whose first element is 4 x 129. Its
 * fmaf overflows from finite inputs; the trees then add Inf to finite
 * values, which is no new report. */
static df_result shfl_thread_overflow(void)
{
    static float a[1000], b[1000];
    fill(a, 1000, 1.0f);
    fill(b, 1000, 0.5f);
    a[517] = 1e20f;
    b[517] = 1e20f;
    return run("shfl", a, b, 1000, 64, 3);
}

Test(soft_models, shfl_thread_sum_overflow_from_finite_inputs)
{
    df_result r = shfl_thread_overflow();
    cr_assert(isinf(r.f) && r.f > 0);
    expect_nonfinite(&r, DF_SOFT_K_SHFL, 2, 1, 0, 516);
}

/* A non-finite input is no soft error: the same case with a[517] = Inf. */
Test(soft_models, shfl_nonfinite_input_is_not_reported)
{
    static float a[1000], b[1000];
    fill(a, 1000, 1.0f);
    fill(b, 1000, 0.5f);
    a[517] = INFINITY;
    df_result r = run("shfl", a, b, 1000, 64, 3);
    cr_assert(isinf(r.f));
    cr_assert_eq(r.soft_mask, 0u);
}

/* Threads 0 and 1 each hold 1.8e19^2 = 3.24e38 (finite); the warp tree's
 * last level (offset 1) adds them in lane 0: Inf from two finite values. */
Test(soft_models, shfl_warp_tree_overflow_from_finite_sums)
{
    float a[8] = {1.8e19f, 0, 0, 0, 1.8e19f, 0, 0, 0};
    float b[8] = {1.8e19f, 0, 0, 0, 1.8e19f, 0, 0, 0};
    df_result r = run("shfl", a, b, 8, 32, 1);
    cr_assert(isinf(r.f));
    expect_nonfinite(&r, DF_SOFT_K_SHFL, 0, 0, 0, 0);
}

/* Blocks 0 and 1 (block 32, grid 2) each sum to 3.24e38; the last block's
 * tree adds partials 0 and 1 in lane 0: its block is whichever finished
 * last on the GPU, DF_SHFL_LAST_BLOCK in the model. */
Test(soft_models, shfl_last_block_overflow_from_finite_partials)
{
    static float a[256], b[256];
    fill(a, 256, 0.0f);
    fill(b, 256, 0.0f);
    a[0] = b[0] = 1.8e19f;     /* vector 0: thread 0, block 0 */
    a[128] = b[128] = 1.8e19f; /* vector 32: thread 32, block 1 */
    df_result r = run("shfl", a, b, 256, 32, 2);
    cr_assert(isinf(r.f));
    expect_nonfinite(&r, DF_SOFT_K_SHFL, DF_SHFL_LAST_BLOCK, 0, 0, 0);
}

/* Finite data whose sums stay finite: nothing noted, any kernel. */
Test(soft_models, finite_sums_note_nothing)
{
    static float a[5000], b[5000];
    fill(a, 5000, 1.5f);
    fill(b, 5000, -2.0f);
    const char *names[] = {"shfl", "shfl-f64acc", "fold", "tournament", "atomic-block"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        df_result r = run(names[i], a, b, 5000, 64, 0);
        cr_assert_eq(r.soft_mask, 0u, "%s noted %#x", names[i], r.soft_mask);
        cr_assert_eq(r.f, -15000.0, "%s: %g", names[i], r.f);
    }
}

/* fold, n = 16, block 4: round 1 adds cell 13 into cell 5 (upper 8), two
 * finite 2e38 products: thread 5 = block 1 thread 1. */
Test(soft_models, fold_round_overflow_from_finite_cells)
{
    float a[16], b[16];
    fill(a, 16, 1.0f);
    fill(b, 16, 1.0f);
    a[5] = a[13] = 2e38f;
    df_result r = run("fold", a, b, 16, 4, 0);
    cr_assert(isinf(r.f));
    expect_nonfinite(&r, DF_SOFT_K_FOLD, 1, 1, 1, 5);
}

/* fold, later round: n = 4, block 1; round 1 leaves 2e38 + 1 in cells 0
 * and 1, round 2 adds them: thread 0, index 0, round 2. */
Test(soft_models, fold_second_round_overflow)
{
    float a[4] = {2e38f, 2e38f, 1.0f, 1.0f}, b[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    df_result r = run("fold", a, b, 4, 1, 0);
    cr_assert(isinf(r.f));
    expect_nonfinite(&r, DF_SOFT_K_FOLD, 0, 0, 2, 0);
}

/* tournament, n = 16, block 2: round 1 (D = 1) plays winner 10 against 11
 * in thread 5 = block 2 thread 1. */
Test(soft_models, tournament_round_overflow_from_finite_cells)
{
    float a[16], b[16];
    fill(a, 16, 1.0f);
    fill(b, 16, 1.0f);
    a[10] = a[11] = 2e38f;
    df_result r = run("tournament", a, b, 16, 2, 0);
    cr_assert(isinf(r.f));
    expect_nonfinite(&r, DF_SOFT_K_TOURNAMENT, 2, 1, 1, 10);
}

/* tournament, n = 16, block 2: cells 0 and 8 meet in round 4 (D = 8),
 * thread 0; the earlier rounds add ones to them. */
Test(soft_models, tournament_last_round_overflow)
{
    float a[16], b[16];
    fill(a, 16, 1.0f);
    fill(b, 16, 1.0f);
    a[0] = a[8] = 2e38f;
    df_result r = run("tournament", a, b, 16, 2, 0);
    cr_assert(isinf(r.f));
    expect_nonfinite(&r, DF_SOFT_K_TOURNAMENT, 0, 0, 4, 0);
}

/* The mutants share the round models: m-fold-bounds notes like fold when
 * its bounds do not drop the cells (n a power of two). */
Test(soft_models, fold_bounds_mutant_notes_like_its_parent)
{
    float a[16], b[16];
    fill(a, 16, 1.0f);
    fill(b, 16, 1.0f);
    a[5] = a[13] = 2e38f;
    df_result r = run("m-fold-bounds", a, b, 16, 4, 0);
    expect_nonfinite(&r, DF_SOFT_K_FOLD, 1, 1, 1, 5);
}

/* atomic-block, n = 100, block 32: products 40 and 41 (2e38 each) sum to
 * Inf in block 1's thread 0; the index is the block's first element. */
Test(soft_models, atomic_block_sum_overflow_from_finite_products)
{
    float a[100], b[100];
    fill(a, 100, 1.0f);
    fill(b, 100, 1.0f);
    a[40] = a[41] = 2e38f;
    df_result r = run("atomic-block", a, b, 100, 32, 0);
    cr_assert(isinf(r.f));
    expect_nonfinite(&r, DF_SOFT_K_ATOMIC_BLOCK, 1, 0, 0, 32);
}

/* atomic-block: a product that overflows is not finite, so the block sum
 * it makes Inf is no soft error of the sum. */
Test(soft_models, atomic_block_overflowing_product_is_not_reported)
{
    float a[100], b[100];
    fill(a, 100, 1.0f);
    fill(b, 100, 1.0f);
    a[40] = b[40] = 1e20f;
    df_result r = run("atomic-block", a, b, 100, 32, 0);
    cr_assert(isinf(r.f));
    cr_assert_eq(r.soft_mask, 0u);
}

/* A report carries the line of the model's df_soft_note call, and saved
 * findings keep it (kernels/shfl_model.h says so beside the call): so the
 * call must not move. Pinned here, as the corpora have it. */
Test(soft_models, shfl_note_line_is_the_corpora_s)
{
    df_result r = shfl_thread_overflow();
    cr_assert_eq(r.soft[DF_SOFT_NONFINITE - 1].line, 52u, "line %u",
                 r.soft[DF_SOFT_NONFINITE - 1].line);
}
