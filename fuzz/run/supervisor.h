/* supervisor.h — `dotfuzz run`'s cases in worker processes (worker.h)
 * under a supervisor that never runs a kernel, with or without a campaign
 * directory (campaign.c keeps the directory's files through the hooks).
 *
 * Ranges of case indices go to the workers (fuzz/run/engine.c runs them),
 * about two seconds of cases each. A worker that ends on a case (a
 * signal, exit(), a lost CUDA context, a hang past the watchdog) is
 * replaced; the case it ended on is saved as a `bug` with rule "crash" or
 * "hang" and counted; the rest of its range runs again. A worker that
 * died inside a batch has that batch run again one case at a time, where
 * the culprit dies alone.
 *
 * Time. The run stops starting ranges at --time; a batch that crashed or
 * hung before then is still run case by case to find its culprit, until
 * --time plus one watchdog period, so a run ends within that and records
 * every crash and hang it saw begin. */
#ifndef DOTFUZZ_SUPERVISOR_H
#define DOTFUZZ_SUPERVISOR_H

#include <stdint.h>

#include "fuzz/outcome.h"
#include "fuzz/run/run.h"
#include "fuzz/worker.h"

#define DF_SUP_MAX_JOBS 256

/* Indices [lo, hi); solo: one case at a time (a batch died, and the case
 * that killed it must be found; found: when it died, df_now's clock, 0
 * when not known). */
typedef struct df_range {
    uint64_t lo, hi;
    uint64_t solo;
    double found;
} df_range;

/* What a campaign directory keeps of the run; NULL members do nothing. */
typedef struct df_sup_hooks {
    void *ctx;
    /* A finding saved as name (its file in the findings directory) with
     * the members of its log line (JSON, without the braces). 0; -1 when
     * it cannot be kept (the run stops, failed); 1 when the run has found
     * what it ran for (it stops, as at its deadline). */
    int (*log)(void *ctx, const char *name, const char *members);
    /* Every --stats-every seconds, and once at the end. 0, -1 or 1, as log. */
    int (*snapshot)(void *ctx);
} df_sup_hooks;

/* The supervisor's view of one worker. */
typedef struct df_sup_worker {
    int busy;                 /* has a range */
    df_range r;
    double assigned;          /* when r was handed out */
    unsigned fails;           /* deaths in a row outside any case */
    int abandoned;            /* killed at the run's end, not for a fault */
    int ready;                /* its backend is open */
    const char *gpu;          /* CUDA_VISIBLE_DEVICES for it, NULL = inherit */
} df_sup_worker;

/* A signature a finding was saved under (--save-bugs new), kept here so
 * that a worker started later does not save it again. */
typedef struct df_sup_sig {
    size_t ki;
    int verdict;
    char rule[24];
    double err_ratio;
} df_sup_sig;

typedef struct df_sup {
    df_run_opts *o;
    const df_kernel *kernels[DF_RUN_MAX_KERNELS];
    size_t nk;
    char backend[16];
    char note[512];           /* how the backend was chosen (df_sup_probe) */
    const char *findings;     /* where findings are saved (o->corpus) */
    const char *inflight_dir; /* workers' in-flight files (NULL: none) */
    df_sup_hooks hooks;
    /* progress */
    df_totals *tot;
    uint64_t next_index, restarts;
    df_range *queue;
    size_t nqueue, capqueue;
    double t0;                /* this session's start (df_now): the workers' start */
    uint64_t cases_at_start;
    df_sup_sig *sigs;
    size_t nsigs, capsigs;
    /* workers */
    df_worker procs[DF_SUP_MAX_JOBS];
    df_sup_worker w[DF_SUP_MAX_JOBS];
    struct df_sup_arg *args;  /* each worker's body's context */
    uint32_t jobs;
    char gpus[DF_SUP_MAX_JOBS][16];
    uint32_t ngpus;
    uint64_t batch;           /* cases per range, adapted to ~RANGE_S (supervisor.c) */
    int env_fail;
    int interrupted;          /* SIGINT or SIGTERM stopped it */
    int found;                /* a hook said the run found what it ran for */
} df_sup;

/* Zeroes s for the options o; 0, or -1 without memory. */
int df_sup_init(df_sup *s, df_run_opts *o);
void df_sup_free(df_sup *s);

/* Decides, in a child process (this one must not touch the GPU before
 * its workers fork), which backend o->backend means (its note: how it was
 * chosen) and which kernels of o->kernel it runs.
 * Returns 0, -1 (usage error, said) or -2 (nothing can run, said). */
int df_sup_probe(df_sup *s);

/* What df_sup_probe finds, from a caller that knows it: the backend (by
 * name, with its note) and the kernels it runs. Returns 0, or -1 (a usage
 * error, said). */
int df_sup_set_kernels(df_sup *s, const char *backend, const char *note,
                       const df_kernel *const *ks, size_t nk);

/* The workers when --jobs is not given, on the cuda backend with ngpus
 * GPUs (0: none found) and cpus usable CPUs: two a GPU where each GPU has
 * 16 CPUs or more, one a GPU with huge cases (a worker's hold tens of GiB
 * of host memory) or fewer CPUs, 1 without a GPU. */
uint32_t df_sup_default_jobs(uint32_t ngpus, unsigned cpus, int huge);

/* The share of the CPUs worker id of jobs keeps to, on ngpus GPUs (worker
 * w on GPU w mod ngpus): part *part of *parts equal runs (df_pin_part), one
 * a GPU in use. Returns 0 when there is one GPU in use or none (no pin). */
int df_sup_cpu_part(uint32_t id, uint32_t jobs, uint32_t ngpus, unsigned *part,
                    unsigned *parts);

/* The workers: o->jobs, else df_sup_default_jobs on the cuda backend,
 * else 1. */
void df_sup_plan_workers(df_sup *s);

/* Indices a resumed campaign has still to run, and the signatures its log
 * holds. 0, or -1 without memory. */
int df_sup_push(df_sup *s, uint64_t lo, uint64_t hi, uint64_t solo);
int df_sup_known(df_sup *s, size_t ki, int verdict, const char *rule, double err_ratio);

/* Runs the cases until o->cases, o->time_s, a signal or a fault that
 * stops everything. Status lines on stderr every second unless quiet.
 * Returns 0, or -1 when it could not go on (s->env_fail). */
int df_sup_run(df_sup *s);

uint64_t df_sup_cases(const df_sup *s);
uint64_t df_sup_pending_cases(const df_sup *s);

/* The status line "#N<tab>TAG cases/s: ... elapsed: Ns" on stderr, with
 * run_time_before added to elapsed (a resumed campaign's). */
void df_sup_status(const df_sup *s, const char *tag);

/* The run's last status line (DONE or INTERRUPTED) on stderr and its
 * summary on stdout (elapsed counts run_time_before: a resumed campaign's
 * earlier sessions); run_rc is df_sup_run's. Returns the run's outcome:
 * ENV when it could not go on, BUG when a case was a bug, else CLEAN. */
df_outcome df_run_finish(const df_sup *s, int run_rc, double run_time_before);

#endif
