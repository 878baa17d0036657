/* sanitize.c — a dotfuzz command rerun under compute-sanitizer, its first
 * report read back (sanitize.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fuzz/corpus.h"
#include "fuzz/run/sanitize.h"
#include "fuzz/run/supervisor.h"
#include "fuzz/util.h"

#define EXIT_REPORTED 99 /* --error-exitcode: the tool found an error */
#define KEEP (64 * 1024) /* output kept for parsing; the rest is read and dropped */

int df_sanitizer_parse(const char *cmd, const char *tool, df_sanitizer *s)
{
    static const char *const tools[] = {"memcheck", "racecheck", "synccheck", "initcheck"};
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        if (!strcmp(tool, tools[i])) {
            const char *p = getenv(DF_SANITIZER_ENV);
            s->tool = tools[i];
            s->program = p && *p ? p : "compute-sanitizer";
            return 0;
        }
    df_usage_error(cmd, "invalid --sanitize '%s' (memcheck, racecheck, synccheck or initcheck)",
                   tool);
    return -1;
}

/* The tool's lines start with "========= "; banners and summaries are not
 * reports. */
static const char *report_text(const char *line)
{
    static const char prefix[] = "========= ";
    if (strncmp(line, prefix, sizeof prefix - 1) != 0)
        return NULL;
    const char *t = line + sizeof prefix - 1;
    while (*t == ' ')
        t++;
    if (!*t || !strncmp(t, "COMPUTE-SANITIZER", 17) || strstr(t, "SUMMARY") ||
        !strncmp(t, "at ", 3) || !strncmp(t, "by ", 3) || !strncmp(t, "Saved host", 10) ||
        !strncmp(t, "Host Frame", 10) || !strncmp(t, "Program hit", 11))
        return NULL;
    return t;
}

/* The first report in out, and the first "at KERNEL" line after it. */
static void first_report(char *out, char *why, size_t len)
{
    const char *head = NULL, *where = NULL;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        if (!head) {
            head = report_text(line);
            continue;
        }
        const char *at = strstr(line, " at ");
        if (!strncmp(line, "=========", 9) && at) {
            where = at + 1;
            break;
        }
        if (report_text(line))
            break;
    }
    if (!head) {
        snprintf(why, len, "compute-sanitizer reported an error (its output had no report line)");
        return;
    }
    if (where) {
        /* "at KERNEL(...)+0x10 in FILE:LINE": the kernel and its offset */
        int w = (int)strcspn(where, "\n");
        const char *in = strstr(where, " in ");
        if (in && in - where < w)
            w = (int)(in - where);
        snprintf(why, len, "%s, %.*s", head, w, where);
    } else {
        snprintf(why, len, "%s", head);
    }
}

int df_sanitizer_run(const df_sanitizer *s, char *const args[], char *why, size_t len)
{
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0) {
        snprintf(why, len, "cannot find this executable: %s", strerror(errno));
        return -1;
    }
    self[sl] = '\0';
    size_t nargs = 0;
    while (args[nargs])
        nargs++;
    char **argv = calloc(nargs + 9, sizeof *argv);
    char *out = malloc(KEEP + 1);
    int fd[2] = {-1, -1};
    if (!argv || !out || pipe(fd) != 0) {
        snprintf(why, len, "cannot start %s: %s", s->program, strerror(errno));
        free(argv), free(out);
        if (fd[0] >= 0)
            close(fd[0]), close(fd[1]);
        return -1;
    }
    size_t a = 0;
    argv[a++] = (char *)s->program;
    argv[a++] = "--tool";
    argv[a++] = (char *)s->tool;
    argv[a++] = "--error-exitcode";
    argv[a++] = "99";
    argv[a++] = "--print-limit";
    argv[a++] = "10";
    argv[a++] = self;
    for (size_t i = 0; i < nargs; i++)
        argv[a++] = args[i];
    argv[a] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        dup2(fd[1], 2);
        close(fd[0]);
        close(fd[1]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fd[1]);
    size_t used = 0;
    char drop[4096];
    for (;;) {
        ssize_t r = used < KEEP ? read(fd[0], out + used, KEEP - used)
                                : read(fd[0], drop, sizeof drop);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        if (used < KEEP)
            used += (size_t)r;
    }
    out[used] = '\0';
    close(fd[0]);
    int st = 0, rc;
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (pid < 0) {
        snprintf(why, len, "cannot start %s: %s", s->program, strerror(errno));
        rc = -1;
    } else if (WIFEXITED(st) && WEXITSTATUS(st) == EXIT_REPORTED) {
        first_report(out, why, len);
        rc = 1;
    } else if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
        snprintf(why, len, "cannot run %s (not found: install the CUDA toolkit's "
                           "compute-sanitizer, or name it in %s)", s->program, DF_SANITIZER_ENV);
        rc = -1;
    } else if (WIFEXITED(st) && WEXITSTATUS(st) <= 1) {
        rc = 0; /* the command's own verdicts are its business */
    } else {
        /* the command under the tool failed: its last line says why */
        char *end = out + used;
        while (end > out && (end[-1] == '\n' || end[-1] == ' '))
            *--end = '\0';
        char *last = strrchr(out, '\n');
        snprintf(why, len, "%s under %s %s ended with status %d: %s", args[0], s->program,
                 s->tool, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st),
                 last ? last + 1 : out);
        rc = -1;
    }
    free(argv);
    free(out);
    return rc;
}

int df_sanitizer_replay(const df_sanitizer *s, const char *backend, const char *kernels,
                        const df_plugin_paths *libs, const char *path, char *why, size_t len)
{
    char *args[8 + 2 * DF_PLUGIN_PATHS_MAX];
    size_t a = 0;
    args[a++] = "replay";
    args[a++] = "--backend";
    args[a++] = (char *)backend;
    args[a++] = "--no-meta";
    if (kernels) {
        args[a++] = "--kernel";
        args[a++] = (char *)kernels;
    }
    for (size_t i = 0; i < libs->n; i++) {
        args[a++] = "--kernel-lib";
        args[a++] = (char *)libs->path[i];
    }
    args[a++] = (char *)path;
    args[a] = NULL;
    return df_sanitizer_run(s, args, why, len);
}

/* ---- the pass after a run ---- */

/* What a rerun under the sanitizer gave (rc and why: df_sanitizer_run's)
 * for what ran: a report is a BUG line; returns the outcome. */
static df_outcome reported(const df_sanitizer *san, int rc, const char *why, const char *what,
                           unsigned *reports)
{
    if (rc < 0) {
        fprintf(stderr, "dotfuzz run: %s: %s\n", what, why);
        return DF_OUTCOME_ENV;
    }
    if (rc == 0)
        return DF_OUTCOME_CLEAN;
    ++*reports;
    fprintf(stderr, "BUG    %s sanitizer (%s): %s\n", what, san->tool, why);
    return DF_OUTCOME_BUG;
}

df_outcome df_sanitize_after_run(const df_sup *s, const df_run_opts *o, const char *findings,
                                 struct timespec since)
{
    df_sanitizer san;
    if (df_sanitizer_parse("run", o->sanitize, &san) != 0)
        return DF_OUTCOME_USAGE;
    char seed[24], cases[24], maxn[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
    snprintf(cases, sizeof cases, "%llu",
             (unsigned long long)(o->sanitize_cases ? o->sanitize_cases : 16));
    snprintf(maxn, sizeof maxn, "%llu", (unsigned long long)o->max_n);
    char scratch[4096];
    if (df_temp_dir("dotfuzz-sanitize", scratch, sizeof scratch) != 0) {
        fprintf(stderr, "dotfuzz run: cannot make a scratch directory: %s\n", strerror(errno));
        return DF_OUTCOME_ENV;
    }
    df_outcome out = DF_OUTCOME_CLEAN;
    unsigned reports = 0, runs = 0, files = 0;
    char *args[24 + 2 * DF_PLUGIN_PATHS_MAX], why[300];
    for (size_t k = 0; k < s->nk && out != DF_OUTCOME_ENV; k++) {
        size_t a = 0;
        const char *fixed[] = {"run", "--backend", s->backend, "--kernel", s->kernels[k]->name,
                               "--seed", seed, "--cases", cases, "--max-n", maxn, "--family",
                               o->family, "--batch", "1", "--meta-every", "0", "--jobs", "1",
                               "--quiet", "--corpus", scratch};
        for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
            args[a++] = (char *)fixed[i];
        for (size_t i = 0; i < o->libs.n; i++) {
            args[a++] = "--kernel-lib";
            args[a++] = (char *)o->libs.path[i];
        }
        args[a] = NULL;
        int rc = df_sanitizer_run(&san, args, why, sizeof why);
        out = df_outcome_worst(out, reported(&san, rc, why, s->kernels[k]->name, &reports));
        runs++;
    }
    char **names = NULL;
    size_t n = 0;
    if (out != DF_OUTCOME_ENV && df_corpus_list(findings, &names, &n) == 0) {
        for (size_t i = 0; i < n && out != DF_OUTCOME_ENV; i++) {
            struct stat st;
            if (stat(names[i], &st) != 0 || st.st_mtim.tv_sec < since.tv_sec ||
                (st.st_mtim.tv_sec == since.tv_sec && st.st_mtim.tv_nsec < since.tv_nsec))
                continue;
            int rc = df_sanitizer_replay(&san, s->backend, NULL, &o->libs, names[i], why,
                                         sizeof why);
            out = df_outcome_worst(out, reported(&san, rc, why, names[i], &reports));
            files++;
        }
        df_corpus_list_free(names, n);
    }
    if (df_remove_tree(scratch) != 0)
        fprintf(stderr, "dotfuzz run: could not remove %s: %s\n", scratch, strerror(errno));
    printf("  compute-sanitizer %s: %u kernel sample(s) of %s case(s) and %u finding(s) of "
           "this run, %u report(s)\n",
           san.tool, runs, cases, files, reports);
    return out;
}
