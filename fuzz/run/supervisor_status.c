/* supervisor_status.c — what a run says (supervisor.h): its status line
 * on stderr every second, and at its end the last one and the summary. */
#include <stdio.h>

#include "fuzz/run/supervisor.h"

void df_sup_status(const df_sup *s, const char *tag)
{
    if (s->o->quiet)
        return;
    double elapsed = df_now() - s->t0;
    size_t ki;
    double ratio = df_totals_worst(s->tot, s->nk, &ki);
    uint64_t cases = df_sup_cases(s);
    fprintf(stderr,
            "#%llu\t%s cases/s: %.0f ok: %llu precision: %llu nondet: %llu bug: %llu "
            "crash: %llu hang: %llu saved: %llu worst-ratio: %.3g (%s) workers: %u "
            "restarts: %llu elapsed: %.0fs\n",
            (unsigned long long)cases, tag,
            elapsed > 0 ? (cases - s->cases_at_start) / elapsed : 0.0,
            (unsigned long long)df_totals_verdict(s->tot, s->nk, DF_V_OK),
            (unsigned long long)df_totals_verdict(s->tot, s->nk, DF_V_PRECISION),
            (unsigned long long)df_totals_verdict(s->tot, s->nk, DF_V_NONDET),
            (unsigned long long)df_totals_verdict(s->tot, s->nk, DF_V_BUG),
            (unsigned long long)DF_TOTALS_SUM(s->tot, s->nk, crashes),
            (unsigned long long)DF_TOTALS_SUM(s->tot, s->nk, hangs),
            (unsigned long long)DF_TOTALS_SUM(s->tot, s->nk, saved), ratio,
            ki < s->nk ? s->kernels[ki]->name : "-", s->jobs,
            (unsigned long long)s->restarts, elapsed);
}

df_outcome df_run_finish(const df_sup *s, int run_rc, double run_time_before)
{
    df_sup_status(s, s->interrupted ? "INTERRUPTED" : "DONE");
    df_run_summary(stdout, s->o, s->kernels, s->nk, s->tot,
                   DF_TOTALS_SUM(s->tot, s->nk, saved), run_time_before + (df_now() - s->t0),
                   s->backend);
    if (run_rc != 0 || s->env_fail)
        return DF_OUTCOME_ENV;
    return df_totals_verdict(s->tot, s->nk, DF_V_BUG) ? DF_OUTCOME_BUG : DF_OUTCOME_CLEAN;
}
