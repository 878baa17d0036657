/* cuda_perturb.cu — a perturbed schedule around one case's launch (case.h's
 * df_schedule; API in cuda_internal.h). What it does, by flag:
 *
 *   NOISE     a noise kernel on a stream of its own, launched before the
 *             case and waited for until every block has started: two blocks
 *             of 1,024 threads an SM, each with half the SM's shared memory,
 *             fill the SM (its threads and registers); the blocks on a share
 *             of the SMs (drawn from the seed by SM id) stay for a time each
 *             (drawn by block, up to noise_us), the others leave at once. The
 *             case's blocks then start on the free SMs first and on the
 *             others as the noise leaves them, in an order the GPU's own
 *             schedule never gives.
 *   MEMORY    the noise streams through a buffer four times the L2 instead
 *             of spinning: the case's loads and stores queue behind it.
 *   FLUSH_L2  the same buffer written before the launch: the case starts
 *             with a cold L2.
 *   CONTEND   the noise hammers the case's own result and scratch instead
 *             of spinning: atomicOr(word, 0), which changes no bit (an
 *             atomic read-modify-write is one step at the L2, so the case's
 *             own store lands before or after it, never lost), on the
 *             words of a share of their 128-byte lines drawn from the seed
 *             (about half, and one at least), every busy noise thread
 *             walking the hot lines from one of its own.
 *             A store to a hot line queues behind the atomics while an
 *             atomic to a cold one does not: what a missing
 *             __threadfence() between a store and the atomic that
 *             publishes it lets another block see. Takes the place of
 *             MEMORY and spinning.
 *   POISON    the result word and the scratch hold 0xff bytes (NaN) at
 *             launch, and the noise fills its registers and shared memory
 *             with them before it spins: a kernel that reads what it did
 *             not write reads NaN rather than a plausible leftover.
 *   REGRID    needs nothing here: the case's launch carries the grid.
 *
 * Like every .cu file it is compiled twice (see Makefile); the cc half is
 * empty. */
#ifndef __CUDACC__
/* The nvcc half below is the perturbation; ISO C wants a declaration here. */
typedef int df_cuda_perturb_is_built_by_nvcc;
#else
#include <stdio.h>
#include <string.h>

#include "fuzz/backend/cuda_internal.h"

enum {
    NOISE_THREADS = 1024,
    NOISE_BLOCKS_PER_SM = 2,
    NOISE_POISON = 0xffffffffu,     /* NaN as a float, all ones as an integer */
    START_WAIT_US = 100000          /* the longest wait for the noise to start */
};

static __device__ __forceinline__ unsigned mix32(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static __device__ __forceinline__ unsigned long long global_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Registers the noise holds poison in while it runs; kept live through
 * the loop and at its end, so the compiler allocates them. */
#define NOISE_REGS 24

/* The case's own memory, for CONTEND: its result word
 * (DF_CUDA_RESULT_BYTES), then its scratch. Its lines are the 128-byte
 * lines of the address space the two spans cover, numbered in that order. */
typedef struct noise_target {
    unsigned long long base[2], bytes[2];
} noise_target;

/* The lines span k touches (0 when empty). */
static __device__ __forceinline__ unsigned long long span_lines(const noise_target &t, int k)
{
    return t.bytes[k] ? ((t.base[k] + t.bytes[k] - 1) >> 7) - (t.base[k] >> 7) + 1 : 0;
}

/* Whether line `line` (of `lines`) is hot: about half of them by a hash
 * of (seed, line), and the one the seed picks, so that one at least is. */
static __device__ __forceinline__ bool hot_line(unsigned seed, unsigned long long line,
                                                unsigned long long lines)
{
    unsigned h = mix32(seed ^ (unsigned)line * 0x9e3779b9u ^ (unsigned)(line >> 32));
    return (h & 1u) || line == seed % lines;
}

/* atomicOr(word, 0), which changes no bit, on word `slot` (modulo the
 * line's words) of line `line`: only whole aligned words inside the span,
 * whatever the span's alignment. */
static __device__ __forceinline__ void contend_word(const noise_target &t,
                                                    unsigned long long line, unsigned slot)
{
    unsigned long long first = span_lines(t, 0), base = t.base[0], end = base + t.bytes[0];
    if (line >= first) { /* selected, not indexed: the spans stay in registers */
        line -= first;
        base = t.base[1];
        end = base + t.bytes[1];
    }
    unsigned long long lo = ((base >> 7) + line) << 7, hi = lo + 128;
    lo = lo > base ? lo : base;
    hi = hi < end ? hi : end;
    lo = (lo + 3) & ~3ull;
    hi &= ~3ull;
    if (lo < hi)
        atomicOr((unsigned *)(lo + 4 * (slot % ((hi - lo) / 4))), 0u);
}

/* Eight atomics of this thread, each on the next hot line from *line: every
 * busy thread takes part, whatever the spans' size, so the atomics come
 * from every busy SM and spread over the hot lines. */
static __device__ __forceinline__ void contend_pass(const noise_target &t, unsigned seed,
                                                    unsigned long long lines,
                                                    unsigned long long *line, unsigned slot)
{
    for (int k = 0; k < 8; k++) {
        for (unsigned long long j = 0; j < lines && !hot_line(seed, *line, lines); j++)
            *line = *line + 1 < lines ? *line + 1 : 0;
        contend_word(t, *line, slot);
        *line = *line + 1 < lines ? *line + 1 : 0;
    }
}

__global__ void __launch_bounds__(NOISE_THREADS, NOISE_BLOCKS_PER_SM)
noise_kernel(unsigned seed, unsigned share, unsigned long long max_ns, unsigned flags,
             volatile unsigned *started, float4 *mem, unsigned long long mem_n,
             unsigned smem_words, noise_target target)
{
    extern __shared__ unsigned noise_smem[];
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    if (threadIdx.x == 0) {
        started[blockIdx.x] = 1;
        __threadfence_system();
    }
    if ((mix32(seed ^ (smid * 0x9e3779b9u)) & 255u) >= share)
        return; /* a quiet SM */
    unsigned fill = (flags & DF_SCHED_POISON) ? NOISE_POISON : 0u;
    for (unsigned i = threadIdx.x; i < smem_words; i += blockDim.x)
        noise_smem[i] = fill;
    unsigned r[NOISE_REGS];
#pragma unroll
    for (int k = 0; k < NOISE_REGS; k++)
        asm volatile("mov.b32 %0, %1;" : "=r"(r[k]) : "r"(fill));
    /* this block's time: (1 + 24 bits of a hash) / 2^24 of the longest */
    unsigned long long ns = max_ns * ((mix32(seed + blockIdx.x * 0x85ebca6bu) >> 8) + 1) >> 24;
    unsigned long long t0 = global_ns();
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    /* CONTEND: this thread starts on its own line, at its own word of it */
    unsigned long long lines = span_lines(target, 0) + span_lines(target, 1);
    unsigned long long line = lines ? i % lines : 0;
    unsigned slot = lines ? (unsigned)(i / lines) : 0;
    while (global_ns() - t0 < ns) {
        if ((flags & DF_SCHED_CONTEND) && lines) {
            contend_pass(target, seed, lines, &line, slot);
        } else if ((flags & DF_SCHED_MEMORY) && mem_n) {
            for (int k = 0; k < 8; k++, i += stride) {
                if (i >= mem_n)
                    i -= mem_n;
                float4 v = mem[i];
                v.x += 1.0f;
                mem[i] = v;
            }
        } else {
#pragma unroll
            for (int k = 0; k < NOISE_REGS; k++)
                asm volatile("xor.b32 %0, %0, 0;" : "+r"(r[k]));
        }
    }
#pragma unroll
    for (int k = 0; k < NOISE_REGS; k++)
        asm volatile("" ::"r"(r[k]));
}

/* Makes the noise's stream, buffer and start words, and reads the
 * device's shape. Returns the failed call or NULL. */
static const char *perturb_open(df_cuda *cu, cudaError_t *e)
{
    df_cuda_perturb *p = &cu->perturb;
    if (p->ready)
        return NULL;
    cudaDeviceProp prop;
    if ((*e = cudaGetDeviceProperties(&prop, cu->device)) != cudaSuccess)
        return "cudaGetDeviceProperties";
    p->sms = prop.multiProcessorCount;
    p->l2_bytes = (size_t)prop.l2CacheSize;
    size_t half = prop.sharedMemPerMultiprocessor / NOISE_BLOCKS_PER_SM;
    size_t smem = half > 2048 ? half - 2048 : 0; /* the block's own reserve */
    if (smem > prop.sharedMemPerBlockOptin)
        smem = prop.sharedMemPerBlockOptin;
    p->smem = smem / 16 * 16;
    if ((*e = cudaFuncSetAttribute(noise_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int)p->smem)) != cudaSuccess)
        return "cudaFuncSetAttribute(noise_kernel)";
    if ((*e = cudaStreamCreateWithFlags(&p->stream, cudaStreamNonBlocking)) != cudaSuccess)
        return "cudaStreamCreateWithFlags(noise)";
    p->mem_bytes = 4 * p->l2_bytes > ((size_t)64 << 20) ? 4 * p->l2_bytes : (size_t)64 << 20;
    if ((*e = cudaMalloc(&p->d_mem, p->mem_bytes)) != cudaSuccess)
        return "cudaMalloc(noise buffer)";
    size_t words = (size_t)NOISE_BLOCKS_PER_SM * p->sms * sizeof(unsigned);
    if ((*e = cudaHostAlloc((void **)&p->h_started, words, cudaHostAllocMapped)) != cudaSuccess)
        return "cudaHostAlloc(noise start words)";
    if ((*e = cudaHostGetDevicePointer((void **)&p->d_started, p->h_started, 0)) != cudaSuccess)
        return "cudaHostGetDevicePointer(noise start words)";
    p->ready = 1;
    return NULL;
}

/* Waits until the noise's blocks have all set their start word, or
 * START_WAIT_US have passed (the case then runs beside what started). */
static void wait_for_noise(const df_cuda_perturb *p, unsigned blocks)
{
    double until = df_now() + START_WAIT_US * 1e-6;
    volatile const unsigned *w = p->h_started;
    for (;;) {
        unsigned in = 0;
        for (unsigned b = 0; b < blocks; b++)
            in += w[b] != 0;
        if (in == blocks || df_now() > until)
            return;
    }
}

const char *df_cuda_perturb_before(df_cuda *cu, const df_case *rc, void *d_result,
                                   void *d_scratch, size_t scratch_bytes, size_t used_bytes,
                                   cudaError_t *e)
{
    const df_schedule *s = &rc->sched;
    df_cuda_perturb *p = &cu->perturb;
    if (p->unavailable)
        return NULL;
    const char *call = perturb_open(cu, e);
    if (call) {
        /* the harness's own resources, not the kernel's doing: the reruns
         * go on unperturbed rather than blame the kernel */
        fprintf(stderr,
                "dotfuzz: perturbed schedules unavailable (%s: %s); schedule reruns run "
                "unperturbed\n",
                call, cudaGetErrorString(*e));
        (void)cudaGetLastError();
        p->unavailable = 1;
        *e = cudaSuccess;
        return NULL;
    }
    if ((s->flags & DF_SCHED_FLUSH_L2) &&
        (*e = cudaMemsetAsync(p->d_mem, (int)(s->seed & 0xff), 2 * p->l2_bytes, cu->stream)) !=
            cudaSuccess)
        return "cudaMemsetAsync(L2 flush)";
    if (s->flags & DF_SCHED_POISON) {
        if ((*e = cudaMemsetAsync(d_result, 0xff, DF_CUDA_RESULT_BYTES, cu->stream)) !=
            cudaSuccess)
            return "cudaMemsetAsync(poison result)";
        if (scratch_bytes &&
            (*e = cudaMemsetAsync(d_scratch, 0xff, scratch_bytes, cu->stream)) != cudaSuccess)
            return "cudaMemsetAsync(poison scratch)";
    }
    if ((*e = cudaStreamSynchronize(cu->stream)) != cudaSuccess)
        return "cudaStreamSynchronize(before noise)";
    if (!(s->flags & DF_SCHED_NOISE))
        return NULL;
    unsigned blocks = (unsigned)(NOISE_BLOCKS_PER_SM * p->sms);
    memset(p->h_started, 0, blocks * sizeof(unsigned));
    noise_target target = {{(unsigned long long)d_result, (unsigned long long)d_scratch},
                           {DF_CUDA_RESULT_BYTES,
                            d_scratch ? (used_bytes < scratch_bytes ? used_bytes : scratch_bytes)
                                      : 0}};
    noise_kernel<<<blocks, NOISE_THREADS, p->smem, p->stream>>>(
        s->seed, s->sm_share, (unsigned long long)s->noise_us * 1000ull, s->flags,
        p->d_started, (float4 *)p->d_mem, p->mem_bytes / sizeof(float4),
        (unsigned)(p->smem / sizeof(unsigned)), target);
    if ((*e = cudaGetLastError()) != cudaSuccess)
        return "noise_kernel<<<>>>";
    wait_for_noise(p, blocks);
    return NULL;
}

cudaError_t df_cuda_perturb_after(df_cuda *cu)
{
    return cu->perturb.ready ? cudaStreamSynchronize(cu->perturb.stream) : cudaSuccess;
}

void df_cuda_perturb_close(df_cuda *cu)
{
    df_cuda_perturb *p = &cu->perturb; /* what perturb_open made, all or part */
    if (p->stream) {
        (void)cudaStreamSynchronize(p->stream);
        (void)cudaStreamDestroy(p->stream);
    }
    if (p->d_mem)
        (void)cudaFree(p->d_mem);
    if (p->h_started)
        (void)cudaFreeHost(p->h_started);
    memset(p, 0, sizeof *p);
}

#endif
