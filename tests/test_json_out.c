/* test_json_out.c — --json of bench, bandwidth, hunt and probe: one JSON
 * document on stdout that parses, with the figures the text shows, seeds
 * as strings, and the rows that did not run named with why and without
 * numbers (tests/json_out_check.py checks each document). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "fuzz/backend/bandwidth.h"
#include "fuzz/cmd/cli.h"
#include "tests/cli_helpers.h"

static char out[1 << 16];

Test(json_out, bench_on_the_host_says_which_rows_did_not_run, .timeout = 120)
{
    const char *d = df_test_tmpdir("json-bench");
    int rc = df_test_sh(out, sizeof out,
                        "./dotfuzz bench --backend host --quick --threads 2 --json > %s/b.json "
                        "2>/dev/null && python3 tests/json_out_check.py bench %s/b.json",
                        d, d);
    cr_assert_eq(rc, 0, "%s", out);
}

/* Without a GPU, bandwidth exits 3 and its JSON says why, with no row. */
Test(json_out, bandwidth_without_a_gpu_says_why_and_invents_no_row)
{
    const char *d = df_test_tmpdir("json-bw");
    int rc = df_test_sh(out, sizeof out, "./dotfuzz bandwidth --json > %s/bw.json", d);
    cr_assert_eq(rc, 3, "%s", out);
    rc = df_test_sh(out, sizeof out, "python3 tests/json_out_check.py bandwidth %s/bw.json", d);
    cr_assert_eq(rc, 0, "%s", out);
}

/* A measured report's rows, as df_bw_print_json writes them. */
Test(json_out, bandwidth_rows_carry_the_tables_numbers)
{
    static df_bw_row rows[] = {
        {.is_copy = 1, .name = "device-copy", .type = DF_F32, .n = 268435456,
         .launch = "copy", .reps = 20, .ms = 1.42, .gbps = 3023.0, .frac_peak = 0.902,
         .vs_cublas = 1.011, .result = "copy"},
        {.name = "shfl", .type = DF_F32, .n = 268435456, .launch = "132x1024", .reps = 20,
         .ms = 0.7, .bytes = 2147483648.0, .gbps = 3070.6, .frac_peak = 0.916,
         .vs_cublas = 1.027, .result = "ok"},
        {.name = "int-atomic", .type = DF_I32, .n = 268435456, .launch = "524288x512",
         .reps = 20, .ms = 7.3, .gbps = 293.9, .frac_peak = 0.088,
         .result = "not judged: n > max_n 858993 (timing only)"},
        {.name = "mma-f16", .type = DF_F16, .n = 65536, .launch = "1x32 default", .reps = 20,
         .ms = 0.05, .gbps = 5.2, .frac_peak = 0.0016, .vs_cublas = 0.8, .result = "ok"},
        {.name = "half2-f16", .type = DF_F16, .n = 65536, .launch = "1x32 default",
         .failed = 1, .result = "CUDA error: \"launch failed\""},
    };
    df_bw_report rep = {.device = "NVIDIA H100", .cc_major = 9, .sm_count = 132,
                        .peak_gbps = 3352.3, .n = 268435456, .reps = 20,
                        .nrows = sizeof rows / sizeof rows[0], .rows = rows};
    const char *d = df_test_tmpdir("json-bwrep");
    char path[128];
    snprintf(path, sizeof path, "%s/rep.json", d);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    df_bw_print_json(f, &rep, NULL);
    cr_assert_eq(fclose(f), 0);
    int rc = df_test_sh(out, sizeof out, "python3 tests/json_out_check.py bandwidth-report %s",
                        path);
    cr_assert_eq(rc, 0, "%s", out);
}

Test(json_out, hunt_gives_each_kernels_detections_and_skips, .timeout = 120)
{
    const char *d = df_test_tmpdir("json-hunt");
    int rc = df_test_sh(out, sizeof out,
                        "./dotfuzz hunt --backend host --kernel m-tail,shfl,m-no-sync --cases 300 "
                        "--time 5 --seed 5 --json > %s/h.json", d);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_eq(out[0], '\0', "nothing on stderr: the skip is in the JSON: %s", out);
    rc = df_test_sh(out, sizeof out, "python3 tests/json_out_check.py hunt %s/h.json", d);
    cr_assert_eq(rc, 0, "%s", out);
}

Test(json_out, json_and_markdown_together_are_a_usage_error)
{
    cr_assert_eq(df_test_sh(out, sizeof out, "./dotfuzz hunt --json --markdown"), 2, "%s", out);
    cr_assert_eq(df_test_sh(out, sizeof out, "./dotfuzz bandwidth --json --markdown"), 2, "%s",
                 out);
}

Test(json_out, probe_json_parses, .timeout = 120)
{
    int rc = df_test_sh(out, sizeof out,
                        "./dotfuzz probe --backend host --kernel shfl --json 2>/dev/null | "
                        "python3 -c 'import json,sys; d=json.load(sys.stdin); "
                        "print(d[\"kernel\"], d[\"measured\"][\"acc_bits\"])'");
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_str_eq(out, "shfl 23\n");
}
