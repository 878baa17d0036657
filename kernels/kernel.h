/* kernel.h — the kernel descriptor: everything the harness knows about a dot
 * kernel, and the result type every backend fills in.
 *
 * A kernel lives in one file under kernels/ that holds its host model and
 * descriptor (compiled as C11 by cc) and its CUDA kernel and launcher
 * (compiled by nvcc, inside #ifdef __CUDACC__). The host model performs the
 * same floating-point operations in the same order as the GPU kernel, so a
 * deterministic kernel must match it bit for bit.
 */
#ifndef DOTFUZZ_KERNEL_H
#define DOTFUZZ_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz/case.h"
#include "fuzz/lowp.h"
#include "reference/fused_dot.h"
#include "kernels/soft_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a kernel run produced. Float kernels widen their result exactly to
 * double in f; integer kernels sign-extend theirs into i. status is
 * DF_RUN_OK, or DF_RUN_ERROR with a one-line message in err (a CUDA error,
 * a failed allocation, a broken invariant in debug mode). */
enum { DF_RUN_OK = 0, DF_RUN_ERROR = 1 };

/* A host model's return for an error that, on the GPU, poisons the CUDA
 * context (an illegal address): only when the host backend emulates one
 * (DF_HOST_STICKY_ENV set), with out->status DF_RUN_ERROR and out->err
 * set. Then every later run of that backend fails with the same error,
 * and batches run kernel by kernel as on the GPU, so the host backend
 * tests how the engine and a campaign live with a lost context. Without
 * it the model does what the kernel does on a CPU: it crashes. */
enum { DF_MODEL_STICKY = 2 };
#define DF_HOST_STICKY_ENV "DOTFUZZ_HOST_STICKY"

typedef struct df_result {
    double f;
    int64_t i;
    int status;
    char err[160];
    /* Soft errors the kernel reported (kernels/soft_error.h): bit code-1 of
     * soft_mask set when soft[code-1] holds the first report of that kind. */
    uint32_t soft_mask;
    df_soft_report soft[DF_SOFT_CODES];
} df_result;

/* Copies into dst what a reader of src's result may read: the value, the
 * status and the soft-error mask always, the error text only for a failed
 * run, a soft report only where its bit is set (every reader goes by the
 * status and the mask); the rest of dst keeps what it held. The batches'
 * results go into their slots this way on the engine's caller (4,096 at
 * n = 2000, a slot's lines another core wrote): 328 bytes a result whole. */
static inline void df_result_copy(df_result *dst, const df_result *src)
{
    dst->f = src->f;
    dst->i = src->i;
    dst->status = src->status;
    dst->soft_mask = src->soft_mask;
    if (src->status != DF_RUN_OK)
        memcpy(dst->err, src->err, sizeof dst->err);
    for (unsigned q = 0; src->soft_mask && q < DF_SOFT_CODES; q++)
        if (src->soft_mask & (1u << q))
            dst->soft[q] = src->soft[q];
}

/* A failed run: res->status DF_RUN_ERROR, res->err "KERNEL case seed=S
 * index=I n=N: WHAT", the form every run error takes. */
static inline void df_result_error(df_result *res, const char *kernel, const df_case *c,
                                   const char *what)
{
    res->status = DF_RUN_ERROR;
    snprintf(res->err, sizeof res->err, "%s case seed=%llu index=%llu n=%llu: %s", kernel,
             (unsigned long long)c->seed, (unsigned long long)c->index,
             (unsigned long long)c->n, what);
}

/* A host model's soft-error report: the first of its kind is kept, as the
 * GPU slot's atomicCAS keeps the first (kernels/soft_error.h). */
static inline void df_soft_note(df_result *r, uint32_t code, uint32_t kernel, uint32_t line,
                                uint32_t block, uint32_t thread, uint32_t round,
                                uint64_t index, int64_t ivalue, double fvalue)
{
    uint32_t bit = 1u << (code - 1);
    if (code < 1 || code > DF_SOFT_CODES || (r->soft_mask & bit))
        return;
    r->soft_mask |= bit;
    r->soft[code - 1] = (df_soft_report){code, kernel, line, block, thread, round,
                                         index, ivalue, fvalue};
}

/* Scratch memory a host model may use (fold and tournament work in place).
 * Owned by the backend, grown on demand, reused across cases. */
typedef struct df_scratch {
    void *p;
    size_t cap;
} df_scratch;

/* Returns scratch->p with at least bytes available, or NULL. */
void *df_scratch_reserve(df_scratch *s, size_t bytes);
void df_scratch_free(df_scratch *s);
/* Frees scratch when it holds more than keep bytes (a buffer a rare long
 * case grew, which later short ones need not keep). */
void df_scratch_trim(df_scratch *s, size_t keep);
/* df_scratch_reserve for a buffer that holds one case at a time: one past
 * DF_SCRATCH_FIT_MIN bytes and more than four times bytes is let go first,
 * so that it follows the lengths its cases draw instead of keeping the
 * longest it ever held. */
#define DF_SCRATCH_FIT_MIN ((size_t)1 << 18)
void *df_scratch_fit(df_scratch *s, size_t bytes);

/* bytes from src to dst, for memory the copy engine reads next (pinned
 * buffers bound for the GPU): streaming stores where the CPU has SSE2,
 * which skip reading each line of dst in before writing it and leave the
 * caches to the CPU's own work; a copy shorter than a few lines is a
 * plain one. */
void df_copy_streaming(void *dst, const void *src, size_t bytes);

/* Kernel traits (flags). */
enum {
    DF_K_DETERMINISTIC = 1u << 0,   /* same bits every run: model match applies */
    DF_K_FLUSHES_SUBNORMALS = 1u << 1, /* e.g. float atomicAdd on global memory */
    DF_K_ANY_ALIGNMENT = 1u << 2,   /* correct for any offset_a/offset_b */
    DF_K_BLOCK_POW2 = 1u << 3,      /* needs a power-of-two block size */
    DF_K_GRID_FREE = 1u << 4,       /* grid is a free parameter (grid-stride);
                                       otherwise grid = ceil(n / (block*per_thread)) */
    DF_K_DEBUG_INVARIANTS = 1u << 5, /* checks loop invariants when asked */
    DF_K_BLOCK_WARP = 1u << 6,      /* needs a block size that is a multiple of 32 */
    DF_K_HOST_BLIND = 1u << 7,      /* mutants: the bug lives in GPU scheduling and its
                                       host model cannot show it (hunt skips it on host) */
    DF_K_ACC_WIDE = 1u << 8,        /* integer kernel that promises the exact dot as a
                                       64-bit result (int32 inputs): sums past int32 are
                                       in its domain, and the generator may produce them */
    DF_K_ONE_STREAM = 1u << 10,     /* cuda: a batch's cases run one after the other on one
                                       stream, not side by side (cuBLAS: one handle, whose
                                       workspace streams would share; plugins: code we
                                       cannot see); with DF_K_ENQUEUE_THREADS, one stream
                                       and handle a thread */
    DF_K_MODEL_IN_BOUNDS = 1u << 11, /* its host model reads a[0..n) and b[0..n) only
                                       (tests/test_model_bounds.c fences them with
                                       unmapped pages): df_run_model runs it on the
                                       case's own vectors, no guarded copy */
    DF_K_LEN64 = 1u << 12,          /* takes lengths past 2^31: every index and count
                                       in 64 bits, GPU and host model, and nothing
                                       per element but its vectors (run's and hunt's
                                       --huge give it cases that long) */
    DF_K_HUGE_ONLY = 1u << 13,      /* mutants: the bug shows only past 2^31 elements,
                                       on huge cases (hunt skips it without --huge) */
    DF_K_TF32_INPUTS = 1u << 14,    /* f32 inputs cut to tf32 (10 fraction bits, toward
                                       zero, as tensor cores read them) before the
                                       products: the bound gains that, and the exact
                                       and order-set rules, which assume f32 inputs,
                                       do not apply */
    DF_K_BLAS = 1u << 15,           /* takes BLAS arguments (kernels/blas.h): its
                                       cases carry increments and n_arg, and its
                                       routine and model read a and b as the call's
                                       buffers x and y, not as the vectors */
    DF_K_ENQUEUE_THREADS = 1u << 16, /* cuda: its enqueue may run on several host
                                       threads at once, each with its own stream
                                       and ctx.cublas handle (a batch's cases of a
                                       kernel without a batched launcher are then
                                       issued from the pool's threads; cuBLAS is
                                       thread safe, and a handle a stream keeps its
                                       results reproducible: cuBLAS guide 2.1.3-4) */
    DF_K_BATCH_ANY_BLOCK = 1u << 17, /* cuda: its batched launcher takes cases of
                                       several block sizes in one group, each case
                                       block on the power of two of threads at or
                                       above it (those past its block idle), small
                                       ones several a CTA (kernels/gpu_ops.h): cases
                                       of many block sizes make a few groups, and
                                       1-thread blocks no CTA each */
};

/* Guard zones: every backend places a case's vectors between guards of
 * DF_GUARD_ELEMS elements (NaN for floats, DF_GUARD_I32 for int32: odd, so its
 * product with any nonzero int32 is nonzero mod 2^32), so a kernel or host
 * model that reads out of bounds sees poison, not plausible data. */
#define DF_GUARD_ELEMS 64u
#define DF_GUARD_I32 ((int32_t)0x40000001)

/* The poison's bits for t, in the low df_type_size(t) bytes: the default
 * quiet NaN of f32 and f64 (sign clear), DF_GUARD_I32, the canonical NaN
 * of a low-precision format. One definition for the host models' copies
 * (df_guard_fill) and the cuda backend's batch unpack on the device. */
DF_HD uint64_t df_guard_bits(df_type t)
{
    int lowp = df_lowp_of(t);
    if (lowp >= 0)
        return df_lowp_nan_bits((df_lowp)lowp);
    if (t == DF_F32)
        return 0x7fc00000u;
    if (t == DF_F64)
        return 0x7ff8000000000000ull;
    return (uint32_t)DF_GUARD_I32;
}

/* count elements of t's poison at p (df_guard_bits; kernels/launch.c). */
void df_guard_fill(df_type t, void *p, size_t count);

/* GPU side of a kernel, defined by its nvcc-compiled half (see
 * kernels/gpu_ops.h). Opaque to host code. */
struct df_gpu_ops;

typedef struct df_kernel {
    const char *name;      /* "atomic-block" */
    const char *origin;    /* "seed 000", "dotfuzz" */
    const char *summary;   /* one line: what differs from its siblings */
    df_type elem;          /* element type of a and b */
    df_type acc;           /* accumulator and result type */
    unsigned flags;
    uint32_t block_min, block_max, block_default;
    uint32_t grid_max;      /* DF_K_GRID_FREE kernels: largest grid; 0 = no limit */
    uint32_t per_thread;    /* elements per thread when grid is derived (>=1) */
    uint64_t max_n;         /* longest case the kernel accepts; 0 = no limit */

    /* Tree height h: the longest chain of roundings from an input to the
     * result, the product's own rounding included (docs/oracle.md's notation).
     * The oracle's bound is gamma_h * G. Each built-in descriptor names its
     * function here, and the card at the top of its kernel's file gives it
     * as a formula. */
    uint64_t (*tree_height)(uint64_t n, const df_launch *launch);

    /* Host model: same operations, same order as the GPU kernel. NULL for
     * kernels that have none (cuBLAS): the bound alone judges them. */
    int (*host_model)(const df_case *c, df_scratch *scratch, df_result *out);

    /* The kernel itself on the CPU, when it is a routine rather than a model
     * of a GPU kernel (a plugin's whole-routine form): the host backend runs
     * it in place of host_model, and host_model stays the model the cuda
     * backend compares against. NULL for the built-in kernels. */
    int (*host_run)(const df_case *c, df_scratch *scratch, df_result *out);

    /* GPU launcher table; NULL when built without CUDA. */
    const struct df_gpu_ops *gpu;

    /* Its accumulation, when it is not one IEEE addition rounded to
     * nearest in acc per sum: a fused dot (tensor cores: groups of
     * products aligned to the largest, cut, summed and rounded once;
     * reference/fused_dot.h), in fused_chains chains side by side (chain
     * r takes groups r, r + chains, ... of fused->group products each),
     * whose results are added in acc, in chain order, rounded to nearest.
     * The oracle's bound follows it (docs/oracle.md, fused accumulation)
     * in place of gamma_h G. NULL: IEEE sums, the tree height's bound. */
    const df_fused_model *fused;
    uint32_t fused_chains;
    /* A fused kernel that promotes: every fused_promote products (a whole
     * number of groups) its chain's partial sum is added into an acc
     * accumulator, rounded to nearest, and the chain starts again from 0
     * (DeepSeek-V3's fix for fp8 accumulation; cuBLASLt's fp8 matmul
     * without fast accumulation). 0: no promotion. */
    uint32_t fused_promote;
    /* The type the result is rounded to, once, at the end, when narrower
     * than acc (cublasDotEx: f16 data summed in f32, an f16 result); 0: acc
     * itself. The bound gains that rounding; overflow is the result's. */
    df_type result;
} df_kernel;

/* The registry (kernels/registry.c): the correct kernels (what `--kernel
 * all` fuzzes), the mutants (kernels/mutants/: known-buggy variants that
 * prove the oracle catches each bug class) and kernels added at run time
 * (plugins). df_kernel_find searches all three, so a finding on a mutant or
 * a plugin replays by name. */
size_t df_kernel_count(void);
const df_kernel *df_kernel_at(size_t i);
size_t df_mutant_count(void);
const df_kernel *df_mutant_at(size_t i);
size_t df_plugin_count(void);
const df_kernel *df_plugin_at(size_t i);
/* Adds a kernel for this process (plugins). Returns 0, or -1 when its name
 * is taken or the table is full. */
int df_registry_add(const df_kernel *k);
const df_kernel *df_kernel_find(const char *name); /* NULL if unknown */

/* Fills in the derived parts of a launch for kernel k and length n: the
 * grid of kernels whose grid covers n, the block default when block is 0,
 * and clamps nothing silently: returns 0 if the launch is valid for k,
 * otherwise -1 with a reason in why (which may be NULL). */
int df_launch_resolve(const df_kernel *k, uint64_t n, df_launch *launch,
                      char *why, size_t why_len);

static inline int df_is_pow2_u32(uint32_t x) { return x && !(x & (x - 1)); }
#if defined(__CUDACC__)
__host__ __device__ /* the GPU's generator uses it too (fuzz/gen/values.h) */
#endif
static inline uint32_t df_ceil_log2_u64(uint64_t x)
{
    uint32_t r = 0;
    while (r < 64 && ((uint64_t)1 << r) < x)
        r++;
    return r;
}

#ifdef __cplusplus
}
#endif
#endif
