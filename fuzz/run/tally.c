/* tally.c — the per-kernel tallies added up (a worker's range into its
 * campaign's totals), the totals' sums, the line a finding gets on stderr
 * and run's summary table. What one judged case adds to a tally is worked
 * out where the engine records it. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz/run/run.h"

static double maxd(double a, double b) { return b > a ? b : a; }

void df_tally_add(df_tally *d, const df_tally *s)
{
    d->cases += s->cases;
    d->elems += s->elems;
    for (int v = 0; v < DF_V_COUNT; v++)
        d->verdicts[v] += s->verdicts[v];
    d->model_equal += s->model_equal;
    d->meta_checked += s->meta_checked;
    d->seed_alarms += s->seed_alarms;
    d->seed_alarms_bug += s->seed_alarms_bug;
    if (s->first_alarm && (!d->first_alarm || s->first_alarm < d->first_alarm))
        d->first_alarm = s->first_alarm;
    d->crashes += s->crashes;
    d->hangs += s->hangs;
    d->saved += s->saved;
    d->worst_ratio = maxd(d->worst_ratio, s->worst_ratio);
    d->worst_rel = maxd(d->worst_rel, s->worst_rel);
    for (int b = 0; b < DF_NBINS; b++) {
        d->nbin[b].cases += s->nbin[b].cases;
        d->nbin[b].worst_ratio = maxd(d->nbin[b].worst_ratio, s->nbin[b].worst_ratio);
        d->nbin[b].worst_rel = maxd(d->nbin[b].worst_rel, s->nbin[b].worst_rel);
    }
    for (int h = 0; h < DF_RHIST; h++)
        d->rhist[h] += s->rhist[h];
    d->worst_over_h = maxd(d->worst_over_h, s->worst_over_h);
    for (int h = 0; h < DF_RHIST; h++)
        d->phist[h] += s->phist[h];
    for (int b = 0; b < DF_HBINS; b++) {
        d->hbin[b].cases += s->hbin[b].cases;
        d->hbin[b].sum_log2 += s->hbin[b].sum_log2;
        d->hbin[b].worst_over_h = maxd(d->hbin[b].worst_over_h, s->hbin[b].worst_over_h);
    }
}

uint32_t df_hbin_of(uint64_t h)
{
    uint32_t b = 0;
    while (h > 1 && b + 1 < DF_HBINS)
        h >>= 1, b++;
    return b;
}

int df_hbin_eff_bits(const df_hbin *b, df_type acc, double *worst, double *typical)
{
    if (acc == DF_I32 || !b->cases || !(b->worst_over_h > 0))
        return 0;
    double declared = df_type_facts_of(acc).p;
    *worst = declared - log2(b->worst_over_h);
    *typical = declared - b->sum_log2 / (double)b->cases;
    return 1;
}

int df_tally_eff_bits(const df_tally *t, df_type acc, double *worst, double *typical)
{
    if (acc == DF_I32 || !(t->worst_over_h > 0))
        return 0;
    double declared = df_type_facts_of(acc).p;
    uint64_t total = 0, below = 0;
    for (int h = 0; h < DF_RHIST; h++)
        total += t->phist[h];
    int mid = 0;
    for (; mid < DF_RHIST && (below += t->phist[mid]) * 2 < total; mid++)
        ;
    *worst = declared - log2(t->worst_over_h);
    /* the median's bin [2^b, 2^(b+1)), taken at its middle in log2 */
    *typical = declared - ((double)(mid + DF_RHIST_MIN) + 0.5);
    return 1;
}

void df_totals_add_parts(df_totals *d, const df_tally *tally, const uint8_t *bucket_seen,
                         size_t nk)
{
    for (size_t k = 0; k < nk; k++)
        df_tally_add(&d->tally[k], &tally[k]);
    for (size_t i = 0; i < sizeof d->bucket_seen; i++)
        d->bucket_seen[i] |= bucket_seen[i];
}

uint32_t df_totals_buckets(const df_totals *t)
{
    uint32_t n = 0;
    for (size_t i = 0; i < sizeof t->bucket_seen; i++)
        n += (uint32_t)__builtin_popcount(t->bucket_seen[i]);
    return n;
}

uint64_t df_totals_sum(const df_totals *t, size_t nk, size_t field_offset)
{
    uint64_t n = 0;
    for (size_t k = 0; k < nk; k++)
        n += *(const uint64_t *)((const char *)&t->tally[k] + field_offset);
    return n;
}

double df_totals_worst(const df_totals *t, size_t nk, size_t *ki)
{
    double worst = 0;
    *ki = nk;
    for (size_t k = 0; k < nk; k++)
        if (t->tally[k].worst_ratio > worst) {
            worst = t->tally[k].worst_ratio;
            *ki = k;
        }
    return worst;
}

uint64_t df_totals_verdict(const df_totals *t, size_t nk, int verdict)
{
    uint64_t n = 0;
    for (size_t k = 0; k < nk; k++)
        n += t->tally[k].verdicts[verdict];
    return n;
}


void df_print_finding(FILE *f, const df_finding *fd)
{
    const df_judgement *j = &fd->r->j;
    if (j->verdict == DF_V_BUG)
        fprintf(f, "%-6s %s n=%llu seed=%llu index=%llu %s: %s -> %s\n", "BUG", fd->k->name,
                (unsigned long long)fd->c->n, (unsigned long long)fd->c->seed,
                (unsigned long long)fd->c->index, j->rule, j->why, fd->path);
}

void df_run_summary(FILE *f, const df_run_opts *o, const df_kernel *const *kernels,
                    size_t nk, const df_totals *t, uint64_t saved, double elapsed,
                    const char *backend)
{
    uint64_t cases = DF_TOTALS_SUM(t, nk, cases), alarms = DF_TOTALS_SUM(t, nk, seed_alarms),
             alarms_bug = DF_TOTALS_SUM(t, nk, seed_alarms_bug),
             crashes = DF_TOTALS_SUM(t, nk, crashes), hangs = DF_TOTALS_SUM(t, nk, hangs);
    fprintf(f, "dotfuzz run: %llu cases in %.1f s (%.0f cases/s) on backend %s, seed %llu\n",
            (unsigned long long)cases, elapsed, elapsed > 0 ? cases / elapsed : 0.0, backend,
            (unsigned long long)o->seed);
    fprintf(f, "  %-19s %10s %10s %10s %8s %6s %8s %12s %12s %8s %12s\n", "kernel", "cases",
            "ok", "precision", "nondet", "soft", "bug", "worst-ratio", "model-equal", "meta",
            "seed-alarms");
    /* the host backend runs the models themselves: no result to compare
     * (but under its GPU emulation, DF_HOST_STICKY_ENV, which compares) */
    int no_model = !strcmp(backend, "host") && DF_TOTALS_SUM(t, nk, model_equal) == 0;
    for (size_t i = 0; i < nk; i++) {
        const df_tally *k = &t->tally[i];
        char model[24] = "n/a";
        if (!no_model)
            snprintf(model, sizeof model, "%llu", (unsigned long long)k->model_equal);
        fprintf(f, "  %-19s %10llu %10llu %10llu %8llu %6llu %8llu %12.3g %12s %8llu %12llu\n",
                kernels[i]->name, (unsigned long long)k->cases,
                (unsigned long long)k->verdicts[DF_V_OK],
                (unsigned long long)k->verdicts[DF_V_PRECISION],
                (unsigned long long)k->verdicts[DF_V_NONDET],
                (unsigned long long)k->verdicts[DF_V_SOFT_ERROR],
                (unsigned long long)k->verdicts[DF_V_BUG], k->worst_ratio, model,
                (unsigned long long)k->meta_checked, (unsigned long long)k->seed_alarms);
    }
    fprintf(f,
            "  seed 000's oracle (rel err > %g alone) would raise %llu alarm(s), %llu of them "
            "bugs by this oracle; this oracle: %llu bug(s)\n",
            o->tol, (unsigned long long)alarms, (unsigned long long)alarms_bug,
            (unsigned long long)df_totals_verdict(t, nk, DF_V_BUG));
    uint64_t soft = df_totals_verdict(t, nk, DF_V_SOFT_ERROR);
    if (soft)
        fprintf(f, "  soft errors: %llu case(s) where a kernel reported a condition its inputs "
                   "allow (an overflow), no bug by this oracle; counted here, not printed one "
                   "by one\n", (unsigned long long)soft);
    int said = 0;
    for (size_t i = 0; i < nk; i++) {
        double w, ty;
        if (!df_tally_eff_bits(&t->tally[i], kernels[i]->acc, &w, &ty))
            continue;
        if (!said++)
            fprintf(f, "  effective precision in bits, from the worst and the median error over "
                       "the height h (evidence, not a verdict):\n");
        fprintf(f, "    %-19s worst %5.1f  median %5.1f  declared %d", kernels[i]->name, w, ty,
                df_type_facts_of(kernels[i]->acc).p);
        /* the heights of the worst case (the report has every height) */
        double low = INFINITY, hw, ht;
        int at = -1;
        for (int b = 0; b < DF_HBINS; b++)
            if (df_hbin_eff_bits(&t->tally[i].hbin[b], kernels[i]->acc, &hw, &ht) && hw < low)
                low = hw, at = b;
        if (at >= 0)
            fprintf(f, "  (worst at h %.0f-%.0f)", ldexp(1, at), ldexp(1, at + 1) - 1);
        fputc('\n', f);
    }
    if (crashes || hangs)
        fprintf(f, "  worker processes lost: %llu crash(es), %llu hang(s) (each saved as a bug)\n",
                (unsigned long long)crashes, (unsigned long long)hangs);
    fprintf(f, "  distinct error buckets (kernel x log2 ratio x log10 cond x verdict): %u\n",
            df_totals_buckets(t));
    fprintf(f, "  findings saved: %llu new file(s) in %s\n", (unsigned long long)saved,
            o->corpus);
}
