/* test_shfl_models.c — the host models and descriptors of the shfl kernels
 * (kernels/shfl.cu, kernels/shfl_f64.cu, map in kernels/shfl_common.h) and
 * the cuBLAS peers' descriptors. CPU only.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/pcg32.h"
#include "kernels/kernel.h"

static const df_kernel *kernel(const char *name)
{
    const df_kernel *k = df_kernel_find(name);
    cr_assert_not_null(k, "kernel %s is not registered", name);
    cr_assert_not_null(k->host_model, "%s has no host model", name);
    return k;
}

/* The model's result for a launch, resolved for k as the harness does. */
static double run_model(const df_kernel *k, const void *a, const void *b,
                        uint64_t n, df_launch l, df_launch *resolved)
{
    char why[160] = "";
    cr_assert_eq(df_launch_resolve(k, n, &l, why, sizeof why), 0,
                 "%s rejects n %llu block %u grid %u: %s", k->name,
                 (unsigned long long)n, l.block, l.grid, why);
    df_case c;
    memset(&c, 0, sizeof c);
    c.type = k->elem;
    c.n = n;
    c.a = a;
    c.b = b;
    c.launch = l;
    df_scratch s = {0};
    df_result r;
    memset(&r, 0, sizeof r);
    cr_assert_eq(k->host_model(&c, &s, &r), 0, "%s model: %s", k->name, r.err);
    cr_assert_eq(r.status, DF_RUN_OK);
    df_scratch_free(&s);
    if (resolved)
        *resolved = l;
    return r.f;
}

static void put(df_type t, void *v, uint64_t i, double x)
{
    if (t == DF_F32)
        ((float *)v)[i] = (float)x;
    else
        ((double *)v)[i] = x;
}

static const uint64_t exact_lengths[] = {0,   1,   2,    3,    4,    5,    7,     31,
                                         32,  33,  255,  256,  257,  1000, 4099,  100003};
/* (0,2), (1,3) and (2,1) take the scalar path for floats; (0,1) and (2,1)
 * for doubles, whose vectors hold 2 elements. */
static const uint32_t exact_offsets[][2] = {{0, 0}, {1, 1}, {3, 3}, {0, 2},
                                            {1, 3}, {0, 1}, {2, 1}};
/* grid 0 = derived from n (per_thread); 65535 is far more than needed */
static const uint32_t exact_launches[][2] = {{32, 1},    {64, 3},   {96, 5},
                                             {256, 0},   {1024, 1}, {32, 65535},
                                             {1024, 65535}};

/* Integer data with G <= 2^24 (float) or any G here (double): every
 * partial sum is exact in any order, so the model must return the exact
 * dot for every length, alignment and launch. */
static void check_exact_regime(const char *name)
{
    const df_kernel *k = kernel(name);
    const uint64_t nmax = 100003;
    size_t es = df_type_size(k->elem);
    void *a = malloc(nmax * es), *b = malloc(nmax * es);
    cr_assert(a && b);
    df_pcg32 rng;
    df_pcg32_seed(&rng, 2024, 7);
    for (size_t ni = 0; ni < sizeof exact_lengths / sizeof exact_lengths[0]; ni++) {
        uint64_t n = exact_lengths[ni];
        /* [-50, 50] as in seed 000, narrowed for long float cases so that
         * G <= 2^24 holds and the regime stays exact */
        int64_t lim = 50;
        if (k->acc == DF_F32)
            while (lim > 1 && (uint64_t)(lim * lim) * n > (UINT64_C(1) << 24))
                lim--;
        int64_t exact = 0, G = 0;
        for (uint64_t i = 0; i < n; i++) {
            int64_t x = df_pcg32_range(&rng, -lim, lim);
            int64_t y = df_pcg32_range(&rng, -lim, lim);
            put(k->elem, a, i, (double)x);
            put(k->elem, b, i, (double)y);
            exact += x * y;
            G += llabs(x * y);
        }
        if (k->acc == DF_F32)
            cr_assert_leq(G, INT64_C(1) << 24, "n %llu leaves the exact regime",
                          (unsigned long long)n);
        for (size_t oi = 0; oi < sizeof exact_offsets / sizeof exact_offsets[0]; oi++)
            for (size_t li = 0; li < sizeof exact_launches / sizeof exact_launches[0]; li++) {
                df_launch l = {exact_launches[li][0], exact_launches[li][1],
                               exact_offsets[oi][0], exact_offsets[oi][1]};
                double got = run_model(k, a, b, n, l, NULL);
                cr_assert_eq(got, (double)exact,
                             "%s n %llu offsets (%u,%u) block %u grid %u: %.17g != %lld",
                             name, (unsigned long long)n, l.offset_a, l.offset_b,
                             l.block, l.grid, got, (long long)exact);
            }
    }
    free(a);
    free(b);
}

Test(shfl_models, shfl_exact_on_integer_data_any_length_offset_launch)
{
    check_exact_regime("shfl");
}

Test(shfl_models, shfl_f64acc_exact_on_integer_data_any_length_offset_launch)
{
    check_exact_regime("shfl-f64acc");
}

Test(shfl_models, shfl_f64_exact_on_integer_data_any_length_offset_launch)
{
    check_exact_regime("shfl-f64");
}

/* Ogita-Rump-Oishi Dot2: |dot2 - s| <= u|s| + gamma_n^2 G (u = 2^-53). */
static double dot2(df_type t, const void *a, const void *b, uint64_t n)
{
    double s = 0.0, c = 0.0;
    for (uint64_t i = 0; i < n; i++) {
        double x = df_elem_as_double(t, a, i), y = df_elem_as_double(t, b, i);
        double p = x * y, pe = fma(x, y, -p);
        double sum = s + p, z = sum - s;
        c += ((s - (sum - z)) + (p - z)) + pe;
        s = sum;
    }
    return s + c;
}

static double gamma_k(uint64_t k, double u)
{
    double ku = (double)k * u;
    return ku < 1.0 ? ku / (1.0 - ku) : INFINITY;
}

static double unit_roundoff(df_type acc) { return acc == DF_F32 ? 0x1p-24 : 0x1p-53; }

/* Random non-integer cases, half with every product positive (no
 * cancellation, errors pile up): the model's error never exceeds
 * gamma_h * G for the declared height h (plus the reference's own error). */
static void check_bound_random(const char *name, unsigned cases)
{
    const df_kernel *k = kernel(name);
    const uint64_t nmax = (1u << 15) + 2; /* n <= 2^15 - 1 + 2 */
    size_t es = df_type_size(k->elem);
    void *a = malloc(nmax * es), *b = malloc(nmax * es);
    cr_assert(a && b);
    df_pcg32 rng;
    df_pcg32_seed(&rng, 4242, 1);
    const double u = unit_roundoff(k->acc);
    for (unsigned ci = 0; ci < cases; ci++) {
        uint64_t n = (uint64_t)ldexp(1.0, (int)df_pcg32_bounded(&rng, 16)) - 1 +
                     df_pcg32_bounded(&rng, 3);
        df_launch l = {32 * (1 + df_pcg32_bounded(&rng, 32)), 0,
                       df_pcg32_bounded(&rng, 4), df_pcg32_bounded(&rng, 4)};
        uint32_t g = df_pcg32_bounded(&rng, 4);
        l.grid = g == 0 ? 0 : g == 1 ? 1 + df_pcg32_bounded(&rng, 64)
                          : g == 2 ? 1 + df_pcg32_bounded(&rng, 4096) : 65535;
        int positive = ci % 2;
        double G = 0.0;
        for (uint64_t i = 0; i < n; i++) {
            double x = df_pcg32_double(&rng), y = df_pcg32_double(&rng);
            if (!positive) {
                x = 2.0 * x - 1.0;
                y = 2.0 * y - 1.0;
            }
            put(k->elem, a, i, x);
            put(k->elem, b, i, y);
            G += fabs(df_elem_as_double(k->elem, a, i) * df_elem_as_double(k->elem, b, i));
        }
        df_launch used;
        double got = run_model(k, a, b, n, l, &used);
        double ref = dot2(k->elem, a, b, n);
        uint64_t h = k->tree_height(n, &used);
        double bound = gamma_k(h, u) * G + 0x1p-52 * G;
        cr_assert_leq(fabs(got - ref), bound,
                      "%s case %u: n %llu block %u grid %u offsets (%u,%u) h %llu: "
                      "|%.17g - %.17g| > %.3g",
                      name, ci, (unsigned long long)n, used.block, used.grid,
                      used.offset_a, used.offset_b, (unsigned long long)h, got, ref,
                      bound);
    }
    free(a);
    free(b);
}

Test(shfl_models, shfl_error_within_gamma_h_G_on_1000_random_cases)
{
    check_bound_random("shfl", 1000);
}

Test(shfl_models, shfl_f64acc_error_within_gamma_h_G_on_random_cases)
{
    check_bound_random("shfl-f64acc", 300);
}

Test(shfl_models, shfl_f64_error_within_gamma_h_G_on_random_cases)
{
    check_bound_random("shfl-f64", 300);
}

/* n = 5, block 32, grid 1, offsets 0: no head (a is 16-byte aligned), one
 * float4 (elements 0..3) to thread 0, lanes 0..3, and the tail element 4 to
 * thread 0, lane 0. With a = {2^24, 1, 1, 1, 1}, b = 1:
 *   lane 0 = fmaf(1, 1, fmaf(2^24, 1, 0)) = fl(2^24 + 1) = 2^24 (tie, even)
 *   thread 0 = (lane0 + lane1) + (lane2 + lane3) = fl(2^24 + 1) + 2
 *            = 2^24 + 2 = 16777218
 * and threads 1..31 and the partial sum add only +0. The exact dot is
 * 16777220; summing left to right in float would give 16777216. */
Test(shfl_models, shfl_pinned_n5_block32_grid1_gives_16777218)
{
    const float a[5] = {0x1p24f, 1.0f, 1.0f, 1.0f, 1.0f};
    const float b[5] = {1.0f, 1.0f, 1.0f, 1.0f, 1.0f};
    df_launch l = {32, 1, 0, 0};
    cr_assert_eq(run_model(kernel("shfl"), a, b, 5, l, NULL), 16777218.0);
    cr_assert_eq(kernel("shfl")->tree_height(5, &l), 5); /* 2 fmas + 1 + 2 lanes */
}

/* Worst case for one accumulator: 1 followed by K products of u = half an
 * ulp of 1, all in thread 0's lane 0 (block 32, grid 1: every 32nd
 * vector). Each add ties and rounds back to 1, so the model returns exactly
 * 1 (it adds in index order) while s = 1 + K u: an error of K u, which only
 * a height >= K covers. */
static void check_chain_worst_case(const char *name, int cross_block)
{
    const df_kernel *k = kernel(name);
    const uint64_t K = 1000;
    const uint32_t V = k->elem == DF_F32 ? 4 : 2;
    const double u = unit_roundoff(k->acc);
    /* per thread: element V*32*j is lane 0 of thread 0's j-th vector.
     * cross block: block 32*j's thread 0 takes vector 32*32*j (grid
     * 32K+1 blocks of 32), and the last block's thread 0 adds the
     * partials of blocks 0, 32, 64, ... in that order. */
    uint64_t stride = cross_block ? (uint64_t)V * 32 * 32 : (uint64_t)V * 32;
    uint64_t n = stride * K + V;
    df_launch l = {32, cross_block ? (uint32_t)(32 * K + 1) : 1, 0, 0};
    size_t es = df_type_size(k->elem);
    void *a = calloc(n, es), *b = malloc(n * es);
    cr_assert(a && b);
    for (uint64_t i = 0; i < n; i++)
        put(k->elem, b, i, 1.0);
    put(k->elem, a, 0, 1.0);
    for (uint64_t j = 1; j <= K; j++)
        put(k->elem, a, j * stride, u);
    df_launch used;
    double got = run_model(k, a, b, n, l, &used);
    double s = 1.0 + (double)K * u, G = s;
    uint64_t h = k->tree_height(n, &used);
    cr_assert_eq(got, 1.0, "%s: %.17g", name, got);
    cr_assert_geq(h, K, "%s: height %llu", name, (unsigned long long)h);
    cr_assert_leq(fabs(got - s), gamma_k(h, u) * G);
    free(a);
    free(b);
}

Test(shfl_models, height_covers_per_thread_chain_worst_case)
{
    check_chain_worst_case("shfl", 0);
    check_chain_worst_case("shfl-f64acc", 0);
    check_chain_worst_case("shfl-f64", 0);
}

Test(shfl_models, height_covers_cross_block_chain_worst_case)
{
    check_chain_worst_case("shfl", 1);
    check_chain_worst_case("shfl-f64acc", 1);
    check_chain_worst_case("shfl-f64", 1);
}

/* Heights worked out by hand from kernels/shfl_common.h. */
Test(shfl_models, tree_height_known_values)
{
    const df_kernel *k = kernel("shfl");
    df_launch none = {32, 1, 0, 0};
    cr_assert_eq(k->tree_height(0, &none), 3); /* the +1 and 2 lane levels */
    /* 2^28 floats, 1056 x 256: 2^26 vectors over 270336 threads, at most
     * 249 each: 249 + 1 + 2 lanes + 5 warp + 3 (8 warps); 1056 partials
     * over 256 threads, 5 each: 4 adds + 5 + 3 */
    df_launch persistent = {256, 1056, 0, 0};
    cr_assert_eq(k->tree_height(UINT64_C(1) << 28, &persistent), 272);
    /* scalar path (offsets 0 and 1), 100 floats, 64 x 1: rows 0 and 1 of
     * the grid stride go to lanes 0 and 1, one element each:
     * 1 + 1 + 2 lanes + 5 warp + 1 (2 warps) */
    df_launch scalar = {64, 1, 0, 1};
    cr_assert_eq(k->tree_height(100, &scalar), 10);
    /* 6 doubles at offset 1, 32 x 1: head 1, 2 vectors, tail 1; thread 0
     * takes head, vector 0 and tail: 3 + 1 + 1 lane level + 1 (2 threads) */
    df_launch f64 = {32, 1, 1, 1};
    cr_assert_eq(kernel("shfl-f64")->tree_height(6, &f64), 6);
}

Test(shfl_models, descriptors_take_any_warp_multiple_block_and_grid_to_65535)
{
    static const char *names[] = {"shfl", "shfl-f64acc", "shfl-f64"};
    for (size_t i = 0; i < 3; i++) {
        const df_kernel *k = kernel(names[i]);
        cr_assert(k->flags & DF_K_DETERMINISTIC);
        cr_assert(k->flags & DF_K_ANY_ALIGNMENT);
        cr_assert(k->flags & DF_K_GRID_FREE);
        df_launch ok = {96, 65535, 3, 1}, odd = {100, 1, 0, 0};
        df_launch big = {2048, 1, 0, 0}, wide = {32, 65536, 0, 0};
        cr_assert_eq(df_launch_resolve(k, 1000, &ok, NULL, 0), 0, "%s", names[i]);
        cr_assert_neq(df_launch_resolve(k, 1000, &odd, NULL, 0), 0, "%s", names[i]);
        cr_assert_neq(df_launch_resolve(k, 1000, &big, NULL, 0), 0, "%s", names[i]);
        cr_assert_neq(df_launch_resolve(k, 1000, &wide, NULL, 0), 0, "%s", names[i]);
        df_launch dflt = {0, 0, 0, 0};
        cr_assert_eq(df_launch_resolve(k, UINT64_C(1) << 28, &dflt, NULL, 0), 0);
        cr_assert_eq(dflt.block, 1024);
        cr_assert_eq(dflt.grid, 1024); /* 2^28 / (1024 x 256) */
    }
}

Test(shfl_models, model_rejects_unresolved_launch)
{
    const df_kernel *k = kernel("shfl");
    float x[4] = {1, 2, 3, 4};
    df_case c;
    memset(&c, 0, sizeof c);
    c.type = DF_F32;
    c.n = 4;
    c.a = c.b = x;
    c.launch.block = 48; /* not a multiple of 32 */
    c.launch.grid = 1;
    df_scratch s = {0};
    df_result r;
    memset(&r, 0, sizeof r);
    cr_assert_neq(k->host_model(&c, &s, &r), 0);
    cr_assert_eq(r.status, DF_RUN_ERROR);
    cr_assert_neq(r.err[0], '\0');
}

Test(shfl_models, cublas_peers_have_no_model_and_any_order_height)
{
    static const char *names[] = {"cublas-sdot", "cublas-ddot"};
    for (size_t i = 0; i < 2; i++) {
        const df_kernel *k = df_kernel_find(names[i]);
        cr_assert_not_null(k, "%s", names[i]);
        cr_assert_null(k->host_model);
        cr_assert_not(k->flags & DF_K_DETERMINISTIC);
        df_launch l = {0, 0, 1, 2};
        cr_assert_eq(df_launch_resolve(k, 12345, &l, NULL, 0), 0);
        cr_assert_eq(l.block, 1);
        cr_assert_eq(l.grid, 1);
        cr_assert_eq(k->tree_height(0, &l), 1);
        cr_assert_eq(k->tree_height(1, &l), 1);
        cr_assert_eq(k->tree_height(12345, &l), 12345);
    }
    cr_assert_eq(df_kernel_find("cublas-sdot")->elem, DF_F32);
    cr_assert_eq(df_kernel_find("cublas-ddot")->elem, DF_F64);
}
