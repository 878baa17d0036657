/* files.h — files as dotfuzz reads and writes them. Every input is
 * untrusted: only a regular file is read (a FIFO, a device, a socket or a
 * directory is refused before any read, so nothing blocks on it). An
 * output never replaces anything but a regular file (`-o /dev/full` is
 * refused, not turned into a file). Writes are atomic: a hidden temporary
 * file beside the target (".NAME.tmp.XXXXXX", which directory readers
 * skip), fsync, rename, fsync of the directory. */
#ifndef DOTFUZZ_FILES_H
#define DOTFUZZ_FILES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opens path for reading when it is a regular file (symbolic links
 * followed). Returns the descriptor, or -1 with a one-line reason in msg
 * ("cannot open: ...", "is a FIFO, not a regular file", ...). */
int df_open_regular(const char *path, char *msg, size_t msg_len);

/* df_open_regular as a stdio stream ("r"). */
FILE *df_fopen_regular(const char *path, char *msg, size_t msg_len);

/* The whole of regular file path in a malloc'd buffer (*len bytes; at
 * least one byte allocated), or NULL with a reason in msg. */
uint8_t *df_read_regular(const char *path, size_t *len, char *msg, size_t msg_len);

/* Whether path may be written as an output: absent, or a regular file
 * (not a symbolic link, a device, a FIFO or a directory). Returns 0, or -1
 * with a one-line reason in msg. */
int df_output_ok(const char *path, char *msg, size_t msg_len);

/* mkdir -p: creates dir and its missing parents. Returns 0 when dir ends
 * up a directory, else -1 with errno. */
int df_make_dirs(const char *dir);

/* write(2) until all of buf is written (retrying short writes and EINTR).
 * Returns 0 or -1 with errno. */
int df_write_all(int fd, const void *buf, size_t len);

/* Writes buf atomically to exactly path. Refuses (-1, errno EEXIST) a path
 * that holds anything but a regular file. Returns 0 or -1 with errno. */
int df_write_file_atomic(const char *path, const uint8_t *buf, size_t len);

/* Whether a directory entry is a temporary file of an atomic write in
 * progress (or one a kill interrupted), which readers skip. */
int df_is_temp_name(const char *name);

/* A new private directory $TMPDIR/PREFIX-XXXXXX (/tmp without TMPDIR),
 * its path in out. Returns 0, or -1 with errno. */
int df_temp_dir(const char *prefix, char *out, size_t len);

/* rm -r: removes dir and everything under it, symbolic links not
 * followed. Returns 0, or -1 with errno. */
int df_remove_tree(const char *dir);

#ifdef __cplusplus
}
#endif
#endif
