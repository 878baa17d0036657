/* test_identity.c — scripts/identity.sh, the before/after check of a
 * restructuring: a build against itself is IDENTICAL, a build whose runs
 * differ is DIFFERENT, a missing build is refused; each family runs only
 * the listed kernels it makes values for. */
#include "tests/cli_helpers.h"

static char out[16384];

Test(identity, a_build_against_itself_is_identical, .timeout = 120)
{
    int rc = df_test_sh(out, sizeof out, "scripts/identity.sh ./dotfuzz ./dotfuzz host 20 shfl,int-atomic");
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "cond: identical"), "%s", out);
    /* int-atomic alone on a float-only family, shfl alone on int-big */
    cr_assert(strstr(out, "uniform: identical"), "%s", out);
    cr_assert(strstr(out, "int-big: no kernel it makes values for"), "%s", out);
    cr_assert(strstr(out, "\nIDENTICAL\n"), "%s", out);
}

Test(identity, a_build_whose_runs_differ_is_different, .timeout = 120)
{
    /* NEW: dotfuzz with --tol 1e-3 added, so fewer precision findings */
    const char *d = df_test_tmpdir("identity");
    int rc = df_test_sh(out, sizeof out,
                        "printf '#!/bin/sh\\n[ \"$1\" = run ] && { shift; exec %%s/dotfuzz run --tol 1e-3 \"$@\"; }\\n"
                        "exec %%s/dotfuzz \"$@\"\\n' \"$PWD\" \"$PWD\" > %s/other && chmod +x %s/other && "
                        "scripts/identity.sh ./dotfuzz %s/other host 40 shfl",
                        d, d, d);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert(strstr(out, "cond: DIFFERENT"), "%s", out);
    cr_assert(strstr(out, "\nDIFFERENT\n"), "%s", out);
    df_test_sh(out, sizeof out, "rm -rf %s", d);
}

Test(identity, a_missing_build_is_refused, .timeout = 30)
{
    int rc = df_test_sh(out, sizeof out, "scripts/identity.sh ./no-such-build ./dotfuzz host 20");
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "no-such-build: not an executable"), "%s", out);
}
