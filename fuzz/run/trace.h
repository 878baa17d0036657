/* trace.h — a timeline of the engine's work, for profiles: with
 * DOTFUZZ_TRACE=FILE set, each piece of CPU work the engine times (a case
 * generated, referenced, modelled or judged, a copy made, a wait on
 * another thread) and each stage of the caller's batch loop is kept as an
 * event (thread, kind, case index, start and end in seconds) and written
 * to FILE (each %p in it the process id: a campaign's workers write a file
 * each) as TSV, a header row then a row per event, each time an engine is
 * freed (bench: at each new row and at the end); scripts/trace-summary.sh
 * reads it. Unset, df_trace is one predictable branch. The last
 * DF_TRACE_MAX events are kept (a ring; stderr says how many went before
 * them, when any did). Times are in seconds from the first kept event.
 */
#ifndef DOTFUZZ_TRACE_H
#define DOTFUZZ_TRACE_H

#include <stdint.h>

#define DF_TRACE_ENV "DOTFUZZ_TRACE"
#define DF_TRACE_MAX (UINT64_C(1) << 22)
#define DF_TRACE_CALLER UINT32_MAX /* the thread of the batch loop */

/* What an event is: the engine's CPU kinds (run.h's DF_CPU_*) first. */
enum {
    DF_TR_GENERATE,
    DF_TR_REFS,
    DF_TR_MODEL,
    DF_TR_JUDGE,
    DF_TR_WAIT,     /* a pool thread waiting on another's work */
    DF_TR_PREPARE,  /* the caller's stages (run.h's DF_STAGE_*) */
    DF_TR_GPU,
    DF_TR_FINISH,
    DF_TR_RECORD,
    DF_TR_NEXT,     /* inside FINISH: the next batch laid out and staged */
    DF_TR_RANGE,    /* a range of indices begun (df_engine_range), at its first */
    DF_TR_KINDS
};

/* Starts tracing when DF_TRACE_ENV names a file (once per process; a
 * second call does nothing). Returns 0, or -1 out of memory (tracing off). */
int df_trace_init(void);
/* Whether events are kept. */
int df_trace_on(void);
void df_trace_event(unsigned kind, uint32_t thread, uint64_t index, double t0, double t1);
/* Writes the events kept so far (tracing goes on). Returns 0, or -1 when
 * the file could not be written (a message on stderr). */
int df_trace_write(void);

static inline void df_trace(unsigned kind, uint32_t thread, uint64_t index, double t0, double t1)
{
    if (df_trace_on())
        df_trace_event(kind, thread, index, t0, t1);
}

#endif
