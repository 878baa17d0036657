/* test_eff_bits.c — the effective precision beside the verdicts
 * (df_tally_eff_bits): bits = declared - log2(ratio / h), for the worst
 * case and the median one; nothing for integers or error-free runs; the
 * summary prints it for every float kernel with an error. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "fuzz/run/run.h"
#include "tests/cli_helpers.h"

/* a tally whose cases have ratio / h of 2^b, count[b - DF_RHIST_MIN] each */
static df_tally tally_of(const int *bins, const uint64_t *counts, int m, double worst)
{
    df_tally t;
    memset(&t, 0, sizeof t);
    for (int i = 0; i < m; i++)
        t.phist[bins[i] - DF_RHIST_MIN] = counts[i];
    t.worst_over_h = worst;
    return t;
}

Test(eff_bits, worst_and_median_from_the_error_over_h)
{
    int bins[] = {-8, -4, 0};
    uint64_t counts[] = {10, 30, 1};
    df_tally t = tally_of(bins, counts, 3, 1.5);
    double w, m;
    cr_assert_eq(df_tally_eff_bits(&t, DF_F32, &w, &m), 1);
    cr_assert_float_eq(w, 24 - log2(1.5), 1e-12);
    cr_assert_float_eq(m, 24 + 4 - 0.5, 1e-12, "the median's bin is 2^-4: %g", m);
    cr_assert_eq(df_tally_eff_bits(&t, DF_F64, &w, &m), 1);
    cr_assert_float_eq(w, 53 - log2(1.5), 1e-12);
    cr_assert_eq(df_tally_eff_bits(&t, DF_I32, &w, &m), 0, "integers have no precision");
    df_tally none;
    memset(&none, 0, sizeof none);
    cr_assert_eq(df_tally_eff_bits(&none, DF_F32, &w, &m), 0, "no error, nothing to tell");
    /* adding tallies keeps the worst and sums the histogram */
    df_tally sum = tally_of(bins, counts, 3, 0.25);
    df_tally_add(&sum, &t);
    cr_assert_eq(sum.phist[-4 - DF_RHIST_MIN], 60u);
    cr_assert(sum.worst_over_h == 1.5);
}

/* At each height: the worst and the geometric mean of ratio / h. */
Test(eff_bits, at_each_height_worst_and_typical)
{
    cr_assert_eq(df_hbin_of(1), 0u);
    cr_assert_eq(df_hbin_of(7), 2u);
    cr_assert_eq(df_hbin_of(8), 3u);
    df_hbin b = {4, 0.5, -4.0 * 6}; /* four cases, ratio / h of 2^-6 on average */
    double w, t;
    cr_assert_eq(df_hbin_eff_bits(&b, DF_F32, &w, &t), 1);
    cr_assert_float_eq(w, 25.0, 1e-12);
    cr_assert_float_eq(t, 30.0, 1e-12);
    df_hbin none = {0, 0, 0};
    cr_assert_eq(df_hbin_eff_bits(&none, DF_F32, &w, &t), 0);
    cr_assert_eq(df_hbin_eff_bits(&b, DF_I32, &w, &t), 0);
}

Test(eff_bits, the_summary_shows_it_for_float_kernels, .timeout = 60)
{
    static char out[16384];
    int rc = df_test_sh(out, sizeof out,
                        "./dotfuzz run --backend host --kernel shfl,int-atomic --cases 2000 "
                        "--seed 4 --corpus %s", df_test_tmpdir("effbits"));
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "effective precision in bits"), "%s", out);
    const char *line = strstr(out, "    shfl ");
    cr_assert_not_null(line, "%s", out);
    double w = 0, m = 0;
    cr_assert_eq(sscanf(line, " shfl worst %lf median %lf declared 24", &w, &m), 2, "%s", line);
    cr_assert(w >= 24 && m >= w, "a correct kernel keeps its declared bits: %g %g", w, m);
    cr_assert(strstr(line, "(worst at h "), "the worst case's heights: %s", line);
    cr_assert_null(strstr(out, "    int-atomic "), "no line for an integer kernel");
}

/* A campaign keeps it in precision_hist.tsv, through a resume and a merge,
 * and the report shows it. */
Test(eff_bits, campaigns_keep_it_and_the_report_shows_it, .timeout = 120)
{
    static char out[16384];
    const char *d = df_test_tmpdir("effbits-camp");
    int rc = df_test_sh(out, sizeof out,
                        "./dotfuzz run --backend host --kernel shfl,int-atomic --cases 1500 "
                        "--seed 2 --quiet --out %s/a > /dev/null && ./dotfuzz run --resume %s/a "
                        "--cases 3000 --quiet > /dev/null && ./dotfuzz run --backend host "
                        "--kernel shfl,int-atomic --cases 1500 --seed 3 --quiet --out %s/b "
                        "> /dev/null && ./dotfuzz merge %s/m %s/a %s/b > /dev/null && "
                        "./dotfuzz report %s/m --out %s/r --no-plots > /dev/null && "
                        "grep -c '^shfl' %s/a/precision_hist.tsv %s/m/precision_by_h.tsv && "
                        "grep -A14 '^### Effective precision' %s/r/report.md",
                        d, d, d, d, d, d, d, d, d, d, d);
    cr_assert_eq(rc, 0, "%s", out);
    double w = 0, m = 0;
    const char *row = strstr(out, "| shfl | 24 | ");
    cr_assert_not_null(row, "%s", out);
    cr_assert_eq(sscanf(row, "| shfl | 24 | %lf | %lf |", &w, &m), 2, "%s", row);
    cr_assert(w >= 24 && m >= w, "%s", row);
    cr_assert_null(strstr(out, "| int-atomic |"), "%s", out);
    cr_assert(strstr(out, "At each tree height h"), "%s", out);
    const char *at_h = strstr(out, "| shfl | 4-7 | ");
    unsigned cases = 0;
    cr_assert(at_h && sscanf(at_h, "| shfl | 4-7 | %u | %lf | %lf | 24 |", &cases, &w, &m) == 3,
              "%s", out);
    cr_assert(cases > 0 && w >= 24 && m >= w, "%s", at_h);
}
