/* check.h — one case through one kernel: references, backend run, oracle.
 * Shared by `run` and `replay` so both judge a case the same way. */
#ifndef DOTFUZZ_CHECK_H
#define DOTFUZZ_CHECK_H

#include <stdio.h>

#include "kernels/kernel.h"
#include "reference/reference.h"
#include "fuzz/backend/backend.h"
#include "fuzz/corpus.h"
#include "fuzz/oracle.h"

typedef struct df_checked {
    df_refs refs;
    df_result res;
    df_result model;
    int model_ran;
    df_judgement j;
    /* the verdict came from the case rerun under this schedule and launch
     * (the schedule rule): its file records them, so replay repeats it */
    int perturbed;
    df_schedule sched;
    df_launch launch;
} df_checked;

/* Runs c on k and judges it. Returns 0, or -1 when the backend is unusable
 * from now on (a poisoned CUDA context); out is judged either way, the
 * error in out->res.err. */
int df_check_case(df_backend *b, const df_kernel *k, const df_case *c,
                  const df_oracle_opts *o, df_checked *out);

/* The same for a case whose references are already computed (a case run
 * on several kernels computes them once). */
int df_check_case_refs(df_backend *b, const df_kernel *k, const df_case *c,
                       const df_refs *refs, const df_oracle_opts *o,
                       df_checked *out);

/* The judgement of a case whose run never returned (the worker process
 * running it ended on it: a crash, an exit(), a hang): verdict bug with
 * rule ("crash", "hang") and why, the references computed (a long case's
 * on pool's threads, df_refs_compute_pool; pool may be NULL), the result
 * and its errors NaN. */
struct df_pool;
void df_check_failed(struct df_pool *pool, const df_kernel *k, const df_case *c,
                     const char *rule, const char *why, df_checked *out);

/* The bytes of the case file that records judged case c: its verdict and
 * result in the header (a freshly malloc'd *buf of *len bytes). 0 or -1. */
int df_finding_encode(const df_case *c, const df_checked *r, uint8_t **buf, size_t *len);

/* The kind a judged case is filed under, its name's prefix: "crash" and
 * "hang" (bugs of those rules), "bug", "soft-error", "precision",
 * "nondet", "ok". */
const char *df_finding_kind(const df_judgement *j);
/* The same from a verdict and its rule. */
const char *df_finding_kind_of(df_verdict v, const char *rule);

/* Saves a judged case into dir as <kind>-<sha1> (df_finding_kind) with its
 * verdict and result recorded (df_finding_encode's bytes). path receives
 * the file's path; *is_new = 0 for a duplicate. */
int df_save_finding(const char *dir, const df_case *c, const df_checked *r,
                    char *path, size_t path_len, int *is_new);

/* One JSON object (one line) describing a judged case (json.h's rules). */
void df_print_json(FILE *f, const char *source, const df_case *c,
                   const df_kernel *k, const df_checked *r);


/* One line describing a soft-error report, after lead. */
void df_print_soft(FILE *f, const char *lead, const df_soft_report *s);

/* One human line: "<source> <kernel> <verdict> (<rule>) ..." */
void df_print_line(FILE *f, const char *source, const df_case *c,
                   const df_kernel *k, const df_checked *r);

/* The launch a case runs with on kernel k, into *c (a copy of src): the
 * case's own when valid for k; for a case that names no kernel, k's
 * defaults (offsets kept where k accepts them) otherwise. Returns 0, or -1
 * with the reason in why (a case naming k whose launch is invalid). */
int df_launch_for(const df_kernel *k, const df_case *src, df_case *c, char *why,
                  size_t why_len);

/* The i-th kernel case c may run on (NULL past the last), whatever its
 * element type: the one c names (a built-in, a mutant or a plugin's),
 * else the built-ins then the plugins' kernels; with a set (a --kernel
 * list: nset > 0), only kernels of the set, and a case that names none
 * runs on each of them. */
const df_kernel *df_case_candidate(const df_case *c, size_t i, const df_kernel *const *set,
                                   size_t nset);

struct df_meta_opts;
/* df_check_case, then the metamorphic checks (metamorphic.h) when c is in
 * mo's sample; buf is their scratch. pool: threads that reference a case
 * past DF_REFS_CHUNK a chunk an item (df_refs_compute_pool), or NULL.
 * Returns -1 when the backend became unusable, as df_check_case. */
int df_check_case_meta(df_backend *b, struct df_pool *pool, const df_kernel *k,
                       const df_case *c, const df_oracle_opts *oo,
                       const struct df_meta_opts *mo, df_scratch *buf, df_checked *out);

/* The error regime a judged case reached: a hash of (kernel, floor(log2
 * err_ratio) bucket, floor(log10 cond) bucket, verdict). The libFuzzer
 * target turns it into coverage; run and replay count the distinct ones.
 * DF_BUCKETS is the size of the space it hashes into. */
#define DF_BUCKETS 4096u
uint32_t df_error_bucket(const df_kernel *k, const df_judgement *j);

/* Seed 000's oracle, for comparison: |result - reference| / |reference| >
 * tol in plain double arithmetic, nothing else (so a NaN result compares
 * false and raises no alarm, as it would there). */
int df_seed_oracle_alarm(const df_judgement *j, double tol);

#endif
