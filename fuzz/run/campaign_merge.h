/* campaign_merge.h — `dotfuzz merge OUT DIR...` on campaign directories
 * (the Slurm scale-out: one campaign per GPU, merged afterwards), and the
 * pieces it shares with the corpus merge of cmd_merge.c. */
#ifndef DOTFUZZ_CAMPAIGN_MERGE_H
#define DOTFUZZ_CAMPAIGN_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz/outcome.h"

#define DF_BUCKET_MIN (-64)
#define DF_BUCKET_MAX 64
#define DF_BUCKET_NONFINITE 1000 /* NaN or infinite err_ratio */

/* A finding's error bucket: floor(log2(err_ratio)) clamped to
 * [DF_BUCKET_MIN, DF_BUCKET_MAX] (ratio <= 0 at the minimum), one bucket
 * of its own for a non-finite ratio. */
int df_ratio_bucket(double err_ratio);

/* Whether path is a directory holding a `campaign` file. */
int df_is_campaign_dir(const char *path);

/* Merges the campaign directories ins[0..nin) into OUT (new or empty), a
 * campaign directory that `dotfuzz report` reads: summed statistics and
 * tables, and the findings deduplicated by file (SHA-1 name) and by
 * signature (kernel, verdict, rule, error bucket); crash and hang findings
 * are kept whenever their file is new, and a finding file no log line
 * names is copied when new. Nothing is replayed. Prints one summary line
 * per input and a total on stdout, problems on stderr. USAGE when OUT is
 * not empty (nothing done) or an input is not a readable campaign (the
 * rest merged), ENV when OUT cannot be written. */
df_outcome df_campaign_merge(const char *out, char *const *ins, size_t nin);

#endif
