/* hunt_batched.h — hunt's second phase: one kernel fuzzed as `run` fuzzes
 * it, in batches on every CPU and worker processes under a supervisor,
 * until this oracle and seed 000's have each flagged it or the budget
 * ends. It meets what one case at a time rarely does: a bug that shows
 * once in thousands of cases, or only among a batch's launches in flight
 * together. Findings go to a scratch directory, removed at the end. */
#ifndef DOTFUZZ_HUNT_BATCHED_H
#define DOTFUZZ_HUNT_BATCHED_H

#include <stdint.h>

#include "kernels/kernel.h"

/* An oracle's first detection of a kernel's bug. */
typedef struct df_detection {
    int found;
    uint64_t cases;   /* the kernel's cases up to and including the first alarm */
    double seconds;   /* since the kernel's hunt began */
    char rule[24];
    int batched;      /* in the second phase (this file's) */
} df_detection;

/* Notes the first detection only: later ones leave d as it is. */
void df_detection_note(df_detection *d, uint64_t cases, double seconds, const char *rule,
                       int batched);

/* Whether a kernel's hunt is over: it is a mutant, and both oracles have
 * flagged it (a correct kernel runs its whole budget). */
static inline int df_hunt_caught(int mutant, const df_detection *ours,
                                 const df_detection *seed_000)
{
    return mutant && ours->found && seed_000->found;
}

typedef struct df_hunt_batch {
    /* what to run */
    const char *backend;     /* "cuda" or "host": the one the first phase ran on */
    const char *note;        /* how it was chosen */
    const df_kernel *k;
    int mutant;              /* stop once both oracles have flagged it */
    uint64_t seed, first;    /* case indices from first on (the first phase ran those before) */
    uint64_t cases;          /* at most this many, 0: no limit */
    double time_s;           /* for about this long (the workers' start not counted) */
    double t0;               /* when the kernel's hunt began (df_now) */
    uint64_t max_n, long_n;  /* run's --max-n and --long-n */
    int huge;                /* run's --huge, with huge_every and huge_bytes */
    uint64_t huge_every, huge_bytes;
    double tol, watchdog_s;  /* watchdog_s 0: run's default for the batch */
    uint32_t schedule;       /* run's --schedule */
    /* what it found */
    uint64_t ran, bugs, alarms; /* cases, bug verdicts, seed 000's alarms */
    df_detection ours, seed_000; /* this oracle's and seed 000's first detections */
} df_hunt_batch;

/* Runs h's phase and fills its results. Returns 0, or -1 when it could
 * not run (said on stderr). */
int df_hunt_batched(df_hunt_batch *h);

#endif
