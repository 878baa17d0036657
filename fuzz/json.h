/* json.h — JSON as dotfuzz writes it, in every document: replay --json
 * lines, findings.jsonl lines, smoke's summary, list --json.
 *
 * - Every document starts with "dotfuzz_version" (the release and the
 *   commit it was built from) and "schema_version" (DF_SCHEMA_VERSION,
 *   raised when a member changes meaning or form).
 * - Integers that name a case or a value (seed, index, an integer result)
 *   are strings of decimal digits: a JSON number is a double in most
 *   readers (jq, JavaScript), which holds 53 bits, and a 64-bit seed read
 *   back as a double reproduces nothing. Counts stay numbers.
 * - A number that is not finite is null, and a member KEY_class beside it
 *   says which: "inf", "-inf" or "nan".
 * - Strings are valid UTF-8: a byte that is not part of a valid sequence
 *   becomes '?', control characters are escaped. */
#ifndef DOTFUZZ_JSON_H
#define DOTFUZZ_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DF_SCHEMA_VERSION 2

/* "0.2.0 (commit 0123abcd4567)": the release, and the commit the build
 * came from ("unknown" outside a git checkout; "-dirty" with changes). */
const char *df_version(void);

/* "dotfuzz_version":"...","schema_version":N (no braces, no comma after). */
void df_json_stamp(FILE *f);

/* A string, escaped; NULL is null. */
void df_json_str(FILE *f, const char *s);
/* Integers as decimal strings: "18446744073709551615". */
void df_json_u64(FILE *f, uint64_t v);
void df_json_i64(FILE *f, int64_t v);
/* "key":x, or for a non-finite x "key":null,"key_class":"inf" (-inf, nan). */
void df_json_member(FILE *f, const char *key, double x);

/* A kernel's accumulation, value of a member: null for IEEE sums in its
 * accumulator, else its fused model (reference/fused_dot.h) as
 * {"group":16,"align_bits":25,"out_bits":23,"out_round":"zero",
 *  "out_min_exp":-126,"out_max_exp":127,"in_min_exp":-14,"chains":1}. */
struct df_kernel;
void df_json_fused(FILE *f, const struct df_kernel *k);

/* Length of the valid UTF-8 sequence at s, 0 when there is none. */
size_t df_utf8_len(const unsigned char *s);
/* Writes the non-ASCII byte sequence at s to f: the valid UTF-8 sequence
 * there, or '?' for a byte that starts none. Returns the bytes taken. */
size_t df_utf8_put(FILE *f, const unsigned char *s);

#endif
