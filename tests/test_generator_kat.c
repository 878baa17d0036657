/* test_generator_kat.c — known answers that pin the generator's stream
 * layout: the cases of a few (seed, index) pairs, each family's values, and
 * a hash of every family's cases. These values were derived once by running
 * the generator; a change means old (seed, index) pairs name other cases. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "fuzz/gen/generator.h"
#include "tests/gen_fakes.h"

/* f32, blocks of 32 to 1024, the grid derived from n */
static const df_kernel k_pin = {
    .name = "fake-pin", .origin = "test", .summary = "test",
    .elem = DF_F32, .acc = DF_F32, .flags = 0,
    .block_min = 32, .block_max = 1024, .block_default = 256,
    .grid_max = 0, .per_thread = 1, .max_n = 0,
};

/* k_pin's limits in f64, with the launch fuzzed: any alignment, any grid */
static const df_kernel k_pin_free = {
    .name = "fake-pin-free", .origin = "test", .summary = "test",
    .elem = DF_F64, .acc = DF_F64,
    .flags = DF_K_ANY_ALIGNMENT | DF_K_GRID_FREE,
    .block_min = 32, .block_max = 1024, .block_default = 256,
    .grid_max = 0, .per_thread = 1, .max_n = 0,
};

/* The mixed draw of (1, 0): first output 0xe2393051 mod 11 (the f32
 * families' weights) = 9, cancel. Forcing sparse or int-small gives that
 * family's values from the same stream: the family draw is made either
 * way, so the family table moves no later draw. */
Test(generator, known_answer_seed1_index0)
{
    df_scratch s = {0};
    df_gen_opts o = {.max_n = 1000, .family = 0};
    df_case c;
    cr_assert_eq(df_generate(1, 0, &k_pin, &o, &s, &c), 0);
    cr_assert_eq(c.n, 310u);
    cr_assert_eq(c.launch.block, 256u);
    cr_assert_eq(c.launch.grid, 2u);
    cr_assert_eq(c.family, (uint32_t)DF_FAM_CANCEL);
    cr_assert_eq(((const float *)c.a)[23], -0x1.c0f1bp+13f);
    cr_assert_eq(((const float *)c.b)[309], -0x1.35b93cp+6f);

    o.family = DF_FAM_SPARSE;
    cr_assert_eq(df_generate(1, 0, &k_pin, &o, &s, &c), 0);
    cr_assert_eq(c.n, 310u);
    const float *sa = c.a, *sb = c.b;
    int nonzero = 0;
    for (uint64_t i = 0; i < c.n; i++)
        nonzero += sa[i] != 0;
    cr_assert_eq(nonzero, 9);
    cr_assert_eq(sa[0], 0.0f);
    cr_assert_eq(sa[23], -0x1.0787ecp+0f);
    cr_assert_eq(sb[23], 0x1.be95c4p+3f);
    cr_assert_eq(sa[309], -0x1.13a22cp+5f, "the last position is a sparse favourite");
    cr_assert_eq(sb[309], 0x1.0bd57ap+4f);

    o.family = DF_FAM_INT_SMALL;
    cr_assert_eq(df_generate(1, 0, &k_pin, &o, &s, &c), 0);
    cr_assert_eq(c.n, 310u);
    const float *a = c.a, *b = c.b;
    static const float want_a[] = {-18, -11, -43, 17}, want_b[] = {24, 10, -8, -41};
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(a[i], want_a[i], "a[%d] = %g", i, (double)a[i]);
        cr_assert_eq(b[i], want_b[i], "b[%d] = %g", i, (double)b[i]);
    }
    cr_assert_eq(b[309], -3.0f);
    df_scratch_free(&s);
}

Test(generator, known_answer_uniform_f32_seed1_index0)
{
    df_scratch s = {0};
    df_gen_opts o = {.max_n = 1000, .family = DF_FAM_UNIFORM};
    df_case c;
    cr_assert_eq(df_generate(1, 0, &k_pin, &o, &s, &c), 0);
    cr_assert_eq(c.n, 310u, "forcing the family keeps the shape");
    const float *a = c.a, *b = c.b;
    cr_assert_eq(a[0], 0x1.9a041cp+3f);
    cr_assert_eq(a[1], 0x1.63a19ap+4f);
    cr_assert_eq(b[0], -0x1.2a485ep+5f);
    cr_assert_eq(b[309], 0x1.4e16f4p+5f);
    df_scratch_free(&s);
}

Test(generator, known_answer_launch_fuzzed_kernel_seed1_index1)
{
    df_scratch s = {0};
    df_gen_opts o = {.max_n = 1000, .family = 0};
    df_case c;
    cr_assert_eq(df_generate(1, 1, &k_pin_free, &o, &s, &c), 0);
    cr_assert_eq(c.n, 1000u);
    cr_assert_eq(c.launch.block, 607u);
    cr_assert_eq(c.launch.grid, 115u);
    cr_assert_eq(c.launch.offset_a, 0u);
    cr_assert_eq(c.launch.offset_b, 2u);
    /* first output 0xc9828f91 mod 11 = 10: few-terms, its first term at
     * element 0 with the pair's factors split evenly */
    cr_assert_eq(c.family, (uint32_t)DF_FAM_FEW_TERMS);
    cr_assert_eq(((const double *)c.a)[0], -0x1p-527);
    cr_assert_eq(((const double *)c.b)[0], 0x1p-527);
    o.family = DF_FAM_CANCEL;
    cr_assert_eq(df_generate(1, 1, &k_pin_free, &o, &s, &c), 0);
    cr_assert_eq(((const double *)c.a)[0], -30.0);
    cr_assert_eq(((const double *)c.b)[0], 3.0);
    o.family = DF_FAM_INT_SMALL;
    cr_assert_eq(df_generate(1, 1, &k_pin_free, &o, &s, &c), 0);
    cr_assert_eq(((const double *)c.a)[0], -7.0);
    o.family = DF_FAM_UNIFORM;
    cr_assert_eq(df_generate(1, 1, &k_pin_free, &o, &s, &c), 0);
    cr_assert_eq(c.n, 1000u);
    const double *a = c.a, *b = c.b;
    cr_assert_eq(a[0], 0x1.802bc7aa1c788p+4);
    cr_assert_eq(b[0], -0x1.863298450b5f5p+5);
    cr_assert_eq(b[999], -0x1.0f3a2603929acp+4);
    df_scratch_free(&s);
}

Test(generator, known_answer_cond_f64_and_wide_exp_f32)
{
    df_scratch s = {0};
    df_gen_opts o = {.max_n = 1000, .family = DF_FAM_COND};
    df_case c;
    cr_assert_eq(df_generate(1, 1, &k_pin_free, &o, &s, &c), 0);
    cr_assert_eq(c.n, 1000u);
    const double *a = c.a, *b = c.b;
    cr_assert_eq(a[0], 0x1.84150200c327cp+15);
    cr_assert_eq(b[0], 0x1.65ac25490b0ebp+15);
    cr_assert_eq(a[999], -0x1.3c2f8b96b342dp+16);
    cr_assert_eq(b[999], 0x1.f3a1289d79aefp+16);
    o.family = DF_FAM_WIDE_EXP;
    cr_assert_eq(df_generate(1, 0, &k_pin, &o, &s, &c), 0);
    cr_assert_eq(c.n, 310u);
    const float *fa = c.a, *fb = c.b;
    cr_assert_eq(fa[0], 0x1.6062cap+4f);
    cr_assert_eq(fb[0], 0x1.4390eep+5f);
    cr_assert_eq(fb[309], -0x1.3e56fep-4f);
    df_scratch_free(&s);
}

/* Every family on the three fakes at n = 4099 (blocks of the shuffles'
 * look-ahead and a partial one), seed 2026, indices 0..2: an FNV-1a hash
 * of each case's n, launch and vectors, pinned: a change to what any
 * family draws shows here. 0: the family does not generate for that
 * kernel. */
Test(generator, known_answer_hashes_of_every_family)
{
    static const struct {
        const char *family;
        uint64_t hash[3]; /* df_fake_free_f32, df_fake_pow2_f64, df_fake_i32 */
    } kat[] = {
    {"int-small", {0x782517e69ecc7203ull, 0x8aec3525ce38d2caull, 0x6818bfd3abd904ceull}},
    {"uniform", {0x411371b0f0596fdeull, 0xeb552669850c8cc7ull, 0}},
    {"int-wide", {0xd85facb10e1c8e4aull, 0x38101670498e3dc3ull, 0}},
    {"cond", {0x6f47b99bb69e88a7ull, 0x21228a454cc08bb0ull, 0}},
    {"wide-exp", {0x0f9c1a24b118a17dull, 0x177666ff4f9ca844ull, 0}},
    {"special", {0x732fb422a0cee079ull, 0x03b6af132356297dull, 0}},
    {"sparse", {0x86522f37433ef80cull, 0x6cbe7733163b9c5dull, 0x1682e47f92accb6aull}},
    {"constant", {0x8d7d04993a6be3f1ull, 0x3974537fde041f07ull, 0xb9c2d8c5d42525f2ull}},
    {"cancel", {0xe0e2278ad87d5cadull, 0x441df581dce2a232ull, 0xb699d896d416101aull}},
    {"int-big", {0, 0, 0}},
    {"few-terms", {0x3c9ca28e7dcba9feull, 0x1bdee8fc52a32f98ull, 0}},
    {"int-factor", {0, 0, 0x6a1c9e2a93346b3aull}},
    /* the low-precision families: tests/test_lowp_families.c pins them */
    {"lp-range", {0, 0, 0}},
    {"lp-subnormal", {0, 0, 0}},
    {"lp-special", {0, 0, 0}},
    {"lp-cancel", {0, 0, 0}},
    };
    const df_kernel *ks[] = {&df_fake_free_f32, &df_fake_pow2_f64, &df_fake_i32};
    df_scratch s = {0};
    cr_assert_eq(df_family_count(), sizeof kat / sizeof kat[0]);
    for (size_t f = 0; f < sizeof kat / sizeof kat[0]; f++) {
        const df_family *fam = df_family_find(kat[f].family);
        cr_assert(fam != NULL, "%s", kat[f].family);
        for (size_t k = 0; k < 3; k++) {
            if (!kat[f].hash[k])
                continue;
            df_gen_opts o = {.max_n = 4099, .family = fam->id, .fixed_n = 4099};
            uint64_t h = 14695981039346656037ull;
            for (uint64_t i = 0; i < 3; i++) {
                df_case c;
                cr_assert_eq(df_generate(2026, i, ks[k], &o, &s, &c), 0);
                cr_assert_eq(c.n, 4099u);
                uint32_t l[4] = {c.launch.block, c.launch.grid, c.launch.offset_a,
                                 c.launch.offset_b};
                size_t bytes = (size_t)c.n * df_type_size(c.type);
                h = df_test_fnv1a(h, &c.n, sizeof c.n);
                h = df_test_fnv1a(h, l, sizeof l);
                h = df_test_fnv1a(h, c.a, bytes);
                h = df_test_fnv1a(h, c.b, bytes);
            }
            cr_assert_eq(h, kat[f].hash[k], "%s on %s: %#llx", kat[f].family, ks[k]->name,
                         (unsigned long long)h);
        }
    }
    df_scratch_free(&s);
}
