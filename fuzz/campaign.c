/* campaign.c — `dotfuzz run --out DIR` / `--resume DIR`: a campaign that
 * survives crashes, hangs and kills.
 *
 * The supervisor (this process) never touches the GPU: a CUDA context does
 * not survive fork, and a kernel that crashes poisons the context of the
 * process that ran it. It forks worker processes that run ranges of case
 * indices (fuzz/engine.c) and report back over pipes; a worker that dies on
 * a case (a signal, a poisoned context) or runs one past the watchdog is
 * replaced, and the case it died on is saved as a `bug` finding with rule
 * "crash" or "hang". Every worker writes the range it is about to run to
 * its in-flight file (DIR/workers/<w>.inflight) and the case it is on to
 * memory shared with the supervisor, so the culprit is known exactly.
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
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_util.h"
#include "campaign_read.h"
#include "run.h"

#define MAX_JOBS 256
#define WORKER_EXIT_POISONED 10 /* the worker's CUDA context is gone */
#define WORKER_EXIT_ENV 11      /* backend or corpus unusable: stop all */

enum { MSG_DONE = 1, MSG_FINDING = 2 };

typedef struct msg_head {
    uint32_t type, status;
    uint64_t lo, hi, next, len; /* len: payload bytes that follow */
} msg_head;

/* Indices [lo, hi); solo: one case at a time (a batch died and the case
 * that killed it must be found). */
typedef struct range {
    uint64_t lo, hi;
    uint64_t solo;
} range;

typedef struct worker {
    pid_t pid;
    int to, from;         /* command pipe (write end), message pipe (read end) */
    int busy;             /* has a range */
    range r;
    double assigned;      /* when r was handed out */
    int hung;             /* the watchdog killed it */
    unsigned fails;       /* deaths in a row without finishing a range */
    const char *gpu;      /* CUDA_VISIBLE_DEVICES for it, NULL = inherit */
} worker;

typedef struct campaign {
    df_run_opts *o;
    char *dir, *findings, *cmdline;
    const df_kernel *kernels[DF_RUN_MAX_KERNELS];
    size_t nk;
    char backend[16];
    /* progress */
    df_totals *tot;
    uint64_t next_index, restarts, prev_restarts;
    range *queue;
    size_t nqueue, capqueue;
    double run_time_before, t0, start_time;
    uint64_t sessions, cases_at_start;
    /* logged findings, by file name */
    char (*names)[41];
    size_t nnames, capnames;
    int log_fd, plot_fd;
    /* workers */
    worker w[MAX_JOBS];
    uint32_t jobs;
    df_heartbeat *hb;
    uint64_t batch;       /* cases per range, adapted to ~0.5 s */
    char gpus[MAX_JOBS][16];
    uint32_t ngpus;
    int env_fail;
} campaign;

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* ---- small file helpers ---- */

/* dir/name (df_campaign_join's spelling) in fresh memory, or NULL. */
static char *join(const char *dir, const char *name)
{
    char buf[DF_CAMPAIGN_PATH_CAP];
    return df_campaign_join(buf, dir, name) == 0 ? strdup(buf) : NULL;
}

static int read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len) {
        ssize_t r = read(fd, p, len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        len -= (size_t)r;
    }
    return 0;
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
    const df_run_opts *o = cp->o;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return -1;
    fprintf(f, "# dotfuzz campaign: the options fixed for its whole life (README.md,\n"
               "# \"Campaign directory\"); `dotfuzz run --resume DIR` reads them\n");
    fprintf(f, "version : 1\nseed : %llu\nbackend : %s\nkernels : ",
            (unsigned long long)o->seed, cp->backend);
    for (size_t k = 0; k < cp->nk; k++)
        fprintf(f, "%s%s", k ? "," : "", cp->kernels[k]->name);
    fprintf(f, "\nmax_n : %llu\nfamily : %s\ntol : %.17g\nmeta_every : %u\nreruns : %u\n",
            (unsigned long long)o->max_n, o->family, o->tol, o->meta.every, o->meta.reruns);
    fprintf(f, "save_precision : %s\nsave_bugs : %s\ndebug_invariants : %d\n",
            o->save_precision == DF_SAVE_NEW ? "worst" : save_name(o->save_precision),
            save_name(o->save_bugs), o->debug_invariants);
    for (size_t i = 0; i < o->libs.n; i++)
        fprintf(f, "kernel_lib : %s\n", o->libs.path[i]);
    fprintf(f, "created : %lld\ncommand_line : %s\n", (long long)time(NULL), cp->cmdline);
    fclose(f);
    int rc = flush_atomic(cp->dir, "campaign", buf, len);
    free(buf);
    return rc;
}

/* Options a resumed campaign takes from DIR/campaign. Strings are kept for
 * the process's life (the options point into them). */
static int read_campaign_file(campaign *cp, char **kernels)
{
    df_run_opts *o = cp->o;
    char *path = join(cp->dir, "campaign"), msg[200] = "";
    FILE *f = path ? df_fopen_regular(path, msg, sizeof msg) : NULL;
    if (!f) {
        fprintf(stderr, "dotfuzz run: %s is not a campaign directory (%s: %s)\n", cp->dir,
                path ? path : "campaign", msg);
        free(path);
        return -1;
    }
    char line[8192], *key, *val;
    int bad = 0, have_seed = 0, merged = 0;
    while (fgets(line, sizeof line, f)) {
        if (df_kv_split(line, &key, &val) != 0)
            continue;
        char *v = strdup(val);
        if (!v) {
            bad = 1;
            break;
        }
        uint64_t u;
        if (!strcmp(key, "version"))
            bad |= strcmp(v, "1") != 0;
        else if (!strcmp(key, "seed"))
            bad |= df_parse_u64(v, &o->seed), have_seed = 1;
        else if (!strcmp(key, "backend"))
            o->backend = v, v = NULL;
        else if (!strcmp(key, "kernels"))
            *kernels = v, v = NULL;
        else if (!strcmp(key, "max_n"))
            bad |= df_parse_u64(v, &o->max_n);
        else if (!strcmp(key, "family"))
            o->family = v, v = NULL;
        else if (!strcmp(key, "tol"))
            bad |= df_parse_double(v, &o->tol);
        else if (!strcmp(key, "meta_every"))
            bad |= df_parse_u64(v, &u) || u > 0xffffffffu, o->meta.every = (uint32_t)u;
        else if (!strcmp(key, "reruns"))
            bad |= df_parse_u64(v, &u) || u > 64, o->meta.reruns = (uint32_t)u;
        else if (!strcmp(key, "save_precision"))
            bad |= df_run_parse_save(v, &o->save_precision);
        else if (!strcmp(key, "save_bugs"))
            bad |= df_run_parse_save(v, &o->save_bugs);
        else if (!strcmp(key, "debug_invariants"))
            o->debug_invariants = !strcmp(v, "1");
        else if (!strcmp(key, "kernel_lib"))
            bad |= df_plugin_paths_add(&o->libs, v) != 0, v = NULL;
        else if (!strcmp(key, "merged"))
            merged = 1;
        free(v);
    }
    fclose(f);
    if (merged) {
        fprintf(stderr, "dotfuzz run: %s was made by dotfuzz merge: it can be reported, not "
                        "resumed (resume the campaigns it merged)\n", cp->dir);
        free(path);
        return -1;
    }
    if (bad || !have_seed || !*kernels) {
        fprintf(stderr, "dotfuzz run: %s is damaged or of another version\n", path);
        free(path);
        return -1;
    }
    free(path);
    o->seed_set = 1;
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
            (unsigned long long)cp->next_index, cp->run_time_before + (df_now() - cp->t0),
            (unsigned long long)cp->sessions,
            (unsigned long long)(cp->prev_restarts + cp->restarts));
    fprintf(f, "start_time : %.0f\n", cp->start_time);
    for (size_t i = 0; i < cp->nqueue; i++)
        fprintf(f, "pending : %llu %llu %llu\n", (unsigned long long)cp->queue[i].lo,
                (unsigned long long)cp->queue[i].hi, (unsigned long long)cp->queue[i].solo);
    for (uint32_t w = 0; w < cp->jobs; w++)
        if (cp->w[w].busy)
            fprintf(f, "pending : %llu %llu %llu\n", (unsigned long long)cp->w[w].r.lo,
                    (unsigned long long)cp->w[w].r.hi, (unsigned long long)cp->w[w].r.solo);
    for (size_t k = 0; k < cp->nk; k++)
        put_tally(f, k, &cp->tot->tally[k]);
    fprintf(f, "buckets : ");
    for (size_t i = 0; i < sizeof cp->tot->bucket_seen; i++)
        fprintf(f, "%02x", cp->tot->bucket_seen[i]);
    fprintf(f, "\n");
    fclose(f);
    int rc = flush_atomic(cp->dir, "state", buf, len);
    free(buf);
    return rc;
}

static int push_range_as(campaign *cp, uint64_t lo, uint64_t hi, uint64_t solo)
{
    if (lo >= hi)
        return 0;
    if (cp->nqueue == cp->capqueue) {
        size_t cap = cp->capqueue ? 2 * cp->capqueue : 16;
        range *p = realloc(cp->queue, cap * sizeof *p);
        if (!p)
            return -1;
        cp->queue = p;
        cp->capqueue = cap;
    }
    cp->queue[cp->nqueue++] = (range){lo, hi, solo};
    return 0;
}

static int push_range(campaign *cp, uint64_t lo, uint64_t hi)
{
    return push_range_as(cp, lo, hi, 0);
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
                   &a[10], &a[11], &a[12], &a[13], &r1, &r2) != 17 || k >= cp->nk)
            return -1;
        df_tally *t = &cp->tot->tally[k];
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
        if (sscanf(v, "%zu %d %llu %la %la", &k, &b, &a[0], &r1, &r2) != 5 || k >= cp->nk ||
            b < 0 || b >= DF_NBINS)
            return -1;
        cp->tot->tally[k].nbin[b] = (df_nbin){a[0], r1, r2};
        return 0;
    }
    if (sscanf(v, "%zu %d %llu", &k, &b, &a[0]) != 3 || k >= cp->nk || b < DF_RHIST_MIN ||
        b > DF_RHIST_MAX)
        return -1;
    cp->tot->tally[k].rhist[b - DF_RHIST_MIN] = a[0];
    return 0;
}

static int parse_buckets(campaign *cp, const char *v)
{
    size_t n = sizeof cp->tot->bucket_seen;
    if (strlen(v) != 2 * n)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned x;
        if (sscanf(v + 2 * i, "%2x", &x) != 1)
            return -1;
        cp->tot->bucket_seen[i] = (uint8_t)x;
    }
    return 0;
}

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
    int bad = 0;
    while (!bad && fgets(line, sizeof line, f)) {
        if (df_kv_split(line, &key, &val) != 0)
            continue;
        unsigned long long a, b, c = 0;
        if (!strcmp(key, "next_index"))
            bad = sscanf(val, "%llu", &a) != 1, cp->next_index = a;
        else if (!strcmp(key, "run_time"))
            bad = sscanf(val, "%la", &cp->run_time_before) != 1;
        else if (!strcmp(key, "sessions"))
            bad = sscanf(val, "%llu", &a) != 1, cp->sessions = a;
        else if (!strcmp(key, "restarts"))
            bad = sscanf(val, "%llu", &a) != 1, cp->prev_restarts = a;
        else if (!strcmp(key, "start_time"))
            bad = sscanf(val, "%lf", &cp->start_time) != 1;
        else if (!strcmp(key, "pending"))
            bad = sscanf(val, "%llu %llu %llu", &a, &b, &c) < 2 || push_range_as(cp, a, b, c) != 0;
        else if (!strcmp(key, "kernel") || !strcmp(key, "nbin") || !strcmp(key, "rhist"))
            bad = parse_tally_line(cp, key, val) != 0;
        else if (!strcmp(key, "buckets"))
            bad = parse_buckets(cp, val) != 0;
    }
    fclose(f);
    if (bad)
        fprintf(stderr, "dotfuzz run: %s is damaged\n", path);
    free(path);
    return bad ? -1 : 0;
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
        char (*p)[41] = realloc(cp->names, cap * sizeof *p);
        if (!p)
            return -1;
        cp->names = p;
        cp->capnames = cap;
    }
    snprintf(cp->names[cp->nnames++], 41, "%s", name);
    return 0;
}

/* The SHA-1 name in a log line's "file":"findings/<name>". */
static int name_of_line(const char *line, char name[41])
{
    const char *p = strstr(line, "\"file\":\"findings/");
    if (!p)
        return -1;
    p += strlen("\"file\":\"findings/");
    size_t n = strspn(p, "0123456789abcdef");
    if (n != 40)
        return -1;
    memcpy(name, p, 40);
    name[40] = 0;
    return 0;
}

static int load_logged_names(campaign *cp)
{
    char *path = join(cp->dir, "findings.jsonl"), msg[200];
    FILE *f = path ? df_fopen_regular(path, msg, sizeof msg) : NULL;
    free(path);
    if (!f)
        return 0;
    char *line = NULL, name[41];
    size_t cap = 0;
    int rc = 0;
    while (rc == 0 && getline(&line, &cap, f) > 0)
        if (name_of_line(line, name) == 0 && !name_logged(cp, name))
            rc = remember_name(cp, name);
    free(line);
    fclose(f);
    return rc;
}

/* The file name part of a corpus path. */
static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
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
    fprintf(f, "{\"time\":%.3f,\"elapsed\":%.3f,%s}\n", ts.tv_sec + ts.tv_nsec * 1e-9,
            cp->run_time_before + (df_now() - cp->t0), body);
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

/* The members of a finding's log line, from its judgement. */
static char *finding_body(const df_kernel *k, const df_case *c, const df_judgement *j,
                          const char *name, int worker, const char *extra)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f, "\"kernel\":");
    df_json_str(f, k->name);
    fprintf(f, ",\"verdict\":\"%s\",\"rule\":", df_verdict_name(j->verdict));
    df_json_str(f, j->rule);
    fprintf(f, ",\"n\":%llu,\"seed\":%llu,\"index\":%llu,\"rel_err\":",
            (unsigned long long)c->n, (unsigned long long)c->seed,
            (unsigned long long)c->index);
    df_json_num(f, j->rel_err);
    fprintf(f, ",\"err_ratio\":");
    df_json_num(f, j->err_ratio);
    fprintf(f, ",\"cond\":");
    df_json_num(f, j->cond);
    fprintf(f, ",\"file\":\"findings/%s\",\"worker\":%d%s,\"why\":", name, worker,
            extra ? extra : "");
    df_json_str(f, j->why);
    fclose(f);
    return buf;
}

/* ---- workers ---- */

typedef struct worker_ctx {
    int fd;
    int id;
    int quiet;
} worker_ctx;

/* The engine's callback in a worker: the finding goes to the supervisor,
 * which logs it. Message: name, NUL, the JSON members. */
static int worker_on_finding(void *vctx, const df_finding *fd)
{
    worker_ctx *wc = vctx;
    const df_judgement *j = &fd->r->j;
    const df_kernel *k = fd->k;
    const char *name = base_name(fd->path);
    char *body = finding_body(k, fd->c, j, name, wc->id, NULL);
    if (!body)
        return -1;
    size_t nl = strlen(name) + 1, bl = strlen(body);
    msg_head h = {.type = MSG_FINDING, .status = (uint32_t)fd->is_new, .len = nl + bl};
    int rc = df_write_all(wc->fd, &h, sizeof h) || df_write_all(wc->fd, name, nl) ||
             df_write_all(wc->fd, body, bl);
    free(body);
    if (!wc->quiet)
        df_print_finding(stderr, fd);
    return rc ? -1 : 0;
}

static void write_inflight(int fd, int id, const range *r)
{
    char line[128];
    int n = snprintf(line, sizeof line, "worker %d pid %ld range %llu %llu\n", id,
                     (long)getpid(), (unsigned long long)r->lo, (unsigned long long)r->hi);
    if (fd >= 0 && ftruncate(fd, 0) == 0 && pwrite(fd, line, (size_t)n, 0) != n)
        fprintf(stderr, "dotfuzz run: worker %d: cannot write its in-flight file\n", id);
}

/* The signatures of the bugs and soft errors the campaign has logged, so
 * that a restarted worker or a resumed session does not save again what
 * an earlier one saved (--save-bugs new). A campaign without a log yet
 * has none. */
static void load_signatures(const campaign *cp, df_engine *e)
{
    char *stats = join(cp->dir, "fuzzer_stats");
    int have = stats && access(stats, R_OK) == 0;
    free(stats);
    if (!have)
        return; /* the first workers of a new campaign: nothing logged yet */
    df_campaign_data d;
    memset(&d, 0, sizeof d);
    if (df_campaign_load("run", cp->dir, &d) == DF_OUTCOME_CLEAN)
        for (size_t i = 0; i < d.nfs; i++) {
            const df_logged_finding *f = &d.fs[i];
            for (size_t k = 0; k < cp->nk && f->v >= 0; k++)
                if (!strcmp(cp->kernels[k]->name, f->kernel))
                    df_engine_known_signature(e, k, f->v + 1, f->rule, f->err_ratio);
        }
    df_campaign_free(&d);
}

/* A worker process: opens the backend, then runs the ranges it is sent
 * until told to stop (hi == 0). Returns its exit status. */
static int worker_main(campaign *cp, int id, int cmd_fd, int msg_fd)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (cp->w[id].gpu)
        setenv("CUDA_VISIBLE_DEVICES", cp->w[id].gpu, 1);
    df_backend *b = NULL;
    char err[256];
    if (df_backend_open(cp->backend, &b, err, sizeof err) != 0) {
        fprintf(stderr, "dotfuzz run: worker %d: %s\n", id, err);
        return WORKER_EXIT_ENV;
    }
    df_backend_set_debug_invariants(b, cp->o->debug_invariants);
    char *inflight_name = NULL, *path = NULL;
    if (asprintf(&inflight_name, "workers/%d.inflight", id) < 0)
        inflight_name = NULL;
    path = inflight_name ? join(cp->dir, inflight_name) : NULL;
    int ifd = path ? open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666) : -1;
    free(path);
    free(inflight_name);
    worker_ctx wc = {msg_fd, id, cp->o->quiet};
    df_engine e;
    df_engine_init(&e, cp->o, b, cp->kernels, cp->nk);
    e.batch = cp->o->batch;
    if (e.batch > 1) {
        /* the cores shared among the workers */
        unsigned share = cp->o->threads ? cp->o->threads : df_usable_cpus() / cp->jobs;
        e.pool = df_pool_create(share ? share : 1);
        df_backend_set_pool(b, e.pool);
    }
    e.hb = &cp->hb[id];
    if (cp->o->save_bugs == DF_SAVE_NEW)
        load_signatures(cp, &e);
    e.stop = &stop_requested;
    e.on_finding = worker_on_finding;
    e.ctx = &wc;
    df_totals *t = malloc(sizeof *t);
    int status = t ? 0 : WORKER_EXIT_ENV;
    range r;
    while (status == 0 && read_all(cmd_fd, &r, sizeof r) == 0 && r.hi != 0) {
        write_inflight(ifd, id, &r);
        memset(t, 0, sizeof *t);
        uint64_t next;
        e.batch = r.solo ? 1 : cp->o->batch;
        int rc = df_engine_range(&e, r.lo, r.hi, 0, t, &next);
        msg_head h = {.type = MSG_DONE, .status = (uint32_t)rc, .lo = r.lo, .hi = r.hi,
                      .next = next, .len = cp->nk * sizeof(df_tally) + sizeof t->bucket_seen};
        if (df_write_all(msg_fd, &h, sizeof h) || df_write_all(msg_fd, t->tally, cp->nk * sizeof(df_tally)) ||
            df_write_all(msg_fd, t->bucket_seen, sizeof t->bucket_seen))
            status = WORKER_EXIT_ENV;
        else if (rc == DF_RANGE_POISONED)
            status = WORKER_EXIT_POISONED;
        else if (rc == DF_RANGE_ENV)
            status = WORKER_EXIT_ENV;
    }
    free(t);
    df_engine_free(&e);
    df_backend_set_pool(b, NULL);
    df_pool_destroy(e.pool);
    if (ifd >= 0)
        close(ifd);
    if (status != WORKER_EXIT_POISONED) /* a poisoned context may hang on teardown */
        df_backend_close(b);
    return status;
}

static int start_worker(campaign *cp, uint32_t id)
{
    int cmd[2], msg[2];
    if (pipe2(cmd, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(msg, O_CLOEXEC) != 0) {
        close(cmd[0]);
        close(cmd[1]);
        return -1;
    }
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(cmd[0]), close(cmd[1]), close(msg[0]), close(msg[1]);
        return -1;
    }
    if (pid == 0) {
        /* the worker dies with the supervisor, whatever kills it */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(WORKER_EXIT_ENV);
        signal(SIGPIPE, SIG_IGN);
        close(cmd[1]);
        close(msg[0]);
        for (uint32_t w = 0; w < cp->jobs; w++)
            if (w != id && cp->w[w].pid > 0) {
                close(cp->w[w].to);
                close(cp->w[w].from);
            }
        if (cp->log_fd >= 0)
            close(cp->log_fd);
        if (cp->plot_fd >= 0)
            close(cp->plot_fd);
        _exit(worker_main(cp, (int)id, cmd[0], msg[1]));
    }
    close(cmd[0]);
    close(msg[1]);
    worker *w = &cp->w[id];
    w->pid = pid;
    w->to = cmd[1];
    w->from = msg[0];
    w->busy = 0;
    w->hung = 0;
    cp->hb[id] = (df_heartbeat){0};
    return 0;
}

/* Work for a worker: a pending range first, then fresh indices. */
static int next_range(campaign *cp, range *r)
{
    if (cp->nqueue) {
        *r = cp->queue[--cp->nqueue];
        if (r->hi - r->lo > cp->batch) { /* hand it out in batch-sized pieces */
            cp->queue[cp->nqueue++] = (range){r->lo + cp->batch, r->hi, r->solo};
            r->hi = r->lo + cp->batch;
        }
        return 1;
    }
    uint64_t hi = cp->next_index + cp->batch;
    if (cp->o->cases && hi > cp->o->cases)
        hi = cp->o->cases;
    if (hi <= cp->next_index)
        return 0;
    *r = (range){cp->next_index, hi, 0};
    cp->next_index = hi;
    return 1;
}

static int assign(campaign *cp, uint32_t id)
{
    worker *w = &cp->w[id];
    range r;
    if (w->busy || w->pid <= 0 || !next_range(cp, &r))
        return 0;
    if (df_write_all(w->to, &r, sizeof r) != 0)
        return push_range_as(cp, r.lo, r.hi, r.solo); /* it died: handled on read */
    w->busy = 1;
    w->r = r;
    w->assigned = df_now();
    return 0;
}

static void tell_stop(worker *w)
{
    range r = {0, 0, 0};
    if (w->pid > 0 && df_write_all(w->to, &r, sizeof r) != 0)
        kill(w->pid, SIGKILL);
}

/* Saves the case a worker died on as a bug finding, logs it and counts it. */
static int record_death(campaign *cp, uint32_t id, uint64_t index, int hang, int sig)
{
    size_t ki = df_run_kernel_of(index, cp->nk);
    const df_kernel *k = cp->kernels[ki];
    df_gen_opts go = {.max_n = cp->o->max_n};
    if (strcmp(cp->o->family, "all") != 0)
        go.family = df_family_find(cp->o->family)->id;
    df_scratch buf = {0};
    df_case c;
    if (df_generate(cp->o->seed, index, k, &go, &buf, &c) != 0) {
        df_scratch_free(&buf);
        return -1;
    }
    df_checked r;
    memset(&r, 0, sizeof r);
    r.res.status = DF_RUN_ERROR;
    r.res.f = NAN;
    df_judgement *j = &r.j;
    j->verdict = DF_V_BUG;
    j->rule = hang ? "hang" : "crash";
    j->result = j->rel_err = j->err_ratio = j->cond = j->ref = NAN;
    if (hang)
        snprintf(j->why, sizeof j->why, "case still running after the %.0f s watchdog; worker "
                 "killed", cp->o->watchdog_s);
    else
        snprintf(j->why, sizeof j->why, "worker process died: signal %d (%s)", sig,
                 strsignal(sig));
    char path[4096], extra[64];
    int is_new = 0, rc = df_save_finding(cp->findings, &c, &r, path, sizeof path, &is_new);
    if (rc == 0) {
        if (hang)
            snprintf(extra, sizeof extra, ",\"watchdog_s\":%g", cp->o->watchdog_s);
        else
            snprintf(extra, sizeof extra, ",\"signal\":%d", sig);
        char *body = finding_body(k, &c, j, base_name(path), (int)id, extra);
        rc = body ? log_finding(cp, base_name(path), body) : -1;
        free(body);
        if (!cp->o->quiet)
            fprintf(stderr, "%-6s %s n=%llu seed=%llu index=%llu: %s -> %s\n",
                hang ? "HANG" : "CRASH", k->name, (unsigned long long)c.n,
                (unsigned long long)c.seed, (unsigned long long)index, j->why, path);
    }
    df_scratch_free(&buf);
    df_tally *t = &cp->tot->tally[ki];
    df_tally_case(t, c.n, j);
    t->crashes += !hang;
    t->hangs += (uint64_t)hang;
    t->saved += (uint64_t)is_new;
    return rc;
}

static int restart(campaign *cp, uint32_t id)
{
    if (start_worker(cp, id) == 0)
        return 0;
    perror("dotfuzz run: cannot start a worker");
    cp->env_fail = 1;
    return -1;
}

/* A worker's pipe closed: reap it, record what killed it, requeue its
 * range (minus the case it died on) and start another. */
static int handle_death(campaign *cp, uint32_t id, int stopping)
{
    worker *w = &cp->w[id];
    int st = 0;
    while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
        ;
    close(w->to);
    close(w->from);
    w->pid = 0;
    int clean = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (WIFEXITED(st) && WEXITSTATUS(st) == WORKER_EXIT_ENV) {
        cp->env_fail = 1;
        return -1;
    }
    int died_on_case = w->busy && cp->hb[id].busy;
    if (died_on_case && cp->hb[id].count > 1) {
        /* it died in a batch: which case did it is not known; the batch is
         * run again one case at a time, where the culprit dies alone */
        uint64_t first = cp->hb[id].index, end = first + cp->hb[id].count;
        if (push_range(cp, w->r.lo, first) || push_range_as(cp, first, end, 1) ||
            push_range(cp, end, w->r.hi))
            return -1;
        w->busy = 0;
        cp->restarts++;
        return stopping ? 0 : restart(cp, id);
    }
    if (w->busy) {
        uint64_t at = died_on_case ? cp->hb[id].index : w->r.lo;
        if (died_on_case) {
            int sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
            if (record_death(cp, id, at, w->hung, sig) != 0) {
                cp->env_fail = 1;
                return -1;
            }
        }
        /* the cases before it ran but their tallies died with the worker;
         * a range to run one case at a time stays one */
        if (push_range_as(cp, w->r.lo, at, w->r.solo) ||
            push_range_as(cp, at + died_on_case, w->r.hi, w->r.solo))
            return -1;
        w->busy = 0;
        w->fails = died_on_case ? 0 : w->fails + 1;
    }
    if (clean && stopping)
        return 0;
    if (w->fails >= 5) {
        fprintf(stderr, "dotfuzz run: worker %u died 5 times in a row outside any case; "
                        "giving up\n", id);
        cp->env_fail = 1;
        return -1;
    }
    if (!clean)
        cp->restarts++;
    return stopping ? 0 : restart(cp, id);
}

/* Reads one message from worker id. Returns 0, or -1 when its pipe closed. */
static int read_message(campaign *cp, uint32_t id)
{
    worker *w = &cp->w[id];
    msg_head h;
    if (read_all(w->from, &h, sizeof h) != 0 || h.len > ((size_t)64 << 20))
        return -1;
    char *payload = malloc(h.len + 1);
    if (!payload || read_all(w->from, payload, h.len) != 0) {
        free(payload);
        return -1;
    }
    payload[h.len] = 0;
    int rc = 0;
    if (h.type == MSG_FINDING) {
        size_t nl = strnlen(payload, h.len);
        if (nl < h.len && log_finding(cp, payload, payload + nl + 1) != 0)
            cp->env_fail = 1;
    } else if (h.type == MSG_DONE && h.len == cp->nk * sizeof(df_tally) + DF_BUCKETS / 8) {
        /* the payload is malloc'd, so aligned for the tallies it holds */
        df_totals_add_parts(cp->tot, (const df_tally *)payload,
                            (const uint8_t *)payload + cp->nk * sizeof(df_tally), cp->nk);
        double took = df_now() - w->assigned;
        uint64_t ran = h.next - h.lo;
        /* ranges of about half a second: short enough to stop promptly
         * and to lose little on a crash, long enough to cost nothing */
        if (h.status == DF_RANGE_DONE && ran > 0 && took > 0) {
            double want = ran * 0.5 / took;
            cp->batch = (uint64_t)fmax(1, fmin(want, 2.0 * cp->batch + 1));
        }
        if (h.status == DF_RANGE_POISONED && !w->r.solo && cp->o->batch > 1) {
            /* the context died in a batch of the engine's: the culprit is
             * the last case recorded or one of the batch's cases from next
             * on, which run again one at a time, where it dies alone (a
             * batch of kernels run in turn may leave cases before it
             * unrun: without this the same batch would die forever) */
            uint64_t end = h.hi - h.next > cp->o->batch ? h.next + cp->o->batch : h.hi;
            rc = push_range(cp, end, h.hi) || push_range_as(cp, h.next, end, 1) ? -1 : 0;
        } else {
            rc = push_range(cp, h.next, h.hi);
        }
        w->busy = 0;
        w->fails = 0;
        if (h.status == DF_RANGE_ENV)
            cp->env_fail = 1;
    }
    free(payload);
    return rc;
}

/* ---- stats ---- */

static uint64_t total_cases(const campaign *cp)
{
    return DF_TOTALS_SUM(cp->tot, cp->nk, cases);
}

static void worst(const campaign *cp, double *ratio, const char **kernel)
{
    size_t ki;
    *ratio = df_totals_worst(cp->tot, cp->nk, &ki);
    *kernel = ki < cp->nk ? cp->kernels[ki]->name : "-";
}

#define SUM(cp, field) DF_TOTALS_SUM((cp)->tot, (cp)->nk, field)

static uint64_t pending_cases(const campaign *cp)
{
    uint64_t n = 0;
    for (size_t i = 0; i < cp->nqueue; i++)
        n += cp->queue[i].hi - cp->queue[i].lo;
    return n;
}

static int write_fuzzer_stats(campaign *cp)
{
    double elapsed = df_now() - cp->t0, ratio;
    const char *wk;
    worst(cp, &ratio, &wk);
    uint64_t cases = total_cases(cp);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return -1;
    fprintf(f, "start_time        : %.0f\nlast_update       : %lld\n", cp->start_time,
            (long long)time(NULL));
    fprintf(f, "run_time          : %.1f\nsessions          : %llu\npid               : %ld\n",
            cp->run_time_before + elapsed, (unsigned long long)cp->sessions, (long)getpid());
    fprintf(f, "seed              : %llu\nbackend           : %s\njobs              : %u\n",
            (unsigned long long)cp->o->seed, cp->backend, cp->jobs);
    fprintf(f, "kernels           : %zu\ncases_done        : %llu\ncases_per_sec     : %.1f\n",
            cp->nk, (unsigned long long)cases,
            elapsed > 0 ? (cases - cp->cases_at_start) / elapsed : 0.0);
    static const char *const vname[DF_V_COUNT] = {
        NULL, "ok", "precision", "nondet", "soft_error", "bug"};
    for (int v = 1; v < DF_V_COUNT; v++)
        fprintf(f, "%-17s : %llu\n", vname[v],
                (unsigned long long)df_totals_verdict(cp->tot, cp->nk, v));
    fprintf(f, "crashes           : %llu\nhangs             : %llu\n",
            (unsigned long long)SUM(cp, crashes), (unsigned long long)SUM(cp, hangs));
    fprintf(f, "worker_restarts   : %llu\nfindings_saved    : %llu\n",
            (unsigned long long)(cp->prev_restarts + cp->restarts),
            (unsigned long long)SUM(cp, saved));
    fprintf(f, "findings_logged   : %zu\nerror_buckets     : %u\n", cp->nnames,
            df_totals_buckets(cp->tot));
    fprintf(f, "worst_ratio       : %.6g\nworst_kernel      : %s\n", ratio, wk);
    fprintf(f, "next_index        : %llu\npending_cases     : %llu\n",
            (unsigned long long)cp->next_index, (unsigned long long)pending_cases(cp));
    fprintf(f, "watchdog_s        : %g\ncommand_line      : %s\n", cp->o->watchdog_s,
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
    for (size_t k = 0; k < cp->nk; k++) {
        const df_tally *t = &cp->tot->tally[k];
        fprintf(f, "%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%.6g\t%.6g\t%llu\t%llu\n",
                cp->kernels[k]->name, (unsigned long long)t->cases,
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
    for (size_t k = 0; k < cp->nk; k++)
        for (int b = 0; b < DF_NBINS; b++) {
            const df_nbin *nb = &cp->tot->tally[k].nbin[b];
            if (nb->cases)
                fprintf(f, "%s\t%llu\t%llu\t%llu\t%.6g\t%.6g\n", cp->kernels[k]->name,
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
    for (size_t k = 0; k < cp->nk; k++)
        for (int h = 0; h < DF_RHIST; h++)
            if (cp->tot->tally[k].rhist[h])
                fprintf(f, "%s\t%d\t%llu\n", cp->kernels[k]->name, h + DF_RHIST_MIN,
                        (unsigned long long)cp->tot->tally[k].rhist[h]);
    fclose(f);
    rc = flush_atomic(cp->dir, "ratio_hist.tsv", buf, len);
    free(buf);
    return rc;
}

static void append_plot_data(campaign *cp)
{
    double elapsed = df_now() - cp->t0, ratio;
    const char *wk;
    worst(cp, &ratio, &wk);
    uint64_t cases = total_cases(cp);
    char line[256];
    int n = snprintf(line, sizeof line, "%.1f\t%llu\t%.1f\t%llu\t%llu\t%llu\t%llu\t%.6g\n",
                     cp->run_time_before + elapsed, (unsigned long long)cases,
                     elapsed > 0 ? (cases - cp->cases_at_start) / elapsed : 0.0,
                     (unsigned long long)SUM(cp, saved),
                     (unsigned long long)df_totals_verdict(cp->tot, cp->nk, DF_V_BUG),
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

static void status_line(campaign *cp, const char *tag)
{
    if (cp->o->quiet)
        return;
    double elapsed = df_now() - cp->t0, ratio;
    const char *wk;
    worst(cp, &ratio, &wk);
    uint64_t cases = total_cases(cp);
    fprintf(stderr,
            "#%llu\t%s cases/s: %.0f precision: %llu bug: %llu crash: %llu hang: %llu "
            "saved: %llu worst-ratio: %.3g (%s) workers: %u restarts: %llu elapsed: %.0fs\n",
            (unsigned long long)cases, tag,
            elapsed > 0 ? (cases - cp->cases_at_start) / elapsed : 0.0,
            (unsigned long long)df_totals_verdict(cp->tot, cp->nk, DF_V_PRECISION),
            (unsigned long long)df_totals_verdict(cp->tot, cp->nk, DF_V_BUG),
            (unsigned long long)SUM(cp, crashes), (unsigned long long)SUM(cp, hangs),
            (unsigned long long)SUM(cp, saved), ratio, wk, cp->jobs,
            (unsigned long long)cp->restarts, elapsed);
}

/* ---- the supervisor ---- */

static int any_busy(const campaign *cp)
{
    for (uint32_t w = 0; w < cp->jobs; w++)
        if (cp->w[w].busy)
            return 1;
    return 0;
}

static void watchdog(campaign *cp, double now)
{
    for (uint32_t w = 0; w < cp->jobs; w++) {
        worker *wk = &cp->w[w];
        if (wk->pid > 0 && wk->busy && !wk->hung && cp->hb[w].busy &&
            now - cp->hb[w].started > cp->o->watchdog_s) {
            wk->hung = 1;
            kill(wk->pid, SIGKILL);
        }
    }
}

static int supervise(campaign *cp)
{
    double deadline = cp->o->time_s > 0 ? cp->t0 + cp->o->time_s : 0;
    double next_status = cp->t0 + 1, next_snap = cp->t0 + cp->o->stats_every_s;
    int stopping = 0;
    for (uint32_t w = 0; w < cp->jobs; w++)
        if (start_worker(cp, w) != 0) {
            perror("dotfuzz run: cannot start a worker");
            return -1;
        }
    for (;;) {
        double now = df_now();
        if (!stopping && (stop_requested || cp->env_fail || (deadline && now >= deadline))) {
            stopping = 1;
            if (stop_requested)
                for (uint32_t w = 0; w < cp->jobs; w++)
                    if (cp->w[w].pid > 0)
                        kill(cp->w[w].pid, SIGTERM);
        }
        if (!stopping)
            for (uint32_t w = 0; w < cp->jobs; w++)
                if (assign(cp, w) != 0)
                    return -1;
        if (!any_busy(cp)) {
            if (!stopping && cp->nqueue == 0 && cp->o->cases && cp->next_index >= cp->o->cases)
                stopping = 1; /* every case of the campaign ran */
            if (stopping)
                break;
        }
        struct pollfd pf[MAX_JOBS];
        uint32_t ids[MAX_JOBS], n = 0;
        for (uint32_t w = 0; w < cp->jobs; w++)
            if (cp->w[w].pid > 0) {
                pf[n] = (struct pollfd){.fd = cp->w[w].from, .events = POLLIN};
                ids[n++] = w;
            }
        if (n == 0)
            break;
        int r = poll(pf, n, 100);
        for (uint32_t i = 0; r > 0 && i < n; i++)
            if ((pf[i].revents & (POLLIN | POLLHUP | POLLERR)) &&
                read_message(cp, ids[i]) != 0 && handle_death(cp, ids[i], stopping) != 0 &&
                cp->env_fail)
                stopping = 1;
        now = df_now();
        watchdog(cp, now);
        if (now >= next_status) {
            status_line(cp, "pulse");
            next_status = now + 1;
        }
        if (now >= next_snap) {
            if (snapshot(cp, 1) != 0)
                cp->env_fail = 1;
            next_snap = now + cp->o->stats_every_s;
        }
    }
    for (uint32_t w = 0; w < cp->jobs; w++) {
        tell_stop(&cp->w[w]);
        while (cp->w[w].pid > 0 && read_message(cp, w) == 0)
            ; /* drain until it exits */
        if (cp->w[w].pid > 0)
            handle_death(cp, w, 1);
    }
    return 0;
}

/* ---- setting up ---- */

/* GPUs the workers spread over: CUDA_VISIBLE_DEVICES's entries when set,
 * else the /dev/nvidiaN device files (counted without touching CUDA, which
 * must not be initialised before fork). */
static void find_gpus(campaign *cp)
{
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    cp->ngpus = 0;
    if (vis) {
        char *list = strdup(vis), *save = NULL;
        for (char *t = list ? strtok_r(list, ",", &save) : NULL; t && cp->ngpus < MAX_JOBS;
             t = strtok_r(NULL, ",", &save))
            snprintf(cp->gpus[cp->ngpus++], sizeof cp->gpus[0], "%s", t);
        free(list);
        return;
    }
    for (uint32_t i = 0; i < MAX_JOBS; i++) {
        char dev[32];
        snprintf(dev, sizeof dev, "/dev/nvidia%u", i);
        if (access(dev, F_OK) != 0)
            break;
        snprintf(cp->gpus[cp->ngpus++], sizeof cp->gpus[0], "%u", i);
    }
}

/* Which backend "auto" means and which kernels run, decided in a child
 * process so that this one never initialises CUDA. */
static int probe(campaign *cp)
{
    int p[2];
    if (pipe(p) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(p[0]);
        df_backend *b = NULL;
        df_outcome opened = df_open_backend_cli("run", cp->o->backend, &b);
        if (opened != DF_OUTCOME_CLEAN)
            _exit(opened == DF_OUTCOME_USAGE ? 2 : 3);
        const df_kernel *ks[DF_RUN_MAX_KERNELS];
        size_t nk = 0;
        int sel = df_run_select(cp->o, b, ks, &nk);
        if (sel != 0)
            _exit(sel == -1 ? 2 : 3);
        FILE *f = fdopen(p[1], "w");
        fprintf(f, "%s\n%s\n", df_backend_name(b), df_backend_note(b));
        for (size_t k = 0; k < nk; k++)
            fprintf(f, "%s\n", ks[k]->name);
        fclose(f);
        _exit(0); /* no df_backend_close: _exit tears the context down */
    }
    close(p[1]);
    FILE *f = fdopen(p[0], "r");
    char line[512];
    int st = 0, rc = 0;
    if (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        snprintf(cp->backend, sizeof cp->backend, "%.15s", line);
        if (fgets(line, sizeof line, f) && !cp->o->quiet)
            fprintf(stderr, "dotfuzz run: %s", line);
        cp->nk = 0;
        while (fgets(line, sizeof line, f) && cp->nk < DF_RUN_MAX_KERNELS) {
            line[strcspn(line, "\n")] = 0;
            cp->kernels[cp->nk++] = df_kernel_find(line);
        }
    }
    if (f)
        fclose(f);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        rc = WIFEXITED(st) && WEXITSTATUS(st) == 2 ? -1 : -2;
    else if (cp->nk == 0 || !cp->backend[0])
        rc = -2;
    return rc;
}

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

/* A new campaign needs a directory that is absent or empty, but for the
 * campaign file's leftover temporary copies, which are removed. */
static int prepare_new_dir(campaign *cp)
{
    DIR *d = opendir(cp->dir);
    if (d) {
        struct dirent *de;
        int empty = 1, temps = 0;
        while ((de = readdir(d)))
            if (is_campaign_temp(de->d_name))
                temps = 1;
            else if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
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

static int make_subdirs(campaign *cp)
{
    char *w = join(cp->dir, "workers");
    int rc = make_dir(cp->findings) || !w || make_dir(w);
    if (rc)
        fprintf(stderr, "dotfuzz run: cannot create the directories of %s: %s\n", cp->dir,
                strerror(errno));
    free(w);
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
    cp->o->kernel = list;
    int rc = probe(cp);
    if (rc != 0)
        return rc;
    if (strcmp(cp->backend, cp->o->backend) != 0) {
        fprintf(stderr, "dotfuzz run: the campaign ran on backend %s; it got %s here\n",
                cp->o->backend, cp->backend);
        return -2;
    }
    return 0;
}

static int setup(campaign *cp, int argc, char **argv)
{
    df_run_opts *o = cp->o;
    int resume = o->resume != NULL;
    cp->dir = strdup(resume ? o->resume : o->out);
    cp->findings = cp->dir ? join(cp->dir, "findings") : NULL;
    size_t len = 0;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    cp->cmdline = calloc(1, len + 16);
    cp->tot = calloc(1, sizeof *cp->tot);
    if (!cp->findings || !cp->cmdline || !cp->tot)
        return -2;
    strcpy(cp->cmdline, "dotfuzz");
    for (int i = 0; i < argc; i++) {
        strcat(cp->cmdline, " ");
        strcat(cp->cmdline, argv[i]);
    }
    o->corpus = cp->findings;
    int rc;
    if (resume) {
        char *kernels = NULL;
        if (read_campaign_file(cp, &kernels) != 0)
            return -1;
        if (df_load_plugins_cli("run", &o->libs) != 0)
            return -1;
        if ((rc = kernels_from_list(cp, kernels)) != 0)
            return rc;
        if (read_state(cp) != 0 || load_logged_names(cp) != 0)
            return -1;
        sweep_temps(cp->dir);
        sweep_temps(cp->findings);
        if (make_subdirs(cp) != 0)
            return -2;
    } else {
        if ((rc = prepare_new_dir(cp)) != 0)
            return rc;
        if ((rc = probe(cp)) != 0)
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
    find_gpus(cp);
    cp->jobs = o->jobs ? o->jobs
                       : (!strcmp(cp->backend, "cuda") && cp->ngpus ? cp->ngpus : 1);
    if (cp->jobs > MAX_JOBS)
        cp->jobs = MAX_JOBS;
    for (uint32_t w = 0; w < cp->jobs; w++)
        cp->w[w].gpu = !strcmp(cp->backend, "cuda") && cp->ngpus ? cp->gpus[w % cp->ngpus]
                                                                  : NULL;
    cp->hb = mmap(NULL, MAX_JOBS * sizeof *cp->hb, PROT_READ | PROT_WRITE,
                  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (cp->hb == MAP_FAILED)
        return -2;
    cp->batch = 16;
    cp->cases_at_start = total_cases(cp);
    return 0;
}

static void teardown(campaign *cp)
{
    if (cp->hb && cp->hb != MAP_FAILED)
        munmap(cp->hb, MAX_JOBS * sizeof *cp->hb);
    if (cp->log_fd >= 0)
        close(cp->log_fd);
    if (cp->plot_fd >= 0)
        close(cp->plot_fd);
    free(cp->queue);
    free(cp->names);
    free(cp->tot);
    free(cp->cmdline);
    free(cp->findings);
    free(cp->dir);
}

int df_campaign_run(df_run_opts *o, int argc, char **argv)
{
    campaign *cp = calloc(1, sizeof *cp);
    if (!cp)
        return DF_OUTCOME_ENV;
    cp->o = o;
    cp->log_fd = cp->plot_fd = -1;
    cp->t0 = df_now();
    int rc = setup(cp, argc, argv);
    if (rc != 0) {
        teardown(cp);
        free(cp);
        return rc == -1 ? DF_OUTCOME_USAGE : DF_OUTCOME_ENV;
    }
    if (!o->quiet)
        fprintf(stderr,
                "dotfuzz run: campaign %s (session %llu): seed %llu, %zu kernel(s), backend %s, "
                "%u worker(s), watchdog %g s, %llu case(s) done before\n",
                cp->dir, (unsigned long long)cp->sessions, (unsigned long long)o->seed, cp->nk,
                cp->backend, cp->jobs, o->watchdog_s, (unsigned long long)cp->cases_at_start);
    struct sigaction sa = {0}, old_int, old_term, old_pipe;
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, &old_pipe);
    int sup = supervise(cp);
    if (snapshot(cp, 1) != 0)
        cp->env_fail = 1;
    status_line(cp, stop_requested ? "INTERRUPTED" : "DONE");
    df_run_summary(stdout, o, cp->kernels, cp->nk, cp->tot, SUM(cp, saved),
                   cp->run_time_before + (df_now() - cp->t0), cp->backend);
    printf("  campaign %s: session %llu, %llu worker restart(s) this session; "
           "continue with `dotfuzz run --resume %s`, report with `dotfuzz report %s`\n",
           cp->dir, (unsigned long long)cp->sessions, (unsigned long long)cp->restarts,
           cp->dir, cp->dir);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGPIPE, &old_pipe, NULL);
    df_outcome out = DF_OUTCOME_CLEAN;
    if (sup != 0 || cp->env_fail)
        out = DF_OUTCOME_ENV;
    else if (df_totals_verdict(cp->tot, cp->nk, DF_V_BUG))
        out = DF_OUTCOME_BUG;
    teardown(cp);
    free(cp);
    return out;
}
