/* registry.c — the table of kernels: the correct ones here, the mutants
 * from kernels/mutants/registry.c, plugins added at run time; lookup by
 * index and by name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel.h"

extern const df_kernel df_kernel_atomic_block;
extern const df_kernel df_kernel_int_atomic;
extern const df_kernel df_kernel_fold;
extern const df_kernel df_kernel_tournament;
extern const df_kernel df_kernel_tree_hostsum;
extern const df_kernel df_kernel_shfl;
extern const df_kernel df_kernel_shfl_f64acc;
extern const df_kernel df_kernel_shfl_f64;
extern const df_kernel df_kernel_shfl_blas;
extern const df_kernel df_kernel_cublas_sdot;
extern const df_kernel df_kernel_cublas_ddot;
extern const df_kernel df_kernel_mma_f16, df_kernel_mma_bf16, df_kernel_mma_e4m3;
extern const df_kernel df_kernel_cublaslt_e4m3_promoted;
extern const df_kernel df_kernel_cublas_hdot, df_kernel_cublas_bfdot;
extern const df_kernel df_kernel_wgmma_e4m3, df_kernel_wgmma_e4m3_promoted;
extern const df_kernel df_kernel_half2_f16;
extern const df_kernel df_kernel_ref_blas_sdot, df_kernel_ref_blas_ddot;

/* Kernels that take the same cases sit next to each other (one element
 * type, the same BLAS use): a run's cycle shares each case among them
 * (fuzz/gen/generator.h, df_gen_share). */
static const df_kernel *const registry[] = {
    /* f32 */
    &df_kernel_atomic_block, &df_kernel_fold, &df_kernel_tournament, &df_kernel_tree_hostsum,
    &df_kernel_shfl, &df_kernel_shfl_f64acc,
    /* i32, f64 */
    &df_kernel_int_atomic, &df_kernel_shfl_f64,
    /* BLAS calls: f32, f64 */
    &df_kernel_shfl_blas, &df_kernel_cublas_sdot, &df_kernel_cublas_ddot,
    /* f16, bf16, e4m3 */
    &df_kernel_mma_f16, &df_kernel_half2_f16, &df_kernel_cublas_hdot, &df_kernel_mma_bf16,
    &df_kernel_cublas_bfdot, &df_kernel_mma_e4m3, &df_kernel_wgmma_e4m3,
    &df_kernel_wgmma_e4m3_promoted, &df_kernel_cublaslt_e4m3_promoted,
    /* the host's references */
    &df_kernel_ref_blas_sdot, &df_kernel_ref_blas_ddot,
};

size_t df_kernel_count(void) { return sizeof registry / sizeof registry[0]; }

const df_kernel *df_kernel_at(size_t i)
{
    return i < df_kernel_count() ? registry[i] : NULL;
}

/* Kernels added at run time. A process-wide table: plugins are loaded once,
 * at start-up, by the command that names them. */
#define DF_PLUGIN_MAX 64
static const df_kernel *plugins[DF_PLUGIN_MAX];
static size_t nplugins;

size_t df_plugin_count(void) { return nplugins; }

const df_kernel *df_plugin_at(size_t i) { return i < nplugins ? plugins[i] : NULL; }

static const df_kernel *find_in(const df_kernel *(*at)(size_t), size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(at(i)->name, name) == 0)
            return at(i);
    return NULL;
}

const df_kernel *df_kernel_find(const char *name)
{
    const df_kernel *k = find_in(df_kernel_at, df_kernel_count(), name);
    if (!k)
        k = find_in(df_mutant_at, df_mutant_count(), name);
    if (!k)
        k = find_in(df_plugin_at, df_plugin_count(), name);
    return k;
}

int df_registry_add(const df_kernel *k)
{
    if (!k || !k->name || df_kernel_find(k->name) || nplugins == DF_PLUGIN_MAX)
        return -1;
    plugins[nplugins++] = k;
    return 0;
}
