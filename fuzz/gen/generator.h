/* generator.h — random cases from (seed, index, kernel).
 *
 * Case `index` of a campaign with seed `seed` draws everything from its own
 * PCG32 stream: df_pcg32_seed(seed, index). For a given kernel's limits the
 * case is fully determined by (seed, index, --max-n, --family). Order of
 * draws: family, block, grid, offsets, n, then the values of a and b.
 */
#ifndef DOTFUZZ_GENERATOR_H
#define DOTFUZZ_GENERATOR_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel.h"
#include "fuzz/case.h"
#include "fuzz/pcg32.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Family ids are stable: they are written into case files. */
enum {
    DF_FAM_IMPORTED = 0,
    DF_FAM_INT_SMALL = 1,   /* uniform integers in [-50, 50] (seed 000) */
    DF_FAM_UNIFORM = 2,     /* uniform floats in [-50, 50] */
    DF_FAM_INT_WIDE = 3,    /* integer-valued floats, magnitudes up to 2^24 */
    DF_FAM_COND = 4,        /* prescribed condition number (Ogita-Rump-Oishi GenDot) */
    DF_FAM_WIDE_EXP = 5,    /* random exponents across the type's range */
    DF_FAM_SPECIAL = 6,     /* ordinary values with +-0, subnormals, +-Inf, NaN, +-MAX */
    DF_FAM_SPARSE = 7,      /* mostly zeros, a few nonzero pairs */
    DF_FAM_CONSTANT = 8,    /* all a equal, all b equal */
    DF_FAM_CANCEL = 9,      /* +-pairs that cancel exactly, plus a few small terms */
    DF_FAM_INT_BIG = 10,    /* i32, one-signed, |x| <= 46340: sums past int32 (wide kernels) */
    DF_FAM_FEW_TERMS = 11,  /* 1-4 products at rounding midpoints and binade edges, else zeros */
    DF_FAM_INT_FACTOR = 12, /* i32: one factor across the int32 range, the rest in [-2, 2] */
    /* f16, bf16, e4m3, e5m2 (fuzz/gen/values_lowp.h) */
    DF_FAM_LP_RANGE = 13,     /* any finite encoding in an exponent window */
    DF_FAM_LP_SUBNORMAL = 14, /* one vector subnormal or at the smallest normal binade */
    DF_FAM_LP_SPECIAL = 15,   /* lp-range with +-0, subnormals, NaN, Inf, +-max */
    DF_FAM_LP_CANCEL = 16,    /* exactly cancelling pairs beside much smaller terms */
};

#define DF_TYPE_BIT(t) (1u << (unsigned)(t))

typedef struct df_family {
    uint32_t id;
    const char *name;     /* "int-small" */
    const char *summary;
    unsigned types;       /* DF_TYPE_BIT mask of supported element types */
    unsigned weight;      /* relative frequency when mixing families */
    /* Only for kernels with DF_K_ACC_WIDE: the family's int32 sums leave
     * int32, which a correct int32-result kernel cannot hold. */
    unsigned wide_only;
} df_family;

size_t df_family_count(void);
const df_family *df_family_at(size_t i);
const df_family *df_family_find(const char *name); /* NULL if unknown */
const df_family *df_family_by_id(uint32_t id);     /* NULL if unknown */

/* Cases longer than this are made in chunks of this many elements, each
 * from a stream of its own, so that many threads can make one
 * (fuzz/gen/values_long.h says how); a default run's cases, up to 65536 long,
 * are not. */
#define DF_GEN_CHUNK ((uint64_t)1 << 16)

/* The chunks of a case of n elements: 0 when it is made whole. */
static inline uint64_t df_gen_chunks(uint64_t n)
{
    return n > DF_GEN_CHUNK ? (n + DF_GEN_CHUNK - 1) / DF_GEN_CHUNK : 0;
}

/* The longest cycle of kernels whose cases are shared (df_gen_opts.share). */
#define DF_GEN_CYCLE_MAX 64

typedef struct df_gen_opts {
    uint64_t max_n;     /* longest case (the kernel's max_n also applies) */
    uint32_t family;    /* 0 = mix all families that support the type */
    uint64_t fixed_n;   /* 0 = draw n; else every case has this length (the
                           kernel's max_n still caps it; the launch and the
                           values are drawn as always) */
    uint64_t long_n;    /* 0 = none; else every long_every-th case
                           (df_gen_is_long_every) is long: n drawn log-uniform
                           in [DF_GEN_LONG_MIN, long_n] past max_n, from a
                           stream of its own (the case's other draws stay) */
    uint32_t long_every; /* 0: DF_GEN_LONG_EVERY (run's batches rely on it);
                            hunt, a case at a time, takes them denser */
    /* Huge cases (run's and hunt's --huge): 0 = none; else one index in
     * huge_every (df_gen_is_huge) is huge: n past 2^31 (df_gen_huge_n),
     * from a stream of its own, for the kernels of huge_mask in turn */
    uint64_t huge_every;
    uint64_t huge_bytes; /* the most a huge case's two vectors take together */
    uint32_t cycle;      /* the kernels the indices cycle over: index i is
                            the case of kernel i mod cycle (0 counts as 1) */
    uint64_t huge_mask;  /* bit p: the kernel at p in the cycle takes huge
                            cases (df_gen_huge_limit is not 0) */
    /* Shared cases (run's cycle, df_gen_share): cycle_ks NULL for none; else
     * the cycle's kernels, and for the kernel at p, share[p] places back is
     * the first of its run of kernels that take the same cases (share[p] 0:
     * it leads). df_gen_lead says which indices take their leader's case. */
    const df_kernel *const *cycle_ks;
    uint8_t share[DF_GEN_CYCLE_MAX];
} df_gen_opts;

/* Long cases: one index in DF_GEN_LONG_EVERY, so a batch of consecutive
 * indices (at most that many cases) holds at most one, which bounds its
 * memory; DF_GEN_LONG_MIN past 2^21 elements, where a grid clamped at
 * 65,535 blocks of 32 drops elements. */
#define DF_GEN_LONG_EVERY 16384u
#define DF_GEN_LONG_MIN (((uint64_t)1 << 21) + 1)
#define DF_GEN_LONG_DEFAULT ((uint64_t)1 << 22)
static inline int df_gen_is_long(uint64_t index)
{
    return index % DF_GEN_LONG_EVERY == DF_GEN_LONG_EVERY - 1;
}
/* The same, one index in every (0: DF_GEN_LONG_EVERY). */
static inline int df_gen_is_long_every(uint32_t every, uint64_t index)
{
    uint64_t e = every ? every : DF_GEN_LONG_EVERY;
    return index % e == e - 1;
}

/* Huge cases: n in [DF_GEN_HUGE_MIN, DF_GEN_HUGE_MAX], past the 2^31 - 1
 * elements a 32-bit int indexes and by at most 2^26, so that an f32 case's
 * vectors stay within 16.5 GiB. Only for kernels with DF_K_LEN64 whose
 * DF_GEN_HUGE_MIN elements of a and b fit in huge_bytes: the default,
 * 17 GiB, holds every f32 case and no f64 one (33 GiB: 2^31 + 2^26
 * doubles twice). The indices are split into windows of huge_every; in
 * window j the last index of the kernel whose turn it is (the kernels of
 * huge_mask in cycle order, one a window) is huge, so two huge indices
 * are at least huge_every - cycle + 1 apart. run's default window is
 * 2^22, at least DF_GEN_HUGE_EVERY_RUN_MIN: more than the batches a run
 * holds at once (two of at most 65,536 cases), so it holds one huge case
 * at a time. */
#define DF_GEN_HUGE_MIN (((uint64_t)1 << 31) + 1)
#define DF_GEN_HUGE_MAX (((uint64_t)1 << 31) + ((uint64_t)1 << 26))
#define DF_GEN_HUGE_BYTES_DEFAULT ((uint64_t)17 << 30)
#define DF_GEN_HUGE_EVERY_RUN ((uint64_t)1 << 22)
#define DF_GEN_HUGE_EVERY_RUN_MIN ((uint64_t)1 << 19)

/* The longest huge case k takes within huge_bytes: DF_GEN_HUGE_MAX, or
 * less where the budget or k's max_n says; 0 when k takes none (no
 * DF_K_LEN64, or fewer than DF_GEN_HUGE_MIN elements fit). */
uint64_t df_gen_huge_limit(const df_kernel *k, uint64_t huge_bytes);

/* huge_mask for the cycle ks[0..nk) (nk <= 64): bit p set when ks[p]
 * takes huge cases within huge_bytes. */
uint64_t df_gen_huge_mask(const df_kernel *const *ks, size_t nk, uint64_t huge_bytes);

/* Whether index is huge under o (no huge_every or an empty mask: never). */
int df_gen_is_huge(const df_gen_opts *o, uint64_t index);

/* The first huge index at or after from; UINT64_MAX when there is none. */
uint64_t df_gen_next_huge(const df_gen_opts *o, uint64_t from);

/* The first index at or after from that o makes long (--long-n: its
 * kernel may still take no long case, and then it is a short one);
 * UINT64_MAX when o makes none or none is left. */
uint64_t df_gen_next_long(const df_gen_opts *o, uint64_t from);

/* The length of huge case (seed, index) for k under launch l (block
 * resolved or drawn), from the stream (seed, index ^ its own key): 1 in 4
 * just past 2^31 (DF_GEN_HUGE_MIN + 0..31), the rest uniform up to k's
 * limit. 0 when k, its limit or the launch takes no huge case (a grid
 * derived from n would pass CUDA's 2^31 - 1 blocks). */
uint64_t df_gen_huge_n(uint64_t seed, uint64_t index, const df_kernel *k,
                       uint64_t huge_bytes, const df_launch *l);

/* Shares cases over the cycle ks[0..nk) (nk <= DF_GEN_CYCLE_MAX): o->cycle,
 * o->cycle_ks and o->share. Kernels next to each other in the cycle share
 * when they take the same cases: one element type, the same length limit
 * under max_n, both or neither taking BLAS arguments and int32 sums past
 * int32 (DF_K_BLAS, DF_K_ACC_WIDE). */
void df_gen_share(df_gen_opts *o, const df_kernel *const *ks, size_t nk);

/* Whether case index of k takes its values from another index's (its
 * leader's, *lead: the index of the first kernel of k's run in the same
 * turn of the cycle): under sharing, for k at its place in the cycle, and
 * neither index long nor huge. The case is then its leader's (family,
 * length, values, BLAS arguments), with the leader's launch where k takes
 * it (else one of k's own, from a stream of its own), and its own index
 * and kernel name. */
int df_gen_lead(const df_gen_opts *o, uint64_t index, const df_kernel *k, uint64_t *lead);

/* Generates case (seed, index) for kernel k into out; the vectors live in
 * buf (grown as needed). The launch is resolved for k. Returns 0, or -1 if
 * no family supports k's element type or memory runs out. */
int df_generate(uint64_t seed, uint64_t index, const df_kernel *k,
                const df_gen_opts *o, df_scratch *buf, df_case *out);

/* df_generate without the values: out gets everything but a and b (NULL),
 * values the stream they come from (df_fill_values, fuzz/gen/values.h, fills
 * them, on the CPU or the GPU). Returns 0, or -1 as df_generate. */
int df_generate_shape(uint64_t seed, uint64_t index, const df_kernel *k,
                      const df_gen_opts *o, df_case *out, df_pcg32 *values);

/* Where df_generate's values come from: the value stream (the PCG32 state
 * after the family and shape draws), the family and n, for a generator
 * that fills the vectors elsewhere from the same stream (the GPU's, the
 * cuda backend's df_cuda_devgen; fuzz/gen/values.h). Returns 0, or -1 as
 * df_generate. */
int df_generate_stream(uint64_t seed, uint64_t index, const df_kernel *k,
                       const df_gen_opts *o, df_pcg32 *values, uint32_t *family,
                       uint64_t *n);

/* df_generate without the values: the case, its vectors reserved in buf
 * (not filled) and the stream their values come from (df_fill_values,
 * or for a long case df_values_plan, the chunks and the finish,
 * fuzz/gen/values_long.h). Returns 0, or -1 as df_generate. */
int df_generate_begin(uint64_t seed, uint64_t index, const df_kernel *k,
                      const df_gen_opts *o, df_scratch *buf, df_case *out, df_pcg32 *values);

/* Chunk j of a long case planned as p (df_values_chunk, fuzz/gen/values_long.h),
 * built for the CPU it runs on. */
struct df_vplan;
struct df_vchunk;
void df_generate_chunk(const struct df_vplan *p, void *a, void *b, uint64_t j,
                       struct df_vchunk *out);

/* The largest grid the generator draws for a grid-free kernel k: its
 * grid_max, or CUDA's classic 65535 (plenty to cover a GPU several times
 * over). */
uint64_t df_gen_grid_cap(const df_kernel *k);

/* The length and launch draw alone (exposed for tests): picks block, grid
 * and offsets within k's ranges and n in [0, max_n] biased to edges. */
void df_draw_shape(df_pcg32 *rng, const df_kernel *k, uint64_t max_n,
                   uint64_t *n, df_launch *launch);

#ifdef __cplusplus
}
#endif
#endif
