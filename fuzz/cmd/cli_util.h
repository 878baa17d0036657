/* cli_util.h — the option helpers the subcommands share (cli_util.c);
 * with util.h's decimal number and duration parsers, which they use beside
 * them. cli.h is the other side of the command line: the subcommands'
 * entry points and the exit code mapping that main uses. */
#ifndef DOTFUZZ_CLI_UTIL_H
#define DOTFUZZ_CLI_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz/util.h"

/* --tol's value for subcommand cmd: a finite number >= 0 into *tol, or a
 * usage error on stderr and -1. */
int df_parse_tol_cli(const char *cmd, const char *arg, double *tol);
/* --watchdog's value for subcommand cmd: a duration > 0 in seconds into
 * *watchdog_s, or a usage error on stderr and -1. */
int df_parse_watchdog_cli(const char *cmd, const char *arg, double *watchdog_s);
/* --max-tries's value for subcommand cmd: a count > 0 into *tries, or a
 * usage error on stderr and -1. */
int df_parse_max_tries_cli(const char *cmd, const char *arg, uint64_t *tries);
/* The value of option `name` at argv[*i]: "--name=V" or "--name V"; NULL
 * when argv[*i] is not that option, with *missing set when V is absent. */
const char *df_option_value(int argc, char **argv, int *i, const char *name, int *missing);

/* --threads N for subcommand cmd: a note on stderr when N is more than the
 * CPUs this process may use (allowed: the threads then share them). */
void df_note_threads(const char *cmd, uint64_t threads);

/* Output path of option opt for subcommand cmd: 0 when it may be written
 * (absent, or a regular file: files.h's df_output_ok), else one line on
 * stderr naming it and -1 (the caller's usage error). */
int df_output_ok_cli(const char *cmd, const char *opt, const char *path);

/* Directory dir of option opt for subcommand cmd must take files (or, not
 * there yet, its nearest parent that is must take it): 0, else one line
 * on stderr and -1 (the caller's environment error). Checked before any
 * work is done; nothing is made. */
int df_dir_writable_cli(const char *cmd, const char *opt, const char *dir);

#endif
