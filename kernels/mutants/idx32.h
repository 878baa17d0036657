/* idx32.h — what both halves of `m-idx32` (kernels/mutants/index_mutants.cu)
 * compute on the CPU, in C and C++ alike: the element a thread reads with
 * its index in a 32-bit int, as the GPU computes it, and the pairwise sum
 * of the block partials that the GPU half's finish and the host model both
 * make. tests/test_huge.c calls df_idx32_element with indices past 2^31,
 * which no vector of a test could hold.
 */
#ifndef DOTFUZZ_IDX32_H
#define DOTFUZZ_IDX32_H

#include <stdint.h>

/* The element thread t (blockIdx.x * blockDim.x + threadIdx.x, t < 2^32)
 * reads out of n, or -1 when it reads none. The GPU computes t in
 * unsigned 32-bit arithmetic, exact below 2^32, and stores it in an int:
 * from t = 2^31 on, the int wraps to t - 2^32 < 0 (nvcc and every CUDA
 * host compiler convert modulo 2^32). The guard (size_t)i < n then sees
 * 2^64 + t - 2^32, past any n, and the thread reads nothing: every
 * element from 2^31 on is dropped, silently. Below 2^31 elements the
 * kernel is correct: thread t reads element t when t < n. */
static inline int64_t df_idx32_element(uint64_t t, uint64_t n)
{
    uint32_t u = (uint32_t)t;
    int64_t i = u <= INT32_MAX ? (int64_t)u : (int64_t)u - ((int64_t)1 << 32); /* the int */
    return (uint64_t)i < n ? i : -1; /* (size_t)i < n */
}

/* The block partials' pairwise sum, one partial at a time in block order:
 * level[k] holds the sum of the last complete run of 2^k partials while
 * bit k of count is set (a binary counter whose carries are additions,
 * earlier run + later run). The total adds the runs left from the lowest
 * level up, each to the sum of those after it: no chain longer than
 * floor(log2 count) + 1 additions, 64 doubles of memory whatever count. */
typedef struct df_idx32_sum {
    double level[64];
    uint64_t count;
} df_idx32_sum;

static inline void df_idx32_sum_add(df_idx32_sum *s, double x)
{
    unsigned k = 0;
    for (uint64_t c = s->count++; c & 1; c >>= 1, k++)
        x = s->level[k] + x;
    s->level[k] = x;
}

/* +0 for no partial */
static inline double df_idx32_sum_total(const df_idx32_sum *s)
{
    double r = 0.0;
    int first = 1;
    for (unsigned k = 0; k < 64; k++)
        if (s->count >> k & 1) {
            r = first ? s->level[k] : s->level[k] + r;
            first = 0;
        }
    return r;
}

#endif
