/* kernels/mma_dot.cu — tensor-core dots of low-precision inputs into f32:
 * `mma-f16`, `mma-bf16` (WMMA m16n16k16) and `mma-e4m3` (mma.sync
 * m16n8k32, sm_89 and later). Their card, host models, descriptors and GPU
 * entry points.
 *
 *   names       mma-f16, mma-bf16, mma-e4m3
 *   origin      dotfuzz: the tensor-core dot of low-precision data that
 *               today's GPU code runs, made a dot (A's row r and B's column
 *               r hold chunk r of a and of b, so the diagonal of the product
 *               holds C chains of dot products)
 *   GPU code    one warp, one block: per iteration C chunks of k elements
 *               (f16/bf16: C 16, k 16; e4m3: C 8, k 32) through one mma,
 *               the accumulator kept across iterations; then lane 0 adds the
 *               C diagonal values in f32, in order, rounded to nearest
 *               (wmma_dot, mma_e4m3_dot); a case's own launch is that
 *               block, a batch is one launch of a block per case
 *               (kernels/one_block.h: df_one_block_enqueue_batch)
 *   host model  chain r: groups r, r + C, r + 2C, ... of k products, each a
 *               fused group (reference/fused_dot.h) whose c is the chain so
 *               far; then the chains' sum in float (kernels/fused_model.h).
 *               mma-e4m3 has none: on
 *               an H100 its results differ from that shape's in about one
 *               case in eleven by a few units of the cut (docs/tensor-
 *               cores.md), so the bound alone judges it until `dotfuzz
 *               probe` pins its arithmetic
 *   arithmetic  declared fused (df_kernel.fused): Hopper's published model
 *               for fp16 and bf16 (16 products, 25 bits kept below the
 *               largest, f32 result toward zero); for e4m3 on mma.sync the
 *               same shape with 32 products (the 13-bit cut is wgmma's, not
 *               this instruction's: `dotfuzz probe` says what it keeps)
 *   h(n)        ceil(n / (C k)) groups a chain + C - 1 (informational: the
 *               fused bound judges them)
 *   differs     tensor cores: no IEEE addition in the chains at all
 *
 * Deterministic: one warp, a fixed order; mma-f16 and mma-bf16 are held to
 * their host models bit for bit wherever the result is clear of the
 * subnormals, from 2^-101 up (where a step's result falls below 2^-126 an
 * H100 cuts bf16 sums differently, not yet modelled: the bound alone
 * judges those, fuzz/oracle.c's below_fused_model). Cases up to 65,536 elements (the low-
 * precision families make cases whole). */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"

#define MMA_MAX_N 65536u

#ifndef __CUDACC__
/* ---- host models and descriptors (C11) ---- */
#include "kernels/fused_model.h"

static const df_fused_model mma_f16_model = {16, 25, 23, -126, 127, DF_ROUND_ZERO, -14};
static const df_fused_model mma_bf16_model = {16, 25, 23, -126, 127, DF_ROUND_ZERO, -126};
static const df_fused_model mma_e4m3_model = {32, 25, 23, -126, 127, DF_ROUND_ZERO, -6};

extern const df_kernel df_kernel_mma_f16, df_kernel_mma_bf16, df_kernel_mma_e4m3;

static int mma_f16_model_run(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    return df_model_fused(&df_kernel_mma_f16, c, out);
}
static int mma_bf16_model_run(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    return df_model_fused(&df_kernel_mma_bf16, c, out);
}

static uint64_t height_16(uint64_t n, const df_launch *l)
{
    (void)l;
    return (n + 255) / 256 + 15;
}
static uint64_t height_8x32(uint64_t n, const df_launch *l)
{
    (void)l;
    return (n + 255) / 256 + 7;
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_mma_f16, df_gpu_mma_bf16, df_gpu_mma_e4m3;
#endif

#define MMA_LAUNCH                                                             \
    .acc = DF_F32, .flags = DF_K_DETERMINISTIC | DF_K_ANY_ALIGNMENT | DF_K_GRID_FREE, \
    .block_min = 32, .block_max = 32, .block_default = 32, .grid_max = 1, .per_thread = 1, \
    .max_n = MMA_MAX_N

const df_kernel df_kernel_mma_f16 = {
    .name = "mma-f16",
    .origin = "dotfuzz",
    .summary = "f16 in, tensor cores (WMMA m16n16k16) into f32, 16 fused chains",
    .elem = DF_F16,
    MMA_LAUNCH,
    .tree_height = height_16,
    .host_model = mma_f16_model_run,
    .gpu = DF_GPU_REF(df_gpu_mma_f16),
    .fused = &mma_f16_model,
    .fused_chains = 16,
};

const df_kernel df_kernel_mma_bf16 = {
    .name = "mma-bf16",
    .origin = "dotfuzz",
    .summary = "bf16 in, tensor cores (WMMA m16n16k16) into f32, 16 fused chains",
    .elem = DF_BF16,
    MMA_LAUNCH,
    .tree_height = height_16,
    .host_model = mma_bf16_model_run,
    .gpu = DF_GPU_REF(df_gpu_mma_bf16),
    .fused = &mma_bf16_model,
    .fused_chains = 16,
};

const df_kernel df_kernel_mma_e4m3 = {
    .name = "mma-e4m3",
    .origin = "dotfuzz",
    .summary = "e4m3 in, tensor cores (mma.sync m16n8k32, sm_89+) into f32, 8 fused chains",
    .elem = DF_E4M3,
    MMA_LAUNCH,
    .tree_height = height_8x32,
    .host_model = NULL, /* not the published shape on an H100: see the card */
    .gpu = DF_GPU_REF(df_gpu_mma_e4m3),
    .fused = &mma_e4m3_model,
    .fused_chains = 8,
};
#else
/* ---- GPU kernels and launchers (CUDA C) ---- */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include "kernels/one_block.h"

/* f16 or bf16: per iteration 256 elements, chunk r (16 of them) in A's row
 * r and B's column r (B column-major: the same layout in shared memory);
 * the accumulator's diagonal holds the 16 chains. One warp. */
template <typename T>
__device__ __forceinline__ void wmma_dot(const unsigned short *a, const unsigned short *b,
                                         unsigned n, float *out)
{
    __shared__ __align__(32) unsigned short sa[256], sb[256];
    __shared__ __align__(32) float sc[256];
    nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, T, nvcuda::wmma::row_major> fa;
    nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, T, nvcuda::wmma::col_major> fb;
    nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> fc;
    nvcuda::wmma::fill_fragment(fc, 0.0f);
    for (unsigned base = 0; base < n; base += 256) {
        for (unsigned i = threadIdx.x; i < 256; i += 32) {
            unsigned j = base + i;
            sa[i] = j < n ? a[j] : 0; /* +0 in both formats */
            sb[i] = j < n ? b[j] : 0;
        }
        __syncwarp();
        nvcuda::wmma::load_matrix_sync(fa, (const T *)sa, 16);
        nvcuda::wmma::load_matrix_sync(fb, (const T *)sb, 16);
        nvcuda::wmma::mma_sync(fc, fa, fb, fc);
        __syncwarp();
    }
    nvcuda::wmma::store_matrix_sync(sc, fc, 16, nvcuda::wmma::mem_row_major);
    __syncwarp();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int r = 0; r < 16; r++)
            s += sc[r * 17];
        *out = s;
    }
}

/* 4 bytes of v from element j on (zeros past n), little-endian: element j
 * in the low byte, as mma's packed operands hold them. */
__device__ __forceinline__ unsigned load4(const unsigned char *v, unsigned j, unsigned n)
{
    unsigned w = 0;
    for (unsigned i = 0; i < 4; i++)
        w |= (j + i < n ? (unsigned)v[j + i] : 0u) << (8 * i);
    return w;
}

/* e4m3: per iteration 256 elements, chunk g (32 of them) in A's row g and
 * B's column g, g = lane / 4; lane 4g + t holds the chunk's elements
 * 4t..4t+3 and 16+4t..16+4t+3 of both (A's rows 8..15 are zero). The
 * diagonal D[g][g] is lane 4g + g/2's c0 (g even) or c1 (g odd). One warp. */
__device__ __forceinline__ void mma_e4m3_dot(const unsigned char *a, const unsigned char *b,
                                             unsigned n, float *out)
{
    __shared__ float diag[8];
    unsigned lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    float c[4] = {0.0f, 0.0f, 0.0f, 0.0f}; /* rows g (0, 1) and g + 8 (2, 3) */
    for (unsigned base = 0; base < n; base += 256) {
        unsigned j = base + 32 * g + 4 * t;
        unsigned a0 = load4(a, j, n), a2 = load4(a, j + 16, n);
        unsigned b0 = load4(b, j, n), b1 = load4(b, j + 16, n);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
        asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a0), "r"(0u), "r"(a2), "r"(0u), "r"(b0), "r"(b1));
#else
        (void)a0, (void)a2, (void)b0, (void)b1;
        c[0] = c[1] = __int_as_float(0x7fc00000); /* no e4m3 mma below sm_89 */
#endif
    }
    if (t == (g >> 1))
        diag[g] = c[g & 1];
    __syncwarp();
    if (lane == 0) {
        float s = 0.0f;
        for (int r = 0; r < 8; r++)
            s += diag[r];
        *out = s;
    }
}

/* The case types of kernels/one_block.h: one warp a case. */
template <typename T> struct wmma_case {
    typedef unsigned short elem;
    static constexpr unsigned threads = 32;
    static constexpr const char *name = "wmma_dot";
    static __device__ void dot(const elem *a, const elem *b, unsigned n, float *out)
    {
        wmma_dot<T>(a, b, n, out);
    }
};

struct mma_e4m3_case {
    typedef unsigned char elem;
    static constexpr unsigned threads = 32;
    static constexpr const char *name = "mma_e4m3_dot";
    static __device__ void dot(const elem *a, const elem *b, unsigned n, float *out)
    {
        mma_e4m3_dot(a, b, n, out);
    }
};

extern "C" const struct df_gpu_ops df_gpu_mma_f16 = DF_ONE_BLOCK_OPS(wmma_case<__half>);
extern "C" const struct df_gpu_ops df_gpu_mma_bf16 = DF_ONE_BLOCK_OPS(wmma_case<__nv_bfloat16>);
extern "C" const struct df_gpu_ops df_gpu_mma_e4m3 = DF_ONE_BLOCK_OPS(mma_e4m3_case);
#endif
