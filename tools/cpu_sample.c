/* tools/cpu_sample.c: a CPU sampling profiler for the GPU host, where there
 * is no perf. Built as a shared library and preloaded:
 *
 *   DOTFUZZ_SAMPLE=FILE LD_PRELOAD=build/tools/libcpusample.so dotfuzz bench ...
 *
 * Every DOTFUZZ_SAMPLE_US microseconds of a thread's CPU time (default 1000;
 * a CPU-time timer of each thread's own, made for the threads it starts by
 * wrapping pthread_create; the kernel checks them at its ticks) the thread
 * records the wall time (CLOCK_REALTIME, to be
 * matched with timestamped output), its thread id, the interrupted
 * instruction and up to DF_SAMPLE_DEPTH return addresses above it. At exit
 * (exit or _exit; also when a write into a closed pipe or a SIGTERM ends
 * the process) FILE gets the samples as text after the process's
 * /proc/self/maps. A child process (dotfuzz runs its kernels in worker
 * processes) samples on its own and writes FILE.<its pid>, when it took
 * any samples:
 *
 *   maps lines ... then a line "samples N"
 *   T_NS TID PC RET1 RET2 ...     (hexadecimal addresses)
 *
 * scripts/cpu-profile.py symbolizes them against the binary (addr2line) and
 * sums them by function, over a window of time if asked. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <execinfo.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#define DF_SAMPLE_DEPTH 6

typedef struct sample {
    int64_t t_ns;
    int32_t tid, depth;
    uintptr_t pc[DF_SAMPLE_DEPTH + 1];
} sample;

static sample *samples;
static size_t cap;
static atomic_size_t taken;
static const char *out_path;
static char child_path[4200];
static int is_child;
static long period_us;

static void on_prof(int sig, siginfo_t *si, void *ucv)
{
    (void)sig;
    (void)si;
    int saved = errno;
    size_t i = atomic_fetch_add_explicit(&taken, 1, memory_order_relaxed);
    if (i < cap) {
        sample *s = &samples[i];
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        s->t_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
        s->tid = (int32_t)syscall(SYS_gettid);
        s->pc[0] = (uintptr_t)((ucontext_t *)ucv)->uc_mcontext.gregs[REG_RIP];
        /* bt[0] is this handler, bt[1] the signal trampoline, bt[2] the
         * interrupted instruction, then its callers */
        void *bt[DF_SAMPLE_DEPTH + 3];
        int k = backtrace(bt, DF_SAMPLE_DEPTH + 3);
        int d = 0;
        for (int j = 3; j < k && d < DF_SAMPLE_DEPTH; j++)
            s->pc[1 + d++] = (uintptr_t)bt[j];
        s->depth = d;
    }
    errno = saved;
}

static void write_out(void)
{
    /* later signals find the count past the end and record nothing; the
     * few in flight finish meanwhile */
    size_t n = atomic_exchange(&taken, SIZE_MAX / 2);
    if (n >= SIZE_MAX / 2)
        return; /* written already */
    if (is_child && n == 0)
        return; /* a child that did no work of its own */
    nanosleep(&(struct timespec){0, 20000000}, NULL);
    FILE *f = fopen(out_path, "w");
    if (!f) {
        fprintf(stderr, "cpu_sample: cannot write %s: %s\n", out_path, strerror(errno));
        return;
    }
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    while (maps && fgets(line, sizeof line, maps))
        fputs(line, f);
    if (maps)
        fclose(maps);
    size_t kept = n > cap ? cap : n;
    fprintf(f, "samples %zu\n", kept);
    for (size_t i = 0; i < kept; i++) {
        fprintf(f, "%lld %d", (long long)samples[i].t_ns, samples[i].tid);
        for (int j = 0; j <= samples[i].depth; j++)
            fprintf(f, " %lx", (unsigned long)samples[i].pc[j]);
        fputc('\n', f);
    }
    if (fclose(f) != 0)
        fprintf(stderr, "cpu_sample: cannot write %s\n", out_path);
    else if (n > cap)
        fprintf(stderr, "cpu_sample: %zu samples kept of %zu\n", cap, n);
}

/* a write into a closed pipe (its reader, `head` or `awk ... exit`, took
 * what it wanted) or a SIGTERM (`timeout`, `kill`) ends the process
 * without its atexit handlers: the samples are written first */
static void on_end(int sig)
{
    write_out();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* a CPU-time timer of the calling thread's own, its signal to that thread */
static void start_thread_timer(void)
{
    struct sigevent sev = {0};
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIGPROF;
    sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    timer_t t;
    struct itimerspec it = {{0, period_us * 1000}, {0, period_us * 1000}};
    if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &t) != 0 ||
        timer_settime(t, 0, &it, NULL) != 0)
        fprintf(stderr, "cpu_sample: cannot start a thread's timer: %s\n", strerror(errno));
}

typedef struct start_arg {
    void *(*fn)(void *);
    void *arg;
} start_arg;

static void *thread_start(void *p)
{
    start_arg a = *(start_arg *)p;
    free(p);
    start_thread_timer();
    return a.fn(a.arg);
}

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    static create_fn real;
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "pthread_create");
    start_arg *a = samples ? malloc(sizeof *a) : NULL;
    if (!a)
        return real(t, attr, fn, arg);
    *a = (start_arg){fn, arg};
    int rc = real(t, attr, thread_start, a);
    if (rc != 0)
        free(a);
    return rc;
}

/* _exit skips the atexit handlers: the samples are written first (a
 * worker process ends with _exit) */
void _exit(int status)
{
    typedef void (*exit_fn)(int);
    static exit_fn real;
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "_exit");
    if (samples)
        write_out();
    real(status);
    __builtin_unreachable();
}

/* a forked child: its own samples from now on, into FILE.<pid>, its main
 * thread timed again (timers are not inherited) */
static void in_child(void)
{
    snprintf(child_path, sizeof child_path, "%s.%ld", getenv("DOTFUZZ_SAMPLE"),
             (long)getpid());
    out_path = child_path;
    is_child = 1;
    atomic_store(&taken, 0);
    start_thread_timer();
}

__attribute__((constructor)) static void start(void)
{
    out_path = getenv("DOTFUZZ_SAMPLE");
    if (!out_path || !*out_path)
        return;
    const char *us = getenv("DOTFUZZ_SAMPLE_US");
    period_us = us ? strtol(us, NULL, 10) : 1000;
    if (period_us < 50 || period_us > 999999)
        period_us = 1000;
    cap = 2u << 20;
    void *warm[4];
    backtrace(warm, 4); /* loads the unwinder before any signal needs it */
    struct sigaction sa = {0};
    sa.sa_sigaction = on_prof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPROF, &sa, NULL) != 0) {
        fprintf(stderr, "cpu_sample: cannot catch SIGPROF: %s\n", strerror(errno));
        return;
    }
    samples = calloc(cap, sizeof *samples);
    if (!samples) {
        fprintf(stderr, "cpu_sample: out of memory\n");
        return;
    }
    start_thread_timer();
    pthread_atfork(NULL, NULL, in_child);
    atexit(write_out);
    signal(SIGPIPE, on_end);
    signal(SIGTERM, on_end);
}
