/* exact_round.c — the exact dot's results from its digits: the finished
 * sum as a sign and a magnitude, rounded once to double (head and tail)
 * and to float; -s and s 2^k from s; the error of a result against s,
 * absolute or in ulps, rounded once from the exact difference.
 *
 * Every rounding here is round-to-nearest-even with gradual underflow,
 * done by hand from the magnitude's bits, so no rounding happens twice.
 */
#include <math.h>
#include <string.h>

#include "reference/exact_internal.h"

__extension__ typedef unsigned __int128 u128;

#define NDIG DF_EXACT_DIGITS
#define LSB DF_EXACT_LSB
#define M32 UINT64_C(0xffffffff)

/* ---- the sum's sign and magnitude -------------------------------------- */

/* The sign of the value (-1, 0, +1) and its magnitude as 32-bit digits
 * (all NDIG of them written). */
static int acc_to_mag(df_exact_acc *A, uint32_t *mag)
{
    memset(mag, 0, NDIG * sizeof *mag);
    df_acc_normalize(A);
    int negative = A->hi > A->lo && A->d[A->hi - 1] < 0;
    uint64_t borrow = 1; /* two's complement over the window: ~x + 1 */
    int any = 0;
    for (int j = A->lo; j < A->hi; j++) {
        uint64_t digit = (uint64_t)A->d[j] & M32;
        if (negative) {
            uint64_t t = (~digit & M32) + borrow;
            borrow = t >> 32;
            digit = t & M32;
        }
        mag[j] = (uint32_t)digit;
        any |= digit != 0;
    }
    return any ? (negative ? -1 : 1) : 0;
}

/* ---- magnitudes: bits, rounding, arithmetic --------------------------- */

/* Magnitudes are NDIG digits, zero outside [bot, top] (bot = NDIG and
 * top = -1 for zero); the loops below run over that window only. */

static void mag_window(const uint32_t *mag, int lo, int hi, int *bot, int *top)
{
    while (hi > lo && mag[hi - 1] == 0)
        hi--;
    while (lo < hi && mag[lo] == 0)
        lo++;
    *bot = lo < hi ? lo : NDIG;
    *top = lo < hi ? hi - 1 : -1;
}

static uint32_t mag_digit(const uint32_t *mag, int j)
{
    return j >= 0 && j < NDIG ? mag[j] : 0;
}

/* Bits [pos, pos + 64) of mag; bits outside the array read as zero. */
static uint64_t mag_bits64(const uint32_t *mag, int pos)
{
    int sh = ((pos % 32) + 32) % 32;
    int j = (pos - sh) / 32;
    u128 w = (u128)mag_digit(mag, j) | (u128)mag_digit(mag, j + 1) << 32 |
             (u128)mag_digit(mag, j + 2) << 64;
    return (uint64_t)(w >> sh);
}

/* Whether any bit below bit index pos is set. */
static int mag_sticky(const uint32_t *mag, int bot, int pos)
{
    if (pos <= 0)
        return 0;
    int j = pos / 32, sh = pos % 32;
    if (j >= NDIG) {
        j = NDIG;
        sh = 0;
    }
    for (int k = bot; k < j; k++)
        if (mag[k])
            return 1;
    return sh && (mag[j] & ((UINT32_C(1) << sh) - 1));
}

/* RN(|v| * 2^scale) to a binary format of precision prec whose smallest
 * subnormal is 2^emin_sub, |v| being mag with non-zero digits in
 * [bot, top]. The result is q * 2^e with q <= 2^prec, returned as a double:
 * exact when prec <= 53 and e >= -1074, and +Inf when q * 2^e is 2^1024 or
 * more (IEEE round-to-nearest overflow). */
static double round_mag(const uint32_t *mag, int bot, int top, int scale,
                        int prec, int emin_sub)
{
    if (top < 0)
        return 0.0;
    int msb = 32 * top + 31 - __builtin_clz(mag[top]); /* bit index */
    int ue = msb + LSB + scale - (prec - 1);           /* exponent of the ulp */
    if (ue < emin_sub)
        ue = emin_sub; /* gradual underflow: fewer significant bits */
    int u = ue - LSB - scale;                          /* bit index of the ulp */
    uint64_t q = 0;
    if (u <= msb)
        q = mag_bits64(mag, u) & ((UINT64_C(1) << (msb - u + 1)) - 1);
    uint64_t round_bit = mag_bits64(mag, u - 1) & 1;
    if (round_bit && ((q & 1) || mag_sticky(mag, bot, u - 1)))
        q++; /* may reach 2^prec: still exact, or the overflow threshold */
    return ldexp((double)q, ue);
}

/* A magnitude and its window. */
typedef struct mag_ref {
    const uint32_t *d;
    int bot, top;
} mag_ref;

static double round_double(mag_ref m, int sign, int scale)
{
    double x = round_mag(m.d, m.bot, m.top, scale, 53, -1074);
    return sign < 0 ? -x : x;
}

/* RN to float: q <= 2^24 times 2^e, e >= -149, is exact in double, and
 * converting that double to float is exact below 2^128 and gives Inf from
 * 2^128 up, which is where round-to-nearest overflows. */
static float round_float(mag_ref m, int sign)
{
    float x = (float)round_mag(m.d, m.bot, m.top, 0, 24, -149);
    return sign < 0 ? -x : x;
}

static mag_ref mag_set_double(uint32_t *mag, double x)
{
    mag_ref m = {mag, NDIG, -1};
    if (x == 0.0)
        return m;
    uint64_t q;
    int pos = df_double_digits(x, &q);
    u128 w = (u128)q << (pos % 32);
    int j = pos / 32;
    mag[j] = (uint32_t)w;
    mag[j + 1] = (uint32_t)(w >> 32);
    mag[j + 2] = (uint32_t)(w >> 64);
    mag_window(mag, j, j + 3, &m.bot, &m.top);
    return m;
}

static int mag_cmp(mag_ref x, mag_ref y)
{
    int lo = x.bot < y.bot ? x.bot : y.bot;
    for (int j = x.top > y.top ? x.top : y.top; j >= lo; j--)
        if (x.d[j] != y.d[j])
            return x.d[j] < y.d[j] ? -1 : 1;
    return 0;
}

/* |x - y| or x + y (add) of two magnitudes, into a zeroed r. */
static mag_ref mag_combine(uint32_t *r, mag_ref x, mag_ref y, int add)
{
    int lo = x.bot < y.bot ? x.bot : y.bot;
    int hi = (x.top > y.top ? x.top : y.top) + 1;
    mag_ref m = {r, NDIG, -1};
    if (hi <= lo)
        return m;
    if (add) {
        uint64_t carry = 0;
        for (int j = lo; j < hi; j++) {
            uint64_t t = (uint64_t)x.d[j] + y.d[j] + carry;
            r[j] = (uint32_t)t;
            carry = t >> 32;
        }
        if (carry) /* hi < NDIG: both operands are below 2^4289 */
            r[hi++] = 1;
    } else {
        if (mag_cmp(x, y) < 0) {
            mag_ref t = x;
            x = y;
            y = t;
        }
        uint64_t borrow = 0;
        for (int j = lo; j < hi; j++) {
            uint64_t t = (uint64_t)x.d[j] - y.d[j] - borrow;
            r[j] = (uint32_t)t;
            borrow = t >> 63;
        }
    }
    mag_window(r, lo, hi, &m.bot, &m.top);
    return m;
}

static mag_ref exact_mag(const df_exact *s)
{
    mag_ref m = {s->mag, s->bot, s->top};
    return m;
}

/* |r - s| for a finite double r, exactly, into diff. */
static mag_ref mag_abs_diff(uint32_t *diff, const df_exact *s, double r)
{
    uint32_t mr[NDIG];
    memset(mr, 0, sizeof mr);
    memset(diff, 0, NDIG * sizeof *diff);
    int sr = r < 0 ? -1 : r > 0;
    return mag_combine(diff, mag_set_double(mr, r), exact_mag(s), sr * s->sign < 0);
}

/* ---- results ------------------------------------------------------------ */

void df_exact_set_nonfinite(df_exact *out, int kind)
{
    memset(out, 0, sizeof *out);
    out->kind = kind;
    out->top = -1;
    out->bot = NDIG;
    if (kind == DF_EXACT_NAN) {
        out->hi = NAN;
        out->f32 = NAN;
    } else {
        out->sign = kind == DF_EXACT_POS_INF ? 1 : -1;
        out->hi = out->sign * (double)INFINITY;
        out->f32 = out->sign * INFINITY;
    }
}

/* hi, lo and f32 of a finite out from its sign and magnitude. lo is
 * rounded from s - hi, formed exactly (hi is a multiple of 2^-1074, inside
 * the digits' range); hi has the sign of s or is zero, so s - hi has the
 * sign of s when |s| > |hi| and the other one when hi was rounded away
 * from zero. */
static void set_rounded(df_exact *out)
{
    mag_ref s = exact_mag(out);
    out->hi = round_double(s, out->sign, 0);
    out->f32 = round_float(s, out->sign);
    out->lo = 0.0;
    if (!isfinite(out->hi))
        return;
    uint32_t mh[NDIG], d[NDIG];
    memset(mh, 0, sizeof mh);
    memset(d, 0, sizeof d);
    mag_ref h = mag_set_double(mh, out->hi);
    int c = mag_cmp(s, h);
    if (c != 0)
        out->lo = round_double(mag_combine(d, s, h, 0), c * out->sign, 0);
}

/* out from the sum in A. */
void df_exact_set_finite(df_exact *out, df_exact_acc *A)
{
    out->kind = DF_EXACT_FINITE;
    out->sign = acc_to_mag(A, out->mag);
    out->is_zero = out->sign == 0;
    mag_window(out->mag, A->lo, A->hi, &out->bot, &out->top);
    set_rounded(out);
}

/* ---- -s and s 2^k -------------------------------------------------------- */

/* -s: the same digits with the other sign, rounded again (set_rounded);
 * so the fields df_exact_dot gives on data whose dot is -s
 * (df_exact_set_finite: they come from the value alone). Zero has no sign;
 * NaN stays NaN. */
void df_exact_negate(const df_exact *s, df_exact *out)
{
    if (s->kind == DF_EXACT_POS_INF || s->kind == DF_EXACT_NEG_INF) {
        df_exact_set_nonfinite(out, s->kind == DF_EXACT_POS_INF ? DF_EXACT_NEG_INF
                                                                : DF_EXACT_POS_INF);
        return;
    }
    *out = *s;
    if (s->kind != DF_EXACT_FINITE || s->is_zero)
        return;
    out->sign = -s->sign;
    set_rounded(out);
}

int df_exact_scale(const df_exact *s, int k, df_exact *out)
{
    if (s->kind != DF_EXACT_FINITE || k <= -32 || k >= 32)
        return -1;
    *out = *s;
    if (s->is_zero || k == 0)
        return 0;
    /* |s| 2^k: the digits moved k bits up (down for k < 0), none lost */
    if (k > 0 ? s->top + 1 >= NDIG : s->bot == 0)
        return -1;
    uint32_t m[NDIG];
    memset(m, 0, sizeof m);
    for (int j = s->bot; j <= s->top; j++) {
        uint64_t d = s->mag[j];
        if (k > 0) {
            m[j] |= (uint32_t)(d << k);
            m[j + 1] |= (uint32_t)(d >> (32 - k));
        } else {
            m[j] |= (uint32_t)(d >> -k);
            m[j - 1] |= (uint32_t)(d << (32 + k));
        }
    }
    memcpy(out->mag, m, sizeof m);
    mag_window(out->mag, s->bot > 0 ? s->bot - 1 : 0, s->top + 2 < NDIG ? s->top + 2 : NDIG,
               &out->bot, &out->top);
    set_rounded(out);
    return 0;
}

/* ---- errors ------------------------------------------------------------- */

/* The error of r when s or r is not finite (see exact.h). */
static double nonfinite_err(const df_exact *s, double r)
{
    int same = (s->kind == DF_EXACT_NAN && isnan(r)) ||
               (s->kind == DF_EXACT_POS_INF && r == INFINITY) ||
               (s->kind == DF_EXACT_NEG_INF && r == -INFINITY);
    return same ? 0.0 : INFINITY;
}

/* Exponent of ulp_T(s) (finite s). */
static int ulp_exp(const df_exact *s, df_type t)
{
    df_type_facts f = df_type_facts_of(t);
    if (t == DF_I32 || !f.p)
        return 0; /* integers: 1 */
    int prec = f.p, emin = f.emin, emax = 1 - emin; /* IEEE: emax = 1 - emin */
    int e = emin;
    if (s->top >= 0) {
        e = 32 * s->top + 31 - __builtin_clz(s->mag[s->top]) + LSB;
        e = e < emin ? emin : e > emax ? emax : e;
    }
    return e - prec + 1;
}

double df_exact_ulp(const df_exact *s, df_type result_type)
{
    if (s->kind != DF_EXACT_FINITE)
        return NAN;
    return ldexp(1.0, ulp_exp(s, result_type));
}

static double scaled_err(const df_exact *s, double r, int scale)
{
    if (s->kind != DF_EXACT_FINITE || !isfinite(r))
        return nonfinite_err(s, r);
    uint32_t d[NDIG];
    return round_double(mag_abs_diff(d, s, r), 1, scale);
}

double df_exact_abs_err(const df_exact *s, double r)
{
    return scaled_err(s, r, 0);
}

double df_ulp_error(const df_exact *s, df_type result_type, double r)
{
    if (s->kind != DF_EXACT_FINITE)
        return nonfinite_err(s, r);
    return scaled_err(s, r, -ulp_exp(s, result_type));
}
