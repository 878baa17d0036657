/* supervisor_workers.c — the ranges of case indices a run's workers are
 * handed, and the workers (supervisor_parts.h): the queue of pending
 * ranges (culprit searches among them), fresh ranges cut from next_index,
 * and a worker: started, and its body in its own process (the engine over
 * each range it is sent, a message per finding saved and one per range
 * done). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz/files.h"
#include "fuzz/util.h"
#include "fuzz/run/campaign_dir.h"
#include "fuzz/run/supervisor_parts.h"

/* ---- ranges ---- */

int df_sup_push_like(df_sup *s, uint64_t lo, uint64_t hi, const df_range *like)
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
    return df_sup_push_like(s, lo, hi, &like);
}

int df_sup_searched_late(const df_range *r, double deadline)
{
    return r->solo && r->found > 0 && r->found <= deadline;
}

int df_sup_queue_has_late_search(const df_sup *s, double deadline)
{
    for (size_t i = 0; i < s->nqueue; i++)
        if (df_sup_searched_late(&s->queue[i], deadline))
            return 1;
    return 0;
}

int df_sup_next_range(df_sup *s, df_range *r, int late, double deadline)
{
    size_t at = s->nqueue;
    while (at > 0 && late && !df_sup_searched_late(&s->queue[at - 1], deadline))
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

const char *df_sup_base_name(const char *path)
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
    const char *name = df_sup_base_name(fd->path);
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
    df_sup_msg_finding mf = {.ki = fd->ki, .verdict = (int32_t)j->verdict,
                             .is_new = fd->is_new, .err_ratio = j->err_ratio};
    snprintf(mf.rule, sizeof mf.rule, "%s", j->rule);
    size_t nl = strlen(name) + 1, ml = strlen(members) + 1;
    df_sup_msg_head h = {.type = DF_SUP_MSG_FINDING, .len = sizeof mf + nl + ml + ll};
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

int df_sup_cpu_part(uint32_t id, uint32_t jobs, uint32_t ngpus, unsigned *part,
                    unsigned *parts)
{
    *parts = jobs < ngpus ? jobs : ngpus; /* fewer workers than GPUs: one GPU each */
    *part = *parts ? id % *parts : 0;
    return *parts > 1;
}

/* A worker process: opens the backend, then runs the ranges it is sent
 * until told to stop (hi == 0). */
static int worker_body(void *ctx, int cmd_fd, int msg_fd, df_heartbeat *hb)
{
    df_sup_arg *a = ctx;
    df_sup *s = a->s;
    int id = a->id;
    /* the usable CPUs shared among the workers, counted before a pin */
    unsigned share = s->o->threads ? s->o->threads : df_usable_cpus() / s->jobs;
    if (s->w[id].gpu) {
        setenv("CUDA_VISIBLE_DEVICES", s->w[id].gpu, 1);
        /* on several GPUs each GPU's workers, and the threads they and the
         * CUDA driver start, stay on that GPU's share of the CPUs, as a
         * process a GPU under taskset would: more cases a second than with
         * the threads free to go anywhere (docs/performance.md);
         * a pin the kernel refuses leaves the worker where it is */
        unsigned part, parts;
        if (df_sup_cpu_part((uint32_t)id, s->jobs, s->ngpus, &part, &parts))
            (void)df_pin_part(part, parts);
    }
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
    df_sup_msg_head ready = {.type = DF_SUP_MSG_READY};
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
        df_sup_msg_head h = {.type = DF_SUP_MSG_DONE, .status = (uint32_t)rc, .lo = r.lo,
                             .hi = r.hi, .next = next,
                             .len = s->nk * sizeof(df_tally) + sizeof t->bucket_seen};
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

/* ---- starting one ---- */

int df_sup_start(df_sup *s, uint32_t id)
{
    s->args[id] = (df_sup_arg){s, (int)id};
    s->w[id].busy = 0;
    s->w[id].ready = 0;
    s->w[id].abandoned = 0;
    if (!s->procs[id].hb && df_worker_init(&s->procs[id]) != 0)
        return -1;
    return df_worker_start(s->procs, s->jobs, id, worker_body, &s->args[id]);
}

int df_sup_restart(df_sup *s, uint32_t id)
{
    if (df_sup_start(s, id) == 0)
        return 0;
    perror("dotfuzz run: cannot start a worker");
    s->env_fail = 1;
    return -1;
}
