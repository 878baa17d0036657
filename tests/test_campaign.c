/* test_campaign.c — `dotfuzz run --out/--resume`: the supervisor, its
 * crash and hang handling, and the kill-and-resume promise (a campaign
 * SIGKILLed at 20 random moments and resumed each time ends with exactly
 * the findings and counts of one that never stopped, and no file it ever
 * showed is corrupt or lost; a third of the sessions double-buffer their
 * batches). Runs the built ./dotfuzz on the host backend. */
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz/corpus.h"
#include "tests/cli_helpers.h"

#define CAMPAIGN_KERNELS "shfl,fold,m-tail,m-wild-read"
#define CAMPAIGN_ARGS                                                                  \
    "--backend host --kernel " CAMPAIGN_KERNELS " --seed 5 --cases 12000 --jobs 2 "    \
    "--save-precision all --save-bugs all --stats-every 0.2 --quiet"

static char out[1 << 16];

/* A finding file's name: <kind>-<sha1> */
#define NAME_CAP 64

static char *slurp(const char *dir, const char *name)
{
    static char buf[4][1 << 17];
    static int slot;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *b = buf[slot++ % 4];
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    size_t n = fread(b, 1, sizeof buf[0] - 1, f);
    b[n] = 0;
    fclose(f);
    return b;
}

/* Every file in DIR/findings reads back as a valid case; returns how many. */
static size_t check_findings(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/findings", dir);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.' || strstr(de->d_name, ".tmp."))
            continue; /* a temporary file of an interrupted write is not a finding */
        char f[1024], msg[256];
        snprintf(f, sizeof f, "%s/%s", path, de->d_name);
        df_case_file cf;
        cr_assert_eq(df_corpus_read(f, &cf, msg, sizeof msg), DF_CORPUS_OK, "%s: %s", f, msg);
        df_case_file_free(&cf);
        n++;
    }
    closedir(d);
    return n;
}

/* Precision findings seen by check_log so far. */
static size_t precision_logged;

/* The complete lines of findings.jsonl are JSON objects naming files that
 * exist, each with its why text (a precision verdict is judged without it
 * in the batches, and again with it before it is saved: engine_record.c's
 * record); returns the number of lines, and their names in names. */
static size_t check_log(const char *dir, char (*names)[NAME_CAP], size_t cap)
{
    char path[512];
    snprintf(path, sizeof path, "%s/findings.jsonl", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[4096];
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        if (line[len - 1] != '\n')
            break; /* a torn last line: cut on resume */
        cr_assert_eq(line[0], '{', "%s", line);
        cr_assert_eq(line[len - 2], '}', "%s", line);
        cr_assert_null(strstr(line, "\"why\":\"\""), "a finding logged without its why: %s",
                       line);
        precision_logged += strstr(line, "\"verdict\":\"precision\"") != NULL;
        const char *p = strstr(line, "\"file\":\"findings/");
        cr_assert_not_null(p, "%s", line);
        p += strlen("\"file\":\"findings/");
        char file[600];
        int len_name = (int)strcspn(p, "\"");
        snprintf(file, sizeof file, "%s/findings/%.*s", dir, len_name, p);
        cr_assert_eq(access(file, R_OK), 0, "logged finding %s is missing", file);
        if (n < cap)
            snprintf(names[n], NAME_CAP, "%.*s", len_name, p);
        n++;
    }
    fclose(f);
    return n;
}

static int logged(char (*names)[NAME_CAP], size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return 1;
    return 0;
}

/* Starts dotfuzz with args in its own process group. */
static pid_t start(const char *args)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        setpgid(0, 0);
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "exec ./dotfuzz %s >/dev/null 2>&1", args);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    return pid;
}

static int wait_status(pid_t pid)
{
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

Test(campaign, kill_at_20_random_moments_and_resume_loses_nothing, .timeout = 240)
{
    char ref[128], dir[128];
    snprintf(ref, sizeof ref, "%s", df_test_tmpdir("camp-ref"));
    snprintf(dir, sizeof dir, "%s", df_test_tmpdir("camp-kill"));
    int rc = df_test_sh(out, sizeof out, "./dotfuzz run %s --out %s", CAMPAIGN_ARGS, ref);
    cr_assert_eq(rc, 1, "reference campaign: m-tail's bugs give exit 1\n%s", out);
    size_t ref_files = check_findings(ref);
    cr_assert_gt(ref_files, 10);

    static char before[4096][NAME_CAP];
    unsigned seed = (unsigned)time(NULL);
    cr_log_info("kill moments drawn with srand(%u)", seed);
    srand(seed);
    int kills = 0;
    for (int k = 0; k < 20; k++) {
        char args[1024], campaign_file[256];
        snprintf(campaign_file, sizeof campaign_file, "%s/campaign", dir);
        if (access(campaign_file, F_OK) != 0) /* killed before it existed: start again */
            snprintf(args, sizeof args, "run %s --out %s", CAMPAIGN_ARGS, dir);
        else /* --resume takes only the session's options; every third session's
              * workers double-buffer their batches */
            snprintf(args, sizeof args,
                     "run --resume %s --cases 12000 --jobs 2 --stats-every 0.2 --quiet%s", dir,
                     k % 3 == 0 ? " --threads 2 --pipeline on" : "");
        size_t nlog = check_log(dir, before, 4096);
        pid_t pid = start(args);
        usleep(20000 + (useconds_t)(rand() % 380000));
        /* half the time the whole group, half the supervisor alone (its
         * workers must die with it) */
        kill(k % 2 ? pid : -pid, SIGKILL);
        int st = wait_status(pid);
        cr_assert(st == 128 + SIGKILL || st == 1, "session %d ended with status %d", k, st);
        kills += st == 128 + SIGKILL;
        usleep(50000); /* the workers' death signal */
        check_findings(dir);
        static char after[4096][NAME_CAP];
        size_t nafter = check_log(dir, after, 4096);
        cr_assert_geq(nafter, nlog);
        for (size_t i = 0; i < nlog && i < 4096; i++)
            cr_assert(logged(after, nafter, before[i]), "finding %s lost", before[i]);
    }
    cr_assert_gt(kills, 10, "too few kills landed while running: %d", kills);
    rc = df_test_sh(out, sizeof out, "./dotfuzz run --resume %s --cases 12000 --quiet", dir);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert_eq(check_findings(dir), ref_files);
    static char names_ref[4096][NAME_CAP], names_dir[4096][NAME_CAP];
    size_t nr = check_log(ref, names_ref, 4096), nd = check_log(dir, names_dir, 4096);
    cr_assert_eq(nd, nr, "log lines: %zu resumed, %zu uninterrupted", nd, nr);
    cr_assert_gt(precision_logged, 0, "no precision finding logged");
    for (size_t i = 0; i < nr && i < 4096; i++)
        cr_assert(logged(names_dir, nd, names_ref[i]), "finding %s missing", names_ref[i]);
    cr_assert_str_eq(slurp(dir, "kernels.tsv"), slurp(ref, "kernels.tsv"));
    cr_assert_str_eq(slurp(dir, "profile.tsv"), slurp(ref, "profile.tsv"));
    cr_assert_str_eq(slurp(dir, "ratio_hist.tsv"), slurp(ref, "ratio_hist.tsv"));
    cr_assert_not_null(strstr(slurp(dir, "fuzzer_stats"), "cases_done        : 12000\n"));
    df_test_sh(out, sizeof out, "rm -rf %s %s", ref, dir);
}

Test(campaign, crash_and_hang_are_saved_and_replay_as_bugs, .timeout = 120)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s", df_test_tmpdir("camp-fault"));
    int rc = df_test_sh(out, sizeof out,
                        "./dotfuzz run --backend host --kernel m-wild-read,m-hang "
                        "--seed 13 --cases 12000 --jobs 2 --watchdog 0.5s --quiet --out %s/c",
                        dir);
    cr_assert_eq(rc, 1, "%s", out);
    char c[160];
    snprintf(c, sizeof c, "%s/c", dir);
    char *log = slurp(c, "findings.jsonl");
    cr_assert_not_null(strstr(log, "\"kernel\":\"m-wild-read\",\"verdict\":\"bug\",\"rule\":\"crash\""));
    cr_assert_not_null(strstr(log, "\"kernel\":\"m-hang\",\"verdict\":\"bug\",\"rule\":\"hang\""));
    cr_assert_not_null(strstr(log, "\"signal\":11"));
    char *stats = slurp(c, "fuzzer_stats");
    cr_assert_not_null(strstr(stats, "cases_done        : 12000\n"), "%s", stats);
    cr_assert_null(strstr(stats, "crashes           : 0\n"), "%s", stats);
    cr_assert_null(strstr(stats, "hangs             : 0\n"), "%s", stats);
    /* the first crash and hang findings replay as reproduced bugs */
    rc = df_test_sh(out, sizeof out,
                    "f=$(grep -m1 '\"rule\":\"crash\"' %s/findings.jsonl | "
                    "sed 's/.*\"file\":\"\\([^\"]*\\)\".*/\\1/'); "
                    "./dotfuzz replay --backend host %s/$f", c, c);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert_not_null(strstr(out, "worker process killed by signal 11"), "%s", out);
    cr_assert_not_null(strstr(out, " crash "), "%s", out);
    rc = df_test_sh(out, sizeof out,
                    "f=$(grep -m1 '\"rule\":\"hang\"' %s/findings.jsonl | "
                    "sed 's/.*\"file\":\"\\([^\"]*\\)\".*/\\1/'); "
                    "./dotfuzz replay --backend host --watchdog 0.5 %s/$f", c, c);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert_not_null(strstr(out, "still running after the 0.5 s watchdog"), "%s", out);
    cr_assert_not_null(strstr(out, " hang "), "%s", out);
    df_test_sh(out, sizeof out, "rm -rf %s", dir);
}

/* A GPU's illegal address loses the worker's CUDA context without a
 * signal; in a batch, where kernels run in turn, cases before the culprit
 * may be left unrun. The host backend emulates that (DF_HOST_STICKY_ENV):
 * the campaign must still finish every case (the dead batch runs again
 * one case at a time), save each culprit as an exec bug, and count what a
 * one-case-at-a-time campaign counts. Before the fix such a batch ran
 * again whole, forever. */
Test(campaign, a_lost_context_inside_a_batch_is_run_again_case_by_case, .timeout = 120)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s", df_test_tmpdir("camp-sticky"));
    /* one at a time, batches, double-buffered batches (two threads each),
     * and generated through the backend in DF_SETS_MAX sets of slots (a batch
     * recorded while the next one runs, the one that loses the context) */
    static const char *const how[] = {"--batch 1", "--batch 64",
                                      "--batch 64 --threads 2 --pipeline on",
                                      "--batch 64 --threads 2 --pipeline on --gen gpu"};
    static const char *const tag[] = {"", "", "p", "g"};
    for (int batch = 1, v = 0; v < 4; batch = 64, v++) {
        int rc = df_test_sh(out, sizeof out,
                            "DOTFUZZ_HOST_STICKY=1 ./dotfuzz run --backend host --kernel "
                            "shfl,m-wild-read,atomic-block --seed 3 --cases 30000 --jobs 2 "
                            "%s --save-bugs all --quiet --out %s/b%d%s", how[v], dir, batch,
                            tag[v]);
        cr_assert_eq(rc, 1, "batch %d: %s", batch, out);
        char c[160];
        snprintf(c, sizeof c, "%s/b%d%s", dir, batch, tag[v]);
        char *stats = slurp(c, "fuzzer_stats");
        cr_assert_not_null(strstr(stats, "cases_done        : 30000\n"), "%s", stats);
        cr_assert_not_null(strstr(stats, "pending_cases     : 0\n"), "%s", stats);
        /* 5 culprits (m-wild-read's cases of n mod 509 = 300 among its
         * 10,000, which it shares with shfl), each saved as an exec bug;
         * each costs at most two workers (its batch, its solo run) */
        rc = df_test_sh(out, sizeof out, "grep -c '\"kernel\":\"m-wild-read\",\"verdict\":"
                        "\"bug\",\"rule\":\"exec\"' %s/findings.jsonl", c);
        cr_assert_eq(atoi(out), 5, "batch %d: %s exec bugs", batch, out);
        const char *r = strstr(stats, "worker_restarts   : ");
        cr_assert_not_null(r);
        cr_assert_leq(strtoull(r + 20, NULL, 10), 10, "%s", stats);
    }
    int rc = df_test_sh(out, sizeof out, "cmp %s/b1/kernels.tsv %s/b64/kernels.tsv && "
                        "cmp %s/b1/ratio_hist.tsv %s/b64/ratio_hist.tsv && "
                        "cmp %s/b1/kernels.tsv %s/b64p/kernels.tsv && "
                        "cmp %s/b1/ratio_hist.tsv %s/b64p/ratio_hist.tsv && "
                        "cmp %s/b1/kernels.tsv %s/b64g/kernels.tsv && "
                        "cmp %s/b1/ratio_hist.tsv %s/b64g/ratio_hist.tsv",
                        dir, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir);
    cr_assert_eq(rc, 0, "%s", out);
    df_test_sh(out, sizeof out, "rm -rf %s", dir);
}

Test(campaign, sigint_finishes_with_a_summary_and_resume_continues, .timeout = 60)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s", df_test_tmpdir("camp-int"));
    char args[512];
    snprintf(args, sizeof args, "run --backend host --kernel shfl --seed 3 --time 30 "
                                "--quiet --out %s/c", dir);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "exec ./dotfuzz %s >%s/summary 2>&1", args, dir);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    usleep(800000);
    kill(pid, SIGINT);
    cr_assert_eq(wait_status(pid), 0);
    char *sum = slurp(dir, "summary");
    cr_assert_not_null(strstr(sum, "continue with `dotfuzz run --resume"), "%s", sum);
    char c[160];
    snprintf(c, sizeof c, "%s/c", dir);
    char *stats = slurp(c, "fuzzer_stats");
    unsigned long long done1 = 0, done2 = 0;
    cr_assert_eq(sscanf(strstr(stats, "cases_done"), "cases_done : %llu", &done1), 1);
    cr_assert_gt(done1, 0);
    int rc = df_test_sh(out, sizeof out, "./dotfuzz run --resume %s --time 0.5 --quiet", c);
    cr_assert_eq(rc, 0, "%s", out);
    stats = slurp(c, "fuzzer_stats");
    cr_assert_eq(sscanf(strstr(stats, "cases_done"), "cases_done : %llu", &done2), 1);
    cr_assert_gt(done2, done1);
    cr_assert_not_null(strstr(stats, "sessions          : 2\n"), "%s", stats);
    df_test_sh(out, sizeof out, "rm -rf %s", dir);
}

Test(campaign, bad_directories_and_fixed_options_are_refused)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s", df_test_tmpdir("camp-bad"));
    int rc = df_test_sh(out, sizeof out, "./dotfuzz run --resume %s/none --time 1", dir);
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert_not_null(strstr(out, "not a campaign directory"), "%s", out);
    /* a start killed while writing the campaign file leaves only its
     * temporary copy: the same --out starts again (and removes it) */
    rc = df_test_sh(out, sizeof out, "mkdir -p %s/t && echo x > %s/t/.campaign.tmp.AbC123 && "
                                     "./dotfuzz run --backend host --kernel shfl --out %s/t "
                                     "--cases 50 --quiet && test ! -e %s/t/.campaign.tmp.AbC123",
                    dir, dir, dir, dir);
    cr_assert_eq(rc, 0, "%s", out);
    rc = df_test_sh(out, sizeof out, "echo x > %s/file; ./dotfuzz run --backend host --out %s "
                                     "--time 1", dir, dir);
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert_not_null(strstr(out, "not empty"), "%s", out);
    /* beside another file, a leftover temporary copy is no reason to
     * start; a directory refused keeps no lock file of the refusal */
    rc = df_test_sh(out, sizeof out, "mkdir -p %s/u && echo x > %s/u/.campaign.tmp.AbC123 && "
                                     "echo x > %s/u/mine && ./dotfuzz run --backend host --out "
                                     "%s/u --time 1 2>&1; r=$?; test -e %s/u/.campaign.tmp.AbC123 && "
                                     "test ! -e %s/u/lock && exit $r", dir, dir, dir, dir, dir, dir);
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert_not_null(strstr(out, "not empty"), "%s", out);
    rc = df_test_sh(out, sizeof out, "./dotfuzz run --backend host --kernel shfl --out %s/c "
                                     "--cases 50 --quiet && ./dotfuzz run --resume %s/c --seed 9",
                    dir, dir);
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert_not_null(strstr(out, "--seed cannot be given"), "%s", out);
    rc = df_test_sh(out, sizeof out, "./dotfuzz run --backend host --out %s/c --time 1", dir);
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert_not_null(strstr(out, "holds a campaign already"), "%s", out);
    df_test_sh(out, sizeof out, "rm -rf %s", dir);
}

/* One process at a time holds a campaign directory: a second --resume, or
 * a second --out on the same empty directory, exits 3 naming the holder;
 * a dead holder keeps nothing. */
Test(campaign, a_directory_has_one_holder_at_a_time, .timeout = 120)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s", df_test_tmpdir("camp-lock"));
    int rc = df_test_sh(out, sizeof out, "./dotfuzz run --backend host --kernel shfl --cases "
                        "200 --quiet --out %s/c", dir);
    cr_assert_eq(rc, 0, "%s", out);
    /* a long resume holds it while a second one tries: the second starts
     * once the lock file names the first (however slow the machine) */
    rc = df_test_sh(out, sizeof out,
                    "./dotfuzz run --resume %s/c --time 60 --quiet > /dev/null 2>&1 & p=$!; "
                    "for i in $(seq 600); do grep -q \"^pid $p \" %s/c/lock && break; "
                    "sleep 0.1; done; ./dotfuzz run --resume %s/c --time 1 --quiet 2>&1; "
                    "r=$?; kill -INT $p; wait $p; exit $r", dir, dir, dir);
    cr_assert_eq(rc, 3, "%s", out);
    cr_assert(strstr(out, "is in use (pid ") && strstr(out, " on "), "%s", out);
    /* so does an --out of the directory the holder runs */
    rc = df_test_sh(out, sizeof out,
                    "./dotfuzz run --resume %s/c --time 60 --quiet > /dev/null 2>&1 & p=$!; "
                    "for i in $(seq 600); do grep -q \"^pid $p \" %s/c/lock && break; "
                    "sleep 0.1; done; ./dotfuzz run --backend host --kernel shfl --time 1 "
                    "--quiet --out %s/c 2>&1; r=$?; kill -INT $p; wait $p; exit $r",
                    dir, dir, dir);
    cr_assert_eq(rc, 3, "%s", out);
    cr_assert(strstr(out, "is in use (pid ") && strstr(out, " on "), "%s", out);
    /* two --out on one empty directory: one runs, the other is refused */
    rc = df_test_sh(out, sizeof out,
                    "mkdir %s/e || exit 9; (./dotfuzz run --backend host --kernel shfl --time 3 "
                    "--quiet --out %s/e > %s/a.txt 2>&1; echo $? >> %s/a.txt) & "
                    "(./dotfuzz run --backend host --kernel fold --time 3 --quiet --out %s/e "
                    "> %s/b.txt 2>&1; echo $? >> %s/b.txt) & wait; cat %s/a.txt %s/b.txt",
                    dir, dir, dir, dir, dir, dir, dir, dir, dir);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "is in use (pid ") && !strstr(out, "holds a campaign"),
              "exactly one refused, naming the other: %s", out);
    df_test_sh(out, sizeof out, "grep '^kernels :' %s/e/campaign", dir);
    cr_assert(!strcmp(out, "kernels : shfl\n") || !strcmp(out, "kernels : fold\n"), "%s", out);
    /* a holder killed outright keeps no lock */
    rc = df_test_sh(out, sizeof out,
                    "./dotfuzz run --resume %s/c --time 60 --quiet > /dev/null 2>&1 & p=$!; "
                    "for i in $(seq 600); do grep -q \"^pid $p \" %s/c/lock && break; "
                    "sleep 0.1; done; kill -KILL $p; wait $p; "
                    "./dotfuzz run --resume %s/c --time 1 --quiet 2>&1", dir, dir, dir);
    cr_assert_eq(rc, 0, "%s", out);
    df_test_sh(out, sizeof out, "rm -rf %s", dir);
}

/* What a campaign directory holds is checked as the command line is: a
 * damaged state or campaign file is refused with one line, never taken as
 * a fresh start or a value the command line would refuse. */
Test(campaign, a_damaged_directory_is_refused, .timeout = 60)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s", df_test_tmpdir("camp-damaged"));
    int rc = df_test_sh(out, sizeof out, "./dotfuzz run --backend host --kernel shfl --cases "
                        "100 --quiet --out %s/c && cp -r %s/c %s/keep", dir, dir, dir);
    cr_assert_eq(rc, 0, "%s", out);
    const char *edits[] = {
        ": > %s/c/state",                                        /* empty */
        "echo garbage >> %s/c/state",                            /* garbage */
        "sed -i 's/^next_index : .*/next_index : lots/' %s/c/state",
        "sed -i 's/^tol : .*/tol : -1/' %s/c/campaign",          /* refused by the CLI */
        "sed -i 's/^max_n : .*/max_n : 0/' %s/c/campaign",
        "sed -i 's/^seed : .*/seed : 0x10/' %s/c/campaign",
        "echo 'frobnicate : 1' >> %s/c/campaign",                /* unknown key */
        "sed -i '/^kernels :/d' %s/c/campaign",                  /* incomplete */
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        char edit[256];
        snprintf(edit, sizeof edit, edits[i], dir);
        rc = df_test_sh(out, sizeof out, "rm -rf %s/c && cp -r %s/keep %s/c && %s && "
                        "./dotfuzz run --resume %s/c --cases 200", dir, dir, dir, edit, dir);
        cr_assert_eq(rc, 2, "%s: exit %d: %s", edits[i], rc, out);
        cr_assert(strstr(out, "damaged"), "%s: %s", edits[i], out);
        cr_assert_null(strchr(strchr(out, '\n') + 1, '\n'), "%s: one line: %s", edits[i], out);
    }
}

/* --watchdog and --jobs are kept for --resume, which may change them. */
Test(campaign, a_resume_keeps_the_watchdog_and_the_jobs, .timeout = 60)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s", df_test_tmpdir("camp-kept"));
    int rc = df_test_sh(out, sizeof out, "./dotfuzz run --backend host --kernel shfl --cases "
                        "100 --jobs 2 --watchdog 7s --out %s/c 2>&1 | grep 'campaign'", dir);
    cr_assert(strstr(out, "2 worker(s), watchdog 7 s"), "%s", out);
    rc = df_test_sh(out, sizeof out, "./dotfuzz run --resume %s/c --cases 200 2>&1 | "
                    "grep 'campaign.*session 2'", dir);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "2 worker(s), watchdog 7 s"), "%s", out);
    rc = df_test_sh(out, sizeof out, "./dotfuzz run --resume %s/c --cases 300 --jobs 1 "
                    "--watchdog 3 2>&1 | grep 'campaign.*session 3'", dir);
    cr_assert(strstr(out, "1 worker(s), watchdog 3 s"), "%s", out);
    df_test_sh(out, sizeof out, "rm -rf %s", dir);
}
