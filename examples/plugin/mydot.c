/* mydot.c — an example dotfuzz plugin: a user's own dot routines, loaded
 * with `dotfuzz --kernel-lib examples/plugin/mydot.so`, without editing
 * dotfuzz. The ABI is include/dotfuzz/plugin.h.
 *
 * Two kernels, both in the whole-routine form (host vectors in, host
 * result out), float data summed in float:
 *   mydot           a 4-way unrolled sum (four partial sums, then
 *                   (s0 + s1) + (s2 + s3)), with a host model.
 *   mydot-droplast  the same routine with a planted bug: the loop bound is
 *                   off by one, so the last element is never added.
 * A routine that runs on a GPU would do its cudaMalloc, copies and launch
 * inside dot_host, or give dot_device instead.
 */
#include <stdint.h>

#include "dotfuzz/plugin.h"

/* The routine: four lanes, lane j takes elements j, j+4, j+8, ...; the
 * lanes are combined pairwise. last is n for the correct routine. */
static float unrolled4(const float *a, const float *b, uint64_t last)
{
    float s[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    uint64_t i;
    for (i = 0; i < last; i++)
        s[i % 4] += a[i] * b[i];
    return (s[0] + s[1]) + (s[2] + s[3]);
}

static int mydot(const void *a, const void *b, uint64_t n,
                 const dotfuzz_launch *launch, void *result_out)
{
    (void)launch;
    *(float *)result_out = unrolled4((const float *)a, (const float *)b, n);
    return 0;
}

static int mydot_droplast(const void *a, const void *b, uint64_t n,
                          const dotfuzz_launch *launch, void *result_out)
{
    (void)launch;
    *(float *)result_out = unrolled4((const float *)a, (const float *)b, n ? n - 1 : 0);
    return 0;
}

/* The host model: the same operations in the same order, written out
 * without the lane array, as an independent statement of the order. */
static int mydot_model(const void *va, const void *vb, uint64_t n,
                       const dotfuzz_launch *launch, void *result_out)
{
    const float *a = (const float *)va, *b = (const float *)vb;
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    uint64_t i = 0;
    (void)launch;
    for (; i + 4 <= n; i += 4) {
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
    }
    if (i < n)
        s0 += a[i] * b[i];
    if (i + 1 < n)
        s1 += a[i + 1] * b[i + 1];
    if (i + 2 < n)
        s2 += a[i + 2] * b[i + 2];
    *(float *)result_out = (s0 + s1) + (s2 + s3);
    return 0;
}

/* Lane j sums about n/4 products in sequence (the product's rounding and
 * ceil(n/4) - 1 additions), then two pairwise levels: ceil(n/4) + 2. */
static uint64_t unrolled4_height(uint64_t n, const dotfuzz_launch *launch)
{
    (void)launch;
    return n == 0 ? 1 : (n + 3) / 4 + 2;
}

static const dotfuzz_kernel kernels[] = {
    {"mydot", "example plugin: 4-way unrolled float sum (whole routine + host model)",
     DOTFUZZ_F32, DOTFUZZ_F32, DOTFUZZ_DETERMINISTIC | DOTFUZZ_ANY_ALIGNMENT,
     1, 1, 1, 0, 1, 0, unrolled4_height, mydot, 0, mydot_model, 0, 0, 0},
    {"mydot-droplast", "example plugin: mydot with a planted bug (drops the last element)",
     DOTFUZZ_F32, DOTFUZZ_F32, DOTFUZZ_DETERMINISTIC,
     1, 1, 1, 0, 1, 0, unrolled4_height, mydot_droplast, 0, 0, 0, 0, 0},
};

static const dotfuzz_plugin plugin = {
    DOTFUZZ_PLUGIN_HEADER, sizeof kernels / sizeof kernels[0], "mydot", kernels};

const dotfuzz_plugin *dotfuzz_plugin_entry(void) { return &plugin; }
