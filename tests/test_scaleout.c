/* test_scaleout.c — the Slurm scale-out end to end on the host backend:
 * scripts/slurm-campaign.sh run as plain bash, three array tasks at once
 * (SLURM_ARRAY_TASK_ID 0, 1, 2), then `dotfuzz merge` of their campaign
 * directories and `dotfuzz report` of the result. Runs ./dotfuzz from the
 * repository root (make test builds it first). */
#include <criterion/criterion.h>

#include "tests/cli_helpers.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OUT_MAX (1 << 16)
#define NTASKS 3
#define BASE 3000 /* task i fuzzes with seed BASE + i: m-wild-read meets its
                     crashing length (n mod 509 = 300) in these tasks */
#define KERNELS "shfl,m-tail,m-wild-read"

#define sh(buf, ...) df_test_sh(buf, OUT_MAX, __VA_ARGS__)

static char out[OUT_MAX];

/* The whole file, NUL-terminated (malloc'd). */
static char *slurp(const char *fmt, const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, fmt, dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    cr_assert_not_null(s);
    s[fread(s, 1, (size_t)n, f)] = '\0';
    fclose(f);
    return s;
}

/* Runs the array tasks 0..NTASKS-1 of the Slurm script concurrently into
 * root, each with `cases` cases; asserts every task exits 0. */
static void run_tasks(const char *root, int cases)
{
    cr_assert_eq(sh(out, "for i in 0 1 2; do (SLURM_ARRAY_TASK_ID=$i ROOT=%s BASE=%d "
                         "BACKEND=host KERNELS=" KERNELS " CASES=%d DURATION=60s "
                         "DOTFUZZ=./dotfuzz bash scripts/slurm-campaign.sh >%s/log$i 2>&1; "
                         "echo $? >%s/rc$i) & done; wait",
                    root, BASE, cases, root, root),
                 0);
    for (int i = 0; i < NTASKS; i++) {
        char name[32];
        snprintf(name, sizeof name, "%%s/rc%d", i);
        char *rc = slurp(name, root);
        cr_assert_str_eq(rc, "0\n", "task %d exited %s", i, rc);
        free(rc);
    }
}

/* root with three campaigns in root/task-{0,1,2} and their merge in
 * root/merged. */
static const char *setup_merged(void)
{
    static char root[96];
    snprintf(root, sizeof root, "%s", df_test_tmpdir("scaleout"));
    run_tasks(root, 3000);
    cr_assert_eq(sh(out, "./dotfuzz merge %s/merged %s/task-*", root, root), 0, "%s", out);
    return root;
}

/* The value of key in a key : value file. */
static double stat_of(const char *text, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\n%s ", key);
    const char *p = !strncmp(text, pat + 1, strlen(pat + 1)) ? text : strstr(text, pat);
    cr_assert_not_null(p, "no %s", key);
    p = strstr(p, " : ");
    cr_assert_not_null(p);
    return strtod(p + 3, NULL);
}

/* Column col of kernel's row of a kernels.tsv text (-1 when no row). */
static double kernel_col(const char *tsv, const char *kernel, int col)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\n%s\t", kernel);
    const char *p = strstr(tsv, pat);
    if (!p)
        return -1;
    p += strlen(pat);
    for (int c = 1; c < col; c++) {
        p = strchr(p, '\t');
        cr_assert_not_null(p, "%s: short row", kernel);
        p++;
    }
    return strtod(p, NULL);
}

/* The "file" value of a findings.jsonl line into buf. */
static void file_of(const char *line, char *buf, size_t cap)
{
    const char *p = strstr(line, "\"file\":\"");
    cr_assert_not_null(p);
    p += 8;
    size_t n = strcspn(p, "\"");
    cr_assert_lt(n, cap);
    memcpy(buf, p, n);
    buf[n] = '\0';
}

Test(scaleout, array_tasks_run_as_plain_bash_with_seed_base_plus_id_and_resume)
{
    char *root = df_test_tmpdir("scaleout-tasks");
    run_tasks(root, 1500);
    for (int i = 0; i < NTASKS; i++) {
        char dir[160];
        snprintf(dir, sizeof dir, "%s/task-%d", root, i);
        char *camp = slurp("%s/campaign", dir), *log = slurp("%s/findings.jsonl", dir);
        cr_assert_eq(stat_of(camp, "seed"), BASE + i);
        cr_assert(strstr(camp, "\nkernels : " KERNELS "\n"));
        cr_assert(strstr(log, "\"verdict\":\"bug\""), "m-tail's bug found, exit 1, task still 0");
        free(camp);
        free(log);
    }
    /* a requeued task finds its campaign and continues it */
    cr_assert_eq(sh(out, "SLURM_ARRAY_TASK_ID=1 ROOT=%s CASES=2500 DOTFUZZ=./dotfuzz "
                         "bash scripts/slurm-campaign.sh",
                    root),
                 0, "%s", out);
    cr_assert(strstr(out, "resuming"), "%s", out);
    char dir[160];
    snprintf(dir, sizeof dir, "%s/task-1", root);
    char *st = slurp("%s/fuzzer_stats", dir);
    cr_assert_eq(stat_of(st, "sessions"), 2);
    cr_assert_eq(stat_of(st, "cases_done"), 2500);
    free(st);
    /* not a task number: refused before anything runs */
    cr_assert_eq(sh(out, "SLURM_ARRAY_TASK_ID=x ROOT=%s bash scripts/slurm-campaign.sh", root), 2);
    cr_assert(strstr(out, "not a task number"), "%s", out);
}

Test(scaleout, merge_sums_kernel_cases_and_verdicts_and_lists_every_seed)
{
    const char *root = setup_merged();
    char dir[160];
    char *mk = slurp("%s/merged/kernels.tsv", root), *ms = slurp("%s/merged/fuzzer_stats", root);
    char *mc = slurp("%s/merged/campaign", root);
    const char *kernels[] = {"shfl", "m-tail", "m-wild-read"};
    const char *keys[] = {"cases_done", "ok", "precision", "bug", "crashes", "sessions"};
    double kcases[3] = {0}, sums[6] = {0};
    for (int i = 0; i < NTASKS; i++) {
        snprintf(dir, sizeof dir, "%s/task-%d", root, i);
        char *k = slurp("%s/kernels.tsv", dir), *s = slurp("%s/fuzzer_stats", dir);
        for (int j = 0; j < 3; j++)
            kcases[j] += kernel_col(k, kernels[j], 1);
        for (int j = 0; j < 6; j++)
            sums[j] += stat_of(s, keys[j]);
        free(k);
        free(s);
    }
    for (int j = 0; j < 3; j++)
        cr_assert_eq(kernel_col(mk, kernels[j], 1), kcases[j], "%s", kernels[j]);
    for (int j = 0; j < 6; j++)
        cr_assert_eq(stat_of(ms, keys[j]), sums[j], "%s", keys[j]);
    cr_assert_eq(sums[0], 3 * 3000);
    cr_assert(strstr(mc, "\nseed : 3000,3001,3002\n"), "%s", mc);
    cr_assert(strstr(mc, "\nmerged : 3\n"));
    cr_assert_eq(strncmp(mk, "kernel\tcases\t", 13), 0, "the header row first: %s", mk);
    free(mk);
    free(ms);
    free(mc);
}

Test(scaleout, merge_keeps_every_new_crash_and_kept_files_exist_and_replay)
{
    const char *root = setup_merged();
    char dir[160], file[128], path[320];
    char *merged = slurp("%s/merged/findings.jsonl", root);
    size_t total = 0, crashes = 0, kept = 0;
    for (int i = 0; i < NTASKS; i++) {
        snprintf(dir, sizeof dir, "%s/task-%d", root, i);
        char *log = slurp("%s/findings.jsonl", dir);
        for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
            total++;
            if (!strstr(line, "\"rule\":\"crash\""))
                continue;
            crashes++;
            cr_assert(strstr(merged, line), "crash line not merged: %s", line);
        }
        free(log);
    }
    cr_assert_gt(crashes, 0, "m-wild-read crashed in none of the tasks");
    char *first_bug = NULL;
    for (char *line = strtok(merged, "\n"); line; line = strtok(NULL, "\n")) {
        kept++;
        file_of(line, file, sizeof file);
        snprintf(path, sizeof path, "%s/merged/%s", root, file);
        cr_assert_eq(access(path, R_OK), 0, "%s missing", path);
        if (!first_bug && strstr(line, "\"kernel\":\"m-tail\"") &&
            strstr(line, "\"verdict\":\"bug\""))
            first_bug = line;
    }
    cr_assert_leq(kept, total);
    cr_assert_lt(kept, total, "some findings of three campaigns of one kind are redundant");
    cr_assert_not_null(first_bug);
    file_of(first_bug, file, sizeof file);
    cr_assert_eq(sh(out, "./dotfuzz replay --backend host %s/merged/%s", root, file), 1, "%s",
                 out);
    cr_assert(strstr(out, "m-tail") && strstr(out, " bug "), "%s", out);
    free(merged);
}

Test(scaleout, merge_refuses_nonempty_out_and_mixed_inputs_with_2)
{
    const char *root = setup_merged();
    cr_assert_eq(sh(out, "./dotfuzz merge %s/merged %s/task-0", root, root), 2);
    cr_assert(strstr(out, "not an empty directory"), "%s", out);
    cr_assert_eq(sh(out, "./dotfuzz merge %s/m2 %s/task-0 %s/task-1/findings", root, root, root),
                 2);
    cr_assert(strstr(out, "task-1/findings' is not a campaign directory"), "%s", out);
    struct stat sb;
    char m2[160];
    snprintf(m2, sizeof m2, "%s/m2", root);
    cr_assert_neq(stat(m2, &sb), 0, "nothing written on a usage error");
}

Test(scaleout, merged_directory_is_reported)
{
    const char *root = setup_merged();
    cr_assert_eq(sh(out, "./dotfuzz report %s/merged --no-plots", root), 0, "%s", out);
    char *md = slurp("%s/merged/report/report.md", root);
    cr_assert(strstr(md, "| seed | 3000,3001,3002 |"), "%s", md);
    cr_assert(strstr(md, "| m-wild-read | 3000 |"), "%s", md);
    free(md);
}

Test(scaleout, unlogged_files_are_copied_and_an_unreadable_input_exits_2)
{
    const char *root = setup_merged();
    /* task-0 killed between saving a finding and logging it: its last line
     * gone; and a directory that claims to be a campaign but has no stats */
    char *log = slurp("%s/task-0/findings.jsonl", root);
    char *last = strrchr(log, '\n');
    *last = '\0';
    last = strrchr(log, '\n');
    char file[128];
    file_of(last ? last + 1 : log, file, sizeof file);
    cr_assert_eq(sh(out, "cd %s && cp -r task-0 cut && head -n -1 task-0/findings.jsonl "
                         ">cut/findings.jsonl && mkdir broken && touch broken/campaign",
                    root),
                 0, "%s", out);
    cr_assert_eq(sh(out, "./dotfuzz merge %s/m3 %s/broken %s/cut", root, root, root), 2, "%s",
                 out);
    cr_assert(strstr(out, "broken' is not a campaign directory"), "%s", out);
    char path[320];
    snprintf(path, sizeof path, "%s/m3/%s", root, file);
    cr_assert_eq(access(path, R_OK), 0, "unlogged %s not copied", file);
    cr_assert(strstr(out, "unlogged files copied"), "%s", out);
    char *st = slurp("%s/m3/fuzzer_stats", root);
    cr_assert_eq(stat_of(st, "merged"), 1);
    free(st);
    free(log);
}
