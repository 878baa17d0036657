/* case.c — element-type helpers. */
#include <float.h>
#include <string.h>

#include "fuzz/case.h"
#include "fuzz/cpu_clones.h"
#include "fuzz/lowp.h"

size_t df_type_size(df_type t)
{
    switch (t) {
    case DF_F32: return sizeof(float);
    case DF_F64: return sizeof(double);
    case DF_I32: return sizeof(int32_t);
    case DF_F16:
    case DF_BF16: return sizeof(uint16_t);
    case DF_E4M3:
    case DF_E5M2: return sizeof(uint8_t);
    }
    return 0;
}

const char *df_type_name(df_type t)
{
    switch (t) {
    case DF_F32: return "f32";
    case DF_F64: return "f64";
    case DF_I32: return "i32";
    case DF_F16: return "f16";
    case DF_BF16: return "bf16";
    case DF_E4M3: return "e4m3";
    case DF_E5M2: return "e5m2";
    }
    return "?";
}

int df_type_parse(const char *s, df_type *out)
{
    for (int t = 1; t <= DF_TYPE_MAX; t++)
        if (strcmp(s, df_type_name((df_type)t)) == 0) {
            *out = (df_type)t;
            return 0;
        }
    return -1;
}

int df_type_is_lowp(df_type t) { return df_lowp_of(t) >= 0; }

df_type_facts df_type_facts_of(df_type t)
{
    int f = df_lowp_of(t);
    if (f >= 0) {
        df_lowp_shape s = df_lowp_shape_of((df_lowp)f);
        return (df_type_facts){s.man_bits + 1, 1 - s.bias,
                               df_lowp_decode((df_lowp)f, df_lowp_max_bits((df_lowp)f)), f};
    }
    switch (t) {
    case DF_F32: return (df_type_facts){24, -126, FLT_MAX, -1};
    case DF_F64: return (df_type_facts){53, -1022, DBL_MAX, -1};
    default: return (df_type_facts){0, 0, 2147483647.0, -1};
    }
}

/* Element i of a lowp vector's bits. */
static uint32_t lowp_bits(df_type t, const void *v, uint64_t i)
{
    return df_type_size(t) == 1 ? ((const uint8_t *)v)[i] : ((const uint16_t *)v)[i];
}

/* df_type_widen's loop for one format: runs of WIDEN_RUN elements, whose
 * constant trip count the compiler vectorizes (x86-64-v3: eight a
 * vector), then the rest. */
#define WIDEN_RUN 64
#define WIDEN_LOOP(NAME, T, F)                                                 \
    DF_CPU_CLONES static void NAME(const T *restrict v, uint64_t n, uint32_t *restrict out) \
    {                                                                          \
        uint64_t i = 0;                                                        \
        for (; i + WIDEN_RUN <= n; i += WIDEN_RUN)                             \
            for (unsigned k = 0; k < WIDEN_RUN; k++)                           \
                out[i + k] = df_lowp_f32_bits(F, v[i + k]);                    \
        for (; i < n; i++)                                                     \
            out[i] = df_lowp_f32_bits(F, v[i]);                                \
    }

WIDEN_LOOP(widen_f16, uint16_t, DF_LOWP_F16)
WIDEN_LOOP(widen_bf16, uint16_t, DF_LOWP_BF16)
WIDEN_LOOP(widen_e4m3, uint8_t, DF_LOWP_E4M3)
WIDEN_LOOP(widen_e5m2, uint8_t, DF_LOWP_E5M2)

void df_type_widen(df_type t, const void *v, uint64_t from, uint64_t n, float *out)
{
    uint32_t *o = (uint32_t *)out; /* the values' bits (df_lowp_f32_bits) */
    switch (t) {
    case DF_F16: widen_f16((const uint16_t *)v + from, n, o); break;
    case DF_BF16: widen_bf16((const uint16_t *)v + from, n, o); break;
    case DF_E4M3: widen_e4m3((const uint8_t *)v + from, n, o); break;
    case DF_E5M2: widen_e5m2((const uint8_t *)v + from, n, o); break;
    default: break;
    }
}

double df_elem_as_double(df_type t, const void *v, uint64_t i)
{
    switch (t) {
    case DF_F32: return ((const float *)v)[i];
    case DF_F64: return ((const double *)v)[i];
    case DF_I32: return ((const int32_t *)v)[i];
    case DF_F16:
    case DF_BF16:
    case DF_E4M3:
    case DF_E5M2: return df_lowp_value((df_lowp)df_lowp_of(t), lowp_bits(t, v, i));
    }
    return 0.0;
}
