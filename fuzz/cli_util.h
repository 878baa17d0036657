/* cli_util.h — option parsing and other helpers shared by the subcommands. */
#ifndef DOTFUZZ_CLI_UTIL_H
#define DOTFUZZ_CLI_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"

/* Unsigned integer in decimal digits only (leading zeros are decimal; no
 * sign, blank or 0x), optional k/M/G suffix (powers of 1024). Returns 0
 * or -1. */
int df_parse_u64(const char *s, uint64_t *out);
/* A finite decimal number (an optional sign, digits, '.', an exponent;
 * no blanks, hex, inf or nan). Returns 0 or -1. */
int df_parse_double(const char *s, double *out);
/* --tol's value for subcommand cmd: a finite number >= 0 into *tol, or a
 * usage error on stderr and -1. */
int df_parse_tol_cli(const char *cmd, const char *arg, double *tol);
/* "10", "10s", "5m", "8h", "1.5m" -> seconds (decimal, not negative). */
int df_parse_duration(const char *s, double *seconds);
/* "dotfuzz CMD: <fmt % arg> (see dotfuzz CMD --help)" on stderr. */
void df_usage_error(const char *cmd, const char *fmt, const char *arg);
/* The more severe of two outcomes (bug > usage > env > clean). */
df_outcome df_outcome_worst(df_outcome a, df_outcome b);

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

struct df_backend;
/* Opens backend `name` for subcommand cmd; on failure says why on stderr
 * and returns USAGE (unknown name) or ENV (unavailable). */
df_outcome df_open_backend_cli(const char *cmd, const char *name, struct df_backend **b);

/* Makes room for element n of a growing array: array is the address of
 * its pointer (any element type), *cap its capacity in elements of size
 * bytes, doubled when full. Returns 0, or -1 (no memory, array kept). */
int df_grow(void *array, size_t *cap, size_t n, size_t size);

/* A seed no earlier run is likely to have used: /dev/urandom mixed with the
 * time and the pid (either alone may repeat: a failed read, two runs in
 * one second). */
uint64_t df_fresh_seed(void);

#endif
