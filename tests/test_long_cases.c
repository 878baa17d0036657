/* test_long_cases.c — cases longer than DF_GEN_CHUNK (fuzz/gen/values.h): made
 * in chunks, the same bytes whichever order the chunks are made in (on a
 * pool's threads too), and still what each family promises. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/gen/generator.h"
#include "fuzz/gen/values.h"
#include "fuzz/long_case.h"
#include "reference/reference.h"
#include "tests/cli_helpers.h"
#include "tests/gen_fakes.h"

#define C DF_GEN_CHUNK

static const df_type types[] = {DF_F32, DF_F64, DF_I32};

/* Steps (*fi, *k) to the next family and element type it makes: every
 * family (df_family_at(*fi)) in each of its types (types[*k]), from *fi = 0,
 * *k = -1. Returns 0 past the last. */
static int next_family_type(size_t *fi, int *k)
{
    for (;;) {
        if (++*k == 3)
            *k = 0, ++*fi;
        if (*fi >= df_family_count())
            return 0;
        if (df_family_at(*fi)->types & DF_TYPE_BIT(types[*k]))
            return 1;
    }
}

/* The case (seed, index) of family f made the way the engine's threads
 * make it: the plan, the chunks last to first (df_generate_chunk), their
 * sums, the finish. Returns 0, or -1 when f has no long form. */
static int fill_by_chunks(uint32_t f, df_type t, uint64_t seed, uint64_t index, void *a,
                          void *b, uint64_t n)
{
    df_pcg32 r;
    df_pcg32_seed(&r, seed, index);
    df_vplan p;
    if (df_values_plan(f, &r, t, n, &p) != 0)
        return -1;
    uint64_t m = df_vplan_chunks(&p);
    df_vchunk *ch = calloc(m, sizeof *ch);
    cr_assert(ch);
    for (uint64_t j = m; j-- > 0;)
        df_generate_chunk(&p, a, b, j, &ch[j]);
    df_values_finish_parts(&p, &r, a, b, ch);
    free(ch);
    return 0;
}

static void fill_one_thread(uint32_t f, df_type t, uint64_t seed, uint64_t index, void *a,
                            void *b, uint64_t n)
{
    df_pcg32 r;
    df_pcg32_seed(&r, seed, index);
    cr_assert_eq(df_fill_values(f, &r, t, a, b, n), 0);
}

Test(long_cases, chunks_in_any_order_give_the_one_thread_bytes)
{
    static const uint64_t ns[] = {C + 1, 2 * C + 3, 3 * C - 1, 3 * C};
    size_t max = 3 * C * 8;
    unsigned char *a = malloc(max), *b = malloc(max), *a2 = malloc(max), *b2 = malloc(max);
    cr_assert(a && b && a2 && b2);
    int checked = 0;
    size_t fi = 0;
    int k = -1;
    while (next_family_type(&fi, &k)) {
        const df_family *fam = df_family_at(fi);
        size_t es = df_type_size(types[k]);
        for (size_t m = 0; m < sizeof ns / sizeof ns[0]; m++) {
            uint64_t n = ns[m], index = fi * 16 + m;
            memset(a, 0xa5, max), memset(b, 0xa5, max);
            memset(a2, 0x5a, max), memset(b2, 0x5a, max);
            fill_one_thread(fam->id, types[k], 31, index, a, b, n);
            cr_assert_eq(fill_by_chunks(fam->id, types[k], 31, index, a2, b2, n), 0);
            cr_assert(memcmp(a, a2, n * es) == 0 && memcmp(b, b2, n * es) == 0,
                      "%s %s n %llu: the chunks' bytes differ", fam->name,
                      df_type_name(types[k]), (unsigned long long)n);
            checked++;
        }
    }
    cr_assert_eq(checked, 4 * (10 * 2 + 6), "every family in each of its types");
    free(a), free(b), free(a2), free(b2);
}

Test(long_cases, chunks_draw_from_streams_of_their_own)
{
    /* uniform: chunk 1 is not chunk 0 again, and the plan's key depends on
     * the case */
    uint64_t n = 2 * C;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    float *a2 = malloc(n * sizeof *a2), *b2 = malloc(n * sizeof *b2);
    cr_assert(a && b && a2 && b2);
    fill_one_thread(DF_FAM_UNIFORM, DF_F32, 5, 0, a, b, n);
    fill_one_thread(DF_FAM_UNIFORM, DF_F32, 5, 1, a2, b2, n);
    cr_assert_neq(memcmp(a, a + C, C * sizeof *a), 0);
    cr_assert_neq(memcmp(a, a2, n * sizeof *a), 0);
    cr_assert_neq(memcmp(a + C, a2 + C, C * sizeof *a), 0);
    for (uint64_t i = 0; i < n; i++)
        cr_assert(a[i] >= -50 && a[i] < 50 && b[i] >= -50 && b[i] < 50);
    free(a), free(b), free(a2), free(b2);
}

/* |x| <= lim and integral */
static int int_within(double x, double lim) { return fabs(x) <= lim && x == floor(x); }

Test(long_cases, each_family_keeps_its_promise)
{
    uint64_t n = 3 * C + 7;
    size_t max = n * 8;
    unsigned char *a = malloc(max), *b = malloc(max);
    cr_assert(a && b);
    for (int k = 0; k < 3; k++) {
        df_type t = types[k];
        int cancel_ints = 0, sparse_seen = 0, special_seen = 0;
        for (uint64_t i = 0; i < 12; i++) {
            /* int-small: integers in [-50, 50] */
            fill_one_thread(DF_FAM_INT_SMALL, t, 9, i, a, b, n);
            for (uint64_t j = 0; j < n; j++)
                cr_assert(int_within(df_elem_as_double(t, a, j), 50) &&
                          int_within(df_elem_as_double(t, b, j), 50));
            /* sparse: 1 to 16 nonzero pairs, zeros elsewhere */
            fill_one_thread(DF_FAM_SPARSE, t, 9, i, a, b, n);
            uint64_t nz = 0;
            for (uint64_t j = 0; j < n; j++) {
                double x = df_elem_as_double(t, a, j), y = df_elem_as_double(t, b, j);
                cr_assert_eq(x != 0, y != 0);
                nz += x != 0;
            }
            cr_assert(nz >= 1 && nz <= 16, "sparse: %llu pairs", (unsigned long long)nz);
            sparse_seen++;
            /* cancel: the integer cases' exact dot is the small terms' */
            fill_one_thread(DF_FAM_CANCEL, t, 9, i, a, b, n);
            int integral = 1;
            long long s = 0;
            double top = t == DF_I32 ? 46340 : 50;
            for (uint64_t j = 0; j < n; j++) {
                double x = df_elem_as_double(t, a, j), y = df_elem_as_double(t, b, j);
                cr_assert(x != 0 && y != 0 && isfinite(x) && isfinite(y));
                integral &= int_within(x, top) && int_within(y, top);
                s += integral ? (long long)x * (long long)y : 0;
            }
            if (integral) {
                cancel_ints++;
                cr_assert(s >= -45 && s <= 45, "cancel: s = %lld", s);
            }
            if (t == DF_I32)
                continue;
            /* special: 1 to 6 values outside the ordinary ones */
            fill_one_thread(DF_FAM_SPECIAL, t, 9, i, a, b, n);
            int odd = 0;
            for (uint64_t j = 0; j < n; j++)
                for (int v = 0; v < 2; v++) {
                    double x = df_elem_as_double(t, v ? b : a, j);
                    odd += !(fabs(x) <= 50 && (x != 0 || !signbit(x)) &&
                             (x == 0 || fabs(x) >= 0x1p-24));
                }
            cr_assert(odd <= 6, "special: %d", odd);
            special_seen += odd > 0;
        }
        cr_assert_gt(cancel_ints, 2, "%s: integer cancel cases", df_type_name(t));
        cr_assert_eq(sparse_seen, 12);
        if (t != DF_I32)
            cr_assert_gt(special_seen, 6, "%s: specials seen in %d cases", df_type_name(t),
                         special_seen);
    }
    free(a), free(b);
}

/* References of cases past DF_REFS_CHUNK (reference.h): the parts made in
 * any order (last first here, as threads may finish them) and merged in
 * chunk order are df_refs_compute's refs bit for bit; the exact dot they
 * merge is the whole case's (df_exact_dot's digits), the classes are the
 * data's, and the Kahan sum lies within its bound of the exact dot. */
Test(long_cases, references_in_parts_are_the_whole_cases)
{
    static const uint64_t ns[] = {DF_REFS_CHUNK + 1, 3 * DF_REFS_CHUNK + 17};
    size_t max = ns[1] * 8;
    unsigned char *a = malloc(max), *b = malloc(max);
    df_refs_part *parts = malloc(4 * sizeof *parts);
    cr_assert(a && b && parts);
    int checked = 0, inexact_kahan = 0, inf_checked = 0;
    for (size_t fi = 0; fi < df_family_count(); fi++) {
        const df_family *fam = df_family_at(fi);
        for (int k = 0; k < 3; k++) {
            df_type t = types[k];
            if (!(fam->types & DF_TYPE_BIT(t)))
                continue;
            for (size_t m = 0; m < 2; m++) {
                uint64_t n = ns[m], chunks = df_refs_chunks(n);
                cr_assert_eq(chunks, m ? 4u : 2u);
                fill_one_thread(fam->id, t, 41, fi * 8 + m, a, b, n);
                df_refs whole, merged;
                df_refs_compute(t, a, b, n, &whole);
                for (uint64_t j = chunks; j-- > 0;)
                    df_refs_part_compute(t, a, b, n, j, &parts[j]);
                df_refs_merger mg;
                df_refs_merge_init(&mg);
                for (uint64_t j = 0; j < chunks; j++)
                    df_refs_merge_add(&mg, &parts[j]);
                df_refs_merge_out(&mg, t, n, &merged);
                cr_assert_eq(memcmp(&whole, &merged, sizeof whole), 0, "%s %s n %llu",
                             fam->name, df_type_name(t), (unsigned long long)n);
                /* the classes and maxima, from the data */
                int nonfinite = 0, nan = 0, pos = 0, neg = 0, zero_inf = 0;
                double ma = 0, mb = 0;
                for (uint64_t i = 0; i < n; i++) {
                    double x = df_elem_as_double(t, a, i), y = df_elem_as_double(t, b, i);
                    nonfinite |= !isfinite(x) || !isfinite(y);
                    nan |= isnan(x) || isnan(y);
                    ma = fabs(x) > ma ? fabs(x) : ma;
                    mb = fabs(y) > mb ? fabs(y) : mb;
                    if (isinf(x) || isinf(y)) {
                        zero_inf |= x == 0 || y == 0;
                        neg |= x != 0 && y != 0 && (x < 0) != (y < 0);
                        pos |= x != 0 && y != 0 && (x < 0) == (y < 0);
                    }
                }
                cr_assert_eq(whole.has_nonfinite, nonfinite, "%s", fam->name);
                cr_assert_eq(whole.has_nan, nan, "%s", fam->name);
                if (nonfinite && !nan) { /* the class of the sum over Inf inputs */
                    inf_checked++;
                    if (zero_inf || (pos && neg))
                        cr_assert(isnan(whole.inf_want), "%s: %a", fam->name, whole.inf_want);
                    else
                        cr_assert_eq(whole.inf_want, pos ? INFINITY : -INFINITY, "%s: %a",
                                     fam->name, whole.inf_want);
                }
                if (!nonfinite)
                    cr_assert(whole.max_abs_a == ma && whole.max_abs_b == mb, "%s", fam->name);
                if (nonfinite)
                    continue;
                df_exact ex;
                cr_assert_eq(df_exact_dot(t, a, b, n, &ex), 0);
                cr_assert(whole.exact_known, "%s %s", fam->name, df_type_name(t));
                cr_assert(whole.exact_hi == ex.hi && whole.exact_lo == ex.lo, "%s %s: %a %a",
                          fam->name, df_type_name(t), whole.exact_hi, ex.hi);
                if (t != DF_I32)
                    cr_assert_eq(memcmp(whole.fp.mag, ex.mag, sizeof ex.mag), 0, "%s", fam->name);
                /* G is sum |a_i b_i|, to within its rounding */
                double g1 = df_abs_dot(t, a, b, n);
                cr_assert(fabs(whole.G - g1) <= (double)n * 0x1p-52 * g1, "%s %s: G %a, %a",
                          fam->name, df_type_name(t), whole.G, g1);
                double err = df_exact_abs_err(&ex, whole.kahan);
                cr_assert(err <= whole.kahan_err, "%s %s: Kahan off by %a, bound %a", fam->name,
                          df_type_name(t), err, whole.kahan_err);
                inexact_kahan += err > 0;
                checked++;
            }
        }
    }
    cr_assert_gt(checked, 30);
    cr_assert_gt(inexact_kahan, 0, "some case where Kahan's sum is not exact, to bound");
    cr_assert_gt(inf_checked, 0, "some case with Inf inputs and no NaN");
    free(a), free(b), free(parts);
}

/* A long case whose Inf products meet a 0 or each other in one chunk alone:
 * the merged class is NaN, as the whole case's is; Inf products of one sign
 * in two chunks keep it. */
Test(long_cases, references_in_parts_keep_the_class_of_inf_sums)
{
    uint64_t n = 2 * DF_REFS_CHUNK + 5;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    cr_assert(a && b);
    for (uint64_t i = 0; i < n; i++)
        a[i] = 1.0f, b[i] = -2.0f;
    a[3] = INFINITY, b[3] = 0.0f; /* 0 * Inf in chunk 0 */
    df_refs r;
    df_refs_compute(DF_F32, a, b, n, &r);
    cr_assert(r.has_nonfinite && !r.has_nan && isnan(r.inf_want), "%a", r.inf_want);
    b[3] = 5.0f;                               /* +Inf in chunk 0 */
    a[DF_REFS_CHUNK + 7] = -INFINITY;          /* -Inf * -2: +Inf in chunk 1 */
    df_refs_compute(DF_F32, a, b, n, &r);
    cr_assert_eq(r.inf_want, INFINITY);
    cr_assert_eq(r.fin_g, 2.0 * (double)(n - 2), "the finite products alone");
    b[2 * DF_REFS_CHUNK + 1] = INFINITY;       /* 1 * +Inf in chunk 2: still + */
    df_refs_compute(DF_F32, a, b, n, &r);
    cr_assert_eq(r.inf_want, INFINITY);
    a[2 * DF_REFS_CHUNK + 2] = -1.0f, b[2 * DF_REFS_CHUNK + 2] = INFINITY; /* -Inf in chunk 2 */
    df_refs_compute(DF_F32, a, b, n, &r);
    cr_assert(isnan(r.inf_want), "signs meet across chunks: %a", r.inf_want);
    free(a), free(b);
}

/* A long case made on a pool's threads (fuzz/long_case.h) is df_generate's
 * case, bytes and all, and its references made there are df_refs_compute's
 * bit for bit: every family in each of its types (the low-precision ones
 * made whole), at a length of several chunks and a partial one, on more
 * threads than chunks of a round. */
Test(long_cases, made_and_referenced_on_a_pool_as_on_one_thread)
{
    const uint64_t n = 5 * C + 17;
    df_pool *pool = df_pool_create(4);
    cr_assert(pool);
    df_scratch one = {0}, many = {0};
    int checked = 0;
    for (size_t fi = 0; fi < df_family_count(); fi++) {
        const df_family *fam = df_family_at(fi);
        for (unsigned t = DF_F32; t <= DF_TYPE_MAX; t++) {
            if (!(fam->types & DF_TYPE_BIT(t)))
                continue;
            df_kernel kern = df_fake_free_f32;
            kern.elem = (df_type)t;
            kern.max_n = 0;
            kern.flags |= fam->wide_only ? DF_K_ACC_WIDE : 0;
            df_gen_opts o = {.max_n = 4096, .family = fam->id, .fixed_n = n};
            uint64_t index = 100 + fi * 8 + t;
            df_case c1, c2;
            cr_assert_eq(df_generate(17, index, &kern, &o, &one, &c1), 0);
            cr_assert_eq(df_generate_pool(pool, 17, index, &kern, &o, &many, &c2), 0);
            size_t bytes = (size_t)n * df_type_size((df_type)t);
            const char *tn = df_type_name((df_type)t);
            cr_assert(c1.n == n && c2.n == n && c1.family == c2.family &&
                          memcmp(&c1.launch, &c2.launch, sizeof c1.launch) == 0,
                      "%s %s: the case's shape", fam->name, tn);
            cr_assert(memcmp(c1.a, c2.a, bytes) == 0 && memcmp(c1.b, c2.b, bytes) == 0,
                      "%s %s: the pool's bytes differ", fam->name, tn);
            df_refs whole, pooled;
            df_refs_compute((df_type)t, c1.a, c1.b, n, &whole);
            df_refs_compute_pool(pool, (df_type)t, c1.a, c1.b, n, &pooled);
            cr_assert_eq(memcmp(&whole, &pooled, sizeof whole), 0, "%s %s: references",
                         fam->name, tn);
            checked++;
        }
    }
    cr_assert_eq(checked, 10 * 2 + 6 + 4 * 4, "every family in each of its types");
    df_scratch_free(&one);
    df_scratch_free(&many);
    df_pool_destroy(pool);
}

/* The peak resident memory of a run of shfl on the host over `cases`
 * cases with extra options, in KB (the process tree's: the worker's). */
static long run_peak_kb(const char *d, const char *extra, unsigned cases)
{
    char out[4096];
    int rc = df_test_sh(out, sizeof out,
                        "python3 -c 'import resource, subprocess, sys; "
                        "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode; "
                        "print(r, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "
                        "./dotfuzz run --backend host --kernel shfl --cases %u --seed 1 %s "
                        "--quiet --save-precision none --corpus %s/c", cases, extra, d);
    cr_assert_eq(rc, 0, "%s", out);
    int status = -1;
    long kb = 0;
    cr_assert_eq(sscanf(out, "%d %ld", &status, &kb), 2, "%s", out);
    cr_assert_eq(status, 0, "%s", out);
    return kb;
}

/* A run lets each long case's buffers go once its slot takes a short one:
 * 100,000 cases of shfl hold six long cases (up to 2^22 elements, 32 MiB
 * of vectors each) in slots that move with the worker's ranges. Kept,
 * every slot a long case passed through held its vectors for the rest of
 * the run (190 MB over the same run without long cases here, growing by
 * about 20 MB/s on two cores); let go, one long case's worth. */
Test(long_cases, a_run_keeps_no_long_case_buffers, .timeout = 120)
{
    const char *d = df_test_tmpdir("long-rss");
    long shorts = run_peak_kb(d, "--long-n 0", 20000);
    long longs = run_peak_kb(d, "", 100000);
    cr_assert_lt(longs - shorts, 100 * 1024,
                 "peak RSS %ld KB against %ld KB without long cases: their buffers kept", longs,
                 shorts);
}
