/* cuda_backend.h — the cuda backend: the device, its buffers, one case
 * (cuda_backend.cu) or a batch (cuda_stage.cu, cuda_batch.cu) through a
 * kernel's df_gpu_ops (kernels/gpu_ops.h), and the generation of batches
 * on the GPU (cuda_devgen.cu). Every CUDA call is checked; a failure
 * becomes an execution error naming the kernel, the case and the call.
 */
#ifndef DOTFUZZ_CUDA_BACKEND_H
#define DOTFUZZ_CUDA_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz/pcg32.h"
#include "kernels/gpu_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The cuda backend. */
typedef struct df_cuda df_cuda;

/* Opens device 0 (CUDA_VISIBLE_DEVICES selects). Returns 0, or -1 with a
 * reason (no device, driver too old, built without CUDA). */
int df_cuda_open(df_cuda **out, char *err, size_t err_len);
void df_cuda_close(df_cuda *cu);
/* "NVIDIA H200, sm_90, driver 580.159, runtime 13.0" */
const char *df_cuda_describe(const df_cuda *cu);
/* The device's global memory in bytes. */
uint64_t df_cuda_mem_total(const df_cuda *cu);
void df_cuda_set_debug_invariants(df_cuda *cu, int on);
struct df_pool;
/* Threads the batched path may use to stage cases into pinned memory
 * (fuzz/pool.h; NULL: the calling thread alone). */
void df_cuda_set_pool(df_cuda *cu, struct df_pool *pool);

/* Where df_cuda_run_batch's wall time went, in seconds since the last
 * call (which zeroes them): checking and laying out the cases, staging
 * them into pinned memory, the device's part (copies in, launches, copy
 * out, the one synchronization), and turning results and each case's
 * soft-error reports into df_results (the first DF_CUDA_T_WALL); then the
 * device's part on the device's own clock (events on the stream):
 * clearing the soft-error slots and the copies in (tables, packed
 * vectors), the unpack kernel, the kernel's launches, the copy out of the
 * results; then, on the host's clock: of the device's part, the calls that
 * queue its work (DF_CUDA_T_ENQUEUE); the plan and staging of batches
 * staged ahead (df_cuda_stage_batch), which are not in the first four;
 * then, with DOTFUZZ_GEN_TIMING set in the environment (it costs: see
 * cuda_internal.h), the harness's generations on the GPU
 * (df_cuda_gen_start) that landed since: how many, their kernels' and
 * copies' device time (events), the bytes copied back, and the host's
 * time from each start to the first thread that saw it land. */
enum {
    DF_CUDA_T_PLAN,
    DF_CUDA_T_STAGE,
    DF_CUDA_T_DEVICE,
    DF_CUDA_T_FINISH,
    DF_CUDA_T_WALL,
    DF_CUDA_T_COPYIN = DF_CUDA_T_WALL,
    DF_CUDA_T_UNPACK,
    DF_CUDA_T_KERNELS,
    DF_CUDA_T_COPYOUT,
    DF_CUDA_T_ENQUEUE,
    DF_CUDA_T_AHEAD_PLAN,
    DF_CUDA_T_AHEAD_STAGE,
    DF_CUDA_T_GEN_COUNT,
    DF_CUDA_T_GEN_KERNEL,
    DF_CUDA_T_GEN_COPY,
    DF_CUDA_T_GEN_BYTES,
    DF_CUDA_T_GEN_LANDED,
    DF_CUDA_T_COUNT
};
void df_cuda_batch_times(df_cuda *cu, double out[DF_CUDA_T_COUNT]);

/* Runs kernel k on case c: copies the vectors in, enqueue, sync, finish.
 * Returns 0 when res is filled (res->status tells success or a CUDA error
 * with context), -1 when the context is unusable: a sticky error (illegal
 * address, launch failure) poisons the CUDA context for the rest of the
 * process, so df_cuda_open refuses from then on and the work must go on in
 * a new process (res still carries the error). */
int df_cuda_run(df_cuda *cu, const df_kernel *k, const df_case *c,
                df_result *res);

/* Runs k on cases[0..n) with one copy in and one synchronization:
 * through the kernel's batched launcher when it has one
 * (df_gpu_ops.enqueue_batch), else its enqueue for each case in turn on
 * the stream, each case in its own part of the batch's buffers (device
 * scratch and its pinned twin, result slot, soft-error slots), as when it
 * runs alone. One case, debug-invariant mode (kernels that check loop
 * invariants) and a broken context: df_cuda_run case after case.
 * meanwhile(ctx), when not NULL, runs once while the device runs the
 * batch (before the wait for it; its time counts in no part of the batch
 * profile), or first where the batch runs case after case. derive: NULL,
 * or each case's df_derive (case.h): a case whose a follows from a vector
 * the GPU generated has it made there, from that vector, by the unpack
 * kernel, instead of copied in. ticket: df_cuda_stage_batch's for these
 * cases (their plan and staging are then done), or 0. Returns 0, or -1
 * when the context became unusable (*done cases have results, the last
 * carrying the error). */
int df_cuda_run_batch(df_cuda *cu, const df_kernel *k, const df_case *const *cases,
                      const df_derive *derive, size_t n, df_result *res, size_t *done,
                      void (*meanwhile)(void *ctx), void *ctx, uint64_t ticket);
/* df_cuda_run_batch in two halves, so that several kernels' batches are
 * in flight at once (on lanes of their own: cuda_internal.h), the next
 * one planned, staged and issued while the device runs the earlier ones:
 * df_cuda_part_start issues k's cases and returns, and its return value
 * and *done go to *rc and *done when the part ends, at the latest in
 * df_cuda_parts_end, which ends every part in flight (res, done and rc
 * must stay until then). A part that cannot be issued ends at once. When
 * the context breaks with several parts in flight, none of their cases
 * carries the error: *done counts only what ran before, and *rc is -1. */
enum { DF_CUDA_PARTS_IN_FLIGHT = 4 };
void df_cuda_part_start(df_cuda *cu, const df_kernel *k, const df_case *const *cases,
                        const df_derive *derive, size_t n, df_result *res, size_t *done,
                        int *rc, uint64_t ticket);
void df_cuda_parts_end(df_cuda *cu);

/* Plans and stages k's cases[0..n) into the batch buffers now, for a
 * df_cuda_run_batch (or df_cuda_part_start) of the same k, cases, derive
 * and n with the ticket returned
 * (nonzero) and no other batch or staging in between, which then only
 * launches them (anything else, or ticket 0, plans them again). res is
 * that run's: the invalid cases' errors are written now and must stay. The
 * cases must not change until the run. Returns 0 where nothing was staged
 * (case after case, or an allocation failed: the run meets it). */
uint64_t df_cuda_stage_batch(df_cuda *cu, const df_kernel *k, const df_case *const *cases,
                             const df_derive *derive, size_t n, df_result *res);

/* The GPU's generator: fuzz/gen/values.h compiled for the device. Case j's
 * vectors, a then b, go at byte off of one device buffer, filled from its
 * value stream (df_generate_stream) by one thread, or a case past
 * DF_GEN_CHUNK elements by a thread a chunk (and a thread for its plan and
 * its finish), so with the bytes df_generate gives on the CPU. */
typedef struct df_devgen_case {
    df_pcg32 rng;
    uint32_t family, type;
    uint64_t n, off;
} df_devgen_case;
/* Generates the m cases (bytes in all) on the GPU and copies them into
 * out (host memory of bytes); *ms gets the generating kernel's time
 * (events). Returns 0, or -1 with the reason in err. */
int df_cuda_devgen(df_cuda *cu, const df_devgen_case *cs, size_t m, size_t bytes, void *out,
                   double *ms, char *err, size_t err_len);
/* The same for the harness, asynchronous and in one of DF_CUDA_GEN_SETS
 * sets of buffers (a batch each: the engine's sets of slots, backend.h's
 * DF_GEN_SETS): starts generating the m cases
 * on a stream of its own and copying them into pinned host memory, *out,
 * which stays the set's until its next start. Returns 0, or -1 with the
 * reason in err. df_cuda_gen_wait returns when set's copy has landed:
 * 0, or -1 when the device failed. df_cuda_gen_landed, without waiting:
 * 1 when it has (or failed: the wait says which), else 0. */
#define DF_CUDA_GEN_SETS 5
int df_cuda_gen_start(df_cuda *cu, int set, const df_devgen_case *cs, size_t m, size_t bytes,
                      void **out, char *err, size_t err_len);
int df_cuda_gen_wait(df_cuda *cu, int set);
int df_cuda_gen_landed(df_cuda *cu, int set);
/* A batch made on the CPU uploaded once in set's buffers
 * (df_backend_upload_reserve, df_backend_upload_start): pinned memory of
 * at least bytes, *cap its size, after the set's last generation or upload
 * is over; its first bytes copied on the set's stream into its device
 * buffer, which the batches' staging then reads (generated_on_device) and
 * waits for (the set's done event). NULL or -1 with the reason in err. */
void *df_cuda_upload_reserve(df_cuda *cu, int set, size_t bytes, size_t *cap, char *err,
                             size_t err_len);
int df_cuda_upload_start(df_cuda *cu, int set, size_t bytes, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif
