/* engine_layout.c — a batch's memory and its layout for the backend: how
 * many sets of slots a run takes (one; two pipelined; up to DF_SETS_MAX
 * when the GPU generates) and their allocation, a batch's cases laid out
 * kernel by kernel with the early metamorphic copies after each kernel's
 * cases, the next batch laid out, uploaded (df_upload) and staged while
 * the pool judges this one, and the batch run on the GPU with its results
 * put back into its slots. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz/backend/cuda_backend.h"
#include "fuzz/run/engine_internal.h"
#include "fuzz/run/trace.h"

/* The batch slots and what they own (their vectors, plans, and the
 * per-batch arrays sized with them). */
static void free_slots(df_engine *e)
{
    df_batch_state *bs = e->bs;
    for (size_t s = 0; s < bs->nslots; s++) {
        df_scratch_free(&bs->slots[s].buf);
        df_scratch_free(&bs->slots[s].parts);
        df_scratch_free(&bs->slots[s].rparts);
        free(bs->slots[s].vplan);
    }
    for (int h = 0; h < DF_SETS_MAX; h++) {
        for (size_t i = 0; i < bs->nplans[h]; i++)
            df_meta_plan_free(&bs->plans[h][i]);
        free(bs->plans[h]);
        bs->plans[h] = NULL;
        bs->nplans[h] = 0;
    }
    free(bs->slots);
    free(bs->lay.cptr);
    free(bs->lay.derive);
    free(bs->lay.bres);
    free(bs->lay.cref);
    memset(&bs->lay, 0, sizeof bs->lay);
    bs->next = NULL;
    free(bs->sampled);
    bs->sampled = NULL;
    free(bs->gcs);
    bs->gcs = NULL;
    free(bs->shapes);
    bs->shapes = NULL;
    free(bs->marks);
    bs->marks = NULL;
    bs->slots = NULL;
    bs->cur = NULL;
    bs->ncur = 0;
    bs->nslots = 0;
    bs->nsets = 0;
    bs->capbatch = 0;
}

/* Everything df_engine_free frees for batches: the slots, the copies' case
 * arrays, the model contexts and the CPU clocks. */
void df_batches_free(df_engine *e)
{
    df_batch_state *bs = e->bs;
    if (!bs)
        return;
    free_slots(e);
    free(bs->vref);
    free(bs->vptr);
    free(bs->vres);
    if (bs->mctx)
        for (unsigned w = 0; w < df_pool_size(e->pool); w++)
            df_model_ctx_free(&bs->mctx[w]);
    free(bs->mctx);
    free(bs->cpu_s);
    free(bs);
    e->bs = NULL;
}

/* Whether `sets` batches of the longest vectors fit in DF_PIPELINE_BYTES:
 * two vectors a case, up to 8 bytes an element. Or in 1/DF_PIPELINE_LONG_SHARE
 * of the machine's memory, and in 3/4 of the GPU's where it has one (the
 * generation's buffers, a set each; the rest for the runs' scratch and the
 * sampled cases' copies): any number of sets of short cases (a default
 * run's batches of 4096 up to 65,536 elements: 4 GiB a set at worst), two
 * or three of cases past DF_GEN_CHUNK (a batch of which alone may pass
 * it). For long cases two sets let the next batch's generation and
 * references fill the time the threads would wait for this one's
 * generation to land; a third lets the batch after it land while the pool
 * references the two in front, so that the pool does not wait for it
 * after each check. */
static int sets_fit(const df_engine *e, size_t sets)
{
    uint64_t longest = df_longest_n(e);
    if (longest <= DF_PIPELINE_BYTES / (16 * sets) / e->batch)
        return 1;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (sets < 2 || (sets > 3 && longest > DF_GEN_CHUNK) || pages <= 0 || page <= 0)
        return 0;
    uint64_t ram = (uint64_t)pages * (uint64_t)page, dev = df_backend_device_bytes(e->b);
    uint64_t per = 16 * (uint64_t)sets * e->batch; /* bytes a batch element, every set */
    return longest <= ram / DF_PIPELINE_LONG_SHARE / per && (!dev || longest <= dev / 4 * 3 / per);
}

/* Whether batches are double-buffered: threads to make the next batch
 * beside this one, and room for two batches of the longest vectors. */
static int wants_pipeline(const df_engine *e)
{
    int on = e->pipeline == DF_PIPE_ON ||
             (e->pipeline == DF_PIPE_AUTO && !df_backend_is_host(e->b));
    return on && df_pool_size(e->pool) > 1 && df_longest_n(e) > 0 && sets_fit(e, 2);
}

/* Whether the GPU generates batches: when asked (gpu, split), or (auto)
 * on cuda with double-buffered batches, where the next batch's
 * generation hides behind this one's run (with one buffer the references
 * wait for the whole batch to land; a mix of kernels splits them with the
 * CPU: wants_gen_split), or where cases may pass DF_GEN_CHUNK, which the
 * GPU makes a thread a chunk (on the CPU, their generation is most of the
 * pool's time). After bs->pipelined is set. */
static int wants_gpu_gen(const df_engine *e)
{
    int chunked = df_longest_n(e) > DF_GEN_CHUNK;
    int on = e->o->gen == DF_GEN_GPU || e->o->gen == DF_GEN_SPLIT ||
             (e->o->gen == DF_GEN_AUTO && (e->bs->pipelined || chunked) &&
              strcmp(df_backend_name(e->b), "cuda") == 0);
    /* huge cases are made on the CPU: the GPU's sets of generation buffers
     * would each grow to one */
    return on && !e->go.huge_every;
}

/* Whether each batch goes to the GPU or the CPU by df_gen_pick_gpu
 * (split, and auto with a mix of kernels, whose batches keep the GPU
 * busy with their own work): batch by batch, the generation goes where
 * the time is, so a host with CPUs to spare keeps some of it and one
 * short of them (few a GPU, or shared by a GPU's neighbours) gives the
 * GPU more. Double-buffered only (the pool's idle time a batch is the
 * signal), and never for cases past DF_GEN_CHUNK, which the GPU makes.
 * After bs->gpu_gen is set. */
static int wants_gen_split(const df_engine *e)
{
    int asked = e->o->gen == DF_GEN_SPLIT || (e->o->gen == DF_GEN_AUTO && e->nk > 1);
    return asked && e->bs->gpu_gen && e->bs->pipelined && df_longest_n(e) <= DF_GEN_CHUNK;
}

/* Sets of slots, a batch each: one; two pipelined; when the GPU generates
 * (a batch's generation, its kernel and its copy back, then starts three
 * batches ahead), three, or DF_SETS_DEFER to DF_SETS_MAX (the batch checked last then
 * recorded while the GPU runs the next: pipelined_range), as many as fit in
 * DF_PIPELINE_BYTES. After bs->pipelined and bs->gpu_gen are set. */
static size_t sets_wanted(const df_engine *e)
{
    const df_batch_state *bs = e->bs;
    if (!bs->pipelined)
        return 1;
    for (size_t sets = DF_SETS_MAX; bs->gpu_gen && sets >= DF_SETS_DEFER; sets--)
        if (sets_fit(e, sets)) /* a default run (batches of 256 up to 65536): four */
            return sets;
    return bs->gpu_gen && sets_fit(e, 3) ? 3 : 2;
}

/* The sets of slots the run takes (sets_wanted), made once and kept while
 * they fit, with the arrays sized with them. */
int df_batch_alloc(df_engine *e)
{
    if (!e->bs && !(e->bs = calloc(1, sizeof *e->bs)))
        return -1;
    df_batch_state *bs = e->bs;
    bs->pipelined = wants_pipeline(e);
    bs->gpu_gen = wants_gpu_gen(e);
    bs->gen_split = wants_gen_split(e);
    size_t sets = sets_wanted(e), want = sets * (size_t)e->batch;
    if (bs->slots && bs->nslots >= want && bs->capbatch >= e->batch) {
        bs->nsets = sets;
        return 0;
    }
    free_slots(e);
    unsigned nw = df_pool_size(e->pool);
    bs->nsets = sets;
    bs->nslots = want;
    bs->slots = calloc(want, sizeof *bs->slots);
    bs->cur = bs->slots;
    bs->ncur = 0;
    if (!bs->mctx)
        bs->mctx = calloc(nw, sizeof *bs->mctx);
    if (!bs->cpu_s)
        bs->cpu_s = calloc(nw, sizeof *bs->cpu_s);
    bs->capbatch = e->batch;
    bs->lay.cap = e->batch;
    bs->lay.cptr = calloc(e->batch, sizeof *bs->lay.cptr);
    bs->lay.bres = calloc(e->batch, sizeof *bs->lay.bres);
    bs->lay.cref = calloc(e->batch, sizeof *bs->lay.cref);
    bs->lay.derive = calloc(e->batch, sizeof *bs->lay.derive);
    bs->sampled = calloc(want, sizeof *bs->sampled);
    bs->gcs = calloc(want, sizeof *bs->gcs);
    bs->shapes = calloc(want, sizeof *bs->shapes);
    bs->marks = calloc(want, sizeof *bs->marks);
    return bs->slots && bs->mctx && bs->lay.cptr && bs->lay.bres && bs->lay.cref &&
                   bs->lay.derive && bs->cpu_s && bs->sampled && bs->gcs && bs->shapes &&
                   bs->marks
               ? 0
               : -1;
}

/* Room for cap cases in one set of a batch's case arrays: slot and copy,
 * case pointer, result (cref, cptr and bres, or vref, vptr and vres).
 * Returns 0, or -1 out of memory (the arrays that grew stay valid). */
int df_grow_cases(df_vref **ref, const df_case ***cases, df_result **res, size_t cap)
{
    df_vref *v = realloc(*ref, cap * sizeof *v);
    if (v)
        *ref = v;
    const df_case **p = realloc(*cases, cap * sizeof *p);
    if (p)
        *cases = p;
    df_result *r = realloc(*res, cap * sizeof *r);
    if (r)
        *res = r;
    return v && p && r ? 0 : -1;
}

/* L's room for need cases. Returns 0, or -1 out of memory. */
static int cases_reserve(df_layout *L, size_t need)
{
    if (need <= L->cap)
        return 0;
    size_t cap = need + need / 4;
    if (df_grow_cases(&L->cref, &L->cptr, &L->bres, cap) != 0)
        return -1;
    df_derive *d = realloc(L->derive, cap * sizeof *d);
    if (!d)
        return -1;
    L->derive = d;
    L->cap = cap;
    return 0;
}

/* The metamorphic copies of slot sl made before its run (df_early_copies),
 * which run in its kernel's launch after the batch's cases: all but a
 * schedule rerun, which runs alone (gpu_variants). */
static size_t early_count(const df_slot *sl)
{
    return sl->copies == DF_COPIES_PREPPED && sl->plan && !sl->gen_failed
               ? df_meta_plan_early(sl->plan)
               : 0;
}

#define DF_CREF_CASE UINT32_MAX /* a cref entry that is the slot's case, not a copy */

/* How far ahead the caller's passes over a batch's slots fetch them: a
 * slot another core just wrote is a cache miss, and eight in flight
 * overlap their waits. */
#define DF_SLOT_AHEAD 8

/* The first three cache lines of slot s of n (its case and flags), when
 * there is one. */
static inline void prefetch_slot(const df_slot *sl, size_t s, size_t n)
{
    if (s < n) {
        __builtin_prefetch((const char *)&sl[s]);
        __builtin_prefetch((const char *)&sl[s] + 64);
        __builtin_prefetch((const char *)&sl[s] + 128);
    }
}

/* Lays out the batch of n slots sl in L (df_layout): a pass over the slots
 * to count, another to place (a batch's slots are megabytes: each pass is a
 * cache miss a slot). The early copies are left out where L has no room
 * for them (they then run after the batch: gpu_variants). Not staged. */
static void lay_out(df_engine *e, df_layout *L, df_slot *sl, size_t n)
{
    size_t nmain[DF_RUN_MAX_KERNELS] = {0}, ncopy[DF_RUN_MAX_KERNELS] = {0}, need = 0;
    size_t at_main[DF_RUN_MAX_KERNELS], at_copy[DF_RUN_MAX_KERNELS];
    for (size_t s = 0; s < n; s++) {
        prefetch_slot(sl, s + DF_SLOT_AHEAD, n);
        if (!sl[s].gen_failed) {
            size_t c = early_count(&sl[s]);
            nmain[sl[s].ki]++;
            ncopy[sl[s].ki] += c;
            need += 1 + c;
        }
    }
    int copies = cases_reserve(L, need) == 0;
    L->base[0] = 0;
    for (size_t ki = 0; ki < e->nk; ki++) {
        at_main[ki] = L->base[ki];
        at_copy[ki] = L->base[ki] + nmain[ki];
        L->base[ki + 1] = at_copy[ki] + (copies ? ncopy[ki] : 0);
    }
    for (size_t s = 0; s < n; s++) {
        prefetch_slot(sl, s + DF_SLOT_AHEAD, n);
        if (sl[s].gen_failed)
            continue;
        size_t ki = sl[s].ki, j = at_main[ki]++;
        L->cptr[j] = &sl[s].c;
        L->cref[j] = (df_vref){(uint32_t)s, DF_CREF_CASE};
        L->derive[j] = (df_derive){NULL, DF_DERIVE_NONE, 0};
        for (size_t v = 0, nv = copies ? early_count(&sl[s]) : 0; v < nv; v++) {
            j = at_copy[ki]++;
            L->cptr[j] = &sl[s].plan->var[v];
            L->cref[j] = (df_vref){(uint32_t)s, (uint32_t)v};
            L->derive[j] = df_meta_plan_derive(&sl[s].c, sl[s].plan, v);
        }
    }
    L->slots = sl;
    L->n = n;
    L->ticket = 0;
}

/* The batch in slots sl, prepared, to the device: its set's upload buffer
 * (df_upload), once, before the staging of its first part, which then
 * finds its vectors there. A failed start leaves them to each part's
 * staging, and the rest of the run without uploads. */
static void upload_batch(df_engine *e, const df_slot *sl)
{
    df_batch_state *bs = e->bs;
    size_t h = df_set_of(e, sl);
    df_upload *u = &bs->upload[h];
    if (!u->pending)
        return;
    u->pending = 0;
    bs->upload_want = u->want;
    size_t used = u->used < u->cap ? u->used : u->cap;
    char err[160];
    if (used && df_backend_upload_start(e->b, (int)h, used, err, sizeof err) != 0) {
        fprintf(stderr, "dotfuzz run: a batch's upload failed (%s); each kernel's part "
                        "stages its own cases\n", err);
        bs->upload_off = 1;
    }
}

/* Pipelined: while the pool judges the batch in front, the caller lays
 * out the next one (bs->next) and has the backend plan and stage its first
 * kernel's cases (df_backend_stage_batch), once the pool has prepared it
 * (its generation, references and early copies are in its slots, and
 * nothing changes them before its run; with fewer than DF_SETS_DEFER
 * sets, only a batch prepared already): at n = 2000 the plan and staging
 * are most of the GPU stage, which would otherwise put them on the
 * caller's path between two batches' runs. The same layout and staging as
 * df_run_gpu's own, so the same run.
 * Called when the backend has run the batch in front and its copies, and
 * runs nothing before the next batch (which would drop the staging). */
void df_stage_next(df_engine *e)
{
    df_batch_state *bs = e->bs;
    if (!bs->next || bs->nnext == 0)
        return;
    double t0 = df_now();
    if (!df_pool_done(e->pool, *bs->next_loop)) {
        /* with DF_SETS_DEFER sets or more nothing else waits for this
         * check's end: the next batch's wait comes first either way (and
         * the caller helps it along); with fewer, the recording and
         * restarting of this set do */
        if (bs->nsets < DF_SETS_DEFER)
            return;
        df_pool_wait(e->pool, *bs->next_loop);
        *bs->next_loop = -1; /* joined: join_oldest has nothing left to wait on */
    }
    df_layout *L = &bs->lay; /* the batch in front's results are in its slots */
    lay_out(e, L, bs->next, bs->nnext);
    upload_batch(e, bs->next);
    for (size_t ki = 0; ki < e->nk; ki++)
        if (L->base[ki + 1] > L->base[ki]) {
            L->ticket = df_backend_stage_batch(e->b, e->kernels[ki], L->cptr + L->base[ki],
                                               L->derive + L->base[ki],
                                               L->base[ki + 1] - L->base[ki],
                                               L->bres + L->base[ki]);
            L->ticket_ki = ki;
            break;
        }
    df_trace(DF_TR_NEXT, DF_TRACE_CALLER, bs->next[0].c.index, t0, df_now());
}

/* A kernel's run results (bres, done of them, its cases in ref's order)
 * into their slots and copies: the batch's copy loop, for the pool. */
typedef struct results_job {
    df_slot *sl;
    const df_vref *ref;
    const df_result *bres;
    size_t done;
    int rc;
} results_job;

/* results an item; a kernel's results go on the pool from 1024 of them
 * (eight items), as the cuda backend's plan and finish do theirs */
enum { RESULTS_ITEM = 128, RESULTS_POOL_ITEMS = 8 };

static void results_item(void *ctx, size_t i, unsigned w)
{
    (void)w;
    const results_job *rj = ctx;
    const df_vref *ref = rj->ref;
    size_t hi = (i + 1) * RESULTS_ITEM < rj->done ? (i + 1) * RESULTS_ITEM : rj->done;
    for (size_t j = i * RESULTS_ITEM; j < hi; j++) {
        if (j + DF_SLOT_AHEAD < hi && ref[j + DF_SLOT_AHEAD].var == DF_CREF_CASE) {
            /* the lines df_result_copy writes, of a slot another core wrote */
            df_result *ahead = &rj->sl[ref[j + DF_SLOT_AHEAD].slot].r.res;
            __builtin_prefetch(&ahead->f, 1);
            __builtin_prefetch(&ahead->soft_mask, 1);
        }
        df_slot *c = &rj->sl[ref[j].slot];
        if (ref[j].var == DF_CREF_CASE) {
            df_result_copy(&c->r.res, &rj->bres[j]);
            c->ran = 1;
        } else {
            df_result_copy(&c->plan->out[ref[j].var].res, &rj->bres[j]);
            c->plan->ran[ref[j].var] = rj->rc != 0 && j + 1 == rj->done ? -1 : 1;
        }
    }
}

/* The cuda backend's part: each kernel's cases of the batch in one part
 * (df_backend_part_start), and after them the copies made before the run
 * (when memory allows), so that they need no launch, copy and
 * synchronization of their own after the batch's: the same cases on the
 * same data, in another launch. The parts are in flight side by side,
 * the next kernel's planned, staged and issued while the device runs the
 * earlier ones', and all end before their results go into the slots.
 * Copies that a failed run would not have had (df_meta_plan_settle) run
 * too and are dropped with their results; gpu_variants runs the copies
 * left. The layout (lay_out) is the one made ahead (df_stage_next) when it
 * is this batch's, its first kernel staged in the backend already.
 * meanwhile(ctx), when not NULL, runs once the backend has as many parts
 * in flight as it takes (or all of them). Returns 0, or -1 when the
 * context died (slots and copies that ran keep results). */
int df_run_gpu(df_engine *e, size_t n, void (*meanwhile)(void *ctx), void *ctx)
{
    df_batch_state *bs = e->bs;
    df_slot *sl = bs->cur;
    df_layout *L = &bs->lay;
    if (L->slots != sl || L->n != n) /* not laid out ahead (df_stage_next) */
        lay_out(e, L, sl, n);
    upload_batch(e, sl); /* uploaded ahead with its layout: nothing now */
    L->slots = NULL; /* run: no batch is laid out ahead now */
    size_t done[DF_RUN_MAX_KERNELS] = {0};
    int rc[DF_RUN_MAX_KERNELS] = {0};
    unsigned ahead = df_backend_parts_in_flight(e->b), started = 0;
    int failed = 0;
    for (size_t ki = 0; ki < e->nk && !failed; ki++) {
        size_t m = L->base[ki + 1] - L->base[ki];
        if (m == 0)
            continue;
        /* a kernel's seconds: its part's planning, staging and issue, and
         * the wait for the part whose lane it takes */
        double t0 = df_now();
        df_backend_part_start(e->b, e->kernels[ki], L->cptr + L->base[ki],
                              L->derive + L->base[ki], m, L->bres + L->base[ki], &done[ki],
                              &rc[ki], L->ticket && L->ticket_ki == ki ? L->ticket : 0);
        bs->kernel_s[ki] += df_now() - t0;
        /* no part after one that failed (its own start, or a later one
         * that ended it): the kernels after the culprit's never run, as
         * the recording expects */
        for (size_t kj = 0; kj <= ki; kj++)
            failed |= rc[kj] != 0;
        if (meanwhile && ++started == ahead) {
            meanwhile(ctx);
            meanwhile = NULL;
        }
    }
    if (meanwhile)
        meanwhile(ctx);
    double t0 = df_now();
    df_backend_parts_end(e->b);
    bs->parts_end_s += df_now() - t0;
    int dead = 0;
    for (size_t ki = 0; ki < e->nk; ki++) {
        /* on the pool for a large batch: this loop is on the caller's path
         * between the GPU's run and the judgement (thousands of results a
         * batch at n = 2000); each slot or copy is written by one item */
        results_job rj = {sl, L->cref + L->base[ki], L->bres + L->base[ki], done[ki], rc[ki]};
        size_t items = (done[ki] + RESULTS_ITEM - 1) / RESULTS_ITEM;
        df_pool_for(items >= RESULTS_POOL_ITEMS ? e->pool : NULL, items, results_item, &rj);
        dead |= rc[ki] != 0;
    }
    return dead ? -1 : 0;
}
