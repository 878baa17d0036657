/* bench_out.h — what `dotfuzz bench` (cmd_bench.c) prints: each row as an
 * aligned line of text, or, with --json, as a member of one JSON object
 * printed whole at the end (docs/output-formats.md). A row that did not
 * run is in the JSON with why, and no numbers. */
#ifndef DOTFUZZ_BENCH_OUT_H
#define DOTFUZZ_BENCH_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fuzz/backend/cuda_backend.h"
#include "fuzz/run/run.h"

/* One measurement of the engine's batch path (cmd_bench.c's harness). */
typedef struct df_bench_row {
    uint64_t cases, elems;
    double secs;
    double stage_s[DF_STAGES];
    double finish_s[DF_FINISH_PARTS]; /* DF_FINISH_* */
    double cpu_s[DF_CPU_KINDS]; /* CPU seconds over the pool: generate, refs, model, judge */
    double idle_s[2]; /* the workers' idle seconds: nothing open, only gated loops */
    double gpu_s[DF_CUDA_T_COUNT]; /* the batched launches' stages (cuda backend) */
    double kernel_s[DF_RUN_MAX_KERNELS]; /* each kernel's runs on the backend (cuda) */
    double parts_end_s; /* the waits for each batch's last parts in flight (cuda) */
    int has_gpu_s;
    int pipelined; /* pipelined batches */
    size_t sets;   /* sets of slots: batches in flight */
    double warm_s; /* the untimed first batches, one a set */
    int rc;        /* df_engine_range's */
} df_bench_row;

typedef struct df_bench_out {
    FILE *txt;   /* the text's stream (stdout), NULL with --json */
    FILE *js;    /* the JSON rows, in memory; NULL without --json */
    char *rows;  /* js's bytes */
    size_t len;
    unsigned nrows;
} df_bench_out;

/* Text to stdout, or (json) the rows into memory. 0, or -1 without memory. */
int df_bench_out_open(df_bench_out *o, int json);

/* With --json, prints the document: the stamp, what (the members that say
 * what ran: backend, kernel, threads, ... without braces), the rows, and
 * complete (every row ran). Frees the rows either way; 0, or -1 without
 * memory. */
int df_bench_out_close(df_bench_out *o, const char *what, int complete);

/* A line of text (nothing with --json). */
void df_bench_text(df_bench_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Starts a row of the JSON: {"row":id,"what":what,"ran":true; returns the
 * stream to add members to (each after a comma, df_bench_num's), or NULL
 * without --json. df_bench_row_end closes it. */
FILE *df_bench_row_begin(df_bench_out *o, const char *id, const char *what);
void df_bench_row_end(df_bench_out *o);
/* ,"key":x into the row begun (nothing without --json). */
void df_bench_num(df_bench_out *o, const char *key, double x);

/* A row that did not run: {"row":id,"what":what,"ran":false,"why":why}. */
void df_bench_not_run(df_bench_out *o, const char *id, const char *what, const char *why);

/* A harness row: its cases/s, elements/s, batch and buffering, the peak
 * resident memory, then its shares of time by stage (host: no GPU's).
 * Returns 0, or -1 when the harness stopped (said on stderr, and in the
 * JSON as a row that did not run). */
int df_bench_harness(df_bench_out *o, const char *id, const char *what, const df_bench_row *r,
                     size_t batch, int host);

/* The process's peak resident memory, MiB. */
double df_bench_peak_rss_mib(void);

#endif
