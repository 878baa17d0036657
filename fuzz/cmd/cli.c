/* cli.c — the outcome-to-exit-code mapping, the only one (cli.h). */
#include "fuzz/cmd/cli.h"

int df_exit_code(df_outcome o)
{
    switch (o) {
    case DF_OUTCOME_CLEAN: return 0;
    case DF_OUTCOME_BUG: return 1;
    case DF_OUTCOME_USAGE: return 2;
    case DF_OUTCOME_ENV: return 3;
    }
    return 3;
}
