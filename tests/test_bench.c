/* test_bench.c — `dotfuzz bench` (fuzz/cmd/cmd_bench.c): on the host backend
 * with --quick it runs every row and prints a positive measurement in each,
 * a plugin's kernel too (--kernel-lib); bad options are usage errors (exit
 * 2). */
#include "tests/cli_helpers.h"

static char out[1 << 16];

/* The first number after label's line's label, or -1 when the line is
 * missing. */
static double row_value(const char *label)
{
    const char *p = strstr(out, label);
    if (!p)
        return -1;
    return strtod(p + strlen(label), NULL);
}

Test(bench, quick_host_run_prints_every_row_with_positive_numbers, .timeout = 120)
{
    int rc = df_test_sh(out, sizeof out, "./dotfuzz bench --backend host --quick --threads 2");
    cr_assert_eq(rc, 0, "%s", out);
    const char *rows[] = {"seed loop, n = 2000", "harness n = 2000, verified",
                          "harness n = 65536, verified", "harness n = 2^20, verified",
                          "bare MT references n = 2^20"};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        cr_assert_gt(row_value(rows[i]), 0, "row '%s' in:\n%s", rows[i], out);
    const char *ratio = strstr(out, "ratio harness/bare ");
    cr_assert_not_null(ratio, "%s", out);
    cr_assert_gt(strtod(ratio + strlen("ratio harness/bare "), NULL), 0, "%s", out);
    const char *rss = strstr(out, "peak RSS ");
    cr_assert_not_null(rss, "%s", out);
    cr_assert_gt(strtod(rss + strlen("peak RSS "), NULL), 0, "%s", out);
}

Test(bench, bad_options_exit_2)
{
    cr_assert_eq(df_test_sh(out, sizeof out, "./dotfuzz bench --frobnicate"), 2, "%s", out);
    cr_assert_eq(df_test_sh(out, sizeof out, "./dotfuzz bench --batch 1"), 2, "%s", out);
    cr_assert_eq(df_test_sh(out, sizeof out, "./dotfuzz bench --time 0"), 2, "%s", out);
    cr_assert_eq(df_test_sh(out, sizeof out, "./dotfuzz bench --backend host --kernel nope"), 2,
                 "%s", out);
}

/* --kernel-lib loads a plugin first, so --kernel names its kernel; a
 * library that does not load is a usage error. */
Test(bench, measures_a_plugin_kernel, .timeout = 120)
{
    const char *dir = df_test_tmpdir("bench");
    int rc = df_test_sh(out, sizeof out,
                        "cc -std=c11 -O2 -fPIC -shared -Iinclude -o %s/mydot.so "
                        "examples/plugin/mydot.c -lm",
                        dir);
    cr_assert_eq(rc, 0, "%s", out);
    rc = df_test_sh(out, sizeof out,
                    "./dotfuzz bench --backend host --quick --threads 2 --kernel-lib %s/mydot.so "
                    "--kernel mydot",
                    dir);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "2 threads, kernel mydot, backend host"), "%s", out);
    cr_assert_gt(row_value("harness n = 2000, verified"), 0, "%s", out);
    rc = df_test_sh(out, sizeof out, "./dotfuzz bench --kernel-lib %s/none.so", dir);
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "dotfuzz bench: --kernel-lib ") && strstr(out, "cannot load"), "%s",
              out);
}
