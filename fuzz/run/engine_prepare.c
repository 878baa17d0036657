/* engine_prepare.c — a batch prepared on the pool's threads: named (its
 * indices, kernels and sampled cases' plans), generated (on the CPU, or on
 * the GPU from shapes and value streams the pool makes) and referenced, as
 * prepare items of many short cases each or of one case each; a case past
 * DF_GEN_CHUNK made by an item a chunk, past DF_REFS_CHUNK referenced by
 * an item a chunk, on cuda modelled by an item of its own before its
 * copies' items; on cuda a batch the CPU makes copied, case by case, into
 * its set's upload buffer (df_upload). */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/backend/cuda_backend.h"
#include "fuzz/run/engine_internal.h"
#include "fuzz/gen/values.h"

/* The loop over the batch of n slots from index lo in slots: the slots an
 * item takes (DF_PREP_GROUP), the long cases' chunk, part and copy items,
 * and a new epoch for the slots' marks. */
/* The longest case the batch [lo, lo + n) may hold: the run's, or a huge
 * or long case's when it holds a huge or long index (made and referenced
 * a chunk an item, on every thread). */
static uint64_t batch_longest(const df_engine *e, uint64_t lo, size_t n)
{
    if (n && df_gen_next_huge(&e->go, lo) - lo < n)
        return DF_GEN_HUGE_MAX;
    if (n && df_gen_next_long(&e->go, lo) - lo < n)
        return df_max_u64(e->go.long_n, df_longest_n(e));
    return df_longest_n(e);
}

df_job df_batch_job(df_engine *e, df_slot *slots, uint64_t lo, size_t n)
{
    df_batch_state *bs = e->bs;
    uint64_t longest = batch_longest(e, lo, n);
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
    return (df_job){e, slots, lo, n, g, bs->sampled + h * e->batch,
                    split && n ? bs->nsampled[h] : 0, -1, NULL, chunks, chunks, ++bs->epoch, 0,
                    rchunks};
}

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
static size_t copy_items(const df_job *jb) { return df_copy_items_each(jb) * jb->nsampled; }
/* A case past DF_REFS_CHUNK is referenced by items of a chunk each, after
 * the slots' items, the sampled cases' first (their copies wait for their
 * references: a sampled case referenced on one thread, then its copies on
 * three, would leave the other threads idle for much of a batch). */
static size_t refs_items(const df_job *jb) { return jb->n * jb->rchunks; }
/* cuda (not the host backend, whose model is its run), a case an item
 * (group 1: few or long cases): each case's model is an item after the
 * slots', made once the case is whole, before the copies' items (made
 * after the prepare loop, long cases' models would run beside a GPU run
 * that takes a fraction of their time; after the copies' items, they
 * would wait behind the permute chunk items, each spinning on its sampled
 * case). */
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
 * models run among the other cases' references, a few at a time (long
 * cases' models all at once each take several times as long as one
 * alone), and the copies start as soon as their case is referenced. Else
 * the parts, the models, the copies. */
enum { ITEM_REFS, ITEM_MODEL, ITEM_COPY };
static size_t slot_of_rank(const df_job *jb, size_t rank);
static int after_slots_item(const df_job *jb, size_t g, size_t *index)
{
    const size_t R = jb->rchunks, m = model_items(jb) ? 1 : 0, each = df_copy_items_each(jb);
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
 * time: a long case's references take long, and the pool's chunks of
 * several items would give one thread several of a batch's cases while
 * the rest wait in the copies' items on the sampled case. */
static void prepare_loop(df_engine *e, df_job *jb, void (*fn)(void *ctx, size_t i, unsigned w))
{
    if (jb->group == 1)
        df_pool_for_each(e->pool, prep_items(jb), fn, jb);
    else
        df_pool_for(e->pool, prep_items(jb), fn, jb);
}

/* Slot s's index and kernel, and no plan unless it is sampled (df_name_batch
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

/* A slot before its case is made (a long or huge case's vectors let go). */
static void clear_slot(const df_engine *e, df_slot *sl)
{
    df_slot_trim(e, sl);
    sl->ran = 0;
    sl->planned = 0;
    sl->modelled = 0;
    sl->copies = DF_COPIES_NONE;
    memset(&sl->r, 0, sizeof sl->r);
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
    df_batch_state *bs = e->bs;
    size_t lo, hi = df_timed_group(g, jb->n, &lo);
    double t0 = df_now();
    for (size_t s = lo; s < hi; s++) {
        size_t at = df_set_of(e, jb->slots) * e->batch + s;
        df_devgen_case *gc = &bs->gcs[at];
        df_shape *sh = &bs->shapes[at];
        uint64_t i = jb->lo + s;
        sh->failed = df_generate_shape(e->o->seed, i, e->kernels[df_run_kernel_of(i, e->nk)],
                                       &e->go, &sh->c, &gc->rng) != 0;
        gc->family = sh->c.family;
        gc->type = (uint32_t)sh->c.type;
        gc->n = sh->failed ? 0 : sh->c.n;
    }
    (void)df_spent(e, w, DF_CPU_GENERATE, t0, jb->lo + lo);
}

/* Has the GPU generate jb's cases (bs->gpu_gen, and with bs->gen_split
 * when df_gen_pick_gpu last said so): their shapes and streams (on the pool
 * now, unless shaped: made ahead by shapes_ahead), then the device fills
 * them and copies them into the set's pinned memory, which the slots'
 * vectors will point into; the prepare items wait for it to land
 * (prepare_group). Otherwise, or when the GPU cannot start, the prepare
 * items make the cases on the CPU (the same bytes). */
void df_gpu_generate(df_engine *e, df_job *jb, int shaped)
{
    df_batch_state *bs = e->bs;
    if (!df_gen_on_gpu(bs) || jb->n == 0)
        return;
    size_t h = df_set_of(e, jb->slots);
    df_devgen_case *g = bs->gcs + h * e->batch;
    if (!shaped)
        df_pool_for(e->pool, df_timed_groups(jb->n), shape_group, jb);
    size_t bytes = df_devgen_layout(g, jb->n);
    void *out = NULL;
    char err[160];
    if (df_backend_gen_start(e->b, (int)h, g, jb->n, bytes, &out, err, sizeof err) != 0) {
        fprintf(stderr, "dotfuzz run: generation on the GPU failed (%s); the CPU generates\n",
                err);
        bs->gpu_gen = 0;
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

/* Whether prepare_group models the cases of a batch prepared `group` a
 * prepare item, gpu_made: generated on the GPU. On cuda (the host
 * backend's model is its run), for short cases generated on the GPU.
 * Not a run's CPU-made cases, up to 65536 elements long, whose prepare
 * items of eight would be the loop's slowest with their models too, and
 * slow a default run down. prepare_group and check_batch ask with the
 * batch's own generation set (a batch the CPU made, the GPU's start having
 * failed or split having picked the CPU, is modelled as on the CPU). */
static int models_in_prepare(const df_engine *e, size_t group, int gpu_made)
{
    return !df_backend_is_host(e->b) && gpu_made && group > 1;
}

/* Whether jb's prepare loop models all its cases: in slots_ready (short
 * cases made on the GPU) or in model items. */
int df_prepare_models(const df_job *jb, int gpu_made)
{
    return models_in_prepare(jb->e, jb->group, gpu_made) || model_items(jb);
}

/* Slots [lo, hi) of jb made and referenced: the models of short cases
 * generated on the GPU, the sampled cases' early copies (cuda), ready. */
static void slots_ready(df_job *jb, size_t lo, size_t hi, unsigned w)
{
    df_engine *e = jb->e;
    /* generated on the GPU (short cases): each one's model now, while its
     * vectors are in this core's cache (df_premodel_slot, beside the GPU run,
     * would read them from memory again) */
    for (size_t s = lo; models_in_prepare(e, jb->group, jb->gen_set >= 0) && s < hi; s++)
        df_premodel_slot(jb, s, w);
    df_meta_permuted pg = {.m = 0};
    for (size_t s = lo; s < hi; s++)
        if (jb->slots[s].plan && !jb->slots[s].gen_failed && !df_backend_is_host(e->b))
            df_early_copies(e, &jb->slots[s], jb->nsampled == 0, w, &pg);
    if (pg.m) {
        double t0 = df_now();
        df_meta_permuted_flush(&pg);
        (void)df_spent(e, w, DF_CPU_REFS, t0, jb->slots[lo].c.index);
    }
    for (size_t s = lo; s < hi; s++) {
        __atomic_store_n(&jb->slots[s].ready, 1, __ATOMIC_RELEASE);
        __atomic_store_n(&jb->slots[s].made, jb->epoch, __ATOMIC_RELEASE);
    }
}

/* Slot s referenced: as slots_ready; the host backend's model and
 * judgement too. */
static void refs_done(df_job *jb, size_t s, unsigned w)
{
    slots_ready(jb, s, s + 1, w); /* cuda: its model is a model item */
    if (jb->whole)
        df_finish_slot(jb, s, w);
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
    (void)df_spent(e, w, DF_CPU_REFS, t0, sl->c.index);
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
        (void)df_spent(e, w, DF_CPU_REFS, t0, sl->c.index);
        return;
    }
    df_refs_merger m;
    df_refs_merge_init(&m);
    for (uint64_t i = 0; i < sl->rchunks; i++)
        df_refs_merge_add(&m, &parts[i]);
    df_refs_merge_out(&m, sl->c.type, sl->c.n, &sl->r.refs);
    (void)df_spent(e, w, DF_CPU_REFS, t0, sl->c.index);
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
    clear_slot(e, sl);
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
    (void)df_spent(e, w, DF_CPU_GENERATE, t0, sl->c.index);
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
        (void)df_spent(e, w, DF_CPU_GENERATE, t0, sl->c.index);
        slot_made(jb, s, w);
        return;
    }
    (void)df_spent(e, w, DF_CPU_GENERATE, t0, sl->c.index);
}

/* Slot s's model item (model_items), once its case is whole (filled: a
 * model needs the vectors, not the references, which part items may be
 * making meanwhile), or where no part items are, ready. */
static void model_item(df_job *jb, size_t s, unsigned w)
{
    df_slot *sl = &jb->slots[s];
    await_mark(jb->rchunks ? &sl->filled : &sl->made, jb->epoch, w, sl);
    df_premodel_slot(jb, s, w);
}

/* The slot in [lo, s) whose case slot s's is (its leader: df_gen_lead),
 * made already by this item; or s itself, whose case is its own. */
static size_t lead_slot(const df_job *jb, size_t lo, size_t s)
{
    uint64_t lead, i = jb->lo + s;
    if (!df_gen_lead(&jb->e->go, i, jb->e->kernels[df_run_kernel_of(i, jb->e->nk)], &lead) ||
        lead < jb->lo + lo)
        return s;
    size_t l = (size_t)(lead - jb->lo);
    return jb->slots[l].gen_failed ? s : l;
}

/* Slot s's case, its leader's (slot l's) but for its launch and name: the
 * shape from the generator, the values the leader's own vectors (nothing
 * writes a made case's vectors, and both slots live as long as the batch),
 * not drawn or copied again. Returns 0, or -1 (made on its own then). */
static int follow_slot(df_job *jb, size_t s, size_t l)
{
    df_engine *e = jb->e;
    df_slot *sl = &jb->slots[s];
    const df_case *lc = &jb->slots[l].c;
    df_pcg32 rng;
    if (df_generate_shape(e->o->seed, sl->c.index, e->kernels[sl->ki], &e->go, &sl->c,
                          &rng) != 0 ||
        sl->c.n != lc->n || sl->c.type != lc->type)
        return -1;
    sl->c.a = lc->a;
    sl->c.b = lc->b;
    return 0;
}

/* Slots [lo, hi) of an item (lead: each one's leader, lead_slot) into
 * their set's upload buffer (df_upload), while the vectors its references
 * read are in this core's cache: a leader's a and b copied in and pointed
 * at, a follower pointed at its leader's (placed or not). Before the
 * early copies (slots_ready), whose derive hint and b are the case's. */
static void upload_place(df_job *jb, size_t lo, size_t hi, const size_t *lead)
{
    df_upload *u = &jb->e->bs->upload[df_set_of(jb->e, jb->slots)];
    for (size_t s = lo; s < hi; s++) {
        df_slot *sl = &jb->slots[s];
        if (sl->gen_failed)
            continue;
        if (lead[s - lo] != s) { /* its leader is earlier in the item: placed already */
            sl->c.a = jb->slots[lead[s - lo]].c.a;
            sl->c.b = jb->slots[lead[s - lo]].c.b;
            continue;
        }
        size_t bytes = (size_t)sl->c.n * df_type_size(sl->c.type), span = (bytes + 63) / 64 * 64;
        if (bytes == 0)
            continue;
        __atomic_fetch_add(&u->want, 2 * span, __ATOMIC_RELAXED);
        size_t off = __atomic_fetch_add(&u->used, 2 * span, __ATOMIC_RELAXED);
        if (off > u->cap || u->cap - off < 2 * span)
            continue; /* no room left: staged by each part */
        df_copy_streaming(u->base + off, sl->c.a, bytes);
        df_copy_streaming(u->base + off + span, sl->c.b, bytes);
        sl->c.a = u->base + off;
        sl->c.b = u->base + off + span;
    }
}

/* Generation and references of item g's slots (and the models of short
 * cases on cuda). A slot whose case is another's of the item (lead_slot)
 * takes that one's values and references: the kernels next to each other
 * in the cycle that take the same cases share them. */
static void prepare_group(void *ctx, size_t g, unsigned w)
{
    df_job *jb = ctx;
    df_engine *e = jb->e;
    df_batch_state *bs = e->bs;
    if (g >= slot_items(jb)) {
        size_t i;
        switch (after_slots_item(jb, g - slot_items(jb), &i)) {
        case ITEM_REFS: refs_part_item(jb, i, w); break;
        case ITEM_MODEL: model_item(jb, i, w); break;
        default: df_copy_item(jb, i, w); break;
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
    size_t m = 0, lead[DF_PREP_GROUP];
    double t0 = df_now();
    int landed = jb->gen_set < 0 || df_backend_gen_wait(e->b, jb->gen_set) == 0;
    if (jb->gen_set >= 0)
        df_trace(DF_TR_WAIT, w, jb->lo + lo, t0, df_now());
    size_t set0 = df_set_of(e, jb->slots) * e->batch; /* the set's shapes and streams */
    for (size_t s = lo; s < hi; s++) {
        df_slot *sl = &jb->slots[s];
        if (jb->gen_set < 0) {
            name_slot(jb, s);
            clear_slot(e, sl);
            lead[s - lo] = jb->rchunks ? s : lead_slot(jb, lo, s);
            if (lead[s - lo] != s && follow_slot(jb, s, lead[s - lo]) != 0)
                lead[s - lo] = s;
            sl->gen_failed = lead[s - lo] == s &&
                             df_generate(e->o->seed, sl->c.index, e->kernels[sl->ki], &e->go,
                                         &sl->buf, &sl->c) != 0;
        } else {
            size_t at = set0 + s;
            const df_devgen_case *gc = &bs->gcs[at];
            size_t na = (size_t)gc->n * df_type_size((df_type)gc->type);
            name_slot(jb, s);
            clear_slot(e, sl);
            sl->c = bs->shapes[at].c;
            sl->c.a = jb->gen_out + gc->off;
            sl->c.b = jb->gen_out + gc->off + na;
            sl->gen_failed = bs->shapes[at].failed || !landed;
            lead[s - lo] = jb->rchunks || sl->gen_failed ? s : lead_slot(jb, lo, s);
        }
        if (!sl->gen_failed && lead[s - lo] == s)
            rj[m++] = (df_refs_job){sl->c.type, sl->c.a, sl->c.b, sl->c.n, &sl->r.refs};
    }
    double t1 = df_spent(e, w, DF_CPU_GENERATE, t0, jb->lo + lo);
    if (jb->rchunks) { /* a case an item, maybe long: slot_made, maybe by parts */
        for (size_t s = lo; s < hi; s++)
            slot_made(jb, s, w);
        return;
    }
    df_refs_compute_many(rj, m);
    for (size_t s = lo; s < hi; s++) /* a shared case's references are its leader's */
        if (lead[s - lo] != s)
            jb->slots[s].r.refs = jb->slots[lead[s - lo]].r.refs;
    double t2 = df_spent(e, w, DF_CPU_REFS, t1, jb->lo + lo);
    if (jb->gen_set < 0 && bs->upload[df_set_of(e, jb->slots)].pending) {
        upload_place(jb, lo, hi, lead);
        (void)df_spent(e, w, DF_CPU_GENERATE, t2, jb->lo + lo);
    }
    slots_ready(jb, lo, hi, w);
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
        df_finish_slot(ctx, s, w);
}

/* Names the batch of indices [lo, lo + n) in slots: its sampled cases, in
 * order, and a plan each from their set's (the k-th sampled case the k-th
 * plan: plans, and their copies' buffers, number about 1 in --meta-every
 * of a batch's cases, not its slots); the other slots get their index,
 * kernel and no plan from name_slot, on the pool. Out of memory, sampled
 * cases get none (assign_plans reports it). */
void df_name_batch(df_engine *e, df_slot *slots, uint64_t lo, size_t n)
{
    df_batch_state *bs = e->bs;
    size_t h = df_set_of(e, slots);
    uint32_t *sampled = bs->sampled + h * e->batch;
    size_t k = 0;
    for (size_t s = 0; s < n; s++)
        if (df_meta_sampled_at(&e->o->meta, e->o->seed, lo + s))
            sampled[k++] = (uint32_t)s;
    bs->nsampled[h] = 0;
    if (k > bs->nplans[h]) {
        df_meta_plan *p = realloc(bs->plans[h], k * sizeof *p);
        if (!p) {
            for (size_t i = 0; i < k; i++)
                slots[sampled[i]].plan = NULL;
            return;
        }
        memset(p + bs->nplans[h], 0, (k - bs->nplans[h]) * sizeof *p);
        bs->plans[h] = p;
        bs->nplans[h] = k;
    }
    for (size_t i = 0; i < k; i++) {
        df_meta_plan_trim(&bs->plans[h][i], 4 * df_keep_bytes(e)); /* copies: a few cases' */
        slots[sampled[i]].plan = &bs->plans[h][i];
        __atomic_store_n(&slots[sampled[i]].ready, 0, __ATOMIC_RELAXED);
    }
    bs->nsampled[h] = k;
}

/* The upload buffer of jb's set, reserved for the batch when it is one the
 * cuda path runs and the CPU makes in groups (prepare_group): as large as
 * the last batch asked for and an eighth more, up to DF_UPLOAD_MAX. Left
 * off (each part stages its cases) otherwise, and for the rest of the run
 * when the backend cannot give one. */
static void upload_begin(df_engine *e, const df_job *jb)
{
    df_batch_state *bs = e->bs;
    df_upload *u = &bs->upload[df_set_of(e, jb->slots)];
    *u = (df_upload){.pending = 0};
    if (bs->upload_off || df_backend_is_host(e->b) || jb->gen_set >= 0 || jb->chunks ||
        jb->rchunks || jb->whole || jb->n == 0)
        return;
    size_t want = bs->upload_want ? bs->upload_want + bs->upload_want / 8 : DF_UPLOAD_FIRST;
    want = want < DF_UPLOAD_MAX ? want : DF_UPLOAD_MAX;
    char err[160];
    void *p = df_backend_upload_reserve(e->b, (int)df_set_of(e, jb->slots), want, &u->cap, err,
                                        sizeof err);
    if (!p) {
        fprintf(stderr, "dotfuzz run: no buffer to upload a batch once (%s); each kernel's "
                        "part stages its own cases\n", err);
        bs->upload_off = 1;
        return;
    }
    u->base = p;
    u->pending = 1;
}

/* Prepares jb now, on the pool with the caller: the host backend's whole
 * cases (jb->whole: generated, referenced, modelled and judged), or the
 * cases generated and referenced. */
void df_prepare_now(df_engine *e, df_job *jb)
{
    upload_begin(e, jb);
    prepare_loop(e, jb, jb->whole ? whole_group : prepare_group);
}

/* Opens jb's prepare loop as work ahead for the pool, which takes it up
 * once the batch's generation has landed (gen_landed). Returns the loop's
 * handle, or -1 when every loop of the pool was open and jb was prepared
 * now. */
int df_prepare_ahead(df_engine *e, df_job *jb)
{
    upload_begin(e, jb);
    int h = df_pool_begin_ahead(e->pool, prep_items(jb), prepare_group, jb, gen_landed, jb);
    if (h < 0) /* every loop of the pool open: made now */
        prepare_loop(e, jb, prepare_group);
    return h;
}

/* Opens a loop that makes jb's shapes and value streams for the GPU's
 * generation (shape_group). Returns its handle (-1: none opened). */
int df_shapes_begin(df_engine *e, df_job *jb)
{
    return df_pool_begin(e->pool, df_timed_groups(jb->n), shape_group, jb);
}
