/* engine_internal.h — what the engine's files (fuzz/run/engine*.c) share
 * and no other file includes: a batch's slots and layout, the batches'
 * state behind df_engine (df_batch_state), the jobs the pool's loops run
 * over a batch, the mark a judged case leaves for its recording, small
 * helpers of every stage, and the functions one of the engine's files
 * calls in another (each under the file that defines it). The files call
 * each other one way only: engine.c into the rest, engine_prepare.c into
 * engine_meta.c and engine_judge.c, engine_meta.c into engine_judge.c and
 * engine_layout.c, engine_judge.c into engine_record.c. */
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
    double over_h;             /* err_ratio / h, NAN where not counted */
    double log2_over_h;        /* log2(over_h): made here, on the judging thread */
    int verdict, rhist;        /* rhist: the ratio's bin, -1 for none */
    int phist;                 /* over_h's bin, -1 for none or a zero error */
    int hbin;                  /* df_hbin_of(h) where phist >= 0 */
    uint32_t nbin;
    uint64_t n;                /* the case's length */
} df_tally_mark;

/* What recording a judged case of kernel ki adds to the totals: its tally,
 * error bucket, model match and seed-oracle alarm. Worked out where the
 * case was judged (a pool thread: df_finish_slot), so that the in-order
 * recording of a batch reads these few bytes a case, not its slot. */
typedef struct df_mark {
    df_tally_mark tm;
    uint32_t bucket;
    uint8_t model_equal, alarm, ki;
    uint8_t quick; /* the whole of its recording (df_record_batch) */
} df_mark;

/* One case of a batch: its vectors, the case and what checking it gave. */
typedef struct df_slot {
    /* what the caller's passes over a batch read, in the slot's first
     * three cache lines (the checking's 1.7 KB after them) */
    df_case c;
    size_t ki;
    int gen_failed;
    int ran;                  /* the backend produced res */
    int modelled;             /* r.model made while the GPU ran the batch */
    int planned;              /* sampled and ran: its metamorphic checks are in *plan */
    df_meta_plan *plan;       /* sampled: one of the engine's plans (NULL: no memory) */
    int copies;               /* DF_COPIES_*: how far the prepare stage took the
                                 plan's copies (cuda path) */
    int ready;                /* prepared (atomic): a long case's copies may start */
    df_scratch buf;
    df_checked r;
    /* a case longer than DF_GEN_CHUNK, made in chunks by the prepare items
     * (engine_prepare.c's chunk_item; fuzz/gen/values.h) */
    struct df_vplan *vplan;   /* its plan (made with the slot's first long case) */
    df_pcg32 vrng;            /* its value stream after the plan */
    df_scratch parts;         /* cond's chunks' partial sums */
    uint64_t chunks;          /* its chunks; 0 when made whole */
    uint64_t chunks_left;     /* chunks not made yet (atomic) */
    uint64_t shaped;          /* the job's epoch once chunks is set (atomic) */
    uint64_t made;            /* the job's epoch once ready is set (atomic): a
                                 model item's signal, which a slot named later
                                 than the item looks cannot leave stale */
    /* a case past DF_REFS_CHUNK referenced by the pool's threads a chunk
     * each (df_refs_part, reference.h): */
    uint64_t filled;          /* the job's epoch once its vectors are whole and
                                 rchunks is set (atomic) */
    uint64_t rchunks;         /* its part items' chunks; 0: referenced whole */
    uint64_t rleft;           /* parts not made yet (atomic) */
    df_scratch rparts;        /* the parts */
} df_slot;

/* A case the GPU generates, before its slot is free: its shape (the case
 * without its vectors), or failed. */
typedef struct df_shape {
    df_case c;
    int failed;
} df_shape;

/* The cuda path makes a sampled case's metamorphic copies in the prepare
 * stage, before its run, as if the run ends well (df_meta_plan_settle drops
 * what a failed run would not have made), and references and models them
 * there: a short case's on its own thread, a long case's on a thread each
 * (made when the case is ready). */
enum { DF_COPIES_NONE, DF_COPIES_MADE, DF_COPIES_PREPPED };

/* One metamorphic variant of a batch: slot and variant index. */
typedef struct df_vref {
    uint32_t slot, var;
} df_vref;

/* A batch's cases laid out for the backend (engine_layout.c's lay_out): each
 * kernel's cases in slot order, then its early copies in slot and copy
 * order, kernel after kernel (base[ki]..base[ki + 1]), with each entry's
 * slot and copy (cref) and room for its result (bres). Pipelined, the
 * next batch's is made while this one is judged, and its first kernel's
 * cases staged in the backend then (ticket, for kernel ticket_ki; 0: not
 * staged). */
typedef struct df_layout {
    const df_case **cptr;
    df_vref *cref;            /* var UINT32_MAX: the slot's case, not a copy */
    df_result *bres;
    df_derive *derive;        /* how a copy's a follows from its case's (the
                                 backend's hint: df_meta_plan_derive) */
    size_t cap;               /* cptr's, cref's, bres's and derive's room: a
                                 batch, its early copies */
    size_t base[DF_RUN_MAX_KERNELS + 1];
    const struct df_slot *slots; /* the batch laid out, n slots; NULL once it runs */
    size_t n;
    uint64_t ticket;
    size_t ticket_ki;
} df_layout;

/* A set's upload buffer (cuda path, a batch made on the CPU): each case's
 * vectors are copied into it once made and referenced (its followers then
 * point there too), and it crosses to the device once, before the batch's
 * first part, where every kernel's part reads them
 * (df_backend_upload_reserve, df_backend_upload_start). A case that does
 * not fit keeps its own vectors, which each part stages as before. */
typedef struct df_upload {
    unsigned char *base;      /* the backend's buffer for the set (pinned on cuda) */
    size_t cap;
    size_t used;              /* bytes handed out (atomic; past cap: not placed) */
    size_t want;              /* bytes the batch's cases asked for (atomic) */
    int pending;              /* being filled, or filled and not uploaded yet */
} df_upload;

/* The first batch's upload buffer, before any batch has said what it
 * wants; and the most a set's may hold. */
#define DF_UPLOAD_FIRST ((size_t)16 << 20)
#define DF_UPLOAD_MAX DF_PIPELINE_BYTES

/* The batches' state behind df_engine's bs: made by df_batch_alloc, freed
 * by df_batches_free. */
typedef struct df_batch_state {
    df_slot *slots;
    size_t nslots;            /* slots allocated: nsets batches */
    size_t nsets;             /* sets of slots, a batch each: 1; pipelined 2, or
                                 DF_SETS_DEFER to DF_SETS_MAX when the GPU generates */
    int pipelined;            /* the next batch is made while this one is checked */
    df_slot *cur;             /* the batch being checked (the last one checked) */
    size_t ncur;
    df_model_ctx *mctx;       /* one per pool thread */
    size_t capbatch;          /* the batch size the slots' arrays were made for */
    df_layout lay;            /* the batch run now, or the next one, laid out ahead
                                 (df_stage_next; lay.slots is then that batch's) */
    /* pipelined: the batch after the one being checked (NULL: none), its
     * size and its prepare loop's handle (in the ring's queue: df_stage_next
     * may join it and leave -1), which the caller lays out and stages
     * while the pool judges (df_stage_next) */
    df_slot *next;
    size_t nnext;
    int *next_loop;
    df_meta_plan *plans[DF_SETS_MAX]; /* each set's sampled cases' plans, in order */
    size_t nplans[DF_SETS_MAX]; /* plans made so far (their buffers kept for reuse) */
    uint32_t *sampled;        /* each set's sampled slots, from sampled + set * batch */
    size_t nsampled[DF_SETS_MAX];
    df_mark *marks;           /* each slot's recording worked out by the pool (df_mark) */
    int gpu_gen;              /* batches generated on the GPU (df_gpu_generate) */
    int gen_split;            /* ... each one there or on the CPU, as df_gen_pick_gpu says */
    int gen_gpu_next;         /* split: the next batch begun is the GPU's */
    double gen_joined, gen_idle; /* split: the last pick's time, the pool's idle seconds */
    uint64_t epoch;           /* prepare jobs begun (df_batch_job) */
    struct df_devgen_case *gcs; /* their value streams, from gcs + set * batch */
    df_shape *shapes;         /* ... and their shapes, made before their slots are free */
    df_vref *vref;            /* the batch's metamorphic variants */
    const df_case **vptr;
    df_result *vres;
    size_t nvref, capvref;
    size_t vref_group;        /* host: copies a references item takes */
    df_upload upload[DF_SETS_MAX]; /* each set's (df_upload) */
    size_t upload_want;       /* bytes the last uploaded batch asked for */
    int upload_off;           /* a reserve or start failed: each part stages its cases */
    /* seconds spent so far in each stage (DF_STAGE_*), and CPU seconds
     * summed over the pool's threads in each piece of CPU work (DF_CPU_*;
     * row w of cpu_s is thread w's) */
    double stage_s[DF_STAGES];
    double finish_s[DF_FINISH_PARTS]; /* the FINISH stage's parts (DF_FINISH_*, cuda backend) */
    double (*cpu_s)[DF_CPU_KINDS];
    /* seconds each kernel's runs on the backend took (its part of each
     * batch and its copies', the caller's wall time), by kernel index, and
     * the waits for a batch's last parts in flight (df_run_gpu) */
    double kernel_s[DF_RUN_MAX_KERNELS];
    double parts_end_s;
} df_batch_state;

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
    uint64_t epoch;           /* bs->epoch at the job's making: the slots' shaped mark */
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
 * it does: sixteen fill the 8-double vector lanes (the chains, not the
 * issue slots, bound them), and 64 let the prefetch bring in all but the
 * first 16. */
#define DF_PREP_GROUP 64
#define DF_PREP_GROUP_MAX_N (UINT64_C(1) << 16)

/* The copies a long sampled case may have, each an item (negate, scale,
 * permute). */
enum { DF_SPLIT_COPIES = 3 };

/* A long sampled case's copies' prepare items: one a kind, then its
 * permute copy's chunks (df_copy_item). */
static inline size_t df_copy_items_each(const df_job *jb)
{
    return DF_SPLIT_COPIES + jb->copy_chunks;
}

/* Items of per-case work that is quick at n = 2000 (a shape, a judgement)
 * go DF_TIMED_GROUP cases at a time, timed once: two clock reads a case
 * and a stage are a visible share of the pool's CPU there. */
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
    return (size_t)(slots - e->bs->slots) / e->batch;
}

/* The longest case a run may draw: its fixed length, or its --max-n. */
static inline uint64_t df_longest_n(const df_engine *e)
{
    return e->go.fixed_n ? e->go.fixed_n : e->go.max_n;
}

/* The most a slot's or a plan's buffer keeps from one case to the next:
 * four times two f64 vectors at the run's longest drawn length. A long
 * case (past --max-n: run's every 16,384th) or a huge one (--huge) grows
 * each buffer it passes through, and the slot that takes one moves with
 * the ranges a worker is given; kept, every slot and plan would come to
 * hold one, gigabytes over a long run. */
static inline size_t df_keep_bytes(const df_engine *e)
{
    return (size_t)(4 * 2 * sizeof(double)) * (size_t)df_longest_n(e);
}

/* A slot lets vectors past df_keep_bytes go: before its next case, and
 * for every slot before a range (the worker's next range may start
 * anywhere). */
static inline void df_slot_trim(const df_engine *e, df_slot *sl)
{
    df_scratch_trim(&sl->buf, df_keep_bytes(e));
}

/* Thread w's CPU time of a kind (DF_CPU_*) since t0, on case index (traced
 * too): the time now. */
_Static_assert((int)DF_TR_GENERATE == (int)DF_CPU_GENERATE && (int)DF_TR_REFS == (int)DF_CPU_REFS &&
                   (int)DF_TR_MODEL == (int)DF_CPU_MODEL && (int)DF_TR_JUDGE == (int)DF_CPU_JUDGE,
               "a CPU kind is traced as its own kind");
static inline double df_spent(df_engine *e, unsigned w, int kind, double t0, uint64_t index)
{
    double t1 = df_now();
    e->bs->cpu_s[w][kind] += t1 - t0;
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
/* The batch bs->cur of n slots on the GPU, a kernel at a time with its
 * early copies; meanwhile(ctx) runs once during the first kernel's run.
 * Returns 0, or -1 when the context died. */
int df_run_gpu(df_engine *e, size_t n, void (*meanwhile)(void *ctx), void *ctx);

/* ---- engine_prepare.c ---- */

/* The loop over the batch of n slots from index lo (a new epoch). */
df_job df_batch_job(df_engine *e, df_slot *slots, uint64_t lo, size_t n);
/* Names the batch [lo, lo + n) in slots: its sampled cases and their
 * plans (the rest of each slot is named by the prepare items). */
void df_name_batch(df_engine *e, df_slot *slots, uint64_t lo, size_t n);
/* With bs->gen_split, whether the GPU makes the next batch begun: when
 * the pool's workers were idle (nothing to take, or only loops waiting for
 * the GPU's generation) less than DF_GEN_SPLIT_IDLE of their time over the
 * last cycle (cycle seconds between picks, idle seconds summed over the
 * workers): the CPUs are the bottleneck, and a batch the GPU makes frees
 * them. Otherwise the CPU: it has room, or the GPU is the one behind. */
#define DF_GEN_SPLIT_IDLE 0.05
int df_gen_pick_gpu(double cycle, double idle, unsigned workers);
/* Whether the GPU makes the next batch begun: it generates, and with
 * bs->gen_split the last pick said so. */
static inline int df_gen_on_gpu(const df_batch_state *bs)
{
    return bs->gpu_gen && (!bs->gen_split || bs->gen_gpu_next);
}
/* Has the GPU generate jb's cases (when bs->gpu_gen, and df_gen_pick_gpu's
 * word with bs->gen_split; shaped: their shapes made ahead by
 * df_shapes_begin's loop). */
void df_gpu_generate(df_engine *e, df_job *jb, int shaped);
/* Whether jb's prepare loop models all its cases (gpu_made: generated on
 * the GPU). */
int df_prepare_models(const df_job *jb, int gpu_made);
/* Prepares jb on the pool, the caller helping, and returns when it is:
 * generated and referenced, or with jb->whole (host backend) modelled and
 * judged too. */
void df_prepare_now(df_engine *e, df_job *jb);
/* Opens jb's prepare loop as work ahead for the pool, once its generation
 * has landed. Returns the loop's handle, or -1 when it ran now. */
int df_prepare_ahead(df_engine *e, df_job *jb);
/* Opens a loop making jb's shapes and value streams for the GPU's
 * generation. Returns its handle (-1: none opened). */
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
/* Prepare item i among a long sampled case's copies' items (after the
 * slots' items): one copy made, referenced and modelled, or a chunk of its
 * permute copy, once the case is ready. */
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
