/* test_huge.c — huge cases (run's and hunt's --huge): which kernels take
 * lengths past 2^31 (DF_K_LEN64) and how many fit a byte budget, which
 * indices are huge (one a window, the kernels of the mask in turn, none
 * for the others) and the lengths drawn for them, all without making a
 * vector: the lengths come from df_generate_stream and df_generate_shape,
 * which allocate nothing. Then the command line: --huge refused on the
 * host backend and without a kernel that takes it, its options without
 * it. Then m-idx32: its 32-bit index against the GPU's arithmetic at
 * indices past 2^31 (the helper alone: no vector that long), its model a
 * correct sum below 2^31, and hunt skipping it without huge cases. Runs
 * ./dotfuzz from the repository root for the command line. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz/check/check.h"
#include "fuzz/check/metamorphic.h"
#include "fuzz/gen/generator.h"
#include "kernels/mutants/idx32_model.h"
#include "tests/cli_helpers.h"
#include "tests/gen_fakes.h"
#include "tests/host_helpers.h"

#define OUT_MAX (1 << 14)
static char out[OUT_MAX];
#define sh(...) df_test_sh(out, OUT_MAX, __VA_ARGS__)

/* f32, grid-stride, 64-bit lengths */
static const df_kernel k_len64_f32 = {
    .name = "fake-len64-f32", .origin = "test", .summary = "test",
    .elem = DF_F32, .acc = DF_F32, .flags = DF_K_GRID_FREE | DF_K_LEN64,
    .block_min = 32, .block_max = 1024, .block_default = 256,
    .grid_max = 65535, .per_thread = 8, .max_n = 0,
};

/* f64, grid derived from n, 64-bit lengths */
static const df_kernel k_len64_f64 = {
    .name = "fake-len64-f64", .origin = "test", .summary = "test",
    .elem = DF_F64, .acc = DF_F64, .flags = DF_K_LEN64,
    .block_min = 64, .block_max = 512, .block_default = 256,
    .grid_max = 0, .per_thread = 1, .max_n = 0,
};

/* 64-bit lengths, but one thread a block and a grid derived from n: at
 * most 2^31 - 1 blocks of one element */
static const df_kernel k_len64_block1 = {
    .name = "fake-len64-block1", .origin = "test", .summary = "test",
    .elem = DF_F32, .acc = DF_F32, .flags = DF_K_LEN64,
    .block_min = 1, .block_max = 1, .block_default = 1,
    .grid_max = 0, .per_thread = 1, .max_n = 0,
};

static const uint64_t GiB = (uint64_t)1 << 30;

Test(huge, the_budget_decides_which_types_take_huge_cases)
{
    const uint64_t dflt = DF_GEN_HUGE_BYTES_DEFAULT;
    cr_assert_eq(df_gen_huge_limit(&k_len64_f32, dflt), DF_GEN_HUGE_MAX);
    cr_assert_eq(df_gen_huge_limit(&k_len64_f64, dflt), 0, "no f64 case in 17 GiB");
    cr_assert_eq(df_gen_huge_limit(&k_len64_f64, 33 * GiB), DF_GEN_HUGE_MAX);
    /* exactly DF_GEN_HUGE_MIN doubles twice, and a byte less */
    cr_assert_eq(df_gen_huge_limit(&k_len64_f64, 16 * DF_GEN_HUGE_MIN), DF_GEN_HUGE_MIN);
    cr_assert_eq(df_gen_huge_limit(&k_len64_f64, 16 * DF_GEN_HUGE_MIN - 1), 0);
    cr_assert_eq(df_gen_huge_limit(&k_len64_f32, 8 * DF_GEN_HUGE_MIN + 8 * 1000),
                 DF_GEN_HUGE_MIN + 1000);
    /* without the trait, or with a max_n below 2^31 + 1: none */
    cr_assert_eq(df_gen_huge_limit(&df_fake_free_f32, 64 * GiB), 0);
    df_kernel capped = k_len64_f32;
    capped.max_n = (uint64_t)1 << 31;
    cr_assert_eq(df_gen_huge_limit(&capped, 64 * GiB), 0);
    capped.max_n = DF_GEN_HUGE_MIN + 5;
    cr_assert_eq(df_gen_huge_limit(&capped, 64 * GiB), DF_GEN_HUGE_MIN + 5);
    /* 16.5 GiB: the longest f32 case */
    cr_assert_eq(8 * DF_GEN_HUGE_MAX, 33 * GiB / 2);
}

/* The built-in kernels that take lengths past 2^31: those whose every
 * index and count is 64-bit and whose scratch does not grow with n.
 * int-atomic's max_n stops it; fold and tournament keep a cell and an
 * invariant shadow per element (42 GiB at 2^31), and are not flagged. */
Test(huge, the_len64_kernels_are_the_ones_checked_for_it)
{
    static const char *const len64[] = {"atomic-block", "tree-hostsum", "shfl", "shfl-f64acc",
                                        "shfl-f64", "cublas-sdot", "cublas-ddot"};
    size_t flagged = 0;
    for (size_t i = 0; i < df_kernel_count(); i++) {
        const df_kernel *k = df_kernel_at(i);
        int want = 0;
        for (size_t j = 0; j < sizeof len64 / sizeof len64[0]; j++)
            want |= strcmp(k->name, len64[j]) == 0;
        cr_assert_eq((k->flags & DF_K_LEN64) != 0, want, "%s", k->name);
        flagged += want;
        if (want)
            cr_assert(k->max_n == 0 || k->max_n >= DF_GEN_HUGE_MAX, "%s", k->name);
    }
    cr_assert_eq(flagged, sizeof len64 / sizeof len64[0]);
    const df_kernel *ks[] = {df_kernel_find("fold"), df_kernel_find("shfl"),
                             df_kernel_find("shfl-f64"), df_kernel_find("int-atomic"),
                             df_kernel_find("cublas-sdot")};
    cr_assert_eq(df_gen_huge_mask(ks, 5, DF_GEN_HUGE_BYTES_DEFAULT), 0x12u);
    cr_assert_eq(df_gen_huge_mask(ks, 5, 33 * GiB), 0x16u);
}

/* A cycle of ten kernels of which those at 3 and 8 take huge cases: one
 * huge index a window of huge_every, in the last ten of the window, the
 * two kernels in turn; df_gen_next_huge finds each from anywhere before. */
Test(huge, one_index_a_window_goes_to_the_masked_kernels_in_turn)
{
    const uint64_t E = 1000, K = 10, windows = 500;
    df_gen_opts o = {.max_n = 4096, .huge_every = E, .huge_bytes = DF_GEN_HUGE_BYTES_DEFAULT,
                     .cycle = (uint32_t)K, .huge_mask = (1u << 3) | (1u << 8)};
    uint64_t count = 0, last = 0, seen[2] = {0, 0};
    for (uint64_t i = 0; i < E * windows; i++) {
        if (!df_gen_is_huge(&o, i))
            continue;
        uint64_t j = i / E, p = i % K;
        cr_assert(i % E >= E - K, "index %llu: not among its window's last ten",
                  (unsigned long long)i);
        cr_assert_eq(p, j % 2 ? 8u : 3u, "window %llu: kernel %llu", (unsigned long long)j,
                     (unsigned long long)p);
        cr_assert_eq(j, count, "two huge indices in window %llu", (unsigned long long)j);
        if (count)
            cr_assert_geq(i - last, E - K + 1);
        cr_assert_eq(df_gen_next_huge(&o, last ? last + 1 : 0), i);
        cr_assert_eq(df_gen_next_huge(&o, i), i);
        seen[p == 8]++;
        last = i;
        count++;
    }
    cr_assert_eq(count, windows);
    cr_assert_eq(seen[0], windows / 2);
    cr_assert_eq(seen[1], windows / 2);
    /* no window, no mask, or a window shorter than the cycle: none */
    df_gen_opts off = o;
    off.huge_every = 0;
    cr_assert_eq(df_gen_next_huge(&off, 0), UINT64_MAX);
    off = o;
    off.huge_mask = 1u << 12; /* past the cycle */
    cr_assert_eq(df_gen_next_huge(&off, 0), UINT64_MAX);
    off = o;
    off.huge_every = K - 1;
    cr_assert_eq(df_gen_next_huge(&off, 0), UINT64_MAX);
    /* one kernel (hunt's): index % E == E - 1 */
    df_gen_opts one = {.huge_every = 16, .huge_mask = 1};
    for (uint64_t i = 0; i < 100; i++)
        cr_assert_eq(df_gen_is_huge(&one, i), i % 16 == 15, "%llu", (unsigned long long)i);
    cr_assert_eq(df_gen_next_huge(&one, UINT64_MAX - 3), UINT64_MAX);
}

/* n from (seed, index) without vectors: huge indices of a kernel that
 * takes them get n in [2^31 + 1, its limit] (a quarter just past 2^31),
 * the others what they get without --huge; a kernel without the trait
 * never gets one, on the same indices. */
Test(huge, huge_lengths_only_for_len64_kernels_in_their_range)
{
    df_gen_opts off = {.max_n = 4096};
    df_gen_opts on = {.max_n = 4096, .huge_every = 4, .huge_bytes = DF_GEN_HUGE_BYTES_DEFAULT,
                      .cycle = 1, .huge_mask = 1};
    const df_kernel *ks[] = {&k_len64_f32, &df_fake_free_f32, &k_len64_f64};
    uint64_t huge = 0, near = 0;
    for (size_t kk = 0; kk < 3; kk++)
        for (uint64_t i = 0; i < 4000; i++) {
            df_pcg32 v1, v2;
            uint32_t f1, f2;
            uint64_t n1, n2;
            cr_assert_eq(df_generate_stream(3, i, ks[kk], &off, &v1, &f1, &n1), 0);
            cr_assert_eq(df_generate_stream(3, i, ks[kk], &on, &v2, &f2, &n2), 0);
            cr_assert_eq(f1, f2);
            cr_assert_eq(memcmp(&v1, &v2, sizeof v1), 0, "the values' stream moved");
            if (kk == 0 && i % 4 == 3) {
                cr_assert(n2 >= DF_GEN_HUGE_MIN && n2 <= DF_GEN_HUGE_MAX, "index %llu: n %llu",
                          (unsigned long long)i, (unsigned long long)n2);
                huge++;
                near += n2 < DF_GEN_HUGE_MIN + 32;
            } else {
                /* not a huge index, no trait (fake-free-f32), or over the
                 * budget (f64 in 17 GiB) */
                cr_assert_eq(n1, n2, "%s index %llu", ks[kk]->name, (unsigned long long)i);
                cr_assert_leq(n2, 4096);
            }
        }
    cr_assert_eq(huge, 1000);
    cr_assert(near > 200 && near < 300, "%llu of 1000 just past 2^31", (unsigned long long)near);
    /* the f64 kernel within 33 GiB, through df_generate_shape (launch
     * resolved, nothing allocated) */
    on.huge_bytes = 33 * GiB;
    df_case c;
    df_pcg32 v;
    cr_assert_eq(df_generate_shape(3, 7, &k_len64_f64, &on, &c, &v), 0);
    cr_assert(c.n >= DF_GEN_HUGE_MIN && c.n <= DF_GEN_HUGE_MAX, "%llu", (unsigned long long)c.n);
    cr_assert_null(c.a);
    cr_assert_eq(c.launch.grid, (c.n + c.launch.block - 1) / c.launch.block);
    /* one element a block: no launch reaches 2^31 + 1, so no huge case */
    for (uint64_t i = 3; i < 400; i += 4) {
        cr_assert_eq(df_generate_shape(3, i, &k_len64_block1, &on, &c, &v), 0);
        cr_assert_leq(c.n, 4096);
    }
}

/* The real kernels' huge cases resolve their launches: shfl's grid
 * clamps at 65,535 and strides, cuBLAS's stays 1. */
Test(huge, real_len64_kernels_resolve_huge_launches)
{
    df_gen_opts on = {.max_n = 65536, .huge_every = 2, .huge_bytes = DF_GEN_HUGE_BYTES_DEFAULT,
                      .cycle = 1, .huge_mask = 1};
    static const char *const names[] = {"shfl", "shfl-f64acc", "tree-hostsum", "cublas-sdot",
                                        "atomic-block"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        const df_kernel *kd = df_kernel_find(names[k]);
        uint64_t huge = 0;
        for (uint64_t i = 1; i < 200; i += 2) {
            df_case c;
            df_pcg32 v;
            cr_assert_eq(df_generate_shape(11, i, kd, &on, &c, &v), 0, "%s %llu", names[k],
                         (unsigned long long)i);
            if (c.n < DF_GEN_HUGE_MIN)
                continue; /* atomic-block with a block of 1 */
            huge++;
            cr_assert_leq(c.n, DF_GEN_HUGE_MAX);
            if (kd->flags & DF_K_GRID_FREE)
                cr_assert(c.launch.grid >= 1 && c.launch.grid <= 65535, "%s", names[k]);
            else
                cr_assert_leq((uint64_t)c.launch.grid, 0x7fffffffu, "%s", names[k]);
        }
        cr_assert_geq(huge, 75, "%s: %llu huge of 100", names[k], (unsigned long long)huge);
    }
}

/* A huge case gets no metamorphic variant: a batch would stage its reruns
 * and copies apart, each 16 GiB and more. Its vectors are never read (a
 * variant would need them: there are none here); a short case gets its
 * reruns and copies from the same call. */
Test(huge, a_huge_case_gets_no_metamorphic_variant)
{
    const df_kernel *k = df_kernel_find("shfl");
    df_meta_opts mo = {.every = 1, .reruns = 2};
    df_checked r;
    memset(&r, 0, sizeof r);
    r.res.status = DF_RUN_OK;
    df_case c;
    memset(&c, 0, sizeof c);
    c.type = DF_F32;
    c.n = DF_GEN_HUGE_MIN;
    df_meta_plan p;
    memset(&p, 0, sizeof p);
    cr_assert_eq(df_meta_plan_layout(k, &c, &r, &mo, &p), 0);
    cr_assert_eq(p.nvar, 0, "%zu variants of a huge case", p.nvar);
    cr_assert(df_meta_sampled(&mo, &c));
    cr_assert_eq(df_meta_checked(&mo, &c), 0, "run's meta column would count it");
    float a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    c.n = 8;
    c.a = a;
    c.b = b;
    r.refs.G = 36;
    cr_assert_eq(df_meta_plan_layout(k, &c, &r, &mo, &p), 0);
    cr_assert_geq(p.nvar, 3, "a short case: reruns and copies");
    cr_assert(df_meta_checked(&mo, &c));
    df_meta_plan_free(&p);
}

/* ---- the command line ---- */

/* Each refusal exits 2 (a usage error) with one line naming the option,
 * before any case is made; the backend is host here (no GPU), whether
 * named or chosen by auto. */
Test(huge, huge_is_refused_where_it_cannot_work, .timeout = 60)
{
    static const char *const cases[][2] = {
        {"run --backend host --huge --cases 1", "--huge needs the cuda backend"},
        {"run --huge --kernel shfl --cases 1", "--huge needs the cuda backend"},
        {"run --huge --kernel fold,int-atomic --cases 1", "--huge: no kernel selected"},
        {"run --huge --kernel shfl-f64 --cases 1", "--huge: no kernel selected"},
        {"run --huge-every 600000 --cases 1", "--huge-every has no effect without --huge"},
        {"run --huge-bytes 40G --cases 1", "--huge-bytes has no effect without --huge"},
        {"run --huge --gen gpu --cases 1", "--gen gpu has no effect with --huge"},
        {"hunt --backend host --huge --cases 1", "--huge needs the cuda backend"},
        {"hunt --huge --kernel shfl --cases 1", "--huge needs the cuda backend"},
        {"hunt --huge --kernel fold,m-tail --cases 1", "--huge: no kernel selected"},
        {"hunt --huge-every 4 --cases 1", "--huge-every has no effect without --huge"},
        {"hunt --huge-bytes 1G --cases 1", "--huge-bytes has no effect without --huge"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = sh("./dotfuzz %s", cases[i][0]);
        cr_assert_eq(rc, 2, "%s: exit %d: %s", cases[i][0], rc, out);
        cr_assert(strstr(out, cases[i][1]), "%s: %s", cases[i][0], out);
        cr_assert_null(strchr(out, '\n') ? strchr(strchr(out, '\n') + 1, '\n') : NULL,
                       "%s: more than one line: %s", cases[i][0], out);
    }
    /* shfl-f64 takes huge cases within 33 GiB: then only the backend stops it */
    int rc = sh("./dotfuzz run --huge --huge-bytes 33G --kernel shfl-f64 --cases 1");
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "--huge needs the cuda backend"), "%s", out);
    /* a window shorter than two batches' worth of cases is refused */
    rc = sh("./dotfuzz run --huge --huge-every 524287 --cases 1");
    cr_assert(rc == 2 && strstr(out, "invalid value '524287' for --huge-every"), "%s", out);
    /* --resume takes --huge from the campaign, not the command line */
    rc = sh("./dotfuzz run --resume /tmp/dotfuzz-huge-never --huge");
    cr_assert(rc == 2 && strstr(out, "--huge cannot be given"), "%s", out);
}

/* A campaign that recorded --huge is resumed with it: its file's
 * huge_every makes the resume refuse the host backend as a new run would;
 * a value the command line refuses marks the file damaged. */
Test(huge, a_campaign_file_keeps_huge, .timeout = 60)
{
    char *d = df_test_tmpdir("huge");
    int rc = sh("./dotfuzz run --backend host --kernel shfl --out %s/c --cases 10 --quiet", d);
    cr_assert_eq(rc, 0, "%s", out);
    rc = sh("cp %s/c/campaign %s/campaign.orig && "
            "echo 'huge_every : 524288' >> %s/c/campaign && "
            "./dotfuzz run --resume %s/c --cases 20 --quiet", d, d, d, d);
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "--huge needs the cuda backend"), "%s", out);
    rc = sh("cp %s/campaign.orig %s/c/campaign && echo 'huge_every : 5' >> %s/c/campaign && "
            "./dotfuzz run --resume %s/c --cases 20 --quiet", d, d, d, d);
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "'huge_every'") && strstr(out, "damaged"), "%s", out);
    rc = sh("cp %s/campaign.orig %s/c/campaign && ./dotfuzz run --resume %s/c --cases 20 "
            "--quiet && rm -rf %s", d, d, d, d);
    cr_assert_eq(rc, 0, "%s", out);
}

/* ---- m-idx32 ---- */

static const uint64_t P31 = (uint64_t)1 << 31, P32 = (uint64_t)1 << 32;

/* Thread t reads element t while t < n and t < 2^31; from thread 2^31 on
 * its int index is t - 2^32 < 0, which (size_t)i < n refuses, whatever n:
 * every element from 2^31 on is dropped, and nothing is read out of
 * bounds. At n <= 2^31 that is the correct kernel's map. */
Test(huge, idx32_reads_element_t_below_2_31_and_nothing_past_it)
{
    static const uint64_t ns[] = {0, 1, 1000, P31 - 1, P31, P31 + 1, P31 + 33,
                                  DF_GEN_HUGE_MAX, P32};
    static const uint64_t ts[] = {0, 1, 999, 1000, P31 - 2, P31 - 1, P31, P31 + 1,
                                  P31 + 32, DF_GEN_HUGE_MAX - 1, P32 - 1};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (size_t j = 0; j < sizeof ts / sizeof ts[0]; j++) {
            uint64_t n = ns[i], t = ts[j];
            int64_t want = t < n && t < P31 ? (int64_t)t : -1;
            cr_assert_eq(df_idx32_element(t, n), want, "thread %llu of n %llu",
                         (unsigned long long)t, (unsigned long long)n);
            /* the correct kernel's (a 64-bit index) differs only past 2^31 */
            if (n <= P31)
                cr_assert_eq(df_idx32_element(t, n), t < n ? (int64_t)t : -1);
        }
    /* the elements a huge case loses: all from 2^31 on, 2^26 at most */
    uint64_t lost = 0;
    for (uint64_t t = P31 - 4; t < P31 + 60; t++)
        lost += df_idx32_element(t, P31 + 40) < 0 && t < P31 + 40;
    cr_assert_eq(lost, 40);
}

/* The pairwise sum of p[0..m), m >= 1, written apart from df_idx32_sum as
 * the tree it makes: a power of two halves, any other m is its largest
 * power of two P on the left plus the rest. */
static double pairwise(const double *p, uint64_t m)
{
    uint64_t P = 1;
    while (2 * P <= m)
        P *= 2;
    if (m == 1)
        return p[0];
    if (P == m)
        P /= 2;
    return pairwise(p, P) + pairwise(p + P, m - P);
}

/* The correct sum in m-idx32's order, written apart from its model: each
 * block's products in double, the halving tree, the partials pairwise. */
static double block_tree_sum(const float *a, const float *b, uint64_t n, uint32_t block,
                             double *partial)
{
    double cell[1024];
    uint64_t grid = n ? (n + block - 1) / block : 1;
    for (uint64_t blk = 0; blk < grid; blk++) {
        for (uint32_t t = 0; t < block; t++) {
            uint64_t i = blk * block + t;
            cell[t] = i < n ? (double)a[i] * (double)b[i] : 0.0;
        }
        for (uint32_t h = block / 2; h; h /= 2)
            for (uint32_t t = 0; t < h; t++)
                cell[t] += cell[t + h];
        partial[blk] = cell[0];
    }
    return pairwise(partial, grid);
}

/* Below 2^31 m-idx32 is a correct kernel: its model is the order's correct
 * sum bit for bit, its tree height holds, and the oracle calls no case of
 * the default mix a bug (the exact rule on integer data, the bound and the
 * order set on the rest, all of which a dropped element would break, and
 * the bound with h = 2 + log2 block + log2 grid, which a longer chain of
 * additions would break). The pairwise sum of the partials is the tree
 * the test writes out, bit for bit, for every count up to 1,000, on values
 * whose sums round (so that another tree would show). */
Test(huge, idx32_is_a_correct_sum_below_2_31, .timeout = 120)
{
    const df_kernel *k = df_test_find("m-idx32");
    cr_assert_eq(k->flags & (DF_K_LEN64 | DF_K_HUGE_ONLY), DF_K_LEN64 | DF_K_HUGE_ONLY);
    df_backend *be = df_test_open_host();
    df_scratch buf = {0}, ms = {0};
    df_gen_opts go = {.max_n = 70000};
    static double partial[70000 / 32 + 1];
    df_oracle_opts oo = {.tol = 1e-6};
    for (uint64_t i = 0; i < 1500; i++) {
        df_case c;
        cr_assert_eq(df_generate(77, i, k, &go, &buf, &c), 0);
        df_result r;
        cr_assert_eq(k->host_model(&c, &ms, &r), 0);
        double want = block_tree_sum(c.a, c.b, c.n, c.launch.block, partial);
        cr_assert(memcmp(&r.f, &want, sizeof want) == 0 || (isnan(r.f) && isnan(want)),
                  "case %llu (n %llu, block %u): %a, the order's sum %a",
                  (unsigned long long)i, (unsigned long long)c.n, c.launch.block, r.f, want);
        df_checked ck;
        cr_assert_eq(df_check_case(be, k, &c, &oo, &ck), 0);
        cr_assert_neq(ck.j.verdict, DF_V_BUG, "case %llu: %s: %s", (unsigned long long)i,
                      ck.j.rule, ck.j.why);
    }
    df_scratch_free(&buf);
    df_scratch_free(&ms);
    df_backend_close(be);
    double v[1000];
    for (uint64_t m = 1; m <= 1000; m++) {
        df_idx32_sum s = {{0}, 0};
        for (uint64_t i = 0; i < m; i++) {
            v[i] = ldexp(1.0, (int)(i % 7)) + ldexp(1.0, -40 - (int)(i % 13)); /* rounds */
            df_idx32_sum_add(&s, v[i]);
        }
        double got = df_idx32_sum_total(&s), want = pairwise(v, m);
        cr_assert(memcmp(&got, &want, sizeof got) == 0, "m %llu: %a, the tree %a",
                  (unsigned long long)m, got, want);
    }
    df_idx32_sum empty = {{0}, 0};
    cr_assert(df_idx32_sum_total(&empty) == 0.0 && !signbit(df_idx32_sum_total(&empty)));
}

/* Without huge cases (the host backend never has them) hunt skips m-idx32,
 * saying why, and counts it neither caught nor escaped. */
Test(huge, hunt_skips_idx32_without_huge_cases, .timeout = 60)
{
    int rc = sh("./dotfuzz hunt --backend host --kernel m-idx32,m-tail --cases 200 --time 5");
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "skipped on backend host, its bug needs lengths past 2^31"), "%s", out);
    cr_assert(strstr(out, "0 mutant(s) escaped this oracle, 0 correct kernel(s) with false "
                          "alarms, 1 kernel(s) skipped on backend host"), "%s", out);
}
