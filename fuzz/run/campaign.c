/* campaign.c — `dotfuzz run --out DIR` / `--resume DIR`: the campaign
 * directory of a supervised run (supervisor.c runs the cases in worker
 * processes; this file keeps what survives them in DIR).
 *
 * Crash safety. DIR/state is a consistent snapshot, rewritten atomically:
 * the totals of the ranges finished, and the indices not finished (pending
 * ranges and everything from next_index on). A range whose results are not
 * in the snapshot is rerun on resume; its findings come out the same
 * (cases are a function of (seed, index)), land under the same SHA-1 names
 * and are logged once (the log's names are loaded on resume). Finding
 * files are written atomically before they are logged; the two logs are
 * append-only and a torn last line is cut on resume. So SIGKILL at any
 * instant loses no finding already reported and leaves no corrupt file.
 *
 * The directory's files are described in docs/campaigns.md ("The
 * directory"); campaign_dir.c writes and reads them. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz/outcome.h"
#include "fuzz/util.h"
#include "fuzz/run/campaign_dir.h"
#include "fuzz/run/campaign_options.h"
#include "fuzz/files.h"
#include "fuzz/json.h"
#include "fuzz/plugin.h"
#include "fuzz/run/afl_stats.h"
#include "fuzz/run/options.h"
#include "fuzz/run/run.h"
#include "fuzz/run/sanitize.h"
#include "fuzz/run/supervisor.h"

typedef struct campaign {
    df_sup s;                 /* the run: options, kernels, totals, workers */
    char *dir, *findings, *workers_dir, *cmdline;
    char *plugin_kernels;     /* resumed: the plugin kernels its campaign file
                                 records (df_plugin_describe's lines, joined by
                                 commas), to be found unchanged */
    double run_time_before, start_time;
    uint64_t sessions, prev_restarts;
    /* logged findings, by file name */
    char (*names)[DF_CORPUS_NAME_MAX];
    size_t nnames, capnames;
    df_afl_finds finds;       /* the logged findings, as AFL++ counts them */
    int log_fd, plot_fd;
    int lock_fd;              /* DIR/lock, held for the run (lock_dir) */
} campaign;

/* ---- writing DIR's files ---- */

/* dir/name (df_campaign_join's spelling) in fresh memory, or NULL. */
static char *join(const char *dir, const char *name)
{
    char buf[DF_CAMPAIGN_PATH_CAP];
    return df_campaign_join(buf, dir, name) == 0 ? strdup(buf) : NULL;
}

/* Writes the file o holds to DIR/name atomically; said when it cannot. */
static int commit(const campaign *cp, df_campaign_out *o, const char *name)
{
    int rc = df_campaign_out_commit(o, cp->dir, name), err = errno;
    char path[DF_CAMPAIGN_PATH_CAP];
    if (rc != 0)
        fprintf(stderr, "dotfuzz run: cannot write %s: %s\n",
                df_campaign_join(path, cp->dir, name) ? name : path, strerror(err));
    return rc;
}

/* DIR/campaign: the options fixed for the campaign's life. */
static int write_campaign_file(campaign *cp)
{
    df_campaign_out out;
    FILE *f = df_campaign_out_open(&out);
    if (!f)
        return -1;
    df_campaign_options_put(f, &cp->s, cp->cmdline);
    return commit(cp, &out, DF_CAMPAIGN_FILE);
}

/* ---- the state snapshot: DIR/state ---- */

static int write_state(campaign *cp)
{
    df_state st = {
        .next_index = cp->s.next_index,
        .sessions = cp->sessions,
        .restarts = cp->prev_restarts + cp->s.restarts,
        .run_time = cp->run_time_before + (df_now() - cp->s.t0),
        .start_time = cp->start_time,
        .pending = malloc((cp->s.nqueue + cp->s.jobs + 1) * sizeof(df_state_range)),
        .tot = cp->s.tot,
        .nk = cp->s.nk,
    };
    df_campaign_out out;
    FILE *f = st.pending ? df_campaign_out_open(&out) : NULL;
    if (!f) {
        free(st.pending);
        return -1;
    }
    /* every index not finished: the ranges pending, and those on a worker */
    for (size_t i = 0; i < cp->s.nqueue; i++)
        st.pending[st.npending++] =
            (df_state_range){cp->s.queue[i].lo, cp->s.queue[i].hi, cp->s.queue[i].solo};
    for (uint32_t w = 0; w < cp->s.jobs; w++)
        if (cp->s.w[w].busy)
            st.pending[st.npending++] =
                (df_state_range){cp->s.w[w].r.lo, cp->s.w[w].r.hi, cp->s.w[w].r.solo};
    df_state_put(f, &st);
    free(st.pending);
    return commit(cp, &out, DF_STATE_FILE);
}

/* A resume's starting point: the totals and the indices not finished. */
static int read_state(campaign *cp)
{
    df_state st = {.tot = cp->s.tot, .nk = cp->s.nk};
    int rc = df_state_read(cp->dir, &st);
    for (size_t i = 0; rc == 0 && i < st.npending; i++)
        rc = df_sup_push(&cp->s, st.pending[i].lo, st.pending[i].hi, st.pending[i].solo);
    free(st.pending);
    cp->s.next_index = st.next_index;
    cp->run_time_before = st.run_time;
    cp->sessions = st.sessions;
    cp->prev_restarts = st.restarts;
    cp->start_time = st.start_time;
    return rc;
}

/* ---- the findings log ---- */

static int name_logged(const campaign *cp, const char *name)
{
    for (size_t i = 0; i < cp->nnames; i++)
        if (!strcmp(cp->names[i], name))
            return 1;
    return 0;
}

static int remember_name(campaign *cp, const char *name)
{
    if (cp->nnames == cp->capnames) {
        size_t cap = cp->capnames ? 2 * cp->capnames : 64;
        char (*p)[DF_CORPUS_NAME_MAX] = realloc(cp->names, cap * sizeof *p);
        if (!p)
            return -1;
        cp->names = p;
        cp->capnames = cap;
    }
    snprintf(cp->names[cp->nnames++], DF_CORPUS_NAME_MAX, "%s", name);
    return 0;
}

/* Counts a finding logged at Unix time t (NaN: the line's own) in
 * cp->finds. line is its findings.jsonl line, or its members in braces. */
static void count_find(campaign *cp, const char *line, double t)
{
    df_logged_finding f;
    if (df_log_parse(line, &f) == 0)
        df_afl_finds_add(&cp->finds, &f, isnan(t) ? f.time : t);
    df_logged_finding_free(&f);
}

static int load_logged_names(campaign *cp)
{
    char *path = join(cp->dir, DF_LOG_FILE), msg[200];
    FILE *f = path ? df_fopen_regular(path, msg, sizeof msg) : NULL;
    free(path);
    if (!f)
        return 0;
    char *line = NULL, name[DF_CORPUS_NAME_MAX];
    size_t cap = 0;
    int rc = 0;
    while (rc == 0 && getline(&line, &cap, f) > 0)
        if (df_log_line_name(line, name) == 0 && !name_logged(cp, name)) {
            rc = remember_name(cp, name);
            count_find(cp, line, NAN);
        }
    free(line);
    fclose(f);
    return rc;
}

/* Appends one finding to the log unless its file is logged already. members
 * are the JSON object's members after "time" and "elapsed". */
static int log_finding(campaign *cp, const char *name, const char *members)
{
    if (name_logged(cp, name))
        return 0;
    if (df_log_append(cp->log_fd, cp->run_time_before + (df_now() - cp->s.t0), members) != 0) {
        fprintf(stderr, "dotfuzz run: cannot append to %s/%s: %s\n", cp->dir, DF_LOG_FILE,
                strerror(errno));
        return -1;
    }
    df_logged_finding f;
    if (df_log_parse_members(members, &f) == 0)
        df_afl_finds_add(&cp->finds, &f, (double)time(NULL));
    df_logged_finding_free(&f);
    return remember_name(cp, name);
}

/* ---- stats ---- */

static uint64_t total_cases(const campaign *cp) { return df_sup_cases(&cp->s); }

/* AFL++'s cur_item: the kernel the next fresh case goes to. */
static uint64_t cur_item(const campaign *cp)
{
    return cp->s.nk ? cp->s.next_index % cp->s.nk : 0;
}

static void worst(const campaign *cp, double *ratio, const char **kernel)
{
    size_t ki;
    *ratio = df_totals_worst(cp->s.tot, cp->s.nk, &ki);
    *kernel = ki < cp->s.nk ? cp->s.kernels[ki]->name : "-";
}

#define SUM(cp, field) DF_TOTALS_SUM((cp)->s.tot, (cp)->s.nk, field)

static int write_fuzzer_stats(campaign *cp)
{
    double elapsed = df_now() - cp->s.t0, ratio;
    const char *wk;
    worst(cp, &ratio, &wk);
    uint64_t cases = total_cases(cp);
    df_campaign_out out;
    FILE *f = df_campaign_out_open(&out);
    if (!f)
        return -1;
    const int w = DF_STATS_KEY_WIDTH;
    df_kv_put(f, w, "dotfuzz_version", "%s", df_version());
    df_kv_put(f, w, "schema_version", "%d", DF_SCHEMA_VERSION);
    df_afl_stats_put(f, &(df_afl_stats){
        .start_time = cp->start_time,
        .last_update = (double)time(NULL),
        .run_time = cp->run_time_before + elapsed,
        .fuzzer_pid = (long)getpid(),
        .execs_done = cases,
        .corpus_count = cp->s.nk,
        .cur_item = cur_item(cp),
        .finds = cp->finds,
        .dir = cp->dir,
    });
    df_kv_put(f, w, "sessions", "%llu", (unsigned long long)cp->sessions);
    df_kv_put(f, w, "seed", "%llu", (unsigned long long)cp->s.o->seed);
    df_kv_put(f, w, "backend", "%s", cp->s.backend);
    df_kv_put(f, w, "jobs", "%u", cp->s.jobs);
    df_kv_put(f, w, "kernels", "%zu", cp->s.nk);
    df_kv_put(f, w, "cases_done", "%llu", (unsigned long long)cases);
    df_kv_put(f, w, "cases_per_sec", "%.1f",
              elapsed > 0 ? (cases - cp->s.cases_at_start) / elapsed : 0.0);
    static const char *const vname[DF_V_COUNT] = {
        NULL, "ok", "precision", "nondet", "soft_error", "bug"};
    for (int v = 1; v < DF_V_COUNT; v++)
        df_kv_put(f, w, vname[v], "%llu",
                  (unsigned long long)df_totals_verdict(cp->s.tot, cp->s.nk, v));
    df_kv_put(f, w, "crashes", "%llu", (unsigned long long)SUM(cp, crashes));
    df_kv_put(f, w, "hangs", "%llu", (unsigned long long)SUM(cp, hangs));
    df_kv_put(f, w, "worker_restarts", "%llu",
              (unsigned long long)(cp->prev_restarts + cp->s.restarts));
    df_kv_put(f, w, "findings_saved", "%llu", (unsigned long long)SUM(cp, saved));
    df_kv_put(f, w, "findings_logged", "%zu", cp->nnames);
    df_kv_put(f, w, "error_buckets", "%u", df_totals_buckets(cp->s.tot));
    df_kv_put(f, w, "worst_ratio", "%.6g", ratio);
    df_kv_put(f, w, "worst_kernel", "%s", wk);
    df_kv_put(f, w, "next_index", "%llu", (unsigned long long)cp->s.next_index);
    df_kv_put(f, w, "pending_cases", "%llu", (unsigned long long)df_sup_pending_cases(&cp->s));
    df_kv_put(f, w, "watchdog_s", "%g", cp->s.o->watchdog_s);
    df_kv_put(f, w, "command_line", "%s", cp->cmdline);
    return commit(cp, &out, DF_STATS_FILE);
}

/* kernels.tsv, profile.tsv and ratio_hist.tsv, each rewritten whole. */
static int write_tables(campaign *cp)
{
    static const struct {
        const char *name;
        void (*put)(FILE *, const df_kernel *const *, size_t, const df_totals *);
    } tables[] = {
        {DF_KERNELS_TSV, df_kernels_tsv},
        {DF_PROFILE_TSV, df_profile_tsv},
        {DF_HIST_TSV, df_hist_tsv},
        {DF_PREC_TSV, df_prec_tsv},
        {DF_PRECH_TSV, df_prech_tsv},
    };
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        df_campaign_out out;
        FILE *f = df_campaign_out_open(&out);
        if (!f)
            return -1;
        tables[i].put(f, cp->s.kernels, cp->s.nk, cp->s.tot);
        if (commit(cp, &out, tables[i].name) != 0)
            return -1;
    }
    return 0;
}

static void append_plot_data(campaign *cp)
{
    double elapsed = df_now() - cp->s.t0;
    const char *wk;
    uint64_t cases = total_cases(cp);
    df_plot_row r = {
        .relative_time = (uint64_t)(cp->run_time_before + elapsed),
        .cur_item = cur_item(cp),
        .corpus_count = cp->s.nk,
        .saved_crashes = cp->finds.saved_crashes,
        .saved_hangs = cp->finds.saved_hangs,
        .execs_per_sec = elapsed > 0 ? (cases - cp->s.cases_at_start) / elapsed : 0.0,
        .total_execs = cases,
        .findings_saved = SUM(cp, saved),
        .bugs = df_totals_verdict(cp->s.tot, cp->s.nk, DF_V_BUG),
        .crashes = SUM(cp, crashes),
        .hangs = SUM(cp, hangs),
    };
    worst(cp, &r.worst_ratio, &wk);
    if (df_plot_append(cp->plot_fd, &r) != 0)
        fprintf(stderr, "dotfuzz run: cannot append to %s/%s\n", cp->dir, DF_PLOT_FILE);
}

static int snapshot(campaign *cp, int with_plot)
{
    int rc = write_state(cp);
    rc |= write_fuzzer_stats(cp);
    rc |= write_tables(cp);
    if (with_plot)
        append_plot_data(cp);
    return rc;
}

/* ---- setting up ---- */

static int make_dir(const char *p)
{
    return mkdir(p, 0777) == 0 || errno == EEXIST ? 0 : -1;
}

/* The temporary copy of the campaign file (df_write_file_atomic's
 * DIR/.campaign.tmp.XXXXXX), which a start killed while writing it leaves
 * behind: then DIR holds no campaign, and the same --out command must
 * start again. */
static int is_campaign_temp(const char *name)
{
    static const char prefix[] = "." DF_CAMPAIGN_FILE ".tmp.";
    return strncmp(name, prefix, sizeof prefix - 1) == 0;
}

/* A new campaign needs a directory that is absent or empty, but for its
 * lock and the campaign file's leftover temporary copies, which are
 * removed once locked: before, such a copy may be the one that the lock's
 * holder is writing. */
static int prepare_new_dir(campaign *cp, int locked)
{
    DIR *d = opendir(cp->dir);
    if (d) {
        struct dirent *de;
        int empty = 1, temps = 0;
        while ((de = readdir(d)))
            if (is_campaign_temp(de->d_name))
                temps = 1;
            else if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
                     strcmp(de->d_name, DF_LOCK_FILE))
                empty = 0;
        closedir(d);
        if (empty && temps && locked && (d = opendir(cp->dir))) {
            while ((de = readdir(d)))
                if (is_campaign_temp(de->d_name)) {
                    char *p = join(cp->dir, de->d_name);
                    if (!p || unlink(p) != 0)
                        empty = 0;
                    free(p);
                }
            closedir(d);
        }
        if (!empty) {
            char *c = join(cp->dir, DF_CAMPAIGN_FILE);
            int has = c && access(c, F_OK) == 0;
            free(c);
            fprintf(stderr, "dotfuzz run: %s %s\n", cp->dir,
                    has ? "holds a campaign already: continue it with --resume DIR"
                        : "exists and is not empty: --out needs a new or empty directory");
            return -1;
        }
    } else if (make_dir(cp->dir) != 0) {
        fprintf(stderr, "dotfuzz run: cannot create %s: %s\n", cp->dir, strerror(errno));
        return -2;
    }
    return 0;
}

/* ---- one process at a time: DIR/lock ---- */

/* Takes DIR/lock: a POSIX record lock (fcntl), which ends with its holder
 * however it ends, is not inherited by its workers (a dead holder keeps
 * nothing, even while its workers are dying), and works on NFS; and says
 * in the file who holds it. The lock file is opened nowhere else in the
 * process (closing any descriptor of it would drop the lock). Returns 0,
 * or -2 when another process holds it or it cannot be taken (said, naming
 * the holder). */
static int lock_dir(campaign *cp)
{
    char *path = join(cp->dir, DF_LOCK_FILE);
    int fd = path ? open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666) : -1;
    if (fd < 0) {
        fprintf(stderr, "dotfuzz run: cannot open %s: %s\n", path ? path : cp->dir,
                strerror(errno));
        free(path);
        return -2;
    }
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(fd, F_SETLK, &fl) != 0) {
        int err = errno;
        char holder[256] = "";
        /* a holder writes its line just after it takes the lock: an empty
         * file is one caught in between, read again for up to a second */
        for (int tries = 0; tries < 100; tries++) {
            ssize_t n = pread(fd, holder, sizeof holder - 1, 0);
            holder[n > 0 ? n : 0] = 0;
            if (n > 0 || (err != EACCES && err != EAGAIN))
                break;
            struct timespec pause = {0, 10 * 1000 * 1000};
            nanosleep(&pause, NULL);
        }
        holder[strcspn(holder, "\n")] = 0;
        if (err == EACCES || err == EAGAIN)
            fprintf(stderr, "dotfuzz run: %s is in use (%s): one process at a time runs a "
                            "campaign\n", cp->dir, *holder ? holder : "holder unknown");
        else
            fprintf(stderr, "dotfuzz run: cannot lock %s: %s\n", path, strerror(err));
        close(fd);
        free(path);
        return -2;
    }
    char who[512];
    int n = df_lock_line(who, sizeof who);
    if (ftruncate(fd, 0) != 0 || pwrite(fd, who, (size_t)n, 0) != n)
        fprintf(stderr, "dotfuzz run: cannot write %s (the lock holds)\n", path);
    free(path);
    cp->lock_fd = fd;
    return 0;
}

/* A new campaign's directory, made where absent, locked and found empty
 * (prepare_new_dir). One without a lock file is checked before the lock,
 * which would leave its file in a directory refused; one with a lock file
 * is locked first, so that one a live campaign holds is refused naming its
 * holder (exit 3), whatever it holds. Either is checked once locked:
 * another --out may have begun there. */
static int take_new_dir(campaign *cp)
{
    char *lock = join(cp->dir, DF_LOCK_FILE);
    int has_lock = lock && access(lock, F_OK) == 0, rc;
    free(lock);
    if (!has_lock && (rc = prepare_new_dir(cp, 0)) != 0)
        return rc;
    if ((rc = lock_dir(cp)) != 0)
        return rc;
    return prepare_new_dir(cp, 1);
}

static int make_subdirs(campaign *cp)
{
    int rc = make_dir(cp->findings) || make_dir(cp->workers_dir);
    if (rc)
        fprintf(stderr, "dotfuzz run: cannot create the directories of %s: %s\n", cp->dir,
                strerror(errno));
    return rc ? -1 : 0;
}

/* Removes the temporary files of atomic writes that a kill interrupted
 * (.name.tmp.XXXXXX beside the file they were to replace). */
static void sweep_temps(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)))
        if (df_is_temp_name(de->d_name)) {
            char *p = join(dir, de->d_name);
            if (p && unlink(p) != 0)
                fprintf(stderr, "dotfuzz run: cannot remove %s: %s\n", p, strerror(errno));
            free(p);
        }
    closedir(d);
}

/* Resumed: the kernels of the campaign file, which must still exist. */
static int kernels_from_list(campaign *cp, const char *list)
{
    cp->s.o->kernel = list;
    int rc = df_sup_probe(&cp->s);
    if (rc != 0)
        return rc;
    if (strcmp(cp->s.backend, cp->s.o->backend) != 0) {
        fprintf(stderr, "dotfuzz run: the campaign ran on backend %s; it got %s here\n",
                cp->s.o->backend, cp->s.backend);
        return -2;
    }
    return 0;
}

/* The signatures of the bugs and soft errors the campaign has logged, so
 * that a resumed session does not save again what an earlier one saved
 * (--save-bugs new). */
static int load_signatures(campaign *cp)
{
    df_campaign_data d;
    memset(&d, 0, sizeof d);
    int rc = 0;
    if (df_campaign_load("run", cp->dir, &d) == DF_OUTCOME_CLEAN)
        for (size_t i = 0; i < d.nfs && rc == 0; i++) {
            const df_logged_finding *f = &d.fs[i];
            for (size_t k = 0; k < cp->s.nk && f->v >= 0 && rc == 0; k++)
                if (!strcmp(cp->s.kernels[k]->name, f->kernel))
                    rc = df_sup_known(&cp->s, k, f->v + 1, f->rule, f->err_ratio);
        }
    df_campaign_free(&d);
    return rc;
}

/* The supervisor's hooks: the log and the snapshot. */
static int hook_log(void *ctx, const char *name, const char *members)
{
    return log_finding(ctx, name, members);
}

static int hook_snapshot(void *ctx) { return snapshot(ctx, 1); }

static char *command_line(int argc, char **argv)
{
    size_t len = strlen("dotfuzz") + 1;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    char *cmd = malloc(len);
    if (!cmd)
        return NULL;
    strcpy(cmd, "dotfuzz");
    for (int i = 0; i < argc; i++) {
        strcat(cmd, " ");
        strcat(cmd, argv[i]);
    }
    return cmd;
}

static int setup(campaign *cp, int argc, char **argv)
{
    df_run_opts *o = cp->s.o;
    int resume = o->resume != NULL;
    cp->dir = strdup(resume ? o->resume : o->out);
    cp->findings = cp->dir ? join(cp->dir, DF_FINDINGS_DIR) : NULL;
    cp->workers_dir = cp->dir ? join(cp->dir, DF_WORKERS_DIR) : NULL;
    cp->cmdline = command_line(argc, argv);
    if (!cp->findings || !cp->workers_dir || !cp->cmdline)
        return -2;
    o->corpus = cp->findings;
    cp->s.findings = cp->findings;
    cp->s.inflight_dir = cp->workers_dir;
    cp->s.hooks = (df_sup_hooks){.ctx = cp, .log = hook_log, .snapshot = hook_snapshot};
    int rc;
    if (resume) {
        char *kernels = NULL;
        struct stat st;
        if (stat(cp->dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "dotfuzz run: %s is not a campaign directory\n", cp->dir);
            return -1;
        }
        if ((rc = lock_dir(cp)) != 0)
            return rc;
        if (df_campaign_options_read(cp->dir, o, &kernels, &cp->plugin_kernels) != 0)
            return -1;
        if (o->watchdog_s == 0)
            o->watchdog_s = df_run_default_watchdog(o);
        if (df_load_plugins_cli("run", &o->libs) != 0 ||
            df_campaign_plugins_same(cp->dir, cp->plugin_kernels) != 0)
            return -1;
        if ((rc = kernels_from_list(cp, kernels)) != 0)
            return rc;
        if (read_state(cp) != 0 || load_logged_names(cp) != 0)
            return -1;
        if (o->save_bugs == DF_SAVE_NEW && load_signatures(cp) != 0)
            return -2;
        sweep_temps(cp->dir);
        sweep_temps(cp->findings);
        if (make_subdirs(cp) != 0)
            return -2;
    } else {
        if ((rc = take_new_dir(cp)) != 0)
            return rc;
        df_campaign_absolute_libs(&o->libs);
        if (df_load_plugins_cli("run", &o->libs) != 0)
            return -1;
        if ((rc = df_sup_probe(&cp->s)) != 0)
            return rc;
        /* the campaign file first: a kill before it leaves DIR empty, so
         * the same --out command starts again */
        if (write_campaign_file(cp) != 0 || make_subdirs(cp) != 0)
            return -2;
        cp->start_time = (double)time(NULL);
    }
    cp->sessions++;
    cp->log_fd = df_log_open(cp->dir, DF_LOG_FILE);
    cp->plot_fd = df_log_open(cp->dir, DF_PLOT_FILE);
    if (cp->log_fd < 0 || cp->plot_fd < 0)
        return -2;
    df_sup_plan_workers(&cp->s);
    cp->s.cases_at_start = total_cases(cp);
    return 0;
}

static void teardown(campaign *cp)
{
    if (cp->lock_fd >= 0)
        close(cp->lock_fd);
    if (cp->log_fd >= 0)
        close(cp->log_fd);
    if (cp->plot_fd >= 0)
        close(cp->plot_fd);
    df_sup_free(&cp->s);
    free(cp->plugin_kernels);
    free(cp->names);
    free(cp->cmdline);
    free(cp->workers_dir);
    free(cp->findings);
    free(cp->dir);
}

int df_campaign_run(df_run_opts *o, int argc, char **argv)
{
    campaign *cp = calloc(1, sizeof *cp);
    if (!cp)
        return DF_OUTCOME_ENV;
    cp->log_fd = cp->plot_fd = cp->lock_fd = -1;
    if (df_sup_init(&cp->s, o) != 0) {
        teardown(cp);
        free(cp);
        return DF_OUTCOME_ENV;
    }
    int rc = setup(cp, argc, argv);
    if (rc != 0) {
        teardown(cp);
        free(cp);
        return rc == -1 ? DF_OUTCOME_USAGE : DF_OUTCOME_ENV;
    }
    /* the backend said once: its note ("backend host: ...") names it */
    if (!o->quiet)
        fprintf(stderr,
                "dotfuzz run: campaign %s (session %llu): seed %llu, %zu kernel(s), %s, "
                "%u worker(s), watchdog %g s, %llu case(s) done before\n",
                cp->dir, (unsigned long long)cp->sessions, (unsigned long long)o->seed, cp->s.nk,
                cp->s.note, cp->s.jobs, o->watchdog_s, (unsigned long long)cp->s.cases_at_start);
    struct timespec since;
    clock_gettime(CLOCK_REALTIME, &since);
    int sup = df_sup_run(&cp->s);
    if (snapshot(cp, 1) != 0)
        cp->s.env_fail = 1;
    df_outcome out = df_run_finish(&cp->s, sup, cp->run_time_before);
    if (o->sanitize && out != DF_OUTCOME_ENV && out != DF_OUTCOME_USAGE)
        out = df_outcome_worst(out, df_sanitize_after_run(&cp->s, o, cp->findings, since));
    printf("  campaign %s: session %llu, %llu worker restart(s) this session; "
           "continue with `dotfuzz run --resume %s`, report with `dotfuzz report %s`\n",
           cp->dir, (unsigned long long)cp->sessions, (unsigned long long)cp->s.restarts,
           cp->dir, cp->dir);
    teardown(cp);
    free(cp);
    return out;
}
