/* kernels/mutants/index_mutants.cu — `m-idx32`: a dot kernel that declares
 * 64-bit lengths (DF_K_LEN64) and indexes its elements in a 32-bit int, the
 * classic bug of CUB, thrust and BLAS libraries past 2^31 elements.
 *
 *   name        m-idx32
 *   origin      seed 004 (tree-hostsum) — the parent's shape: a shared-memory
 *               halving tree per block, the block partials added on the CPU;
 *               here one element a thread, in double (f32 data, like
 *               shfl-f64acc), its length a size_t, the partials summed
 *               pairwise
 *   GPU code    kernels/mutants/index_mutants.cu: idx32_kernel, launched by
 *               idx32_enqueue, the partials summed by idx32_finish
 *   host model  kernels/mutants/idx32_model.h: df_idx32_model, every index
 *               through df_idx32_element (kernels/mutants/idx32.h), the
 *               GPU's 32-bit arithmetic, the partials through the finish's
 *               df_idx32_sum
 *   h(n, l)     2 + ceil(log2 block) + ceil(log2 grid), grid = ceil(n / block)
 *               (kernels/mutants/idx32_model.h: df_idx32_height)
 *   differs     `int i = blockIdx.x * blockDim.x + threadIdx.x`: from thread
 *               2^31 on, i wraps negative, `(size_t)i < n` is false, and
 *               every element past 2^31 - 1 is dropped without a word
 *
 * The failure is a wrong result, never an illegal address: the guard that
 * drops the wrapped threads compares i as a size_t (what a cast written to
 * quiet -Wsign-compare does), so no thread reads a[i] with i < 0. Below
 * 2^31 + 1 elements the kernel is correct, and no test or campaign without
 * huge cases (run's and hunt's --huge, the cuda backend) can catch it
 * (DF_K_HUGE_ONLY: hunt skips it without them). Past it, its sums being
 * double sums of exact products, the exact rule catches integer data as
 * soon as a dropped product is not zero, and the bound (gamma_h G with
 * u = 2^-53 and h about 34: 2^-48 G) nearly any other data; only a dropped
 * part whose products cancel exactly goes unseen (the sum is then right);
 * its host model drops the same terms, so the host backend shows
 * the bug on a replayed huge case too.
 * How it is compiled: twice (see Makefile), as every kernel. */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"

#ifndef __CUDACC__
/* ---- host model and descriptor (C11) ---- */
#include "kernels/mutants/idx32_model.h"

extern const df_kernel df_mutant_idx32;

static int idx32_model(const df_case *c, df_scratch *s, df_result *out)
{
    return df_idx32_model(&df_mutant_idx32, c, s, out);
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_m_idx32;
#endif

const df_kernel df_mutant_idx32 = {
    .name = "m-idx32",
    .origin = "seed 004 (tree-hostsum)",
    .summary = "one element a thread, double sums, 64-bit lengths but an int index: past "
               "2^31 elements it wraps and (size_t)i < n drops the rest",
    .elem = DF_F32,
    .acc = DF_F64,
    .flags = DF_K_DETERMINISTIC | DF_K_BLOCK_POW2 | DF_K_MODEL_IN_BOUNDS | DF_K_LEN64 |
             DF_K_HUGE_ONLY,
    .block_min = 32,
    .block_max = 1024,
    .block_default = 256,
    .grid_max = 0,
    .per_thread = 1,
    .max_n = 0,
    .tree_height = df_idx32_height,
    .host_model = idx32_model,
    .gpu = DF_GPU_REF(df_gpu_m_idx32),
};

#else
/* ---- GPU kernel and launcher (CUDA C) ---- */
#include "kernels/gpu_common.h"
#include "kernels/mutants/idx32.h"

/* One product a thread, in double; the block's halving tree (a power of
 * two: DF_K_BLOCK_POW2); thread 0 writes the block's partial. The index is
 * the bug (see the card). */
__global__ void __launch_bounds__(1024)
idx32_kernel(const float *a, const float *b, size_t n, double *partial)
{
    __shared__ double cache[1024];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    cache[threadIdx.x] = (size_t)i < n ? (double)a[i] * (double)b[i] : 0.0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s != 0; s /= 2) {
        if (threadIdx.x < s)
            cache[threadIdx.x] += cache[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partial[blockIdx.x] = cache[0];
}

/* one double partial per block */
static size_t idx32_scratch_bytes(uint64_t n, const df_launch *l)
{
    (void)n;
    return (size_t)l->grid * sizeof(double);
}

static int idx32_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    idx32_kernel<<<c->launch.grid, c->launch.block, 0, st>>>(
        (const float *)ctx->a, (const float *)ctx->b, (size_t)c->n, (double *)ctx->d_scratch);
    DF_TRY(cudaGetLastError(), "idx32_kernel<<<>>>");
    DF_TRY(cudaMemcpyAsync(ctx->h_scratch, ctx->d_scratch,
                           (size_t)c->launch.grid * sizeof(double), cudaMemcpyDeviceToHost,
                           st),
           "cudaMemcpyAsync(block partials)");
    return 0;
}

/* the block partials summed pairwise in block order (the model's sum) */
static int idx32_finish(df_gpu_ctx *ctx, const df_case *c, df_result *res)
{
    const double *partial = (const double *)ctx->h_scratch;
    df_idx32_sum sum = {{0}, 0};
    for (uint32_t i = 0; i < c->launch.grid; i++)
        df_idx32_sum_add(&sum, partial[i]);
    res->f = df_idx32_sum_total(&sum);
    return 0;
}

extern "C" const struct df_gpu_ops df_gpu_m_idx32 = {
    idx32_scratch_bytes, idx32_enqueue, idx32_finish, NULL, NULL};
#endif
