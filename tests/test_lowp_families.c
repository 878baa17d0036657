/* test_lowp_families.c — the f16, bf16, e4m3 and e5m2 value families: each
 * is offered for those types alone, makes the same bytes from the same
 * seed, and keeps its promise: lp-range and lp-subnormal finite (bf16's
 * products and sums inside f32), lp-subnormal's low vector at the bottom
 * of the range, lp-special holding a landmark, lp-cancel's exact dot the
 * sum of its small terms alone, far below G. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/gen/generator.h"
#include "fuzz/gen/values.h"
#include "reference/reference.h"
#include "tests/gen_fakes.h"

static const df_type lowp_types[] = {DF_F16, DF_BF16, DF_E4M3, DF_E5M2};
static const uint32_t lp_families[] = {DF_FAM_LP_RANGE, DF_FAM_LP_SUBNORMAL, DF_FAM_LP_SPECIAL,
                                       DF_FAM_LP_CANCEL};
#define N_MAX 5000

static void fill(uint32_t fam, df_type t, uint64_t n, uint64_t seed, void *a, void *b)
{
    df_pcg32 r;
    df_pcg32_seed(&r, seed, fam);
    cr_assert_eq(df_fill_values(fam, &r, t, a, b, n), 0);
}

Test(lowp_families, offered_for_the_lowp_types_alone)
{
    for (size_t i = 0; i < 4; i++) {
        const df_family *f = df_family_by_id(lp_families[i]);
        cr_assert(f, "family %u", lp_families[i]);
        for (int t = 1; t <= DF_TYPE_MAX; t++)
            cr_assert_eq((f->types & DF_TYPE_BIT(t)) != 0, df_type_is_lowp((df_type)t), "%s %s",
                         f->name, df_type_name((df_type)t));
    }
    for (size_t i = 0; i < df_family_count(); i++) {
        const df_family *f = df_family_at(i);
        if (f->id < DF_FAM_LP_RANGE)
            cr_assert_eq(f->types & DF_TYPE_BIT(DF_F16), 0, "%s takes f16", f->name);
    }
}

Test(lowp_families, each_keeps_its_promise)
{
    static uint8_t a[2 * N_MAX], b[2 * N_MAX], a2[2 * N_MAX], b2[2 * N_MAX];
    unsigned special_seen = 0, subnormal_products = 0;
    for (size_t ti = 0; ti < 4; ti++) {
        df_type t = lowp_types[ti];
        df_type_facts tf = df_type_facts_of(t);
        size_t es = df_type_size(t);
        for (size_t fi = 0; fi < 4; fi++) {
            uint32_t fam = lp_families[fi];
            for (uint64_t seed = 1; seed <= 40; seed++) {
                uint64_t n = seed * 997 % N_MAX + (seed & 1);
                fill(fam, t, n, seed, a, b);
                fill(fam, t, n, seed, a2, b2);
                cr_assert_eq(memcmp(a, a2, n * es), 0, "same seed, other bytes");
                cr_assert_eq(memcmp(b, b2, n * es), 0, "same seed, other bytes");
                df_refs refs;
                df_refs_compute(t, a, b, n, &refs);
                if (fam != DF_FAM_LP_SPECIAL) {
                    cr_assert(!refs.has_nonfinite, "%s %s seed %llu: non-finite",
                              df_type_name(t), df_family_by_id(fam)->name,
                              (unsigned long long)seed);
                    cr_assert(refs.G < 0x1p123, "%s: G %g", df_type_name(t), refs.G);
                }
                if (fam == DF_FAM_LP_SPECIAL) {
                    for (uint64_t i = 0; i < n; i++) {
                        double x = df_elem_as_double(t, a, i), y = df_elem_as_double(t, b, i);
                        special_seen += !isfinite(x) || !isfinite(y) || fabs(x) == tf.max ||
                                        fabs(y) == tf.max || x == 0 || y == 0;
                    }
                }
                if (fam == DF_FAM_LP_SUBNORMAL) {
                    uint64_t low = 0;
                    for (uint64_t i = 0; i < n; i++) {
                        double x = fabs(df_elem_as_double(t, a, i));
                        double y = fabs(df_elem_as_double(t, b, i));
                        double edge = ldexp(2.0, tf.emin); /* the smallest normal binade's top */
                        low += x < edge || y < edge;
                        subnormal_products += x < ldexp(1.0, tf.emin) || y < ldexp(1.0, tf.emin);
                    }
                    cr_assert_eq(low, n, "%s: a pair with neither at the bottom", df_type_name(t));
                }
                if (fam == DF_FAM_LP_CANCEL && n >= 8) {
                    /* the small terms: the last 1..4 pairs before any shuffle;
                     * |s| is at most 4 of them, each 2^4 below the pairs' products */
                    cr_assert(refs.exact_known);
                    cr_assert(fabs(refs.exact_hi) <= refs.G * 0x1p-3, "%s n %llu: s %g G %g",
                              df_type_name(t), (unsigned long long)n, refs.exact_hi, refs.G);
                }
            }
        }
    }
    cr_assert_gt(special_seen, 100);
    cr_assert_gt(subnormal_products, 1000);
}

/* Each family on each type at n = 4099, seed 2026: an FNV-1a hash of the
 * vectors (tests/gen_fakes.h), pinned, so a change to what a family draws
 * shows here. */

Test(lowp_families, known_answer_hashes)
{
    static const uint64_t kat[4][4] = {
        /* lp-range, lp-subnormal, lp-special, lp-cancel; f16, bf16, e4m3, e5m2 */
        {0xf065620de461240cull, 0xebb9c907c8c4045full, 0x2aea28faa7c758a0ull, 0x8783b3b20eb03cbcull},
        {0x24e92e422717e2ddull, 0x1400e53ea5875788ull, 0x5e593a59d7122fefull, 0xdb43bccd7fd6148eull},
        {0xaad73ff3cdc6402full, 0x3f7153fae15ce41eull, 0xbd5a986a97c3c225ull, 0xb4e7e52e05c85691ull},
        {0x3c34309e4baaf4a5ull, 0x7efd3a84b59f38c8ull, 0x16e6497dcc79aed6ull, 0x0bc4190745419196ull},
    };
    static uint8_t a[2 * 4099], b[2 * 4099];
    for (size_t fi = 0; fi < 4; fi++)
        for (size_t ti = 0; ti < 4; ti++) {
            df_type t = lowp_types[ti];
            fill(lp_families[fi], t, 4099, 2026, a, b);
            uint64_t h = df_test_fnv1a(14695981039346656037ull, a, 4099 * df_type_size(t));
            h = df_test_fnv1a(h, b, 4099 * df_type_size(t));
            cr_assert_eq(h, kat[fi][ti], "%s on %s: %#llx", df_family_by_id(lp_families[fi])->name,
                         df_type_name(t), (unsigned long long)h);
        }
}
