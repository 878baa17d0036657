/* files.c — regular-only reads, outputs that replace only regular files,
 * atomic writes, scratch directories (files.h). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz/files.h"

/* What a non-regular file is, for messages. */
static const char *kind_of(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
           : S_ISLNK(m)  ? "a symbolic link"
                         : "not a regular file";
}

int df_open_regular(const char *path, char *msg, size_t msg_len)
{
    /* O_NONBLOCK: opening a FIFO does not wait for a writer; the check
     * below refuses it before any read */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        int saved = errno;
        snprintf(msg, msg_len, "cannot open: %s", strerror(errno));
        errno = saved;
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(msg, msg_len, "cannot stat: %s", strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(msg, msg_len, "is %s, not a regular file", kind_of(st.st_mode));
        close(fd);
        errno = EINVAL;
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

FILE *df_fopen_regular(const char *path, char *msg, size_t msg_len)
{
    int fd = df_open_regular(path, msg, msg_len);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "r");
    if (!f) {
        snprintf(msg, msg_len, "cannot open: %s", strerror(errno));
        close(fd);
    }
    return f;
}

uint8_t *df_read_regular(const char *path, size_t *len, char *msg, size_t msg_len)
{
    int fd = df_open_regular(path, msg, msg_len);
    if (fd < 0)
        return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            uint8_t *p = realloc(buf, 2 * cap);
            if (!p) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = p;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r == 0)
            break;
        if (r > 0) {
            n += (size_t)r;
        } else if (errno != EINTR) {
            snprintf(msg, msg_len, "read failed: %s", strerror(errno));
            free(buf);
            close(fd);
            return NULL;
        }
    }
    close(fd);
    if (!buf) {
        snprintf(msg, msg_len, "out of memory");
        return NULL;
    }
    *len = n;
    return buf;
}

int df_output_ok(const char *path, char *msg, size_t msg_len)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(msg, msg_len, "cannot stat: %s", strerror(errno));
        return -1;
    }
    if (S_ISREG(st.st_mode))
        return 0;
    snprintf(msg, msg_len, "is %s: an output replaces only a regular file",
             kind_of(st.st_mode));
    return -1;
}

static int mkdir_if_missing(const char *p)
{
    return mkdir(p, 0777) == 0 || errno == EEXIST ? 0 : -1;
}

int df_make_dirs(const char *dir)
{
    char *p = strdup(dir);
    if (!p)
        return -1;
    int rc = 0;
    for (char *s = p + 1; *s && rc == 0; s++)
        if (*s == '/') {
            *s = '\0';
            rc = mkdir_if_missing(p);
            *s = '/';
        }
    if (rc == 0)
        rc = mkdir_if_missing(p);
    int saved = errno;
    free(p);
    errno = saved;
    if (rc != 0)
        return -1;
    struct stat st;
    if (stat(dir, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

int df_write_all(int fd, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* fsync of the directory holding path, so that the rename itself survives
 * a crash. */
static int sync_parent_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
    if (!dir)
        return -1;
    int fd = open(*dir ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    int saved = errno;
    close(fd);
    /* Some file systems cannot sync a directory; the rename has happened,
     * so that is not a failure of this write. */
    if (rc != 0 && (saved == EINVAL || saved == ENOTSUP))
        rc = 0;
    errno = saved;
    return rc;
}

/* Writes buf to the open temp file fd and closes it, data on disk. */
static int fill_temp(int fd, const uint8_t *buf, size_t len)
{
    /* mkstemp creates 0600; corpus files are meant to be shared and read by
     * other users' replays, like any file the shell would create. */
    if (fchmod(fd, 0644) != 0 || df_write_all(fd, buf, len) != 0 || fsync(fd) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return close(fd);
}

int df_is_temp_name(const char *name)
{
    return name[0] == '.' && strstr(name, ".tmp.") != NULL;
}

/* DIR/.NAME.tmp.XXXXXX beside path DIR/NAME, in fresh memory. */
static char *temp_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
    char *tmp = malloc(strlen(path) + 16);
    if (tmp)
        sprintf(tmp, "%.*s.%s.tmp.XXXXXX", (int)dlen, path, path + dlen);
    return tmp;
}

int df_write_file_atomic(const char *path, const uint8_t *buf, size_t len)
{
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        errno = EEXIST;
        return -1;
    }
    char *tmp = temp_name(path);
    if (!tmp)
        return -1;
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        int saved = errno;
        free(tmp);
        errno = saved;
        return -1;
    }
    if (fill_temp(fd, buf, len) != 0 || rename(tmp, path) != 0) {
        int saved = errno;
        unlink(tmp);
        free(tmp);
        errno = saved;
        return -1;
    }
    free(tmp);
    return sync_parent_dir(path);
}

int df_temp_dir(const char *prefix, char *out, size_t len)
{
    const char *tmp = getenv("TMPDIR");
    int w = snprintf(out, len, "%s/%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", prefix);
    if (w < 0 || (size_t)w >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return mkdtemp(out) ? 0 : -1;
}

/* nftw's callback: each entry, deepest first. */
static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

int df_remove_tree(const char *dir)
{
    return nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}
