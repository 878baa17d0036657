/* test_bandwidth.c — `dotfuzz bandwidth`'s pieces that need no GPU
 * (fuzz/backend/bandwidth.h, fuzz/cmd/cmd_bandwidth.c): the plan of rows
 * (every kernel once, at n or at its max_n, each length of a type with
 * its copy and its cuBLAS baseline), the baseline of each type, the
 * ratios of one type and one length, the low-precision inputs, the
 * oracle's verdict on low-precision rows, the table and Markdown with
 * their n column, and the options. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/backend/bandwidth.h"
#include "fuzz/cmd/cli.h"
#include "fuzz/lowp.h"
#include "kernels/kernel.h"
#include "tests/cli_helpers.h"

#define BIG_N (UINT64_C(1) << 28)

static const df_bw_plan_row *find_row(const df_bw_plan_row *p, size_t count,
                                      const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (p[i].k && strcmp(p[i].k->name, name) == 0)
            return &p[i];
    return NULL;
}

/* The copy row that opens the block row i belongs to. */
static const df_bw_plan_row *block_copy(const df_bw_plan_row *p, size_t i)
{
    while (p[i].k)
        i--;
    return &p[i];
}

Test(bandwidth, plan_puts_each_kernel_at_its_length_with_its_copy_and_baseline)
{
    size_t count = df_kernel_count();
    const df_kernel **ks = malloc(count * sizeof *ks);
    df_bw_plan_row *p = malloc(DF_BW_PLAN_MAX(count) * sizeof *p);
    cr_assert(ks && p);
    for (size_t i = 0; i < count; i++)
        ks[i] = df_kernel_at(i);
    size_t rows = df_bw_plan(BIG_N, ks, count, p);
    cr_assert_leq(rows, DF_BW_PLAN_MAX(count));
    cr_assert_null(p[0].k, "the first row is a copy");
    for (size_t i = 1; i < rows; i++) {
        cr_assert_geq(p[i].type, p[i - 1].type, "types in df_type order");
        if (p[i].type == p[i - 1].type)
            cr_assert_leq(p[i].n, p[i - 1].n, "a type's longest length first");
        if (p[i].type != p[i - 1].type || p[i].n != p[i - 1].n)
            cr_assert_null(p[i].k, "row %zu opens a block with its copy", i);
    }
    for (size_t i = 0; i < rows; i++) {
        const df_bw_plan_row *copy = block_copy(p, i);
        cr_assert(copy->type == p[i].type && copy->n == p[i].n);
        if (!p[i].k)
            continue;
        cr_assert_eq(p[i].k->elem, p[i].type);
        const char *base = df_bw_baseline(p[i].type);
        int is_base = base && strcmp(p[i].k->name, base) == 0;
        if (!is_base)
            cr_assert_eq(p[i].n, df_bw_row_n(p[i].k, BIG_N), "%s", p[i].k->name);
        size_t seen = 0, base_in_block = 0;
        for (size_t j = 0; j < rows; j++) {
            seen += p[j].k == p[i].k;
            base_in_block += base && p[j].k && block_copy(p, j) == copy &&
                             strcmp(p[j].k->name, base) == 0;
        }
        if (!is_base)
            cr_assert_eq(seen, 1, "%s runs once", p[i].k->name);
        if (base && df_kernel_find(base))
            cr_assert_eq(base_in_block, 1, "%s beside %s", base, p[i].k->name);
    }
    for (size_t i = 0; i < count; i++)
        cr_assert_not_null(find_row(p, rows, ks[i]->name), "%s has a row", ks[i]->name);

    /* the low-precision dots at their max_n, beside cuBLAS of their type there */
    static const char *const at_max[][2] = {{"mma-f16", "cublas-hdot"},
                                             {"mma-bf16", "cublas-bfdot"},
                                             {"mma-e4m3", "cublaslt-e4m3-promoted"}};
    for (size_t i = 0; i < sizeof at_max / sizeof at_max[0]; i++) {
        const df_bw_plan_row *k = find_row(p, rows, at_max[i][0]);
        const df_bw_plan_row *b = find_row(p, rows, at_max[i][1]);
        cr_assert(k && b);
        cr_assert_eq(k->n, 65536, "%s", at_max[i][0]);
        cr_assert_eq(block_copy(p, (size_t)(k - p)), block_copy(p, (size_t)(b - p)));
    }
    /* f32, f64 and i32 keep n: int-atomic past its max_n, timed only */
    static const char *const at_n[] = {"shfl", "cublas-sdot", "shfl-f64", "int-atomic"};
    for (size_t i = 0; i < sizeof at_n / sizeof at_n[0]; i++)
        cr_assert_eq(find_row(p, rows, at_n[i])->n, BIG_N, "%s", at_n[i]);
    free(ks);
    free(p);
}

Test(bandwidth, plan_adds_the_baseline_at_a_shorter_length_and_skips_empty_types)
{
    const df_kernel *sdot = df_kernel_find("cublas-sdot"), *hdot = df_kernel_find("cublas-hdot");
    cr_assert(sdot && hdot);
    df_kernel short_f32 = *df_kernel_find("shfl"), long_f16 = *df_kernel_find("mma-f16");
    short_f32.name = "short-f32";
    short_f32.max_n = 1000;
    long_f16.name = "long-f16";
    long_f16.max_n = 0;
    const df_kernel *ks[] = {&short_f32, sdot, &long_f16, hdot};
    df_bw_plan_row p[DF_BW_PLAN_MAX(4)];
    size_t rows = df_bw_plan(1 << 20, ks, 4, p);
    const struct {
        const df_kernel *k;
        df_type t;
        uint64_t n;
    } want[] = {
        {NULL, DF_F32, 1 << 20},  {sdot, DF_F32, 1 << 20},     {NULL, DF_F32, 1000},
        {&short_f32, DF_F32, 1000}, {sdot, DF_F32, 1000},      {NULL, DF_F16, 1 << 20},
        {&long_f16, DF_F16, 1 << 20}, {NULL, DF_F16, 65536}, {hdot, DF_F16, 65536},
    };
    cr_assert_eq(rows, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < rows; i++)
        cr_assert(p[i].k == want[i].k && p[i].type == want[i].t && p[i].n == want[i].n,
                  "row %zu: %s %s %llu", i, p[i].k ? p[i].k->name : "copy",
                  df_type_name(p[i].type), (unsigned long long)p[i].n);
    /* a run no longer than every max_n: one block a type */
    rows = df_bw_plan(1000, ks, 4, p);
    cr_assert_eq(rows, 6);
    for (size_t i = 0; i < rows; i++)
        cr_assert_eq(p[i].n, 1000);
    cr_assert_eq(df_bw_plan(1000, ks, 0, p), 0);
}

Test(bandwidth, each_type_has_its_cublas_baseline)
{
    static const struct {
        df_type t;
        const char *name;
    } want[] = {{DF_F32, "cublas-sdot"},  {DF_F64, "cublas-ddot"},
                {DF_I32, NULL},           {DF_F16, "cublas-hdot"},
                {DF_BF16, "cublas-bfdot"}, {DF_E4M3, "cublaslt-e4m3-promoted"},
                {DF_E5M2, NULL}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *got = df_bw_baseline(want[i].t);
        if (!want[i].name) {
            cr_assert_null(got, "%s", df_type_name(want[i].t));
            continue;
        }
        cr_assert_str_eq(got, want[i].name);
        const df_kernel *k = df_kernel_find(got);
        cr_assert_not_null(k, "%s is registered", got);
        cr_assert_eq(k->elem, want[i].t, "%s", got);
        cr_assert(k->block_max == 1 && k->grid_max == 1, "%s: the library's launch", got);
    }
}

Test(bandwidth, ratios_compare_rows_of_one_type_and_one_length)
{
    df_bw_row rows[] = {
        {.is_copy = 1, .name = "device-copy", .type = DF_F16, .n = 65536, .gbps = 30.0},
        {.name = "mma-f16", .type = DF_F16, .n = 65536, .gbps = 5.0},
        {.name = "cublas-hdot", .type = DF_F16, .n = 65536, .gbps = 10.0},
        {.name = "half2-f16", .type = DF_F16, .n = BIG_N, .gbps = 3000.0},
        {.name = "shfl", .type = DF_F32, .n = 1000, .gbps = 100.0},
        {.name = "cublas-sdot", .type = DF_F32, .n = BIG_N, .gbps = 3000.0},
        {.name = "int-atomic", .type = DF_I32, .n = BIG_N, .gbps = 300.0},
        {.name = "cublas-bfdot", .type = DF_BF16, .n = 65536, .gbps = 0.0},
        {.name = "mma-bf16", .type = DF_BF16, .n = 65536, .gbps = 7.0, .vs_cublas = 9.0},
    };
    df_bw_report rep = {.n = BIG_N, .nrows = sizeof rows / sizeof rows[0], .rows = rows};
    df_bw_ratios(&rep);
    const double want[] = {3.0, 0.5, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0};
    for (size_t i = 0; i < rep.nrows; i++)
        cr_assert_float_eq(rows[i].vs_cublas, want[i], 1e-12, "%s", rows[i].name);
}

Test(bandwidth, lowp_inputs_are_format_values_in_the_unit_interval)
{
    static const df_type types[] = {DF_F16, DF_BF16, DF_E4M3, DF_E5M2};
    enum { N = 4096 };
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        df_type t = types[ti];
        size_t es = df_type_size(t);
        unsigned char a[N * 2], b[N * 2], a2[N * 2], b2[N * 2];
        df_bw_fill(t, a, b, N);
        df_bw_fill(t, a2, b2, N);
        cr_assert(memcmp(a, a2, N * es) == 0 && memcmp(b, b2, N * es) == 0,
                  "%s: one seed a type", df_type_name(t));
        cr_assert(memcmp(a, b, N * es) != 0);
        unsigned zeros = 0, negative = 0;
        for (size_t i = 0; i < N; i++)
            for (int v = 0; v < 2; v++) {
                double x = df_elem_as_double(t, v ? b : a, i);
                cr_assert(isfinite(x) && fabs(x) <= 1.0, "%s %g", df_type_name(t), x);
                zeros += x == 0.0;
                negative += x < 0.0;
            }
        cr_assert_lt(zeros, 2 * N / 100, "%s: %u zeros", df_type_name(t), zeros);
        cr_assert(negative > 2 * N / 3 && negative < 4 * N / 3, "%s", df_type_name(t));
    }
}

/* One row judged: kernel name's result f on the bandwidth inputs at n. */
static df_bw_row judge_lowp(const char *name, uint64_t n, double f, void *a, void *b)
{
    const df_kernel *k = df_kernel_find(name);
    cr_assert_not_null(k, "%s", name);
    df_case c = {.type = k->elem, .n = n, .a = a, .b = b};
    snprintf(c.kernel, sizeof c.kernel, "%s", name);
    cr_assert_eq(df_launch_resolve(k, n, &c.launch, NULL, 0), 0, "%s", name);
    df_refs refs;
    df_refs_compute(k->elem, a, b, n, &refs);
    df_result res = {.status = DF_RUN_OK, .f = f};
    if (isnan(f)) { /* the host model's own answer */
        df_scratch s = {0};
        cr_assert_not_null(k->host_model, "%s", name);
        cr_assert_eq(k->host_model(&c, &s, &res), 0);
        df_scratch_free(&s);
    }
    df_bw_row row = {0};
    df_bw_judge(k, &c, &refs, &res, &row);
    return row;
}

static int passed(const char *result)
{
    return strncmp(result, "ok (", 4) == 0 || strncmp(result, "precision (", 11) == 0;
}

Test(bandwidth, lowp_rows_are_judged_against_their_references)
{
    enum { N = 65536 };
    static uint16_t a[N], b[N];
    df_bw_fill(DF_F16, a, b, N);
    df_bw_row row = judge_lowp("mma-f16", N, NAN, a, b);
    cr_assert(!row.failed && passed(row.result), "%s", row.result);
    /* cublas-hdot's answer: the sum rounded once to f16, past the 1e-6
     * tolerance: precision */
    df_refs refs;
    df_refs_compute(DF_F16, a, b, N, &refs);
    double s = df_lowp_decode(DF_LOWP_F16, df_lowp_encode(DF_LOWP_F16, refs.kahan, 0));
    row = judge_lowp("cublas-hdot", N, s, a, b);
    cr_assert(!row.failed && passed(row.result), "%s", row.result);
    row = judge_lowp("cublas-hdot", N, s + 100.0, a, b);
    cr_assert(row.failed && strncmp(row.result, "bug", 3) == 0, "%s", row.result);

    static uint8_t a8[N], b8[N];
    df_bw_fill(DF_E4M3, a8, b8, N);
    df_refs_compute(DF_E4M3, a8, b8, N, &refs);
    row = judge_lowp("cublaslt-e4m3-promoted", N, (double)(float)refs.kahan, a8, b8);
    cr_assert(!row.failed && passed(row.result), "%s", row.result);
    row = judge_lowp("mma-e4m3", N, (double)(float)refs.kahan + 100.0, a8, b8);
    cr_assert(row.failed, "%s", row.result);
}

/* The printed report of rows at --n 2^28, table or Markdown. */
static char *print_report(int markdown)
{
    static df_bw_row rows[] = {
        {.is_copy = 1, .name = "device-copy", .type = DF_F32, .n = BIG_N, .launch = "copy",
         .reps = 20, .ms = 1.42, .gbps = 3023.0, .frac_peak = 0.902, .vs_cublas = 1.011,
         .result = "copy"},
        {.name = "shfl", .type = DF_F32, .n = BIG_N, .launch = "132x1024", .reps = 20,
         .ms = 0.7, .gbps = 3070.6, .frac_peak = 0.916, .vs_cublas = 1.027, .result = "ok"},
        {.name = "int-atomic", .type = DF_I32, .n = BIG_N, .launch = "524288x512",
         .reps = 20, .ms = 7.3, .gbps = 293.9, .frac_peak = 0.088,
         .result = "not judged: n > max_n 858993 (timing only)"},
        {.name = "mma-f16", .type = DF_F16, .n = 65536, .launch = "1x32 default", .reps = 20,
         .ms = 0.05, .gbps = 5.2, .frac_peak = 0.0016, .vs_cublas = 0.8, .result = "ok"},
    };
    df_bw_report rep = {.device = "NVIDIA H100", .cc_major = 9, .sm_count = 132,
                        .peak_gbps = 3352.3, .n = BIG_N, .reps = 20,
                        .nrows = sizeof rows / sizeof rows[0], .rows = rows};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    df_bw_print(f, &rep, markdown);
    fclose(f);
    return buf;
}

Test(bandwidth, table_and_markdown_show_each_rows_n)
{
    char *t = print_report(0);
    cr_assert_not_null(strstr(t, "(2.15 GB for f32 and i32)"), "%s", t);
    cr_assert_not_null(strstr(t, "runs at its max_n"), "%s", t);
    cr_assert_not_null(strstr(t, "kernel       type          n  launch"), "%s", t);
    cr_assert_not_null(strstr(t, "mma-f16      f16       65536  1x32 default"), "%s", t);
    cr_assert_not_null(strstr(t, "shfl         f32   268435456  132x1024"), "%s", t);
    free(t);

    char *m = print_report(1);
    cr_assert_not_null(strstr(m, "| kernel | type | n | launch | reps | median ms | GB/s | "
                                 "% peak | vs cuBLAS | result |\n|---|---|--:|---|"),
                       "%s", m);
    cr_assert_not_null(strstr(m, "| mma-f16 | f16 | 65536 | 1x32 default | 20 | 0.0500 | "
                                 "5.2 | 0.2% | 0.800x | ok |"),
                       "%s", m);
    cr_assert_not_null(strstr(m, "| int-atomic | i32 | 268435456 | 524288x512 | 20 | 7.3000 | "
                                 "293.9 | 8.8% | - |"),
                       "%s", m);
    free(m);
}

Test(bandwidth, help_names_the_types_and_bad_options_exit_2)
{
    static char out[1 << 14];
    cr_assert_eq(df_test_sh(out, sizeof out, "./dotfuzz bandwidth --help"), 0, "%s", out);
    cr_assert_not_null(strstr(out, "f16, bf16, e4m3"), "%s", out);
    cr_assert_not_null(strstr(out, "max_n"), "%s", out);
    cr_assert_eq(df_test_sh(out, sizeof out, "./dotfuzz bandwidth --n 0"), 2, "%s", out);
    cr_assert_eq(df_test_sh(out, sizeof out, "./dotfuzz bandwidth --reps 1001"), 2, "%s", out);
    cr_assert_eq(df_test_sh(out, sizeof out, "./dotfuzz bandwidth --bogus"), 2, "%s", out);
}
