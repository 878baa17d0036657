/* report_bound.h — the bug threshold `dotfuzz report` draws beside a
 * kernel's error ratios (report_bound.c): the oracle's bound over u G
 * (df_ratio_bound) at the tree heights of the launches the generator may
 * draw for a length. */
#ifndef DOTFUZZ_REPORT_BOUND_H
#define DOTFUZZ_REPORT_BOUND_H

#include <stdint.h>

/* The least and the largest error ratio the oracle lets kernel name reach
 * on n elements, over the launches the generator may draw (every block
 * edge and power of two in the kernel's range; for a grid-free kernel,
 * the derived grid and every power of two up to the generator's cap); n
 * past the kernel's longest length counts as that length.
 * Past *hi a case is a bug whatever its launch; below *lo it is not. 0, or
 * -1 when name is not in this build's registry or no launch is valid. */
int df_report_bound_band(const char *name, uint64_t n, double *lo, double *hi);

#endif
