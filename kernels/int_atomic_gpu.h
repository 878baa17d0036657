/* int_atomic_gpu.h — the GPU half of `int-atomic` (seed 002; CUDA C),
 * shared by kernels/int_atomic.cu and its mutants m-int32-acc, m-int16-sum
 * and m-mul24 (kernels/mutants/int_mutants.cu): the kernel, templated on
 * whether thread 0 keeps its block sum in 16 bits (m-int16-sum's bug) and
 * whether the products are __mul24's (m-mul24's), its launcher, batched
 * launcher (the parent's and m-int32-acc's, which runs the parent's GPU
 * code) and finish.
 */
#ifndef DOTFUZZ_INT_ATOMIC_GPU_H
#define DOTFUZZ_INT_ATOMIC_GPU_H

#include <string.h>

#include "kernels/gpu_common.h"
#include "kernels/soft_error.h"

/* Seed 002's multiblock dot. The arithmetic is written in unsigned int:
 * the same bits as the hardware's wrapping int32 multiply and add, without
 * C++'s undefined behaviour on signed overflow; the result word is the
 * seed's int *c. With INT16_SUM (m-int16-sum) the block sum is an int16_t:
 * wrapping 16-bit adds leave the low 16 bits of the 32-bit sum, which is
 * then sign-extended from bit 15 in unsigned arithmetic. With MUL24
 * (m-mul24) each product is __mul24(a[i], b[i]): the low 32 bits of
 * the product of the operands' low 24 bits, sign-extended from bit 23. */
/* An int32 value held exactly in 64 bits: whether it left int32's range. */
static __device__ __forceinline__ bool df_outside_i32(long long v)
{
    return v < -2147483648LL || v > 2147483647LL;
}

/* Block blk of the case's launch: its kernel's (int_atomic_kernel) or a
 * batch's (df_word_batch_kernel, kernels/batch_common.h). */
template <bool INT16_SUM, bool MUL24>
static __device__ __forceinline__ void int_atomic_block(const int *a, const int *b, int *c,
                                                        unsigned long long n,
                                                        unsigned long long blk,
                                                        df_soft_dev soft)
{
    __shared__ unsigned int temp[1024];
    unsigned long long index = blk * blockDim.x + threadIdx.x;
    if (index < n) {
        /* soft error: a product that int32 cannot hold (reported once per
         * kind, kernels/soft_error.h; the arithmetic below still wraps) */
        long long p = (long long)a[index] * b[index];
        DF_SOFT_CHECK(df_outside_i32(p), soft, DF_SOFT_INT_OVERFLOW, DF_SOFT_K_INT_ATOMIC, 0,
                      index, p, 0.0);
        temp[threadIdx.x] = MUL24 ? (unsigned int)__mul24(a[index], b[index])
                                  : (unsigned int)a[index] * (unsigned int)b[index];
    } else {
        temp[threadIdx.x] = 0u; /* the seed had no tail: N % block == 0 */
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int sum = 0;
        unsigned long long first = blk * blockDim.x;
        for (unsigned i = 0; i < blockDim.x; i++) {
            /* soft error: the block's running sum leaves int32 */
            DF_SOFT_CHECK(df_outside_i32((long long)(int)sum + (int)temp[i]), soft,
                          DF_SOFT_INT_OVERFLOW, DF_SOFT_K_INT_ATOMIC, 0, first + i,
                          (long long)(int)sum + (int)temp[i], 0.0);
            sum += temp[i];
        }
        if (INT16_SUM)
            sum = ((sum & 0xffffu) ^ 0x8000u) - 0x8000u;
        unsigned int old = atomicAdd((unsigned int *)c, sum);
        /* soft error: the total leaves int32 when this block's sum lands */
        DF_SOFT_CHECK(df_outside_i32((long long)(int)old + (int)sum), soft, DF_SOFT_INT_OVERFLOW,
                      DF_SOFT_K_INT_ATOMIC, 0, first, (long long)(int)old + (int)sum, 0.0);
    }
}

template <bool INT16_SUM, bool MUL24>
__global__ void __launch_bounds__(1024)
int_atomic_kernel(const int *a, const int *b, int *c, unsigned long long n,
                  df_soft_dev soft)
{
    int_atomic_block<INT16_SUM, MUL24>(a, b, c, n, blockIdx.x, soft);
}

template <bool INT16_SUM, bool MUL24>
static int int_atomic_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    return df_enqueue_one_word<int>(ctx, c, int_atomic_kernel<INT16_SUM, MUL24>,
                                    "int_atomic_kernel<<<>>>");
}

/* A batch: one launch per block size, each case's blocks adding into its
 * own slot, zeroed by the backend (df_word_enqueue_batch). Integer
 * addition is associative, so the slot holds exactly what the case's own
 * launch gives, whatever order the blocks land in. */
template <bool INT16_SUM, bool MUL24>
static int int_atomic_enqueue_batch(df_gpu_batch *bt)
{
    return df_word_enqueue_batch<int, int_atomic_block<INT16_SUM, MUL24>>(
        bt, "df_word_batch_kernel<int_atomic_block><<<>>>");
}

static inline int int_atomic_finish(df_gpu_ctx *ctx, const df_case *c,
                                    df_result *res)
{
    int32_t v;
    (void)c;
    memcpy(&v, ctx->h_result, sizeof v);
    res->i = v; /* sign-extends */
    return 0;
}

#endif
