/* shfl_common.h — what the three shfl kernels share (shfl and shfl-f64acc
 * in kernels/shfl.cu, shfl-f64 in kernels/shfl_f64.cu): launch limits, the
 * map from elements to threads and accumulator lanes, the tree height, and
 * (under nvcc) the GPU kernel template with its launcher. The host model
 * lives in kernels/shfl_model.h.
 *
 * The map. V = 16 / sizeof(element) (4 floats or 2 doubles per 16-byte
 * vector); T = grid * block threads, numbered t = blockIdx * block + tid.
 * Each thread keeps V accumulators (lanes), combined at the end as the
 * pairwise tree ((l0 + l1) + (l2 + l3)).
 *   a and b equally misaligned (offset_a % V == offset_b % V), "vector path":
 *     head = the 0..V-1 elements before the first 16-byte boundary;
 *     head element j goes to thread j, lane 0;
 *     16-byte vector v of the body goes to thread v % T, its element k to
 *     lane k (a grid-stride loop, DF_SHFL_UNROLL vector pairs in flight);
 *     tail element j (after the last whole vector) goes to thread j, lane 0.
 *   otherwise, "scalar path": element i goes to thread i % T, lane
 *     (i / T) % V (a grid-stride loop unrolled by V).
 * Every accumulator takes its elements in increasing index order, each with
 * one fused multiply-add. Then: the V lanes pairwise; a __shfl_down_sync
 * tree per warp (offsets 16, 8, 4, 2, 1); warp totals through shared memory
 * into warp 0 and the same shuffle tree (missing warps count as +0); thread
 * 0 writes the block's partial. The last block to finish (atomic ticket)
 * sums the partials in a fixed order: its thread j adds partials j, j + block,
 * j + 2 block, ... in turn, then the same block tree. So every run does the
 * same operations in the same order: the kernel is deterministic and the
 * host model repeats it bit for bit.
 *
 * Soft errors (kernels/soft_error.h, DF_SOFT_NONFINITE): a thread whose
 * sum (its lanes combined) is Inf/NaN while all its inputs are finite
 * (checked once per thread; the rare path rescans its elements), and every
 * addition of the warp and block trees and of the last block's sum of
 * partials that gives Inf/NaN from two finite operands. Only lanes whose
 * sum reaches lane 0 are checked (lane < offset): the others add values
 * nobody uses. The index is the first element of the partial sum's first
 * thread (df_shfl_first_elem). The last block's steps report the block
 * that finished last, which no model can know: the host model says
 * DF_SHFL_LAST_BLOCK there.
 */
#ifndef DOTFUZZ_SHFL_COMMON_H
#define DOTFUZZ_SHFL_COMMON_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel.h"

/* The map helpers run on the device too, on the soft-error rare path. */
#ifdef __CUDACC__
#define DF_SHFL_HD __host__ __device__
#else
#define DF_SHFL_HD
#endif

#define DF_SHFL_WARP 32u
#define DF_SHFL_BLOCK_MIN 32u   /* any multiple of 32 in [32, 1024] */
#define DF_SHFL_BLOCK_MAX 1024u
/* 1024: at the persistent grid (SMs x resident blocks) the fastest block
 * on two H200s, 0.1% and 0.5% ahead of 256 (fewer partials and tails). */
#define DF_SHFL_BLOCK_DEFAULT 1024u
#define DF_SHFL_GRID_MAX 65535u
/* Elements per thread for the derived default grid: 2^28 floats at block
 * 1024 give 1024 blocks, a few waves on a 132-SM GPU; small cases get few
 * blocks. Benchmarks use a persistent grid instead (fuzz/backend/bandwidth.cu). */
#define DF_SHFL_PER_THREAD 256u
/* Device scratch: the ticket counter, then the block partials 256 bytes in. */
#define DF_SHFL_SCRATCH_HEADER 256u
/* 16-byte vector pairs each thread loads per grid-stride iteration. */
#define DF_SHFL_UNROLL 4u

/* The descriptor fields the three shfl kernels share: traits and limits
 * (m-vec-tail's too). The kernels themselves add DF_K_LEN64
 * (DF_SHFL_LAUNCH_LEN64): a mutant takes huge cases only where its bug
 * needs them. */
#define DF_SHFL_FLAGS                                                       \
    (DF_K_DETERMINISTIC | DF_K_ANY_ALIGNMENT | DF_K_GRID_FREE | DF_K_BLOCK_WARP | \
     DF_K_MODEL_IN_BOUNDS)
#define DF_SHFL_RANGES                                                      \
    .block_min = DF_SHFL_BLOCK_MIN, .block_max = DF_SHFL_BLOCK_MAX,         \
    .block_default = DF_SHFL_BLOCK_DEFAULT, .grid_max = DF_SHFL_GRID_MAX,   \
    .per_thread = DF_SHFL_PER_THREAD, .max_n = 0
#define DF_SHFL_LAUNCH .flags = DF_SHFL_FLAGS, DF_SHFL_RANGES
#define DF_SHFL_LAUNCH_LEN64 .flags = DF_SHFL_FLAGS | DF_K_LEN64, DF_SHFL_RANGES

/* Which path a case takes and how its elements spread over the threads. */
typedef struct df_shfl_map {
    int vector;        /* 1: head, 16-byte vector body, tail; 0: scalar path */
    uint64_t head;     /* vector path: elements before the first boundary */
    uint64_t nvec;     /* vector path: whole 16-byte vectors in the body */
    uint64_t tail;     /* vector path: elements after the last vector */
    uint64_t threads;  /* T = grid * block */
    uint64_t active;   /* threads 0..active-1 get elements; the rest hold +0 */
    uint64_t chain;    /* most elements that any one accumulator takes */
} df_shfl_map;

static inline DF_SHFL_HD uint64_t df_shfl_ceil_div(uint64_t x, uint64_t y)
{
    return x / y + (x % y != 0);
}

static inline DF_SHFL_HD uint64_t df_shfl_min(uint64_t x, uint64_t y) { return x < y ? x : y; }
static inline DF_SHFL_HD uint64_t df_shfl_max(uint64_t x, uint64_t y) { return x > y ? x : y; }

/* A launch the kernel runs as described above. */
static inline int df_shfl_launch_ok(const df_launch *l)
{
    return l->block >= DF_SHFL_BLOCK_MIN && l->block <= DF_SHFL_BLOCK_MAX &&
           l->block % DF_SHFL_WARP == 0 && l->grid >= 1 &&
           l->grid <= DF_SHFL_GRID_MAX;
}

/* The map for n elements of vector width V under launch l (resolved, so
 * grid * block >= 32). The pointers' misalignment is taken from the
 * offsets: the backend places a and b offset_a / offset_b elements past a
 * cudaMalloc base, which is 256-byte aligned, so offset % V is exactly the
 * pointer's misalignment in elements that the GPU reads off the address. */
static inline DF_SHFL_HD void df_shfl_map_make(uint64_t n, const df_launch *l, uint32_t V,
                                    df_shfl_map *m)
{
    const uint64_t T = (uint64_t)l->grid * l->block;
    const uint32_t mis_a = l->offset_a % V, mis_b = l->offset_b % V;
    m->threads = T;
    m->vector = mis_a == mis_b;
    if (m->vector) {
        m->head = df_shfl_min((V - mis_a) % V, n);
        m->nvec = (n - m->head) / V;
        m->tail = n - m->head - m->nvec * V;
        m->active = df_shfl_max(df_shfl_min(T, m->nvec),
                                df_shfl_max(m->head, m->tail));
        m->chain = df_shfl_ceil_div(m->nvec, T) + (m->head > 0) + (m->tail > 0);
    } else {
        m->head = m->nvec = m->tail = 0;
        m->active = df_shfl_min(T, n);
        m->chain = df_shfl_ceil_div(n, (uint64_t)V * T);
    }
}

/* The block field of the host model's reports from the last block's sum
 * of partials: on the GPU that is whichever block took the last ticket. */
#define DF_SHFL_LAST_BLOCK UINT32_MAX

/* The first element global thread t takes, or n when it takes none: the
 * index of a soft-error report about a partial sum that starts with t. */
static inline DF_SHFL_HD uint64_t df_shfl_first_elem(const df_shfl_map *m, uint64_t n,
                                                     uint32_t V, uint64_t t)
{
    if (!m->vector)
        return t < n ? t : n;
    if (t < m->head)
        return t;
    if (t < m->nvec)
        return m->head + t * V;
    if (t < m->tail)
        return m->head + m->nvec * V + t;
    return n;
}

/* Element i of a and b both finite; es is the element size (4 or 8). */
static inline DF_SHFL_HD int df_shfl_pair_finite(const void *a, const void *b, size_t es,
                                                 uint64_t i)
{
    if (es == sizeof(float))
        return isfinite(((const float *)a)[i]) && isfinite(((const float *)b)[i]);
    return isfinite(((const double *)a)[i]) && isfinite(((const double *)b)[i]);
}

/* Whether every input of global thread t is finite: the confirmation a
 * non-finite thread sum needs before it is reported (rare path only). */
static inline DF_SHFL_HD int df_shfl_thread_finite(const void *a, const void *b, size_t es,
                                                   uint64_t n, const df_shfl_map *m,
                                                   uint32_t V, uint64_t t)
{
    const uint64_t T = m->threads;
    if (!m->vector) {
        for (uint64_t i = t; i < n; i += T)
            if (!df_shfl_pair_finite(a, b, es, i))
                return 0;
        return 1;
    }
    if (t < m->head && !df_shfl_pair_finite(a, b, es, t))
        return 0;
    for (uint64_t v = t; v < m->nvec; v += T)
        for (uint32_t k = 0; k < V; k++)
            if (!df_shfl_pair_finite(a, b, es, m->head + v * V + k))
                return 0;
    if (t < m->tail && !df_shfl_pair_finite(a, b, es, m->head + m->nvec * V + t))
        return 0;
    return 1;
}

/* Rounding levels of the __shfl_down_sync tree when only its first m
 * leaves can be nonzero: a level with offset >= m adds exact zeros. */
static inline uint64_t df_shfl_tree_levels(uint64_t m)
{
    return df_ceil_log2_u64(df_shfl_min(m, DF_SHFL_WARP));
}

/* Rounding levels of one block's reduction when its first m threads can be
 * nonzero: the warp trees, then the tree over ceil(m / 32) warp totals. */
static inline uint64_t df_shfl_block_levels(uint64_t m, uint32_t block)
{
    uint64_t warps = df_shfl_min(df_shfl_ceil_div(m, DF_SHFL_WARP),
                                 block / DF_SHFL_WARP);
    return df_shfl_tree_levels(m) + df_shfl_tree_levels(warps);
}

/* Tree height: the longest chain of roundings from a product to the result.
 *   per accumulator: chain fused multiply-adds, plus 1 for the product
 *     (fused, so not rounded alone, but counted: the bound stays valid);
 *   lanes: log2(V) pairwise adds;
 *   block: warp tree + tree over warp totals, on the active prefix;
 *   partials: the last block's thread j starts from 0 (exact) and adds its
 *     ceil(active blocks / block) nonzero partials, then the block tree.
 * Adds of +0 are exact, so levels that only see zeros are not counted.
 * As a formula, with chain and active from df_shfl_map_make, B =
 * ceil(active / block) blocks holding elements and L(m) =
 * df_shfl_block_levels(m, block) = ceil(log2 min(m, 32)) +
 * ceil(log2 min(ceil(m / 32), block / 32)):
 *   h = chain + 1 + log2 V + L(active)
 *       + (B > 1 ? ceil(B / block) - 1 + L(min(B, block)) : 0);
 * a launch the kernel does not run (df_shfl_launch_ok) gets n + 1. */
static inline uint64_t df_shfl_tree_height(uint64_t n, const df_launch *l,
                                           uint32_t V)
{
    if (!df_shfl_launch_ok(l))
        return n + 1; /* no defined order: any order's chain is <= n + 1 */
    df_shfl_map m;
    df_shfl_map_make(n, l, V, &m);
    uint64_t h = m.chain + 1 + df_ceil_log2_u64(V) +
                 df_shfl_block_levels(m.active, l->block);
    uint64_t blocks = df_shfl_ceil_div(m.active, l->block);
    if (blocks > 1)
        h += df_shfl_ceil_div(blocks, l->block) - 1 +
             df_shfl_block_levels(df_shfl_min(blocks, l->block), l->block);
    return h;
}

/* Device scratch for a launch: the counter and one partial per block. */
static inline size_t df_shfl_scratch_size(const df_launch *l, size_t acc_size)
{
    return DF_SHFL_SCRATCH_HEADER + (size_t)l->grid * acc_size;
}

#ifdef DOTFUZZ_CUDA
#ifdef __cplusplus
extern "C" {
#endif
/* Resident blocks per SM of each shfl kernel at a block size (cudaError_t):
 * what fuzz/backend/bandwidth.cu sizes its persistent grid with. df_gpu_ops has
 * no member for it yet, so the GPU halves export these by name. */
int df_shfl_blocks_per_sm(uint32_t block, int *blocks_per_sm);
int df_shfl_f64acc_blocks_per_sm(uint32_t block, int *blocks_per_sm);
int df_shfl_f64_blocks_per_sm(uint32_t block, int *blocks_per_sm);
#ifdef __cplusplus
}
#endif
#endif

#ifdef __CUDACC__
/* ---- GPU kernel template and launcher (CUDA C) ---- */
#include <cuda_runtime.h>
#include <stdio.h>

#include "kernels/gpu_ops.h"
#include "kernels/gpu_common.h"

template <typename E> struct df_shfl_vec;
template <> struct df_shfl_vec<float> {
    typedef float4 type;
    static const unsigned width = 4;
    static const df_type elem = DF_F32;
};
template <> struct df_shfl_vec<double> {
    typedef double2 type;
    static const unsigned width = 2;
    static const df_type elem = DF_F64;
};

/* The one rounding per element. Float products are exact in double, so the
 * f64acc fma rounds only the sum, as the host model's fma does. */
__device__ __forceinline__ float df_shfl_fma(float x, float y, float acc)
{
    return fmaf(x, y, acc);
}
__device__ __forceinline__ double df_shfl_fma(float x, float y, double acc)
{
    return fma((double)x, (double)y, acc);
}
__device__ __forceinline__ double df_shfl_fma(double x, double y, double acc)
{
    return fma(x, y, acc);
}

template <typename A>
__device__ __forceinline__ void df_shfl_fma_vec(A (&acc)[4], float4 x, float4 y)
{
    acc[0] = df_shfl_fma(x.x, y.x, acc[0]);
    acc[1] = df_shfl_fma(x.y, y.y, acc[1]);
    acc[2] = df_shfl_fma(x.z, y.z, acc[2]);
    acc[3] = df_shfl_fma(x.w, y.w, acc[3]);
}
template <typename A>
__device__ __forceinline__ void df_shfl_fma_vec(A (&acc)[2], double2 x, double2 y)
{
    acc[0] = df_shfl_fma(x.x, y.x, acc[0]);
    acc[1] = df_shfl_fma(x.y, y.y, acc[1]);
}

/* Head, 16-byte body, tail. The body loads DF_SHFL_UNROLL vector pairs
 * before the first fma: all 8 16-byte loads in flight per thread (ptxas
 * interleaves loads and fmas, with fewer in flight and less bandwidth,
 * when the loads are written between the fmas). The
 * fmas still take the vectors in increasing order. */
template <typename E, typename A, unsigned V>
__device__ __forceinline__ void df_shfl_vector_path(const E *__restrict__ a,
                                                    const E *__restrict__ b,
                                                    uint64_t n, unsigned mis,
                                                    uint64_t t, uint64_t T,
                                                    A (&acc)[V])
{
    typedef typename df_shfl_vec<E>::type VE;
    const unsigned U = DF_SHFL_UNROLL;
    const uint64_t head = (V - mis) % V < n ? (V - mis) % V : n;
    const uint64_t nvec = (n - head) / V;
    const uint64_t tail = n - head - nvec * V;
    if (t < head)
        acc[0] = df_shfl_fma(__ldg(a + t), __ldg(b + t), acc[0]);
    const VE *av = reinterpret_cast<const VE *>(a + head);
    const VE *bv = reinterpret_cast<const VE *>(b + head);
    uint64_t v = t;
    for (; v + (U - 1) * T < nvec; v += U * T) {
        VE x[U], y[U];
#pragma unroll
        for (unsigned k = 0; k < U; k++) {
            x[k] = __ldg(av + v + k * T);
            y[k] = __ldg(bv + v + k * T);
        }
#pragma unroll
        for (unsigned k = 0; k < U; k++)
            df_shfl_fma_vec(acc, x[k], y[k]);
    }
    for (; v < nvec; v += T)
        df_shfl_fma_vec(acc, __ldg(av + v), __ldg(bv + v));
    if (t < tail) {
        const uint64_t i = head + nvec * V + t;
        acc[0] = df_shfl_fma(__ldg(a + i), __ldg(b + i), acc[0]);
    }
}

/* a and b misaligned differently: no common 16-byte boundary, so scalar
 * loads, still coalesced, V pairs in flight; row r = i / T of the grid
 * stride goes to lane r % V. */
template <typename E, typename A, unsigned V>
__device__ __forceinline__ void df_shfl_scalar_path(const E *__restrict__ a,
                                                    const E *__restrict__ b,
                                                    uint64_t n, uint64_t t,
                                                    uint64_t T, A (&acc)[V])
{
    uint64_t i = t;
    for (; i + (V - 1) * T < n; i += V * T) {
        E x[V], y[V];
#pragma unroll
        for (unsigned k = 0; k < V; k++) {
            x[k] = __ldg(a + i + k * T);
            y[k] = __ldg(b + i + k * T);
        }
#pragma unroll
        for (unsigned k = 0; k < V; k++)
            acc[k] = df_shfl_fma(x[k], y[k], acc[k]);
    }
#pragma unroll
    for (unsigned k = 0; k < V - 1; k++) /* the last 0..V-1 rows */
        if (i + k * T < n)
            acc[k] = df_shfl_fma(__ldg(a + i + k * T), __ldg(b + i + k * T), acc[k]);
}

/* What the soft-error rare paths need: the slots and the kernel's
 * arguments, from which they rebuild the map (df_shfl_map_make). */
template <typename E> struct df_shfl_soft {
    df_soft_dev s;
    const E *a, *b;
    uint64_t n;
    unsigned grid;  /* the case's grid (a batched launch holds several) */
};

/* The map of this launch, from the addresses as the kernel sees them. */
template <typename E>
static __device__ void df_shfl_device_map(const df_shfl_soft<E> &sf, df_shfl_map *m)
{
    const unsigned V = df_shfl_vec<E>::width;
    df_launch l;
    l.block = blockDim.x;
    l.grid = sf.grid;
    l.offset_a = (uint32_t)(((uintptr_t)sf.a / sizeof(E)) % V);
    l.offset_b = (uint32_t)(((uintptr_t)sf.b / sizeof(E)) % V);
    df_shfl_map_make(sf.n, &l, V, m);
}

/* Rare path: global thread t's sum is not finite; reported when all its
 * inputs are. Out of line, so the hot path keeps only the test. */
template <typename E>
static __device__ __noinline__ void df_shfl_soft_partial(df_shfl_soft<E> sf, uint64_t t,
                                                          double value)
{
    const unsigned V = df_shfl_vec<E>::width;
    df_shfl_map m;
    df_shfl_device_map(sf, &m);
    if (df_shfl_thread_finite(sf.a, sf.b, sizeof(E), sf.n, &m, V, t))
        df_soft_raise(sf.s, DF_SOFT_NONFINITE, DF_SOFT_K_SHFL, __LINE__, 0,
                      df_shfl_first_elem(&m, sf.n, V, t), 0, value);
}

/* Rare path: a tree addition of two finite values gave Inf/NaN; rep is
 * the first thread of the partial sum it made. */
template <typename E>
static __device__ __noinline__ void df_shfl_soft_combine(df_shfl_soft<E> sf, uint64_t rep,
                                                          double value)
{
    const unsigned V = df_shfl_vec<E>::width;
    df_shfl_map m;
    df_shfl_device_map(sf, &m);
    df_soft_raise(sf.s, DF_SOFT_NONFINITE, DF_SOFT_K_SHFL, __LINE__, 0,
                  df_shfl_first_elem(&m, sf.n, V, rep), 0, value);
}

/* x + y, reported when it is not finite and both are (DF_SOFT_MODE 0:
 * just the addition). rep: the first thread of the sum. */
template <typename E, typename A>
__device__ __forceinline__ A df_shfl_add_checked(A x, A y, bool live,
                                                 const df_shfl_soft<E> &sf, uint64_t rep)
{
    const A r = x + y;
#if DF_SOFT_MODE != 0
    if (__builtin_expect(live && !isfinite(r) && isfinite(x) && isfinite(y), 0))
        df_shfl_soft_combine(sf, rep, (double)r);
#else
    (void)live, (void)sf, (void)rep;
#endif
    return r;
}

/* The shuffle tree; lane l's sum starts with thread rep0 + l * stride. */
template <typename E, typename A>
__device__ __forceinline__ A df_shfl_warp_sum(A v, const df_shfl_soft<E> &sf, uint64_t rep0,
                                             uint64_t stride)
{
    const unsigned lane = threadIdx.x % DF_SHFL_WARP;
#pragma unroll
    for (unsigned off = DF_SHFL_WARP / 2; off > 0; off /= 2)
        v = df_shfl_add_checked(v, __shfl_down_sync(0xffffffffu, v, off), lane < off, sf,
                                rep0 + lane * stride);
    return v;
}

/* Block total, valid in thread 0. blockDim.x is a multiple of 32, so every
 * warp is full and the full shuffle mask is right. Thread j's value is the
 * sum that starts with thread base + j * stride (for the reports). */
template <typename E, typename A>
__device__ __forceinline__ A df_shfl_block_sum(A v, A *s_warp, const df_shfl_soft<E> &sf,
                                              uint64_t base, uint64_t stride)
{
    const unsigned lane = threadIdx.x % DF_SHFL_WARP;
    const unsigned warp = threadIdx.x / DF_SHFL_WARP;
    v = df_shfl_warp_sum(v, sf, base + (uint64_t)warp * DF_SHFL_WARP * stride, stride);
    if (lane == 0)
        s_warp[warp] = v;
    __syncthreads();
    A r = A(0);
    if (warp == 0) {
        r = lane < blockDim.x / DF_SHFL_WARP ? s_warp[lane] : A(0);
        r = df_shfl_warp_sum(r, sf, base, DF_SHFL_WARP * stride);
    }
    return r;
}

/* One block's work for a case whose launch is grid blocks of blockDim.x
 * threads, this block being block `blk` of them: the whole kernel, with
 * the case's own block index and grid in place of blockIdx and gridDim,
 * so a batched launch (df_shfl_batch_kernel) does for each case exactly
 * what the case's own launch does. Only the first `active` blocks run
 * (active = grid in the case's own launch): a block whose first thread is
 * at or past n holds no element, and its partial is +0 (sums of +0, which
 * no check reports), so the last block adds +0 for it without it having
 * run: the same additions in the same order, so the same bits. s_warp and
 * s_last are the block's shared memory. */
template <typename E, typename A>
__device__ __forceinline__ void df_shfl_block(const E *__restrict__ a, const E *__restrict__ b,
                                              uint64_t n, unsigned blk, unsigned grid,
                                              unsigned active, A *partials, unsigned *ticket,
                                              A *result,
                                              df_soft_dev soft, A *s_warp, unsigned &s_last)
{
    const unsigned V = df_shfl_vec<E>::width;
    const uint64_t T = (uint64_t)grid * blockDim.x;
    const uint64_t t = (uint64_t)blk * blockDim.x + threadIdx.x;
    const df_shfl_soft<E> sf = {soft, a, b, n, grid};

    A acc[V];
#pragma unroll
    for (unsigned k = 0; k < V; k++)
        acc[k] = A(0);
    /* Misalignment in elements from the address itself; the host model
     * gets the same number from the offsets (see df_shfl_map_make). */
    const unsigned mis_a = (unsigned)(((uintptr_t)a / sizeof(E)) % V);
    const unsigned mis_b = (unsigned)(((uintptr_t)b / sizeof(E)) % V);
    if (mis_a == mis_b)
        df_shfl_vector_path<E, A, V>(a, b, n, mis_a, t, T, acc);
    else
        df_shfl_scalar_path<E, A, V>(a, b, n, t, T, acc);
#pragma unroll
    for (unsigned s = 1; s < V; s *= 2)
#pragma unroll
        for (unsigned k = 0; k < V; k += 2 * s)
            acc[k] = acc[k] + acc[k + s];
#if DF_SOFT_MODE != 0
    if (__builtin_expect(!isfinite(acc[0]), 0)) /* once per thread */
        df_shfl_soft_partial(sf, t, (double)acc[0]);
#endif

    const A block_total =
        df_shfl_block_sum(acc[0], s_warp, sf, (uint64_t)blk * blockDim.x, 1);
    if (threadIdx.x == 0) {
        partials[blk] = block_total;
        __threadfence(); /* release: the partial before the ticket */
        s_last = atomicAdd(ticket, 1u) == active - 1;
        if (s_last)
            __threadfence(); /* acquire: every partial after the last ticket */
    }
    __syncthreads();
    if (!s_last)
        return;
    /* The last block: fixed-order sum of all partials. __ldcg reads them
     * from L2, past this SM's (incoherent) L1. Thread j's sum starts with
     * partial j, whose first thread is j * block. */
    A s = A(0);
    const uint64_t rep = (uint64_t)threadIdx.x * blockDim.x;
#pragma unroll 4
    for (unsigned p = threadIdx.x; p < grid; p += blockDim.x)
        s = df_shfl_add_checked(s, p < active ? __ldcg(partials + p) : A(0), true, sf, rep);
    s = df_shfl_block_sum(s, s_warp, sf, 0, blockDim.x);
    if (threadIdx.x == 0)
        *result = s;
}

template <typename E, typename A>
__global__ void __launch_bounds__(DF_SHFL_BLOCK_MAX, 1)
df_shfl_kernel(const E *__restrict__ a, const E *__restrict__ b, uint64_t n,
               A *partials, unsigned *ticket, A *result, df_soft_dev soft)
{
    __shared__ A s_warp[DF_SHFL_WARP];
    __shared__ unsigned s_last;
    df_shfl_block<E, A>(a, b, n, blockIdx.x, gridDim.x, gridDim.x, partials, ticket, result,
                        soft, s_warp, s_last);
}

/* A group of a batch (kernels/batch_common.h): count cases of blockDim.x
 * threads each, each block on its case (df_batch_case_here). Each case
 * keeps its ticket in its table entry, its partials in its scratch (past
 * the header, as in df_shfl_enqueue), writes its result to its slot and
 * reports soft errors into its own set of slots (set `result`). Its
 * blocks are those holding elements (df_batch_blocks_holding); see
 * df_shfl_block. */
template <typename E, typename A>
__global__ void __launch_bounds__(DF_SHFL_BLOCK_MAX, 1)
df_shfl_batch_kernel(df_gpu_batch_case *cases, size_t count, char *scratch, char *results,
                     df_soft_dev soft)
{
    __shared__ A s_warp[DF_SHFL_WARP];
    __shared__ unsigned s_last;
    df_gpu_batch_case *c = df_batch_case_here(cases, count);
    A *partials = (A *)(scratch + c->scratch_off + DF_SHFL_SCRATCH_HEADER);
    const df_soft_dev own = df_soft_dev_at(soft, c->result); /* the case's own slots */
    df_shfl_block<E, A>((const E *)c->a, (const E *)c->b, c->n, blockIdx.x - c->first_block,
                        c->grid, c->blocks, partials, &c->ticket, df_batch_result<A>(results, c),
                        own, s_warp, s_last);
}

template <typename A>
static size_t df_shfl_scratch_bytes(uint64_t n, const df_launch *l)
{
    (void)n;
    return df_shfl_scratch_size(l, sizeof(A));
}

/* Where the last block writes the result. The backend's h_result is
 * cudaMallocHost memory, which under unified addressing the device can
 * write directly: that is the result's copy to the host, without a
 * separate device-to-host copy (about 6 us, 1.3% of a 2^28-float dot on
 * an H200). Memory the device cannot address gets d_result and a copy.
 * Returns 1 when the copy is needed. */
static inline int df_shfl_result_target(const df_gpu_ctx *ctx, void **dst)
{
    void *view = df_cuda_device_view(ctx->h_result);
    *dst = view ? view : ctx->d_result;
    return view == NULL;
}

/* The ticket is zeroed on the stream before each launch: the backend hands
 * the same scratch to every kernel, so nothing may be assumed about it. */
template <typename E, typename A>
static int df_shfl_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    const df_launch *l = &c->launch;
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    if (c->type != df_shfl_vec<E>::elem || !df_shfl_launch_ok(l)) {
        ctx->failed_call = "shfl launch check";
        snprintf(ctx->detail, sizeof ctx->detail,
                 "type %s, block %u, grid %u: needs %s, a block that is a "
                 "multiple of 32 in [32, 1024] and a grid in [1, %u]",
                 df_type_name(c->type), l->block, l->grid,
                 df_type_name(df_shfl_vec<E>::elem), DF_SHFL_GRID_MAX);
        return (int)cudaErrorInvalidConfiguration;
    }
    if (ctx->d_scratch_bytes < df_shfl_scratch_size(l, sizeof(A))) {
        ctx->failed_call = "shfl scratch check";
        snprintf(ctx->detail, sizeof ctx->detail,
                 "device scratch %zu bytes, grid %u needs %zu",
                 ctx->d_scratch_bytes, l->grid, df_shfl_scratch_size(l, sizeof(A)));
        return (int)cudaErrorInvalidValue;
    }
    void *result = NULL;
    const int copy = df_shfl_result_target(ctx, &result);
    unsigned *ticket = (unsigned *)ctx->d_scratch;
    A *partials = (A *)((char *)ctx->d_scratch + DF_SHFL_SCRATCH_HEADER);
    DF_TRY(cudaMemsetAsync(ticket, 0, sizeof *ticket, stream),
           "cudaMemsetAsync(ticket)");
    df_shfl_kernel<E, A><<<l->grid, l->block, 0, stream>>>(
        (const E *)ctx->a, (const E *)ctx->b, c->n, partials, ticket, (A *)result,
        ctx->soft);
    DF_TRY(cudaGetLastError(), "df_shfl_kernel<<<>>>");
    return copy ? df_fetch_result(ctx, ctx->d_result, sizeof(A)) : 0;
}

/* The batched launcher: one launch per group of equal block size, on the
 * group's stream. The backend resolved and checked every case's launch
 * (the kernel's limits); every group's block is checked again first, as
 * df_shfl_enqueue does. */
template <typename E, typename A>
static int df_shfl_enqueue_batch_t(df_gpu_batch *bt)
{
    for (size_t g = 0; g < bt->ngroups; g++) {
        const df_gpu_batch_group *gr = &bt->groups[g];
        if (gr->block < DF_SHFL_BLOCK_MIN || gr->block > DF_SHFL_BLOCK_MAX ||
            gr->block % DF_SHFL_WARP != 0 || gr->blocks == 0) {
            bt->failed_call = "shfl launch check";
            snprintf(bt->detail, sizeof bt->detail,
                     "batch group of block %u, %u blocks: needs a block that is a "
                     "multiple of 32 in [32, 1024]", gr->block, gr->blocks);
            return (int)cudaErrorInvalidConfiguration;
        }
    }
    return df_batch_each_group(bt, "df_shfl_batch_kernel<<<>>>", df_shfl_batch_kernel<E, A>,
                               (char *)bt->d_scratch, (char *)bt->d_results, bt->soft);
}

/* Resident blocks per SM at this block size: the persistent grid's factor. */
template <typename E, typename A>
static int df_shfl_occupancy(uint32_t block, int *blocks_per_sm)
{
    return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        blocks_per_sm, df_shfl_kernel<E, A>, (int)block, 0);
}
#endif /* __CUDACC__ */

#endif
