/* supervisor_parts.h — what the supervisor's files share, and no other file
 * needs: the messages between a worker and the supervisor, and what
 * supervisor_workers.c (the ranges, the workers) and supervisor_deaths.c
 * (a worker's end) lend to the loop in supervisor.c. */
#ifndef DOTFUZZ_SUPERVISOR_PARTS_H
#define DOTFUZZ_SUPERVISOR_PARTS_H

#include <stdint.h>

#include "fuzz/run/supervisor.h"
#include "fuzz/worker.h"

/* A worker's messages: a range done, a finding saved, its backend open. */
enum { DF_SUP_MSG_DONE = 1, DF_SUP_MSG_FINDING = 2, DF_SUP_MSG_READY = 3 };

typedef struct df_sup_msg_head {
    uint32_t type, status;
    uint64_t lo, hi, next, len; /* len: payload bytes that follow */
} df_sup_msg_head;

/* A finding's message starts with its signature; its file name, log
 * members and human line follow, each NUL-terminated. */
typedef struct df_sup_msg_finding {
    uint64_t ki;
    int32_t verdict, is_new;
    double err_ratio;
    char rule[24];
} df_sup_msg_finding;

/* What a worker is told: a range to run, and the deadline (CLOCK_MONOTONIC,
 * 0 = none) at which it stops early; hi == 0 tells it to end. */
typedef struct df_cmd {
    df_range r;
    double deadline;
} df_cmd;

/* A worker's body's context. */
typedef struct df_sup_arg {
    df_sup *s;
    int id;
} df_sup_arg;

/* ---- the ranges (supervisor_workers.c) ---- */

/* [lo, hi) pending, one case at a time and found when like says (NULL:
 * batched). 0, or -1 without memory. */
int df_sup_push_like(df_sup *s, uint64_t lo, uint64_t hi, const df_range *like);

/* Whether r is a culprit search past the deadline: for a batch that died
 * before it; and whether the queue holds one. */
int df_sup_searched_late(const df_range *r, double deadline);
int df_sup_queue_has_late_search(const df_sup *s, double deadline);

/* Work for a worker into *r: a pending range first (past the deadline,
 * late, only the culprit searches of batches that died before it), then
 * fresh indices. 1, or 0 when there is none. */
int df_sup_next_range(df_sup *s, df_range *r, int late, double deadline);

/* ---- the workers (supervisor_workers.c) ---- */

/* Starts worker id. 0, or -1; df_sup_restart says why on stderr and sets
 * s->env_fail. */
int df_sup_start(df_sup *s, uint32_t id);
int df_sup_restart(df_sup *s, uint32_t id);

/* The file name part of a path. */
const char *df_sup_base_name(const char *path);

/* ---- a worker's end (supervisor_deaths.c) ---- */

/* Hands a finding to the hooks and, unless quiet, its line to stderr. 0,
 * or -1 (s->env_fail set) when the hooks cannot keep it. */
int df_sup_keep_finding(df_sup *s, const char *name, const char *members, const char *line);

/* Worker id's pipe closed: reap it, record what ended it, requeue its
 * range (minus the case it ended on) and start another unless stopping.
 * 0, or -1 when the run cannot go on. */
int df_sup_handle_end(df_sup *s, uint32_t id, int stopping);

#endif
