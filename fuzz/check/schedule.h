/* schedule.h — perturbed schedules (case.h's df_schedule): which cases a
 * run reruns under one, the perturbation drawn for a case, and the line
 * that describes it. The cuda backend applies it around the launch
 * (fuzz/backend/cuda_perturb.cu); the schedule rule judges the rerun
 * (metamorphic.h's DF_META_SCHEDULE, docs/oracle.md). */
#ifndef DOTFUZZ_SCHEDULE_H
#define DOTFUZZ_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether case (seed, index) is rerun under a perturbed schedule: one in
 * `every` by a hash of both (0: never), independent of the metamorphic
 * sample. */
int df_sched_sampled_at(uint32_t every, uint64_t seed, uint64_t index);

/* *v = *c under the perturbation drawn from (c->seed, c->index): a nonzero
 * schedule seed; noise on a share of the SMs (three draws in four), of
 * them one in three through memory; the L2 flushed and the buffers
 * poisoned half the time each; the noise's longest block 16 us to 2 ms,
 * log-uniform; and, for a kernel whose grid is free (DF_K_GRID_FREE), a
 * grid drawn anew in [1, 2 g + 8] (g its default, within grid_max) half
 * the time; and one noise in three contending for the case's own lines
 * (DF_SCHED_CONTEND, which then takes the place of memory or spinning). */
void df_sched_draw(const df_kernel *k, const df_case *c, df_case *v);

/* One line: "schedule 9f2c01d3: noise on 37% of SMs, memory, up to 420 us;
 * L2 flushed; poisoned; grid 17", or "default schedule". */
void df_sched_describe(const df_case *c, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
