/* afl_stats.h — the keys of fuzzer_stats that AFL++'s tools read
 * (afl-whatsup sources the file as shell assignments; afl-plot reads the
 * banner), with dotfuzz's notions mapped onto AFL++'s: a case run is an
 * exec; a crash AFL++ saves is a bug finding dotfuzz logs (a worker's crash
 * and hang among them), a hang AFL++ saves one whose rule is hang; a find
 * is any finding logged. docs/output-formats.md ("fuzzer_stats") has the
 * table. plot_data's AFL++ columns are campaign_dir.h's df_plot_row. */
#ifndef DOTFUZZ_AFL_STATS_H
#define DOTFUZZ_AFL_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "fuzz/run/campaign_dir.h"

/* The findings logged, as AFL++ counts its finds. */
typedef struct df_afl_finds {
    uint64_t saved_crashes, saved_hangs;
    double last_find, last_crash, last_hang; /* Unix times; 0: none yet */
} df_afl_finds;

/* Counts finding f, logged at Unix time t (f->time when read back). */
void df_afl_finds_add(df_afl_finds *a, const df_logged_finding *f, double t);

/* What the AFL++ keys say of one campaign (or of a merge of several). */
typedef struct df_afl_stats {
    double start_time, last_update; /* Unix times: the first session's start, now */
    double run_time;             /* seconds run, over all sessions */
    long fuzzer_pid;             /* the process that writes the file */
    uint64_t execs_done;         /* cases done */
    uint64_t corpus_count;       /* kernels fuzzed (at least 1: afl-whatsup divides) */
    uint64_t cur_item;           /* the kernel the next case goes to */
    df_afl_finds finds;
    const char *dir;             /* the directory: its name is afl_banner */
} df_afl_stats;

/* AFL++'s keys, padded to DF_STATS_KEY_WIDTH: start_time, last_update,
 * run_time and last_* in whole seconds, fuzzer_pid, execs_done, execs_per_sec
 * (over the whole run time), corpus_count, cur_item, pending_favs and
 * pending_total (0: dotfuzz keeps no queue of inputs to mutate),
 * saved_crashes, saved_hangs, last_find, last_crash, last_hang, and
 * afl_banner: the last component of dir, its characters outside
 * [A-Za-z0-9._+-] written as '_' (afl-whatsup reads the file as shell
 * code). */
void df_afl_stats_put(FILE *f, const df_afl_stats *s);

#endif
