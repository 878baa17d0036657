/* guard.h — the last word of a command that runs cases in its own process
 * (replay): a case that kills the process (SIGSEGV, SIGBUS, SIGFPE,
 * SIGILL, SIGABRT: a crashing kernel or host model) or runs past a
 * watchdog (a hang) is reported on stderr as a reproduced bug, with the
 * case's name, and the process ends with the bug exit status (1). This is
 * how saved "crash" and "hang" findings of a campaign replay. */
#ifndef DOTFUZZ_GUARD_H
#define DOTFUZZ_GUARD_H

/* Installs the handlers; cmd names the command in messages. */
void df_guard_install(const char *cmd);
/* Names the case about to run and arms the watchdog (0 = none). */
void df_guard_enter(const char *what, double watchdog_s);
/* The case finished: disarms the watchdog. */
void df_guard_leave(void);

#endif
