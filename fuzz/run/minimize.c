/* minimize.c — the minimizer (minimize.h): delta debugging over pairs,
 * simpler values, then the default launch, each candidate judged in the
 * sandbox as replay judges it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/files.h"
#include "fuzz/lowp.h"
#include "fuzz/run/minimize.h"
#include "kernels/blas.h"

int df_minimizer_init(df_minimizer *st, df_sandbox *sb, const df_kernel *k, const df_case *c,
                      double tol, uint64_t max_tries, char *why, size_t why_len)
{
    df_case resolved;
    if (df_launch_for(k, c, &resolved, why, why_len) != 0)
        return -1;
    size_t bytes = 2 * c->n * df_type_size(c->type);
    *st = (df_minimizer){.sb = sb, .k = k, .oo = {.tol = tol}, .mo = {.every = 1, .reruns = 2},
                         .c = *c, .max_tries = max_tries};
    st->c.launch = resolved.launch;
    /* a derived grid must follow n as pairs are removed */
    if (!(k->flags & DF_K_GRID_FREE))
        st->c.launch.grid = 0;
    snprintf(st->c.kernel, sizeof st->c.kernel, "%s", k->name);
    st->buf = malloc(bytes ? bytes : 1);
    if (!st->buf) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    memcpy(st->buf, c->a, bytes / 2);
    memcpy(st->buf + bytes / 2, c->b, bytes / 2);
    st->c.a = st->buf;
    st->c.b = st->buf + bytes / 2;
    return 0;
}

int df_minimizer_write(const df_minimizer *st, const char *path)
{
    df_case_meta m = {.verdict = (uint8_t)st->last.j.verdict, .result = st->last.j.result,
                      .iresult = st->last.j.iresult, .reference = st->last.j.ref};
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc = df_corpus_encode(&st->c, &m, &buf, &len) != 0 ||
             df_write_file_atomic(path, buf, len) != 0 ? -1 : 0;
    free(buf);
    return rc;
}

void df_minimizer_free(df_minimizer *st)
{
    free(st->buf);
    st->buf = NULL;
}

/* Judges c as replay does. Returns 1 when it is a bug or a soft error
 * (the kernel's own report) with st->rule (or, when st->rule is NULL, any
 * such verdict), 0 otherwise; out gets the judgement. */
int df_minimizer_judge(df_minimizer *st, const df_case *c, df_checked *out)
{
    df_case r = *c;
    if (df_launch_resolve(st->k, r.n, &r.launch, NULL, 0) != 0)
        return 0;
    st->tries++;
    if (df_sandbox_check(st->sb, st->k, &r, &st->oo, &st->mo, out) != 0) {
        st->dead = 1;
        return 0;
    }
    if (out->j.verdict != DF_V_BUG && out->j.verdict != DF_V_SOFT_ERROR)
        return 0;
    return !st->rule || strcmp(out->j.rule, st->rule) == 0;
}

static int budget_left(const df_minimizer *st)
{
    return !st->dead && st->tries < st->max_tries;
}

/* Judges candidate cand (vectors in cbuf); on success it becomes the
 * current case, swapping buffers. */
static int try_case(df_minimizer *st, df_case *cand, uint8_t **cbuf)
{
    df_checked r;
    if (!budget_left(st) || !df_minimizer_judge(st, cand, &r))
        return 0;
    uint8_t *old = st->buf;
    st->buf = *cbuf;
    *cbuf = old;
    st->c = *cand;
    st->last = r;
    return 1;
}

/* The current case without pairs [from, from + len). */
static int try_remove(df_minimizer *st, uint64_t from, uint64_t len, uint8_t **cbuf)
{
    size_t es = df_type_size(st->c.type);
    uint64_t n = st->c.n, m = n - len;
    const uint8_t *a = st->buf, *b = st->buf + n * es;
    uint8_t *na = *cbuf, *nb = *cbuf + m * es;
    memcpy(na, a, from * es);
    memcpy(na + from * es, a + (from + len) * es, (n - from - len) * es);
    memcpy(nb, b, from * es);
    memcpy(nb + from * es, b + (from + len) * es, (n - from - len) * es);
    df_case cand = st->c;
    cand.n = m;
    if (cand.blas.on) /* a BLAS call: the shorter call */
        df_blas_follow_n(&cand.blas, m);
    cand.a = na;
    cand.b = nb;
    return try_case(st, &cand, cbuf);
}

/* Delta debugging over pairs: chunks of n/2, n/4, ..., 1; a chunk whose
 * removal keeps the bug is gone, and the same size is tried again until a
 * pass removes nothing. Never goes below one pair. */
static void shrink_pairs(df_minimizer *st, uint8_t **cbuf)
{
    uint64_t chunk = st->c.n / 2;
    while (chunk >= 1 && budget_left(st)) {
        int removed = 0;
        for (uint64_t from = 0; from < st->c.n && budget_left(st);) {
            uint64_t len = chunk < st->c.n - from ? chunk : st->c.n - from;
            if (len < st->c.n && try_remove(st, from, len, cbuf))
                removed = 1;
            else
                from += len;
        }
        if (!removed)
            chunk /= 2;
        else if (chunk > st->c.n / 2)
            chunk = st->c.n / 2;
    }
}

/* How complicated a float value looks: 0 is simplest, then values with few
 * significant bits and an exponent near 0; non-finite values last. */
static double float_cost(double v)
{
    if (v == 0)
        return 0;
    if (!isfinite(v))
        return 1e9;
    int e;
    double m = frexp(fabs(v), &e); /* m in [0.5, 1) */
    int bits = 0;
    while (m != 0 && bits < 64) {
        m = m * 2 - floor(m * 2);
        bits++;
    }
    return 1 + bits + fabs((double)(e - 1));
}

/* Simpler values for v, simplest first: 0, ±1, its integer part, the power
 * of two below it, the same significand with half the exponent. */
static size_t float_candidates(double v, double *out)
{
    size_t n = 0;
    double s = signbit(v) ? -1.0 : 1.0;
    out[n++] = 0;
    out[n++] = s;
    if (isfinite(v)) {
        if (fabs(v) >= 1 && fabs(v) < 0x1p53)
            out[n++] = trunc(v);
        if (v != 0) {
            int e;
            double m = frexp(fabs(v), &e);
            out[n++] = s * ldexp(1.0, e - 1);
            out[n++] = s * ldexp(m, e / 2);
        }
    } else {
        out[n++] = 2 * s;
    }
    return n;
}

static uint64_t int_cost(int32_t v)
{
    return v < 0 ? (uint64_t)(-(int64_t)v) : (uint64_t)v;
}

/* Smaller magnitudes for v: 0, ±1, the power of two below, half of it. */
static size_t int_candidates(int32_t v, int64_t *out)
{
    int64_t s = v < 0 ? -1 : 1, m = (int64_t)int_cost(v);
    size_t n = 0;
    out[n++] = 0;
    out[n++] = s;
    if (m > 1) {
        int64_t p = 1;
        while (p * 2 <= m)
            p *= 2;
        out[n++] = s * p;
        out[n++] = s * (m / 2);
        out[n++] = s * (m - m / 4);
    }
    return n;
}

/* set_simpler for a low-precision element: the float candidates of its
 * value that the format holds exactly, stored as its bits. */
static int set_simpler_lowp(df_type t, uint8_t *cbuf, uint64_t at, size_t i)
{
    df_lowp f = (df_lowp)df_type_facts_of(t).lowp;
    int wide = df_type_size(t) == 2;
    uint32_t bits = wide ? ((uint16_t *)(void *)cbuf)[at] : cbuf[at];
    double cur = df_lowp_decode(f, bits), cand[8];
    if (i >= float_candidates(cur, cand))
        return -1;
    uint32_t nb = df_lowp_encode(f, cand[i], 0);
    if (df_lowp_decode(f, nb) != cand[i] || float_cost(cand[i]) >= float_cost(cur))
        return 0;
    if (wide)
        ((uint16_t *)(void *)cbuf)[at] = (uint16_t)nb;
    else
        cbuf[at] = (uint8_t)nb;
    return 1;
}

/* Writes candidate value i of element `at` (vector a or b) into cbuf (a
 * copy of the current vectors); returns 1 when it is simpler than now. */
static int set_simpler(df_minimizer *st, uint8_t *cbuf, uint64_t at, size_t i)
{
    switch (st->c.type) {
    case DF_F32: {
        float *p = (float *)(void *)cbuf + at, cur = *p;
        double cand[8];
        if (i >= float_candidates(cur, cand))
            return -1;
        float f = (float)cand[i];
        if (float_cost(f) >= float_cost(cur))
            return 0;
        *p = f;
        return 1;
    }
    case DF_F64: {
        double *p = (double *)(void *)cbuf + at, cur = *p;
        double cand[8];
        if (i >= float_candidates(cur, cand))
            return -1;
        if (float_cost(cand[i]) >= float_cost(cur))
            return 0;
        *p = cand[i];
        return 1;
    }
    case DF_I32: {
        int32_t *p = (int32_t *)(void *)cbuf + at, cur = *p;
        int64_t cand[8];
        if (i >= int_candidates(cur, cand))
            return -1;
        if (int_cost((int32_t)cand[i]) >= int_cost(cur))
            return 0;
        *p = (int32_t)cand[i];
        return 1;
    }
    case DF_F16:
    case DF_BF16:
    case DF_E4M3:
    case DF_E5M2: return set_simpler_lowp(st->c.type, cbuf, at, i);
    }
    return -1;
}

/* One pass over every value of a then b; returns whether any changed. */
static int simplify_pass(df_minimizer *st, uint8_t **cbuf)
{
    size_t bytes = 2 * st->c.n * df_type_size(st->c.type);
    int changed = 0;
    for (uint64_t at = 0; at < 2 * st->c.n && budget_left(st); at++) {
        for (size_t i = 0; budget_left(st); i++) {
            memcpy(*cbuf, st->buf, bytes);
            int s = set_simpler(st, *cbuf, at, i);
            if (s < 0)
                break;
            if (s == 0)
                continue;
            df_case cand = st->c;
            cand.a = *cbuf;
            cand.b = *cbuf + st->c.n * df_type_size(st->c.type);
            if (try_case(st, &cand, cbuf)) {
                changed = 1;
                break; /* the simplest accepted value wins */
            }
        }
    }
    return changed;
}

/* Every accepted value is strictly simpler, so the passes terminate. */
static void simplify_values(df_minimizer *st, uint8_t **cbuf)
{
    while (budget_left(st) && simplify_pass(st, cbuf))
        ;
}

/* The kernel's default launch, then default block/grid with the offsets. */
static void simplify_launch(df_minimizer *st, uint8_t **cbuf)
{
    const df_launch cur = st->c.launch;
    const df_launch cands[] = {
        {0, 0, 0, 0},
        {0, 0, cur.offset_a, cur.offset_b},
        {cur.block, 0, cur.offset_a, cur.offset_b},
    };
    size_t bytes = 2 * st->c.n * df_type_size(st->c.type);
    for (size_t i = 0; i < sizeof cands / sizeof cands[0] && budget_left(st); i++) {
        if (!memcmp(&cands[i], &st->c.launch, sizeof cur))
            return; /* nothing simpler left to try */
        memcpy(*cbuf, st->buf, bytes);
        df_case cand = st->c;
        cand.launch = cands[i];
        cand.a = *cbuf;
        cand.b = *cbuf + st->c.n * df_type_size(st->c.type);
        if (try_case(st, &cand, cbuf))
            return;
    }
}

void df_minimize(df_minimizer *st)
{
    size_t bytes = 2 * st->c.n * df_type_size(st->c.type);
    uint8_t *cbuf = malloc(bytes ? bytes : 1);
    if (!cbuf) {
        st->dead = 1;
        return;
    }
    shrink_pairs(st, &cbuf);
    simplify_values(st, &cbuf);
    simplify_launch(st, &cbuf);
    free(cbuf);
}

