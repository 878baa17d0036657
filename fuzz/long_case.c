/* long_case.c — one long case made and referenced on a pool's threads
 * (long_case.h). */
#include <stdlib.h>

#include "fuzz/gen/values.h"
#include "fuzz/long_case.h"

typedef struct fill_job {
    const df_vplan *plan;
    void *a, *b;
    df_vchunk *parts; /* cond's partial sums, one a chunk; else NULL */
} fill_job;

static void fill_chunk(void *ctx, size_t j, unsigned w)
{
    (void)w;
    const fill_job *f = ctx;
    df_generate_chunk(f->plan, f->a, f->b, j, f->parts ? &f->parts[j] : NULL);
}

int df_fill_values_pool(df_pool *p, const df_case *c, df_pcg32 *values)
{
    void *a = (void *)c->a, *b = (void *)c->b;
    if (!p || c->n <= DF_GEN_CHUNK)
        return df_fill_values(c->family, values, c->type, a, b, c->n);
    df_vplan plan;
    if (df_values_plan(c->family, values, c->type, c->n, &plan) != 0) /* draws nothing */
        return df_fill_values(c->family, values, c->type, a, b, c->n); /* made whole */
    uint64_t m = df_vplan_chunks(&plan);
    fill_job f = {&plan, a, b, NULL};
    if (df_vplan_partials(&plan) && !(f.parts = malloc((size_t)m * sizeof *f.parts)))
        return -1;
    df_pool_for(p, (size_t)m, fill_chunk, &f);
    df_values_finish_parts(&plan, values, a, b, f.parts);
    free(f.parts);
    return 0;
}

int df_generate_pool(df_pool *p, uint64_t seed, uint64_t index, const df_kernel *k,
                     const df_gen_opts *o, df_scratch *buf, df_case *out)
{
    df_pcg32 values;
    if (df_generate_begin(seed, index, k, o, buf, out, &values) != 0)
        return -1;
    return df_fill_values_pool(p, out, &values);
}

typedef struct refs_job {
    df_type t;
    const void *a, *b;
    uint64_t n;
    df_refs_part *parts;
} refs_job;

static void refs_chunk(void *ctx, size_t j, unsigned w)
{
    (void)w;
    const refs_job *r = ctx;
    df_refs_part_compute(r->t, r->a, r->b, r->n, j, &r->parts[j]);
}

void df_refs_compute_pool(df_pool *p, df_type t, const void *a, const void *b, uint64_t n,
                          df_refs *out)
{
    uint64_t m = df_refs_chunks(n);
    refs_job r = {t, a, b, n, p && m ? malloc((size_t)m * sizeof *r.parts) : NULL};
    if (!r.parts) {
        df_refs_compute(t, a, b, n, out);
        return;
    }
    df_pool_for(p, (size_t)m, refs_chunk, &r);
    df_refs_merger mg;
    df_refs_merge_init(&mg);
    for (uint64_t j = 0; j < m; j++)
        df_refs_merge_add(&mg, &r.parts[j]);
    df_refs_merge_out(&mg, t, n, out);
    free(r.parts);
}
