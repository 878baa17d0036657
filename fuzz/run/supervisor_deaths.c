/* supervisor_deaths.c — a worker's end (supervisor_parts.h): the case it
 * ended on saved as a bug finding (rule crash or hang) and counted, the
 * rest of its range requeued, a batch it died in run again one case at a
 * time (the culprit search), and another worker started. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/run/campaign_dir.h"
#include "fuzz/run/options.h"
#include "fuzz/run/supervisor_parts.h"

int df_sup_keep_finding(df_sup *s, const char *name, const char *members, const char *line)
{
    if (!s->o->quiet && line && *line)
        fputs(line, stderr);
    int rc = s->hooks.log ? s->hooks.log(s->hooks.ctx, name, members) : 0;
    if (rc < 0) {
        s->env_fail = 1;
        return -1;
    }
    s->found |= rc > 0;
    return 0;
}

/* Saves the case worker id ended on as a bug finding (rule crash or hang),
 * keeps and counts it. */
static int record_end(df_sup *s, uint32_t id, uint64_t index, const df_worker_end *end)
{
    size_t ki = df_run_kernel_of(index, s->nk);
    const df_kernel *k = s->kernels[ki];
    df_gen_opts go;
    df_run_gen_opts(s->o, s->kernels, s->nk, &go);
    df_scratch buf = {0};
    df_case c;
    if (df_generate(s->o->seed, index, k, &go, &buf, &c) != 0) {
        df_scratch_free(&buf);
        return -1;
    }
    char why[200];
    df_end_text(end, s->o->watchdog_s, why, sizeof why);
    df_checked r;
    df_check_failed(NULL, k, &c, df_end_rule(end), why, &r);
    const df_judgement *j = &r.j;
    char path[4096];
    int is_new = 0, rc = df_save_finding(s->findings, &c, &r, path, sizeof path, &is_new);
    if (rc != 0) {
        fprintf(stderr, "dotfuzz run: cannot save the case worker %u ended on in %s: %s\n", id,
                s->findings, strerror(errno));
    } else {
        char *members =
            df_log_members(k, &c, j, df_sup_base_name(path), (int)id, end, s->o->watchdog_s);
        char line[4600];
        snprintf(line, sizeof line, "%-6s %s n=%llu seed=%llu index=%llu: %s -> %s\n",
                 end->how == DF_END_HANG ? "HANG" : "CRASH", k->name, (unsigned long long)c.n,
                 (unsigned long long)c.seed, (unsigned long long)index, j->why, path);
        rc = members ? df_sup_keep_finding(s, df_sup_base_name(path), members, line) : -1;
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

int df_sup_handle_end(df_sup *s, uint32_t id, int stopping)
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
        if (w->busy && df_sup_push_like(s, w->r.lo, w->r.hi, &w->r) != 0)
            return -1;
        w->busy = 0;
        return 0;
    }
    if (died_on_case && end.count > 1) {
        /* it died in a batch: which case did it is not known; the batch is
         * run again one case at a time, where the culprit dies alone */
        uint64_t first = end.index, last = first + end.count;
        df_range search = {first, last, 1, df_now()};
        if (df_sup_push_like(s, w->r.lo, first, NULL) ||
            df_sup_push_like(s, first, last, &search) ||
            df_sup_push_like(s, last, w->r.hi, NULL))
            return -1;
        w->busy = 0;
        s->restarts++;
        return stopping ? 0 : df_sup_restart(s, id);
    }
    if (w->busy) {
        uint64_t at = died_on_case ? end.index : w->r.lo;
        if (died_on_case && record_end(s, id, at, &end) != 0) {
            s->env_fail = 1;
            return -1;
        }
        /* the cases before it ran but their tallies died with the worker;
         * a range to run one case at a time stays one */
        if (df_sup_push_like(s, w->r.lo, at, &w->r) ||
            df_sup_push_like(s, at + (uint64_t)died_on_case, w->r.hi, &w->r))
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
    return stopping ? 0 : df_sup_restart(s, id);
}
