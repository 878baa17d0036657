/* test_models.c — the host models of the seed kernels (atomic-block,
 * int-atomic, fold, tournament, tree-hostsum): exact on small integers for
 * every length and launch shape that matters, and pinned on hand-derived
 * cases where their addition trees (and atomic-block's flush to zero, and
 * int-atomic's wrapping) make a visible difference. CPU only. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel.h"

#define COUNT(x) (sizeof(x) / sizeof((x)[0]))

/* splitmix64: a private, fixed data stream for these tests */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static int32_t int_in_50(uint64_t *s) { return (int32_t)(next_u64(s) % 101) - 50; }

static const df_kernel *kernel(const char *name)
{
    const df_kernel *k = df_kernel_find(name);
    cr_assert_not_null(k, "kernel %s is not registered", name);
    cr_assert_not_null(k->host_model, "%s has no host model", name);
    return k;
}

/* Resolves the launch as the harness does, then runs the model. */
static df_result run_model(const df_kernel *k, df_type t, const void *a,
                           const void *b, uint64_t n, uint32_t block,
                           uint32_t grid)
{
    df_case c;
    memset(&c, 0, sizeof c);
    c.type = t;
    c.n = n;
    c.a = a;
    c.b = b;
    c.launch.block = block;
    c.launch.grid = grid;
    char why[160];
    cr_assert_eq(df_launch_resolve(k, n, &c.launch, why, sizeof why), 0,
                 "%s: %s", k->name, why);
    df_scratch s = {0};
    df_result r;
    int rc = k->host_model(&c, &s, &r);
    df_scratch_free(&s);
    cr_assert_eq(rc, 0, "%s model failed: %s", k->name, r.err);
    cr_assert_eq(r.status, DF_RUN_OK, "%s model: %s", k->name, r.err);
    return r;
}

/* Integers in [-50, 50] with n <= 6710 keep every product and partial sum
 * exact in float (G <= 2^24), so any correct order gives the exact dot. */
enum { EXACT_MAX_N = 6710 };

static float fa[EXACT_MAX_N], fb[EXACT_MAX_N];
static int32_t ia[EXACT_MAX_N], ib[EXACT_MAX_N];

static int64_t fill_exact(uint64_t seed, uint64_t n)
{
    int64_t dot = 0;
    for (uint64_t i = 0; i < n; i++) {
        ia[i] = int_in_50(&seed);
        ib[i] = int_in_50(&seed);
        fa[i] = (float)ia[i];
        fb[i] = (float)ib[i];
        dot += (int64_t)ia[i] * ib[i];
    }
    return dot;
}

/* n = 0, 1, the warp edges, the block edges, the seed's 2000 and odd
 * lengths; blocks as given. grid 0 = derived (or the kernel's default). */
static void check_exact(const char *name, const uint32_t *blocks,
                        size_t nblocks, const uint32_t *grids, size_t ngrids)
{
    const df_kernel *k = kernel(name);
    for (size_t bi = 0; bi < nblocks; bi++) {
        uint32_t blk = blocks[bi];
        for (size_t gi = 0; gi < ngrids; gi++) {
            uint64_t span = (uint64_t)blk * (grids[gi] ? grids[gi] : 1);
            uint64_t lengths[] = {0,        1,        2,        31,       32,
                                  33,       blk - 1,  blk,      blk + 1,  2 * blk + 1,
                                  span - 1, span,     span + 1, 1000,     2000,
                                  4097,     5555,     EXACT_MAX_N};
            for (size_t li = 0; li < COUNT(lengths); li++) {
                uint64_t n = lengths[li];
                if (n > EXACT_MAX_N)
                    continue;
                int64_t dot = fill_exact(n * 1000003u + blk, n);
                df_result r = k->elem == DF_I32
                                  ? run_model(k, DF_I32, ia, ib, n, blk, grids[gi])
                                  : run_model(k, DF_F32, fa, fb, n, blk, grids[gi]);
                if (k->elem == DF_I32)
                    cr_assert_eq(r.i, dot, "%s n=%llu block=%u: %lld != %lld",
                                 name, (unsigned long long)n, blk,
                                 (long long)r.i, (long long)dot);
                else
                    cr_assert_eq(r.f, (double)dot,
                                 "%s n=%llu block=%u grid=%u: %.17g != %lld",
                                 name, (unsigned long long)n, blk, grids[gi],
                                 r.f, (long long)dot);
            }
        }
    }
}

static const uint32_t any_blocks[] = {1, 2, 7, 32, 100, 255, 256, 1000, 1024};
static const uint32_t derived_grid[] = {0};

Test(atomic_block, exact_on_small_integers_any_block)
{
    check_exact("atomic-block", any_blocks, COUNT(any_blocks), derived_grid, 1);
}

Test(int_atomic, exact_on_small_integers_any_block)
{
    check_exact("int-atomic", any_blocks, COUNT(any_blocks), derived_grid, 1);
}

Test(fold, exact_on_small_integers_any_block)
{
    check_exact("fold", any_blocks, COUNT(any_blocks), derived_grid, 1);
}

Test(tournament, exact_on_small_integers_any_block)
{
    check_exact("tournament", any_blocks, COUNT(any_blocks), derived_grid, 1);
}

Test(tree_hostsum, exact_on_small_integers_pow2_blocks_any_grid)
{
    static const uint32_t blocks[] = {32, 64, 256, 1024};
    static const uint32_t grids[] = {0, 1, 2, 3, 7, 65535};
    check_exact("tree-hostsum", blocks, COUNT(blocks), grids, COUNT(grids));
}

/* int-atomic at a length the float kernels cannot take exactly: up to its
 * max_n, where [-50, 50] data still cannot overflow int32. */
Test(int_atomic, exact_up_to_max_n)
{
    const df_kernel *k = kernel("int-atomic");
    uint64_t n = k->max_n;
    int32_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    cr_assert(a && b);
    uint64_t seed = 7;
    int64_t dot = 0;
    for (uint64_t i = 0; i < n; i++) {
        a[i] = int_in_50(&seed);
        b[i] = int_in_50(&seed);
        dot += (int64_t)a[i] * b[i];
    }
    df_result r = run_model(k, DF_I32, a, b, n, 1000, 0);
    cr_assert_eq(r.i, dot);
    free(a);
    free(b);
}

/* n = 3, products 1, 2^-24, -1. fold: (p0 + p2) + p1 = 2^-24; tournament:
 * (p0 + p1) + p2, where 1 + 2^-24 ties back to 1, so 0. */
Test(fold, differs_from_tournament_on_a_rounding_tie)
{
    const float a[] = {1.0f, 0x1p-24f, -1.0f}, b[] = {1.0f, 1.0f, 1.0f};
    df_result f = run_model(kernel("fold"), DF_F32, a, b, 3, 0, 0);
    df_result t = run_model(kernel("tournament"), DF_F32, a, b, 3, 0, 0);
    cr_assert_eq(f.f, 0x1p-24);
    cr_assert_eq(t.f, 0.0);
}

/* n = 5: fold pairs (0,3), (1,4), then (0,2), then (0,1):
 * ((p0 + p3) + p2) + (p1 + p4). With p = {1, 2^-24, 0, -1, 2^-24} the big
 * terms cancel first and the two small ones survive: 2^-23. */
Test(fold, folds_upper_half_onto_lower_for_odd_n)
{
    const float a[] = {1.0f, 0x1p-24f, 0.0f, -1.0f, 0x1p-24f};
    const float b[] = {1.0f, 1.0f, 1.0f, 1.0f, 1.0f};
    cr_assert_eq(run_model(kernel("fold"), DF_F32, a, b, 5, 4, 0).f, 0x1p-23);
    /* tournament: ((p0 + p1) + (p2 + p3)) + p4 = (1 - 1) + 2^-24 */
    cr_assert_eq(run_model(kernel("tournament"), DF_F32, a, b, 5, 4, 0).f,
                 0x1p-24);
}

/* n = 4, block 32, grid 1: threads 0..3 hold p0..p3 and the tree adds
 * ((p0 + p2) + (p1 + p3)). p = {1, -1, 2^-24, 0}: 1 + 2^-24 ties to 1,
 * so the result is 0, where the serial sum gives 2^-24. */
Test(tree_hostsum, block_tree_pairs_cells_half_a_block_apart)
{
    const float a[] = {1.0f, -1.0f, 0x1p-24f, 0.0f};
    const float b[] = {1.0f, 1.0f, 1.0f, 1.0f};
    const df_kernel *k = kernel("tree-hostsum");
    cr_assert_eq(run_model(k, DF_F32, a, b, 4, 32, 1).f, 0.0);
    cr_assert_eq(run_model(kernel("atomic-block"), DF_F32, a, b, 4, 4, 0).f,
                 0x1p-24);
}

/* n = 33, block 32, p0 = 1, p1 = -1, p32 = 2^-24, the rest 0.
 * grid 1: thread 0 strides onto p32 and 1 + 2^-24 rounds to 1: result 0.
 * grid 2: p32 is block 1's partial, added on the host after block 0's 0:
 * result 2^-24. */
Test(tree_hostsum, grid_decides_who_adds_the_stride_tail)
{
    float a[33] = {0}, b[33];
    for (int i = 0; i < 33; i++)
        b[i] = 1.0f;
    a[0] = 1.0f;
    a[1] = -1.0f;
    a[32] = 0x1p-24f;
    const df_kernel *k = kernel("tree-hostsum");
    cr_assert_eq(run_model(k, DF_F32, a, b, 33, 32, 1).f, 0.0);
    cr_assert_eq(run_model(k, DF_F32, a, b, 33, 32, 2).f, 0x1p-24);
    /* block 64, grid 1: p32 sits in thread 32 and meets p0 at the first
     * tree level: (1 + 2^-24) + ... = 0 again */
    cr_assert_eq(run_model(k, DF_F32, a, b, 33, 64, 1).f, 0.0);
}

/* One product 2^-140 is subnormal: the block sum keeps it, the global
 * float atomicAdd flushes it, so the result is +0. */
Test(atomic_block, flushes_a_subnormal_block_sum_to_zero)
{
    const float a[] = {0x1p-70f}, b[] = {0x1p-70f};
    df_result r = run_model(kernel("atomic-block"), DF_F32, a, b, 1, 0, 0);
    cr_assert_eq(r.f, 0.0);
    cr_assert(!signbit(r.f));
    /* fold does no atomics and keeps it */
    cr_assert_eq(run_model(kernel("fold"), DF_F32, a, b, 1, 0, 0).f, 0x1p-140);
}

/* block 1, two blocks with normal sums 1.5 * 2^-126 and -2^-126: the atomic
 * add's result 2^-127 is subnormal and is flushed to +0. */
Test(atomic_block, flushes_a_subnormal_atomic_result_to_zero)
{
    const float a[] = {0x1.8p-63f, -0x1p-63f}, b[] = {0x1p-63f, 0x1p-63f};
    df_result r = run_model(kernel("atomic-block"), DF_F32, a, b, 2, 1, 0);
    cr_assert_eq(r.f, 0.0);
    cr_assert_eq(run_model(kernel("tournament"), DF_F32, a, b, 2, 1, 0).f,
                 0x1p-127);
}

/* 50000^2 = 2.5e9 wraps to -1794967296; twice: 5e9 mod 2^32 = 705032704.
 * 46341^2 = 2147488281 wraps to -2147479015 and comes back sign-extended. */
Test(int_atomic, wraps_like_int32_hardware)
{
    const int32_t a[] = {50000, 50000}, b[] = {50000, 50000};
    const df_kernel *k = kernel("int-atomic");
    cr_assert_eq(run_model(k, DF_I32, a, b, 2, 1, 0).i, 705032704);
    cr_assert_eq(run_model(k, DF_I32, a, b, 2, 2, 0).i, 705032704);
    const int32_t c[] = {46341}, d[] = {46341};
    cr_assert_eq(run_model(k, DF_I32, c, d, 1, 0, 0).i, -2147479015);
    cr_assert_eq(k->max_n, 858993);
}

Test(models, reject_a_case_of_the_wrong_type)
{
    const int32_t a[] = {1}, b[] = {1};
    df_case c;
    memset(&c, 0, sizeof c);
    c.type = DF_I32;
    c.n = 1;
    c.a = a;
    c.b = b;
    df_scratch s = {0};
    df_result r;
    cr_assert_eq(kernel("fold")->host_model(&c, &s, &r), -1);
    cr_assert_eq(r.status, DF_RUN_ERROR);
    cr_assert(strstr(r.err, "f32") != NULL, "%s", r.err);
    df_scratch_free(&s);
}

Test(models, reject_a_launch_the_kernel_cannot_take)
{
    const float a[] = {1}, b[] = {1};
    df_case c;
    memset(&c, 0, sizeof c);
    c.type = DF_F32;
    c.n = 1;
    c.a = a;
    c.b = b;
    c.launch.block = 48; /* not a power of two */
    df_scratch s = {0};
    df_result r;
    cr_assert_eq(kernel("tree-hostsum")->host_model(&c, &s, &r), -1);
    cr_assert_eq(r.status, DF_RUN_ERROR);
    cr_assert(strstr(r.err, "power-of-two") != NULL, "%s", r.err);
    df_scratch_free(&s);
}

static uint64_t height(const char *name, uint64_t n, uint32_t block,
                       uint32_t grid)
{
    const df_kernel *k = kernel(name);
    df_launch l = {.block = block, .grid = grid};
    cr_assert_eq(df_launch_resolve(k, n, &l, NULL, 0), 0);
    return k->tree_height(n, &l);
}

Test(models, tree_heights_count_the_longest_rounding_chain)
{
    /* product + 1024 serial adds + 2 atomic adds */
    cr_assert_eq(height("atomic-block", 2000, 1024, 0), 1027);
    cr_assert_eq(height("atomic-block", 0, 1024, 0), 1026);
    cr_assert_eq(height("fold", 1, 0, 0), 1);
    cr_assert_eq(height("fold", 5, 0, 0), 4);     /* 5 -> 3 -> 2 -> 1 */
    cr_assert_eq(height("tournament", 8, 0, 0), 4);
    cr_assert_eq(height("tournament", 9, 0, 0), 5);
    /* product + ceil(10000/768) = 14 stride adds + log2(256) + 3 host adds */
    cr_assert_eq(height("tree-hostsum", 10000, 256, 3), 26);
    cr_assert_eq(height("int-atomic", 1000, 0, 0), 1);
}

Test(models, descriptors_state_their_traits)
{
    const df_kernel *ab = kernel("atomic-block"), *ia32 = kernel("int-atomic"),
                    *fo = kernel("fold"), *to = kernel("tournament"),
                    *th = kernel("tree-hostsum");
    cr_assert_eq(ab->flags & DF_K_DETERMINISTIC, 0);
    cr_assert(ab->flags & DF_K_FLUSHES_SUBNORMALS);
    cr_assert(ia32->flags & DF_K_DETERMINISTIC);
    cr_assert_eq(ia32->elem, DF_I32);
    cr_assert(fo->flags & DF_K_DEBUG_INVARIANTS);
    cr_assert(to->flags & DF_K_DEBUG_INVARIANTS);
    cr_assert(th->flags & DF_K_BLOCK_POW2);
    cr_assert(th->flags & DF_K_GRID_FREE);
    cr_assert_eq(th->grid_max, 65535);
    const df_kernel *all[] = {ab, ia32, fo, to, th};
    for (size_t i = 0; i < COUNT(all); i++) {
        cr_assert_eq(all[i]->flags & DF_K_ANY_ALIGNMENT, 0, "%s", all[i]->name);
        cr_assert(strncmp(all[i]->origin, "seed 00", 7) == 0, "%s", all[i]->name);
        df_launch l = {0};
        cr_assert_eq(df_launch_resolve(all[i], 0, &l, NULL, 0), 0);
        cr_assert_eq(l.grid, 1, "%s: n = 0 still launches one block", all[i]->name);
    }
}
