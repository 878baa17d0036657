/* report_triage.c — mutants, distinct bugs, the report's first line and
 * the worst cases' order (report_triage.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/cmd/report_triage.h"
#include "fuzz/run/triage.h"
#include "kernels/kernel.h"

#define BUG 4 /* df_campaign_verdicts' index of "bug" */

int df_report_is_mutant(const char *name)
{
    for (size_t i = 0; i < df_mutant_count(); i++)
        if (!strcmp(df_mutant_at(i)->name, name))
            return 1;
    return 0;
}

/* Whether findings.jsonl has a bug of kernel name. */
static int logged_bug(const df_campaign_data *c, const char *name)
{
    for (size_t i = 0; i < c->nfs; i++)
        if (c->fs[i].v == BUG && !strcmp(c->fs[i].kernel, name))
            return 1;
    return 0;
}

/* Kernel name's bugs in kernels.tsv (column 6); 0 without a row. */
static double tsv_bugs(const df_campaign_data *c, const char *name)
{
    double bugs;
    for (size_t r = 0; r < c->nkrows; r++)
        if (!strcmp(c->krows[r].f[0], name) && df_campaign_num(c->krows[r].f[6], &bugs) == 0)
            return bugs;
    return 0;
}

size_t df_report_mutants(const df_campaign_data *c, size_t *caught)
{
    size_t n = 0;
    *caught = 0;
    for (size_t k = 0; k < c->nk; k++)
        if (df_report_is_mutant(c->kernels[k])) {
            n++;
            *caught += logged_bug(c, c->kernels[k]) || tsv_bugs(c, c->kernels[k]) > 0;
        }
    return n;
}

size_t df_report_distinct_bugs(const df_campaign_data *c, int mutants)
{
    /* a kernel at a time (findings.jsonl's kernels are among c->kernels):
     * the failure classes its bugs show, one pass over the findings each,
     * not a pass over the earlier findings for every finding */
    size_t n = 0;
    for (size_t k = 0; k < c->nk; k++) {
        const char *name = c->kernels[k];
        if (df_report_is_mutant(name) != mutants)
            continue;
        unsigned classes = 0;
        for (size_t i = 0; i < c->nfs; i++)
            if (c->fs[i].v == BUG && !strcmp(c->fs[i].kernel, name))
                classes |= 1u << df_bug_class_of(c->fs[i].rule);
        for (unsigned b = 0; b < DF_BUG_NCLASSES; b++)
            n += (classes >> b) & 1u;
        n += !classes && tsv_bugs(c, name) > 0;
    }
    return n;
}

void df_report_answer(const df_campaign_data *c, char *buf, size_t cap)
{
    size_t n = df_report_distinct_bugs(c, 0);
    if (n)
        snprintf(buf, cap, "Bugs in correct kernels: %zu distinct", n);
    else
        snprintf(buf, cap, "Bugs in correct kernels: none");
}

int df_report_is_overflow(const df_logged_finding *f)
{
    return f->v == 1 && !strcmp(f->rule, "overflow");
}

/* Bugs first, then worst ratio: +inf, finite descending, NaN last; ties in
 * file order. */
static int cmp_worst(const void *a, const void *b)
{
    const df_logged_finding *const *x = a, *const *y = b;
    int xb = (*x)->v == BUG, yb = (*y)->v == BUG;
    if (xb != yb)
        return yb - xb;
    double p = (*x)->err_ratio, q = (*y)->err_ratio;
    int pn = isnan(p), qn = isnan(q);
    if (pn != qn)
        return pn - qn;
    if (!pn && p != q)
        return p > q ? -1 : 1;
    return *x < *y ? -1 : *x > *y;
}

const df_logged_finding **df_report_worst_order(const df_campaign_data *c, size_t *nbugs,
                                                size_t *nmain, size_t *nover)
{
    *nbugs = *nmain = *nover = 0;
    const df_logged_finding **ord = c->nfs ? malloc(c->nfs * sizeof *ord) : NULL;
    if (!ord)
        return NULL;
    size_t m = 0;
    for (size_t i = 0; i < c->nfs; i++)
        if (!df_logged_crash_or_hang(&c->fs[i]) && !df_report_is_overflow(&c->fs[i]))
            ord[m++] = &c->fs[i];
    qsort(ord, m, sizeof *ord, cmp_worst);
    *nmain = m;
    while (*nbugs < m && ord[*nbugs]->v == BUG)
        (*nbugs)++;
    size_t o = m;
    for (size_t i = 0; i < c->nfs; i++)
        if (!df_logged_crash_or_hang(&c->fs[i]) && df_report_is_overflow(&c->fs[i]))
            ord[o++] = &c->fs[i];
    *nover = o - m;
    return ord;
}
