/* util.h — small helpers every layer shares: the CLI's number and
 * duration parsers (decimal only, so a campaign file is read as the
 * command line is), growing arrays, a fresh seed, a hashed sample. */
#ifndef DOTFUZZ_UTIL_H
#define DOTFUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Unsigned integer in decimal digits only (leading zeros are decimal; no
 * sign, blank or 0x), optional k/M/G suffix (powers of 1024). Returns 0
 * or -1. */
int df_parse_u64(const char *s, uint64_t *out);
/* A finite decimal number (an optional sign, digits, '.', an exponent;
 * no blanks, hex, inf or nan). Returns 0 or -1. */
int df_parse_double(const char *s, double *out);
/* "10", "10s", "5m", "8h", "1.5m" -> seconds (decimal, not negative). */
int df_parse_duration(const char *s, double *seconds);
/* Makes room for element n of a growing array: array is the address of
 * its pointer (any element type), *cap its capacity in elements of size
 * bytes, doubled when full. Returns 0, or -1 (no memory, array kept). */
int df_grow(void *array, size_t *cap, size_t n, size_t size);

/* A seed no earlier run is likely to have used: /dev/urandom mixed with the
 * time and the pid (either alone may repeat: a failed read, two runs in
 * one second). */
uint64_t df_fresh_seed(void);

/* Whether index is in a sample of one in `every` (0: never) drawn by a
 * hash of seed and index (splitmix64's finalizer), not index mod every: a
 * campaign hands case i to kernel i mod K, and a plain modulus would
 * sample only the kernels whose position shares a factor with `every`. */
int df_sampled_at(uint32_t every, uint64_t seed, uint64_t index);

/* "dotfuzz CMD: <fmt % arg> (see dotfuzz CMD --help)" on stderr. */
void df_usage_error(const char *cmd, const char *fmt, const char *arg);

#endif
