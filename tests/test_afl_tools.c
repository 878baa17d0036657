/* test_afl_tools.c — AFL++'s own tools read a campaign directory made on
 * the host backend: afl-whatsup sums the fuzzer_stats of the campaigns in a
 * sync directory (alive while running, dead but counted with -d after), and
 * afl-plot draws plot_data, its columns where AFL++ puts them. Needs afl++
 * and gnuplot (required under CI=true, else skipped). Runs ./dotfuzz from
 * the repository root (make test builds it first). */
#include <criterion/criterion.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/cli_helpers.h"

#define OUT_MAX (1 << 16)
#define sh(...) df_test_sh(out, OUT_MAX, __VA_ARGS__)

static char out[OUT_MAX];

/* The unsigned value of `key : value` in dir/fuzzer_stats; -1 when absent. */
static long long stat_of(const char *dir, const char *key)
{
    char path[512], line[1024];
    snprintf(path, sizeof path, "%s/fuzzer_stats", dir);
    FILE *f = fopen(path, "r");
    long long v = -1;
    size_t kl = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && (line[kl] == ' ' || line[kl] == ':'))
            v = strtoll(strchr(line, ':') + 1, NULL, 10);
    if (f)
        fclose(f);
    return v;
}

/* The number after `label` in out (the first occurrence); -1 when absent. */
static long long number_after(const char *label)
{
    const char *p = strstr(out, label);
    return p ? strtoll(p + strlen(label), NULL, 10) : -1;
}

static void need_tools(void)
{
    df_test_need_tool("afl-whatsup", "afl++");
    df_test_need_tool("afl-plot", "afl++");
    df_test_need_tool("gnuplot", "gnuplot-nox");
}

/* `cmd` in the background, its output into log; its pid. */
static pid_t start(const char *cmd, const char *log)
{
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        char full[2048];
        snprintf(full, sizeof full, "exec %s >%s 2>&1", cmd, log);
        execl("/bin/sh", "sh", "-c", full, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

Test(afl_tools, whatsup_counts_a_running_campaign_alive_with_its_execs, .timeout = 60)
{
    need_tools();
    char root[128], dir[160], cmd[512], log[192];
    snprintf(root, sizeof root, "%s", df_test_tmpdir("afl-live"));
    snprintf(dir, sizeof dir, "%s/c1", root);
    snprintf(log, sizeof log, "%s/run.log", root);
    snprintf(cmd, sizeof cmd, "./dotfuzz run --backend host --kernel shfl --time 6s "
                              "--stats-every 0.5s --quiet --out %s", dir);
    pid_t pid = start(cmd, log);
    /* wait for a snapshot with a second of run time and some cases */
    for (int i = 0; i < 100 && (stat_of(dir, "run_time") < 1 || stat_of(dir, "execs_done") < 1);
         i++)
        sleep_s(0.1);
    cr_assert_geq(stat_of(dir, "execs_done"), 1, "no cases in fuzzer_stats after 10 s");
    cr_assert_eq(stat_of(dir, "fuzzer_pid"), (long long)pid, "fuzzer_pid is not dotfuzz's");
    int rc = sh("afl-whatsup -s %s", root);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "dotfuzz run: %d", status);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_eq(number_after("Fuzzers alive : "), 1, "%s", out);
    cr_assert_gt(number_after("Cumulative speed : "), 0, "%s", out);
    /* ended: dead, and left out unless -d */
    rc = sh("afl-whatsup -s %s", root);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_eq(number_after("Fuzzers alive : "), 0, "%s", out);
    cr_assert(strstr(out, "Dead or remote : 1 (excluded from stats)"), "%s", out);
}

/* Total execs as afl-whatsup spells execs. */
static void whatsup_execs(char *buf, size_t cap, long long execs)
{
    long long m = execs / 1000000, k = execs / 1000 % 1000;
    if (m > 9)
        snprintf(buf, cap, "%lld millions", m);
    else if (m > 0)
        snprintf(buf, cap, "%lld millions, %lld thousands", m, k);
    else
        snprintf(buf, cap, "%lld thousands", execs / 1000);
}

Test(afl_tools, whatsup_sums_ended_campaigns_and_plot_draws_one, .timeout = 90)
{
    need_tools();
    char root[128], c1[160], c2[160];
    snprintf(root, sizeof root, "%s", df_test_tmpdir("afl-done"));
    snprintf(c1, sizeof c1, "%s/c1", root);
    snprintf(c2, sizeof c2, "%s/c2", root);
    /* seed 5 reaches m-hang's length at case 481: one hang, a bug finding */
    int rc = sh("./dotfuzz run --backend host --kernel shfl,m-hang --seed 5 --time 5s "
                "--watchdog 2s --stats-every 0.5s --quiet --out %s", c1);
    cr_assert_eq(rc, 1, "%s", out);
    rc = sh("./dotfuzz run --backend host --kernel fold,shfl --cases 3000 --quiet --out %s", c2);
    cr_assert_eq(rc, 0, "%s", out);
    long long e1 = stat_of(c1, "execs_done"), e2 = stat_of(c2, "execs_done");
    long long r1 = stat_of(c1, "run_time"), r2 = stat_of(c2, "run_time");
    cr_assert_eq(e2, 3000);
    cr_assert_gt(e1, 1000);
    cr_assert_eq(stat_of(c1, "saved_crashes"), 1);
    cr_assert_eq(stat_of(c1, "saved_hangs"), 1);
    cr_assert_gt(stat_of(c1, "last_crash"), 1700000000);
    cr_assert_eq(stat_of(c2, "saved_crashes"), 0);
    cr_assert_eq(stat_of(c2, "last_crash"), 0);

    rc = sh("afl-whatsup -s -d %s", root);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "Dead or remote : 2 (included in stats)"), "%s", out);
    char execs[64], want[96];
    whatsup_execs(execs, sizeof execs, e1 + e2);
    snprintf(want, sizeof want, "Total execs : %s\n", execs);
    cr_assert(strstr(out, want), "want %s in:\n%s", want, out);
    long long speed = (r1 ? e1 / r1 : 0) + (r2 ? e2 / r2 : 0);
    cr_assert_gt(speed, 0);
    cr_assert_eq(number_after("Cumulative speed : "), speed, "%s", out);
    cr_assert_eq(number_after("Crashes saved : "), 1, "%s", out);
    /* the per-campaign lines: banner, crashes, the kernel list as items */
    rc = sh("afl-whatsup -d %s", root);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, ">>> c1 ("), "%s", out);
    cr_assert(strstr(out, "crashes saved 1 (!)"), "%s", out);
    cr_assert(strstr(out, "no crashes yet"), "%s", out);
    cr_assert(strstr(out, "/2 ("), "%s", out);

    /* afl-plot: its four images, and gnuplot finding in the columns it
     * plots (8 crashes, 11 execs/s) and in total_execs (12) the numbers */
    rc = sh("afl-plot %s %s/plot", c1, root);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "All done"), "%s", out);
    static const char *const png[] = {"high_freq", "low_freq", "exec_speed", "edges"};
    for (size_t i = 0; i < 4; i++) {
        rc = sh("head -c 8 %s/plot/%s.png | od -An -tx1", root, png[i]);
        cr_assert(strstr(out, "89 50 4e 47 0d 0a 1a 0a"), "%s.png: %s", png[i], out);
    }
    rc = sh("grep -c 'Banner:</b></td><td>c1<' %s/plot/index.html", root);
    cr_assert_eq(rc, 0, "%s", out);
    rc = sh("gnuplot -e \"stats '%s/plot_data' using 8 nooutput; print 'crashes ', STATS_max; "
            "stats '%s/plot_data' using 11 nooutput; print 'speed ', STATS_max; "
            "stats '%s/plot_data' using 12 nooutput; print 'execs ', STATS_max\"",
            c1, c1, c1);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_eq(number_after("crashes "), 1, "%s", out);
    cr_assert_gt(number_after("speed "), 0, "%s", out);
    cr_assert_eq(number_after("execs "), e1, "%s", out);
}
