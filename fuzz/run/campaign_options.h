/* campaign_options.h — a campaign's fixed options, DIR/campaign: written
 * when it begins, read back on --resume, each value checked as the
 * command line checks it (docs/campaigns.md, "Checked on resume"). */
#ifndef DOTFUZZ_CAMPAIGN_OPTIONS_H
#define DOTFUZZ_CAMPAIGN_OPTIONS_H

#include <stdio.h>

#include "fuzz/plugin.h"
#include "fuzz/run/run.h"
#include "fuzz/run/supervisor.h"

/* The campaign file of the run s (probed: its backend and kernels known),
 * its command line cmdline. */
void df_campaign_options_put(FILE *f, const df_sup *s, const char *cmdline);

/* Reads DIR/campaign into o; *kernels and *plugin_kernels get the comma
 * lists it records (malloc'd; the kernels to run, and the plugin kernels
 * the campaign began with). 0, or -1 (said on stderr) when DIR holds no
 * campaign file, a damaged or incomplete one, or a merge's. */
int df_campaign_options_read(const char *dir, df_run_opts *o, char **kernels,
                             char **plugin_kernels);

/* Resumed: the plugins' kernels as loaded now against those the campaign
 * in dir began with (recorded, NULL for none). 0, or -1 (said) when they
 * differ. */
int df_campaign_plugins_same(const char *dir, const char *recorded);

/* A new campaign records its libraries by absolute path, so a resume from
 * any directory finds them. The paths live as long as the process. */
void df_campaign_absolute_libs(df_plugin_paths *libs);

#endif
