/* engine_internal.h — what the engine's files (fuzz/run/engine*.c) share
 * and no other file includes: the mark a judged case leaves for its
 * recording, small helpers of every stage, and the functions one of the
 * engine's files calls in another (each under the file that defines it). */
#ifndef DOTFUZZ_RUN_ENGINE_INTERNAL_H
#define DOTFUZZ_RUN_ENGINE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz/run/run.h"

/* What one judged case of length n adds to a tally, worked out apart from
 * the tally (engine_record.c adds it). */
typedef struct df_tally_mark {
    double err_ratio, rel_err; /* NAN: not counted in the worst columns */
    int verdict, rhist;        /* rhist: the ratio's bin, -1 for none */
    uint32_t nbin;
} df_tally_mark;

/* What recording a judged case of kernel ki adds to the totals: its tally,
 * error bucket, model match and seed-oracle alarm. Worked out where the
 * case was judged (a pool thread: finish_slot), so that the in-order
 * recording of a batch reads these few bytes a case, not its slot. */
typedef struct df_mark {
    df_tally_mark tm;
    uint32_t bucket;
    uint8_t model_equal, alarm, ki;
    uint8_t quick; /* the whole of its recording (df_record_batch) */
} df_mark;

/* Whether *e->stop is set or the deadline (0 = none) has come. */
static inline int df_stopping(const df_engine *e, double deadline)
{
    return (e->stop && *e->stop) || (deadline > 0 && df_now() >= deadline);
}

/* Which set of slots (a batch each) slots starts. */
static inline size_t df_set_of(const df_engine *e, const df_slot *slots)
{
    return (size_t)(slots - e->slots) / e->batch;
}

/* The longest case a run may draw: its fixed length, or its --max-n. */
static inline uint64_t df_longest_n(const df_engine *e)
{
    return e->go.fixed_n ? e->go.fixed_n : e->go.max_n;
}

/* ---- engine_layout.c ---- */

/* Sizes the run's sets of slots (pipelined or not, generated on the GPU or
 * not) and makes them, kept from range to range while they fit. Returns 0,
 * or -1 out of memory. */
int df_batch_alloc(df_engine *e);
/* Frees what the batches own (df_engine_free's part). */
void df_batches_free(df_engine *e);
/* Room for cap cases in a batch's case arrays (slot and copy, case
 * pointer, result). Returns 0, or -1 out of memory. */
int df_grow_cases(df_vref **ref, const df_case ***cases, df_result **res, size_t cap);
/* Pipelined: lays out the next batch and stages its first kernel's cases
 * in the backend, once the pool has prepared it. */
void df_stage_next(df_engine *e);
/* The batch e->cur of n slots on the GPU, a kernel at a time with its
 * early copies; meanwhile(ctx) runs once during the first kernel's run.
 * Returns 0, or -1 when the context died. */
int df_run_gpu(df_engine *e, size_t n, void (*meanwhile)(void *ctx), void *ctx);

/* ---- engine_record.c ---- */

/* The mark of a judged case of kernel ki. */
df_mark df_mark_of(const df_engine *e, size_t ki, const df_case *c, const df_checked *r);
/* Indices [lo, hi) one at a time on the caller's thread (df_engine_range's
 * arguments and results). */
int df_one_at_a_time(df_engine *e, uint64_t lo, uint64_t hi, double deadline, df_totals *t,
                     uint64_t *next);
/* Records the checked batch in slots, indices [lo, lo + n), in order;
 * dead: the backend died in its check. *next: the first index not
 * recorded. Returns a DF_RANGE_* outcome. */
int df_record_batch(df_engine *e, df_slot *slots, uint64_t lo, size_t n, int dead,
                    df_totals *t, uint64_t *next);

#endif
