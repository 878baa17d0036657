/* sandbox.c — single-case checks in a worker process (sandbox.h).
 *
 * The worker opens the backend, answers with a hello (the backend's name,
 * its note, which kernels it runs), then serves requests: a request is
 * the kernel, the options, the case and its two vectors, or word that they
 * lie in the room (room.h, where df_sandbox_generate makes them); the
 * answer is the judged case. The kernel pointer is the supervisor's own:
 * the worker is its fork, so the registry (plugins included) is the same. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz/util.h"
#include "fuzz/files.h"
#include "fuzz/long_case.h"
#include "fuzz/pool.h"
#include "fuzz/run/room.h"
#include "fuzz/run/sandbox.h"
#include "fuzz/worker.h"

/* Every kernel the registry holds, in one order both processes share: the
 * built-ins, the mutants, the plugins'. */
static size_t all_count(void) { return df_kernel_count() + df_mutant_count() + df_plugin_count(); }

static const df_kernel *all_at(size_t i)
{
    size_t nb = df_kernel_count(), nm = df_mutant_count();
    return i < nb ? df_kernel_at(i) : i < nb + nm ? df_mutant_at(i - nb)
                                                  : df_plugin_at(i - nb - nm);
}

typedef struct hello {
    int32_t ok;               /* 0: the backend opened; else df_outcome */
    char name[16];
    char note[512];           /* the note, or the reason it did not open */
} hello;

/* The answer: the judged case, and whether the worker leaves after it
 * (its CUDA context was lost: the next case needs a new worker). */
typedef struct answer {
    int32_t leaving;
    df_checked r;
} answer;

typedef struct request {
    const df_kernel *k;
    df_oracle_opts oo;
    df_meta_opts mo;
    int32_t in_room;          /* the vectors lie in the room, a then b */
    df_case c;                /* else its vectors follow: n elements each */
} request;

struct df_sandbox {
    char cmd[32];
    char backend_name[16];    /* asked for */
    int debug_invariants;
    double watchdog_s, last_watchdog;
    double floor_s; /* the by-size watchdog's floor (df_watchdog_floor) */
    hello h;
    unsigned char *runs;      /* all_count() flags: the backend runs kernel i */
    df_worker w;
    int started;              /* the hello has been read once */
    df_room room;             /* the vectors df_sandbox_generate makes */
    df_pool *pool;            /* the threads that make a long case there and
                                 reference one its worker ended on */
};

/* ---- in the worker ---- */

static int send_hello(int fd, const hello *h, df_backend *b)
{
    size_t n = all_count();
    unsigned char *runs = calloc(n ? n : 1, 1);
    if (!runs)
        return -1;
    for (size_t i = 0; b && i < n; i++)
        runs[i] = (unsigned char)df_backend_supports(b, all_at(i));
    int rc = df_write_all(fd, h, sizeof *h) || df_write_all(fd, runs, n);
    free(runs);
    return rc ? -1 : 0;
}

static int sandbox_body(void *ctx, int in, int out, df_heartbeat *hb)
{
    df_sandbox *sb = ctx;
    hello h = {0};
    df_backend *b = NULL;
    char err[256];
    if (df_backend_open(sb->backend_name, &b, err, sizeof err) != 0) {
        h.ok = strncmp(err, "unknown backend", 15) == 0 ? DF_OUTCOME_USAGE : DF_OUTCOME_ENV;
        snprintf(h.note, sizeof h.note, "%s", err);
        send_hello(out, &h, NULL);
        return DF_LEAVE_DONE;
    }
    df_backend_set_debug_invariants(b, sb->debug_invariants);
    snprintf(h.name, sizeof h.name, "%s", df_backend_name(b));
    snprintf(h.note, sizeof h.note, "%s", df_backend_note(b));
    if (send_hello(out, &h, b) != 0) {
        df_backend_close(b);
        return DF_LEAVE_FAILED;
    }
    df_scratch vecs = {0}, meta = {0};
    df_pool *pool = NULL; /* every usable CPU, from the first long case on */
    df_room room = sb->room; /* the descriptor; the mapping is the command's to write */
    df_room_unmap(&room);
    int leave = DF_LEAVE_DONE;
    request rq;
    while (df_read_full(in, &rq, sizeof rq) == 0) {
        size_t bytes = (size_t)rq.c.n * df_type_size(rq.c.type);
        const unsigned char *v = rq.in_room ? df_room_view(&room, 2 * bytes)
                                            : df_scratch_reserve(&vecs, 2 * bytes + 1);
        if (!v || (!rq.in_room && df_read_full(in, (void *)v, 2 * bytes) != 0)) {
            leave = DF_LEAVE_FAILED;
            break;
        }
        rq.c.a = v;
        rq.c.b = (const char *)v + bytes;
        if (!pool && df_refs_chunks(rq.c.n) && (pool = df_pool_create(0)) != NULL)
            df_backend_set_pool(b, pool); /* the model beside a long case's run */
        answer a;
        df_worker_case_begin(hb, rq.c.index, 1);
        int dead = df_check_case_meta(b, pool, rq.k, &rq.c, &rq.oo, &rq.mo, &meta, &a.r) != 0;
        df_worker_case_end(hb);
        a.leaving = dead;
        if (df_write_all(out, &a, sizeof a) != 0) {
            leave = DF_LEAVE_FAILED;
            break;
        }
        if (dead) {
            leave = DF_LEAVE_POISONED; /* judged; a new worker takes the next case */
            break;
        }
    }
    df_scratch_free(&vecs);
    df_scratch_free(&meta);
    df_room_unmap(&room);
    df_backend_set_pool(b, NULL);
    df_pool_destroy(pool);
    if (leave != DF_LEAVE_POISONED) /* a poisoned context may hang on teardown */
        df_backend_close(b);
    return leave;
}

/* ---- in the command's process ---- */

/* Starts a worker and reads its hello. Returns 0, or -1 (said). */
static int start(df_sandbox *sb)
{
    if (df_worker_start(&sb->w, 1, 0, sandbox_body, sb) != 0) {
        fprintf(stderr, "dotfuzz %s: cannot start a worker process: %s\n", sb->cmd,
                strerror(errno));
        return -1;
    }
    size_t n = all_count();
    hello h;
    if (df_read_full(sb->w.from, &h, sizeof h) != 0 ||
        df_read_full(sb->w.from, sb->runs, n) != 0) {
        df_worker_end end;
        df_worker_reap(&sb->w, &end);
        char how[200];
        df_end_text(&end, 0, how, sizeof how);
        fprintf(stderr, "dotfuzz %s: the worker ended opening backend %s: %s\n", sb->cmd,
                sb->backend_name, how);
        return -1;
    }
    if (!sb->started) {
        sb->h = h;
        sb->started = 1;
    }
    return 0;
}

df_outcome df_sandbox_open(const char *cmd, const char *name, int debug_invariants,
                           double watchdog_s, df_sandbox **out)
{
    df_sandbox *sb = calloc(1, sizeof *sb);
    size_t n = all_count();
    if (!sb || !(sb->runs = calloc(n ? n : 1, 1)) || df_worker_init(&sb->w) != 0) {
        fprintf(stderr, "dotfuzz %s: out of memory\n", cmd);
        if (sb)
            free(sb->runs);
        free(sb);
        return DF_OUTCOME_ENV;
    }
    df_room_init(&sb->room); /* before the worker's fork, which keeps its descriptor */
    snprintf(sb->cmd, sizeof sb->cmd, "%s", cmd);
    snprintf(sb->backend_name, sizeof sb->backend_name, "%s", name);
    sb->debug_invariants = debug_invariants;
    sb->watchdog_s = watchdog_s;
    sb->floor_s = 10;
    if (start(sb) != 0) {
        df_sandbox_close(sb);
        return DF_OUTCOME_ENV;
    }
    if (sb->h.ok != 0) {
        fprintf(stderr, "dotfuzz %s: %s\n", cmd, sb->h.note);
        df_outcome o = (df_outcome)sb->h.ok;
        df_sandbox_close(sb);
        return o;
    }
    *out = sb;
    return DF_OUTCOME_CLEAN;
}

void df_sandbox_close(df_sandbox *sb)
{
    if (!sb)
        return;
    if (sb->w.pid > 0) {
        df_worker_end end;
        close(sb->w.to); /* the end of its requests: it closes its backend and leaves */
        sb->w.to = -1;
        df_worker_reap(&sb->w, &end);
    }
    df_worker_free(&sb->w);
    df_room_free(&sb->room);
    df_pool_destroy(sb->pool);
    free(sb->runs);
    free(sb);
}

const char *df_sandbox_backend(const df_sandbox *sb) { return sb->h.name; }
const char *df_sandbox_note(const df_sandbox *sb) { return sb->h.note; }
double df_sandbox_watchdog(const df_sandbox *sb) { return sb->last_watchdog; }

void df_sandbox_set_watchdog_floor(df_sandbox *sb, double floor_s) { sb->floor_s = floor_s; }

int df_sandbox_supports(const df_sandbox *sb, const df_kernel *k)
{
    for (size_t i = 0, n = all_count(); i < n; i++)
        if (all_at(i) == k)
            return sb->runs[i];
    return 0;
}

int df_sandbox_generate(df_sandbox *sb, uint64_t seed, uint64_t index, const df_kernel *k,
                        const df_gen_opts *o, df_scratch *buf, df_case *out)
{
    df_pcg32 values;
    if (df_generate_shape(seed, index, k, o, out, &values) != 0)
        return -1;
    size_t bytes = (size_t)out->n * df_type_size(out->type);
    unsigned char *v = df_room_reserve(&sb->room, 2 * bytes);
    if (!v && !(v = df_scratch_reserve(buf, 2 * bytes + 1)))
        return -1;
    out->a = v;
    out->b = v + bytes;
    if (!sb->pool && df_gen_chunks(out->n))
        sb->pool = df_pool_create(0);
    return df_fill_values_pool(sb->pool, out, &values);
}

/* Waits for the answer to a request, watching the case's time (a worker
 * the watchdog kills closes its pipe); 0 with out filled, or -1 when the
 * worker ended (*end says how). */
static int await(df_sandbox *sb, double watchdog_s, df_checked *out, df_worker_end *end)
{
    for (;;) {
        struct pollfd pf = {.fd = sb->w.from, .events = POLLIN};
        int r = poll(&pf, 1, 100);
        if (r > 0) {
            answer a;
            if (df_read_full(sb->w.from, &a, sizeof a) != 0)
                break;
            *out = a.r;
            if (a.leaving)
                df_worker_reap(&sb->w, end);
            return 0;
        }
        if (r < 0 && errno != EINTR)
            break;
        df_worker_watchdog(&sb->w, df_now(), watchdog_s);
    }
    df_worker_reap(&sb->w, end);
    return -1;
}

/* Writes a request to the worker; a worker that is gone gives -1, not a
 * SIGPIPE that would end this process. */
static int send_request(df_sandbox *sb, const request *rq, const df_case *c, size_t bytes)
{
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    int rc = df_write_all(sb->w.to, rq, sizeof *rq) || df_write_all(sb->w.to, c->a, bytes) ||
             df_write_all(sb->w.to, c->b, bytes);
    if (rc) {
        struct timespec zero = {0, 0};
        sigtimedwait(&pipe_set, NULL, &zero); /* the pending SIGPIPE, if any */
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc ? -1 : 0;
}

int df_sandbox_check(df_sandbox *sb, const df_kernel *k, const df_case *c,
                     const df_oracle_opts *oo, const df_meta_opts *mo, df_checked *out)
{
    if (sb->w.pid <= 0 && start(sb) != 0)
        return -1;
    double watchdog =
        sb->watchdog_s > 0 ? sb->watchdog_s : df_watchdog_floor(8 * c->n, sb->floor_s);
    sb->last_watchdog = watchdog;
    size_t bytes = (size_t)c->n * df_type_size(c->type);
    const unsigned char *room = sb->room.p;
    request rq = {.k = k, .oo = *oo, .mo = *mo, .c = *c,
                  .in_room = room && c->a == room && c->b == room + bytes};
    rq.c.a = rq.c.b = NULL;
    if (rq.in_room)
        bytes = 0; /* nothing to send */
    df_worker_end end;
    if (send_request(sb, &rq, c, bytes) != 0) {
        /* it ended between cases (killed from outside): another takes it */
        df_worker_reap(&sb->w, &end);
        if (start(sb) != 0 || send_request(sb, &rq, c, bytes) != 0) {
            fprintf(stderr, "dotfuzz %s: no worker process takes the case\n", sb->cmd);
            return -1;
        }
    }
    if (await(sb, watchdog, out, &end) == 0)
        return 0;
    if (!end.on_case) {
        char how[200];
        df_end_text(&end, watchdog, how, sizeof how);
        fprintf(stderr, "dotfuzz %s: the worker ended outside the case (%s)\n", sb->cmd, how);
        return -1;
    }
    char why[200];
    df_end_text(&end, watchdog, why, sizeof why);
    if (!sb->pool && df_refs_chunks(c->n))
        sb->pool = df_pool_create(0);
    df_check_failed(sb->pool, k, c, df_end_rule(&end), why, out);
    return 0;
}
