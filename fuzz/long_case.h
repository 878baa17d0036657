/* long_case.h — one long case on a pool's threads, a chunk an item: made
 * past DF_GEN_CHUNK elements (df_values_plan, df_generate_chunk and
 * df_values_finish_parts, fuzz/gen/values_long.h), referenced past
 * DF_REFS_CHUNK (df_refs_part_compute, the parts merged in chunk order,
 * reference/reference.h). The bytes are df_generate's and the references
 * df_refs_compute's, whatever the threads; this is how the commands that
 * take a case at a time (hunt, the sandbox's worker) make and reference a
 * huge case, as run's engine does inside its batches
 * (fuzz/run/engine_prepare.c). */
#ifndef DOTFUZZ_LONG_CASE_H
#define DOTFUZZ_LONG_CASE_H

#include "fuzz/case.h"
#include "fuzz/gen/generator.h"
#include "fuzz/pool.h"
#include "reference/reference.h"

/* Fills c's vectors (c->a and c->b, room for c->n elements each) with its
 * family's values from values, the case's value stream (df_generate_shape
 * leaves it there), as df_generate does: past DF_GEN_CHUNK elements a
 * chunk an item on p's threads; p NULL, a shorter case or a family made
 * whole at any length (the low-precision ones), on this thread. Returns
 * 0, or -1 (an unknown family, no memory for cond's partial sums). */
int df_fill_values_pool(df_pool *p, const df_case *c, df_pcg32 *values);

/* df_generate, the vectors made by df_fill_values_pool. */
int df_generate_pool(df_pool *p, uint64_t seed, uint64_t index, const df_kernel *k,
                     const df_gen_opts *o, df_scratch *buf, df_case *out);

/* df_refs_compute, past DF_REFS_CHUNK elements a chunk an item on p's
 * threads (p NULL, a shorter case or no memory for the parts: on this
 * thread). */
void df_refs_compute_pool(df_pool *p, df_type t, const void *a, const void *b, uint64_t n,
                          df_refs *out);

#endif
