/* options.h — run's options: their ids, the getopt table, and the parser
 * of one option's value. The command line (fuzz/cmd/cmd_run.c) and a
 * campaign file (campaign.c) go through the same parser, so they refuse the
 * same values. */
#ifndef DOTFUZZ_RUN_OPTIONS_H
#define DOTFUZZ_RUN_OPTIONS_H

#include <getopt.h>

#include "fuzz/run/run.h"

enum { DF_OPT_SEED = 256, DF_OPT_MAXN, DF_OPT_TOL, DF_OPT_CORPUS, DF_OPT_BACKEND, DF_OPT_FAMILY,
       DF_OPT_DEBUG_INV, DF_OPT_SAVE_PREC, DF_OPT_META_EVERY, DF_OPT_RERUNS,
       DF_OPT_KERNEL_LIB, DF_OPT_SAVE_BUGS, DF_OPT_OUT, DF_OPT_RESUME, DF_OPT_JOBS, DF_OPT_WATCHDOG,
       DF_OPT_STATS_EVERY, DF_OPT_QUIET, DF_OPT_BATCH, DF_OPT_THREADS, DF_OPT_PIPELINE, DF_OPT_GEN,
       DF_OPT_SANITIZE, DF_OPT_SANITIZE_CASES, DF_OPT_LONG_N, DF_OPT_SCHEDULE, DF_OPT_HUGE,
       DF_OPT_HUGE_EVERY, DF_OPT_HUGE_BYTES };

/* run's options, for getopt_long; the last entry is zeros. */
extern const struct option df_run_longopts[];

/* The value arg of option id into o; NULL, or the option's spelling
 * ("--max-n") when the value is refused. */
const char *df_run_option_value(df_run_opts *o, int id, const char *arg);

/* Whether option id fixes what a campaign's cases are (a resume takes it
 * from the campaign file, not from the command line). */
int df_run_option_fixes_cases(int id);

/* The generator's options of a run of o over the cycle ks[0..nk): --max-n,
 * --long-n, --family (checked by df_run_select), the cases shared by
 * neighbours in the cycle that take the same ones (df_gen_share), and with
 * --huge the huge cases' window, budget and the kernels that take them. */
void df_run_gen_opts(const df_run_opts *o, const df_kernel *const *ks, size_t nk,
                     df_gen_opts *go);

/* The watchdog when --watchdog is not given: the time a batch of --max-n
 * cases takes, and with --huge that of a huge case (df_watchdog_for's
 * 50 ns an element, 8 times over for its runs and reruns). */
double df_run_default_watchdog(const df_run_opts *o);

/* The batch when --batch is not given, for nk kernels: 2^24 / --max-n
 * cases, and at least 256 a kernel, within [256, 4096]. Short cases
 * (4096 elements and less) take 4096: the per-batch work, the plan,
 * staging, one copy and one synchronization, is what a short case costs.
 * One kernel at the default 65,536 takes 256. Many kernels take 256 cases
 * each, up to 4096: each kernel's part of a batch is a launch or a few
 * whose time is that of their longest case (a tensor-core dot's serial
 * chain), shared by its part's cases. */
uint32_t df_run_default_batch(uint64_t max_n, size_t nk);

/* The most df_run_default_batch gives: the default watchdog's batch. */
#define DF_RUN_BATCH_MAX 4096u
/* --max-n's default: the longest short case */
#define DF_RUN_MAX_N_DEFAULT 65536u

/* run's options before its command line: every correct kernel, every
 * family, lengths up to 65,536 with the long cases, the tolerance, the
 * metamorphic checks, the saving rules (time_s -1 and batch 0: not given,
 * resolved once the command line is read). */
void df_run_opts_default(df_run_opts *o);

#endif
