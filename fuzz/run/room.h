/* room.h — memory a command and its sandbox worker share for a case's
 * vectors: the command makes its case there and the worker reads it where
 * it lies, where the pipe would copy every byte (a huge case's 16 GiB and
 * more, at a few GB/s, into as much memory of the worker's own). A memfd:
 * the command grows it and maps it to write, the worker (its fork, holding
 * the same descriptor) maps it to read only, so no kernel writes into the
 * command's case. */
#ifndef DOTFUZZ_ROOM_H
#define DOTFUZZ_ROOM_H

#include <stddef.h>

typedef struct df_room {
    int fd;           /* -1: no room here (the pipe carries the vectors) */
    unsigned char *p; /* mapped in this process, size bytes (NULL: none yet) */
    size_t size;
} df_room;

/* An empty room, or none (fd -1) where the system makes no memfd. */
void df_room_init(df_room *r);

/* The command's side: at least bytes of the room, mapped to write (what
 * was there stays); NULL where there is no room or it cannot grow. */
unsigned char *df_room_reserve(df_room *r, size_t bytes);

/* The worker's side: the room's first bytes, which the command reserved,
 * mapped to read; NULL where they cannot be. */
const unsigned char *df_room_view(df_room *r, size_t bytes);

/* Unmaps the room in this process (the worker, of the mapping its fork
 * copied), keeping the descriptor. */
void df_room_unmap(df_room *r);

/* Unmaps and closes it. */
void df_room_free(df_room *r);

#endif
