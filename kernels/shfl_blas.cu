/* kernels/shfl_blas.cu — `shfl-blas`: shfl as a BLAS routine,
 * sdot(n_arg, x, incx, y, incy) on the call's strided buffers; and its
 * mutants, the stride bugs BLAS libraries have shipped. Their card, host
 * models, descriptors and launchers.
 *
 *   names       shfl-blas; mutants m-blas-neg-wrong-end, m-blas-neg-skipped,
 *               m-blas-zero-inc, m-blas-overrun
 *   origin      seed 004 (shfl), with reference BLAS's arguments
 *               (docs/blas.md)
 *   GPU code    gather_kernel: element i of each vector read where the
 *               call reads it (kernels/blas.h: df_blas_pos) into a
 *               contiguous copy in the scratch, then shfl's kernel
 *               (kernels/shfl_common.h: df_shfl_enqueue) on the copies;
 *               batches: gather_batch_kernel, then shfl's batched launcher
 *   host model  the same gather on the host, then shfl's model
 *               (kernels/shfl_model.h) on the copies; n_arg <= 0: 0
 *   h(n, l)     shfl's, with both copies 256-byte aligned (offsets 0)
 *   differs     takes BLAS arguments (DF_K_BLAS): increments of any sign,
 *               zero, n <= 0; its mutants one case a launch
 *
 * The gather is where a routine's stride logic lives, so each mutant is one
 * flaw in it (the same flaw in its model):
 *   m-blas-neg-wrong-end  a negative increment read from the buffer's
 *                         start, as if |inc| (the vector reversed)
 *   m-blas-neg-skipped    a negative increment returns 0 without reading
 *                         (rocBLAS once returned success this way)
 *   m-blas-zero-inc       a zero increment taken as 1 (reads past the
 *                         one-element buffer)
 *   m-blas-overrun        n + 1 elements gathered and summed (a loop bound
 *                         i <= n): one past the footprint
 */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"
#include "kernels/shfl_common.h"

typedef enum shfl_blas_flaw {
    FLAW_NONE,
    FLAW_NEG_WRONG_END,
    FLAW_NEG_SKIPPED,
    FLAW_ZERO_INC,
    FLAW_OVERRUN,
} shfl_blas_flaw;

/* Where element i of an n-element call sits in its buffer at increment
 * inc, as the gather with flaw computes it (kernels/blas.h's df_blas_pos
 * without a flaw; an overrun's element n lies past the footprint). */
static inline DF_SHFL_HD int64_t shfl_blas_at(int64_t i, int64_t n, int32_t inc,
                                              shfl_blas_flaw flaw)
{
    if (flaw == FLAW_ZERO_INC && inc == 0)
        inc = 1;
    if (flaw == FLAW_NEG_WRONG_END && inc < 0)
        inc = -inc;
    int64_t start = inc < 0 ? (1 - n) * (int64_t)inc : 0;
    return start + i * (int64_t)inc;
}

/* The elements the routine sums: n, one more with the overrun, none when
 * n_arg <= 0 or a skipped negative increment returns early. */
static inline DF_SHFL_HD uint64_t shfl_blas_count(const df_blas *b, shfl_blas_flaw flaw)
{
    if (b->n_arg <= 0 ||
        (flaw == FLAW_NEG_SKIPPED && (b->inc_a < 0 || b->inc_b < 0)))
        return 0;
    return (uint64_t)b->n_arg + (flaw == FLAW_OVERRUN);
}

#ifndef __CUDACC__
/* ---- host models and descriptors (C11) ---- */
#include <math.h>

#include "kernels/blas.h"
#include "kernels/model_common.h"

#define SHFL_NAME shfl_blas_f32
#define SHFL_ELEM float
#define SHFL_ACC float
#define SHFL_TYPE DF_F32
#define SHFL_V 4
#define SHFL_FMA(x, y, z) fmaf((x), (y), (z))
#include "kernels/shfl_model.h"

/* dst[i] = src[at + i step] for i < m, from a buffer of fp elements
 * between guard zones of DF_GUARD_ELEMS (the backends lay every call's
 * buffers out so). A mutant's read past the guards (a zero increment taken
 * as 1 reads n elements of a one-element buffer) gets the guard's NaN, as a
 * read inside them would, not memory the host does not own. */
static void shfl_blas_gather(float *dst, const float *src, int64_t at, int64_t step, uint64_t m,
                             uint64_t fp)
{
    const int64_t lo = -(int64_t)DF_GUARD_ELEMS, hi = (int64_t)fp + DF_GUARD_ELEMS;
    int64_t last = m ? at + (int64_t)(m - 1) * step : at;
    if (at >= lo && at < hi && last >= lo && last < hi) { /* affine: its ends bound it */
        for (uint64_t i = 0; i < m; i++)
            dst[i] = src[at + (int64_t)i * step];
        return;
    }
    for (uint64_t i = 0; i < m; i++) {
        int64_t p = at + (int64_t)i * step;
        dst[i] = p >= lo && p < hi ? src[p] : NAN;
    }
}

/* k's model of case c, whose a and b are the call's buffers (the backend
 * lays them out, guards around them): the gather, then shfl's model on the
 * copies, which sit at offset 0 as the GPU's do in its scratch. */
static int shfl_blas_model(const df_kernel *k, const df_case *c, df_scratch *s,
                           shfl_blas_flaw flaw, df_result *out)
{
    df_launch l;
    if (df_blas_model_begin(k, c, &l, out) != 0)
        return -1;
    uint64_t m = shfl_blas_count(&c->blas, flaw);
    float *x = df_scratch_reserve(s, (size_t)(2 * m + 2) * sizeof(float));
    if (!x) {
        df_result_error(out, k->name, c, "out of host memory");
        return -1;
    }
    float *y = x + m + 1;
    /* shfl_blas_at is start + i step: both found once, so that a unit
     * increment is a plain copy loop; only for a call that sums elements
     * (n_arg > 0), whose start (1 - n) inc is in range (n_arg may be as
     * low as INT64_MIN) */
    const float *bx = c->a, *by = c->b;
    int64_t n = c->blas.n_arg, ax = 0, ay = 0, sx = 0, sy = 0;
    if (m) {
        ax = shfl_blas_at(0, n, c->blas.inc_a, flaw);
        ay = shfl_blas_at(0, n, c->blas.inc_b, flaw);
        sx = shfl_blas_at(1, n, c->blas.inc_a, flaw) - ax;
        sy = shfl_blas_at(1, n, c->blas.inc_b, flaw) - ay;
    }
    shfl_blas_gather(x, bx, ax, sx, m, df_blas_footprint(c->n, c->blas.inc_a));
    shfl_blas_gather(y, by, ay, sy, m, df_blas_footprint(c->n, c->blas.inc_b));
    df_case g = *c;
    g.a = x;
    g.b = y;
    g.n = m;
    g.launch = l;
    g.launch.offset_a = g.launch.offset_b = 0;
    return shfl_blas_f32_model(&g, s, out);
}

extern const df_kernel df_kernel_shfl_blas;
extern const df_kernel df_mutant_blas_neg_wrong_end, df_mutant_blas_neg_skipped,
    df_mutant_blas_zero_inc, df_mutant_blas_overrun;

#define SHFL_BLAS_MODEL(fn, kernel, flaw)                                      \
    static int fn(const df_case *c, df_scratch *s, df_result *out)             \
    {                                                                          \
        return shfl_blas_model(&kernel, c, s, flaw, out);                      \
    }
SHFL_BLAS_MODEL(blas_model, df_kernel_shfl_blas, FLAW_NONE)
SHFL_BLAS_MODEL(neg_wrong_end_model, df_mutant_blas_neg_wrong_end, FLAW_NEG_WRONG_END)
SHFL_BLAS_MODEL(neg_skipped_model, df_mutant_blas_neg_skipped, FLAW_NEG_SKIPPED)
SHFL_BLAS_MODEL(zero_inc_model, df_mutant_blas_zero_inc, FLAW_ZERO_INC)
SHFL_BLAS_MODEL(overrun_model, df_mutant_blas_overrun, FLAW_OVERRUN)

/* shfl's h with V = 4 on copies at offset 0; one more element for the
 * overrun's height bound is not needed (its bug is the NaN it reads). */
static uint64_t shfl_blas_height(uint64_t n, const df_launch *l)
{
    df_launch z = *l;
    z.offset_a = z.offset_b = 0;
    return df_shfl_tree_height(n, &z, 4);
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_shfl_blas, df_gpu_m_blas_neg_wrong_end,
    df_gpu_m_blas_neg_skipped, df_gpu_m_blas_zero_inc, df_gpu_m_blas_overrun;
#endif

#define SHFL_BLAS_LAUNCH                                                       \
    .elem = DF_F32, .acc = DF_F32,                                             \
    .flags = DF_K_DETERMINISTIC | DF_K_GRID_FREE | DF_K_BLOCK_WARP | DF_K_BLAS | \
             DF_K_ENQUEUE_THREADS,                                             \
    .block_min = DF_SHFL_BLOCK_MIN, .block_max = DF_SHFL_BLOCK_MAX,            \
    .block_default = DF_SHFL_BLOCK_DEFAULT, .grid_max = DF_SHFL_GRID_MAX,      \
    .per_thread = DF_SHFL_PER_THREAD, .max_n = 0, .tree_height = shfl_blas_height

const df_kernel df_kernel_shfl_blas = {
    .name = "shfl-blas",
    .origin = "seed 004 (shfl)",
    .summary = "shfl as sdot(n, x, incx, y, incy): increments of any sign, zero, n <= 0",
    SHFL_BLAS_LAUNCH,
    .host_model = blas_model,
    .gpu = DF_GPU_REF(df_gpu_shfl_blas),
};

#define SHFL_BLAS_MUTANT(var, nm, sum, fn, ops)                                \
    const df_kernel var = {.name = nm, .origin = "dotfuzz (shfl-blas)", .summary = sum, \
                           SHFL_BLAS_LAUNCH, .host_model = fn, .gpu = DF_GPU_REF(ops)}
SHFL_BLAS_MUTANT(df_mutant_blas_neg_wrong_end, "m-blas-neg-wrong-end",
                 "a negative increment read from the buffer's start: the vector reversed",
                 neg_wrong_end_model, df_gpu_m_blas_neg_wrong_end);
SHFL_BLAS_MUTANT(df_mutant_blas_neg_skipped, "m-blas-neg-skipped",
                 "a negative increment returns 0 unread (rocBLAS's success without computing)",
                 neg_skipped_model, df_gpu_m_blas_neg_skipped);
SHFL_BLAS_MUTANT(df_mutant_blas_zero_inc, "m-blas-zero-inc",
                 "a zero increment taken as 1: reads past its one-element buffer",
                 zero_inc_model, df_gpu_m_blas_zero_inc);
SHFL_BLAS_MUTANT(df_mutant_blas_overrun, "m-blas-overrun",
                 "n + 1 elements summed (a loop bound i <= n): one past the footprint",
                 overrun_model, df_gpu_m_blas_overrun);
#else
/* ---- GPU kernels and launchers (CUDA C) ---- */
#include "kernels/gpu_common.h"

/* Element i of each vector, for i < m, from where the call (with flaw)
 * reads it into the contiguous copies x and y: a grid-stride loop. */
template <shfl_blas_flaw F>
__global__ void gather_kernel(const float *bx, const float *by, df_blas b, uint64_t m,
                              float *x, float *y)
{
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < m;
         i += (uint64_t)gridDim.x * blockDim.x) {
        x[i] = bx[shfl_blas_at((int64_t)i, b.n_arg, b.inc_a, F)];
        y[i] = by[shfl_blas_at((int64_t)i, b.n_arg, b.inc_b, F)];
    }
}

/* The scratch: shfl's (ticket, partials), then the two copies, each
 * 256-byte aligned; m elements each, one more for the overrun. */
static size_t copies_at(const df_launch *l)
{
    return (df_shfl_scratch_size(l, sizeof(float)) + 255) / 256 * 256;
}
static __host__ __device__ size_t copy_bytes(uint64_t n)
{
    return ((size_t)(n + 1) * sizeof(float) + 255) / 256 * 256;
}

static size_t shfl_blas_scratch(uint64_t n, const df_launch *l)
{
    return copies_at(l) + 2 * copy_bytes(n);
}

/* The gather, then shfl on the copies: ctx's scratch and result, the
 * case's launch, n the gathered count. */
template <shfl_blas_flaw F>
static int shfl_blas_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    if (!c->blas.on || ctx->d_scratch_bytes < shfl_blas_scratch(c->n, &c->launch)) {
        ctx->failed_call = "shfl-blas case check";
        snprintf(ctx->detail, sizeof ctx->detail, "BLAS arguments %s, scratch %zu bytes",
                 c->blas.on ? "on" : "off", ctx->d_scratch_bytes);
        return (int)cudaErrorInvalidValue;
    }
    uint64_t m = shfl_blas_count(&c->blas, F);
    float *x = (float *)((char *)ctx->d_scratch + copies_at(&c->launch));
    float *y = (float *)((char *)x + copy_bytes(c->n));
    if (m > 0) {
        unsigned grid = (unsigned)(m / 256 + 1 < 4096 ? m / 256 + 1 : 4096);
        gather_kernel<F><<<grid, 256, 0, (cudaStream_t)ctx->stream>>>(
            (const float *)ctx->a, (const float *)ctx->b, c->blas, m, x, y);
        DF_TRY(cudaGetLastError(), "gather_kernel<<<>>>");
    }
    df_gpu_ctx g = *ctx;
    g.a = x;
    g.b = y;
    df_case gc = *c;
    gc.n = m;
    gc.launch.offset_a = gc.launch.offset_b = 0;
    int rc = df_shfl_enqueue<float, float>(&g, &gc);
    ctx->failed_call = g.failed_call;
    memcpy(ctx->detail, g.detail, sizeof ctx->detail);
    return rc;
}

/* ---- shfl-blas a batch at a time ----
 * Each group's gather, then its cases pointed at their copies, then
 * shfl's batched launcher on the copies, each group's three launches in
 * order on its stream. A case's copies lie where its own launch puts them
 * (copies_at, from its grid), so shfl reads the same elements from the
 * same places in its scratch and gives the same bits. The mutants run a
 * case at a time: they gather other counts than n (an overrun's n + 1, a
 * skipped call's 0), where shfl's batched blocks are counted from n. */

/* copies_at on the device, from the case's grid */
__device__ __forceinline__ size_t copies_at_dev(uint32_t grid)
{
    return (DF_SHFL_SCRATCH_HEADER + (size_t)grid * sizeof(float) + 255) / 256 * 256;
}

/* Block blockIdx.x of a group: the gather of its case (its n elements,
 * n = n_arg or 0), over the blocks shfl's batched launch runs for it. */
__global__ void gather_batch_kernel(df_gpu_batch_case *cases, size_t count, char *scratch)
{
    const df_gpu_batch_case *c = df_batch_case_here(cases, count);
    float *x = (float *)(scratch + c->scratch_off + copies_at_dev(c->grid));
    float *y = (float *)((char *)x + copy_bytes(c->n));
    const float *bx = (const float *)c->a, *by = (const float *)c->b;
    const uint64_t stride = (uint64_t)c->blocks * blockDim.x;
    for (uint64_t i = (uint64_t)(blockIdx.x - c->first_block) * blockDim.x + threadIdx.x;
         i < c->n; i += stride) {
        x[i] = bx[shfl_blas_at((int64_t)i, c->n_arg, c->inc_a, FLAW_NONE)];
        y[i] = by[shfl_blas_at((int64_t)i, c->n_arg, c->inc_b, FLAW_NONE)];
    }
}

/* Case j of cases[0 .. count) now reads its copies, at offset 0. */
__global__ void retarget_batch_kernel(df_gpu_batch_case *cases, size_t count, char *scratch)
{
    const size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count)
        return;
    df_gpu_batch_case *c = cases + j;
    char *x = scratch + c->scratch_off + copies_at_dev(c->grid);
    c->a = x;
    c->b = x + copy_bytes(c->n);
}

static int shfl_blas_enqueue_batch(df_gpu_batch *bt)
{
    char *scratch = (char *)bt->d_scratch;
    int rc = df_batch_each_group(bt, "gather_batch_kernel<<<>>>", gather_batch_kernel, scratch);
    for (size_t g = 0; rc == 0 && g < bt->ngroups; g++) {
        const df_gpu_batch_group *gr = &bt->groups[g];
        rc = df_batch_launch(bt, df_batch_stream(bt, g), "retarget_batch_kernel<<<>>>",
                             retarget_batch_kernel, dim3(df_blocks_for(gr->count, 256)), 256,
                             bt->d_cases + gr->first, gr->count, scratch);
    }
    return rc == 0 ? df_shfl_enqueue_batch(bt) : rc;
}

extern "C" const struct df_gpu_ops df_gpu_shfl_blas = {
    shfl_blas_scratch, shfl_blas_enqueue<FLAW_NONE>, df_finish_float<float>,
    shfl_blas_enqueue_batch, df_batch_blocks_holding};

#define SHFL_BLAS_OPS(var, flaw)                                               \
    extern "C" const struct df_gpu_ops var = {shfl_blas_scratch, shfl_blas_enqueue<flaw>, \
                                              df_finish_float<float>, NULL, NULL}
SHFL_BLAS_OPS(df_gpu_m_blas_neg_wrong_end, FLAW_NEG_WRONG_END);
SHFL_BLAS_OPS(df_gpu_m_blas_neg_skipped, FLAW_NEG_SKIPPED);
SHFL_BLAS_OPS(df_gpu_m_blas_zero_inc, FLAW_ZERO_INC);
SHFL_BLAS_OPS(df_gpu_m_blas_overrun, FLAW_OVERRUN);
#endif
