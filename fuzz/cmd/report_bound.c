/* report_bound.c — a kernel's bug threshold over its launches
 * (report_bound.h), from the oracle's own bound and the kernel's own tree
 * height. */
#include <stddef.h>

#include "fuzz/cmd/report_bound.h"
#include "fuzz/gen/generator.h"
#include "fuzz/oracle.h"
#include "kernels/kernel.h"

/* The threshold at one launch, widened into [*lo, *hi]; 1 when valid. */
static int try_launch(const df_kernel *k, uint64_t n, uint32_t block, uint32_t grid,
                      double *lo, double *hi, int seen)
{
    df_launch l = {0};
    l.block = block;
    l.grid = grid;
    if (df_launch_resolve(k, n, &l, NULL, 0) != 0)
        return 0;
    uint64_t h = k->tree_height ? k->tree_height(n, &l) : n;
    double r = df_ratio_bound(k, n, h);
    if (!seen || r < *lo)
        *lo = r;
    if (!seen || r > *hi)
        *hi = r;
    return 1;
}

int df_report_bound_band(const char *name, uint64_t n, double *lo, double *hi)
{
    const df_kernel *k = df_kernel_find(name);
    if (!k)
        return -1;
    if (k->max_n && n > k->max_n) /* a length bin may reach past the kernel's longest */
        n = k->max_n;
    uint32_t blocks[40];
    size_t nb = 0;
    blocks[nb++] = k->block_min;
    blocks[nb++] = k->block_max;
    blocks[nb++] = k->block_default;
    blocks[nb++] = (k->block_min + 31) / 32 * 32;
    for (uint64_t b = 1; b <= k->block_max && nb < sizeof blocks / sizeof blocks[0]; b *= 2)
        if (b >= k->block_min)
            blocks[nb++] = (uint32_t)b;
    uint64_t cap = k->flags & DF_K_GRID_FREE ? df_gen_grid_cap(k) : 0;
    int seen = 0;
    for (size_t i = 0; i < nb; i++) {
        seen |= try_launch(k, n, blocks[i], 0, lo, hi, seen);
        for (uint64_t g = 1; cap && g <= cap; g = g < cap && g * 2 > cap ? cap : g * 2)
            seen |= try_launch(k, n, blocks[i], (uint32_t)g, lo, hi, seen); /* 1, 2, 4, ..., cap */
    }
    return seen ? 0 : -1;
}
