/* campaign_dir.h — the campaign directory's format (written by `dotfuzz run
 * --out DIR`, read by `--resume`, `dotfuzz report` and `dotfuzz merge`;
 * docs/campaigns.md, "The directory"): its file names, the key : value
 * files, the TSV tables and their columns, the two append-only logs
 * (plot_data, findings.jsonl), the state's tally lines and the lock's line.
 * Which values go in them is their writers' (campaign.c, campaign_merge.c).
 * campaign_dir.c implements it but for findings.jsonl's JSON lines, which
 * are campaign_log.c's.
 *
 * The reader is defensive: the campaign may still be running. The logs
 * may end in a torn line (no '\n'), which is skipped; any line of any file
 * that does not parse is skipped; both are counted per file. Only
 * DIR/campaign and DIR/fuzzer_stats are required. */
#ifndef DOTFUZZ_CAMPAIGN_DIR_H
#define DOTFUZZ_CAMPAIGN_DIR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fuzz/corpus.h"
#include "fuzz/outcome.h"
#include "fuzz/run/run.h"

/* The files and folders of DIR. */
#define DF_CAMPAIGN_FILE "campaign"    /* the options fixed for the campaign's life */
#define DF_STATE_FILE "state"          /* the resume snapshot (internal) */
#define DF_STATS_FILE "fuzzer_stats"   /* the counts, rewritten */
#define DF_LOG_FILE "findings.jsonl"   /* a line per finding file, appended */
#define DF_KERNELS_TSV "kernels.tsv"   /* per kernel */
#define DF_PROFILE_TSV "profile.tsv"   /* per kernel and length bin */
#define DF_HIST_TSV "ratio_hist.tsv"   /* per kernel and log2 error ratio */
#define DF_PREC_TSV "precision_hist.tsv" /* per float kernel and log2 of ratio / h */
#define DF_PRECH_TSV "precision_by_h.tsv" /* per float kernel and log2 of h */
#define DF_PLOT_FILE "plot_data"       /* a row per snapshot, appended */
#define DF_LOCK_FILE "lock"            /* who holds DIR */
#define DF_FINDINGS_DIR "findings"     /* the case files */
#define DF_WORKERS_DIR "workers"       /* each worker's in-flight range (internal) */

#define DF_CAMPAIGN_PATH_CAP 4096
#define DF_N_VERDICTS 5
#define DF_KT_COLS 13  /* kernels.tsv */
#define DF_KT_MODEL_EQUAL 11 /* kernels.tsv's model_equal column */
#define DF_PROF_COLS 6 /* profile.tsv */
#define DF_HIST_COLS 3 /* ratio_hist.tsv */
#define DF_PREC_COLS 5 /* precision_hist.tsv */
#define DF_PRECH_COLS 6 /* precision_by_h.tsv */
/* plot_data: AFL++'s 13 columns (afl-plot reads them by position), then
 * dotfuzz's 5; DF_PD_* index the ones dotfuzz reads back. */
#define DF_PD_COLS 18
#define DF_PD_TIME 0       /* relative_time */
/* map_size: written 0.00 (AFL++ writes "0.00%"; a bare number keeps the
 * column numeric for TSV readers, and gnuplot reads both alike) */
#define DF_PD_MAP_SIZE 6
#define DF_PD_SPEED 10     /* execs_per_sec: this session's cases/s */
#define DF_PD_EXECS 11     /* total_execs: cases done */
#define DF_PD_FINDINGS 13  /* findings_saved */
#define DF_PD_BUGS 14      /* bugs: cases judged bug */

/* fuzzer_stats' keys are padded to this width, so its values line up. */
#define DF_STATS_KEY_WIDTH 17

/* dir/name into buf (DF_CAMPAIGN_PATH_CAP bytes); -1 when too long. */
int df_campaign_join(char *buf, const char *dir, const char *name);

/* ---- whole files, key : value lines ---- */

/* A file of DIR made in memory, then written whole. */
typedef struct df_campaign_out {
    FILE *f;
    char *buf;
    size_t len;
} df_campaign_out;

/* Opens o->f; returns it, or NULL without memory. */
FILE *df_campaign_out_open(df_campaign_out *o);

/* Closes o->f and writes its bytes to dir/name atomically (a hidden
 * temporary renamed over it). 0; -1 (errno set) when it cannot be written;
 * -2 without memory (nothing written). The bytes are freed either way. */
int df_campaign_out_commit(df_campaign_out *o, const char *dir, const char *name);

/* key : value lines (campaign, fuzzer_stats), in file order */
typedef struct df_kv {
    char **keys, **vals;
    size_t n, cap;
} df_kv;

/* One `key : value` line: key padded to width (0: none, DF_STATS_KEY_WIDTH
 * in fuzzer_stats), the value as fmt says. df_kv_key writes the key and
 * the separator only, for a value written piece by piece (then '\n'). */
void df_kv_put(FILE *f, int width, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void df_kv_key(FILE *f, int width, const char *key);

/* The last value of key, or NULL. */
const char *df_kv_get(const df_kv *t, const char *key);

/* Splits one line of a `key : value` file in place (both trimmed, the
 * newline dropped). Returns 0, or -1 for a comment (#), a blank line or a
 * line without " : ". */
int df_kv_split(char *line, char **key, char **val);

/* ---- the tables ---- */

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

/* precision_hist.tsv: the effective precision's data (df_tally_eff_bits):
 * the declared bits, a log2 bin of ratio / h and its count, and the
 * kernel's largest ratio / h on every row. */
typedef struct df_prec_row {
    size_t k;
    double declared_bits, log2_over_h, count, worst_over_h;
} df_prec_row;

/* precision_by_h.tsv: a float kernel's cases with an error at the heights
 * [2^log2_h, 2^(log2_h + 1)) (df_hbin): their count, largest ratio / h and
 * sum of log2(ratio / h). */
typedef struct df_prech_row {
    size_t k;
    double declared_bits, log2_h, cases, worst_over_h, sum_log2;
} df_prech_row;

/* kernels.tsv, profile.tsv and ratio_hist.tsv of a run's totals: the
 * header row, then a row per kernel (per kernel and bin, per kernel and
 * ratio) with cases. */
void df_kernels_tsv(FILE *f, const df_kernel *const *ks, size_t nk, const df_totals *tot);
void df_profile_tsv(FILE *f, const df_kernel *const *ks, size_t nk, const df_totals *tot);
void df_hist_tsv(FILE *f, const df_kernel *const *ks, size_t nk, const df_totals *tot);
void df_prec_tsv(FILE *f, const df_kernel *const *ks, size_t nk, const df_totals *tot);
void df_prech_tsv(FILE *f, const df_kernel *const *ks, size_t nk, const df_totals *tot);

/* A merged row of each table: values summed (or maximised) over several
 * campaigns' tables, all doubles; counts are written as integers. */
void df_kernels_tsv_row(FILE *f, const char *kernel, const double v[DF_KT_COLS]);
void df_profile_tsv_row(FILE *f, const char *kernel, const df_prof_row *r);
void df_hist_tsv_row(FILE *f, const char *kernel, const df_hist_row *r);
void df_prec_tsv_row(FILE *f, const char *kernel, const df_prec_row *r);
void df_prech_tsv_row(FILE *f, const char *kernel, const df_prech_row *r);
/* The float type whose significand has bits bits (a precision table's
 * declared_bits: the kernel's accumulator); DF_I32 when none has. */
df_type df_prec_acc_of_bits(double bits);
/* The effective precision of kernel k from a table's rows (df_tally_eff_bits's
 * worst and median); 0 when the rows have none for k. */
int df_prec_rows_bits(const df_prec_row *rows, size_t n, size_t k, double *declared,
                      double *worst, double *median);

/* The header row of table name (a *_TSV, or DF_PLOT_FILE), without its
 * newline: the column names, tab-separated; NULL for another name. Every
 * table starts with it, so that pandas.read_csv(path, sep='\t') reads it. */
const char *df_tsv_header(const char *name);

/* Whether column j of kernels.tsv holds a worst value (merged by maximum;
 * the others are counts, merged by sum). */
int df_kernels_col_is_worst(size_t j);

/* A whole field as a double ("inf" and "nan" included); 0 or -1. */
int df_campaign_num(const char *s, double *out);

/* ---- the append-only logs ---- */

/* Opens the log DIR/name (DF_LOG_FILE or DF_PLOT_FILE) for appending,
 * first cutting a torn last line (a SIGKILL in the middle of an append
 * leaves one); an empty plot_data gets its header line. The descriptor,
 * or -1 (said on stderr). */
int df_log_open(const char *dir, const char *name);

/* One row of plot_data, appended to its descriptor in one write; 0 or -1.
 * The AFL++ columns' meaning is afl_stats.h's; AFL++'s columns that
 * dotfuzz has nothing for (cycles, pending, map size, depth, edges) are 0. */
typedef struct df_plot_row {
    uint64_t relative_time; /* whole seconds of run time, as AFL++'s */
    uint64_t cur_item, corpus_count, saved_crashes, saved_hangs;
    double execs_per_sec;   /* this session's cases/s */
    uint64_t total_execs;   /* cases done */
    uint64_t findings_saved, bugs, crashes, hangs;
    double worst_ratio;
} df_plot_row;
int df_plot_append(int fd, const df_plot_row *r);

/* ---- findings.jsonl (campaign_log.c) ---- */

/* As findings.jsonl spells them; df_logged_finding.v indexes this. */
extern const char *const df_campaign_verdicts[DF_N_VERDICTS];

/* One line of findings.jsonl; absent numbers are NaN. */
typedef struct df_logged_finding {
    char *kernel, *verdict, *rule, *file, *why;
    char *index; /* the case's index as its text (decimal); NULL when absent */
    char *line; /* the line as read, surrounding blanks trimmed (df_campaign_load's) */
    double time; /* Unix time it was logged */
    double elapsed, n, rel_err, err_ratio, signal, watchdog_s;
    int v; /* index into df_campaign_verdicts */
} df_logged_finding;

/* The members of a finding's findings.jsonl line (JSON, without braces),
 * malloc'd (NULL without memory): name is its file in DIR/findings. end
 * says how a worker ended on the case (crash or hang), NULL for a verdict
 * of the oracle. */
char *df_log_members(const df_kernel *k, const df_case *c, const df_judgement *j,
                     const char *name, int worker, const df_worker_end *end, double watchdog_s);

/* Appends a finding's line to findings.jsonl's descriptor in one write:
 * the stamp, the time now, elapsed (the campaign's run time) and members.
 * 0, or -1 (errno set). */
int df_log_append(int fd, double elapsed, const char *members);

/* The file name a findings.jsonl line names ("file":"findings/NAME") into
 * name; 0, or -1 when it names none that is a finding's. */
int df_log_line_name(const char *line, char name[DF_CORPUS_NAME_MAX]);

/* Parses one line into f: a flat object holding at least kernel, verdict
 * (a known one), rule and file. 0 or -1; f is freed with
 * df_logged_finding_free either way. */
int df_log_parse(const char *line, df_logged_finding *f);
/* The same for a finding's members as df_log_members writes them (the
 * object without its braces). */
int df_log_parse_members(const char *members, df_logged_finding *f);
void df_logged_finding_free(df_logged_finding *f);

/* A logged finding's file name ("findings/NAME": NAME), or NULL when it
 * is not a finding's. */
const char *df_logged_name(const df_logged_finding *f);

/* Whether a logged finding is a worker's crash or hang (rule crash or
 * hang), each a reproducer of its own. */
int df_logged_crash_or_hang(const df_logged_finding *f);

/* ---- the state ---- */

/* What a resume starts from: the totals of the ranges finished and every
 * index not finished (the pending ranges, and all from next_index on). */
typedef struct df_state_range {
    uint64_t lo, hi, solo;
} df_state_range;

typedef struct df_state {
    uint64_t next_index, sessions, restarts;
    double run_time, start_time;
    df_state_range *pending;
    size_t npending, cappending;
    df_totals *tot; /* the tallies of kernels [0, nk), and the buckets seen */
    size_t nk;
} df_state;

/* The state's text. */
void df_state_put(FILE *f, const df_state *st);

/* Reads DIR/state into st (tot and nk the caller's; pending grown here,
 * the caller's to free), checked line by line: a damaged state is refused
 * (-1, said on stderr), never taken for an empty one. 0, also when there
 * is none (a campaign killed before its first snapshot). */
int df_state_read(const char *dir, df_state *st);

/* ---- the lock ---- */

/* The lock's line: who holds DIR (pid, host, since when), into buf. Its
 * length. */
int df_lock_line(char *buf, size_t cap);

/* ---- the whole directory read ---- */

/* what reading one line-oriented file gave */
typedef struct df_file_stat {
    int present;
    uint64_t rows, torn, bad;
} df_file_stat;

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
    df_prec_row *prec;
    size_t nprec, capprec;
    df_prech_row *prech;
    size_t nprech, capprech;
    double (*pd)[DF_PD_COLS];
    size_t npd, cappd;
    df_logged_finding *fs;
    size_t nfs, capfs;
    df_file_stat st_kernels, st_prof, st_hist, st_prec, st_prech, st_pd, st_find;
} df_campaign_data;

/* Reads DIR into *c (zeroed by the caller). USAGE, said on stderr as
 * "dotfuzz CMD: ...", when DIR is not a campaign directory; *c must be
 * freed either way. */
df_outcome df_campaign_load(const char *cmd, const char *dir, df_campaign_data *c);
void df_campaign_free(df_campaign_data *c);

/* The index of kernel name in c->kernels, added when new; SIZE_MAX when
 * out of memory. */
size_t df_campaign_kernel_index(df_campaign_data *c, const char *name);

#endif
