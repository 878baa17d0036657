/* generator.c — random cases: the value families (one table entry each) and
 * the edge-biased draw of length and launch configuration.
 *
 * Every draw comes from the case's own PCG32 stream and every value is made
 * with exact integer operations or IEEE 754 operations whose rounding the
 * standard fixes (+ - * /, fma, conversions; ldexp and frexp, which are
 * exact), each result stored in its declared type: no transcendental libm
 * call, nothing an FMA contraction or excess precision can change. So
 * (seed, index, kernel limits, opts) names the same bytes on every platform
 * and compiler. The draw order is generator.h's: family, block, grid,
 * offsets, n, then the family's values.
 */
#include <math.h>
#include <string.h>

#include "fuzz/gen/generator.h"
#define DF_VALUES_CLONED 1 /* values.h: df_fill_cond_pairs for x86-64-v3 too, here only */
#include "fuzz/gen/values.h"

/* floor(log2 x) for x >= 1 */
static uint32_t floor_log2_u64(uint64_t x)
{
    uint32_t r = 0;
    while (x >>= 1)
        r++;
    return r;
}

/* Log-uniform in [lo, hi], 1 <= lo <= hi: an octave [2^e, 2^(e+1)) is
 * chosen uniformly, then a value uniformly inside it (clipped to [lo, hi]),
 * so 10 and 10^6 are about as likely as each other. */
static uint64_t draw_log_uniform(df_pcg32 *r, uint64_t lo, uint64_t hi)
{
    uint32_t elo = floor_log2_u64(lo), ehi = floor_log2_u64(hi);
    uint32_t e = elo + df_pcg32_bounded(r, ehi - elo + 1);
    uint64_t top = e >= 63 ? UINT64_MAX : ((uint64_t)2 << e) - 1;
    return df_draw_uniform_u64(r, df_max_u64(lo, (uint64_t)1 << e), df_min_u64(hi, top));
}

/* ---- launch: block, grid, offsets -------------------------------------- */

/* A power of two in [lo, hi], or lo when the range holds none (the launch
 * then fails to resolve: the descriptor, not the draw, is wrong). */
static uint32_t draw_block_pow2(df_pcg32 *r, uint32_t lo, uint32_t hi)
{
    uint32_t emin = df_ceil_log2_u64(lo), emax = floor_log2_u64(hi);
    if (emin > emax)
        return lo;
    return (uint32_t)1 << (emin + df_pcg32_bounded(r, emax - emin + 1));
}

/* The sizes where block-level bugs live: the range's ends, the kernel's
 * default, and multiples of 32 (whole warps) and one either side of them
 * (a partial warp). */
static uint32_t draw_block_edge(df_pcg32 *r, uint32_t lo, uint32_t hi,
                                uint32_t dflt)
{
    switch (df_pcg32_bounded(r, 4)) {
    case 0: return lo;
    case 1: return hi;
    case 2: return dflt >= lo && dflt <= hi ? dflt : lo;
    default: break;
    }
    /* 32m - 1 >= lo and 32m + 1 <= hi */
    uint64_t mlo = df_max_u64(1, ((uint64_t)lo + 1 + 31) / 32);
    uint64_t mhi = hi >= 1 ? ((uint64_t)hi - 1) / 32 : 0;
    if (mlo > mhi)
        return dflt >= lo && dflt <= hi ? dflt : lo;
    uint64_t m = df_draw_uniform_u64(r, mlo, mhi);
    return (uint32_t)(32 * m - 1 + df_pcg32_bounded(r, 3));
}

/* Whole warps only (DF_K_BLOCK_WARP): powers of two, the range's ends, the
 * default, or any multiple of 32 in range. */
static uint32_t draw_block_warp(df_pcg32 *r, uint32_t lo, uint32_t hi, uint32_t dflt)
{
    uint64_t mlo = df_max_u64(1, ((uint64_t)lo + 31) / 32), mhi = hi / 32;
    if (mlo > mhi)
        return lo; /* no multiple of 32 in range: df_launch_resolve reports it */
    uint32_t c = df_pcg32_bounded(r, 10);
    if (c < 4)
        return draw_block_pow2(r, (uint32_t)(32 * mlo), hi);
    if (c < 6)
        return (uint32_t)(32 * (df_pcg32_bounded(r, 2) ? mlo : mhi));
    if (c < 7 && dflt % 32 == 0 && dflt >= lo && dflt <= hi)
        return dflt;
    return (uint32_t)(32 * df_draw_uniform_u64(r, mlo, mhi));
}

static uint32_t draw_block(df_pcg32 *r, const df_kernel *k)
{
    uint32_t lo = k->block_min ? k->block_min : 1, hi = k->block_max;
    if (hi < lo)
        return lo; /* empty range: df_launch_resolve reports it */
    if (k->flags & DF_K_BLOCK_POW2)
        return draw_block_pow2(r, lo, hi);
    if (k->flags & DF_K_BLOCK_WARP)
        return draw_block_warp(r, lo, hi, k->block_default);
    uint32_t c = df_pcg32_bounded(r, 10);
    if (c < 4) {
        if (df_ceil_log2_u64(lo) <= floor_log2_u64(hi))
            return draw_block_pow2(r, lo, hi);
        return (uint32_t)df_draw_uniform_u64(r, lo, hi);
    }
    if (c < 7)
        return draw_block_edge(r, lo, hi, k->block_default);
    return (uint32_t)df_draw_uniform_u64(r, lo, hi);
}

uint64_t df_gen_grid_cap(const df_kernel *k)
{
    return k->grid_max ? k->grid_max : 65535u;
}

static uint32_t draw_grid(df_pcg32 *r, const df_kernel *k)
{
    if (!(k->flags & DF_K_GRID_FREE) || df_pcg32_bounded(r, 2) == 0)
        return 0; /* derived from n by df_launch_resolve */
    return (uint32_t)draw_log_uniform(r, 1, df_gen_grid_cap(k));
}

static uint32_t draw_offset(df_pcg32 *r)
{
    if (df_pcg32_bounded(r, 2) == 0)
        return 0;
    return 1 + df_pcg32_bounded(r, 3);
}

/* ---- length ------------------------------------------------------------- */

/* The longest n the draw may return: the caller's and the kernel's max_n,
 * below INT64_MAX for the arithmetic, and short enough that a derived grid
 * stays within CUDA's 2^31 - 1 blocks. */
static uint64_t length_limit(const df_kernel *k, uint64_t max_n,
                             uint64_t per_block)
{
    uint64_t lim = df_min_u64(max_n, (uint64_t)INT64_MAX);
    if (k->max_n)
        lim = df_min_u64(lim, k->max_n);
    return df_min_u64(lim, df_sat_mul_u64(per_block, 0x7fffffffu));
}

/* A multiple of a whole launch, give or take one element: the grid is the
 * chosen one when the kernel takes it, else one drawn log-uniform among the
 * grids that fit within the limit. */
static uint64_t draw_n_grid_edge(df_pcg32 *r, const df_kernel *k,
                                 uint32_t grid, uint64_t per_block,
                                 uint64_t lim)
{
    uint64_t g = grid;
    if (g == 0)
        g = draw_log_uniform(r, 1, df_max_u64(1, df_min_u64(df_gen_grid_cap(k), lim / per_block)));
    uint64_t whole = df_sat_mul_u64(g, per_block); /* >= 1 */
    uint64_t n = whole - 1 + df_pcg32_bounded(r, 3);
    return n < whole - 1 ? UINT64_MAX : n; /* saturate, the caller clamps */
}

static uint64_t draw_n(df_pcg32 *r, const df_kernel *k, uint64_t max_n,
                       const df_launch *l)
{
    static const uint64_t warp_edges[] = {31, 32, 33, 63, 64, 65};
    uint64_t per_block = (uint64_t)(l->block ? l->block : 1) *
                         (k->per_thread ? k->per_thread : 1);
    uint64_t lim = length_limit(k, max_n, per_block);
    uint32_t c = df_pcg32_bounded(r, 100);
    uint64_t n;
    if (c < 8)
        n = df_pcg32_bounded(r, 4);
    else if (c < 20)
        n = warp_edges[df_pcg32_bounded(r, 6)];
    else if (c < 35)
        n = (uint64_t)l->block - 1 + df_pcg32_bounded(r, 3); /* block >= 1 */
    else if (c < 50)
        n = draw_n_grid_edge(r, k, l->grid, per_block, lim);
    else if (c < 65) /* up to the power of two at or above lim: lim itself occurs */
        n = ((uint64_t)1 << df_pcg32_bounded(r, df_ceil_log2_u64(lim) + 1))
            - 1 + df_pcg32_bounded(r, 3);
    else
        n = lim ? draw_log_uniform(r, 1, lim) : 0;
    return df_min_u64(n, lim);
}

/* A long case's n, from the stream (seed, index ^ its own key) so the
 * case's other draws are those of a short one; n when the kernel or the
 * launch cannot take DF_GEN_LONG_MIN elements. */
static uint64_t draw_long_n(uint64_t seed, uint64_t index, const df_kernel *k, uint64_t long_n,
                            const df_launch *l, uint64_t n)
{
    uint64_t per_block = (uint64_t)(l->block ? l->block : 1) *
                         (k->per_thread ? k->per_thread : 1);
    uint64_t lim = length_limit(k, long_n, per_block);
    if (lim < DF_GEN_LONG_MIN)
        return n;
    df_pcg32 r;
    df_pcg32_seed(&r, seed, index ^ UINT64_C(0x6c6f6e6763617365)); /* "longcase" */
    return draw_log_uniform(&r, DF_GEN_LONG_MIN, lim);
}

/* ---- huge cases ---------------------------------------------------------- */

uint64_t df_gen_huge_limit(const df_kernel *k, uint64_t huge_bytes)
{
    size_t es = df_type_size(k->elem);
    if (!(k->flags & DF_K_LEN64) || es == 0)
        return 0;
    uint64_t lim = df_min_u64(DF_GEN_HUGE_MAX, huge_bytes / (2 * es));
    if (k->max_n)
        lim = df_min_u64(lim, k->max_n);
    return lim >= DF_GEN_HUGE_MIN ? lim : 0;
}

uint64_t df_gen_huge_mask(const df_kernel *const *ks, size_t nk, uint64_t huge_bytes)
{
    uint64_t mask = 0;
    for (size_t p = 0; p < nk && p < 64; p++)
        if (df_gen_huge_limit(ks[p], huge_bytes))
            mask |= (uint64_t)1 << p;
    return mask;
}

/* The offset of window j's huge index in the window, or UINT64_MAX when
 * o makes none. The window's last index, j E + E - 1, is taken mod K
 * without forming it (no overflow near UINT64_MAX). */
static uint64_t huge_offset(const df_gen_opts *o, uint64_t j)
{
    uint64_t K = o->cycle ? o->cycle : 1, E = o->huge_every;
    uint64_t mask = K < 64 ? o->huge_mask & (((uint64_t)1 << K) - 1) : o->huge_mask;
    if (!E || !mask || E < K)
        return UINT64_MAX;
    uint64_t turn = j % (uint64_t)__builtin_popcountll(mask), target = 0;
    for (;; target++) /* the turn-th kernel of the mask */
        if ((mask >> target & 1) && turn-- == 0)
            break;
    uint64_t last_mod = ((j % K) * (E % K) + (E - 1) % K) % K;
    return E - 1 - (last_mod + K - target) % K;
}

int df_gen_is_huge(const df_gen_opts *o, uint64_t index)
{
    return o->huge_every && index % o->huge_every == huge_offset(o, index / o->huge_every);
}

uint64_t df_gen_next_huge(const df_gen_opts *o, uint64_t from)
{
    if (!o->huge_every)
        return UINT64_MAX;
    uint64_t E = o->huge_every, j = from / E, off = huge_offset(o, j);
    if (off == UINT64_MAX)
        return UINT64_MAX;
    if (off >= from % E)
        return j * E + off;
    if (j == UINT64_MAX / E) /* no window after this one */
        return UINT64_MAX;
    off = huge_offset(o, j + 1);
    return (j + 1) * E > UINT64_MAX - off ? UINT64_MAX : (j + 1) * E + off;
}

uint64_t df_gen_huge_n(uint64_t seed, uint64_t index, const df_kernel *k,
                       uint64_t huge_bytes, const df_launch *l)
{
    uint64_t lim = df_gen_huge_limit(k, huge_bytes);
    if (!(k->flags & DF_K_GRID_FREE)) { /* the grid follows n: CUDA's 2^31 - 1 blocks */
        uint64_t per_block = (uint64_t)(l->block ? l->block : k->block_default) *
                             (k->per_thread ? k->per_thread : 1);
        lim = df_min_u64(lim, df_sat_mul_u64(per_block, 0x7fffffffu));
    }
    if (lim < DF_GEN_HUGE_MIN)
        return 0;
    df_pcg32 r;
    df_pcg32_seed(&r, seed, index ^ UINT64_C(0x6875676563617365)); /* "hugecase" */
    if (df_pcg32_bounded(&r, 4) == 0)
        return df_min_u64(lim, DF_GEN_HUGE_MIN + df_pcg32_bounded(&r, 32));
    return df_draw_uniform_u64(&r, DF_GEN_HUGE_MIN, lim);
}

/* A launch for k: block, grid, then its offsets where k takes any. */
static df_launch draw_launch(df_pcg32 *rng, const df_kernel *k)
{
    df_launch l = {0, 0, 0, 0};
    l.block = draw_block(rng, k);
    l.grid = draw_grid(rng, k);
    if (k->flags & DF_K_ANY_ALIGNMENT) {
        l.offset_a = draw_offset(rng);
        l.offset_b = draw_offset(rng);
    }
    return l;
}

void df_draw_shape(df_pcg32 *rng, const df_kernel *k, uint64_t max_n,
                   uint64_t *n, df_launch *launch)
{
    df_launch l = draw_launch(rng, k);
    *n = draw_n(rng, k, max_n, &l);
    *launch = l;
}

/* the element types of the float-only families, and the low-precision
 * types' */
#define FLOATS (DF_TYPE_BIT(DF_F32) | DF_TYPE_BIT(DF_F64))
#define LOWP                                                                   \
    (DF_TYPE_BIT(DF_F16) | DF_TYPE_BIT(DF_BF16) | DF_TYPE_BIT(DF_E4M3) | DF_TYPE_BIT(DF_E5M2))

static const df_family families[] = {
    {DF_FAM_INT_SMALL, "int-small",
     "uniform integers in [-50, 50] (seed 000): the exact regime",
     FLOATS | DF_TYPE_BIT(DF_I32), 2, 0},
    {DF_FAM_UNIFORM, "uniform", "uniform floats in [-50, 50]", FLOATS, 1, 0},
    {DF_FAM_INT_WIDE, "int-wide",
     "integer-valued floats in [-2^k, 2^k], k in [7, 24] drawn per case",
     FLOATS, 1, 0},
    {DF_FAM_COND, "cond",
     "2G/|s| prescribed, log-uniform in [1, 1e30] (GenDot, Ogita-Rump-Oishi 2005)",
     FLOATS, 1, 0},
    {DF_FAM_WIDE_EXP, "wide-exp",
     "random signs, exponents across the normal range, sum |a_i b_i| < 2^(emax-1)",
     FLOATS, 1, 0},
    {DF_FAM_SPECIAL, "special",
     "ordinary values with 1-6 of +-0, subnormals, +-Inf, NaN, +-MAX, +-MIN",
     FLOATS, 1, 0},
    {DF_FAM_SPARSE, "sparse", "zeros except 1-16 nonzero pairs, the ends included",
     FLOATS | DF_TYPE_BIT(DF_I32), 1, 0},
    {DF_FAM_CONSTANT, "constant", "all a equal, all b equal",
     FLOATS | DF_TYPE_BIT(DF_I32), 1, 0},
    {DF_FAM_CANCEL, "cancel",
     "pairs (x, y), (x, -y) that cancel exactly, plus 1-5 small terms",
     FLOATS | DF_TYPE_BIT(DF_I32), 1, 0},
    {DF_FAM_INT_BIG, "int-big",
     "one-signed integers up to 46340: int32 sums that leave int32 (64-bit-result kernels only)",
     DF_TYPE_BIT(DF_I32), 1, 1},
    {DF_FAM_FEW_TERMS, "few-terms",
     "zeros but 1-4 products at the ends and warp/block edges, summing at and beside "
     "rounding midpoints and binade edges (judged exactly: the order-set rule)",
     FLOATS, 1, 0},
    {DF_FAM_INT_FACTOR, "int-factor",
     "integers in [-2, 2] and one factor across the int32 range: sums inside int32",
     DF_TYPE_BIT(DF_I32), 1, 0},
    {DF_FAM_LP_RANGE, "lp-range",
     "any finite encoding, exponents in a window drawn per case (bf16 kept below f32 "
     "overflow)",
     LOWP, 2, 0},
    {DF_FAM_LP_SUBNORMAL, "lp-subnormal",
     "one vector subnormal or at the smallest normal binade, the other anywhere", LOWP, 1, 0},
    {DF_FAM_LP_SPECIAL, "lp-special",
     "lp-range with 1-6 of +-0, subnormals, NaN, +-Inf (e4m3: its largest), +-max", LOWP, 1,
     0},
    {DF_FAM_LP_CANCEL, "lp-cancel",
     "exactly cancelling pairs at the top of the range beside 1-4 terms 2^4 to 2^30 smaller",
     LOWP, 1, 0},
};

size_t df_family_count(void) { return sizeof families / sizeof families[0]; }

const df_family *df_family_at(size_t i)
{
    return i < df_family_count() ? &families[i] : NULL;
}

const df_family *df_family_find(const char *name)
{
    for (size_t i = 0; name && i < df_family_count(); i++)
        if (strcmp(families[i].name, name) == 0)
            return &families[i];
    return NULL;
}

const df_family *df_family_by_id(uint32_t id)
{
    for (size_t i = 0; i < df_family_count(); i++)
        if (families[i].id == id)
            return &families[i];
    return NULL;
}

/* ---- cases -------------------------------------------------------------- */

/* The family draw happens whether or not a family is forced, so forcing
 * the family a mixed campaign chose reproduces that case byte for byte. */
static int family_fits(const df_family *f, df_type t, int wide)
{
    return (f->types & DF_TYPE_BIT(t)) && (!f->wide_only || wide);
}

static const df_family *pick_family(df_pcg32 *r, df_type t, int wide, uint32_t forced)
{
    uint64_t total = 0;
    for (size_t i = 0; i < df_family_count(); i++)
        if (family_fits(&families[i], t, wide))
            total += families[i].weight;
    uint32_t x = total ? df_pcg32_bounded(r, (uint32_t)total) : 0;
    if (forced) {
        const df_family *f = df_family_by_id(forced);
        return f && family_fits(f, t, wide) ? f : NULL;
    }
    for (size_t i = 0; i < df_family_count(); i++) {
        if (!family_fits(&families[i], t, wide))
            continue;
        if (x < families[i].weight)
            return &families[i];
        x -= families[i].weight;
    }
    return NULL;
}

static void copy_name(char dst[DF_NAME_MAX], const char *src)
{
    size_t i = 0;
    for (; src && src[i] && i + 1 < DF_NAME_MAX; i++)
        dst[i] = src[i];
    dst[i] = '\0';
}

/* ---- BLAS arguments ------------------------------------------------------ */

/* An increment: 1 half the time, else one of -3..3 (0 included). */
static int32_t draw_inc(df_pcg32 *r)
{
    static const int32_t incs[] = {-3, -2, -1, 0, 2, 3};
    if (df_pcg32_bounded(r, 2) == 0)
        return 1;
    return incs[df_pcg32_bounded(r, (uint32_t)(sizeof incs / sizeof incs[0]))];
}

/* The BLAS arguments of case (seed, index) of a kernel that takes them,
 * from a stream of their own (the case's other draws are a plain case's):
 * the increments, and in one case in 32 an n of 0 or less (n becomes 0).
 * A zero increment reads one element n times, so that case's vectors are
 * the constant family's; the low-precision types, which have none, get no
 * zero increment. */
static void draw_blas(uint64_t seed, uint64_t index, const df_kernel *k, uint64_t *n,
                      df_blas *out)
{
    df_pcg32 r;
    df_pcg32_seed(&r, seed, index ^ UINT64_C(0x626c617363617365)); /* "blascase" */
    memset(out, 0, sizeof *out);
    out->on = 1;
    do {
        out->inc_a = draw_inc(&r);
        out->inc_b = draw_inc(&r);
    } while (df_type_is_lowp(k->elem) && (out->inc_a == 0 || out->inc_b == 0));
    if (df_pcg32_bounded(&r, 32) == 0) {
        static const int64_t nonpositive[] = {0, -1, -5, INT64_MIN};
        out->n_arg = nonpositive[df_pcg32_bounded(&r, 4)];
        *n = 0;
    } else {
        out->n_arg = (int64_t)*n;
    }
}

/* Whether o makes index's case long (--long-n). */
static int is_long_index(const df_gen_opts *o, uint64_t index)
{
    return o->long_n >= DF_GEN_LONG_MIN && df_gen_is_long_every(o->long_every, index);
}

/* The draws before the values: family, then the shape (n from o->fixed_n
 * when set: the draw still happens, so the values' stream is unchanged),
 * then a BLAS kernel's arguments (blas, when not NULL).
 * rng is left where the values start. */
static const df_family *draw_front(uint64_t seed, uint64_t index, const df_kernel *k,
                                   const df_gen_opts *o, df_pcg32 *rng, uint64_t *n,
                                   df_launch *launch, df_blas *blas)
{
    df_pcg32_seed(rng, seed, index);
    const df_family *fam =
        pick_family(rng, k->elem, (k->flags & DF_K_ACC_WIDE) != 0, o->family);
    if (!fam)
        return NULL;
    df_draw_shape(rng, k, o->max_n, n, launch);
    uint64_t huge = 0;
    if (o->fixed_n)
        *n = k->max_n && o->fixed_n > k->max_n ? k->max_n : o->fixed_n;
    else if (df_gen_is_huge(o, index) &&
             (huge = df_gen_huge_n(seed, index, k, o->huge_bytes, launch)) != 0)
        *n = huge;
    else if (is_long_index(o, index))
        *n = draw_long_n(seed, index, k, o->long_n, launch, *n);
    if (blas && (k->flags & DF_K_BLAS) && !huge) { /* a huge case stays contiguous */
        draw_blas(seed, index, k, n, blas);
        if (blas->inc_a == 0 || blas->inc_b == 0)
            fam = df_family_by_id(DF_FAM_CONSTANT);
    }
    return fam;
}

/* ---- shared cases -------------------------------------------------------- */

/* Whether kernels a and b take the same cases under max_n. */
static int same_cases(const df_kernel *a, const df_kernel *b, uint64_t max_n)
{
    uint64_t la = a->max_n && a->max_n < max_n ? a->max_n : max_n;
    uint64_t lb = b->max_n && b->max_n < max_n ? b->max_n : max_n;
    return a->elem == b->elem && la == lb &&
           ((a->flags ^ b->flags) & (DF_K_BLAS | DF_K_ACC_WIDE)) == 0;
}

void df_gen_share(df_gen_opts *o, const df_kernel *const *ks, size_t nk)
{
    memset(o->share, 0, sizeof o->share);
    o->cycle_ks = NULL;
    if (nk < 2 || nk > DF_GEN_CYCLE_MAX)
        return;
    o->cycle = (uint32_t)nk;
    o->cycle_ks = ks;
    for (size_t p = 1; p < nk; p++)
        if (same_cases(ks[p - 1], ks[p], o->max_n) && o->share[p - 1] < UINT8_MAX)
            o->share[p] = (uint8_t)(o->share[p - 1] + 1);
}

uint64_t df_gen_next_long(const df_gen_opts *o, uint64_t from)
{
    if (o->long_n < DF_GEN_LONG_MIN)
        return UINT64_MAX;
    uint64_t e = o->long_every ? o->long_every : DF_GEN_LONG_EVERY;
    uint64_t ahead = e - 1 - from % e; /* is_long_index: index mod e == e - 1 */
    return from > UINT64_MAX - ahead ? UINT64_MAX : from + ahead;
}

int df_gen_lead(const df_gen_opts *o, uint64_t index, const df_kernel *k, uint64_t *lead)
{
    if (!o || !o->cycle_ks || o->cycle < 2)
        return 0;
    uint64_t p = index % o->cycle, back = o->share[p];
    if (back == 0 || o->cycle_ks[p] != k)
        return 0;
    uint64_t l = index - back; /* back <= p <= index */
    if (is_long_index(o, index) || is_long_index(o, l) || df_gen_is_huge(o, index) ||
        df_gen_is_huge(o, l))
        return 0;
    *lead = l;
    return 1;
}

/* Whether k takes n under launch l (resolved into l). */
static int takes(const df_kernel *k, const df_gen_opts *o, uint64_t n, df_launch *l)
{
    uint64_t per_block = (uint64_t)(l->block ? l->block : 1) * (k->per_thread ? k->per_thread : 1);
    return n <= length_limit(k, o->max_n, per_block) && df_launch_resolve(k, n, l, NULL, 0) == 0;
}

/* A follower's launch for its leader's n (out holds the leader's case):
 * the leader's where k takes it (its grid derived again where k derives
 * it, no offsets where k has none), so that a length drawn at the edge of
 * the leader's blocks and grid is at the edge of k's too; else one of its
 * own, from the stream (seed, index ^ its key), drawn as a plain case's.
 * Returns 0, or -1 where k cannot take that n. */
static int follow(uint64_t seed, uint64_t index, const df_kernel *k, const df_gen_opts *o,
                  df_case *out)
{
    df_launch l = out->launch;
    if (!(k->flags & DF_K_GRID_FREE))
        l.grid = 0;
    if (!(k->flags & DF_K_ANY_ALIGNMENT))
        l.offset_a = l.offset_b = 0;
    if (!takes(k, o, out->n, &l)) {
        df_pcg32 r;
        df_pcg32_seed(&r, seed, index ^ UINT64_C(0x666f6c6c6f776572)); /* "follower" */
        l = draw_launch(&r, k);
        if (!takes(k, o, out->n, &l))
            return -1;
    }
    out->launch = l;
    copy_name(out->kernel, k->name);
    out->index = index;
    return 0;
}

int df_generate_stream(uint64_t seed, uint64_t index, const df_kernel *k,
                       const df_gen_opts *o, df_pcg32 *values, uint32_t *family,
                       uint64_t *n)
{
    df_launch launch;
    df_blas blas;
    uint64_t lead;
    if (k && df_gen_lead(o, index, k, &lead)) { /* the leader's stream and length */
        df_case c;
        if (df_generate_shape(seed, index, k, o, &c, values) != 0)
            return -1;
        *family = c.family;
        *n = c.n;
        return 0;
    }
    const df_family *fam =
        k && o ? draw_front(seed, index, k, o, values, n, &launch, &blas) : NULL;
    if (!fam)
        return -1;
    *family = fam->id;
    return 0;
}

static int shape_of(uint64_t seed, uint64_t index, const df_kernel *k, const df_gen_opts *o,
                    df_case *out, df_pcg32 *values);

int df_generate_shape(uint64_t seed, uint64_t index, const df_kernel *k,
                      const df_gen_opts *o, df_case *out, df_pcg32 *values)
{
    if (!k || !o || !out)
        return -1;
    uint64_t lead;
    if (df_gen_lead(o, index, k, &lead) &&
        shape_of(seed, lead, o->cycle_ks[lead % o->cycle], o, out, values) == 0 &&
        follow(seed, index, k, o, out) == 0)
        return 0;
    return shape_of(seed, index, k, o, out, values);
}

/* df_generate_shape's case (seed, index) of k, its own. */
static int shape_of(uint64_t seed, uint64_t index, const df_kernel *k, const df_gen_opts *o,
                    df_case *out, df_pcg32 *values)
{
    uint64_t n;
    df_launch launch;
    df_blas blas = {0};
    const df_family *fam = draw_front(seed, index, k, o, values, &n, &launch, &blas);
    size_t esz = df_type_size(k->elem);
    if (!fam || esz == 0 || n > SIZE_MAX / 2 / esz ||
        df_launch_resolve(k, n, &launch, NULL, 0) != 0)
        return -1;
    memset(out, 0, sizeof *out);
    out->type = k->elem;
    out->n = n;
    out->launch = launch;
    copy_name(out->kernel, k->name);
    out->seed = seed;
    out->index = index;
    out->family = fam->id;
    out->blas = blas;
    return 0;
}

int df_generate_begin(uint64_t seed, uint64_t index, const df_kernel *k,
                      const df_gen_opts *o, df_scratch *buf, df_case *out, df_pcg32 *values)
{
    if (!buf || df_generate_shape(seed, index, k, o, out, values) != 0)
        return -1;
    size_t esz = df_type_size(k->elem);
    /* fit: the buffer follows the case's length (a run's thousands of
     * slots, each keeping the longest case it ever held, hold gigabytes) */
    unsigned char *p = df_scratch_fit(buf, (size_t)out->n * 2 * esz);
    if (!p)
        return -1;
    out->a = p;
    out->b = p + (size_t)out->n * esz;
    return 0;
}

int df_generate(uint64_t seed, uint64_t index, const df_kernel *k,
                const df_gen_opts *o, df_scratch *buf, df_case *out)
{
    df_pcg32 rng;
    if (df_generate_begin(seed, index, k, o, buf, out, &rng) != 0)
        return -1;
    (void)df_fill_values(out->family, &rng, k->elem, (void *)out->a, (void *)out->b, out->n);
    return 0;
}

/* Cloned: cond's chunks do TwoProduct's fma (DF_VAL_CLONES, df_fill_cond);
 * static, as clang names a cloned function's resolver apart from it. */
DF_VAL_CLONES static void values_chunk(const df_vplan *p, void *a, void *b, uint64_t j,
                                       df_vchunk *out)
{
    df_values_chunk(p, a, b, j, out);
}

void df_generate_chunk(const df_vplan *p, void *a, void *b, uint64_t j, df_vchunk *out)
{
    values_chunk(p, a, b, j, out);
}
