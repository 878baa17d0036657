/* refs_many.c — df_refs_compute for many short cases at once, and the
 * Kahan sums of many permuted copies (df_refs_permuted_many): up to
 * sixteen Kahan sums side by side in 8-double vector lanes, f32 cases'
 * exact dots from three bins of fixed units beside them, the next cases'
 * data prefetched meanwhile. Each case's references come out bit for bit
 * as df_refs_compute (reference.c) makes them alone.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "fuzz/cpu_clones.h"
#include "reference/refs_internal.h"

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "refs_many.c needs FLT_EVAL_METHOD == 0 (no extended-precision temporaries)"
#endif

/* ---- Kahan sums in vector lanes, f32 exact dots in bins -------------- */

/* The exact dot of f32 data from the products the Kahan lanes form anyway
 * (exact in double: 24 + 24 bits), by pre-rounding them into EXACT_BINS
 * bins of fixed units (Demmel and Nguyen's error-free extraction, as in
 * ReproBLAS and ExBLAS; the ideas, not their code): with a unit u and
 * M = 1.5 2^52 u, q = (r + M) - M is r rounded to a multiple of u, exactly,
 * for |r| <= 2^51 u, and r - q is exact too. A case of n <= 2^C terms
 * with every |p| <= P takes u_0 = 2^(ceil(log2 P) - W), W = 50 - C, and
 * u_(k+1) = u_k 2^-(W-1): bin 0 gets |q| <= 2^W u_0, bin k + 1 gets
 * |r| <= u_k / 2 = 2^(W-2) u_(k+1), so each bin's sum of at most 2^C such
 * multiples of its unit stays below 2^50 units: every addition is exact.
 * What is left after the last bin is zero for every product exactly when
 * each product is a multiple of the last unit (about P 2^-(3 W)), i.e.
 * when the products' bits span no more than 3 W - 2 places: then the sum
 * of the bins is the exact dot (df_exact_of_doubles); else the lane says
 * so and the superaccumulator does it. The extraction's additions fill
 * the issue slots the Kahan chain leaves idle. */
#define EXACT_BINS 3
typedef struct bins_state {
    double s[EXACT_BINS]; /* each bin's sum: exact, a multiple of its unit */
    double m[EXACT_BINS]; /* its extractor, 1.5 2^52 times its unit */
    int64_t left;         /* nonzero once a product left bits below the last bin */
} bins_state;

/* Bins for a case of n terms of magnitude at most P (finite, >= 0). */
static bins_state bins_init(uint64_t n, double P)
{
    int C = 0, E;
    while (C < 40 && (UINT64_C(1) << C) < n)
        C++;
    int W = 50 - C;
    (void)frexp(P, &E); /* P < 2^E (P = 0: any unit will do) */
    bins_state b;
    for (int k = 0; k < EXACT_BINS; k++) {
        b.s[k] = 0.0;
        b.m[k] = ldexp(1.5, 52 + E - W - k * (W - 1));
    }
    b.left = 0;
    return b;
}

/* Data to bring into this core's L2 while the lanes run (the next window's
 * jobs, df_refs_compute_many): the Kahan chain leaves the core waiting on
 * its additions, so prefetches issued from its loop cost nothing, and the
 * next window's first pass then reads its data from L2 instead of memory. */
#define MANY_WINDOW 16 /* df_refs_compute_many's jobs at a time */
typedef struct prefetch_list {
    const char *p[2 * MANY_WINDOW]; /* a window's vectors */
    uint64_t lines[2 * MANY_WINDOW]; /* 64-byte lines from p */
    unsigned k, at;     /* entries; the one going on */
    unsigned per;       /* lines per element of the lanes' loop */
    uint64_t line;      /* the next line of it */
} prefetch_list;

#define KAHAN_BLOCK 128
/* Kahan sums side by side, one per case of element type T, in the lanes
 * of 8-double vectors, the first `live` lanes (one set of eight, or two
 * past eight), over their first len elements: each lane does the
 * operations of KAHAN_SPAN in its order, so each state ends bit for bit as
 * its own df_kahan_span would leave it.
 * Kahan's chain is four dependent additions an element, so one sum alone
 * leaves the core mostly waiting; sixteen in two vectors fill it (an
 * x86-64-v4 clone does a vector in one instruction, with 32 registers for
 * the state; the others in two or four). The products go first, lane by
 * lane, a block at a time, into P (element-major: P[i][lane], in L1), so
 * that the sums' loop loads a vector of lanes where it would gather them.
 * With BINS (f32) each lane also extracts its products into its bins (bs);
 * with pl, the loop brings pl's lines into L2 (per an element).
 * Lanes past the live ones add products of +0 (none is formed for them).
 * Which NaN an addition passes on depends on the operand order (see
 * df_refs_compute_many): the caller keeps data holding a NaN out. */
#define KAHAN_SET 8                    /* lanes of a vector */
#define KAHAN_LANES (2 * KAHAN_SET)    /* at most two vectors */
typedef double v8d __attribute__((vector_size(64)));
typedef int64_t v8l __attribute__((vector_size(64)));
#define V8_ABS(x) ((v8d)((v8l)(x) & (v8l){INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, \
                                             INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX}))
#define V8_MAX(x, m) ((v8d)((((x) > (m)) & (v8l)(x)) | (~((x) > (m)) & (v8l)(m))))
/* The blocks of KAHAN_LANES_SPAN with a constant number of sets, so that
 * its state stays in registers (the sets' loop unrolled). */
#define KAHAN_LANES_LOOP(T, BINS, SETS)                                          \
    for (uint64_t off = 0; off < len; off += KAHAN_BLOCK) {                      \
        uint64_t bl = len - off < KAHAN_BLOCK ? len - off : KAHAN_BLOCK;         \
        for (unsigned k = 0; k < live; k++) {                                    \
            const T *a = (const T *)va[k] + off, *b = (const T *)vb[k] + off;    \
            for (uint64_t i = 0; i < bl; i++)                                    \
                P[i * KAHAN_LANES + k] = (double)a[i] * (double)b[i];            \
        }                                                                        \
        for (uint64_t i = 0; i < bl; i++) {                                      \
            for (unsigned x = 0; x < per && pat < pk; x++) {                     \
                __builtin_prefetch(pl->p[pat] + 64 * pline, 0, 2);               \
                if (++pline == pl->lines[pat])                                   \
                    pat++, pline = 0;                                            \
            }                                                                    \
            for (unsigned j = 0; j < (SETS); j++) {                              \
                v8d p, y, t, ap;                                                 \
                memcpy(&p, &P[i * KAHAN_LANES + KAHAN_SET * j], sizeof p);       \
                y = p - c[j];                                                    \
                t = s[j] + y;                                                    \
                c[j] = (t - s[j]) - y;                                           \
                s[j] = t;                                                        \
                ap = V8_ABS(p);                                                  \
                g[j] += ap;                                                      \
                mx[j] = V8_MAX(ap, mx[j]);                                       \
                for (unsigned x = 0; BINS && x < EXACT_BINS; x++) {              \
                    v8d q = (p + bm[j][x]) - bm[j][x];                           \
                    bs[j][x] += q;                                               \
                    p -= q;                                                      \
                }                                                                \
                if (BINS)                                                        \
                    left[j] |= (v8l)(p != 0.0);                                  \
            }                                                                    \
        }                                                                        \
    }

#define KAHAN_LANES_SPAN(NAME, T, BINS)                                          \
    DF_CPU_CLONES_V4 static void NAME(const void *const *va, const void *const *vb, \
                                   uint64_t len, unsigned live, df_kahan_state *st, \
                                   bins_state *bst, prefetch_list *pl)            \
    {                                                                            \
        double P[KAHAN_BLOCK * KAHAN_LANES] __attribute__((aligned(64)));        \
        const unsigned sets = live > KAHAN_SET ? 2 : 1;                          \
        for (unsigned k = live; k < KAHAN_SET * sets; k++) /* lanes not live: 0 */ \
            for (unsigned i = 0; i < KAHAN_BLOCK; i++)                           \
                P[i * KAHAN_LANES + k] = 0.0;                                    \
        v8d s[2], c[2], g[2], mx[2], bs[2][EXACT_BINS], bm[2][EXACT_BINS];       \
        v8l left[2];                                                             \
        /* the prefetch list's place, in registers */                            \
        unsigned pat = pl ? pl->at : 0, pk = pl ? pl->k : 0, per = pl ? pl->per : 0; \
        uint64_t pline = pl ? pl->line : 0;                                      \
        for (unsigned j = 0; j < 2; j++)                                         \
            for (unsigned k = 0; k < KAHAN_SET; k++) {                           \
                const df_kahan_state *q = &st[KAHAN_SET * j + k];                \
                const bins_state *qb = BINS ? &bst[KAHAN_SET * j + k] : NULL;    \
                s[j][k] = q->s, c[j][k] = q->c, g[j][k] = q->g, mx[j][k] = q->maxp; \
                for (unsigned x = 0; BINS && x < EXACT_BINS; x++)                \
                    bs[j][x][k] = qb->s[x], bm[j][x][k] = qb->m[x];              \
                left[j][k] = BINS ? qb->left : 0;                                \
            }                                                                    \
        if (sets == 2)                                                           \
            KAHAN_LANES_LOOP(T, BINS, 2)                                         \
        else                                                                     \
            KAHAN_LANES_LOOP(T, BINS, 1)                                         \
        if (pl)                                                                  \
            pl->at = pat, pl->line = pline;                                      \
        for (unsigned j = 0; j < sets; j++)                                      \
            for (unsigned k = 0; k < KAHAN_SET; k++) {                           \
                st[KAHAN_SET * j + k] = (df_kahan_state){s[j][k], c[j][k], g[j][k], mx[j][k]}; \
                for (unsigned x = 0; BINS && x < EXACT_BINS; x++)                \
                    bst[KAHAN_SET * j + k].s[x] = bs[j][x][k];                   \
                if (BINS)                                                        \
                    bst[KAHAN_SET * j + k].left = left[j][k];                    \
            }                                                                    \
    }

KAHAN_LANES_SPAN(kahan_lanes_f32, float, 1)
KAHAN_LANES_SPAN(kahan_lanes_f32_sums, float, 0) /* the sums alone (no bins) */
KAHAN_LANES_SPAN(kahan_lanes_f64, double, 0)
KAHAN_LANES_SPAN(kahan_lanes_i32, int32_t, 0)


/* ---- many cases at once -------------------------------------------------- */

/* The bins' exact dot of one f32 case alone, in the lanes' own code (every
 * lane on it): 0 with *out as df_exact_dot gives it, or -1 where some
 * product has bits below the last bin (or the data are not finite). */
int df_exact_bins_f32(const float *a, const float *b, uint64_t n, df_exact *out)
{
    double ma = 0.0, mb = 0.0;
    for (uint64_t off = 0; off < n; off += DF_REFS_SPAN) {
        uint64_t len = n - off < DF_REFS_SPAN ? n - off : DF_REFS_SPAN;
        df_span_class ka = df_classify_f32(a + off, len), kb = df_classify_f32(b + off, len);
        if (ka.nonfinite || kb.nonfinite)
            return -1;
        ma = ka.max_abs > ma ? ka.max_abs : ma;
        mb = kb.max_abs > mb ? kb.max_abs : mb;
    }
    const void *va[KAHAN_LANES], *vb[KAHAN_LANES];
    df_kahan_state st[KAHAN_LANES];
    bins_state bs[KAHAN_LANES];
    for (unsigned j = 0; j < KAHAN_LANES; j++) {
        va[j] = a, vb[j] = b;
        st[j] = (df_kahan_state){0.0, 0.0, 0.0, 0.0};
        bs[j] = bins_init(n, ma * mb);
    }
    kahan_lanes_f32(va, vb, n, 1, st, bs, NULL);
    if (bs[0].left)
        return -1;
    df_exact_of_doubles(bs[0].s, EXACT_BINS, out);
    return 0;
}

/* The Kahan sums of k jobs of one element type (k <= KAHAN_LANES), each
 * from its empty state, side by side while two or more go on, the longest
 * finished alone; f32 jobs also with their bins (bst, unless NULL), which
 * hold the exact dot only where a job ran to its end in the lanes: the
 * longest one's part alone sets `left`, and the superaccumulator does it
 * (the lanes with one live lane are slower than the scalar sum with the
 * superaccumulator). */
static void kahan_side_by_side(const df_refs_job *const *q, unsigned k, df_kahan_state *st,
                               bins_state *bst, prefetch_list *pl)
{
    df_type t = q[0]->t;
    size_t es = df_type_size(t);
    /* the jobs by length, shortest first (insertion sort of at most 8) */
    unsigned ord[KAHAN_LANES];
    for (unsigned j = 0; j < k; j++) {
        unsigned i = j;
        for (; i > 0 && q[ord[i - 1]]->n > q[j]->n; i--)
            ord[i] = ord[i - 1];
        ord[i] = j;
        st[j] = (df_kahan_state){0.0, 0.0, 0.0, 0.0};
        if (t == DF_F32 && bst)
            bst[j] = bins_init(q[j]->n, q[j]->out->max_abs_a * q[j]->out->max_abs_b);
    }
    /* Stage by stage: the lanes still going run together up to the next
     * shortest length, then that one leaves (its state is final) and the
     * rest move down a lane. Each lane still does its own sum's additions
     * in order, so lengths that differ (random ones, in a default run)
     * leave only the longest one's rest to df_kahan_span. */
    uint64_t off = 0;
    unsigned first = 0; /* ord[first..k): still going */
    while (k - first >= 2) {
        uint64_t end = q[ord[first]]->n;
        if (end > off) {
            const void *a[KAHAN_LANES], *b[KAHAN_LANES];
            df_kahan_state lane[KAHAN_LANES];
            bins_state lb[KAHAN_LANES];
            unsigned live = k - first;
            for (unsigned j = 0; j < KAHAN_LANES; j++) {
                /* lanes past the live ones read no data; their states (the
                 * first's) go in and are dropped */
                unsigned x = ord[first + (j < live ? j : 0)];
                a[j] = (const char *)q[x]->a + off * es;
                b[j] = (const char *)q[x]->b + off * es;
                lane[j] = st[x];
                if (t == DF_F32 && bst)
                    lb[j] = bst[x];
            }
            switch (t) {
            case DF_F32:
                if (bst)
                    kahan_lanes_f32(a, b, end - off, live, lane, lb, pl);
                else
                    kahan_lanes_f32_sums(a, b, end - off, live, lane, NULL, pl);
                break;
            case DF_F64: kahan_lanes_f64(a, b, end - off, live, lane, NULL, pl); break;
            case DF_I32: kahan_lanes_i32(a, b, end - off, live, lane, NULL, pl); break;
            default: break; /* low-precision jobs are referenced alone (whole_alone) */
            }
            for (unsigned j = 0; j < live; j++) {
                st[ord[first + j]] = lane[j];
                if (t == DF_F32 && bst)
                    bst[ord[first + j]] = lb[j];
            }
            off = end;
        }
        first++;
    }
    if (first < k && q[ord[first]]->n > off) { /* the longest, alone */
        df_kahan_span(t, q[ord[first]]->a, q[ord[first]]->b, off, q[ord[first]]->n - off,
                   &st[ord[first]]);
        if (t == DF_F32 && bst) /* its bins miss the rest: the superaccumulator */
            bst[ord[first]].left = 1;
    }
}

void df_refs_permuted_many(const df_refs_job *jobs, size_t m, unsigned char *ok)
{
    static const df_type types[] = {DF_F32, DF_F64, DF_I32};
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        const df_refs_job *q[KAHAN_LANES];
        unsigned k = 0;
        for (size_t i = 0; i <= m; i++) {
            if (i < m && jobs[i].t == types[ti]) {
                /* data without NaN or Inf (no NaN in the lanes), one chunk
                 * long (past it Kahan's sum restarts at each chunk). Only
                 * Kahan's sum, G and the bound depend on the order; the
                 * scan's exact integer path, where it applies, sums
                 * exactly, as Kahan does there (every partial sum a
                 * double: its corrections stay 0) */
                ok[i] = jobs[i].n <= DF_REFS_CHUNK && !jobs[i].out->has_nonfinite;
                if (ok[i])
                    q[k++] = &jobs[i];
            }
            if (k == KAHAN_LANES || (i == m && k > 0)) {
                df_kahan_state st[KAHAN_LANES];
                kahan_side_by_side(q, k, st, NULL, NULL); /* no bins: the exact dot is the case's */
                for (unsigned j = 0; j < k; j++)
                    df_refs_kahan_out(q[j]->t, q[j]->n, &st[j], q[j]->out);
                k = 0;
            }
        }
    }
}

#define PREFETCH_MAX_LINES ((1u << 20) / 64) /* 1 MiB of the next window's data */

/* MANY_WINDOW jobs are scanned at a time: their Kahan states wait on the
 * stack, and the lanes take them all in one pass (KAHAN_LANES). */

/* A job df_refs_compute references by itself: a long one (a chunk at a
 * time) or a low-precision one (its widened chunks). */
static int whole_alone(const df_refs_job *job)
{
    return job->n > DF_REFS_CHUNK || df_type_is_lowp(job->t);
}

void df_refs_compute_many(const df_refs_job *jobs, size_t m)
{
    for (size_t w0 = 0; w0 < m; w0 += MANY_WINDOW) {
        size_t w = m - w0 < MANY_WINDOW ? m - w0 : MANY_WINDOW;
        const df_refs_job *job = jobs + w0;
        df_kahan_state st[MANY_WINDOW];
        bins_state bins[MANY_WINDOW];
        uint64_t from[MANY_WINDOW];
        int fp_later[MANY_WINDOW];
        /* the next window's data, brought in while this one's lanes run */
        prefetch_list pl = {.k = 0, .at = 0, .line = 0, .per = 0};
        uint64_t lines = 0, longest = 0;
        for (size_t i = w0 + w; i < m && i < w0 + w + MANY_WINDOW; i++)
            for (int v = 0; v < 2 && jobs[i].n; v++) {
                pl.p[pl.k] = (const char *)((uintptr_t)(v ? jobs[i].b : jobs[i].a) & ~(uintptr_t)63);
                pl.lines[pl.k] = (jobs[i].n * df_type_size(jobs[i].t) + 127) / 64;
                lines += pl.lines[pl.k++];
            }
        for (size_t i = 0; i < w; i++)
            longest = job[i].n > longest ? job[i].n : longest;
        /* only what the L2 holds beside this window's data (2 MiB a core on
         * the H200's host): 16 cases of 2000 f32 pairs are 256 KiB */
        if (longest && lines <= PREFETCH_MAX_LINES)
            pl.per = (unsigned)((lines + longest - 1) / longest);
        for (size_t i = 0; i < w; i++) {
            st[i] = (df_kahan_state){0.0, 0.0, 0.0, 0.0};
            fp_later[i] = 0;
            if (whole_alone(&job[i])) { /* chunk by chunk: nothing left after */
                df_refs_compute(job[i].t, job[i].a, job[i].b, job[i].n, job[i].out);
                from[i] = job[i].n;
                continue;
            }
            from[i] = df_refs_scan(job[i].t, job[i].a, job[i].b, job[i].n, job[i].out, &st[i],
                                   0, &fp_later[i], 0);
        }
        /* The Kahan sums left: up to KAHAN_LANES of one type go side by
         * side, in vector lanes; a job whose data hold a NaN goes alone:
         * where two NaNs of different signs meet in an addition, the one
         * that comes out depends on the order of the operands in the
         * instruction, which the compiler picks for each loop (and the
         * oracle writes that NaN into case files). Without one in the data,
         * every NaN the sum makes is the machine's default NaN (or its
         * absolute value, in G), the same bits whichever wins. So do jobs
         * whose sum starts past their first chunk. */
        static const df_type types[] = {DF_F32, DF_F64, DF_I32};
        for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
            const df_refs_job *q[KAHAN_LANES];
            size_t at[KAHAN_LANES];
            unsigned k = 0;
            for (size_t i = 0; i <= w; i++) {
                if (i < w && (job[i].t != types[ti] || from[i] >= job[i].n))
                    continue;
                if (i < w && (from[i] != 0 || job[i].out->has_nan)) {
                    df_kahan_span(job[i].t, job[i].a, job[i].b, from[i], job[i].n - from[i],
                                  &st[i]);
                    continue;
                }
                if (i < w)
                    q[k] = &job[i], at[k++] = i;
                if (k == KAHAN_LANES || (i == w && k > 0)) {
                    df_kahan_state lane[KAHAN_LANES];
                    bins_state lb[KAHAN_LANES];
                    kahan_side_by_side(q, k, lane, lb, &pl);
                    for (unsigned j = 0; j < k; j++) {
                        st[at[j]] = lane[j];
                        if (types[ti] == DF_F32)
                            bins[at[j]] = lb[j];
                    }
                    k = 0;
                }
            }
        }
        for (size_t i = 0; i < w; i++) {
            if (whole_alone(&job[i]))
                continue; /* df_refs_compute wrote it whole */
            df_refs_kahan_out(job[i].t, job[i].n, &st[i], job[i].out);
            if (!fp_later[i])
                continue;
            /* the bins hold the exact dot unless some product had bits
             * below the last one: then the superaccumulator */
            if (!bins[i].left)
                df_exact_of_doubles(bins[i].s, EXACT_BINS, &job[i].out->fp);
            else
                df_exact_dot(job[i].t, job[i].a, job[i].b, job[i].n, &job[i].out->fp);
            df_refs_fp_out(job[i].out);
        }
    }
}
