/* pool.c — the thread pool of pool.h. Workers sleep on a condition
 * variable until a loop is open; a loop hands out indices through an
 * atomic counter in chunks, so uneven cases (n from 0 to 2^16 in one
 * batch) balance themselves. Several loops may be open at once (batches
 * made ahead while the last one is judged): a worker takes its next chunk
 * from the newest loop that has work left, so the loop its caller waits on
 * goes first, and from the loops of work ahead (df_pool_begin_ahead) only
 * when no other has any, the oldest of them first: the batch the caller
 * will wait on next. A worker takes its loop under the pool's lock, then
 * stays on it without the lock, chunk after chunk, for as long as no loop
 * has been opened since and none that would come first waited at its gate
 * when it chose (the choice it would make again): the lock is taken about
 * once a loop a worker instead of once a chunk. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz/pool.h"

typedef struct df_loop {
    /* set when the loop opens, read by every chunk: a cache line that
     * the counter's and the lock's writes do not take away (sharing one,
     * each item's fn and ctx would miss the cache after another thread's
     * fetch_add) */
    void (*fn)(void *, size_t, unsigned);
    void *ctx;
    size_t count, chunk;
    unsigned long seq; /* opening order: the newest is served first */
    int ahead;         /* df_pool_begin_ahead's: after the others, the oldest first */
    int open;
    int (*ready)(void *); /* df_pool_begin_ahead's gate, or NULL (open) */
    void *rctx;
    _Alignas(64) atomic_size_t next; /* the next chunk's first index */
    _Alignas(64) unsigned inside;    /* threads running a chunk of it (under mu) */
    double asked;      /* when the gate was last asked (shut then) */
} df_loop;

struct df_pool {
    pthread_t *threads;
    unsigned n; /* workers including the caller */
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    int quit;
    double idle_s[2];     /* workers' seconds without work: none open, or gated only */
    double idle_all;      /* ... both, summed since the pool began */
    unsigned long picks;  /* loops chosen by the workers under mu */
    df_loop loops[DF_POOL_MAX_LOOPS];
    /* loops opened so far (written under mu), read after every chunk: a
     * line of its own, away from the lock's and the counters' */
    _Alignas(64) atomic_ulong opened;
};

typedef struct worker_arg {
    df_pool *p;
    unsigned id;
} worker_arg;

static int has_work(df_loop *l)
{
    return l->open && atomic_load(&l->next) < l->count;
}

/* How often a shut gate is asked, at most: its answer (a CUDA event's
 * query, on the cuda backend) comes under the pool's lock, which every
 * worker takes between chunks, and a generation on the GPU keeps the
 * batch ahead's gate shut for milliseconds: asked at every look for work
 * (about 10^5 times a second from 15 workers at n = 2000), the queries
 * held the lock that long and met the caller's own CUDA calls in the
 * driver. A gate that opens is seen within this much later. */
#define DF_POOL_GATE_EVERY 50e-6

/* Whether l's gate is open (asked until it is, then remembered; while
 * shut, once in DF_POOL_GATE_EVERY at most). Under mu. */
static int gate_open(df_loop *l)
{
    if (!l->ready)
        return 1;
    double now = df_now();
    if (now - l->asked < DF_POOL_GATE_EVERY)
        return 0;
    if (l->ready(l->rctx))
        l->ready = NULL;
    else
        l->asked = now;
    return l->ready == NULL;
}

/* Whether loop l is served before loop b: any loop before work ahead;
 * the newest loop first, but the oldest of the work ahead. */
static int before(const df_loop *l, const df_loop *b)
{
    if (l->ahead != b->ahead)
        return !l->ahead;
    return l->ahead ? l->seq < b->seq : l->seq > b->seq;
}

/* The first open loop, as `before` orders them, with chunks left and its
 * gate open, or NULL; *gated: some loop with chunks left waits at its
 * gate; *shut_before: one such comes before the loop chosen (it would be
 * chosen once its gate opens). Under mu. */
static df_loop *pick(df_pool *p, int *gated, int *shut_before)
{
    df_loop *best = NULL, *shut = NULL; /* shut: the first gated loop */
    for (int i = 0; i < DF_POOL_MAX_LOOPS; i++) {
        df_loop *l = &p->loops[i];
        if (!has_work(l) || (best && !before(l, best)))
            continue;
        if (gate_open(l))
            best = l;
        else if (!shut || before(l, shut))
            shut = l;
    }
    *gated = shut != NULL;
    *shut_before = shut && (!best || before(shut, best));
    return best;
}

/* Sleeps until woken, or for 20 µs when a loop waits at its gate (nobody
 * wakes the pool when a gate opens). Under mu. */
static void idle(df_pool *p, int gated)
{
    if (!gated) {
        pthread_cond_wait(&p->wake, &p->mu);
        return;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 20000;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&p->wake, &p->mu, &ts);
}

double df_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void df_pool_idle(df_pool *p, double out[2])
{
    out[0] = out[1] = 0;
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    out[0] = p->idle_s[0];
    out[1] = p->idle_s[1];
    p->idle_s[0] = p->idle_s[1] = 0;
    pthread_mutex_unlock(&p->mu);
}

double df_pool_idle_all(df_pool *p)
{
    if (!p)
        return 0;
    pthread_mutex_lock(&p->mu);
    double s = p->idle_all;
    pthread_mutex_unlock(&p->mu);
    return s;
}

unsigned long df_pool_picks(df_pool *p)
{
    if (!p)
        return 0;
    pthread_mutex_lock(&p->mu);
    unsigned long n = p->picks;
    pthread_mutex_unlock(&p->mu);
    return n;
}

/* Runs one chunk of l; returns 0 when none was left. */
static int run_chunk(df_loop *l, unsigned id)
{
    void (*fn)(void *, size_t, unsigned) = l->fn;
    void *ctx = l->ctx;
    size_t count = l->count, chunk = l->chunk;
    size_t i = atomic_fetch_add(&l->next, chunk);
    if (i >= count)
        return 0;
    size_t end = i + chunk < count ? i + chunk : count;
    for (; i < end; i++)
        fn(ctx, i, id);
    return 1;
}

/* Leaves l after a chunk (under mu): its waiter learns when it is done. */
static void leave(df_pool *p, df_loop *l)
{
    if (--l->inside == 0 && atomic_load(&l->next) >= l->count)
        pthread_cond_broadcast(&p->done);
}

static void *worker(void *v)
{
    worker_arg *a = v;
    df_pool *p = a->p;
    unsigned id = a->id;
    free(a);
    pthread_mutex_lock(&p->mu);
    for (;;) {
        df_loop *l;
        int gated, shut_before;
        while (!p->quit && !(l = pick(p, &gated, &shut_before))) {
            double t0 = df_now();
            idle(p, gated);
            double t = df_now() - t0;
            p->idle_s[gated] += t;
            p->idle_all += t;
        }
        if (p->quit)
            break;
        l->inside++;
        p->picks++;
        /* the same choice holds while no loop opens and no gate that
         * would come first was shut */
        unsigned long seen = atomic_load_explicit(&p->opened, memory_order_relaxed);
        pthread_mutex_unlock(&p->mu);
        while (run_chunk(l, id) && !shut_before &&
               atomic_load_explicit(&p->opened, memory_order_relaxed) == seen)
            ;
        pthread_mutex_lock(&p->mu);
        leave(p, l);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* a set large enough for any machine this runs on; the kernel refuses
 * (EINVAL) a set smaller than its own */
enum { MAX_CPUS = 8192 };

/* The calling thread's allowed CPUs in a set of MAX_CPUS (size in *size),
 * or NULL (out of memory, or the kernel refused). */
static cpu_set_t *allowed_cpus(size_t *size)
{
    cpu_set_t *set = CPU_ALLOC(MAX_CPUS);
    *size = CPU_ALLOC_SIZE(MAX_CPUS);
    if (set && sched_getaffinity(0, *size, set) != 0) {
        CPU_FREE(set);
        set = NULL;
    }
    return set;
}

unsigned df_usable_cpus(void)
{
    size_t size;
    cpu_set_t *set = allowed_cpus(&size);
    int n = set ? CPU_COUNT_S(size, set) : 0;
    if (set)
        CPU_FREE(set);
    if (n <= 0) { /* the online count is the best answer left */
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        n = c > 0 ? (int)c : 1;
    }
    return (unsigned)n;
}

int df_pin_part(unsigned part, unsigned parts)
{
    size_t size;
    cpu_set_t *set = part < parts ? allowed_cpus(&size) : NULL;
    cpu_set_t *mine = set ? CPU_ALLOC(MAX_CPUS) : NULL;
    int rc = -1;
    if (mine) {
        unsigned n = (unsigned)CPU_COUNT_S(size, set), each = n / parts, more = n % parts;
        /* part holds the CPUs ranked [lo, hi) among those allowed */
        unsigned lo = part * each + (part < more ? part : more);
        unsigned hi = lo + each + (part < more);
        CPU_ZERO_S(size, mine);
        for (unsigned c = 0, rank = 0; c < MAX_CPUS && rank < hi; c++)
            if (CPU_ISSET_S(c, size, set) && rank++ >= lo)
                CPU_SET_S(c, size, mine);
        if (each > 0 && sched_setaffinity(0, size, mine) == 0)
            rc = 0;
        CPU_FREE(mine);
    }
    if (set)
        CPU_FREE(set);
    return rc;
}

df_pool *df_pool_create(unsigned nthreads)
{
    if (nthreads == 0)
        nthreads = df_usable_cpus();
    /* its lines as laid out (sizeof is a multiple of the alignment) */
    df_pool *p = aligned_alloc(_Alignof(df_pool), sizeof *p);
    if (!p)
        return NULL;
    memset(p, 0, sizeof *p);
    p->n = nthreads;
    p->threads = calloc(nthreads, sizeof *p->threads);
    /* adaptive (glibc): a thread that finds the lock held spins a little
     * before it sleeps in the kernel; the lock is held for a pick among a
     * dozen loops, and a sleep and its wake-up cost far more than that */
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
#ifdef PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
    pthread_mutex_init(&p->mu, &ma);
    pthread_mutexattr_destroy(&ma);
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

static int open_loop(df_pool *p, size_t n, void (*fn)(void *ctx, size_t i, unsigned worker),
                     void *ctx, int ahead, int (*ready)(void *rctx), void *rctx, int one);

int df_pool_begin(df_pool *p, size_t n, void (*fn)(void *ctx, size_t i, unsigned worker),
                  void *ctx)
{
    return open_loop(p, n, fn, ctx, 0, NULL, NULL, 0);
}

int df_pool_begin_ahead(df_pool *p, size_t n, void (*fn)(void *ctx, size_t i, unsigned worker),
                        void *ctx, int (*ready)(void *rctx), void *rctx)
{
    return open_loop(p, n, fn, ctx, 1, ready, rctx, 1);
}

static int open_loop(df_pool *p, size_t n, void (*fn)(void *ctx, size_t i, unsigned worker),
                     void *ctx, int ahead, int (*ready)(void *rctx), void *rctx, int one)
{
    if (!p)
        return -1;
    pthread_mutex_lock(&p->mu);
    int slot = -1;
    for (int i = 0; i < DF_POOL_MAX_LOOPS && slot < 0; i++)
        if (!p->loops[i].open)
            slot = i;
    if (slot >= 0) {
        df_loop *l = &p->loops[slot];
        l->fn = fn;
        l->ctx = ctx;
        l->count = n;
        /* small chunks: cases differ in cost by orders of magnitude, and
         * a loop opened later (the one the caller waits on) gets a worker
         * only when its chunk of an older loop ends: 32 chunks a thread
         * keep that wait near a tenth of a millisecond where 8 (chunks of
         * nine prepare items of four short cases each) left the caller
         * waiting a millisecond a loop at n = 2000; work ahead goes an
         * item at a time (a prepare item is eight short cases, about 0.1
         * ms), so that a worker turns to a loop the caller waits on
         * sooner; and df_pool_for_each's loops of long items too */
        l->chunk = ahead || one ? 1 : n / (32 * (size_t)p->n) + 1;
        atomic_store(&l->next, 0);
        l->inside = 0;
        l->seq = atomic_fetch_add_explicit(&p->opened, 1, memory_order_relaxed) + 1;
        l->ahead = ahead;
        l->ready = ready;
        l->rctx = rctx;
        l->asked = -1.0; /* asked at once */
        l->open = 1;
        pthread_cond_broadcast(&p->wake);
    }
    pthread_mutex_unlock(&p->mu);
    return slot;
}

void df_pool_wait(df_pool *p, int loop)
{
    if (!p || loop < 0 || loop >= DF_POOL_MAX_LOOPS)
        return;
    df_loop *l = &p->loops[loop];
    pthread_mutex_lock(&p->mu);
    l->inside++; /* the caller takes part, as worker 0 */
    pthread_mutex_unlock(&p->mu);
    while (run_chunk(l, 0))
        ;
    pthread_mutex_lock(&p->mu);
    leave(p, l);
    while (l->inside > 0)
        pthread_cond_wait(&p->done, &p->mu);
    l->open = 0;
    pthread_mutex_unlock(&p->mu);
}

int df_pool_done(df_pool *p, int loop)
{
    if (!p || loop < 0 || loop >= DF_POOL_MAX_LOOPS)
        return 1;
    df_loop *l = &p->loops[loop];
    pthread_mutex_lock(&p->mu);
    int done = atomic_load(&l->next) >= l->count && l->inside == 0;
    pthread_mutex_unlock(&p->mu);
    return done;
}

static void pool_for(df_pool *p, size_t n, void (*fn)(void *ctx, size_t i, unsigned worker),
                     void *ctx, int one)
{
    int loop = p && p->n > 1 && n >= 2 ? open_loop(p, n, fn, ctx, 0, NULL, NULL, one) : -1;
    if (loop < 0) { /* no pool, nothing to share, or every loop slot taken */
        for (size_t i = 0; i < n; i++)
            fn(ctx, i, 0);
        return;
    }
    df_pool_wait(p, loop);
}

void df_pool_for(df_pool *p, size_t n, void (*fn)(void *ctx, size_t i, unsigned worker),
                 void *ctx)
{
    pool_for(p, n, fn, ctx, 0);
}

void df_pool_for_each(df_pool *p, size_t n, void (*fn)(void *ctx, size_t i, unsigned worker),
                      void *ctx)
{
    pool_for(p, n, fn, ctx, 1);
}
