/* test_tables.c — the campaign directory's tables as a data tool reads
 * them: every table a host campaign writes (and a merge of two), read by
 * pandas.read_csv(path, sep='\t') (tests/tables_pandas.py), names its
 * columns from the header row and keeps every data row, the first kernel's
 * included, with numbers typed as numbers. */
#include <criterion/criterion.h>

#include "tests/cli_helpers.h"

/* The python3 that imports pandas: the first on PATH, else the system's
 * (apt's python3-pandas is /usr/bin/python3's, and a pyenv python3 may
 * come first on PATH; without either, python3, to say pandas is missing);
 * scripts/install-deps.sh looks for it the same way. */
#define PANDAS_PY                                                                                  \
    "$({ for py in python3 /usr/bin/python3; do $py -c 'import pandas' 2>/dev/null && "         \
    "echo $py; done; echo python3; } | head -n1)"

/* A merge writes the tables but plot_data, a campaign's own timeline. */
#define TABLES "kernels.tsv profile.tsv ratio_hist.tsv precision_hist.tsv precision_by_h.tsv"

Test(tables, pandas_reads_every_table_of_a_campaign_and_a_merge, .timeout = 180)
{
    static char out[16384];
    const char *d = df_test_tmpdir("tables");
    int rc = df_test_sh(out, sizeof out,
                        "./dotfuzz run --backend host --kernel shfl,fold,int-atomic --cases 2000 "
                        "--seed 5 --quiet --out %s/a > /dev/null && "
                        "./dotfuzz run --backend host --kernel shfl,fold,int-atomic --cases 2000 "
                        "--seed 6 --quiet --out %s/b > /dev/null && "
                        "./dotfuzz merge %s/m %s/a %s/b > /dev/null && "
                        PANDAS_PY " tests/tables_pandas.py %s/a " TABLES " plot_data && "
                        PANDAS_PY " tests/tables_pandas.py %s/m " TABLES,
                        d, d, d, d, d, d, d);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "kernels.tsv: read right"), "%s", out);
}

/* The first row pandas sees is the file's first data row: shfl's, the
 * first kernel of the campaign. */
Test(tables, the_first_kernels_row_is_the_first_data_row, .timeout = 120)
{
    static char out[4096];
    const char *d = df_test_tmpdir("tables-first");
    int rc = df_test_sh(out, sizeof out,
                        "./dotfuzz run --backend host --kernel shfl,fold --cases 500 --seed 5 "
                        "--quiet --out %s > /dev/null && head -2 %s/kernels.tsv | cut -f1",
                        d, d);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_str_eq(out, "kernel\nshfl\n");
}
