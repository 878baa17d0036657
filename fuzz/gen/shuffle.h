/* shuffle.h — Fisher-Yates over the pairs (a[i], b[i]) of two vectors of
 * 1-, 2-, 4- or 8-byte elements, shared by the generator and the metamorphic
 * permute: for i from n - 1 down to 1, j = draw(r, i) in [0, i] is drawn
 * and pairs i and j are swapped, a pair keeping its partners. The draws of
 * DF_SHUFFLE_AHEAD steps are made first and their far elements prefetched,
 * then the swaps are done in the same order: the same result as the plain
 * loop, with the cache misses of the random accesses overlapped (at
 * n = 2^26, one a swap). */
#ifndef DOTFUZZ_SHUFFLE_H
#define DOTFUZZ_SHUFFLE_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz/pcg32.h"

#define DF_SHUFFLE_AHEAD 32

/* Host C, and CUDA device code too (the GPU's generator, fuzz/gen/values.h). */
#if defined(__CUDACC__)
#define DF_SHUFFLE_FN static __host__ __device__ inline
#else
#define DF_SHUFFLE_FN static inline
#endif
#if defined(__CUDA_ARCH__)
#define DF_SHUFFLE_PREFETCH(p) ((void)(p))
#else
#define DF_SHUFFLE_PREFETCH(p) __builtin_prefetch((p), 1)
#endif

#define DF_SHUFFLE_TYPED(NAME, T)                                               \
    DF_SHUFFLE_FN void NAME(T *a, T *b, uint64_t n, df_pcg32 *r,                \
                            uint64_t (*draw)(df_pcg32 *, uint64_t))             \
    {                                                                           \
        uint64_t js[DF_SHUFFLE_AHEAD];                                          \
        for (uint64_t hi = n - 1; n > 1 && hi > 0;) {                           \
            unsigned m = hi < DF_SHUFFLE_AHEAD ? (unsigned)hi : DF_SHUFFLE_AHEAD; \
            for (unsigned k = 0; k < m; k++) {                                  \
                js[k] = draw(r, hi - k);                                        \
                DF_SHUFFLE_PREFETCH(a + js[k]);                                 \
                DF_SHUFFLE_PREFETCH(b + js[k]);                                 \
            }                                                                   \
            for (unsigned k = 0; k < m; k++) {                                  \
                uint64_t i = hi - k, j = js[k];                                 \
                T t = a[i];                                                     \
                a[i] = a[j], a[j] = t;                                          \
                t = b[i];                                                       \
                b[i] = b[j], b[j] = t;                                          \
            }                                                                   \
            hi -= m;                                                            \
        }                                                                       \
    }
DF_SHUFFLE_TYPED(df_shuffle_pairs8, uint8_t)
DF_SHUFFLE_TYPED(df_shuffle_pairs16, uint16_t)
DF_SHUFFLE_TYPED(df_shuffle_pairs32, uint32_t)
DF_SHUFFLE_TYPED(df_shuffle_pairs64, uint64_t)
#undef DF_SHUFFLE_TYPED

/* es: the element size, 1, 2, 4 or 8. */
DF_SHUFFLE_FN void df_shuffle_pairs(void *a, void *b, size_t es, uint64_t n, df_pcg32 *r,
                                    uint64_t (*draw)(df_pcg32 *, uint64_t))
{
    if (es == 1)
        df_shuffle_pairs8((uint8_t *)a, (uint8_t *)b, n, r, draw);
    else if (es == 2)
        df_shuffle_pairs16((uint16_t *)a, (uint16_t *)b, n, r, draw);
    else if (es == 4)
        df_shuffle_pairs32((uint32_t *)a, (uint32_t *)b, n, r, draw);
    else
        df_shuffle_pairs64((uint64_t *)a, (uint64_t *)b, n, r, draw);
}

#endif
