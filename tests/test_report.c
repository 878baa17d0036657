/* test_report.c — `dotfuzz report DIR` end to end: each test writes a
 * campaign directory by the spec (campaign-dir format: campaign,
 * fuzzer_stats, kernels.tsv, profile.tsv, ratio_hist.tsv, plot_data,
 * findings.jsonl) into a temp dir, runs ./dotfuzz report on it and reads
 * report.md and the images back. Runs from the repository root. */
#include <criterion/criterion.h>

#include "tests/cli_helpers.h"
#include "fuzz/cmd/report_bound.h"
#include "fuzz/oracle.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OUT_MAX (1 << 16)
#define MD_MAX (1 << 17)

#define sh(buf, ...) df_test_sh(buf, OUT_MAX, __VA_ARGS__)

static char out[OUT_MAX];
static char md[MD_MAX];

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

/* Reads dir/name into md (NUL terminated); returns its length, or -1. */
static long read_file(const char *dir, const char *name, char *buf, size_t cap)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
    return (long)n;
}

static int exists(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

static void write_required(const char *d)
{
    write_file(d, "campaign",
               "version : 1\nseed : 1234\nbackend : host\nkernels : shfl,fold,m-hang\n"
               "max_n : 65536\nfamily : all\ntol : 1e-06\nsome_future_key : x\n");
    write_file(d, "fuzzer_stats",
               "start_time : 1763700000\nlast_update : 1763700600\nrun_time : 600\n"
               "sessions : 2\nfuzzer_pid : 1234\nseed : 1234\nbackend : host\njobs : 1\nkernels : 3\n"
               "cases_done : 123456\ncases_per_sec : 2045.3\nok : 122900\nprecision : 440\n"
               "nondet : 0\nsoft_error : 0\nbug : 16\ncrashes : 2\nhangs : 1\n"
               "worker_restarts : 3\nfindings_saved : 6\nworst_ratio : 55.1\n"
               "worst_kernel : fold\npending_cases : 0\n"
               "command_line : dotfuzz run --out DIR --seed 1234\n");
}

/* Six good findings: two precision, two oracle bugs, a crash and a hang;
 * one garbage line, one line cut mid-object and a torn last line. The
 * bug's 'why' holds a decoy "kernel":"shfl" inside a string. */
static const char *const findings =
    "{\"time\":1763700001.5,\"elapsed\":1.4,\"kernel\":\"fold\",\"verdict\":\"precision\","
    "\"rule\":\"tolerance\",\"n\":20,\"seed\":1234,\"index\":5,\"rel_err\":1.2e-6,"
    "\"err_ratio\":0.5,\"cond\":1.0,\"file\":\"findings/aaa.df\",\"worker\":0,\"why\":\"tol\"}\n"
    "{\"time\":1763700002.5,\"elapsed\":2.5,\"kernel\":\"fold\",\"verdict\":\"bug\","
    "\"rule\":\"exact\",\"n\":2000,\"seed\":1234,\"index\":5678,\"rel_err\":1.2e-3,"
    "\"err_ratio\":55.1,\"cond\":1.0,\"file\":\"findings/bbb.df\",\"worker\":0,"
    "\"why\":\"a \\\"decoy\\\" \\\"kernel\\\":\\\"shfl\\\"\"}\n"
    "{\"time\":1763700003.5,\"elapsed\":3.5,\"kernel\":\"fold\",\"verdict\":\"bug\","
    "\"rule\":\"crash\",\"n\":64,\"seed\":1234,\"index\":9,\"rel_err\":\"nan\","
    "\"err_ratio\":\"nan\",\"cond\":1.0,\"file\":\"findings/ccc.df\",\"worker\":1,"
    "\"why\":\"worker died | SIGSEGV\",\"signal\":11}\n"
    "this line is garbage\n"
    "{\"time\":1763700004.5,\"elapsed\":4.5,\"kernel\":\"m-hang\",\"verdict\":\"bug\","
    "\"rule\":\"hang\",\"n\":100,\"seed\":1234,\"index\":10,\"rel_err\":\"nan\","
    "\"err_ratio\":\"nan\",\"cond\":1.0,\"file\":\"findings/ddd.df\",\"worker\":0,"
    "\"why\":\"no answer\",\"watchdog_s\":60}\n"
    "{\"time\":1763700005.5,\"elapsed\":5.5,\"kernel\":\"shfl\",\"verdict\":\"precision\","
    "\"rule\":\"tolerance\",\"n\":7,\"seed\":1234,\"index\":11,\"rel_err\":2e-6,"
    "\"err_ratio\":\"inf\",\"cond\":1e30,\"file\":\"findings/eee.df\",\"worker\":0,\"why\":\"\"}\n"
    "{\"time\":1763700006.5,\"elapsed\":6.5,\"kernel\":\"fold\",\"verdict\":\"bug\","
    "\"rule\":\"bound\",\"n\":300,\"seed\":1234,\"index\":12,\"rel_err\":1e-4,"
    "\"err_ratio\":9.5,\"cond\":1.0,\"file\":\"findings/fff.df\",\"worker\":0,\"why\":\"x\"}\n"
    "{\"time\":1763700007.5,\"elapsed\":7.5,\"kernel\":\"fold\",\"verdict\":\"bug\",\"n\":3\n"
    "{\"time\":1763700008.5,\"elapsed\":8.5,\"kernel\":\"fold\",\"verdict\":\"bug\"";

/* A full campaign directory; returns its path (valid until the next call). */
static char *full_fixture(void)
{
    char *d = df_test_tmpdir("report");
    write_required(d);
    write_file(d, "kernels.tsv",
               "kernel\tcases\tok\tprecision\tnondet\tsoft_error\tbug\tcrashes\thangs\t"
               "worst_ratio\tworst_rel_err\tmodel_equal\tmeta_checked\n"
               "shfl\t41152\t41000\t152\t0\t0\t0\t0\t0\t0.0123\t1.5e-07\t41152\t400\n"
               "fold\t41152\t40850\t288\t0\t0\t14\t2\t0\t55.1\t0.0012\t41000\t400\n"
               "m-hang\t41152\t41150\t0\t0\t0\t2\t0\t1\tinf\tnan\t0\t0\n");
    /* zeros, inf and nan must not reach a log axis */
    write_file(d, "profile.tsv",
               "kernel\tn_lo\tn_hi\tcases\tworst_ratio\tworst_rel_err\n"
               "shfl\t0\t0\t10\t0\t0\nshfl\t1\t1\t10\t0\t0\nshfl\t2\t3\t100\t0.001\t1e-08\n"
               "shfl\t4\t7\t100\t0.003\t2e-08\nfold\t2\t3\t100\t1.5\t1e-06\n"
               "fold\t4\t7\t100\t55.1\t0.001\nm-hang\t4\t7\t100\tinf\tnan\n");
    write_file(d, "ratio_hist.tsv",
               "kernel\tlog2_ratio\tcount\nshfl\t-64\t20\nshfl\t-10\t100\nfold\t-3\t40\n"
               "fold\t5\t2\n");
    write_file(d, "plot_data",
               "relative_time\tcycles_done\tcur_item\tcorpus_count\tpending_total\t"
               "pending_favs\tmap_size\tsaved_crashes\tsaved_hangs\tmax_depth\t"
               "execs_per_sec\ttotal_execs\tedges_found\tfindings_saved\tbugs\tcrashes\t"
               "hangs\tworst_ratio\n"
               "5\t0\t1\t3\t0\t0\t0.00\t1\t0\t0\t2000.00\t10000\t0\t1\t1\t0\t0\t1.5\n"
               "10\t0\t2\t3\t0\t0\t0.00\t2\t0\t0\t2000.00\t20000\t0\t3\t2\t1\t0\t55.1\n"
               "not\ta\trow\n"
               "15\t0\t0\t3\t0\t0\t0.00\t4\t1\t0\t2000.00\t30000\t0\t6\t3\t2\t1\t55.1\n"
               "20\t0\t1\t3");
    write_file(d, "findings.jsonl", findings);
    return d;
}

static int gnuplot_present(void)
{
    return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

/* The section of md from heading h to the next heading of its level. */
static const char *section(const char *h, char *buf, size_t cap)
{
    const char *s = strstr(md, h);
    cr_assert_not_null(s, "no section %s in:\n%s", h, md);
    const char *e = strstr(s + strlen(h), "\n## ");
    size_t n = e ? (size_t)(e - s) : strlen(s);
    n = n < cap - 1 ? n : cap - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return buf;
}

Test(report, markdown_has_campaign_kernel_rows_and_exact_verdict_counts)
{
    char *d = full_fixture();
    int rc = sh(out, "./dotfuzz report --no-plots %s", d);
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
    char rd[512];
    snprintf(rd, sizeof rd, "%s/report", d);
    cr_assert_gt(read_file(rd, "report.md", md, sizeof md), 0);
    static const char *const want[] = {
        "| seed | 1234 |", "| backend | host |", "| kernels | shfl, fold, m-hang (3) |",
        "| run time | 600 s (0 h 10 min 00 s) |", "| cases | 123456 |",
        "| cases/s | 2045.3 (last session) |", "| sessions | 2 |", "| crashes | 2 |",
        "| hangs | 1 |", "| worker restarts | 3 |",
        "| shfl | 41152 | 41000 | 152 | 0 | 0 | 0 | 0 | 0 | 0.0123 | 1.5e-07 | n/a | 400 |",
        "| fold | 41152 | 40850 | 288 | 0 | 0 | 14 | 2 | 0 | 55.1 | 0.0012 | n/a | 400 |",
        "| m-hang | 41152 | 41150 | 0 | 0 | 0 | 2 | 0 | 1 | inf | nan | n/a | 0 |",
        ("| ok | 0 |\n| precision | 2 |\n| nondet | 0 |\n| soft-error | 0 |\n| bug | 4 |\n"
         "| total | 6 |"),
        /* kernel x verdict: the decoy "kernel":"shfl" in a why string is not a kernel */
        "| shfl | 0 | 1 | 0 | 0 | 0 | 1 |", "| fold | 0 | 1 | 0 | 0 | 3 | 4 |",
        "| m-hang | 0 | 0 | 0 | 0 | 1 | 1 |",
        "| fold | bug | bound | 1 |", "| fold | bug | crash | 1 |", "| fold | bug | exact | 1 |",
        "| fold | precision | tolerance | 1 |", "| m-hang | bug | hang | 1 |",
        "Made by `dotfuzz report --no-plots`",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_assert(strstr(md, want[i]), "report.md lacks '%s':\n%s", want[i], md);
    cr_assert_null(strstr(md, "| shfl | 0 | 1 | 0 | 0 | 1 |"));
}

Test(report, worst_cases_are_ordered_by_ratio_with_replay_commands)
{
    char *d = full_fixture();
    cr_assert_eq(sh(out, "./dotfuzz report --no-plots --top 3 --out %s/r %s", d, d), 0, "%s",
                 out);
    char rd[512], sec[MD_MAX];
    snprintf(rd, sizeof rd, "%s/r", d);
    cr_assert_gt(read_file(rd, "report.md", md, sizeof md), 0);
    const char *w = section("## Worst cases", sec, sizeof sec);
    const char *hang = strstr(w, "### Crashes and hangs");
    cr_assert_not_null(hang);
    cr_assert(strstr(w, "The 3 worst of 4 findings"), "%s", w);
    /* the bugs first (55.1, then 9.5), then the rest by ratio (inf); 0.5 is
     * the fourth and --top 3 leaves it out */
    static const char *const order[] = {"bbb.df", "fff.df", "eee.df"};
    const char *prev = w;
    for (size_t i = 0; i < 3; i++) {
        char cmd[700];
        snprintf(cmd, sizeof cmd, "`dotfuzz replay %s/findings/%s`", d, order[i]);
        const char *at = strstr(w, cmd);
        cr_assert(at && at > prev && at < hang, "%s misplaced in:\n%s", cmd, w);
        prev = at;
    }
    cr_assert(strstr(w, "| 3 | shfl | precision | tolerance | 7 | inf |"), "%s", w);
    cr_assert(strstr(w, "| 1 | fold | bug | exact | 2000 | 55.1 | 0.0012 | 2.5 |"), "%s", w);
    cr_assert_null(strstr(w, "aaa.df"), "%s", w);
}

Test(report, every_crash_and_hang_is_listed_even_with_top_0)
{
    char *d = full_fixture();
    cr_assert_eq(sh(out, "./dotfuzz report --no-plots --top 0 %s/", d), 0, "%s", out);
    char rd[512], sec[MD_MAX];
    snprintf(rd, sizeof rd, "%s/report", d);
    cr_assert_gt(read_file(rd, "report.md", md, sizeof md), 0);
    const char *w = section("### Crashes and hangs", sec, sizeof sec);
    cr_assert(strstr(w, "2 crash and hang findings"), "%s", w);
    /* DIR as given (trailing slash) joins without a double slash */
    char cmd[700];
    snprintf(cmd, sizeof cmd, "| 1 | fold | bug | crash | 64 | - | - | 3.5 | signal 11; "
                              "worker died \\| SIGSEGV | `dotfuzz replay %s/findings/ccc.df` |",
             d);
    cr_assert(strstr(w, cmd), "lacks %s:\n%s", cmd, w);
    snprintf(cmd, sizeof cmd, "| 2 | m-hang | bug | hang | 100 | - | - | 4.5 | watchdog 60 s; "
                              "no answer | `dotfuzz replay %s/findings/ddd.df` |",
             d);
    cr_assert(strstr(w, cmd), "lacks %s:\n%s", cmd, w);
    cr_assert(strstr(md, "The 0 worst of 4 findings"), "%s", md);
}

/* The full fixture reported with opts; report.md into md. Returns the
 * report's directory (valid until the next call). */
static char *report_fixture(const char *opts)
{
    char *d = full_fixture();
    cr_assert_eq(sh(out, "./dotfuzz report %s %s", opts, d), 0, "%s", out);
    static char rd[512];
    snprintf(rd, sizeof rd, "%s/report", d);
    cr_assert_gt(read_file(rd, "report.md", md, sizeof md), 0);
    return rd;
}

Test(report, torn_and_garbage_lines_are_skipped_and_counted)
{
    report_fixture("--no-plots");
    cr_assert(strstr(md, "`findings.jsonl`: 6 rows read; skipped 1 torn last line and 2 "
                         "unparsable lines."),
              "%s", md);
    cr_assert(strstr(md, "| findings.jsonl | 6 | 1 | 2 |"), "%s", md);
    cr_assert(strstr(md, "| plot_data | 3 | 1 | 1 |"), "%s", md);
    cr_assert(strstr(md, "| kernels.tsv | 3 | 0 | 0 |"), "%s", md);
    cr_assert_null(strstr(md, "garbage"));
}

Test(report, plots_are_real_png_and_svg_with_their_scripts)
{
    if (!gnuplot_present())
        cr_skip_test("gnuplot is not installed");
    char *d = full_fixture();
    int rc = sh(out, "./dotfuzz report %s", d);
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
    char rd[512], buf[1 << 16];
    snprintf(rd, sizeof rd, "%s/report", d);
    /* the fixture has data for these three; its mutant has only an
     * infinite ratio and it has no precision tables */
    static const char *const plots[] = {"ratio-vs-n", "ratio-hist", "progress"};
    for (size_t i = 0; i < 3; i++) {
        char name[128], line[700];
        snprintf(name, sizeof name, "%s.png", plots[i]);
        cr_assert_gt(read_file(rd, name, buf, sizeof buf), 8, "%s", name);
        cr_assert_eq(memcmp(buf, "\x89PNG\r\n\x1a\n", 8), 0, "%s is not a PNG", name);
        snprintf(line, sizeof line, "%s/%s\n", rd, name);
        cr_assert(strstr(out, line), "stdout lacks %s:\n%s", line, out);
        snprintf(name, sizeof name, "%s.svg", plots[i]);
        cr_assert_gt(read_file(rd, name, buf, sizeof buf), 0, "%s", name);
        cr_assert(strstr(buf, "<svg"), "%s is not an SVG", name);
        snprintf(name, sizeof name, "%s.gp", plots[i]);
        cr_assert(exists(rd, name), "%s missing", name);
        snprintf(name, sizeof name, "%s.dat", plots[i]);
        cr_assert(exists(rd, name), "%s missing", name);
        snprintf(line, sizeof line, "![");
        cr_assert_gt(read_file(rd, "report.md", md, sizeof md), 0);
        snprintf(line, sizeof line, "](%s.png)", plots[i]);
        cr_assert(strstr(md, line), "report.md does not embed %s", line);
    }
    cr_assert(strstr(md, "Not made: no data to plot (profile.tsv has no finite error ratio "
                         "of these kernels)."),
              "%s", md);
    cr_assert(strstr(md, "Not made: no data to plot (precision_by_h.tsv has no error of a "
                         "correct float kernel)."),
              "%s", md);
    /* log-log data: no zero, inf or nan point; the mutant m-hang has its own plot */
    cr_assert_gt(read_file(rd, "ratio-vs-n.dat", buf, sizeof buf), 0);
    cr_assert_null(strstr(buf, "m-hang"), "%s", buf);
    cr_assert_null(strstr(buf, "\t0\n"), "%s", buf);
    cr_assert(strstr(buf, "5.5\t4\t7\t100\t55.1\n"), "%s", buf);
    /* each kernel its own panel: a plot command per kernel with data */
    cr_assert_gt(read_file(rd, "ratio-vs-n.gp", buf, sizeof buf), 0);
    cr_assert(strstr(buf, "set multiplot layout 1,2"), "%s", buf);
    cr_assert(strstr(buf, "set title 'fold: 14 bugs'"), "%s", buf);
    cr_assert(strstr(buf, "set title 'shfl'"), "%s", buf);
}

Test(report, missing_dir_exits_2_naming_it)
{
    char *d = df_test_tmpdir("report");
    int rc = sh(out, "./dotfuzz report %s/no-such-campaign", d);
    cr_assert_eq(rc, 2, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "no-such-campaign"), "%s", out);
    cr_assert(strstr(out, "No such file"), "%s", out);
    /* a directory without fuzzer_stats is not a campaign directory */
    write_file(d, "campaign", "version : 1\nseed : 1\n");
    rc = sh(out, "./dotfuzz report %s", d);
    cr_assert_eq(rc, 2, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "not a campaign directory"), "%s", out);
    cr_assert(strstr(out, "fuzzer_stats"), "%s", out);
    cr_assert(!exists(d, "report"));
    cr_assert_eq(sh(out, "./dotfuzz report"), 2);
    cr_assert_eq(sh(out, "./dotfuzz report %s --top x", d), 2);
    cr_assert(strstr(out, "invalid value 'x' for --top"), "%s", out);
}

Test(report, no_plots_writes_no_image_and_exits_0)
{
    char *d = full_fixture();
    int rc = sh(out, "./dotfuzz report --no-plots %s", d);
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
    char line[600];
    snprintf(line, sizeof line, "%s/report/report.md\n", d);
    cr_assert_str_eq(out, line);
    cr_assert_eq(sh(out, "ls %s/report | grep -c -E '\\.(png|svg|gp|dat)$'", d), 1, "%s", out);
    cr_assert_str_eq(out, "0\n");
    char rd[512];
    snprintf(rd, sizeof rd, "%s/report", d);
    cr_assert_gt(read_file(rd, "report.md", md, sizeof md), 0);
    cr_assert(strstr(md, "Plots were not made: --no-plots was given."), "%s", md);
}

Test(report, without_gnuplot_report_md_is_written_and_exit_is_3)
{
    char *d = full_fixture();
    int rc = sh(out, "PATH=/nonexistent ./dotfuzz report %s", d);
    cr_assert_eq(rc, 3, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "gnuplot was not found"), "%s", out);
    char rd[512];
    snprintf(rd, sizeof rd, "%s/report", d);
    cr_assert_gt(read_file(rd, "report.md", md, sizeof md), 0);
    cr_assert(strstr(md, "Plots were not made: gnuplot was not found on PATH"), "%s", md);
    cr_assert(strstr(md, "| bug | 4 |"));
    cr_assert(!exists(rd, "ratio-hist.png"));
}

Test(report, missing_optional_files_are_named_and_the_rest_goes_on)
{
    char *d = df_test_tmpdir("report");
    write_required(d);
    int rc = sh(out, "./dotfuzz report --no-plots %s", d);
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
    char rd[512];
    snprintf(rd, sizeof rd, "%s/report", d);
    cr_assert_gt(read_file(rd, "report.md", md, sizeof md), 0);
    cr_assert(strstr(md, "`kernels.tsv` is not present"), "%s", md);
    cr_assert(strstr(md, "`findings.jsonl` is not present"), "%s", md);
    cr_assert(strstr(md, "| plot_data | not present |"), "%s", md);
    cr_assert(strstr(md, "| worker restarts | 3 |"), "%s", md);
    cr_assert(strstr(md, "No findings to list."), "%s", md);
}

Test(report, plots_without_data_are_explained_not_failed)
{
    if (!gnuplot_present())
        cr_skip_test("gnuplot is not installed");
    char *d = df_test_tmpdir("report");
    write_required(d);
    write_file(d, "profile.tsv", "kernel\tn_lo\tn_hi\tcases\tworst_ratio\tworst_rel_err\n"
                                 "shfl\t0\t0\t5\t0\t0\n");
    int rc = sh(out, "./dotfuzz report %s", d);
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
    char rd[512];
    snprintf(rd, sizeof rd, "%s/report", d);
    cr_assert_gt(read_file(rd, "report.md", md, sizeof md), 0);
    cr_assert(strstr(md, "Not made: no data to plot (profile.tsv has no length bin of a correct "
                         "kernel)."),
              "%s", md);
    cr_assert(!exists(rd, "ratio-vs-n.png"));
}

/* ---- the answer, the overflows, the HTML page ---- */

#define HTML_MAX (1 << 24)

/* A campaign of kernels on the host backend in DIR/c, its output in
 * DIR/run.log; returns DIR (valid until the next df_test_tmpdir). Exit 1
 * is expected where a mutant is among them. */
static char *host_campaign(const char *kernels, int want_rc)
{
    char *d = df_test_tmpdir("report-host");
    int rc = sh(out, "./dotfuzz run --backend host --kernel %s --cases 3000 --max-n 2048 "
                     "--seed 11 --out %s/c >%s/run.log",
                kernels, d, d);
    cr_assert_eq(rc, want_rc, "run exit %d:\n%s", rc, out);
    return d;
}

/* The report of DIR/c into DIR/r (with opts); report.md into md and, when
 * html, report.html into a malloc'd buffer returned. */
static char *report_of(const char *d, const char *opts, int html)
{
    int rc = sh(out, "./dotfuzz report %s --out %s/r %s/c", opts, d, d);
    cr_assert_eq(rc, 0, "report exit %d:\n%s", rc, out);
    char rd[512];
    snprintf(rd, sizeof rd, "%s/r", d);
    cr_assert_gt(read_file(rd, "report.md", md, sizeof md), 0);
    if (!html)
        return NULL;
    char *page = malloc(HTML_MAX);
    cr_assert_not_null(page);
    cr_assert_gt(read_file(rd, "report.html", page, HTML_MAX), 0, "no report.html in %s", rd);
    return page;
}

Test(report, first_line_is_none_when_only_a_mutant_has_bugs)
{
    char *d = host_campaign("shfl,fold,m-tail", 1);
    char *page = report_of(d, "--html --no-plots", 1);
    cr_assert_eq(strncmp(md, "# Bugs in correct kernels: none\n", 32), 0, "%.300s", md);
    cr_assert(strstr(page, "<body>\n<h1 id=\"answer\">Bugs in correct kernels: none</h1>"),
              "%.2000s", page);
    cr_assert(strstr(page, "<title>Bugs in correct kernels: none: dotfuzz report</title>"));
    /* the mutant is caught, in its own section after the correct kernels */
    const char *correct = strstr(md, "## Correct kernels"), *mut = strstr(md, "## Mutants");
    cr_assert(correct && mut && correct < mut, "%s", md);
    cr_assert(strstr(mut, "1 of 1 caught (a bug verdict), 1 distinct bug."), "%s", mut);
    cr_assert(strstr(mut, "| m-tail |"), "%s", mut);
    char sec[MD_MAX];
    cr_assert_null(strstr(section("## Correct kernels", sec, sizeof sec), "| m-tail |"),
                   "m-tail among the correct kernels:\n%s", sec);
    cr_assert(strstr(page, "<h2 id=\"mutants\">Mutants</h2>"));
    free(page);
}

Test(report, first_line_is_none_for_correct_kernels_without_bugs)
{
    char *d = host_campaign("shfl,fold", 0);
    char *page = report_of(d, "--html --no-plots", 1);
    cr_assert_eq(strncmp(md, "# Bugs in correct kernels: none\n", 32), 0, "%.300s", md);
    cr_assert(strstr(page, "<h1 id=\"answer\">Bugs in correct kernels: none</h1>"));
    cr_assert_null(strstr(md, "## Mutants"), "%s", md);
    /* the host runs the models themselves: model-equal does not apply */
    cr_assert(strstr(md, "| n/a | "), "model equal not n/a on the host:\n%s", md);
    free(page);
}

Test(report, first_line_counts_distinct_bugs_of_correct_kernels)
{
    /* fold: bugs of rules exact and bound (one wrong-result bug) and crash
     * (a fault); m-hang's hang is a mutant's */
    char *rd = report_fixture("--no-plots --html");
    cr_assert_eq(strncmp(md, "# Bugs in correct kernels: 2 distinct\n", 38), 0, "%.300s", md);
    cr_assert_gt(read_file(rd, "report.html", md, sizeof md), 0);
    cr_assert(strstr(md, "<h1 id=\"answer\">Bugs in correct kernels: 2 distinct</h1>"), "%s", md);
}

Test(report, expected_overflows_are_kept_apart_from_the_worst_cases)
{
    char *d = df_test_tmpdir("report");
    write_required(d);
    write_file(d, "findings.jsonl",
               "{\"elapsed\":1,\"kernel\":\"shfl\",\"verdict\":\"precision\",\"rule\":\"overflow\","
               "\"n\":9,\"rel_err\":\"inf\",\"err_ratio\":\"inf\",\"file\":\"findings/ggg.df\"}\n"
               "{\"elapsed\":2,\"kernel\":\"fold\",\"verdict\":\"bug\",\"rule\":\"bound\","
               "\"n\":30,\"rel_err\":1e-3,\"err_ratio\":3.5,\"file\":\"findings/hhh.df\"}\n"
               "{\"elapsed\":3,\"kernel\":\"fold\",\"verdict\":\"precision\",\"rule\":\"tolerance\","
               "\"n\":40,\"rel_err\":1e-5,\"err_ratio\":0.7,\"file\":\"findings/iii.df\"}\n");
    for (int html = 0; html < 2; html++) {
        cr_assert_eq(sh(out, "./dotfuzz report --no-plots --html %s", d), 0, "%s", out);
        char rd[512];
        snprintf(rd, sizeof rd, "%s/report", d);
        cr_assert_gt(read_file(rd, html ? "report.html" : "report.md", md, sizeof md), 0);
        const char *w = strstr(md, html ? "<h2 id=\"worst\">" : "## Worst cases");
        const char *ov = strstr(md, html ? "<h3 id=\"overflows\">" : "### Expected overflows");
        const char *ch = strstr(md, html ? "<h3 id=\"crashes\">" : "### Crashes and hangs");
        cr_assert(w && ov && ch && w < ov && ov < ch, "%s", md);
        const char *g = strstr(md, "ggg.df"), *h = strstr(md, "hhh.df"), *i = strstr(md, "iii.df");
        cr_assert(h && i && w < h && h < i && i < ov, "bug, then the rest, before overflows:\n%s",
                  md);
        cr_assert(g && ov < g && g < ch, "the overflow in its own table:\n%s", md);
        cr_assert(strstr(md, "The 2 worst of 2 findings"), "%s", md);
        cr_assert(strstr(md, "1 finding of finite inputs whose sum"), "%s", md);
    }
}

Test(report, html_page_is_self_contained_with_its_plots_inside)
{
    if (!gnuplot_present())
        cr_skip_test("gnuplot is not installed");
    char *d = host_campaign("shfl,fold,m-tail", 1);
    char *page = report_of(d, "--html", 1);
    size_t imgs = 0;
    for (const char *p = page; (p = strstr(p, "src=\"")); p++, imgs++)
        cr_assert_eq(strncmp(p, "src=\"data:image/svg+xml;base64,", 31), 0,
                     "a src that is not a data: URI: %.80s", p);
    /* ratio-vs-n, ratio-vs-n-mutants, ratio-hist, precision-vs-h, progress */
    cr_assert_eq(imgs, 5, "%zu images", imgs);
    static const char *const never[] = {"href=", "<script", "<link", "<iframe", "url(",
                                        "@import", "http:", "https:", "file:"};
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
        cr_assert_null(strstr(page, never[i]), "the page has %s", never[i]);
    cr_assert(strstr(page, "</figure>"));
    cr_assert(strstr(page, "</html>\n"));
    free(page);
}

Test(report, html_check_script_passes_in_chromium_and_fails_a_broken_page)
{
    if (!gnuplot_present() ||
        system("command -v chromium >/dev/null 2>&1 || command -v chromium-browser "
               ">/dev/null 2>&1 || command -v google-chrome >/dev/null 2>&1") != 0)
        cr_skip_test("gnuplot or chromium is not installed");
    char *d = host_campaign("shfl,m-tail", 1);
    free(report_of(d, "--html", 1));
    int rc = sh(out, "scripts/html-check.sh %s/r/report.html %s/shot.png", d, d);
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "PASS"), "%s", out);
    cr_assert(strstr(out, "'Bugs in correct kernels: none'; 5 plots rendered"), "%s", out);
    char shot[8];
    cr_assert_eq(read_file(d, "shot.png", shot, sizeof shot), 7);
    /* a plot whose data is not an image, and a reference outside the page */
    rc = sh(out, "sed 's#base64,PD#base64,XX#; s#<body>#<body><img src=\"x.png\">#' "
                 "%s/r/report.html >%s/bad.html && scripts/html-check.sh %s/bad.html",
            d, d, d);
    cr_assert_eq(rc, 1, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "refers outside itself: src=\"x.png"), "%s", out);
    cr_assert(strstr(out, "not rendered: img"), "%s", out);
}

Test(report, threshold_is_the_oracle_bound_over_u_g)
{
    /* fold at n = 1000: h = 1 + ceil(log2 1000) = 11 at any launch, so
     * the band is one value, gamma_11 (1 + 1000 2^-52) / u, just above 11 */
    const df_kernel *fold = df_kernel_find("fold");
    cr_assert_not_null(fold);
    double u = 0x1p-24, want = df_gamma(11, u) * (1.0 + 1000 * 0x1p-52) / u;
    cr_assert_eq(df_ratio_bound(fold, 1000, 11), want);
    cr_assert(want > 11 && want < 11 * (1 + 1e-5), "%.17g", want);
    double lo, hi;
    cr_assert_eq(df_report_bound_band("fold", 1000, &lo, &hi), 0);
    cr_assert(lo == want && hi == want, "[%.17g, %.17g]", lo, hi);
    /* atomic-block's h = 1 + block + ceil(n / block): the band spans blocks */
    cr_assert_eq(df_report_bound_band("atomic-block", 1000, &lo, &hi), 0);
    cr_assert(lo < hi && hi > 1000, "[%g, %g]", lo, hi);
    /* integers: any error is a bug; a name outside the registry has none */
    cr_assert_eq(df_report_bound_band("int-atomic", 1000, &lo, &hi), 0);
    cr_assert(lo == 0 && hi == 0);
    cr_assert_eq(df_report_bound_band("no-such-kernel", 1000, &lo, &hi), -1);
}
