/* sanitize.h — compute-sanitizer in the loop: a dotfuzz command (a replay
 * of a case file, a short run of one kernel) rerun in a child process under
 * NVIDIA's compute-sanitizer, and its first report turned into a `bug`
 * verdict (rule `sanitizer`). The tools: memcheck (out-of-bounds and
 * misaligned accesses, leaks), racecheck (shared-memory hazards), synccheck
 * (barriers under divergence), initcheck (reads of uninitialized device
 * memory). The program is compute-sanitizer from PATH, or
 * DOTFUZZ_SANITIZER when set (a path), so a test can stand in for it. */
#ifndef DOTFUZZ_SANITIZE_H
#define DOTFUZZ_SANITIZE_H

#include <stddef.h>
#include <time.h>

#include "fuzz/outcome.h"
#include "fuzz/plugin.h"

struct df_sup;
struct df_run_opts;

#define DF_SANITIZER_ENV "DOTFUZZ_SANITIZER"

typedef struct df_sanitizer {
    const char *tool;    /* NULL: none asked for */
    const char *program; /* compute-sanitizer or $DOTFUZZ_SANITIZER */
} df_sanitizer;

/* TOOL (memcheck, racecheck, synccheck, initcheck) into *s. Returns 0, or
 * -1 after a one-line usage error naming cmd. */
int df_sanitizer_parse(const char *cmd, const char *tool, df_sanitizer *s);

/* Runs this executable with args (args[0] the subcommand, NULL-terminated)
 * under the sanitizer, its output read and dropped. Returns 0 when the
 * tool reported nothing, 1 with its first report in why (one line: the
 * error and the kernel it names), -1 when the tool could not run (why
 * says so). */
int df_sanitizer_run(const df_sanitizer *s, char *const args[], char *why, size_t len);

/* The case file path replayed under the sanitizer: df_sanitizer_run of
 * `replay --backend B --no-meta [--kernel K] [--kernel-lib L]... path`
 * (kernels NULL: every kernel the file is for). */
int df_sanitizer_replay(const df_sanitizer *s, const char *backend, const char *kernels,
                        const df_plugin_paths *libs, const char *path, char *why, size_t len);

/* --sanitize after a run of s (o->sanitize the tool): each kernel's first
 * o->sanitize_cases cases of the seed (16 when 0; one at a time, without
 * the metamorphic copies) and every case file of findings written since
 * since, each in a child process under the tool. A report is a BUG line
 * on stderr; the pass's line goes to stdout. Returns the outcome. */
df_outcome df_sanitize_after_run(const struct df_sup *s, const struct df_run_opts *o,
                                 const char *findings, struct timespec since);

#endif
