/* test_refs_copies.c — a negated, permuted or scaled copy's references
 * derived from its case's own (reference/refs_copies.c, and the permute
 * copies' lanes df_refs_permuted_many) equal df_refs_compute on the
 * copy's data bit for bit, for every family and type, short and long
 * cases, and are refused where they cannot be told (a Kahan sum of zero,
 * NaN or Inf data, past DF_REFS_CHUNK, data not the case's scaled). */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/gen/generator.h"
#include "fuzz/gen/values.h"
#include "reference/reference.h"

#define TWO31 2147483648.0

/* a -> -a into a2 (n elements of t). */
static void negate_copy(df_type t, const void *a, void *a2, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        if (t == DF_F32)
            ((float *)a2)[i] = -((const float *)a)[i];
        else if (t == DF_F64)
            ((double *)a2)[i] = -((const double *)a)[i];
        else
            ((int32_t *)a2)[i] = -((const int32_t *)a)[i];
    }
}

/* The derived references' tests: vectors for them, their counts. */
typedef struct derive_run {
    void *a, *a2, *b;
    unsigned derived, refused;
} derive_run;

/* fn over every family, each of its types (f32, f64, i32), each n of ns,
 * seeds 1..few (n <= 5003) or 1..many (longer), seed base `mul` a family. */
static void over_families(const uint64_t *ns, size_t nn, unsigned few, unsigned many,
                          uint64_t mul, derive_run *dr,
                          void (*fn)(df_type, uint32_t, uint64_t, uint64_t, derive_run *))
{
    static const df_type types[] = {DF_F32, DF_F64, DF_I32};
    for (size_t fi = 0; fi < df_family_count(); fi++) {
        const df_family *fam = df_family_at(fi);
        for (int k = 0; k < 3; k++) {
            if (!(fam->types & DF_TYPE_BIT(types[k])))
                continue;
            for (size_t m = 0; m < nn; m++)
                for (uint64_t seed = 1; seed <= (ns[m] > 5003 ? many : few); seed++)
                    fn(types[k], fam->id, mul * fi + seed, ns[m], dr);
        }
    }
}

/* df_refs_negated(refs of (a, b)) is, bit for bit, df_refs_compute of
 * (-a, b) wherever it answers, for every family and type, short and long
 * cases (the chunks' merge), with Inf classes, exact zeros and lo = +0;
 * it refuses a Kahan sum of zero (whose sign is the order's) and NaN
 * data. Returns through *derived and *refused how often it did each. */
static void negated_matches(df_type t, uint32_t fam, uint64_t seed, uint64_t n,
                            derive_run *dr)
{
    void *a = dr->a, *a2 = dr->a2, *b = dr->b;
    df_pcg32 r;
    df_pcg32_seed(&r, seed, n);
    cr_assert_eq(df_fill_values(fam, &r, t, a, b, n), 0);
    df_refs own, neg, want;
    df_refs_compute(t, a, b, n, &own);
    if (own.has_nan || (t == DF_I32 && own.max_abs_a >= TWO31)) {
        cr_assert_eq(df_refs_negated(t, &own, &neg), -1);
        return;
    }
    negate_copy(t, a, a2, n);
    df_refs_compute(t, a2, b, n, &want);
    memset(&neg, 0x5a, sizeof neg);
    if (df_refs_negated(t, &own, &neg) != 0) {
        cr_assert(own.kahan == 0 || isnan(own.kahan), "refused Kahan %a", own.kahan);
        dr->refused++;
        return;
    }
    cr_assert_eq(memcmp(&neg, &want, sizeof want), 0,
                 "family %u %s n %llu: kahan %a / %a, exact %a %a / %a %a, inf %a / %a", fam,
                 df_type_name(t), (unsigned long long)n, neg.kahan, want.kahan, neg.exact_hi,
                 neg.exact_lo, want.exact_hi, want.exact_lo, neg.inf_want, want.inf_want);
    dr->derived++;
}

static uint64_t perm_draw(df_pcg32 *r, uint64_t i)
{
    return df_pcg32_bounded(r, (uint32_t)(i + 1));
}

/* df_refs_permuted(refs of (a, b), the pairs shuffled) is, bit for bit,
 * df_refs_compute of the shuffled pairs wherever it answers, for every
 * family and type, short and multi-chunk (where integer data take the
 * scan's exact path over some chunks and not others); it refuses data
 * holding NaN or Inf and cases past DF_REFS_CHUNK. */
static void permuted_matches(df_type t, uint32_t fam, uint64_t seed, uint64_t n,
                             derive_run *dr)
{
    void *a = dr->a, *b = dr->b;
    df_pcg32 r;
    df_pcg32_seed(&r, seed, n);
    cr_assert_eq(df_fill_values(fam, &r, t, a, b, n), 0);
    df_refs own, perm, want;
    df_refs_compute(t, a, b, n, &own);
    df_shuffle_pairs(a, b, df_type_size(t), n, &r, perm_draw);
    df_refs_compute(t, a, b, n, &want);
    memset(&perm, 0x5a, sizeof perm);
    if (df_refs_permuted(t, a, b, n, &own, &perm) != 0) {
        cr_assert(own.has_nonfinite || n > DF_REFS_CHUNK, "refused family %u n %llu", fam,
                  (unsigned long long)n);
        dr->refused++;
        return;
    }
    cr_assert_eq(memcmp(&perm, &want, sizeof want), 0,
                 "family %u %s n %llu: kahan %a / %a, err %a / %a, G %a / %a", fam,
                 df_type_name(t), (unsigned long long)n, perm.kahan, want.kahan,
                 perm.kahan_err, want.kahan_err, perm.G, want.G);
    dr->derived++;
}

Test(refs, permuted_from_the_case_own_equal_computed)
{
    static const uint64_t ns[] = {1, 2, 33, 2000, 5003, DF_REFS_CHUNK, DF_REFS_CHUNK + 1};
    const uint64_t nmax = DF_REFS_CHUNK + 1;
    derive_run dr = {malloc(nmax * 8), NULL, malloc(nmax * 8), 0, 0};
    cr_assert(dr.a && dr.b);
    over_families(ns, sizeof ns / sizeof ns[0], 6, 1, 300, &dr, permuted_matches);
    cr_assert_gt(dr.derived, 500, "%u derived, %u refused", dr.derived, dr.refused);
    cr_assert_gt(dr.refused, 0, "%u derived, %u refused", dr.derived, dr.refused);
    free(dr.a), free(dr.b);
}

/* df_refs_permuted_many, the permute copies' Kahan sums side by side in
 * vector lanes, gives each job what df_refs_permuted gives it alone, and
 * refuses the same ones (data holding NaN or Inf): 70 jobs of every type
 * and family, lengths 1 to 3000 mixed (so lanes leave at different
 * lengths, and more than one group of sixteen a type). */
Test(refs, permuted_many_equal_one_at_a_time)
{
    enum { M = 70, NMAX = 3000 };
    static const df_type types[] = {DF_F32, DF_F64, DF_I32};
    unsigned char *buf = malloc((size_t)M * 2 * NMAX * 8);
    df_refs own[M], one[M], many[M];
    df_refs_job jobs[M];
    unsigned char ok[M];
    int want_ok[M];
    cr_assert(buf);
    size_t m = 0, refused = 0;
    df_pcg32 lens;
    df_pcg32_seed(&lens, 77, 1);
    for (size_t i = 0; m < M; i++) {
        const df_family *fam = df_family_at(i % df_family_count());
        df_type t = types[(i / df_family_count()) % 3];
        if (!(fam->types & DF_TYPE_BIT(t)))
            continue;
        uint64_t n = 1 + df_pcg32_bounded(&lens, NMAX);
        void *a = buf + m * 2 * NMAX * 8, *b = (unsigned char *)a + NMAX * 8;
        df_pcg32 r;
        df_pcg32_seed(&r, 900 + i, n);
        cr_assert_eq(df_fill_values(fam->id, &r, t, a, b, n), 0);
        df_refs_compute(t, a, b, n, &own[m]);
        df_shuffle_pairs(a, b, df_type_size(t), n, &r, perm_draw);
        memset(&one[m], 0x5a, sizeof one[m]);
        want_ok[m] = df_refs_permuted(t, a, b, n, &own[m], &one[m]) == 0;
        refused += !want_ok[m];
        many[m] = own[m];
        jobs[m] = (df_refs_job){t, a, b, n, &many[m]};
        m++;
    }
    df_refs_permuted_many(jobs, M, ok);
    for (size_t j = 0; j < M; j++) {
        cr_assert_eq(ok[j], want_ok[j], "job %zu", j);
        if (ok[j])
            cr_assert_eq(memcmp(&many[j], &one[j], sizeof one[j]), 0,
                         "job %zu (%s n %llu): kahan %a / %a, G %a / %a", j,
                         df_type_name(jobs[j].t), (unsigned long long)jobs[j].n, many[j].kahan,
                         one[j].kahan, many[j].G, one[j].G);
        else
            cr_assert_eq(memcmp(&many[j], &own[j], sizeof own[j]), 0, "refused: untouched");
    }
    cr_assert_gt(refused, 0);
    cr_assert_lt(refused, M / 2);
    free(buf);
}

/* df_refs_scaled(refs of (a, b), 2^k a) is, bit for bit, df_refs_compute
 * of (2^k a, b) wherever it answers, for f32 data of every family, short
 * and multi-chunk, k from -6 to 6, where 2^k a is exact (no element
 * rounded: as df_scale_is_exact requires). Returns through *derived and
 * *refused how often it did each. */
static void scaled_matches(uint32_t fam, uint64_t seed, uint64_t n, int k, float *a, float *a2,
                           float *b, unsigned *derived, unsigned *refused)
{
    df_pcg32 r;
    df_pcg32_seed(&r, seed, n);
    cr_assert_eq(df_fill_values(fam, &r, DF_F32, a, b, n), 0);
    const float f = ldexpf(1.0f, k);
    for (uint64_t i = 0; i < n; i++) {
        a2[i] = a[i] * f;
        if (!isfinite(a[i]) || (double)a2[i] != ldexp((double)a[i], k))
            return; /* the scaling is not exact: no scale copy */
    }
    df_refs own, sc, want;
    df_refs_compute(DF_F32, a, b, n, &own);
    df_refs_compute(DF_F32, a2, b, n, &want);
    memset(&sc, 0x5a, sizeof sc);
    if (df_refs_scaled(DF_F32, a2, b, n, k, &own, &sc) != 0) {
        (*refused)++;
        return;
    }
    cr_assert_eq(memcmp(&sc, &want, sizeof want), 0,
                 "family %u n %llu k %d: kahan %a / %a, err %a / %a, G %a / %a, exact %a %a / "
                 "%a %a, int %d / %d",
                 fam, (unsigned long long)n, k, sc.kahan, want.kahan, sc.kahan_err,
                 want.kahan_err, sc.G, want.G, sc.exact_hi, sc.exact_lo, want.exact_hi,
                 want.exact_lo, sc.exact_is_int, want.exact_is_int);
    (*derived)++;
}

Test(refs, scaled_from_the_case_own_equal_computed)
{
    static const uint64_t ns[] = {1, 2, 33, 2000, 5003, DF_REFS_CHUNK};
    const uint64_t nmax = DF_REFS_CHUNK + 1;
    float *a = malloc(nmax * 4), *a2 = malloc(nmax * 4), *b = malloc(nmax * 4);
    cr_assert(a && a2 && b);
    unsigned derived = 0, refused = 0;
    for (size_t fi = 0; fi < df_family_count(); fi++) {
        const df_family *fam = df_family_at(fi);
        if (!(fam->types & DF_TYPE_BIT(DF_F32)))
            continue;
        for (size_t m = 0; m < sizeof ns / sizeof ns[0]; m++)
            for (uint64_t seed = 1; seed <= (ns[m] > 5003 ? 1u : 4u); seed++)
                for (int k = -6; k <= 6; k++)
                    if (k != 0)
                        scaled_matches(fam->id, 100 * fi + seed, ns[m], k, a, a2, b, &derived,
                                       &refused);
    }
    cr_assert_gt(derived, 1000, "%u derived, %u refused", derived, refused);
    cr_assert_lt(refused, derived / 10, "%u derived, %u refused", derived, refused);
    /* past DF_REFS_CHUNK, f64 data, NaN data: refused */
    df_refs own, sc;
    for (uint64_t i = 0; i < nmax; i++)
        a[i] = 1.0f, a2[i] = 2.0f, b[i] = 3.0f;
    df_refs_compute(DF_F32, a, b, nmax, &own);
    cr_assert_eq(df_refs_scaled(DF_F32, a2, b, nmax, 1, &own, &sc), -1);
    df_refs_compute(DF_F32, a, b, 64, &own);
    cr_assert_eq(df_refs_scaled(DF_F32, a2, b, 64, 1, &own, &sc), 0);
    cr_assert_eq(df_refs_scaled(DF_F32, a2, b, 64, 2, &own, &sc), -1, "not the data scaled");
    cr_assert_eq(df_refs_scaled(DF_F64, a2, b, 32, 1, &own, &sc), -1);
    a[5] = NAN, a2[5] = NAN;
    df_refs_compute(DF_F32, a, b, 64, &own);
    cr_assert_eq(df_refs_scaled(DF_F32, a2, b, 64, 1, &own, &sc), -1);
    free(a), free(a2), free(b);
}

Test(refs, negated_from_the_case_own_equal_computed)
{
    static const uint64_t ns[] = {1, 2, 33, 2000, 5003, DF_REFS_CHUNK + 1,
                                  2 * DF_REFS_CHUNK + 999};
    const uint64_t nmax = 2 * DF_REFS_CHUNK + 999;
    derive_run dr = {malloc(nmax * 8), malloc(nmax * 8), malloc(nmax * 8), 0, 0};
    cr_assert(dr.a && dr.a2 && dr.b);
    void *a = dr.a, *a2 = dr.a2, *b = dr.b;
    over_families(ns, sizeof ns / sizeof ns[0], 12, 2, 100, &dr, negated_matches);
    cr_assert_gt(dr.derived, 1000, "%u derived", dr.derived);
    /* all zeros: Kahan's sum +0 is refused; NaN data is refused */
    memset(a, 0, 64 * 4), memset(b, 0, 64 * 4);
    df_refs own, neg;
    df_refs_compute(DF_F32, a, b, 64, &own);
    cr_assert_eq(df_refs_negated(DF_F32, &own, &neg), -1);
    ((float *)a)[3] = NAN;
    df_refs_compute(DF_F32, a, b, 64, &own);
    cr_assert_eq(df_refs_negated(DF_F32, &own, &neg), -1);
    free(a), free(a2), free(b);
}
