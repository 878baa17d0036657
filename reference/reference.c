/* reference.c — everything the oracle needs about one case's inputs
 * (df_refs), in one pass over its data: each span classified and summed
 * exactly (int_exact.c) and by Kahan (kahan.c) while it is still in L1,
 * the exact dot of float data (exact.c), the class of a sum over Inf
 * inputs with its finite products' sum; and a case past DF_REFS_CHUNK a
 * chunk at a time, its parts merged. Nothing here allocates or keeps
 * state.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "reference/reference.h"
#include "reference/refs_internal.h"

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "reference.c needs FLT_EVAL_METHOD == 0 (no extended-precision temporaries)"
#endif

__extension__ typedef __int128 i128;

/* ---- inputs holding Inf -------------------------------------------------- */

/* Over inputs holding +-Inf and no NaN: which infinite products there are
 * (INF_POS, INF_NEG; INF_ZERO for a 0 * Inf) and the sum of |a_i b_i| over
 * the finite products, in index order, added into *fin_g. */
enum { INF_POS = 1, INF_NEG = 2, INF_ZERO = 4 };
#define INF_SPAN(NAME, T)                                                      \
    static unsigned NAME(const T *a, const T *b, uint64_t n, double *fin_g)    \
    {                                                                          \
        unsigned seen = 0;                                                     \
        double g = *fin_g;                                                     \
        for (uint64_t i = 0; i < n; i++) {                                     \
            double x = (double)a[i], y = (double)b[i];                         \
            if (isinf(x) || isinf(y))                                          \
                seen |= x == 0 || y == 0 ? INF_ZERO                            \
                        : (x < 0) != (y < 0) ? INF_NEG                         \
                                             : INF_POS;                        \
            else                                                               \
                g += fabs(x * y);                                              \
        }                                                                      \
        *fin_g = g;                                                            \
        return seen;                                                           \
    }

INF_SPAN(inf_span_f32, float)
INF_SPAN(inf_span_f64, double)

static unsigned inf_span(df_type t, const void *a, const void *b, uint64_t off, uint64_t len,
                         double *fin_g)
{
    if (t == DF_F32)
        return inf_span_f32((const float *)a + off, (const float *)b + off, len, fin_g);
    if (t == DF_F64)
        return inf_span_f64((const double *)a + off, (const double *)b + off, len, fin_g);
    return 0; /* integers are never infinite */
}

/* The class any order of the sum gives, from inf_span's products seen. */
static double inf_class(unsigned seen)
{
    if ((seen & INF_ZERO) || (seen & (INF_POS | INF_NEG)) == (INF_POS | INF_NEG))
        return NAN;
    return seen & INF_POS ? INFINITY : -INFINITY;
}

/* Products seen that give a span's class back (inf_class), for merging
 * spans: a NaN class stays NaN whatever it meets, an infinity keeps its
 * sign. */
static unsigned inf_seen_of(double want)
{
    return isnan(want) ? INF_ZERO : want > 0 ? INF_POS : INF_NEG;
}

/* ---- one case in one pass ---------------------------------------------- */

/* The exact dot known as out->fp (finite data: df_exact_dot's kind is
 * finite) also gives the head and tail. */
void df_refs_fp_out(df_refs *out)
{
    if (out->fp.kind != DF_EXACT_FINITE)
        return;
    out->fp_known = 1;
    out->exact_known = 1;
    out->exact_hi = out->fp.hi;
    out->exact_lo = out->fp.lo;
}

/* One pass over memory: per chunk, classify both vectors, add the chunk's
 * exact integer dot while the data still qualify, and run Kahan and G over
 * it; the chunk is in L1 for the second and third reads. G is the Kahan
 * loop's sequential sum of |p_i|: for integer data below 2^53 it is then
 * exact, and it reaches 2^53 exactly when the true G does (the oracle's
 * exact regime rests on that).
 *
 * While the data are integers whose sums stay exact (the bound
 * sum len max|a| max|b| over the chunks so far at most 2^53), one
 * vectorized pass (df_exact_sum_span) gives the Kahan state and the integer
 * dot at once. From the first chunk where that fails, Kahan runs as
 * written: in the scan when run_kahan, else not at all, and the offset
 * where the caller must start it (with *st as it stands) is returned; n
 * when nothing is left. Integer data also give the superaccumulator's
 * digits from their integer dot (df_exact_of_int), without its pass. */
uint64_t df_refs_scan(df_type t, const void *a, const void *b, uint64_t n, df_refs *out,
                      df_kahan_state *st, int run_kahan, int *fp_later, int no_fp)
{
    memset(out, 0, sizeof *out);
    i128 total = 0;
    int eligible = 1, nonint = 0, inf_a = 0, inf_b = 0;
    int fast = 1;                 /* every chunk so far summed exactly */
    uint64_t from = 0, bound = 0; /* Kahan's start; the exact sums' bound */
    const uint64_t exact_max = UINT64_C(1) << 53;
    for (uint64_t off = 0; off < n; off += DF_REFS_SPAN) {
        uint64_t len = n - off < DF_REFS_SPAN ? n - off : DF_REFS_SPAN;
        df_span_class ka = df_classify(t, a, off, len);
        df_span_class kb = df_classify(t, b, off, len);
        inf_a |= ka.nonfinite;
        inf_b |= kb.nonfinite;
        out->has_nan |= ka.nan | kb.nan;
        nonint |= ka.nonint | kb.nonint;
        if (!ka.nonfinite && ka.max_abs > out->max_abs_a)
            out->max_abs_a = ka.max_abs;
        if (!kb.nonfinite && kb.max_abs > out->max_abs_b)
            out->max_abs_b = kb.max_abs;
        eligible = eligible && df_exact_eligible(ka, kb);
        if (fast && eligible) {
            uint64_t mab = (uint64_t)ka.max_abs * (uint64_t)kb.max_abs; /* <= 2^62 */
            fast = mab <= (exact_max - bound) / len;
            if (fast) {
                bound += len * mab;
                double s0 = st->s;
                df_exact_sum_span(t, a, b, off, len, st);
                total += (int64_t)(st->s - s0); /* exact: both sums are */
                from = off + len;
                continue;
            }
        }
        fast = 0;
        if (eligible)
            total += df_exact_span(t, a, b, off, len, ka.max_abs, kb.max_abs);
        if (run_kahan) {
            df_kahan_span(t, a, b, off, len, st);
            from = off + len;
        }
    }
    /* A vector holding NaN or Inf has no finite maximum magnitude. */
    if (inf_a)
        out->max_abs_a = INFINITY;
    if (inf_b)
        out->max_abs_b = INFINITY;
    out->has_nonfinite = inf_a | inf_b;
    out->all_integer = !nonint && !out->has_nonfinite;
    if (out->has_nonfinite && !out->has_nan) {
        out->fin_g = 0.0;
        out->inf_want = inf_class(inf_span(t, a, b, 0, n, &out->fin_g));
    }
    out->exact_known = eligible;
    out->exact_is_int = eligible;
    if (eligible) {
        out->exact = df_i128_pack(total);
        df_i128_to_double2(out->exact, &out->exact_hi, &out->exact_lo);
    }
    /* any finite float data: the superaccumulator (reference/exact.c) gives
     * s exactly, and the errors of a result are measured against its digits */
    if (t != DF_I32 && eligible) {
        df_exact_of_int(out->exact, &out->fp);
        out->fp_known = 1;
    } else if (t != DF_I32 && !out->has_nonfinite && !no_fp) {
        if (fp_later && t == DF_F32 && from == 0)
            *fp_later = 1; /* from the Kahan lanes' bins, after them */
        else if (df_exact_dot(t, a, b, n, &out->fp) == 0)
            df_refs_fp_out(out);
    }
    return from;
}

/* The Kahan sum's part of out, from its final state. */
void df_refs_kahan_out(df_type t, uint64_t n, const df_kahan_state *st, df_refs *out)
{
    out->G = st->g;
    out->kahan = st->s;
    out->kahan_err = df_kahan_bound(t, n, st);
}

/* ---- low-precision cases: their f32 values ----------------------------- */

/* One chunk's pass over a low-precision case's f32 values (len <=
 * DF_REFS_CHUNK): df_refs_scan's into r, with fp_later and no_fp as it
 * takes them, then Kahan's sum into st (from zero) as a scan that runs it
 * leaves it: from one exact sum where the chunk's sums are all exact
 * (refs_lowp.c; returns 1, and st->s is the exact dot), else by the chain
 * from where the scan's exact integer sums stop (returns 0). */
static int lowp_scan(df_type t, const float *wa, const float *wb, uint64_t len, df_refs *r,
                     df_kahan_state *st, int *fp_later, int no_fp)
{
    uint64_t from = df_refs_scan(DF_F32, wa, wb, len, r, st, 0, fp_later, no_fp);
    if (from == 0 && !r->has_nonfinite && df_lowp_sums_exact(t, wa, wb, len, st))
        return 1;
    df_kahan_span(DF_F32, wa, wb, from, len - from, st);
    return 0;
}

/* df_refs_compute of a low-precision case of n <= DF_REFS_CHUNK: that of
 * its f32 values, bit for bit. */
static void lowp_compute(df_type t, const void *a, const void *b, uint64_t n, df_refs *out)
{
    const float *wa, *wb;
    uint64_t len = df_widen_chunk(t, a, b, n, 0, &wa, &wb);
    df_kahan_state st = {0.0, 0.0, 0.0, 0.0};
    int fp_later = 0;
    int exact = lowp_scan(t, wa, wb, len, out, &st, &fp_later, 0);
    if (fp_later) { /* the exact dot, as df_refs_scan makes it without fp_later */
        if (exact)
            df_exact_of_doubles(&st.s, 1, &out->fp);
        if (exact || df_exact_dot(DF_F32, wa, wb, len, &out->fp) == 0)
            df_refs_fp_out(out);
    }
    df_refs_kahan_out(DF_F32, len, &st, out);
}

/* ---- long cases: a chunk at a time ------------------------------------- */

/* A chunk's part from its scan (r: df_refs_scan with no_fp) and Kahan
 * state (st) over its len pairs at pa, pb of type t; with exact_s, st->s
 * is the chunk's exact dot (refs_lowp.c), else the superaccumulator takes
 * it from the data. */
static void part_of(df_type t, const void *pa, const void *pb, uint64_t len, const df_refs *r,
                    const df_kahan_state *st, int exact_s, df_refs_part *out)
{
    out->max_abs_a = r->max_abs_a;
    out->max_abs_b = r->max_abs_b;
    out->nonfinite = (uint8_t)r->has_nonfinite;
    out->nan = (uint8_t)r->has_nan;
    out->all_integer = (uint8_t)r->all_integer;
    out->eligible = (uint8_t)r->exact_is_int;
    out->total = r->exact;
    out->s = st->s;
    out->g = st->g;
    out->maxp = st->maxp;
    /* the finite products' sum: G itself over finite data (the same
     * additions in the same order, or exact sums in the integer pass) */
    out->fin_g = st->g;
    out->inf_seen = 0;
    if (r->has_nonfinite && !r->has_nan) { /* df_refs_scan's inf_span */
        out->fin_g = r->fin_g;
        out->inf_seen = inf_seen_of(r->inf_want);
    }
    out->has_acc = 0;
    if (t != DF_I32 && !r->has_nonfinite && !r->exact_is_int) {
        df_exact_acc_init(&out->acc);
        if (exact_s) /* Kahan's sum is the exact dot (refs_lowp.c) */
            df_exact_acc_add_double(&out->acc, st->s);
        out->has_acc = exact_s || df_exact_acc_dot(&out->acc, t, pa, pb, len) == 0;
    }
}

void df_refs_part_compute(df_type t, const void *a, const void *b, uint64_t n, uint64_t j,
                          df_refs_part *out)
{
    if (df_type_is_lowp(t)) { /* the chunk's f32 values, as a case of their own */
        const float *wa, *wb;
        uint64_t len = df_widen_chunk(t, a, b, n, j, &wa, &wb);
        df_refs r;
        df_kahan_state st = {0.0, 0.0, 0.0, 0.0};
        int exact = lowp_scan(t, wa, wb, len, &r, &st, NULL, 1);
        part_of(DF_F32, wa, wb, len, &r, &st, exact, out);
        return;
    }
    size_t es = df_type_size(t);
    uint64_t off = j * DF_REFS_CHUNK, len = n - off < DF_REFS_CHUNK ? n - off : DF_REFS_CHUNK;
    const void *pa = (const char *)a + off * es, *pb = (const char *)b + off * es;
    df_refs r;
    df_kahan_state st = {0.0, 0.0, 0.0, 0.0};
    df_refs_scan(t, pa, pb, len, &r, &st, 1, NULL, 1);
    part_of(t, pa, pb, len, &r, &st, 0, out);
}

void df_refs_merge_init(df_refs_merger *m)
{
    memset(&m->p, 0, sizeof m->p);
    m->p.all_integer = 1;
    m->p.eligible = 1;
    m->parts = 0;
    m->finite_s = 1;
    df_exact_acc_init(&m->fp);
    df_exact_acc_init(&m->sums);
}

void df_refs_merge_add(df_refs_merger *m, const df_refs_part *p)
{
    df_refs_part *q = &m->p;
    q->max_abs_a = p->max_abs_a > q->max_abs_a ? p->max_abs_a : q->max_abs_a;
    q->max_abs_b = p->max_abs_b > q->max_abs_b ? p->max_abs_b : q->max_abs_b;
    q->nonfinite |= p->nonfinite;
    q->nan |= p->nan;
    q->all_integer &= p->all_integer;
    q->eligible &= p->eligible;
    if (p->eligible) {
        i128 sum = df_i128_unpack(q->total) + df_i128_unpack(p->total);
        q->total = df_i128_pack(sum);
        df_exact_acc_add_int(&m->fp, p->total.hi, p->total.lo);
    } else if (p->has_acc) {
        df_exact_acc_merge(&m->fp, &p->acc);
    }
    q->s += p->s; /* the chunks' sums in order, where one is not finite */
    if (isfinite(p->s))
        df_exact_acc_add_double(&m->sums, p->s);
    else
        m->finite_s = 0;
    q->g += p->g;
    q->maxp = p->maxp > q->maxp ? p->maxp : q->maxp;
    q->fin_g += p->fin_g;
    q->inf_seen |= p->inf_seen;
    m->parts++;
}

void df_refs_merge_out(df_refs_merger *m, df_type t, uint64_t n, df_refs *out)
{
    const df_refs_part *q = &m->p;
    memset(out, 0, sizeof *out);
    /* a non-finite part's maximum is +Inf (df_refs_scan): the case's too */
    out->max_abs_a = q->max_abs_a;
    out->max_abs_b = q->max_abs_b;
    out->has_nonfinite = q->nonfinite;
    out->has_nan = q->nan;
    out->all_integer = q->all_integer;
    out->exact_known = q->eligible;
    out->exact_is_int = q->eligible;
    if (q->eligible) {
        out->exact = q->total;
        df_i128_to_double2(out->exact, &out->exact_hi, &out->exact_lo);
    }
    if (t != DF_I32 && q->eligible) {
        df_exact_of_int(out->exact, &out->fp);
        out->fp_known = 1;
    } else if (t != DF_I32 && !q->nonfinite) {
        df_exact_acc_out(&m->fp, &out->fp);
        df_refs_fp_out(out);
    }
    if (q->nonfinite && !q->nan) {
        out->fin_g = q->fin_g;
        out->inf_want = inf_class(q->inf_seen);
    }
    /* Kahan's sum: each chunk's from zero, their sum rounded once (or, where
     * one is not finite, added in chunk order); its bound is each chunk's
     * (at most the whole's: kahan_bound with G and n) plus that rounding,
     * u |kahan| (and 2^-1074 where it is subnormal), the factor 1 + 2^-51
     * undoing the three roundings of the sum of the bounds */
    df_kahan_state st = {q->s, 0.0, q->g, q->maxp};
    if (m->finite_s) {
        df_exact sums;
        df_exact_acc_out(&m->sums, &sums);
        st.s = sums.hi;
    }
    df_refs_kahan_out(t, n, &st, out);
    out->kahan_err = (out->kahan_err + 0x1p-53 * fabs(out->kahan) + 0x1p-1074) * (1.0 + 0x1p-51);
}

void df_refs_compute(df_type t, const void *a, const void *b, uint64_t n,
                     df_refs *out)
{
    df_kahan_state st = {0.0, 0.0, 0.0, 0.0};
    if (df_type_is_lowp(t) && n <= DF_REFS_CHUNK) { /* its f32 values */
        lowp_compute(t, a, b, n, out);
        return;
    }
    if (n > DF_REFS_CHUNK || df_type_is_lowp(t)) { /* a chunk at a time, merged (df_refs_part) */
        df_refs_merger m;
        df_refs_part p;
        df_refs_merge_init(&m);
        for (uint64_t j = 0; j < df_refs_chunks(n); j++) {
            df_refs_part_compute(t, a, b, n, j, &p);
            df_refs_merge_add(&m, &p);
        }
        df_refs_merge_out(&m, df_type_is_lowp(t) ? DF_F32 : t, n, out);
        return;
    }
    df_refs_scan(t, a, b, n, out, &st, 1, NULL, 0);
    df_refs_kahan_out(t, n, &st, out);
}
