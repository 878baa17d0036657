/* host_mem.c — the host's floor at n = 2^26, on the GPU host (no perf
 * there): how fast the host's memory feeds the CPU work a long case needs,
 * one thread alone and every thread at once. Each of T threads owns one
 * f32 case of 2^26 pairs, uniform in [-1, 1) (2 x 256 MiB, written before
 * anything is timed), and the threads start each round together (a
 * barrier). Rows:
 *   read         a pass over both vectors (an OR of their bits: the least
 *                any reader of the case moves)
 *   references   df_refs_compute (exact, Kahan, G: what the harness and the
 *                bench's bare references compute)
 *   model L      the shfl kernel's host model at launch L
 *   refs | model half the threads references, the other half the model
 *                (derived launch): the harness's mix
 * Each row: the time of one case on thread 0 alone, then the slowest
 * thread's with all T at once, and the bytes of a and b read per second
 * over all threads. Best of three rounds each.
 * Build: make host-mem (build/tools/host-mem). Usage: host-mem [T]
 * (default: every core).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz/case.h"
#include "fuzz/pcg32.h"
#include "fuzz/pool.h"
#include "kernels/kernel.h"
#include "reference/reference.h"

enum { ROUNDS = 3, MAX_T = 256 };
#define N ((uint64_t)1 << 26)

typedef enum { JOB_READ, JOB_REFS, JOB_MODEL } job_kind;

typedef struct worker {
    df_case c;
    job_kind kind;
    int active;
    double secs;
    uint32_t sink; /* the job's last word: a global the passes must write */
} worker;

static pthread_barrier_t go, done;
static worker ws[MAX_T];
static unsigned nthreads;
static volatile int quit;
static const df_kernel *shfl;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint32_t read_pass(const df_case *c)
{
    const uint32_t *a = c->a, *b = c->b;
    uint32_t x = 0;
    uint64_t i = 0;
    for (; i + 64 <= c->n; i += 64) /* runs of a constant length: vectorized at -O2 */
        for (unsigned u = 0; u < 64; u++)
            x |= a[i + u] ^ b[i + u];
    for (; i < c->n; i++)
        x |= a[i] ^ b[i];
    return x;
}

static void *thread_main(void *p)
{
    worker *w = p;
    for (;;) {
        pthread_barrier_wait(&go);
        if (quit)
            return NULL;
        if (w->active) {
            double t0 = now_s();
            if (w->kind == JOB_READ) {
                w->sink = read_pass(&w->c);
            } else if (w->kind == JOB_REFS) {
                df_refs r;
                df_refs_compute(w->c.type, w->c.a, w->c.b, w->c.n, &r);
                w->sink = (uint32_t)r.kahan;
            } else {
                df_result r;
                df_scratch s = {0};
                shfl->host_model(&w->c, &s, &r);
                df_scratch_free(&s);
                w->sink = (uint32_t)r.f;
            }
            w->secs = now_s() - t0;
        }
        pthread_barrier_wait(&done);
    }
}

/* One round: the threads in [0, active) run; returns the slowest's time. */
static double round_of(unsigned active)
{
    for (unsigned t = 0; t < nthreads; t++)
        ws[t].active = t < active;
    pthread_barrier_wait(&go);
    pthread_barrier_wait(&done);
    double worst = 0;
    for (unsigned t = 0; t < active; t++)
        if (ws[t].secs > worst)
            worst = ws[t].secs;
    return worst;
}

static double best_of(unsigned active)
{
    double best = 1e30;
    for (int r = 0; r < ROUNDS; r++) {
        double s = round_of(active);
        if (s < best)
            best = s;
    }
    return best;
}

static void set_launch(uint32_t block, uint32_t grid, uint32_t off_a, uint32_t off_b)
{
    for (unsigned t = 0; t < nthreads; t++) {
        df_launch l = {block, grid, off_a, off_b};
        char why[128];
        if (df_launch_resolve(shfl, N, &l, why, sizeof why) != 0) {
            fprintf(stderr, "host-mem: launch %ux%u: %s\n", block, grid, why);
            exit(1);
        }
        ws[t].c.launch = l;
    }
}

static void row(const char *what, job_kind kind)
{
    for (unsigned t = 0; t < nthreads; t++)
        ws[t].kind = kind;
    const double bytes = 2.0 * (double)N * sizeof(float);
    double one = best_of(1), all = best_of(nthreads);
    printf("%-30s alone %8.4f s %6.1f GB/s   %3u at once %8.4f s %6.1f GB/s (%.1f a thread)\n",
           what, one, bytes / one / 1e9, nthreads, all, nthreads * bytes / all / 1e9,
           bytes / all / 1e9);
}

/* Half the threads referencing, half modelling (derived launch) at once:
 * the slowest of each, best of ROUNDS. */
static void mix_row(void)
{
    set_launch(1024, 0, 0, 0);
    for (unsigned t = 0; t < nthreads; t++)
        ws[t].kind = t % 2 ? JOB_MODEL : JOB_REFS;
    double best_refs = 1e30, best_model = 1e30;
    for (int r = 0; r < ROUNDS; r++) {
        round_of(nthreads);
        double sr = 0, sm = 0;
        for (unsigned t = 0; t < nthreads; t++) {
            double *s = t % 2 ? &sm : &sr;
            if (ws[t].secs > *s)
                *s = ws[t].secs;
        }
        best_refs = sr < best_refs ? sr : best_refs;
        best_model = sm < best_model ? sm : best_model;
    }
    printf("%-30s %u at once: references %.4f s, model %.4f s (slowest of each)\n",
           "refs | model 1024 x 256", nthreads, best_refs, best_model);
}

int main(int argc, char **argv)
{
    long cores = (long)df_usable_cpus();
    nthreads = argc > 1 ? (unsigned)atoi(argv[1]) : (unsigned)(cores > 0 ? cores : 1);
    if (nthreads < 1 || nthreads > MAX_T) {
        fprintf(stderr, "usage: host-mem [T]   (1 <= T <= %d)\n", MAX_T);
        return 2;
    }
    shfl = df_kernel_find("shfl");
    if (!shfl) {
        fprintf(stderr, "host-mem: no shfl kernel\n");
        return 1;
    }
    pthread_barrier_init(&go, NULL, nthreads + 1);
    pthread_barrier_init(&done, NULL, nthreads + 1);
    for (unsigned t = 0; t < nthreads; t++) {
        float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
        if (!a || !b) {
            fprintf(stderr, "host-mem: out of memory for thread %u's case\n", t);
            return 1;
        }
        df_pcg32 r;
        df_pcg32_seed(&r, 42, t);
        for (uint64_t i = 0; i < N; i++) { /* uniform in [-1, 1) */
            a[i] = 2.0f * df_pcg32_float(&r) - 1.0f;
            b[i] = 2.0f * df_pcg32_float(&r) - 1.0f;
        }
        ws[t].c = (df_case){.type = DF_F32, .n = N, .a = a, .b = b};
    }
    pthread_t th[MAX_T];
    for (unsigned t = 0; t < nthreads; t++)
        pthread_create(&th[t], NULL, thread_main, &ws[t]);
    printf("host-mem: %u threads, one f32 case of 2^26 pairs each (512 MiB), best of %d\n",
           nthreads, ROUNDS);
    row("read", JOB_READ);
    row("references", JOB_REFS);
    static const struct { uint32_t block, grid, oa, ob; const char *what; } launches[] = {
        {1024, 0, 0, 0, "model 1024 x derived (256)"},
        {1024, 65535, 0, 0, "model 1024 x 65535"},
        {256, 4096, 0, 0, "model 256 x 4096"},
        {32, 1, 0, 0, "model 32 x 1"},
        {1024, 0, 1, 0, "model 1024 x 256, scalar path"},
    };
    for (size_t i = 0; i < sizeof launches / sizeof launches[0]; i++) {
        set_launch(launches[i].block, launches[i].grid, launches[i].oa, launches[i].ob);
        row(launches[i].what, JOB_MODEL);
    }
    if (nthreads >= 2) /* the mix needs a thread of each */
        mix_row();
    quit = 1;
    pthread_barrier_wait(&go);
    for (unsigned t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    return 0;
}
