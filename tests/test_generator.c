/* test_generator.c — fuzz/gen/generator.c: reproducible cases from (seed,
 * index), the fields a case carries, the edge-biased shape draw and the
 * kernel limits it respects, the family table (weights, forcing, lookups)
 * and the value stream it hands the GPU's generator. The kernels are fake
 * descriptors (gen_fakes.h); the families' values are test_values.c's, the
 * stream's known answers test_generator_kat.c's. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/gen/generator.h"
#include "fuzz/gen/values.h"
#include "tests/gen_fakes.h"

/* grid-stride with a grid cap and an odd block range */
static const df_kernel k_capped_f64 = {
    .name = "fake-capped-f64", .origin = "test", .summary = "test",
    .elem = DF_F64, .acc = DF_F64, .flags = DF_K_GRID_FREE,
    .block_min = 33, .block_max = 200, .block_default = 128,
    .grid_max = 40, .per_thread = 4, .max_n = 0,
};

static const df_kernel *const all_kernels[] = {&df_fake_free_f32, &df_fake_pow2_f64,
                                               &df_fake_i32, &k_capped_f64};
#define N_KERNELS (sizeof all_kernels / sizeof all_kernels[0])

Test(generator, same_seed_and_index_give_identical_bytes)
{
    df_scratch s1 = {0}, s2 = {0};
    df_gen_opts o = {.max_n = 20000, .family = 0};
    for (size_t k = 0; k < N_KERNELS; k++)
        for (uint64_t i = 0; i < 50; i++) {
            df_case c1, c2;
            cr_assert_eq(df_generate(99, i, all_kernels[k], &o, &s1, &c1), 0);
            cr_assert_eq(df_generate(99, i, all_kernels[k], &o, &s2, &c2), 0);
            cr_assert_eq(c1.n, c2.n);
            cr_assert_eq(c1.family, c2.family);
            cr_assert_eq(memcmp(&c1.launch, &c2.launch, sizeof c1.launch), 0);
            size_t bytes = (size_t)c1.n * df_type_size(c1.type);
            cr_assert_eq(memcmp(c1.a, c2.a, bytes), 0, "a differs, index %llu",
                         (unsigned long long)i);
            cr_assert_eq(memcmp(c1.b, c2.b, bytes), 0, "b differs");
        }
    df_scratch_free(&s1);
    df_scratch_free(&s2);
}

/* A case's buffer follows its lengths (df_scratch_fit): one grown past
 * DF_SCRATCH_FIT_MIN by a long case shrinks for a short one, and is kept
 * for one that needs over a quarter of it; below DF_SCRATCH_FIT_MIN it
 * stays. Every case made through it whole: its bytes those of a case made
 * in a fresh buffer. */
Test(generator, a_case_buffer_follows_the_lengths_it_holds)
{
    df_scratch s = {0};
    cr_assert_not_null(df_scratch_fit(&s, (size_t)1 << 20));
    cr_assert_eq(s.cap, (size_t)1 << 20);
    cr_assert_not_null(df_scratch_fit(&s, (size_t)300 << 10)); /* over a quarter */
    cr_assert_eq(s.cap, (size_t)1 << 20);
    cr_assert_not_null(df_scratch_fit(&s, 1000));
    cr_assert_eq(s.cap, 4096);
    cr_assert_not_null(df_scratch_fit(&s, DF_SCRATCH_FIT_MIN));
    cr_assert_not_null(df_scratch_fit(&s, 10)); /* not past the minimum: kept */
    cr_assert_eq(s.cap, DF_SCRATCH_FIT_MIN);
    df_scratch_free(&s);

    df_scratch reused = {0};
    df_gen_opts o = {.max_n = 1 << 16, .family = 0};
    for (uint64_t i = 0; i < 300; i++) {
        df_case c, fresh;
        df_scratch one = {0};
        cr_assert_eq(df_generate(5, i, &df_fake_pow2_f64, &o, &reused, &c), 0);
        cr_assert_eq(df_generate(5, i, &df_fake_pow2_f64, &o, &one, &fresh), 0);
        size_t bytes = (size_t)c.n * df_type_size(c.type);
        cr_assert(reused.cap >= 2 * bytes);
        cr_assert(reused.cap <= DF_SCRATCH_FIT_MIN || reused.cap / 4 <= 2 * bytes,
                  "index %llu: %zu bytes kept for %zu", (unsigned long long)i, reused.cap,
                  2 * bytes);
        cr_assert_eq(memcmp(c.a, fresh.a, bytes), 0);
        cr_assert_eq(memcmp(c.b, fresh.b, bytes), 0);
        df_scratch_free(&one);
    }
    df_scratch_free(&reused);
}

Test(generator, different_index_or_seed_gives_different_case)
{
    df_scratch s = {0};
    df_gen_opts o = {.max_n = 20000, .family = 0};
    uint64_t hashes[200];
    for (uint64_t i = 0; i < 200; i++) {
        df_case c;
        cr_assert_eq(df_generate(7, i, &df_fake_free_f32, &o, &s, &c), 0);
        hashes[i] = df_test_case_hash(&c);
    }
    /* only the rare empty cases with the same launch may coincide */
    int dup = 0;
    for (int i = 0; i < 200; i++)
        for (int j = 0; j < i; j++)
            dup += hashes[i] == hashes[j];
    cr_assert_lt(dup, 5, "%d of 200 cases repeat another", dup);
    cr_assert_neq(hashes[0], hashes[1]);
    df_case c;
    cr_assert_eq(df_generate(8, 0, &df_fake_free_f32, &o, &s, &c), 0);
    cr_assert_neq(df_test_case_hash(&c), hashes[0], "seed 8 repeats seed 7");
    df_scratch_free(&s);
}

Test(generator, case_fields_describe_the_case)
{
    df_scratch s = {0};
    df_gen_opts o = {.max_n = 3000, .family = 0};
    for (size_t k = 0; k < N_KERNELS; k++)
        for (uint64_t i = 0; i < 30; i++) {
            df_case c;
            memset(&c, 0xa5, sizeof c);
            cr_assert_eq(df_generate(123, i, all_kernels[k], &o, &s, &c), 0);
            cr_assert_eq(c.type, all_kernels[k]->elem);
            cr_assert_str_eq(c.kernel, all_kernels[k]->name);
            cr_assert_eq(c.seed, 123u);
            cr_assert_eq(c.index, i);
            cr_assert_not_null(df_family_by_id(c.family));
            /* a then b, back to back at the start of the buffer */
            cr_assert_eq(c.a, s.p);
            cr_assert_eq((const char *)c.b,
                         (const char *)c.a + c.n * df_type_size(c.type));
            cr_assert_geq(s.cap, 2 * c.n * df_type_size(c.type));
            /* the launch is resolved: resolving again changes nothing */
            df_launch again = c.launch;
            cr_assert_eq(df_launch_resolve(all_kernels[k], c.n, &again, NULL, 0), 0);
            cr_assert_eq(memcmp(&again, &c.launch, sizeof again), 0);
            cr_assert_geq(c.launch.grid, 1u);
        }
    df_scratch_free(&s);
}
Test(generator, n_never_exceeds_max_n_or_kernel_max_n)
{
    df_scratch s = {0};
    struct { const df_kernel *k; uint64_t max_n, limit; } runs[] = {
        {&df_fake_pow2_f64, 100000, 5000}, /* the kernel's limit binds */
        {&df_fake_pow2_f64, 300, 300},     /* the caller's limit binds */
        {&df_fake_i32, 777, 777},          /* kernel without a limit */
        {&df_fake_free_f32, 0, 0},         /* only empty cases */
    };
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        df_gen_opts o = {.max_n = runs[r].max_n, .family = 0};
        uint64_t longest = 0;
        for (uint64_t i = 0; i < 1500; i++) {
            df_case c;
            cr_assert_eq(df_generate(11, i, runs[r].k, &o, &s, &c), 0);
            cr_assert_leq(c.n, runs[r].limit, "run %zu: n = %llu", r,
                          (unsigned long long)c.n);
            longest = c.n > longest ? c.n : longest;
        }
        cr_assert_eq(longest, runs[r].limit, "run %zu: the limit itself occurs", r);
    }
    df_scratch_free(&s);
}

Test(generator, pow2_kernel_gets_power_of_two_blocks_in_range)
{
    uint32_t seen = 0; /* bit e: block 2^e seen */
    for (uint64_t i = 0; i < 3000; i++) {
        df_pcg32 rng;
        df_pcg32_seed(&rng, 21, i);
        uint64_t n;
        df_launch l;
        df_draw_shape(&rng, &df_fake_pow2_f64, 5000, &n, &l);
        cr_assert(l.block >= 64 && l.block <= 512, "block %u", l.block);
        cr_assert(df_is_pow2_u32(l.block), "block %u", l.block);
        seen |= l.block;
    }
    cr_assert_eq(seen, 64u | 128u | 256u | 512u, "every power of two in range occurs");
}

Test(generator, free_block_draw_covers_non_powers_of_two_and_warp_edges)
{
    int pow2 = 0, other = 0, saw_min = 0, saw_max = 0, saw_warp_minus = 0,
        saw_warp_plus = 0;
    for (uint64_t i = 0; i < 5000; i++) {
        df_pcg32 rng;
        df_pcg32_seed(&rng, 22, i);
        uint64_t n;
        df_launch l;
        df_draw_shape(&rng, &k_capped_f64, 100000, &n, &l);
        cr_assert(l.block >= 33 && l.block <= 200, "block %u", l.block);
        pow2 += df_is_pow2_u32(l.block);
        other += !df_is_pow2_u32(l.block);
        saw_min |= l.block == 33;
        saw_max |= l.block == 200;
        saw_warp_minus |= l.block == 63 || l.block == 95 || l.block == 127 ||
                          l.block == 159 || l.block == 191;
        saw_warp_plus |= l.block == 65 || l.block == 97 || l.block == 129 ||
                         l.block == 161;
    }
    cr_assert(pow2 > 1500 && other > 2000, "pow2 %d, other %d", pow2, other);
    cr_assert(saw_min && saw_max && saw_warp_minus && saw_warp_plus);
}

Test(generator, offsets_zero_without_any_alignment_and_fuzzed_with_it)
{
    int nonzero_a = 0, nonzero_b = 0, zero_a = 0;
    for (uint64_t i = 0; i < 2000; i++) {
        df_pcg32 rng;
        df_pcg32_seed(&rng, 23, i);
        uint64_t n;
        df_launch l;
        df_draw_shape(&rng, &df_fake_pow2_f64, 5000, &n, &l);
        cr_assert_eq(l.offset_a, 0u);
        cr_assert_eq(l.offset_b, 0u);
        df_draw_shape(&rng, &df_fake_i32, 5000, &n, &l);
        cr_assert_eq(l.offset_a + l.offset_b, 0u);
        df_draw_shape(&rng, &df_fake_free_f32, 5000, &n, &l);
        cr_assert_leq(l.offset_a, 3u);
        cr_assert_leq(l.offset_b, 3u);
        nonzero_a += l.offset_a != 0;
        nonzero_b += l.offset_b != 0;
        zero_a += l.offset_a == 0;
    }
    /* each offset is zero half the time */
    cr_assert(nonzero_a > 850 && zero_a > 850, "offset_a nonzero %d", nonzero_a);
    cr_assert_gt(nonzero_b, 850);
}

Test(generator, grid_free_kernels_get_derived_or_capped_grids)
{
    int derived = 0, drawn = 0;
    for (uint64_t i = 0; i < 2000; i++) {
        df_pcg32 rng;
        df_pcg32_seed(&rng, 24, i);
        uint64_t n;
        df_launch l;
        df_draw_shape(&rng, &k_capped_f64, 100000, &n, &l);
        cr_assert_leq(l.grid, 40u);
        derived += l.grid == 0;
        drawn += l.grid != 0;
        df_draw_shape(&rng, &df_fake_pow2_f64, 5000, &n, &l);
        cr_assert_eq(l.grid, 0u, "grid of a derived-grid kernel is left to resolve");
    }
    cr_assert(derived > 850 && drawn > 850, "derived %d, drawn %d", derived, drawn);
}

Test(generator, edge_lengths_occur)
{
    int saw0 = 0, saw1 = 0, saw32 = 0, saw_block_plus1 = 0, saw_grid_edge = 0;
    int large = 0;
    const df_kernel *k = &df_fake_free_f32;
    for (uint64_t i = 0; i < 5000; i++) {
        df_pcg32 rng;
        df_pcg32_seed(&rng, 25, i);
        uint64_t n;
        df_launch l;
        df_draw_shape(&rng, k, (uint64_t)1 << 20, &n, &l);
        cr_assert_leq(n, (uint64_t)1 << 20);
        saw0 |= n == 0;
        saw1 |= n == 1;
        saw32 |= n == 32;
        saw_block_plus1 |= n == (uint64_t)l.block + 1;
        saw_grid_edge |= l.grid > 1 && n == (uint64_t)l.grid * l.block + 1;
        large += n >= (uint64_t)1 << 19;
    }
    cr_assert(saw0 && saw1 && saw32, "n = 0: %d, 1: %d, 32: %d", saw0, saw1, saw32);
    cr_assert(saw_block_plus1, "n = block + 1 never drawn");
    cr_assert(saw_grid_edge, "n = grid * block + 1 never drawn");
    cr_assert_gt(large, 50, "only %d cases of n >= 2^19", large);
}
Test(generator, mixed_families_follow_their_weights)
{
    df_scratch s = {0};
    df_gen_opts o = {.max_n = 64, .family = 0};
    int count[16] = {0};
    for (uint64_t i = 0; i < 4000; i++) {
        df_case c;
        cr_assert_eq(df_generate(31, i, &df_fake_free_f32, &o, &s, &c), 0);
        cr_assert(c.family >= 1 && c.family <= DF_FAM_FEW_TERMS && c.family != DF_FAM_INT_BIG);
        count[c.family]++;
    }
    /* floats: int-small 2, the nine others 1 each (expected 727 and 364) */
    cr_assert(count[DF_FAM_INT_SMALL] > 640 && count[DF_FAM_INT_SMALL] < 820,
              "int-small %d of 4000", count[DF_FAM_INT_SMALL]);
    for (int f = DF_FAM_UNIFORM; f <= DF_FAM_FEW_TERMS; f++)
        if (f != DF_FAM_INT_BIG)
            cr_assert(count[f] > 290 && count[f] < 440, "family %d: %d of 4000", f, count[f]);
    /* i32: int-small 2, sparse, constant, cancel and int-factor 1 each
     * (333 and 167) */
    int icount[16] = {0};
    for (uint64_t i = 0; i < 1000; i++) {
        df_case c;
        cr_assert_eq(df_generate(31, i, &df_fake_i32, &o, &s, &c), 0);
        icount[c.family]++;
    }
    cr_assert(icount[DF_FAM_INT_SMALL] > 270 && icount[DF_FAM_INT_SMALL] < 400,
              "i32 int-small %d of 1000", icount[DF_FAM_INT_SMALL]);
    cr_assert(icount[DF_FAM_SPARSE] > 120 && icount[DF_FAM_CONSTANT] > 120 &&
              icount[DF_FAM_CANCEL] > 120 && icount[DF_FAM_INT_FACTOR] > 120);
    cr_assert_eq(icount[DF_FAM_INT_SMALL] + icount[DF_FAM_SPARSE] + icount[DF_FAM_CONSTANT] +
                     icount[DF_FAM_CANCEL] + icount[DF_FAM_INT_FACTOR],
                 1000, "i32 gets only the families that have int values");
    df_scratch_free(&s);
}

Test(generator, forcing_a_family_works_and_unsupported_returns_minus1)
{
    df_scratch s = {0};
    df_case c;
    df_gen_opts o = {.max_n = 100, .family = DF_FAM_INT_WIDE};
    for (uint64_t i = 0; i < 50; i++) {
        cr_assert_eq(df_generate(3, i, &df_fake_pow2_f64, &o, &s, &c), 0);
        cr_assert_eq(c.family, (uint32_t)DF_FAM_INT_WIDE);
    }
    o.family = DF_FAM_UNIFORM;
    cr_assert_eq(df_generate(3, 0, &df_fake_i32, &o, &s, &c), -1, "no uniform i32");
    o.family = DF_FAM_INT_WIDE;
    cr_assert_eq(df_generate(3, 0, &df_fake_i32, &o, &s, &c), -1, "no int-wide i32");
    static const uint32_t float_only[] = {DF_FAM_COND, DF_FAM_WIDE_EXP, DF_FAM_SPECIAL};
    for (size_t f = 0; f < 3; f++) {
        o.family = float_only[f];
        cr_assert_eq(df_generate(3, 0, &df_fake_i32, &o, &s, &c), -1, "family %u on i32",
                     float_only[f]);
    }
    o.family = 999;
    cr_assert_eq(df_generate(3, 0, &df_fake_free_f32, &o, &s, &c), -1, "unknown id");
    o.family = DF_FAM_IMPORTED;
    cr_assert_eq(df_generate(3, 0, &df_fake_i32, &o, &s, &c), 0, "0 mixes");
    df_scratch_free(&s);
}

Test(generator, forcing_the_family_a_mix_chose_reproduces_the_case)
{
    df_scratch s1 = {0}, s2 = {0};
    df_gen_opts mixed = {.max_n = 2000, .family = 0};
    for (uint64_t i = 0; i < 60; i++) {
        df_case c1, c2;
        cr_assert_eq(df_generate(41, i, &df_fake_free_f32, &mixed, &s1, &c1), 0);
        df_gen_opts forced = {.max_n = 2000, .family = c1.family};
        cr_assert_eq(df_generate(41, i, &df_fake_free_f32, &forced, &s2, &c2), 0);
        cr_assert_eq(df_test_case_hash(&c1), df_test_case_hash(&c2), "index %llu",
                     (unsigned long long)i);
    }
    df_scratch_free(&s1);
    df_scratch_free(&s2);
}

Test(generator, family_lookups_are_consistent)
{
    cr_assert_eq(df_family_count(), 16u);
    static const char *names[] = {"int-small", "uniform",   "int-wide",     "cond",
                                  "wide-exp",  "special",   "sparse",       "constant",
                                  "cancel",    "int-big",   "few-terms",    "int-factor",
                                  "lp-range",  "lp-subnormal", "lp-special", "lp-cancel"};
    for (size_t i = 0; i < df_family_count(); i++) {
        const df_family *f = df_family_at(i);
        cr_assert_not_null(f);
        cr_assert_eq(f->id, (uint32_t)(i + 1), "ids are stable: table order");
        cr_assert_str_eq(f->name, names[i]);
        cr_assert_eq(df_family_find(f->name), f);
        cr_assert_eq(df_family_by_id(f->id), f);
        cr_assert_gt(f->weight, 0u);
        /* every family but int-big (i32 only, 64-bit-result kernels),
         * int-factor (i32 only) and the low-precision ones has floats */
        cr_assert(f->wide_only || f->id == DF_FAM_INT_FACTOR || f->id >= DF_FAM_LP_RANGE ||
                      (f->types & DF_TYPE_BIT(DF_F32)),
                  "%s", f->name);
    }
    const df_family *big = df_family_find("int-big");
    cr_assert(big->wide_only && big->types == DF_TYPE_BIT(DF_I32));
    cr_assert_eq(df_family_find("int-small")->weight, 2u);
    cr_assert_eq(df_family_find("lp-range")->weight, 2u);
    for (size_t i = 1; i < df_family_count(); i++)
        if (df_family_at(i)->id != DF_FAM_LP_RANGE)
            cr_assert_eq(df_family_at(i)->weight, 1u);
    /* i32 only where the values are integers by construction */
    static const char *with_i32[] = {"int-small", "sparse", "constant", "cancel", "int-factor"};
    unsigned n_i32 = 0;
    for (size_t i = 0; i < df_family_count(); i++)
        n_i32 += (df_family_at(i)->types & DF_TYPE_BIT(DF_I32)) && !df_family_at(i)->wide_only;
    cr_assert_eq(n_i32, 5u);
    for (size_t i = 0; i < 5; i++)
        cr_assert(df_family_find(with_i32[i])->types & DF_TYPE_BIT(DF_I32), "%s", with_i32[i]);
    cr_assert_null(df_family_at(df_family_count()));
    cr_assert_null(df_family_find("nope"));
    cr_assert_null(df_family_by_id(DF_FAM_IMPORTED));
    cr_assert_null(df_family_by_id(17));
}

Test(generator, bad_arguments_return_minus1)
{
    df_scratch s = {0};
    df_case c;
    df_gen_opts o = {.max_n = 10, .family = 0};
    cr_assert_eq(df_generate(1, 0, NULL, &o, &s, &c), -1);
    cr_assert_eq(df_generate(1, 0, &df_fake_i32, NULL, &s, &c), -1);
    cr_assert_eq(df_generate(1, 0, &df_fake_i32, &o, NULL, &c), -1);
    cr_assert_eq(df_generate(1, 0, &df_fake_i32, &o, &s, NULL), -1);
    df_scratch_free(&s);
}
/* What the GPU's generator is given (df_generate_stream: the value stream,
 * the family, n) and what it runs (df_fill_values, fuzz/gen/values.h) give
 * df_generate's bytes, for every family in f32, f64 and i32 (int-big
 * through a 64-bit-result kernel), n up to 3000 and a forced family. */
Test(generator, value_stream_and_fill_give_the_generated_case)
{
    static const char *names[] = {"shfl", "shfl-f64", "int-atomic", "m-int32-acc"};
    df_scratch buf = {0};
    size_t fams_seen = 0;
    unsigned seen[16] = {0};
    for (size_t kk = 0; kk < 4; kk++) {
        const df_kernel *k = df_kernel_find(names[kk]);
        cr_assert_not_null(k);
        for (uint64_t i = 0; i < 1500; i++) {
            df_gen_opts go = {.max_n = 3000, .family = i % 7 == 0 ? DF_FAM_CANCEL : 0};
            df_case c;
            cr_assert_eq(df_generate(23, i, k, &go, &buf, &c), 0);
            df_pcg32 r;
            uint32_t fam = 0;
            uint64_t n = 0;
            cr_assert_eq(df_generate_stream(23, i, k, &go, &r, &fam, &n), 0);
            cr_assert_eq(fam, c.family);
            cr_assert_eq(n, c.n);
            size_t na = (size_t)n * df_type_size(c.type);
            unsigned char *p = malloc(2 * na + 1);
            cr_assert_not_null(p);
            cr_assert_eq(df_fill_values(fam, &r, c.type, p, p + na, n), 0);
            cr_assert_eq(memcmp(p, c.a, na), 0, "%s case %llu: a differs", names[kk],
                         (unsigned long long)i);
            cr_assert_eq(memcmp(p + na, c.b, na), 0, "%s case %llu: b differs", names[kk],
                         (unsigned long long)i);
            free(p);
            fams_seen += seen[fam & 15]++ == 0;
        }
    }
    cr_assert_eq(fams_seen, 12, "every family drawn");
    df_pcg32 r;
    df_pcg32_seed(&r, 1, 1);
    cr_assert_eq(df_fill_values(99, &r, DF_F32, NULL, NULL, 0), -1);
    df_scratch_free(&buf);
}

/* --long-n: every 16384th index is long (n past 2^21, at most long_n), its
 * family, launch and values stream those of the short case it replaces;
 * every other index is the case long_n = 0 gives, byte for byte. */
Test(generator, every_16384th_case_is_long_and_the_others_unchanged, .timeout = 60)
{
    df_scratch s1 = {0}, s2 = {0};
    df_gen_opts off = {.max_n = 4096}, on = {.max_n = 4096, .long_n = 1u << 22};
    const df_kernel *k = df_kernel_find("shfl");
    cr_assert_not_null(k);
    const uint64_t idx[] = {0, 16382, 16383, 16384, 32767};
    for (size_t i = 0; i < sizeof idx / sizeof idx[0]; i++) {
        df_case a, b;
        cr_assert_eq(df_generate(9, idx[i], k, &off, &s1, &a), 0);
        cr_assert_eq(df_generate(9, idx[i], k, &on, &s2, &b), 0);
        cr_assert_eq(a.family, b.family);
        cr_assert_eq(a.launch.block, b.launch.block);
        if (df_gen_is_long(idx[i])) {
            cr_assert(b.n >= DF_GEN_LONG_MIN && b.n <= (1u << 22), "index %llu: n %llu",
                      (unsigned long long)idx[i], (unsigned long long)b.n);
            cr_assert(a.n <= 4096);
        } else {
            cr_assert_eq(a.n, b.n);
            size_t bytes = (size_t)a.n * df_type_size(a.type);
            cr_assert(memcmp(a.a, b.a, bytes) == 0 && memcmp(a.b, b.b, bytes) == 0);
        }
    }
    df_scratch_free(&s1);
    df_scratch_free(&s2);
}

/* The next long index: the next one in 16,384 (or long_every), the index
 * itself when it is long, none without --long-n or past the last. */
Test(generator, the_next_long_index)
{
    df_gen_opts off = {.max_n = 4096}, on = {.max_n = 4096, .long_n = 1u << 22};
    cr_assert_eq(df_gen_next_long(&off, 0), UINT64_MAX);
    cr_assert_eq(df_gen_next_long(&on, 0), 16383);
    cr_assert_eq(df_gen_next_long(&on, 16383), 16383);
    cr_assert_eq(df_gen_next_long(&on, 16384), 32767);
    cr_assert_eq(df_gen_next_long(&on, UINT64_MAX - 5), UINT64_MAX, "none left");
    for (uint64_t i = 16000; i < 33000; i += 7) {
        uint64_t l = df_gen_next_long(&on, i);
        cr_assert(l >= i && df_gen_is_long(l), "from %llu: %llu", (unsigned long long)i,
                  (unsigned long long)l);
        for (uint64_t j = i; j < l; j++)
            cr_assert(!df_gen_is_long(j));
    }
    df_gen_opts every = {.max_n = 4096, .long_n = 1u << 22, .long_every = 100};
    cr_assert_eq(df_gen_next_long(&every, 150), 199);
}

/* A cycle shares each case among neighbours that take the same cases: the
 * followers get their leader's family, length, values and BLAS arguments,
 * its launch where they take it (else their own), their own index and
 * name; long indices and a kernel out of its place share nothing. */
Test(generator, neighbours_in_the_cycle_share_their_cases)
{
    const char *names[] = {"atomic-block", "fold", "shfl", "int-atomic", "shfl-blas",
                           "cublas-sdot", "mma-f16"};
    const df_kernel *ks[7];
    for (int p = 0; p < 7; p++)
        cr_assert_not_null(ks[p] = df_kernel_find(names[p]), "%s", names[p]);
    df_gen_opts go = {.max_n = 5000, .long_n = DF_GEN_LONG_DEFAULT};
    df_gen_share(&go, ks, 7);
    const uint8_t want[7] = {0, 1, 2, 0, 0, 1, 0};
    for (int p = 0; p < 7; p++)
        cr_assert_eq(go.share[p], want[p], "share[%d] = %u", p, go.share[p]);
    df_scratch lb = {0}, fb = {0};
    int launches_differ = 0, blas = 0;
    for (uint64_t turn = 0; turn < 300; turn++) {
        for (int p = 0; p < 7; p++) {
            uint64_t i = turn * 7 + (uint64_t)p, lead;
            if (!df_gen_lead(&go, i, ks[p], &lead)) {
                cr_assert(want[p] == 0, "index %llu of %s shares nothing", (unsigned long long)i,
                          names[p]);
                continue;
            }
            cr_assert_eq(lead, i - want[p]);
            df_case l, f;
            cr_assert_eq(df_generate(7, lead, ks[p - want[p]], &go, &lb, &l), 0);
            cr_assert_eq(df_generate(7, i, ks[p], &go, &fb, &f), 0);
            cr_assert(f.n == l.n && f.family == l.family && f.type == l.type);
            cr_assert(memcmp(&f.blas, &l.blas, sizeof f.blas) == 0);
            size_t bytes = (size_t)f.n * df_type_size(f.type);
            cr_assert(memcmp(f.a, l.a, bytes) == 0 && memcmp(f.b, l.b, bytes) == 0,
                      "index %llu: not its leader's values", (unsigned long long)i);
            cr_assert_eq(f.index, i);
            cr_assert_str_eq(f.kernel, names[p]);
            launches_differ += memcmp(&f.launch, &l.launch, sizeof f.launch) != 0;
            blas += f.blas.on && (f.blas.inc_a != 1 || f.blas.inc_b != 1);
        }
    }
    /* shfl takes fold's blocks of 32 to 1024 only; cublas-sdot's is 1 */
    cr_assert(launches_differ > 100, "%d followers with a launch of their own", launches_differ);
    cr_assert(blas > 50, "%d shared strided calls", blas);
    /* a long index is its own: 65535 (long: 65535 mod 16384 = 16383) is
     * fold's (65535 mod 7 = 1), whose short neighbour would lead it */
    uint64_t lead;
    cr_assert(df_gen_is_long(65535) && 65535 % 7 == 1);
    cr_assert(!df_gen_lead(&go, 65535, ks[1], &lead), "the long index shares");
    cr_assert(df_gen_lead(&go, 65535 - 7, ks[1], &lead) && lead == 65535 - 8);
    cr_assert(!df_gen_lead(&go, 1, ks[2], &lead), "a kernel out of its place shares");
    df_scratch_free(&lb);
    df_scratch_free(&fb);
}
