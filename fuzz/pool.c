/* pool.c — the thread pool of pool.h: workers sleep on a condition
 * variable between loops; a loop hands out indices through an atomic
 * counter in chunks, so uneven cases (n from 0 to 2^16 in one batch)
 * balance themselves. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "pool.h"

struct df_pool {
    pthread_t *threads;
    unsigned n;                 /* workers including the caller */
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    unsigned long generation;   /* bumped for each loop */
    unsigned running;           /* workers still in the current loop */
    int quit;
    /* the current loop */
    void (*fn)(void *, size_t, unsigned);
    void *ctx;
    size_t count, chunk;
    atomic_size_t next;
};

typedef struct worker_arg {
    df_pool *p;
    unsigned id;
} worker_arg;

static void run_share(df_pool *p, unsigned id)
{
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, p->chunk);
        if (i >= p->count)
            return;
        size_t end = i + p->chunk < p->count ? i + p->chunk : p->count;
        for (; i < end; i++)
            p->fn(p->ctx, i, id);
    }
}

static void *worker(void *v)
{
    worker_arg *a = v;
    df_pool *p = a->p;
    unsigned id = a->id;
    free(a);
    unsigned long seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->quit && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->mu);
        if (p->quit)
            break;
        seen = p->generation;
        pthread_mutex_unlock(&p->mu);
        run_share(p, id);
        pthread_mutex_lock(&p->mu);
        if (--p->running == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

df_pool *df_pool_create(unsigned nthreads)
{
    if (nthreads == 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        nthreads = c > 0 ? (unsigned)c : 1;
    }
    df_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->n = nthreads;
    p->threads = calloc(nthreads, sizeof *p->threads);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    if (!p->threads) {
        df_pool_destroy(p);
        return NULL;
    }
    for (unsigned i = 1; i < nthreads; i++) {
        worker_arg *a = malloc(sizeof *a);
        if (!a || (*a = (worker_arg){p, i}, pthread_create(&p->threads[i], NULL, worker, a))) {
            free(a);
            p->n = i; /* the ones started so far */
            df_pool_destroy(p);
            return NULL;
        }
    }
    return p;
}

void df_pool_destroy(df_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (unsigned i = 1; i < p->n && p->threads; i++)
        pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    free(p->threads);
    free(p);
}

unsigned df_pool_size(const df_pool *p) { return p ? p->n : 1; }

void df_pool_for(df_pool *p, size_t n, void (*fn)(void *ctx, size_t i, unsigned worker),
                 void *ctx)
{
    if (!p || p->n == 1 || n < 2) {
        for (size_t i = 0; i < n; i++)
            fn(ctx, i, 0);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->count = n;
    /* small chunks: cases differ in cost by orders of magnitude */
    p->chunk = n / (8 * (size_t)p->n) + 1;
    atomic_store(&p->next, 0);
    p->running = p->n - 1;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    run_share(p, 0);
    pthread_mutex_lock(&p->mu);
    while (p->running > 0)
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}
