/* report_panels.c — the data and panels of each plot of `dotfuzz report`
 * (report_panels.h). Only positive finite values reach a log axis: an
 * exact bin (ratio 0) is marked at the floor, an infinite ratio (integer
 * kernels, overflows) is left out; both are in the report's tables. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz/cmd/report_bound.h"
#include "fuzz/cmd/report_panels.h"
#include "fuzz/cmd/report_triage.h"

#define BAND_FILL "#f6c4c4"
#define BAND_EDGE "#c00000"
#define POINT "#1f4e9a"
#define EXACT "#2a8a2a"

void df_gp_str(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
    }
    fputc('\'', f);
}

static int pos_finite(double v)
{
    return isfinite(v) && v > 0;
}

/* Starts an index block of g's data; returns its index. */
static size_t block(df_gp *g, const char *kernel, const char *columns)
{
    fprintf(g->d, "%s# %s\n# %s\n", g->blocks ? "\n\n" : "", kernel, columns);
    return g->blocks++;
}

/* One item of a panel's plot command: "plot " first, then ", ". */
static void item(df_gp *g, int *items, const char *style, size_t index)
{
    fprintf(g->body, "%s'%s' index %zu %s", (*items)++ ? ", \\\n     " : "plot ", g->dat, index,
            style);
}

/* A panel's title: the kernel, and its bugs when kernels.tsv counts any. */
static void panel_title(df_gp *g, const df_campaign_data *c, const char *kernel)
{
    char title[256];
    double bugs = 0, v;
    for (size_t r = 0; r < c->nkrows; r++) /* column 6 of kernels.tsv: bug */
        if (!strcmp(c->krows[r].f[0], kernel) && df_campaign_num(c->krows[r].f[6], &v) == 0)
            bugs = v;
    if (bugs > 0)
        snprintf(title, sizeof title, "%s: %.0f bug%s", kernel, bugs, bugs == 1 ? "" : "s");
    else
        snprintf(title, sizeof title, "%s", kernel);
    fputs("set title ", g->body);
    df_gp_str(g->body, title);
    fputs("\n", g->body);
}

static int wanted(const df_campaign_data *c, size_t k, int mutants)
{
    return df_report_is_mutant(c->kernels[k]) == mutants;
}

/* The longest length bin's end of kernel k with cases; -1 without. */
static double kernel_nmax(const df_campaign_data *c, size_t k)
{
    double nmax = -1;
    for (size_t i = 0; i < c->nprof; i++)
        if (c->prof[i].k == k && c->prof[i].cases > 0)
            nmax = fmax(nmax, c->prof[i].n_hi);
    return nmax;
}

/* The lengths a kernel's threshold band is drawn at: powers of two up to
 * the end of its longest length bin, nmax. */
static double band_n(int j, double nmax)
{
    double n = ldexp(1, j);
    return n < nmax ? n : nmax;
}

static double floor10(double v) { return pow(10, floor(log10(v))); }
static double ceil10(double v) { return pow(10, ceil(log10(v))); }

/* ---- error ratio against n ---- */

static size_t ratio_panels(const df_campaign_data *c, df_gp *g, int mutants, const char **why)
{
    double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0, lo, hi;
    for (size_t i = 0; i < c->nprof; i++) {
        const df_prof_row *r = &c->prof[i];
        double x = (r->n_lo + r->n_hi) / 2;
        if (!wanted(c, r->k, mutants) || !pos_finite(x) || !(r->worst_ratio >= 0))
            continue;
        xmin = fmin(xmin, x);
        xmax = fmax(xmax, x);
        if (pos_finite(r->worst_ratio)) {
            ymin = fmin(ymin, r->worst_ratio);
            ymax = fmax(ymax, r->worst_ratio);
        }
    }
    if (xmax == 0) {
        *why = mutants ? DF_PROFILE_TSV " has no length bin of a mutant"
                       : DF_PROFILE_TSV " has no length bin of a correct kernel";
        return 0;
    }
    for (size_t k = 0; k < c->nk; k++) {
        double nmax = wanted(c, k, mutants) ? kernel_nmax(c, k) : -1;
        for (int j = 0; ldexp(1, j - 1) < nmax; j++)
            if (df_report_bound_band(c->kernels[k], (uint64_t)band_n(j, nmax), &lo, &hi) == 0 &&
                pos_finite(lo)) {
                ymin = fmin(ymin, lo);
                ymax = fmax(ymax, hi);
            }
    }
    if (!isfinite(ymin)) /* exact bins only (integer kernels) */
        ymin = ymax = 1;
    double ylo = floor10(ymin) / 100, yexact = ylo * 3;
    fprintf(g->setup, "set logscale xy\nset xrange [%.6g:%.6g]\nset yrange [%.6g:%.6g]\n"
                      "set format x '1e%%T'\nset format y '1e%%T'\nunset key\n"
                      "set xlabel 'n (length bin midpoint)'\nset ylabel '|err| / (u G)'\n",
            fmin(xmin, 1) / 2, xmax * 2, ylo, ceil10(ymax) * 10);
    size_t panels = 0;
    for (size_t k = 0; k < c->nk; k++) {
        if (!wanted(c, k, mutants))
            continue;
        size_t pts = SIZE_MAX, ex = SIZE_MAX, band = SIZE_MAX;
        for (size_t i = 0; i < c->nprof; i++) {
            const df_prof_row *r = &c->prof[i];
            double x = (r->n_lo + r->n_hi) / 2;
            if (r->k != k || !pos_finite(x) || !pos_finite(r->worst_ratio))
                continue;
            if (pts == SIZE_MAX)
                pts = block(g, c->kernels[k], "n_mid  n_lo  n_hi  cases  worst_ratio");
            fprintf(g->d, "%.10g\t%.10g\t%.10g\t%.10g\t%.10g\n", x, r->n_lo, r->n_hi, r->cases,
                    r->worst_ratio);
        }
        for (size_t i = 0; i < c->nprof; i++) {
            const df_prof_row *r = &c->prof[i];
            double x = (r->n_lo + r->n_hi) / 2;
            if (r->k != k || !pos_finite(x) || r->worst_ratio != 0)
                continue;
            if (ex == SIZE_MAX)
                ex = block(g, c->kernels[k], "n_mid of a bin whose every case was exact");
            fprintf(g->d, "%.10g\n", x);
        }
        double nmax = kernel_nmax(c, k);
        for (int j = 0; ldexp(1, j - 1) < nmax; j++) {
            double n = band_n(j, nmax);
            if (df_report_bound_band(c->kernels[k], (uint64_t)n, &lo, &hi) != 0 ||
                !pos_finite(lo))
                continue;
            if (band == SIZE_MAX)
                band = block(g, c->kernels[k],
                             "n  threshold_least  threshold_largest (over the launches)");
            fprintf(g->d, "%.10g\t%.10g\t%.10g\n", n, lo, hi);
        }
        if (pts == SIZE_MAX && ex == SIZE_MAX)
            continue;
        panel_title(g, c, c->kernels[k]);
        int items = 0;
        if (band != SIZE_MAX) {
            item(g, &items, "using 1:2:3 with filledcurves fc rgb '" BAND_FILL "' fs solid 0.6",
                 band);
            item(g, &items, "using 1:3 with lines lc rgb '" BAND_EDGE "' lw 1.5", band);
        }
        if (pts != SIZE_MAX)
            item(g, &items, "using 1:5 with points pt 7 ps 0.5 lc rgb '" POINT "'", pts);
        if (ex != SIZE_MAX) {
            char tail[96];
            snprintf(tail, sizeof tail,
                     "using 1:(%.6g) with points pt 2 ps 0.6 lc rgb '" EXACT "'", yexact);
            item(g, &items, tail, ex);
        }
        fputs("\n", g->body);
        panels++;
    }
    if (!panels)
        *why = DF_PROFILE_TSV " has no finite error ratio of these kernels";
    return panels;
}

size_t df_panels_ratio_correct(const df_campaign_data *c, df_gp *g, const char **why)
{
    return ratio_panels(c, g, 0, why);
}

size_t df_panels_ratio_mutants(const df_campaign_data *c, df_gp *g, const char **why)
{
    return ratio_panels(c, g, 1, why);
}

/* ---- the histogram ---- */

/* log2 of kernel k's largest threshold at its longest case's bin; NAN
 * when unknown. */
static double log2_threshold(const df_campaign_data *c, size_t k)
{
    double nmax = kernel_nmax(c, k), lo, hi;
    if (nmax < 1 || df_report_bound_band(c->kernels[k], (uint64_t)nmax, &lo, &hi) != 0 ||
        !pos_finite(hi))
        return NAN;
    return log2(hi);
}

size_t df_panels_hist(const df_campaign_data *c, df_gp *g, const char **why)
{
    double xmin = INFINITY, xmax = -INFINITY, ymax = 0;
    int any = 0;
    for (size_t i = 0; i < c->nhist; i++) {
        const df_hist_row *r = &c->hist[i];
        if (!wanted(c, r->k, 0) || !pos_finite(r->count))
            continue;
        any = 1;
        ymax = fmax(ymax, r->count);
        if (r->log2_ratio > DF_RHIST_MIN) {
            xmin = fmin(xmin, r->log2_ratio);
            xmax = fmax(xmax, r->log2_ratio + 1);
        }
    }
    if (!any) {
        *why = DF_HIST_TSV " has no counts of a correct kernel";
        return 0;
    }
    for (size_t k = 0; k < c->nk; k++) {
        double t = wanted(c, k, 0) ? log2_threshold(c, k) : NAN;
        if (isfinite(t))
            xmax = fmax(xmax, t);
    }
    if (!isfinite(xmin))
        xmin = xmax = isfinite(xmax) ? xmax : 0;
    /* the exact bin stands apart, left of the first tic of 20 */
    double xexact = floor(xmin / 20) * 20 - 14;
    fprintf(g->setup,
            "set logscale y\nset xrange [%.6g:%.6g]\nset yrange [0.5:%.6g]\nunset key\n"
            "set xlabel 'log2(|err| / (u G)), bins [k, k+1)'\nset ylabel 'cases'\n"
            "set style fill solid 0.7 noborder\nset boxwidth 0.9\n"
            "set xtics 20\nset xtics add ('exact' %.6g)\n",
            xexact - 5, ceil(xmax) + 3, ceil10(ymax) * 10, xexact);
    size_t panels = 0;
    for (size_t k = 0; k < c->nk; k++) {
        if (!wanted(c, k, 0))
            continue;
        size_t b = SIZE_MAX;
        for (size_t i = 0; i < c->nhist; i++) {
            const df_hist_row *r = &c->hist[i];
            if (r->k != k || !pos_finite(r->count))
                continue;
            if (b == SIZE_MAX)
                b = block(g, c->kernels[k], "x (log2_ratio + 0.5; the exact bin at 'exact')  "
                                            "count  log2_ratio");
            double x = r->log2_ratio > DF_RHIST_MIN ? r->log2_ratio + 0.5 : xexact;
            fprintf(g->d, "%.10g\t%.10g\t%.10g\n", x, r->count, r->log2_ratio);
        }
        if (b == SIZE_MAX)
            continue;
        panel_title(g, c, c->kernels[k]);
        double t = log2_threshold(c, k);
        if (isfinite(t))
            fprintf(g->body, "set arrow 1 from %.6g, graph 0 to %.6g, graph 1 nohead lw 1.5 "
                             "dt 2 lc rgb '" BAND_EDGE "'\n",
                    t, t);
        int items = 0;
        item(g, &items, "using 1:2 with boxes lc rgb '" POINT "'", b);
        fputs("\nunset arrow 1\n", g->body);
        panels++;
    }
    return panels;
}

/* ---- effective precision against h ---- */

size_t df_panels_precision(const df_campaign_data *c, df_gp *g, const char **why)
{
    double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0, declmax = 0, worst, typical;
    for (size_t i = 0; i < c->nprech; i++) {
        const df_prech_row *r = &c->prech[i];
        df_hbin hb = {(uint64_t)r->cases, r->worst_over_h, r->sum_log2};
        if (!wanted(c, r->k, 0) ||
            !df_hbin_eff_bits(&hb, df_prec_acc_of_bits(r->declared_bits), &worst, &typical))
            continue;
        xmin = fmin(xmin, ldexp(1, (int)r->log2_h));
        xmax = fmax(xmax, ldexp(1, (int)r->log2_h + 1));
        ymin = fmin(ymin, fmin(worst, r->declared_bits));
        ymax = fmax(ymax, fmax(typical, r->declared_bits));
        declmax = fmax(declmax, r->declared_bits);
    }
    if (xmax == 0) {
        *why = DF_PRECH_TSV " has no error of a correct float kernel";
        return 0;
    }
    /* up to 20 bits above the widest declaration: a typical error far
     * below it is off the top, not squeezing the rest */
    fprintf(g->setup, "set logscale x 2\nset xrange [%.6g:%.6g]\nset yrange [%.6g:%.6g]\n"
                      "set xtics 16\nset format x '2^%%L'\nunset key\n"
                      "set xlabel 'tree height h (bins of a power of two)'\n"
                      "set ylabel 'effective bits'\n",
            xmin / 2, xmax * 2, floor(ymin) - 2, fmin(ceil(ymax), declmax + 20) + 2);
    size_t panels = 0;
    for (size_t k = 0; k < c->nk; k++) {
        size_t b = SIZE_MAX;
        double declared = 0;
        for (size_t i = 0; wanted(c, k, 0) && i < c->nprech; i++) {
            const df_prech_row *r = &c->prech[i];
            df_hbin hb = {(uint64_t)r->cases, r->worst_over_h, r->sum_log2};
            if (r->k != k ||
                !df_hbin_eff_bits(&hb, df_prec_acc_of_bits(r->declared_bits), &worst, &typical))
                continue;
            if (b == SIZE_MAX)
                b = block(g, c->kernels[k], "h_mid  worst_bits  typical_bits  declared_bits");
            declared = r->declared_bits;
            fprintf(g->d, "%.10g\t%.6g\t%.6g\t%.0f\n", ldexp(1.5, (int)r->log2_h), worst,
                    typical, declared);
        }
        if (b == SIZE_MAX)
            continue;
        panel_title(g, c, c->kernels[k]);
        int items = 0;
        item(g, &items, "using 1:4 with lines dt 2 lw 1.5 lc rgb '" BAND_EDGE "'", b);
        item(g, &items, "using 1:3 with points pt 6 ps 0.7 lc rgb '" EXACT "'", b);
        item(g, &items, "using 1:2 with points pt 7 ps 0.6 lc rgb '" POINT "'", b);
        fputs("\n", g->body);
        panels++;
    }
    return panels;
}

/* ---- progress over time ---- */

size_t df_panels_progress(const df_campaign_data *c, df_gp *g, const char **why)
{
    size_t b = SIZE_MAX;
    for (size_t i = 0; i < c->npd; i++) {
        const double *p = c->pd[i];
        double t = p[DF_PD_TIME], speed = p[DF_PD_SPEED], saved = p[DF_PD_FINDINGS],
               bugs = p[DF_PD_BUGS];
        if (!isfinite(t) || !isfinite(speed) || !isfinite(saved) || !isfinite(bugs))
            continue;
        if (b == SIZE_MAX)
            b = block(g, "plot_data", "relative_time  cases_per_sec  findings_saved  bugs");
        fprintf(g->d, "%.10g\t%.10g\t%.10g\t%.10g\n", t, speed, saved, bugs);
    }
    if (b == SIZE_MAX) {
        *why = DF_PLOT_FILE " has no row";
        return 0;
    }
    fputs("set xlabel 'campaign time (s)'\nset xrange [0:*]\nset ylabel 'cases/s'\nset y2label 'cumulative'\n"
          "set ytics nomirror\nset y2tics\nset yrange [0:*]\nset y2range [0:*]\n"
          "set key top left\nset title 'cases/s (left); findings saved and bug verdicts (right)'\n",
          g->setup);
    int items = 0;
    item(g, &items, "using 1:2 with linespoints pt 7 ps 0.5 lw 2 lc rgb '" POINT "' title 'cases/s'", b);
    item(g, &items, "using 1:3 axes x1y2 with steps lc rgb '" EXACT "' title 'findings saved'", b);
    item(g, &items, "using 1:4 axes x1y2 with steps lc rgb '" BAND_EDGE "' title 'bug verdicts'",
         b);
    fputs("\n", g->body);
    return 1;
}
