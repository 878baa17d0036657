/* pool.h — a fixed set of threads that run parallel loops: the CPU side
 * of batched checking (generation, references, host models, judging) over
 * every core. A loop is opened (df_pool_begin) and then waited on
 * (df_pool_wait), the waiting thread taking part; up to DF_POOL_MAX_LOOPS
 * loops may be open at once, the newest served first, and the loops of work
 * ahead after them, the oldest first (the next batches are made in the
 * background while the last one is judged). The loops
 * are opened and waited on by one thread, the pool's worker 0. */
#ifndef DOTFUZZ_POOL_H
#define DOTFUZZ_POOL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct df_pool df_pool;

/* CLOCK_MONOTONIC seconds: the clock of the pool's idle times, the
 * engine's stages and the backends' batch profiles. */
double df_now(void);

#define DF_POOL_MAX_LOOPS 12

/* The CPUs this process may run on (sched_getaffinity: taskset, cgroup
 * cpusets, Slurm's --cpus-per-task), at least 1. */
unsigned df_usable_cpus(void);

/* Holds the calling thread, and the threads it starts after, to the
 * part-th of parts equal runs of the CPUs it may use now, in their
 * numbering (part 0 the lowest numbered): one GPU's workers kept on one
 * share of the host, as a process per GPU under taskset would be. The
 * first CPUs % parts parts get one CPU more. Returns 0, or -1 when there
 * are fewer CPUs than parts, part >= parts or the kernel refuses (the
 * affinity unchanged). */
int df_pin_part(unsigned part, unsigned parts);

/* nthreads workers in all (the caller counts as one); 0 = one per usable
 * CPU (df_usable_cpus). Returns NULL when threads cannot be made. */
df_pool *df_pool_create(unsigned nthreads);
void df_pool_destroy(df_pool *p);
unsigned df_pool_size(const df_pool *p);

/* Calls fn(ctx, i, worker) for every i in [0, n), spread over the pool in
 * chunks taken from a shared counter; worker in [0, df_pool_size) tells
 * which thread runs the call (index per-thread scratch with it). Returns
 * when all calls have returned. p NULL: runs on the caller alone. */
void df_pool_for(df_pool *p, size_t n, void (*fn)(void *ctx, size_t i, unsigned worker),
                 void *ctx);

/* df_pool_for with the items taken one at a time: for loops of long items
 * in order (a batch of cases of 2^26 elements, a case an item, then items
 * that wait for those), where a chunk of several would give one thread
 * many cases while others wait on them. */
void df_pool_for_each(df_pool *p, size_t n, void (*fn)(void *ctx, size_t i, unsigned worker),
                      void *ctx);

/* Opens a loop of fn over [0, n) that the workers start at once, beside
 * the loops already open, and returns its handle for df_pool_wait; -1 when
 * p is NULL or DF_POOL_MAX_LOOPS loops are open (run it with df_pool_for
 * then). ctx and what fn writes belong to the pool until the wait. */
int df_pool_begin(df_pool *p, size_t n, void (*fn)(void *ctx, size_t i, unsigned worker),
                  void *ctx);

/* df_pool_begin for work ahead of what the caller waits on next (the
 * batches after the next one): the workers take it only when no other
 * loop has work left, the oldest such loop first (the others go newest
 * first). ready, when not NULL, is a gate, for a loop whose calls would
 * first wait for something outside the pool (the GPU's generation of
 * their cases): the workers leave the loop alone until ready(rctx)
 * returns nonzero, asked each time one looks for work, and run the loops
 * behind it meanwhile; its waiter runs it whenever it comes (its calls
 * wait themselves). ready is called under the pool's lock: quick and
 * non-blocking. */
int df_pool_begin_ahead(df_pool *p, size_t n, void (*fn)(void *ctx, size_t i, unsigned worker),
                        void *ctx, int (*ready)(void *rctx), void *rctx);

/* The seconds the workers (not the caller) spent without work since the
 * last call, summed over them: out[0] with no loop open that had chunks
 * left, out[1] with loops left only behind their gates. Then zeroes them. */
void df_pool_idle(df_pool *p, double out[2]);
/* The workers' idle seconds, both kinds, summed since the pool began (not
 * zeroed by df_pool_idle). */
double df_pool_idle_all(df_pool *p);

/* How many times the workers (not the caller) have chosen a loop under
 * the pool's lock so far: about once a loop a worker, as a worker stays on
 * its loop while the choice holds. */
unsigned long df_pool_picks(df_pool *p);

/* Whether every call of open loop `loop` has returned (df_pool_wait would
 * not wait), without waiting; 1 for a handle of -1 (no loop: run already
 * by df_pool_for). The handle stays open until df_pool_wait. */
int df_pool_done(df_pool *p, int loop);

/* Runs what is left of loop `loop` on the caller (as worker 0) and returns
 * when every call of it has returned; the handle is then free. */
void df_pool_wait(df_pool *p, int loop);

#ifdef __cplusplus
}
#endif
#endif
