/* metamorphic.c — rerun, negate, scale and permute checks (metamorphic.h). */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/cpu_clones.h"
#include "fuzz/gen/generator.h"
#include "fuzz/check/metamorphic.h"
#include "fuzz/check/schedule.h"
#include "fuzz/pcg32.h"
#include "fuzz/gen/shuffle.h"
#include "fuzz/util.h"

#define META_STREAM_SALT 0x6d6574616d6f7270ULL /* "metamorp" */

/* The metamorphic sample: a hash of (seed, index) (df_sampled_at). */
static int meta_sampled_at(const df_meta_opts *o, uint64_t seed, uint64_t index)
{
    return df_sampled_at(o->every, seed, index);
}

int df_meta_sampled_at(const df_meta_opts *o, uint64_t seed, uint64_t index)
{
    return meta_sampled_at(o, seed, index) || df_sched_sampled_at(o->schedule, seed, index);
}

int df_meta_sampled(const df_meta_opts *o, const df_case *c)
{
    return df_meta_sampled_at(o, c->seed, c->index);
}

int df_meta_checked(const df_meta_opts *o, const df_case *c)
{
    return c->n < DF_GEN_HUGE_MIN && df_meta_sampled(o, c);
}

/* Same result to the bit (two NaNs are equal: payloads are not portable). */
static int same_bits(const df_result *x, const df_result *y)
{
    if (isnan(x->f) && isnan(y->f))
        return x->i == y->i;
    return memcmp(&x->f, &y->f, sizeof x->f) == 0 && x->i == y->i;
}

static void fail(df_checked *r, df_verdict v, const char *rule, const char *why)
{
    r->j.verdict = v;
    r->j.rule = rule;
    size_t len = strlen(why); /* truncated to fit: the rule names the check */
    if (len >= sizeof r->j.why)
        len = sizeof r->j.why - 1;
    memcpy(r->j.why, why, len);
    r->j.why[len] = '\0';
}

/* Negation keeps every value and sign: no INT32_MIN in an i32 a (its
 * largest magnitude, 2^31, is INT32_MIN's alone) and no NaN in float data,
 * from the references. */
static int negation_exact(const df_case *c, const df_refs *refs)
{
    return c->type == DF_I32 ? refs->max_abs_a < 2147483648.0 : !refs->has_nan;
}

static void negate_into(const df_case *c, void *dst)
{
    /* a loop a type, n and the vectors in locals, each loop vectorized:
     * with the switch inside one loop, and c->n and c->a read again after
     * every store (this build does not assume strict aliasing), it went
     * element by element, about 5 us a case of 2000 floats on the H100
     * host (1.8% of the pool's CPU at n = 2000, 1 case in 16 sampled) */
    const uint64_t n = c->n;
    const void *src = c->a;
#define NEGATE_AS(T)                                                           \
    for (uint64_t i = 0; i < n; i++)                                           \
        ((T *)dst)[i] = -((const T *)src)[i];                                  \
    break
    switch (c->type) {
    case DF_F32: NEGATE_AS(float);
    case DF_F64: NEGATE_AS(double);
    case DF_I32: NEGATE_AS(int32_t);
    default: break; /* low-precision cases get reruns alone (plan_copies) */
    }
#undef NEGATE_AS
}

/* What df_scale_is_exact needs of a float case, from the bits of every
 * element (biased exponents: 0 zero or subnormal, all ones Inf or NaN):
 * whether some element is not finite; some nonzero a_i is subnormal; some
 * b_i is subnormal beside a nonzero a_i; the least and greatest biased
 * exponent of the nonzero a_i, and the least sum of the pairs' biased
 * exponents where both are nonzero. One pass of integer operations that
 * vectorizes (a case of 2^26 floats had taken 0.75 s element by element,
 * the batch's sampled case's copies waiting on it). */
typedef struct scale_facts {
    unsigned nonfinite, a_sub, b_sub;
    unsigned ea_min, ea_max, q_min; /* biased; q_min UINT_MAX: no such pair */
} scale_facts;

/* Written for the vectorizer: every operation in the element's width,
 * the conditions as all-ones masks, the minima and maxima of signed values
 * (AVX2 compares those). A zero, biased exponent 0 with a zero mantissa,
 * is an element whose bits shifted past the sign are 0. */
#define SCALE_NONE (1 << 20) /* above any sum of two biased exponents */
#define SCALE_SCAN(NAME, U, S, EBITS, MBITS)                                   \
    DF_CPU_CLONES static scale_facts NAME(const U *ua, const U *ub, uint64_t n) \
    {                                                                          \
        const S emask = ((S)1 << EBITS) - 1;                                   \
        S nonfinite = 0, a_sub = 0, b_sub = 0;                                 \
        S ea_min = SCALE_NONE, ea_max = -1, q_min = SCALE_NONE;                \
        for (uint64_t i = 0; i < n; i++) {                                     \
            S ea = (S)(ua[i] >> MBITS) & emask, eb = (S)(ub[i] >> MBITS) & emask; \
            S a_nz = -(S)((U)(ua[i] << 1) != 0), b_nz = -(S)((U)(ub[i] << 1) != 0); \
            S a_e0 = -(S)(ea == 0), b_e0 = -(S)(eb == 0);                      \
            nonfinite |= -(S)(ea == emask) | -(S)(eb == emask);                \
            a_sub |= a_nz & a_e0;                                              \
            b_sub |= a_nz & b_nz & b_e0;                                       \
            S lo = (ea & a_nz) | (SCALE_NONE & ~a_nz);                         \
            S hi = (ea & a_nz) | (-1 & ~a_nz);                                 \
            S both = a_nz & b_nz;                                              \
            S q = ((ea + eb) & both) | (SCALE_NONE & ~both);                   \
            ea_min = lo < ea_min ? lo : ea_min;                                \
            ea_max = hi > ea_max ? hi : ea_max;                                \
            q_min = q < q_min ? q : q_min;                                     \
        }                                                                      \
        return (scale_facts){nonfinite != 0, a_sub != 0, b_sub != 0,           \
                             ea_min == SCALE_NONE ? UINT_MAX : (unsigned)ea_min, \
                             ea_max < 0 ? 0 : (unsigned)ea_max,                \
                             q_min == SCALE_NONE ? UINT_MAX : (unsigned)q_min}; \
    }

SCALE_SCAN(scale_scan_f32, uint32_t, int32_t, 8, 23)
SCALE_SCAN(scale_scan_f64, uint64_t, int64_t, 11, 52)

int df_scale_is_exact(const df_kernel *k, const df_case *c, double G, int kexp)
{
    if (c->type == DF_I32 || df_type_is_lowp(c->type) || (k->flags & DF_K_FLUSHES_SUBNORMALS) ||
        !isfinite(G)) /* a scan of f32 or f64 words only */
        return 0;
    int pe = c->type == DF_F32 ? 24 : 53, emin_e = c->type == DF_F32 ? -126 : -1022;
    int emax_e = c->type == DF_F32 ? 127 : 1023, bias = c->type == DF_F32 ? 127 : 1023;
    int p = k->acc == DF_F32 ? 24 : 53, emin = k->acc == DF_F32 ? -126 : -1022;
    double maxf = k->acc == DF_F32 ? FLT_MAX : DBL_MAX;
    scale_facts f = c->type == DF_F32 ? scale_scan_f32(c->a, c->b, c->n)
                                      : scale_scan_f64(c->a, c->b, c->n);
    /* every element finite; a_i and a_i 2^k both normal (or zero); no
     * subnormal b_i beside a nonzero a_i */
    if (f.nonfinite || f.a_sub || f.b_sub)
        return 0;
    if (f.ea_min != UINT_MAX &&
        ((int)f.ea_min - bias + kexp < emin_e || (int)f.ea_max - bias + kexp > emax_e))
        return 0;
    /* the least product's last bit, scaled down, stays a bit of the
     * accumulator's format */
    int kneg = kexp < 0 ? kexp : 0;
    if (f.q_min != UINT_MAX && (int)f.q_min - 2 * bias - 2 * (pe - 1) + kneg < emin - p + 1)
        return 0;
    return ldexp(G, kexp > 0 ? kexp + 2 : 2) < maxf;
}

/* ---- the plan: the checks' runs, made, run and applied apart ----
 * df_metamorphic is make, run every variant in order, finish; the batched
 * engine makes the plans of a batch on every core, runs all their variants
 * through the backend a kernel at a time (df_backend_run_batch), judges the
 * transformed copies on every core, and finishes each plan in index order.
 * The variants and the order their results are applied in are the same, so
 * the verdicts are too. */

static df_case *add_var(df_meta_plan *p, int kind, const df_case *c)
{
    if (p->nvar == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 8;
        df_case *v = realloc(p->var, cap * sizeof *v);
        if (v)
            p->var = v;
        df_checked *o = realloc(p->out, cap * sizeof *o);
        if (o)
            p->out = o;
        int *kd = realloc(p->kind, cap * sizeof *kd);
        if (kd)
            p->kind = kd;
        int *rn = realloc(p->ran, cap * sizeof *rn);
        if (rn)
            p->ran = rn;
        if (!v || !o || !kd || !rn)
            return NULL;
        p->cap = cap;
    }
    size_t i = p->nvar++;
    p->kind[i] = kind;
    p->ran[i] = 0;
    p->var[i] = *c;
    memset(&p->out[i], 0, sizeof p->out[i]);
    return &p->var[i];
}

/* The transformed copies' vectors, one block for the plan: negate's a,
 * scale's a, permute's a and b, each n elements. */
static unsigned char *plan_vectors(df_meta_plan *p, const df_case *c, size_t *es)
{
    *es = df_type_size(c->type);
    return df_scratch_fit(&p->buf, 4 * (size_t)c->n * *es + 64);
}

/* j in [0, i] for the permute's Fisher-Yates (n < 2^32 there). */
static uint64_t permute_draw(df_pcg32 *r, uint64_t i)
{
    return df_pcg32_bounded(r, (uint32_t)(i + 1));
}

uint64_t df_meta_permute_chunks(const df_case *c)
{
    return df_gen_chunks(c->n);
}

/* A long case's permute: the whole chunks' order and the key, from p->perm
 * (nothing for a short one). Returns 0, or -1 out of memory. */
static int permute_order(const df_case *c, df_meta_plan *p)
{
    uint64_t m = df_meta_permute_chunks(c), whole = c->n / DF_GEN_CHUNK;
    p->perm_left = m;
    if (!m)
        return 0;
    uint32_t *order = df_scratch_reserve(&p->order, (size_t)m * sizeof *order);
    if (!order)
        return -1;
    df_pcg32 rng = p->perm;
    for (uint64_t j = 0; j < m; j++)
        order[j] = (uint32_t)j;
    for (uint64_t j = whole; j-- > 1;) {
        uint64_t x = permute_draw(&rng, j);
        uint32_t t = order[j];
        order[j] = order[x], order[x] = t;
    }
    p->perm_key = df_pcg32_u64(&rng);
    return 0;
}

void df_meta_permute_chunk(const df_case *c, const df_meta_plan *p, size_t i, uint64_t j)
{
    size_t es = df_type_size(c->type);
    uint64_t from = ((const uint32_t *)p->order.p)[j] * DF_GEN_CHUNK;
    uint64_t len = j * DF_GEN_CHUNK + DF_GEN_CHUNK <= c->n ? DF_GEN_CHUNK
                                                           : c->n - j * DF_GEN_CHUNK;
    unsigned char *a = (unsigned char *)p->var[i].a + j * DF_GEN_CHUNK * es;
    unsigned char *b = (unsigned char *)p->var[i].b + j * DF_GEN_CHUNK * es;
    memcpy(a, (const unsigned char *)c->a + from * es, len * es);
    memcpy(b, (const unsigned char *)c->b + from * es, len * es);
    df_pcg32 rng;
    df_pcg32_seed(&rng, p->perm_key, j);
    df_shuffle_pairs(a, b, es, len, &rng, permute_draw);
}

static int plan_copies(const df_kernel *k, const df_case *c, const df_checked *r,
                       const df_meta_opts *mo, df_meta_plan *p);

int df_meta_plan_layout(const df_kernel *k, const df_case *c, const df_checked *r,
                        const df_meta_opts *mo, df_meta_plan *p)
{
    p->nvar = 0;
    p->kexp = 0;
    p->own = r->refs;
    /* a huge case (16 GiB and more) gets no variant: a batch stages each
     * variant's vectors apart, so even its reruns (and a schedule rerun)
     * would hold it three times on the GPU, and its copies three times
     * more on the host */
    if (c->n >= DF_GEN_HUGE_MIN)
        return 0;
    df_case *d;
    int rc = meta_sampled_at(mo, c->seed, c->index) ? plan_copies(k, c, r, mo, p) : 0;
    /* schedule: the case itself under a perturbed schedule, last */
    if (rc == 0 && df_sched_sampled_at(mo->schedule, c->seed, c->index) &&
        (d = add_var(p, DF_META_SCHEDULE, c)) != NULL) {
        df_sched_draw(k, c, d);
        p->out[p->nvar - 1].refs = p->own; /* the case's own vectors */
    }
    return rc;
}

/* The metamorphic variants of a sampled case: reruns, negate, scale,
 * permute, those that apply. */
static int plan_copies(const df_kernel *k, const df_case *c, const df_checked *r,
                       const df_meta_opts *mo, df_meta_plan *p)
{
    df_pcg32 rng;
    df_pcg32_seed(&rng, c->seed ^ META_STREAM_SALT, c->index);
    for (uint32_t i = 0; i < mo->reruns; i++)
        if (!add_var(p, DF_META_RERUN, c))
            return -1;
    /* low-precision data: the reruns alone (the copies' references and the
     * GPU's derived vectors read f32, f64 and i32 words) */
    if (df_type_is_lowp(c->type))
        return 0;
    size_t es;
    unsigned char *v = plan_vectors(p, c, &es);
    if (!v)
        return 0; /* no memory for copies: the reruns alone */
    size_t bytes = (size_t)c->n * es;
    df_case *d;
    /* negate: a -> -a, for a first run that ended well, without INT_MIN
     * (no negation) or NaN (no sign to keep) */
    if (r->res.status == DF_RUN_OK && negation_exact(c, &r->refs) &&
        (d = add_var(p, DF_META_NEGATE, c)) != NULL)
        d->a = v;
    /* scale: a -> 2^k a, k = +-[1, 6] (drawn for floats whether or not it
     * applies), where the scaling is provably exact */
    if (c->type != DF_I32) {
        int kexp = 1 + (int)df_pcg32_bounded(&rng, 6);
        if (df_pcg32_bounded(&rng, 2))
            kexp = -kexp;
        p->kexp = kexp;
        if (r->res.status == DF_RUN_OK && df_scale_is_exact(k, c, r->refs.G, kexp) &&
            (d = add_var(p, DF_META_SCALE, c)) != NULL)
            d->a = v + bytes;
    }
    /* permute: the pairs shuffled with the stream from here on */
    p->perm = rng;
    if (c->n >= 2 && c->n <= 0xffffffffu && (d = add_var(p, DF_META_PERMUTE, c)) != NULL) {
        d->a = v + 2 * bytes;
        d->b = v + 3 * bytes;
        if (permute_order(c, p) != 0)
            p->nvar--; /* no memory for the chunks' order: no permute */
    }
    return 0;
}

void df_meta_plan_fill(const df_case *c, df_meta_plan *p, size_t i)
{
    size_t bytes = (size_t)c->n * df_type_size(c->type);
    void *a = (void *)p->var[i].a, *b = (void *)p->var[i].b;
    switch (p->kind[i]) {
    case DF_META_NEGATE:
        negate_into(c, a);
        break;
    case DF_META_SCALE:
        /* every a_i and a_i 2^k is normal or zero (df_scale_is_exact): the
         * product by 2^k is exact, ldexp's value */
        if (c->type == DF_F32) {
            const float f = ldexpf(1.0f, p->kexp), *x = c->a;
            float *y = a;
            for (uint64_t j = 0, n = c->n; j < n; j++)
                y[j] = x[j] * f;
        } else {
            const double f = ldexp(1.0, p->kexp), *x = c->a;
            double *y = a;
            for (uint64_t j = 0, n = c->n; j < n; j++)
                y[j] = x[j] * f;
        }
        break;
    case DF_META_PERMUTE: {
        uint64_t chunks = df_meta_permute_chunks(c);
        for (uint64_t j = 0; j < chunks; j++)
            df_meta_permute_chunk(c, p, i, j);
        if (chunks)
            break;
        df_pcg32 rng = p->perm;
        memcpy(a, c->a, bytes);
        memcpy(b, c->b, bytes);
        df_shuffle_pairs(a, b, df_type_size(c->type), c->n, &rng, permute_draw);
        break;
    }
    default: /* a rerun runs the case itself */
        break;
    }
}

df_derive df_meta_plan_derive(const df_case *c, const df_meta_plan *p, size_t i)
{
    switch (p->kind[i]) {
    case DF_META_NEGATE: return (df_derive){c->a, DF_DERIVE_NEGATE, 0};
    case DF_META_SCALE: return (df_derive){c->a, DF_DERIVE_SCALE, p->kexp};
    default: return (df_derive){NULL, DF_DERIVE_NONE, 0};
    }
}

int df_meta_plan_variants(const df_kernel *k, const df_case *c, const df_checked *r,
                          const df_meta_opts *mo, df_meta_plan *p)
{
    int rc = df_meta_plan_layout(k, c, r, mo, p);
    for (size_t i = 0; i < p->nvar; i++)
        df_meta_plan_fill(c, p, i);
    return rc;
}

void df_meta_plan_settle(df_meta_plan *p, const df_checked *r)
{
    if (r->res.status == DF_RUN_OK)
        return;
    /* negate and scale need a first run that ended well (make_negate,
     * make_scale); reruns and permute do not, and keep their order */
    size_t k = 0;
    for (size_t i = 0; i < p->nvar; i++) {
        if (p->kind[i] == DF_META_NEGATE || p->kind[i] == DF_META_SCALE)
            continue;
        p->kind[k] = p->kind[i];
        p->var[k] = p->var[i];
        p->out[k] = p->out[i];
        p->ran[k] = p->ran[i];
        k++;
    }
    p->nvar = k;
}

int df_meta_plan_refs_derived(df_meta_plan *p, size_t i)
{
    const df_case *v = &p->var[i];
    if (p->kind[i] == DF_META_SCHEDULE) {
        p->out[i].refs = p->own; /* the case itself */
        return 1;
    }
    if (p->kind[i] == DF_META_NEGATE)
        return df_refs_negated(v->type, &p->own, &p->out[i].refs) == 0;
    /* the scale copy takes its references from the case's (Kahan's sum
     * with the exact dot's bins or superaccumulator made again would be
     * much of the sampled cases' copies' CPU); the permute copy's exact dot, its
     * classes and maxima are the case's, only Kahan's sum, G and the bound
     * are made again (alone in the lanes, it had the superaccumulator's
     * pass too) */
    if (p->kind[i] == DF_META_SCALE)
        return df_refs_scaled(v->type, v->a, v->b, v->n, p->kexp, &p->own, &p->out[i].refs) ==
               0;
    return p->kind[i] == DF_META_PERMUTE &&
           df_refs_permuted(v->type, v->a, v->b, v->n, &p->own, &p->out[i].refs) == 0;
}

void df_meta_plan_refs(df_meta_plan *p, size_t i)
{
    if (p->kind[i] != DF_META_RERUN && !df_meta_plan_refs_derived(p, i))
        df_refs_compute(p->var[i].type, p->var[i].a, p->var[i].b, p->var[i].n,
                        &p->out[i].refs);
}

void df_meta_permuted_flush(df_meta_permuted *g)
{
    df_refs_job job[DF_META_PERMUTED_MAX];
    unsigned char ok[DF_META_PERMUTED_MAX];
    for (size_t j = 0; j < g->m; j++) {
        df_meta_plan *p = g->plan[j];
        const df_case *v = &p->var[g->var[j]];
        df_refs *out = &p->out[g->var[j]].refs;
        *out = p->own; /* all but what the order changes */
        job[j] = (df_refs_job){v->type, v->a, v->b, v->n, out};
    }
    df_refs_permuted_many(job, g->m, ok);
    for (size_t j = 0; j < g->m; j++)
        if (!ok[j])
            df_refs_compute(job[j].t, job[j].a, job[j].b, job[j].n, job[j].out);
    g->m = 0;
}

void df_meta_permuted_add(df_meta_permuted *g, df_meta_plan *p, size_t i)
{
    g->plan[g->m] = p;
    g->var[g->m++] = i;
    if (g->m == DF_META_PERMUTED_MAX)
        df_meta_permuted_flush(g);
}

int df_meta_plan_make(const df_kernel *k, const df_case *c, const df_checked *r,
                      const df_meta_opts *mo, df_meta_plan *p)
{
    int rc = df_meta_plan_variants(k, c, r, mo, p);
    for (size_t i = 0; rc == 0 && i < p->nvar; i++)
        df_meta_plan_refs(p, i);
    return rc;
}

void df_meta_plan_judge(const df_kernel *k, const df_oracle_opts *oo, df_meta_plan *p,
                        size_t i)
{
    df_checked *o = &p->out[i];
    df_judge(k, &p->var[i], &o->refs, &o->res, o->model_ran ? &o->model : NULL, oo, &o->j);
}

size_t df_meta_plan_early(const df_meta_plan *p)
{
    size_t i = 0;
    while (i < p->nvar && p->kind[i] != DF_META_SCHEDULE)
        i++;
    return i;
}

void df_meta_plan_trim(df_meta_plan *p, size_t keep)
{
    df_scratch_trim(&p->buf, keep);
    df_scratch_trim(&p->order, keep);
}

void df_meta_plan_free(df_meta_plan *p)
{
    free(p->var);
    free(p->out);
    free(p->kind);
    free(p->ran);
    df_scratch_free(&p->buf);
    df_scratch_free(&p->order);
    memset(p, 0, sizeof *p);
}

/* rerun: the results of the reruns that ran, against the case's own. */
static void finish_rerun(const df_kernel *k, const df_meta_opts *mo, const df_meta_plan *p,
                         df_checked *r, df_meta_report *rep)
{
    df_result seen[8];
    unsigned nseen = 1;
    seen[0] = r->res;
    for (size_t i = 0; i < p->nvar; i++) {
        const df_result *again = &p->out[i].res;
        if (p->kind[i] != DF_META_RERUN || again->status != DF_RUN_OK)
            continue; /* an execution error on a rerun is judged when it recurs */
        unsigned j = 0;
        while (j < nseen && !same_bits(&seen[j], again))
            j++;
        if (j == nseen && nseen < 8)
            seen[nseen++] = *again;
    }
    rep->ran |= DF_META_RERUN;
    rep->distinct = nseen;
    if (nseen == 1 || r->j.verdict == DF_V_BUG)
        return;
    char why[240];
    snprintf(why, sizeof why, "%u distinct results over %u runs (first %a, then %a)", nseen,
             mo->reruns + 1, seen[0].f, seen[1].f);
    fail(r, (k->flags & DF_K_DETERMINISTIC) ? DF_V_BUG : DF_V_NONDET, "rerun", why);
}

/* A transformed copy's own verdict: a bug on the copy is a bug of the case. */
static void copy_verdict(const df_checked *out, df_checked *r, const char *rule)
{
    if (out->j.verdict == DF_V_BUG && r->j.verdict != DF_V_BUG) {
        char why[sizeof out->j.why + 16];
        snprintf(why, sizeof why, "%s copy: %s", rule, out->j.why);
        fail(r, DF_V_BUG, rule, why);
    }
}

static void finish_negate(const df_kernel *k, const df_checked *dr, df_checked *r)
{
    if (!(k->flags & DF_K_DETERMINISTIC) || dr->res.status != DF_RUN_OK ||
        r->j.verdict == DF_V_BUG)
        return;
    int equal = k->acc == DF_I32 ? (int32_t)(0u - (uint32_t)r->res.i) == (int32_t)dr->res.i
                                 : dr->res.f == -r->res.f || /* +0 and -0 compare equal */
                                       (isnan(dr->res.f) && isnan(r->res.f)); /* NaN sign is not portable */
    if (equal)
        return;
    char why[240];
    if (k->acc == DF_I32)
        snprintf(why, sizeof why, "f(-a) = %lld but -f(a) = %lld", (long long)dr->res.i,
                 -(long long)r->res.i);
    else
        snprintf(why, sizeof why, "f(-a) = %a but -f(a) = %a", dr->res.f, -r->res.f);
    fail(r, DF_V_BUG, "negate", why);
}

static void finish_scale(const df_kernel *k, int kexp, const df_checked *dr, df_checked *r)
{
    if (!(k->flags & DF_K_DETERMINISTIC) || dr->res.status != DF_RUN_OK ||
        r->j.verdict == DF_V_BUG)
        return;
    double want = ldexp(r->res.f, kexp);
    if (dr->res.f == want || (isnan(dr->res.f) && isnan(want)))
        return;
    char why[240];
    snprintf(why, sizeof why, "f(2^%d a) = %a but 2^%d f(a) = %a", kexp, dr->res.f, kexp, want);
    fail(r, DF_V_BUG, "scale", why);
}

/* schedule: the rerun's own verdict, the perturbation recorded where it
 * decides; a deterministic kernel on its own grid gives the first run's
 * bits again. */
static void finish_schedule(const df_kernel *k, const df_meta_plan *p, size_t i, df_checked *r)
{
    const df_checked *dr = &p->out[i];
    const df_case *v = &p->var[i];
    if (r->j.verdict == DF_V_BUG)
        return;
    char how[120], why[sizeof r->j.why + sizeof how + 8];
    df_sched_describe(v, how, sizeof how);
    if (dr->j.verdict == DF_V_BUG) {
        snprintf(why, sizeof why, "under %s: %s", how, dr->j.why);
    } else if ((k->flags & DF_K_DETERMINISTIC) && !(v->sched.flags & DF_SCHED_REGRID) &&
               dr->res.status == DF_RUN_OK && r->res.status == DF_RUN_OK &&
               !same_bits(&dr->res, &r->res)) {
        if (k->acc == DF_I32)
            snprintf(why, sizeof why, "%lld under %s, %lld unperturbed",
                     (long long)dr->res.i, how, (long long)r->res.i);
        else
            snprintf(why, sizeof why, "%a under %s, %a unperturbed", dr->res.f, how,
                     r->res.f);
    } else {
        return;
    }
    if (dr->j.verdict == DF_V_BUG) { /* the rerun's numbers are the finding's */
        r->j = dr->j;
        r->model = dr->model;
        r->model_ran = dr->model_ran;
    } else {
        r->j.result = dr->j.result;
        r->j.iresult = dr->j.iresult;
    }
    fail(r, DF_V_BUG, "schedule", why);
    r->res = dr->res;
    r->perturbed = 1;
    r->sched = v->sched;
    r->launch = v->launch;
}

int df_meta_plan_finish(const df_kernel *k, const df_meta_opts *mo, const df_meta_plan *p,
                        df_checked *r, df_meta_report *rep)
{
    memset(rep, 0, sizeof *rep);
    rep->distinct = 1;
    size_t i = 0;
    for (; i < p->nvar && p->kind[i] == DF_META_RERUN; i++)
        if (p->ran[i] != 1)
            return -1; /* the backend died on it (or before it) */
    if (mo->reruns)
        finish_rerun(k, mo, p, r, rep);
    for (; i < p->nvar; i++) {
        static const char *const rule[] = {[DF_META_NEGATE] = "negate",
                                            [DF_META_SCALE] = "scale",
                                            [DF_META_PERMUTE] = "permute"};
        int kind = p->kind[i];
        if (p->ran[i] == 0)
            return -1; /* never ran: the backend died before it */
        if (kind == DF_META_SCHEDULE) {
            rep->ran |= (unsigned)kind;
            finish_schedule(k, p, i, r);
            if (p->ran[i] < 0)
                return -1;
            continue;
        }
        copy_verdict(&p->out[i], r, rule[kind]);
        rep->ran |= (unsigned)kind;
        if (kind == DF_META_SCALE)
            rep->scale_k = p->kexp;
        if (p->ran[i] < 0)
            return -1; /* it ran and killed the backend */
        if (kind == DF_META_NEGATE)
            finish_negate(k, &p->out[i], r);
        else if (kind == DF_META_SCALE)
            finish_scale(k, p->kexp, &p->out[i], r);
    }
    return 0;
}

/* Runs variant i on the backend one case at a time: ran = 1 done, -1 the
 * backend died on it. */
static int run_variant(df_backend *b, const df_kernel *k, const df_oracle_opts *oo,
                       df_meta_plan *p, size_t i)
{
    df_checked *o = &p->out[i];
    int rerun = p->kind[i] == DF_META_RERUN;
    int rc = df_backend_run(b, k, &p->var[i], &o->res, rerun ? NULL : &o->model,
                            rerun ? NULL : &o->model_ran);
    if (!rerun)
        df_meta_plan_judge(k, oo, p, i);
    p->ran[i] = rc != 0 ? -1 : 1;
    return rc;
}

int df_metamorphic(df_backend *b, const df_kernel *k, const df_case *c,
                   const df_oracle_opts *oo, const df_meta_opts *mo, df_scratch *buf,
                   df_checked *r, df_meta_report *rep)
{
    (void)buf;
    df_meta_plan p = {0};
    int rc = df_meta_plan_make(k, c, r, mo, &p);
    for (size_t i = 0; rc == 0 && i < p.nvar; i++)
        if (run_variant(b, k, oo, &p, i) != 0)
            break;
    if (rc == 0)
        rc = df_meta_plan_finish(k, mo, &p, r, rep);
    else
        memset(rep, 0, sizeof *rep);
    df_meta_plan_free(&p);
    return rc;
}
