/* report_panels.h — what each plot of `dotfuzz report` shows
 * (report_panels.c): its data, an index block per series in NAME.dat, and
 * the gnuplot commands of its panels, one small panel per kernel on axes
 * all its panels share. report_plots.c wraps them in terminals and a
 * multiplot layout and runs gnuplot. */
#ifndef DOTFUZZ_REPORT_PANELS_H
#define DOTFUZZ_REPORT_PANELS_H

#include <stddef.h>
#include <stdio.h>

#include "fuzz/run/campaign_dir.h"

/* One plot being written: its data file (d, named dat in the commands),
 * the index blocks written so far, and its commands: setup (axes and
 * ranges, before the layout) and body (the panels). */
typedef struct df_gp {
    FILE *d, *setup, *body;
    const char *dat;
    size_t blocks;
} df_gp;

/* s as a gnuplot single-quoted string (only '' is special there). */
void df_gp_str(FILE *f, const char *s);

/* Each writes plot what's data and commands into g and returns its number
 * of panels (0: no data; then *why names what was missing). */
typedef size_t (*df_panels_fn)(const df_campaign_data *c, df_gp *g, const char **why);

/* Worst error ratio per length bin against n, a panel per correct kernel
 * (mutants: a panel per mutant), with the oracle's bug threshold over the
 * kernel's launches as a band and exact bins marked at the floor. */
size_t df_panels_ratio_correct(const df_campaign_data *c, df_gp *g, const char **why);
size_t df_panels_ratio_mutants(const df_campaign_data *c, df_gp *g, const char **why);
/* The log2 error-ratio histogram, a panel per correct kernel: the exact
 * bin labelled, the bug threshold at the kernel's largest n dashed. */
size_t df_panels_hist(const df_campaign_data *c, df_gp *g, const char **why);
/* Effective precision in bits against the tree height, worst and typical
 * case, the declared bits dashed; a panel per correct float kernel. */
size_t df_panels_precision(const df_campaign_data *c, df_gp *g, const char **why);
/* Cases per second over the campaign's time, and findings and bugs
 * saved on the right axis (plot_data); one panel. */
size_t df_panels_progress(const df_campaign_data *c, df_gp *g, const char **why);

#endif
