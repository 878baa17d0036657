/* engine_record.c — the engine's recording: what one judged case adds to
 * the per-kernel tallies (worked out as a mark where the case is judged),
 * whether it is saved as a finding (every one, or only a kernel's worst
 * precision so far and new bug signatures), the case loop one case at a
 * time, and a checked batch recorded in index order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/run/campaign_merge.h"
#include "fuzz/run/engine_internal.h"
#include "fuzz/run/trace.h"

uint32_t df_nbin_of(uint64_t n)
{
    uint32_t b = 0;
    while (n) {
        b++;
        n >>= 1;
    }
    return b < DF_NBINS ? b : DF_NBINS - 1;
}

/* The histograms' bin of a value whose log2 is l (clamped). */
static int bin_of_log2(double l)
{
    l = floor(l);
    if (l < DF_RHIST_MIN)
        l = DF_RHIST_MIN;
    if (l > DF_RHIST_MAX)
        l = DF_RHIST_MAX;
    return (int)l - DF_RHIST_MIN;
}

static int rhist_bin(double ratio)
{
    return ratio > 0 ? bin_of_log2(log2(ratio)) : 0;
}

/* Whether the case's error is a rounding error the bound speaks of: not
 * in the overflow regime (G past the type's range: the error is anything
 * up to G), not a NaN or infinity, whose "error" measures nothing, and not
 * in the underflow regime, where the allowance for subnormal products
 * (or flushing) outweighs gamma_h G and the ratio |err| / (u G) can reach
 * 1/u for a correct kernel. The worst-ratio columns and plots count these
 * cases only; their verdicts are counted either way. */
static int rounding_measured(const df_judgement *j)
{
    if (!j->rule || strcmp(j->rule, "overflow") == 0 || strcmp(j->rule, "nan") == 0 ||
        strcmp(j->rule, "nonfinite") == 0)
        return 0;
    double hu = (double)j->h * j->u;
    double gam = hu < 1 ? hu / (1 - hu) : INFINITY;
    return !(j->G > 0) || j->is_int || j->bound <= 2 * gam * j->G;
}

static df_tally_mark tally_mark_of(uint64_t n, const df_judgement *j)
{
    df_tally_mark m = {NAN, NAN, NAN, NAN, (int)j->verdict, -1, -1, 0, df_nbin_of(n), n};
    if (!rounding_measured(j))
        return m;
    if (isfinite(j->err_ratio)) {
        m.err_ratio = j->err_ratio;
        m.rhist = rhist_bin(j->err_ratio);
        if (!j->is_int && j->h > 0) {
            m.over_h = j->err_ratio / (double)j->h;
            m.log2_over_h = log2(m.over_h);
            m.phist = m.over_h > 0 ? bin_of_log2(m.log2_over_h) : -1;
            m.hbin = (int)df_hbin_of(j->h);
        }
    }
    if (isfinite(j->rel_err))
        m.rel_err = j->rel_err;
    return m;
}

static void tally_mark_add(df_tally *t, const df_tally_mark *m)
{
    t->cases++;
    t->elems += m->n;
    t->verdicts[m->verdict]++;
    df_nbin *nb = &t->nbin[m->nbin];
    nb->cases++;
    if (m->rhist >= 0) {
        t->rhist[m->rhist]++;
        if (m->err_ratio > t->worst_ratio)
            t->worst_ratio = m->err_ratio;
        if (m->err_ratio > nb->worst_ratio)
            nb->worst_ratio = m->err_ratio;
    }
    if (m->phist >= 0) {
        t->phist[m->phist]++;
        if (m->over_h > t->worst_over_h)
            t->worst_over_h = m->over_h;
        df_hbin *hb = &t->hbin[m->hbin];
        hb->cases++;
        hb->sum_log2 += m->log2_over_h;
        if (m->over_h > hb->worst_over_h)
            hb->worst_over_h = m->over_h;
    }
    if (!isnan(m->rel_err)) {
        if (m->rel_err > t->worst_rel)
            t->worst_rel = m->rel_err;
        if (m->rel_err > nb->worst_rel)
            nb->worst_rel = m->rel_err;
    }
}

void df_tally_case(df_tally *t, uint64_t n, const df_judgement *j)
{
    df_tally_mark m = tally_mark_of(n, j);
    tally_mark_add(t, &m);
}

typedef struct df_sig {
    size_t ki;
    int verdict, bucket;
    char rule[24];
} df_sig;

/* Same result to the bit (two NaNs are equal: payloads are not portable). */
static int bit_equal(const df_result *x, const df_result *y)
{
    if (isnan(x->f) && isnan(y->f))
        return x->i == y->i;
    return memcmp(&x->f, &y->f, sizeof x->f) == 0 && x->i == y->i;
}

/* Whether (ki, verdict, rule, bucket) is known; records it if not.
 * Returns 1 when it was new. */
static int note_signature(df_engine *e, size_t ki, int verdict, const char *rule, int bucket)
{
    for (size_t i = 0; i < e->nsigs; i++) {
        const df_sig *x = &e->sigs[i];
        if (x->ki == ki && x->verdict == verdict && x->bucket == bucket &&
            strcmp(x->rule, rule) == 0)
            return 0;
    }
    if (e->nsigs == e->capsigs) {
        size_t cap = e->capsigs ? 2 * e->capsigs : 64;
        df_sig *p = realloc(e->sigs, cap * sizeof *p);
        if (!p)
            return 1; /* cannot remember it: save rather than lose it */
        e->sigs = p;
        e->capsigs = cap;
    }
    df_sig *s = &e->sigs[e->nsigs++];
    *s = (df_sig){ki, verdict, bucket, ""};
    snprintf(s->rule, sizeof s->rule, "%s", rule);
    return 1;
}

void df_engine_known_signature(df_engine *e, size_t ki, int verdict, const char *rule,
                               double err_ratio)
{
    note_signature(e, ki, verdict, rule, df_ratio_bucket(err_ratio));
}

/* Whether a bug (or soft error) adds a new signature; records it if so. */
static int new_signature(df_engine *e, size_t ki, const df_judgement *j)
{
    return note_signature(e, ki, (int)j->verdict, j->rule, df_ratio_bucket(j->err_ratio));
}

static int wants_saving(df_engine *e, size_t ki, const df_judgement *j)
{
    switch (j->verdict) {
    case DF_V_OK:
    case DF_V_NONDET: /* measured and counted, not failed */
        return 0;
    case DF_V_PRECISION:
        if (e->o->save_precision == DF_SAVE_ALL)
            return 1;
        if (e->o->save_precision == DF_SAVE_NONE || !(j->rel_err > e->worst_rel_saved[ki]))
            return 0;
        e->worst_rel_saved[ki] = j->rel_err;
        return 1;
    default:
        if (e->o->save_bugs == DF_SAVE_ALL)
            return 1;
        return e->o->save_bugs == DF_SAVE_NEW && new_signature(e, ki, j);
    }
}

df_mark df_mark_of(const df_engine *e, size_t ki, const df_case *c, const df_checked *r)
{
    const df_judgement *j = &r->j;
    df_mark m = {tally_mark_of(c->n, j), df_error_bucket(e->kernels[ki], j),
                 r->model_ran && r->model.status == DF_RUN_OK &&
                     r->res.status == DF_RUN_OK && bit_equal(&r->res, &r->model),
                 (uint8_t)df_seed_oracle_alarm(j, e->o->tol), (uint8_t)ki, 0};
    return m;
}

/* Adds the mark of case index into t. */
static void mark_add(df_totals *t, const df_mark *m, uint64_t index)
{
    df_tally *k = &t->tally[m->ki];
    if (m->alarm && (!k->first_alarm || index < k->first_alarm - 1))
        k->first_alarm = index + 1;
    tally_mark_add(k, &m->tm);
    t->bucket_seen[m->bucket / 8] |= (uint8_t)(1u << (m->bucket % 8));
    k->model_equal += m->model_equal;
    k->seed_alarms += m->alarm;
    k->seed_alarms_bug += m->alarm && m->tm.verdict == DF_V_BUG;
}

/* Tallies one judged case and saves it if it is a finding; pre, when not
 * NULL, is its mark as the pool made it (r unchanged since). Returns -1 if
 * the corpus cannot be written or the finding cannot be logged. */
static int record(df_engine *e, size_t ki, const df_case *c, const df_checked *r,
                  df_totals *t, const df_mark *pre)
{
    const df_judgement *j = &r->j;
    df_tally *k = &t->tally[ki];
    df_mark m = pre ? *pre : df_mark_of(e, ki, c, r);
    mark_add(t, &m, c->index);
    /* a huge case is saved as a bug, not as a precision finding (16 GiB a file) */
    if ((j->verdict == DF_V_PRECISION && c->n >= DF_GEN_HUGE_MIN) || !wants_saving(e, ki, j))
        return 0;
    /* a precision verdict was judged without its text (e->oo.terse): the
     * same judgement again, with it, for the file and the finding's log */
    df_checked full;
    if (j->verdict == DF_V_PRECISION && j->why[0] == '\0') {
        df_oracle_opts oo = e->oo;
        df_judgement again;
        oo.terse = 0;
        df_judge(e->kernels[ki], c, &r->refs, &r->res, r->model_ran ? &r->model : NULL, &oo,
                 &again);
        if (again.verdict == j->verdict && again.rule == j->rule) {
            full = *r;
            memcpy(full.j.why, again.why, sizeof full.j.why);
            r = &full;
        }
    }
    char path[4096];
    int is_new = 0;
    if (df_save_finding(e->o->corpus, c, r, path, sizeof path, &is_new) != 0) {
        perror("dotfuzz run: cannot save finding");
        return -1;
    }
    k->saved += (uint64_t)is_new;
    df_finding f = {ki, e->kernels[ki], c, r, path, is_new};
    return e->on_finding ? e->on_finding(e->ctx, &f) : 0;
}

int df_one_at_a_time(df_engine *e, uint64_t lo, uint64_t hi, double deadline, df_totals *t,
                     uint64_t *next)
{
    df_checked r;
    uint64_t i = lo;
    int rc = DF_RANGE_DONE;
    for (; i < hi; i++) {
        if (df_stopping(e, deadline)) {
            rc = DF_RANGE_STOPPED;
            break;
        }
        size_t ki = df_run_kernel_of(i, e->nk);
        const df_kernel *k = e->kernels[ki];
        df_case c;
        if (df_generate(e->o->seed, i, k, &e->go, &e->buf, &c) != 0) {
            fprintf(stderr, "dotfuzz run: cannot generate case %llu for %s (out of memory?)\n",
                    (unsigned long long)i, k->name);
            rc = DF_RANGE_ENV;
            break;
        }
        if (e->hb)
            df_worker_case_begin(e->hb, i, 1);
        int dead = df_check_case_meta(e->b, e->pool, k, &c, &e->oo, &e->o->meta, &e->meta_buf,
                                      &r) != 0;
        if (e->hb)
            df_worker_case_end(e->hb);
        t->tally[ki].meta_checked += (uint64_t)df_meta_checked(&e->o->meta, &c);
        if (record(e, ki, &c, &r, t, NULL) != 0) {
            rc = DF_RANGE_ENV;
            break;
        }
        if (dead) {
            /* judged and saved; this process's CUDA context is gone */
            fprintf(stderr, "dotfuzz run: backend unusable after %s: %s\n", k->name,
                    r.res.err);
            i++;
            rc = DF_RANGE_POISONED;
            break;
        }
    }
    *next = i;
    return rc;
}

/* The error of the metamorphic copy that killed the backend, or NULL. */
static const char *killed_by_copy(const df_meta_plan *p)
{
    for (size_t v = 0; v < p->nvar; v++)
        if (p->ran[v] < 0)
            return p->out[v].res.err;
    return NULL;
}

/* Records the checked batch in slots, indices [lo, lo + n), in order;
 * dead: the backend died in its check. *next: the first index not
 * recorded. */
int df_record_batch(df_engine *e, df_slot *slots, uint64_t lo, size_t n, int dead,
                    df_totals *t, uint64_t *next)
{
    df_batch_state *bs = e->bs;
    double t3 = df_now();
    int rc = DF_RANGE_DONE;
    size_t s = 0;
    const df_mark *mk = bs->marks + df_set_of(e, slots) * e->batch;
    for (; s < n; s++) {
        if (!dead && mk[s].quick) { /* the rest of the loop does nothing more */
            mark_add(t, &mk[s], lo + s);
            continue;
        }
        df_slot *sl = &slots[s];
        const df_kernel *k = e->kernels[sl->ki];
        if (sl->gen_failed) {
            fprintf(stderr, "dotfuzz run: cannot generate case %llu for %s (out of memory?)\n",
                    (unsigned long long)sl->c.index, k->name);
            rc = DF_RANGE_ENV;
            break;
        }
        /* After a death, the batch stops at its first case not checked
         * in full: one the GPU never ran (its kernel came after the
         * culprit's, or it came after the culprit in its kernel's batch),
         * or one whose metamorphic copies did not all run. The culprit is
         * recorded when it is that case; otherwise it is among the cases
         * after *next, which the caller runs again one at a time. */
        if (!sl->ran)
            break;
        const char *died = dead && sl->r.res.status != DF_RUN_OK ? sl->r.res.err : NULL;
        /* the pool's mark stands where nothing judged the case since: not
         * after a death, nor a sampled case's metamorphic checks (made
         * again here, the marks of the precision verdicts, many of the
         * cases at n = 2000, would be on the caller's path) */
        int sampled = df_meta_sampled(&e->o->meta, &sl->c);
        const df_mark *pre = dead || sampled ? NULL : &mk[s];
        if (!died && sampled) {
            df_meta_report mr;
            if (!sl->planned)
                break; /* the batch died before its metamorphic checks */
            if (df_meta_plan_finish(k, &e->o->meta, sl->plan, &sl->r, &mr) != 0 &&
                !(died = killed_by_copy(sl->plan)))
                break; /* a copy did not run: the death was another case's */
        }
        t->tally[sl->ki].meta_checked += (uint64_t)(sampled && df_meta_checked(&e->o->meta, &sl->c));
        if (record(e, sl->ki, &sl->c, &sl->r, t, pre) != 0) {
            rc = DF_RANGE_ENV;
            break;
        }
        if (died) {
            fprintf(stderr, "dotfuzz run: backend unusable after %s: %s\n", k->name, died);
            s++;
            rc = DF_RANGE_POISONED;
            break;
        }
    }
    if (rc == DF_RANGE_DONE && s < n) {
        fprintf(stderr, "dotfuzz run: backend unusable: it died in the batch of indices "
                        "%llu..%llu, on one of %llu..%llu, which were not checked (a "
                        "campaign, run --out, runs them again one at a time)\n",
                (unsigned long long)lo, (unsigned long long)(lo + n - 1),
                (unsigned long long)(lo + s), (unsigned long long)(lo + n - 1));
        rc = DF_RANGE_POISONED;
    }
    bs->stage_s[DF_STAGE_RECORD] += df_now() - t3;
    df_trace(DF_TR_RECORD, DF_TRACE_CALLER, lo, t3, df_now());
    *next = lo + s;
    return rc;
}
