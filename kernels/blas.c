/* kernels/blas.c — a BLAS call's buffers (blas.h). */
#include <stdint.h>
#include <string.h>

#include "kernels/blas.h"
#include "kernels/kernel.h"

/* Element i of v (type W) to buf[df_blas_pos(i, n, inc)]: a loop a width,
 * as the host model of every BLAS kernel lays out each case it runs. */
#define PLACE_STRIDED(W)                                                       \
    do {                                                                       \
        const W *src = v;                                                      \
        W *dst = buf;                                                          \
        for (uint64_t i = 0; i < n; i++)                                       \
            dst[df_blas_pos(i, n, inc)] = src[i];                              \
    } while (0)

void df_blas_place(df_type t, const void *v, uint64_t n, int32_t inc, void *buf)
{
    size_t es = df_type_size(t);
    if (n == 0)
        return;
    if (inc == 1) { /* the footprint is the vector */
        memcpy(buf, v, (size_t)n * es);
        return;
    }
    if (inc < -1 || inc > 1) /* gaps between the elements (inc 0 and -1 have none) */
        df_guard_fill(t, buf, (size_t)df_blas_footprint(n, inc));
    switch (es) {
    case 1: PLACE_STRIDED(uint8_t); break;
    case 2: PLACE_STRIDED(uint16_t); break;
    case 4: PLACE_STRIDED(uint32_t); break;
    default: PLACE_STRIDED(uint64_t); break;
    }
}
