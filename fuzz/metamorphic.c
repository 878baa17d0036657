/* metamorphic.c — rerun, negate, scale and permute checks (metamorphic.h). */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator.h"
#include "metamorphic.h"
#include "pcg32.h"
#include "shuffle.h"

#define META_STREAM_SALT 0x6d6574616d6f7270ULL /* "metamorp" */

/* The sample is a hash of (seed, index), not index mod every: a campaign
 * hands case i to kernel i mod K, and a plain modulus would sample only
 * the kernels whose position shares a factor with `every`. */
int df_meta_sampled_at(const df_meta_opts *o, uint64_t seed, uint64_t index)
{
    if (!o->every)
        return 0;
    uint64_t z = index + seed * 0x9e3779b97f4a7c15ULL; /* splitmix64 finalizer */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return z % o->every == 0;
}

int df_meta_sampled(const df_meta_opts *o, const df_case *c)
{
    return df_meta_sampled_at(o, c->seed, c->index);
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

/* A loop per type (a switch per element was 2.5% of a default host run). */
static int has_int_min_or_nan(const df_case *c)
{
    int found = 0;
    switch (c->type) {
    case DF_I32:
        for (uint64_t i = 0; i < c->n; i++)
            found |= ((const int32_t *)c->a)[i] == INT32_MIN;
        break;
    case DF_F32:
        for (uint64_t i = 0; i < c->n; i++)
            found |= isnan(((const float *)c->a)[i]) || isnan(((const float *)c->b)[i]);
        break;
    case DF_F64:
        for (uint64_t i = 0; i < c->n; i++)
            found |= isnan(((const double *)c->a)[i]) || isnan(((const double *)c->b)[i]);
        break;
    }
    return found;
}

static void negate_into(const df_case *c, void *dst)
{
    for (uint64_t i = 0; i < c->n; i++) {
        switch (c->type) {
        case DF_F32: ((float *)dst)[i] = -((const float *)c->a)[i]; break;
        case DF_F64: ((double *)dst)[i] = -((const double *)c->a)[i]; break;
        case DF_I32: ((int32_t *)dst)[i] = -((const int32_t *)c->a)[i]; break;
        }
    }
}

/* Element i of a float vector (f32 or f64) read from its bits: EXP_ZERO,
 * EXP_NONFINITE, EXP_SUBNORMAL, or floor(log2 |x|) of a normal x. */
enum { EXP_ZERO = INT_MIN, EXP_NONFINITE = INT_MAX, EXP_SUBNORMAL = INT_MIN + 1 };

static int exponent_at(df_type t, const void *v, uint64_t i)
{
    uint64_t mant, e;
    int bias, top;
    if (t == DF_F32) {
        uint32_t u;
        memcpy(&u, (const float *)v + i, sizeof u);
        e = u >> 23 & 0xff, mant = u & 0x7fffff, bias = 127, top = 0xff;
    } else {
        uint64_t u;
        memcpy(&u, (const double *)v + i, sizeof u);
        e = u >> 52 & 0x7ff, mant = u & 0xfffffffffffffULL, bias = 1023, top = 0x7ff;
    }
    if (e == (uint64_t)top)
        return EXP_NONFINITE;
    if (e == 0)
        return mant ? EXP_SUBNORMAL : EXP_ZERO;
    return (int)e - bias;
}

int df_scale_is_exact(const df_kernel *k, const df_case *c, double G, int kexp)
{
    if (c->type == DF_I32 || (k->flags & DF_K_FLUSHES_SUBNORMALS) || !isfinite(G))
        return 0;
    int pe = c->type == DF_F32 ? 24 : 53, emin_e = c->type == DF_F32 ? -126 : -1022;
    int emax_e = c->type == DF_F32 ? 127 : 1023;
    int p = k->acc == DF_F32 ? 24 : 53, emin = k->acc == DF_F32 ? -126 : -1022;
    double maxf = k->acc == DF_F32 ? FLT_MAX : DBL_MAX;
    int qmin = 1 << 30;
    for (uint64_t i = 0; i < c->n; i++) {
        int ea = exponent_at(c->type, c->a, i), eb = exponent_at(c->type, c->b, i);
        if (ea == EXP_NONFINITE || eb == EXP_NONFINITE)
            return 0;
        if (ea == EXP_ZERO)
            continue;
        /* a_i and a_i 2^k must both be normal for the scaling to be exact */
        if (ea == EXP_SUBNORMAL || ea + kexp < emin_e || ea + kexp > emax_e)
            return 0;
        if (eb == EXP_ZERO)
            continue;
        if (eb == EXP_SUBNORMAL)
            return 0;
        int q = (ea - (pe - 1)) + (eb - (pe - 1));
        if (q < qmin)
            qmin = q;
    }
    int kneg = kexp < 0 ? kexp : 0;
    if (qmin != 1 << 30 && qmin + kneg < emin - p + 1)
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
    return df_scratch_reserve(&p->buf, 4 * (size_t)c->n * *es + 64);
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

int df_meta_plan_layout(const df_kernel *k, const df_case *c, const df_checked *r,
                        const df_meta_opts *mo, df_meta_plan *p)
{
    p->nvar = 0;
    p->kexp = 0;
    df_pcg32 rng;
    df_pcg32_seed(&rng, c->seed ^ META_STREAM_SALT, c->index);
    for (uint32_t i = 0; i < mo->reruns; i++)
        if (!add_var(p, DF_META_RERUN, c))
            return -1;
    size_t es;
    unsigned char *v = plan_vectors(p, c, &es);
    if (!v)
        return 0; /* no memory for copies: the reruns alone */
    size_t bytes = (size_t)c->n * es;
    df_case *d;
    /* negate: a -> -a, for a first run that ended well, without INT_MIN
     * (no negation) or NaN (no sign to keep) */
    if (r->res.status == DF_RUN_OK && !has_int_min_or_nan(c) &&
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
            for (uint64_t j = 0; j < c->n; j++)
                ((float *)a)[j] = x[j] * f;
        } else {
            const double f = ldexp(1.0, p->kexp), *x = c->a;
            for (uint64_t j = 0; j < c->n; j++)
                ((double *)a)[j] = x[j] * f;
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

void df_meta_plan_refs(df_meta_plan *p, size_t i)
{
    if (p->kind[i] != DF_META_RERUN)
        df_refs_compute(p->var[i].type, p->var[i].a, p->var[i].b, p->var[i].n,
                        &p->out[i].refs);
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
