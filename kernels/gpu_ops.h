/* gpu_ops.h — the GPU half of the kernel interface: what each kernel
 * file's nvcc half defines (one `const struct df_gpu_ops` with C linkage,
 * which its descriptor points at: DF_GPU_REF) and what the cuda backend
 * (fuzz/backend/cuda_backend.cu) hands it. The backend owns the device and
 * pinned buffers, reuses them across cases, copies the case in, calls
 * enqueue (asynchronous, on ctx->stream), synchronizes, then calls finish
 * to read the result.
 */
#ifndef DOTFUZZ_GPU_OPS_H
#define DOTFUZZ_GPU_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a case's result lies on the device once its launches end: a
 * batched run's enqueue records it (df_gpu_fetch_later) in place of
 * copying it, and the backend copies every case's result in one launch
 * after the batch (src NULL: the case copied its own). */
typedef struct df_gpu_fetch {
    const void *src; /* device */
    uint32_t bytes;  /* at most 16 */
    uint32_t unused;
} df_gpu_fetch;

/* Per-case view of the backend's buffers handed to a kernel. */
typedef struct df_gpu_ctx {
    const void *a, *b;      /* device: the case's vectors, at their offsets */
    void *d_scratch;        /* device scratch, >= ops->scratch_bytes() */
    size_t d_scratch_bytes;
    void *h_scratch;        /* pinned host scratch (block partials), same size;
                               NULL after a batched launch (finish) */
    void *d_result;         /* device: 16 bytes for the result */
    void *h_result;         /* pinned host: 16 bytes the result is copied to */
    df_gpu_fetch *fetch;    /* a batched run's: the result's place is recorded
                               here (df_gpu_fetch_later) and the backend copies
                               it to h_result; NULL: enqueue copies it */
    void *stream;           /* cudaStream_t */
    void *cublas;           /* cublasHandle_t, created on first use by cublas kernels */
    int debug_invariants;   /* fold/tournament: check the loop invariant each round */
    df_soft_dev soft;       /* soft-error slots (kernels/soft_error.h); claim NULL = off */
    const char *failed_call; /* set by enqueue/finish on a CUDA error: the call */
    char detail[160];       /* optional extra context (e.g. broken invariant) */
} df_gpu_ctx;

/* Where ctx->fetch is set, records bytes (at most 16) at device address
 * src as the case's result, for the backend's one copy after the batch,
 * and returns 1; else 0: the caller copies it to h_result itself. */
static inline int df_gpu_fetch_later(df_gpu_ctx *ctx, const void *src, size_t bytes)
{
    if (!ctx->fetch || bytes > 16)
        return 0;
    ctx->fetch->src = src;
    ctx->fetch->bytes = (uint32_t)bytes;
    return 1;
}

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
    /* The BLAS call (kernels/blas.h) for a DF_K_BLAS kernel: a and b are
     * then its buffers, each its footprint between guards; n_arg <= 0
     * gives n = 0. Every other kernel's case reads 1, 1, n. */
    int32_t inc_a, inc_b;
    int64_t n_arg;
} df_gpu_batch_case;

/* Cases of one block size, one launch of `blocks` blocks of `block`
 * threads over d_cases[first .. first + count); the longest case's n and
 * the largest grid among them. A kernel that takes several block sizes in
 * a group (DF_K_BATCH_ANY_BLOCK) gets the cases whose block is at most
 * `lanes` (a power of two) and over half of it; each CTA of `block`
 * threads holds block / lanes of a case's blocks, lanes threads each:
 * block is lanes, or DF_BATCH_PACK_THREADS where lanes is less. */
enum { DF_BATCH_PACK_THREADS = 256 };

#ifdef __CUDACC__
#define DF_BATCH_HD __host__ __device__
#else
#define DF_BATCH_HD
#endif

/* A group's lanes for a case of block b of a kernel with these flags: b,
 * or with DF_K_BATCH_ANY_BLOCK the power of two at or above b (up to
 * 1024, the largest block a launch takes); and its CTA: the lanes, or with
 * DF_K_BATCH_ANY_BLOCK at least DF_BATCH_PACK_THREADS. */
static inline uint32_t df_batch_group_lanes(uint32_t flags, uint32_t b)
{
    if (!(flags & DF_K_BATCH_ANY_BLOCK) || b > 1024)
        return b;
    uint32_t p = 1;
    while (p < b)
        p <<= 1;
    return p;
}

static inline uint32_t df_batch_group_cta(uint32_t flags, uint32_t b)
{
    const uint32_t lanes = df_batch_group_lanes(flags, b), pack = DF_BATCH_PACK_THREADS;
    return (flags & DF_K_BATCH_ANY_BLOCK) && lanes < pack ? pack : lanes;
}

/* Thread tid of CTA cta (counted from the case's first) of a group whose
 * CTAs of cta_threads threads hold cta_threads / lanes of a case's blocks,
 * lanes threads each: block *blk, thread *thr of the case's own launch (a
 * thread whose *thr is past the case's block idles). The batched launch
 * places its threads so, and the backend renumbers a soft report so. */
static inline DF_BATCH_HD void df_batch_case_place(uint32_t cta, uint32_t tid,
                                                   uint32_t cta_threads, uint32_t lanes,
                                                   unsigned long long *blk, uint32_t *thr)
{
    *blk = (unsigned long long)cta * (cta_threads / lanes) + tid / lanes;
    *thr = tid % lanes;
}

typedef struct df_gpu_batch_group {
    size_t first, count;
    uint32_t block;
    uint32_t blocks;
    uint64_t max_n;
    uint32_t max_grid;
    uint32_t min_block; /* the smallest case block (block, but with DF_K_BATCH_ANY_BLOCK) */
    uint32_t lanes;     /* the threads a CTA gives a case block: block, but with
                           DF_K_BATCH_ANY_BLOCK */
} df_gpu_batch_group;

/* What enqueue_batch gets: every buffer is in place on the device (or its
 * copy is enqueued before, on the same stream). */
typedef struct df_gpu_batch {
    df_gpu_batch_case *d_cases;
    const df_gpu_batch_group *groups; /* host */
    size_t ngroups;
    void *d_scratch;
    void *d_results;        /* device: 16 bytes per case, zero on arrival */
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
     * of the result into ctx->h_result (or partials into h_scratch), or
     * the record of where it lies (df_gpu_fetch_later, in a batch).
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
     * enqueue. After a batched launch (enqueue_batch) h_scratch is NULL and
     * the case's result is all in h_result: tree-hostsum's batched
     * launcher sums its partials on the GPU, and its finish reads the sum
     * there. */
    int (*finish)(df_gpu_ctx *ctx, const df_case *c, df_result *res);
    /* Optional (NULL = none): enqueues a whole batch (df_gpu_batch, below)
     * whose every case's result equals, bit for bit, what enqueue and
     * finish give for that case alone (for a kernel whose result varies
     * run to run, one they could give), its soft-error reports included:
     * case j reports into bt->soft's set j (df_soft_dev_at(bt->soft, j)). */
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
 * enqueue would have put in h_result, bit for bit, or for tree-hostsum
 * the sum its finish makes of the partials) written to its slot of
 * d_results, one launch per group. Asynchronous; returns 0 or an error as
 * enqueue (bt->failed_call names the call). The backend then copies all
 * results back at once and calls finish per case with h_result at the
 * case's slot (and h_scratch NULL). */
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
