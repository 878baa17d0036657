/* pcg32.h — PCG32 (PCG-XSH-RR, 64-bit state, 32-bit output) after
 * M. E. O'Neill's pcg-c "minimal" generator: explicit state, seed + stream,
 * bounded integers, floats, doubles and O(log n) jump-ahead.
 *
 * Header-only and usable from host C and CUDA device code (DF_HD), so the
 * GPU can reproduce the host's streams.
 * Known answers (tests/test_pcg32.c): seed 42, stream 54 ->
 * 0xa15c02b7 0x7b47f409 0xba1d3330 0x83d2f293 0xbfa4784b 0xcbed606e.
 */
#ifndef DOTFUZZ_PCG32_H
#define DOTFUZZ_PCG32_H

#include <stdint.h>

#if defined(__CUDACC__)
#define DF_HD __host__ __device__ __forceinline__
#else
#define DF_HD static inline
#endif

#define DF_PCG32_MULT 6364136223846793005ULL

typedef struct df_pcg32 {
    uint64_t state; /* all values possible */
    uint64_t inc;   /* stream selector; always odd */
} df_pcg32;

/* df_pcg32_next: the next 32-bit output (XSH-RR of the old state). */
DF_HD uint32_t df_pcg32_next(df_pcg32 *r)
{
    uint64_t old = r->state;
    r->state = old * DF_PCG32_MULT + r->inc;
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31u));
}

/* df_pcg32_seed: seed with initial state and stream (sequence) number, as
 * pcg32_srandom_r(rng, initstate, initseq). */
DF_HD void df_pcg32_seed(df_pcg32 *r, uint64_t initstate, uint64_t initseq)
{
    r->state = 0u;
    r->inc = (initseq << 1u) | 1u;
    (void)df_pcg32_next(r);
    r->state += initstate;
    (void)df_pcg32_next(r);
}

/* df_pcg32_bounded: uniform in [0, bound), bound >= 1, without modulo bias
 * (pcg32_boundedrand_r: reject below 2^32 mod bound). */
DF_HD uint32_t df_pcg32_bounded(df_pcg32 *r, uint32_t bound)
{
    for (;;) {
        uint32_t x = df_pcg32_next(r);
        /* threshold = 2^32 mod bound < bound: any x >= bound passes without
         * it, which saves its division on nearly every draw of a small bound */
        if (x >= bound || x >= (0u - bound) % bound)
            return x % bound;
    }
}

/* df_pcg32_u64: 64 bits from two draws, the high word first (two
 * statements: the operands of | are unsequenced, and every compiler must
 * take the high word first). */
DF_HD uint64_t df_pcg32_u64(df_pcg32 *r)
{
    uint64_t x = (uint64_t)df_pcg32_next(r) << 32;
    x |= df_pcg32_next(r);
    return x;
}

/* df_pcg32_range: uniform integer in [lo, hi] (inclusive), lo <= hi; any
 * int64 pair, [INT64_MIN, INT64_MAX] included. */
DF_HD int64_t df_pcg32_range(df_pcg32 *r, int64_t lo, int64_t hi)
{
    /* unsigned: hi - lo overflows int64 for spans past INT64_MAX */
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    if (span < 0xffffffffULL)
        return lo + (int64_t)df_pcg32_bounded(r, (uint32_t)(span + 1));
    /* wide range: 64 bits by rejection on the next power of two */
    uint64_t mask = span;
    mask |= mask >> 1; mask |= mask >> 2; mask |= mask >> 4;
    mask |= mask >> 8; mask |= mask >> 16; mask |= mask >> 32;
    for (;;) {
        uint64_t x = df_pcg32_u64(r) & mask;
        if (x <= span) /* wraps modulo 2^64 back into [lo, hi] */
            return (int64_t)((uint64_t)lo + x);
    }
}

/* df_pcg32_float: uniform in [0, 1) on the 2^-24 grid (one draw). */
DF_HD float df_pcg32_float(df_pcg32 *r)
{
    return (float)(df_pcg32_next(r) >> 8) * 0x1p-24f;
}

/* df_pcg32_double: uniform in [0, 1) on the 2^-53 grid (two draws, high
 * word first). */
DF_HD double df_pcg32_double(df_pcg32 *r)
{
    uint64_t hi = df_pcg32_next(r) >> 5; /* 27 bits */
    uint64_t lo = df_pcg32_next(r) >> 6; /* 26 bits */
    return (double)((hi << 26) | lo) * 0x1p-53;
}

/* The affine map of delta steps on the state, for stream inc: state ->
 * mult * state + plus (Brown, "Random number generation with arbitrary
 * stride"), in O(log delta); delta is taken mod 2^64, so -k (2^64 - k)
 * maps back k steps. A generator that makes many places of one stream at
 * once (fuzz/gen/values_lanes.h) keeps the map of each place. */
typedef struct df_pcg32_jump {
    uint64_t mult, plus;
} df_pcg32_jump;

DF_HD df_pcg32_jump df_pcg32_jump_of(uint64_t inc, uint64_t delta)
{
    uint64_t cur_mult = DF_PCG32_MULT, cur_plus = inc;
    df_pcg32_jump acc = {1u, 0u};
    while (delta > 0) {
        if (delta & 1u) {
            acc.mult *= cur_mult;
            acc.plus = acc.plus * cur_mult + cur_plus;
        }
        cur_plus = (cur_mult + 1u) * cur_plus;
        cur_mult *= cur_mult;
        delta >>= 1;
    }
    return acc;
}

/* The state j's steps after state. */
DF_HD uint64_t df_pcg32_jumped(df_pcg32_jump j, uint64_t state) { return j.mult * state + j.plus; }

/* df_pcg32_advance: jump the generator delta steps ahead (df_pcg32_jump_of). */
DF_HD void df_pcg32_advance(df_pcg32 *r, uint64_t delta)
{
    r->state = df_pcg32_jumped(df_pcg32_jump_of(r->inc, delta), r->state);
}

#endif
