/* refs_copies.c — the references of a case's negated, scaled and permuted
 * copies (the metamorphic checks' copies), derived from the case's own
 * instead of computed again: what the change leaves alone is kept, what it
 * changes is derived exactly or, for a permutation's Kahan sum, made again
 * with the lanes of refs_many.c. Each answers bit for bit what
 * df_refs_compute gives on the copy's data, or refuses.
 */
#include <math.h>

#include "reference/refs_internal.h"

__extension__ typedef __int128 i128;

int df_refs_negated(df_type t, const df_refs *in, df_refs *out)
{
    if (in->has_nan || in->kahan == 0.0 || isnan(in->kahan) ||
        (t == DF_I32 && in->max_abs_a >= 2147483648.0))
        return -1;
    *out = *in;
    out->kahan = -in->kahan;
    if (in->has_nonfinite && !isnan(in->inf_want))
        out->inf_want = -in->inf_want; /* an infinity's class (NaN's stays) */
    if (in->exact_is_int) {
        out->exact = df_i128_pack(-df_i128_unpack(in->exact)); /* |exact| < 2^94 */
        df_i128_to_double2(out->exact, &out->exact_hi, &out->exact_lo);
        if (in->fp_known)
            df_exact_of_int(out->exact, &out->fp);
    } else if (in->fp_known) {
        df_exact_negate(&in->fp, &out->fp);
        out->exact_hi = out->fp.hi;
        out->exact_lo = out->fp.lo;
    }
    return 0;
}

/* df_refs_permuted_many's job alone (refs_many.c's kahan_side_by_side runs
 * one sum as df_kahan_span). */
int df_refs_permuted(df_type t, const void *a, const void *b, uint64_t n, const df_refs *in,
                     df_refs *out)
{
    df_refs r = *in;
    df_refs_job job = {t, a, b, n, &r};
    unsigned char ok;
    df_refs_permuted_many(&job, 1, &ok);
    if (!ok)
        return -1;
    *out = r;
    return 0;
}

int df_refs_scaled(df_type t, const void *a, const void *b, uint64_t n, int k,
                   const df_refs *in, df_refs *out)
{
    if (t != DF_F32 || n > DF_REFS_CHUNK || in->has_nonfinite || !in->fp_known ||
        in->fp.kind != DF_EXACT_FINITE || k < -30 || k > 30)
        return -1;
    /* the classes of the data as the references see them (a has moved;
     * both are in this core's cache: a was just written, b referenced) */
    df_span_class ka = df_classify_f32(a, n), kb = df_classify_f32(b, n);
    if (ka.nonfinite || kb.nonfinite || ka.max_abs != ldexp(in->max_abs_a, k) ||
        kb.max_abs != in->max_abs_b)
        return -1; /* not in->'s data scaled */
    df_refs r = *in;
    /* every sum the references form scales exactly: the products are
     * exact in double and stay far inside its range, 2^k a sum of them is
     * a double whenever the sum is, and Kahan's bound is G times constants */
    r.kahan = ldexp(in->kahan, k);
    r.kahan_err = ldexp(in->kahan_err, k);
    r.G = ldexp(in->G, k);
    r.max_abs_a = ka.max_abs;
    r.all_integer = !ka.nonint && !kb.nonint;
    if (df_exact_eligible(ka, kb)) { /* the integer path: exact as an integer */
        if (!in->exact_is_int)
            return -1; /* became integers: their dot is not at hand as one */
        i128 v = df_i128_unpack(in->exact), unit = (i128)1 << (k < 0 ? -k : k);
        if (k < 0 && v % unit != 0)
            return -1;
        r.exact = df_i128_pack(k < 0 ? v / unit : v * unit);
        df_i128_to_double2(r.exact, &r.exact_hi, &r.exact_lo);
        df_exact_of_int(r.exact, &r.fp);
    } else {
        r.exact_is_int = 0;
        r.exact = df_i128_pack(0);
        if (df_exact_scale(&in->fp, k, &r.fp) != 0)
            return -1;
        r.exact_hi = r.fp.hi;
        r.exact_lo = r.fp.lo;
    }
    r.exact_known = 1;
    r.fp_known = 1;
    *out = r;
    return 0;
}
