/* test_quiet.c — quiet by default: a run says its backend once and the
 * kernels it cannot run in one line; commands that run no kernel say
 * nothing of a backend; soft errors are counted in the summary, not
 * printed one by one; model-equal reads n/a on the host backend; and the
 * tests' shell helper captures the stderr of every command it runs, so a
 * passing suite prints nothing. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests/cli_helpers.h"

static char out[1 << 16];

/* How many times needle occurs in text. */
static unsigned occurrences(const char *text, const char *needle)
{
    unsigned n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

Test(quiet, the_shell_helper_captures_every_commands_stderr)
{
    cr_assert_eq(df_test_sh(out, sizeof out, "echo one >&2; echo two >&2 && echo three >&2"), 0);
    cr_assert_str_eq(out, "one\ntwo\nthree\n");
}

Test(quiet, a_campaign_says_its_backend_once, .timeout = 60)
{
    const char *d = df_test_tmpdir("quiet-camp");
    int rc = df_test_sh(out, sizeof out,
                        "./dotfuzz run --backend host --cases 600 --seed 3 --out %s/c "
                        "2>&1 >/dev/null | grep -v '^#'", d);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_eq(occurrences(out, "backend host"), 2, "the start line and the skip line: %s",
                 out);
    cr_assert_eq(occurrences(out, "\n"), 2, "%s", out);
    cr_assert(strstr(out, "kernel(s), backend host: host models on the CPU, 1 worker(s)"), "%s",
              out);
    cr_assert(strstr(out, "dotfuzz run: skipping 6 kernel(s) with no host model on backend "
                          "host: cublas-sdot, "), "%s", out);
}

Test(quiet, commands_that_run_no_kernel_say_nothing_of_a_backend, .timeout = 60)
{
    const char *d = df_test_tmpdir("quiet-none");
    int rc = df_test_sh(out, sizeof out,
                        "./dotfuzz run --backend host --kernel shfl --cases 300 --seed 3 --quiet "
                        "--out %s/a >/dev/null 2>&1 && "
                        "./dotfuzz run --backend host --kernel shfl --cases 300 --seed 4 --quiet "
                        "--out %s/b >/dev/null 2>&1 && "
                        "printf '1\\n2\\n' > %s/a.txt && printf '3\\n4\\n' > %s/b.txt && "
                        "{ ./dotfuzz list && ./dotfuzz report %s/a --no-plots --out %s/r && "
                        "./dotfuzz merge %s/m %s/a %s/b && "
                        "./dotfuzz import %s/a.txt %s/b.txt -o %s/x.case; } 2>&1 >/dev/null",
                        d, d, d, d, d, d, d, d, d, d, d, d);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_null(strstr(out, "backend"), "%s", out);
}

/* shfl reports a non-finite partial on some of seed 5's cases (an
 * overflow its inputs allow): a soft error each, counted in the summary. */
Test(quiet, soft_errors_are_counted_not_printed, .timeout = 60)
{
    const char *d = df_test_tmpdir("quiet-soft");
    int rc = df_test_sh(out, sizeof out,
                        "./dotfuzz run --backend host --kernel shfl --cases 2000 --seed 5 "
                        "--corpus %s/c", d);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_null(strstr(out, "SOFT"), "%s", out);
    const char *row = strstr(out, "\n  shfl ");
    unsigned long long cases, ok, prec, nd, soft, bug;
    cr_assert(row && sscanf(row, "\n  shfl %llu %llu %llu %llu %llu %llu", &cases, &ok, &prec, &nd,
                            &soft, &bug) == 6, "%s", out);
    cr_assert_gt(soft, 0, "seed 5 has soft errors on shfl: %s", out);
    char line[64];
    snprintf(line, sizeof line, "soft errors: %llu case(s)", soft);
    cr_assert(strstr(out, line), "%s", out);
}

Test(quiet, model_equal_is_n_a_on_the_host, .timeout = 60)
{
    const char *d = df_test_tmpdir("quiet-model");
    int rc = df_test_sh(out, sizeof out,
                        "./dotfuzz run --backend host --kernel shfl,fold --cases 200 --quiet "
                        "--corpus %s/c 2>/dev/null", d);
    cr_assert_eq(rc, 0, "%s", out);
    const char *row = strstr(out, "\n  fold ");
    cr_assert_not_null(row, "%s", out);
    char ratio[32], model[32];
    unsigned long long v[6];
    cr_assert_eq(sscanf(row, "\n  fold %llu %llu %llu %llu %llu %llu %31s %31s", &v[0], &v[1],
                        &v[2], &v[3], &v[4], &v[5], ratio, model),
                 8, "%s", out);
    cr_assert_str_eq(model, "n/a", "%s", out);
}

/* hunt names the kernels it skips once, a line a reason, after its table */
Test(quiet, hunt_says_each_skip_reason_once, .timeout = 60)
{
    int rc = df_test_sh(out, sizeof out,
                        "./dotfuzz hunt --backend host --kernel m-tail,m-no-sync,m-nonatomic,"
                        "m-claims-det --cases 50 --time 2 2>&1 >/dev/null");
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "dotfuzz hunt: skipped on backend host, cannot run: m-no-sync, "
                          "m-nonatomic\n"), "%s", out);
    cr_assert(strstr(out, "dotfuzz hunt: skipped on backend host, its bug cannot show: "
                          "m-claims-det\n"), "%s", out);
    cr_assert_eq(occurrences(out, "m-no-sync"), 1, "%s", out);
}
