/* refs_cache.c — what the first read of a case's data from memory costs
 * the references, on T threads at once (perf does not run on the GPU
 * host). Each thread generates its own 2048 cases of the
 * shfl kernel at n = 2000 (the bench's mix of families) and, after
 * evicting its caches by writing 64 MiB, times per case:
 *   cold      df_refs_compute_many over groups of G cases, then the host
 *             model of each (as a prepare item does);
 *   in L2     the same groups' references right after a pass that read
 *             their data (so the group sits in L2).
 * It prints the per-thread means of the last of three rounds.
 * Build: make refs-cache (build/tools/refs-cache).
 * Usage: refs-cache [T [G]]   (defaults 1 and 16) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz/gen/generator.h"
#include "reference/reference.h"

enum { CASES = 2048, ROUNDS = 3 };
#define EVICT ((size_t)64 << 20)

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct worker {
    unsigned id, group;
    double cold, model, warm; /* us a case */
    int failed;
} worker;

static pthread_barrier_t start;
static volatile uint32_t sink; /* keeps touch() */

/* Reads every element of c (a pass the compiler cannot drop). */
static uint32_t touch(const df_case *c)
{
    const uint32_t *a = c->a, *b = c->b;
    uint32_t x = 0;
    for (uint64_t i = 0; i < c->n; i++)
        x |= a[i] ^ b[i];
    return x;
}

static void *run(void *p)
{
    worker *w = p;
    const df_kernel *k = df_kernel_find("shfl");
    df_gen_opts o = {.max_n = 2000, .family = 0, .fixed_n = 2000};
    df_case *cs = calloc(CASES, sizeof *cs);
    df_result *r = calloc(CASES, sizeof *r);
    df_refs *out = calloc(CASES, sizeof *out);
    df_refs_job *jobs = calloc(CASES, sizeof *jobs);
    df_scratch *buf = calloc(CASES, sizeof *buf);
    char *ev = malloc(EVICT);
    w->failed = !k || !cs || !r || !out || !jobs || !buf || !ev;
    for (unsigned i = 0; !w->failed && i < CASES; i++) {
        w->failed = df_generate(7, (uint64_t)w->id * CASES + i, k, &o, &buf[i], &cs[i]) != 0;
        jobs[i] = (df_refs_job){cs[i].type, cs[i].a, cs[i].b, cs[i].n, &out[i]};
    }
    df_scratch sc = {0};
    for (int round = 0; round < ROUNDS; round++) {
        pthread_barrier_wait(&start);
        if (w->failed)
            continue;
        memset(ev, round + 1, EVICT);
        double tr = 0, tm = 0, tw = 0;
        for (unsigned g = 0; g < CASES; g += w->group) {
            double t0 = now_s();
            df_refs_compute_many(jobs + g, w->group);
            double t1 = now_s();
            for (unsigned i = g; i < g + w->group; i++)
                k->host_model(&cs[i], &sc, &r[i]);
            tm += now_s() - t1;
            tr += t1 - t0;
        }
        memset(ev, round + 2, EVICT);
        for (unsigned g = 0; g < CASES; g += w->group) {
            for (unsigned i = g; i < g + w->group; i++)
                sink |= touch(&cs[i]);
            double t0 = now_s();
            df_refs_compute_many(jobs + g, w->group);
            tw += now_s() - t0;
        }
        w->cold = tr / CASES * 1e6, w->model = tm / CASES * 1e6, w->warm = tw / CASES * 1e6;
    }
    for (unsigned i = 0; buf && i < CASES; i++)
        df_scratch_free(&buf[i]);
    df_scratch_free(&sc);
    free(cs), free(r), free(out), free(jobs), free(buf), free(ev);
    return NULL;
}

int main(int argc, char **argv)
{
    unsigned T = argc > 1 ? (unsigned)atoi(argv[1]) : 1, G = argc > 2 ? (unsigned)atoi(argv[2]) : 16;
    if (T < 1 || T > 256 || G < 1 || CASES % G != 0) {
        fprintf(stderr, "usage: refs-cache [THREADS 1..256 [GROUP dividing %d]]\n", CASES);
        return 2;
    }
    worker *w = calloc(T, sizeof *w);
    pthread_t *th = calloc(T, sizeof *th);
    if (!w || !th || pthread_barrier_init(&start, NULL, T) != 0)
        return 3;
    for (unsigned i = 0; i < T; i++) {
        w[i] = (worker){.id = i, .group = G};
        if (pthread_create(&th[i], NULL, run, &w[i]) != 0)
            return 3;
    }
    double cold = 0, model = 0, warm = 0;
    int failed = 0;
    for (unsigned i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        cold += w[i].cold, model += w[i].model, warm += w[i].warm;
        failed |= w[i].failed;
    }
    if (failed) {
        fprintf(stderr, "refs-cache: out of memory or no shfl kernel\n");
        return 3;
    }
    printf("threads %u, groups of %u, us a case: references %.3f (data from memory), "
           "model after them %.3f, references with the group just read (in L2) %.3f\n",
           T, G, cold / T, model / T, warm / T);
    free(w), free(th);
    return 0;
}
