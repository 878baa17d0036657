/* case.c — element-type helpers. */
#include <string.h>

#include "fuzz/case.h"

size_t df_type_size(df_type t)
{
    switch (t) {
    case DF_F32: return sizeof(float);
    case DF_F64: return sizeof(double);
    case DF_I32: return sizeof(int32_t);
    }
    return 0;
}

const char *df_type_name(df_type t)
{
    switch (t) {
    case DF_F32: return "f32";
    case DF_F64: return "f64";
    case DF_I32: return "i32";
    }
    return "?";
}

int df_type_parse(const char *s, df_type *out)
{
    static const df_type all[] = {DF_F32, DF_F64, DF_I32};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(s, df_type_name(all[i])) == 0) {
            *out = all[i];
            return 0;
        }
    return -1;
}

double df_elem_as_double(df_type t, const void *v, uint64_t i)
{
    switch (t) {
    case DF_F32: return ((const float *)v)[i];
    case DF_F64: return ((const double *)v)[i];
    case DF_I32: return ((const int32_t *)v)[i];
    }
    return 0.0;
}
