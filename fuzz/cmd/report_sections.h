/* report_sections.h — the sections of `dotfuzz report`, written once for
 * report.md and report.html (report_sections.c, through report_doc.h): the
 * answer first, then the correct kernels, the worst cases, the mutants,
 * the findings, the campaign and the files read. */
#ifndef DOTFUZZ_REPORT_SECTIONS_H
#define DOTFUZZ_REPORT_SECTIONS_H

#include <stdint.h>

#include "fuzz/cmd/report_doc.h"
#include "fuzz/cmd/report_plots.h"
#include "fuzz/run/campaign_dir.h"

/* What the sections read: the campaign (DIR as given, for replay
 * commands), the report's directory (its plots), --top, and the plots. */
typedef struct df_report_ctx {
    df_campaign_data *c;
    const char *dir, *rdir;
    uint64_t top;
    const df_plot *pr;
    const char *not_made; /* why no plot was tried, or NULL */
} df_report_ctx;

/* The whole report, its first line the answer (report_triage.h). 0, or -1
 * when an embedded plot could not be read (said on stderr; the rest is
 * written). */
int df_report_sections(df_doc *d, const df_report_ctx *x);

#endif
