/* tools/cublaslt_splitk.cu — a dotfuzz finding made a reproducer for the
 * vendor: cuBLASLt's fp8 matmul (E4M3 x E4M3 -> f32, "TN", one dot as
 * D[0][0]) over one case file, under every algorithm its heuristic offers
 * for a few call shapes: K = n rounded up to 16, 64 or 256, a workspace
 * of 0, 4 MiB or 64 MiB, fast accumulation off and on. Each line prints
 * the algorithm's split-K count and the result beside the exact dot; a
 * result off by more than 1000 is marked WRONG.
 *
 *   nvcc -O2 -arch=sm_90 -Werror all-warnings -o build/tools/cublaslt-splitk \
 *       tools/cublaslt_splitk.cu -lcublasLt
 *   build/tools/cublaslt-splitk CASEFILE      (an e4m3 case, version 4)
 *
 * Exit 0 when every result is right, 1 when one is wrong, 2 on bad input
 * or a failed CUDA or cuBLASLt call. */
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An E4M3 value (S.EEEE.MMM, bias 7, S.1111.111 NaN), exactly. */
static double e4m3(uint8_t b)
{
    int e = (b >> 3) & 15, m = b & 7;
    if (e == 15 && m == 7)
        return NAN;
    double v = e ? (1 + m / 8.0) * ldexp(1.0, e - 7) : m / 8.0 * ldexp(1.0, -6);
    return (b >> 7) ? -v : v;
}

#define CHECK(call)                                                            \
    do {                                                                       \
        if ((call) != 0) {                                                     \
            fprintf(stderr, "cublaslt-splitk: %s failed\n", #call);           \
            exit(2);                                                           \
        }                                                                      \
    } while (0)

/* D[0][0] of the fp8 matmul of a and b (n bytes each) padded with zeros to
 * K, over algorithm k of those the heuristic gives (*found of them). */
static int run(cublasLtHandle_t h, const uint8_t *a, const uint8_t *b, uint64_t n, size_t K,
               size_t ws_bytes, int8_t fast, int k, int *found, int *splitk, float *out)
{
    const int M = 16;
    uint8_t *A, *B;
    float *D;
    void *ws = NULL;
    CHECK(cudaMalloc(&A, M * K));
    CHECK(cudaMalloc(&B, M * K));
    CHECK(cudaMalloc(&D, M * M * sizeof(float)));
    if (ws_bytes)
        CHECK(cudaMalloc(&ws, ws_bytes));
    CHECK(cudaMemset(A, 0, M * K));
    CHECK(cudaMemset(B, 0, M * K));
    CHECK(cudaMemcpy(A, a, n, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B, b, n, cudaMemcpyHostToDevice));
    cublasLtMatmulDesc_t op;
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    CHECK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast));
    cublasLtMatrixLayout_t ad, bd, dd;
    CHECK(cublasLtMatrixLayoutCreate(&ad, CUDA_R_8F_E4M3, K, M, K));
    CHECK(cublasLtMatrixLayoutCreate(&bd, CUDA_R_8F_E4M3, K, M, K));
    CHECK(cublasLtMatrixLayoutCreate(&dd, CUDA_R_32F, M, M, M));
    cublasLtMatmulPreference_t pref;
    CHECK(cublasLtMatmulPreferenceCreate(&pref));
    CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                               &ws_bytes, sizeof ws_bytes));
    cublasLtMatmulHeuristicResult_t heur[8];
    CHECK(cublasLtMatmulAlgoGetHeuristic(h, op, ad, bd, dd, dd, pref, 8, heur, found));
    int ran = k < *found;
    if (ran) {
        float one = 1.0f, zero = 0.0f;
        size_t size;
        CHECK(cublasLtMatmul(h, op, &one, A, ad, B, bd, &zero, D, dd, D, dd, &heur[k].algo, ws,
                             ws_bytes, 0));
        CHECK(cudaMemcpy(out, D, sizeof *out, cudaMemcpyDeviceToHost));
        CHECK(cublasLtMatmulAlgoConfigGetAttribute(&heur[k].algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM,
                                                   splitk, sizeof *splitk, &size));
    }
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(ad);
    cublasLtMatrixLayoutDestroy(bd);
    cublasLtMatrixLayoutDestroy(dd);
    cublasLtMatmulDescDestroy(op);
    cudaFree(A);
    cudaFree(B);
    cudaFree(D);
    if (ws)
        cudaFree(ws);
    return ran;
}

int main(int argc, char **argv)
{
    static uint8_t buf[1 << 20];
    FILE *f = argc == 2 ? fopen(argv[1], "rb") : NULL;
    if (!f) {
        fprintf(stderr, "usage: cublaslt-splitk CASEFILE (an e4m3 case file)\n");
        return 2;
    }
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    uint64_t n;
    memcpy(&n, buf + 40, sizeof n);
    if (len < 128 || buf[16] != 6 || len < 128 + 2 * n) {
        fprintf(stderr, "cublaslt-splitk: %s: not an e4m3 case file\n", argv[1]);
        return 2;
    }
    const uint8_t *a = buf + 128, *b = a + n;
    double exact = 0;
    for (uint64_t i = 0; i < n; i++)
        exact += e4m3(a[i]) * e4m3(b[i]);
    printf("n %llu, exact dot %a\n", (unsigned long long)n, exact);
    cublasLtHandle_t h;
    CHECK(cublasLtCreate(&h));
    const size_t pads[] = {16, 64, 256}, wss[] = {0, 4u << 20, 64u << 20};
    int wrong = 0;
    for (int fast = 0; fast < 2; fast++)
        for (int pi = 0; pi < 3; pi++)
            for (int wi = 0; wi < 3; wi++)
                for (int k = 0, found = 1; k < found; k++) {
                    size_t K = (n + pads[pi] - 1) / pads[pi] * pads[pi];
                    int splitk = 0;
                    float r = 0;
                    if (!run(h, a, b, n, K, wss[wi], (int8_t)fast, k, &found, &splitk, &r))
                        break;
                    int bad = fabs(r - exact) > 1000;
                    wrong |= bad;
                    printf("fast-accum %d  K %6zu (n rounded up to %3zu)  workspace %8zu  "
                           "algorithm %d  split-K %2d:  %a%s\n",
                           fast, K, pads[pi], wss[wi], k, splitk, r, bad ? "  WRONG" : "");
                }
    cublasLtDestroy(h);
    return wrong;
}
