/* engine_internal.h — what the engine's files (fuzz/run/engine*.c) share
 * and no other file includes: the mark a judged case leaves for its
 * recording, small helpers of every stage, and the functions one of the
 * engine's files calls in another (each under the file that defines it). */
#ifndef DOTFUZZ_RUN_ENGINE_INTERNAL_H
#define DOTFUZZ_RUN_ENGINE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz/run/run.h"
#include "fuzz/run/trace.h"

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

/* A loop over one batch's slots (the batch being checked, or the next one
 * being made beside it). The prepare loops take `group` slots an item, of
 * the n in the batch. */
typedef struct df_job {
    df_engine *e;
    df_slot *slots;
    uint64_t lo;              /* the first slot's index */
    size_t n, group;
    const uint32_t *sampled;  /* long cases: the sampled slots, whose copies */
    size_t nsampled;          /* are items of their own after the slots' */
    int gen_set;              /* generated on the GPU in this set (-1: on the CPU) */
    unsigned char *gen_out;   /* ... into this pinned memory (df_devgen_layout's offsets) */
    uint64_t chunks;          /* made on the CPU, longest cases past DF_GEN_CHUNK: each
                                 slot's chunk items (chunk_item), 0 otherwise */
    uint64_t copy_chunks;     /* longest cases past DF_GEN_CHUNK, made on the CPU or
                                 the GPU: a sampled case's permute chunk items */
    uint64_t epoch;           /* e->epoch at the job's making: the slots' shaped mark */
    int whole;                /* host backend: a case's model and judgement follow it */
    uint64_t rchunks;         /* a case an item, longest past DF_REFS_CHUNK: each slot's
                                 reference part items (refs_part_item), 0 otherwise */
} df_job;

/* Slots a prepare item takes: 64 short cases, or 16 or 8 where 64 would
 * leave a thread fewer than two items (a default run's batch of 256 on 16
 * threads: 8), or else one, so a batch of few long cases is shared out one
 * case a thread. df_refs_compute_many runs the references of 16 at a time
 * side by side (each case's Kahan sum is one long chain of dependent
 * additions; the sums left after the integer cases' exact pass go in
 * vector lanes, up to sixteen, with the f32 cases' exact dots extracted
 * beside them), and brings the next 16's data into the core's cache while
 * it does. Measured: eight rather than four, 5.3
 * against 6.2 us of references per f32 case at n = 2000 (four filled half
 * a vector); sixteen once the lanes were 8-double vectors (the chain, not
 * the issue slots, bounds them); 64 for the prefetch, whose first 16 are
 * read from memory (see results/h200/perf.md, sixteenth session). */
#define DF_PREP_GROUP 64
#define DF_PREP_GROUP_MAX_N (UINT64_C(1) << 16)

/* The copies a long sampled case may have, each an item (negate, scale,
 * permute). */
enum { DF_SPLIT_COPIES = 3 };

/* A long sampled case's copies' prepare items: one a kind, then its
 * permute copy's chunks (engine_meta.c's copy_item). */
static inline size_t df_copy_items_each(const df_job *jb)
{
    return DF_SPLIT_COPIES + jb->copy_chunks;
}

/* Items of per-case work that is quick at n = 2000 (a shape, a judgement)
 * go DF_TIMED_GROUP cases at a time, timed once: two clock reads a case
 * and a stage were 2-3% of the pool's CPU on the H100 host. */
#define DF_TIMED_GROUP 8
static inline size_t df_timed_groups(size_t n) { return (n + DF_TIMED_GROUP - 1) / DF_TIMED_GROUP; }
/* Group g's cases of a job of n: [*lo, return). */
static inline size_t df_timed_group(size_t g, size_t n, size_t *lo)
{
    *lo = g * DF_TIMED_GROUP;
    return *lo + DF_TIMED_GROUP < n ? *lo + DF_TIMED_GROUP : n;
}

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

/* Thread w's CPU time of a kind (DF_CPU_*) since t0, on case index (traced
 * too): the time now. */
_Static_assert((int)DF_TR_GENERATE == (int)DF_CPU_GENERATE && (int)DF_TR_REFS == (int)DF_CPU_REFS &&
                   (int)DF_TR_MODEL == (int)DF_CPU_MODEL && (int)DF_TR_JUDGE == (int)DF_CPU_JUDGE,
               "a CPU kind is traced as its own kind");
static inline double df_spent(df_engine *e, unsigned w, int kind, double t0, uint64_t index)
{
    double t1 = df_now();
    e->cpu_s[w][kind] += t1 - t0;
    df_trace((unsigned)kind, w, index, t0, t1);
    return t1;
}

/* Waits for loop h, or runs fn over [0, n) when it could not be opened. */
static inline void df_pool_join(df_pool *pool, int h, size_t n,
                                void (*fn)(void *ctx, size_t i, unsigned worker), void *ctx)
{
    if (h >= 0)
        df_pool_wait(pool, h);
    else
        df_pool_for(pool, n, fn, ctx);
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

/* ---- engine_prepare.c ---- */

/* The loop over the batch of n slots from index lo (a new epoch). */
df_job df_batch_job(df_engine *e, df_slot *slots, uint64_t lo, size_t n);
/* Names the batch [lo, lo + n) in slots: its sampled cases and their
 * plans (the rest of each slot is named by the prepare items). */
void df_name_batch(df_engine *e, df_slot *slots, uint64_t lo, size_t n);
/* Has the GPU generate jb's cases (when e->gpu_gen; shaped: their shapes
 * made ahead by df_shapes_begin's loop). */
void df_gpu_generate(df_engine *e, df_job *jb, int shaped);
/* Whether jb's prepare loop models all its cases. */
int df_prepare_models(const df_job *jb, int gpu_made);
void df_prepare_now(df_engine *e, df_job *jb);
int df_prepare_ahead(df_engine *e, df_job *jb);
int df_shapes_begin(df_engine *e, df_job *jb);

/* ---- engine_judge.c ---- */

/* Pool items over a df_job (ctx): slot s's case modelled (cuda backend:
 * for the model-match rule, before or beside its GPU run); slot s's case
 * modelled (the host backend's run) and judged; group g's DF_TIMED_GROUP
 * cases modelled and judged. */
void df_premodel_slot(void *ctx, size_t s, unsigned w);
void df_finish_slot(void *ctx, size_t s, unsigned w);
void df_finish_group(void *ctx, size_t g, unsigned w);

/* ---- engine_meta.c ---- */

/* cuda path: sl's metamorphic copies made before its run (whole: their
 * references and models too, the permute copy's references gathered in
 * pg for the caller to flush). */
void df_early_copies(df_engine *e, df_slot *sl, int whole, unsigned w, df_meta_permuted *pg);
/* A long sampled case's copy item i of those after the slots' (prepare
 * item function's part). */
void df_copy_item(df_job *jb, size_t i, unsigned w);
/* Host backend: the batch's sampled cases' copies made, referenced, run
 * and judged. Returns 0, or -1 out of memory. */
int df_batch_metamorphic(df_engine *e, size_t n);
/* cuda backend: the batch's judgement and its copies' checks, overlapped
 * with the copies' GPU run and the next batch's staging. Returns 0, or -1
 * when the context died or out of memory. */
int df_finish_overlapped(df_engine *e, size_t n, df_job *jb);

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
