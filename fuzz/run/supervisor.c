/* supervisor.c — a run's supervisor (supervisor.h): its loop (ranges handed
 * out, the workers' messages read, their watchdogs, the deadline, the
 * stop) and its setting up (backend and kernels probed, workers planned);
 * supervisor_workers.c holds the ranges and the workers, supervisor_deaths.c
 * what a worker's end does, supervisor_status.c the status lines.
 *
 * A worker reads ranges from its command pipe and answers on its message
 * pipe: a message per finding saved (the supervisor prints its line and
 * hands it to the hooks) and one per range done (its tallies). Its
 * heartbeat says which case it is on, so a death names its case exactly.
 * The supervisor itself never initialises CUDA: a context does not survive
 * fork, and a kernel that faults poisons the context of its process. */
#include <errno.h>
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
#include "fuzz/run/options.h"
#include "fuzz/run/select.h"
#include "fuzz/run/supervisor_parts.h"

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

/* The first range: the engine's ring of batches (later ones adapt). */
static uint64_t range_size(const df_run_opts *o)
{
    uint64_t ring = (uint64_t)o->batch * DF_SETS_MAX;
    return ring > 16 ? ring : 16;
}

int df_sup_init(df_sup *s, df_run_opts *o)
{
    memset(s, 0, sizeof *s);
    s->o = o;
    s->findings = o->corpus;
    s->t0 = df_now();
    /* the first range fills the engine's ring of batches; later ones adapt
     * to about RANGE_S */
    s->batch = range_size(o);
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

/* ---- talking to the workers ---- */

/* Gives worker id its next range, if it is idle and there is one. A range
 * stops at the deadline, but for a culprit search (solo), which past the
 * deadline is the only work left. */
static int assign(df_sup *s, uint32_t id, int late, double deadline)
{
    df_sup_worker *w = &s->w[id];
    df_range r;
    if (w->busy || s->procs[id].pid <= 0 || !df_sup_next_range(s, &r, late, deadline))
        return 0;
    df_cmd cmd = {r, r.solo ? 0 : deadline};
    if (df_write_all(s->procs[id].to, &cmd, sizeof cmd) != 0)
        return df_sup_push_like(s, r.lo, r.hi, &r); /* it died: seen on its pipe */
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

/* Reads one message from worker id. Returns 0, or -1 when its pipe closed. */
static int read_message(df_sup *s, uint32_t id)
{
    df_sup_worker *w = &s->w[id];
    df_sup_msg_head h;
    if (df_read_full(s->procs[id].from, &h, sizeof h) != 0 || h.len > ((size_t)64 << 20))
        return -1;
    char *payload = malloc(h.len + 1);
    if (!payload || df_read_full(s->procs[id].from, payload, h.len) != 0) {
        free(payload);
        return -1;
    }
    payload[h.len] = 0;
    int rc = 0;
    if (h.type == DF_SUP_MSG_READY) {
        w->ready = 1;
    } else if (h.type == DF_SUP_MSG_FINDING && h.len > sizeof(df_sup_msg_finding)) {
        df_sup_msg_finding mf;
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
            df_sup_keep_finding(s, name, members, line < end ? line : "");
        }
    } else if (h.type == DF_SUP_MSG_DONE && h.len == s->nk * sizeof(df_tally) + DF_BUCKETS / 8) {
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
            rc = df_sup_push_like(s, end, h.hi, NULL) ||
                         df_sup_push_like(s, h.next, end, &search)
                     ? -1 : 0;
        } else {
            rc = df_sup_push_like(s, h.next, h.hi, &w->r);
        }
        w->busy = 0;
        w->fails = 0;
        if (h.status == DF_RANGE_ENV)
            s->env_fail = 1;
    }
    free(payload);
    return rc;
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
        if (df_sup_searched_late(&s->w[w].r, deadline) && s->procs[w].hb->busy) {
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
        if (df_sup_start(s, w) != 0) {
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
        if (!stopping && (stop_requested || s->env_fail || s->found)) {
            stopping = 1;
            if (stop_requested || s->found) {
                s->interrupted = stop_requested;
                for (uint32_t w = 0; w < s->jobs; w++)
                    df_worker_stop(&s->procs[w]);
            }
        }
        if (!stopping && finishing && !df_sup_queue_has_late_search(s, deadline) && !any_busy(s))
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
                df_sup_handle_end(s, ids[i], stopping) != 0 && s->env_fail)
                stopping = 1;
        now = df_now();
        for (uint32_t w = 0; w < s->jobs; w++)
            df_worker_watchdog(&s->procs[w], now, o->watchdog_s);
        if (now >= next_status) {
            df_sup_status(s, "pulse");
            next_status = now + 1;
        }
        if (s->hooks.snapshot && now >= next_snap) {
            int snap = s->hooks.snapshot(s->hooks.ctx);
            s->env_fail |= snap < 0;
            s->found |= snap > 0;
            next_snap = now + o->stats_every_s;
        }
    }
    for (uint32_t w = 0; w < s->jobs; w++) {
        tell_stop(s, w);
        while (s->procs[w].pid > 0 && read_message(s, w) == 0)
            ; /* drain until it exits */
        if (s->procs[w].pid > 0)
            df_sup_handle_end(s, w, 1);
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

/* Usable CPUs a GPU needs for two workers on it by default. A worker's
 * caller thread (staging, launches, recording in index order) is serial,
 * so one worker leaves its GPU and its share of the CPUs idle part of the
 * time; a second worker fills that, where the CPUs can feed both. */
#define CPUS_FOR_TWO_WORKERS 16

uint32_t df_sup_default_jobs(uint32_t ngpus, unsigned cpus, int huge)
{
    if (ngpus == 0)
        return 1;
    return ngpus * (!huge && cpus / ngpus >= CPUS_FOR_TWO_WORKERS ? 2 : 1);
}

void df_sup_plan_workers(df_sup *s)
{
    find_gpus(s);
    int cuda = !strcmp(s->backend, "cuda") && s->ngpus;
    s->jobs = s->o->jobs ? s->o->jobs
              : cuda     ? df_sup_default_jobs(s->ngpus, df_usable_cpus(), s->o->huge)
                         : 1;
    if (s->jobs > DF_SUP_MAX_JOBS)
        s->jobs = DF_SUP_MAX_JOBS;
    for (uint32_t w = 0; w < s->jobs; w++)
        s->w[w].gpu = cuda ? s->gpus[w % s->ngpus] : NULL;
}

/* --huge once the kernels and the backend are known: a kernel that takes
 * huge cases within --huge-bytes, and the cuda backend; the kernels that
 * take them are named (unless --quiet). 0, or -1 (said: a usage error). */
static int huge_ready(const df_sup *s)
{
    const df_run_opts *o = s->o;
    if (!o->huge)
        return 0;
    if (df_huge_refused("run", s->kernels, s->nk, o->huge_bytes, s->backend) != 0)
        return -1;
    if (o->quiet)
        return 0;
    fprintf(stderr, "dotfuzz run: huge cases, one in %llu indices, n in [2^31 + 1, "
                    "2^31 + 2^26], up to %llu bytes, for",
            (unsigned long long)o->huge_every, (unsigned long long)o->huge_bytes);
    for (size_t k = 0; k < s->nk; k++)
        if (df_gen_huge_limit(s->kernels[k], o->huge_bytes))
            fprintf(stderr, " %s", s->kernels[k]->name);
    fputc('\n', stderr);
    return 0;
}

/* The options that depend on the backend and the kernels, checked once
 * both are known, and the batch when --batch is not given. 0, or -1 (said:
 * a usage error). */
static int settle(df_sup *s)
{
    if (s->o->debug_invariants && strcmp(s->backend, "cuda") != 0) {
        fprintf(stderr, "dotfuzz run: --debug-invariants has no effect on backend %s (the GPU "
                        "kernels check their invariants)\n", s->backend);
        return -1;
    }
    if (huge_ready(s) != 0)
        return -1;
    if (s->o->batch == 0) { /* --batch not given: the kernels known now */
        s->o->batch = df_run_default_batch(s->o->max_n, s->nk);
        s->batch = range_size(s->o);
    }
    return 0;
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
    else
        rc = settle(s);
    return rc;
}

int df_sup_set_kernels(df_sup *s, const char *backend, const char *note,
                       const df_kernel *const *ks, size_t nk)
{
    snprintf(s->backend, sizeof s->backend, "%.15s", backend);
    snprintf(s->note, sizeof s->note, "%s", note);
    s->nk = nk < DF_RUN_MAX_KERNELS ? nk : DF_RUN_MAX_KERNELS;
    memcpy(s->kernels, ks, s->nk * sizeof *ks);
    return settle(s);
}
