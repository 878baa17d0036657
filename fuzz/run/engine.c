/* engine.c — the case loop of `dotfuzz run` over a range of indices, in
 * batches over a thread pool (one case at a time, and the recording:
 * engine_record.c). One process runs it directly (no --out) or as a
 * campaign worker (fuzz/run/campaign.c). */
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz/backend/cuda_backend.h"
#include "fuzz/run/engine_internal.h"
#include "fuzz/run/trace.h"
#include "fuzz/values.h"

/* ---- the engine ---- */

void df_engine_init(df_engine *e, const df_run_opts *o, df_backend *b,
                    const df_kernel *const *kernels, size_t nk)
{
    *e = (df_engine){.o = o, .b = b, .kernels = kernels, .nk = nk, .pipeline = o->pipeline};
    e->go.max_n = o->max_n;
    if (strcmp(o->family, "all") != 0)
        e->go.family = df_family_find(o->family)->id; /* checked by df_run_select */
    e->oo.tol = o->tol;
    e->oo.terse = 1; /* an ok case's why is never shown or saved; a precision
                        case's is made again where it is (record) */
    (void)df_trace_init(); /* DOTFUZZ_TRACE: off when it fails (it says so) */
}

/* Thread w's CPU time of a kind (DF_CPU_*) since t0, on case index (traced
 * too): the time now. */
_Static_assert((int)DF_TR_GENERATE == (int)DF_CPU_GENERATE && (int)DF_TR_REFS == (int)DF_CPU_REFS &&
                   (int)DF_TR_MODEL == (int)DF_CPU_MODEL && (int)DF_TR_JUDGE == (int)DF_CPU_JUDGE,
               "a CPU kind is traced as its own kind");
static double spent(df_engine *e, unsigned w, int kind, double t0, uint64_t index)
{
    double t1 = df_now();
    e->cpu_s[w][kind] += t1 - t0;
    df_trace((unsigned)kind, w, index, t0, t1);
    return t1;
}

void df_engine_free(df_engine *e)
{
    df_scratch_free(&e->buf);
    df_scratch_free(&e->meta_buf);
    free(e->sigs);
    e->sigs = NULL;
    df_batches_free(e);
    (void)df_trace_write(); /* a failure is reported on stderr; the run's outcome stands */
}

/* ---- batches ---- */

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

static df_job batch_job(df_engine *e, df_slot *slots, uint64_t lo, size_t n)
{
    uint64_t longest = df_longest_n(e);
    static const size_t groups[] = {DF_PREP_GROUP, 16, 8};
    size_t two = (size_t)2 * df_pool_size(e->pool); /* items a thread at least */
    size_t g = 1;
    for (size_t i = 0; g == 1 && longest <= DF_PREP_GROUP_MAX_N &&
                       i < sizeof groups / sizeof groups[0];
         i++)
        if (n >= two * groups[i])
            g = groups[i];
    size_t h = df_set_of(e, slots);
    int split = g == 1 && !df_backend_is_host(e->b);
    uint64_t chunks = g == 1 ? df_gen_chunks(longest) : 0;
    uint64_t rchunks = g == 1 ? df_refs_chunks(longest) : 0;
    return (df_job){e, slots, lo, n, g, e->sampled + h * e->batch,
                    split && n ? e->nsampled[h] : 0, -1, NULL, chunks, chunks, ++e->epoch, 0,
                    rchunks};
}

/* The copies a long sampled case may have, each an item (negate, scale,
 * permute). */
enum { DF_SPLIT_COPIES = 3 };

/* Prepare items in a batch of jb->n slots: the slots' groups (or, where a
 * case may be long, each slot's first item, then each slot's chunk items
 * in slot order: chunk_item), then (cuda, a case an item) each case's
 * model (model_item) and the long sampled cases' copies, with the long
 * cases' reference part items among them (after_slots_item says where). */
static size_t slot_items(const df_job *jb)
{
    if (jb->chunks)
        return jb->n * (1 + jb->chunks);
    return (jb->n + jb->group - 1) / jb->group;
}
static size_t copy_items_each(const df_job *jb) { return DF_SPLIT_COPIES + jb->copy_chunks; }
static size_t copy_items(const df_job *jb) { return copy_items_each(jb) * jb->nsampled; }
/* A case past DF_REFS_CHUNK is referenced by items of a chunk each, after
 * the slots' items, the sampled cases' first (their copies wait for their
 * references: at n = 2^26 a sampled case's references on one thread, 0.45
 * s, then its copies' on three, left the other threads idle for 0.6 s of a
 * 1.5 s batch, traced on an H200). */
static size_t refs_items(const df_job *jb) { return jb->n * jb->rchunks; }
/* cuda (not the host backend, whose model is its run), a case an item
 * (group 1: few or long cases): each case's model is an item after the
 * slots', made once the case is whole, before the copies' items (at
 * n = 2^26, 16 models of about 0.25 s each had waited for the prepare
 * loop's end, then run beside the GPU run, which takes a fraction of
 * that; put after the copies' items, they waited behind a thousand
 * permute chunk items, each spinning on the sampled case). */
static size_t model_items(const df_job *jb)
{
    return jb->group == 1 && !df_backend_is_host(jb->e->b) ? jb->n : 0;
}
static size_t prep_items(const df_job *jb)
{
    return slot_items(jb) + refs_items(jb) + copy_items(jb) + model_items(jb);
}

/* What item g of those after the slots' is. With part items (long cases),
 * a case's in turn, in the parts' rank order (slot_of_rank: the sampled
 * first): its parts, then its model, then (sampled) its copies. So the
 * models run among the other cases' references, a few at a time, where
 * they had run all at once after every reference (at n = 2^26, sixteen
 * models of 0.22-0.28 s each beside each other, one of 0.04-0.06 s alone:
 * results/h200/trace-2e26-054942f.txt), and the copies start as soon as
 * their case is referenced. Else the parts, the models, the copies. */
enum { ITEM_REFS, ITEM_MODEL, ITEM_COPY };
static size_t slot_of_rank(const df_job *jb, size_t rank);
static int after_slots_item(const df_job *jb, size_t g, size_t *index)
{
    const size_t R = jb->rchunks, m = model_items(jb) ? 1 : 0, each = copy_items_each(jb);
    size_t k, j;
    if (!R) {
        if (g < model_items(jb))
            return *index = g, ITEM_MODEL;
        return *index = g - model_items(jb), ITEM_COPY;
    }
    const size_t big = R + m + each, first = jb->nsampled * big; /* sampled ranks' items */
    if (g < first) {
        k = g / big, j = g % big;
    } else {
        k = jb->nsampled + (g - first) / (R + m);
        j = (g - first) % (R + m);
    }
    if (j < R)
        return *index = k * R + j, ITEM_REFS;
    if (j < R + m)
        return *index = slot_of_rank(jb, k), ITEM_MODEL;
    return *index = k * each + (j - R - m), ITEM_COPY;
}

/* The prepare loop of jb's items, on the pool. Where an item is a case or
 * a chunk of one (group 1: few or long cases), the items go one at a
 * time: a case of 2^26 elements is about 0.4 s of references, and the
 * pool's chunks of three gave one thread three of a batch's sixteen
 * while the rest waited in the copies' items on the sampled case (traced
 * on an H200: 7 of 16 threads referenced the batch, in 1.3 s). */
static void prepare_loop(df_engine *e, df_job *jb, void (*fn)(void *ctx, size_t i, unsigned w))
{
    if (jb->group == 1)
        df_pool_for_each(e->pool, prep_items(jb), fn, jb);
    else
        df_pool_for(e->pool, prep_items(jb), fn, jb);
}

static void copy_prep(df_engine *e, const df_kernel *k, df_meta_plan *p, size_t v, unsigned w);
static void copy_model(df_engine *e, const df_kernel *k, df_meta_plan *p, size_t v, unsigned w);

/* Copies' references, gathered up to DF_COPY_GROUP at a time and made side
 * by side (df_refs_compute_many: the same values as one at a time, and a
 * copy's Kahan sum no longer runs alone); reruns need none, and a negated
 * copy's follow from the case's own (df_meta_plan_refs_derived). Eight, as the
 * prepare items had before they took 64: a batch of 256 has about 48
 * copies, which the host backend shares out DF_COPY_GROUP an item. */
#define DF_COPY_GROUP 8
typedef struct copy_refs {
    df_refs_job job[DF_COPY_GROUP];
    size_t m;
} copy_refs;

static void copy_refs_flush(copy_refs *cr)
{
    if (cr->m)
        df_refs_compute_many(cr->job, cr->m);
    cr->m = 0;
}

static void copy_refs_add(copy_refs *cr, df_meta_plan *p, size_t v)
{
    if (p->kind[v] == DF_META_RERUN || df_meta_plan_refs_derived(p, v))
        return;
    const df_case *c = &p->var[v];
    cr->job[cr->m++] = (df_refs_job){c->type, c->a, c->b, c->n, &p->out[v].refs};
    if (cr->m == DF_COPY_GROUP)
        copy_refs_flush(cr);
}

/* cuda path: a sampled case's metamorphic copies made before its run, with
 * a stand-in for the run that ended well (the copies need the run's status
 * and the case's G, not its result; df_meta_plan_settle drops, after the
 * run, the copies a failed run would not have had), so they run on the GPU
 * in the batch's own launch (df_run_gpu); whole: referenced and modelled too
 * (short cases, one thread each; long ones' copies take a thread each
 * beside the GPU run), the permute copy's references in pg, which the
 * caller flushes (the prepare item's sampled cases' permute copies side by
 * side: alone, kahan_span_f32 was 4.5% of the pool's CPU at n = 2000,
 * results/h100/profile-2000-3123d59.txt). */
static void early_copies(df_engine *e, df_slot *sl, int whole, unsigned w,
                         df_meta_permuted *pg)
{
    const df_kernel *k = e->kernels[sl->ki];
    df_checked ok;
    memset(&ok, 0, sizeof ok);
    ok.refs = sl->r.refs;
    ok.res.status = DF_RUN_OK;
    double t0 = df_now();
    if (df_meta_plan_layout(k, &sl->c, &ok, &e->o->meta, sl->plan) != 0)
        sl->plan->nvar = 0; /* out of memory: checked without variants */
    for (size_t v = 0; whole && v < sl->plan->nvar; v++)
        df_meta_plan_fill(&sl->c, sl->plan, v);
    double t1 = spent(e, w, DF_CPU_GENERATE, t0, sl->c.index);
    copy_refs cr = {.m = 0};
    for (size_t v = 0; whole && v < sl->plan->nvar; v++) {
        if (sl->plan->kind[v] == DF_META_PERMUTE)
            df_meta_permuted_add(pg, sl->plan, v);
        else
            copy_refs_add(&cr, sl->plan, v);
    }
    copy_refs_flush(&cr);
    (void)spent(e, w, DF_CPU_REFS, t1, sl->c.index);
    for (size_t v = 0; whole && v < sl->plan->nvar; v++)
        copy_model(e, k, sl->plan, v, w);
    /* whole or not, done when the prepare loop is (the copies' items) */
    sl->copies = DF_COPIES_PREPPED;
}

/* Chunk j of a long case's permute copy v (df_meta_permute_chunk); the
 * thread that makes the last one references and models the copy. */
static void permute_chunk(df_engine *e, df_slot *sl, size_t v, uint64_t j, unsigned w)
{
    double t0 = df_now();
    df_meta_permute_chunk(&sl->c, sl->plan, v, j);
    (void)spent(e, w, DF_CPU_GENERATE, t0, sl->c.index);
    if (__atomic_sub_fetch(&sl->plan->perm_left, 1, __ATOMIC_ACQ_REL) == 0)
        copy_prep(e, e->kernels[sl->ki], sl->plan, v, w);
}

/* A long sampled case's copy of one kind (negate, scale, permute: item i
 * of those after the slots, copy_items_each a case), made, referenced and
 * modelled once the case is ready; nothing when the case has no such
 * copy. A permute copy of a case past DF_GEN_CHUNK is made by the items
 * after those three, a chunk each (permute_chunk). The slots' items come
 * first from the pool's counter, so the case is being prepared by then. */
static void copy_item(df_job *jb, size_t i, unsigned w)
{
    static const int kinds[DF_SPLIT_COPIES] = {DF_META_NEGATE, DF_META_SCALE, DF_META_PERMUTE};
    df_engine *e = jb->e;
    size_t each = copy_items_each(jb), r = i % each;
    df_slot *sl = &jb->slots[jb->sampled[i / each]];
    double t0 = df_now();
    while (!__atomic_load_n(&sl->ready, __ATOMIC_ACQUIRE))
        sched_yield();
    df_trace(DF_TR_WAIT, w, sl->c.index, t0, df_now());
    if (sl->gen_failed)
        return;
    df_meta_plan *p = sl->plan;
    uint64_t chunks = df_meta_permute_chunks(&sl->c);
    int kind = r < DF_SPLIT_COPIES ? kinds[r] : DF_META_PERMUTE;
    for (size_t v = 0; v < p->nvar; v++) {
        if (p->kind[v] != kind)
            continue;
        if (r >= DF_SPLIT_COPIES) {
            if (r - DF_SPLIT_COPIES < chunks)
                permute_chunk(e, sl, v, r - DF_SPLIT_COPIES, w);
        } else if (kind != DF_META_PERMUTE || !chunks) {
            double t0 = df_now();
            df_meta_plan_fill(&sl->c, p, v);
            (void)spent(e, w, DF_CPU_GENERATE, t0, sl->c.index);
            copy_prep(e, e->kernels[sl->ki], p, v, w);
        }
    }
}

/* Slot s's index and kernel, and no plan unless it is sampled (name_batch
 * gave the sampled slots theirs): done by the pool's thread that makes the
 * case, so that the caller does not touch every slot of a batch it starts
 * (each one a cache miss). */
static void name_slot(const df_job *jb, size_t s)
{
    df_engine *e = jb->e;
    df_slot *sl = &jb->slots[s];
    uint64_t i = jb->lo + s;
    sl->c.index = i;
    sl->ki = df_run_kernel_of(i, e->nk);
    if (!df_meta_sampled_at(&e->o->meta, e->o->seed, i)) {
        sl->plan = NULL;
        __atomic_store_n(&sl->ready, 0, __ATOMIC_RELAXED);
    }
}

/* A slot before its case is made. */
static void clear_slot(df_slot *sl)
{
    sl->ran = 0;
    sl->planned = 0;
    sl->modelled = 0;
    sl->copies = DF_COPIES_NONE;
    memset(&sl->r, 0, sizeof sl->r);
}

/* Items of per-case work that is quick at n = 2000 (a shape, a judgement)
 * go DF_TIMED_GROUP cases at a time, timed once: two clock reads a case
 * and a stage were 2-3% of the pool's CPU on the H100 host. */
#define DF_TIMED_GROUP 8
static size_t timed_groups(size_t n) { return (n + DF_TIMED_GROUP - 1) / DF_TIMED_GROUP; }
/* Group g's cases of a job of n: [*lo, return). */
static size_t timed_group(size_t g, size_t n, size_t *lo)
{
    *lo = g * DF_TIMED_GROUP;
    return *lo + DF_TIMED_GROUP < n ? *lo + DF_TIMED_GROUP : n;
}

/* The GPU's generation, item g of a batch of jb->n from index jb->lo in
 * the set of jb->slots, DF_TIMED_GROUP cases: each one without its vectors
 * (the set's shapes, copied into the slot by prepare_group) and its value
 * stream for the device. Touches no slot: the set's slots may still hold
 * the batch in front of it (shapes_ahead). */
static void shape_group(void *ctx, size_t g, unsigned w)
{
    df_job *jb = ctx;
    df_engine *e = jb->e;
    size_t lo, hi = timed_group(g, jb->n, &lo);
    double t0 = df_now();
    for (size_t s = lo; s < hi; s++) {
        size_t at = df_set_of(e, jb->slots) * e->batch + s;
        df_devgen_case *gc = &e->gcs[at];
        df_shape *sh = &e->shapes[at];
        uint64_t i = jb->lo + s;
        sh->failed = df_generate_shape(e->o->seed, i, e->kernels[df_run_kernel_of(i, e->nk)],
                                       &e->go, &sh->c, &gc->rng) != 0;
        gc->family = sh->c.family;
        gc->type = (uint32_t)sh->c.type;
        gc->n = sh->failed ? 0 : sh->c.n;
    }
    (void)spent(e, w, DF_CPU_GENERATE, t0, jb->lo + lo);
}

/* Has the GPU generate jb's cases (e->gpu_gen): their shapes and streams
 * (on the pool now, unless shaped: made ahead by shapes_ahead), then the
 * device fills them and copies them into the set's pinned memory, which
 * the slots' vectors will point into; the prepare items wait for it to
 * land (prepare_group). When the GPU cannot start, the cases are made on
 * the CPU as without it (the same bytes). */
static void gpu_generate(df_engine *e, df_job *jb, int shaped)
{
    if (!e->gpu_gen || jb->n == 0)
        return;
    size_t h = df_set_of(e, jb->slots);
    df_devgen_case *g = e->gcs + h * e->batch;
    if (!shaped)
        df_pool_for(e->pool, timed_groups(jb->n), shape_group, jb);
    size_t bytes = df_devgen_layout(g, jb->n);
    void *out = NULL;
    char err[160];
    if (df_backend_gen_start(e->b, (int)h, g, jb->n, bytes, &out, err, sizeof err) != 0) {
        fprintf(stderr, "dotfuzz run: generation on the GPU failed (%s); the CPU generates\n",
                err);
        e->gpu_gen = 0;
        return;
    }
    jb->gen_out = out; /* the slots' vectors point into it (prepare_group) */
    jb->gen_set = (int)h;
    jb->chunks = 0; /* made whole on the GPU (their permute copies still in chunks) */
}

/* Whether jb's cases are there to reference: made on the CPU (by the
 * prepare items themselves), or landed from the GPU. The pool's workers
 * leave the next batch's prepare loop alone until then (df_pool_begin_ahead)
 * and judge the batch in front meanwhile, instead of each blocking in
 * prepare_group's wait for the generation. */
static int gen_landed(void *ctx)
{
    const df_job *jb = ctx;
    return jb->gen_set < 0 || df_backend_gen_landed(jb->e->b, jb->gen_set);
}

static void premodel_slot(void *ctx, size_t s, unsigned w);

/* Whether prepare_group models the cases of a batch prepared `group` a
 * prepare item, gpu_made: generated on the GPU. On cuda (the host
 * backend's model is its run), for short cases generated on the GPU.
 * Not a run's CPU-made cases, up to 65536 elements long, whose prepare
 * items of eight would be the loop's slowest with their models too: with
 * that (and batch_plan's pool loop for a few dozen cases), a default run
 * on an H200 went 28,640 -> 22,609 cases/s; without both, 29,331 -> 29,029
 * (which cost what was not measured apart). prepare_group asks with the
 * batch's own generation set, check_batch with e->gpu_gen (a batch whose
 * GPU start failed is made and modelled as on the CPU). */
static int models_in_prepare(const df_engine *e, size_t group, int gpu_made)
{
    return !df_backend_is_host(e->b) && gpu_made && group > 1;
}

/* Whether jb's prepare loop models all its cases: in slots_ready (short
 * cases made on the GPU) or in model items. */
static int prepare_models(const df_job *jb, int gpu_made)
{
    return models_in_prepare(jb->e, jb->group, gpu_made) || model_items(jb);
}

/* Slots [lo, hi) of jb made and referenced: the models of short cases
 * generated on the GPU, the sampled cases' early copies (cuda), ready. */
static void slots_ready(df_job *jb, size_t lo, size_t hi, unsigned w)
{
    df_engine *e = jb->e;
    /* generated on the GPU (short cases): each one's model now, while its
     * vectors are in this core's cache (premodel_slot, beside the GPU run,
     * would read them from memory again) */
    for (size_t s = lo; models_in_prepare(e, jb->group, jb->gen_set >= 0) && s < hi; s++)
        premodel_slot(jb, s, w);
    df_meta_permuted pg = {.m = 0};
    for (size_t s = lo; s < hi; s++)
        if (jb->slots[s].plan && !jb->slots[s].gen_failed && !df_backend_is_host(e->b))
            early_copies(e, &jb->slots[s], jb->nsampled == 0, w, &pg);
    if (pg.m) {
        double t0 = df_now();
        df_meta_permuted_flush(&pg);
        (void)spent(e, w, DF_CPU_REFS, t0, jb->slots[lo].c.index);
    }
    for (size_t s = lo; s < hi; s++) {
        __atomic_store_n(&jb->slots[s].ready, 1, __ATOMIC_RELEASE);
        __atomic_store_n(&jb->slots[s].made, jb->epoch, __ATOMIC_RELEASE);
    }
}

static void finish_slot(void *ctx, size_t s, unsigned w);

/* Slot s referenced: as slots_ready; the host backend's model and
 * judgement too. */
static void refs_done(df_job *jb, size_t s, unsigned w)
{
    slots_ready(jb, s, s + 1, w); /* cuda: its model is a model item */
    if (jb->whole)
        finish_slot(jb, s, w);
}

/* Slot s made (whole, or its last chunk and its finish, or landed from the
 * GPU): its references here, or, past DF_REFS_CHUNK in a job with part
 * items, by those (refs_part_item; here only the room for their parts);
 * then refs_done. */
static void slot_made(df_job *jb, size_t s, unsigned w)
{
    df_engine *e = jb->e;
    df_slot *sl = &jb->slots[s];
    sl->rchunks = 0;
    if (jb->rchunks && !sl->gen_failed && sl->c.n > DF_REFS_CHUNK) {
        uint64_t m = df_refs_chunks(sl->c.n);
        if (df_scratch_reserve(&sl->rparts, (size_t)m * sizeof(df_refs_part))) {
            sl->rchunks = m;
            __atomic_store_n(&sl->rleft, m, __ATOMIC_RELAXED);
            __atomic_store_n(&sl->filled, jb->epoch, __ATOMIC_RELEASE);
            return;
        } /* no room for the parts: referenced whole here */
    }
    __atomic_store_n(&sl->filled, jb->epoch, __ATOMIC_RELEASE);
    double t0 = df_now();
    df_refs_job rj = {sl->c.type, sl->c.a, sl->c.b, sl->c.n, &sl->r.refs};
    if (!sl->gen_failed)
        df_refs_compute_many(&rj, 1);
    (void)spent(e, w, DF_CPU_REFS, t0, sl->c.index);
    refs_done(jb, s, w);
}

/* The slot whose parts are rank-th among the part items: the sampled
 * slots first (jb->sampled, increasing), then the others in order. */
static size_t slot_of_rank(const df_job *jb, size_t rank)
{
    if (rank < jb->nsampled)
        return jb->sampled[rank];
    size_t s = rank - jb->nsampled; /* the s-th slot not sampled */
    for (size_t i = 0; i < jb->nsampled && jb->sampled[i] <= s; i++)
        s++;
    return s;
}

/* Thread w waits (yielding) until a slot's mark holds the job's epoch: an
 * item that needs another item's work on the slot, which the pool's
 * counter gave out earlier, so it is under way (the wait is traced). */
static void await_mark(const uint64_t *mark, uint64_t epoch, unsigned w, const df_slot *sl)
{
    double t0 = df_now();
    while (__atomic_load_n(mark, __ATOMIC_ACQUIRE) != epoch)
        sched_yield();
    df_trace(DF_TR_WAIT, w, sl->c.index, t0, df_now());
}

/* Reference part item r: chunk r % rchunks of the slot of rank r /
 * rchunks, once its case is made; the thread that makes its last part
 * merges them (in chunk order) and goes on with refs_done. */
static void refs_part_item(df_job *jb, size_t r, unsigned w)
{
    df_engine *e = jb->e;
    size_t s = slot_of_rank(jb, r / jb->rchunks);
    uint64_t j = r % jb->rchunks;
    df_slot *sl = &jb->slots[s];
    await_mark(&sl->filled, jb->epoch, w, sl);
    if (j >= sl->rchunks)
        return;
    double t0 = df_now();
    df_refs_part *parts = sl->rparts.p;
    df_refs_part_compute(sl->c.type, sl->c.a, sl->c.b, sl->c.n, j, &parts[j]);
    if (__atomic_sub_fetch(&sl->rleft, 1, __ATOMIC_ACQ_REL) != 0) {
        (void)spent(e, w, DF_CPU_REFS, t0, sl->c.index);
        return;
    }
    df_refs_merger m;
    df_refs_merge_init(&m);
    for (uint64_t i = 0; i < sl->rchunks; i++)
        df_refs_merge_add(&m, &parts[i]);
    df_refs_merge_out(&m, sl->c.type, sl->c.n, &sl->r.refs);
    (void)spent(e, w, DF_CPU_REFS, t0, sl->c.index);
    refs_done(jb, s, w);
}

/* A long case's plan (sl->vrng, the value stream, moves past it) and room
 * for its chunks' partial sums. Returns 0, or -1 out of memory. */
static int long_plan(df_slot *sl)
{
    if (!sl->vplan && !(sl->vplan = malloc(sizeof *sl->vplan)))
        return -1;
    if (df_values_plan(sl->c.family, &sl->vrng, sl->c.type, sl->c.n, sl->vplan) != 0)
        return -1;
    uint64_t m = df_vplan_chunks(sl->vplan);
    return df_vplan_partials(sl->vplan) &&
                   !df_scratch_reserve(&sl->parts, (size_t)m * sizeof(df_vchunk))
               ? -1
               : 0;
}

/* Slot s's first item, in a job with chunk items: its case's shape and
 * vectors' room; a case up to DF_GEN_CHUNK long made, referenced and
 * ready here, a longer one planned for its chunk items. */
static void head_item(df_job *jb, size_t s, unsigned w)
{
    df_engine *e = jb->e;
    df_slot *sl = &jb->slots[s];
    double t0 = df_now();
    name_slot(jb, s);
    clear_slot(sl);
    sl->chunks = 0;
    int failed = df_generate_begin(e->o->seed, sl->c.index, e->kernels[sl->ki], &e->go,
                                   &sl->buf, &sl->c, &sl->vrng) != 0;
    if (!failed && sl->c.n > DF_GEN_CHUNK) {
        failed = long_plan(sl) != 0;
        sl->chunks = failed ? 0 : df_vplan_chunks(sl->vplan);
        __atomic_store_n(&sl->chunks_left, sl->chunks, __ATOMIC_RELAXED);
    } else if (!failed) {
        (void)df_fill_values(sl->c.family, &sl->vrng, sl->c.type, (void *)sl->c.a,
                             (void *)sl->c.b, sl->c.n);
    }
    sl->gen_failed = failed;
    (void)spent(e, w, DF_CPU_GENERATE, t0, sl->c.index);
    __atomic_store_n(&sl->shaped, jb->epoch, __ATOMIC_RELEASE);
    if (!sl->chunks)
        slot_made(jb, s, w);
}

/* Chunk j of slot s (nothing past its chunks). The slot's first item comes
 * before it from the pool's counter, so it is being made by then; the one
 * that makes the last chunk finishes the case (df_values_finish) and
 * references it. */
static void chunk_item(df_job *jb, size_t s, uint64_t j, unsigned w)
{
    df_engine *e = jb->e;
    df_slot *sl = &jb->slots[s];
    await_mark(&sl->shaped, jb->epoch, w, sl);
    if (j >= sl->chunks)
        return;
    double t0 = df_now();
    df_vchunk *parts = sl->parts.p;
    void *a = (void *)sl->c.a, *b = (void *)sl->c.b;
    df_generate_chunk(sl->vplan, a, b, j, df_vplan_partials(sl->vplan) ? &parts[j] : NULL);
    if (__atomic_sub_fetch(&sl->chunks_left, 1, __ATOMIC_ACQ_REL) == 0) {
        df_values_finish_parts(sl->vplan, &sl->vrng, a, b, parts);
        (void)spent(e, w, DF_CPU_GENERATE, t0, sl->c.index);
        slot_made(jb, s, w);
        return;
    }
    (void)spent(e, w, DF_CPU_GENERATE, t0, sl->c.index);
}

/* Slot s's model item (model_items), once its case is whole (filled: a
 * model needs the vectors, not the references, which part items may be
 * making meanwhile), or where no part items are, ready. */
static void model_item(df_job *jb, size_t s, unsigned w)
{
    df_slot *sl = &jb->slots[s];
    await_mark(jb->rchunks ? &sl->filled : &sl->made, jb->epoch, w, sl);
    premodel_slot(jb, s, w);
}

/* Generation and references of item g's slots (and the models of short
 * cases on cuda). */
static void prepare_group(void *ctx, size_t g, unsigned w)
{
    df_job *jb = ctx;
    df_engine *e = jb->e;
    if (g >= slot_items(jb)) {
        size_t i;
        switch (after_slots_item(jb, g - slot_items(jb), &i)) {
        case ITEM_REFS: refs_part_item(jb, i, w); break;
        case ITEM_MODEL: model_item(jb, i, w); break;
        default: copy_item(jb, i, w); break;
        }
        return;
    }
    if (jb->chunks) {
        if (g < jb->n)
            head_item(jb, g, w);
        else
            chunk_item(jb, (g - jb->n) / jb->chunks, (g - jb->n) % jb->chunks, w);
        return;
    }
    size_t lo = g * jb->group, hi = lo + jb->group < jb->n ? lo + jb->group : jb->n;
    df_refs_job rj[DF_PREP_GROUP];
    size_t m = 0;
    double t0 = df_now();
    int landed = jb->gen_set < 0 || df_backend_gen_wait(e->b, jb->gen_set) == 0;
    if (jb->gen_set >= 0)
        df_trace(DF_TR_WAIT, w, jb->lo + lo, t0, df_now());
    size_t set0 = df_set_of(e, jb->slots) * e->batch; /* the set's shapes and streams */
    for (size_t s = lo; s < hi; s++) {
        df_slot *sl = &jb->slots[s];
        if (jb->gen_set < 0) {
            name_slot(jb, s);
            clear_slot(sl);
            sl->gen_failed = df_generate(e->o->seed, sl->c.index, e->kernels[sl->ki], &e->go,
                                         &sl->buf, &sl->c) != 0;
        } else {
            size_t at = set0 + s;
            const df_devgen_case *gc = &e->gcs[at];
            size_t na = (size_t)gc->n * df_type_size((df_type)gc->type);
            name_slot(jb, s);
            clear_slot(sl);
            sl->c = e->shapes[at].c;
            sl->c.a = jb->gen_out + gc->off;
            sl->c.b = jb->gen_out + gc->off + na;
            sl->gen_failed = e->shapes[at].failed || !landed;
        }
        if (!sl->gen_failed)
            rj[m++] = (df_refs_job){sl->c.type, sl->c.a, sl->c.b, sl->c.n, &sl->r.refs};
    }
    double t1 = spent(e, w, DF_CPU_GENERATE, t0, jb->lo + lo);
    if (jb->rchunks) { /* a case an item, maybe long: slot_made, maybe by parts */
        for (size_t s = lo; s < hi; s++)
            slot_made(jb, s, w);
        return;
    }
    df_refs_compute_many(rj, m);
    (void)spent(e, w, DF_CPU_REFS, t1, jb->lo + lo);
    slots_ready(jb, lo, hi, w);
}

double df_engine_cpu_seconds(const df_engine *e, int kind)
{
    double sum = 0;
    for (unsigned w = 0; e->cpu_s && w < df_pool_size(e->pool); w++)
        sum += e->cpu_s[w][kind];
    return sum;
}

/* The host backend's run, or the cuda backend's model beside it. */
static void model_slot(void *ctx, size_t s, unsigned w)
{
    df_job *jb = ctx;
    df_engine *e = jb->e;
    df_slot *sl = &jb->slots[s];
    const df_kernel *k = e->kernels[sl->ki];
    if (sl->gen_failed)
        return;
    int host = df_backend_is_host(e->b);
    if (!host && sl->ran && sl->modelled) {
        sl->r.model_ran = 1; /* made beside the GPU run (premodel_slot): no time */
        return;
    }
    double t0 = df_now();
    if (host) {
        df_run_model(&e->mctx[w], k, 1, &sl->c, &sl->r.res);
        sl->ran = 1;
    } else if (sl->ran && k->host_model && (k->flags & DF_K_DETERMINISTIC)) {
        df_run_model(&e->mctx[w], k, 0, &sl->c, &sl->r.model);
        sl->r.model_ran = 1;
    }
    (void)spent(e, w, DF_CPU_MODEL, t0, sl->c.index);
}

/* cuda backend: a case's model for the model-match rule, made on the pool
 * by prepare_group (short cases) or while the caller runs the batch on the
 * GPU (the rest): it needs the case alone, not the GPU's result. Used when
 * the GPU ran the case (model_slot). */
static void premodel_slot(void *ctx, size_t s, unsigned w)
{
    df_job *jb = ctx;
    df_engine *e = jb->e;
    df_slot *sl = &jb->slots[s];
    const df_kernel *k = e->kernels[sl->ki];
    if (sl->gen_failed || sl->modelled || !k->host_model || !(k->flags & DF_K_DETERMINISTIC))
        return;
    double t0 = df_now();
    df_run_model(&e->mctx[w], k, 0, &sl->c, &sl->r.model);
    sl->modelled = 1;
    (void)spent(e, w, DF_CPU_MODEL, t0, sl->c.index);
}

/* Model and judgement of one case, while its vectors are in cache, and
 * its mark: quick when its recording is the mark alone (judged ok or
 * nondeterministic, nothing to save, no metamorphic checks to finish). */
static void judge_slot(df_job *jb, size_t s)
{
    df_engine *e = jb->e;
    df_slot *sl = &jb->slots[s];
    df_mark *mk = &e->marks[df_set_of(e, jb->slots) * e->batch + s];
    mk->quick = 0;
    if (sl->ran)
        df_judge(e->kernels[sl->ki], &sl->c, &sl->r.refs, &sl->r.res,
                 sl->r.model_ran ? &sl->r.model : NULL, &e->oo, &sl->r.j);
    if (sl->ran && !sl->gen_failed) {
        *mk = df_mark_of(e, sl->ki, &sl->c, &sl->r);
        mk->quick = (sl->r.j.verdict == DF_V_OK || sl->r.j.verdict == DF_V_NONDET) &&
                    !df_meta_sampled(&e->o->meta, &sl->c);
    }
}

static void finish_slot(void *ctx, size_t s, unsigned w)
{
    df_job *jb = ctx;
    model_slot(ctx, s, w);
    double t0 = df_now();
    judge_slot(jb, s);
    (void)spent(jb->e, w, DF_CPU_JUDGE, t0, jb->slots[s].c.index);
}

/* finish_slot for DF_TIMED_GROUP cases from g's first: their models (each
 * timed where one is made), then their judgements, timed together. */
static void finish_group(void *ctx, size_t g, unsigned w)
{
    df_job *jb = ctx;
    size_t lo, hi = timed_group(g, jb->n, &lo);
    for (size_t s = lo; s < hi; s++)
        model_slot(ctx, s, w);
    double t0 = df_now();
    for (size_t s = lo; s < hi; s++)
        judge_slot(jb, s);
    (void)spent(jb->e, w, DF_CPU_JUDGE, t0, jb->lo + lo);
}

/* The host backend's whole cases, item g's, while their vectors are in
 * cache. */
static void whole_group(void *ctx, size_t g, unsigned w)
{
    df_job *jb = ctx;
    prepare_group(ctx, g, w);
    /* (where slot_made makes the cases, refs_done finishes them) */
    for (size_t s = g * jb->group;
         !jb->chunks && !jb->rchunks && s < (g + 1) * jb->group && s < jb->n; s++)
        finish_slot(ctx, s, w);
}

/* ---- a batch's metamorphic checks ---- */

static void plan_slot(void *ctx, size_t s, unsigned w)
{
    (void)w;
    df_engine *e = ctx;
    df_slot *sl = &e->cur[s];
    if (!sl->planned)
        return;
    if (sl->copies != DF_COPIES_NONE)
        df_meta_plan_settle(sl->plan, &sl->r); /* made before the run */
    else if (df_meta_plan_variants(e->kernels[sl->ki], &sl->c, &sl->r, &e->o->meta,
                                   sl->plan) != 0)
        sl->plan->nvar = 0; /* out of memory: checked without variants */
}

/* After the run: a sampled case that ran is planned (its checks go on).
 * Returns 0, or -1 when one has no plan (out of memory at naming). */
static int assign_plans(df_engine *e, size_t n)
{
    int rc = 0;
    for (size_t s = 0; s < n; s++) {
        df_slot *sl = &e->cur[s];
        sl->planned = sl->ran && !sl->gen_failed && df_meta_sampled(&e->o->meta, &sl->c);
        if (sl->planned && !sl->plan)
            rc = -1;
    }
    if (rc != 0)
        for (size_t s = 0; s < n; s++)
            e->cur[s].planned = 0;
    return rc;
}

static int vref_reserve(df_engine *e, size_t need)
{
    if (need <= e->capvref)
        return 0;
    size_t cap = need + need / 2 + 16;
    if (df_grow_cases(&e->vref, &e->vptr, &e->vres, cap) != 0)
        return -1;
    e->capvref = cap;
    return 0;
}

static int collect_variants(df_engine *e, size_t n)
{
    size_t need = 0;
    for (size_t s = 0; s < n; s++)
        need += e->cur[s].planned ? e->cur[s].plan->nvar : 0;
    if (vref_reserve(e, need) != 0)
        return -1;
    e->nvref = 0;
    for (size_t s = 0; s < n; s++)
        for (size_t v = 0; e->cur[s].planned && v < e->cur[s].plan->nvar; v++)
            e->vref[e->nvref++] = (df_vref){(uint32_t)s, (uint32_t)v};
    return 0;
}

/* Host backend: the references of variants [i g, i g + g) of the batch,
 * g = e->vref_group. */
static void variant_refs(void *ctx, size_t i, unsigned w)
{
    (void)w;
    df_engine *e = ctx;
    size_t lo = i * e->vref_group, hi = lo + e->vref_group < e->nvref ? lo + e->vref_group
                                                                      : e->nvref;
    copy_refs cr = {.m = 0};
    for (size_t j = lo; j < hi; j++)
        copy_refs_add(&cr, e->cur[e->vref[j].slot].plan, e->vref[j].var);
    copy_refs_flush(&cr);
}

/* Host backend: a variant runs as the host model, on any thread. */
static void host_variant(void *ctx, size_t i, unsigned w)
{
    df_engine *e = ctx;
    df_slot *sl = &e->cur[e->vref[i].slot];
    df_meta_plan *p = sl->plan;
    size_t v = e->vref[i].var;
    const df_kernel *k = e->kernels[sl->ki];
    df_run_model(&e->mctx[w], k, 1, &p->var[v], &p->out[v].res);
    p->ran[v] = 1;
    if (p->kind[v] != DF_META_RERUN)
        df_meta_plan_judge(k, &e->oo, p, v);
}

/* cuda backend: a copy's model (deterministic kernels) and judgement. */
static void judge_variant(void *ctx, size_t i, unsigned w)
{
    df_engine *e = ctx;
    df_slot *sl = &e->cur[e->vref[i].slot];
    df_meta_plan *p = sl->plan;
    size_t v = e->vref[i].var;
    const df_kernel *k = e->kernels[sl->ki];
    if (p->kind[v] == DF_META_RERUN || p->ran[v] == 0)
        return;
    df_checked *o = &p->out[v];
    if (p->ran[v] != 1) {
        o->model_ran = 0; /* the backend died on it: judged without the model */
    } else if (!o->model_ran && k->host_model && (k->flags & DF_K_DETERMINISTIC)) {
        double t0 = df_now();
        df_run_model(&e->mctx[w], k, 0, &p->var[v], &o->model);
        o->model_ran = 1;
        (void)spent(e, w, DF_CPU_MODEL, t0, p->var[v].index);
    }
    df_meta_plan_judge(k, &e->oo, p, v);
}

/* cuda backend: a copy's model (deterministic kernels), which needs the
 * copy alone; judge_variant keeps it when the copy ran. */
static void copy_model(df_engine *e, const df_kernel *k, df_meta_plan *p, size_t v, unsigned w)
{
    if (p->kind[v] == DF_META_RERUN || !k->host_model || !(k->flags & DF_K_DETERMINISTIC))
        return;
    double t0 = df_now();
    df_run_model(&e->mctx[w], k, 0, &p->var[v], &p->out[v].model);
    p->out[v].model_ran = 1;
    (void)spent(e, w, DF_CPU_MODEL, t0, p->var[v].index);
}

/* cuda backend: a copy's references and its model, made on the pool
 * (a long case's copy an item of its own). */
static void copy_prep(df_engine *e, const df_kernel *k, df_meta_plan *p, size_t v, unsigned w)
{
    if (p->kind[v] == DF_META_RERUN)
        return;
    double t0 = df_now();
    df_meta_plan_refs(p, v);
    (void)spent(e, w, DF_CPU_REFS, t0, p->var[v].index);
    copy_model(e, k, p, v, w);
}

static void variant_prep(void *ctx, size_t i, unsigned w)
{
    df_engine *e = ctx;
    df_slot *sl = &e->cur[e->vref[i].slot];
    if (sl->copies != DF_COPIES_PREPPED)
        copy_prep(e, e->kernels[sl->ki], sl->plan, e->vref[i].var, w);
}

/* Every variant of the batch through the GPU, a kernel at a time. Returns
 * 0, or -1 when the context died (variants after that one did not run). */
static int gpu_variants(df_engine *e)
{
    for (size_t ki = 0; ki < e->nk; ki++) {
        size_t m = 0;
        for (size_t i = 0; i < e->nvref; i++) {
            df_slot *sl = &e->cur[e->vref[i].slot];
            if (sl->ki == ki && sl->plan->ran[e->vref[i].var] == 0)
                e->vptr[m++] = &sl->plan->var[e->vref[i].var];
        }
        if (m == 0)
            continue;
        size_t done = 0;
        int rc = df_backend_run_batch(e->b, e->kernels[ki], e->vptr, NULL, m, e->vres, &done,
                                      NULL, NULL, 0);
        for (size_t i = 0, j = 0; i < e->nvref && j < done; i++) {
            df_slot *sl = &e->cur[e->vref[i].slot];
            if (sl->ki != ki || sl->plan->ran[e->vref[i].var] != 0)
                continue;
            size_t v = e->vref[i].var;
            df_result_copy(&sl->plan->out[v].res, &e->vres[j++]);
            sl->plan->ran[v] = rc != 0 && j == done ? -1 : 1;
        }
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Plans the batch's sampled cases and makes their metamorphic copies.
 * Returns 0, or -1 out of memory. */
static int make_copies(df_engine *e, size_t n)
{
    if (assign_plans(e, n) != 0)
        return -1;
    df_pool_for(e->pool, n, plan_slot, e);
    return collect_variants(e, n);
}

/* Host backend: makes, references, runs (as the host model) and judges
 * the copies of a batch's sampled cases; each case is finished in index
 * order when it is recorded. Returns 0, or -1 out of memory. The copies'
 * references are pool items of DF_COPY_GROUP copies side by side for
 * short cases, and of one copy each for long ones: at large n a sampled
 * case's three copies would otherwise take one thread three times. */
static int batch_metamorphic(df_engine *e, size_t n)
{
    if (make_copies(e, n) != 0)
        return -1;
    e->vref_group = df_longest_n(e) <= DF_PREP_GROUP_MAX_N ? DF_COPY_GROUP : 1;
    df_pool_for(e->pool, (e->nvref + e->vref_group - 1) / e->vref_group, variant_refs, e);
    df_pool_for(e->pool, e->nvref, host_variant, e);
    return 0;
}

/* Waits for loop h, or runs fn over [0, n) when it could not be opened. */
static void pool_join(df_pool *pool, int h, size_t n,
                      void (*fn)(void *ctx, size_t i, unsigned worker), void *ctx)
{
    if (h >= 0)
        df_pool_wait(pool, h);
    else
        df_pool_for(pool, n, fn, ctx);
}

/* cuda backend: the batch's judgement (finish_slot; its models were made
 * beside the GPU run), and its metamorphic checks, overlapped: the copies
 * were made in the prepare stage (early_copies: they need the first run's
 * status and G, not its judgement) and are settled now, then the pool
 * judges the batch and references and models the copies (those the
 * prepare stage left) while the caller runs on the GPU the copies that
 * did not run in the batch's launch (df_run_gpu), then lays out and stages
 * the next batch (df_stage_next); the copies are judged last. The same work,
 * on the same data, as judging the batch and then checking its copies one
 * step after another, so the same verdicts. Returns 0, or -1 when the
 * context died or out of memory. */
static int finish_overlapped(df_engine *e, size_t n, df_job *jb)
{
    double t0 = df_now();
    size_t ng = timed_groups(n); /* jb->n is n */
    if (make_copies(e, n) != 0) {
        df_pool_for(e->pool, ng, finish_group, jb);
        return -1;
    }
    double t1 = df_now();
    int hf = df_pool_begin(e->pool, ng, finish_group, jb);
    int hr = df_pool_begin(e->pool, e->nvref, variant_prep, e);
    int rc = gpu_variants(e);
    double t2 = df_now();
    if (rc == 0)
        df_stage_next(e);
    double t3 = df_now();
    pool_join(e->pool, hr, e->nvref, variant_prep, e);
    pool_join(e->pool, hf, ng, finish_group, jb);
    double t4 = df_now();
    df_pool_for(e->pool, e->nvref, judge_variant, e);
    e->finish_s[DF_FINISH_MAKE] += t1 - t0;
    e->finish_s[DF_FINISH_GPU] += t2 - t1;
    e->finish_s[DF_FINISH_NEXT] += t3 - t2;
    e->finish_s[DF_FINISH_WAIT] += t4 - t3;
    e->finish_s[DF_FINISH_COPIES] += df_now() - t4;
    return rc;
}

/* Names the batch of indices [lo, lo + n) in slots: its sampled cases, in
 * order, and a plan each from their set's (the k-th sampled case the k-th
 * plan: plans, and their copies' buffers, number about 1 in --meta-every
 * of a batch's cases, not its slots); the other slots get their index,
 * kernel and no plan from name_slot, on the pool. Out of memory, sampled
 * cases get none (assign_plans reports it). */
static void name_batch(df_engine *e, df_slot *slots, uint64_t lo, size_t n)
{
    size_t h = df_set_of(e, slots);
    uint32_t *sampled = e->sampled + h * e->batch;
    size_t k = 0;
    for (size_t s = 0; s < n; s++)
        if (df_meta_sampled_at(&e->o->meta, e->o->seed, lo + s))
            sampled[k++] = (uint32_t)s;
    e->nsampled[h] = 0;
    if (k > e->nplans[h]) {
        df_meta_plan *p = realloc(e->plans[h], k * sizeof *p);
        if (!p) {
            for (size_t i = 0; i < k; i++)
                slots[sampled[i]].plan = NULL;
            return;
        }
        memset(p + e->nplans[h], 0, (k - e->nplans[h]) * sizeof *p);
        e->plans[h] = p;
        e->nplans[h] = k;
    }
    for (size_t i = 0; i < k; i++) {
        slots[sampled[i]].plan = &e->plans[h][i];
        __atomic_store_n(&slots[sampled[i]].ready, 0, __ATOMIC_RELAXED);
    }
    e->nsampled[h] = k;
}

/* Checks the batch e->cur, indices [lo, lo + n) (df_record_batch records
 * it); prepared: generated and referenced already (pipelined). meanwhile
 * (ctx), when not NULL, runs once while the GPU runs the batch, or after
 * the check where it does not. Returns 1 when the backend died, else 0. */
static int check_batch(df_engine *e, uint64_t lo, size_t n, int prepared,
                       void (*meanwhile)(void *ctx), void *ctx)
{
    df_job jb = batch_job(e, e->cur, lo, n);
    e->ncur = n;
    if (e->hb)
        df_worker_case_begin(e->hb, lo, n);
    int dead = 0, meta_done = 0;
    double t0 = df_now(), t1, t2, aside = 0;
    if (df_backend_is_host(e->b) && !prepared) {
        jb.whole = 1; /* chunked jobs: slot_made judges each case */
        prepare_loop(e, &jb, whole_group);
        t1 = t2 = df_now();
    } else {
        if (!prepared) {
            gpu_generate(e, &jb, 0);
            prepare_loop(e, &jb, prepare_group);
        }
        t1 = df_now();
        int gpu = !df_backend_is_host(e->b);
        /* not when prepare_group modelled them all (premodel_slot skips a
         * case modelled already: this loop is then a pass over the slots
         * for nothing) */
        int premodel = gpu && !prepare_models(&jb, e->gpu_gen);
        int hm = premodel ? df_pool_begin(e->pool, n, premodel_slot, &jb) : -1;
        aside = e->stage_s[DF_STAGE_RECORD] + e->stage_s[DF_STAGE_AHEAD];
        dead = gpu && df_run_gpu(e, n, meanwhile, ctx) != 0;
        t2 = df_now();
        /* the time meanwhile took (another batch's) is not this one's */
        aside = e->stage_s[DF_STAGE_RECORD] + e->stage_s[DF_STAGE_AHEAD] - aside;
        if (premodel) {
            pool_join(e->pool, hm, n, premodel_slot, &jb);
            e->finish_s[DF_FINISH_MODELS] += df_now() - t2;
        }
        if (gpu && !dead && e->o->meta.every) {
            dead = finish_overlapped(e, n, &jb) != 0;
            meta_done = 1;
        } else {
            /* host: the model is the run */
            df_pool_for(e->pool, timed_groups(n), finish_group, &jb);
        }
    }
    if (!dead && !meta_done && e->o->meta.every)
        dead = batch_metamorphic(e, n) != 0;
    double t3 = df_now();
    e->stage_s[DF_STAGE_PREPARE] += t1 - t0;
    e->stage_s[DF_STAGE_GPU] += t2 - t1 - aside;
    e->stage_s[DF_STAGE_FINISH] += t3 - t2;
    df_trace(DF_TR_PREPARE, DF_TRACE_CALLER, lo, t0, t1);
    df_trace(DF_TR_GPU, DF_TRACE_CALLER, lo, t1, t2);
    df_trace(DF_TR_FINISH, DF_TRACE_CALLER, lo, t2, t3);
    if (e->hb)
        df_worker_case_end(e->hb);
    if (meanwhile) /* runs once: nothing when df_run_gpu ran it */
        meanwhile(ctx);
    return dead;
}

static size_t batch_len(const df_engine *e, uint64_t i, uint64_t hi)
{
    return hi - i < e->batch ? (size_t)(hi - i) : e->batch;
}

/* The batches made ahead of the one being checked, oldest first: their
 * sets of slots (set[0..n)), and each set's job, first index and prepare
 * loop (-1: none open, df_pool_wait does nothing). A job stays where it is
 * while its loop is open: the loop's calls point at it. */
typedef struct ahead_queue {
    df_job jb[DF_SETS_MAX];
    uint64_t lo[DF_SETS_MAX];
    int h[DF_SETS_MAX];
    size_t set[DF_SETS_MAX], n;
    /* GPU generation: the shapes of each set's next batch, made on the pool
     * while the batch in front is checked (shapes_ahead): their job and
     * loop (-1: none open) */
    df_job shape[DF_SETS_MAX];
    int sh[DF_SETS_MAX];
} ahead_queue;

/* When the GPU generates: opens a loop that makes the shapes of the batch
 * at j, the next one set `set` will hold, on the pool's threads while the
 * caller checks the batch in front (whose prepare loop is done: its shapes
 * and streams, the set's, are in its slots and on the GPU). begin_ahead
 * joins it, and needs only to launch the generation: it had made the
 * shapes itself, 4,096 of them a batch at n = 2000, mostly on the caller's
 * thread while the pool's were busy. */
static void shapes_ahead(df_engine *e, ahead_queue *q, size_t set, uint64_t j, uint64_t hi,
                         double deadline)
{
    size_t m = e->gpu_gen && j < hi && !df_stopping(e, deadline) ? batch_len(e, j, hi) : 0;
    if (!m || q->sh[set] >= 0)
        return;
    q->shape[set] = batch_job(e, e->slots + set * e->batch, j, m);
    /* not work ahead for the pool: begin_ahead needs them right after the
     * check, before the next batch's references (as work ahead, served
     * after those, the caller waited 22% of an H200 bench run making
     * them) */
    q->sh[set] = df_pool_begin(e->pool, timed_groups(m), shape_group, &q->shape[set]);
}

/* Whether set's shapes made ahead are those of the batch [lo, lo + m),
 * after waiting for them; either way the set has none made ahead after. */
static int shapes_join(df_engine *e, ahead_queue *q, size_t set, uint64_t lo, size_t m)
{
    if (q->sh[set] < 0)
        return 0;
    df_pool_wait(e->pool, q->sh[set]);
    q->sh[set] = -1;
    return q->shape[set].lo == lo && q->shape[set].n == m;
}

/* Starts the batch at *j, when the range has one left and the run goes on,
 * in the slot set `set`: names it, has the GPU generate it (when it does)
 * and opens its prepare loop, which waits for the generation to land.
 * Appends it to q; returns 1, or 0 when there is none to start. */
static int begin_ahead(df_engine *e, ahead_queue *q, size_t set, uint64_t *j, uint64_t hi,
                       double deadline)
{
    size_t m = *j < hi && !df_stopping(e, deadline) ? batch_len(e, *j, hi) : 0;
    if (!m)
        return 0;
    double t0 = df_now();
    df_slot *slots = e->slots + set * e->batch;
    int shaped = shapes_join(e, q, set, *j, m);
    double t1 = df_now();
    df_trace(DF_TR_WAIT, DF_TRACE_CALLER, *j, t0, t1);
    name_batch(e, slots, *j, m);
    df_job *jb = &q->jb[set];
    *jb = batch_job(e, slots, *j, m); /* after the naming: its sampled cases */
    gpu_generate(e, jb, shaped);
    double t2 = df_now();
    df_trace(DF_TR_GENERATE, DF_TRACE_CALLER, *j, t1, t2);
    q->lo[set] = *j;
    q->h[set] = df_pool_begin_ahead(e->pool, prep_items(jb), prepare_group, jb, gen_landed, jb);
    if (q->h[set] < 0) /* every loop of the pool open: made now */
        prepare_loop(e, jb, prepare_group);
    df_trace(DF_TR_PREPARE, DF_TRACE_CALLER, *j, t2, df_now());
    q->set[q->n++] = set;
    *j += m;
    e->stage_s[DF_STAGE_AHEAD] += df_now() - t0;
    return 1;
}

/* Waits for q's oldest batch to be prepared, takes it off q and returns
 * its set. */
static size_t join_oldest(df_engine *e, ahead_queue *q)
{
    size_t set = q->set[0];
    double t0 = df_now();
    df_pool_wait(e->pool, q->h[set]);
    e->stage_s[DF_STAGE_PREPARE] += df_now() - t0;
    q->n--;
    memmove(q->set, q->set + 1, q->n * sizeof *q->set);
    return set;
}

/* The batch checked last, not yet recorded: with DF_SETS_DEFER sets or
 * more it is recorded while the GPU runs the next one, and the batch after those
 * started in its set (pending_meanwhile). rc and after: the recording's
 * outcome so far and the first index not recorded. */
typedef struct pending {
    df_engine *e;
    ahead_queue *q;
    df_totals *t;
    uint64_t *j, hi;
    double deadline;
    int has, dead;    /* a batch waits; the backend died in its check */
    size_t set, n;
    uint64_t lo;
    int rc;
    uint64_t after;
    int ran;          /* pending_meanwhile ran in this check */
} pending;

/* Records the pending batch, if there is one and nothing failed before. */
static void pending_record(pending *p)
{
    if (!p->has || p->rc != DF_RANGE_DONE)
        return;
    p->has = 0;
    p->rc = df_record_batch(p->e, p->e->slots + p->set * p->e->batch, p->lo, p->n, p->dead, p->t,
                         &p->after);
}

/* check_batch's meanwhile: the pending batch recorded and the batch at *j
 * started in its set, while the GPU runs the batch after it; once a check
 * (later calls do nothing). */
static void pending_meanwhile(void *ctx)
{
    pending *p = ctx;
    if (p->ran)
        return;
    p->ran = 1;
    if (!p->has)
        return;
    size_t set = p->set;
    pending_record(p);
    if (p->rc == DF_RANGE_DONE)
        begin_ahead(p->e, p->q, set, p->j, p->hi, p->deadline);
}

/* Pipelined batches, e->nsets sets of slots in a ring: while one batch
 * runs on the backend and is judged, the pool's other threads generate
 * and reference the next in another set. With DF_SETS_DEFER sets or more
 * (the GPU generates), the batch before it is recorded while the GPU runs
 * it, and the set that frees starts the batch nsets - 1 after (whose
 * generation on the GPU takes longer than the pool's referencing of a
 * batch). With fewer, a
 * batch is recorded right after its check and its set starts the next one
 * to make (two or three after it). Only that: a kernel runs (on the GPU,
 * or as the host backend's model) in the batch being checked, whose
 * indices the heartbeat names, so a crash or hang is blamed on the right
 * batch. A batch made ahead for nothing (the backend died, the deadline
 * came) is dropped unrecorded: making it has no effect outside its slots. */
static int pipelined_range(df_engine *e, uint64_t lo, uint64_t hi, double deadline,
                           df_totals *t, uint64_t *next)
{
    ahead_queue q = {.n = 0};
    for (size_t set = 0; set < DF_SETS_MAX; set++)
        q.sh[set] = -1;
    uint64_t j = lo;
    for (size_t set = 0; set < e->nsets && begin_ahead(e, &q, set, &j, hi, deadline); set++)
        ;
    pending p = {.e = e, .q = &q, .t = t, .j = &j, .hi = hi, .deadline = deadline,
                 .rc = DF_RANGE_DONE, .after = lo};
    int defer = e->nsets >= DF_SETS_DEFER, rc = DF_RANGE_DONE;
    while (q.n && rc == DF_RANGE_DONE) {
        size_t set = join_oldest(e, &q);
        /* the set the next batch goes into: its shapes and streams are free */
        if (!defer || p.has)
            shapes_ahead(e, &q, defer ? p.set : set, j, hi, deadline);
        e->cur = q.jb[set].slots;
        /* the batch after it, which df_stage_next may lay out and stage */
        e->next = q.n ? q.jb[q.set[0]].slots : NULL;
        e->nnext = q.n ? q.jb[q.set[0]].n : 0;
        e->next_loop = q.n ? &q.h[q.set[0]] : NULL;
        p.ran = 0;
        int dead = check_batch(e, q.lo[set], q.jb[set].n, 1, defer ? pending_meanwhile : NULL,
                               &p);
        pending_record(&p); /* the backend died before pending_meanwhile */
        if ((rc = p.rc) != DF_RANGE_DONE)
            break;          /* this batch is not recorded */
        p.has = 1;          /* this batch waits now */
        p.dead = dead;
        p.set = set;
        p.n = q.jb[set].n;
        p.lo = q.lo[set];
        if (defer && !dead && !df_stopping(e, deadline))
            continue;       /* recorded during the next check */
        pending_record(&p);
        rc = p.rc;
        if (rc == DF_RANGE_DONE && df_stopping(e, deadline))
            rc = DF_RANGE_STOPPED;
        else if (rc == DF_RANGE_DONE)
            begin_ahead(e, &q, set, &j, hi, deadline);
    }
    e->next = NULL;
    e->lay.slots = NULL; /* laid out for a batch that will not run */
    pending_record(&p); /* the last batch, when nothing came after it */
    if (rc == DF_RANGE_DONE)
        rc = p.rc;
    if (rc == DF_RANGE_DONE && j < hi)
        rc = DF_RANGE_STOPPED; /* stopped before the batch at j */
    while (q.n) /* made for nothing: dropped */
        join_oldest(e, &q);
    for (size_t set = 0; set < DF_SETS_MAX; set++)
        (void)shapes_join(e, &q, set, 0, 0);
    *next = p.after;
    return rc;
}

int df_engine_range(df_engine *e, uint64_t lo, uint64_t hi, double deadline,
                    df_totals *t, uint64_t *next)
{
    double now = df_now();
    df_trace(DF_TR_RANGE, DF_TRACE_CALLER, lo, now, now);
    if (e->batch <= 1)
        return df_one_at_a_time(e, lo, hi, deadline, t, next);
    if (df_batch_alloc(e) != 0) {
        *next = lo;
        return DF_RANGE_ENV;
    }
    if (e->pipelined && lo < hi)
        return pipelined_range(e, lo, hi, deadline, t, next);
    uint64_t i = lo;
    int rc = DF_RANGE_DONE;
    e->cur = e->slots;
    while (i < hi && rc == DF_RANGE_DONE) {
        if (df_stopping(e, deadline)) {
            rc = DF_RANGE_STOPPED;
            break;
        }
        size_t n = batch_len(e, i, hi);
        name_batch(e, e->cur, i, n);
        int dead = check_batch(e, i, n, 0, NULL, NULL);
        rc = df_record_batch(e, e->cur, i, n, dead, t, &i);
    }
    *next = i;
    return rc;
}
