/* oracle.c — judges one kernel result against the CPU references: bug,
 * precision finding or ok, with the rule that decided and one line of why.
 *
 * The rules are docs/oracle.md's table,
 * checked in a fixed order: execution error, integer accumulators (exact
 * or bust), NaN and Inf inputs, overflow, then for finite data the exact
 * regime, the rounding bound gamma_h * G, the order set of a few-term
 * case, the host-model match and last
 * the user's relative tolerance. The oracle reads only the kernel's
 * descriptor, never the registry.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fuzz/oracle.h"
#include "reference/order_set.h"
#include "fuzz/lowp.h"

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

#define DEFAULT_TOL 1e-6

const char *df_verdict_name(df_verdict v)
{
    switch (v) {
    case DF_V_OK: return "ok";
    case DF_V_PRECISION: return "precision";
    case DF_V_NONDET: return "nondeterministic";
    case DF_V_SOFT_ERROR: return "soft-error";
    case DF_V_BUG: return "bug";
    }
    return "?";
}

double df_gamma(uint64_t k, double u)
{
    double ku = (double)k * u;
    if (ku >= 1.0)
        return INFINITY;
    return ku / (1.0 - ku);
}

static void verdict(df_judgement *out, df_verdict v, const char *rule,
                    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void verdict(df_judgement *out, df_verdict v, const char *rule,
                    const char *fmt, ...)
{
    va_list ap;
    out->verdict = v;
    out->rule = rule;
    va_start(ap, fmt);
    vsnprintf(out->why, sizeof out->why, fmt, ap);
    va_end(ap);
}

/* An ok or precision verdict: its why text only when wanted (not terse:
 * see df_oracle_opts). */
static void verdict_quiet(df_judgement *out, int terse, df_verdict v, const char *rule,
                          const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void verdict_quiet(df_judgement *out, int terse, df_verdict v, const char *rule,
                          const char *fmt, ...)
{
    out->verdict = v;
    out->rule = rule;
    if (terse)
        return; /* why stays "" (judge_all cleared it) */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->why, sizeof out->why, fmt, ap);
    va_end(ap);
}

static i128 i128_unpack(df_i128 v)
{
    return (i128)(((u128)(uint64_t)v.hi << 64) | v.lo);
}

/* Decimal text of a 128-bit integer (at most 40 characters and a NUL). */
static const char *i128_text(df_i128 v, char buf[48])
{
    i128 x = i128_unpack(v);
    u128 m = x < 0 ? (u128)0 - (u128)x : (u128)x;
    char *p = buf + 47;
    *p = '\0';
    do {
        *--p = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m);
    if (x < 0)
        *--p = '-';
    return p;
}

static int same_bits(double x, double y)
{
    if (isnan(x) && isnan(y))
        return 1;
    uint64_t bx, by;
    memcpy(&bx, &x, sizeof bx);
    memcpy(&by, &y, sizeof by);
    return bx == by;
}

/* The accumulator's unit roundoff 2^-p (f16 2^-11, f32 2^-24, f64 2^-53);
 * 0 for integers, whose sums do not round. */
static double acc_unit(df_type acc)
{
    int p = df_type_facts_of(acc).p;
    return p ? ldexp(1.0, -p) : 0.0;
}

static double acc_max(df_type acc) { return df_type_facts_of(acc).max; }

/* The type k's result is in: acc, or the narrower one it is rounded to. */
static df_type result_type(const df_kernel *k) { return k->result ? k->result : k->acc; }

/* Allowance for products (and, when flushing, sums) that leave the normal
 * range: gradual underflow loses at most half a subnormal ulp per product;
 * flushing loses up to the smallest normal per product and per sum. */
static double underflow_allowance(const df_kernel *k, uint64_t n)
{
    double dn = (double)n;
    int flushes = (k->flags & DF_K_FLUSHES_SUBNORMALS) != 0;
    df_type_facts f = df_type_facts_of(k->acc);
    if (k->acc != DF_F64) /* f16, f32: 2^emin, half a subnormal ulp 2^(emin - p) */
        return flushes ? 2.0 * dn * ldexp(1.0, f.emin) : dn * ldexp(1.0, f.emin - f.p);
    if (flushes)
        return 2.0 * dn * 0x1p-1022;
    /* n * 2^-1075, rounded up: 2^-1075 itself is not a double. */
    return (double)((n >> 1) + (n & 1)) * 0x1p-1074;
}

/* Whether a low-precision case holds a subnormal (exponent field 0,
 * fraction not). */
static int has_lowp_subnormal(const df_case *c)
{
    df_type_facts f = df_type_facts_of(c->type);
    if (f.lowp < 0)
        return 0;
    df_lowp_shape s = df_lowp_shape_of((df_lowp)f.lowp);
    uint32_t ex = ((1u << s.exp_bits) - 1u) << s.man_bits, man = (1u << s.man_bits) - 1u;
    for (uint64_t i = 0; i < c->n; i++)
        for (int v = 0; v < 2; v++) {
            const void *p = v ? c->b : c->a;
            uint32_t bits = s.bits == 16 ? ((const uint16_t *)p)[i] : ((const uint8_t *)p)[i];
            if (!(bits & ex) && (bits & man))
                return 1;
        }
    return 0;
}

/* The bound of a fused kernel (docs/oracle.md, fused accumulation): each
 * chain's, from df_fused_bound over its at most ceil(groups / chains)
 * groups (their G's sum is G; each adds its own underflow term), then the
 * chains' sum in acc, gamma_(chains-1) over G and their errors. A
 * promoting kernel is the same with a chain for each block of
 * fused_promote products. A
 * subnormal input factor has a significand below 1, so a group's largest
 * term may sit up to 2^man_bits below 2^(ea + eb), where the cut is made:
 * the cut counts as that many bits fewer. c NULL: no subnormal input. */
static double fused_bound(const df_kernel *k, uint64_t n, const df_case *c, double G)
{
    df_fused_model m = *k->fused;
    if (c && has_lowp_subnormal(c))
        m.align_bits -= df_type_facts_of(c->type).p - 1;
    uint64_t chains = k->fused_chains ? k->fused_chains : 1, group = m.group ? m.group : 1;
    uint64_t groups = (n + group - 1) / group;
    uint64_t per = (groups + chains - 1) / chains * group;
    if (k->fused_promote) { /* blocks of fused_promote products, added in acc */
        per = k->fused_promote;
        chains = (n + per - 1) / per;
        chains = chains ? chains : 1;
    }
    double b = df_fused_bound(&m, per, G) + (double)(chains - 1) * df_fused_bound(&m, per, 0.0);
    return b + df_gamma(chains - 1, acc_unit(k->acc)) * (G + b);
}

/* The bound's part that grows with G: gamma_h G, or the fused bound, G
 * widened for its own rounding (1 + n 2^-52). c gives the fused bound its
 * subnormal inputs (NULL: none). */
static double rounding_bound(const df_kernel *k, uint64_t n, uint64_t h, const df_case *c,
                             double G)
{
    if (k->fused)
        return fused_bound(k, n, c, G * (1.0 + (double)n * 0x1p-52));
    return df_gamma(h, acc_unit(k->acc)) * G * (1.0 + (double)n * 0x1p-52);
}

double df_ratio_bound(const df_kernel *k, uint64_t n, uint64_t h)
{
    if (k->acc == DF_I32)
        return 0.0;
    return rounding_bound(k, n, h, NULL, 1.0) / acc_unit(k->acc);
}

/* ---- rule 1: integer accumulators -------------------------------------- */

static void judge_int(const df_kernel *k, const df_refs *refs, const df_result *res,
                      int terse, df_judgement *out)
{
    int wide = (k->flags & DF_K_ACC_WIDE) != 0; /* the result promised is 64-bit */
    char buf[48];
    out->is_int = 1;
    out->iresult = res->i;
    out->result = (double)res->i;
    if (!refs->exact_known) {
        verdict(out, DF_V_BUG, "exec",
                "integer kernel given non-integer data: no exact reference");
        return;
    }
    i128 diff = i128_unpack(refs->exact) - (i128)res->i;
    out->abs_err = fabs((double)diff);
    out->ulp_err = out->abs_err; /* an integer's ulp is 1 */
    double s = fabs(refs->exact_hi);
    out->rel_err = s > 0 ? out->abs_err / s : (res->i == 0 ? 0.0 : INFINITY);
    out->err_ratio = out->abs_err == 0 ? 0.0 : INFINITY;
    if (wide ? !df_i128_fits_i64(refs->exact)
             : (df_i128_cmp_i64(refs->exact, INT32_MAX) > 0 ||
                df_i128_cmp_i64(refs->exact, INT32_MIN) < 0))
        verdict(out, DF_V_BUG, "overflow",
                "exact %s does not fit %s; kernel returned %" PRId64
                " (silent overflow, n beyond what its sum can hold)",
                i128_text(refs->exact, buf), wide ? "int64" : "int32", res->i);
    else if (diff != 0)
        verdict(out, DF_V_BUG, "exact",
                "result %" PRId64 " != exact %s (integer kernel, G=%.17g)",
                res->i, i128_text(refs->exact, buf), refs->G);
    else
        verdict_quiet(out, terse, DF_V_OK, "exact",
                      "result %" PRId64 " == exact (integer kernel)", res->i);
}

/* ---- rules 2-4: non-finite inputs or result ----------------------------- */

static int same_class(double x, double y)
{
    if (isnan(x) || isnan(y))
        return isnan(x) && isnan(y);
    if (isinf(x) || isinf(y))
        return x == y;
    return 1;
}

/* G * (1 + gamma_h) bounds every partial sum of every order of evaluation,
 * G itself widened for its own rounding (1 + n 2^-52). Below the largest
 * finite value of the accumulator, no order can overflow. */
static int may_overflow(const df_kernel *k, uint64_t n, double g, double gam)
{
    double top = g * (1.0 + (double)n * 0x1p-52) * (1.0 + gam);
    return !(top < acc_max(result_type(k)));
}

/* Inputs holding +-Inf (no NaN): the class any order must produce and the
 * finite products' sum, which could overflow on their own, are the
 * references' (df_refs: inf_want, fin_g). */
static void judge_inf_inputs(const df_kernel *k, const df_case *c, const df_refs *refs,
                             int terse, df_judgement *out, double gam)
{
    double fin_g = refs->fin_g;
    double want = refs->inf_want;
    double got = out->result;
    if (same_class(got, want))
        verdict_quiet(out, terse, DF_V_OK, "nonfinite", "Inf inputs: result %a as expected",
                      got);
    else if (isinf(want) && isnan(got) && (k->flags & DF_K_TF32_INPUTS))
        verdict_quiet(out, terse, DF_V_PRECISION, "nonfinite",
                      "Inf inputs: expected %a, got NaN; tf32 inputs cut a subnormal "
                      "factor of an Inf to zero",
                      want);
    else if (isinf(want) && isnan(got) && may_overflow(k, c->n, fin_g, gam))
        verdict_quiet(out, terse, DF_V_PRECISION, "overflow",
                      "Inf inputs: expected %a, got NaN; the finite products "
                      "(sum %.6g) may overflow to the opposite infinity",
                      want, fin_g);
    else
        verdict(out, DF_V_BUG, "nonfinite", "Inf inputs: expected %a, got %a", want,
                got);
}

/* ---- rule 5: finite inputs, finite result ------------------------------- */

/* The order-set rule: a case with few nonzero products has a result that
 * some correct order gives (reference/order_set.h), exactly. Returns 1
 * with a bug verdict when r is none of them. */
static int order_set_rejects(const df_kernel *k, const df_case *c, double r,
                             df_judgement *out)
{
    df_order_set s;
    int ftz = (k->flags & DF_K_FLUSHES_SUBNORMALS) != 0;
    if (!df_order_set_of(c->type, k->acc, ftz, c->a, c->b, c->n, &s) ||
        df_order_set_has(&s, r))
        return 0;
    char list[128] = "";
    size_t used = 0;
    for (unsigned i = 0; i < s.count && i < 4 && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%a", i ? " " : "",
                                 s.vals[i]);
    verdict(out, DF_V_BUG, "order-set",
            "result %a is none of the %u result(s) of a correct order of the %u nonzero "
            "product(s): %s%s",
            r, s.count, s.terms, list, s.count > 4 ? " ..." : "");
    return 1;
}

/* A fused model is held bit for bit where the result stands clear of the
 * subnormals: where a step's result falls below the smallest normal (f32
 * under 2^-126, from bf16 data, on an H100), the GPU's cut is not the
 * model's and not yet known (results/h100/lowp.txt), and a difference of a
 * few subnormal quanta there shows in results up to about 2^-124. Below
 * 2^(out_min_exp + out_bits + 2), where such a difference is under the
 * result's own cut, the bound alone judges. */
static int below_fused_model(const df_kernel *k, double r, double model)
{
    double tiny =
        k->fused ? ldexp(1.0, k->fused->out_min_exp + k->fused->out_bits + 2) : 0.0;
    return fabs(r) < tiny || fabs(model) < tiny;
}

static void judge_finite(const df_kernel *k, const df_case *c, const df_refs *refs,
                         const df_result *model, const df_oracle_opts *opts, int terse,
                         df_judgement *out)
{
    char buf[48];
    double r = out->result;
    int by_kahan = !refs->exact_known;
    double s = by_kahan ? refs->kahan : refs->exact_hi;
    double widen = by_kahan ? refs->kahan_err : 0.0;
    const char *sname = by_kahan ? "kahan" : "exact";
    double tol = opts ? opts->tol : DEFAULT_TOL;

    if (!by_kahan) {
        /* a fused kernel's sums of integers stay exact while every term and
         * partial sum has its bits above the cut and inside the result:
         * below 2^(min(bits kept, result bits) + 1) */
        int p = df_type_facts_of(result_type(k)).p;
        if (k->fused) {
            int kept = k->fused->align_bits < k->fused->out_bits ? k->fused->align_bits
                                                                 : k->fused->out_bits;
            p = kept + 1 < p ? kept + 1 : p;
        }
        double ceiling = ldexp(1.0, p);
        /* For f64 accumulators G must stay strictly below 2^53: the
         * computed G equals 2^53 both when the true G is 2^53 and when it
         * is a little above, where a correct kernel may round (f16 and f32
         * G, a sum in double, is exact there). */
        int exact_regime = refs->all_integer && !(k->flags & DF_K_TF32_INPUTS) &&
                           (k->acc != DF_F64 ? refs->G <= ceiling : refs->G < ceiling);
        if (exact_regime && refs->exact_is_int &&
            !(r == refs->exact_hi && refs->exact_lo == 0.0)) {
            verdict(out, DF_V_BUG, "exact",
                    "result %a != exact %s (exact regime, G=%.17g)", r,
                    i128_text(refs->exact, buf), refs->G);
            return;
        }
    }
    if (out->abs_err > out->bound + widen) {
        verdict(out, DF_V_BUG, "bound",
                "|result %a - %s %a| = %.3g > bound %.3g (h=%" PRIu64
                ", G=%.6g, %.3g u G)",
                r, sname, s, out->abs_err, out->bound + widen, out->h, out->G,
                out->err_ratio);
        return;
    }
    if (!(k->flags & DF_K_TF32_INPUTS) && order_set_rejects(k, c, r, out))
        return;
    if (model && model->status == DF_RUN_OK && (k->flags & DF_K_DETERMINISTIC) &&
        !below_fused_model(k, r, model->f) && !same_bits(r, model->f)) {
        verdict(out, DF_V_BUG, "model",
                "deterministic kernel %a != host model %a", r, model->f);
        return;
    }
    int beyond_tol = by_kahan ? out->abs_err > tol * fabs(s) + widen : out->rel_err > tol;
    if (beyond_tol)
        verdict_quiet(out, terse, DF_V_PRECISION, "tolerance",
                      "rel err %.3g > tol %.3g inside the bound (%.3g u G): "
                      "ill-conditioned, cond=%.3g",
                      out->rel_err, tol, out->err_ratio, out->cond);
    else
        verdict_quiet(out, terse, DF_V_OK, "within-tolerance",
                      "rel err %.3g <= tol %.3g (cond=%.3g)", out->rel_err, tol, out->cond);
}

/* Error measures against the best reference: exact when known (head and
 * tail, so the tail of a large exact value is not lost), else Kahan.
 * terse: ulp_err stays NaN (a second pass over the digits, which only
 * the one-case check's output shows). */
static void fill_errors(const df_kernel *k, const df_refs *refs, int terse, df_judgement *out)
{
    double r = out->result;
    double s = refs->exact_known ? refs->exact_hi : refs->kahan;
    if (refs->fp_known) {
        /* from the digits of s: exact even when |s| is tiny beside G */
        out->abs_err = df_exact_abs_err(&refs->fp, r);
        out->ulp_err = terse ? NAN : df_ulp_error(&refs->fp, k->acc, r);
    } else {
        out->abs_err = refs->exact_known ? fabs((r - refs->exact_hi) - refs->exact_lo)
                                         : fabs(r - refs->kahan);
        out->ulp_err = NAN;
    }
    if (s != 0)
        out->rel_err = out->abs_err / fabs(s);
    else if (refs->fp_known && !refs->fp.is_zero)
        out->rel_err = out->abs_err == 0 ? 0.0 : INFINITY; /* s below the smallest double */
    else
        out->rel_err = r == 0 ? 0.0 : INFINITY;
    out->err_ratio = out->G > 0 ? out->abs_err / (out->u * out->G) : 0.0;
    out->cond = s != 0 ? 2.0 * out->G / fabs(s) : INFINITY;
}

/* ---- rule 0': the kernel's own soft-error reports ---------------------- */

/* A kernel that reported a soft error (kernels/soft_error.h) said itself
 * that this case went wrong: an overflow it noticed is no longer silent,
 * so the verdict is soft-error, with the first report (lowest code) in the
 * why. A result that is wrong for another reason (exact, bound, model,
 * nonfinite where nothing can overflow) stays a bug: reporting one
 * condition does not excuse another. */
static void apply_soft(const df_result *res, df_judgement *out)
{
    if (!res->soft_mask)
        return;
    uint32_t code = 1;
    while (!(res->soft_mask & (1u << (code - 1))))
        code++;
    const df_soft_report *s = &res->soft[code - 1];
    char what[160];
    snprintf(what, sizeof what, "%s at block %u thread %u index %llu%s", df_soft_code_name(code),
             s->block, s->thread, (unsigned long long)s->index,
             code == DF_SOFT_INVARIANT ? " (round recorded)" : "");
    int excused = out->verdict != DF_V_BUG || strcmp(out->rule, "overflow") == 0;
    char prev[sizeof out->why];
    snprintf(prev, sizeof prev, "%s", out->why);
    if (excused)
        verdict(out, DF_V_SOFT_ERROR, "soft-error", "kernel reported %s; %s", what, prev);
    else
        verdict(out, out->verdict, out->rule, "%s; the kernel also reported %s", prev, what);
}

static void judge_all(const df_kernel *k, const df_case *c, const df_refs *refs,
                      const df_result *res, const df_result *model,
                      const df_oracle_opts *opts, int terse, df_judgement *out);

void df_judge(const df_kernel *k, const df_case *c, const df_refs *refs,
              const df_result *res, const df_result *model,
              const df_oracle_opts *opts, df_judgement *out)
{
    /* a soft-error report keeps the ok verdict's text after its own */
    int terse = opts && opts->terse && res->soft_mask == 0;
    judge_all(k, c, refs, res, model, opts, terse, out);
    if (res->status == DF_RUN_OK)
        apply_soft(res, out);
}

static void judge_all(const df_kernel *k, const df_case *c, const df_refs *refs,
                      const df_result *res, const df_result *model,
                      const df_oracle_opts *opts, int terse, df_judgement *out)
{
    memset(out, 0, sizeof *out);
    out->ulp_err = NAN;
    out->u = acc_unit(k->acc);
    out->h = k->tree_height ? k->tree_height(c->n, &c->launch) : c->n;
    out->exact_known = refs->exact_known;
    out->exact_hi = refs->exact_hi;
    out->exact_lo = refs->exact_lo;
    out->kahan = refs->kahan;
    out->ref = refs->exact_known ? refs->exact_hi : refs->kahan;
    out->G = refs->G;
    out->result = res->f;
    double s = out->ref;
    out->cond = s != 0 ? 2.0 * out->G / fabs(s) : INFINITY;

    if (res->status != DF_RUN_OK) {
        out->is_int = k->acc == DF_I32;
        verdict(out, DF_V_BUG, "exec", "%s", res->err);
        return;
    }
    if (k->acc == DF_I32) {
        judge_int(k, refs, res, terse, out);
        return;
    }

    double gam = df_gamma(out->h, out->u);
    out->bound = rounding_bound(k, c->n, out->h, c, out->G) +
                 (k->fused ? 0.0 : underflow_allowance(k, c->n));
    if (k->flags & DF_K_TF32_INPUTS) {
        /* each factor cut to 10 fraction bits: |a'b' - ab| <= eta |ab| for
         * normal factors, so the sum of the cut products is off by eta G and
         * the bound of their sum grows by (1 + eta) with G; a subnormal
         * factor loses less than 2^-136 absolutely (its 13 low bits), so
         * n (max|a| + max|b|) 2^-136 more covers those */
        const double eta = 0x1p-9 + 0x1p-20;
        double sub = (double)c->n * (refs->max_abs_a + refs->max_abs_b + 0x1p-136) * 0x1p-136;
        out->bound = (out->bound * (1.0 + eta) + eta * out->G + sub) * (1.0 + 0x1p-50);
    }
    if (k->result && k->result != k->acc) { /* the last rounding, into the result type */
        df_type_facts f = df_type_facts_of(k->result);
        double s_abs = fabs(refs->exact_known ? refs->exact_hi : refs->kahan);
        out->bound += ldexp(1.0, -f.p) * (s_abs + out->bound) + ldexp(1.0, f.emin - f.p);
        out->bound *= 1.0 + 0x1p-50; /* the three roundings of the line above */
    }
    double r = out->result;
    if (refs->has_nan) {
        out->abs_err = out->rel_err = out->err_ratio = NAN;
        if (isnan(r))
            verdict_quiet(out, terse, DF_V_OK, "nan", "NaN input, NaN result");
        else
            verdict(out, DF_V_BUG, "nan", "NaN input, result %a is not NaN", r);
        return;
    }
    if (refs->has_nonfinite) {
        out->abs_err = out->rel_err = out->err_ratio = NAN;
        judge_inf_inputs(k, c, refs, terse, out, gam);
        return;
    }
    fill_errors(k, refs, terse, out);
    if (!isfinite(r)) {
        if (!may_overflow(k, c->n, out->G, gam))
            verdict(out, DF_V_BUG, "nonfinite",
                    "finite inputs, result %a, but G=%.6g cannot overflow in any order",
                    r, out->G);
        else
            verdict_quiet(out, terse, DF_V_PRECISION, "overflow",
                          "finite inputs, result %a: G=%.6g lets some orders overflow", r,
                          out->G);
        return;
    }
    if (k->fused && k->fused->out_round == DF_ROUND_ZERO &&
        !(out->G + out->bound < acc_max(result_type(k)))) {
        /* a fused sum rounded toward zero stops at the largest value instead
         * of overflowing, and the groups after it go on from there: where
         * some order passes the largest value, any finite result may come */
        verdict_quiet(out, terse, DF_V_PRECISION, "overflow",
                      "finite inputs, result %a: G=%.6g lets some orders pass the largest "
                      "value, where a sum toward zero saturates", r, out->G);
        return;
    }
    judge_finite(k, c, refs, model, opts, terse, out);
}
