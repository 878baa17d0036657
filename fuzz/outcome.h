/* outcome.h — what became of a command or a piece of its work: clean, a
 * bug found, a usage or input error, an environment error. Library code
 * returns these; only main turns them into exit codes (cli.h). */
#ifndef DOTFUZZ_OUTCOME_H
#define DOTFUZZ_OUTCOME_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum df_outcome {
    DF_OUTCOME_CLEAN = 0,   /* ran, found no bug */
    DF_OUTCOME_BUG,         /* ran, some verdict was bug */
    DF_OUTCOME_USAGE,       /* bad command line or bad input file */
    DF_OUTCOME_ENV,         /* backend or filesystem unusable */
} df_outcome;

/* The more severe of two outcomes (bug > usage > env > clean). */
df_outcome df_outcome_worst(df_outcome a, df_outcome b);

#ifdef __cplusplus
}
#endif
#endif
