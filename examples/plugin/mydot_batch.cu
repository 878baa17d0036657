/* mydot_batch.cu — an example dotfuzz plugin with the batched device form
 * (ABI version 3): a whole batch of cases in one launch per block size,
 * each case's result into its slot, beside the per-case device form that
 * single cases take. Both forms run the same device code, so they agree
 * bit for bit, and a host model repeats it on the CPU. Loaded with
 * `dotfuzz --kernel-lib mydot_batch.so`; the ABI is
 * include/dotfuzz/plugin.h. Build (examples/plugin/Makefile's `cuda`
 * target, or `make example-plugin-cuda` at the top):
 *     nvcc -O3 -arch=sm_90 -Xcompiler -fPIC,-ffp-contract=off -shared \
 *          -I include -o mydot_batch.so examples/plugin/mydot_batch.cu
 *
 * Two kernels, f32 into f32, one device code:
 *   mydot-batch       two vectors of n elements (at any alignment)
 *   mydot-batch-blas  BLAS arguments (DOTFUZZ_BLAS): dot(n_arg, x, inc_a,
 *                     y, inc_b) on the call's arrays: n_arg <= 0 reads
 *                     nothing and gives 0, a negative increment reads its
 *                     vector from the end of the footprint, a zero one
 *                     reads element 0 every time
 *
 * The map. The grid is derived, ceil(n / (8 block)) blocks (at least 1) of
 * block threads, a multiple of 32; T = grid * block threads. Thread t
 * takes elements t, t + T, t + 2T, ... (row r: element t + r T), row r into
 * accumulator r % 4 with one fmaf, four rows' loads in flight. Then
 * (acc0 + acc1) + (acc2 + acc3); a __shfl_down_sync tree per warp (offsets
 * 16, 8, 4, 2, 1); the warp totals through shared memory into warp 0 and
 * the same tree (missing warps +0). A one-block case's block writes its
 * total as the result. Otherwise each block writes its partial into the
 * case's scratch and takes a ticket; the last one sums the partials in a
 * fixed order (its thread j adds partials j, j + block, ... to 0) and runs
 * the same block tree. Every run does the same operations in the same
 * order: the kernels are deterministic and the model repeats them bit for
 * bit.
 *
 * The batched form launches every case's blocks at once (one call per
 * block size); block X's thread 0 finds its case by binary search on
 * first_block. A case's ticket is its table entry's (0 on entry), its
 * partials are in its scratch. The per-case form zeroes a ticket at the
 * start of its scratch first.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dotfuzz/plugin.h"

#define WARP 32u
#define BLOCK_MAX 1024u
#define LANES 4u            /* accumulators per thread */
#define PER_THREAD 8u       /* elements per thread of the derived grid */
#define SCRATCH_HEADER 256u /* scratch: the ticket, then one partial per block */

/* What a kernel reads: m elements of x and y at their increments (1, 1 for
 * plain vectors). */
typedef struct call {
    const float *x, *y;
    uint64_t m;
    int32_t inc_x, inc_y;
} call;

/* The call in a case's arguments: a BLAS kernel's n and increments are
 * the call's, a plain kernel's are n, 1, 1. */
__host__ __device__ static inline call make_call(const void *a, const void *b, uint64_t n,
                                                 bool blas, int32_t inc_a, int32_t inc_b,
                                                 int64_t n_arg)
{
    call c = {(const float *)a, (const float *)b, n, 1, 1};
    if (blas) {
        c.m = n_arg > 0 ? (uint64_t)n_arg : 0;
        c.inc_x = inc_a;
        c.inc_y = inc_b;
    }
    return c;
}

/* Where element i of m sits in its array at increment inc (reference
 * BLAS: a negative increment starts from the end of the footprint). */
__host__ __device__ static inline uint64_t at(uint64_t i, uint64_t m, int32_t inc)
{
    if (inc >= 0)
        return i * (uint64_t)inc;
    return (m - 1 - i) * (uint64_t)(-(int64_t)inc);
}

/* ---- device code, shared by both forms ---- */

/* Element i of v: unit increments index directly (the same element). */
template <bool UNIT>
__device__ __forceinline__ float load(const float *v, uint64_t i, uint64_t m, int32_t inc)
{
    return __ldg(v + (UNIT ? i : at(i, m, inc)));
}

/* Thread t's sum of its rows, T threads in all. */
template <bool UNIT>
__device__ __forceinline__ float thread_sum(const call &c, uint64_t t, uint64_t T)
{
    float acc[LANES] = {0.0f, 0.0f, 0.0f, 0.0f};
    uint64_t i = t;
    for (; i + (LANES - 1) * T < c.m; i += LANES * T) {
        float x[LANES], y[LANES];
#pragma unroll
        for (unsigned k = 0; k < LANES; k++) {
            x[k] = load<UNIT>(c.x, i + k * T, c.m, c.inc_x);
            y[k] = load<UNIT>(c.y, i + k * T, c.m, c.inc_y);
        }
#pragma unroll
        for (unsigned k = 0; k < LANES; k++)
            acc[k] = fmaf(x[k], y[k], acc[k]);
    }
#pragma unroll
    for (unsigned k = 0; k < LANES - 1; k++) /* the last 0 to 3 rows */
        if (i + k * T < c.m)
            acc[k] = fmaf(load<UNIT>(c.x, i + k * T, c.m, c.inc_x),
                          load<UNIT>(c.y, i + k * T, c.m, c.inc_y), acc[k]);
    return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (unsigned off = WARP / 2; off > 0; off /= 2)
        v = v + __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

/* The block's total, in thread 0 (every warp is whole: the block is a
 * multiple of 32). s_warp: WARP floats of shared memory. */
__device__ __forceinline__ float block_sum(float v, float *s_warp)
{
    const unsigned lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
    v = warp_sum(v);
    if (lane == 0)
        s_warp[warp] = v;
    __syncthreads();
    float r = 0.0f;
    if (warp == 0) {
        r = lane < blockDim.x / WARP ? s_warp[lane] : 0.0f;
        r = warp_sum(r);
    }
    return r;
}

/* Block blk of a case of grid blocks: the whole kernel, with the case's
 * block index and grid in place of blockIdx.x and gridDim.x. */
template <bool UNIT>
__device__ __forceinline__ void dot_block(const call &c, unsigned blk, unsigned grid,
                                          float *partials, unsigned *ticket, float *result,
                                          float *s_warp, unsigned *s_last)
{
    const uint64_t T = (uint64_t)grid * blockDim.x;
    const float total =
        block_sum(thread_sum<UNIT>(c, (uint64_t)blk * blockDim.x + threadIdx.x, T), s_warp);
    if (grid == 1) {
        if (threadIdx.x == 0)
            *result = total;
        return;
    }
    if (threadIdx.x == 0) {
        partials[blk] = total;
        __threadfence(); /* the partial before the ticket */
        *s_last = atomicAdd(ticket, 1u) == grid - 1;
        if (*s_last)
            __threadfence(); /* every partial after the last ticket */
    }
    __syncthreads();
    if (!*s_last)
        return;
    float s = 0.0f;
    for (unsigned p = threadIdx.x; p < grid; p += blockDim.x)
        s = s + __ldcg(partials + p); /* from L2, past this SM's L1 */
    s = block_sum(s, s_warp);
    if (threadIdx.x == 0)
        *result = s;
}

/* dot_block with the unit-increment loads where both increments are 1. */
__device__ __forceinline__ void dot_any(const call &c, unsigned blk, unsigned grid,
                                        float *partials, unsigned *ticket, float *result)
{
    __shared__ float s_warp[WARP];
    __shared__ unsigned s_last;
    if (c.inc_x == 1 && c.inc_y == 1)
        dot_block<true>(c, blk, grid, partials, ticket, result, s_warp, &s_last);
    else
        dot_block<false>(c, blk, grid, partials, ticket, result, s_warp, &s_last);
}

__global__ void __launch_bounds__(BLOCK_MAX) case_kernel(call c, float *partials,
                                                         unsigned *ticket, float *result)
{
    dot_any(c, blockIdx.x, gridDim.x, partials, ticket, result);
}

/* One call's cases: thread 0 finds the block's case (the header's binary
 * search on first_block) and tells the block. */
template <bool BLAS>
__global__ void __launch_bounds__(BLOCK_MAX)
batch_kernel(dotfuzz_batch_case *cases, uint64_t count, char *scratch, char *results)
{
    __shared__ uint64_t s_case;
    if (threadIdx.x == 0)
        s_case = dotfuzz_batch_case_of(cases, count, blockIdx.x);
    __syncthreads();
    dotfuzz_batch_case *bc = cases + s_case;
    const call c = make_call(bc->a, bc->b, bc->n, BLAS, bc->inc_a, bc->inc_b, bc->n_arg);
    dot_any(c, blockIdx.x - bc->first_block, bc->grid,
            (float *)(scratch + bc->scratch_off + SCRATCH_HEADER), &bc->ticket,
            (float *)(results + (size_t)16 * bc->result));
}

/* ---- the forms ---- */

static bool block_ok(uint32_t block) { return block && block % WARP == 0 && block <= BLOCK_MAX; }

template <bool BLAS>
static int dot_device(const void *d_a, const void *d_b, uint64_t n, const dotfuzz_launch *l,
                      void *d_result, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    if (!block_ok(l->block) || !l->grid)
        return (int)cudaErrorInvalidConfiguration;
    if (!l->d_scratch)
        return -1;
    unsigned *ticket = (unsigned *)l->d_scratch;
    if (l->grid > 1) {
        cudaError_t e = cudaMemsetAsync(ticket, 0, sizeof *ticket, st);
        if (e != cudaSuccess)
            return (int)e;
    }
    const call c = make_call(d_a, d_b, n, BLAS, l->inc_a, l->inc_b, l->n_arg);
    case_kernel<<<l->grid, l->block, 0, st>>>(
        c, (float *)((char *)l->d_scratch + SCRATCH_HEADER), ticket, (float *)d_result);
    return (int)cudaGetLastError();
}

template <bool BLAS> static int dot_device_batch(const dotfuzz_batch *bt)
{
    if (!block_ok(bt->block) || !bt->blocks)
        return (int)cudaErrorInvalidConfiguration;
    batch_kernel<BLAS><<<bt->blocks, bt->block, 0, (cudaStream_t)bt->stream>>>(
        bt->d_cases, bt->count, (char *)bt->d_scratch, (char *)bt->d_results);
    return (int)cudaGetLastError();
}

/* The ticket's header and one partial per block. */
static uint64_t scratch_bytes(uint64_t n, const dotfuzz_launch *l)
{
    (void)n;
    return SCRATCH_HEADER + (uint64_t)l->grid * sizeof(float);
}

/* ---- the host model: the same operations in the same order ---- */

/* Lane 0 of warp_sum over v[0..31]. */
static float warp_model(float *v)
{
    for (unsigned off = WARP / 2; off > 0; off /= 2)
        for (unsigned l = 0; l < off; l++)
            v[l] = v[l] + v[l + off];
    return v[0];
}

/* block_sum over the block's values v[0..block). */
static float block_model(const float *v, unsigned block)
{
    float w[WARP], lanes[WARP];
    for (unsigned i = 0; i < WARP; i++) {
        w[i] = 0.0f;
        if (i < block / WARP) {
            memcpy(lanes, v + (size_t)i * WARP, sizeof lanes);
            w[i] = warp_model(lanes);
        }
    }
    return warp_model(w);
}

static float thread_model(const call *c, uint64_t t, uint64_t T)
{
    float acc[LANES] = {0.0f, 0.0f, 0.0f, 0.0f};
    uint64_t r = 0;
    for (uint64_t i = t; i < c->m; i += T, r++)
        acc[r % LANES] = fmaf(c->x[at(i, c->m, c->inc_x)], c->y[at(i, c->m, c->inc_y)],
                              acc[r % LANES]);
    return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

template <bool BLAS>
static int model(const void *a, const void *b, uint64_t n, const dotfuzz_launch *l, void *out)
{
    const unsigned B = l->block, G = l->grid;
    if (!block_ok(B) || !G)
        return -1;
    const call c = make_call(a, b, n, BLAS, l->inc_a, l->inc_b, l->n_arg);
    const uint64_t T = (uint64_t)G * B;
    float v[BLOCK_MAX];
    float *partials = (float *)malloc((size_t)G * sizeof(float));
    if (!partials)
        return -1;
    for (unsigned blk = 0; blk < G; blk++) {
        for (unsigned j = 0; j < B; j++)
            v[j] = thread_model(&c, (uint64_t)blk * B + j, T);
        partials[blk] = block_model(v, B);
    }
    float r = partials[0];
    if (G > 1) {
        for (unsigned j = 0; j < B; j++) {
            float s = 0.0f;
            for (uint64_t p = j; p < G; p += B)
                s = s + partials[p];
            v[j] = s;
        }
        r = block_model(v, B);
    }
    free(partials);
    memcpy(out, &r, sizeof r);
    return 0;
}

static uint64_t ceil_log2(uint64_t x)
{
    uint64_t k = 0;
    while (((uint64_t)1 << k) < x)
        k++;
    return k;
}

/* Tree height: a lane's fmafs (ceil(rows / 4), rows = ceil(n / T)) plus
 * one for the product; the two lane additions; the block tree (5 warp
 * levels, then ceil(log2 warps)); with more blocks, the last block's
 * ceil(grid / block) additions of partials and its block tree. */
static uint64_t height(uint64_t n, const dotfuzz_launch *l)
{
    const uint64_t B = l->block ? l->block : WARP, G = l->grid ? l->grid : 1, T = G * B;
    const uint64_t rows = (n + T - 1) / T, levels = 5 + ceil_log2((B + WARP - 1) / WARP);
    uint64_t h = (rows + LANES - 1) / LANES + 1 + 2 + levels;
    if (G > 1)
        h += (G + B - 1) / B + levels;
    return h;
}

static const dotfuzz_kernel kernels[] = {
    {"mydot-batch", "example plugin, batched device form: fmaf lanes, shuffle trees, last block",
     DOTFUZZ_F32, DOTFUZZ_F32,
     DOTFUZZ_DETERMINISTIC | DOTFUZZ_BLOCK_WARP | DOTFUZZ_ANY_ALIGNMENT, 32, BLOCK_MAX, 256, 0,
     PER_THREAD, 0, height, 0, dot_device<false>, model<false>, 0, scratch_bytes,
     dot_device_batch<false>},
    {"mydot-batch-blas", "mydot-batch with BLAS arguments: increments of any sign, n <= 0",
     DOTFUZZ_F32, DOTFUZZ_F32, DOTFUZZ_DETERMINISTIC | DOTFUZZ_BLOCK_WARP | DOTFUZZ_BLAS, 32,
     BLOCK_MAX, 256, 0, PER_THREAD, 0, height, 0, dot_device<true>, model<true>, 0,
     scratch_bytes, dot_device_batch<true>},
};

static const dotfuzz_plugin plugin = {
    DOTFUZZ_PLUGIN_HEADER, sizeof kernels / sizeof kernels[0], "mydot_batch", kernels};

const dotfuzz_plugin *dotfuzz_plugin_entry(void) { return &plugin; }
