/* room.c — the vectors' memory shared with the sandbox's worker (room.h). */
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz/run/room.h"

void df_room_init(df_room *r)
{
    r->fd = memfd_create("dotfuzz-case", MFD_CLOEXEC);
    r->p = NULL;
    r->size = 0;
}

/* bytes rounded up to whole pages (at least one): what both sides map */
static size_t pages(size_t bytes)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return bytes ? (bytes + pg - 1) / pg * pg : pg;
}

/* The room's first size bytes mapped with prot instead of the mapping
 * now. Returns 0, or -1 (the mapping now stays). */
static int map(df_room *r, size_t size, int prot)
{
    void *p = mmap(NULL, size, prot, MAP_SHARED, r->fd, 0);
    if (p == MAP_FAILED)
        return -1;
    df_room_unmap(r);
    r->p = p;
    r->size = size;
    return 0;
}

unsigned char *df_room_reserve(df_room *r, size_t bytes)
{
    size_t size = pages(bytes);
    if (r->fd < 0)
        return NULL;
    if (size > r->size &&
        (ftruncate(r->fd, (off_t)size) != 0 || map(r, size, PROT_READ | PROT_WRITE) != 0))
        return NULL;
    return r->p;
}

const unsigned char *df_room_view(df_room *r, size_t bytes)
{
    size_t size = pages(bytes);
    if (r->fd < 0 || (size > r->size && map(r, size, PROT_READ) != 0))
        return NULL;
    return r->p;
}

void df_room_unmap(df_room *r)
{
    if (r->p)
        munmap(r->p, r->size);
    r->p = NULL;
    r->size = 0;
}

void df_room_free(df_room *r)
{
    df_room_unmap(r);
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
}
