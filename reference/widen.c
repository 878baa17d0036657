/* widen.c — f16, bf16, e4m3 and e5m2 data read as the f32 values they are
 * (f32 holds every one of them exactly), a chunk of DF_REFS_CHUNK elements
 * at a time into buffers of the thread's own, so the references take a
 * low-precision case of any length through their f32 paths without memory
 * of its size: every reference of such a case is bit for bit the f32 one
 * of its values. */
#include "reference/refs_internal.h"

/* Two vectors of a chunk each: 512 KiB a thread, touched only by threads
 * that reference low-precision cases. */
static _Thread_local float widened[2][DF_REFS_CHUNK];

uint64_t df_widen_chunk(df_type t, const void *a, const void *b, uint64_t n, uint64_t j,
                        const float **wa, const float **wb)
{
    uint64_t off = j * DF_REFS_CHUNK, len = n - off < DF_REFS_CHUNK ? n - off : DF_REFS_CHUNK;
    df_type_widen(t, a, off, len, widened[0]);
    df_type_widen(t, b, off, len, widened[1]);
    *wa = widened[0];
    *wb = widened[1];
    return len;
}
