/* test_smoke.c — `dotfuzz smoke`, the CI gate, end to end on the host
 * backend: a clean run's exit status, JUnit XML and JSON summary; a
 * regression case that now fails; a mutant found, saved and named with
 * its replay command; bad options. Runs ./dotfuzz from the repository
 * root (make test builds it first). */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/cli_helpers.h"
#include "fuzz/corpus.h"
#include "fuzz/oracle.h"

#define OUT_MAX (1 << 16)
#define FILE_MAX (1 << 20)

#define sh(buf, ...) df_test_sh(buf, OUT_MAX, __VA_ARGS__)

static char out[OUT_MAX];

/* The whole file into a static buffer (one at a time). */
static const char *slurp(const char *dir, const char *name)
{
    static char text[FILE_MAX];
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* The unsigned number right after `key` (first occurrence from `from`). */
static unsigned long long number_after(const char *from, const char *key)
{
    const char *p = strstr(from, key);
    cr_assert_not_null(p, "no %s in:\n%s", key, from);
    return strtoull(p + strlen(key), NULL, 10);
}

static void assert_valid_junit(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    df_test_assert_junit_valid(path);
}

/* An i32 case of n pairs 50 x 50, for kernel (a name), recording verdict. */
static void write_case(const char *dir, const char *name, const char *kernel, int verdict)
{
    int32_t v[2 * 64];
    for (size_t i = 0; i < 128; i++)
        v[i] = 50;
    df_case c = {.type = DF_I32, .n = 64, .a = v, .b = v + 64};
    snprintf(c.kernel, sizeof c.kernel, "%s", kernel);
    df_case_meta m = {.verdict = (uint8_t)verdict, .iresult = 160000, .reference = 160000};
    uint8_t *buf = NULL;
    size_t len = 0;
    cr_assert_eq(df_corpus_encode(&c, &m, &buf, &len), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    cr_assert_eq(df_write_file_atomic(path, buf, len), 0);
    free(buf);
}

Test(smoke, clean_host_run_exits_0_and_reports_agree)
{
    char *d = df_test_tmpdir("smoke");
    /* a corpus of 3 cases: 4 runs on the host backend (the f64 case on shfl-f64
     * and ref-blas-ddot, the others on one kernel each) */
    int rc = sh(out, "mkdir -p %s/reg && cp corpus/regression/int-small-n6710.i32 "
                     "corpus/regression/int-small-n6710.f64 "
                     "corpus/regression/seed000-precision-n2000-cond2e4.f32 %s/reg/",
                d, d);
    cr_assert_eq(rc, 0, "%s", out);
    rc = sh(out, "./dotfuzz smoke --backend host --time 1s --corpus %s/reg --kernel fold "
                 "--kernel int-atomic --findings %s/f --junit %s/s.xml --json %s/s.json",
            d, d, d, d);
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "no new bug"), "%s", out);

    const char *x = slurp(d, "s.xml");
    cr_assert_eq(count(x, "<testsuite "), 3, "%s", x);       /* regression + 2 seeds */
    cr_assert_eq(count(x, "<testcase "), 4 + 2 * 2, "%s", x); /* 4 runs, 2 kernels x 2 */
    cr_assert(strstr(x, "<testsuites name=\"dotfuzz smoke\" tests=\"8\" failures=\"0\" "
                        "errors=\"0\""), "%s", x);
    cr_assert(strstr(x, "<testsuite name=\"regression\" tests=\"4\" failures=\"0\""));
    cr_assert(strstr(x, "<testsuite name=\"fuzz (fixed seed)\" tests=\"2\" failures=\"0\""));
    cr_assert(strstr(x, "<property name=\"seed\" value=\"1\"/>"), "%s", x);
    cr_assert_eq(count(x, "<failure"), 0);
    unsigned long long fold_xml = number_after(strstr(x, "name=\"fold\""), "cases ");
    cr_assert_gt(fold_xml, 0);

    const char *j = slurp(d, "s.json");
    cr_assert(strstr(j, "\"seeds\": {\"fixed\": \"1\", \"fresh\": \""), "%s", j);
    cr_assert_eq(number_after(j, "\"runs\": "), 4);
    cr_assert_eq(number_after(j, "\"failures\": "), 0);
    cr_assert_eq(count(j, "\"status\": \"pass\""), 4);
    cr_assert(strstr(j, "\"recorded\": \"precision\""), "%s", j); /* seed000's case */
    cr_assert(strstr(j, "\"bug\": null"));
    cr_assert(strstr(j, "\"exit_status\": 0"));
    /* the fixed seed's per-kernel cases add up and match the XML's */
    const char *seed1 = strstr(j, "\"kind\": \"fixed\"");
    cr_assert_not_null(seed1);
    unsigned long long total = number_after(j, "\"kind\": \"fixed\", \"ran\": true, \"cases\": ");
    unsigned long long fold = number_after(seed1, "\"kernel\": \"fold\", \"cases\": ");
    unsigned long long ia = number_after(seed1, "\"kernel\": \"int-atomic\", \"cases\": ");
    cr_assert_eq(fold + ia, total);
    cr_assert_eq(fold, fold_xml);
    cr_assert_eq(number_after(seed1, "\"bug\": "), 0);
    assert_valid_junit(d, "s.xml");
}

Test(smoke, default_kernels_are_runs_and_default_corpus_replays_clean)
{
    char *d = df_test_tmpdir("smoke");
    char run_out[OUT_MAX];
    cr_assert_eq(sh(run_out, "./dotfuzz run --backend host --cases 1 --corpus %s/r", d), 0);
    unsigned long long nk = number_after(strstr(run_out, "dotfuzz run: seed "), ", ");
    int rc = sh(out, "./dotfuzz smoke --backend host --time 0.4s --findings %s/f "
                     "--junit %s/s.xml --json %s/s.json",
                d, d, d);
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
    const char *x = slurp(d, "s.xml");
    cr_assert_eq(count(x, "<testcase classname=\"fuzz.fixed\""), nk, "%s", run_out);
    cr_assert_gt(count(x, "<testcase classname=\"regression\""), 0);
    cr_assert_eq(count(x, "<failure"), 0);
}

Test(smoke, regression_case_a_mutant_fails_or_a_changed_verdict_exits_1)
{
    char *d = df_test_tmpdir("smoke");
    char reg[600];
    snprintf(reg, sizeof reg, "%s/reg", d);
    cr_assert_eq(mkdir(reg, 0777), 0);
    /* 64 x 2500 = 160000 passes a 16-bit block sum: m-int16-sum wraps */
    write_case(reg, "mutant&\"odd\"<name>.i32", "m-int16-sum", DF_V_OK);
    write_case(reg, "int-atomic-ok.i32", "int-atomic", DF_V_OK);
    write_case(reg, "int-atomic-said-precision.i32", "int-atomic", DF_V_PRECISION);
    int rc = sh(out, "./dotfuzz smoke --backend host --time 0.2s --corpus %s --kernel "
                     "int-atomic --findings %s/f --junit %s/s.xml --json %s/s.json",
                reg, d, d, d);
    cr_assert_eq(rc, 1, "exit %d:\n%s", rc, out);
    const char *x = slurp(d, "s.xml");
    cr_assert(strstr(x, "<testsuite name=\"regression\" tests=\"3\" failures=\"2\" "
                        "errors=\"0\""), "%s", x);
    cr_assert(strstr(x, "mutant&amp;&quot;odd&quot;&lt;name&gt;.i32 on m-int16-sum\""), "%s", x);
    cr_assert_eq(count(x, "type=\"bug\""), 1, "%s", x);
    cr_assert_eq(count(x, "type=\"verdict-changed\""), 1, "%s", x);
    cr_assert(strstr(x, "verdict ok (exact), the file records precision"), "%s", x);
    const char *j = slurp(d, "s.json");
    cr_assert(strstr(j, "\"kernel\": \"m-int16-sum\", \"status\": \"fail\", \"verdict\": "
                        "\"bug\", \"recorded\": \"ok\""), "%s", j);
    cr_assert(strstr(j, "\"kernel\": \"int-atomic\", \"status\": \"pass\""), "%s", j);
    cr_assert(strstr(j, "\"exit_status\": 1"));
    assert_valid_junit(d, "s.xml");
}

/* The only file in dir, into name. */
static void only_file(const char *dir, char *name, size_t len)
{
    DIR *dd = opendir(dir);
    cr_assert_not_null(dd, "no %s", dir);
    struct dirent *de;
    int n = 0;
    while ((de = readdir(dd)) != NULL)
        if (de->d_name[0] != '.') {
            snprintf(name, len, "%s", de->d_name);
            n++;
        }
    closedir(dd);
    cr_assert_eq(n, 1, "%d files in %s", n, dir);
}

Test(smoke, mutant_fuzzing_stops_at_first_bug_saves_it_and_names_its_replay)
{
    char *d = df_test_tmpdir("smoke");
    int rc = sh(out, "./dotfuzz smoke --backend host --time 20s --corpus corpus/regression "
                     "--kernel m-fold-bounds --kernel fold --findings %s/f --junit %s/s.xml "
                     "--json %s/s.json",
                d, d, d);
    cr_assert_eq(rc, 1, "exit %d:\n%s", rc, out);
    char name[256], cmd[1024];
    char fdir[600];
    snprintf(fdir, sizeof fdir, "%s/f", d);
    only_file(fdir, name, sizeof name);
    /* its kind and SHA-1 */
    cr_assert(!strncmp(name, "bug-", 4) && strlen(name) == 44, "%s", name);
    snprintf(cmd, sizeof cmd, "dotfuzz replay --backend host %s/%s", fdir, name);
    const char *x = slurp(d, "s.xml");
    cr_assert(strstr(x, "<testsuite name=\"fuzz (fixed seed)\" tests=\"2\" failures=\"1\""),
              "%s", x);
    const char *tc = strstr(x, "name=\"m-fold-bounds\"");
    cr_assert_not_null(tc);
    cr_assert(strstr(tc, "<failure message=\"bug (bound)"), "%s", tc);
    cr_assert(strstr(tc, cmd), "no '%s' in %s", cmd, tc);
    /* the fresh seed never ran: the budget was not spent */
    cr_assert(strstr(x, "skipped=\"2\""), "%s", x);
    const char *j = slurp(d, "s.json");
    cr_assert(strstr(j, "\"kind\": \"fresh\", \"ran\": false"), "%s", j);
    cr_assert(strstr(j, "\"bug\": {\"kernel\": \"m-fold-bounds\""), "%s", j);
    cr_assert(strstr(j, cmd));
    cr_assert(strstr(j, "\"rechecked\": true"));
    assert_valid_junit(d, "s.xml");
    const char *total = strstr(j, "\n  \"elapsed_s\": ");
    cr_assert_not_null(total);
    cr_assert_lt(strtod(total + strlen("\n  \"elapsed_s\": "), NULL), 5.0, "stopped late: %s", j);
    /* the command it names reproduces the bug */
    cr_assert_eq(sh(out, "./%s", cmd), 1, "%s", out);
}

Test(smoke, bad_options_exit_2)
{
    cr_assert_eq(sh(out, "./dotfuzz smoke --help"), 0);
    cr_assert(strstr(out, "--junit FILE"));
    const char *bad[] = {
        "--bogus", "--time abc", "--seed -1", "--backend host --kernel no-such --time 0",
        "--backend warp-drive", "stray", "--junit",
        "--backend host --corpus /nonexistent/dir --time 0",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = sh(out, "./dotfuzz smoke --findings /tmp/dotfuzz-smoke-never %s", bad[i]);
        cr_assert_eq(rc, 2, "'%s' exit %d:\n%s", bad[i], rc, out);
    }
    cr_assert_eq(access("/tmp/dotfuzz-smoke-never", F_OK), -1);
}

Test(smoke, bug_already_in_the_regression_corpus_is_not_new)
{
    char *d = df_test_tmpdir("smoke");
    char first[256], second[256], dir[600];
    int rc = sh(out, "mkdir %s/empty %s/reg && ./dotfuzz smoke --backend host --time 10s "
                     "--corpus %s/empty --kernel m-fold-bounds --findings %s/f1",
                d, d, d, d);
    cr_assert_eq(rc, 1, "exit %d:\n%s", rc, out);
    snprintf(dir, sizeof dir, "%s/f1", d);
    only_file(dir, first, sizeof first);
    /* the same fixed seed again, its first finding now committed */
    rc = sh(out, "cp %s/f1/%s %s/reg/ && ./dotfuzz smoke --backend host --time 10s "
                 "--corpus %s/reg --kernel m-fold-bounds --findings %s/f2 --json %s/s.json",
            d, first, d, d, d, d);
    cr_assert_eq(rc, 1, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "KNOWN  m-fold-bounds seed=1"), "%s", out);
    snprintf(dir, sizeof dir, "%s/f2", d);
    only_file(dir, second, sizeof second);
    cr_assert_str_neq(first, second);
    const char *j = slurp(d, "s.json");
    cr_assert(strstr(j, "\"flaky\": 0, \"known\": 1}"), "%s", j);
    cr_assert_eq(number_after(j, "\"failures\": "), 1); /* the committed case still fails */
}
