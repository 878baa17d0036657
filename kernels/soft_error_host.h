/* soft_error_host.h — the host side of the soft-error slots
 * (kernels/soft_error.h; CUDA C, nvcc only): allocating them, clearing them
 * on a stream, polling them without a CUDA call, and copying what the
 * kernels reported into a df_result. Used by the cuda backend
 * (kernels/cuda_backend.cu) and by the cost measurement (tools/soft_cost.cu).
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

#include "kernel.h"

typedef struct df_soft_slots {
    int *d_claim;          /* device memory, DF_SOFT_CODES words */
    df_soft_pinned *host;  /* mapped pinned memory, host address */
    df_soft_pinned *alias; /* the same memory, device address */
    uint32_t stale;        /* slots REPORTED at the last final read */
} df_soft_slots;

/* Allocates the slots (all NONE: the first case's clear, or the one here,
 * runs before any kernel). Returns cudaSuccess, or the error with *call
 * naming the call; on failure nothing stays allocated. */
static inline cudaError_t df_soft_slots_open(df_soft_slots *s, const char **call)
{
    cudaError_t e;
    memset(s, 0, sizeof *s);
    if ((e = cudaMalloc((void **)&s->d_claim, DF_SOFT_CODES * sizeof(int))) != cudaSuccess)
        *call = "cudaMalloc(soft claim)";
    else if ((e = cudaHostAlloc((void **)&s->host, sizeof(df_soft_pinned),
                                cudaHostAllocMapped)) != cudaSuccess)
        *call = "cudaHostAlloc(soft slots, mapped)";
    else if ((e = cudaHostGetDevicePointer((void **)&s->alias, s->host, 0)) != cudaSuccess)
        *call = "cudaHostGetDevicePointer(soft slots)";
    else if ((e = cudaMemset(s->d_claim, 0, DF_SOFT_CODES * sizeof(int))) != cudaSuccess)
        *call = "cudaMemset(soft claim)";
    if (e == cudaSuccess) {
        memset(s->host, 0, sizeof *s->host); /* no kernel runs yet */
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

/* What a kernel carries (df_gpu_ctx.soft); all NULL when not open. */
static inline df_soft_dev df_soft_slots_dev(const df_soft_slots *s)
{
    df_soft_dev d = {NULL, NULL};
    if (s->d_claim) {
        d.claim = s->d_claim;
        d.pinned = s->alias;
    }
    return d;
}

/* Enqueues the clearing of every slot on stream, before the case's
 * kernels. Returns cudaSuccess or the error with *call set. */
static inline cudaError_t df_soft_slots_clear(const df_soft_slots *s, cudaStream_t stream,
                                              const char **call)
{
    cudaError_t e = cudaMemsetAsync(s->d_claim, 0, DF_SOFT_CODES * sizeof(int), stream);
    if (e != cudaSuccess) {
        *call = "cudaMemsetAsync(soft claim)";
        return e;
    }
    e = cudaMemsetAsync(s->alias, 0, sizeof(df_soft_pinned), stream);
    if (e != cudaSuccess)
        *call = "cudaMemsetAsync(soft slots)";
    return e;
}

/* The slots whose status reads REPORTED now (bit code-1): plain volatile
 * loads of pinned memory, no CUDA call, no synchronization. */
static inline uint32_t df_soft_slots_poll(const df_soft_slots *s)
{
    uint32_t mask = 0;
    if (!s->host)
        return 0;
    for (unsigned k = 0; k < DF_SOFT_CODES; k++)
        if (((volatile const int *)s->host->status)[k] == DF_SOFT_REPORTED)
            mask |= 1u << k;
    /* the payload reads below must not move above the status loads; the
     * kernel's __threadfence_system orders its side */
    std::atomic_thread_fence(std::memory_order_acquire);
    return mask;
}

/* Copies each reported payload not yet in res into res->soft[code-1] and
 * sets its bit in res->soft_mask; returns the bits it added. stale_ok = 0
 * before the stream is synchronized (slots in s->stale are skipped, see the
 * top of this file), 1 after it: then the reported set becomes s->stale. */
static inline uint32_t df_soft_slots_read(df_soft_slots *s, df_result *res, int stale_ok)
{
    uint32_t mask = df_soft_slots_poll(s), added = 0;
    if (!stale_ok)
        mask &= ~s->stale;
    else
        s->stale = mask;
    for (unsigned k = 0; k < DF_SOFT_CODES; k++) {
        uint32_t bit = 1u << k;
        if (!(mask & bit) || (res->soft_mask & bit))
            continue;
        memcpy(&res->soft[k], (const void *)&s->host->payload[k], sizeof res->soft[k]);
        res->soft_mask |= bit;
        added |= bit;
    }
    return added;
}
#endif /* __CUDACC__ */

#endif
