/* fuzz/backend/cuda_devgen.cu — the GPU's generator for the cuda backend
 * (API in cuda_backend.h): fuzz/gen/values.h compiled for the device, so a
 * case's vectors get the bytes df_generate gives on the CPU. A case up to
 * DF_GEN_CHUNK elements is made by a warp (the families with a lane form,
 * fuzz/gen/values_lanes.h) or one thread (the others); a longer one in chunks, as
 * values.h makes it: a thread for its plan, a thread a chunk, a thread for
 * its finish. df_cuda_devgen is one synchronous call with buffers of its
 * own; df_cuda_gen_start, df_cuda_gen_wait and df_cuda_gen_landed are the
 * harness's, asynchronous, in DF_CUDA_GEN_SETS sets of buffers with a
 * stream each, whose device copies a batch then reads in place
 * (cuda_stage.cu), timed for the batch profile when DOTFUZZ_GEN_TIMING
 * is set (df_cuda_gen_count). The same sets carry a batch made on the CPU
 * the other way (df_cuda_upload_reserve, df_cuda_upload_start): its
 * vectors copied to the device once, where the batch's kernels read them
 * as they read generated ones.
 *
 * Like every .cu file it is compiled twice (see Makefile); the cc half is
 * empty. */
#ifndef __CUDACC__
/* The nvcc half below is the generator; ISO C wants a declaration here. */
typedef int df_cuda_devgen_is_built_by_nvcc;
#else
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/gen/values.h"
#include "fuzz/backend/cuda_internal.h"

/* Whether case c is made by a warp (devgen_lanes_kernel). */
__device__ static bool devgen_by_lanes(const df_devgen_case &c)
{
    return c.n <= DF_GEN_CHUNK && df_lanes_take(c.family, (df_type)c.type);
}

/* Cases up to DF_GEN_CHUNK elements of a family without a lane form (none
 * of today's: fuzz/gen/values_lanes.h): one thread each. */
__global__ void devgen_kernel(const df_devgen_case *cs, size_t m, unsigned char *buf)
{
    size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m || cs[j].n > DF_GEN_CHUNK || devgen_by_lanes(cs[j]))
        return;
    const df_devgen_case c = cs[j];
    df_pcg32 r = c.rng;
    size_t na = (size_t)c.n * df_val_size((df_type)c.type);
    (void)df_fill_values(c.family, &r, (df_type)c.type, buf + c.off, buf + c.off + na, c.n);
}

/* Cases up to DF_GEN_CHUNK elements of the lane-made families: a warp
 * each (fuzz/gen/values_lanes.h; df_lanes_fill is the same rounds on one
 * thread). Each round's state is the warp's; the lanes past a cut made
 * items the next round makes again, so the warp syncs before it. cond's
 * exact sum is the warp's, in shared memory; a closing shuffle's stream
 * (cond, cancel, lp-cancel) goes in shuf[j] (inc 0 where none follows),
 * for devgen_shuffle_kernel. */
enum { DEVGEN_LANES_BLOCK = 128 };

/* Pass q of a case of type t by the warp, from *r (the warp's, left at
 * the pass's end). */
__device__ static void devgen_lanes_pass(const df_lanes_pass *q, df_type t, df_pcg32 *r,
                                         unsigned lane)
{
    df_pcg32_jump at = df_pcg32_jump_of(r->inc, (uint64_t)lane * q->draws);
    df_pcg32_jump next = df_pcg32_jump_of(r->inc, (uint64_t)(lane + 1) * q->draws);
    for (uint64_t k0 = 0; k0 < q->m;) {
        uint64_t end;
        int other = df_lanes_round(q, t, r->state, r->inc, at, next, k0, lane, &end);
        unsigned cut = __ballot_sync(0xffffffffu, other); /* lanes past m: never */
        uint64_t left = q->m - k0;
        unsigned last = cut ? (unsigned)__ffs(cut) - 1 : (left < 32 ? (unsigned)left : 32) - 1;
        r->state = __shfl_sync(0xffffffffu, end, last);
        if (cut)
            __syncwarp();
        k0 += last + 1;
    }
}

/* cond's G (df_lanes_cond_tail's sum) by the warp: each lane loads one
 * term of every 32 and every lane adds all of them, shuffled to it, in
 * index order, so the sum's bits are one thread's; on one lane the loads,
 * one after another, would set the case's time. */
__device__ static double devgen_cond_g(const df_lanes_plan *p, unsigned lane)
{
    double G = 0;
    for (uint64_t k0 = 0; k0 < p->bulk; k0 += 32) {
        double v = k0 + lane < p->bulk ? df_lanes_cond_term(p, k0 + lane) : 0;
        unsigned w = p->bulk - k0 < 32 ? (unsigned)(p->bulk - k0) : 32;
        for (unsigned i = 0; i < w; i++)
            G += __shfl_sync(0xffffffffu, v, i);
    }
    return G;
}

__global__ void __launch_bounds__(DEVGEN_LANES_BLOCK)
    devgen_lanes_kernel(const df_devgen_case *cs, size_t m, unsigned char *buf, df_pcg32 *shuf)
{
    __shared__ df_cond_acc accs[DEVGEN_LANES_BLOCK / 32]; /* a warp's cond sum */
    size_t j = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    unsigned lane = threadIdx.x % 32;
    if (j >= m || !devgen_by_lanes(cs[j]))
        return; /* the whole warp */
    const df_devgen_case c = cs[j];
    df_type t = (df_type)c.type;
    df_pcg32 r = c.rng;
    df_cond_acc *acc = &accs[threadIdx.x / 32];
    for (unsigned i = lane; i < DF_COND_ACC_CHUNKS; i += 32)
        acc->c[i] = 0;
    acc->pending = 0;
    __syncwarp();
    df_lanes_plan p;
    size_t na = (size_t)c.n * df_val_size(t);
    (void)df_lanes_plan_make(c.family, &r, t, buf + c.off, buf + c.off + na, c.n, acc, &p);
    for (int i = 0; i < p.passes; i++)
        devgen_lanes_pass(&p.pass[i], t, &r, lane);
    __syncwarp(); /* the tail writes over the passes' elements and reads their sum */
    double G = c.family == DF_FAM_COND ? devgen_cond_g(&p, lane) : 0;
    if (lane == 0) {
        if (c.family == DF_FAM_COND)
            df_lanes_cond_chain(&p, &r, G);
        else
            df_lanes_tail(&p, &r);
        if (!p.shuffles)
            r.inc = 0;
        shuf[j] = r; /* devgen_shuffle_kernel's, for cond */
    }
}

/* Whether c is a short case of a family that ends with a shuffle. */
__host__ __device__ static bool devgen_shuffles(const df_devgen_case &c)
{
    return c.n <= DF_GEN_CHUNK && (c.family == DF_FAM_COND || c.family == DF_FAM_CANCEL ||
                                   c.family == DF_FAM_LP_CANCEL);
}

/* A shuffle's draws (16 bits a step), rounded up to 16 bytes: what comes
 * first in its shared memory or its scratch. */
__host__ __device__ static size_t devgen_js_bytes(uint64_t n)
{
    return (2 * (size_t)n + 15) / 16 * 16;
}

/* Shared memory a case's shuffle takes in devgen_shuffle_kernel: its
 * draws, then a copy of a and of b. */
__host__ __device__ static size_t devgen_shuffle_smem(uint64_t n, size_t es)
{
    return devgen_js_bytes(n) + 2 * (size_t)n * es;
}

/* At most this much shared memory a block (devgen_smem_cap); a larger case
 * is shuffled by devgen_big_shuffle_kernel. */
#define DEVGEN_SHUFFLE_SMEM_MAX ((size_t)160 << 10)

template <typename T>
__device__ static void devgen_swaps(T *a, T *b, uint64_t n, const uint16_t *js, T *sa,
                                    unsigned lane)
{
    T *sb = sa + n;
    for (uint64_t k = lane; k < n; k += 32)
        sa[k] = a[k], sb[k] = b[k];
    __syncwarp();
    if (lane == 0)
        df_lanes_shuffle_apply(sa, sb, sizeof(T), n, js);
    __syncwarp();
    for (uint64_t k = lane; k < n; k += 32)
        a[k] = sa[k], b[k] = sb[k];
}

/* The shuffles devgen_lanes_kernel left (shuf), a block of one warp a case: the
 * draws by the lanes (df_lanes_shuffle), the swaps by one lane in order on
 * a copy in shared memory (smem bytes of it), copied back. */
__global__ void devgen_shuffle_kernel(const df_devgen_case *cs, size_t m, unsigned char *buf,
                                      const df_pcg32 *shuf, size_t smem)
{
    extern __shared__ __align__(16) unsigned char devgen_sm[];
    size_t j = blockIdx.x;
    unsigned lane = threadIdx.x;
    if (j >= m || !devgen_shuffles(cs[j]) || shuf[j].inc == 0) /* inc 0: not shuffled */
        return;
    df_pcg32 r = shuf[j];
    const df_devgen_case c = cs[j];
    df_type t = (df_type)c.type;
    size_t es = df_val_size(t);
    unsigned char *a = buf + c.off, *b = a + (size_t)c.n * es;
    if (devgen_shuffle_smem(c.n, es) > smem)
        return; /* devgen_big_shuffle_kernel's */
    uint16_t *js = (uint16_t *)devgen_sm;
    df_lanes_pass q = df_lanes_shuffle(js, c.n);
    devgen_lanes_pass(&q, t, &r, lane);
    __syncwarp();
    unsigned char *sa = devgen_sm + devgen_js_bytes(c.n);
    switch (es) {
    case 1: devgen_swaps((uint8_t *)a, (uint8_t *)b, c.n, js, (uint8_t *)sa, lane); break;
    case 2: devgen_swaps((uint16_t *)a, (uint16_t *)b, c.n, js, (uint16_t *)sa, lane); break;
    case 4: devgen_swaps((uint32_t *)a, (uint32_t *)b, c.n, js, (uint32_t *)sa, lane); break;
    default: devgen_swaps((uint64_t *)a, (uint64_t *)b, c.n, js, (uint64_t *)sa, lane); break;
    }
}

/* Longer cases, made as fuzz/gen/values.h makes them in chunks: the long
 * cases' plans (a thread each), their chunks (a thread each), their
 * finish (a thread each). The long cases are listed by their index in cs
 * (idx); each one's plan, value stream after it and cond's chunk partials
 * (up to `most` chunks) go in a device scratch laid out by long_layout,
 * after the stream of each of the m cases' shuffles (shuf: a short case
 * of a family that ends with one, cond, cancel or lp-cancel, made by
 * devgen_lanes_kernel and shuffled by devgen_shuffle_kernel or, past its
 * shared memory, devgen_big_shuffle_kernel, whose scratch comes last: big
 * bytes, each such case's at its offset in the host's list, devgen_batch). */
struct long_layout {
    size_t shuf, plans, rngs, parts, big, bytes;
};

/* What the host reads off a batch's m sorted cases for its launches. */
struct devgen_batch {
    size_t m, L;   /* cases, long ones */
    uint64_t most; /* chunks of the longest */
    size_t smem;   /* devgen_shuffle_kernel's shared memory */
    size_t cap;    /* the most it may take (devgen_smem_cap) */
    size_t big;    /* devgen_big_shuffle_kernel's scratch */
};

static long_layout long_layout_of(const devgen_batch &g)
{
    long_layout o;
    o.shuf = 0;
    o.plans = (g.m * sizeof(df_pcg32) + 255) / 256 * 256;
    o.rngs = o.plans + (g.L * sizeof(df_vplan) + 255) / 256 * 256;
    o.parts = o.rngs + (g.L * sizeof(df_pcg32) + 255) / 256 * 256;
    o.big = o.parts + (g.L * g.most * sizeof(df_vchunk) + 255) / 256 * 256;
    o.bytes = o.big + g.big;
    return o;
}

__global__ void devgen_plan_kernel(const df_devgen_case *cs, const uint32_t *idx, size_t L,
                                   unsigned char *sc, long_layout o)
{
    size_t l = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (l >= L)
        return;
    const df_devgen_case c = cs[idx[l]];
    df_pcg32 r = c.rng;
    df_vplan *plan = (df_vplan *)(sc + o.plans) + l;
    if (df_values_plan(c.family, &r, (df_type)c.type, c.n, plan) != 0)
        plan->span = 0; /* no chunks: the family's fill is unknown */
    ((df_pcg32 *)(sc + o.rngs))[l] = r;
}

__global__ void devgen_chunk_kernel(const df_devgen_case *cs, const uint32_t *idx,
                                    unsigned char *sc, long_layout o, uint64_t most,
                                    unsigned char *buf)
{
    size_t l = blockIdx.y;
    uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const df_vplan *plan = (const df_vplan *)(sc + o.plans) + l;
    if (j >= df_vplan_chunks(plan))
        return;
    const df_devgen_case c = cs[idx[l]];
    size_t na = (size_t)c.n * df_val_size((df_type)c.type);
    df_vchunk *parts = (df_vchunk *)(sc + o.parts) + l * most;
    df_values_chunk(plan, buf + c.off, buf + c.off + na, j, &parts[j]);
}

__global__ void devgen_finish_kernel(const df_devgen_case *cs, const uint32_t *idx, size_t L,
                                     unsigned char *sc, long_layout o, uint64_t most,
                                     unsigned char *buf)
{
    size_t l = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (l >= L)
        return;
    const df_vplan *plan = (const df_vplan *)(sc + o.plans) + l;
    if (plan->span == 0)
        return;
    const df_devgen_case c = cs[idx[l]];
    size_t na = (size_t)c.n * df_val_size((df_type)c.type);
    df_pcg32 r = ((df_pcg32 *)(sc + o.rngs))[l];
    df_values_finish_parts(plan, &r, buf + c.off, buf + c.off + na,
                           (const df_vchunk *)(sc + o.parts) + l * most);
}

static int devgen_cmp(const void *x, const void *y)
{
    const df_devgen_case *p = (const df_devgen_case *)x, *q = (const df_devgen_case *)y;
    if (p->family != q->family)
        return p->family < q->family ? -1 : 1;
    return p->off < q->off ? -1 : p->off > q->off;
}

/* The m cases cs into dst, a family a warp where the batch allows: the
 * threads of a warp then take the same branches. Sorted by family, then
 * offset: cs comes in offset order (df_devgen_layout), so a counting sort
 * over the family ids keeps it, in a fraction of qsort's time; qsort
 * stays for a batch that is not in that order. */
enum { DEVGEN_FAMILIES = 64 };

static void devgen_sort(df_devgen_case *dst, const df_devgen_case *cs, size_t m)
{
    size_t start[DEVGEN_FAMILIES + 1];
    memset(start, 0, sizeof start);
    for (size_t j = 0; j < m; j++) {
        if (cs[j].family >= DEVGEN_FAMILIES || (j && cs[j].off < cs[j - 1].off)) {
            memcpy(dst, cs, m * sizeof *cs);
            qsort(dst, m, sizeof *dst, devgen_cmp);
            return;
        }
        start[cs[j].family + 1]++;
    }
    for (size_t f = 1; f <= DEVGEN_FAMILIES; f++)
        start[f] += start[f - 1];
    for (size_t j = 0; j < m; j++)
        dst[start[cs[j].family]++] = cs[j];
}

/* The long cases of the m sorted cases at h: their indices after the cases
 * (h's room: devgen_host_bytes), their count and the most chunks one has. */
static size_t devgen_longs(df_devgen_case *h, size_t m, uint64_t *most)
{
    uint32_t *idx = (uint32_t *)(h + m);
    size_t L = 0;
    *most = 0;
    for (size_t j = 0; j < m; j++) {
        uint64_t ch = df_gen_chunks(h[j].n);
        if (ch) {
            idx[L++] = (uint32_t)j;
            *most = ch > *most ? ch : *most;
        }
    }
    return L;
}

/* Scratch of a case's shuffle in devgen_big_shuffle_kernel: its draws (16
 * bits a step), R (32 bits a place), done (a byte a step). */
static size_t devgen_big_bytes(uint64_t n)
{
    return (devgen_js_bytes(n) + 5 * (size_t)n + 255) / 256 * 256;
}

/* After the m cases at h and their long indices: each case's offset in
 * devgen_big_shuffle_kernel's scratch. */
static size_t devgen_offs_at(size_t m)
{
    return m * sizeof(df_devgen_case) + (4 * m + 7) / 8 * 8;
}
static uint64_t *devgen_big_offs(const void *cs, size_t m)
{
    return (uint64_t *)((const char *)cs + devgen_offs_at(m));
}

/* DEVGEN_SHUFFLE_SMEM_MAX, or less where the device's blocks may not take
 * that much (before sm_80, or a GPU of sm_86's kind). */
static size_t devgen_smem_cap(void)
{
    int dev = 0, optin = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) !=
            cudaSuccess)
        optin = 48 << 10;
    return (size_t)optin < DEVGEN_SHUFFLE_SMEM_MAX ? (size_t)optin : DEVGEN_SHUFFLE_SMEM_MAX;
}

/* h's room: the cases, their long indices, their big shuffles' offsets
 * (devgen_offs_at). */
static size_t devgen_host_bytes(size_t m) { return devgen_offs_at(m) + 8 * m; }

/* The m sorted cases at h read off for their launches (devgen_batch): the
 * long ones listed (devgen_longs), the shared memory devgen_shuffle_kernel
 * takes (the most a short case of a shuffling family asks, within
 * devgen_smem_cap: g.smem is then below every larger one's ask) and each
 * larger one's scratch offset, after the long indices. */
static devgen_batch devgen_batch_of(df_devgen_case *h, size_t m)
{
    devgen_batch g;
    g.m = m;
    g.L = devgen_longs(h, m, &g.most);
    g.smem = 0;
    g.big = 0;
    g.cap = devgen_smem_cap();
    uint64_t *offs = devgen_big_offs(h, m);
    for (size_t j = 0; j < m; j++) {
        size_t need = devgen_shuffle_smem(h[j].n, df_val_size((df_type)h[j].type));
        offs[j] = g.big;
        if (!devgen_shuffles(h[j]))
            continue;
        if (need > g.cap)
            g.big += devgen_big_bytes(h[j].n);
        else if (need > g.smem)
            g.smem = need;
    }
    return g;
}

enum { DEVGEN_BIG_BLOCK = 512 };

/* The shuffles devgen_lanes_kernel left whose copy would not fit
 * devgen_shuffle_kernel's shared memory (smem), a block a case: the
 * draws by its first warp (df_lanes_shuffle), the swaps by all its
 * threads in rounds of reservations (values_lanes.h's phases, a thread
 * taking every blockDim-th step, a barrier after each), in global memory;
 * the case's scratch at big + offs[j]. */
__global__ void __launch_bounds__(DEVGEN_BIG_BLOCK)
    devgen_big_shuffle_kernel(const df_devgen_case *cs, size_t m, unsigned char *buf,
                              const df_pcg32 *shuf, size_t smem, const uint64_t *offs,
                              unsigned char *big)
{
    size_t j = blockIdx.x;
    if (j >= m || !devgen_shuffles(cs[j]) || shuf[j].inc == 0)
        return;
    const df_devgen_case c = cs[j];
    df_type t = (df_type)c.type;
    size_t es = df_val_size(t);
    uint64_t n = c.n;
    if (devgen_shuffle_smem(n, es) <= smem)
        return; /* devgen_shuffle_kernel's */
    unsigned char *a = buf + c.off, *b = a + (size_t)n * es, *sc = big + offs[j];
    uint16_t *js = (uint16_t *)sc;
    int32_t *R = (int32_t *)(sc + devgen_js_bytes(n));
    uint8_t *done = (uint8_t *)(R + n);
    unsigned tid = threadIdx.x;
    if (tid < 32) {
        df_pcg32 r = shuf[j];
        df_lanes_pass q = df_lanes_shuffle(js, n);
        devgen_lanes_pass(&q, t, &r, tid);
    }
    for (uint64_t k = tid; k < n; k += blockDim.x) {
        R[k] = -1;
        done[k] = 0;
    }
    __shared__ int more;
    for (;;) {
        if (tid == 0)
            more = 0;
        __syncthreads();
        df_reserve_phase(R, js, n, done, tid, blockDim.x);
        __syncthreads();
        if (df_commit_phase(R, js, n, done, a, b, es, tid, blockDim.x))
            more = 1;
        __syncthreads();
        df_free_phase(R, js, n, done, tid, blockDim.x);
        int again = more;
        __syncthreads();
        if (!again)
            break;
    }
}

/* The generation's kernels over g's cases at d_cs (sorted, the long ones'
 * indices and the big shuffles' offsets after them: devgen_batch_of) into
 * d_buf, on st; d_long: long_layout_of(g).bytes of scratch. */
static void devgen_launch(const void *d_cs, const devgen_batch &g, void *d_long, void *d_buf,
                          cudaStream_t st)
{
    const df_devgen_case *cs = (const df_devgen_case *)d_cs;
    unsigned char *buf = (unsigned char *)d_buf, *sc = (unsigned char *)d_long;
    long_layout o = long_layout_of(g);
    size_t m = g.m, L = g.L, smem = g.smem;
    uint64_t most = g.most;
    if (m) {
        df_pcg32 *shuf = (df_pcg32 *)(sc + o.shuf);
        devgen_lanes_kernel<<<(unsigned)((m * 32 + DEVGEN_LANES_BLOCK - 1) / DEVGEN_LANES_BLOCK),
                              DEVGEN_LANES_BLOCK, 0, st>>>(cs, m, buf, shuf);
        devgen_kernel<<<(unsigned)((m + 31) / 32), 32, 0, st>>>(cs, m, buf);
        (void)cudaFuncSetAttribute(devgen_shuffle_kernel,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int)g.cap);
        devgen_shuffle_kernel<<<(unsigned)m, 32, smem, st>>>(cs, m, buf, shuf, smem);
        if (g.big)
            devgen_big_shuffle_kernel<<<(unsigned)m, DEVGEN_BIG_BLOCK, 0, st>>>(
                cs, m, buf, shuf, smem, devgen_big_offs(cs, m), sc + o.big);
    }
    if (!L)
        return;
    const uint32_t *idx = (const uint32_t *)(cs + m);
    devgen_plan_kernel<<<(unsigned)((L + 31) / 32), 32, 0, st>>>(cs, idx, L, sc, o);
    devgen_chunk_kernel<<<dim3((unsigned)((most + 31) / 32), (unsigned)L), 32, 0, st>>>(
        cs, idx, sc, o, most, buf);
    devgen_finish_kernel<<<(unsigned)((L + 31) / 32), 32, 0, st>>>(cs, idx, L, sc, o, most, buf);
}

static int devgen_fail(const char *call, cudaError_t e, char *err, size_t err_len)
{
    snprintf(err, err_len, "%s: %s", call, cudaGetErrorString(e));
    (void)cudaGetLastError();
    return -1;
}

extern "C" int df_cuda_devgen(df_cuda *cu, const df_devgen_case *cs, size_t m, size_t bytes,
                              void *out, double *ms, char *err, size_t err_len)
{
    df_devgen_case *sorted = (df_devgen_case *)malloc(devgen_host_bytes(m) + 1);
    if (!sorted) {
        snprintf(err, err_len, "out of host memory");
        return -1;
    }
    devgen_sort(sorted, cs, m);
    devgen_batch g = devgen_batch_of(sorted, m);
    size_t lb = long_layout_of(g).bytes;
    void *d_cs = NULL, *d_buf = NULL, *d_long = NULL;
    cudaEvent_t t0 = NULL, t1 = NULL;
    cudaError_t e;
    int rc = -1;
    float f = 0;
    if (cu->broken) {
        snprintf(err, err_len, "the CUDA context is unusable");
        goto out;
    }
    if ((e = cudaMalloc(&d_cs, devgen_host_bytes(m) + 1)) ||
        (e = cudaMalloc(&d_buf, bytes ? bytes : 1)) || (e = cudaMalloc(&d_long, lb + 1))) {
        devgen_fail("cudaMalloc", e, err, err_len);
        goto out;
    }
    if ((e = cudaEventCreate(&t0)) || (e = cudaEventCreate(&t1))) {
        devgen_fail("cudaEventCreate", e, err, err_len);
        goto out;
    }
    if ((e = cudaMemcpyAsync(d_cs, sorted, devgen_host_bytes(m), cudaMemcpyHostToDevice,
                             cu->stream))) {
        devgen_fail("cudaMemcpyAsync(cases)", e, err, err_len);
        goto out;
    }
    cudaEventRecord(t0, cu->stream);
    devgen_launch(d_cs, g, d_long, d_buf, cu->stream);
    cudaEventRecord(t1, cu->stream);
    if ((e = cudaGetLastError())) {
        devgen_fail("devgen_kernel", e, err, err_len);
        goto out;
    }
    if ((e = cudaMemcpyAsync(out, d_buf, bytes, cudaMemcpyDeviceToHost, cu->stream)) ||
        (e = cudaStreamSynchronize(cu->stream))) {
        devgen_fail("devgen_kernel, or its copy out", e, err, err_len);
        goto out;
    }
    cudaEventElapsedTime(&f, t0, t1);
    *ms = f;
    rc = 0;
out:
    if (t0)
        cudaEventDestroy(t0);
    if (t1)
        cudaEventDestroy(t1);
    cudaFree(d_cs);
    cudaFree(d_buf);
    cudaFree(d_long);
    free(sorted);
    return rc;
}

/* Counts set's last generation into the batch profile (DF_CUDA_T_GEN_*)
 * once, when it has landed and its events are complete. */
void df_cuda_gen_count(df_cuda *cu, int set)
{
    float k = 0, c = 0;
    if (!cu->gen[set].timed || cudaEventQuery(cu->gen[set].ev[2]) != cudaSuccess ||
        cudaEventElapsedTime(&k, cu->gen[set].ev[0], cu->gen[set].ev[1]) != cudaSuccess ||
        cudaEventElapsedTime(&c, cu->gen[set].ev[1], cu->gen[set].ev[2]) != cudaSuccess)
        return;
    cu->gen[set].timed = 0;
    cu->batch_s[DF_CUDA_T_GEN_COUNT] += 1;
    cu->batch_s[DF_CUDA_T_GEN_KERNEL] += 1e-3 * k;
    cu->batch_s[DF_CUDA_T_GEN_COPY] += 1e-3 * c;
    cu->batch_s[DF_CUDA_T_GEN_BYTES] += (double)cu->gen[set].bytes;
    double at;
    __atomic_load(&cu->gen[set].landed_at, &at, __ATOMIC_ACQUIRE);
    if (at > cu->gen[set].started) /* else not seen yet: only its device times count */
        cu->batch_s[DF_CUDA_T_GEN_LANDED] += at - cu->gen[set].started;
}

/* Marks set's generation landed; when timed, the first thread to do so
 * notes when. */
static void gen_mark_landed(df_cuda *cu, int set)
{
    if (!cu->gen_timing) {
        __atomic_store_n(&cu->gen[set].landed, 1, __ATOMIC_RELEASE);
        return;
    }
    double now = df_now();
    if (__atomic_exchange_n(&cu->gen[set].landed, 1, __ATOMIC_ACQ_REL) == 0)
        __atomic_store(&cu->gen[set].landed_at, &now, __ATOMIC_RELEASE);
}

/* The generation's copy back: up to GEN_COPY_PIECES pieces, each a
 * multiple of GEN_COPY_PIECE_MIN (a batch of 4096 at n = 2000, 62.5 MiB:
 * seven of 8 MiB and the rest). */
enum { GEN_COPY_PIECES = 8 };
static const size_t GEN_COPY_PIECE_MIN = (size_t)1 << 20;

/* The set's stream and done event, made on first use. */
static int set_stream(df_cuda *cu, int set, char *err, size_t err_len)
{
    cudaError_t e;
    if (!cu->gen[set].stream &&
        (e = cudaStreamCreateWithFlags(&cu->gen[set].stream, cudaStreamNonBlocking)))
        return devgen_fail("cudaStreamCreateWithFlags", e, err, err_len);
    if (!cu->gen[set].done &&
        (e = cudaEventCreateWithFlags(&cu->gen[set].done, cudaEventDisableTiming)))
        return devgen_fail("cudaEventCreateWithFlags", e, err, err_len);
    return 0;
}

extern "C" int df_cuda_gen_start(df_cuda *cu, int set, const df_devgen_case *cs, size_t m,
                                 size_t bytes, void **out, char *err, size_t err_len)
{
    cudaError_t e;
    if (cu->broken) {
        snprintf(err, err_len, "the CUDA context is unusable");
        return -1;
    }
    if (cu->gen[set].timed && cudaEventSynchronize(cu->gen[set].ev[2]) == cudaSuccess)
        df_cuda_gen_count(cu, set); /* the set's last generation, read by now */
    cu->gen[set].timed = 0;
    cu->gen[set].bytes = 0; /* no batch reads the set until this generation is under way */
    __atomic_store_n(&cu->gen[set].landed, 0, __ATOMIC_RELEASE);
    if (set_stream(cu, set, err, err_len) != 0)
        return -1;
    for (int k = 0; cu->gen_timing && k < 3; k++)
        if (!cu->gen[set].ev[k] && (e = cudaEventCreate(&cu->gen[set].ev[k])))
            return devgen_fail("cudaEventCreate", e, err, err_len);
    size_t csb = devgen_host_bytes(m);
    if ((e = df_cuda_grow(&cu->gen[set].h_cs, &cu->gen[set].h_cs_cap, csb ? csb : 1, 1)) ||
        (e = df_cuda_grow(&cu->gen[set].d_cs, &cu->gen[set].d_cs_cap, csb ? csb : 1, 0)) ||
        (e = df_cuda_grow(&cu->gen[set].d_buf, &cu->gen[set].d_buf_cap, bytes ? bytes : 1, 0)) ||
        (e = df_cuda_grow(&cu->gen[set].h_out, &cu->gen[set].h_out_cap, bytes ? bytes : 1, 1)))
        return devgen_fail("cudaMalloc(generation)", e, err, err_len);
    df_devgen_case *h = (df_devgen_case *)cu->gen[set].h_cs;
    devgen_sort(h, cs, m);
    devgen_batch g = devgen_batch_of(h, m);
    if ((e = df_cuda_grow(&cu->gen[set].d_long, &cu->gen[set].d_long_cap,
                          long_layout_of(g).bytes + 1, 0)))
        return devgen_fail("cudaMalloc(generation of long cases)", e, err, err_len);
    cudaStream_t st = cu->gen[set].stream;
    if (cu->gen_timing) {
        double zero = 0; /* not seen landed yet: gen_mark_landed notes when */
        __atomic_store(&cu->gen[set].landed_at, &zero, __ATOMIC_RELEASE);
        cu->gen[set].started = df_now();
        (void)cudaEventRecord(cu->gen[set].ev[0], st);
    }
    if ((e = cudaMemcpyAsync(cu->gen[set].d_cs, h, csb, cudaMemcpyHostToDevice, st)))
        return devgen_fail("cudaMemcpyAsync(generation cases)", e, err, err_len);
    devgen_launch(cu->gen[set].d_cs, g, cu->gen[set].d_long, cu->gen[set].d_buf, st);
    if ((e = cudaGetLastError()))
        return devgen_fail("devgen_kernel", e, err, err_len);
    if (cu->gen_timing)
        (void)cudaEventRecord(cu->gen[set].ev[1], st);
    /* back in pieces, which the batch's own small copies out on its
     * stream may pass between: a short case's run verifies more cases a
     * second so, though the batch's copy out takes no less time by its
     * events (how the pieces help is not known). A few pieces, not pieces
     * of a fixed size: a batch at n = 2^26 is 8.6 GB, a thousand calls of
     * 8 MB */
    size_t piece = df_cuda_round_up((bytes + GEN_COPY_PIECES - 1) / GEN_COPY_PIECES,
                                    GEN_COPY_PIECE_MIN);
    for (size_t off = 0; off < bytes && e == cudaSuccess; off += piece)
        e = cudaMemcpyAsync((char *)cu->gen[set].h_out + off, (char *)cu->gen[set].d_buf + off,
                            bytes - off < piece ? bytes - off : piece, cudaMemcpyDeviceToHost,
                            st);
    if (e || (cu->gen_timing && (e = cudaEventRecord(cu->gen[set].ev[2], st))) ||
        (e = cudaEventRecord(cu->gen[set].done, st)))
        return devgen_fail("cudaMemcpyAsync(generated cases)", e, err, err_len);
    cu->gen[set].bytes = bytes;
    cu->gen[set].timed = cu->gen_timing;
    *out = cu->gen[set].h_out;
    return 0;
}

extern "C" void *df_cuda_upload_reserve(df_cuda *cu, int set, size_t bytes, size_t *cap,
                                        char *err, size_t err_len)
{
    cudaError_t e;
    if (cu->broken) {
        snprintf(err, err_len, "the CUDA context is unusable");
        return NULL;
    }
    if (set_stream(cu, set, err, err_len) != 0)
        return NULL;
    /* the copy engine may still read h_out for the set's last upload, or
     * write it for its last generation: done before the caller writes it */
    if ((e = cudaEventSynchronize(cu->gen[set].done))) {
        devgen_fail("cudaEventSynchronize(upload set)", e, err, err_len);
        return NULL;
    }
    if (cu->gen[set].timed)
        df_cuda_gen_count(cu, set);
    cu->gen[set].timed = 0;
    cu->gen[set].bytes = 0; /* no batch reads the set while it is filled */
    if ((e = df_cuda_grow(&cu->gen[set].d_buf, &cu->gen[set].d_buf_cap, bytes ? bytes : 1, 0)) ||
        (e = df_cuda_grow(&cu->gen[set].h_out, &cu->gen[set].h_out_cap, bytes ? bytes : 1, 1))) {
        devgen_fail("cudaMalloc(upload)", e, err, err_len);
        return NULL;
    }
    *cap = cu->gen[set].h_out_cap < cu->gen[set].d_buf_cap ? cu->gen[set].h_out_cap
                                                              : cu->gen[set].d_buf_cap;
    return cu->gen[set].h_out;
}

extern "C" int df_cuda_upload_start(df_cuda *cu, int set, size_t bytes, char *err,
                                    size_t err_len)
{
    cudaError_t e;
    if (cu->broken) {
        snprintf(err, err_len, "the CUDA context is unusable");
        return -1;
    }
    if (!cu->gen[set].h_out || bytes > cu->gen[set].h_out_cap || bytes > cu->gen[set].d_buf_cap) {
        snprintf(err, err_len, "upload set %d holds no %zu bytes", set, bytes);
        return -1;
    }
    cudaStream_t st = cu->gen[set].stream;
    if ((e = cudaMemcpyAsync(cu->gen[set].d_buf, cu->gen[set].h_out, bytes,
                             cudaMemcpyHostToDevice, st)) ||
        (e = cudaEventRecord(cu->gen[set].done, st)))
        return devgen_fail("cudaMemcpyAsync(upload)", e, err, err_len);
    cu->gen[set].bytes = bytes;
    return 0;
}

/* A batch's prepare items each wait for its generation: 512 calls into
 * the driver a batch of 4096 at n = 2000, from sixteen threads at once,
 * where one that saw it land is enough. */
extern "C" int df_cuda_gen_wait(df_cuda *cu, int set)
{
    if (__atomic_load_n(&cu->gen[set].landed, __ATOMIC_ACQUIRE))
        return 0;
    if (!cu->gen[set].done || cudaEventSynchronize(cu->gen[set].done) != cudaSuccess)
        return -1;
    gen_mark_landed(cu, set);
    return 0;
}

extern "C" int df_cuda_gen_landed(df_cuda *cu, int set)
{
    if (__atomic_load_n(&cu->gen[set].landed, __ATOMIC_ACQUIRE) || !cu->gen[set].done)
        return 1;
    cudaError_t e = cudaEventQuery(cu->gen[set].done);
    if (e == cudaSuccess)
        gen_mark_landed(cu, set);
    return e != cudaErrorNotReady;
}

#endif
