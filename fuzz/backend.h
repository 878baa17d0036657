/* backend.h — where a kernel runs: "host" runs its host model on the CPU,
 * "cuda" runs the GPU kernel (and, for deterministic kernels, the host model
 * beside it for the model-match rule). "auto" picks cuda when a GPU is
 * present. */
#ifndef DOTFUZZ_BACKEND_H
#define DOTFUZZ_BACKEND_H

#include <stddef.h>

#include "../kernels/kernel.h"
#include "case.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct df_backend df_backend;

/* name: "host", "cuda" or "auto". Returns 0, or -1 with a reason in err
 * (unknown name, no GPU, built without CUDA). *note gets a line saying
 * which backend auto picked and why (may be NULL). */
int df_backend_open(const char *name, df_backend **out, char *err,
                    size_t err_len);
void df_backend_close(df_backend *b);
const char *df_backend_name(const df_backend *b); /* "host" or "cuda" */
const char *df_backend_note(const df_backend *b); /* how it was chosen */

/* Whether kernel k can run on b (host: has a host model; cuda: has a GPU
 * launcher). */
int df_backend_supports(const df_backend *b, const df_kernel *k);

/* Runs k on c. res gets the kernel's result (or an execution error);
 * model, when not NULL and the backend also ran the host model for the
 * model-match rule, gets the model's result and *model_ran is set.
 * Returns 0 when something was produced (check res->status), -1 when the
 * backend itself is unusable. */
int df_backend_run(df_backend *b, const df_kernel *k, const df_case *c,
                   df_result *res, df_result *model, int *model_ran);

/* cuda: fold/tournament check their loop invariant after every round. */
void df_backend_set_debug_invariants(df_backend *b, int on);

#ifdef __cplusplus
}
#endif
#endif
