/* minimize.h — the minimizer of `dotfuzz minimize` and `dotfuzz triage`:
 * shrinks a case that is a bug (or a soft error) on its kernel while the
 * same rule keeps firing. Three phases, each candidate judged exactly as
 * `replay` judges (oracle, then every metamorphic check, since rules such
 * as "negate" or "rerun" come from them): delta debugging over the pairs
 * (remove halves, quarters, ..., single pairs), simpler values (0, 1, small
 * integers, powers of two, narrower exponents; smaller magnitudes for i32),
 * then the default launch. The case keeps its (seed, index): the
 * metamorphic transforms are drawn from them, so a rule found by one stays
 * reproducible. */
#ifndef DOTFUZZ_MINIMIZE_H
#define DOTFUZZ_MINIMIZE_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz/check/check.h"
#include "fuzz/check/metamorphic.h"
#include "fuzz/run/sandbox.h"

/* The case being shrunk: owns its vectors (a then b, each n elements). */
typedef struct df_minimizer {
    df_sandbox *sb;
    const df_kernel *k;
    df_oracle_opts oo;
    df_meta_opts mo;
    df_case c;          /* c.a/c.b point into buf; c.launch unresolved */
    uint8_t *buf;
    const char *rule;   /* the rule that must persist (NULL: any bug or soft error) */
    uint64_t tries, max_tries;
    int dead;           /* no worker process can run cases */
    df_checked last;    /* judgement of the current case */
} df_minimizer;

/* Sets st up on a copy of case c on kernel k: the case's launch where
 * valid for k (a derived grid left to follow n), tolerance tol, at most
 * max_tries judged attempts. 0, or -1 with the reason in why. */
int df_minimizer_init(df_minimizer *st, df_sandbox *sb, const df_kernel *k, const df_case *c,
                      double tol, uint64_t max_tries, char *why, size_t why_len);
void df_minimizer_free(df_minimizer *st);

/* The current case as a case file at path, its last judgement recorded,
 * written whole or not at all. 0, or -1 with errno. */
int df_minimizer_write(const df_minimizer *st, const char *path);

/* Judges c as replay does. Returns 1 when it is a bug or a soft error
 * with st->rule (or, when st->rule is NULL, any such verdict), 0
 * otherwise; out gets the judgement. */
int df_minimizer_judge(df_minimizer *st, const df_case *c, df_checked *out);

/* The three phases on st->c, already judged a bug with st->rule (set it
 * from st->last first); st->c and st->last end as the smallest case kept. */
void df_minimize(df_minimizer *st);

#endif
