/* probe.h — black-box characterisation of a float kernel's arithmetic
 * from targeted cases, each run in the sandbox (sandbox.h): the fraction
 * bits its products and its accumulation keep, how it rounds (nearest-even or -away,
 * toward zero, down, up), whether subnormal inputs and results survive,
 * what NaN and Inf give, and whether its result depends on the launch or
 * changes between runs. `dotfuzz probe` prints the card beside what the
 * kernel declares. */
#ifndef DOTFUZZ_PROBE_H
#define DOTFUZZ_PROBE_H

#include "fuzz/run/sandbox.h"

typedef enum df_probe_round {
    DF_PROBE_UNKNOWN = 0,
    DF_PROBE_NEAREST_EVEN,
    DF_PROBE_NEAREST_AWAY,
    DF_PROBE_ZERO,
    DF_PROBE_DOWN,
    DF_PROBE_UP
} df_probe_round;

const char *df_probe_round_name(df_probe_round r); /* "nearest-even", ... */

/* A yes/no finding: 1, 0, or -1 when the probe could not tell (a run
 * failed). */
typedef struct df_probe_card {
    int acc_bits;            /* fraction bits the accumulation keeps: the largest k
                                with 1 + 2^-k exact; -1 unknown */
    int product_bits;        /* fraction bits a product keeps: the largest k with
                                (1 + 2^-k) x 1 exact, up to the inputs' own; -1 */
    df_probe_round acc_round;
    int subnormal_inputs;    /* a subnormal input's product kept */
    int subnormal_results;   /* a subnormal product of normal inputs kept */
    int nan_out;             /* a NaN input gives NaN */
    int inf_out;             /* +Inf among finite values gives +Inf */
    int inf_minus_inf;       /* +Inf and -Inf give NaN */
    int launch_dependent;    /* one case, every block size: results differ */
    unsigned launches, launch_results; /* the block sizes tried, distinct results */
    int runs_differ;         /* one case and launch, five runs: results differ */
    unsigned runs;           /* cases run in all */
    /* f16, bf16, e4m3, e5m2 kernels (probe_fused.c); acc_bits is then the
     * result's fraction bits, acc_round its rounding */
    int align_bits;          /* bits a step keeps below its largest term (P, -P,
                                2^-d P gives 2^-d P); -1 unknown, 0 not asked */
    int align_floor;         /* the format's range ended that scan: at least this */
    int fused_span;          /* the first j where -P at j no longer meets P at 0 in
                                one step (the group, for a chained kernel); -1 */
} df_probe_card;

/* Probes float kernel k (f32, f64 or low-precision elements) in sb.
 * Returns 0, or -1 when the sandbox could not run a case (said on
 * stderr); a run that fails leaves its findings unknown. */
int df_probe(df_sandbox *sb, const df_kernel *k, df_probe_card *card);

/* What probe_fused.c shares with probe.c: the sandbox, the kernel, the
 * cases run, and a case of n elements from raw bytes of k's type. */
typedef struct df_probe_ctx {
    df_sandbox *sb;
    const df_kernel *k;
    unsigned runs;
    int dead; /* the sandbox could not run a case */
} df_probe_ctx;

/* Case c through the kernel in the sandbox, its result into *out: 0, 1
 * for a failed run, -1 when the sandbox runs no more cases (p->dead). */
int df_probe_run_case(df_probe_ctx *p, const df_case *c, double *out);

/* k's result on a and b (n elements of its type, as bytes) at its default
 * launch, into *out: 0, or -1 (a failed run or launch, or p->dead). */
int df_probe_run_bytes(df_probe_ctx *p, const void *a, const void *b, size_t n, double *out);

/* The low-precision card (probe_fused.c). */
void df_probe_lowp(df_probe_ctx *p, df_probe_card *card);

#endif
