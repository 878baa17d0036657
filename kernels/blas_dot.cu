/* kernels/blas_dot.cu — `ref-blas-sdot`, `ref-blas-ddot`: the reference
 * BLAS dot, arguments and all, as a kernel of the host backend. Their card,
 * models and descriptors. (The stride mutants are flaws of `shfl-blas`'s
 * gather, which runs on the GPU too: kernels/shfl_blas.cu.)
 *
 *   names       ref-blas-sdot (f32), ref-blas-ddot (f64)
 *   origin      dotfuzz: netlib's reference BLAS sdot/ddot (docs/blas.md)
 *   GPU code    none: the host backend's reference (shfl-blas and the cuBLAS
 *               peers take the same arguments on the GPU)
 *   host model  the reference loop on the call's buffers: nothing for
 *               n <= 0; ix starts at (1 - n) incx for incx < 0, else 0; each
 *               step adds x[ix] y[iy], the product rounded, then the sum,
 *               in the accumulator's type, in order
 *   h(n)        n: the first product's rounding and n - 1 additions
 *   differs     takes BLAS arguments (DF_K_BLAS): increments of any sign,
 *               zero, n <= 0
 */
#include "kernels/kernel.h"
#include "kernels/gpu_ops.h"

#ifndef __CUDACC__
/* ---- host models and descriptors (C11) ---- */
#include "kernels/blas.h"
#include "kernels/model_common.h"

/* The reference loop over c's buffers, in T: step i reads x[ix] with ix
 * from (1 - n) incx for a negative incx, else from 0 (df_blas_pos). */
#define BLAS_LOOP(T, c, out)                                                   \
    do {                                                                       \
        const T *x = (const T *)(c)->a, *y = (const T *)(c)->b;                \
        uint64_t n = (c)->blas.n_arg > 0 ? (uint64_t)(c)->blas.n_arg : 0;      \
        T acc = 0;                                                             \
        for (uint64_t i = 0; i < n; i++) {                                     \
            T p = x[df_blas_pos(i, n, (c)->blas.inc_a)] *                      \
                  y[df_blas_pos(i, n, (c)->blas.inc_b)];                       \
            acc += p;                                                          \
        }                                                                      \
        (out)->f = acc;                                                        \
    } while (0)

/* k's loop over case c, a BLAS case of k's type (the backend makes a plain
 * case one with increments 1). */
static int blas_model(const df_kernel *k, const df_case *c, df_result *out)
{
    df_launch l;
    if (df_blas_model_begin(k, c, &l, out) != 0)
        return -1;
    if (k->elem == DF_F64)
        BLAS_LOOP(double, c, out);
    else
        BLAS_LOOP(float, c, out);
    return 0;
}

extern const df_kernel df_kernel_ref_blas_sdot, df_kernel_ref_blas_ddot;

static int sdot_model(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    return blas_model(&df_kernel_ref_blas_sdot, c, out);
}

static int ddot_model(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    return blas_model(&df_kernel_ref_blas_ddot, c, out);
}

static uint64_t sequential(uint64_t n, const df_launch *l)
{
    (void)l;
    return n ? n : 1;
}

#define BLAS_LAUNCH                                                            \
    .flags = DF_K_DETERMINISTIC | DF_K_BLAS, .block_min = 1, .block_max = 1,   \
    .block_default = 1, .grid_max = 1, .per_thread = 1, .max_n = 65536,        \
    .tree_height = sequential

const df_kernel df_kernel_ref_blas_sdot = {
    .name = "ref-blas-sdot", .origin = "dotfuzz",
    .summary = "reference BLAS sdot: increments of any sign, n <= 0 (host only)",
    .elem = DF_F32, .acc = DF_F32, BLAS_LAUNCH, .host_model = sdot_model};
const df_kernel df_kernel_ref_blas_ddot = {
    .name = "ref-blas-ddot", .origin = "dotfuzz",
    .summary = "reference BLAS ddot: increments of any sign, n <= 0 (host only)",
    .elem = DF_F64, .acc = DF_F64, BLAS_LAUNCH, .host_model = ddot_model};

#endif
