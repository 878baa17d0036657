/* kernels/cublaslt_fp8.cu — `cublaslt-e4m3-promoted` and the mutant
 * `m-fp8-fast-accum`: cuBLASLt's fp8 matmul (E4M3 x E4M3 -> f32, Hopper's
 * wgmma) read as a dot, with fast accumulation off and on. Their card,
 * descriptors and launchers.
 *
 *   names       cublaslt-e4m3-promoted (CUBLASLT_MATMUL_DESC_FAST_ACCUM off),
 *               m-fp8-fast-accum (on; a mutant: kernels/mutants/)
 *   origin      dotfuzz — the vendor's fp8 GEMM as a peer; DeepSeek-V3
 *               (arXiv 2412.19437, sec. 3.3) on what fp8 accumulation keeps
 *   GPU code    kernels/cublaslt_fp8.cu: lt_enqueue. op(A) = A^T is 16 x K
 *               and B is K x 16 ("TN", as fp8 requires), K = n rounded up
 *               to 16, zeros elsewhere: the case's a is A's first column,
 *               its b B's first, so D[0][0] is the dot
 *   host model  none: cuBLASLt picks its kernel; the bound judges
 *   arithmetic  cublaslt-e4m3-promoted is declared with what it does: steps
 *               of 32 keeping 13 bits (an e8m13 result), the partial sum
 *               added into f32 every 128 products. m-fp8-fast-accum is the
 *               same call with fast accumulation, declared as an fp32
 *               tensor-core dot (steps of 32, 25 bits kept, f32 result toward
 *               zero), which its 13-bit wgmma chain (MMA-Sim) does not keep:
 *               the flaw DeepSeek-V3 reports, a declaration the kernel does
 *               not meet
 *   differs     the library's fp8 GEMM, one dot per matmul
 *
 * K stays n rounded up to 16 (what the fp8 rule asks), not to 64: with a
 * workspace, cuBLASLt 13.0 on an H100 may split such a K and drop its
 * remainder (docs/tensor-cores.md), and this K keeps that fault in the
 * fuzzer's reach. */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"

#define LT_MAX_N 65536u

#ifndef __CUDACC__
/* ---- descriptors (C11) ---- */

#include "kernels/fp8_models.h"

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_m_fp8_fast_accum, df_gpu_cublaslt_e4m3_promoted;
#endif

#define LT_LAUNCH                                                              \
    .elem = DF_E4M3, .acc = DF_F32,                                            \
    .flags = DF_K_ANY_ALIGNMENT | DF_K_GRID_FREE | DF_K_ONE_STREAM | DF_K_ENQUEUE_THREADS, \
    .block_min = 1,                                                            \
    .block_max = 1, .block_default = 1, .grid_max = 1, .per_thread = 1, .max_n = LT_MAX_N, \
    .tree_height = df_fp8_chain_height, .host_model = NULL

const df_kernel df_mutant_fp8_fast_accum = {
    .name = "m-fp8-fast-accum",
    .origin = "dotfuzz (cublaslt-e4m3-promoted)",
    .summary = "cuBLASLt fp8 matmul with fast accumulation declared as fp32 tensor cores: "
               "keeps 13 bits",
    LT_LAUNCH,
    .gpu = DF_GPU_REF(df_gpu_m_fp8_fast_accum),
    .fused = &df_tc_e4m3_fp32,
    .fused_chains = 1,
};

const df_kernel df_kernel_cublaslt_e4m3_promoted = {
    .name = "cublaslt-e4m3-promoted",
    .origin = "dotfuzz",
    .summary = "cuBLASLt fp8 matmul (E4M3 -> f32), partial sums promoted to f32",
    LT_LAUNCH,
    .gpu = DF_GPU_REF(df_gpu_cublaslt_e4m3_promoted),
    .fused = &df_wgmma_e4m3_chain,
    .fused_chains = 1,
    .fused_promote = 128,
};
#else
/* ---- GPU launchers (CUDA C) ---- */
#include <cublasLt.h>
#include <mutex>

#include "kernels/cublas_common.h"
#include "kernels/gpu_common.h"

enum { LT_DIM = 16, LT_WORKSPACE = 4 << 20 };

static size_t lt_k(uint64_t n) { return (size_t)(n < 16 ? 16 : (n + 15) / 16 * 16); }
static size_t lt_align(size_t x) { return (x + 255) / 256 * 256; }

/* scratch: A (16 K bytes), B (16 K), D (16 x 16 floats), the workspace */
static size_t lt_scratch(uint64_t n, const df_launch *l)
{
    (void)l;
    return 2 * lt_align(LT_DIM * lt_k(n)) + lt_align(LT_DIM * LT_DIM * sizeof(float)) +
           LT_WORKSPACE;
}

/* One cuBLASLt handle a process, made at its first fp8 case (the worker
 * that runs it owns the device). */
static cublasLtHandle_t lt_handle;

/* The algorithm cuBLASLt's heuristic picks for each K (a multiple of 16 up
 * to LT_MAX_N) and accumulation, asked once: the query costs a case more
 * host time than its matmul, and for the same descriptors it gives the
 * same answer (what an application that caches its plans runs). Under
 * lt_lock: the cuda backend may call enqueue from several threads. */
typedef struct lt_choice {
    int asked, found;
    cublasLtMatmulAlgo_t algo;
} lt_choice;
static lt_choice lt_choices[2][LT_MAX_N / 16 + 1];
static std::mutex lt_lock;

#define LT_TRY(call, name)                                                     \
    do {                                                                       \
        cublasStatus_t st_ = (call);                                           \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                    \
            rc = df_cublas_failed(ctx, (name), st_);                           \
            goto out;                                                          \
        }                                                                      \
    } while (0)

static int lt_enqueue(df_gpu_ctx *ctx, const df_case *c, int8_t fast_accum)
{
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    size_t K = lt_k(c->n), span = lt_align(LT_DIM * K);
    unsigned char *A = (unsigned char *)ctx->d_scratch, *B = A + span;
    float *D = (float *)(B + span);
    void *ws = (char *)D + lt_align(LT_DIM * LT_DIM * sizeof(float));
    DF_TRY(cudaMemsetAsync(A, 0, 2 * span, stream), "cudaMemsetAsync(A, B)");
    if (c->n) {
        DF_TRY(cudaMemcpyAsync(A, ctx->a, c->n, cudaMemcpyDeviceToDevice, stream),
               "cudaMemcpyAsync(A)");
        DF_TRY(cudaMemcpyAsync(B, ctx->b, c->n, cudaMemcpyDeviceToDevice, stream),
               "cudaMemcpyAsync(B)");
    }
    int rc = 0;
    cublasLtMatmulDesc_t op = NULL;
    cublasLtMatrixLayout_t ad = NULL, bd = NULL, dd = NULL;
    cublasLtMatmulPreference_t pref = NULL;
    cublasLtMatmulHeuristicResult_t heur;
    int found = 0;
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    size_t wsb = LT_WORKSPACE;
    float one = 1.0f, zero = 0.0f;
    {
        std::lock_guard<std::mutex> hold(lt_lock);
        if (!lt_handle)
            LT_TRY(cublasLtCreate(&lt_handle), "cublasLtCreate");
    }
    LT_TRY(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F),
           "cublasLtMatmulDescCreate");
    LT_TRY(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta),
           "cublasLtMatmulDescSetAttribute(TRANSA)");
    LT_TRY(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb),
           "cublasLtMatmulDescSetAttribute(TRANSB)");
    LT_TRY(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast_accum,
                                          sizeof fast_accum),
           "cublasLtMatmulDescSetAttribute(FAST_ACCUM)");
    LT_TRY(cublasLtMatrixLayoutCreate(&ad, CUDA_R_8F_E4M3, K, LT_DIM, K), "cublasLtMatrixLayoutCreate(A)");
    LT_TRY(cublasLtMatrixLayoutCreate(&bd, CUDA_R_8F_E4M3, K, LT_DIM, K), "cublasLtMatrixLayoutCreate(B)");
    LT_TRY(cublasLtMatrixLayoutCreate(&dd, CUDA_R_32F, LT_DIM, LT_DIM, LT_DIM),
           "cublasLtMatrixLayoutCreate(D)");
    {
        lt_choice *ch = &lt_choices[fast_accum != 0][K / 16];
        std::lock_guard<std::mutex> hold(lt_lock);
        if (!ch->asked) {
            LT_TRY(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
            LT_TRY(cublasLtMatmulPreferenceSetAttribute(
                       pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb),
                   "cublasLtMatmulPreferenceSetAttribute");
            LT_TRY(cublasLtMatmulAlgoGetHeuristic(lt_handle, op, ad, bd, dd, dd, pref, 1, &heur,
                                                  &found),
                   "cublasLtMatmulAlgoGetHeuristic");
            ch->found = found;
            ch->algo = heur.algo;
            ch->asked = 1;
        }
        found = ch->found;
        heur.algo = ch->algo;
    }
    if (!found)
        LT_TRY(CUBLAS_STATUS_NOT_SUPPORTED, "cublasLtMatmulAlgoGetHeuristic (no algorithm)");
    LT_TRY(cublasLtMatmul(lt_handle, op, &one, A, ad, B, bd, &zero, D, dd, D, dd, &heur.algo, ws,
                          wsb, stream),
           "cublasLtMatmul");
    rc = df_fetch_result(ctx, D, sizeof(float));
out:
    if (pref)
        cublasLtMatmulPreferenceDestroy(pref);
    if (dd)
        cublasLtMatrixLayoutDestroy(dd);
    if (bd)
        cublasLtMatrixLayoutDestroy(bd);
    if (ad)
        cublasLtMatrixLayoutDestroy(ad);
    if (op)
        cublasLtMatmulDescDestroy(op);
    return rc;
}

static int lt_fast(df_gpu_ctx *ctx, const df_case *c) { return lt_enqueue(ctx, c, 1); }
static int lt_promoted(df_gpu_ctx *ctx, const df_case *c) { return lt_enqueue(ctx, c, 0); }

extern "C" const struct df_gpu_ops df_gpu_m_fp8_fast_accum = {lt_scratch, lt_fast,
                                                              df_finish_float<float>, NULL, NULL};
extern "C" const struct df_gpu_ops df_gpu_cublaslt_e4m3_promoted = {
    lt_scratch, lt_promoted, df_finish_float<float>, NULL, NULL};
#endif
