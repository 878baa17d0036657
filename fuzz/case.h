/* case.h — the unit of work: one pair of vectors, its type, its launch
 * configuration and where it came from.
 *
 * A case owns nothing: a and b point into a buffer that its producer (the
 * generator, the corpus reader, import) manages. Values are stored in the
 * element type (float, double or int32_t), contiguous, n of each.
 */
#ifndef DOTFUZZ_CASE_H
#define DOTFUZZ_CASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element types. The numeric values are the corpus file's type byte.
 * f16, bf16, e4m3 and e5m2 (fuzz/lowp.h's formats) are stored as their
 * bits (uint16_t, uint8_t); every value of theirs is a float exactly,
 * which is how the references and the host models read them
 * (df_type_widen). As accumulators: f16, f32, f64 and i32. */
typedef enum df_type {
    DF_F32 = 1,
    DF_F64 = 2,
    DF_I32 = 3,
    DF_F16 = 4,
    DF_BF16 = 5,
    DF_E4M3 = 6,
    DF_E5M2 = 7,
} df_type;
#define DF_TYPE_MAX 7 /* the largest type byte */

#define DF_NAME_MAX 32 /* kernel names, NUL included (corpus field width) */

/* Launch configuration. block and grid are concrete once resolved for a
 * kernel (df_launch_resolve); offset_a/offset_b place the vectors that many
 * elements past an aligned address, for kernels that must handle any
 * alignment. */
typedef struct df_launch {
    uint32_t block;
    uint32_t grid;
    uint32_t offset_a;
    uint32_t offset_b;
} df_launch;

/* A perturbed schedule: what the cuda backend does to the GPU around a
 * case's launch so that latent races show (docs/oracle.md's schedule
 * rule; drawn by fuzz/check/schedule.h). seed 0 is the GPU's own schedule.
 * The host backend has no GPU to disturb: the models of the race mutants
 * play, under a perturbed schedule, one outcome their race allows. */
enum {
    DF_SCHED_NOISE = 1u << 0,  /* noise blocks fill a share of the SMs at launch
                                  and leave them at staggered times */
    DF_SCHED_MEMORY = 1u << 1, /* the noise streams through memory (L2 and DRAM
                                  traffic) rather than spinning */
    DF_SCHED_FLUSH_L2 = 1u << 2, /* the L2 is flushed before the launch */
    DF_SCHED_POISON = 1u << 3, /* the result word and scratch hold NaN bytes at
                                  launch; the noise leaves its registers and
                                  shared memory holding them too */
    DF_SCHED_REGRID = 1u << 4, /* the launch's grid was drawn anew (kernels whose
                                  grid is free) */
    DF_SCHED_CONTEND = 1u << 5, /* the noise hammers a share of the lines of the
                                  case's result and scratch with atomics that
                                  change no bit, instead of spinning: a store to
                                  such a line lands late */
    DF_SCHED_ALL = (1u << 6) - 1
};

typedef struct df_schedule {
    uint32_t seed;      /* 0: unperturbed; else draws the noise's SMs and times */
    uint16_t flags;     /* DF_SCHED_* */
    uint16_t sm_share;  /* SMs the noise takes, in 256ths (1..256) */
    uint32_t noise_us;  /* the longest noise block's time, microseconds */
    uint32_t reserved;  /* 0 */
} df_schedule;

/* A BLAS dot call's arguments (kernels/blas.h, docs/blas.md), on (1) for
 * the kernels that take them (DF_K_BLAS): the call is dot(n_arg, x, inc_a,
 * y, inc_b), and the case's a and b hold the elements it reads, in the
 * order it reads them (n of each; n = n_arg when n_arg > 0, else 0). */
typedef struct df_blas {
    uint32_t on;     /* 0: a plain case (contiguous vectors, no arguments) */
    int32_t inc_a;   /* the increments, any sign, 0 allowed */
    int32_t inc_b;
    int32_t reserved; /* 0 */
    int64_t n_arg;   /* the n the call is given: 0 or less reads nothing */
} df_blas;

typedef struct df_case {
    df_type type;
    uint64_t n;
    const void *a;
    const void *b;
    df_launch launch;
    char kernel[DF_NAME_MAX]; /* "" = any kernel of this type */
    uint64_t seed;            /* provenance: generator seed and index */
    uint64_t index;
    uint32_t family;          /* generator family id (0 = imported) */
    df_schedule sched;        /* the schedule it runs under (seed 0: the GPU's own) */
    df_blas blas;             /* its BLAS arguments (on: 0 for a plain case) */
} df_case;

/* How a batch case's vector a follows from another vector of n elements
 * of its type: a metamorphic copy's a from its case's
 * (df_meta_plan_derive). A hint beside the case, which a backend may use
 * to make a where `from` is already (the cuda backend: on the GPU that
 * generated the case); the case's own a holds the same bits either way. */
typedef enum df_derive_op {
    DF_DERIVE_NONE = 0,   /* a is its own */
    DF_DERIVE_NEGATE = 1, /* a_i = -from_i (no INT32_MIN, no NaN) */
    DF_DERIVE_SCALE = 2,  /* a_i = from_i 2^kexp, exact (df_scale_is_exact) */
} df_derive_op;

typedef struct df_derive {
    const void *from; /* NULL with DF_DERIVE_NONE */
    int32_t op;       /* df_derive_op */
    int32_t kexp;     /* DF_DERIVE_SCALE's 2^kexp */
} df_derive;

size_t df_type_size(df_type t);
const char *df_type_name(df_type t); /* "f32", "f64", "i32", "f16", "bf16", "e4m3", "e5m2" */
int df_type_parse(const char *s, df_type *out); /* 0 on success */

/* Element i of a vector of type t, widened exactly to double
 * (every int32 and float is exact in double). */
double df_elem_as_double(df_type t, const void *v, uint64_t i);

/* A floating type's arithmetic: p significand bits (the hidden one
 * included), emin the smallest normal's exponent, max the largest finite
 * value; lowp the fuzz/lowp.h format of a storage-only type, -1 for f32
 * and f64. i32 has p 0. */
typedef struct df_type_facts {
    int p, emin;
    double max;
    int lowp;
} df_type_facts;
df_type_facts df_type_facts_of(df_type t);

/* Whether t is f16, bf16, e4m3 or e5m2. */
int df_type_is_lowp(df_type t);

/* Elements [from, from + n) of a vector of lowp type t, as floats
 * (exact: every value of those formats is a float). */
void df_type_widen(df_type t, const void *v, uint64_t from, uint64_t n, float *out);

#ifdef __cplusplus
}
#endif
#endif
