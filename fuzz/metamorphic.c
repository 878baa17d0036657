/* metamorphic.c — rerun, negate, scale and permute checks (metamorphic.h). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "metamorphic.h"
#include "pcg32.h"

#define META_STREAM_SALT 0x6d6574616d6f7270ULL /* "metamorp" */

/* The sample is a hash of (seed, index), not index mod every: a campaign
 * hands case i to kernel i mod K, and a plain modulus would sample only
 * the kernels whose position shares a factor with `every`. */
int df_meta_sampled(const df_meta_opts *o, const df_case *c)
{
    if (!o->every)
        return 0;
    uint64_t z = c->index + c->seed * 0x9e3779b97f4a7c15ULL; /* splitmix64 finalizer */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return z % o->every == 0;
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

static int rerun_check(df_backend *b, const df_kernel *k, const df_case *c,
                       const df_meta_opts *mo, df_checked *r, df_meta_report *rep)
{
    df_result seen[8];
    unsigned nseen = 1;
    seen[0] = r->res;
    for (uint32_t i = 0; i < mo->reruns; i++) {
        df_result again;
        if (df_backend_run(b, k, c, &again, NULL, NULL) != 0)
            return -1;
        if (again.status != DF_RUN_OK)
            continue; /* an execution error on a rerun is judged when it recurs */
        unsigned j = 0;
        while (j < nseen && !same_bits(&seen[j], &again))
            j++;
        if (j == nseen && nseen < 8)
            seen[nseen++] = again;
    }
    rep->ran |= DF_META_RERUN;
    rep->distinct = nseen;
    if (nseen == 1 || r->j.verdict == DF_V_BUG)
        return 0;
    char why[240];
    snprintf(why, sizeof why, "%u distinct results over %u runs (first %a, then %a)", nseen,
             mo->reruns + 1, seen[0].f, seen[1].f);
    if (k->flags & DF_K_DETERMINISTIC)
        fail(r, DF_V_BUG, "rerun", why);
    else
        fail(r, DF_V_NONDET, "rerun", why);
    return 0;
}

/* Runs a transformed copy; a bug on the copy is a bug of the case. */
static int run_derived(df_backend *b, const df_kernel *k, const df_case *d,
                       const df_oracle_opts *oo, df_checked *out, df_checked *r,
                       const char *rule)
{
    int rc = df_check_case(b, k, d, oo, out);
    if (out->j.verdict == DF_V_BUG && r->j.verdict != DF_V_BUG) {
        char why[sizeof out->j.why + 16];
        snprintf(why, sizeof why, "%s copy: %s", rule, out->j.why);
        fail(r, DF_V_BUG, rule, why);
    }
    return rc;
}

static int has_int_min_or_nan(const df_case *c)
{
    for (uint64_t i = 0; i < c->n; i++) {
        if (c->type == DF_I32 && ((const int32_t *)c->a)[i] == INT32_MIN)
            return 1;
        if (c->type != DF_I32 && isnan(df_elem_as_double(c->type, c->a, i)))
            return 1;
        if (c->type != DF_I32 && isnan(df_elem_as_double(c->type, c->b, i)))
            return 1;
    }
    return 0;
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

static int negate_check(df_backend *b, const df_kernel *k, const df_case *c,
                        const df_oracle_opts *oo, df_scratch *buf, df_checked *r,
                        df_meta_report *rep)
{
    if (has_int_min_or_nan(c) || r->res.status != DF_RUN_OK)
        return 0;
    size_t es = df_type_size(c->type);
    void *na = df_scratch_reserve(buf, (size_t)c->n * es + 64);
    if (!na)
        return 0;
    negate_into(c, na);
    df_case d = *c;
    d.a = na;
    df_checked dr;
    int rc = run_derived(b, k, &d, oo, &dr, r, "negate");
    rep->ran |= DF_META_NEGATE;
    if (rc != 0 || !(k->flags & DF_K_DETERMINISTIC) || dr.res.status != DF_RUN_OK ||
        r->j.verdict == DF_V_BUG)
        return rc;
    int equal = k->acc == DF_I32 ? (int32_t)(0u - (uint32_t)r->res.i) == (int32_t)dr.res.i
                                 : dr.res.f == -r->res.f || /* +0 and -0 compare equal */
                                       (isnan(dr.res.f) && isnan(r->res.f)); /* NaN sign is not portable */
    if (!equal) {
        char why[240];
        if (k->acc == DF_I32)
            snprintf(why, sizeof why, "f(-a) = %lld but -f(a) = %lld", (long long)dr.res.i,
                     -(long long)r->res.i);
        else
            snprintf(why, sizeof why, "f(-a) = %a but -f(a) = %a", dr.res.f, -r->res.f);
        fail(r, DF_V_BUG, "negate", why);
    }
    return 0;
}

/* floor(log2 |x|) of a nonzero finite x, exactly (frexp is exact). */
static int exponent_of(double x)
{
    int e;
    frexp(x, &e);
    return e - 1;
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
        double a = df_elem_as_double(c->type, c->a, i), b = df_elem_as_double(c->type, c->b, i);
        if (!isfinite(a) || !isfinite(b))
            return 0;
        if (a == 0)
            continue;
        int ea = exponent_of(a);
        /* a_i and a_i 2^k must both be normal for the scaling to be exact */
        if (ea < emin_e || ea + kexp < emin_e || ea + kexp > emax_e)
            return 0;
        if (b == 0)
            continue;
        int eb = exponent_of(b);
        if (eb < emin_e)
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

static int scale_check(df_backend *b, const df_kernel *k, const df_case *c,
                       const df_oracle_opts *oo, df_scratch *buf, df_pcg32 *rng,
                       df_checked *r, df_meta_report *rep)
{
    int kexp = 1 + (int)df_pcg32_bounded(rng, 6);
    if (df_pcg32_bounded(rng, 2))
        kexp = -kexp;
    if (r->res.status != DF_RUN_OK || !df_scale_is_exact(k, c, r->refs.G, kexp))
        return 0;
    size_t es = df_type_size(c->type);
    void *sa = df_scratch_reserve(buf, (size_t)c->n * es + 64);
    if (!sa)
        return 0;
    for (uint64_t i = 0; i < c->n; i++) {
        if (c->type == DF_F32)
            ((float *)sa)[i] = ldexpf(((const float *)c->a)[i], kexp);
        else
            ((double *)sa)[i] = ldexp(((const double *)c->a)[i], kexp);
    }
    df_case d = *c;
    d.a = sa;
    df_checked dr;
    int rc = run_derived(b, k, &d, oo, &dr, r, "scale");
    rep->ran |= DF_META_SCALE;
    rep->scale_k = kexp;
    if (rc != 0 || !(k->flags & DF_K_DETERMINISTIC) || dr.res.status != DF_RUN_OK ||
        r->j.verdict == DF_V_BUG)
        return rc;
    double want = ldexp(r->res.f, kexp);
    if (!(dr.res.f == want || (isnan(dr.res.f) && isnan(want)))) {
        char why[240];
        snprintf(why, sizeof why, "f(2^%d a) = %a but 2^%d f(a) = %a", kexp, dr.res.f, kexp,
                 want);
        fail(r, DF_V_BUG, "scale", why);
    }
    return 0;
}

static int permute_check(df_backend *b, const df_kernel *k, const df_case *c,
                         const df_oracle_opts *oo, df_scratch *buf, df_pcg32 *rng,
                         df_checked *r, df_meta_report *rep)
{
    if (c->n < 2 || c->n > 0xffffffffu)
        return 0;
    size_t es = df_type_size(c->type), bytes = (size_t)c->n * es;
    unsigned char *pa = df_scratch_reserve(buf, 2 * bytes + 64);
    if (!pa)
        return 0;
    unsigned char *pb = pa + bytes;
    memcpy(pa, c->a, bytes);
    memcpy(pb, c->b, bytes);
    /* Fisher-Yates on the pairs: pair i stays a pair */
    for (uint64_t i = c->n - 1; i > 0; i--) {
        uint64_t j = df_pcg32_bounded(rng, (uint32_t)(i + 1));
        unsigned char t[8];
        memcpy(t, pa + i * es, es), memcpy(pa + i * es, pa + j * es, es), memcpy(pa + j * es, t, es);
        memcpy(t, pb + i * es, es), memcpy(pb + i * es, pb + j * es, es), memcpy(pb + j * es, t, es);
    }
    df_case d = *c;
    d.a = pa;
    d.b = pb;
    df_checked dr;
    int rc = run_derived(b, k, &d, oo, &dr, r, "permute");
    rep->ran |= DF_META_PERMUTE;
    return rc;
}

int df_metamorphic(df_backend *b, const df_kernel *k, const df_case *c,
                   const df_oracle_opts *oo, const df_meta_opts *mo, df_scratch *buf,
                   df_checked *r, df_meta_report *rep)
{
    memset(rep, 0, sizeof *rep);
    rep->distinct = 1;
    df_pcg32 rng;
    df_pcg32_seed(&rng, c->seed ^ META_STREAM_SALT, c->index);
    if (mo->reruns && rerun_check(b, k, c, mo, r, rep) != 0)
        return -1;
    if (negate_check(b, k, c, oo, buf, r, rep) != 0)
        return -1;
    if (c->type != DF_I32 && scale_check(b, k, c, oo, buf, &rng, r, rep) != 0)
        return -1;
    return permute_check(b, k, c, oo, buf, &rng, r, rep);
}
