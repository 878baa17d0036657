/* corpus.h — the case file: one self-contained reproducer per file.
 *
 * Layout (version 1, every integer little-endian; docs/case-format.md has the table):
 *   0   8  magic "DOTFUZZ\0"
 *   8   2  version (1)
 *  10   2  header size in bytes (128)
 *  12   4  CRC-32 (IEEE, as zlib's crc32) of bytes [16, end of file)
 *  16   1  element type (1 f32, 2 f64, 3 i32; version 4: 4 f16, 5 bf16,
 *           6 e4m3, 7 e5m2, stored as their bits)
 *  17   1  verdict recorded (0 none, else df_verdict)
 *  18   2  generator family id (0 = imported)
 *  20   4  block size (0 = kernel default)
 *  24   4  grid size (0 = derived)
 *  28   4  offset of a in elements
 *  32   4  offset of b in elements
 *  36   4  reserved, 0
 *  40   8  n
 *  48   8  generator seed
 *  56   8  case index
 *  64  32  kernel name, ASCII, NUL-padded ("" = any kernel of the type)
 *  96   8  recorded result: IEEE double bits (float kernels) or int64
 * 104   8  recorded exact/reference value, IEEE double bits
 * 112  16  reserved, 0 (version 3: the schedule, case.h's df_schedule)
 * 128      a[n], then b[n], in the element type
 * then, in versions 2 to 4, the soft-error records (count at byte 36).
 * Version 1 is exactly 128 + 2 n size(type) bytes.
 *
 * The same bytes are a libFuzzer input: corpus files and libFuzzer
 * artifacts are interchangeable. Files are named by the SHA-1 of their
 * bytes (40 hex digits), as libFuzzer names its corpus and crash files.
 */
#ifndef DOTFUZZ_CORPUS_H
#define DOTFUZZ_CORPUS_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz/case.h"
#include "fuzz/files.h"
#include "kernels/soft_error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DF_CORPUS_MAGIC "DOTFUZZ"   /* 7 chars + NUL = 8 bytes */
#define DF_CORPUS_VERSION 5   /* 5 a BLAS call's case, 4 low-precision data, 3 with a
                                 schedule, 2 with soft-error records, else 1 */
#define DF_CORPUS_SOFT_RECORD 48 /* bytes per soft-error record */
#define DF_CORPUS_BLAS_RECORD 16 /* version 5: inc_a, inc_b (i32), n_arg (i64) */
#define DF_CORPUS_HEADER 128
#define DF_CORPUS_MAX_N ((uint64_t)1 << 32) /* readers refuse longer cases */

/* What a file records beyond the case itself (informational on replay:
 * replay recomputes everything). */
typedef struct df_case_meta {
    uint8_t verdict;      /* df_verdict, 0 = none */
    double result;        /* float kernels */
    int64_t iresult;      /* integer kernels (stored instead of result) */
    double reference;     /* exact value when known, else Kahan */
    uint32_t nsoft;       /* soft errors the kernel reported (version 2 records) */
    df_soft_report soft[DF_SOFT_CODES];
} df_case_meta;

/* A case read from a file; owns its vectors. */
typedef struct df_case_file {
    df_case c;
    df_case_meta meta;
    void *data;           /* a then b; freed by df_case_file_free */
} df_case_file;

/* Error codes of the reader; df_corpus_strerror names each. */
typedef enum df_corpus_err {
    DF_CORPUS_OK = 0,
    DF_CORPUS_E_IO,          /* cannot open/read */
    DF_CORPUS_E_TRUNCATED,   /* shorter than the header */
    DF_CORPUS_E_MAGIC,       /* not a dotfuzz case file */
    DF_CORPUS_E_VERSION,     /* unknown version */
    DF_CORPUS_E_HEADER,      /* header size or reserved fields wrong */
    DF_CORPUS_E_TYPE,        /* unknown element type */
    DF_CORPUS_E_SIZE,        /* file size does not match n */
    DF_CORPUS_E_CHECKSUM,    /* CRC mismatch */
    DF_CORPUS_E_KERNEL,      /* kernel name not in the registry, or wrong type */
    DF_CORPUS_E_NOMEM,
} df_corpus_err;

const char *df_corpus_strerror(df_corpus_err e);

/* Serializes a case to a freshly malloc'd buffer (*buf, *len). */
int df_corpus_encode(const df_case *c, const df_case_meta *m, uint8_t **buf,
                     size_t *len);

/* Parses and validates a buffer. On error returns the code and writes a
 * one-line description (without the file name) into msg. */
df_corpus_err df_corpus_decode(const uint8_t *buf, size_t len,
                               df_case_file *out, char *msg, size_t msg_len);

/* Reads and validates a file. */
df_corpus_err df_corpus_read(const char *path, df_case_file *out, char *msg,
                             size_t msg_len);

void df_case_file_free(df_case_file *f);

/* SHA-1 of buf as 40 lowercase hex digits + NUL. */
void df_sha1_hex(const uint8_t *buf, size_t len, char hex[41]);

/* Longest file name df_corpus_store gives: a kind, '-', the SHA-1, NUL. */
#define DF_CORPUS_NAME_MAX 64

/* Writes buf atomically to dir/<kind>-<sha1> (dir/<sha1> when kind is NULL
 * or ""): temp file in dir, fsync, rename, fsync of the directory.
 * *is_new = 0 when a file of that name already existed (deduplicated;
 * nothing written). path receives the final path. Creates dir if missing.
 * Returns 0, or -1 with errno set. */
int df_corpus_store(const char *dir, const char *kind, const uint8_t *buf, size_t len,
                    char *path, size_t path_len, int *is_new);

/* The SHA-1 part of a stored file's name (a kind's prefix skipped:
 * "crash-<sha1>" gives "<sha1>"), or NULL when name is not one. */
const char *df_corpus_name_sha1(const char *name);

/* The case files of a corpus directory: every regular, non-hidden file
 * directly in dir but README.md (a corpus's own description), as paths
 * "dir/name" in name order (strcmp), into a malloc'd array of *n strings
 * (NULL when *n is 0); df_corpus_list_free frees it. Returns 0, or -1 with
 * errno set (dir cannot be opened, or no memory) and nothing to free. */
int df_corpus_list(const char *dir, char ***paths, size_t *n);
void df_corpus_list_free(char **paths, size_t n);

#ifdef __cplusplus
}
#endif
#endif
