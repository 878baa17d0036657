/* test_untrusted.c — a user's own kernel, in every mode, and nothing lost.
 * Plugins that segfault, abort, call exit(11) or exit(0), raise SIGTERM or
 * hang on some lengths run under `run` (with and without --out), `smoke`,
 * `replay DIR`, `merge`, `minimize` and `hunt`: every command survives,
 * writes whole JSON and JUnit, and leaves each such case as a reproducer
 * that `replay` judges `bug` (rule crash or hang, saying how). Plugins are
 * compiled here with cc; runs use the host backend. */
#include <criterion/criterion.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tests/cli_helpers.h"

#define OUT_MAX (1 << 17)
static char out[OUT_MAX];
#define sh(...) df_test_sh(out, OUT_MAX, __VA_ARGS__)

/* One f32 kernel named t-<name>, a plain sequential dot, that does `act`
 * when n % 13 == 5. */
static const char plugin_src[] =
    "#include <signal.h>\n"
    "#include <stdlib.h>\n"
    "#include <unistd.h>\n"
    "#include \"dotfuzz/plugin.h\"\n"
    "static int dot(const void *a, const void *b, uint64_t n, const dotfuzz_launch *l,\n"
    "               void *out) {\n"
    "    (void)l;\n"
    "    if (n % 13 == 5) { ACT; }\n"
    "    const float *x = a, *y = b;\n"
    "    float s = 0;\n"
    "    for (uint64_t i = 0; i < n; i++) s += x[i] * y[i];\n"
    "    *(float *)out = s;\n"
    "    return 0;\n"
    "}\n"
    "static const dotfuzz_kernel ks[] = {{NAME, \"misbehaves when n % 13 == 5\",\n"
    "    DOTFUZZ_F32, DOTFUZZ_F32, DOTFUZZ_DETERMINISTIC, 1, 1, 1, 0, 1, 0, 0, dot, 0, 0}};\n"
    "static const dotfuzz_plugin pl = {DOTFUZZ_PLUGIN_HEADER, 1, NAME, ks};\n"
    "const dotfuzz_plugin *dotfuzz_plugin_entry(void) { return &pl; }\n";

/* Builds dir/<name>.so, whose kernel t-<name> does act; returns its path. */
static const char *build(const char *dir, const char *name, const char *act)
{
    static char so[8][512];
    static int next;
    char *path = so[next++ % 8], src[512];
    snprintf(src, sizeof src, "%s/%s.c", dir, name);
    FILE *f = fopen(src, "w");
    cr_assert_not_null(f);
    fputs(plugin_src, f);
    fclose(f);
    snprintf(path, 512, "%s/%s.so", dir, name);
    int rc = sh("cc -std=c11 -Wall -Wextra -O2 -fPIC -shared -Iinclude '-DACT=%s' "
                "'-DNAME=\"t-%s\"' -o %s %s",
                act, name, path, src);
    cr_assert_eq(rc, 0, "cc %s: %s", name, out);
    return path;
}

/* The misbehaviours, and what the finding's why says of each. */
static const struct {
    const char *name, *act, *says, *rule;
} kinds[] = {
    {"segv", "volatile unsigned long z = 0; *(volatile int *)z = 1", "signal 11 (Segmentation fault)", "crash"},
    {"abort", "abort()", "signal 6 (Aborted)", "crash"},
    {"exit11", "exit(11)", "exit(11)", "crash"},
    {"exit0", "exit(0)", "exit(0)", "crash"},
    {"sigterm", "raise(SIGTERM)", "signal 15 (Terminated)", "crash"},
    {"hang", "for (;;) sleep(1)", "still running after the 0.5 s watchdog", "hang"},
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

/* The first file of dir whose replay (with plugin so) is a bug of rule;
 * its path in buf. */
static int first_finding(const char *dir, const char *so, const char *rule, char *buf,
                         size_t len)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "for f in %s/*; do ./dotfuzz replay --backend host --kernel-lib %s --watchdog 1 "
             "\"$f\" 2>/dev/null | grep -q ' %s ' && { echo \"$f\"; break; }; done",
             dir, so, rule);
    char got[OUT_MAX];
    df_test_sh(got, sizeof got, "%s", cmd);
    size_t n = strcspn(got, "\n");
    if (n == 0 || n >= len)
        return -1;
    memcpy(buf, got, n);
    buf[n] = 0;
    return 0;
}

/* Kind i under every command that runs kernels: run, run --out, smoke (its
 * JUnit and JSON whole), replay of the directory the run filled (every file
 * judged), merge (the case kept) and minimize (shrunk while the same rule
 * fires); each leaves a reproducer that replay judges a bug, saying how. */
static void every_mode(size_t i)
{
    char *d = df_test_tmpdir("untr");
    const char *name = kinds[i].name, *rule = kinds[i].rule;
    const char *so = build(d, name, kinds[i].act);
    /* a hang costs a watchdog period: fewer cases, a shorter watchdog */
    int hang = !strcmp(rule, "hang"), cases = hang ? 40 : 300;
    const char *wd = hang ? "0.5" : "1";
    int rc = sh("./dotfuzz run --backend host --kernel-lib %s --kernel t-%s --cases %d "
                "--seed 3 --watchdog %s --corpus %s/run", so, name, cases, wd, d);
    cr_assert_eq(rc, 1, "%s: run: exit %d: %s", name, rc, out);
    cr_assert(strstr(out, kinds[i].says), "%s: run: %s", name, out);
    /* each death is what the kernel did: an exit() is never read as a signal (the
     * destructors of a many-threaded process once turned it into an abort) */
    if (strstr(kinds[i].says, "exit("))
        cr_assert_null(strstr(out, "killed by signal"), "%s: run: %s", name, out);
    char ran[32];
    snprintf(ran, sizeof ran, "run: %d cases", cases);
    cr_assert(strstr(out, ran), "%s: every case ran: %s", name, out);
    char dir[512], file[1024];
    snprintf(dir, sizeof dir, "%s/run", d);
    cr_assert_eq(first_finding(dir, so, rule, file, sizeof file), 0, "%s: no %s finding "
                 "replays", name, rule);
    rc = sh("./dotfuzz replay --backend host --kernel-lib %s --watchdog %s %s", so, wd, file);
    cr_assert_eq(rc, 1, "%s: %s", name, out);
    cr_assert(strstr(out, kinds[i].says), "%s: replay: %s", name, out);
    /* the whole directory: every file judged, the summary printed */
    rc = sh("n=$(ls %s/run | wc -l); ./dotfuzz replay --backend host --kernel-lib %s "
            "--watchdog %s %s/run > /dev/null 2> %s/r.err; echo \"exit $? files $n\"; "
            "tail -n 1 %s/r.err", d, so, wd, d, d, d);
    unsigned listed = 0, judged = 0;
    cr_assert(strstr(out, "exit 1 files "), "%s: replay DIR: %s", name, out);
    sscanf(strstr(out, "files ") + 6, "%u", &listed);
    cr_assert(strstr(out, " file(s), 0 unreadable") && sscanf(strstr(out, "replay: ") + 8,
              "%u", &judged) == 1 && judged == listed, "%s: replay DIR: %s", name, out);
    /* a campaign */
    rc = sh("./dotfuzz run --backend host --kernel-lib %s --kernel t-%s --cases %d --seed 4 "
            "--watchdog %s --quiet --out %s/camp > /dev/null && echo clean; "
            "grep -E '^(crashes|hangs) ' %s/camp/fuzzer_stats", so, name, cases, wd, d, d);
    cr_assert(!strstr(out, "clean") && !strstr(out, hang ? "hangs             : 0\n"
                                                         : "crashes           : 0\n"),
              "%s: run --out: %s", name, out);
    /* smoke: stops at the case, saves it, writes whole reports */
    rc = sh("mkdir -p %s/reg && ./dotfuzz smoke --backend host --kernel-lib %s --kernel t-%s "
            "--corpus %s/reg --time 4 --watchdog %s --findings %s/found --junit %s/x.xml "
            "--json %s/y.json", d, so, name, d, wd, d, d, d);
    cr_assert_eq(rc, 1, "%s: smoke: %s", name, out);
    cr_assert_eq(sh("python3 -c 'import json, sys, xml.dom.minidom\n"
                    "xml.dom.minidom.parse(sys.argv[1])\n"
                    "print(json.load(open(sys.argv[2]))[\"bug\"][\"rule\"])' %s/x.xml %s/y.json",
                    d, d), 0, "%s: smoke reports: %s", name, out);
    cr_assert(strstr(out, rule), "%s: smoke's bug: %s", name, out);
    rc = sh("./dotfuzz replay --backend host --kernel-lib %s --watchdog %s %s/found", so, wd, d);
    cr_assert_eq(rc, 1, "%s: smoke's finding: %s", name, out);
    /* merge keeps it; minimize shrinks it while it still fires */
    rc = sh("./dotfuzz merge --backend host --kernel-lib %s --watchdog %s %s/merged %s/run",
            so, wd, d, d);
    cr_assert_eq(rc, 0, "%s: merge: %s", name, out);
    rc = sh("ls %s/merged | grep -c '^%s-'", d, rule);
    cr_assert_eq(rc, 0, "%s: merge kept no %s file: %s", name, rule, out);
    rc = sh("cp %s %s/case && ./dotfuzz minimize --backend host --kernel-lib %s --watchdog %s "
            "--max-tries %d %s/case", file, d, so, wd, hang ? 12 : 200, d);
    cr_assert_eq(rc, 0, "%s: minimize: %s", name, out);
    rc = sh("./dotfuzz replay --backend host --kernel-lib %s --watchdog %s %s/case.min", so, wd,
            d);
    cr_assert_eq(rc, 1, "%s: minimized: %s", name, out);
    cr_assert(strstr(out, kinds[i].says), "%s: minimized: %s", name, out);
}

Test(untrusted, a_segfaulting_kernel_in_every_mode, .timeout = 120) { every_mode(0); }
Test(untrusted, an_aborting_kernel_in_every_mode, .timeout = 120) { every_mode(1); }
Test(untrusted, an_exiting_kernel_in_every_mode, .timeout = 120) { every_mode(2); }
Test(untrusted, a_kernel_calling_exit_0_in_every_mode, .timeout = 120) { every_mode(3); }
Test(untrusted, a_kernel_raising_sigterm_in_every_mode, .timeout = 120) { every_mode(4); }
Test(untrusted, a_hanging_kernel_in_every_mode, .timeout = 180) { every_mode(5); }

/* The segfaulting and the hanging plugin of kinds[], built into d. */
static void build_segv_and_hang(const char *d, const char **segv, const char **hang)
{
    *segv = build(d, kinds[0].name, kinds[0].act);
    *hang = build(d, kinds[NKINDS - 1].name, kinds[NKINDS - 1].act);
}

/* hunt takes a plugin as a correct kernel: one that crashes and one that
 * hangs finish their budget, each counted with false alarms, and the JSON
 * is whole. */
Test(untrusted, hunt_survives_a_crashing_and_a_hanging_plugin, .timeout = 120)
{
    char *d = df_test_tmpdir("untr-hunt");
    const char *segv, *hang;
    build_segv_and_hang(d, &segv, &hang);
    int rc = sh("./dotfuzz hunt --backend host --kernel-lib %s --kernel-lib %s --kernel "
                "t-segv,t-hang --cases 200 --time 0 --watchdog 0.3 --json > %s/h.json; "
                "echo rc=$?; python3 -c 'import json, sys\n"
                "j = json.load(open(sys.argv[1]))\n"
                "for k in j[\"kernels\"]: print(k[\"kernel\"], k[\"cases\"], "
                "k[\"false_alarms\"][\"ours\"] > 0)' %s/h.json",
                segv, hang, d, d);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "rc=1\n"), "%s", out);
    cr_assert(strstr(out, "t-segv 200 True\n"), "%s", out);
    cr_assert(strstr(out, "t-hang 200 True\n"), "%s", out);
}

Test(untrusted, a_campaign_survives_exit_and_sigterm_and_counts_them, .timeout = 120)
{
    char *d = df_test_tmpdir("untr-camp");
    const char *kinds3[] = {"exit11", "exit0", "sigterm"};
    const char *acts[] = {"exit(11)", "exit(0)", "raise(SIGTERM)"};
    for (size_t i = 0; i < 3; i++) {
        const char *so = build(d, kinds3[i], acts[i]);
        int rc = sh("./dotfuzz run --backend host --kernel-lib %s --kernel t-%s --cases 400 "
                    "--seed 3 --quiet --out %s/camp-%s && echo clean",
                    so, kinds3[i], d, kinds3[i]);
        cr_assert_eq(rc, 1, "%s: exit %d (a kernel's exit is not the campaign's): %s",
                     kinds3[i], rc, out);
        char path[512];
        snprintf(path, sizeof path, "%s/camp-%s/fuzzer_stats", d, kinds3[i]);
        rc = sh("grep -E '^(cases_done|crashes) ' %s", path);
        cr_assert(strstr(out, "cases_done        : 400"), "%s: %s", kinds3[i], out);
        cr_assert(!strstr(out, "crashes           : 0\n"), "%s: %s", kinds3[i], out);
    }
}

Test(untrusted, a_hang_inside_the_time_budget_is_recorded_in_time, .timeout = 60)
{
    char *d = df_test_tmpdir("untr-hang");
    /* seed 5 reaches m-hang's length at case 481; a batch holding it hangs,
     * is run again case by case, and the case hangs alone */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = sh("./dotfuzz run --backend host --kernel shfl,m-hang --seed 5 --time 5s "
                "--watchdog 2s --out %s/c", d);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double took = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert_lt(took, 10, "took %.1f s: %s", took, out);
    rc = sh("grep -E '^hangs ' %s/c/fuzzer_stats", d);
    cr_assert(strstr(out, "hangs             : 1\n"), "%s", out);
    /* the same without a campaign directory */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc = sh("./dotfuzz run --backend host --kernel shfl,m-hang --seed 5 --time 5s "
            "--watchdog 2s --corpus %s/plain", d);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    took = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert_lt(took, 10, "took %.1f s: %s", took, out);
    cr_assert(strstr(out, "1 hang(s)"), "%s", out);
}

Test(untrusted, a_stalled_reader_makes_no_false_hang, .timeout = 60)
{
    char *d = df_test_tmpdir("untr-stall");
    /* every bug gets a line on stderr; nobody reads them for 4 s, longer
     * than the watchdog: the supervisor blocks on its output, the workers
     * on their messages, and no case is a hang */
    int rc = sh("./dotfuzz run --backend host --kernel m-tail,shfl --seed 2 --time 3s "
                "--save-bugs all --watchdog 1s --corpus %s/c 2>&1 | (sleep 4; cat) | "
                "grep -c '^HANG'",
                d);
    cr_assert_eq(rc, 1, "HANG lines: %s", out);
    cr_assert(strstr(out, "0"), "%s", out);
}

/* 49 cases that run, then one whose kernel crashes, then more: every file
 * is judged, the summary printed, each JSON line whole. */
Test(untrusted, replay_of_a_directory_judges_every_file, .timeout = 120)
{
    char *d = df_test_tmpdir("untr-replay");
    const char *so = build(d, "segv", "volatile unsigned long z = 0; *(volatile int *)z = 1");
    int rc = sh("./dotfuzz run --backend host --kernel-lib %s --kernel t-segv --cases 300 "
                "--seed 3 --save-precision all --save-bugs all --quiet --corpus %s/all",
                so, d);
    cr_assert_eq(rc, 1, "%s", out);
    char crash[1024], all[512];
    snprintf(all, sizeof all, "%s/all", d);
    cr_assert_eq(first_finding(all, so, "crash", crash, sizeof crash), 0);
    /* 49 others beside it, in name order on either side of it */
    rc = sh("mkdir %s/fifty && cp %s %s/fifty/8-crash && ls %s/all | grep -v $(basename %s) | "
            "head -n 49 | while read f; do cp %s/all/$f %s/fifty/; done && ls %s/fifty | wc -l",
            d, crash, d, d, crash, d, d, d);
    cr_assert_eq(atoi(out), 50, "%s", out);
    rc = sh("./dotfuzz replay --backend host --kernel-lib %s --json %s/fifty > %s/r.json "
            "2> %s/r.err; echo rc=$?; cat %s/r.err", so, d, d, d, d);
    cr_assert(strstr(out, "rc=1"), "%s", out);
    cr_assert(strstr(out, "50 file(s), 0 unreadable"), "%s", out);
    rc = sh("python3 -c 'import json,sys\n"
            "rows = [json.loads(l) for l in open(sys.argv[1])]\n"
            "print(len(rows), sum(r[\"rule\"] == \"crash\" for r in rows))' %s/r.json", d);
    cr_assert_eq(rc, 0, "%s", out);
    int rows = 0, crashes = 0;
    cr_assert_eq(sscanf(out, "%d %d", &rows, &crashes), 2, "%s", out);
    cr_assert_geq(rows, 50, "%s", out);
    cr_assert_geq(crashes, 1, "%s", out);
    /* merge takes the crashing case as a finding, and finishes */
    rc = sh("./dotfuzz merge --backend host --kernel-lib %s %s/merged %s/fifty", so, d, d);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "total: read 50"), "%s", out);
    rc = sh("./dotfuzz replay --backend host --kernel-lib %s %s/merged", so, d);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert(strstr(out, " crash "), "%s", out);
    /* minimize shrinks it while it still crashes, next to the input */
    rc = sh("./dotfuzz minimize --backend host --kernel-lib %s --max-tries 200 %s/fifty/8-crash",
            so, d);
    cr_assert_eq(rc, 0, "%s", out);
    rc = sh("./dotfuzz replay --backend host --kernel-lib %s %s/fifty/8-crash.min", so, d);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert(strstr(out, "signal 11"), "%s", out);
}

Test(untrusted, smoke_writes_its_reports_when_a_kernel_crashes, .timeout = 120)
{
    char *d = df_test_tmpdir("untr-smoke");
    const char *so = build(d, "segv", "volatile unsigned long z = 0; *(volatile int *)z = 1");
    int rc = sh("mkdir -p %s/reg && ./dotfuzz smoke --backend host --kernel-lib %s --kernel "
                "t-segv --corpus %s/reg --time 4 --findings %s/found --junit %s/x.xml "
                "--json %s/y.json",
                d, so, d, d, d, d);
    cr_assert_eq(rc, 1, "%s", out);
    char xml[600];
    snprintf(xml, sizeof xml, "%s/x.xml", d);
    df_test_assert_junit_valid(xml);
    cr_assert_eq(sh("python3 -c 'import json,sys; j = json.load(open(sys.argv[1])); "
                    "print(j[\"bug\"][\"rule\"])' %s/y.json", d), 0, "%s", out);
    cr_assert(strstr(out, "crash"), "%s", out);
    rc = sh("./dotfuzz replay --backend host --kernel-lib %s %s/found", so, d);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert(strstr(out, "signal 11"), "%s", out);
}

/* The counts agree: the summary, fuzzer_stats, findings.jsonl, the files
 * in findings/ (one name prefix a kind) and the report say the same
 * numbers of crashes, hangs and findings. */
Test(untrusted, the_counts_agree_everywhere, .timeout = 120)
{
    char *d = df_test_tmpdir("untr-count");
    const char *segv, *hang;
    build_segv_and_hang(d, &segv, &hang);
    int rc = sh("./dotfuzz run --backend host --kernel-lib %s --kernel-lib %s "
                "--kernel t-segv,t-hang,m-tail,shfl --cases 240 --seed 3 --watchdog 0.3s "
                "--save-bugs all --save-precision all --quiet --out %s/c > %s/summary",
                segv, hang, d, d);
    cr_assert_eq(rc, 1, "%s", out);
    unsigned crashes = 0, hangs = 0, saved = 0, logged = 0, lines = 0, files = 0;
    unsigned l_crash = 0, l_hang = 0, f_crash = 0, f_hang = 0, sum_crash = 0, sum_hang = 0;
    sh("awk '$1 == \"crashes\" { c = $3 } $1 == \"hangs\" { h = $3 } "
       "$1 == \"findings_saved\" { s = $3 } $1 == \"findings_logged\" { l = $3 } "
       "END { print c, h, s, l }' %s/c/fuzzer_stats", d);
    cr_assert_eq(sscanf(out, "%u %u %u %u", &crashes, &hangs, &saved, &logged), 4, "%s", out);
    sh("wc -l < %s/c/findings.jsonl; grep -c '\"rule\":\"crash\"' %s/c/findings.jsonl; "
       "grep -c '\"rule\":\"hang\"' %s/c/findings.jsonl; ls %s/c/findings | wc -l; "
       "ls %s/c/findings | grep -c '^crash-'; ls %s/c/findings | grep -c '^hang-'",
       d, d, d, d, d, d);
    cr_assert_eq(sscanf(out, "%u %u %u %u %u %u", &lines, &l_crash, &l_hang, &files, &f_crash,
                        &f_hang), 6, "%s", out);
    sh("sed -n 's/.*worker processes lost: \\([0-9]*\\) crash(es), \\([0-9]*\\) hang(s).*/\\1 "
       "\\2/p' %s/summary", d);
    cr_assert_eq(sscanf(out, "%u %u", &sum_crash, &sum_hang), 2, "%s", out);
    cr_assert_gt(crashes, 0);
    cr_assert_gt(hangs, 0);
    cr_assert(crashes == l_crash && crashes == f_crash && crashes == sum_crash,
              "crashes: stats %u, log %u, files %u, summary %u", crashes, l_crash, f_crash,
              sum_crash);
    cr_assert(hangs == l_hang && hangs == f_hang && hangs == sum_hang,
              "hangs: stats %u, log %u, files %u, summary %u", hangs, l_hang, f_hang, sum_hang);
    cr_assert(saved == logged && logged == lines && lines == files,
              "findings: saved %u, logged %u, log lines %u, files %u", saved, logged, lines,
              files);
    rc = sh("./dotfuzz report %s/c --no-plots >/dev/null && grep -E '^[0-9]+ findings\\.|"
            "^[0-9]+ crash and hang findings' %s/c/report/report.md", d, d);
    cr_assert_eq(rc, 0, "%s", out);
    char want[64];
    snprintf(want, sizeof want, "%u findings.", lines);
    cr_assert(strstr(out, want), "%s", out);
    snprintf(want, sizeof want, "%u crash and hang findings", crashes + hangs);
    cr_assert(strstr(out, want), "%s", out);
}
