/* soft_error.h — kernels that report their own soft errors (seed 001,
 * NVIDIA's asynchronous soft-error reporting, in C).
 *
 * A kernel that notices something wrong — an int32 product or partial sum
 * that overflows, a non-finite partial sum from finite inputs, a broken
 * loop invariant — records the FIRST occurrence of each kind, without
 * printf and without stopping:
 *
 *   1. one device status word per kind is claimed with atomicCAS
 *      (DF_SOFT_NONE -> DF_SOFT_CLAIMED): exactly one thread wins;
 *   2. the winner writes its payload (df_soft_report) straight into mapped
 *      pinned host memory (zero copy: no memcpy follows);
 *   3. __threadfence_system() orders the payload before the flag;
 *   4. the winner publishes DF_SOFT_REPORTED to a status word that also
 *      lives in mapped pinned memory.
 *
 * The host reads the published status with a plain volatile load — no
 * CUDA call, no synchronization — and, once it reads REPORTED, the payload
 * is complete. The slots are cleared on the stream (cudaMemsetAsync) before
 * the next case, so clearing is ordered with the kernels. Each kind has its
 * own slot, so an overflow does not hide a broken invariant.
 *
 * The host models report through the same payload (df_soft_note), first
 * occurrence in the model's order, into df_result.soft: the host backend
 * emulates the slot, so CI tests the whole path from report to verdict.
 *
 * Compile-time switch DF_SOFT_MODE (for the cost measurement of
 * scripts/soft-cost.sh): 2 = the atomicCAS slot (default), 1 = printf
 * instead, 0 = no reporting at all.
 */
#ifndef DOTFUZZ_SOFT_ERROR_H
#define DOTFUZZ_SOFT_ERROR_H

#include <stdint.h>

/* The kinds of soft error; each has its own slot (index code - 1). */
enum {
    DF_SOFT_INT_OVERFLOW = 1, /* an int32 product or partial sum overflowed */
    DF_SOFT_NONFINITE = 2,    /* a partial sum became Inf/NaN from finite operands */
    DF_SOFT_INVARIANT = 3,    /* a loop invariant of fold/tournament broke */
};
#define DF_SOFT_CODES 3

/* Which kernel reported (the payload's kernel field). */
enum {
    DF_SOFT_K_INT_ATOMIC = 1,
    DF_SOFT_K_SHFL = 2,
    DF_SOFT_K_FOLD = 3,
    DF_SOFT_K_TOURNAMENT = 4,
    DF_SOFT_K_ATOMIC_BLOCK = 5,
    DF_SOFT_K_TREE_HOSTSUM = 6,
};

/* The payload: 48 bytes, the same layout on the device, in the pinned
 * slot, in df_result and (little-endian) in a case file's soft-error
 * record (docs/case-format.md). */
typedef struct df_soft_report {
    uint32_t code;    /* DF_SOFT_*; 0 = nothing reported */
    uint32_t kernel;  /* DF_SOFT_K_* */
    uint32_t line;    /* source line of the report */
    uint32_t block;   /* blockIdx.x of the reporting thread */
    uint32_t thread;  /* threadIdx.x */
    uint32_t round;   /* fold/tournament: the round; else 0 */
    uint64_t index;   /* element index (first element of the partial sum) */
    int64_t ivalue;   /* the offending integer value, exact (int kinds) */
    double fvalue;    /* the offending float value (float kinds) */
} df_soft_report;

/* Status words. */
enum { DF_SOFT_NONE = 0, DF_SOFT_CLAIMED = 1, DF_SOFT_REPORTED = 2 };

/* What the kernels write in mapped pinned memory: the payloads and the
 * published status words, DF_SOFT_CODES of each. */
typedef struct df_soft_pinned {
    df_soft_report payload[DF_SOFT_CODES];
    int status[DF_SOFT_CODES];
} df_soft_pinned;

/* What a kernel carries to report: the claim words (device memory) and the
 * device alias of the pinned block. NULL claim = reporting off. Two
 * pointers, not three: each is a register the report needs. */
typedef struct df_soft_dev {
    int *claim;
    df_soft_pinned *pinned;
} df_soft_dev;

/* Callable on the device too: DF_SOFT_MODE 1 prints the name. */
#ifdef __CUDACC__
#define DF_SOFT_HD __host__ __device__
#else
#define DF_SOFT_HD
#endif

/* Set i of a block of sets whose set 0 is s (a batch: case j reports
 * into set j); reporting stays off when it is. */
static inline DF_SOFT_HD df_soft_dev df_soft_dev_at(df_soft_dev s, size_t i)
{
    if (s.claim) {
        s.claim += i * DF_SOFT_CODES;
        s.pinned += i;
    }
    return s;
}

static inline DF_SOFT_HD const char *df_soft_code_name(uint32_t code)
{
    return code == DF_SOFT_INT_OVERFLOW ? "int32-overflow"
           : code == DF_SOFT_NONFINITE  ? "nonfinite-partial"
           : code == DF_SOFT_INVARIANT  ? "invariant"
                                        : "unknown";
}

static inline const char *df_soft_kernel_name(uint32_t k)
{
    static const char *const names[] = {"?",          "int-atomic", "shfl",        "fold",
                                        "tournament", "atomic-block", "tree-hostsum"};
    return k < sizeof names / sizeof names[0] ? names[k] : "?";
}

#ifdef __CUDACC__
#if !defined(DF_SOFT_MODE)
#define DF_SOFT_MODE 2
#endif
#include <stdio.h>

/* Records the first soft error of its kind (see the top of this file).
 * Its arguments are packed: what = code | kernel << 4 | line << 8; bits =
 * the value's bits (the integer for DF_SOFT_INT_OVERFLOW, a double's
 * otherwise). Inlined into the rare branch: ptxas for sm_90 then gives
 * each instrumented kernel as many registers as an out-of-line call or
 * fewer, the call's argument registers and frame being gone; the block
 * and thread are read again in the branch, and the round kernels write
 * their cell before the check: each saves registers (ptxas -v shows them). */
static __device__ __forceinline__ void df_soft_raise_packed(int *claim, df_soft_pinned *pinned,
                                                         uint32_t what, uint32_t round,
                                                         unsigned long long index,
                                                         unsigned long long bits)
{
#if DF_SOFT_MODE == 2
    uint32_t code = what & 15u;
    if (claim == NULL)
        return;
    if (atomicCAS(&claim[code - 1], DF_SOFT_NONE, DF_SOFT_CLAIMED) == DF_SOFT_NONE) {
        df_soft_report *p = &pinned->payload[code - 1];
        p->code = code;
        p->kernel = (what >> 4) & 15u;
        p->line = what >> 8;
        unsigned bx, tx; /* read again here: not kept live from the kernel's start */
        asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(bx));
        asm volatile("mov.u32 %0, %%tid.x;" : "=r"(tx));
        p->block = bx;
        p->thread = tx;
        p->round = round;
        p->index = index;
        p->ivalue = code == DF_SOFT_INT_OVERFLOW ? (long long)bits : 0;
        p->fvalue = code == DF_SOFT_INT_OVERFLOW ? 0.0 : __longlong_as_double((long long)bits);
        __threadfence_system(); /* the payload before the flag, as the host sees them */
        *(volatile int *)&pinned->status[code - 1] = DF_SOFT_REPORTED;
    }
#elif DF_SOFT_MODE == 1
    uint32_t code = what & 15u;
    (void)claim, (void)pinned;
    printf("soft error %u (%s) kernel %u line %u round %u block %u thread %u index %llu "
           "value bits %llx\n",
           code, df_soft_code_name(code), (what >> 4) & 15u, what >> 8, round, blockIdx.x,
           threadIdx.x, index, bits);
#else
    (void)claim, (void)pinned, (void)what, (void)round, (void)index, (void)bits;
#endif
}

static __device__ __forceinline__ void df_soft_raise(df_soft_dev s, uint32_t code,
                                                     uint32_t kernel, uint32_t line,
                                                     uint32_t round,
                                                     unsigned long long index,
                                                     long long ivalue, double fvalue)
{
    df_soft_raise_packed(s.claim, s.pinned, code | kernel << 4 | line << 8, round, index,
                         code == DF_SOFT_INT_OVERFLOW
                             ? (unsigned long long)ivalue
                             : (unsigned long long)__double_as_longlong(fvalue));
}
/* Reporting costs a branch where the condition is tested, and the
 * registers of the rare branch's stores. With DF_SOFT_MODE 0 the
 * condition is not even evaluated. */
#if DF_SOFT_MODE == 0
/* sizeof does not evaluate its operand: no code, but the variables named
 * only in the check still count as used (no unused-variable warning). */
#define DF_SOFT_CHECK(cond, s, code, kernel, round, index, ivalue, fvalue)              \
    ((void)sizeof(((void)(cond), (void)(s), (void)(code), (void)(kernel), (void)(round), \
                   (void)(index), (void)(ivalue), (void)(fvalue), 0)))
#else
#define DF_SOFT_CHECK(cond, s, code, kernel, round, index, ivalue, fvalue)              \
    do {                                                                               \
        if (__builtin_expect(!!(cond), 0))                                             \
            df_soft_raise((s), (code), (kernel), __LINE__, (round), (index), (ivalue), \
                          (fvalue));                                                   \
    } while (0)
#endif
#endif /* __CUDACC__ */

#endif
