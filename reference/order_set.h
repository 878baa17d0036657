/* order_set.h — every result a correct kernel may return for a dot with
 * few nonzero products: the exact oracle of few-term cases.
 *
 * A dot whose products are zero but for k <= DF_ORDER_SET_MAX_TERMS of them
 * is, for any correct kernel, a sum of those k products in some binary
 * tree (zero products add nothing: x + 0 = x), each addition rounded to
 * nearest-even in the accumulator type, each product either rounded to the
 * accumulator type first or taken exactly into an FMA with one addend. So
 * the results of every evaluation order can be listed, and a result not
 * among them is wrong for every order: rounded toward zero, short of guard
 * bits, rounded through a narrower type, rounded twice, or flushed where
 * the kernel does not flush. The set is a superset of what any one kernel
 * does (any tree, FMA anywhere), so it never condemns a correct kernel.
 *
 * Only finite data, elements f32 (accumulator f32 or f64) or f64
 * (accumulator f64). A kernel that flushes subnormals gets no set where
 * a subnormal appears among the terms or the sums. f64 products are held
 * as head + tail (TwoProduct), so tiny f64 products (tail underflow) get
 * no set either.
 */
#ifndef DOTFUZZ_ORDER_SET_H
#define DOTFUZZ_ORDER_SET_H

#include <stdint.h>

#include "fuzz/case.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DF_ORDER_SET_MAX_TERMS 4
#define DF_ORDER_SET_MAX_VALUES 64

typedef struct df_order_set {
    unsigned terms;   /* nonzero products */
    unsigned count;   /* distinct results, in vals[0..count) */
    double vals[DF_ORDER_SET_MAX_VALUES]; /* in the accumulator type, widened
                                             exactly; a zero stands for both
                                             signs */
} df_order_set;

/* The results of every correct order for a[0..n) . b[0..n) of element type
 * elem accumulated in acc (ftz: the kernel flushes subnormals). Returns 1
 * with *out filled, or 0 where the case gets no set: more than
 * DF_ORDER_SET_MAX_TERMS nonzero products (found after reading at most
 * that many plus one of them), a non-finite element, a type pair outside
 * the list above, a subnormal under ftz, a tiny f64 product, an overflow,
 * or more distinct results than DF_ORDER_SET_MAX_VALUES. */
int df_order_set_of(df_type elem, df_type acc, int ftz, const void *a, const void *b,
                    uint64_t n, df_order_set *out);

/* Whether the finite result r is in s (zeros of either sign match zero). */
int df_order_set_has(const df_order_set *s, double r);

#ifdef __cplusplus
}
#endif
#endif
