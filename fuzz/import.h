/* import.h — builds a case from two plain text files, one number per line,
 * so that vectors from elsewhere (a bug report, numpy.savetxt) can be
 * replayed and saved as case files.
 *
 * Syntax, per line: optional whitespace, one number, optional whitespace.
 * Blank lines and lines whose first non-blank character is '#' are skipped.
 *   f32, f64: a decimal ("-1.5e3"), a C99 hex float ("0x1.8p+1"), or
 *             inf/infinity/nan/nan(...) with optional sign, any case.
 *             A decimal is rounded to the nearest value of the element type
 *             (strtof/strtod, round to nearest even): that is what a person
 *             writing "0.1" means. A hex float spells exact bits, so one
 *             that the type cannot hold exactly is refused, as is any value
 *             that would overflow to infinity or underflow to zero.
 *   i32:      a decimal integer within [-2^31, 2^31 - 1]; no fractions, no
 *             exponents, no rounding.
 *   f16, bf16, e4m3, e5m2: a decimal or a hex float that is exactly one of
 *             the type's values ("0.5", "65504", "0x1p-24", "-0"), or
 *             inf/nan as for f32 (e4m3 has no infinity; nan is the
 *             type's canonical NaN, its sign kept). Nothing is rounded: so
 *             few values are representable that "0.1" meaning 0.0999755859375
 *             in f16 would hide a typo, so it is refused, with the nearest
 *             value in the message.
 *   any type: "bits:0xHEX", the element's bit pattern as stored, at most
 *             as wide as the type ("bits:0x3c00" is f16's 1; "bits:0x7e01"
 *             a NaN with its payload). A bare "0x3c00" is a hex float, the
 *             number 15360, as in C.
 * Numbers use '.' as the decimal point whatever LC_NUMERIC says (they are
 * parsed in the "C" locale), so a file means the same on every machine.
 */
#ifndef DOTFUZZ_IMPORT_H
#define DOTFUZZ_IMPORT_H

#include <stddef.h>

#include "fuzz/case.h"
#include "fuzz/corpus.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The prefix of a bit pattern. */
#define DF_IMPORT_BITS "bits:"

/* Reads a from path_a and b from path_b as vectors of type `type`. kernel is
 * NULL or "" (any kernel of the type) or a registered kernel whose element
 * type is `type`. On success fills *out with a case that owns its data
 * (free with df_case_file_free): family 0 (imported), seed and index 0,
 * launch all zero (the kernel's defaults), meta zero (nothing recorded);
 * df_corpus_encode(&out->c, &out->meta, ...) turns it into a case file.
 * Returns 0, or -1 with one line in msg naming the file and line at fault
 * ("b.txt:12: '1.2.3' is not a number"); *out is then zeroed. */
int df_import_text(const char *path_a, const char *path_b, df_type type,
                   const char *kernel, df_case_file *out, char *msg,
                   size_t msg_len);

/* Makes out (as df_import_text left it) the BLAS call dot(n_arg, a,
 * inc_a, b, inc_b) on the arrays it holds (kernels/blas.h): its vectors
 * become the elements the call reads, in order, and out->c.blas its
 * arguments. Returns 0, or -1 with one line in msg when an array is
 * shorter than its footprint (out is then unchanged) or memory runs out. */
int df_import_blas(df_case_file *out, int64_t n_arg, int32_t inc_a, int32_t inc_b, char *msg,
                   size_t msg_len);

#ifdef __cplusplus
}
#endif
#endif
