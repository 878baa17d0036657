/* smoke.h — what the three files of `dotfuzz smoke` share: its options,
 * the state a smoke run fills (regression results, per-seed tallies,
 * flaky cases, the bug that stopped it) and the two steps that fill and
 * report it. cmd_smoke.c parses the options and drives; smoke_run.c
 * replays the regression corpus and fuzzes; smoke_report.c prints the
 * summary and writes the JUnit XML and JSON reports. */
#ifndef DOTFUZZ_CMD_SMOKE_H
#define DOTFUZZ_CMD_SMOKE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "fuzz/oracle.h"
#include "fuzz/outcome.h"
#include "fuzz/plugin.h"
#include "fuzz/run/run.h"
#include "fuzz/run/sandbox.h"
#include "fuzz/run/sanitize.h"
#include "kernels/kernel.h"

/* The fixed seed: the same cases on every CI run, so a change that breaks
 * one of them fails every time, not one run in N. */
#define DF_SMOKE_SEED 1u
#define DF_SMOKE_MAX_DIRS 16
#define DF_SMOKE_MAX_FLAKY 16 /* flaky cases listed in the JSON (all are counted) */

typedef struct df_smoke_opts {
    const char *backend, *findings, *junit, *json;
    const char *dirs[DF_SMOKE_MAX_DIRS];
    size_t ndirs;
    char *kernels; /* the --kernel values joined (select.h); NULL: "all" */
    double time_s;
    double watchdog_s; /* 0: by the case's size */
    uint64_t seed;
    df_plugin_paths libs;
    df_sanitizer san; /* --sanitize: each regression file again under the tool */
} df_smoke_opts;

/* What became of one replayed (file, kernel); also the index of its JUnit
 * element and JSON status name. */
enum { DF_SMOKE_PASS, DF_SMOKE_FAIL, DF_SMOKE_ERROR, DF_SMOKE_SKIP };

/* One replayed (file, kernel); kernel NULL when the file could not be read. */
typedef struct df_smoke_reg {
    char *file, *message, *detail; /* owned */
    const char *kernel;
    int status;
    int verdict, recorded; /* df_verdict, 0 = none */
    double time_s;
} df_smoke_reg;

typedef struct df_smoke_tally {
    uint64_t cases, flaky, known;
    uint64_t verdicts[DF_V_COUNT]; /* flaky bugs are counted as flaky, not bug */
    double time_s;
} df_smoke_tally;

typedef struct df_smoke_seed {
    const char *label; /* "fixed" or "fresh" */
    uint64_t seed, cases;
    df_smoke_tally tally[DF_RUN_MAX_KERNELS];
    double elapsed;
    time_t started; /* wall clock, when it ran */
    int ran; /* 0: an earlier seed stopped at a bug */
} df_smoke_seed;

typedef struct df_smoke_flaky {
    const char *kernel;
    uint64_t seed, index;
} df_smoke_flaky;

typedef struct df_smoke_bug {
    int found, rechecked;
    size_t seed_i, ki;
    uint64_t seed, index, n;
    char rule[24], why[240], path[4096], replay[4600];
} df_smoke_bug;

typedef struct df_smoke_state {
    const df_smoke_opts *o;
    df_sandbox *sb;
    const df_kernel *kernels[DF_RUN_MAX_KERNELS];
    size_t nk;
    df_smoke_reg *reg;
    size_t nreg, capreg;
    char (*known)[41]; /* SHA-1 names of the replayed corpus files */
    size_t nknown, capknown;
    df_smoke_seed seeds[2];
    df_smoke_flaky flaky[DF_SMOKE_MAX_FLAKY];
    uint64_t nflaky;
    df_smoke_bug bug;
    df_outcome out;
    time_t started; /* wall clock: the run's start, the regression replay's */
    int dead; /* no worker process can run cases: no more runs */
    char san_label[48]; /* "compute-sanitizer TOOL": a sanitizer entry's kernel column */
    df_scratch buf;
} df_smoke_state;

/* smoke_run.c */

/* The kernels to fuzz into st->kernels: `run --kernel LIST`'s selection
 * (df_run_select), LIST being the --kernel values, else "all" (every
 * built-in and plugin kernel the backend runs). Returns an outcome. */
df_outcome df_smoke_select_kernels(df_smoke_state *st);
/* Regression replay, then the two seeds; the outcome so far in st->out. */
void df_smoke_run(df_smoke_state *st);

/* smoke_report.c */

/* The run's summary on stdout: failed regression cases, then one line per
 * step. */
void df_smoke_print_summary(const df_smoke_state *st, double elapsed);
/* Writes the JUnit XML report (junit 1) or the JSON summary (junit 0) to
 * path, whole or not at all; out is the exit status the JSON records.
 * Returns 0, or -1 (said on stderr). */
int df_smoke_write_report(const char *path, const df_smoke_state *st, double elapsed,
                          df_outcome out, int junit);

#endif
