/* sandbox.h — one case through one kernel at a time, in a worker process
 * (worker.h). replay, smoke, minimize, merge and hunt judge their cases
 * this way: a kernel that crashes (any signal), hangs past the watchdog,
 * calls exit() or loses its CUDA context makes its case a `bug` (rule
 * "crash" or "hang", the why text saying how), and the command goes on
 * with its next case in a new worker, so its summary, its JSON and its
 * JUnit are always whole.
 *
 * The command's own process never opens the backend: the worker does,
 * and says at its start which backend it is and which kernels it runs.
 * Plugins are loaded before the sandbox opens (the worker is a fork). */
#ifndef DOTFUZZ_SANDBOX_H
#define DOTFUZZ_SANDBOX_H

#include "fuzz/check/check.h"
#include "fuzz/gen/generator.h"
#include "fuzz/outcome.h"
#include "fuzz/check/metamorphic.h"

typedef struct df_sandbox df_sandbox;

/* Starts a worker on backend `name` ("cuda", "host", "auto") for
 * subcommand cmd; debug_invariants as df_backend_set_debug_invariants;
 * watchdog_s the longest a case may run (0: df_watchdog_for the case's
 * size). On failure says why on stderr ("dotfuzz CMD: ...") and returns
 * USAGE (unknown backend) or ENV; else CLEAN and *out. */
df_outcome df_sandbox_open(const char *cmd, const char *name, int debug_invariants,
                           double watchdog_s, df_sandbox **out);
void df_sandbox_close(df_sandbox *sb);

/* The backend's name ("host" or "cuda") and how it was chosen. */
const char *df_sandbox_backend(const df_sandbox *sb);
const char *df_sandbox_note(const df_sandbox *sb);
/* Whether the backend runs kernel k. */
int df_sandbox_supports(const df_sandbox *sb, const df_kernel *k);

/* Judges c on k as df_check_case_meta does (the metamorphic checks when c
 * is in mo's sample), in the worker; c's vectors cross to it through a
 * pipe, unless df_sandbox_generate made them where it reads them. When
 * the worker ends on the case, out is df_check_failed's judgement (rule
 * "crash" or "hang") and the next call starts another worker. Returns 0,
 * or -1 when no worker could be started (said on stderr). */
int df_sandbox_check(df_sandbox *sb, const df_kernel *k, const df_case *c,
                     const df_oracle_opts *oo, const df_meta_opts *mo, df_checked *out);

/* Case (seed, index) of k as df_generate makes it, in memory the worker
 * shares (room.h), so that df_sandbox_check sends none of its bytes (buf
 * holds it where there is no room); past DF_GEN_CHUNK elements made on
 * every usable CPU (df_fill_values_pool). The vectors stay until the next
 * call. Returns 0, or -1 as df_generate. */
int df_sandbox_generate(df_sandbox *sb, uint64_t seed, uint64_t index, const df_kernel *k,
                        const df_gen_opts *o, df_scratch *buf, df_case *out);

/* A watchdog by the case's size (watchdog_s 0) of at least floor_s
 * seconds instead of 10 (df_watchdog_floor). */
void df_sandbox_set_watchdog_floor(df_sandbox *sb, double floor_s);

/* The watchdog that applied to the last case checked, in seconds. */
double df_sandbox_watchdog(const df_sandbox *sb);

#endif
