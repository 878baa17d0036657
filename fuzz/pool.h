/* pool.h — a fixed set of threads that run parallel loops: the CPU side
 * of batched checking (generation, references, host models, judging) over
 * every core. One loop at a time; the calling thread takes part. */
#ifndef DOTFUZZ_POOL_H
#define DOTFUZZ_POOL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct df_pool df_pool;

/* nthreads workers in all (the caller counts as one); 0 = one per online
 * CPU. Returns NULL when threads cannot be made. */
df_pool *df_pool_create(unsigned nthreads);
void df_pool_destroy(df_pool *p);
unsigned df_pool_size(const df_pool *p);

/* Calls fn(ctx, i, worker) for every i in [0, n), spread over the pool in
 * chunks taken from a shared counter; worker in [0, df_pool_size) tells
 * which thread runs the call (index per-thread scratch with it). Returns
 * when all calls have returned. p NULL: runs on the caller alone. */
void df_pool_for(df_pool *p, size_t n, void (*fn)(void *ctx, size_t i, unsigned worker),
                 void *ctx);

#ifdef __cplusplus
}
#endif
#endif
