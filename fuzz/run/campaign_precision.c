/* campaign_precision.c — the effective precision's tables of a campaign
 * directory (declared in campaign_dir.h): precision_hist.tsv, per float
 * kernel and log2 bin of ratio / h, and precision_by_h.tsv, per float
 * kernel and tree-height bin; and the bits a table's rows give. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz/run/campaign_dir.h"

void df_prec_tsv(FILE *f, const df_kernel *const *ks, size_t nk, const df_totals *tot)
{
    fprintf(f, "%s\n", df_tsv_header(DF_PREC_TSV));
    for (size_t k = 0; k < nk; k++) {
        const df_tally *t = &tot->tally[k];
        if (ks[k]->acc == DF_I32)
            continue;
        for (int h = 0; h < DF_RHIST; h++)
            if (t->phist[h]) {
                df_prec_row r = {k, df_type_facts_of(ks[k]->acc).p, h + DF_RHIST_MIN,
                                 (double)t->phist[h], t->worst_over_h};
                df_prec_tsv_row(f, ks[k]->name, &r);
            }
    }
}

void df_prech_tsv(FILE *f, const df_kernel *const *ks, size_t nk, const df_totals *tot)
{
    fprintf(f, "%s\n", df_tsv_header(DF_PRECH_TSV));
    for (size_t k = 0; k < nk; k++)
        for (int b = 0; ks[k]->acc != DF_I32 && b < DF_HBINS; b++) {
            const df_hbin *hb = &tot->tally[k].hbin[b];
            if (hb->cases) {
                df_prech_row r = {k, df_type_facts_of(ks[k]->acc).p, b, (double)hb->cases,
                                  hb->worst_over_h, hb->sum_log2};
                df_prech_tsv_row(f, ks[k]->name, &r);
            }
        }
}

void df_prech_tsv_row(FILE *f, const char *kernel, const df_prech_row *r)
{
    fprintf(f, "%s\t%.0f\t%.0f\t%.0f\t%.17g\t%.17g\n", kernel, r->declared_bits, r->log2_h,
            r->cases, r->worst_over_h, r->sum_log2);
}

void df_prec_tsv_row(FILE *f, const char *kernel, const df_prec_row *r)
{
    fprintf(f, "%s\t%.0f\t%.0f\t%.0f\t%.6g\n", kernel, r->declared_bits, r->log2_over_h,
            r->count, r->worst_over_h);
}

df_type df_prec_acc_of_bits(double bits)
{
    for (int t = 1; t <= DF_TYPE_MAX; t++)
        if (t != DF_I32 && df_type_facts_of((df_type)t).p == bits)
            return (df_type)t;
    return DF_I32;
}

int df_prec_rows_bits(const df_prec_row *rows, size_t n, size_t k, double *declared,
                      double *worst, double *median)
{
    df_tally *t = calloc(1, sizeof *t);
    int found = 0;
    for (size_t i = 0; t && i < n; i++) {
        const df_prec_row *r = &rows[i];
        if (r->k != k || r->log2_over_h < DF_RHIST_MIN || r->log2_over_h > DF_RHIST_MAX)
            continue;
        t->phist[(int)r->log2_over_h - DF_RHIST_MIN] += (uint64_t)r->count;
        t->worst_over_h = r->worst_over_h > t->worst_over_h ? r->worst_over_h : t->worst_over_h;
        *declared = r->declared_bits;
        found = 1;
    }
    found = found && df_tally_eff_bits(t, df_prec_acc_of_bits(*declared), worst, median);
    free(t);
    return found;
}
