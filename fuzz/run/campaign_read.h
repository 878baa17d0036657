/* campaign_read.h — reads a campaign directory (written by `dotfuzz run
 * --out DIR`; README.md, "Campaign directory"): the key : value files, the
 * TSV tables and the two append-only logs, for `dotfuzz report` and
 * `dotfuzz merge`.
 *
 * The reader is defensive: the campaign may still be running. The logs
 * (plot_data, findings.jsonl) may end in a torn line (no '\n'), which is
 * skipped; any line of any file that does not parse is skipped; both are
 * counted per file. Only DIR/campaign and DIR/fuzzer_stats are required. */
#ifndef DOTFUZZ_CAMPAIGN_READ_H
#define DOTFUZZ_CAMPAIGN_READ_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz/outcome.h"

#define DF_CAMPAIGN_PATH_CAP 4096
#define DF_N_VERDICTS 5
#define DF_KT_COLS 13  /* kernels.tsv */
#define DF_PROF_COLS 6 /* profile.tsv */
#define DF_HIST_COLS 3 /* ratio_hist.tsv */
#define DF_PD_COLS 8   /* plot_data */

/* As findings.jsonl spells them; df_logged_finding.v indexes this. */
extern const char *const df_campaign_verdicts[DF_N_VERDICTS];

/* key : value lines (campaign, fuzzer_stats), in file order */
typedef struct df_kv {
    char **keys, **vals;
    size_t n, cap;
} df_kv;

/* what reading one line-oriented file gave */
typedef struct df_file_stat {
    int present;
    uint64_t rows, torn, bad;
} df_file_stat;

typedef struct df_kernel_row { /* kernels.tsv, fields kept as written */
    char *f[DF_KT_COLS];
} df_kernel_row;

typedef struct df_prof_row {
    size_t k; /* index into df_campaign_data.kernels */
    double n_lo, n_hi, cases, worst_ratio, worst_rel_err;
} df_prof_row;

typedef struct df_hist_row {
    size_t k;
    double log2_ratio, count;
} df_hist_row;

/* One line of findings.jsonl; absent numbers are NaN. */
typedef struct df_logged_finding {
    char *kernel, *verdict, *rule, *file, *why;
    char *line; /* the line as read, surrounding blanks trimmed */
    double elapsed, n, rel_err, err_ratio, signal, watchdog_s;
    int v; /* index into df_campaign_verdicts */
} df_logged_finding;

typedef struct df_campaign_data {
    df_kv camp, stats;
    char **kernels; /* campaign order, then first sight in the other files */
    size_t nk, capk;
    df_kernel_row *krows;
    size_t nkrows, capkrows;
    df_prof_row *prof;
    size_t nprof, capprof;
    df_hist_row *hist;
    size_t nhist, caphist;
    double (*pd)[DF_PD_COLS];
    size_t npd, cappd;
    df_logged_finding *fs;
    size_t nfs, capfs;
    df_file_stat st_kernels, st_prof, st_hist, st_pd, st_find;
} df_campaign_data;

/* Reads DIR into *c (zeroed by the caller). USAGE, said on stderr as
 * "dotfuzz CMD: ...", when DIR is not a campaign directory; *c must be
 * freed either way. */
df_outcome df_campaign_load(const char *cmd, const char *dir, df_campaign_data *c);
void df_campaign_free(df_campaign_data *c);

/* The last value of key, or NULL. */
const char *df_kv_get(const df_kv *t, const char *key);

/* Splits one line of a `key : value` file in place (both trimmed, the
 * newline dropped). Returns 0, or -1 for a comment (#), a blank line or a
 * line without " : ". */
int df_kv_split(char *line, char **key, char **val);

/* The index of kernel name in c->kernels, added when new; SIZE_MAX when
 * out of memory. */
size_t df_campaign_kernel_index(df_campaign_data *c, const char *name);

/* A whole field as a double ("inf" and "nan" included); 0 or -1. */
int df_campaign_num(const char *s, double *out);

/* dir/name into buf (DF_CAMPAIGN_PATH_CAP bytes); -1 when too long. */
int df_campaign_join(char *buf, const char *dir, const char *name);

#endif
