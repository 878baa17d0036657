/* run.h — the pieces of `dotfuzz run`: its options, the per-kernel tallies,
 * the engine that runs a range of case indices in one process, and the
 * campaign directory with its supervisor (fuzz/run/campaign.c).
 *
 * Case i of seed S goes to kernel i mod K of the campaign's K kernels and
 * is generated from (S, i) alone, so any range of indices can run in any
 * process, in any order, and be rerun after a crash with the same result.
 */
#ifndef DOTFUZZ_RUN_H
#define DOTFUZZ_RUN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fuzz/check/check.h"
#include "fuzz/gen/generator.h"
#include "fuzz/check/metamorphic.h"
#include "fuzz/plugin.h"
#include "fuzz/pool.h"
#include "fuzz/worker.h"

#define DF_RUN_MAX_KERNELS 64

/* Which precision or bug findings are saved (all, or only those that add
 * something: a kernel's worst relative error so far for precision, a new
 * (kernel, verdict, rule, log2 ratio) signature for bugs). */
enum { DF_SAVE_NONE, DF_SAVE_NEW, DF_SAVE_ALL };
/* "all", "none", "new" or "worst" (both DF_SAVE_NEW); 0 or -1. */
int df_run_parse_save(const char *v, int *save);

typedef struct df_run_opts {
    const char *kernel;     /* "all", "mutants", names, comma-separated */
    char *kernel_given;     /* the --kernel values joined (select.h), owned; NULL: none */
    const char *backend;
    const char *corpus;
    const char *family;
    double time_s;          /* this session's time limit, 0 = none */
    uint64_t cases;         /* the campaign's total case count, 0 = none */
    uint64_t seed;
    int seed_set;
    uint64_t max_n;
    uint64_t long_n;        /* --long-n: df_gen_opts.long_n (0 = no long cases) */
    int huge;               /* --huge: cases past 2^31 elements (cuda, DF_K_LEN64) */
    uint64_t huge_every;    /* --huge-every: df_gen_opts.huge_every when huge */
    uint64_t huge_bytes;    /* --huge-bytes: df_gen_opts.huge_bytes */
    double tol;
    int debug_invariants;
    int save_precision;     /* DF_SAVE_* (NEW = worst so far) */
    int save_bugs;          /* DF_SAVE_* */
    df_meta_opts meta;
    df_plugin_paths libs;
    const char *out;        /* campaign directory (--out) */
    const char *resume;     /* campaign directory to continue (--resume) */
    uint32_t jobs;          /* worker processes; 0 = one per GPU */
    double watchdog_s;      /* a case running longer is a hang */
    double stats_every_s;   /* fuzzer_stats rewrite period */
    int quiet;              /* no status lines */
    uint32_t batch;         /* cases checked together (1 = one at a time) */
    uint32_t threads;       /* CPU threads for a batch's CPU work; 0 = all cores */
    int pipeline;           /* DF_PIPE_*: double-buffered batches */
    int gen;                /* DF_GEN_*: where batches' vectors are generated */
    const char *sanitize;   /* --sanitize TOOL (cmd_run.c's pass after the run), NULL: none */
    uint64_t sanitize_cases; /* --sanitize-cases: each kernel's sample under the tool */
} df_run_opts;

/* Parses the value of run's option --NAME as the command line does, into
 * o (a campaign file's options are read this way). Returns NULL, or the
 * option's name when the value is bad or NAME is not an option taking a
 * value. */
const char *df_run_option(df_run_opts *o, const char *name, const char *value);

/* --gen: cpu generates every case on the CPU's threads; gpu has the GPU
 * generate every batch from the same streams (the same bytes:
 * fuzz/gen/values.h) and copy it back for the references; split has the
 * GPU generate a double-buffered batch when the pool was behind with the
 * last one, the CPU when not (df_gen_pick_gpu); auto, on the cuda backend
 * with double-buffered batches, is gpu for one kernel and split for
 * several, gpu with cases that may pass DF_GEN_CHUNK, else cpu. */
enum { DF_GEN_AUTO, DF_GEN_CPU, DF_GEN_GPU, DF_GEN_SPLIT };
int df_run_parse_gen(const char *v, int *mode); /* 0, or -1 for a bad word */

/* --pipeline: auto double-buffers on the cuda backend (the GPU's part of a
 * batch hides the next batch's generation), not on host (nothing to hide:
 * the host backend's whole check is CPU work). */
enum { DF_PIPE_AUTO, DF_PIPE_ON, DF_PIPE_OFF };
int df_run_parse_pipeline(const char *v, int *mode); /* 0, or -1 for a bad word */

/* Length bins of the report: bin b holds the n of bit length b. */
#define DF_NBINS 34
/* log2 error-ratio histogram, clamped to [-64, 64]. */
#define DF_RHIST_MIN (-64)
#define DF_RHIST_MAX 64
#define DF_RHIST (DF_RHIST_MAX - DF_RHIST_MIN + 1)

typedef struct df_nbin {
    uint64_t cases;
    double worst_ratio, worst_rel;
} df_nbin;

/* The effective precision at each tree height: bin b holds the cases of
 * floor(log2 h) = b with a nonzero error, their largest ratio / h and the
 * sum of log2(ratio / h) (a geometric mean: the typical case). */
#define DF_HBINS 48
typedef struct df_hbin {
    uint64_t cases;
    double worst_over_h, sum_log2;
} df_hbin;

typedef struct df_tally {
    uint64_t cases;
    uint64_t elems;           /* the cases' elements (not kept in a campaign's state) */
    uint64_t verdicts[DF_V_COUNT];
    uint64_t model_equal;     /* cuda: results equal to the host model bit for bit */
    uint64_t meta_checked;    /* cases that went through the metamorphic checks */
    uint64_t seed_alarms;     /* cases seed 000's oracle flags: rel err > tol alone */
    uint64_t seed_alarms_bug; /* ... of which ours calls bug */
    uint64_t first_alarm;     /* the earliest case seed 000's oracle flags, its index
                                 + 1; 0: none (not kept in a campaign's state) */
    uint64_t crashes, hangs;  /* worker processes lost on a case of this kernel */
    uint64_t saved;           /* new finding files */
    double worst_ratio, worst_rel;
    df_nbin nbin[DF_NBINS];
    uint64_t rhist[DF_RHIST];
    /* the error against the bound's own scale, ratio / h, for the
     * effective precision (df_tally_eff_bits): its largest value and a
     * log2 histogram of its nonzero values (bins as rhist's) */
    double worst_over_h;
    uint64_t phist[DF_RHIST];
    df_hbin hbin[DF_HBINS];
} df_tally;

/* Counts one judged case of length n. */
void df_tally_case(df_tally *t, uint64_t n, const df_judgement *j);
void df_tally_add(df_tally *dst, const df_tally *src);
/* The precision in bits that would explain a float kernel's errors: an
 * error ratio r at height h is what gamma_h with a unit roundoff of r/h
 * times the declared one gives, so bits = declared - log2(r/h), for the
 * worst case and the median one with a nonzero error. Evidence beside the
 * verdicts, not one: a correct kernel stays at or above its declared
 * bits. Returns 0 where there is nothing to tell (integers, no error). */
int df_tally_eff_bits(const df_tally *t, df_type acc, double *worst, double *typical);
/* The same at the heights of bin b (df_hbin): worst, and typical from the
 * geometric mean of ratio / h; 0 where the bin has no error. */
int df_hbin_eff_bits(const df_hbin *b, df_type acc, double *worst, double *typical);
uint32_t df_hbin_of(uint64_t h);
uint32_t df_nbin_of(uint64_t n);

/* What a range of cases produced: per-kernel tallies and the error buckets
 * reached (df_error_bucket). */
typedef struct df_totals {
    df_tally tally[DF_RUN_MAX_KERNELS];
    uint8_t bucket_seen[DF_BUCKETS / 8];
} df_totals;

/* Adds nk tallies and a DF_BUCKETS / 8 byte bitmap of error buckets (a
 * worker's message) into dst. */
void df_totals_add_parts(df_totals *dst, const df_tally *tally, const uint8_t *bucket_seen,
                         size_t nk);
uint32_t df_totals_buckets(const df_totals *t);
uint64_t df_totals_verdict(const df_totals *t, size_t nk, int verdict);
/* A uint64_t counter of df_tally summed over the nk kernels:
 * DF_TOTALS_SUM(t, nk, cases). */
uint64_t df_totals_sum(const df_totals *t, size_t nk, size_t field_offset);
#define DF_TOTALS_SUM(t, nk, field) df_totals_sum((t), (nk), offsetof(df_tally, field))
/* The largest worst_ratio over the nk kernels, and its kernel's index in
 * *ki (nk when every ratio is 0). */
double df_totals_worst(const df_totals *t, size_t nk, size_t *ki);

/* A finding just saved, as the engine reports it to its caller. */
typedef struct df_finding {
    size_t ki;                /* kernel index */
    const df_kernel *k;
    const df_case *c;
    const df_checked *r;
    const char *path;         /* the case file */
    int is_new;
} df_finding;

/* The line a bug finding gets on stderr ("BUG    kernel n=... seed=...
 * index=... rule: why -> file"); nothing for the others (soft errors are
 * counted in the summary, df_run_summary). */
void df_print_finding(FILE *f, const df_finding *fd);

/* Sets of batch slots at most: with the GPU generating, the two batches
 * after next are generated (their vectors copied back) while the next one
 * is referenced and this one checked, so that the pool does not wait for
 * a generation that started only a batch before it is needed; and
 * the batch before this one waits in its set to be recorded while the GPU
 * runs this one. Matches the backends' generation sets (DF_GEN_SETS,
 * backend.h). */
#define DF_SETS_MAX 5
/* From this many sets the batch checked last waits in its set to be
 * recorded while the GPU runs the next (pipelined_range's deferred
 * recording); the rest are batches made ahead. */
#define DF_SETS_DEFER 4

/* The stages of a batch: generation and references (the host backend's
 * whole case: also its model and judgement), the GPU run, host model,
 * judgement and the metamorphic variants (made, run and judged for the
 * whole batch), then the checks finished and recorded in index order.
 * Pipelined, the next batch's generation and references run in the
 * background through the other stages; PREPARE then counts the time spent
 * waiting for them, and AHEAD the caller's time starting them (naming the
 * batch, its shapes and the GPU's generation). */
enum { DF_STAGE_PREPARE, DF_STAGE_GPU, DF_STAGE_FINISH, DF_STAGE_RECORD, DF_STAGE_AHEAD,
       DF_STAGES };

/* On the cuda backend the pool models the batch's cases while the caller
 * runs them on the GPU (the GPU stage; waiting for the models left after
 * it counts in FINISH, as its part MODELS). The FINISH stage: the sampled cases' metamorphic
 * copies made; the copies run on the GPU by the caller while the pool
 * judges the batch and references and models the copies; the wait for
 * the pool after that, first laying out the next batch and staging it in
 * the backend (NEXT) when it is prepared; the copies judged. */
enum { DF_FINISH_MAKE, DF_FINISH_GPU, DF_FINISH_WAIT, DF_FINISH_COPIES, DF_FINISH_MODELS,
       DF_FINISH_NEXT, DF_FINISH_PARTS };

/* One process's case loop. df_engine_init sets it up; the caller then sets
 * what it wants of batch, pool, pipeline, hb, stop, on_finding and ctx.
 * The rest is the engine's own. */
typedef struct df_engine {
    const df_run_opts *o;
    df_backend *b;
    const df_kernel *const *kernels;
    size_t nk;
    df_gen_opts go;
    df_oracle_opts oo;
    df_scratch buf, meta_buf;
    double worst_rel_saved[DF_RUN_MAX_KERNELS];
    struct df_sig *sigs;      /* bug signatures saved (DF_SAVE_NEW) */
    size_t nsigs, capsigs;
    df_heartbeat *hb;         /* NULL when unsupervised */
    df_pool *pool;            /* batches: CPU work over these threads (NULL: caller) */
    uint32_t batch;           /* cases per batch; <= 1: one case at a time */
    int pipeline;             /* DF_PIPE_*, from the options */
    /* the batches' slots, layout, plans and clocks (fuzz/run/engine_internal.h,
     * which only the engine's files include); NULL until a batched range */
    struct df_batch_state *bs;
    volatile sig_atomic_t *stop;
    /* called for each saved finding; returns -1 to stop (cannot log) */
    int (*on_finding)(void *ctx, const df_finding *f);
    void *ctx;
} df_engine;

/* The kinds of the pool's CPU work, each timed apart. */
enum { DF_CPU_GENERATE, DF_CPU_REFS, DF_CPU_MODEL, DF_CPU_JUDGE, DF_CPU_KINDS };

/* What the batches took so far (since the first batched range, or
 * df_engine_stats_reset), and how they ran: all 0 before a batched range. */
typedef struct df_engine_stats {
    double stage_s[DF_STAGES];        /* seconds in each stage (DF_STAGE_*) */
    double finish_s[DF_FINISH_PARTS]; /* the FINISH stage's parts (DF_FINISH_*, cuda) */
    double cpu_s[DF_CPU_KINDS];       /* CPU seconds of each kind (DF_CPU_*), summed
                                         over the pool's threads */
    double kernel_s[DF_RUN_MAX_KERNELS]; /* cuda: each kernel's runs on the backend
                                            (its cases' and copies'), by kernel index */
    double parts_end_s;               /* cuda: the waits for each batch's last parts */
    int pipelined;                    /* the next batch made while this one is checked */
    size_t sets;                      /* sets of slots, a batch each: 1; pipelined 2, or
                                         DF_SETS_DEFER to DF_SETS_MAX when the GPU
                                         generates */
    size_t last_n;                    /* cases of the batch checked last */
} df_engine_stats;
void df_engine_stats_get(const df_engine *e, df_engine_stats *st);
/* Zeroes the seconds df_engine_stats_get reports. */
void df_engine_stats_reset(df_engine *e);
/* Case s (< last_n) of the batch checked last, its vectors as they were
 * checked; *failed: it could not be generated (its vectors are not
 * there). */
const df_case *df_engine_last_case(const df_engine *e, size_t s, int *failed);

enum {
    DF_RANGE_DONE = 0,        /* every index in [lo, hi) ran */
    DF_RANGE_STOPPED = 1,     /* *stop was set: [lo, *next) ran */
    DF_RANGE_POISONED = 2,    /* the backend died: [lo, *next) recorded; the culprit
                                 is *next - 1 (judged, saved) or, in a batch, one
                                 of the batch's cases from *next on (not run:
                                 run them one at a time to find it) */
    DF_RANGE_ENV = 3,         /* cannot generate or save: [lo, *next) ran */
};

/* A signature already saved (a campaign's log, read by a new worker): with
 * --save-bugs new, a bug of the same (kernel index, verdict, rule,
 * floor(log2 err_ratio)) is counted, not saved again. */
void df_engine_known_signature(df_engine *e, size_t ki, int verdict, const char *rule,
                               double err_ratio);

void df_engine_init(df_engine *e, const df_run_opts *o, df_backend *b,
                    const df_kernel *const *kernels, size_t nk);
void df_engine_free(df_engine *e);
/* Runs indices [lo, hi) (hi = UINT64_MAX: until stopped or deadline, a
 * CLOCK_MONOTONIC time, 0 = none), tallying into t. *next gets the first
 * index not run. With e->batch > 1 the cases go in batches: generated,
 * referenced, modelled and judged on e->pool's threads, run on the backend
 * a kernel at a time (df_backend_run_batch), then checked metamorphically
 * and recorded in index order — so the verdicts, the counts and the files
 * saved are the ones of one case at a time. With e->pipeline on (auto:
 * the cuda backend), a pool of two threads or more and two batches whose
 * vectors (at 8 bytes an element) fit in DF_PIPELINE_BYTES together, the
 * batches are pipelined: the next one is generated and referenced while
 * this one runs on the backend and is judged, and when the GPU generates
 * (and three batches fit) the one after it is generated meanwhile. Runs
 * whose batches pass DF_PIPELINE_BYTES (long cases; many short ones) are
 * double-buffered where two batches fit in 1/DF_PIPELINE_LONG_SHARE of the
 * machine's memory (engine_layout.c's sets_fit). */
#define DF_PIPELINE_BYTES (UINT64_C(1) << 30)
#define DF_PIPELINE_LONG_SHARE 2
int df_engine_range(df_engine *e, uint64_t lo, uint64_t hi, double deadline,
                    df_totals *t, uint64_t *next);

/* The kernel of case i. */
static inline size_t df_run_kernel_of(uint64_t i, size_t nk) { return (size_t)(i % nk); }


/* The summary table to f: per kernel its cases, verdicts, worst ratio,
 * model-equal results (n/a on backend "host", where the models run in the
 * kernels' place and no result is compared; its GPU emulation compares),
 * then the totals: seed 000's alarms, the soft errors
 * (counted here, no line each), the effective precision, the findings. */
void df_run_summary(FILE *f, const df_run_opts *o, const df_kernel *const *kernels,
                    size_t nk, const df_totals *t, uint64_t saved, double elapsed,
                    const char *backend);

/* A supervised campaign in o->out (or o->resume); argv is the command
 * line recorded in the directory. Returns an outcome (cli.h values). */
int df_campaign_run(df_run_opts *o, int argc, char **argv);

#endif
