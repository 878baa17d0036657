/* report_plots.h — the plots of `dotfuzz report` (report_plots.c), made by
 * gnuplot from a campaign directory's data, one small panel per kernel
 * (report_panels.h), and the report's output files, which report.md and
 * report.html share. */
#ifndef DOTFUZZ_REPORT_PLOTS_H
#define DOTFUZZ_REPORT_PLOTS_H

#include <stdio.h>

#include "fuzz/outcome.h"
#include "fuzz/run/campaign_dir.h"

#define DF_N_PLOTS 5

/* Where a plot belongs in the report. */
enum { DF_PLOT_CORRECT, DF_PLOT_MUTANTS, DF_PLOT_CAMPAIGN };

/* One plot: what it shows, where it goes, made or the reason it was not. */
typedef struct df_plot {
    const char *name, *title, *caption;
    int section;
    int made;
    char why[256];
} df_plot;

/* Makes the plots of c in rdir, unless no_plots: NAME.dat and NAME.gp, then
 * NAME.png and NAME.svg by gnuplot, a line on stdout per file written. pr
 * gets each plot's name, title and whether it was made; *not_made why
 * none was tried (NULL when they were). ENV when gnuplot is missing or a
 * plot failed for a reason other than having no data (said on stderr),
 * else CLEAN. */
df_outcome df_report_plots(const df_campaign_data *c, const char *rdir, int no_plots,
                           df_plot pr[DF_N_PLOTS], const char **not_made);

/* A file of the report, made in memory and written whole or not at all. */
typedef struct df_report_file {
    df_campaign_out o;
    const char *rdir, *name;
    char path[DF_CAMPAIGN_PATH_CAP];
} df_report_file;

/* Opens rdir/name for writing into rf; the stream, or NULL when it cannot
 * be (said on stderr). */
FILE *df_report_open(df_report_file *rf, const char *rdir, const char *name);

/* Writes the file atomically: 0 and its path on stdout, else -1 (said on
 * stderr; nothing written). */
int df_report_close(df_report_file *rf);

#endif
