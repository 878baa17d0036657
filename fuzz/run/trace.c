/* trace.c — the engine's timeline (trace.h). */
#include "fuzz/run/trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct trace_event {
    double t0, t1;
    uint64_t index;
    uint32_t thread, kind;
} trace_event;

static trace_event *events;   /* DF_TRACE_MAX of them while on */
static uint64_t taken;        /* events so far: the last DF_TRACE_MAX kept, a ring */
static char path[4096];
static int on;

static const char *const kind_names[DF_TR_KINDS] = {
    "generate", "refs", "model", "judge", "wait", "prepare", "gpu", "finish", "record", "next",
    "range",
};

/* The file's name: the variable's, each %p the process id (a campaign's
 * workers are processes of their own). Returns 0, or -1 when too long. */
static int trace_path(const char *p)
{
    char pid[24];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    size_t at = 0;
    for (; *p; p++) {
        const char *put = p[0] == '%' && p[1] == 'p' ? pid : NULL;
        size_t len = put ? strlen(put) : 1;
        if (at + len >= sizeof path)
            return -1;
        memcpy(path + at, put ? put : p, len);
        at += len;
        p += put != NULL;
    }
    path[at] = '\0';
    return 0;
}

int df_trace_init(void)
{
    const char *p = getenv(DF_TRACE_ENV);
    if (on || !p || !*p)
        return 0;
    if (trace_path(p) != 0) {
        fprintf(stderr, "dotfuzz: %s is too long a path; not tracing\n", DF_TRACE_ENV);
        return -1;
    }
    events = malloc(DF_TRACE_MAX * sizeof *events);
    if (!events) {
        fprintf(stderr, "dotfuzz: no memory for %s's events; not tracing\n", DF_TRACE_ENV);
        return -1;
    }
    __atomic_store_n(&taken, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&on, 1, __ATOMIC_RELEASE);
    return 0;
}

int df_trace_on(void) { return __atomic_load_n(&on, __ATOMIC_RELAXED); }

void df_trace_event(unsigned kind, uint32_t thread, uint64_t index, double t0, double t1)
{
    uint64_t i = __atomic_fetch_add(&taken, 1, __ATOMIC_RELAXED);
    events[i % DF_TRACE_MAX] = (trace_event){t0, t1, index, thread, kind};
}

int df_trace_write(void)
{
    if (!df_trace_on())
        return 0;
    uint64_t n = __atomic_load_n(&taken, __ATOMIC_RELAXED);
    uint64_t kept = n < DF_TRACE_MAX ? n : DF_TRACE_MAX;
    uint64_t first = n - kept; /* the oldest kept, in the ring */
    double base = 0;
    for (uint64_t i = 0; i < kept; i++)
        if (i == 0 || events[i].t0 < base)
            base = events[i].t0;
    FILE *f = fopen(path, "w");
    int rc = f ? 0 : -1;
    if (f) {
        fprintf(f, "thread\tkind\tindex\tstart\tend\n");
        for (uint64_t i = first; i < n; i++) {
            const trace_event *ev = &events[i % DF_TRACE_MAX];
            if (ev->thread == DF_TRACE_CALLER)
                fprintf(f, "caller");
            else
                fprintf(f, "%u", ev->thread);
            fprintf(f, "\t%s\t%llu\t%.6f\t%.6f\n",
                    ev->kind < DF_TR_KINDS ? kind_names[ev->kind] : "?",
                    (unsigned long long)ev->index, ev->t0 - base, ev->t1 - base);
        }
        if (fclose(f) != 0)
            rc = -1;
    }
    if (rc != 0)
        fprintf(stderr, "dotfuzz: could not write the trace to %s: %s\n", path, strerror(errno));
    else if (n > kept)
        fprintf(stderr, "dotfuzz: trace %s: the last %llu events, %llu before them dropped\n",
                path, (unsigned long long)kept, (unsigned long long)(n - kept));
    return rc;
}
