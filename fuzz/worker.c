/* worker.c — worker processes under a supervisor (worker.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz/pool.h"
#include "fuzz/worker.h"

int df_worker_init(df_worker *w)
{
    memset(w, 0, sizeof *w);
    w->to = w->from = -1;
    void *p = mmap(NULL, sizeof *w->hb, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                   -1, 0);
    if (p == MAP_FAILED)
        return -1;
    w->hb = p;
    return 0;
}

void df_worker_free(df_worker *w)
{
    if (w->hb)
        munmap((void *)w->hb, sizeof *w->hb);
    w->hb = NULL;
}

double df_watchdog_floor(uint64_t elements, double floor_s)
{
    double s = 50e-9 * (double)elements;
    return s > floor_s ? s : floor_s;
}

double df_watchdog_for(uint64_t elements) { return df_watchdog_floor(elements, 10); }

/* ---- in the worker ---- */

/* The heartbeat of this process, for its signal handler. */
static df_heartbeat *own_hb;

/* SIGINT/SIGTERM: from another process (Ctrl-C, kill, a batch system), a
 * request to stop at the next case; raised by this process itself (a
 * kernel's raise or kill(getpid())), its end, as the signal would be. */
static void on_stop_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (si->si_code <= 0 && si->si_pid == getpid()) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    if (own_hb)
        own_hb->stop = 1;
}

/* exit() called in a worker (by a kernel: the worker itself ends with
 * _exit) ends it at once with that status: the handlers and destructors
 * registered before the fork would run while the worker's other threads
 * still use what they free, and turn an exit(11) into an abort. */
static void exit_now(int status, void *arg)
{
    (void)arg;
    _exit(status);
}

static void worker_signals(df_heartbeat *hb)
{
    on_exit(exit_now, NULL);
    own_hb = hb;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_stop_signal;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* whatever else the supervisor had set up is its own */
    static const int dfl[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM};
    for (size_t i = 0; i < sizeof dfl / sizeof dfl[0]; i++)
        signal(dfl[i], SIG_DFL);
}

void df_worker_case_begin(df_heartbeat *hb, uint64_t index, uint64_t count)
{
    hb->index = index;
    hb->count = count;
    hb->started = df_now();
    hb->serial = hb->serial + 1;
    __atomic_thread_fence(__ATOMIC_RELEASE);
    hb->busy = 1;
}

void df_worker_case_end(df_heartbeat *hb) { hb->busy = 0; }

int df_read_full(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len) {
        ssize_t r = read(fd, p, len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        len -= (size_t)r;
    }
    return 0;
}

int df_worker_start(df_worker *ws, size_t n, size_t id, df_worker_body body, void *ctx)
{
    df_worker *w = &ws[id];
    int cmd[2], msg[2];
    if (pipe2(cmd, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(msg, O_CLOEXEC) != 0) {
        close(cmd[0]);
        close(cmd[1]);
        return -1;
    }
    *w->hb = (df_heartbeat){0};
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int saved = errno;
        close(cmd[0]), close(cmd[1]), close(msg[0]), close(msg[1]);
        errno = saved;
        return -1;
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        worker_signals(w->hb);
        close(cmd[1]);
        close(msg[0]);
        for (size_t i = 0; i < n; i++)
            if (i != id && ws[i].pid > 0) {
                close(ws[i].to);
                close(ws[i].from);
            }
        int leave = body(ctx, cmd[0], msg[1], w->hb);
        w->hb->leaving = leave + 1;
        _exit(0);
    }
    close(cmd[0]);
    close(msg[1]);
    w->pid = pid;
    w->to = cmd[1];
    w->from = msg[0];
    w->hung = 0;
    w->serial = 0;
    w->excused = 0;
    return 0;
}

/* ---- in the supervisor ---- */

/* The excuse belongs to one case: a new case starts with none. */
static void follow_case(df_worker *w)
{
    uint64_t s = w->hb->serial;
    if (s != w->serial) {
        w->serial = s;
        w->excused = 0;
    }
}

void df_worker_excuse(df_worker *w, double stalled_s)
{
    if (w->pid <= 0 || !w->hb->busy)
        return;
    follow_case(w);
    w->excused += stalled_s;
}

int df_worker_watchdog(df_worker *w, double now, double watchdog_s)
{
    if (w->pid <= 0 || w->hung || !w->hb->busy)
        return 0;
    follow_case(w);
    if (now - w->hb->started - w->excused <= watchdog_s)
        return 0;
    w->hung = 1;
    kill(w->pid, SIGKILL);
    return 1;
}

void df_worker_stop(df_worker *w)
{
    if (w->pid > 0)
        w->hb->stop = 1;
}

void df_worker_reap(df_worker *w, df_worker_end *end)
{
    int st = 0;
    memset(end, 0, sizeof *end);
    while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (w->to >= 0)
        close(w->to);
    if (w->from >= 0)
        close(w->from);
    w->to = w->from = -1;
    w->pid = 0;
    df_heartbeat *hb = w->hb;
    end->on_case = hb->busy;
    end->index = hb->index;
    end->count = hb->count;
    if (w->hung) {
        end->how = DF_END_HANG;
    } else if (hb->leaving && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        end->how = DF_END_LEFT;
        end->leave = hb->leaving - 1;
        end->on_case = 0;
    } else if (WIFSIGNALED(st)) {
        end->how = DF_END_SIGNAL;
        end->sig = WTERMSIG(st);
    } else {
        end->how = DF_END_EXIT;
        end->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    }
}

const char *df_end_rule(const df_worker_end *end)
{
    return end->how == DF_END_HANG ? "hang" : "crash";
}

void df_end_text(const df_worker_end *end, double watchdog_s, char *buf, size_t len)
{
    switch (end->how) {
    case DF_END_HANG:
        snprintf(buf, len, "still running after the %g s watchdog: worker killed",
                 watchdog_s);
        break;
    case DF_END_SIGNAL:
        snprintf(buf, len, "worker process killed by signal %d (%s)", end->sig,
                 strsignal(end->sig));
        break;
    case DF_END_EXIT:
        snprintf(buf, len, "the kernel ended its process: exit(%d)", end->status);
        break;
    case DF_END_LEFT:
        snprintf(buf, len, "the worker ended (%s)",
                 end->leave == DF_LEAVE_POISONED ? "its CUDA context was lost"
                 : end->leave == DF_LEAVE_FAILED ? "it could not work"
                                                 : "its work was done");
        break;
    }
}
