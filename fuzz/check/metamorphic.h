/* metamorphic.h — checks that relate a kernel's results on one case to its
 * results on the same case again or on transformed copies:
 *   rerun    a deterministic kernel gives the same bits again (else bug); a
 *            kernel that does not claim determinism is measured: distinct
 *            results over the reruns make the verdict `nondeterministic`
 *   negate   a -> -a negates a deterministic kernel's result exactly
 *   scale    a -> 2^k a scales it exactly when no rounding can fall in the
 *            subnormal range and nothing can overflow (see scale_is_exact)
 *   permute  the same pairs in another order stay inside the bound (every
 *            kernel: the permuted case is judged by the oracle)
 *   schedule the case again under a perturbed schedule (schedule.h): judged
 *            by the oracle (bound, and model match for a deterministic
 *            kernel), and for a deterministic kernel on its own grid the
 *            same bits as the first run
 * The schedule check samples its cases apart from the others (one in
 * `schedule`), and comes last in a case's plan. The transforms are drawn from (seed, index) of the case, so `replay`
 * repeats exactly the checks that `run` made. A case past 2^31 elements
 * (--huge) gets none: no rerun, copy or schedule rerun of its 16 GiB or
 * more. */
#ifndef DOTFUZZ_METAMORPHIC_H
#define DOTFUZZ_METAMORPHIC_H

#include "fuzz/check/check.h"
#include "fuzz/pcg32.h"

typedef struct df_meta_opts {
    uint32_t every;   /* check one case in `every` (by a hash of seed and index); 0 = never */
    uint32_t reruns;  /* extra runs of the case itself (>= 1 when checking) */
    uint32_t schedule; /* rerun one case in `schedule` under a perturbed schedule (by
                          another hash of seed and index); 0 = never */
} df_meta_opts;

/* What the checks found. When a check fails, the judged case's verdict
 * becomes bug with rule "rerun", "negate", "scale", "permute" or
 * "schedule" (or
 * nondeterministic with rule "rerun" for kernels that claim nothing). */
typedef struct df_meta_report {
    unsigned ran;        /* DF_META_* bits of the checks that ran */
    unsigned distinct;   /* distinct results over 1 + reruns runs */
    int scale_k;         /* the 2^k used (0 when scale did not run) */
} df_meta_report;

enum {
    DF_META_RERUN = 1,
    DF_META_NEGATE = 2,
    DF_META_SCALE = 4,
    DF_META_PERMUTE = 8,
    DF_META_SCHEDULE = 16
};

/* Whether any check is on (a sample to draw). */
static inline int df_meta_on(const df_meta_opts *o) { return o->every || o->schedule; }

/* Whether case c is in the sample of `o` (the metamorphic checks' or the
 * schedule check's): a hash of its seed and index alone, so
 * df_meta_sampled_at tells it before the case is made. */
int df_meta_sampled(const df_meta_opts *o, const df_case *c);
/* Whether c gets any check: sampled, and not a huge case (which gets no
 * variant: df_meta_plan_layout). What run's meta column counts. */
int df_meta_checked(const df_meta_opts *o, const df_case *c);
int df_meta_sampled_at(const df_meta_opts *o, uint64_t seed, uint64_t index);

/* Runs the checks on c, whose judged result is in r; updates r->j when a
 * check fails. buf is scratch for the transformed vectors. Returns 0, or -1
 * when the backend became unusable (as df_check_case). */
int df_metamorphic(df_backend *b, const df_kernel *k, const df_case *c,
                   const df_oracle_opts *oo, const df_meta_opts *mo,
                   df_scratch *buf, df_checked *r, df_meta_report *rep);

/* The checks as a plan, for batches: the variant cases (reruns of c, then
 * its negated, scaled and permuted copies, those that apply), made from
 * (seed, index) and the case's first result, their results, and the
 * application of those results to the case's judgement in a fixed order.
 * df_metamorphic is make, run each variant, finish. */
typedef struct df_meta_plan {
    size_t nvar, cap;
    int *kind;            /* DF_META_* of each variant */
    df_case *var;         /* the variant cases (copies' vectors in buf) */
    df_checked *out;      /* results; references, model and judgement for copies */
    int *ran;             /* 1 ran, -1 the backend died on it, 0 not run */
    int kexp;             /* scale's 2^k */
    df_pcg32 perm;        /* permute's stream (df_meta_plan_layout) */
    df_scratch buf;
    /* permute of a case longer than DF_GEN_CHUNK, made in chunks
     * (df_meta_permute_chunk): the source chunk of each of the copy's whole
     * chunks, the key of the chunks' streams, and the chunks not made yet
     * (the engine's count, set to all of them by df_meta_plan_layout) */
    df_scratch order;
    uint64_t perm_key, perm_left;
    df_refs own;          /* the case's references (df_meta_plan_layout's r) */
} df_meta_plan;

/* Lets the copies' buffers go where they hold more than keep bytes (a
 * long case's copies), so that a plan reused for short cases does not keep
 * them. */
void df_meta_plan_trim(df_meta_plan *p, size_t keep);

/* Makes the variants of c (r: its checked first run) and the copies'
 * references. Returns 0, or -1 out of memory. */
int df_meta_plan_make(const df_kernel *k, const df_case *c, const df_checked *r,
                      const df_meta_opts *mo, df_meta_plan *p);
/* The same in two steps, for batches: the variants alone, then each
 * copy's references (variant i; nothing for a rerun), on any thread. */
int df_meta_plan_variants(const df_kernel *k, const df_case *c, const df_checked *r,
                          const df_meta_opts *mo, df_meta_plan *p);
/* df_meta_plan_variants in two steps, so that a long case's copies are
 * made on a thread each: the variants, which copies apply and where their
 * vectors go (returns 0, or -1 out of memory); then variant i's vectors
 * (nothing for a rerun), any i in any order. */
int df_meta_plan_layout(const df_kernel *k, const df_case *c, const df_checked *r,
                        const df_meta_opts *mo, df_meta_plan *p);
void df_meta_plan_fill(const df_case *c, df_meta_plan *p, size_t i);
/* How variant i's a follows from c's (the case the plan is of), for a
 * backend that has c's a where it runs the copy: negate's and scale's;
 * DF_DERIVE_NONE for a rerun (c itself) and a permute (both vectors
 * shuffled). */
df_derive df_meta_plan_derive(const df_case *c, const df_meta_plan *p, size_t i);
/* A case longer than DF_GEN_CHUNK (generator.h) has its permuted copy made
 * in chunks, which any threads may make in any order: its whole chunks
 * are the case's in an order drawn by a Fisher-Yates over them from the
 * permute stream (the last, partial chunk stays last), then the pairs of
 * each chunk j are shuffled by a Fisher-Yates from df_pcg32_seed(key, j),
 * key two draws of the stream after the order. df_meta_permute_chunks: how
 * many (0: c is permuted whole); df_meta_permute_chunk: chunk j of p's
 * permute copy i, which df_meta_plan_fill makes all of. */
uint64_t df_meta_permute_chunks(const df_case *c);
void df_meta_permute_chunk(const df_case *c, const df_meta_plan *p, size_t i, uint64_t j);
void df_meta_plan_refs(df_meta_plan *p, size_t i);
/* Permute copies' references gathered from several plans (each a copy
 * made: df_meta_plan_fill) and made DF_META_PERMUTED_MAX at a time, their
 * Kahan sums side by side (df_refs_permuted_many; alone, each was a chain
 * of dependent additions on one core): the values df_meta_plan_refs
 * gives each. add makes them when the group is full, flush when asked. */
#define DF_META_PERMUTED_MAX 16
typedef struct df_meta_permuted {
    df_meta_plan *plan[DF_META_PERMUTED_MAX];
    size_t var[DF_META_PERMUTED_MAX];
    size_t m;
} df_meta_permuted;
void df_meta_permuted_add(df_meta_permuted *g, df_meta_plan *p, size_t i);
void df_meta_permuted_flush(df_meta_permuted *g);
/* Copy i's references where they follow from the case's own, the values
 * df_refs_compute gives: negate without a pass over its data
 * (df_refs_negated), scale with one quick pass for the data's classes
 * (df_refs_scaled: f32), permute with its Kahan sum alone
 * (df_refs_permuted); the copy made by df_meta_plan_fill first. Returns 1 when
 * they did, 0 (nothing written) when they must be computed.
 * df_meta_plan_refs tries it first. */
int df_meta_plan_refs_derived(df_meta_plan *p, size_t i);
/* Variants made before the run, with a stand-in r whose run ended well (so
 * made on any thread while the case waits for its run): given the real r,
 * drops the copies a run that did not end well would not have had, which
 * leaves the plan df_meta_plan_variants makes from the real r. */
void df_meta_plan_settle(df_meta_plan *p, const df_checked *r);
/* Judges copy i once out[i].res (and .model) are in. */
void df_meta_plan_judge(const df_kernel *k, const df_oracle_opts *oo, df_meta_plan *p,
                        size_t i);
/* Applies the variants' results to r in order. Returns 0, or -1 when a
 * variant did not run or killed the backend (r holds what came before). */
int df_meta_plan_finish(const df_kernel *k, const df_meta_opts *mo, const df_meta_plan *p,
                        df_checked *r, df_meta_report *rep);
void df_meta_plan_free(df_meta_plan *p);
/* The variants before the first schedule rerun: those that may run in the
 * case's own batch (the schedule rerun runs alone, df_backend_run). */
size_t df_meta_plan_early(const df_meta_plan *p);

/* The sufficient condition for `scale` (exposed for tests): every value
 * the evaluation can produce is a multiple of Q = min over nonzero products
 * of quantum(a_i) * quantum(b_i); a rounding happens only when an exact
 * value needs more than p bits, i.e. at magnitude >= 2^p Q. If 2^p Q 2^min(k,0)
 * is at least the smallest normal of the accumulator, every rounding is in
 * the normal range before and after scaling and commutes with 2^k. Also
 * every a_i 2^k must be exact and G 2^max(k,0) far from overflow. */
int df_scale_is_exact(const df_kernel *k, const df_case *c, double G, int kexp);

#endif
