/* hunt_batched.c — hunt's second phase (hunt_batched.h): run's supervisor
 * and engine over one kernel, its hooks watching for the oracles' first
 * detections. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/files.h"
#include "fuzz/run/campaign_dir.h"
#include "fuzz/pool.h"
#include "fuzz/run/hunt_batched.h"
#include "fuzz/run/options.h"
#include "fuzz/run/supervisor.h"

void df_detection_note(df_detection *d, uint64_t cases, double seconds, const char *rule,
                       int batched)
{
    if (d->found)
        return;
    *d = (df_detection){.found = 1, .cases = cases, .seconds = seconds, .batched = batched};
    snprintf(d->rule, sizeof d->rule, "%s", rule);
}

typedef struct watch {
    df_hunt_batch *h;
    df_sup *s;
} watch;

/* The phase has found what it ran for. */
static int done(const df_hunt_batch *h)
{
    return df_hunt_caught(h->mutant, &h->ours, &h->seed_000);
}

/* A finding saved: a bug verdict is this oracle's detection, at the case's
 * place in the kernel's stream (index + 1). */
static int on_log(void *ctx, const char *name, const char *members)
{
    (void)name;
    watch *w = ctx;
    df_logged_finding f;
    if (df_log_parse_members(members, &f) == 0 && !strcmp(f.verdict, df_verdict_name(DF_V_BUG)) &&
        f.index)
        df_detection_note(&w->h->ours, strtoull(f.index, NULL, 10) + 1, df_now() - w->h->t0,
                          f.rule, 1);
    df_logged_finding_free(&f);
    return done(w->h);
}

/* Every tenth of a second: seed 000's first alarm, once a worker has
 * reported the range that holds it (its time is when hunt learns of it). */
static int on_snapshot(void *ctx)
{
    watch *w = ctx;
    uint64_t first = w->s->tot->tally[0].first_alarm;
    if (first)
        df_detection_note(&w->h->seed_000, first, df_now() - w->h->t0, "rel-err", 1);
    return done(w->h);
}

static void run_opts_of(const df_hunt_batch *h, const char *findings, df_run_opts *o)
{
    df_run_opts_default(o);
    o->kernel = h->k->name;
    o->backend = h->backend;
    o->corpus = findings;
    o->time_s = h->time_s;
    o->cases = h->cases ? h->first + h->cases : 0;
    o->seed = h->seed;
    o->seed_set = 1;
    o->max_n = h->max_n;
    o->long_n = h->long_n;
    o->huge = h->huge;
    o->huge_every = h->huge_every;
    o->huge_bytes = h->huge_bytes;
    o->tol = h->tol;
    o->save_precision = DF_SAVE_NONE;
    o->save_bugs = DF_SAVE_NEW;
    o->meta.schedule = h->schedule;
    o->stats_every_s = 0.1;
    o->quiet = 1;
}

int df_hunt_batched(df_hunt_batch *h)
{
    char findings[4096];
    if (df_temp_dir("dotfuzz-hunt", findings, sizeof findings) != 0) {
        fprintf(stderr, "dotfuzz hunt: cannot make a scratch directory: %s\n", strerror(errno));
        return -1;
    }
    df_run_opts o;
    run_opts_of(h, findings, &o);
    df_sup s;
    watch w = {h, &s};
    int rc = df_sup_init(&s, &o) != 0 ? -1 : 0;
    if (rc == 0)
        rc = df_sup_set_kernels(&s, h->backend, h->note, &h->k, 1);
    if (rc == 0) {
        o.watchdog_s = h->watchdog_s > 0 ? h->watchdog_s : df_run_default_watchdog(&o);
        s.next_index = h->first;
        s.hooks = (df_sup_hooks){.ctx = &w, .log = on_log, .snapshot = on_snapshot};
        df_sup_plan_workers(&s);
        rc = df_sup_run(&s);
        on_snapshot(&w);
        const df_tally *t = &s.tot->tally[0];
        h->ran = t->cases;
        h->bugs = t->verdicts[DF_V_BUG];
        h->alarms = t->seed_alarms;
    }
    df_sup_free(&s);
    if (df_remove_tree(findings) != 0)
        fprintf(stderr, "dotfuzz hunt: could not remove %s: %s\n", findings, strerror(errno));
    return rc;
}
