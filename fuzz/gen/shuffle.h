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

/* Fisher-Yates's steps hi, hi - 1, ..., hi - m + 1 over the pairs of a
 * and b (arrays of T), with their draws js[0..m): pair i swapped with
 * pair js[k], i = hi - k. Also fuzz/gen/values_lanes.h's, whose draws are
 * made apart from their swaps. */
#define DF_SHUFFLE_SWAPS(T, a, b, hi, js, m)                                    \
    for (uint64_t k_ = 0; k_ < (m); k_++) {                                     \
        uint64_t i_ = (hi) - k_, j_ = (js)[k_];                                 \
        T t_ = (a)[i_];                                                         \
        (a)[i_] = (a)[j_], (a)[j_] = t_;                                        \
        t_ = (b)[i_];                                                           \
        (b)[i_] = (b)[j_], (b)[j_] = t_;                                        \
    }

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
            DF_SHUFFLE_SWAPS(T, a, b, hi, js, m)                                \
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
