/* kernels/blas.c — a BLAS call's buffers (blas.h). */
#include <string.h>

#include "kernels/blas.h"
#include "kernels/kernel.h"

void df_blas_place(df_type t, const void *v, uint64_t n, int32_t inc, void *buf)
{
    size_t es = df_type_size(t);
    uint64_t span = df_blas_footprint(n, inc);
    df_guard_fill(t, buf, (size_t)span);
    for (uint64_t i = 0; i < n; i++)
        memcpy((char *)buf + df_blas_pos(i, n, inc) * es, (const char *)v + i * es, es);
}
