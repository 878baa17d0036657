/* int_atomic_gpu.h — the GPU half of `int-atomic` (seed 002; CUDA C),
 * shared by kernels/int_atomic.cu and its mutant m-int16-sum
 * (kernels/mutants/int_mutants.cu): the kernel, templated on whether
 * thread 0 keeps its block sum in 16 bits (the mutant's bug), its launcher
 * and finish.
 */
#ifndef DOTFUZZ_INT_ATOMIC_GPU_H
#define DOTFUZZ_INT_ATOMIC_GPU_H

#include <string.h>

#include "gpu_common.h"

/* Seed 002's multiblock dot. The arithmetic is written in unsigned int:
 * the same bits as the hardware's wrapping int32 multiply and add, without
 * C++'s undefined behaviour on signed overflow; the result word is the
 * seed's int *c. With INT16_SUM (the mutant) the block sum is an int16_t:
 * wrapping 16-bit adds leave the low 16 bits of the 32-bit sum, which is
 * then sign-extended from bit 15 in unsigned arithmetic. */
template <bool INT16_SUM>
__global__ void __launch_bounds__(1024)
int_atomic_kernel(const int *a, const int *b, int *c, unsigned long long n)
{
    __shared__ unsigned int temp[1024];
    unsigned long long index =
        (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (index < n)
        temp[threadIdx.x] = (unsigned int)a[index] * (unsigned int)b[index];
    else
        temp[threadIdx.x] = 0u; /* the seed had no tail: N % block == 0 */
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int sum = 0;
        for (unsigned i = 0; i < blockDim.x; i++)
            sum += temp[i];
        if (INT16_SUM)
            sum = ((sum & 0xffffu) ^ 0x8000u) - 0x8000u;
        atomicAdd((unsigned int *)c, sum);
    }
}

template <bool INT16_SUM>
static int int_atomic_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    return df_enqueue_one_word<int>(ctx, c, int_atomic_kernel<INT16_SUM>,
                                    "int_atomic_kernel<<<>>>");
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
