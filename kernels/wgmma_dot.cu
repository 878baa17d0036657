/* kernels/wgmma_dot.cu — `wgmma-e4m3`, `wgmma-e4m3-promoted` and the
 * mutant `m-wgmma-fp32`: an E4M3 dot on Hopper's warpgroup tensor-core
 * instruction (wgmma, sm_90a), plain and with DeepSeek-V3's promotion.
 * Their card, host models, descriptors and GPU entry points.
 *
 *   names       wgmma-e4m3, wgmma-e4m3-promoted, m-wgmma-fp32
 *   origin      dotfuzz: the fp8 GEMM inner loop of Hopper code (one
 *               output element's chain over K) made a dot; DeepSeek-V3
 *               (arXiv 2412.19437, sec. 3.3) for the promotion
 *   GPU code    one warpgroup (128 threads), one block: per step 32
 *               elements through one wgmma m64n8k32 (A and B from shared
 *               memory, no swizzle): A's row 0 and B's column 0 hold the
 *               chunk, every other row and column is zero, so D[0][0] (thread
 *               0's d0) is one chain over the whole vector, the GEMM's shape.
 *               Promoted: every 128 elements thread 0 adds the chain into
 *               an f32 total (to nearest) and the chain starts from 0
 *               (wgmma_e4m3_dot); a case's own launch is that block, a
 *               batch is one launch of a block per case, each with its own
 *               tiles (kernels/one_block.h: df_one_block_enqueue_batch)
 *   host model  kernels/fused_model.h: one chain of fused steps of 32 with
 *               wgmma's published arithmetic (kernels/fp8_models.h: 13
 *               bits kept, an e8m13 result toward zero); promoted, a chain
 *               per 128 products added in float
 *   arithmetic  declared with that model (no bug where the GPU does it);
 *               m-wgmma-fp32 runs the plain kernel declared as fp32
 *               tensor-core accumulation (25 bits kept, f32 result), the
 *               claim fp8 code makes and wgmma does not keep: DeepSeek-V3's
 *               observation, about 2% relative error at K = 4096
 *   h(n)        ceil(n / 32) steps (informational: the fused bound judges)
 *   differs     wgmma, not mma.sync: on an H100 the two run E4M3 with
 *               different arithmetic (docs/tensor-cores.md)
 *
 * Deterministic, held to its host model bit for bit. Built for sm_90a
 * alone (the Makefile gives this file sm_90a where sm_90 is asked for);
 * elsewhere the kernel returns NaN, which the oracle calls a bug. Cases up
 * to 65,536 elements (the low-precision families make cases whole). */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"

#define WG_MAX_N 65536u
#define WG_PROMOTE 128u

#ifndef __CUDACC__
/* ---- host models and descriptors (C11) ---- */
#include "kernels/fp8_models.h"
#include "kernels/fused_model.h"

extern const df_kernel df_kernel_wgmma_e4m3, df_kernel_wgmma_e4m3_promoted, df_mutant_wgmma_fp32;

static int wg_plain_model(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    return df_model_fused(&df_kernel_wgmma_e4m3, c, out);
}
static int wg_promoted_model(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    return df_model_fused(&df_kernel_wgmma_e4m3_promoted, c, out);
}
/* The mutant does what the plain kernel does, whatever it declares. */
static int wg_fp32_model(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    return df_model_fused_as(&df_mutant_wgmma_fp32, &df_wgmma_e4m3_chain, c, out);
}

#ifdef DOTFUZZ_CUDA
extern const struct df_gpu_ops df_gpu_wgmma_e4m3, df_gpu_wgmma_e4m3_promoted;
#endif

#define WG_LAUNCH                                                              \
    .elem = DF_E4M3, .acc = DF_F32,                                            \
    .flags = DF_K_DETERMINISTIC | DF_K_ANY_ALIGNMENT | DF_K_GRID_FREE, .block_min = 128, \
    .block_max = 128, .block_default = 128, .grid_max = 1, .per_thread = 1, \
    .max_n = WG_MAX_N, .tree_height = df_fp8_chain_height, .fused_chains = 1

const df_kernel df_kernel_wgmma_e4m3 = {
    .name = "wgmma-e4m3",
    .origin = "dotfuzz",
    .summary = "e4m3 in, wgmma (sm_90a) into f32, one chain keeping 13 bits, as declared",
    WG_LAUNCH,
    .host_model = wg_plain_model,
    .gpu = DF_GPU_REF(df_gpu_wgmma_e4m3),
    .fused = &df_wgmma_e4m3_chain,
};

const df_kernel df_kernel_wgmma_e4m3_promoted = {
    .name = "wgmma-e4m3-promoted",
    .origin = "dotfuzz",
    .summary = "e4m3 in, wgmma (sm_90a), the chain added into f32 every 128 (DeepSeek-V3)",
    WG_LAUNCH,
    .host_model = wg_promoted_model,
    .gpu = DF_GPU_REF(df_gpu_wgmma_e4m3_promoted),
    .fused = &df_wgmma_e4m3_chain,
    .fused_promote = WG_PROMOTE,
};

const df_kernel df_mutant_wgmma_fp32 = {
    .name = "m-wgmma-fp32",
    .origin = "dotfuzz (wgmma-e4m3)",
    .summary = "wgmma e4m3 chain declared as fp32 tensor-core accumulation: keeps 13 bits",
    WG_LAUNCH,
    .host_model = wg_fp32_model,
    .gpu = DF_GPU_REF(df_gpu_wgmma_e4m3),
    .fused = &df_tc_e4m3_fp32,
};
#else
/* ---- GPU kernel and launchers (CUDA C) ---- */
#include "kernels/one_block.h"

enum {
    WG_STAGE = 8,     /* steps of 32 staged in shared memory at a time */
    WG_A_SPAN = 2048, /* a step's A: 64 rows x 32 bytes, K-major */
    WG_B_SPAN = 256,  /* a step's B: 8 columns x 32 bytes, K-major */
};

/* A shared-memory matrix descriptor, no swizzle: the start address, and
 * 128 bytes (one 8 x 16-byte core matrix) both between core matrices along
 * K (leading) and along M or N (stride). Only row 0 of A and column 0 of B
 * carry data: their two core matrices along K sit 128 bytes apart, and
 * every other byte either reading of the offsets reaches is zero. */
__device__ __forceinline__ unsigned long long wg_desc(unsigned smem_addr)
{
    return (unsigned long long)((smem_addr & 0x3ffffu) >> 4) | (8ull << 16) | (8ull << 32);
}

/* d += A B for one step, waited for: the wgmma issued, committed and
 * complete within one asm statement, so the compiler never sees the
 * accumulator while the tensor core owns it. */
__device__ __forceinline__ void wg_step(float d[4], unsigned long long da, unsigned long long db)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %6, 0;\n"
                 "wgmma.fence.sync.aligned;\n"
                 "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 "
                 "{%0, %1, %2, %3}, %4, %5, p, 1, 1;\n"
                 "wgmma.commit_group.sync.aligned;\n"
                 "wgmma.wait_group.sync.aligned 0;\n"
                 "}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "l"(da), "l"(db), "r"(1)
                 : "memory");
#else
    (void)da, (void)db;
    d[0] = __int_as_float(0x7fc00000); /* no wgmma outside sm_90a */
#endif
}

/* The dot of a and b (n E4M3 values each) into *out; promote 0 for the
 * plain chain, else the products a promotion takes. One warpgroup, the
 * A/B tiles in its block's shared memory. */
__device__ __forceinline__ void wgmma_e4m3_dot(const unsigned char *a, const unsigned char *b,
                                               unsigned n, float *out, unsigned promote)
{
    __shared__ __align__(1024) unsigned char sa[WG_STAGE * WG_A_SPAN];
    __shared__ __align__(1024) unsigned char sb[WG_STAGE * WG_B_SPAN];
    unsigned tid = threadIdx.x;
    for (unsigned i = tid; i < sizeof sa / 16; i += 128)
        ((uint4 *)sa)[i] = make_uint4(0, 0, 0, 0);
    for (unsigned i = tid; i < sizeof sb / 16; i += 128)
        ((uint4 *)sb)[i] = make_uint4(0, 0, 0, 0);
    /* the zeros written before any thread stores data: the first stage's
     * bytes fall in 16-byte chunks other warps zero */
    __syncthreads();
    unsigned sa_addr = (unsigned)__cvta_generic_to_shared(sa);
    unsigned sb_addr = (unsigned)__cvta_generic_to_shared(sb);
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f}, total = 0.0f;
    for (unsigned base = 0; base < n; base += 32 * WG_STAGE) {
        for (unsigned i = tid; i < 32 * WG_STAGE; i += 128) {
            unsigned j = base + i, step = i / 32, k = i % 32;
            unsigned at = (k >> 4) * 128 + (k & 15); /* row 0 of core matrix k / 16 */
            sa[step * WG_A_SPAN + at] = j < n ? a[j] : 0;
            sb[step * WG_B_SPAN + at] = j < n ? b[j] : 0;
        }
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
        /* the generic proxy's stores, seen by the async proxy wgmma reads with */
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
        __syncthreads();
        unsigned steps = min((unsigned)WG_STAGE, (n - base + 31) / 32);
        for (unsigned s = 0; s < steps; s++) {
            wg_step(d, wg_desc(sa_addr + s * WG_A_SPAN), wg_desc(sb_addr + s * WG_B_SPAN));
            unsigned done = base + 32 * (s + 1);
            if (promote && (done % promote == 0 || done >= n)) {
                total += d[0];
                d[0] = d[1] = d[2] = d[3] = 0.0f;
            }
        }
        __syncthreads(); /* the next stage overwrites what these steps read */
    }
    if (tid == 0)
        *out = promote ? total : d[0];
}

/* The case types of kernels/one_block.h: one warpgroup a case. */
template <unsigned PROMOTE> struct wg_case {
    typedef unsigned char elem;
    static constexpr unsigned threads = 128;
    static constexpr const char *name = PROMOTE ? "wgmma_e4m3_dot (promoted)" : "wgmma_e4m3_dot";
    static __device__ void dot(const elem *a, const elem *b, unsigned n, float *out)
    {
        wgmma_e4m3_dot(a, b, n, out, PROMOTE);
    }
};

extern "C" const struct df_gpu_ops df_gpu_wgmma_e4m3 = DF_ONE_BLOCK_OPS(wg_case<0>);
extern "C" const struct df_gpu_ops df_gpu_wgmma_e4m3_promoted =
    DF_ONE_BLOCK_OPS(wg_case<WG_PROMOTE>);
#endif
