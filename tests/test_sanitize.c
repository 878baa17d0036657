/* test_sanitize.c — compute-sanitizer in the loop (fuzz/run/sanitize.h),
 * with a stand-in for the tool (DOTFUZZ_SANITIZER): it runs the command it
 * is given and, for commands naming m-tail or a bug- file, prints a
 * memcheck-style report and exits with --error-exitcode's value. A report
 * becomes a bug (rule sanitizer, the report's first line and kernel in
 * it); a clean rerun changes nothing; a missing tool, a bad tool name and
 * an option without effect are refused with one line; a campaign's
 * session reruns its own new findings. */
#include <criterion/criterion.h>
#include <string.h>

#include "tests/cli_helpers.h"

static char out[32768];

static const char fake[] =
    "#!/bin/sh\n"
    "tool=$2; code=$4; shift 6\n"
    "\"$@\" > /dev/null 2>&1; rc=$?\n"
    "echo '========= COMPUTE-SANITIZER'\n"
    "case \"$*\" in *m-tail*|*bug-*)\n"
    "  echo '========= Invalid __global__ read of size 4 bytes'\n"
    "  echo '=========     at df_k_tail(const float *, unsigned long)+0x1a0 in /k/a.cu:88'\n"
    "  echo \"========= ERROR SUMMARY: 1 error ($tool)\"; exit $code;;\n"
    "esac\n"
    "echo '========= ERROR SUMMARY: 0 errors'; exit $rc\n";

/* The stand-in, written under dir. */
static void put_fake(const char *dir)
{
    char path[256];
    snprintf(path, sizeof path, "%s/fake-sanitizer", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(fake, f);
    fclose(f);
    cr_assert_eq(df_test_sh(out, sizeof out, "chmod +x %s", path), 0);
}

Test(sanitize, replay_turns_a_report_into_a_bug, .timeout = 120)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s", df_test_tmpdir("san-replay"));
    put_fake(dir);
    int rc = df_test_sh(out, sizeof out,
                        "DOTFUZZ_SANITIZER=%s/fake-sanitizer ./dotfuzz replay --backend host "
                        "--sanitize memcheck corpus/regression/empty.f32",
                        dir);
    cr_assert_eq(rc, 0, "a clean file stays clean: %s", out);
    cr_assert_null(strstr(out, "sanitizer ("), "%s", out);
    /* a file named bug-...: the stand-in reports it */
    rc = df_test_sh(out, sizeof out,
                    "cp corpus/regression/empty.f32 %s/bug-x && DOTFUZZ_SANITIZER=%s/fake-sanitizer "
                    "./dotfuzz replay --backend host --sanitize racecheck --json %s/bug-x",
                    dir, dir, dir);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert(strstr(out, "\"rule\":\"sanitizer\",\"tool\":\"racecheck\""), "%s", out);
    cr_assert(strstr(out, "Invalid __global__ read of size 4 bytes, at df_k_tail("), "%s", out);
    rc = df_test_sh(out, sizeof out,
                    "DOTFUZZ_SANITIZER=%s/none ./dotfuzz replay --backend host --sanitize "
                    "memcheck corpus/regression/empty.f32",
                    dir);
    cr_assert_eq(rc, 3, "%s", out);
    cr_assert(strstr(out, "cannot run"), "%s", out);
    rc = df_test_sh(out, sizeof out, "./dotfuzz replay --sanitize gdb x");
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "invalid --sanitize 'gdb'"), "%s", out);
    df_test_sh(out, sizeof out, "rm -rf %s", dir);
}

Test(sanitize, run_reruns_each_kernel_and_its_findings, .timeout = 120)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s", df_test_tmpdir("san-run"));
    put_fake(dir);
    int rc = df_test_sh(out, sizeof out,
                        "DOTFUZZ_SANITIZER=%s/fake-sanitizer ./dotfuzz run --backend host "
                        "--kernel shfl --cases 200 --seed 5 --quiet --corpus %s/c "
                        "--sanitize memcheck --sanitize-cases 4",
                        dir, dir);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "compute-sanitizer memcheck: 1 kernel sample(s) of 4 case(s)"),
              "%s", out);
    rc = df_test_sh(out, sizeof out,
                    "DOTFUZZ_SANITIZER=%s/fake-sanitizer ./dotfuzz run --backend host "
                    "--kernel shfl,m-tail --cases 200 --seed 5 --quiet --corpus %s/d "
                    "--sanitize memcheck",
                    dir, dir);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert(strstr(out, "BUG    m-tail sanitizer (memcheck): Invalid __global__ read"), "%s",
              out);
    cr_assert(strstr(out, "/d/bug-"), "the run's findings are rerun: %s", out);
    /* a campaign: the session's new findings in DIR/findings, and a resume's */
    rc = df_test_sh(out, sizeof out,
                    "DOTFUZZ_SANITIZER=%s/fake-sanitizer ./dotfuzz run --backend host "
                    "--kernel shfl,m-tail --cases 200 --seed 5 --quiet --out %s/e "
                    "--sanitize memcheck --sanitize-cases 2",
                    dir, dir);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert(strstr(out, "/e/findings/bug-") && strstr(out, "sanitizer (memcheck)"), "%s", out);
    rc = df_test_sh(out, sizeof out,
                    "DOTFUZZ_SANITIZER=%s/fake-sanitizer ./dotfuzz run --resume %s/e --cases 400 "
                    "--quiet --sanitize racecheck",
                    dir, dir);
    cr_assert(strstr(out, "compute-sanitizer racecheck: 2 kernel sample(s)"), "%s", out);
    cr_assert_null(strstr(out, "dotfuzz run: --"), "no option refused: %s", out);
    rc = df_test_sh(out, sizeof out, "./dotfuzz run --backend host --cases 1 --sanitize-cases 3");
    cr_assert_eq(rc, 2, "%s", out);
    df_test_sh(out, sizeof out, "rm -rf %s", dir);
}

Test(sanitize, smoke_fails_a_regression_file_the_tool_reports, .timeout = 120)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s", df_test_tmpdir("san-smoke"));
    put_fake(dir);
    int rc = df_test_sh(out, sizeof out,
                        "mkdir -p %s/reg && cp corpus/regression/empty.f32 %s/reg/bug-x.f32 && "
                        "DOTFUZZ_SANITIZER=%s/fake-sanitizer ./dotfuzz smoke --backend host "
                        "--time 0 --corpus %s/reg --sanitize memcheck --junit %s/j.xml "
                        "--json %s/j.json && echo no",
                        dir, dir, dir, dir, dir, dir);
    cr_assert(strstr(out, "FAIL   regression") && strstr(out, "on compute-sanitizer memcheck"),
              "%s", out);
    cr_assert_null(strstr(out, "\nno\n"), "smoke exits 1: %s", out);
    rc = df_test_sh(out, sizeof out,
                    "grep -c 'compute-sanitizer memcheck' %s/j.xml && python3 -c \"import json; "
                    "json.load(open('%s/j.json'))\" && grep -c 'bug (sanitizer)' %s/j.json",
                    dir, dir, dir);
    cr_assert_eq(rc, 0, "%s", out);
    df_test_sh(out, sizeof out, "rm -rf %s", dir);
}
