/* guard.c — crash and hang reports for one-process commands (guard.h).
 * The handlers use only async-signal-safe calls: write and _exit, on text
 * prepared before the case ran. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "cli.h"
#include "guard.h"

static char cmd_name[32];
static char case_name[512];
static volatile sig_atomic_t in_case;

static void say(const char *s) { (void)!write(STDERR_FILENO, s, strlen(s)); }

static void on_fatal(int sig)
{
    char num[12];
    int n = sig, i = (int)sizeof num - 1;
    num[i] = 0;
    do
        num[--i] = (char)('0' + n % 10);
    while ((n /= 10) && i > 0);
    say("dotfuzz ");
    say(cmd_name);
    say(": ");
    say(in_case ? case_name : "(between cases)");
    if (sig == SIGALRM) {
        say(": bug (hang): the case did not finish within the watchdog\n");
    } else {
        say(": bug (crash): the process died of signal ");
        say(num + i);
        say("\n");
    }
    _exit(df_exit_code(DF_OUTCOME_BUG));
}

void df_guard_install(const char *cmd)
{
    snprintf(cmd_name, sizeof cmd_name, "%s", cmd);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal;
    sa.sa_flags = SA_RESETHAND; /* a second fault ends the process as usual */
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}

static void arm(double s)
{
    struct itimerval it;
    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = (time_t)s;
    it.it_value.tv_usec = (suseconds_t)((s - (double)(time_t)s) * 1e6);
    setitimer(ITIMER_REAL, &it, NULL);
}

void df_guard_enter(const char *what, double watchdog_s)
{
    snprintf(case_name, sizeof case_name, "%s", what);
    in_case = 1;
    arm(watchdog_s > 0 ? watchdog_s : 0);
}

void df_guard_leave(void)
{
    arm(0);
    in_case = 0;
}
