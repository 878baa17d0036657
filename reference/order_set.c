/* order_set.c — the results of every correct order of a few-term dot
 * (order_set.h says what and why).
 *
 * The set is built bottom-up over the subsets of the k terms: V(S) holds
 * every value a correct tree over the terms in S can end with. A single
 * term gives its product rounded to the accumulator; a larger S splits
 * into two nonempty parts in every way, and each pair of values, one from
 * each part, gives their rounded sum, where a part that is a single term
 * may also enter exactly (an FMA's product). k <= 4 keeps this to 15
 * subsets of a few values each.
 *
 * Every rounding is correct rounding of an exact sum: for a float
 * accumulator the two addends are doubles (f32 products are exact in
 * double), their sum s and its error e (TwoSum) are exact, and s + e is
 * rounded to float with the one case where rounding s alone is wrong, s on
 * a float midpoint, settled by e's sign. For f64 elements a product is
 * head + tail (an FMA gives the tail), and a sum of three doubles is
 * rounded through the superaccumulator (reference/exact.h).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "reference/exact.h"
#include "reference/two_sum.h"
#include "reference/order_set.h"

typedef struct term {
    double hi, lo; /* the exact product hi + lo */
} term;

typedef struct vset {
    unsigned count;
    double v[DF_ORDER_SET_MAX_VALUES];
} vset;

typedef struct builder {
    df_type acc;
    int ftz, ok; /* ok: 0 once the case gets no set */
    double min_normal;
} builder;

/* RN_float(x + y) for doubles x and y, correctly rounded. */
static double rn_float_sum(double x, double y)
{
    double e, s = df_two_sum(x, y, &e);
    float f = (float)s;
    if (e == 0.0 || (double)f == s)
        return f;
    float g = nextafterf(f, s > (double)f ? INFINITY : -INFINITY);
    if (((double)f + (double)g) * 0.5 == s) /* s on a midpoint: e decides */
        return e > 0 ? fmax(f, g) : fmin(f, g);
    return f;
}

/* RN_acc(hi + lo + y). */
static double rn_sum(const builder *b, double hi, double lo, double y)
{
    if (b->acc == DF_F32)
        return rn_float_sum(hi, y); /* f32 elements: lo is 0 */
    if (lo == 0.0 || y == 0.0)
        return hi + y; /* hi = RN(hi + lo) */
    double x[3] = {hi, lo, y};
    df_exact s;
    df_exact_of_doubles(x, 3, &s);
    return s.hi;
}

/* v into s, once; a value that is not finite, a subnormal under ftz or a
 * set grown past its room ends the set. */
static void put(builder *b, vset *s, double v)
{
    if (!isfinite(v) || (b->ftz && v != 0.0 && fabs(v) < b->min_normal)) {
        b->ok = 0;
        return;
    }
    for (unsigned i = 0; i < s->count; i++)
        if (s->v[i] == v)
            return;
    if (s->count == DF_ORDER_SET_MAX_VALUES) {
        b->ok = 0;
        return;
    }
    s->v[s->count++] = v;
}

static int single(unsigned mask) { return (mask & (mask - 1)) == 0; }
static unsigned index_of(unsigned mask)
{
    unsigned i = 0;
    while (!(mask & 1u << i))
        i++;
    return i;
}

/* V(mask) from the sets of its parts, every split once (the part holding
 * mask's lowest term first). */
static void combine(builder *b, const term *t, vset *V, unsigned mask)
{
    unsigned low = mask & (0u - mask);
    vset *out = &V[mask];
    for (unsigned s1 = (mask - 1) & mask; s1 && b->ok; s1 = (s1 - 1) & mask) {
        if (!(s1 & low))
            continue;
        unsigned s2 = mask ^ s1;
        const vset *x = &V[s1], *y = &V[s2];
        for (unsigned i = 0; i < x->count; i++)
            for (unsigned j = 0; j < y->count; j++)
                put(b, out, rn_sum(b, x->v[i], 0.0, y->v[j]));
        if (single(s1)) {
            const term *p = &t[index_of(s1)];
            for (unsigned j = 0; j < y->count; j++)
                put(b, out, rn_sum(b, p->hi, p->lo, y->v[j]));
        }
        if (single(s2)) {
            const term *p = &t[index_of(s2)];
            for (unsigned i = 0; i < x->count; i++)
                put(b, out, rn_sum(b, p->hi, p->lo, x->v[i]));
        }
    }
}

static double elem_at(df_type t, const void *v, uint64_t i)
{
    return t == DF_F32 ? (double)((const float *)v)[i] : ((const double *)v)[i];
}

/* The nonzero products of a . b into t[0..*k); 0 where the case gets no
 * set (see order_set.h). */
static int gather(df_type elem, int ftz, const void *a, const void *b, uint64_t n, term *t,
                  unsigned *k)
{
    double elem_min = elem == DF_F32 ? FLT_MIN : DBL_MIN;
    *k = 0;
    for (uint64_t i = 0; i < n; i++) {
        double x = elem_at(elem, a, i), y = elem_at(elem, b, i);
        if (!isfinite(x) || !isfinite(y))
            return 0;
        if (x == 0.0 || y == 0.0)
            continue;
        if (*k == DF_ORDER_SET_MAX_TERMS)
            return 0;
        if (ftz && (fabs(x) < elem_min || fabs(y) < elem_min))
            return 0;
        term *p = &t[(*k)++];
        p->hi = x * y;
        p->lo = elem == DF_F64 ? fma(x, y, -p->hi) : 0.0;
        /* the tail is exact while it stays clear of the subnormals */
        if (!isfinite(p->hi) || (elem == DF_F64 && fabs(p->hi) < 0x1p-960))
            return 0;
    }
    return 1;
}

int df_order_set_of(df_type elem, df_type acc, int ftz, const void *a, const void *b,
                    uint64_t n, df_order_set *out)
{
    int types_ok = (elem == DF_F32 && (acc == DF_F32 || acc == DF_F64)) ||
                   (elem == DF_F64 && acc == DF_F64);
    term t[DF_ORDER_SET_MAX_TERMS];
    unsigned k;
    if (!types_ok || !gather(elem, ftz, a, b, n, t, &k))
        return 0;
    builder bd = {acc, ftz, 1, acc == DF_F32 ? FLT_MIN : DBL_MIN};
    vset V[1u << DF_ORDER_SET_MAX_TERMS];
    unsigned full = (1u << k) - 1;
    for (unsigned m = 0; m <= full; m++)
        V[m].count = 0;
    for (unsigned i = 0; i < k; i++) {
        if (ftz && fabs(t[i].hi) < bd.min_normal)
            return 0; /* a subnormal product, which the FMA would take */
        double r = rn_sum(&bd, t[i].hi, t[i].lo, 0.0);
        put(&bd, &V[1u << i], r);
    }
    /* every mask after its submasks: by increasing value */
    for (unsigned m = 1; m <= full && bd.ok; m++)
        if (!single(m))
            combine(&bd, t, V, m);
    if (!bd.ok)
        return 0;
    out->terms = k;
    if (k == 0) {
        out->count = 1;
        out->vals[0] = 0.0;
        return 1;
    }
    out->count = V[full].count;
    memcpy(out->vals, V[full].v, V[full].count * sizeof(double));
    return 1;
}

int df_order_set_has(const df_order_set *s, double r)
{
    for (unsigned i = 0; i < s->count; i++)
        if (s->vals[i] == r)
            return 1;
    return 0;
}
