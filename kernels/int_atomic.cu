/* kernels/int_atomic.cu — `int-atomic`: its card, host model entry and
 * descriptor; its GPU half is kernels/int_atomic_gpu.h, shared with its
 * mutants.
 *
 *   name        int-atomic
 *   origin      seed 002 — lecture slides: the int dot product in CUDA C (2014)
 *   GPU code    kernels/int_atomic_gpu.h: int_atomic_kernel<false, false>,
 *               launched by int_atomic_enqueue<false, false>, read by
 *               int_atomic_finish; batches: df_word_batch_kernel
 *               (kernels/batch_common.h), launched by
 *               int_atomic_enqueue_batch<false, false>
 *   host model  kernels/int_atomic_model.h: df_int_atomic_model (entry:
 *               int_atomic_model, below)
 *   h(n, l)     1: integer arithmetic does not round
 *               (kernels/int_atomic_model.h: df_int_atomic_height)
 *   differs     int32 data and sums: exact, wraps on overflow, deterministic
 *
 * Seed 002's multiblock dot: each thread writes temp[threadIdx.x] =
 * a[i]*b[i] into shared memory, __syncthreads, thread 0 sums its block in
 * int and atomicAdds the block sum into the int result. Integer addition
 * wraps and is associative, so the block order does not change the result.
 * The seed assumed N a multiple of THREADS_PER_BLOCK; this rendering guards
 * the tail (zero past n) so any n works.
 * A batch runs in one launch per block size: each block finds its case
 * and runs as that block of the case's own launch, adding into the case's
 * result slot (zeroed by the backend for the whole batch), so each case
 * gets exactly the sum, and the soft-error reports, of its own launch.
 * How it is compiled: twice (see Makefile): cc -x c builds the host model
 * and descriptor, nvcc -DDOTFUZZ_CUDA the kernel and its launcher. */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"

#ifndef __CUDACC__
/* ---- host model and descriptor (C11) ---- */
#include "kernels/int_atomic_model.h"

extern const df_kernel df_kernel_int_atomic;

/* Each block's int sum, atomicAdd'ed into the result: int_atomic_model.h,
 * in wrapping uint32_t arithmetic. */
static int int_atomic_model(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    return df_int_atomic_model(&df_kernel_int_atomic, c, false, false, out);
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
    .flags = DF_K_DETERMINISTIC | DF_K_MODEL_IN_BOUNDS,
    .block_min = 1,
    .block_max = 1024,
    .block_default = 512, /* the seed's THREADS_PER_BLOCK */
    .grid_max = 0,
    .per_thread = 1,
    /* (2^31-1)/2500: with |a|,|b| <= 50 no partial sum can overflow int32.
     * Overflow itself is the soft-error issue's and the overflow mutant's
     * business, not this kernel's. */
    .max_n = 858993,
    .tree_height = df_int_atomic_height,
    .host_model = int_atomic_model,
    .gpu = DF_GPU_REF(df_gpu_int_atomic),
};

#else
/* ---- GPU kernel and launcher (CUDA C) ---- */
/* the kernel, its launcher and finish, shared with the mutants m-int32-acc,
 * m-int16-sum and m-mul24 */
#include "kernels/int_atomic_gpu.h"

extern "C" const struct df_gpu_ops df_gpu_int_atomic = {
    NULL, int_atomic_enqueue<false, false>, int_atomic_finish,
    int_atomic_enqueue_batch<false, false>, df_batch_blocks_holding};
#endif
