/* kernels/mutants/atomic_block_mutants.cu — the mutants of `atomic-block`
 * (seed 000; kernels/atomic_block.cu): each is that kernel with one bug.
 *
 *   m-no-zero          the result word is not zeroed before the launch (seed
 *                      000's first bug): the blocks add into whatever the
 *                      previous case left there. GPU only: host_model NULL.
 *                      A host model must be a pure function of its case; the
 *                      bug's input is the previous case's result, which the
 *                      case does not hold. "Starts from some garbage value"
 *                      would be a different kernel, not this bug.
 *   m-tail             threads past n are not zero-filled: they read a[i],
 *                      b[i] for i >= n (the comment in seed 000's kernel).
 *                      The guard zones make element n NaN, so the result is
 *                      NaN whenever the last block has a tail thread.
 *   m-read-past-end    the guard compares index <= n: the one thread at
 *                      index n reads a[n], b[n] (a guard cell: NaN).
 *   m-wrong-copy-size  the device-to-host copy of the result moves 2 bytes of
 *                      the 4-byte float (seed 000's second bug); the other
 *                      2 bytes of the host word are zeroed first, so the
 *                      result is the low half of the float's bits.
 *   m-no-sync          no __syncthreads before thread 0 sums the block (seed
 *                      002's read-before-write race): thread 0 may read
 *                      cells other warps have not written yet. GPU only: a
 *                      race has no host model.
 *   m-nonatomic        blocks add their sums with `*c += sum`, not atomicAdd
 *                      (seed 002's race across blocks): updates are lost.
 *                      GPU only: a race has no host model.
 *   m-claims-det       the parent unchanged but its descriptor claims
 *                      DF_K_DETERMINISTIC: float atomics land in a different
 *                      order each run, so the rerun check (and the model
 *                      match) catches it on the GPU. Its host model is the
 *                      parent's: deterministic, so the host never sees it.
 *
 *   m-wild-read        one thread reads 2^40 elements past a[] when n % 509 == 300:
 *                      on the GPU an illegal address, which poisons the
 *                      CUDA context of the process; on the host (its model
 *                      does the same read) a segmentation fault. It exists
 *                      to prove that a campaign survives a kernel that
 *                      kills its process: the supervisor saves the case as
 *                      a `bug` with rule "crash" and starts a new worker.
 *   m-hang             never finishes when n % 1021 == 600 (thread 0 spins
 *                      forever; its host model sleeps forever): the
 *                      watchdog's test, saved as a `bug` with rule "hang".
 *                      Other lengths: the parent, unchanged.
 *   m-grid-clamp       blocks of 32 and a grid clamped at 65,535 with no
 *                      grid-stride loop (CUDA's old grid.x limit, kept in
 *                      code that once targeted it): elements past 2,097,120
 *                      are never read. Only long cases (run's --long-n)
 *                      reach it.
 *
 * The host models of m-tail and m-read-past-end read past the end of the
 * case's vectors: they run only through a backend (fuzz/backend/backend.c), which
 * hands every host model its vectors inside DF_GUARD_ELEMS elements
 * of NaN on each side. m-tail reads at most that far: element n is already
 * NaN, and nothing added after a NaN can change it.
 * How it is compiled: twice (see Makefile), as the parent. */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"

/* The lengths on which m-wild-read and m-hang misbehave: rare enough that
 * a campaign spends its time fuzzing, not restarting workers. */
#define DF_WILD_READ_TRIGGER(n) ((n) % 509 == 300)
#define DF_WILD_READ_OFFSET ((unsigned long long)1 << 40)
#define DF_HANG_TRIGGER(n) ((n) % 1021 == 600)

#ifndef __CUDACC__
/* ---- host models and descriptors (C11) ---- */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/atomic_block_model.h"

/* The guard width both backends promise (fuzz/backend/backend.c,
 * fuzz/backend/cuda_backend.cu). */

extern const df_kernel df_mutant_no_zero, df_mutant_tail,
    df_mutant_read_past_end, df_mutant_wrong_copy_size, df_mutant_no_sync,
    df_mutant_nonatomic, df_mutant_claims_det, df_mutant_wild_read, df_mutant_hang,
    df_mutant_grid_clamp;

/* How far past n a thread reads its product instead of taking 0. */
enum tail_reads { TAIL_ZERO, TAIL_ONE, TAIL_ALL };

/* The parent's model (df_atomic_block_sum) with the tail handled as
 * `tail` says; the mutants note no soft errors. */
static int atomic_block_sum(const df_kernel *k, const df_case *c,
                            enum tail_reads tail, df_result *out)
{
    uint64_t reads = tail == TAIL_ZERO  ? c->n
                     : tail == TAIL_ONE ? c->n + 1
                                        : c->n + DF_GUARD_ELEMS;
    return df_atomic_block_sum(k, c, reads, false, out);
}

static int tail_model(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    return atomic_block_sum(&df_mutant_tail, c, TAIL_ALL, out);
}

static int read_past_end_model(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    return atomic_block_sum(&df_mutant_read_past_end, c, TAIL_ONE, out);
}

/* Little-endian: the 2 bytes copied are the low 16 bits of the float. */
static int wrong_copy_size_model(const df_case *c, df_scratch *s,
                                 df_result *out)
{
    (void)s;
    if (atomic_block_sum(&df_mutant_wrong_copy_size, c, TAIL_ZERO, out) != 0)
        return -1;
    float f = (float)out->f;
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    bits &= 0xffffu;
    memcpy(&f, &bits, sizeof f);
    out->f = f;
    return 0;
}

/* m-grid-clamp: blocks of 32, at most 65,535 of them, no grid-stride loop:
 * the elements past 65,535 x 32 = 2,097,120 are never read. */
#define GRID_CLAMP 65535u
static int grid_clamp_model(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    uint64_t covered = (uint64_t)GRID_CLAMP * 32u;
    return df_atomic_block_sum(&df_mutant_grid_clamp, c, c->n < covered ? c->n : covered, false,
                               out);
}

static int claims_det_model(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    return atomic_block_sum(&df_mutant_claims_det, c, TAIL_ZERO, out);
}

/* m-wild-read: 2^40 floats (4 TiB) past a[] is mapped in no process. */
static int wild_read_model(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    if (DF_WILD_READ_TRIGGER(c->n) && getenv(DF_HOST_STICKY_ENV)) {
        df_result_error(out, df_mutant_wild_read.name, c,
                        "an illegal memory access was encountered (host emulation)");
        return DF_MODEL_STICKY;
    }
    if (DF_WILD_READ_TRIGGER(c->n)) {
        const volatile float *far = (const float *)c->a + DF_WILD_READ_OFFSET;
        out->f = *far;
        return 0;
    }
    return atomic_block_sum(&df_mutant_wild_read, c, TAIL_ZERO, out);
}

static int hang_model(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    while (DF_HANG_TRIGGER(c->n))
        sleep(1); /* what a hung kernel looks like from the host */
    return atomic_block_sum(&df_mutant_hang, c, TAIL_ZERO, out);
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_atomic_block, df_gpu_m_no_zero,
    df_gpu_m_tail, df_gpu_m_read_past_end, df_gpu_m_wrong_copy_size,
    df_gpu_m_no_sync, df_gpu_m_nonatomic, df_gpu_m_wild_read, df_gpu_m_hang,
    df_gpu_m_grid_clamp;
#endif

const df_kernel df_mutant_no_zero = {
    .name = "m-no-zero",
    .origin = "seed 000 (atomic-block)",
    .summary = "result word not zeroed before the launch: adds the previous "
               "case's result",
    .flags = DF_K_FLUSHES_SUBNORMALS,
    DF_ATOMIC_BLOCK_LAUNCH,
    .host_model = NULL,
    .gpu = DF_GPU_REF(df_gpu_m_no_zero),
};

const df_kernel df_mutant_tail = {
    .name = "m-tail",
    .origin = "seed 000 (atomic-block)",
    .summary = "tail threads (index >= n) not zero-filled: read a[i], b[i] "
               "past the end",
    .flags = DF_K_FLUSHES_SUBNORMALS,
    DF_ATOMIC_BLOCK_LAUNCH,
    .host_model = tail_model,
    .gpu = DF_GPU_REF(df_gpu_m_tail),
};

const df_kernel df_mutant_read_past_end = {
    .name = "m-read-past-end",
    .origin = "seed 000 (atomic-block)",
    .summary = "guard `index <= n`: the thread at index n adds a[n]*b[n]",
    .flags = DF_K_FLUSHES_SUBNORMALS,
    DF_ATOMIC_BLOCK_LAUNCH,
    .host_model = read_past_end_model,
    .gpu = DF_GPU_REF(df_gpu_m_read_past_end),
};

const df_kernel df_mutant_wrong_copy_size = {
    .name = "m-wrong-copy-size",
    .origin = "seed 000 (atomic-block)",
    .summary = "result copied to the host with 2 bytes, not sizeof(float): "
               "only the low half of its bits arrives",
    .flags = DF_K_FLUSHES_SUBNORMALS,
    DF_ATOMIC_BLOCK_LAUNCH,
    .host_model = wrong_copy_size_model,
    .gpu = DF_GPU_REF(df_gpu_m_wrong_copy_size),
};

const df_kernel df_mutant_no_sync = {
    .name = "m-no-sync",
    .origin = "seed 002 (atomic-block)",
    .summary = "no __syncthreads before thread 0 sums the block: reads "
               "products not yet written (race)",
    .flags = DF_K_FLUSHES_SUBNORMALS,
    DF_ATOMIC_BLOCK_LAUNCH,
    .host_model = NULL,
    .gpu = DF_GPU_REF(df_gpu_m_no_sync),
};

const df_kernel df_mutant_nonatomic = {
    .name = "m-nonatomic",
    .origin = "seed 002 (atomic-block)",
    .summary = "block sums added with `*c += sum`, not atomicAdd: lost "
               "updates across blocks (race)",
    .flags = DF_K_FLUSHES_SUBNORMALS,
    DF_ATOMIC_BLOCK_LAUNCH,
    .host_model = NULL,
    .gpu = DF_GPU_REF(df_gpu_m_nonatomic),
};

const df_kernel df_mutant_claims_det = {
    .name = "m-claims-det",
    .origin = "seed 000 (atomic-block)",
    .summary = "claims determinism (DF_K_DETERMINISTIC) but adds block sums "
               "with float atomics in arrival order",
    .flags = DF_K_FLUSHES_SUBNORMALS | DF_K_DETERMINISTIC | DF_K_HOST_BLIND,
    DF_ATOMIC_BLOCK_LAUNCH,
    .host_model = claims_det_model,
    .gpu = DF_GPU_REF(df_gpu_atomic_block),
};


const df_kernel df_mutant_grid_clamp = {
    .name = "m-grid-clamp",
    .origin = "seed 000 (atomic-block)",
    .summary = "blocks of 32, grid clamped at 65,535, no grid-stride loop: elements past "
               "2,097,120 never read",
    .flags = DF_K_FLUSHES_SUBNORMALS,
    .elem = DF_F32, .acc = DF_F32, .block_min = 32, .block_max = 32, .block_default = 32,
    .grid_max = 0, .per_thread = 1, .max_n = 0, .tree_height = df_atomic_block_height,
    .host_model = grid_clamp_model,
    .gpu = DF_GPU_REF(df_gpu_m_grid_clamp),
};

const df_kernel df_mutant_wild_read = {
    .name = "m-wild-read",
    .origin = "seed 000 (atomic-block)",
    .summary = "reads 2^40 elements past a[] when n % 509 == 300: an illegal "
               "address on the GPU, a segfault on the host (kills its process)",
    .flags = DF_K_FLUSHES_SUBNORMALS,
    DF_ATOMIC_BLOCK_LAUNCH,
    .host_model = wild_read_model,
    .gpu = DF_GPU_REF(df_gpu_m_wild_read),
};

const df_kernel df_mutant_hang = {
    .name = "m-hang",
    .origin = "seed 000 (atomic-block)",
    .summary = "never finishes when n % 1021 == 600 (the watchdog's test)",
    .flags = DF_K_FLUSHES_SUBNORMALS,
    DF_ATOMIC_BLOCK_LAUNCH,
    .host_model = hang_model,
    .gpu = DF_GPU_REF(df_gpu_m_hang),
};
#else
/* ---- GPU kernels and launchers (CUDA C) ---- */
#include <string.h>

#include "kernels/gpu_common.h"

/* The parent's kernel, parameterised by the bug: every mutant below is
 * this with exactly one change. */
enum ab_bug { AB_NONE, AB_TAIL, AB_READ_PAST_END, AB_NO_SYNC, AB_NONATOMIC, AB_WILD_READ,
              AB_HANG };

template <int BUG>
__global__ void __launch_bounds__(1024)
m_atomic_block_kernel(const float *a, const float *b, float *c,
                      unsigned long long n)
{
    __shared__ float tmp[1024];
    unsigned long long index =
        (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (BUG == AB_HANG && DF_HANG_TRIGGER(n) && index == 0)
        for (;;)
            __nanosleep(1000);
    if (BUG == AB_WILD_READ && DF_WILD_READ_TRIGGER(n) && index == 0)
        tmp[threadIdx.x] = *(const volatile float *)(a + DF_WILD_READ_OFFSET);
    else if (BUG == AB_TAIL)
        tmp[threadIdx.x] = a[index] * b[index];
    else if (BUG == AB_READ_PAST_END ? index <= n : index < n)
        tmp[threadIdx.x] = a[index] * b[index];
    else
        tmp[threadIdx.x] = 0.0f;
    if (BUG != AB_NO_SYNC)
        __syncthreads();
    if (threadIdx.x == 0) {
        float sum = 0.0f;
        for (unsigned i = 0; i < blockDim.x; i++)
            sum += tmp[i];
        if (BUG == AB_NONATOMIC)
            *c += sum;
        else
            atomicAdd(c, sum);
    }
}

template <int BUG>
static int m_atomic_block_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    return df_enqueue_one_word<float>(ctx, c, m_atomic_block_kernel<BUG>,
                                      "m_atomic_block_kernel<<<>>>");
}

/* m-no-zero: the parent's launcher without df_zero_result. */
static int no_zero_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    m_atomic_block_kernel<AB_NONE>
        <<<c->launch.grid, c->launch.block, 0, (cudaStream_t)ctx->stream>>>(
            (const float *)ctx->a, (const float *)ctx->b,
            (float *)ctx->d_result, (unsigned long long)c->n);
    DF_TRY(cudaGetLastError(), "m_atomic_block_kernel<<<>>>");
    return df_fetch_result(ctx, ctx->d_result, sizeof(float));
}

/* m-wrong-copy-size: copies 2 bytes. The host word is zeroed first (the
 * stream is idle between cases, so nothing else writes it), so the bytes
 * not copied are zero, not the previous case's, as the host model has it. */
static int wrong_copy_size_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    memset(ctx->h_result, 0, sizeof(float));
    int rc = df_zero_result(ctx, sizeof(float));
    if (rc != 0)
        return rc;
    m_atomic_block_kernel<AB_NONE>
        <<<c->launch.grid, c->launch.block, 0, (cudaStream_t)ctx->stream>>>(
            (const float *)ctx->a, (const float *)ctx->b,
            (float *)ctx->d_result, (unsigned long long)c->n);
    DF_TRY(cudaGetLastError(), "m_atomic_block_kernel<<<>>>");
    return df_fetch_result(ctx, ctx->d_result, 2);
}

extern "C" const struct df_gpu_ops df_gpu_m_no_zero = {
    NULL, no_zero_enqueue, df_finish_float<float>, NULL, NULL};
extern "C" const struct df_gpu_ops df_gpu_m_tail = {
    NULL, m_atomic_block_enqueue<AB_TAIL>, df_finish_float<float>, NULL, NULL};
extern "C" const struct df_gpu_ops df_gpu_m_read_past_end = {
    NULL, m_atomic_block_enqueue<AB_READ_PAST_END>, df_finish_float<float>, NULL, NULL};
extern "C" const struct df_gpu_ops df_gpu_m_wrong_copy_size = {
    NULL, wrong_copy_size_enqueue, df_finish_float<float>, NULL, NULL};
extern "C" const struct df_gpu_ops df_gpu_m_no_sync = {
    NULL, m_atomic_block_enqueue<AB_NO_SYNC>, df_finish_float<float>, NULL, NULL};
extern "C" const struct df_gpu_ops df_gpu_m_nonatomic = {
    NULL, m_atomic_block_enqueue<AB_NONATOMIC>, df_finish_float<float>, NULL, NULL};
extern "C" const struct df_gpu_ops df_gpu_m_wild_read = {
    NULL, m_atomic_block_enqueue<AB_WILD_READ>, df_finish_float<float>, NULL, NULL};
/* m-grid-clamp: the parent's kernel on at most 65,535 blocks. */
static int grid_clamp_enqueue(df_gpu_ctx *ctx, const df_case *c)
{
    int rc = df_zero_result(ctx, sizeof(float));
    if (rc != 0)
        return rc;
    unsigned grid = c->launch.grid < 65535u ? c->launch.grid : 65535u;
    m_atomic_block_kernel<AB_NONE><<<grid, c->launch.block, 0, (cudaStream_t)ctx->stream>>>(
        (const float *)ctx->a, (const float *)ctx->b, (float *)ctx->d_result,
        (unsigned long long)c->n);
    DF_TRY(cudaGetLastError(), "m_atomic_block_kernel<<<>>>");
    return df_fetch_result(ctx, ctx->d_result, sizeof(float));
}

extern "C" const struct df_gpu_ops df_gpu_m_grid_clamp = {
    NULL, grid_clamp_enqueue, df_finish_float<float>, NULL, NULL};
extern "C" const struct df_gpu_ops df_gpu_m_hang = {
    NULL, m_atomic_block_enqueue<AB_HANG>, df_finish_float<float>, NULL, NULL};
#endif
