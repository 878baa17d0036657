/* report_plots.h — the four plots of `dotfuzz report` (report_plots.c),
 * made by gnuplot from a campaign directory's data, and the report's
 * output files, which report.md shares. */
#ifndef DOTFUZZ_REPORT_PLOTS_H
#define DOTFUZZ_REPORT_PLOTS_H

#include <stdio.h>

#include "fuzz/outcome.h"
#include "fuzz/run/campaign_dir.h"

#define DF_N_PLOTS 4

/* One plot: made, or the reason it was not. */
typedef struct df_plot {
    const char *name, *title;
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

/* rdir/name opened for writing, its path into path (DF_CAMPAIGN_PATH_CAP
 * bytes); NULL when it cannot be (said on stderr). */
FILE *df_report_open(const char *rdir, const char *name, char *path);

/* Closes f: 0 and its path on stdout when it was written whole, else -1
 * (said on stderr). */
int df_report_close(FILE *f, const char *path);

#endif
