/* engine_meta.c — a batch's metamorphic checks: the sampled cases'
 * copies planned, made, referenced (side by side, a few at a time),
 * modelled, run (the host backend's model, or the GPU) and judged. On the
 * cuda path the copies are made in the prepare stage, before their case's
 * run (a long case's copies an item each), run in the batch's own launch,
 * and judged while the pool judges the batch (df_finish_overlapped). */
#include <sched.h>
#include <string.h>

#include "fuzz/run/engine_internal.h"

static void copy_prep(df_engine *e, const df_kernel *k, df_meta_plan *p, size_t v, unsigned w);
static void copy_model(df_engine *e, const df_kernel *k, df_meta_plan *p, size_t v, unsigned w);

/* Copies' references, gathered up to DF_COPY_GROUP at a time and made side
 * by side (df_refs_compute_many: the same values as one at a time, and a
 * copy's Kahan sum no longer runs alone); reruns need none, and a negated
 * copy's follow from the case's own (df_meta_plan_refs_derived). Eight: a
 * batch of 256 has about 48 copies, which the host backend shares out
 * DF_COPY_GROUP an item. */
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
 * side: a copy's Kahan sum alone is one long chain of dependent
 * additions). */
void df_early_copies(df_engine *e, df_slot *sl, int whole, unsigned w,
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
    double t1 = df_spent(e, w, DF_CPU_GENERATE, t0, sl->c.index);
    copy_refs cr = {.m = 0};
    for (size_t v = 0; whole && v < sl->plan->nvar; v++) {
        if (sl->plan->kind[v] == DF_META_PERMUTE)
            df_meta_permuted_add(pg, sl->plan, v);
        else
            copy_refs_add(&cr, sl->plan, v);
    }
    copy_refs_flush(&cr);
    (void)df_spent(e, w, DF_CPU_REFS, t1, sl->c.index);
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
    (void)df_spent(e, w, DF_CPU_GENERATE, t0, sl->c.index);
    if (__atomic_sub_fetch(&sl->plan->perm_left, 1, __ATOMIC_ACQ_REL) == 0)
        copy_prep(e, e->kernels[sl->ki], sl->plan, v, w);
}

/* A long sampled case's copy of one kind (negate, scale, permute: item i
 * of those after the slots, df_copy_items_each a case), made, referenced and
 * modelled once the case is ready; nothing when the case has no such
 * copy. A permute copy of a case past DF_GEN_CHUNK is made by the items
 * after those three, a chunk each (permute_chunk). The slots' items come
 * first from the pool's counter, so the case is being prepared by then. */
void df_copy_item(df_job *jb, size_t i, unsigned w)
{
    static const int kinds[DF_SPLIT_COPIES] = {DF_META_NEGATE, DF_META_SCALE, DF_META_PERMUTE};
    df_engine *e = jb->e;
    size_t each = df_copy_items_each(jb), r = i % each;
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
            (void)df_spent(e, w, DF_CPU_GENERATE, t0, sl->c.index);
            copy_prep(e, e->kernels[sl->ki], p, v, w);
        }
    }
}

static void plan_slot(void *ctx, size_t s, unsigned w)
{
    (void)w;
    df_engine *e = ctx;
    df_slot *sl = &e->bs->cur[s];
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
    df_batch_state *bs = e->bs;
    int rc = 0;
    for (size_t s = 0; s < n; s++) {
        df_slot *sl = &bs->cur[s];
        sl->planned = sl->ran && !sl->gen_failed && df_meta_sampled(&e->o->meta, &sl->c);
        if (sl->planned && !sl->plan)
            rc = -1;
    }
    if (rc != 0)
        for (size_t s = 0; s < n; s++)
            bs->cur[s].planned = 0;
    return rc;
}

static int vref_reserve(df_engine *e, size_t need)
{
    df_batch_state *bs = e->bs;
    if (need <= bs->capvref)
        return 0;
    size_t cap = need + need / 2 + 16;
    if (df_grow_cases(&bs->vref, &bs->vptr, &bs->vres, cap) != 0)
        return -1;
    bs->capvref = cap;
    return 0;
}

static int collect_variants(df_engine *e, size_t n)
{
    df_batch_state *bs = e->bs;
    size_t need = 0;
    for (size_t s = 0; s < n; s++)
        need += bs->cur[s].planned ? bs->cur[s].plan->nvar : 0;
    if (vref_reserve(e, need) != 0)
        return -1;
    bs->nvref = 0;
    for (size_t s = 0; s < n; s++)
        for (size_t v = 0; bs->cur[s].planned && v < bs->cur[s].plan->nvar; v++)
            bs->vref[bs->nvref++] = (df_vref){(uint32_t)s, (uint32_t)v};
    return 0;
}

/* Host backend: the references of variants [i g, i g + g) of the batch,
 * g = bs->vref_group. */
static void variant_refs(void *ctx, size_t i, unsigned w)
{
    (void)w;
    df_engine *e = ctx;
    df_batch_state *bs = e->bs;
    size_t lo = i * bs->vref_group, hi = lo + bs->vref_group < bs->nvref ? lo + bs->vref_group
                                                                      : bs->nvref;
    copy_refs cr = {.m = 0};
    for (size_t j = lo; j < hi; j++)
        copy_refs_add(&cr, bs->cur[bs->vref[j].slot].plan, bs->vref[j].var);
    copy_refs_flush(&cr);
}

/* Host backend: a variant runs as the host model, on any thread. */
static void host_variant(void *ctx, size_t i, unsigned w)
{
    df_engine *e = ctx;
    df_batch_state *bs = e->bs;
    df_slot *sl = &bs->cur[bs->vref[i].slot];
    df_meta_plan *p = sl->plan;
    size_t v = bs->vref[i].var;
    const df_kernel *k = e->kernels[sl->ki];
    df_run_model(&bs->mctx[w], k, 1, &p->var[v], &p->out[v].res);
    p->ran[v] = 1;
    if (p->kind[v] != DF_META_RERUN)
        df_meta_plan_judge(k, &e->oo, p, v);
}

/* cuda backend: a copy's model (deterministic kernels) and judgement. */
static void judge_variant(void *ctx, size_t i, unsigned w)
{
    df_engine *e = ctx;
    df_batch_state *bs = e->bs;
    df_slot *sl = &bs->cur[bs->vref[i].slot];
    df_meta_plan *p = sl->plan;
    size_t v = bs->vref[i].var;
    const df_kernel *k = e->kernels[sl->ki];
    if (p->kind[v] == DF_META_RERUN || p->ran[v] == 0)
        return;
    df_checked *o = &p->out[v];
    if (p->ran[v] != 1) {
        o->model_ran = 0; /* the backend died on it: judged without the model */
    } else if (!o->model_ran && k->host_model && (k->flags & DF_K_DETERMINISTIC)) {
        double t0 = df_now();
        df_run_model(&bs->mctx[w], k, 0, &p->var[v], &o->model);
        o->model_ran = 1;
        (void)df_spent(e, w, DF_CPU_MODEL, t0, p->var[v].index);
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
    df_run_model(&e->bs->mctx[w], k, 0, &p->var[v], &p->out[v].model);
    p->out[v].model_ran = 1;
    (void)df_spent(e, w, DF_CPU_MODEL, t0, p->var[v].index);
}

/* cuda backend: a copy's references and its model, made on the pool
 * (a long case's copy an item of its own). */
static void copy_prep(df_engine *e, const df_kernel *k, df_meta_plan *p, size_t v, unsigned w)
{
    if (p->kind[v] == DF_META_RERUN)
        return;
    double t0 = df_now();
    df_meta_plan_refs(p, v);
    (void)df_spent(e, w, DF_CPU_REFS, t0, p->var[v].index);
    copy_model(e, k, p, v, w);
}

static void variant_prep(void *ctx, size_t i, unsigned w)
{
    df_engine *e = ctx;
    df_batch_state *bs = e->bs;
    df_slot *sl = &bs->cur[bs->vref[i].slot];
    if (sl->copies != DF_COPIES_PREPPED)
        copy_prep(e, e->kernels[sl->ki], sl->plan, bs->vref[i].var, w);
}

/* The batch's schedule reruns that have not run, one at a time (each
 * perturbs the whole GPU around its own launch). Returns 0, or -1 when
 * the context died on one. */
static int gpu_schedule_reruns(df_engine *e)
{
    df_batch_state *bs = e->bs;
    for (size_t i = 0; i < bs->nvref; i++) {
        df_slot *sl = &bs->cur[bs->vref[i].slot];
        size_t v = bs->vref[i].var;
        df_meta_plan *p = sl->plan;
        if (p->kind[v] != DF_META_SCHEDULE || p->ran[v] != 0)
            continue;
        df_checked *o = &p->out[v];
        int rc = df_backend_run(e->b, e->kernels[sl->ki], &p->var[v], &o->res, &o->model,
                                &o->model_ran);
        p->ran[v] = rc != 0 ? -1 : 1;
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Every variant of the batch through the GPU, a kernel at a time, then
 * the schedule reruns. Returns 0, or -1 when the context died (variants
 * after that one did not run). */
static int gpu_variants(df_engine *e)
{
    df_batch_state *bs = e->bs;
    for (size_t ki = 0; ki < e->nk; ki++) {
        size_t m = 0;
        for (size_t i = 0; i < bs->nvref; i++) {
            df_slot *sl = &bs->cur[bs->vref[i].slot];
            size_t v = bs->vref[i].var;
            if (sl->ki == ki && sl->plan->ran[v] == 0 && sl->plan->kind[v] != DF_META_SCHEDULE)
                bs->vptr[m++] = &sl->plan->var[v];
        }
        if (m == 0)
            continue;
        size_t done = 0;
        double t0 = df_now();
        int rc = df_backend_run_batch(e->b, e->kernels[ki], bs->vptr, NULL, m, bs->vres, &done,
                                      NULL, NULL, 0);
        bs->kernel_s[ki] += df_now() - t0;
        for (size_t i = 0, j = 0; i < bs->nvref && j < done; i++) {
            df_slot *sl = &bs->cur[bs->vref[i].slot];
            size_t v = bs->vref[i].var;
            if (sl->ki != ki || sl->plan->ran[v] != 0 || sl->plan->kind[v] == DF_META_SCHEDULE)
                continue;
            df_result_copy(&sl->plan->out[v].res, &bs->vres[j++]);
            sl->plan->ran[v] = rc != 0 && j == done ? -1 : 1;
        }
        if (rc != 0)
            return -1;
    }
    return gpu_schedule_reruns(e);
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
int df_batch_metamorphic(df_engine *e, size_t n)
{
    df_batch_state *bs = e->bs;
    if (make_copies(e, n) != 0)
        return -1;
    bs->vref_group = df_longest_n(e) <= DF_PREP_GROUP_MAX_N ? DF_COPY_GROUP : 1;
    df_pool_for(e->pool, (bs->nvref + bs->vref_group - 1) / bs->vref_group, variant_refs, e);
    df_pool_for(e->pool, bs->nvref, host_variant, e);
    return 0;
}

/* cuda backend: the batch's judgement (df_finish_slot; its models were made
 * beside the GPU run), and its metamorphic checks, overlapped: the copies
 * were made in the prepare stage (df_early_copies: they need the first run's
 * status and G, not its judgement) and are settled now, then the pool
 * judges the batch and references and models the copies (those the
 * prepare stage left) while the caller runs on the GPU the copies that
 * did not run in the batch's launch (df_run_gpu), then lays out and stages
 * the next batch (df_stage_next); the copies are judged last. The same work,
 * on the same data, as judging the batch and then checking its copies one
 * step after another, so the same verdicts. Returns 0, or -1 when the
 * context died or out of memory. */
int df_finish_overlapped(df_engine *e, size_t n, df_job *jb)
{
    df_batch_state *bs = e->bs;
    double t0 = df_now();
    size_t ng = df_timed_groups(n); /* jb->n is n */
    if (make_copies(e, n) != 0) {
        df_pool_for(e->pool, ng, df_finish_group, jb);
        return -1;
    }
    double t1 = df_now();
    int hf = df_pool_begin(e->pool, ng, df_finish_group, jb);
    int hr = df_pool_begin(e->pool, bs->nvref, variant_prep, e);
    int rc = gpu_variants(e);
    double t2 = df_now();
    if (rc == 0)
        df_stage_next(e);
    double t3 = df_now();
    df_pool_join(e->pool, hr, bs->nvref, variant_prep, e);
    df_pool_join(e->pool, hf, ng, df_finish_group, jb);
    double t4 = df_now();
    df_pool_for(e->pool, bs->nvref, judge_variant, e);
    bs->finish_s[DF_FINISH_MAKE] += t1 - t0;
    bs->finish_s[DF_FINISH_GPU] += t2 - t1;
    bs->finish_s[DF_FINISH_NEXT] += t3 - t2;
    bs->finish_s[DF_FINISH_WAIT] += t4 - t3;
    bs->finish_s[DF_FINISH_COPIES] += df_now() - t4;
    return rc;
}
