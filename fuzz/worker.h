/* worker.h — the one way dotfuzz runs kernels: in a worker process under a
 * supervisor that never runs one itself. Every command that executes a
 * kernel (run with or without --out, smoke, replay, minimize, merge, hunt)
 * goes through it: a kernel may crash (any signal), hang, call exit() or
 * abort(), or poison its CUDA context, and the supervisor still knows
 * which case did it and how, saves that case, and starts another worker.
 *
 * The worker tells the supervisor what it is running through its
 * heartbeat, memory the two share: the case (or batch) it is on and when
 * it began. A worker that ends by its own decision says why in the
 * heartbeat first, so that any other end — an exit status, even 0, a
 * signal, a kill by the watchdog — is known to be the kernel's doing.
 *
 * Signals. A worker stops at its next case boundary when the supervisor
 * sets the heartbeat's stop flag, or when SIGINT or SIGTERM come from
 * another process (Ctrl-C, kill, a batch system's end of job); the same
 * signals raised by a kernel in its own process end the worker like any
 * crash. Workers die with their supervisor (PR_SET_PDEATHSIG). */
#ifndef DOTFUZZ_WORKER_H
#define DOTFUZZ_WORKER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a worker is running, in memory its supervisor shares. */
typedef struct df_heartbeat {
    volatile uint64_t index;  /* the case running, or the first of a batch */
    volatile uint64_t count;  /* cases in flight from index on (1: that case alone) */
    volatile double started;  /* CLOCK_MONOTONIC seconds (df_now) when it began */
    volatile uint64_t serial; /* cases begun: tells one case from the next */
    volatile int busy;
    volatile int leaving;     /* DF_LEAVE_* + 1 once the worker decided to end */
    volatile sig_atomic_t stop; /* asked to stop at the next case boundary */
} df_heartbeat;

/* Why a worker ends of its own accord (what its body returns). */
enum {
    DF_LEAVE_DONE = 0,        /* its work is over */
    DF_LEAVE_POISONED = 1,    /* its CUDA context is lost: a new worker is needed */
    DF_LEAVE_FAILED = 2,      /* it cannot work (backend, memory, files): said on stderr */
};

/* The work of a worker process: reads commands from in_fd, writes
 * messages to out_fd, marks its cases in hb; returns a DF_LEAVE_*. */
typedef int (*df_worker_body)(void *ctx, int in_fd, int out_fd, df_heartbeat *hb);

typedef struct df_worker {
    pid_t pid;                /* 0: not running */
    int to, from;             /* the supervisor's ends: commands to it, messages from it */
    df_heartbeat *hb;         /* shared with the process (df_worker_init) */
    uint64_t serial;          /* the case the excuse below belongs to */
    double excused;           /* seconds of that case the supervisor itself was stalled */
    int hung;                 /* the watchdog killed it */
} df_worker;

/* How a worker ended. */
typedef enum df_end_how {
    DF_END_LEFT,              /* by its own decision: DF_LEAVE_* in leave */
    DF_END_SIGNAL,            /* killed by signal sig (a crash) */
    DF_END_EXIT,              /* exit(status) without deciding to: a kernel called exit */
    DF_END_HANG,              /* killed by the watchdog after seconds */
} df_end_how;

typedef struct df_worker_end {
    df_end_how how;
    int leave;                /* DF_END_LEFT: its DF_LEAVE_* */
    int sig;                  /* DF_END_SIGNAL */
    int status;               /* DF_END_EXIT */
    int on_case;              /* it ended while a case ran: index, count say which */
    uint64_t index, count;
} df_worker_end;

/* Maps the heartbeat (one per worker slot, kept across restarts). Returns
 * 0 or -1. */
int df_worker_init(df_worker *w);
void df_worker_free(df_worker *w);

/* Forks worker id of the ws[0..n) of one supervisor: the child closes its
 * siblings' pipes (so that a worker's death is seen as the end of its own
 * pipe), sets up its signals and runs body. Returns 0, or -1 with errno. */
int df_worker_start(df_worker *ws, size_t n, size_t id, df_worker_body body, void *ctx);

/* Supervisor: kills w when its case has run for more than watchdog_s
 * seconds, not counting the time the supervisor excused (it was itself
 * stalled: df_worker_excuse). Returns 1 when it killed it. */
int df_worker_watchdog(df_worker *w, double now, double watchdog_s);
/* Supervisor: it did not look at its workers for stalled_s seconds (it was
 * blocked writing its output, or the machine was suspended); the case w
 * is on does not count that time. */
void df_worker_excuse(df_worker *w, double stalled_s);
/* Supervisor: asks w to stop at its next case boundary. */
void df_worker_stop(df_worker *w);

/* Supervisor: waits for w's process to end (its pipe has closed, or it was
 * told to stop), closes the pipes and says how it ended. */
void df_worker_reap(df_worker *w, df_worker_end *end);

/* The rule a case gets when its worker ended on it: "hang" or "crash". */
const char *df_end_rule(const df_worker_end *end);
/* One line saying how the worker ended, for a finding's why text:
 * "killed by signal 11 (Segmentation fault)", "the kernel called
 * exit(11)", "still running after the 2 s watchdog: killed". */
void df_end_text(const df_worker_end *end, double watchdog_s, char *buf, size_t len);

/* The default watchdog for work on `elements` vector elements at once (a
 * batch: its cases times the longest n): 10 s, or 50 ns an element when
 * that is longer — far above what a correct kernel, its references, model
 * and metamorphic checks take on any backend, so only a hang reaches it. */
double df_watchdog_for(uint64_t elements);
/* The same with another floor than 10 s (hunt's, where a hang found sooner
 * is the measure). */
double df_watchdog_floor(uint64_t elements, double floor_s);

/* Worker: marks count cases from index as running, from now. */
void df_worker_case_begin(df_heartbeat *hb, uint64_t index, uint64_t count);
void df_worker_case_end(df_heartbeat *hb);

/* read(2) until len bytes (EINTR retried): 0, or -1 at the end of the pipe
 * or on an error. */
int df_read_full(int fd, void *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
