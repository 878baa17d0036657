/* soft_error_host.h — the host side of the soft-error slots
 * (kernels/soft_error.h; CUDA C, nvcc only): allocating them, clearing them
 * on a stream, polling them without a CUDA call, and copying what the
 * kernels reported into a df_result. Used by the cuda backend
 * (fuzz/backend/cuda_backend.cu) and by the cost measurement (tools/soft_cost.cu).
 *
 * Memory: the claim words (what atomicCAS fights over) live in device
 * memory, so the claim never crosses the bus; the published status words
 * and the payloads live in one block of mapped pinned host memory
 * (cudaHostAllocMapped), which the kernels write through its device alias
 * and the host reads in place.
 *
 * Lifecycle of a case: df_soft_slots_clear (cudaMemsetAsync of the claim
 * words and, through the device alias, of the status words and payloads:
 * ordered with the kernels, no host write), the kernels, any number of
 * df_soft_slots_poll / df_soft_slots_read while they run, and a last
 * df_soft_slots_read after the stream is synchronized.
 *
 * A batched launch gives each case its own set of slots (df_soft_slots_open
 * with count > 1, df_soft_slots_dev_at), so each case keeps its own first
 * report of each kind, as when it runs alone; those sets are read once,
 * after the synchronization (df_soft_slots_read_at).
 *
 * A status word the previous case left REPORTED stays so until this case's
 * clear has run on the GPU, and the host cannot tell when that is without
 * a CUDA call. So a read before the synchronization (stale_ok = 0) skips
 * the slots that were REPORTED at the previous case's final read (the
 * `stale` mask); the read after the synchronization sees every slot.
 */
#ifndef DOTFUZZ_SOFT_ERROR_HOST_H
#define DOTFUZZ_SOFT_ERROR_HOST_H

#ifdef __CUDACC__
#include <atomic>
#include <cuda_runtime.h>
#include <string.h>

#include "kernels/kernel.h"

typedef struct df_soft_slots {
    int *d_claim;          /* device memory, DF_SOFT_CODES words per set */
    df_soft_pinned *host;  /* mapped pinned memory, host address: count sets */
    df_soft_pinned *alias; /* the same memory, device address */
    size_t count;          /* sets of slots */
    uint32_t stale;        /* set 0's slots REPORTED at the last final read */
} df_soft_slots;

/* Allocates count sets of slots (all NONE: the first case's clear, or the
 * one here, runs before any kernel). Returns cudaSuccess, or the error with
 * *call naming the call; on failure nothing stays allocated. */
static inline cudaError_t df_soft_slots_open(df_soft_slots *s, size_t count, const char **call)
{
    cudaError_t e;
    memset(s, 0, sizeof *s);
    const size_t claim = count * DF_SOFT_CODES * sizeof(int);
    if ((e = cudaMalloc((void **)&s->d_claim, claim)) != cudaSuccess)
        *call = "cudaMalloc(soft claim)";
    else if ((e = cudaHostAlloc((void **)&s->host, count * sizeof(df_soft_pinned),
                                cudaHostAllocMapped)) != cudaSuccess)
        *call = "cudaHostAlloc(soft slots, mapped)";
    else if ((e = cudaHostGetDevicePointer((void **)&s->alias, s->host, 0)) != cudaSuccess)
        *call = "cudaHostGetDevicePointer(soft slots)";
    else if ((e = cudaMemset(s->d_claim, 0, claim)) != cudaSuccess)
        *call = "cudaMemset(soft claim)";
    if (e == cudaSuccess) {
        memset(s->host, 0, count * sizeof *s->host); /* no kernel runs yet */
        s->count = count;
        return cudaSuccess;
    }
    if (s->host)
        (void)cudaFreeHost(s->host);
    if (s->d_claim)
        (void)cudaFree(s->d_claim);
    memset(s, 0, sizeof *s);
    return e;
}

static inline void df_soft_slots_close(df_soft_slots *s)
{
    if (s->d_claim)
        (void)cudaFree(s->d_claim);
    if (s->host)
        (void)cudaFreeHost(s->host);
    memset(s, 0, sizeof *s);
}

/* What a kernel carries (df_gpu_ctx.soft) to report into set i; all NULL
 * when not open. A batched launch gets set 0's and finds case j's with
 * df_soft_dev_at (soft_error.h). */
static inline df_soft_dev df_soft_slots_dev_at(const df_soft_slots *s, size_t i)
{
    df_soft_dev d = {s->d_claim, s->d_claim ? s->alias : NULL};
    return df_soft_dev_at(d, i);
}

static inline df_soft_dev df_soft_slots_dev(const df_soft_slots *s)
{
    return df_soft_slots_dev_at(s, 0);
}

/* Enqueues the clearing of the first n sets on stream, before the kernels
 * that report into them. Returns cudaSuccess or the error with *call set. */
static inline cudaError_t df_soft_slots_clear_n(const df_soft_slots *s, size_t n,
                                                cudaStream_t stream, const char **call)
{
    cudaError_t e = cudaMemsetAsync(s->d_claim, 0, n * DF_SOFT_CODES * sizeof(int), stream);
    if (e != cudaSuccess) {
        *call = "cudaMemsetAsync(soft claim)";
        return e;
    }
    e = cudaMemsetAsync(s->alias, 0, n * sizeof(df_soft_pinned), stream);
    if (e != cudaSuccess)
        *call = "cudaMemsetAsync(soft slots)";
    return e;
}

static inline cudaError_t df_soft_slots_clear(const df_soft_slots *s, cudaStream_t stream,
                                              const char **call)
{
    return df_soft_slots_clear_n(s, 1, stream, call);
}

/* Set i's slots whose status reads REPORTED now (bit code-1): plain
 * volatile loads of pinned memory, no CUDA call, no synchronization. */
static inline uint32_t df_soft_slots_poll_at(const df_soft_slots *s, size_t i)
{
    uint32_t mask = 0;
    if (!s->host)
        return 0;
    for (unsigned k = 0; k < DF_SOFT_CODES; k++)
        if (((volatile const int *)s->host[i].status)[k] == DF_SOFT_REPORTED)
            mask |= 1u << k;
    /* the payload reads below must not move above the status loads; the
     * kernel's __threadfence_system orders its side */
    std::atomic_thread_fence(std::memory_order_acquire);
    return mask;
}

/* Copies the payloads of mask's kinds in set i not yet in res into
 * res->soft[code-1], setting their bits in res->soft_mask; returns the
 * bits it added. */
static inline uint32_t df_soft_slots_copy(const df_soft_slots *s, size_t i, uint32_t mask,
                                          df_result *res)
{
    uint32_t added = 0;
    for (unsigned k = 0; k < DF_SOFT_CODES; k++) {
        uint32_t bit = 1u << k;
        if (!(mask & bit) || (res->soft_mask & bit))
            continue;
        memcpy(&res->soft[k], (const void *)&s->host[i].payload[k], sizeof res->soft[k]);
        res->soft_mask |= bit;
        added |= bit;
    }
    return added;
}

/* Set 0, one case at a time: stale_ok = 0 before the stream is
 * synchronized (slots in s->stale are skipped, see the top of this file),
 * 1 after it: then the reported set becomes s->stale. */
static inline uint32_t df_soft_slots_read(df_soft_slots *s, df_result *res, int stale_ok)
{
    uint32_t mask = df_soft_slots_poll_at(s, 0);
    if (!stale_ok)
        mask &= ~s->stale;
    else
        s->stale = mask;
    return df_soft_slots_copy(s, 0, mask, res);
}

/* Set i of a batch, after the stream is synchronized. */
static inline uint32_t df_soft_slots_read_at(const df_soft_slots *s, size_t i, df_result *res)
{
    return df_soft_slots_copy(s, i, df_soft_slots_poll_at(s, i), res);
}
#endif /* __CUDACC__ */

#endif
