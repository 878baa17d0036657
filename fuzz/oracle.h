/* oracle.h — turns (kernel traits, kernel result, references) into a
 * verdict. The rules, as formulas, are docs/oracle.md's table.
 */
#ifndef DOTFUZZ_ORACLE_H
#define DOTFUZZ_ORACLE_H

#include "kernels/kernel.h"
#include "reference/reference.h"
#include "fuzz/case.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Verdicts. The numeric values are the corpus file's verdict byte
 * (0 there means "not recorded"). Ordered by severity. */
typedef enum df_verdict {
    DF_V_OK = 1,
    DF_V_PRECISION = 2,
    DF_V_NONDET = 3,
    DF_V_SOFT_ERROR = 4,
    DF_V_BUG = 5,
} df_verdict;

#define DF_V_COUNT 6 /* array size for per-verdict counters, index = verdict */

const char *df_verdict_name(df_verdict v); /* "ok", "precision", "bug", ... */

typedef struct df_oracle_opts {
    double tol; /* relative tolerance for a precision finding (default 1e-6) */
    int terse;  /* an ok or precision verdict without soft-error reports gets
                   no why text (left ""): for callers that show or save few of
                   them (run's batches, where formatting the text was most of
                   the judgement's time; about half of the cases at n = 2000
                   are precision); the engine judges a precision finding again
                   without it before it saves one (engine_record.c's record). Terse,
                   ulp_err is left NaN too (shown by the one-case check alone) */
} df_oracle_opts;

typedef struct df_judgement {
    df_verdict verdict;
    const char *rule;   /* which rule decided: "exact", "bound", "tolerance",
                           "within-tolerance", "order-set", "model", "nonfinite", "nan",
                           "overflow", "exec" */
    char why[240];      /* one line for humans */
    int is_int;         /* integer kernel: iresult holds the result */
    double result;      /* kernel result (float kernels) */
    int64_t iresult;    /* kernel result (integer kernels) */
    int exact_known;
    double exact_hi, exact_lo; /* exact dot as head+tail (when known) */
    double kahan;
    double ref;         /* best reference: exact_hi when known, else kahan */
    double G;
    double abs_err;     /* |result - s| (or vs Kahan when s unknown) */
    double rel_err;     /* abs_err / |s|; +inf when s == 0 != result */
    double err_ratio;   /* abs_err / (u * G), 0 when G == 0 */
    double ulp_err;     /* |result - s| in ulps of the result type at s (NaN
                           when s is not known exactly as digits) */
    double bound;       /* gamma_h * G + underflow allowance */
    double cond;        /* 2G/|s| (+inf when s == 0) */
    uint64_t h;         /* tree height used */
    double u;           /* unit roundoff of the accumulator */
} df_judgement;

/* Judges one kernel result. model is the host model's result for the same
 * case when the backend ran both (cuda backend, deterministic kernels);
 * NULL otherwise. Never fails: an execution error is verdict bug with
 * rule "exec". */
void df_judge(const df_kernel *k, const df_case *c, const df_refs *refs,
              const df_result *res, const df_result *model,
              const df_oracle_opts *opts, df_judgement *out);

/* The bug threshold of err_ratio (|err| / (u G)) for kernel k on n
 * elements at tree height h: the part of the oracle's bound that grows
 * with G, over u G (about h for IEEE sums; the fused bound for fused
 * kernels). Without what depends on the case's values (the underflow
 * allowance, tf32 inputs, the result's own rounding, subnormal low-precision
 * inputs); 0 for integer kernels, where any error is a bug. */
double df_ratio_bound(const df_kernel *k, uint64_t n, uint64_t h);

/* gamma_k = k u / (1 - k u); +inf when k u >= 1. */
double df_gamma(uint64_t k, double u);

#ifdef __cplusplus
}
#endif
#endif
