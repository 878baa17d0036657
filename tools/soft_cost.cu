/* tools/soft_cost.cu — the cost of soft-error reporting: times
 * each instrumented kernel at n = 2^28 on data that never reports, and
 * prints one Markdown table row per kernel: registers and local memory
 * (cudaFuncGetAttributes), occupancy (cudaOccupancyMaxActiveBlocksPer-
 * Multiprocessor), median time of 10 runs after a warm-up (cudaEvents)
 * and the bandwidth that makes. The reporting mode is the build's
 * DF_SOFT_MODE (0 none, 1 printf, 2 the atomicCAS slot, kernels/
 * soft_error.h); scripts/soft-cost.sh builds it three times and joins the
 * rows. fold and tournament are timed twice: their first round alone (it
 * carries no check, so it is the same kernel in every mode), and a whole
 * case as the backend enqueues it, whose check kernels (launch 0's and
 * one after every round, gpu_common.h df_shadow_*) run only when
 * reporting is compiled in. Usage: soft-cost
 * [--header] [log2 n]
 */
#include <algorithm>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "kernels/kernel.h"
#include "fuzz/backend/cuda_backend.h"
#include "kernels/shfl_common.h"
#include "kernels/gpu_common.h"
#include "kernels/soft_error_host.h"
#include "kernels/atomic_block.cu"
#include "kernels/fold.cu"
#include "kernels/tournament.cu"
#include "kernels/int_atomic_gpu.h"

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t e_ = (call);                                                     \
        if (e_ != cudaSuccess) {                                                     \
            fprintf(stderr, "soft-cost: %s: %s\n", #call, cudaGetErrorString(e_));   \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

enum { RUNS = 10 };

typedef struct bench {
    const char *name;
    const void *func;   /* the kernel, for the attribute and occupancy queries */
    unsigned block, grid;
    double bytes;       /* bytes one run reads and writes */
} bench;

/* Median of RUNS timed launches after one warm-up, in ms. */
template <typename F> static double time_median(cudaStream_t st, F launch)
{
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(st));
    std::vector<float> ms(RUNS);
    for (int r = 0; r < RUNS; r++) {
        CHECK(cudaEventRecord(t0, st));
        launch();
        CHECK(cudaEventRecord(t1, st));
        CHECK(cudaEventSynchronize(t1));
        CHECK(cudaGetLastError());
        CHECK(cudaEventElapsedTime(&ms[r], t0, t1));
    }
    std::sort(ms.begin(), ms.end());
    CHECK(cudaEventDestroy(t0));
    CHECK(cudaEventDestroy(t1));
    return 0.5 * (ms[RUNS / 2 - 1] + ms[RUNS / 2]);
}

static void row(const bench *b, double ms, const cudaDeviceProp *prop)
{
    cudaFuncAttributes fa;
    int per_sm = 0;
    CHECK(cudaFuncGetAttributes(&fa, b->func));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, b->func, (int)b->block, 0));
    double warps = (double)per_sm * ((b->block + 31) / 32);
    double max_warps = prop->maxThreadsPerMultiProcessor / 32.0;
    printf("| %s | %s | %d | %zu | %d (%.0f%%) | %.3f | %.1f |\n", b->name,
           DF_SOFT_MODE == 2 ? "slot" : DF_SOFT_MODE == 1 ? "printf" : "none", fa.numRegs,
           (size_t)fa.localSizeBytes, per_sm, 100.0 * warps / max_warps, ms,
           b->bytes / (ms * 1e-3) / 1e9);
    fflush(stdout);
}

/* a kernel of the int-atomic shape, with or without the soft-error slot */
inline void launch_word(void (*k)(const int *, const int *, int *, unsigned long long),
                        unsigned g, unsigned bl, cudaStream_t st, const int *a, const int *b,
                        int *r, unsigned long long n, df_soft_dev)
{
    k<<<g, bl, 0, st>>>(a, b, r, n);
}
inline void launch_word(void (*k)(const int *, const int *, int *, unsigned long long,
                                  df_soft_dev),
                        unsigned g, unsigned bl, cudaStream_t st, const int *a, const int *b,
                        int *r, unsigned long long n, df_soft_dev soft)
{
    k<<<g, bl, 0, st>>>(a, b, r, n, soft);
}

__global__ void fill_kernel(float *x, int *xi, unsigned long long n, unsigned seed)
{
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < n; i += (unsigned long long)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        x[i] = (float)(h % 2001u) / 1000.0f - 1.0f; /* [-1, 1]: no sum overflows */
        xi[i] = (int)(h % 101u) - 50;                /* [-50, 50], as seed 000 */
    }
}

int main(int argc, char **argv)
{
    int header = argc > 1 && strcmp(argv[1], "--header") == 0;
    int lg = argc > 1 + header ? atoi(argv[1 + header]) : 28;
    if (lg < 10 || lg > 30) {
        fprintf(stderr, "usage: soft-cost [--header] [log2 n, 10..30]\n");
        return 2;
    }
    const unsigned long long n = 1ull << lg;
    cudaDeviceProp prop;
    CHECK(cudaSetDevice(0));
    CHECK(cudaGetDeviceProperties(&prop, 0));
    cudaStream_t st;
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    float *a, *b, *A, *result;
    int *ai, *bi, *ri;
    CHECK(cudaMalloc(&a, n * sizeof(float)));
    CHECK(cudaMalloc(&b, n * sizeof(float)));
    /* the cells and their shadow (fold and tournament), also the scratch of shfl */
    CHECK(cudaMalloc(&A, df_cells_scratch_bytes(n, NULL)));
    CHECK(cudaMalloc(&ai, n * sizeof(int)));
    CHECK(cudaMalloc(&bi, n * sizeof(int)));
    CHECK(cudaMalloc(&result, 4096));
    CHECK(cudaMalloc(&ri, sizeof(int)));
    fill_kernel<<<1024, 256, 0, st>>>(a, ai, n, 1u);
    fill_kernel<<<1024, 256, 0, st>>>(b, bi, n, 2u);
    CHECK(cudaGetLastError());
    df_soft_slots slots;
    const char *call = "";
    cudaError_t e = df_soft_slots_open(&slots, 1, &call);
    if (e != cudaSuccess) {
        fprintf(stderr, "soft-cost: %s: %s\n", call, cudaGetErrorString(e));
        return 1;
    }
    const df_soft_dev soft = df_soft_slots_dev(&slots);
    CHECK(df_soft_slots_clear(&slots, st, &call));
    CHECK(cudaStreamSynchronize(st));
    if (header) {
        printf("%s, n = 2^%d, median of %d runs after a warm-up\n\n", prop.name, lg, RUNS);
        printf("| kernel | mode | registers | local bytes (spill + stack) | occupancy: blocks/SM "
               "(%% of max warps) | time ms | GB/s |\n|---|---|---|---|---|---|---|\n");
    }

    /* shfl (float): the derived grid, 256 elements per thread */
    {
        const unsigned block = DF_SHFL_BLOCK_DEFAULT;
        const unsigned grid = (unsigned)std::min<unsigned long long>(
            (n + (unsigned long long)block * DF_SHFL_PER_THREAD - 1) /
                ((unsigned long long)block * DF_SHFL_PER_THREAD),
            DF_SHFL_GRID_MAX);
        unsigned *ticket = (unsigned *)A;
        float *partials = A + 64;
        bench bc = {"shfl (f32)", (const void *)df_shfl_kernel<float, float>, block, grid,
                    8.0 * (double)n};
        double ms = time_median(st, [&] {
            CHECK(cudaMemsetAsync(ticket, 0, sizeof *ticket, st));
            df_shfl_kernel<float, float><<<grid, block, 0, st>>>(a, b, n, partials, ticket,
                                                                 result, soft);
        });
        row(&bc, ms, &prop);
    }
    /* fold and tournament: their first round (2^(lg-1) additions) on the
     * products; the cells grow by 2x per run, far from overflow */
    {
        const unsigned block = 256;
        df_products_kernel<float><<<(unsigned)((n + 1023) / 1024), 1024, 0, st>>>(a, b, A, n);
        CHECK(cudaGetLastError());
        const unsigned long long pairs = n / 2;
        bench bf = {"fold round 1", (const void *)df_fold_round_kernel<float>, block,
                    df_blocks_for(pairs, block), 12.0 * (double)pairs};
        double ms = time_median(st, [&] {
            df_fold_round_kernel<float><<<bf.grid, block, 0, st>>>(A, pairs, n - pairs);
        });
        row(&bf, ms, &prop);
        bench bt = {"tournament round 1", (const void *)df_tournament_round_kernel<float>,
                    block, df_blocks_for(pairs, block), 12.0 * (double)pairs};
        ms = time_median(st, [&] {
            df_tournament_round_kernel<float><<<bt.grid, block, 0, st>>>(A, n, 1, pairs);
        });
        row(&bt, ms, &prop);
    }
    /* fold and tournament, a whole case as the backend enqueues it (their
     * df_gpu_ops): launch 0, every round and, with the slots on (printf or
     * slot builds), the check kernel after launch 0 and after each round,
     * which the round-1 rows above leave out. The attribute columns are
     * the round's check kernel's (compiled in every mode; launched only
     * with reporting). */
    {
        float *h_result;
        CHECK(cudaHostAlloc(&h_result, 16, cudaHostAllocDefault));
        df_gpu_ctx ctx;
        memset(&ctx, 0, sizeof ctx);
        ctx.a = a;
        ctx.b = b;
        ctx.d_scratch = A;
        ctx.d_scratch_bytes = df_cells_scratch_bytes(n, NULL);
        ctx.d_result = result;
        ctx.h_result = h_result;
        ctx.stream = st;
        ctx.soft = soft;
        df_case c;
        memset(&c, 0, sizeof c);
        c.type = DF_F32;
        c.n = n;
        c.launch.block = 256;
        c.launch.grid = (uint32_t)((n + 255) / 256);
        const struct {
            const char *name;
            const struct df_gpu_ops *ops;
        } whole[] = {
            {"fold, whole case", &df_gpu_fold},
            {"tournament, whole case", &df_gpu_tournament},
        };
        for (const auto &w : whole) {
            bench bw = {w.name, (const void *)df_round_shadow_kernel<float>, 256,
                        c.launch.grid, 8.0 * (double)n};
            double ms = time_median(st, [&] {
                if (w.ops->enqueue(&ctx, &c) != 0) {
                    fprintf(stderr, "soft-cost: %s: %s\n", w.name,
                            ctx.failed_call ? ctx.failed_call : "enqueue failed");
                    exit(1);
                }
            });
            row(&bw, ms, &prop);
        }
        CHECK(cudaFreeHost(h_result));
    }
    /* atomic-block and int-atomic: one element per thread, their default blocks */
    {
        const unsigned block = 1024;
        const unsigned grid = (unsigned)((n + block - 1) / block);
        bench ba = {"atomic-block", (const void *)atomic_block_kernel, block, grid,
                    8.0 * (double)n};
        double ms = time_median(st, [&] {
            atomic_block_kernel<<<grid, block, 0, st>>>(a, b, result, n, soft);
        });
        row(&ba, ms, &prop);
    }
    {
        const unsigned block = 512;
        const unsigned grid = (unsigned)((n + block - 1) / block);
        bench bi_ = {"int-atomic", (const void *)int_atomic_kernel<false, false>, block, grid,
                     8.0 * (double)n};
        double ms = time_median(st, [&] {
            launch_word(int_atomic_kernel<false, false>, grid, block, st, ai, bi, ri, n, soft);
        });
        row(&bi_, ms, &prop);
    }
    CHECK(cudaStreamSynchronize(st));
    uint32_t reported = df_soft_slots_poll_at(&slots, 0);
    if (reported) /* the data must never report: the times would not be the hot path's */
        fprintf(stderr, "soft-cost: unexpected soft-error reports, mask %#x\n", reported);
    df_soft_slots_close(&slots);
    return reported ? 1 : 0;
}
