/* cli.h — subcommands of the dotfuzz executable and the one place where
 * outcomes become exit codes (cli.c): what main needs. The option helpers
 * the subcommands share are cli_util.h's.
 *
 * Exit codes (README.md "Exit codes"):
 *   0  no bug found (precision findings alone do not fail a run)
 *   1  a bug verdict (including a CUDA error in a kernel) on some case
 *   2  usage error or bad input (unknown option, unreadable or invalid case file)
 *   3  environment error (backend unavailable, corpus directory not writable)
 */
#ifndef DOTFUZZ_CLI_H
#define DOTFUZZ_CLI_H

#include <stdio.h>

#include "fuzz/outcome.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The only mapping from outcome to process exit status. */
int df_exit_code(df_outcome o);

/* Subcommands: each parses its own options and returns an outcome. They
 * print results to stdout and problems to stderr, and never call exit(). */
df_outcome df_cmd_list(int argc, char **argv);
df_outcome df_cmd_run(int argc, char **argv);
df_outcome df_cmd_replay(int argc, char **argv);
df_outcome df_cmd_import(int argc, char **argv);
df_outcome df_cmd_bandwidth(int argc, char **argv);
df_outcome df_cmd_bench_ref(int argc, char **argv);
df_outcome df_cmd_bench(int argc, char **argv);
df_outcome df_cmd_hunt(int argc, char **argv);
df_outcome df_cmd_probe(int argc, char **argv);
df_outcome df_cmd_minimize(int argc, char **argv);
df_outcome df_cmd_merge(int argc, char **argv);
df_outcome df_cmd_report(int argc, char **argv);
df_outcome df_cmd_smoke(int argc, char **argv);
df_outcome df_cmd_triage(int argc, char **argv);

/* bandwidth's output for a measured report: the header lines, then the
 * table, or the Markdown table when markdown (exposed for tests). */
struct df_bw_report;
void df_bw_print(FILE *f, const struct df_bw_report *rep, int markdown);
/* The report as one JSON object (docs/output-formats.md): the device (null
 * when none was opened), n, reps, a row per kernel and copy (its numbers
 * null where it did not run), and err (NULL: none; else what stopped it). */
void df_bw_print_json(FILE *f, const struct df_bw_report *rep, const char *err);

#ifdef __cplusplus
}
#endif
#endif
