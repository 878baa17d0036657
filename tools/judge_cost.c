/* judge_cost.c — what the judgement costs (the oracle's
 * opts.terse). Generates 4096 cases of the shfl kernel at n = 2000 (the
 * bench's mix of families, seed 7), takes the host model's result as the
 * kernel's, and times df_judge, terse and not, over the cases judged
 * precision and over all of them, 200 times each, twice.
 * Build: make judge-cost (build/tools/judge-cost). Usage: judge-cost */
#include <stdio.h>
#include <string.h>

#include "fuzz/backend/backend.h"
#include "fuzz/gen/generator.h"
#include "fuzz/oracle.h"
#include "fuzz/pool.h"
#include "reference/reference.h"

enum { CASES = 4096, REPS = 200 };

static df_case cs[CASES];
static df_refs refs[CASES];
static df_result res[CASES];
static df_scratch buf[CASES];
static size_t prec[CASES], all[CASES];

int main(void)
{
    const df_kernel *k = df_kernel_find("shfl");
    if (!k) {
        fprintf(stderr, "judge-cost: no shfl kernel\n");
        return 1;
    }
    df_gen_opts go = {.max_n = 2000, .fixed_n = 2000};
    df_model_ctx mc;
    memset(&mc, 0, sizeof mc);
    size_t np = 0;
    for (size_t i = 0; i < CASES; i++) {
        if (df_generate(7, i, k, &go, &buf[i], &cs[i]) != 0) {
            fprintf(stderr, "judge-cost: case %zu not generated\n", i);
            return 1;
        }
        df_refs_compute(cs[i].type, cs[i].a, cs[i].b, cs[i].n, &refs[i]);
        df_run_model(&mc, k, 1, &cs[i], &res[i]);
        df_oracle_opts oo = {.tol = 1e-6, .terse = 1};
        df_judgement j;
        df_judge(k, &cs[i], &refs[i], &res[i], NULL, &oo, &j);
        if (j.verdict == DF_V_PRECISION)
            prec[np++] = i;
    }
    printf("precision verdicts: %zu of %d cases (shfl, n = 2000, seed 7)\n", np, CASES);
    for (size_t i = 0; i < CASES; i++)
        all[i] = i;
    for (int round = 0; round < 2 && np; round++)
        for (int which = 0; which < 2; which++)
            for (int terse = 1; terse >= 0; terse--) {
                const size_t *ix = which ? all : prec;
                size_t m = which ? (size_t)CASES : np;
                df_oracle_opts oo = {.tol = 1e-6, .terse = terse};
                df_judgement j;
                double t0 = df_now();
                for (int rep = 0; rep < REPS; rep++)
                    for (size_t q = 0; q < m; q++)
                        df_judge(k, &cs[ix[q]], &refs[ix[q]], &res[ix[q]], NULL, &oo, &j);
                printf("terse %d: %.3f us a judgement (%s)\n", terse,
                       1e6 * (df_now() - t0) / ((double)REPS * (double)m),
                       which ? "every case" : "precision verdicts");
            }
    df_model_ctx_free(&mc);
    for (size_t i = 0; i < CASES; i++)
        df_scratch_free(&buf[i]);
    return 0;
}
