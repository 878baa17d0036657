/* supervisor.c — a run's workers, their ranges, their deaths (supervisor.h).
 *
 * A worker reads ranges from its command pipe and answers on its message
 * pipe: a message per finding saved (the supervisor prints its line and
 * hands it to the hooks) and one per range done (its tallies). Its
 * heartbeat says which case it is on, so a death names its case exactly.
 * The supervisor itself never initialises CUDA: a context does not survive
 * fork, and a kernel that faults poisons the context of its process. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz/outcome.h"
#include "fuzz/util.h"
#include "fuzz/files.h"
#include "fuzz/run/campaign_dir.h"
#include "fuzz/run/select.h"
#include "fuzz/run/supervisor.h"

/* A worker's messages: a range done, a finding saved, its backend open. */
enum { MSG_DONE = 1, MSG_FINDING = 2, MSG_READY = 3 };

typedef struct msg_head {
    uint32_t type, status;
    uint64_t lo, hi, next, len; /* len: payload bytes that follow */
} msg_head;

/* A finding's message starts with its signature; its file name, log
 * members and human line follow, each NUL-terminated. */
typedef struct msg_finding {
    uint64_t ki;
    int32_t verdict, is_new;
    double err_ratio;
    char rule[24];
} msg_finding;

/* What a worker is told: a range to run, and the deadline (CLOCK_MONOTONIC,
 * 0 = none) at which it stops early; hi == 0 tells it to end. */
typedef struct df_cmd {
    df_range r;
    double deadline;
} df_cmd;

/* A worker's body's context. */
typedef struct df_sup_arg {
    df_sup *s;
    int id;
} df_sup_arg;

/* The supervisor stops seeing its workers' progress while it is blocked
 * (writing to a stalled terminal or pipe): a gap of more than this between
 * two turns of its loop, which otherwise come every 0.1 s, is excused. */
#define STALL_S 0.5

/* The time a range of cases takes, about (read_message adapts its size). */
#define RANGE_S 2.0

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

int df_sup_init(df_sup *s, df_run_opts *o)
{
    memset(s, 0, sizeof *s);
    s->o = o;
    s->findings = o->corpus;
    s->t0 = df_now();
    /* the first range fills the engine's ring of batches; later ones adapt
     * to about RANGE_S */
    s->batch = (uint64_t)o->batch * DF_SETS_MAX > 16 ? (uint64_t)o->batch * DF_SETS_MAX : 16;
    s->tot = calloc(1, sizeof *s->tot);
    s->args = calloc(DF_SUP_MAX_JOBS, sizeof *s->args);
    for (uint32_t i = 0; i < DF_SUP_MAX_JOBS; i++)
        s->procs[i].to = s->procs[i].from = -1;
    return s->tot && s->args ? 0 : -1;
}

void df_sup_free(df_sup *s)
{
    for (uint32_t i = 0; i < DF_SUP_MAX_JOBS; i++)
        df_worker_free(&s->procs[i]);
    free(s->queue);
    free(s->sigs);
    free(s->tot);
    free(s->args);
}

/* ---- ranges ---- */

/* [lo, hi) pending, one case at a time and found when like says (NULL:
 * batched). */
static int push_as(df_sup *s, uint64_t lo, uint64_t hi, const df_range *like)
{
    if (lo >= hi)
        return 0;
    if (df_grow(&s->queue, &s->capqueue, s->nqueue, sizeof *s->queue) != 0)
        return -1;
    s->queue[s->nqueue++] =
        (df_range){lo, hi, like ? like->solo : 0, like ? like->found : 0};
    return 0;
}

int df_sup_push(df_sup *s, uint64_t lo, uint64_t hi, uint64_t solo)
{
    df_range like = {0, 0, solo, 0};
    return push_as(s, lo, hi, &like);
}

static int push(df_sup *s, uint64_t lo, uint64_t hi) { return push_as(s, lo, hi, NULL); }

/* A culprit search past the deadline: for a batch that died before it. */
static int searched_late(const df_range *r, double deadline)
{
    return r->solo && r->found > 0 && r->found <= deadline;
}

static int queue_has_late_search(const df_sup *s, double deadline)
{
    for (size_t i = 0; i < s->nqueue; i++)
        if (searched_late(&s->queue[i], deadline))
            return 1;
    return 0;
}

/* Work for a worker: a pending range first (past the deadline, only the
 * culprit searches of batches that died before it), then fresh indices. */
static int next_range(df_sup *s, df_range *r, int late, double deadline)
{
    size_t at = s->nqueue;
    while (at > 0 && late && !searched_late(&s->queue[at - 1], deadline))
        at--;
    if (at > 0) {
        *r = s->queue[at - 1];
        s->queue[at - 1] = s->queue[--s->nqueue];
        if (r->hi - r->lo > s->batch) { /* hand it out in batch-sized pieces */
            s->queue[s->nqueue++] = (df_range){r->lo + s->batch, r->hi, r->solo, r->found};
            r->hi = r->lo + s->batch;
        }
        return 1;
    }
    if (late)
        return 0;
    uint64_t hi = s->next_index + s->batch;
    if (s->o->cases && hi > s->o->cases)
        hi = s->o->cases;
    if (hi <= s->next_index)
        return 0;
    *r = (df_range){s->next_index, hi, 0, 0};
    s->next_index = hi;
    return 1;
}

uint64_t df_sup_pending_cases(const df_sup *s)
{
    uint64_t n = 0;
    for (size_t i = 0; i < s->nqueue; i++)
        n += s->queue[i].hi - s->queue[i].lo;
    return n;
}

uint64_t df_sup_cases(const df_sup *s) { return DF_TOTALS_SUM(s->tot, s->nk, cases); }

/* ---- signatures ---- */

int df_sup_known(df_sup *s, size_t ki, int verdict, const char *rule, double err_ratio)
{
    if (df_grow(&s->sigs, &s->capsigs, s->nsigs, sizeof *s->sigs) != 0)
        return -1;
    df_sup_sig *g = &s->sigs[s->nsigs++];
    *g = (df_sup_sig){.ki = ki, .verdict = verdict, .err_ratio = err_ratio};
    snprintf(g->rule, sizeof g->rule, "%s", rule);
    return 0;
}

/* The file name part of a path. */
static const char *base_name(const char *path)
{
    const char *sl = strrchr(path, '/');
    return sl ? sl + 1 : path;
}

/* ---- in a worker ---- */

typedef struct worker_ctx {
    int fd;
    int id;
} worker_ctx;

/* The engine's callback in a worker: the finding goes to the supervisor,
 * which prints its line and keeps it. */
static int worker_on_finding(void *vctx, const df_finding *fd)
{
    worker_ctx *wc = vctx;
    const df_judgement *j = &fd->r->j;
    const char *name = base_name(fd->path);
    char *members = df_log_members(fd->k, fd->c, j, name, wc->id, NULL, 0);
    char *line = NULL;
    size_t ll = 0;
    FILE *f = members ? open_memstream(&line, &ll) : NULL;
    if (!f) {
        free(members);
        return -1;
    }
    df_print_finding(f, fd);
    fclose(f);
    msg_finding mf = {.ki = fd->ki, .verdict = (int32_t)j->verdict, .is_new = fd->is_new,
                      .err_ratio = j->err_ratio};
    snprintf(mf.rule, sizeof mf.rule, "%s", j->rule);
    size_t nl = strlen(name) + 1, ml = strlen(members) + 1;
    msg_head h = {.type = MSG_FINDING, .len = sizeof mf + nl + ml + ll};
    int rc = df_write_all(wc->fd, &h, sizeof h) || df_write_all(wc->fd, &mf, sizeof mf) ||
             df_write_all(wc->fd, name, nl) || df_write_all(wc->fd, members, ml) ||
             df_write_all(wc->fd, line, ll);
    free(members);
    free(line);
    return rc ? -1 : 0;
}

static void write_inflight(int fd, int id, const df_range *r)
{
    char line[128];
    int n = snprintf(line, sizeof line, "worker %d pid %ld range %llu %llu\n", id,
                     (long)getpid(), (unsigned long long)r->lo, (unsigned long long)r->hi);
    if (fd >= 0 && ftruncate(fd, 0) == 0 && pwrite(fd, line, (size_t)n, 0) != n)
        fprintf(stderr, "dotfuzz run: worker %d: cannot write its in-flight file\n", id);
}

static int open_inflight(const df_sup *s, int id)
{
    if (!s->inflight_dir)
        return -1;
    char path[4096];
    snprintf(path, sizeof path, "%s/%d.inflight", s->inflight_dir, id);
    return open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
}

/* A worker process: opens the backend, then runs the ranges it is sent
 * until told to stop (hi == 0). */
static int worker_body(void *ctx, int cmd_fd, int msg_fd, df_heartbeat *hb)
{
    df_sup_arg *a = ctx;
    df_sup *s = a->s;
    int id = a->id;
    if (s->w[id].gpu)
        setenv("CUDA_VISIBLE_DEVICES", s->w[id].gpu, 1);
    df_backend *b = NULL;
    char err[256];
    if (df_backend_open(s->backend, &b, err, sizeof err) != 0) {
        fprintf(stderr, "dotfuzz run: worker %d: %s\n", id, err);
        return DF_LEAVE_FAILED;
    }
    df_backend_set_debug_invariants(b, s->o->debug_invariants);
    int ifd = open_inflight(s, id);
    worker_ctx wc = {msg_fd, id};
    df_engine e;
    df_engine_init(&e, s->o, b, s->kernels, s->nk);
    e.batch = s->o->batch;
    if (e.batch > 1) {
        /* the usable CPUs shared among the workers */
        unsigned share = s->o->threads ? s->o->threads : df_usable_cpus() / s->jobs;
        e.pool = df_pool_create(share ? share : 1);
        df_backend_set_pool(b, e.pool);
    }
    e.hb = hb;
    if (s->o->save_bugs == DF_SAVE_NEW)
        for (size_t i = 0; i < s->nsigs; i++)
            df_engine_known_signature(&e, s->sigs[i].ki, s->sigs[i].verdict, s->sigs[i].rule,
                                      s->sigs[i].err_ratio);
    e.stop = &hb->stop;
    e.on_finding = worker_on_finding;
    e.ctx = &wc;
    df_totals *t = malloc(sizeof *t);
    msg_head ready = {.type = MSG_READY};
    int leave = t && df_write_all(msg_fd, &ready, sizeof ready) == 0 ? DF_LEAVE_DONE
                                                                       : DF_LEAVE_FAILED;
    df_cmd cmd;
    /* a stop request (the supervisor's, or SIGINT/SIGTERM from outside)
     * ends the worker after the range it cut short */
    while (leave == DF_LEAVE_DONE && !hb->stop &&
           df_read_full(cmd_fd, &cmd, sizeof cmd) == 0 && cmd.r.hi != 0) {
        const df_range r = cmd.r;
        write_inflight(ifd, id, &r);
        memset(t, 0, sizeof *t);
        uint64_t next;
        e.batch = r.solo ? 1 : s->o->batch;
        int rc = df_engine_range(&e, r.lo, r.hi, cmd.deadline, t, &next);
        msg_head h = {.type = MSG_DONE, .status = (uint32_t)rc, .lo = r.lo, .hi = r.hi,
                      .next = next, .len = s->nk * sizeof(df_tally) + sizeof t->bucket_seen};
        if (df_write_all(msg_fd, &h, sizeof h) ||
            df_write_all(msg_fd, t->tally, s->nk * sizeof(df_tally)) ||
            df_write_all(msg_fd, t->bucket_seen, sizeof t->bucket_seen))
            leave = DF_LEAVE_FAILED;
        else if (rc == DF_RANGE_POISONED)
            leave = DF_LEAVE_POISONED;
        else if (rc == DF_RANGE_ENV)
            leave = DF_LEAVE_FAILED;
    }
    free(t);
    df_engine_free(&e);
    df_backend_set_pool(b, NULL);
    df_pool_destroy(e.pool);
    if (ifd >= 0)
        close(ifd);
    if (leave != DF_LEAVE_POISONED) /* a poisoned context may hang on teardown */
        df_backend_close(b);
    return leave;
}

/* ---- starting, stopping, deaths ---- */

static int start(df_sup *s, uint32_t id)
{
    s->args[id] = (df_sup_arg){s, (int)id};
    s->w[id].busy = 0;
    s->w[id].ready = 0;
    s->w[id].abandoned = 0;
    if (!s->procs[id].hb && df_worker_init(&s->procs[id]) != 0)
        return -1;
    return df_worker_start(s->procs, s->jobs, id, worker_body, &s->args[id]);
}

static int restart(df_sup *s, uint32_t id)
{
    if (start(s, id) == 0)
        return 0;
    perror("dotfuzz run: cannot start a worker");
    s->env_fail = 1;
    return -1;
}

/* Gives worker id its next range, if it is idle and there is one. A range
 * stops at the deadline, but for a culprit search (solo), which past the
 * deadline is the only work left. */
static int assign(df_sup *s, uint32_t id, int late, double deadline)
{
    df_sup_worker *w = &s->w[id];
    df_range r;
    if (w->busy || s->procs[id].pid <= 0 || !next_range(s, &r, late, deadline))
        return 0;
    df_cmd cmd = {r, r.solo ? 0 : deadline};
    if (df_write_all(s->procs[id].to, &cmd, sizeof cmd) != 0)
        return push_as(s, r.lo, r.hi, &r); /* it died: seen on its pipe */
    w->busy = 1;
    w->r = r;
    w->assigned = df_now();
    return 0;
}

static void tell_stop(df_sup *s, uint32_t id)
{
    df_cmd cmd = {{0, 0, 0, 0}, 0};
    if (s->procs[id].pid > 0 && df_write_all(s->procs[id].to, &cmd, sizeof cmd) != 0)
        kill(s->procs[id].pid, SIGKILL);
}

/* Hands a finding to the hooks and, unless quiet, its line to stderr. */
static int keep_finding(df_sup *s, const char *name, const char *members, const char *line)
{
    if (!s->o->quiet && line && *line)
        fputs(line, stderr);
    if (s->hooks.log && s->hooks.log(s->hooks.ctx, name, members) != 0) {
        s->env_fail = 1;
        return -1;
    }
    return 0;
}

/* Saves the case worker id ended on as a bug finding (rule crash or hang),
 * keeps and counts it. */
static int record_end(df_sup *s, uint32_t id, uint64_t index, const df_worker_end *end)
{
    size_t ki = df_run_kernel_of(index, s->nk);
    const df_kernel *k = s->kernels[ki];
    df_gen_opts go = {.max_n = s->o->max_n};
    if (strcmp(s->o->family, "all") != 0)
        go.family = df_family_find(s->o->family)->id;
    df_scratch buf = {0};
    df_case c;
    if (df_generate(s->o->seed, index, k, &go, &buf, &c) != 0) {
        df_scratch_free(&buf);
        return -1;
    }
    char why[200];
    df_end_text(end, s->o->watchdog_s, why, sizeof why);
    df_checked r;
    df_check_failed(k, &c, df_end_rule(end), why, &r);
    const df_judgement *j = &r.j;
    char path[4096];
    int is_new = 0, rc = df_save_finding(s->findings, &c, &r, path, sizeof path, &is_new);
    if (rc != 0) {
        fprintf(stderr, "dotfuzz run: cannot save the case worker %u ended on in %s: %s\n", id,
                s->findings, strerror(errno));
    } else {
        char *members =
            df_log_members(k, &c, j, base_name(path), (int)id, end, s->o->watchdog_s);
        char line[4600];
        snprintf(line, sizeof line, "%-6s %s n=%llu seed=%llu index=%llu: %s -> %s\n",
                 end->how == DF_END_HANG ? "HANG" : "CRASH", k->name, (unsigned long long)c.n,
                 (unsigned long long)c.seed, (unsigned long long)index, j->why, path);
        rc = members ? keep_finding(s, base_name(path), members, line) : -1;
        free(members);
    }
    df_scratch_free(&buf);
    df_tally *t = &s->tot->tally[ki];
    df_tally_case(t, c.n, j);
    t->crashes += end->how != DF_END_HANG;
    t->hangs += end->how == DF_END_HANG;
    t->saved += (uint64_t)is_new;
    return rc;
}

/* A worker's pipe closed: reap it, record what ended it, requeue its range
 * (minus the case it ended on) and start another unless stopping. */
static int handle_end(df_sup *s, uint32_t id, int stopping)
{
    df_sup_worker *w = &s->w[id];
    df_worker_end end;
    df_worker_reap(&s->procs[id], &end);
    if (end.how == DF_END_LEFT && end.leave == DF_LEAVE_FAILED) {
        s->env_fail = 1;
        return -1;
    }
    int died_on_case = w->busy && end.on_case && !w->abandoned;
    if (w->abandoned) {
        if (w->busy && push_as(s, w->r.lo, w->r.hi, &w->r) != 0)
            return -1;
        w->busy = 0;
        return 0;
    }
    if (died_on_case && end.count > 1) {
        /* it died in a batch: which case did it is not known; the batch is
         * run again one case at a time, where the culprit dies alone */
        uint64_t first = end.index, last = first + end.count;
        df_range search = {first, last, 1, df_now()};
        if (push(s, w->r.lo, first) || push_as(s, first, last, &search) ||
            push(s, last, w->r.hi))
            return -1;
        w->busy = 0;
        s->restarts++;
        return stopping ? 0 : restart(s, id);
    }
    if (w->busy) {
        uint64_t at = died_on_case ? end.index : w->r.lo;
        if (died_on_case && record_end(s, id, at, &end) != 0) {
            s->env_fail = 1;
            return -1;
        }
        /* the cases before it ran but their tallies died with the worker;
         * a range to run one case at a time stays one */
        if (push_as(s, w->r.lo, at, &w->r) ||
            push_as(s, at + (uint64_t)died_on_case, w->r.hi, &w->r))
            return -1;
        w->busy = 0;
        w->fails = died_on_case ? 0 : w->fails + 1;
    }
    int clean = end.how == DF_END_LEFT && end.leave == DF_LEAVE_DONE;
    if (clean && stopping)
        return 0;
    if (w->fails >= 5) {
        char how[160];
        df_end_text(&end, s->o->watchdog_s, how, sizeof how);
        fprintf(stderr, "dotfuzz run: worker %u ended 5 times in a row outside any case (last: "
                        "%s); giving up\n", id, how);
        s->env_fail = 1;
        return -1;
    }
    if (!clean)
        s->restarts++;
    return stopping ? 0 : restart(s, id);
}

/* Reads one message from worker id. Returns 0, or -1 when its pipe closed. */
static int read_message(df_sup *s, uint32_t id)
{
    df_sup_worker *w = &s->w[id];
    msg_head h;
    if (df_read_full(s->procs[id].from, &h, sizeof h) != 0 || h.len > ((size_t)64 << 20))
        return -1;
    char *payload = malloc(h.len + 1);
    if (!payload || df_read_full(s->procs[id].from, payload, h.len) != 0) {
        free(payload);
        return -1;
    }
    payload[h.len] = 0;
    int rc = 0;
    if (h.type == MSG_READY) {
        w->ready = 1;
    } else if (h.type == MSG_FINDING && h.len > sizeof(msg_finding)) {
        msg_finding mf;
        memcpy(&mf, payload, sizeof mf);
        mf.rule[sizeof mf.rule - 1] = 0;
        char *name = payload + sizeof mf, *end = payload + h.len;
        char *members = name + strnlen(name, (size_t)(end - name)) + 1;
        char *line = members < end ? members + strnlen(members, (size_t)(end - members)) + 1
                                   : end;
        if (members < end && line <= end && mf.ki < s->nk) {
            if ((mf.verdict == DF_V_BUG || mf.verdict == DF_V_SOFT_ERROR) &&
                df_sup_known(s, (size_t)mf.ki, mf.verdict, mf.rule, mf.err_ratio) != 0)
                s->env_fail = 1;
            /* counted as it comes: a range's tallies die with its worker,
             * but its files stay written (and are not new when it reruns) */
            s->tot->tally[mf.ki].saved += (uint64_t)(mf.is_new != 0);
            keep_finding(s, name, members, line < end ? line : "");
        }
    } else if (h.type == MSG_DONE && h.len == s->nk * sizeof(df_tally) + DF_BUCKETS / 8) {
        /* the payload is malloc'd, so aligned for the tallies it holds;
         * the files saved were counted from the findings' messages */
        df_tally *parts = (df_tally *)(void *)payload;
        for (size_t k = 0; k < s->nk; k++)
            parts[k].saved = 0;
        df_totals_add_parts(s->tot, parts, (const uint8_t *)payload + s->nk * sizeof(df_tally),
                            s->nk);
        double took = df_now() - w->assigned;
        uint64_t ran = h.next - h.lo;
        /* ranges of about RANGE_S seconds: a range ends the engine's
         * pipeline of batches (the next one is not made ahead across it),
         * so a short one costs throughput; a long one costs a resumed or
         * crashed campaign the range's cases again (a stop request and the
         * deadline cut it short either way) */
        if (h.status == DF_RANGE_DONE && ran > 0 && took > 0) {
            double want = ran * RANGE_S / took;
            s->batch = (uint64_t)fmax(1, fmin(want, 4.0 * s->batch + 1));
        }
        if (h.status == DF_RANGE_POISONED && !w->r.solo && s->o->batch > 1) {
            /* the context died in a batch of the engine's: the culprit is
             * the last case recorded or one of the batch's cases from next
             * on, which run again one at a time, where it dies alone (a
             * batch of kernels run in turn may leave cases before it
             * unrun: without this the same batch would die forever) */
            uint64_t end = h.hi - h.next > s->o->batch ? h.next + s->o->batch : h.hi;
            df_range search = {h.next, end, 1, df_now()};
            rc = push(s, end, h.hi) || push_as(s, h.next, end, &search) ? -1 : 0;
        } else {
            rc = push_as(s, h.next, h.hi, &w->r);
        }
        w->busy = 0;
        w->fails = 0;
        if (h.status == DF_RANGE_ENV)
            s->env_fail = 1;
    }
    free(payload);
    return rc;
}

/* ---- status ---- */

void df_sup_status(const df_sup *s, const char *tag)
{
    if (s->o->quiet)
        return;
    double elapsed = df_now() - s->t0;
    size_t ki;
    double ratio = df_totals_worst(s->tot, s->nk, &ki);
    uint64_t cases = df_sup_cases(s);
    fprintf(stderr,
            "#%llu\t%s cases/s: %.0f ok: %llu precision: %llu nondet: %llu bug: %llu "
            "crash: %llu hang: %llu saved: %llu worst-ratio: %.3g (%s) workers: %u "
            "restarts: %llu elapsed: %.0fs\n",
            (unsigned long long)cases, tag,
            elapsed > 0 ? (cases - s->cases_at_start) / elapsed : 0.0,
            (unsigned long long)df_totals_verdict(s->tot, s->nk, DF_V_OK),
            (unsigned long long)df_totals_verdict(s->tot, s->nk, DF_V_PRECISION),
            (unsigned long long)df_totals_verdict(s->tot, s->nk, DF_V_NONDET),
            (unsigned long long)df_totals_verdict(s->tot, s->nk, DF_V_BUG),
            (unsigned long long)DF_TOTALS_SUM(s->tot, s->nk, crashes),
            (unsigned long long)DF_TOTALS_SUM(s->tot, s->nk, hangs),
            (unsigned long long)DF_TOTALS_SUM(s->tot, s->nk, saved), ratio,
            ki < s->nk ? s->kernels[ki]->name : "-", s->jobs,
            (unsigned long long)s->restarts, elapsed);
}

/* ---- the loop ---- */

static int any_busy(const df_sup *s)
{
    for (uint32_t w = 0; w < s->jobs; w++)
        if (s->w[w].busy)
            return 1;
    return 0;
}

/* The run's end, one watchdog period past the deadline: a worker on a
 * case of a batch that died before the deadline (its culprit search)
 * finishes that case, which its watchdog bounds; the others are killed,
 * their ranges left pending (a resumed campaign runs them). */
static void abandon_busy(df_sup *s, double deadline)
{
    for (uint32_t w = 0; w < s->jobs; w++) {
        if (!s->w[w].busy || s->procs[w].pid <= 0)
            continue;
        if (searched_late(&s->w[w].r, deadline) && s->procs[w].hb->busy) {
            df_worker_stop(&s->procs[w]);
        } else {
            s->w[w].abandoned = 1;
            kill(s->procs[w].pid, SIGKILL);
        }
    }
}

/* Starts the workers and waits until each has its backend open, so that
 * the run's time counts fuzzing, as it would in one process. Returns 0, or
 * -1 when a worker cannot start or ends first (said). */
static int start_workers(df_sup *s)
{
    for (uint32_t w = 0; w < s->jobs; w++)
        if (start(s, w) != 0) {
            perror("dotfuzz run: cannot start a worker");
            return -1;
        }
    for (uint32_t w = 0; w < s->jobs; w++)
        while (!s->w[w].ready && !stop_requested)
            if (read_message(s, w) != 0) {
                df_worker_end end;
                char how[200];
                df_worker_reap(&s->procs[w], &end);
                df_end_text(&end, s->o->watchdog_s, how, sizeof how);
                fprintf(stderr, "dotfuzz run: worker %u ended before its first case: %s\n", w,
                        how);
                return -1;
            }
    return 0;
}

static int supervise(df_sup *s)
{
    const df_run_opts *o = s->o;
    if (start_workers(s) != 0)
        return -1;
    s->t0 = df_now(); /* the run's time, and its --time, count from here */
    double deadline = o->time_s > 0 ? s->t0 + o->time_s : 0;
    /* past the deadline only the culprits of batches that died before it
     * are looked for, and for one watchdog period at most */
    double hard_end = deadline ? deadline + o->watchdog_s : 0;
    double next_status = s->t0 + 1, next_snap = s->t0 + o->stats_every_s;
    double last = df_now();
    int stopping = 0, abandoned = 0;
    for (;;) {
        double now = df_now();
        if (now - last > STALL_S)
            for (uint32_t w = 0; w < s->jobs; w++)
                df_worker_excuse(&s->procs[w], now - last);
        last = now;
        int finishing = deadline && now >= deadline;
        if (!stopping && (stop_requested || s->env_fail)) {
            stopping = 1;
            if (stop_requested) {
                s->interrupted = 1;
                for (uint32_t w = 0; w < s->jobs; w++)
                    df_worker_stop(&s->procs[w]);
            }
        }
        if (!stopping && finishing && !queue_has_late_search(s, deadline) && !any_busy(s))
            stopping = 1;
        if (!abandoned && hard_end && now >= hard_end) {
            stopping = abandoned = 1;
            abandon_busy(s, deadline);
        }
        if (!stopping)
            for (uint32_t w = 0; w < s->jobs; w++)
                if (assign(s, w, finishing, deadline) != 0)
                    return -1;
        if (!any_busy(s)) {
            if (!stopping && s->nqueue == 0 && o->cases && s->next_index >= o->cases)
                stopping = 1; /* every case of the run ran */
            if (stopping)
                break;
        }
        struct pollfd pf[DF_SUP_MAX_JOBS];
        uint32_t ids[DF_SUP_MAX_JOBS], n = 0;
        for (uint32_t w = 0; w < s->jobs; w++)
            if (s->procs[w].pid > 0) {
                pf[n] = (struct pollfd){.fd = s->procs[w].from, .events = POLLIN};
                ids[n++] = w;
            }
        if (n == 0)
            break;
        int r = poll(pf, n, 100);
        for (uint32_t i = 0; r > 0 && i < n; i++)
            if ((pf[i].revents & (POLLIN | POLLHUP | POLLERR)) && read_message(s, ids[i]) != 0 &&
                handle_end(s, ids[i], stopping) != 0 && s->env_fail)
                stopping = 1;
        now = df_now();
        for (uint32_t w = 0; w < s->jobs; w++)
            df_worker_watchdog(&s->procs[w], now, o->watchdog_s);
        if (now >= next_status) {
            df_sup_status(s, "pulse");
            next_status = now + 1;
        }
        if (s->hooks.snapshot && now >= next_snap) {
            if (s->hooks.snapshot(s->hooks.ctx) != 0)
                s->env_fail = 1;
            next_snap = now + o->stats_every_s;
        }
    }
    for (uint32_t w = 0; w < s->jobs; w++) {
        tell_stop(s, w);
        while (s->procs[w].pid > 0 && read_message(s, w) == 0)
            ; /* drain until it exits */
        if (s->procs[w].pid > 0)
            handle_end(s, w, 1);
    }
    return 0;
}

int df_sup_run(df_sup *s)
{
    struct sigaction sa = {0}, old_int, old_term, old_pipe;
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, &old_pipe);
    stop_requested = 0;
    int rc = supervise(s);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGPIPE, &old_pipe, NULL);
    return rc != 0 || s->env_fail ? -1 : 0;
}

df_outcome df_run_finish(const df_sup *s, int run_rc, double run_time_before)
{
    df_sup_status(s, s->interrupted ? "INTERRUPTED" : "DONE");
    df_run_summary(stdout, s->o, s->kernels, s->nk, s->tot,
                   DF_TOTALS_SUM(s->tot, s->nk, saved), run_time_before + (df_now() - s->t0),
                   s->backend);
    if (run_rc != 0 || s->env_fail)
        return DF_OUTCOME_ENV;
    return df_totals_verdict(s->tot, s->nk, DF_V_BUG) ? DF_OUTCOME_BUG : DF_OUTCOME_CLEAN;
}

/* ---- setting up ---- */

/* GPUs the workers spread over: CUDA_VISIBLE_DEVICES's entries when set,
 * else the /dev/nvidiaN device files (counted without touching CUDA, which
 * must not be initialised before fork). */
static void find_gpus(df_sup *s)
{
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    s->ngpus = 0;
    if (vis) {
        char *list = strdup(vis), *save = NULL;
        for (char *t = list ? strtok_r(list, ",", &save) : NULL;
             t && s->ngpus < DF_SUP_MAX_JOBS; t = strtok_r(NULL, ",", &save))
            snprintf(s->gpus[s->ngpus++], sizeof s->gpus[0], "%s", t);
        free(list);
        return;
    }
    for (uint32_t i = 0; i < DF_SUP_MAX_JOBS; i++) {
        char dev[32];
        snprintf(dev, sizeof dev, "/dev/nvidia%u", i);
        if (access(dev, F_OK) != 0)
            break;
        snprintf(s->gpus[s->ngpus++], sizeof s->gpus[0], "%u", i);
    }
}

void df_sup_plan_workers(df_sup *s)
{
    find_gpus(s);
    int cuda = !strcmp(s->backend, "cuda") && s->ngpus;
    s->jobs = s->o->jobs ? s->o->jobs : cuda ? s->ngpus : 1;
    if (s->jobs > DF_SUP_MAX_JOBS)
        s->jobs = DF_SUP_MAX_JOBS;
    for (uint32_t w = 0; w < s->jobs; w++)
        s->w[w].gpu = cuda ? s->gpus[w % s->ngpus] : NULL;
}

int df_sup_probe(df_sup *s)
{
    int p[2];
    if (pipe(p) != 0)
        return -2;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -2;
    if (pid == 0) {
        close(p[0]);
        df_backend *b = NULL;
        df_outcome opened = df_backend_open_said("run", s->o->backend, &b);
        if (opened != DF_OUTCOME_CLEAN)
            _exit(opened == DF_OUTCOME_USAGE ? 2 : 3);
        const df_kernel *ks[DF_RUN_MAX_KERNELS];
        size_t nk = 0;
        df_runs_on on = df_runs_on_backend(b);
        int sel = df_run_select(s->o, &on, ks, &nk);
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
        snprintf(s->backend, sizeof s->backend, "%.15s", line);
        if (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = 0;
            snprintf(s->note, sizeof s->note, "%s", line);
        }
        s->nk = 0;
        while (fgets(line, sizeof line, f) && s->nk < DF_RUN_MAX_KERNELS) {
            line[strcspn(line, "\n")] = 0;
            s->kernels[s->nk++] = df_kernel_find(line);
        }
    }
    if (f)
        fclose(f);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        rc = WIFEXITED(st) && WEXITSTATUS(st) == 2 ? -1 : -2;
    else if (s->nk == 0 || !s->backend[0])
        rc = -2;
    else if (s->o->debug_invariants && strcmp(s->backend, "cuda") != 0) {
        fprintf(stderr, "dotfuzz run: --debug-invariants has no effect on backend %s (the GPU "
                        "kernels check their invariants)\n", s->backend);
        rc = -1;
    }
    return rc;
}
