/* mutator.c — libFuzzer's custom mutator and crossover for dotfuzz case
 * files. Byte-level mutation of a case file almost always breaks its CRC,
 * so this decodes the case, changes it the way numerical bugs are found
 * (exponent bits, special values, scaling, cancellation, lengths around
 * block boundaries, another kernel or launch) and encodes it again with a
 * valid CRC. Input that does not decode falls back to LLVMFuzzerMutate.
 * f16, bf16, e4m3 and e5m2 elements are mutated as their bits, inside
 * their 1 or 2 bytes, toward their format's landmarks (fuzz/lowp.h), and
 * stay version 4 files. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/lowp.h"
#include "fuzz/pcg32.h"
#include "kernels/blas.h"
#include "libfuzzer/lf_common.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
                               unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1,
                                 const uint8_t *data2, size_t size2,
                                 uint8_t *out, size_t max_out_size,
                                 unsigned int seed);

/* A case being mutated: its header fields and its own copies of a and b,
 * with room for cap elements each. */
typedef struct mcase {
    df_case c;
    df_case_meta meta;
    size_t es; /* element size */
    uint64_t cap;
    uint8_t *a, *b;
    df_pcg32 rng;
} mcase;

static uint32_t rnd(mcase *m, uint32_t bound) { return df_pcg32_bounded(&m->rng, bound); }

/* Longest n whose file fits max_size and the target's input cap. */
static uint64_t max_n_for(df_type t, size_t max_size)
{
    size_t lim = max_size < DF_LF_MAX_INPUT ? max_size : DF_LF_MAX_INPUT;
    if (lim < DF_CORPUS_HEADER)
        return 0;
    return (lim - DF_CORPUS_HEADER) / (2 * df_type_size(t));
}

static int mcase_load(mcase *m, const uint8_t *data, size_t size, size_t max_size,
                      unsigned seed)
{
    df_case_file f;
    char msg[200];
    if (df_corpus_decode(data, size, &f, msg, sizeof msg) != DF_CORPUS_OK)
        return -1;
    m->c = f.c;
    m->meta = f.meta;
    m->es = df_type_size(f.c.type);
    m->cap = max_n_for(f.c.type, max_size);
    if (m->cap < f.c.n)
        m->cap = f.c.n;
    m->a = calloc(m->cap + 1, m->es);
    m->b = calloc(m->cap + 1, m->es);
    if (!m->a || !m->b) {
        free(m->a);
        free(m->b);
        df_case_file_free(&f);
        return -1;
    }
    memcpy(m->a, f.c.a, f.c.n * m->es);
    memcpy(m->b, f.c.b, f.c.n * m->es);
    df_case_file_free(&f);
    df_pcg32_seed(&m->rng, seed, 0x6c66);
    return 0;
}

static void mcase_free(mcase *m)
{
    free(m->a);
    free(m->b);
}

static uint8_t *elem(mcase *m, int which_b, uint64_t i);

/* A BLAS call's case after any change (docs/blas.md): n_arg follows n (an
 * n of 0 keeps an n_arg of 0 or less), and a zero increment's vector
 * repeats its first element, the one the call reads n times. */
static void fix_blas(mcase *m)
{
    if (!m->c.blas.on)
        return;
    df_blas_follow_n(&m->c.blas, m->c.n);
    for (int w = 0; w < 2; w++)
        for (uint64_t i = 1; (w ? m->c.blas.inc_b : m->c.blas.inc_a) == 0 && i < m->c.n; i++)
            memcpy(elem(m, w, i), elem(m, w, 0), m->es);
}

/* Encodes m into out; 0 when it does not fit or does not encode. */
static size_t mcase_store(mcase *m, uint8_t *out, size_t max_size)
{
    fix_blas(m);
    m->c.a = m->a;
    m->c.b = m->b;
    m->meta.verdict = 0; /* the recorded verdict was the parent's */
    uint8_t *buf;
    size_t len;
    if (df_corpus_encode(&m->c, &m->meta, &buf, &len) != 0)
        return 0;
    size_t r = 0;
    if (len <= max_size) {
        memcpy(out, buf, len);
        r = len;
    }
    free(buf);
    return r;
}

static uint8_t *elem(mcase *m, int which_b, uint64_t i)
{
    return (which_b ? m->b : m->a) + i * m->es;
}

/* ---- low-precision elements (f16, bf16, e4m3, e5m2): their bits ---------- */

/* The fuzz/lowp.h format of m's elements, or -1 for f32, f64 and i32. */
static int lp_format(const mcase *m) { return df_type_facts_of(m->c.type).lowp; }

static uint32_t lp_get(const mcase *m, const uint8_t *p)
{
    uint16_t x = p[0];
    if (m->es == 2)
        memcpy(&x, p, 2);
    return x;
}

static void lp_put(const mcase *m, uint8_t *p, uint32_t x)
{
    uint16_t v = (uint16_t)x;
    if (m->es == 2)
        memcpy(p, &v, 2);
    else
        p[0] = (uint8_t)x;
}

/* A bit of the element flipped: half the time one of its exponent's,
 * else any of its bits, the sign included. */
static void lp_flip(mcase *m, df_lowp f, uint8_t *p)
{
    df_lowp_shape s = df_lowp_shape_of(f);
    uint32_t bit = rnd(m, 2) ? s.man_bits + rnd(m, s.exp_bits) : rnd(m, s.bits);
    lp_put(m, p, lp_get(m, p) ^ (1u << bit));
}

/* One of the format's landmarks, either sign: 0, the smallest and largest
 * subnormal, the smallest normal, 1, the largest finite, Inf (e4m3, which
 * has none: its largest again), the canonical NaN. */
static uint32_t lp_landmark(mcase *m, df_lowp f)
{
    df_lowp_shape s = df_lowp_shape_of(f);
    uint32_t max = df_lowp_max_bits(f);
    const uint32_t v[] = {0u, 1u, (1u << s.man_bits) - 1u, 1u << s.man_bits,
                          df_lowp_encode(f, 1.0, 0), max, s.ieee ? max + 1u : max,
                          df_lowp_nan_bits(f)};
    uint32_t sign = rnd(m, 2) ? 1u << (s.bits - 1) : 0u;
    return sign | v[rnd(m, sizeof v / sizeof v[0])];
}

/* The element times 2^k, rounded to the format (past its range: Inf, or
 * e4m3's NaN, as a kernel's conversion would give). */
static void lp_scale(mcase *m, df_lowp f, uint8_t *p, int k)
{
    lp_put(m, p, df_lowp_encode(f, ldexp(df_lowp_decode(f, lp_get(m, p)), k), 0));
}

/* A positive finite value, any encoding: the top of a cancelling pair. */
static uint32_t lp_finite(mcase *m, df_lowp f)
{
    return 1u + rnd(m, df_lowp_max_bits(f));
}

/* ---- value mutations --------------------------------------------------- */

static void flip_exponent_bit(mcase *m, uint8_t *p)
{
    if (lp_format(m) >= 0) {
        lp_flip(m, (df_lowp)lp_format(m), p);
    } else if (m->c.type == DF_F32) {
        uint32_t x;
        memcpy(&x, p, 4);
        x ^= 1u << (23 + rnd(m, 8));
        memcpy(p, &x, 4);
    } else if (m->c.type == DF_F64) {
        uint64_t x;
        memcpy(&x, p, 8);
        x ^= (uint64_t)1 << (52 + rnd(m, 11));
        memcpy(p, &x, 8);
    } else {
        uint32_t x;
        memcpy(&x, p, 4);
        x ^= 1u << rnd(m, 32);
        memcpy(p, &x, 4);
    }
}

static void set_special(mcase *m, uint8_t *p)
{
    uint32_t pick = rnd(m, 9);
    double sign = rnd(m, 2) ? -1.0 : 1.0;
    if (lp_format(m) >= 0) {
        lp_put(m, p, lp_landmark(m, (df_lowp)lp_format(m)));
    } else if (m->c.type == DF_I32) {
        static const int32_t v[] = {0, 1, -1, INT32_MAX, INT32_MIN, 46341, -46341,
                                    65536, -65536};
        memcpy(p, &v[pick], 4);
    } else if (m->c.type == DF_F32) {
        float v[] = {0.0f, FLT_TRUE_MIN, FLT_MIN, FLT_MIN * 0.5f, INFINITY, NAN,
                     FLT_MAX, 1.0f, FLT_EPSILON};
        float x = (float)sign * v[pick];
        memcpy(p, &x, 4);
    } else {
        double v[] = {0.0, DBL_TRUE_MIN, DBL_MIN, DBL_MIN * 0.5, INFINITY, NAN,
                      DBL_MAX, 1.0, DBL_EPSILON};
        double x = sign * v[pick];
        memcpy(p, &x, 8);
    }
}

/* Multiplies every element of one vector by 2^k (integers: shifts, which
 * wraps as the kernels' own arithmetic would). */
static void scale_vector(mcase *m, int which_b)
{
    int k = (int)rnd(m, 65) - 32;
    if (m->c.type == DF_I32)
        k = (int)rnd(m, 8) + 1;
    else if (lp_format(m) >= 0) /* the formats span 2^-24 (f16) to 2^15, or e4m3's 2^-9 to 2^8 */
        k = (int)rnd(m, 17) - 8;
    for (uint64_t i = 0; i < m->c.n; i++) {
        uint8_t *p = elem(m, which_b, i);
        if (lp_format(m) >= 0) {
            lp_scale(m, (df_lowp)lp_format(m), p, k);
        } else if (m->c.type == DF_F32) {
            float x;
            memcpy(&x, p, 4);
            x = ldexpf(x, k);
            memcpy(p, &x, 4);
        } else if (m->c.type == DF_F64) {
            double x;
            memcpy(&x, p, 8);
            x = ldexp(x, k);
            memcpy(p, &x, 8);
        } else {
            uint32_t x;
            memcpy(&x, p, 4);
            x <<= k;
            memcpy(p, &x, 4);
        }
    }
}

static void negate_elem(mcase *m, uint8_t *p)
{
    if (lp_format(m) >= 0) { /* the sign bit */
        lp_put(m, p, lp_get(m, p) ^ (1u << (8 * m->es - 1)));
    } else if (m->c.type == DF_I32) {
        uint32_t x;
        memcpy(&x, p, 4);
        x = 0u - x;
        memcpy(p, &x, 4);
    } else if (m->c.type == DF_F32) {
        float x;
        memcpy(&x, p, 4);
        x = -x;
        memcpy(p, &x, 4);
    } else {
        double x;
        memcpy(&x, p, 8);
        x = -x;
        memcpy(p, &x, 8);
    }
}

static void swap_bytes(uint8_t *x, uint8_t *y, size_t n)
{
    uint8_t t[8];
    memcpy(t, x, n);
    memcpy(x, y, n);
    memcpy(y, t, n);
}

/* Exchanges pairs i and j (a[i], b[i]) <-> (a[j], b[j]): the same exact
 * dot summed in another order. */
static void swap_pairs(mcase *m)
{
    uint64_t i = rnd(m, (uint32_t)m->c.n), j = rnd(m, (uint32_t)m->c.n);
    swap_bytes(elem(m, 0, i), elem(m, 0, j), m->es);
    swap_bytes(elem(m, 1, i), elem(m, 1, j), m->es);
}

/* Two pairs (x, y) and (x, -y) of large magnitude: their products cancel
 * exactly, but a summation order that adds small terms between them loses
 * those terms. Inserted at two random places when there is room, else
 * written over two existing pairs. */
static void cancelling_pair(mcase *m)
{
    uint8_t x[8], y[8], ny[8];
    if (lp_format(m) >= 0) {
        lp_put(m, x, lp_finite(m, (df_lowp)lp_format(m)));
        lp_put(m, y, lp_finite(m, (df_lowp)lp_format(m)));
    } else if (m->c.type == DF_F32) {
        float v = ldexpf(1.0f + (float)rnd(m, 1024) / 1024.0f, (int)rnd(m, 100));
        memcpy(x, &v, 4);
        memcpy(y, &v, 4);
    } else if (m->c.type == DF_F64) {
        double v = ldexp(1.0 + rnd(m, 1u << 20) / 1048576.0, (int)rnd(m, 500));
        memcpy(x, &v, 8);
        memcpy(y, &v, 8);
    } else {
        int32_t v = (int32_t)rnd(m, 1u << 16);
        memcpy(x, &v, 4);
        memcpy(y, &v, 4);
    }
    memcpy(ny, y, m->es);
    negate_elem(m, ny);
    if (m->c.n + 2 <= m->cap) {
        for (int t = 0; t < 2; t++) {
            uint64_t at = rnd(m, (uint32_t)m->c.n + 1);
            for (int w = 0; w < 2; w++)
                memmove(elem(m, w, at + 1), elem(m, w, at), (m->c.n - at) * m->es);
            memcpy(elem(m, 0, at), x, m->es);
            memcpy(elem(m, 1, at), t ? ny : y, m->es);
            m->c.n++;
        }
    } else if (m->c.n >= 2) {
        uint64_t i = rnd(m, (uint32_t)m->c.n), j = rnd(m, (uint32_t)m->c.n);
        memcpy(elem(m, 0, i), x, m->es);
        memcpy(elem(m, 1, i), y, m->es);
        memcpy(elem(m, 0, j), x, m->es);
        memcpy(elem(m, 1, j), ny, m->es);
    }
}

/* ---- shape mutations --------------------------------------------------- */

/* The block the case runs with on its kernel (or a common default). */
static uint32_t case_block(const mcase *m)
{
    const df_kernel *k = m->c.kernel[0] ? df_kernel_find(m->c.kernel) : NULL;
    if (m->c.launch.block)
        return m->c.launch.block;
    return k ? k->block_default : 256;
}

/* A new n at a block boundary: 31/32/33, block±1, 2 block±1, n±1, 2n,
 * n/2. New elements repeat the old ones, so the data keeps its character. */
static void resize(mcase *m)
{
    uint64_t bl = case_block(m), n = m->c.n;
    uint64_t choice[] = {0, 1, 31, 32, 33, bl - 1, bl, bl + 1, 2 * bl - 1, 2 * bl + 1,
                         n + 1, n ? n - 1 : 0, 2 * n, n / 2, 4 * bl * 32 + 1};
    uint64_t nn = choice[rnd(m, sizeof choice / sizeof choice[0])];
    if (nn > m->cap)
        nn = m->cap;
    for (uint64_t i = n; i < nn; i++) {
        for (int w = 0; w < 2; w++) {
            if (n)
                memcpy(elem(m, w, i), elem(m, w, i % n), m->es);
            else
                set_special(m, elem(m, w, i));
        }
    }
    m->c.n = nn;
}

/* Another correct kernel of the case's type, or none (every kernel); with
 * DOTFUZZ_LF_KERNEL always that kernel, so a crash artifact names the
 * kernel it failed on and replays on it. */
static void change_kernel(mcase *m)
{
    const df_kernel *forced = df_lf_forced_kernel();
    if (forced) {
        memset(m->c.kernel, 0, sizeof m->c.kernel);
        strncpy(m->c.kernel, forced->name, DF_NAME_MAX - 1);
        m->c.launch = (df_launch){0};
        return;
    }
    size_t nk = df_lf_kernels_of_type(m->c.type);
    uint32_t pick = rnd(m, (uint32_t)nk + 1);
    memset(m->c.kernel, 0, sizeof m->c.kernel);
    if (pick < nk) {
        const df_kernel *k = df_lf_kernel_of_type(m->c.type, pick);
        strncpy(m->c.kernel, k->name, DF_NAME_MAX - 1);
    }
    m->c.launch = (df_launch){0};
}

/* A random launch within the kernel's ranges; kept only when
 * df_launch_resolve accepts it. */
static void change_launch(mcase *m)
{
    const df_kernel *k = df_lf_forced_kernel();
    if (!k)
        k = m->c.kernel[0] ? df_kernel_find(m->c.kernel) : df_lf_kernel_of_type(m->c.type, 0);
    if (!k)
        return;
    df_launch l = m->c.launch;
    uint32_t lo = k->block_min, hi = k->block_max;
    switch (rnd(m, 4)) {
    case 0: { /* a power of two in range */
        uint32_t p = 1;
        while (p < lo)
            p <<= 1;
        uint32_t steps = 0;
        for (uint32_t q = p; q <= hi && q; q <<= 1)
            steps++;
        l.block = steps ? p << rnd(m, steps) : 0;
        break;
    }
    case 1: /* a multiple of 32, or any value in range */
        l.block = hi - lo < UINT32_MAX ? lo + rnd(m, hi - lo + 1) : lo;
        if ((k->flags & (DF_K_BLOCK_WARP | DF_K_BLOCK_POW2)) == DF_K_BLOCK_WARP)
            l.block = (l.block + 31) / 32 * 32;
        break;
    case 2: /* the grid of a grid-stride kernel */
        l.grid = (k->flags & DF_K_GRID_FREE)
                     ? 1 + rnd(m, k->grid_max ? k->grid_max : 1024)
                     : 0;
        break;
    default: /* misaligned inputs */
        l.offset_a = rnd(m, 8);
        l.offset_b = rnd(m, 8);
        break;
    }
    if (!(k->flags & DF_K_GRID_FREE))
        l.grid = 0; /* derived from n: store none, so n can change */
    df_launch r = l;
    if (df_launch_resolve(k, m->c.n, &r, NULL, 0) == 0)
        m->c.launch = l;
}

/* New BLAS arguments: increments among the edges (0, negative, 1, wide),
 * and one time in 16 an n of 0 or less. */
static void change_blas(mcase *m)
{
    static const int32_t incs[] = {1, 1, 1, -1, 2, -2, 3, -3, 0, 7, -7};
    static const int64_t nonpositive[] = {0, -1, INT64_MIN};
    const uint32_t ni = sizeof incs / sizeof incs[0];
    m->c.blas = (df_blas){1, incs[rnd(m, ni)], incs[rnd(m, ni)], 0, (int64_t)m->c.n};
    if (rnd(m, 16) == 0) {
        m->c.blas.n_arg = nonpositive[rnd(m, 3)];
        m->c.n = 0;
    }
}

/* The kernel the case runs on takes BLAS arguments. */
static int blas_kernel(const mcase *m)
{
    const df_kernel *k = df_lf_forced_kernel();
    if (!k && m->c.kernel[0])
        k = df_kernel_find(m->c.kernel);
    return k && (k->flags & DF_K_BLAS);
}

/* After n changed, a derived grid no longer matches: let it be derived. */
static void fix_launch(mcase *m)
{
    const df_kernel *k = m->c.kernel[0] ? df_kernel_find(m->c.kernel) : NULL;
    if (k && !(k->flags & DF_K_GRID_FREE))
        m->c.launch.grid = 0;
}

static void mutate_once(mcase *m)
{
    uint32_t op = rnd(m, 10);
    int w = (int)rnd(m, 2);
    if (m->c.n == 0 && op < 6)
        op = 6; /* nothing to change in a vector: grow it */
    uint64_t i = m->c.n ? rnd(m, (uint32_t)m->c.n) : 0;
    switch (op) {
    case 0: flip_exponent_bit(m, elem(m, w, i)); break;
    case 1: set_special(m, elem(m, w, i)); break;
    case 2: scale_vector(m, w); break;
    case 3: negate_elem(m, elem(m, w, i)); break;
    case 4: swap_pairs(m); break;
    case 5: cancelling_pair(m); break;
    case 6: case 7: resize(m); break;
    case 8: change_kernel(m); break;
    default: /* a BLAS kernel's case: half the time its arguments */
        if (blas_kernel(m) && rnd(m, 2))
            change_blas(m);
        else
            change_launch(m);
        break;
    }
    fix_launch(m);
}

/* A fresh small case from the seed, for inputs that are no case file (an
 * empty corpus starts there): small integers (a low-precision type's
 * nearest values), n up to 64, of the forced kernel's type
 * (DOTFUZZ_LF_KERNEL) or f32, naming that kernel or none. */
static size_t fresh_case(uint8_t *out, size_t max_size, unsigned seed)
{
    const df_kernel *k = df_lf_forced_kernel();
    df_type t = k ? k->elem : DF_F32;
    mcase m;
    memset(&m, 0, sizeof m);
    df_pcg32_seed(&m.rng, seed, 0x66726573);
    m.c.type = t;
    m.es = df_type_size(t);
    m.cap = 1 + rnd(&m, 64);
    if (max_n_for(t, max_size) < m.cap)
        return 0;
    m.a = calloc(m.cap, m.es);
    m.b = calloc(m.cap, m.es);
    size_t len = 0;
    if (m.a && m.b) {
        for (uint64_t i = 0; i < m.cap; i++) {
            int32_t x = (int32_t)rnd(&m, 101) - 50, y = (int32_t)rnd(&m, 101) - 50;
            if (lp_format(&m) >= 0) { /* the nearest value, or the largest (e4m3 ends at 448) */
                df_lowp f = (df_lowp)lp_format(&m);
                lp_put(&m, m.a + i * m.es, df_lowp_encode(f, x, 1));
                lp_put(&m, m.b + i * m.es, df_lowp_encode(f, y, 1));
            } else if (t == DF_F32) {
                float fx = (float)x, fy = (float)y;
                memcpy(m.a + i * 4, &fx, 4), memcpy(m.b + i * 4, &fy, 4);
            } else if (t == DF_F64) {
                double dx = x, dy = y;
                memcpy(m.a + i * 8, &dx, 8), memcpy(m.b + i * 8, &dy, 8);
            } else {
                memcpy(m.a + i * 4, &x, 4), memcpy(m.b + i * 4, &y, 4);
            }
        }
        m.c.n = m.cap;
        if (k)
            snprintf(m.c.kernel, sizeof m.c.kernel, "%s", k->name);
        len = mcase_store(&m, out, max_size);
    }
    mcase_free(&m);
    return len;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
                               unsigned int seed)
{
    mcase m;
    if (mcase_load(&m, data, size, max_size, seed) != 0) {
        size_t len = fresh_case(data, max_size, seed);
        return len ? len : LLVMFuzzerMutate(data, size, max_size);
    }
    uint32_t rounds = 1 + rnd(&m, 4);
    for (uint32_t r = 0; r < rounds; r++)
        mutate_once(&m);
    size_t len = mcase_store(&m, data, max_size);
    mcase_free(&m);
    return len ? len : LLVMFuzzerMutate(data, size, max_size);
}

/* Splices the vectors of two cases of one type: a prefix of the first's
 * pairs, then a suffix of the second's, under the first's header. */
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1,
                                 const uint8_t *data2, size_t size2,
                                 uint8_t *out, size_t max_out_size,
                                 unsigned int seed)
{
    mcase m1, m2;
    if (mcase_load(&m1, data1, size1, max_out_size, seed) != 0)
        return 0;
    if (mcase_load(&m2, data2, size2, max_out_size, seed ^ 0x9e3779b9u) != 0) {
        mcase_free(&m1);
        return 0;
    }
    size_t len = 0;
    if (m1.c.type == m2.c.type) {
        uint64_t cut1 = rnd(&m1, (uint32_t)m1.c.n + 1);
        uint64_t from2 = rnd(&m1, (uint32_t)m2.c.n + 1);
        uint64_t take = m2.c.n - from2;
        if (cut1 + take > m1.cap)
            take = m1.cap - cut1;
        memcpy(elem(&m1, 0, cut1), elem(&m2, 0, from2), take * m1.es);
        memcpy(elem(&m1, 1, cut1), elem(&m2, 1, from2), take * m1.es);
        m1.c.n = cut1 + take;
        fix_launch(&m1);
        len = mcase_store(&m1, out, max_out_size);
    }
    mcase_free(&m1);
    mcase_free(&m2);
    return len;
}
