/* engine_judge.c — a batch's cases modelled and judged on the pool's
 * threads: the host backend's run (its model), the cuda backend's model
 * beside the GPU run, each case's judgement and the mark its recording
 * reads, DF_TIMED_GROUP cases an item. */
#include "fuzz/run/engine_internal.h"

/* The host backend's run, or the cuda backend's model beside it. */
static void model_slot(void *ctx, size_t s, unsigned w)
{
    df_job *jb = ctx;
    df_engine *e = jb->e;
    df_batch_state *bs = e->bs;
    df_slot *sl = &jb->slots[s];
    const df_kernel *k = e->kernels[sl->ki];
    if (sl->gen_failed)
        return;
    int host = df_backend_is_host(e->b);
    if (!host && sl->ran && sl->modelled) {
        sl->r.model_ran = 1; /* made beside the GPU run (df_premodel_slot): no time */
        return;
    }
    double t0 = df_now();
    if (host) {
        df_run_model(&bs->mctx[w], k, 1, &sl->c, &sl->r.res);
        sl->ran = 1;
    } else if (sl->ran && k->host_model && (k->flags & DF_K_DETERMINISTIC)) {
        df_run_model(&bs->mctx[w], k, 0, &sl->c, &sl->r.model);
        sl->r.model_ran = 1;
    }
    (void)df_spent(e, w, DF_CPU_MODEL, t0, sl->c.index);
}

/* cuda backend: a case's model for the model-match rule, made on the pool
 * by prepare_group (short cases) or while the caller runs the batch on the
 * GPU (the rest): it needs the case alone, not the GPU's result. Used when
 * the GPU ran the case (model_slot). */
void df_premodel_slot(void *ctx, size_t s, unsigned w)
{
    df_job *jb = ctx;
    df_engine *e = jb->e;
    df_slot *sl = &jb->slots[s];
    const df_kernel *k = e->kernels[sl->ki];
    if (sl->gen_failed || sl->modelled || !k->host_model || !(k->flags & DF_K_DETERMINISTIC))
        return;
    double t0 = df_now();
    df_run_model(&e->bs->mctx[w], k, 0, &sl->c, &sl->r.model);
    sl->modelled = 1;
    (void)df_spent(e, w, DF_CPU_MODEL, t0, sl->c.index);
}

/* Model and judgement of one case, while its vectors are in cache, and
 * its mark: quick when its recording is the mark alone (judged ok or
 * nondeterministic, nothing to save, no metamorphic checks to finish). */
static void judge_slot(df_job *jb, size_t s)
{
    df_engine *e = jb->e;
    df_slot *sl = &jb->slots[s];
    df_mark *mk = &e->bs->marks[df_set_of(e, jb->slots) * e->batch + s];
    mk->quick = 0;
    sl->r.perturbed = 0;
    if (sl->ran)
        df_judge(e->kernels[sl->ki], &sl->c, &sl->r.refs, &sl->r.res,
                 sl->r.model_ran ? &sl->r.model : NULL, &e->oo, &sl->r.j);
    if (sl->ran && !sl->gen_failed) {
        *mk = df_mark_of(e, sl->ki, &sl->c, &sl->r);
        mk->quick = (sl->r.j.verdict == DF_V_OK || sl->r.j.verdict == DF_V_NONDET) &&
                    !df_meta_sampled(&e->o->meta, &sl->c);
    }
}

/* Model (on the host backend, its run) and judgement of slot s, with its
 * mark. */
void df_finish_slot(void *ctx, size_t s, unsigned w)
{
    df_job *jb = ctx;
    model_slot(ctx, s, w);
    double t0 = df_now();
    judge_slot(jb, s);
    (void)df_spent(jb->e, w, DF_CPU_JUDGE, t0, jb->slots[s].c.index);
}

/* df_finish_slot for DF_TIMED_GROUP cases from g's first: their models (each
 * timed where one is made), then their judgements, timed together. */
void df_finish_group(void *ctx, size_t g, unsigned w)
{
    df_job *jb = ctx;
    size_t lo, hi = df_timed_group(g, jb->n, &lo);
    for (size_t s = lo; s < hi; s++)
        model_slot(ctx, s, w);
    double t0 = df_now();
    for (size_t s = lo; s < hi; s++)
        judge_slot(jb, s);
    (void)df_spent(jb->e, w, DF_CPU_JUDGE, t0, jb->lo + lo);
}
