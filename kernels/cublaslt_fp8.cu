/* kernels/cublaslt_fp8.cu — `cublaslt-e4m3-promoted` and the mutants
 * `m-fp8-fast-accum` and `m-cublaslt-splitk`: cuBLASLt's fp8 matmul (E4M3 x
 * E4M3 -> f32, Hopper's wgmma) read as a dot. Their card, descriptors and
 * launchers.
 *
 *   names       cublaslt-e4m3-promoted (CUBLASLT_MATMUL_DESC_FAST_ACCUM off,
 *               no workspace), m-fp8-fast-accum (fast accumulation on),
 *               m-cublaslt-splitk (off, a 4 MiB workspace: cuBLASLt's own
 *               split-K fault); the two mutants in kernels/mutants/
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
 * The workspace decides split-K. Without one, cuBLASLt 13.0 runs K whole
 * (split-K 1) and every K is right; given one, its heuristic splits
 * K = 17 or 19 x 2,688 + 16 into that many slices of 2,688 and drops the
 * last 16 elements (docs/tensor-cores.md, tools/cublaslt_splitk.cu). The
 * peer runs without one, the configuration in which the library is right;
 * m-cublaslt-splitk keeps the fault in reach: K stays n rounded up to 16
 * (what the fp8 rule asks), and its lengths stop at 51,088 = 19 x 2,688 +
 * 16, the K at which the fault was found, which the generator draws often
 * (n = max_n is one of its edges). */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"

#define LT_MAX_N 65536u
#define LT_SPLITK_N 51088u /* 19 x 2,688 + 16: a K cuBLASLt splits and cuts */

#ifndef __CUDACC__
/* ---- descriptors (C11) ---- */

#include "kernels/fp8_models.h"

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_m_fp8_fast_accum, df_gpu_cublaslt_e4m3_promoted,
    df_gpu_m_cublaslt_splitk;
#endif

#define LT_LAUNCH(max)                                                         \
    .elem = DF_E4M3, .acc = DF_F32,                                            \
    .flags = DF_K_ANY_ALIGNMENT | DF_K_GRID_FREE | DF_K_ONE_STREAM | DF_K_ENQUEUE_THREADS, \
    .block_min = 1,                                                            \
    .block_max = 1, .block_default = 1, .grid_max = 1, .per_thread = 1, .max_n = (max), \
    .tree_height = df_fp8_chain_height, .host_model = NULL

/* cuBLASLt's fp8 arithmetic without fast accumulation: the 13-bit wgmma
 * chain promoted into f32 every 128 products */
#define LT_PROMOTED_ARITH                                                      \
    .fused = &df_wgmma_e4m3_chain, .fused_chains = 1, .fused_promote = 128

const df_kernel df_mutant_fp8_fast_accum = {
    .name = "m-fp8-fast-accum",
    .origin = "dotfuzz (cublaslt-e4m3-promoted)",
    .summary = "cuBLASLt fp8 matmul with fast accumulation declared as fp32 tensor cores: "
               "keeps 13 bits",
    LT_LAUNCH(LT_MAX_N),
    .gpu = DF_GPU_REF(df_gpu_m_fp8_fast_accum),
    .fused = &df_tc_e4m3_fp32,
    .fused_chains = 1,
};

const df_kernel df_kernel_cublaslt_e4m3_promoted = {
    .name = "cublaslt-e4m3-promoted",
    .origin = "dotfuzz",
    .summary = "cuBLASLt fp8 matmul (E4M3 -> f32), partial sums promoted to f32",
    LT_LAUNCH(LT_MAX_N),
    .gpu = DF_GPU_REF(df_gpu_cublaslt_e4m3_promoted),
    LT_PROMOTED_ARITH,
};

const df_kernel df_mutant_cublaslt_splitk = {
    .name = "m-cublaslt-splitk",
    .origin = "dotfuzz (cublaslt-e4m3-promoted), a fault of cuBLASLt 13.0 it found",
    .summary = "cuBLASLt fp8 matmul given a workspace: split-K drops the last 16 elements "
               "of K = 19 x 2688 + 16",
    LT_LAUNCH(LT_SPLITK_N),
    .gpu = DF_GPU_REF(df_gpu_m_cublaslt_splitk),
    LT_PROMOTED_ARITH,
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

/* scratch: A (16 K bytes), B (16 K), D (16 x 16 floats), then the
 * workspace where the call has one */
static size_t lt_scratch(uint64_t n, const df_launch *l)
{
    (void)l;
    return 2 * lt_align(LT_DIM * lt_k(n)) + lt_align(LT_DIM * LT_DIM * sizeof(float));
}

static size_t lt_scratch_ws(uint64_t n, const df_launch *l)
{
    return lt_scratch(n, l) + LT_WORKSPACE;
}

/* The calls: fast accumulation and the workspace the heuristic may use. */
typedef enum { LT_PROMOTED, LT_FAST, LT_SPLITK, LT_CALLS } lt_call;
static const int8_t lt_fast_accum[LT_CALLS] = {0, 1, 0};
static const size_t lt_workspace[LT_CALLS] = {0, 0, LT_WORKSPACE};

/* One cuBLASLt handle a process, made at its first fp8 case (the worker
 * that runs it owns the device). */
static cublasLtHandle_t lt_handle;

/* The algorithm cuBLASLt's heuristic picks for each K (a multiple of 16 up
 * to LT_MAX_N) and call, asked once: the query costs a case more
 * host time than its matmul, and for the same descriptors it gives the
 * same answer (what an application that caches its plans runs). Under
 * lt_lock: the cuda backend may call enqueue from several threads. */
typedef struct lt_choice {
    int asked, found;
    cublasLtMatmulAlgo_t algo;
} lt_choice;
static lt_choice lt_choices[LT_CALLS][LT_MAX_N / 16 + 1];
static std::mutex lt_lock;

#define LT_TRY(call, name)                                                     \
    do {                                                                       \
        cublasStatus_t st_ = (call);                                           \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                    \
            rc = df_cublas_failed(ctx, (name), st_);                           \
            goto out;                                                          \
        }                                                                      \
    } while (0)

/* A and B (span bytes each, A then B) from the case's n bytes of a and
 * b, zeros past them: one launch, where a memset and two copies would be
 * three operations a case on the device's queues. */
static const size_t LT_PAD_THREADS = 256, LT_PAD_BLOCKS_MAX = 512;

__global__ void lt_pad_kernel(const unsigned char *a, const unsigned char *b, unsigned char *A,
                              size_t n, size_t span)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < 2 * span; i += stride) {
        const size_t at = i < span ? i : i - span;
        A[i] = at >= n ? 0 : i < span ? a[at] : b[at];
    }
}

static int lt_enqueue(df_gpu_ctx *ctx, const df_case *c, lt_call call)
{
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    size_t K = lt_k(c->n), span = lt_align(LT_DIM * K);
    unsigned char *A = (unsigned char *)ctx->d_scratch, *B = A + span;
    float *D = (float *)(B + span);
    size_t wsb = lt_workspace[call];
    void *ws = wsb ? (char *)D + lt_align(LT_DIM * LT_DIM * sizeof(float)) : NULL;
    size_t pad_blocks = (2 * span + LT_PAD_THREADS - 1) / LT_PAD_THREADS;
    lt_pad_kernel<<<(unsigned)(pad_blocks < LT_PAD_BLOCKS_MAX ? pad_blocks : LT_PAD_BLOCKS_MAX),
                    LT_PAD_THREADS, 0, stream>>>((const unsigned char *)ctx->a,
                                                 (const unsigned char *)ctx->b, A, c->n, span);
    DF_TRY(cudaGetLastError(), "lt_pad_kernel<<<>>>");
    int rc = 0;
    cublasLtMatmulDesc_t op = NULL;
    cublasLtMatrixLayout_t ad = NULL, bd = NULL, dd = NULL;
    cublasLtMatmulPreference_t pref = NULL;
    cublasLtMatmulHeuristicResult_t heur;
    int found = 0;
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    int8_t fast_accum = lt_fast_accum[call];
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
        lt_choice *ch = &lt_choices[call][K / 16];
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

static int lt_promoted(df_gpu_ctx *ctx, const df_case *c) { return lt_enqueue(ctx, c, LT_PROMOTED); }
static int lt_fast(df_gpu_ctx *ctx, const df_case *c) { return lt_enqueue(ctx, c, LT_FAST); }
static int lt_splitk(df_gpu_ctx *ctx, const df_case *c) { return lt_enqueue(ctx, c, LT_SPLITK); }

extern "C" const struct df_gpu_ops df_gpu_cublaslt_e4m3_promoted = {
    lt_scratch, lt_promoted, df_finish_float<float>, NULL, NULL};
extern "C" const struct df_gpu_ops df_gpu_m_fp8_fast_accum = {lt_scratch, lt_fast,
                                                              df_finish_float<float>, NULL, NULL};
extern "C" const struct df_gpu_ops df_gpu_m_cublaslt_splitk = {
    lt_scratch_ws, lt_splitk, df_finish_float<float>, NULL, NULL};
#endif
