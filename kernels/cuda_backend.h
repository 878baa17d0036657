/* cuda_backend.h — the GPU half of the kernel interface, and the cuda
 * backend that drives it (kernels/cuda_backend.cu).
 *
 * Each kernel file's nvcc half defines one `const struct df_gpu_ops` with
 * C linkage; its descriptor points at it (DF_GPU_REF). The backend owns the
 * device and pinned buffers, reuses them across cases, copies the case in,
 * calls enqueue (asynchronous, on ctx->stream), synchronizes, then calls
 * finish to read the result. Every CUDA call is checked; a failure becomes
 * an execution error naming the kernel, the case and the call.
 */
#ifndef DOTFUZZ_CUDA_BACKEND_H
#define DOTFUZZ_CUDA_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "../fuzz/pcg32.h"
#include "kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per-case view of the backend's buffers handed to a kernel. */
typedef struct df_gpu_ctx {
    const void *a, *b;      /* device: the case's vectors, at their offsets */
    void *d_scratch;        /* device scratch, >= ops->scratch_bytes() */
    size_t d_scratch_bytes;
    void *h_scratch;        /* pinned host scratch (block partials), same size */
    void *d_result;         /* device: 16 bytes for the result */
    void *h_result;         /* pinned host: 16 bytes the result is copied to */
    void *stream;           /* cudaStream_t */
    void *cublas;           /* cublasHandle_t, created on first use by cublas kernels */
    int debug_invariants;   /* fold/tournament: check the loop invariant each round */
    df_soft_dev soft;       /* soft-error slots (kernels/soft_error.h); claim NULL = off */
    const char *failed_call; /* set by enqueue/finish on a CUDA error: the call */
    char detail[160];       /* optional extra context (e.g. broken invariant) */
} df_gpu_ctx;

/* One case of a batched launch (df_gpu_ops.enqueue_batch), in device
 * memory. The backend sorts a batch's cases by block size into groups;
 * inside a group, case j's CUDA blocks are first_block .. first_block +
 * grid - 1 of the group's launch, so a block finds its case by binary
 * search on first_block. */
typedef struct df_gpu_batch_case {
    const void *a, *b;      /* device: the case's vectors, at their offsets */
    uint64_t n;
    uint64_t scratch_off;   /* bytes into d_scratch: this case's scratch
                               (>= scratch_bytes(n, launch), 256-aligned) */
    uint32_t grid, block;   /* the case's own resolved launch */
    uint32_t first_block;   /* within its group's launch */
    uint32_t result;        /* the case's result slot: d_results + 16 * result */
    unsigned ticket;        /* 0 on arrival: a counter the kernel may use */
    uint32_t blocks;        /* blocks the launch runs for it: its first `blocks`
                               of grid (df_gpu_ops.batch_blocks; else grid) */
} df_gpu_batch_case;

/* Cases of one block size, one launch of `blocks` blocks of `block`
 * threads over d_cases[first .. first + count); the longest case's n and
 * the largest grid among them. */
typedef struct df_gpu_batch_group {
    size_t first, count;
    uint32_t block;
    uint32_t blocks;
    uint64_t max_n;
    uint32_t max_grid;
} df_gpu_batch_group;

/* What enqueue_batch gets: every buffer is in place on the device (or its
 * copy is enqueued before, on the same stream). */
typedef struct df_gpu_batch {
    df_gpu_batch_case *d_cases;
    const df_gpu_batch_group *groups; /* host */
    size_t ngroups;
    void *d_scratch;
    void *d_results;        /* device: 16 bytes per case */
    void *stream;           /* cudaStream_t */
    /* cudaStream_t: group g's launches may go, in their order, on
     * side[g % nside] (df_batch_stream), beside the other groups' (nside
     * 0: all on stream). They start after the batch's unpack, and the
     * stream waits for them once the launcher returns. */
    void *const *side;
    size_t nside;
    df_soft_dev soft;
    const char *failed_call;
    char detail[160];
} df_gpu_batch;

struct df_gpu_ops {
    /* Device scratch the kernel needs for (n, launch); NULL = none. */
    size_t (*scratch_bytes)(uint64_t n, const df_launch *launch);
    /* Enqueues all GPU work for the case on ctx->stream, including the copy
     * of the result into ctx->h_result (or partials into h_scratch).
     * Returns 0, a cudaError_t / cublasStatus_t value (ctx->failed_call
     * names the call; cuBLAS calls are named "cublas..."), or a negative
     * value for a failure found on the host that is no CUDA error (a broken
     * loop invariant), described in ctx->detail. May synchronize only in
     * debug-invariant mode. Without enqueue_batch, a batch calls it for
     * each case in turn, with no synchronization between them: it may
     * assume nothing of the stream's other work, and touches only the
     * ctx's own buffers. */
    int (*enqueue)(df_gpu_ctx *ctx, const df_case *c);
    /* After the stream is synchronized: turns what enqueue copied into
     * res (host sum of partials for tree-hostsum). Returns 0 or an error as
     * enqueue. */
    int (*finish)(df_gpu_ctx *ctx, const df_case *c, df_result *res);
    /* Optional (NULL = none): enqueues a whole batch (df_gpu_batch, below)
     * whose every case's result equals, bit for bit, what enqueue gives for
     * that case alone, its soft-error reports included: case j reports
     * into bt->soft's set j (df_soft_dev_at(bt->soft, j)). */
    int (*enqueue_batch)(struct df_gpu_batch *bt);
    /* Optional, with enqueue_batch: how many of the case's grid blocks,
     * the first ones, a batched launch runs, a group's cases one after
     * the other (first_block). The launcher must know, bit for bit, what
     * the others would have given (for shfl: a grid-stride block that
     * starts past n adds +0). NULL: the launcher numbers each case's
     * blocks from 0 (fold and tournament: blockIdx.y picks the case), and
     * every first_block is 0. */
    uint32_t (*batch_blocks)(uint64_t n, const df_launch *launch);
};

/* A batched launcher: every case of the batch, each case's result (what
 * enqueue would have put in h_result, bit for bit) written to its slot of
 * d_results, one launch per group. Asynchronous; returns 0 or an error as
 * enqueue (bt->failed_call names the call). The backend then copies all
 * results back at once and calls finish per case with h_result at the
 * case's slot. */
typedef int (*df_gpu_enqueue_batch)(df_gpu_batch *bt);
#ifdef DOTFUZZ_CUDA
/* The shfl family's (kernels/shfl_common.h). */
int df_shfl_enqueue_batch(df_gpu_batch *bt);
int df_shfl_f64acc_enqueue_batch(df_gpu_batch *bt);
int df_shfl_f64_enqueue_batch(df_gpu_batch *bt);
#endif

#ifdef DOTFUZZ_CUDA
#define DF_GPU_REF(sym) (&(sym))
#else
#define DF_GPU_REF(sym) NULL
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
 * cuda_backend.cu), the harness's generations on the GPU
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
/* Plans and stages k's cases[0..n) into the batch buffers now, for a
 * df_cuda_run_batch of the same k, cases, derive and n with the ticket returned
 * (nonzero) and no other batch or staging in between, which then only
 * launches them (anything else, or ticket 0, plans them again). res is
 * that run's: the invalid cases' errors are written now and must stay. The
 * cases must not change until the run. Returns 0 where nothing was staged
 * (case after case, or an allocation failed: the run meets it). */
uint64_t df_cuda_stage_batch(df_cuda *cu, const df_kernel *k, const df_case *const *cases,
                             const df_derive *derive, size_t n, df_result *res);

/* The GPU's generator: fuzz/values.h compiled for the device. Case j's
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

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
#include <cuda_runtime.h>

/* The device's address of pinned host memory h (cudaMallocHost's: under
 * unified addressing the device reads and writes it directly), or NULL
 * where it has none. */
static inline void *df_cuda_device_view(const void *h)
{
    cudaPointerAttributes pa;
    if (h && cudaPointerGetAttributes(&pa, h) == cudaSuccess && pa.type == cudaMemoryTypeHost)
        return pa.devicePointer;
    (void)cudaGetLastError(); /* a refused query is no launch's error */
    return NULL;
}
#endif
#endif
