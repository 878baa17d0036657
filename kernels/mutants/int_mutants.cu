/* kernels/mutants/int_mutants.cu — the mutants of `int-atomic` (seed 002;
 * kernels/int_atomic.cu): that kernel with one bug each.
 *
 *   m-int32-acc  the parent's code unchanged, but its descriptor promises
 *                the exact dot of int32 vectors as a 64-bit result
 *                (DF_K_ACC_WIDE, no max_n) while it still accumulates in
 *                int32: the int32 accumulation that overflows without a
 *                word. The generator's int-big family (wide kernels only)
 *                gives it sums past int32; the oracle's "exact" rule sees
 *                the wrapped result.
 *
 *   m-int16-sum  thread 0 keeps its block's serial sum in a 16-bit integer
 *                (int16_t, wrapping), then atomicAdds it, sign-extended,
 *                into the int32 result: a narrow accumulator that overflows
 *                without a word. With [-50, 50] data a block of a few
 *                hundred products passes 32767.
 *
 *   m-mul24      each product is __mul24(a[i], b[i]): the low 32 bits of
 *                the product of the low 24 bits of each operand, sign-
 *                extended from bit 23 (df_mul24 in ../int_atomic_model.h,
 *                which cites the CUDA Math API). The fast multiply of
 *                compute capability 1.x GPUs, used on full-range int32
 *                data: a product can be wrong only where a factor lies
 *                outside [-2^23, 2^23) (2^24 + 3 multiplies as 3, 2^23 as
 *                -2^23). Today's i32 families keep every |x| <= 46340, so
 *                that every product fits int32: on their cases m-mul24
 *                gives the parent's result, and no rule can catch it. On a
 *                case with a large factor the "exact" rule sees the
 *                wrong sum.
 *
 * Why 16 bits: the parent's own bug class is silent int32 overflow, but
 * that needs a one-signed sum over more than 858,993 elements (2^31 - 1
 * over the largest product, 2500), and the generator's i32 families never
 * produce one: they keep every int32 sum in range so that correct kernels
 * stay clean. A 16-bit accumulator shows the same class, a sum wrapping
 * in a type narrower than its values, at the sizes the fuzzer generates.
 *
 * Deterministic (integer addition wraps and is associative across blocks),
 * so the host models express the bugs; the oracle's "exact" rule catches
 * them on i32 cases that reach them. How it is compiled: twice (see
 * Makefile), as the parent. */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"

#ifndef __CUDACC__
/* ---- host model and descriptor (C11) ---- */
#include "kernels/int_atomic_model.h"

extern const df_kernel df_mutant_int16_sum, df_mutant_mul24;

/* The parent's model with the block sum kept in 16 bits. */
static int int16_sum_model(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    return df_int_atomic_model(&df_mutant_int16_sum, c, true, false, out);
}

/* The parent's model with __mul24's products. */
static int mul24_model(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    return df_int_atomic_model(&df_mutant_mul24, c, false, true, out);
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_m_int16_sum, df_gpu_m_mul24;
extern const struct df_gpu_ops df_gpu_int_atomic;
#endif

extern const df_kernel df_mutant_int32_acc;

/* The parent's model, unchanged: the bug is in the promise. */
static int int32_acc_model(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    return df_int_atomic_model(&df_mutant_int32_acc, c, false, false, out);
}

const df_kernel df_mutant_int32_acc = {
    .name = "m-int32-acc",
    .origin = "seed 002 (int-atomic)",
    .summary = "promises the exact dot as a 64-bit result but accumulates in int32: "
               "overflows without a word past 2^31",
    .elem = DF_I32,
    .acc = DF_I32,
    .flags = DF_K_DETERMINISTIC | DF_K_ACC_WIDE,
    .block_min = 1,
    .block_max = 1024,
    .block_default = 512,
    .grid_max = 0,
    .per_thread = 1,
    .max_n = 0,
    .tree_height = df_int_atomic_height,
    .host_model = int32_acc_model,
    .gpu = DF_GPU_REF(df_gpu_int_atomic),
};

/* The parent's traits and launch ranges, which both mutants below keep. */
#define INT_ATOMIC_TRAITS                                                                  \
    .elem = DF_I32, .acc = DF_I32, .flags = DF_K_DETERMINISTIC, .block_min = 1,            \
    .block_max = 1024, .block_default = 512, .grid_max = 0, .per_thread = 1,               \
    .max_n = 858993, .tree_height = df_int_atomic_height

const df_kernel df_mutant_int16_sum = {
    .name = "m-int16-sum",
    .origin = "seed 002 (int-atomic)",
    .summary = "block sum kept in a 16-bit int, then atomicAdd'ed into the "
               "int32 result: wraps past 32767 without a word",
    INT_ATOMIC_TRAITS,
    .host_model = int16_sum_model,
    .gpu = DF_GPU_REF(df_gpu_m_int16_sum),
};

const df_kernel df_mutant_mul24 = {
    .name = "m-mul24",
    .origin = "seed 002 (int-atomic)",
    .summary = "products by __mul24: only the low 24 bits of each factor "
               "multiplied, wrong once some |x| >= 2^23",
    INT_ATOMIC_TRAITS,
    .host_model = mul24_model,
    .gpu = DF_GPU_REF(df_gpu_m_mul24),
};

#else
/* ---- GPU kernel and launcher (CUDA C) ---- */
/* The parent's kernel, launcher and finish; m-int16-sum instantiates the
 * kernel with thread 0's sum in 16 bits, m-mul24 with __mul24's products
 * (m-int32-acc runs the parent's, df_gpu_int_atomic). */
#include "kernels/int_atomic_gpu.h"

extern "C" const struct df_gpu_ops df_gpu_m_int16_sum = {
    NULL, int_atomic_enqueue<true, false>, int_atomic_finish, NULL, NULL};

extern "C" const struct df_gpu_ops df_gpu_m_mul24 = {
    NULL, int_atomic_enqueue<false, true>, int_atomic_finish, NULL, NULL};
#endif
