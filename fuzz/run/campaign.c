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
 * The directory's files are described in README.md ("Campaign
 * directory"). */
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
#include "fuzz/run/campaign_read.h"
#include "fuzz/files.h"
#include "fuzz/json.h"
#include "fuzz/plugin.h"
#include "fuzz/run/run.h"
#include "fuzz/run/select.h"
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
    int log_fd, plot_fd;
    int lock_fd;              /* DIR/lock, held for the run (lock_dir) */
} campaign;

/* ---- small file helpers ---- */

/* dir/name (df_campaign_join's spelling) in fresh memory, or NULL. */
static char *join(const char *dir, const char *name)
{
    char buf[DF_CAMPAIGN_PATH_CAP];
    return df_campaign_join(buf, dir, name) == 0 ? strdup(buf) : NULL;
}

/* Writes what the memstream f holds to path atomically. */
static int flush_atomic(const char *dir, const char *name, char *buf, size_t len)
{
    char *path = join(dir, name);
    int rc = path ? df_write_file_atomic(path, (const uint8_t *)buf, len) : -1;
    if (rc != 0)
        fprintf(stderr, "dotfuzz run: cannot write %s: %s\n", path ? path : name,
                strerror(errno));
    free(path);
    return rc;
}

/* Cuts an append-only log after its last complete line: a SIGKILL in the
 * middle of an append leaves a torn last line. */
static int open_log(const char *dir, const char *name, const char *header)
{
    char *path = join(dir, name);
    if (!path)
        return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (fd < 0) {
        fprintf(stderr, "dotfuzz run: cannot open %s: %s\n", path, strerror(errno));
        free(path);
        return -1;
    }
    free(path);
    off_t size = lseek(fd, 0, SEEK_END), keep = size;
    char ch;
    while (keep > 0 && pread(fd, &ch, 1, keep - 1) == 1 && ch != '\n')
        keep--;
    if (keep != size && ftruncate(fd, keep) != 0) {
        close(fd);
        return -1;
    }
    if (keep == 0 && header && df_write_all(fd, header, strlen(header)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* ---- the fixed options: DIR/campaign ---- */

static const char *save_name(int s)
{
    return s == DF_SAVE_ALL ? "all" : s == DF_SAVE_NONE ? "none" : "new";
}

static int write_campaign_file(campaign *cp)
{
    const df_run_opts *o = cp->s.o;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return -1;
    fprintf(f, "# dotfuzz campaign: the options fixed for its whole life (README.md,\n"
               "# \"Campaign directory\"); `dotfuzz run --resume DIR` reads them\n");
    fprintf(f, "version : 1\nseed : %llu\nbackend : %s\nkernels : ",
            (unsigned long long)o->seed, cp->s.backend);
    for (size_t k = 0; k < cp->s.nk; k++)
        fprintf(f, "%s%s", k ? "," : "", cp->s.kernels[k]->name);
    fprintf(f, "\nmax_n : %llu\nfamily : %s\ntol : %.17g\nmeta_every : %u\nreruns : %u\n",
            (unsigned long long)o->max_n, o->family, o->tol, o->meta.every, o->meta.reruns);
    fprintf(f, "save_precision : %s\nsave_bugs : %s\ndebug_invariants : %d\n",
            o->save_precision == DF_SAVE_NEW ? "worst" : save_name(o->save_precision),
            save_name(o->save_bugs), o->debug_invariants);
    /* a resume's defaults, which its command line may change */
    fprintf(f, "watchdog : %g\n", o->watchdog_s);
    if (o->jobs)
        fprintf(f, "jobs : %u\n", o->jobs);
    for (size_t i = 0; i < o->libs.n; i++)
        fprintf(f, "kernel_lib : %s\n", o->libs.path[i]);
    char desc[512];
    for (size_t i = 0; df_plugin_describe(i, desc, sizeof desc) == 0; i++)
        fprintf(f, "plugin_kernel : %s\n", desc);
    fprintf(f, "created : %lld\ncommand_line : %s\n", (long long)time(NULL), cp->cmdline);
    fclose(f);
    int rc = flush_atomic(cp->dir, "campaign", buf, len);
    free(buf);
    return rc;
}

/* A campaign file's keys that are run's options: the same names (with '_'
 * for '-'), read by the same parser (df_run_option), so a value the
 * command line refuses is refused here too. watchdog and jobs are the
 * resume's defaults: its command line may give others. */
static const char *const option_keys[] = {
    "seed", "max_n", "family", "tol", "meta_every", "reruns", "save_precision", "save_bugs",
};

/* One line of DIR/campaign into o; NULL, or what is wrong with it. */
static const char *campaign_line(campaign *cp, const char *key, const char *v,
                                 unsigned *have, char **kernels, int *merged)
{
    df_run_opts *o = cp->s.o;
    char name[32];
    for (size_t i = 0; i < sizeof option_keys / sizeof option_keys[0]; i++)
        if (!strcmp(key, option_keys[i])) {
            snprintf(name, sizeof name, "%s", key);
            for (char *p = name; *p; p++)
                *p = *p == '_' ? '-' : *p;
            char *copy = strdup(v); /* the options point into it for the process's life */
            *have |= 1u << i;
            return !copy || df_run_option(o, name, copy) ? "invalid value" : NULL;
        }
    if (!strcmp(key, "version"))
        return strcmp(v, "1") ? "another version" : NULL;
    if (!strcmp(key, "backend")) {
        if (strcmp(v, "cuda") && strcmp(v, "host"))
            return "invalid value";
        o->backend = strdup(v);
        *have |= 1u << 8;
        return o->backend ? NULL : "out of memory";
    }
    if (!strcmp(key, "kernels")) {
        free(*kernels);
        *kernels = strdup(v);
        *have |= 1u << 9;
        return *kernels && **kernels ? NULL : "invalid value";
    }
    if (!strcmp(key, "debug_invariants")) {
        if (strcmp(v, "0") && strcmp(v, "1"))
            return "invalid value";
        o->debug_invariants = v[0] == '1';
        return NULL;
    }
    if (!strcmp(key, "watchdog") || !strcmp(key, "jobs")) {
        df_run_opts rec = *o;
        char *copy = strdup(v);
        if (!copy || df_run_option(&rec, key, copy))
            return "invalid value";
        if (!strcmp(key, "watchdog") && o->watchdog_s == 0)
            o->watchdog_s = rec.watchdog_s;
        if (!strcmp(key, "jobs") && o->jobs == 0)
            o->jobs = rec.jobs;
        return NULL;
    }
    if (!strcmp(key, "kernel_lib")) {
        char *copy = strdup(v);
        return !copy || df_plugin_paths_add(&o->libs, copy) ? "too many libraries" : NULL;
    }
    if (!strcmp(key, "plugin_kernel"))
        return df_kernel_list_add(&cp->plugin_kernels, v) ? "out of memory" : NULL;
    if (!strcmp(key, "merged")) {
        *merged = 1;
        return NULL;
    }
    if (!strcmp(key, "created") || !strcmp(key, "command_line") ||
        !strcmp(key, "merged_from"))
        return NULL;
    return "unknown key";
}

/* Options a resumed campaign takes from DIR/campaign, each checked as the
 * command line checks it; a damaged file is refused, never half read. */
static int read_campaign_file(campaign *cp, char **kernels)
{
    char *path = join(cp->dir, "campaign"), msg[200] = "";
    FILE *f = path ? df_fopen_regular(path, msg, sizeof msg) : NULL;
    if (!f) {
        fprintf(stderr, "dotfuzz run: %s is not a campaign directory (%s: %s)\n", cp->dir,
                path ? path : "campaign", msg);
        free(path);
        return -1;
    }
    char line[8192], *key, *val, bad_key[64] = "";
    const char *why = NULL;
    unsigned have = 0, lineno = 0, bad_line = 0;
    int merged = 0;
    /* every line is read: a merged directory says so wherever its line is */
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *t = line + strspn(line, " \t");
        if (*t == '#' || *t == '\n' || *t == '\0')
            continue;
        const char *w = df_kv_split(line, &key, &val) != 0
                            ? (key = "", "not a 'key : value' line")
                            : campaign_line(cp, key, val, &have, kernels, &merged);
        if (w && !why) {
            why = w;
            bad_line = lineno;
            snprintf(bad_key, sizeof bad_key, "%s", key);
        }
    }
    fclose(f);
    if (merged) {
        fprintf(stderr, "dotfuzz run: %s was made by dotfuzz merge: it can be reported, not "
                        "resumed (resume the campaigns it merged)\n", cp->dir);
        free(path);
        return -1;
    }
    const unsigned all = (1u << 10) - 1; /* the option keys, backend, kernels */
    if (why)
        fprintf(stderr, "dotfuzz run: %s: line %u: %s '%s': the campaign file is damaged\n",
                path, bad_line, why, bad_key);
    else if ((have & all) != all)
        fprintf(stderr, "dotfuzz run: %s: incomplete (no seed, kernels, backend or one of "
                        "their options): the campaign file is damaged\n", path);
    free(path);
    if (why || (have & all) != all)
        return -1;
    cp->s.o->seed_set = 1;
    return 0;
}

/* ---- the state snapshot: DIR/state ---- */

static void put_tally(FILE *f, size_t k, const df_tally *t)
{
    fprintf(f, "kernel : %zu %llu", k, (unsigned long long)t->cases);
    for (int v = 0; v < DF_V_COUNT; v++)
        fprintf(f, " %llu", (unsigned long long)t->verdicts[v]);
    fprintf(f, " %llu %llu %llu %llu %llu %llu %llu %a %a\n",
            (unsigned long long)t->model_equal, (unsigned long long)t->meta_checked,
            (unsigned long long)t->seed_alarms, (unsigned long long)t->seed_alarms_bug,
            (unsigned long long)t->crashes, (unsigned long long)t->hangs,
            (unsigned long long)t->saved, t->worst_ratio, t->worst_rel);
    for (int b = 0; b < DF_NBINS; b++)
        if (t->nbin[b].cases)
            fprintf(f, "nbin : %zu %d %llu %a %a\n", k, b,
                    (unsigned long long)t->nbin[b].cases, t->nbin[b].worst_ratio,
                    t->nbin[b].worst_rel);
    for (int h = 0; h < DF_RHIST; h++)
        if (t->rhist[h])
            fprintf(f, "rhist : %zu %d %llu\n", k, h + DF_RHIST_MIN,
                    (unsigned long long)t->rhist[h]);
}

static int write_state(campaign *cp)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return -1;
    fprintf(f, "# dotfuzz campaign state (internal; rewritten atomically)\nversion : 1\n");
    fprintf(f, "next_index : %llu\nrun_time : %a\nsessions : %llu\nrestarts : %llu\n",
            (unsigned long long)cp->s.next_index, cp->run_time_before + (df_now() - cp->s.t0),
            (unsigned long long)cp->sessions,
            (unsigned long long)(cp->prev_restarts + cp->s.restarts));
    fprintf(f, "start_time : %.0f\n", cp->start_time);
    for (size_t i = 0; i < cp->s.nqueue; i++)
        fprintf(f, "pending : %llu %llu %llu\n", (unsigned long long)cp->s.queue[i].lo,
                (unsigned long long)cp->s.queue[i].hi, (unsigned long long)cp->s.queue[i].solo);
    for (uint32_t w = 0; w < cp->s.jobs; w++)
        if (cp->s.w[w].busy)
            fprintf(f, "pending : %llu %llu %llu\n", (unsigned long long)cp->s.w[w].r.lo,
                    (unsigned long long)cp->s.w[w].r.hi, (unsigned long long)cp->s.w[w].r.solo);
    for (size_t k = 0; k < cp->s.nk; k++)
        put_tally(f, k, &cp->s.tot->tally[k]);
    fprintf(f, "buckets : ");
    for (size_t i = 0; i < sizeof cp->s.tot->bucket_seen; i++)
        fprintf(f, "%02x", cp->s.tot->bucket_seen[i]);
    fprintf(f, "\n");
    fclose(f);
    int rc = flush_atomic(cp->dir, "state", buf, len);
    free(buf);
    return rc;
}

static int parse_tally_line(campaign *cp, const char *key, const char *v)
{
    unsigned long long a[20];
    size_t k;
    int b;
    double r1, r2;
    if (!strcmp(key, "kernel")) {
        if (sscanf(v, "%zu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
                      "%llu %la %la",
                   &k, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6], &a[7], &a[8], &a[9],
                   &a[10], &a[11], &a[12], &a[13], &r1, &r2) != 17 || k >= cp->s.nk)
            return -1;
        df_tally *t = &cp->s.tot->tally[k];
        t->cases = a[0];
        for (int i = 0; i < DF_V_COUNT; i++)
            t->verdicts[i] = a[1 + i];
        t->model_equal = a[7];
        t->meta_checked = a[8];
        t->seed_alarms = a[9];
        t->seed_alarms_bug = a[10];
        t->crashes = a[11];
        t->hangs = a[12];
        t->saved = a[13];
        t->worst_ratio = r1;
        t->worst_rel = r2;
        return 0;
    }
    if (!strcmp(key, "nbin")) {
        if (sscanf(v, "%zu %d %llu %la %la", &k, &b, &a[0], &r1, &r2) != 5 || k >= cp->s.nk ||
            b < 0 || b >= DF_NBINS)
            return -1;
        cp->s.tot->tally[k].nbin[b] = (df_nbin){a[0], r1, r2};
        return 0;
    }
    if (sscanf(v, "%zu %d %llu", &k, &b, &a[0]) != 3 || k >= cp->s.nk || b < DF_RHIST_MIN ||
        b > DF_RHIST_MAX)
        return -1;
    cp->s.tot->tally[k].rhist[b - DF_RHIST_MIN] = a[0];
    return 0;
}

static int parse_buckets(campaign *cp, const char *v)
{
    size_t n = sizeof cp->s.tot->bucket_seen;
    if (strlen(v) != 2 * n)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned x;
        if (sscanf(v + 2 * i, "%2x", &x) != 1)
            return -1;
        cp->s.tot->bucket_seen[i] = (uint8_t)x;
    }
    return 0;
}

/* One line of DIR/state; 0, or -1 when it is not what write_state writes. */
static int state_line(campaign *cp, const char *key, const char *val, unsigned *have)
{
    unsigned long long a, b, c = 0;
    char end;
    if (!strcmp(key, "version")) {
        *have |= 1;
        return strcmp(val, "1") ? -1 : 0;
    }
    if (!strcmp(key, "next_index")) {
        *have |= 2;
        if (sscanf(val, "%llu%c", &a, &end) != 1)
            return -1;
        cp->s.next_index = a;
        return 0;
    }
    if (!strcmp(key, "run_time"))
        return sscanf(val, "%la%c", &cp->run_time_before, &end) == 1 &&
                       isfinite(cp->run_time_before) && cp->run_time_before >= 0
                   ? 0 : -1;
    if (!strcmp(key, "sessions"))
        return sscanf(val, "%llu%c", &a, &end) == 1 ? (cp->sessions = a, 0) : -1;
    if (!strcmp(key, "restarts"))
        return sscanf(val, "%llu%c", &a, &end) == 1 ? (cp->prev_restarts = a, 0) : -1;
    if (!strcmp(key, "start_time"))
        return sscanf(val, "%lf%c", &cp->start_time, &end) == 1 ? 0 : -1;
    if (!strcmp(key, "pending"))
        return sscanf(val, "%llu %llu %llu%c", &a, &b, &c, &end) == 3 && a < b && c <= 1 &&
                       df_sup_push(&cp->s, a, b, c) == 0
                   ? 0 : -1;
    if (!strcmp(key, "kernel") || !strcmp(key, "nbin") || !strcmp(key, "rhist"))
        return parse_tally_line(cp, key, val);
    if (!strcmp(key, "buckets"))
        return parse_buckets(cp, val);
    return -1;
}

/* DIR/state, checked line by line: a damaged snapshot is refused, never
 * taken for an empty one (it would start the campaign's count again). */
static int read_state(campaign *cp)
{
    char *path = join(cp->dir, "state"), msg[200] = "";
    FILE *f = path ? df_fopen_regular(path, msg, sizeof msg) : NULL;
    if (!f) {
        /* killed before its first snapshot: nothing finished yet */
        int missing = errno == ENOENT;
        if (!missing)
            fprintf(stderr, "dotfuzz run: cannot read %s: %s\n", path, msg);
        free(path);
        return missing ? 0 : -1;
    }
    char line[8192], *key, *val;
    unsigned have = 0, lineno = 0, bad = 0;
    while (!bad && fgets(line, sizeof line, f)) {
        lineno++;
        char *t = line + strspn(line, " \t");
        if (*t == '#' || *t == '\n')
            continue;
        bad = df_kv_split(line, &key, &val) != 0 || state_line(cp, key, val, &have) != 0
                  ? lineno : 0;
    }
    fclose(f);
    if (bad)
        fprintf(stderr, "dotfuzz run: %s: line %u is not what dotfuzz writes there: the "
                        "state is damaged (move it away to rerun the campaign from case 0)\n",
                path, bad);
    else if (have != 3)
        fprintf(stderr, "dotfuzz run: %s: %s: the state is damaged (move it away to rerun the "
                        "campaign from case 0)\n", path, lineno ? "incomplete" : "empty");
    free(path);
    return bad || have != 3 ? -1 : 0;
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

/* The file name in a log line's "file":"findings/<kind>-<sha1>". */
static int name_of_line(const char *line, char name[DF_CORPUS_NAME_MAX])
{
    const char *p = strstr(line, "\"file\":\"findings/");
    if (!p)
        return -1;
    p += strlen("\"file\":\"findings/");
    size_t n = strcspn(p, "\"");
    if (n >= DF_CORPUS_NAME_MAX)
        return -1;
    memcpy(name, p, n);
    name[n] = 0;
    return df_corpus_name_sha1(name) ? 0 : -1;
}

static int load_logged_names(campaign *cp)
{
    char *path = join(cp->dir, "findings.jsonl"), msg[200];
    FILE *f = path ? df_fopen_regular(path, msg, sizeof msg) : NULL;
    free(path);
    if (!f)
        return 0;
    char *line = NULL, name[DF_CORPUS_NAME_MAX];
    size_t cap = 0;
    int rc = 0;
    while (rc == 0 && getline(&line, &cap, f) > 0)
        if (name_of_line(line, name) == 0 && !name_logged(cp, name))
            rc = remember_name(cp, name);
    free(line);
    fclose(f);
    return rc;
}
/* Appends one finding to the log unless its file is logged already. body
 * is the JSON object's members after "time" and "elapsed". */
static int log_finding(campaign *cp, const char *name, const char *body)
{
    if (name_logged(cp, name))
        return 0;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return -1;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    fputc('{', f);
    df_json_stamp(f);
    fprintf(f, ",\"time\":%.3f,\"elapsed\":%.3f,%s}\n", ts.tv_sec + ts.tv_nsec * 1e-9,
            cp->run_time_before + (df_now() - cp->s.t0), body);
    fclose(f);
    int rc = df_write_all(cp->log_fd, buf, len); /* one write: one line */
    free(buf);
    if (rc != 0) {
        fprintf(stderr, "dotfuzz run: cannot append to %s/findings.jsonl: %s\n", cp->dir,
                strerror(errno));
        return -1;
    }
    return remember_name(cp, name);
}

/* ---- stats ---- */

static uint64_t total_cases(const campaign *cp) { return df_sup_cases(&cp->s); }

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
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return -1;
    fprintf(f, "dotfuzz_version   : %s\nschema_version    : %d\n", df_version(),
            DF_SCHEMA_VERSION);
    fprintf(f, "start_time        : %.0f\nlast_update       : %lld\n", cp->start_time,
            (long long)time(NULL));
    fprintf(f, "run_time          : %.1f\nsessions          : %llu\npid               : %ld\n",
            cp->run_time_before + elapsed, (unsigned long long)cp->sessions, (long)getpid());
    fprintf(f, "seed              : %llu\nbackend           : %s\njobs              : %u\n",
            (unsigned long long)cp->s.o->seed, cp->s.backend, cp->s.jobs);
    fprintf(f, "kernels           : %zu\ncases_done        : %llu\ncases_per_sec     : %.1f\n",
            cp->s.nk, (unsigned long long)cases,
            elapsed > 0 ? (cases - cp->s.cases_at_start) / elapsed : 0.0);
    static const char *const vname[DF_V_COUNT] = {
        NULL, "ok", "precision", "nondet", "soft_error", "bug"};
    for (int v = 1; v < DF_V_COUNT; v++)
        fprintf(f, "%-17s : %llu\n", vname[v],
                (unsigned long long)df_totals_verdict(cp->s.tot, cp->s.nk, v));
    fprintf(f, "crashes           : %llu\nhangs             : %llu\n",
            (unsigned long long)SUM(cp, crashes), (unsigned long long)SUM(cp, hangs));
    fprintf(f, "worker_restarts   : %llu\nfindings_saved    : %llu\n",
            (unsigned long long)(cp->prev_restarts + cp->s.restarts),
            (unsigned long long)SUM(cp, saved));
    fprintf(f, "findings_logged   : %zu\nerror_buckets     : %u\n", cp->nnames,
            df_totals_buckets(cp->s.tot));
    fprintf(f, "worst_ratio       : %.6g\nworst_kernel      : %s\n", ratio, wk);
    fprintf(f, "next_index        : %llu\npending_cases     : %llu\n",
            (unsigned long long)cp->s.next_index, (unsigned long long)df_sup_pending_cases(&cp->s));
    fprintf(f, "watchdog_s        : %g\ncommand_line      : %s\n", cp->s.o->watchdog_s,
            cp->cmdline);
    fclose(f);
    int rc = flush_atomic(cp->dir, "fuzzer_stats", buf, len);
    free(buf);
    return rc;
}

static int write_tables(campaign *cp)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return -1;
    fprintf(f, "# kernel\tcases\tok\tprecision\tnondet\tsoft_error\tbug\tcrashes\thangs\t"
               "worst_ratio\tworst_rel_err\tmodel_equal\tmeta_checked\n");
    for (size_t k = 0; k < cp->s.nk; k++) {
        const df_tally *t = &cp->s.tot->tally[k];
        fprintf(f, "%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%.6g\t%.6g\t%llu\t%llu\n",
                cp->s.kernels[k]->name, (unsigned long long)t->cases,
                (unsigned long long)t->verdicts[DF_V_OK],
                (unsigned long long)t->verdicts[DF_V_PRECISION],
                (unsigned long long)t->verdicts[DF_V_NONDET],
                (unsigned long long)t->verdicts[DF_V_SOFT_ERROR],
                (unsigned long long)t->verdicts[DF_V_BUG], (unsigned long long)t->crashes,
                (unsigned long long)t->hangs, t->worst_ratio, t->worst_rel,
                (unsigned long long)t->model_equal, (unsigned long long)t->meta_checked);
    }
    fclose(f);
    int rc = flush_atomic(cp->dir, "kernels.tsv", buf, len);
    free(buf);
    buf = NULL;
    if (rc || !(f = open_memstream(&buf, &len)))
        return -1;
    fprintf(f, "# kernel\tn_lo\tn_hi\tcases\tworst_ratio\tworst_rel_err\n");
    for (size_t k = 0; k < cp->s.nk; k++)
        for (int b = 0; b < DF_NBINS; b++) {
            const df_nbin *nb = &cp->s.tot->tally[k].nbin[b];
            if (nb->cases)
                fprintf(f, "%s\t%llu\t%llu\t%llu\t%.6g\t%.6g\n", cp->s.kernels[k]->name,
                        b ? 1ull << (b - 1) : 0ull, b ? (1ull << b) - 1 : 0ull,
                        (unsigned long long)nb->cases, nb->worst_ratio, nb->worst_rel);
        }
    fclose(f);
    rc = flush_atomic(cp->dir, "profile.tsv", buf, len);
    free(buf);
    buf = NULL;
    if (rc || !(f = open_memstream(&buf, &len)))
        return -1;
    fprintf(f, "# kernel\tlog2_ratio\tcount\n");
    for (size_t k = 0; k < cp->s.nk; k++)
        for (int h = 0; h < DF_RHIST; h++)
            if (cp->s.tot->tally[k].rhist[h])
                fprintf(f, "%s\t%d\t%llu\n", cp->s.kernels[k]->name, h + DF_RHIST_MIN,
                        (unsigned long long)cp->s.tot->tally[k].rhist[h]);
    fclose(f);
    rc = flush_atomic(cp->dir, "ratio_hist.tsv", buf, len);
    free(buf);
    return rc;
}

static void append_plot_data(campaign *cp)
{
    double elapsed = df_now() - cp->s.t0, ratio;
    const char *wk;
    worst(cp, &ratio, &wk);
    uint64_t cases = total_cases(cp);
    char line[256];
    int n = snprintf(line, sizeof line, "%.1f\t%llu\t%.1f\t%llu\t%llu\t%llu\t%llu\t%.6g\n",
                     cp->run_time_before + elapsed, (unsigned long long)cases,
                     elapsed > 0 ? (cases - cp->s.cases_at_start) / elapsed : 0.0,
                     (unsigned long long)SUM(cp, saved),
                     (unsigned long long)df_totals_verdict(cp->s.tot, cp->s.nk, DF_V_BUG),
                     (unsigned long long)SUM(cp, crashes), (unsigned long long)SUM(cp, hangs),
                     ratio);
    if (df_write_all(cp->plot_fd, line, (size_t)n) != 0)
        fprintf(stderr, "dotfuzz run: cannot append to %s/plot_data\n", cp->dir);
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
    return strncmp(name, ".campaign.tmp.", 14) == 0;
}

/* A new campaign needs a directory that is absent or empty, but for its
 * lock and the campaign file's leftover temporary copies, which are
 * removed. */
static int prepare_new_dir(campaign *cp)
{
    DIR *d = opendir(cp->dir);
    if (d) {
        struct dirent *de;
        int empty = 1, temps = 0;
        while ((de = readdir(d)))
            if (is_campaign_temp(de->d_name))
                temps = 1;
            else if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
                     strcmp(de->d_name, "lock"))
                empty = 0;
        closedir(d);
        if (empty && temps && (d = opendir(cp->dir))) {
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
            char *c = join(cp->dir, "campaign");
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
 * process (closing any descriptor of it would drop the lock). Returns 0, or -2 when another process holds it or
 * it cannot be taken (said, naming the holder). */
static int lock_dir(campaign *cp)
{
    char *path = join(cp->dir, "lock");
    int fd = path ? open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666) : -1;
    if (fd < 0) {
        fprintf(stderr, "dotfuzz run: cannot open %s: %s\n", path ? path : cp->dir,
                strerror(errno));
        free(path);
        return -2;
    }
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(fd, F_SETLK, &fl) != 0) {
        char holder[256] = "";
        ssize_t n = pread(fd, holder, sizeof holder - 1, 0);
        holder[n > 0 ? n : 0] = 0;
        holder[strcspn(holder, "\n")] = 0;
        if (errno == EACCES || errno == EAGAIN)
            fprintf(stderr, "dotfuzz run: %s is in use (%s): one process at a time runs a "
                            "campaign\n", cp->dir, *holder ? holder : "holder unknown");
        else
            fprintf(stderr, "dotfuzz run: cannot lock %s: %s\n", path, strerror(errno));
        close(fd);
        free(path);
        return -2;
    }
    char host[128] = "?", who[512];
    gethostname(host, sizeof host - 1);
    int n = snprintf(who, sizeof who, "pid %ld on %s since %lld\n", (long)getpid(), host,
                     (long long)time(NULL));
    if (ftruncate(fd, 0) != 0 || pwrite(fd, who, (size_t)n, 0) != n)
        fprintf(stderr, "dotfuzz run: cannot write %s (the lock holds)\n", path);
    free(path);
    cp->lock_fd = fd;
    return 0;
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

/* Resumed: the plugins' kernels as loaded now against those the campaign
 * began with. 0, or -1 (said) when they differ. */
static int same_plugins(const campaign *cp)
{
    char *now = NULL, desc[512];
    int rc = 0;
    for (size_t i = 0; rc == 0 && df_plugin_describe(i, desc, sizeof desc) == 0; i++)
        rc = df_kernel_list_add(&now, desc);
    const char *was = cp->plugin_kernels ? cp->plugin_kernels : "";
    if (rc == 0 && strcmp(now ? now : "", was) != 0) {
        fprintf(stderr, "dotfuzz run: the --kernel-lib kernels changed since %s began "
                        "(was: %s; now: %s): resume with the same libraries\n",
                cp->dir, *was ? was : "none", now ? now : "none");
        rc = -1;
    }
    free(now);
    return rc;
}

/* A new campaign records its libraries by absolute path, so a resume from
 * any directory finds them. The paths live as long as the process. */
static void absolute_libs(df_plugin_paths *libs)
{
    for (size_t i = 0; i < libs->n; i++) {
        char *abs = realpath(libs->path[i], NULL);
        if (abs)
            libs->path[i] = abs;
    }
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
    cp->findings = cp->dir ? join(cp->dir, "findings") : NULL;
    cp->workers_dir = cp->dir ? join(cp->dir, "workers") : NULL;
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
        if (read_campaign_file(cp, &kernels) != 0)
            return -1;
        if (o->watchdog_s == 0)
            o->watchdog_s = df_watchdog_for((uint64_t)o->batch * o->max_n);
        if (df_load_plugins_cli("run", &o->libs) != 0 || same_plugins(cp) != 0)
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
        /* checked again once locked: another --out may have begun there */
        if ((rc = prepare_new_dir(cp)) != 0 || (rc = lock_dir(cp)) != 0 ||
            (rc = prepare_new_dir(cp)) != 0)
            return rc;
        absolute_libs(&o->libs);
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
    cp->log_fd = open_log(cp->dir, "findings.jsonl", NULL);
    cp->plot_fd = open_log(cp->dir, "plot_data",
                           "# relative_time\tcases_done\tcases_per_sec\tfindings_saved\tbugs\t"
                           "crashes\thangs\tworst_ratio\n");
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
    if (!o->quiet)
        fprintf(stderr, "dotfuzz run: %s\n", cp->s.note);
    if (!o->quiet)
        fprintf(stderr,
                "dotfuzz run: campaign %s (session %llu): seed %llu, %zu kernel(s), backend %s, "
                "%u worker(s), watchdog %g s, %llu case(s) done before\n",
                cp->dir, (unsigned long long)cp->sessions, (unsigned long long)o->seed, cp->s.nk,
                cp->s.backend, cp->s.jobs, o->watchdog_s, (unsigned long long)cp->s.cases_at_start);
    int sup = df_sup_run(&cp->s);
    if (snapshot(cp, 1) != 0)
        cp->s.env_fail = 1;
    df_outcome out = df_run_finish(&cp->s, sup, cp->run_time_before);
    printf("  campaign %s: session %llu, %llu worker restart(s) this session; "
           "continue with `dotfuzz run --resume %s`, report with `dotfuzz report %s`\n",
           cp->dir, (unsigned long long)cp->sessions, (unsigned long long)cp->s.restarts,
           cp->dir, cp->dir);
    teardown(cp);
    free(cp);
    return out;
}
