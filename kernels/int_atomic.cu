/* kernels/int_atomic.cu — `int-atomic`, from seed 002 (lecture slides, the
 * multiblock int dot product): each thread writes temp[threadIdx.x] =
 * a[i]*b[i] into shared memory, __syncthreads, thread 0 sums its block in
 * int and atomicAdds the block sum into the int result.
 * What differs from its siblings: int32 data and accumulator; integer
 * addition wraps and is associative, so the result is deterministic.
 * The seed assumed N a multiple of THREADS_PER_BLOCK; this rendering guards
 * the tail (zero past n) so any n works.
 * How it is compiled: twice (see Makefile): cc -x c builds the host model
 * and descriptor, nvcc -DDOTFUZZ_CUDA the kernel and its launcher. */
#include "kernel.h"
#include "cuda_backend.h"

#ifndef __CUDACC__
/* ---- host model and descriptor (C11) ---- */
#include "model_common.h"

extern const df_kernel df_kernel_int_atomic;

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

/* uint32_t arithmetic wraps exactly like the GPU's 32-bit int multiply and
 * add, without signed-overflow undefined behaviour in C. */
static int int_atomic_model(const df_case *c, df_scratch *s, df_result *out)
{
    df_launch l;
    (void)s;
    if (df_model_begin(&df_kernel_int_atomic, c, &l, out) != 0)
        return -1;
    const int32_t *a = c->a, *b = c->b;
    uint32_t result = 0;
    for (uint64_t blk = 0; blk < l.grid; blk++) {
        uint32_t sum = 0;
        for (uint32_t t = 0; t < l.block; t++) {
            uint64_t i = blk * l.block + t;
            if (i < c->n)
                sum += (uint32_t)a[i] * (uint32_t)b[i];
        }
        result += sum;
    }
    out->i = int32_from_bits(result);
    return 0;
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_int_atomic;
#endif

const df_kernel df_kernel_int_atomic = {
    .name = "int-atomic",
    .origin = "seed 002",
    .summary = "int32 products in shared memory, thread 0 sums its block, "
               "int atomicAdd across blocks (exact, wraps on overflow)",
    .elem = DF_I32,
    .acc = DF_I32,
    .flags = DF_K_DETERMINISTIC,
    .block_min = 1,
    .block_max = 1024,
    .block_default = 512, /* the seed's THREADS_PER_BLOCK */
    .grid_max = 0,
    .per_thread = 1,
    /* (2^31-1)/2500: with |a|,|b| <= 50 no partial sum can overflow int32.
     * Overflow itself is the soft-error issue's and the overflow mutant's
     * business, not this kernel's. */
    .max_n = 858993,
    .tree_height = int_atomic_height,
    .host_model = int_atomic_model,
    .gpu = DF_GPU_REF(df_gpu_int_atomic),
};

#else
/* ---- GPU kernel and launcher (CUDA C) ---- */
#include <string.h>

#include "gpu_common.h"

/* Seed 002's multiblock dot. The arithmetic is written in unsigned int:
 * the same bits as the hardware's wrapping int32 multiply and add, without
 * C++'s undefined behaviour on signed overflow; the result word is the
 * seed's int *c. */
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
        atomicAdd((unsigned int *)c, sum);
    }
}

static int int_atomic_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    return df_enqueue_one_word<int>(ctx, c, int_atomic_kernel,
                                    "int_atomic_kernel<<<>>>");
}

static int int_atomic_finish(df_gpu_ctx *ctx, const df_case *c, df_result *res)
{
    int32_t v;
    (void)c;
    memcpy(&v, ctx->h_result, sizeof v);
    res->i = v; /* sign-extends */
    return 0;
}

extern "C" const struct df_gpu_ops df_gpu_int_atomic = {
    NULL, int_atomic_enqueue, int_atomic_finish};
#endif
