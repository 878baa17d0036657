/* kernels/half2_dot.cu — `half2-f16`, a dot of f16 data summed in f16 by
 * paired FMAs (`__hfma2`), and its mutant `m-half2-f32-declared`, the same
 * code declared as an f32 sum. Their card, host model, descriptors and GPU
 * entry points.
 *
 *   names       half2-f16, m-half2-f32-declared (a mutant: kernels/mutants/)
 *   origin      dotfuzz: the packed-f16 dot that half-precision code
 *               writes to halve its registers and instructions, its
 *               partial sums kept in f16
 *   GPU code    one warp, one block: lane t takes the pairs (2j, 2j + 1),
 *               j = t, t + 32, ..., as a half2 each (an element past n is
 *               0 in both vectors) and keeps two f16 partial sums, one per
 *               half, each step `__hfma2` (a b + acc rounded once to f16,
 *               nearest-even); then its low half plus its high half
 *               (`__hadd_rn`), then a warp tree, `__shfl_down_sync` by 16,
 *               8, 4, 2, 1 with `__hadd_rn`; lane 0's f16 widened to f32
 *               (half2_dot); a case's own launch is that block, a batch
 *               is one launch of a block per case (kernels/one_block.h:
 *               df_one_block_enqueue_batch)
 *   host model  the same operations in the same order in doubles, each
 *               rounded to f16 at once (reference/two_sum.h:
 *               df_lowp_add_rn; an f16 product is exact in double, so an
 *               FMA is one such sum): half2_model, every lane's chains a
 *               step at a time in vector lanes (half2_step)
 *   arithmetic  every operation IEEE binary16, to nearest even, subnormals
 *               kept: acc f16. m-half2-f32-declared declares acc f32 and an
 *               f16 result (as cublas-hdot: an f32 sum rounded once to
 *               f16), which it does not meet: the flaw "accumulates in the
 *               storage type"
 *   h(n)        ceil(n / 64) FMAs on lane 0's chain, its two halves' sum,
 *               5 tree levels: ceil(n / 64) + 6 (half2_height)
 *   differs     the one kernel whose sums round to f16; FMA lanes as shfl
 *
 * Deterministic: one warp, a fixed order, held to its host model bit for
 * bit. Cases up to 65,536 elements, as the tensor-core dots (a lane's
 * chain stays 1,024 FMAs long). */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"

#define HALF2_MAX_N 65536u
#define HALF2_LANES 32u

#ifndef __CUDACC__
/* ---- host model and descriptors (C11) ---- */
#include "kernels/model_common.h"
#include "reference/two_sum.h"

/* Element i of v as a double, 0 past n (the GPU's padding). */
static double half2_elem(const df_case *c, const void *v, uint64_t i)
{
    return i < c->n ? df_lowp_value(DF_LOWP_F16, ((const uint16_t *)v)[i]) : 0.0;
}

/* RN_f16(x y + acc) for f16 x, y and acc: __hfma2's half. */
static double half2_fma(double x, double y, double acc)
{
    return df_lowp_add_rn(DF_LOWP_F16, x * y, acc); /* x y: 22 bits, exact */
}

/* One step of every lane's two chains, over the 64 elements a and b hold
 * (all below n): acc[2t] is lane t's low half, acc[2t + 1] its high half,
 * each half2_fma'd with its element. The lanes' chains are independent, so
 * a step of all of them at once is each chain's own sequence of
 * operations, as the card orders them; the common case of each
 * (df_lowp_add_rn_fast) in a loop the compiler vectorizes, the rest
 * (slow) by df_lowp_add_rn. */
DF_MODEL_CLONES static void half2_step(const uint16_t *a, const uint16_t *b, double *acc)
{
    double p[2 * HALF2_LANES], r[2 * HALF2_LANES];
    int slow[2 * HALF2_LANES], any = 0;
    for (unsigned k = 0; k < 2 * HALF2_LANES; k++) {
        p[k] = df_lowp_value(DF_LOWP_F16, a[k]) * df_lowp_value(DF_LOWP_F16, b[k]);
        r[k] = df_lowp_add_rn_fast(DF_LOWP_F16, p[k], acc[k], &slow[k]);
        any |= slow[k];
    }
    for (unsigned k = 0; any && k < 2 * HALF2_LANES; k++)
        if (slow[k])
            r[k] = df_lowp_add_rn(DF_LOWP_F16, p[k], acc[k]);
    memcpy(acc, r, sizeof r);
}

/* The lanes' chains, their halves' sums and the warp tree (the card):
 * lane t's chain takes elements 2t and 2t + 1, then 64 further each
 * step while 2t is below n, so all of them while a step's 64 are; the
 * last step, the lanes that have one. */
static int half2_model(const df_kernel *k, const df_case *c, df_result *out)
{
    df_launch l;
    if (df_model_begin(k, c, &l, out) != 0)
        return -1;
    double acc[2 * HALF2_LANES] = {0.0}, part[HALF2_LANES];
    const uint16_t *a = c->a, *b = c->b;
    uint64_t base = 0;
    for (; base + 2 * HALF2_LANES <= c->n; base += 2 * HALF2_LANES)
        half2_step(a + base, b + base, acc);
    for (uint64_t t = 0; t < HALF2_LANES && base + 2 * t < c->n; t++) {
        uint64_t i = base + 2 * t;
        acc[2 * t] = half2_fma(half2_elem(c, a, i), half2_elem(c, b, i), acc[2 * t]);
        acc[2 * t + 1] =
            half2_fma(half2_elem(c, a, i + 1), half2_elem(c, b, i + 1), acc[2 * t + 1]);
    }
    for (uint64_t t = 0; t < HALF2_LANES; t++)
        part[t] = df_lowp_add_rn(DF_LOWP_F16, acc[2 * t], acc[2 * t + 1]);
    for (uint64_t off = HALF2_LANES / 2; off > 0; off /= 2)
        for (uint64_t t = 0; t < off; t++) /* lanes past off add what lane 0 never reads */
            part[t] = df_lowp_add_rn(DF_LOWP_F16, part[t], part[t + off]);
    out->f = part[0];
    return 0;
}

extern const df_kernel df_kernel_half2_f16, df_mutant_half2_f32_declared;

static int half2_f16_model_run(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    return half2_model(&df_kernel_half2_f16, c, out);
}
static int half2_f32_declared_model_run(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    return half2_model(&df_mutant_half2_f32_declared, c, out);
}

static uint64_t half2_height(uint64_t n, const df_launch *l)
{
    (void)l;
    return (n + 2 * HALF2_LANES - 1) / (2 * HALF2_LANES) + 6;
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_half2;
#endif

#define HALF2_LAUNCH                                                           \
    .elem = DF_F16,                                                            \
    .flags = DF_K_DETERMINISTIC | DF_K_ANY_ALIGNMENT | DF_K_GRID_FREE |         \
             DF_K_MODEL_IN_BOUNDS,                                             \
    .block_min = HALF2_LANES, .block_max = HALF2_LANES, .block_default = HALF2_LANES, \
    .grid_max = 1, .per_thread = 1, .max_n = HALF2_MAX_N, .tree_height = half2_height, \
    .gpu = DF_GPU_REF(df_gpu_half2)

const df_kernel df_kernel_half2_f16 = {
    .name = "half2-f16",
    .origin = "dotfuzz",
    .summary = "f16 in, summed in f16: __hfma2 on half2 pairs, a warp tree of f16 adds",
    .acc = DF_F16,
    HALF2_LAUNCH,
    .host_model = half2_f16_model_run,
};

const df_kernel df_mutant_half2_f32_declared = {
    .name = "m-half2-f32-declared",
    .origin = "dotfuzz (half2-f16)",
    .summary = "half2-f16 declared as an f32 sum rounded to f16: accumulates in the "
               "storage type",
    .acc = DF_F32,
    .result = DF_F16,
    HALF2_LAUNCH,
    .host_model = half2_f32_declared_model_run,
};
#else
/* ---- GPU kernel and launcher (CUDA C) ---- */
#include <cuda_fp16.h>

#include "kernels/one_block.h"

/* Element i of v as an f16, +0 past n. Loaded a half at a time: a case's
 * vectors may start at any element, so a half2 may be unaligned. */
__device__ __forceinline__ __half half2_load(const unsigned short *v, unsigned i, unsigned n)
{
    return __ushort_as_half(i < n ? v[i] : (unsigned short)0);
}

/* The card's GPU code: one warp. */
__device__ __forceinline__ void half2_dot(const unsigned short *a, const unsigned short *b,
                                          unsigned n, float *out)
{
    unsigned t = threadIdx.x;
    __half2 acc = __float2half2_rn(0.0f);
    for (unsigned i = 2 * t; i < n; i += 2 * HALF2_LANES) {
        __half2 x = __halves2half2(half2_load(a, i, n), half2_load(a, i + 1, n));
        __half2 y = __halves2half2(half2_load(b, i, n), half2_load(b, i + 1, n));
        acc = __hfma2(x, y, acc);
    }
    /* __hadd_rn: add.rn.f16, which no compiler contracts into an FMA */
    __half s = __hadd_rn(__low2half(acc), __high2half(acc));
    for (unsigned off = HALF2_LANES / 2; off > 0; off /= 2)
        s = __hadd_rn(s, __shfl_down_sync(0xffffffffu, s, off));
    if (t == 0)
        *out = __half2float(s);
}

/* The case type of kernels/one_block.h. */
struct half2_case {
    typedef unsigned short elem;
    static constexpr unsigned threads = HALF2_LANES;
    static constexpr const char *name = "half2_dot";
    static __device__ void dot(const elem *a, const elem *b, unsigned n, float *out)
    {
        half2_dot(a, b, n, out);
    }
};

extern "C" const struct df_gpu_ops df_gpu_half2 = DF_ONE_BLOCK_OPS(half2_case);
#endif
