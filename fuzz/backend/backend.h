/* backend.h — where a kernel runs: "host" runs its host model on the CPU,
 * "cuda" runs the GPU kernel (and, for deterministic kernels, the host model
 * beside it for the model-match rule). "auto" picks cuda when a GPU is
 * present. */
#ifndef DOTFUZZ_BACKEND_H
#define DOTFUZZ_BACKEND_H

#include <stddef.h>

#include "kernels/kernel.h"
#include "fuzz/case.h"
#include "fuzz/outcome.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct df_backend df_backend;

/* name: "host", "cuda" or "auto". Returns 0, or -1 with a reason in err
 * (unknown name, no GPU, built without CUDA). *note gets a line saying
 * which backend auto picked and why (may be NULL). */
int df_backend_open(const char *name, df_backend **out, char *err,
                    size_t err_len);
/* df_backend_open for subcommand cmd: on failure one line on stderr,
 * "dotfuzz CMD: <why>", and USAGE (unknown name) or ENV (unavailable). */
df_outcome df_backend_open_said(const char *cmd, const char *name, df_backend **out);
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

/* The GPU half of a batch: k run on cases[0..n) (cuda backend only), one
 * result per case in res (no host model: the caller runs those in
 * parallel). Kernels with a batched launcher run the whole batch in few
 * launches; the others run one case after the other. meanwhile, when not
 * NULL, is called at most once, with ctx, while the GPU runs the batch
 * (after its work is queued, before the wait for it), or before the cases
 * where there is no such wait: the caller's other work, hidden behind the
 * GPU's (it must not use the backend's batch). derive: NULL, or how each
 * case's a follows from another vector (case.h's df_derive; the cuda
 * backend makes it on the GPU where that vector is there). ticket: what
 * df_backend_stage_batch returned for this batch, or 0. Returns 0, or -1
 * when the backend became unusable: then *done cases have results (the
 * last of them carries the error) and the rest none. */
int df_backend_run_batch(df_backend *b, const df_kernel *k, const df_case *const *cases,
                         const df_derive *derive, size_t n, df_result *res, size_t *done,
                         void (*meanwhile)(void *ctx), void *ctx, uint64_t ticket);
/* df_backend_run_batch in two halves, so that several kernels' batches
 * are in flight at once (the cuda backend; the host backend runs each at
 * its start): df_backend_part_start issues k's batch and returns; what
 * df_backend_run_batch would return goes to *rc, and *done with it, when
 * the part ends, at the latest in df_backend_parts_end, which ends every
 * part in flight (res, done and rc must stay until then). Up to
 * df_backend_parts_in_flight parts are in flight; the next start ends the
 * oldest. When the backend becomes unusable with several parts in flight,
 * none of their cases carries the error: *done counts what ran before,
 * and the caller runs the others again one at a time. */
void df_backend_part_start(df_backend *b, const df_kernel *k, const df_case *const *cases,
                           const df_derive *derive, size_t n, df_result *res, size_t *done,
                           int *rc, uint64_t ticket);
void df_backend_parts_end(df_backend *b);
unsigned df_backend_parts_in_flight(const df_backend *b);

/* The cuda backend's plan and staging of a batch, done ahead of its
 * df_backend_run_batch (same k, cases, derive, n and res, which must not change
 * meanwhile, and no other batch run or staged in between: the staging is
 * then dropped and the run does it again). The invalid cases' errors go
 * into res now. Returns the run's ticket, or 0 where nothing was staged
 * (the host backend). */
uint64_t df_backend_stage_batch(df_backend *b, const df_kernel *k, const df_case *const *cases,
                                const df_derive *derive, size_t n, df_result *res);

/* A host-model runner for one thread: its own working memory and guarded
 * copies, so that batches run models on every core (fuzz/pool.h). */
typedef struct df_model_ctx {
    df_scratch scratch;   /* host models' working memory */
    df_scratch guarded;   /* the case's vectors inside guard zones */
} df_model_ctx;
void df_model_ctx_free(df_model_ctx *m);
/* Runs k's host model on c, its vectors copied inside NaN guard zones
 * (DF_GUARD_ELEMS each side), or on c's own where the model stays in
 * bounds (DF_K_MODEL_IN_BOUNDS): the same result either way. whole: a plugin's whole-routine form
 * (host_run) where it has one, as the host backend runs it; else the
 * model the cuda backend compares against. Returns 1 when the model
 * reported an emulated sticky error (DF_MODEL_STICKY, kernel.h), else 0. */
int df_run_model(df_model_ctx *m, const df_kernel *k, int whole, const df_case *c,
                 df_result *res);
/* Whether b runs kernels as host models on the CPU, case by case as its
 * caller likes (0 for the cuda backend, and for the host backend
 * emulating a GPU's sticky errors, which runs batches as a GPU does). */
int df_backend_is_host(const df_backend *b);

/* cuda: the device's global memory in bytes; 0 on the host backend (its
 * emulated device is the host's memory). */
uint64_t df_backend_device_bytes(const df_backend *b);

/* Threads the backend may use (a batch's staging copies; the model beside
 * a device's run of a case past DF_GEN_CHUNK, df_backend_run), or NULL.
 * df_backend_run with a model to make is then called by the thread that
 * opens the pool's loops (its worker 0). */
struct df_pool;
void df_backend_set_pool(df_backend *b, struct df_pool *pool);

/* cuda: where the batched launches' time went since the last call
 * (DF_CUDA_T_*, cuda_backend.h). Returns 0, or -1 on the host backend (no
 * such stages). */
int df_backend_batch_times(df_backend *b, double *out);

/* cuda: m cases generated on the GPU from their value streams
 * (df_cuda_devgen), copied into out. Returns 0, or -1 with the reason in
 * err (the host backend has no GPU). */
struct df_devgen_case;
int df_backend_devgen(df_backend *b, const struct df_devgen_case *cs, size_t m, size_t bytes,
                      void *out, double *ms, char *err, size_t err_len);

/* The harness's generation in one of DF_GEN_SETS sets (a batch each, set
 * in [0, DF_GEN_SETS)): on cuda the
 * GPU generates cs[0..m) and copies them into pinned memory, *out, which
 * stays the set's until its next start (df_backend_gen_wait: when it has
 * landed); the host backend makes the same bytes at once on the calling
 * thread (its GPU emulation's stand-in). Return 0, or -1 (err). */
/* Places cs[0..m) one after another in one buffer, each case's a then b,
 * 16-byte aligned (their off); returns the bytes in all. */
size_t df_devgen_layout(struct df_devgen_case *cs, size_t m);
#define DF_GEN_SETS 5
int df_backend_gen_start(df_backend *b, int set, const struct df_devgen_case *cs, size_t m,
                         size_t bytes, void **out, char *err, size_t err_len);
int df_backend_gen_wait(df_backend *b, int set);
/* Whether set's generation has landed (or failed: df_backend_gen_wait
 * says which), without waiting: 1 or 0. */
int df_backend_gen_landed(df_backend *b, int set);

/* A batch made on the CPU, its vectors crossing to the device once for
 * all the kernels that read them, in the same sets: upload_reserve gives
 * set's buffer of at least bytes (*cap: its size) for the caller to copy
 * the vectors into, once the set's last batch has run (on cuda pinned
 * memory, written with df_copy_streaming); upload_start copies its first
 * bytes to the device, where a batch's staging finds the vectors that lie
 * in it as it finds the GPU's generated ones, so that no kernel's part
 * packs or copies them again. The host backend emulating a device gives
 * plain memory and copies nothing. reserve returns the buffer, or NULL
 * (err); start 0, or -1 (err: the vectors are then staged as any others). */
void *df_backend_upload_reserve(df_backend *b, int set, size_t bytes, size_t *cap, char *err,
                                size_t err_len);
int df_backend_upload_start(df_backend *b, int set, size_t bytes, char *err, size_t err_len);

/* cuda: fold/tournament check their loop invariant after every round. */
void df_backend_set_debug_invariants(df_backend *b, int on);

#ifdef __cplusplus
}
#endif
#endif
