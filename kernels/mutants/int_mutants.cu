/* kernels/mutants/int_mutants.cu — the mutant of `int-atomic` (seed 002;
 * kernels/int_atomic.cu): that kernel with one bug.
 *
 *   m-int16-sum  thread 0 keeps its block's serial sum in a 16-bit integer
 *                (int16_t, wrapping), then atomicAdds it, sign-extended,
 *                into the int32 result: a narrow accumulator that overflows
 *                without a word. With [-50, 50] data a block of a few
 *                hundred products passes 32767.
 *
 * Why 16 bits: the parent's own bug class is silent int32 overflow, but
 * that needs a one-signed sum over more than 858,993 elements (2^31 - 1
 * over the largest product, 2500), and the generator's i32 families never
 * produce one: they keep every int32 sum in range so that correct kernels
 * stay clean. A 16-bit accumulator shows the same class, a sum wrapping
 * in a type narrower than its values, at the sizes the fuzzer generates.
 *
 * Deterministic (integer addition wraps and is associative across blocks),
 * so the host model expresses the bug; the oracle's "exact" rule catches
 * it on i32 cases. How it is compiled: twice (see Makefile), as the parent. */
#include "../kernel.h"
#include "../cuda_backend.h"

#ifndef __CUDACC__
/* ---- host model and descriptor (C11) ---- */
#include "../model_common.h"

extern const df_kernel df_mutant_int16_sum;

/* Integer arithmetic does not round: the float bound does not apply. */
static uint64_t int_atomic_height(uint64_t n, const df_launch *l)
{
    (void)n;
    (void)l;
    return 1;
}

/* Two's complement value of a 32-bit pattern, without C's
 * implementation-defined unsigned-to-signed conversion. */
static int64_t int32_from_bits(uint32_t u)
{
    return (int64_t)u - ((u >> 31) ? (int64_t)4294967296 : 0);
}

/* The 16-bit pattern sign-extended to 32 bits, in unsigned arithmetic:
 * flipping bit 15 and subtracting it back leaves patterns below 0x8000 as
 * they are and maps the rest to pattern - 2^16 (mod 2^32). */
static uint32_t sext16(uint16_t s)
{
    return ((uint32_t)s ^ 0x8000u) - 0x8000u;
}

/* The parent's model with the block sum in uint16_t: the same bits as the
 * GPU's wrapping int16 adds, without signed-overflow undefined behaviour;
 * adding a product's low 16 bits wraps to the same pattern as adding all
 * of it. */
static int int16_sum_model(const df_case *c, df_scratch *s, df_result *out)
{
    df_launch l;
    (void)s;
    if (df_model_begin(&df_mutant_int16_sum, c, &l, out) != 0)
        return -1;
    const int32_t *a = c->a, *b = c->b;
    uint32_t result = 0;
    for (uint64_t blk = 0; blk < l.grid; blk++) {
        uint16_t sum = 0;
        for (uint32_t t = 0; t < l.block; t++) {
            uint64_t i = blk * l.block + t;
            if (i < c->n)
                sum = (uint16_t)(sum + (uint16_t)((uint32_t)a[i] * (uint32_t)b[i]));
        }
        result += sext16(sum);
    }
    out->i = int32_from_bits(result);
    return 0;
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_m_int16_sum;
#endif

/* The parent's traits and launch ranges. */
const df_kernel df_mutant_int16_sum = {
    .name = "m-int16-sum",
    .origin = "seed 002 (int-atomic)",
    .summary = "block sum kept in a 16-bit int, then atomicAdd'ed into the "
               "int32 result: wraps past 32767 without a word",
    .elem = DF_I32,
    .acc = DF_I32,
    .flags = DF_K_DETERMINISTIC,
    .block_min = 1,
    .block_max = 1024,
    .block_default = 512,
    .grid_max = 0,
    .per_thread = 1,
    .max_n = 858993,
    .tree_height = int_atomic_height,
    .host_model = int16_sum_model,
    .gpu = DF_GPU_REF(df_gpu_m_int16_sum),
};

#else
/* ---- GPU kernel and launcher (CUDA C) ---- */
#include <string.h>

#include "../gpu_common.h"

/* The parent's kernel with thread 0's sum in 16 bits. Written in unsigned
 * short / unsigned int: the bits of the wrapping int16 adds and of the
 * sign extension, without relying on narrowing signed conversions. */
__global__ void __launch_bounds__(1024)
m_int16_sum_kernel(const int *a, const int *b, int *c, unsigned long long n)
{
    __shared__ unsigned int temp[1024];
    unsigned long long index =
        (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (index < n)
        temp[threadIdx.x] = (unsigned int)a[index] * (unsigned int)b[index];
    else
        temp[threadIdx.x] = 0u;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned short sum = 0; /* the bug: int16_t sum */
        for (unsigned i = 0; i < blockDim.x; i++)
            sum = (unsigned short)(sum + temp[i]);
        atomicAdd((unsigned int *)c, ((unsigned int)sum ^ 0x8000u) - 0x8000u);
    }
}

static int int16_sum_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    return df_enqueue_one_word<int>(ctx, c, m_int16_sum_kernel,
                                    "m_int16_sum_kernel<<<>>>");
}

static int int16_sum_finish(df_gpu_ctx *ctx, const df_case *c, df_result *res)
{
    int32_t v;
    (void)c;
    memcpy(&v, ctx->h_result, sizeof v);
    res->i = v; /* sign-extends */
    return 0;
}

extern "C" const struct df_gpu_ops df_gpu_m_int16_sum = {
    NULL, int16_sum_enqueue, int16_sum_finish};
#endif
