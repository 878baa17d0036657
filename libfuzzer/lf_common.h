/* lf_common.h — what the libFuzzer targets share: the input cap and the
 * kernels a case runs on (replay's rule: the one it names, else every
 * kernel of its element type the backend can run). */
#ifndef DOTFUZZ_LF_COMMON_H
#define DOTFUZZ_LF_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz/corpus.h"
#include "kernels/kernel.h"

/* Inputs longer than this are rejected, to keep executions fast: an f32
 * case of n = 16,368, an f64 case of n = 8,184, f16 or bf16 32,736, e4m3
 * or e5m2 65,472. */
#define DF_LF_MAX_INPUT ((size_t)1 << 17)

/* Offsets beyond this are rejected: they only move the vectors further
 * inside their allocation and would make each run allocate more. */
#define DF_LF_MAX_OFFSET 64u

/* The i-th correct kernel of element type t, counting only those of t;
 * NULL past the last. */
static inline const df_kernel *df_lf_kernel_of_type(df_type t, size_t i)
{
    for (size_t j = 0; j < df_kernel_count(); j++) {
        const df_kernel *k = df_kernel_at(j);
        if (k->elem == t && i-- == 0)
            return k;
    }
    return NULL;
}

/* DOTFUZZ_LF_KERNEL=NAME fuzzes one kernel (a mutant, a plugin's, any the
 * registry knows): every input runs on it, whatever kernel it names, and the
 * mutator's fresh cases are of its type. NULL when unset or unknown. */
static inline const df_kernel *df_lf_forced_kernel(void)
{
    const char *name = getenv("DOTFUZZ_LF_KERNEL");
    return name && *name ? df_kernel_find(name) : NULL;
}

static inline size_t df_lf_kernels_of_type(df_type t)
{
    size_t n = 0;
    while (df_lf_kernel_of_type(t, n))
        n++;
    return n;
}

#endif
