/* check.c — references + backend + oracle for one case, and the ways a
 * judged case is written out (corpus file, JSON line, text line). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/check/check.h"
#include "fuzz/json.h"
#include "fuzz/long_case.h"
#include "fuzz/gen/generator.h"
#include "fuzz/check/metamorphic.h"
#include "fuzz/check/schedule.h"

int df_check_case_refs(df_backend *b, const df_kernel *k, const df_case *c,
                       const df_refs *refs, const df_oracle_opts *o,
                       df_checked *out)
{
    if (&out->refs != refs)
        out->refs = *refs;
    int rc = df_backend_run(b, k, c, &out->res, &out->model, &out->model_ran);
    /* judged even when the backend is now unusable: the case that poisoned
     * it is a finding (rule "exec") and must be saved */
    df_judge(k, c, &out->refs, &out->res, out->model_ran ? &out->model : NULL,
             o, &out->j);
    out->perturbed = 0;
    if (c->sched.seed && out->j.verdict == DF_V_BUG) {
        /* a case that carries its perturbation (a schedule finding
         * replayed): the rule that found it */
        char how[120], why[sizeof out->j.why + sizeof how + 8];
        df_sched_describe(c, how, sizeof how);
        snprintf(why, sizeof why, "under %s: %s", how, out->j.why);
        memcpy(out->j.why, why, sizeof out->j.why - 1); /* truncated to fit */
        out->j.why[sizeof out->j.why - 1] = '\0';
        out->j.rule = "schedule";
    }
    return rc;
}

int df_check_case(df_backend *b, const df_kernel *k, const df_case *c,
                  const df_oracle_opts *o, df_checked *out)
{
    df_refs_compute(c->type, c->a, c->b, c->n, &out->refs);
    return df_check_case_refs(b, k, c, &out->refs, o, out);
}

void df_check_failed(df_pool *pool, const df_kernel *k, const df_case *c, const char *rule,
                     const char *why, df_checked *out)
{
    memset(out, 0, sizeof *out);
    df_refs_compute_pool(pool, c->type, c->a, c->b, c->n, &out->refs);
    out->res.status = DF_RUN_ERROR;
    out->res.f = NAN;
    snprintf(out->res.err, sizeof out->res.err, "%s", why);
    df_judge(k, c, &out->refs, &out->res, NULL, NULL, &out->j);
    out->j.rule = rule;
    out->j.result = out->j.abs_err = out->j.rel_err = out->j.err_ratio = NAN;
}

int df_finding_encode(const df_case *c, const df_checked *r, uint8_t **buf, size_t *len)
{
    df_case_meta m = {
        .verdict = (uint8_t)r->j.verdict,
        .result = r->j.result,
        .iresult = r->j.iresult,
        .reference = r->j.ref,
    };
    /* the soft errors the kernel reported travel with the case, so replay
     * can show what it reported when it was found */
    for (uint32_t code = 1; code <= DF_SOFT_CODES; code++)
        if (r->res.soft_mask & (1u << (code - 1)))
            m.soft[m.nsoft++] = r->res.soft[code - 1];
    if (r->perturbed) { /* the rerun that decided, so that replay repeats it */
        df_case v = *c;
        v.sched = r->sched;
        v.launch = r->launch;
        return df_corpus_encode(&v, &m, buf, len);
    }
    return df_corpus_encode(c, &m, buf, len);
}

const char *df_finding_kind_of(df_verdict v, const char *rule)
{
    if (v == DF_V_BUG && rule && (!strcmp(rule, "crash") || !strcmp(rule, "hang")))
        return rule;
    return df_verdict_name(v);
}

const char *df_finding_kind(const df_judgement *j) { return df_finding_kind_of(j->verdict, j->rule); }

int df_save_finding(const char *dir, const df_case *c, const df_checked *r,
                    char *path, size_t path_len, int *is_new)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    if (df_finding_encode(c, r, &buf, &len) != 0)
        return -1;
    int rc = df_corpus_store(dir, df_finding_kind(&r->j), buf, len, path, path_len, is_new);
    free(buf);
    return rc;
}

/* "key":{"hex":"0x1.8p+1","dec":3} (dec null with key_class beside when
 * x is not finite) */
static void json_value(FILE *f, const char *key, double x)
{
    fprintf(f, "\"%s\":{\"hex\":\"%a\",", key, x);
    df_json_member(f, "dec", x);
    fputc('}', f);
}

static const char *family_name(uint32_t id)
{
    const df_family *fam = df_family_by_id(id);
    return fam ? fam->name : "imported";
}

void df_print_json(FILE *f, const char *source, const df_case *c,
                   const df_kernel *k, const df_checked *r)
{
    const df_judgement *j = &r->j;
    fputc('{', f);
    df_json_stamp(f);
    fputs(",\"source\":", f);
    df_json_str(f, source);
    fprintf(f, ",\"kernel\":\"%s\",\"type\":\"%s\",\"acc\":\"%s\",\"fused\":", k->name,
            df_type_name(c->type), df_type_name(k->acc));
    df_json_fused(f, k);
    fprintf(f, ",\"n\":%llu,\"family\":\"%s\",\"seed\":", (unsigned long long)c->n,
            family_name(c->family));
    df_json_u64(f, c->seed);
    fputs(",\"index\":", f);
    df_json_u64(f, c->index);
    fprintf(f, ",\"launch\":{\"block\":%u,\"grid\":%u,\"offset_a\":%u,\"offset_b\":%u},",
            c->launch.block, c->launch.grid, c->launch.offset_a, c->launch.offset_b);
    if (c->blas.on) /* the BLAS call: n_arg a string, as every 64-bit integer */
        fprintf(f, "\"blas\":{\"inc_a\":%d,\"inc_b\":%d,\"n_arg\":\"%lld\"},",
                c->blas.inc_a, c->blas.inc_b, (long long)c->blas.n_arg);
    const df_schedule *sc = r->perturbed ? &r->sched : &c->sched;
    if (sc->seed) /* the perturbed schedule the case ran under, or its finding's */
        fprintf(f, "\"schedule\":{\"seed\":%u,\"flags\":%u,\"sm_share\":%u,\"noise_us\":%u},",
                sc->seed, sc->flags, sc->sm_share, sc->noise_us);
    fprintf(f, "\"inputs\":{\"all_integer\":%s,\"nonfinite\":%s,",
            r->refs.all_integer ? "true" : "false",
            r->refs.has_nonfinite ? "true" : "false");
    df_json_member(f, "max_abs_a", r->refs.max_abs_a);
    fputc(',', f);
    df_json_member(f, "max_abs_b", r->refs.max_abs_b);
    fputs("},", f);
    if (j->is_int) {
        fputs("\"result\":{\"int\":", f);
        df_json_i64(f, j->iresult);
        fputs("},", f);
    } else {
        json_value(f, "result", j->result);
        fputc(',', f);
    }
    fprintf(f, "\"exact\":{\"known\":%s", j->exact_known ? "true" : "false");
    if (j->exact_known) {
        fprintf(f, ",\"hex\":\"%a\",\"tail_hex\":\"%a\",", j->exact_hi, j->exact_lo);
        df_json_member(f, "dec", j->exact_hi);
        if (r->refs.fp_known) /* correctly rounded to float from s itself */
            fprintf(f, ",\"f32_hex\":\"%a\"", (double)r->refs.fp.f32);
    }
    fputs("},", f);
    json_value(f, "kahan", j->kahan);
    static const char *const keys[] = {"G", "abs_err", "rel_err", "err_ratio", "ulp_err",
                                       "bound", "cond"};
    const double vals[] = {j->G, j->abs_err, j->rel_err, j->err_ratio, j->ulp_err, j->bound,
                           j->cond};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        fputc(',', f);
        df_json_member(f, keys[i], vals[i]);
    }
    fprintf(f, ",\"h\":%llu,\"verdict\":\"%s\",\"rule\":\"%s\",\"why\":",
            (unsigned long long)j->h, df_verdict_name(j->verdict), j->rule);
    df_json_str(f, j->why);
    fputs(",\"soft_errors\":[", f);
    const char *sep = "";
    for (uint32_t code = 1; code <= DF_SOFT_CODES; code++) {
        const df_soft_report *s = &r->res.soft[code - 1];
        if (!(r->res.soft_mask & (1u << (code - 1))))
            continue;
        fprintf(f, "%s{\"code\":\"%s\",\"kernel\":\"%s\",\"line\":%u,\"block\":%u,"
                   "\"thread\":%u,\"round\":%u,\"index\":",
                sep, df_soft_code_name(s->code), df_soft_kernel_name(s->kernel), s->line,
                s->block, s->thread, s->round);
        df_json_u64(f, s->index);
        fputs(",\"ivalue\":", f);
        df_json_i64(f, s->ivalue);
        fputc(',', f);
        df_json_member(f, "fvalue", s->fvalue);
        fputc('}', f);
        sep = ",";
    }
    fputs("]}\n", f);
}

void df_print_line(FILE *f, const char *source, const df_case *c,
                   const df_kernel *k, const df_checked *r)
{
    const df_judgement *j = &r->j;
    fprintf(f, "%s  %-13s %-9s n=%-8llu block=%-4u grid=%-6u %-10s rel=%.3g ratio=%.3g ulp=%.3g: %s\n",
            source, k->name, df_verdict_name(j->verdict), (unsigned long long)c->n,
            c->launch.block, c->launch.grid, j->rule, j->rel_err, j->err_ratio, j->ulp_err,
            j->why);
    for (uint32_t code = 1; code <= DF_SOFT_CODES; code++)
        if (r->res.soft_mask & (1u << (code - 1)))
            df_print_soft(f, "    soft error: ", &r->res.soft[code - 1]);
}

void df_print_soft(FILE *f, const char *lead, const df_soft_report *s)
{
    fprintf(f, "%s%s reported by %s (line %u): block %u thread %u round %u index %llu value ",
            lead, df_soft_code_name(s->code), df_soft_kernel_name(s->kernel), s->line, s->block,
            s->thread, s->round, (unsigned long long)s->index);
    if (s->code == DF_SOFT_INT_OVERFLOW)
        fprintf(f, "%lld\n", (long long)s->ivalue);
    else
        fprintf(f, "%a\n", s->fvalue);
}

int df_seed_oracle_alarm(const df_judgement *j, double tol)
{
    double got = j->is_int ? (double)j->iresult : j->result;
    double rel = fabs(got - j->ref) / fabs(j->ref);
    return rel > tol;
}

int df_launch_for(const df_kernel *k, const df_case *src, df_case *c, char *why,
                  size_t why_len)
{
    *c = *src;
    if (df_launch_resolve(k, c->n, &c->launch, why, why_len) == 0)
        return 0;
    if (src->kernel[0])
        return -1; /* the case names k: its launch must be valid */
    c->launch = (df_launch){0};
    if (k->flags & DF_K_ANY_ALIGNMENT) {
        c->launch.offset_a = src->launch.offset_a;
        c->launch.offset_b = src->launch.offset_b;
    }
    return df_launch_resolve(k, c->n, &c->launch, why, why_len);
}

const df_kernel *df_case_candidate(const df_case *c, size_t i, const df_kernel *const *set,
                                   size_t nset)
{
    if (c->kernel[0]) {
        const df_kernel *k = i == 0 ? df_kernel_find(c->kernel) : NULL;
        for (size_t j = 0; k && nset && set[j] != k; j++)
            if (j + 1 == nset)
                return NULL;
        return k;
    }
    if (nset)
        return i < nset ? set[i] : NULL;
    size_t nbuiltin = df_kernel_count();
    return i < nbuiltin ? df_kernel_at(i) : df_plugin_at(i - nbuiltin);
}

int df_check_case_meta(df_backend *b, df_pool *pool, const df_kernel *k, const df_case *c,
                       const df_oracle_opts *oo, const struct df_meta_opts *mo,
                       df_scratch *buf, df_checked *out)
{
    df_refs_compute_pool(pool, c->type, c->a, c->b, c->n, &out->refs);
    if (df_check_case_refs(b, k, c, &out->refs, oo, out) != 0)
        return -1;
    if (!df_meta_sampled(mo, c))
        return 0;
    df_meta_report mr;
    return df_metamorphic(b, k, c, oo, mo, buf, out, &mr);
}

/* floor(log2(r)) shifted so that ratios from 2^-30 up map to 1..47; 0 for
 * an exact result, 48 for a non-finite ratio. */
static unsigned ratio_bucket(double r)
{
    if (r == 0)
        return 0;
    if (!isfinite(r))
        return 48;
    int e = (int)floor(log2(r)) + 31;
    return e < 1 ? 1 : e > 47 ? 47 : (unsigned)e;
}

/* floor(log10(cond)) clamped to 0..31 (an infinite or NaN cond is 31). */
static unsigned cond_bucket(double c)
{
    if (!(c < 1e31))
        return 31;
    if (!(c >= 10))
        return 0;
    return (unsigned)floor(log10(c));
}

static uint32_t fnv1a(uint32_t h, const void *p, size_t n)
{
    const uint8_t *s = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 16777619u;
    return h;
}

uint32_t df_error_bucket(const df_kernel *k, const df_judgement *j)
{
    uint32_t key[3] = {ratio_bucket(j->err_ratio), cond_bucket(j->cond), (uint32_t)j->verdict};
    uint32_t h = fnv1a(2166136261u, k->name, strlen(k->name));
    return fnv1a(h, key, sizeof key) % DF_BUCKETS;
}
