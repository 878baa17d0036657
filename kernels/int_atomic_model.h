/* int_atomic_model.h — the host model of `int-atomic` (seed 002; C11),
 * shared by kernels/int_atomic.cu and its mutants m-int32-acc, m-int16-sum
 * and m-mul24 (kernels/mutants/int_mutants.cu), with the width of thread
 * 0's block sum (32 bits, or m-int16-sum's 16) and the multiply (int32's,
 * or m-mul24's 24-bit one) as parameters.
 */
#ifndef DOTFUZZ_INT_ATOMIC_MODEL_H
#define DOTFUZZ_INT_ATOMIC_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/model_common.h"

/* Integer arithmetic does not round: the float bound does not apply. */
static inline uint64_t df_int_atomic_height(uint64_t n, const df_launch *l)
{
    (void)n;
    (void)l;
    return 1;
}

/* Two's complement value of a 32-bit pattern, without C's
 * implementation-defined unsigned-to-signed conversion. */
static inline int64_t df_int32_from_bits(uint32_t u)
{
    return (int64_t)u - ((u >> 31) ? (int64_t)4294967296 : 0);
}

/* The low 16 bits of u sign-extended to 32, in unsigned arithmetic:
 * flipping bit 15 and subtracting it back leaves patterns below 0x8000 as
 * they are and maps the rest to pattern - 2^16 (mod 2^32). */
static inline uint32_t df_sext16(uint32_t u)
{
    return ((u & 0xffffu) ^ 0x8000u) - 0x8000u;
}

/* The low 24 bits of u sign-extended to 32 (from bit 23), as df_sext16. */
static inline uint32_t df_sext24(uint32_t u)
{
    return ((u & 0xffffffu) ^ 0x800000u) - 0x800000u;
}

/* CUDA's __mul24(x, y) as a 32-bit pattern: "the least significant 32
 * bits of the product of the least significant 24 bits of x and y; the
 * high order 8 bits of x and y are ignored" (CUDA Math API, Integer
 * Intrinsics, __mul24). The 24 bits are signed: PTX's mul24.lo.s32 is a
 * "24x24-bit signed multiply", and nvcc 13 emits __mul24 as shl 8,
 * shr.s32 8 on each operand, then mul.lo.s32. The low 32 bits of a
 * product are those of its operands' patterns multiplied mod 2^32, so the
 * sign-extended patterns multiply in uint32_t. Equal to x * y exactly
 * when both lie in [-2^23, 2^23). */
static inline uint32_t df_mul24(int32_t x, int32_t y)
{
    return df_sext24((uint32_t)x) * df_sext24((uint32_t)y);
}

static inline int df_outside_i32(int64_t v) { return v < INT32_MIN || v > INT32_MAX; }

/* The model of k: uint32_t arithmetic wraps exactly like the GPU's 32-bit
 * int multiply and add, without signed-overflow undefined behaviour in C.
 * With int16_sum the block sum is kept in 16 bits: wrapping 16-bit adds
 * leave the low 16 bits of the wrapping 32-bit sum, sign-extended before
 * the atomicAdd. With mul24 each product is __mul24's (df_mul24). The soft
 * errors the GPU kernel reports (int_atomic_gpu.h) are reported here in
 * one order the GPU may take: every product first (the int32 product of
 * the inputs, whichever multiply the sum gets), then each block's running
 * sum and its landing in the total, blocks in index order. */
static inline int df_int_atomic_model(const df_kernel *k, const df_case *c,
                                      bool int16_sum, bool mul24, df_result *out)
{
    df_launch l;
    if (df_model_begin(k, c, &l, out) != 0)
        return -1;
    const int32_t *a = c->a, *b = c->b;
    for (uint64_t i = 0; i < c->n; i++) {
        int64_t p = (int64_t)a[i] * b[i];
        if (df_outside_i32(p))
            df_soft_note(out, DF_SOFT_INT_OVERFLOW, DF_SOFT_K_INT_ATOMIC, __LINE__,
                         (uint32_t)(i / l.block), (uint32_t)(i % l.block), 0, i, p, 0.0);
    }
    uint32_t result = 0;
    for (uint64_t blk = 0; blk < l.grid; blk++) {
        uint32_t sum = 0;
        uint64_t first = blk * l.block;
        for (uint32_t t = 0; t < l.block; t++) {
            uint64_t i = first + t;
            uint32_t p = i >= c->n ? 0u
                         : mul24   ? df_mul24(a[i], b[i])
                                   : (uint32_t)a[i] * (uint32_t)b[i];
            int64_t wide = df_int32_from_bits(sum) + df_int32_from_bits(p);
            if (df_outside_i32(wide))
                df_soft_note(out, DF_SOFT_INT_OVERFLOW, DF_SOFT_K_INT_ATOMIC, __LINE__,
                             (uint32_t)blk, 0, 0, i, wide, 0.0);
            sum += p;
        }
        uint32_t add = int16_sum ? df_sext16(sum) : sum;
        int64_t total = df_int32_from_bits(result) + df_int32_from_bits(add);
        if (df_outside_i32(total))
            df_soft_note(out, DF_SOFT_INT_OVERFLOW, DF_SOFT_K_INT_ATOMIC, __LINE__,
                         (uint32_t)blk, 0, 0, first, total, 0.0);
        result += add;
    }
    out->i = df_int32_from_bits(result);
    return 0;
}

#endif
