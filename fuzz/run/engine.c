/* engine.c — the case loop of `dotfuzz run` over a range of indices: the
 * engine's setup, a batch checked stage by stage (prepared, run, modelled
 * and judged, checked metamorphically) and the pipeline of batches made
 * ahead in a ring of slot sets. The stages' work is in the other
 * fuzz/run/engine_*.c files; one case at a time and the recording are in
 * engine_record.c. One process runs it directly (no --out) or as a
 * campaign worker (fuzz/run/campaign.c). */
#include <stdlib.h>
#include <string.h>

#include "fuzz/run/engine_internal.h"
#include "fuzz/run/options.h"
#include "fuzz/run/trace.h"

/* ---- the engine ---- */

void df_engine_init(df_engine *e, const df_run_opts *o, df_backend *b,
                    const df_kernel *const *kernels, size_t nk)
{
    *e = (df_engine){.o = o, .b = b, .kernels = kernels, .nk = nk, .pipeline = o->pipeline};
    df_run_gen_opts(o, kernels, nk, &e->go); /* the family checked by df_run_select */
    e->oo.tol = o->tol;
    e->oo.terse = 1; /* an ok case's why is never shown or saved; a precision
                        case's is made again where it is saved: engine_record.c's record) */
    (void)df_trace_init(); /* DOTFUZZ_TRACE: off when it fails (it says so) */
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

void df_engine_stats_get(const df_engine *e, df_engine_stats *st)
{
    const df_batch_state *bs = e->bs;
    memset(st, 0, sizeof *st);
    if (!bs)
        return;
    memcpy(st->stage_s, bs->stage_s, sizeof st->stage_s);
    memcpy(st->finish_s, bs->finish_s, sizeof st->finish_s);
    memcpy(st->kernel_s, bs->kernel_s, sizeof st->kernel_s);
    st->parts_end_s = bs->parts_end_s;
    for (int kind = 0; kind < DF_CPU_KINDS; kind++)
        for (unsigned w = 0; bs->cpu_s && w < df_pool_size(e->pool); w++)
            st->cpu_s[kind] += bs->cpu_s[w][kind];
    st->pipelined = bs->pipelined;
    st->sets = bs->nsets;
    st->last_n = bs->ncur;
}

void df_engine_stats_reset(df_engine *e)
{
    df_batch_state *bs = e->bs;
    if (!bs)
        return;
    memset(bs->stage_s, 0, sizeof bs->stage_s);
    memset(bs->finish_s, 0, sizeof bs->finish_s);
    memset(bs->kernel_s, 0, sizeof bs->kernel_s);
    bs->parts_end_s = 0;
    if (bs->cpu_s)
        memset(bs->cpu_s, 0, df_pool_size(e->pool) * sizeof *bs->cpu_s);
}

const df_case *df_engine_last_case(const df_engine *e, size_t s, int *failed)
{
    const df_slot *sl = &e->bs->cur[s];
    *failed = sl->gen_failed;
    return &sl->c;
}

/* ---- a batch checked ---- */

/* Checks the batch bs->cur, indices [lo, lo + n) (df_record_batch records
 * it); ahead: its job when it was generated and referenced already
 * (pipelined), else NULL. meanwhile
 * (ctx), when not NULL, runs once while the GPU runs the batch, or after
 * the check where it does not. Returns 1 when the backend died, else 0. */
static int check_batch(df_engine *e, uint64_t lo, size_t n, const df_job *ahead,
                       void (*meanwhile)(void *ctx), void *ctx)
{
    df_batch_state *bs = e->bs;
    df_job jb = df_batch_job(e, bs->cur, lo, n);
    bs->ncur = n;
    if (e->hb)
        df_worker_case_begin(e->hb, lo, n);
    int dead = 0, meta_done = 0;
    double t0 = df_now(), t1, t2, aside = 0;
    if (df_backend_is_host(e->b) && !ahead) {
        jb.whole = 1; /* chunked jobs: slot_made judges each case */
        df_prepare_now(e, &jb);
        t1 = t2 = df_now();
    } else {
        if (!ahead) {
            df_gpu_generate(e, &jb, 0);
            df_prepare_now(e, &jb);
        }
        t1 = df_now();
        int gpu = !df_backend_is_host(e->b);
        /* not when prepare_group modelled them all (df_premodel_slot skips a
         * case modelled already: this loop is then a pass over the slots
         * for nothing) */
        int premodel = gpu && !df_prepare_models(&jb, (ahead ? ahead : &jb)->gen_set >= 0);
        int hm = premodel ? df_pool_begin(e->pool, n, df_premodel_slot, &jb) : -1;
        aside = bs->stage_s[DF_STAGE_RECORD] + bs->stage_s[DF_STAGE_AHEAD];
        dead = gpu && df_run_gpu(e, n, meanwhile, ctx) != 0;
        t2 = df_now();
        /* the time meanwhile took (another batch's) is not this one's */
        aside = bs->stage_s[DF_STAGE_RECORD] + bs->stage_s[DF_STAGE_AHEAD] - aside;
        if (premodel) {
            df_pool_join(e->pool, hm, n, df_premodel_slot, &jb);
            bs->finish_s[DF_FINISH_MODELS] += df_now() - t2;
        }
        if (gpu && !dead && df_meta_on(&e->o->meta)) {
            dead = df_finish_overlapped(e, n, &jb) != 0;
            meta_done = 1;
        } else {
            /* host: the model is the run */
            df_pool_for(e->pool, df_timed_groups(n), df_finish_group, &jb);
        }
    }
    if (!dead && !meta_done && df_meta_on(&e->o->meta))
        dead = df_batch_metamorphic(e, n) != 0;
    double t3 = df_now();
    bs->stage_s[DF_STAGE_PREPARE] += t1 - t0;
    bs->stage_s[DF_STAGE_GPU] += t2 - t1 - aside;
    bs->stage_s[DF_STAGE_FINISH] += t3 - t2;
    df_trace(DF_TR_PREPARE, DF_TRACE_CALLER, lo, t0, t1);
    df_trace(DF_TR_GPU, DF_TRACE_CALLER, lo, t1, t2);
    df_trace(DF_TR_FINISH, DF_TRACE_CALLER, lo, t2, t3);
    if (e->hb)
        df_worker_case_end(e->hb);
    if (meanwhile) /* runs once: nothing when df_run_gpu ran it */
        meanwhile(ctx);
    return dead;
}

/* ---- the pipeline ---- */

/* The batch from i: up to e->batch indices, but a long index (past
 * --max-n: df_gen_next_long) is a batch of its own, whose prepare items
 * make and reference its case a chunk an item on every thread
 * (df_batch_job): among short cases one thread would make it whole, for
 * a tenth of a second or more, while the others waited at the batch's end. */
static size_t batch_len(const df_engine *e, uint64_t i, uint64_t hi)
{
    size_t n = hi - i < e->batch ? (size_t)(hi - i) : e->batch;
    uint64_t l = df_gen_next_long(&e->go, i);
    if (l == i)
        return n ? 1 : 0;
    return l - i < n ? (size_t)(l - i) : n;
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
 * joins it and needs only to launch the generation, where it would
 * otherwise make a batch's shapes itself, mostly on the caller's thread
 * while the pool's are busy. */
static void shapes_ahead(df_engine *e, ahead_queue *q, size_t set, uint64_t j, uint64_t hi,
                         double deadline)
{
    df_batch_state *bs = e->bs;
    size_t m = df_gen_on_gpu(bs) && j < hi && !df_stopping(e, deadline) ? batch_len(e, j, hi) : 0;
    if (!m || q->sh[set] >= 0)
        return;
    q->shape[set] = df_batch_job(e, bs->slots + set * e->batch, j, m);
    /* not work ahead for the pool: begin_ahead needs them right after the
     * check, before the next batch's references (work ahead is served
     * after those, and the caller would wait for them) */
    q->sh[set] = df_shapes_begin(e, &q->shape[set]);
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
    df_batch_state *bs = e->bs;
    size_t m = *j < hi && !df_stopping(e, deadline) ? batch_len(e, *j, hi) : 0;
    if (!m)
        return 0;
    double t0 = df_now();
    df_slot *slots = bs->slots + set * e->batch;
    int shaped = shapes_join(e, q, set, *j, m);
    double t1 = df_now();
    df_trace(DF_TR_WAIT, DF_TRACE_CALLER, *j, t0, t1);
    df_name_batch(e, slots, *j, m);
    df_job *jb = &q->jb[set];
    *jb = df_batch_job(e, slots, *j, m); /* after the naming: its sampled cases */
    df_gpu_generate(e, jb, shaped);
    double t2 = df_now();
    df_trace(DF_TR_GENERATE, DF_TRACE_CALLER, *j, t1, t2);
    q->lo[set] = *j;
    q->h[set] = df_prepare_ahead(e, jb);
    df_trace(DF_TR_PREPARE, DF_TRACE_CALLER, *j, t2, df_now());
    q->set[q->n++] = set;
    *j += m;
    bs->stage_s[DF_STAGE_AHEAD] += df_now() - t0;
    return 1;
}

int df_gen_pick_gpu(double cycle, double idle, unsigned workers)
{
    return cycle > 0 && workers > 0 && idle < DF_GEN_SPLIT_IDLE * workers * cycle;
}

/* With bs->gen_split, once a batch: where the next batch begun is made
 * (df_gen_pick_gpu), from the pool's idle time since the last pick. */
static void gen_pick(df_engine *e)
{
    df_batch_state *bs = e->bs;
    double now = df_now(), idle = df_pool_idle_all(e->pool);
    unsigned workers = df_pool_size(e->pool) - 1; /* the caller's thread is not idle-timed */
    bs->gen_gpu_next = bs->gen_joined > 0 &&
                       df_gen_pick_gpu(now - bs->gen_joined, idle - bs->gen_idle, workers);
    bs->gen_joined = now;
    bs->gen_idle = idle;
}

/* Waits for q's oldest batch to be prepared, takes it off q and returns
 * its set. */
static size_t join_oldest(df_engine *e, ahead_queue *q)
{
    size_t set = q->set[0];
    double t0 = df_now();
    df_pool_wait(e->pool, q->h[set]);
    e->bs->stage_s[DF_STAGE_PREPARE] += df_now() - t0;
    if (e->bs->gen_split)
        gen_pick(e);
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
    df_engine *e = p->e;
    p->has = 0;
    p->rc = df_record_batch(e, e->bs->slots + p->set * e->batch, p->lo, p->n, p->dead, p->t,
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

/* Pipelined batches, bs->nsets sets of slots in a ring: while one batch
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
    df_batch_state *bs = e->bs;
    ahead_queue q = {.n = 0};
    for (size_t set = 0; set < DF_SETS_MAX; set++)
        q.sh[set] = -1;
    uint64_t j = lo;
    for (size_t set = 0; set < bs->nsets && begin_ahead(e, &q, set, &j, hi, deadline); set++)
        ;
    pending p = {.e = e, .q = &q, .t = t, .j = &j, .hi = hi, .deadline = deadline,
                 .rc = DF_RANGE_DONE, .after = lo};
    int defer = bs->nsets >= DF_SETS_DEFER, rc = DF_RANGE_DONE;
    while (q.n && rc == DF_RANGE_DONE) {
        size_t set = join_oldest(e, &q);
        /* the set the next batch goes into: its shapes and streams are free */
        if (!defer || p.has)
            shapes_ahead(e, &q, defer ? p.set : set, j, hi, deadline);
        bs->cur = q.jb[set].slots;
        /* the batch after it, which df_stage_next may lay out and stage */
        bs->next = q.n ? q.jb[q.set[0]].slots : NULL;
        bs->nnext = q.n ? q.jb[q.set[0]].n : 0;
        bs->next_loop = q.n ? &q.h[q.set[0]] : NULL;
        p.ran = 0;
        int dead = check_batch(e, q.lo[set], q.jb[set].n, &q.jb[set], defer ? pending_meanwhile : NULL,
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
    bs->next = NULL;
    bs->lay.slots = NULL; /* laid out for a batch that will not run */
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
    df_batch_state *bs = e->bs;
    for (size_t s = 0; s < bs->nslots; s++)
        df_slot_trim(e, &bs->slots[s]);
    if (bs->pipelined && lo < hi)
        return pipelined_range(e, lo, hi, deadline, t, next);
    uint64_t i = lo;
    int rc = DF_RANGE_DONE;
    bs->cur = bs->slots;
    while (i < hi && rc == DF_RANGE_DONE) {
        if (df_stopping(e, deadline)) {
            rc = DF_RANGE_STOPPED;
            break;
        }
        size_t n = batch_len(e, i, hi);
        df_name_batch(e, bs->cur, i, n);
        int dead = check_batch(e, i, n, NULL, NULL, NULL);
        rc = df_record_batch(e, bs->cur, i, n, dead, t, &i);
    }
    *next = i;
    return rc;
}
